"""The sentence-context model (:mod:`textqa.models.truecaser.context`): the hash index, samples
collected in parts (``--scheduler``) as in one pass, the scores against a by-hand reference over the
stored weights, the int8 storage, and the model in the search: off at weight 0 and in the paper's
trigram decoder, the same from the C++ and the Python search, saved and loaded.  Trained on real
Wikipedia text (the ``wiki_sentences`` fixture)."""
import copy
import json
import math
import shutil

import numpy as np
import pytest

from textqa.models.artifact import ArtifactError, save_arrays
from textqa.models.truecaser.casing import fold_accents
from textqa.models.truecaser.context import SentenceContext, fit_context
from textqa.models.truecaser.context_samples import (RowColumnIndex, collect, merge_samples, occurrences, quotas, ranges,
                                                     target_words)
from textqa.models.truecaser.options import TRIGRAM_DECODER
from textqa.models.truecaser.store import load_truecaser, save_truecaser
from textqa.runtime.paths import PUNKT_DIR


def test_row_column_index_finds_each_entry_and_nothing_else():
    """Synthetic CSR matrices (a property of the index, not of data): columns crowded at the low end
    as the sentence-context weights' are, empty rows, a one-column matrix, none at all."""
    rng = np.random.default_rng(7)
    for n_rows, n_cols, per_row in ((3000, 400_000, 40), (50, 1, 1), (0, 10, 0)):
        counts = rng.integers(0, 2 * per_row + 1, n_rows) if per_row else np.zeros(n_rows, np.int64)
        counts[::7] = 0                                       # empty rows
        rows = [np.unique((rng.pareto(1.0, int(c)) * 50).astype(np.int64) % n_cols) for c in counts]
        indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
        indices = np.concatenate(rows + [np.zeros(0, np.int64)]).astype(np.int32)
        index = RowColumnIndex(indptr, indices, n_cols)
        expect = {(r, int(c)): int(indptr[r]) + k for r, cols in enumerate(rows) for k, c in enumerate(cols)}
        if n_rows:
            q_rows = rng.integers(0, n_rows, 20_000)
            q_cols = np.where(rng.random(20_000) < 0.5, rng.integers(0, n_cols, 20_000),
                              (rng.pareto(1.0, 20_000) * 50).astype(np.int64) % n_cols)
            got = index.find(q_rows, q_cols).tolist()
            assert got == [expect.get((r, c), -1) for r, c in zip(q_rows.tolist(), q_cols.tolist())]
            assert sum(g >= 0 for g in got) > 1000 or n_cols == 1
            all_rows = np.repeat(np.arange(n_rows), np.diff(indptr))
            assert index.find(all_rows, indices).tolist() == list(range(len(indices)))
        else:
            assert index.find(np.zeros(0, np.int64), np.zeros(0, np.int64)).tolist() == []


def test_ranges():
    assert ranges(np.array([5, 0, 9]), np.array([2, 0, 3])).tolist() == [5, 6, 9, 10, 11]


@pytest.fixture(scope="module")
def folded(wiki_sentences):
    return [fold_accents(s) for s in wiki_sentences]


@pytest.fixture(scope="module")
def with_context(small_truecaser, folded, tmp_path_factory):
    """A copy of the session's small truecaser with a sentence-context model (the copy's own)."""
    model = copy.copy(small_truecaser).set_params(context_cap=300, context_weight=1.0)
    model.fit_context(folded)
    folder = tmp_path_factory.mktemp("tc-context") / "truecaser"
    save_truecaser(model, folder, punkt_dir=PUNKT_DIR)
    return model, folder


def bags(X, vocab):
    names = list(vocab)
    return [frozenset(names[c] for c in X.indices[X.indptr[i]:X.indptr[i + 1]]) for i in range(X.shape[0])]


def reference_collect(sentences, targets, cap, stop):
    """The samples taken sentence by sentence, token by token, as the module's docstring defines them
    (the vectorised collection must give exactly these): (bags of words, word indices, casings, vocabulary)."""
    taken, vocab, rows, words, labels = {}, {}, [], [], []
    for toks in (s.split() for s in sentences):
        low = [t.lower() for t in toks]
        hits = []
        for i in range(1, len(toks)):
            cands = targets.get(low[i])
            if cands is not None and toks[i] in cands:
                key = (low[i], toks[i])
                if taken.get(key, 0) < cap:
                    taken[key] = taken.get(key, 0) + 1
                    hits.append(i)
        if hits:
            for w in low:
                if w not in stop:
                    vocab.setdefault(w, len(vocab))
            for i in hits:
                rows.append(frozenset(low) - set(stop) - {low[i]})
                words.append(list(targets).index(low[i]))
                labels.append(targets[low[i]].index(toks[i]))
    return rows, words, labels, vocab


def test_samples_are_those_taken_token_by_token(small_truecaser, folded):
    targets = target_words(small_truecaser.casing_.forms, small_truecaser.candidate_forms)
    stop = {"the", "of", "in", "and", ",", "."} - set(targets)
    for cap, part in ((3, folded), (10**9, folded[:1500])):
        X, words, labels, vocab = collect(part, targets, cap, stop=stop)
        rows, ref_words, ref_labels, ref_vocab = reference_collect(part, targets, cap, stop)
        assert list(vocab.items()) == list(ref_vocab.items()) and len(vocab) > 1000
        assert words.tolist() == ref_words and labels.tolist() == ref_labels and len(words) > 500
        assert bags(X, vocab) == rows
        assert X.dtype == np.float32 and (X.data == 1).all()
        blocks = collect(part, targets, cap, stop=stop, block=997)          # sentences of ~997 tokens at a time
        assert list(blocks[3].items()) == list(vocab.items()) and bags(blocks[0], blocks[3]) == rows
        assert blocks[1].tolist() == ref_words and blocks[2].tolist() == ref_labels
    assert collect([], targets, 3)[0].shape == (0, 0)


def test_samples_collected_in_parts_are_the_whole_texts(small_truecaser, folded):
    """What ``--scheduler`` relies on: each partition's share of the first ``cap`` samples (its
    quota, from every partition's occurrences counted first), merged in order, is the first ``cap``
    of the whole text, with the same words around them; and no more than those are collected."""
    targets = target_words(small_truecaser.casing_.forms, small_truecaser.candidate_forms)
    assert len(targets) > 100
    whole = collect(folded, targets, 4)
    cut = [0, 1000, 1001, 2500, len(folded)]
    counts = [occurrences(folded[a:b], targets) for a, b in zip(cut, cut[1:])]
    assert (sum(counts) == occurrences(folded, targets)).all()
    uncapped = collect(folded, targets, 10**9)
    assert np.bincount(uncapped[1] * counts[0].shape[1] + uncapped[2], minlength=counts[0].size).tolist() \
        == sum(counts).ravel().tolist()
    parts = [collect(folded[a:b], targets, q) for (a, b), q in zip(zip(cut, cut[1:]), quotas(counts, 4))]
    assert sum(len(w) for _, w, _, _ in parts) == len(whole[1])
    merged = merge_samples(parts)
    assert merged[1].tolist() == whole[1].tolist() and merged[2].tolist() == whole[2].tolist()
    assert bags(merged[0], merged[3]) == bags(whole[0], whole[3])
    stop = {"the", "of", "in", "and"} - set(targets)        # stop words are not collected as features
    no_stop = collect(folded, targets, 4, stop=stop)
    assert not stop & set(no_stop[3]) and stop <= set(whole[3]) and no_stop[1].tolist() == whole[1].tolist()
    assert bags(no_stop[0], no_stop[3]) == [b - stop for b in bags(whole[0], whole[3])]
    with pytest.raises(ValueError, match="stop words"):
        fit_context(None, targets, cap=4, stop=stop, samples=whole)
    assert np.bincount(whole[1] * 4 + whole[2]).max() == 4        # the cap holds, and binds
    the = list(targets).index("district") if "district" in targets else 0
    assert (whole[1] == the).sum() >= 2


def reference(ctx, low, i):
    """log10 P(casing | the other words of the sentence) - log10 P(casing) of token ``i``, by hand."""
    j = ctx.targets.index(low[i])
    feats = {ctx.features.index(w) for w in set(low) - {low[i]} if w in ctx.features}
    logits = [0.0]
    for r in range(ctx.row_off[j], ctx.row_off[j + 1]):
        row = dict(zip(ctx.indices[ctx.indptr[r]:ctx.indptr[r + 1]].tolist(),
                       ctx.data[ctx.indptr[r]:ctx.indptr[r + 1]].tolist()))
        logits.append(ctx.intercept[r] + sum(row.get(f, 0.0) for f in feats))
    z = math.log(sum(math.exp(x) for x in logits))
    prior = ctx.prior[ctx.class_off[j]:ctx.class_off[j + 1]]
    return [(x - z - math.log(p)) / math.log(10) for x, p in zip(logits, prior)]


def test_scores_are_the_logistic_regressions_by_hand(with_context, dev_sentences):
    model, _ = with_context
    ctx = model.context_
    assert len(ctx) > 100 and ctx.info["samples"] > 1000 and len(ctx.data) > 1000
    sents = [fold_accents(s).lower().split() for s in dev_sentences[:200]]
    low = [t for s in sents for t in s]
    off = np.cumsum([0] + [len(s) for s in sents]).tolist()
    pos, tj, ratio = ctx.log10_ratios(low, off)
    assert len(pos) > 200 and all(ctx.targets[j] == low[p] for p, j in zip(pos.tolist(), tj.tolist()))
    checked = 0
    for t, p in enumerate(pos.tolist()[:400]):
        s = int(np.searchsorted(off, p, side="right")) - 1
        ref = reference(ctx, low[off[s]:off[s + 1]], p - off[s])
        assert ratio[t, :len(ref)] == pytest.approx(ref, abs=1e-9) and not ratio[t, len(ref):].any()
        checked += abs(ref[0]) > 0.01
    assert checked > 50                  # the words around it move the scores
    # the prior-weighted probabilities of a word's casings sum to one
    for t, j in enumerate(tj.tolist()[:50]):
        n = ctx.class_off[j + 1] - ctx.class_off[j]
        assert sum(10 ** ratio[t, :n] * ctx.prior[ctx.class_off[j]:ctx.class_off[j + 1]]) == pytest.approx(1)


def test_int8_storage_keeps_each_weight_within_half_a_step(with_context):
    ctx = with_context[0].context_
    meta, arrays = ctx.to_data()
    assert arrays["data"].dtype == np.int8 and not any(a.dtype.hasobject for a in arrays.values())
    back = SentenceContext.from_data(json.loads(json.dumps(meta)), arrays)
    step = np.repeat(arrays["scale"], np.diff(arrays["indptr"]))
    assert (np.abs(back.data - ctx.data) <= step / 2 + 1e-6).all() and back.targets == ctx.targets
    # the weights' look-up index is stored (read, not made at load): the same index, the same look-ups
    made = SentenceContext.from_data(meta, {k: v for k, v in arrays.items()
                                            if k not in ("column_places", "bucket_counts")})
    assert {"column_places", "bucket_counts"} <= set(arrays)
    assert np.array_equal(made._index.start, back._index.start) and np.array_equal(made._index.place, back._index.place)
    # the words' codes are stored with their index (format 9); format 8 kept the words in the JSON
    legacy = SentenceContext.from_data({**meta, "features": ctx.features},
                                       {k: v for k, v in arrays.items() if not k.startswith("word")})
    words = ctx.features + ctx.targets + ["no-such-word"]
    assert [legacy.code(w) for w in words] == [back.code(w) for w in words] == [ctx.code(w) for w in words]
    assert back.features == ctx.features and back.n_codes == ctx.n_codes > len(ctx.features)
    for bad in ({**arrays, "data": arrays["data"].astype(np.float32)}, {**arrays, "scale": -arrays["scale"]},
                {**arrays, "bucket_counts": arrays["bucket_counts"][1:]},
                {**arrays, "column_places": arrays["column_places"] + (1 << 20)},
                {**arrays, "indices": arrays["indices"] + len(ctx.features)}, {**arrays, "prior": arrays["prior"][1:]}):
        with pytest.raises(ValueError):
            SentenceContext.from_data(meta, bad)
    with pytest.raises(ValueError):
        SentenceContext.from_data({**meta, "targets": meta["targets"][1:]}, arrays)


def test_the_model_in_the_search(with_context, dev_sentences, monkeypatch):
    """It changes decisions; weight 0 and the trigram decoder decode without it; the C++ and the
    Python search agree with it; the saved artifact decodes the same."""
    model, folder = with_context
    lowered = [s.lower() for s in dev_sentences[:400]]
    on = model.predict(lowered)
    off = model.set_params(context_weight=0.0).predict(lowered)
    model.set_params(context_weight=1.0)
    plain = copy.copy(model)
    plain.context_ = None
    assert off == plain.set_params().predict(lowered)
    changed = sum(a != b for x, y in zip(on, off) for a, b in zip(x.split(), y.split()))
    assert changed > 5, changed
    monkeypatch.setattr(model, "search", "python")
    assert model.set_params().predict(lowered) == on
    monkeypatch.setattr(model, "search", "native")
    loaded = load_truecaser(folder)
    assert loaded.context_weight == 1.0 and loaded.predict(lowered) == on
    assert loaded.set_params(**TRIGRAM_DECODER).predict(lowered) == plain.set_params(**TRIGRAM_DECODER).predict(lowered)


def test_a_broken_context_file_is_an_artifact_error(with_context, tmp_path, resign):
    _, folder = with_context
    bad = tmp_path / "bad"
    shutil.copytree(folder, bad)
    arrays = dict(np.load(bad / "context.npz"))
    arrays["scale"] = arrays["scale"] * 0
    save_arrays(bad / "context.npz", arrays)
    with pytest.raises(ArtifactError, match="context.npz"):                 # the checksum
        load_truecaser(bad)
    resign(bad, "context.npz")
    with pytest.raises(ArtifactError, match="cannot read the sentence-context model"):
        load_truecaser(bad)


def _blas_threads():
    import numpy  # noqa: F401 (loads BLAS)
    from threadpoolctl import threadpool_info
    return sorted({p["num_threads"] for p in threadpool_info()})


def test_the_words_fitted_in_worker_processes_are_fitted_as_in_this_one(small_truecaser, folded, monkeypatch):
    """Above ``_TASK_SAMPLES`` samples (the default model has 11.6 M) the words are fitted in chunks
    in two worker processes; the model must be the same, weight for weight, as one fitted here."""
    from textqa.runtime import process_pool
    import textqa.models.truecaser.context as context_module
    targets = target_words(small_truecaser.casing_.forms, small_truecaser.candidate_forms)
    samples = collect(folded, targets, 300)
    here = fit_context(None, targets, samples=samples, min_weight=0.01)
    pools = []
    real = process_pool.pool
    monkeypatch.setattr(process_pool, "pool", lambda: pools.append(1) or real())
    monkeypatch.setattr(context_module, "_TASK_SAMPLES", samples[0].shape[0] // 9)
    there = fit_context(None, targets, samples=samples, min_weight=0.01)
    assert pools, "the worker processes were not used"
    assert process_pool.pool().submit(_blas_threads).result() == [1], "a worker's BLAS has more than one thread"
    assert len(here) > 100 and here.to_data()[0] == there.to_data()[0]
    for name, array in here.to_data()[1].items():
        assert np.array_equal(array, there.to_data()[1][name]), name
    assert np.array_equal(here.data, there.data) and np.array_equal(here.intercept, there.intercept)


def test_bad_parameters_are_refused(small_truecaser):
    for bad in ({"context_cap": -1}, {"context_cap": 2.5}, {"context_weight": float("nan")}, {"context_C": 0},
                {"context_min_weight": -1}):
        with pytest.raises(ValueError):
            copy.copy(small_truecaser).set_params(**bad).check_params()


def test_a_batch_scored_in_chunks_is_scored_as_a_whole(with_context, dev_sentences, monkeypatch):
    ctx = with_context[0].context_
    sents = [fold_accents(s).lower().split() for s in dev_sentences[:300]]
    low = [t for s in sents for t in s]
    off = np.cumsum([0] + [len(s) for s in sents]).tolist()
    whole = ctx.log10_ratios(low, off)
    monkeypatch.setattr(type(ctx), "CHUNK", 500)
    chunked = ctx.log10_ratios(low, off)
    assert len(whole[0]) > 500 and all(np.array_equal(a, b) for a, b in zip(whole, chunked))


def test_a_pickled_model_scores_the_same(with_context, dev_sentences):
    """A copy (pickle, deepcopy) scores as the model does."""
    import pickle
    ctx = with_context[0].context_
    low = fold_accents(dev_sentences[5]).lower().split() + fold_accents(dev_sentences[9]).lower().split()
    off = [0, len(dev_sentences[5].split()), len(low)]
    again = pickle.loads(pickle.dumps(ctx))
    assert all(np.array_equal(a, b) for a, b in zip(ctx.log10_ratios(low, off), again.log10_ratios(low, off)))
    assert len(copy.deepcopy(ctx).log10_ratios(low, off)[0]) == len(ctx.log10_ratios(low, off)[0]) > 0


def test_any_corrupted_array_or_field_is_a_value_error(with_context):
    """Each array truncated, reshaped, made float or NaN (or negative where it must not be), and fields of the metadata
    of the wrong type: reading it raises ValueError (the artifact loader's ArtifactError), nothing else."""
    meta, arrays = with_context[0].context_.to_data()
    bad_arrays = []
    for k, a in arrays.items():
        # (the words' UTF-8 one byte short is still words: a word changed only misses its look-ups, as
        # any word not in the index does; their hashes and index are checked against them)
        bad_arrays += [{**arrays, k: a[:-1]}] * (k != "words") + [{**arrays, k: a.reshape(-1, 1)}]
        if k in ("prior", "indptr", "indices", "scale"):          # the others may be negative
            bad_arrays.append({**arrays, k: -np.abs(a) - 1})
        if a.dtype.kind == "f":
            bad_arrays.append({**arrays, k: np.where(np.arange(len(a)) == 0, np.nan, a)})
        else:
            bad_arrays.append({**arrays, k: a.astype(np.float64) + 0.5})
    bad_arrays.append({k: v for k, v in arrays.items() if k != "prior"})
    bad_meta = [{**meta, "features": meta["features"] + 10 ** 6}, {**meta, "features": -1},
                {**meta, "features": str(meta["features"])}, {**meta, "features": [1]},
                {**meta, "classes": [["x"]] + meta["classes"][1:]}, {**meta, "targets": "x"}, [], {**meta, "info": 3},
                {**meta, "targets": meta["targets"][:1] + meta["targets"][:-1]}]
    for m, a in [(meta, b) for b in bad_arrays] + [(b, arrays) for b in bad_meta]:
        with pytest.raises(ValueError):
            SentenceContext.from_data(m, a)

