"""MATERIAL submission labels, packing and checking (IARPA MATERIAL plan sections 5.5, 6.2, 7, 8.2).
The submissions here are synthetic fixtures written by the tests (labelled as such)."""
from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from textqa.cli import main
from textqa.evaluation import material

PLAN_EXAMPLE = "NIST_CLIR-contrastive-unconstrained-QUERY2-mybestsystem_BASE-1S-EVAL-SPEECH_20181113_225652.tgz"
CLIR = "T1_CLIR-primary-unconstrained-QUERY1-sys1_BASE-1S-EVAL-TEXT_20190101_120000"
E2E = "T1_E2E-primary-unconstrained-QUERY1-sys1_BASE-1S-EVAL-TEXT_20190101_120000"
ASR = "T1_ASR-primary-unconstrained-NONE-sys1_BASE-1B-EVAL-SPEECH_20191201_080000"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
JPG = b"\xff\xd8\xff\xe0" + b"\0" * 16


def test_the_plans_example_label():
    f = material.parse_label(PLAN_EXAMPLE)
    assert f == {"team": "NIST", "task": "CLIR", "type": "contrastive", "condition": "unconstrained",
                 "queryset": "QUERY2", "system": "mybestsystem", "period": "BASE", "lang": "1S", "dataset": "EVAL",
                 "mode": "SPEECH", "date": "20181113", "time": "225652"}
    assert material.build_label(**f) == PLAN_EXAMPLE


def test_build_fills_what_the_renaming_script_fills():
    label = material.build_label(team="T1", task="ASR", type="primary", system="sys1", period="BASE", lang="1B",
                                 dataset="EVAL")
    f = material.parse_label(label)
    assert (f["queryset"], f["mode"], f["condition"]) == ("NONE", "SPEECH", "unconstrained")
    assert len(f["date"]) == 8 and len(f["time"]) == 6


@pytest.mark.parametrize("label, field", [
    ("N!ST_CLIR-primary-unconstrained-QUERY2-s_BASE-1S-EVAL-TEXT_20181113_225652", "<TeamID>"),
    ("NIST_MT-primary-unconstrained-QUERY2-s_BASE-1S-EVAL-TEXT_20181113_225652", "<Task>"),
    ("NIST_CLIR-best-unconstrained-QUERY2-s_BASE-1S-EVAL-TEXT_20181113_225652", "<SubmissionType>"),
    ("NIST_CLIR-primary-constrained-QUERY2-s_BASE-1S-EVAL-TEXT_20181113_225652", "<TrainingCondition>"),
    ("NIST_CLIR-primary-unconstrained-NONE-s_BASE-1S-EVAL-TEXT_20181113_225652", "<QuerysetID>"),
    ("NIST_ASR-primary-unconstrained-QUERY1-s_BASE-1S-EVAL-SPEECH_20181113_225652", "<QuerysetID>"),
    ("NIST_ASR-primary-unconstrained-NONE-s_BASE-1S-EVAL-TEXT_20181113_225652", "<SPEECH|TEXT>"),
    ("NIST_CLIR-primary-unconstrained-QUERY2-s.1_BASE-1S-EVAL-TEXT_20181113_225652", "<SysLabel>"),
    ("NIST_CLIR-primary-unconstrained-QUERY2-s_OPX-1S-EVAL-TEXT_20181113_225652", "<EvalPeriod>"),
    ("NIST_CLIR-primary-unconstrained-QUERY2-s_BASE-S1-EVAL-TEXT_20181113_225652", "<LangID>"),
    ("NIST_CLIR-primary-unconstrained-QUERY2-s_BASE-1S-eval-TEXT_20181113_225652", "<DatasetName>"),
    ("NIST_CLIR-primary-unconstrained-QUERY2-s_BASE-1S-EVAL-AUDIO_20181113_225652", "<SPEECH|TEXT>"),
    ("NIST_CLIR-primary-unconstrained-QUERY2-s_BASE-1S-EVAL-TEXT_20181131_225652", "<Date>"),
    ("NIST_CLIR-primary-unconstrained-QUERY2-s_BASE-1S-EVAL-TEXT_20181113_245652", "<Timestamp>"),
    ("NIST_CLIR-primary-unconstrained-QUERY2-my_best_BASE-1S-EVAL-TEXT_20181113_225652", "5 parts"),
    ("NIST_CLIR-primary-QUERY2-s_BASE-1S-EVAL-TEXT_20181113_225652", "<Task>-<SubmissionType>"),
])
def test_errors_name_the_offending_field(capsys, label, field):
    with pytest.raises(material.SubmissionError, match=field.replace("|", r"\|")):
        material.parse_label(label)
    assert main(["eval", "material", "name", label]) == 2
    assert field in capsys.readouterr().err


def clir_tree(d: Path, y_conf="0.9", n_conf="0.1") -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "query1.tsv").write_text(f"MATERIAL_BASE-1S_12345678\tY\t{y_conf}\nMATERIAL_BASE-1S_23456789\tN\t{n_conf}\n")
    (d / "query2.tsv").write_text("MATERIAL_BASE-1S_12345678\tN\t0.2\n")
    return d


def test_pack_and_check_clir(tmp_path, capsys):
    src = clir_tree(tmp_path / "out")
    assert main(["eval", "material", "pack", CLIR, str(src), "--out", str(tmp_path)]) == 0
    tgz = tmp_path / f"{CLIR}.tgz"
    with tarfile.open(tgz) as t:
        assert sorted(t.getnames()) == ["query1.tsv", "query2.tsv"]       # no parent directory
    capsys.readouterr()
    assert main(["eval", "material", "check", str(tgz), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["queries"] == 2 and report["mode"] == "TEXT"


def e2e_tree(d: Path) -> Path:
    q = d / "query7"
    q.mkdir(parents=True)
    (q / "query7.tsv").write_text("MATERIAL_BASE-1S_12345678\tY\t0.8\n")
    stem = "T1.sys1.query7.MATERIAL_BASE-1S_12345678"
    (q / f"{stem}.json").write_text(json.dumps({"eng_content_list": ["a summary"]}))
    (q / f"{stem}.component1.png").write_bytes(PNG)
    (q / f"{stem}.component2.jpg").write_bytes(JPG)
    return d


def test_pack_and_check_e2e(tmp_path):
    tgz = material.pack(E2E, e2e_tree(tmp_path / "e2e"), tmp_path)
    with tarfile.open(tgz) as t:
        assert "query7/query7.tsv" in t.getnames() and all(n.startswith("query7") for n in t.getnames())
    assert material.check(tgz)["problems"] == []


@pytest.mark.parametrize("value,says", [("[" * 1200 + "]" * 1200, "nested deeper"), ("1" * 4400, "number too large"),
                                         ("NaN", "NaN and Infinity"), ('"\\ud800"', "surrogate")])
def test_hostile_summary_json_is_a_reported_problem(tmp_path, value, says):
    """Well-formed but hostile JSON in a summary file is one more problem the check lists, not a crash."""
    d = e2e_tree(tmp_path / "e2e")
    summary = next((d / "query7").glob("*.json"))
    summary.write_text('{"eng_content_list": ["a summary"], "a": %s}' % value)
    with pytest.raises(material.SubmissionError) as e:
        material.pack(E2E, d, tmp_path)
    assert f"{summary.name}: not valid UTF-8 JSON" in str(e.value) and says in str(e.value), str(e.value)


def test_e2e_problems_are_all_reported(tmp_path):
    d = e2e_tree(tmp_path / "e2e")
    q = d / "query7"
    stem = "T1.sys1.query7.MATERIAL_BASE-1S_12345678"
    (q / f"{stem}.component1.png").write_bytes(JPG)                     # a JPEG named .png
    (q / "notes.txt").write_text("x")
    (q / "T1.sys1.query7.MATERIAL_BASE-1S_99999999.json").write_text("{not json")
    with pytest.raises(material.SubmissionError) as e:
        material.pack(E2E, d, tmp_path)
    msg = str(e.value)
    assert "a JPEG but named .png" in msg and "notes.txt" in msg and "not valid UTF-8 JSON" in msg
    assert "no T1.sys1.query7.MATERIAL_BASE-1S_99999999.component1 image" in msg
    assert not (tmp_path / f"{E2E}.tgz").exists()


def test_pack_and_check_asr(tmp_path):
    d = tmp_path / "asr"
    d.mkdir()
    (d / "MATERIAL_BASE-1B_12345678.ctm").write_text("MATERIAL_BASE-1B_12345678 A 11.34 0.2 YES -6.763\n"
                                                    "MATERIAL_BASE-1B_12345678 B 1.34 0.2 I\n")
    tgz = material.pack(ASR, d, tmp_path)
    assert material.check(tgz)["problems"] == []
    (d / "MATERIAL_BASE-1B_12345678.ctm").write_text("MATERIAL_BASE-1B_12345678 A 11.34 x YES\n")
    with pytest.raises(material.SubmissionError, match=r"MATERIAL_BASE-1B_12345678.ctm:1: duration 'x'"):
        material.pack(ASR, d, tmp_path)
    assert material.check(tgz)["problems"] == []       # the earlier archive is untouched


def test_content_rules(tmp_path):
    src = clir_tree(tmp_path / "out", y_conf="0.3", n_conf="0.5")
    (src / "query2.tsv").write_text("MATERIAL_BASE-1A_12345678\tN\t0.2\nMATERIAL_BASE-1S_1234\tN\t0.2\n")
    (src / "query3.tsv").write_text("MATERIAL_BASE-1S_12345678\tY\t1\n")
    problems: list = []
    material.check_tree(src, material.parse_label(CLIR), problems)
    text = "\n".join(problems)
    assert "query1.tsv:2: an N decision at confidence 0.5 is above a Y decision at 0.3" in text
    assert "query2.tsv:1: document MATERIAL_BASE-1A_12345678 is from BASE-1A, the label says BASE-1S" in text
    assert "query2.tsv:2: document id 'MATERIAL_BASE-1S_1234'" in text
    assert "query3.tsv:1: confidence '1'" in text


def hostile(tmp_path: Path, name: str, **info) -> Path:
    tgz = tmp_path / f"{CLIR}.tgz"
    with tarfile.open(tgz, "w:gz") as t:
        ti = tarfile.TarInfo(name)
        for k, v in info.items():
            setattr(ti, k, v)
        data = b"MATERIAL_BASE-1S_12345678\tY\t0.9\n"
        ti.size = len(data) if ti.isfile() else 0
        t.addfile(ti, io.BytesIO(data) if ti.isfile() else None)
    return tgz


@pytest.mark.parametrize("name, info, message", [
    ("../query1.tsv", {}, "outside the archive"),
    ("/tmp/query1.tsv", {}, "outside the archive"),
    ("query1.tsv", {"type": tarfile.SYMTYPE, "linkname": "/etc/passwd"}, "a link"),
    ("query1.tsv", {"type": tarfile.LNKTYPE, "linkname": "../x"}, "a link"),
    ("query1.tsv", {"type": tarfile.CHRTYPE}, "special file"),
])
def test_check_refuses_unsafe_members_and_writes_nothing_outside(tmp_path, monkeypatch, name, info, message):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    tgz = hostile(tmp_path, name, **info)
    with pytest.raises(material.SubmissionError, match=message):
        material.check(tgz)
    assert not (tmp_path / "query1.tsv").exists() and list(work.iterdir()) == []


def test_check_reports_a_parent_directory_and_a_bad_name(tmp_path, capsys):
    tgz = hostile(tmp_path, "submission/query1.tsv")
    report = material.check(tgz)
    assert any("without a parent directory" in p for p in report["problems"])
    assert main(["eval", "material", "check", str(tgz)]) == 1
    bad = tmp_path / "x.tgz"
    bad.write_bytes(tgz.read_bytes())
    assert main(["eval", "material", "check", str(bad)]) == 2
    assert "5 parts" in capsys.readouterr().err
    garbage = tmp_path / f"{CLIR}.tgz"
    garbage.write_bytes(b"not a tar")
    with pytest.raises(material.SubmissionError, match="not a readable gzip tar"):
        material.check(garbage)
