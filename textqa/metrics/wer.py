"""Word and character error rates on Python strings or lists of units: :class:`WER` and :class:`CER`.

``WER = (S + D + I) / N``: substitutions, deletions and insertions of the minimum-cost alignment of
hypothesis and reference, over the ``N`` reference words.  Insertions count, so the rate exceeds 1
when the hypothesis holds more wrong words than the reference holds words ("a b c d" for "a":
three insertions and nothing right, 3.0).

Two alignments:

* ``costs="sclite"`` (the default): NIST sclite's costs (substitution 4, insertion and deletion 3)
  and its choice among alignments of equal cost, case-insensitive for ASCII letters as sclite is by
  default: the counts ``textqa eval wer`` gives and sclite's, to the word;
* ``costs="levenshtein"``: every edit costs 1, the alignment of RapidFuzz's Levenshtein ``editops``,
  which jiwer reports.  The rate is the edit distance over ``N``; the two alignments give the same
  number of errors on most segments and may split them differently between S, D and I.

Both are :func:`textqa.evaluation.wer.alignment`'s, and so are the rates (``rate``, ``rates``):
this module holds the objects, that one the computation.

A segment is a string, split into units as ``unit`` says, or a list of units already split (what
``textqa eval wer`` gives from its STM and CTM files, where an empty word, sclite's ``;x``, is a
unit): ``sentence_score``, ``corpus_score``, ``segment_statistics`` and ``alignment`` take either.

An empty reference (no word after splitting) has no rate of its own: a segment with no reference
and no hypothesis scores 0.0, one with hypothesis words ``inf`` (all insertions, over nothing).
Over a corpus the rate is the errors of all segments over all their reference words, so empty
references add their insertions and nothing to ``N``.

Units (``unit``): ``"word"`` splits on white space; ``"char"`` aligns characters, the spaces between
words included (the text's ends stripped), which :class:`CER` is; ``"mixed"`` splits on white space
and then makes each character of a script written without spaces between words (Han, Hiragana,
Katakana, Thai, Lao, Khmer, Myanmar, Tibetan) a unit of its own, so that Chinese or Japanese within
other text is scored by character and the rest by word (what sclite's ``-c NOASCII`` does for
every non-ASCII character).

>>> WER().sentence_score("the cat sat on mat", "the cat sat on the mat")
WERScore(score=0.1667, correct=5, substitutions=0, deletions=1, insertions=0, reference_words=6)
>>> WER().corpus_score(["a b c d"], ["a"]).score
3.0
>>> CER().sentence_score("kitten", "sitting").score
0.4286
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

from textqa.evaluation import wer as aligner
from textqa.evaluation.wer import COSTS
from textqa.runtime.metric import SegmentMetric
from textqa.runtime.metric_input import MetricInputError, paired, signature

OPS = "CSDI"                # an alignment's operations, by index: correct, substitution, deletion, insertion
UNITS = ("word", "char", "mixed")
_UNSPACED = r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}]"


@dataclass(frozen=True)
class WERScore:
    """A rate and its parts.  ``score`` = ``(substitutions + deletions + insertions) /
    reference_words``, rounded to 4 digits for display (``rate`` is exact); it exceeds 1 when the
    insertions are many.  ``segments``: how many segments it sums."""
    score: float
    correct: int
    substitutions: int
    deletions: int
    insertions: int
    reference_words: int
    segments: int = 1
    rate: float = 0.0

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    def __add__(self, other: "WERScore") -> "WERScore":
        """The rate of both together: their counts summed (a corpus is the sum of its segments)."""
        return _score(self.correct + other.correct, self.substitutions + other.substitutions,
                      self.deletions + other.deletions, self.insertions + other.insertions,
                      self.segments + other.segments)

    @classmethod
    def zero(cls) -> "WERScore":
        """The score of no segment: what a sum starts from."""
        return _score(0, 0, 0, 0, 0)

    def __repr__(self) -> str:
        return (f"WERScore(score={self.score}, correct={self.correct}, substitutions={self.substitutions}, "
                f"deletions={self.deletions}, insertions={self.insertions}, reference_words={self.reference_words})")

    def as_dict(self) -> dict:
        return {"score": self.rate, "correct": self.correct, "substitutions": self.substitutions,
                "deletions": self.deletions, "insertions": self.insertions, "errors": self.errors,
                "reference_words": self.reference_words, "segments": self.segments}


class WER(SegmentMetric):
    """Word error rate (see the module).  ``costs``: ``"sclite"`` or ``"levenshtein"``;
    ``case_sensitive``: compare words as written (sclite's default, and so this one's, folds ASCII
    letters); ``unit``: ``"word"``, ``"char"`` or ``"mixed"``."""

    name = "WER"

    def __init__(self, costs: str = "sclite", case_sensitive: bool = False, unit: str = "word"):
        if costs not in COSTS:
            raise MetricInputError(f"costs must be one of {', '.join(COSTS)}, not {costs!r}")
        if unit not in UNITS:
            raise MetricInputError(f"unit must be one of {', '.join(UNITS)}, not {unit!r}")
        self.costs, self.case_sensitive, self.unit = costs, bool(case_sensitive), unit

    @property
    def signature(self) -> str:
        return signature(self.name, costs=self.costs, case=self.case_sensitive, unit=self.unit)

    def units(self, text: str) -> list[str]:
        """The units ``text`` is aligned by."""
        if self.unit == "char":
            return list(text.strip())
        words = text.split()
        if self.unit == "mixed":
            import regex  # deferred: loads regex
            words = [u for w in words for u in regex.split(f"({_UNSPACED})", w) if u]
        return words

    def _segment(self, value, what) -> list[str]:
        """A segment's units: a string split by :meth:`units`, or a list (tuple) of unit strings as given.
        ``what`` names it in an error: a string, or (name, index) of a corpus's item."""
        if isinstance(value, str):
            return self.units(value)
        if isinstance(what, tuple):
            what = f"{what[0]}[{what[1]}]"
        if isinstance(value, (list, tuple)):
            if set(map(type, value)) <= {str}:          # the common case, checked in C
                return value
            bad = next((u for u in value if not isinstance(u, str)), None)
            if bad is None:
                return value
            raise MetricInputError(f"{what} holds {type(bad).__name__} {bad!r}: its units must be strings")
        raise MetricInputError(f"{what} is {type(value).__name__}, not a string (or a list of unit strings)")

    def _ops(self, hyp: list[str], ref: list[str]) -> np.ndarray:
        """The alignment's operations, first to last, as ``OPS`` indices."""
        return aligner.alignment(ref, hyp, self.costs, self.case_sensitive)

    def _counts(self, hypothesis, reference, n: int | None = None) -> tuple[int, int, int, int]:
        """(correct, substitutions, deletions, insertions) of one segment (``n``: its index in a corpus)."""
        return _tally(self._ops(self._segment(hypothesis, "hypothesis" if n is None else ("hypotheses", n)),
                                self._segment(reference, "reference" if n is None else ("references", n))))

    def sentence_score(self, hypothesis, reference) -> WERScore:
        """The rate of one segment."""
        return _score(*self._counts(hypothesis, reference), 1)

    def alignment(self, hypothesis, reference) -> "Alignment":
        """The alignment of one segment, unit by unit (what sclite's ``pralign`` report shows), with its
        rate (``.score``): one alignment gives both."""
        hyp, ref = self._segment(hypothesis, "hypothesis"), self._segment(reference, "reference")
        ops = self._ops(hyp, ref)
        rows, i, j = [], 0, 0
        for op in (OPS[k] for k in ops.tolist()):
            r = ref[i] if op != "I" else None
            h = hyp[j] if op != "D" else None
            i += op != "I"
            j += op != "D"
            rows.append((op, r, h))
        return Alignment(tuple(rows), _score(*_tally(ops), 1))

    def segment_statistics(self, hypotheses, references) -> dict:
        """{name: (stats, score)}: each segment's errors and reference words, and the rate of summed rows
        (what :mod:`textqa.metrics.significance` resamples)."""
        rows = [(s + d + i, c + s + d) for n, h, r in paired(hypotheses, references)
                for c, s, d, i in [self._counts(h, r, n)]]
        stats = np.array(rows, dtype=float).reshape(-1, 2)

        def rate(x):
            x = np.atleast_2d(x)
            return aligner.rates(x[:, 0], x[:, 1])
        return {self.name: (stats, rate)}

    def corpus_score(self, hypotheses, references) -> WERScore:
        """The rate of a corpus: every segment's errors over every segment's reference words.  Both
        are sequences (or iterables, read one segment at a time: memory stays flat) of segments, one
        per segment, in the same order."""
        if references is None or hypotheses is None:
            raise MetricInputError("corpus_score needs hypotheses and references, one string per segment")
        total = WERScore.zero()
        for n, h, r in paired(hypotheses, references):
            total += _score(*self._counts(h, r, n), 1)
        return total


_ISOLATE, _POP = "\u2068", "\u2069"       # FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide (East Asian) characters two, combining marks none."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


@dataclass(frozen=True)
class Alignment:
    """One segment's alignment: ``rows`` of (operation, reference unit, hypothesis unit), the
    operation ``"C"`` (correct), ``"S"``, ``"D"`` (no hypothesis unit) or ``"I"`` (no reference unit);
    ``score``: the segment's rate, of the same alignment."""
    rows: tuple
    score: WERScore

    def as_dict(self) -> list[dict]:
        return [{"op": op, "ref": r, "hyp": h} for op, r, h in self.rows]

    def as_text(self) -> str:
        """Three lines as sclite's ``pralign`` prints them: ``REF:``, ``HYP:`` (``***`` where a unit is
        missing) and ``Eval:`` (S, D or I under each error), in aligned columns.  Each unit is wrapped
        in Unicode's directional isolates, so that Arabic or Hebrew words keep their columns in a
        left-to-right line (a terminal that ignores the isolates shows nothing for them)."""
        ref, hyp, ev = ["REF: "], ["HYP: "], ["Eval:"]
        for op, r, h in self.rows:
            r, h = r if r is not None else "***", h if h is not None else "***"
            w = max(_width(r), _width(h), 1)
            ref.append(f" {_ISOLATE}{r}{_POP}{' ' * (w - _width(r))}")
            hyp.append(f" {_ISOLATE}{h}{_POP}{' ' * (w - _width(h))}")
            ev.append(f" {'' if op == 'C' else op}{' ' * (w - (op != 'C'))}")
        return "\n".join("".join(x).rstrip() for x in (ref, hyp, ev))


class CER(WER):
    """Character error rate: :class:`WER` over characters (``unit="char"``), the spaces between words
    included; ``costs`` and ``case_sensitive`` as there."""

    name = "CER"

    def __init__(self, costs: str = "sclite", case_sensitive: bool = False):
        super().__init__(costs, case_sensitive, unit="char")

    @property
    def signature(self) -> str:
        return signature(self.name, costs=self.costs, case=self.case_sensitive)


def _tally(ops: np.ndarray) -> tuple[int, int, int, int]:
    """(correct, substitutions, deletions, insertions) of an alignment's operations."""
    c, s, d, i = np.bincount(ops, minlength=4).tolist()
    return c, s, d, i


def _score(c: int, s: int, d: int, i: int, segments: int) -> WERScore:
    n = c + s + d
    errors = s + d + i
    rate = aligner.rate(errors, n)
    return WERScore(round(rate, 4), c, s, d, i, n, segments, rate)
