"""Multi-label code assignment metrics (Lita et al. 2008, section 4; CMC 2007 challenge).

* per code: precision, recall, F1 and, when every document has a score for the code, the
  area under the ROC curve (scikit-learn's ``roc_auc_score``);
* micro-F1 over all (document, code) decisions: the CMC 2007 challenge's measure; codes a
  system never predicts still count in it through their false negatives;
* macro-F1: the mean of per-code F1 over the codes present in the gold standard.

Files for ``textqa eval icd9 GOLD PRED``: GOLD is CMC XML or JSONL with ``codes``; PRED is
the JSONL that ``textqa icd9 code`` writes: ``{"id": ..., "codes": [{"code": ..., "score": ...}]}``
(plus ``"scores": {code: score}`` for every code with ``--all-scores``, which enables AUC).
"""
from __future__ import annotations


from textqa.errors import InputError
from textqa.runtime.files import read_lines
from textqa.runtime.json_input import parse_json_line


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def score_codes(gold: dict, predicted: dict, scores: dict | None = None) -> dict:
    """``gold``/``predicted``: {doc id: set of codes}; ``scores``: {doc id: {code: score}} (for AUC).

    Documents missing from ``predicted`` count as coded with nothing."""
    extra = set(predicted) - set(gold)
    if extra:
        raise ValueError(f"prediction for document {sorted(extra)[0]!r}, which the gold standard does not have")
    codes = sorted({c for cs in gold.values() for c in cs} | {c for cs in predicted.values() for c in cs})
    per_code = {}
    TP = FP = FN = 0
    for code in codes:
        tp = fp = fn = 0
        for doc, g in gold.items():
            p = predicted.get(doc, set())
            tp += code in g and code in p
            fp += code in p and code not in g
            fn += code in g and code not in p
        TP, FP, FN = TP + tp, FP + fp, FN + fn
        prec, rec, f1 = _prf(tp, fp, fn)
        entry = {"support": tp + fn, "predicted": tp + fp, "precision": prec, "recall": rec, "f1": f1}
        if scores is not None and 0 < tp + fn < len(gold) and all(code in scores.get(d, {}) for d in gold):
            from sklearn.metrics import roc_auc_score  # deferred: loads sklearn, scipy, joblib
            entry["auc"] = float(roc_auc_score([code in gold[d] for d in gold], [scores[d][code] for d in gold]))
        per_code[code] = entry
    micro = _prf(TP, FP, FN)
    in_gold = [c for c in codes if per_code[c]["support"]]
    macro = sum(per_code[c]["f1"] for c in in_gold) / len(in_gold) if in_gold else 0.0
    return {"micro": {"precision": micro[0], "recall": micro[1], "f1": micro[2]}, "macro_f1": macro,
            "documents": len(gold), "codes": per_code}


def read_predictions(path) -> tuple[dict, dict | None]:
    """({id: set of codes}, {id: {code: score}} or None) from ``textqa icd9 code`` JSONL."""
    predicted, scores, all_have_scores = {}, {}, True
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        obj = parse_json_line(line, where, InputError)
        if not isinstance(obj, dict) or "id" not in obj or not isinstance(obj.get("codes"), list):
            raise InputError(f"{where}: expected {{\"id\": ..., \"codes\": [...]}}")
        rid = str(obj["id"])
        if rid in predicted:
            raise InputError(f"{where}: id {rid!r} given twice")
        codes = set()
        for c in obj["codes"]:
            code = c.get("code") if isinstance(c, dict) else c
            if not isinstance(code, str) or not code:
                raise InputError(f"{where} (id {rid!r}): a code must be a string or {{\"code\": ...}}")
            codes.add(code)
        predicted[rid] = codes
        if isinstance(obj.get("scores"), dict):
            scores[rid] = {str(k): float(v) for k, v in obj["scores"].items()}
        else:
            all_have_scores = False
    return predicted, (scores if all_have_scores and scores else None)


def top_codes_table(result: dict, n: int = 5) -> list[tuple]:
    """(code, support, P, R, F1, AUC) of the ``n`` most frequent gold codes (paper table 2)."""
    top = sorted(result["codes"].items(), key=lambda kv: (-kv[1]["support"], kv[0]))[:n]
    return [(c, e["support"], e["precision"], e["recall"], e["f1"], e.get("auc")) for c, e in top]


def format_report(result: dict, n_top: int = 5, title: str = "") -> str:
    m = result["micro"]
    lines = [f"{title}micro P {m['precision']:.4f}  R {m['recall']:.4f}  F1 {m['f1']:.4f}   "
             f"macro-F1 {result['macro_f1']:.4f}   ({result['documents']} documents)",
             f"  {'code':<9}{'support':>8}{'P':>8}{'R':>8}{'F1':>8}{'AUC':>8}"]
    for code, sup, p, r, f, auc in top_codes_table(result, n_top):
        lines.append(f"  {code:<9}{sup:>8}{p:8.3f}{r:8.3f}{f:8.3f}" + (f"{auc:8.3f}" if auc is not None else "       -"))
    return "\n".join(lines)


def calibration(probabilities, labels, bins: int = 10) -> dict:
    """Expected calibration error (equal-width bins: sum over bins of |observed frequency - mean
    predicted probability| weighted by the bin's share of pairs; Naeini et al. 2015) and the
    reliability curve behind it."""
    import numpy as np  # deferred: loads numpy
    p, y = np.asarray(probabilities, float), np.asarray(labels, float)
    which = np.minimum((p * bins).astype(int), bins - 1)
    counts = np.bincount(which, minlength=bins)
    sum_p, sum_y = np.bincount(which, p, bins), np.bincount(which, y, bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p, freq = sum_p / counts, sum_y / counts
    ece = float(np.sum(np.abs(freq - mean_p)[counts > 0] * counts[counts > 0]) / max(len(p), 1))
    return {"ece": ece, "bins": bins, "centres": ((np.arange(bins) + 0.5) / bins).tolist(),
            "mean_predicted": np.nan_to_num(mean_p).tolist(), "observed": np.nan_to_num(freq).tolist(),
            "counts": counts.tolist(), "pairs": int(len(p))}


def review_split(gold: dict, predicted: dict, review: dict) -> dict:
    """Micro P/R/F1 of the documents coded automatically and of those flagged for review."""
    out = {}
    for name, flag in (("automatic", False), ("review", True)):
        ids = [d for d in gold if review.get(d, False) is flag]
        tp = sum(len(gold[d] & predicted.get(d, set())) for d in ids)
        fp = sum(len(predicted.get(d, set()) - gold[d]) for d in ids)
        fn = sum(len(gold[d] - predicted.get(d, set())) for d in ids)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        out[name] = {"documents": len(ids), "share": len(ids) / max(len(gold), 1), "precision": p, "recall": r,
                     "f1": 2 * p * r / (p + r) if p + r else 0.0}
    return out
