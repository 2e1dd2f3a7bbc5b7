r"""Posterior of a dataset-level metric, in one of two scopes, with three kinds of interval.

Scopes (every result says which one it is):

* ``scope="benchmark"`` -- these M questions are fixed; the estimand is
  :math:`\theta_B = \frac1M\sum_i g(p_i)` and the only uncertainty is from
  finite trials.  Its interval shrinks to zero as N grows.
* ``scope="population"`` -- the questions are a sample from a larger pool;
  the estimand is the pool's mean of ``g(p)``.  With an independent prior it
  is the Bayesian bootstrap over questions on top of each question's
  posterior, :math:`\theta_P = \sum_i W_i\,g(p_i)`, ``W ~ Dirichlet(1..1)``,
  whose mean and variance follow from each question's ``E[g]`` and ``E[g^2]``:
  :math:`E = \bar\mu`, :math:`\mathrm{Var} = \frac{2\sum_i v_i + \sum_i(\mu_i-\bar\mu)^2}{M(M+1)}`
  (``E[W_i^2] = 2/(M(M+1))``).  With the hierarchical prior it is the
  posterior of :math:`E_{p\sim\mathrm{Beta}(\mu\kappa,(1-\mu)\kappa)}[g(p)]`,
  the mean metric of a new question from the fitted population.  With the
  pooled Dirichlet prior of categorical ``avg`` (``p_i ~ Dirichlet(s m)``,
  :class:`~bayeseval.priors.HierarchicalDirichlet`) it is the Bayesian
  bootstrap of each question's unbiased estimate plus its posterior noise, or
  the pool's own ``m . w`` where that is wider (see ``_population_hdir``);
  the benchmark scope averages the questions' ``Dirichlet(x_i + s m)``
  posteriors, which share the uncertain pool mean ``m``.

Intervals: ``"normal"`` (mean +- z sd, clipped to the metric's range: what
scorio reports), ``"exact"`` (central quantiles of the posterior itself:
Beta quantiles mapped through ``g`` for a single question, otherwise seeded
posterior draws grouped by distinct counts), ``"hdi"`` (shortest interval of
the same draws).  In draws, the questions sharing one count state are summed
exactly when there are at most 200 of them; a larger group's sum -- of more
than 200 independent, bounded terms -- is drawn from its normal limit with the
exact mean and variance (its skewness is at most 1/14 of one question's).

Reference: Miller, "Adding Error Bars to Evals", arXiv:2411.00640 (question-
clustered standard errors); Rubin (1981), "The Bayesian bootstrap", Ann. Stat.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import betaincinv

from .. import validate as V
from ..counts import Counts, to_counts
from ..metrics import categorical as cat
from ..metrics.engine import batch_moments, batch_points, bernstein_eval, moments_rows
from ..metrics.reference import _blend1
from ..priors import HierarchicalBeta, HierarchicalDirichlet, PriorSpec, resolve_prior
from ..targets import MetricSpec, parse

__all__ = ["Posterior", "SCOPES", "METHODS", "EXACT_GROUP"]

SCOPES = ("benchmark", "population")
METHODS = ("normal", "exact", "hdi")
EXACT_GROUP = 200  # questions per count state summed exactly in draws; larger groups use their normal limit
ATOMS = 1024  # quantile atoms per count state for independent-prior draws


def _geo(x: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """``x^lam y^(1-lam)`` elementwise with the conventions of the reference (0^0 = 1)."""
    if lam == 1.0:
        return x
    if lam == 0.0:
        return y
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.power(x, lam) * np.power(y, 1.0 - lam)
    return np.where((x == 0) | (y == 0), 0.0, out)


class Posterior:
    """Everything needed to summarise one metric on one outcome set under one prior.

    Built once; :meth:`moments`, :meth:`draws` and :meth:`interval` then answer
    for either scope.
    """

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        self.counts, self.spec, self.prior = counts, spec, prior
        self.M = counts.M
        self.binary_model = spec.kind in ("bernstein", "geospectrum") or (
            spec.kind == "mean" and prior.kind in ("beta", "hierarchical")
        )
        if self.binary_model:
            counts.successes(spec.label)
            C = spec.coefficients if spec.kind != "mean" else np.array([0.0, 1.0])
            self.C = C[:, None] if C.ndim == 1 else C
            n_u, s_u, freq, _ = counts.binary_states()
            self.n_u, self.s_u, self.freq = n_u, s_u, freq
            self.range = (float(self.C[:, 0].min()), float(self.C[:, 0].max())) if spec.kind != "geospectrum" else (0.0, 1.0)
            pairs = [(0, 1)] if self.C.shape[1] == 2 else []
            if prior.kind == "hierarchical":
                cache = counts.cache()
                if "hierarchical" not in cache:  # one fit serves every metric of this outcome set
                    cache["hierarchical"] = HierarchicalBeta.fit(counts)
                self.hier = cache["hierarchical"]
                G, U = self.hier.w.size, n_u.size
                mean, var, covs = moments_rows(
                    np.tile(n_u, G), np.tile(s_u, G), np.repeat(self.hier.a, U), np.repeat(self.hier.b, U), self.C, pairs
                )
                m = self.C.shape[1]
                self.mean_gu, self.var_gu = mean.reshape(G, U, m), var.reshape(G, U, m)
                self.cov_gu = covs[0].reshape(G, U) if covs else None
                pm, pv, pc = moments_rows(np.zeros(G, np.int64), np.zeros(G, np.int64), self.hier.a, self.hier.b, self.C, pairs)
                self.pop_g = pm  # E[g(p)] for p ~ Beta(a_g, b_g): the pool's mean metric at each grid point
            else:
                mean, var, covs = batch_moments(counts, self.C, pairs, prior.alpha0, prior.beta0)
                self.mean_u, self.var_u = mean, var
                self.cov_u = covs[0] if covs else None
        else:  # Dirichlet family: categorical mean (avg / Bayes@N) or max@k
            wv = np.array([0.0, 1.0]) if w is None else V.weights(w)
            if w is None:
                counts.successes(f"{spec.label} without weights (pass w for categorical outcomes)")
            self.rows = cat.posterior_rows(counts, wv, R0)
            self.freq = self.rows.freq
            if prior.kind == "hierarchical-dirichlet":
                key = ("hierarchical-dirichlet", wv.tobytes())
                cache = counts.cache()
                if key not in cache:  # one fit per outcome set and weight vector
                    cache[key] = HierarchicalDirichlet.fit(self.rows.nu - 1.0, self.freq, self.rows.u)
                self.hdir = cache[key]
                self._hdir_setup()
                mean_r, var_r = self.hdir_mean_r, self.hdir_var_r
            elif spec.kind == "max":
                mean_r, var_r = cat.max_rows(self.rows, spec.k)
            else:
                mean_r, var_r, _ = cat.bayes_rows(self.rows.nu, self.rows.u)
            self.mean_u, self.var_u, self.cov_u = mean_r[:, None], var_r[:, None], None
            self.range = (float(wv.min()), float(wv.max()))
            self.w_vec = wv

    # ------------------------------------------------------------------ pooled Dirichlet prior
    def _hdir_setup(self) -> None:
        r"""Per grid cell ``g`` of the pool's concentration and per distinct row ``r``: the moments of
        ``p_r . u`` under ``p_r | s, m ~ Dirichlet(x_r + s m)``, averaged over ``m | s ~ Dirichlet(B m_hat)``.

        With ``T = n_r + s``, ``q1 = m . u``, ``q2 = m . u^2``:
        ``E[p_r . u | s, m] = alpha_r + gamma_r q1`` (``alpha_r = x_r . u / T``, ``gamma_r = s / T``) and
        ``Var[p_r . u | s, m] = ((x_r . u^2 + s q2) / T - (alpha_r + gamma_r q1)^2) / (T + 1)``;
        ``E[q1] = m_hat . u``, ``E[q2] = m_hat . u^2``, ``Var[q1] = (E[q2] - E[q1]^2) / (B + 1)``.
        """
        h, u = self.hdir, self.rows.u
        x = self.rows.nu - 1.0
        n = x.sum(axis=1)
        xu1, xu2 = x @ u, x @ (u * u)
        s = h.s[:, None]
        T = n[None, :] + s
        alpha, gamma = xu1[None, :] / T, s / T
        e1, e2 = h.m @ u, h.m @ (u * u)
        vq = np.maximum(e2 - e1**2, 0.0) / (h.B + 1.0)
        e11 = e1**2 + vq
        Ev = ((xu2[None, :] + s * e2[:, None]) / T
              - (alpha**2 + 2 * alpha * gamma * e1[:, None] + gamma**2 * e11[:, None])) / (T + 1.0)
        self._hd = dict(alpha=alpha, gamma=gamma, Ev=np.maximum(Ev, 0.0), e1=e1, vq=vq, xu1=xu1, xu2=xu2, n=n)
        w = h.w
        mean_gr = alpha + gamma * e1[:, None]
        self.hdir_mean_r = w @ mean_gr
        second = w @ (self._hd["Ev"] + gamma**2 * vq[:, None] + mean_gr**2)
        self.hdir_var_r = np.maximum(second - self.hdir_mean_r**2, 0.0)

    def _population_hdir(self):
        r"""The two posteriors of the pool's mean score under the pooled Dirichlet prior, and which one is used.

        * ``"bootstrap"`` -- the Bayesian bootstrap over questions of each question's unbiased
          estimate plus its posterior noise, ``sum_i W_i (xbar_i + e_i)`` with ``W ~ Dirichlet(1..1)``
          and ``e_i = p_i . u - E[p_i . u | s, m]``: ``E = mean_i xbar_i``,
          ``Var = (sum_i (xbar_i - xbar)^2 + 2 sum_i E[v_i]) / (M (M + 1))``.  Right whatever the
          pool's shape (it is what Miller's clustered standard error estimates), but blind to the
          pool mean's uncertainty when every question has the same estimate (all trials in one
          category, say).
        * ``"pool"`` -- the posterior of the Dirichlet pool's mean ``m . u`` (as for the hierarchical
          Beta prior): right when the pool is Dirichlet, overconfident when it is not (ordinal grades,
          where questions differ by level: the Dirichlet's tables then count one question's adjacent
          grades as independent evidence).

        The wider of the two is reported (``"pool"`` only where the bootstrap's variance is smaller).
        Returns ``(basis, mean, var)`` in the rescaled units ``u``.
        """
        if getattr(self, "_pop_hdir", None) is None:
            d, M, f, h = self._hd, self.M, self.freq, self.hdir
            xbar_r = d["xu1"] / d["n"]
            xbar = float(f @ xbar_r) / M
            ev = float(h.w @ (d["Ev"] @ f))
            var_bb = (float(f @ (xbar_r - xbar) ** 2) + 2.0 * ev) / (M * (M + 1.0))
            e1, vq = d["e1"], d["vq"]
            mean_pool = float(h.w @ e1)
            var_pool = max(float(h.w @ (vq + e1**2)) - mean_pool**2, 0.0)
            self._pop_hdir = ("bootstrap", xbar, var_bb) if var_bb >= var_pool else ("pool", mean_pool, var_pool)
        return self._pop_hdir

    def _moments_hdir(self, scope: str) -> tuple[float, float]:
        r"""Closed-form mean and sd under the pooled Dirichlet prior, mixed over the grid of ``s``.

        Benchmark: ``(1/M) sum_i p_i . u`` with ``p_i | s, m ~ Dirichlet(x_i + s m)`` and ``(s, m)``
        from their posterior; the questions share the uncertain pool mean ``m``
        (``Var = sum_i E[v_i] / M^2 + gbar^2 Var(m . u)``, ``gbar = mean_i s / T_i``).
        Population: see :meth:`_population_hdir`.
        """
        d, M, f, w = self._hd, self.M, self.freq, self.hdir.w
        if scope == "population":
            _, mean, var = self._population_hdir()
        else:
            alpha, gamma, e1, vq = d["alpha"], d["gamma"], d["e1"], d["vq"]
            gbar = gamma @ f / M
            mean_g = alpha @ f / M + gbar * e1
            var_g = d["Ev"] @ f / M**2 + gbar**2 * vq
            mean = float(w @ mean_g)
            var = max(float(w @ (var_g + mean_g**2)) - mean**2, 0.0)
        return float(self._to_units(mean)), float(self.rows.scale * math.sqrt(max(var, 0.0)))

    def _draws_hdir(self, scope: str, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draws under the pooled Dirichlet prior: ``(s, m)`` from their posterior, then every
        question's ``p_i ~ Dirichlet(x_i + s m)`` (groups of more than EXACT_GROUP identical rows
        through their normal limit given ``(s, m)``); averaged (benchmark), or, re-centred on each
        question's unbiased estimate, Bayesian-bootstrap weighted (population; or the pool mean
        ``m . u`` itself where :meth:`_population_hdir` chose the pool)."""
        d, M, u = self._hd, self.M, self.rows.u
        x = self.rows.nu - 1.0
        _, s, m = self.hdir.sample(rng, n)
        q1, q2 = m @ u, m @ (u * u)
        if scope == "population" and self._population_hdir()[0] == "pool":
            return self._to_units(q1)
        total = np.zeros(n)
        weight = np.zeros(n)
        K = u.size
        for r, f in enumerate(self.freq.astype(np.int64).tolist()):
            T = d["n"][r] + s
            mu = (d["xu1"][r] + s * q1) / T  # E[p_r . u | s, m]
            xbar = d["xu1"][r] / d["n"][r]
            if f <= EXACT_GROUP:
                shape = x[r][None, :] + s[:, None] * m  # (n, K)
                step = max(1, (1 << 22) // (n * K))
                for start in range(0, f, step):
                    c = min(step, f - start)
                    g = rng.standard_gamma(shape[:, None, :], size=(n, c, K))
                    y = (g @ u) / g.sum(axis=-1)  # (n, c)
                    if scope == "benchmark":
                        total += y.sum(axis=1)
                    else:
                        e = rng.standard_exponential(size=(n, c))
                        total += (e * (xbar + y - mu[:, None])).sum(axis=1)
                        weight += e.sum(axis=1)
            else:
                v = np.maximum((d["xu2"][r] + s * q2) / T - mu**2, 0.0) / (T + 1.0)
                z = rng.standard_normal(n)
                if scope == "benchmark":
                    total += f * mu + np.sqrt(f * v) * z
                else:
                    Bw = rng.standard_gamma(f, size=n)
                    total += Bw * (xbar + np.sqrt(2.0 * v / (f + 1)) * z)
                    weight += Bw
        out = total / M if scope == "benchmark" else total / weight
        return self._to_units(out)

    # ------------------------------------------------------------------ combining components
    @property
    def lam(self) -> float:
        return float(self.spec.params.get("lam", 1.0))

    def _combine(self, x: np.ndarray) -> np.ndarray:
        """Dataset-level metric from dataset-level component values (last axis)."""
        if self.spec.kind == "geospectrum":
            return _geo(x[..., 0], x[..., 1], self.lam)
        return x[..., 0]

    def _to_units(self, x):
        """Categorical moments live on rescaled weights; map back to the score scale."""
        if hasattr(self, "rows"):
            return self.rows.offset + self.rows.scale * x
        return x

    # ------------------------------------------------------------------ point estimate and Miller's SE
    def value(self) -> float | None:
        """The finite-sample estimate (unbiased for the "@k" metrics); None where k > n for some question."""
        c = self.counts
        spec = self.spec
        if spec.name == "bayes":  # Bayes@N is the posterior mean under its Dirichlet(1 + R0) prior
            return self.moments("benchmark")[0]
        if spec.kind == "mean":
            return cat.avg_moments(c, self.w_vec if hasattr(self, "w_vec") else np.array([0.0, 1.0]))[0]
        if int(c.n.min()) < spec.k:
            return None
        if spec.kind == "max":
            return cat.max_point(c, self.w_vec, spec.k)
        ds = self.freq @ batch_points(c, self.C) / self.M
        if spec.kind == "geospectrum":
            return _blend1(ds[0], ds[1], self.lam, 1.0 - self.lam) if 0 < self.lam < 1 else float(ds[0] if self.lam == 1 else ds[1])
        return float(ds[0])

    def state_scores(self) -> np.ndarray | None:
        """Per count state (or distinct categorical row): the unbiased per-question estimate ``x``.

        None where ``k > n`` for some question.  For GeoSpectrum, the
        per-question gradient of the blend (delta method), so that the mean of
        ``x`` moves like the dataset-level estimate.
        """
        M, spec, f = self.M, self.spec, self.freq
        if spec.name == "bayes":  # per question, its Bayes@N (posterior mean), so that their mean is the value
            return self._to_units(self.mean_u[:, 0])
        if spec.kind == "mean":
            if not hasattr(self, "rows"):
                return self.s_u / self.n_u
            rows = self.rows.nu - 1.0
            return self._to_units((rows @ self.rows.u) / rows.sum(axis=1))
        if int(self.counts.n.min()) < spec.k:
            return None
        if spec.kind == "max":
            return self._to_units(cat.max_row_points(self.rows, spec.k))
        P = batch_points(self.counts, self.C)
        if spec.kind != "geospectrum":
            return P[:, 0]
        ds = f @ P / M
        lam = self.lam
        gx = lam * _geo(ds[:1], ds[1:], lam)[0] / ds[0] if ds[0] > 0 and lam > 0 else 0.0
        gy = (1 - lam) * _geo(ds[:1], ds[1:], lam)[0] / ds[1] if ds[1] > 0 and lam < 1 else 0.0
        return gx * P[:, 0] + gy * P[:, 1]

    def miller_se(self) -> float | None:
        """Question-clustered standard error of the finite-sample estimate (Miller 2024, arXiv:2411.00640).

        ``sqrt(sum_i (x_i - xbar)^2 / (M (M - 1)))`` over the per-question
        estimates of :meth:`state_scores`.  None when M < 2 or the estimate is undefined.
        """
        M, f = self.M, self.freq
        x = self.state_scores() if M >= 2 else None
        if x is None:
            return None
        xbar = f @ x / M
        return float(math.sqrt(max(f @ (x - xbar) ** 2, 0.0) / (M * (M - 1))))

    # ------------------------------------------------------------------ closed-form moments
    def moments(self, scope: str) -> tuple[float, float]:
        """Posterior mean and sd of the dataset-level metric in ``scope``."""
        M, f = self.M, self.freq
        if self.prior.kind == "hierarchical-dirichlet":
            return self._moments_hdir(scope)
        if self.prior.kind == "hierarchical":
            w = self.hier.w
            if scope == "population":
                vals = self._combine(self.pop_g)
                mean = float(w @ vals)
                return mean, float(math.sqrt(max(w @ (vals - mean) ** 2, 0.0)))
            mg = np.einsum("u,guk->gk", f, self.mean_gu) / M
            vg = np.einsum("u,guk->gk", f, self.var_gu) / M**2
            cg = (self.cov_gu @ f) / M**2 if self.cov_gu is not None else None
            per_g_mean, per_g_var = self._delta(mg, vg, cg)
            mean = float(w @ per_g_mean)
            return mean, float(math.sqrt(max(w @ (per_g_var + per_g_mean**2) - mean**2, 0.0)))
        mu, v = self.mean_u, self.var_u
        mbar = f @ mu / M
        if scope == "benchmark":
            var = f @ v / M**2
            cov = (f @ self.cov_u) / M**2 if self.cov_u is not None else None
        else:
            dev = mu - mbar
            var = (2.0 * (f @ v) + f @ dev**2) / (M * (M + 1))
            cov = ((2.0 * (f @ self.cov_u) + f @ (dev[:, 0] * dev[:, 1])) / (M * (M + 1))) if self.cov_u is not None else None
        mean, var_ = self._delta(mbar[None, :], var[None, :], None if cov is None else np.array([cov]))
        scale = self.rows.scale if hasattr(self, "rows") else 1.0
        return float(self._to_units(mean[0])), float(scale * math.sqrt(max(var_[0], 0.0)))

    def _delta(self, m: np.ndarray, v: np.ndarray, c):
        """Per row of dataset-level component means/vars: the metric's mean and variance (delta method)."""
        if self.spec.kind != "geospectrum":
            return m[:, 0], v[:, 0]
        lam = self.lam
        x, y = m[:, 0], m[:, 1]
        mean = _geo(x, y, lam)
        with np.errstate(divide="ignore", invalid="ignore"):
            rx = np.where((mean > 0) & (lam > 0), lam / x, 0.0)
            ry = np.where((mean > 0) & (lam < 1), (1 - lam) / y, 0.0)
        var = mean**2 * np.maximum(rx**2 * v[:, 0] + ry**2 * v[:, 1] + 2 * rx * ry * (0.0 if c is None else c), 0.0)
        return mean, np.where(np.isfinite(var), var, 0.0)

    # ------------------------------------------------------------------ posterior draws
    def draws(self, scope: str, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` posterior draws of the dataset-level metric in ``scope``."""
        if self.prior.kind == "hierarchical":
            return self._draws_hier(scope, n, rng)
        if self.prior.kind == "hierarchical-dirichlet":
            return self._draws_hdir(scope, n, rng)
        if hasattr(self, "rows"):
            return self._to_units(self._draws_grouped(scope, n, rng, self._dirichlet_sampler(rng)))
        return self._combine(self._draws_grouped(scope, n, rng, self._atom_sampler(rng), combine=False))

    def _atoms(self) -> np.ndarray:
        """Per count state, ATOMS equal-probability values of each component of ``g(p)``.

        ``p``-quantiles at the bin midpoints of Beta(alpha0 + s, beta0 + n - s),
        mapped through each payoff's Bernstein polynomial, then shifted and
        scaled so every state's atoms carry its exact posterior mean and variance.
        """
        if not hasattr(self, "_atom_table"):
            t = (np.arange(ATOMS) + 0.5) / ATOMS
            a = self.prior.alpha0 + self.s_u
            b = self.prior.beta0 + (self.n_u - self.s_u)
            p = betaincinv(a[:, None], b[:, None], t[None, :])
            comps = []
            for j in range(self.C.shape[1]):
                x = bernstein_eval(self.C[:, j], p)
                xm, xs = x.mean(axis=1, keepdims=True), x.std(axis=1, keepdims=True)
                target_sd = np.sqrt(self.var_u[:, j : j + 1])
                scale = np.divide(target_sd, xs, out=np.zeros_like(xs), where=xs > 0)
                x = self.mean_u[:, j : j + 1] + (x - xm) * scale
                comps.append(np.clip(x, self.C[:, j].min(), self.C[:, j].max()))
            self._atom_table = np.stack(comps, axis=-1)  # (U, ATOMS, m)
        return self._atom_table

    def _atom_sampler(self, rng):
        table = self._atoms()

        def sample(u: int, n: int, f: int) -> np.ndarray:
            return table[u][rng.integers(0, ATOMS, size=(n, f))]  # (n, f, m)

        return sample

    def _dirichlet_sampler(self, rng):
        nu, k, kind = self.rows.nu, self.spec.k, self.spec.kind
        levels, u = self.rows.levels, self.rows.u
        inverse = np.searchsorted(levels, u)

        def sample(unit: int, n: int, f: int) -> np.ndarray:
            g = rng.standard_gamma(nu[unit], size=(n, f, nu.shape[1]))
            theta = g / g.sum(axis=-1, keepdims=True)
            if kind != "max":
                return (theta @ u)[..., None]
            per_level = np.zeros(theta.shape[:-1] + (levels.size,))
            for c, lev in enumerate(inverse.tolist()):
                per_level[..., lev] += theta[..., c]
            A = np.cumsum(per_level, axis=-1)[..., :-1]
            return (levels[-1] - (A**k) @ np.diff(levels))[..., None]

        return sample

    def _draws_grouped(self, scope, n, rng, sample, combine=True):
        """Sum (benchmark) or Bayesian-bootstrap-weight (population) per-question draws, state by state."""
        M, m = self.M, self.mean_u.shape[1]
        total = np.zeros((n, m))
        weight = np.zeros(n)
        for u, f in enumerate(self.freq.astype(np.int64).tolist()):
            mu, v = self.mean_u[u], self.var_u[u]
            cov = np.diag(v) if m == 1 else np.array([[v[0], self.cov_u[u]], [self.cov_u[u], v[1]]])
            if f <= EXACT_GROUP:
                x = sample(u, n, f)  # (n, f, m)
                if scope == "benchmark":
                    total += x.sum(axis=1)
                else:
                    e = rng.standard_exponential(size=(n, f))
                    total += np.einsum("nf,nfm->nm", e, x)
                    weight += e.sum(axis=1)
            else:
                z = _mvnormal(rng, n, cov)
                if scope == "benchmark":
                    total += f * mu + math.sqrt(f) * z
                else:
                    B = rng.standard_gamma(f, size=n)
                    # given the group's total weight B, its weights are B * Dirichlet(1..1):
                    # sum W_i X_i ~ B * (mu + N(0, 2 cov / (f + 1)))
                    total += B[:, None] * (mu + math.sqrt(2.0 / (f + 1)) * z)
                    weight += B
        out = total / M if scope == "benchmark" else total / weight[:, None]
        return self._combine(out) if combine else out

    def _draws_hier(self, scope, n, rng):
        g, a_draw, b_draw = self.hier.sample(rng, n)
        if scope == "population":
            pm, _, _ = moments_rows(np.zeros(n, np.int64), np.zeros(n, np.int64), a_draw, b_draw, self.C)
            return self._combine(pm)
        M, m = self.M, self.C.shape[1]
        total = np.zeros((n, m))
        for u, f in enumerate(self.freq.astype(np.int64).tolist()):
            if f <= EXACT_GROUP:
                a = a_draw[:, None] + self.s_u[u]
                b = b_draw[:, None] + (self.n_u[u] - self.s_u[u])
                p = rng.beta(np.broadcast_to(a, (n, f)), np.broadcast_to(b, (n, f)))
                total += np.stack([bernstein_eval(self.C[:, j], p).sum(axis=1) for j in range(m)], axis=-1)
            else:
                mu = self.mean_gu[g, u]  # (n, m) at the tabulated grid point
                v = self.var_gu[g, u]
                z = rng.standard_normal((n, m))
                if m == 2:
                    rho = np.divide(self.cov_gu[g, u], np.sqrt(v[:, 0] * v[:, 1]),
                                    out=np.zeros(n), where=v[:, 0] * v[:, 1] > 0)
                    z[:, 1] = rho * z[:, 0] + np.sqrt(np.maximum(1 - rho**2, 0.0)) * z[:, 1]
                total += f * mu + np.sqrt(f * v) * z
        return self._combine(total / M)

    # ------------------------------------------------------------------ intervals
    def single_question_exact(self, level: float, method: str):
        """Exact interval without draws for one question, an independent Beta prior and a monotone payoff."""
        if self.M != 1 or self.prior.kind != "beta" or self.spec.kind == "geospectrum" or hasattr(self, "rows"):
            return None
        c = self.C[:, 0]
        if not (np.diff(c) >= 0).all():
            return None
        a = self.prior.alpha0 + float(self.s_u[0])
        b = self.prior.beta0 + float(self.n_u[0] - self.s_u[0])
        g = lambda q: float(bernstein_eval(c, np.array([betaincinv(a, b, q)]))[0])  # noqa: E731
        if method == "exact":
            return g((1 - level) / 2), g((1 + level) / 2)
        from scipy.optimize import minimize_scalar

        res = minimize_scalar(lambda t: g(t + level) - g(t), bounds=(0.0, 1.0 - level), method="bounded",
                              options={"xatol": 1e-10})
        t = float(res.x)
        return g(t), g(t + level)


def _mvnormal(rng, n: int, cov: np.ndarray) -> np.ndarray:
    """Normal draws with a (possibly singular) 1x1 or 2x2 covariance."""
    m = cov.shape[0]
    z = rng.standard_normal((n, m))
    if m == 1:
        return z * math.sqrt(max(cov[0, 0], 0.0))
    vals, vecs = np.linalg.eigh(cov)
    return z @ (vecs * np.sqrt(np.maximum(vals, 0.0))).T


def interval_from_draws(x: np.ndarray, level: float, method: str) -> tuple[float, float]:
    """Central (``exact``) or shortest (``hdi``) interval holding ``level`` of the draws."""
    if method == "exact":
        lo, hi = np.quantile(x, [(1 - level) / 2, (1 + level) / 2])
        return float(lo), float(hi)
    s = np.sort(x)
    width = int(math.ceil(level * s.size))
    if width >= s.size:
        return float(s[0]), float(s[-1])
    spans = s[width:] - s[: s.size - width]
    i = int(np.argmin(spans))
    return float(s[i]), float(s[i + width])


def build(R: Any, metric: Any, *, prior=None, alpha0=None, beta0=None, w=None, R0=None, **metric_params) -> Posterior:
    """Parse the metric and prior, count ``R`` once, and build the :class:`Posterior`."""
    if isinstance(metric, MetricSpec):
        spec = metric
    else:
        spec = parse(metric, **metric_params)
    w = spec.params.get("w", w)
    R0 = spec.params.get("R0", R0)
    if spec.name == "avg@n" and "threshold" in spec.params:
        from ..aisbench import hard_outcomes

        R = hard_outcomes(R, spec.params["threshold"], name="R")
    counts = to_counts(R, w)
    binary_data = w is None and counts.is_binary
    if spec.name == "bayes":
        if prior not in (None, "uniform", "dirichlet") or alpha0 is not None or beta0 is not None:
            raise ValueError("Bayes@N is defined by its Dirichlet(1 + R0) prior; use metric='avg' for other priors")
        pspec = PriorSpec("dirichlet")
    elif spec.kind in ("mean", "max") and not binary_data:
        pspec = resolve_prior(prior, alpha0, beta0, binary=False)
        if prior is None and spec.kind == "mean" and R0 is None:
            pspec = PriorSpec("hierarchical-dirichlet")  # avg / avg@n: pooled across questions by default
        if pspec.kind == "hierarchical-dirichlet" and spec.kind != "mean":
            raise ValueError(f"prior='hierarchical-dirichlet' supports avg / avg@n; "
                             f"{spec.label} uses the Dirichlet prior")
    else:
        pspec = resolve_prior(prior, alpha0, beta0, binary=True)
    if spec.kind == "max" and w is None and pspec.kind != "dirichlet":
        # max@k of 0/1 outcomes is pass@k: computed as such, still labelled as asked
        spec = MetricSpec("max@k", {"k": spec.k}, "bernstein", parse("pass@k", k=spec.k).coefficients)
    if pspec.kind == "dirichlet" and spec.kind == "mean" and binary_data and spec.name != "bayes":
        pspec = PriorSpec("beta", 1.0, 1.0)
    if R0 is not None and pspec.kind != "dirichlet":
        raise ValueError("R0 (prior outcomes) applies to the Dirichlet prior of Bayes@N / categorical metrics")
    if pspec.kind == "dirichlet" and spec.kind in ("bernstein", "geospectrum"):
        raise ValueError(f"{spec.label} needs binary outcomes and a Beta or hierarchical prior")
    return Posterior(counts, spec, pspec, w=w, R0=R0)
