r"""Plots of estimates, pass@k curves, differences and coverage studies (matplotlib).

matplotlib is imported inside each function, so ``import bayeseval`` does not import it.
Every function draws on ``ax`` when given (then it returns ``ax.figure``) or on a new
:class:`matplotlib.figure.Figure` that is *not* registered with pyplot (no global state, safe
under any backend, including Agg on a server); it returns the Figure, which a notebook displays
when it is the cell's value.  ``save="plot.png"`` (or ``.pdf``, ``.svg``) also writes the figure.
To draw into pyplot's current figure, pass ``ax=plt.gca()``.

* :func:`forest` -- point estimates and credible intervals, one row per model, one panel per metric;
* :func:`pass_at_k_curve` -- pass@k against k with a credible band per model (small multiples of at
  most ten models each beyond ten models, so every panel keeps distinct colours and a legend beside it);
* :func:`rank_plot` -- a :class:`~bayeseval.comparison.Ranking` (``compare_all``): models sorted by
  estimate with credible intervals, and each model's P(best) and expected rank;
* :func:`difference_density` -- the posterior density of ``theta_A - theta_B`` from :func:`~bayeseval.compare`;
* :func:`coverage_plot` and :func:`read_coverage_results` -- a coverage study (``benchmarks/coverage.py``):
  observed coverage per cell against the nominal level with its binomial Monte-Carlo band.

>>> import numpy as np, bayeseval as B
>>> ev = B.evaluate({"a": np.array([[1, 0], [1, 1]]), "b": np.array([[0, 0], [1, 0]])}, ["avg", "pass@2"])
>>> fig = forest(ev)
>>> [ax.get_title() for ax in fig.axes]
['avg', 'pass@2']
"""

from __future__ import annotations

import ast
import os
import re
import warnings
from typing import Any

import numpy as np

from .. import validate as V
from .._text import fmt_prob, pct
from .._protocol import check_choice
from ..posterior import METHODS
from ..results import DEFAULT_INTERVAL, QUESTION_METHODS, WIDER_ENDS_ADVICE
from ..scores import Scores
from .tables import (INTERVAL_WORDS, estimates_of, grid, interval_words, level_label, mixed_note, mixed_units, point_of,
                     scale_of, widened_rows)

__all__ = ["forest", "posterior_interval", "pass_at_k_curve", "rank_plot", "difference_density",
           "coverage_plot", "read_coverage_results", "strengths_plot", "COVERAGE_COLUMNS"]

#: Markers cycled with the colours, so lines stay apart in grey print and for colour-blind readers.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")

COVERAGE_COLUMNS = ("prior", "scope", "M", "N", "shape", "metric", "k", "method", "coverage", "nominal", "reps")


# ----------------------------------------------------------------------------- shared
def _figure(figsize):
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def _axes(ax, size):
    """(figure, axes): the caller's ``ax`` and its figure, or a new figure of ``size`` inches."""
    _check_ax(ax)
    if ax is None:
        fig = _figure(size)
        return fig, fig.add_subplot()
    return ax.figure, ax


def _check_ax(ax: Any, name: str = "ax"):
    from matplotlib.axes import Axes

    if ax is not None and not isinstance(ax, Axes):
        raise V.InputTypeError(f"{name} must be a matplotlib Axes or None, got {V.describe(ax)}")
    return ax


def _save(fig, save: Any):
    if save is not None:
        if not isinstance(save, (str, os.PathLike)):
            raise V.InputTypeError(f"save must be a file path (str or os.PathLike) or None, got {V.describe(save)}")
        fig.savefig(save, dpi=150, bbox_inches="tight")
    return fig


def _text(s: Any) -> str:
    """A label safe from matplotlib's mathtext (``$`` escaped) and shown in legends (matplotlib leaves out a label
    that starts with ``_``: a zero-width space goes before it)."""
    s = str(s).replace("$", r"\$")
    return "\u200b" + s if s.startswith("_") else s



def palette(n: int) -> list:
    """``n`` distinct colours: matplotlib's ten-colour cycle up to ten, else ``n`` evenly spaced hues with
    alternating lightness (as RGB tuples, never the same colour twice).

    >>> palette(3)
    ['C0', 'C1', 'C2']
    >>> len({tuple(c) for c in palette(50)})
    50
    """
    n = V.integer(n, "n", minimum=0)
    if n <= 10:
        return [f"C{j}" for j in range(n)]
    from matplotlib.colors import hsv_to_rgb

    return [tuple(float(v) for v in hsv_to_rgb((j / n, 0.9 if j % 2 else 0.65, 0.55 if j % 2 else 0.85)))
            for j in range(n)]


def legend_outside(ax, **kw):
    """The legend beside the axes (right of it, top-aligned): it never covers the data or the title."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small", **kw)


def integer_axis(axis, values, log: bool) -> None:
    """Ticks only at integers (k is a count): on a log axis 1, 2, 5, 10, 20, 50, ... within ``values``'
    range, labelled plainly; on a linear axis at most ten integer ticks."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullFormatter

    if log:
        lo, hi = min(values), max(values)
        ticks = [m * 10**e for e in range(0, int(np.log10(max(hi, 1))) + 2) for m in (1, 2, 5)]
        ticks = [t for t in ticks if lo <= t <= hi] or [int(lo)]
        if len(ticks) > 12:
            ticks = [t for t in ticks if str(t)[0] == "1"]
        axis.set_major_locator(FixedLocator(ticks))
        axis.set_minor_formatter(NullFormatter())
    else:
        axis.set_major_locator(MaxNLocator(nbins=10, integer=True, min_n_ticks=1))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{int(round(v))}"))


def _describe_intervals(ests) -> str:
    scopes = " / ".join(dict.fromkeys(e.scope for e in ests))
    priors = " / ".join(dict.fromkeys(e.prior for e in ests))
    return f"{interval_words(ests)} intervals; {scopes} scope; prior {priors}." + widened_rows(ests)


# ----------------------------------------------------------------------------- forest
def forest(ev: Any, metric: str | None = None, ax: Any = None, *, point: str = "value", percent: bool = False,
           models: Any = None, save: Any = None):
    """Forest plot: each model's point estimate (marker) and credible interval (horizontal line).

    Rows are models (``dataset / model`` when the estimates cover several datasets), top to
    bottom in the evaluation's order; one panel per metric, or only ``metric``.  ``point``:
    ``"value"`` (the finite-sample estimate; the posterior mean where it is undefined) or
    ``"mean"``.  ``percent``: rates in percent (a metric outside [0, 1] keeps its units).
    ``ax``: one Axes for one metric, or a sequence of Axes, one per metric.
    Each panel holds one ``LineCollection`` (the intervals) and one marker line whose x data
    are the point estimates.  Returns the Figure.

    >>> import numpy as np, bayeseval as B
    >>> ev = B.evaluate({"a": np.array([[1, 0], [1, 1]]), "b": np.array([[0, 0], [1, 0]])}, ["avg"])
    >>> ax = forest(ev, "avg").axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()], ax.lines[0].get_xdata().tolist()
    (['a', 'b'], [0.75, 0.25])
    """
    ests = estimates_of(ev)
    percent = V.flag(percent, "percent")
    if point not in ("value", "mean"):
        raise ValueError(f"point must be 'value' or 'mean', got {point!r}")
    if metric is not None and not isinstance(metric, str):
        raise V.InputTypeError(f"metric must be a metric name (str) or None, got {V.describe(metric)}")
    g = grid(ests, models, None if metric is None else [metric])
    metrics = g.metrics
    labels = [f"{d} / {m}" if g.several else m for d, m in g.rows]
    if ax is None:
        width = 1.5 + 0.06 * max(len(x) for x in labels) + 3.2 * len(metrics)
        fig = _figure((width, _rows_height(len(g.rows))))
        axes = fig.subplots(1, len(metrics), sharey=True, squeeze=False)[0]
        fig.suptitle(_text(_describe_intervals(ests)), fontsize="small")
    else:
        axes = [ax] if not isinstance(ax, (list, tuple, np.ndarray)) else list(np.ravel(ax))
        for a in axes:
            _check_ax(a)
        if len(axes) != len(metrics):
            raise ValueError(f"ax must be {len(metrics)} Axes, one per metric ({metrics}), got {len(axes)}; "
                             "or choose one metric with metric=")
        fig = axes[0].figure
    ypos = np.arange(len(g.rows))[::-1].astype(float)
    mixed = mixed_units(g)
    stood_in = False
    for a, m in zip(axes, metrics):
        ys, pts, los, his, scales, hollow = [], [], [], [], set(), []
        for y, r in zip(ypos, g.rows):
            e = g.get(r, m)
            if e is None:
                continue
            scale = scale_of(e, percent)
            scales.add(scale)
            ys.append(y)
            pt, fallback = point_of(e, point)
            pts.append(pt * scale)
            los.append(e.lo * scale)
            his.append(e.hi * scale)
            if fallback:
                hollow.append((pt * scale, y))
        _stripes(a, len(g.rows))
        a.hlines(ys, los, his, color="C0", linewidth=2)
        a.plot(pts, ys, "o", color="C0", markersize=6, zorder=3)
        if hollow:  # the posterior mean standing in for an undefined sample estimate: drawn hollow
            stood_in = True
            a.plot(*zip(*hollow), "o", color="C0", markerfacecolor="white", markersize=6, zorder=4)
        a.set_yticks(ypos, [_text(x) for x in labels])
        a.set_ylim(-0.6, len(g.rows) - 0.4)
        a.set_title(_text(m))
        units = [d for d, metric in mixed if metric == m]
        a.set_xlabel("estimate (mixed units: see the note)" if units else
                     "estimate (%)" if scales == {100.0} else "estimate")
        a.grid(axis="x", alpha=0.3)
    notes = [mixed_note(d if g.several else None, m, cells, best=False) for (d, m), cells in mixed.items()]
    if stood_in:
        notes.append("Hollow marker: the posterior mean, where the sample estimate is undefined (k > n for some "
                     "question).")
    if notes:
        import textwrap

        text = "\n".join(textwrap.fill(_text(n), 110) for n in notes)
        fig.text(0.01, 0.0, text, fontsize="x-small", va="top", ha="left")
    return _save(fig, save)


def _p(p: float) -> str:
    """A probability from posterior draws in two decimals (:func:`bayeseval._text.fmt_prob`)."""
    return fmt_prob(p, 2, drawn=True)


def _rows_height(n: int) -> float:
    """Inches for ``n`` rows: 0.42 a row up to 20 rows, 0.3 a row beyond (50 models: 18 inches)."""
    return 1.3 + 0.42 * min(n, 20) + 0.3 * max(n - 20, 0)


def _stripes(ax, n: int) -> None:
    """Every other row lightly shaded when there are more than ten rows (to follow a row across panels)."""
    if n > 10:
        for y in range(0, n, 2):
            ax.axhspan(y - 0.5, y + 0.5, color="0.5", alpha=0.08, linewidth=0, zorder=0)


# ----------------------------------------------------------------------------- pass@k
def _models_counts(counts_by_model: Any, missing: Any = None, ragged: bool = False) -> dict:
    from ..counts import Counts, to_counts

    if isinstance(counts_by_model, dict):
        if not counts_by_model:
            raise ValueError("counts_by_model must name at least one model")
        items = counts_by_model.items()
    elif hasattr(counts_by_model, "datasets") and hasattr(counts_by_model, "counts"):  # an OutcomeSet
        if len(counts_by_model.datasets) > 1:
            raise ValueError(f"counts_by_model has several datasets {counts_by_model.datasets}; "
                             "select one with .select(datasets=[...])")
        items = [(m, counts_by_model.counts(m)) for m in counts_by_model.models]
    else:
        items = [("model", counts_by_model)]
    out = {}
    for name, R in items:
        out[str(name)] = R if isinstance(R, (Counts, Scores)) else to_counts(R, missing=missing, ragged=ragged,
                                                                             name=f"counts_by_model[{name!r}]")
    return out


def default_ks(n: int, points: int = 25) -> list[int]:
    """Every k up to ``n`` when ``n <= points``, else about ``points`` log-spaced k from 1 to ``n``.

    >>> default_ks(5), default_ks(100)[:8], default_ks(100)[-1]
    ([1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6, 7, 8], 100)
    """
    if n <= points:
        return list(range(1, n + 1))
    return sorted({int(round(x)) for x in np.geomspace(1, n, points)})


def posterior_interval(interval: str, notes: list, what: str) -> str:
    """The interval method of ``what`` (pass@k curves, a ranking: posterior intervals only) beside an estimates
    table computed with ``interval``: ``"bootstrap-t"``, ``"exact+bootstrap-t"``, ``"exact+binomial"`` and
    ``"exact+betting"``, intervals of the table, become ``"exact"``, and ``notes`` says so; ``"auto"`` becomes
    ``"exact"``.

    >>> notes = []
    >>> posterior_interval("hdi", notes, "the curves"), posterior_interval("bootstrap-t", notes, "the curves")
    ('hdi', 'exact')
    >>> posterior_interval("auto", notes, "the curves"), len(notes)
    ('exact', 1)
    >>> print(notes[0])
    the curves: equal-tailed posterior intervals (bootstrap-t is the estimates table's interval)
    """
    if interval == DEFAULT_INTERVAL:  # the table's own intervals are exact unless few questions carry a metric
        return "exact"
    if interval not in QUESTION_METHODS:
        return interval
    note = f"{what}: equal-tailed posterior intervals ({interval} is the estimates table's interval)"
    if note not in notes:
        notes.append(note)
    return "exact"


def pass_at_k_curve(counts_by_model: Any, ks: Any = None, scope: str = "population", level: float = 0.95,
                    ax: Any = None, *, interval: str = "exact", prior: Any = None, percent: bool = False,
                    point: str = "value", log: bool | None = None, per_panel: int = 10, save: Any = None,
                    **estimate_kw):
    r"""pass@k against k for each model, with a credible band.

    For every k, :func:`bayeseval.estimate` ``(counts, "pass@k", k=k, scope=scope, level=level,
    interval=interval, prior=prior, **estimate_kw)``; the line is the point estimate (the
    unbiased :math:`1 - \binom{n-c}{k}/\binom{n}{k}` averaged over questions, Chen et al. 2021;
    the posterior mean where k > n) and the band (``fill_between``) runs from ``lo`` to ``hi``.

    ``counts_by_model``: dict name -> outcome matrix (or :class:`~bayeseval.Counts`), an
    :class:`~bayeseval.io.OutcomeSet` with one dataset, or one matrix.  ``ks``: the k values
    (default :func:`default_ks` of the smallest number of trials: every k up to 25, else 25
    log-spaced values).  ``log``: log-scaled k axis (default when ``max(ks) / min(ks) >= 20``);
    the k axis has ticks at integers only.  Cost: one estimate per model and k (the 100 x 100
    Game of 24 data: about a second per model for the default ks).

    Layout: each model has its own colour and marker within a panel, and the legend sits beside
    the panel (never over the curves or the title).  Up to ``per_panel`` models (default 10) share
    one panel, the line of model ``j`` being ``ax.lines[j]`` in the order given.  With more models
    and no ``ax``, small multiples: the models ranked by their estimate at the largest k, ``per_panel``
    to a panel (panel 1 the best), every other model drawn in light grey behind for context (one
    ``LineCollection``); the figure grows with the number of panels.  Given ``ax``, all models go on
    it, in as many distinct colours as there are models.  Returns the Figure.

    >>> import numpy as np
    >>> R = {"a": np.array([[1, 0, 0, 0], [1, 1, 0, 1]]), "b": np.array([[0, 0, 0, 0], [1, 0, 1, 0]])}
    >>> ax = pass_at_k_curve(R, ks=[1, 2, 4], scope="benchmark").axes[0]
    >>> [line.get_label() for line in ax.lines], ax.lines[0].get_ydata().tolist()
    (['a', 'b'], [0.5, 0.75, 1.0])
    """
    from ..results import estimate

    counts = _models_counts(counts_by_model, estimate_kw.pop("missing", None), estimate_kw.pop("ragged", False))
    scored = [name for name, c in counts.items() if isinstance(c, Scores) or not c.is_binary]
    if scored:
        raise ValueError(f"pass@k curves need 0/1 outcomes; {', '.join(map(str, scored[:5]))} hold(s) scores or "
                         "graded categories (threshold them first, e.g. threshold=0.5 in estimate)")
    percent = V.flag(percent, "percent")
    per_panel = V.integer(per_panel, "per_panel", minimum=1)
    if point not in ("value", "mean"):
        raise ValueError(f"point must be 'value' or 'mean', got {point!r}")
    n_min = min(int(c.n.min()) for c in counts.values())
    if ks is None:
        ks = default_ks(max(n_min, 1))
    else:
        if isinstance(ks, (str, bytes)) or not hasattr(ks, "__iter__"):
            raise V.InputTypeError(f"ks must be a list of integers >= 1, got {V.describe(ks)}")
        ks = sorted({V.integer(k, "ks[...]", minimum=1) for k in ks})
        if not ks:
            raise ValueError("ks must hold at least one k")
    if log is None:
        log = ks[-1] / ks[0] >= 20
    log = V.flag(log, "log")
    _check_ax(ax)
    check_choice(interval, "interval", METHODS)  # a band per k of posterior intervals (see posterior_interval)
    scale = 100.0 if percent else 1.0
    x = np.array(ks, dtype=float)
    curves = {}  # name -> (point, lo, hi), in the order given
    for name, c in counts.items():
        with warnings.catch_warnings(record=True) as caught:  # the curves' own interval is a posterior one: the
            warnings.simplefilter("always")  # warnings' advice to widen it (the table's default does) is left out
            ests = [estimate(c, "pass@k", k=k, scope=scope, level=level, interval=interval, prior=prior,
                             **{"model": name, **estimate_kw}) for k in ks]
        for w in caught:
            warnings.warn(str(w.message).replace(WIDER_ENDS_ADVICE, ""), w.category, stacklevel=2)
        curves[name] = (np.array([point_of(e, point)[0] for e in ests]) * scale,
                        np.array([e.lo for e in ests]) * scale, np.array([e.hi for e in ests]) * scale)
    names = list(curves)
    label_width = 0.075 * max(len(str(n)) for n in names) + 0.6  # inches the legend takes beside a panel
    if ax is not None or len(names) <= per_panel:
        if ax is None:
            fig = _figure((6.0 + label_width, max(4.0, 1.2 + 0.24 * len(names))))
            ax = fig.add_subplot()
        fig = ax.figure
        panels = [(ax, names)]
    else:
        order = sorted(names, key=lambda n: -curves[n][0][-1])  # best at the largest k first
        groups = [order[i:i + per_panel] for i in range(0, len(order), per_panel)]
        ncols = 2 if len(groups) > 1 else 1
        nrows = -(-len(groups) // ncols)
        fig = _figure((ncols * (4.6 + label_width), 0.7 + nrows * max(3.4, 0.24 * per_panel + 0.8)))
        axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).ravel()
        for a in axes[len(groups):]:
            a.set_visible(False)
        panels = list(zip(axes, groups))
        fig.suptitle(f"pass@k, {scope} scope, {level_label(level)} credible band; {len(names)} models ranked by "
                     f"pass@{ks[-1]}, {per_panel} to a panel (the others in grey)", fontsize="medium")
    many = len(panels) > 1
    for i, (a, group) in enumerate(panels):
        if many:
            from matplotlib.collections import LineCollection

            others = [np.column_stack([x, curves[n][0]]) for n in names if n not in group]
            a.add_collection(LineCollection(others, colors="0.8", linewidths=0.8, zorder=1))
        colours = palette(len(group))
        for j, name in enumerate(group):
            y, lo, hi = curves[name]
            a.plot(x, y, "-", marker=MARKERS[j % len(MARKERS)] if len(ks) <= 30 else None, markersize=3.5,
                   color=colours[j], label=_text(name), zorder=3)
            a.fill_between(x, lo, hi, color=colours[j], alpha=0.25 if len(group) <= 3 else 0.12, linewidth=0,
                           zorder=2)
        beyond = point == "value" and ks[-1] > n_min
        if beyond:  # past the trials run the line is the posterior mean, resting on the population model
            edge = n_min + 0.5 if not log else n_min * 1.05
            a.axvline(edge, color="0.4", linestyle=":", linewidth=1, zorder=1)
            a.annotate(f"k > {n_min}: posterior mean\n(population model)", (edge, 0), xytext=(4, 4),
                       textcoords="offset points", fontsize="x-small", color="0.3")
        if log:
            a.set_xscale("log")
        integer_axis(a.xaxis, ks, log)
        a.set_ylim(bottom=0)
        a.grid(alpha=0.3)
        if many:
            a.set_title(f"ranks {per_panel * i + 1}-{per_panel * i + len(group)}", fontsize="medium")
            a.tick_params(labelbottom=True, labelleft=True)
        else:
            a.set_title(f"pass@k, {scope} scope, {level_label(level)} credible band")
        a.set_xlabel("k")
        a.set_ylabel("pass@k (%)" if percent else "pass@k")
        legend_outside(a, ncols=1 if len(group) <= 25 else 2)
    return _save(fig, save)


# ----------------------------------------------------------------------------- rank
def rank_plot(ranking: Any, ax: Any = None, *, top: int | None = None, percent: bool = False, save: Any = None):
    """Models of a :class:`~bayeseval.comparison.Ranking` (:func:`bayeseval.compare_all`) sorted by estimate,
    best on top: the point estimate and credible interval per row, the best model's interval shaded across
    the panel (rows whose interval misses it are credibly behind), and each model's P(best) as a bar with
    its expected rank written beside it.  ``top``: only the ``top`` best models.  Given ``ax``, the
    intervals go on it and P(best) / E[rank] become the right-hand tick labels.  The figure's height grows
    with the number of rows.  Returns the Figure; the first axes' ``lines[0]`` holds the point estimates.

    >>> import numpy as np, bayeseval as B
    >>> rng = np.random.default_rng(0)
    >>> rk = B.compare_all({f"m{j}": (rng.random((40, 2)) < 0.3 + 0.2 * j).astype(int) for j in range(3)},
    ...                    resamples=200, draws=400)
    >>> fig = rank_plot(rk)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['1. m2', '2. m1', '3. m0']
    """
    from ..comparison import Ranking

    if not isinstance(ranking, Ranking):
        raise V.InputTypeError(f"ranking must be a Ranking (from bayeseval.compare_all), got {V.describe(ranking)}")
    percent = V.flag(percent, "percent")
    models = list(ranking.models)
    if top is not None:
        models = models[:V.integer(top, "top", minimum=1)]
    n = len(models)
    ests = [ranking.scores[m] for m in models]
    scale = scale_of(ests[0], percent)
    labels = [f"{i + 1}. {m}" for i, m in enumerate(models)]
    if ax is None:
        width = 6.5 + 0.07 * max(len(x) for x in labels)
        fig = _figure((width, _rows_height(n)))
        ax, right = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 1.2]})
    else:
        _check_ax(ax)
        fig, right = ax.figure, None
    y = np.arange(n)[::-1].astype(float)
    pts = [point_of(e, "value")[0] * scale for e in ests]
    _stripes(ax, n)
    best = ranking.scores[ranking.models[0]]
    ax.axvspan(best.lo * scale, best.hi * scale, color="C1", alpha=0.12, linewidth=0,
               label=f"interval of {_text(ranking.models[0])}")
    ax.hlines(y, [e.lo * scale for e in ests], [e.hi * scale for e in ests], color="C0", linewidth=2)
    ax.plot(pts, y, "o", color="C0", markersize=6, zorder=3)
    ax.set_yticks(y, [_text(x) for x in labels])
    ax.set_ylim(-0.6, n - 0.4)
    unit = " (%)" if scale == 100.0 else ""
    ax.set_xlabel(f"{_text(ranking.metric)}{unit}, {level_label(ranking.level)} credible interval\n(shaded: the "
                  f"interval of {_text(ranking.models[0])}, ranked first)")
    ax.grid(axis="x", alpha=0.3)
    shown = f"top {n} of {len(ranking.models)}" if n < len(ranking.models) else f"{n} models"
    title = f"{_text(ranking.metric)}, {ranking.scope} scope: {shown}"
    pb = [ranking.p_best[m] for m in models]
    er = [ranking.expected_rank[m] for m in models]
    if right is not None:
        _stripes(right, n)
        right.barh(y, pb, height=0.6, color="C2", alpha=0.8)
        for yy, p, r in zip(y, pb, er):
            right.text(min(p, 1.0) + 0.02, yy, f"{_p(p)}  E[rank] {r:.1f}", va="center", ha="left", fontsize="x-small")
        right.set_xlim(0, 1.9)  # room for the text beside a bar near 1
        right.set_xticks([0, 0.5, 1])
        right.set_xlabel("P(best)")
        right.tick_params(labelleft=False)
        right.grid(axis="x", alpha=0.3)
        fig.suptitle(title, fontsize="medium")
    else:
        twin = ax.twinx()
        twin.set_ylim(ax.get_ylim())
        twin.set_yticks(y, [f"{_p(p)} | {r:.1f}" for p, r in zip(pb, er)])
        twin.set_ylabel("P(best) | E[rank]")
        ax.set_title(title, fontsize="small")
    return _save(fig, save)


# ----------------------------------------------------------------------------- difference
def difference_density(comparison: Any, ax: Any = None, *, percent: bool = False, save: Any = None):
    r"""Posterior density of ``theta_A - theta_B`` from a :class:`~bayeseval.Comparison`.

    A Gaussian kernel density estimate (Scott's bandwidth, :class:`scipy.stats.gaussian_kde`)
    of :meth:`Comparison.draws <bayeseval.Comparison.draws>` -- the draws behind the credible
    interval and ``P(A > B)``; the interval ``[delta.lo, delta.hi]`` is shaded under the curve,
    a dashed line marks zero, the ROPE (when the comparison has one) is a grey span, and the
    text in the corner gives ``P(A > B)`` (and the ROPE masses).  Lines: the density, then the
    zero line.  Returns the Figure.

    >>> import numpy as np, bayeseval as B
    >>> rng = np.random.default_rng(0)
    >>> A, Bm = (rng.random((60, 4)) < 0.6).astype(int), (rng.random((60, 4)) < 0.5).astype(int)
    >>> c = B.compare(A, Bm, seed=1, resamples=200)
    >>> ax = difference_density(c).axes[0]
    >>> ax.texts[0].get_text() == f"P(A > B) = {c.p_a_better:.3f}"
    True
    """
    from scipy import stats

    from ..comparison import Comparison

    if not isinstance(comparison, Comparison):
        raise V.InputTypeError(f"comparison must be a Comparison (from bayeseval.compare), got {V.describe(comparison)}")
    percent = V.flag(percent, "percent")
    fig, ax = _axes(ax, (6.0, 3.6))
    scale = 100.0 if percent else 1.0
    x = comparison.draws() * scale
    d = comparison.delta
    a, b = comparison.names
    lo, hi = d.lo * scale, d.hi * scale
    if np.ptp(x) > 0:
        kde = stats.gaussian_kde(x)
        bw = float(np.sqrt(kde.covariance[0, 0]))
        grid_x = np.linspace(x.min() - 3 * bw, x.max() + 3 * bw, 512)
        ax.plot(grid_x, kde(grid_x), color="C0", label="posterior density")
        inside = np.concatenate([[lo], grid_x[(grid_x > lo) & (grid_x < hi)], [hi]])
        ax.fill_between(inside, 0, kde(inside), color="C0", alpha=0.3,
                        label=f"{level_label(d.level)} {INTERVAL_WORDS.get(d.interval, d.interval)} interval")
    else:  # every draw equal: a point mass
        ax.plot([x[0], x[0]], [0, 1], color="C0", label="posterior (point mass)")
        ax.fill_between([lo, hi], 0, 1, color="C0", alpha=0.3, label=f"{level_label(d.level)} interval")
    ax.axvline(0.0, color="black", linestyle="--", linewidth=1, label="zero")
    text = f"P({_text(a)} > {_text(b)}) = {comparison.p_a_better:.3f}"
    if comparison.rope is not None:
        r = comparison.rope
        ax.axvspan(r["lo"] * scale, r["hi"] * scale, color="grey", alpha=0.15, label="ROPE")
        text += f"\nROPE: below {r['below']:.3f}, inside {r['inside']:.3f}, above {r['above']:.3f}"
    ax.text(0.02, 0.97, text, transform=ax.transAxes, va="top", ha="left", fontsize="small")
    ax.set_ylim(bottom=0)
    ax.set_xlabel(f"{_text(comparison.metric)}: {_text(a)} − {_text(b)}" + (" (points)" if percent else ""))
    ax.set_ylabel("posterior density")
    ax.set_title(f"{d.scope} scope")
    ax.legend(loc="best", fontsize="small")
    return _save(fig, save)


# ----------------------------------------------------------------------------- coverage
def read_coverage_results(path: Any, reps: Any = None):
    """Parse ``benchmarks/results_coverage.md`` (written by ``benchmarks/coverage.py``) into a long DataFrame.

    Columns (:data:`COVERAGE_COLUMNS`): ``prior``, ``scope``, ``M``, ``N``, ``shape``,
    ``metric``, ``k`` (the metric's k for that N; missing for ``avg``), ``method`` (normal /
    exact / hdi), ``coverage`` (observed fraction of replicates whose interval held the truth;
    the file rounds per-cell percentages to integers), ``nominal`` (from the title, e.g. 0.95)
    and ``reps`` (replicates behind the cell).  The file lists the replicate counts but not
    which cell had which: ``reps=None`` takes the one count, or the smallest of several (the
    widest Monte-Carlo band); give an int, or a function ``reps(M, N) -> int`` (the shipped
    study: ``lambda M, N: 150 if M >= 500 else 300``).  Only the per-cell tables are read
    (the averages are recomputable with ``groupby``).  Raises ValueError when none is found.

    >>> import pathlib
    >>> p = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "results_coverage.md"
    >>> df = read_coverage_results(p) if p.exists() else None
    >>> df is None or (len(df) == 4 * 80 * 4 * 3 and set(df["method"]) == {"normal", "exact", "hdi"})
    True
    """
    import pandas as pd

    if not isinstance(path, (str, os.PathLike)):
        raise V.InputTypeError(f"path must be a file path (str or os.PathLike), got {V.describe(path)}")
    if reps is not None and not callable(reps):
        reps = V.integer(reps, "reps", minimum=1)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    m = re.search(r"Coverage of ([\d.]+)% intervals", text)
    nominal = float(m.group(1)) / 100 if m else 0.95
    m = re.search(r"Replicates per cell:\s*([\d,\s]+)", text)
    listed = [int(x) for x in m.group(1).replace(",", " ").split()] if m else []
    m = re.search(r"k = (\{[^}]*\}) for N", text)
    k_for_n = ast.literal_eval(m.group(1)) if m else {}
    section = re.compile(r"^## prior=([^,]+), scope=([^:]+): coverage % \(([^)]*)\)")
    records = []
    prior = scope = None
    methods: list = []
    metrics: list = []
    for line in text.splitlines():
        s = section.match(line)
        if s:
            prior, scope = s.group(1).strip(), s.group(2).strip()
            methods = [x.strip() for x in s.group(3).split("/")]
            metrics = []
            continue
        if line.startswith("#"):
            prior = None
            continue
        if prior is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:3] == ["M", "N", "shape"]:
            metrics = cells[3:]
            continue
        if not metrics or set("".join(cells)) <= set("-: "):
            continue
        if len(cells) != 3 + len(metrics):
            raise ValueError(f"{path}: row {line!r} has {len(cells)} cells, expected {3 + len(metrics)}")
        M, N, shape = int(cells[0]), int(cells[1]), cells[2]
        if reps is None:
            r = min(listed) if listed else None
        elif callable(reps):
            r = V.integer(reps(M, N), "reps(M, N)", minimum=1)
        else:
            r = reps
        for metric, cell in zip(metrics, cells[3:]):
            vals = [float(v.replace("*", "").strip()) for v in cell.split("/")]
            if len(vals) != len(methods):
                raise ValueError(f"{path}: cell {cell!r} has {len(vals)} values for methods {methods}")
            k = k_for_n.get(N) if "k" in metric.split("@")[-1] or metric.endswith("^k") else None
            for method, v in zip(methods, vals):
                records.append({"prior": prior, "scope": scope, "M": M, "N": N, "shape": shape, "metric": metric,
                                "k": k, "method": method, "coverage": v / 100, "nominal": nominal, "reps": r})
    if not records:
        raise ValueError(f"{path}: no per-cell coverage tables found (expected '## prior=..., scope=...: "
                         "coverage % (normal / exact / hdi)' sections as written by benchmarks/coverage.py)")
    df = pd.DataFrame.from_records(records, columns=list(COVERAGE_COLUMNS))
    df["k"] = df["k"].astype("Int64")
    df["reps"] = df["reps"].astype("Int64")
    df.attrs["replicates_listed"] = listed
    return df


_CELL_COLUMNS = ("M", "N", "shape", "metric")
_SERIES_COLUMNS = ("prior", "scope", "method")


def coverage_plot(table: Any, ax: Any = None, *, level: float | None = None, reps: int | None = None,
                  mc_level: float = 0.95, save: Any = None):
    r"""Observed coverage per cell against the nominal level, with the binomial Monte-Carlo band.

    ``table``: a pandas DataFrame, one row per (cell, series), with columns

    * ``coverage`` (required): observed coverage, a fraction in [0, 1];
    * ``method`` (required): the interval method -- together with ``prior`` and ``scope``
      when present and not constant, it names the series (one marker line each);
    * ``cell`` (optional): the x label; otherwise built from whichever of ``M``, ``N``,
      ``shape``, ``metric`` are present (e.g. ``M=30 N=4 uniform avg``);
    * ``nominal`` (optional): the nominal level (else ``level``, default 0.95);
    * ``reps`` (optional): replicates behind each cell (else ``reps=``).

    :func:`read_coverage_results` returns such a table; filter it first
    (``df.query("prior == 'hierarchical' and scope == 'population' and metric == 'avg'")``).
    The band is :math:`p_0 \pm z\sqrt{p_0(1-p_0)/R}` with :math:`z = \Phi^{-1}(1/2 + \text{mc\_level}/2)`:
    the range a correct method's observed coverage falls in with probability ``mc_level``
    (per cell, drawn as steps when ``R`` varies).  Legends count the cells outside the band.
    y in percent.  Returns the Figure; ``ax.lines[j]`` is series ``j``, the last line the nominal level.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"cell": ["a", "b"] * 2, "method": ["exact"] * 2 + ["normal"] * 2,
    ...                   "coverage": [0.95, 0.93, 0.96, 0.80], "reps": 300})
    >>> ax = coverage_plot(t).axes[0]
    >>> [line.get_label() for line in ax.lines]
    ['exact (0/2 outside)', 'normal (1/2 outside)', 'nominal 95%']
    """
    import pandas as pd
    from scipy import stats

    if not isinstance(table, pd.DataFrame):
        raise V.InputTypeError(f"table must be a pandas DataFrame (see read_coverage_results), got {V.describe(table)}")
    missing = [c for c in ("coverage", "method") if c not in table.columns]
    if missing:
        raise ValueError(f"table must have columns 'coverage' and 'method'; missing {missing}")
    if table.empty:
        raise ValueError("table has no rows")
    cov = pd.to_numeric(table["coverage"], errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(cov)) or cov.min() < 0 or cov.max() > 1:
        raise ValueError("table['coverage'] must hold fractions in [0, 1] (divide percentages by 100)")
    if level is None:
        if "nominal" in table.columns:
            nominals = pd.unique(table["nominal"])
            if len(nominals) != 1:
                raise ValueError(f"table['nominal'] must hold one level, got {sorted(nominals)}; plot each separately")
            level = float(nominals[0])
        else:
            level = 0.95
    level = V.confidence(level, "level")
    mc_level = V.confidence(mc_level, "mc_level")
    if reps is not None:
        reps = V.integer(reps, "reps", minimum=1)
    _check_ax(ax)
    df = table.reset_index(drop=True)
    fixed: list = []
    if "cell" in df.columns:
        cell = df["cell"].astype(str)
    else:
        parts = [c for c in _CELL_COLUMNS if c in df.columns]
        if not parts:
            raise ValueError("table needs a 'cell' column or some of the columns M, N, shape, metric")
        varying = [c for c in parts if df[c].nunique() > 1]
        parts = varying or parts  # constant columns say nothing about the cell (they go in the title)
        fixed = [c for c in _CELL_COLUMNS if c in df.columns and c not in parts and df[c].nunique() == 1]
        cell = df[parts].apply(lambda r: " ".join(f"{c}={r[c]}" if c in ("M", "N") else str(r[c]) for c in parts),
                               axis=1)
    series_cols = [c for c in _SERIES_COLUMNS if c in df.columns and (c == "method" or df[c].nunique() > 1)]
    series = df[series_cols].astype(str).agg(", ".join, axis=1)
    cells = list(dict.fromkeys(cell))
    pos = {c: i for i, c in enumerate(cells)}
    x = cell.map(pos).to_numpy(dtype=float)
    if reps is not None:
        r_cell = np.full(len(cells), float(reps))
    elif "reps" in df.columns:
        r_cell = np.full(len(cells), np.nan)
        for c, r in zip(cell, pd.to_numeric(df["reps"], errors="coerce")):
            if pd.notna(r):
                r_cell[pos[c]] = r if np.isnan(r_cell[pos[c]]) else min(r_cell[pos[c]], r)
    else:
        r_cell = np.full(len(cells), np.nan)
    z = float(stats.norm.ppf(0.5 + mc_level / 2))
    half = z * np.sqrt(level * (1 - level) / r_cell)
    if ax is None:
        fig = _figure((max(7.0, min(0.25 * len(cells) + 4.0, 20.0)), 4.0))
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    names = list(dict.fromkeys(series))
    width = 0.7
    for j, s in enumerate(names):
        sel = (series == s).to_numpy()
        off = (j - (len(names) - 1) / 2) * (width / max(len(names), 1)) if len(names) > 1 else 0.0
        ys = cov[sel]
        h = half[x[sel].astype(int)]
        outside = int(np.sum(np.isfinite(h) & (np.abs(ys - level) > h + 1e-12)))
        known = int(np.sum(np.isfinite(h)))
        lab = f"{s} ({outside}/{known} outside)" if known else s
        ax.plot(x[sel] + off, 100 * ys, "o", markersize=4, color=f"C{j % 10}", label=_text(lab))
    if np.isfinite(half).any():
        edges = np.arange(len(cells) + 1) - 0.5
        lo = 100 * np.append(level - half, level - half[-1])
        hi = 100 * np.append(level + half, level + half[-1])
        ax.fill_between(edges, lo, hi, step="post", color="grey", alpha=0.25, linewidth=0,
                        label=f"{level_label(mc_level)} Monte-Carlo band")
    ax.axhline(100 * level, color="black", linewidth=1, label=f"nominal {level_label(level)}")
    ax.set_xlim(-0.6, len(cells) - 0.4)
    if len(cells) <= 40:
        ax.set_xticks(range(len(cells)), [_text(c) for c in cells], rotation=60, ha="right", fontsize="small")
        ax.set_xlabel("cell")
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"cell ({len(cells)}, in table order)")
    ax.set_ylabel("observed coverage (%)")
    const = [f"{c}={df[c].iloc[0]}" if c in ("M", "N") else str(df[c].iloc[0]) for c in fixed]
    const += [str(df[c].iloc[0]) for c in _SERIES_COLUMNS if c in df.columns and c != "method" and df[c].nunique() == 1]
    ax.set_title(_text(f"coverage of {level_label(level)} intervals" + (f" ({', '.join(const)})" if const else "")))
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return _save(fig, save)


def strengths_plot(strengths: Any, ax: Any = None, *, scale: str = "elo", save: Any = None):
    """Rank plot of :func:`bayeseval.pairwise.bradley_terry` strengths: one row per model, strongest on top, the
    point and its interval on the Elo scale (``scale="elo"``) or as centred log-strengths (``"logit"``), with
    each row's P(best) on the right-hand axis.  Returns the Figure.

    >>> from bayeseval.pairwise import bradley_terry, from_long
    >>> p = from_long({"item": range(6), "model_a": ["x", "x", "y", "y", "x", "z"],
    ...                "model_b": ["y", "z", "z", "x", "z", "y"], "winner": ["x", "x", "y", "tie", "z", "y"]})
    >>> ax = strengths_plot(bradley_terry(p)).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['x', 'y', 'z']
    """
    from ..pairwise import Strengths
    from ..pairwise.strengths import ELO_SCALE

    if not isinstance(strengths, Strengths):
        raise V.InputTypeError(f"strengths must be a bradley_terry result, got {V.describe(strengths)}")
    if scale not in ("elo", "logit"):
        raise ValueError(f"scale must be 'elo' or 'logit', got {scale!r}")
    f, off = (ELO_SCALE, 1000.0) if scale == "elo" else (1.0, 0.0)
    models = strengths.models
    if ax is None:
        fig = _figure((6.0, 1.2 + 0.38 * len(models)))
        ax = fig.subplots()
    else:
        _check_ax(ax)
        fig = ax.figure
    y = np.arange(len(models))[::-1].astype(float)
    pts = [off + f * strengths.strength[m] for m in models]
    ax.hlines(y, [off + f * strengths.lo[m] for m in models], [off + f * strengths.hi[m] for m in models],
              color="C0", linewidth=2)
    ax.plot(pts, y, "o", color="C0", markersize=6, zorder=3)
    ax.set_yticks(y, [_text(m) for m in models])
    ax.set_ylim(-0.6, len(models) - 0.4)
    right = ax.twinx()  # P(best) of each row on the right-hand axis
    right.set_ylim(ax.get_ylim())
    right.set_yticks(y, [f"{strengths.p_best[m]:.2f}" for m in models])
    right.set_ylabel("P(best)")
    ax.set_xlabel("Elo (1000 = average model)" if scale == "elo" else "strength (centred log-odds)")
    ax.set_title(_text(f"{pct(strengths.level)} intervals, {strengths.covariance} covariance"), fontsize="small")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, save)
