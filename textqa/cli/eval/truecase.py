"""textqa eval truecase GOLD PRED"""
from __future__ import annotations

from pathlib import Path

from textqa.cli.eval import at_lines, print_json
from textqa.evaluation.truecase import format_report
from textqa.metrics import MetricInputError, Truecasing
from textqa.runtime.files import read_lines

HELP = "word accuracy and P/R/F1 over non-lowercase tokens"
DESCRIPTION = ("Word accuracy, and precision/recall/F1 over tokens that are not all lowercase (Susanto et al. "
               "2016), plus an LC/UC/CA/MC confusion table.\n\nBoth files: one tokenized sentence a line, "
               "the same tokens.")


def add_arguments(p) -> None:
    p.add_argument("gold", type=Path, help="reference file (true case)")
    p.add_argument("pred", type=Path, help="system output file")
    p.add_argument("--errors", type=int, default=0, help="with --json, list up to N wrong tokens")


def run(args) -> int:
    gold, pred = read_lines(args.gold), read_lines(args.pred)
    if len(gold) != len(pred):
        raise MetricInputError(f"{args.pred}: has {len(pred)} lines but {args.gold} has {len(gold)}")
    try:
        scores = Truecasing().corpus_score(pred, gold, errors=max(args.errors, 0)).details
    except MetricInputError as e:
        raise at_lines(e, {"predictions": args.pred, "references": args.gold}) from None
    if args.json:
        print_json(scores.as_dict(max_errors=args.errors))
    else:
        print(format_report(scores))
    return 0
