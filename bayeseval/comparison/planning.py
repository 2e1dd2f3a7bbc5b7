r"""Planning an evaluation from pilot outcomes: :func:`plan`.

With per-question success probabilities :math:`p_i` and ``N`` trials per
question, the per-question score :math:`\hat x_i = s_i / N` has

.. math::  \mathrm{Var}(\hat x_i) = \sigma_b^2 + \sigma_w^2 / N, \qquad
           \sigma_b^2 = \mathrm{Var}(p), \quad \sigma_w^2 = E[p(1-p)],

so the mean over ``M`` questions has standard error
:math:`\sqrt{(\sigma_b^2 + \sigma_w^2/N)/M}` (Miller, "Adding Error Bars to
Evals", arXiv:2411.00640).  For a paired comparison the same
holds for the per-question difference :math:`\hat x_{Ai} - \hat x_{Bi}` with
:math:`\sigma_b^2 = \mathrm{Var}(p_A - p_B)` and
:math:`\sigma_w^2 = E[p_A(1-p_A)] + E[p_B(1-p_B)]` (per trial of each model).
Both components are estimated from a pilot with ``n_i >= 2``:
:math:`\hat\sigma_w^2 = \mathrm{mean}_i\, s_i(n_i - s_i)/(n_i(n_i-1))` (unbiased) and
:math:`\hat\sigma_b^2 = \max\bigl(0,\ \mathrm{Var}_i(\hat x_i) - \mathrm{mean}_i(\hat\sigma^2_{w,i}/n_i)\bigr)`:
the difference inside is unbiased, and cutting it at 0 (a variance is not negative) biases it upwards where the
true value is near 0, so the standard errors and sample sizes planned from it err on the large side there.

Then, for a two-sided test at ``alpha`` with power ``1 - beta``:
minimum detectable effect :math:`(z_{1-\alpha/2} + z_{1-\beta})\,SE(M, N)`;
questions needed for a difference ``delta``:
:math:`M = (z_{1-\alpha/2} + z_{1-\beta})^2 (\sigma_b^2 + \sigma_w^2/N) / \delta^2`;
the within-question share of the variance :math:`(\sigma_w^2/N)/(\sigma_b^2 + \sigma_w^2/N)`
says where more trials per question stop paying off.  The expected width of
the population-scope credible interval is :math:`2 t_{M-1, (1+\ell)/2} SE(M, N)` (the Bayesian
bootstrap's posterior sd is :math:`SE \sqrt{(M-1)/(M+1)}`; studentized, its draws are Student-t with
``M - 1`` degrees of freedom and scale :math:`SE`, :func:`bayeseval.posterior.bootstrap.studentize`).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> p = rng.beta(2, 2, 400)
>>> R = (rng.random((400, 8)) < p[:, None]).astype(int)
>>> pl = plan(R)
>>> round(pl.sigma_b2, 3), round(pl.sigma_w2, 3)   # population: Var(p) = 0.05, E[p(1-p)] = 0.2
(0.042, 0.207)
>>> round(pl.mde(1000, 8), 4), pl.questions_needed(0.05, 8), pl.trials_enough()
(0.0232, 215, 44)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtri, stdtrit

from .. import validate as V
from ..counts import Counts
from ..scores import Scores, any_scores, same_range
from .._protocol import Result
from .._text import html_table, pct, text_table

__all__ = ["plan", "Plan"]

M_GRID = (50, 100, 200, 500, 1000, 2000, 5000)
N_GRID = (1, 2, 4, 8, 16, 32, 64)


@dataclass(frozen=True)
class Plan(Result):
    """Variance components of a pilot and what they imply for M, N and detectable effects.

    Follows the result protocol (``summary()``, ``to_dict()``, numeric ``to_frame()``, HTML repr); a
    plan has interval *widths* (:meth:`interval_width`) rather than an interval of its own.
    """

    paired: bool
    M_pilot: int
    N_pilot: Any
    sigma_b2: float
    sigma_w2: float
    alpha: float
    power: float
    level: float
    delta: float | None
    scale: tuple | None = None  # (lo, hi) of scores; None for 0/1 outcomes

    @property
    def z(self) -> float:
        return float(ndtri(1 - self.alpha / 2) + ndtri(self.power))

    def se(self, M: int, N: int) -> float:
        """Standard error of the (paired) mean score with M questions and N trials each."""
        M = V.integer(M, "M", minimum=1)
        N = V.integer(N, "N", minimum=1)
        return math.sqrt(max(self.sigma_b2 + self.sigma_w2 / N, 0.0) / M)

    def mde(self, M: int, N: int) -> float:
        """Minimum detectable (paired) difference at ``alpha`` and ``power``."""
        return self.z * self.se(M, N)

    def questions_needed(self, delta: float, N: int) -> int:
        """Questions needed to detect ``delta`` with N trials per question: ``ceil(z^2 (s_b^2 + s_w^2 / N) / delta^2)``."""
        delta = _delta(delta, self.scale)
        N = V.integer(N, "N", minimum=1)
        return int(math.ceil(self.z**2 * (self.sigma_b2 + self.sigma_w2 / N) / delta**2))

    def within_share(self, N: int) -> float:
        """Fraction of the variance of a per-question score that comes from finite trials."""
        N = V.integer(N, "N", minimum=1)
        w = self.sigma_w2 / N
        tot = self.sigma_b2 + w
        return w / tot if tot > 0 else 0.0

    def trials_enough(self, share: float = 0.1) -> int | None:
        """Smallest N whose within-question share of the variance is at most ``share``."""
        share = V.real(share, "share", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        if self.sigma_b2 <= 0:
            return None
        return max(1, int(math.ceil(self.sigma_w2 * (1 - share) / (share * self.sigma_b2))))

    def interval_width(self, M: int, N: int) -> float:
        """Expected width of the population-scope credible interval at ``level``."""
        M = V.integer(M, "M", minimum=2)
        return 2 * float(stdtrit(M - 1, 0.5 + self.level / 2)) * self.se(M, N)

    def table(self, Ms=M_GRID, Ns=N_GRID) -> list[dict]:
        rows = []
        for N in Ns:
            for M in Ms:
                row = {"M": M, "N": N, "se": self.se(M, N), "mde": self.mde(M, N),
                       "interval_width": self.interval_width(M, N), "within_share": self.within_share(N)}
                if self.delta is not None:
                    row["questions_needed"] = self.questions_needed(self.delta, N)
                rows.append(row)
        return rows

    def to_frame(self, Ms=M_GRID, Ns=N_GRID):
        import pandas as pd

        return pd.DataFrame.from_records(self.table(Ms, Ns))

    def to_dict(self) -> dict:
        return {
            "paired": self.paired, "M_pilot": self.M_pilot, "N_pilot": self.N_pilot, "sigma_b2": self.sigma_b2,
            "sigma_w2": self.sigma_w2, "alpha": self.alpha, "power": self.power, "level": self.level,
            "delta": self.delta, "trials_enough": self.trials_enough(), "table": self.table(),
            "scale": None if self.scale is None else list(self.scale),
        }

    def _enough_words(self) -> str:
        """Where more trials stop paying off, in words (never, when the pilot shows no between-question variance:
        every bit of the variance is then within questions, and more trials always reduce it)."""
        n = self.trials_enough()
        if n is None:
            return ("more trials keep paying off at every N (the pilot shows no between-question variance, so all of "
                    "the variance is within questions)")
        return f"more trials stop paying off near N = {n} (within-question share of the variance <= 10%)"

    def summary(self) -> str:
        # the metric a plan is for, said: avg (the mean score of a trial), paired or of one model
        what = "paired difference of avg (mean score per trial)" if self.paired else "avg (mean score per trial)"
        lines = [
            f"Pilot: M = {self.M_pilot} questions, N = {self.N_pilot} trials; {what}: between-question variance "
            f"{self.sigma_b2:.4g}, within-question variance per trial {self.sigma_w2:.4g}.",
            f"Detectable effects at alpha = {self.alpha:g}, power = {self.power:g}; interval widths at "
            f"{pct(self.level)}. {self._enough_words()[0].upper() + self._enough_words()[1:]}.",
            "",
        ]
        Ns = [n for n in N_GRID]
        head = ["M \\ N"] + [str(n) for n in Ns]
        rows = [[f"{M}"] + [f"{self.mde(M, n):.4f}" for n in Ns] for M in M_GRID]
        lines.append("minimum detectable effect")
        lines.append(text_table(head, rows, right=list(range(1, len(head)))))
        lines.append("")
        widths = [[f"{M}"] + [f"{self.interval_width(M, n):.4f}" for n in Ns] for M in M_GRID if M >= 2]
        lines.append(f"expected width of the {pct(self.level)} interval (population scope)")
        lines.append(text_table(head, widths, right=list(range(1, len(head)))))
        lines.append("")
        lines.append("within-question share of the variance: " +
                     ", ".join(f"N={n}: {self.within_share(n):.0%}" for n in Ns))
        if self.delta is not None:
            lines.append(f"questions needed for delta = {self.delta:g}: " +
                         ", ".join(f"N={n}: {self.questions_needed(self.delta, n)}" for n in Ns))
        if not self.paired:
            lines.append("One model: these are for a change of its mean score; a comparison of two models has a "
                         "variance of its own (plan it from a pilot of both).")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        Ns = list(N_GRID)
        rows = [[f"{M}"] + [f"{self.mde(M, n):.4f}" for n in Ns] for M in M_GRID]
        return (f"<p>minimum detectable effect (alpha = {self.alpha:g}, power = {self.power:g}); "
                f"{self._enough_words()}</p>"
                + html_table(["M \\ N"] + [str(n) for n in Ns], rows))


def _components(c: Counts | Scores) -> tuple[np.ndarray, np.ndarray]:
    """Per question: the mean score and the unbiased within-question variance (for 0/1 outcomes the fraction
    correct and ``s (n - s) / (n (n - 1))``, the unbiased estimate of ``p (1 - p)``)."""
    if (c.n < 2).any():
        raise ValueError("plan needs at least 2 trials per question in the pilot to separate the "
                         "within-question variance from the between-question variance")
    if isinstance(c, Scores):
        return c.means, c.within_var()
    n = c.n.astype(np.float64)
    s = c.successes().astype(np.float64)
    return s / n, s * (n - s) / (n * (n - 1))


def plan(A: Any, B: Any = None, *, alpha: float = 0.05, power: float = 0.8, level: float = 0.95,
         delta: float | None = None, missing: Any = None, ragged: bool = False, score_range: Any = None) -> Plan:
    """Variance components from pilot outcomes (one model, or a pair on the same questions) and the
    implied standard errors, minimum detectable effects, questions needed and interval widths.

    Works on 0/1 outcomes or continuous scores (``score_range=(lo, hi)``, or any value that is not an
    integer: scores in ``[0, 1]``; ``delta`` is then in score units) with at least two trials per question
    (metric: the mean score, avg).
    """
    from .paired import as_counts, align

    alpha = V.probability(alpha, "alpha")
    if 1 - alpha / 2 >= 1:  # the critical value z(1 - alpha / 2), and so every study size, would be infinite
        raise V.ArgumentError("{alpha} = {value:g} is too small to compute with: 1 - alpha / 2 rounds to 1 in double "
                              "precision, so the critical value and the questions needed are infinite; give alpha >= "
                              "1.2e-16", "alpha", value=alpha)
    power = V.probability(power, "power")
    if power <= alpha:  # a two-sided test at alpha rejects with probability >= alpha at any difference
        raise V.ArgumentError("{power} must exceed {alpha} ({a:g}): a test at that level already rejects that often "
                              "when the models are equal, so a power at or below it plans nothing; got {value:g}",
                              "power", "alpha", a=alpha, value=power)
    level = V.confidence(level, "level")
    scored = any_scores([A] if B is None else [A, B], score_range)
    ca = as_counts(A, "A", missing, ragged, score_range, scored)
    if not scored and not ca.is_binary:
        raise V.ArgumentError("plan needs 0/1 outcomes or scores ({score_range} gives their range)", "score_range")
    scale = (ca.lo, ca.hi) if scored else None  # a Scores input brings its own range
    if delta is not None:
        delta = _delta(delta, scale)
    xa, wa = _components(ca)
    M = ca.M
    if M < 2:
        raise ValueError("plan needs at least 2 questions in the pilot")
    if B is None:
        x, w_over_n, w = xa, wa / ca.n, wa
        N = int(ca.n[0]) if not ca.ragged else f"{int(ca.n.min())}-{int(ca.n.max())}"
        paired = False
    else:
        cb = as_counts(B, "B", missing, ragged, score_range, scored)
        if not scored and not cb.is_binary:
            raise V.ArgumentError("plan needs 0/1 outcomes or scores ({score_range} gives their range)", "score_range")
        same_range({"A": ca, "B": cb})
        cb, _ = align(ca, cb)
        xb, wb = _components(cb)
        x, w_over_n, w = xa - xb, wa / ca.n + wb / cb.n, wa + wb
        N = int(ca.n[0]) if not (ca.ragged or cb.ragged or ca.n[0] != cb.n[0]) else "mixed"
        paired = True
    sigma_b2 = max(float(x.var(ddof=1)) - float(w_over_n.mean()), 0.0)
    sigma_w2 = float(w.mean())
    if sigma_b2 + sigma_w2 <= 0:
        what = ("the difference A - B is the same on every trial of every question" if paired
                else "every question has the same fraction correct and no within-question variation")
        raise ValueError(f"plan needs a pilot with some variation: {what} (e.g. all correct), so every standard "
                         "error, detectable effect and sample size would be 0; run a pilot on questions of mixed "
                         "difficulty")
    return Plan(paired, M, N, sigma_b2, sigma_w2, alpha, power, level, delta, scale)


DELTA_RANGE = (1e-9, 1.0)


def _delta(delta: Any, score_range: tuple[float, float] | None = None) -> float:
    """The difference to detect, a fraction: ``1e-9 <= |delta| <= 1`` (5 points is ``0.05``); for scores in
    ``[lo, hi]``, ``|delta| <= hi - lo``."""
    delta = V.real(delta, "delta")
    if score_range is not None and score_range != (0.0, 1.0):
        width = score_range[1] - score_range[0]
        if not DELTA_RANGE[0] <= abs(delta) <= width:
            raise ValueError(f"delta is a difference of scores in [{score_range[0]:g}, {score_range[1]:g}], so "
                             f"{DELTA_RANGE[0]:g} <= |delta| <= {width:g}; got {delta:g}")
        return delta
    if abs(delta) > DELTA_RANGE[1]:
        hint = f" (for {delta:g} percentage points pass delta={delta / 100:g})" if abs(delta) <= 100 else ""
        raise ValueError(f"delta is a difference of scores in [0, 1], so |delta| <= 1; got {delta:g}{hint}")
    if abs(delta) < DELTA_RANGE[0]:
        raise ValueError(f"delta must be non-zero and |delta| >= {DELTA_RANGE[0]:g}, got {delta!r}")
    return delta
