"""NLTK's tokenizer modules without NLTK's package import.

``import nltk`` (and ``import nltk.tokenize``) runs the package's ``__init__``, which imports
most of NLTK and, through it, scikit-learn and SciPy: most of a second for a command that
only splits sentences and words.  The four modules the truecaser's tokenizer uses (Punkt, the
Treebank tokenizer, ``tokenize.util`` and ``tabdata``) import only a few small modules of their
own, so they are imported here under two empty package modules standing for ``nltk`` and
``nltk.tokenize`` (their ``__path__`` is NLTK's folders: the same files, the same code, so the
same tokens byte for byte).  The stand-ins and every ``nltk.*`` module imported under them are then
taken out of ``sys.modules`` again: a later ``import nltk`` imports the real package from scratch,
as if this had never run.  When NLTK is already imported, its own modules are returned.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
import types
from functools import cache

_NAMES = ("nltk.tokenize.punkt", "nltk.tokenize.treebank", "nltk.tokenize.util", "nltk.tabdata")
_LOCK = threading.Lock()


@cache
def tokenizer_modules() -> types.SimpleNamespace:
    """NLTK's ``punkt``, ``treebank``, ``util`` (``nltk.tokenize.util``) and ``tabdata`` modules."""
    with _LOCK:
        real = sys.modules.get("nltk")
        if real is not None and getattr(real, "__file__", None):
            mods = [importlib.import_module(n) for n in _NAMES]
        else:
            mods = _import_without_package()
    return types.SimpleNamespace(**{n.rsplit(".", 1)[1]: m for n, m in zip(_NAMES, mods)})


def _import_without_package() -> list:
    spec = importlib.util.find_spec("nltk")
    if spec is None or spec.origin is None:
        raise ImportError("NLTK is not installed (make venv installs it)")
    root = os.path.dirname(spec.origin)
    before = {n for n in sys.modules if n == "nltk" or n.startswith("nltk.")}
    for name, folder in (("nltk", root), ("nltk.tokenize", os.path.join(root, "tokenize"))):
        stand_in = types.ModuleType(name)
        stand_in.__path__ = [folder]
        sys.modules[name] = stand_in
    try:
        return [importlib.import_module(n) for n in _NAMES]
    finally:
        for name in [n for n in sys.modules if (n == "nltk" or n.startswith("nltk.")) and n not in before]:
            del sys.modules[name]
