"""``textqa batch`` on real Dask clusters: byte-identical to the single-process commands, resumable,
and unaffected by a worker killed mid-run."""
import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"


def textqa(*args, stdin=None, check=True):
    r = subprocess.run([sys.executable, "-m", "textqa.cli", *map(str, args)], cwd=ROOT, input=stdin,
                       capture_output=True, timeout=600)
    if check:
        assert r.returncode == 0, r.stderr.decode()[-3000:]
    return r


@pytest.fixture(scope="module")
def tokenized_lines(tmp_path_factory) -> Path:
    """2,000 real tokenized lowercase lines (the bundled truecaser validation input)."""
    path = tmp_path_factory.mktemp("batch") / "lines.txt"
    with gzip.open(DATA / "truecase" / "val_input.txt.gz", "rt", encoding="utf-8") as f:
        path.write_text("".join(line for _, line in zip(range(2000), f)), encoding="utf-8")
    return path


@pytest.mark.parametrize("options", [[], ["--decoder", "trigram", "--no-compounds"]])
def test_truecase_is_byte_identical(truecaser_artifact, tokenized_lines, tmp_path, options):
    """The same bytes as ``textqa truecase`` with the same options; the options reach the model
    (the bytes are those of ``textqa.load`` with them, in process)."""
    import textqa as api
    model = truecaser_artifact / "truecaser"
    single = textqa("truecase", "--tokenized", "--model", model, *options, stdin=tokenized_lines.read_bytes()).stdout
    out = tmp_path / "out.txt"
    r = textqa("batch", "truecase", tokenized_lines, out, "--tokenized", "--model", model,
               "--partition-size", 300, "--workers", 2, *options)
    assert out.read_bytes() == single and "7 partition(s) (0 reused" in r.stderr.decode()
    assert not (tmp_path / "out.txt.parts").exists()
    load_options = {"decoder": "trigram", "compounds": False} if options else {}
    lines = tokenized_lines.read_text(encoding="utf-8").splitlines()
    in_process = api.load(model, **load_options).truecase_tokenized(lines[:200])
    assert single.decode("utf-8").splitlines()[:200] == in_process


def test_truecase_hostile_bytes_are_byte_identical(truecaser_artifact, tmp_path):
    """Random bytes (not UTF-8), lone CRs, form feeds and U+2028 inside lines: lines are what the
    single-process command reads (split at newlines only), bad bytes pass through unchanged."""
    import random
    rng = random.Random(11)
    data = rng.randbytes(3000) + "new york\rparis\x0clondon\u2028berlin . \r\nthe end\n".encode() * 20
    src = tmp_path / "hostile.bin"
    src.write_bytes(data)
    model = truecaser_artifact / "truecaser"
    single = textqa("truecase", "--model", model, stdin=data).stdout
    out = tmp_path / "out"
    r = textqa("batch", "truecase", src, out, "--model", model, "--partition-size", 7, "--workers", 1)
    assert out.read_bytes() == single and b"Traceback" not in r.stderr
    assert single.lower() != single and single.count(b"\n") == data.count(b"\n")     # every line, cased


def test_resume_reuses_finished_partitions(truecaser_artifact, tokenized_lines, tmp_path):
    model = truecaser_artifact / "truecaser"
    out = tmp_path / "out.txt"
    args = ["batch", "truecase", tokenized_lines, out, "--tokenized", "--model", model, "--partition-size", 500,
            "--workers", 1]
    proc = subprocess.Popen([sys.executable, "-m", "textqa.cli", *map(str, args)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    parts = tmp_path / "out.txt.parts"
    deadline = time.time() + 300
    while time.time() < deadline and len(list(parts.glob("[0-9]*.out"))) < 2 and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)          # the client and its LocalCluster, mid-run
    proc.wait()
    done = len(list(parts.glob("[0-9]*.out")))
    assert 1 <= done < 4 and not out.exists()
    r = textqa(*args)
    assert f"({done} reused from an earlier run)" in r.stderr.decode()
    single = textqa("truecase", "--tokenized", "--model", model, stdin=tokenized_lines.read_bytes()).stdout
    assert out.read_bytes() == single


def test_icd9_is_byte_identical_and_bad_input_names_file_and_line(icd9_artifact, icd9_split, tmp_path):
    model = icd9_artifact / "icd9"
    src = icd9_split / "heldout.jsonl"
    gz = tmp_path / "records.jsonl.gz"
    gz.write_bytes(gzip.compress(src.read_bytes()))
    single = textqa("icd9", "code", "--jsonl", src, "--all-scores", "--classifier", "brr", "--model", model).stdout
    out = tmp_path / "codes.jsonl"
    textqa("batch", "icd9", gz, out, "--all-scores", "--classifier", "brr", "--model", model,
           "--partition-size", 50, "--workers", 2)
    assert out.read_bytes() == single and len(single.splitlines()) == 196
    lines = src.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines[:120] + [json.dumps(first)] + lines[120:]) + "\n", encoding="utf-8")
    r = textqa("batch", "icd9", bad, tmp_path / "bad.out", "--model", model, "--partition-size", 50,
               "--workers", 2, check=False)
    single = textqa("icd9", "code", "--jsonl", bad, "--model", model, check=False)
    assert r.returncode == single.returncode == 2
    assert r.stderr.decode().strip().splitlines()[-1] == single.stderr.decode().strip() == \
        f"textqa: error: {bad}:121: id {first['id']!r} given twice"
    assert not (tmp_path / "bad.out").exists() and not (tmp_path / "bad.out.parts").exists()


def test_qa_is_byte_identical(qa_artifact, tmp_path):
    """Questions as plain lines and as JSONL, in partitions of 2 over 2 workers: the same bytes as
    'textqa qa answer' (which needs the clusters in a fixed order: a set's order varies by process)."""
    questions = ["Who wrote The Iron Lady?", "When was the Eiffel Tower built?",
                 json.dumps({"id": "q7", "question": "What is the capital of Mongolia?"}),
                 "Who invented the telephone?", "How tall is Mount Everest?"]
    src = tmp_path / "questions.txt"
    src.write_text("\n".join(questions) + "\n", encoding="utf-8")
    model = qa_artifact / "qa"
    single = textqa("qa", "answer", "--top-k", 3, "--model", model, stdin=src.read_bytes()).stdout
    out = tmp_path / "answers.jsonl"
    textqa("batch", "qa", src, out, "--top-k", 3, "--model", model, "--partition-size", 2, "--workers", 2)
    assert out.read_bytes() == single and [json.loads(l)["id"] for l in single.splitlines()] == \
        ["1", "2", "q7", "4", "5"]


@pytest.fixture(scope="module")
def mt_files(tmp_path_factory) -> tuple[Path, Path, Path]:
    """600 real WMT22 ja-en segments: one system's output, the reference, and another system's output
    for the same segments as a second (pseudo-)reference file, so that two files are read in lockstep."""
    by_seg: dict = {}
    with gzip.open(DATA / "mt" / "wmt22_toen_da_seg.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            pair, seg, system, _, ref, hyp, _ = line.rstrip("\n").split("\t")
            if pair == "ja-en":
                by_seg.setdefault(seg, {"ref": ref})[system] = hyp
    segs = [v for v in by_seg.values() if len(v) >= 3][:600]
    folder = tmp_path_factory.mktemp("mt")
    names = ("hyps.txt", "refs.txt", "pseudo.txt")
    for name, pick in zip(names, (lambda v: v[sorted(v)[0]], lambda v: v["ref"], lambda v: v[sorted(v)[1]])):
        (folder / name).write_text("".join(pick(v) + "\n" for v in segs), encoding="utf-8")
    return tuple(folder / n for n in names)


@pytest.mark.parametrize("extra", [["--details"], ["--corpus", "--details"]], ids=["lines", "corpus"])
def test_blanc_is_byte_identical(blanc_artifact, mt_files, tmp_path, extra):
    hyps, refs, pseudo = mt_files
    model = blanc_artifact / "blanc"
    single = textqa("blanc", "score", "--hyps", hyps, "--refs", refs, pseudo, "--model", model, *extra)
    out = tmp_path / "scores.txt"
    r = textqa("batch", "blanc", hyps, out, "--refs", refs, pseudo, "--model", model, "--partition-size", 70,
               "--workers", 2, *extra)
    assert out.read_bytes() == single.stdout and "9 partition(s)" in r.stderr.decode()
    assert len(single.stdout.splitlines()) == (1 if "--corpus" in extra else 600)
    assert r.stderr.decode().splitlines()[0] == single.stderr.decode().strip()      # the metric's signature


def test_blanc_bad_files_get_the_single_process_error(blanc_artifact, mt_files, tmp_path):
    """The checks of the whole files come first, in the command's order: line counts, then the first
    empty hypothesis, even when it is in a late partition."""
    hyps, refs, _ = mt_files
    model = blanc_artifact / "blanc"
    lines = hyps.read_text(encoding="utf-8").splitlines()
    short = tmp_path / "short.txt"
    short.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    gap = tmp_path / "gap.txt"
    gap.write_text("\n".join(lines[:520] + [" "] + lines[521:]) + "\n", encoding="utf-8")
    for bad in (short, gap):
        r = textqa("batch", "blanc", bad, tmp_path / "out", "--refs", refs, "--model", model,
                   "--partition-size", 50, "--workers", 2, check=False)
        single = textqa("blanc", "score", "--hyps", bad, "--refs", refs, "--model", model, check=False)
        assert r.returncode == single.returncode == 2
        assert r.stderr.decode().strip().splitlines()[-1] == single.stderr.decode().strip().splitlines()[-1]
    assert r.stderr.decode().strip().endswith(f"{gap}:521: empty hypothesis (use --allow-empty to score it 0)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gap.txt", "short.txt"]


def test_the_first_bad_partition_is_reported_whichever_finishes_first(qa_artifact, tmp_path):
    """Bad bytes in partitions 2 and 6 of 8, two workers: the error names the earlier one, as the
    single-process command (which reads the file in order) does, and leaves no output file and no
    partitions folder."""
    lines = [f"Who wrote book number {i}?".encode() for i in range(16)]
    lines[3] = b"Who wrote \xff?"
    lines[11] = b"Who sang \xfe?"
    src = tmp_path / "q.txt"
    src.write_bytes(b"\n".join(lines) + b"\n")
    model = qa_artifact / "qa"
    r = textqa("batch", "qa", src, tmp_path / "out", "--model", model, "--partition-size", 2, "--workers", 2,
               check=False)
    single = textqa("qa", "answer", "--model", model, stdin=src.read_bytes(), check=False)
    offset = len(b"\n".join(lines[:3])) + 1 + len(b"Who wrote ")
    assert r.returncode == 2 and r.stderr.decode().strip().splitlines()[-1].endswith(
        f"textqa: error: {src}:4: not valid UTF-8 (byte offset {offset})")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.txt"]
    assert single.stderr.decode().strip().endswith(f":4: not valid UTF-8 (byte offset {offset})")


@pytest.mark.parametrize("content", [b"", gzip.compress(b'{"id": "1", "text": "cough"}\n' * 200)[:60]],
                         ids=["empty", "truncated-gz"])
def test_icd9_unreadable_input_is_one_line_and_leaves_nothing(icd9_artifact, tmp_path, content):
    """The same one-line error as 'textqa icd9 code', no output file and no partitions folder."""
    src = tmp_path / "records.jsonl.gz"
    src.write_bytes(content if content else gzip.compress(b""))
    model = icd9_artifact / "icd9"
    r = textqa("batch", "icd9", src, tmp_path / "out", "--model", model, "--workers", 1, check=False)
    single = textqa("icd9", "code", "--jsonl", src, "--model", model, check=False)
    assert r.returncode == single.returncode == 2 and b"Traceback" not in r.stderr
    assert r.stderr.decode().strip().splitlines()[-1] == single.stderr.decode().strip()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.jsonl.gz"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_external_cluster_survives_a_killed_worker(truecaser_artifact, tokenized_lines, tmp_path):
    """`dask scheduler` + two `dask worker` processes on loopback; one worker is killed mid-run."""
    bindir = Path(sys.executable).parent
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = []

    def spawn(*cmd):
        log = open(tmp_path / f"dask-{len(logs)}.log", "wb")
        logs.append(log)
        return subprocess.Popen([str(bindir / "dask"), *cmd], stdout=log, stderr=subprocess.STDOUT,
                                cwd=ROOT, start_new_session=True)
    scheduler = spawn("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    workers = [spawn("worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard") for _ in range(2)]
    try:
        from distributed import Client
        with Client(address, timeout="60s") as c:
            c.wait_for_workers(2, timeout=120)
        model = truecaser_artifact / "truecaser"
        out = tmp_path / "out.txt"
        proc = subprocess.Popen([sys.executable, "-m", "textqa.cli", "batch", "truecase", str(tokenized_lines),
                                 str(out), "--tokenized", "--model", str(model), "--partition-size", "100",
                                 "--scheduler", address], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        parts = tmp_path / "out.txt.parts"
        deadline = time.time() + 300
        while time.time() < deadline and len(list(parts.glob("[0-9]*.out"))) < 3 and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "finished before a worker could be killed"
        os.killpg(workers[0].pid, signal.SIGKILL)             # the nanny and its worker process
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()[-3000:]
        single = textqa("truecase", "--tokenized", "--model", model, stdin=tokenized_lines.read_bytes()).stdout
        assert out.read_bytes() == single
    finally:
        for p in [*workers, scheduler]:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in [*workers, scheduler]:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        for log in logs:
            log.close()


def test_a_scheduler_without_workers_or_no_scheduler_is_a_one_line_error(truecaser_artifact, tmp_path):
    """Instead of waiting forever (tasks with no worker) or a traceback (nothing listening)."""
    src = tmp_path / "in.txt"
    src.write_text("new york .\n", encoding="utf-8")
    env = {**os.environ, "TEXTQA_DASK_TIMEOUT": "3"}
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"

    def batch():
        return subprocess.run([sys.executable, "-m", "textqa.cli", "batch", "truecase", str(src), str(tmp_path / "out"),
                               "--model", str(truecaser_artifact / "truecaser"), "--scheduler", address], cwd=ROOT,
                              capture_output=True, timeout=120, env=env)
    r = batch()
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    assert r.stderr.decode().strip().splitlines()[-1].startswith(f"textqa: error: cannot reach the Dask scheduler at {address}")
    scheduler = subprocess.Popen([str(Path(sys.executable).parent / "dask"), "scheduler", "--host", "127.0.0.1",
                                  "--port", str(port), "--no-dashboard"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        from distributed import Client
        Client(address, timeout="60s").close()            # the scheduler is up
        r = batch()
        assert r.returncode == 2 and r.stderr.decode().strip().splitlines()[-1] == (
            f"textqa: error: no Dask worker joined the scheduler at {address} within 3 s (start some: "
            "dask worker ADDRESS, with this project's venv)")
    finally:
        os.killpg(scheduler.pid, signal.SIGTERM)
        scheduler.wait(timeout=30)
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.parts").exists()


WORKER_MALLOC = """
import os
from textqa.runtime import dask_cluster
with dask_cluster.cluster("local", 1, "test") as client:
    print(list(client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values()))
"""


def test_local_workers_start_without_the_nannys_malloc_trim_threshold():
    """distributed's nanny sets MALLOC_TRIM_THRESHOLD_ before it starts a worker, which made every
    large numpy temporary a fresh mapping (bench/batch_worker.py: 790,000 page faults, a sixth slower);
    a local cluster of ``textqa batch`` leaves glibc's own setting (a fresh process: a forkserver keeps
    the environment it was started with)."""
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_TRIM_THRESHOLD_"}
    r = subprocess.run([sys.executable, "-c", WORKER_MALLOC], capture_output=True, text=True, env=env, timeout=240,
                       cwd=Path(__file__).resolve().parents[1])
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().splitlines()[-1] == "[None]"


WORKER_STATE = """
import json, os, sys
from textqa.cli import batch
from textqa.models.artifact import artifact_id, load_manifest
from textqa.runtime import dask_cluster
folder = sys.argv[1]
ahead = {batch.LOAD_AHEAD: json.dumps(["truecaser", folder, artifact_id(load_manifest(folder)), {}])}

def state():
    import dask
    from textqa.cli import batch
    return [len(batch._MODELS), os.environ.get("OPENBLAS_NUM_THREADS"), dask.config.get("distributed.worker.profile.enabled")]

with dask_cluster.cluster("local", 2, "test", preload=("textqa.cli.batch",), preload_env=ahead) as client:
    print(json.dumps(sorted(client.run(state).values())))
    print(batch.LOAD_AHEAD in os.environ, len(batch._MODELS))
"""


@pytest.mark.parametrize("profile", [None, "True"])
def test_local_workers_fork_with_the_model_loaded_and_run_quiet(truecaser_artifact, profile):
    """A local cluster's forkserver starts with the job's model to load ahead (and the nannies'
    one-BLAS-thread environment); both workers fork with the model already loaded, and the client
    keeps neither the model nor the variable.  The workers' profiler is off unless the user's Dask
    configuration sets it (``dask_cluster.LOCAL_QUIET``).  A fresh process: a forkserver started by
    an earlier test would be reused as it is."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DASK_", "OPENBLAS_"))}
    if profile:
        env["DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED"] = profile
    r = subprocess.run([sys.executable, "-c", WORKER_STATE, str(truecaser_artifact / "truecaser")],
                       capture_output=True, text=True, env=env, timeout=240, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    workers, client = r.stdout.strip().splitlines()[-2:]
    assert json.loads(workers) == [[1, "1", bool(profile)]] * 2
    assert client == "False 0"


def test_a_model_that_fails_to_load_ahead_says_so_and_leaves_the_workers_to_load_it(tmp_path, capsys):
    from textqa.cli import batch
    before = dict(batch._MODELS)
    batch._load_ahead(json.dumps(["truecaser", str(tmp_path / "none"), "id", {}]))
    assert batch._MODELS == before
    assert "not loaded ahead of the workers" in capsys.readouterr().err
