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
import re
import textwrap

COMMANDS = {
    "truecase": "textqa.cli.eval.truecase",
    "rank": "textqa.cli.eval.rank",
    "agreement": "textqa.cli.eval.agreement",
    "aqwv": "textqa.cli.eval.aqwv",
    "cpa": "textqa.cli.eval.cpa",
    "nuggets": "textqa.cli.eval.nuggets",
    "rouge": "textqa.cli.eval.rouge",
    "bleu": "textqa.cli.eval.bleu",
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


def at_lines(error: Exception, files: dict):
    """A :class:`~textqa.metrics.MetricInputError` from scoring the lines of files, as the command line
    says it: each ``name[i]`` of the message (``predictions[3]``) becomes ``FILE:LINE`` (``pred.txt:4``)
    for the ``files`` {argument name: file}, so that the error names the file and line."""
    from textqa.errors import InputError
    names = "|".join(re.escape(n) for n in files)
    message = re.sub(rf"\b({names})\[(\d+)\]", lambda m: f"{files[m.group(1)]}:{int(m.group(2)) + 1}", str(error))
    return InputError(message)


def add_paired_arguments(p, systems: str) -> None:
    """``--paired bs|ar`` and ``--paired-n``: compare ``systems`` (the first is the baseline) on the same
    segments by paired bootstrap resampling or approximate randomization, as sacrebleu's ``--paired-bs``
    and ``--paired-ar``."""
    p.add_argument("--paired", choices=["bs", "ar"],
                   help=f"compare {systems} on the same segments, the first as the baseline: paired bootstrap "
                        "resampling (bs) or approximate randomization (ar), as sacrebleu's --paired-bs/--paired-ar")
    p.add_argument("--paired-n", type=int, metavar="N",
                   help="bootstrap resamples (bs, default 1000) or randomization trials (ar, default 10000)")


def paired_result(metric, systems: dict, references, how: str, n: int | None) -> dict:
    """The paired test of ``systems`` ({name: hypotheses}, the first the baseline) as the commands print
    it with ``--json``: the test, its size and seed, the metric's signature, and per measure and system
    the corpus score, the p-value of its difference from the baseline, and the bootstrap mean and
    half-width of its 95% interval."""
    from textqa.metrics import approximate_randomization, paired_bootstrap
    from textqa.metrics.significance import SEED
    from textqa.errors import InputError
    if len(systems) < 2:
        raise InputError("--paired compares two systems or more: give more than one")
    if n is not None and n < 1:
        raise InputError(f"--paired-n {n}: give a positive number")
    n = n or (1000 if how == "bs" else 10000)
    test = paired_bootstrap if how == "bs" else approximate_randomization
    results = test(metric, systems, references, **{"resamples" if how == "bs" else "trials": n})
    return {"test": "paired bootstrap resampling" if how == "bs" else "approximate randomization",
            "samples": n, "seed": SEED, "baseline": next(iter(systems)), "signature": metric.signature,
            "measures": {m: {name: {"score": r.score, "p_value": r.p_value, "mean": r.mean, "ci95": r.ci}
                             for name, r in per.items()} for m, per in results.items()}}


def print_paired(result: dict, digits: int = 4) -> None:
    """``--paired``'s table: each system's score, bootstrap mean +- 95% interval, and p-value (starred
    below 0.05), as sacrebleu prints its paired tests."""
    print(f"{result['test']}, {result['samples']} samples, seed {result['seed']}; "
          f"baseline {result['baseline']}; * p < 0.05")
    print(result["signature"])
    width = max(len(name) for per in result["measures"].values() for name in per) + 2
    for measure, per in result["measures"].items():
        print(f"\n{'system':<{width}}{measure:>12}{'mean +- 95% CI':>24}{'p-value':>12}")
        for name, r in per.items():
            spread = "" if r["mean"] is None else f"{r['mean']:.{digits}f} +- {r['ci95']:.{digits}f}"
            p = "" if r["p_value"] is None else f"{r['p_value']:.4f}{'*' if r['p_value'] < 0.05 else ' '}"
            print(f"{name:<{width}}{r['score']:>12.{digits}f}{spread:>24}{p:>12}")


def read_systems(references, hypotheses, empty_hypotheses: bool = True) -> tuple[dict, list[list[str]]]:
    """Files of one segment a line: ({hypothesis file: its lines}, each segment's references, its
    lines across the reference files); a file of another length, a file given twice and (unless
    ``empty_hypotheses``) an empty hypothesis are errors naming the file and line."""
    from textqa.errors import InputError
    from textqa.runtime.files import read_lines
    refs = [read_lines(f) for f in references]
    systems = {}
    for path in hypotheses:
        lines = read_lines(path)
        for f, r in zip(references, refs):
            if len(r) != len(lines):
                raise InputError(f"{f}: {len(r)} lines but {path} has {len(lines)}")
        if not empty_hypotheses:
            for i, h in enumerate(lines, start=1):
                if not h.strip():
                    raise InputError(f"{path}:{i}: empty hypothesis")
        if str(path) in systems:
            raise InputError(f"{path}: given twice")
        systems[str(path)] = lines
    return systems, [list(r) for r in zip(*refs)]
