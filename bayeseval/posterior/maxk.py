r"""max@k of scored categories (grades with weights ``w``), centred at the unbiased estimate: the default.

Per question ``i`` the unbiased max@k ``ghat_i`` (the expected best weight of ``k`` of its ``n_i`` trials, drawn
without replacement; Bagirov et al. 2025, arXiv:2510.23393) lies in ``[min w, max w]``; the metric is their
average.  As for continuous scores (:mod:`bayeseval.posterior.scores`), no shape is assumed for the questions'
category probabilities or for the pool:

* **Population scope**: the Dirichlet-process posterior over questions of the ``ghat_i`` (one pseudo-question
  uniform on the range), studentized for the spread estimated from M questions.
* **Benchmark scope**: ``theta_B = ghat - e`` with the estimator's error ``e = (1/M) sum_i e_i``, ``Var(e_i)``
  estimated per question by the jackknife over its trials (:func:`~bayeseval.metrics.categorical.
  max_row_jackknife`), whose expectation is at least the true variance for any category probabilities (Efron &
  Stein 1981, Ann. Statist. 9(3)), with ``n_i - 1`` degrees of freedom; questions with exactly ``k`` trials (no
  trial to leave out) take the across-question variance of their values shrunk toward the Bhatia-Davis bound,
  as questions with one trial do for scores.  A t interval with Welch-Satterthwaite degrees of freedom.

The independent Dirichlet(1) posterior (``prior="dirichlet"``, the reference's :func:`bayeseval.scorio.
max_at_k_ci`) is centred at its posterior mean, which the prior's pseudo-trials pull towards the unweighted
mean of ``w``: on 100 questions x 16 trials its benchmark interval excluded the unbiased value and covered the
truth in 22% of replicates (``tests/test_max_at_k.py``).

>>> import numpy as np
>>> from bayeseval.posterior import build
>>> G = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2], [2, 2, 2, 1, 2]])
>>> post = build(G, "max@2", w=[0, 0.5, 1])
>>> type(post).__name__, round(post.value(), 4)  # (0.85 + 0.85 + 1) / 3
('MaxAtKPosterior', 0.9)
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
from .scores import ScorePosterior

__all__ = ["MaxAtKPosterior"]

MAX_SPAN = 1e100  # weights spanning more than this: their error variance (units squared) would leave double range


class MaxAtKPosterior(ScorePosterior):
    """max@k of scored categories with ``k <= n_i`` on every question; see the module docstring."""

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        Posterior.__init__(self, counts, spec, prior)
        wv = V.weights(w)
        rows = cat.posterior_rows(counts, wv, None)
        if rows.scale > MAX_SPAN:  # its square, the error variance's unit, would overflow a double
            raise ValueError(f"w: max@k's interval is computed in the weights' units, and weights that span "
                             f"{rows.scale:.3g} overflow its error variance (at most {MAX_SPAN:g}); rescale w (max@k "
                             "is affine in w: divide w, then multiply the estimate and interval back)")
        to_units = rows.offset + rows.scale * cat.max_row_points(rows, spec.k)
        jack, n = cat.max_row_jackknife(rows, spec.k)
        freq = rows.freq.astype(np.int64)
        # per question, in the rows' order (the order of the questions does not enter the posterior)
        self._x = np.repeat(to_units, freq)
        self._jack = np.repeat(jack * rows.scale**2, freq)
        self._n = np.repeat(n, freq)
        self.freq = np.ones(self._x.size)
        lo, hi = float(wv.min()), float(wv.max())
        self.range = (lo, hi)
        self.C = np.array([[lo], [hi]])

    def _error_parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The jackknife variances with ``n_i - 1`` degrees of freedom; the values of the questions with ``k``
        trials, which have none."""
        many = self._n > self.spec.k
        return self._jack[many], (self._n[many] - 1).astype(np.float64), self._x[~many]

    @property
    def one_trial(self) -> bool:
        """Every question has exactly ``k`` trials: its estimate is the best of all of them, and how much that
        varies cannot be told from how much questions differ (the benchmark scope is the population scope's)."""
        return bool(np.all(self._n <= self.spec.k))

    def _model_checks(self, scope: str, advice: str = "") -> list[str]:
        if scope != "benchmark":
            return []
        k = self.spec.k
        if self.one_trial:
            return [f"every question has exactly {k} trials: how much its best of {k} varies cannot be told from "
                    "how much questions differ, so the benchmark-scope interval is the population scope's (wider)"]
        out = []
        if np.any(self._n <= k):
            out.append(f"some questions have exactly {k} trials: their error is taken from the spread of their values "
                       "across questions, shrunk toward the widest case")
        many = self._n > k
        if many.any() and not np.any(self._jack[many] > (1e-9 * (self.range[1] - self.range[0])) ** 2):
            out.append("every question got the same grade on each of its trials, so the benchmark-scope interval has "
                       "no width from them: it holds only if each question's grade is fixed (deterministic "
                       "decoding); the population scope does not rest on that")
        return out
