"""Findings of a review of the plots and table exports, each with the case that showed it."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pandas as pd
import pytest

import bayeseval as be
from bayeseval import cli
from bayeseval.io import from_long

plots = pytest.importorskip("bayeseval.report.plots")
pytest.importorskip("matplotlib").use("Agg")

from bayeseval.report import tables  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


def _mixed() -> "be.io.OutcomeSet":
    rng = np.random.default_rng(0)
    rows = [{"model": "binary", "question": q, "trial": t, "score": int(rng.random() < 0.5)}
            for q in range(30) for t in range(3)]
    rows += [{"model": "graded", "question": q, "trial": t, "score": int(rng.integers(0, 3))}
             for q in range(30) for t in range(3)]
    return from_long(pd.DataFrame(rows))


def test_a_forest_of_mixed_units_says_so():
    """A 0/1 model's rate in percent (55.6) and a graded model's mean grade (1.12) shared one axis labelled
    'estimate', with no note; the tables said 'mixes units'."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig = plots.forest(be.evaluate(_mixed(), ["avg"]), percent=True)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "estimate (mixed units: see the note)"
    text = " ".join(t.get_text() for t in fig.texts).replace("\n", " ")
    assert "avg mixes units (binary: a rate in [0, 1]; graded: on [0, 2])" in text


def test_a_posterior_mean_standing_in_is_drawn_hollow():
    """pass@8 from 4 trials has no sample estimate: the forest drew its posterior mean like an estimate."""
    R = (np.random.default_rng(1).random((20, 4)) < 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = be.evaluate({"a": R, "b": 1 - R}, ["pass@8", "avg"])
    fig = plots.forest(ev)
    stood, plain = fig.axes
    assert len(stood.lines) == 2 and stood.lines[1].get_markerfacecolor() == "white"
    np.testing.assert_allclose(sorted(stood.lines[1].get_xdata()), sorted(e.mean for e in ev.sel(metric="pass@8")))
    assert len(plain.lines) == 1
    assert any("Hollow marker: the posterior mean" in t.get_text() for t in fig.texts)


def test_pass_at_k_curves_name_the_model_take_missing_and_mark_the_extrapolation():
    """Their warnings did not say which model; missing=np.nan failed with advice to pass missing=np.nan; a model
    named '_base' had no legend entry; past the trials the line became the posterior mean without a mark."""
    rng = np.random.default_rng(0)
    R = {"_base": (rng.random((30, 4)) < 0.5).astype(float), "new": (rng.random((30, 4)) < 0.55).astype(float)}
    R["new"][0, 0] = np.nan
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = plots.pass_at_k_curve(R, ks=[1, 2, 4, 8], missing=np.nan)
    said = [str(w.message) for w in caught if issubclass(w.category, be.ModelCheckWarning)]
    assert said and all(s.startswith(("_base: ", "new: ")) for s in said)
    ax = fig.axes[0]
    assert [t.get_text().lstrip("\u200b") for t in ax.get_legend().get_texts()] == ["_base", "new"]
    assert any(t.get_text().startswith("k > 3: posterior mean") for t in ax.texts)  # "new" has 3 trials on q0


def test_the_pass_at_k_plot_says_which_runs_it_leaves_out(tmp_path):
    """report --plot-pass-k drew the 0/1 runs and left a graded one out without a word."""
    path = tmp_path / "mixed.csv"
    _mixed().to_frame().to_csv(path, index=False)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = cli.main(["report", str(path), "--plot-pass-k", str(tmp_path / "k.png")])
    assert code == 0 and (tmp_path / "k.png").exists()
    assert "--plot-pass-k draws 0/1 outcomes only: graded (graded or scores) left out of it" in err.getvalue()


def test_table_cells_escape_what_their_format_would_read():
    """LaTeX set '<0.00001' (a value shown near a bound) in text mode, where OT1 prints an inverted mark; Markdown
    left _draft_ (italic), `x` and ~ unescaped, and its notes raw."""
    assert tables._tex_num("[<0.00001, >99.99999]") == "[$<$0.00001, $>$99.99999]"
    assert tables._tex_num("$<$0.001") == "$<$0.001"
    assert tables._md_escape("_draft_ gpt_4 `x` a~b") == r"\_draft\_ gpt_4 \`x\` a\~b"
    R = np.array([[1, 0], [1, 1], [0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = be.evaluate({"_draft_": R, "b": 1 - R}, ["pass@4"])
    md = tables.to_markdown(ev)
    assert "| \\_draft\\_ |" in md
    assert md.split("\n\n", 1)[1].endswith("\\* posterior mean: the sample estimate is undefined (k > n for some "
                                          "question).")  # the note escaped as the cells: '*' is the cells' mark


def test_a_frame_of_undefined_values_is_numeric():
    """to_frame gave value and miller_se as object columns of None when no row had a value (k > n)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = be.evaluate({"a": np.array([[1, 0], [1, 1]])}, ["pass@4"]).to_frame()
    assert frame["value"].dtype == np.float64 and frame["miller_se"].dtype == np.float64
    assert frame["value"].isna().all()


def test_mcmc_plots_of_a_result_with_several_models_ask_which():
    """mcmc.plot_trace / plot_posterior / plot_forest of hierarchical() plotted its first model (beta-binomial)
    silently; variant= picks one, and leaving it out lists them."""
    from bayeseval import mcmc

    fit = type("Fit", (), {"idata": {"beta-binomial": "bb", "logit-normal": "ln"}})()
    assert mcmc._idata(fit, "logit-normal") == "ln"
    with pytest.raises(ValueError, match=r"variant must name one of the fitted models \['beta-binomial', "
                                         r"'logit-normal'\], got None"):
        mcmc._idata(fit)
    with pytest.raises(ValueError, match="this result fitted one model"):
        mcmc._idata(type("Fit", (), {"idata": "one"})(), "logit-normal")


def test_bold_best_judges_ties_on_the_digits_shown():
    """1.0 and 0.9999958 both printed bold (they tie at one decimal: 100.0) although the table shows 100.0 and
    99.99958; the docstring says ties are judged on the displayed digits."""
    import dataclasses

    R = np.array([[1, 1], [1, 1], [1, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = be.evaluate({"a": R, "b": R}, ["avg"], scope="benchmark")
    a, b = ev
    ev = be.Evaluation([dataclasses.replace(a, value=1.0, hi=1.0), dataclasses.replace(b, value=0.9999958, hi=1.0)])
    md = tables.to_markdown(ev, bold_best=True)
    assert "| a | **100.0** [" in md and "| b | 99.99958 [" in md
    tie = be.Evaluation([dataclasses.replace(a, value=0.5), dataclasses.replace(b, value=0.5)])
    assert tables.to_markdown(tie, bold_best=True).count("**50.0**") == 2


def test_notes_that_name_rows_name_their_dataset_and_exports_keep_a_single_datasets_name(tmp_path):
    """With several datasets, a note named 'a pass^8' without saying on which; a one-dataset file's name (Game of
    24's) was dropped from the estimates, so report --format csv / json left the dataset field empty."""
    from bayeseval.io import OutcomeSet

    R = np.zeros((15, 16), int)
    R[0], R[1, :15], R[2, :8] = 1, 1, 1  # pass^8 carried by one or two questions: its far end widens
    S = np.vstack([np.ones((10, 16), int), np.zeros((5, 16), int)])
    S[:, 0] = 0
    both = OutcomeSet.from_arrays({"a": R}, dataset="math").merge(OutcomeSet.from_arrays({"a": S}, dataset="code"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = be.evaluate(both, ["pass^8"])
        one = be.evaluate(OutcomeSet.from_arrays({"a": R}, dataset="math"), ["pass^8"])
        bare = be.evaluate({"a": R}, ["pass^8"])
    assert [(e.dataset, e.method) for e in ev] == [("math", "exact+binomial"), ("code", "exact")]
    assert tables.to_markdown(ev).endswith("Widened to Clopper-Pearson's interval on the summed scores (few questions "
                                           "carry the metric): math: a pass^8.")
    said = "Dataset: math. Note: estimate [95% equal-tailed (widened to Clopper-Pearson's on the summed scores)"
    assert said in tables.to_markdown(one)
    assert [e.dataset for e in one] == ["math"] and [e.dataset for e in bare] == [None]
    unnamed = be.evaluate(OutcomeSet.from_arrays({"a": S}), ["avg"])  # the readers' name for no name
    assert [e.dataset for e in unnamed] == [None]
    for fmt in ("csv", "json"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert cli.main(["report", "examples/data/tot_game24.json", "--format", fmt]) == 0
        text = out.getvalue()
        rows = (pd.read_csv(io.StringIO(text)) if fmt == "csv" else pd.read_json(io.StringIO(text)))
        assert set(rows["dataset"]) == {"Game of 24, tasks 900-999 (Tree of Thoughts, Table 2)"}, fmt


def test_aisbench_stand_in_note_and_the_pass_k_legend_follow_the_tables_dataset_rule():
    """aisbench_summary's note on posterior means standing in named 'a pass@4' when the table held that row on two
    datasets; the HTML pass@k figure's legend put a one-dataset input's long name before every model."""
    pytest.importorskip("matplotlib")
    from bayeseval.io import OutcomeSet
    from bayeseval.report import html

    two = np.array([[1, 0], [1, 1], [0, 0], [0, 1]])  # 2 trials: pass@4 undefined, its posterior mean stands in
    eight = np.tile(np.array([[1, 0, 1, 1, 0, 0, 1, 0]]), (4, 1))
    both = OutcomeSet.from_arrays({"a": two}, dataset="math").merge(
        OutcomeSet.from_arrays({"a": eight}, dataset="code"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = be.evaluate(both, ["pass@4"])
        one = be.evaluate(OutcomeSet.from_arrays({"a": eight, "b": eight[::-1]}, dataset="Long dataset name"),
                          ["pass@1", "pass@2", "pass@4"])
    assert tables.aisbench_summary(ev, style="markdown").rstrip().endswith(
        "Posterior mean where the sample estimate is undefined (k > n for some question): math: a pass@4.")
    fig = html._pass_k_figure(list(one), percent=True)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["a", "b"]
