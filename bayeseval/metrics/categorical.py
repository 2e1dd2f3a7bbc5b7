r"""The Dirichlet family: Bayes@N, weighted avg@N and max@k on categorical outcomes.

Outcomes are categories ``0..C`` with weights ``w = (w_0..w_C)``.  Question
``i`` has category counts ``n_ij`` (and optional prior outcomes ``R0`` with
counts ``n0_ij``); its posterior over category probabilities is
``Dirichlet(nu_i)`` with ``nu_ij = n_ij + n0_ij + 1`` and ``T_i = sum_j nu_ij``
(``T = 1 + C + D + N`` for a rectangular matrix).

Bayes@N (Hariri et al., arXiv:2510.04265, Eqs. 8-10), per question:

.. math::  E[\bar w_i] = \sum_j \nu_{ij} w_j / T_i, \qquad
           \mathrm{Var}[\bar w_i] = \frac{\sum_j \nu_{ij} (w_j - E[\bar w_i])^2}{T_i (T_i + 1)}

and the dataset score is the mean over questions, with variance
``sum_i Var_i / M^2``.  avg@N reports the plain weighted average with the
Bayesian sd rescaled by ``T_i / n_i`` (Eq. 20).

max@k (Bagirov et al., arXiv:2510.23393): for reward levels
``r_1 < ... < r_L`` and ``A_l`` the probability of a reward ``<= r_l``,
``g = r_L - sum_{l<L} (r_{l+1} - r_l) A_l^k``.  The unbiased estimate replaces
``A_l^k`` by ``C(N_{<=l}, k) / C(n, k)``; under the grouped Dirichlet
posterior ``A_l ~ Beta(nu_{<=l}, nu_{>l})`` and, for ``l < m``,
``E[A_l^k A_m^k] = E[A_m^{2k}] E[B^k]`` with ``B ~ Beta(nu_{<=l}, nu_{(l,m]})``
independent of ``A_m`` (Dirichlet aggregation), so both moments are closed
form.

>>> import numpy as np
>>> from bayeseval.counts import to_counts
>>> R = to_counts(np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]]), w=[0, .5, 1])
>>> mu, sd = bayes_moments(R, [0, .5, 1])
>>> round(mu, 6), round(sd, 6)
(0.5625, 0.091998)

The Dirichlet(1, ..., 1) prior carries ``C + 1`` pseudo-trials spread evenly
over the categories, so with many categories and few trials it pulls every
question towards the unweighted mean of ``w``.  That is Bayes@N's definition
(``metric="bayes"`` keeps it, as do ``max@k`` and ``prior="uniform"`` /
``"dirichlet"``), but :func:`bayeseval.estimate` of ``avg`` / ``avg@n``
defaults to a pooled prior learnt from all questions,
``p_i ~ Dirichlet(s m)`` (:class:`bayeseval.priors.HierarchicalDirichlet`),
under which question ``i``'s posterior is ``Dirichlet(n_i + s m)``: the pull
is towards the pool's mean ``m``, by ``s`` pseudo-trials fitted to the data
(Minka 2000, "Estimating a Dirichlet distribution").  Forty questions with
four trials each on a six-grade scale:

>>> import bayeseval as be
>>> rng = np.random.default_rng(4)
>>> R6 = rng.choice(6, size=(40, 4), p=[0.02, 0.03, 0.05, 0.1, 0.3, 0.5])
>>> pooled = be.estimate(R6, "avg", w=np.arange(6) / 5)
>>> uniform = be.estimate(R6, "avg", w=np.arange(6) / 5, prior="uniform")
>>> round(pooled.value, 3), pooled.prior, round(pooled.lo, 3), round(pooled.hi, 3)
(0.865, 'hierarchical-dirichlet', 0.83, 0.892)
>>> uniform.prior, round(uniform.lo, 3), round(uniform.hi, 3)  # pulled towards 0.5: excludes the sample value
('dirichlet', 0.598, 0.689)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import validate as V
from ..counts import Counts, distinct_rows, row_sums, to_counts
from .engine import log_factorial

__all__ = ["prior_table", "bayes_rows", "bayes_moments", "avg_moments", "max_point", "max_moments", "max_rows",
           "max_row_points", "max_row_jackknife", "posterior_rows"]


def prior_table(R0: Any, counts: Counts, K: int) -> np.ndarray:
    """Category counts of the prior outcomes ``R0`` (one row per question)."""
    if R0 is None:
        return np.zeros((counts.M, K), dtype=np.int64)
    if isinstance(R0, Counts):
        pc = R0
    else:
        if isinstance(R0, (str, bytes)):
            raise V.InputTypeError(f"R0 must be an (M, D) array of prior outcomes, got {V.describe(R0)}")
        try:
            shape = np.shape(R0)
        except ValueError:
            shape = None
        if shape is not None and len(shape) == 2 and shape[1] == 0:
            if shape[0] != counts.M:
                raise ValueError(f"R0 must have one row per question: R has {counts.M} rows, R0 has {shape[0]}")
            return np.zeros((counts.M, K), dtype=np.int64)
        if shape is not None and len(shape) == 1 and counts.M != 1:
            raise ValueError(
                f"R0 must be 2-D with one row per question (M={counts.M}), got a 1-D array of {shape[0]} entries"
            )
        pc = to_counts(R0, categories=K, name="R0")
    if pc.M != counts.M:
        raise ValueError(f"R0 must have one row per question: R has {counts.M} rows, R0 has {pc.M}")
    if pc.K > K:
        used = int(np.flatnonzero(pc.table.any(axis=0)).max())
        if used >= K:
            raise ValueError(f"R0 entries must be categories 0..{K - 1}, found {used}")
        return pc.table[:, :K]
    return np.pad(pc.table, ((0, 0), (0, K - pc.K)))


def _affine(w: np.ndarray):
    """``w = offset + scale * u`` with ``|u| <= 1``: moments are computed on ``u`` and mapped back,
    so weights like 1e200 give finite answers."""
    offset = float(w[0])
    with np.errstate(over="ignore", invalid="ignore"):
        centred = w - offset
    if not np.isfinite(centred).all():
        offset, centred = 0.0, w
    scale = float(np.max(np.abs(centred)))
    if scale == 0.0:
        return offset, 0.0, np.zeros_like(w)
    return offset, scale, centred / scale


class _Rows:
    """Distinct rows of Dirichlet parameters and everything the metrics derive from them."""

    __slots__ = ("nu", "freq", "w", "offset", "scale", "u", "levels", "grouped", "per_level")

    def __init__(self, nu, freq, w):
        self.nu, self.freq, self.w = nu, freq, w
        self.offset, self.scale, self.u = _affine(w)
        # categories with equal weight form one reward level; nu summed per level
        self.levels = np.unique(self.u)
        inverse = np.searchsorted(self.levels, self.u)
        self.grouped = np.zeros((nu.shape[0], self.levels.size))
        for c, level in enumerate(inverse.tolist()):  # loops over categories, not questions
            self.grouped[:, level] += nu[:, c]
        self.per_level = np.bincount(inverse, minlength=self.levels.size)  # categories per level


def posterior_rows(counts: Counts, w: Any, R0: Any) -> "_Rows":
    """Distinct rows of ``nu = n + n0 + 1`` with their frequencies (cached per ``w`` when R0 is None)."""
    if R0 is not None:
        table, w = counts.table_for(w)
        rows, freq = distinct_rows(table + prior_table(R0, counts, w.size))
        return _Rows(rows + 1.0, freq.astype(np.float64), w)
    w = counts.check_weights(w)  # no table is built: the distinct rows below are all that is needed
    key = ("dirichlet", w.tobytes())
    cache = counts.cache()
    prepared = cache.get(key)
    if prepared is None:
        rows, freq = counts.distinct_rows()
        if rows.shape[1] > w.size:
            rows = rows[:, : w.size]
        elif rows.shape[1] < w.size:
            rows = np.pad(rows, ((0, 0), (0, w.size - rows.shape[1])))
        prepared = cache[key] = _Rows(rows + 1.0, freq, w)
    return prepared


def _cumsum_cols(a: np.ndarray) -> np.ndarray:
    """Cumulative sum along a narrow row (a few levels): column adds beat ``cumsum(axis=1)``."""
    out = a.copy()
    for j in range(1, a.shape[1]):
        out[:, j] += out[:, j - 1]
    return out


def bayes_rows(nu: np.ndarray, w: np.ndarray):
    """Dirichlet(nu) posterior mean and variance of the weighted score, per row."""
    T = row_sums(nu)
    mean = nu @ w / T
    centred = w[None, :] - mean[:, None]
    var = row_sums(nu * centred * centred) / (T * (T + 1.0))
    return mean, var, T


def bayes_moments(counts: Counts, w: Any, R0: Any = None) -> tuple[float, float]:
    """Bayes@N: posterior mean and sd of the dataset score."""
    P = posterior_rows(counts, w, R0)
    mean, var, _ = bayes_rows(P.nu, P.u)
    M = counts.M
    return P.offset + P.scale * float(P.freq @ mean / M), P.scale * float(np.sqrt(P.freq @ var) / M)


def avg_moments(counts: Counts, w: Any) -> tuple[float, float]:
    """avg@N (macro average over questions) and its Bayesian sd rescaled by ``T/n``."""
    P = posterior_rows(counts, w, None)
    rows = P.nu - 1.0
    n = row_sums(rows)
    _, var, T = bayes_rows(P.nu, P.u)
    M = counts.M
    a = float(P.freq @ (rows @ P.u / n) / M)
    return P.offset + P.scale * a, P.scale * float(np.sqrt(P.freq @ ((T / n) ** 2 * var)) / M)


_DIRECT_TERMS = 1 << 24  # rows x levels x k terms summed directly (log1p); larger: log-factorial differences


def _log_ratio_terms(num_gap: np.ndarray, den: np.ndarray, k: int, sign: int) -> np.ndarray | None:
    """``sum_{i<k} log1p(-gap / (den + sign * i))`` elementwise, or None when it is too large to sum.

    With ``gap = den - x`` this is ``log prod_i (x + sign i) / (den + sign i)``: a rising (``sign = 1``) or
    falling (``sign = -1``) factorial ratio, accurate when the ratio is close to 1 (rare events), where a
    difference of two log-factorials of size ``n log n`` loses every digit of ``1 - ratio``.
    """
    if num_gap.size * k > _DIRECT_TERMS:
        return None
    out = np.zeros(num_gap.shape)
    step = max(1, _DIRECT_TERMS // max(num_gap.size, 1) // 8)
    for start in range(0, k, step):
        i = np.arange(start, min(k, start + step), dtype=np.float64)
        out += np.log1p(-num_gap[..., None] / (den[..., None] + sign * i)).sum(axis=-1)
    return out


def max_point(counts: Counts, w: Any, k: int) -> float:
    """Unbiased max@k: expected best reward of a random k-subset of each question's trials."""
    counts.require_k_le_n(k, "max@k")
    P = posterior_rows(counts, w, None)
    return P.offset + P.scale * float(P.freq @ max_row_points(P, k) / counts.M)


def max_moments(counts: Counts, w: Any, k: int, R0: Any = None) -> tuple[float, float]:
    """Posterior mean and sd of dataset max@k under the grouped Dirichlet posterior."""
    P = posterior_rows(counts, w, R0)
    mean_q, var_q = max_rows(P, k)
    M = counts.M
    return P.offset + P.scale * float(P.freq @ mean_q / M), P.scale * float(np.sqrt(P.freq @ var_q) / M)


def max_rows(P: "_Rows", k: int):
    """Per distinct row: posterior mean and variance of max@k, in the rescaled units ``u`` of ``P``."""
    levels, grouped = P.levels, P.grouped
    if levels.size == 1:
        return np.full(grouped.shape[0], float(levels[0])), np.zeros(grouped.shape[0])
    delta = np.diff(levels)
    cum = _cumsum_cols(grouped)
    total = cum[:, -1:]
    lower = cum[:, :-1]  # nu_{<=l}, l < L
    # nu = counts + prior counts + 1 is integral: Gamma(x) = (x-1)!, read from one log-factorial table
    low_i, tot_i = lower.astype(np.int64) - 1, total.astype(np.int64) - 1
    G = log_factorial(int(tot_i.max()) + 2 * k)
    lg_low, lg_tot = G[low_i], G[tot_i]
    rise1 = G[low_i + k] - lg_low  # log Gamma(x + k) / Gamma(x) at x = nu_{<=l}
    log_m1 = rise1 - (G[tot_i + k] - lg_tot)  # log E[A_l^k]
    log_m2 = G[low_i + 2 * k] - lg_low - G[tot_i + 2 * k] + lg_tot  # log E[A_l^{2k}]
    # E[A_l^j] = prod_{i<j} (x + i) / (T + i) with x = nu_{<=l}, T = nu total: summed as log1p terms where
    # affordable, so that 1 - E[A^k] (a rare top category) keeps its digits at any number of trials
    gap = np.broadcast_to(total - lower, lower.shape).astype(np.float64)
    den = np.broadcast_to(total, lower.shape).astype(np.float64)
    direct1 = _log_ratio_terms(gap, den, k, 1)
    if direct1 is not None:
        log_m1 = direct1
        log_m2 = _log_ratio_terms(gap, den, 2 * k, 1)
        rise1 = log_m1 + (G[tot_i + k] - lg_tot)  # keeps rise1[l] - rise1[m] exact to the same order
    # max@k = r_L - sum_l d_l E[A_l^k] = r_0 + sum_l d_l (1 - E[A_l^k])
    mean_q = levels[0] + (-np.expm1(log_m1)) @ delta
    # Var = sum_{l,m} d_l d_m Cov(A_l^k, A_m^k).  For l <= m, log E[A_l^k A_m^k]
    # = log E[A_m^{2k}] + log E[B^k] with B ~ Beta(nu_<=l, nu_(l,m]) and
    # log E[B^k] = rise1[l] - rise1[m].  The covariance exp(joint) - exp(ind) is
    # factored around the larger term: no overflow, no cancellation.
    var_q = np.zeros(lower.shape[0])
    for l in range(lower.shape[1]):
        for m in range(l, lower.shape[1]):
            joint = log_m2[:, m] + (rise1[:, l] - rise1[:, m])
            ind = log_m1[:, l] + log_m1[:, m]
            hi = np.maximum(joint, ind)
            cov = np.where(joint >= ind, 1.0, -1.0) * np.exp(hi) * -np.expm1(np.minimum(joint, ind) - hi)
            var_q += (1.0 if l == m else 2.0) * delta[l] * delta[m] * cov
    np.maximum(var_q, 0.0, out=var_q)
    return mean_q, var_q


def max_row_points(P: "_Rows", k: int) -> np.ndarray:
    """Per distinct row: the unbiased max@k (needs ``k <= n``), in the rescaled units ``u`` of ``P``."""
    levels = P.levels
    grouped = (P.grouped - P.per_level).astype(np.int64)  # observed trials per level (the +1 prior removed)
    if levels.size == 1:
        return np.full(grouped.shape[0], float(levels[0]))
    n = row_sums(grouped)
    cum = _cumsum_cols(grouped)[:, :-1]  # trials with reward <= r_l, l < L
    G = log_factorial(int(n.max()))
    ok = cum >= k
    cum_k = np.maximum(cum - k, 0)
    # log C(cum, k) / C(n, k) = sum_{i<k} log((cum - i) / (n - i)): log1p terms where affordable
    nn = np.broadcast_to(n[:, None], cum.shape).astype(np.float64)
    log_p = _log_ratio_terms(np.where(ok, nn - cum, 0.0), nn, k, -1)
    if log_p is None:
        log_p = G[cum] - G[cum_k] - (G[n] - G[n - k])[:, None]
    one_minus = np.where(ok, -np.expm1(np.where(ok, log_p, 0.0)), 1.0)  # 1 - C(cum, k) / C(n, k)
    return levels[0] + one_minus @ np.diff(levels)


def max_row_jackknife(P: "_Rows", k: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Per distinct row: the jackknife estimate of the variance of the unbiased max@k over the row's trials, and
    its trial count ``n`` (in the rescaled units ``u`` of ``P``; rows with ``n <= k`` get NaN: leaving a trial out
    leaves fewer than ``k``).

    .. math::  v = \frac{n - 1}{n} \sum_{t=1}^{n} (\hat g_{(-t)} - \bar g_{(\cdot)})^2

    over the ``n`` leave-one-trial-out estimates, which depend only on the left-out trial's level: a trial at
    level ``j`` lowers ``N_{<=l}`` by one for every ``l >= j``.  For a symmetric statistic of independent trials
    its expectation is at least the true variance (Efron & Stein 1981, Ann. Statist. 9(3), the jackknife
    estimate of variance), whatever the category probabilities.

    >>> from bayeseval.counts import to_counts
    >>> P = posterior_rows(to_counts(np.array([[0, 1, 2, 2, 1]]), w=[0, .5, 1]), np.array([0, .5, 1]), None)
    >>> v, n = max_row_jackknife(P, 2)
    >>> # leaving out the 0 or a 0.5 gives max@2 = 11/12 (three trials), a 1 gives 3/4 (two): centre 0.85
    >>> round(float(v[0]), 6), int(n[0])  # 4/5 * (3 (1/15)^2 + 2 (1/10)^2)
    (0.026667, 5)
    """
    levels = P.levels
    grouped = (P.grouped - P.per_level).astype(np.int64)  # observed trials per level
    n = row_sums(grouped)
    if levels.size == 1:
        return np.where(n > k, 0.0, np.nan), n
    L = levels.size
    cum = _cumsum_cols(grouped)[:, :-1]  # (rows, L - 1): trials with reward <= r_l
    G = log_factorial(int(n.max()))
    m = np.maximum(n - 1, 0)
    delta = np.diff(levels)
    out = np.zeros((n.size, L))  # leave-one-out estimate per level j of the trial left out
    for j in range(L):
        c = cum - (np.arange(L - 1)[None, :] >= j)  # N_{<=l} without one trial of level j
        ok = (c >= k) & (m[:, None] >= k)
        cc, mm = np.where(ok, c, k), np.broadcast_to(np.where(m >= k, m, k)[:, None], c.shape)
        ratio = np.where(ok, np.exp(G[cc] - G[cc - k] - G[mm] + G[mm - k]), 0.0)  # C(c, k) / C(n - 1, k)
        out[:, j] = levels[0] + (1.0 - ratio) @ delta
    weight = grouped / np.maximum(n, 1)[:, None]  # share of the trials at each level
    centre = row_sums(weight * out)
    v = (n - 1) * row_sums(weight * (out - centre[:, None]) ** 2)  # (n - 1) / n * sum over the n trials
    return np.where(n > k, np.maximum(v, 0.0), np.nan), n
