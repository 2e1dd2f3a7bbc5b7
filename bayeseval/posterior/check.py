r"""Model checks that every fit reports: the count histogram against the fitted pool, and a pull of the prior.

**Posterior predictive check of the count histogram** (Gelman, Meng & Stern 1996, Statistica Sinica 6(4);
*Bayesian Data Analysis*, 3rd ed., ch. 6).  Under a pooled model the number of successes of a question with
``n`` trials has the predictive law ``P(s | n)`` (a mixture of beta-binomials).  Per trial count ``n`` (the
largest :data:`MAX_GROUPS` groups with ``n <= MAX_N``) the observed histogram ``O_s`` is compared with
``E_s = M_n P(s | n)`` by the deviance

.. math::  G^2 = 2 \sum_n \sum_s O_{ns} \log(O_{ns} / E_{ns}),

and its p-value is the share of :data:`REPS` histograms simulated from the same predictive (multinomial,
fixed seed) whose deviance is at least as large.  The predictive is fitted to the same counts, so the check
is conservative (it rejects less often than its level); a p-value below :data:`LEVEL`, for a misfit of at
least :data:`MIN_KL` nats per question (``G^2 / 2M``, so that a million questions do not turn every
immaterial wrinkle into a warning), becomes a warning on the estimate that names what to do instead.

>>> import numpy as np
>>> from scipy import stats
>>> O = np.array([40, 0, 0, 0, 60])                      # 100 questions, 4 trials: never or always
>>> one_beta = stats.betabinom.pmf(np.arange(5), 4, 0.6, 0.4)
>>> histogram_check({4: O}, lambda n: one_beta)[1] == 1 / (REPS + 1)   # none of 400 simulations as far out
True
>>> round(histogram_check({4: O}, lambda n: np.array([.4, 0, 0, 0, .6]) * .99 + .002)[1], 2) > 0.01
True
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

__all__ = ["histogram_check", "ppc_warning", "pull_warning", "REPS", "LEVEL", "MIN_KL", "MAX_N", "MAX_GROUPS"]

REPS = 400  # simulated histograms per check
LEVEL = 0.01  # warn below this p-value
MIN_KL = 0.002  # ... and only for a misfit of at least this many nats per question (a size, not only a p-value)
MAX_N = 1000  # trial counts above this are not checked (a histogram of > 1000 bins says little per bin)
MAX_GROUPS = 20  # at most this many trial counts, the most frequent ones
SEED = 20261125


def _deviance(O: np.ndarray, E: np.ndarray) -> np.ndarray:
    """``2 sum O log(O / E)`` over the last axis (0 log 0 = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(O > 0, O * np.log(O / np.maximum(E, 1e-300)), 0.0)
    return 2.0 * t.sum(axis=-1)


def histogram_check(hist: dict, predictive: Callable[[int], np.ndarray]) -> tuple[float, float]:
    """Deviance of the observed count histograms ``{n: O (n + 1,)}`` against ``predictive(n)`` and its
    parametric-bootstrap p-value (see the module docstring)."""
    rng = np.random.default_rng(SEED)
    obs, sims = 0.0, np.zeros(REPS)
    for n, O in hist.items():
        P = np.clip(np.asarray(predictive(n), dtype=np.float64), 0.0, None)
        P = P / P.sum()
        m = int(O.sum())
        E = m * P
        obs += float(_deviance(O.astype(np.float64), E))
        sims += _deviance(rng.multinomial(m, P, size=REPS).astype(np.float64), E[None, :])
    p = (1.0 + float(np.sum(sims >= obs - 1e-9 * max(obs, 1.0)))) / (REPS + 1.0)
    return obs, p


def count_histograms(n: np.ndarray, s: np.ndarray, freq: np.ndarray) -> dict:
    """``{n: histogram of s}`` for the most frequent trial counts ``n <= MAX_N`` (count states in, with their
    question counts ``freq``)."""
    sizes: dict = {}
    for nn, f in zip(n.tolist(), freq.tolist()):
        if nn <= MAX_N:
            sizes[nn] = sizes.get(nn, 0) + f
    keep = sorted(sizes, key=lambda k: -sizes[k])[:MAX_GROUPS]
    out = {}
    for nn in keep:
        sel = n == nn
        out[nn] = np.bincount(s[sel], weights=freq[sel], minlength=nn + 1)
    return out


def ppc_warning(model: str, p: float, deviance: float, advice: str, questions: int | None = None) -> str | None:
    """The warning text of a failed check: ``p < LEVEL`` *and* a material misfit, ``deviance / (2 questions)``
    (the Kullback-Leibler divergence per question of the observed histogram from the predictive) at least
    :data:`MIN_KL`.  With hundreds of thousands of questions any pool model is rejected for misfits that move
    no interval; the size threshold keeps those quiet (None when the check passes).

    >>> ppc_warning("pool", 0.002, 35.0, "advice", questions=200_000) is None   # 1e-4 nats per question
    True
    >>> ppc_warning("pool", 0.002, 35.0, "advice", questions=100)[:39]
    'model check: the pool misfits the histo'
    """
    if p >= LEVEL:
        return None
    if questions and deviance / (2.0 * questions) < MIN_KL:
        return None
    return (f"model check: the {model} misfits the histogram of successes per question (posterior predictive "
            f"deviance {deviance:.1f}, p = {p:.3g}); {advice}")


def pull_warning(mean: float, sd: float, value: float | None, prior: str, M: int, scope: str) -> str | None:
    """A warning when the posterior mean sits more than half a posterior sd from the unbiased estimate (one sd
    for ``prior="robust"``, whose only pull is the population scope's prior pseudo-question, weight 1/(M+1))."""
    if value is None or not np.isfinite(sd) or sd < 0:
        return None
    gap = abs(mean - value)
    if sd == 0 and gap <= 1e-12 * max(1.0, abs(value)):  # no spread and no pull
        return None
    z = gap / sd if sd > 0 else math.inf  # a prior of 1e20 pseudo-trials: sd 0, the mean pinned to the prior's
    if z <= (1.0 if prior == "robust" else 0.5):  # robust: only its population pseudo-question pulls, 1/(M+1)
        return None
    if prior == "robust":
        why = (f"with M = {M} questions the prior pseudo-question of the {scope} scope weighs 1/(M+1); "
               f"more questions, or scope='benchmark', remove the pull")
    elif prior == "hierarchical":
        why = "the Beta pool shrinks each question toward its mean; prior='robust' (the default) does not"
    elif prior == "hierarchical-dirichlet":
        why = "the Dirichlet prior shrinks each question's category shares toward the pool's"
    elif prior == "dirichlet":
        why = "the Dirichlet(1) prior shrinks each question's category shares toward equal shares"
    else:
        why = (f"prior={prior!r} shrinks each question toward its prior mean (1/2 for 'uniform', 'jeffreys'); "
               f"prior='robust' (the default) is centred at the unbiased estimate")
    if not math.isfinite(z):
        return (f"the posterior mean {mean:.4g} differs from the unbiased estimate {value:.4g} and its posterior sd is "
                f"0: the prior alone decides it; {why}")
    return f"the posterior mean {mean:.4g} is {z:.1f} posterior sd from the unbiased estimate {value:.4g}: {why}"
