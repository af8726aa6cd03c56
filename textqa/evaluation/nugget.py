"""Nugget-based F for TREC definition/"other"/relationship questions (Marton & Radul 2006, figure 3).

With r vital and a okay nuggets returned, R vital nuggets in the answer key and l
non-whitespace characters in the whole answer string:

    recall    = r / R
    allowance = 100 (r + a)
    precision = 1 if l < allowance else 1 - (l - allowance) / l
    F(beta)   = (beta^2 + 1) P R / (beta^2 P + R),  beta = 3 by default (TREC 2005-2007)

Pyramid variant (Lin & Demner-Fushman 2006, which Nuggeteer implements): each nugget
has a weight (the share of assessors who called it vital, scaled so the best nugget
weighs 1); recall = weight returned / total weight; the allowance counts every
returned nugget, 100 characters each.

Edge cases (not covered by the figure): an empty answer (l = 0) has precision 0; a
question whose key has no vital nugget (R = 0) has recall 0.

``read_answer_key`` reads NIST's answer keys as NIST wrote them (vital/okay and
pyramid-weighted).  The automatic judgement of Nuggeteer (section 2), response and
judgement readers and confidence intervals are not implemented yet.
"""
from __future__ import annotations

import re

from textqa.errors import InputError
from textqa.runtime.files import read_lines

_HEADER = re.compile(r"^Qid\s+(\S+?):\s*(.*)$")
_BINARY = re.compile(r"^(\S+) (\d+)\t(vital|okay)\t(.*)$")
_PYRAMID = re.compile(r"^(\S+)\t(\d+)\t([0-9.eE+-]+)\t(.*)$")


def read_answer_key(path) -> dict:
    """A TREC nugget answer key -> {qid: {"question": text or None, "nuggets": {no: {...}}}}.

    Two NIST layouts: ``Qid <qid>: <question>`` headers followed by
    ``<qid> <no><TAB>vital|okay<TAB><description>`` (2004-2007 "other", relationship and
    ciQA keys), and pyramid keys ``<qid><TAB><no><TAB><weight><TAB><description>``.
    Each nugget has ``vital`` (True/False, or None in a pyramid key), ``weight`` (pyramid
    weight, or 1.0 for vital and 0.0 for okay) and ``description``.
    """
    key: dict = {}
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        m = _HEADER.match(line)
        if m:
            key.setdefault(m.group(1), {"question": None, "nuggets": {}})["question"] = m.group(2).strip()
            continue
        m = _BINARY.match(line)
        if m:
            qid, no, kind, desc = m.groups()
            nugget = {"vital": kind == "vital", "weight": 1.0 if kind == "vital" else 0.0, "description": desc}
        else:
            m = _PYRAMID.match(line)
            if not m:
                raise InputError(f"{path}:{lineno}: not a nugget line ('<qid> <no><TAB>vital|okay<TAB>text' "
                                     f"or '<qid><TAB><no><TAB><weight><TAB>text') nor a 'Qid ...:' header")
            qid, no, weight, desc = m.groups()
            try:
                w = float(weight)
            except ValueError:
                raise InputError(f"{path}:{lineno}: weight {weight!r} is not a number") from None
            if not 0.0 <= w <= 1.0:
                raise InputError(f"{path}:{lineno}: weight {w} is outside [0, 1]")
            nugget = {"vital": None, "weight": w, "description": desc}
        entry = key.setdefault(qid, {"question": None, "nuggets": {}})
        if int(no) in entry["nuggets"]:
            raise InputError(f"{path}:{lineno}: nugget {no} of question {qid} defined twice")
        entry["nuggets"][int(no)] = nugget
    if not key:
        raise InputError(f"{path}: no nuggets")
    return key


def non_whitespace_length(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())


def nugget_precision(length: int, n_returned: int) -> float:
    allowance = 100 * n_returned
    if length <= 0:
        return 0.0
    return 1.0 if length < allowance else 1.0 - (length - allowance) / length


def f_beta(precision: float, recall: float, beta: float = 3.0) -> float:
    b2 = beta * beta
    denominator = b2 * precision + recall
    return (b2 + 1) * precision * recall / denominator if denominator else 0.0


def official_f(vital_returned: int, okay_returned: int, vital_total: int, length: int,
               beta: float = 3.0) -> dict:
    """Figure 3 of Marton & Radul 2006 (the TREC official F)."""
    if vital_returned > vital_total or min(vital_returned, okay_returned, vital_total, length) < 0:
        raise ValueError("counts must be non-negative and vital_returned <= vital_total")
    recall = vital_returned / vital_total if vital_total else 0.0
    precision = nugget_precision(length, vital_returned + okay_returned)
    return {"recall": recall, "precision": precision, "f": f_beta(precision, recall, beta)}


def pyramid_f(returned_weights: list[float], all_weights: list[float], length: int, beta: float = 3.0) -> dict:
    """Pyramid F (Lin & Demner-Fushman 2006): weighted recall, allowance per returned nugget."""
    total = sum(all_weights)
    recall = sum(returned_weights) / total if total else 0.0
    precision = nugget_precision(length, len(returned_weights))
    return {"recall": recall, "precision": precision, "f": f_beta(precision, recall, beta)}
