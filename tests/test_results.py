"""The user-facing layer: :class:`bayeseval.Estimate`, :func:`bayeseval.evaluate`, tables and ArviZ export.

Numbers are checked against independent computations (closed forms, the
published Game of 24 results, Monte Carlo errors of the exported draws);
bad input must raise ``ValueError`` / ``TypeError`` naming the argument.
"""

from __future__ import annotations

import json
import math
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

import bayeseval as B
from bayeseval import to_counts
from bayeseval.io import read_outcomes

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "tot_game24.json"
Z = 4.0

RNG = np.random.default_rng(42)
R = (RNG.random((30, 8)) < RNG.beta(2, 3, (30, 1))).astype(int)
R2 = (RNG.random((30, 8)) < RNG.beta(3, 2, (30, 1))).astype(int)
RC = RNG.integers(0, 3, (10, 5))
W = np.array([0.0, 0.5, 1.0])
R0 = RNG.integers(0, 3, (10, 2))


# ----------------------------------------------------------------------------- Estimate
def test_estimate_fields_and_types():
    est = B.estimate(R, "pass@4", scope="benchmark", prior="uniform", interval="exact", level=0.9, model="m")
    assert isinstance(est, B.Estimate)
    for name in ("value", "mean", "sd", "lo", "hi", "level"):
        assert isinstance(getattr(est, name), float), name
        assert math.isfinite(getattr(est, name))
    assert est.level == 0.9
    assert est.scope == "benchmark" and est.prior == "uniform" and est.metric == "pass@4" and est.model == "m"
    assert isinstance(est.M, int) and est.M == 30 and est.N == 8
    assert isinstance(est.miller_se, float) and est.miller_se > 0
    assert est.draws_n == 4000 and isinstance(est.seed, int)
    assert est.sd > 0 and est.lo <= est.mean <= est.hi
    assert 0.0 <= est.lo <= est.hi <= 1.0
    ragged = B.estimate(to_counts([[1, 0, 1], [1, 1, 0, 0, 1]], ragged=True), "avg")
    assert ragged.N == (3, 5) and ragged.M == 2


def test_interval_is_a_string_and_confidence_interval_recomputes():
    est = B.estimate(R, "pass@2", scope="population", prior="uniform", interval="exact")
    assert est.interval == "exact" and type(est.interval) is str
    assert est.confidence_interval() == (est.lo, est.hi)
    lo90, hi90 = est.confidence_interval(0.9)
    assert est.lo <= lo90 <= hi90 <= est.hi and (hi90 - lo90) < (est.hi - est.lo)
    # the normal interval written out: mean +- z sd, z = Phi^-1(0.975), clipped to [0, 1]
    from scipy.stats import norm

    z = norm.ppf(0.975)
    np.testing.assert_allclose(est.confidence_interval(method="normal"),
                               (max(est.mean - z * est.sd, 0.0), min(est.mean + z * est.sd, 1.0)), rtol=1e-12)
    normal = B.estimate(R, "pass@2", scope="population", prior="uniform", interval="normal")
    assert normal.interval == "normal"
    np.testing.assert_allclose(est.confidence_interval(method="normal"), (normal.lo, normal.hi), rtol=1e-12)
    hdi_a, hdi_b = est.confidence_interval(method="hdi"), est.confidence_interval(0.95, "hdi")
    assert hdi_a == hdi_b
    hdi = B.estimate(R, "pass@2", scope="population", prior="uniform", interval="hdi")
    np.testing.assert_allclose(hdi_a, (hdi.lo, hdi.hi), rtol=1e-12)  # same seed, same draws
    assert hdi_a[1] - hdi_a[0] <= est.hi - est.lo + 1e-12
    with pytest.raises(ValueError, match="method"):
        est.confidence_interval(0.9, "wald")
    with pytest.raises(ValueError, match="level"):
        est.confidence_interval(1.5)


@pytest.mark.parametrize("scope", ["benchmark", "population"])
@pytest.mark.parametrize("prior", [None, "uniform"])
@pytest.mark.parametrize("method", ["normal", "exact", "hdi"])
def test_interval_inside_metric_range(scope, prior, method):
    for data, metric, kw, rng_ in (
        (R, "pass@8", {}, (0, 1)),
        (np.ones((5, 4), int), "avg", {}, (0, 1)),
        (np.zeros((5, 4), int), "pass^2", {}, (0, 1)),
        (R, [0.0, 2.0, -1.0], {}, (-1, 2)),
        (RC, "bayes", {"w": [1.0, 3.0, 2.0]}, (1, 3)),
    ):
        if prior is not None and isinstance(kw.get("w"), list):
            continue
        est = B.estimate(data, metric, scope=scope, prior=prior, interval=method, **kw)
        assert rng_[0] <= est.lo <= est.hi <= rng_[1], (metric, est)
        assert rng_[0] <= est.mean <= rng_[1]


def test_to_dict_json_and_repr():
    est = B.estimate(R, "maj@3", scope="benchmark", model="gpt")
    d = est.to_dict()
    text = json.dumps(d)
    assert json.loads(text) == d and json.loads(est.to_json()) == d
    assert d["scope"] == "benchmark" and d["interval"] == "exact" and d["prior"] == "robust"
    assert d["metric"] == "maj@3" and d["model"] == "gpt" and d["M"] == 30 and d["N"] == 8
    for key in ("value", "mean", "sd", "lo", "hi", "level", "miller_se"):
        assert type(d[key]) is float, key
    ragged = B.estimate(to_counts([[1, 0], [1, 1, 0]], ragged=True), "pass@3", prior="uniform")
    d = ragged.to_dict()
    json.dumps(d)
    assert d["value"] is None and d["miller_se"] is None and d["N"] == [2, 3]
    r = repr(est)
    assert "scope=benchmark" in r and "maj@3" in r and "gpt" in r
    h = est._repr_html_()
    assert "benchmark" in h and "<table" in h
    assert "population" in repr(B.estimate(R, "avg")) and "population" in B.estimate(R, "avg")._repr_html_()


# ----------------------------------------------------------------------------- evaluate
FRAME_COLUMNS = ["model", "metric", "value", "mean", "sd", "lo", "hi", "level", "scope", "interval", "prior", "M", "N",
                 "miller_se"]


def test_evaluate_dict_input():
    ev = B.evaluate({"a": R, "b": R2}, ["avg", "pass@4", ("g-pass@4", {"tau": 0.5})], scope="benchmark",
                    prior="uniform", interval="normal")
    assert isinstance(ev, B.Evaluation) and len(ev) == 6
    ests = list(ev)
    assert all(isinstance(e, B.Estimate) for e in ests)
    assert [(e.model, e.metric) for e in ests] == [
        (m, x) for m in ("a", "b") for x in ("avg", "pass@4", "g-pass@4 (tau=0.5)")
    ]
    np.testing.assert_allclose(ev["b", "pass@4"].mean, B.pass_at_k_ci(R2, 4)[0], rtol=1e-12)
    np.testing.assert_allclose(ev["a", "g-pass@4 (tau=0.5)"].mean, B.g_pass_at_k_tau_ci(R, 4, 0.5)[0], rtol=1e-12)
    assert ev[0] is ests[0]
    with pytest.raises(KeyError):
        ev["c", "avg"]
    df = ev.to_frame()
    assert isinstance(df, pd.DataFrame) and len(df) == 6
    assert set(FRAME_COLUMNS) <= set(df.columns)
    assert df["scope"].eq("benchmark").all() and df["interval"].eq("normal").all() and df["prior"].eq("uniform").all()
    np.testing.assert_allclose(df["mean"].to_numpy(), [e.mean for e in ests])
    text = repr(ev)
    assert "benchmark" in text and "pass@4" in text and text.count("\n") >= 7
    assert "benchmark" in ev._repr_html_()


def test_evaluate_single_matrix_and_single_metric():
    ev = B.evaluate(R, "pass@2")
    assert len(ev) == 1
    e = ev[0]
    assert e.metric == "pass@2" and e.model is None
    assert ev[None, "pass@2"] is e
    ref = B.estimate(R, "pass@2")
    assert (e.mean, e.sd, e.lo, e.hi) == (ref.mean, ref.sd, ref.lo, ref.hi)


def test_evaluate_outcome_file_and_published_game24_numbers(game24):
    ev = B.evaluate(game24, ["avg", "pass@1", "pass@10", "pass@100"])
    assert len(ev) == 8
    assert {e.model for e in ev} == {"gpt-4 IO", "gpt-4 CoT"}
    e = ev["gpt-4 IO", "pass@10"]
    assert e.M == 100 and e.N == 100 and e.metric == "pass@10"
    # Yao et al. 2023, Table 2: IO 7.3% / best-of-100 33%; CoT 4.0% / 49%
    assert round(ev["gpt-4 IO", "pass@1"].value, 4) == 0.0734
    assert round(ev["gpt-4 IO", "avg"].value, 4) == 0.0734
    assert ev["gpt-4 IO", "pass@100"].value == pytest.approx(0.33, abs=1e-12)
    assert round(ev["gpt-4 CoT", "pass@1"].value, 4) == 0.0403
    assert ev["gpt-4 CoT", "pass@100"].value == pytest.approx(0.49, abs=1e-12)
    # independently: pass@1 is the mean success rate of the raw matrix
    mat = game24.matrix("gpt-4 IO")
    assert ev["gpt-4 IO", "pass@1"].value == pytest.approx(np.nanmean(mat), abs=1e-12)
    for e in ev:
        assert e.lo <= e.mean <= e.hi and e.scope == "population"
    df = ev.to_frame()
    assert set(FRAME_COLUMNS) <= set(df.columns)
    assert df.set_index(["model", "metric"]).loc[("gpt-4 CoT", "pass@100"), "value"] == pytest.approx(0.49)


def test_metric_label_is_the_requested_name():
    """An estimate is looked up by the name it was asked for; max@k of 0/1 outcomes equals pass@k
    numerically but is still the max@k the user requested."""
    ev = B.evaluate({"a": R}, ["max@3", "pass@3"], prior="uniform", interval="normal")
    assert ev["a", "max@3"].mean == pytest.approx(ev["a", "pass@3"].mean, rel=1e-12)
    assert ev["a", "max@3"].value == pytest.approx(B.pass_at_k(R, 3), rel=1e-12)


# ----------------------------------------------------------------------------- ArviZ
def test_to_inference_data_structure_and_summary():
    az = pytest.importorskip("arviz")
    ev = B.evaluate({"a": R, "b": R2}, ["avg", "pass@4"], scope="benchmark")
    n = 3000
    idata = ev.to_inference_data(n=n, seed=7)
    post = idata.posterior
    assert set(post.data_vars) == {"avg", "pass@4"}
    for var in ("avg", "pass@4"):
        assert post[var].dims == ("chain", "draw", "model")
        assert post[var].shape == (1, n, 2)
        assert list(post[var].coords["model"].values) == ["a", "b"]
        assert np.isfinite(post[var].values).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = az.summary(idata, kind="stats", round_to="none")
        s_default = az.summary(idata)
    assert len(s) == 4 and len(s_default) == 4
    assert set(s.index) == {"avg[a]", "avg[b]", "pass@4[a]", "pass@4[b]"}
    for e in ev:
        row = s.loc[f"{e.metric}[{e.model}]"]
        assert abs(row["mean"] - e.mean) <= Z * e.sd / math.sqrt(n), (e.metric, e.model, row["mean"], e.mean)
        assert abs(row["sd"] - e.sd) <= Z * e.sd / math.sqrt(2 * (n - 1)) * 1.5, (row["sd"], e.sd)
    # seeded: the same export twice is identical
    again = ev.to_inference_data(n=n, seed=7)
    np.testing.assert_array_equal(again.posterior["avg"].values, post["avg"].values)


def test_single_estimate_to_inference_data_and_plot():
    az = pytest.importorskip("arviz")
    import matplotlib.pyplot as plt

    est = B.estimate(R, "pass@3", model="m")
    idata = est.to_inference_data(n=500, seed=1)
    assert list(idata.posterior["pass@3"].coords["model"].values) == ["m"]
    assert idata.posterior["pass@3"].shape == (1, 500, 1)
    ev = B.evaluate({"a": R, "b": R2}, ["avg", "pass@4"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        axes = az.plot_posterior(ev.to_inference_data(n=400, seed=2))
    assert np.size(axes) == 4
    plt.close("all")


# ----------------------------------------------------------------------------- bad input
def _raises(exc, match, fn):
    with pytest.raises(exc, match=match):
        fn()


@pytest.mark.parametrize("kwargs,match", [
    ({"scope": "pop"}, "scope"),
    ({"scope": None}, "scope"),
    ({"interval": "wald"}, "interval"),
    ({"level": 0}, "level"),
    ({"level": 1}, "level"),
    ({"level": 1.5}, "level"),
    ({"draws": 50}, "draws"),
    ({"seed": -1}, "seed"),
    ({"prior": "flat"}, "prior"),
    ({"prior": "uniform", "alpha0": 2.0}, "prior"),
    ({"prior": "uniform", "R0": np.zeros((30, 2), int)}, "R0"),
    ({"alpha0": -1.0}, "alpha0"),
])
def test_bad_estimate_arguments_value_error(kwargs, match):
    _raises(ValueError, match, lambda: B.estimate(R, "avg", **kwargs))


@pytest.mark.parametrize("kwargs,match", [({"level": "x"}, "level"), ({"draws": 1000.5}, "draws"), ({"prior": 3}, "prior"),
                                          ({"seed": 1.5}, "seed")])
def test_bad_estimate_arguments_type_error(kwargs, match):
    _raises(TypeError, match, lambda: B.estimate(R, "avg", **kwargs))


@pytest.mark.parametrize("metric,kwargs,match", [
    ("bayes", {"prior": "jeffreys"}, "prior"),
    ("foo@3", {}, "metric"),
    ("pass@k", {}, "k"),
    ("pass@8", {"k": 3}, "k"),
    ("pass@3", {"tau": 0.5}, "tau"),
    ("avg", {"k": 3}, "k"),
    ("geospectrum@4", {"lam": 1.5}, "lam"),
])
def test_bad_metric_arguments(metric, kwargs, match):
    _raises(ValueError, match, lambda: B.estimate(R, metric, **kwargs))


def test_categorical_data_with_binary_metric_and_bad_w():
    _raises(ValueError, "R", lambda: B.estimate(RC, "pass@2"))
    _raises(ValueError, "w", lambda: B.estimate(RC, "bayes", w=[0.0, 1.0]))
    _raises(ValueError, "w", lambda: B.estimate(RC, "max@2", w=[0.0, 1.0]))
    _raises(ValueError, "R0", lambda: B.estimate(RC, "bayes", w=W, R0=np.zeros((3, 2), int)))
    _raises(ValueError, "prior", lambda: B.estimate(RC, "avg", w=W, prior="hierarchical"))


def test_bad_draws_arguments():
    est = B.estimate(R, "avg")
    _raises(ValueError, "n", lambda: est.draws(0))
    _raises(ValueError, "seed", lambda: est.draws(10, seed=-3))
    _raises(ValueError, "models", lambda: B.evaluate({}, ["avg"]))


# ----------------------------------------------------------------------------- inputs untouched
def test_inputs_not_modified():
    Rb, Rcat, w, r0 = R.copy(), RC.copy(), W.copy(), R0.copy()
    B.estimate(Rb, "pass@3", scope="benchmark", interval="hdi")
    B.estimate(Rb, "geospectrum@4", prior="uniform", interval="exact")
    B.estimate(Rcat, "bayes", w=w, R0=r0, interval="exact")
    B.estimate(Rcat, "max@3", w=w, R0=r0, scope="benchmark", interval="hdi")
    ev = B.evaluate({"x": Rcat}, ["bayes", "max@2"], w=w, R0=r0)
    ev.to_inference_data(n=200)
    np.testing.assert_array_equal(Rb, R)
    np.testing.assert_array_equal(Rcat, RC)
    np.testing.assert_array_equal(w, W)
    np.testing.assert_array_equal(r0, R0)
    frame = pd.DataFrame(R.copy())
    B.estimate(frame, "pass@2")
    pd.testing.assert_frame_equal(frame, pd.DataFrame(R))
    lists = R.tolist()
    B.estimate(lists, "avg", prior="uniform")
    assert lists == R.tolist()


def test_exports_keep_models_independent_datasets_apart_and_say_what_the_intervals_are():
    """A review of the notebook exports: every estimate drew from the same default seed, so two models' draws were
    perfectly correlated (P(B > A) = 1.0 from the InferenceData where compare gives 0.67); several datasets
    overwrote each other in to_inference_data; to_xarray kept no level or scope and overwrote a cell given twice."""
    pytest.importorskip("arviz")
    import pandas as pd

    rng = np.random.default_rng(0)
    R1, R2 = (rng.random((40, 4)) < 0.5).astype(int), (rng.random((40, 4)) < 0.55).astype(int)
    ev = B.evaluate({"A": R1, "B": R2}, ["avg", "pass@2"], scope="benchmark")
    post = ev.to_inference_data(n=4000).posterior
    a, b = (post["avg"].sel(model=m).values.ravel() for m in ("A", "B"))
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.1  # independent models (was 1.0)
    same_model = post["pass@2"].sel(model="A").values.ravel()
    assert abs(np.corrcoef(a, same_model)[0, 1]) > 0.5  # one model's metrics: one stream
    assert abs((b > a).mean() - B.compare(R2, R1, scope="benchmark").p_a_better) < 0.05
    rows = [{"dataset": d, "model": m, "question": q, "trial": t, "score": int(rng.random() < p)}
            for d, p in (("math", 0.3), ("code", 0.7)) for m in ("A", "B") for q in range(30) for t in range(3)]
    two = B.evaluate(B.io.from_long(pd.DataFrame(rows)), ["avg"])
    idata = two.to_inference_data(n=500, seed=3)
    assert idata.posterior["avg"].dims == ("chain", "draw", "dataset", "model")
    for e in two:
        got = float(idata.posterior["avg"].sel(dataset=e.dataset, model=e.model).mean())
        assert abs(got - e.mean) < 4 * e.sd / math.sqrt(500)  # math ~0.3 and code ~0.7 both kept
    x = ev.to_xarray()
    assert x.attrs["level"] == 0.95 and x.attrs["scope"] == "benchmark" and x.attrs["prior"] == "robust"
    mixed = B.Evaluation(list(ev) + list(B.evaluate({"A": R1}, ["avg"], scope="population")))
    for export in (mixed.to_xarray, mixed.to_inference_data):
        with pytest.raises(ValueError, match="dataset '-', model 'A', metric 'avg' appears twice"):
            export()
    levels = B.Evaluation(list(B.evaluate({"A": R1}, ["avg"])) + list(B.evaluate({"B": R2}, ["avg"], level=0.9)))
    assert json.loads(levels.to_xarray().attrs["level"]) == {"avg": [0.95, 0.9]}


def test_model_check_warnings_point_at_the_callers_line():
    """evaluate's warnings pointed into the library (results.py, the line of its own estimate call)."""
    data = B.load(Path(__file__).resolve().parent.parent / "examples" / "data" / "tot_game24.json")
    with pytest.warns(B.ModelCheckWarning) as got:
        B.evaluate(data, ["pass^10"])
    with pytest.warns(B.ModelCheckWarning) as direct:
        B.estimate(data.counts("gpt-4 IO"), "pass^10")
    assert {Path(w.filename).name for w in list(got) + list(direct)} == {"test_results.py"}
