"""One ``.cache/`` shared by processes that fill it at the same time (two trainings on one machine,
or the suite's two workers): each writer writes a file of its own and renames it into place, so
no reader ever sees a mix of two writers' bytes and no temporary file is left behind."""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

from textqa.runtime import wordnet
from textqa.runtime.paths import DATA_DIR, PUNKT_DIR

ROOT = Path(__file__).resolve().parents[1]
REUTERS = DATA_DIR / "truecase" / "reuters21578" / "reut2-000.sgm.gz"

TOKENIZE = """
import hashlib, sys
from pathlib import Path
from textqa.training.corpus import tokenized_corpus
sents = tokenized_corpus([Path(sys.argv[1])], Path(sys.argv[2]), Path(sys.argv[3]), n_jobs=1)
print(len(sents), hashlib.sha256("\\n".join(sents).encode()).hexdigest())
"""


def test_processes_tokenizing_into_one_cache_at_once_all_get_the_whole_text(tmp_path):
    from textqa.training.corpus import tokenized_corpus
    cache = tmp_path / "cache"
    procs = [subprocess.Popen([sys.executable, "-c", TOKENIZE, str(REUTERS), str(PUNKT_DIR), str(cache)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [e[-2000:] for _, e in outs]
    want = tokenized_corpus([REUTERS], PUNKT_DIR, None, n_jobs=1)                  # no cache
    digest = f"{len(want)} {hashlib.sha256(chr(10).join(want).encode()).hexdigest()}"
    assert len(want) > 5000 and [o.strip() for o, _ in outs] == [digest] * 3
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert len(files) == 1 and ".tmp" not in files[0].name                      # one entry, no leftovers
    assert tokenized_corpus([REUTERS], PUNKT_DIR, cache, n_jobs=1) == want      # and it reads back whole


def test_wordnet_unpacked_by_another_process_meanwhile_is_used_not_an_error(tmp_path, monkeypatch):
    """The other process's rename lands between this one's check and its own rename: this one's
    rename fails (the folder is there and not empty), and the complete folder is what it returns."""
    root, real_replace, raced = tmp_path / "root", os.replace, []

    def replace(src, dst):
        if not raced and Path(dst).name == "wordnet":
            raced.append(True)
            wordnet.unpack_wordnet(root=root)               # the other process, finishing first
        return real_replace(src, dst)

    monkeypatch.setattr(wordnet.os, "replace", replace)
    dest = wordnet.unpack_wordnet(root=root)
    assert raced and dest == root / "corpora" / "wordnet" and (dest / "data.noun").stat().st_size > 10_000_000
    assert sorted(p.name for p in (root / "corpora").iterdir()) == ["wordnet"]  # no temporary folder left
