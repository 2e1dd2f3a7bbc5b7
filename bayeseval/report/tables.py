r"""An :class:`~bayeseval.Evaluation` as a paper table, a terminal table or machine-readable records.

Human formats (:func:`to_markdown`, :func:`to_latex`, :func:`to_terminal`) have one row per
model (per dataset and model when the estimates come from several datasets) and one column per
metric; each cell is ``estimate [lo, hi]``: the point estimate (``Estimate.value``, the
finite-sample estimate a paper reports, or the posterior mean with ``point="mean"``) and the
credible interval, in percent (default) or as fractions, with ``digits`` decimals.  A note line
says the level, scope, interval method and prior.  With ``comparisons=`` (a
:class:`~bayeseval.Ranking` from :func:`~bayeseval.compare_all`, or :class:`~bayeseval.Comparison`
objects) and ``baseline=`` a column ``Δ <metric> vs <baseline>`` gives each model's difference
from the baseline (posterior mean and credible interval of ``model - baseline``) and a column
the multiplicity-adjusted p-value (Holm 1979 by default; Benjamini & Hochberg 1995 with
``adjust="bh"``).

Machine formats (:func:`to_csv`, :func:`to_json`) have one record per (dataset, model, metric)
with every field of :meth:`Estimate.to_dict <bayeseval.Estimate.to_dict>`.

:func:`aisbench_summary` reproduces AISBench's ``DefaultSummarizer`` layout (columns
``dataset, version, metric, mode`` and one column per model, values in percent with two
decimals) and adds the credible interval of every value.

>>> import numpy as np, bayeseval as B
>>> R = {"A": np.array([[1, 1, 0], [0, 1, 1], [0, 0, 1], [1, 1, 1]]), "B": np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0], [1, 1, 0]])}
>>> ev = B.evaluate(R, ["avg", "pass@2"], scope="benchmark", prior="uniform", interval="normal")
>>> print(to_terminal(ev))
model  avg                pass@2
-----  -----------------  -----------------
A      66.7 [41.2, 78.8]  91.7 [60.9, 95.8]
B      33.3 [21.2, 58.8]  58.3 [36.7, 80.0]
<BLANKLINE>
Note: estimate [95% normal-approximation credible interval], in percent; benchmark scope; prior: uniform.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from dataclasses import dataclass
from typing import Any

from .. import validate as V
from .._text import near_bound, pct, text_table
from ..posterior.robust import FEW_CARRYING_WORDS as FEW
from ..results import BOOTSTRAP_T_METHODS, NOT_APPLIED, QUESTION_METHODS, WIDENING_METHODS

__all__ = ["render", "to_markdown", "to_latex", "to_csv", "to_json", "to_terminal", "aisbench_summary", "records",
           "FORMATS", "CSV_FIELDS", "DELTA_FIELDS"]

FORMATS = ("markdown", "latex", "csv", "json", "terminal", "aisbench", "aisbench-csv", "aisbench-markdown")
CSV_FIELDS = ("dataset", "model", "metric", "value", "mean", "sd", "lo", "hi", "level", "scope", "interval", "prior",
              "M", "N", "miller_se", "draws", "seed")
DELTA_FIELDS = ("baseline", "delta", "delta_lo", "delta_hi", "p_value", "p_adjusted", "adjust")
INTERVAL_WORDS = {"exact": "equal-tailed", "hdi": "highest-density", "normal": "normal-approximation",
                  "bootstrap-t": "studentized-bootstrap", "exact+bootstrap-t": "equal-tailed + studentized-bootstrap "
                  "(wider ends)", "exact+binomial": "equal-tailed (widened to Clopper-Pearson's on the summed scores)",
                  "exact+betting": "equal-tailed (far end: betting confidence bound)"}
#: how a widened row (WIDENING_METHODS; "auto" becomes "exact+binomial" where few questions carry a metric) was
#: widened
WIDENED_WORDS = {"exact+binomial": "Widened to Clopper-Pearson's interval on the summed scores",
                 "exact+betting": "Far end from a betting confidence bound"}


def _split_widened(ests) -> tuple[list, list]:
    """``(rows, widened)``: where some rows have the equal-tailed interval and others its widened form (the
    default interval, "auto"), the table is described by the former and the latter are named; else all rows."""
    widened = [e for e in ests if e.method in WIDENING_METHODS]
    rest = [e for e in ests if e.method not in WIDENING_METHODS]
    return (rest, widened) if widened and rest else (list(ests), [])


def interval_noun(ests) -> str:
    """"credible" for posterior intervals (and the exact one widened by a confidence interval over questions, which
    the posterior's interval is part of), "confidence" for the bootstrap-t intervals (frequentist ones); rows the
    default widened are named apart (:func:`widened_rows`)."""
    rows, _ = _split_widened(ests)
    return " / ".join(dict.fromkeys("confidence" if e.method in BOOTSTRAP_T_METHODS else "credible" for e in rows))


def interval_words(ests) -> str:
    """What the intervals are: ``"95% equal-tailed credible"`` (levels, method, credible or confidence).

    >>> from types import SimpleNamespace as E
    >>> rows = [E(level=0.95, method="exact"), E(level=0.95, method="exact+binomial")]
    >>> interval_words(rows), interval_words(rows[1:])
    ('95% equal-tailed credible', "95% equal-tailed (widened to Clopper-Pearson's on the summed scores) credible")
    """
    rows, _ = _split_widened(ests)
    levels = _distinct(level_label(e.level) for e in rows)
    return f"{levels} {_distinct(INTERVAL_WORDS.get(e.method, e.method) for e in rows)} {interval_noun(rows)}"


def widened_rows(ests) -> str:
    """The sentence that names the rows whose equal-tailed interval has its far end from a confidence bound over
    questions (in a table of other rows too), or ""; "few questions carry the metric" where each such row says so
    (the default widened it; ``interval="exact+binomial"`` or ``"exact+betting"`` widens every row).

    >>> from types import SimpleNamespace as E
    >>> rows = [E(method="exact", model="a", metric="avg", warnings=()),
    ...         E(method="exact+binomial", model="a", metric="pass^8", warnings=("... rests on about 2.1 of 30 ...",))]
    >>> widened_rows(rows)
    " Widened to Clopper-Pearson's interval on the summed scores (few questions carry the metric): a pass^8."
    """
    _, widened = _split_widened(ests)
    if not widened:
        return ""
    why = " (few questions carry the metric)" if all(any(FEW in w for w in e.warnings) for e in widened) else ""
    return "".join(f" {WIDENED_WORDS[m]}{why}: {_row_names([e for e in widened if e.method == m], ests)}."
                   for m in dict.fromkeys(e.method for e in widened))
ADJUST = ("holm", "bh", "none")
_ADJUST_NAME = {"holm": "Holm", "bh": "BH", "none": "unadjusted"}
_ADJUST_LONG = {"holm": "Holm-adjusted", "bh": "Benjamini-Hochberg-adjusted", "none": "unadjusted"}


# ----------------------------------------------------------------------------- argument checks
def _choice(value: Any, name: str, options: tuple) -> str:
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(repr(o) for o in options)}, got {value!r}")
    return value



def _digits(digits: Any, percent: bool) -> int:
    if digits is None:
        return 1 if percent else 3
    return V.integer(digits, "digits", minimum=0)


def _names(value: Any, name: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    try:
        out = list(value)
    except TypeError:
        raise V.InputTypeError(f"{name} must be a list of strings, got {V.describe(value)}") from None
    if not out or not all(isinstance(x, str) for x in out):
        raise V.InputTypeError(f"{name} must be a non-empty list of strings, got {V.describe(value)}")
    return out


def estimates_of(ev: Any, name: str = "ev") -> list:
    """The :class:`~bayeseval.Estimate` objects of an Evaluation, a single Estimate or a list of them."""
    from ..results import Estimate

    if isinstance(ev, Estimate):
        return [ev]
    items = getattr(ev, "estimates", None)
    if items is None:
        if isinstance(ev, (str, bytes, dict)) or not hasattr(ev, "__iter__"):
            raise V.InputTypeError(f"{name} must be an Evaluation (from bayeseval.evaluate), an Estimate or a list "
                                   f"of Estimates, got {V.describe(ev)}")
        items = ev
    items = list(items)
    bad = [x for x in items if not isinstance(x, Estimate)]
    if bad:
        raise V.InputTypeError(f"{name} must be an Evaluation (from bayeseval.evaluate), an Estimate or a list of "
                               f"Estimates; it holds {V.describe(bad[0])}")
    if not items:
        raise ValueError(f"{name} holds no estimates")
    return items


# ----------------------------------------------------------------------------- the grid of cells
def model_label(e) -> str:
    return "-" if e.model is None else str(e.model)


@dataclass
class Grid:
    rows: list  # (dataset, model) in order of first appearance
    metrics: list
    cells: dict  # (dataset, model, metric) -> Estimate
    several: bool  # more than one dataset: show a dataset column
    dataset: str | None  # the one dataset's name, when there is exactly one

    def get(self, row, metric):
        return self.cells.get((row[0], row[1], metric))


def grid(ests: list, models: Any = None, metrics: Any = None) -> Grid:
    """Arrange estimates as rows (dataset, model) x columns (metric); duplicates raise ValueError."""
    models, metrics = _names(models, "models"), _names(metrics, "metrics")
    cells: dict = {}
    for e in ests:
        key = (e.dataset, model_label(e), e.metric)
        if key in cells:
            where = f"dataset {key[0]!r}, " if key[0] is not None else ""
            raise ValueError(f"the evaluation has two estimates for {where}model {key[1]!r}, metric {key[2]!r}; "
                             "a table needs one per cell (evaluate each scope / prior separately)")
        cells[key] = e
    rows = list(dict.fromkeys((d, m) for d, m, _ in cells))
    first = list(dict.fromkeys(d for d, _ in rows))
    rows.sort(key=lambda r: first.index(r[0]))  # a dataset's rows together (stable: models keep their order)
    have_models = list(dict.fromkeys(m for _, m in rows))
    have_metrics = list(dict.fromkeys(k for _, _, k in cells))
    if models is not None:
        unknown = [m for m in models if m not in have_models]
        if unknown:
            raise ValueError(f"models: {unknown} not in the evaluation; it has {have_models}")
        order = list(dict.fromkeys(d for d, _ in rows))
        rows = sorted((r for m in models for r in rows if r[1] == m), key=lambda r: order.index(r[0]))
    if metrics is not None:
        unknown = [m for m in metrics if m not in have_metrics]
        if unknown:
            raise ValueError(f"metrics: {unknown} not in the evaluation; it has {have_metrics}")
        have_metrics = metrics
    datasets = list(dict.fromkeys(d for d, _ in rows))
    several = len(datasets) > 1
    return Grid(rows, have_metrics, cells, several, datasets[0] if len(datasets) == 1 else None)


# ----------------------------------------------------------------------------- number formatting
def fmt(x: float, digits: int, scale: float = 1.0, sign: bool = False) -> str:
    """``x * scale`` with ``digits`` decimals; a value that rounds to zero has no minus sign.

    >>> fmt(0.4489, 1, 100), fmt(-0.00001, 2, 100, sign=True), fmt(0.0123, 3, sign=True)
    ('44.9', '+0.00', '+0.012')
    """
    s = f"{x * scale:{'+' if sign else ''}.{digits}f}"
    if s.lstrip("+-").strip("0.") == "":  # rounds to zero: no "-0.0"
        s = ("+" if sign else "") + s.lstrip("+-")
    return s


def fmt_near(x: float, digits: int, scale: float = 1.0, top: float | None = None) -> str:
    """:func:`fmt`, except that a value rounding to 0 (or to ``top``: 100 for a rate in percent) without being
    it keeps two significant digits of its distance from that bound, up to ``digits + 4`` decimals; past that
    ``<0.00001`` / ``>99.99999``.  ``0.0`` and ``100.0`` are then always exact, never rounding.

    >>> fmt_near(9.16e-6, 1, 100), fmt_near(1e-12, 1, 100), fmt_near(0.0, 1, 100), fmt_near(0.9999958, 1, 100, top=100)
    ('0.00092', '<0.00001', '0.0', '99.99958')
    >>> fmt_near(1 - 1e-12, 1, 100, top=100), fmt_near(0.4489, 1, 100, top=100)
    ('>99.99999', '44.9')
    """
    return near_bound(x * scale, digits, 0.0, top, fmt(x, digits, scale))


def range_of(e) -> tuple[float, float]:
    """The range of ``e``'s metric (its posterior's; a hand-built Estimate: its interval)."""
    rng = getattr(e._post, "range", None)
    return tuple(float(x) for x in (rng if rng is not None else (e.lo, e.hi)))


def scale_of(e, percent: bool) -> float:
    """100 to show ``e`` in percent, 1 when ``percent`` is off or the metric is not a rate in [0, 1]
    (a mean grade with category weights, a payoff vector outside [0, 1]: shown in its own units)."""
    if not percent:
        return 1.0
    lo, hi = range_of(e)
    return 100.0 if lo >= 0 and hi <= 1 else 1.0


def own_digits(e, digits: int) -> int:
    """Decimals for a metric shown in its own units beside rates in percent: as fine a step, relative to its range,
    as ``digits`` decimals of a percent (a mean score on [0, 2] with 1 decimal read "1.3 [1.3, 1.3]").

    >>> from types import SimpleNamespace as E
    >>> [own_digits(E(_post=E(range=r)), 1) for r in ((0, 2), (1, 10), (0, 100), (-0.5, 0.5))]
    [2, 2, 1, 3]
    """
    lo, hi = range_of(e)
    return digits + max(0, 2 - math.ceil(math.log10(hi - lo))) if hi > lo else digits


def _units(e) -> str:
    """What a cell's number is: a rate, or a value on its metric's own range."""
    lo, hi = range_of(e)
    return "a rate in [0, 1]" if lo >= 0 and hi <= 1 else f"on [{lo:g}, {hi:g}]"


def mixed_units(g) -> dict:
    """Per (dataset, metric) column of the grid whose rows are in different units (a 0/1 model's rate beside a
    graded model's mean grade): the units per model.  Such a column's values are not comparable."""
    out: dict = {}
    for metric in g.metrics:
        for dataset in dict.fromkeys(r[0] for r in g.rows):
            cells = {r[1]: _units(e) for r in g.rows if r[0] == dataset and (e := g.get(r, metric)) is not None}
            if len(set(cells.values())) > 1:
                out[(dataset, metric)] = cells
    return out


def mixed_note(dataset, metric: str, cells: dict, best: bool = True) -> str:
    """The note under a table for a column whose rows are in different units (``best``: the table can bold the best
    value, and this column's is not)."""
    where = f" ({dataset})" if dataset else ""
    groups: dict = {}
    for model, unit in cells.items():
        groups.setdefault(unit, []).append(str(model))
    said = "; ".join(f"{', '.join(models)}: {unit}" for unit, models in groups.items())
    return (f"{metric}{where} mixes units ({said}): its values are not comparable across those rows"
            + (", and none is marked best" if best else "") + "; give every model the same outcome type (e.g. the "
            "graded ones thresholded to 0/1, or all as scores on one range) to compare them.")


def _shown(text: str) -> float:
    """The number a cell shows, for ranking cells: ``<0.00001`` just below ``0.00001``, ``>99.99999`` just above.

    >>> _shown("99.99958") < _shown(">99.99999") < _shown("100.0"), _shown("<0.00001") < 0.00001
    (True, True)
    """
    if text[0] in "<>":
        x = float(text[1:])
        return math.nextafter(x, -math.inf if text[0] == "<" else math.inf)
    return float(text)


def point_of(e, point: str) -> tuple[float, bool]:
    """(point estimate, whether the posterior mean stood in for an undefined sample estimate)."""
    if point == "mean":
        return e.mean, False
    return (e.mean, True) if e.value is None else (e.value, False)


def fmt_p(p: float | None, latex: bool = False) -> str:
    """p-value: three decimals, ``<0.001`` below that, ``-`` when undefined.

    >>> fmt_p(0.04567), fmt_p(2e-5), fmt_p(None)
    ('0.046', '<0.001', '-')
    """
    if p is None or (isinstance(p, float) and not math.isfinite(p)):
        return "--" if latex else "-"
    if p < 0.001:
        return "$<$0.001" if latex else "<0.001"
    return f"{p:.3f}"


def level_label(level: float) -> str:
    """``0.95 -> '95%'``, ``0.975 -> '97.5%'`` (:func:`bayeseval._text.pct`)."""
    return pct(level)


def _distinct(values) -> str:
    return " / ".join(dict.fromkeys(str(v) for v in values))


def units_as_shown(ests: list) -> str:
    """What unscaled cells (``percent=False``) hold: ``"as fractions"`` when every metric is a rate in [0, 1],
    else each metric's range (a rubric's mean ratings on [1, 5] beside its pass rate).

    >>> from types import SimpleNamespace as E
    >>> units_as_shown([E(metric="avg", lo=0.2, hi=0.4, _post=None)])
    'as fractions'
    >>> rows = [E(metric=m, lo=0, hi=0, _post=E(range=r)) for m, r in
    ...         (("coherence", (1, 5)), ("fluency", (1, 5)), ("passes", (0, 1)))]
    >>> units_as_shown(rows[:2]), units_as_shown(rows)
    ('on [1, 5]', 'on [1, 5] (coherence, fluency) and as fractions (passes)')
    """
    groups: dict = {}
    for e in ests:
        lo, hi = range_of(e)
        unit = "as fractions" if lo >= 0 and hi <= 1 else f"on [{lo:g}, {hi:g}]"
        groups.setdefault(unit, {})[str(e.metric)] = None
    if len(groups) <= 1:
        return next(iter(groups), "as fractions")
    return " and ".join(f"{unit} ({', '.join(metrics)})" for unit, metrics in groups.items())


def note_text(ests: list, *, percent: bool, point: str, intervals: bool, fallback: bool, dataset: str | None) -> str:
    """The note under a table: what the cells hold (level, method, scope, prior)."""
    what = "estimate" if point == "value" else "posterior mean"
    if intervals:
        what += f" [{interval_words(ests)} interval]"
    unit = "in percent" if percent else units_as_shown(ests)
    if percent and any(scale_of(e, True) == 1.0 for e in ests):
        unit += " (metrics outside [0, 1] in their own units)"
    text = (f"Note: {what}, {unit}; {_distinct(e.scope for e in ests)} scope; "
            f"prior: {_distinct(e.prior for e in ests)}.")
    if dataset is not None:
        text = f"Dataset: {dataset}. " + text
    if fallback:
        text += " * posterior mean: the sample estimate is undefined (k > n for some question)."
    return text + (widened_rows(ests) + _other_methods(ests) if intervals else "")


def _other_methods(ests: list) -> str:
    """Where an interval over questions was asked for and some rows kept the posterior's (``evaluate``'s per-cell
    fallback, which warns that it ``NOT_APPLIED``), which rows those are; rows the default left exact are not.

    >>> from types import SimpleNamespace as E
    >>> rows = [E(method="bootstrap-t", model="a", metric="avg", warnings=()),
    ...         E(method="exact", model="a", metric="pass@8", warnings=("the bootstrap-t interval does not apply here",))]
    >>> _other_methods(rows)
    ' Equal-tailed posterior interval where bootstrap-t does not apply: a pass@8.'
    >>> _other_methods([E(method="exact+betting", model="a", metric="avg", warnings=()),
    ...                 E(method="exact", model="a", metric="pass@8", warnings=())])
    ''
    """
    asked = [e.method for e in ests if e.method in QUESTION_METHODS]
    kept = [e for e in ests if e.method not in QUESTION_METHODS and any(NOT_APPLIED in w for w in e.warnings)]
    if not asked or not kept:
        return ""
    return f" Equal-tailed posterior interval where {_distinct(asked)} does not apply: {_row_names(kept, ests)}."


def several_datasets(ests) -> bool:
    """Whether the estimates come from more than one dataset: then rows, notes and legends name each one's."""
    return len({getattr(e, "dataset", None) for e in ests}) > 1


def _row_label(e, several: bool, metric: str | None = None) -> str:
    """``model metric`` (``metric`` as given, else the estimate's), led by the dataset where a table has several."""
    return (f"{e.dataset}: " if several and e.dataset is not None else "") + f"{model_label(e)} " + (
        str(e.metric) if metric is None else metric)


def _row_names(rows: list, among: list | None = None) -> str:
    """``model metric`` per row, led by its dataset where the table's rows (``among``, default ``rows``) come from
    more than one.

    >>> from types import SimpleNamespace as E
    >>> rows = [E(dataset="math", model="a", metric="pass^8"), E(dataset="code", model="a", metric="avg")]
    >>> _row_names(rows[:1]), _row_names(rows[:1], among=rows)
    ('a pass^8', 'math: a pass^8')
    """
    several = several_datasets(rows if among is None else among)
    names = [_row_label(e, several) for e in rows]
    return ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")


# ----------------------------------------------------------------------------- comparisons
@dataclass
class DeltaColumn:
    metric: str
    baseline: str
    cells: dict  # model -> (delta, lo, hi, raw p, adjusted p) for model - baseline
    note: str
    adjust: str


def _is_ranking(x) -> bool:
    from ..comparison import Ranking

    return isinstance(x, Ranking)


def delta_columns(comparisons: Any, baseline: Any, adjust: str, test: str, g: Grid) -> list[DeltaColumn]:
    """Δ columns (one per metric compared) versus ``baseline`` from a Ranking or Comparison objects."""
    from ..comparison import Comparison

    if comparisons is None:
        if baseline is not None:
            raise ValueError("baseline needs comparisons= (a Ranking from compare_all or Comparison objects)")
        return []
    if not isinstance(baseline, str):
        raise V.InputTypeError(f"baseline must be the name of a model (str) when comparisons are given, "
                               f"got {V.describe(baseline)}")
    adjust = _choice(adjust, "adjust", ADJUST)
    test = _choice(test, "test", ("permutation", "bootstrap"))
    if g.several:
        raise ValueError("Δ columns need estimates of one dataset; select one dataset (e.g. evaluate(outcomes.select("
                         "datasets=[...]), ...)) before adding comparisons")
    models = list(dict.fromkeys(m for _, m in g.rows))
    if baseline not in models:
        raise ValueError(f"baseline {baseline!r} is not a model of the evaluation; models: {models}")
    if _is_ranking(comparisons):
        rk = comparisons
        if baseline not in rk.models:
            raise ValueError(f"baseline {baseline!r} is not a model of the Ranking; its models: {rk.models}")
        cells = {}
        key = {"holm": "p_holm", "bh": "p_bh", "none": "p_value"}[adjust]
        for p in rk.pairs:
            if baseline not in (p["a"], p["b"]):
                continue
            if p["b"] == baseline:
                cells[p["a"]] = (p["delta"], p["lo"], p["hi"], p["p_value"], p[key])
            else:
                cells[p["b"]] = (-p["delta"], -p["hi"], -p["lo"], p["p_value"], p[key])
        missing = [m for m in rk.models if m != baseline and m not in cells]
        if missing:
            raise ValueError(f"the Ranking has no pair of {baseline!r} with {missing} (it tested its "
                             f"{getattr(rk, 'pair_set', 'adjacent')} pairs); rank with compare_all(..., pairs='all') "
                             f"or pairs=[(model, {baseline!r}), ...]")
        family = "" if adjust == "none" else _family(len(rk.pairs), "pair", "all " if rk.pair_set == "all" else "")
        note = (f"Δ = model − {baseline} on {rk.metric}: posterior mean [{level_label(rk.level)} credible interval], "
                f"{rk.scope} scope; p: {rk.test} test, {_ADJUST_LONG[adjust]}{family}.")
        return [DeltaColumn(rk.metric, baseline, cells, note, adjust)]
    comps = [comparisons] if isinstance(comparisons, Comparison) else comparisons
    if isinstance(comps, (str, bytes, dict)) or not hasattr(comps, "__iter__"):
        raise V.InputTypeError(f"comparisons must be a Ranking (from compare_all), a Comparison or a list of "
                               f"Comparisons, got {V.describe(comparisons)}")
    comps = list(comps)
    if not comps or not all(isinstance(c, Comparison) for c in comps):
        raise V.InputTypeError("comparisons must be a Ranking (from compare_all), a Comparison or a non-empty list "
                               "of Comparisons")
    raw = []
    for c in comps:
        if baseline not in c.names:
            raise ValueError(f"comparison {c.names[0]!r} vs {c.names[1]!r} does not involve the baseline {baseline!r}")
        src = c.permutation if test == "permutation" else c.bootstrap
        raw.append(None if src is None else src["p_value"])
    adj = _adjusted(raw, adjust)
    out: dict[str, DeltaColumn] = {}
    for c, p, p_raw in zip(comps, adj, raw):
        a, b = c.names
        d = c.delta
        other, vals = (a, (d.mean, d.lo, d.hi, p_raw, p)) if b == baseline else (b, (-d.mean, -d.hi, -d.lo, p_raw, p))
        col = out.get(c.metric)
        if col is None:
            family = "" if adjust == "none" else _family(len(comps), "comparison", "the ", " given")
            note = (f"Δ = model − {baseline} on {c.metric}: posterior mean [{level_label(d.level)} credible "
                    f"interval], {d.scope} scope; p: {test} test, {_ADJUST_LONG[adjust]}{family}.")
            col = out[c.metric] = DeltaColumn(c.metric, baseline, {}, note, adjust)
        if other in col.cells:
            raise ValueError(f"two comparisons of {other!r} with {baseline!r} on {c.metric}")
        col.cells[other] = vals
    return list(out.values())


def _family(n: int, what: str, article: str, tail: str = "") -> str:
    return f" over {article}{n} {what}s{tail}" if n != 1 else f" over one {what}{tail} (nothing to adjust)"


def _adjusted(raw: list, adjust: str) -> list:
    """Holm / Benjamini-Hochberg adjustment of the defined p-values (statsmodels' multipletests)."""
    if adjust == "none":
        return list(raw)
    from ..comparison.paired_tests import adjust as adjust_p

    method = "holm" if adjust == "holm" else "fdr_bh"
    return [float(p) if p is not None else None for p in adjust_p(raw, (method,))[method]]


# ----------------------------------------------------------------------------- the human table
@dataclass
class Table:
    header: list
    rows: list  # lists of cell strings
    best: list  # per row, the set of column indices to bold
    n_label: int  # leading label columns (dataset?, model)
    groups: list  # per row, its dataset (to separate groups)
    notes: list


def build_table(ev: Any, *, metrics: Any, models: Any, digits: Any, percent: Any, point: str, intervals: Any,
                comparisons: Any, baseline: Any, adjust: str, test: str, kind: str) -> Table:
    """Cells of the human formats; ``kind`` is "markdown", "latex" or "terminal" (header wording)."""
    ests = estimates_of(ev)
    percent = V.flag(percent, "percent")
    intervals = V.flag(intervals, "intervals")
    point = _choice(point, "point", ("value", "mean"))
    d = _digits(digits, percent)
    g = grid(ests, models, metrics)
    deltas = delta_columns(comparisons, baseline, adjust, test, g)
    missing = "--" if kind == "latex" else "-"
    header = (["dataset"] if g.several else []) + ["model"] + list(g.metrics)
    for col in deltas:
        p_head = "p" if col.adjust == "none" else f"p {_ADJUST_NAME[col.adjust]}"
        if kind == "terminal":
            header += [f"delta {col.metric} vs {col.baseline}", p_head]
        else:
            p_tex = "$p$" if col.adjust == "none" else f"$p$ ({_ADJUST_NAME[col.adjust]})"
            header += [f"Δ {col.metric} vs {col.baseline}", p_tex if kind == "latex" else p_head]
    rows, best, groups = [], [], []
    fallback = False
    points: dict = {}
    for r in g.rows:
        row = ([r[0] or "-"] if g.several else []) + [r[1]]
        for metric in g.metrics:
            e = g.get(r, metric)
            if e is None:
                row.append(missing)
                continue
            x, fb = point_of(e, point)
            fallback |= fb
            scale = scale_of(e, percent)
            # a value rounding to 0 or 100 % is shown with the digits that say it is not (every format: a paper's
            # table is where "0.0" would be read as certainty)
            top = scale if scale_of(e, True) == 100.0 else None
            dd = own_digits(e, d) if percent and scale == 1.0 else d
            near = lambda v: fmt_near(v, dd, scale, top)  # noqa: E731
            s = near(x)
            points[(r, metric)] = _shown(s)  # ties judged on the digits shown (100.0 beats 99.99958)
            s += "*" if fb else ""
            row.append(f"{s} [{near(e.lo)}, {near(e.hi)}]" if intervals else s)
        for col in deltas:
            if r[1] == col.baseline:
                row += [missing, missing]
            elif r[1] in col.cells:
                dm, lo, hi, _, p = col.cells[r[1]]
                ref = g.get(r, col.metric) or g.get((r[0], col.baseline), col.metric)
                scale = scale_of(ref, percent) if ref is not None else (100.0 if percent else 1.0)
                dcell = fmt(dm, d, scale, sign=True)
                if intervals:
                    dcell += f" [{fmt(lo, d, scale, sign=True)}, {fmt(hi, d, scale, sign=True)}]"
                row += [dcell, fmt_p(p, latex=kind == "latex")]
            else:
                row += [missing, missing]
        rows.append(row)
        groups.append(r[0])
    n_label = 2 if g.several else 1
    # the best displayed point estimate per metric column, within each dataset (ties all win); none in a column
    # whose rows are in different units
    mixed = mixed_units(g)
    top: dict = {}  # (dataset, metric) -> the best point estimate, found once
    for (rr, m), v in points.items():
        top[(rr[0], m)] = max(v, top.get((rr[0], m), v))
    for i, r in enumerate(g.rows):
        win = set()
        for j, metric in enumerate(g.metrics):
            if (r, metric) not in points or (r[0], metric) in mixed:
                continue
            if points[(r, metric)] == top[(r[0], metric)]:
                win.add(n_label + j)
        best.append(win)
    rows_shown = set(g.rows)
    used = [e for e in ests if (e.dataset, model_label(e)) in rows_shown and e.metric in g.metrics]
    notes = [note_text(used, percent=percent, point=point, intervals=intervals, fallback=fallback, dataset=g.dataset)]
    notes += [mixed_note(dataset if g.several else None, metric, cells)  # one dataset: the note above names it
              for (dataset, metric), cells in mixed.items()]
    notes += [c.note for c in deltas]
    return Table(header, rows, best, n_label, groups, notes)


def _write(text: str, path: Any) -> str:
    if path is not None:
        if not isinstance(path, (str, os.PathLike)):
            raise V.InputTypeError(f"path must be a file path (str or os.PathLike), got {V.describe(path)}")
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    return text


# ----------------------------------------------------------------------------- Markdown
def _md_escape(s: str) -> str:
    """A cell of a Markdown table: backslash, pipe, asterisk, backtick, tilde and an underscore at the edge of a
    word escaped, line breaks as spaces (a break ends the row), ``<`` that would open an HTML tag as ``&lt;``
    (``<0.001`` stays as it is), and the ``(`` of ``[text](url)`` escaped, so a name never hides a link behind
    other text (a bare URL may still be shown as a link, as itself; an interval's brackets stay as they are).

    >>> _md_escape("a|b*c\\nd <x> <0.001 _draft_")
    'a\\\\|b\\\\*c d &lt;x> <0.001 \\\\_draft\\\\_'
    >>> _md_escape("[l](http://e.vil) 51.0 [40.2, 61.8]")
    '[l]\\\\(http://e.vil) 51.0 [40.2, 61.8]'
    """
    s = " ".join(s.splitlines()) if ("\n" in s or "\r" in s) else s
    for ch in "\\|*`~":  # the backslash first; `x` would be code, ~x~ struck out
        s = s.replace(ch, "\\" + ch)
    s = re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", s)  # _draft_ is italic; gpt_4 (within a word) is not
    s = s.replace("](", "]\\(")  # [text](url) would be a link (an image with !)
    return re.sub(r"<(?=[A-Za-z/!?])", "&lt;", s) if "<" in s else s


def to_markdown(ev: Any, *, metrics: Any = None, models: Any = None, digits: int | None = None, percent: bool = True,
                point: str = "value", intervals: bool = True, bold_best: bool = False, comparisons: Any = None,
                baseline: str | None = None, adjust: str = "holm", test: str = "permutation", note: bool = True,
                path: Any = None) -> str:
    """A GitHub-flavoured Markdown pipe table: one row per model, one column per metric.

    Each cell is ``estimate [lo, hi]`` (``digits`` decimals, default 1 in percent and 3 as
    fractions); ``bold_best`` sets the best displayed estimate of each metric in ``**bold**``
    (ties all bold); ``comparisons``/``baseline`` add a Δ column and an adjusted p-value column
    (see :func:`to_latex`).  ``|`` and ``*`` in names are escaped.  A note line follows.

    >>> import numpy as np, bayeseval as B
    >>> ev = B.evaluate({"a_1": np.array([[1, 0], [1, 1]]), "b": np.array([[0, 0], [1, 0]])}, ["avg"],
    ...                 scope="benchmark", prior="uniform", interval="normal")
    >>> print(to_markdown(ev, bold_best=True))
    | model | avg |
    |---|---:|
    | a_1 | **75.0** [33.5, 91.5] |
    | b | 25.0 [8.5, 66.5] |
    <BLANKLINE>
    Note: estimate [95% normal-approximation credible interval], in percent; benchmark scope; prior: uniform.
    """
    bold_best = V.flag(bold_best, "bold_best")
    note = V.flag(note, "note")
    t = build_table(ev, metrics=metrics, models=models, digits=digits, percent=percent, point=point,
                    intervals=intervals, comparisons=comparisons, baseline=baseline, adjust=adjust, test=test,
                    kind="markdown")
    lines = ["| " + " | ".join(_md_escape(h) for h in t.header) + " |",
             "|" + "|".join("---" if j < t.n_label else "---:" for j in range(len(t.header))) + "|"]
    for row, best in zip(t.rows, t.best):
        cells = []
        for j, c in enumerate(row):
            c = _md_escape(c)
            if bold_best and j in best:
                head, _, rest = c.partition(" ")
                c = f"**{head}**" + (f" {rest}" if rest else "")
            cells.append(c)
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    if note:  # escaped as the cells are: a note names models too
        text += "\n\n" + "\n".join(_md_escape(n) for n in t.notes)
    return _write(text, path)


# ----------------------------------------------------------------------------- terminal
def to_terminal(ev: Any, *, metrics: Any = None, models: Any = None, digits: int | None = None, percent: bool = True,
                point: str = "value", intervals: bool = True, comparisons: Any = None, baseline: str | None = None,
                adjust: str = "holm", test: str = "permutation", note: bool = True, path: Any = None) -> str:
    """A plain-text table (columns padded, a rule under the header) followed by the note line.

    Same layout and arguments as :func:`to_markdown`; ASCII headers (``delta avg vs A``).
    See the module example.
    """
    note = V.flag(note, "note")
    t = build_table(ev, metrics=metrics, models=models, digits=digits, percent=percent, point=point,
                    intervals=intervals, comparisons=comparisons, baseline=baseline, adjust=adjust, test=test,
                    kind="terminal")
    text = text_table(t.header, t.rows)
    if note:
        text += "\n\n" + "\n".join(n.replace("Δ", "delta").replace("−", "-") for n in t.notes)
    return _write(text, path)


# ----------------------------------------------------------------------------- LaTeX
_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "[": "{[}", "]": "{]}", "<": r"\textless{}",
        ">": r"\textgreater{}", "|": r"\textbar{}", "Δ": r"$\Delta$", "−": "$-$"}


def tex_escape(s: str) -> str:
    r"""Escape LaTeX's special characters (``\ & % $ # _ { } ~ ^`` and ``[ ] < > |``) in text.

    >>> print(tex_escape("gpt_4 & co. 100% #1 {x} ~a^b"))
    gpt\_4 \& co. 100\% \#1 \{x\} \textasciitilde{}a\textasciicircum{}b
    """
    return "".join(_TEX.get(ch, ch) for ch in str(s))


def _tex_num(s: str) -> str:
    """Signs of a number cell in math mode (``-1.0 -> $-$1.0``, ``+1.0 -> $+$1.0``, and the ``<`` / ``>`` of a
    value shown near a bound, ``<0.00001``: OT1 text sets them as inverted marks), brackets kept as text.

    >>> _tex_num("[-1.0, <0.00001]")
    '[$-$1.0, $<$0.00001]'
    """
    out = []
    for i, ch in enumerate(s):
        if ch in "+-<>" and (i == 0 or s[i - 1] in " [("):
            out.append(f"${ch}$")
        else:
            out.append(ch)
    return "".join(out)


def to_latex(ev: Any, *, metrics: Any = None, models: Any = None, digits: int | None = None, percent: bool = True,
             point: str = "value", intervals: bool = True, bold_best: bool = False, comparisons: Any = None,
             baseline: str | None = None, adjust: str = "holm", test: str = "permutation", note: bool = True,
             caption: str | None = None, label: str | None = None, float_env: bool | None = None,
             position: str = "t", path: Any = None) -> str:
    r"""A booktabs ``tabular`` (``\toprule``, ``\midrule``, ``\bottomrule``; needs ``\usepackage{booktabs}``).

    One row per model (a dataset column and a ``\midrule`` between datasets when there are
    several), one ``c`` column per metric with cells ``estimate [lo, hi]``; special characters
    in names are escaped (:func:`tex_escape`), minus signs are set in math mode.

    * ``bold_best=True``: ``\textbf{}`` around the best displayed estimate of each metric
      column (within a dataset; ties, judged on the displayed digits, are all bold).
    * ``comparisons=`` a :class:`~bayeseval.Ranking` (from :func:`~bayeseval.compare_all`),
      a :class:`~bayeseval.Comparison` or a list of them, with ``baseline="<model>"``: a
      column ``$\Delta$ <metric> vs. <baseline>`` with the posterior mean and credible interval
      of ``model - baseline`` (a Ranking's pair ``(baseline, model)`` is negated and its interval
      flipped) and a column with the adjusted p-value: ``adjust="holm"`` (default), ``"bh"`` or
      ``"none"``.  From a Ranking the p-values are its own (adjusted over all pairs); from
      Comparisons the ``test`` p-values (permutation by default, or bootstrap) are adjusted over
      the comparisons given.
    * ``note``: the note line (level, scope, interval method, prior; the Δ definition) becomes
      the caption's tail inside a ``table`` float and a ``%`` comment above a bare tabular.
    * ``caption``/``label`` (or ``float_env=True``) wrap the tabular in ``table[position]``.

    >>> import numpy as np, bayeseval as B
    >>> ev = B.evaluate({"a_1": np.array([[1, 0], [1, 1]]), "b": np.array([[0, 0], [1, 0]])}, ["avg"],
    ...                 scope="benchmark", prior="uniform", interval="normal")
    >>> print(to_latex(ev, bold_best=True))
    % Note: estimate [95% normal-approximation credible interval], in percent; benchmark scope; prior: uniform.
    \begin{tabular}{lc}
    \toprule
    model & avg \\
    \midrule
    a\_1 & \textbf{75.0} [33.5, 91.5] \\
    b & 25.0 [8.5, 66.5] \\
    \bottomrule
    \end{tabular}
    """
    bold_best = V.flag(bold_best, "bold_best")
    note = V.flag(note, "note")
    if caption is not None and not isinstance(caption, str):
        raise V.InputTypeError(f"caption must be a str, got {V.describe(caption)}")
    if label is not None and not isinstance(label, str):
        raise V.InputTypeError(f"label must be a str, got {V.describe(label)}")
    if float_env is None:
        float_env = caption is not None or label is not None
    float_env = V.flag(float_env, "float_env")
    if not isinstance(position, str) or not position or any(ch not in "htbpH!" for ch in position):
        raise ValueError(f"position must be float placement letters from 'htbpH!', got {position!r}")
    t = build_table(ev, metrics=metrics, models=models, digits=digits, percent=percent, point=point,
                    intervals=intervals, comparisons=comparisons, baseline=baseline, adjust=adjust, test=test,
                    kind="latex")
    head = []
    for j, h in enumerate(t.header):
        if h.startswith("$p$"):  # already LaTeX
            head.append(h)
        else:
            head.append(tex_escape(h).replace(" vs ", r" vs.\ "))
    body = [r"\begin{tabular}{" + "l" * t.n_label + "c" * (len(t.header) - t.n_label) + "}", r"\toprule",
            " & ".join(head) + r" \\", r"\midrule"]
    for i, (row, best) in enumerate(zip(t.rows, t.best)):
        if i and t.groups[i] != t.groups[i - 1]:
            body.append(r"\midrule")
        cells = []
        for j, c in enumerate(row):
            if j < t.n_label:
                cells.append(tex_escape(c))
                continue
            if c.startswith("$") or c == "--":  # an already-formatted p-value, or no value
                cells.append(c)
                continue
            c = _tex_num(c.replace("*", r"\textsuperscript{*}"))
            if bold_best and j in best:
                headp, _, rest = c.partition(" ")
                c = r"\textbf{" + headp + "}" + (f" {rest}" if rest else "")
            cells.append(c)
        body.append(" & ".join(cells) + r" \\")
    body += [r"\bottomrule", r"\end{tabular}"]
    note_tex = " ".join(tex_escape(n) for n in t.notes)
    if not float_env:
        lines = [f"% {n}" for n in t.notes] if note else []
        return _write("\n".join(lines + body), path)
    cap = tex_escape(caption).strip() if caption else ""
    if cap and note and not cap.endswith((".", "!", "?")):
        cap += "."
    cap = " ".join(x for x in (cap, note_tex if note else "") if x)
    lines = [rf"\begin{{table}}[{position}]", r"\centering"]
    if cap:
        lines.append(r"\caption{" + cap + "}")
    if label:
        lines.append(r"\label{" + label + "}")
    lines += body + [r"\end{table}"]
    return _write("\n".join(lines), path)


# ----------------------------------------------------------------------------- CSV and JSON
def _clean(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):  # numpy scalars
        return _clean(x.item())
    return x


def records(ev: Any, *, metrics: Any = None, models: Any = None, comparisons: Any = None, baseline: str | None = None,
            adjust: str = "holm", test: str = "permutation") -> list[dict]:
    """One dict per estimate: ``dataset`` (None if unset) and :meth:`Estimate.to_dict`, in the evaluation's order.

    With ``comparisons``/``baseline`` (as in :func:`to_latex`) every record also has
    :data:`DELTA_FIELDS`: for the compared metric and a model other than the baseline, ``delta``,
    ``delta_lo``, ``delta_hi`` (posterior mean and interval of ``model - baseline``), ``p_value``
    (the test's raw p) and ``p_adjusted``; None elsewhere.
    """
    ests = estimates_of(ev)
    keep = None
    if metrics is not None or models is not None or comparisons is not None or baseline is not None:
        g = grid(ests, models, metrics)
        keep = {(d, m, k) for d, m in g.rows for k in g.metrics}
        deltas = {c.metric: c for c in delta_columns(comparisons, baseline, adjust, test, g)}
    else:
        deltas = {}
    out = []
    for e in ests:
        if keep is not None and (e.dataset, model_label(e), e.metric) not in keep:
            continue
        rec = {"dataset": None, **e.to_dict()}
        if comparisons is not None:
            col = deltas.get(e.metric)
            vals = None if col is None else col.cells.get(model_label(e))
            rec.update(zip(DELTA_FIELDS, (baseline, *(vals or (None,) * 5), adjust)))
        out.append(_clean(rec))
    return out


def _csv_cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, list):
        return json.dumps(v)
    return repr(v) if isinstance(v, float) else v


def to_csv(ev: Any, *, metrics: Any = None, models: Any = None, comparisons: Any = None, baseline: str | None = None,
           adjust: str = "holm", test: str = "permutation", path: Any = None) -> str:
    """CSV with one record per (dataset, model, metric) and the columns :data:`CSV_FIELDS`.

    Every field of :meth:`Estimate.to_dict <bayeseval.Estimate.to_dict>` but its warnings (free text, in the
    JSON output and on stderr); floats are written
    with ``repr`` (shortest round-trip digits), so ``pandas.read_csv`` gives the same numbers;
    missing values (no dataset, undefined value) are empty; a ragged ``N`` is ``[min, max]``.
    With ``comparisons``/``baseline`` the columns :data:`DELTA_FIELDS` follow (see :func:`records`).

    >>> import numpy as np, bayeseval as B
    >>> ev = B.evaluate({"a": np.array([[1, 0], [1, 1]])}, ["avg"], scope="benchmark", prior="uniform", interval="normal")
    >>> print(to_csv(ev))
    dataset,model,metric,value,mean,sd,lo,hi,level,scope,interval,prior,M,N,miller_se,draws,seed
    ,a,avg,0.75,0.625,0.1479019945774904,0.33511741738648043,0.9148825826135196,0.95,benchmark,normal,uniform,2,2,0.25,,20251104
    <BLANKLINE>
    """
    recs = records(ev, metrics=metrics, models=models, comparisons=comparisons, baseline=baseline, adjust=adjust,
                   test=test)
    fields = CSV_FIELDS + (DELTA_FIELDS if comparisons is not None else ())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(fields)
    for rec in recs:
        w.writerow([_csv_cell(rec.get(k)) for k in fields])
    return _write(buf.getvalue(), path)


def to_json(ev: Any, *, metrics: Any = None, models: Any = None, comparisons: Any = None, baseline: str | None = None,
            adjust: str = "holm", test: str = "permutation", indent: int | None = 2, path: Any = None) -> str:
    """A JSON array with one record per (dataset, model, metric) (see :func:`records`).

    Each record is ``dataset`` (null when unset) plus :meth:`Estimate.to_dict
    <bayeseval.Estimate.to_dict>`, with :data:`DELTA_FIELDS` when ``comparisons``/``baseline``
    are given; non-finite numbers become null (strict JSON).  (The whole comparison is
    ``Ranking.to_dict()`` / ``Comparison.to_json()``.)

    >>> import numpy as np, bayeseval as B
    >>> ev = B.evaluate({"a": np.array([[1, 0], [1, 1]])}, ["avg"], scope="benchmark", prior="uniform", interval="normal")
    >>> rec = json.loads(to_json(ev))[0]
    >>> rec["dataset"], rec["model"], rec["value"], rec["M"]
    (None, 'a', 0.75, 2)
    """
    if indent is not None:
        indent = V.integer(indent, "indent", minimum=0)
    recs = records(ev, metrics=metrics, models=models, comparisons=comparisons, baseline=baseline, adjust=adjust,
                   test=test)
    return _write(json.dumps(recs, indent=indent, allow_nan=False), path)


# ----------------------------------------------------------------------------- AISBench summary
def tabulate_simple(header: list, rows: list, right: set) -> str:
    """tabulate's "simple" format (what AISBench prints): each column at least its header plus two wide,
    two spaces between columns, a dashed rule; columns in ``right`` right-aligned (header too)."""
    widths = [max([len(h) + 2] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def _aisbench_metric(e, names: dict) -> str:
    if e.metric in names:
        return names[e.metric]
    if e.metric == "avg@n" and isinstance(e.N, int):
        return f"avg@{e.N}"
    return e.metric


def _key(name: str) -> str:
    return str(name).lower().replace(" ", "")


def reported_value(run, *names: str):
    """The number the evaluation tool printed for a metric, matched across naming conventions:
    ``avg`` / ``avg@n`` = AISBench's ``avg@<n>``, ``accuracy (<n> runs average)`` or ``accuracy``;
    ``g-pass@k (tau=t)`` = OpenCompass's ``G-Pass@k_t``; otherwise the name itself, ignoring case.

    >>> from bayeseval.io import Run
    >>> run = Run("d", "m", [0, 1], [[1, 0, 1], [1, 1, 1]], reported={"G-Pass@3_0.5": 100.0, "avg@3": 83.3})
    >>> reported_value(run, "g-pass@3 (tau=0.5)"), reported_value(run, "avg"), reported_value(run, "pass@3")
    (100.0, 83.3, None)
    """
    table = {_key(k): v for k, v in run.reported.items()}
    n = int(run.n.max()) if run.M else 0
    from ..aisbench import reported_names

    for name in names:
        for c in reported_names(name, n):
            if _key(c) in table:
                return table[_key(c)]
        g = re.fullmatch(r"g-pass@(\d+)\(tau=([\d.]+)\)", _key(name))
        if g:
            for k, v in table.items():
                h = re.fullmatch(r"g-pass@(\d+)_([\d.]+)", k)
                if h and h[1] == g[1] and float(h[2]) == float(g[2]):
                    return v
    return None


def aisbench_summary(ev: Any, outcomes: Any = None, *, style: str = "csv", interval: str | None = "columns",
                     reported: bool | None = None, metric_names: dict | None = None, dataset: str | None = None,
                     metrics: Any = None, models: Any = None, point: str = "value", digits: int | None = 2,
                     note: bool = True, path: Any = None) -> str:
    """AISBench's summary table (``DefaultSummarizer``) with credible intervals.

    Columns ``dataset, version, metric, mode``, then for each model its value in percent
    (a metric outside [0, 1], e.g. a mean grade, in its own units) with ``digits`` decimals (AISBench prints two) and, with ``interval="columns"``
    (default), ``<model> lo`` and ``<model> hi``; ``interval="ci"`` gives one column
    ``<model> 95% CI`` holding ``[lo, hi]``; ``interval=None`` gives AISBench's columns only.
    One row per (dataset, metric); ``metrics``/``models`` select and order.  ``version`` and ``mode`` come from the runs of
    ``outcomes`` (an :class:`~bayeseval.io.OutcomeSet`: ``run.meta["version"]``,
    ``run.meta["mode"]``; several distinct values are joined with ``/``), else ``-``.
    The dataset is the estimate's, else ``dataset=``, else the one dataset of ``outcomes``,
    else ``-``.  Metric names: ``metric_names`` maps an estimate's metric to the printed name
    (e.g. ``{"avg": "accuracy (3 runs average)"}``); ``avg@n`` prints as ``avg@<N>``.
    ``reported``: add ``<model> reported`` with the number the tool printed
    (``run.reported[name]``, as printed, in its units); default: when ``outcomes`` has any.

    ``style``: ``"csv"`` (the summarizer's CSV file), ``"terminal"`` (tabulate's "simple"
    layout, as AISBench prints it) or ``"markdown"``.  With interval columns, the terminal and Markdown
    tables end with the note line of the other tables (level, interval method, credible or confidence,
    scope, prior) unless ``note=False``; the CSV file and ``interval=None`` stay AISBench's layout.

    >>> import numpy as np, bayeseval as B
    >>> R = np.array([[1, 1, 0], [0, 1, 1], [0, 1, 1], [1, 1, 1]])
    >>> ev = B.evaluate({"m": R}, ["avg@n", "pass@3"], scope="benchmark", prior="uniform", interval="normal")
    >>> print(aisbench_summary(ev, dataset="demo", style="terminal"))
    dataset    version    metric    mode         m    m lo    m hi
    ---------  ---------  --------  ------  ------  ------  ------
    demo       -          avg@3     -        75.00   46.23   83.77
    demo       -          pass@3    -       100.00   78.24  100.00
    <BLANKLINE>
    Note: estimate [95% normal-approximation credible interval], in percent; benchmark scope; prior: uniform.
    """
    ests = estimates_of(ev)
    style = _choice(style, "style", ("csv", "terminal", "markdown"))
    if interval is not None:
        interval = _choice(interval, "interval", ("columns", "ci"))
    point = _choice(point, "point", ("value", "mean"))
    digits = 2 if digits is None else V.integer(digits, "digits", minimum=0)
    note = V.flag(note, "note")
    if metric_names is None:
        metric_names = {}
    if not isinstance(metric_names, dict) or not all(isinstance(v, str) for v in metric_names.values()):
        raise V.InputTypeError(f"metric_names must be a dict metric -> printed name, got {V.describe(metric_names)}")
    if dataset is not None and not isinstance(dataset, str):
        raise V.InputTypeError(f"dataset must be a str, got {V.describe(dataset)}")
    if outcomes is not None and not (hasattr(outcomes, "run") and hasattr(outcomes, "datasets")):
        raise V.InputTypeError(f"outcomes must be an OutcomeSet (bayeseval.io), got {V.describe(outcomes)}")
    g = grid(ests, models, metrics)
    models = list(dict.fromkeys(m for _, m in g.rows))
    ests = [e for e in ests if (e.dataset, model_label(e)) in set(g.rows) and e.metric in g.metrics]

    def run_of(ds, model):
        if outcomes is None:
            return None
        try:
            return outcomes.run(model, ds) if ds is not None else outcomes.run(model)
        except KeyError:
            return None

    def ds_name(ds):
        if ds is not None:
            return ds
        if dataset is not None:
            return dataset
        if outcomes is not None and len(outcomes.datasets) == 1:
            return outcomes.datasets[0]
        return "-"

    if reported is None:
        reported = outcomes is not None and any(run.reported for run in outcomes)
    reported = V.flag(reported, "reported")
    header = ["dataset", "version", "metric", "mode"]
    right = set()
    for m in models:
        cols = [m]
        if interval == "columns":
            cols += [f"{m} lo", f"{m} hi"]
        elif interval == "ci":
            cols += [f"{m} {_distinct(level_label(e.level) for e in ests if model_label(e) == m)} CI"]
        if reported:
            cols += [f"{m} reported"]
        right.update(range(len(header), len(header) + len(cols)))
        header += cols
    rows = []
    keys = list(dict.fromkeys((e.dataset, _aisbench_metric(e, metric_names)) for e in ests))
    by_key: dict = {}
    for e in ests:
        k = (e.dataset, _aisbench_metric(e, metric_names), model_label(e))
        if k in by_key:
            raise ValueError(f"two estimates print as metric {k[1]!r} for model {k[2]!r}; give metric_names= to tell "
                             "them apart")
        by_key[k] = e
    for ds, metric in keys:
        runs = [run_of(ds, m) for m in models if (ds, metric, m) in by_key]
        runs = [r for r in runs if r is not None]
        meta = lambda f: _distinct(str(r.meta[f]) for r in runs if r.meta.get(f) not in (None, "")) or "-"  # noqa: E731
        row = [ds_name(ds), meta("version"), metric, meta("mode")]
        for m in models:
            e = by_key.get((ds, metric, m))
            if e is None:
                row += ["-"] * (1 + {"columns": 2, "ci": 1, None: 0}[interval] + int(reported))
                continue
            x, _ = point_of(e, point)
            sc = scale_of(e, True)
            top = 100.0 if sc == 100.0 else None
            near = lambda v: fmt_near(v, digits, sc, top)  # noqa: E731 - the tables' rule for near-bound values
            row.append(near(x))
            if interval == "columns":
                row += [near(e.lo), near(e.hi)]
            elif interval == "ci":
                row.append(f"[{near(e.lo)}, {near(e.hi)}]")
            if reported:
                run = run_of(ds, m)
                rep = None if run is None else reported_value(run, metric, e.metric)
                row.append("-" if rep is None else f"{rep:.{digits}f}" if isinstance(rep, (int, float)) else str(rep))
        rows.append(row)
    tail = ""
    if note and interval is not None and ests:
        tail = "\n\n" + note_text(ests, percent=True, point=point, intervals=True, dataset=None, fallback=False)
        several = several_datasets(ests)
        stand_in = [_row_label(e, several, _aisbench_metric(e, metric_names)) for e in ests if point_of(e, point)[1]]
        if stand_in:  # AISBench's cells are numbers only, so the note names the rows instead of marking them
            tail += (" Posterior mean where the sample estimate is undefined (k > n for some question): "
                     + ", ".join(dict.fromkeys(stand_in)) + ".")
    if style == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        return _write(buf.getvalue(), path)
    if style == "terminal":
        return _write(tabulate_simple(header, rows, right) + tail, path)
    lines = ["| " + " | ".join(_md_escape(h) for h in header) + " |",
             "|" + "|".join("---:" if j in right else "---" for j in range(len(header))) + "|"]
    lines += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in rows]
    return _write("\n".join(lines) + tail, path)


# ----------------------------------------------------------------------------- front door
def render(ev: Any, format: str = "markdown", **options) -> str:
    """Render ``ev`` in ``format`` -- one front door for every table.

    ``format``: ``"markdown"`` (:func:`to_markdown`), ``"latex"`` (:func:`to_latex`),
    ``"terminal"`` (:func:`to_terminal`), ``"csv"`` (:func:`to_csv`), ``"json"``
    (:func:`to_json`), ``"aisbench"`` (:func:`aisbench_summary` as AISBench prints it,
    ``style="terminal"``), ``"aisbench-csv"`` or ``"aisbench-markdown"``.  ``options`` are the
    keyword arguments of those functions; an option that does not apply to the chosen format
    (``bold_best`` for CSV, ``outcomes`` for Markdown, ``percent`` for AISBench's percent-only
    layout, ...) is ignored, so one set of options serves every format; a name no formatter
    knows raises TypeError.

    >>> import numpy as np, bayeseval as B
    >>> ev = B.evaluate({"a": np.array([[1, 0], [1, 1]])}, ["avg"], scope="benchmark", prior="uniform", interval="normal")
    >>> render(ev, "markdown", note=False) == to_markdown(ev, note=False)
    True
    >>> render(ev, "csv", digits=2, bold_best=True) == to_csv(ev)
    True
    """
    fmt_ = _choice(format, "format", FORMATS)
    fn, fixed = _RENDERERS[fmt_]
    unknown = sorted(k for k in options if k not in RENDER_OPTIONS)
    if unknown:
        raise V.InputTypeError(f"render: unknown option(s) {unknown}; the options are {sorted(RENDER_OPTIONS)}")
    accepted = _params(fn)
    return fn(ev, **{**fixed, **{k: v for k, v in options.items() if k in accepted}})


def _params(fn) -> set:
    import inspect

    return {n for n, p in inspect.signature(fn).parameters.items() if p.kind is p.KEYWORD_ONLY or n == "outcomes"}


_RENDERERS = {
    "markdown": (to_markdown, {}), "latex": (to_latex, {}), "terminal": (to_terminal, {}), "csv": (to_csv, {}),
    "json": (to_json, {}), "aisbench": (aisbench_summary, {"style": "terminal"}),
    "aisbench-csv": (aisbench_summary, {"style": "csv"}), "aisbench-markdown": (aisbench_summary, {"style": "markdown"}),
}
RENDER_OPTIONS = frozenset().union(*(_params(fn) for fn, _ in _RENDERERS.values()))


# ----------------------------------------------------------------------------- pairwise strengths
def pairwise_table(strengths: Any, fmt: str = "markdown", *, digits: int = 0) -> str:
    r"""A :func:`bayeseval.pairwise.bradley_terry` result as a paper table (``fmt``: ``"markdown"`` or
    ``"latex"``, booktabs): rank, model, Elo with its interval, P(best) and expected rank; a note line says the
    model, level and covariance.

    >>> from bayeseval.pairwise import bradley_terry, from_long
    >>> p = from_long({"item": range(6), "model_a": ["x", "x", "y", "y", "x", "z"],
    ...                "model_b": ["y", "z", "z", "x", "z", "y"], "winner": ["x", "x", "y", "tie", "z", "y"]})
    >>> print(pairwise_table(bradley_terry(p)).splitlines()[2])
    | 1 | x | 1072 [813, 1332] | 0.45 | 1.68 |
    """
    from ..pairwise import Strengths
    from ..pairwise.strengths import ELO_SCALE

    if not isinstance(strengths, Strengths):
        raise V.InputTypeError(f"strengths must be a bradley_terry result, got {V.describe(strengths)}")
    if fmt not in ("markdown", "latex"):
        raise ValueError(f"fmt must be 'markdown' or 'latex', got {fmt!r}")
    digits = V.integer(digits, "digits", minimum=0)
    s = strengths
    elo = lambda x: f"{1000.0 + ELO_SCALE * x:.{digits}f}"  # noqa: E731
    rows = [(str(i + 1), m, f"{elo(s.strength[m])} [{elo(s.lo[m])}, {elo(s.hi[m])}]", f"{s.p_best[m]:.2f}",
             f"{s.expected_rank[m]:.2f}") for i, m in enumerate(s.models)]
    kind = "Davidson" if s.ties == "davidson" else "Bradley-Terry"
    note = (f"{kind} strengths on the Elo scale (1000 = average model), {pct(s.level)} intervals, {s.covariance} "
            f"covariance; {s.n_labels} {'decided ' if s.ties == 'exclude' else ''}labels on {s.n_items} items"
            + (f" ({s.ties_left_out} ties left out)" if s.ties == "exclude" else ""))
    head = ["rank", "model", "Elo", "P(best)", "E[rank]"]
    if fmt == "markdown":
        lines = ["| " + " | ".join(head) + " |", "|---:|---|---:|---:|---:|"]
        lines += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in rows]
        return "\n".join(lines + ["", note])
    lines = [r"\begin{tabular}{rlrrr}", r"\toprule", " & ".join(head) + r" \\", r"\midrule"]
    lines += [" & ".join([r[0], tex_escape(r[1]), _tex_num(r[2]), r[3], r[4]]) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}", "% " + note]
    return "\n".join(lines)
