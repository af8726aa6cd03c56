"""Named document collections for QA: paragraphs of documents in an SQLite FTS5 index (BM25), built
offline into an artifact folder (``<artifacts>/collections/NAME``: manifest, checksums, atomic write).

A collection is searched for the paragraphs that match a question's content words best; the
answering code (:mod:`textqa.models.qa.retrieval`) splits those into sentences and analyses them
then.  Every paragraph keeps its document: id, title and URL, which every answer carries.

Checking a large index: the manifest holds the sha256 of every file, as an artifact's does.  An
index of Wikipedia is large, and its hash would take seconds at every load, so a file's hash is
computed once per file identity (device, inode, size, modification and status-change times) and
remembered in the cache folder, as every artifact's is (:mod:`textqa.models.checked_files`); a file
whose identity changed is hashed again, and a file whose hash differs from the manifest is refused,
naming it.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from pathlib import Path

from textqa.runtime.json_input import parse_json
from textqa.runtime.paths import VITAL_ARTICLES, WIKIPEDIA_TEXT

from ..artifact import MANIFEST, ArtifactError, load_manifest, read_manifest, verify_payloads, write_artifact
from ..checked_files import RECORD as CHECKED_RECORD
from ..checked_files import CheckedFiles
from .analysis import ANALYSIS, StoredAnalysis, is_analysed
from .documents import MIN_PARAGRAPH_CHARS, documents, source_files
from .index import _TERM as _WORD  # the words SentenceIndex.query makes of a term
from .index import SentenceIndex

KIND = "qa-collection"
FORMAT_VERSION = 2            # 2: documents keep a description; format 1 collections load as they are
INDEX = "passages.sqlite"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
WIKIPEDIA_SOURCES = [VITAL_ARTICLES, *WIKIPEDIA_TEXT]    # what the ``wikipedia`` collection indexes
BATCH = 2000                  # paragraphs per insert transaction
MAX_DF = 0.05                 # PassageIndex.max_df of a loaded collection
WIKIPEDIA = "wikipedia"       # the collection of the bundled Wikipedia articles (QA's default collection)
WIKIPEDIA_DESCRIPTION = ("English Wikipedia: the lead sections of the 10,033 Level-4 vital articles (2026, "
                         "data/qa/vital/) and the 2015 dump's page ids 12-60633 (the articles in data/truecase/), "
                         "the oldest articles, the core of the encyclopedia")


def check_name(name: str) -> str:
    """A collection name is a folder name: letters, digits, ``_ . -``; nothing that leaves its folder."""
    if not isinstance(name, str) or not _NAME.match(name) or name in (".", ".."):
        raise ValueError(f"collection name {name!r}: use 1-64 letters, digits, '_', '.' or '-', starting with a "
                         f"letter or digit")
    return name


class PassageIndex:
    """Paragraphs with their documents, searchable by keywords (FTS5's ``bm25()``).

    A search first asks for the paragraphs that hold every query word (an AND query: FTS5 intersects
    the words' lists, skipping through the long ones), best first by BM25; when those are fewer than
    ``k``, the OR query of the words fills the rest.  ``max_df``: in that OR query, a word found in
    more than this share of the paragraphs is left out while at least ``MIN_QUERY_WORDS`` rarer words
    remain.  BM25 gives such a word little weight anyway, but scoring an OR query costs time in
    proportion to the paragraphs each word is in ("year" or "first": a hundred thousand rows).  It
    keeps the plain OR query's recall and cuts its slowest searches ("Retrieval over the Wikipedia
    collection" in docs/experiments/qa.md)."""

    MIN_QUERY_WORDS = 2

    def __init__(self, path: str | Path = ":memory:", read_only: bool = False, max_df: float | None = None):
        self.path, self.max_df = str(path), max_df
        self._df: dict = {}
        self._stem: dict = {}
        self._paragraphs = None
        self._vocab = False              # the temp fts5vocab table doc_frequency reads, once made
        self._descriptions = None        # whether the documents table has descriptions (format 2), once asked
        if read_only:
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
        else:
            self.db = sqlite3.connect(self.path, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode = OFF")
            self.db.execute("PRAGMA synchronous = OFF")
            self.db.execute("CREATE TABLE IF NOT EXISTS documents (id INTEGER PRIMARY KEY, doc_id TEXT, title TEXT, "
                            "url TEXT, description TEXT)")
            self.db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(text, doc UNINDEXED, "
                            "tokenize = 'porter unicode61')")

    def add(self, docs, progress=None) -> tuple[int, int]:
        """Index ``docs`` (:class:`Document`), streaming; (documents, paragraphs) added."""
        n_docs = n_paras = 0
        rows = []
        cur = self.db.cursor()
        for d in docs:
            if not d.paragraphs:
                continue
            cur.execute("INSERT INTO documents (doc_id, title, url, description) VALUES (?, ?, ?, ?)",
                        (d.id, d.title, d.url, d.description or None))
            rows += [(p, cur.lastrowid) for p in d.paragraphs]
            n_docs += 1
            if len(rows) >= BATCH:
                cur.executemany("INSERT INTO passages (text, doc) VALUES (?, ?)", rows)
                n_paras += len(rows)
                rows = []
                if progress:
                    progress(n_docs, n_paras)
        cur.executemany("INSERT INTO passages (text, doc) VALUES (?, ?)", rows)
        n_paras += len(rows)
        self.db.commit()
        return n_docs, n_paras

    def optimize(self) -> None:
        """Merge the index's segments (faster queries; run once, after the last ``add``), and index the
        documents' titles (:meth:`titled`)."""
        self.db.execute("INSERT INTO passages(passages) VALUES ('optimize')")
        self.db.execute("CREATE INDEX IF NOT EXISTS documents_title ON documents (title COLLATE NOCASE)")
        self.db.commit()

    def _stems(self, words: list[str]) -> list[str]:
        """Each word as the index's tokenizer (Porter, unicode61) stores it: the same code, through a
        small in-memory FTS5 table, so no second stemmer can disagree with it."""
        todo = [w for w in dict.fromkeys(words) if w not in self._stem]
        if todo:
            mem = sqlite3.connect(":memory:")
            mem.execute("CREATE VIRTUAL TABLE s USING fts5(w, tokenize = 'porter unicode61')")
            mem.execute("CREATE VIRTUAL TABLE v USING fts5vocab(s, instance)")
            mem.executemany("INSERT INTO s (rowid, w) VALUES (?, ?)", enumerate(todo))
            found = dict(mem.execute("SELECT doc, term FROM v WHERE offset = 0").fetchall())
            mem.close()
            self._stem.update({w: found.get(i, w) for i, w in enumerate(todo)})
        return [self._stem[w] for w in words]

    def doc_frequency(self, words: list[str]) -> list[int]:
        """How many paragraphs hold each word (after stemming), from FTS5's own vocabulary."""
        if not self._vocab:
            self.db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.passages_vocab USING fts5vocab(main, passages, "
                            "row)")
            self._vocab = True
        out = []
        for stem in self._stems(words):
            if stem not in self._df:
                row = self.db.execute("SELECT doc FROM temp.passages_vocab WHERE term = ?", (stem,)).fetchone()
                self._df[stem] = row[0] if row else 0
            out.append(self._df[stem])
        return out

    def query_words(self, terms) -> list:
        """The words (and phrases) of ``terms`` that the query keeps under ``max_df``."""
        words = [w for w in dict.fromkeys(w.lower() for t in terms if not isinstance(t, tuple)
                                          for w in _WORD.findall(t))]
        phrases = [t for t in terms if isinstance(t, tuple)]
        if self.max_df is None or len(words) <= self.MIN_QUERY_WORDS:
            return words + phrases
        if self._paragraphs is None:
            self._paragraphs = self.counts()[1]
        limit = self.max_df * self._paragraphs
        df = dict(zip(words, self.doc_frequency(words)))
        keep = [w for w in words if df[w] <= limit]
        if len(keep) < self.MIN_QUERY_WORDS:
            keep = sorted(words, key=lambda w: df[w])[:self.MIN_QUERY_WORDS]
            keep = [w for w in words if w in keep]
        return keep + phrases

    def match(self, query: str, k: int) -> list:
        """(rowid, paragraph, document row, FTS5 bm25 value: lower is better) of an FTS5 query's best ``k``."""
        if not query:
            return []
        return self.db.execute("SELECT rowid, text, doc, bm25(passages) FROM passages WHERE passages MATCH ? "
                               "ORDER BY bm25(passages) LIMIT ?", (query, k)).fetchall()

    def search(self, terms, k: int = 10) -> list[tuple[int, str, int, float]]:
        """(rowid, paragraph, document row, BM25 score; higher is better) of the best ``k`` matches: those
        with every word first, then the best of the OR query (see the class)."""
        every = SentenceIndex.query(terms).replace(" OR ", " AND ")
        rows = self.match(every, k) if " AND " in every else []
        if len(rows) < k:
            seen = {r[0] for r in rows}
            rows += [r for r in self.match(SentenceIndex.query(self.query_words(terms)), k) if r[0] not in seen]
        return [(r, t, d, -s) for r, t, d, s in rows[:k]]

    def document(self, row: int) -> dict:
        """``{"id", "title", "url"}`` of a document row."""
        found = self.db.execute("SELECT doc_id, title, url FROM documents WHERE id = ?", (row,)).fetchone()
        return {"id": found[0], "title": found[1], "url": found[2]} if found else {"id": str(row), "title": "",
                                                                                   "url": None}

    def titled(self, subject: str, k: int = 5) -> list[tuple[int, dict, str]]:
        """(document row, ``{"id", "title", "url"}``, its description or "") of the documents whose title
        is ``subject`` or starts with it followed by a space, without case: at most ``k`` of each kind,
        exact titles first."""
        cols = "id, doc_id, title, url" + (", description" if self._has_descriptions() else ", NULL")
        like = subject.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.db.execute(f"SELECT {cols} FROM documents WHERE title = ? COLLATE NOCASE LIMIT ?",
                               (subject, k)).fetchall()
        rows += self.db.execute(f"SELECT {cols} FROM documents WHERE title LIKE ? ESCAPE '\\' ORDER BY "
                                f"length(title), id LIMIT ?", (like + " %", k)).fetchall()
        out, seen = [], set()
        for row, doc_id, title, url, description in rows:
            if row not in seen:
                seen.add(row)
                out.append((row, {"id": doc_id, "title": title, "url": url}, description or ""))
        return out

    def first_paragraph(self, row: int) -> str:
        """The first paragraph of the document row ``row`` (paragraphs are stored in their documents'
        order: a binary search over the paragraphs' row ids, each a look-up by row id)."""
        lo, hi = 1, self.db.execute("SELECT max(rowid) FROM passages").fetchone()[0] or 0
        while lo < hi:
            mid = (lo + hi) // 2
            found = self.db.execute("SELECT doc FROM passages WHERE rowid >= ? ORDER BY rowid LIMIT 1",
                                    (mid,)).fetchone()
            if found is None or found[0] >= row:
                hi = mid
            else:
                lo = mid + 1
        found = self.db.execute("SELECT doc, text FROM passages WHERE rowid >= ? ORDER BY rowid LIMIT 1",
                                (lo,)).fetchone()
        return found[1] if found and found[0] == row else ""

    def _has_descriptions(self) -> bool:
        if self._descriptions is None:
            cols = {c[1] for c in self.db.execute("PRAGMA table_info(documents)")}
            self._descriptions = "description" in cols
        return self._descriptions

    def counts(self) -> tuple[int, int]:
        return (self.db.execute("SELECT count(*) FROM documents").fetchone()[0],
                self.db.execute("SELECT count(*) FROM passages").fetchone()[0])

    def close(self) -> None:
        self.db.close()


def collections_root(artifacts: str | os.PathLike) -> Path:
    return Path(artifacts) / "collections"


def build_collection(dest: str | os.PathLike, name: str, paths, *, description: str = "",
                     progress=None) -> dict:
    """Index the documents of ``paths`` into the collection folder ``dest`` (written beside it and
    renamed into place: a failure leaves what was there untouched); returns its manifest's ``extra``."""
    check_name(name)
    paths = [Path(p) for p in paths]
    files = source_files(paths)
    t0 = time.perf_counter()
    with write_artifact(dest, KIND, FORMAT_VERSION, hyper_parameters={"tokenizer": "porter unicode61",
                                                                     "min_paragraph_chars": MIN_PARAGRAPH_CHARS},
                        extra={"collection": name}) as tmp:
        ix = PassageIndex(tmp / INDEX)
        n_docs, n_paras = ix.add(documents(paths), progress)
        if n_paras == 0:
            ix.close()
            raise ValueError(f"{', '.join(map(str, paths))}: no paragraphs of {MIN_PARAGRAPH_CHARS} characters or more "
                             f"to index")
        ix.optimize()
        ix.close()
        info = {"collection": name, "description": description or f"{n_docs:,} documents from "
                f"{', '.join(p.name for p in paths[:3])}{' and more' if len(paths) > 3 else ''}",
                "documents": n_docs, "paragraphs": n_paras, "sources": [str(p) for p in paths],
                "source_files": len(files), "seconds": round(time.perf_counter() - t0, 1)}
        (tmp / "collection.json").write_text(json.dumps(info, indent=1, sort_keys=True), encoding="utf-8")
    return info


def build_wikipedia(root: str | os.PathLike, progress=None) -> dict:
    """The ``wikipedia`` collection under the collections folder ``root``, indexed from the bundled vital
    articles' lead sections (:data:`textqa.runtime.paths.VITAL_ARTICLES`) and WikiExtractor files
    (:data:`textqa.runtime.paths.WIKIPEDIA_TEXT`); as :func:`build_collection`."""
    return build_collection(Path(root) / WIKIPEDIA, WIKIPEDIA, WIKIPEDIA_SOURCES,
                            description=WIKIPEDIA_DESCRIPTION,
                            progress=progress)


def has_collection(root: str | os.PathLike, name: str, current: bool = False) -> bool:
    """Whether the collection ``name`` is built under the collections folder ``root``; ``current``: and
    of this code's format (an older ``wikipedia`` collection lacks the vital articles: rebuilt)."""
    folder = Path(root) / name
    if not (folder / MANIFEST).is_file():
        return False
    if not current:
        return True
    try:
        return read_manifest(folder).get("format_version") == FORMAT_VERSION
    except ArtifactError:
        return False


class Collection:
    """A loaded collection: its name, manifest, summary, paragraph index and, once the collection is
    analysed (:mod:`textqa.models.qa.analysis`), its stored analysis (else None)."""

    def __init__(self, folder: Path, manifest: dict, info: dict, index: PassageIndex, analysis=None):
        self.folder, self.manifest, self.info, self.index = folder, manifest, info, index
        self.analysis = analysis
        self.name = info.get("collection", folder.name)

    def describe(self) -> dict:
        return {"name": self.name, "documents": self.info.get("documents", 0),
                "paragraphs": self.info.get("paragraphs", 0), "description": self.info.get("description", ""),
                "created_at": self.manifest.get("created_at"), "analysed": self.analysis is not None}


def load_collection(folder: str | os.PathLike, cache: Path | None = None) -> Collection:
    folder = Path(folder)
    manifest = load_manifest(folder, expect_name=KIND, max_format_version=FORMAT_VERSION, verify=False)
    verify_payloads(folder, manifest, CheckedFiles(Path(cache) / CHECKED_RECORD) if cache else CheckedFiles(None),
                    remedy="rebuild it with 'textqa qa index'")
    try:
        info = parse_json((folder / "collection.json").read_bytes())
        index = PassageIndex(folder / INDEX, read_only=True, max_df=MAX_DF)
        index.counts()
        analysis = StoredAnalysis(folder / ANALYSIS) if is_analysed(folder, manifest) else None
    except (OSError, ValueError, sqlite3.DatabaseError) as e:
        raise ArtifactError(f"{folder}: cannot read the collection ({e})") from e
    return Collection(folder, manifest, info, index, analysis)


def list_collections(root: Path) -> list[str]:
    """Names of the collections under ``root`` (folders with a manifest)."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / MANIFEST).is_file() and not p.name.startswith("."))
