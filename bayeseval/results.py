"""High-level entry points: :func:`estimate` (one metric) and :func:`evaluate` (many metrics and models).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> R = (rng.random((200, 8)) < rng.beta(2, 5, (200, 1))).astype(int)
>>> est = estimate(R, "pass@4", scope="benchmark", prior="uniform", interval="normal")
>>> est.scope, est.interval, round(est.value, 3)
('benchmark', 'normal', 0.617)
>>> lo, hi = est.confidence_interval(0.9)
>>> lo < est.mean < hi
True

Arguments mean the same in :func:`estimate`, :func:`evaluate`, :func:`~bayeseval.compare`,
:func:`~bayeseval.compare_all` and :func:`~bayeseval.plan`:

* ``metric`` -- a metric name (``"avg"``, ``"pass@k"``, ...; ``k=`` / ``"pass@8"``) or a payoff vector;
* ``scope`` -- ``"population"`` (default) or ``"benchmark"``; ``prior`` -- the population model;
* ``interval`` -- ``"exact"``, ``"normal"`` or ``"hdi"`` (:func:`compare` and :func:`compare_all`: ``"exact"`` by
  default); :func:`estimate` and :func:`evaluate` also ``"bootstrap-t"``, ``"exact+bootstrap-t"`` and
  ``"exact+binomial"`` and ``"exact+betting"`` (population scope) and ``"auto"``, their default: ``"exact"``,
  widened to Clopper-Pearson's (``"exact+binomial"``) where few questions carry a population-scope estimate, or
  none does (every question at the same end of the range); ``level`` -- credibility level;
* ``missing`` / ``ragged`` -- how unobserved trials are marked (passed to :func:`~bayeseval.to_counts`);
* ``labels`` -- names of the models (a string for one model, a pair for ``compare``; :func:`compare_all` and a dict
  of models take the dict's keys);
* ``seed`` -- seeds every draw and resample (the same seed gives the same numbers).
"""

from __future__ import annotations

import json
import re
import dataclasses
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import validate as V
from ._protocol import UNNAMED_DATASET, Result, check_choice, user_stacklevel
from ._text import html_table, pct, text_table
from .counts import Counts, flat_error, is_flat
from .scores import Scores, names_avg_at_n, to_outcomes
from .posterior import METHODS, SCOPES, Posterior, build, interval_from_draws

__all__ = ["Estimate", "Evaluation", "estimate", "evaluate", "ModelCheckWarning", "BootstrapTUnavailable",
           "DEFAULT_SCOPE", "DEFAULT_INTERVAL", "POSTERIOR_INTERVAL", "DEFAULT_DRAWS", "ESTIMATE_INTERVALS",
           "BOOTSTRAP_T_METHODS", "QUESTION_METHODS", "NOT_APPLIED"]


class ModelCheckWarning(UserWarning):
    """An estimate's model check failed or its interval rests on a modelling assumption (also in
    :attr:`Estimate.warnings`)."""

DEFAULT_SCOPE = "population"
#: an estimate's default: the equal-tailed posterior interval; where the population-scope result warns that few
#: questions carry it (``Posterior.few_carrying``) or none does (``Posterior.at_range_end``), its far end (away from
#: the range's end nearer the estimate) is moved out to Clopper-Pearson's on the summed scores, and its near end too
#: where that reaches further (the hull of the two)
DEFAULT_INTERVAL = "auto"
#: the default of compare and compare_all, whose intervals are posterior intervals
POSTERIOR_INTERVAL = "exact"
DEFAULT_DRAWS = 4000
BOOTSTRAP_T_RESAMPLES = 4000  # resamples behind Estimate.bootstrap_t_interval
#: the estimate intervals that resample questions (population scope only; ``draws`` counts their resamples)
BOOTSTRAP_T_METHODS = ("bootstrap-t", "exact+bootstrap-t")
#: the exact interval widened by a confidence interval over questions: to Clopper-Pearson's on the summed scores
#: (both ends; what "auto" widens to, :func:`bayeseval.intervals.binomial_interval`) or, its far end only, to the
#: betting interval's
WIDENING_METHODS = ("exact+binomial", "exact+betting")
#: the estimate intervals that are (or hold) a frequentist confidence interval over questions: population scope only
QUESTION_METHODS = (*BOOTSTRAP_T_METHODS, *WIDENING_METHODS)
#: the interval methods of an estimate: the default, the posterior's (``METHODS``), the studentized bootstrap over
#: questions, and the exact interval widened by Clopper-Pearson's or the betting interval
ESTIMATE_INTERVALS = (DEFAULT_INTERVAL, *METHODS, *QUESTION_METHODS)
DEFAULT_SEED = 20251104
#: the words of the warning on a row of evaluate that could not take the interval over questions asked for
NOT_APPLIED = "does not apply here"


_check_choice = check_choice  # the one choice check (kept under its old name)


@dataclass(frozen=True, eq=False, repr=False)
class Estimate(Result):
    """A posterior summary of one metric: point estimate, posterior mean/sd and an interval.

    Attributes: ``value`` (the finite-sample estimate, None where undefined;
    for ``"bayes"`` it is Bayes@N itself, the posterior mean),
    ``mean``, ``sd``, ``lo``, ``hi``, ``level``, ``scope``, ``interval`` (the
    method's name; :meth:`confidence_interval` gives another level or method), ``M``, ``N``,
    ``metric``, ``prior``, ``model``, ``miller_se`` (question-clustered
    standard error of ``value``: the frequentist reference for the population
    scope), ``draws_n`` (draws behind an exact / hdi interval, resamples behind a bootstrap-t one) and ``seed``
    (for those intervals and for :meth:`draws`), ``warnings`` (what the model check of the fit found and
    where the interval rests on a modelling assumption; each is also issued as a :class:`ModelCheckWarning`).
    """

    metric: str
    value: float | None
    mean: float
    sd: float
    lo: float
    hi: float
    level: float
    scope: str
    method: str
    M: int
    N: Any
    prior: str
    model: str | None = None
    miller_se: float | None = None
    dataset: str | None = None
    draws_n: int | None = None
    seed: int | None = None
    warnings: tuple = ()
    _post: Posterior | None = field(default=None, repr=False)
    _asked: str | None = field(default=None, repr=False)  # the method asked for ("auto": re-resolved at another level)

    @property
    def interval(self) -> str:
        """The interval method's name (``"exact"``, ``"normal"``, ``"hdi"``, ``"bootstrap-t"``,
        ``"exact+bootstrap-t"``, ``"exact+binomial"`` or ``"exact+betting"``; an estimate asked for ``"auto"`` records
        what it became)."""
        return self.method

    def confidence_interval(self, level: float | None = None, method: str | None = None) -> tuple[float, float]:
        """Interval at another credibility ``level`` and/or ``method`` (same scope, prior and seed); an estimate
        made with ``"auto"`` decides again at the new level what ``"auto"`` stands for."""
        level = self.level if level is None else V.confidence(level, "level")
        method = (self._asked or self.method) if method is None else check_choice(method, "method", ESTIMATE_INTERVALS)
        if level == self.level and method in (self.method, self._asked):
            return self.lo, self.hi
        draws = self.draws_n or DEFAULT_DRAWS
        resamples = draws if self.method in BOOTSTRAP_T_METHODS else BOOTSTRAP_T_RESAMPLES  # bootstrap_t_interval's
        # unless this estimate set them
        return _interval(self._post, self.scope, level, method, draws, self.seed, self.value, resamples)

    def bootstrap_t_interval(self, level: float | None = None, resamples: int = BOOTSTRAP_T_RESAMPLES,
                             seed: int | None = None) -> tuple[float, float]:
        """The studentized bootstrap (bootstrap-t) interval over questions, population scope: a frequentist
        second opinion where the posterior interval rests on few questions (the "rests on about X of M
        questions" warning).  Wider there, and second-order accurate for a skewed mean
        (:func:`bayeseval.posterior.bootstrap.bootstrap_t`): in simulations of pass@16 and pass^16 on 15-30
        questions it covered 94.5-97.1% where the exact interval covered 84.3-90.8%, at 1.8-4.0 times the width
        (``benchmarks/results_tail_cells.md``).

        Needs an unbiased per-question score (every question with at least k trials) and two questions whose
        scores differ.  Alone it can miss where nearly every score sits at the end of the range (pass^16 on 30
        questions of a Beta(2,5) pool: 74.7%, where the exact interval covers all), and where one question in
        hundreds carries the metric it reaches the end of the range (``docs/honesty.md``); the default interval
        widens with Clopper-Pearson's bound on the summed scores instead (:func:`widen`).

        >>> import numpy as np
        >>> from bayeseval import estimate
        >>> R = (np.arange(30 * 8).reshape(30, 8) % 7 < np.arange(30)[:, None] % 4).astype(int)
        >>> e = estimate(R, "pass@4")
        >>> round(e.value, 3), round(e.lo, 3), round(e.hi, 3)
        (0.558, 0.422, 0.699)
        >>> [round(v, 3) for v in e.bootstrap_t_interval(seed=1)]
        [0.406, 0.691]
        """
        level = self.level if level is None else V.confidence(level, "level")
        resamples = V.integer(resamples, "resamples", minimum=100)
        seed = self.seed if seed is None else V.integer(seed, "seed", minimum=0)
        return _bootstrap_t(self._post, self.scope, level, resamples, seed)

    def draws(self, n: int = DEFAULT_DRAWS, seed: int | None = None) -> np.ndarray:
        """Posterior draws of the dataset-level metric in this estimate's scope (seeded, reproducible)."""
        n = V.integer(n, "n", minimum=1)
        seed = self.seed if seed is None else V.integer(seed, "seed", minimum=0)
        return self._post.draws(self.scope, n, np.random.default_rng(seed))

    def to_dict(self) -> dict:
        """JSON-safe summary (floats, strings, None)."""

        def num(x):
            return None if x is None else float(x)

        return {
            "model": self.model, "metric": self.metric, "value": num(self.value), "mean": num(self.mean),
            "sd": num(self.sd), "lo": num(self.lo), "hi": num(self.hi), "level": self.level, "scope": self.scope,
            "interval": self.method, "prior": self.prior, "M": self.M, "N": self.N if isinstance(self.N, int) else list(self.N),
            "miller_se": num(self.miller_se), "draws": self.draws_n, "seed": self.seed,
            "warnings": list(self.warnings),
            **({"dataset": self.dataset} if self.dataset is not None else {}),
        }

    def to_frame(self):
        """A one-row pandas DataFrame (numeric columns, as :meth:`to_dict`)."""
        return Evaluation([self]).to_frame()

    def summary(self) -> str:
        """A one-row text table: value, posterior mean and sd, interval, scope and prior."""
        return Evaluation([self]).summary()

    def to_inference_data(self, n: int = DEFAULT_DRAWS, seed: int | None = None):
        """ArviZ InferenceData with this metric's posterior draws (variable = metric; dims chain, draw, model)."""
        return Evaluation([self]).to_inference_data(n=n, seed=seed)

    def __repr__(self) -> str:
        head = f"{self.model}: " if self.model else ""
        value = "-" if self.value is None else f"{self.value:.4g}"
        return (
            f"<Estimate {head}{self.metric} = {value}; posterior {self.mean:.4g} +- {self.sd:.2g}, "
            f"{pct(self.level)} {self.method} interval [{self.lo:.4g}, {self.hi:.4g}]; scope={self.scope}, "
            f"prior={self.prior}, M={self.M}, N={self.N}>"
        )

    def _repr_html_(self) -> str:
        return Evaluation([self])._repr_html_()


class BootstrapTUnavailable(ValueError):
    """An interval over questions (bootstrap-t, binomial, betting) does not apply to this estimate (the message says
    why)."""


def _question_scores(post: Posterior, scope: str, name: str) -> np.ndarray:
    """The per-state unbiased scores that an interval over questions (``name``) needs, or a
    :class:`BootstrapTUnavailable` that says why there are none (a ValueError for the benchmark scope, which no
    cell of a table could take)."""
    if scope != "population":
        raise ValueError(f"the {name} interval treats the questions as a sample, so it answers the population "
                         f"scope; this estimate's scope is {scope!r}: estimate(..., scope='population')")
    if post.spec.kind == "geospectrum":
        raise BootstrapTUnavailable(f"the {name} interval does not cover geospectrum (a blend of two means, "
                                    "not one mean over questions)")
    x = post.state_scores()
    if x is None:
        raise BootstrapTUnavailable(f"the {name} interval needs an unbiased per-question score of "
                                    f"{post.spec.label}, which needs at least k trials per question")
    return np.asarray(x, dtype=np.float64)


def widen(post: Posterior, scope: str, level: float, lo: float, hi: float, seed: int,
          bound: str = "exact+binomial") -> tuple[float, float]:
    """``(lo, hi)`` widened by a confidence interval over questions: ``bound="exact+binomial"``, the hull of it and
    Clopper-Pearson's interval on the summed scores (:func:`bayeseval.intervals.binomial_interval`: exact for 0/1
    scores, checked by enumeration between); ``"exact+betting"``, its far end -- the one away from the end of the
    range nearer the estimate -- moved out to the betting interval's where that reaches further
    (:func:`bayeseval.intervals.betting_interval`: valid whatever the pool; questions in a random order drawn
    from ``seed``).

    Where few questions carry an estimate (its distance from the nearer end rests on them), a sample that
    lacks some of the rare questions that carry it puts the estimate, and a posterior interval around it, too
    close to that end: most misses are on the far side (``docs/honesty.md``).  The near end misses too where a
    single carrying question is seen (1 of 100 correct, one trial each: the posterior's lower end 0.0007 against
    Clopper-Pearson's 0.00025 left the population interval covering 91.8% at p = 0.00085, by enumeration), so
    Clopper-Pearson's is taken whole; it costs no draws and moves the near end by little."""
    from .intervals import betting_interval, binomial_interval

    x = _question_scores(post, scope, bound.split("+")[1])
    if post.range[0] == post.range[1]:  # a constant payoff (its warning says so): no interval over questions to add
        return lo, hi
    if bound != "exact+betting":  # Clopper-Pearson's: the hull (its near end too, which needs no draws)
        b_lo, b_hi = binomial_interval(x, post.freq, level, post.range)
        return min(lo, b_lo), max(hi, b_hi)
    b_lo, b_hi = betting_interval(x, post.freq, level, post.range, np.random.default_rng(seed))
    r_lo, r_hi = post.range
    mean = float(post.freq @ x) / post.M
    return (lo, max(hi, b_hi)) if mean - r_lo <= r_hi - mean else (min(lo, b_lo), hi)


def resolve_interval(post: Posterior, scope: str, method: str) -> str:
    """The method ``"auto"`` stands for: ``"exact+binomial"`` where the population-scope result warns that few
    questions carry it (:meth:`~bayeseval.posterior.Posterior.few_carrying`) or none does (every question at the
    same end of the range: :meth:`~bayeseval.posterior.Posterior.at_range_end`) and an interval over questions
    applies, ``"exact"`` elsewhere; any other method is itself."""
    if method != DEFAULT_INTERVAL:
        return method
    few = post.few_carrying(scope) is not None or post.at_range_end(scope)
    if not few or post.spec.kind == "geospectrum" or post.state_scores() is None:
        return "exact"
    return "exact+binomial"


def _bootstrap_t(post: Posterior, scope: str, level: float, resamples: int, seed: int) -> tuple[float, float]:
    """:meth:`Estimate.bootstrap_t_interval` of a built posterior (arguments validated), or a
    :class:`BootstrapTUnavailable` that says why it does not apply to this model and metric (a ValueError for
    the benchmark scope, which no cell of a table could take)."""
    x = _question_scores(post, scope, "bootstrap-t")
    if not post.miller_se():  # None for one question, 0 where every question scores alike
        raise BootstrapTUnavailable("the bootstrap-t interval needs at least two questions whose scores differ; "
                                    "with every question alike the bootstrap has nothing to resample (the default "
                                    "interval's prior pseudo-question sets its width)")
    from .posterior.bootstrap import bootstrap_t

    return bootstrap_t(x, post.freq, level, resamples, np.random.default_rng(seed), post.range)


def _contain(lo: float, hi: float, value: float | None) -> tuple[float, float]:
    """``(lo, hi)`` reaching out to ``value`` where it lies outside (an interval contains its reported value)."""
    return (lo, hi) if value is None else (min(lo, value), max(hi, value))


def _interval(post: Posterior, scope: str, level: float, method: str, draws: int, seed: int,
              value: float | None = None, resamples: int | None = None) -> tuple[float, float]:
    """The interval in ``scope``; where the reported ``value`` sits on a bound of the metric's range
    (every question solved, say) and outside the central interval, the one-sided interval that holds
    ``level`` of the posterior and reaches that bound, so an interval always contains its value there; where
    it lies inside the range but outside the interval of a posterior centred at it (a skewed posterior at a low
    level), the nearer end moves to the value (a prior that pulls keeps its interval and its warning).
    ``bootstrap-t``: :func:`_bootstrap_t` with ``resamples`` (default ``draws``), which refuses questions that
    are all alike; ``exact+bootstrap-t``: the wider ends of the exact interval and that one; ``exact+binomial``: the
    hull of the exact interval and Clopper-Pearson's on the summed scores; ``exact+betting``: the exact interval with
    its far end widened to the betting interval's (:func:`widen`); ``auto``:
    :func:`resolve_interval`."""
    resamples = draws if resamples is None else resamples
    method = resolve_interval(post, scope, method)
    if method == "bootstrap-t":
        return _contain(*_bootstrap_t(post, scope, level, resamples, seed), value if post.centred else None)
    if method in WIDENING_METHODS:
        return widen(post, scope, level, *_interval(post, scope, level, "exact", draws, seed, value), seed, method)
    if method == "exact+bootstrap-t":
        lo_t, hi_t = _bootstrap_t(post, scope, level, resamples, seed)
        lo, hi = _interval(post, scope, level, "exact", draws, seed, value)
        return min(lo, lo_t), max(hi, hi_t)
    lo_b, hi_b = post.range
    x = None
    if method == "normal":
        from .intervals import normal_interval

        mean, sd = post.moments(scope)
        lo, hi = normal_interval(mean, sd, level, (lo_b, hi_b))
    else:
        exact = post.single_question_exact(level, method)
        if exact is None:
            exact = post.closed_interval(scope, level, method)
        if exact is not None:
            lo, hi = exact
        else:
            x = post.draws(scope, draws, np.random.default_rng(seed))
            lo, hi = interval_from_draws(x, level, method)
            lo, hi = max(lo, lo_b), min(hi, hi_b)
    if value is None or lo <= value <= hi:
        return lo, hi
    if lo_b < value < hi_b:  # inside the range: a posterior centred at the value (the default), or whose mean the
        # value is (Bayes@N), whose skew puts its equal-tailed or shortest interval past it at a low level moves the
        # nearer end to it; a prior that pulls keeps its interval (the reference numbers) and its result says so
        own_mean = math.isclose(value, post.moments(scope)[0], rel_tol=1e-9, abs_tol=1e-12)
        return _contain(lo, hi, value) if post.centred or own_mean else (lo, hi)
    if method == "normal":
        from scipy.special import ndtri

        mean, sd = post.moments(scope)
        q = float(ndtri(level))
        return (max(mean - q * sd, lo_b), hi_b) if value >= hi_b else (lo_b, min(mean + q * sd, hi_b))
    one_q = post.single_question_exact(2.0 * level - 1.0, "exact") if level > 0.5 else None
    if one_q is not None:  # exact Beta quantiles: the central (2 level - 1) interval's ends are the 1 - level / level quantiles
        return (one_q[0], hi_b) if value >= hi_b else (lo_b, one_q[1])
    if x is None:
        x = post.draws(scope, draws, np.random.default_rng(seed))
    if value >= hi_b:
        return max(float(np.quantile(x, 1.0 - level)), lo_b), hi_b
    return lo_b, min(float(np.quantile(x, level)), hi_b)


def estimate(
    R: Any,
    metric: Any = "avg",
    *,
    scope: str = DEFAULT_SCOPE,
    interval: str = DEFAULT_INTERVAL,
    level: float = 0.95,
    prior: Any = None,
    alpha0: Any = None,
    beta0: Any = None,
    w: Any = None,
    R0: Any = None,
    draws: int = DEFAULT_DRAWS,
    seed: int | None = None,
    model: str | None = None,
    missing: Any = None,
    ragged: bool = False,
    labels: str | None = None,
    score_range: Any = None,
    **metric_params,
) -> Estimate:
    """Estimate one metric with a credible interval.

    Parameters
    ----------
    R : outcome matrix, DataFrame, list of rows, or :class:`~bayeseval.Counts`
        Rows are questions, columns trials; a flat sequence is refused as ambiguous (one trial per question
        is ``np.asarray(x).reshape(-1, 1)``).
    metric : str or payoff vector
        ``"avg"``, ``"bayes"``, ``"pass@k"`` (``k=`` or ``"pass@8"``), ``"pass^k"``,
        ``"maj@k"``, ``"cons@k"``, ``"g-pass@k"`` (``tau=``), ``"mg-pass@k"``,
        ``"auc@k"``, ``"max@k"`` (``w=``), ``"geospectrum@k"`` (``lam=``,
        ``weights=``), ``"avg@n"``, or a payoff vector ``c[0..k]``.
    scope : ``"population"`` (default) or ``"benchmark"`` -- see :mod:`bayeseval.posterior`.
    interval : ``"auto"`` (default): ``"exact"``, except where the population-scope result warns that few
        questions carry the metric (:meth:`~bayeseval.posterior.Posterior.few_carrying`) or every question
        scores at the same end of the range (:meth:`~bayeseval.posterior.Posterior.at_range_end`: 0 of 100
        correct); there ``"exact+binomial"``, which the estimate's ``interval`` then names.  ``"exact"``: the
        equal-tailed
        posterior interval, ``"normal"``, ``"hdi"``; over questions (population scope, frequentist intervals
        beside the posterior's mean and sd): ``"bootstrap-t"``, the studentized bootstrap
        (:meth:`Estimate.bootstrap_t_interval`), ``"exact+bootstrap-t"``, the wider ends of the exact interval
        and that one, ``"exact+binomial"``, the hull of the exact interval and Clopper-Pearson's on the questions'
        summed scores (:func:`widen`, :func:`bayeseval.intervals.binomial_interval`: exact for 0/1 scores, checked
        by enumeration for scores between), and ``"exact+betting"``, the exact interval with its far end (away from
        the end of the range nearer the estimate) widened to the betting confidence interval's for a bounded mean
        (:func:`bayeseval.intervals.betting_interval`: it holds its level whatever the pool, and is wider with more
        than about 30 questions; docs/honesty.md).
    level : credibility level in (0, 1).
    prior : ``None`` (``"robust"`` for binary outcomes, :mod:`bayeseval.posterior.robust`; for
        categorical ``avg`` / ``avg@n`` the pooled ``"hierarchical-dirichlet"``; for ``max@k`` a posterior centred
        at its unbiased estimate, reported as ``"robust"`` (:mod:`bayeseval.posterior.maxk`; Dirichlet(1 + R0) where
        k exceeds the trials); Dirichlet(1 + R0) for ``bayes`` or when ``R0`` is given), ``"hierarchical"`` (one
        Beta pool),
        ``"hierarchical-dirichlet"``, ``"uniform"`` (``"dirichlet"``), ``"jeffreys"``
        or ``(alpha0, beta0)``; ``alpha0=``/``beta0=`` also set a Beta prior.
    w, R0 : category weights and prior outcomes for categorical metrics.
    draws, seed : posterior draws behind exact / hdi intervals, resamples behind bootstrap-t (seeded; the
        same seed gives the same interval).
    model, labels : the model's name, carried into tables (``labels=`` is the name shared with
        :func:`~bayeseval.compare`, whose ``labels`` is a pair, and :func:`evaluate`; :func:`~bayeseval.compare_all`
        names its models by their keys).
    missing, ragged : passed to :func:`~bayeseval.to_counts` (``missing=np.nan`` for unobserved
        trials, ``ragged=True`` for lists of rows of different lengths).
    score_range : ``(lo, hi)``: read ``R`` as continuous scores in that range (token F1, BLEU, judge
        probabilities; :mod:`bayeseval.posterior.scores`).  A value that is not an integer makes ``R``
        scores in ``[0, 1]`` without it.  Scores have the metric ``avg`` (the mean score);
        ``threshold=t`` turns them into 0/1 outcomes (``score > t``) for every other metric.

    Returns
    -------
    Estimate
    """
    scope = check_choice(scope, "scope", SCOPES)
    method = check_choice(interval, "interval", ESTIMATE_INTERVALS)
    level = V.confidence(level, "level")
    draws = V.integer(draws, "draws", minimum=100)
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    model = _label(model, labels)
    if not ragged and is_flat(R):
        raise flat_error("R is", len(R))
    if (missing is not None or ragged or score_range is not None) and not isinstance(R, (Counts, Scores)) \
            and not _needs_trials(metric, metric_params):
        R = to_outcomes(R, w, missing=missing, ragged=ragged, score_range=score_range, name="R")
    post = build(R, metric, prior=prior, alpha0=alpha0, beta0=beta0, w=w, R0=R0, score_range=score_range,
                 missing=missing, ragged=ragged, **metric_params)
    _check_replicas(metric, post.counts)
    return summarise(post, scope=scope, method=method, level=level, draws=draws, seed=seed, model=model)


def _check_replicas(metric: Any, counts: Counts) -> None:
    """``avg@3`` names 3 replicas per question: refuse outcomes with more (they would all be averaged) or with
    fewer on every question (the number named is not the number averaged)."""
    m = re.fullmatch(r"\s*avg@(\d+)\s*", metric, flags=re.IGNORECASE) if isinstance(metric, str) else None
    if m and int(m.group(1)) < counts.N:
        raise ValueError(f"metric {metric!r} names {int(m.group(1))} replicas per question, but questions have up "
                         f"to {counts.N} trials; use 'avg' (or 'avg@{counts.N}') for all of them, or keep the "
                         f"first {int(m.group(1))} trials of each question")
    if m and int(m.group(1)) <= counts.N and int(np.min(counts.n)) < int(m.group(1)):
        few = int(np.sum(np.asarray(counts.n) < int(m.group(1))))
        raise ValueError(f"metric {metric!r} names {int(m.group(1))} replicas per question, but {few} question(s) "
                         f"have fewer (as few as {int(np.min(counts.n))}); use 'avg' for the trials there are, or give "
                         f"every question {int(m.group(1))} replicas")
    if m and int(m.group(1)) > counts.N:
        raise ValueError(f"metric {metric!r} names {int(m.group(1))} replicas per question, but no question has more "
                         f"than {counts.N} trials; use 'avg' (or 'avg@{counts.N}') for the trials there are")


def _label(model: Any, labels: Any) -> str | None:
    if labels is not None and model is not None and labels != model:
        raise ValueError(f"give the model's name once: model={model!r} and labels={labels!r} differ")
    name = model if model is not None else labels
    if name is not None and not isinstance(name, str):
        raise V.InputTypeError(f"labels must be a string (the model's name), got {V.describe(name)}")
    return name


def _needs_trials(metric: Any, params: dict) -> bool:
    """avg@n with a score threshold reads the raw scores, so they are not counted beforehand."""
    return "threshold" in params or (isinstance(metric, str) and "threshold" in metric)


#: what the few-carrying warning adds where the caller can take it (an estimate with a posterior interval)
WIDER_ENDS_ADVICE = ("; the default interval ('auto') widens it to Clopper-Pearson's interval on the summed scores, "
                     "each of whose ends misses at most half the complement of the level: estimate(..., "
                     "interval='auto'), CLI report --interval auto (docs/honesty.md)")
#: per widening method: the interval it widens by and how far it can be trusted, how the widened interval relates to
#: it, and what it lies inside where it widens nothing
BOUND_WORDS = {"exact+binomial": ("Clopper-Pearson's interval on the questions' summed scores, each of whose ends "
                                  "misses at most half the complement of the level (exact for 0/1 scores; checked by "
                                  "enumeration for scores between)", "this interval holds", "the posterior interval"),
               "exact+betting": ("a betting confidence bound, which misses at most half the complement of the level "
                                 "whatever the pool", "this interval's far end (away from the nearer end of the "
                                 "range) is", "this interval's far end")}


def widened_note(bound: str) -> str:
    """What the few-carrying warning adds where the interval was widened by ``bound`` (a WIDENING_METHODS entry)."""
    what, verb, _ = BOUND_WORDS[bound]
    return f"; so {verb} {what} (docs/honesty.md; interval='exact' for the posterior interval alone)"


def inside_note(bound: str) -> str:
    """... and where the interval looked at ``bound`` and it lay inside the posterior interval."""
    what, _, inside = BOUND_WORDS[bound]
    return f"; {what}, lies inside {inside}, so the interval is the posterior's (docs/honesty.md)"


def summarise(post: Posterior, *, scope: str, method: str, level: float, draws: int, seed: int,
              model: str | None = None, advise: bool = True) -> Estimate:
    """The :class:`Estimate` of an already-built posterior (arguments already validated); ``advise=False``
    (compare, rank: posterior intervals only) leaves other interval methods out of the warnings' advice.
    ``method="auto"`` becomes the method it stands for (:func:`resolve_interval`), which the estimate records."""
    mean, sd = post.moments(scope)
    value = post.value()
    asked, method = method, resolve_interval(post, scope, method)
    considered = method if method in WIDENING_METHODS else None  # the default (or the caller) looked at a bound
    if considered:
        exact = _interval(post, scope, level, "exact", draws, seed, value)
        lo, hi = widen(post, scope, level, *exact, seed, considered)
        if (lo, hi) == exact:  # the bound lies inside: the row is the posterior's, and says so
            method = "exact"
    else:
        lo, hi = _interval(post, scope, level, method, draws, seed, value)
    if considered:
        advice = widened_note(considered) if method == considered else inside_note(considered)
    elif advise and method not in QUESTION_METHODS and post.spec.kind != "geospectrum":
        advice = WIDER_ENDS_ADVICE
    else:
        advice = ""
    notes = tuple(post.checks(scope, mean, sd, value, advice, level))
    for text in notes:  # shown by the CLI on stderr and returned by the service under "warnings"
        warnings.warn(f"{model + ': ' if model else ''}{post.spec.label}: {text}", ModelCheckWarning,
                      stacklevel=user_stacklevel())
    n = post.counts.n
    N = int(n[0]) if not post.counts.ragged else (int(n.min()), int(n.max()))
    return Estimate(
        metric=post.spec.label, value=value, mean=mean, sd=sd, lo=lo, hi=hi, level=level, scope=scope,
        method=method, M=post.M, N=N, prior=post.prior.label, model=model, miller_se=post.miller_se(),
        draws_n=draws if method != "normal" else None, seed=seed, warnings=notes, _post=post, _asked=asked,
    )


class Evaluation(Result):
    """A labelled collection of :class:`Estimate` (datasets x models x metrics) that prints as a table.

    Select by label with :meth:`sel` (``ev.sel(model="a", metric="pass@4")``), index one estimate
    with ``ev["a", "pass@4"]`` (or ``ev["dataset", "a", "pass@4"]``), export with :meth:`to_frame`
    (numeric), :meth:`to_xarray` (dims dataset, model, metric) or :meth:`to_inference_data`.

    >>> import numpy as np
    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> ev = evaluate({"a": R, "b": 1 - R}, ["avg", "pass@2"], prior="uniform", scope="benchmark")
    >>> len(ev.sel(model="b")), ev.sel(metric="avg").models
    (2, ['a', 'b'])
    >>> round(ev.sel(model="a", metric="avg").item().value, 2)
    0.7
    """

    def __init__(self, estimates):
        self.estimates = list(estimates)

    def __iter__(self):
        return iter(self.estimates)

    def __len__(self) -> int:
        return len(self.estimates)

    def __getitem__(self, key):
        if isinstance(key, tuple):
            if len(key) == 3:
                dataset, model, metric = key
                found = self.sel(dataset=dataset, model=model, metric=metric)
            elif len(key) == 2:
                found = self.sel(model=key[0], metric=key[1])
            else:
                raise KeyError(key)
            if len(found) == 1:
                return found.estimates[0]
            if len(found) > 1:
                raise KeyError(f"{key!r} matches {len(found)} estimates (one per dataset); "
                               f"use ev[dataset, model, metric] or ev.sel(...)")
            raise KeyError(key)
        return self.estimates[key]

    @property
    def models(self) -> list:
        return list(dict.fromkeys(e.model for e in self.estimates))

    @property
    def metrics(self) -> list:
        return list(dict.fromkeys(e.metric for e in self.estimates))

    @property
    def datasets(self) -> list:
        return list(dict.fromkeys(e.dataset for e in self.estimates))

    def sel(self, *, model: Any = None, metric: Any = None, dataset: Any = None) -> "Evaluation":
        """The estimates whose labels match (each argument one label or a list of labels)."""

        def wanted(x):
            if x is None:
                return None
            return set(x) if isinstance(x, (list, tuple, set)) else {x}

        m, k, d = wanted(model), wanted(metric), wanted(dataset)
        return Evaluation(e for e in self.estimates
                          if (m is None or e.model in m) and (k is None or e.metric in k)
                          and (d is None or e.dataset in d))

    def item(self) -> Estimate:
        """The one estimate of a selection (ValueError when there are several or none)."""
        if len(self.estimates) != 1:
            raise ValueError(f"item() needs exactly one estimate; this selection holds {len(self.estimates)}")
        return self.estimates[0]

    def confidence_interval(self, level: float | None = None, method: str | None = None) -> list:
        """Each estimate's ``(lo, hi)`` at ``level`` / ``method``, in order (see :meth:`Estimate.confidence_interval`)."""
        return [e.confidence_interval(level, method) for e in self.estimates]

    def to_records(self) -> list[dict]:
        return [e.to_dict() for e in self.estimates]

    def to_dict(self) -> dict:
        return {"estimates": self.to_records()}

    def to_frame(self):
        """A pandas DataFrame, one row per (model, metric), numeric columns."""
        import pandas as pd

        frame = pd.DataFrame.from_records(self.to_records())
        for col in ("value", "miller_se"):  # None (k > n) as NaN: numeric even where no row has a value
            if col in frame:
                frame[col] = pd.to_numeric(frame[col], errors="coerce").astype("float64")
        return frame

    def _cells(self, what: str, unnamed: str = "-") -> tuple[list, list, list, dict]:
        """``(datasets, models, metrics, {(i, j, k): estimate})`` with text labels (None as ``unnamed``); a cell
        given twice (two scopes or levels of one estimate, or an unnamed model beside one named so) is an error,
        as in the tables."""
        label = lambda x, none="-": none if x is None else str(x)  # noqa: E731
        ds_ = list(dict.fromkeys(label(x) for x in self.datasets))
        ms = list(dict.fromkeys(label(x, unnamed) for x in self.models))
        ks = list(self.metrics)
        cells: dict = {}
        for e in self.estimates:
            key = (ds_.index(label(e.dataset)), ms.index(label(e.model, unnamed)), ks.index(e.metric))
            if key in cells:
                raise ValueError(f"{what}: dataset {ds_[key[0]]!r}, model {ms[key[1]]!r}, metric {e.metric!r} "
                                 "appears twice (another scope, level or an unnamed model?); export one of them")
            cells[key] = e
        return ds_, ms, ks, cells

    def _attrs(self) -> dict:
        """What the intervals are: level, scope, interval method and prior, one value where every estimate shares
        it, else a JSON object by metric (a value, or a list where the metric's estimates differ)."""
        out = {"source": "bayeseval"}
        for name, get in (("level", lambda e: e.level), ("scope", lambda e: e.scope), ("interval", lambda e: e.method),
                          ("prior", lambda e: e.prior)):
            values = list(dict.fromkeys(get(e) for e in self.estimates))
            if len(values) == 1:
                out[name] = values[0]
            else:
                by: dict = {}
                for e in self.estimates:
                    by.setdefault(e.metric, [])
                    if get(e) not in by[e.metric]:
                        by[e.metric].append(get(e))
                out[name] = json.dumps({k: v[0] if len(v) == 1 else v for k, v in by.items()})
        return out

    def to_xarray(self):
        """An ``xarray.Dataset`` with variables value, mean, sd, lo, hi over dims (dataset, model, metric); its
        attrs say what the intervals are (level, scope, interval, prior)."""
        try:
            import xarray as xr
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise ImportError("to_xarray needs xarray: pip install 'bayeseval[notebook]'") from exc
        ds_, ms, ks, cells = self._cells("to_xarray")
        shape = (len(ds_), len(ms), len(ks))
        data = {v: np.full(shape, np.nan) for v in ("value", "mean", "sd", "lo", "hi")}
        for key, e in cells.items():
            for v in data:
                x = getattr(e, v)
                data[v][key] = np.nan if x is None else x
        return xr.Dataset({v: (("dataset", "model", "metric"), a) for v, a in data.items()},
                          coords={"dataset": ds_, "model": ms, "metric": ks}, attrs=self._attrs())

    def _rows(self):
        several = len(self.datasets) > 1  # rows of one model and metric on several datasets: say which is which
        header = (("dataset",) if several else ()) + ("model", "metric", "value", "mean", "sd", "interval", "scope",
                                                      "prior")
        rows = [header]
        for e in self.estimates:
            rows.append(((str(e.dataset) if e.dataset is not None else "-",) if several else ()) + (
                e.model or "-", e.metric, "-" if e.value is None else f"{e.value:.4f}", f"{e.mean:.4f}",
                f"{e.sd:.4f}", f"[{e.lo:.4f}, {e.hi:.4f}] {pct(e.level)} {e.method}", e.scope, e.prior,
            ))
        return rows

    def summary(self) -> str:
        rows = self._rows()
        return text_table(rows[0], rows[1:])

    def _repr_html_(self) -> str:
        rows = self._rows()
        return html_table(rows[0], rows[1:])

    def to_inference_data(self, n: int = DEFAULT_DRAWS, seed: int | None = None):
        """ArviZ InferenceData: one posterior variable per metric, dims (chain, draw, model), and (dataset, model)
        where there are several datasets.

        Every estimate contributes ``n`` draws in its own scope, seeded per (dataset, model) from ``seed`` (default:
        the estimates' seed): one model's metrics share a stream (in population scope, the same weights over its
        questions), and different models have independent ones.  So each model's marginals are its posterior,
        and ``az.summary(idata)`` gives one row per metric and model (``pass@4[a]``); a difference of two models'
        draws ignores that they answered the same questions -- :func:`bayeseval.compare` gives the paired
        posterior.  (The metric is the variable rather than a dimension because ArviZ's summary reserves a
        dimension of that name.)
        """
        try:
            import arviz as az
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise ImportError("to_inference_data needs ArviZ: pip install 'bayeseval[notebook]'") from exc
        n = V.integer(n, "n", minimum=1)
        seed = None if seed is None else V.integer(seed, "seed", minimum=0)
        ds_, ms, ks, cells = self._cells("to_inference_data", unnamed="model")  # az.summary rows read avg[model]
        several = len(ds_) > 1
        shape = (1, n, len(ds_), len(ms)) if several else (1, n, len(ms))
        posterior = {m: np.full(shape, np.nan) for m in ks}
        for (i, j, k), e in cells.items():
            base = e.seed if seed is None else seed
            stream = int(np.random.SeedSequence([base, i, j]).generate_state(1)[0])  # one per (dataset, model)
            draws = e.draws(n, stream)
            if several:
                posterior[ks[k]][0, :, i, j] = draws
            else:
                posterior[ks[k]][0, :, j] = draws
        dims = ["dataset", "model"] if several else ["model"]
        coords = {"dataset": ds_, "model": ms} if several else {"model": ms}
        return az.from_dict(posterior=posterior, coords=coords, dims={m: dims for m in ks}, attrs=self._attrs())


def _runs(models: Any) -> list[tuple[str | None, str | None, Any, Any, Any]]:
    """(dataset, model, outcomes, category weights, the OutcomeSet's run or None) for each run of ``models``."""
    if isinstance(models, dict):
        if not models:
            raise ValueError("models must name at least one model")
        return [(None, name, R, None, None) for name, R in models.items()]
    if hasattr(models, "_runs") and hasattr(models, "datasets"):  # an OutcomeSet
        named = len(models.datasets) > 1 or models.datasets != [UNNAMED_DATASET]  # the readers' name for none
        return [(run.dataset if named else None, run.model, run.counts(), run.weights, run) for run in models]
    return [(None, None, models, None, None)]


def run_values(run: Any):
    """An OutcomeSet run's trial values (a category's weight, a score itself; NaN = missing) as a DataFrame
    indexed by question id: what ``threshold=`` reads."""
    import pandas as pd

    return pd.DataFrame(run.values(), index=pd.Index(list(run.ids), dtype=object))


def _metric_list(metrics: Any) -> list[tuple[Any, dict]]:
    """``metrics`` (one metric, or a list of metrics and ``(metric, params)`` pairs) as ``(metric, params)`` pairs;
    an empty list is an error."""
    if isinstance(metrics, (str, bytes)) or not hasattr(metrics, "__iter__"):
        metrics = [metrics]
    out = []
    for m in metrics:
        if isinstance(m, tuple) and len(m) == 2 and isinstance(m[1], dict):
            out.append((m[0], dict(m[1])))
        else:
            out.append((m, {}))
    if not out:
        raise ValueError("metrics: give at least one metric, e.g. ['avg', 'pass@3']")
    return out


def _estimate_cell(R: Any, metric: Any, dataset: str | None = None, **kw) -> Estimate:
    """:func:`estimate` for one cell of :func:`evaluate`: where the interval over questions asked for (bootstrap-t,
    binomial, betting) does not apply to this model and metric (k > n, every question alike, geospectrum), the cell
    takes the equal-tailed posterior
    interval and says so, so that one such cell does not stop the table."""
    try:
        return estimate(R, metric, **kw)
    except BootstrapTUnavailable as exc:
        e = estimate(R, metric, **{**kw, "interval": POSTERIOR_INTERVAL})
        name = kw["interval"].split("+")[1] if kw.get("interval") in WIDENING_METHODS else "bootstrap-t"
        note = f"the {name} interval {NOT_APPLIED}: {exc}; this row shows the equal-tailed posterior interval"
        where = "/".join(x for x in (dataset, e.model) if x)
        warnings.warn(f"{where + ': ' if where else ''}{e.metric}: {note}", ModelCheckWarning,
                      stacklevel=user_stacklevel())
        return dataclasses.replace(e, warnings=e.warnings + (note,))


def evaluate(models: Any, metrics: Any = ("avg",), *, missing: Any = None, ragged: bool = False,
             labels: Any = None, **kwargs) -> Evaluation:
    """Estimate several metrics for several models; each model's outcomes are counted once and every
    metric shares its population fit.

    With ``interval="bootstrap-t"`` (or ``"exact+bootstrap-t"``), a cell it does not apply to (k > n, every
    question alike, geospectrum) takes the equal-tailed posterior interval and a warning that says so.

    ``models``: a dict ``name -> outcomes``, an :class:`~bayeseval.io.OutcomeSet` (its category weights
    are used unless ``w=`` is given; each estimate carries its ``dataset`` where the input names one), a
    list of outcome matrices with ``labels=`` naming them, or one matrix.  ``metrics`` is a list of
    metric names or ``(name, params)`` pairs.  Keyword arguments go to :func:`estimate`.  An input
    error names the model and metric: its ``model``, ``dataset`` and ``metric_index`` attributes say
    which (for shells that point at a field).

    >>> import numpy as np
    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> ev = evaluate({"a": R}, ["avg", "pass@2"], scope="benchmark", prior="uniform", interval="normal")
    >>> [round(e.mean, 6) for e in ev]
    [0.642857, 0.839286]
    """
    if "metric" in kwargs:  # estimate's argument; here it would reach each cell beside the metric being estimated
        raise V.InputTypeError(f"evaluate takes metrics= (a list of metric names, or one name), not metric=; got "
                               f"metric={kwargs['metric']!r}")
    if labels is not None:
        if isinstance(models, dict) or not isinstance(models, (list, tuple)):
            raise V.InputTypeError("labels= names a list of outcome matrices; a dict or OutcomeSet has its own names")
        if len(labels) != len(models) or len(set(labels)) != len(labels):
            raise ValueError(f"labels must give one different name per model: {len(models)} models, labels {labels!r}")
        models = dict(zip(labels, models))
    metric_list = _metric_list(metrics)
    out = []
    for dataset, name, data, weights, run in _runs(models):
        if not ragged and is_flat(data):
            raise flat_error(f"model {name!r}: its outcomes are", len(data))
        base = dict(kwargs) if weights is None or "w" in kwargs else {**kwargs, "w": weights}
        counted: dict = {}
        for i, (metric, params) in enumerate(metric_list):
            kw = {**base, **params}
            try:
                R = data
                if run is not None and "threshold" in kw and not names_avg_at_n(metric):
                    kw.pop("w", None)  # threshold= reads the trial values themselves
                    if run.scale is not None:
                        kw.setdefault("score_range", run.scale)
                    e = _estimate_cell(run_values(run), metric, dataset, model=name, missing=np.nan, **kw)
                    out.append(e if dataset is None else dataclasses.replace(e, dataset=dataset))
                    continue
                if not isinstance(data, Counts) and not _needs_trials(metric, kw):
                    w = kw.get("w")
                    key = None if w is None else np.asarray(w, dtype=np.float64).tobytes()
                    if key not in counted:  # once per model (and weight vector), shared by every metric
                        counted[key] = to_outcomes(data, w, missing=missing, ragged=ragged,
                                                   score_range=kw.get("score_range"), name=name or "R")
                    R = counted[key]
                e = _estimate_cell(R, metric, dataset, model=name, missing=missing, ragged=ragged, **kw)
            except (ValueError, TypeError) as exc:
                exc.model, exc.dataset, exc.metric_index = name, dataset, i
                raise
            out.append(e if dataset is None else dataclasses.replace(e, dataset=dataset))
    return Evaluation(out)
