"""Word error rate of ASR output as NIST's sclite scores it (``sclite -r REF stm -h HYP ctm``),
for the MATERIAL ASR regression test (IARPA MATERIAL evaluation plan, section 8.2).

* **CTM** (plan section 8.2.1): ``<F> <C> <BT> <DUR> word [<CONF>]``, one word per line, ";;"
  comment lines allowed.  **STM**: ``<F> <C> <speaker> <BT> <ET> [<label>] transcript``; a
  segment whose transcript is ``IGNORE_TIME_SEGMENT_IN_SCORING`` is not scored, and neither are
  the hypothesis words that fall in it.  A reference may also be one utterance per line,
  ``transcript (<F>)`` (sclite's trn format): each file is then one segment spanning all its words.
* **Hypothesis words to segments** (what sclite does, established against it): per file and
  channel, words are taken in file order and a word goes to the current segment while its midpoint
  ``BT + DUR/2`` is before the segment's end; otherwise the walk moves on to the next segment (the
  last one keeps what is left).  Words between two segments therefore count against the later
  one, and words after the last segment against the last.
* **Alignment**: minimum-cost word alignment with sclite's costs (substitution 4, insertion 3,
  deletion 3), case-insensitive (ASCII), as sclite's default; among equal-cost alignments the one
  sclite reports (see ``alignment``).  Words in parentheses are compared as written, as sclite does
  without ``-D``.
* **";"** starts a comment inside a word for sclite, in both files: "patients;" is "patients",
  ";x" is an empty word, which still counts (it matches only another empty word) (``clean``).  Alternations (``{ a / b }``) are not supported and are
  reported as an error rather than scored differently from sclite.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from textqa.errors import InputError
from textqa.runtime import numba_cache
from textqa.runtime.files import decode, read_bytes

IGNORE = "ignore_time_segment_in_scoring"
SUB, INS, DEL = 4, 3, 3
numba_cache.install()          # processes that compile into the same cache at once: locked
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def clean(word: str) -> str:
    """A word as sclite reads it: everything from the first ";" on is dropped (";x" is an empty
    word, not no word: sclite still aligns and counts it)."""
    return word.split(";", 1)[0]


def fold(word: str) -> str:
    """sclite's default case-insensitive comparison (ASCII letters only)."""
    return word.translate(_LOWER)


@dataclass
class Segment:
    file: str
    channel: str
    speaker: str
    begin: float
    end: float
    words: list
    line: int = 0
    hyp: list = field(default_factory=list)

    @property
    def ignored(self) -> bool:
        return len(self.words) == 1 and fold(self.words[0]) == IGNORE


@dataclass(slots=True)
class HypWord:
    file: str
    channel: str
    begin: float
    duration: float
    word: str
    confidence: float | None = None


def _lines(path: Path):
    text = decode(read_bytes(path), path)
    for no, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if s and not s.startswith(";;"):
            yield no, s


def _number(value: str, what: str, where: str) -> float:
    try:
        x = float(value)
    except ValueError:
        raise InputError(f"{where}: {what} {value!r} is not a number") from None
    if x != x or x in (float("inf"), float("-inf")):
        raise InputError(f"{where}: {what} {value!r} is not a finite number")
    return x


def read_ctm(path: Path) -> list[HypWord]:
    """A CTM file (plan section 8.2.1); errors name the file and line."""
    out = []
    finite = math.isfinite
    for no, line in _lines(path):
        f = line.split()
        if len(f) not in (5, 6) or "/" in f[0]:
            _refuse_ctm(f, f"{path}:{no}")
        try:                        # the common case at speed; a bad number is named by _refuse_ctm
            begin, dur = float(f[2]), float(f[3])
            conf = float(f[5]) if len(f) == 6 else None
            ok = finite(begin) and finite(dur) and dur >= 0 and (conf is None or finite(conf))
        except ValueError:
            ok = False
        if not ok:
            _refuse_ctm(f, f"{path}:{no}")
        out.append(HypWord(f[0], f[1], begin, dur, clean(f[4]), conf))
    return out


def _refuse_ctm(f: list[str], where: str) -> None:
    """The error of a CTM record that :func:`read_ctm` cannot read."""
    if len(f) not in (5, 6):
        raise InputError(f"{where}: a CTM record is '<F> <C> <BT> <DUR> word [<CONF>]' "
                         f"(5 or 6 fields), found {len(f)}")
    if "/" in f[0]:
        raise InputError(f"{where}: the waveform id {f[0]!r} must be a base name, without a path")
    _number(f[2], "begin time", where)
    if _number(f[3], "duration", where) < 0:
        raise InputError(f"{where}: negative duration {f[3]}")
    if len(f) == 6:
        _number(f[5], "confidence", where)
    raise AssertionError(f"{where}: a CTM record refused for no reason")       # unreachable


def _check_words(words: list[str], where: str) -> None:
    if any(w.startswith("{") for w in words):
        raise InputError(f"{where}: alternations ('{{ a / b }}') are not supported")


def read_stm(path: Path, lines=None) -> list[Segment]:
    """An STM file: ``<F> <C> <speaker> <BT> <ET> [<label>] transcript`` (``lines``: its
    ``_lines``, when already read)."""
    out = []
    for no, line in lines if lines is not None else _lines(path):
        f = line.split()
        where = f"{path}:{no}"
        if len(f) < 5:
            raise InputError(f"{where}: an STM segment is '<F> <C> <speaker> <BT> <ET> [<label>] "
                                 f"transcript' (at least 5 fields), found {len(f)}")
        begin = _number(f[3], "begin time", where)
        end = _number(f[4], "end time", where)
        if end < begin:
            raise InputError(f"{where}: the segment ends ({f[4]}) before it begins ({f[3]})")
        words = f[5:]
        if words and words[0].startswith("<") and words[0].endswith(">"):
            words = words[1:]
        _check_words(words, where)
        out.append(Segment(f[0], f[1], f[2], begin, end, [clean(w) for w in words], no))
    return out


def read_trn(path: Path, lines=None) -> list[Segment]:
    """One utterance per line, ``transcript (<F>)``: each file is one segment covering all its words."""
    out = []
    for no, line in lines if lines is not None else _lines(path):
        where = f"{path}:{no}"
        if not line.endswith(")") or "(" not in line:
            raise InputError(f"{where}: a transcript line ends with its file id in parentheses: 'words (<F>)'")
        text, _, uid = line[:-1].rpartition("(")
        uid = uid.strip()
        if not uid or " " in uid:
            raise InputError(f"{where}: bad file id {uid!r}")
        words = text.split()
        _check_words(words, where)
        out.append(Segment(uid, "*", uid, float("-inf"), float("inf"), [clean(w) for w in words], no))
    return out


def read_reference(path: Path) -> list[Segment]:
    """STM unless every line looks like ``transcript (<F>)``."""
    lines = list(_lines(path))
    if lines and all(s.endswith(")") and "(" in s for _, s in lines) and not any(
            len(s.split()) >= 5 and _is_float(s.split()[3]) and _is_float(s.split()[4]) for _, s in lines):
        return read_trn(path, lines)
    return read_stm(path, lines)


def _is_float(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


#: the operations of an alignment, as :func:`alignment` gives them
CORRECT, SUBSTITUTION, DELETION, INSERTION = 0, 1, 2, 3
COSTS = ("sclite", "levenshtein")
_OPCODE = {"equal": CORRECT, "replace": SUBSTITUTION, "delete": DELETION, "insert": INSERTION}


def alignment(ref: list[str], hyp: list[str], costs: str = "sclite", case_sensitive: bool = False) -> np.ndarray:
    """The operations of the minimum-cost alignment of ``hyp`` to ``ref``, first to last:
    ``CORRECT``, ``SUBSTITUTION``, ``DELETION`` (a reference word and its hypothesis word, or none) or
    ``INSERTION`` (a hypothesis word); their counts are the WER's parts.

    * ``costs="sclite"``: sclite's costs (substitution 4, insertion and deletion 3).  Among
      alignments of equal cost the trace-back from the end prefers a match or substitution, then an
      insertion, then a deletion: of the six orders, the one that gives sclite's counts on every
      segment of the WER data (``tests/evaluation/test_wer.py`` checks them against sclite's).
    * ``costs="levenshtein"``: every edit costs 1, the alignment of RapidFuzz's Levenshtein
      ``opcodes`` (what jiwer reports).

    Words are compared case-folded (:func:`fold`, ASCII letters, sclite's default) unless
    ``case_sensitive``: as integer ids in the compiled sclite alignment, as the words themselves in
    RapidFuzz's (which hashes them in C)."""
    if not case_sensitive:
        ref, hyp = _folded(ref), _folded(hyp)
    if costs == "sclite":
        ids: dict = {}
        r = [ids.setdefault(w, len(ids)) for w in ref]
        h = [ids.setdefault(w, len(ids)) for w in hyp]
        return _align_ops(np.array(r, dtype=np.int64), np.array(h, dtype=np.int64))
    if costs != "levenshtein":
        raise ValueError(f"costs must be one of {', '.join(COSTS)}, not {costs!r}")
    from rapidfuzz.distance import Levenshtein  # deferred: loads rapidfuzz
    blocks = Levenshtein.opcodes(ref, hyp)
    return np.repeat(np.array([_OPCODE[b.tag] for b in blocks], dtype=np.int8),
                     [b.dest_end - b.dest_start if b.tag == "insert" else b.src_end - b.src_start for b in blocks])


def rate(errors: int, reference_words: int) -> float:
    """WER = (S + D + I) / N: ``inf`` with errors and no reference word, 0 with neither."""
    if reference_words:
        return errors / reference_words
    return float("inf") if errors else 0.0


def rates(errors, reference_words) -> np.ndarray:
    """:func:`rate` of each pair of counts (arrays)."""
    e, n = np.asarray(errors, dtype=float), np.asarray(reference_words, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, e / np.where(n > 0, n, 1), np.where(e > 0, np.inf, 0.0))


def _folded(words: list[str]) -> list[str]:
    """``[fold(w) for w in words]``, folded as one string (words hold no line break: they are split
    on white space)."""
    if any("\n" in w for w in words):
        return [fold(w) for w in words]
    return "\n".join(words).translate(_LOWER).split("\n") if words else []


@njit(cache=True)
def _align_ops(r, h):
    """:func:`alignment` over word ids with sclite's costs: the dynamic programme and its trace-back, compiled."""
    n, m = len(r), len(h)
    cost = np.empty((n + 1, m + 1), dtype=np.int64)
    for j in range(m + 1):
        cost[0, j] = j * INS
    for i in range(1, n + 1):
        cost[i, 0] = i * DEL
        ri = r[i - 1]
        for j in range(1, m + 1):
            diag = cost[i - 1, j - 1] + (0 if ri == h[j - 1] else SUB)
            up = cost[i - 1, j] + DEL
            left = cost[i, j - 1] + INS
            cost[i, j] = min(diag, up, left)
    ops = np.empty(n + m, dtype=np.int8)
    k = 0
    i, j = n, m
    while i > 0 or j > 0:
        here = cost[i, j]
        if i > 0 and j > 0 and here == cost[i - 1, j - 1] + (0 if r[i - 1] == h[j - 1] else SUB):
            ops[k] = 0 if r[i - 1] == h[j - 1] else 1
            i, j = i - 1, j - 1
        elif j > 0 and here == cost[i, j - 1] + INS:
            ops[k] = 3
            j -= 1
        else:
            ops[k] = 2
            i -= 1
        k += 1
    return ops[:k][::-1].copy()


def assign(segments: list[Segment], words: list[HypWord]) -> None:
    """Distribute each file/channel's hypothesis words over its segments (module docstring)."""
    by_key: dict = {}
    for seg in segments:
        by_key.setdefault((fold(seg.file), fold(seg.channel)), []).append(seg)
    trn = segments and all(s.channel == "*" for s in segments)
    walk: dict = {}
    keys: dict = {}                 # (file, channel) as written -> as compared
    for w in words:
        key = keys.get((w.file, w.channel))
        if key is None:
            key = keys[(w.file, w.channel)] = (fold(w.file), "*" if trn else fold(w.channel))
        segs = by_key.get(key)
        if segs is None:
            raise InputError(f"hypothesis words for file {w.file!r} channel {w.channel!r} have no "
                                 f"reference segment (sclite stops on this: 'Hyp file has more data than ref file')")
        k = walk.get(key, 0)
        mid = w.begin + w.duration / 2
        while k < len(segs) - 1 and mid >= segs[k].end:
            k += 1
        walk[key] = k
        segs[k].hyp.append(w.word)


def scored_segments(segments: list[Segment], words: list[HypWord]):
    """The segments sclite scores (not ``IGNORE_TIME_SEGMENT_IN_SCORING``), each with its hypothesis
    words (``hyp``) assigned as sclite assigns them (:func:`assign`), in reference order."""
    for seg in segments:
        seg.hyp = []
    assign(segments, words)
    return [seg for seg in segments if not seg.ignored]
