"""Interval helpers shared by the metric functions.

The scorio-compatible ``*_ci`` functions report the normal approximation
``mu +- z * sigma`` (``z`` the ``(1 + confidence) / 2`` standard-normal
quantile), clipped to ``bounds``; clipping moves both ends into the bounds, so
the interval never inverts.

>>> lo, hi = normal_interval(0.7, 0.1658, 0.95, (0.0, 1.0))
>>> round(lo, 4), hi
(0.375, 1.0)
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats
from scipy.special import ndtri

from . import validate as V

__all__ = ["normal_interval", "z_value", "betting_interval", "binomial_interval"]


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile for a credibility level."""
    confidence = V.confidence(confidence)
    return float(ndtri(0.5 + 0.5 * confidence))


def normal_interval(mu: float, sigma: float, confidence: float, bounds) -> tuple[float, float]:
    """Central normal-approximation interval, clipped to ``bounds`` (or not, if None)."""
    z = z_value(confidence)
    if not (math.isfinite(mu) and math.isfinite(sigma)) or sigma < 0:
        raise FloatingPointError(f"internal error: non-finite posterior summary ({mu!r}, {sigma!r})")
    lo, hi = mu - z * sigma, mu + z * sigma
    if bounds is not None:
        b_lo, b_hi = bounds
        lo = min(max(lo, b_lo), b_hi)
        hi = min(max(hi, b_lo), b_hi)
    return float(lo), float(hi)


CI_BET_CAP = 0.9  # the fixed-sample interval's bets never risk more than 90% of the capital on one observation (any
# cap below 1 keeps the guarantee; the confidence sequence of sequential/confseq.py uses its own, CS_BET_CAP = 0.5)


def plugin_variance(x: np.ndarray, state: tuple[int, float, float] = (0, 0.0, 0.0)):
    r"""The predictable plug-in's running variance before each new observation of ``x`` (values in [0, 1]):

    .. math::  \hat\mu_t = \frac{1/2 + \sum_{i \le t} x_i}{t + 1}, \qquad
               \hat\sigma^2_{t-1} = \frac{1/4 + \sum_{i < t} (x_i - \hat\mu_i)^2}{t}

    (Waudby-Smith & Ramdas 2024, JRSS-B 86(1), Section 3.3), so a bet on ``x_t`` uses the earlier
    observations only.  ``state`` = (t, sum x, sum (x_i - mu_i)^2) before ``x`` lets a stream continue.
    ``x`` may be ``(R, T)``: R independent streams along the last axis (from the start: the default state).
    Returns ``(t, sigma2_prev, new_state)``: the index of each observation, its plug-in variance, the sums after ``x``
    (for ``(R, T)`` input the two sums are arrays of R, one per stream).

    >>> t, v, state = plugin_variance(np.array([1.0, 0.0]))
    >>> t.tolist(), [round(float(a), 4) for a in v], state
    ([1.0, 2.0], [0.25, 0.1562], (2, 1.0, 0.3125))
    """
    t0, sx, sv = state
    if x.ndim > 1 and t0:
        raise ValueError("plugin_variance: a state to continue from needs one stream (1-D x)")
    if x.shape[-1] == 0:
        return np.zeros(0), np.zeros(x.shape), (int(t0), float(sx), float(sv))
    t = t0 + np.arange(1, x.shape[-1] + 1, dtype=np.float64)
    csum = sx + np.cumsum(x, axis=-1)
    mu = (0.5 + csum) / (t + 1.0)
    csv = sv + np.cumsum((x - mu) ** 2, axis=-1)
    var_prev = (0.25 + np.concatenate([np.full(x.shape[:-1] + (1,), sv), csv[..., :-1]], axis=-1)) / t
    if x.ndim == 1:
        return t, var_prev, (int(t[-1]), float(csum[-1]), float(csv[-1]))
    return t, var_prev, (int(t[-1]), csum[..., -1], csv[..., -1])


def _log_wealth_max(u: np.ndarray, lam: np.ndarray, m: float, up: bool) -> float:
    """Largest log capital over time of betting ``lam`` (truncated to keep every factor >= 1 - CI_BET_CAP) on
    ``u > m`` (``up``) or on ``u < m``, for observations ``u`` in [0, 1] in their order."""
    d = u - m if up else m - u
    room = m if up else 1.0 - m  # the largest loss per unit bet
    bet = np.minimum(lam, CI_BET_CAP / room) if room > 0 else lam
    return float(np.max(np.cumsum(np.log1p(bet * d)), initial=0.0))


def _bounded_scores(x, freq, bounds):
    """``(x, freq, (lo, hi))`` checked: finite scores within the finite ``bounds``, whole-number counts >= 0 (at
    least one positive) of the same one-dimensional shape; ``freq`` as int64."""
    try:
        lo_b, hi_b = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise V.InputTypeError(f"bounds must be two numbers (lo, hi), got {V.describe(bounds)}") from None
    if not (math.isfinite(lo_b) and math.isfinite(hi_b) and lo_b < hi_b and math.isfinite(hi_b - lo_b)):
        raise ValueError(f"bounds must be two finite numbers lo < hi (a finite width), got ({lo_b}, {hi_b})")
    try:
        x = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise V.InputTypeError(f"x must be numbers (the scores), got {V.describe(x)}") from None
    f = np.asarray(freq)
    if f.shape != x.shape or x.ndim != 1 or x.size == 0:
        raise ValueError(f"x and freq must be two equally long, non-empty, one-dimensional lists (scores and how many "
                         f"questions have each), got shapes {x.shape} and {f.shape}")
    if (not np.issubdtype(f.dtype, np.number) or not np.all(np.isfinite(f)) or np.any(f < 0)
            or np.any(f != np.round(f)) or f.sum() < 1):
        raise ValueError("freq must hold whole numbers >= 0 (questions per score), at least one of them positive")
    tol_b = 1e-9 * (hi_b - lo_b)
    if not np.all(np.isfinite(x)):
        raise ValueError("x must hold finite scores (got NaN or infinity)")
    if x.min() < lo_b - tol_b or x.max() > hi_b + tol_b:
        raise ValueError(f"x must hold finite scores within bounds [{lo_b:g}, {hi_b:g}] (the guarantee needs them), "
                         f"got values from {x.min():g} to {x.max():g}")
    return x, f.astype(np.int64), (lo_b, hi_b)


def betting_interval(x: np.ndarray, freq: np.ndarray, level: float, bounds: tuple[float, float],
                     rng: np.random.Generator, tol: float = 1e-9) -> tuple[float, float]:
    r"""A confidence interval for the mean of scores that lie in ``bounds``, valid for any distribution there
    and any number of observations (no normal approximation): the betting interval of Waudby-Smith & Ramdas.

    The ``M = sum(freq)`` scores (``x[j]`` taken ``freq[j]`` times), scaled to ``u_i`` in [0, 1], are put in a
    random order (``rng``).  A gambler who bets the fraction ``lambda_i`` of her capital on ``u_i > m``,

    .. math::  K^+_t(m) = \prod_{i \le t} \bigl(1 + \lambda_i^+ (u_i - m)\bigr), \qquad
               \lambda_i = \sqrt{\frac{2 \log(2/\alpha)}{M \hat\sigma^2_{i-1}}}, \quad
               \lambda_i^+ = \min(\lambda_i, c / m),

    with ``sigma^2_{i-1}`` the running variance of the earlier scores (one pseudo-score of variance 1/4
    before the first: ``plugin_variance``) and ``c = 0.9`` (``CI_BET_CAP``: every factor stays at least
    ``1 - c > 0``), holds a nonnegative martingale when the mean is ``m``; by Ville's inequality it ever
    reaches ``2/alpha`` with probability at most ``alpha/2``.  The lower end is the smallest ``m`` at which
    it never does (``K^+`` and its running maximum only fall as ``m`` grows, so bisection over the range finds
    it, to ``tol``); the upper end mirrors it with bets on ``u_i < m``.  So the interval covers the mean with
    probability at least ``level`` whatever the pool, the bets being predictable (each uses the earlier
    scores only).  The bet size is the paper's
    predictable plug-in for a sample of known size ``M`` (Waudby-Smith & Ramdas 2024, "Estimating means of
    bounded random variables by betting", JRSS-B 86(1), 1-27, Section 4); each side at ``alpha/2`` instead of
    their hedged capital makes the set an interval whose ends bisection finds exactly, at most a little wider.
    The paper truncates at ``c = 1/2`` or ``3/4``; any ``c < 1`` keeps the guarantee, and ``0.9`` lets the capital
    grow about ``c m`` per score of 0 against a small mean ``m`` (the end of a sparse metric: with no question
    scoring, the upper end is about ``log(2/alpha) / (c M)``, near Clopper-Pearson's ``log(2/alpha) / M``).

    >>> import numpy as np
    >>> lo, hi = betting_interval(np.array([0.0, 1.0]), np.array([28, 2]), 0.95, (0.0, 1.0),
    ...                           np.random.default_rng(0))
    >>> round(lo, 4), round(hi, 4)
    (0.0, 0.2785)
    """
    level = V.confidence(level, "level")
    if not isinstance(rng, np.random.Generator):
        raise V.InputTypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {V.describe(rng)}")
    x, f, (lo_b, hi_b) = _bounded_scores(x, freq, bounds)
    u = np.clip((np.repeat(x, f) - lo_b) / (hi_b - lo_b), 0.0, 1.0)
    u = u[rng.permutation(u.size)]
    M = u.size
    alpha = 1.0 - level
    _, var_prev, _ = plugin_variance(u)
    lam = np.sqrt(2.0 * math.log(2.0 / alpha) / (M * var_prev))
    threshold = math.log(2.0 / alpha)

    def end(up: bool) -> float:
        a, b = (0.0, 1.0) if up else (1.0, 0.0)  # a: the range's own end; b: the other end, never rejected (no gain)
        if _log_wealth_max(u, lam, a, up) < threshold:
            return a
        while abs(b - a) > tol:
            mid = 0.5 * (a + b)
            if _log_wealth_max(u, lam, mid, up) >= threshold:
                a = mid
            else:
                b = mid
        return b

    return lo_b + (hi_b - lo_b) * end(True), lo_b + (hi_b - lo_b) * end(False)


def binomial_interval(x: np.ndarray, freq: np.ndarray, level: float,
                      bounds: tuple[float, float]) -> tuple[float, float]:
    r"""Clopper-Pearson's interval for the mean of scores that lie in ``bounds``, read from their sum: the ``M =
    sum(freq)`` scores (``x[j]`` taken ``freq[j]`` times), scaled to ``u_i`` in [0, 1], sum to ``S``, and

    .. math::  \bigl[\,B^{-1}(\alpha/2;\ S,\ M - S + 1),\ B^{-1}(1 - \alpha/2;\ S + 1,\ M - S)\,\bigr]

    (``B^{-1}`` the Beta quantile, ``alpha = 1 - level``; the lower end 0 where ``S = 0``, the upper 1 where ``S =
    M``), mapped back to ``bounds``.  For 0/1 scores this is the exact binomial interval (Clopper & Pearson 1934,
    Biometrika 26(4), 404-413): each end misses at most ``alpha / 2`` whatever the mean.  A score between the ends
    is a mean-preserving contraction of a 0/1 outcome with its mean, which makes the sum less spread out than a
    binomial count (the argument behind Hoeffding 1963, JASA 58(301), Section 4), so the interval is read at a
    fractional ``S``; that its ends still miss at most ``alpha / 2`` is checked by enumeration, not proved here:
    over pools of two values ``{0, a}`` (M from 10 to 300) the largest one-sided miss at level 0.95 is 0.02500,
    at ``a = 1`` (the 0/1 case), and over pools of three values ``{0, a, 1}`` (M from 8 to 30) 0.02473
    (``tests/test_binomial_interval.py`` repeats a part of it).  Where no score is above the range's lower end, the
    upper end ``1 - (alpha/2)^(1/M)`` is proved for any pool: each score is 0 with probability at most ``1 - mean``.
    Where few questions carry a mean near an end of the range it is as wide as :func:`betting_interval` at 15-30
    questions and narrower with more (0 of 100: 3.62% against 4.04%; 4 of 100: 9.93% against 14.2%).

    >>> import numpy as np
    >>> lo, hi = binomial_interval(np.array([0.0, 1.0]), np.array([96, 4]), 0.95, (0.0, 1.0))
    >>> round(lo, 4), round(hi, 4)
    (0.011, 0.0993)
    >>> [round(v, 4) for v in binomial_interval(np.array([0.0]), np.array([100]), 0.95, (0.0, 1.0))]
    [0.0, 0.0362]
    """
    level = V.confidence(level, "level")
    x, f, (lo_b, hi_b) = _bounded_scores(x, freq, bounds)
    M = int(f.sum())
    S = float(f @ np.clip((x - lo_b) / (hi_b - lo_b), 0.0, 1.0))
    a = 0.5 * (1.0 - level)
    lo = 0.0 if S <= 0.0 else float(stats.beta.ppf(a, S, M - S + 1.0))
    hi = 1.0 if S >= M else float(stats.beta.ppf(1.0 - a, S + 1.0, M - S))
    return lo_b + (hi_b - lo_b) * lo, lo_b + (hi_b - lo_b) * hi
