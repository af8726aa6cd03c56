"""``textqa icd9 code``: assign ICD-9-CM codes to clinical records."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from textqa.evaluation.io import EvalInputError
from textqa.common import add_model_arguments, load_model, stdin_lines

HELP = "assign ICD-9-CM codes to clinical records (JSONL out)"
DESCRIPTION = ("Code records with the trained ICD-9 coder. Input: --cmc-xml FILE (CMC 2007 challenge XML), "
               "--jsonl FILE, or JSONL on stdin; one record a line: {\"id\": ..., \"text\": ...} (or "
               "\"sections\": {name: text}). Output, one line per record: {\"id\": ..., \"codes\": "
               "[{\"code\": \"786.2\", \"score\": ..., \"description\": \"Cough\"}, ...]}, codes above their "
               "threshold, best first, after the coding guidelines (a symptom beside a diagnosis that explains "
               "it is dropped).  With --classifier brr every code also has \"std\" (its predictive standard "
               "deviation) and \"probability\" (calibrated), and the record \"review\": true when any code's "
               "score is within one standard deviation of its threshold.")


def add_arguments(p) -> None:
    add_model_arguments(p, "icd9", "ICD-9")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--cmc-xml", type=Path, help="CMC 2007 challenge XML file")
    src.add_argument("--jsonl", type=Path, help="JSONL records (default: stdin)")
    p.add_argument("--classifier", default="svm", help="svm (default, better in cross-validation) or brr")
    p.add_argument("--all-scores", action="store_true",
                   help="add \"scores\": every code's margin over its threshold (for AUC in 'textqa eval icd9')")


def run(args) -> int:
    from textqa.models.icd9.records import RecordError, read_cmc_xml, read_jsonl
    from textqa.models.icd9.store import load_coder

    coder = load_model(args, "icd9", load_coder)
    if args.classifier not in coder.models_:
        raise EvalInputError(f"unknown classifier {args.classifier!r}; this model has {', '.join(coder.models_)}")
    try:
        if args.cmc_xml:
            records = read_cmc_xml(args.cmc_xml)
        elif args.jsonl:
            records = read_jsonl(args.jsonl)
        else:
            records = read_jsonl("<stdin>", lines=stdin_lines())
    except RecordError as e:
        raise EvalInputError(str(e)) from e
    for item in coder.code(records, args.classifier, args.all_scores):
        sys.stdout.write(json.dumps(item) + "\n")
    return 0
