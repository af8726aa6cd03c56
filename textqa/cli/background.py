"""``textqa serve --train-missing``: serve at once, train the missing default artifacts behind it.

The models whose artifact is missing (or in a format this textqa no longer loads) are trained one
at a time, cheapest first (the registry's ``train_minutes``), each by ``textqa train NAME`` in a
process of its own whose log goes to ``<artifacts>/.logs/NAME.train.log``.  Then, when QA's default
collection lacks its Wikipedia index, the job ``wikipedia`` builds it (``textqa qa index wikipedia
--no-analyse``), and the job ``wikipedia-analysis`` analyses it (``textqa qa analyse wikipedia``, the
longest step, resumed where it stopped when a run was interrupted): last, so that the four models
answer as soon as they would without them, QA first from the news pool, then from Wikipedia with
its sentences analysed when asked, then from the stored analysis; last, the job ``qa-reader``
retrains QA over Wikipedia and the pool with its answer reader (``/v1/models`` says which stage and
which reader answers).  The state of each
(queued, training with its step, estimated percent and ETA, failed, no data) is written to the
state file the service's workers read (:mod:`textqa.runtime.training_state`); a model goes live in
each worker on the first request or readiness check after its artifact is written.  The terminal
shows one progress line per model.

Ctrl-C (or SIGTERM) stops the training and the server: ``textqa train`` removes its temporary
folder, so no partial artifact is left, and its caches (the tokenized text, spaCy's analyses) are
kept for the next run.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from textqa.registry import MODELS, ModelEntry
from textqa.runtime import training_state
from textqa.runtime.files import replaced_whole
from textqa.runtime.paths import cache_dir
from textqa.runtime.training_state import ANALYSIS_JOB, READER_JOB, WIKIPEDIA_JOB

_STEP = re.compile(r"^\[\s*\w[\w ]*?\s+[\d.]+s\]\s*(.+)$")      # "[truecaser   12.3s] counting n-grams"
_BAR = re.compile(r"^([^:|]{1,60}):\s+(\d{1,3})%\|")        # tqdm: "tokenizing:  45%|####  | ..."
HISTORY = "train-seconds.json"


@dataclass(frozen=True)
class Job:
    """One background step: ``name`` (the state file's key), ``train_minutes`` (the estimate before a
    run on this machine is remembered), the ``textqa`` arguments that run it, and the folder its
    artifact is written in (where a stopped run's temporary folder is looked for)."""
    name: str
    train_minutes: float
    args: tuple
    folder: str = ""


def model_job(m: ModelEntry, *extra: str) -> Job:
    return Job(m.name, m.train_minutes, ("train", m.name, *extra))


def to_train(root: Path, entries=MODELS) -> tuple[list[Job], dict[str, str]]:
    """(the jobs to run, the models cheapest first and the Wikipedia index last; {model: the training
    data it lacks}) under ``root``."""
    from textqa.api import outdated_format  # deferred: loads orjson, numpy
    from textqa.models.artifact import MANIFEST, ArtifactError
    from textqa.models.qa.analysis import is_analysed
    from textqa.models.qa.passages import WIKIPEDIA, collections_root, has_collection
    from textqa.registry import resolve
    from textqa.runtime.paths import WIKIPEDIA_TEXT

    def analysed(folder: Path) -> bool:
        try:
            return is_analysed(folder)
        except ArtifactError:
            return True             # no readable collection: nothing to analyse (its index job rebuilds it)
    todo, no_data, qa_there = [], {}, False
    for m in entries:
        target = root / m.name
        if (target / MANIFEST).exists() and outdated_format(m.name, target) is None:
            qa_there |= m.name == "qa"
            continue
        data = getattr(resolve(m.trainer), "DEFAULT_DATA", [])
        missing = [str(f) for f in data if not Path(f).is_file()]
        if missing:
            no_data[m.name] = "training data not present: " + ", ".join(missing)
        else:
            todo.append(m)
    qa_queued = any(m.name == "qa" for m in todo)
    index_wikipedia = ((qa_there or qa_queued) and not has_collection(collections_root(root), WIKIPEDIA, current=True)
                       and all(p.is_file() for p in WIKIPEDIA_TEXT))
    jobs = [model_job(m, *(("--wikipedia", "skip") if m.name == "qa" and index_wikipedia else ()))
            for m in sorted(todo, key=lambda m: m.train_minutes)]
    if index_wikipedia:
        jobs.append(Job(WIKIPEDIA_JOB, 1.5, ("qa", "index", WIKIPEDIA, "--no-analyse"), "collections"))
    if index_wikipedia or ((qa_there or qa_queued) and not analysed(collections_root(root) / WIKIPEDIA)):
        jobs.append(Job(ANALYSIS_JOB, 55.0, ("qa", "analyse", WIKIPEDIA), "collections"))
    if qa_queued:               # the first QA model answers at once; its answer reader follows, last
        jobs.append(Job(READER_JOB, 35.0, ("train", "qa", *READER_TRAINING), ""))
    return jobs, no_data


#: ``textqa train qa`` with the answer reader: over Wikipedia and the pool, the reader trained on the
#: open-domain questions (the background job that follows the analysis)
READER_TRAINING = ("--collection", "default", "--reader-questions", "open", "--wikipedia", "skip")


def _history() -> dict:
    try:
        return json.loads((cache_dir() / HISTORY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _remember(name: str, seconds: float) -> None:
    path = cache_dir() / HISTORY
    path.parent.mkdir(parents=True, exist_ok=True)
    history = _history()
    history[name] = round(seconds, 1)
    with replaced_whole(path) as tmp:
        tmp.write_text(json.dumps(history, sort_keys=True), encoding="utf-8")


class BackgroundTraining:
    """Train ``entries`` one after another under ``root``, keeping ``state_path`` current."""

    def __init__(self, root: Path, entries: list[Job], no_data: dict[str, str], state_path: Path,
                 python: str = sys.executable, show=True):
        self.root, self.entries, self.state_path, self.python = root, entries, state_path, python
        history = _history()
        self.expected = {m.name: float(history.get(m.name) or 60 * m.train_minutes) for m in entries}
        self.models = {m.name: {"state": "queued", "percent": 0.0, "expected_seconds": self.expected[m.name]}
                       for m in entries}
        self.models.update({name: {"state": "no_data", "error": why} for name, why in no_data.items()})
        self._refresh_queue()
        self.proc: subprocess.Popen | None = None
        self.current: Job | None = None            # the job self.proc runs
        self.stopped = threading.Event()
        self.show = show
        self.failed: list[str] = []
        self._lock = threading.Lock()
        self._write()

    def _eta_from(self, name: str) -> float:
        """Seconds until the queued model ``name`` is ready: what the trainings before it have left,
        and its own expected duration."""
        ahead = 0.0
        for m in self.entries:
            if m.name == name:
                break
            e = self.models.get(m.name, {})
            if e.get("state") == "training":
                ahead += e.get("eta_seconds") or 0.0
            elif e.get("state") == "queued":
                ahead += self.expected[m.name]
        return round(ahead + self.expected[name], 1)

    def _write(self) -> None:
        with self._lock:
            training_state.write(self.state_path, self.models)

    def _bar(self, name: str):
        if not self.show:
            return None
        from tqdm import tqdm  # deferred: loads tqdm
        return tqdm(total=100, desc=f"{name:9s}", unit="queued", file=sys.stderr, leave=True, dynamic_ncols=True,
                    bar_format="{desc} |{bar:20}| {n:3.0f}%  {unit}")

    @staticmethod
    def _say(bar, percent: float, text: str) -> None:
        if bar is not None:
            bar.n, bar.unit = percent, text
            bar.refresh()

    def run(self) -> int:
        """Train every model; 0 when all succeeded, 1 when any failed, 130 when stopped."""
        for m in self.entries:
            if self.stopped.is_set():
                return 130
            status = self._train(m)
            if status == 130 or self.stopped.is_set():
                return 130
            if status != 0:
                self.failed.append(m.name)
        return 1 if self.failed else 0

    def _train(self, m: Job) -> int:
        name, started = m.name, time.monotonic()
        logs = self.root / ".logs"
        logs.mkdir(parents=True, exist_ok=True)
        log_path = logs / f"{name}.train.log"
        entry = self.models[name]
        entry.update(state="training", step="starting", percent=0.0)
        self._write()
        bar = self._bar(name)
        cmd = [self.python, "-m", "textqa.cli", *m.args, "--artifacts", str(self.root)]
        step = ["starting"]
        done = threading.Event()

        def tick():                             # the estimate moves on while the training prints nothing
            while not done.wait(2.0):
                self._progress(name, started, step[0], bar)
        ticker = threading.Thread(target=tick, daemon=True)
        with open(log_path, "wb") as log:
            self.proc, self.current = subprocess.Popen(cmd, stdout=log, stderr=subprocess.PIPE), m
            ticker.start()
            buf = b""
            while True:
                chunk = self.proc.stderr.read1(4096)
                if not chunk:
                    break
                log.write(chunk)
                buf += chunk
                *parts, buf = re.split(rb"[\r\n]", buf)
                for raw in parts:
                    line = raw.decode("utf-8", errors="replace").strip()
                    m_step, m_bar = _STEP.match(line), _BAR.match(line)
                    if m_step:
                        step[0] = m_step.group(1)[:120]
                    elif m_bar:
                        step[0] = f"{m_bar.group(1).strip()} {m_bar.group(2)}%"
                self._progress(name, started, step[0], bar)
            status = self.proc.wait()
        done.set()
        ticker.join()
        self.proc = None
        if status == 0:
            _remember(name, time.monotonic() - started)
            self.models.pop(name)
            self._say(bar, 100, f"ready in {(time.monotonic() - started) / 60:.1f} min")
        elif status in (130, -2, -15) or self.stopped.is_set():
            entry.update(state="queued", step="stopped")
            status = 130
        else:
            tail = log_path.read_bytes()[-2000:].decode("utf-8", errors="replace").strip().splitlines()[-3:]
            entry.update(state="failed", error=f"textqa {' '.join(m.args)} exited with status {status}: "
                         + " | ".join(tail) + f" (log: {log_path})", percent=None, eta_seconds=None)
            self._say(bar, bar.n if bar is not None else 0, f"FAILED: see {log_path}")
        if bar is not None:
            bar.close()
        self._refresh_queue()
        self._write()
        return status

    def _progress(self, name: str, started: float, step: str, bar) -> None:
        """The training's estimated percent and ETA from its elapsed time, written to the state file."""
        with self._lock:
            entry = self.models.get(name)
            if entry is None or entry.get("state") != "training":
                return
            elapsed = time.monotonic() - started
            entry.update(step=step, percent=round(min(99.0, 100 * elapsed / self.expected[name]), 1),
                         eta_seconds=max(round(self.expected[name] - elapsed, 1), 0.0))
            self._refresh_queue()
        self._write()
        left = entry["eta_seconds"]
        self._say(bar, entry["percent"], f"{step[:60]} ({f'about {left / 60:.0f} min' if left >= 90 else 'under 2 min'} left)")

    def _refresh_queue(self) -> None:
        for m in self.entries:
            e = self.models.get(m.name)
            if e and e.get("state") == "queued":
                e["eta_seconds"] = self._eta_from(m.name)

    def stop(self) -> None:
        """Stop: the running training is interrupted (it removes its temporary folders) and waited
        for, a minute at most before it is killed; then whatever temporary folder of it is still
        under the artifacts root (its own clean-up cut short) is removed, so no partial artifact is
        left whichever way it ended."""
        self.stopped.set()
        proc, job = self.proc, self.current
        if proc is None or job is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        folder = self.root / job.folder
        for left in (*folder.glob(f"{job.name}-work-*"), *folder.glob(f".{job.name}.tmp-{proc.pid}-*")):
            shutil.rmtree(left, ignore_errors=True)
