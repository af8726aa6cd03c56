"""numba's on-disk cache made safe for several processes (imported by every module that compiles
with ``@njit(cache=True)``: BLANC's statistics and ROUGE's matching).

numba keeps, beside each cached function, an index (``*.nbi``: {signature: data file}) and one data
file per compiled signature (``*.nbc``).  Saving an entry reads the index, picks the first free
data-file number, writes the index and then the data, with no lock (numba issue #10128, open).
Two processes compiling two signatures of one function at once both pick the same number: the
index then names one signature and the file holds the other's machine code, which every later
process loads.  Measured here: 16 processes compiling 16 signatures of one function into an empty
cache left entries that raised ``TypeError`` or returned a wrong number in 4 rounds of 6, and in
this repository's working tree a test run left a BLANC function that counted wrong until its file
was removed.  Parallel first use is ordinary for textqa (gunicorn workers, joblib and Dask
workers, tests), so each save and load here holds a lock on a file beside the index: exclusive
to save, shared to load, which makes the read-modify-write of the index and the write of its data
one step, and a load never sees an index and a data file from two different saves.
"""
from __future__ import annotations

import functools
import os
from contextlib import contextmanager

try:
    import fcntl
except ImportError:             # not POSIX: numba's own behaviour, unlocked
    fcntl = None


@contextmanager
def _locked(index_path: str, exclusive: bool):
    """Hold an ``flock`` on ``index_path + '.lock'``; where the lock file cannot be opened (a
    read-only cache folder, which nobody writes into), proceed without it."""
    try:
        fd = os.open(index_path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        fd = None
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        if fd is not None:
            os.close(fd)                # closing releases the lock


def _with_lock(method, exclusive: bool):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with _locked(self._index_path, exclusive):
            return method(self, *args, **kwargs)
    wrapper.__textqa_locked__ = True
    return wrapper


def install() -> None:
    """Wrap numba's index-and-data cache file (``IndexDataCacheFile``: ``save`` and ``flush``
    exclusive, ``load`` shared).  Idempotent; a no-op without ``fcntl``."""
    if fcntl is None:
        return
    from numba.core.caching import IndexDataCacheFile  # deferred: loads scipy, numba, numpy
    for name, exclusive in (("save", True), ("flush", True), ("load", False)):
        method = getattr(IndexDataCacheFile, name)
        if not getattr(method, "__textqa_locked__", False):
            setattr(IndexDataCacheFile, name, _with_lock(method, exclusive))
