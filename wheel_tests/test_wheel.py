"""``make test-wheel``: the package as a user outside the repository gets it.  A fresh clone of HEAD
(no ``.build/``, no ``.venv``) is installed with ``pip install .`` into a virtualenv that
``python3 -m venv`` has just made, with nothing added; the install decodes with the C++ search, gives
the repository's output and loads an artifact.  ``pip wheel .`` and ``python -m build`` (``build`` the
only package added) each make a platform wheel carrying the library and KenLM's licence.  Slow (three
compiles and a venv's dependencies), so it is not in ``make test``; ``.ci/run`` runs it after it."""
import itertools
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
NATIVE = "textqa/models/truecaser/native/"


def _base_python() -> str:
    """The interpreter the repository's venv was made from: what a user's ``python3 -m venv`` runs."""
    return getattr(sys, "_base_executable", None) or shutil.which("python3")


def _env():
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("TEXTQA_", "VIRTUAL_ENV", "PYTHONPATH", "PIP_"))}


def _fresh_venv(where: Path) -> Path:
    subprocess.run([_base_python(), "-m", "venv", str(where)], check=True, env=_env())
    return where / "bin" / "python"


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A fresh clone of the repository's HEAD: what a user downloads, with nothing built in it."""
    work = tmp_path_factory.mktemp("clone")
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(work / "src")], check=True)
    assert not (work / "src" / ".build").exists()
    return work / "src"


@pytest.fixture(scope="module")
def installed(clone, tmp_path_factory):
    """(the fresh venv's python, a folder outside the repository) after ``pip install .`` from the clone."""
    work = tmp_path_factory.mktemp("wheel")
    py = _fresh_venv(work / "venv")
    r = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "."], cwd=clone, capture_output=True,
                       text=True, timeout=1800, env=_env())
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    outside = work / "elsewhere"
    outside.mkdir()
    return py, outside


def _check_wheel(wheel: Path):
    assert "linux" in wheel.name, wheel.name                     # a platform wheel: it carries a library
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("libtextqa_viterbi.so", "build_binary", "KENLM_LICENSE", "KENLM_COPYING.LESSER.3"):
        assert NATIVE + name in names, (name, sorted(n for n in names if n.startswith(NATIVE)))


def test_pip_wheel_from_a_fresh_clone(clone, tmp_path):
    py = _fresh_venv(tmp_path / "venv")
    r = subprocess.run([str(py), "-m", "pip", "wheel", "--quiet", "--no-deps", ".", "-w", str(tmp_path / "dist")],
                       cwd=clone, capture_output=True, text=True, timeout=1800, env=_env())
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("textqa-*.whl")
    _check_wheel(wheel)


def test_python_m_build_from_a_fresh_clone(clone, tmp_path):
    py = _fresh_venv(tmp_path / "venv")
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "build"], check=True, env=_env())
    r = subprocess.run([str(py), "-m", "build", "--outdir", str(tmp_path / "dist"), "."], cwd=clone,
                       capture_output=True, text=True, timeout=1800, env=_env())
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("textqa-*.whl")        # built from the sdist, which carries KenLM
    _check_wheel(wheel)


def test_a_build_without_kenlm_says_so_in_one_line(clone, tmp_path):
    """No vendored source and no TEXTQA_KENLM_SOURCE: one line naming the variable, not a traceback."""
    src = tmp_path / "src"
    shutil.copytree(clone, src, ignore=shutil.ignore_patterns(".git", "kenlm-*.tar.gz"))
    r = subprocess.run([sys.executable, "setup.py", "--quiet", "build_py", "--build-lib", str(tmp_path / "lib")],
                       cwd=src, capture_output=True, text=True, env=_env())
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr[-3000:]
    (line,) = [x for x in r.stderr.splitlines() if x.startswith("textqa build:")]
    assert "cannot get KenLM's source" in line and "TEXTQA_KENLM_SOURCE" in line, r.stderr[-3000:]


@pytest.fixture(scope="module")
def artifact(tmp_path_factory):
    """A small truecaser trained by this repository's code on real text (2,000 Wikipedia sentences)."""
    from textqa.models.truecaser.model import Truecaser
    from textqa.models.truecaser.store import save_truecaser
    from textqa.models.truecaser.tokenize import PTBTokenizer
    from textqa.runtime.paths import PUNKT_DIR
    from textqa.training.corpus import paragraphs
    tok = PTBTokenizer(PUNKT_DIR)
    lines = itertools.islice(paragraphs(DATA / "truecase" / "enwiki_prefix.txt.xz"), 600)
    sentences = [" ".join(t) for line in lines for t in tok.tokenize(line) if t][:2000]
    work = tmp_path_factory.mktemp("artifact")
    model = Truecaser(work_dir=str(work / "work"), fold_accents=True).fit(sentences)
    save_truecaser(model, work / "truecaser", punkt_dir=PUNKT_DIR)
    return work / "truecaser"


def test_the_wheel_decodes_with_the_native_search(installed, artifact):
    py, outside = installed
    textqa = py.parent / "textqa"
    r = subprocess.run([str(textqa), "--version"], cwd=outside, capture_output=True, text=True, env=_env())
    assert r.returncode == 0 and "truecaser search: native (" in r.stdout, r.stdout + r.stderr
    assert str(py.parent.parent) in r.stdout                    # the library inside the installed package
    lines = "the president of the united states visited new york on monday .\nparis is a city in france .\n"
    r = subprocess.run([str(textqa), "truecase", "--tokenized", "--model", str(artifact)], input=lines, cwd=outside,
                       capture_output=True, text=True, env=_env())
    assert r.returncode == 0 and "not available" not in r.stderr, r.stderr
    here = subprocess.run([sys.executable, "-m", "textqa.cli", "truecase", "--tokenized", "--model", str(artifact)],
                          input=lines, cwd=ROOT, capture_output=True, text=True)
    assert r.stdout == here.stdout and r.stdout.startswith("The President of the United States")


def test_textqa_load_works_from_the_wheel(installed, artifact):
    py, outside = installed
    code = ("import json, textqa; m = textqa.load(%r); "
            "print(json.dumps([m.truecase('paris is a city .'), m.model.search_in_use(), textqa.__file__]))")
    r = subprocess.run([str(py), "-c", code % str(artifact)], cwd=outside, capture_output=True, text=True, env=_env())
    assert r.returncode == 0, r.stderr[-3000:]
    cased, search, where = json.loads(r.stdout)
    assert cased == "Paris is a city ." and search == "native" and str(ROOT) not in where
