"""One result protocol: every result object offers summary(), to_dict(), to_json(), a numeric
to_frame(), an HTML repr, and confidence_interval() where an interval exists."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bayeseval as be


def _data(seed, M=80, N=4, shift=0.0):
    rng = np.random.default_rng(seed)
    p = np.clip(rng.beta(1.2, 1.2, M) + shift, 0, 1)
    return (rng.random((M, N)) < p[:, None]).astype(int)


A, B, C = _data(1), _data(2, shift=0.1), _data(3, shift=0.05)


def _results():
    est = be.estimate(A, "pass@2", seed=1)
    ev = be.evaluate({"a": A, "b": B}, ["avg", "pass@2"], seed=1)
    cmp_ = be.compare(A, B, seed=1, resamples=500)
    rk = be.compare_all({"a": A, "b": B, "c": C}, seed=1, resamples=500)
    pl = be.plan(A, B)
    return {"Estimate": est, "Evaluation": ev, "Comparison": cmp_, "Ranking": rk, "Plan": pl}


RESULTS = _results()


@pytest.mark.parametrize("name", list(RESULTS))
def test_summary_dict_json_frame_html(name):
    res = RESULTS[name]
    text = res.summary()
    assert isinstance(text, str) and len(text.splitlines()) >= 2
    d = res.to_dict()
    assert json.loads(res.to_json()) == json.loads(json.dumps(d))
    df = res.to_frame()
    assert isinstance(df, pd.DataFrame) and len(df) >= 1
    numeric = df.select_dtypes("number")
    assert numeric.shape[1] >= 3  # numbers stay numbers: formatting lives in summary()
    assert "<" in res._repr_html_()


def test_confidence_intervals_follow_the_protocol():
    est, ev, cmp_, rk = (RESULTS[k] for k in ("Estimate", "Evaluation", "Comparison", "Ranking"))
    assert est.confidence_interval() == (est.lo, est.hi)
    lo, hi = est.confidence_interval(0.5)
    assert est.lo < lo < hi < est.hi
    assert ev.confidence_interval() == [(e.lo, e.hi) for e in ev]
    assert cmp_.confidence_interval() == (cmp_.delta.lo, cmp_.delta.hi)
    lo, hi = cmp_.confidence_interval(0.5)
    assert cmp_.delta.lo < lo < hi < cmp_.delta.hi
    # the draws behind P(A > B) give the same 50% interval
    np.testing.assert_allclose((lo, hi), np.quantile(cmp_.draws(), [0.25, 0.75]))
    assert rk.confidence_interval(model="b") == (rk.scores["b"].lo, rk.scores["b"].hi)
    assert set(rk.confidence_interval()) == {"a", "b", "c"}


def test_tests_say_what_they_test():
    cmp_ = be.compare(A, B, metric="pass@2", seed=1, resamples=500)
    tests = cmp_.tests()
    assert set(tests) >= {"bootstrap", "permutation", "mcnemar", "t_test", "wilcoxon"}
    assert "pass@2" in tests["permutation"].tests and "pass@2" in tests["bootstrap"].tests
    assert "avg" in tests["mcnemar"].tests  # McNemar is about per-trial correctness, and says so
    for t in tests.values():
        assert 0 <= t.p_value <= 1 and t["p_value"] == t.p_value


def test_evaluation_selects_by_label():
    ev = RESULTS["Evaluation"]
    assert len(ev.sel(model="a")) == 2 and ev.sel(metric="pass@2").models == ["a", "b"]
    e = ev.sel(model="b", metric="avg").item()
    assert e is ev["b", "avg"] and e.model == "b" and e.metric == "avg"
    with pytest.raises(ValueError, match="exactly one"):
        ev.sel(model="a").item()
    xr = pytest.importorskip("xarray")
    ds = ev.to_xarray()
    assert isinstance(ds, xr.Dataset) and dict(ds.sizes) == {"dataset": 1, "model": 2, "metric": 2}
    assert float(ds["mean"].sel(model="b", metric="avg").item()) == e.mean


def test_labels_name_models_the_same_way_everywhere():
    e = be.estimate(A, labels="mine")
    assert e.model == "mine"
    ev = be.evaluate([A, B], ["avg"], labels=["x", "y"])
    assert ev.models == ["x", "y"]
    with pytest.raises(ValueError, match="labels"):
        be.evaluate([A, B], ["avg"], labels=["x"])
    c = be.compare(A, B, labels=("new", "old"), resamples=200)
    assert c.names == ("new", "old") and set(c.estimates) == {"new", "old"}
    with pytest.raises(TypeError, match="labels"):
        be.estimate(A, labels=3)


def test_estimate_takes_missing_and_ragged():
    R = A.astype(float)
    R[0, 1] = np.nan
    e = be.estimate(R, "avg", missing=np.nan, prior="uniform", scope="benchmark")
    assert e.N == (3, 4) and e.value == pytest.approx(np.nanmean(R, axis=1).mean())
    rows = [[1, 0, 1], [0, 1], [1]]
    e2 = be.estimate(rows, "avg", ragged=True, prior="uniform")
    assert e2.N == (1, 3) and e2.value == pytest.approx((2 / 3 + 1 / 2 + 1) / 3)
