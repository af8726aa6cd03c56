"""Reading stdin for the command-line tools: errors name ``<stdin>`` and the line."""
from __future__ import annotations

import sys

from evaluation.io import EvalInputError


def stdin_lines() -> list[str]:
    """All of stdin as UTF-8 lines; bad bytes raise ``EvalInputError`` naming the line."""
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise EvalInputError(f"<stdin>:{line}: not valid UTF-8 (byte offset {e.start})") from None
