"""``textqa eval NAME`` subcommands, one module per scorer.

Each module defines ``HELP`` (one line for ``textqa eval --help``), ``DESCRIPTION`` (the
formats, for ``textqa eval NAME --help``), ``add_arguments(parser)`` and ``run(args) -> int``.
User errors are raised as ``EvalInputError``; ``textqa``'s ``main`` prints them without a
traceback.  Later scorers add themselves to ``COMMANDS``.
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import textwrap

COMMANDS = {
    "truecase": "textqa.evaluation.commands.truecase",
    "rank": "textqa.evaluation.commands.rank",
    "agreement": "textqa.evaluation.commands.agreement",
    "aqwv": "textqa.evaluation.commands.aqwv",
    "cpa": "textqa.evaluation.commands.cpa",
    "nuggets": "textqa.evaluation.commands.nuggets",
    "rouge": "textqa.evaluation.commands.rouge",
    "wer": "textqa.evaluation.commands.wer",
    "material": "textqa.evaluation.commands.material",
}


def register(subparsers, extra: dict | None = None) -> None:
    """Add every scorer's subcommand to ``textqa eval``; ``extra`` adds commands that live
    elsewhere (the MT correlation report needs a trained model, so it lives in training/)."""
    for name, module in {**COMMANDS, **(extra or {})}.items():
        mod = importlib.import_module(module)
        p = subparsers.add_parser(name, help=mod.HELP, description=wrap(mod.DESCRIPTION),
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(p)
        p.add_argument("--json", action="store_true", help="print JSON instead of a table")
        p.set_defaults(func=mod.run)


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
