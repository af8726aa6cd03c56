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

from textqa.runtime.gc_pause import gc_paused

from ..params import Params
from . import lm as lmmod
from . import native
from .baseline import as_tokens
from .casing import fold_accents, restore_accents
from .classes import CLASS_ORDER, TARGETS
from .context import DEFAULT_C, DEFAULT_MIN_WEIGHT
from .fitting import TruecaserFitting
from .kneser_ney import prune_thresholds
from .native_search import NativeSearch
from .python_search import PythonSearch
from .rerank import FEATURE_SETS
from .scores import CandidateScores, DecodeParams

log = logging.getLogger(__name__)

FIRST_WORD_OPTIONS = ("lm", "lm+upper", "mask", "mask+upper")
SMOOTHING_OPTIONS = ("kneser_ney", "deleted_interpolation")
ORDERS = (2, 3, 4, 5)
SEARCHES = ("auto", "native", "python")
#: Count pruning of a Kneser-Ney LM by default (``lmplz --prune 0 0 1``): n-grams of order 3 and up
#: seen once are dropped, which halves the LM at the same dev F1 (docs/experiments/truecaser.md, "Pruning").
DEFAULT_PRUNE = (0, 0, 1)
#: The OOV model's weight in the search: the middle of a plateau of dev F1 over 1 to 3
#: (docs/experiments/truecaser.md, "The OOV model's weight, again").
DEFAULT_OOV_WEIGHT = 2.0


#: The fitted tables the search is made from: when one is another object (a fit, a load, another
#: LM), or a decode-time parameter (:class:`.scores.DecodeParams`) has another value, the search is
#: made again; nothing else resets it.
SEARCH_TABLES = ("lm_", "lm_path_", "casing_", "rare_mc_", "compound_parts_", "oov_", "phrases_", "reranker_",
                 "context_", "classes_", "class_lm_", "class_lm_path_", "search_inputs_")
#: Every fitted attribute (:meth:`Truecaser.from_tables` takes these and no other).
FITTED = SEARCH_TABLES + ("lm_info_", "ngram_counts_", "n_train_tokens_", "baseline_", "manifest_")


def _same_key(a: tuple, b: tuple) -> bool:
    """Two keys of :meth:`Truecaser._derived` alike: tuples compared item by item, objects by identity,
    numbers, strings and parameters by value."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y:
            continue
        if isinstance(x, tuple) and isinstance(y, tuple):
            if not _same_key(x, y):
                return False
        elif not (isinstance(x, (int, float, str, bool)) and type(x) is type(y) and x == y):
            return False
    return True


def _open_decoder(path: str):
    try:
        return native.NativeViterbi(path)
    except RuntimeError as e:
        log.warning("%s; decoding in Python", e)
        return None


class Truecaser(TruecaserFitting, Params):
    """Trigram-LM truecaser with sentence-level Viterbi decoding (Lita et al. 2003, section 2.2).

    Parameters
    ----------
    min_count : cased forms seen fewer times become UNKNOWN_LC/UC/CA/MC tokens (section 2.3).
    n_casings : only the n most frequent casings of a word are candidates (section 2.4).
    smoothing : "kneser_ney" (default, best on dev) or "deleted_interpolation" (paper eq. 1).
    order : the LM's order, 3 (the paper's trigram, default) or 2, 4, 5 (Kneser-Ney only; the
        search stays exact, recombining on KenLM's state; docs/experiments/truecaser.md, "Longer context").
    prune : count-pruning thresholds per order, unigrams first, as KenLM's ``lmplz --prune`` (the last
        repeats for higher orders): an n-gram of order k seen no more than ``prune[k-1]`` times is
        dropped from the LM and its mass goes to the back-off (:func:`.kneser_ney.estimate_kneser_ney`).
        Kneser-Ney only.  None (default): ``DEFAULT_PRUNE`` with Kneser-Ney, none with deleted
        interpolation; ``(0,)`` or ``()``: no pruning.
    first_word : section 2.5 options: "lm" (decode from <s>), "mask" (decode from a null
        context, masking the sentence-begin effect), each optionally followed by "+upper"
        (uppercase the first letter afterwards, table 1's "truecasing+").
    split_sentences : decode a tokenized line sentence by sentence (split after . ? !).
    oov_model : "char" adds the character-level casing classifier for unseen words, "none" not.
    oov_weight : weight of the classifier's log-ratio against the LM score (:data:`DEFAULT_OOV_WEIGHT`).
    heldout_every : every k-th training sentence is held out to fit the interpolation lambdas.
    min_casing_share : drop candidate casings seen in less than this share of a word's
        occurrences (0 keeps all n; pruning trades a little accuracy for speed).
    lm_binary : KenLM binary layout (``lm.BINARY_FORMATS``): "trie-q8" (default, a fraction of the
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
        text.  Off by default (docs/experiments/truecaser.md, "A discriminative pass over the lattice").
        "none" on a fitted model decodes without it.
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
        (default: trie, 8-bit quantised, a fraction of the hash's size) or "probing" (the hash:
        faster to ask; docs/experiments/truecaser.md, "A class-based LM").
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

    @classmethod
    def from_tables(cls, params: dict, **tables) -> "Truecaser":
        """A fitted model from its parameters and its fitted tables (:data:`FITTED`, each by name;
        one not given is None): what loading an artifact builds.  An unknown name is a ``TypeError``."""
        unknown = sorted(set(tables) - set(FITTED))
        if unknown:
            raise TypeError(f"not a fitted table of the truecaser: {', '.join(unknown)}")
        model = cls(**params)
        for name in FITTED:
            setattr(model, name, tables.get(name))
        return model

    # ------------------------------------------------------------------ parameters
    def prune_thresholds(self) -> tuple:
        """The count-pruning thresholds trained with (``prune``, or its default for the smoothing)."""
        if self.prune is None:
            return DEFAULT_PRUNE if self.smoothing == "kneser_ney" else ()
        return tuple(self.prune)

    def check_params(self):
        """ValueError naming the first parameter out of its range."""
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
        if any(prune_thresholds(self.prune_thresholds(), self.order)) and self.smoothing != "kneser_ney":
            raise ValueError("count pruning (prune) is implemented for kneser_ney smoothing only")
        if self.discriminative not in ("none", *FEATURE_SETS):
            raise ValueError(f"discriminative must be 'none' or one of {tuple(FEATURE_SETS)}, got {self.discriminative!r}")
        if self.min_count < 1 or self.n_casings < 1:
            raise ValueError("min_count and n_casings must be >= 1")
        self._check_class_lm()
        if not isinstance(self.context_cap, int) or self.context_cap < 0:
            raise ValueError(f"context_cap must be a whole number >= 0, got {self.context_cap!r}")
        for name in ("context_weight", "context_min_weight", "oov_weight"):
            if not (getattr(self, name) >= 0 and math.isfinite(getattr(self, name))):
                raise ValueError(f"{name} must be a finite number >= 0")
        if not (self.context_C > 0 and math.isfinite(self.context_C)):
            raise ValueError("context_C must be a finite number > 0")
        if not (self.phrase_weight >= 0 and math.isfinite(self.phrase_weight)) or self.phrase_min_count < 1:
            raise ValueError("phrase_weight must be a finite number >= 0 and phrase_min_count >= 1")

    def _check_class_lm(self) -> None:
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

    # ------------------------------------------------------------------ the search's state
    def decode_params(self) -> DecodeParams:
        """The decode-time parameters as they are now, frozen."""
        return DecodeParams(*(getattr(self, name) for name in DecodeParams._fields))

    def _tables(self) -> tuple:
        """The fitted tables the search is made from, as they are now (each compared by identity)."""
        return tuple(self.__dict__.get(name) for name in SEARCH_TABLES) + self._experiment_hooks()

    def _derived(self, name: str, make, key):
        """What the search derives, kept under ``name`` with the ``key`` it was made for, and made
        again (``make()``) when the key differs: the fitted tables by identity, the rest by value."""
        kept = self.__dict__.setdefault("_search_state", {}).get(name)
        if kept is not None and _same_key(kept[0], key):
            return kept[1]
        value = make()
        self._search_state[name] = (key, value)
        return value

    def __getstate__(self):
        """Pickled without what the search derives (made again on first use)."""
        return {k: v for k, v in self.__dict__.items() if k != "_search_state"}

    def scores(self) -> CandidateScores:
        """Each token's candidates and their emission scores (:class:`.scores.CandidateScores`), for
        the fitted tables and the decode-time parameters as they are now."""
        params = self.decode_params()
        return self._derived("scores", lambda: CandidateScores(self, params, self._experiment_hooks()),
                             (self._tables(), params))

    def python_search(self) -> PythonSearch:
        """The Python search (:class:`.python_search.PythonSearch`)."""
        scores = self.scores()
        return self._derived("python", lambda: PythonSearch(scores), (scores,))

    def native_search(self) -> NativeSearch | None:
        """The C++ search (:class:`.native_search.NativeSearch`) over this model's LMs, or None when
        it cannot decode this model (its library not built, switched off, or an LM it cannot open)."""
        dec = self.native_decoder()
        if dec is None:
            return None
        scores = self.scores()
        cdec = None
        if scores.class_lm_active():
            cdec = self.native_class_decoder()
            if cdec is None:
                return None
        return self._derived("native", lambda: NativeSearch(scores, dec, cdec), (scores, dec, cdec))

    def prepare(self) -> "Truecaser":
        """Make the search now, as it would be made on the first batch (every known word's row of
        the C++ search, :class:`.native_search.NativeSearch`): loading does, so that a file's first
        lines decode as fast as its last."""
        self.search_in_use()            # builds the C++ search when it is the one in use
        return self

    def native_decoder(self):
        """The C++ decoder of the word LM's file (:mod:`.native`), or None (not built, switched off
        with ``TEXTQA_NATIVE_VITERBI=0``, or the LM cannot be opened)."""
        return self._decoder(self.lm_path_, self.lm_) if native.available() else None

    def native_class_decoder(self):
        """The C++ decoder's handle of the class LM (:mod:`.classes`), or None (no class LM)."""
        if self.class_lm_ is None or not native.available():
            return None
        return self._decoder(self.class_lm_path_, self.class_lm_)

    def _decoder(self, path: str, lm):
        """The C++ decoder's handle of the LM file ``path`` (loaded in Python as ``lm``), opened once
        per file and LM object (None when it failed: the Python search then decodes)."""
        return self._derived(f"decoder {path}", lambda: _open_decoder(path), (lm,))

    # ------------------------------------------------------------------ extension points
    @property
    def search(self) -> str:
        """Which search decodes: ``"auto"`` (the default: the C++ search when its library is built
        and the model's parts allow it, else the Python search), ``"native"`` (the C++ search, an
        error when it cannot be used) or ``"python"`` (the Python search: the same output, slower).
        A setting of this object, not a parameter: it is not saved with the model."""
        return self.__dict__.get("_search", "auto")

    @search.setter
    def search(self, value: str) -> None:
        if value not in SEARCHES:
            raise ValueError(f"search must be one of {', '.join(SEARCHES)}, not {value!r}")
        self._search = value

    def search_in_use(self) -> str:
        """``"native"`` when the next batch decodes with the C++ search, else ``"python"`` (the
        ``search`` setting, the library, and the class LMs the C++ search can take: its own one)."""
        if self.search == "python" or self._experiment_hooks()[1]:
            return "python"
        ok = self.native_search() is not None
        if not ok and self.search == "native":
            raise RuntimeError("search='native', but the C++ search cannot decode this model: its library is "
                               "not built (make), switched off (TEXTQA_NATIVE_VITERBI=0), or cannot open its LMs")
        return "native" if ok else "python"

    def search_status(self) -> str:
        """:meth:`search_in_use`, and why: ``native (library path)`` or ``python (reason)``."""
        if self.search_in_use() == "native":
            return native.status()
        return "python (search='python')" if self.search == "python" else native.status()

    def _experiment_hooks(self) -> tuple:
        """(emission scorers, extra class LMs) the search adds: none here; the experiments' subclass
        (:class:`.experiments.ExperimentalTruecaser`) has its own."""
        return (), ()

    # ------------------------------------------------------------------ decoding
    def candidates(self, tok: str):
        """[(output form, LM token, needs OOV score class or None)] for one input token
        (:meth:`.scores.CandidateScores.candidates`)."""
        return self.scores().candidates(tok)

    def candidate_forms(self, word: str) -> list[str]:
        """The output forms of a token's candidates (:meth:`candidates`), in their order."""
        return self.scores().candidate_forms(word)

    def predict_tokens(self, token_lists: list[list[str]]) -> list[list[str]]:
        """Truecase a batch of token lists (with the C++ decoder when it is built: same results); with
        ``fold_accents``, each token is decoded by its folded form and keeps its own letters."""
        with gc_paused():
            if not self.fold_accents:
                return self._decode(token_lists)
            folded = [toks if all(map(str.isascii, toks)) else list(map(fold_accents, toks)) for toks in token_lists]
            return [cased if f is toks else list(map(restore_accents, toks, cased))
                    for toks, f, cased in zip(token_lists, folded, self._decode(folded))]

    def _decode(self, token_lists: list[list[str]]) -> list[list[str]]:
        if self.search_in_use() == "native":
            return self.native_search().decode(token_lists)
        return self.python_search().decode(token_lists)

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
