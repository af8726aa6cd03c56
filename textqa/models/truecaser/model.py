"""The language-model truecaser of Lita et al. 2003 and its unigram baseline.

``Truecaser`` follows scikit-learn's estimator contract: hyper-parameters are
constructor arguments, ``fit(sentences)`` learns the attributes ending in ``_``,
``predict(sentences)`` returns the truecased sentences.  Sentences are lists of
tokens or whitespace-tokenized strings (Penn-Treebank style); output has the same
tokens with only their case changed.
"""
from __future__ import annotations

import gzip
import io
import logging
import math
import shutil
import tempfile
import threading
from collections import Counter, defaultdict
from bisect import bisect_right
from functools import partial
from itertools import accumulate, chain
from operator import getitem, itemgetter
from pathlib import Path
from types import SimpleNamespace

import kenlm
import numpy as np
from sklearn.base import BaseEstimator

from textqa.runtime import process_pool
from textqa.runtime.gc_pause import gc_paused, promote_to_oldest_generation as _promote_to_oldest_generation
from . import lm as lmmod
from .classes import CLASS_ORDER, TARGETS, PackedText, WordClasses
from .casing import (CASE_CLASSES, NONE, UNKNOWN_TOKENS, Indexed, apply_class, capitalize_first, case_class,
                     fold_accents, group_by_lowercase, restore_accents)
from .context import DEFAULT_C, DEFAULT_MIN_WEIGHT, DEFAULT_STOP, SentenceContext, fit_context, ranges, target_words
from .compounds import SEPARATORS, compound_form, count_parts, parts_from_data
from .oov import CAPITALISED, CharCasingClassifier
from .phrases import PhraseTable
from .rerank import FEATURE_SETS, CandidateWeights, held_out, train_weights
from .tokenize import split_at_sentence_final

log = logging.getLogger(__name__)

UNKNOWN_NONE = "UNKNOWN_NONE"          # rare tokens with no cased letter (long numbers, symbols)
FIRST_WORD_OPTIONS = ("lm", "lm+upper", "mask", "mask+upper")
SMOOTHING_OPTIONS = ("kneser_ney", "deleted_interpolation")
ORDERS = (2, 3, 4, 5)
#: Count pruning of a Kneser-Ney LM by default (``lmplz --prune 0 0 1``): n-grams of order 3 and up
#: seen once are dropped.  Measured on the default model: LM 67 MB instead of 123, dev F1 92.51
#: against 92.52, WSJ 93.62 against 93.44, Reuters test 93.89 against 93.87 (docs/truecaser.md, "Pruning").
DEFAULT_PRUNE = (0, 0, 1)
#: The OOV model's weight in the search.  Measured on the default of 2026-11-28 (with the sentence
#: context model): dev F1 93.11 / 93.15 / 93.16 / 93.17 / 93.16 / 93.13 at 1 / 1.25 / 1.5 / 2 / 2.5 / 3,
#: a plateau whose middle is kept; WSJ F1 94.59 -> 94.84 and the Reuters test split's 94.42 -> 94.45
#: at 2, neither used to choose (docs/truecaser.md, "The OOV model's weight, again").
DEFAULT_OOV_WEIGHT = 2.0

_rows_lock = threading.Lock()


def as_tokens(sentence) -> list[str]:
    return sentence.split() if isinstance(sentence, str) else list(sentence)


#: Training words of the OOV model up to which it is fitted in this process: a small model's fit
#: takes a second or two, less than starting the worker processes (importing scikit-learn in each).
_OOV_IN_PROCESS = 50_000


def oov_training_words(known_counts: dict, rare_counts: dict, min_count: int) -> tuple[list, list, list]:
    """(lowercased words, casing classes, counts) the OOV model learns from: the forms seen too
    rarely to be in the LM's vocabulary, and the near-rare known ones (they look like the words that
    will be unseen); forms without a cased letter are left out."""
    words, classes, weights = [], [], []
    for counts, rare in ((rare_counts, True), (known_counts, False)):
        for w, c in counts.items():
            if rare or c <= 2 * min_count:
                cls = case_class(w)
                if cls != NONE:
                    words.append(w.lower())
                    classes.append(cls)
                    weights.append(c)
    return words, classes, weights


def capitalize_first_word(tokens: list[str]) -> list[str]:
    """Paper section 2.5 / table 1's "+" rule: uppercase the first letter of the first cased token."""
    tokens = list(tokens)
    capitalize_first_word_in(tokens, 0, len(tokens))
    return tokens


def capitalize_first_word_in(tokens: list[str], start: int, end: int) -> None:
    """:func:`capitalize_first_word` on ``tokens[start:end]``, in place."""
    for i in range(start, end):
        tok = tokens[i]
        cls = case_class(tok)
        if cls != NONE:
            if tok[:1].islower() or cls == "LC":
                tokens[i] = capitalize_first(tok)
            break


def add_emissions(extra: dict, pos: int, scores: list) -> None:
    """Add ``scores`` (one per candidate) to the added emission scores of token ``pos`` in ``extra``
    ({token index: each candidate's added score}, as :meth:`Truecaser._extra_scores` returns)."""
    extra[pos] = [a + b for a, b in zip(extra[pos], scores)] if pos in extra else scores


class CasingTable:
    """For each lowercased word, its cased forms seen in training with their counts."""

    def __init__(self, forms: dict[str, list]):
        # each value: (form, count) pairs, most frequent first; tuples when counted, two-element lists
        # when read from an artifact (not converted: that would add half a second to loading)
        self.forms = forms

    @classmethod
    def from_counts(cls, counts: dict[str, int]) -> "CasingTable":
        return cls(group_by_lowercase(counts))

    def most_frequent(self, key: str) -> str | None:
        forms = self.forms.get(key)
        return forms[0][0] if forms else None


class UnigramTruecaser(BaseEstimator):
    """Baseline of paper section 2.1: each token takes its most frequent training casing.

    Unseen words stay as given (lowercase); the first word is capitalised (the
    paper's "truecasing+" rule of table 1) when ``capitalize_first`` is true.
    """

    def __init__(self, capitalize_first: bool = True):
        self.capitalize_first = capitalize_first

    def fit(self, sentences, y=None):
        counts = Counter()
        for s in sentences:
            counts.update(as_tokens(s))
        self.fit_counts(counts)
        return self

    def __getattr__(self, name):
        # A loaded artifact reads its baseline table (568,000 words, a third of a second) on first
        # use, not at load: only ``--baseline`` needs it (``load_truecaser`` sets the reader).
        reader = self.__dict__.get("_best_reader")
        if name == "best_" and reader is not None:
            self.best_ = reader()
            del self.__dict__["_best_reader"]
            return self.best_
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def fit_counts(self, counts: dict[str, int]):
        table = CasingTable.from_counts(counts)
        self.best_ = {k: v[0][0] for k, v in table.forms.items()}
        return self

    def predict_tokens(self, tokens: list[str]) -> list[str]:
        out = []
        for tok in tokens:
            best = self.best_.get(tok.lower())
            if best is None and not tok.isascii():      # a table learned from folded text (``fold_accents``)
                best = self.best_.get(fold_accents(tok.lower()))
                best = best and restore_accents(tok, best)
            if best is not None and len(best) == len(tok):
                out.append(best)
            else:                       # unseen words stay lowercase
                out.append(tok.lower())
        return capitalize_first_word(out) if self.capitalize_first else out

    def predict(self, sentences):
        res = []
        for s in sentences:
            toks = self.predict_tokens(as_tokens(s))
            res.append(" ".join(toks) if isinstance(s, str) else toks)
        return res


BOS_ID, EOS_ID, UNK_ID = 0, 1, 2
#: The settings (``set_params``) of the paper's trigram decoder: no phrase scores, unseen compounds
#: capitalised at the first letter only, no discriminative pass, no class LM, no sentence-context model
#: (``textqa truecase --decoder trigram``).
TRIGRAM_DECODER = {"phrase_weight": 0.0, "compound_casing": False, "discriminative": "none", "class_lm_weight": 0.0,
                   "context_weight": 0.0}
#: ``Truecaser._viterbi``'s default: score the sentence's own phrases (None means no phrase scores).
_OWN_PHRASES = object()
LM_SPECIALS = [lmmod.BOS, lmmod.EOS, lmmod.UNK, UNKNOWN_NONE] + [UNKNOWN_TOKENS[c] for c in CASE_CLASSES]


class CandidateRows:
    """The C++ search's per-candidate inputs of every token in a decoder's cache (``cache``), one
    row of consecutive entries per token: KenLM ids, class-LM ids and log10 P(w | c), in growing
    flat arrays, and the token's code in the sentence-context model (``code``, -1: none), so that a
    batch's inputs are numpy gathers, not per-token Python lists.  A row is
    seen only once :meth:`add` has returned (its index is then put in the cache), and the lock keeps
    two threads of a server from taking the same row."""

    def __init__(self, cache: dict):
        self.cache, self.n_rows, self.size, self.lock = cache, 0, 0, threading.Lock()
        self.start, self.count = np.zeros(1024, dtype=np.int64), np.zeros(1024, dtype=np.int64)
        self.code = np.full(1024, -1, dtype=np.int64)
        self.ids, self.cids = np.zeros(4096, dtype=np.uint32), np.zeros(4096, dtype=np.uint32)
        self.cem = np.zeros(4096)

    def __getstate__(self):                     # pickled with its model, less the lock
        return {k: v for k, v in self.__dict__.items() if k != "lock"}

    def __setstate__(self, state):
        self.__dict__.update(state, lock=threading.Lock())

    def add(self, ids: list, cids: list, cem: list, code: int = -1) -> int:
        """Append one token's row; its index."""
        with self.lock:
            return self._add(ids, cids, cem, code)

    def _add(self, ids: list, cids: list, cem: list, code: int = -1) -> int:
        k, r = len(ids), self.n_rows
        if r == len(self.start):
            self.start, self.count, self.code = (np.resize(a, 2 * len(a)) for a in (self.start, self.count, self.code))
        if self.size + k > len(self.ids):
            cap = 2 * (self.size + k)
            self.ids, self.cids, self.cem = (np.resize(a, cap) for a in (self.ids, self.cids, self.cem))
        self.start[r], self.count[r], self.code[r] = self.size, k, code
        self.ids[self.size:self.size + k], self.cids[self.size:self.size + k] = ids, cids
        self.cem[self.size:self.size + k] = cem
        self.n_rows, self.size = r + 1, self.size + k
        return r


class LMVocabulary:
    """The LM's vocabulary (section 2.3): the special tokens, then every cased form seen at least
    ``min_count`` times, in the order of the counts given (first occurrence in the corpus, so that a
    Dask map-reduce that merges its partitions' counts in order numbers them as one process does);
    rarer forms become the UNKNOWN_<class> token of their case class."""

    def __init__(self, words: list[str], known: dict[str, int], rare: dict[str, int]):
        self.words, self.known, self.rare = words, known, rare
        self.index = {w: i for i, w in enumerate(words)}
        self.n_tokens = sum(known.values()) + sum(rare.values())

    @property
    def V(self) -> int:
        return len(self.words)

    @classmethod
    def build(cls, counts: dict[str, int], min_count: int) -> "LMVocabulary":
        words, taken = list(LM_SPECIALS), set(LM_SPECIALS)
        known, rare = {}, {}
        for w, c in counts.items():
            if c >= min_count and w not in taken:
                words.append(w)
                taken.add(w)
                known[w] = c
            else:
                rare[w] = c
        return cls(words, known, rare)

    def id_of(self, w: str) -> int:
        """LM id of a cased token: its own, or its case class's UNKNOWN token (a literal "<s>" in
        the text is rare-or-special, hence UNKNOWN too, never the sentence start)."""
        if w in self.known:
            return self.index[w]
        c = case_class(w)
        return self.index[UNKNOWN_NONE if c == NONE else UNKNOWN_TOKENS[c]]


class Truecaser(BaseEstimator):
    """Trigram-LM truecaser with sentence-level Viterbi decoding (Lita et al. 2003, section 2.2).

    Parameters
    ----------
    min_count : cased forms seen fewer times become UNKNOWN_LC/UC/CA/MC tokens (section 2.3).
    n_casings : only the n most frequent casings of a word are candidates (section 2.4).
    smoothing : "kneser_ney" (default, best on dev) or "deleted_interpolation" (paper eq. 1).
    order : the LM's order, 3 (the paper's trigram, default) or 2, 4, 5 (Kneser-Ney only; the
        search stays exact, recombining on KenLM's state).  Order 5 gained 0.06 dev F1 with the
        default decoder and pruning, for a 1.5x larger LM (0.11 unpruned, 4.3x; docs/truecaser.md).
    prune : count-pruning thresholds per order, unigrams first, as KenLM's ``lmplz --prune`` (the last
        repeats for higher orders): an n-gram of order k seen no more than ``prune[k-1]`` times is
        dropped from the LM and its mass goes to the back-off (:func:`.lm.estimate_kneser_ney`).
        Kneser-Ney only.  None (default): ``DEFAULT_PRUNE`` (n-grams of order 3 and up seen once:
        the LM halves at the same dev F1 and gains on news, docs/truecaser.md) with Kneser-Ney, none with
        deleted interpolation; ``(0,)`` or ``()``: no pruning.
    first_word : section 2.5 options: "lm" (decode from <s>), "mask" (decode from a null
        context, masking the sentence-begin effect), each optionally followed by "+upper"
        (uppercase the first letter afterwards, table 1's "truecasing+").
    split_sentences : decode a tokenized line sentence by sentence (split after . ? !).
    oov_model : "char" adds the character-level casing classifier for unseen words, "none" not.
    oov_weight : weight of the classifier's log-ratio against the LM score (:data:`DEFAULT_OOV_WEIGHT`).
    heldout_every : every k-th training sentence is held out to fit the interpolation lambdas.
    min_casing_share : drop candidate casings seen in less than this share of a word's
        occurrences (0 keeps all n; pruning trades a little accuracy for speed).
    lm_binary : KenLM binary layout (``lm.BINARY_FORMATS``): "trie-q8" (default, a quarter of the
        probing hash's size), "trie" or "probing".
    phrase_weight : weight of the cased-phrase score (:mod:`.phrases`, beyond the paper) against the
        LM's; 0 decodes with the paper's trigram LM alone (the table is then not built).  It may be
        changed on a fitted model (``set_params``) as long as the table was built.
    phrase_min_count : cased phrases seen fewer times are not in the phrase table.
    compound_casing : an unseen compound the search capitalises is cased part by part
        (:mod:`.compounds`, beyond the paper: "Saint-Laurent-des-Combes", not "Saint-laurent-des-combes"),
        and the search scores that form by the OOV model's evidence for UC or MC
        (:data:`.oov.CAPITALISED`); False renders it as the paper's UC class, scored as UC.  The part
        table is always built.
    discriminative : "none" (default) or a feature set of :mod:`.rerank` ("local", "lexical",
        "context"): a discriminative pass over the lattice, its weights learned by a perceptron on
        training text held out from the LM (one block in 40); the LM is then trained without that
        text.  Off by default: it lowered dev F1 (docs/truecaser.md).  "none" on a fitted model decodes without it.
    class_lm : number of word classes of a class-based LM beside the word LM (:mod:`.classes`,
        Brown et al. 1992 eq. 3; beyond the paper); 0 (the estimator's default): none;
        ``textqa train truecaser`` trains the default model with :data:`.classes.DEFAULT_CLASSES`
        (600).  Counted from the training sentences, or on a Dask cluster (``fit_counts``'s
        ``class_text``); the C++ and the Python search both handle it.
    class_lm_weight : weight of the class LM's score against the word LM's (0 on a fitted model:
        decode without it).
    class_lm_order : order of the class LM (default :data:`.classes.CLASS_ORDER`, 3).
    class_lm_words : how many of the most frequent LM tokens are clustered (default
        :data:`.classes.TARGETS`); every rarer one is in its case class's class.
    class_lm_binary : KenLM binary layout of the class LM (``lm.BINARY_FORMATS``): "probing"
        (default: the hash, 45 MB at order 3 with 600 classes and faster to ask than a trie; at
        order 4 the class LM has 7.4 M n-grams, so "trie-q8" keeps it at 23 MB).
    fold_accents : learn from the training text with its diacritics removed (:func:`.casing.fold_accents`:
        "São" counts as "Sao") and decode each input token by its folded form, giving back the
        token's own letters in the decided casing.  The benchmark's text is folded like this, so
        this pools the evidence of both spellings; False (the estimator's default, and every
        artifact trained before it existed) keeps them apart.  ``textqa train truecaser`` folds
        unless given ``--no-fold-accents``.  A property of the trained model, not a decoding option.
    context_cap : the sentence's words (:mod:`.context`, beyond the paper): one logistic regression per
        ambiguous known word over the other words of its sentence, trained on the first ``context_cap``
        training occurrences of each of its casings; 0 (the estimator's default): none.
        ``textqa train truecaser`` trains the default model with :data:`.context.DEFAULT_CAP`.
    context_weight : weight W of its score, W * (log10 P(casing | sentence words) - log10 P(casing)),
        against the LM's (0 on a fitted model: decode without it).
    context_C : the logistic regressions' inverse L2 strength.
    context_min_weight : weights smaller than this in absolute value are not stored (the artifact's size).
    """

    def __init__(self, min_count: int = 2, n_casings: int = 4, smoothing: str = "kneser_ney",
                 first_word: str = "lm+upper", split_sentences: bool = True,
                 oov_model: str = "char", oov_weight: float = DEFAULT_OOV_WEIGHT, heldout_every: int = 50,
                 min_casing_share: float = 0.005, work_dir: str | None = None, lm_binary: str = "trie-q8",
                 phrase_weight: float = 0.5, phrase_min_count: int = 2, compound_casing: bool = True,
                 order: int = 3, discriminative: str = "none", prune: tuple | None = None,
                 class_lm: int = 0, class_lm_weight: float = 0.25,
                 class_lm_order: int = CLASS_ORDER, class_lm_binary: str = "probing",
                 class_lm_words: int = TARGETS, fold_accents: bool = False, context_cap: int = 0,
                 context_weight: float = 0.5, context_C: float = DEFAULT_C,
                 context_min_weight: float = DEFAULT_MIN_WEIGHT):
        self.min_count = min_count
        self.n_casings = n_casings
        self.smoothing = smoothing
        self.first_word = first_word
        self.split_sentences = split_sentences
        self.oov_model = oov_model
        self.oov_weight = oov_weight
        self.heldout_every = heldout_every
        self.min_casing_share = min_casing_share
        self.lm_binary = lm_binary
        self.work_dir = work_dir
        self.phrase_weight = phrase_weight
        self.phrase_min_count = phrase_min_count
        self.compound_casing = compound_casing
        self.order = order
        self.discriminative = discriminative
        self.prune = prune
        self.class_lm = class_lm
        self.class_lm_weight = class_lm_weight
        self.class_lm_order = class_lm_order
        self.class_lm_binary = class_lm_binary
        self.class_lm_words = class_lm_words
        self.fold_accents = fold_accents
        self.context_cap = context_cap
        self.context_weight = context_weight
        self.context_C = context_C
        self.context_min_weight = context_min_weight

    # ------------------------------------------------------------------ training
    def _prune(self) -> tuple:
        """The count-pruning thresholds trained with (``prune``, or its default for the smoothing)."""
        if self.prune is None:
            return DEFAULT_PRUNE if self.smoothing == "kneser_ney" else ()
        return tuple(self.prune)

    def _check_params(self):
        if self.first_word not in FIRST_WORD_OPTIONS:
            raise ValueError(f"first_word must be one of {FIRST_WORD_OPTIONS}, got {self.first_word!r}")
        if self.smoothing not in SMOOTHING_OPTIONS:
            raise ValueError(f"smoothing must be one of {SMOOTHING_OPTIONS}, got {self.smoothing!r}")
        if self.oov_model not in ("char", "none"):
            raise ValueError(f"oov_model must be 'char' or 'none', got {self.oov_model!r}")
        for name in ("lm_binary", "class_lm_binary"):
            if getattr(self, name) not in lmmod.BINARY_FORMATS:
                raise ValueError(f"{name} must be one of {tuple(lmmod.BINARY_FORMATS)}, got {getattr(self, name)!r}")
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}, got {self.order!r}")
        if self.order != 3 and self.smoothing == "deleted_interpolation":
            raise ValueError("deleted interpolation (paper eq. 1) is a trigram model: use order 3 or kneser_ney")
        if any(lmmod.prune_thresholds(self._prune(), self.order)) and self.smoothing != "kneser_ney":
            raise ValueError("count pruning (prune) is implemented for kneser_ney smoothing only")
        if self.discriminative not in ("none", *FEATURE_SETS):
            raise ValueError(f"discriminative must be 'none' or one of {tuple(FEATURE_SETS)}, got {self.discriminative!r}")
        if self.min_count < 1 or self.n_casings < 1:
            raise ValueError("min_count and n_casings must be >= 1")
        if not isinstance(self.class_lm, int) or self.class_lm < 0:
            raise ValueError(f"class_lm must be a whole number of classes >= 0, got {self.class_lm!r}")
        if not (self.class_lm_weight >= 0 and math.isfinite(self.class_lm_weight)):
            raise ValueError("class_lm_weight must be a finite number >= 0")
        if not isinstance(self.class_lm_words, int) or self.class_lm_words < 1:
            raise ValueError(f"class_lm_words must be a whole number >= 1, got {self.class_lm_words!r}")
        if self.class_lm_order not in ORDERS:
            raise ValueError(f"class_lm_order must be one of {ORDERS}, got {self.class_lm_order!r}")
        if self.class_lm and self.discriminative != "none":
            raise ValueError("the class LM and the discriminative pass cannot be combined")
        if not isinstance(self.context_cap, int) or self.context_cap < 0:
            raise ValueError(f"context_cap must be a whole number >= 0, got {self.context_cap!r}")
        for name in ("context_weight", "context_min_weight", "oov_weight"):
            if not (getattr(self, name) >= 0 and math.isfinite(getattr(self, name))):
                raise ValueError(f"{name} must be a finite number >= 0")
        if not (self.context_C > 0 and math.isfinite(self.context_C)):
            raise ValueError("context_C must be a finite number > 0")
        if not (self.phrase_weight >= 0 and math.isfinite(self.phrase_weight)) or self.phrase_min_count < 1:
            raise ValueError("phrase_weight must be a finite number >= 0 and phrase_min_count >= 1")

    def fit(self, sentences, y=None, progress=None, arpa_copy=None):
        """Count, estimate and binarise the LM; learn the casing table and the OOV model.

        ``progress`` is an optional callable(str) told about each stage; ``arpa_copy`` a path where
        the ARPA file is kept (it is otherwise binarised and removed).
        """
        self._check_params()
        say = progress or (lambda msg: log.info(msg))
        if self.fold_accents:
            sentences = [fold_accents(s) if isinstance(s, str) else [fold_accents(t) for t in s] for s in sentences]
        elif not isinstance(sentences, list):
            sentences = list(sentences)             # read twice (the phrase table)
        held = None
        if self.discriminative != "none":
            mask = held_out(len(sentences))
            held = [as_tokens(s) for s, h in zip(sentences, mask) if h]
            sentences = [s for s, h in zip(sentences, mask) if not h]
            if not held:
                raise ValueError("too few training sentences to hold some out for the discriminative pass")
            say(f"holding {len(held):,} sentences out of the LM for the discriminative pass")
        say("indexing tokens")
        raw_ids: dict[str, int] = {}
        setdefault = raw_ids.setdefault
        seqs = []
        for s in sentences:
            toks = as_tokens(s)
            if toks:
                # int32 ids (fewer than 2**31 distinct tokens; np.fromiter refuses more): the corpus's ids
                # stay in memory until the sentence-context model is fitted
                seqs.append(np.fromiter((setdefault(t, len(raw_ids)) for t in toks), dtype=np.int32,
                                        count=len(toks)))
        if not seqs:
            raise ValueError("no training sentences")
        raw_words = list(raw_ids)
        del raw_ids
        # the training text as token ids, for the phrase table's and the sentence-context model's counting
        indexed = Indexed(np.concatenate(seqs), np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs)),
                          raw_words)
        phrases = None
        if self.phrase_weight > 0:
            say("counting cased phrases")
            phrases = PhraseTable.build(indexed, self.phrase_min_count)
        raw_counts = np.bincount(indexed.ids, minlength=len(raw_words))
        vocab = LMVocabulary.build(dict(zip(raw_words, raw_counts.tolist())), self.min_count)
        raw_to_lm = np.fromiter((vocab.id_of(w) for w in raw_words), dtype=np.int64, count=len(raw_words))
        mapped = [raw_to_lm[s] for s in seqs]
        del seqs

        def count(say):
            packed = lmmod.pack_sentences(mapped, BOS_ID, EOS_ID)
            if self.order == 3:
                return lmmod.NGramCounts.from_packed(packed, vocab.V, BOS_ID, EOS_ID)
            return lmmod.OrderCounts.from_packed(packed, vocab.V, BOS_ID, EOS_ID, self.order)
        self.fit_counts(vocab, count, n_sentences=len(mapped), progress=say, arpa_copy=arpa_copy,
                        sentence_ids=mapped, phrases=phrases, wait=held is not None)
        if held is not None:
            dec = self._native_decoder()
            if dec is None:
                raise RuntimeError("the discriminative pass trains with the C++ decoder, which is not built (run make)")
            say(f"training the discriminative pass ({self.discriminative} features) on the held-out sentences")
            self.reranker_ = train_weights(self, dec, held, self.discriminative, progress=say)
        if self.context_cap:
            self.fit_context(indexed, progress=say)
        del indexed
        self.finish_oov(say)
        return self

    def fit_context(self, sentences, progress=None, collect=None):
        """Fit the sentence-context model (:mod:`.context`; ``context_cap`` and ``context_C``) on
        ``sentences`` (token lists, whitespace-tokenized strings or :class:`.casing.Indexed`, folded
        as the model's training text) for the ambiguous words of the fitted casing table; or on the samples that
        ``collect(targets, cap, stop)`` gives (:func:`.context.collect`'s tuple: ``textqa train truecaser
        --scheduler`` collects them on the cluster)."""
        say = progress or (lambda msg: log.info(msg))
        forms = self.casing_.forms
        stop = set(sorted(forms, key=lambda w: -sum(c for _, c in forms[w]))[:DEFAULT_STOP])
        targets = {w: c for w, c in target_words(forms, self._candidate_forms).items() if w not in stop}
        say(f"training the sentence-context model: {len(targets):,} ambiguous words, {self.context_cap:,} "
            f"samples a casing at most")
        samples = collect(targets, self.context_cap, stop) if collect is not None else None
        self.context_ = fit_context(sentences, targets, cap=self.context_cap, C=self.context_C, stop=stop,
                                    min_weight=self.context_min_weight, progress=say, samples=samples)
        return self

    def fit_counts(self, vocab: "LMVocabulary", count_ngrams, n_sentences: int, progress=None, arpa_copy=None,
                   sentence_ids=None, phrases: "PhraseTable | None" = None, class_text=None, wait=True):
        """``fit`` from counts: the cased-word counts in ``vocab`` and ``count_ngrams(say)``, which
        returns the n-gram counts over the LM ids of ``vocab`` (``textqa train truecaser --scheduler``
        counts them as a Dask map-reduce; ``fit`` in this process): :class:`.lm.NGramCounts` (trigrams) or
        :class:`.lm.OrderCounts` of order ``order``.  Deleted interpolation needs the
        sentences themselves (``sentence_ids``, LM ids) for its held-out split.  ``phrases``: the
        cased-phrase table (:mod:`.phrases`; None: none, whatever ``phrase_weight`` says).
        ``class_text``: what the class LM reads the training text through (:class:`.classes.PackedText`
        or the Dask cluster's stand-in; None: ``sentence_ids``, packed).  A large OOV model is fitted
        in a worker process (:meth:`_start_oov`); ``wait=False`` returns without waiting for it
        (``fit``, and ``textqa train truecaser --scheduler``, then fit the sentence-context model
        meanwhile and call :meth:`finish_oov`)."""
        self._check_params()
        say = progress or (lambda msg: log.info(msg))
        if sentence_ids is None and (self.smoothing == "deleted_interpolation" or self.discriminative != "none"):
            raise ValueError("deleted interpolation and the discriminative pass need the training sentences, not "
                             "only their counts")
        if self.class_lm and sentence_ids is None and class_text is None:
            raise ValueError("the class LM needs the training sentences (sentence_ids) or class_text")
        self.n_train_tokens_ = vocab.n_tokens
        self.n_train_sentences_ = n_sentences
        self.phrases_ = phrases
        self.reranker_ = self.context_ = None
        if phrases is not None:
            say(f"{len(phrases):,} cased phrases seen >= {self.phrase_min_count} times")
        V, bos, eos, unk = vocab.V, BOS_ID, EOS_ID, UNK_ID
        known_counts, rare_counts = vocab.known, vocab.rare
        say(f"{self.n_train_tokens_:,} tokens, {len(known_counts) + len(rare_counts):,} cased types, "
            f"LM vocabulary {V:,}")
        say("counting n-grams")
        full = count_ngrams(say)
        self.ngram_counts_ = full.sizes()
        if len(self.ngram_counts_) != self.order:
            raise ValueError(f"the n-gram counts are of order {len(self.ngram_counts_)}, the model's is {self.order}")
        say(f"n-grams: {self.ngram_counts_}")
        if self.smoothing == "deleted_interpolation":
            mapped = sentence_ids
            k = max(2, self.heldout_every)
            train_part = lmmod.pack_sentences([s for i, s in enumerate(mapped) if i % k], bos, eos)
            held_part = lmmod.pack_sentences([s for i, s in enumerate(mapped) if i % k == 0], bos, eos)
            train_counts = lmmod.NGramCounts.from_packed(train_part, V, bos, eos)
            model = lmmod.estimate_deleted_interpolation(train_counts, held_part, full, bos, eos, unk)
            del train_counts, train_part, held_part
        else:
            model = lmmod.estimate_kneser_ney(full, bos, eos, unk, prune=self._prune())
            if "prune" in model.info:
                say(f"n-grams kept after pruning {' '.join(map(str, model.info['prune']))}: {model.info['kept']}")
        del full
        lm_words = vocab.words
        self.lm_info_ = model.info

        work = Path(self.work_dir or tempfile.mkdtemp(prefix="truecaser-"))
        work.mkdir(parents=True, exist_ok=True)
        arpa = work / "lm.arpa"
        say(f"writing ARPA ({len(model.keys[-1]):,} {self.order}-grams)")
        lmmod.write_arpa(model, lm_words, arpa)
        del model
        if arpa_copy:
            shutil.copyfile(arpa, arpa_copy)
        binary = work / "lm.binary"
        say("binarising for KenLM")
        if lmmod.binarize(arpa, binary, fmt=self.lm_binary):
            arpa.unlink()
            self.lm_path_ = str(binary)
        else:
            log.warning("KenLM build_binary not found: keeping the ARPA file (slower to load)")
            self.lm_path_ = str(arpa)
        self.lm_ = kenlm.Model(self.lm_path_)
        self.classes_ = self.class_lm_ = None
        if self.class_lm:
            say(f"clustering the LM's words into {self.class_lm} classes")
            if class_text is None:
                class_text = PackedText(lmmod.pack_sentences(sentence_ids, bos, eos))
            self.classes_ = WordClasses.build(class_text, lm_words, len(LM_SPECIALS), self.class_lm, bos, eos,
                                              targets=self.class_lm_words)
            say(f"estimating the class LM (order {self.class_lm_order})")
            class_model = self.classes_.estimate(class_text, bos, eos, unk, self.class_lm_order)
            del class_text
            class_arpa, class_binary = work / "class_lm.arpa", work / "class_lm.binary"
            lmmod.write_arpa(class_model, self.classes_.names, class_arpa)
            del class_model
            if lmmod.binarize(class_arpa, class_binary, fmt=self.class_lm_binary):
                class_arpa.unlink()
                self.class_lm_path_ = str(class_binary)
            else:
                self.class_lm_path_ = str(class_arpa)
            self.class_lm_ = kenlm.Model(self.class_lm_path_)

        self.casing_ = CasingTable.from_counts(known_counts)
        # rare forms per key (for MC candidates of unseen words) and the unigram baseline
        rare_mc = {}
        for w, _ in sorted(rare_counts.items(), key=lambda wc: -wc[1]):
            if case_class(w) == "MC":
                rare_mc.setdefault(w.lower(), w)
        self.rare_mc_ = rare_mc
        every_count = {**known_counts, **rare_counts}
        self.compound_parts_ = count_parts(every_count)
        self.baseline_ = UnigramTruecaser().fit_counts(every_count)
        del every_count

        self.oov_ = self._oov_future = None
        if self.oov_model == "char":
            self._start_oov(oov_training_words(known_counts, rare_counts, self.min_count), say)
        if wait:
            self.finish_oov(say)
        self._cand_cache, self._native_cache, self._phrase_cache, self._native = {}, {}, {}, None
        return self

    def _start_oov(self, words: tuple, say) -> None:
        """Fit the OOV model on ``words`` (:func:`oov_training_words`): in a worker process, while this
        one goes on, above ``_OOV_IN_PROCESS`` words (with the sentence-context model: 156 s of the
        default's training, beside its 108 s of reading the samples); here otherwise.  Either way
        with one BLAS thread, so the model is the same."""
        if len(words[0]) > _OOV_IN_PROCESS:
            say("training the character-level casing model for unseen words (in a worker process)")
            self._oov_future = process_pool.pool().submit(CharCasingClassifier().fit, *words)
        else:
            say("training the character-level casing model for unseen words")
            from ..sklearn_data import same_numbers_anywhere
            self.oov_ = same_numbers_anywhere(CharCasingClassifier().fit)(*words)

    def finish_oov(self, say) -> None:
        """Wait for the OOV model that :meth:`fit_counts` fits in a worker process (if any): after
        ``fit_counts(..., wait=False)``, before the model is used or saved."""
        future, self._oov_future = getattr(self, "_oov_future", None), None
        if future is not None:
            if not future.done():
                say("waiting for the character-level casing model")
            self.oov_ = future.result()
            self._cand_cache, self._native_cache, self._phrase_cache, self._native = {}, {}, {}, None

    def set_params(self, **params):
        """As scikit-learn's, and forget cached candidate lists (they depend on the parameters)."""
        super().set_params(**params)
        self._cand_cache, self._native_cache, self._phrase_cache, self._context_map = {}, {}, {}, None
        return self

    # ------------------------------------------------------------------ decoding
    def _candidates(self, tok: str):
        """[(output form, LM token, needs OOV score class or None)] for one input token."""
        key = tok.lower()
        cached = self._cand_cache.get(key)
        if cached is not None:
            return cached
        forms = self.casing_.forms.get(key)
        if forms:
            floor = self.min_casing_share * sum(c for _, c in forms)
            cands = [(f, f, None) for i, (f, c) in enumerate(forms[:self.n_casings]) if i == 0 or c >= floor]
        elif case_class(key) == NONE:
            cands = [(key, UNKNOWN_NONE, None)]
        else:
            cands = [(apply_class(key, c), UNKNOWN_TOKENS[c], c) for c in ("LC", "UC", "CA")]
            mc = self.rare_mc_.get(key)
            if mc is not None:
                cands.append((mc, UNKNOWN_TOKENS["MC"], "MC"))
            elif self.compound_casing and getattr(self, "compound_parts_", None) is not None:
                # an unseen compound's capitalised candidate is what the compound casing renders
                # ("Alpes-Maritimes", not "Alpes-maritimes"); its spelling evidence is then the OOV
                # model's for a capital, first letter only or not (UC or MC), not UC's alone
                form = compound_form(key, self.compound_parts_)
                if form is not None and len(form) == len(key):
                    cands[1] = (form, UNKNOWN_TOKENS["UC"], CAPITALISED)
        if len(self._cand_cache) < 500_000:
            self._cand_cache[key] = cands
        return cands

    def _viterbi(self, tokens: list[str], oov_scores: dict, phrase=_OWN_PHRASES) -> list[str]:
        """Exact Viterbi over the trellis of Lita et al. 2003 figure 1, maximising eq. 2.

        A state is a KenLM state: the (up to) two-token case-carrying history.  Paths
        reaching the same state are merged keeping the best, which is exact because
        every later score depends only on that state; the LM merges histories it cannot
        tell apart (backed-off contexts), which shrinks the trellis further.  Cost is
        O(S * M^3) for S tokens and M candidates per token (paper: O(S M^(H+1))).
        ``phrase``: {position: added score of each candidate}: the weighted phrase scores and the
        discriminative pass's, beyond the paper (None: none; not given: computed for this sentence).

        With the class LM (:mod:`.classes`) each candidate also scores ``class_lm_weight *
        (log10 P_class(c | class history) + log10 P(w | c))``, and a state is a tuple of states (word
        LM, then each class LM of :meth:`_class_lms`), which keeps the search exact.  Scores are
        summed in the C++ search's order (``native/viterbi.cc``), whose output the tests require to
        be this one's.
        """
        lm, w = self.lm_, self.oov_weight
        base_score = lm.BaseScore
        State = kenlm.State
        cls_lms = self._class_lms()
        start = self._start_key(cls_lms)
        if phrase is _OWN_PHRASES:
            phrase = self._extra_scores([t.lower() for t in tokens], [0, len(tokens)])
        layers, cand_lists = [{start: (0.0, None, -1)}], []
        for pos, tok in enumerate(tokens):
            cands = self._candidates(tok)
            cand_lists.append(cands)
            layer = layers[-1]
            if not cls_lms and len(cands) == 1 and len(layer) == 1:
                # Fast path (most tokens once paths have merged): one state, one candidate.
                [(st, (sc, _, _))] = layer.items()
                out = State()
                s = sc + base_score(st, cands[0][1], out)
                if cands[0][2] is not None and oov_scores:
                    s += w * oov_scores[tok.lower()][cands[0][2]]
                layers.append({out: (s, st, 0)})
                continue
            em, classes = self._emissions(tok, cands, oov_scores, phrase.get(pos) if phrase else None, cls_lms)
            nxt = {}
            for key, (sc, _, _) in layer.items():
                st = key[0] if cls_lms else key
                for ci, (_, lmw, _) in enumerate(cands):
                    out = State()
                    s = sc + base_score(st, lmw, out)
                    if cls_lms:
                        c, out = self._class_step(key, out, ci, classes, cls_lms)
                        s += c
                    s += em[ci]
                    cur = nxt.get(out)
                    if cur is None or s > cur[0]:       # ties: the first path (state order, then candidates)
                        nxt[out] = (s, key, ci)
            layers.append(nxt)
        best, best_key = -math.inf, None
        for key, (sc, _, _) in layers[-1].items():
            s = sc + self._end_score(key, cls_lms)
            if s > best:
                best, best_key = s, key
        return self._backtrack(tokens, layers, cand_lists, best_key)

    @staticmethod
    def _backtrack(tokens: list[str], layers: list, cand_lists: list, key) -> list[str]:
        """The casings along the back-pointers of :meth:`_viterbi`'s ``layers`` ({state: (score, previous
        state, candidate)}) from the final state ``key``; a form of another length keeps the token."""
        result = [None] * len(tokens)
        for pos in range(len(tokens), 0, -1):
            _, back, ci = layers[pos][key]
            form, tok = cand_lists[pos - 1][ci][0], tokens[pos - 1]
            result[pos - 1] = form if len(form) == len(tok) else tok
            key = back
        return result

    def _class_lm_on(self) -> bool:
        return getattr(self, "class_lm_", None) is not None and self.class_lm_weight > 0

    def _class_lms(self) -> list:
        """[(class LM, its word classes, weight)] that the Python search adds to the word LM: the
        class LM when it is on, else none.  (``dev/truecaser_two_class_lms.py`` adds a second one.)"""
        return [(self.class_lm_, self.classes_, self.class_lm_weight)] if self._class_lm_on() else []

    # The lattice of :meth:`_viterbi` (also read by ``dev/truecaser_posterior.py``): a state is the
    # word LM's KenLM state, or with class LMs (``cls_lms``: :meth:`_class_lms`) a tuple of the word
    # LM's and each class LM's.

    def _start_key(self, cls_lms: list):
        """The state before the first token (``<s>``, or no context with a ``mask`` first word)."""
        states = []
        for model in [self.lm_] + [clm for clm, _, _ in cls_lms]:
            states.append(kenlm.State())
            if self.first_word.startswith("mask"):
                model.NullContextWrite(states[-1])
            else:
                model.BeginSentenceWrite(states[-1])
        return tuple(states) if cls_lms else states[0]

    def _emissions(self, tok: str, cands: list, oov_scores: dict, phrase: list | None, cls_lms: list):
        """(each candidate's emission score: the weighted OOV score, the added ``phrase`` score and
        each class LM's weighted log10 P(w | c); per class LM, each candidate's (class, log10 P(w | c)))."""
        w = self.oov_weight
        em = [w * oov_scores[tok.lower()][cls] if cls is not None and oov_scores else 0.0 for _, _, cls in cands]
        if phrase:
            em = [a + b for a, b in zip(em, phrase)]
        classes = []
        for _, table, mu in cls_lms:
            classes.append([table.lookup(lmw) for _, lmw, _ in cands])
            em = [a + mu * e for a, (_, e) in zip(em, classes[-1])]   # the C++ search's inputs add it last too
        return em, classes

    @staticmethod
    def _class_step(key: tuple, out, ci: int, classes: list, cls_lms: list):
        """(the class LMs' weighted log10 P(class of candidate ``ci`` | their states in ``key``), the
        next state: the word LM's ``out`` with each class LM's)."""
        outs, s = [out], 0.0
        for j, (clm, _, mu) in enumerate(cls_lms):
            outs.append(kenlm.State())
            s += mu * clm.BaseScore(key[j + 1], classes[j][ci][0], outs[-1])
        return s, tuple(outs)

    def _end_score(self, key, cls_lms: list) -> float:
        """The score of ``</s>`` after the state ``key``."""
        if not cls_lms:
            return self.lm_.BaseScore(key, lmmod.EOS, kenlm.State())
        s = self.lm_.BaseScore(key[0], lmmod.EOS, kenlm.State())
        for j, (clm, _, mu) in enumerate(cls_lms):
            s += mu * clm.BaseScore(key[j + 1], lmmod.EOS, kenlm.State())
        return s

    def _phrase_scores(self, tokens: list[str], lowered: bool = False, sent_off=None) -> dict | None:
        """{token index: ``phrase_weight`` times the phrase score of each of its candidates} over
        one sentence, or several (``sent_off``: their offsets, as
        :meth:`.phrases.PhraseTable.covered`), ``lowered`` or not; tokens with one candidate or no
        phrase are left out.  None when there is no phrase table or the weight is 0."""
        table = getattr(self, "phrases_", None)
        w = self.phrase_weight
        if table is None or not w:
            return None
        return table.scores(tokens if lowered else [t.lower() for t in tokens], self._candidate_forms, sent_off, w,
                            self._phrase_cache)

    def _candidate_forms(self, word: str) -> list[str]:
        """The output forms of a token's candidates (:meth:`_candidates`), in their order."""
        return [f for f, _, _ in self._candidates(word)]

    def _extra_scores(self, low: list[str], sent_off, context: bool = True) -> dict:
        """{token index: the added emission score of each candidate}: the phrase scores plus the
        discriminative pass's (:mod:`.rerank`; ``discriminative``) and, with ``context``, the
        sentence-context model's (:meth:`_context_scores`), over the lowercased sentences ``low`` at
        the offsets ``sent_off``."""
        out = self._phrase_scores(low, lowered=True, sent_off=sent_off) or {}
        weights = getattr(self, "reranker_", None)
        if weights is not None and self.discriminative != "none":
            for k, x in weights.scores(low, sent_off, self._candidate_forms, self.casing_.forms.get).items():
                add_emissions(out, k, x)
        scored = self._context_scores(low, sent_off) if context else None
        if scored is not None:
            pos, n, vals = scored
            for k, a, b in zip(pos.tolist(), accumulate(n.tolist(), initial=0), accumulate(n.tolist())):
                add_emissions(out, k, vals[a:b].tolist())
        return out

    def _context_scores(self, low: list[str], sent_off, codes=None):
        """(positions, their number of candidates, ``context_weight`` times each candidate's
        sentence-context score, flat: :meth:`.context.SentenceContext.candidate_scores`) over the
        lowercased sentences ``low`` at the offsets ``sent_off`` (``codes``: their codes in that
        model, if known); None without that model or weight."""
        ctx = getattr(self, "context_", None)
        if ctx is None or not self.context_weight:
            return None
        cmap = getattr(self, "_context_map", None)
        if cmap is None or cmap[0] is not ctx:
            cmap = self._context_map = (ctx, ctx.candidate_map(self._candidate_forms))
        pos, n, vals = ctx.candidate_scores(low, sent_off, cmap[1], codes)
        return pos, n, self.context_weight * vals

    def _oov_scores(self, token_lists) -> dict:
        if self.oov_ is None:
            return {}
        unseen = set()
        for toks in token_lists:
            for t in toks:
                key = t.lower()
                if key not in self.casing_.forms and case_class(key) != NONE:
                    unseen.add(key)
        unseen = sorted(unseen)
        return dict(zip(unseen, self.oov_.log10_ratio(unseen)))

    def _native_decoder(self):
        """The C++ decoder of the same LM file (:mod:`.native`), or None (not built, switched off
        with ``TEXTQA_NATIVE_VITERBI=0``, or the LM is not in a file)."""
        from . import native
        if not native.available() or not getattr(self, "lm_path_", None):
            return None
        return self._native_handle("_native", self.lm_path_)

    def _native_class_decoder(self):
        """The C++ decoder's handle of the class LM (:mod:`.classes`), or None (no class LM, or a
        library built before the class search: the Python search then decodes)."""
        from . import native
        if getattr(self, "class_lm_", None) is None or not hasattr(native._library(), "tc_viterbi_classes"):
            return None
        return self._native_handle("_native_classes", self.class_lm_path_)

    def _native_handle(self, attr: str, path: str):
        """The C++ decoder's handle of the LM file ``path``, kept in ``attr`` (False: it failed to
        open, and the Python search decodes); opening one resets the cached candidate ids, which
        belong to one LM's vocabulary."""
        from . import native
        dec = getattr(self, attr, None)
        if dec is None or (dec and dec.lm_path != path):
            try:
                dec = native.NativeViterbi(path)
            except RuntimeError as e:
                log.warning("%s; decoding in Python", e)
                dec = False
            setattr(self, attr, dec)
            self._native_cache = {}
        return dec or None

    def _native_entry(self, key: str, dec, cdec, cache: dict, rows: "CandidateRows"):
        """(candidates, KenLM ids, OOV classes or None, row in ``rows``, output forms) of a lowercased
        token for the C++ decoder (and the class LM's, ``cdec``, or None), built on a cache miss and
        put in ``cache`` (the batch's ``_native_cache``, reset with the decoder; its ids and class
        scores are the row)."""
        cands = self._candidates(key)
        classes = [c for _, _, c in cands]
        ids = [dec.index(lmw) for _, lmw, _ in cands]
        if cdec is not None:                    # the class LM's ids and log10 P(w | c)
            looked = [self.classes_.lookup(lmw) for _, lmw, _ in cands]
            cids, cem = [cdec.index(c) for c, _ in looked], [e for _, e in looked]
        else:
            cids, cem = [0] * len(cands), [0.0] * len(cands)
        ctx = getattr(self, "context_", None)
        entry = (cands, ids, classes if any(c is not None for c in classes) else None,
                 rows.add(ids, cids, cem, ctx.code(key) if ctx is not None else -1), [f for f, _, _ in cands])
        cache[key] = entry
        return entry

    def _parts(self, toks: list[str]) -> list[list[str]]:
        """A token list as the search decodes it: sentence by sentence (``split_sentences``) or whole."""
        return (split_at_sentence_final(toks) if self.split_sentences else [toks]) if toks else []

    def _native_inputs(self, token_lists, dec) -> "SimpleNamespace":
        """The C++ search's inputs for a batch: its parts (``sent_off`` ranges of the flat tokens
        ``flat``, lowercased ``low``), each token's candidates (``cand_off`` ranges of KenLM ids
        ``ids``) and their emission scores ``em``: the OOV model's scores of the unseen words, the
        phrase scores and the discriminative pass's (and, with a class LM, its handle ``cdec`` and
        class ids ``cids``).
        Gathered with numpy from the cached tokens' rows (:class:`CandidateRows`; no per-token Python
        loop but the sentence split's, the discriminative features' and the unseen words')."""
        cdec = self._native_class_decoder() if self._class_lm_on() else None    # opened before the cache is read
        with _rows_lock:             # threads that find a new cache must share one set of rows for it
            ctx = getattr(self, "context_", None)
            if len(self._native_cache) >= 500_000 or getattr(self, "_native_cache_context", None) is not ctx:
                self._native_cache = {}     # a bound on a long-running service's cache; or a new context model
                self._native_cache_context = ctx
            cache = self._native_cache
            rows = getattr(self, "_native_rows", None)
            if rows is None or rows.cache is not cache:
                rows = self._native_rows = CandidateRows(cache)     # a new cache: new rows
        get = cache.get              # this batch keeps its cache and rows if another thread resets them
        entry = partial(self._native_entry, dec=dec, cdec=cdec, cache=cache, rows=rows)
        parts_of, parts = [], []
        for toks in token_lists:
            p = self._parts(toks)
            parts_of.append(len(p))
            parts += p
        flat = list(chain.from_iterable(parts))
        low = [t.lower() for t in flat]
        sent_off = list(accumulate(map(len, parts), initial=0))
        ents = [get(k) or entry(k) for k in low]
        row = np.fromiter(map(itemgetter(3), ents), dtype=np.int64, count=len(ents))
        n_cands = rows.count[row]
        cand_off = np.zeros(len(ents) + 1, dtype=np.int32)
        np.cumsum(n_cands, out=cand_off[1:])
        n = int(cand_off[-1])
        at = ranges(rows.start[row], n_cands)              # each candidate's place in the rows
        ids = rows.ids[at]
        em = np.zeros(n)
        extra = self._extra_scores(low, sent_off, context=False)
        if extra:                    # the phrase and discriminative scores of the tokens that have some
            tok = np.fromiter(extra, dtype=np.int64, count=len(extra))
            em[ranges(cand_off[tok].astype(np.int64), n_cands[tok])] = np.fromiter(
                chain.from_iterable(extra.values()), dtype=np.float64, count=int(n_cands[tok].sum()))
        scored = self._context_scores(low, sent_off, codes=rows.code[row])
        if scored is not None:       # the sentence-context scores, added as arrays
            pos, n, vals = scored
            if not np.array_equal(n, n_cands[pos]):
                raise RuntimeError("the sentence-context model's candidates differ from the decoder's")
            em[ranges(cand_off[pos].astype(np.int64), n)] += vals
        unseen_at = [t for t, e in enumerate(ents) if e[2] is not None]      # unseen words (OOV classes)
        if unseen_at and self.oov_ is not None:
            keys = sorted({low[t] for t in unseen_at})
            scores = dict(zip(keys, self.oov_.log10_ratio(keys)))
            w = self.oov_weight
            pos, add = [], []
            for t in unseen_at:
                first, score = int(cand_off[t]), scores[low[t]]
                for j, c in enumerate(ents[t][2]):
                    if c is not None:
                        pos.append(first + j)
                        add.append(w * score[c])
            em[pos] += add           # each position once: the same sum as one addition per candidate
        cids = None
        if cdec is not None:         # + mu * log10 P(w | c), added last as the Python search does
            cids = rows.cids[at]
            em += self.class_lm_weight * rows.cem[at]
        return SimpleNamespace(parts_of=parts_of, flat=flat, low=low, sent_off=sent_off, ents=ents, ids=ids, em=em,
                               cand_off=cand_off, unseen_at=unseen_at, cids=cids, cdec=cdec)

    def _predict_native(self, token_lists, dec) -> list[list[str]]:
        """:meth:`predict_tokens` with the C++ Viterbi: one call for the whole batch."""
        inp = self._native_inputs(token_lists, dec)
        sent_off = inp.sent_off
        begin = not self.first_word.startswith("mask")
        if inp.cids is not None:
            choice = dec.decode_classes(inp.cdec, sent_off, inp.cand_off, inp.ids, inp.cids, inp.em,
                                        self.class_lm_weight, begin).tolist()
        else:
            choice = dec.decode(sent_off, inp.cand_off, inp.ids, inp.em, begin).tolist()
        cased = [form if len(form) == len(tok) else tok
                 for form, tok in zip(map(getitem, [e[4] for e in inp.ents], choice), inp.flat)]
        if self.first_word.endswith("+upper"):
            for a, b in zip(sent_off, sent_off[1:]):
                capitalize_first_word_in(cased, a, b)
        self._case_compounds(cased, inp.low, inp.unseen_at)
        out, p = [], 0
        for n_parts in inp.parts_of:
            out.append(cased[sent_off[p]:sent_off[p + n_parts]])
            p += n_parts
        return out

    def _case_compounds(self, cased: list[str], low: list[str], unseen) -> None:
        """Case, in place, the unseen compounds (``unseen``: the positions that may be unseen words)
        that the search capitalised part by part (:mod:`.compounds`; ``compound_casing``)."""
        parts = getattr(self, "compound_parts_", None)
        if not self.compound_casing or parts is None:
            return
        forms = self.casing_.forms
        for t in unseen:
            key = low[t]
            if key not in forms and SEPARATORS.search(key) and cased[t] == capitalize_first(key):
                form = compound_form(key, parts)
                if form is not None and len(form) == len(cased[t]):
                    cased[t] = form

    def predict_tokens(self, token_lists: list[list[str]]) -> list[list[str]]:
        """Truecase a batch of token lists (with the C++ decoder when it is built: same results); with
        ``fold_accents``, each token is decoded by its folded form and keeps its own letters."""
        with gc_paused():
            if not self.fold_accents:
                return self._predict_tokens(token_lists)
            folded = [toks if all(map(str.isascii, toks)) else list(map(fold_accents, toks)) for toks in token_lists]
            return [cased if f is toks else list(map(restore_accents, toks, cased))
                    for toks, f, cased in zip(token_lists, folded, self._predict_tokens(folded))]

    def _predict_tokens(self, token_lists: list[list[str]]) -> list[list[str]]:
        dec = self._native_decoder()
        if dec is not None and (not self._class_lm_on() or self._native_class_decoder() is not None):
            return self._predict_native(token_lists, dec)
        oov = self._oov_scores(token_lists)
        parts_of = [self._parts(toks) for toks in token_lists]
        every = [part for parts in parts_of for part in parts]
        sent_off = list(accumulate(map(len, every), initial=0))
        low = [t.lower() for part in every for t in part]
        by_part: dict = defaultdict(dict)        # the added emission scores of each part, by position in it
        for i, x in self._extra_scores(low, sent_off).items():
            k = bisect_right(sent_off, i) - 1
            by_part[k][i - sent_off[k]] = x
        out, k = [], 0
        for parts in parts_of:
            res = []
            for part in parts:
                cased = self._viterbi(part, oov, by_part.get(k, {}))
                if self.first_word.endswith("+upper"):
                    cased = capitalize_first_word(cased)
                self._case_compounds(cased, low[sent_off[k]:sent_off[k + 1]], range(len(part)))
                k += 1
                res.extend(cased)
            out.append(res)
        return out

    def predict(self, sentences):
        """Truecase sentences (token lists, or whitespace-tokenized strings)."""
        token_lists = [as_tokens(s) for s in sentences]
        cased = self.predict_tokens(token_lists)
        return [" ".join(c) if isinstance(s, str) else c for s, c in zip(sentences, cased)]

    def score(self, sentences, y=None) -> float:
        """Word accuracy of predicting ``sentences`` from their lowercased form."""
        gold = [as_tokens(s) for s in sentences]
        pred = self.predict_tokens([[t.lower() for t in g] for g in gold])
        n = sum(len(g) for g in gold)
        ok = sum(a == b for g, p in zip(gold, pred) for a, b in zip(g, p))
        return ok / max(n, 1)


# ---------------------------------------------------------------------- persistence
FORMAT_VERSION = 7            # 7: + context.json/.npz (the sentence-context model, when trained with one), baseline.json.gz for baseline.json; 6: + the fold_accents hyper-parameter; 5: + discriminative.json (when trained with one); 4: + the compound part table in casing.json; 3: + phrases.json; 2: the OOV model as JSON + .npz (1 pickled it with joblib)
MIN_FORMAT_VERSION = 2
BASELINE_FILE = "baseline.json.gz"
ARTIFACT_NAME = "truecaser"


def save_truecaser(model: Truecaser, dest, *, punkt_dir, metrics: dict | None = None,
                   data_fingerprint: str | None = None, extra: dict | None = None, files: dict | None = None) -> None:
    """Write a fitted ``Truecaser``, its unigram baseline and its sentence splitter's tables
    (``punkt_dir``, Punkt ``punkt_tab/english``) as one self-contained artifact directory;
    ``files``: {name in the artifact: source path} copied in (the dev plots)."""
    import json
    import shutil

    from ..artifact import save_arrays, write_artifact
    from .oov import oov_to_data

    with write_artifact(dest, ARTIFACT_NAME, FORMAT_VERSION, hyper_parameters=model.get_params(),
                        metrics=metrics, data_fingerprint=data_fingerprint,
                        extra={"lm": model.lm_info_, "ngram_counts": model.ngram_counts_,
                               "training_tokens": model.n_train_tokens_, **(extra or {})}, files=files) as tmp:
        lm_name = "lm.binary" if model.lm_path_.endswith(".binary") else "lm.arpa"
        shutil.copyfile(model.lm_path_, tmp / lm_name)
        with open(tmp / "casing.json", "w", encoding="utf-8") as f:
            json.dump({"forms": model.casing_.forms, "rare_mc": model.rare_mc_,
                       "compound_parts": model.compound_parts_}, f, ensure_ascii=False)
        # 14 MB as JSON; no name or time in the gzip header, so that the same model gives the same bytes
        with open(tmp / BASELINE_FILE, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                                   compresslevel=6) as z, \
                io.TextIOWrapper(z, encoding="utf-8") as f:
            json.dump(model.baseline_.best_, f, ensure_ascii=False)
        if model.oov_ is not None:
            meta, arrays = oov_to_data(model.oov_)
            (tmp / "oov.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
            save_arrays(tmp / "oov.npz", arrays)
        if getattr(model, "reranker_", None) is not None:
            (tmp / "discriminative.json").write_text(json.dumps(model.reranker_.to_data(), ensure_ascii=False),
                                                     encoding="utf-8")
        if getattr(model, "context_", None) is not None:
            meta, arrays = model.context_.to_data()
            (tmp / "context.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
            save_arrays(tmp / "context.npz", arrays)
        if getattr(model, "classes_", None) is not None:
            shutil.copyfile(model.class_lm_path_,
                            tmp / ("class_lm.binary" if model.class_lm_path_.endswith(".binary") else "class_lm.arpa"))
            meta, arrays = model.classes_.to_data()
            (tmp / "classes.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
            save_arrays(tmp / "classes.npz", arrays)
        if getattr(model, "phrases_", None) is not None:
            with open(tmp / "phrases.json", "w", encoding="utf-8") as f:
                json.dump(model.phrases_.to_data(), f, ensure_ascii=False, separators=(",", ":"))
        shutil.copytree(punkt_dir, tmp / "punkt")


def _read_baseline(path: Path, manifest: dict) -> dict[str, str]:
    """The unigram baseline's table of a loaded artifact, read when first used; its checksum is checked
    again, since the artifact was verified at load time and is read only now."""
    import json

    from ..artifact import ArtifactError, verify_payload

    name = BASELINE_FILE if BASELINE_FILE in manifest.get("files", {}) else "baseline.json"   # format <= 6
    verify_payload(path, manifest, name)
    p = path / name
    try:
        with (gzip.open(p, "rt", encoding="utf-8") if name.endswith(".gz") else open(p, encoding="utf-8")) as f:
            best = json.load(f)
    except (OSError, ValueError) as e:
        raise ArtifactError(f"{p}: cannot read the baseline table ({e})") from e
    if not isinstance(best, dict):
        raise ArtifactError(f"{p}: the baseline table is not a JSON object")
    return best


def load_truecaser(path) -> Truecaser:
    """Load a ``Truecaser`` artifact, verifying every checksum before reading payloads.  The cyclic
    garbage collector is paused meanwhile: the JSON tables are millions of small lists and strings
    without cycles, and the collections their allocation triggers made the default model's load take
    1.60-1.67 s instead of 1.25-1.29 s (fresh processes, measured).  Before the collector resumes, the
    model's objects are moved to its oldest generation (``_promote_to_oldest_generation``)."""
    with gc_paused():
        model = _load_truecaser(path)
        _promote_to_oldest_generation()
    return model


def _load_truecaser(path) -> Truecaser:
    from ..artifact import ArtifactError, load_arrays, load_manifest, read_json
    from .oov import oov_from_data

    path = Path(path)
    manifest = load_manifest(path, expect_name=ARTIFACT_NAME, max_format_version=FORMAT_VERSION,
                             min_format_version=MIN_FORMAT_VERSION)
    params = manifest["hyper_parameters"]
    params["work_dir"] = None
    model = Truecaser(**params)
    lm_file = path / ("lm.binary" if (path / "lm.binary").exists() else "lm.arpa")
    model.lm_path_ = str(lm_file)
    model.lm_ = kenlm.Model(str(lm_file))
    model.lm_info_ = manifest.get("lm", {})
    model.ngram_counts_ = manifest.get("ngram_counts", {})
    model.n_train_tokens_ = manifest.get("training_tokens", 0)
    casing = read_json(path / "casing.json")
    model.casing_ = CasingTable(casing["forms"])          # [form, count] pairs, read as they are stored
    model.rare_mc_ = casing["rare_mc"]
    try:                                # format 3 has no compound part table: compounds render as UC
        model.compound_parts_ = parts_from_data(casing["compound_parts"]) if "compound_parts" in casing else None
    except ValueError as e:
        raise ArtifactError(f"{path / 'casing.json'}: {e}") from e
    model.baseline_ = UnigramTruecaser()
    model.baseline_._best_reader = partial(_read_baseline, path, manifest)
    model.oov_ = None
    if (path / "oov.json").exists():
        try:
            model.oov_ = oov_from_data(read_json(path / "oov.json"),
                                       load_arrays(path / "oov.npz"))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ArtifactError(f"{path}: cannot read the OOV model ({e})") from e
    model.phrases_ = None
    if (path / "phrases.json").exists():
        try:
            model.phrases_ = PhraseTable.from_data(read_json(path / "phrases.json"))
        except (OSError, ValueError) as e:
            raise ArtifactError(f"{path}: cannot read the phrase table ({e})") from e
    model.classes_ = model.class_lm_ = None
    if (path / "classes.json").exists():
        class_lm = path / ("class_lm.binary" if (path / "class_lm.binary").exists() else "class_lm.arpa")
        try:
            model.classes_ = WordClasses.from_data(read_json(path / "classes.json"),
                                                   load_arrays(path / "classes.npz"))
            model.class_lm_path_ = str(class_lm)
            model.class_lm_ = kenlm.Model(str(class_lm))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ArtifactError(f"{path}: cannot read the class LM ({e})") from e
    model.reranker_ = None
    if (path / "discriminative.json").exists():
        try:
            model.reranker_ = CandidateWeights.from_data(
                read_json(path / "discriminative.json"))
        except (OSError, ValueError) as e:
            raise ArtifactError(f"{path / 'discriminative.json'}: cannot read the discriminative weights ({e})") from e
    model.context_ = None
    if (path / "context.json").exists():
        try:
            model.context_ = SentenceContext.from_data(read_json(path / "context.json"),
                                                       load_arrays(path / "context.npz"))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ArtifactError(f"{path}: cannot read the sentence-context model ({e})") from e
    model._cand_cache, model._native_cache, model._phrase_cache, model._native = {}, {}, {}, None
    model.manifest_ = manifest
    return model
