"""What every scorer of :mod:`textqa.metrics` shares: its signature and the checks of its inputs."""
from __future__ import annotations

from textqa.version import __version__


class MetricInputError(ValueError):
    """Input a scorer cannot score: the message says which argument, which item and what is wrong."""


def signature(name: str, **params) -> str:
    """``NAME|key:value|...|version:textqa-X``: the scorer, every parameter, and the version, so that a
    reported number can be reproduced (sacrebleu's signatures are the model)."""
    def show(v):
        if isinstance(v, bool):
            return "yes" if v else "no"
        return str(v)
    return "|".join([name, *(f"{k}:{show(v)}" for k, v in params.items()), f"version:textqa-{__version__}"])


def text_of(value, what: str) -> str:
    """``value`` when it is a string, else a :class:`MetricInputError` naming ``what`` it was."""
    if not isinstance(value, str):
        raise MetricInputError(f"{what} is {type(value).__name__}, not a string")
    return value


def paired(hypotheses, references, what=("hypotheses", "references")):
    """The pairs of two sequences taken in step (iterables are read one item at a time), with a
    :class:`MetricInputError` when one ends before the other."""
    if isinstance(hypotheses, str) or isinstance(references, str):
        raise MetricInputError(f"{what[0]} and {what[1]} are lists of strings, one item per segment; "
                               f"a single string was given (sentence_score scores one segment)")
    hyp, ref = iter(hypotheses), iter(references)
    n = 0
    while True:
        h = next(hyp, _END)
        r = next(ref, _END)
        if h is _END or r is _END:
            if h is not r:
                longer, shorter = (what[0], what[1]) if r is _END else (what[1], what[0])
                rest = 1 + sum(1 for _ in (hyp if r is _END else ref))
                raise MetricInputError(f"{n + rest} {longer} but {n} {shorter}: give one of each per segment")
            return
        yield n, h, r
        n += 1


_END = object()
