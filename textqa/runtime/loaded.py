"""What ``textqa.load`` returns, whatever the model: a :class:`LoadedModel`.

The service, the commands and ``textqa batch`` read these and ask nothing else about a model's shape
(spaCy's ``load`` is the model: one kind of object, whatever the pipeline).  A ``typing.Protocol``,
checkable at run time, below the models so that each model names it as its base; the registry's
``ModelEntry.load`` refuses a loader that returns anything else.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, Protocol, runtime_checkable


@runtime_checkable
class LoadedModel(Protocol):
    """A model loaded from its artifact.

    * ``manifest``: the artifact's manifest (``textqa.models.artifact.read_manifest``'s dict);
    * ``load_options``: the load-time options in force, every one with its value (the registry's
      ``Option`` entries of ``stage="load"``), set by ``ModelEntry.load`` (none, read-only, on a
      model made without it);
    * ``status()``: what ``/v1/models`` shows of the model beyond its manifest, as ``{field: line}``
      (the truecaser's search in use; QA's collection and reader, with the stages of their background
      builds); ``{}`` when there is nothing to say;
    * ``warm_up()``: one small call right after loading, so that the first request does not pay for
      lazy initialisation (numba, spaCy's first parse, ...).
    """

    manifest: dict
    load_options: Mapping[str, Any] = MappingProxyType({})

    def status(self) -> dict[str, str]:
        """``{field: line}`` for ``/v1/models`` (see the class)."""
        return {}

    def warm_up(self) -> None:
        """One small call through the model (see the class)."""
        ...


LoadedModel.__module__ = "textqa"       # where users meet it: ``textqa.LoadedModel``
