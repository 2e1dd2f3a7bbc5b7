r"""Independent Beta priors for 0/1 outcomes (``prior="uniform"``, ``"jeffreys"`` or ``(alpha0, beta0)``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import betaincinv, ndtri

from ..counts import Counts
from ..metrics.engine import batch_moments, bernstein_eval
from ..priors import PriorSpec
from ..targets import MetricSpec
from .base import ATOMS
from .binary import _BinaryPosterior

__all__ = ["IndependentBeta"]


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

    def state_draws(self, rng: np.random.Generator, states: np.ndarray, hyper, c: int) -> np.ndarray:
        table = self.atoms()[:, :, 0]
        return table[states[None, :], rng.integers(0, ATOMS, size=(c, states.size))]

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
            lost = np.isnan(p).any(axis=1)  # a prior of ~1e154 pseudo-trials: the quantiles leave double precision;
            if lost.any():  # the Beta is a narrow normal there, and the atoms are rescaled to its moments below
                A, Bv = a[lost, None], b[lost, None]
                sd = np.sqrt(A * Bv / ((A + Bv) ** 2 * (A + Bv + 1.0)))
                p[lost] = np.clip(A / (A + Bv) + sd * ndtri(t)[None, :], 0.0, 1.0)
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
