"""The truecaser's run-time options (the registry's entry lists them): the decoder, and the parts of
the decoding a load option switches off, each as the estimator parameters that do it."""
from __future__ import annotations

from textqa.runtime.options import Option

#: The truecaser's decoding parts a load option switches off, each as the estimator parameters that
#: do it (``Truecaser.set_params``); the paper's trigram decoder (``decoder="trigram"``) is all of them off.
PARTS = {
    "phrases": {"phrase_weight": 0.0},
    "compounds": {"compound_casing": False},
    "discriminative": {"discriminative": "none"},
    "class_lm": {"class_lm_weight": 0.0},
    "context": {"context_weight": 0.0},
}
TRIGRAM_DECODER = {k: v for part in PARTS.values() for k, v in part.items()}


def _part(name: str, help: str) -> Option:
    """The load option that switches the truecaser's decoding part ``name`` off (``--no-NAME``)."""
    return Option(name, True, help, stage="load", settings={True: {}, False: PARTS[name]})


OPTIONS = (
    Option("baseline", False, "use the unigram most-frequent-casing baseline"),
    Option("decoder", "default", "'trigram': the paper's decoder, the trigram LM (and the OOV model) alone, "
           "without the cased-phrase scores, the part-by-part casing of unseen compounds, a discriminative pass, "
           "a class LM and the sentence-context model (--no-phrases --no-compounds --no-discriminative --no-class-lm "
           "--no-context); default: what the model was trained with",
           stage="load", choices=("default", "trigram"), settings={"default": {}, "trigram": TRIGRAM_DECODER}),
    _part("phrases", "without the cased-phrase scores"),
    _part("compounds", "unseen compounds the search capitalises keep the paper's first-letter capital "
          "('Saint-laurent-des-combes', not 'Saint-Laurent-des-Combes')"),
    _part("discriminative", "without the discriminative pass of a model trained with one (train --discriminative)"),
    _part("class_lm", "without the class LM of a model trained with one (the default model has one)"),
    _part("context", "without the sentence-context model (a casing classifier per ambiguous word over the "
          "other words of its sentence) of a model trained with one (the default model has one)"),
)
