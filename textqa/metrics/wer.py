"""Word and character error rates on Python strings: :class:`WER` and :class:`CER`.

``WER = (S + D + I) / N``: substitutions, deletions and insertions of the minimum-cost alignment of
hypothesis and reference, over the ``N`` reference words.  Insertions count, so the rate exceeds 1
when the hypothesis holds more wrong words than the reference holds words ("a b c d" for "a":
three insertions and nothing right, 3.0).

Two alignments:

* ``costs="sclite"`` (the default): NIST sclite's costs (substitution 4, insertion and deletion 3)
  and its choice among alignments of equal cost, case-insensitive for ASCII letters as sclite is by
  default: the counts ``textqa eval wer`` gives and sclite's, to the word
  (:func:`textqa.evaluation.wer.align`);
* ``costs="levenshtein"``: every edit costs 1, the alignment of RapidFuzz's Levenshtein ``editops``,
  which jiwer reports.  The rate is the edit distance over ``N``; the two alignments give the same
  number of errors on most segments and may split them differently between S, D and I.

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

from dataclasses import dataclass

from textqa.evaluation.wer import align, fold

from ._base import MetricInputError, paired, signature, text_of

COSTS = ("sclite", "levenshtein")
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


class WER:
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

    def counts(self, hypothesis: str, reference: str) -> tuple[int, int, int, int]:
        """(correct, substitutions, deletions, insertions) of one segment."""
        return self.unit_counts(self.units(hypothesis), self.units(reference))

    def score_units(self, hypothesis: list[str], reference: list[str]) -> WERScore:
        """The rate of one segment already split into units (``textqa eval wer`` gives the words of
        its STM and CTM files, where an empty word, sclite's ``;x``, is a word)."""
        return _score(*self.unit_counts(list(hypothesis), list(reference)), 1)

    def unit_counts(self, hyp: list[str], ref: list[str]) -> tuple[int, int, int, int]:
        """:meth:`counts` of two lists of units."""
        if self.costs == "sclite":
            if self.case_sensitive:         # align folds ASCII case: keep the words apart by marking them
                ids: dict = {}
                ref = [str(ids.setdefault(w, len(ids))) for w in ref]
                hyp = [str(ids.setdefault(w, len(ids))) for w in hyp]
            return align(ref, hyp)
        from rapidfuzz.distance import Levenshtein  # deferred: loads rapidfuzz
        if not self.case_sensitive:         # as sclite folds: ASCII letters
            ref, hyp = [fold(w) for w in ref], [fold(w) for w in hyp]
        s = d = i = 0
        for op in Levenshtein.editops(ref, hyp):
            if op.tag == "replace":
                s += 1
            elif op.tag == "delete":
                d += 1
            else:
                i += 1
        return len(ref) - s - d, s, d, i

    def sentence_score(self, hypothesis: str, reference: str) -> WERScore:
        """The rate of one segment."""
        c, s, d, i = self.counts(text_of(hypothesis, "hypothesis"), text_of(reference, "reference"))
        return _score(c, s, d, i, 1)

    def corpus_score(self, hypotheses, references) -> WERScore:
        """The rate of a corpus: every segment's errors over every segment's reference words.  Both
        are sequences (or iterables, read one segment at a time: memory stays flat) of strings,
        one per segment, in the same order."""
        if references is None or hypotheses is None:
            raise MetricInputError("corpus_score needs hypotheses and references, one string per segment")
        total = [0, 0, 0, 0]
        n = 0
        for n, h, r in paired(hypotheses, references):
            c = self.counts(text_of(h, f"hypotheses[{n}]"), text_of(r, f"references[{n}]"))
            for k in range(4):
                total[k] += c[k]
            n += 1
        return _score(*total, n)


class CER(WER):
    """Character error rate: :class:`WER` over characters (``unit="char"``), the spaces between words
    included; ``costs`` and ``case_sensitive`` as there."""

    name = "CER"

    def __init__(self, costs: str = "sclite", case_sensitive: bool = False):
        super().__init__(costs, case_sensitive, unit="char")

    @property
    def signature(self) -> str:
        return signature(self.name, costs=self.costs, case=self.case_sensitive)


def _score(c: int, s: int, d: int, i: int, segments: int) -> WERScore:
    n = c + s + d
    errors = s + d + i
    rate = errors / n if n else (float("inf") if errors else 0.0)
    return WERScore(round(rate, 4), c, s, d, i, n, segments, rate)
