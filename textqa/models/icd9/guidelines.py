"""Coding guidelines applied over the per-code decisions (beyond Lita et al. 2008, whose coders
decide every code on its own).

Each rule is a small function with its source; what can be learned is learned from the training
documents' codes only, so cross-validation learns it inside each fold.

* ``symptoms``: a sign or symptom code (ICD-9-CM chapter 16, "Symptoms, signs, and ill-defined
  conditions", 780-799) is not assigned beside a definitive diagnosis that explains it.  Source:
  ICD-9-CM Official Guidelines for Coding and Reporting, section I.B.4-5 ("Signs and symptoms that
  are associated routinely with a disease process should not be assigned as additional codes") and
  section IV.D-E for outpatient services (symptom codes are reported when a diagnosis has not been
  established); the CMC 2007 annotation guidelines for radiology reports say the same.  Which
  diagnosis explains which symptom is learned: a pair (symptom s, diagnosis d) suppresses s when
  the training documents coded d at least ``min_diagnosis`` times and never together with s (the
  CMC annotators do code some symptoms beside a diagnosis that does not explain them: fever 780.6
  beside asthma 493.90, wheezing 786.07 beside pneumonia 486), and only when chance alone would
  have put them together in at least ``min_expected`` = 3 documents (n_s n_d / N: never seeing a
  pair that independence expects 3 times has probability e^-3 < 0.05; two rare codes never
  coded together say nothing, e.g. enuresis 788.30 and hematuria 599.7).

* ``exclusive``: two codes the training documents never carry together, though chance alone would
  have put them together in at least ``min_expected`` documents, are read as mutually exclusive
  (the data's counterpart of the Tabular List's "Excludes" notes, ICD-9-CM conventions section
  I.A.12, e.g. a condition and the personal history of it): of such a pair only the code with the
  larger margin is kept.
* ``cap``: a document gets at most as many codes as 99% of the training documents have (the
  CMC 2007 documents carry 1-3 codes, 1.24 on average).
"""
from __future__ import annotations

import math
from collections import Counter

RULES = ("symptoms", "exclusive", "cap")


def is_symptom(code: str) -> bool:
    """ICD-9-CM chapter 16 (780-799.9): symptoms, signs and ill-defined conditions."""
    head = code.split(".", 1)[0]
    return head.isdigit() and 780 <= int(head) <= 799


MIN_EXPECTED = 3.0


def _cooccurrence(code_sets: list) -> tuple[Counter, Counter]:
    """(documents per code, documents per unordered pair of codes, keyed by the sorted pair)."""
    n, together = Counter(), Counter()
    for codes in code_sets:
        codes = sorted(set(codes))
        n.update(codes)
        for i, a in enumerate(codes):
            for b in codes[i + 1:]:
                together[(a, b)] += 1
    return n, together


def _chance_expects(n: Counter, a: str, b: str, documents: int, min_expected: float) -> bool:
    """Independence would put ``a`` and ``b`` together in at least ``min_expected`` documents."""
    return n[a] * n[b] >= min_expected * documents


def learn_symptom_suppression(code_sets: list, min_diagnosis: int = 3, max_rate: float = 0.0,
                              min_expected: float = MIN_EXPECTED) -> dict:
    """{symptom: sorted diagnoses that suppress it}: every (s, d) with s a symptom code and d a
    non-symptom code coded in at least ``min_diagnosis`` documents, s beside d in at most
    ``max_rate`` of them, and s and d frequent enough that independence would expect them together
    in at least ``min_expected`` documents (n_s n_d / N)."""
    n, together = _cooccurrence(code_sets)
    diagnoses = [d for d, k in n.items() if k >= min_diagnosis and not is_symptom(d)]
    out = {}
    for s in sorted(c for c in n if is_symptom(c)):
        ds = sorted(d for d in diagnoses if together[tuple(sorted((s, d)))] <= max_rate * n[d]
                    and _chance_expects(n, s, d, len(code_sets), min_expected))
        if ds:
            out[s] = ds
    return out


def drop_explained_symptoms(codes: list, suppress: dict) -> list:
    """``codes`` (best first) without the symptom codes that a coded diagnosis suppresses."""
    present = set(codes)
    return [c for c in codes if not (is_symptom(c) and present.intersection(suppress.get(c, ())))]


def learn_exclusive_pairs(code_sets: list, min_expected: float = MIN_EXPECTED) -> dict:
    """{code: sorted codes it excludes}: pairs (a, b), neither a symptom code (the ``symptoms`` rule
    covers those), never coded together though n_a n_b / N >= ``min_expected``."""
    n, together = _cooccurrence(code_sets)
    codes = sorted(c for c in n if not is_symptom(c))
    out: dict = {}
    for i, a in enumerate(codes):
        for b in codes[i + 1:]:
            if not together[(a, b)] and _chance_expects(n, a, b, len(code_sets), min_expected):
                out.setdefault(a, []).append(b)
                out.setdefault(b, []).append(a)
    return {k: sorted(v) for k, v in sorted(out.items())}


def drop_excluded(codes: list, exclusive: dict) -> list:
    """``codes`` (best first) without any code that a better code before it excludes."""
    kept: list = []
    for c in codes:
        if not set(exclusive.get(c, ())).intersection(kept):
            kept.append(c)
    return kept


def learn_cap(code_sets: list, share: float = 0.99) -> int:
    """The smallest number of codes that at least ``share`` of the training documents do not exceed."""
    sizes = sorted(len(set(c)) for c in code_sets)
    return sizes[max(0, math.ceil(share * len(sizes)) - 1)] if sizes else 0
