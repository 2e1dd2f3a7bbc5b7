"""Request and response bodies of the HTTP service (pydantic v2; they define the OpenAPI schema).

Outcomes of one model are either an outcome matrix (rows = questions, columns =
trials; ``null`` marks a missing trial and rows may differ in length) or a count
table (``counts[i][c]`` = trials of question ``i`` in category ``c``), with
optional question ``ids`` (models are then paired by id) and category
``weights``:

>>> req = MetricsRequest(models={"a": {"matrix": [[1, 0, None], [1, 1]]}},
...                      metrics=["pass@2", {"name": "g-pass@k", "k": 2, "tau": 0.5}])
>>> req.level, req.models["a"].cells, type(req.metrics[1]).__name__
(0.95, 5, 'NamedMetric')
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import (AfterValidator, ValidationInfo, BaseModel, ConfigDict, Discriminator, Field, Strict, StringConstraints, Tag,
                      TypeAdapter, field_validator, model_validator)

from .. import validate as V

__all__ = ["Outcomes", "MatrixOutcomes", "CountOutcomes", "ScoreOutcomes", "outcomes", "NamedMetric", "PayoffMetric", "MetricItem",
           "metric_args", "MetricsRequest", "CompareRequest", "RankRequest", "PlanRequest", "PairwiseRequest", "RubricRequest", "ClassifyRequest",
           "EstimateOut", "MetricsResponse", "CompareResponse", "RankResponse", "PlanResponse",
           "AISBenchResponse", "CatalogResponse", "HealthResponse", "ErrorResponse", "LIMITS"]

#: Bounds written into the schema (the configurable cell cap, body size and time limit come on top).
#: ``k`` bounds the k of every metric (``pass@k`` written in the name or given as ``k``; ``geospectrum@k``,
#: ``auc@k``, ``max@k`` alike) and the length of a payoff vector (k + 1); ``magnitude`` bounds payoffs and
#: category / spectrum weights (|x| <= 1e6); ``delta`` bounds the difference to detect in ``/v1/plan``.
LIMITS = {"questions": 1_000_000, "trials": 100_000, "categories": 1001, "models": 64, "rank_models": 64,
          "metrics": 32, "draws": 100_000, "resamples": 100_000, "k": 1000, "name_length": 200,
          "magnitude": 1e6, "delta": [1e-9, 1.0], "pairwise_labels": 1_000_000}

# Numbers are strict: "0.9", true or "1" are refused where a number is expected (an integer field also
# refuses 1.0); a float field takes integers.
Real = Annotated[float, Strict(), Field(allow_inf_nan=False)]
Bounded = Annotated[float, Strict(), Field(ge=-LIMITS["magnitude"], le=LIMITS["magnitude"], allow_inf_nan=False)]
def _printable(v: str) -> str:
    """A name or id is printable text, as the file loaders read them (a NUL byte or a newline would make a phantom
    model that prints like a real one)."""
    from ..io._vendor import control_char

    ch = control_char(v)
    if ch is not None:
        raise ValueError(f"{v!r} contains the control character {ch!r} at position {v.index(ch)}; names and ids must "
                         "be printable text")
    return v


Name = Annotated[str, StringConstraints(min_length=1, max_length=LIMITS["name_length"]), AfterValidator(_printable)]
Outcome = Annotated[int, Strict(), Field(ge=0, le=LIMITS["categories"] - 1)]
Row = Annotated[list[Union[Outcome, None]], Field(min_length=1, max_length=LIMITS["trials"])]
Count = Annotated[int, Strict(), Field(ge=0, le=LIMITS["trials"])]
CountRow = Annotated[list[Count], Field(min_length=2, max_length=LIMITS["categories"])]
#: a question id as the file loaders read one: spaces around it dropped, never blank
QuestionId = Union[Annotated[int, Strict(), Field(ge=-(2**53), le=2**53)],
                   Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                                    max_length=LIMITS["name_length"]), AfterValidator(_printable)]]
Weights = Annotated[list[Bounded], Field(min_length=1, max_length=LIMITS["categories"])]

Scope = Literal["population", "benchmark"]
Interval = Literal["exact", "normal", "hdi"]
#: an estimate's interval: auto (the default), the posterior's, or one over questions (population scope)
EstimateInterval = Literal["auto", "exact", "normal", "hdi", "bootstrap-t", "exact+bootstrap-t", "exact+binomial",
                          "exact+betting"]
#: AISBench's tables: auto or a posterior interval
TableInterval = Literal["auto", "exact", "normal", "hdi"]
def _below_one(v: float) -> float:
    """A level whose normal quantile is finite: the library's rule (:func:`bayeseval.validate.confidence`)."""
    return V.confidence(v, "level")


Probability = Annotated[float, Strict(), Field(gt=0, lt=1, allow_inf_nan=False)]
#: an interval's level: a probability whose normal quantile is finite
Level = Annotated[float, Strict(), Field(gt=0, lt=1, allow_inf_nan=False), AfterValidator(_below_one)]
BetaPrior = Annotated[list[Annotated[float, Strict(), Field(gt=0, le=1e6, allow_inf_nan=False)]],
                      Field(min_length=2, max_length=2)]
Prior = Union[Literal["robust", "hierarchical", "uniform", "jeffreys", "dirichlet", "hierarchical-dirichlet"], BetaPrior]
Draws = Annotated[int, Strict(), Field(ge=100, le=LIMITS["draws"])]
Resamples = Annotated[int, Strict(), Field(ge=100, le=LIMITS["resamples"])]
Seed = Annotated[int, Strict(), Field(ge=0, le=2**53)]

_K_SUFFIX = re.compile(r"[@^]\s*(\d+)\s*$")


def check_metric_name(name: str) -> str:
    """Refuse a metric name whose k (``pass@100000``) is above ``LIMITS["k"]``; ``avg@n`` is not a k.

    >>> check_metric_name("pass@8")
    'pass@8'
    >>> check_metric_name("pass@100000")
    Traceback (most recent call last):
    ...
    ValueError: k = 100000 in 'pass@100000' is above the limit of 1000
    """
    m = _K_SUFFIX.search(name)
    if m and not name.lower().startswith(("avg", "bayes")) and int(m.group(1)) > LIMITS["k"]:
        raise ValueError(f"k = {int(m.group(1))} in {name!r} is above the limit of {LIMITS['k']}")
    return name


MetricName = Annotated[str, StringConstraints(min_length=1, max_length=100), AfterValidator(check_metric_name)]

_PRIOR_DOC = ("null: robust for 0/1 outcomes, hierarchical-dirichlet (pooled) for graded ones; or "
              "'robust', 'uniform', 'jeffreys', 'hierarchical', 'dirichlet', 'hierarchical-dirichlet', or [alpha0, beta0]")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Outcomes(_Body):
    ids: Annotated[list[QuestionId], Field(min_length=1, max_length=LIMITS["questions"])] | None = Field(
        None, description="question ids, one per row; when every model has ids, models are paired by id")
    weights: Weights | None = Field(None, description="category weights w[0..C] (graded outcomes)")

    @field_validator("ids")
    @classmethod
    def _one_id_type(cls, ids):
        if ids is not None and len({type(i) for i in ids}) > 1:
            raise ValueError("ids must be all integers or all strings, not a mix (1 and '1' would be different "
                             "questions)")
        return ids

    @model_validator(mode="after")
    def _ids_per_row(self):
        if self.ids is not None and len(self.ids) != self.M:
            raise ValueError(f"ids has {len(self.ids)} entries but there are {self.M} questions (rows)")
        return self

    @property
    def rows(self) -> list:
        raise NotImplementedError

    @property
    def M(self) -> int:
        return len(self.rows)

    @property
    def cells(self) -> int:
        """Cells of the matrix (or count table): what the cell cap counts."""
        return sum(len(r) for r in self.rows)


class MatrixOutcomes(_Outcomes):
    """One model's outcome matrix."""

    matrix: Annotated[list[Row], Field(min_length=1, max_length=LIMITS["questions"])] = Field(
        description="rows = questions, columns = trials; 0/1 or categories 0..C; null = missing trial; "
                    "rows may differ in length", examples=[[[1, 0, 1], [0, 0, None]]])

    @property
    def rows(self) -> list:
        return self.matrix

    counts = property(lambda self: None, doc="None (this is a matrix)")


class CountOutcomes(_Outcomes):
    """One model's count table."""

    counts: Annotated[list[CountRow], Field(min_length=1, max_length=LIMITS["questions"])] = Field(
        description="count table: counts[i][c] = trials of question i in category c (c = 0..C); every row "
                    "has the same length and totals at most 100,000 trials", examples=[[[1, 2], [2, 0]]])

    @model_validator(mode="after")
    def _rectangular(self):
        if len({len(r) for r in self.counts}) > 1:
            raise ValueError("counts: every row must have the same number of categories")
        over = next((i for i, r in enumerate(self.counts) if sum(r) > LIMITS["trials"]), None)
        if over is not None:
            raise ValueError(f"counts[{over}] totals {sum(self.counts[over]):,} trials; a question may have at most "
                             f"{LIMITS['trials']:,} (as a matrix row)")
        return self

    @property
    def rows(self) -> list:
        return self.counts

    matrix = property(lambda self: None, doc="None (this is a count table)")


Score = Annotated[float, Strict(), Field(ge=-LIMITS["magnitude"], le=LIMITS["magnitude"], allow_inf_nan=False)]
ScoreRow = Annotated[list[Union[Score, None]], Field(min_length=1, max_length=LIMITS["trials"])]


class ScoreOutcomes(_Outcomes):
    """One model's continuous scores (token F1, BLEU, a judge's probability): metric ``avg``, the mean score."""

    scores: Annotated[list[ScoreRow], Field(min_length=1, max_length=LIMITS["questions"])] = Field(
        description="rows = questions, columns = trials; each a score in 'range'; null = missing trial; rows "
                    "may differ in length", examples=[[[0.8, 0.65, 1.0], [0.0, 0.25, None]]])
    range: Annotated[list[Bounded], Field(min_length=2, max_length=2)] = Field(
        default_factory=lambda: [0.0, 1.0], description="[lo, hi]: the scale of the scores (default [0, 1])")

    @model_validator(mode="after")
    def _in_range(self):
        lo, hi = self.range
        if not lo < hi:
            raise ValueError(f"range must be [lo, hi] with lo < hi, got {self.range}")
        if self.weights is not None:
            raise ValueError("weights are for graded outcomes ('matrix'); scores are used as they are")
        for i, row in enumerate(self.scores):
            for j, v in enumerate(row):
                if v is not None and not lo <= v <= hi:
                    raise ValueError(f"scores[{i}][{j}] = {v:g} is outside range [{lo:g}, {hi:g}]")
        return self

    @property
    def rows(self) -> list:
        return self.scores

    matrix = property(lambda self: None, doc="None (these are scores)")
    counts = property(lambda self: None, doc="None (these are scores)")


def _outcomes_kind(value: Any) -> str | None:
    if isinstance(value, dict):
        if "scores" in value and "matrix" not in value and "counts" not in value:
            return "ScoreOutcomes"
        return "CountOutcomes" if "counts" in value and "matrix" not in value else "MatrixOutcomes"
    return type(value).__name__ if isinstance(value, _Outcomes) else None


#: One model's outcomes: ``{"matrix": [...]}``, ``{"counts": [...]}`` or ``{"scores": [...], "range": [lo, hi]}``,
#: with optional ``ids`` (and ``weights`` for graded matrices / count tables).
Outcomes = Annotated[
    Union[Annotated[MatrixOutcomes, Tag("MatrixOutcomes")], Annotated[CountOutcomes, Tag("CountOutcomes")],
          Annotated[ScoreOutcomes, Tag("ScoreOutcomes")]],
    Discriminator(_outcomes_kind, custom_error_type="outcomes_type",
                  custom_error_message="outcomes must be an object with 'matrix' (outcome rows), 'counts' "
                                       "(a count table) or 'scores' (continuous scores)"),
]
_OUTCOMES = TypeAdapter(Outcomes)


def outcomes(value: Any) -> MatrixOutcomes | CountOutcomes | ScoreOutcomes:
    """Validate one model's outcomes (a dict as in the request body).

    >>> outcomes({"matrix": [[1, 0, None], [1, 1]]}).cells
    5
    >>> outcomes({"counts": [[2, 3], [1, 4]], "ids": ["q1", "q2"]}).M
    2
    >>> outcomes({"scores": [[0.5, 0.75], [1.0]], "range": [0, 1]}).cells
    3
    """
    return _OUTCOMES.validate_python(value)


class NamedMetric(_Body):
    """A metric by name, with its parameters (see ``GET /v1/catalog``)."""

    name: MetricName = Field(
        examples=["g-pass@k"], description="metric name, e.g. 'pass@k', 'g-pass@k', 'pass@8' (k at most 1000)")
    k: Annotated[int, Strict(), Field(ge=1, le=LIMITS["k"])] | None = None
    tau: Annotated[float, Strict(), Field(ge=0, le=1, allow_inf_nan=False)] | None = Field(None, description="g-pass@k")
    lam: Annotated[float, Strict(), Field(ge=0, le=1, allow_inf_nan=False)] | None = Field(
        None, description="geospectrum@k")
    weights: Annotated[list[Bounded], Field(min_length=1, max_length=LIMITS["k"] + 1)] | None = Field(
        None, description="geospectrum@k: spectrum weights")
    threshold: Annotated[float, Strict(), Field(allow_inf_nan=False)] | None = Field(
        None, description="scores: a trial counts as correct when its score is above this (0/1 metrics on scores)")

    def params(self) -> dict:
        return {k: getattr(self, k) for k in ("k", "tau", "lam", "weights", "threshold")
                if getattr(self, k) is not None}


class PayoffMetric(_Body):
    """A custom metric: ``payoff[j]`` when ``j`` of ``k = len(payoff) - 1`` trials are correct."""

    payoff: Annotated[list[Bounded], Field(min_length=2, max_length=LIMITS["k"] + 1)] = Field(examples=[[0, 0, 1]])


Metric = Union[NamedMetric, PayoffMetric]
def _metric_kind(value: Any) -> str | None:
    if isinstance(value, str):
        return "str"
    if isinstance(value, dict):
        return "PayoffMetric" if "payoff" in value and "name" not in value else "NamedMetric"
    return type(value).__name__ if isinstance(value, (NamedMetric, PayoffMetric)) else None


#: A metric: a name such as ``"pass@8"``, ``{"name": ..., "k": ..., ...}`` or ``{"payoff": [...]}``.
MetricItem = Annotated[
    Union[Annotated[MetricName, Tag("str")],
          Annotated[NamedMetric, Tag("NamedMetric")], Annotated[PayoffMetric, Tag("PayoffMetric")]],
    Discriminator(_metric_kind, custom_error_type="metric_type",
                  custom_error_message="a metric is a name such as 'pass@8', an object {'name': ..., 'k': ...} "
                                       "or {'payoff': [...]}"),
]


def metric_args(item: Any) -> tuple[Any, dict]:
    """``(metric, params)`` for :func:`bayeseval.estimate` from a request's metric item.

    >>> metric_args("pass@8"), metric_args(NamedMetric(name="g-pass@k", k=4, tau=0.5))
    (('pass@8', {}), ('g-pass@k', {'k': 4, 'tau': 0.5}))
    >>> metric_args(PayoffMetric(payoff=[0, 1, 1]))
    ([0.0, 1.0, 1.0], {})
    """
    if isinstance(item, NamedMetric):
        return item.name, item.params()
    if isinstance(item, PayoffMetric):
        return item.payoff, {}
    return item, {}


class _Stats(_Body):
    scope: Scope = Field("population", description="'population' (questions are a sample) or 'benchmark'")
    level: Level = Field(0.95, description="credibility level in (0, 1)")
    prior: Prior | None = Field(None, description=_PRIOR_DOC)
    draws: Draws = Field(4000, description="posterior draws behind exact / hdi intervals (resamples behind "
                                           "bootstrap-t)")
    seed: Seed | None = Field(None, description="seed of every random draw (null: the library's fixed default)")


class MetricsRequest(_Stats):
    """``POST /v1/metrics``: metrics with credible intervals (or confidence intervals over questions) for each model."""

    models: Annotated[dict[Name, Outcomes], Field(min_length=1, max_length=LIMITS["models"])]
    metrics: Annotated[list[MetricItem], Field(min_length=1, max_length=LIMITS["metrics"])] = Field(
        default_factory=lambda: ["avg"], description="names ('avg', 'pass@8', ...) or metric objects")
    interval: EstimateInterval = Field("auto", description="auto (exact, widened to exact+binomial where few "
                                      "questions (or none) carry a population-scope metric away from the end of its "
                                      "range), exact, normal or hdi (posterior), "
                                      "bootstrap-t (the studentized bootstrap over questions; population scope), "
                                      "exact+bootstrap-t (the wider ends of exact and bootstrap-t), exact+binomial "
                                      "(exact widened to Clopper-Pearson's interval on the summed scores, their hull) "
                                      "or exact+betting (exact with its far end widened to the betting confidence "
                                      "interval)")

    @field_validator("interval")
    @classmethod
    def _bootstrap_t_scope(cls, v, info):
        from bayeseval.results import QUESTION_METHODS

        if v in QUESTION_METHODS and info.data.get("scope") == "benchmark":
            raise ValueError(f"{v} treats the questions as a sample, so it answers the population scope: use scope "
                             "'population', or auto or a posterior interval (exact, normal, hdi) in benchmark scope")
        return v


Rope = Union[Annotated[float, Strict(), Field(ge=0, le=1e6, allow_inf_nan=False)],
             Annotated[list[Bounded], Field(min_length=2, max_length=2)], None]


class CompareRequest(_Stats):
    """``POST /v1/compare``: is A better than B (same questions), by how much, how sure."""

    a: Outcomes
    b: Outcomes
    names: Annotated[list[Name], Field(min_length=2, max_length=2)] = Field(
        default_factory=lambda: ["A", "B"], description="labels of a and b (different)")
    metric: MetricItem = "avg"
    interval: Interval = "exact"
    rope: Rope = Field(None, description="region of practical equivalence: half-width r or [lo, hi]")
    resamples: Resamples = Field(10_000, description="bootstrap and permutation resamples")
    collapse: Literal["clustered", "first", "majority"] = "clustered"


class MonitorRequest(_Body):
    """``POST /v1/monitor``: where a running comparison stands, anytime-valid (``bayeseval.sequential``).

    Rows are questions in the order they were run (a random order); with ids on both sides, ``b`` is put in
    ``a``'s order.  The answer is the confidence sequence for the mean paired difference of the metric's
    per-question scores, the anytime-valid p-value, and whether (and where) the stopping rule first held."""

    a: Outcomes
    b: Outcomes
    names: Annotated[list[Name], Field(min_length=2, max_length=2)] = Field(
        default_factory=lambda: ["A", "B"], description="labels of a and b")
    metric: MetricItem = "avg"
    until: Annotated[str, StringConstraints(min_length=1, max_length=200)] = Field(
        "decided", description="stopping rule in words: 'decided', 'equivalent within R', 'width W', 'N questions', "
                               "'N samples', joined by 'or'")
    alpha: Probability = Field(0.05, description="error level of the confidence sequence")
    rope: Rope = Field(None, description="region of practical equivalence: half-width r or [lo, hi]")


class RankRequest(_Stats):
    """``POST /v1/rank``: rank probabilities, and the pairs asked compared with adjusted p-values."""

    models: Annotated[dict[Name, Outcomes], Field(min_length=2, max_length=LIMITS["rank_models"])]
    metric: MetricItem = "avg"
    resamples: Resamples = 10_000
    test: Literal["permutation", "bootstrap"] = "permutation"
    pairs: Literal["adjacent", "all"] = Field("adjacent", description="which pairs get a test: neighbours in the "
                                              "ranking (K - 1 pairs) or all K (K - 1) / 2")
    shrink: Annotated[bool, Strict()] = Field(False, description="partial pooling of the models' scores (three models or more): "
                               "rank probabilities, differences and P(A>B) under an exchangeable prior")


Label = Annotated[str, StringConstraints(min_length=1, max_length=LIMITS["name_length"])]


class PairwiseLabel(_Body):
    """One judgement: on ``item``, ``winner`` is ``model_a``, ``model_b`` or ``tie`` (also ``a`` / ``b``, a model's
    name, ``tie (bothbad)``); ``first`` says which answer was shown first (``model_a`` / ``model_b``), if known."""

    item: QuestionId
    model_a: Name
    model_b: Name
    winner: Label
    judge: Optional[Name] = None
    first: Optional[Literal["model_a", "model_b"]] = None


class PairwiseRequest(_Body):
    """Pairwise labels; with ``a`` and ``b``: that pair head to head, else Bradley-Terry / Davidson strengths."""

    labels: Annotated[list[PairwiseLabel], Field(min_length=1, max_length=LIMITS["pairwise_labels"])]
    a: Optional[Name] = Field(None, description="head to head: this model ...")
    b: Optional[Name] = Field(None, description="... against this one")
    ties: Optional[Literal["davidson", "split", "exclude"]] = Field(
        None, description="ranking: davidson (default), split or exclude; head to head: split (default) or exclude")
    scope: Scope = "population"
    level: Level = 0.95
    draws: Draws = 4000
    resamples: Resamples = 10_000
    seed: Seed | None = None

    @model_validator(mode="after")
    def _pair_and_order(self):
        if (self.a is None) != (self.b is None):
            raise ValueError(f"{'b' if self.b is None else 'a'}: give both a and b for a head-to-head comparison, "
                             "or neither for strengths")
        if self.a is not None and self.ties == "davidson":
            raise ValueError("ties: 'davidson' is for strengths; head to head, ties are 'split' or 'exclude'")
        known = {lab.first is not None for lab in self.labels}
        if len(known) > 1:
            raise ValueError("labels: first must be given on every label or on none")
        return self

    @property
    def cells(self) -> int:
        return len(self.labels)


class RubricRating(_Body):
    """One judge's ratings of one system's output on one item: ``ratings`` maps a dimension to a number (null =
    not rated)."""

    item: QuestionId
    system: Name
    judge: Name
    ratings: Annotated[dict[Name, Optional[Bounded]], Field(min_length=1, max_length=64)]


class RubricRequest(_Body):
    """Rubric ratings on several dimensions; with ``a`` and ``b``: those two systems compared per dimension."""

    ratings: Annotated[list[RubricRating], Field(min_length=1, max_length=LIMITS["pairwise_labels"])]
    scale: Annotated[list[Bounded], Field(min_length=2, max_length=2)] = Field(
        default_factory=lambda: [1.0, 5.0], description="[lo, hi]: the rating scale")
    constraints: Optional[Union[dict[Name, Bounded], Annotated[str, StringConstraints(
        min_length=1, max_length=LIMITS["name_length"])]]] = Field(
        None, description="pass rule {dimension: minimum} or 'dim>=x,...': the mean over items of the share of an "
                          "item's ratings meeting every minimum is reported")
    a: Optional[Name] = Field(None, description="compare this system ...")
    b: Optional[Name] = Field(None, description="... with this one, per dimension (Holm-adjusted)")
    measurement: Literal["ordinal", "interval", "nominal", "ratio"] = "ordinal"
    scope: Scope = "population"
    level: Level = 0.95
    resamples: Resamples = 2000
    seed: Seed | None = None

    @model_validator(mode="after")
    def _checks(self):
        if (self.a is None) != (self.b is None):
            raise ValueError(f"{'b' if self.b is None else 'a'}: give both a and b to compare two systems, or "
                             "neither")
        if not self.scale[0] < self.scale[1]:
            raise ValueError(f"scale must be [lo, hi] with lo < hi, got {self.scale}")
        dims = {tuple(sorted(r.ratings)) for r in self.ratings}
        if len(dims) > 1:
            first = sorted(self.ratings[0].ratings)
            i = next(k for k, r in enumerate(self.ratings) if sorted(r.ratings) != first)
            raise ValueError(f"ratings[{i}] rates {sorted(self.ratings[i].ratings)}, ratings[0] rates {first}: every "
                             "rating must name the same dimensions (null for one not rated)")
        return self

    @property
    def cells(self) -> int:
        return len(self.ratings) * len(self.ratings[0].ratings)


#: a class label: text, a whole number, a finite number (1 and 1.0 are one class, as in the library) or true/false
ClassLabel = Union[Annotated[bool, Strict()], Annotated[int, Strict()],
                   Annotated[float, Strict(), Field(allow_inf_nan=False)],
                   Annotated[str, StringConstraints(min_length=1, max_length=LIMITS["name_length"])]]


class ClassifyRequest(_Body):
    """Classification metrics from true and predicted labels (one model or several on the same items), or from
    a confusion matrix; two models on the same items (one prediction each) are also compared."""

    true: Annotated[list[ClassLabel], Field(min_length=1, max_length=LIMITS["pairwise_labels"])] | None = Field(
        None, description="true label of each prediction")
    models: Annotated[dict[Name, Annotated[list[ClassLabel], Field(min_length=1, max_length=LIMITS["pairwise_labels"])]],
                      Field(min_length=1, max_length=LIMITS["models"])] | None = Field(
        None, description="predicted labels per model, aligned with 'true'")
    confusion_matrix: Annotated[list[Annotated[list[Count], Field(min_length=2, max_length=LIMITS["categories"])]],
                                Field(min_length=2, max_length=LIMITS["categories"])] | None = Field(
        None, description="rows true, columns predicted (instead of 'true' and 'models'); needs 'labels'")
    labels: Annotated[list[ClassLabel], Field(min_length=2, max_length=LIMITS["categories"])] | None = None
    items: Annotated[list[QuestionId], Field(min_length=1, max_length=LIMITS["pairwise_labels"])] | None = Field(
        None, description="item of each prediction (repeated predictions per item count through their design "
                          "effect)")
    positive: ClassLabel | None = Field(None, description="two classes: the positive label (adds its F1)")
    level: Level = 0.95
    seed: Seed | None = None

    @field_validator("confusion_matrix")
    @classmethod
    def _square(cls, m):
        if m is None:
            return m
        short = next((i for i, r in enumerate(m) if len(r) != len(m[0])), None)
        if short is not None:
            raise ValueError(f"rows must have equal lengths (a square matrix of counts, rows true, columns "
                             f"predicted): row 0 has {len(m[0])} counts, row {short} has {len(m[short])}")
        if len(m[0]) != len(m):
            raise ValueError(f"must be square (a row and a column per class, rows true, columns predicted): "
                             f"{len(m)} rows of {len(m[0])} counts")
        return m

    @field_validator("items")
    @classmethod
    def _items_need_labels(cls, items, info: ValidationInfo):
        if items is not None and info.data.get("confusion_matrix") is not None:
            raise ValueError("items go with true and models (the item of each prediction); a confusion_matrix "
                             "has no predictions to attach them to: leave items out, or send true and models")
        return items

    @model_validator(mode="after")
    def _one_input(self):
        if self.confusion_matrix is not None:
            if self.true is not None or self.models is not None:
                raise ValueError("confusion_matrix: give either a confusion_matrix or true and models, not both")
            if self.labels is None:
                raise ValueError("labels: a confusion_matrix needs labels (one per row and column)")
        elif self.true is None or self.models is None:
            raise ValueError(f"{'true' if self.true is None else 'models'}: give true and models (predicted labels "
                             "per model), or a confusion_matrix")
        else:
            for name, pred in self.models.items():
                if len(pred) != len(self.true):
                    raise ValueError(f"models.{name} has {len(pred)} predictions but true has {len(self.true)}")
            if self.items is not None and len(self.items) != len(self.true):
                raise ValueError(f"items has {len(self.items)} entries but true has {len(self.true)}")
        return self

    @property
    def cells(self) -> int:
        if self.confusion_matrix is not None:
            return sum(len(r) for r in self.confusion_matrix)
        return len(self.true) * (1 + len(self.models))


class PlanRequest(_Body):
    """``POST /v1/plan``: variance components of a pilot (one model, or a pair) and the implied study size."""

    a: Outcomes
    b: Optional[Outcomes] = None
    alpha: Probability = Field(0.05, description="two-sided test level; above 1.2e-16 (smaller ones make the critical "
                                                 "value infinite)")
    power: Probability = Field(0.8, description="power to detect delta; above alpha")
    level: Level = Field(0.95, description="level of the interval widths; below 1 - 1.2e-16")
    delta: Real | None = Field(None, description="the difference to detect: 1e-9 <= |delta| <= 1 for 0/1 "
                                                 "outcomes; up to hi - lo for scores")

    # bayeseval.plan uses z = ndtri(1 - alpha / 2) + ndtri(power) (detectable effect z * SE, questions needed
    # z^2 (...) / delta^2) and the t quantile at 0.5 + level / 2 (interval widths): refuse what makes them infinite
    # in double precision (1 - alpha / 2 or 0.5 + level / 2 rounding to 1), and a power at or below alpha (what a test
    # at alpha rejects with when the models are equal: it plans nothing, and below alpha / 2 z <= 0)
    @field_validator("alpha")
    @classmethod
    def _finite_critical_value(cls, v):
        if 1 - v / 2 >= 1:
            raise ValueError(f"alpha = {v:g} is too small to compute with: 1 - alpha / 2 rounds to 1 in double "
                             "precision, so the critical value z(1 - alpha / 2) and the questions needed are "
                             "infinite; give alpha >= 1.2e-16")
        return v

    @field_validator("power")
    @classmethod
    def _power_above_alpha(cls, v, info: ValidationInfo):
        alpha = info.data.get("alpha")
        if alpha is not None and not v > alpha:
            raise ValueError(f"power = {v:g} must exceed alpha = {alpha:g}: a two-sided test at alpha rejects with at "
                             "least that probability when the models are equal, so a power at or below it plans "
                             "nothing")
        return v

    @field_validator("delta")
    @classmethod
    def _delta_range(cls, v, info: ValidationInfo):
        lo, hi = LIMITS["delta"]
        scores = [o for o in (info.data.get("a"), info.data.get("b")) if isinstance(o, ScoreOutcomes)]
        if scores:  # scores: up to the width of their range
            hi = max(o.range[1] - o.range[0] for o in scores)
        if v is not None and not lo <= abs(v) <= hi:
            raise ValueError(f"delta must satisfy {lo:g} <= |delta| <= {hi:g}, got {v!r}")
        return v


def check_id_types(parts: dict) -> None:
    """Models are paired by id only when every one has ids of one type: refuse int ids against str ids.

    Raises ``ValueError(field, message)``.
    >>> check_id_types({"a": outcomes({"matrix": [[1]], "ids": [1]}), "b": outcomes({"matrix": [[1]], "ids": ["1"]})})
    Traceback (most recent call last):
    ...
    ValueError: ('b.ids', "b.ids are strings but a.ids are integers; ids pair only when their types agree (send 1 and '1' alike)")
    """
    kinds = {f: type(o.ids[0]) for f, o in parts.items() if o is not None and o.ids}
    if len(kinds) != len([o for o in parts.values() if o is not None]) or len(set(kinds.values())) < 2:
        return
    first, t0 = next(iter(kinds.items()))
    name = {int: "integers", str: "strings"}
    for f, t in kinds.items():
        if t is not t0:
            raise ValueError(f"{f}.ids", f"{f}.ids are {name.get(t, t.__name__)} but {first}.ids are "
                                         f"{name.get(t0, t0.__name__)}; ids pair only when their types agree "
                                         "(send 1 and '1' alike)")


# ----------------------------------------------------------------------------- responses (documentation)
Num = Union[float, None]


class EstimateOut(BaseModel):
    model: str | None
    metric: str
    value: Num = Field(description="finite-sample estimate (null where undefined)")
    mean: Num
    sd: Num
    lo: Num
    hi: Num
    level: float
    scope: str
    interval: str
    prior: str
    M: int
    N: Union[int, list[int]] = Field(description="trials per question, or [min, max] when rows differ")
    miller_se: Num
    draws: int | None
    seed: int | None
    warnings: list[str] = Field(default=[], description="this estimate's model check and modelling assumptions")
    dataset: str | None = None


class MetricsResponse(BaseModel):
    estimates: list[EstimateOut]
    warnings: list[str] = []


class CompareResponse(BaseModel):
    models: list[str]
    metric: str
    M: int
    N: list[Union[int, str]]
    estimates: dict[str, EstimateOut]
    delta: dict[str, Any] = Field(description="mean, sd, lo, hi, level, scope, interval, basis of A - B")
    p_a_better: Num
    rope: dict[str, Any] | None
    verdict: str
    bootstrap: dict[str, Any] | None
    permutation: dict[str, Any] | None
    mcnemar: dict[str, Any]
    t_test: dict[str, Any] | None
    wilcoxon: dict[str, Any] | None
    miller: dict[str, Any] | None
    effect_size: dict[str, Any] | None
    seed: int
    notes: list[str]
    warnings: list[str] = []


class RankedModel(EstimateOut):
    p_best: float
    expected_rank: float
    p_rank: list[float]


class RankResponse(BaseModel):
    metric: str
    scope: str
    level: float
    test: str
    seed: int
    models: list[RankedModel] = Field(description="best first")
    pairs: list[dict[str, Any]] = Field(description="a, b, delta, lo, hi, p_a_better, p_value, p_holm, p_bh")
    warnings: list[str] = []


class PlanResponse(BaseModel):
    paired: bool
    M_pilot: int
    N_pilot: Union[int, str]
    sigma_b2: float
    sigma_w2: float
    alpha: float
    power: float
    level: float
    delta: Num
    trials_enough: int | None
    table: list[dict[str, Any]] = Field(description="M, N, se, mde, interval_width, within_share[, questions_needed]")
    warnings: list[str] = []


class AISBenchRun(BaseModel):
    dataset: str
    model: str
    M: int
    N: Union[int, list[int]]
    grouping: str | None = Field(description="'regrouped' (AISBench 3.1's grouping bug corrected) or 'aisbench'")
    grouping_evidence: str | None
    reported: dict[str, float] = Field(description="AISBench's own numbers (percent)")
    corrected: dict[str, float] = Field(description="the same metrics recomputed from the (regrouped) outcomes")
    notes: list[str]
    estimates: list[EstimateOut]


class AISBenchResponse(BaseModel):
    source: str
    runs: list[AISBenchRun]
    summary_csv: str = Field(description="AISBench's summary table with credible-interval columns")
    warnings: list[str]


class CatalogResponse(BaseModel):
    version: str
    metrics: list[dict[str, Any]]
    scopes: list[str]
    intervals: list[str]
    estimate_intervals: list[str] = Field(default_factory=list, description="the intervals of /v1/metrics and "
                                          "/v1/report.html: the posterior's and bootstrap-t")
    priors: list[Any]
    limits: dict[str, Any]


class HealthResponse(BaseModel):
    status: str
    version: str


class ErrorDetail(BaseModel):
    type: str = Field(description="validation_error, invalid_json, payload_too_large, too_many_cells, "
                                  "time_limit, bad_archive, unauthorized, not_found, method_not_allowed, internal")
    field: str | None = Field(description="the offending field as a dotted path (models.a.matrix[3][1]), or null")
    message: str
    details: list[dict[str, Any]] = []


class ErrorResponse(BaseModel):
    error: ErrorDetail
