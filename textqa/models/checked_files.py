"""Payload checks that cost what they must: a payload's sha256 is computed once per file identity.

An artifact's manifest holds the sha256 of every payload, and a load checks each payload against
it before using it.  Hashing the truecaser's payloads at every start would cost a large part of
its start-up (see "Figures behind the code" in docs/experiments/truecaser.md), and a
collection's index is several times larger, so a payload that matched its checksum is
remembered by its *identity*: device, inode, size, modification time and status-change time
(``st_ctime_ns``).  A write to the file moves the status-change time, and nothing but the
system clock can set it back (``os.utime`` sets the modification time, not it), so a byte flipped
with the size and the modification time restored still changes the identity, and the file is
hashed again and refused when it differs.

The identities are kept in one small JSON file in the cache folder
(:func:`textqa.runtime.paths.cache_dir`, ``verified-files.json``).  Whoever can rewrite that folder
and the artifact alike can fool this, as with any checksum stored beside its data; for the cautious
(and CI), ``textqa verify ARTIFACT`` hashes every file whatever is remembered, and
``TEXTQA_VERIFY=always`` makes every load do the same.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

RECORD = "verified-files.json"
#: At most this many files are remembered (the oldest first forgotten); a forgotten file is hashed again.
MAX_REMEMBERED = 20_000


def file_identity(path) -> tuple:
    """(device, inode, size, modification time, status-change time) of ``path``; any write changes it."""
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


class CheckedFiles:
    """The payloads already found equal to their checksums, by identity, remembered in ``record``
    (a JSON file; None: nothing is remembered, every load hashes everything)."""

    def __init__(self, record: Path | None):
        self.record = record
        self._known: dict = self._read() if record is not None else {}
        self._changed = False

    @classmethod
    def default(cls) -> "CheckedFiles":
        """The record in the cache folder, or none with ``TEXTQA_VERIFY=always``."""
        if os.environ.get("TEXTQA_VERIFY", "").lower() == "always":
            return cls(None)
        from textqa.runtime.paths import cache_dir
        return cls(cache_dir() / RECORD)

    def _read(self) -> dict:
        try:
            known = json.loads(self.record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return known if isinstance(known, dict) else {}

    @staticmethod
    def _key(path) -> str:
        return os.path.realpath(path)

    def holds(self, path, sha256: str) -> bool:
        """Whether ``path``, as it is now, was found to hash to ``sha256``."""
        if self.record is None:
            return False
        try:
            return self._known.get(self._key(path)) == [*file_identity(path), sha256]
        except OSError:
            return False

    def remember(self, path, sha256: str, identity: tuple) -> None:
        """``path``, whose identity was ``identity`` when it was read, hashed to ``sha256``."""
        if self.record is None:
            return
        key = self._key(path)
        self._known.pop(key, None)               # newest last: the oldest are forgotten first
        self._known[key] = [*identity, sha256]
        self._changed = True

    def save(self) -> None:
        """Write the record if it changed (atomically; a cache folder that cannot be written is no
        error: the next load hashes again)."""
        if not self._changed or self.record is None:
            return
        # what another process remembered meanwhile is kept: an entry holds only while its file's
        # identity is the one recorded, so merging can never vouch for a changed file
        known = dict(list({**self._read(), **self._known}.items())[-MAX_REMEMBERED:])
        try:
            self.record.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.record.with_name(f".{self.record.name}.tmp-{os.getpid()}")
            tmp.write_text(json.dumps(known), encoding="utf-8")
            os.replace(tmp, self.record)
            self._changed = False
        except OSError:
            pass
