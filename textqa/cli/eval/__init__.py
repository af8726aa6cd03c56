"""``textqa eval NAME`` subcommands, one module per scorer.

Each module defines ``HELP`` (one line for ``textqa eval --help``), ``DESCRIPTION`` (the
formats, for ``textqa eval NAME --help``), ``add_arguments(parser)`` and ``run(args) -> int``.
User errors are raised as ``InputError``; ``textqa``'s ``main`` prints them without a
traceback.  A new scorer adds itself to ``COMMANDS``.
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import textwrap

COMMANDS = {
    "truecase": "textqa.cli.eval.truecase",
    "rank": "textqa.cli.eval.rank",
    "agreement": "textqa.cli.eval.agreement",
    "aqwv": "textqa.cli.eval.aqwv",
    "cpa": "textqa.cli.eval.cpa",
    "nuggets": "textqa.cli.eval.nuggets",
    "rouge": "textqa.cli.eval.rouge",
    "wer": "textqa.cli.eval.wer",
    "material": "textqa.cli.eval.material",
    "correlate": "textqa.cli.eval.correlate",
    "icd9": "textqa.cli.eval.icd9",
}
HELP = "score system output against a reference"
DESCRIPTION = "Score system output files against reference files."


def add_arguments(parser) -> None:
    """Add every scorer's subcommand to ``textqa eval``."""
    subparsers = parser.add_subparsers(dest="metric", required=True, metavar="METRIC")
    for name, module in COMMANDS.items():
        mod = importlib.import_module(module)
        p = subparsers.add_parser(name, help=mod.HELP, description=wrap(mod.DESCRIPTION),
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(p)
        p.add_argument("--json", action="store_true", help="print JSON instead of a table")
        p.set_defaults(func=mod.run)


def run(args) -> int:
    return args.func(args)


def wrap(text: str, width: int = 100) -> str:
    """Wrap each line of ``text`` on its own, keeping line breaks and indentation (for argparse)."""
    out = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip()))
        out.append(textwrap.fill(line, width, subsequent_indent=indent + "  ") if line.strip() else "")
    return "\n".join(out)


def json_safe(value):
    """``value`` with every float that is not finite (a WER over no reference words, a correlation
    of constant scores) replaced by None: JSON has no NaN or Infinity, and ``json.dumps`` would
    write them as tokens other parsers reject."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "dtype") and hasattr(value, "tolist"):       # numpy scalars and arrays
        return json_safe(value.tolist())
    return value


def print_json(result) -> None:
    """The scorers' ``--json`` output: strict JSON, non-finite numbers as null (``json_safe``)."""
    print(json.dumps(json_safe(result), indent=2, allow_nan=False))


def print_pairs(result: dict, width: int = 22, digits: int = 6) -> None:
    """``key value`` lines, floats with ``digits`` decimals."""
    for k, v in result.items():
        print(f"{k:<{width}}{v:.{digits}f}" if isinstance(v, float) else f"{k:<{width}}{v}")
