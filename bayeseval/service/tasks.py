"""The translation layer: request bodies -> library calls -> JSON-safe dicts (run in a worker process).

Nothing here computes a statistic: every number comes from :func:`bayeseval.estimate`,
:func:`bayeseval.compare`, :func:`bayeseval.compare_all`, :func:`bayeseval.plan` and
:func:`bayeseval.io.aisbench.read_aisbench`, called as a Python user would call them, so
the service's answers equal the library's.  The library's ``ValueError`` / ``TypeError``
become :class:`~bayeseval.service.errors.ServiceError` (422) naming the request field.

>>> from bayeseval.service.schemas import MetricsRequest
>>> out = metrics(MetricsRequest(models={"a": {"matrix": [[1, 0], [1, 1]]}}, scope="benchmark", prior="uniform",
...                              interval="normal"))
>>> out["estimates"][0]["model"], out["estimates"][0]["value"]
('a', 0.75)
"""

from __future__ import annotations

import dataclasses
import math
import re
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

import bayeseval as B
from bayeseval.scores import RangeMismatch, same_range
from bayeseval.validate import ArgumentError

from .errors import ServiceError, library_field
from .limits import safe_extract
from .schemas import (ClassifyRequest, CompareRequest, MetricsRequest, MonitorRequest, Outcomes, PairwiseRequest, PlanRequest, RankRequest, RubricRequest,
                      metric_args)

__all__ = ["metrics", "compare", "monitor", "rank", "plan", "pairwise", "rubric", "classify", "aisbench", "clean", "report_html"]

_PARAMS = ("level", "scope", "interval", "prior", "draws", "seed", "rope", "resamples", "collapse", "names",
           "alpha", "power", "delta", "test", "shrink")
_KNOWN = {**{p: p for p in _PARAMS}, "alpha0": "prior", "beta0": "prior"}


def clean(x: Any) -> Any:
    """JSON-safe copy: numpy scalars -> Python, NaN / inf -> None, tuples -> lists, keys -> str.

    >>> clean({"a": np.float64("nan"), "b": (np.int64(2), 0.5)})
    {'a': None, 'b': [2, 0.5]}
    """
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    return x


@contextmanager
def _field(context: str | None, known: dict | None = None, strip: str | None = None):
    """Turn the library's input errors inside the block into 422 errors naming a request field."""
    try:
        yield
    except ServiceError:
        raise
    except (ValueError, TypeError, LookupError) as exc:
        msg = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        if strip:
            msg = _reroot(msg, strip)
        field = library_field(msg, context, _KNOWN if known is None else known)
        if isinstance(exc, RangeMismatch) and known and exc.model in known:  # the model whose range differs
            field = known[exc.model]
        raise ServiceError(422, "validation_error", field, msg or type(exc).__name__) from None
    except (ArithmeticError, RecursionError, MemoryError) as exc:  # extreme magnitudes, too deep, too big
        what = {RecursionError: "is nested too deeply", MemoryError: "needs more memory than this service allows"}
        why = next((v for k, v in what.items() if isinstance(exc, k)), "is outside the computable range")
        detail = _reroot(str(exc), strip) if strip else str(exc)
        raise ServiceError(422, "validation_error", context,
                           f"{context or 'the input'} {why} ({type(exc).__name__}{': ' + detail if detail else ''})"
                           ) from None


@contextmanager
def _metric_field(field: str | None = None, model: str | None = None, given: str = "matrix"):
    """Input errors of :func:`bayeseval.evaluate` as 422 naming the metric (``metrics[i]``) they came from; an
    outcome matrix that the metric cannot read (categories above 1 without weights) names the model's matrix (or
    ``given``: ``counts``, as the request sent them)."""
    try:
        yield
    except (ValueError, TypeError, LookupError, ArithmeticError, RecursionError, MemoryError) as exc:
        i = getattr(exc, "metric_index", None)
        spelling = {"R": f"{model}.{given}", "w": f"{model}.weights", "score_range": f"{model}.range",
                    "threshold": "a metric object's \"threshold\""}  # the library's names, as the request spells them
        if model is not None and isinstance(exc, ArgumentError) and set(exc.names) & set(spelling):
            where = spelling["R"] if "R" in exc.names else f"metrics[{i}]" if i is not None else "metrics"
            raise ServiceError(422, "validation_error", where, exc.spelled(lambda n: spelling.get(n, n))) from None
        with _field(field or (f"metrics[{i}]" if i is not None else "metrics")):
            raise


def _given(o: Outcomes) -> str:
    """The field a model's outcomes were sent in: ``matrix``, ``counts`` or ``scores``."""
    return next(k for k in ("counts", "scores", "matrix") if getattr(o, k, None) is not None)


def _reroot(msg: str, root: str) -> str:
    """``msg`` with the server folder ``root`` removed (paths shown relative to the uploaded zip)."""
    return msg.replace(root + "/", "").replace(root, ".")


@contextmanager
def _warnings(out: list):
    """Collect the library's warnings (UserWarning and subclasses) into ``out``, each once."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        text = str(w.message)
        if issubclass(w.category, UserWarning) and text not in out:
            out.append(text)


def _prior(prior: Any) -> Any:
    return tuple(prior) if isinstance(prior, list) else prior


def _array(o: Outcomes) -> np.ndarray:
    """The outcome matrix as int64, or float with NaN for null / absent (ragged) trials."""
    try:
        return np.array(o.matrix, dtype=np.int64)
    except (TypeError, ValueError):
        return _padded(o.matrix)


def _padded(rows: list) -> np.ndarray:
    """Rows (``matrix`` or ``scores``) as a float matrix, NaN for null / absent (ragged) trials."""
    width = max(len(r) for r in rows)
    return np.array([r + [None] * (width - len(r)) for r in rows], dtype=np.float64)


def _indexed(arr: np.ndarray, o: Outcomes) -> Any:
    """``arr`` as the library receives trial rows: a DataFrame indexed by the question ids when they are given."""
    if o.ids is None:
        return arr
    import pandas as pd

    return pd.DataFrame(arr, index=pd.Index(o.ids, dtype=object))


def _scores(o: Outcomes, field: str):
    """Scores (with ids) of a model given as ``{"scores": ..., "range": [lo, hi]}``."""
    arr = _padded(o.scores)
    with _field(field, {}):
        return B.to_scores(arr, score_range=tuple(o.range), missing=np.nan, ids=o.ids, name=field)


def _raw_scores(models: dict, counted: dict, threshold: str | None, where: str = "") -> tuple[dict, dict]:
    """A metric with a ``threshold`` (the request field ``threshold`` names it) counts a trial correct when its score
    is above it, so the library needs the scores themselves, not their per-question sums: ``(inputs, extra keyword
    arguments)`` with every model passed as its raw scores (a DataFrame when ids are given) and their
    ``score_range``; without a threshold, ``counted`` as is.  A model given as outcomes is refused, naming both."""
    if threshold is None:
        return counted, {}
    plain = [name for name, o in models.items() if getattr(o, "scores", None) is None]
    if plain:
        raise ServiceError(422, "validation_error", threshold, f"{threshold}.threshold counts a trial correct when its "
                           f"score is above it; {where}{plain[0]} gives outcomes, not scores (give 'scores' and "
                           "'range', or leave the threshold out)")
    try:  # one scale, as without a threshold (the raw scores would otherwise all be read on the first's)
        same_range({name: counted[name] for name in models})
    except RangeMismatch as exc:
        raise ServiceError(422, "validation_error", f"{where}{exc.model}", str(exc)) from None
    out = {**counted, **{name: _indexed(_padded(o.scores), o) for name, o in models.items()}}
    return out, {"missing": np.nan, "score_range": tuple(next(iter(models.values())).range)}


def _counts(o: Outcomes, field: str, binary: str | None = None) -> B.Counts:
    """Counts (with ids and weights) of one model's outcomes; ``binary``: refuse categories, naming this use.
    Scores come back as :class:`bayeseval.scores.Scores` (every endpoint takes them, metric avg)."""
    if getattr(o, "scores", None) is not None:
        return _scores(o, field)
    try:
        with _field(field, {}):
            if o.counts is not None:
                c = B.Counts.from_table(o.counts, w=o.weights, ids=o.ids)
            else:
                c = B.to_counts(_array(o), w=o.weights, missing=np.nan, ids=o.ids, name=field)
    except ServiceError as exc:  # a weights / categories mismatch is about the weights
        if o.weights is not None and exc.field == field and re.search(r"\bw\b|weights", exc.message):
            exc.field = f"{field}.weights"
        raise
    if binary and not c.is_binary:
        raise ServiceError(422, "validation_error", field, f"{binary} needs 0/1 outcomes; {field} holds categories "
                                                           f"up to {c.C}")
    if binary and o.weights is not None:
        raise ServiceError(422, "validation_error", f"{field}.weights", f"{binary} takes 0/1 outcomes without "
                                                                         "category weights")
    return c


def _trial_input(o: Outcomes, field: str, what: str) -> Any:
    """What compare/plan receive: the matrix in trial order (a DataFrame when ids are given), or Counts."""
    c = _counts(o, field, binary=what)
    if o.counts is not None or getattr(o, "scores", None) is not None:
        return c
    return _indexed(_array(o), o)


def _n(counts: B.Counts) -> int | list[int]:
    n = counts.n
    return int(n[0]) if n.min() == n.max() else [int(n.min()), int(n.max())]


# ----------------------------------------------------------------------------- endpoints
def _evaluate(req: MetricsRequest, name: str, counts: Any, items: list):
    """:func:`bayeseval.evaluate` of one model's every metric; with a metric's ``threshold``, the raw scores."""
    o = req.models[name]
    at = next((f"metrics[{i}]" for i, (_, p) in enumerate(items) if p.get("threshold") is not None), None)
    inputs, kw = _raw_scores({name: o}, {name: counts}, at, "models.")
    return B.evaluate(inputs, items, w=o.weights, scope=req.scope, interval=req.interval, level=req.level,
                      prior=_prior(req.prior), draws=req.draws, seed=req.seed, **kw)


def metrics(req: MetricsRequest) -> dict:
    """``POST /v1/metrics``: :func:`bayeseval.estimate` for every (model, metric)."""
    out, warns = [], []
    with _warnings(warns):
        data = {name: _counts(o, f"models.{name}") for name, o in req.models.items()}
        items = [metric_args(item) for item in req.metrics]
        for name, counts in data.items():  # counted once above; one population fit per model
            with _metric_field(model=f"models.{name}", given=_given(req.models[name])):
                ev = _evaluate(req, name, counts, items)
            out += [e.to_dict() for e in ev]
    return clean({"estimates": out, "warnings": warns})


def report_html(req: MetricsRequest) -> str:
    """``POST /v1/report.html``: the estimates of ``/v1/metrics``, the ranking (:func:`bayeseval.compare_all`) of
    the 0/1 models on the first metric when there are two or more, and their pass@k curves, as the page of
    :func:`bayeseval.report.html.html_report` (computed here; the renderer only renders)."""
    import hashlib

    from ..report import plots
    from ..report.html import html_report, provenance

    warns: list = []
    with _warnings(warns):
        data = {name: _counts(o, f"models.{name}") for name, o in req.models.items()}
        items = [metric_args(item) for item in req.metrics]
        ests: list = []
        for name, counts in data.items():
            with _metric_field(model=f"models.{name}", given=_given(req.models[name])):
                ests += _evaluate(req, name, counts, items).estimates
        binary = {n: c for n, c in data.items()
                  if isinstance(c, B.Counts) and c.is_binary and req.models[n].weights is None}
        ranking = []
        if len(binary) >= 2:
            metric, params = items[0]
            said: list = []  # the ranking's interval method, said only where a ranking is shown
            try:
                ranking.append(B.compare_all(binary, metric=metric, scope=req.scope,
                                             interval=plots.posterior_interval(req.interval, said, "the ranking"),
                                             level=req.level, seed=req.seed, prior=_prior(req.prior), draws=req.draws,
                                             **params))
            except (ValueError, TypeError) as exc:  # e.g. the models did not answer the same questions
                warns.append(f"no ranking on {metric}: {exc}")
            else:
                warns += said
        curves = None
        if binary and min(int(c.n.min()) for c in binary.values()) >= 2:
            with _field("models"):
                curves = plots.pass_at_k_curve(binary, scope=req.scope, level=req.level,
                                               interval=plots.posterior_interval(req.interval, warns,
                                                                                 "the pass@k curves"),
                                               prior=_prior(req.prior), draws=req.draws, seed=req.seed, percent=True)
    digest = hashlib.sha256(req.model_dump_json().encode("utf-8", "backslashreplace")).hexdigest()
    prov = provenance(seed=req.seed, endpoint="POST /v1/report.html", request_sha256=digest)
    return html_report(B.Evaluation(ests), ranking, provenance=prov, pass_at_k=curves, warnings=warns)


def _pair_inputs(req, a: Any, b: Any, params: dict) -> tuple[tuple, dict]:
    """``a`` and ``b`` as compare / monitor receive them: raw scores where a metric's ``threshold`` needs them."""
    inputs, kw = _raw_scores({"a": req.a, "b": req.b}, {"a": a, "b": b},
                             "metric" if params.get("threshold") is not None else None)
    return (inputs["a"], inputs["b"]), kw


def compare(req: CompareRequest) -> dict:
    """``POST /v1/compare``: :func:`bayeseval.compare` of ``a`` and ``b``."""
    warns: list = []
    with _warnings(warns):
        a = _trial_input(req.a, "a", "compare")
        b = _trial_input(req.b, "b", "compare")
        metric, params = metric_args(req.metric)
        known = {**_KNOWN, **{p: "metric" for p in ("k", "tau", "lam", "weights", "unknown", "metric")},
                 req.names[0]: "b", req.names[1]: "b"}
        (a, b), kw = _pair_inputs(req, a, b, params)
        with _field("metric", known):
            res = B.compare(a, b, metric=metric, scope=req.scope, rope=req.rope, level=req.level, seed=req.seed,
                            prior=_prior(req.prior), interval=req.interval, draws=req.draws,
                            resamples=req.resamples, collapse=req.collapse, names=tuple(req.names),
                            **{"missing": np.nan, **kw}, **params)
    return clean({**res.to_dict(), "warnings": warns})


def monitor(req: MonitorRequest) -> dict:
    """``POST /v1/monitor``: :class:`bayeseval.sequential.SequentialCompare` over the rows of ``a`` and ``b``."""
    from ..comparison.paired import align, as_counts
    from ..scores import Scores, binarise
    from ..sequential import SequentialCompare, question_values

    warns: list = []
    with _warnings(warns):
        a = _counts(req.a, "a")  # 0/1, graded with weights, or scores: question_values scores each kind
        b = _counts(req.b, "b")
        metric, params = metric_args(req.metric)
        t = params.get("threshold")
        if t is not None:  # scores above it count as correct: 0/1 outcomes from here on
            (a, b), kw = _pair_inputs(req, a, b, params)
            params.pop("threshold")
            with _field("metric", {**_KNOWN, "threshold": "metric"}):
                a, b = (B.to_counts(binarise(x, t, missing=np.nan, name=n, score_range=kw.get("score_range")),
                                    missing=np.nan) for x, n in ((a, "a"), (b, "b")))
        with _field("b", {}):
            b, _ = align(a, b, names=("a", "b"))
        for side, o in (("a", req.a), ("b", req.b)):
            if o.weights is not None and len(set(o.weights)) == 1:  # a constant: named here (the library says w)
                raise ServiceError(422, "validation_error", f"{side}.weights",
                                   f"{side}.weights gives every category the same weight ({o.weights[0]:g}), so every "
                                   "question scores that whatever its outcomes: there is nothing to monitor; give "
                                   "weights that differ")
        known = {**_KNOWN, **{p: "metric" for p in ("k", "tau", "lam", "weights", "unknown", "metric")}}
        with _field("metric", known):
            xa, (lo, hi) = question_values(a, metric, w=req.a.weights, name="a", **params)
            xb, span_b = question_values(b, metric, w=req.b.weights, name="b", **params)
        if isinstance(a, Scores) or isinstance(b, Scores):  # one scale, as /v1/compare and /v1/rank require
            sides = {req.names[0]: (a, req.a), req.names[1]: (b, req.b)}
            with _field("b", {}):
                same_range({name: as_counts(c, name, scores=True) if isinstance(c, B.Counts) and c.is_binary
                            and o.weights is None else c for name, (c, o) in sides.items()})
        if span_b != (lo, hi):  # a mean grade on [0, 10] beside a 0/1 rate was compared as one scale
            field = "b.weights" if req.b.weights is not None else "a.weights" if req.a.weights is not None else "b"
            raise ServiceError(422, "validation_error", field, f"a's per-question values lie in [{lo:g}, {hi:g}] and "
                               f"b's in [{span_b[0]:g}, {span_b[1]:g}]; compare outcomes on one scale (the same "
                               "category weights for both, or scores on one range)")
        from ..targets import parse

        spec = parse(metric, **params)
        label = (spec if t is None else spec.thresholded(t)).label  # the metric as estimate names it
        with _field("until", {"until": "until", "rope": "rope", "range": "until", "null": "until", "names": "names"}):
            seq = SequentialCompare(lo, hi, alpha=req.alpha, until=req.until, names=tuple(req.names), rope=req.rope,
                                    metric=label)
        with _field("b", {"a": "a", "b": "b"}):  # b's scores outside a's range (graded with other weights)
            st = seq.update(xa, xb, samples=(np.asarray(a.n), np.asarray(b.n)))
    out = st.to_dict()
    out["path"] = {"lower": st.path_lower.tolist(), "upper": st.path_upper.tolist()}
    return clean({**out, "warnings": warns})


def rank(req: RankRequest) -> dict:
    """``POST /v1/rank``: :func:`bayeseval.compare_all` over ``models``."""
    warns: list = []
    with _warnings(warns):
        models = {name: _counts(o, f"models.{name}", binary="rank") for name, o in req.models.items()}
        metric, params = metric_args(req.metric)
        known = {**_KNOWN, **{p: "metric" for p in ("k", "tau", "lam", "weights", "unknown", "metric")},
                 **{name: f"models.{name}" for name in models}}
        models, kw = _raw_scores(req.models, models, "metric" if params.get("threshold") is not None else None,
                                 "models.")
        with _field("metric", known):
            res = B.compare_all(models, metric=metric, scope=req.scope, level=req.level, seed=req.seed,
                                prior=_prior(req.prior), test=req.test, pairs=req.pairs, draws=req.draws,
                                resamples=req.resamples, shrink=req.shrink, **kw, **params)
    return clean({**res.to_dict(), "warnings": warns})


def plan(req: PlanRequest) -> dict:
    """``POST /v1/plan``: :func:`bayeseval.plan` from pilot outcomes (one model, or a pair)."""
    warns: list = []
    with _warnings(warns):
        a = _trial_input(req.a, "a", "plan")
        b = None if req.b is None else _trial_input(req.b, "b", "plan")
        with _field("a", {**_KNOWN, "A": "b", "B": "b"}):  # B: the model whose score range differs
            res = B.plan(a, b, alpha=req.alpha, power=req.power, level=req.level, delta=req.delta, missing=np.nan)
    return clean({**res.to_dict(), "warnings": warns})


def pairwise(req: PairwiseRequest) -> dict:
    """``POST /v1/pairwise``: :func:`bayeseval.pairwise.win_rate` (with ``a`` and ``b``) or
    :func:`bayeseval.pairwise.bradley_terry` on the labels."""
    from ..pairwise import bradley_terry, from_long, win_rate

    labels = req.labels
    table = {"item": [lab.item for lab in labels], "model_a": [lab.model_a for lab in labels],
             "model_b": [lab.model_b for lab in labels], "winner": [lab.winner for lab in labels]}
    kw = {}
    if any(lab.judge is not None for lab in labels):
        table["judge"] = [lab.judge if lab.judge is not None else "" for lab in labels]
        kw["judge"] = "judge"
    if labels[0].first is not None:
        table["first"] = [lab.first for lab in labels]
        kw["order"] = "first"
    warns: list = []
    try:
        with _warnings(warns):
            prefs = from_long(table, **kw)
            if req.a is not None:
                res = win_rate(prefs, req.a, req.b, scope=req.scope, ties=req.ties or "split", level=req.level,
                               draws=req.draws, resamples=req.resamples, seed=req.seed)
            else:
                res = bradley_terry(prefs, ties=req.ties or "davidson", level=req.level, draws=req.draws,
                                    seed=req.seed)
    except (ValueError, TypeError) as exc:  # the library names the row (= the label's index) or a / b
        msg = str(exc)
        row = re.search(r"\brows? (\d+)", msg)
        field = (f"labels[{row.group(1)}]" if row else "a" if msg.startswith("a ") else "b" if msg.startswith("b ")
                 else "labels")
        raise ServiceError(422, "validation_error", field, msg) from None
    out = res.to_dict()
    return clean({**out, "warnings": list(out.get("warnings", [])) + [w for w in warns if w not in out.get("warnings", [])]})


def rubric(req: RubricRequest) -> dict:
    """``POST /v1/rubric``: :func:`bayeseval.rubric.rubric`, or :func:`~bayeseval.rubric.compare_rubric` of
    ``a`` and ``b``."""
    import pandas as pd

    from ..rubric import ITEM, JUDGE, SYSTEM, compare_rubric, rubric as rubric_

    dims = sorted(req.ratings[0].ratings)
    # the ids under the library's private column names, so that a dimension may be called item, system or judge
    table = pd.DataFrame({ITEM: [r.item for r in req.ratings], SYSTEM: [r.system for r in req.ratings],
                          JUDGE: [r.judge for r in req.ratings],
                          **{d: [r.ratings[d] for r in req.ratings] for d in dims}})
    kw = dict(item=ITEM, system=SYSTEM, judge=JUDGE, dimensions=dims, scale=tuple(req.scale),
              constraints=req.constraints, scope=req.scope, level=req.level, seed=req.seed, resamples=req.resamples)
    warns: list = []
    try:
        with _warnings(warns):
            res = (compare_rubric(table, req.a, req.b, **kw) if req.a is not None
                   else rubric_(table, measurement=req.measurement, **kw))
    except (ValueError, TypeError) as exc:  # the library names the row (= the rating's index) or the system
        msg = str(exc)
        row = re.search(r"\brows? (\d+)", msg)
        field = (f"ratings[{row.group(1)}]" if row else "constraints" if msg.startswith("constraints")
                 else "a" if "system" in msg and req.a is not None else "ratings")
        raise ServiceError(422, "validation_error", field, msg) from None
    return clean({**res.to_dict(), "warnings": warns})


def classify(req: ClassifyRequest) -> dict:
    """``POST /v1/classify``: :func:`bayeseval.classification.classification` per model (or of the confusion
    matrix); two models: also :func:`~bayeseval.classification.compare_classifiers`."""
    from ..classification import classification, compare_classifiers

    warns: list = []
    out: dict = {}
    try:
        with _warnings(warns):
            if req.confusion_matrix is not None:
                with _field("confusion_matrix", {"labels": "labels", "positive": "positive"}):
                    out["models"] = {"confusion_matrix": classification(
                        confusion_matrix=req.confusion_matrix, labels=req.labels, positive=req.positive,
                        level=req.level, seed=req.seed).to_dict()}
            else:
                out["models"] = {}
                for name, pred in req.models.items():
                    with _field(f"models.{name}", {"labels": "labels", "positive": "positive", "items": "items"}):
                        out["models"][name] = classification(req.true, pred, labels=req.labels,
                                                             positive=req.positive, items=req.items,
                                                             level=req.level, seed=req.seed).to_dict()
                if len(req.models) == 2 and req.items is None:
                    (na, pa), (nb, pb) = req.models.items()
                    out["comparison"] = compare_classifiers(req.true, pa, pb, names=(na, nb), level=req.level).to_dict()
    except (ValueError, TypeError) as exc:
        raise ServiceError(422, "validation_error", "true", str(exc)) from None
    return clean({**out, "warnings": warns})


# ----------------------------------------------------------------------------- AISBench upload
def _default_metrics(reported: dict) -> list[str]:
    """The metrics AISBench reported, as bayeseval names (``avg@3`` -> ``avg@n``, ``accuracy`` -> ``avg``)."""
    from ..aisbench import metric_name

    out = []
    for key in reported:
        name = metric_name(key)
        if name and name not in out:
            out.append(name)
    return out or ["avg"]


def _find_work_dir(root: Path) -> Path:
    """The AISBench work dir (a folder with ``results/``) inside an extracted upload, or its one results JSON."""
    if (root / "results").is_dir():
        return root
    dirs = sorted({p.parent for p in root.rglob("results") if p.is_dir() and "__MACOSX" not in p.parts})
    if len(dirs) == 1:
        return dirs[0]
    if len(dirs) > 1:
        names = ", ".join(str(d.relative_to(root)) for d in dirs[:5])
        raise ServiceError(422, "bad_archive", "file", f"the zip holds several AISBench work dirs ({names}); "
                                                       "upload one")
    files = [p for p in root.rglob("*.json") if "__MACOSX" not in p.parts]
    if len(files) == 1:
        return files[0]
    raise ServiceError(422, "bad_archive", "file", "no AISBench work dir in the zip: expected a folder with "
                                                   "results/<model>/<dataset>.json (and predictions/, summary/), "
                                                   "as AISBench writes to outputs/default/<timestamp>/")


#: Largest single JSON file of an uploaded work dir that is parsed (bytes).
MAX_JSON_BYTES = 64 * 2**20


def aisbench(data: bytes, filename: str, opts: dict, max_files: int, max_bytes: int,
             folder: str | None = None, max_cells: int | None = None) -> dict:
    """``POST /v1/aisbench``: unzip safely, :func:`read_aisbench` (grouping-bug correction), estimate the metrics.

    ``opts``: ``metrics`` (list or None = what AISBench reported), ``regroup`` ("auto" / True / False),
    ``scope``, ``interval``, ``level``, ``seed``.  The archive is extracted into ``folder`` (an empty
    directory that the caller removes, so nothing is left behind when a worker is killed) or, without
    it, into a temporary directory removed on return.
    """
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="bayeseval-upload-") as tmp:
            return aisbench(data, filename, opts, max_files, max_bytes, tmp, max_cells)
    from bayeseval.io.aisbench import read_aisbench
    from bayeseval.report.tables import aisbench_summary

    root = Path(folder).resolve()
    safe_extract(data, root, max_files=max_files, max_bytes=max_bytes)
    work = _find_work_dir(root)
    files = [work] if work.is_file() else [p for p in work.rglob("*.json") if p.is_file()]
    big = next((p for p in files if p.stat().st_size > MAX_JSON_BYTES), None)
    if big is not None:
        raise ServiceError(422, "bad_archive", "file", f"{big.relative_to(root).as_posix()} holds "
                           f"{big.stat().st_size:,} bytes; a JSON file of the work dir may hold at most "
                           f"{MAX_JSON_BYTES:,}")
    warns: list = []
    try:
        with _warnings(warns), _field("file", {"regroup": "regroup"}, strip=str(root)):
            s = read_aisbench(work, regroup=opts.get("regroup", "auto"))
    except OSError as exc:  # a folder where a results file should be, an unreadable entry
        where = _reroot(str(exc.filename), str(root)) if exc.filename else "the work dir"
        raise ServiceError(422, "validation_error", "file",
                           f"cannot read {where} ({exc.strerror or type(exc).__name__})") from None
    if max_cells is not None:
        sizes = [int(run.matrix.size) for run in s]  # M x (most trials of a question), per run
        if sum(sizes) > max_cells:
            raise ServiceError(422, "too_many_cells", "file",
                               f"the work dir holds {sum(sizes):,} cells (questions x trials summed over runs); the "
                               f"cap is {max_cells:,} cells per request (BAYESEVAL_MAX_CELLS)")
    stats = {"scope": opts.get("scope", "population"), "interval": opts.get("interval", "auto"),
             "level": opts.get("level", 0.95), "seed": opts.get("seed")}
    runs, estimates = [], []
    with _warnings(warns):
        for run in s:
            counts = run.counts()
            with _metric_field("metrics"):
                ev = B.evaluate({run.model: counts}, opts.get("metrics") or _default_metrics(run.reported),
                                w=run.weights, **stats)
            ests = [dataclasses.replace(e, dataset=run.dataset) for e in ev]
            estimates += ests
            runs.append({"dataset": run.dataset, "model": run.model, "M": run.M, "N": _n(counts),
                         "grouping": run.meta.get("grouping"), "grouping_evidence": run.meta.get("grouping_evidence"),
                         "reported": dict(run.reported), "corrected": dict(run.meta.get("recomputed", {})),
                         "notes": list(run.meta.get("notes", [])), "estimates": [e.to_dict() for e in ests]})
        with _field("metrics"):
            summary = aisbench_summary(B.Evaluation(estimates), s, style="csv")
    warns = list(dict.fromkeys(_reroot(str(w), str(root)) for w in list(s.warnings) + warns))
    for r in runs:
        r["notes"] = [_reroot(str(n), str(root)) for n in r["notes"]]
    return clean({"source": filename, "runs": runs, "summary_csv": summary, "warnings": warns})
