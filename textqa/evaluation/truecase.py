"""Truecasing scores: word accuracy and P/R/F1 over tokens that are not all-lowercase.

The convention of Susanto et al. 2016 ("Learning to capitalize with character-level
recurrent neural networks", EMNLP), whose ``word_eval.py`` counts, per token,
``proposed`` = prediction differs from its lowercase form, ``gold`` = reference
differs from its lowercase form, ``correct`` = prediction equals the reference and
the reference is not lowercase: P = correct/proposed, R = correct/gold.  Accuracy
is exact token match.  A per-class confusion table (LC/UC/CA/MC of Lita et al.
2003, section 2) is added; tokens without cased letters are left out of it.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from textqa.errors import InputError

CLASSES = ("LC", "UC", "CA", "MC")


def _case_class(token: str) -> str:
    # Same definition as models.truecaser.casing.case_class; evaluation/ must not import models/.
    if token.lower() == token.upper():
        return "NONE"
    if token.islower():
        return "LC"
    cased = [ch for ch in token if ch.lower() != ch.upper()]
    if token.isupper():
        return "UC" if len(cased) == 1 else "CA"
    first = cased[0]
    rest = token[token.index(first) + 1:]
    if first.isupper() and (rest.islower() or rest.lower() == rest.upper()):
        return "UC"
    return "MC"


class TruecaseInputError(InputError):
    """Gold and prediction files do not line up; names the file and line."""


@dataclass
class TruecaseScores:
    tokens: int = 0
    correct: int = 0
    proposed: int = 0
    gold_cased: int = 0
    correct_cased: int = 0
    confusion: dict = field(default_factory=lambda: {g: {p: 0 for p in CLASSES} for g in CLASSES})
    errors: list = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return 100.0 * self.correct / self.tokens if self.tokens else 0.0

    @property
    def precision(self) -> float:
        return 100.0 * self.correct_cased / self.proposed if self.proposed else 0.0

    @property
    def recall(self) -> float:
        return 100.0 * self.correct_cased / self.gold_cased if self.gold_cased else 0.0

    @property
    def f1(self) -> float:
        return float(f1_of_counts(np.array([[self.correct_cased, self.proposed, self.gold_cased]]))[0])

    def as_dict(self, max_errors: int = 0) -> dict:
        d = {"tokens": self.tokens, "accuracy": round(self.accuracy, 3), "precision": round(self.precision, 3),
             "recall": round(self.recall, 3), "f1": round(self.f1, 3), "confusion": self.confusion}
        if max_errors:
            d["errors"] = self.errors[:max_errors]
        return d


def f1_of_counts(counts: np.ndarray) -> np.ndarray:
    """F1 (percent) of each row of (tokens cased correctly, cased by the system, cased in the
    reference): ``2PR / (P + R)`` with ``P = correct / proposed``, ``R = correct / gold``, which is
    ``2 correct / (proposed + gold)``; 0 where nothing is cased correctly."""
    c = np.atleast_2d(np.asarray(counts, dtype=float))
    den = c[:, 1] + c[:, 2]
    return np.divide(200 * c[:, 0], den, out=np.zeros(len(c)), where=(den > 0) & (c[:, 0] > 0))


def score_truecase(gold: list[str], pred: list[str], gold_name: str = "gold", pred_name: str = "pred",
                   keep_errors: int = 1000) -> TruecaseScores:
    """Score predicted lines against gold lines (whitespace-tokenized, one sentence a line)."""
    if len(gold) != len(pred):
        raise TruecaseInputError(f"{pred_name}: has {len(pred)} lines but {gold_name} has {len(gold)}")
    s = TruecaseScores()
    for lineno, (g_line, p_line) in enumerate(zip(gold, pred), start=1):
        g_toks, p_toks = g_line.split(), p_line.split()
        if len(g_toks) != len(p_toks):
            raise TruecaseInputError(f"{pred_name}:{lineno}: {len(p_toks)} tokens, but {gold_name}:{lineno} "
                                     f"has {len(g_toks)}")
        for i, (g, p) in enumerate(zip(g_toks, p_toks)):
            if g.lower() != p.lower():
                raise TruecaseInputError(f"{pred_name}:{lineno}: token {i + 1} {p!r} is not a casing of "
                                         f"{gold_name}'s {g!r}")
            _add(s, g, p, lineno, i, keep_errors)
    return s


def _add(s: TruecaseScores, g: str, p: str, lineno: int, i: int, keep_errors: int) -> None:
    """Count one (gold, predicted) token pair into ``s``."""
    s.tokens += 1
    g_cased = g != g.lower()
    if p != p.lower():
        s.proposed += 1
    if g_cased:
        s.gold_cased += 1
    if g == p:
        s.correct += 1
        if g_cased:
            s.correct_cased += 1
    elif len(s.errors) < keep_errors:
        s.errors.append({"line": lineno, "token": i + 1, "gold": g, "pred": p})
    gc, pc = _case_class(g), _case_class(p)
    if gc in s.confusion and pc in s.confusion[gc]:
        s.confusion[gc][pc] += 1


FREQUENCY_BANDS = (0, 1, 10, 100, 1000, 10000)


def score_by_frequency(gold: list[str], pred: list[str], frequency, edges=FREQUENCY_BANDS) -> list[tuple[str, TruecaseScores]]:
    """The scores of ``score_truecase`` per band of training frequency: ``frequency(word)`` is how
    often the lowercased word was seen in training; band k holds words with ``edges[k] <= f <
    edges[k+1]`` (the first band, f = 0, is the unseen words).  Lines must already line up."""
    labels = []
    for k, lo in enumerate(edges):
        hi = edges[k + 1] if k + 1 < len(edges) else None
        labels.append("unseen" if lo == 0 and hi == 1 else f"{lo:,}+" if hi is None else f"{lo:,}-{hi - 1:,}")
    bands = [TruecaseScores() for _ in edges]
    for lineno, (g_line, p_line) in enumerate(zip(gold, pred), start=1):
        for i, (g, p) in enumerate(zip(g_line.split(), p_line.split())):
            _add(bands[bisect.bisect_right(edges, frequency(g.lower())) - 1], g, p, lineno, i, 0)
    return list(zip(labels, bands))


def format_report(s: TruecaseScores) -> str:
    lines = [f"tokens     {s.tokens}",
             f"accuracy   {s.accuracy:6.2f}",
             f"precision  {s.precision:6.2f}",
             f"recall     {s.recall:6.2f}",
             f"F1         {s.f1:6.2f}",
             "",
             "confusion (rows gold, columns predicted)",
             "gold\\pred " + "".join(f"{c:>9}" for c in CLASSES)]
    for g in CLASSES:
        lines.append(f"{g:<10}" + "".join(f"{s.confusion[g][p]:>9}" for p in CLASSES))
    return "\n".join(lines)
