"""The ICD-9 ablation table of the README: 5-fold cross-validated micro-F1 of the SVM and BRR coders
for each variant (``textqa train icd9 OPTIONS`` computes the same numbers, then also fits and writes
a model).  ``python dev/icd9_ablation.py [--only NAME ...]`` prints a markdown table (about 20 s a row).  ``--plain`` instead codes the test folds' reports as plain text
(the two sections joined, no section names), as a user who pastes a report does."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

VARIANTS = [
    ("the paper's setup: cost ratio, fixed prior, no negation, no sections, no guidelines, no concepts, "
     "basic triggers", "--svm-cost ratio --brr-prior fixed --no-negation --no-sections --guidelines --no-concepts "
                       "--triggers"),
    ("paper's SVM cost (neg/pos ratio)", "--svm-cost ratio"),
    ("paper's BRR prior N(0, I)", "--brr-prior fixed"),
    ("no negation/uncertainty marking", "--no-negation"),
    ("no section features", "--no-sections"),
    ("no index-term concepts", "--no-concepts"),
    ("basic NegEx triggers only (none of the four groups)", "--triggers"),
    ("without hypothetical triggers", "--triggers hedges pseudo post"),
    ("without hedges", "--triggers hypothetical pseudo post"),
    ("without pseudo-negations", "--triggers hypothetical hedges post"),
    ("without post-triggers", "--triggers hypothetical hedges pseudo"),
    ("no coding guidelines (independent decisions)", "--guidelines"),
    ("symptom pairs without the chance requirement", "--symptom-min-expected 0"),
    ("with mutually exclusive pairs", "--guidelines symptoms exclusive"),
    ("with the per-document cap", "--guidelines symptoms cap"),
    ("with all three rules", "--guidelines symptoms exclusive cap"),
    ("k = 300 features per code", "--k 300"),
    ("every document gets its best code", "--at-least-one"),
    ("session 23's default: no concepts, basic triggers, every unseen symptom pair",
     "--no-concepts --triggers --symptom-min-expected 0"),
    ("**default**", ""),
]


def main(argv=None) -> int:
    import warnings

    from textqa.models.icd9.records import read_records
    from textqa.training.icd9 import DEFAULT_DATA, add_arguments, cross_validate
    warnings.filterwarnings("ignore")
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--only", nargs="*", default=None, help="options strings of the variants to run")
    p.add_argument("--plain", action="store_true", help="code the test folds as plain text (default model)")
    a = p.parse_args(argv)
    records = read_records(DEFAULT_DATA[0], need_codes=True)
    if a.plain:
        return plain_text(records)
    print("| variant | options | SVM | BRR |\n|---|---|---:|---:|")
    for name, options in VARIANTS:
        if a.only is not None and options not in a.only:
            continue
        t0 = time.perf_counter()
        q = argparse.ArgumentParser()
        add_arguments(q)
        args = q.parse_args(options.split())
        res = cross_validate(records, args, ("svm", "brr"))
        shown = f"`{options}`" if options else ""
        print(f"| {name} | {shown} | {res['svm']['micro']['f1']:.4f} | {res['brr']['micro']['f1']:.4f} |", flush=True)
        print(f"  ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return 0


def plain_text(records) -> int:
    """5-fold CV (folds and seed as in training) of the default coders trained on the sectioned
    reports, coding each test report given as plain text."""
    from sklearn.model_selection import KFold

    from textqa.evaluation.icd9 import score_codes
    from textqa.models.icd9.records import Record
    from textqa.training.icd9 import add_arguments, make_coder
    q = argparse.ArgumentParser()
    add_arguments(q)
    args = q.parse_args([])
    predicted = {"svm": {}, "brr": {}}
    for tr, te in KFold(args.folds, shuffle=True, random_state=args.seed).split(records):
        coder = make_coder(args, ("svm", "brr")).fit([records[i] for i in tr])
        test = [Record(records[i].id, {"text": records[i].text}) for i in te]
        for clf in predicted:
            for r, codes in zip(test, coder.predict(test, clf)):
                predicted[clf][r.id] = {c for c, _ in codes}
    gold = {r.id: set(r.codes) for r in records}
    print("| reports coded as plain text | SVM | BRR |\n|---|---:|---:|")
    print("| 5-fold micro-F1 | " + " | ".join(f"{score_codes(gold, predicted[c])['micro']['f1']:.4f}"
                                               for c in ("svm", "brr")) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
