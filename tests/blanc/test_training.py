"""BLANC training on real judgments (COLING-16 DA, small and fast)."""
import argparse
import json

import numpy as np
import pytest

from textqa.models.blanc.store import load_blanc
from textqa.runtime.paths import DATA_DIR
from textqa.training.blanc import add_arguments, run
from textqa.training.blanc_search import GRIDS, JudgedPairs, _Objective, _start, correlations, hill_climb

COLING = DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz"


def _args(*argv):
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(list(argv))


def test_trained_artifact_records_parameters_and_correlations(blanc_artifact):
    manifest = json.loads((blanc_artifact / "blanc" / "manifest.json").read_text())
    assert manifest["name"] == "blanc" and manifest["training_data_fingerprint"]
    train = manifest["metrics"]["train"]
    assert set(train) >= {"coling16:cs-en", "coling16:es-en", "average"}
    metric = load_blanc(blanc_artifact / "blanc")
    assert metric.params.alpha in GRIDS["alpha"] and metric.params.beta in GRIDS["beta"]
    assert metric.signature.startswith("BLANC|")


def test_heldout_report_is_reproduced_by_the_saved_model_and_beats_sentence_bleu(blanc_artifact, blanc_heldout):
    """--test with baselines: every reported held-out correlation recomputed here from the saved
    artifact (BLANC's per-sentence path) and sacrebleu, with scipy's Pearson."""
    from scipy.stats import pearsonr
    from sacrebleu.metrics import BLEU, CHRF

    from textqa.evaluation.mt import read_mt_tsv
    test = json.loads((blanc_artifact / "blanc" / "manifest.json").read_text())["metrics"]["test"]
    group = f"{blanc_heldout.name.split('_')[0]}:liv-en"
    assert set(test) == {"blanc", "sentbleu", "chrf", "chrf++"} and set(test["blanc"]) == {group, "average"}
    rows = read_mt_tsv(blanc_heldout)
    human = [r.human_score for r in rows]
    metric = load_blanc(blanc_artifact / "blanc")
    bleu, chrf, chrfpp = BLEU(effective_order=True), CHRF(), CHRF(word_order=2)
    independent = {"blanc": [metric.sentence_score(r.hypothesis, [r.reference]).score for r in rows],
                   "sentbleu": [bleu.sentence_score(r.hypothesis, [r.reference]).score for r in rows],
                   "chrf": [chrf.sentence_score(r.hypothesis, [r.reference]).score for r in rows],
                   "chrf++": [chrfpp.sentence_score(r.hypothesis, [r.reference]).score for r in rows]}
    for name, scores in independent.items():
        assert test[name][group] == pytest.approx(pearsonr(scores, human).statistic, abs=1e-9), name
        assert test[name]["average"] == test[name][group]
    # measured on data it never saw (another year, another language pair): BLANC correlates with
    # the human judgments and better than sentence BLEU, the paper's claim (0.286 vs 0.231 when written)
    assert test["blanc"]["average"] > 0.2 and test["blanc"]["average"] > test["sentbleu"]["average"]
    metrics = json.loads((blanc_artifact / "blanc" / "manifest.json").read_text())["metrics"]
    # paired bootstrap intervals: each contains its point value, the differences are of BLANC minus each
    ci = metrics["test_ci"]
    for name in ("blanc", "sentbleu", "chrf", "chrf++"):
        assert ci[name][0] < test[name]["average"] < ci[name][1]
        if name != "blanc":
            assert ci[f"blanc-{name}"][0] < test["blanc"]["average"] - test[name]["average"] < ci[f"blanc-{name}"][1]
    # system level over the DA rows: a system's corpus score over its judged segments vs its mean human score
    systems = sorted({r.system for r in rows})
    sys_human = [np.mean([r.human_score for r in rows if r.system == s]) for s in systems]
    sys_chrf = [chrf.corpus_score([r.hypothesis for r in rows if r.system == s],
                                  [[r.reference for r in rows if r.system == s]]).score for s in systems]
    sys_blanc = [metric.corpus_score([r.hypothesis for r in rows if r.system == s],
                                     [[r.reference] for r in rows if r.system == s]).score for s in systems]
    assert metrics["test_system"]["chrf"][group] == pytest.approx(pearsonr(sys_chrf, sys_human).statistic, abs=1e-9)
    assert metrics["test_system"]["blanc"][group] == pytest.approx(pearsonr(sys_blanc, sys_human).statistic,
                                                                   abs=1e-9)


def test_hill_climbing_never_decreases_and_beats_its_start():
    from textqa.models.blanc.metric import BLANCParams
    data = JudgedPairs([COLING], BLANCParams(size_weights=[1.0] * 3))
    objective = _Objective(data, 3, "max", "segment", "pearson")
    start = _start(1, np.random.default_rng(0), 3, True)
    state, value = hill_climb(objective, start, max_steps=6)
    assert value > objective(start) + 1e-3 and state != start        # it climbed, not stayed
    assert value == pytest.approx(objective(state))
    # the same seed gives the same result
    assert hill_climb(objective, start, max_steps=6) == (state, value)


def test_segment_and_system_correlations_equal_scipy_per_group():
    """Training's batched correlations against scipy on scores from BLANC's per-sentence and corpus paths."""
    from scipy.stats import pearsonr

    from textqa.evaluation.mt import read_mt_tsv
    from textqa.models.blanc.metric import BLANC, BLANCParams
    params = BLANCParams(alpha=0.0, beta=0.2, partial_weight=0.5, size_weights=(0.5, 0.5))
    data = JudgedPairs([COLING], params)
    stats = data.batch.stats(0.0, 0.2, 0.5, 2)
    seg = correlations(data, stats, (0.5, 0.5), 1.0, "segment")
    sysl = correlations(data, stats, (0.5, 0.5), 1.0, "system")
    metric = BLANC(params)
    rows = read_mt_tsv(COLING)
    pairs = sorted({r.lang_pair for r in rows})
    assert set(seg) == set(sysl) == {f"coling16:{lp}" for lp in pairs} | {"average"}
    for lp in pairs:
        mine = [r for r in rows if r.lang_pair == lp]
        scores = [metric.sentence_score(r.hypothesis, [r.reference]).score for r in mine]
        assert seg[f"coling16:{lp}"] == pytest.approx(pearsonr(scores, [r.human_score for r in mine]).statistic,
                                                      abs=1e-9)
        systems = sorted({r.system for r in mine})
        sys_scores, sys_human = [], []
        for s in systems:
            g = [r for r in mine if r.system == s]
            sys_scores.append(metric.corpus_score([r.hypothesis for r in g], [[r.reference] for r in g]).score)
            sys_human.append(np.mean([r.human_score for r in g]))
        assert sysl[f"coling16:{lp}"] == pytest.approx(pearsonr(sys_scores, sys_human).statistic, abs=1e-9)
    assert seg["average"] == pytest.approx(np.mean([seg[f"coling16:{lp}"] for lp in pairs]))


def test_failed_training_leaves_the_previous_artifact_untouched(blanc_artifact, copy_root, tmp_path):
    root = copy_root(blanc_artifact)
    before = {p.name: p.read_bytes() for p in (root / "blanc").iterdir()}
    bad = tmp_path / "bad.tsv"
    bad.write_text("lang_pair\tseg_id\tsystem\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="bad.tsv:1: header lacks column"):
        run(_args("--train", str(bad), "--test", "--artifacts", str(root), "--restarts", "1"))
    assert {p.name: p.read_bytes() for p in (root / "blanc").iterdir()} == before


def test_training_starts_from_chrf_and_chrf_plus_plus_exactly():
    """Restarts 0 and 1 begin at chrF and chrF++ (points of BLANC's space): their objective is
    sacrebleu's chrF / chrF++ correlation per language pair, averaged."""
    from scipy.stats import pearsonr
    from sacrebleu.metrics import CHRF

    from textqa.evaluation.mt import read_mt_tsv
    from textqa.models.blanc.metric import BLANCParams
    from textqa.training.blanc_search import beta_f_of
    assert beta_f_of(0.8) == pytest.approx(2.0)
    data = JudgedPairs([COLING], BLANCParams(size_weights=[1.0] * 4, char_weights=[1.0] * 6,
                                             word_ngram_weights=[1.0] * 2))
    objective = _Objective(data, 4, "max", "segment", "pearson")
    rows = read_mt_tsv(COLING)
    for i, peer in ((0, CHRF()), (1, CHRF(word_order=2))):
        start = _start(i, np.random.default_rng(0), 4, True, 6, 2)
        per_pair = []
        for lp in sorted({r.lang_pair for r in rows}):
            mine = [r for r in rows if r.lang_pair == lp]
            per_pair.append(pearsonr([peer.sentence_score(r.hypothesis, [r.reference]).score for r in mine],
                                     [r.human_score for r in mine]).statistic)
        assert objective(start) == pytest.approx(np.mean(per_pair), abs=1e-9)


def test_pooled_levels_in_training_equal_the_sentence_path():
    """The batched correlations with ACS, character and word n-gram levels pooled (training's path)
    against BLANC.sentence_score of the same parameters."""
    from scipy.stats import pearsonr

    from textqa.evaluation.mt import read_mt_tsv
    from textqa.models.blanc.metric import BLANC, BLANCParams
    params = BLANCParams(alpha=0.0, beta=0.2, partial_weight=0.5, size_weights=(0.3, 0.2),
                         char_weights=(0.1, 0.1, 0.05, 0.05, 0.05, 0.05), word_ngram_weights=(0.07, 0.03), beta_f=3.0)
    data = JudgedPairs([COLING], params)
    seg = correlations(data, data.stats(0.0, 0.2, 0.5, 2, "max"),
                       params.weights, 3.0, "segment")
    metric = BLANC(params)
    rows = read_mt_tsv(COLING)
    for lp in sorted({r.lang_pair for r in rows}):
        mine = [r for r in rows if r.lang_pair == lp]
        scores = [metric.sentence_score(r.hypothesis, [r.reference]).score for r in mine]
        assert seg[f"coling16:{lp}"] == pytest.approx(pearsonr(scores, [r.human_score for r in mine]).statistic,
                                                      abs=1e-9)


def _sys_slice(tmp_path, year: str, pairs: tuple, n_segments: int):
    """The first ``n_segments`` segments of every system of some pairs of a real WMT system-outputs file."""
    import gzip
    lines = gzip.open(DATA_DIR / "mt" / f"wmt{year}_toen_sys_outputs.tsv.gz", "rt", encoding="utf-8").read().splitlines()
    keep = [l for l in lines[1:] if l.split("\t")[0] in pairs and int(l.split("\t")[1]) <= n_segments]
    path = tmp_path / f"wmt{year}_toen_sys_outputs.tsv"
    path.write_text("\n".join([lines[0]] + keep) + "\n", encoding="utf-8")
    return path


def test_system_level_training_on_system_outputs(tmp_path):
    """--level system on real system-outputs files: NA systems left out, --segments-per-pair keeps the
    first segments of every system, the objective's cached system sums give the same correlations as
    summing every segment, and the held-out baselines are corpus scores (sacrebleu's)."""
    from sacrebleu.metrics import CHRF
    from scipy.stats import pearsonr

    from textqa.models.blanc.metric import BLANCParams
    train = _sys_slice(tmp_path, "21", ("cs-en", "is-en"), 30)
    test = _sys_slice(tmp_path, "22", ("uk-en", "liv-en"), 30)
    base = BLANCParams(size_weights=[1.0] * 2, char_weights=[1.0] * 2, word_ngram_weights=[])
    data = JudgedPairs([test], base, segments_per_pair=12)
    assert all(r.human_score is not None for _, r in data.rows)                 # uk-en GTCOM is NA: left out
    assert {r.system for _, r in data.rows if r.lang_pair == "uk-en"} and \
        "GTCOM" not in {r.system for _, r in data.rows}
    for g in data.groups:
        assert len({r.seg_id for n, r in data.rows if n == g}) == 12
    objective = _Objective(data, 2, "max", "system", "pearson")
    state = (0, 2, 3, (0.25, 0.25, 0.25, 0.25), 0.5)
    direct = correlations(data, data.stats(GRIDS["alpha"][0], GRIDS["beta"][2], GRIDS["partial_weight"][3], 2, "max"),
                          state[3], 1.0, "system")
    assert objective(state) == pytest.approx(direct["average"], abs=1e-12)

    out = tmp_path / "blanc-sys"
    assert run(_args("--train", str(train), "--test", str(test), "--level", "system", "--restarts", "2",
                     "--jobs", "1", "--max-steps", "3", "--char-orders", "2", "--word-ngram-orders", "0",
                     "--max-k", "2", "--out", str(out))) == 0
    metrics = json.loads((out / "manifest.json").read_text())["metrics"]
    assert metrics["level"] == "system" and set(metrics["test"]) == {"blanc", "sentbleu", "chrf", "chrf++"}
    rows = [r for r in (l.split("\t") for l in test.read_text(encoding="utf-8").splitlines()[1:])
            if r[0] == "uk-en" and r[6] != "NA"]
    systems = sorted({r[2] for r in rows})
    human = [float(next(r[6] for r in rows if r[2] == s)) for s in systems]
    chrf = [CHRF().corpus_score([r[5] for r in rows if r[2] == s], [[r[4] for r in rows if r[2] == s]]).score
            for s in systems]
    assert metrics["test"]["chrf"]["wmt22:uk-en"] == pytest.approx(pearsonr(chrf, human).statistic, abs=1e-9)


def test_character_skip_ngrams_are_trained_and_saved(tmp_path):
    """--char-max-gap/--char-alpha put character skip-n-grams into the character level: the saved
    parameters carry them, and the training correlation is that of the saved metric's own scores."""
    from scipy.stats import pearsonr

    from textqa.evaluation.mt import read_mt_tsv
    out = tmp_path / "blanc-skip"
    assert run(_args("--train", str(COLING), "--test", "--restarts", "1", "--jobs", "1", "--max-steps", "2",
                     "--char-max-gap", "2", "--char-alpha", "0.5", "--max-k", "2", "--out", str(out))) == 0
    metric = load_blanc(out)
    assert metric.params.char_max_gap == 2 and metric.params.char_alpha == 0.5
    assert "|ca:0.5|cg:2|" in metric.signature
    train = json.loads((out / "manifest.json").read_text())["metrics"]["train"]
    rows = [r for r in read_mt_tsv(COLING) if r.lang_pair == "fr-en"]
    scores = [metric.sentence_score(r.hypothesis, [r.reference]).score for r in rows]
    assert train["coling16:fr-en"] == pytest.approx(pearsonr(scores, [r.human_score for r in rows]).statistic,
                                                    abs=1e-6)


def test_training_writes_the_climb_and_scatter_plots(blanc_artifact, assert_plots):
    assert_plots(blanc_artifact / "blanc", ("hill_climbing.png", "human_vs_blanc.png"))
