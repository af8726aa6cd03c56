"""Penn-Treebank tokenization, the convention of the truecasing dev/test sets.

The evaluation data (Coster & Kauchak 2011 Wikipedia split, as used by Susanto
et al. 2016) is PTB tokenized: ``-LRB-``/``-RRB-``, two backquotes and two
single quotes for double quotes, ``'s`` and ``n't`` split off.  Training text is
tokenized the same way so that the language model sees the tokens it will have
to case (see NOTES.md).  Sentences are split with NLTK's Punkt (its modules imported without
NLTK's package, which would import scikit-learn and SciPy: :mod:`textqa.runtime.nltk_tokenizers`), whose English
parameters are passed in as a folder (``punkt_tab/english``) so that nothing is
looked up or downloaded at run time.
"""
from __future__ import annotations

import re
from pathlib import Path

from textqa.runtime.nltk_tokenizers import tokenizer_modules

#: Sentence-final tokens at which an already tokenized line is split (NOTES.md: dev
#: lines often hold several sentences; decoding them one by one gives the LM its
#: sentence-start context back).
SENTENCE_FINAL = frozenset({".", "?", "!"})

_FALLBACK_TOKEN = re.compile(r"\w+(?:[-'.]\w+)*|\S")
_PTB_BRACKETS = {"(": "-LRB-", ")": "-RRB-", "[": "-LSB-", "]": "-RSB-", "{": "-LCB-", "}": "-RCB-"}


def load_punkt_tables(lang_dir: str | Path) -> PunktParameters:
    """Read Punkt's plain-text tables (``punkt_tab/english``) from a folder we name ourselves.

    NLTK's own loader only reads from its registered data path; reading the four
    tables directly keeps the tokenizer's data inside the artifact or ``data/``.
    """
    nltk = tokenizer_modules()
    lang_dir = Path(lang_dir)
    dec = nltk.tabdata.PunktDecoder()
    params = nltk.punkt.PunktParameters()

    def open_(name):
        path = lang_dir / name
        if not path.is_file():
            raise FileNotFoundError(f"Punkt table {path} is missing")
        return open(path, encoding="utf-8")

    with open_("collocations.tab") as f:
        params.collocations = set(dec.tab2tups(f))
    with open_("sent_starters.txt") as f:
        params.sent_starters = dec.txt2set(f)
    with open_("abbrev_types.txt") as f:
        params.abbrev_types = dec.txt2set(f)
    with open_("ortho_context.tab") as f:
        params.ortho_context = dec.tab2intdict(f)
    return params


class PTBTokenizer:
    """Punkt sentence splitting + NLTK Treebank word tokenization with PTB brackets."""

    def __init__(self, punkt_dir: str | Path):
        nltk = tokenizer_modules()
        self._align = nltk.util.align_tokens
        self.punkt_dir = Path(punkt_dir)
        self._sentences = nltk.punkt.PunktSentenceTokenizer(load_punkt_tables(self.punkt_dir))
        self._words = nltk.treebank.TreebankWordTokenizer()

    def sentences(self, text: str) -> list[str]:
        """Split running text into sentences."""
        return self._sentences.tokenize(text)

    def words(self, sentence: str) -> list[str]:
        """PTB tokens of one sentence."""
        return self._words.tokenize(sentence, convert_parentheses=True)

    def tokenize(self, text: str) -> list[list[str]]:
        """Sentences of PTB tokens."""
        return [self.words(s) for s in self.sentences(text)]

    def spans(self, text: str) -> list[list[tuple[int, int, str]]]:
        """Sentences of ``(start, end, ptb_token)``: where each token stands in ``text``.

        Raw-text truecasing changes only the case of the characters inside these
        spans, so the caller's spacing and punctuation survive unchanged.
        """
        out = []
        for s_start, s_end in self._sentences.span_tokenize(text):
            sentence = text[s_start:s_end]
            try:
                # one pass of the Treebank rules gives both the tokens and their spans: they pad each
                # bracket into a token of its own before converting it, and no later rule reads a
                # bracket, so the converted tokens are the plain ones with the brackets mapped; the
                # plain ones align with the text unless quotes were rewritten (NLTK's span_tokenize,
                # which tokenizes again, then maps them back)
                plain = self._words.tokenize(sentence)
                tokens = [_PTB_BRACKETS.get(t, t) for t in plain]
                if '"' in sentence or "''" in sentence:
                    spans = list(self._words.span_tokenize(sentence))
                else:
                    spans = self._align(plain, sentence)
                if len(spans) != len(tokens):
                    raise ValueError("span/token mismatch")
            except (ValueError, IndexError):
                # NLTK's alignment fails on a few odd inputs; fall back to a simple
                # word/punctuation split, which still keeps every character in place.
                spans = [m.span() for m in _FALLBACK_TOKEN.finditer(sentence)]
                tokens = [_PTB_BRACKETS.get(sentence[a:b], sentence[a:b]) for a, b in spans]
            out.append([(s_start + a, s_start + b, t) for (a, b), t in zip(spans, tokens)])
        return out


def split_at_sentence_final(tokens: list[str]) -> list[list[str]]:
    """Split a tokenized line after each ``. ? !`` that is followed by more tokens."""
    parts, start = [], 0
    for i, tok in enumerate(tokens):
        if tok in SENTENCE_FINAL and i + 1 < len(tokens) and tokens[i + 1] not in SENTENCE_FINAL \
                and tokens[i + 1] not in ("''", "'", "-RRB-"):
            parts.append(tokens[start:i + 1])
            start = i + 1
    if start < len(tokens):
        parts.append(tokens[start:])
    return parts
