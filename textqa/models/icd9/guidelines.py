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
"""
from __future__ import annotations

from collections import Counter

RULES = ("symptoms",)


def is_symptom(code: str) -> bool:
    """ICD-9-CM chapter 16 (780-799.9): symptoms, signs and ill-defined conditions."""
    head = code.split(".", 1)[0]
    return head.isdigit() and 780 <= int(head) <= 799


MIN_EXPECTED = 3.0


def learn_symptom_suppression(code_sets: list, min_diagnosis: int = 3, max_rate: float = 0.0,
                              min_expected: float = MIN_EXPECTED) -> dict:
    """{symptom: sorted diagnoses that suppress it}: every (s, d) with s a symptom code and d a
    non-symptom code coded in at least ``min_diagnosis`` documents, s beside d in at most
    ``max_rate`` of them, and s and d frequent enough that independence would expect them together
    in at least ``min_expected`` documents (n_s n_d / N)."""
    with_d, together = Counter(), Counter()
    symptoms = set()
    for codes in code_sets:
        codes = set(codes)
        for d in codes:
            with_d[d] += 1
        for s in codes:
            if is_symptom(s):
                symptoms.add(s)
                for d in codes:
                    if not is_symptom(d):
                        together[(s, d)] += 1
    diagnoses = [d for d, n in with_d.items() if n >= min_diagnosis and not is_symptom(d)]
    out = {}
    for s in sorted(symptoms):
        ds = sorted(d for d in diagnoses if together[(s, d)] <= max_rate * with_d[d]
                    and with_d[s] * with_d[d] >= min_expected * len(code_sets))
        if ds:
            out[s] = ds
    return out


def drop_explained_symptoms(codes: list, suppress: dict) -> list:
    """``codes`` (best first) without the symptom codes that a coded diagnosis suppresses."""
    present = set(codes)
    return [c for c in codes if not (is_symptom(c) and present.intersection(suppress.get(c, ())))]
