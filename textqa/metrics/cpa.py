"""SemEval-2015 Task 15, Corpus Pattern Analysis (:mod:`textqa.evaluation.cpa`), as the task's
evaluation page defines its three scores, or with ``official=True`` as the official scorer computes
them (its known deviations from the page: see the evaluation module).

* task 1, labels of each layer: ``{verb: {layer: {item: label}}}``; per category F, averaged within a
  layer, layers per verb, verbs;
* task 2, clusters: ``{verb: {instance: cluster}}``; B-cubed F per verb, verbs averaged;
* task 3, patterns: ``{verb: {pattern: {slot: semantic type}}}``; slots aligned by name, partial credit
  for a hypernym (``hierarchy``: {type: parent type}), F per verb, verbs averaged.

>>> gold = {"say": {"a": "1", "b": "1", "c": "2"}}
>>> round(CPA(task=2).score(gold, {"say": {"a": "x", "b": "y", "c": "y"}}).score, 4)
0.6667
"""
from __future__ import annotations

from dataclasses import dataclass

from textqa.evaluation import cpa
from textqa.runtime.metric import SetMetric
from textqa.runtime.metric_input import MetricInputError, signature

_DEPTH = {1: 3, 2: 2, 3: 3}         # nesting of each task's judgements, down to the string labels
_SHAPE = {1: "{verb: {layer: {item: label}}}", 2: "{verb: {instance: cluster}}",
          3: "{verb: {pattern: {slot: semantic type}}}"}


@dataclass(frozen=True)
class CPAScore:
    """``score``: the mean over verbs; ``verbs``: each verb's score and its parts (task 1: per layer;
    task 2: B-cubed precision and recall; task 3: correct, substituted, deleted and inserted slots)."""
    score: float
    verbs: dict


class CPA(SetMetric):
    """The score of ``task`` 1, 2 or 3 (see the module); ``official``: as the official scorer."""

    name = "CPA"

    def __init__(self, task: int, official: bool = False):
        if task not in (1, 2, 3) or isinstance(task, bool):
            raise MetricInputError(f"task must be 1, 2 or 3, not {task!r}")
        self.task = task
        self.official = bool(official)

    @property
    def signature(self) -> str:
        return signature("SemEval2015-CPA", task=self.task, scorer="official" if self.official else "page")

    def score(self, gold: dict, run: dict, hierarchy: dict | None = None) -> CPAScore:
        """Scores ``run`` against ``gold`` (both in the task's shape; see the module)."""
        for value, what in ((gold, "gold"), (run, "run")):
            _check(value, _DEPTH[self.task], what, _SHAPE[self.task])
        if hierarchy is not None:
            if self.task != 3:
                raise MetricInputError("hierarchy: only task 3 gives partial credit for hypernyms")
            _check(hierarchy, 1, "hierarchy", "{type: parent type}")
        if self.task == 1:
            r = cpa.score_task1(gold, run, self.official)
        elif self.task == 2:
            r = cpa.score_task2(gold, run, self.official)
        else:
            r = cpa.score_task3(gold, run, hierarchy or {}, self.official)
        return CPAScore(r["score"], r["verbs"])


def _check(value, depth: int, what: str, shape: str) -> None:
    if not isinstance(value, dict):
        raise MetricInputError(f"{what} is {type(value).__name__}, not {shape}")
    for k, v in value.items():
        if not isinstance(k, str):
            raise MetricInputError(f"{what}: key {k!r} is not a string (give {shape})")
        if depth == 1:
            if not isinstance(v, str):
                raise MetricInputError(f"{what}[{k!r}] is {v!r}, not a string (give {shape})")
        else:
            _check(v, depth - 1, f"{what}[{k!r}]", shape)
