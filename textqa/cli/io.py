"""What the commands share: ``--model``/``--artifacts`` options, loading an artifact with a
user-facing error, reading stdin with errors naming ``<stdin>`` and the line, and the line formats
that a command and ``textqa batch`` both write."""
from __future__ import annotations

import os
import select
import sys
from pathlib import Path

from textqa.errors import InputError
from textqa.registry import ModelEntry
from textqa.runtime.files import decode
from textqa.runtime.gc_pause import freeze_loaded
from textqa.runtime.paths import artifacts_dir


def add_model_arguments(p, entry: ModelEntry) -> None:
    p.add_argument("--model", type=Path, default=None, help=f"{entry.label} artifact (default: "
                                                            f"<artifacts>/{entry.name})")
    p.add_argument("--artifacts", type=Path, default=None,
                   help="artifacts root (default: $TEXTQA_ARTIFACTS or ./artifacts)")


def add_options(p, entry: ModelEntry, stage: str | None = None) -> None:
    """The model's run-time options (of ``stage``, or all) as flags, named as in ``textqa.registry``."""
    for option in entry.options:
        if stage is None or option.stage == stage:
            option.add_to(p)


def model_folder(args, entry: ModelEntry) -> Path:
    return args.model or artifacts_dir(args.artifacts) / entry.name


def load_model(args, entry: ModelEntry):
    """The model for ``--model`` or ``<artifacts>/NAME`` with the load-time options in ``args``; a
    bad artifact is a user error."""
    from textqa.models.artifact import ArtifactError  # deferred: loads orjson, numpy
    try:
        model = entry.load(model_folder(args, entry), **entry.option_values(args, "load"))
    except ArtifactError as e:
        raise InputError(str(e)) from e
    freeze_loaded(collect=False)        # a command's model lives as long as the process: never walked again
    return model


def stdin_lines() -> list[str]:
    """All of stdin as UTF-8 lines; bad bytes raise ``InputError`` naming the line."""
    return decode(sys.stdin.buffer.read(), "<stdin>").splitlines()


def ready_line_batches(fd: int, max_lines: int, block: int = 1 << 20):
    """Lists of the newline-ended byte lines of file descriptor ``fd`` (the last may lack its
    newline), each as many as are available at once, up to ``max_lines``: a file or a fast pipe gives
    large batches, an interactive pipe each line as soon as it is complete."""
    pending, done = b"", False
    while not done:
        chunk = os.read(fd, block)                      # waits for something to read
        if not chunk:
            break
        pending += chunk
        while pending.count(b"\n") < max_lines and select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, block)                  # more is there now: take it without waiting
            if not chunk:
                done = True
                break
            pending += chunk
        lines = pending.split(b"\n")
        pending = lines.pop()                           # an incomplete last line waits for its end
        lines = [line + b"\n" for line in lines]
        for i in range(0, len(lines), max_lines):
            yield lines[i:i + max_lines]
    if pending:
        yield [pending]


def stdin_line_batches(max_lines: int):
    """:func:`ready_line_batches` of stdin; a stdin with no file descriptor (an in-process caller's
    buffer) is read in batches of ``max_lines`` lines."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):      # io.UnsupportedOperation is an OSError
        fd = None
    if fd is not None:
        yield from ready_line_batches(fd, max_lines)
        return
    batch = []
    for line in sys.stdin.buffer:
        batch.append(line)
        if len(batch) == max_lines:
            yield batch
            batch = []
    if batch:
        yield batch


def decoded_lines(raw_lines: list[bytes], first: int, command: str) -> list[str]:
    """Byte lines as text; bytes that are not UTF-8 pass through unchanged (surrogateescape), with a
    warning naming the line (``first``: the number of the first)."""
    out = []
    for lineno, raw in enumerate(raw_lines, start=first):
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            print(f"textqa {command}: <stdin>:{lineno}: not valid UTF-8 at byte {e.start}; "
                  f"undecodable bytes are passed through unchanged", file=sys.stderr)
            out.append(raw.decode("utf-8", errors="surrogateescape"))
    return out


def decode_partition(data: bytes, label: str, newline_first: int, byte_offset: int) -> list[str]:
    """A partition's lines as the single-process commands read them (``str.splitlines``); bad
    bytes are an ``InputError`` numbered as ``runtime.files.decode`` numbers them: by newlines."""
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        line = newline_first + data[:e.start].count(b"\n")
        raise InputError(f"{label}:{line}: not valid UTF-8 (byte offset {byte_offset + e.start})") from None
