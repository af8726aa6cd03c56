"""The language-model truecaser of Lita et al. 2003 and its unigram baseline.

``Truecaser`` follows scikit-learn's estimator contract: hyper-parameters are
constructor arguments, ``fit(sentences)`` learns the attributes ending in ``_``,
``predict(sentences)`` returns the truecased sentences.  Sentences are lists of
tokens or whitespace-tokenized strings (Penn-Treebank style); output has the same
tokens with only their case changed.
"""
from __future__ import annotations

import logging
import math
from bisect import bisect_right
from collections import defaultdict
from itertools import accumulate

import kenlm
from sklearn.base import BaseEstimator

from textqa.runtime.gc_pause import gc_paused

from . import lm as lmmod
from . import native
from .baseline import as_tokens, capitalize_first_word
from .casing import NONE, UNKNOWN_TOKENS, apply_class, capitalize_first, case_class, fold_accents, restore_accents
from .classes import CLASS_ORDER, TARGETS
from .compounds import SEPARATORS, compound_form
from .context import DEFAULT_C, DEFAULT_MIN_WEIGHT
from .fitting import TruecaserFitting
from .native_search import NativeSearch
from .oov import CAPITALISED
from .python_search import PythonSearch
from .rerank import FEATURE_SETS
from .tokenize import split_at_sentence_final
from .vocabulary import UNKNOWN_NONE

log = logging.getLogger(__name__)

FIRST_WORD_OPTIONS = ("lm", "lm+upper", "mask", "mask+upper")
SMOOTHING_OPTIONS = ("kneser_ney", "deleted_interpolation")
ORDERS = (2, 3, 4, 5)
SEARCHES = ("auto", "native", "python")
#: Count pruning of a Kneser-Ney LM by default (``lmplz --prune 0 0 1``): n-grams of order 3 and up
#: seen once are dropped.  Measured on the default model: LM 67 MB instead of 123, dev F1 92.51
#: against 92.52, WSJ 93.62 against 93.44, Reuters test 93.89 against 93.87 (docs/experiments/truecaser.md, "Pruning").
DEFAULT_PRUNE = (0, 0, 1)
#: The OOV model's weight in the search.  Measured on the default of 2026-11-28 (with the sentence
#: context model): dev F1 93.11 / 93.15 / 93.16 / 93.17 / 93.16 / 93.13 at 1 / 1.25 / 1.5 / 2 / 2.5 / 3,
#: a plateau whose middle is kept; WSJ F1 94.59 -> 94.84 and the Reuters test split's 94.42 -> 94.45
#: at 2, neither used to choose (docs/experiments/truecaser.md, "The OOV model's weight, again").
DEFAULT_OOV_WEIGHT = 2.0


def add_emissions(extra: dict, pos: int, scores: list) -> None:
    """Add ``scores`` (one per candidate) to the added emission scores of token ``pos`` in ``extra``
    ({token index: each candidate's added score}, as :meth:`Truecaser.extra_scores` returns)."""
    extra[pos] = [a + b for a, b in zip(extra[pos], scores)] if pos in extra else scores


#: The settings (``set_params``) of the paper's trigram decoder: no phrase scores, unseen compounds
#: capitalised at the first letter only, no discriminative pass, no class LM, no sentence-context model
#: (``textqa truecase --decoder trigram``).
TRIGRAM_DECODER = {"phrase_weight": 0.0, "compound_casing": False, "discriminative": "none", "class_lm_weight": 0.0,
                   "context_weight": 0.0}


class Truecaser(TruecaserFitting, NativeSearch, PythonSearch, BaseEstimator):
    """Trigram-LM truecaser with sentence-level Viterbi decoding (Lita et al. 2003, section 2.2).

    Parameters
    ----------
    min_count : cased forms seen fewer times become UNKNOWN_LC/UC/CA/MC tokens (section 2.3).
    n_casings : only the n most frequent casings of a word are candidates (section 2.4).
    smoothing : "kneser_ney" (default, best on dev) or "deleted_interpolation" (paper eq. 1).
    order : the LM's order, 3 (the paper's trigram, default) or 2, 4, 5 (Kneser-Ney only; the
        search stays exact, recombining on KenLM's state).  Order 5 gained 0.06 dev F1 with the
        default decoder and pruning, for a 1.5x larger LM (0.11 unpruned, 4.3x; docs/experiments/truecaser.md).
    prune : count-pruning thresholds per order, unigrams first, as KenLM's ``lmplz --prune`` (the last
        repeats for higher orders): an n-gram of order k seen no more than ``prune[k-1]`` times is
        dropped from the LM and its mass goes to the back-off (:func:`.lm.estimate_kneser_ney`).
        Kneser-Ney only.  None (default): ``DEFAULT_PRUNE`` (n-grams of order 3 and up seen once:
        the LM halves at the same dev F1 and gains on news, docs/experiments/truecaser.md) with Kneser-Ney, none with
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
        text.  Off by default: it lowered dev F1 (docs/experiments/truecaser.md).  "none" on a fitted model decodes without it.
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
    class_lm_binary : KenLM binary layout of the class LM (``lm.BINARY_FORMATS``): "trie-q8"
        (default: trie, 8-bit quantised; 10 MB at order 3 with 600 classes on the default text,
        where the hash, "probing", takes 72 MB, with the same dev, WSJ and Reuters scores)
        or "probing" (faster to ask).
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
                 class_lm_order: int = CLASS_ORDER, class_lm_binary: str = "trie-q8",
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

    def check_params(self):
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


    def set_params(self, **params):
        """As scikit-learn's, and forget cached candidate lists (they depend on the parameters)."""
        super().set_params(**params)
        self._cand_cache, self._native_cache, self._phrase_cache, self._context_map = {}, {}, {}, None
        return self

    # ------------------------------------------------------------------ extension points
    @property
    def search(self) -> str:
        """Which search decodes: ``"auto"`` (the default: the C++ search when its library is built
        and the model's parts allow it, else the Python search), ``"native"`` (the C++ search, an
        error when it cannot be used) or ``"python"`` (the Python search: the same output, slower).
        A setting of this object, not a parameter: it is not saved with the model."""
        return getattr(self, "_search", "auto")

    @search.setter
    def search(self, value: str) -> None:
        if value not in SEARCHES:
            raise ValueError(f"search must be one of {', '.join(SEARCHES)}, not {value!r}")
        self._search = value

    def search_in_use(self) -> str:
        """``"native"`` when the next batch decodes with the C++ search, else ``"python"`` (the
        ``search`` setting, the library, and the class LMs the C++ search can take: its own one)."""
        if self.search == "python" or self.extra_class_lms:
            return "python"
        dec = self.native_decoder()
        ok = dec is not None and (not self.class_lm_active() or self.native_class_decoder() is not None)
        if not ok and self.search == "native":
            raise RuntimeError("search='native', but the C++ search cannot decode this model: its library is "
                               "not built (make), switched off (TEXTQA_NATIVE_VITERBI=0), or cannot open its LMs")
        return "native" if ok else "python"

    def search_status(self) -> str:
        """:meth:`search_in_use`, and why: ``native (library path)`` or ``python (reason)``."""
        if self.search_in_use() == "native":
            return native.status()
        return "python (search='python')" if self.search == "python" else native.status()

    @property
    def emission_scorers(self) -> tuple:
        """The scorers :meth:`add_emission_scorer` added (not saved with the model)."""
        return tuple(getattr(self, "_emission_scorers", ()))

    def add_emission_scorer(self, scorer) -> None:
        """Add a source of evidence to both searches' emission scores.

        ``scorer(low, sent_off)`` gets a batch's tokens, lowercased and flat (``low``), and the
        offsets of its sentences in them (``sent_off``: sentence k is ``low[sent_off[k]:sent_off[k +
        1]]``); it returns {flat token index: one score per candidate of that token, in the order of
        :meth:`candidates`}, in log10 units like the LM's, added to those candidates' emission
        scores.  Tokens it leaves out get nothing.  The C++ and the Python search add it alike."""
        self._emission_scorers = [*self.emission_scorers, scorer]

    @property
    def extra_class_lms(self) -> tuple:
        """More class LMs beside the model's own, as (``kenlm.Model`` over the class tokens of a
        :class:`.classes.WordClasses`, that ``WordClasses``, weight) triples; the search scores each
        candidate by every class LM (:meth:`class_lms`).  The C++ search takes one class LM, so a
        model with more decodes with the Python search (:meth:`search_in_use`).  Not saved."""
        return tuple(getattr(self, "_extra_class_lms", ()))

    @extra_class_lms.setter
    def extra_class_lms(self, lms) -> None:
        self._extra_class_lms = [tuple(x) for x in lms]

    def replace_lm(self, lm_path: str) -> None:
        """Decode with another word LM (a KenLM file over the same tokens), forgetting what was
        cached of the old one: the C++ search opens the new file."""
        self.lm_, self.lm_path_ = kenlm.Model(str(lm_path)), str(lm_path)
        self.set_params()

    # ------------------------------------------------------------------ decoding
    def candidates(self, tok: str):
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


    def class_lm_active(self) -> bool:
        return getattr(self, "class_lm_", None) is not None and self.class_lm_weight > 0

    def class_lms(self) -> list:
        """[(class LM, its word classes, weight)] that the search adds to the word LM: the model's
        class LM when it is on, and those :meth:`add_class_lm` added."""
        own = [(self.class_lm_, self.classes_, self.class_lm_weight)] if self.class_lm_active() else []
        return own + list(self.extra_class_lms)

    # The lattice of :meth:`viterbi` (also read by ``dev/truecaser_posterior.py``): a state is the
    # word LM's KenLM state, or with class LMs (``cls_lms``: :meth:`class_lms`) a tuple of the word
    # LM's and each class LM's.


    def _phrase_scores(self, tokens: list[str], lowered: bool = False, sent_off=None) -> dict | None:
        """{token index: ``phrase_weight`` times the phrase score of each of its candidates} over
        one sentence, or several (``sent_off``: their offsets, as
        :meth:`.phrases.PhraseTable.covered`), ``lowered`` or not; tokens with one candidate or no
        phrase are left out.  None when there is no phrase table or the weight is 0."""
        table = getattr(self, "phrases_", None)
        w = self.phrase_weight
        if table is None or not w:
            return None
        return table.scores(tokens if lowered else [t.lower() for t in tokens], self.candidate_forms, sent_off, w,
                            self._phrase_cache)

    def candidate_forms(self, word: str) -> list[str]:
        """The output forms of a token's candidates (:meth:`candidates`), in their order."""
        return [f for f, _, _ in self.candidates(word)]

    def extra_scores(self, low: list[str], sent_off, context: bool = True) -> dict:
        """{token index: the added emission score of each candidate}: the phrase scores plus the
        discriminative pass's (:mod:`.rerank`; ``discriminative``) and, with ``context``, the
        sentence-context model's (:meth:`_context_scores`), and the emission scorers'
        (:meth:`add_emission_scorer`), over the lowercased sentences ``low`` at the offsets ``sent_off``."""
        out = self._phrase_scores(low, lowered=True, sent_off=sent_off) or {}
        weights = getattr(self, "reranker_", None)
        if weights is not None and self.discriminative != "none":
            for k, x in weights.scores(low, sent_off, self.candidate_forms, self.casing_.forms.get).items():
                add_emissions(out, k, x)
        scored = self._context_scores(low, sent_off) if context else None
        if scored is not None:
            pos, n, vals = scored
            for k, a, b in zip(pos.tolist(), accumulate(n.tolist(), initial=0), accumulate(n.tolist())):
                add_emissions(out, k, vals[a:b].tolist())
        for scorer in self.emission_scorers:
            for k, x in scorer(low, sent_off).items():
                add_emissions(out, k, x)
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
            cmap = self._context_map = (ctx, ctx.candidate_map(self.candidate_forms))
        pos, n, vals = ctx.candidate_scores(low, sent_off, cmap[1], codes)
        return pos, n, self.context_weight * vals

    def oov_scores(self, token_lists) -> dict:
        if self.oov_ is None:
            return {}
        unseen = set()
        for toks in token_lists:
            for t in toks:
                key = t.lower()
                if key not in self.casing_.forms and case_class(key) != NONE:
                    unseen.add(key)
        return self.oov_log10_ratios(unseen)

    def oov_log10_ratios(self, words) -> dict:
        """{unseen word: the OOV model's log10 ratios (:meth:`.oov.CharCasingClassifier.log10_ratio`)},
        each word's worked out once and kept (a word's ratios depend on its characters alone: the
        same numbers in any batch); a text's unseen words recur."""
        cache = getattr(self, "_oov_cache", None)
        if cache is None or cache[0] is not self.oov_:
            cache = self._oov_cache = (self.oov_, {})
        known, words = cache[1], set(words)
        new = sorted(w for w in words if w not in known)
        if len(known) + len(new) > 200_000:          # a bound on a long-running service's cache
            known.clear()
            new = sorted(words)
        if new:
            known.update(zip(new, self.oov_.log10_ratio(new)))
        return {w: known[w] for w in words}


    def _parts(self, toks: list[str]) -> list[list[str]]:
        """A token list as the search decodes it: sentence by sentence (``split_sentences``) or whole."""
        return (split_at_sentence_final(toks) if self.split_sentences else [toks]) if toks else []


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
        if self.search_in_use() == "native":
            return self._predict_native(token_lists, self.native_decoder())
        oov = self.oov_scores(token_lists)
        parts_of = [self._parts(toks) for toks in token_lists]
        every = [part for parts in parts_of for part in parts]
        sent_off = list(accumulate(map(len, every), initial=0))
        low = [t.lower() for part in every for t in part]
        by_part: dict = defaultdict(dict)        # the added emission scores of each part, by position in it
        for i, x in self.extra_scores(low, sent_off).items():
            k = bisect_right(sent_off, i) - 1
            by_part[k][i - sent_off[k]] = x
        out, k = [], 0
        for parts in parts_of:
            res = []
            for part in parts:
                cased = self.viterbi(part, oov, by_part.get(k, {}))
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


