r"""Population models for 0/1 outcomes: per-question Beta posteriors of the success probability.

Every "@k" metric is the expectation of a payoff on ``X ~ Bin(k, p)``, a Bernstein polynomial
``g(p)``; with ``p_i | data ~ Beta(a_i, b_i)`` the per-question moments of ``g(p_i)`` are closed
forms (:mod:`bayeseval.metrics.engine`), computed once per distinct count state ``(n, s)``.

* :class:`IndependentBeta` -- ``p_i ~ Beta(alpha0, beta0)`` independently (``prior="uniform"``,
  ``"jeffreys"`` or ``(alpha0, beta0)``; scorio's model).
* :class:`HierarchicalBetaPosterior` -- ``p_i ~ Beta(mu kappa, (1 - mu) kappa)`` with the
  hyperposterior of ``(mu, kappa)`` on a grid (:class:`bayeseval.priors.HierarchicalBeta`);
  population scope: the posterior of ``E_{p ~ Beta(mu kappa, (1-mu) kappa)}[g(p)]``, the mean metric
  of a new question from the fitted population (Gelman et al., *BDA3*, section 5.3).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import betaincinv

from ..counts import Counts
from ..metrics import categorical as cat
from ..metrics.engine import batch_moments, batch_points, bernstein_eval, moments_rows
from ..metrics.reference import _blend1
from ..priors import HierarchicalBeta, PriorSpec
from ..targets import MetricSpec
from .base import ATOMS, EXACT_GROUP, Posterior, _geo

__all__ = ["IndependentBeta", "HierarchicalBetaPosterior"]


class _BinaryPosterior(Posterior):
    """Shared by the Beta models: payoff columns ``C``, count states, point estimates, paired-comparison views."""

    binary_model = True

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        super().__init__(counts, spec, prior)
        counts.successes(spec.label)
        C = spec.coefficients if spec.kind != "mean" else np.array([0.0, 1.0])
        self.C = C[:, None] if C.ndim == 1 else C
        n_u, s_u, freq, _ = counts.binary_states()
        self.n_u, self.s_u, self.freq = n_u, s_u, freq
        self.range = (float(self.C[:, 0].min()), float(self.C[:, 0].max())) if spec.kind != "geospectrum" else (0.0, 1.0)
        self._pairs = [(0, 1)] if self.C.shape[1] == 2 else []

    # ------------------------------------------------------------------ point estimate
    def value(self) -> float | None:
        c, spec = self.counts, self.spec
        if spec.kind == "mean":
            return cat.avg_moments(c, np.array([0.0, 1.0]))[0]
        if int(c.n.min()) < spec.k:
            return None
        ds = self.freq @ batch_points(c, self.C) / self.M
        if spec.kind == "geospectrum":
            return _blend1(ds[0], ds[1], self.lam, 1.0 - self.lam) if 0 < self.lam < 1 else float(ds[0] if self.lam == 1 else ds[1])
        return float(ds[0])

    def state_scores(self) -> np.ndarray | None:
        """Per count state: the unbiased per-question estimate (for GeoSpectrum, the delta-method
        gradient of the blend, so that the mean of the scores moves like the dataset-level estimate)."""
        M, spec, f = self.M, self.spec, self.freq
        if spec.kind == "mean":
            return self.s_u / self.n_u
        if int(self.counts.n.min()) < spec.k:
            return None
        P = batch_points(self.counts, self.C)
        if spec.kind != "geospectrum":
            return P[:, 0]
        ds = f @ P / M
        lam = self.lam
        gx = lam * _geo(ds[:1], ds[1:], lam)[0] / ds[0] if ds[0] > 0 and lam > 0 else 0.0
        gy = (1 - lam) * _geo(ds[:1], ds[1:], lam)[0] / ds[1] if ds[1] > 0 and lam < 1 else 0.0
        return gx * P[:, 0] + gy * P[:, 1]

    # ------------------------------------------------------------------ views for joint posteriors
    def state_moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(w (G,), mean (G, U), var (G, U))``: per hyperparameter grid point ``g`` (G = 1 for an
        independent prior) and count state ``u``, the posterior mean and variance of ``g(p)``."""
        raise NotImplementedError  # pragma: no cover

    def sample_hyper(self, rng: np.random.Generator, n: int):
        """Per draw: the grid point and jittered Beta parameters ``(g, a, b)`` (``a``, ``b`` None when
        the prior is fixed)."""
        return np.zeros(n, dtype=np.int64), None, None

    def base_measure(self) -> tuple[float, float]:
        """Beta parameters of a neutral prior pseudo-question: the uniform Beta(1, 1)."""
        return 1.0, 1.0


class IndependentBeta(_BinaryPosterior):
    r"""``p_i ~ Beta(alpha0, beta0)`` independently, so ``p_i | s_i ~ Beta(alpha0 + s_i, beta0 + n_i - s_i)``.

    Benchmark scope: ``(1/M) sum_i g(p_i)``; population scope: the Bayesian bootstrap over questions of
    each question's posterior (Rubin 1981).  Reference: scorio.eval (Hariri et al. 2026, arXiv:2510.04265).
    """

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        super().__init__(counts, spec, prior)
        mean, var, covs = batch_moments(counts, self.C, self._pairs, prior.alpha0, prior.beta0)
        self.mean_u, self.var_u = mean, var
        self.cov_u = covs[0] if covs else None
        self._atom_table = None

    def _moments(self, scope: str) -> tuple[float, float]:
        return self._independent_moments(scope)

    def draws(self, scope: str, n: int, rng: np.random.Generator) -> np.ndarray:
        return self._combine(self._draws_grouped(scope, n, rng, self._atom_sampler(rng), combine=False))

    def state_moments(self):
        return np.ones(1), self.mean_u[None, :, 0], self.var_u[None, :, 0]

    def base_measure(self) -> tuple[float, float]:
        """The user's own Beta prior."""
        return self.prior.alpha0, self.prior.beta0

    def atoms(self) -> np.ndarray:
        """Per count state, ATOMS equal-probability values of each component of ``g(p)``: ``(U, ATOMS, m)``.

        ``p``-quantiles at the bin midpoints of Beta(alpha0 + s, beta0 + n - s),
        mapped through each payoff's Bernstein polynomial, then shifted and
        scaled so every state's atoms carry its exact posterior mean and variance.
        """
        if self._atom_table is None:
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

    _atoms = atoms  # the name the joint posteriors used before

    def _atom_sampler(self, rng):
        table = self.atoms()

        def sample(u: int, n: int, f: int) -> np.ndarray:
            return table[u][rng.integers(0, ATOMS, size=(n, f))]  # (n, f, m)

        return sample

    def single_question_exact(self, level: float, method: str):
        """Exact interval without draws for one question and a monotone payoff: Beta quantiles through ``g``."""
        if self.M != 1 or self.spec.kind == "geospectrum":
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


class HierarchicalBetaPosterior(_BinaryPosterior):
    r"""``p_i ~ Beta(mu kappa, (1 - mu) kappa)``, ``mu ~ U(0, 1)``, ``log kappa ~ U(log 0.01, log 1e6)``.

    The hyperposterior of ``(mu, kappa)`` lives on an adaptive grid (one fit per outcome set, cached on
    its :class:`~bayeseval.Counts` and shared by every metric); per grid point the questions'
    posteriors are ``Beta(mu kappa + s_i, (1 - mu) kappa + n_i - s_i)``.  Population scope: the
    posterior of ``E_{p ~ Beta(mu kappa, (1 - mu) kappa)}[g(p)]``.
    Reference: Gelman et al., *Bayesian Data Analysis* (3rd ed.), section 5.3.
    """

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        super().__init__(counts, spec, prior)
        cache = counts.cache()
        if "hierarchical" not in cache:  # one fit serves every metric of this outcome set
            cache["hierarchical"] = HierarchicalBeta.fit(counts)
        self.hier = cache["hierarchical"]
        n_u, s_u = self.n_u, self.s_u
        G, U = self.hier.w.size, n_u.size
        mean, var, covs = moments_rows(
            np.tile(n_u, G), np.tile(s_u, G), np.repeat(self.hier.a, U), np.repeat(self.hier.b, U), self.C, self._pairs
        )
        m = self.C.shape[1]
        self.mean_gu, self.var_gu = mean.reshape(G, U, m), var.reshape(G, U, m)
        self.cov_gu = covs[0].reshape(G, U) if covs else None
        pm, pv, pc = moments_rows(np.zeros(G, np.int64), np.zeros(G, np.int64), self.hier.a, self.hier.b, self.C,
                                  self._pairs)
        self.pop_g = pm  # E[g(p)] for p ~ Beta(a_g, b_g): the pool's mean metric at each grid point

    def _moments(self, scope: str) -> tuple[float, float]:
        M, f = self.M, self.freq
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

    def draws(self, scope: str, n: int, rng: np.random.Generator) -> np.ndarray:
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

    def state_moments(self):
        return self.hier.w, self.mean_gu[..., 0], self.var_gu[..., 0]

    def sample_hyper(self, rng: np.random.Generator, n: int):
        return self.hier.sample(rng, n)
