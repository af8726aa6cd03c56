"""What the commands share: ``--model``/``--artifacts`` options, loading an artifact with a
user-facing error, reading stdin with errors naming ``<stdin>`` and the line, and the line formats
that a command and ``textqa batch`` both write."""
from __future__ import annotations

import sys
from pathlib import Path

from textqa.errors import InputError
from textqa.registry import ModelEntry
from textqa.runtime.files import decode
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
        return entry.load(model_folder(args, entry), **entry.option_values(args, "load"))
    except ArtifactError as e:
        raise InputError(str(e)) from e


def stdin_lines() -> list[str]:
    """All of stdin as UTF-8 lines; bad bytes raise ``InputError`` naming the line."""
    return decode(sys.stdin.buffer.read(), "<stdin>").splitlines()


def stdin_lines_passing_bad_bytes(command: str):
    """Lines of stdin as text, streamed; bytes that are not UTF-8 pass through unchanged
    (surrogateescape), with a warning naming the line."""
    for lineno, raw in enumerate(sys.stdin.buffer, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"textqa {command}: <stdin>:{lineno}: not valid UTF-8 at byte {e.start}; "
                  f"undecodable bytes are passed through unchanged", file=sys.stderr)
            line = raw.decode("utf-8", errors="surrogateescape")
        yield line


def decode_partition(data: bytes, label: str, newline_first: int, byte_offset: int) -> list[str]:
    """A partition's lines as the single-process commands read them (``str.splitlines``); bad
    bytes are an ``InputError`` numbered as ``runtime.files.decode`` numbers them: by newlines."""
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        line = newline_first + data[:e.start].count(b"\n")
        raise InputError(f"{label}:{line}: not valid UTF-8 (byte offset {byte_offset + e.start})") from None
