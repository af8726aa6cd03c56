"""Fitted scikit-learn estimators as plain arrays (for ``.npz`` files read with ``allow_pickle=False``).

Only what prediction needs is kept: a linear model's ``coef_``, ``intercept_`` and ``classes_``, a
``StandardScaler``'s ``mean_``/``scale_``.  Rebuilding sets those attributes on a fresh estimator
with the same hyper-parameters, so ``predict``/``decision_function``/``predict_proba`` are
scikit-learn's own.
"""
from __future__ import annotations

import functools

import numpy as np


def same_numbers_anywhere(fn):
    """Run ``fn`` with BLAS and OpenMP on one thread.  For training tasks that run in this process,
    in joblib workers or on Dask workers: a multithreaded BLAS sums in an order that depends on the
    process's thread count, so the last digits of a fit (and, through a solver's tolerance, more)
    would depend on where it ran.  The tasks run in parallel anyway.  scikit-learn is imported first:
    threadpoolctl limits the libraries loaded when the limit is set, and scikit-learn brings its
    OpenMP runtime and SciPy's BLAS (a fit that imported them inside the limit would run them on
    every core)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        import sklearn  # noqa: F401  # deferred: loads sklearn, scipy (their OpenMP and BLAS, before the limit)
        from threadpoolctl import threadpool_limits  # deferred: loads threadpoolctl
        with threadpool_limits(limits=1):
            return fn(*args, **kwargs)
    return wrapper


def linear_decision(est, X) -> np.ndarray:
    """``est.decision_function(X)`` of a fitted linear classifier, without scikit-learn's input checks
    (which cost more than the product on one question's rows): the same product (``X @ coef_.T``,
    sparse or dense, as ``safe_sparse_dot`` does it) plus the intercept, so the same numbers."""
    scores = X @ est.coef_.T + est.intercept_
    return scores.reshape(-1) if scores.ndim > 1 and scores.shape[1] == 1 else scores


def linear_predict(est, X) -> np.ndarray:
    """``est.predict(X)``: the class of the largest margin (of a positive one, for two classes)."""
    scores = linear_decision(est, X)
    return est.classes_[(scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)]


def standardized(scaler, X) -> np.ndarray:
    """``scaler.transform(X)`` of a fitted ``StandardScaler`` on a dense ``X``, without the input checks:
    a float64 copy, less the mean, over the scale, as scikit-learn computes it."""
    X = np.array(X, dtype=np.float64)
    if scaler.with_mean:
        X -= scaler.mean_
    if scaler.with_std:
        X /= scaler.scale_
    return X


def linear_to_arrays(est, prefix: str) -> dict:
    return {f"{prefix}coef": np.asarray(est.coef_, dtype=np.float64),
            f"{prefix}intercept": np.atleast_1d(np.asarray(est.intercept_, dtype=np.float64)),
            f"{prefix}classes": np.asarray(est.classes_)}


def linear_from_arrays(est, arrays: dict, prefix: str):
    """Set a fresh linear estimator's fitted attributes from ``linear_to_arrays``'s output, checking shapes."""
    coef = np.asarray(arrays[f"{prefix}coef"], dtype=np.float64)
    intercept = np.asarray(arrays[f"{prefix}intercept"], dtype=np.float64)
    classes = np.asarray(arrays[f"{prefix}classes"])
    rows = 1 if len(classes) == 2 else len(classes)
    if coef.ndim != 2 or coef.shape[0] != rows or intercept.shape != (rows,):
        raise ValueError(f"{prefix or 'linear model'}: weights of shape {coef.shape} / {intercept.shape} do not fit "
                         f"{len(classes)} classes")
    est.coef_, est.intercept_, est.classes_ = coef, intercept, classes
    est.n_features_in_ = coef.shape[1]
    return est


def scaler_to_arrays(scaler, prefix: str) -> dict:
    return {f"{prefix}mean": np.asarray(scaler.mean_, dtype=np.float64),
            f"{prefix}scale": np.asarray(scaler.scale_, dtype=np.float64),
            f"{prefix}var": np.asarray(scaler.var_, dtype=np.float64)}


def scaler_from_arrays(arrays: dict, prefix: str):
    from sklearn.preprocessing import StandardScaler  # deferred: loads sklearn, scipy, joblib
    s = StandardScaler()
    s.mean_, s.scale_, s.var_ = (np.asarray(arrays[f"{prefix}{k}"], dtype=np.float64) for k in ("mean", "scale", "var"))
    if not s.mean_.shape == s.scale_.shape == s.var_.shape or s.mean_.ndim != 1:
        raise ValueError(f"{prefix}: scaler arrays of different shapes")
    s.n_features_in_ = len(s.mean_)
    s.n_samples_seen_ = 1
    return s
