"""``textqa blanc score``: BLANC scores of hypotheses against reference files."""
from __future__ import annotations

import sys
from pathlib import Path

from textqa.evaluation.io import EvalInputError, read_lines
from textqa.common import add_model_arguments, load_model, stdin_lines

HELP = "score MT output with the trained BLANC metric"
DESCRIPTION = ("Score hypotheses (stdin, or --hyps FILE; one segment a line) against one or more reference "
               "files with the same number of lines. Prints one score a line, or with --corpus one system "
               "score; the metric's signature goes to stderr.")


def add_arguments(p) -> None:
    add_model_arguments(p, "blanc", "BLANC")
    p.add_argument("--refs", type=Path, nargs="+", required=True, metavar="FILE", help="reference file(s)")
    p.add_argument("--hyps", type=Path, default=None, help="hypotheses (default: stdin)")
    p.add_argument("--corpus", action="store_true", help="one system-level score instead of one per line")
    p.add_argument("--allow-empty", action="store_true", help="score empty hypotheses 0 instead of failing")
    p.add_argument("--details", action="store_true", help="print 'score precision recall' per line")


def run(args) -> int:
    from textqa.models.blanc.store import load_blanc

    metric = load_model(args, "blanc", load_blanc)
    hyp_name = str(args.hyps) if args.hyps else "<stdin>"
    hyps = read_lines(args.hyps) if args.hyps else stdin_lines()
    refs = [read_lines(f) for f in args.refs]
    for f, lines in zip(args.refs, refs):
        if len(lines) != len(hyps):
            raise EvalInputError(f"{f}: {len(lines)} lines but {hyp_name} has {len(hyps)}")
    for i, h in enumerate(hyps, start=1):
        if not h.strip() and not args.allow_empty:
            raise EvalInputError(f"{hyp_name}:{i}: empty hypothesis (use --allow-empty to score it 0)")
        for f, lines in zip(args.refs, refs):
            if not lines[i - 1].strip():
                raise EvalInputError(f"{f}:{i}: empty reference")
    per_segment = [[lines[i] for lines in refs] for i in range(len(hyps))]
    print(metric.signature(), file=sys.stderr)
    try:
        if args.corpus:
            s = metric.corpus_score(hyps, per_segment)
            print(f"{s.score:.6f} {s.precision:.6f} {s.recall:.6f}" if args.details else f"{s.score:.6f}")
            return 0
        out = sys.stdout
        for i, (h, r) in enumerate(zip(hyps, per_segment), start=1):
            try:
                s = metric.sentence_score(h, r) if h.strip() else None
            except ValueError as e:
                raise EvalInputError(f"{hyp_name}:{i}: {e}") from e
            if s is None:
                out.write("0.000000 0.000000 0.000000\n" if args.details else "0.000000\n")
            else:
                out.write(f"{s.score:.6f} {s.precision:.6f} {s.recall:.6f}\n" if args.details else f"{s.score:.6f}\n")
    except ValueError as e:
        raise EvalInputError(str(e)) from e
    return 0
