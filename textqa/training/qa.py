"""Train the QA components (Lita & Carbonell 2004, 2008) that exist so far, with their evaluations.

1. Answer types: the UIUC coarse:fine classifier on ``train_5500.label`` (5-fold cross-validated
   coarse and fine accuracy, then a model on all of it).
2. Answer sentence selection: the ranker of :mod:`textqa.models.qa.selection` trained on TrecQA TRAIN
   (C chosen by question-grouped cross-validation on TRAIN), scored on the clean DEV questions
   (MAP and MRR, ties broken against the system, with 95% bootstrap intervals).

3. Exact answers: the instance-based system (:mod:`textqa.models.qa.system`) trained on the TREC 8, 9
   and 2002 questions with NIST patterns over the sentence collection, scored on the TrecQA DEV
   questions with the TREC 2004 patterns (MRR of the top 5 answers and accuracy at 1).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from textqa.evaluation.stats import bootstrap_ci
from textqa.models.qa.answer_type import AnswerTypeClassifier, read_uiuc
from textqa.models.qa.collection import analysed_cached, build_index, trec_all_sentences
from textqa.models.qa.expansion import LEXICAL
from textqa.models.qa.nlp import parse, parsed_cached
from textqa.models.qa.questions import question_key, typed_questions  # noqa: F401 (dev scripts import them here)
from textqa.models.qa.resources import QuestionSetError, pattern_questions
from textqa.models.qa.selection import SentenceSelector
from textqa.models.qa.system import InstanceQA, pattern_match
from textqa.models.qa.trecqa import read_qids, read_trecqa
from textqa.runtime import dask_cluster
from textqa.runtime.paths import DATA_DIR, WIKIPEDIA_TEXT, artifacts_dir, cache_dir
from textqa.training import qa_reader

QA = DATA_DIR / "qa"
UIUC = QA / "uiuc_qc" / "train_5500.label.gz"
TRAIN = QA / "trecqa" / "train-less-than-40.manual-edit.xml.gz"
DEV = QA / "trecqa" / "dev-less-than-40.manual-edit.xml.gz"
CLEAN = QA / "trecqa" / "clean-dev.qids"
TRAIN_ALL = [QA / "trecqa" / "train-all" / f"Train1-2393.{k}.POSInput.trec8-9-11.gz" for k in ("Positive-M", "Negative-M")]
TREC_QUESTIONS = [QA / "trec_qa" / "derived" / n for n in ("trec8.jsonl", "trec9.jsonl.gz", "trec11.jsonl.gz")]
DEV_PATTERNS = QA / "trecqa" / "trec13factpats.dev.txt"
DEFAULT_DATA = [UIUC, TRAIN, DEV, CLEAN, *TRAIN_ALL, *TREC_QUESTIONS, DEV_PATTERNS]
C_GRID = (0.01, 0.1, 1.0, 10.0)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--uiuc", type=Path, default=UIUC, help="UIUC question-classification training file")
    p.add_argument("--train", type=Path, default=TRAIN, help="TrecQA TRAIN (labelled candidates)")
    p.add_argument("--dev", type=Path, default=DEV, help="TrecQA DEV, for reporting")
    p.add_argument("--clean-qids", type=Path, default=CLEAN, help="DEV questions with correct and incorrect candidates")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds for the answer-type classifier")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--questions", type=Path, nargs="+", default=TREC_QUESTIONS,
                   help="training questions with NIST patterns (JSONL: qid, question, patterns)")
    p.add_argument("--dev-patterns", type=Path, default=DEV_PATTERNS, help="'qid pattern' lines for DEV answers")
    p.add_argument("--collection-limit", type=int, default=0,
                   help="use only the first N TRAIN-ALL sentences (plus TrecQA's) in the collection (0: all)")
    p.add_argument("--eval-questions", type=Path, nargs="+", default=[],
                   help="held-out questions with NIST patterns (JSONL) to score exact answers on as well")
    p.add_argument("--max-questions", type=int, default=0, help="train on the first N questions only (0: all)")
    p.add_argument("--retrieve-k", type=int, default=20, help="sentences retrieved per training question (default 20)")
    p.add_argument("--extraction-c", type=float, default=0.03, metavar="C",
                   help="C of the extraction model's linear SVMs (default 0.03, chosen by cross-validation over the "
                        "training questions, dev/qa_cv.py)")
    p.add_argument("--query-content", action="store_true",
                   help="learn per-cluster query expansions (paper 4.2); lowered dev MRR@5 here, so off by default")
    p.add_argument("--answer-k", type=int, default=10, metavar="K",
                   help="sentences read from each source when answering (training retrieves --retrieve-k); "
                        "default 10, from the 30 best paragraphs (--paragraphs); 20 reached more answers on dev "
                        "and ranked as many first, at more time (docs/experiments/qa.md)")
    p.add_argument("--redundancy", type=float, default=0.05, metavar="W",
                   help="weight of ln(mentions) of an answer among the retrieved sentences, added to its best "
                        "mention's probability (default 0.05, chosen on the dev questions; 0: best mention only)")
    p.add_argument("--expansion", choices=LEXICAL, default="simple",
                   help="retrieval query: the question's content words (simple, default), plus their WordNet "
                        "synonyms, or plus their inflections (see 'textqa qa expansion')")
    p.add_argument("--no-sentence-ranker", action="store_true",
                   help="leave the answer-sentence ranker's score of each candidate's sentence out of the "
                        "extraction model's features (on by default)")
    p.add_argument("--no-fine-type", action="store_true",
                   help="leave the question's UIUC fine class (crossed with each candidate's answer type) out of "
                        "the extraction model's features (on by default)")
    p.add_argument("--keep-restated", action="store_true",
                   help="keep answer candidates whose every content word is a question word (dropped by "
                        "default: 'the AARP' does not answer 'What does AARP stand for?')")
    p.add_argument("--fine-wordnet", action="store_true",
                   help="also check each candidate in WordNet against the question's UIUC fine class (kinds of "
                        "animal for ENTY:animal...); no gain in cross-validation, so off by default")
    p.add_argument("--no-instance", action="store_true", help="skip the instance-based answering system")
    p.add_argument("--collection", choices=("pool", "default"), default="pool",
                   help="what training retrieves its candidates from and the evaluations answer from: the news "
                        "pool (default), or the default collection (Wikipedia, built first when missing, and the "
                        "pool)")
    p.add_argument("--pool-without", type=Path, nargs="+", default=[], metavar="QUESTIONS",
                   help="leave out of the news pool the sentences selected for these questions (JSONL with qid "
                        "and question): TRAIN-ALL's blocks of their TREC numbers and the TrecQA candidates of the "
                        "same questions; for a dev score on a year the pool was built for")
    p.add_argument("--wikipedia", choices=("missing", "rebuild", "skip"), default="missing",
                   help="the default collection's Wikipedia index (<artifacts>/collections/wikipedia, from the "
                        "bundled articles; about 2 minutes): build it after the model when it is missing "
                        "(default), rebuild it, or skip it")
    p.add_argument("--jobs", type=int, default=2,
                   help="processes that analyse the collection with spaCy and train the cluster models "
                        "(1: this process; 2 or more: two worker processes)")
    qa_reader.add_arguments(p)
    p.add_argument("--out", type=Path, default=None, help="artifact folder (default: <artifacts>/qa)")
    p.add_argument("--artifacts", type=Path, default=None,
                   help="artifacts root (default: $TEXTQA_ARTIFACTS or ./artifacts)")
    dask_cluster.add_arguments(p, None, "train the per-cluster models")


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else 0.0


def _ci95(values) -> list:
    """95% bootstrap interval of the mean (a single value's interval is itself)."""
    return list(bootstrap_ci(_mean, values)) if len(values) >= 2 else [_mean(values)] * 2


def ranking_scores(pairs, scores_per_pair, qids=None) -> dict:
    """MAP and MRR with ties broken against the system (incorrect candidates first among equal
    scores), over questions with at least one correct candidate (``qids`` restricts further)."""
    aps, rrs = [], []
    for p, s in zip(pairs, scores_per_pair):
        if qids is not None and p.qid not in qids:
            continue
        labels = np.array([l for l, _ in p.candidates])
        if not labels.any():
            continue
        rel = labels[np.lexsort((labels, -np.asarray(s)))]
        prec = np.cumsum(rel) / np.arange(1, len(rel) + 1)
        aps.append(float((prec * rel).sum() / rel.sum()))
        rrs.append(1.0 / (int(np.argmax(rel)) + 1))
    return {"map": _mean(aps), "mrr": _mean(rrs), "questions": len(aps), "map_ci95": _ci95(aps),
            "mrr_ci95": _ci95(rrs)}


def answer_type_cv(docs, labels, folds: int, seed: int) -> dict:
    from sklearn.model_selection import KFold  # deferred: loads sklearn, scipy, joblib

    labels = np.array(labels)
    coarse_ok = fine_ok = 0
    for tr, te in KFold(folds, shuffle=True, random_state=seed).split(docs):
        pred = AnswerTypeClassifier().fit([docs[i] for i in tr], list(labels[tr])).predict([docs[i] for i in te])
        coarse_ok += sum(p.split(":")[0] == g.split(":")[0] for p, g in zip(pred, labels[te]))
        fine_ok += sum(p == g for p, g in zip(pred, labels[te]))
    return {"folds": folds, "seed": seed, "coarse_accuracy": coarse_ok / len(docs),
            "fine_accuracy": fine_ok / len(docs), "questions": len(docs)}


def choose_c(train, X, y, folds: int, seed: int) -> tuple[float, dict]:
    """C of the selection ranker by question-grouped cross-validation on TRAIN (MAP).  ``X`` and ``y``:
    each TRAIN pair's :meth:`SentenceSelector.features` rows and labels, computed once for every fold
    and C (the features do not depend on either: the idf table is the whole pool's)."""
    rng = np.random.default_rng(seed)
    fold = rng.permutation(len(train)) % folds
    results = {}
    for C in C_GRID:
        maps = []
        for f in range(folds):
            tr = [i for i in range(len(train)) if fold[i] != f]
            te = [i for i in range(len(train)) if fold[i] == f]
            sel = SentenceSelector(C).fit_features(np.vstack([X[i] for i in tr]), np.concatenate([y[i] for i in tr]))
            maps.append(ranking_scores([train[i] for i in te], [sel.scores_features(X[i]) for i in te])["map"])
        results[C] = float(np.mean(maps))
    return max(results, key=results.get), results


def run(args: argparse.Namespace) -> int:
    """Train; with ``--scheduler`` the joblib loops run on a Dask cluster (the same artifact)."""
    if args.jobs < 1:
        raise SystemExit("error: --jobs must be at least 1")
    with dask_cluster.joblib_on(args.scheduler, args.workers, "textqa train qa",
                           preload=("textqa.models.qa.system",)):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from textqa.models.qa.store import save_qa  # deferred: loads orjson
    from textqa.training.corpus import file_fingerprint  # deferred: loads tqdm

    t0 = time.perf_counter()
    say = lambda msg: print(f"[qa {time.perf_counter() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)
    try:
        uiuc = read_uiuc(args.uiuc)
        train, dev = read_trecqa(args.train), read_trecqa(args.dev)
        clean = read_qids(args.clean_qids)
    except (ValueError, OSError) as e:
        raise SystemExit(f"error: {e}") from e
    out = args.out or artifacts_dir(args.artifacts) / "qa"
    say(f"parsing {len(uiuc)} UIUC questions with spaCy (cached in {cache_dir()})")
    docs = parsed_cached([q.question for q in uiuc], cache_dir(), say, n_process=args.jobs)
    labels = [q.label for q in uiuc]
    metrics = {}
    if args.folds > 1:
        say(f"answer types: {args.folds}-fold cross-validation")
        metrics["answer_type_cv"] = answer_type_cv(docs, labels, args.folds, args.seed)
    answer_types = AnswerTypeClassifier().fit(docs, labels)
    questions = [] if args.no_instance else read_questions(args.questions)
    if args.max_questions:
        questions = questions[:args.max_questions]
    # the models' training questions are typed as new questions are: by a classifier that never saw them
    typer = unseen_answer_types(uiuc, docs, questions + [{"question": p.question.text} for p in train], say)
    held_out = read_questions(args.eval_questions) if args.eval_questions else []
    reader = qa_reader.questions_for(args, questions, held_out) if args.reader_questions and questions else None
    selector = train_selector(args, train, dev, clean, typer, answer_types, held_out, metrics, say)
    instance = index = None
    plots = Path(tempfile.mkdtemp(prefix="qa-plots-"))
    try:
        files = None
        if not args.no_instance:
            instance, index, runs = train_instance(args, train, dev, metrics, say, answer_types, selector,
                                                   typer, questions, held_out, reader)
            files = write_plots(instance, runs, plots)
        metrics["training_seconds"] = round(time.perf_counter() - t0, 1)
        save_qa(answer_types, selector, out, instance=instance, index=index, metrics=metrics,
                data_fingerprint=file_fingerprint([args.uiuc, args.train, args.dev]),
                extra={"training_data": [str(args.uiuc), str(args.train)], "dev_data": str(args.dev)}, files=files)
    finally:
        shutil.rmtree(plots, ignore_errors=True)
    say(f"wrote {out}" + (f" (plots: {', '.join(files)})" if files else ""))
    if not args.no_instance and args.wikipedia != "skip":
        build_wikipedia(out.resolve().parent / "collections" / "wikipedia", args.wikipedia == "rebuild", say)
    _print_summary(metrics)
    return 0


def train_selector(args, train, dev, clean, typer, answer_types, held_out: list, metrics: dict, say):
    """The answer sentence selection ranker: C chosen by cross-validation on TRAIN (less the held-out
    questions' own pairs), fitted, and scored on dev (into ``metrics["selection"]``)."""
    say("answer sentence selection: choosing C on TRAIN")
    qt_train = typed_questions(typer, parse([p.question.text for p in train]))
    qt_dev = typed_questions(answer_types, parse([p.question.text for p in dev]))
    pool = [c for p in train + dev for _, c in p.candidates]
    sel_train, qt_sel = train, qt_train
    if held_out:
        # the held-out questions' own TrecQA TRAIN pairs (TRAIN spans TREC 8-12) stay out of the ranker,
        # whose scores the extraction model reads: the held-out score must not rest on them
        held = {question_key(q["question"]) for q in held_out}
        keep = [i for i, p in enumerate(train) if question_key(p.question.text) not in held]
        say(f"answer sentence selection: {len(train) - len(keep)} TRAIN questions are held-out questions, left out")
        sel_train, qt_sel = [train[i] for i in keep], [qt_train[i] for i in keep]
    selector = SentenceSelector().with_pool(pool)
    X, y = selector.pair_rows(sel_train, [q for q, _ in qt_sel], [f for _, f in qt_sel])
    C, by_c = choose_c(sel_train, X, y, 5, args.seed)
    selector.C = C
    selector.fit_features(np.vstack(X), np.concatenate(y))
    dev_scores = [selector.scores(p.question, [c for _, c in p.candidates], *qt) for p, qt in zip(dev, qt_dev)]
    metrics["selection"] = {"C": C, "train_cv_map_by_C": {str(k): v for k, v in by_c.items()},
                            "dev_clean": ranking_scores(dev, dev_scores, clean),
                            "dev_all": ranking_scores(dev, dev_scores)}
    return selector


def _print_summary(metrics: dict) -> None:
    if "answer_type_cv" in metrics:
        a = metrics["answer_type_cv"]
        print(f"answer types ({a['folds']}-fold CV on {a['questions']} UIUC questions): coarse accuracy "
              f"{a['coarse_accuracy']:.4f}, fine {a['fine_accuracy']:.4f}")
    d = metrics["selection"]["dev_clean"]
    print(f"answer sentence selection (C={metrics['selection']['C']}), TrecQA clean dev ({d['questions']} questions): MAP {d['map']:.4f} "
          f"[{d['map_ci95'][0]:.3f}, {d['map_ci95'][1]:.3f}]  MRR {d['mrr']:.4f} "
          f"[{d['mrr_ci95'][0]:.3f}, {d['mrr_ci95'][1]:.3f}]")
    if "exact_answers" in metrics:
        e = metrics["exact_answers"]
        print(f"exact answers, TrecQA dev ({e['questions']} questions with TREC 2004 patterns): MRR@5 "
              f"{e['mrr5']:.4f} [{e['mrr5_ci95'][0]:.3f}, {e['mrr5_ci95'][1]:.3f}]  accuracy@1 {e['acc1']:.4f}; "
              f"{e['clusters']} clusters from {e['training_questions']} training questions")
    if "exact_answers_heldout" in metrics:
        h = metrics["exact_answers_heldout"]
        print(f"exact answers, held-out questions ({h['questions']}): MRR@5 {h['mrr5']:.4f} "
              f"[{h['mrr5_ci95'][0]:.3f}, {h['mrr5_ci95'][1]:.3f}]  accuracy@1 {h['acc1']:.4f} "
              f"[{h['acc1_ci95'][0]:.3f}, {h['acc1_ci95'][1]:.3f}]")


def build_wikipedia(dest: Path, rebuild: bool, say) -> None:
    """The Wikipedia collection the default QA collection answers from (``dest``, a collections folder's
    ``wikipedia``), indexed from the bundled WikiExtractor files (built beside it and renamed into place)."""
    from textqa.models.qa import passages  # deferred: loads orjson, numpy
    if passages.has_collection(dest.parent, dest.name, current=True) and not rebuild:
        say(f"Wikipedia collection: {dest} is there (--wikipedia rebuild to build it again)")
        return
    say(f"Wikipedia collection: indexing the vital articles and {len(WIKIPEDIA_TEXT)} files of articles into {dest}")
    last = [0]

    def progress(docs: int, paras: int) -> None:
        if paras - last[0] >= 100_000:
            last[0] = paras
            say(f"Wikipedia collection: {docs:,} articles, {paras:,} paragraphs")
    info = passages.build_wikipedia(dest.parent, progress=progress)
    say(f"Wikipedia collection: {info['documents']:,} articles, {info['paragraphs']:,} paragraphs in "
        f"{info['seconds']:.0f} s")


def read_questions(paths) -> list[dict]:
    try:
        return [{"qid": str(q["qid"]), "question": q["question"], "patterns": q["patterns"]}
                for p in paths for q in pattern_questions(p)]
    except QuestionSetError as e:
        raise SystemExit(f"error: {e}") from None


def read_patterns(path) -> dict:
    out: dict = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        qid, _, pat = line.strip().partition(" ")
        if qid and pat:
            out.setdefault(qid, []).append(pat)
    return out


def reciprocal_ranks(model_answer, dev, patterns) -> list[tuple[int, float]]:
    """(index in ``dev``, reciprocal rank of the first of the top 5 answers a NIST pattern matches,
    case-insensitive search; 0 if none) for each question that has patterns."""
    return [(k, next((1.0 / (i + 1) for i, a in enumerate(res["answers"][:5])
                      if pattern_match(patterns[p.qid], a["answer"])), 0.0))
            for k, (p, res) in enumerate(zip(dev, model_answer)) if p.qid in patterns]


def exact_answer_scores(model_answer, dev, patterns, ranks=None) -> dict:
    """MRR over the top 5 answers and accuracy at 1, judged by the NIST patterns (case-insensitive
    search); ``ranks``: ``reciprocal_ranks`` of the same arguments, when the caller has them."""
    rr = [r for _, r in (ranks if ranks is not None else reciprocal_ranks(model_answer, dev, patterns))]
    return {"mrr5": _mean(rr), "acc1": _mean([r == 1.0 for r in rr]), "questions": len(rr), "mrr5_ci95": _ci95(rr),
            "acc1_ci95": _ci95([float(r == 1.0) for r in rr])}


PLOTS = ("mrr5_by_answer_type.png", "mrr5_by_cluster_size.png")
SIZE_BANDS = ((4, 9), (10, 19), (20, 49), (50, 99), (100, None))
SIZE_LABELS = [f"{lo}+" if hi is None else f"{lo}-{hi}" for lo, hi in SIZE_BANDS]


def write_plots(instance, runs: dict, folder: Path) -> dict:
    """MRR@5 by the question's UIUC coarse class and by the size (training questions) of the most
    confident cluster that matched it, one bar series per run (``runs``: {name: [(answer, rr)]},
    ``answer`` the system's result for the question)."""
    from textqa.evaluation.plots import bars_with_counts  # deferred: loads matplotlib
    folder.mkdir(parents=True, exist_ok=True)
    models = instance.cluster_models_

    def size_band(res) -> str:
        named = [c for c in res["clusters"] if c in models]
        if not named:
            return "no cluster"
        n = len(models[named[0]].members)
        for (lo, hi), label in zip(SIZE_BANDS, SIZE_LABELS):
            if n >= lo and (hi is None or n <= hi):
                return label
        return f"<{SIZE_BANDS[0][0]}"
    keys = {"answer type": lambda res: res["uiuc_coarse"],
            "cluster size": size_band}
    orders = {"answer type": ["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"],
              "cluster size": ["no cluster"] + SIZE_LABELS}
    for (what, key), name in zip(keys.items(), PLOTS):
        series, counts = {}, {}
        for run, items in runs.items():
            groups: dict = {}
            for res, rr in items:
                groups.setdefault(key(res), []).append(rr)
            series[run], counts[run] = groups, {g: len(v) for g, v in groups.items()}
        labels = [g for g in orders[what] if any(g in s for s in series.values())]
        bars_with_counts(labels, {f"{run} ({len(items)} questions)": [_mean(series[run].get(g, [])) if series[run].get(g)
                                                                     else 0.0 for g in labels]
                                  for run, items in runs.items()},
                         ["/".join(str(counts[r].get(g, 0)) for r in runs) for g in labels], folder / name,
                         ylabel="MRR@5 (NIST patterns)", ylim=(0, 1.05), count_label="n",
                         xlabel="UIUC coarse class of the question" if what == "answer type" else
                         "training questions in the most confident matched cluster",
                         title=f"Exact answers: MRR@5 by {what}: " + " vs ".join(
                             f"{run} ({len(items)} questions)" for run, items in runs.items()))
    return {name: folder / name for name in PLOTS}


def unseen_answer_types(uiuc, docs, questions, say=None):
    """An answer-type classifier trained on the UIUC questions that are not among ``questions``: most
    TREC 8-9 questions are UIUC training questions, so the full classifier types them almost
    perfectly, and an extraction model trained on such labels trusts the UIUC features more than a
    new question's (about 82% right for the fine class) deserve. The training questions are typed
    by this one instead, as a new question is by the full one."""
    seen = {question_key(q["question"]) for q in questions}
    keep = [i for i, q in enumerate(uiuc) if question_key(q.question) not in seen]
    if say:
        say(f"answer types for the training questions: a classifier without the {len(uiuc) - len(keep)} "
            f"UIUC questions that are training questions")
    return AnswerTypeClassifier().fit([docs[i] for i in keep], [uiuc[i].label for i in keep])


def train_instance(args, train, dev, metrics, say, answer_types, selector, typer, questions, held_out=(),
                   reader=None):
    """The instance-based system on ``questions`` (typed by ``typer``, :func:`unseen_answer_types`),
    scored on the dev questions and on ``held_out`` (the ``--eval-questions``; typed by ``answer_types``)."""
    without = read_questions(args.pool_without) if args.pool_without else []
    without_qids = {q["qid"] for q in without}
    without_keys = {question_key(q["question"]) for q in without}
    pool = trec_all_sentences(TRAIN_ALL, without_qids)
    if args.collection_limit:
        pool = pool[:args.collection_limit]
    pool += [c.text for p in train + dev for _, c in p.candidates if question_key(p.question.text) not in without_keys]
    pool = list(dict.fromkeys(pool))
    if without:
        say(f"collection: the news pool without the sentences selected for {len(without_qids)} questions of "
            f"{', '.join(str(f) for f in args.pool_without)}")
    say(f"collection: analysing {len(pool)} sentences with spaCy (cached in {cache_dir()})")
    index = build_index(analysed_cached(pool, cache_dir(), args.jobs, say))
    collections = []
    if args.collection == "default":
        from textqa.models.qa.passages import load_collection  # deferred: loads orjson, numpy
        wiki = (args.out or artifacts_dir(args.artifacts) / "qa").resolve().parent / "collections" / "wikipedia"
        build_wikipedia(wiki, False, say)
        collections = [load_collection(wiki, cache_dir())]
    say(f"instance-based QA: {len(questions)} training questions")
    t = time.perf_counter()
    qdocs = parse([q["question"] for q in questions])
    instance = InstanceQA(retrieve_k=args.retrieve_k, C=args.extraction_c, n_jobs=min(args.jobs, 2),
                          query_content=args.query_content, expansion=args.expansion, redundancy=args.redundancy,
                          answer_k=args.answer_k, sentence_ranker=not args.no_sentence_ranker,
                          fine_type=not args.no_fine_type, drop_restated=not args.keep_restated,
                          fine_wordnet=args.fine_wordnet, paragraphs=args.paragraphs)
    from textqa.models.qa.retrieval import QuestionSource  # deferred: loads nltk

    def source():
        return QuestionSource(collections, index, args.paragraphs) if collections else index
    instance.fit(questions, qdocs, source(), progress=say, uiuc=typer.distribution(qdocs), selector=selector,
                 fine=typer.predict(qdocs))
    fit_seconds = time.perf_counter() - t
    if reader is not None:
        out = args.out or artifacts_dir(args.artifacts) / "qa"
        qa_reader.train_answer_reader(args, out, {"answer_types": answer_types, "selector": selector,
                                                  "instance": instance, "index": index},
                                      out.resolve().parent / "collections", args.collection, reader, held_out,
                                      metrics, say)

    def answer_all(texts):
        docs = parse(texts)
        from tqdm import tqdm  # deferred: loads tqdm
        out = []
        for d, (u, fine) in tqdm(list(zip(docs, typed_questions(answer_types, docs))), desc="answering", unit="q",
                                 file=sys.stderr, disable=None):
            res = instance.answer(d, source(), 5, u, fine)
            out.append({**res, "uiuc_coarse": max(u, key=u.get)})
        return out

    say("answering the TrecQA dev questions")
    patterns = read_patterns(args.dev_patterns)
    answers = answer_all([p.question.text for p in dev])
    ranks = reciprocal_ranks(answers, dev, patterns)
    runs = {"TrecQA dev": [(answers[k], rr) for k, rr in ranks]}
    metrics["exact_answers"] = {**exact_answer_scores(answers, dev, patterns, ranks), "collection_sentences": len(pool),
                                "collection": args.collection,
                                "training_questions": len(questions), "clusters": len(instance.cluster_models_),
                                "fit_seconds": round(fit_seconds, 1)}
    if held_out:
        seen = {q["question"].strip().lower() for q in questions}
        held = [q for q in held_out if q["question"].strip().lower() not in seen]
        say(f"answering {len(held)} held-out questions")
        res = answer_all([q["question"] for q in held])
        held_dev = [SimpleNamespace(qid=q["qid"]) for q in held]
        held_patterns = {q["qid"]: q["patterns"] for q in held}
        ranks = reciprocal_ranks(res, held_dev, held_patterns)
        metrics["exact_answers_heldout"] = {**exact_answer_scores(res, held_dev, held_patterns, ranks),
                                            "files": [str(f) for f in args.eval_questions]}
        runs["held-out"] = [(res[k], rr) for k, rr in ranks]
    return instance, index, runs


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m textqa.training.qa", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
