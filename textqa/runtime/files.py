"""Reading input files with errors that name the file and line; writing output files whole."""
from __future__ import annotations

import gzip
import os
from contextlib import contextmanager
from pathlib import Path

from textqa.errors import InputError


@contextmanager
def replaced_whole(path):
    """Yield a temporary path beside ``path`` (same suffix, so writers that go by it still can);
    when the block succeeds it is renamed onto ``path``, otherwise removed.  An error (a full disk,
    Ctrl-C) never leaves a partial file, and an existing ``path`` stays intact until the rename."""
    path = Path(path)
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}{path.suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_bytes(path) -> bytes:
    """A file's bytes (``.gz`` decompressed); an ``InputError`` naming the file when it cannot be read."""
    try:
        with (gzip.open if str(path).endswith(".gz") else open)(path, "rb") as f:
            return f.read()
    except (OSError, EOFError) as e:
        raise InputError(f"{path}: {getattr(e, 'strerror', None) or e}") from None


def decode(data: bytes, name) -> str:
    """UTF-8 text; bad bytes raise an ``InputError`` naming ``name`` and the line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise InputError(f"{name}:{line}: not valid UTF-8 (byte offset {e.start})") from None


def read_lines(path) -> list[str]:
    """Lines of a UTF-8 text file (``.gz`` accepted); an ``InputError`` for a missing file or bad bytes."""
    return decode(read_bytes(path), path).splitlines()


def tsv_rows(path, n_fields: int, what: str):
    """``(line number, fields)`` of a tab-separated file; blank and ``#`` lines are skipped.

    A line with another number of fields raises ``InputError`` naming file, line and ``what``.
    """
    for lineno, line in enumerate(read_lines(path), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.rstrip("\r").split("\t")
        if len(parts) != n_fields:
            raise InputError(f"{path}:{lineno}: expected {n_fields} tab-separated fields ({what}), "
                                 f"got {len(parts)}")
        yield lineno, parts
