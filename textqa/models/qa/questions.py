"""Training questions for the reader, each with what judges a candidate right: NIST answer patterns (the
TREC sets) or accepted answer strings (the open-domain sets), read from the files as they are shipped.

* TREC (``data/qa/trec_qa/derived/*.jsonl[.gz]``): ``{"qid", "question", "patterns", "target"?}``; a
  question of a TREC 2004-2006 series is about a target named outside it ("When did the submarine
  sink?" of the target "Russian submarine Kursk sinks"), so the target is added to its text
  (:func:`with_target`);
* Natural Questions (open) and TriviaQA, as DPR ships them: ``question<TAB>['answer', ...]`` (a Python
  list literal, read with :func:`ast.literal_eval`, which evaluates literals only; a field holding
  both kinds of quote is quoted CSV-style);
* WebQuestions: a JSON list of ``{"qId", "qText", "answers": [...]}``.

A candidate matches accepted answer strings as DrQA judges exact match (Chen et al. 2017): both
lowercased, without punctuation, articles and extra spaces (:func:`drqa_normalise`), then equal.
"""
from __future__ import annotations

import ast
import csv
import gzip
import io
import lzma
import re
import string
from dataclasses import dataclass, field
from pathlib import Path

from textqa.runtime.json_input import JSONInputError, parse_json

from .answers import pattern_match


class QuestionFileError(ValueError):
    """A question file that cannot be read; the message names the file (and line)."""


@dataclass
class TrainingQuestion:
    qid: str
    question: str
    patterns: list = field(default_factory=list)       # NIST answer patterns (TREC)
    answers: list = field(default_factory=list)        # accepted answer strings (open-domain sets)

    def matches(self, text: str) -> bool:
        """Whether ``text`` is a right answer: a pattern matches it, or it equals an accepted answer
        (:func:`drqa_normalise` on both)."""
        if self.patterns and pattern_match(self.patterns, text):
            return True
        if self.answers:
            norm = drqa_normalise(text)
            return bool(norm) and norm in self._accepted()
        return False

    def _accepted(self) -> frozenset:
        if not hasattr(self, "_norm"):
            self._norm = frozenset(n for n in (drqa_normalise(a) for a in self.answers) if n)
        return self._norm


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def drqa_normalise(text: str) -> str:
    """DrQA's (and SQuAD's) answer normalisation: lowercase, punctuation removed, the articles a, an
    and the removed, white space collapsed."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


def with_target(question: str, target: str | None) -> str:
    """A series question with its target, when the question does not name it already: ``"When did the
    submarine sink? (Russian submarine Kursk sinks)"``."""
    if not target or target.lower() in question.lower():
        return question
    return f"{question.rstrip()} ({target.strip()})"


def _text(path: Path) -> str:
    opener = {".gz": gzip.open, ".xz": lzma.open}.get(path.suffix, open)
    try:
        with opener(path, "rb") as f:
            return io.TextIOWrapper(f, encoding="utf-8", newline=None).read()
    except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError) as e:
        raise QuestionFileError(f"{path}: unreadable ({e})") from None


def _trec(path: Path, text: str):
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            o = parse_json(line)
        except JSONInputError as e:
            raise QuestionFileError(f"{path}:{n}: {e}") from None
        if not isinstance(o, dict) or not isinstance(o.get("question"), str):
            raise QuestionFileError(f'{path}:{n}: expected {{"qid", "question", "patterns"}}')
        if o.get("patterns"):
            yield TrainingQuestion(str(o.get("qid", n)), with_target(o["question"], o.get("target")),
                                   list(o["patterns"]))


def _tsv(path: Path, text: str):
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        fields = next(csv.reader([line.rstrip("\r")], delimiter="\t"), [])     # a field may be quoted, CSV-style
        try:
            question, answers = fields
            value = ast.literal_eval(answers)
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            value = None
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise QuestionFileError(f"{path}:{n}: expected question<TAB>['answer', ...]")
        yield TrainingQuestion(f"{path.parent.name}/{path.name.split('.')[0]}:{n}", question.strip(), answers=value)


def _webquestions(path: Path, text: str):
    try:
        items = parse_json(text)
    except JSONInputError as e:
        raise QuestionFileError(f"{path}: {e}") from None
    if not isinstance(items, list):
        raise QuestionFileError(f'{path}: expected a JSON list of {{"qId", "qText", "answers"}}')
    for o in items:
        if not isinstance(o, dict) or not isinstance(o.get("qText"), str) or not isinstance(o.get("answers"), list):
            raise QuestionFileError(f'{path}: expected a JSON list of {{"qId", "qText", "answers"}}')
        yield TrainingQuestion(str(o.get("qId")), o["qText"], answers=[str(a) for a in o["answers"]])


def read_training_questions(path: str | Path) -> list[TrainingQuestion]:
    """The questions of one file, its kind told by its name: ``*.jsonl`` (TREC, with patterns),
    ``*.tsv`` (NQ open, TriviaQA), ``*.json`` (WebQuestions); ``.gz`` and ``.xz`` are read as they are."""
    path = Path(path)
    name = path.name.lower()
    text = _text(path)
    if ".jsonl" in name:
        return list(_trec(path, text))
    if ".tsv" in name:
        return list(_tsv(path, text))
    if ".json" in name:
        return list(_webquestions(path, text))
    raise QuestionFileError(f"{path}: not a question file (.jsonl, .tsv or .json)")


def question_key(text: str) -> str:
    """A question's words, lowercased, without punctuation: TrecQA's tokenised text and TREC's raw
    text of the same question meet here."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def typed_questions(classifier, docs) -> list[tuple[dict, str]]:
    """(UIUC coarse distribution, fine class) of each parsed question, by an answer-type classifier:
    what the sentence ranker and the extraction models read."""
    return list(zip(classifier.distribution(docs), classifier.predict(docs)))
