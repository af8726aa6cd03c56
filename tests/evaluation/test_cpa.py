"""SemEval-2015 task 15 scores on hand-made cases (no task data is available offline).

All inputs here are synthetic, made up for the tests.
"""
import pytest

from textqa.evaluation.cpa import (bcubed, f_measure, is_hypernym, read_task1, score_task1, score_task2, score_task3)
from textqa.errors import InputError


def test_bcubed_hand_example():
    gold = {"a": "A", "b": "A", "c": "A", "d": "B", "e": "B"}
    run = {"a": "1", "b": "1", "c": "2", "d": "2", "e": "2"}
    p, r = bcubed(gold, run)
    assert p == pytest.approx((1 + 1 + 1 / 3 + 2 / 3 + 2 / 3) / 5)
    assert r == pytest.approx((2 / 3 + 2 / 3 + 1 / 3 + 1 + 1) / 5)


def test_bcubed_extremes():
    gold = {"a": "A", "b": "A", "c": "B"}
    assert bcubed(gold, {i: "one" for i in gold})[1] == 1.0          # one cluster: full recall
    assert bcubed(gold, {i: i for i in gold})[0] == 1.0               # singletons: full precision
    assert bcubed(gold, gold) == (1.0, 1.0)


def f(gold, run):
    return f_measure(*bcubed(gold, run))


def test_amigo_constraints():
    # Amigó et al. 2009, section 3: constraints B-cubed satisfies.
    # 1 homogeneity: splitting a cluster that mixes two categories helps
    gold = {"a": "A", "b": "A", "c": "B", "d": "B"}
    assert f(gold, {"a": 1, "b": 1, "c": 2, "d": 2}) > f(gold, {"a": 1, "b": 1, "c": 1, "d": 1})
    # 2 completeness: merging two clusters of one category helps
    assert f(gold, {"a": 1, "b": 1, "c": 2, "d": 2}) > f(gold, {"a": 1, "b": 3, "c": 2, "d": 2})
    # 3 rag bag: disorder added to a disordered cluster hurts less than to a clean one
    gold = {"a": "A", "b": "A", "c": "A", "d": "A", "x": "X", "y": "Y", "z": "Z", "w": "W"}
    clean_hit = {"a": 1, "b": 1, "c": 1, "d": 1, "w": 1, "x": 2, "y": 2, "z": 2}
    bag_hit = {"a": 1, "b": 1, "c": 1, "d": 1, "w": 2, "x": 2, "y": 2, "z": 2}
    assert f(gold, bag_hit) > f(gold, clean_hit)
    # 4 cluster size vs quantity: one error in a big cluster beats many small ones
    gold = {**{f"b{i}": "B" for i in range(4)}, "s1": "S1", "t1": "S1", "s2": "S2", "t2": "S2"}
    split_big = {**{f"b{i}": 1 for i in range(3)}, "b3": 2, "s1": 3, "t1": 3, "s2": 4, "t2": 4}
    split_small = {**{f"b{i}": 1 for i in range(4)}, "s1": 3, "t1": 5, "s2": 4, "t2": 6}
    assert f(gold, split_big) > f(gold, split_small)


def test_task2_average_over_verbs():
    gold = {"v1": {"a": "A", "b": "A"}, "v2": {"c": "A"}}
    run = {"v1": {"a": "1", "b": "1"}}
    assert score_task2(gold, run)["score"] == 1.0                         # page: verbs scored
    assert score_task2(gold, run, as_official=True)["score"] == 0.5       # official: every gold verb


def test_task1_layers_and_official_deviation():
    gold = {"v": {"syntax": {"t1": "subj", "t2": "obj", "t3": "obj"}, "semantics": {"t1": "Human"}}}
    run = {"v": {"syntax": {"t1": "subj", "t2": "obj", "t3": "subj"}, "semantics": {"t1": "Human"}}}
    # page: subj P 1/2 R 1 F 2/3; obj P 1 R 1/2 F 2/3 -> syntax 2/3; semantics 1; verb 5/6
    r = score_task1(gold, run)
    assert r["verbs"]["v"]["layers"]["syntax"] == pytest.approx(2 / 3)
    assert r["score"] == pytest.approx(5 / 6)
    # official: the wrong "subj" on t3 is booked as retrieved for "obj": subj P 1 R 1, obj P 1/2 R 1/2
    o = score_task1(gold, run, as_official=True)
    assert o["verbs"]["v"]["layers"]["syntax"] == pytest.approx((1 + 0.5) / 2)


def test_task3_partial_credit():
    parents = {"Human": "Animate", "Animate": "Entity", "Dog": "Animate"}
    assert is_hypernym("Entity", "Human", parents) and not is_hypernym("Human", "Entity", parents)
    gold = {"v": {"p1": {"subject": "Animate", "object": "Human", "verb_complement": "Entity"}}}
    run = {"v": {"p1": {"subject": "Human", "object": "Animate", "preposition_1": "Dog"}}}
    # subject: gold hypernym of run -> 0.5; object: run hypernym of gold -> 0.25; D = 1; I = 1
    r = score_task3(gold, run, parents)["verbs"]["v"]
    assert (r["correct"], r["substitutions"], r["deletions"], r["insertions"]) == (0.75, 1.25, 1, 1)
    assert r["precision"] == pytest.approx(0.75 / 3) and r["recall"] == pytest.approx(0.75 / 3)
    o = score_task3(gold, run, parents, as_official=True)["verbs"]["v"]
    assert o["correct"] == 0 and o["f"] == 0.0


def test_input_errors(tmp_path):
    p = tmp_path / "t1.tsv"
    p.write_text("v\tt1\tsyntax\tsubj\nv\tt1\tsyntax\tobj\n")
    with pytest.raises(InputError, match=r"t1.tsv:2: item 't1' of verb 'v' labelled twice"):
        read_task1(p)
    p.write_text("v\tt1\tsyntax\n")
    with pytest.raises(InputError, match=r"t1.tsv:1: expected 4 tab-separated fields"):
        read_task1(p)


def test_cli_task2_fixture_matches_hand_computation(capsys):
    import json
    from pathlib import Path

    from textqa.cli import main
    fix = Path(__file__).resolve().parents[1] / "fixtures" / "cpa"
    assert main(["eval", "cpa", "--task", "2", str(fix / "task2_gold.tsv"), str(fix / "task2_run.tsv"),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verbs"]["abandon"]["f"] == pytest.approx(11 / 15)
    assert out["verbs"]["crush"]["precision"] == pytest.approx(5 / 9)
    assert out["verbs"]["crush"]["f"] == pytest.approx(2 * (5 / 9) / (5 / 9 + 1))
    assert out["score"] == pytest.approx((11 / 15 + 10 / 14) / 2)


def _write(path, rows):
    path.write_text("".join("\t".join(r) + "\n" for r in rows))
    return path


def test_cli_task1_and_task3_files_and_official_mode(tmp_path, capsys):
    """Synthetic files (made up for this test) in the task 1 and task 3 layouts, through the CLI;
    the same cases as the hand computations above, plus a gold verb the run leaves out."""
    import json

    from textqa.cli import main
    g1 = _write(tmp_path / "g1", [("v", "t1", "syntax", "subj"), ("v", "t2", "syntax", "obj"), ("v", "t3", "syntax", "obj"),
                                  ("v", "t1", "semantics", "Human"), ("w", "t9", "syntax", "subj")])
    r1 = _write(tmp_path / "r1", [("v", "t1", "syntax", "subj"), ("v", "t2", "syntax", "obj"), ("v", "t3", "syntax", "subj"),
                                  ("v", "t1", "semantics", "Human")])
    assert main(["eval", "cpa", "--task", "1", str(g1), str(r1), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == pytest.approx(5 / 6) and set(out["verbs"]) == {"v"}      # averaged over scored verbs
    assert main(["eval", "cpa", "--task", "1", str(g1), str(r1), "--as-official", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # official: t3's error booked to "obj" (syntax 3/4, verb (3/4 + 1)/2), averaged over both gold verbs
    assert out["as_official"] is True and out["score"] == pytest.approx((0.75 + 1) / 2 / 2)

    hier = _write(tmp_path / "types", [("Human", "Animate"), ("Animate", "Entity"), ("Dog", "Animate")])
    g3 = _write(tmp_path / "g3", [("v", "p1", "subject", "Animate"), ("v", "p1", "object", "Human"),
                                  ("v", "p1", "verb_complement", "Entity")])
    r3 = _write(tmp_path / "r3", [("v", "p1", "subject", "Human"), ("v", "p1", "object", "Animate"),
                                  ("v", "p1", "preposition_1", "Dog")])
    assert main(["eval", "cpa", "--task", "3", str(g3), str(r3), "--hierarchy", str(hier), "--json"]) == 0
    v = json.loads(capsys.readouterr().out)["verbs"]["v"]
    assert (v["correct"], v["substitutions"], v["deletions"], v["insertions"]) == (0.75, 1.25, 1, 1)
    assert main(["eval", "cpa", "--task", "3", str(g3), str(r3), "--json"]) == 0          # no hierarchy: no credit
    assert json.loads(capsys.readouterr().out)["verbs"]["v"]["correct"] == 0
    assert main(["eval", "cpa", "--task", "3", str(g3), str(r3), "--hierarchy", str(hier), "--as-official"]) == 0
    assert "task 3 score 0.0000 (as the official scorer)" in capsys.readouterr().out


def test_task3_and_hierarchy_readers(tmp_path):
    from textqa.evaluation.cpa import read_hierarchy, read_task3
    p = _write(tmp_path / "t3", [("v", "p1", "subject", "Human"), ("v", "p2", "subject", "Dog"),
                                 ("w", "p1", "object", "Entity")])
    assert read_task3(p) == {"v": {"p1": {"subject": "Human"}, "p2": {"subject": "Dog"}},
                             "w": {"p1": {"object": "Entity"}}}
    _write(p, [("v", "p1", "subject", "Human"), ("v", "p1", "subject", "Dog")])
    with pytest.raises(InputError, match=r"t3:2: slot 'subject' of pattern 'p1' filled twice"):
        read_task3(p)
    h = _write(tmp_path / "h", [("Human", "Animate"), ("Animate", "Entity")])
    assert read_hierarchy(h) == {"Human": "Animate", "Animate": "Entity"}
    _write(h, [("Human", "Animate"), ("Animate",)])
    with pytest.raises(InputError, match=r"h:2: expected 2 tab-separated fields"):
        read_hierarchy(h)
