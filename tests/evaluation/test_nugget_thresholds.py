"""Bayesian threshold selection (Marton & Radul 2006, 4.4) and NIST's judged 'other' file layout."""
import json
import math
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from textqa.errors import InputError
from textqa.evaluation.nugget_thresholds import ERROR_RATES, THRESHOLDS, fill_thresholds, judged_pairs, select_thresholds
from textqa.evaluation.nuggeteer import read_trec_other_judged
from textqa.cli import main

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "nuggets"
KEY = Path(__file__).resolve().parents[2] / "data" / "eval" / "nugget" / "trec" / "trec14answers_other"


def test_coin_evidence_is_the_beta_bernoulli_marginal():
    # 3 labels, one positive: P = B(2, 3) = 1! 2! / 4! = 1/12
    sel = select_thresholds([("q", 1, 0.1, 1), ("q", 1, 0.2, 0), ("q", 2, 0.3, 0)])
    assert sel["models"]["coin"] == pytest.approx(math.log10(1 / 12))


def test_global_evidence_matches_direct_summation_over_the_priors():
    pairs = [("q", 1, 0.5, 1), ("q", 2, 0.1, 0)]
    total = 0.0
    for a, b in product(ERROR_RATES, ERROR_RATES):
        for t in THRESHOLDS:
            lik = 1.0
            for _, _, s, y in pairs:
                p1 = (1 - a) if s >= t else b          # P(y = 1 | s, t)
                lik *= p1 if y else 1 - p1
            total += lik
    expected = total / (len(ERROR_RATES) ** 2 * len(THRESHOLDS))
    assert select_thresholds(pairs)["models"]["global"] == pytest.approx(math.log10(expected))


def _noisy_threshold_pairs(thresholds: dict, n=200, flip=0.02, seed=0):
    rng = np.random.default_rng(seed)
    pairs = []
    for (q, g), t in thresholds.items():
        for s in rng.uniform(0, 1.2, n):
            y = int(s >= t)
            pairs.append((q, g, float(s), 1 - y if rng.random() < flip else y))
    return pairs


def test_one_shared_threshold_selects_a_coarse_model_and_recovers_it():
    pairs = _noisy_threshold_pairs({("q1", 1): 0.4, ("q1", 2): 0.4, ("q2", 1): 0.4})
    sel = select_thresholds(pairs)
    assert sel["selected"] == "global"          # Occam: finer models pay for parameters they do not need
    assert abs(sel["thresholds"] - 0.4) <= 0.05
    assert sel["models"]["global"] > sel["models"]["coin"]


def test_different_thresholds_per_nugget_select_the_per_nugget_model():
    truth = {("q1", 1): 0.2, ("q1", 2): 0.8, ("q2", 1): 0.5, ("q2", 2): 1.0}
    sel = select_thresholds(_noisy_threshold_pairs(truth))
    assert sel["selected"] == "nugget"
    for (q, g), t in truth.items():
        assert abs(sel["thresholds"][q][g] - t) <= 0.06
    assert sel["error_rates"]["false_positive"] < 0.1 and sel["error_rates"]["false_negative"] < 0.1
    filled = fill_thresholds(sel, {"q1": {"nuggets": {1: {}, 2: {}, 3: {}}}})
    assert set(filled["q1"]) == {1, 2, 3} and filled["q1"][3] == sel["default"]


def test_labels_independent_of_scores_select_the_coin():
    rng = np.random.default_rng(1)
    pairs = [("q", 1, float(s), int(rng.random() < 0.5)) for s in rng.uniform(0, 1.2, 300)]
    assert select_thresholds(pairs)["selected"] == "coin"


def test_no_judgements_is_a_clear_error():
    with pytest.raises(ValueError, match="judged"):
        select_thresholds([])


def test_judged_pairs_are_cross_fitted():
    key = {"q": {"nuggets": {1: {"description": "designed the first nuclear reactor"},
                             2: {"description": "called the atomic bomb evil"}}}}
    same = "an unusual sentence about a reactor zeppelin"
    judgements = {"q": {same: {1}, "another zeppelin reactor sentence": {1}, "bomb evil": {2}}}
    pairs = judged_pairs(key, judgements, idf={}, folds=3)
    assert len(pairs) == 6
    # the held-out response never matches its own n-grams: 'unusual' only occurs in it
    score = {(t, g): s for (_, g, s, _), t in zip(pairs, [t for t in sorted(judgements["q"]) for _ in (1, 2)])}
    assert score[(same, 1)] < 1.0


def test_trec_other_judged_layout():
    runs, judged = read_trec_other_judged([FIX / "RUN-7.otherjudged", FIX / "RUN-9.otherjudged"])
    assert set(runs) == {"RUN-7", "RUN-9"}
    assert runs["RUN-7"]["87.8"][1] == "He called the atomic bomb an evil thing."
    assert judged["87.8"]["he called the atomic bomb an evil thing."] == {2}
    assert judged["87.8"]["the weather in rome was sunny that day."] == set()      # judged: no nugget
    assert judged["66.8"]["the kursk was a large submarine."] == set()


@pytest.mark.parametrize("text, message", [
    ("87.8 RUN-1 x DOC string\n", "1: item number 'x'"),
    ("87.8 RUN-1 1 DOC a\n87.8 RUN-1 2 3\n", "2: nugget 3 marked in item 2"),
    ("87.8 RUN-1 1 DOC a\n87.8 RUN-1 1 DOC b\n", "2: item 1 of RUN-1 question 87.8 given twice"),
    ("87.8 RUN-1\n", "1: expected"),
])
def test_trec_other_judged_errors_name_file_and_line(tmp_path, text, message):
    f = tmp_path / "RUN-1.otherjudged"
    f.write_text(text)
    with pytest.raises(InputError, match=f"RUN-1.otherjudged:{message}"):
        read_trec_other_judged([f])


def test_cli_bayes_threshold_on_trec_judged_files(capsys):
    assert main(["eval", "nuggets", "--key", str(KEY), "--trec-judged", str(FIX / "RUN-7.otherjudged"),
                 str(FIX / "RUN-9.otherjudged"), "--questions", "87.8", "66.8", "--threshold", "bayes",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    sel = out["threshold_selection"]
    assert set(sel["models"]) == {"coin", "global", "question", "nugget", "nugget_errors"}
    assert sel["selected"] == max(sel["models"], key=sel["models"].get)
    q = out["runs"]["RUN-7"]["questions"]["87.8"]
    assert {g for g, n in q["nuggets"].items() if n["how"] == "judged"} == {"1", "2", "4"}


def test_cli_bayes_threshold_without_judgements_fails_cleanly(capsys):
    assert main(["eval", "nuggets", "--key", str(KEY), "--responses", str(FIX / "responses.tsv"),
                 "--threshold", "bayes"]) == 2
    assert "needs judged responses" in capsys.readouterr().err
    assert main(["eval", "nuggets", "--key", str(KEY), "--responses", str(FIX / "responses.tsv"),
                 "--threshold", "high"]) == 2
    assert "neither a number nor 'bayes'" in capsys.readouterr().err
