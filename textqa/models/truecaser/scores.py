"""What the truecaser's two searches share: each token's candidates and their emission scores.

A :class:`CandidateScores` is built by :class:`.model.Truecaser` from its fitted tables and a frozen
tuple of its decode-time parameters (:class:`DecodeParams`); the model builds another when either
differs (a parameter set by ``set_params`` or by assignment, a new fit, another LM), so the caches
it keeps (candidates, the sentence-context model's candidate map, the OOV model's
ratios) can never be those of other parameters."""
from __future__ import annotations

from itertools import accumulate
from typing import NamedTuple

from .casing import NONE, UNKNOWN_TOKENS, apply_class, capitalize_first, case_class
from .compounds import SEPARATORS, compound_form
from .oov import CAPITALISED
from .tokenize import split_at_sentence_final
from .vocabulary import UNKNOWN_NONE

#: Bounds on the caches of a long-running service.
MAX_CACHED = 500_000
MAX_OOV_CACHED = 200_000


class DecodeParams(NamedTuple):
    """The estimator parameters the search reads as it decodes (:class:`.model.Truecaser`'s, frozen)."""
    n_casings: int
    min_casing_share: float
    first_word: str
    split_sentences: bool
    oov_weight: float
    phrase_weight: float
    compound_casing: bool
    discriminative: str
    class_lm_weight: float
    context_weight: float


def add_emissions(extra: dict, pos: int, scores: list) -> None:
    """Add ``scores`` (one per candidate) to the added emission scores of token ``pos`` in ``extra``
    ({token index: each candidate's added score}, as :meth:`CandidateScores.extra_scores` returns)."""
    extra[pos] = [a + b for a, b in zip(extra[pos], scores)] if pos in extra else scores


class CandidateScores:
    """The candidates of each token and their emission scores beyond the word LM's, for one
    truecaser ``model``'s fitted tables and the decode-time parameters ``params`` (the model builds
    a new one when either changes)."""

    def __init__(self, model, params: DecodeParams, hooks: tuple = ((), ())):
        self.model, self.params = model, params
        self.emission_scorers, self.extra_class_lms = hooks     # the experiments' (.experiments)
        self._candidates: dict = {}
        self._context_map = None
        self._oov: dict = {}

    # ------------------------------------------------------------------ candidates
    def candidates(self, tok: str):
        """[(output form, LM token, needs OOV score class or None)] for one input token."""
        key = tok.lower()
        cached = self._candidates.get(key)
        if cached is not None:
            return cached
        m, p = self.model, self.params
        forms = m.casing_.forms.get(key)
        if forms:
            floor = p.min_casing_share * sum(c for _, c in forms)
            cands = [(f, f, None) for i, (f, c) in enumerate(forms[:p.n_casings]) if i == 0 or c >= floor]
        elif case_class(key) == NONE:
            cands = [(key, UNKNOWN_NONE, None)]
        else:
            cands = [(apply_class(key, c), UNKNOWN_TOKENS[c], c) for c in ("LC", "UC", "CA")]
            mc = m.rare_mc_.get(key)
            if mc is not None:
                cands.append((mc, UNKNOWN_TOKENS["MC"], "MC"))
            elif p.compound_casing and m.compound_parts_ is not None:
                # an unseen compound's capitalised candidate is what the compound casing renders
                # ("Alpes-Maritimes", not "Alpes-maritimes"); its spelling evidence is then the OOV
                # model's for a capital, first letter only or not (UC or MC), not UC's alone
                form = compound_form(key, m.compound_parts_)
                if form is not None and len(form) == len(key):
                    cands[1] = (form, UNKNOWN_TOKENS["UC"], CAPITALISED)
        if len(self._candidates) < MAX_CACHED:
            self._candidates[key] = cands
        return cands

    def candidate_forms(self, word: str) -> list[str]:
        """The output forms of a token's candidates (:meth:`candidates`), in their order."""
        return [f for f, _, _ in self.candidates(word)]

    def parts(self, toks: list[str]) -> list[list[str]]:
        """A token list as the searches decode it: sentence by sentence (``split_sentences``) or whole."""
        return (split_at_sentence_final(toks) if self.params.split_sentences else [toks]) if toks else []

    # ------------------------------------------------------------------ the LMs beside the word LM
    def class_lm_active(self) -> bool:
        return self.model.class_lm_ is not None and self.params.class_lm_weight > 0

    def class_lms(self) -> list:
        """[(class LM, its word classes, weight)] that the search adds to the word LM: the model's
        class LM when it is on, and its ``extra_class_lms``."""
        m = self.model
        own = [(m.class_lm_, m.classes_, self.params.class_lm_weight)] if self.class_lm_active() else []
        return own + list(self.extra_class_lms)

    # ------------------------------------------------------------------ emission scores
    def phrase_scores(self, low: list[str], sent_off=None) -> dict | None:
        """{token index: ``phrase_weight`` times the phrase score of each of its candidates} over
        the lowercased sentences ``low`` (``sent_off``: their offsets, as
        :meth:`.phrases.PhraseTable.covered`); tokens with one candidate or no phrase are left out.
        None when there is no phrase table or the weight is 0."""
        table, w = self.model.phrases_, self.params.phrase_weight
        if table is None or not w:
            return None
        return table.scores(low, self.candidate_forms, sent_off, w)

    def extra_scores(self, low: list[str], sent_off, context: bool = True, phrases: bool = True) -> dict:
        """{token index: the added emission score of each candidate}: with ``phrases``, the phrase
        scores, plus the discriminative pass's (:mod:`.rerank`; ``discriminative``) and, with
        ``context``, the sentence-context model's (:meth:`context_scores`), and the model's emission
        scorers (:meth:`.experiments.ExperimentalTruecaser.add_emission_scorer`), over the lowercased
        sentences ``low`` at the offsets ``sent_off``."""
        m = self.model
        out = (self.phrase_scores(low, sent_off) if phrases else None) or {}
        if m.reranker_ is not None and self.params.discriminative != "none":
            for k, x in m.reranker_.scores(low, sent_off, self.candidate_forms, m.casing_.forms.get).items():
                add_emissions(out, k, x)
        scored = self.context_scores(low, sent_off) if context else None
        if scored is not None:
            pos, n, vals = scored
            for k, a, b in zip(pos.tolist(), accumulate(n.tolist(), initial=0), accumulate(n.tolist())):
                add_emissions(out, k, vals[a:b].tolist())
        for scorer in self.emission_scorers:
            for k, x in scorer(low, sent_off).items():
                add_emissions(out, k, x)
        return out

    def context_scores(self, low: list[str], sent_off, codes=None):
        """(positions, their number of candidates, ``context_weight`` times each candidate's
        sentence-context score, flat: :meth:`.context.SentenceContext.candidate_scores`) over the
        lowercased sentences ``low`` at the offsets ``sent_off`` (``codes``: their codes in that
        model, if known); None without that model or weight."""
        ctx = self.model.context_
        if ctx is None or not self.params.context_weight:
            return None
        if self._context_map is None:
            self._context_map = ctx.candidate_map(self.candidate_forms)
        pos, n, vals = ctx.candidate_scores(low, sent_off, self._context_map, codes)
        return pos, n, self.params.context_weight * vals

    def oov_scores(self, token_lists) -> dict:
        """{unseen word of ``token_lists``: its OOV ratios (:meth:`oov_log10_ratios`)}; {} without an OOV model."""
        if self.model.oov_ is None:
            return {}
        forms, unseen = self.model.casing_.forms, set()
        for toks in token_lists:
            for t in toks:
                key = t.lower()
                if key not in forms and case_class(key) != NONE:
                    unseen.add(key)
        return self.oov_log10_ratios(unseen)

    def oov_log10_ratios(self, words) -> dict:
        """{unseen word: the OOV model's log10 ratios (:meth:`.oov.CharCasingClassifier.log10_ratio`)},
        each word's worked out once and kept (a word's ratios depend on its characters alone: the
        same numbers in any batch); a text's unseen words recur."""
        known, words = self._oov, set(words)
        new = sorted(w for w in words if w not in known)
        if len(known) + len(new) > MAX_OOV_CACHED:
            known.clear()
            new = sorted(words)
        if new:
            known.update(zip(new, self.model.oov_.log10_ratio(new)))
        return {w: known[w] for w in words}

    def case_compounds(self, cased: list[str], low: list[str], unseen) -> None:
        """Case, in place, the unseen compounds (``unseen``: the positions that may be unseen words)
        that the search capitalised part by part (:mod:`.compounds`; ``compound_casing``)."""
        m = self.model
        parts = m.compound_parts_
        if not self.params.compound_casing or parts is None:
            return
        forms = m.casing_.forms
        for t in unseen:
            key = low[t]
            if key not in forms and SEPARATORS.search(key) and cased[t] == capitalize_first(key):
                form = compound_form(key, parts)
                if form is not None and len(form) == len(cased[t]):
                    cased[t] = form
