r"""Partial pooling of several models' scores: ``compare_all(..., shrink=True)``.

Each model's posterior has no prior on how far apart the models are, so across many comparisons of close
models its ``P(A > B)`` is more extreme than the frequency with which A is truly better (the calibration study
of ``docs/comparisons.md``).  Treating the K models' true scores as exchangeable draws from a common normal,
with its spread learnt from the K scores themselves, is the standard Bayesian answer to many comparisons
(Gelman, Hill & Yajima 2012, J. Res. Educ. Effectiveness 5(2)): close models are pulled together, models far
apart are left alone.

Model (normal approximation of the joint posterior of the scores; ``y`` its mean, ``Sigma`` its covariance,
which carries the pairing on shared questions):

.. math::  y \mid \theta \sim N(\theta, \Sigma), \qquad \theta_k \mid \mu, \tau \sim N(\mu, \tau^2),
   \qquad p(\mu) \propto 1, \qquad \tau \sim \mathrm{Uniform}(0, w)

with ``w`` the width of the metric's range.  With ``Sigma = Q diag(lambda) Q^T``, ``z = Q^T y`` and ``u = Q^T 1``,
every quantity is diagonal in ``Q`` (Gelman et al., BDA3 sec. 5.4, with a full ``Sigma``):

.. math::  \log p(\tau \mid y) = c - \tfrac12 \sum_i \log(\lambda_i + \tau^2) - \tfrac12 \log a(\tau)
   - \tfrac12 \sum_i \frac{(z_i - \hat\mu u_i)^2}{\lambda_i + \tau^2},\qquad
   a = \sum_i \frac{u_i^2}{\lambda_i + \tau^2},\quad \hat\mu = \frac{1}{a}\sum_i \frac{u_i z_i}{\lambda_i + \tau^2}

.. math::  \mu \mid \tau, y \sim N(\hat\mu, 1/a), \qquad
   Q^T\theta \mid \mu, \tau, y \sim N\Big(z_i - \frac{\lambda_i}{\lambda_i + \tau^2}(z_i - \mu u_i),\;
   \frac{\lambda_i \tau^2}{\lambda_i + \tau^2}\Big)

``tau`` is drawn from its posterior on a grid, then ``mu`` and ``theta``.  Needs at least three models (with two
the spread is not identified).  It rests on the models being exchangeable: a leaderboard with a few close models
and others far away learns a large ``tau`` and pulls the close ones together less than their own spread would.
With few models ``tau`` is poorly learnt, and its posterior's mass near 0 pulls models together more than their
true spread does: ``P(A > B)`` is then underconfident (``benchmarks/results_calibration_shrink.md``: 6 models);
with 20 models on 100 questions x 4 trials it is calibrated within 2 points per decile
(``benchmarks/results_calibration_shrink_k20.md``).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> joint = rng.multivariate_normal([0.50, 0.51, 0.52], np.eye(3) * 0.02**2, size=4000)
>>> pooled, tau = pooled_draws(joint, (0.0, 1.0), np.random.default_rng(1))
>>> pooled.shape, float(np.std(pooled[:, 0] - pooled[:, 2])) < float(np.std(joint[:, 0] - joint[:, 2]))
((4000, 3), True)
"""

from __future__ import annotations

import numpy as np

__all__ = ["pooled_draws", "TAU_GRID"]

TAU_GRID = 800  # grid points of tau, quadratically spaced on (0, w]: fine near 0, where the posterior varies fastest


def _tau_posterior(y: np.ndarray, lam: np.ndarray, u: np.ndarray, z: np.ndarray, width: float):
    """``tau`` grid, its posterior weights, and per grid point ``a(tau)`` and ``mu_hat(tau)``."""
    j = np.arange(1, TAU_GRID + 1)
    tau = width * (j / TAU_GRID) ** 2
    dtau = width * (2 * j - 1) / TAU_GRID**2  # the uniform prior's mass of each grid cell
    v = lam[None, :] + tau[:, None] ** 2  # (G, K)
    a = (u**2 / v).sum(axis=1)
    mu = (u * z / v).sum(axis=1) / a
    quad = ((z[None, :] - mu[:, None] * u[None, :]) ** 2 / v).sum(axis=1)
    logp = -0.5 * np.log(v).sum(axis=1) - 0.5 * np.log(a) - 0.5 * quad + np.log(dtau)
    w = np.exp(logp - logp.max())
    return tau, w / w.sum(), a, mu


def pooled_draws(joint: np.ndarray, bounds: tuple[float, float], rng: np.random.Generator,
                 n: int | None = None) -> tuple[np.ndarray, dict]:
    """Draws of the K models' scores under the exchangeable normal prior (module docstring), from ``joint``,
    draws ``(S, K)`` of the scores without it; ``bounds`` the metric's range (``tau`` below its width).

    Returns ``(draws (n, K), tau)``, the draws within ``bounds``, with ``tau`` the posterior median and 95%
    interval of the spread (``{"median", "lo", "hi"}``)."""
    joint = np.asarray(joint, float)
    S, K = joint.shape
    if K < 3:
        raise ValueError(f"shrink needs at least three models (the spread of two is not identified), got {K}")
    n = S if n is None else n
    width = float(bounds[1] - bounds[0])
    y = joint.mean(axis=0)
    lam, Q = np.linalg.eigh(np.atleast_2d(np.cov(joint, rowvar=False)))
    lam = np.where(lam > 1e-12 * max(float(lam.max()), 0.0), lam, 0.0)  # rounding noise of a singular Sigma: 0
    z, u = Q.T @ y, Q.T @ np.ones(K)
    tau, w, a, mu_hat = _tau_posterior(y, lam, u, z, width)
    cdf = np.cumsum(w)
    g = np.minimum(np.searchsorted(cdf, rng.random(n) * cdf[-1]), tau.size - 1)
    t2 = tau[g, None] ** 2
    mu = mu_hat[g] + rng.standard_normal(n) / np.sqrt(a[g])
    v = lam[None, :] + t2
    mean = z[None, :] - lam[None, :] / v * (z[None, :] - mu[:, None] * u[None, :])
    sd = np.sqrt(lam[None, :] * t2 / v)
    # a normal approximation's tails can pass the metric's range (a model that solves every question): at its ends
    draws = np.clip((mean + sd * rng.standard_normal((n, K))) @ Q.T, bounds[0], bounds[1])
    q = np.interp([0.025, 0.5, 0.975], cdf / cdf[-1], tau)
    return draws, {"median": float(q[1]), "lo": float(q[0]), "hi": float(q[2])}
