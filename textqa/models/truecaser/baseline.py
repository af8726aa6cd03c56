"""The unigram baseline (the most frequent casing of each word, the first word capitalised) and the
token helpers the truecaser shares with it."""
from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping

import numpy as np

from ..params import Params
from .casing import NONE, capitalize_first, case_class, fold_accents, group_by_lowercase, restore_accents
from .word_index import WordIndex

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

class StoredForms(Mapping):
    """{lowercased word: [[form, count], ...]} read from arrays (:meth:`CasingTable.to_arrays`): the
    words' index is read with them (:class:`.word_index.WordIndex`, not a dictionary built at load),
    and a word's list is made when it is first asked for (most words are never met)."""

    def __init__(self, index: WordIndex, forms: list[str], counts: np.ndarray, off: np.ndarray):
        self._index = index
        self._forms, self._counts, self._off = forms, counts, off
        self._made: dict = {}

    def __getitem__(self, key: str) -> list:
        got = self._made.get(key)
        if got is None:
            i = self._index[key]
            a, b = int(self._off[i]), int(self._off[i + 1])
            got = self._made[key] = [[f, c] for f, c in zip(self._forms[a:b], self._counts[a:b].tolist())]
        return got

    def __contains__(self, key) -> bool:
        return key in self._index

    def arrays(self) -> tuple:
        """(the word index {word: i} (:class:`.word_index.WordIndex`), the forms, their counts, where
        word i's forms start: ``off[i]`` to ``off[i + 1]``), for look-ups of many words with numpy."""
        return self._index, self._forms, self._counts, self._off

    def __iter__(self):
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


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

    def _flat(self) -> tuple[list, list, np.ndarray, np.ndarray]:
        """(the words, their forms one word after the other in their stored order, each form's count,
        where each word's forms start)."""
        words, forms, counts, off = [], [], [], [0]
        for w, fs in self.forms.items():
            words.append(w)
            for f, c in fs:
                forms.append(f)
                counts.append(c)
            off.append(len(forms))
        return words, forms, np.array(counts, dtype=np.int64), np.array(off, dtype=np.int64)

    def to_arrays(self) -> dict:
        """The table as numpy arrays (no pickle): the words and the forms as UTF-8 bytes, one a line,
        each form's count, and where each word's forms start (its forms in their stored order)."""
        words, forms, counts, off = self._flat()
        lines = lambda xs: np.frombuffer("\n".join(xs).encode("utf-8"), dtype=np.uint8)
        index = self.forms._index if isinstance(self.forms, StoredForms) else WordIndex.build(words)
        return {"words": lines(words), "forms": lines(forms), "counts": counts, "off": off, **index.arrays()}

    def arrays(self) -> tuple:
        """:meth:`StoredForms.arrays` of the table: a loaded table's own, a counted one's made."""
        if isinstance(self.forms, StoredForms):
            return self.forms.arrays()
        words, forms, counts, off = self._flat()
        return WordIndex.build(words), forms, counts, off

    @classmethod
    def from_arrays(cls, arrays: dict) -> "CasingTable":
        """The inverse of :meth:`to_arrays`; ValueError on malformed input."""
        try:
            blob = arrays["words"].tobytes()
            blob.decode("utf-8")                                    # (checked, not kept: the index reads the bytes)
            forms = arrays["forms"].tobytes().decode("utf-8").split("\n")
            counts, off = np.asarray(arrays["counts"]), np.asarray(arrays["off"])
        except (KeyError, AttributeError, UnicodeDecodeError) as e:
            raise ValueError(f"not a casing table ({e!r})") from e
        if not blob and len(off) == 1:
            forms = []
        if "word_hashes" in arrays:                                 # format 9: the index stored
            try:
                index = WordIndex.from_words_blob(blob, arrays["word_hashes"], arrays.get("word_order"))
            except ValueError as e:
                raise ValueError(f"not a casing table ({e})") from e
        else:
            words = blob.decode("utf-8").split("\n") if blob else []
            if len(set(words)) != len(words):
                raise ValueError("not a casing table (a word twice)")
            index = WordIndex.build(words)
        if off.dtype != np.int64 or counts.dtype != np.int64 or off.shape != (len(index) + 1,) or off[0] != 0 \
                or (np.diff(off) < 1).any() or off[-1] != len(forms) or counts.shape != (len(forms),) \
                or (counts < 0).any():
            raise ValueError("not a casing table (inconsistent arrays)")
        return cls(StoredForms(index, forms, counts, off))

class UnigramTruecaser(Params):
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

    @classmethod
    def read_on_use(cls, reader) -> "UnigramTruecaser":
        """A fitted baseline whose table ``best_`` is ``reader()``, called when first used."""
        model = cls()
        model._best_reader = reader
        return model

    def __getattr__(self, name):
        # A loaded artifact reads its baseline table on first use, not at load: only ``--baseline``
        # needs it (:meth:`read_on_use`).
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
