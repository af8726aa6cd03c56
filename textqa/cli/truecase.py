"""``textqa truecase``: truecase stdin to stdout, line by line (an MT/ASR post-processing filter)."""
from __future__ import annotations

import io
import sys

from textqa.registry import BY_NAME

from .io import add_model_arguments, add_options, load_model, stdin_lines_passing_bad_bytes

ENTRY = BY_NAME["truecaser"]
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
    p.add_argument("--batch-size", type=int, default=256, help="lines decoded together (default 256)")


def truecase_lines(service, lines: list[str], tokenized: bool, baseline: bool) -> bytes:
    """What ``textqa truecase`` writes for ``lines`` (each with its own line end)."""
    bodies = [l.rstrip("\r\n") for l in lines]
    ends = [l[len(b):] for l, b in zip(lines, bodies)]
    cased = service.truecase_tokenized(bodies, baseline) if tokenized else service.truecase_texts(bodies, baseline)
    return "".join(c + e for c, e in zip(cased, ends)).encode("utf-8", errors="surrogateescape")


def run(args) -> int:
    service = load_model(args, ENTRY)
    out = sys.stdout.buffer
    batch: list[str] = []

    def flush():
        out.write(truecase_lines(service, batch, args.tokenized, args.baseline))
        out.flush()
        batch.clear()

    for line in stdin_lines_passing_bad_bytes("truecase"):
        batch.append(line)
        if len(batch) >= args.batch_size:
            flush()
    if batch:
        flush()
    return 0


def run_partition(service, options: dict, label: str, first_line: int, newline_first: int, byte_offset: int,
                  data: bytes):
    """One partition of ``textqa batch truecase``: the bytes ``textqa truecase`` writes for it."""
    # lines as 'textqa truecase' reads them: split at "\n" only (str.splitlines would also split at a
    # lone "\r", "\x0c", U+2028..., changing what the decoder sees); bytes that are not UTF-8 pass through
    lines = [line.decode("utf-8", errors="surrogateescape") for line in io.BytesIO(data)]
    out = []
    for i in range(0, len(lines), 256):         # the CLI's --batch-size: same results, bounded memory
        out.append(truecase_lines(service, lines[i:i + 256], options["tokenized"], options["baseline"]))
    return b"".join(out), []
