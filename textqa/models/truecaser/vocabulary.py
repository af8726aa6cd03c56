"""The word LM's vocabulary: case-carrying tokens, with rare ones replaced by their case class's
unknown token (Lita et al. 2003, section 2.3)."""
from __future__ import annotations

import logging

from . import lm as lmmod
from .casing import CASE_CLASSES, NONE, UNKNOWN_TOKENS, case_class

log = logging.getLogger(__name__)

UNKNOWN_NONE = "UNKNOWN_NONE"          # rare tokens with no cased letter (long numbers, symbols)

BOS_ID, EOS_ID, UNK_ID = 0, 1, 2

LM_SPECIALS = [lmmod.BOS, lmmod.EOS, lmmod.UNK, UNKNOWN_NONE] + [UNKNOWN_TOKENS[c] for c in CASE_CLASSES]

class LMVocabulary:
    """The LM's vocabulary (section 2.3): the special tokens, then every cased form seen at least
    ``min_count`` times, in the order of the counts given (first occurrence in the corpus, so that a
    Dask map-reduce that merges its partitions' counts in order numbers them as one process does);
    rarer forms become the UNKNOWN_<class> token of their case class."""

    def __init__(self, words: list[str], known: dict[str, int], rare: dict[str, int]):
        self.words, self.known, self.rare = words, known, rare
        self.index = {w: i for i, w in enumerate(words)}
        self.n_tokens = sum(known.values()) + sum(rare.values())

    @property
    def V(self) -> int:
        return len(self.words)

    @classmethod
    def build(cls, counts: dict[str, int], min_count: int) -> "LMVocabulary":
        words, taken = list(LM_SPECIALS), set(LM_SPECIALS)
        known, rare = {}, {}
        for w, c in counts.items():
            if c >= min_count and w not in taken:
                words.append(w)
                taken.add(w)
                known[w] = c
            else:
                rare[w] = c
        return cls(words, known, rare)

    def id_of(self, w: str) -> int:
        """LM id of a cased token: its own, or its case class's UNKNOWN token (a literal "<s>" in
        the text is rare-or-special, hence UNKNOWN too, never the sentence start)."""
        if w in self.known:
            return self.index[w]
        c = case_class(w)
        return self.index[UNKNOWN_NONE if c == NONE else UNKNOWN_TOKENS[c]]
