"""Set-valued agreement: MASI distance (Passonneau 2006) and Krippendorff's alpha.

MASI = J x M (Passonneau 2006, section 3.3): J is Jaccard, |P n Q| / |P u Q|; M is
monotonicity: 1 when P = Q, 2/3 when one set contains the other, 1/3 when the
intersection and both differences are non-empty, 0 when the sets are disjoint.
Alpha uses distances, so MASI distance = 1 - J*M and Jaccard distance = 1 - J.

Two empty sets are identical: distance 0 (J and M are 1 by convention; the paper
does not define it).  An empty set against a non-empty one has distance 1.

Krippendorff's alpha = 1 - D_o / D_e over a coders x units matrix with missing
values: only units with at least two values count; D_o is the mean within-unit
pairwise distance (each unit weighted by its number of values), D_e the mean
distance over all pairs of those values (Krippendorff 1980; the form used by
NLTK's ``AnnotationTask.alpha``).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Callable, Hashable

from textqa.errors import InputError
from textqa.runtime.files import tsv_rows

Label = frozenset


def jaccard(p: frozenset, q: frozenset) -> float:
    """|P n Q| / |P u Q|; 1 for two empty sets."""
    union = len(p | q)
    return len(p & q) / union if union else 1.0


def monotonicity(p: frozenset, q: frozenset) -> float:
    """Passonneau 2006 M term: 1 identical, 2/3 subset, 1/3 overlap, 0 disjoint."""
    if p == q:
        return 1.0
    inter = p & q
    if inter == p or inter == q:
        return 2 / 3 if inter else 0.0       # an empty set "contained" in another: disjoint
    return 1 / 3 if inter else 0.0


def masi(p: frozenset, q: frozenset) -> float:
    """MASI similarity = J x M (Passonneau 2006)."""
    return jaccard(p, q) * monotonicity(p, q)


DISTANCES: dict[str, Callable[[frozenset, frozenset], float]] = {
    "nominal": lambda p, q: 0.0 if p == q else 1.0,
    "jaccard": lambda p, q: 1.0 - jaccard(p, q),
    "masi": lambda p, q: 1.0 - masi(p, q),
}


def krippendorff_alpha(data: list[tuple[Hashable, Hashable, frozenset]], distance: str = "masi") -> dict:
    """Alpha over (coder, unit, label-set) triples; a coder gives at most one value per unit."""
    delta = DISTANCES[distance]
    by_unit: dict = defaultdict(list)
    coders = set()
    for coder, unit, label in data:
        by_unit[unit].append(label)
        coders.add(coder)
    pairable = {u: v for u, v in by_unit.items() if len(v) >= 2}
    all_values = Counter(l for v in pairable.values() for l in v)
    n = sum(all_values.values())
    if n < 2:
        raise ValueError("alpha needs at least one unit coded by two coders")
    cache: dict = {}

    def d(a, b):
        key = (a, b)
        if key not in cache:
            cache[key] = delta(a, b)
        return cache[key]

    def disagreement(freqs: Counter) -> float:
        total = sum(freqs.values())
        return sum(nj * nl * d(j, l) for j, nj in freqs.items() for l, nl in freqs.items()) / (total * (total - 1))

    d_o = sum(disagreement(Counter(v)) * len(v) for v in pairable.values()) / n
    d_e = disagreement(all_values)
    alpha = 1.0 if d_e == 0 else 1.0 - d_o / d_e
    return {"alpha": alpha, "distance": distance, "coders": len(coders), "units": len(by_unit),
            "pairable_units": len(pairable), "observed_disagreement": d_o, "expected_disagreement": d_e}


def read_agreement_tsv(path) -> list[tuple[str, str, frozenset]]:
    """``coder<TAB>unit<TAB>label[,label...]`` per line (an empty label field is the empty set)."""
    out, seen = [], {}
    for lineno, parts in tsv_rows(path, 3, "coder, unit, labels"):
        coder, unit, labels = parts
        if (coder, unit) in seen:
            raise InputError(f"{path}:{lineno}: coder {coder!r} already coded unit {unit!r} "
                                 f"at line {seen[(coder, unit)]}")
        seen[(coder, unit)] = lineno
        out.append((coder, unit, frozenset(l.strip() for l in labels.split(",") if l.strip())))
    if not out:
        raise InputError(f"{path}: no annotations")
    return out
