r"""One self-contained HTML page of an evaluation: :func:`html_report` and :func:`write_html`.

The page holds the estimate table (one row per model, one column per metric: the estimate and its
credible interval), a forest plot, pass@k curves, the ranking of several models (scores with
intervals, P(best), expected rank, the adjacent pairs compared with adjusted p-values) or a paired
comparison, the warnings the library attached to the results, and the provenance (inputs with their
sha256, versions, seeds, command line, date).  It makes no network request: the styles are inline,
the plots are inline SVG drawn by matplotlib (glyphs as paths, so no font is fetched) and there is no
script.  Opened from disk, mailed or attached to a CI run, it shows the same thing.

This module renders result objects and computes no statistic: the caller runs
:func:`bayeseval.evaluate`, :func:`bayeseval.compare_all` (or :func:`bayeseval.compare`) and, for the
pass@k curves, :func:`bayeseval.report.plots.pass_at_k_curve`, and passes their results in.  Without
matplotlib the page is written without its plots, and says so.

Numbers are in percent for rates (``percent=False``: fractions).  A number that rounds to the end of
its range without reaching it keeps two significant digits of its distance from that end (the tables'
rule, :func:`bayeseval._text.near_bound`), so a rounded interval never reads as certainty:
``pass^10 = 9e-06`` is ``0.00092`` (percent), not ``0.0``.

>>> import numpy as np, bayeseval as B
>>> ev = B.evaluate({"a": np.array([[1, 0], [1, 1]])}, ["avg"], scope="benchmark", interval="normal")
>>> page = html_report(ev, title="demo", provenance={"seed": 1}, plots=False)
>>> page.startswith("<!DOCTYPE html>"), "75.0" in page, "http://" in page or "https://" in page
(True, True, False)
>>> fmt_bounded(0.00004, 1, 100.0), fmt_bounded(0.99996, 1, 100.0), fmt_bounded(0.0, 1, 100.0), fmt_bounded(1.0, 1, 100.0)
('0.0040', '99.9960', '0.0', '100.0')
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html as _html
import io
import math
import os
import platform
import re
import warnings
from pathlib import Path
from typing import Any

from .. import validate as V
from .._text import fmt_prob, near_bound
from .tables import (estimates_of, grid, interval_noun, interval_words, level_label, mixed_note, mixed_units, point_of,
                     scale_of, several_datasets, units_as_shown, widened_rows)

__all__ = ["html_report", "write_html", "provenance", "fmt_bounded", "fmt_prob"]

_PASS_K = re.compile(r"^pass@(\d+)$")


# ----------------------------------------------------------------------------- numbers
def fmt_bounded(x: float | None, digits: int, scale: float = 1.0, bounds: tuple = (0.0, 1.0)) -> str:
    """``x * scale`` with ``digits`` decimals; a value that rounds to an end of ``bounds`` (in the
    metric's units, before ``scale``) without being on it keeps two significant digits of its distance
    from that end (:func:`bayeseval._text.near_bound`, the tables' rule).

    >>> fmt_bounded(0.0734, 1, 100.0), fmt_bounded(-0.0, 1, 100.0), fmt_bounded(6.19, 2, 1.0, (1.0, 10.0))
    ('7.3', '0.0', '6.19')
    >>> fmt_bounded(1.0004, 2, 1.0, (1.0, 10.0)), fmt_bounded(None, 1)
    ('1.00040', '-')
    """
    if x is None or not math.isfinite(x):
        return "-"
    v = x * scale
    s = f"{v:.{digits}f}"
    if s.lstrip("+-").strip("0.") == "":
        s = s.lstrip("+-")  # no "-0.0"
    lo, hi = (b * scale if b is not None and math.isfinite(b) else None for b in bounds)
    return near_bound(v, digits, lo, hi, s)


def _bounds(e) -> tuple:
    rng = getattr(getattr(e, "_post", None), "range", None)
    return tuple(rng) if rng is not None else (None, None)


def _digits(scale: float, digits: int | None) -> int:
    if digits is not None:
        return digits
    return 1 if scale == 100.0 else 3


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def _esc(x: Any) -> str:
    """Text escaped for HTML; control characters and lone surrogates (which no page may hold) as U+FFFD."""
    return _html.escape(_CONTROL.sub("\ufffd", str(x)), quote=True)


def _slug(text: str, used: set) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
    slug, i = base, 2
    while slug in used:
        slug, i = f"{base}-{i}", i + 1
    used.add(slug)
    return slug


# ----------------------------------------------------------------------------- figures
def _matplotlib() -> bool:
    from importlib.util import find_spec

    return find_spec("matplotlib") is not None


def figure_svg(fig: Any, label: str, salt: str) -> str:
    """A matplotlib Figure as an inline ``<svg>`` element: no XML prologue or metadata, glyphs drawn as
    paths (no font to fetch), ids salted per figure (several SVGs share one document), scaled to the page."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": salt, "svg.image_inline": True}), \
            warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Glyph .* missing from", UserWarning)  # drawn as a box; no harm
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None, "Format": None,
                                                                      "Type": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    head_end = text.index(">")
    head = text[:head_end]
    m = re.search(r'\swidth="([\d.]+)pt"', head)
    width_pt = float(m.group(1)) if m else 600.0
    head = re.sub(r'\s(width|height)="[^"]*"', "", head)
    head = re.sub(r'\sxmlns(:xlink)?="[^"]*"', "", head)  # implied for <svg> inside HTML
    style = f"width:100%;max-width:{width_pt * 4 / 3:.0f}px;height:auto"
    head += f' role="img" aria-label="{_esc(label)}" style="{style}"'
    return head + text[head_end:]


def _figure(fig: Any, caption: str, salt: str, note: str = "") -> str:
    svg = figure_svg(fig, caption, salt)
    extra = f"<p class=note>{_esc(note)}</p>" if note else ""
    return f'<figure class=plot>{svg}<figcaption>{_esc(caption)}</figcaption>{extra}</figure>'


def _new_figure(size: tuple):
    from matplotlib.figure import Figure

    return Figure(figsize=size, layout="constrained")


def _plain(s: Any) -> str:
    """A label safe from matplotlib's mathtext (``$`` escaped) and with no control character."""
    return _CONTROL.sub("\ufffd", str(s)).replace("$", r"\$")


def _pass_k_figure(ests: list, percent: bool):
    """pass@k against k from pass@k estimates at several k (points with their intervals; no new statistic)."""
    from matplotlib.ticker import MaxNLocator

    by_model: dict = {}
    several = several_datasets(ests)  # one dataset: the page names it; the legend names models
    for e in ests:
        k = int(_PASS_K.match(e.metric).group(1))
        key = f"{e.dataset} / {e.model}" if several and e.dataset is not None else str(e.model)
        by_model.setdefault(key, []).append((k, e))
    fig = _new_figure((6.4, 4.0))
    ax = fig.add_subplot()
    ks = sorted({k for pts in by_model.values() for k, _ in pts})
    for j, (name, pts) in enumerate(by_model.items()):
        pts.sort(key=lambda t: t[0])
        scale = scale_of(pts[0][1], percent)
        x = [k for k, _ in pts]
        y = [point_of(e, "value")[0] * scale for _, e in pts]
        lo = [e.lo * scale for _, e in pts]
        hi = [e.hi * scale for _, e in pts]
        color = _color(j, len(by_model))
        ax.plot(x, y, "-o", markersize=4, color=color, label=_plain(name))
        ax.fill_between(x, lo, hi, color=color, alpha=0.18, linewidth=0)
    if ks[-1] / ks[0] >= 20:
        ax.set_xscale("log")
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k (%)" if percent else "pass@k")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    _legend(ax, len(by_model))
    return fig


def _color(j: int, n: int):
    if n <= 10:
        return f"C{j % 10}"
    import matplotlib

    return matplotlib.colormaps["turbo"](0.05 + 0.9 * j / max(n - 1, 1))


def _legend(ax, n: int) -> None:
    if n <= 6:
        ax.legend(loc="best", fontsize="small")
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="x-small",
                  ncols=1 if n <= 24 else 2)


def _rank_figure(rk, percent: bool):
    """Each model's score and interval, best on top, with P(best) on the right-hand axis."""
    import numpy as np

    models = list(rk.models)
    fig = _new_figure((6.4, 1.3 + 0.34 * len(models)))
    ax = fig.add_subplot()
    y = np.arange(len(models))[::-1].astype(float)
    scale = scale_of(rk.scores[models[0]], percent)
    pts = [point_of(rk.scores[m], "value")[0] * scale for m in models]
    ax.hlines(y, [rk.scores[m].lo * scale for m in models], [rk.scores[m].hi * scale for m in models],
              color="C0", linewidth=2)
    ax.plot(pts, y, "o", color="C0", markersize=5, zorder=3)
    ax.set_yticks(y, [_plain(m) for m in models])
    ax.set_ylim(-0.6, len(models) - 0.4)
    right = ax.twinx()
    right.set_ylim(ax.get_ylim())
    right.set_yticks(y, [fmt_prob(rk.p_best[m], 2, drawn=True) for m in models])
    right.set_ylabel("P(best)")
    ax.set_xlabel(f"{_plain(rk.metric)}" + (" (%)" if scale == 100.0 else ""))
    ax.grid(axis="x", alpha=0.3)
    return fig


def _pairs_figure(rk, percent: bool):
    """Each tested pair's difference A - B and its interval, against zero."""
    import numpy as np

    pairs = list(rk.pairs)
    fig = _new_figure((6.4, 1.3 + 0.34 * len(pairs)))
    ax = fig.add_subplot()
    scale = scale_of(rk.scores[rk.models[0]], percent)
    y = np.arange(len(pairs))[::-1].astype(float)
    colors = ["C2" if p["decision"] in ("A", "B") else "C7" for p in pairs]
    ax.hlines(y, [p["lo"] * scale for p in pairs], [p["hi"] * scale for p in pairs], colors=colors, linewidth=2)
    ax.scatter([p["delta"] * scale for p in pairs], y, c=colors, s=22, zorder=3)
    ax.axvline(0.0, color="black", linewidth=1, linestyle="--")
    ax.set_yticks(y, [_plain(f"{p['a']} − {p['b']}") for p in pairs])
    ax.set_ylim(-0.6, len(pairs) - 0.4)
    ax.set_xlabel(f"difference in {_plain(rk.metric)}" + (" (points)" if scale == 100.0 else ""))
    ax.grid(axis="x", alpha=0.3)
    return fig


def _rank_prob_figure(rk):
    """P(rank = r) of every model as a heat map (rows: models best first; columns: ranks)."""
    K = len(rk.models)
    # at most 14 inches wide and 0.2 inch a row past 40 models: drawn at 0.42 x 0.34 inch a cell, 150 models made a
    # 64 x 52 inch figure and a page that took 1.5 GB to draw
    fig = _new_figure((min(1.8 + 0.42 * K, 14.0), 1.0 + 0.34 * K if K <= 40 else 6.0 + 0.2 * K))
    ax = fig.add_subplot()
    im = ax.imshow(rk.rank_probs, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    step = max(1, -(-K // 30))  # at most about 30 rank labels
    ax.set_xticks(range(0, K, step), [str(r + 1) for r in range(0, K, step)])
    ax.set_yticks(range(K), [_plain(m) for m in rk.models], fontsize=8 if K <= 40 else 6)
    ax.set_xlabel("rank")
    if K <= 20:
        for i in range(K):
            for r in range(K):
                p = float(rk.rank_probs[i, r])
                if p >= 0.005:
                    ax.text(r, i, f"{p:.2f}"[1:] if p < 1 else "1", ha="center", va="center", fontsize=6,
                            color="white" if p > 0.6 else "black")
    fig.colorbar(im, ax=ax, shrink=0.8, label="P(rank)")
    return fig


# ----------------------------------------------------------------------------- sections
def _what(ests: list, percent: bool) -> str:
    scopes = " / ".join(dict.fromkeys(e.scope for e in ests))
    priors = " / ".join(dict.fromkeys(str(e.prior) for e in ests))
    units = "in percent (rates)" if percent else units_as_shown(ests)
    return (f"estimate [{interval_words(ests)} interval], {units}; {scopes} scope; prior {priors}."
            + widened_rows(ests))


def _cell(e, percent: bool, digits: int | None) -> tuple[str, str, bool]:
    """(HTML of one table cell, its tooltip, whether a number in it was kept off an end of its range)."""
    scale = scale_of(e, percent)
    d = _digits(scale, digits)
    b = _bounds(e)
    point, fallback = point_of(e, "value")
    v = fmt_bounded(point, d, scale, b) + ("*" if fallback else "")
    lo, hi = fmt_bounded(e.lo, d, scale, b), fmt_bounded(e.hi, d, scale, b)
    tip = (f"{e.metric}: value {e.value if e.value is not None else '-'}; posterior mean {e.mean:.6g}, sd {e.sd:.3g}; "
           f"{level_label(e.level)} {e.method} interval [{e.lo:.6g}, {e.hi:.6g}]; {e.scope} scope; prior {e.prior}; "
           f"M={e.M}, N={e.N}")
    warn = " <span class=warn title='see Warnings'>⚠</span>" if e.warnings else ""
    near = any(fmt_bounded(x, d, scale, b) != fmt_bounded(x, d, scale, (None, None))
               for x in (point, e.lo, e.hi) if x is not None)
    return f"<span class=v>{_esc(v)}</span> <span class=ci>[{_esc(lo)}, {_esc(hi)}]</span>{warn}", tip, near


def _estimate_table(ests: list, percent: bool, digits: int | None) -> str:
    try:
        g = grid(ests)
    except ValueError:  # several estimates per cell (scopes, priors): the long table below says it all
        return "<p class=note>Several estimates per model and metric: see the table of every estimate.</p>"
    head = (["dataset"] if g.several else []) + ["model"] + list(g.metrics)
    rows = []
    fallback = bounded = False
    for r in g.rows:
        cells = ([f"<td>{_esc(r[0])}</td>"] if g.several else []) + [f"<th scope=row>{_esc(r[1])}</th>"]
        for m in g.metrics:
            e = g.get(r, m)
            if e is None:
                cells.append("<td class=num>-</td>")
                continue
            fallback = fallback or e.value is None
            body, tip, near = _cell(e, percent, digits)
            bounded = bounded or near
            cells.append(f"<td class=num title='{_esc(tip)}'>{body}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    note = _what(ests, percent)
    if percent and any(scale_of(e, True) == 1.0 for e in ests):
        note += " Metrics outside [0, 1] are in their own units."
    for (dataset, metric), cells in mixed_units(g).items():
        note += " " + mixed_note(dataset if g.several else None, metric, cells, best=False)
    if bounded:
        note += (" Numbers with more decimals than the rest round to an end of their range without reaching it: "
                 "they keep two significant digits of their distance from it.")
    if fallback:
        note += " * posterior mean (the finite-sample estimate is undefined there)."
    ths = "".join(f"<th scope=col>{_esc(h)}</th>" for h in head)
    return (f"<div class=scroll><table class=estimates id=estimate-table><thead><tr>{ths}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div><p class=note>{_esc(note)}</p>")


def _long_table(ests: list) -> str:
    head = ["dataset", "model", "metric", "value", "mean", "sd", "lo", "hi", "level", "scope", "interval", "prior",
            "M", "N", "draws", "seed"]
    rows = []
    for e in ests:
        def g(x, f="{:.6g}"):
            return "-" if x is None else f.format(x)
        vals = [e.dataset if e.dataset is not None else "-", e.model if e.model is not None else "-", e.metric,
                g(e.value), g(e.mean), g(e.sd), g(e.lo), g(e.hi), level_label(e.level), e.scope, e.method, e.prior,
                e.M, e.N, g(e.draws_n, "{}"), g(e.seed, "{}")]
        rows.append("<tr>" + "".join(f"<td>{_esc(v)}</td>" for v in vals) + "</tr>")
    ths = "".join(f"<th scope=col>{_esc(h)}</th>" for h in head)
    return (f"<details><summary>Every estimate, unrounded ({len(ests)})</summary><div class=scroll>"
            f"<table class=long><thead><tr>{ths}</tr></thead><tbody>{''.join(rows)}</tbody></table></div></details>")


def _ranking_html(rk, percent: bool, digits: int | None, plots: bool, salt: str) -> str:
    K = len(rk.models)
    scale = scale_of(rk.scores[rk.models[0]], percent)
    d = _digits(scale, digits)
    which = {"adjacent": "models adjacent in the ranking", "all": "every pair"}.get(rk.pair_set, "the pairs asked")
    out = [f"<p>{_esc(rk.metric)}, {_esc(rk.scope)} scope, {level_label(rk.level)} intervals. P(best) and the rank "
           f"probabilities come from one joint posterior draw of all {K} models; the pairs tested are {which}, "
           f"with a {_esc(rk.test)} test whose p-values are adjusted over the {len(rk.pairs)} tested "
           "(Holm; Benjamini-Hochberg).</p>"]
    rows = []
    stand_in = False
    for i, m in enumerate(rk.models):
        e = rk.scores[m]
        b = _bounds(e)
        point, fallback = point_of(e, "value")
        stand_in = stand_in or fallback
        v = fmt_bounded(point, d, scale, b) + ("*" if fallback else "")  # as the estimate table marks it
        rows.append(f"<tr><td class=num>{i + 1}</td><th scope=row>{_esc(m)}</th>"
                    f"<td class=num><span class=v>{_esc(v)}</span> <span class=ci>"
                    f"[{_esc(fmt_bounded(e.lo, d, scale, b))}, {_esc(fmt_bounded(e.hi, d, scale, b))}]</span></td>"
                    f"<td class=num>{_esc(fmt_prob(rk.p_best[m], drawn=True))}</td>"
                    f"<td class=num>{rk.expected_rank[m]:.2f}</td></tr>")
    out.append("<div class=scroll><table class=ranking><thead><tr><th>#</th><th>model</th><th>estimate [interval]"
               "</th><th>P(best)</th><th>E[rank]</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
               + ("<p class=note>* posterior mean (the finite-sample estimate is undefined there).</p>" if stand_in
                  else ""))
    prow = []
    for p in rk.pairs:
        verdict = {"A": f"{p['a']} better", "B": f"{p['b']} better"}.get(p["decision"], "undecided")
        pv = [fmt_prob(p[k]) if p.get(k) is not None else "-" for k in ("p_value", "p_holm", "p_bh")]
        delta = [fmt_bounded(p[k], d, scale, (None, None)) for k in ("delta", "lo", "hi")]
        delta = [x if x.startswith("-") or x == "0.0" else "+" + x for x in delta]
        cls = " class=decided" if p["decision"] in ("A", "B") else ""
        prow.append(f"<tr{cls}><td>{_esc(p['a'])}</td><td>{_esc(p['b'])}</td><td class=num>{_esc(delta[0])} "
                    f"<span class=ci>[{_esc(delta[1])}, {_esc(delta[2])}]</span></td>"
                    f"<td class=num>{_esc(fmt_prob(p['p_a_better'], drawn=True))}</td>"
                    + "".join(f"<td class=num>{_esc(x)}</td>" for x in pv) + f"<td>{_esc(verdict)}</td></tr>")
    unit = " (points)" if scale == 100.0 else ""
    out.append("<div class=scroll><table class=pairs><thead><tr><th>A</th><th>B</th><th>A − B [interval]</th>"
               "<th>P(A&gt;B)</th><th>p</th><th>p Holm</th><th>p BH</th><th>decision</th></tr></thead><tbody>"
               + "".join(prow) + "</tbody></table></div>"
               f"<p class=note>Pairs tested: the difference A − B{unit} with its {level_label(rk.level)} credible "
               f"interval, P(A &gt; B), the p-values and the decision (Holm-adjusted test at {1 - rk.level:.3g}); "
               "in the P columns “&lt;0.001” / “&gt;0.999” mean in none / every one of the posterior draws; "
               "in the p columns, a p-value below 0.0005.</p>")
    if plots:
        from . import plots as P

        drawn = getattr(P, "rank_plot", None)  # the library's rank plot where there is one; else a plain one
        fig = drawn(rk, percent=percent) if drawn is not None else _rank_figure(rk, percent)
        figs = [_figure(fig, f"{rk.metric}: estimates with {level_label(rk.level)} intervals, best first; "
                        "P(best) on the right", salt + "r")]
        if rk.pairs:
            figs.append(_figure(_pairs_figure(rk, percent), "differences of the tested pairs with their intervals "
                                "(green: decided)", salt + "p"))
        if K >= 3:
            figs.append(_figure(_rank_prob_figure(rk), "rank probabilities: P(model has rank r)", salt + "h"))
        out.append("<div class=plots>" + "".join(figs) + "</div>")
    return "".join(out)


def _comparison_html(c, plots: bool, salt: str) -> str:
    rows = "".join("<tr>" + "".join(f"<td>{_esc(x)}</td>" for x in r) + "</tr>" for r in c._rows())
    out = [f"<p class=headline>{_esc(c._headline())}</p>",
           "<div class=scroll><table class=comparison><thead><tr><th>analysis</th><th>estimate</th><th>interval</th>"
           f"<th>p / probability</th></tr></thead><tbody>{rows}</tbody></table></div>"]
    if plots:
        from . import plots as P

        out.append("<div class=plots>" + _figure(P.difference_density(c), "posterior density of the difference "
                                                 f"{c.names[0]} − {c.names[1]}", salt + "d") + "</div>")
    return "".join(out)


def _provenance_html(prov: dict) -> str:
    rows = []
    for key, value in prov.items():
        if key == "inputs" and isinstance(value, (list, tuple)):
            inner = []
            for item in value:
                if isinstance(item, dict):
                    inner.append(f"<tr><td>{_esc(item.get('path', '-'))}</td><td><code>{_esc(item.get('sha256', '-'))}"
                                 f"</code></td><td class=num>{_esc(item.get('bytes', '-'))}</td>"
                                 f"<td>{_esc(item.get('kind', ''))}</td></tr>")
                else:
                    inner.append(f"<tr><td colspan=4>{_esc(item)}</td></tr>")
            cell = ("<table class=inputs><thead><tr><th>path</th><th>sha256</th><th>bytes</th><th></th></tr></thead>"
                    f"<tbody>{''.join(inner)}</tbody></table>")
        elif isinstance(value, dict):
            cell = ", ".join(f"{_esc(k)} {_esc(v)}" for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            cell = "<br>".join(_esc(v) for v in value)
        else:
            cell = f"<code>{_esc(value)}</code>" if key in ("command", "request_sha256") else _esc(value)
        rows.append(f"<tr><th scope=row>{_esc(key)}</th><td>{cell}</td></tr>")
    return f"<table class=provenance><tbody>{''.join(rows)}</tbody></table>"


def provenance(paths: Any = (), *, seed: Any = None, command: Any = None, **extra) -> dict:
    """What produced a report: each input path with its sha256 and size (a folder: one digest over its files'
    relative paths and digests), the versions of bayeseval, numpy, scipy, matplotlib and Python, the seed, the
    command line and the date (UTC).  ``extra`` keys are added as they are.

    >>> p = provenance(seed=7, command="bayeseval report x.json --html r.html")
    >>> sorted(p), p["versions"]["bayeseval"] != ""
    (['command', 'date', 'seed', 'versions'], True)
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    inputs = [_digest(Path(p)) for p in paths]
    out = {"inputs": inputs} if inputs else {}
    out.update(versions=versions(), seed="library default" if seed is None else seed)
    if command is not None:
        out["command"] = command if isinstance(command, str) else " ".join(_quote(a) for a in command)
    out["date"] = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    out.update(extra)
    return out


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(str(arg))


def _digest(path: Path) -> dict:
    if path.is_file():
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        return {"path": str(path), "sha256": h.hexdigest(), "bytes": path.stat().st_size, "kind": "file"}
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file())
        h, size = hashlib.sha256(), 0
        for f in files:
            sub = _digest(f)
            size += sub["bytes"]
            h.update(f"{f.relative_to(path).as_posix()}\0{sub['sha256']}\n".encode())
        return {"path": str(path), "sha256": h.hexdigest(), "bytes": size,
                "kind": f"folder of {len(files)} files (digest of relative paths and file digests)"}
    return {"path": str(path), "sha256": "-", "bytes": "-", "kind": "not found"}


def versions() -> dict:
    """The versions behind the numbers (a package that is not installed shows ``-``)."""
    from importlib import metadata

    from .. import __version__

    out = {"bayeseval": __version__}
    for name in ("numpy", "scipy", "matplotlib"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "-"
    out["python"] = platform.python_version()
    return out


# ----------------------------------------------------------------------------- the page
_CSS = """
:root{--fg:#1d232b;--muted:#5b6573;--line:#d8dde3;--bg:#fff;--band:#f5f7f9;--accent:#1f5fa8;--warn:#8a5300}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);
background:var(--bg)}
header{padding:20px 28px 12px;border-bottom:1px solid var(--line);background:var(--band)}
header h1{margin:0 0 4px;font-size:1.5em}
header p{margin:0;color:var(--muted)}
nav{padding:8px 28px;border-bottom:1px solid var(--line);font-size:.92em}
nav a{margin-right:14px;color:var(--accent);text-decoration:none}
main{padding:4px 28px 32px;max-width:1280px}
section{margin-top:22px}
h2{font-size:1.2em;border-bottom:2px solid var(--line);padding-bottom:3px;margin:0 0 10px}
h3{font-size:1.02em;margin:16px 0 6px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:6px 0 12px;font-size:.92em}
th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
thead th{background:var(--band);position:sticky;top:0}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.v{font-weight:600}.ci{color:var(--muted)}
.warn{color:var(--warn)}
tr.decided td{background:#eef7ee}
.plots{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
figure.plot{margin:8px 0;padding:8px;border:1px solid var(--line);border-radius:4px;background:#fff;max-width:100%}
figcaption,.note{color:var(--muted);font-size:.88em}
p.note{margin:0 0 10px;max-width:900px}
ul.warnings li{margin:3px 0}
.headline{font-weight:600}
code{font-size:.88em;word-break:break-all}
table.provenance th{white-space:nowrap;background:var(--band)}
details summary{cursor:pointer;color:var(--accent)}
@media print{nav{display:none}}
"""


def _as_list(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def html_report(evaluation: Any, ranking: Any = None, *, title: str | None = None, provenance: dict | None = None,
                pass_at_k: Any = None, warnings: Any = None, percent: bool = True, digits: int | None = None,
                plots: bool = True) -> str:
    """The evaluation as one self-contained HTML page (a string; :func:`write_html` writes it to a file).

    ``evaluation``: an :class:`~bayeseval.Evaluation` (or a list of :class:`~bayeseval.Estimate`).
    ``ranking``: a :class:`~bayeseval.Ranking` from :func:`~bayeseval.compare_all`, a
    :class:`~bayeseval.Comparison` from :func:`~bayeseval.compare`, a list of them (one section each) or a dict
    ``{label: result}`` (the label, e.g. a dataset's name, goes in the section's heading).
    ``pass_at_k``: a matplotlib Figure (e.g. :func:`bayeseval.report.plots.pass_at_k_curve`), or an
    Evaluation of ``pass@k`` estimates at several k; by default the curve is drawn from the evaluation's own
    ``pass@k`` metrics when it has two k or more.  ``warnings``: further texts for the Warnings section (the
    estimates' and rankings' own warnings are always listed).  ``provenance``: a dict shown as the Provenance
    section (see :func:`provenance`; default: versions and date).  ``percent``: rates in percent (else
    fractions); ``digits``: decimals (default 1 in percent, 3 otherwise); ``plots=False`` leaves the plots out
    (they are left out, with a note, when matplotlib is not installed).
    """
    from ..comparison import Comparison, Ranking

    ests = estimates_of(evaluation, "evaluation")
    if not isinstance(percent, bool) or not isinstance(plots, bool):
        raise V.InputTypeError("percent and plots must be True or False")
    if digits is not None:
        digits = V.integer(digits, "digits", minimum=0)
    if title is not None and not isinstance(title, str):
        raise V.InputTypeError(f"title must be a string or None, got {V.describe(title)}")
    if provenance is not None and not isinstance(provenance, dict):
        raise V.InputTypeError(f"provenance must be a dict or None, got {V.describe(provenance)}")
    if isinstance(ranking, dict):  # {label (a dataset's name): Ranking or Comparison}
        labelled = [(str(k), v) for k, v in ranking.items()]
    else:
        labelled = [(None, v) for v in _as_list(ranking)]
    rankings = [r for _, r in labelled]
    bad = [r for r in rankings if not isinstance(r, (Ranking, Comparison))]
    if bad:
        raise V.InputTypeError(f"ranking must be a Ranking (compare_all), a Comparison (compare) or a list of them, "
                               f"got {V.describe(bad[0])}")
    extra_warnings = [str(w) for w in _as_list(warnings)]
    no_mpl = plots and not _matplotlib()
    plots = plots and not no_mpl

    datasets = [d for d in dict.fromkeys(e.dataset for e in ests) if d is not None]
    models = list(dict.fromkeys(e.model for e in ests))
    metrics = list(dict.fromkeys(e.metric for e in ests))
    if title is None:
        title = "bayeseval report" + (f": {', '.join(datasets)}" if datasets else "")
    used: set = set()
    sections: list[tuple[str, str, str]] = []  # (id, heading, body)

    # estimates
    body = _estimate_table(ests, percent, digits) + _long_table(ests)
    sections.append((_slug("estimates", used), "Estimates", body))

    # forest plot
    if plots:
        from . import plots as P

        try:
            fig = P.forest(ests, percent=percent)
        except ValueError as exc:  # several estimates per cell
            body = f"<p class=note>No forest plot: {_esc(exc)}</p>"
        else:
            body = _figure(fig, f"forest plot: each model's estimate (dot) and {interval_noun(ests)} interval (line), "
                                "one panel per metric", "forest")
        sections.append((_slug("forest plot", used), "Forest plot", body))

    # pass@k
    if plots:
        curve = None
        if pass_at_k is not None and hasattr(pass_at_k, "savefig"):
            curve = _figure(pass_at_k, "pass@k against k with credible bands", "passk")
        else:
            source = estimates_of(pass_at_k, "pass_at_k") if pass_at_k is not None else ests
            pk = [e for e in source if _PASS_K.match(e.metric)]
            if len({e.metric for e in pk}) >= 2:
                curve = _figure(_pass_k_figure(pk, percent),
                                f"pass@k at the k estimated, with {interval_noun(pk)} bands", "passk")
        if curve is not None:
            sections.append((_slug("pass@k", used), "pass@k curves", curve))

    # rankings / comparisons
    for i, (label, r) in enumerate(labelled):
        where = f" ({label})" if label else ""
        if isinstance(r, Ranking):
            head = f"Ranking on {r.metric}{where}"
            body = _ranking_html(r, percent, digits, plots, f"rank{i}")
        else:
            head = f"Comparison: {r.names[0]} vs {r.names[1]} on {r.metric}{where}"
            body = _comparison_html(r, plots, f"cmp{i}")
        sections.append((_slug(head, used), head, body))

    # warnings
    texts = list(dict.fromkeys(extra_warnings))
    seen = set()  # (model, metric, text): a ranking's score repeats its estimate's warning
    for e in ests:
        for w in e.warnings:
            seen.add((e.model, e.metric, w))
            t = f"{e.dataset + ' / ' if e.dataset else ''}{e.model + ': ' if e.model else ''}{e.metric}: {w}"
            if t not in texts:
                texts.append(t)
    for label, r in labelled:
        for w in getattr(r, "notes", ()):
            if str(w) not in texts:
                texts.append(str(w))
        scores = getattr(r, "scores", None) or getattr(r, "estimates", None) or {}
        for e in scores.values():
            for w in e.warnings:
                t = f"{r.metric}{' (' + label + ')' if label else ''}, {e.model}: {w}"
                if (e.model, e.metric, w) not in seen and t not in texts:
                    texts.append(t)
    if no_mpl:
        texts.append("the plots are left out: matplotlib is not installed (pip install 'bayeseval[plots]')")
    body = ("<ul class=warnings>" + "".join(f"<li>{_esc(t)}</li>" for t in texts) + "</ul>") if texts else \
        "<p>None: every model check passed and no input needed a correction.</p>"
    sections.append((_slug("warnings", used), f"Warnings ({len(texts)})" if texts else "Warnings", body))

    # provenance
    prov = dict(provenance) if provenance is not None else {"versions": versions(),
                                                             "date": _dt.datetime.now(_dt.timezone.utc)
                                                             .replace(microsecond=0).isoformat()}
    seeds = sorted({e.seed for e in ests if e.seed is not None})
    if seeds and "estimate seeds" not in prov:
        prov["estimate seeds"] = ", ".join(str(s) for s in seeds)
    sections.append((_slug("provenance", used), "Provenance", _provenance_html(prov)))

    summary = (f"{len(models)} model{'s' if len(models) != 1 else ''} × {len(metrics)} "
               f"metric{'s' if len(metrics) != 1 else ''}" + (f" on {len(datasets)} datasets" if len(datasets) > 1
                                                               else ""))
    nav = "".join(f'<a href="#{sid}">{_esc(head)}</a>' for sid, head, _ in sections)
    parts = "".join(f'<section id="{sid}"><h2>{_esc(head)}</h2>{body}</section>' for sid, head, body in sections)
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            "<meta name=viewport content='width=device-width, initial-scale=1'>"
            "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "img-src data:\">"
            "<link rel=icon href='data:,'>"
            f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>"
            f"<header><h1>{_esc(title)}</h1><p>{_esc(summary)} · generated by bayeseval</p></header>"
            f"<nav>{nav}</nav><main>{parts}</main></body></html>\n")


def write_html(path: Any, evaluation: Any, ranking: Any = None, **kwargs) -> Path:
    """Write :func:`html_report` ``(evaluation, ranking, **kwargs)`` to ``path`` (UTF-8); returns the Path."""
    if not isinstance(path, (str, os.PathLike)):
        raise V.InputTypeError(f"path must be a file path (str or os.PathLike), got {V.describe(path)}")
    page = html_report(evaluation, ranking, **kwargs)
    p = Path(path)
    p.write_text(page, encoding="utf-8")
    return p

