"""Reading stdin for the command-line tools: errors name ``<stdin>`` and the line."""
from __future__ import annotations

import sys

from evaluation.io import decode


def stdin_lines() -> list[str]:
    """All of stdin as UTF-8 lines; bad bytes raise ``EvalInputError`` naming the line."""
    return decode(sys.stdin.buffer.read(), "<stdin>").splitlines()
