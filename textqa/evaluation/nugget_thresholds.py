"""Bayesian threshold selection for Nuggeteer (Marton & Radul 2006, sections 2.4 and 4.4, table 4).

The paper models "assignment of nuggets to responses as caused by the scores according
to a noisy threshold function, with separate false positive and false negative error
rates", varies thresholds (and error rates) by dataset, question or nugget, and picks
the model by Bayesian model selection (table 4: log10 P(Data | Model)).  It gives no
formulas; this module's model, documented here, is:

* a judged (response, nugget) pair with Nuggeteer score s and human label y follows
  P(y = 0 | s >= t) = a  (the rule's false positives)  and  P(y = 1 | s < t) = b
  (its false negatives);
* priors are uniform: t over ``THRESHOLDS`` (0 to 1.5 in steps of 0.025; scores are the
  normalised recall of :class:`textqa.evaluation.nuggeteer.NuggetJudge`), a and b over
  ``ERROR_RATES`` (0.01 to 0.49);
* the evidence P(Data | Model) sums the likelihood over those priors.  With global error
  rates, thresholds of different groups are independent given (a, b), so
  P(D) = mean over (a, b) of product over groups of mean over t of P(D_group | t, a, b);
  with per-nugget error rates the mean over (a, b) moves inside the product; the coin
  baseline is a Beta(1, 1)-Bernoulli model of the labels alone.

Models: ``coin``, ``global``, ``question``, ``nugget`` (one threshold per nugget, global
error rates: the paper's choice) and ``nugget_errors``.  The selected model's thresholds
are the MAP values at the MAP error rates (the middle of the best plateau of t); nuggets
without judged pairs inherit their question's or the global threshold.

Scores of judged responses are cross-fitted: when judges learn n-grams from judged
responses (Nuggeteer's default), each response is scored by a judge built without it
(``folds``-fold split per question), so thresholds are not fitted on self-matches.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import betaln, logsumexp

from .nuggeteer import NuggetJudge

THRESHOLDS = np.round(np.arange(0.0, 1.5 + 1e-9, 0.025), 3)
ERROR_RATES = np.linspace(0.01, 0.49, 25)
MODELS = ("coin", "global", "question", "nugget", "nugget_errors")

_A, _B = np.meshgrid(ERROR_RATES, ERROR_RATES, indexing="ij")
_A, _B = _A.ravel(), _B.ravel()          # every (a, b) pair of the error-rate prior


def judged_pairs(key: dict, judgements: dict, idf: dict, folds: int = 5, use_judged_ngrams: bool = True,
                 **judge_options) -> list[tuple]:
    """``(qid, nugget_no, score, label)`` for every judged response and nugget of its question."""
    out = []
    for qid, q in key.items():
        known = judgements.get(qid, {})
        if not known:
            continue
        nuggets = {g: n["description"] for g, n in q["nuggets"].items()}
        texts = sorted(known)
        k = min(folds, len(texts)) if use_judged_ngrams else 1
        for f in range(k):
            held = [t for i, t in enumerate(texts) if i % k == f]
            train: dict = {}
            if use_judged_ngrams:
                for i, t in enumerate(texts):
                    if i % k != f:
                        for g in known[t]:
                            train.setdefault(g, []).append(t)
            judge = NuggetJudge(nuggets, idf=idf, judged_responses=train, **judge_options)
            for t in held:
                for g in nuggets:
                    out.append((qid, g, judge.recall(g, t), int(g in known[t])))
    return out


def _group_loglik(scores: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """log P(labels | t, a, b) as a [len(THRESHOLDS), len(error pairs)] matrix."""
    above = scores[None, :] >= THRESHOLDS[:, None]                 # [T, n]
    pos = labels.astype(bool)[None, :]
    n_ap = (above & pos).sum(1)[:, None]
    n_an = (above & ~pos).sum(1)[:, None]
    n_bp = (~above & pos).sum(1)[:, None]
    n_bn = (~above & ~pos).sum(1)[:, None]
    return (n_ap * np.log1p(-_A) + n_an * np.log(_A) + n_bp * np.log(_B) + n_bn * np.log1p(-_B))


def _plateau_middle(values: np.ndarray) -> float:
    best = np.flatnonzero(values >= values.max() - 1e-9)
    return float(THRESHOLDS[best[len(best) // 2]])


def select_thresholds(pairs: list[tuple]) -> dict:
    """Evidence of each model (log10, like table 4), the selected model and its thresholds.

    ``thresholds`` has the shape :func:`textqa.evaluation.nuggeteer.score_runs` takes: a number
    (global), ``{qid: t}`` or ``{qid: {nugget_no: t}}``.
    """
    if not pairs:
        raise ValueError("Bayesian threshold selection needs judged responses (--judgements)")
    labels = np.array([p[3] for p in pairs])
    n, k = len(labels), int(labels.sum())
    log_t, log_e = math.log(len(THRESHOLDS)), math.log(len(_A))
    evidence = {"coin": float(betaln(k + 1, n - k + 1))}
    groupings = {"global": lambda p: "*", "question": lambda p: p[0], "nugget": lambda p: (p[0], p[1])}
    tables = {}
    for name, key_of in groupings.items():
        groups: dict = {}
        for p in pairs:
            groups.setdefault(key_of(p), []).append(p)
        tables[name] = {g: _group_loglik(np.array([p[2] for p in ps]), np.array([p[3] for p in ps]))
                        for g, ps in groups.items()}
        per_group = {g: logsumexp(ll, axis=0) - log_t for g, ll in tables[name].items()}   # [E] each
        evidence[name] = float(logsumexp(sum(per_group.values())) - log_e)
        if name == "nugget":
            evidence["nugget_errors"] = float(sum(logsumexp(v) - log_e for v in per_group.values()))
    selected = max(evidence, key=evidence.get)
    result = {"models": {m: evidence[m] / math.log(10) for m in MODELS}, "selected": selected,
              "pairs": n, "positive": k}
    # MAP thresholds: global ones always (the fallback), then the selected granularity
    glob = tables["global"]["*"]
    e_star = int(np.argmax(logsumexp(glob, axis=0)))
    global_t = _plateau_middle(glob[:, e_star])
    result["error_rates"] = {"false_positive": float(_A[e_star]), "false_negative": float(_B[e_star])}
    if selected in ("coin", "global"):
        result["thresholds"] = global_t
        return result
    grouping = "question" if selected == "question" else "nugget"
    ll = tables[grouping]
    e_star = int(np.argmax(sum(logsumexp(m, axis=0) for m in ll.values())))
    result["error_rates"] = {"false_positive": float(_A[e_star]), "false_negative": float(_B[e_star])}
    if grouping == "question":
        result["thresholds"] = {q: _plateau_middle(m[:, e_star]) for q, m in ll.items()}
        result["default"] = global_t
        return result
    per: dict = {}
    for (q, g), m in ll.items():
        col = m[:, e_star] if selected == "nugget" else m[:, int(np.argmax(logsumexp(m, axis=0)))]
        per.setdefault(q, {})[g] = _plateau_middle(col)
    result["thresholds"] = per
    result["default"] = global_t
    return result


def fill_thresholds(selection: dict, key: dict):
    """The selection's thresholds completed for every question (and nugget) of ``key``."""
    t = selection["thresholds"]
    if not isinstance(t, dict):
        return t
    default = selection.get("default", t)
    if selection["selected"] == "question":
        return {q: t.get(q, default) for q in key}
    return {q: {g: t.get(q, {}).get(g, default) for g in key[q]["nuggets"]} for q in key}
