"""A loaded truecaser with its tokenizer: what the CLI and the HTTP service call."""
from __future__ import annotations

import re
from pathlib import Path

from textqa.models.artifact import artifact_id
from textqa.runtime.loaded import LoadedModel

from .casing import transfer_case
from .model import Truecaser
from .store import load_truecaser

_TOKEN = re.compile(r"\S+")


class TruecaserService(LoadedModel):
    """Truecase tokenized sentences or raw text with the LM truecaser or the unigram baseline.

    ``tokenizer``: a ``PTBTokenizer``, or the folder of its Punkt tables, read (and NLTK imported)
    only when raw text is first truecased: tokenized input never needs them."""

    def __init__(self, model: Truecaser, tokenizer, manifest: dict | None = None):
        self.model = model
        self._tokenizer = tokenizer
        self.manifest = manifest or {}
        self.version = {"name": self.manifest.get("name", "truecaser"),
                        "created_at": self.manifest.get("created_at"), "id": artifact_id(self.manifest)}

    def status(self) -> dict[str, str]:
        """The search that decodes: the C++ library or the Python search, and why."""
        return {"search": self.model.search_status()}

    def warm_up(self) -> None:
        self.truecase("warm up .")

    @property
    def tokenizer(self):
        """The PTB tokenizer of raw text (built on first use from the artifact's Punkt tables)."""
        if isinstance(self._tokenizer, (str, Path)):
            from .tokenize import PTBTokenizer  # deferred: loads nltk
            self._tokenizer = PTBTokenizer(self._tokenizer)
        return self._tokenizer

    @classmethod
    def load(cls, path: str | Path, **params) -> "TruecaserService":
        """The truecaser in artifact folder ``path``, decoding as trained, or with the estimator
        parameters ``params`` changed (``Truecaser.set_params``: the registry's load options, such as
        ``decoder="trigram"``, stand for such parameters), its search then made (``Truecaser.prepare``)."""
        path = Path(path)
        model = load_truecaser(path)
        if params:
            model.set_params(**params)
        model.prepare()
        return cls(model, path / "punkt", model.manifest_)      # its tables were verified with the rest

    def _predict(self, token_lists: list[list[str]], baseline: bool) -> list[list[str]]:
        if baseline:
            return [self.model.baseline_.predict_tokens(t) for t in token_lists]
        return self.model.predict_tokens(token_lists)

    def _recase(self, texts: list[str], sentence_spans: list, baseline: bool) -> list[str]:
        """Decode every sentence of every text in one batch and change only the case of the
        characters inside each token's span.  ``sentence_spans[i]`` lists the sentences of
        ``texts[i]``, each a list of ``(start, end, token)``."""
        flat = [sentence for sentences in sentence_spans for sentence in sentences]
        cased = iter(self._predict([[tok for _, _, tok in sentence] for sentence in flat], baseline))
        out = []
        for text, sentences in zip(texts, sentence_spans):
            chars = list(text)
            for sentence in sentences:
                for (a, b, _), tok in zip(sentence, next(cased)):
                    chars[a:b] = list(transfer_case(text[a:b], tok))   # same length: spans stay valid
            out.append("".join(chars))
        return out

    def truecase_tokenized(self, sentences: list[str], baseline: bool = False) -> list[str]:
        """Whitespace-tokenized sentences in, the same characters out with only their case changed.

        Each string is one sentence (or line); its whitespace is kept as it was.
        """
        token_lists = [s.split() for s in sentences]            # the \\S+ runs, as the spans below
        out = []
        for s, tokens, cased in zip(sentences, token_lists, self._predict(token_lists, baseline)):
            if s.isascii():
                joined = " ".join(cased)
                # an ASCII line single-spaced whose re-cased tokens, joined, differ from it in case only:
                # lower() keeps ASCII lengths, so every token passes transfer_case's test and is its
                # re-cased form, and the line is the re-cased tokens joined (the same string, built once)
                if joined.lower() == s.lower() and joined.isascii():
                    out.append(joined)
                    continue
            recased = [transfer_case(t, c) for t, c in zip(tokens, cased)]
            if " ".join(tokens) == s:                             # single spaces: rejoin
                out.append(" ".join(recased))
                continue
            pieces, prev = [], 0                                  # other whitespace: kept as it was
            for m, c in zip(_TOKEN.finditer(s), recased):
                pieces += [s[prev:m.start()], c]
                prev = m.end()
            out.append("".join(pieces) + s[prev:])
        return out

    def truecase_texts(self, texts: list[str], baseline: bool = False) -> list[str]:
        """Raw texts in; the same texts out with only the case of their letters changed."""
        return self._recase(texts, [self.tokenizer.spans(t) if t.strip() else [] for t in texts], baseline)

    def truecase_text(self, text: str, baseline: bool = False) -> str:
        return self.truecase_texts([text], baseline)[0]

    def truecase(self, text: str, baseline: bool = False) -> str:
        """Raw text in, the same text out with only the case of its letters changed."""
        return self.truecase_text(text, baseline)
