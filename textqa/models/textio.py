"""Reading input files for the models' own readers (CMC XML/JSONL, TrecQA): ``.gz`` accepted, and
every error, raised as the caller's exception class, names the file (and the line for bad bytes)."""
from __future__ import annotations

import gzip


def read_bytes(path, error=ValueError) -> bytes:
    try:
        with (gzip.open if str(path).endswith(".gz") else open)(path, "rb") as f:
            return f.read()
    except (OSError, EOFError) as e:
        raise error(f"{path}: {getattr(e, 'strerror', None) or e}") from None


def decode_lines(data: bytes, name, error=ValueError) -> list[str]:
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise error(f"{name}:{line}: not valid UTF-8 (byte offset {e.start})") from None


def read_lines(path, error=ValueError) -> list[str]:
    return decode_lines(read_bytes(path, error), path, error)
