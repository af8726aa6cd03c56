"""Sentence retrieval: an embedded full-text index (SQLite FTS5, BM25 ranking), standard library only.

``SentenceIndex`` is the small interface the QA system needs (``add``, ``search``, ``get``,
``__len__``); a server engine (Elasticsearch, OpenSearch) can implement the same methods for
collections beyond one machine.  The index lives in a single SQLite file (or in memory).
"""
from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from .candidates import Candidate

_TERM = re.compile(r"[A-Za-z0-9]+")


def fts5_available() -> bool:
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        return True
    except sqlite3.OperationalError:
        return False


class SentenceIndex:
    """Sentences with a source label, searchable by keywords (BM25, FTS5's ``bm25()``)."""

    def __init__(self, path: str | Path = ":memory:", read_only: bool = False):
        self.path = str(path)
        if read_only:
            self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        else:
            self.db = sqlite3.connect(self.path, check_same_thread=False)
            self.db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS sentences USING fts5(text, source UNINDEXED, "
                            "tokenize = 'porter unicode61')")
            self.db.execute("CREATE TABLE IF NOT EXISTS info (id INTEGER PRIMARY KEY, tokens TEXT, cands TEXT)")

    def add(self, sentences, source: str = "") -> int:
        """Index sentences (strings); returns how many were added."""
        rows = [(s, source) for s in sentences if s and s.strip()]
        with self.db:
            self.db.executemany("INSERT INTO sentences(text, source) VALUES (?, ?)", rows)
        return len(rows)

    def add_analysed(self, items, source: str = "") -> int:
        """Index sentences with their analysis: ``items`` = (text, tokens, candidates) with
        candidates as [text, start, end, type] lists (see :mod:`textqa.models.qa.system`)."""
        n = 0
        with self.db:
            for text, tokens, cands in items:
                if not text or not text.strip():
                    continue
                cur = self.db.execute("INSERT INTO sentences(text, source) VALUES (?, ?)", (text, source))
                self.db.execute("INSERT INTO info(id, tokens, cands) VALUES (?, ?, ?)",
                                (cur.lastrowid, json.dumps(tokens), json.dumps(cands)))
                n += 1
        return n

    def info(self, rowid: int):
        """(tokens, candidates) stored for a sentence by ``add_analysed``, or None."""
        row = self.db.execute("SELECT tokens, cands FROM info WHERE id = ?", (rowid,)).fetchone()
        if row is None:
            return None
        return json.loads(row[0]), [Candidate(*c) for c in json.loads(row[1])]

    def __len__(self) -> int:
        return self.db.execute("SELECT count(*) FROM sentences").fetchone()[0]

    @staticmethod
    def query(terms) -> str:
        """An FTS5 OR-query of the terms, each quoted (no FTS5 syntax passes through): a string term
        gives its alphanumeric words ("U.S. president" gives "u", "s", "president"), a tuple of
        words is one phrase (("city", "of", "light"))."""
        parts = []
        for t in terms:
            if isinstance(t, tuple):
                words = [w.lower() for x in t for w in _TERM.findall(x)]
                if words:
                    parts.append(" ".join(words))
            else:
                parts += [w.lower() for w in _TERM.findall(t)]
        seen = list(dict.fromkeys(parts))
        return " OR ".join(f'"{w}"' for w in seen)

    def search(self, terms, k: int = 20) -> list[tuple[int, str, float]]:
        """(rowid, sentence, BM25 score; higher is better) of the best ``k`` matches of any of ``terms``
        (strings or phrases, see :meth:`query`)."""
        q = self.query(terms)
        if not q:
            return []
        rows = self.db.execute("SELECT rowid, text, bm25(sentences) FROM sentences WHERE sentences MATCH ? "
                               "ORDER BY bm25(sentences) LIMIT ?", (q, k)).fetchall()
        return [(r, t, -s) for r, t, s in rows]

    def get(self, rowid: int) -> str:
        row = self.db.execute("SELECT text FROM sentences WHERE rowid = ?", (rowid,)).fetchone()
        return row[0] if row else ""

    def save(self, path: str | Path) -> None:
        """Copy the index into a file (the artifact's ``index.sqlite``)."""
        dest = sqlite3.connect(str(path))
        with dest:
            self.db.backup(dest)
        dest.close()

    def close(self) -> None:
        self.db.close()
