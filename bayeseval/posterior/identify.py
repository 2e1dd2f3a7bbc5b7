r"""What the counts alone say about a metric that needs more trials than were run (k > n): bounds that hold
for every pool of questions, with no population model.

With ``n`` trials per question the counts identify the pool of success probabilities ``G`` only through the
histogram of successes, ``h_j = int Bin(j; n, p) dG(p)``, ``j = 0..n`` (its first ``n`` moments); a metric
``theta = int g(p) dG(p)`` with ``g`` of degree ``k > n`` is not a function of them.  Its *identified set* is
``{int g dG : G reproduces h}``; a confidence set for it takes every ``G`` whose histogram lies within
simultaneous bands around the observed one:

.. math::  \underline\theta, \overline\theta = \min_w, \max_w \sum_g w_g\, g(p_g) \quad\text{s.t.}\quad
           L_j \le \sum_g w_g \,\mathrm{Bin}(j; n, p_g) \le U_j, \quad \sum_g w_g = 1, \; w \ge 0,

two linear programs over weights ``w`` on a fine grid of ``p`` (scipy's HiGHS), with ``[L_j, U_j]`` the
Clopper-Pearson interval of each count's share at ``alpha / J`` (``J`` the number of cells: Bonferroni; exact
intervals, because a rare cell's approximate interval can miss far more often than its level says).  When
the true histogram lies in every band (probability at least ``level``), the true pool is feasible and
``theta`` lies between the two optima: a confidence interval that rests on no model of the pool, only on
questions being a sample, trials exchangeable, and the number of trials a question got unrelated to its
difficulty (one pool serves every trial count) (Manski 2003, *Partial Identification of Probability
Distributions*; the moment problem of Karlin & Studden 1966).  A grid measure can reach a little less far
than an off-grid one, so the grid is dense near 0 and 1, where steep payoffs (pass@k, large k) change fastest.
"""

from __future__ import annotations

import math

import numpy as np

from ..metrics.engine import bernstein_eval

__all__ = ["pool_free_bounds"]

GRID = 801  # grid points of p, denser near 0 and 1
MAX_TRIALS = 200  # trial counts above this are left out (fewer constraints: the bounds stay valid, only wider)


def _clopper_pearson(x: np.ndarray, m: float, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson interval of each share ``x / m`` at ``alpha`` (exact: it covers at least ``1 - alpha``
    for every true share, however small, which the union bound over the cells needs)."""
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(x, m, alpha=alpha, method="beta")
    return np.nan_to_num(np.asarray(lo, dtype=np.float64), nan=0.0), np.nan_to_num(np.asarray(hi, dtype=np.float64),
                                                                                   nan=1.0)


def pool_free_bounds(hist: dict, c: np.ndarray, level: float) -> tuple[float, float] | None:
    """Bounds on ``int g dG`` (``g`` the Bernstein polynomial with coefficients ``c``) over every pool ``G`` whose
    count histograms lie within simultaneous ``level`` bands of ``hist`` (trial counts above ``MAX_TRIALS`` left out) (``{n: counts of 0..n successes}``);
    None where no pool fits every band (the trials do not look exchangeable) or no histogram is usable.

    >>> import numpy as np
    >>> lo, hi = pool_free_bounds({1: np.array([600, 400])}, np.array([0.0, 1.0, 1.0]), 0.95)  # pass@2, 1 trial
    >>> round(lo, 3), round(hi, 3)      # mean 0.4 within about [0.365, 0.436]: pass@2 in [mean, 2 mean - mean^2]
    (0.365, 0.681)
    """
    from scipy import optimize, stats

    use = {int(n): np.asarray(h, dtype=np.float64) for n, h in hist.items() if 1 <= int(n) <= MAX_TRIALS
           and float(np.sum(h)) > 0}
    if not use:
        return None
    cells = sum(n + 1 for n in use)
    p = 0.5 - 0.5 * np.cos(np.linspace(0.0, math.pi, GRID))
    rows, lo_b, hi_b = [], [], []
    for n, h in use.items():
        rows.append(stats.binom.pmf(np.arange(n + 1)[:, None], n, p[None, :]))
        lo, hi = _clopper_pearson(h, float(h.sum()), (1 - level) / cells)
        lo_b.append(lo)
        hi_b.append(hi)
    A = np.vstack(rows)
    A_ub = np.vstack([A, -A])
    b_ub = np.concatenate([np.concatenate(hi_b), -np.concatenate(lo_b)])
    g = bernstein_eval(np.asarray(c, dtype=np.float64), p)
    ends = []
    for sign in (1.0, -1.0):
        res = optimize.linprog(sign * g, A_ub=A_ub, b_ub=b_ub, A_eq=np.ones((1, GRID)), b_eq=[1.0],
                               bounds=(0, None), method="highs")
        if res.status != 0:
            return None
        ends.append(float(np.clip(g @ res.x, g.min(), g.max())))
    return min(ends), max(ends)
