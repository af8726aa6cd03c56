"""Nuggeteer's automatic nugget judgement (Marton & Radul 2006, section 2).

One binary classifier per nugget, built from the n-grams (n <= 3) of the nugget's
description and, optionally, of responses a person judged to contain it:

* weight W(g, ngram): sum of the unigram idf of its words (section 2.1); the idf
  table comes from a corpus the caller passes (by default the responses themselves);
* informativeness I(g, ngram) = 1 - (number of the question's nuggets whose
  n-gram set contains it) / |G|                                     (eq. 1-2);
* Recall(g, response) = sum over the response's n-grams of W * I     (eq. 3);
  a response contains g when its recall reaches the threshold.

Choices where the paper is terse (documented, with options): each distinct n-gram
of a response counts once, and the sum is divided by the same sum over the
nugget's own n-grams (``normalize=True``) so that one global threshold means the
same for long and short nuggets; ``normalize=False`` gives the raw sum of eq. 3.
Thresholds may be global, per question or per nugget.  Known judgements are used
exactly (responses compared after normalising whitespace and case); a response
judged for this question but not for a nugget does not contain it (footnote 2).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from textqa.errors import InputError
from textqa.runtime.files import read_lines, tsv_rows

from .nugget import non_whitespace_length, official_f, pyramid_f
from .stats import bootstrap_ci

_WORD = re.compile(r"\w+")


def normalize_response(text: str) -> str:
    return " ".join(text.lower().split())


def _stop_words() -> frozenset:
    """scikit-learn's English stop words, imported on first use: importing scikit-learn takes a
    second, which every ``textqa`` command would otherwise pay for building its parser."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # deferred: loads sklearn, scipy, joblib
    return ENGLISH_STOP_WORDS


@dataclass
class NuggetJudge:
    """Per-question nugget classifiers.  ``nuggets``: {nugget_no: description}."""

    nuggets: dict
    idf: dict = field(default_factory=dict)
    max_n: int = 3
    stem: bool = False
    remove_stopwords: bool = False
    normalize: bool = True
    judged_responses: dict = field(default_factory=dict)   # {nugget_no: [texts judged to contain it]}

    def __post_init__(self):
        self._stemmer = None
        if self.stem:
            from nltk.stem import PorterStemmer  # deferred: loads sklearn, scipy, nltk
            self._stemmer = PorterStemmer()
        texts = {g: [d] + list(self.judged_responses.get(g, [])) for g, d in self.nuggets.items()}
        self.ngrams_ = {g: set().union(*(self.ngrams(t) for t in ts)) for g, ts in texts.items()}
        df = Counter(ng for s in self.ngrams_.values() for ng in s)
        n_g = len(self.nuggets)
        self.informativeness_ = {ng: 1.0 - c / n_g for ng, c in df.items()}
        # fsum: the n-grams are a set, whose order follows the hash seed; a plain sum's last bits
        # would too, and a recall exactly at the threshold would then fall either side of it
        self.own_total_ = {g: math.fsum(self._score(g, ng) for ng in self.ngrams(self.nuggets[g])) or 1.0
                           for g in self.nuggets}

    def words(self, text: str) -> list[str]:
        ws = _WORD.findall(text.lower())
        if self.remove_stopwords:
            stop = _stop_words()
            ws = [w for w in ws if w not in stop]
        if self._stemmer is not None:
            ws = [self._stemmer.stem(w) for w in ws]
        return ws

    def ngrams(self, text: str) -> set:
        ws = self.words(text)
        return {tuple(ws[i:i + n]) for n in range(1, self.max_n + 1) for i in range(len(ws) - n + 1)}

    def weight(self, ngram: tuple) -> float:
        """W (section 2.1): sum of unigram idf; unseen words get the largest idf in the table (or 1)."""
        default = max(self.idf.values()) if self.idf else 1.0
        return sum(self.idf.get(w, default) for w in ngram)

    def _score(self, g, ngram) -> float:
        if ngram not in self.ngrams_[g]:
            return 0.0
        return self.weight(ngram) * self.informativeness_[ngram]

    def recall(self, g, response: str) -> float:
        """Eq. 3 (normalised by the nugget's own score when ``normalize``)."""
        total = math.fsum(self._score(g, ng) for ng in self.ngrams(response))
        return total / self.own_total_[g] if self.normalize else total

    def contains(self, g, response: str, threshold: float) -> bool:
        return self.recall(g, response) >= threshold


def idf_table(documents: list[str], words=None) -> dict:
    """idf(w) = log(N / df(w)) over ``documents`` (tokenised like the judge when ``words`` is given)."""
    tokenize = words or (lambda t: _WORD.findall(t.lower()))
    df = Counter(w for d in documents for w in set(tokenize(d)))
    n = len(documents)
    return {w: math.log(n / c) for w, c in df.items()} if n else {}


def assign_nuggets(judge: NuggetJudge, responses: list[str], threshold, known: dict | None = None) -> dict:
    """For one question: {nugget_no: (response index or None, "judged"|"guessed"|None)}.

    ``threshold``: a number, or {nugget_no: number}.  ``known``: {normalised response: set of
    nugget numbers a person judged it to contain}; a known response is never guessed.
    The first response that contains a nugget gets it (section 2.3).
    """
    known = known or {}
    out = {}
    for g in judge.nuggets:
        t = threshold[g] if isinstance(threshold, dict) else threshold
        out[g] = (None, None)
        for i, text in enumerate(responses):
            key = normalize_response(text)
            if key in known:
                if g in known[key]:
                    out[g] = (i, "judged")
                    break
                continue
            if judge.contains(g, text, t):
                out[g] = (i, "guessed")
                break
    return out


# ------------------------------------------------------------------ runs and files
def read_responses(path) -> dict:
    """``qid<TAB>run<TAB>response_no<TAB>text`` -> {run: {qid: [texts in response order]}}."""
    rows: dict = {}
    for lineno, parts in tsv_rows(path, 4, "qid, run, response_no, text"):
        qid, run, no, text = parts
        try:
            n = int(no)
        except ValueError:
            raise InputError(f"{path}:{lineno}: response number {no!r} is not an integer") from None
        per_q = rows.setdefault(run, {}).setdefault(qid, {})
        if n in per_q:
            raise InputError(f"{path}:{lineno}: response {n} of run {run} question {qid} given twice")
        per_q[n] = text
    return {run: {q: [t for _, t in sorted(r.items())] for q, r in qs.items()} for run, qs in rows.items()}


def read_judgements(path) -> dict:
    """``qid<TAB>nugget_nos<TAB>text`` (comma-separated numbers, empty = judged to hold none)
    -> {qid: {normalised text: set of nugget numbers}}."""
    out: dict = {}
    for lineno, parts in tsv_rows(path, 3, "qid, nugget numbers, response text"):
        qid, nos, text = parts
        try:
            nuggets = {int(x) for x in nos.split(",") if x.strip()}
        except ValueError:
            raise InputError(f"{path}:{lineno}: nugget numbers {nos!r} are not comma-separated integers") \
                from None
        out.setdefault(qid, {}).setdefault(normalize_response(text), set()).update(nuggets)
    return out


def read_trec_other_judged(paths) -> tuple[dict, dict]:
    """NIST's judged "other" files (TREC 2004-2006 ``RUN-X.otherjudged``) -> (runs, judgements).

    NIST's README for the TREC 14 QA data gives two parts per question: the submitted
    items, ``qid tag item-number docno string``, then the nuggets assessors found,
    ``qid tag item-number nugget-number`` (a nugget is marked once, in the item the
    assessor chose).  Every item of such a file was judged, so an item without nuggets is
    known to contain none.  ``runs`` is {tag: {qid: [strings by item number]}},
    ``judgements`` {qid: {normalised string: nugget numbers}} as :func:`read_judgements`.
    """
    runs: dict = {}
    judgements: dict = {}
    for path in paths:
        items: dict = {}
        marks: dict = {}
        for lineno, line in enumerate(read_lines(path), start=1):
            if not line.strip():
                continue
            parts = line.split(None, 4)
            if len(parts) < 4:
                raise InputError(f"{path}:{lineno}: expected 'qid tag item docno string' or "
                                     f"'qid tag item nugget', got {len(parts)} fields")
            qid, tag, item = parts[:3]
            try:
                item_no = int(item)
            except ValueError:
                raise InputError(f"{path}:{lineno}: item number {item!r} is not an integer") from None
            if len(parts) == 4 and parts[3].isdigit():
                marks.setdefault((tag, qid, item_no), []).append((lineno, int(parts[3])))
            elif (tag, qid, item_no) in items:
                raise InputError(f"{path}:{lineno}: item {item_no} of {tag} question {qid} given twice")
            else:
                items[(tag, qid, item_no)] = parts[4] if len(parts) == 5 else ""
        for (tag, qid, item_no), ms in marks.items():
            if (tag, qid, item_no) not in items:
                raise InputError(f"{path}:{ms[0][0]}: nugget {ms[0][1]} marked in item {item_no} of {tag} "
                                     f"question {qid}, which the file does not list")
        for (tag, qid, item_no), text in sorted(items.items()):
            runs.setdefault(tag, {}).setdefault(qid, []).append(text)
            nuggets = {g for _, g in marks.get((tag, qid, item_no), [])}
            judgements.setdefault(qid, {}).setdefault(normalize_response(text), set()).update(nuggets)
    return runs, judgements


def default_idf(key: dict, runs: dict) -> dict:
    """The idf table used when none is given: all responses of all runs plus the nugget descriptions."""
    texts = [t for qs in runs.values() for ts in qs.values() for t in ts]
    return idf_table(texts + [n["description"] for q in key.values() for n in q["nuggets"].values()])


DEFAULT_THRESHOLD = 0.5


def score_runs(key: dict, runs: dict, judgements: dict | None = None, threshold=DEFAULT_THRESHOLD, beta: float = 3.0,
               pyramid: bool = False, idf: dict | None = None, stem: bool = False,
               remove_stopwords: bool = False, use_judged_ngrams: bool = True, n_resamples: int = 1000) -> dict:
    """Score runs against an answer key: per question F, mean F with a 95% bootstrap interval,
    and which response got which nugget (judged or guessed).

    ``threshold``: a number, {qid: number} or {qid: {nugget_no: number}}.  Questions of the
    key that a run did not answer score 0.
    """
    judgements = judgements or {}
    idf = idf if idf is not None else default_idf(key, runs)
    judges = {}
    for qid, q in key.items():
        nuggets = {g: n["description"] for g, n in q["nuggets"].items()}
        judged = {}
        if use_judged_ngrams:
            for text, gs in judgements.get(qid, {}).items():
                for g in gs:
                    judged.setdefault(g, []).append(text)
        judges[qid] = NuggetJudge(nuggets, idf=idf, stem=stem, remove_stopwords=remove_stopwords,
                                  judged_responses=judged)
    out = {}
    for run, answers in sorted(runs.items()):
        questions = {}
        for qid, q in key.items():
            responses = answers.get(qid, [])
            t = threshold.get(qid, DEFAULT_THRESHOLD) if isinstance(threshold, dict) else threshold
            assigned = assign_nuggets(judges[qid], responses, t, judgements.get(qid))
            found = [g for g, (i, _) in assigned.items() if i is not None]
            length = sum(non_whitespace_length(r) for r in responses)
            if pyramid:
                s = pyramid_f([q["nuggets"][g]["weight"] for g in found],
                              [n["weight"] for n in q["nuggets"].values()], length, beta)
            else:
                vital = sum(1 for g in found if q["nuggets"][g]["vital"])
                okay = len(found) - vital
                vital_total = sum(1 for n in q["nuggets"].values() if n["vital"])
                s = official_f(vital, okay, vital_total, length, beta)
            s["nuggets"] = {g: {"response": i, "how": how} for g, (i, how) in assigned.items()}
            questions[qid] = s
        fs = [q["f"] for q in questions.values()]
        mean = sum(fs) / len(fs) if fs else 0.0
        ci = list(bootstrap_ci(lambda x: float(sum(x) / len(x)), fs, n_resamples=n_resamples)) \
            if len(fs) >= 2 else [mean, mean]
        out[run] = {"f": mean, "ci95": ci, "questions": questions}
    return {"runs": out}
