r"""Independent Dirichlet priors for categorical outcomes: Bayes@N, categorical ``avg`` with
``prior="dirichlet"``, and ``max@k``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..counts import Counts
from ..metrics import categorical as cat
from ..priors import PriorSpec
from ..targets import MetricSpec
from .categorical import _CategoricalPosterior

__all__ = ["DirichletPosterior"]


class DirichletPosterior(_CategoricalPosterior):
    r"""``p_i ~ Dirichlet(1 + R0_i)`` independently, so ``p_i | x_i ~ Dirichlet(x_i + 1 + R0_i)``.

    Per question the score ``p_i . w`` (avg, Bayes@N) or ``max@k`` has closed-form moments; the dataset
    level follows as for any independent prior (benchmark: the average; population: the Bayesian
    bootstrap over questions).  Draws: exact Dirichlet draws per distinct row.
    Reference: Bayes@N, Hariri et al. (2026), arXiv:2510.04265.
    """

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        super().__init__(counts, spec, prior, w=w, R0=R0)
        if spec.kind == "max":
            mean_r, var_r = cat.max_rows(self.rows, spec.k)
        else:
            mean_r, var_r, _ = cat.bayes_rows(self.rows.nu, self.rows.u)
        self._set_moments(mean_r, var_r)

    def _moments(self, scope: str) -> tuple[float, float]:
        return self._independent_moments(scope)

    def draws(self, scope: str, n: int, rng: np.random.Generator) -> np.ndarray:
        return self._to_units(self._draws_grouped(scope, n, rng, self._dirichlet_sampler(rng)))

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
