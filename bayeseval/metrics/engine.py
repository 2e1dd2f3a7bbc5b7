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
    """Rows ``BetaBin(j; K, a, b)``, ``j = 0..K``, ``a = alpha0 + s``, ``b = beta0 + n - s``.

    Built from the ratio of consecutive terms,
    ``w[j+1] / w[j] = (K-j)/(j+1) * (a+j)/(b+K-1-j)``, summed in log space and
    normalised per row.  The second factor is taken as
    ``log1p(((a - b) + 2j + 1 - K) / (b + K - 1 - j))`` with ``a - b`` formed from
    the integer counts, so huge pseudo-counts (priors of 1e15, say) keep full
    precision where differences of ``gammaln`` values would not.
    """
    s = s.astype(np.float64)
    f = n.astype(np.float64) - s
    j = np.arange(K, dtype=np.float64)
    a_minus_b = (alpha0 - beta0) + (s - f)
    den = (beta0 + f)[:, None] + (K - 1 - j)[None, :]
    with np.errstate(divide="ignore"):  # a + j that rounds to 0 (a prior of 1e-100, j = 0): a weight of exactly 0
        inc = np.log1p((a_minus_b[:, None] + (2.0 * j + 1.0 - K)[None, :]) / den)
    inc += np.log((K - j) / (j + 1.0))[None, :]
    logw = np.empty((s.size, K + 1))
    logw[:, 0] = 0.0
    np.cumsum(inc, axis=1, out=logw[:, 1:])
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


_tables: dict = {}  # (kind, N, degree, prior) -> weights for every count s = 0..N


def _expect(counts: Counts, key: tuple, width: int, build, D: np.ndarray) -> np.ndarray:
    """``W @ D`` for the weight matrix ``W`` (states x width).

    Rectangular data (every question has ``N`` trials) only ever meets the
    counts ``s = 0..N``, so the weights of all ``N + 1`` of them are built
    once per ``(N, degree, prior)`` and kept process-wide; each matrix then
    just gathers its states' rows.  Ragged data caches on the ``Counts``.
    """
    n_u, s_u, _, _ = counts.binary_states()
    S = n_u.size
    if not counts.ragged and (counts.N + 1) * width <= _CACHE_LIMIT:
        tkey = key + (counts.N,)
        table = _tables.get(tkey)
        if table is None:
            N = counts.N
            table = build(np.full(N + 1, N, dtype=np.int64), np.arange(N + 1, dtype=np.int64))
            table.setflags(write=False)
            with _lock:
                if len(_tables) >= 256:
                    _tables.clear()
                _tables[tkey] = table
        return table[s_u] @ D
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
    found: dict = {}
    todo: dict = {}
    for key, (a, b) in zip(keys, prepared):
        hit = _products.get(key)
        if hit is not None:
            found[key] = hit
        else:
            todo.setdefault((a.size - 1, b.size - 1), {})[key] = (a, b)
    for (k1, k2), group in todo.items():
        results = _compute_products(k1, k2, list(group.values()))
        with _lock:
            if len(_products) + len(group) > _PRODUCT_CACHE_MAX:
                _products.clear()  # results already in hand live on in `found`
            for key, d in zip(group, results):
                d.setflags(write=False)
                _products[key] = d
                found[key] = d
    return [found[key] for key in keys]


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
        self.c = V.bounded(V.vector(c, "c", min_length=2), "c")
        V.integer(self.c.size - 1, "k")  # the payoff's degree is its k, under the same cap
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
        return batch_points(counts, self.c[:, None])[:, 0]

    def point(self, counts: Counts) -> float:
        """Dataset mean of the per-question unbiased estimates."""
        _, _, freq, _ = counts.binary_states()
        return float(freq @ self.point_states(counts) / counts.M)

    # -- Beta posterior ------------------------------------------------------------
    def moments_states(self, counts: Counts, alpha0: float = 1.0, beta0: float = 1.0):
        """Posterior mean and variance of ``g(p)`` per distinct state."""
        mean, var, _ = batch_moments(counts, self.c[:, None], (), alpha0, beta0)
        return mean[:, 0], var[:, 0]

    def posterior(self, counts: Counts, alpha0: float = 1.0, beta0: float = 1.0) -> tuple[float, float]:
        """Posterior mean and variance of the dataset average of ``g(p_i)``.

        Questions are independent a posteriori, so the variance is
        ``sum_i Var[g(p_i)] / M^2``.
        """
        mean, var = self.moments_states(counts, alpha0, beta0)
        _, _, freq, _ = counts.binary_states()
        M = counts.M
        return float(freq @ mean / M), float(freq @ var / (M * M))


def _endpoint_expect(expect, C: np.ndarray, *, parts: bool = False):
    """``E[c_X]`` per state and metric (columns of ``C``), summed around the nearer endpoint.

    ``c_0 + E[c_X - c_0]`` and ``c_k + E[c_X - c_k]`` are equal in exact
    arithmetic; the one with the smaller correction is exact near that end
    (pass@k = 1 - P(no success) comes out as exactly 0.9, not 0.8999999999999999).
    With ``parts=True`` also return the chosen endpoint index and the
    correction ``E[c_X] - c_end`` itself, which keeps digits that ``E[c_X]``
    cannot (1 - 2e-21 is 1.0 in floating point; the correction -2e-21 is not 0).
    """
    m = C.shape[1]
    ends = np.stack([C[0], C[-1]])  # (2, m)
    E = expect(np.concatenate([C - ends[0], C - ends[1]], axis=1))
    low, high = E[:, :m], E[:, m:]
    pick = np.abs(high) < np.abs(low)
    out = np.where(pick, ends[1] + high, ends[0] + low)
    # a convex combination of the payoffs: keep round-off from leaving [min c, max c]
    out = np.clip(out, C.min(axis=0), C.max(axis=0))
    if parts:
        return out, pick.astype(np.intp), np.where(pick, high, low)
    return out


def score_table(C: np.ndarray, n: int) -> np.ndarray:
    """``(n + 1, m)``: the unbiased score of every payoff column of ``C`` (``(k+1, m)``) for ``s = 0..n`` successes
    of ``n`` trials (``n >= k``), summed around the nearer endpoint as :func:`batch_points` does.

    >>> score_table(np.array([[0.0], [1.0], [1.0]]), 4)[:, 0].round(4).tolist()   # pass@2 from 4 trials
    [0.0, 0.5, 0.8333, 1.0, 1.0]
    """
    k = C.shape[0] - 1
    block = _hypergeom_block(np.full(n + 1, n, np.int64), np.arange(n + 1, dtype=np.int64), k)
    return _endpoint_expect(lambda D: block @ D, C)


def batch_points(counts: Counts, C: np.ndarray) -> np.ndarray:
    """Unbiased estimates per state (rows) for several metrics of one degree (columns of ``C``)."""
    return _endpoint_expect(lambda D: hypergeom_expect(counts, C.shape[0] - 1, D), C)


def batch_moments(counts: Counts, C: np.ndarray, pairs=(), alpha0: float = 1.0, beta0: float = 1.0):
    """Per-state posterior means, variances and pairwise covariances of several metrics.

    ``C`` is ``(k+1, m)``: one coefficient column per metric (all of degree
    ``k``).  Returns ``(mean (S, m), var (S, m), [cov (S,) for each pair])``.
    Second moments are taken around the payoff endpoint nearest to each state's
    mean, ``Cov = E[(g-s)(h-t)] - (E g - s)(E h - t)``, which is algebraically
    exact and keeps tiny variances accurate; all the needed product
    coefficients go into one beta-binomial expectation of degree ``2k``.
    """
    return _moments(lambda K, D: betabinom_expect(counts, K, alpha0, beta0, D), C, pairs)


def moments_rows(n, s, alpha, beta, C: np.ndarray, pairs=()):
    """:func:`batch_moments` for explicit rows: ``p ~ Beta(alpha + s, beta + n - s)`` per row.

    ``alpha`` and ``beta`` may be arrays (one prior per row), which is how the
    hierarchical model evaluates every (hyperparameter grid point, count) pair.
    """
    return _moments(_rows_expect(n, s, alpha, beta), C, pairs)


def means_rows(n, s, alpha, beta, C: np.ndarray) -> np.ndarray:
    """The means alone of :func:`moments_rows` (``(rows, m)``): one beta-binomial expectation of degree ``k``, where
    the variances need degree ``2k`` -- half the width, and a third of the work or less.

    >>> C = np.array([[0.0], [1.0], [1.0]])  # pass@2
    >>> bool(np.allclose(means_rows([4], [1], 1.0, 1.0, C), moments_rows([4], [1], 1.0, 1.0, C)[0]))
    True
    """
    expect = _rows_expect(n, s, alpha, beta)
    return _endpoint_expect(lambda D: expect(C.shape[0] - 1, D), C)


def _rows_expect(n, s, alpha, beta):
    """``expect(K, D)``: ``E[D_j]`` under ``BetaBin(j; K, alpha + s, beta + n - s)`` for every row, in blocks."""
    n = np.asarray(n, dtype=np.int64)
    s = np.asarray(s, dtype=np.int64)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), n.shape)
    beta = np.broadcast_to(np.asarray(beta, dtype=np.float64), n.shape)

    def expect(K, D):
        out = np.empty((n.size, D.shape[1]))
        for blk in _blocks(n.size, K + 1):
            out[blk] = _betabinom_block(n[blk], s[blk], K, alpha[blk], beta[blk], None) @ D
        return out

    return expect


def _moments(expect, C: np.ndarray, pairs):
    k = C.shape[0] - 1
    mean, pick, centred = _endpoint_expect(
        lambda D: expect(k, D), C, parts=True
    )  # centred = E[g] - (chosen endpoint payoff), per state and metric
    S, m = mean.shape
    D, base = _second_moment_plan(C, tuple(tuple(p) for p in pairs))
    E2 = expect(2 * k, D)
    rows = np.arange(S)[:, None]
    var = E2[rows, base[:m] + pick] - centred * centred
    np.maximum(var, 0.0, out=var)
    covs = []
    for p, (i, j) in enumerate(pairs):
        col = base[m + p] + 2 * pick[:, i] + pick[:, j]
        bound = np.sqrt(var[:, i] * var[:, j])
        covs.append(np.clip(E2[rows[:, 0], col] - centred[:, i] * centred[:, j], -bound, bound))
    return mean, var, covs


_plans: dict = {}


def _second_moment_plan(C: np.ndarray, pairs: tuple):
    """Product coefficients of every shifted pair a state may need, stacked once per metric set.

    Columns: for metric ``i`` its square around ``c_0`` then around ``c_k``;
    for a pair ``(i, j)`` the four products ``(c_i - end) (c_j - end')``.
    ``base`` gives each block's first column; a state picks its column by
    which endpoint is nearer its mean.
    """
    key = (C.tobytes(), C.shape, pairs)
    plan = _plans.get(key)
    if plan is None:
        m = C.shape[1]
        ends = np.stack([C[0], C[-1]])
        columns, base = [], []
        for i in range(m):
            base.append(len(columns))
            columns += [(C[:, i] - ends[e, i], C[:, i] - ends[e, i]) for e in (0, 1)]
        for i, j in pairs:
            base.append(len(columns))
            columns += [(C[:, i] - ends[a, i], C[:, j] - ends[b, j]) for a in (0, 1) for b in (0, 1)]
        D = np.column_stack(product_many(columns))
        D.setflags(write=False)
        plan = (D, np.array(base, dtype=np.intp))
        with _lock:
            if len(_plans) >= 64:
                _plans.clear()
            _plans[key] = plan
    return plan


def cross_moments_states(counts: Counts, g: Bernstein, h: Bernstein, alpha0: float, beta0: float):
    """Per-state posterior ``E[g], E[h], Var[g], Var[h], Cov[g, h]`` of two metrics of one degree."""
    if g.k != h.k:
        raise ValueError(f"joint moments need metrics of the same degree, got k={g.k} and k={h.k}")
    mean, var, (cov,) = batch_moments(counts, np.column_stack([g.c, h.c]), [(0, 1)], alpha0, beta0)
    return mean[:, 0], mean[:, 1], var[:, 0], var[:, 1], cov


def bernstein_eval(c: np.ndarray, p: np.ndarray) -> np.ndarray:
    r"""Evaluate ``g(p) = sum_j c_j C(k,j) p^j (1-p)^(k-j)`` at an array of ``p``.

    A payoff vector with few steps is summed as
    ``c_0 + sum_t (c_{t+1} - c_t) P(X >= t+1)`` with the binomial tail
    ``P(X >= t) = I_p(t, k - t + 1)`` (scipy's regularised incomplete beta);
    otherwise the binomial probabilities are formed in log space.

    >>> bernstein_eval(np.array([0.0, 1.0, 1.0]), np.array([0.0, 0.5, 1.0])).tolist()   # 1 - (1-p)^2
    [0.0, 0.75, 1.0]
    """
    from scipy.special import betainc

    c = np.asarray(c, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    k = c.size - 1
    d = np.diff(c)
    steps = np.flatnonzero(d)
    if steps.size <= 64:
        out = np.full(p.shape, c[0])
        for t in steps.tolist():
            out += d[t] * betainc(t + 1.0, float(k - t), p)
        return out
    G = log_factorial(k)
    j = np.arange(k + 1)
    logc = G[k] - G[j] - G[k - j]
    flat = p.ravel()
    out = np.empty(flat.size)
    step = max(1, _CHUNK // (k + 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        for start in range(0, flat.size, step):
            q = flat[start : start + step, None]
            # 0 * log(0) is 0 here: at p = 0 (p = 1) all the mass sits on j = 0 (j = k)
            up = np.where(j[None, :] == 0, 0.0, j[None, :] * np.log(q))
            down = np.where(j[None, :] == k, 0.0, (k - j)[None, :] * np.log1p(-q))
            out[start : start + step] = np.exp(logc[None, :] + up + down) @ c
    return out.reshape(p.shape)
