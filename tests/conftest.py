"""Shared fixtures: a truecaser trained on a small slice of the bundled real Wikipedia text."""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textqa.paths import DATA_DIR, PUNKT_DIR  # noqa: E402

N_PARAGRAPHS = 4000


@pytest.fixture(scope="session")
def wiki_sentences():
    """PTB-tokenized sentences of the first paragraphs of the bundled Wikipedia text (real data)."""
    from models.truecaser.tokenize import PTBTokenizer
    from training.corpus import paragraphs
    tok = PTBTokenizer(PUNKT_DIR)
    lines = itertools.islice(paragraphs(DATA_DIR / "truecase" / "enwiki_prefix.txt.xz"), N_PARAGRAPHS)
    return [" ".join(t) for line in lines for t in tok.tokenize(line) if t]


@pytest.fixture(scope="session")
def dev_sentences():
    from training.corpus import read_lines
    return [l for l in read_lines(DATA_DIR / "truecase" / "val_input.txt.gz") if l.strip()]


@pytest.fixture(scope="session")
def small_truecaser(wiki_sentences, tmp_path_factory):
    from models.truecaser.model import Truecaser
    work = tmp_path_factory.mktemp("tc-work")
    return Truecaser(work_dir=str(work)).fit(wiki_sentences)


@pytest.fixture(scope="session")
def icd9_artifact(tmp_path_factory):
    """An artifacts root holding ICD-9 coders trained on the real CMC data (2-fold CV report, both classifiers)."""
    import argparse

    from training.icd9 import add_arguments, run
    root = tmp_path_factory.mktemp("icd9-artifacts")
    p = argparse.ArgumentParser()
    add_arguments(p)
    assert run(p.parse_args(["--folds", "2", "--jobs", "1", "--artifacts", str(root)])) == 0
    return root


@pytest.fixture(scope="session")
def qa_artifact(tmp_path_factory):
    """An artifacts root holding a small QA model trained on real data: all UIUC questions, TrecQA
    TRAIN, a collection of 1,500 TRAIN-ALL sentences plus TrecQA's, 300 TREC training questions."""
    import argparse

    from training.qa import add_arguments, run
    root = tmp_path_factory.mktemp("qa-artifacts")
    p = argparse.ArgumentParser()
    add_arguments(p)
    assert run(p.parse_args(["--folds", "0", "--collection-limit", "1500", "--max-questions", "300",
                             "--artifacts", str(root)])) == 0
    return root


@pytest.fixture(scope="session")
def truecaser_artifact(small_truecaser, icd9_artifact, qa_artifact, tmp_path_factory):
    """An artifacts root holding a saved small truecaser (and an untrained BLANC)."""
    from models.truecaser.model import save_truecaser
    root = tmp_path_factory.mktemp("artifacts")
    save_truecaser(small_truecaser, root / "truecaser", punkt_dir=PUNKT_DIR, metrics={"note": "test model"})
    # every model the service knows must be present for /readyz: BLANC with its untrained defaults
    from models.blanc.metric import BLANCParams
    from models.blanc.store import save_blanc
    save_blanc(BLANCParams(), root / "blanc", metrics={"note": "untrained test model"})
    import shutil
    shutil.copytree(icd9_artifact / "icd9", root / "icd9")
    shutil.copytree(qa_artifact / "qa", root / "qa")
    return root


@pytest.fixture(scope="session")
def blanc_artifact(tmp_path_factory):
    """An artifacts root holding BLANC trained briefly on the real COLING-16 DA judgments (780 segments)."""
    from training.blanc import add_arguments, run
    import argparse
    root = tmp_path_factory.mktemp("blanc-artifacts")
    p = argparse.ArgumentParser()
    add_arguments(p)
    args = p.parse_args(["--train", str(DATA_DIR / "mt" / "coling16_toen_da_seg.tsv.gz"), "--test",
                         "--restarts", "2", "--jobs", "1", "--max-steps", "8", "--no-baselines",
                         "--artifacts", str(root)])
    assert run(args) == 0
    return root
