r"""The pooled Dirichlet model for categorical outcomes (``prior="hierarchical-dirichlet"``, the default
for categorical ``avg``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..counts import Counts
from ..priors import HierarchicalDirichlet, PriorSpec
from ..targets import MetricSpec
from .base import EXACT_GROUP
from .categorical import _CategoricalPosterior

__all__ = ["HierarchicalDirichletPosterior"]


class HierarchicalDirichletPosterior(_CategoricalPosterior):
    r"""The pooled prior ``p_i | s, m ~ Dirichlet(s m)``, ``s`` on a grid and ``m | s ~ Dirichlet(B m_hat)``
    around Minka's fixed point (:class:`bayeseval.priors.HierarchicalDirichlet`; one fit per outcome set
    and weight vector, cached on its :class:`~bayeseval.Counts` and shared by every metric).

    Benchmark scope: the average of the questions' ``Dirichlet(x_i + s m)`` posteriors, which share the
    uncertain pool mean ``m``.  Population scope: the Bayesian bootstrap of each question's unbiased
    estimate plus its posterior noise, or the pool's own ``m . w`` where that is wider (see
    :meth:`_population_hdir`).
    References: Minka (2000), "Estimating a Dirichlet distribution"; Teh et al. (2006),
    "Hierarchical Dirichlet processes", JASA.
    """

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        super().__init__(counts, spec, prior, w=w, R0=R0)
        key = ("hierarchical-dirichlet", self.w_vec.tobytes())
        cache = counts.cache()
        if key not in cache:  # one fit per outcome set and weight vector
            cache[key] = HierarchicalDirichlet.fit(self.rows.nu - 1.0, self.freq, self.rows.u)
        self.hdir = cache[key]
        self._pop_hdir = None  # (basis, mean, var) of the population scope, computed on first use
        self._hdir_setup()
        self._set_moments(self.hdir_mean_r, self.hdir_var_r)

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
        if self._pop_hdir is None:
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

    def _moments(self, scope: str) -> tuple[float, float]:
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

    def draws(self, scope: str, n: int, rng: np.random.Generator) -> np.ndarray:
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
