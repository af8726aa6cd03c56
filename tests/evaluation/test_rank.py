"""Ranking metrics against real trec_eval 9.0 outputs and hand-computed cases."""
import pytest

from textqa.evaluation.rank import RankInputError, read_qrels, read_run, score_run, trec_order
from textqa.runtime.paths import DATA_DIR

RANK = DATA_DIR / "eval" / "rank"


def trec_eval_output(path):
    out = {}
    for line in path.read_text().splitlines():
        name, _, value = line.split()
        out[name] = value
    return out


@pytest.mark.parametrize("qrels,run,expected", [
    ("cacm/cacm.qrels", "cacm/search_output_cacm.txt", "cacm/results_cacm.txt"),
    ("trec9_chinese_clir/ref_out.txt", "trec9_chinese_clir/search_output_trec.txt",
     "trec9_chinese_clir/results_trec.txt"),
])
def test_equals_trec_eval(qrels, run, expected):
    """Through the public API (textqa.metrics.TrecEval), on dictionaries in pytrec_eval's layout."""
    from textqa.metrics import TrecEval
    ref = trec_eval_output(RANK / expected)
    run_ = read_run(RANK / run)
    got = TrecEval(ks=(5, 10, 20, 100)).score(read_qrels(RANK / qrels), run_)
    assert (got.queries, got.retrieved, got.relevant, got.relevant_retrieved) == \
        tuple(int(ref[k]) for k in ("num_q", "num_ret", "num_rel", "num_rel_ret"))
    values = {"map": got.map, "recip_rank": got.recip_rank, "Rprec": got.r_precision,
              **{f"P_{k}": v for k, v in got.precision_at.items()}}
    for key in ("map", "recip_rank", "Rprec", "P_5", "P_10", "P_20", "P_100"):
        assert f"{values[key]:.4f}" == ref[key], key


def test_cacm_query_ids_are_strings():
    # the run says 1..9, the qrels 01..09: trec_eval evaluates 43 queries, not 52
    assert score_run(read_qrels(RANK / "cacm/cacm.qrels"), read_run(RANK / "cacm/search_output_cacm.txt")).num_q == 43


def test_hand_computed(tmp_path):
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 c 1\nq1 0 z 1\nq2 0 x 0\nq2 0 y 2\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\nq1 Q0 c 3 1.0 t\n"
                                "q2 Q0 x 1 5.0 t\nq2 Q0 y 2 5.0 t\nq3 Q0 a 1 1 t\n")
    s = score_run(read_qrels(tmp_path / "q"), read_run(tmp_path / "r"), ks=(1, 2))
    q1, q2 = s.per_query["q1"], s.per_query["q2"]
    assert q1["map"] == pytest.approx((1 + 2 / 3) / 3) and q1["recip_rank"] == 1.0
    assert q1["P_2"] == 0.5 and q1["Rprec"] == pytest.approx(2 / 3)
    # tie at 5.0 is broken by docno descending: y before x
    assert q2["recip_rank"] == 1.0 and q2["map"] == 1.0
    assert s.num_q == 2 and "q3" not in s.per_query            # q3 has no qrels
    assert trec_order({"a": 1.0, "b": 1.0, "c": 2.0}) == ["c", "b", "a"]


def test_mrr_cutoff_and_relevance_level(tmp_path):
    # q4: the first relevant document is at rank 3; q5: a level-1 document at rank 1, a level-2 one at rank 2
    (tmp_path / "q").write_text("q4 0 d1 0\nq4 0 d3 1\nq5 0 e1 1\nq5 0 e2 2\n")
    (tmp_path / "r").write_text("q4 Q0 d1 1 3.0 t\nq4 Q0 d2 2 2.0 t\nq4 Q0 d3 3 1.0 t\n"
                                "q5 Q0 e1 1 2.0 t\nq5 Q0 e2 2 1.0 t\n")
    qrels, run = read_qrels(tmp_path / "q"), read_run(tmp_path / "r")
    rr = lambda **kw: score_run(qrels, run, **kw).per_query["q4"]["recip_rank"]
    assert rr() == pytest.approx(1 / 3) and rr(mrr_cutoff=3) == pytest.approx(1 / 3)
    assert rr(mrr_cutoff=2) == 0.0 and rr(mrr_cutoff=1) == 0.0
    assert score_run(qrels, run, mrr_cutoff=2).per_query["q4"]["map"] == pytest.approx(1 / 3)   # MAP is not cut
    level1 = score_run(qrels, run, ks=(1,)).per_query["q5"]
    level2 = score_run(qrels, run, ks=(1,), relevance_level=2).per_query["q5"]
    assert (level1["map"], level1["recip_rank"], level1["num_rel"], level1["P_1"]) == (1.0, 1.0, 2, 1.0)
    assert (level2["map"], level2["recip_rank"], level2["num_rel"], level2["P_1"]) == (0.5, 0.5, 1, 0.0)


def test_relevance_level_cli(tmp_path, capsys):
    import json

    from textqa.cli import main
    (tmp_path / "q").write_text("q5 0 e1 1\nq5 0 e2 2\n")
    (tmp_path / "r").write_text("q5 Q0 e1 1 2.0 t\nq5 Q0 e2 2 1.0 t\n")
    assert main(["eval", "rank", "--qrels", str(tmp_path / "q"), "--run", str(tmp_path / "r"),
                 "--relevance-level", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["map"] == 0.5 and out["num_rel"] == 1


def test_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "run"
    bad.write_text("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 high t\n")
    with pytest.raises(RankInputError, match=r"run:2: score 'high'"):
        read_run(bad)
    bad.write_text("q1 Q0 a 1 1.0 t\nq1 Q0 a 2 0.5 t\n")
    with pytest.raises(RankInputError, match=r"run:2: document a repeated .*line 1"):
        read_run(bad)
    bad.write_text("q1 0 a\n")
    with pytest.raises(RankInputError, match=r"run:1: expected 4 columns"):
        read_qrels(bad)
