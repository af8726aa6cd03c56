"""Where the repository keeps its data and artifacts (the only module that knows the layout)."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = REPO_ROOT / "data"
PUNKT_DIR = DATA_DIR / "nltk_data" / "tokenizers" / "punkt_tab" / "english"


def artifacts_dir(explicit: str | os.PathLike | None = None) -> Path:
    """``--artifacts`` if given, else ``$TEXTQA_ARTIFACTS``, else ``artifacts/`` in the repository."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("TEXTQA_ARTIFACTS")
    return Path(env) if env else REPO_ROOT / "artifacts"


def cache_dir() -> Path:
    """Scratch space for derived data (tokenized corpora, spaCy analyses and parses, WordNet unpacked); safe
    to delete, and safe to share between processes that train at once."""
    env = os.environ.get("TEXTQA_CACHE")
    return Path(env) if env else REPO_ROOT / ".cache"


#: the bundled Wikipedia text (WikiExtractor output, four stretches of page ids): the truecaser's training
#: text and QA's 'wikipedia' collection
WIKIPEDIA_TEXT = [DATA_DIR / "truecase" / f"enwiki_{part}.txt.xz" for part in ("prefix", "part2", "part3", "part4")]
#: The lead sections of Wikipedia's Level-4 vital articles (2026), which QA's ``wikipedia`` collection indexes too
VITAL_ARTICLES = DATA_DIR / "qa" / "vital" / "summaries_en-us.json.gz"

STOPWORDS_FILE = DATA_DIR / "nltk_data" / "corpora" / "stopwords" / "english"


@lru_cache(maxsize=1)
def english_stopwords() -> frozenset:
    """NLTK's English stopword list (bundled in data/), read once per process."""
    return frozenset(STOPWORDS_FILE.read_text(encoding="utf-8").split())
