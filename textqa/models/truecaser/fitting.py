"""Training the truecaser: counting, estimating and binarising its LMs, the casing table, the OOV
model, the phrase table, the discriminative pass and the sentence-context model."""
from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path

import kenlm
import numpy as np

from textqa.runtime import process_pool

from ..sklearn_data import same_numbers_anywhere
from . import lm as lmmod
from .baseline import CasingTable, UnigramTruecaser, as_tokens
from .casing import NONE, Indexed, case_class, fold_accents
from .classes import PackedText, WordClasses
from .compounds import count_parts
from .context import DEFAULT_STOP, fit_context
from .context_samples import target_words
from .kneser_ney import estimate_kneser_ney
from .oov import CharCasingClassifier
from .phrases import PhraseTable
from .rerank import held_out, train_weights
from .vocabulary import BOS_ID, EOS_ID, LM_SPECIALS, UNK_ID, LMVocabulary

log = logging.getLogger(__name__)

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

def _indexed(sentences) -> tuple[Indexed, list]:
    """The training text as token ids (for the phrase table's and the sentence-context model's
    counting), and each non-empty sentence's ids.  int32 ids (fewer than 2**31 distinct tokens;
    np.fromiter refuses more): the corpus's ids stay in memory until the sentence-context model is
    fitted."""
    raw_ids: dict[str, int] = {}
    setdefault = raw_ids.setdefault
    seqs = []
    for s in sentences:
        toks = as_tokens(s)
        if toks:
            seqs.append(np.fromiter((setdefault(t, len(raw_ids)) for t in toks), dtype=np.int32, count=len(toks)))
    if not seqs:
        raise ValueError("no training sentences")
    lengths = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
    return Indexed(np.concatenate(seqs), lengths, list(raw_ids)), seqs


class TruecaserFitting:
    """``fit`` and its parts for :class:`.model.Truecaser`: a mixin that reads the estimator's
    parameters and sets its fitted attributes (those ending in ``_``); the search is made again
    from them when next used (:meth:`.model.Truecaser.scores`)."""

    def fit(self, sentences, y=None, progress=None, arpa_copy=None):
        """Count, estimate and binarise the LM; learn the casing table and the OOV model.

        ``progress`` is an optional callable(str) told about each stage; ``arpa_copy`` a path where
        the ARPA file is kept (it is otherwise binarised and removed).
        """
        self.check_params()
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
        indexed, seqs = _indexed(sentences)
        raw_words = indexed.words
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
            if self.native_search() is None:
                raise RuntimeError("the discriminative pass trains with the C++ decoder, which is not built (run make)")
            say(f"training the discriminative pass ({self.discriminative} features) on the held-out sentences")
            self.reranker_ = train_weights(self, held, self.discriminative, progress=say)
        if self.context_cap:
            self.fit_context(indexed, progress=say)
        del indexed
        self.finish_oov(say)
        return self

    def fit_context(self, sentences, progress=None, collect=None):
        """Fit the sentence-context model (:mod:`.context`; ``context_cap`` and ``context_C``) on
        ``sentences`` (token lists, whitespace-tokenized strings or :class:`.casing.Indexed`, folded
        as the model's training text) for the ambiguous words of the fitted casing table; or on the samples that
        ``collect(targets, cap, stop)`` gives (:func:`.context_samples.collect`'s tuple: ``textqa train truecaser
        --scheduler`` collects them on the cluster)."""
        say = progress or (lambda msg: log.info(msg))
        forms = self.casing_.forms
        stop = set(sorted(forms, key=lambda w: -sum(c for _, c in forms[w]))[:DEFAULT_STOP])
        targets = {w: c for w, c in target_words(forms, self.candidate_forms).items() if w not in stop}
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
        in a worker process (:meth:`start_oov`); ``wait=False`` returns without waiting for it
        (``fit``, and ``textqa train truecaser --scheduler``, then fit the sentence-context model
        meanwhile and call :meth:`finish_oov`)."""
        self.check_params()
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
        say(f"{self.n_train_tokens_:,} tokens, {len(vocab.known) + len(vocab.rare):,} cased types, "
            f"LM vocabulary {vocab.V:,}")
        work = Path(self.work_dir or tempfile.mkdtemp(prefix="truecaser-"))
        work.mkdir(parents=True, exist_ok=True)
        # the estimated LM is an argument, not a local: it is freed once written
        self.lm_path_ = _binarised(self._estimate_lm(vocab, count_ngrams, sentence_ids, say), vocab.words, work, "lm",
                                   self.lm_binary, say, arpa_copy)
        self.lm_ = kenlm.Model(self.lm_path_)
        self.search_inputs_ = None               # made when the model is saved (store.py) or first decodes
        self._fit_class_lm(vocab.words, sentence_ids, class_text, work, say)
        self._fit_tables(vocab.known, vocab.rare)
        self.oov_ = self._oov_future = None
        if self.oov_model == "char":
            self.start_oov(oov_training_words(vocab.known, vocab.rare, self.min_count), say)
        if wait:
            self.finish_oov(say)
        return self

    def _estimate_lm(self, vocab: "LMVocabulary", count_ngrams, sentence_ids, say) -> "lmmod.ArpaModel":
        """The word LM estimated from ``count_ngrams(say)`` (``smoothing``, ``order``, ``prune``);
        sets ``ngram_counts_`` and ``lm_info_``."""
        say("counting n-grams")
        full = count_ngrams(say)
        self.ngram_counts_ = full.sizes()
        if len(self.ngram_counts_) != self.order:
            raise ValueError(f"the n-gram counts are of order {len(self.ngram_counts_)}, the model's is {self.order}")
        say(f"n-grams: {self.ngram_counts_}")
        if self.smoothing == "deleted_interpolation":
            k = max(2, self.heldout_every)
            train_part = lmmod.pack_sentences([s for i, s in enumerate(sentence_ids) if i % k], BOS_ID, EOS_ID)
            held_part = lmmod.pack_sentences([s for i, s in enumerate(sentence_ids) if i % k == 0], BOS_ID, EOS_ID)
            train_counts = lmmod.NGramCounts.from_packed(train_part, vocab.V, BOS_ID, EOS_ID)
            model = lmmod.estimate_deleted_interpolation(train_counts, held_part, full, BOS_ID, EOS_ID, UNK_ID)
        else:
            model = estimate_kneser_ney(full, BOS_ID, EOS_ID, UNK_ID, prune=self.prune_thresholds())
            if "prune" in model.info:
                say(f"n-grams kept after pruning {' '.join(map(str, model.info['prune']))}: {model.info['kept']}")
        self.lm_info_ = model.info
        return model

    def _fit_class_lm(self, lm_words: list, sentence_ids, class_text, work: Path, say) -> None:
        """The word classes and the class LM (``class_lm`` classes; none when 0)."""
        self.classes_ = self.class_lm_ = None
        if not self.class_lm:
            return
        say(f"clustering the LM's words into {self.class_lm} classes")
        if class_text is None:
            class_text = PackedText(lmmod.pack_sentences(sentence_ids, BOS_ID, EOS_ID))
        self.classes_ = WordClasses.build(class_text, lm_words, len(LM_SPECIALS), self.class_lm, BOS_ID, EOS_ID,
                                          targets=self.class_lm_words)
        say(f"estimating the class LM (order {self.class_lm_order})")
        self.class_lm_path_ = _binarised(self.classes_.estimate(class_text, BOS_ID, EOS_ID, UNK_ID, self.class_lm_order),
                                         self.classes_.names, work, "class_lm", self.class_lm_binary, say)
        self.class_lm_ = kenlm.Model(self.class_lm_path_)

    def _fit_tables(self, known_counts: dict, rare_counts: dict) -> None:
        """The casing table, the rare mixed-case forms (the MC candidates of unseen words), the
        compounds' part table and the unigram baseline, from the cased-word counts."""
        self.casing_ = CasingTable.from_counts(known_counts)
        rare_mc = {}
        for w, _ in sorted(rare_counts.items(), key=lambda wc: -wc[1]):
            if case_class(w) == "MC":
                rare_mc.setdefault(w.lower(), w)
        self.rare_mc_ = rare_mc
        every_count = {**known_counts, **rare_counts}
        self.compound_parts_ = count_parts(every_count)
        self.baseline_ = UnigramTruecaser().fit_counts(every_count)

    def start_oov(self, words: tuple, say) -> None:
        """Fit the OOV model on ``words`` (:func:`oov_training_words`): in a worker process, while this
        one goes on, above ``_OOV_IN_PROCESS`` words (the default's: it overlaps the sentence-context
        model's reading of its samples); here otherwise.  Either way
        with one BLAS thread, so the model is the same."""
        if len(words[0]) > _OOV_IN_PROCESS:
            say("training the character-level casing model for unseen words (in a worker process)")
            self._oov_future = process_pool.pool().submit(CharCasingClassifier().fit, *words)
        else:
            say("training the character-level casing model for unseen words")
            self._oov_future = None
            self.oov_ = same_numbers_anywhere(CharCasingClassifier().fit)(*words)

    def finish_oov(self, say) -> None:
        """Wait for the OOV model that :meth:`fit_counts` fits in a worker process (if any): after
        ``fit_counts(..., wait=False)``, before the model is used or saved."""
        future, self._oov_future = self._oov_future, None
        if future is not None:
            if not future.done():
                say("waiting for the character-level casing model")
            self.oov_ = future.result()


def _binarised(model, words: list, work: Path, name: str, fmt: str, say, arpa_copy=None) -> str:
    """Write an estimated LM (over ``words``) as ``work/NAME.arpa``, a copy at ``arpa_copy`` if asked,
    and binarise it for KenLM (``fmt``, ``lm.BINARY_FORMATS``) as ``work/NAME.binary``: the binary's
    path, or the ARPA file's when KenLM's ``build_binary`` is missing (slower to load)."""
    arpa, binary = work / f"{name}.arpa", work / f"{name}.binary"
    label = "the class LM" if name == "class_lm" else "the LM"
    say(f"writing {label} as ARPA ({len(model.keys[-1]):,} {len(model.keys)}-grams)")
    lmmod.write_arpa(model, words, arpa)
    del model
    if arpa_copy:
        shutil.copyfile(arpa, arpa_copy)
    say(f"binarising {label} for KenLM")
    if lmmod.binarize(arpa, binary, fmt=fmt):
        arpa.unlink()
        return str(binary)
    log.warning("KenLM build_binary not found: keeping the ARPA file %s (slower to load)", arpa)
    return str(arpa)
