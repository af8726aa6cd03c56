"""AQWV: the evaluation plan's own facts, hand-computed cases, file validation.

All files here are synthetic fixtures written by the tests (labelled as such).
"""
import re

import pytest

from textqa.evaluation.aqwv import (Counts, e2e_query_value, modified_query_weighted_value, query_value,
                             query_weighted_value, read_folders, score_folders)
from textqa.errors import InputError

REF = {"q1": {"d1": "Y", "d2": "Y", "d3": "N", "d4": "N"},
       "q2": {"d1": "N", "d2": "Y", "d3": "N", "d4": "N"},
       "q3": {"d1": "N", "d2": "N", "d3": "N", "d4": "N"}}          # no relevant document


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for qid, lines in files.items():
        (folder / f"{qid}.tsv").write_text("".join("\t".join(map(str, l)) + "\n" for l in lines))
    return folder


def make(tmp_path, system, name="sys"):
    ref = write(tmp_path / "ref", {q: [(d, v) for d, v in docs.items()] for q, docs in REF.items()})
    return ref, write(tmp_path / name, system)


def test_plan_facts(tmp_path):
    perfect = {q: [(d, v, "0.9" if v == "Y" else "0.1") for d, v in docs.items()] for q, docs in REF.items()}
    ref, sysd = make(tmp_path, perfect, "perfect")
    r = score_folders(ref, sysd)
    assert r.aqwv == 1.0 and r.modified_aqwv == 1.0
    nothing = {q: [(d, "N", "0.0") for d in docs] for q, docs in REF.items()}
    assert score_folders(ref, write(tmp_path / "nothing", nothing)).modified_aqwv == 0.0
    wrong = {q: [(d, "N" if v == "Y" else "Y", "0.1" if v == "Y" else "0.9") for d, v in docs.items()]
             for q, docs in REF.items()}
    r = score_folders(ref, write(tmp_path / "wrong", wrong), beta=40)
    assert r.aqwv == -40.0 and r.modified_aqwv == -40.0
    assert r.best_qwv == 0.0 and r.best_threshold > 0.9     # best is to return nothing


def test_hand_computed(tmp_path):
    # q1: returns d1 (TP), d3 (FA) -> P_miss 1/2, P_fa 1/2; q2: returns d2 -> 0, 0; q3: returns d1 -> P_fa 1/4
    system = {"q1": [("d1", "Y", "0.8"), ("d2", "N", "0.3"), ("d3", "Y", "0.7"), ("d4", "N", "0.1")],
              "q2": [("d1", "N", "0.2"), ("d2", "Y", "0.9"), ("d3", "N", "0.2"), ("d4", "N", "0.2")],
              "q3": [("d1", "Y", "0.6"), ("d2", "N", "0.0"), ("d3", "N", "0.0"), ("d4", "N", "0.0")]}
    ref, sysd = make(tmp_path, system)
    r = score_folders(ref, sysd, beta=2)
    assert r.queries["q1"]["qv"] == pytest.approx(1 - (0.5 + 2 * 0.5))
    assert r.queries["q3"]["qv"] is None and r.queries["q3"]["p_fa"] == 0.25
    assert r.aqwv == pytest.approx(((1 - 1.5) + 1.0) / 2)                           # eq. 2 over q1, q2
    assert r.modified_aqwv == pytest.approx(1 - (0.25 + 2 * (0.5 + 0 + 0.25) / 3))   # eq. 3
    # best threshold: 0.8 keeps d1/q1 and d2/q2 only -> P_miss (1/2+0)/2, P_fa 0 -> 0.75
    assert r.best_qwv == pytest.approx(0.75) and r.best_threshold == 0.8


def test_formulas_directly():
    c = Counts(x1=3, x2=1, x3=2, x4=94)
    assert query_value(c, 40) == pytest.approx(1 - (0.25 + 40 * 2 / 96))
    assert query_value(Counts(0, 0, 1, 9)) is None
    assert query_weighted_value([c, Counts(0, 0, 1, 9)], 40) == pytest.approx(query_value(c, 40))
    assert modified_query_weighted_value([c, Counts(0, 0, 1, 9)], 40) == pytest.approx(
        1 - (0.25 + 40 * (2 / 96 + 1 / 10) / 2))
    # eq. 5: no reclassification equals eq. 1'; K = 3 judges, r1 = 3 of 9 TP judgments say not relevant
    assert e2e_query_value(c, 0, 0, 1, 40) == pytest.approx(query_value(c, 40))
    assert e2e_query_value(c, r1=3, r2=3, k=3, beta=40) == pytest.approx(1 - ((1 + 1) / 4 + 40 * (2 - 1) / 96))
    with pytest.raises(ValueError):
        e2e_query_value(c, r1=10, r2=0, k=3)


def test_text_and_speech_average(tmp_path):
    good = {q: [(d, v, "0.9" if v == "Y" else "0.1") for d, v in docs.items()] for q, docs in REF.items()}
    none = {q: [(d, "N", "0.0") for d in docs] for q, docs in REF.items()}
    ref, text = make(tmp_path, good, "text")
    speech = write(tmp_path / "speech", none)
    from textqa.metrics import AQWV
    out = {mode: AQWV().score(*read_folders(ref, d)) for mode, d in (("text", text), ("speech", speech))}
    assert out["text"].modified_aqwv == 1.0 and out["speech"].modified_aqwv == 0.0
    assert AQWV.average(out)["modified_aqwv"] == 0.5


def test_the_api_names_bad_judgements_as_the_files_do(tmp_path):
    """The same checks on Python dicts as on the folders, each naming the query and document."""
    from textqa.metrics import AQWV, MetricInputError
    ref = {"q": {"d1": True, "d2": False}}
    for decisions, message in [({"q": {"d1": (True, 0.5)}}, "document 'd2' of the reference is missing"),
                               ({"q": {"d1": (True, 0.5), "d2": (False, 0.1), "d3": (False, 0.1)}}, "not in references"),
                               ({"q": {"d1": (True, 0.5), "d2": (False, 0.9)}}, "inconsistent confidence"),
                               ({"q": {"d1": ("Y", 0.5), "d2": (False, 0.1)}}, "returned: bool"),
                               ({"q": {"d1": (True, 1.5), "d2": (False, 0.1)}}, "confidence in [0, 1]"),
                               ({}, "query 'q' of references is missing"),
                               ([], "not a dict")]:
        with pytest.raises(MetricInputError, match=re.escape(message)):
            AQWV().score(ref, decisions)
    with pytest.raises(MetricInputError, match="beta"):
        AQWV(beta=-1)


@pytest.mark.parametrize("lines,message", [
    ([("d1", "Y", "1")], "confidence '1'"),
    ([("d1", "Y", "0.543211")], "confidence '0.543211'"),
    ([("d1", "Y", "5.0e-2")], "confidence '5.0e-2'"),
    ([("d1", "Y", "1.5")], "confidence '1.5'"),
    ([("d1", "maybe", "0.5")], "decision must be Y or N"),
    ([("d1", "Y", "0.5"), ("d1", "Y", "0.5")], "listed twice"),
])
def test_validation(tmp_path, lines, message):
    ref = write(tmp_path / "ref", {"q": [("d1", "Y")]})
    sysd = write(tmp_path / "sys", {"q": lines})
    with pytest.raises(InputError, match=r"q.tsv:\d+: .*" + message.replace("(", r"\(")):
        score_folders(ref, sysd)


def test_missing_documents_and_inconsistency(tmp_path):
    ref = write(tmp_path / "ref", {"a": [("d1", "Y"), ("d2", "N")], "b": [("d1", "N")]})
    sysd = write(tmp_path / "s1", {"a": [("d1", "Y", "0.5")], "b": [("d1", "N", "0.1")]})
    with pytest.raises(InputError, match="missing, e.g. d2"):
        score_folders(ref, sysd)
    sysd = write(tmp_path / "s2", {"a": [("d1", "Y", "0.5"), ("d2", "N", "0.3")], "b": [("d1", "N", "0.7")]})
    with pytest.raises(InputError, match=r"b.tsv:1: inconsistent confidence"):
        score_folders(ref, sysd)
    sysd = write(tmp_path / "s3", {"a": [("d1", "Y", "0.5"), ("d2", "N", "0.3")]})
    with pytest.raises(InputError, match="missing system file"):
        score_folders(ref, sysd)


def test_trec_input_hand_computed():
    from textqa.evaluation.aqwv import score_trec
    qrels = {"1": {"a": 1, "b": 1, "c": 0}, "2": {"x": 0}}
    run = {"1": {"a": 3.0, "z": 2.0, "b": 1.0}, "2": {"x": 5.0}}
    r = score_trec(qrels, run, threshold=2.0, collection_size=10, beta=4)
    # q1: returned a, z -> X1 1, X2 1, X3 1, X4 10-2-1 = 7; q2: returned x -> X3 1 of 10 non-relevant
    assert r.queries["1"]["qv"] == pytest.approx(1 - (0.5 + 4 * 1 / 8))
    assert r.modified_aqwv == pytest.approx(1 - (0.5 + 4 * (1 / 8 + 1 / 10) / 2))
    # threshold 1.0 returns a, z, b and x: P_miss 0, P_fa (1/8 + 1/10)/2 -> 1 - 4 * 0.1125 = 0.55 (best)
    assert r.best_threshold == 1.0 and r.best_qwv == pytest.approx(0.55)


def test_trec_input_agrees_with_trec_eval_counts():
    # Real TREC-9 CLIR run: returning all 100 documents per topic finds the 38 relevant ones trec_eval counts.
    from textqa.evaluation.aqwv import score_trec
    from textqa.evaluation.rank import read_qrels, read_run
    from textqa.runtime.paths import DATA_DIR
    d = DATA_DIR / "eval" / "rank" / "trec9_chinese_clir"
    r = score_trec(read_qrels(d / "ref_out.txt"), read_run(d / "search_output_trec.txt"), threshold=-1e9,
                   collection_size=150_000)   # N_Total is not in the files: an assumed size, affects P_FA only
    assert sum(q["x1"] for q in r.queries.values()) == 38
    assert sum(q["x1"] + q["x2"] for q in r.queries.values()) == 663
    assert len(r.queries) == 25
    best, best_t = _brute_force_best(read_qrels(d / "ref_out.txt"), read_run(d / "search_output_trec.txt"),
                                     150_000)
    assert r.best_qwv == pytest.approx(best, abs=1e-12) and r.best_threshold == best_t
    assert r.best_qwv > r.modified_aqwv + 0.01       # returning all 100 documents is far from the best cut


def _brute_force_best(qrels, run, n_total, beta=40.0):
    """Best modified QWV over every cut of the run (plan eq. 3, written out here), and its threshold."""
    import math
    best = (None, None)
    for t in sorted({s for q in qrels for s in run.get(q, {}).values()}) + [math.inf]:
        p_miss, p_fa = [], []
        for q, docs in qrels.items():
            rel = {doc for doc, level in docs.items() if level > 0}
            ret = {doc for doc, s in run.get(q, {}).items() if s >= t}
            if rel:
                p_miss.append(len(rel - ret) / len(rel))
            p_fa.append(len(ret - rel) / (n_total - len(rel)))
        v = 1 - (sum(p_miss) / len(p_miss) + beta * sum(p_fa) / len(p_fa))
        if best[0] is None or v > best[0]:
            best = (v, t)
    return best


def test_cli_trec_input_json_keys(capsys):
    import json

    from textqa.cli import main
    from textqa.runtime.paths import DATA_DIR
    d = DATA_DIR / "eval" / "rank" / "trec9_chinese_clir"
    assert main(["eval", "aqwv", "--qrels", str(d / "ref_out.txt"), "--run", str(d / "search_output_trec.txt"),
                 "--threshold", "20", "--collection-size", "127938", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"aqwv", "modified_aqwv", "best_qwv", "best_threshold", "beta", "queries"} <= set(out)
    assert out["beta"] == 40 and len(out["queries"]) == 25
    from textqa.evaluation.rank import read_qrels, read_run
    best, best_t = _brute_force_best(read_qrels(d / "ref_out.txt"), read_run(d / "search_output_trec.txt"), 127938)
    assert out["best_qwv"] == pytest.approx(best, abs=1e-12) and out["best_threshold"] == best_t
    assert set(out["queries"]["55"]) >= {"p_miss", "p_fa", "qv"}
    # half the arguments of the TREC input is a clear error, not a traceback
    assert main(["eval", "aqwv", "--qrels", str(d / "ref_out.txt"), "--threshold", "1"]) == 2
    assert "--collection-size" in capsys.readouterr().err


def test_cli_text_and_speech_modes(tmp_path, capsys):
    import json

    from textqa.cli import main
    good = {q: [(d, v, "0.9" if v == "Y" else "0.1") for d, v in docs.items()] for q, docs in REF.items()}
    half = {q: [(d, "Y" if d == "d1" else "N", "0.8" if d == "d1" else "0.2") for d in docs]
            for q, docs in REF.items()}
    ref, text = make(tmp_path, good, "text")
    speech = write(tmp_path / "speech", half)
    speech_only = score_folders(ref, speech)
    # q1 finds d1 of d1, d2: P_miss 1/2; q2 misses d2 and returns d1: P_miss 1, P_fa 1/3; q3 returns d1: P_fa 1/4
    assert speech_only.modified_aqwv == pytest.approx(1 - ((0.5 + 1) / 2 + 40 * (0 + 1 / 3 + 1 / 4) / 3))
    assert main(["eval", "aqwv", "--ref", str(ref), "--sys", str(text), "--ref-speech", str(ref),
                 "--sys-speech", str(speech), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["text"]["modified_aqwv"] == 1.0
    assert out["speech"]["modified_aqwv"] == pytest.approx(speech_only.modified_aqwv)
    assert out["average"]["modified_aqwv"] == pytest.approx((1.0 + speech_only.modified_aqwv) / 2)
    assert main(["eval", "aqwv", "--ref-speech", str(ref), "--sys-speech", str(speech), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["modified_aqwv"] == pytest.approx(speech_only.modified_aqwv)
    assert main(["eval", "aqwv", "--ref-speech", str(ref)]) == 2            # half a mode is an error
    assert "--sys-speech" in capsys.readouterr().err


def test_ranked_aqwv_is_the_hand_computed_trec_score_and_names_bad_parameters():
    from textqa.metrics import MetricInputError, RankedAQWV
    qrels = {"1": {"a": 1, "b": 1, "c": 0}, "2": {"x": 0}}
    run = {"1": {"a": 3.0, "z": 2.0, "b": 1.0}, "2": {"x": 5.0}}
    s = RankedAQWV(threshold=2.0, collection_size=10, beta=4).score(qrels, run)
    assert s.modified_aqwv == pytest.approx(1 - (0.5 + 4 * (1 / 8 + 1 / 10) / 2))
    assert s.best_threshold == 1.0 and s.best_qwv == pytest.approx(0.55)
    assert RankedAQWV(2.0, 10, 4).signature.startswith("AQWV-ranked|beta:4|threshold:2|collection:10|")
    with pytest.raises(MetricInputError, match="collection_size must be a positive integer"):
        RankedAQWV(2.0, 0)
    with pytest.raises(MetricInputError, match="threshold must be a finite number"):
        RankedAQWV(float("nan"), 10)
    with pytest.raises(MetricInputError, match="beta must be a number"):
        RankedAQWV(2.0, 10, beta=-1)
