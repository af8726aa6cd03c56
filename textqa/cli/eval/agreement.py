"""textqa eval agreement --distance nominal|jaccard|masi FILE.tsv"""
from __future__ import annotations

from pathlib import Path

from textqa.cli.eval import print_json, print_pairs
from textqa.errors import InputError
from textqa.evaluation.agreement import read_agreement_tsv
from textqa.metrics import KrippendorffAlpha, MetricInputError

HELP = "Krippendorff's alpha with nominal, Jaccard or MASI distance"
DESCRIPTION = ("Krippendorff's alpha over set-valued annotations (Passonneau 2006).\n\n"
               "FILE: one annotation a line, 'coder<TAB>unit<TAB>label[,label...]' (an empty label field is the "
               "empty set; lines starting with # are comments). Units coded by fewer than two coders are "
               "ignored. Two empty sets have distance 0.")


def add_arguments(p) -> None:
    p.add_argument("file", type=Path, help="annotations TSV")
    p.add_argument("--distance", choices=["nominal", "jaccard", "masi"], default="masi",
                   help="distance between two label sets (default masi)")


def run(args) -> int:
    data = read_agreement_tsv(args.file)
    try:
        s = KrippendorffAlpha(args.distance).score(data)
    except MetricInputError as e:
        raise InputError(f"{args.file}: {e}") from e
    result = {"alpha": s.alpha, "distance": args.distance, "coders": s.coders, "units": s.units,
              "pairable_units": s.pairable_units, "observed_disagreement": s.observed_disagreement,
              "expected_disagreement": s.expected_disagreement}
    if args.json:
        print_json(result)
    else:
        print_pairs(result)
    return 0
