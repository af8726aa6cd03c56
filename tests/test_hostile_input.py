"""Hostile input to every command that reads user input: random bytes, random Unicode (lone
surrogates, combining marks, RTL, zero-width, very long tokens), empty and truncated files.

Each run must succeed (exit 0) or fail with exit 2 and a last stderr line ``textqa: error: ...``
naming the input; an exception escaping ``main`` (a traceback) fails the test.
"""
import io
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from textqa.cli import main
from textqa.runtime.paths import DATA_DIR

ODD = st.sampled_from(["\ud800", "\udc92", "e\u0301", "\u202e", "\u200b", "\ufeff", "\u05d0\u05d1", "\x00", "\r",
                       "\t", "\u2028", "x" * 100_000, "-LRB-", "{", "\"", "\\", "\n"])
TEXT = st.lists(st.one_of(st.text(max_size=20), ODD), max_size=12).map("".join)
DATA = st.one_of(st.binary(max_size=400), TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")))
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                          HealthCheck.too_slow])


def run(argv, stdin: bytes, capsysbinary, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict"))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    code = main(argv)
    err = capsysbinary.readouterr().err.decode("utf-8", "replace")
    assert code in (0, 2), (code, err)
    assert "Traceback" not in err
    if code == 2:
        last = err.strip().splitlines()[-1]
        assert last.startswith("textqa: error: "), err
    return code, err


@SETTINGS
@given(data=DATA)
def test_truecase(truecaser_artifact, capsysbinary, monkeypatch, data):
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8"))
    for extra in ([], ["--tokenized"]):
        out.seek(0)
        out.truncate()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        assert main(["truecase", "--model", str(truecaser_artifact / "truecaser"), *extra]) == 0
        sys.stdout.flush()
        got = out.getvalue()
        # everything passes through, only the case of letters may change
        assert got.decode("utf-8", "surrogateescape").lower() == data.decode("utf-8", "surrogateescape").lower()
    assert "Traceback" not in capsysbinary.readouterr().err.decode("utf-8", "replace")


@SETTINGS
@given(data=DATA)
def test_icd9_code(icd9_artifact, capsysbinary, monkeypatch, tmp_path, data):
    model = str(icd9_artifact / "icd9")
    run(["icd9", "code", "--model", model], data, capsysbinary, monkeypatch)
    f = tmp_path / "in.jsonl"
    f.write_bytes(data)
    code, err = run(["icd9", "code", "--model", model, "--jsonl", str(f)], b"", capsysbinary, monkeypatch)
    assert code == 0 or str(f) in err
    f.write_bytes(b'{"id": "1", "text": ' + data + b"}\n")
    run(["icd9", "code", "--model", model, "--jsonl", str(f)], b"", capsysbinary, monkeypatch)
    x = tmp_path / "in.xml"
    x.write_bytes(data)
    code, err = run(["icd9", "code", "--model", model, "--cmc-xml", str(x)], b"", capsysbinary, monkeypatch)
    assert code == 0 or str(x) in err


@SETTINGS
@given(hyp=DATA, ref=DATA)
def test_blanc_score(blanc_artifact, capsysbinary, monkeypatch, tmp_path, hyp, ref):
    r = tmp_path / "ref.txt"
    r.write_bytes(ref)
    for extra in ([], ["--allow-empty", "--details"], ["--corpus"]):
        run(["blanc", "score", "--model", str(blanc_artifact / "blanc"), "--refs", str(r), *extra], hyp,
            capsysbinary, monkeypatch)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=DATA)
def test_qa_answer(qa_artifact, capsysbinary, monkeypatch, tmp_path, data):
    run(["qa", "answer", "--model", str(qa_artifact / "qa")], data, capsysbinary, monkeypatch)
    docs = tmp_path / "docs.txt"
    docs.write_bytes(data)
    code, err = run(["qa", "index", "hostile", str(docs), "--artifacts", str(tmp_path / "root")], b"",
                    capsysbinary, monkeypatch)
    assert code == 0 or str(docs) in err


def _eval_commands(a, b):
    """(argv, the hostile files) for every eval scorer, hostile content in ``a`` and ``b``."""
    key = DATA_DIR / "eval" / "nugget" / "trec" / "trec14answers_other"
    mt_header = b"lang_pair\tseg_id\tsystem\tsource\treference\thypothesis\thuman_score\n"
    return [
        (["eval", "truecase", str(a), str(b)], {}),
        (["eval", "rank", "--qrels", str(a), "--run", str(b)], {}),
        (["eval", "agreement", str(a)], {}),
        (["eval", "cpa", "--task", "1", str(a), str(b)], {}),
        (["eval", "cpa", "--task", "2", str(a), str(b)], {}),
        (["eval", "cpa", "--task", "3", str(a), str(b), "--hierarchy", str(a)], {}),
        (["eval", "nuggets", "--key", str(a), "--responses", str(b)], {}),
        (["eval", "nuggets", "--key", str(key), "--responses", str(a), "--judgements", str(b)], {}),
        (["eval", "correlate", "--tsv", str(a), "--metrics", "sentbleu", "chrf"], {a: mt_header}),
        (["eval", "icd9", str(a), str(b)], {}),
    ]


@SETTINGS
@given(a=DATA, b=DATA, prefix=st.booleans())
def test_every_eval_scorer(capsysbinary, monkeypatch, tmp_path, a, b, prefix):
    fa, fb = tmp_path / "a.txt", tmp_path / "b.txt"
    for argv, headers in _eval_commands(fa, fb):
        fa.write_bytes((headers.get(fa, b"") if prefix else b"") + a)
        fb.write_bytes(b)
        run(argv, b"", capsysbinary, monkeypatch)


@SETTINGS
@given(a=DATA, b=DATA)
def test_aqwv_folders(capsysbinary, monkeypatch, tmp_path, a, b):
    ref, sysd = tmp_path / "ref", tmp_path / "sys"
    ref.mkdir(exist_ok=True)
    sysd.mkdir(exist_ok=True)
    (ref / "q1.tsv").write_bytes(a)
    (sysd / "q1.tsv").write_bytes(b)
    run(["eval", "aqwv", "--ref", str(ref), "--sys", str(sysd)], b"", capsysbinary, monkeypatch)


@pytest.mark.parametrize("cut", [1, 7, 100, 1001])
def test_truncated_real_files(capsysbinary, monkeypatch, tmp_path, cut):
    """Real data files cut mid-line (and mid-character): an error naming the file, or a result."""
    import gzip
    rank = DATA_DIR / "eval" / "rank" / "trec9_chinese_clir"
    mt = gzip.open(DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz").read()
    cases = [
        (["eval", "rank", "--qrels", "{f}", "--run", str(rank / "search_output_trec.txt")], (rank / "ref_out.txt").read_bytes()),
        (["eval", "rank", "--qrels", str(rank / "ref_out.txt"), "--run", "{f}"], (rank / "search_output_trec.txt").read_bytes()),
        (["eval", "correlate", "--tsv", "{f}", "--metrics", "sentbleu"], mt),
        (["eval", "agreement", "{f}"], (DATA_DIR / "eval" / "agreement" / "duc2006_D0631_peer_scus.tsv").read_bytes()),
    ]
    for argv, data in cases:
        f = tmp_path / "cut.txt"
        f.write_bytes(data[:cut] + "é".encode()[:1])
        run([a.replace("{f}", str(f)) for a in argv], b"", capsysbinary, monkeypatch)


@pytest.fixture(scope="module")
def dask_address():
    """One in-process LocalCluster (a worker thread) for every hostile batch run: starting a cluster per
    example would take seconds; the workers' model cache is then shared across the examples."""
    from distributed import LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def run_out(argv, stdin: bytes, capsysbinary, monkeypatch) -> tuple[int, str, bytes]:
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict"))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8"))
    code = main(argv)
    sys.stdout.flush()
    err = capsysbinary.readouterr().err.decode("utf-8", "replace")
    assert code in (0, 2) and "Traceback" not in err, (code, err)
    return code, (err.strip().splitlines() or [""])[-1], out.getvalue()


BATCH = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                         HealthCheck.too_slow])


@BATCH
@given(data=DATA, kind=st.sampled_from(["truecase", "icd9", "blanc", "qa"]), size=st.integers(1, 4))
def test_batch_agrees_with_the_single_process_command(truecaser_artifact, icd9_artifact, blanc_artifact,
                                                      qa_artifact, dask_address, capsysbinary, monkeypatch,
                                                      tmp_path, data, kind, size):
    """Differential: on any bytes, in partitions of 1-4 lines, 'textqa batch' writes what the
    single-process command writes, or fails with its error (the same last line, the input named the
    same way), and leaves no output and no partitions behind when it fails."""
    src, out = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_bytes(data)
    for p in (out, tmp_path / "out.txt.parts"):
        assert not p.exists()
    model = {"truecase": truecaser_artifact / "truecaser", "icd9": icd9_artifact / "icd9",
             "blanc": blanc_artifact / "blanc", "qa": qa_artifact / "qa"}[kind]
    extra = {"truecase": [], "icd9": [], "qa": [], "blanc": ["--refs", str(src), "--details"]}[kind]
    single_argv = {"truecase": ["truecase"], "icd9": ["icd9", "code", "--jsonl", str(src)],
                   "blanc": ["blanc", "score", "--hyps", str(src)], "qa": ["qa", "answer"]}[kind]
    s_code, s_err, s_out = run_out([*single_argv, "--model", str(model), *extra], data, capsysbinary, monkeypatch)
    b_code, b_err, _ = run_out(["batch", kind, str(src), str(out), "--model", str(model), "--scheduler", dask_address,
                                "--partition-size", str(size), *extra], b"", capsysbinary, monkeypatch)
    assert b_code == s_code, (s_err, b_err)
    if b_code == 0:
        assert out.read_bytes() == s_out
        out.unlink()
    else:
        assert b_err.replace(str(src), "<stdin>") == s_err.replace(str(src), "<stdin>")
        assert not out.exists()
    assert not (tmp_path / "out.txt.parts").exists()
