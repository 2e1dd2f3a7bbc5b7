r"""Priors for the per-question success probabilities, including hierarchical (pooled) ones.

``prior=`` in :func:`bayeseval.estimate` accepts

* ``"robust"`` (the default for binary outcomes): no shape assumed for the pool of questions.  The
  pool is a fine-grid mixture of Betas fitted to the count histogram (:class:`BetaMixture`), used
  only where the data cannot answer alone; see :mod:`bayeseval.posterior.robust`;
* ``"hierarchical"``: questions share a Beta
  population, ``p_i ~ Beta(mu kappa, (1 - mu) kappa)``, with hyperprior
  ``mu ~ Uniform(0, 1)`` and ``log kappa ~ Uniform(log 0.01, log 1e6)``.  The
  posterior over ``(mu, kappa)`` is computed on an adaptive two-stage grid in
  ``(logit mu, log kappa)`` from the beta-binomial likelihood of the counts,
  so hyperparameter uncertainty is integrated, not plugged in.  (Empirical
  Bayes plug-in estimates understate uncertainty badly when questions have few
  trials; see the coverage study in the README.)
* ``"hierarchical-dirichlet"`` (the default for ``avg`` / ``avg@n`` on
  categorical outcomes with weights ``w``): the same pooling for categories,
  ``p_i ~ Dirichlet(s m)``; see :class:`HierarchicalDirichlet`;
* ``"uniform"`` -- Beta(1, 1) per question, independently (scorio's default);
  for categorical outcomes (also ``"dirichlet"``) the Dirichlet(1, ..., 1) of Bayes@N;
* ``"jeffreys"`` -- Beta(1/2, 1/2);
* ``(alpha0, beta0)`` -- any Beta prior;
* for categorical outcomes, the Dirichlet(1 + prior outcomes ``R0``) of Bayes@N
  (``metric="bayes"`` always uses it; so does ``avg`` when ``R0`` is given).

Reference for the hierarchical Beta-binomial and grid computation: Gelman et
al., *Bayesian Data Analysis* (3rd ed.), section 5.3.  For the
Dirichlet-multinomial: Minka (2000), "Estimating a Dirichlet distribution";
Teh et al. (2006), "Hierarchical Dirichlet processes", JASA (auxiliary table
counts).

>>> import numpy as np
>>> from bayeseval.counts import to_counts
>>> fit = HierarchicalBeta.fit(to_counts(np.array([[1, 0, 1, 1]] * 20 + [[0, 0, 0, 1]] * 20)))
>>> round(fit.mean_mu, 2)
0.5
>>> mix = BetaMixture.fit(to_counts(np.array([[0, 0, 0, 0]] * 12 + [[1, 1, 1, 1]] * 18)))
>>> mix.pi.shape[0], round(float(mix.predictive(4)[[0, 4]].sum()), 3)   # refits; P(0 or 4 of 4)
(64, 0.977)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import betaln, digamma, expit, gammaln, polygamma

from . import validate as V
from .counts import Counts

__all__ = ["PriorSpec", "resolve_prior", "HierarchicalBeta", "HierarchicalDirichlet", "BetaMixture"]

LOGIT_MU = (-12.0, 12.0)
LOG_KAPPA = (np.log(0.01), np.log(1e6))


@dataclass(frozen=True)
class PriorSpec:
    """``kind`` is ``"beta"`` (independent Beta(alpha0, beta0)), ``"hierarchical"`` (pooled Beta),
    ``"dirichlet"`` (independent Dirichlet(1 + R0)) or ``"hierarchical-dirichlet"`` (pooled Dirichlet)."""

    kind: str
    alpha0: float = 1.0
    beta0: float = 1.0

    @property
    def label(self) -> str:
        if self.kind == "beta":
            names = {(1.0, 1.0): "uniform", (0.5, 0.5): "jeffreys"}
            return names.get((self.alpha0, self.beta0), f"beta({self.alpha0:g}, {self.beta0:g})")
        return self.kind


def resolve_prior(prior: Any, alpha0: Any, beta0: Any, *, binary: bool) -> PriorSpec:
    """Validate ``prior`` / ``alpha0`` / ``beta0`` into a :class:`PriorSpec`."""
    if alpha0 is not None or beta0 is not None:
        if prior not in (None, "beta"):
            raise ValueError("give either prior= or alpha0=/beta0=, not both")
        a, b = V.beta_prior(1.0 if alpha0 is None else alpha0, 1.0 if beta0 is None else beta0)
        if not binary:
            raise ValueError("alpha0/beta0 set a Beta prior for binary outcomes; categorical outcomes use R0")
        return PriorSpec("beta", a, b)
    if prior is None:
        return PriorSpec("robust") if binary else PriorSpec("dirichlet")
    if isinstance(prior, str):
        key = prior.strip().lower()
        if key in ("hierarchical", "pooled"):
            if not binary:
                raise ValueError("prior='hierarchical' is the Beta-binomial prior of binary outcomes; categorical "
                                 "outcomes use prior='hierarchical-dirichlet' (the default for avg) or 'dirichlet'")
            return PriorSpec("hierarchical")
        if key in ("robust", "mixture", "nonparametric"):
            if not binary:
                raise ValueError("prior='robust' (a mixture-of-Betas pool) is for 0/1 outcomes (and max@k of scored "
                                 "categories, its default); categorical avg uses prior='hierarchical-dirichlet' (the "
                                 "default) or 'dirichlet'")
            return PriorSpec("robust")
        if key in ("hierarchical-dirichlet", "pooled-dirichlet"):
            if binary:
                raise ValueError("prior='hierarchical-dirichlet' is for categorical outcomes with weights w; "
                                 "binary outcomes use prior='hierarchical'")
            return PriorSpec("hierarchical-dirichlet")
        if key in ("uniform", "bayes", "laplace"):
            return PriorSpec("beta", 1.0, 1.0) if binary else PriorSpec("dirichlet")
        if key == "jeffreys":
            if not binary:
                raise ValueError("prior='jeffreys' needs binary outcomes")
            return PriorSpec("beta", 0.5, 0.5)
        if key == "dirichlet":
            return PriorSpec("dirichlet")
        raise ValueError(f"prior must be 'robust', 'hierarchical', 'hierarchical-dirichlet', 'uniform', 'dirichlet', 'jeffreys' "
                         f"or (alpha0, beta0), got {prior!r}")
    if hasattr(prior, "__len__") and len(prior) == 2 and not isinstance(prior, (bytes, str)):
        if not binary:
            raise ValueError("a (alpha0, beta0) prior needs binary outcomes; categorical outcomes use R0")
        a, b = V.beta_prior(prior[0], prior[1])
        return PriorSpec("beta", a, b)
    raise V.InputTypeError(f"prior must be a name or a pair (alpha0, beta0), got {V.describe(prior)}")


def _cells(lo: float, hi: float, n: int) -> tuple[np.ndarray, float]:
    """Centres of ``n`` equal cells tiling ``[lo, hi]`` (midpoint rule) and the cell width."""
    h = (hi - lo) / n
    return lo + (np.arange(n) + 0.5) * h, h


TAIL_MASS = 1e-12  # posterior mass a refined hierarchical grid may leave out on each side of each axis


def _mass_window(values: np.ndarray, w: np.ndarray, half: float, box: tuple) -> tuple[float, float]:
    """The span of the grid cells (centres ``values``, half-width ``half``) between which all but ``TAIL_MASS``
    of the marginal mass ``w`` lies on each side, and one cell beyond on each side, within ``box``."""
    centres, inv = np.unique(values, return_inverse=True)
    cum = np.cumsum(np.bincount(inv.ravel(), weights=w))
    i = int(np.searchsorted(cum, TAIL_MASS * cum[-1]))
    j = int(min(np.searchsorted(cum, (1.0 - TAIL_MASS) * cum[-1]), centres.size - 1))
    # one more cell each side: a posterior far narrower than a cell, its mode near the cell's edge, has its tail
    # in the next cell although that cell's midpoint weight underflows (M = 50,000, one trial: sd 12% short)
    i, j = max(i - 1, 0), min(j + 1, centres.size - 1)
    return max(box[0], centres[i] - half), min(box[1], centres[j] + half)


FINE_STEP = 0.1  # widest cell of a refined hierarchical grid (logit mu, log kappa): a broad posterior (few
# questions: log kappa spread over 10 units) takes more cells, so cell midpoints and draws jittered within cells agree
FINE_MAX = 400  # cells per axis at most


def _fine(window: tuple[float, float], n: int) -> tuple[float, float, int]:
    """``(lo, hi, cells)`` for a refined axis: at least ``n`` cells, and cells at most FINE_STEP wide."""
    lo, hi = window
    return lo, hi, int(min(FINE_MAX, max(n, math.ceil((hi - lo) / FINE_STEP))))


def _grid(lm: np.ndarray, lk: np.ndarray):
    LM, LK = np.meshgrid(lm, lk, indexing="ij")
    mu = expit(LM.ravel())
    kappa = np.exp(LK.ravel())
    return LM.ravel(), LK.ravel(), mu * kappa, (1.0 - mu) * kappa, mu


def _log_posterior(a, b, mu, n, s, freq):
    """Beta-binomial log likelihood of the count states plus the log hyperprior density.

    In (logit mu, log kappa) coordinates a uniform mu has density mu (1 - mu)
    and a uniform log kappa is flat.
    """
    ll = np.zeros(a.size)
    step = max(1, 2_000_000 // max(1, n.size))
    for start in range(0, a.size, step):
        A, Bv = a[start : start + step, None], b[start : start + step, None]
        terms = betaln(A + s[None, :], Bv + (n - s)[None, :]) - betaln(A, Bv)
        ll[start : start + step] = terms @ freq
    return ll + np.log(mu) + np.log1p(-mu)


@dataclass(frozen=True)
class HierarchicalBeta:
    """Grid posterior of the population ``Beta(mu kappa, (1-mu) kappa)``.

    ``a``, ``b`` are the Beta parameters of each retained grid point and ``w``
    their posterior weights (summing to 1).
    """

    a: np.ndarray
    b: np.ndarray
    w: np.ndarray
    logit_mu: np.ndarray
    log_kappa: np.ndarray
    steps: tuple = (0.0, 0.0)  # grid spacing in (logit mu, log kappa)

    def sample(self, rng: np.random.Generator, n: int):
        """``n`` hyperparameter draws: a grid point by weight, then uniform within its grid cell.

        Returns ``(index, a, b)``: the grid point (for tabulated per-point
        moments) and the jittered Beta parameters.
        """
        g = rng.choice(self.w.size, size=n, p=self.w)
        lm = self.logit_mu[g] + (rng.random(n) - 0.5) * self.steps[0]
        lk = self.log_kappa[g] + (rng.random(n) - 0.5) * self.steps[1]
        mu, kappa = expit(lm), np.exp(lk)
        return g, mu * kappa, (1.0 - mu) * kappa

    @property
    def mean_mu(self) -> float:
        return float(self.w @ (self.a / (self.a + self.b)))

    @property
    def mean_log_kappa(self) -> float:
        return float(self.w @ self.log_kappa)

    @classmethod
    def fit(cls, counts: Counts, *, coarse=(97, 57), fine=(41, 33), prune: float = 1e-10) -> "HierarchicalBeta":
        n_u, s_u, freq, _ = counts.binary_states()
        n = n_u.astype(np.float64)
        s = s_u.astype(np.float64)
        # stage 1: the whole hyperprior box
        # (midpoint rule over equal cells: the cells tile the box, so a flat tail of
        # log kappa up to its bound gets exactly its share, and sample() jitters within cells)
        lm, hm = _cells(*LOGIT_MU, coarse[0])
        lk, hk = _cells(*LOG_KAPPA, coarse[1])
        LM, LK, a, b, mu = _grid(lm, lk)
        lp = _log_posterior(a, b, mu, n, s, freq)
        w = np.exp(lp - lp.max())
        w /= w.sum()
        # refine: a finer grid over the cells that hold the mass (all but TAIL_MASS of it on each side, per
        # axis), until the grid resolves the posterior (sd at least 3 grid steps in both directions; a few rounds
        # suffice even for M = 1e6).  A window of mean +- 7 sd of the last grid's (already cut) posterior shrank
        # round by round and cut a flat tail of log kappa: sd 4% too small (20 questions x 5, pass@5)
        steps = (hm, hk)
        for _ in range(8):
            mx, my = w @ LM, w @ LK
            sx = np.sqrt(max(w @ (LM - mx) ** 2, 0.0))
            sy = np.sqrt(max(w @ (LK - my) ** 2, 0.0))
            lm2, hm = _cells(*_fine(_mass_window(LM, w, steps[0] / 2, LOGIT_MU), fine[0]))
            lk2, hk = _cells(*_fine(_mass_window(LK, w, steps[1] / 2, LOG_KAPPA), fine[1]))
            LM, LK, a, b, mu = _grid(lm2, lk2)
            lp = _log_posterior(a, b, mu, n, s, freq)
            w = np.exp(lp - lp.max())
            w /= w.sum()
            resolved = sx >= 3 * steps[0] and sy >= 3 * steps[1]
            steps = (hm, hk)
            if resolved:
                break
        keep = w > prune
        w = w[keep] / w[keep].sum()
        return cls(a[keep], b[keep], w, LM[keep], LK[keep], steps)


# ----------------------------------------------------------------------------- pooled Dirichlet (categorical)
A0_TOTAL = 1.0  # pool-mean hyperprior m ~ Dirichlet(a0), a0_c = A0_TOTAL / K: one pseudo-observation, spread evenly
LOG_S = LOG_KAPPA  # log s ~ Uniform(log 0.01, log 1e6); the top of the box stands for "all questions alike"
S_ONE_QUESTION = 1.0  # with M = 1 the pool's concentration is not identified: s is fixed here
FIXED_POINT_TOL = 1e-12


def _dm_stats(rows: np.ndarray, freq: np.ndarray):
    """Sufficient statistics of the Dirichlet-multinomial likelihood of distinct count rows.

    Per category ``c``: the distinct positive counts ``X[c, j]`` and the number
    of questions ``H[c, j]`` having that count (zero-padded to a rectangle);
    the distinct totals ``n`` and their frequencies.  Sizes depend on the
    number of distinct counts, not on the number of questions.
    """
    U, K = rows.shape
    val = np.rint(rows).astype(np.int64).ravel()
    cat = np.tile(np.arange(K), U)
    wt = np.repeat(np.asarray(freq, np.float64), K)
    pos = val > 0
    val, cat, wt = val[pos], cat[pos], wt[pos]
    top = int(val.max()) + 1
    keys, inv = np.unique(cat * top + val, return_inverse=True)
    h = np.bincount(inv.ravel(), weights=wt)
    kc, kv = keys // top, keys % top
    per_cat = np.bincount(kc, minlength=K)
    start = np.concatenate([[0], np.cumsum(per_cat)[:-1]])
    col = np.arange(keys.size) - start[kc]
    X = np.zeros((K, int(per_cat.max())))
    H = np.zeros_like(X)
    X[kc, col] = kv
    H[kc, col] = h
    n = np.rint(rows.sum(axis=1)).astype(np.int64)
    n_vals, n_inv = np.unique(n, return_inverse=True)
    n_freq = np.bincount(n_inv.ravel(), weights=np.asarray(freq, np.float64))
    return X, H, n_vals.astype(np.float64), n_freq


BIG = 100.0  # above this, digamma / trigamma differences come from their asymptotic series (no cancellation)


def _dpsi(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``psi(a + x) - psi(a)`` for ``a > 0``, ``x >= 0``, accurate also for large ``a``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        b = a + x
        series = (np.log1p(x / a) + x / (2 * a * b) + x * (a + b) / (12 * a**2 * b**2)
                  - (1.0 / a**4 - 1.0 / b**4) / 120)
    return np.where(a >= BIG, series, digamma(b) - digamma(a))


def _dpsi1(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``psi'(a) - psi'(a + x)`` for ``a > 0``, ``x >= 0``, accurate also for large ``a``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        b = a + x
        series = (x / (a * b) + x * (a + b) / (2 * a**2 * b**2) + x * (a * a + a * b + b * b) / (6 * a**3 * b**3)
                  - (1.0 / a**5 - 1.0 / b**5) / 30)
    return np.where(a >= BIG, series, polygamma(1, a) - polygamma(1, b))


class _DMLikelihood:
    """``log p(counts | s, m)`` of the Dirichlet-multinomial and its auxiliary table counts, vectorised over cells.

    With ``a_c = s m_c`` and ``Gamma(x + a) / Gamma(a) = sum_L |S(x, L)| a^L``,
    each question's count ``x_ic`` seats ``L_ic`` tables (Teh et al. 2006) with
    ``E[L_ic] = a_c (psi(x_ic + a_c) - psi(a_c))`` and
    ``Var[L_ic] = E[L_ic] - a_c^2 (psi'(a_c) - psi'(x_ic + a_c))``.
    """

    def __init__(self, rows: np.ndarray, freq: np.ndarray):
        self.X, self.H, self.n_vals, self.n_freq = _dm_stats(rows, freq)
        self.K = self.X.shape[0]
        self.M = float(np.sum(freq))
        self.a0 = np.full(self.K, A0_TOTAL / self.K)
        pooled = np.zeros(self.K)
        np.add.at(pooled, np.repeat(np.arange(self.K), self.X.shape[1]), (self.X * self.H).ravel())
        self.pooled = pooled  # total count per category

    def loglik(self, s: np.ndarray, m: np.ndarray) -> np.ndarray:
        """``sum_i log DirMult(x_i | s m)`` up to the multinomial coefficients, per cell."""
        a = (s[:, None] * m)[..., None]
        per_cat = (self.H * (gammaln(self.X + a) - gammaln(a))).sum(axis=(1, 2))
        S = s[:, None]
        return per_cat - (self.n_freq * (gammaln(self.n_vals + S) - gammaln(S))).sum(axis=1)

    def tables(self, s: np.ndarray, m: np.ndarray, var: bool = False):
        """Expected table counts ``L_c = sum_i E[L_ic]`` (and their variances), per cell."""
        a = s[:, None] * m
        A = a[..., None]
        L = a * (self.H * _dpsi(A, self.X)).sum(axis=-1)
        if not var:
            return L
        V = L - a**2 * (self.H * _dpsi1(A, self.X)).sum(axis=-1)
        return L, np.maximum(V, 0.0)

    def fixed_point(self, s: np.ndarray, m0: np.ndarray, max_iter: int = 5000) -> np.ndarray:
        """Per cell, ``m_hat(s) = argmax_m [log p(counts | s, m) + sum_c a0_c log m_c]``.

        The maximiser is the fixed point ``m_c = (a0_c + L_c(m)) / (A0 + sum L)``
        (Minka 2000, section 2, with a0 added): the objective is strictly
        concave in ``m`` and the iteration contracts (its Jacobian is the
        ``A`` of :meth:`concentration`).
        """
        m = np.array(m0, dtype=np.float64, copy=True)
        active = np.arange(s.size)
        for _ in range(max_iter):
            L = self.tables(s[active], m[active])
            new = (self.a0 + L) / (A0_TOTAL + L.sum(axis=1, keepdims=True))
            delta = np.abs(new - m[active]).max(axis=1)
            m[active] = new
            active = active[delta > FIXED_POINT_TOL]
            if active.size == 0:
                break
        return m

    def log_evidence(self, s: np.ndarray, m: np.ndarray, L: np.ndarray) -> np.ndarray:
        """``log p(counts | s)`` with ``m`` integrated out, by Chib's identity at ``m_hat``:
        ``log p(counts | s, m) + log Dir(m | a0) - log Dir(m | a0 + L)``."""
        a0 = self.a0
        ratio = (gammaln(A0_TOTAL) - gammaln(a0).sum() - gammaln(A0_TOTAL + L.sum(axis=1))
                 + gammaln(a0 + L).sum(axis=1) - (L * np.log(m)).sum(axis=1))
        return self.loglik(s, m) + ratio

    def concentration(self, m: np.ndarray, L: np.ndarray, V: np.ndarray, u: np.ndarray) -> np.ndarray:
        r"""Concentration ``B`` of the Dirichlet(B m_hat) matching the posterior variance of ``m . u`` given ``s``.

        Given the table counts the pool mean is ``m | L ~ Dirichlet(a0 + L)``;
        the tables vary with ``m`` (``dE[L_c]/dm_c = V_c / m_c``).  Linearised
        around the fixed point, ``delta m = A delta m + J eta + eps`` with
        ``J = (I - m 1^T) / N``, ``A = J diag(V / m)``, ``Cov(eta) = diag(V)``,
        ``Cov(eps) = (diag(m) - m m^T) / (N + 1)``, so ``Cov(m) = sum_k A^k Q A^{kT}``
        (a Stein equation), summed here along ``u`` only:
        ``Var(m . u) = sum_k z_k^T Q z_k``, ``z_{k+1} = A^T z_k``, ``z_0 = u``.
        ``B = Var_m(u) / Var(m . u) - 1``; without the correction (``A = 0``,
        ``eta = 0``) it is ``N = A0 + sum L``, the mean-field concentration.
        """
        N = A0_TOTAL + L.sum(axis=1)
        g = V / m
        z = np.broadcast_to(u, m.shape).copy()
        total = np.zeros(m.shape[0])
        for _ in range(10_000):
            mz = (m * z).sum(axis=1)
            y = (z - mz[:, None]) / N[:, None]
            term = (V * y * y).sum(axis=1) + np.maximum((m * z * z).sum(axis=1) - mz**2, 0.0) / (N + 1.0)
            total += term
            if (term <= 1e-14 * total).all():
                break
            z = g * y
        mu = m @ u
        spread = np.maximum(m @ (u * u) - mu**2, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            B = spread / total - 1.0
        B = np.where((spread > 0) & (total > 0) & np.isfinite(B), B, N)
        return np.clip(B, 1e-6, N)


@dataclass(frozen=True)
class HierarchicalDirichlet:
    r"""Posterior of a pooled Dirichlet prior for categorical outcomes.

    Model: question ``i`` has category probabilities ``p_i ~ Dirichlet(s m)``
    (pool mean ``m``, concentration ``s``), and its category counts are
    multinomial.  Hyperprior: ``m ~ Dirichlet(1/K, ..., 1/K)`` (total mass 1)
    and ``log s ~ Uniform(log 0.01, log 1e6)``.  Marginally the counts are
    Dirichlet-multinomial,

    .. math:: p(x_i \mid s, m) \propto \frac{\Gamma(s)}{\Gamma(s + n_i)}
              \prod_c \frac{\Gamma(x_{ic} + s m_c)}{\Gamma(s m_c)} .

    The posterior of ``s`` is tabulated on an adaptive grid of equal cells in
    ``log s`` (as for :class:`HierarchicalBeta`), with ``m`` integrated out by
    Chib's identity at ``m_hat(s)``, the maximiser of the likelihood plus
    ``sum_c a0_c log m_c`` (Minka's fixed point, which also keeps every
    ``m_c > 0``, observed or not).  Given ``s``, ``m`` is approximated by
    ``Dirichlet(B(s) m_hat(s))``: exact when ``s -> 0`` or ``s -> infinity``
    (then the likelihood is a Dirichlet kernel in ``m``), and in between with
    ``B`` set so that the variance of ``m . u`` (``u`` the rescaled category
    weights) includes the uncertainty of the auxiliary table counts (see
    :meth:`_DMLikelihood.concentration`: within 1% of importance sampling from
    the exact conditional posterior in ``tests/test_categorical_prior.py``,
    where the uncorrected mean-field Dirichlet is 9% too narrow).  Per
    question, given ``(s, m)``, the posterior is ``Dirichlet(x_i + s m)``.

    How :func:`bayeseval.estimate` uses it: the benchmark scope averages the
    questions' posteriors; the population scope is the Bayesian bootstrap over
    questions of their own estimates plus this posterior noise, or the pool's
    ``m . w`` where that is wider.  (A Dirichlet pool misfits ordinal grades,
    where questions differ by level, and its ``m . w`` is then overconfident;
    the bootstrap is not -- see ``benchmarks/results_coverage_categorical.md``.)

    Edge cases: all questions alike -- the likelihood is flat as ``s`` grows, so
    the posterior of ``s`` runs up to the top of the box, ``s = 1e6`` (the cap:
    there every ``p_i`` is the pool mean and the counts are pooled); one
    question (``M = 1``) -- ``s`` is not identified and is fixed at 1 (a prior
    of total mass 1, spread by ``m``); categories never observed keep
    ``m_c >= a0_c / N > 0``; ragged ``n`` enter through the ``Gamma(s + n_i)``.

    Attributes: ``s``, ``log_s`` (grid cells), ``m`` (``m_hat`` per cell,
    rows), ``B`` (concentration of ``m | s`` along ``u``), ``N`` (mean-field
    concentration ``A0 + sum L``), ``w`` (posterior weights), ``step``.

    Reference: Minka (2000), "Estimating a Dirichlet distribution"; Teh, Jordan,
    Beal and Blei (2006), "Hierarchical Dirichlet processes", JASA (table counts).

    60 questions x 8 trials from a pool with ``s = 10``, ``m = (0.2, 0.4, 0.4)``:

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> rows = np.array([rng.multinomial(8, p) for p in rng.dirichlet([2.0, 4.0, 4.0], size=60)])
    >>> fit = HierarchicalDirichlet.fit(rows, np.ones(60), np.array([0.0, 0.5, 1.0]))
    >>> s_hat, m_hat = fit.empirical_bayes()                 # the maximum-likelihood point
    >>> round(s_hat, 1), np.round(m_hat, 2).tolist()
    (13.0, [0.18, 0.44, 0.38])
    >>> round(float(np.exp(fit.mean_log_s)), 1), np.round(fit.mean_m, 2).tolist()  # posterior summaries
    (15.4, [0.18, 0.44, 0.38])
    """

    s: np.ndarray
    log_s: np.ndarray
    m: np.ndarray
    B: np.ndarray
    N: np.ndarray
    w: np.ndarray
    step: float
    lik: Any = None

    @classmethod
    def fit(cls, rows: np.ndarray, freq: np.ndarray, u: np.ndarray, *, coarse: int = 41, fine: int = 33,
            prune: float = 1e-10) -> "HierarchicalDirichlet":
        """Fit from distinct count rows ``(U, K)`` with question frequencies, for category weights ``u``."""
        rows = np.asarray(rows, dtype=np.float64)
        lik = _DMLikelihood(rows, freq)
        u = np.asarray(u, dtype=np.float64)
        start = (lik.a0 + lik.pooled) / (A0_TOTAL + lik.pooled.sum())
        if lik.M <= 1:
            ls = np.array([np.log(S_ONE_QUESTION)])
            s = np.exp(ls)
            m = lik.fixed_point(s, start[None, :])
            L, V = lik.tables(s, m, var=True)
            return cls(s, ls, m, lik.concentration(m, L, V, u), A0_TOTAL + L.sum(axis=1), np.ones(1), 0.0, lik)

        def evaluate(ls, m0):
            s = np.exp(ls)
            m = lik.fixed_point(s, m0)
            L = lik.tables(s, m)
            lp = lik.log_evidence(s, m, L)
            w = np.exp(lp - lp.max())
            return s, m, w / w.sum()

        ls, step = _cells(*LOG_S, coarse)
        s, m, w = evaluate(ls, np.broadcast_to(start, (coarse, lik.K)))
        for _ in range(8):  # refine over the cells that hold the mass until the grid resolves it (as HierarchicalBeta)
            my = w @ ls
            sy = np.sqrt(max(w @ (ls - my) ** 2, 0.0))
            ls2, step2 = _cells(*_fine(_mass_window(ls, w, step / 2, LOG_S), fine))
            near = np.abs(ls2[:, None] - ls[None, :]).argmin(axis=1)
            s, m, w = evaluate(ls2, m[near])
            resolved = sy >= 3 * step
            ls, step = ls2, step2
            if resolved:
                break
        keep = w > prune
        s, ls, m, w = s[keep], ls[keep], m[keep], w[keep] / w[keep].sum()
        L, V = lik.tables(s, m, var=True)
        return cls(s, ls, m, lik.concentration(m, L, V, u), A0_TOTAL + L.sum(axis=1), w, float(step), lik)

    def sample(self, rng: np.random.Generator, n: int):
        """``n`` hyperparameter draws: a cell by weight, then ``m ~ Dirichlet(B m_hat)`` of that cell.

        Returns ``(index, s, m)`` with ``m`` of shape ``(n, K)``.
        """
        g = rng.choice(self.w.size, size=n, p=self.w)
        gam = rng.standard_gamma(self.B[g, None] * self.m[g])
        tot = gam.sum(axis=1, keepdims=True)
        m = np.where(tot > 0, gam / np.where(tot > 0, tot, 1.0), self.m[g])
        return g, self.s[g], m

    @property
    def mean_m(self) -> np.ndarray:
        """Posterior mean of the pool mean ``m``."""
        return self.w @ self.m

    @property
    def mean_log_s(self) -> float:
        return float(self.w @ self.log_s)

    def empirical_bayes(self) -> tuple[float, np.ndarray]:
        """The joint maximiser ``(s_hat, m_hat)`` of ``log p(counts | s, m) + sum_c a0_c log m_c``.

        (The Dirichlet-multinomial marginal likelihood, with ``a0`` keeping
        unobserved categories above 0; ``s`` within the hyperprior's box.)  A
        diagnostic: the estimates integrate over ``s`` and ``m`` instead.
        """
        from scipy.optimize import minimize_scalar

        lik = self.lik
        start = (lik.a0 + lik.pooled) / (A0_TOTAL + lik.pooled.sum())
        ls, step = _cells(*LOG_S, 81)
        m = lik.fixed_point(np.exp(ls), np.broadcast_to(start, (ls.size, lik.K)))

        def objective(s, m):
            return lik.loglik(s, m) + (np.log(m) @ lik.a0)

        vals = objective(np.exp(ls), m)
        i = int(np.argmax(vals))
        lo, hi = max(LOG_S[0], ls[i] - step), min(LOG_S[1], ls[i] + step)
        cache = {}

        def neg(x):
            s = np.array([np.exp(x)])
            mm = lik.fixed_point(s, m[i : i + 1])
            cache[x] = mm[0]
            return -float(objective(s, mm)[0])

        res = minimize_scalar(neg, bounds=(lo, hi), method="bounded", options={"xatol": 1e-9})
        x = float(res.x)
        if -res.fun < vals[i]:
            x = float(ls[i])
            neg(x)
        return float(np.exp(x)), cache[x]


# ----------------------------------------------------------------------------- nonparametric mixture (robust)
MIX_LOGIT_MEANS = np.arange(-8.0, 8.0 + 1e-9, 0.5)  # component means expit(-8) = 3e-4 ... 1 - 3e-4
MIX_KAPPAS = (2.0, 8.0, 32.0, 128.0, 512.0)  # component concentrations: from wide to nearly a point mass
MIX_FITS = 64  # weighted-likelihood-bootstrap refits that carry the uncertainty of the mixing weights
MIX_SMOOTH = 1.0  # prior pseudo-questions spread evenly over the components (MAP smoothing of the weights)
MIX_SEED = 20261124  # the refits' question weights: fixed, so a fit is a function of the counts
MIX_TOL, MIX_LL_TOL, MIX_MAX_ITER = 1e-7, 1e-7, 3000  # stop: weights settled, or no refit gains 1e-7 nats per question
MIX_MAX_STATES = 4000  # more distinct (n, s) states than this: the pool is fitted to a fixed-seed sample of this many
MIX_WORK = 2e5  # (count states x components) above which fewer refits are run (at least 16): ragged trial counts


@dataclass(frozen=True)
class BetaMixture:
    r"""A fine-grid mixture of Betas fitted to the count histogram: the population of question difficulty.

    Components ``Beta(m_j kappa_j, (1 - m_j) kappa_j)`` on a fixed dictionary (33 means on a logit grid x
    5 concentrations); their weights ``pi`` maximise the smoothed marginal likelihood of the counts

    .. math::  \ell(\pi) = \sum_i \log \sum_j \pi_j\, \mathrm{BetaBin}(s_i \mid n_i, a_j, b_j)
               + \frac{\lambda}{J}\sum_j \log \pi_j

    (a nonparametric maximum-likelihood mixture, Koenker & Mizera 2014, JASA 109(506); Efron 2016,
    Biometrika 103(1) for the "g-modeling" view), by EM.  Any shape of pool -- clusters, a U, a spike
    at 0 -- is a mixture of these components; one Beta is not.  The uncertainty of the weights comes from
    the weighted likelihood bootstrap (Newton & Raftery 1994, JRSS-B 56(1)): ``fits`` refits with
    Dirichlet(1, ..., 1) question weights, each an equally likely posterior draw of ``pi``.

    ``a``, ``b`` are the retained components' Beta parameters, ``pi`` (fits, J) the refits' weights and
    ``point`` (J,) the fit to the counts as observed.

    Work is bounded: EM stops when no refit gains ``MIX_LL_TOL`` nats per question (the objective is then
    within about 1e-4 nats per question of an independent optimiser's; ``ll_tol`` sets that threshold); with more than ``MIX_MAX_STATES``
    distinct ``(n, s)`` states (ragged trial counts) the pool is fitted to a fixed-seed sample of that many
    questions with weights rescaled to M, and fewer refits (at least 16) are run: about 7 s at 100,000
    questions with 1 to 1,000 trials each (wall time on 2 idle cores; BLAS threads that outnumber the free cores,
    as in parallel test workers, make it several times slower: the service's workers use one each).
    """

    a: np.ndarray
    b: np.ndarray
    pi: np.ndarray
    point: np.ndarray

    @property
    def fits(self) -> int:
        return self.pi.shape[0]

    def sample(self, rng: np.random.Generator, n: int):
        """``n`` draws of the mixing weights: the index of a refit, uniformly (``a``, ``b`` are None)."""
        return rng.integers(0, self.fits, size=n), None, None

    def responsibilities(self, n: np.ndarray, s: np.ndarray, which: str = "fits") -> np.ndarray:
        """Posterior component weights of a question with ``s`` of ``n``: ``(fits, U, J)`` (or ``(U, J)``
        for ``which="point"``)."""
        L = _component_likelihood(self.a, self.b, np.asarray(n, np.float64), np.asarray(s, np.float64))
        pi = self.point[None, :] if which == "point" else self.pi
        R = pi[:, None, :] * L[None, :, :]
        R /= R.sum(axis=2, keepdims=True)
        return R[0] if which == "point" else R

    def predictive(self, n: int) -> np.ndarray:
        """Probability of ``s = 0..n`` successes in ``n`` trials for a new question (point fit)."""
        s = np.arange(n + 1, dtype=np.float64)
        logc = gammaln(n + 1.0) - gammaln(s + 1.0) - gammaln(n - s + 1.0)
        lb = betaln(self.a[None, :] + s[:, None], self.b[None, :] + n - s[:, None]) - betaln(self.a, self.b)[None, :]
        return np.exp(logc[:, None] + lb) @ self.point

    @classmethod
    def fit(cls, counts: Counts, *, fits: int | None = None, smooth: float = MIX_SMOOTH,
            ll_tol: float = MIX_LL_TOL) -> "BetaMixture":
        n_u, s_u, freq, _ = counts.binary_states()
        f = freq.astype(np.float64)
        M = float(f.sum())
        if n_u.size > MIX_MAX_STATES:  # questions, drawn by state (weights rescaled to M): the work is bounded
            pick = np.random.default_rng(MIX_SEED + 1).multinomial(MIX_MAX_STATES, f / M)
            keep = pick > 0
            n_u, s_u, f = n_u[keep], s_u[keep], pick[keep] * (M / MIX_MAX_STATES)
        if fits is None:  # many distinct (n, s) states (ragged trials): fewer refits keep the fit under a second
            fits = int(max(16, min(MIX_FITS, MIX_FITS * MIX_WORK / (n_u.size * MIX_LOGIT_MEANS.size * len(MIX_KAPPAS)))))
        m = expit(MIX_LOGIT_MEANS)
        kap = np.asarray(MIX_KAPPAS)
        a = (m[:, None] * kap[None, :]).ravel()
        b = ((1.0 - m)[:, None] * kap[None, :]).ravel()
        L = _component_likelihood(a, b, n_u.astype(np.float64), s_u.astype(np.float64))  # (U, J), rows scaled
        rng = np.random.default_rng(MIX_SEED)
        Wb = rng.standard_gamma(np.broadcast_to(f, (fits, f.size)))  # sum of f unit exponentials per state
        Wb *= M / Wb.sum(axis=1, keepdims=True)
        W = np.vstack([f[None, :], Wb])  # row 0: the counts as observed
        J = a.size

        def em(pi):  # one EM step per row (refit), and the objective at pi
            D = pi @ L.T  # (fits + 1, U)
            ll = (W * np.log(D)).sum(axis=1) + (smooth / J) * np.log(pi).sum(axis=1)
            return (pi * ((W / D) @ L) + smooth / J) / (M + smooth), ll

        # EM accelerated by SQUAREM (Varadhan & Roland 2008, Scand. J. Stat. 35(2), scheme S3), row by row;
        # a row whose extrapolated step does not raise its objective takes the plain double EM step instead
        pi = np.full((W.shape[0], J), 1.0 / J)
        ll_old = np.full(W.shape[0], -np.inf)
        floor = smooth / (J * (M + smooth))  # every EM step keeps each weight above this
        for _ in range(MIX_MAX_ITER):
            p1, ll0 = em(pi)
            p2, _ = em(p1)
            r, v = p1 - pi, p2 - 2.0 * p1 + pi
            alpha = -np.sqrt((r**2).sum(axis=1) / np.maximum((v**2).sum(axis=1), 1e-300))
            alpha = np.minimum(alpha, -1.0)[:, None]
            jump = np.clip(pi - 2.0 * alpha * r + alpha**2 * v, floor, None)
            jump /= jump.sum(axis=1, keepdims=True)
            new, ll_jump = em(jump)
            p3, ll_p2 = em(p2)
            bad = ~(ll_jump >= ll_p2)
            new[bad] = p3[bad]
            done = float(np.abs(new - pi).max()) < MIX_TOL or float(np.max(ll0 - ll_old)) < ll_tol * M
            pi, ll_old = new, ll0
            if done:
                break
        keep = pi.max(axis=0) > 1e-9
        pi = pi[:, keep] / pi[:, keep].sum(axis=1, keepdims=True)
        return cls(a[keep], b[keep], pi[1:], pi[0])


def _component_likelihood(a: np.ndarray, b: np.ndarray, n: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``BetaBin(s | n, a_j, b_j)`` up to a factor per row (the binomial coefficient and the row's maximum)."""
    ll = betaln(a[None, :] + s[:, None], b[None, :] + (n - s)[:, None]) - betaln(a, b)[None, :]
    return np.exp(ll - ll.max(axis=1, keepdims=True))
