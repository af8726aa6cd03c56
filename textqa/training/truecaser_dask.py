"""The truecaser's counting as a Dask map-reduce (``textqa train truecaser --scheduler ...``).

The client streams the training files (never whole) in partitions of paragraphs; on the workers
each partition is tokenized (Punkt + Treebank, as ``corpus.tokenize_lines``), cleaned of the
sentences that also occur in the dev set, and kept in the cluster's memory (Dask spills it to disk
when a worker runs short).  Two passes over those partitions, each a map and a tree reduction:

1. cased-word counts, merged in partition order, so that the words keep the order of their first
   occurrence in the corpus: the LM vocabulary (``LMVocabulary``) numbers them as one process does;
2. n-gram counts over the LM ids, of every order up to the LM's (``OrderCounts``: unigram counts,
   then each order's sorted unique keys with their counts), summed pairwise (``OrderCounts.merge``);
3. the cased-phrase table (``phrases``): runs of capitalised tokens counted and summed, then every
   casing of the frequent runs' lowercased forms, the same two counts one process makes;
4. for the class LM (``classes``), over each partition's LM ids, which the n-gram pass leaves on the
   workers: the words' counts, the commonest words' neighbour counts (the client clusters them)
   and the class sequence's n-gram counts (:class:`ClusterText`).

The reduced counts go to ``Truecaser.fit_counts``, which estimates the Kneser-Ney LM exactly as a
local run does: the ARPA file is the same, byte for byte, and so are the classes and the class LM.
What must fit one machine is the reduced counts (distinct n-grams, 16 bytes each), the cased-word
table and the neighbour matrix (30,000 rows by default), not the corpus.
"""
from __future__ import annotations

import operator
from pathlib import Path

import numpy as np

from textqa.models.truecaser import classes, context_samples
from textqa.models.truecaser import lm as lmmod
from textqa.models.truecaser import phrase_counts as phmod
from textqa.models.truecaser.baseline import as_tokens
from textqa.models.truecaser.casing import fold_accents
from textqa.models.truecaser.phrases import PhraseTable
from textqa.models.truecaser.vocabulary import BOS_ID, EOS_ID, LMVocabulary

from .corpus import HeldoutOverlap, open_text, paragraphs, tokenize_paragraph

_TOKENIZERS: dict = {}          # per worker process: punkt folder -> PTBTokenizer


def tokenize_partition(lines: list[str], punkt_dir: str | None, overlap: HeldoutOverlap | None,
                       fold: bool = False) -> tuple[list[str], int]:
    """(sentences (space-separated PTB tokens) of a partition of paragraphs, without the paragraphs
    that repeat dev text (``overlap``, as ``corpus.drop_heldout_paragraphs``); how many sentences
    were dropped).  ``punkt_dir`` None: the lines are tokenized sentences already, each its own
    paragraph.  ``fold``: without their diacritics (``Truecaser.fold_accents``)."""
    if punkt_dir is None:
        paras = [[line.strip()] for line in lines if line.strip()]
    else:
        if punkt_dir not in _TOKENIZERS:
            from textqa.models.truecaser.tokenize import PTBTokenizer  # deferred: loads nltk
            _TOKENIZERS[punkt_dir] = PTBTokenizer(punkt_dir)
        tok = _TOKENIZERS[punkt_dir]
        paras = [p for p in (tokenize_paragraph(tok, line) for line in lines) if p]
    sents, dropped = overlap.drop(paras) if overlap is not None else ([s for p in paras for s in p], 0)
    return (list(map(fold_accents, sents)) if fold else sents), dropped


def word_counts(part: tuple[list[str], int]) -> tuple[dict, int, int]:
    """(cased-word counts in first-occurrence order, sentences, sentences dropped as dev overlap)."""
    sents, dropped = part
    counts: dict[str, int] = {}
    n = 0
    for s in sents:
        toks = as_tokens(s)
        if toks:
            n += 1
            for t in toks:
                counts[t] = counts.get(t, 0) + 1
    return counts, n, dropped


def merge_word_counts(a: tuple, b: tuple) -> tuple:
    """Counts of two consecutive stretches of the corpus: ``a``'s words first, in its order, then
    ``b``'s new ones (associative, so any tree of merges in partition order gives the same dict)."""
    counts = dict(a[0])
    for w, c in b[0].items():
        counts[w] = counts.get(w, 0) + c
    return counts, a[1] + b[1], a[2] + b[2]


def packed_ids(part: tuple[list[str], int], vocab: LMVocabulary) -> np.ndarray:
    """A partition's sentences as LM ids, packed (``<s> w1 .. wn </s> <s> ...``:
    :func:`.lm.pack_sentences`), as one process packs the whole corpus."""
    sents, _ = part
    cache: dict[str, int] = {}
    ids = []
    for s in sents:
        toks = as_tokens(s)
        if toks:
            row = []
            for t in toks:
                i = cache.get(t)
                if i is None:
                    i = cache[t] = vocab.id_of(t)
                row.append(i)
            ids.append(np.asarray(row, dtype=np.int64))
    return lmmod.pack_sentences(ids, BOS_ID, EOS_ID)


def ngram_counts(packed: np.ndarray, V: int, order: int) -> lmmod.OrderCounts:
    """The counts of every n-gram of order 1..``order`` in a partition's packed LM ids
    (``OrderCounts``: no n-gram crosses a sentence boundary, so partitions' counts add up to the
    corpus's)."""
    return lmmod.OrderCounts.from_packed(packed, V, BOS_ID, EOS_ID, order)


class ClusterText:
    """The training text as the class LM reads it (:class:`.classes.PackedText`'s three methods),
    kept on the cluster as each partition's packed LM ids: each method maps over the partitions and
    sums their results in a tree of merges.  The sums are of integers, so the classes and the class
    LM are one process's."""

    def __init__(self, client, packed: list, say):
        self.client, self.packed, self.say = client, packed, say

    def _sum(self, method: str, merge, *args):
        """``merge`` over the partitions of ``PackedText(partition's ids).method(*args)``; an array
        among ``args`` is sent once to each worker."""
        if not self.packed:
            raise RuntimeError("the partitions' LM ids are gone: count the n-grams with the class LM asked for")
        args = [self.client.scatter([a], broadcast=True)[0] if isinstance(a, np.ndarray) else a for a in args]
        return _tree_reduce(self.client, merge, [self.client.submit(_on_partition, p, method, *args, pure=False)
                                                 for p in self.packed]).result()

    def totals(self, V: int) -> np.ndarray:
        return self._sum("totals", operator.add, V)

    def neighbours(self, rank, targets: int, contexts: int, bos: int, eos: int):
        self.say(f"counting the {targets:,} commonest words' neighbours on the cluster ({len(self.packed)} partitions)")
        m = self._sum("neighbours", operator.add, rank, targets, contexts, bos, eos)
        m.sum_duplicates()
        m.sort_indices()
        return m

    def class_counts(self, of, n_classes: int, bos: int, eos: int, order: int) -> lmmod.OrderCounts:
        self.say(f"counting class {order}-grams on the cluster ({len(self.packed)} partitions)")
        return self._sum("class_counts", lmmod.OrderCounts.merge, of, n_classes, bos, eos, order)


def _on_partition(packed: np.ndarray, method: str, *args):
    """One partition's share of a :class:`ClusterText` method: the local text's own method."""
    return getattr(classes.PackedText(packed), method)(*args)


def _run_counts(part):
    return phmod.run_counts(part[0])


def _variant_counts(part, keys):
    return phmod.variant_counts(part[0], keys)


def _tree_reduce(client, merge, futures):
    """Pairwise merges of neighbours, level by level (order kept): log2(n) rounds on the cluster."""
    while len(futures) > 1:
        nxt = [client.submit(merge, futures[i], futures[i + 1], pure=False) for i in range(0, len(futures) - 1, 2)]
        if len(futures) % 2:
            nxt.append(futures[-1])
        futures = nxt
    return futures[0]


def _lines(path):
    with open_text(path) as f:
        for line in f:
            yield line.rstrip("\n")


def _partitions(paths, pretokenized: bool, size: int):
    """Consecutive partitions of ``size`` paragraphs (or tokenized lines), streamed."""
    buf = []
    for p in paths:
        for line in (_lines(p) if pretokenized else paragraphs(p)):
            buf.append(line)
            if len(buf) == size:
                yield buf
                buf = []
    if buf:
        yield buf


def _context_counts(part, targets):
    return context_samples.occurrences(part[0], targets)


def _context_samples(part, targets, cap, stop):
    X, words, labels, vocab = context_samples.collect(part[0], targets, cap, stop=stop)
    return X, words, labels, list(vocab)


def _tokenized_partitions(client, paths: list[Path], punkt_dir, dev: list[str], pretokenized: bool, size: int,
                          fold: bool, say) -> list:
    """The futures of the training text's partitions of ``size`` lines, tokenized on the cluster
    without the paragraphs that repeat ``dev`` text (as ``corpus.drop_heldout_paragraphs``)."""
    [overlap_f] = client.scatter([HeldoutOverlap(dev)], broadcast=True)
    punkt = None if pretokenized else str(punkt_dir)
    parts = []
    for i, lines in enumerate(_partitions(paths, pretokenized, size), start=1):
        parts.append(client.submit(tokenize_partition, lines, punkt, overlap_f, fold, pure=False))
        if i % 20 == 0:
            say(f"sent {i} partitions of {size:,} lines to the cluster")
    if not parts:
        raise SystemExit("error: no training text in " + ", ".join(map(str, paths)))
    return parts


def count_on_cluster(client, paths: list[Path], punkt_dir, dev: list[str], pretokenized: bool, size: int,
                     min_count: int, say, order: int = 3, class_lm: bool = False, fold: bool = False,
                     context: bool = False):
    """(vocabulary, a callable giving the n-gram counts, a callable giving the phrase table, training
    sentences, sentences dropped as dev overlap, the text for the class LM: a :class:`ClusterText`,
    or None without ``class_lm``, a callable giving the sentence-context samples or None without
    ``context``) for ``Truecaser.fit_counts`` and ``Truecaser.fit_context``.  With ``context`` the
    tokenized partitions stay on the workers until those samples are collected (then freed).  The phrase table is counted before
    the n-grams (which free the tokenized corpus on the workers); the n-gram count leaves each
    partition's LM ids on the workers for the class LM.  ``fold``: count the text without its
    diacritics, as ``Truecaser.fit`` does with ``fold_accents``."""
    from distributed import wait  # deferred: loads distributed, dask
    parts = _tokenized_partitions(client, paths, punkt_dir, dev, pretokenized, size, fold, say)
    say(f"{len(parts)} partitions: tokenizing and counting words on the cluster")
    counts, n_sentences, dropped = _tree_reduce(client, merge_word_counts,
                                       [client.submit(word_counts, p, pure=False) for p in parts]).result()
    if not n_sentences:
        raise SystemExit("error: no training sentences in " + ", ".join(map(str, paths)))
    vocab = LMVocabulary.build(counts, min_count)
    del counts
    packed: list = []                       # each partition's LM ids, filled by count_ngrams

    def count_ngrams(say):
        # sent once to each worker, with its word index built once (not per partition); the rare
        # forms are not needed there (they map to their class's UNKNOWN token)
        [vocab_f] = client.scatter([LMVocabulary(vocab.words, vocab.known, {})], broadcast=True)
        say(f"counting n-grams on the cluster ({len(parts)} partitions, tree reduction)")
        packed[:] = [client.submit(packed_ids, p, vocab_f, pure=False) for p in parts]
        total = _tree_reduce(client, lmmod.OrderCounts.merge,
                             [client.submit(ngram_counts, p, vocab.V, order, pure=False) for p in packed])
        wait(total)
        result = total.result()
        if not context:
            parts.clear()                   # the tokenized corpus is no longer needed on the workers
        if not class_lm:
            packed.clear()
        return result

    def count_phrases(min_count, say):
        if not parts:
            raise RuntimeError("count the phrases before the n-grams (which free the partitions)")
        say(f"counting cased phrases on the cluster ({len(parts)} partitions)")
        runs = _tree_reduce(client, phmod.merge_counts, [client.submit(_run_counts, p, pure=False) for p in parts])
        [keys_f] = client.scatter([phmod.phrase_keys(runs.result(), min_count)], broadcast=True)
        del runs
        variants = _tree_reduce(client, phmod.merge_counts,
                                [client.submit(_variant_counts, p, keys_f, pure=False) for p in parts])
        return PhraseTable.from_variants(variants.result())

    def collect_context(targets, cap, stop):
        # the first ``cap`` samples of each word and casing: each partition's occurrences counted first,
        # then each takes its share in corpus order (so no more than ``cap`` reach the client), merged
        say(f"collecting the sentence-context samples on the cluster ({len(parts)} partitions)")
        [targets_f] = client.scatter([targets], broadcast=True)
        counts = client.gather([client.submit(_context_counts, p, targets_f, pure=False) for p in parts])
        got = client.gather([client.submit(_context_samples, p, targets_f, q, stop, pure=False)
                             for p, q in zip(parts, context_samples.quotas(counts, cap))])
        parts.clear()
        return context_samples.merge_samples(got)
    return (vocab, count_ngrams, count_phrases, n_sentences, dropped,
            ClusterText(client, packed, say) if class_lm else None, collect_context if context else None)
