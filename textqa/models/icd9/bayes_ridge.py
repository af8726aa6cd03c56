"""Bayesian ridge regression as in Lita et al. 2008, section 3.3.

Prior w ~ N(0, I), likelihood y_i ~ N(w'x_i, sigma^2) on mean-centred labels.  The marginal
likelihood (eq. 1) is y ~ N(0, X X' + sigma^2 I); sigma^2 (the ridge parameter lambda) is the
value that maximises it, found by a bounded search over log sigma^2 using the singular values
of X.  The posterior mean (eq. 2) is (X'X + sigma^2 I)^-1 X'y, solved by Cholesky
factorisation (of the k x k primal system, or the n x n dual one, whichever is smaller).  The
posterior covariance is sigma^2 (X'X + sigma^2 I)^-1, so the predictive variance of f(x*) is
sigma^2 x*'(X'X + sigma^2 I)^-1 x*.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize, minimize_scalar


def log_marginal_likelihood(sigma2: float, s2: np.ndarray, uty2: np.ndarray, yty: float, n: int,
                            tau2: float = 1.0) -> float:
    """log N(y | 0, tau^2 X X' + sigma^2 I) from the squared singular values ``s2`` of X and the
    squared projections ``uty2`` of y on the left singular vectors (eq. 1 with the Gaussian prior
    w ~ N(0, tau^2 I); the paper fixes tau^2 = 1)."""
    r = len(s2)
    lam = tau2 * s2 + sigma2
    quad = float((uty2 / lam).sum() + (yty - uty2.sum()) / sigma2)
    logdet = float(np.log(lam).sum() + (n - r) * math.log(sigma2))
    return -0.5 * (quad + logdet + n * math.log(2 * math.pi))


def optimal_sigma2(X: np.ndarray, y: np.ndarray, bounds=(1e-4, 1e4), svd=None) -> tuple[float, float]:
    """(sigma^2, log marginal likelihood) maximising eq. 1.  ``svd``: ``np.linalg.svd(X,
    full_matrices=False)`` when the caller has it already (the coder needs it twice)."""
    n = X.shape[0]
    U, s, _ = svd if svd is not None else np.linalg.svd(X, full_matrices=False)
    s2 = s * s
    uty2 = (U.T @ y) ** 2
    yty = float(y @ y)
    res = minimize_scalar(lambda t: -log_marginal_likelihood(math.exp(t), s2, uty2, yty, n),
                          bounds=(math.log(bounds[0]), math.log(bounds[1])), method="bounded",
                          options={"xatol": 1e-4})
    sigma2 = math.exp(res.x)
    return sigma2, -float(res.fun)


def optimal_sigma2_tau2(X: np.ndarray, y: np.ndarray, bounds=(1e-4, 1e4), svd=None) -> tuple[float, float, float]:
    """(sigma^2, tau^2, log marginal likelihood): both the noise and the prior variance by maximum
    marginal likelihood (type-II ML, as scikit-learn's ``BayesianRidge``), beyond the paper's fixed
    prior.  The posterior mean is then eq. 2 with sigma^2 / tau^2 in place of sigma^2.  ``svd``: as
    for :func:`optimal_sigma2`."""
    n = X.shape[0]
    U, s, _ = svd if svd is not None else np.linalg.svd(X, full_matrices=False)
    s2 = s * s
    uty2 = (U.T @ y) ** 2
    yty = float(y @ y)
    lo, hi = math.log(bounds[0]), math.log(bounds[1])
    res = minimize(lambda t: -log_marginal_likelihood(math.exp(t[0]), s2, uty2, yty, n, math.exp(t[1])),
                   x0=np.array([math.log(max(yty / n, bounds[0]) / 2), 0.0]), method="L-BFGS-B",
                   bounds=[(lo, hi), (lo, hi)])
    return math.exp(res.x[0]), math.exp(res.x[1]), -float(res.fun)


def posterior_mean(X: np.ndarray, y: np.ndarray, sigma2: float) -> np.ndarray:
    """Eq. 2 by Cholesky: (X'X + sigma^2 I)^-1 X'y, or X'(XX' + sigma^2 I)^-1 y when n < k."""
    n, k = X.shape
    if k <= n:
        c = cho_factor(X.T @ X + sigma2 * np.eye(k))
        return cho_solve(c, X.T @ y)
    c = cho_factor(X @ X.T + sigma2 * np.eye(n))
    return X.T @ cho_solve(c, y)


def predictive_variance(X: np.ndarray, sigma2: float, Xstar: np.ndarray) -> np.ndarray:
    """Variance of f(x*) = w'x* under the posterior: sigma^2 x*'(X'X + sigma^2 I)^-1 x*."""
    n, k = X.shape
    if k <= n:
        c = cho_factor(X.T @ X + sigma2 * np.eye(k))
        return sigma2 * np.einsum("ij,ji->i", Xstar, cho_solve(c, Xstar.T))
    # Woodbury: sigma^2 (X'X + s I)^-1 = I - X'(XX' + s I)^-1 X
    c = cho_factor(X @ X.T + sigma2 * np.eye(n))
    KX = X @ Xstar.T
    return np.einsum("ij,ij->j", Xstar.T, Xstar.T) - np.einsum("ij,ij->j", KX, cho_solve(c, KX))
