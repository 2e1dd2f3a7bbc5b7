r"""Priors for the per-question success probabilities, including a hierarchical (pooled) one.

``prior=`` in :func:`bayeseval.estimate` accepts

* ``"hierarchical"`` (the default for binary outcomes): questions share a
  population, ``p_i ~ Beta(mu kappa, (1 - mu) kappa)``, with hyperprior
  ``mu ~ Uniform(0, 1)`` and ``log kappa ~ Uniform(log 0.01, log 1e6)``.  The
  posterior over ``(mu, kappa)`` is computed on an adaptive two-stage grid in
  ``(logit mu, log kappa)`` from the beta-binomial likelihood of the counts,
  so hyperparameter uncertainty is integrated, not plugged in.  (Empirical
  Bayes plug-in estimates understate uncertainty badly when questions have few
  trials; see the coverage study in the README.)
* ``"uniform"`` -- Beta(1, 1) per question, independently (scorio's default);
* ``"jeffreys"`` -- Beta(1/2, 1/2);
* ``(alpha0, beta0)`` -- any Beta prior;
* for categorical outcomes, the Dirichlet(1 + prior outcomes ``R0``) of Bayes@N.

Reference for the hierarchical Beta-binomial and grid computation: Gelman et
al., *Bayesian Data Analysis* (3rd ed.), section 5.3.

>>> import numpy as np
>>> from bayeseval.counts import to_counts
>>> fit = HierarchicalBeta.fit(to_counts(np.array([[1, 0, 1, 1]] * 20 + [[0, 0, 0, 1]] * 20)))
>>> round(fit.mean_mu, 2)
0.5
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import betaln, expit

from . import validate as V
from .counts import Counts

__all__ = ["PriorSpec", "resolve_prior", "HierarchicalBeta"]

LOGIT_MU = (-12.0, 12.0)
LOG_KAPPA = (np.log(0.01), np.log(1e6))


@dataclass(frozen=True)
class PriorSpec:
    """``kind`` is ``"beta"`` (independent Beta(alpha0, beta0)), ``"hierarchical"`` or ``"dirichlet"``."""

    kind: str
    alpha0: float = 1.0
    beta0: float = 1.0

    @property
    def label(self) -> str:
        if self.kind == "beta":
            names = {(1.0, 1.0): "uniform", (0.5, 0.5): "jeffreys"}
            return names.get((self.alpha0, self.beta0), f"beta({self.alpha0:g}, {self.beta0:g})")
        return self.kind


def resolve_prior(prior: Any, alpha0: Any, beta0: Any, *, binary: bool) -> PriorSpec:
    """Validate ``prior`` / ``alpha0`` / ``beta0`` into a :class:`PriorSpec`."""
    if alpha0 is not None or beta0 is not None:
        if prior not in (None, "beta"):
            raise ValueError("give either prior= or alpha0=/beta0=, not both")
        a, b = V.beta_prior(1.0 if alpha0 is None else alpha0, 1.0 if beta0 is None else beta0)
        if not binary:
            raise ValueError("alpha0/beta0 set a Beta prior for binary outcomes; categorical outcomes use R0")
        return PriorSpec("beta", a, b)
    if prior is None:
        return PriorSpec("hierarchical") if binary else PriorSpec("dirichlet")
    if isinstance(prior, str):
        key = prior.strip().lower()
        if key in ("hierarchical", "pooled"):
            if not binary:
                raise ValueError("prior='hierarchical' needs binary outcomes; categorical outcomes use the Dirichlet prior")
            return PriorSpec("hierarchical")
        if key in ("uniform", "bayes", "laplace"):
            return PriorSpec("beta", 1.0, 1.0) if binary else PriorSpec("dirichlet")
        if key == "jeffreys":
            if not binary:
                raise ValueError("prior='jeffreys' needs binary outcomes")
            return PriorSpec("beta", 0.5, 0.5)
        if key == "dirichlet":
            return PriorSpec("dirichlet")
        raise ValueError(f"prior must be 'hierarchical', 'uniform', 'jeffreys' or (alpha0, beta0), got {prior!r}")
    if hasattr(prior, "__len__") and len(prior) == 2 and not isinstance(prior, (bytes, str)):
        if not binary:
            raise ValueError("a (alpha0, beta0) prior needs binary outcomes; categorical outcomes use R0")
        a, b = V.beta_prior(prior[0], prior[1])
        return PriorSpec("beta", a, b)
    raise V.InputTypeError(f"prior must be a name or a pair (alpha0, beta0), got {V.describe(prior)}")


def _cells(lo: float, hi: float, n: int) -> tuple[np.ndarray, float]:
    """Centres of ``n`` equal cells tiling ``[lo, hi]`` (midpoint rule) and the cell width."""
    h = (hi - lo) / n
    return lo + (np.arange(n) + 0.5) * h, h


def _grid(lm: np.ndarray, lk: np.ndarray):
    LM, LK = np.meshgrid(lm, lk, indexing="ij")
    mu = expit(LM.ravel())
    kappa = np.exp(LK.ravel())
    return LM.ravel(), LK.ravel(), mu * kappa, (1.0 - mu) * kappa, mu


def _log_posterior(a, b, mu, n, s, freq):
    """Beta-binomial log likelihood of the count states plus the log hyperprior density.

    In (logit mu, log kappa) coordinates a uniform mu has density mu (1 - mu)
    and a uniform log kappa is flat.
    """
    ll = np.zeros(a.size)
    step = max(1, 2_000_000 // max(1, n.size))
    for start in range(0, a.size, step):
        A, Bv = a[start : start + step, None], b[start : start + step, None]
        terms = betaln(A + s[None, :], Bv + (n - s)[None, :]) - betaln(A, Bv)
        ll[start : start + step] = terms @ freq
    return ll + np.log(mu) + np.log1p(-mu)


@dataclass(frozen=True)
class HierarchicalBeta:
    """Grid posterior of the population ``Beta(mu kappa, (1-mu) kappa)``.

    ``a``, ``b`` are the Beta parameters of each retained grid point and ``w``
    their posterior weights (summing to 1).
    """

    a: np.ndarray
    b: np.ndarray
    w: np.ndarray
    logit_mu: np.ndarray
    log_kappa: np.ndarray
    steps: tuple = (0.0, 0.0)  # grid spacing in (logit mu, log kappa)

    def sample(self, rng: np.random.Generator, n: int):
        """``n`` hyperparameter draws: a grid point by weight, then uniform within its grid cell.

        Returns ``(index, a, b)``: the grid point (for tabulated per-point
        moments) and the jittered Beta parameters.
        """
        g = rng.choice(self.w.size, size=n, p=self.w)
        lm = self.logit_mu[g] + (rng.random(n) - 0.5) * self.steps[0]
        lk = self.log_kappa[g] + (rng.random(n) - 0.5) * self.steps[1]
        mu, kappa = expit(lm), np.exp(lk)
        return g, mu * kappa, (1.0 - mu) * kappa

    @property
    def mean_mu(self) -> float:
        return float(self.w @ (self.a / (self.a + self.b)))

    @property
    def mean_log_kappa(self) -> float:
        return float(self.w @ self.log_kappa)

    @classmethod
    def fit(cls, counts: Counts, *, coarse=(97, 57), fine=(41, 33), prune: float = 1e-10) -> "HierarchicalBeta":
        n_u, s_u, freq, _ = counts.binary_states()
        n = n_u.astype(np.float64)
        s = s_u.astype(np.float64)
        # stage 1: the whole hyperprior box
        # (midpoint rule over equal cells: the cells tile the box, so a flat tail of
        # log kappa up to its bound gets exactly its share, and sample() jitters within cells)
        lm, hm = _cells(*LOGIT_MU, coarse[0])
        lk, hk = _cells(*LOG_KAPPA, coarse[1])
        LM, LK, a, b, mu = _grid(lm, lk)
        lp = _log_posterior(a, b, mu, n, s, freq)
        w = np.exp(lp - lp.max())
        w /= w.sum()
        # refine: a finer grid over mean +- 7 sd of the mass, until the grid resolves the posterior
        # (sd at least 3 grid steps in both directions; a few rounds suffice even for M = 1e6)
        steps = (hm, hk)
        for _ in range(8):
            mx, my = w @ LM, w @ LK
            sx = np.sqrt(max(w @ (LM - mx) ** 2, 0.0))
            sy = np.sqrt(max(w @ (LK - my) ** 2, 0.0))
            hx, hy = 7 * max(sx, steps[0]), 7 * max(sy, steps[1])
            lm2, hm = _cells(max(LOGIT_MU[0], mx - hx), min(LOGIT_MU[1], mx + hx), fine[0])
            lk2, hk = _cells(max(LOG_KAPPA[0], my - hy), min(LOG_KAPPA[1], my + hy), fine[1])
            LM, LK, a, b, mu = _grid(lm2, lk2)
            lp = _log_posterior(a, b, mu, n, s, freq)
            w = np.exp(lp - lp.max())
            w /= w.sum()
            resolved = sx >= 3 * steps[0] and sy >= 3 * steps[1]
            steps = (hm, hk)
            if resolved:
                break
        keep = w > prune
        w = w[keep] / w[keep].sum()
        return cls(a[keep], b[keep], w, LM[keep], LK[keep], steps)
