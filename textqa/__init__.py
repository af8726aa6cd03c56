"""textqa: classic NLP models (truecaser, BLANC, ICD-9 coders, instance-based QA) as versioned artifacts.

The public Python API is ``textqa.load`` (see the README, "Python API") and the scorers of
``textqa.metrics``; everything else in the package is reached through the ``textqa`` command, the
HTTP service, or the objects ``load`` returns.
"""
from textqa.runtime.loaded import LoadedModel
from textqa.version import __version__

__all__ = ["LoadedModel", "load", "__version__"]


def load(model, artifacts=None, **options):
    """Load a trained model: ``"truecaser"``, ``"blanc"``, ``"icd9"`` or ``"qa"`` (a folder under the
    artifacts root: ``artifacts``, else ``$TEXTQA_ARTIFACTS``, else ``./artifacts``), or the path of an
    artifact folder.  Returns the object the HTTP service uses, a :class:`LoadedModel` (its
    ``manifest``, ``load_options``, ``status()`` and ``warm_up()``) with the model's own calls:

    * truecaser: ``truecase(text)``, ``truecase_tokenized(lines)``;
    * BLANC: ``sentence_score(hypothesis, references)``, ``corpus_score(hypotheses, references)``;
    * ICD-9: ``code(documents)`` (strings, ``{"id", "text"}`` / ``{"id", "sections"}`` dicts);
    * QA: ``answer(question, top_k=5)``.

    ``options`` are the model's load-time options (``textqa.registry``), the same as the command
    line's flags: for the truecaser ``decoder="trigram"`` (the paper's decoder), ``phrases=False``,
    ``compounds=False``, ``discriminative=False``, ``class_lm=False``, ``context=False``.  An unknown
    option raises ``TypeError``.

    Raises ``textqa.models.artifact.ArtifactError`` (a ``ValueError``) when the artifact is missing or
    invalid.
    """
    from textqa.api import load as _load  # deferred: loads orjson, numpy
    return _load(model, artifacts, **options)
