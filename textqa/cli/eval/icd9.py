"""textqa eval icd9 GOLD PRED: per-code P/R/F1/AUC, micro- and macro-F1 (evaluation.icd9).

Here rather than in evaluation/ because GOLD may be CMC XML, read by models.icd9.records.
"""
from __future__ import annotations

from pathlib import Path

from textqa.cli.eval import print_json
from textqa.errors import InputError
from textqa.evaluation.icd9 import format_report, read_predictions, score_codes
from textqa.models.icd9.records import RecordError, read_records

HELP = "ICD-9 coding: per-code P/R/F1/AUC, micro- and macro-F1"
DESCRIPTION = ("Score coded records against gold codes.\n\n"
               "GOLD: CMC 2007 XML (gold = CMC_MAJORITY codes) or JSONL {\"id\": ..., \"codes\": [...]}\n"
               "PRED: the JSONL of 'textqa icd9 code': {\"id\": ..., \"codes\": [{\"code\": ..., \"score\": ...}]}; "
               "AUC needs --all-scores there.\n"
               "Micro-F1 counts every (document, code) decision (the CMC 2007 challenge measure).")


def add_arguments(p) -> None:
    p.add_argument("gold", type=Path, help="gold records")
    p.add_argument("pred", type=Path, help="predictions")
    p.add_argument("--top", type=int, default=5, help="codes in the table (most frequent first)")


def run(args) -> int:
    try:
        gold_records = read_records(args.gold, need_codes=True)
    except RecordError as e:
        raise InputError(str(e)) from e
    predicted, scores = read_predictions(args.pred)
    gold = {r.id: set(r.codes) for r in gold_records}
    try:
        result = score_codes(gold, predicted, scores)
    except ValueError as e:
        raise InputError(f"{args.pred}: {e}") from e
    if args.json:
        print_json(result)
    else:
        print(format_report(result, args.top))
    return 0
