"""Sentences for one question from document collections (and the news pool), with provenance.

Two stages: BM25 over a collection's paragraphs (:class:`passages.PassageIndex`) finds the
``paragraphs`` best paragraphs for the question's content words; their sentences are scored by the
number of distinct question words each holds (``1 / log(2 + rank of the paragraph)`` breaking ties;
weighting the words by idf found no more answers, ``docs/experiments/qa.md``), and the best ``k``
are read with their answer candidates.  A collection analysed when it was indexed
(:mod:`textqa.models.qa.analysis`) gives its sentences and candidates from storage, and answering
parses none of its text; one not analysed yet has its paragraphs split into sentences and its best
``k`` sentences analysed now, the same way (cached per process by sentence text).

:class:`QuestionSource` is what :meth:`system.InstanceQA.retrieve` reads (``search`` and ``info``),
plus ``provenance``: each sentence's document (``id``, ``title``, ``url``), its text as written and
its tokens' character offsets, so that an answer names where it came from and where it sits.
"""
from __future__ import annotations

import math
import re
from collections import OrderedDict
from functools import lru_cache

from textqa.runtime.paths import english_stopwords

from .analysis import analyse_sentences, sentence_of, sentence_spans, stored_sentences

_WORD = re.compile(r"[^\W_]+")
POOL_DOCUMENT = {"id": "trecqa-pool", "title": "TrecQA sentence pool (1990s newswire, TREC QA data)", "url": None}
ANALYSIS_CACHE = 20_000           # sentences whose analysis a process keeps


_ANALYSED: OrderedDict = OrderedDict()


def analysed(texts: list[str]) -> list[list[tuple[int, int, int]]]:
    """Each sentence's candidates (:func:`analysis.analyse_sentences`), analysed now and cached per process:
    for the paragraphs of a collection that is not analysed yet."""
    out = {}
    for t in dict.fromkeys(texts):
        if t in _ANALYSED:
            _ANALYSED.move_to_end(t)
            out[t] = _ANALYSED[t]
    todo = [t for t in dict.fromkeys(texts) if t not in out]
    if todo:
        for text, cands in zip(todo, analyse_sentences(todo, batch=64)):
            out[text] = _ANALYSED[text] = cands
        while len(_ANALYSED) > ANALYSIS_CACHE:           # the least recently used go first
            _ANALYSED.popitem(last=False)
    return [out[t] for t in texts]


def _stems(words) -> set:
    stop = english_stopwords()
    return {w.lower()[:6] for w in words if w.lower() not in stop}


#: PTB tokens as the detokenized text writes them
_SHOWN = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}", "``": '"', "''": '"'}


@lru_cache(maxsize=1)
def _detokenizer():
    from nltk.tokenize.treebank import TreebankWordDetokenizer  # deferred: loads nltk
    return TreebankWordDetokenizer()


def detokenized(tokens: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """A PTB-tokenized sentence as text (NLTK's Treebank detokenizer) and each token's character
    offsets in it (tokens NLTK rewrote, such as ``-LRB-`` or two backquotes, are found as written)."""
    text = _detokenizer().detokenize(list(tokens))
    offsets, at = [], 0
    for t in tokens:
        form = _SHOWN.get(t, t)
        i = text.find(form, at)
        if i < 0 and form != t:
            i = text.find(t, at)
            form = t
        if i < 0:                       # not found as such: keep the position, an empty span
            offsets.append((at, at))
            continue
        offsets.append((i, i + len(form)))
        at = i + len(form)
    return text, offsets


class QuestionSource:
    """The sentences retrieved for one question (built per question: it holds their analyses by a
    row id of its own).  ``collections``: loaded :class:`passages.Collection` objects; ``pool``: the
    artifact's :class:`index.SentenceIndex` of the news pool, or None."""

    def __init__(self, collections=(), pool=None, paragraphs: int = 12):
        self.collections, self.pool, self.paragraphs = list(collections), pool, paragraphs
        self._info: dict = {}
        self._prov: dict = {}

    def _row(self, info, prov) -> int:
        row = len(self._info) + 1
        self._info[row], self._prov[row] = info, prov
        return row

    def search(self, terms, k: int = 20) -> list[tuple[int, str, float]]:
        """The best ``k`` sentences for ``terms`` from every source, interleaved by rank (the pool's
        and each collection's first, then their seconds...)."""
        ranked = [self._from_collection(c, terms, k) for c in self.collections]
        if self.pool is not None:
            ranked.append(self._from_pool(terms, k))
        out, seen = [], set()
        for group in zip_longest_lists(ranked):
            for row, text, score in group:
                if text not in seen:
                    seen.add(text)
                    out.append((row, text, score))
        return out[:k] if len(ranked) == 1 else out[:k * len(ranked)]

    def _from_pool(self, terms, k):
        out = []
        for rowid, text, score in self.pool.search(terms, k):
            info = self.pool.info(rowid)
            if info is None:
                continue
            tokens, cands = info
            shown, offsets = detokenized(tokens)
            row = self._row((tokens, cands), {"document": {**POOL_DOCUMENT, "id": f"trecqa-pool/{rowid}"},
                                                "text": shown, "offsets": offsets, "paragraph": f"pool/{rowid}",
                                                "paragraph_rank": len(out)})
            out.append((row, text, score))
        return out

    def _from_collection(self, collection, terms, k):
        """The best ``k`` sentences of the collection's best paragraphs, each scored by the distinct question
        words it holds (:func:`_stems`; the paragraph's rank and the sentence's place break ties), with
        their candidates: stored when the collection is analysed, else analysed now."""
        hits = collection.index.search(terms, self.paragraphs)
        if not hits:
            return []
        stored = collection.analysis.rows([h[0] for h in hits]) if collection.analysis is not None else {}
        q = _stems(w for t in terms for w in _WORD.findall(" ".join(t) if isinstance(t, tuple) else t))
        scored = []
        for rank, (rowid, para, doc_row, _score) in enumerate(hits):
            if rowid in stored:
                spans, cands = stored_sentences(stored[rowid])
            else:
                spans, cands = sentence_spans(para), None
            for j, (a, b) in enumerate(spans):
                sent = para[a:b]
                have = q & _stems(_WORD.findall(sent))
                if not have:
                    continue
                scored.append((len(have) + 1 / math.log(2 + rank) - 0.01 * j, sent, doc_row,
                               cands[j] if cands is not None else None, rowid, rank))
        scored.sort(key=lambda x: -x[0])
        best = scored[:k]
        fresh = iter(analysed([s for _, s, _, c, _, _ in best if c is None]))
        out = []
        for sc, sent, doc_row, cands, rowid, rank in best:
            sentence = sentence_of(sent, cands if cands is not None else next(fresh))
            doc = collection.index.document(doc_row)
            row = self._row((sentence.tokens, sentence.candidates),
                            {"document": {**doc, "collection": collection.name}, "text": sent,
                             "offsets": sentence.offsets, "paragraph": f"{collection.name}/{rowid}",
                             "paragraph_rank": rank})
            out.append((row, sent, sc))
        return out

    def info(self, row: int):
        return self._info.get(row)

    def provenance(self, row: int) -> dict | None:
        return self._prov.get(row)


def zip_longest_lists(lists):
    """[[a0, b0], [a1, b1], ...] of lists of unequal length."""
    for i in range(max((len(x) for x in lists), default=0)):
        yield [x[i] for x in lists if i < len(x)]


