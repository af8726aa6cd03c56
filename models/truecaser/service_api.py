"""A loaded truecaser with its tokenizer: what the CLI and the HTTP service call."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from .casing import transfer_case
from .model import Truecaser, load_truecaser
from .tokenize import PTBTokenizer

_TOKEN = re.compile(r"\S+")


class TruecaserService:
    """Truecase tokenized sentences or raw text with the LM truecaser or the unigram baseline."""

    def __init__(self, model: Truecaser, tokenizer: PTBTokenizer, manifest: dict | None = None):
        self.model = model
        self.tokenizer = tokenizer
        self.manifest = manifest or {}
        files = self.manifest.get("files", {})
        digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:12]
        self.version = {"name": self.manifest.get("name", "truecaser"),
                        "created_at": self.manifest.get("created_at"), "id": digest}

    @classmethod
    def load(cls, path: str | Path) -> "TruecaserService":
        path = Path(path)
        model = load_truecaser(path)
        return cls(model, PTBTokenizer(path / "punkt"), model.manifest_)

    def _predict(self, token_lists: list[list[str]], baseline: bool) -> list[list[str]]:
        if baseline:
            return [self.model.baseline_.predict_tokens(t) for t in token_lists]
        return self.model.predict_tokens(token_lists)

    def truecase_tokenized(self, sentences: list[str], baseline: bool = False) -> list[str]:
        """Whitespace-tokenized sentences in, the same characters out with only their case changed.

        Each string is one sentence (or line); its whitespace is kept as it was.
        """
        spans = [[m.span() for m in _TOKEN.finditer(s)] for s in sentences]
        token_lists = [[s[a:b] for a, b in sp] for s, sp in zip(sentences, spans)]
        cased = self._predict(token_lists, baseline)
        out = []
        for s, sp, toks in zip(sentences, spans, cased):
            chars = list(s)
            for (a, b), tok in zip(sp, toks):
                chars[a:b] = list(transfer_case(s[a:b], tok))
            out.append("".join(chars))
        return out

    def truecase_text(self, text: str, baseline: bool = False) -> str:
        """Raw text in; the same text out with only the case of its letters changed."""
        if not text.strip():
            return text
        sentences = self.tokenizer.spans(text)
        token_lists = [[tok for _, _, tok in s] for s in sentences]
        cased = self._predict(token_lists, baseline)
        chars = list(text)
        for spans, toks in zip(sentences, cased):
            for (a, b, _), tok in zip(spans, toks):
                new = transfer_case(text[a:b], tok)
                if new != text[a:b]:
                    chars[a:b] = list(new)
        return "".join(chars)

    def truecase_texts(self, texts: list[str], baseline: bool = False) -> list[str]:
        return [self.truecase_text(t, baseline) for t in texts]
