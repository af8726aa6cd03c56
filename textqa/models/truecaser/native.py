"""The C++ Viterbi decoder (``native/viterbi.cc``) through ctypes.

The same exact search as :meth:`.python_search.PythonSearch.viterbi` (a test decodes real dev text with both and
requires identical output), faster because the trellis loop, KenLM's scoring and the state
recombination run in C++ (``python -m bench.truecaser`` measures both); Python only builds each token's candidate list.  ``make`` builds the
library beside KenLM's ``build_binary`` (``.venv/lib/libtextqa_viterbi.so``).  When the library
is missing, or ``TEXTQA_NATIVE_VITERBI=0``, the truecaser decodes in Python with the same
results.
"""
from __future__ import annotations

import ctypes
import os
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

LIBRARY = "libtextqa_viterbi.so"


def library_path() -> Path | None:
    """``$TEXTQA_VITERBI_LIBRARY``, else the library an install built into the package
    (``native/libtextqa_viterbi.so``: ``pip install``, a wheel), else the one ``make`` built in the
    repository's ``.venv/lib``."""
    env = os.environ.get("TEXTQA_VITERBI_LIBRARY")
    if env:
        return Path(env) if Path(env).is_file() else None
    packaged = Path(__file__).resolve().parent / "native" / LIBRARY
    if packaged.is_file():
        return packaged
    for parent in Path(__file__).resolve().parents:
        cand = parent / ".venv" / "lib" / LIBRARY
        if cand.is_file():
            return cand
    return None


#: The library interface this module speaks (``tc_version`` in ``native/viterbi.cc``).
VERSION = 2


@lru_cache(maxsize=1)
def _opened():
    """(the library, None) or (None, why it cannot be used)."""
    path = library_path()
    if path is None:
        return None, f"{LIBRARY} not found: reinstall textqa where g++ is present, or run make"
    lib = ctypes.CDLL(str(path))
    try:
        version = lib.tc_version
    except AttributeError:
        version = None
    if version is None or version() != VERSION:
        return None, (f"{path} was built from another version of the C++ search (interface "
                      f"{version() if version else 1}, this code speaks {VERSION}): run make")
    lib.tc_load.restype = ctypes.c_void_p
    lib.tc_load.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    lib.tc_free.argtypes = [ctypes.c_void_p]
    lib.tc_index.restype = lib.tc_vocab_size.restype = ctypes.c_uint
    lib.tc_index.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.tc_vocab_size.argtypes = [ctypes.c_void_p]
    i32, u32, f64 = (np.ctypeslib.ndpointer(t, flags="C_CONTIGUOUS") for t in (np.int32, np.uint32, np.float64))
    lib.tc_viterbi.restype = ctypes.c_int
    lib.tc_viterbi.argtypes = [ctypes.c_void_p, ctypes.c_int, i32, i32, u32, f64, ctypes.c_int, i32]
    lib.tc_viterbi_classes.restype = ctypes.c_int
    lib.tc_viterbi_classes.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, i32, i32, u32, u32, f64,
                                       ctypes.c_double, ctypes.c_int, i32]
    lib.tc_index_many.restype = ctypes.c_int
    lib.tc_index_many.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_long, ctypes.c_int, u32]
    return lib, None


def _library():
    """The C++ search's library, or None (:func:`status` says why)."""
    return _opened()[0]


def available() -> bool:
    """Whether the native decoder can be used (library built and not switched off).  When it cannot
    be loaded, the first call says so on stderr (:func:`status` gives the reason)."""
    if os.environ.get("TEXTQA_NATIVE_VITERBI", "1") == "0":
        return False
    if _library() is None:
        _warn_once()
        return False
    return True


def status() -> str:
    """Which search decodes, in a few words: ``native (PATH)``, ``python (switched off: ...)`` or
    ``python (library not found: ...)``."""
    if os.environ.get("TEXTQA_NATIVE_VITERBI", "1") == "0":
        return "python (switched off: TEXTQA_NATIVE_VITERBI=0)"
    if _library() is None:
        return f"python ({_opened()[1]})"
    return f"native ({library_path()})"


@lru_cache(maxsize=1)
def _warn_once() -> None:
    print(f"textqa: the truecaser's C++ search is not available, decoding with the Python search (the same "
          f"output, about a third of the speed): {status()}", file=sys.stderr, flush=True)


class NativeViterbi:
    """One KenLM binary opened by the C++ decoder (memory-mapped: its pages are shared with the
    Python ``kenlm.Model`` of the same file).  Not picklable: reopen from the path."""

    def __init__(self, lm_path: str):
        lib = _library()
        if lib is None:
            raise RuntimeError(f"{LIBRARY} is not built (run make)")
        err = ctypes.create_string_buffer(512)
        handle = lib.tc_load(str(lm_path).encode("utf-8"), err, len(err))
        if not handle:
            raise RuntimeError(f"{lm_path}: the native decoder cannot load the LM ({err.value.decode(errors='replace')})")
        self._lib, self._handle, self.lm_path = lib, handle, str(lm_path)

    def vocab_size(self) -> int:
        """One past the largest id of the LM's vocabulary."""
        return self._lib.tc_vocab_size(self._handle)

    def index(self, word: str) -> int:
        """KenLM's vocabulary id of ``word`` (0: ``<unk>``)."""
        return self._lib.tc_index(self._handle, word.encode("utf-8"))

    def index_many(self, words: list[str]) -> np.ndarray:
        """:meth:`index` of each of ``words`` (none holding a newline), in one call to the library."""
        out = np.zeros(len(words), dtype=np.uint32)
        if not words:
            return out
        text = "\n".join(words).encode("utf-8") + b"\n"
        if self._lib.tc_index_many(self._handle, text, len(text), len(words), out) != len(words):
            raise ValueError("a word holds a newline")
        return out

    @staticmethod
    def _arrays(sent_off, cand_off, ids, em):
        """The search's common inputs as the C arrays it reads, and the output array of choices."""
        cand_off = np.ascontiguousarray(cand_off, dtype=np.int32)
        return (np.ascontiguousarray(sent_off, dtype=np.int32), cand_off, np.ascontiguousarray(ids, dtype=np.uint32),
                np.ascontiguousarray(em, dtype=np.float64), np.zeros(max(len(cand_off) - 1, 0), dtype=np.int32))

    def decode(self, sent_off, cand_off, ids, em, begin: bool) -> np.ndarray:
        """Each token's chosen candidate: sentences are ``sent_off`` ranges of tokens, tokens
        ``cand_off`` ranges of candidates with KenLM ids ``ids`` and emission scores ``em``."""
        sent_off, cand_off, ids, em, choice = self._arrays(sent_off, cand_off, ids, em)
        self._lib.tc_viterbi(self._handle, len(sent_off) - 1, sent_off, cand_off, ids, em, int(bool(begin)), choice)
        return choice

    def decode_classes(self, classes: "NativeViterbi", sent_off, cand_off, ids, cids, em, mu: float,
                       begin: bool) -> np.ndarray:
        """:meth:`decode` with the class LM ``classes`` beside this LM: each candidate also has the
        class LM's id (``cids``), scored with weight ``mu`` (:mod:`.classes`)."""
        sent_off, cand_off, ids, em, choice = self._arrays(sent_off, cand_off, ids, em)
        self._lib.tc_viterbi_classes(self._handle, classes._handle, len(sent_off) - 1, sent_off, cand_off, ids,
                                     np.ascontiguousarray(cids, dtype=np.uint32), em, float(mu), int(bool(begin)),
                                     choice)
        return choice

    def close(self) -> None:
        if self._handle:
            self._lib.tc_free(self._handle)
            self._handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:       # interpreter shutdown
            pass

    def __reduce__(self):
        return (NativeViterbi, (self.lm_path,))
