"""Porter stems (NLTK), cached: shared by BLANC's partial matches and the QA overlap features."""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.porter import PorterStemmer  # deferred: loads sklearn, scipy, nltk
    return PorterStemmer()


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    return _stemmer().stem(word)
