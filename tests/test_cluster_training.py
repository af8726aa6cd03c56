"""``textqa train ... --scheduler``: the joblib loops of ICD-9, BLANC and QA training on a real
LocalCluster of 2 worker processes give the same artifact as a local run, to the last bit

The local runs are the session fixtures (``--jobs 1``)."""
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from textqa.models.truecaser.store import load_truecaser
from textqa.runtime.paths import DATA_DIR

ROOT = Path(__file__).resolve().parents[1]


def train(*args):
    r = subprocess.run([sys.executable, "-m", "textqa.cli", "train", *map(str, args)], cwd=ROOT,
                       capture_output=True, timeout=900)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    return r.stderr.decode()


def metrics(folder: Path, timing: tuple) -> dict:
    def strip(d):
        return {k: strip(v) if isinstance(v, dict) else v for k, v in d.items() if not any(t in k for t in timing)}
    return strip(json.loads((folder / "manifest.json").read_text())["metrics"])


def same_files(a: Path, b: Path, timing=("seconds", "peak_rss")):
    """Every file of the artifact equal (arrays bit for bit), and the manifest's metrics but the timings
    and the peak memory (what the machine measured, not what was learned)."""
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        if rel.suffix == ".npz":
            x, y = np.load(a / rel), np.load(b / rel)
            assert sorted(x.files) == sorted(y.files)
            assert not [k for k in x.files if not np.array_equal(x[k], y[k])], rel
        elif rel.name != "manifest.json":
            assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    assert metrics(a, timing) == metrics(b, timing)


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
          qa_heldout, "--wikipedia", "skip", "--artifacts", tmp_path, "--scheduler", "local", "--workers", "2")
    a, b = qa_artifact / "qa", tmp_path / "qa"
    same_files(a, b)
    import sqlite3
    rows = [sqlite3.connect(f / "index.sqlite").execute("select count(*) from sqlite_master").fetchone() for f in (a, b)]
    assert rows[0] == rows[1]


@pytest.mark.parametrize("order", ["3", "4"])
def test_truecaser_counts_as_a_map_reduce_give_the_same_lm(order, tmp_path):
    """Tokenizing and counting on a LocalCluster (25 partitions of 200 lines, a tree of merges)
    gives the local run's ARPA byte for byte, and the same artifact (the phrase table, the word
    classes and the class LM too): real Reuters-21578 text, the default trigram LM and an order-4 LM
    (whose local run counts with ``OrderCounts`` rather than the trigram counter); a class LM of 100
    classes at order 3 (the default's 600 make the k-means slower, not the counting different), the
    order-4 run without one, nor the OOV model (the driver
    fits that on the same sentences either way) or the sentence-context model (its samples are
    collected on the cluster as at order 3): the order-3 run compares them."""
    dev = tmp_path / "dev.txt"
    with gzip.open(DATA_DIR / "truecase" / "val_input.txt.gz", "rt", encoding="utf-8") as f:
        dev.write_text("".join(line for _, line in zip(range(200), f)), encoding="utf-8")
    data = DATA_DIR / "truecase" / "reuters21578" / "reut2-000.sgm.gz"
    common = ["truecaser", "--data", data, "--dev", dev, "--no-cache", "--order", order,
              *(["--class-lm", "0", "--oov-model", "none", "--context-cap", "0"] if order == "4" else
                ["--class-lm", "100"])]
    train(*common, "--out", tmp_path / "local", "--arpa", tmp_path / "local.arpa")
    err = train(*common, "--out", tmp_path / "dask", "--arpa", tmp_path / "dask.arpa", "--scheduler", "local",
                "--workers", "2", "--partition-size", "200")
    assert "25 partitions: tokenizing and counting words on the cluster" in err
    assert "Scheduler at" not in err and "Register worker" not in err     # not the scheduler's INFO log
    arpa = (tmp_path / "local.arpa").read_bytes()
    assert arpa == (tmp_path / "dask.arpa").read_bytes() and arpa.count(b"\n") > 60_000   # trigrams seen once pruned
    same_files(tmp_path / "local", tmp_path / "dask", timing=("second", "peak_rss"))
    assert "counting cased phrases on the cluster" in err
    phrases = dict(load_truecaser(tmp_path / "dask").phrases_.to_data()["phrases"])
    assert len(phrases) > 1000 and phrases["bank of new york"][0] == 6     # the same table, counted twice
    manifest = json.loads((tmp_path / "dask" / "manifest.json").read_text(encoding="utf-8"))
    if order == "3":
        assert "counting class 3-grams on the cluster" in err and "neighbours on the cluster" in err
        assert manifest["hyper_parameters"]["class_lm"] == 100
        assert any(p.name.startswith("class_lm") for p in (tmp_path / "dask").iterdir())
    else:
        assert "class" not in err.replace("case class", "") and manifest["hyper_parameters"]["class_lm"] == 0


def test_truecaser_on_a_cluster_refuses_what_needs_one_process(tmp_path):
    r = subprocess.run([sys.executable, "-m", "textqa.cli", "train", "truecaser", "--scheduler", "local",
                        "--max-sentences", "10", "--out", tmp_path / "x"], cwd=ROOT, capture_output=True, timeout=120)
    assert r.returncode != 0 and b"--max-sentences needs the corpus in one process" in r.stderr
    assert not (tmp_path / "x").exists()
    r = subprocess.run([sys.executable, "-m", "textqa.cli", "train", "truecaser", "--scheduler", "local",
                        "--discriminative", "local", "--out", tmp_path / "x"], cwd=ROOT, capture_output=True, timeout=120)
    assert r.returncode != 0 and b"the discriminative pass learns on held-out sentences in one process" in r.stderr
    assert not (tmp_path / "x").exists()


def test_cluster_partitions_are_folded_as_fit_folds_them(wiki_sentences):
    """``--scheduler`` counts the text each partition gives: folded as ``Truecaser.fit`` folds it
    (``fold_accents``, the CLI's default), or as it is."""
    from textqa.models.truecaser.casing import fold_accents
    from textqa.training.truecaser_dask import tokenize_partition
    lines = wiki_sentences[:3000]
    folded, dropped = tokenize_partition(lines, None, None, True)
    assert dropped == 0 and folded == [fold_accents(s) for s in lines] and folded != lines
    assert tokenize_partition(lines, None, None)[0] == lines


PRELOADED = """
import multiprocessing
import sys

import dask

from textqa.runtime import dask_cluster


def imported_before_the_task(name):
    return name in sys.modules, multiprocessing.get_start_method(allow_none=True)


if __name__ == "__main__":
    name = "textqa.models.icd9.coder"
    with dask_cluster.cluster("local", 1, preload=(name,)) as client:
        loaded, method = client.submit(imported_before_the_task, name, pure=False).result()
    dask.config.get("distributed.comm.require-encryption")       # distributed's defaults outlive the block
    print(loaded, method)
"""


def test_a_local_cluster_forks_its_workers_from_a_server_that_imported_the_preload(tmp_path):
    """``--scheduler local`` workers are forked from a forkserver that imported the tasks' module
    once (``dask_cluster._preload``), so each starts with it imported rather than importing it again;
    in a fresh process (distributed not imported yet), leaving the block keeps distributed's config
    (a second cluster in the process could not start without it); a misspelt module is an error,
    not a silent loss of the preload."""
    from textqa.runtime import dask_cluster
    script = tmp_path / "preloaded.py"
    script.write_text(PRELOADED, encoding="utf-8")
    r = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    assert r.stdout.decode().split() == ["True", "forkserver"]
    with pytest.raises(ValueError, match="no such module to preload"):
        dask_cluster._preload(("textqa.models.icd9.codr",))
