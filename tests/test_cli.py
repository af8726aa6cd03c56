"""The textqa command line: help texts, the stdin/stdout truecasing filter, eval, bad input."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def textqa(*args, stdin=b"", env=None):
    return subprocess.run([sys.executable, "-m", "textqa.cli", *args], input=stdin, cwd=ROOT,
                          capture_output=True, env={**os.environ, **(env or {})}, timeout=300)


@pytest.mark.parametrize("args", [[], ["train"], ["train", "truecaser"], ["train", "all"], ["truecase"],
                                  ["eval"], ["eval", "truecase"], ["eval", "rank"], ["eval", "agreement"], ["eval", "aqwv"], ["eval", "cpa"], ["eval", "nuggets"], ["serve"]])
def test_help(args):
    r = textqa(*args, "--help")
    assert r.returncode == 0 and b"usage: textqa" in r.stdout


def test_truecase_filter(truecaser_artifact):
    model = str(truecaser_artifact / "truecaser")
    r = textqa("truecase", "--model", model, "--tokenized",
               stdin=b"the united states -LRB- u.s. -RRB- .\n\n. , ;\nparis is a city .")
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"The United States -LRB- U.S. -RRB- .\n\n. , ;\nParis is a city ."
    r = textqa("truecase", env={"TEXTQA_ARTIFACTS": str(truecaser_artifact)}, stdin=b"he lives in  the u.s. now.\n")
    assert r.stdout == b"He lives in  the U.S. now.\n"


def test_truecase_non_utf8_passes_through(truecaser_artifact):
    model = str(truecaser_artifact / "truecaser")
    data = b"paris \xff\xfe is a city .\nnew york .\n"
    r = textqa("truecase", "--model", model, "--tokenized", stdin=data)
    assert r.returncode == 0
    assert r.stdout.lower() == data.lower() and b"\xff\xfe" in r.stdout
    assert b"<stdin>:1: not valid UTF-8" in r.stderr


def test_truecase_missing_model(tmp_path):
    r = textqa("truecase", "--model", str(tmp_path), stdin=b"hello\n")
    assert r.returncode == 2 and b"not a model artifact" in r.stderr and b"Traceback" not in r.stderr


def test_eval_truecase(tmp_path):
    gold = tmp_path / "gold.txt"
    pred = tmp_path / "pred.txt"
    gold.write_text("The cat saw NASA .\nIt ran .\n")
    pred.write_text("The cat saw Nasa .\nit ran .\n")
    r = textqa("eval", "truecase", str(gold), str(pred), "--json")
    out = json.loads(r.stdout)
    # 8 tokens, 6 correct; gold cased 3 (The, NASA, It), proposed 2 (The, Nasa), correct cased 1
    assert out["accuracy"] == pytest.approx(75.0)
    assert out["precision"] == pytest.approx(50.0) and out["recall"] == pytest.approx(100 / 3, abs=1e-3)
    assert out["confusion"]["CA"]["UC"] == 1 and out["confusion"]["UC"]["LC"] == 1
    r = textqa("eval", "truecase", str(gold), str(pred))
    assert b"F1" in r.stdout and b"confusion" in r.stdout


def test_eval_errors_name_file_and_line(tmp_path):
    gold = tmp_path / "gold.txt"
    pred = tmp_path / "pred.txt"
    gold.write_text("The cat .\nIt ran .\n")
    pred.write_text("the cat .\nit ran away .\n")
    r = textqa("eval", "truecase", str(gold), str(pred))
    assert r.returncode == 2 and f"{pred}:2:".encode() in r.stderr
    pred.write_bytes(b"the cat .\nit \xff ran .\n")
    r = textqa("eval", "truecase", str(gold), str(pred))
    assert r.returncode == 2 and f"{pred}:2: not valid UTF-8".encode() in r.stderr
    r = textqa("eval", "truecase", str(gold), str(tmp_path / "none.txt"))
    assert r.returncode == 2 and b"No such file" in r.stderr


def test_failed_training_keeps_previous_artifact(truecaser_artifact, tmp_path):
    before = (truecaser_artifact / "truecaser" / "manifest.json").read_bytes()
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    r = textqa("train", "truecaser", "--data", str(empty), "--pretokenized", "--no-cache",
               "--artifacts", str(truecaser_artifact))
    assert r.returncode != 0 and b"no training sentences" in r.stderr
    assert (truecaser_artifact / "truecaser" / "manifest.json").read_bytes() == before
    r = textqa("train", "truecaser", "--data", str(tmp_path / "missing.txt"))
    assert r.returncode != 0 and b"missing.txt: no such file" in r.stderr


def test_eval_rank_cli():
    rank = ROOT / "data" / "eval" / "rank" / "trec9_chinese_clir"
    r = textqa("eval", "rank", "--qrels", str(rank / "ref_out.txt"), "--run", str(rank / "search_output_trec.txt"),
               "--json")
    out = json.loads(r.stdout)
    assert f"{out['recip_rank']:.4f}" == "0.2109" and f"{out['map']:.4f}" == "0.0097" and out["num_q"] == 25
    assert set(out["queries"]["55"]) >= {"map", "recip_rank", "P_5"}
    r = textqa("eval", "rank", "--help")
    assert b"qid Q0 docno rank score tag" in r.stdout


def test_eval_agreement_cli(tmp_path):
    f = ROOT / "data" / "eval" / "agreement" / "duc2006_D0631_peer_scus.tsv"
    out = json.loads(textqa("eval", "agreement", "--distance", "masi", str(f), "--json").stdout)
    assert set(out) >= {"alpha", "distance", "coders", "units"} and out["distance"] == "masi" and out["units"] == 11
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tu\tx\n")
    r = textqa("eval", "agreement", str(bad))
    assert r.returncode == 2 and b"two coders" in r.stderr


def test_eval_aqwv_cli(tmp_path):
    # synthetic fixture folders (made up for this test)
    (tmp_path / "ref").mkdir()
    (tmp_path / "sys").mkdir()
    (tmp_path / "ref" / "q1.tsv").write_text("d1\tY\nd2\tN\n")
    (tmp_path / "sys" / "q1.tsv").write_text("d1\tY\t0.9\nd2\tN\t0.1\n")
    r = textqa("eval", "aqwv", "--ref", str(tmp_path / "ref"), "--sys", str(tmp_path / "sys"), "--json")
    out = json.loads(r.stdout)
    assert out["modified_aqwv"] == 1.0 and out["beta"] == 40 and out["queries"]["q1"]["qv"] == 1.0
    (tmp_path / "sys" / "q1.tsv").write_text("d1\tY\t0.9\nd2\tN\t.1\n")
    r = textqa("eval", "aqwv", "--ref", str(tmp_path / "ref"), "--sys", str(tmp_path / "sys"))
    assert r.returncode == 2 and b"q1.tsv:2: confidence '.1'" in r.stderr


def test_eval_cpa_cli(tmp_path):
    # synthetic task-2 files (made up for this test)
    (tmp_path / "g").write_text("v\ta\tA\nv\tb\tA\nv\tc\tB\n")
    (tmp_path / "r").write_text("v\ta\t1\nv\tb\t1\nv\tc\t1\n")
    out = json.loads(textqa("eval", "cpa", "--task", "2", str(tmp_path / "g"), str(tmp_path / "r"), "--json").stdout)
    assert out["verbs"]["v"]["recall"] == 1.0 and out["verbs"]["v"]["precision"] == pytest.approx(5 / 9)


def test_eval_nuggets_cli():
    fixture = ROOT / "tests" / "fixtures" / "nuggets"          # synthetic responses, real key
    args = ["eval", "nuggets", "--key", str(ROOT / "data" / "eval" / "nugget" / "trec" / "trec14answers_other"),
            "--responses", str(fixture / "responses.tsv"), "--judgements", str(fixture / "judgements.tsv"),
            "--questions", "87.8", "66.8"]
    out = json.loads(textqa(*args, "--json").stdout)
    assert set(out["runs"]) == {"runA", "runB"} and out["runs"]["runA"]["f"] > out["runs"]["runB"]["f"]
    assert len(out["runs"]["runA"]["ci95"]) == 2
    r = textqa(*args, "-v")
    assert b"runA" in r.stdout and b"4:g@0" in r.stdout and b"2:j@1" in r.stdout


def test_eval_nuggets_compare_and_plot(tmp_path):
    fixture = ROOT / "tests" / "fixtures" / "nuggets"
    base = ["eval", "nuggets", "--key", str(ROOT / "data" / "eval" / "nugget" / "trec" / "trec14answers_other"),
            "--responses", str(fixture / "responses.tsv"), "--questions", "87.8", "66.8"]
    judged = tmp_path / "judged.json"
    judged.write_bytes(textqa(*base, "--judgements", str(fixture / "judgements.tsv"), "--json").stdout)
    png = tmp_path / "fig5.png"
    r = textqa(*base, "--compare-with", str(judged), "--plot", str(png), "--json")
    out = json.loads(r.stdout)
    assert out["comparison"]["runs"] == 2 and 0 <= out["comparison"]["reference_outside_ci95"] <= 2
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
