r"""The scorio.eval surface, computed by the bayeseval engine.

Names, argument names, defaults and return shapes follow ``scorio.eval``
(Hariri et al., "Don't Pass@k", ICLR 2026, arXiv:2510.04265), so
``from bayeseval import pass_at_k_ci`` is a drop-in.  ``R`` is an ``M x N``
outcome matrix (rows questions, columns trials) or a :class:`~bayeseval.Counts`
from :func:`~bayeseval.to_counts` (ragged rows, missing trials, shared count
pass).  Point functions return the unbiased finite-sample estimate (a float);
``*_ci`` functions return ``(mu, sigma, lo, hi)``: posterior mean and sd
under independent ``Beta(alpha0, beta0)`` (binary) or ``Dirichlet(1 + R0)``
(categorical) posteriors per question, and the normal-approximation interval
clipped to ``bounds``.  These intervals treat the M questions as fixed
(``scope="benchmark"``).

Differences from scorio, all on purpose:

* ``w`` of the wrong length raises (never padded or truncated);
* ``bayes_ci`` / ``avg_ci`` / ``max_at_k_ci`` / ``bernstein_at_k_ci`` clip
  by default to the metric's range (``[min w, max w]``) instead of not at all;
* the ``*_ci`` posteriors accept any ``k >= 1`` (the latent metric is defined
  for ``k > N``); the point estimates need ``1 <= k <= n``;
* ragged rows and missing trials are supported through :func:`to_counts`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import validate as V
from ..counts import Counts, to_counts
from ..intervals import normal_interval
from . import categorical as cat
from . import coefficients as coef
from .engine import Bernstein, cross_moments_states
from .tailpass import TailPassDraws, TailPassProfile, tailpass, tailpass_empirical

__all__ = [
    "bayes", "bayes_ci", "avg", "avg_ci",
    "pass_at_k", "pass_at_k_ci", "pass_hat_k", "pass_hat_k_ci",
    "unanimous_at_k", "unanimous_at_k_ci",
    "g_pass_at_k", "g_pass_at_k_ci", "g_pass_at_k_tau", "g_pass_at_k_tau_ci",
    "mg_pass_at_k", "mg_pass_at_k_ci", "maj_at_k", "maj_at_k_ci",
    "auc_at_k", "auc_at_k_ci", "max_at_k", "max_at_k_ci",
    "threshold_spectrum_at_k", "threshold_spectrum_at_k_ci",
    "geom_at_k", "geom_at_k_ci", "geom_ds_at_k", "geom_ds_at_k_ci",
    "geo_spectrum_at_k", "geo_spectrum_at_k_ci",
    "geo_spectrum_star_at_k", "geo_spectrum_star_at_k_ci",
    "bernstein_at_k", "bernstein_at_k_ci",
    "tailpass", "tailpass_empirical", "TailPassProfile", "TailPassDraws",
]

UNIT = (0.0, 1.0)


# ----------------------------------------------------------------------------- helpers
def _binary_counts(R: Any, metric: str) -> Counts:
    counts = to_counts(R)
    counts.successes(metric)
    return counts


def _point(R: Any, k: Any, metric: str, make) -> float:
    k = V.integer(k, "k", minimum=1)
    counts = _binary_counts(R, metric)
    counts.require_k_le_n(k, metric)
    return Bernstein(make(k), name=metric).point(counts)


def _interval(mu: float, var: float, confidence: float, bounds) -> tuple[float, float, float, float]:
    return _interval_sd(mu, float(np.sqrt(max(var, 0.0))), confidence, bounds)


def _interval_sd(mu: float, sigma: float, confidence: float, bounds) -> tuple[float, float, float, float]:
    lo, hi = normal_interval(mu, sigma, confidence, bounds)
    return float(mu), float(sigma), lo, hi


def _posterior_ci(R, k, metric, make, confidence, bounds, alpha0, beta0):
    k = V.integer(k, "k", minimum=1)
    confidence = V.confidence(confidence)
    bounds = V.bounds(bounds, None)
    alpha0, beta0 = V.beta_prior(alpha0, beta0)
    counts = _binary_counts(R, metric)
    mu, var = Bernstein(make(k), name=metric).posterior(counts, alpha0, beta0)
    return _interval(mu, var, confidence, bounds)


def _weights_or_binary(counts: Counts, w: Any, metric: str):
    if w is None:
        counts.successes(metric, weighted=True)
        return np.array([0.0, 1.0])
    return V.weights(w)


# ----------------------------------------------------------------------------- Bayes@N / avg@N
def bayes(R, w=None, R0=None) -> tuple[float, float]:
    r"""Bayes@N: posterior mean and sd of the weighted score (Dirichlet(+1) prior).

    Formula (Hariri et al. 2026, arXiv:2510.04265): with
    :math:`\nu_{\alpha j} = n_{\alpha j} + n^0_{\alpha j} + 1` and
    :math:`T = 1 + C + D + N`,
    :math:`\mu = w_0 + \frac{1}{MT}\sum_\alpha\sum_j \nu_{\alpha j}(w_j - w_0)` and
    :math:`\sigma^2 = \frac{1}{M^2 (T+1)} \sum_\alpha [\sum_j \frac{\nu_{\alpha j}}{T}(w_j-w_0)^2
    - (\sum_j \frac{\nu_{\alpha j}}{T}(w_j-w_0))^2]`.  Ragged rows use their own ``T``.

    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> w = np.array([0.0, 0.5, 1.0]); R0 = np.array([[0, 2], [1, 2]])
    >>> tuple(round(x, 6) for x in bayes(R, w, R0))
    (0.575, 0.084275)
    >>> tuple(round(x, 6) for x in bayes(R, w))
    (0.5625, 0.091998)
    """
    counts = to_counts(R, w)
    w = _weights_or_binary(counts, w, "bayes")
    return cat.bayes_moments(counts, w, R0)


def bayes_ci(R, w=None, R0=None, confidence=0.95, bounds=None):
    """Bayes@N ``(mu, sigma, lo, hi)``; ``bounds=None`` clips to ``[min w, max w]``.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> mu, sigma, lo, hi = bayes_ci(R, bounds=(0.0, 1.0))
    >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
    (0.642857, 0.118451, 0.4107, 0.875)
    """
    confidence = V.confidence(confidence)
    counts = to_counts(R, w)
    w = _weights_or_binary(counts, w, "bayes_ci")
    bounds = V.bounds(bounds, (float(w.min()), float(w.max())))
    return _interval_sd(*cat.bayes_moments(counts, w, R0), confidence, bounds)


def avg(R, w=None) -> tuple[float, float]:
    r"""avg@N (weighted mean accuracy) with the Bayesian sd on its scale.

    :math:`a = \frac{1}{M}\sum_\alpha \frac{1}{n_\alpha}\sum_i w_{R_{\alpha i}}`,
    :math:`\sigma_a = \frac{T}{N}\sigma_{\mathrm{Bayes}}` (Eq. 20 of
    arXiv:2510.04265; per question ``T_a / n_a`` for ragged rows).

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 6) for x in avg(R))
    (0.7, 0.165831)
    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> tuple(round(x, 6) for x in avg(R, np.array([0.0, 0.5, 1.0])))
    (0.6, 0.147196)
    """
    counts = to_counts(R, w)
    w = _weights_or_binary(counts, w, "avg")
    return cat.avg_moments(counts, w)


def avg_ci(R, w=None, confidence=0.95, bounds=None):
    """avg@N ``(a, sigma, lo, hi)``; ``bounds=None`` clips to ``[min w, max w]``.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 4) for x in avg_ci(R, bounds=(0.0, 1.0)))
    (0.7, 0.1658, 0.375, 1.0)
    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> tuple(round(x, 4) for x in avg_ci(R, np.array([0.0, 0.5, 1.0]), confidence=0.95))
    (0.6, 0.1472, 0.3115, 0.8885)
    """
    confidence = V.confidence(confidence)
    counts = to_counts(R, w)
    w = _weights_or_binary(counts, w, "avg_ci")
    bounds = V.bounds(bounds, (float(w.min()), float(w.max())))
    return _interval_sd(*cat.avg_moments(counts, w), confidence, bounds)


# ----------------------------------------------------------------------------- pass@k family
def pass_at_k(R, k) -> float:
    r"""Unbiased pass@k (Chen et al. 2021, arXiv:2107.03374).

    :math:`\mathrm{Pass@k}_\alpha = 1 - \binom{N-\nu_\alpha}{k}/\binom{N}{k}`, averaged over questions.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(pass_at_k(R, 1), 6), round(pass_at_k(R, 2), 6)
    (0.7, 0.95)
    """
    return _point(R, k, "pass@k", coef.pass_at_k)


def pass_hat_k(R, k) -> float:
    r"""Pass^k: all k selected trials correct (Yao et al. 2024, tau-bench, arXiv:2406.12045).

    :math:`\hat{\mathrm{Pass}}@k_\alpha = \binom{\nu_\alpha}{k}/\binom{N}{k}`.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(pass_hat_k(R, 1), 6), round(pass_hat_k(R, 2), 6)
    (0.7, 0.45)
    """
    return _point(R, k, "pass^k", coef.pass_hat_k)


def pass_at_k_ci(R, k, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    r"""Posterior of latent pass@k, :math:`g(p) = 1 - (1-p)^k`, ``p ~ Beta(alpha0 + s, beta0 + n - s)``.

    :math:`E[g] = 1 - B(a, b+k)/B(a, b)`; :math:`\mu = \frac1M\sum E[g_\alpha]`,
    :math:`\sigma = \frac1M\sqrt{\sum \mathrm{Var}[g_\alpha]}`.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> mu, sigma, lo, hi = pass_at_k_ci(R, 2)
    >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
    (0.839286, 0.097263, 0.6487, 1.0)
    """
    return _posterior_ci(R, k, "pass@k", coef.pass_at_k, confidence, bounds, alpha0, beta0)


def pass_hat_k_ci(R, k, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    r"""Posterior of latent pass^k, :math:`g(p) = p^k`; :math:`E[g] = B(a+k, b)/B(a, b)`.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> mu, sigma, lo, hi = pass_hat_k_ci(R, 2)
    >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
    (0.446429, 0.146167, 0.1599, 0.7329)
    """
    return _posterior_ci(R, k, "pass^k", coef.pass_hat_k, confidence, bounds, alpha0, beta0)


unanimous_at_k = pass_hat_k
unanimous_at_k_ci = pass_hat_k_ci


def g_pass_at_k(R, k) -> float:
    """G-Pass@k (tau = 1), the same estimator as :func:`pass_hat_k` (Liu et al. 2024, arXiv:2412.13147).

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(g_pass_at_k(R, 2), 6)
    0.45
    """
    return _point(R, k, "G-Pass@k", coef.pass_hat_k)


def g_pass_at_k_ci(R, k, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    """Posterior of G-Pass@k (tau = 1), the same target as :func:`pass_hat_k_ci`.
    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 6) for x in g_pass_at_k_ci(R, 2))
    (0.446429, 0.146167, 0.159946, 0.732911)
    """
    return _posterior_ci(R, k, "G-Pass@k", coef.pass_hat_k, confidence, bounds, alpha0, beta0)


def _tau_maker(tau):
    tau = V.tau(tau)
    return lambda k: coef.g_pass_tau(k, tau)


def g_pass_at_k_tau(R, k, tau) -> float:
    r"""G-Pass@k_tau: at least :math:`j_0 = \max(1, \lceil\tau k\rceil)` of k correct (arXiv:2412.13147).

    :math:`\sum_{j\ge j_0} \binom{\nu}{j}\binom{N-\nu}{k-j}/\binom{N}{k}`; tau = 0 is pass@k, tau = 1 pass^k.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(g_pass_at_k_tau(R, 2, 0.5), 6), round(g_pass_at_k_tau(R, 2, 1.0), 6)
    (0.95, 0.45)
    """
    return _point(R, k, "G-Pass@k_tau", _tau_maker(tau))


def g_pass_at_k_tau_ci(R, k, tau, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    """Posterior of latent G-Pass@k_tau: P(at least ceil(tau k) of k i.i.d. samples correct).
    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 6) for x in g_pass_at_k_tau_ci(R, 3, 0.5))
    (0.684524, 0.151958, 0.386692, 0.982356)
    """
    return _posterior_ci(R, k, "G-Pass@k_tau", _tau_maker(tau), confidence, bounds, alpha0, beta0)


def mg_pass_at_k(R, k) -> float:
    r"""mG-Pass@k: :math:`\frac{2}{k}\sum_{j>m}(j-m)P(X=j)`, :math:`m = \lceil k/2\rceil` (arXiv:2412.13147).

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(mg_pass_at_k(R, 2), 6), round(mg_pass_at_k(R, 3), 6)
    (0.45, 0.166667)
    """
    return _point(R, k, "mG-Pass@k", coef.mg_pass_at_k)


def mg_pass_at_k_ci(R, k, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    """Posterior of latent mG-Pass@k.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 6) for x in mg_pass_at_k_ci(R, 3))
    (0.218254, 0.098816, 0.024578, 0.41193)
    """
    return _posterior_ci(R, k, "mG-Pass@k", coef.mg_pass_at_k, confidence, bounds, alpha0, beta0)


def maj_at_k(R, k) -> float:
    r"""maj@k: strictly more than k/2 of k sampled trials correct, :math:`j_0 = \lfloor k/2\rfloor + 1`.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(maj_at_k(R, 1), 6), round(maj_at_k(R, 2), 6), round(maj_at_k(R, 3), 6)
    (0.7, 0.45, 0.85)
    """
    return _point(R, k, "maj@k", coef.maj_at_k)


def maj_at_k_ci(R, k, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    """Posterior of latent maj@k (``g_pass_at_k_tau_ci`` at tau = (floor(k/2)+1)/k).

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> mu, sigma, lo, hi = maj_at_k_ci(R, 3)
    >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
    (0.684524, 0.151958, 0.3867, 0.9824)
    """
    return _posterior_ci(R, k, "maj@k", coef.maj_at_k, confidence, bounds, alpha0, beta0)


def auc_at_k(R, k) -> float:
    r"""AUC@k: trapezoidal area under pass@1..pass@k (Hu et al. 2026, arXiv:2601.08763).

    For k > 1, :math:`\frac{1}{k-1}\sum_{j=1}^{k-1}\frac{\mathrm{Pass@}j + \mathrm{Pass@}(j+1)}{2}`;
    AUC@1 = Pass@1.  Computed as one degree-k Bernstein metric.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(auc_at_k(R, 1), 6), round(auc_at_k(R, 2), 6), round(auc_at_k(R, 3), 6)
    (0.7, 0.825, 0.9)
    """
    return _point(R, k, "AUC@k", coef.auc_at_k)


def auc_at_k_ci(R, k, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    """Posterior of latent AUC@k.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 6) for x in auc_at_k_ci(R, 3))
    (0.809524, 0.09506, 0.623209, 0.995839)
    """
    return _posterior_ci(R, k, "AUC@k", coef.auc_at_k, confidence, bounds, alpha0, beta0)


# ----------------------------------------------------------------------------- max@k
def max_at_k(R, k, w=None) -> float:
    r"""max@k: expected best reward among k of the N trials (Bagirov et al. 2025, arXiv:2510.23393).

    :math:`\frac{1}{\binom{N}{k}}\sum_{i=k}^{N}\binom{i-1}{k-1} g_{\alpha(i)}` over sorted rewards;
    computed from counts as ``r_L - sum_l (r_{l+1} - r_l) C(N_{<=l}, k) / C(N, k)``.

    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> round(max_at_k(R, 2, w=np.array([0.0, 0.5, 1.0])), 6)
    0.85
    """
    k = V.integer(k, "k", minimum=1)
    counts = to_counts(R, w)
    w = _weights_or_binary(counts, w, "max_at_k")
    return cat.max_point(counts, w, k)


def max_at_k_ci(R, k, w=None, R0=None, confidence=0.95, bounds=None):
    r"""Posterior of latent max@k, :math:`g = r_L - \sum_l (r_{l+1}-r_l) A_l^k`, grouped Dirichlet(+1).

    ``bounds=None`` clips to ``[min w, max w]``; k = 1 equals :func:`bayes_ci`.

    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> mu, sigma, lo, hi = max_at_k_ci(R, 2, w=np.array([0.0, 0.5, 1.0]))
    >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
    (0.75, 0.08812, 0.5773, 0.9227)
    """
    k = V.integer(k, "k", minimum=1)
    confidence = V.confidence(confidence)
    counts = to_counts(R, w)
    w = _weights_or_binary(counts, w, "max_at_k_ci")
    bounds = V.bounds(bounds, (float(w.min()), float(w.max())))
    return _interval_sd(*cat.max_moments(counts, w, k, R0), confidence, bounds)


# ----------------------------------------------------------------------------- user-defined
def bernstein_at_k(R, c) -> float:
    r"""Unbiased estimate of a user-defined metric :math:`g(p)=\sum_j c_j\binom{k}{j}p^j(1-p)^{k-j}`.

    ``c[j]`` is the payoff for exactly ``j`` correct among ``k = len(c) - 1``
    samples; the estimate is :math:`\frac1M\sum_\alpha\sum_j c_j\,\mathrm{Hypergeom}(j; n_\alpha, \nu_\alpha, k)`.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(bernstein_at_k(R, [0, 1, 1]), 6)   # pass@2
    0.95
    """
    metric = Bernstein(c, name="custom metric")
    counts = _binary_counts(R, metric.name)
    return metric.point(counts)


def bernstein_at_k_ci(R, c, confidence=0.95, bounds=None, alpha0=1.0, beta0=1.0):
    """Posterior ``(mu, sigma, lo, hi)`` of a user-defined metric; ``bounds=None`` clips to ``[min c, max c]``.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 6) for x in bernstein_at_k_ci(R, [0, 1, 1])[:2])
    (0.839286, 0.097263)
    """
    metric = Bernstein(c, name="custom metric")
    confidence = V.confidence(confidence)
    bounds = V.bounds(bounds, metric.range)
    alpha0, beta0 = V.beta_prior(alpha0, beta0)
    counts = _binary_counts(R, metric.name)
    mu, var = metric.posterior(counts, alpha0, beta0)
    return _interval(mu, var, confidence, bounds)


# ----------------------------------------------------------------------------- geometric family
def _powers(a, b, names=("pass_power", "unanimous_power")) -> tuple[float, float]:
    a = V.real(a, names[0])
    b = V.real(b, names[1])
    if a == 0.0 and b == 0.0:
        raise ValueError(f"{names[0]} and {names[1]} cannot both be 0")
    return a, b


def _blend1(x: float, y: float, a: float, b: float) -> float:
    """Scalar ``x^a y^b`` with 0^positive = 0 and 0^0 = 1; 0^negative is refused."""
    x, y = float(x), float(y)
    if (x == 0.0 and a > 0) or (y == 0.0 and b > 0):
        return 0.0
    if (x == 0.0 and a < 0) or (y == 0.0 and b < 0):
        raise ValueError("a negative power of a zero Pass@k / Unanimous@k score is undefined")
    return x**a * y**b


def _delta1(mx, vx, my, vy, cov, a: float, b: float) -> tuple[float, float]:
    """Scalar first-order delta method for ``x^a y^b``: mean and variance.

    Written in relative form, ``Var = mean^2 (a^2 vx/mx^2 + b^2 vy/my^2 + 2ab cov/(mx my))``,
    so a mean near the bottom of the float range gives a tiny finite variance, not inf * 0.
    """
    mx, my = float(mx), float(my)
    mean = _blend1(mx, my, a, b)
    if mean == 0.0:
        return 0.0, 0.0
    rx = a / mx if a != 0 else 0.0
    ry = b / my if b != 0 else 0.0
    rel = rx * rx * float(vx) + ry * ry * float(vy) + 2.0 * rx * ry * float(cov)
    var = mean * mean * max(rel, 0.0)
    return mean, (var if math.isfinite(var) else 0.0)


def _blend(x, y, a: float, b: float) -> np.ndarray:
    """Vectorised ``x^a y^b`` with the conventions of :func:`_blend1`."""
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    y = np.atleast_1d(np.asarray(y, dtype=np.float64))
    zero = ((x == 0) & (a > 0)) | ((y == 0) & (b > 0))
    bad = (((x == 0) & (a < 0)) | ((y == 0) & (b < 0))) & ~zero
    if bad.any():
        raise ValueError("a negative power of a zero Pass@k / Unanimous@k score is undefined")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.power(x, a) * np.power(y, b)
    out[zero] = 0.0
    return out


def _delta(mx, vx, my, vy, cov, a: float, b: float):
    """Vectorised first-order delta method for ``x^a y^b`` (relative form, see :func:`_delta1`)."""
    mean = _blend(mx, my, a, b)
    mx, my = np.atleast_1d(mx), np.atleast_1d(my)
    live = mean != 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        rx = np.where(live & (a != 0), a / mx, 0.0)  # d log(mean) / dx
        ry = np.where(live & (b != 0), b / my, 0.0)
        rel = rx * rx * vx + ry * ry * vy + 2.0 * rx * ry * cov
        var = mean * mean * np.maximum(rel, 0.0)
    var = np.where(live & np.isfinite(var), var, 0.0)
    return mean, var


def geom_at_k(R, k, pass_power=0.5, unanimous_power=0.5) -> float:
    r"""Questionwise Geom@k: mean over questions of :math:`P_{\alpha,k}^a U_{\alpha,k}^b` (scorio).

    ``P`` and ``U`` are the unbiased per-question pass@k and pass^k.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(geom_at_k(R, 2), 6)
    0.647106
    """
    k = V.integer(k, "k", minimum=1)
    a, b = _powers(pass_power, unanimous_power)
    counts = _binary_counts(R, "Geom@k")
    counts.require_k_le_n(k, "Geom@k")
    P = Bernstein(coef.pass_at_k(k)).point_states(counts)
    U = Bernstein(coef.pass_hat_k(k)).point_states(counts)
    freq = counts.binary_states()[2]
    return float(freq @ _blend(P, U, a, b) / counts.M)


def geom_at_k_ci(R, k, pass_power=0.5, unanimous_power=0.5, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    """Questionwise Geom@k posterior by a per-question first-order delta method through ``x^a y^b``.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> mu, sigma, lo, hi = geom_at_k_ci(R, 2)
    >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
    (0.610666, 0.133107, 0.3498, 0.8716)
    """
    k = V.integer(k, "k", minimum=1)
    a, b = _powers(pass_power, unanimous_power)
    confidence = V.confidence(confidence)
    bounds = V.bounds(bounds, None)
    alpha0, beta0 = V.beta_prior(alpha0, beta0)
    counts = _binary_counts(R, "Geom@k")
    mp, mu_, vp, vu, cov = cross_moments_states(
        counts, Bernstein(coef.pass_at_k(k)), Bernstein(coef.pass_hat_k(k)), alpha0, beta0
    )
    mean, var = _delta(mp, vp, mu_, vu, cov, a, b)
    freq, M = counts.binary_states()[2], counts.M
    return _interval(float(freq @ mean / M), float(freq @ var / (M * M)), confidence, bounds)


def _dataset_cross(counts, g: Bernstein, h: Bernstein, alpha0, beta0):
    mg, mh, vg, vh, cov = cross_moments_states(counts, g, h, alpha0, beta0)
    freq, M = counts.binary_states()[2], counts.M
    return (freq @ mg / M, freq @ vg / M**2, freq @ mh / M, freq @ vh / M**2, freq @ cov / M**2)


def geom_ds_at_k(R, k, pass_power=0.5, unanimous_power=0.5) -> float:
    r"""Dataset-level Geom@k: :math:`\mathrm{Pass@k}(R)^a\,\mathrm{Unanimous@k}(R)^b` (blend after averaging).

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(geom_ds_at_k(R, 2), 6)
    0.653835
    """
    k = V.integer(k, "k", minimum=1)
    a, b = _powers(pass_power, unanimous_power)
    counts = _binary_counts(R, "Geom_ds@k")
    counts.require_k_le_n(k, "Geom_ds@k")
    P = Bernstein(coef.pass_at_k(k)).point(counts)
    U = Bernstein(coef.pass_hat_k(k)).point(counts)
    return _blend1(P, U, a, b)


def geom_ds_at_k_ci(R, k, pass_power=0.5, unanimous_power=0.5, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    """Dataset-level Geom@k posterior: delta method on the dataset means of latent pass@k and pass^k.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> mu, sigma, lo, hi = geom_ds_at_k_ci(R, 2)
    >>> round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)
    (0.612112, 0.132755, 0.3519, 0.8723)
    """
    k = V.integer(k, "k", minimum=1)
    a, b = _powers(pass_power, unanimous_power)
    confidence = V.confidence(confidence)
    bounds = V.bounds(bounds, None)
    alpha0, beta0 = V.beta_prior(alpha0, beta0)
    counts = _binary_counts(R, "Geom_ds@k")
    mx, vx, my, vy, cov = _dataset_cross(
        counts, Bernstein(coef.pass_at_k(k)), Bernstein(coef.pass_hat_k(k)), alpha0, beta0
    )
    return _interval(*_delta1(mx, vx, my, vy, cov, a, b), confidence, bounds)


def _lam(lam, lambda_) -> float:
    if lambda_ is not None:
        if lam != 0.5:
            raise V.InputTypeError("give the coupling as lam= or lambda_=, not both")
        lam = lambda_
    return V.real(lam, "lam", lo=0.0, hi=1.0)


def _spectrum_weights(weights):
    if weights is None:
        raise V.InputTypeError("weights must be a length-k array of non-negative spectrum weights, got None")
    return weights


def threshold_spectrum_at_k(R, k, weights) -> float:
    r"""Threshold spectrum :math:`S_{w,k} = \sum_{r=1}^k w_r T_{r,k}`, ``T_r`` = P(at least r of k correct).

    Event-score form: payoff :math:`A_j = \sum_{r\le j} w_r` for exactly ``j`` correct
    (weights: non-negative, length k, summing to at most 1).

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(threshold_spectrum_at_k(R, 3, [0, 0, 1]), 6) == round(pass_hat_k(R, 3), 6)
    True
    """
    k = V.integer(k, "k", minimum=1)
    c = coef.spectrum(_spectrum_weights(weights), k)
    return _point(R, k, "threshold spectrum", lambda _k: c)


def threshold_spectrum_at_k_ci(R, k, weights, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    r"""Posterior of the latent spectrum :math:`g(p) = \sum_j A_j \binom{k}{j} p^j (1-p)^{k-j}`.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 6) for x in threshold_spectrum_at_k_ci(R, 3, [0, 0.5, 0.5]))
    (0.505952, 0.146387, 0.219039, 0.792866)
    """
    k = V.integer(k, "k", minimum=1)
    c = coef.spectrum(_spectrum_weights(weights), k)
    return _posterior_ci(R, k, "threshold spectrum", lambda _k: c, confidence, bounds, alpha0, beta0)


def geo_spectrum_at_k(R, k, lam=0.5, weights=None, lambda_=None) -> float:
    r""":math:`\mathrm{GeoSpectrum}_{\lambda,w}@k = \mathrm{Pass@k}^\lambda S_{w,k}^{1-\lambda}` (arXiv:2510.04265).

    ``weights=None`` selects the upper-half mG weights, so the default is
    GeoSpectrum*@k :math:`= \sqrt{\mathrm{Pass@k}\cdot\mathrm{mG\text{-}Pass@k}}`.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(geo_spectrum_at_k(R, 3), 6), round(geo_spectrum_at_k(R, 3, lam=1.0), 6)
    (0.408248, 1.0)
    """
    lam = _lam(lam, lambda_)
    k = V.integer(k, "k", minimum=1)
    counts = _binary_counts(R, "GeoSpectrum@k")
    counts.require_k_le_n(k, "GeoSpectrum@k")
    P = Bernstein(coef.pass_at_k(k)).point(counts)
    if lam == 1.0:
        return P
    w = coef.mg_spectrum_weights(k) if weights is None else weights
    S = Bernstein(coef.spectrum(w, k)).point(counts)
    if lam == 0.0:
        return S
    return _blend1(P, S, lam, 1.0 - lam)


def geo_spectrum_at_k_ci(R, k, lam=0.5, weights=None, lambda_=None, confidence=0.95, bounds=UNIT,
                         alpha0=1.0, beta0=1.0):
    """Posterior of latent GeoSpectrum: delta method through ``x^lam y^(1-lam)`` at the posterior means.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 6) for x in geo_spectrum_at_k_ci(R, 3))
    (0.447288, 0.114255, 0.223352, 0.671223)
    """
    lam = _lam(lam, lambda_)
    k = V.integer(k, "k", minimum=1)
    confidence = V.confidence(confidence)
    bounds = V.bounds(bounds, None)
    alpha0, beta0 = V.beta_prior(alpha0, beta0)
    counts = _binary_counts(R, "GeoSpectrum@k")
    pass_k = Bernstein(coef.pass_at_k(k))
    if lam == 1.0:
        return _interval(*pass_k.posterior(counts, alpha0, beta0), confidence, bounds)
    w = coef.mg_spectrum_weights(k) if weights is None else weights
    spec = Bernstein(coef.spectrum(w, k))
    if lam == 0.0:
        return _interval(*spec.posterior(counts, alpha0, beta0), confidence, bounds)
    mx, vx, my, vy, cov = _dataset_cross(counts, pass_k, spec, alpha0, beta0)
    return _interval(*_delta1(mx, vx, my, vy, cov, lam, 1.0 - lam), confidence, bounds)


def geo_spectrum_star_at_k(R, k) -> float:
    """GeoSpectrum*@k: :func:`geo_spectrum_at_k` with the default upper-half mG weights.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> round(geo_spectrum_star_at_k(R, 3), 6)
    0.408248
    """
    return geo_spectrum_at_k(R, k)


def geo_spectrum_star_at_k_ci(R, k, confidence=0.95, bounds=UNIT, alpha0=1.0, beta0=1.0):
    """Posterior of GeoSpectrum*@k: :func:`geo_spectrum_at_k_ci` with the default weights.

    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tuple(round(x, 6) for x in geo_spectrum_star_at_k_ci(R, 3))
    (0.447288, 0.114255, 0.223352, 0.671223)
    """
    return geo_spectrum_at_k_ci(R, k, confidence=confidence, bounds=bounds, alpha0=alpha0, beta0=beta0)
