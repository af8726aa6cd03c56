"""The retrieval collection: sentences analysed once (spaCy tokens and answer candidates) and indexed.

Default collection: the pool of real newswire sentences in the QA data, TrecQA TRAIN-ALL
positives and negatives plus the TrecQA TRAIN/DEV candidate sentences (about 40,000).  More
text can be added at answering time: a TrecQA XML file (its candidate sentences) or plain
text (split into sentences by spaCy).
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from textqa.runtime import process_pool
from textqa.runtime.files import replaced_whole

from .candidates import sentence_candidates
from .index import SentenceIndex
from .nlp import cache_file, pipeline

BATCH = 512          # sentences per spaCy batch, and per task of the worker processes


def _analyse_here(texts, batch: int = BATCH) -> list[tuple[str, list, list]]:
    return [(text, [t.text for t in doc], [[c.text, c.start, c.end, c.type] for c in sentence_candidates(doc)])
            for text, doc in zip(texts, pipeline().pipe(texts, batch_size=batch))]


def analyse(texts, n_process: int = 1, progress=None, batch: int = BATCH) -> list[tuple[str, list, list]]:
    """(text, tokens, candidates) for each sentence.  ``n_process`` > 1: in the two worker processes
    of :func:`textqa.runtime.process_pool.pool`, a batch of ``batch`` sentences a task, each worker returning the
    tuples, not spaCy Docs.  spaCy's own ``n_process`` sends each Doc back serialised, and this
    process then decoded them and walked their tokens: on 6,800 sentences 38-50 s and 95 s of CPU,
    against 30-35 s and 69 s here.  The batches are the ones of one process, so the analyses are
    the same (a test compares them)."""
    texts = list(texts)
    batches = [texts[i:i + batch] for i in range(0, len(texts), batch)]
    if n_process > 1 and len(batches) > 1:
        analysed = process_pool.results_in_order(_analyse_here, batches, batch)
    else:
        analysed = (_analyse_here(b, batch) for b in batches)
    out = []
    for k, items in enumerate(analysed, start=1):
        out += items
        if progress and k % 10 == 0:
            progress(f"analysed {len(out)}/{len(texts)} sentences")
    return out


ANALYSIS_VERSION = "1"        # bump when analyse() or the candidate extraction changes: invalidates caches


def cache_path(texts: list[str], cache: Path) -> Path:
    """The cache file of ``texts`` analysed by this spaCy model (text, model and analysis version)."""
    return cache_file(texts, cache, "collection", f"analysis-{ANALYSIS_VERSION}", ".jsonl.gz")


def analysed_cached(texts: list[str], cache: Path | None, n_process: int = 1, progress=None):
    """``analyse`` with a cache file keyed by the texts, the spaCy model and its version (``.cache/``;
    safe to delete)."""
    if cache is None:
        return analyse(texts, n_process, progress)
    path = cache_path(texts, cache)
    if path.exists():
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return [tuple(json.loads(line)) for line in f]
    items = analyse(texts, n_process, progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replaced_whole(path) as tmp, gzip.open(tmp, "wt", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item) + "\n")
    return items


def trec_all_sentences(paths, without_qids=frozenset()) -> list[str]:
    """Sentences of TrecQA TRAIN-ALL ``*.POSInput`` files (lines that are not ``<...>`` tags), less those
    of the blocks (``<A qid >``) of the TREC question numbers ``without_qids``: the sentences selected
    for those questions."""
    out = []
    for p in paths:
        with gzip.open(p, "rt", encoding="utf-8", errors="replace") if str(p).endswith(".gz") else \
                open(p, encoding="utf-8", errors="replace") as f:
            qid = None
            for line in f:
                if line.startswith("<"):
                    parts = line.strip("<> \r\n").split()
                    qid = parts[1] if len(parts) > 1 and not line.startswith("</") else None
                elif line.strip() and qid not in without_qids:
                    out.append(line.strip())
    return out


def plain_text_sentences(text: str) -> list[str]:
    return [s.text.strip() for s in pipeline()(text).sents if s.text.strip()]


def build_index(items, path=":memory:") -> SentenceIndex:
    ix = SentenceIndex(path)
    ix.add_analysed(items, "collection")
    return ix
