"""Plots: :mod:`bayeseval.report.plots` (forest, pass@k curve, difference density, coverage).

The artists are read back and compared with numbers computed here: the pass@k line and band
against :func:`bayeseval.estimate` for each k, interval segments against the Estimates, the
shaded interval against the Comparison's ``delta``, the Monte-Carlo band against
``z sqrt(p (1 - p) / R)``, the parsed coverage study against cells of the markdown file and its
own summary table.  Every figure is saved to a PNG that must be non-empty.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from scipy import stats

import bayeseval as B
from bayeseval.io import OutcomeSet
from bayeseval.report import coverage_plot, difference_density, forest, pass_at_k_curve, read_coverage_results
from bayeseval.report.plots import COVERAGE_COLUMNS, default_ks

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data" / "tot_game24.json"
COVERAGE_MD = ROOT / "benchmarks" / "results_coverage.md"
MODELS = ["gpt-4 IO", "gpt-4 CoT"]


def png_ok(path: Path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000


def band_limits(coll, xs):
    """(min y, max y) of a fill_between polygon at each x in xs."""
    v = np.concatenate([p.vertices for p in coll.get_paths()])
    out = []
    for x in xs:
        ys = v[np.isclose(v[:, 0], x), 1]
        out.append((ys.min(), ys.max()))
    return np.array(out)


# ----------------------------------------------------------------------------- forest
def test_forest_draws_each_estimate_and_interval(game24, tmp_path):
    ev = B.evaluate(game24, ["avg", "pass@10", "pass@100"])
    fig = forest(ev, save=tmp_path / "forest.png")
    assert isinstance(fig, Figure)
    png_ok(tmp_path / "forest.png")
    assert [ax.get_title() for ax in fig.axes] == ["avg", "pass@10", "pass@100"]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == MODELS  # the panels share the y axis
    for ax in fig.axes:
        metric = ax.get_title()
        assert ax.get_shared_y_axes().joined(ax, fig.axes[0])
        assert ax.get_xlabel() == "estimate"
        (seg,) = [c for c in ax.collections if isinstance(c, LineCollection)]
        segs = seg.get_segments()
        assert len(segs) == 2 and len(ax.lines) == 1
        for s, y, model in zip(segs, ax.get_yticks(), MODELS):
            e = ev[model, metric]
            assert np.allclose(s, [[e.lo, y], [e.hi, y]])
        assert np.allclose(ax.lines[0].get_xdata(), [ev[m, metric].value for m in MODELS])
    assert "95% equal-tailed credible intervals; population scope" in fig.get_suptitle()


def test_forest_one_metric_on_a_given_axes_in_percent():
    ev = B.evaluate({"a": np.array([[1, 0], [1, 1]]), "b": np.array([[0, 0], [1, 0]])}, ["avg", "pass@2"],
                    scope="benchmark", prior="uniform", interval="normal")
    fig = Figure()
    ax = fig.add_subplot()
    assert forest(ev, "pass@2", ax=ax, percent=True, point="mean") is fig
    assert np.allclose(ax.lines[0].get_xdata(), [100 * ev["a", "pass@2"].mean, 100 * ev["b", "pass@2"].mean])
    assert ax.get_xlabel() == "estimate (%)"
    with pytest.raises(ValueError, match="ax must be 2 Axes"):
        forest(ev, ax=ax)
    with pytest.raises(ValueError, match="metrics"):
        forest(ev, "f1")
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        forest(ev, "avg", ax="left")


def test_forest_labels_rows_by_dataset_when_there_are_several():
    R = np.array([[1, 1, 0], [0, 1, 1], [0, 1, 1], [1, 1, 1]])
    s = OutcomeSet.from_arrays({"a": R}, dataset="d1") | OutcomeSet.from_arrays({"a": 1 - R}, dataset="d2")
    ax = forest(B.evaluate(s, ["avg"])).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["d1 / a", "d2 / a"]


# ----------------------------------------------------------------------------- pass@k
def test_pass_at_k_curve_line_and_band_are_the_estimates(game24, tmp_path):
    ks = [1, 2, 5, 10, 20, 50, 100]
    fig = pass_at_k_curve(game24, ks=ks, save=tmp_path / "passk.png")
    png_ok(tmp_path / "passk.png")
    (ax,) = fig.axes
    assert [line.get_label() for line in ax.lines] == MODELS
    assert len(ax.collections) == 2  # one band per model
    assert ax.get_xscale() == "log"  # 100 / 1 >= 20
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("k", "pass@k")
    assert ax.get_title() == "pass@k, population scope, 95% credible band"
    for line, band, model in zip(ax.lines, ax.collections, MODELS):
        ests = [B.estimate(game24.counts(model), "pass@k", k=k) for k in ks]
        assert np.allclose(line.get_xdata(), ks)
        assert np.allclose(line.get_ydata(), [e.value for e in ests], rtol=0, atol=1e-12)
        assert np.allclose(band_limits(band, ks), [[e.lo, e.hi] for e in ests], rtol=0, atol=1e-12)
    # the published Tree of Thoughts numbers: CoT pass@100 = 0.49 (Yao et al. 2023, Table 2)
    assert ax.lines[1].get_ydata()[-1] == pytest.approx(game24.published["gpt-4 CoT"]["pass@100"])


@pytest.mark.slow
def test_pass_at_k_curve_defaults_and_options(game24):
    # default ks: about 25 log-spaced values up to N = 100, log axis
    ax = pass_at_k_curve({"CoT": game24.counts("gpt-4 CoT")}, scope="benchmark", level=0.8).axes[0]
    assert ax.lines[0].get_xdata().tolist() == default_ks(100)
    assert default_ks(100)[0] == 1 and default_ks(100)[-1] == 100 and 20 <= len(default_ks(100)) <= 25
    assert "80% credible band" in ax.get_title()
    # small N: every k, linear axis; percent scales the band too; a plain matrix is one model
    R = np.array([[1, 0, 0, 0], [1, 1, 0, 1], [0, 0, 0, 1]])
    ax = pass_at_k_curve(R, scope="benchmark", prior="uniform", interval="normal", percent=True).axes[0]
    assert ax.get_xscale() == "linear" and ax.lines[0].get_xdata().tolist() == [1, 2, 3, 4]
    ests = [B.estimate(R, "pass@k", k=k, scope="benchmark", prior="uniform", interval="normal") for k in (1, 2, 3, 4)]
    assert np.allclose(ax.lines[0].get_ydata(), [100 * e.value for e in ests])
    assert np.allclose(band_limits(ax.collections[0], [1, 2, 3, 4]), [[100 * e.lo, 100 * e.hi] for e in ests])
    assert ax.get_ylabel() == "pass@k (%)"
    with pytest.raises(TypeError, match="ks"):
        pass_at_k_curve(R, ks=[1, 2.5])
    with pytest.raises(ValueError, match="ks"):
        pass_at_k_curve(R, ks=[0, 1])
    with pytest.raises(ValueError, match="scope"):
        pass_at_k_curve(R, ks=[1], scope="global")
    with pytest.raises(ValueError, match="several datasets"):
        pass_at_k_curve(OutcomeSet.from_arrays({"a": R}, dataset="x") | OutcomeSet.from_arrays({"a": R}, dataset="y"))


# ----------------------------------------------------------------------------- difference
def test_difference_density_shades_the_interval_and_marks_zero_and_rope(game24, tmp_path):
    c = B.compare(game24.counts("gpt-4 CoT"), game24.counts("gpt-4 IO"), names=("CoT", "IO"), rope=0.01,
                  resamples=500, seed=3)
    fig = difference_density(c, save=tmp_path / "diff.png")
    png_ok(tmp_path / "diff.png")
    (ax,) = fig.axes
    density, zero = ax.lines
    assert list(zero.get_xdata()) == [0, 0] and zero.get_linestyle() == "--"
    draws = c.draws()
    x = density.get_xdata()
    assert x.min() < draws.min() and x.max() > draws.max()
    assert np.allclose(density.get_ydata(), stats.gaussian_kde(draws)(x))
    assert np.trapezoid(density.get_ydata(), x) == pytest.approx(1.0, abs=0.01)
    (fill,) = ax.collections
    v = np.concatenate([p.vertices for p in fill.get_paths()])
    assert v[:, 0].min() == pytest.approx(c.delta.lo) and v[:, 0].max() == pytest.approx(c.delta.hi)
    rope = [p for p in ax.patches if p.get_label() == "ROPE"]
    assert len(rope) == 1
    xs = np.atleast_2d(rope[0].get_xy())[:, 0]  # a Rectangle (matplotlib >= 3.9) or a Polygon
    if xs.size == 1:
        xs = np.array([rope[0].get_x(), rope[0].get_x() + rope[0].get_width()])
    assert xs.min() == pytest.approx(-0.01) and xs.max() == pytest.approx(0.01)
    text = ax.texts[0].get_text()
    assert text.startswith(f"P(CoT > IO) = {c.p_a_better:.3f}")
    assert f"inside {c.rope['inside']:.3f}" in text
    assert ax.get_xlabel() == "avg: CoT − IO" and ax.get_ylabel() == "posterior density"


def test_difference_density_percent_and_bad_input():
    R1 = np.array([[1, 1], [1, 0], [0, 1], [1, 1]] * 5)
    R2 = np.array([[0, 1], [0, 0], [0, 1], [1, 0]] * 5)
    c = B.compare(R1, R2, seed=2, resamples=200, scope="benchmark")
    ax = difference_density(c, percent=True).axes[0]
    v = np.concatenate([p.vertices for p in ax.collections[0].get_paths()])
    assert v[:, 0].min() == pytest.approx(100 * c.delta.lo) and v[:, 0].max() == pytest.approx(100 * c.delta.hi)
    assert not [p for p in ax.patches if p.get_label() == "ROPE"]
    with pytest.raises(TypeError, match="comparison must be a Comparison"):
        difference_density(B.evaluate({"a": R1}, ["avg"]))


# ----------------------------------------------------------------------------- coverage
def test_read_coverage_results_parses_the_shipped_study():
    df = read_coverage_results(COVERAGE_MD)
    assert list(df.columns) == list(COVERAGE_COLUMNS)
    assert len(df) == 2 * 2 * 80 * 4 * 3  # prior x scope x (M, N, shape) x metric x method
    assert set(df["M"]) == {15, 30, 100, 500} and set(df["N"]) == {1, 4, 16, 80}
    assert df.attrs["replicates_listed"] == [150, 300] and set(df["reps"]) == {150}
    assert (df["nominal"] == 0.95).all()
    # "| 15 | 4 | uniform | 97 / 97 / 96 | **87** / 91 / 88 | ..." under prior=hierarchical, scope=benchmark
    cell = df.query("prior == 'hierarchical' and scope == 'benchmark' and M == 15 and N == 4 "
                    "and shape == 'uniform' and metric == 'pass@k'")
    assert dict(zip(cell["method"], cell["coverage"])) == {"normal": 0.88, "exact": 0.93, "hdi": 0.88}
    assert set(cell["k"]) == {3}
    assert df.query("metric == 'avg'")["k"].isna().all()
    # the file's own summary: mean over cells with M >= 30 of the main shapes, all four metrics
    # (hierarchical / benchmark: 95.2, 95.0, 94.4), recomputed from the rounded cells
    main = df[(df["M"] >= 30) & (df["shape"] != "mixture (non-Beta)")]
    avg = main.groupby(["prior", "scope", "method"])["coverage"].mean() * 100
    for (prior, scope), want in {("hierarchical", "benchmark"): (95.2, 95.0, 94.4),
                                 ("uniform", "population"): (60.3, 54.4, 55.1)}.items():
        got = [avg[(prior, scope, m)] for m in ("normal", "exact", "hdi")]
        assert np.allclose(got, want, atol=0.3)  # cells are rounded to whole percents
    by_m = read_coverage_results(COVERAGE_MD, reps=lambda M, N: 150 if M >= 500 else 300)
    assert set(by_m.loc[by_m["M"] == 500, "reps"]) == {150} and set(by_m.loc[by_m["M"] < 500, "reps"]) == {300}


def test_read_coverage_results_rejects_other_files(tmp_path):
    p = tmp_path / "x.md"
    p.write_text("# something else\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    with pytest.raises(ValueError, match="no per-cell coverage tables"):
        read_coverage_results(p)
    with pytest.raises(TypeError, match="path"):
        read_coverage_results(3)


def test_coverage_plot_band_and_points(tmp_path):
    df = read_coverage_results(COVERAGE_MD, reps=300)
    sub = df.query("prior == 'hierarchical' and scope == 'population' and metric == 'avg' and M == 100")
    fig = coverage_plot(sub, save=tmp_path / "coverage.png")
    png_ok(tmp_path / "coverage.png")
    (ax,) = fig.axes
    *series, nominal = ax.lines
    assert list(nominal.get_ydata()) == [95, 95] and nominal.get_label() == "nominal 95%"
    half = 100 * stats.norm.ppf(0.975) * math.sqrt(0.95 * 0.05 / 300)
    (band,) = ax.collections
    v = np.concatenate([p.vertices for p in band.get_paths()])
    assert v[:, 1].min() == pytest.approx(95 - half) and v[:, 1].max() == pytest.approx(95 + half)
    assert [t.get_text() for t in ax.get_xticklabels()][:2] == ["N=1 uniform", "N=1 U-shaped"]
    assert "M=100" in ax.get_title() and "hierarchical" in ax.get_title()
    for line, method in zip(series, ["normal", "exact", "hdi"]):
        cov = sub.loc[sub["method"] == method, "coverage"].to_numpy()
        assert np.allclose(line.get_ydata(), 100 * cov)
        outside = int(np.sum(np.abs(cov - 0.95) > half / 100))
        assert line.get_label() == f"{method} ({outside}/20 outside)"
    assert ax.get_ylabel() == "observed coverage (%)"


def test_coverage_plot_custom_table_and_errors():
    t = pd.DataFrame({"cell": ["a", "b", "c"] * 2, "method": ["x"] * 3 + ["y"] * 3,
                      "coverage": [0.9, 0.91, 0.89, 0.9, 0.7, 0.95], "reps": [100, 400, 100] * 2})
    ax = coverage_plot(t, level=0.9).axes[0]
    half = stats.norm.ppf(0.975) * np.sqrt(0.9 * 0.1 / np.array([100, 400, 100]))
    v = np.concatenate([p.vertices for p in ax.collections[0].get_paths()])
    for i, h in enumerate(half):  # a step band: the cell's own reps
        inner = v[(v[:, 0] > i - 0.5 + 1e-9) & (v[:, 0] < i + 0.5 - 1e-9), 1]
        if inner.size:
            assert np.allclose(sorted({round(y, 9) for y in inner}), [round(100 * (0.9 - h), 9), round(100 * (0.9 + h), 9)])
    assert [line.get_label() for line in ax.lines] == ["x (0/3 outside)", "y (1/3 outside)", "nominal 90%"]
    with pytest.raises(ValueError, match="coverage"):
        coverage_plot(t.assign(coverage=t["coverage"] * 100))
    with pytest.raises(ValueError, match="'coverage' and 'method'"):
        coverage_plot(t.drop(columns="method"))
    with pytest.raises(TypeError, match="DataFrame"):
        coverage_plot(t.to_dict())
    with pytest.raises(ValueError, match="level"):
        coverage_plot(t, level=95)


# ----------------------------------------------------------------------------- many models
def _many(n, M=30, N=8, seed=0):
    """n synthetic models on the same M questions, N trials each, of spread-out strengths."""
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, M)
    return {f"model-{j:02d}": (rng.random((M, N)) < np.clip(p * (0.3 + j / (1.6 * n)), 0, 1)[:, None]).astype(int)
            for j in range(n)}


def _drawn(fig):
    """The figure laid out and drawn (constrained layout runs at draw time) and its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _integer_ticks(ax):
    """The x ticks inside the view and their labels (after a draw)."""
    lo, hi = sorted(ax.get_xlim())
    shown = [(t, lab.get_text()) for t, lab in zip(ax.get_xticks(), ax.get_xticklabels()) if lo - 1e-9 <= t <= hi + 1e-9]
    return [t for t, _ in shown], [s for _, s in shown]


def test_pass_at_k_curve_at_50_models_is_small_multiples_with_legends_beside(tmp_path):
    R = _many(50)
    fig = pass_at_k_curve(R, save=tmp_path / "passk50.png")
    png_ok(tmp_path / "passk50.png")
    renderer = _drawn(fig)
    axes = [a for a in fig.axes if a.get_visible()]
    assert len(axes) == 5  # 10 models a panel
    labels = [line.get_label() for a in axes for line in a.lines]
    assert sorted(labels) == sorted(R)  # each model once, as a coloured line
    boxes = [a.get_window_extent(renderer) for a in axes]
    titles = [a.title.get_window_extent(renderer) for a in axes] + [fig._suptitle.get_window_extent(renderer)]
    legends = []
    for a in axes:
        assert len(a.lines) <= 10
        colours = [matplotlib.colors.to_rgba(line.get_color()) for line in a.lines]
        assert len(set(colours)) == len(colours)  # no colour twice within a panel
        assert len({line.get_marker() for line in a.lines}) == len(a.lines)
        leg = a.get_legend()
        assert [t.get_text() for t in leg.get_texts()] == [line.get_label() for line in a.lines]
        lb = leg.get_window_extent(renderer)
        assert not any(lb.overlaps(b) for b in boxes), "a legend covers a panel"
        assert not any(lb.overlaps(t) for t in titles), "a legend covers a title"
        assert 0 <= lb.x0 and lb.x1 <= fig.bbox.x1 and 0 <= lb.y0 and lb.y1 <= fig.bbox.y1  # not cut off
        legends.append(lb)
        ticks, texts = _integer_ticks(a)
        assert ticks and all(float(t).is_integer() for t in ticks)
        assert texts and all(s.isdigit() for s in texts)
    assert not any(x.overlaps(y) for i, x in enumerate(legends) for y in legends[i + 1:])
    # panel 1 holds the best models at the largest k
    last = {line.get_label(): line.get_ydata()[-1] for a in axes for line in a.lines}
    assert min(last[line.get_label()] for line in axes[0].lines) >= max(last[line.get_label()] for line in axes[1].lines)
    # the grey context: every other model behind each panel
    assert all(len(a.collections[0].get_segments()) == 50 - len(a.lines) for a in axes)
    small = pass_at_k_curve(_many(5))
    w50, h50 = fig.get_size_inches()
    w5, h5 = small.get_size_inches()
    assert w50 * h50 > 2 * w5 * h5  # the figure grows with the number of models


def test_pass_at_k_curve_one_panel_legend_outside_and_integer_ticks():
    # 12 models on a given axes: distinct colours from a hue wheel; linear k axis of integers only
    fig = Figure(figsize=(9, 5), layout="constrained")
    ax = fig.add_subplot()
    pass_at_k_curve(_many(12, N=4), ax=ax)
    renderer = _drawn(fig)
    colours = [matplotlib.colors.to_rgba(line.get_color()) for line in ax.lines]
    assert len(ax.lines) == 12 and len(set(colours)) == 12
    assert not ax.get_legend().get_window_extent(renderer).overlaps(ax.get_window_extent(renderer))
    ticks, texts = _integer_ticks(ax)
    assert ax.get_xscale() == "linear" and ticks == [1, 2, 3, 4] and texts == ["1", "2", "3", "4"]  # no k = 1.5
    # a log k axis (1 .. 60): ticks at 1, 2, 5, 10, 20, 50 only, no labelled minor ticks
    ax = pass_at_k_curve(_many(3, N=60)).axes[0]
    _drawn(ax.figure)
    ticks, texts = _integer_ticks(ax)
    assert ax.get_xscale() == "log" and ticks == [1, 2, 5, 10, 20, 50] and texts == ["1", "2", "5", "10", "20", "50"]
    assert not [t.get_text() for t in ax.get_xticklabels(minor=True) if t.get_text()]


@pytest.mark.slow
def test_forest_grows_with_the_models():
    ev = B.evaluate(_many(50), ["avg", "pass@4"], scope="benchmark", interval="normal")
    fig = forest(ev)
    renderer = _drawn(fig)
    assert len(fig.axes[0].get_yticklabels()) == 50 and all(len(a.get_yticks()) == 50 for a in fig.axes)
    assert fig.get_size_inches()[1] > 15 > forest(B.evaluate(_many(5), ["avg"])).get_size_inches()[1]
    labels = [t.get_window_extent(renderer) for t in fig.axes[0].get_yticklabels()]
    assert not any(x.overlaps(y) for x, y in zip(labels, labels[1:]))  # 50 row labels, none over the next


def test_rank_plot_sorted_intervals_p_best_and_expected_rank(tmp_path):
    from bayeseval.report.plots import rank_plot

    rk = B.compare_all(_many(50), resamples=200, draws=400, seed=2)
    fig = rank_plot(rk, save=tmp_path / "rank.png")
    png_ok(tmp_path / "rank.png")
    left, right = fig.axes
    assert [t.get_text() for t in left.get_yticklabels()] == [f"{i + 1}. {m}" for i, m in enumerate(rk.models)]
    assert np.allclose(left.lines[0].get_xdata(), [rk.scores[m].value for m in rk.models])
    (seg,) = [c for c in left.collections if isinstance(c, LineCollection)]
    assert np.allclose([s[:, 0] for s in seg.get_segments()], [[rk.scores[m].lo, rk.scores[m].hi] for m in rk.models])
    assert np.allclose(left.lines[0].get_ydata(), left.get_yticks())
    bars = [p.get_width() for p in right.patches if p.get_height() == pytest.approx(0.6)]
    assert np.allclose(bars, [rk.p_best[m] for m in rk.models])
    assert [t.get_text().split("E[rank] ")[1] for t in right.texts] == [f"{rk.expected_rank[m]:.1f}" for m in rk.models]
    assert fig.get_size_inches()[1] > 15
    top = rank_plot(rk, top=5)
    assert len(top.axes[0].get_yticklabels()) == 5 and "top 5 of 50" in top.get_suptitle()
    assert top.get_size_inches()[1] < 6
    ax = Figure().add_subplot()
    rank_plot(rk, ax=ax, top=3)
    twin = ax.figure.axes[1]
    assert [t.get_text().split(" | ")[1] for t in twin.get_yticklabels()] == [f"{rk.expected_rank[m]:.1f}"
                                                                             for m in rk.models[:3]]
    with pytest.raises(TypeError, match="ranking must be a Ranking"):
        rank_plot(B.evaluate(_many(2), ["avg"]))
