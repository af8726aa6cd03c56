"""What the command-line tools share: ``--model``/``--artifacts`` options, loading an artifact with
a user-facing error, and reading stdin with errors naming ``<stdin>`` and the line."""
from __future__ import annotations

import sys
from pathlib import Path

from textqa.evaluation.io import EvalInputError, decode
from textqa.paths import artifacts_dir


def add_model_arguments(p, name: str, what: str) -> None:
    p.add_argument("--model", type=Path, default=None, help=f"{what} artifact (default: <artifacts>/{name})")
    p.add_argument("--artifacts", type=Path, default=None,
                   help="artifacts root (default: $TEXTQA_ARTIFACTS or ./artifacts)")


def load_model(args, name: str, loader):
    """``loader(folder)`` for ``--model`` or ``<artifacts>/name``; a bad artifact is a user error."""
    from textqa.models.artifact import ArtifactError
    try:
        return loader(args.model or artifacts_dir(args.artifacts) / name)
    except ArtifactError as e:
        raise EvalInputError(str(e)) from e


def stdin_lines() -> list[str]:
    """All of stdin as UTF-8 lines; bad bytes raise ``EvalInputError`` naming the line."""
    return decode(sys.stdin.buffer.read(), "<stdin>").splitlines()
