"""Surface-form (casing) classes of Lita et al. 2003, "tRuEcasIng", section 2.

The paper observes four classes of words: all lowercase (LC), first letter
uppercase (UC), all letters uppercase (CA) and mixed case (MC).  Tokens with no
cased letter at all (numbers, punctuation) are their own class here, NONE,
because there is nothing to restore for them.
"""
from __future__ import annotations

import unicodedata
from array import array
from typing import NamedTuple

import numpy as np

LC, UC, CA, MC, NONE = "LC", "UC", "CA", "MC", "NONE"
CASE_CLASSES = (LC, UC, CA, MC)

#: Language-model tokens standing for rare words of each class (paper section 2.3).
UNKNOWN_TOKENS = {c: f"UNKNOWN_{c}" for c in CASE_CLASSES}


def group_by_lowercase(counts: dict[str, int]) -> dict[str, list[tuple[str, int]]]:
    """{lowercased form: [(cased form, count), ...]}, most frequent first (ties: by form), of the
    cased forms' counts ``counts`` (the casing table of words, and of phrases)."""
    by_key: dict[str, list[tuple[str, int]]] = {}
    for form, c in counts.items():
        by_key.setdefault(form.lower(), []).append((form, c))
    return {k: sorted(v, key=lambda fc: (-fc[1], fc[0])) for k, v in by_key.items()}


def case_class(token: str) -> str:
    """Return the surface-form class of ``token`` (paper section 2).

    >>> [case_class(t) for t in ("delay", "DeLay", "Delay", "NASA", "1991", "U.S.")]
    ['LC', 'MC', 'UC', 'CA', 'NONE', 'CA']
    """
    if token.lower() == token.upper():          # fast path: no cased character at all
        return NONE
    if token.islower():
        return LC
    if token.isupper():
        # A single cased letter ("A", "I", "X-ray"'s "X") is first-letter uppercase,
        # not all-caps: it is what a sentence-initial "a" becomes.
        cased = [ch for ch in token if ch.lower() != ch.upper()]
        return UC if len(cased) == 1 else CA
    first = next(ch for ch in token if ch.lower() != ch.upper())
    rest = token[token.index(first) + 1:]
    if first.isupper() and (rest.islower() or rest.lower() == rest.upper()):
        return UC
    return MC


def apply_class(word: str, cls: str) -> str:
    """Render lowercase ``word`` in casing class ``cls`` (MC cannot be generated: kept lowercase)."""
    if cls == UC:
        return capitalize_first(word)
    if cls == CA:
        return word.upper()
    return word


def capitalize_first(word: str) -> str:
    """Uppercase the first cased character, leave the rest unchanged ("iPod" -> "IPod", "'s" -> "'S").
    A first cased character with no one-character capital ("ß", "ﬁ": "SS", "FI") is left as it is:
    truecasing changes only the case of letters, never the length of a token."""
    for i, ch in enumerate(word):
        up = ch.upper()
        if ch.lower() != up:
            return word[:i] + up + word[i + 1:] if len(up) == 1 else word
    return word


def transfer_case(source: str, cased: str) -> str:
    """Apply the casing of ``cased`` to ``source`` when they are equal ignoring case.

    Used in raw-text mode, where the model decides on a normalised token (PTB
    quotes and brackets) but the output must keep the user's original characters.
    """
    if source.lower() == cased.lower() and len(source) == len(cased):
        return cased
    return source


_FOLDED: dict[str, str] = {}


def _fold_char(ch: str) -> str:
    out = _FOLDED.get(ch)
    if out is None:
        base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
        out = _FOLDED[ch] = base if len(base) == 1 else ch
    return out


def fold_accents(text: str) -> str:
    """``text`` without its diacritics, character for character ("Pyrénées" -> "Pyrenees").

    Each character loses its combining marks (canonical decomposition, NFD); a character that
    does not decompose to one base letter ("ø", "ß", a Hangul syllable) is kept, so the result
    has exactly the length of ``text`` and :func:`restore_accents` can put the marks back.
    The English Wikipedia truecasing benchmark's text (Coster & Kauchak 2011) is folded like
    this, and much MT and ASR output is too.
    """
    return text if text.isascii() else "".join(map(_fold_char, text))


def restore_accents(source: str, cased: str) -> str:
    """``source``'s own characters in the casing of ``cased``, the truecased :func:`fold_accents` of it.

    >>> restore_accents("sao", "Sao"), restore_accents("são", "São"), restore_accents("ÉCOLE", "Ecole")
    ('Sao', 'São', 'École')
    """
    if source.isascii() or len(source) != len(cased):
        return cased
    return "".join(map(_recase, source, cased))


def _recase(ch: str, like: str) -> str:
    """``ch`` in the case of ``like`` (unchanged if that would change its length, as "ß".upper() would)."""
    out = ch.upper() if like.isupper() else ch.lower() if like.islower() else ch
    return out if len(out) == 1 else ch


class Indexed(NamedTuple):
    """Sentences as ids: ``ids`` the concatenated token ids, ``lengths`` each sentence's token count,
    ``words`` the token of each id (ids as :meth:`Truecaser.fit` numbers the training tokens)."""
    ids: np.ndarray
    lengths: np.ndarray
    words: list


def index(sentences) -> Indexed:
    """``sentences`` (token lists or whitespace-tokenized strings) as :class:`Indexed`."""
    if isinstance(sentences, Indexed):
        return sentences
    ids: dict[str, int] = {}
    setdefault = ids.setdefault
    flat, lengths = array("q"), array("q")
    for s in sentences:
        toks = s.split() if isinstance(s, str) else s
        flat.extend(setdefault(t, len(ids)) for t in toks)
        lengths.append(len(toks))
    return Indexed(np.frombuffer(flat, np.int64) if flat else np.zeros(0, np.int64),
                   np.frombuffer(lengths, np.int64) if lengths else np.zeros(0, np.int64), list(ids))


def positions(ix: Indexed) -> tuple[np.ndarray, np.ndarray]:
    """Each token's position in its sentence, and how many tokens follow it there (int32 below 2**31
    tokens: these arrays are as long as the corpus)."""
    dtype = np.int32 if len(ix.ids) < 2**31 else np.int64
    lengths = np.asarray(ix.lengths, np.int64)
    pos = np.arange(len(ix.ids), dtype=dtype) - np.repeat((np.cumsum(lengths) - lengths).astype(dtype), lengths)
    return pos, np.repeat(lengths.astype(dtype), lengths) - pos - 1


def lowercase_ids(words: list) -> tuple[np.ndarray, dict]:
    """The id of each word's lowercased form, and {lowercased form: id} (ids in the order met)."""
    lower_id: dict[str, int] = {}
    low = np.fromiter((lower_id.setdefault(w.lower(), len(lower_id)) for w in words), dtype=np.int64,
                      count=len(words))
    return low, lower_id
