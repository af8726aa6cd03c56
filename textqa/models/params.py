"""scikit-learn's estimator parameters (``get_params`` / ``set_params``) without importing scikit-learn.

scikit-learn documents what a compatible estimator implements ("Developing scikit-learn
estimators"): its hyper-parameters are its constructor's keyword arguments, stored under the same
names, and ``get_params`` / ``set_params`` read and write them.  :class:`Params` does that by
reading ``__init__``'s signature, as ``sklearn.base.BaseEstimator`` does, so that ``sklearn.base.clone``
and grid searches take the estimator while loading and running a trained model imports none of
scikit-learn (0.7 s of a command's start-up)."""
from __future__ import annotations

import inspect


class Params:
    """``get_params``, ``set_params`` and a ``repr`` naming the changed parameters.  A subclass
    may override :meth:`_params_changed` to forget what it derived from the old values."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return sorted(p.name for p in sig.parameters.values()
                      if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))

    def get_params(self, deep: bool = True) -> dict:
        """{parameter: value} (``deep`` is accepted for scikit-learn; these parameters hold no estimators)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set parameters by name; an unknown name is a ``ValueError`` naming the valid ones."""
        valid = self._param_names()
        for name in params:
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                                 f"Valid parameters are: {valid!r}.")
        for name, value in params.items():
            setattr(self, name, value)
        self._params_changed()
        return self

    def _params_changed(self) -> None:
        """Called by :meth:`set_params` after it set the new values."""

    def __repr__(self) -> str:
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if defaults.get(k, inspect.Parameter.empty) != v]
        return f"{type(self).__name__}({', '.join(changed)})"
