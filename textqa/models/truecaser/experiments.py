"""The truecaser's hooks for experiments, outside the estimator's public surface.

:class:`ExperimentalTruecaser` is a :class:`.model.Truecaser` with three more ways in, which the
dev scripts and the tests use to try ideas without changing the model's code: another word LM
(:meth:`~ExperimentalTruecaser.replace_lm`), more class LMs beside the model's own
(:attr:`~ExperimentalTruecaser.extra_class_lms`) and more sources of emission scores
(:meth:`~ExperimentalTruecaser.add_emission_scorer`).  None of them is saved with a model.
"""
from __future__ import annotations

import kenlm

from .model import FITTED, Truecaser


class ExperimentalTruecaser(Truecaser):
    """A :class:`.model.Truecaser` with the experiments' hooks; :meth:`of` makes one from a fitted model."""

    @classmethod
    def of(cls, model: Truecaser) -> "ExperimentalTruecaser":
        """The fitted ``model``'s parameters and tables (shared, not copied) in an experimental model."""
        return cls.from_tables(model.get_params(), **{name: vars(model).get(name) for name in FITTED})

    def _experiment_hooks(self) -> tuple:
        return self.emission_scorers, self.extra_class_lms

    @property
    def emission_scorers(self) -> tuple:
        """The scorers :meth:`add_emission_scorer` added."""
        return tuple(self.__dict__.get("_emission_scorers", ()))

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
        candidate by every class LM (:meth:`.scores.CandidateScores.class_lms`).  The C++ search
        takes one class LM, so a model with more decodes with the Python search
        (:meth:`~.model.Truecaser.search_in_use`)."""
        return tuple(self.__dict__.get("_extra_class_lms", ()))

    @extra_class_lms.setter
    def extra_class_lms(self, lms) -> None:
        self._extra_class_lms = [tuple(x) for x in lms]

    def replace_lm(self, lm_path: str) -> None:
        """Decode with another word LM (a KenLM file over the same tokens): the C++ search opens the new file."""
        self.lm_, self.lm_path_ = kenlm.Model(str(lm_path)), str(lm_path)
