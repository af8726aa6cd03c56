"""WER equal to NIST sclite's on golden outputs (tests/fixtures/wer/make_cases.py made them)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from textqa.cli import main
from textqa.cli.eval import wer as wer_command
from textqa.evaluation import wer

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "wer"


def sclite_sum(name: str) -> dict:
    """The 'Sum' row of sclite's raw summary (.raw) and the Err% of its percentage summary (.sys)."""
    raw = (FIX / "golden" / f"{name}.raw").read_text(encoding="latin-1")
    row = re.search(r"\|\s*Sum\s*\|([^|]*)\|([^|]*)\|", raw)
    snt, words = map(int, row.group(1).split())
    corr, sub, dele, ins, err, _serr = map(int, row.group(2).split())
    pct = re.search(r"\|\s*Sum/Avg\s*\|[^|]*\|([^|]*)\|", (FIX / "golden" / f"{name}.sys").read_text(encoding="latin-1"))
    return {"segments": snt, "reference_words": words, "correct": corr, "substitutions": sub, "deletions": dele,
            "insertions": ins, "errors": err, "err_pct": float(pct.group(1).split()[4])}


def check(result: dict, gold: dict) -> None:
    for k in ("segments", "reference_words", "correct", "substitutions", "deletions", "insertions", "errors"):
        assert result[k] == gold[k], k
    assert round(100 * result["wer"], 1) == gold["err_pct"]


@pytest.mark.parametrize("case, ref, hyp", [("wmt18", "wmt18.stm", "wmt18.ctm"), ("edges", "edges.stm", "edges.ctm"),
                                            ("wmt18_whole", "wmt18.trn", "wmt18.ctm"),
                                            ("wmt18_whole", "wmt18_whole.stm", "wmt18.ctm")])
def test_equal_to_sclite_overall_and_per_file(capsys, case, ref, hyp):
    assert main(["eval", "wer", str(FIX / ref), str(FIX / hyp), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    check(result["overall"], sclite_sum(case))
    assert len(result["files"]) == 3
    for f, r in result["files"].items():
        check(r, sclite_sum(f"{case}.{f}"))


def test_the_wmt18_case_is_not_trivial():
    result = wer_command.score(wer.read_reference(FIX / "wmt18.stm"), wer.read_ctm(FIX / "wmt18.ctm"))[0]["overall"]
    assert result["substitutions"] > 500 and result["deletions"] > 300 and result["insertions"] > 300


def _counts(ref, hyp, **options):
    """(correct, substitutions, deletions, insertions) of ``wer.alignment``."""
    return tuple(np.bincount(wer.alignment(ref, hyp, **options), minlength=4).tolist())


def test_alignment_prefers_what_sclite_reports_among_equal_costs():
    # cost 4S + 3(D+I); ties are broken from the end: match/substitution, then insertion, then deletion
    assert _counts(["a", "b"], ["B", "c"]) == (1, 0, 1, 1)
    assert _counts(["x", "y", "z"], []) == (0, 0, 3, 0)
    assert _counts([], ["x"]) == (0, 0, 0, 1)
    assert _counts(["a;"[:1], ""], ["a", ""]) == (2, 0, 0, 0)


def _align_reference(ref, hyp):
    """The alignment in plain Python, row by row (what the compiled one must reproduce): sclite's
    costs, the trace-back preferring match/substitution, then insertion, then deletion."""
    r, h = [wer.fold(w) for w in ref], [wer.fold(w) for w in hyp]
    cost = [[0] * (len(h) + 1) for _ in range(len(r) + 1)]
    for j in range(len(h) + 1):
        cost[0][j] = 3 * j
    for i in range(1, len(r) + 1):
        cost[i][0] = 3 * i
        for j in range(1, len(h) + 1):
            cost[i][j] = min(cost[i - 1][j - 1] + 4 * (r[i - 1] != h[j - 1]), cost[i - 1][j] + 3, cost[i][j - 1] + 3)
    out, i, j = [0, 0, 0, 0], len(r), len(h)
    while i or j:
        if i and j and cost[i][j] == cost[i - 1][j - 1] + 4 * (r[i - 1] != h[j - 1]):
            out[r[i - 1] != h[j - 1]] += 1
            i, j = i - 1, j - 1
        elif j and cost[i][j] == cost[i][j - 1] + 3:
            out[3] += 1
            j -= 1
        else:
            out[2] += 1
            i -= 1
    return tuple(out)


def test_the_compiled_alignment_equals_the_plain_one_on_random_segments():
    import random
    rng = random.Random(7)
    words = ["a", "A", "b", "the", "The", "", "x;y", "über", "ÜBER", "line\nbreak", "c"]
    for _ in range(3000):
        ref = [rng.choice(words) for _ in range(rng.randrange(0, 12))]
        hyp = [rng.choice(words) for _ in range(rng.randrange(0, 12))]
        assert _counts(ref, hyp) == _align_reference(ref, hyp), (ref, hyp)


def test_words_are_assigned_to_segments_as_sclite_does(tmp_path):
    (tmp_path / "r.stm").write_text("F A s 0 3 a b c\nF A s 5 8 d e f\n")
    (tmp_path / "h.ctm").write_text("F A 0.5 0.2 a\nF A 2.9 0.2 c\nF A 5.5 0.2 d\nF A 1.5 0.2 b\n")
    segs = wer.read_reference(tmp_path / "r.stm")
    wer.assign(segs, wer.read_ctm(tmp_path / "h.ctm"))
    # c's midpoint (3.0) is not before the end (3.0): next segment; b comes after d in the file: stays there
    assert [s.hyp for s in segs] == [["a"], ["c", "d", "b"]]


@pytest.mark.parametrize("stm, ctm, message", [
    ("F A s 0 3 a\n", "F A 0.5 0.2\n", "h.ctm:1: a CTM record"),
    ("F A s 0 3 a\n", ";; c\nF A x 0.2 w\n", "h.ctm:2: begin time 'x' is not a number"),
    ("F A s 0 3 a\n", "F A 0.5 -1 w\n", "h.ctm:1: negative duration"),
    ("F A s 0 3 a\n", "F A 0.5 0.2 w nan\n", "h.ctm:1: confidence"),
    ("F A s 3 0 a\n", "F A 0.5 0.2 w\n", "r.stm:1: the segment ends"),
    ("F A s 0\n", "F A 0.5 0.2 w\n", "r.stm:1: an STM segment"),
    ("F A s 0 3 { a / b }\n", "F A 0.5 0.2 w\n", "r.stm:1: alternations"),
    ("F A s 0 3 a\n", "G A 0.5 0.2 w\n", "file 'G' channel 'A' have no reference segment"),
    ("F A s 0 3 a\n", "dir/F A 0.5 0.2 w\n", "h.ctm:1: the waveform id"),
])
def test_bad_input_names_file_and_line(tmp_path, capsys, stm, ctm, message):
    (tmp_path / "r.stm").write_text(stm)
    (tmp_path / "h.ctm").write_text(ctm)
    assert main(["eval", "wer", str(tmp_path / "r.stm"), str(tmp_path / "h.ctm")]) == 2
    assert message in capsys.readouterr().err


def test_table_output(capsys):
    assert main(["eval", "wer", str(FIX / "edges.stm"), str(FIX / "edges.ctm")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].split() == ["overall", "5", "19", "10", "2", "7", "6", "78.9"]


def test_json_is_strict_when_a_rate_is_not_finite(tmp_path, capsys):
    """No reference words but an insertion: the WER is infinite; --json writes null (JSON has no
    Infinity), the counts say why, and the table still prints inf."""
    import json
    (tmp_path / "r.stm").write_text("F A s 0 3\n")
    (tmp_path / "h.ctm").write_text("F A 0.5 0.2 w\n")
    assert main(["eval", "wer", str(tmp_path / "r.stm"), str(tmp_path / "h.ctm"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert out["overall"]["wer"] is None and out["overall"]["insertions"] == 1
    assert out["overall"]["reference_words"] == 0
    assert main(["eval", "wer", str(tmp_path / "r.stm"), str(tmp_path / "h.ctm")]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split()[-1] == "inf"


def test_json_safe_replaces_every_non_finite_number():
    import numpy as np

    from textqa.cli.eval import json_safe
    value = {"a": float("nan"), "b": [1.5, float("-inf"), {"c": np.float64("inf")}], "d": np.array([1.0, np.nan]),
             "e": (2, "x"), "f": np.int64(3)}
    assert json_safe(value) == {"a": None, "b": [1.5, None, {"c": None}], "d": [1.0, None], "e": [2, "x"], "f": 3}


def test_case_sensitive_alignment_compares_words_as_written():
    assert _counts(["The", "cat"], ["the", "cat"]) == (2, 0, 0, 0)
    assert _counts(["The", "cat"], ["the", "cat"], case_sensitive=True) == (1, 1, 0, 0)
    assert _counts(["The", "cat"], ["the", "cat"], costs="levenshtein", case_sensitive=True) == (1, 1, 0, 0)
    # words that are digits are words like any other (no conversion of ids to strings and back)
    assert _counts(["1", "01"], ["01", "1"], case_sensitive=True) == (1, 0, 1, 1)


AWKWARD_STM = """;; a comment line, and segments with nothing to score
F A s 0 2 the cat sat
F A s 2 4
F A s 4 6 IGNORE_TIME_SEGMENT_IN_SCORING
F A s 6 9 (uh) on the mat;x ;y
F A s 9 12 a dog
"""
AWKWARD_CTM = """;; comment
F A 0.1 0.2 The
F A 0.6 0.2 cat
F A 2.5 0.2 what
F A 4.5 0.2 ignored
F A 6.5 0.2 on
F A 7.0 0.2 mat
F A 7.5 0.2 ;z
F A 9.5 0.2 A
F A 10 0.2 dog
F A 10.5 0.2 barked
"""
AWKWARD_CTM_2 = "\n".join(l for i, l in enumerate(AWKWARD_CTM.splitlines()) if i not in (2, 9)) + "\n"


def test_paired_scores_the_units_the_single_run_scores(tmp_path, capsys):
    """``--paired`` and the single run score the same units: an empty segment, ';;' comments, an ignored
    segment, sclite's ';' words (empty units that count) and an optionally deletable '(uh)'."""
    (tmp_path / "r.stm").write_text(AWKWARD_STM)
    (tmp_path / "h.ctm").write_text(AWKWARD_CTM)
    (tmp_path / "h2.ctm").write_text(AWKWARD_CTM_2)
    single = {}
    for name in ("h", "h2"):
        assert main(["eval", "wer", str(tmp_path / "r.stm"), str(tmp_path / f"{name}.ctm"), "--json"]) == 0
        single[name] = json.loads(capsys.readouterr().out)["overall"]
    assert single["h"]["segments"] == 4 and single["h"]["insertions"] >= 2        # the empty segment's insertion
    assert main(["eval", "wer", str(tmp_path / "r.stm"), str(tmp_path / "h.ctm"), str(tmp_path / "h2.ctm"),
                 "--paired", "bs", "--paired-n", "50", "--json"]) == 0
    paired = json.loads(capsys.readouterr().out)["measures"]["WER"]
    assert paired[str(tmp_path / "h.ctm")]["score"] == pytest.approx(single["h"]["wer"])
    assert paired[str(tmp_path / "h2.ctm")]["score"] == pytest.approx(single["h2"]["wer"])
    assert single["h"]["wer"] != single["h2"]["wer"]


def test_alignment_aligns_each_segment_once(monkeypatch, capsys):
    """``--alignment`` gives the rates and the rows of one alignment per segment."""
    calls = []
    real = wer.alignment

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(wer, "alignment", counted)
    assert main(["eval", "wer", str(FIX / "edges.stm"), str(FIX / "edges.ctm"), "--alignment"]) == 0
    out = capsys.readouterr().out
    assert out.count("REF:") == 5 and len(calls) == 5
    assert out.splitlines()[-1].split() == ["overall", "5", "19", "10", "2", "7", "6", "78.9"]
