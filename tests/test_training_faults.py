"""Faults during ``textqa train``: SIGKILL mid-write leaves the served artifact unchanged and loadable
and its temporary folder is removed by the next training; SIGTERM stops the joblib/loky worker
processes at once (not after loky's 300 s idle timeout) and leaves the artifact unchanged."""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

import textqa
from textqa.models.artifact import recover_interrupted

ROOT = Path(__file__).resolve().parents[1]


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(folder).as_posix().encode() + p.read_bytes())
    return h.hexdigest()


def _train(root: Path, data: Path, jobs: int = 2, folds: int = 0, tmp: Path | None = None):
    env = {**os.environ, "TMPDIR": str(tmp)} if tmp else None
    return subprocess.Popen([sys.executable, "-m", "textqa.cli", "train", "icd9", "--data", str(data),
                             "--folds", str(folds), "--jobs", str(jobs), "--artifacts", str(root)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)


def _temp_folders(root: Path) -> list[Path]:
    return sorted(root.glob(".icd9.tmp-*"))


def test_sigkill_while_writing_keeps_the_artifact_and_the_next_training_cleans_up(icd9_artifact, icd9_split, tmp_path):
    root = tmp_path / "artifacts"
    shutil.copytree(icd9_artifact / "icd9", root / "icd9")
    before = _digest(root / "icd9")
    caught = None
    tmp = tmp_path / "tmp"                  # SIGKILL leaves the report's plot folder: here, not in /tmp
    tmp.mkdir()
    for attempt in range(3):                # the write phase is short: catch it, retrying if missed
        proc = _train(root, icd9_split / "train.jsonl", jobs=1, tmp=tmp)
        while proc.poll() is None and not _temp_folders(root):
            time.sleep(0.002)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            caught = _temp_folders(root)
            if caught:
                break
        else:
            proc.wait()
            before = _digest(root / "icd9")     # it finished first: a new, complete artifact
    assert caught, "never caught the training while it wrote its artifact"
    assert proc.returncode == -signal.SIGKILL
    assert _digest(root / "icd9") == before                      # the served artifact is unchanged ...
    coder = textqa.load(root / "icd9")                           # ... and loads
    assert coder.code(["Cough for three days."])[0]["codes"]
    # the next training removes the dead writer's temporary folder and replaces the artifact
    again = _train(root, icd9_split / "train.jsonl", jobs=1)
    _, err = again.communicate(timeout=600)
    assert again.returncode == 0, err.decode()[-2000:]
    assert _temp_folders(root) == [] and not (root / "icd9.previous").exists()
    assert _digest(root / "icd9") != before and textqa.load(root / "icd9")


def test_recovery_restores_a_swap_cut_between_its_renames(icd9_artifact, tmp_path):
    """SIGKILL between 'dest -> dest.previous' and 'tmp -> dest' leaves no dest: put the old one back."""
    root = tmp_path / "artifacts"
    shutil.copytree(icd9_artifact / "icd9", root / "icd9.previous")
    (root / f".icd9.tmp-{2 ** 22 + 7}-abc").mkdir()               # a writer that is not running
    live = root / f".icd9.tmp-{os.getpid()}-xyz"                   # one that is (this process): kept
    live.mkdir()
    done = recover_interrupted(root / "icd9")
    assert (root / "icd9" / "manifest.json").exists() and not (root / "icd9.previous").exists()
    assert live.exists() and not (root / f".icd9.tmp-{2 ** 22 + 7}-abc").exists() and len(done) == 2
    textqa.load(root / "icd9")


def test_sigterm_stops_the_worker_processes_and_keeps_the_artifact(icd9_artifact, icd9_split, tmp_path):
    root = tmp_path / "artifacts"
    shutil.copytree(icd9_artifact / "icd9", root / "icd9")
    before = _digest(root / "icd9")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = _train(root, icd9_split / "train.jsonl", jobs=2, folds=2, tmp=tmp)
    me = psutil.Process(proc.pid)
    deadline = time.time() + 120
    workers = []
    while time.time() < deadline and proc.poll() is None and not workers:
        workers = [c for c in me.children(recursive=True) if "loky" in " ".join(c.cmdline()) or
                   "joblib" in " ".join(c.cmdline())]
        time.sleep(0.05)
    assert workers, "training never started joblib workers"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()[-2000:]
    assert "interrupted; the previous artifact is unchanged" in err.decode()
    gone, alive = psutil.wait_procs(workers, timeout=15)
    assert not alive, f"worker processes left running: {[p.pid for p in alive]}"
    assert _digest(root / "icd9") == before and _temp_folders(root) == []
    assert list(tmp.glob("icd9-report-*")) == [], "the report's plot folder was left behind"
