"""WordNet 3.0 through NLTK's reader, from the copy bundled in ``data/`` (no download, ever).

The database is Debian's ``wordnet-base`` 3.0 (Princeton's WordNet 3.0, rebuilt by Debian from
the lexicographer files), packed as ``data/nltk_data/packages/wordnet-3.0.tar.xz`` (see
``data/nltk_data/SOURCES.md``).  On first use it is unpacked into the cache
(``$TEXTQA_CACHE/nltk_data/corpora/wordnet``): every member is checked to stay inside that folder
(tarfile's ``data`` filter), the files land in a temporary folder first and are renamed into
place, so an interrupted unpack leaves nothing half-written.

Debian leaves out ``index.sense``, which NLTK reads only to map other WordNet versions (and Open
Multilingual WordNet) onto 3.0; the reader here maps nothing (``map_wn`` returns None), which is
what NLTK does for the version it has loaded anyway.
"""
from __future__ import annotations

import hashlib
import io
import os
import shutil
import tarfile
import tempfile
import threading
import warnings
from functools import lru_cache
from pathlib import Path

from textqa.runtime.files import replaced_whole
from textqa.runtime.gc_pause import gc_paused, promote_to_oldest_generation
from textqa.runtime.paths import DATA_DIR, cache_dir

WORDNET_ARCHIVE = DATA_DIR / "nltk_data" / "packages" / "wordnet-3.0.tar.xz"
_FILES = ("data.noun", "data.verb", "data.adj", "data.adv", "index.noun", "index.verb", "index.adj", "index.adv",
          "lexnames", "noun.exc", "verb.exc", "adj.exc", "adv.exc")
_LOCK = threading.Lock()


class WordNetUnavailable(RuntimeError):
    """The bundled WordNet archive is missing or unreadable."""


def nltk_root() -> Path:
    """The cache's NLTK data folder (``corpora/wordnet`` is unpacked under it)."""
    return cache_dir() / "nltk_data"


def _complete(dest: Path) -> bool:
    return all((dest / f).is_file() for f in _FILES)


def unpack_wordnet(archive: Path = WORDNET_ARCHIVE, root: Path | None = None) -> Path:
    """``root/corpora/wordnet`` with the database files, unpacked from ``archive`` unless there."""
    root = Path(root) if root is not None else nltk_root()
    dest = root / "corpora" / "wordnet"
    if _complete(dest):
        return dest
    if not archive.is_file():
        raise WordNetUnavailable(f"{archive}: WordNet archive not found (it is part of the repository's data/)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=dest.parent))
    try:
        try:
            with tarfile.open(archive, "r:*") as tar:
                members = [m for m in tar.getmembers() if m.name.split("/", 1)[0] == "wordnet"]
                tar.extractall(tmp, members=members, filter="data")     # refuses absolute paths, '..', links out
        except (tarfile.TarError, OSError, EOFError) as e:
            raise WordNetUnavailable(f"{archive}: cannot unpack WordNet ({e})") from e
        missing = [f for f in _FILES if not (tmp / "wordnet" / f).is_file()]
        if missing:
            raise WordNetUnavailable(f"{archive}: not a WordNet database (no {', '.join(missing)})")
        if dest.exists() and not _complete(dest):   # an incomplete earlier unpack
            shutil.rmtree(dest, ignore_errors=True)
        try:
            os.replace(tmp / "wordnet", dest)
        except OSError as e:                  # another process sharing the cache unpacked it first
            if not _complete(dest):
                raise WordNetUnavailable(f"{dest}: cannot unpack WordNet here ({e})") from e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


LEMMA_MAP = "textqa-lemma-map.json"      # beside the database files: NLTK's lemma index, parsed once
_LEMMA_MAP_VERSION = 1


def _index_stamp(folder: Path) -> list:
    """What the parsed lemma index depends on: each ``index.*`` file's name, size and modification time."""
    stats = {f: (folder / f).stat() for f in ("index.noun", "index.verb", "index.adj", "index.adv")}
    return [[f, st.st_size, st.st_mtime_ns] for f, st in stats.items()]


def _read_lemma_map(folder: Path) -> dict | None:
    """The lemma index parsed by an earlier process ({lemma: {pos: [offset, ...]}}), or None when there is
    none, it is damaged (its checksum), or the index files changed since (their sizes and times)."""

    import orjson  # deferred: loads orjson
    try:
        head, _, body = (folder / LEMMA_MAP).read_bytes().partition(b"\n")
        meta = orjson.loads(head)
        if meta != {"version": _LEMMA_MAP_VERSION, "stamp": _index_stamp(folder),
                    "sha256": hashlib.sha256(body).hexdigest()}:
            return None
        lemmas = orjson.loads(body)
    except (OSError, ValueError):
        return None
    return lemmas if type(lemmas) is dict else None


def _write_lemma_map(folder: Path, lemmas: dict) -> None:
    """Store the parsed lemma index for the next process: a line of JSON saying what it was parsed from
    and its checksum, then the index as JSON; written whole, then renamed into place.  A cache that
    cannot be written is not an error."""

    import orjson  # deferred: loads orjson

    body = orjson.dumps(lemmas)
    head = orjson.dumps({"version": _LEMMA_MAP_VERSION, "stamp": _index_stamp(folder),
                         "sha256": hashlib.sha256(body).hexdigest()})
    try:
        with replaced_whole(folder / LEMMA_MAP) as tmp:
            tmp.write_bytes(head + b"\n" + body)
    except OSError:
        pass


@lru_cache(maxsize=1)
def _reader_class():
    from nltk.corpus.reader.wordnet import WordNetCorpusReader  # deferred: loads sklearn, scipy, nltk

    class _Reader(WordNetCorpusReader):
        _data_lock = threading.RLock()      # (NLTK may read another synset while reading one)

        def map_wn(self, version="wordnet"):          # no index.sense: nothing to map (see module doc)
            return None

        def synset_from_pos_and_offset(self, pos, offset):
            """NLTK's, one thread at a time: it seeks the part of speech's data file, which the
            reader shares, and reads a line there, so two threads of a server interleaved read each
            other's lines.  A synset read before comes from NLTK's cache without the lock."""
            cached = self._synset_offset_cache[pos].get(offset)
            if cached is not None:
                return cached
            with self._data_lock:
                return super().synset_from_pos_and_offset(pos, offset)

        def open(self, file):
            """The files NLTK reads once from start to end while loading (``index.*``, ``*.exc``,
            ``lexnames``) as plain text files, not through NLTK's own seekable decoder, which reads
            a line at a time in Python: the reader starts faster, with the same maps ("Figures behind the
            code" in docs/experiments/qa.md).  The data files, which NLTK seeks into by byte
            offset, still open NLTK's way."""
            if file.startswith("index.") and file != "index.sense" or file.endswith(".exc") or file == "lexnames":
                return io.open(self._root.join(file).path, encoding=self._ENCODING)
            return super().open(file)

        def _scan_satellites(self):
            """Done by ``_load_lemma_pos_offset_map``, and only when it parses the index files (the
            satellites' offsets are needed for that alone)."""

        def _load_lemma_pos_offset_map(self):
            """NLTK's parse of the four ``index.*`` files (147,306 lemmas), and before it its scan of
            ``data.adj`` for the adjective satellites, took seconds of every process that used
            WordNet; the first process stores the resulting map (``LEMMA_MAP``) and the next ones
            read it back in a fraction of that time, the same map ("Figures behind the code" in
            docs/experiments/qa.md)."""
            folder = Path(self._root.path)
            with gc_paused():               # collections would walk the growing map again and again
                lemmas = _read_lemma_map(folder)
                if lemmas is None:
                    super()._scan_satellites()
                    super()._load_lemma_pos_offset_map()
                    _write_lemma_map(folder, self._lemma_pos_offset_map)
                else:
                    self._lemma_pos_offset_map.update(lemmas)
                promote_to_oldest_generation()
    return _Reader


def reader(folder):
    """A WordNet reader over the database in ``folder`` (``.../corpora/wordnet``: a path, or NLTK's
    path pointer, which is a ``str``)."""
    with warnings.catch_warnings():                # "multilingual functions are not available": known
        warnings.simplefilter("ignore", UserWarning)
        return _reader_class()(str(folder), None)


@lru_cache(maxsize=1)
def wordnet():
    """NLTK's ``WordNetCorpusReader`` over the bundled WordNet 3.0 (loaded once per process)."""
    import nltk  # deferred: loads sklearn, scipy, nltk
    with _LOCK:
        dest = unpack_wordnet()
        root = str(dest.parent.parent)
        if root not in nltk.data.path:                 # NLTK only reads corpora under its data path
            nltk.data.path.insert(0, root)
        return reader(nltk.data.find("corpora/wordnet"))
