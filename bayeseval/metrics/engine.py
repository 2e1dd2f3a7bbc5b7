r"""The Bernstein / Beta-binomial engine behind every "@k" metric.

A per-question metric is the expected payoff ``c[X]`` of ``X`` correct answers
among ``k`` i.i.d. samples with success probability ``p``:

.. math::  g(p) = \sum_{j=0}^{k} c_j \binom{k}{j} p^j (1-p)^{k-j}

(a Bernstein polynomial with coefficients ``c``).  For a question with ``s``
correct answers out of ``n`` observed trials:

* the unique unbiased, minimum-variance estimate of ``g(p)`` is
  :math:`\sum_j c_j\,\mathrm{Hypergeom}(j;\,n, s, k)` (Chen et al.'s pass@k
  estimator is the case ``c = (0, 1, ..., 1)``), which needs ``k <= n``;
* with ``p ~ Beta(a, b)``, ``a = alpha0 + s``, ``b = beta0 + n - s``:
  :math:`E[g] = \sum_j c_j\,\mathrm{BetaBin}(j;\,k, a, b)` and
  :math:`E[g h] = \sum_m d_m\,\mathrm{BetaBin}(m;\,k+l, a, b)` where
  :math:`d_m = \sum_{i+j=m} c_i e_j \binom{k}{i}\binom{l}{j}/\binom{k+l}{m}`
  are the Bernstein coefficients of the product ``g h`` (degree ``k + l``).
  ``d`` depends on the metric only and is computed once (and cached).

Everything depends on a question only through ``(n, s)``, so each quantity is
evaluated once per *distinct* pair and gathered.  Weights are built in log
space from tables of ``gammaln`` and normalised per row, so ``k`` and ``n`` in
the thousands stay finite.  Variances and covariances are computed around the
payoff endpoint (``c_0`` or ``c_k``) nearest to the posterior mean, which
avoids the cancellation of ``E[g^2] - E[g]^2`` when ``g`` is pinned near an
end (pass@k with ``p`` near 1, say).

Reference: Hariri et al., "Don't Pass@k", arXiv:2510.04265; Chen et al.,
arXiv:2107.03374 (unbiased pass@k); Lorentz, *Bernstein Polynomials* (1953)
for the product formula.

Example
-------
>>> import numpy as np
>>> from bayeseval.counts import to_counts
>>> R = to_counts(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]))
>>> pass2 = Bernstein([0, 1, 1], name="pass@2")
>>> round(pass2.point(R), 6)
0.95
>>> mu, var = pass2.posterior(R)
>>> round(mu, 6), round(var ** 0.5, 6)
(0.839286, 0.097263)
"""

from __future__ import annotations

import threading

import numpy as np
from scipy.special import gammaln

from .. import validate as V
from ..counts import Counts

__all__ = [
    "Bernstein",
    "product_coefficients",
    "hypergeom_expect",
    "betabinom_expect",
]

_CHUNK = 2_000_000  # entries of one weight block
_CACHE_LIMIT = 4_000_000  # weight matrices up to this size are kept on the Counts
_lock = threading.Lock()
_logfact = np.zeros(1)


def log_factorial(n_max: int) -> np.ndarray:
    """``log(x!)`` for ``x = 0..n_max`` (a shared, growing table)."""
    global _logfact
    if _logfact.size <= n_max:
        with _lock:
            if _logfact.size <= n_max:
                size = max(n_max + 1, 2 * _logfact.size)
                table = gammaln(np.arange(size, dtype=np.float64) + 1.0)
                table.setflags(write=False)
                _logfact = table
    return _logfact


def _lgamma_table(cache: dict, offset: float, length: int) -> np.ndarray:
    key = ("lgamma", offset)
    table = cache.get(key)
    if table is None or table.size < length:
        table = gammaln(offset + np.arange(max(length, 16), dtype=np.float64))
        table.setflags(write=False)
        cache[key] = table
    return table


def _normalise_rows(logw: np.ndarray) -> np.ndarray:
    logw -= logw.max(axis=1, keepdims=True)
    np.exp(logw, out=logw)
    logw /= logw.sum(axis=1, keepdims=True)
    return logw


def _blocks(S: int, width: int):
    step = max(1, _CHUNK // max(width, 1))
    for start in range(0, S, step):
        yield slice(start, min(S, start + step))


def _betabinom_block(n, s, K, alpha0, beta0, cache) -> np.ndarray:
    """Rows ``BetaBin(j; K, alpha0 + s, beta0 + n - s)``, ``j = 0..K``."""
    f = n - s
    Ta = _lgamma_table(cache, alpha0, int(s.max()) + K + 1)
    Tb = _lgamma_table(cache, beta0, int(f.max()) + K + 1)
    G = log_factorial(K)
    j = np.arange(K + 1)
    logc = G[K] - G[j] - G[K - j]
    # per-row constants (B(a, b), B(a+b)) cancel in the row normalisation
    logw = logc[None, :] + Ta[s[:, None] + j[None, :]] + Tb[f[:, None] + (K - j)[None, :]]
    return _normalise_rows(logw)


def _hypergeom_block(n, s, k) -> np.ndarray:
    """Rows ``Hypergeom(j; n, s, k)``, ``j = 0..k`` (requires ``k <= n``)."""
    f = n - s
    G = log_factorial(int(n.max()))
    j = np.arange(k + 1)[None, :]
    sj = s[:, None] - j
    fj = f[:, None] - (k - j)
    valid = (sj >= 0) & (fj >= 0)
    logw = np.where(
        valid,
        G[s][:, None] - G[j] - G[np.maximum(sj, 0)] + G[f][:, None] - G[k - j] - G[np.maximum(fj, 0)],
        -np.inf,
    )
    return _normalise_rows(logw)


def _expect(counts: Counts, key: tuple, width: int, build, D: np.ndarray) -> np.ndarray:
    """``W @ D`` for the weight matrix ``W`` (states x width), cached when small."""
    n_u, s_u, _, _ = counts.binary_states()
    S = n_u.size
    cache = counts.cache()
    W = cache.get(key)
    if W is not None:
        return W @ D
    if S * width <= _CACHE_LIMIT:
        W = build(n_u, s_u)
        W.setflags(write=False)
        cache[key] = W
        return W @ D
    out = np.empty((S, D.shape[1]))
    for blk in _blocks(S, width):
        out[blk] = build(n_u[blk], s_u[blk]) @ D
    return out


def betabinom_expect(counts: Counts, K: int, alpha0: float, beta0: float, D: np.ndarray) -> np.ndarray:
    """``E[sum_j D[j] * 1{X = j}]`` for ``X ~ BetaBin(K, a, b)`` per distinct state."""
    cache = counts.cache()
    return _expect(
        counts, ("bb", K, alpha0, beta0), K + 1,
        lambda n, s: _betabinom_block(n, s, K, alpha0, beta0, cache), D,
    )


def hypergeom_expect(counts: Counts, k: int, D: np.ndarray) -> np.ndarray:
    """``E[sum_j D[j] * 1{X = j}]`` for ``X ~ Hypergeom(n, s, k)`` per distinct state."""
    return _expect(counts, ("hg", k), k + 1, lambda n, s: _hypergeom_block(n, s, k), D)


_products: "dict[tuple[bytes, bytes], np.ndarray]" = {}
_PRODUCT_CACHE_MAX = 512
_SPARSE = 16  # a factor with at most this many non-zero payoffs takes the sparse path


class _Hyper:
    """``log h(i; m) = log[C(k1, i) C(k2, m - i) / C(k1 + k2, m)]`` from three log-binomial rows."""

    def __init__(self, k1: int, k2: int):
        G = log_factorial(k1 + k2)
        self.k1, self.k2, self.K = k1, k2, k1 + k2
        self.l1 = G[k1] - G[: k1 + 1] - G[k1::-1]
        self.l2 = G[k2] - G[: k2 + 1] - G[k2::-1]
        self.lK = G[self.K] - G[: self.K + 1] - G[self.K :: -1]

    def __call__(self, m: np.ndarray, i: np.ndarray) -> np.ndarray:
        return np.exp(self.l1[i] + self.l2[m - i] - self.lK[m])

    def sparse(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Product when ``x`` or ``y`` has few non-zero payoffs: sum over that support only."""
        d = np.zeros(self.K + 1)
        nx, ny = np.flatnonzero(x), np.flatnonzero(y)
        if nx.size <= ny.size:
            for i in nx.tolist():
                m = np.arange(i, i + self.k2 + 1)
                d[m] += x[i] * y[m - i] * self(m, np.full(m.size, i))
        else:
            for j in ny.tolist():
                m = np.arange(j, j + self.k1 + 1)
                d[m] += y[j] * x[m - j] * self(m, m - j)
        return d


def _split(x: np.ndarray):
    """``x = a + r`` with the constant ``a`` (0 or an endpoint) that leaves ``r`` sparsest."""
    best = None
    for a in (0.0, x[0], x[-1]):
        r = x - a
        nnz = int(np.count_nonzero(r))
        if best is None or nnz < best[2]:
            best = (a, r, nnz)
    return best


def _compute_products(k1: int, k2: int, pairs: list) -> list:
    """Bernstein products of several ``(x, y)`` pairs of degrees ``(k1, k2)`` in one sweep.

    ``d[m] = sum_i x_i y_{m-i} h(i; m)`` with ``h`` the hypergeometric weight
    ``C(k1,i) C(k2,m-i) / C(k1+k2,m)``.  ``h(., m)`` is concentrated within a
    few ``sqrt(K)`` of ``m k1 / K``; beyond ``5 sqrt(K)`` its total mass is below
    ``2 exp(-50)`` (Hoeffding's bound for sampling without replacement), so only
    that band is evaluated -- the weights computed once serve every pair.  A
    factor that is a constant plus a few non-zero payoffs (pass@k, pass^k and
    their shifts) is summed over that support only, in O(K) per payoff.
    """
    K = k1 + k2
    hyp = _Hyper(k1, k2)
    out = [None] * len(pairs)
    dense = []
    for p, (x, y) in enumerate(pairs):
        if min(np.count_nonzero(x), np.count_nonzero(y)) <= _SPARSE:
            out[p] = hyp.sparse(x, y)
            continue
        ax, rx, nx = _split(x)
        ay, ry, ny = _split(y)
        if max(nx, ny) <= _SPARSE:
            # (ax + rx)(ay + ry) = ax ay + ax * lift(ry) + ay * lift(rx) + rx ry
            d = ax * ay + hyp.sparse(rx, ry)
            if ax:
                d += ax * hyp.sparse(np.ones(k1 + 1), ry)
            if ay:
                d += ay * hyp.sparse(rx, np.ones(k2 + 1))
            out[p] = d
            continue
        dense.append(p)
    if dense:
        hw = min(max(k1, k2), int(np.ceil(5.0 * np.sqrt(K))) + 2)
        offsets = np.arange(-hw, hw + 1)
        acc = np.zeros((len(dense), K + 1))
        step = max(1, _CHUNK // offsets.size)
        m_all = np.arange(K + 1)
        for start in range(0, K + 1, step):
            m = m_all[start : start + step][:, None]
            i = np.rint(m * (k1 / K)).astype(np.int64) + offsets[None, :]
            valid = (i >= np.maximum(0, m - k2)) & (i <= np.minimum(k1, m))
            ii = np.where(valid, i, np.minimum(k1, m))
            h = np.where(valid, hyp(m, ii), 0.0)
            jj = m - ii
            for row, p in enumerate(dense):
                x, y = pairs[p]
                acc[row, start : start + m.shape[0]] = (h * x[ii] * y[jj]).sum(axis=1)
        for row, p in enumerate(dense):
            out[p] = acc[row]
    return out


def product_many(pairs) -> list:
    """Product coefficients of many ``(c1, c2)`` pairs, cached, computed together per degree pair."""
    prepared = [
        (np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64)) for a, b in pairs
    ]
    keys = [(a.tobytes(), b.tobytes()) for a, b in prepared]
    todo: dict = {}
    for key, (a, b) in zip(keys, prepared):
        if key not in _products:
            todo.setdefault((a.size - 1, b.size - 1), {})[key] = (a, b)
    for (k1, k2), group in todo.items():
        results = _compute_products(k1, k2, list(group.values()))
        with _lock:
            if len(_products) + len(group) > _PRODUCT_CACHE_MAX:
                _products.clear()
            for key, d in zip(group, results):
                d.setflags(write=False)
                _products[key] = d
    return [_products[key] for key in keys]


def product_coefficients(c1, c2) -> np.ndarray:
    """Bernstein coefficients (degree ``k1 + k2``) of the product of two Bernstein polynomials.

    >>> product_coefficients([0, 1], [0, 1]).tolist()   # p * p = p^2
    [0.0, 0.0, 1.0]
    """
    return product_many([(c1, c2)])[0]


class Bernstein:
    """A per-question metric in Bernstein form, ``g(p) = sum_j c_j C(k,j) p^j (1-p)^(k-j)``.

    Every named "@k" metric is one of these; a user-supplied coefficient
    vector ``c[0..k]`` is a first-class metric with the same point estimate,
    posterior moments, intervals and comparisons.

    Parameters
    ----------
    c : array-like, length k+1 (k >= 1)
        Payoff for exactly ``j`` correct answers among ``k`` samples.
    name : str
        Label used in tables and error messages.
    """

    __slots__ = ("c", "k", "name")

    def __init__(self, c, name: str = "custom"):
        self.c = V.vector(c, "c", min_length=2)
        self.k = self.c.size - 1
        self.name = name

    def __repr__(self) -> str:
        return f"Bernstein({self.name}, k={self.k})"

    @property
    def range(self) -> tuple[float, float]:
        """``g(p)`` is a convex combination of the ``c_j``: it lies in ``[min c, max c]``."""
        return float(self.c.min()), float(self.c.max())

    # -- finite-sample (unbiased) estimate --------------------------------------
    def point_states(self, counts: Counts) -> np.ndarray:
        """Unbiased estimate of ``g(p)`` per distinct ``(n, s)`` state."""
        counts.require_k_le_n(self.k, self.name)
        return _endpoint_expect(lambda D: hypergeom_expect(counts, self.k, D), self.c)

    def point(self, counts: Counts) -> float:
        """Dataset mean of the per-question unbiased estimates."""
        _, _, freq, _ = counts.binary_states()
        return float(freq @ self.point_states(counts) / counts.M)

    # -- Beta posterior ------------------------------------------------------------
    def moments_states(self, counts: Counts, alpha0: float = 1.0, beta0: float = 1.0):
        """Posterior mean and variance of ``g(p)`` per distinct state."""
        mean, _, var, _, _ = cross_moments_states(counts, self, self, alpha0, beta0)
        return mean, var

    def posterior(self, counts: Counts, alpha0: float = 1.0, beta0: float = 1.0) -> tuple[float, float]:
        """Posterior mean and variance of the dataset average of ``g(p_i)``.

        Questions are independent a posteriori, so the variance is
        ``sum_i Var[g(p_i)] / M^2``.
        """
        mean, var = self.moments_states(counts, alpha0, beta0)
        _, _, freq, _ = counts.binary_states()
        M = counts.M
        return float(freq @ mean / M), float(freq @ var / (M * M))


def _endpoint_expect(expect, c: np.ndarray) -> np.ndarray:
    """``E[c_X]`` per state, summed around the endpoint payoff nearest the result.

    ``c_0 + E[c_X - c_0]`` and ``c_k + E[c_X - c_k]`` are equal in exact
    arithmetic; the one with the smaller correction is exact near that end
    (pass@k = 1 - P(no success) comes out as exactly 0.9, not 0.8999999999999999).
    """
    ends = np.array([c[0], c[-1]])
    E = expect(np.column_stack([c - ends[0], c - ends[1]]))
    pick = (np.abs(E[:, 1]) < np.abs(E[:, 0])).astype(np.intp)
    return ends[pick] + E[np.arange(E.shape[0]), pick]


def _shift_choice(c: np.ndarray, mean: np.ndarray):
    ends = np.array([c[0], c[-1]])
    pick = (np.abs(mean - ends[1]) < np.abs(mean - ends[0])).astype(np.intp)
    return ends, pick


def cross_moments_states(counts: Counts, g: Bernstein, h: Bernstein, alpha0: float, beta0: float):
    """Per-state posterior ``E[g], E[h], Var[g], Var[h], Cov[g, h]``.

    Second moments are taken around the endpoint payoff nearest to each
    state's mean (``Cov = E[(g-s)(h-t)] - (E g - s)(E h - t)``), which is
    algebraically exact and keeps tiny variances accurate.
    """
    same = g is h or (g.k == h.k and np.array_equal(g.c, h.c))
    mean_g = _endpoint_expect(lambda D: betabinom_expect(counts, g.k, alpha0, beta0, D), g.c)
    mean_h = mean_g if same else _endpoint_expect(
        lambda D: betabinom_expect(counts, h.k, alpha0, beta0, D), h.c
    )
    eg, pg = _shift_choice(g.c, mean_g)
    eh, ph = _shift_choice(h.c, mean_h)
    wanted = [(g, eg, pg, g, eg, pg)] if same else [
        (g, eg, pg, g, eg, pg), (h, eh, ph, h, eh, ph), (g, eg, pg, h, eh, ph)
    ]
    product_many(
        [
            (x.c - ex[c // 2], y.c - ey[c % 2])
            for x, ex, px, y, ey, py in wanted
            for c in np.unique(2 * px + py).tolist()
        ]
    )

    def second(x: Bernstein, ex, px, y: Bernstein, ey, py):
        """Per state E[(x - ex[px]) (y - ey[py])] with the state's chosen shifts."""
        code = 2 * px + py
        present = np.unique(code)
        D = np.column_stack(
            [product_coefficients(x.c - ex[c // 2], y.c - ey[c % 2]) for c in present.tolist()]
        )
        E = betabinom_expect(counts, x.k + y.k, alpha0, beta0, D)
        lookup = np.zeros(4, dtype=np.intp)
        lookup[present] = np.arange(present.size)
        return E[np.arange(E.shape[0]), lookup[code]]

    var_g = second(g, eg, pg, g, eg, pg) - (mean_g - eg[pg]) ** 2
    np.maximum(var_g, 0.0, out=var_g)
    if same:
        return mean_g, mean_g, var_g, var_g, var_g
    var_h = second(h, eh, ph, h, eh, ph) - (mean_h - eh[ph]) ** 2
    np.maximum(var_h, 0.0, out=var_h)
    cov = second(g, eg, pg, h, eh, ph) - (mean_g - eg[pg]) * (mean_h - eh[ph])
    bound = np.sqrt(var_g * var_h)
    cov = np.clip(cov, -bound, bound)
    return mean_g, mean_h, var_g, var_h, cov
