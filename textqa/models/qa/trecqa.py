"""TrecQA answer-sentence-selection data (Wang, Smith & Mitamura 2007; the jacana files).

Pseudo-XML: ``<QApairs id='1.4'>`` blocks with one ``<question>`` and any number of
``<positive>`` / ``<negative>`` candidates, each five tab-separated lines: tokens, POS tags,
dependency labels, head indices, BBN named-entity tags (``PERSON-B``, ``GPE-I``, ``-``).
Candidates keep their file order (the index ``textqa qa select`` reports).  In these files
the correct candidates come first, so any evaluation must not reward file order among ties
(``NOTES.md``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..textio import read_lines


class TrecQAError(ValueError):
    """Malformed TrecQA input; the message names file and line."""


@dataclass
class Sentence:
    tokens: list
    pos: list = field(default_factory=list)
    ner: list = field(default_factory=list)
    answer: list | None = None          # answer tokens, where the file gives them

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def entities(self) -> list[tuple[int, int, str]]:
        """(start, end, type) spans from the B/I tags."""
        spans, start, kind = [], None, None
        for i, tag in enumerate(self.ner + ["-"]):
            t, _, bi = tag.rpartition("-") if tag != "-" else ("", "", "")
            if start is not None and (not t or bi == "B" or t != kind):
                spans.append((start, i, kind))
                start = None
            if t and (bi == "B" or start is None):
                start, kind = i, t
        return spans


@dataclass
class QAPair:
    qid: str
    question: Sentence
    candidates: list            # [(label 0/1, Sentence)] in file order
    line: int = 0


_OPEN = re.compile(r"<QApairs\s+id=['\"]([^'\"]+)['\"]\s*>")
_PARTS = ("question", "positive", "negative")


def read_trecqa(path) -> list[QAPair]:
    lines = read_lines(path, TrecQAError)
    pairs: list[QAPair] = []
    current: QAPair | None = None
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        lineno = i + 1
        i += 1
        if not line:
            continue
        m = _OPEN.match(line)
        if m:
            if current is not None:
                raise TrecQAError(f"{path}:{lineno}: <QApairs> inside <QApairs id={current.qid!r}>")
            current = QAPair(m.group(1), None, [], lineno)
            continue
        if line == "</QApairs>":
            if current is None or current.question is None:
                raise TrecQAError(f"{path}:{lineno}: </QApairs> without an open block with a <question>")
            pairs.append(current)
            current = None
            continue
        tag = line.strip("<>")
        if tag in _PARTS:
            if current is None:
                raise TrecQAError(f"{path}:{lineno}: <{tag}> outside <QApairs>")
            end = i
            while end < len(lines) and lines[end].strip() != f"</{tag}>":
                if _OPEN.match(lines[end].strip()) or lines[end].strip().strip("<>") in _PARTS:
                    break
                end += 1
            if end >= len(lines) or lines[end].strip() != f"</{tag}>" or end - i < 5:
                raise TrecQAError(f"{path}:{lineno}: <{tag}> must hold at least 5 lines (tokens, POS, deps, "
                                  f"heads, NER) and then </{tag}>")
            cols = [b.split("\t") for b in lines[i:i + 5]]
            if len({len(c) for c in (cols[0], cols[1], cols[4])}) != 1 or not cols[0] or not cols[0][0]:
                raise TrecQAError(f"{path}:{lineno + 1}: <{tag}> token, POS and NER lines differ in length")
            answer = lines[i + 5].split("\t") if end - i >= 6 else None     # TRAIN files: the answer tokens
            sent = Sentence(cols[0], cols[1], cols[4], answer)
            i = end + 1
            if tag == "question":
                current.question = sent
            else:
                current.candidates.append((1 if tag == "positive" else 0, sent))
            continue
        raise TrecQAError(f"{path}:{lineno}: unexpected line {line[:40]!r}")
    if current is not None:
        raise TrecQAError(f"{path}: <QApairs id={current.qid!r}> (line {current.line}) is not closed")
    if not pairs:
        raise TrecQAError(f"{path}: no <QApairs> blocks")
    return pairs


def read_qids(path) -> set[str]:
    return {l.strip() for l in read_lines(path, TrecQAError) if l.strip()}
