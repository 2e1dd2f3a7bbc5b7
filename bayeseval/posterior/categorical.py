r"""What the population models of categorical outcomes share: Dirichlet posteriors of the category probabilities.

Outcomes are categories ``0..C`` with weights ``w``; question ``i`` has category probabilities ``p_i`` and
its score is ``p_i . w``.  Moments are computed on rescaled weights ``u`` (``w = offset + scale u``,
``|u| <= 1``, so weights like 1e200 give finite answers) once per distinct row of counts, and mapped back.
The models: :class:`~bayeseval.posterior.dirichlet.DirichletPosterior` and
:class:`~bayeseval.posterior.hdirichlet.HierarchicalDirichletPosterior`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import validate as V
from ..counts import Counts
from ..metrics import categorical as cat
from ..priors import PriorSpec
from ..targets import MetricSpec
from .base import Posterior

__all__: list[str] = []


class _CategoricalPosterior(Posterior):
    """Shared by the Dirichlet models: weights, distinct rows, units, point estimates."""

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        super().__init__(counts, spec, prior)
        wv = np.array([0.0, 1.0]) if w is None else V.weights(w)
        if w is None:
            counts.successes(spec.label, weighted=True)
        self.rows = cat.posterior_rows(counts, wv, R0)
        self.freq = self.rows.freq
        self.range = (float(wv.min()), float(wv.max()))
        self.w_vec = wv

    @property
    def _scale(self) -> float:
        return self.rows.scale

    def _to_units(self, x):
        """Categorical moments live on rescaled weights; map back to the score scale."""
        return self.rows.offset + self.rows.scale * x

    def _set_moments(self, mean_r: np.ndarray, var_r: np.ndarray) -> None:
        self.mean_u, self.var_u, self.cov_u = mean_r[:, None], var_r[:, None], None

    def value(self) -> float | None:
        c, spec = self.counts, self.spec
        if spec.name == "bayes":  # Bayes@N is the posterior mean under its Dirichlet(1 + R0) prior
            return self.moments("benchmark")[0]
        if spec.kind == "mean":
            return cat.avg_moments(c, self.w_vec)[0]
        if int(c.n.min()) < spec.k:
            return None
        return cat.max_point(c, self.w_vec, spec.k)

    def state_scores(self) -> np.ndarray | None:
        """Per distinct row: the unbiased per-question estimate (for Bayes@N, each question's Bayes@N)."""
        spec = self.spec
        if spec.name == "bayes":  # per question, its Bayes@N (posterior mean), so that their mean is the value
            return self._to_units(self.mean_u[:, 0])
        if spec.kind == "mean":
            rows = self.rows.nu - 1.0
            return self._to_units((rows @ self.rows.u) / rows.sum(axis=1))
        if int(self.counts.n.min()) < spec.k:
            return None
        return self._to_units(cat.max_row_points(self.rows, spec.k))
