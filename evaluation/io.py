"""Reading scorer input files with errors that name the file and line."""
from __future__ import annotations


class EvalInputError(ValueError):
    """An input file is unreadable or malformed; the message names the file (and line)."""


def read_lines(path) -> list[str]:
    """Lines of a UTF-8 text file; an ``EvalInputError`` for a missing file or bad bytes."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise EvalInputError(f"{path}: {e.strerror}") from None
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise EvalInputError(f"{path}:{line}: not valid UTF-8 (byte offset {e.start})") from None
