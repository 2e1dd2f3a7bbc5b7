r"""TailPass@k: the probability that a bank of ``k`` fresh attempts reaches each score threshold.

Hariri, Hinczewski, Ayday and Chaudhary (2026), "Success Has a Shape: TailPass@k for Repeated
Sampling Evaluation", Sections 2-3 and Appendix C.  Names, arguments, defaults, return shapes and
errors follow ``scorio.eval.tailpass`` / ``tailpass_empirical`` (scorio 0.2.3); the computation
is bayeseval's own, done once per distinct count state.

**Setting.**  Categories ``0..C`` carry rubric scores ``w`` in [0, 1]; categories of equal score
form one *level*, ``s_1 < ... < s_L``.  Question ``i`` has level probabilities ``p_i``.  A bank of
``k`` fresh attempts has level counts ``X ~ Multinomial(k, p_i)`` and average score
``S = X . s / k``.  Its profile at thresholds ``t_1 < ... < t_m`` (default ``1/k, ..., 1``) is

.. math::  T_j(p) = P(S \ge t_j \mid p)
           = \sum_{x:\ x \cdot s \ge k t_j} \binom{k}{x_1, \dots, x_L} \prod_l p_l^{x_l},

and a dataset's profile is the mean of ``T(p_i)`` over its questions.  For binary outcomes
``T`` at ``t = 1/k`` is pass@k, ``1 - (1-p)^k``, and at ``t = 1`` it is pass^k, ``p^k``.
(Bank scores are summed in extended precision and rounded once to float64, then compared with
the thresholds, as in scorio.  Scores and thresholds are the float64 numbers given: a bank of
one 0.1 and one 0.7 attempt averages just below ``t = 0.4``, as ``0.1 + 0.7 < 0.8`` in float64.)

* :func:`tailpass_empirical` -- the finite bank: ``k`` of question ``i``'s ``n_i`` observed
  trials drawn without replacement, so ``X`` is multivariate hypergeometric,
  ``P(x) = prod_l C(n_il, x_l) / C(n_i, k)`` (the unbiased estimate of ``T_j(p_i)``).
* :func:`tailpass` -- the posterior ``p_i ~ Dirichlet(nu_i)``, ``nu = prior + counts(R) +
  eta * counts(R0)`` (equal-score categories add their concentrations).  The mean is the
  Dirichlet-multinomial (Polya urn) predictive of one bank, ``E[T_j] = P(S >= t_j)`` with
  ``X ~ DirMult(k, nu)``.  Two banks drawn with the same ``p`` are the first ``2k`` draws of one
  Polya urn, ``X_1 ~ DirMult(k, nu)`` and ``X_2 | X_1 ~ DirMult(k, nu + X_1)``, so
  ``E[T_i T_j] = P(X_1 in A_i, X_2 in A_j)`` and

  .. math::  \mathrm{Cov}(T_i, T_j) = \sigma_i \sigma_j \sum_{x \in B_i} P(X_1 = x)
             \,[P(X_2 \in B_j \mid X_1 = x) - P(X_2 \in B_j)]

  where ``B_j`` is the event ``A_j = {S >= t_j}`` or its complement (``sigma_j = +1`` or
  ``-1``), whichever is less likely: a rare event keeps its digits (pass@k near 1 has a tiny,
  exact variance).  Questions are independent, so the dataset covariance is
  ``sum_i Cov_i / M^2``.

**Utilities** (:class:`TailPassProfile`).  ``linear(weights)`` is the payoff
``sum_j weights_j 1{S >= t_j}``; ``moment(lam)`` is ``U(p) = E[S^lam | p]``;
``discovery()`` is ``1 - q_0^k`` (``q_0`` the mass of score-0 levels), ``stability()`` is
``q_1^k`` (score-1 levels).  For integer ``lam``,

.. math::  E[S^\lambda \mid p] = k^{-\lambda} \sum_{\pi \vdash [\lambda]} k^{\underline{|\pi|}}
           \prod_{B \in \pi} m_{|B|}(p), \qquad m_r(p) = \sum_l p_l s_l^r,

over the set partitions ``pi`` of the ``lam`` factors (factors in one block are the same
attempt), and under ``Dirichlet(nu)`` (Blackwell-MacQueen: the Polya urn seats draws at tables)

.. math::  E\Big[\prod_{r=1}^q m_{b_r}(p)\Big] = \frac{1}{\nu_\cdot^{(q)}}
           \sum_{\pi \vdash [q]} \prod_{B \in \pi} (|B|-1)!\, \sum_l \nu_l s_l^{\sum_{r \in B} b_r},

so ``moment(2)``, ``moment(3)`` and ``moment(4)`` need no enumeration of banks (any number of
categories, any ``k``).  Other payoffs are exact sums over the bank count grid, binary ones
through the Bernstein engine (:mod:`bayeseval.metrics.engine`).

**Limits.**  Exact profiles enumerate the ``C(k + L - 1, L - 1)`` bank count states, at most
``MAX_COUNT_STATES = 20,000``; exact covariances (and categorical ``linear`` / non-integer
``moment``) need ``max(states, thresholds)^2 <= MAX_COVARIANCE_PAIRS = 4,000,000``.  These are
scorio's limits, except that ``moment(2 | 3 | 4)`` has no limit on the number of rubric levels.
Posterior draws (:meth:`TailPassProfile.sample`) are the Monte Carlo alternative.

Example
-------
>>> import numpy as np
>>> R = np.array([[0, 1, 1], [1, 1, 1]])
>>> tailpass_empirical(R, 2).round(6).tolist()        # pass@2, pass^2
[1.0, 0.666667]
>>> profile = tailpass(R, k=4)
>>> profile.mean.round(6).tolist()
[0.957143, 0.842857, 0.642857, 0.357143]
>>> tuple(round(x, 6) for x in profile.moment(lam=1))  # Bayes@N
(0.7, 0.129099)
"""

from __future__ import annotations

import math
from functools import cached_property, lru_cache
from typing import Any, Callable, Iterator

import numpy as np
from scipy.special import logsumexp, xlogy

from .. import validate as V
from ..counts import Counts, to_counts
from ..intervals import normal_interval, z_value
from . import categorical as cat
from .engine import _betabinom_block, log_factorial, moments_rows

__all__ = [
    "tailpass",
    "tailpass_empirical",
    "TailPassProfile",
    "TailPassDraws",
    "MAX_COUNT_STATES",
    "MAX_COVARIANCE_PAIRS",
]

MAX_COUNT_STATES = 20_000  # bank count states C(k + L - 1, L - 1) of one exact profile
MAX_COVARIANCE_PAIRS = 4_000_000  # (count states or thresholds)^2 of one exact covariance
_BUDGET = 2_000_000  # floats per working block


# ----------------------------------------------------------------------------- input checks
def _thresholds(k: int, thresholds: Any) -> np.ndarray:
    if thresholds is None:
        if k > MAX_COUNT_STATES:
            raise ValueError(
                f"thresholds: the default grid 1/k, ..., 1 has k = {k:,} points, above the limit "
                f"of {MAX_COUNT_STATES:,}; pass explicit thresholds"
            )
        t = np.arange(1, k + 1, dtype=np.float64) / k
    else:
        t = np.array(V.vector(thresholds, "thresholds"))
        if np.any((t < 0.0) | (t > 1.0)) or np.any(np.diff(t) <= 0.0):
            raise ValueError(
                "thresholds must be a non-empty, strictly increasing vector in [0, 1], "
                f"got {np.array2string(t, threshold=8)}"
            )
    t.setflags(write=False)
    return t


def _unit_scalar(value: Any, name: str) -> float:
    """A real scalar (or 0-d array) in [0, 1]."""
    if isinstance(value, (str, bytes)):
        raise V.InputTypeError(f"{name} must be a scalar in [0, 1], got {V.describe(value)}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise V.InputTypeError(f"{name} must be a scalar in [0, 1], got {V.describe(value)}") from None
    numeric = np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_
    if arr.ndim != 0 or not numeric or np.issubdtype(arr.dtype, np.complexfloating):
        raise V.InputTypeError(f"{name} must be a scalar in [0, 1], got {V.describe(value)}")
    x = float(arr)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"{name} must be a scalar in [0, 1], got {x!r}")
    return x


def _convex(weights: Any, size: int, name: str = "weights") -> np.ndarray:
    """Non-negative weights, one per threshold, summing to one (to 1e-12)."""
    values = V.vector(weights, name)
    if values.shape != (size,):
        raise ValueError(f"{name} must be a length-{size} 1-D array (one per threshold), got {values.size}")
    if np.any(values < 0.0):
        bad = int(np.flatnonzero(values < 0.0)[0])
        raise ValueError(f"{name} must be non-negative and sum to one; {name}[{bad}] = {float(values[bad])!r}")
    if not math.isclose(float(values.sum()), 1.0, rel_tol=0.0, abs_tol=1e-12):
        raise ValueError(f"{name} must be non-negative and sum to one, got sum {float(values.sum())!r}")
    return values


def _positive(value: Any, name: str) -> float:
    return V.real(value, name, lo=0.0, lo_open=True)


def _rubric(counts: Counts, w: Any, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """The count table and the rubric scores (binary [0, 1] without ``w``), checked to lie in [0, 1]."""
    if w is None:
        counts.successes(metric, weighted=True)
        w = np.array([0.0, 1.0])
    table, w = counts.table_for(w)
    if np.any((w < 0.0) | (w > 1.0)):
        bad = int(np.flatnonzero((w < 0.0) | (w > 1.0))[0])
        raise ValueError(f"w (TailPass rubric scores) must lie in [0, 1]; w[{bad}] = {float(w[bad])!r}")
    return table, w


def _levels(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct scores in ascending order and each category's level."""
    scores, inverse = np.unique(w, return_inverse=True)
    return scores, inverse.ravel()


def _group(values: np.ndarray, inverse: np.ndarray, L: int) -> np.ndarray:
    """Sum the columns (categories) of ``values`` into their score levels."""
    out = np.zeros((values.shape[0], L), dtype=values.dtype)
    for c, level in enumerate(inverse.tolist()):
        out[:, level] += values[:, c]
    return out


def _prior(prior: Any, shape: tuple[int, int]) -> np.ndarray:
    """Dirichlet concentrations: a scalar, one per category, or a question-by-category matrix."""
    if isinstance(prior, (str, bytes)):
        raise V.InputTypeError(f"prior must hold positive Dirichlet concentrations, got {V.describe(prior)}")
    try:
        arr = np.asarray(prior)
    except (TypeError, ValueError) as exc:
        raise V.InputTypeError(f"prior must hold positive Dirichlet concentrations ({exc})") from None
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_) or np.issubdtype(arr.dtype, np.complexfloating):
        raise V.InputTypeError(f"prior must hold positive Dirichlet concentrations, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim > 2 or not np.all(np.isfinite(arr)) or np.any(arr <= 0.0):
        raise ValueError("prior must contain finite, positive Dirichlet concentrations "
                         "(a scalar, one per category, or a question-by-category matrix)")
    try:
        return np.broadcast_to(arr, shape)
    except ValueError:
        raise ValueError(
            f"prior must be a scalar, a category vector of length {shape[1]}, or a {shape[0]} x {shape[1]} "
            f"question-by-category matrix; got shape {arr.shape}"
        ) from None


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64, copy=True)
    a.setflags(write=False)
    return a


# ----------------------------------------------------------------------------- the bank count grid
def _compositions(k: int, L: int) -> np.ndarray:
    """All ``x`` in N^L with ``sum(x) = k`` (weak compositions), one per row."""
    rows = np.zeros((1, 0), dtype=np.int64)
    left = np.array([k], dtype=np.int64)
    for _ in range(L - 1):
        reps = left + 1
        parent = np.repeat(np.arange(rows.shape[0]), reps)
        first = np.repeat(np.cumsum(reps) - reps, reps)
        value = np.arange(int(reps.sum()), dtype=np.int64) - first
        rows = np.column_stack([rows[parent], value])
        left = left[parent] - value
    return np.column_stack([rows, left])


class _Grid:
    """The bank count states of ``k`` attempts over ``L`` levels, sorted by bank score."""

    __slots__ = ("k", "counts", "score", "logcoef", "size")

    def __init__(self, k: int, scores: np.ndarray):
        L = scores.size
        size = math.comb(k + L - 1, L - 1)
        if size > MAX_COUNT_STATES:
            raise ValueError(
                f"k = {k:,} with {L} rubric score levels has {size:,} bank count states; exact TailPass "
                f"profiles are limited to {MAX_COUNT_STATES:,} (use a smaller k or fewer levels, "
                "moment(lam) for lam = 1, 2, 3, 4, or posterior draws)"
            )
        counts = _compositions(k, L)
        # sum in extended precision, round once to float64
        score = np.asarray(counts.astype(np.longdouble) @ scores.astype(np.longdouble) / k, dtype=np.float64)
        order = np.argsort(score, kind="stable")
        self.k, self.size = k, size
        self.counts, self.score = counts[order], score[order]
        G = log_factorial(k)
        self.logcoef = G[k] - G[self.counts].sum(axis=1)

    def cuts(self, thresholds: np.ndarray) -> np.ndarray:
        """First sorted state meeting each threshold: ``A_j`` is ``[cut_j, G)``."""
        return np.searchsorted(self.score, thresholds, side="left")


def _prefix(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """``out[c] = sum_{y < c} a[y]`` along ``axis`` (one longer)."""
    a = np.moveaxis(a, axis, -1)
    out = np.zeros(a.shape[:-1] + (a.shape[-1] + 1,))
    np.cumsum(a, axis=-1, out=out[..., 1:])
    return np.moveaxis(out, -1, axis)


def _suffix(a: np.ndarray, axis: int = -1) -> np.ndarray:
    """``out[c] = sum_{y >= c} a[y]`` along ``axis`` (one longer), summed from the far end."""
    a = np.moveaxis(a, axis, -1)
    out = np.zeros(a.shape[:-1] + (a.shape[-1] + 1,))
    out[..., :-1] = np.cumsum(a[..., ::-1], axis=-1)[..., ::-1]
    return np.moveaxis(out, -1, axis)


def _normalise(logs: np.ndarray) -> np.ndarray:
    logs -= logs.max(axis=1, keepdims=True)
    np.exp(logs, out=logs)
    logs /= logs.sum(axis=1, keepdims=True)
    return logs


def _predictive(grid: _Grid, alpha: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
    r"""``DirMult(x; k, alpha + extra)`` over the sorted grid, one row per row of ``alpha``.

    Two levels use the engine's beta-binomial recurrence (``extra`` enters as integer counts).
    More levels sum the rising factorials as :math:`\sum_{i < x_l} \log((a_l + i) / A)` (the
    ``A`` terms add the same ``k \log A`` to every state, so they cancel) and normalise in log space.
    """
    n_rows, L = alpha.shape
    if L == 1:
        return np.ones((n_rows, 1))
    k = grid.k
    if L == 2:
        if extra is None:
            n = s = np.zeros(n_rows, dtype=np.int64)
        else:
            n, s = extra.sum(axis=1), extra[:, 1]
        pmf = _betabinom_block(n, s, k, alpha[:, 1], alpha[:, 0], None)
        return pmf[:, grid.counts[:, 1]]
    if extra is not None:
        alpha = alpha + extra
    total = alpha.sum(axis=1, keepdims=True)
    i = np.arange(k, dtype=np.float64)[None, :]
    logs = np.broadcast_to(grid.logcoef, (n_rows, grid.size)).copy()
    rising = np.zeros((n_rows, k + 1))
    for level in range(L):
        np.cumsum(np.log((alpha[:, level, None] + i) / total), axis=1, out=rising[:, 1:])
        logs += rising[:, grid.counts[:, level]]
    return _normalise(logs)


def _hypergeometric(grid: _Grid, observed: np.ndarray) -> np.ndarray:
    """``prod_l C(n_l, x_l) / C(n, k)`` over the sorted grid, one row per row of observed level counts."""
    n_rows, L = observed.shape
    if L == 1:
        return np.ones((n_rows, 1))
    G = log_factorial(int(observed.max()))
    logs = np.zeros((n_rows, grid.size))
    for level in range(L):
        x = grid.counts[:, level][None, :]
        rest = observed[:, level, None] - x
        logs += np.where(rest >= 0, -G[x] - G[np.maximum(rest, 0)], -np.inf)
    return _normalise(logs)


def _multinomial(grid: _Grid, p: np.ndarray) -> np.ndarray:
    """``Multinomial(x; k, p)`` over the sorted grid, one row per row of ``p``."""
    logs = np.broadcast_to(grid.logcoef, (p.shape[0], grid.size)).copy()
    for level in range(p.shape[1]):
        logs += xlogy(grid.counts[:, level][None, :], p[:, level, None])
    return _normalise(logs)


def _blocks(total: int, per_item: int) -> Iterator[slice]:
    step = max(1, _BUDGET // max(per_item, 1))
    for start in range(0, total, step):
        yield slice(start, min(total, start + step))


# ----------------------------------------------------------------------------- integer moments
def _set_partitions(q: int) -> list[list[list[int]]]:
    """All set partitions of ``range(q)`` (Bell(q) of them)."""
    parts: list[list[list[int]]] = [[]]
    for item in range(q):
        grown = []
        for p in parts:
            for b in range(len(p)):
                grown.append([blk + [item] if j == b else blk for j, blk in enumerate(p)])
            grown.append(p + [[item]])
        parts = grown
    return parts


@lru_cache(maxsize=None)
def _shapes(lam: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Block-size multisets of the set partitions of ``lam`` factors, with how many partitions have each."""
    count: dict[tuple[int, ...], int] = {}
    for p in _set_partitions(lam):
        key = tuple(sorted(len(b) for b in p))
        count[key] = count.get(key, 0) + 1
    return tuple(count.items())


@lru_cache(maxsize=None)
def _urn_terms(bs: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    """``nu^(q) E_Dir[prod_r m_{b_r}] = sum_key weight * prod_{j in key} c_j``, ``c_j = sum_l nu_l s_l^j``."""
    acc: dict[tuple[int, ...], int] = {}
    for p in _set_partitions(len(bs)):
        key = tuple(sorted(sum(bs[r] for r in blk) for blk in p))
        weight = math.prod(math.factorial(len(blk) - 1) for blk in p)
        acc[key] = acc.get(key, 0) + weight
    return tuple(acc.items())


def _falling_ratio(k: int, q: int, lam: int) -> float:
    """``k (k-1) ... (k-q+1) / k^lam``."""
    return math.prod((k - i) / k for i in range(q)) * float(k) ** (q - lam)


def _latent_power_moment(m: dict[int, np.ndarray], k: int, lam: int) -> np.ndarray:
    """``E[S^lam | p]`` from the power sums ``m[r] = sum_l p_l s_l^r``."""
    out = 0.0
    for shape, count in _shapes(lam):
        c = count * _falling_ratio(k, len(shape), lam)
        if c:
            out = out + c * math.prod((m[b] for b in shape), start=1.0)
    return out


def _urn_moment(bs: tuple[int, ...], c: np.ndarray, A: np.ndarray) -> np.ndarray:
    """``E_Dir(nu)[prod_r m_{b_r}(p)]`` per state; ``c[:, j] = sum_l nu_l s_l^j / A``."""
    q = len(bs)
    out = np.zeros(A.shape)
    for key, weight in _urn_terms(tuple(sorted(bs))):
        nb = len(key)
        # prod_B c_j / A^(q) = prod_B (c_j / A) * A^nb / (A (A+1) ... (A+q-1))
        ratio = np.ones(A.shape)
        for i in range(q):
            ratio = ratio * ((A / (A + i)) if i < nb else (1.0 / (A + i)))
        term = ratio * weight
        for j in key:
            term = term * c[:, j]
        out += term
    return out


def _posterior_power_moment(alpha: np.ndarray, scores: np.ndarray, k: int, lam: int):
    """Posterior mean and variance of ``U(p) = E[S^lam | p]`` per state, ``p ~ Dirichlet(alpha)``."""
    A = alpha.sum(axis=1)
    c = np.zeros((alpha.shape[0], 2 * lam + 1))
    for j in range(1, 2 * lam + 1):
        c[:, j] = alpha @ scores**j / A
    shapes = [(shape, count * _falling_ratio(k, len(shape), lam)) for shape, count in _shapes(lam)]
    mean = sum(cf * _urn_moment(shape, c, A) for shape, cf in shapes if cf)
    second = sum(
        c1 * c2 * _urn_moment(s1 + s2, c, A) for s1, c1 in shapes for s2, c2 in shapes if c1 and c2
    )
    return mean, np.maximum(second - mean * mean, 0.0)


def _sum_terms(n: int, size: int, term: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``sum_{i < n} term(i)`` per state, ``term`` mapping ``i`` of shape (1, c) to (states, c)."""
    out = np.zeros(size)
    step = max(1, _BUDGET // max(size, 1))
    for start in range(0, n, step):
        out += term(np.arange(start, min(n, start + step), dtype=np.float64)[None, :]).sum(axis=1)
    return out


def _endpoint_moments(k: int, a: np.ndarray, b: np.ndarray):
    r"""``log E[q^k]`` and ``Var[q^k]`` for ``q ~ Beta(a, b)``, per state, without cancellation.

    :math:`\log E[q^k] = \sum_{i<k} \mathrm{log1p}(-b/(A+i))`, ``A = a + b``, and
    :math:`\mathrm{Var}[q^k] = E[q^{2k}]\,(1 - \prod_{i<k} (1 - \frac{k b}{(A+i)(a+k+i)}))`, since
    :math:`E[q^k]^2 / E[q^{2k}] = \prod_{i<k} \frac{(a+i)(A+k+i)}{(A+i)(a+k+i)}`.
    """
    A = a + b
    a_, b_, A_ = a[:, None], b[:, None], A[:, None]
    log_m1 = _sum_terms(k, a.size, lambda i: np.log1p(-b_ / (A_ + i)))
    log_m2 = log_m1 + _sum_terms(k, a.size, lambda i: np.log1p(-b_ / (A_ + k + i)))
    log_ratio = _sum_terms(k, a.size, lambda i: np.log1p(-k * b_ / ((A_ + i) * (a_ + k + i))))
    return log_m1, np.exp(log_m2) * -np.expm1(log_ratio)


# ----------------------------------------------------------------------------- public functions
def tailpass(
    R: Any,
    k: int,
    w: Any = None,
    R0: Any = None,
    *,
    eta: float = 1.0,
    prior: Any = 1.0,
    thresholds: Any = None,
) -> "TailPassProfile":
    r"""Posterior TailPass profile of ``k`` fresh attempts per question (scorio's ``tailpass``).

    Question ``i``'s level probabilities have the posterior
    ``Dirichlet(prior + counts(R_i) + eta * counts(R0_i))``; the profile at thresholds
    ``t_1 < ... < t_m`` is the dataset mean of :math:`T_j(p_i) = P(S \ge t_j \mid p_i)`,
    ``S`` the average rubric score of ``k`` attempts.  The returned :class:`TailPassProfile`
    has its exact posterior ``mean``, ``std``, ``covariance`` and ``question_mean``, scalar
    utilities (``linear``, ``moment``, ``discovery``, ``stability``) and posterior draws.

    Parameters
    ----------
    R : (M, N) outcomes (categories ``0..C``), a 1-D single question, or :class:`~bayeseval.Counts`
    k : int >= 1, the reporting budget; any size (the posterior is a latent quantity)
    w : rubric scores in [0, 1], one per category; default binary ``[0, 1]``
    R0 : optional prior outcomes for the same questions (disjoint evidence)
    eta : weight in [0, 1] of the ``R0`` counts
    prior : positive concentrations: a scalar, one per category, or an ``M x (C+1)`` matrix;
        the default 1.0 is Beta(1, 1) for binary outcomes
    thresholds : increasing average scores in [0, 1]; default ``1/k, ..., 1``.  Threshold 0 is
        always met.

    References
    ----------
    Hariri, Hinczewski, Ayday and Chaudhary (2026), "Success Has a Shape:
    TailPass@k for Repeated Sampling Evaluation", Sections 2-3 and Appendix C.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> profile = tailpass(R, k=2)
    >>> profile.mean.round(6).tolist()       # pass@2 and pass^2 posterior means
    [0.839286, 0.446429]
    >>> tuple(round(x, 6) for x in profile.linear([1.0, 0.0]))   # = pass_at_k_ci(R, 2)[:2]
    (0.839286, 0.097263)
    >>> R3 = np.array([[0, 1, 2, 2], [2, 2, 1, 2]])
    >>> p3 = tailpass(R3, k=3, w=[0, 0.5, 1], thresholds=[0.5, 1.0])
    >>> p3.mean.round(6).tolist(), p3.std.round(6).tolist()
    ([0.791667, 0.178571], [0.12555, 0.112195])
    """
    k = V.integer(k, "k", minimum=1, capped=False)
    t = _thresholds(k, thresholds)
    counts = to_counts(R, w)
    table, w = _rubric(counts, w, "tailpass")
    eta = _unit_scalar(eta, "eta")
    base = _prior(prior, table.shape)
    extra = cat.prior_table(R0, counts, w.size) if R0 is not None else None
    with np.errstate(over="ignore", invalid="ignore"):
        nu = base + table
        if extra is not None and eta:
            nu = nu + eta * extra
    if not np.all(np.isfinite(nu.sum(axis=1))):
        raise ValueError("prior: the posterior concentration totals must be finite")
    scores, inverse = _levels(w)
    return TailPassProfile(k, t, _group(nu, inverse, scores.size), scores)


def tailpass_empirical(R: Any, k: int, w: Any = None, *, thresholds: Any = None) -> np.ndarray:
    r"""Finite-bank TailPass profile: ``k`` of the observed trials drawn without replacement.

    .. math::  \hat T_j = \frac1M \sum_i \sum_{x:\ x\cdot s \ge k t_j}
               \frac{\prod_l \binom{n_{il}}{x_l}}{\binom{n_i}{k}}

    (multivariate hypergeometric; the unbiased estimate of :math:`T_j(p_i)`).  Needs
    ``1 <= k <= n_i`` for every question.  Binary outcomes: ``t = 1/k`` is pass@k (Chen et al.
    2021) and ``t = 1`` pass^k.  Returns one value per threshold (a read-only array).

    Reference: Hariri, Hinczewski, Ayday and Chaudhary (2026), "Success Has a Shape:
    TailPass@k for Repeated Sampling Evaluation".

    >>> import numpy as np
    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> tailpass_empirical(R, 2).round(12).tolist()    # [pass_at_k(R, 2), pass_hat_k(R, 2)]
    [0.95, 0.45]
    >>> R3 = np.array([[0, 1, 2, 2], [2, 2, 1, 2]])
    >>> tailpass_empirical(R3, 3, w=[0, 0.5, 1], thresholds=[0.5, 1.0]).round(6).tolist()
    [1.0, 0.125]
    """
    counts = to_counts(R, w)
    table, w = _rubric(counts, w, "tailpass_empirical")
    k = V.integer(k, "k", minimum=1, capped=False)
    counts.require_k_le_n(k, "TailPass")
    t = _thresholds(k, thresholds)
    scores, inverse = _levels(w)
    rows, freq = np.unique(_group(table, inverse, scores.size), axis=0, return_counts=True)
    grid = _Grid(k, scores)
    cuts = grid.cuts(t)
    out = np.zeros(t.size)
    for blk in _blocks(rows.shape[0], grid.size):
        pmf = _hypergeometric(grid, rows[blk])
        out += freq[blk] @ _suffix(pmf)[:, cuts]
    return _readonly(np.clip(out / counts.M, 0.0, 1.0))


# ----------------------------------------------------------------------------- the profile
class TailPassProfile:
    """Posterior TailPass profile built by :func:`tailpass` (the same surface as scorio's).

    ``mean`` and ``std`` have one entry per threshold, ``covariance`` is their joint
    ``m x m`` posterior covariance and ``question_mean`` the ``M x m`` per-question means; all
    are exact, computed on first use once per distinct posterior state, and read-only.
    ``linear``, ``moment``, ``discovery`` and ``stability`` return ``(mean, sd)``; the
    ``*_ci`` methods ``(mean, sd, lo, hi)``; ``sample`` shared posterior draws.

    >>> import numpy as np
    >>> p = tailpass(np.array([[0, 1, 1], [1, 1, 1]]), k=4)
    >>> p.k, p.question_count, p.thresholds.tolist()
    (4, 2, [0.25, 0.5, 0.75, 1.0])
    >>> p.covariance.shape, p.question_mean.shape
    ((4, 4), (2, 4))
    >>> tuple(round(x, 6) for x in p.discovery()), tuple(round(x, 6) for x in p.stability())
    ((0.957143, 0.061024), (0.357143, 0.179112))
    >>> tuple(round(x, 6) for x in p.moment(2))
    (0.575, 0.15603)
    """

    def __init__(self, k: int, thresholds: np.ndarray, parameters: np.ndarray, scores: np.ndarray):
        self._k = int(k)
        self._thresholds = _readonly(thresholds)
        self._alpha = _readonly(parameters)
        self._scores = _readonly(scores)

    @property
    def k(self) -> int:
        """The reporting budget: attempts per bank."""
        return self._k

    @property
    def thresholds(self) -> np.ndarray:
        """The reported average-score thresholds (read-only)."""
        return self._thresholds

    @property
    def question_count(self) -> int:
        """Number of independently modelled questions."""
        return self._alpha.shape[0]

    def __repr__(self) -> str:
        return f"TailPassProfile(k={self._k}, thresholds={self._thresholds!r})"

    # -- states and the grid ---------------------------------------------------------------
    @cached_property
    def _states(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct posterior rows ``(U, L)``, each question's row, and the rows' frequencies."""
        rows, inverse, freq = np.unique(self._alpha, axis=0, return_inverse=True, return_counts=True)
        return rows, inverse.ravel(), freq.astype(np.float64)

    @cached_property
    def _grid(self) -> _Grid:
        return _Grid(self._k, self._scores)

    @cached_property
    def _cuts(self) -> np.ndarray:
        return self._grid.cuts(self._thresholds)

    def _aggregate(self, means: np.ndarray, variances: np.ndarray) -> tuple[float, float]:
        freq, M = self._states[2], self.question_count
        return float(freq @ means / M), math.sqrt(max(float(freq @ variances), 0.0)) / M

    # -- the profile -------------------------------------------------------------------------
    @cached_property
    def _state_means(self) -> np.ndarray:
        rows, grid, cuts = self._states[0], self._grid, self._cuts
        out = np.empty((rows.shape[0], cuts.size))
        for blk in _blocks(rows.shape[0], grid.size + cuts.size):
            out[blk] = _suffix(_predictive(grid, rows[blk]))[:, cuts]
        return np.clip(out, 0.0, 1.0)

    @cached_property
    def question_mean(self) -> np.ndarray:
        """Exact posterior mean profile of every question, shape ``(M, thresholds)``."""
        return _readonly(self._state_means[self._states[1]])

    @cached_property
    def mean(self) -> np.ndarray:
        """Exact posterior mean of the dataset profile."""
        freq = self._states[2]
        return _readonly(np.clip(freq @ self._state_means / self.question_count, 0.0, 1.0))

    def _pair_limit(self, what: str) -> None:
        size = max(self._grid.size, self._thresholds.size)
        if size * size > MAX_COVARIANCE_PAIRS:
            raise ValueError(
                f"{what} needs {size:,}^2 state pairs, above the limit of {MAX_COVARIANCE_PAIRS:,}; "
                "use posterior draws (sample) instead"
            )

    @cached_property
    def covariance(self) -> np.ndarray:
        """Exact joint posterior covariance of the dataset profile (sum of question covariances / M^2).

        Two banks of one question share ``p``: they are ``2k`` draws of one Polya urn, and each
        threshold event enters on its less likely side (module docstring).
        """
        self._pair_limit("the exact TailPass covariance")
        rows, _, freq = self._states
        grid, cuts = self._grid, self._cuts
        G, m = grid.size, cuts.size
        acc = np.zeros((m, m))
        for blk in _blocks(rows.shape[0], 3 * G * max(G, m) + m * m):
            alpha = rows[blk]
            S = alpha.shape[0]
            pmf = _predictive(grid, alpha)  # (S, G)
            pre, suf = _prefix(pmf)[:, cuts], _suffix(pmf)[:, cuts]  # (S, m)
            upper = suf <= 0.5  # the event itself is the less likely side
            nu = np.where(upper, suf, pre)
            sign = np.where(upper, 1.0, -1.0)
            cond = _predictive(grid, np.repeat(alpha, G, axis=0), np.tile(grid.counts, (S, 1))).reshape(S, G, G)
            tail = np.where(upper[:, None, :], _suffix(cond)[:, :, cuts], _prefix(cond)[:, :, cuts])  # (S, G, m)
            del cond
            D = pmf[:, :, None] * (tail - nu[:, None, :])
            small = np.where(upper[:, :, None], _suffix(D, axis=1)[:, cuts, :], _prefix(D, axis=1)[:, cuts, :])
            acc += np.einsum("s,si,sj,sij->ij", freq[blk], sign, sign, small)
        acc = (acc + acc.T) / (2.0 * self.question_count**2)
        diag = np.diag_indices(m)
        acc[diag] = np.maximum(acc[diag], 0.0)
        return _readonly(acc)

    @cached_property
    def std(self) -> np.ndarray:
        """Exact marginal posterior standard deviations of the dataset profile."""
        return _readonly(np.sqrt(np.diag(self.covariance)))

    # -- scalar utilities ----------------------------------------------------------------------
    def _payoff_moments(self, values: np.ndarray) -> tuple[float, float]:
        """Posterior mean and sd of the dataset mean of ``E[values(X) | p_i]``, ``values`` on the sorted grid."""
        rows = self._states[0]
        L = self._scores.size
        if L == 1:
            return float(values[0]), 0.0
        if L == 2:  # Bernstein engine: p ~ Beta(a_high, a_low), payoff indexed by the high count
            zero = np.zeros(rows.shape[0], dtype=np.int64)
            payoff = np.empty(self._k + 1)
            payoff[self._grid.counts[:, 1]] = values
            mean, var, _ = moments_rows(zero, zero, rows[:, 1], rows[:, 0], payoff[:, None])
            return self._aggregate(mean[:, 0], var[:, 0])
        self._pair_limit("an exact categorical TailPass utility")
        grid = self._grid
        G = grid.size
        means, variances = np.empty(rows.shape[0]), np.empty(rows.shape[0])
        lo, hi = float(values.min()), float(values.max())
        for blk in _blocks(rows.shape[0], 2 * G * G):
            alpha = rows[blk]
            S = alpha.shape[0]
            pmf = _predictive(grid, alpha)
            mu = pmf @ values
            # centre on the payoff end nearer the mean: a payoff that is almost surely at an end
            # keeps its small variance
            ref = np.where(mu - lo <= hi - mu, lo, hi)
            u = values[None, :] - ref[:, None]
            mu_u = np.sum(pmf * u, axis=1)
            cond = _predictive(grid, np.repeat(alpha, G, axis=0), np.tile(grid.counts, (S, 1))).reshape(S, G, G)
            cu = np.einsum("sxy,sy->sx", cond, u)
            means[blk] = mu
            variances[blk] = np.sum(pmf * (u - mu_u[:, None]) * (cu - mu_u[:, None]), axis=1)
        return self._aggregate(means, np.maximum(variances, 0.0))

    def linear(self, weights: Any) -> tuple[float, float]:
        r"""Exact posterior ``(mean, sd)`` of :math:`\sum_j w_j T_j`, a convex combination of the thresholds.

        ``weights`` are non-negative, one per threshold, summing to one; the sd includes every
        cross-threshold covariance (it is the sd of the payoff ``sum_{t_j <= S} w_j``).

        >>> import numpy as np
        >>> p = tailpass(np.array([[0, 1, 1], [1, 1, 1]]), k=4)
        >>> tuple(round(x, 6) for x in p.linear([0.25, 0.25, 0.25, 0.25]))   # = moment(1)
        (0.7, 0.129099)
        """
        weights = _convex(weights, self._thresholds.size)
        cumulative = np.concatenate([[0.0], np.cumsum(weights)])
        payoff = cumulative[np.searchsorted(self._thresholds, self._grid.score, side="right")]
        return self._payoff_moments(payoff)

    def moment(self, lam: float) -> tuple[float, float]:
        r"""Exact posterior ``(mean, sd)`` of :math:`U_\lambda(p) = E[S^\lambda \mid p]`, averaged over questions.

        ``lam = 1`` is the posterior mean rubric credit (Bayes@N with the same prior); larger
        ``lam`` rewards high bank scores more.  ``lam`` = 1, 2, 3, 4 use the closed forms of the
        module docstring (any number of levels, any ``k``); other exponents sum over the bank
        count grid.  Independent of the reporting thresholds.

        >>> import numpy as np
        >>> p = tailpass(np.array([[0, 1, 2, 2], [2, 2, 1, 2]]), k=3, w=[0, 0.5, 1])
        >>> tuple(round(x, 6) for x in p.moment(1)), tuple(round(x, 6) for x in p.moment(2))
        ((0.642857, 0.097808), (0.482143, 0.116121))
        """
        lam = _positive(lam, "lam")
        if float(np.ptp(self._scores)) == 0.0:  # every level scores alike: S is that score, exactly (no rounding sd)
            return float(self._scores[0]) ** lam, 0.0
        rows = self._states[0]
        if lam == 1.0:
            mean, var, _ = cat.bayes_rows(rows, self._scores)
            return self._aggregate(mean, var)
        L = self._scores.size
        if lam in (2.0, 3.0, 4.0) and (L != 2 or self._k + 1 > MAX_COUNT_STATES):
            mean, var = _posterior_power_moment(rows, self._scores, self._k, int(lam))
            return self._aggregate(mean, var)
        return self._payoff_moments(self._grid.score**lam)

    def _endpoint(self, full_credit: bool) -> tuple[float, float]:
        hit = self._scores == 1.0 if full_credit else self._scores == 0.0
        if not hit.any():  # no level scores 1 (stability is 0) / none scores 0 (discovery is 1)
            return (0.0 if full_credit else 1.0), 0.0
        if hit.all():
            return (1.0 if full_credit else 0.0), 0.0
        rows = self._states[0]
        log_mean, var = _endpoint_moments(self._k, rows[:, hit].sum(axis=1), rows[:, ~hit].sum(axis=1))
        mean = np.exp(log_mean) if full_credit else -np.expm1(log_mean)
        return self._aggregate(mean, var)

    def discovery(self) -> tuple[float, float]:
        r"""Exact posterior ``(mean, sd)`` of :math:`1 - q_0^k`: some attempt earns positive credit.

        ``q_0`` is the probability of a score-0 category; for categorical rubrics this can exceed
        the first grid threshold (credit below ``1/k`` counts).  The ``lam -> 0+`` limit of ``moment``.
        """
        return self._endpoint(False)

    def stability(self) -> tuple[float, float]:
        r"""Exact posterior ``(mean, sd)`` of :math:`q_1^k`: every attempt earns full credit 1."""
        return self._endpoint(True)

    # -- reuse, draws and intervals -----------------------------------------------------------------
    def at_k(self, k: int, *, thresholds: Any = None) -> "TailPassProfile":
        """The same posterior at another reporting budget (and thresholds, default ``1/k, ..., 1``).

        >>> import numpy as np
        >>> p = tailpass(np.array([[0, 1, 1], [1, 1, 1]]), k=4)
        >>> p.at_k(1).mean.round(6).tolist()      # Bayes@N for k = 1
        [0.7]
        """
        k = V.integer(k, "k", minimum=1, capped=False)
        return TailPassProfile(k, _thresholds(k, thresholds), self._alpha, self._scores)

    def sample(self, n_draws: int = 4000, *, rng: Any = None) -> "TailPassDraws":
        """Posterior draws of every question's level probabilities, shared by all draw utilities.

        ``n_draws >= 2``; ``rng`` is a numpy Generator, a seed or None.  Draws are made once per
        distinct posterior state (one Dirichlet call for all its questions).
        """
        n_draws = V.integer(n_draws, "n_draws", minimum=2)
        gen = np.random.default_rng(rng)
        rows, inverse, _ = self._states
        M, L = self._alpha.shape
        p = np.empty((n_draws, M, L))
        if L == 1:
            p[...] = 1.0
        else:
            order = np.argsort(inverse, kind="stable")
            bounds = np.searchsorted(inverse[order], np.arange(rows.shape[0] + 1))
            for u in range(rows.shape[0]):
                members = order[bounds[u]: bounds[u + 1]]
                p[:, members, :] = gen.dirichlet(rows[u], size=(n_draws, members.size))
        p.setflags(write=False)
        return TailPassDraws(self, p)

    def ci(self, confidence: float = 0.95, *, method: str = "mc", n_draws: int = 4000, rng: Any = None):
        """Pointwise ``(mean, sd, lo, hi)`` arrays, one entry per threshold.

        ``method="mc"``: shared posterior draws and equal-tailed quantiles; ``"normal"``: the exact
        moments and ``mean -+ z sd`` clipped to [0, 1].  Not a simultaneous band.
        """
        z = z_value(confidence)
        if method == "mc":
            return self.sample(n_draws, rng=rng).summary(confidence=confidence)
        if method != "normal":
            raise ValueError(f"method must be 'mc' or 'normal', got {method!r}")
        mean, std = self.mean, self.std
        return mean, std, np.clip(mean - z * std, 0.0, 1.0), np.clip(mean + z * std, 0.0, 1.0)

    def _scalar_ci(self, exact: Callable[[], tuple[float, float]], draws: Callable[["TailPassDraws"], np.ndarray],
                   confidence: float, method: str, n_draws: int, rng: Any):
        z_value(confidence)
        if method == "normal":
            mu, sigma = exact()
            lo, hi = normal_interval(mu, sigma, confidence, (0.0, 1.0))
            return mu, sigma, lo, hi
        if method != "mc":
            raise ValueError(f"method must be 'mc' or 'normal', got {method!r}")
        sample = self.sample(n_draws, rng=rng)
        return sample.summary(draws(sample), confidence=confidence)

    def linear_ci(self, weights: Any, confidence: float = 0.95, *, method: str = "mc", n_draws: int = 4000,
                  rng: Any = None):
        """``(mean, sd, lo, hi)`` of ``linear(weights)``; ``method`` as in :meth:`ci`."""
        weights = _convex(weights, self._thresholds.size)
        return self._scalar_ci(lambda: self.linear(weights), lambda d: d.linear(weights),
                               confidence, method, n_draws, rng)

    def moment_ci(self, lam: float, confidence: float = 0.95, *, method: str = "mc", n_draws: int = 4000,
                  rng: Any = None):
        """``(mean, sd, lo, hi)`` of ``moment(lam)``; ``method`` as in :meth:`ci`."""
        lam = _positive(lam, "lam")
        return self._scalar_ci(lambda: self.moment(lam), lambda d: d.moment(lam),
                               confidence, method, n_draws, rng)


# ----------------------------------------------------------------------------- posterior draws
class TailPassDraws:
    """Shared posterior draws from :meth:`TailPassProfile.sample`.

    Holds every question's latent level probabilities per draw (draws x questions x levels).
    Each utility returns one value per draw (the dataset value under that draw); ``summary``
    gives the Monte Carlo ``(mean, sd, lo, hi)``.  Draws describe latent performance
    ``T(p)``, not simulated banks.

    >>> import numpy as np
    >>> d = tailpass(np.array([[0, 1, 1], [1, 1, 1]]), k=4).sample(2000, rng=1)
    >>> d.profile.shape, d.moment(1).shape
    ((2000, 4), (2000,))
    >>> bool(abs(d.moment(1).mean() - 0.7) < 0.01)
    True
    """

    def __init__(self, source: TailPassProfile, probabilities: np.ndarray):
        self._source = source
        self._probabilities = probabilities

    def __repr__(self) -> str:
        n, M, _ = self._probabilities.shape
        return f"TailPassDraws(draws={n}, questions={M}, k={self._source.k})"

    @property
    def _n(self) -> int:
        return self._probabilities.shape[0]

    def _per_question(self, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Per draw, the sum over questions of ``fn(pmf)``; ``fn`` maps bank-count pmfs ``(rows, G)`` to ``(rows, ...)``."""
        src = self._source
        grid, cuts = src._grid, src._cuts
        n, M, L = self._probabilities.shape
        acc = None
        rows = max(1, _BUDGET // (grid.size + cuts.size))
        d_step, q_step = (max(1, rows // M), M) if M <= rows else (1, rows)
        for d0 in range(0, n, d_step):
            d1 = min(n, d0 + d_step)
            for q0 in range(0, M, q_step):
                q1 = min(M, q0 + q_step)
                p = self._probabilities[d0:d1, q0:q1].reshape(-1, L)
                values = fn(_multinomial(grid, p))
                values = values.reshape((d1 - d0, q1 - q0) + values.shape[1:]).sum(axis=1)
                if acc is None:
                    acc = np.zeros((n,) + values.shape[1:])
                acc[d0:d1] += values
        return acc

    def _tails(self, pmf: np.ndarray) -> np.ndarray:
        return _suffix(pmf)[:, self._source._cuts]

    @cached_property
    def profile(self) -> np.ndarray:
        """Dataset profile per draw, shape ``(draws, thresholds)``."""
        return _readonly(self._per_question(self._tails) / self._source.question_count)

    def linear(self, weights: Any) -> np.ndarray:
        """``profile @ weights`` for convex threshold weights."""
        return self.profile @ _convex(weights, self._source.thresholds.size)

    def moment(self, lam: float) -> np.ndarray:
        """Draws of the moment utility ``E[S^lam | p]`` averaged over questions (grid-free for lam = 1..4)."""
        lam = _positive(lam, "lam")
        src = self._source
        if lam in (1.0, 2.0, 3.0, 4.0):
            m = {r: self._probabilities @ src._scores**r for r in range(1, int(lam) + 1)}
            return np.asarray(_latent_power_moment(m, src.k, int(lam))).mean(axis=1)
        payoff = src._grid.score**lam
        return self._per_question(lambda pmf: pmf @ payoff) / src.question_count

    def _apply(self, transform: Callable[[np.ndarray], np.ndarray], aggregation: str = "question") -> np.ndarray:
        if aggregation == "profile":
            return transform(self.profile)
        if aggregation != "question":
            raise ValueError(f"aggregation must be 'question' or 'profile', got {aggregation!r}")
        return self._per_question(lambda pmf: transform(self._tails(pmf))) / self._source.question_count

    def _weights(self, weights: Any) -> np.ndarray:
        size = self._source.thresholds.size
        return _convex(np.full(size, 1.0 / size) if weights is None else weights, size)

    def power_mean(self, q: float, weights: Any = None, *, aggregation: str = "question") -> np.ndarray:
        r"""Weighted power mean :math:`(\sum_j w_j T_j^q)^{1/q}` per draw (``q > 0``; default uniform weights).

        ``aggregation="question"`` applies it to each question's profile and averages questions;
        ``"profile"`` applies it to the dataset profile.  They differ for ``q != 1``.
        """
        q = _positive(q, "q")
        weights = self._weights(weights)

        def transform(values: np.ndarray) -> np.ndarray:
            if q == 1.0:
                return values @ weights
            active = weights > 0
            x, wa = values[:, active], weights[active]
            scale = x.max(axis=1)
            safe = np.where(scale > 0, scale, 1.0)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                logs = q * np.log(x / safe[:, None])  # <= 0; the largest term is 0
            # log sum_j w_j x_j^q: log1p of the small deviation from 1, else logsumexp
                delta = np.expm1(logs) @ wa
                log_mean = logsumexp(logs + np.log(wa), axis=1)
                near = np.abs(delta) < 0.25
                log_mean[near] = np.log1p(delta[near])
                return np.where(scale > 0, scale * np.exp(log_mean / q), 0.0)

        return self._apply(transform, aggregation)

    def qrs(self, weights: Any = None, *, aggregation: str = "question") -> np.ndarray:
        """Quadratic (RMS) spectrum: ``power_mean(2, weights)``."""
        return self.power_mean(2.0, weights, aggregation=aggregation)

    def rollout(self, m: int, weights: Any = None) -> np.ndarray:
        r"""``m``-rollout utility :math:`\sum_j w_j T_j^m` per question, averaged (``m >= 2`` integer)."""
        m = V.integer(m, "m", minimum=2)
        weights = self._weights(weights)
        return self._apply(lambda values: values**m @ weights)

    def harmonic(self, alpha: float = 0.5) -> np.ndarray:
        r"""Per question :math:`1 / (\alpha / D + (1-\alpha) / U)` with discovery ``D = 1 - q_0^k`` and
        stability ``U = q_1^k`` (0 if either is 0), averaged over questions; ``alpha`` in [0, 1]."""
        alpha = _unit_scalar(alpha, "alpha")
        src = self._source
        p = self._probabilities
        q0 = np.clip(p[..., src._scores == 0.0].sum(axis=-1), 0.0, 1.0)
        q1 = np.clip(p[..., src._scores == 1.0].sum(axis=-1), 0.0, 1.0)
        with np.errstate(divide="ignore"):
            D = -np.expm1(src.k * np.log(q0))
        U = q1**src.k
        if alpha == 1.0:
            values = D
        elif alpha == 0.0:
            values = U
        else:
            ok = (D > 0) & (U > 0)
            with np.errstate(divide="ignore", over="ignore"):
                values = np.where(ok, 1.0 / (alpha / np.where(ok, D, 1.0) + (1 - alpha) / np.where(ok, U, 1.0)), 0.0)
        return values.sum(axis=1) / src.question_count

    def discovery(self) -> np.ndarray:
        """Draws of the probability that some attempt earns positive credit."""
        return self.harmonic(1.0)

    def stability(self) -> np.ndarray:
        """Draws of the probability that every attempt earns full credit."""
        return self.harmonic(0.0)

    def shortfall(self, target: Any, weights: Any = None, *, epsilon: float = 0.01) -> np.ndarray:
        """Per question ``max_j g_j + epsilon sum_j g_j``, ``g_j = weights_j max(target_j - T_j, 0)``, averaged.

        ``target`` is a non-increasing [0, 1] profile; ``weights`` positive (default ones, need not
        sum to one); lower is better.
        """
        size = self._source.thresholds.size
        target = V.vector(target, "target")
        if target.shape != (size,) or np.any((target < 0) | (target > 1)) or np.any(np.diff(target) > 0):
            raise ValueError(f"target must be a non-increasing [0, 1] vector of length {size} (one per threshold)")
        weights = V.vector(np.ones(size) if weights is None else weights, "weights")
        if weights.shape != (size,) or np.any(weights <= 0):
            raise ValueError(f"weights must be positive, one per threshold ({size})")
        epsilon = _positive(epsilon, "epsilon")

        def transform(values: np.ndarray) -> np.ndarray:
            gaps = np.maximum(target - values, 0.0) * weights
            return gaps.max(axis=1) + epsilon * gaps.sum(axis=1)

        return self._apply(transform)

    def at_k(self, k: int, *, thresholds: Any = None) -> "TailPassDraws":
        """These same latent draws at another reporting budget."""
        return TailPassDraws(self._source.at_k(k, thresholds=thresholds), self._probabilities)

    def summary(self, values: Any = None, *, confidence: float = 0.95):
        """Monte Carlo ``(mean, sd, lo, hi)`` along the draw axis (equal-tailed, coordinatewise).

        ``values`` are draws of some utility of this draw set (differences of two are fine), or
        None for the profile; 1-D values give floats, 2-D arrays.
        """
        V.confidence(confidence)
        samples = self.profile if values is None else np.asarray(values, dtype=np.float64)
        if samples.ndim not in (1, 2) or samples.shape[0] != self._n:
            raise ValueError(f"values must have this draw set's {self._n} draws on the first axis")
        if not np.all(np.isfinite(samples)):
            raise ValueError("values must be finite")
        lo, hi = np.quantile(samples, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
        out = (samples.mean(axis=0), samples.std(axis=0, ddof=1), lo, hi)
        if samples.ndim == 1:
            return tuple(float(x) for x in out)
        return out
