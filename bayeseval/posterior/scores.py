r"""The mean of bounded continuous scores (token F1, BLEU, judge probabilities, partial credit).

Per question ``i`` the trials are scores ``y_ij`` in ``[lo, hi]`` with an unknown distribution whose mean
``mu_i`` is the question's expected score; the metric is their average, ``theta_B = (1/M) sum_i mu_i``
over these questions (benchmark scope) or ``E[mu]`` over the pool of questions (population scope).  No
shape is assumed for the scores or the pool; both scopes are centred at the unbiased estimate
``ybar = (1/M) sum_i ybar_i``.

* **Population scope**: the Dirichlet-process posterior over questions (Ferguson 1973; Rubin's Bayesian
  bootstrap plus one prior pseudo-question uniform on ``[lo, hi]``) of the per-question means, exactly as
  for 0/1 outcomes (:mod:`bayeseval.posterior.robust`): ``theta = (sum_i G_i ybar_i + G_0 Y) / (sum_i G_i
  + G_0)``, ``G_i ~ Exp(1)``, ``G_0 ~ Gamma(1)``, ``Y ~ U(lo, hi)``; mean and variance in closed form
  (:func:`~bayeseval.posterior.bootstrap.dp_moments`), draws for the exact interval; both studentized for the
  spread estimated from M questions (:func:`~bayeseval.posterior.bootstrap.studentize`: Student-t with
  M - 1 degrees of freedom).
* **Benchmark scope**: ``theta_B = ybar - e``, ``e = (1/M) sum_i e_i`` the estimator's error, independent
  across questions with ``Var(e_i) = sigma_i^2 / n_i``.  ``sum_i sigma_i^2 / n_i`` is estimated without
  bias by ``sum_i s_i^2 / n_i`` over questions with ``n_i >= 2`` (``s_i^2`` the within-question sample
  variance).  One trial cannot show ``sigma_i^2``: with one trial per question the benchmark scope is the
  population scope; where only some questions have one trial, they take the across-question variance of
  their scores (it estimates ``Var(mu) + E[sigma^2]``), shrunk toward the Bhatia-Davis bound
  ``sigma^2 <= (hi - mu)(mu - lo)`` by one pseudo-question so that it is never 0.  The
  interval is a t interval over questions with Welch-Satterthwaite degrees of freedom (few questions
  whose scores vary give few degrees of freedom and a wider interval), clipped to the range.

References: Ferguson (1973), Ann. Stat. 1(2); Rubin (1981), Ann. Stat. 9(1); Bhatia & Davis (2000),
Amer. Math. Monthly 107(4) (variance of a bounded variable); Satterthwaite (1946), Biometrics Bull. 2(6);
Miller (2024), arXiv:2411.00640.  Coverage: ``benchmarks/results_coverage_scores.md``.

>>> import numpy as np
>>> from bayeseval.scores import to_scores
>>> from bayeseval.posterior import build
>>> post = build(to_scores([[0.5, 1.0], [0.0, 0.25], [0.75, 0.75]]), "avg")
>>> # scale = sqrt(0.125 / 2 + 0.03125 / 2 + 0 / 2) / 3: the within-question variances over n, summed; two
>>> # questions that vary, 1 degree of freedom each, give df = 0.0781^2 / (0.0625^2 + 0.0156^2) = 1.47
>>> # (Welch-Satterthwaite): a t with no finite sd, so the sd is the largest any law on [0, 1] with this mean
>>> # has, sqrt(0.5417 * 0.4583)
>>> round(post.value(), 4), [round(v, 4) for v in post.moments("benchmark")], round(post.error_model()[1], 2)
(0.5417, [0.5417, 0.4983], 1.47)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..priors import PriorSpec
from ..scores import Scores
from ..targets import MetricSpec
from .base import Posterior
from .bootstrap import DP_CONCENTRATION, dp_draws_studentized, dp_moments, studentized_factor, widest_sd

__all__ = ["ScorePosterior"]


class ScorePosterior(Posterior):
    """Mean score of bounded continuous outcomes; see the module docstring."""

    binary_model = False
    extrapolated = False

    def __init__(self, counts: Scores, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        super().__init__(counts, spec, prior)
        self.freq = np.ones(counts.M)
        lo, hi = counts.lo, counts.hi
        self.range = (lo, hi)
        self.C = np.array([[lo], [hi]])  # the pseudo-question Y = lo + (hi - lo) q, q ~ U(0, 1)
        self._x = counts.means

    # ------------------------------------------------------------------ the interface
    def value(self) -> float:
        return float(self._x.mean())

    def state_scores(self) -> np.ndarray:
        return self._x

    def base_measure(self) -> tuple[float, float]:
        """The pseudo-question's ``q ~ Beta(1, 1)``: uniform on the score range."""
        return 1.0, 1.0

    def _pseudo(self) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.range
        return np.array([(lo + hi) / 2.0]), np.array([[(lo * lo + lo * hi + hi * hi) / 3.0]])

    def error_var(self) -> float:
        """``sum_i Var(e_i)`` (module docstring); see :meth:`error_model`."""
        return self.error_model()[0]

    def error_model(self) -> tuple[float, float]:
        """``(sum_i Var(e_i), degrees of freedom)``.  Questions with ``n_i >= 2``: ``s_i^2 / n_i``, unbiased,
        ``n_i - 1`` degrees of freedom each.  Questions with one trial: their spread cannot be split into
        within- and between-question parts, so they take the across-question sample variance of their scores,
        ``M_1 s_1^2`` (it estimates ``Var(mu) + E[sigma^2] >= E[sigma^2]``: conservative on average; ``M_1 - 1``
        degrees of freedom), or the Bhatia-Davis bound when only one question has one trial.  The degrees of
        freedom of the sum are Welch-Satterthwaite's, ``(sum_j V_j)^2 / sum_j V_j^2 / d_j``: with few
        questions whose scores vary, the interval uses a t quantile with that many degrees of freedom instead
        of the normal one (otherwise it covers 76-91% when one or two questions vary, M = 15-30).  With exactly
        one varying question it is a one-sample t interval on that question's trials, as good as the t is for
        them: 86-88% with 2-4 skewed (Beta) trials, 95% from two varying questions on (docs/scores.md)."""
        parts, dfs, one = self._error_parts()
        total = float(parts.sum())
        unit = float(parts.max()) if parts.size and parts.max() > 0 else 1.0  # squares taken in its units
        denom = float(np.sum((parts / unit) ** 2 / dfs))
        M1 = int(one.size)
        if M1:
            lo, hi = self.range
            S = float(np.sum((one - lo) / (hi - lo))) if hi > lo else 0.0  # max@k of equal weights: no spread
            a, b = 1.0 + S, 1.0 + M1 - S
            bound = (hi - lo) ** 2 * a * b / ((a + b) * (a + b + 1.0))  # Bhatia-Davis, at the group's mean
            # the group's across-question variance, shrunk toward the bound by one pseudo-question: never 0
            # (20 equal scores at the top of the range would otherwise give a zero-width interval)
            var = ((M1 - 1) * float(np.var(one, ddof=1)) + bound) / M1 if M1 >= 2 else bound
            total += M1 * var
            if M1 >= 2:
                denom += (M1 * var / unit) ** 2 / (M1 - 1)
        df = (total / unit) ** 2 / denom if denom > 0 else math.inf
        return total, df

    def _error_parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(Var(e_i) estimates, their degrees of freedom, scores of the questions with none)``: ``s_i^2 / n_i``
        with ``n_i - 1`` over questions with two trials or more; the questions with one trial by their score."""
        c = self.counts
        many = c.n >= 2
        return c.within_var()[many] / c.n[many], (c.n[many] - 1).astype(np.float64), c.total[~many]

    @property
    def one_trial(self) -> bool:
        """Every question has one trial: within- and between-question spread cannot be told apart, so the
        benchmark scope is the population scope (its spread bounds the benchmark error on average, and its
        pseudo-question keeps a run of equal scores from looking certain)."""
        return int(self.counts.n.max()) == 1

    def _moments(self, scope: str) -> tuple[float, float]:
        if scope == "population" or self.one_trial:  # studentized (bootstrap.studentize)
            mu, second = self._pseudo()
            mean, cov = dp_moments(self._x[:, None], self.freq, mu, second, DP_CONCENTRATION)
            factor = studentized_factor(self.M)
            if factor is None:  # three questions or fewer: a t posterior with no variance; the range bounds it
                return widest_sd(float(mean[0]), self.range)
            return float(mean[0]), float(math.sqrt(max(factor * cov[0, 0], 0.0)))
        scale, df = self._benchmark_t()
        widest = widest_sd(self.value(), self.range)[1]  # no law on the range has a larger sd
        if df is None:
            return self.value(), min(scale, widest)
        # the t posterior's sd, scale * sqrt(df / (df - 2)); with df <= 2 it has none: the range bounds it
        return self.value(), min(scale * math.sqrt(df / (df - 2.0)), widest) if df > 2 else widest

    def _benchmark_t(self) -> tuple[float, float | None]:
        """The benchmark scope's law, ``value - scale * T``: ``(scale, degrees of freedom)``, None for a normal
        (infinite or above a million degrees of freedom); one rule for its moments, draws and closed interval."""
        total, df = self.error_model()
        return math.sqrt(total) / self.M, (None if not math.isfinite(df) or df > 1e6 else df)

    def closed_interval(self, scope: str, level: float, method: str):
        """Benchmark scope (two trials or more somewhere): the t law :meth:`draws` samples, clipped to the range,
        has the clipped t quantiles, so the equal-tailed interval needs no draws (4,000 of them put its lower end
        about two Monte-Carlo errors low, always the same way, with the fixed default seed)."""
        if method != "exact" or scope == "population" or self.one_trial:
            return None
        from scipy import stats

        scale, df = self._benchmark_t()
        tail = (1.0 - level) / 2.0
        q = stats.norm.isf(tail) if df is None else stats.t.isf(tail, df)
        lo, hi = self.range
        return max(lo, self.value() - scale * q), min(hi, self.value() + scale * q)

    def draws(self, scope: str, n: int, rng: np.random.Generator) -> np.ndarray:
        lo, hi = self.range
        if scope == "population" or self.one_trial:
            y = lo + (hi - lo) * rng.random((n, 1))
            # the questions' scores in sorted order (equal ones together), as the count states are: the draws of a
            # seed do not depend on the order the questions came in (a file read by another engine, sorted)
            rows, freq = np.unique(self._x, return_counts=True)
            return np.clip(dp_draws_studentized(rows[:, None], freq.astype(float), y, *self._pseudo(), rng)[:, 0],
                           lo, hi)
        scale, df = self._benchmark_t()  # the t's scale (its sd is larger: _moments)
        z = rng.standard_normal(n) if df is None else rng.standard_t(df, n)
        return np.clip(self.value() + scale * z, lo, hi)

    def _model_checks(self, scope: str, advice: str = "") -> list[str]:
        out = []
        if scope != "benchmark":
            return out
        c = self.counts
        if self.one_trial:
            out.append("one trial per question: how much a question's scores vary cannot be told from how much "
                       "questions differ, so the benchmark-scope interval is the population scope's (wider)")
        elif int(c.n.min()) == 1:
            out.append("one trial for some questions: how much their scores vary cannot be learnt from one trial, "
                       "so those questions take the spread of their scores across questions, shrunk toward the "
                       "widest case, as their error")
        many = c.n >= 2
        tiny = c.n[many] * (1e-9 * (self.range[1] - self.range[0])) ** 2  # rounding of equal scores
        if many.any() and not np.any(c.sq[many] > tiny):
            out.append("every question scored the same on each of its trials, so the benchmark-scope interval has "
                       "no width from them: it holds only if each question's score is fixed (deterministic "
                       "decoding); the population scope does not rest on that")
        return out
