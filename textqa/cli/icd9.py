"""``textqa icd9 code``: assign ICD-9-CM codes to clinical records."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from textqa.errors import InputError
from textqa.models.icd9.records import RecordError, parse_jsonl_line, read_cmc_xml, read_jsonl
from textqa.registry import BY_NAME

from .io import add_model_arguments, add_options, decode_partition, load_model, stdin_lines

ENTRY = BY_NAME["icd9"]
HELP = "use the trained ICD-9 coders"
DESCRIPTION = "Use the trained ICD-9-CM coders (Lita et al. 2008)."
CODE_HELP = "assign ICD-9-CM codes to clinical records (JSONL out)"
CODE_DESCRIPTION = (
    "Code records with the trained ICD-9 coder. Input: --cmc-xml FILE (CMC 2007 challenge XML), "
    "--jsonl FILE, or JSONL on stdin; one record a line: {\"id\": ..., \"text\": ...} (or "
    "\"sections\": {name: text}). Output, one line per record: {\"id\": ..., \"codes\": "
    "[{\"code\": \"786.2\", \"score\": ..., \"description\": \"Cough\"}, ...]}, codes above their "
    "threshold, best first, after the coding guidelines (a symptom beside a diagnosis that explains "
    "it is dropped).  With --classifier brr every code also has \"std\" (its predictive standard "
    "deviation) and \"probability\" (calibrated), and the record \"review\": true when any code's "
    "score is within one standard deviation of its threshold.")


def add_arguments(p) -> None:
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    cp = actions.add_parser("code", help=CODE_HELP, description=CODE_DESCRIPTION)
    add_model_arguments(cp, ENTRY)
    src = cp.add_mutually_exclusive_group()
    src.add_argument("--cmc-xml", type=Path, help="CMC 2007 challenge XML file")
    src.add_argument("--jsonl", type=Path, help="JSONL records (default: stdin)")
    add_options(cp, ENTRY)
    cp.set_defaults(func=run_code)


def run(args) -> int:
    return args.func(args)


def run_code(args) -> int:

    coder = load_model(args, ENTRY)
    if args.classifier not in coder.models_:
        raise InputError(f"unknown classifier {args.classifier!r}; this model has {', '.join(coder.models_)}")
    try:
        if args.cmc_xml:
            records = read_cmc_xml(args.cmc_xml)
        elif args.jsonl:
            records = read_jsonl(args.jsonl)
        else:
            records = read_jsonl("<stdin>", lines=stdin_lines())
    except RecordError as e:
        raise InputError(str(e)) from e
    for item in coder.code(records, args.classifier, args.all_scores):
        sys.stdout.write(json.dumps(item) + "\n")
    return 0


def run_partition(coder, options: dict, label: str, first_line: int, newline_first: int, byte_offset: int,
                  data: bytes):
    """One partition of ``textqa batch icd9``: (the JSONL ``textqa icd9 code`` writes for its
    records, [(line, id), ...] of the records, for the client's check of ids given twice)."""
    lines = decode_partition(data, label, newline_first, byte_offset)
    records, ids = [], []
    try:
        for n, line in enumerate(lines, start=first_line):
            if line.strip():
                r = parse_jsonl_line(line, f"{label}:{n}")
                records.append(r)
                ids.append((n, r.id))
    except RecordError as e:
        raise InputError(str(e)) from None
    items = coder.code(records, options["classifier"], options["all_scores"]) if records else []
    return "".join(json.dumps(item) + "\n" for item in items).encode("utf-8"), ids

