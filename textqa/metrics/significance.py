"""Is one system's corpus score really better than another's?  Paired tests over the same segments,
as sacrebleu runs them for BLEU (``--paired-bs``, ``--paired-ar``), for every scorer of segments
(a :class:`~textqa.metrics.SegmentMetric`: WER, CER, BLEU, NIST, ROUGE, BLANC, truecasing), from
its per-segment statistics (``segment_statistics``).

* :func:`paired_bootstrap` (Koehn 2004): ``resamples`` draws of the segments with replacement; each
  system's corpus score on each draw gives its mean and 95% interval; the p-value is the share of
  draws whose centred difference from the baseline exceeds the observed one, (c + 1) / (R + 1).
* :func:`approximate_randomization` (Riezler & Maxwell 2005): ``trials`` shufflings that swap each
  segment's outputs between the system and the baseline with probability 1/2; the p-value is the
  share of shufflings whose score difference exceeds the observed one, (c + 1) / (T + 1).

Both follow sacrebleu's ``significance.py`` step for step, its seed (12345) included, so that the
same statistics give the same p-values.  The first system is the baseline unless ``baseline`` names
another.

>>> from textqa.metrics import WER
>>> refs = ["a b c d", "e f g h", "i j k l", "m n o p"]
>>> systems = {"base": ["a b x d", "e x g h", "i j x l", "m n o x"], "new": refs}
>>> result = paired_bootstrap(WER(), systems, refs, resamples=200)["WER"]
>>> result["base"].score, result["new"].score, result["new"].p_value < 0.05
(0.25, 0.0, True)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from textqa.runtime.metric import SegmentMetric
from textqa.runtime.metric_input import MetricInputError

SEED = 12345            # sacrebleu's default (SACREBLEU_SEED)


@dataclass(frozen=True)
class PairedResult:
    """``score``: the system's corpus score; ``p_value``: of its difference from the baseline (None for
    the baseline); ``mean`` and ``ci``: the bootstrap mean and half-width of the 95% interval (sacrebleu's
    "mean +- ci"), None where the test draws none."""
    score: float
    p_value: float | None
    mean: float | None = None
    ci: float | None = None


def _systems(metric: SegmentMetric, systems: dict, references, baseline: str | None):
    if not isinstance(metric, SegmentMetric):
        raise MetricInputError(f"{type(metric).__name__} is not a scorer of segments (a SegmentMetric): "
                               f"it has no per-segment statistics to resample")
    if not isinstance(systems, dict) or len(systems) < 2:
        raise MetricInputError("systems: give {name: hypotheses} for two systems or more, on the same segments")
    names = list(systems)
    base = names[0] if baseline is None else baseline
    if base not in systems:
        raise MetricInputError(f"baseline {base!r} is not one of the systems ({', '.join(names)})")
    stats = {}
    for name in names:
        try:
            stats[name] = metric.segment_statistics(systems[name], references)
        except MetricInputError as e:
            raise MetricInputError(f"system {name!r}: {e}") from None
    n = {len(next(iter(s.values()))[0]) for s in stats.values()}
    if len(n) != 1:
        raise MetricInputError("systems: every system needs one hypothesis per segment")
    return base, [x for x in names if x != base], stats, n.pop()


def _p_value(stats: np.ndarray, real: float) -> float:
    """sacrebleu's (multeval's): (how many exceed the real statistic + 1) / (samples + 1)."""
    return (int(np.sum(stats > real)) + 1) / (len(stats) + 1)


def _ci(scores: np.ndarray) -> tuple[float, float]:
    """sacrebleu's ``estimate_ci``: the mean, and half the distance between the 2.5% and 97.5% scores."""
    s = np.sort(scores)
    lo = len(s) // 40
    return float(s.mean()), float(0.5 * (s[len(s) - lo - 1] - s[lo]))


def paired_bootstrap(metric: SegmentMetric, systems: dict, references, baseline: str | None = None, resamples: int = 1000,
                     seed: int | None = SEED) -> dict[str, dict[str, PairedResult]]:
    """{measure: {system: :class:`PairedResult`}} by paired bootstrap resampling (see the module)."""
    base, others, stats, n = _systems(metric, systems, references, baseline)
    if not isinstance(resamples, int) or resamples < 1:
        raise MetricInputError(f"resamples must be a positive integer, not {resamples!r}")
    rng = np.random.default_rng(seed)
    idx = rng.choice(n, size=(resamples, n), replace=True)
    counts = np.stack([np.bincount(row, minlength=n) for row in idx]).astype(float)     # (R, n)
    out = {}
    for measure, (bl_stats, score) in stats[base].items():
        bl_samples = score(counts @ bl_stats)
        mean, ci = _ci(bl_samples)
        res = {base: PairedResult(float(score(bl_stats.sum(0))[0]), None, mean, ci)}
        for name in others:
            sys_stats, _ = stats[name][measure]
            real = float(score(sys_stats.sum(0))[0])
            samples = score(counts @ sys_stats)
            diffs = np.abs(samples - bl_samples)
            mean, ci = _ci(samples)
            res[name] = PairedResult(real, _p_value(diffs - diffs.mean(), abs(real - res[base].score)), mean, ci)
        out[measure] = res
    return out


def approximate_randomization(metric: SegmentMetric, systems: dict, references, baseline: str | None = None, trials: int = 10000,
                              seed: int | None = SEED) -> dict[str, dict[str, PairedResult]]:
    """{measure: {system: :class:`PairedResult`}} by paired approximate randomization (see the module)."""
    base, others, stats, n = _systems(metric, systems, references, baseline)
    if not isinstance(trials, int) or trials < 1:
        raise MetricInputError(f"trials must be a positive integer, not {trials!r}")
    rng = np.random.default_rng(seed)
    pos = rng.integers(2, size=(trials, n), dtype=bool).astype(float)
    neg = 1.0 - pos
    out = {}
    for measure, (bl_stats, score) in stats[base].items():
        res = {base: PairedResult(float(score(bl_stats.sum(0))[0]), None)}
        for name in others:
            sys_stats, _ = stats[name][measure]
            real = float(score(sys_stats.sum(0))[0])
            a = score(pos @ bl_stats + neg @ sys_stats)
            b = score(neg @ bl_stats + pos @ sys_stats)
            res[name] = PairedResult(real, _p_value(np.abs(a - b), abs(real - res[base].score)))
        out[measure] = res
    return out
