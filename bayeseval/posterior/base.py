r"""The interface every population model implements, and what the models share.

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
  (``E[W_i^2] = 2/(M(M+1))``).  Pooled priors define it through their
  population (see each model's class).

Intervals: ``"normal"`` (mean +- z sd, clipped to the metric's range: what
scorio reports), ``"exact"`` (central quantiles of the posterior itself:
Beta quantiles mapped through ``g`` for a single question, otherwise seeded
posterior draws grouped by distinct counts), ``"hdi"`` (shortest interval of
the same draws).  In draws, the questions sharing one count state are summed
exactly when there are at most 200 of them; a larger group's sum -- of more
than 200 independent, bounded terms -- is drawn from its normal limit with the
exact mean and variance (its skewness is at most 1/14 of one question's).

A population model is one subclass of :class:`Posterior` (``_moments``, ``draws``,
``value``, ``state_scores``) and one line in :data:`bayeseval.posterior.REGISTRY`.

Reference: Miller, "Adding Error Bars to Evals", arXiv:2411.00640 (question-
clustered standard errors); Rubin (1981), "The Bayesian bootstrap", Ann. Stat.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from .._text import pct
from ..counts import Counts
from ..priors import PriorSpec
from ..targets import MetricSpec

__all__ = ["Posterior", "SCOPES", "METHODS", "EXACT_GROUP", "ATOMS", "interval_from_draws"]

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


#: the warning that carries :meth:`Posterior.pool_free_bounds` (population scope, k > n)
POOL_FREE_NOTE = ("without a population model: a {level} confidence interval for {label} that holds for every "
                  "pool of questions (those whose count histograms lie within simultaneous {level} bands of these "
                  "counts) is [{lo:.4g}, {hi:.4g}] (docs/model.md, 'Beyond the trials run')")


class Posterior(ABC):
    """The posterior of one metric on one outcome set under one population model.

    Built once; :meth:`moments`, :meth:`draws` and :meth:`single_question_exact` then answer for
    either scope.  Attributes every model sets: ``counts``, ``spec`` (the metric), ``prior`` (its
    :class:`~bayeseval.priors.PriorSpec`), ``M``, ``freq`` (questions per distinct count state or
    row), ``range`` (the metric's range), ``binary_model`` (per-question Beta posteriors of 0/1
    outcomes, as the paired comparisons need: such models also set the payoff columns ``C`` and
    provide ``state_moments``, ``sample_hyper``, ``state_draws`` and ``base_measure``, see
    :class:`bayeseval.posterior.binary._BinaryPosterior`).
    """

    binary_model = False
    #: the posterior is centred at the unbiased estimate (its interval missing the value is a quantile effect of a
    #: skewed posterior, which the interval mends); a prior that pulls the estimate is not, and says so instead
    centred = False

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        self.counts, self.spec, self.prior = counts, spec, prior
        self.M = counts.M

    # ------------------------------------------------------------------ the interface
    def moments(self, scope: str) -> tuple[float, float]:
        """Posterior mean and sd of the dataset-level metric in ``scope`` (each model's :meth:`_moments`;
        one entry point, so that a wrapper on ``Posterior.moments`` sees every model)."""
        return self._moments(scope)

    @abstractmethod
    def _moments(self, scope: str) -> tuple[float, float]:
        """The model's closed-form mean and sd in ``scope``."""

    @abstractmethod
    def draws(self, scope: str, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` posterior draws of the dataset-level metric in ``scope``."""

    @abstractmethod
    def value(self) -> float | None:
        """The finite-sample estimate (unbiased for the "@k" metrics); None where k > n for some question."""

    @abstractmethod
    def state_scores(self) -> np.ndarray | None:
        """Per count state (or distinct row): the unbiased per-question estimate; None where k > n."""

    def checks(self, scope: str, mean: float, sd: float, value: float | None, advice: str = "",
               level: float | None = None) -> list[str]:
        """Warnings for an estimate in ``scope``: the model check of the fit (:meth:`_model_checks`), a
        posterior mean pulled more than half a posterior sd from the unbiased estimate
        (:mod:`bayeseval.posterior.check`), and in population scope at ``level``, where the metric extrapolates,
        the bounds that rest on no pool model (:meth:`pool_free_bounds`, :data:`POOL_FREE_NOTE`).  ``advice``:
        what the caller can offer where an interval may be too narrow (another interval method), appended to
        that warning."""
        from .check import pull_warning

        out = list(self._model_checks(scope, advice))
        lo, hi = self.range
        if lo == hi:  # all-zero weights, a constant payoff: every answer is worth the same
            out.append(f"every outcome is worth {lo:g} under this metric (its weights or payoff give every category the "
                       f"same value), so the estimate is {lo:g} whatever the answers and its interval has no width; "
                       "check w= (or the payoff vector)")
        pulled = pull_warning(mean, sd, value, self.prior.label, self.M, scope)
        out += [pulled] if pulled else []
        bounds = self.pool_free_bounds(level) if scope == "population" and level is not None else None
        if bounds is not None:
            out.append(POOL_FREE_NOTE.format(level=pct(level), label=self.spec.label, lo=bounds[0],
                                             hi=bounds[1]))
        return out

    def _model_checks(self, scope: str, advice: str = "") -> list[str]:
        """Model-specific checks (none by default); ``advice`` as in :meth:`checks`."""
        return []

    def pool_free_bounds(self, level: float) -> tuple[float, float] | None:
        """Population-scope bounds that rest on no model of the pool, where the metric extrapolates beyond the
        trials run (None by default: no extrapolation, or no such bounds for this model)."""
        return None

    def few_carrying(self, scope: str) -> float | None:
        """How many questions carry the estimate in ``scope`` where the model warns that they are too few for
        its interval (the default interval then widens), else None (the default: no such check)."""
        return None

    def at_range_end(self, scope: str) -> bool:
        """Whether every question scores at the same end of the metric's range in ``scope``, so that no question
        carries the estimate away from it (False by default: no such check)."""
        return False

    def single_question_exact(self, level: float, method: str):
        """An exact interval without draws where the model has one (else None)."""
        return None

    def closed_interval(self, scope: str, level: float, method: str):
        """The equal-tailed (``method="exact"``) interval in ``scope`` from the posterior's quantile function, where
        it has one in closed form (else None: the interval comes from draws)."""
        return None

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
        d = x - xbar
        scale = float(np.max(np.abs(d))) if d.size else 0.0
        if not scale > 0 or not math.isfinite(scale):
            return 0.0 if scale == 0 else None
        # in units of the largest deviation: weights of 1e160 would overflow the squares (inf) otherwise
        return scale * float(math.sqrt(max(f @ (d / scale) ** 2, 0.0) / (M * (M - 1))))

    # ------------------------------------------------------------------ shared machinery
    @property
    def lam(self) -> float:
        return float(self.spec.params.get("lam", 1.0))

    def _combine(self, x: np.ndarray) -> np.ndarray:
        """Dataset-level metric from dataset-level component values (last axis)."""
        if self.spec.kind == "geospectrum":
            return _geo(x[..., 0], x[..., 1], self.lam)
        return x[..., 0]

    def _to_units(self, x):
        """Map moments computed in the model's working units back to the score scale (identity here)."""
        return x

    _scale = 1.0  # sd in the model's working units -> score units

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

    def _independent_moments(self, scope: str) -> tuple[float, float]:
        """Mean and sd from independent per-state moments ``mean_u``, ``var_u`` (and ``cov_u``)."""
        M, f = self.M, self.freq
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
        return float(self._to_units(mean[0])), float(self._scale * math.sqrt(max(var_[0], 0.0)))

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
