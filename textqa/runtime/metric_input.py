"""What every scorer of :mod:`textqa.metrics` shares: its signature and the checks of its inputs.

They live below the models so that a scorer defined with its model (BLANC) checks its input as the
others do; :mod:`textqa.metrics` is where users import them from."""
from __future__ import annotations

from textqa.errors import InputError
from textqa.version import __version__


class MetricInputError(InputError):
    """Input a scorer cannot score: the message says which argument, which item and what is wrong.
    A ``ValueError``; the command line prints it as it prints any bad input, without a traceback."""


MetricInputError.__module__ = "textqa.metrics"      # where users import it from, as tracebacks name it


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


def references_per_segment(references, segments: int, sentences: bool = False) -> list[list]:
    """``references`` as one list of reference strings per segment (a variable number each; a plain
    string is one reference), checked against the number of ``segments``.  sacrebleu's layout, one
    list per reference *stream* (``references[k][i]``: reference k of segment i), is refused where
    it can be told apart (the counts disagree), with both layouts named; with as many streams as
    segments the two cannot be told apart, so give segments first.  ``sentences``: a reference may also
    be a list of its sentences (ROUGE's summaries)."""
    if isinstance(references, str):
        raise MetricInputError("references is a single string: give one list of references per segment, "
                               "references[i] = [reference 1 of segment i, reference 2 of segment i, ...]")
    try:
        refs = list(references)
    except TypeError:
        raise MetricInputError(f"references is {type(references).__name__}, not a list of references per "
                               f"segment") from None
    if len(refs) != segments:
        if refs and all(not isinstance(r, str) and hasattr(r, "__len__") and len(r) == segments for r in refs):
            raise MetricInputError(
                f"references has {len(refs)} lists of {segments} strings: that is sacrebleu's layout, one list "
                f"per reference stream (references[k][i] = reference k of segment i); textqa takes references per "
                f"segment (references[i] = the references of segment i): pass list(map(list, zip(*references)))")
        raise MetricInputError(f"{segments} hypotheses but references for {len(refs)} segments: give one list of "
                               f"references per segment")
    out = []
    for i, r in enumerate(refs):
        if isinstance(r, str):
            out.append([r])
            continue
        try:
            items = list(r)
        except TypeError:
            raise MetricInputError(f"references[{i}] is {type(r).__name__}, not a string or a list of strings") \
                from None
        if not items:
            raise MetricInputError(f"references[{i}] is empty: each segment needs at least one reference")
        for k, x in enumerate(items):
            if sentences and not isinstance(x, str):
                texts(x, f"references[{i}][{k}]")
            else:
                text_of(x, f"references[{i}][{k}]")
        out.append(items)
    return out


def texts(values, what: str) -> list[str]:
    """``values`` as a list of strings (a plain string is refused: a list of segments is expected)."""
    if isinstance(values, str):
        raise MetricInputError(f"{what} is a single string: give a list with one string per segment")
    try:
        items = list(values)
    except TypeError:
        raise MetricInputError(f"{what} is {type(values).__name__}, not a list of strings") from None
    for i, v in enumerate(items):
        text_of(v, f"{what}[{i}]")
    return items
