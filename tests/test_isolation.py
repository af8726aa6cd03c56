"""The suite's isolation: no test reads or writes the repository's artifacts/ or .cache/."""
import os
import subprocess
import sys
from pathlib import Path

from textqa.runtime.paths import REPO_ROOT, artifacts_dir, cache_dir


def test_default_artifacts_and_cache_are_temporary_folders():
    for folder in (artifacts_dir(), cache_dir()):
        assert REPO_ROOT not in folder.resolve().parents and folder.resolve() != REPO_ROOT
    assert Path(os.environ["TEXTQA_ARTIFACTS"]) == artifacts_dir() and not any(artifacts_dir().iterdir())


def test_subprocesses_inherit_the_isolation():
    out = subprocess.run([sys.executable, "-c", "from textqa.runtime.paths import artifacts_dir, cache_dir; "
                          "print(artifacts_dir()); print(cache_dir())"], cwd=REPO_ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(artifacts_dir()), str(cache_dir())]
