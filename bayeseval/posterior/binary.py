r"""What the population models of 0/1 outcomes share: per-question Beta posteriors of the success probability.

Every "@k" metric is the expectation of a payoff on ``X ~ Bin(k, p)``, a Bernstein polynomial
``g(p)``; with ``p_i | data ~ Beta(a_i, b_i)`` the per-question moments of ``g(p_i)`` are closed
forms (:mod:`bayeseval.metrics.engine`), computed once per distinct count state ``(n, s)``.
The models: :class:`~bayeseval.posterior.beta.IndependentBeta` and
:class:`~bayeseval.posterior.hierarchical.HierarchicalBetaPosterior`.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import numpy as np

from ..counts import Counts
from ..metrics import categorical as cat
from ..metrics.engine import batch_points
from ..metrics.reference import _blend1
from ..priors import PriorSpec
from ..targets import MetricSpec
from .base import Posterior, _geo

__all__: list[str] = []


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

    def pool_free_bounds(self, level: float) -> tuple[float, float] | None:
        """Population scope, k > n: bounds on the metric that hold for every pool of questions whose count
        histograms fit these counts (:func:`bayeseval.posterior.identify.pool_free_bounds`); None where the
        metric needs no extrapolation, is a blend (geospectrum), or no pool fits."""
        from .check import count_histograms
        from .identify import pool_free_bounds

        if self.spec.kind in ("mean", "geospectrum") or int(self.counts.n.min()) >= self.spec.k:
            return None
        return pool_free_bounds(count_histograms(self.n_u, self.s_u, self.freq), self.C[:, 0], level)

    # ------------------------------------------------------------------ model checks
    def pool_predictive(self, n: int) -> np.ndarray | None:
        """``P(s | n)``, ``s = 0..n``, for a new question under the fitted pool (None: no pool model)."""
        return None

    pool_name = "population model"
    pool_advice = "prior='robust' (the default) assumes no shape for the pool"

    def _model_checks(self, scope: str, advice: str = "") -> list[str]:
        from .check import count_histograms, histogram_check, ppc_warning

        out = []
        k = self.spec.k if self.spec.kind != "mean" else 1
        if int(self.counts.n.min()) < k:
            out.append(f"{self.spec.label} needs {k} trials per question and some questions have "
                       f"{int(self.counts.n.min())}: there is no unbiased estimate, and the interval extrapolates "
                       f"with the population model (prior={self.prior.label!r}); its coverage rests on that model")
        if self.pool_predictive(1) is None:
            return out
        cache = self.counts.cache()
        key = ("ppc", self.prior.label)
        if key not in cache:
            hist = count_histograms(self.n_u, self.s_u, self.freq)
            checked = sum(int(h.sum()) for h in hist.values())
            cache[key] = (*histogram_check(hist, self.pool_predictive), checked) if hist else (0.0, 1.0, 0)
        dev, p, checked = cache[key]
        text = ppc_warning(self.pool_name, p, dev, self.pool_advice, questions=checked)
        return out + ([text] if text else [])

    # ------------------------------------------------------------------ views for joint posteriors
    @abstractmethod
    def state_moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(w (G,), mean (G, U), var (G, U))``: per hyperparameter grid point ``g`` (G = 1 for an
        independent prior) and count state ``u``, the posterior mean and variance of ``g(p)``."""

    def sample_hyper(self, rng: np.random.Generator, n: int):
        """Per draw: the grid point and jittered Beta parameters ``(g, a, b)`` (``a``, ``b`` None when
        the prior is fixed)."""
        return np.zeros(n, dtype=np.int64), None, None

    @abstractmethod
    def state_draws(self, rng: np.random.Generator, states: np.ndarray, hyper, c: int) -> np.ndarray:
        """``(c, len(states))`` draws of ``g(p)`` (first payoff column) for questions in the given count
        states, given ``c`` draws ``hyper = (g, a, b)`` of :meth:`sample_hyper` (``a``, ``b`` None for a
        fixed prior)."""

    def base_measure(self) -> tuple[float, float]:
        """Beta parameters of a neutral prior pseudo-question: the uniform Beta(1, 1)."""
        return 1.0, 1.0
