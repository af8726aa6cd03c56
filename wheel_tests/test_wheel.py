"""``make test-wheel``: the wheel that ``python -m build`` makes, installed into a fresh virtualenv
outside the repository, decodes with the C++ search and loads an artifact.  Slow (a compile and a
venv), so it is not in ``make test``; ``.ci/run`` runs it after ``make test``."""
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh venv's python, a folder outside the repository) with the built wheel installed."""
    work = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(work / "dist"), str(ROOT)],
                       capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    (wheel,) = (work / "dist").glob("textqa-*.whl")
    assert "linux" in wheel.name, wheel.name                     # a platform wheel: it carries a library
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
    py = work / "venv" / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "--quiet", str(wheel)], capture_output=True, text=True,
                       timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    outside = work / "elsewhere"
    outside.mkdir()
    return py, outside


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


def _env():
    return {k: v for k, v in os.environ.items() if not k.startswith(("TEXTQA_", "VIRTUAL_ENV", "PYTHONPATH"))}


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
