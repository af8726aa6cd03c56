"""Train the ICD-9 coders (Lita et al. 2008): 5-fold cross-validation, then a model on all data.

Reads CMC 2007 XML (gold = CMC_MAJORITY codes) or JSONL records with codes.  Reports, for each
classifier, micro- and macro-F1 over codes and per-code precision, recall, F1 and AUC from
out-of-fold scores (folds shuffled with a fixed seed), writes ROC curves of the most frequent
codes (the paper's figures 1-2) into the artifact, and fits the final coder on every record.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from textqa.evaluation.icd9 import calibration, format_report, review_split, score_codes, top_codes_table
from textqa.models.icd9.coder import CLASSIFIERS, ICD9Coder
from textqa.models.icd9.guidelines import RULES as GUIDELINE_RULES
from textqa.models.icd9.records import RecordError, load_descriptions, read_records
from textqa.models.icd9.text import TRIGGER_GROUPS
from textqa.runtime import dask_cluster
from textqa.runtime.paths import DATA_DIR, artifacts_dir, english_stopwords

DEFAULT_DATA = [DATA_DIR / "icd9" / "cmc2007_train_dev80.xml.gz"]
DESCRIPTIONS = DATA_DIR / "icd9" / "CMS32_DESC_LONG_DX.txt.gz"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", type=Path, default=DEFAULT_DATA[0],
                   help="CMC XML (.xml/.xml.gz) or JSONL records with codes (default: the bundled CMC 2007 data)")
    p.add_argument("--classifier", choices=["svm", "brr", "both"], default="both", help="classifiers to train")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (0: none)")
    p.add_argument("--seed", type=int, default=13, help="fold shuffling seed")
    p.add_argument("--k", type=int, default=1500, help="chi-square features per code (paper: 1500)")
    p.add_argument("--min-df", type=int, default=2, help="minimum document frequency of a feature")
    p.add_argument("--min-positives", type=int, default=3, help="codes with fewer documents are not predicted")
    p.add_argument("--svm-cost", choices=["equal", "ratio"], default="equal",
                   help="positive-class cost: equal (default, better in CV) or the paper's neg/pos ratio")
    p.add_argument("--C", type=float, default=1.0, help="SVM C")
    p.add_argument("--brr-prior", choices=["evidence", "fixed"], default="evidence",
                   help="BRR prior variance learned by marginal likelihood (default) or the paper's fixed N(0, I)")
    p.add_argument("--no-negation", action="store_true", help="no NegEx-style negation/uncertainty marking")
    p.add_argument("--no-sections", action="store_true", help="do not prefix features with their section")
    p.add_argument("--no-concepts", action="store_true",
                   help="no ICD-9-CM index-term features (CPT_code, CPT_NEG_code, CPT_UNC_code)")
    p.add_argument("--window", type=int, default=6, help="negation scope in content words")
    p.add_argument("--triggers", nargs="*", default=list(TRIGGER_GROUPS), choices=TRIGGER_GROUPS, metavar="GROUP",
                   help="negation/uncertainty trigger groups beyond NegEx's basic lists (default: all of "
                        f"{', '.join(TRIGGER_GROUPS)}); hypothetical: ConText's 'evaluate for', 'rule out', ...; "
                        "hedges: 'worrisome for', 'unsure', ...; pseudo: NegEx's 'no significant change', ...; "
                        "post: NegEx's post-triggers ('cannot be excluded', 'is ruled out', ...); give none "
                        "('--triggers') for the basic lists")
    p.add_argument("--at-least-one", action="store_true",
                   help="give a document its best code when no score passes its threshold (lowered 5-fold "
                        "micro-F1 here, so off by default)")
    p.add_argument("--guidelines", nargs="*", default=["symptoms"], choices=list(GUIDELINE_RULES), metavar="RULE",
                   help="coding guidelines over the per-code decisions (default: symptoms, i.e. a symptom code "
                        "is dropped beside a diagnosis that explains it, pairs learned from the training codes; "
                        "also: exclusive, of two codes never coded together though chance expects them together "
                        "the better one only; cap, at most as many codes as 99%% of the training documents); "
                        "give none of them ('--guidelines') for independent per-code decisions")
    p.add_argument("--symptom-min-expected", type=float, default=3.0, metavar="N",
                   help="the symptoms guideline suppresses a (symptom, diagnosis) pair never coded together only "
                        "when chance alone would put them together in at least N training documents (default: 3, "
                        "i.e. p < 0.05; 0: every pair never seen together)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="parallel code models")
    p.add_argument("--out", type=Path, default=None, help="artifact folder (default: <artifacts>/icd9)")
    p.add_argument("--artifacts", type=Path, default=None,
                   help="artifacts root (default: $TEXTQA_ARTIFACTS or ./artifacts)")
    dask_cluster.add_arguments(p, None, "fit the per-code models (and the cross-validation folds)")


def make_coder(args, classifiers) -> ICD9Coder:
    return ICD9Coder(classifiers=classifiers, k=args.k, min_df=args.min_df, min_positives=args.min_positives,
                     C=args.C, svm_cost=args.svm_cost, negation=not args.no_negation, window=args.window,
                     sections=not args.no_sections, n_jobs=args.jobs, seed=args.seed, stopwords=english_stopwords(),
                     brr_prior=args.brr_prior, at_least_one=args.at_least_one, guidelines=args.guidelines,
                     concepts=not args.no_concepts, triggers=tuple(args.triggers),
                     symptom_min_expected=args.symptom_min_expected)


def cross_validate(records, args, classifiers, say=None) -> dict:
    """Out-of-fold decisions and scores of each classifier -> metrics (evaluation.icd9)."""
    from sklearn.model_selection import KFold  # deferred: loads sklearn, joblib, threadpoolctl
    ids = [r.id for r in records]
    predicted = {c: {} for c in classifiers}
    scores = {c: {} for c in classifiers}
    bayes = {"probability": [], "raw": [], "label": [], "review": {}}        # BRR's calibration and review flag
    all_codes = sorted({c for r in records for c in r.codes})
    from tqdm import tqdm  # deferred: loads tqdm
    folds = KFold(args.folds, shuffle=True, random_state=args.seed).split(records)
    for f, (tr, te) in enumerate(tqdm(folds, total=args.folds, desc="cross-validation folds", unit="fold",
                                      file=sys.stderr, disable=None), start=1):
        coder = make_coder(args, classifiers).fit([records[i] for i in tr])
        test = [records[i] for i in te]
        X = coder.matrix(test)                 # features once, for every classifier
        for clf in classifiers:
            S, T = coder.scores(test, clf, X)
            decided = coder.decide(S, T)
            for row, i in enumerate(te):
                predicted[clf][ids[i]] = {coder.codes_[j] for j in decided[row]}
                # codes this fold could not model score below everything (for AUC)
                s = {c: -1e9 for c in all_codes}
                s.update({code: float(S[row, j] - T[j]) for j, code in enumerate(coder.codes_)})
                scores[clf][ids[i]] = s
            if clf == "brr" and coder.has_uncertainty("brr"):
                prob, std = coder.probabilities(S, "brr"), coder.uncertainty(test, "brr", X)
                gold_rows = np.array([[c in records[i].codes for c in coder.codes_] for i in te], dtype=float)
                bayes["probability"] += prob.ravel().tolist()
                bayes["raw"] += np.clip(S, 0, 1).ravel().tolist()
                bayes["label"] += gold_rows.ravel().tolist()
                for row, i in enumerate(te):
                    bayes["review"][ids[i]] = bool(np.any(np.abs(S[row] - T) < std[row]))
        if say:
            say(f"fold {f}/{args.folds} done")
    gold = {r.id: set(r.codes) for r in records}
    out = {clf: {**score_codes(gold, predicted[clf], scores[clf]), "_scores": scores[clf]} for clf in classifiers}
    if bayes["label"]:
        out["brr"]["calibration"] = calibration(bayes["probability"], bayes["label"])
        out["brr"]["calibration_raw_score"] = calibration(bayes["raw"], bayes["label"])
        out["brr"]["review"] = review_split(gold, predicted["brr"], bayes["review"])
    return out


def _curve(cal: dict) -> tuple:
    return cal["centres"], cal["mean_predicted"], cal["observed"], cal["counts"]


def run(args: argparse.Namespace) -> int:
    """Train; with ``--scheduler`` the joblib loops run on a Dask cluster (the same artifact)."""
    with dask_cluster.joblib_on(args.scheduler, args.workers, "textqa train icd9",
                           preload=("textqa.models.icd9.coder",)):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from textqa.evaluation.plots import roc_curves  # deferred: loads matplotlib
    from textqa.models.icd9.store import save_coder  # deferred: loads orjson
    from textqa.training.corpus import file_fingerprint  # deferred: loads tqdm

    t0 = time.perf_counter()
    say = lambda msg: print(f"[icd9 {time.perf_counter() - t0:5.1f}s] {msg}", file=sys.stderr, flush=True)
    classifiers = CLASSIFIERS if args.classifier == "both" else (args.classifier,)
    try:
        records = read_records(args.data, need_codes=True)
    except RecordError as e:
        raise SystemExit(f"error: {e}") from e
    out = args.out or artifacts_dir(args.artifacts) / "icd9"
    say(f"{len(records)} records, {len({c for r in records for c in r.codes})} codes, from {args.data}")
    metrics: dict = {"documents": len(records)}
    work = Path(tempfile.mkdtemp(prefix="icd9-report-"))
    try:
        files = {}
        if args.folds and args.folds > 1:
            cv = cross_validate(records, args, classifiers, say)
            for clf, res in cv.items():
                oof = res.pop("_scores")
                metrics[f"cv_{clf}"] = res
                top = [row[0] for row in top_codes_table(res, 5)]
                png = work / f"roc_{clf}.png"
                roc_curves({c: ([c in r.codes for r in records], [oof[r.id][c] for r in records]) for c in top},
                           png, f"{clf.upper()}: ROC of the 5 most frequent codes ({args.folds}-fold CV)")
                files[f"roc_{clf}.png"] = png
                if "calibration" in res:
                    from textqa.evaluation.plots import reliability_diagram  # deferred: loads matplotlib
                    cal, raw = res["calibration"], res["calibration_raw_score"]
                    png = work / f"reliability_{clf}.png"
                    reliability_diagram({f"Platt probability (ECE {cal['ece']:.4f})": _curve(cal),
                                         f"score clipped to [0, 1] (ECE {raw['ece']:.4f})": _curve(raw)}, png,
                                        f"{clf.upper()}: calibration over {cal['pairs']:,} (document, code) pairs, "
                                        f"{args.folds}-fold CV")
                    files[f"reliability_{clf}.png"] = png
            metrics["cv"] = {"folds": args.folds, "seed": args.seed}
            metrics["cv_seconds"] = round(time.perf_counter() - t0, 1)
        t_fit = time.perf_counter()
        coder = make_coder(args, classifiers).fit(records, progress=say)
        metrics["training_seconds"] = round(time.perf_counter() - t_fit, 2)
        descriptions = load_descriptions(DESCRIPTIONS)
        save_coder(coder, out, descriptions=descriptions, metrics=metrics,
                   data_fingerprint=file_fingerprint([args.data]), extra={"training_data": str(args.data)}, files=files)
    finally:                    # a failure or an interrupt (SIGTERM unwinds as one) leaves no folder behind
        shutil.rmtree(work, ignore_errors=True)
    say(f"wrote {out} ({len(coder.codes_)} codes predicted, {len(coder.unpredicted_codes_)} too rare: "
        f"{', '.join(coder.unpredicted_codes_)})")
    for clf in classifiers:
        if f"cv_{clf}" in metrics:
            print(format_report(metrics[f"cv_{clf}"], 5, f"{clf.upper()} {args.folds}-fold CV: "))
            res = metrics[f"cv_{clf}"]
            if "calibration" in res:
                a, r = res["review"]["automatic"], res["review"]["review"]
                print(f"  calibration: ECE {res['calibration']['ece']:.4f} (Platt probability), "
                      f"{res['calibration_raw_score']['ece']:.4f} (score clipped to [0, 1])")
                print(f"  review flag: {r['documents']} documents flagged ({100 * r['share']:.1f}%): "
                      f"P {r['precision']:.3f} R {r['recall']:.3f} F1 {r['f1']:.3f}; the other {a['documents']}: "
                      f"P {a['precision']:.3f} R {a['recall']:.3f} F1 {a['f1']:.3f}")
    print(f"training on all {len(records)} records: {metrics['training_seconds']} s")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m textqa.training.icd9", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
