"""``textqa blanc score``: BLANC scores of hypotheses against reference files."""
from __future__ import annotations

import sys
from pathlib import Path

from textqa.errors import InputError
from textqa.registry import BY_NAME
from textqa.runtime.files import read_lines

from .eval import add_paired_arguments, paired_result, print_paired, read_systems
from .io import add_model_arguments, load_model, stdin_lines

ENTRY = BY_NAME["blanc"]
HELP = "use the trained BLANC MT metric"
DESCRIPTION = "Use the trained BLANC metric (Lita, Rogati & Lavie 2005)."
SCORE_HELP = "score MT output with the trained BLANC metric"
SCORE_DESCRIPTION = ("Score hypotheses (stdin, or --hyps FILE; one segment a line) against one or more reference "
                     "files with the same number of lines. Prints one score a line, or with --corpus one system "
                     "score; the metric's signature goes to stderr.")


def add_arguments(p) -> None:
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    sp = actions.add_parser("score", help=SCORE_HELP, description=SCORE_DESCRIPTION)
    add_model_arguments(sp, ENTRY)
    sp.add_argument("--refs", type=Path, nargs="+", required=True, metavar="FILE", help="reference file(s)")
    sp.add_argument("--hyps", type=Path, nargs="+", default=None, metavar="FILE",
                    help="hypotheses (default: stdin); several, with --paired")
    add_paired_arguments(sp, "the --hyps files")
    for option in ENTRY.options:                # the command's order: --corpus --allow-empty --details
        option.add_to(sp)
        if option.name == "corpus":
            add_input_arguments(sp)
    sp.set_defaults(func=run_score)


def add_input_arguments(p) -> None:
    p.add_argument("--allow-empty", action="store_true", help="score empty hypotheses 0 instead of failing")


def score_line(s, details: bool) -> str:
    """One line of ``textqa blanc score``'s output for a sentence score (None: an empty hypothesis)."""
    if s is None:
        return "0.000000 0.000000 0.000000\n" if details else "0.000000\n"
    return f"{s.score:.6f} {s.precision:.6f} {s.recall:.6f}\n" if details else f"{s.score:.6f}\n"


def run(args) -> int:
    return args.func(args)


def run_score(args) -> int:
    if args.paired:
        return run_paired(args)
    if args.hyps and len(args.hyps) > 1:
        raise InputError("several --hyps files: give --paired bs or --paired ar to compare them")
    metric = load_model(args, ENTRY)
    hyp_name = str(args.hyps[0]) if args.hyps else "<stdin>"
    hyps = read_lines(args.hyps[0]) if args.hyps else stdin_lines()
    refs = [read_lines(f) for f in args.refs]
    for f, lines in zip(args.refs, refs):
        if len(lines) != len(hyps):
            raise InputError(f"{f}: {len(lines)} lines but {hyp_name} has {len(hyps)}")
    for i, h in enumerate(hyps, start=1):
        if not h.strip() and not args.allow_empty:
            raise InputError(f"{hyp_name}:{i}: empty hypothesis (use --allow-empty to score it 0)")
        for f, lines in zip(args.refs, refs):
            if not lines[i - 1].strip():
                raise InputError(f"{f}:{i}: empty reference")
    per_segment = [[lines[i] for lines in refs] for i in range(len(hyps))]
    print(metric.signature, file=sys.stderr)
    try:
        if args.corpus:
            sys.stdout.write(score_line(metric.corpus_score(hyps, per_segment), args.details))
            return 0
        out = sys.stdout
        for i, (h, r) in enumerate(zip(hyps, per_segment), start=1):
            try:
                s = metric.sentence_score(h, r) if h.strip() else None
            except ValueError as e:
                raise InputError(f"{hyp_name}:{i}: {e}") from e
            out.write(score_line(s, args.details))
    except ValueError as e:
        raise InputError(str(e)) from e
    return 0


def run_partition(metric, options: dict, label: str, first_line: int, newline_first: int, byte_offset: int,
                  rows: list):
    """One partition of ``textqa batch blanc``: what 'textqa blanc score' writes for ``rows``
    ([hypothesis, [reference, ...]] from line ``first_line`` on); with ``--corpus`` the per-line
    statistics that its corpus score sums, as float64 bytes, so that the client adds them in the
    same order."""
    import numpy as np  # deferred: loads numpy
    if options["corpus"]:
        stats = []
        for hyp, refs in rows:
            try:
                s = metric.sentence_score(hyp, refs).stats
            except ValueError as e:
                raise InputError(str(e)) from e
            stats.append(s["per_reference"][s["best_reference"]])
        return np.asarray(stats, dtype=np.float64).tobytes(), []
    out = []
    for i, (hyp, refs) in enumerate(rows, start=first_line):
        try:
            s = metric.sentence_score(hyp, refs) if hyp.strip() else None
        except ValueError as e:
            raise InputError(f"{label}:{i}: {e}") from e
        out.append(score_line(s, options["details"]))
    return "".join(out).encode("utf-8"), []


def run_paired(args) -> int:
    """``--paired``: each --hyps file's corpus BLANC and its paired test against the first's."""
    if not args.hyps or len(args.hyps) < 2:
        raise InputError("--paired compares two --hyps files or more")
    systems, per_segment = read_systems(args.refs, args.hyps, empty_hypotheses=False)
    result = paired_result(load_model(args, ENTRY), systems, per_segment, args.paired, args.paired_n)
    print_paired(result)
    return 0
