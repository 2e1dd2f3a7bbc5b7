"""High-level entry points: :func:`estimate` (one metric) and :func:`evaluate` (many metrics and models).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> R = (rng.random((200, 8)) < rng.beta(2, 5, (200, 1))).astype(int)
>>> est = estimate(R, "pass@4", scope="benchmark", prior="uniform", interval="normal")
>>> est.scope, est.interval, round(est.value, 3)
('benchmark', 'normal', 0.617)
>>> lo, hi = est.interval(0.9)
>>> lo < est.mean < hi
True
"""

from __future__ import annotations

import json
import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import validate as V
from .posterior import METHODS, SCOPES, Posterior, build, interval_from_draws
from ._text import html_table, text_table

__all__ = ["Estimate", "Evaluation", "estimate", "evaluate", "DEFAULT_SCOPE", "DEFAULT_INTERVAL", "DEFAULT_DRAWS"]

DEFAULT_SCOPE = "population"
DEFAULT_INTERVAL = "exact"
DEFAULT_DRAWS = 4000
DEFAULT_SEED = 20251104


def _check_choice(value: Any, name: str, options: tuple) -> str:
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(repr(o) for o in options)}, got {value!r}")
    return value


class _IntervalMethod(str):
    """The interval method's name (a ``str``) that can also be called: ``est.interval(level, method)``."""

    def __new__(cls, name: str, owner: "Estimate"):
        obj = super().__new__(cls, name)
        obj._owner = owner
        return obj

    def __call__(self, level: float | str | None = None, method: str | None = None) -> tuple[float, float]:
        if isinstance(level, str) and method is None:  # est.interval("hdi")
            level, method = None, level
        return self._owner.interval_at(level, method)


@dataclass(frozen=True, eq=False)
class Estimate:
    """A posterior summary of one metric: point estimate, posterior mean/sd and an interval.

    Attributes: ``value`` (the finite-sample estimate, None where undefined;
    for ``"bayes"`` it is Bayes@N itself, the posterior mean),
    ``mean``, ``sd``, ``lo``, ``hi``, ``level``, ``scope``, ``interval`` (the
    method's name; call it for another level or method), ``M``, ``N``,
    ``metric``, ``prior``, ``model``, ``miller_se`` (question-clustered
    standard error of ``value``: the frequentist reference for the population
    scope), ``draws_n`` (draws behind an exact / hdi interval) and ``seed``
    (for those intervals and for :meth:`draws`).
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
    _post: Posterior | None = field(default=None, repr=False)

    @property
    def interval(self) -> _IntervalMethod:
        return _IntervalMethod(self.method, self)

    def interval_at(self, level: float | None = None, method: str | None = None) -> tuple[float, float]:
        """Interval at another credibility ``level`` and/or ``method`` (same scope, prior and seed)."""
        level = self.level if level is None else V.confidence(level, "level")
        method = self.method if method is None else _check_choice(method, "method", METHODS)
        if level == self.level and method == self.method:
            return self.lo, self.hi
        return _interval(self._post, self.scope, level, method, self.draws_n or DEFAULT_DRAWS, self.seed)

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
            **({"dataset": self.dataset} if self.dataset is not None else {}),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def to_inference_data(self, n: int = DEFAULT_DRAWS, seed: int | None = None):
        """ArviZ InferenceData with this metric's posterior draws (variable = metric; dims chain, draw, model)."""
        return Evaluation([self]).to_inference_data(n=n, seed=seed)

    def __repr__(self) -> str:
        head = f"{self.model}: " if self.model else ""
        value = "-" if self.value is None else f"{self.value:.4g}"
        return (
            f"<Estimate {head}{self.metric} = {value}; posterior {self.mean:.4g} +- {self.sd:.2g}, "
            f"{self.level:.0%} {self.method} interval [{self.lo:.4g}, {self.hi:.4g}]; scope={self.scope}, "
            f"prior={self.prior}, M={self.M}, N={self.N}>"
        )

    def _repr_html_(self) -> str:
        return Evaluation([self])._repr_html_()


def _interval(post: Posterior, scope: str, level: float, method: str, draws: int, seed: int) -> tuple[float, float]:
    lo_b, hi_b = post.range
    if method == "normal":
        from .intervals import normal_interval

        mean, sd = post.moments(scope)
        return normal_interval(mean, sd, level, (lo_b, hi_b))
    exact = post.single_question_exact(level, method)
    if exact is not None:
        return exact
    x = post.draws(scope, draws, np.random.default_rng(seed))
    lo, hi = interval_from_draws(x, level, method)
    return max(lo, lo_b), min(hi, hi_b)


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
    **metric_params,
) -> Estimate:
    """Estimate one metric with a credible interval.

    Parameters
    ----------
    R : outcome matrix, DataFrame, list of rows, or :class:`~bayeseval.Counts`
    metric : str or payoff vector
        ``"avg"``, ``"bayes"``, ``"pass@k"`` (``k=`` or ``"pass@8"``), ``"pass^k"``,
        ``"maj@k"``, ``"cons@k"``, ``"g-pass@k"`` (``tau=``), ``"mg-pass@k"``,
        ``"auc@k"``, ``"max@k"`` (``w=``), ``"geospectrum@k"`` (``lam=``,
        ``weights=``), ``"avg@n"``, or a payoff vector ``c[0..k]``.
    scope : ``"population"`` (default) or ``"benchmark"`` -- see :mod:`bayeseval.posterior`.
    interval : ``"exact"`` (default), ``"normal"`` or ``"hdi"``.
    level : credibility level in (0, 1).
    prior : ``None`` (hierarchical for binary outcomes; for categorical ``avg`` /
        ``avg@n`` the pooled ``"hierarchical-dirichlet"``; Dirichlet(1 + R0) for
        ``bayes``, ``max@k`` or when ``R0`` is given), ``"hierarchical"``,
        ``"hierarchical-dirichlet"``, ``"uniform"`` (``"dirichlet"``), ``"jeffreys"``
        or ``(alpha0, beta0)``; ``alpha0=``/``beta0=`` also set a Beta prior.
    w, R0 : category weights and prior outcomes for categorical metrics.
    draws, seed : posterior draws behind exact / hdi intervals (seeded; the
        same seed gives the same interval).
    model : a label carried into tables.

    Returns
    -------
    Estimate
    """
    scope = _check_choice(scope, "scope", SCOPES)
    method = _check_choice(interval, "interval", METHODS)
    level = V.confidence(level, "level")
    draws = V.integer(draws, "draws", minimum=100)
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    post = build(R, metric, prior=prior, alpha0=alpha0, beta0=beta0, w=w, R0=R0, **metric_params)
    return summarise(post, scope=scope, method=method, level=level, draws=draws, seed=seed, model=model)


def summarise(post: Posterior, *, scope: str, method: str, level: float, draws: int, seed: int,
              model: str | None = None) -> Estimate:
    """The :class:`Estimate` of an already-built posterior (arguments already validated)."""
    mean, sd = post.moments(scope)
    lo, hi = _interval(post, scope, level, method, draws, seed)
    n = post.counts.n
    N = int(n[0]) if not post.counts.ragged else (int(n.min()), int(n.max()))
    return Estimate(
        metric=post.spec.label, value=post.value(), mean=mean, sd=sd, lo=lo, hi=hi, level=level, scope=scope,
        method=method, M=post.M, N=N, prior=post.prior.label, model=model, miller_se=post.miller_se(),
        draws_n=draws if method != "normal" else None, seed=seed, _post=post,
    )


class Evaluation:
    """A collection of :class:`Estimate` (models x metrics) that prints as a table."""

    def __init__(self, estimates):
        self.estimates = list(estimates)

    def __iter__(self):
        return iter(self.estimates)

    def __len__(self) -> int:
        return len(self.estimates)

    def __getitem__(self, key):
        if isinstance(key, tuple):
            model, metric = key
            for e in self.estimates:
                if e.model == model and e.metric == metric:
                    return e
            raise KeyError(key)
        return self.estimates[key]

    def to_records(self) -> list[dict]:
        return [e.to_dict() for e in self.estimates]

    def to_frame(self):
        """A pandas DataFrame, one row per (model, metric)."""
        import pandas as pd

        return pd.DataFrame.from_records(self.to_records())

    def _rows(self):
        header = ("model", "metric", "value", "mean", "sd", "interval", "scope", "prior")
        rows = [header]
        for e in self.estimates:
            rows.append((
                e.model or "-", e.metric, "-" if e.value is None else f"{e.value:.4f}", f"{e.mean:.4f}",
                f"{e.sd:.4f}", f"[{e.lo:.4f}, {e.hi:.4f}] {e.level:.0%} {e.method}", e.scope, e.prior,
            ))
        return rows

    def __repr__(self) -> str:
        rows = self._rows()
        return text_table(rows[0], rows[1:])

    def _repr_html_(self) -> str:
        rows = self._rows()
        return html_table(rows[0], rows[1:])

    def to_inference_data(self, n: int = DEFAULT_DRAWS, seed: int | None = None):
        """ArviZ InferenceData: one posterior variable per metric, dims (chain, draw, model).

        Every estimate contributes ``n`` draws in its own scope (seeded), so
        ``az.summary(idata)`` gives one row per metric and model (``pass@4[a]``)
        and ``az.plot_posterior(idata)`` one panel each.  (The metric is the
        variable rather than a dimension because ArviZ's summary reserves a
        dimension of that name.)
        """
        try:
            import arviz as az
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise ImportError("to_inference_data needs ArviZ: pip install 'bayeseval[notebook]'") from exc
        n = V.integer(n, "n", minimum=1)
        models = list(dict.fromkeys(e.model or "model" for e in self.estimates))
        metrics = list(dict.fromkeys(e.metric for e in self.estimates))
        posterior = {m: np.full((1, n, len(models)), np.nan) for m in metrics}
        for e in self.estimates:
            posterior[e.metric][0, :, models.index(e.model or "model")] = e.draws(n, seed)
        scopes = {e.metric: e.scope for e in self.estimates}
        return az.from_dict(
            posterior=posterior,
            coords={"model": models},
            dims={m: ["model"] for m in metrics},
            attrs={"scope": json.dumps(scopes), "source": "bayeseval"},
        )


def _runs(models: Any) -> list[tuple[str | None, str | None, Any, Any]]:
    """(dataset, model, outcomes, category weights) for each run of ``models``."""
    if isinstance(models, dict):
        if not models:
            raise ValueError("models must name at least one model")
        return [(None, name, R, None) for name, R in models.items()]
    if hasattr(models, "_runs") and hasattr(models, "datasets"):  # an OutcomeSet
        several = len(models.datasets) > 1
        return [(run.dataset if several else None, run.model, run.counts(), run.weights) for run in models]
    return [(None, None, models, None)]


def evaluate(models: Any, metrics: Any = ("avg",), **kwargs) -> Evaluation:
    """Estimate several metrics for several models: a dict ``name -> outcome matrix``, an
    :class:`~bayeseval.io.OutcomeSet` (its category weights are used unless ``w=`` is given; with
    several datasets each estimate carries its ``dataset``) or one matrix; ``metrics`` is a list of
    metric names or ``(name, params)`` pairs.  Keyword arguments go to :func:`estimate`.

    >>> import numpy as np
    >>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    >>> ev = evaluate({"a": R}, ["avg", "pass@2"], scope="benchmark", prior="uniform", interval="normal")
    >>> [round(e.mean, 6) for e in ev]
    [0.642857, 0.839286]
    """
    if isinstance(metrics, (str, bytes)) or not hasattr(metrics, "__iter__"):
        metrics = [metrics]
    out = []
    for dataset, name, data, weights in _runs(models):
        base = dict(kwargs) if weights is None or "w" in kwargs else {**kwargs, "w": weights}
        for m in metrics:
            if isinstance(m, tuple) and len(m) == 2 and isinstance(m[1], dict):
                e = estimate(data, m[0], model=name, **{**base, **m[1]})
            else:
                e = estimate(data, m, model=name, **base)
            out.append(e if dataset is None else dataclasses.replace(e, dataset=dataset))
    return Evaluation(out)
