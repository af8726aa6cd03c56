"""Reading and tokenizing training text (shared by the training scripts)."""
from __future__ import annotations

import gzip
import hashlib
import html
import lzma
import os
import re
import signal
import unicodedata
import zipfile
import zlib
from multiprocessing import get_context
from pathlib import Path

from tqdm import tqdm

from textqa.errors import InputError
from textqa.runtime.files import replaced_whole

TOKENIZER_VERSION = "ptb-2"          # bump when tokenization or the cache's format changes: invalidates caches
CORPUS_VERSION = "reuters-lewis-train"   # bump when the text taken from a file changes (2: no Reuters test docs)


def open_text(path: str | os.PathLike, encoding: str = "utf-8"):
    """Open a plain, .gz or .xz text file for reading, replacing undecodable bytes; a truncated or
    corrupt compressed file is an ``InputError`` naming it (the CLI's one-line error)."""
    path = Path(path)
    if path.suffix == ".gz":
        return _Decompressed(gzip.open(path, "rt", encoding=encoding, errors="replace"), path)
    if path.suffix == ".xz":
        return _Decompressed(lzma.open(path, "rt", encoding=encoding, errors="replace"), path)
    return open(path, encoding=encoding, errors="replace")


class _Decompressed:
    """A compressed text file read line by line or whole (``open_text``'s callers do both), whose
    decompression errors name the file."""

    ERRORS = (EOFError, gzip.BadGzipFile, lzma.LZMAError, zlib.error)

    def __init__(self, f, path: Path):
        self.f, self.path = f, path

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()

    def _corrupt(self, e: Exception):
        return InputError(f"{self.path}: truncated or corrupt compressed file ({e})")

    def __iter__(self):
        try:
            yield from self.f
        except self.ERRORS as e:
            raise self._corrupt(e) from e

    def read(self, size: int = -1) -> str:
        try:
            return self.f.read(size)
        except self.ERRORS as e:
            raise self._corrupt(e) from e


def read_lines(path: str | os.PathLike) -> list[str]:
    with open_text(path) as f:
        return [line.rstrip("\n") for line in f]


_REUTERS_DOC = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_LEWISSPLIT = re.compile(r'LEWISSPLIT="([A-Z-]+)"')
_REUTERS_BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)
REUTERS_SPLITS = ("train", "test", "all")
_REUTERS_PARAGRAPH = re.compile(r"\n(?:    |\t)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def reuters_paragraphs(path: str | os.PathLike, min_tokens: int = 5, split: str = "train"):
    """Body paragraphs of a Reuters-21578 SGML file (``reut2-NNN.sgm[.gz]``, Latin-1).

    ``split``: "train" (every document but Lewis's test split, ``LEWISSPLIT="TEST"``, the
    ModApte test documents: training never sees them, so they are the truecaser's news test),
    "test" (only those) or "all".  Headlines are all capitals and some bodies too (NOTES.md):
    paragraphs in which fewer than half of the words have a lowercase letter are skipped, as are
    the sign-off ``Reuter`` and tables.  Wrapped lines are joined.
    """
    if split not in REUTERS_SPLITS:
        raise ValueError(f"split must be one of {REUTERS_SPLITS}, not {split!r}")
    with open_text(path, encoding="latin-1") as f:
        text = f.read()
    bodies = []
    for attrs, doc in _REUTERS_DOC.findall(text):
        m = _LEWISSPLIT.search(attrs)
        is_test = bool(m) and m.group(1) == "TEST"
        if split == "all" or is_test == (split == "test"):
            bodies += _REUTERS_BODY.findall(doc)
    for body in bodies:
        body = _CONTROL.sub("", html.unescape(body))
        body = re.sub(r"\s*Reuter\s*$", "", body)
        for para in _REUTERS_PARAGRAPH.split(body):
            words = para.split()
            if len(words) < min_tokens:
                continue
            if sum(any(c.islower() for c in w) for w in words) < 0.5 * len(words):
                continue
            yield " ".join(words)


def paragraphs(path: str | os.PathLike, min_tokens: int = 5, reuters_split: str = "train"):
    """Text lines of a WikiExtractor dump or a plain text file (Reuters SGML by file name, the
    documents of ``reuters_split``: by default not the test split, see :func:`reuters_paragraphs`).

    Drops markup lines (starting with ``<``), empty lines and lines of fewer than
    ``min_tokens`` words: article titles and section headings, whose casing is
    not that of running text.
    """
    if ".sgm" in Path(path).name:
        yield from reuters_paragraphs(path, min_tokens, reuters_split)
        return
    with open_text(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("<") or len(line.split()) < min_tokens:
                continue
            yield line


def file_fingerprint(paths) -> str:
    """sha256 over the bytes of the given files (the training-data fingerprint)."""
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


_tokenizer = None


def _init_worker(punkt_dir):
    global _tokenizer
    from textqa.models.truecaser.tokenize import PTBTokenizer  # deferred: loads sklearn, scipy, nltk
    _tokenizer = PTBTokenizer(punkt_dir)


def _init_pool_worker(punkt_dir):
    """:func:`_init_worker` in a forked pool process, which first takes back SIGTERM's default: the
    pool's teardown terminates its idle workers with it, and the CLI's handler inherited by the fork
    (``textqa.cli``: SIGTERM unwinds training as an interrupt) printed a traceback from each."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _init_worker(punkt_dir)


def tokenize_paragraph(tokenizer, line: str) -> list[str]:
    """The sentences (strings of space-separated PTB tokens) of one paragraph."""
    return [" ".join(toks) for toks in tokenizer.tokenize(line) if toks]


def _tokenize_chunk(lines):
    return [p for p in (tokenize_paragraph(_tokenizer, line) for line in lines) if p]


def tokenize_lines(lines: list[str], punkt_dir, n_jobs: int = 2, chunk: int = 2000, desc="tokenizing"):
    """PTB-tokenize paragraphs into sentences (strings of space-separated tokens), in parallel."""
    return [s for para in tokenize_groups([lines], punkt_dir, n_jobs=n_jobs, chunk=chunk, desc=desc)[0] for s in para]


def tokenize_groups(groups: list[list[str]], punkt_dir, n_jobs: int = 2, chunk: int = 2000, desc="tokenizing"):
    """Each group of paragraphs (one group a file) PTB-tokenized, in one pool: for each group, its
    paragraphs in order, each the list of its sentences (paragraphs without a token are left out)."""
    from textqa.models.truecaser.tokenize import PTBTokenizer  # deferred: loads sklearn, scipy, nltk
    PTBTokenizer(punkt_dir)          # fail here, loudly, rather than in pool workers that respawn forever
    chunks = [(g, lines[i:i + chunk]) for g, lines in enumerate(groups) for i in range(0, len(lines), chunk)]
    out: list[list[str]] = [[] for _ in groups]
    with tqdm(total=sum(map(len, groups)), desc=desc, unit="line", mininterval=2) as bar:
        if n_jobs <= 1:
            _init_worker(punkt_dir)
            for g, c in chunks:
                out[g].extend(_tokenize_chunk(c))
                bar.update(len(c))
        else:
            with get_context("fork").Pool(n_jobs, initializer=_init_pool_worker, initargs=(str(punkt_dir),)) as pool:
                for (g, c), res in zip(chunks, pool.imap(_tokenize_chunk, [c for _, c in chunks])):
                    out[g].extend(res)
                    bar.update(len(c))
    return out


def tokenized_cache_path(path, cache: Path, reuters_split: str = "train") -> Path:
    """Where :func:`tokenized_paragraphs` caches the paragraphs of the file ``path`` (named by its
    content's fingerprint, the tokenizer's and corpus reader's versions and the Reuters split): each
    file is cached on its own, so that adding a file to the training text tokenizes that file only.
    One paragraph a line, its sentences separated by tabs (a token never holds whitespace)."""
    key = hashlib.sha256((file_fingerprint([Path(path)]) + TOKENIZER_VERSION + CORPUS_VERSION
                          + reuters_split).encode()).hexdigest()[:16]
    return Path(cache) / f"tokenized-{key}.txt.gz"


def _read_cached(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in read_lines(path)]


def cached_paragraphs(paths, cache: Path, reuters_split: str = "train") -> list[list[str]] | None:
    """The cached paragraphs of ``paths`` in order (each a list of sentences), or None when one of
    them has not been tokenized yet."""
    files = [tokenized_cache_path(p, cache, reuters_split) for p in paths]
    if not all(f.exists() for f in files):
        return None
    return [para for f in files for para in _read_cached(f)]


def cached_sentences(paths, cache: Path, reuters_split: str = "train") -> list[str] | None:
    """The cached sentences of ``paths`` in order, or None when one of them has not been tokenized yet."""
    paras = cached_paragraphs(paths, cache, reuters_split)
    return None if paras is None else [s for para in paras for s in para]


def tokenized_paragraphs(paths, punkt_dir, cache: Path | None, n_jobs: int = 2, pretokenized: bool = False,
                         reuters_split: str = "train") -> list[list[str]]:
    """The paragraphs of the given files, in order, each the list of its sentences (space-separated
    PTB tokens); each file's are cached by its content fingerprint (Reuters SGML files: the
    documents of ``reuters_split``).  ``pretokenized``: one sentence a line, each its own paragraph."""
    paths = [Path(p) for p in paths]
    if pretokenized:
        return [[line.strip()] for p in paths for line in read_lines(p) if line.strip()]
    cached = [tokenized_cache_path(p, cache, reuters_split) if cache else None for p in paths]
    todo = [i for i, c in enumerate(cached) if c is None or not c.exists()]
    done = dict(zip(todo, tokenize_groups([list(paragraphs(paths[i], reuters_split=reuters_split)) for i in todo],
                                          punkt_dir, n_jobs=n_jobs))) if todo else {}
    for i, paras in done.items():
        if cached[i]:
            cached[i].parent.mkdir(parents=True, exist_ok=True)
            with replaced_whole(cached[i]) as tmp, gzip.open(tmp, "wt", encoding="utf-8", compresslevel=1) as f:
                f.write("".join("\t".join(p) + "\n" for p in paras))
    return [p for i, c in enumerate(cached) for p in (done[i] if i in done else _read_cached(c))]


def tokenized_corpus(paths, punkt_dir, cache: Path | None, n_jobs: int = 2, pretokenized: bool = False,
                     reuters_split: str = "train") -> list[str]:
    """The sentences of :func:`tokenized_paragraphs`, in order."""
    return [s for para in tokenized_paragraphs(paths, punkt_dir, cache, n_jobs, pretokenized, reuters_split)
            for s in para]


_PTB_BRACKET = re.compile(r"-[LR][RSC]B-")


_DROP_NON_ALNUM = {c: None for c in range(128) if not chr(c).isalnum()}


def normalize_for_overlap(sentence: str) -> str:
    """NFKD, ASCII only, lowercase, letters and digits only (data/truecase/SOURCES.md)."""
    s = _PTB_BRACKET.sub("", sentence)
    if not s.isascii():                 # NFKD only where it changes something (most text is ASCII)
        s = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()
    return s.lower().translate(_DROP_NON_ALNUM)


def drop_overlap(train: list[str], heldout: list[str], min_chars: int = 30):
    """Remove training sentences that equal (after normalisation) a held-out sentence."""
    keys = {k for k in map(normalize_for_overlap, heldout) if len(k) >= min_chars}
    kept = [s for s in train if normalize_for_overlap(s) not in keys]
    return kept, len(train) - len(kept)


class HeldoutOverlap:
    """Whether a training text repeats held-out text, by the two checks that kept the benchmark's test
    sentences out of the bundled Wikipedia text (``data/truecase/SOURCES.md``, "Overlap check"):
    after :func:`normalize_for_overlap` (so across spaces, punctuation and sentence ends), the text
    contains a whole held-out sentence of at least ``min_chars`` characters, or shares any
    ``window``-character stretch with one (edited versions of the same Wikipedia sentence, and
    templated sentences).  Applied to training paragraphs with the dev set as held-out text, it
    keeps dev as far from the training text as the test set is.

    Checking every window of 77 M tokens' text against the held-out windows would be slow; a shared
    stretch of ``window`` characters always contains one of the text's blocks of ``window // 2``
    characters that start at a multiple of ``window // 2`` (and a whole sentence of ``min_chars``
    one of its blocks of ``min_chars // 2``), so those blocks are looked up, and only the windows
    (sentences) that could hold a block found are checked."""

    def __init__(self, heldout: list[str], min_chars: int = 30, window: int = 50):
        keys = {k for k in map(normalize_for_overlap, heldout) if len(k) >= min_chars}
        self.window, self.block, self.short_block = window, window // 2, min_chars // 2
        self.windows = {k[j:j + window] for k in keys for j in range(len(k) - window + 1)}
        self.blocks = {k[j:j + self.block] for k in keys if len(k) >= window for j in range(len(k) - self.block + 1)}
        self.short = {k for k in keys if len(k) < window}       # longer ones are caught by their windows
        self.short_lengths = sorted({len(k) for k in self.short})
        self.short_blocks = {k[j:j + self.short_block] for k in self.short
                             for j in range(len(k) - self.short_block + 1)}

    def __bool__(self) -> bool:
        return bool(self.windows or self.short)

    @staticmethod
    def _hits(text: str, block: int, blocks: set) -> list[int]:
        """Where the text's aligned blocks that are in ``blocks`` start."""
        return [j for j in range(0, len(text) - block + 1, block) if text[j:j + block] in blocks]

    def touches(self, text: str) -> bool:
        """Does ``text`` (a paragraph: its sentences, joined or not) repeat held-out text?"""
        t = normalize_for_overlap(text)
        n, w, b = len(t), self.window, self.block
        # a shared window holding the aligned block at j starts between j - (w - b) and j
        for j in self._hits(t, b, self.blocks) if n >= w else ():
            if any(t[i:i + w] in self.windows for i in range(max(0, j - (w - b)), min(j, n - w) + 1)):
                return True
        if not self.short or n < self.short_lengths[0]:
            return False
        b = self.short_block                    # a whole short sentence holding it starts in [j - b + 1, j]
        return any(t[i:i + k] in self.short for j in self._hits(t, b, self.short_blocks)
                   for i in range(max(0, j - b + 1), j + 1) for k in self.short_lengths if i + k <= n)


    def drop(self, paras: list[list[str]]) -> tuple[list[str], int]:
        """(the sentences of the paragraphs (each a list of sentences) that do not repeat held-out
        text, in order; how many sentences the dropped paragraphs held)."""
        kept, dropped = [], 0
        for para in paras:
            if self and self.touches(" ".join(para)):
                dropped += len(para)
            else:
                kept.extend(para)
        return kept, dropped


def drop_heldout_paragraphs(paras: list[list[str]], heldout: list[str]) -> tuple[list[str], int]:
    """:meth:`HeldoutOverlap.drop` of the paragraphs, with ``heldout``'s sentences as held-out text."""
    return HeldoutOverlap(heldout).drop(paras)


_CONLL_PTB = {"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-", "[": "-LSB-", "]": "-RSB-"}


def conll_sentences(zip_path, member: str) -> list[str]:
    """Sentences (space-separated tokens) of a CoNLL column file inside a zip (first column = word).

    Brackets are mapped to PTB's ``-LRB-`` etc., the convention of the truecasing data.
    """
    with zipfile.ZipFile(zip_path) as z:
        text = z.read(member).decode("latin-1")
    out, cur = [], []
    for line in text.splitlines():
        if not line.strip():
            if cur:
                out.append(" ".join(cur))
                cur = []
            continue
        word = line.split()[0]
        cur.append(_CONLL_PTB.get(word, word))
    if cur:
        out.append(" ".join(cur))
    return out
