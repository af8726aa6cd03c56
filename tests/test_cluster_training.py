"""``textqa train ... --scheduler``: the joblib loops of ICD-9, BLANC and QA training on a real
LocalCluster of 2 worker processes give the same artifact as a local run, to the last bit
(issue 12).  The local runs are the session fixtures (``--jobs 1``)."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from conftest import DATA_DIR

ROOT = Path(__file__).resolve().parents[1]


def train(*args):
    r = subprocess.run([sys.executable, "-m", "textqa.cli", "train", *map(str, args)], cwd=ROOT,
                       capture_output=True, timeout=900)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    return r.stderr.decode()


def same_files(a: Path, b: Path, timing=("seconds",)):
    """Every model file equal (arrays bit for bit), and the reported metrics but the timings."""
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    for name in names:
        if name.endswith(".npz"):
            x, y = np.load(a / name), np.load(b / name)
            assert sorted(x.files) == sorted(y.files)
            assert not [k for k in x.files if not np.array_equal(x[k], y[k])], name
        elif name.endswith(".json") and name != "manifest.json":
            assert (a / name).read_bytes() == (b / name).read_bytes(), name

    def metrics(folder):
        def strip(d):
            return {k: strip(v) if isinstance(v, dict) else v for k, v in d.items()
                    if not any(t in k for t in timing)}
        return strip(json.loads((folder / "manifest.json").read_text())["metrics"])
    assert metrics(a) == metrics(b)


def test_icd9_on_a_cluster_is_the_local_artifact(icd9_artifact, icd9_split, tmp_path):
    err = train("icd9", "--data", icd9_split / "train.jsonl", "--folds", "2", "--artifacts", tmp_path,
                "--scheduler", "local", "--workers", "2")
    assert "Dask dashboard http" in err
    same_files(icd9_artifact / "icd9", tmp_path / "icd9")


def test_blanc_on_a_cluster_is_the_local_artifact(blanc_artifact, blanc_heldout, tmp_path):
    err = train("blanc", "--train", DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz", "--test", blanc_heldout,
                "--restarts", "2", "--max-steps", "8", "--artifacts", tmp_path, "--scheduler", "local",
                "--workers", "2")
    assert "restarts on the Dask cluster local" in err
    same_files(blanc_artifact / "blanc", tmp_path / "blanc")


def test_qa_on_a_cluster_is_the_local_artifact(qa_artifact, qa_heldout, tmp_path):
    train("qa", "--folds", "2", "--collection-limit", "1500", "--max-questions", "300", "--eval-questions",
          qa_heldout, "--artifacts", tmp_path, "--scheduler", "local", "--workers", "2")
    a, b = qa_artifact / "qa", tmp_path / "qa"
    same_files(a, b)
    import sqlite3
    rows = [sqlite3.connect(f / "index.sqlite").execute("select count(*) from sqlite_master").fetchone() for f in (a, b)]
    assert rows[0] == rows[1]
