"""The unigram baseline (the most frequent casing of each word, the first word capitalised) and the
token helpers the truecaser shares with it."""
from __future__ import annotations

import logging
from collections import Counter

from sklearn.base import BaseEstimator

from .casing import NONE, capitalize_first, case_class, fold_accents, group_by_lowercase, restore_accents

log = logging.getLogger(__name__)

def as_tokens(sentence) -> list[str]:
    return sentence.split() if isinstance(sentence, str) else list(sentence)

def capitalize_first_word(tokens: list[str]) -> list[str]:
    """Paper section 2.5 / table 1's "+" rule: uppercase the first letter of the first cased token."""
    tokens = list(tokens)
    capitalize_first_word_in(tokens, 0, len(tokens))
    return tokens

def capitalize_first_word_in(tokens: list[str], start: int, end: int) -> None:
    """:func:`capitalize_first_word` on ``tokens[start:end]``, in place."""
    for i in range(start, end):
        tok = tokens[i]
        cls = case_class(tok)
        if cls != NONE:
            if tok[:1].islower() or cls == "LC":
                tokens[i] = capitalize_first(tok)
            break

class CasingTable:
    """For each lowercased word, its cased forms seen in training with their counts."""

    def __init__(self, forms: dict[str, list]):
        # each value: (form, count) pairs, most frequent first; tuples when counted, two-element lists
        # when read from an artifact (not converted: that would add half a second to loading)
        self.forms = forms

    @classmethod
    def from_counts(cls, counts: dict[str, int]) -> "CasingTable":
        return cls(group_by_lowercase(counts))

    def most_frequent(self, key: str) -> str | None:
        forms = self.forms.get(key)
        return forms[0][0] if forms else None

class UnigramTruecaser(BaseEstimator):
    """Baseline of paper section 2.1: each token takes its most frequent training casing.

    Unseen words stay as given (lowercase); the first word is capitalised (the
    paper's "truecasing+" rule of table 1) when ``capitalize_first`` is true.
    """

    def __init__(self, capitalize_first: bool = True):
        self.capitalize_first = capitalize_first

    def fit(self, sentences, y=None):
        counts = Counter()
        for s in sentences:
            counts.update(as_tokens(s))
        self.fit_counts(counts)
        return self

    def __getattr__(self, name):
        # A loaded artifact reads its baseline table (568,000 words, a third of a second) on first
        # use, not at load: only ``--baseline`` needs it (``load_truecaser`` sets the reader).
        reader = self.__dict__.get("_best_reader")
        if name == "best_" and reader is not None:
            self.best_ = reader()
            del self.__dict__["_best_reader"]
            return self.best_
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def fit_counts(self, counts: dict[str, int]):
        table = CasingTable.from_counts(counts)
        self.best_ = {k: v[0][0] for k, v in table.forms.items()}
        return self

    def predict_tokens(self, tokens: list[str]) -> list[str]:
        out = []
        for tok in tokens:
            best = self.best_.get(tok.lower())
            if best is None and not tok.isascii():      # a table learned from folded text (``fold_accents``)
                best = self.best_.get(fold_accents(tok.lower()))
                best = best and restore_accents(tok, best)
            if best is not None and len(best) == len(tok):
                out.append(best)
            else:                       # unseen words stay lowercase
                out.append(tok.lower())
        return capitalize_first_word(out) if self.capitalize_first else out

    def predict(self, sentences):
        res = []
        for s in sentences:
            toks = self.predict_tokens(as_tokens(s))
            res.append(" ".join(toks) if isinstance(s, str) else toks)
        return res
