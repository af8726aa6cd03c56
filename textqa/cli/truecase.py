"""``textqa truecase``: truecase stdin to stdout, line by line (an MT/ASR post-processing filter)."""
from __future__ import annotations

import io
import sys

from textqa.errors import InputError
from textqa.registry import BY_NAME

from .io import add_model_arguments, add_options, decoded_lines, load_model, stdin_line_batches

ENTRY = BY_NAME["truecaser"]
#: Lines decoded together at most (``--batch-size``; a batch partition's too): each batch pays a fixed
#: cost (the scores of the sentence-context model, the search's set-up), so larger batches decode
#: faster, with the same output.
BATCH_LINES = 5000
HELP = "truecase stdin to stdout, one sentence/line at a time"
DESCRIPTION = ("Read text from stdin, write it truecased to stdout, line by line (an MT/ASR post-processing "
               "filter). Only the case of letters changes.")


def add_input_arguments(p) -> None:
    """The input format: what ``textqa truecase`` and ``textqa batch truecase`` share beside the options."""
    p.add_argument("--tokenized", action="store_true",
                   help="input is already tokenized (whitespace-separated, PTB style); otherwise raw text "
                        "is tokenized internally")


def add_arguments(p) -> None:
    add_model_arguments(p, ENTRY)
    add_input_arguments(p)
    add_options(p, ENTRY)
    p.add_argument("--batch-size", type=int, default=BATCH_LINES,
                   help="at most this many lines decoded together: the lines already available are, so a file "
                        "goes in large batches and an interactive pipe line by line (default 5000)")


def truecase_lines(service, lines: list[str], tokenized: bool, baseline: bool) -> bytes:
    """What ``textqa truecase`` writes for ``lines`` (each with its own line end)."""
    bodies = [l.rstrip("\r\n") for l in lines]
    ends = [l[len(b):] for l, b in zip(lines, bodies)]
    cased = service.truecase_tokenized(bodies, baseline) if tokenized else service.truecase_texts(bodies, baseline)
    return "".join(c + e for c, e in zip(cased, ends)).encode("utf-8", errors="surrogateescape")


def run(args) -> int:
    if args.batch_size < 1:
        raise InputError("--batch-size must be at least 1")
    service = load_model(args, ENTRY)
    out = sys.stdout.buffer
    sys.stdout.flush()
    first = 1
    for raw in stdin_line_batches(args.batch_size):
        lines = decoded_lines(raw, first, "truecase")
        first += len(raw)
        out.write(truecase_lines(service, lines, args.tokenized, args.baseline))
        out.flush()                                     # each batch is written as soon as it is done
    return 0


def run_partition(service, options: dict, label: str, first_line: int, newline_first: int, byte_offset: int,
                  data: bytes):
    """One partition of ``textqa batch truecase``: the bytes ``textqa truecase`` writes for it."""
    # lines as 'textqa truecase' reads them: split at "\n" only (str.splitlines would also split at a
    # lone "\r", "\x0c", U+2028..., changing what the decoder sees); bytes that are not UTF-8 pass through
    lines = [line.decode("utf-8", errors="surrogateescape") for line in io.BytesIO(data)]
    out = []
    for i in range(0, len(lines), BATCH_LINES):     # as the command decodes a file: same results, bounded memory
        out.append(truecase_lines(service, lines[i:i + BATCH_LINES], options["tokenized"], options["baseline"]))
    return b"".join(out), []
