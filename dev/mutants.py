"""Mutation check for the test suite: each mutant breaks the code one test guards, and that test
must go red.  ``make mutants`` (or ``python dev/mutants.py [NAME ...]``) runs them.

A mutant names its target as ``path::Qualified.name`` (the function, method or class it breaks; a
bare path for a file that is not Python, or for module-level code) and a pattern inside it.  The
pattern matches whatever the white space between its words (a run of spaces, tabs or line breaks
matches any other), so code that is moved, re-indented or re-wrapped keeps its mutants; the
replacement is re-indented to where the pattern is found.

The repository is copied once to a temporary folder (``data/`` linked, not copied); each mutant
is applied there, its tests are run with pytest, and the file is restored.  The working tree is
never touched.  A mutant *survives* when its tests still pass: the script then exits 1.
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (name, target "path::Qualified.name", pattern to replace, replacement, pytest node ids that must fail)
MUTANTS = [
    # BLANC
    ("batch-stats-scaled", "textqa/models/blanc/batch.py::PairBatch.stats", "        out[:, 0, :] = common\n",
     "        out[:, 0, :] = common * 1.01\n", ["tests/blanc/test_batch.py"]),
    ("sentence-common-scaled", "textqa/models/blanc/metric.py::BLANC.pair_stats",
     "        out[0] = common_skip_ngram_mass(M, p.alpha, p.beta, K, p.gap_side)",
     "        out[0] = 1.01 * common_skip_ngram_mass(M, p.alpha, p.beta, K, p.gap_side)",
     ["tests/blanc/test_metric.py::test_corpus_score_pools_statistics"]),
    ("correlate-uses-spearman", "textqa/evaluation/mt.py::per_pair_correlation", "    f = CORRELATIONS[method]", "    f = CORRELATIONS['spearman']",
     ["tests/blanc/test_blanc_cli.py::test_correlate_equals_scipy_on_independently_computed_scores"]),
    ("system-correlation-spearman", "textqa/training/blanc_search.py::correlations",
     "_corr(scores[idx], data.system_human[idx], method)", "_corr(scores[idx], data.system_human[idx], 'spearman')",
     ["tests/blanc/test_training.py::test_segment_and_system_correlations_equal_scipy_per_group"]),
    ("hill-climb-never-moves", "textqa/training/blanc_search.py::hill_climb", "            if v > best_v + 1e-6:",
     "            if v > best_v + 1e6:", ["tests/blanc/test_training.py::test_hill_climbing_never_decreases_and_beats_its_start"]),
    ("clipped-not-clipped", "textqa/models/blanc/clipped.py::_contiguous_clipped", "if table[h] == key and cy[h] < cx[h]:",
     "if table[h] == key and cy[h] <= cx[h]:", ["tests/blanc/test_clipped.py::test_character_statistics_are_chrf_s"]),
    ("chrf-convention-dropped", "textqa/models/blanc/clipped.py::clipped_into", "    if chrf:\n        _chrf_convention(out)",
     "    if False:\n        _chrf_convention(out)", ["tests/blanc/test_chrf_points.py"]),
    ("blanc-details-swapped", "textqa/cli/blanc.py::score_line",
     'return f"{s.score:.6f} {s.precision:.6f} {s.recall:.6f}\\n" if details',
     'return f"{s.score:.6f} {s.recall:.6f} {s.precision:.6f}\\n" if details',
     ["tests/blanc/test_blanc_cli.py::test_blanc_score_allow_empty_and_details"]),
    # truecaser training
    ("drop-overlap-keeps-all", "textqa/training/corpus.py::drop_overlap",
     "    kept = [s for s in train if normalize_for_overlap(s) not in keys]", "    kept = list(train)",
     ["tests/truecaser/test_truecaser_training.py::test_drop_overlap_by_hand"]),
    ("drop-overlap-not-called", "textqa/training/truecaser.py::_fit_here",
     "                sentences, dropped = drop_heldout_paragraphs(paras, dev)",
     "                sentences, dropped = [s for para in paras for s in para], 0",
     ["tests/truecaser/test_truecaser_training.py::test_planted_dev_sentences_are_dropped"]),
    ("heldout-window-start-off-by-one", "textqa/training/corpus.py::HeldoutOverlap.touches",
     "range(max(0, j - (w - b)), min(j, n - w) + 1)", "range(max(0, j - (w - b)) + 1, min(j, n - w) + 1)",
     ["tests/truecaser/test_truecaser_training.py::test_heldout_overlap_equals_brute_force"]),
    ("evaluate-reports-baseline", "textqa/training/truecaser.py::evaluate", 'lm_scores = score_truecase(dev, pred, "dev", "prediction")',
     'lm_scores = score_truecase(dev, model.baseline_.predict(lower), "dev", "prediction")',
     ["tests/truecaser/test_truecaser_training.py::test_dev_report_is_reproduced_by_the_saved_model"]),
    ("perplexity-lowercased", "textqa/training/truecaser.py::dev_perplexity", "[lm_token(t) for t in s.split()] for s in dev",
     "[lm_token(t) for t in s.lower().split()] for s in dev",
     ["tests/truecaser/test_truecaser_training.py::test_dev_perplexity_from_kenlm_full_scores"]),
    ("kn-start-ngrams-continuation-counted", "textqa/models/truecaser/kneser_ney.py::_adjusted_counts",
     "            cont = np.where(from_bos[k - 1], counts.counts[k - 1], cont)", "            pass",
     ["tests/truecaser/test_lm.py::test_kneser_ney_equals_kenlm_lmplz_at_every_order"]),
    ("prune-mass-lost", "textqa/models/truecaser/kneser_ney.py::estimate_kneser_ney",
     "            d = np.where(kept[k - 1], d, a)          # a dropped n-gram's mass goes to the back-off",
     "            pass",
     ["tests/truecaser/test_lm.py::test_kneser_ney_equals_kenlm_lmplz_at_every_order",
      "tests/truecaser/test_lm.py::test_pruned_kneser_ney_is_normalised_and_keeps_every_history"]),
    ("prune-histories-not-renumbered", "textqa/models/truecaser/kneser_ney.py::_drop",
     "            keys[k - 1] = rank[kk // V] * V + kk % V",
     "            keys[k - 1] = kk",
     ["tests/truecaser/test_lm.py::test_kneser_ney_equals_kenlm_lmplz_at_every_order",
      "tests/truecaser/test_lm.py::test_pruned_kneser_ney_is_normalised_and_keeps_every_history"]),
    ("merged-counts-histories-not-mapped", "textqa/models/truecaser/lm.py::OrderCounts.merge",
     "            if map_a is not None:",
     "            if False:",
     ["tests/truecaser/test_lm.py::test_merged_counts_of_stretches_are_the_counts_of_the_whole"]),
    ("order-counts-cross-sentence-end", "textqa/models/truecaser/lm.py::OrderCounts.from_packed",
     "            valid = valid[:m] & (A[k - 2:k - 2 + m] != eos)   # only the last word may be </s>",
     "            valid = valid[:m] & (A[k - 1:k - 1 + m] != eos)",
     ["tests/truecaser/test_lm.py::test_order_counts_match_the_trigram_counts_and_count_by_hand"]),
    ("discriminative-scores-dropped", "textqa/models/truecaser/scores.py::CandidateScores.extra_scores",
     '        if m.reranker_ is not None and self.params.discriminative != "none":', "        if False:",
     ["tests/truecaser/test_rerank.py::test_the_pass_learns_on_held_out_text_and_changes_decisions"]),
    ("discriminative-held-out-in-the-lm", "textqa/models/truecaser/fitting.py::TruecaserFitting.fit",
     "            sentences = [s for s, h in zip(sentences, mask) if not h]", "            sentences = list(sentences)",
     ["tests/truecaser/test_rerank.py::test_the_pass_learns_on_held_out_text_and_changes_decisions"]),
    ("discriminative-weights-unchecked", "textqa/models/truecaser/rerank.py::CandidateWeights.from_data",
     "and not isinstance(v, bool) and math.isfinite(v)", "and True",
     ["tests/truecaser/test_rerank.py::test_a_weight_table_is_checked_when_read"]),
    ("binarize-silently-skipped", "textqa/models/truecaser/lm.py::binarize", "    if exe is None:\n", "    if True:\n",
     ["tests/truecaser/test_truecaser_training.py::test_the_kenlm_binary_branch_ran"]),
    ("reuters-test-trained-on", "textqa/training/corpus.py::reuters_paragraphs", '        if split == "all" or is_test == (split == "test"):',
     "        if True:", ["tests/truecaser/test_truecaser_training.py::test_reuters_test_documents_are_never_trained_on"]),
    ("native-search-without-oov-model", "textqa/models/truecaser/native_search.py::NativeSearch._add_oov",
     "                        add.append(w * score[c])", "                        add.append(0.0)",
     ["tests/truecaser/test_native.py"]),
    ("native-casing-options-ignored", "textqa/models/truecaser/model.py::Truecaser.scores",
     "                             (self._tables(), params))", "                             (self._tables(),))",
     ["tests/truecaser/test_native.py::test_oov_weight_and_casing_options_reach_the_native_decoder",
      "tests/truecaser/test_model.py::test_a_decode_parameter_set_on_a_used_model_decodes_as_a_fresh_load_with_it"]),
    ("search-kept-across-new-tables", "textqa/models/truecaser/model.py::_same_key",
     "        if x is y:\n            continue", "        if True:\n            continue",
     ["tests/truecaser/test_phrases.py::test_phrase_scores_change_the_search_and_weight_zero_is_the_trigram_decoder",
      "tests/truecaser/test_model.py::test_a_decode_parameter_set_on_a_used_model_decodes_as_a_fresh_load_with_it"]),
    ("phrase-scores-not-in-native-search", "textqa/models/truecaser/native_search.py::NativeSearch._add_phrase_scores",
     "        em[at] = table.candidate_scores(", "        em[at] = 0 * table.candidate_scores(",
     ["tests/truecaser/test_phrases.py::test_phrase_scores_change_the_search_and_weight_zero_is_the_trigram_decoder"]),
    ("phrase-score-smoothing-changed", "textqa/models/truecaser/phrases.py::PhraseTable.candidate_scores",
     "        return weight * np.log10((n + 0.5) / denom)", "        return weight * np.log10((n + 1.0) / denom)",
     ["tests/truecaser/test_phrases.py::test_the_longest_covering_phrase_wins_and_scores_are_smoothed_log_shares"]),
    ("phrase-known-form-ids-shifted", "textqa/models/truecaser/native_search.py::NativeSearch._known_rows",
     "            rows.form[:len(forms)] = kept if", "            rows.form[:len(forms)] = kept + 1 if",
     ["tests/truecaser/test_phrases.py::test_phrase_scores_change_the_search_and_weight_zero_is_the_trigram_decoder"]),
    ("phrase-shorter-match-wins", "textqa/models/truecaser/phrase_search.py::PhraseSearch.covered_arrays",
     "        order = np.lexsort((starts[match], -totals[match], -lens[match], token))",
     "        order = np.lexsort((starts[match], -totals[match], lens[match], token))",
     ["tests/truecaser/test_phrases.py::test_the_longest_covering_phrase_wins_and_scores_are_smoothed_log_shares",
      "tests/truecaser/test_phrases.py::test_a_long_batch_is_covered_as_its_sentences_are_one_by_one"]),
    ("phrase-search-crosses-sentences", "textqa/models/truecaser/phrase_search.py::PhraseSearch._matches",
     "                cand = np.flatnonzero(ok & (idx[:m] + length <= end[:m]))",
     "                cand = np.flatnonzero(ok)",
     ["tests/truecaser/test_phrases.py::test_the_longest_covering_phrase_wins_and_scores_are_smoothed_log_shares",
      "tests/truecaser/test_phrases.py::test_a_long_batch_is_covered_as_its_sentences_are_one_by_one"]),
    ("phrase-sentence-start-counted", "textqa/models/truecaser/phrase_counts.py::_windows",
     "    i = np.flatnonzero((pos >= 1) & (left >= n - 1) & ok[0][ix.ids])",
     "    i = np.flatnonzero((pos >= 0) & (left >= n - 1) & ok[0][ix.ids])",
     ["tests/truecaser/test_phrases.py::test_runs_are_capitalised_at_both_ends_and_not_at_a_sentence_start"]),
    ("baseline-read-unchecked", "textqa/models/truecaser/store.py::_read_baseline",
     '    verify_payload(path, manifest, name)',
     "    pass",
     ["tests/truecaser/test_model.py::test_a_loaded_baseline_is_read_when_first_used_and_checked_again"]),
    ("phrase-count-of-another-form", "textqa/models/truecaser/phrases.py::PhraseTable.candidate_scores",
     "np.where(keys[at] == q, self._pos_count[at], 0)", "np.where(keys[at] >= 0, self._pos_count[at], 0)",
     ["tests/truecaser/test_phrases.py::test_the_longest_covering_phrase_wins_and_scores_are_smoothed_log_shares"]),
    ("compound-parts-all-capitalised", "textqa/models/truecaser/compounds.py::compound_form",
     "            if cap > low or cap == low == 0:", "            if True:",
     ["tests/truecaser/test_compounds.py::test_a_compound_is_cased_part_by_part"]),
    ("compound-casing-not-in-native-search", "textqa/models/truecaser/native_search.py::NativeSearch.decode",
     "        self.scores.case_compounds(cased, inp.low, inp.unseen_at)",
     "        pass",
     ["tests/truecaser/test_compounds.py::test_unseen_compounds_are_cased_part_by_part_and_the_searches_agree",
      "tests/truecaser/test_compounds.py::test_a_chosen_capital_of_an_unseen_compound_with_a_rare_spelling_is_cased_part_by_part"]),
    ("compound-casing-switch-ignored", "textqa/models/truecaser/scores.py::CandidateScores.case_compounds",
     "        if not self.params.compound_casing or parts is None:", "        if parts is None:",
     ["tests/test_cli.py::test_truecase_decoder_trigram_is_the_papers_decoder",
      "tests/truecaser/test_compounds.py::test_a_chosen_capital_of_an_unseen_compound_with_a_rare_spelling_is_cased_part_by_part"]),
    ("python-search-ties-to-the-last-path", "textqa/models/truecaser/python_search.py::PythonSearch.viterbi",
     "                    if cur is None or s > cur[0]:       # ties: the first path (state order, then candidates)",
     "                    if cur is None or s >= cur[0]:",
     ["tests/truecaser/test_native.py::test_native_decoder_is_the_python_search"]),
    ("python-search-class-lm-unweighted", "textqa/models/truecaser/python_search.py::PythonSearch._class_step",
     "            s += mu * clm.BaseScore(key[j + 1], classes[j][ci][0], outs[-1])",
     "            s += clm.BaseScore(key[j + 1], classes[j][ci][0], outs[-1])",
     ["tests/truecaser/test_classes.py::test_the_search_over_pairs_of_states_is_exact"]),
    ("python-search-every-class-lm-reads-the-first-class-state", "textqa/models/truecaser/python_search.py::PythonSearch._class_step",
     "            s += mu * clm.BaseScore(key[j + 1], classes[j][ci][0], outs[-1])",
     "            s += mu * clm.BaseScore(key[1], classes[j][ci][0], outs[-1])",
     ["tests/truecaser/test_classes.py::test_the_search_over_several_class_lms_is_exact"]),
    ("truecaser-decodes-the-accented-token-unfolded", "textqa/models/truecaser/model.py::Truecaser.predict_tokens",
     "            folded = [toks if all(map(str.isascii, toks)) else list(map(fold_accents, toks)) for toks in token_lists]",
     "            folded = token_lists",
     ["tests/truecaser/test_model.py::test_a_folded_model_decodes_either_spelling_and_keeps_the_letters"]),
    ("truecaser-restores-no-accents", "textqa/models/truecaser/casing.py::restore_accents",
     "    if source.isascii() or len(source) != len(cased):\n        return cased",
     "    if True:\n        return cased",
     ["tests/truecaser/test_casing.py::test_fold_then_restore_gives_the_text_back",
      "tests/truecaser/test_model.py::test_a_folded_model_decodes_either_spelling_and_keeps_the_letters"]),
    ("numba-cache-unlocked", "textqa/runtime/numba_cache.py::install", "    if fcntl is None:\n        return\n",
     "    if True:\n        return\n", ["tests/test_numba_cache.py"]),
    ("truecaser-loads-with-the-collector-on", "textqa/models/truecaser/store.py::load_truecaser",
     "    with gc_paused():\n        model = _load_truecaser(path)", "    if True:\n        model = _load_truecaser(path)",
     ["tests/truecaser/test_native.py::test_loading_pauses_the_collector_and_gives_it_back_as_it_was"]),
    ("wordnet-lemma-store-unchecked", "textqa/runtime/wordnet.py::_read_lemma_map",
     "                    \"sha256\": hashlib.sha256(body).hexdigest()}:", "                    \"sha256\": meta.get(\"sha256\")}:",
     ["tests/qa/test_lexical.py::test_bundled_wordnet_is_princetons_3_0"]),
    ("workers-results-out-of-order", "textqa/runtime/process_pool.py::results_in_order",
     "        while pending:\n            yield pending.popleft().result()", "        while pending:\n            yield pending.pop().result()",
     ["tests/qa/test_index.py::test_parsed_questions_are_cached_as_data_and_read_back_with_their_annotations",
      "tests/qa/test_index.py::test_the_collection_analysed_in_the_worker_processes_is_the_one_analysed_here"]),
    ("icd9-report-folder-left-behind", "textqa/training/icd9.py::_run", "        shutil.rmtree(work, ignore_errors=True)",
     "        pass", ["tests/test_training_faults.py::test_sigterm_stops_the_worker_processes_and_keeps_the_artifact"]),
    ("sentence-bleu-without-effective-order", "textqa/evaluation/mt.py::sentence_scores_and_statistics",
     "    metric = BLEU(effective_order=True) if name == \"sentbleu\" else _sacrebleu_metric(name)",
     "    metric = BLEU() if name == \"sentbleu\" else _sacrebleu_metric(name)",
     ["tests/evaluation/test_mt.py::test_sentence_scores_from_the_statistics_are_sacrebleus_sentence_scores"]),
    ("local-cluster-workers-spawned", "textqa/runtime/dask_cluster.py::cluster",
     '    start = FORKSERVER if "forkserver" in multiprocessing.get_all_start_methods() else {}\n',
     "    start = {}\n",
     ["tests/test_cluster_training.py::test_a_local_cluster_forks_its_workers_from_a_server_that_imported_the_preload"]),
    ("cluster-config-dropped-on-exit", "textqa/runtime/dask_cluster.py::cluster",
     "    importlib.import_module(\"distributed\")    # its config defaults first: leaving a set() made before them drops them\n",
     "",
     ["tests/test_cluster_training.py::test_a_local_cluster_forks_its_workers_from_a_server_that_imported_the_preload"]),
    ("local-cluster-preload-dropped", "textqa/runtime/dask_cluster.py::_preload",
     '    get_mp_context().set_forkserver_preload(["distributed", *modules])',
     '    get_mp_context().set_forkserver_preload(["distributed"])',
     ["tests/test_cluster_training.py::test_a_local_cluster_forks_its_workers_from_a_server_that_imported_the_preload"]),
    ("workers-in-flight-unbounded", "textqa/runtime/process_pool.py::results_in_order",
     "            while in_flight is not None and len(pending) >= in_flight:", "            while False:",
     ["tests/test_workers.py"]),
    ("cli-parser-imports-every-trainer", "textqa/cli/train.py::add_arguments", "        if argv[:2] == [\"train\", m.name]:",
     "        if True:", ["tests/test_cli.py::test_help_loads_no_model_and_each_trainer_lists_its_own_options"]),
    ("cli-trainer-gets-no-options", "textqa/cli/train.py::add_arguments", "        if argv[:2] == [\"train\", m.name]:",
     "        if False:", ["tests/test_cli.py::test_help_loads_no_model_and_each_trainer_lists_its_own_options"]),
    ("nuggeteer-keeps-stop-words", "textqa/evaluation/nuggeteer.py::NuggetJudge.words", "            ws = [w for w in ws if w not in stop]",
     "            ws = [w for w in ws if w not in ()]", ["tests/evaluation/test_nuggeteer.py"]),
    ("cluster-partitions-not-folded", "textqa/training/truecaser_dask.py::tokenize_partition",
     "    return (list(map(fold_accents, sents)) if fold else sents), dropped",
     "    return sents, dropped",
     ["tests/test_cluster_training.py::test_cluster_partitions_are_folded_as_fit_folds_them"]),
    ("cluster-class-counts-from-one-partition", "textqa/training/truecaser_dask.py::ClusterText._sum",
     "                                                 for p in self.packed]).result()",
     "                                                 for p in self.packed[:1]]).result()",
     ["tests/test_cluster_training.py::test_truecaser_counts_as_a_map_reduce_give_the_same_lm"]),
    # QA query expansion
    ("fusion-ignores-rank", "textqa/models/qa/expansion.py::fuse", "1.0 / (RRF_K + rank + 1)", "1.0 / RRF_K",
     ["tests/qa/test_expansion.py::test_reciprocal_rank_fusion"]),
    ("expansion-replaces-simple-query", "textqa/models/qa/system.py::InstanceQA.retrieve",
     "            hits = fuse([index.search(words, k), search(index, doc, self.expansion, k)], k)",
     "            hits = fuse([search(index, doc, self.expansion, k)], k)",
     ["tests/qa/test_expansion.py"]),
    # CLI
    ("train-all-ignores-force", "textqa/cli/train.py::_train", 'if (target / MANIFEST).exists() and not args.force:',
     'if (target / MANIFEST).exists():',
     ["tests/test_cli.py::test_train_all_skips_existing_artifacts_unless_forced"]),
    ("truecase-loses-line-ends", "textqa/cli/truecase.py::truecase_lines", '    return "".join(c + e for c, e in zip(cased, ends))',
     '    return "".join(c + "\\n" for c, e in zip(cased, ends))', ["tests/test_cli.py::test_truecase_baseline_and_batches"]),
    ("nugget-compare-off-by-one", "textqa/evaluation/plots.py::reference_vs_estimate", "if not lo <= r <= hi)", "if not lo <= r <= hi + 1)",
     ["tests/test_cli.py::test_eval_nuggets_compare_and_plot"]),
    # service
    ("broken-artifact-reason-lost", "textqa/service/slots.py::_load", "        slot.error = str(e)\n",
     '        slot.error = "not loaded"\n', ["tests/service/test_app.py::test_broken_artifact_is_503_not_a_crash"]),
    # QA
    ("answer-keeps-articles", "textqa/models/qa/answers.py::normalise_answer", 't = re.sub(r"^(the|a|an) ", "", " ".join(t.split()))',
     't = " ".join(t.split())', ["tests/qa/test_answer_matching.py"]),
    ("pattern-case-sensitive", "textqa/models/qa/answers.py::pattern_match", "if re.search(p, text, flags=re.IGNORECASE):",
     "if re.search(p, text):", ["tests/qa/test_answer_matching.py"]),
    ("pattern-no-fallback", "textqa/models/qa/answers.py::pattern_match", "            if p.lower() in text.lower():",
     "            if False:", ["tests/qa/test_answer_matching.py"]),
    ("frames-order-unstable", "textqa/models/qa/frames.py::FrameClusters.match", "key=lambda f: (len(self.clusters_[f]), f))",
     "key=lambda f: (len(self.clusters_[f]), f[::-1]))", ["tests/qa/test_frames.py"]),
    ("cache-key-ignores-model", "textqa/models/qa/nlp.py::cache_file",
     'h = hashlib.sha256(f"{model_version()}|{version}\\n".encode("utf-8"))',
     'h = hashlib.sha256(f"{version}\\n".encode("utf-8"))',
     ["tests/qa/test_index.py::test_collection_cache_is_keyed_by_texts_and_spacy_model"]),
    ("select-scores-reversed", "textqa/cli/qa.py::run_select", "        scores = model.selector.scores(p.question, [c for _, c in p.candidates], qt, fine)",
     "        scores = model.selector.scores(p.question, [c for _, c in p.candidates], qt, fine)[::-1]",
     ["tests/qa/test_qa_system.py::test_select_writes_every_candidate"]),
    ("heldout-mrr-top1", "textqa/training/qa.py::reciprocal_ranks", 'enumerate(res["answers"][:5])', 'enumerate(res["answers"][:1])',
     ["tests/qa/test_qa.py::test_reciprocal_ranks_read_the_top_five_answers"]),
    ("query-content-not-passed", "textqa/training/qa.py::train_instance", "query_content=args.query_content,", "query_content=False,",
     ["tests/qa/test_qa_system.py::test_training_with_query_content"]),
    # ICD-9
    ("icd9-auc-negated", "textqa/evaluation/icd9.py::score_codes", "[scores[d][code] for d in gold]", "[-scores[d][code] for d in gold]",
     ["tests/icd9/test_interfaces.py::test_code_and_eval_commands_on_heldout_records"]),
    ("icd9-stacked-without-phi", "textqa/models/icd9/coder.py::ICD9Coder._stacked",
     'wv.append(np.asarray(m["phi"], dtype=np.float64) * np.asarray(m["weights"], dtype=np.float64)',
     'wv.append(np.asarray(m["weights"], dtype=np.float64)',
     ["tests/icd9/test_interfaces.py::test_stacked_scoring_equals_the_per_code_models"]),
    ("icd9-refit-keeps-stacked-weights", "textqa/models/icd9/coder.py::ICD9Coder.fit",
     '        self.__dict__.pop("_stack_cache", None)          # stacked weights of a previous fit\n', "",
     ["tests/icd9/test_interfaces.py::test_refitting_a_coder_replaces_its_stacked_weights"]),
    ("qa-wordnet-hyper-ignored", "textqa/models/qa/selection.py::wordnet_features", "        for k in range(3):", "        for k in (0, 2):",
     ["tests/qa/test_lexical.py::test_wordnet_features_of_the_sentence_ranker"]),
    ("qa-type-check-no-instances", "textqa/models/qa/typecheck.py::_ancestors",
     "lambda x: x.hypernyms() + x.instance_hypernyms()", "lambda x: x.hypernyms()",
     ["tests/qa/test_lexical.py::test_wordnet_type_check_of_answer_candidates"]),
    ("qa-resources-trivial-counted", "textqa/models/qa/resources.py::wordnet_found",
     "    patterns = [p for p in q.patterns if p not in trivial]", "    patterns = list(q.patterns)",
     ["tests/qa/test_resources.py::test_wordnet_answers_real_trec_questions_by_relation"]),
    ("icd9-post-trigger-ignored", "textqa/models/icd9/text.py::_scan", '                                tagged[k] = (kind[5:], tagged[k][1])',
     '                                pass',
     ["tests/icd9/test_text_and_records.py::test_hypothetical_pseudo_and_post_triggers"]),
    ("icd9-concept-scope-ignored", "textqa/models/icd9/concepts.py::concepts", '                    states = {s for s, _ in sent[i:end] if s}',
     '                    states = set()', ["tests/icd9/test_text_and_records.py::test_index_term_concepts"]),
    ("icd9-suppression-without-evidence", "textqa/models/icd9/guidelines.py::learn_symptom_suppression",
     "                    and _chance_expects(n, s, d, len(code_sets), min_expected))", ")",
     ["tests/icd9/test_models.py::test_symptom_guideline_functions"]),
    ("icd9-plain-text-one-prefix", "textqa/models/icd9/text.py", 'SECTION_PREFIXES = ("H_", "I_")',
     'SECTION_PREFIXES = ("I_",)', ["tests/icd9/test_text_and_records.py::test_sections_are_prefixed_and_kept_plain"]),
    # ROUGE-1.5.5, sclite WER, MATERIAL submissions
    ("rouge-plain-mean", "textqa/evaluation/rouge.py::averages", '        out[f"Avg{name}"] = _f(_seq_sum(ranked) / R)',
     '        out[f"Avg{name}"] = _f(vals[:, k].mean() if n else 0.0)',
     ["tests/evaluation/test_rouge.py::test_reproduces_nist_official_duc2006_output"]),
    ("rouge-porter-step4-alternatives", "textqa/evaluation/rouge_input.py::porter_stem", '    if w.endswith("ment") and _MGR1.search(w[:-4]):',
     '    if False:', ["tests/evaluation/test_rouge.py::test_porter_stemmer_equals_rouges_on_every_duc_word"]),
    ("rouge-su-last-unigram", "textqa/evaluation/rouge.py::Summary.skip_bigrams", "            for i in range(len(t) - 1):\n                if unigrams:",
     "            for i in range(len(t)):\n                if unigrams:",
     ["tests/evaluation/test_rouge.py::test_reproduces_nist_official_duc2006_output"]),
    ("wer-tie-deletion-first", "textqa/evaluation/wer.py::_align_ops", "        elif j > 0 and here == cost[i, j - 1] + INS:",
     "        elif j > 0 and here == cost[i, j - 1] + INS and not (i > 0 and here == cost[i - 1, j] + DEL):",
     ["tests/evaluation/test_wer.py::test_equal_to_sclite_overall_and_per_file"]),
    ("wer-midpoint-is-begin", "textqa/evaluation/wer.py::assign", "        mid = w.begin + w.duration / 2", "        mid = w.begin",
     ["tests/evaluation/test_wer.py"]),
    ("material-allows-dotdot", "textqa/evaluation/material.py::_safe_member", 'or ".." in p.parts or', "or",
     ["tests/evaluation/test_material.py::test_check_refuses_unsafe_members_and_writes_nothing_outside"]),
    # evaluation
    ("mrr-cutoff-ignored", "textqa/evaluation/rank.py::score_run", "(mrr_cutoff is None or i <= mrr_cutoff)", "True",
     ["tests/evaluation/test_rank.py"]),
    ("relevance-level-ignored", "textqa/evaluation/rank.py::score_run", "if r >= relevance_level}", "if r >= 1}",
     ["tests/evaluation/test_rank.py"]),
    # (on this TREC run every query has relevant documents, so choosing by plain QWV would be an
    # equivalent mutant: eq. 2 = eq. 3 there); a search that skips every other cut is not
    ("aqwv-best-skips-cuts", "textqa/evaluation/aqwv.py::_mode_result", "    for t in sorted(set(thresholds)) + [math.inf]:",
     "    for t in sorted(set(thresholds))[::2] + [math.inf]:",
     ["tests/evaluation/test_aqwv.py::test_trec_input_agrees_with_trec_eval_counts"]),
    ("chrf-plus-plus", "textqa/evaluation/mt.py::_sacrebleu_metric", '"sentbleu": BLEU, "chrf": CHRF,',
     '"sentbleu": BLEU, "chrf": lambda: CHRF(word_order=2),', ["tests/evaluation/test_mt.py"]),
    ("bootstrap-not-resampling", "textqa/evaluation/mt.py::bootstrap_average_pearsons", "            j = idx[rng.integers(0, len(idx), len(idx))]",
     "            j = idx", ["tests/evaluation/test_mt.py"]),
    ("system-human-summed", "textqa/evaluation/mt.py::SystemLevel.__init__",
     "human = np.bincount(r_sys, [rows[i].human_score for i in idx]) / np.bincount(r_sys)",
     "human = np.bincount(r_sys, [rows[i].human_score for i in idx])", ["tests/evaluation/test_mt.py"]),
    ("system-bootstrap-not-resampling", "textqa/evaluation/mt.py::SystemLevel.bootstrap",
     "c = np.bincount(rng.integers(0, n_seg, n_seg), minlength=n_seg).astype(float)",
     "c = np.ones(n_seg)", ["tests/evaluation/test_mt.py"]),
    ("cpa-official-average", "textqa/evaluation/cpa.py::_average_verbs", "denominator = len(gold_verbs) if as_official else len(per_verb)",
     "denominator = len(per_verb)", ["tests/evaluation/test_cpa.py"]),
    ("nuggets-stem-ignored", "textqa/cli/eval/nuggets.py::run", "stem=args.stem,", "stem=False,",
     ["tests/evaluation/test_nugget.py::test_cli_pyramid_and_stemming"]),
    # hostile input
    ("oov-hashes-surrogates", "textqa/models/truecaser/oov.py::char_features", '    w = _SURROGATE.sub("\\ufffd", word.lower())',
     "    w = word.lower()", ["tests/truecaser/test_oov.py::test_a_lone_surrogate_is_hashed_as_the_replacement_character",
                            "tests/test_hostile_input.py::test_truecase"]),
    # artifacts carry data only
    ("npz-allows-pickle", "textqa/models/artifact.py::_read_arrays", "with np.load(path if data is None else io.BytesIO(data), allow_pickle=False) as z:",
     "with np.load(path if data is None else io.BytesIO(data), allow_pickle=True) as z:", ["tests/test_artifact_safety.py::test_npz_with_a_pickled_object_is_refused"]),
    ("pickle-payload-not-refused", "textqa/models/artifact.py::load_manifest", "    if pickles:\n",
     "    if False:\n", ["tests/test_artifact_safety.py::test_pickle_payloads_are_never_loaded"]),
    # service operations
    ("metrics-per-worker", "textqa/cli/serve.py::run", '    env["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir\n', "    pass\n",
     ["tests/service/test_gunicorn.py::test_metrics_are_summed_over_workers"]),
    ("no-request-id", "textqa/service/__init__.py::_install_request_ids_and_access_log._finish", '        resp.headers["X-Request-ID"] = rid\n', "",
     ["tests/service/test_app.py::test_request_ids_and_json_access_log"]),
    ("405-without-allow", "textqa/service/http_errors.py::register_error_handlers._http_error", "                resp.headers[name] = value\n",
     "                pass\n", ["tests/service/test_app.py::test_404_405"]),
    # one declaration per endpoint
    ("integral-float-not-an-integer", "textqa/service/schemas.py::_integral", "        return int(value)\n",
     "        return value\n", ["tests/service/test_schemas.py::test_schema_and_validation_agree"]),
    ("unknown-fields-ignored", "textqa/service/schemas.py::StrictRequest",
     '    model_config = ConfigDict(extra="forbid", strict=True, regex_engine="python-re")',
     '    model_config = ConfigDict(extra="ignore", strict=True, regex_engine="python-re")',
     ["tests/service/test_schemas.py::test_errors_name_the_field_in_plain_words"]),
    ("python-whitespace-pattern", "textqa/service/schemas.py", 'NON_EMPTY = r"[^\\t-\\r\\u001c',
     'NON_EMPTY = r"\\S" or r"[^\\t-\\r\\u001c',
     ["tests/service/test_contract.py::test_non_empty_pattern_means_the_same_to_every_regex_engine"]),
    # faults during training
    ("no-recovery-of-dead-writers", "textqa/models/artifact.py::write_artifact", "    recover_interrupted(dest)\n", "",
     ["tests/test_training_faults.py::test_sigkill_while_writing_keeps_the_artifact_and_the_next_training_cleans_up"]),
    ("sigterm-not-handled", "textqa/cli/train.py::_stop_workers_on_exit", "    signal.signal(signal.SIGTERM, _terminate)\n", "    pass\n",
     ["tests/test_training_faults.py::test_sigterm_stops_the_worker_processes_and_keeps_the_artifact"]),
    ("explain-crossed-bigrams", "textqa/models/blanc/metric.py::BLANC.explain", "if yb > ya and xb > xa and len(bigrams)",
     "if yb > ya and len(bigrams)", ["tests/blanc/test_metric.py::test_explain_matches_the_statistics_behind_the_score"]),
    ("scope-spans-swapped", "textqa/models/icd9/text.py::_scan", 'scope_name = {"NEG": "negated", "UNC": "uncertain"}',
     'scope_name = {"NEG": "uncertain", "UNC": "negated"}',
     ["tests/icd9/test_text_and_records.py::test_scope_spans_are_where_the_features_are_negated"]),
    ("truecaser-plots-not-saved", "textqa/training/truecaser.py::run",
     'files={name: work / "plots" / name for name in PLOTS} if dev else None)', "files=None)",
     ["tests/truecaser/test_truecaser_training.py::test_training_writes_the_dev_plots_into_the_artifact"]),
    ("playground-error-message-lost", "textqa/service/static/playground.js", "  if (e && e.message) {",
     "  if (false) {", ["tests/service/test_playground.py::test_every_panel_in_a_real_browser"]),
    ("qa-redundancy-ignored", "textqa/models/qa/merging.py::merge_strategies",
     'a.score += weight * (best + redundancy * math.log(len(idx)))', 'a.score += weight * best',
     ["tests/qa/test_qa_system.py::test_answers_mentioned_more_often_gain_from_redundancy"]),
    ("qa-answer-k-ignored", "textqa/models/qa/system.py::InstanceQA.evidence", "        k = self.answer_k or self.retrieve_k\n",
     "        k = self.retrieve_k\n",
     ["tests/qa/test_qa_system.py::test_answers_come_from_the_answer_k_best_sentences"]),
    ("qa-restated-any-word", "textqa/models/qa/answers.py::restates_question",
     "    return bool(words) and all(stem(w) in q_stems for w in words)",
     "    return bool(words) and any(stem(w) in q_stems for w in words)",
     ["tests/qa/test_qa_system.py::test_candidates_that_restate_the_question_are_dropped"]),
    ("qa-restated-kept-in-answering", "textqa/models/qa/system.py::InstanceQA.evidence", "        data = self.candidates(doc, sents)\n",
     "        data = [(s, c) for s in sents for c in s.candidates]\n",
     ["tests/qa/test_qa_system.py::test_candidates_that_restate_the_question_are_dropped"]),
    ("qa-ranker-rank-off-by-one", "textqa/models/qa/system.py::ranker_scores", "1.0 / (1 + r)) for s, x, r in zip(",
     "1.0 / (2 + r)) for s, x, r in zip(",
     ["tests/qa/test_qa_system.py::test_extraction_reads_the_sentence_ranker_and_the_fine_class"]),
    ("qa-ranker-spans-overwrite", "textqa/models/qa/system.py::as_ranked_sentence",
     "if label is None or c.end > len(tokens) or any(t != \"-\" for t in ner[c.start:c.end]):",
     "if label is None or c.end > len(tokens):",
     ["tests/qa/test_qa_system.py::test_collection_sentences_reach_the_sentence_ranker_typed"]),
    ("qa-fine-class-not-passed", "textqa/models/qa/store.py::QAModel.answer",
     "res = self.instance.answer(doc, source, top_k, dist, label)", "res = self.instance.answer(doc, source, top_k, dist)",
     ["tests/qa/test_qa_system.py::test_extraction_reads_the_sentence_ranker_and_the_fine_class"]),
    ("qa-types-from-seen-questions", "textqa/training/qa.py::unseen_answer_types",
     'keep = [i for i, q in enumerate(uiuc) if question_key(q.question) not in seen]',
     'keep = list(range(len(uiuc)))',
     ["tests/qa/test_qa_system.py::test_training_questions_are_typed_by_a_classifier_that_never_saw_them"]),
    ("qa-fine-wordnet-no-head", "textqa/models/qa/typecheck.py::fine_wordnet_match",
     'for form in dict.fromkeys([" ".join(words), words[-1]] if words else []):',
     'for form in dict.fromkeys([" ".join(words)] if words else []):',
     ["tests/qa/test_qa_system.py::test_wordnet_checks_candidates_against_the_fine_class"]),
    ("qa-extraction-c-not-passed", "textqa/training/qa.py::train_instance", "InstanceQA(retrieve_k=args.retrieve_k, C=args.extraction_c,",
     "InstanceQA(retrieve_k=args.retrieve_k, C=0.1,",
     ["tests/qa/test_qa_system.py::test_artifact_records_the_evaluations"]),
    ("selection-fine-near-rescaled", "textqa/models/qa/selection.py::pair_features",
     "                fine_near = max(fine_near, math.exp(-d / 5))", "                fine_near = max(fine_near, math.exp(-d / 4))",
     ["tests/qa/test_qa.py::test_fine_answer_type_match_of_the_sentence_ranker"]),
    ("selection-fine-any-entity", "textqa/models/qa/selection.py::pair_features",
     "        wants = kind is None or kind in wanted ", "        wants = kind is None or bool(wanted) ",
     ["tests/qa/test_qa.py::test_fine_answer_type_match_of_the_sentence_ranker"]),
    ("selection-acronym-no-skipping", "textqa/models/qa/selection.py::expansions",
     "            elif t.lower() not in _ACRONYM_SKIP:", "            else:",
     ["tests/qa/test_qa.py::test_abbreviation_questions_ask_for_an_expansion_or_an_acronym"]),
    ("selection-acronym-question-word", "textqa/models/qa/selection.py::acronym_spans",
     "if is_acronym(t) and t not in asked and expansions(t, q_tokens)]", "if is_acronym(t) and expansions(t, q_tokens)]",
     ["tests/qa/test_qa.py::test_abbreviation_questions_ask_for_an_expansion_or_an_acronym"]),
    ("selection-old-width-ignored", "textqa/models/qa/selection.py::SentenceSelector.scores_features",
     "standardized(self.scaler_, X[:, :width])", "standardized(self.scaler_, X)",
     ["tests/qa/test_qa.py::test_a_ranker_fitted_before_the_fine_features_still_scores"]),
    ("select-fine-not-passed", "textqa/cli/qa.py::run_select",
     "        scores = model.selector.scores(p.question, [c for _, c in p.candidates], qt, fine)\n",
     "        scores = model.selector.scores(p.question, [c for _, c in p.candidates], qt)\n",
     ["tests/qa/test_qa_system.py::test_select_writes_every_candidate"]),
    ("plot-written-in-place", "textqa/evaluation/plots.py::_save", "        fig.savefig(tmp)\n",
     "        fig.savefig(path)\n", ["tests/evaluation/test_plots_atomic.py"]),
    # isolation
    ("no-test-isolation", "tests/conftest.py::_test_isolation",
     '    monkeypatch.setenv("TEXTQA_ARTIFACTS", str(tmp_path_factory.mktemp("artifacts-default")))\n',
     '    monkeypatch.delenv("TEXTQA_ARTIFACTS")\n', ["tests/test_isolation.py"]),
    ("json-duplicate-keys-kept", "textqa/runtime/json_input.py::_unique_keys", "    if len(out) != len(pairs):",
     "    if False:", ["tests/test_hostile_json.py::test_parse_json_refuses_each_kind"]),
    ("json-depth-unchecked", "textqa/runtime/json_input.py::_nesting", "        if depth > max_depth:",
     "        if depth > 10 * max_depth:", ["tests/test_hostile_json.py::test_parse_json_refuses_each_kind"]),
    ("collection-checksum-unchecked", "textqa/models/checked_files.py::CheckedFiles.holds",
     "            return self._known.get(self._key(path)) == [*file_identity(path), sha256]",
     "            return self._key(path) in self._known",
     ["tests/qa/test_collections.py::test_a_tampered_collection_is_refused", "tests/test_checked_files.py"]),
    ("collection-and-query-skipped", "textqa/models/qa/passages.py::PassageIndex.search",
     "rows = self.match(every, k) if \" AND \" in every else []", "rows = []",
     ["tests/qa/test_collections.py::test_search_takes_paragraphs_with_every_word_first_and_prunes_frequent_words"]),
]


def definitions(source: str) -> dict[str, tuple[int, int]]:
    """{qualified name: (first line, last line)} of every function and class of a module's source."""
    out = {}

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                out[name] = (min([child.lineno] + [d.lineno for d in child.decorator_list]), child.end_lineno)
                walk(child, name + ".")
            else:
                walk(child, prefix)
    walk(ast.parse(source), "")
    return out


def pattern_regex(pattern: str) -> re.Pattern:
    """The pattern's words in order, any run of white space between them matching any other."""
    return re.compile(r"\s+".join(re.escape(piece) for piece in re.split(r"\s+", pattern.strip())))


def locate(root: Path, target: str, pattern: str) -> tuple[Path, str, list[re.Match]]:
    """(file, its text, the pattern's matches inside the target's definition, or the whole file)."""
    rel, _, qualname = target.partition("::")
    path = root / rel
    text = path.read_text(encoding="utf-8")
    start, end = 0, len(text)
    if qualname:
        found = definitions(text).get(qualname)
        if found is None:
            return path, text, []
        lines = text.splitlines(keepends=True)
        start = sum(len(x) for x in lines[:found[0] - 1])
        end = start + sum(len(x) for x in lines[found[0] - 1:found[1]])
    return path, text, list(pattern_regex(pattern).finditer(text, start, end))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def mutated(text: str, match: re.Match, pattern: str, replacement: str) -> str:
    """``text`` with the match replaced.  Where the match begins a line, the replacement's lines move
    by as many columns as the code moved since the pattern was written (its first line's indentation
    against the line's now)."""
    body = replacement.strip("\n")
    if not body:
        return text[:match.start()] + text[match.end():]
    prefix = text[text.rfind("\n", 0, match.start()) + 1:match.start()]
    old = _indent(pattern.strip("\n"))
    shift = 0 if prefix.strip() else len(prefix) - old
    lines = body.splitlines()
    first = lines[0][min(old, _indent(lines[0])):]
    rest = [" " * max(0, _indent(x) + shift) + x.lstrip(" ") if x.strip() else x for x in lines[1:]]
    return text[:match.start()] + "\n".join([first, *rest]) + text[match.end():]


def copy_repo(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        if rel.startswith("data/"):
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    (dest / "data").symlink_to(ROOT / "data")
    for extra in (".venv",):              # tools the code looks up beside itself (KenLM's build_binary)
        if (ROOT / extra).exists():
            (dest / extra).symlink_to(ROOT / extra)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="mutants to run (default: all)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.names or m[0] in args.names]
    if args.list:
        for name, path, *_, tests in MUTANTS:
            print(f"{name:<32} {path:<36} {' '.join(tests)}")
        return 0
    unknown = set(args.names) - {m[0] for m in MUTANTS}
    if unknown:
        ap.error(f"unknown mutant(s): {', '.join(sorted(unknown))}")
    survived = []
    with tempfile.TemporaryDirectory(prefix="textqa-mutants-") as tmp:
        work = Path(tmp) / "repo"
        copy_repo(work)
        probe = subprocess.run([sys.executable, "-c", "import textqa.models, textqa; print(textqa.models.__file__, textqa.__file__)"],
                               cwd=work, capture_output=True, text=True, check=True).stdout.split()
        if not all(Path(f).resolve().is_relative_to(work.resolve()) for f in probe):
            print(f"the copy's packages do not shadow the installed ones: {probe}", file=sys.stderr)
            return 2
        for name, target, old, new, tests in chosen:
            path, original, found = locate(work, target, old)
            if len(found) != 1:
                print(f"{name}: the pattern occurs {len(found)} times in {target}", file=sys.stderr)
                survived.append(name)
                continue
            path.write_text(mutated(original, found[0], old, new), encoding="utf-8")
            t0 = time.time()
            try:
                r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                                   cwd=work, capture_output=True, text=True,
                                   env={**os.environ, "HYPOTHESIS_PROFILE": "ci"})
            finally:
                path.write_text(original, encoding="utf-8")
            last = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
            # a test failed, or the tests crashed the interpreter (killed by a signal); other codes are
            # pytest's own errors (no tests collected, a usage error), which say nothing of the mutant
            killed = r.returncode == 1 or r.returncode < 0
            if r.returncode < 0:
                last = f"the tests crashed (signal {-r.returncode})"
            print(f"{'killed  ' if killed else 'SURVIVED'} {name:<32} {time.time() - t0:6.1f}s  {last}", flush=True)
            if not killed:
                survived.append(name)
    print(f"{len(chosen) - len(survived)} of {len(chosen)} mutants killed" +
          (f"; survived: {', '.join(survived)}" if survived else ""))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
