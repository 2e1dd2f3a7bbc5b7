r"""The pooled (hierarchical) Beta-binomial model for 0/1 outcomes (``prior="hierarchical"``, the default)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..counts import Counts
from ..metrics.engine import bernstein_eval, means_rows, moments_rows
from ..priors import HierarchicalBeta, PriorSpec
from ..targets import MetricSpec
from .base import EXACT_GROUP
from .binary import _BinaryPosterior

__all__ = ["HierarchicalBetaPosterior"]


class HierarchicalBetaPosterior(_BinaryPosterior):
    r"""``p_i ~ Beta(mu kappa, (1 - mu) kappa)``, ``mu ~ U(0, 1)``, ``log kappa ~ U(log 0.01, log 1e6)``.

    The hyperposterior of ``(mu, kappa)`` lives on an adaptive grid (:class:`bayeseval.priors.HierarchicalBeta`;
    one fit per outcome set, cached on its :class:`~bayeseval.Counts` and shared by every metric); per grid
    point the questions' posteriors are ``Beta(mu kappa + s_i, (1 - mu) kappa + n_i - s_i)``.  Population
    scope: the posterior of :math:`E_{p\sim\mathrm{Beta}(\mu\kappa,(1-\mu)\kappa)}[g(p)]`, the mean metric
    of a new question from the fitted population.
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
            pm = means_rows(np.zeros(n, np.int64), np.zeros(n, np.int64), a_draw, b_draw, self.C)
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

    pool_name = "Beta pool of prior='hierarchical'"
    pool_advice = ("a single Beta cannot describe this pool of questions (clusters, a U shape); its intervals can "
                   "undercover: use prior='robust' (the default)")

    def pool_predictive(self, n: int) -> np.ndarray:
        """Beta-binomial predictive averaged over the hyperparameter grid posterior."""
        from scipy.stats import betabinom

        s = np.arange(n + 1)
        return self.hier.w @ betabinom.pmf(s[None, :], n, self.hier.a[:, None], self.hier.b[:, None])

    def state_moments(self):
        return self.hier.w, self.mean_gu[..., 0], self.var_gu[..., 0]

    def sample_hyper(self, rng: np.random.Generator, n: int):
        return self.hier.sample(rng, n)

    def state_draws(self, rng: np.random.Generator, states: np.ndarray, hyper, c: int) -> np.ndarray:
        _, a, b = hyper
        s = self.s_u[states][None, :]
        f = (self.n_u - self.s_u)[states][None, :]
        p = rng.beta(a[:, None] + s, b[:, None] + f)
        return bernstein_eval(self.C[:, 0], p)
