"""Nugget F of TREC definition, "other" and relationship answers with Nuggeteer's automatic
judgement (Marton & Radul 2006; :mod:`textqa.evaluation.nuggeteer`): a person's judgements are reused
exactly; a response nobody judged contains a nugget when its n-gram recall of the nugget reaches the
threshold.  Each run's F is the mean over the key's questions, with a 95% bootstrap interval.

* ``key``: {question: {"nuggets": {number: {"description": text, "vital": True | False | None,
  "weight": number}}}}, as NIST's answer keys read (``vital`` None in a pyramid key; ``weight`` is
  needed only with ``pyramid=True`` and defaults to 1 for vital, 0 for okay nuggets);
* ``runs``: {run: {question: [response, ...]}} (a question a run left out scores 0);
* ``judgements``: {question: {response text: {nugget numbers it holds}}} (compared after folding
  case and spaces; an empty set: judged to hold none).

``threshold`` is a number, {question: number}, {question: {nugget: number}}, or ``"bayes"``: chosen by
Bayesian model selection over global, per-question and per-nugget models fitted to the judgements
(section 4.4, table 4).

>>> key = {"q1": {"nuggets": {1: {"description": "born in Paris", "vital": True},
...                           2: {"description": "wrote novels", "vital": False}}}}
>>> s = Nuggeteer().score(key, {"run1": {"q1": ["He was born in Paris in 1802."]}})
>>> round(s.runs["run1"].f, 4)
1.0
>>> q1 = s.runs["run1"].questions.get("q1")
>>> q1["nuggets"].get(1)
{'response': 0, 'how': 'guessed'}
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from textqa.evaluation.nuggeteer import DEFAULT_THRESHOLD, default_idf, normalize_response, score_runs
from textqa.runtime.metric import SetMetric
from textqa.runtime.metric_input import MetricInputError, signature


@dataclass(frozen=True)
class RunNuggets:
    """A run's mean ``f`` over the questions, its 95% bootstrap interval ``ci95``, and per question
    F with its parts and which response got which nugget (``"judged"`` or ``"guessed"``)."""
    f: float
    ci95: tuple
    questions: dict


@dataclass(frozen=True)
class NuggetScores:
    """{run: :class:`RunNuggets`}, and with ``threshold="bayes"`` the model selection behind them."""
    runs: dict
    threshold_selection: dict | None = None

    def as_dict(self) -> dict:
        """The command line's ``--json`` shape."""
        out = {"runs": {r: {"f": s.f, "ci95": list(s.ci95), "questions": s.questions} for r, s in self.runs.items()}}
        if self.threshold_selection is not None:
            out["threshold_selection"] = self.threshold_selection
        return out


class Nuggeteer(SetMetric):
    """Nugget F (F-beta with ``beta`` 3, or ``pyramid`` recall) with Nuggeteer's judgement (see the module)."""

    name = "nuggets"

    def __init__(self, threshold=DEFAULT_THRESHOLD, beta: float = 3.0, pyramid: bool = False, stem: bool = False,
                 remove_stopwords: bool = False, use_judged_ngrams: bool = True, resamples: int = 1000):
        if threshold != "bayes" and not isinstance(threshold, dict) and not _number(threshold):
            raise MetricInputError(f"threshold must be a number, a dict of them per question (or nugget) or "
                                   f"'bayes', not {threshold!r}")
        if not _number(beta) or beta <= 0:
            raise MetricInputError(f"beta must be a number > 0, not {beta!r}")
        if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
            raise MetricInputError(f"resamples must be a positive integer, not {resamples!r}")
        self.threshold = threshold
        self.beta = float(beta)
        self.pyramid = bool(pyramid)
        self.stem = bool(stem)
        self.remove_stopwords = bool(remove_stopwords)
        self.use_judged_ngrams = bool(use_judged_ngrams)
        self.resamples = resamples

    @property
    def signature(self) -> str:
        t = self.threshold if isinstance(self.threshold, str) else \
            ("per-item" if isinstance(self.threshold, dict) else f"{self.threshold:g}")
        return signature("nuggeteer", t=t, beta=f"{self.beta:g}", pyramid=self.pyramid, stem=self.stem,
                         stop=self.remove_stopwords, judged_ngrams=self.use_judged_ngrams, r=self.resamples)

    def score(self, key: dict, runs: dict, judgements: dict | None = None) -> NuggetScores:
        """Scores each run of ``runs`` against ``key`` (see the module)."""
        key = _key(key, self.pyramid)
        runs = _runs(runs)
        known = _judgements(judgements or {})
        options = {"stem": self.stem, "remove_stopwords": self.remove_stopwords}
        idf = default_idf(key, runs)
        threshold, selection = self.threshold, None
        if threshold == "bayes":
            from textqa.evaluation.nugget_thresholds import (  # deferred: loads scipy
                fill_thresholds,
                judged_pairs,
                select_thresholds,
            )
            try:
                selection = select_thresholds(judged_pairs(key, known, idf, **options))
            except ValueError as e:
                raise MetricInputError(str(e)) from None
            threshold = fill_thresholds(selection, key)
        r = score_runs(key, runs, known, threshold=threshold, beta=self.beta, pyramid=self.pyramid, idf=idf,
                       use_judged_ngrams=self.use_judged_ngrams, n_resamples=self.resamples, **options)
        return NuggetScores({name: RunNuggets(s["f"], tuple(s["ci95"]), s["questions"])
                             for name, s in r["runs"].items()}, selection)


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _key(key, pyramid: bool) -> dict:
    if not isinstance(key, dict) or not key:
        raise MetricInputError("key: give {question: {'nuggets': {number: {'description': ..., 'vital': ...}}}}")
    out = {}
    for q, entry in key.items():
        nuggets = entry.get("nuggets") if isinstance(entry, dict) else None
        if not isinstance(nuggets, dict) or not nuggets:
            raise MetricInputError(f"key[{q!r}]: give {{'nuggets': {{number: {{'description': ..., 'vital': ...}}}}}}")
        checked = {}
        for no, n in nuggets.items():
            where = f"key[{q!r}]['nuggets'][{no!r}]"
            if isinstance(no, bool) or not isinstance(no, int):
                raise MetricInputError(f"{where}: nugget numbers are integers")
            if not isinstance(n, dict) or not isinstance(n.get("description"), str):
                raise MetricInputError(f"{where}: give {{'description': text, 'vital': True | False}}")
            vital = n.get("vital")
            if vital is not None and not isinstance(vital, bool):
                raise MetricInputError(f"{where}: 'vital' is True, False or None, not {vital!r}")
            weight = n.get("weight", 1.0 if vital else 0.0)
            if not _number(weight) or not 0 <= weight <= 1:
                raise MetricInputError(f"{where}: 'weight' is a number in [0, 1], not {weight!r}")
            if vital is None and not pyramid:
                raise MetricInputError(f"{where}: a pyramid nugget (vital None) needs pyramid=True")
            if pyramid and "weight" not in n:
                raise MetricInputError(f"{where}: pyramid=True needs each nugget's 'weight'")
            checked[no] = {"vital": vital, "weight": float(weight), "description": n["description"]}
        out[q] = {"question": entry.get("question"), "nuggets": checked}
    return out


def _runs(runs) -> dict:
    if not isinstance(runs, dict) or not runs:
        raise MetricInputError("runs: give {run: {question: [response, ...]}}")
    for name, answers in runs.items():
        if not isinstance(answers, dict):
            raise MetricInputError(f"runs[{name!r}] is {type(answers).__name__}, not {{question: [response, ...]}}")
        for q, responses in answers.items():
            if isinstance(responses, str) or not isinstance(responses, (list, tuple)):
                raise MetricInputError(f"runs[{name!r}][{q!r}]: give a list of responses")
            for i, r in enumerate(responses):
                if not isinstance(r, str):
                    raise MetricInputError(f"runs[{name!r}][{q!r}][{i}] is {type(r).__name__}, not a string")
    return {name: {q: list(rs) for q, rs in answers.items()} for name, answers in runs.items()}


def _judgements(judgements) -> dict:
    if not isinstance(judgements, dict):
        raise MetricInputError("judgements: give {question: {response text: {nugget numbers}}}")
    out: dict = {}
    for q, known in judgements.items():
        if not isinstance(known, dict):
            raise MetricInputError(f"judgements[{q!r}]: give {{response text: {{nugget numbers}}}}")
        for text, nos in known.items():
            if not isinstance(text, str) or isinstance(nos, (str, bytes)) or not hasattr(nos, "__iter__") \
                    or not all(isinstance(x, int) and not isinstance(x, bool) for x in nos):
                raise MetricInputError(f"judgements[{q!r}][{text!r}]: give a set of nugget numbers")
            out.setdefault(q, {}).setdefault(normalize_response(text), set()).update(nos)
    return out
