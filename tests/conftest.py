"""Shared fixtures: models trained on small slices of the bundled real data, and test isolation.

Isolation: every test (and every session fixture) sees ``TEXTQA_ARTIFACTS`` and ``TEXTQA_CACHE``
pointing at temporary folders, so nothing a test runs, in process or as a subprocess, reads or
writes the repository's ``artifacts/`` or ``.cache/``.  Session fixtures are read-only: a test that
changes a model or trains into an artifacts root works on its own copy (``copy_root``,
``truecaser_copy``).

Parallel runs (``make test`` runs two pytest-xdist workers, one per core, each taking whole test
files): the trained artifacts roots below are built once per run, by the first worker that needs
one, and shared (``_shared_root``); the other worker waits for it.  Test files known to be slow are
handed out first, so that the two workers finish together.
"""
from __future__ import annotations

import fcntl
import itertools
import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textqa.runtime.paths import DATA_DIR, PUNKT_DIR  # noqa: E402

N_PARAGRAPHS = 4000

# Hypothesis: a fixed, derandomized profile under CI (the same examples every run); locally the
# default profile explores new examples.  Select with HYPOTHESIS_PROFILE=ci|dev.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
hypothesis_settings.register_profile("dev", deadline=None)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session", autouse=True)
def _session_isolation(tmp_path_factory):
    """Session fixtures train with the cache and the default artifacts root in temporary folders.
    Under pytest-xdist the workers share one cache folder, as concurrent trainings on one machine
    share ``.cache/`` (its writers are safe for that: each writes a file of its own and renames it
    into place), so a spaCy analysis or a tokenization one worker did is not redone by the other."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        cache = tmp_path_factory.getbasetemp().parent / "shared-textqa-cache"
        cache.mkdir(exist_ok=True)
    else:
        cache = tmp_path_factory.mktemp("textqa-cache")
    saved = {k: os.environ.get(k) for k in ("TEXTQA_ARTIFACTS", "TEXTQA_CACHE")}
    os.environ["TEXTQA_ARTIFACTS"] = str(tmp_path_factory.mktemp("textqa-default-artifacts"))
    os.environ["TEXTQA_CACHE"] = str(cache)
    yield cache
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(autouse=True)
def _test_isolation(_session_isolation, tmp_path_factory, monkeypatch):
    """Each test: an empty default artifacts root of its own; the session's temporary cache."""
    monkeypatch.setenv("TEXTQA_ARTIFACTS", str(tmp_path_factory.mktemp("artifacts-default")))
    monkeypatch.setenv("TEXTQA_CACHE", str(_session_isolation))


def _shared_root(request, tmp_path_factory, name: str, build) -> Path:
    """``build(folder)`` once per test run, its folder registered read-only (``read_only_root``).

    In one process that is a new temporary folder.  Under pytest-xdist the workers share the run's
    temporary folder: the first worker to get the lock builds into ``shared-NAME`` and marks it
    done; a worker that finds it done uses it as it is.  A build that fails leaves no mark, so the
    next worker builds again (into an emptied folder) and fails the same way, with its own error."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        root = tmp_path_factory.mktemp(name)
        build(root)
        return read_only_root(request, root)
    base = tmp_path_factory.getbasetemp().parent
    root, done = base / f"shared-{name}", base / f"shared-{name}.done"
    with open(base / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                shutil.rmtree(root, ignore_errors=True)
                root.mkdir()
                build(root)
                done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return read_only_root(request, root)


def _digest(root: Path) -> dict:
    import hashlib
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def read_only_root(request, root: Path) -> Path:
    """Register ``root`` (a session fixture's artifacts) as read-only: at the end of the session its
    files must be exactly as the fixture made them, or the suite errors naming what changed."""
    before = _digest(root)

    def check():
        after = _digest(root)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        assert not changed, f"a test changed the session fixture {root}: {changed[:5]} (use copy_root)"
    request.addfinalizer(check)
    return root


def drawn_png(path: Path) -> bool:
    """A PNG file with something drawn on it (not blank): what a plot written by training is."""
    import matplotlib.image as mpimg
    if Path(path).read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    img = mpimg.imread(path)
    return img.shape[0] > 200 and float(img[..., :3].std()) > 0.02


@pytest.fixture
def is_drawn_png():
    return drawn_png


@pytest.fixture
def assert_plots():
    """``assert_plots(artifact_folder, names)``: each is a drawn PNG, listed (checksummed) in the manifest."""
    import json

    def check(folder: Path, names) -> None:
        files = json.loads((folder / "manifest.json").read_text())["files"]
        for name in names:
            assert name in files, f"{name} not in {folder}'s manifest"
            assert drawn_png(folder / name), f"{folder / name} is not a drawn PNG"
    return check


@pytest.fixture
def resign():
    """``resign(folder, name)``: record payload ``name``'s new checksum and size in the artifact's
    manifest, as a writer that tampered with it knowingly would, so that the loader's own checks of the
    payload are what a test meets."""
    import json

    from textqa.models.artifact import sha256_file

    def sign(folder: Path, name: str) -> None:
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["files"][name].update(sha256=sha256_file(folder / name), bytes=(folder / name).stat().st_size)
        (folder / "manifest.json").write_text(json.dumps(manifest))
    return sign


@pytest.fixture
def copy_root(tmp_path):
    """``copy_root(root)``: a private copy of an artifacts root, for tests that write into it."""
    def copy(root: Path) -> Path:
        dest = tmp_path / ("copy-" + root.name)
        shutil.copytree(root, dest, symlinks=True)
        return dest
    return copy


@pytest.fixture(scope="session")
def wiki_sentences():
    """PTB-tokenized sentences of the first paragraphs of the bundled Wikipedia text (real data)."""
    from textqa.models.truecaser.tokenize import PTBTokenizer
    from textqa.training.corpus import paragraphs
    tok = PTBTokenizer(PUNKT_DIR)
    lines = itertools.islice(paragraphs(DATA_DIR / "truecase" / "enwiki_prefix.txt.xz"), N_PARAGRAPHS)
    return [" ".join(t) for line in lines for t in tok.tokenize(line) if t]


@pytest.fixture(scope="session")
def dev_sentences():
    from textqa.training.corpus import read_lines
    return [l for l in read_lines(DATA_DIR / "truecase" / "val_input.txt.gz") if l.strip()]


@pytest.fixture(scope="session")
def small_truecaser(wiki_sentences, tmp_path_factory):
    from textqa.models.truecaser.model import Truecaser
    work = tmp_path_factory.mktemp("tc-work")
    return Truecaser(work_dir=str(work), fold_accents=True).fit(wiki_sentences)     # as `textqa train` does


@pytest.fixture(scope="session")
def icd9_split(tmp_path_factory, request):
    """The real CMC 2007 records split for honest measurement: every fourth record held out (196),
    the rest (586) for training, as JSONL files with their gold codes."""
    import json

    from textqa.models.icd9.records import read_records
    def build(folder):
        records = read_records(DATA_DIR / "icd9" / "cmc2007_train_dev80.xml.gz")
        for name, part in (("train", [r for i, r in enumerate(records) if i % 4]),
                           ("heldout", [r for i, r in enumerate(records) if not i % 4])):
            with open(folder / f"{name}.jsonl", "w", encoding="utf-8") as f:
                for r in part:
                    f.write(json.dumps({"id": r.id, "sections": r.sections, "codes": r.codes}) + "\n")
    return _shared_root(request, tmp_path_factory, "icd9-split", build)


@pytest.fixture(scope="session")
def icd9_artifact(icd9_split, tmp_path_factory, request):
    """An artifacts root holding ICD-9 coders trained on ``icd9_split``'s training records (2-fold CV
    report, both classifiers)."""
    import argparse

    from textqa.training.icd9 import add_arguments, run
    def build(root):
        p = argparse.ArgumentParser()
        add_arguments(p)
        assert run(p.parse_args(["--data", str(icd9_split / "train.jsonl"), "--folds", "2", "--jobs", "1",
                                 "--artifacts", str(root)])) == 0
    return _shared_root(request, tmp_path_factory, "icd9-artifacts", build)


@pytest.fixture(scope="session")
def qa_artifact(qa_heldout, tmp_path_factory, request):
    """An artifacts root holding a small QA model trained on real data: all UIUC questions, TrecQA
    TRAIN, a collection of 1,500 TRAIN-ALL sentences plus TrecQA's, 300 TREC training questions; 2-fold
    answer-type cross-validation and exact answers on ``qa_heldout`` in its report."""
    import argparse

    from textqa.training.qa import add_arguments, run
    def build(root):
        p = argparse.ArgumentParser()
        add_arguments(p)
        assert run(p.parse_args(["--folds", "2", "--collection-limit", "1500", "--max-questions", "300",
                                 "--eval-questions", str(qa_heldout), "--wikipedia", "skip",
                                 "--artifacts", str(root)])) == 0
    return _shared_root(request, tmp_path_factory, "qa-artifacts", build)


@pytest.fixture(scope="session")
def qa_heldout(tmp_path_factory, request):
    """Held-out questions for the QA fixture: the first 40 TREC 2002 questions with NIST patterns (real data;
    the fixture trains on the first 300 of TREC 1999-2000)."""
    import gzip
    import json
    def build(folder):
        with gzip.open(DATA_DIR / "qa" / "trec_qa" / "derived" / "trec11.jsonl.gz", "rt", encoding="utf-8") as f:
            rows = [l for l in f if json.loads(l).get("patterns")][:40]
        (folder / "trec2002-first40.jsonl").write_text("".join(rows), encoding="utf-8")
    return _shared_root(request, tmp_path_factory, "qa-heldout", build) / "trec2002-first40.jsonl"


@pytest.fixture
def truecaser_copy(truecaser_artifact):
    """A private, freshly loaded copy of the small truecaser, for tests that change its settings."""
    from textqa.models.truecaser.store import load_truecaser
    return load_truecaser(truecaser_artifact / "truecaser")


@pytest.fixture(scope="session")
def truecaser_artifact(tmp_path_factory, request):
    """An artifacts root holding a saved ``small_truecaser`` (and an untrained BLANC)."""
    def build(root):
        from textqa.models.blanc.metric import BLANCParams
        from textqa.models.blanc.store import save_blanc
        from textqa.models.truecaser.store import save_truecaser
        save_truecaser(request.getfixturevalue("small_truecaser"), root / "truecaser", punkt_dir=PUNKT_DIR,
                       metrics={"note": "test model"})
        save_blanc(BLANCParams(), root / "blanc", metrics={"note": "untrained test model"})
    return _shared_root(request, tmp_path_factory, "artifacts", build)


def wikipedia_slice_text(work: Path, articles: int) -> Path:
    """The first ``articles`` articles of the bundled dump, as a WikiExtractor file in ``work`` (real text)."""
    import lzma
    part = work / "enwiki_slice.txt"
    with lzma.open(DATA_DIR / "truecase" / "enwiki_prefix.txt.xz", "rt", encoding="utf-8") as f, \
            open(part, "w", encoding="utf-8") as out:
        done = 0
        for line in f:
            out.write(line)
            done += line.startswith("</doc>")
            if done >= articles:
                break
    return part


@pytest.fixture
def wikipedia_slice(tmp_path):
    """``wikipedia_slice(articles)``: :func:`wikipedia_slice_text` in a folder of the test's own."""
    return lambda articles: wikipedia_slice_text(tmp_path, articles)


def build_wikipedia_slice(dest: Path, work: Path, articles: int, analyse: bool = False) -> None:
    """The QA collection 'wikipedia' of the first ``articles`` articles of the bundled dump (real text);
    ``analyse``: with its stored analysis."""
    from textqa.models.qa.analysis import analyse_collection
    from textqa.models.qa.passages import build_collection
    build_collection(dest, "wikipedia", [wikipedia_slice_text(work, articles)],
                     description=f"the first {articles} articles of the bundled dump")
    if analyse:
        analyse_collection(dest, n_process=2, progress=lambda done, total: None)


@pytest.fixture(scope="session")
def service_artifacts(truecaser_artifact, icd9_artifact, qa_artifact, tmp_path_factory, request):
    """An artifacts root holding every model the service knows (so /readyz is 200): the small
    truecaser, an untrained BLANC, the small ICD-9 coders and the small QA model, with a small
    'wikipedia' collection (the first 300 articles of the bundled dump, analysed) in its default collection."""
    def build(root):
        for source, name in ((truecaser_artifact, "truecaser"), (truecaser_artifact, "blanc"),
                             (icd9_artifact, "icd9"), (qa_artifact, "qa")):
            shutil.copytree(source / name, root / name)
        build_wikipedia_slice(root / "collections" / "wikipedia", tmp_path_factory.mktemp("wiki-slice"), 300,
                              analyse=True)
    return _shared_root(request, tmp_path_factory, "service-artifacts", build)


@pytest.fixture(scope="session")
def blanc_heldout(tmp_path_factory, request):
    """Held-out judgments for the BLANC fixture: every WMT22 liv-en DA row (real data, 2,070 segments,
    5 systems), a language pair and a year the fixture never trains on."""
    import gzip
    def build(folder):
        lines = gzip.open(DATA_DIR / "mt" / "wmt22_toen_da_seg.tsv.gz", "rt", encoding="utf-8").read().splitlines()
        (folder / "wmt22_liv-en.tsv").write_text(
            "\n".join([lines[0]] + [l for l in lines[1:] if l.startswith("liv-en\t")]) + "\n", encoding="utf-8")
    return _shared_root(request, tmp_path_factory, "blanc-heldout", build) / "wmt22_liv-en.tsv"


@pytest.fixture(scope="session")
def blanc_artifact(blanc_heldout, tmp_path_factory, request):
    """An artifacts root holding BLANC trained briefly on the real COLING-16 DA judgments (780 segments),
    tested (with the sentence BLEU and chrF baselines) on ``blanc_heldout``."""
    from textqa.training.blanc import add_arguments, run
    import argparse
    def build(root):
        p = argparse.ArgumentParser()
        add_arguments(p)
        args = p.parse_args(["--train", str(DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz"), "--test",
                             str(blanc_heldout), "--restarts", "2", "--jobs", "1", "--max-steps", "8",
                             "--artifacts", str(root)])
        assert run(args) == 0
    return _shared_root(request, tmp_path_factory, "blanc-artifacts", build)


# Test files by their time in one process, slowest first (measured with --durations=0; what is not
# listed is fast).  pytest-xdist (``--dist loadfile --no-loadscope-reorder``) hands files out in the
# collection's order, so the slow ones start first and the two workers finish together.
SLOW_FILES = (
    "tests/test_cluster_training.py",
    "tests/service/test_background_training.py",
    "tests/service/test_contract.py",
    "tests/test_batch_cli.py",
    "tests/qa/test_expansion.py",
    "tests/truecaser/test_truecaser_training.py",
    "tests/test_hostile_input.py",
    "tests/test_cli.py",
    "tests/test_numba_cache.py",
    "tests/test_training_faults.py",
    "tests/qa/test_qa_system.py",
    "tests/test_hostile_json.py",
    "tests/qa/test_collections.py",
    "tests/truecaser/test_rerank.py",
    "tests/truecaser/test_classes.py",
    "tests/service/test_playground.py",
    "tests/icd9/test_interfaces.py",
    "tests/qa/test_analysis.py",
    "tests/evaluation/test_nugget.py",
)


#: shared fixtures that read data but train nothing: a test that needs no other module- or
#: session-wide fixture (a trained model, a server, a cluster) is in the fast tier
LIGHT_SHARED = {"_session_isolation", "tmp_path_factory", "wiki_sentences", "dev_sentences", "worker_id",
                "testrun_uid"}


def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true",
                     help="the fast tier (make test-fast): only tests that need no trained model, server or cluster")


def _is_fast(item) -> bool:
    if Path(str(item.path)).relative_to(ROOT).as_posix() in SLOW_FILES:
        return False
    defs = getattr(item, "_fixtureinfo", None)
    for name, fixturedefs in (defs.name2fixturedefs.items() if defs else ()):
        if name not in LIGHT_SHARED and any(d.scope in ("module", "session", "package") for d in fixturedefs):
            return False
    return not item.get_closest_marker("slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--fast"):
        slow = [item for item in items if not _is_fast(item)]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if _is_fast(item)]
    missing = [name for name in SLOW_FILES if not (ROOT / name).is_file()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py: SLOW_FILES names files that do not exist: {missing}")
    rank = {name: i for i, name in enumerate(SLOW_FILES)}
    items.sort(key=lambda item: rank.get(Path(str(item.path)).relative_to(ROOT).as_posix(), len(rank)))


@pytest.fixture(scope="session")
def duc(tmp_path_factory) -> Path:
    """The bundled DUC 2006 ROUGE package, unpacked (peers/, models/, rougejk.in, rougejk.m.out)."""
    import tarfile
    d = tmp_path_factory.mktemp("duc2006")
    with tarfile.open(DATA_DIR / "eval" / "rouge" / "duc2006_rouge.tar.gz") as t:
        t.extractall(d, filter="data")
    return d / "ROUGE"
