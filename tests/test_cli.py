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


def python_code(code: str):
    """``code`` run in a fresh interpreter (its imports start from nothing); it must succeed."""
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()


@pytest.mark.parametrize("args", [[], ["train"], ["train", "truecaser"], ["train", "all"], ["truecase"],
                                  ["eval"], ["eval", "truecase"], ["eval", "rank"], ["eval", "agreement"], ["eval", "aqwv"], ["eval", "cpa"], ["eval", "nuggets"], ["serve"]])
def test_help(args):
    r = textqa(*args, "--help")
    assert r.returncode == 0 and b"usage: textqa" in r.stdout


def test_help_loads_no_model_and_each_trainer_lists_its_own_options():
    """Building the parser imports no training module, scikit-learn or scipy.stats (they took
    ``textqa --help`` and every command's start from 0.3 to 2.7 s); ``train MODEL`` still gets
    MODEL's own options, and only MODEL's."""
    code = ("import sys, contextlib, io\n"
            "from textqa.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    for argv in (['--help'], ['train', '--help'], ['eval', '--help'], ['eval', 'nuggets', '--help']):\n"
            "        try: main(argv)\n"
            "        except SystemExit as e: assert e.code == 0, argv\n"
            "heavy = [m for m in ('sklearn', 'scipy.stats', 'textqa.training.truecaser', 'textqa.models.truecaser.model')"
            " if m in sys.modules]\n"
            "assert not heavy, heavy\n")
    python_code(code)
    for model, own, other in (("truecaser", b"--class-lm", b"--folds"), ("icd9", b"--folds", b"--class-lm")):
        out = textqa("train", model, "--help").stdout
        assert own in out and other not in out, model
    r = textqa("train", "truecaser", "--no-such-option")
    assert r.returncode == 2 and b"unrecognized arguments: --no-such-option" in r.stderr


def test_a_command_imports_only_its_own_module():
    """``textqa truecase`` builds its own parser only: the other commands' modules (QA's collection,
    the evaluation scorers, the server) are not imported before its first line; ``textqa --help``
    and an unknown command still list every command."""
    code = ("import sys\n"
            "from textqa.cli import COMMANDS, build_parser\n"
            "build_parser(['truecase', '--tokenized']).parse_args(['truecase', '--tokenized'])\n"
            "others = [m for n, m in COMMANDS.items() if n != 'truecase' and m in sys.modules]\n"
            "assert not others, others\n"
            "assert 'textqa.cli.truecase' in sys.modules\n")
    python_code(code)
    r = textqa("truecas")
    assert r.returncode == 2 and b"'truecase'" in r.stderr and b"'serve'" in r.stderr


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


def test_failed_training_keeps_previous_artifact(truecaser_artifact, copy_root, tmp_path):
    root = copy_root(truecaser_artifact)
    before = {p.name: p.read_bytes() for p in (root / "truecaser").iterdir() if p.is_file()}
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    r = textqa("train", "truecaser", "--data", str(empty), "--pretokenized", "--no-cache",
               "--artifacts", str(root))
    assert r.returncode != 0 and b"no training sentences" in r.stderr
    assert {p.name: p.read_bytes() for p in (root / "truecaser").iterdir() if p.is_file()} == before
    assert sorted(p.name for p in root.iterdir()) == ["blanc", "truecaser"]      # no work folder left behind
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
    judged_f = {run: v["f"] for run, v in json.loads(judged.read_text())["runs"].items()}
    expected = sum(not lo <= judged_f[run] <= hi for run, (lo, hi) in
                   ((run, v["ci95"]) for run, v in out["runs"].items()))
    assert out["comparison"]["runs"] == 2 and out["comparison"]["reference_outside_ci95"] == expected
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    # a reference placed by hand: runA far above its interval, runB at its own estimate -> exactly 1 outside
    ref = {"runs": {"runA": {"f": out["runs"]["runA"]["ci95"][1] + 0.5}, "runB": {"f": out["runs"]["runB"]["f"]}}}
    placed = tmp_path / "placed.json"
    placed.write_text(json.dumps(ref))
    out = json.loads(textqa(*base, "--compare-with", str(placed), "--plot", str(png), "--json").stdout)
    assert out["comparison"] == {"runs": 2, "reference_outside_ci95": 1, "plot": str(png)}


class _FakeTrainer:
    """Stands in for a training module in ``train all`` tests: records the arguments it runs with."""

    def __init__(self, name, calls, data):
        self.name, self.calls, self.DEFAULT_DATA = name, calls, data

    def add_arguments(self, p):
        p.add_argument("--artifacts", type=Path)

    def run(self, args):
        self.calls.append((self.name, args.artifacts))
        (args.artifacts / self.name).mkdir(parents=True, exist_ok=True)
        (args.artifacts / self.name / "manifest.json").write_text("{}")
        return 0


def test_train_all_skips_existing_artifacts_unless_forced(tmp_path, monkeypatch, capsys):
    import textqa.cli as cli
    import textqa.cli.train as train_cli
    from textqa.registry import NAMES
    calls = []
    data = tmp_path / "data.txt"
    data.write_text("x\n")
    fakes = {name: _FakeTrainer(name, calls, [data]) for name in NAMES}
    fakes["icd9"].DEFAULT_DATA = [tmp_path / "absent.xml"]            # training data missing: skipped, said so
    monkeypatch.setattr(train_cli, "_trainer", lambda name: fakes[name])
    root = tmp_path / "root"
    (root / "blanc").mkdir(parents=True)
    (root / "blanc" / "manifest.json").write_text('{"kept": true}')
    assert cli.main(["train", "all", "--artifacts", str(root)]) == 0
    assert calls == [("truecaser", root), ("qa", root)]
    err = capsys.readouterr().err
    assert f"blanc: artifact exists at {root / 'blanc'} (use --force to retrain)" in err
    assert f"icd9: skipped, training data not present: {tmp_path / 'absent.xml'}" in err
    assert (root / "blanc" / "manifest.json").read_text() == '{"kept": true}'
    calls.clear()
    assert cli.main(["train", "all", "--artifacts", str(root)]) == 0      # everything present now: nothing runs
    assert calls == []
    assert cli.main(["train", "all", "--artifacts", str(root), "--force"]) == 0
    assert calls == [("truecaser", root), ("blanc", root), ("qa", root)]
    assert (root / "blanc" / "manifest.json").read_text() == "{}"
    # an artifact of an older, pickled format is retrained even without --force (make run on an old machine)
    calls.clear()
    capsys.readouterr()
    (root / "qa" / "manifest.json").write_text('{"name": "qa", "format_version": 1, "files": {}}')
    (root / "truecaser" / "manifest.json").write_text('{"name": "truecaser", "format_version": 2, "files": {}}')
    assert cli.main(["train", "all", "--artifacts", str(root)]) == 0
    assert calls == [("qa", root)]
    assert "qa: artifact at" in capsys.readouterr().err


def test_truecase_baseline_and_batches(truecaser_artifact, small_truecaser):
    model = str(truecaser_artifact / "truecaser")
    lines = ["the united states -LRB- u.s. -RRB- .", "", "paris is a city in france .", "he met bill in new york .",
             "the district of london .", "zorblaxian mr. quixotl ."]
    data = ("\r\n".join(lines[:3]) + "\r\n" + "\n".join(lines[3:]) + "\n").encode()
    outs = {}
    for size in ("1", "2", "1000"):
        r = textqa("truecase", "--model", model, "--tokenized", "--batch-size", size, stdin=data)
        assert r.returncode == 0, r.stderr
        outs[size] = r.stdout
    assert outs["1"] == outs["2"] == outs["1000"]                 # batching never changes the output
    expected = small_truecaser.predict(lines)
    assert outs["1"] == ("\r\n".join(expected[:3]) + "\r\n" + "\n".join(expected[3:]) + "\n").encode()
    r = textqa("truecase", "--model", model, "--tokenized", "--baseline", "--batch-size", "2", stdin=data)
    base = small_truecaser.baseline_.predict(lines)
    assert r.returncode == 0 and r.stdout == ("\r\n".join(base[:3]) + "\r\n" + "\n".join(base[3:]) + "\n").encode()
    assert base != expected                                        # the two decoders do differ on these lines


def test_truecase_without_phrases_is_the_trigram_decoder(truecaser_copy, truecaser_artifact, dev_sentences):
    lines = [s.lower() for s in dev_sentences[:1500]]
    data = ("\n".join(lines) + "\n").encode()
    r = textqa("truecase", "--model", str(truecaser_artifact / "truecaser"), "--tokenized", "--no-phrases", stdin=data)
    assert r.returncode == 0, r.stderr
    with_phrases = truecaser_copy.predict(lines)
    truecaser_copy.set_params(phrase_weight=0.0)
    trigram = truecaser_copy.predict(lines)
    assert r.stdout.decode() == "\n".join(trigram) + "\n" and trigram != with_phrases


def test_truecase_decoder_trigram_is_the_papers_decoder(truecaser_copy, truecaser_artifact, dev_sentences):
    """--decoder trigram: no phrase scores and unseen compounds capitalised at the first letter only."""
    from textqa.models.truecaser.compounds import SEPARATORS
    lines = [s.lower() for s in dev_sentences[:3000] if SEPARATORS.search(s) and "-" in s][:400]
    data = ("\n".join(lines) + "\n").encode()
    model = str(truecaser_artifact / "truecaser")
    r = textqa("truecase", "--model", model, "--tokenized", "--decoder", "trigram", stdin=data)
    assert r.returncode == 0, r.stderr
    default = truecaser_copy.predict(lines)
    truecaser_copy.set_params(phrase_weight=0.0, compound_casing=False)
    trigram = truecaser_copy.predict(lines)
    assert r.stdout.decode() == "\n".join(trigram) + "\n" and trigram != default
    truecaser_copy.set_params(phrase_weight=0.5)
    r = textqa("truecase", "--model", model, "--tokenized", "--no-compounds", stdin=data)
    assert r.stdout.decode() == "\n".join(truecaser_copy.predict(lines)) + "\n"
    assert textqa("truecase", "--decoder", "bigram", stdin=b"x\n").returncode == 2


def test_trainer_docs_are_the_modules_docstrings(tmp_path, monkeypatch):
    """``--help``'s trainer descriptions, read from the tokens that open each module, are what
    ``ast.get_docstring`` reads from the whole module: the real trainers, and modules opening with
    comments, a raw string, two adjacent strings or no docstring at all."""
    import ast
    import importlib.util

    from textqa.cli.train import module_doc
    from textqa.registry import MODELS
    for m in MODELS:
        source = Path(importlib.util.find_spec(m.trainer).origin).read_text(encoding="utf-8")
        assert module_doc(m.trainer) == ast.get_docstring(ast.parse(source)) and len(module_doc(m.trainer)) > 100
    sources = {"commented": '#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\n"""Trains X.\n\n    Indented.\n"""\nx = 1\n',
               "raw": 'r"""A \\d raw one."""\n', "adjacent": '"Two " "parts."\n', "none": 'x = "not a docstring"\n'}
    monkeypatch.syspath_prepend(str(tmp_path))
    for name, source in sources.items():
        (tmp_path / f"doc_{name}.py").write_text(source, encoding="utf-8")
        assert module_doc(f"doc_{name}") == (ast.get_docstring(ast.parse(source)) or ""), name
    assert module_doc("doc_raw") == "A \\d raw one." and module_doc("doc_none") == ""


def test_truecase_answers_each_line_of_an_interactive_pipe_at_once(truecaser_artifact):
    """Lines are decoded in the batches that are available: a line typed into a pipe is answered
    before the next one comes (and before stdin closes); a file goes in large batches, the same bytes."""
    import select
    proc = subprocess.Popen([sys.executable, "-m", "textqa.cli", "truecase", "--tokenized", "--model",
                             str(truecaser_artifact / "truecaser")], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line, expected in ((b"paris is a city .\n", b"Paris is a city .\n"),
                               (b"he lives in paris .\n", b"He lives in Paris .\n")):
            proc.stdin.write(line)
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            assert ready, "no answer to a line while stdin stays open"
            assert proc.stdout.readline() == expected
    finally:
        proc.stdin.close()
        proc.wait(60)
    assert proc.returncode == 0
