"""A collection analysed once, when it is indexed: every paragraph's sentences and answer candidates,
stored beside its full-text index so that answering parses no collection text.

What is stored, per paragraph (one SQLite row keyed by the paragraph's row id in ``passages.sqlite``,
the bytes of two small integer arrays; nothing to parse but the question when a question is asked):

* its sentences, as character spans of the paragraph (NLTK's Punkt with the bundled English tables,
  each cut at :data:`retrieval.MAX_SENTENCE_CHARS`, as the answering code split them before);
* its answer candidates, as character spans of their sentence with their answer type
  (:func:`candidates.answer_type`): the named entities of spaCy's recogniser, and the numbers.

The analyser is spaCy's small English pipeline reduced to its named-entity recogniser, which carries a
token-to-vector layer of its own and so gives the entities the whole pipeline gives.  The tagger and
the parser are left out: together they cost as much again, and the collection could not be analysed
in the time an index build may take.  What that drops is the noun chunks, which need the parser;
``docs/experiments/qa.md`` measures what the reader loses by it.  A collection not analysed yet is
analysed the same way at answer time (:func:`analyse_paragraphs`), so a paragraph gives the reader
the same candidates whichever path it takes.

The work is cut into chunks of :data:`CHUNK` paragraphs by row id: chunks run in processes on one
machine or as tasks on a Dask cluster, and each chunk's rows are committed, with the chunk's id, to a
partial file in the collection's folder (``.analysis-partial.sqlite``).  An interrupted build resumes
from the chunks committed.  The finished analysis is written in paragraph order into
``analysis.sqlite`` (the same bytes wherever the chunks ran), renamed into place, and only then
added to the collection's manifest, with its sha256: until then the collection answers as an
unanalysed one, never from a half-written file.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
import time
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from textqa.runtime.files import replaced_whole

from ..artifact import MANIFEST, ArtifactError, read_manifest, sha256_file, verify_payload
from .candidates import ANSWER_TYPES, Candidate, answer_type

ANALYSIS = "analysis.sqlite"
PARTIAL = ".analysis-partial.sqlite"
#: What the stored rows mean; a partial analysis of another version is started again.
ANALYSIS_VERSION = 1
CHUNK = 1000                   # paragraphs per task (row ids ``k * CHUNK + 1`` to ``(k + 1) * CHUNK``)
BATCH = 256                    # sentences per spaCy batch
MAX_SENTENCE_CHARS = 600       # longer "sentences" (lists, tables run together) are cut here
_NUMBER = re.compile(r"^[-+]?(\d[\d,]*(\.\d+)?|\.\d+)$")
#: a sentence's tokens at answer time: words (with inner hyphens, apostrophes and dots) and single marks
_TOKEN = re.compile(r"\d+(?:[,.]\d+)*|\w+(?:[-'’.]\w+)*|[^\w\s]")
_TYPE_ID = {t: i for i, t in enumerate(ANSWER_TYPES)}
#: the spaCy components the analyser leaves out (the recogniser has a token-to-vector layer of its own)
EXCLUDED = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer")


@lru_cache(maxsize=1)
def recogniser():
    """spaCy's small English pipeline with only its named-entity recogniser (as :func:`nlp.pipeline`
    loads it, on numpy's BLAS)."""
    import spacy  # deferred: loads spacy, pydantic, tqdm
    from thinc.api import use_ops  # deferred: loads pydantic, numpy

    from .nlp import MODEL_PACKAGE, pipeline
    pipeline()                       # the same model, or its clear message when it is not installed
    with use_ops("numpy", use_blis=False):
        return spacy.load(MODEL_PACKAGE, exclude=list(EXCLUDED))


def analyser_version() -> str:
    """What an analysis depends on: this module's version, the spaCy model and spaCy."""
    from .nlp import model_version
    return f"analysis-{ANALYSIS_VERSION}|ner-only|{model_version()}"


@lru_cache(maxsize=1)
def _punkt():
    from textqa.runtime.nltk_tokenizers import tokenizer_modules
    from textqa.runtime.paths import PUNKT_DIR

    from ..truecaser.tokenize import load_punkt_tables
    return tokenizer_modules().punkt.PunktSentenceTokenizer(load_punkt_tables(PUNKT_DIR))


def sentence_spans(paragraph: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``paragraph`` (Punkt), each at most :data:`MAX_SENTENCE_CHARS`
    long, blank ones left out."""
    out = []
    for a, b in _punkt().span_tokenize(paragraph):
        b = min(b, a + MAX_SENTENCE_CHARS)
        if paragraph[a:b].strip():
            out.append((a, b))
    return out


def _candidates(doc) -> list[tuple[int, int, int]]:
    """(start, end, answer type id) in characters of the sentence: its entities, then the numbers no
    entity covers; spans of punctuation or stop words alone are none (as :func:`candidates.sentence_candidates`)."""
    seen, out = set(), []

    def add(a, b, text, label):
        if (a, b) in seen or not text.strip():
            return
        seen.add((a, b))
        out.append((a, b, _TYPE_ID[answer_type(text, label)]))

    for ent in doc.ents:
        if not all(t.is_punct or t.is_stop for t in ent):
            add(ent.start_char, ent.end_char, ent.text, ent.label_)
    for t in doc:
        if t.like_num and not t.is_stop:
            add(t.idx, t.idx + len(t.text), t.text, "CARDINAL")
    return out


def encode(sentences: list[tuple[int, int]], candidates: list[list[tuple[int, int, int]]]) -> bytes:
    """One paragraph's row: uint32 ``[n_sentences, n_candidates]``, the sentences' (start, end) as uint32,
    then each candidate as uint16 (sentence, start, end, type), its offsets within its sentence."""
    cands = [(i, a, b, t) for i, cs in enumerate(candidates) for a, b, t in cs]
    head = np.array([len(sentences), len(cands)], dtype="<u4")
    return (head.tobytes() + np.array(sentences, dtype="<u4").reshape(-1, 2).tobytes()
            + np.array(cands, dtype="<u2").reshape(-1, 4).tobytes())


def decode(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(sentences as an (n, 2) array of character spans, candidates as an (m, 4) array of (sentence,
    start, end, type)) of a row :func:`encode` wrote; ``ValueError`` for bytes that are not one."""
    if len(data) < 8:
        raise ValueError("analysis row too short")
    n, m = np.frombuffer(data, dtype="<u4", count=2)
    if len(data) != 8 + 8 * int(n) + 8 * int(m):
        raise ValueError("analysis row of the wrong length")
    sents = np.frombuffer(data, dtype="<u4", count=2 * int(n), offset=8).reshape(-1, 2)
    cands = np.frombuffer(data, dtype="<u2", count=4 * int(m), offset=8 + 8 * int(n)).reshape(-1, 4)
    if len(cands) and (cands[:, 0].max() >= n or cands[:, 3].max() >= len(ANSWER_TYPES)):
        raise ValueError("analysis row out of range")
    return sents, cands


def analyse_sentences(sentences: list[str], batch: int = BATCH) -> list[list[tuple[int, int, int]]]:
    """Each sentence's candidates: (start, end, answer type id) in its characters."""
    return [_candidates(doc) for doc in recogniser().pipe(sentences, batch_size=batch)]


def analyse_paragraphs(texts: list[str], batch: int = BATCH) -> list[bytes]:
    """Each paragraph's stored analysis (:func:`encode`): its sentences and their candidates.  A sentence is
    analysed on its own, so its candidates are those :func:`analyse_sentences` gives it alone."""
    spans = [sentence_spans(t) for t in texts]
    found = iter(analyse_sentences([t[a:b] for t, sp in zip(texts, spans) for a, b in sp], batch))
    return [encode(sp, [next(found) for _ in sp]) for sp in spans]


def analyse_chunk(task: tuple[int, list[tuple[int, str]]]) -> tuple[int, list[tuple[int, bytes]]]:
    """(chunk id, [(paragraph row id, its analysis)]) of one task: (chunk id, [(row id, paragraph)]).
    Runs with one BLAS thread wherever it runs, so that the same chunk gives the same bytes anywhere."""
    from threadpoolctl import threadpool_limits  # deferred: loads threadpoolctl
    chunk, rows = task
    with threadpool_limits(1):
        return chunk, list(zip([r for r, _ in rows], analyse_paragraphs([t for _, t in rows])))


# ---------------------------------------------------------------------- reading
@dataclass
class Sentence:
    """One analysed sentence: its text, its tokens with their character offsets, its candidates."""
    text: str
    tokens: list
    offsets: list
    candidates: list


def tokens_of(text: str, cuts=()) -> tuple[list[str], list[tuple[int, int]]]:
    """A sentence's tokens and their (start, end), by :data:`_TOKEN`, each also split at the character
    offsets ``cuts`` (the candidates' ends), so that every candidate is a run of whole tokens."""
    cuts = sorted(set(cuts))
    toks, offs = [], []
    for m in _TOKEN.finditer(text):
        a, b = m.span()
        inner = cuts[bisect_right(cuts, a):bisect_left(cuts, b)]
        for x, y in zip([a, *inner], [*inner, b]):
            if text[x:y].strip():
                toks.append(text[x:y])
                offs.append((x, y))
    return toks, offs


def stored_sentences(data: bytes) -> tuple[list[tuple[int, int]], list[list[tuple[int, int, int]]]]:
    """(the sentences' spans, each sentence's candidates as (start, end, type id)) of a stored row."""
    sents, cands = decode(data)
    per: list = [[] for _ in range(len(sents))]
    for i, a, b, t in cands.tolist():
        per[i].append((a, b, t))
    return [tuple(x) for x in sents.tolist()], per


def sentence_of(text: str, candidates: list[tuple[int, int, int]]) -> Sentence:
    """A sentence with its tokens and its candidates (character spans and type ids) as token spans."""
    toks, offs = tokens_of(text, [x for a, b, _ in candidates for x in (a, b)])
    starts = [o[0] for o in offs]
    found = []
    for a, b, t in candidates:
        ts, te = bisect_left(starts, a), bisect_left(starts, b)
        if te > ts:
            found.append(Candidate(text[a:b], ts, te, ANSWER_TYPES[t]))
    return Sentence(text, toks, offs, found)


class StoredAnalysis:
    """The analysis file of a collection, read-only: each paragraph's row by its row id."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.db = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
        self.meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())

    def rows(self, paragraphs) -> dict[int, bytes]:
        """{row id: stored bytes} of the paragraphs (those it has)."""
        ids = list(dict.fromkeys(int(p) for p in paragraphs))
        if not ids:
            return {}
        q = ",".join("?" * len(ids))
        return dict(self.db.execute(f"SELECT paragraph, data FROM analysis WHERE paragraph IN ({q})", ids).fetchall())

    def __len__(self) -> int:
        return self.db.execute("SELECT count(*) FROM analysis").fetchone()[0]

    def close(self) -> None:
        self.db.close()


# ---------------------------------------------------------------------- building
def _partial(folder: Path, version: str, passages_sha: str) -> sqlite3.Connection:
    """The partial analysis of ``folder``: kept when it is of this analyser and of this index, else
    started afresh."""
    path = folder / PARTIAL
    want = {"analyser": version, "passages_sha256": passages_sha}
    if path.exists():
        try:
            db = sqlite3.connect(path)
            if dict(db.execute("SELECT key, value FROM meta").fetchall()) == want:
                return db
            db.close()
        except sqlite3.DatabaseError:
            pass
        path.unlink()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
                     "CREATE TABLE analysis (paragraph INTEGER PRIMARY KEY, data BLOB NOT NULL);"
                     "CREATE TABLE chunks (id INTEGER PRIMARY KEY);")
    db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(want.items()))
    db.commit()
    return db


def is_analysed(folder: str | os.PathLike, manifest: dict | None = None) -> bool:
    """Whether the collection in ``folder`` has a finished analysis in its manifest."""
    manifest = manifest if manifest is not None else read_manifest(folder)
    return ANALYSIS in manifest.get("files", {})


def _tasks(index: Path, todo: list[int]):
    """(chunk id, [(row id, paragraph)]) of each chunk to do, read from the collection's index."""
    db = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        for k in todo:
            yield k, db.execute("SELECT rowid, text FROM passages WHERE rowid BETWEEN ? AND ? ORDER BY rowid",
                                (k * CHUNK + 1, (k + 1) * CHUNK)).fetchall()
    finally:
        db.close()


def _results(tasks, n_process: int, client):
    """``analyse_chunk`` of each task: on the Dask ``client``'s workers, in ``n_process`` local worker
    processes, or here; in any order, at most a few tasks in flight."""
    if client is not None:
        from distributed import as_completed  # deferred: loads distributed, dask
        tasks = iter(tasks)
        width = 2 * max(len(client.scheduler_info().get("workers", {})), 1)
        running = as_completed([client.submit(analyse_chunk, t, pure=False) for t in _take(tasks, width)])
        for future in running:
            yield future.result()
            for t in _take(tasks, 1):
                running.add(client.submit(analyse_chunk, t, pure=False))
    elif n_process > 1:
        from textqa.runtime import process_pool
        yield from process_pool.results_in_order(analyse_chunk, tasks, in_flight=2 * n_process)
    else:
        for t in tasks:
            yield analyse_chunk(t)


def _take(it, n):
    out = []
    for _ in range(n):
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


def _finish(folder: Path, partial: sqlite3.Connection, version: str, seconds: float) -> dict:
    """The analysis in paragraph order into ``analysis.sqlite`` (renamed into place), then into the
    manifest (rewritten whole and renamed into place); the partial file is removed last."""
    final = folder / ".analysis-final.sqlite"
    final.unlink(missing_ok=True)
    db = sqlite3.connect(final)
    db.executescript("PRAGMA journal_mode = OFF; PRAGMA page_size = 4096;"
                     "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
                     "CREATE TABLE analysis (paragraph INTEGER PRIMARY KEY, data BLOB NOT NULL);")
    n_sents = n_cands = 0
    for paragraph, data in partial.execute("SELECT paragraph, data FROM analysis ORDER BY paragraph"):
        n, m = np.frombuffer(data, dtype="<u4", count=2)
        n_sents, n_cands = n_sents + int(n), n_cands + int(m)
        db.execute("INSERT INTO analysis VALUES (?, ?)", (paragraph, data))
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("analyser", version), ("candidates", str(n_cands)),
                                                      ("sentences", str(n_sents))])
    db.commit()
    db.close()
    with open(final, "rb") as f:
        os.fsync(f.fileno())
    os.replace(final, folder / ANALYSIS)
    manifest = read_manifest(folder)
    size = (folder / ANALYSIS).stat().st_size
    manifest["files"][ANALYSIS] = {"sha256": sha256_file(folder / ANALYSIS), "bytes": size}
    info = {"analyser": version, "sentences": n_sents, "candidates": n_cands, "bytes": size,
            "seconds": round(seconds, 1)}
    manifest["analysis"] = info
    with replaced_whole(folder / MANIFEST) as tmp, open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, sort_keys=True, default=str)
        f.flush()
        os.fsync(f.fileno())
    partial.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{folder / PARTIAL}{suffix}").unlink(missing_ok=True)
    return info


def analyse_collection(folder: str | os.PathLike, *, n_process: int = 2, client=None, progress=None,
                       index_name: str = "passages.sqlite") -> dict:
    """Analyse every paragraph of the collection in ``folder`` (see the module), resuming a partial
    analysis; returns what the manifest's ``analysis`` records (sentences, candidates, bytes, seconds).
    ``client``: a Dask client whose workers take the chunks; ``progress``: ``progress(done, total)`` in
    paragraphs, after each chunk (a tqdm bar on stderr when None)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    if is_analysed(folder, manifest):
        return manifest.get("analysis", {})
    if index_name not in manifest.get("files", {}):
        raise ArtifactError(f"{folder}: not a collection (no {index_name} in its manifest)")
    verify_payload(folder, manifest, index_name, remedy="rebuild it with 'textqa qa index'")
    index = folder / index_name
    with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as db:
        last = db.execute("SELECT max(rowid) FROM passages").fetchone()[0] or 0
        total = db.execute("SELECT count(*) FROM passages").fetchone()[0]
    version = analyser_version()
    partial = _partial(folder, version, manifest["files"][index_name]["sha256"])
    done_chunks = {k for (k,) in partial.execute("SELECT id FROM chunks")}
    done = partial.execute("SELECT count(*) FROM analysis").fetchone()[0]
    todo = [k for k in range((last + CHUNK - 1) // CHUNK) if k not in done_chunks]
    bar = None
    if progress is None:
        from tqdm import tqdm  # deferred: loads tqdm
        bar = tqdm(total=total, initial=done, unit="paragraph", desc=f"analysing {folder.name}", file=sys.stderr,
                   mininterval=2, smoothing=0.05)
    t0 = time.perf_counter()
    try:
        for k, rows in _results(_tasks(index, todo), n_process, client):
            with partial:
                partial.executemany("INSERT OR REPLACE INTO analysis VALUES (?, ?)", rows)
                partial.execute("INSERT INTO chunks VALUES (?)", (k,))
            done += len(rows)
            if bar is not None:
                bar.update(len(rows))
            else:
                progress(done, total)
    except BaseException:
        partial.close()              # what is committed stays: the next run resumes from it
        raise
    finally:
        if bar is not None:
            bar.close()
    return _finish(folder, partial, version, time.perf_counter() - t0)
