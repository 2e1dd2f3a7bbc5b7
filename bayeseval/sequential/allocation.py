r"""Where the next trial does most good: closed-form value of one more trial, and new questions vs more trials.

**One more trial on question i (benchmark scope).**  Question i's success rate has the posterior of the
fitted pool (a mixture of Betas, :class:`bayeseval.priors.BetaMixture`, or one Beta) updated by its
``s`` of ``n``; the metric is :math:`\bar g = \frac1M\sum_i g(p_i)` with :math:`g` in Bernstein form.
One more trial :math:`y \in \{0, 1\}` changes the posterior variance of :math:`g(p_i)` by, on average,

.. math::

    \mathrm{Var}[g] - E_y\,\mathrm{Var}[g \mid y] = \mathrm{Var}_y\bigl(E[g \mid y]\bigr)
    = P(y=1)\,P(y=0)\,\bigl(E[g \mid y=1] - E[g \mid y=0]\bigr)^2

(the law of total variance), with :math:`P(y=1) = E[p_i]` and both conditional means closed-form Beta
moments; questions are independent a posteriori, so the metric's variance drops by that over
:math:`M^2`.  :func:`trial_values` returns it for every (model, question); the largest is where the next
trial goes.  For a comparison A - B the two models' posteriors are independent given their pools, so
the same values apply to the difference.  (For a plain Beta(a, b) and avg this is
:math:`ab / ((a+b)^2 (a+b+1)^2)`: the most uncertain, least-sampled questions first.)

**New questions or more trials (population scope).**  With ``n`` trials per question the pool mean's
estimate from ``M`` questions has variance :math:`(\sigma_b^2 + \sigma_w^2(n)) / M` with
:math:`\sigma_b^2 = \mathrm{Var}_{pool}\, g(p)` (between questions) and
:math:`\sigma_w^2(n) = E_{pool}\,\mathrm{Var}(\hat g_n \mid p)` (within: the unbiased estimate from ``n``
trials), both exact sums under the fitted pool.  A question costs ``question_cost`` plus ``n`` trials, so
the variance per unit budget is :math:`(\sigma_b^2 + \sigma_w^2(n))(c_q + n)`; :func:`design` finds the
``n`` minimising it (Cochran 1977, *Sampling Techniques*, §10.6, two-stage sampling) and, for a budget,
compares spending it on trials of the questions already run with spending it on new questions.
Without a per-question cost new questions always win (more trials never shrink :math:`\sigma_b^2/M`);
with one, :math:`n^* \approx \sqrt{c_q\, \sigma_w^2(1) / \sigma_b^2}` for avg.

>>> import numpy as np
>>> R = np.array([[1, 1, 1, 1], [0, 0, 0, 0], [1, 0, 1, 0]] * 20)
>>> v = trial_values({"m": R}, prior="uniform")
>>> top = v.best(1)                     # a 2-of-4 question: Beta(3, 3) under the uniform prior
>>> int(top.loc[0, "question"]), round(float(top.loc[0, "value"]) * 60**2, 6), round(9 / (36 * 49), 6)
(2, 0.005102, 0.005102)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import validate as V
from .._protocol import Result
from .._text import text_table
from ..counts import Counts, to_counts
from ..metrics.engine import means_rows, moments_rows
from ..priors import BetaMixture
from ..targets import parse
from .scoring import unbiased_table

__all__ = ["trial_values", "TrialValues", "design", "Design", "pool_of"]


def _coefficients(metric: Any, params: dict) -> tuple[np.ndarray, str]:
    spec = parse(metric, **params)
    if spec.kind == "bernstein":
        return np.asarray(spec.coefficients, dtype=np.float64), spec.label
    if spec.name in ("avg", "avg@n") and "w" not in spec.params:
        return np.array([0.0, 1.0]), spec.label
    raise ValueError(f"metric {spec.label!r}: allocation works for 0/1 outcomes and avg or an @k metric "
                     "(pass@k, pass^k, maj@k, ...)")


def pool_of(counts: Counts, prior: str = "pool") -> BetaMixture:
    """The question pool: the fitted mixture of Betas (``"pool"``, the default population model for 0/1
    outcomes) or one uniform Beta(1, 1) (``"uniform"``), as a :class:`~bayeseval.priors.BetaMixture`."""
    if prior == "uniform":
        one = np.array([1.0])
        return BetaMixture(one, one, one[None, :], one)
    if prior != "pool":
        raise ValueError(f"prior must be 'pool' or 'uniform', got {prior!r}")
    return BetaMixture.fit(counts)


def _mixture_mean(mix: BetaMixture, n, s, c):
    """Posterior mean of g(p) per state (rows of n, s) under the pool (its point fit) updated by s of n."""
    r = mix.responsibilities(n, s, which="point")  # (U, J)
    U, J = r.shape
    mean = means_rows(np.repeat(n, J), np.repeat(s, J), np.tile(mix.a, U), np.tile(mix.b, U), c[:, None])
    return (r * mean[:, 0].reshape(U, J)).sum(axis=1)


def _state_values(mix: BetaMixture, n_u, s_u, c):
    """Expected drop of Var[g(p)] from one more trial, per state, and the current posterior mean of p."""
    e1 = _mixture_mean(mix, n_u + 1, s_u + 1, c)
    e0 = _mixture_mean(mix, n_u + 1, s_u, c)
    p1 = _mixture_mean(mix, n_u, s_u, np.array([0.0, 1.0]))
    return p1 * (1.0 - p1) * (e1 - e0) ** 2, p1


@dataclass(frozen=True, repr=False)
class TrialValues(Result):
    """Expected reduction of the metric's posterior variance from one more trial, per (model, question)."""

    metric: str
    prior: str
    frame: Any  # pandas DataFrame: model, question, n, correct, p_mean, value

    def best(self, n: int = 10):
        """The ``n`` (model, question) pairs whose next trial shrinks the variance most."""
        return self.frame.nlargest(V.integer(n, "n", minimum=1), "value", keep="first").reset_index(drop=True)

    def to_frame(self):
        return self.frame.copy()

    def to_dict(self) -> dict:
        top = self.best(10)
        return {"metric": self.metric, "prior": self.prior,
                "best": top.to_dict("records")}

    def summary(self, n: int = 10) -> str:
        top = self.best(n)
        rows = [[str(r.model), str(r.question), str(int(r.n)), str(int(r.correct)), f"{r.p_mean:.3f}", f"{r.value:.3g}"]
                for r in top.itertuples()]
        return (f"Next trials for {self.metric} (largest expected drop of the posterior variance, pool: {self.prior})\n"
                + text_table(["model", "question", "n", "correct", "E[p]", "value"], rows))


def trial_values(models: Any, metric: Any = "avg", *, prior: str = "pool", **metric_params) -> TrialValues:
    """The value of one more trial for every question of every model (see the module docstring).

    ``models`` maps a name to 0/1 outcomes (matrix, DataFrame, lists of rows with ``missing``, Counts);
    one matrix is one model named "model".
    """
    import pandas as pd

    if not isinstance(models, dict):
        models = {"model": models}
    if not models:
        raise ValueError("models must name at least one model's outcomes, e.g. {'model': R}; got an empty dict")
    c, label = _coefficients(metric, metric_params)
    frames = []
    for name, X in models.items():
        counts = X if isinstance(X, Counts) else to_counts(X, missing=np.nan, name=str(name))
        n_u, s_u, _, inverse = counts.binary_states()
        if not counts.is_binary:
            counts.successes(label)  # the error that names the non-binary outcomes
        value, pmean = _state_values(pool_of(counts, prior), n_u, s_u, c)
        inv = inverse()
        ids = counts.ids if counts.ids is not None else np.arange(counts.M)
        frames.append(pd.DataFrame({"model": str(name), "question": list(ids), "n": counts.n,
                                    "correct": counts.successes(label), "p_mean": pmean[inv],
                                    "value": value[inv] / counts.M**2}))
    return TrialValues(label, prior, pd.concat(frames, ignore_index=True))


@dataclass(frozen=True, repr=False)
class Design(Result):
    """Trials per question that minimise variance per unit budget, and new questions vs more trials."""

    metric: str
    M: int
    n: float
    sigma_b2: float
    table: Any  # DataFrame: trials, sigma_w2, var_per_budget
    n_best: int
    question_cost: float
    budget: float | None
    var_more_trials: float | None
    var_new_questions: float | None

    @property
    def advice(self) -> str:
        if self.budget is None:
            return f"run {self.n_best} trial(s) per question"
        if self.var_new_questions is None and self.var_more_trials is None:
            return (f"run {self.n_best} trial(s) per question; the budget of {self.budget:g} trials buys no new "
                    f"question (one costs {self.question_cost:g} + {self.n_best}) and leaves these questions below the "
                    f"trials {self.metric} needs: it changes no estimate of {self.metric}")
        if self.var_new_questions is None:
            return (f"run {self.n_best} trial(s) per question; the budget of {self.budget:g} trials buys no new "
                    f"question (one costs {self.question_cost:g} + {self.n_best}): spend it on more trials")
        if self.var_more_trials is None:  # spread over these questions, the budget leaves them below k trials
            return (f"spend the budget on new questions: sd of the pool-mean estimate "
                    f"{np.sqrt(self.var_new_questions):.4f} with new questions ({self.n_best} trial(s) each); spread "
                    f"over these questions it leaves them below the trials {self.metric} needs")
        better = "new questions" if self.var_new_questions < self.var_more_trials else "more trials on these questions"
        return (f"spend the budget on {better}: sd of the pool-mean estimate {np.sqrt(self.var_new_questions):.4f} "
                f"with new questions ({self.n_best} trial(s) each) vs {np.sqrt(self.var_more_trials):.4f} with more "
                "trials (plug-in variances under the fitted pool)")

    def to_frame(self):
        return self.table.copy()

    def to_dict(self) -> dict:
        return {"metric": self.metric, "M": self.M, "n": self.n, "sigma_b2": self.sigma_b2, "n_best": self.n_best,
                "question_cost": self.question_cost, "budget": self.budget, "var_more_trials": self.var_more_trials,
                "var_new_questions": self.var_new_questions, "advice": self.advice}

    def summary(self) -> str:
        rows = [[str(int(r.trials)), f"{r.sigma_w2:.4g}", f"{r.var_per_budget:.4g}"] for r in self.table.itertuples()
                if r.trials <= max(8, 2 * self.n_best) or r.trials == self.n_best]
        return (f"Design for {self.metric}: between-question variance {self.sigma_b2:.4g}; a question costs "
                f"{self.question_cost:g} + n trials\n"
                + text_table(["trials n", "within variance", "variance x cost per question"], rows) + "\n" + self.advice)


def _pool_g2(mix: BetaMixture, c: np.ndarray) -> tuple[float, float]:
    """``E_pool[g(p)]`` and ``E_pool[g(p)^2]`` under the pool's point fit."""
    z = np.zeros(mix.a.size, np.int64)
    mean, var, _ = moments_rows(z, z, mix.a, mix.b, c[:, None])
    return float(mix.point @ mean[:, 0]), float(mix.point @ (var[:, 0] + mean[:, 0] ** 2))


def _within(mix: BetaMixture, c: np.ndarray, n: int) -> float:
    """E_pool Var(g_hat_n | p) = E[g_hat(S)^2] - E_pool[g(p)^2], S ~ the pool's predictive on n trials."""
    g_hat, _ = unbiased_table(c, n)
    return max(float(mix.predictive(n) @ g_hat**2) - _pool_g2(mix, c)[1], 0.0)


def design(X: Any, metric: Any = "avg", *, question_cost: float = 0.0, budget: float | None = None,
           max_trials: int = 64, prior: str = "pool", **metric_params) -> Design:
    """Trials per question, and new questions vs more trials, for estimating the pool's mean (population scope).

    ``X``: pilot 0/1 outcomes of one model.  ``question_cost``: the cost of adding a question, in trials.
    ``budget``: trials to spend next; compares giving them to the current questions (spread evenly) with
    new questions of ``n_best`` trials each.
    """
    import pandas as pd

    c, label = _coefficients(metric, metric_params)
    k = c.size - 1
    counts = X if isinstance(X, Counts) else to_counts(X, missing=np.nan, name="X")
    counts.successes(label)
    question_cost = V.real(question_cost, "question_cost")
    if not (np.isfinite(question_cost) and question_cost >= 0.0):
        raise V.ArgumentError("{question_cost} must be a finite number >= 0 (what a new question costs, in trials), "
                              "got {value:g}", "question_cost", value=question_cost)
    max_trials = V.integer(max_trials, "max_trials", minimum=1)
    if max_trials < k:
        raise ValueError(f"{label} needs at least {k} trials per question; max_trials={max_trials} (the largest "
                         f"design considered) must be at least {k}")
    mix = pool_of(counts, prior)
    eg, eg2 = _pool_g2(mix, c)
    sigma_b2 = max(eg2 - eg * eg, 0.0)
    ns = np.arange(k, max_trials + 1)
    sw = np.array([_within(mix, c, int(n)) for n in ns])  # one small sum per candidate n (<= max_trials)
    per_budget = (sigma_b2 + sw) * (question_cost + ns)
    best = int(ns[np.argmin(per_budget)])
    table = pd.DataFrame({"trials": ns, "sigma_w2": sw, "var_per_budget": per_budget})
    M, n_now = counts.M, float(np.mean(counts.n))
    more = new = None
    if budget is not None:
        budget = V.real(budget, "budget", lo=0.0, lo_open=True)
        if budget < 1:  # 0.4 trials buy no trial: "spend it on more trials" was the advice
            raise V.ArgumentError("{budget} is a number of trials to spend, at least 1; got {b:g}", "budget", b=budget)
        total = int(round(n_now * M + budget))  # spread evenly: r questions get one trial more than the others
        n_more, r = divmod(total, M)
        if n_more + (r > 0) > V.LIMITS["k"]:  # the variance at n trials costs O(n) memory: 1e9 trials asked 41 GiB
            n = n_more + (r > 0)  # a budget of 1e308 printed all 307 digits
            raise V.ArgumentError("{budget} {b:g} spread over {M} questions gives {n} trials per question; at most "
                                  "{cap} (raise it with bayeseval.set_limits(k=...)), or add questions",
                                  "budget", b=budget, M=M, n=str(n) if n < 10**15 else f"{float(n):.3g}",
                                  cap=V.LIMITS["k"])
        if n_more >= k:
            more = ((M - r) * (sigma_b2 + _within(mix, c, n_more))
                    + r * (sigma_b2 + _within(mix, c, n_more + 1))) / M**2
        added = math.floor(budget / (question_cost + best) + 1e-9)  # whole questions, as whole trials above
        n_cur = max(int(round(n_now)), k)
        v_cur = sigma_b2 + _within(mix, c, n_cur)
        new = (M * v_cur + added * (sigma_b2 + sw[best - k])) / (M + added) ** 2 if added >= 1 else None
    return Design(label, M, n_now, sigma_b2, table, best, question_cost, budget, more, new)
