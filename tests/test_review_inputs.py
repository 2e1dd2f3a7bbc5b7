"""Inputs an adversarial review found handled without a word: each now warns or is refused, naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

import bayeseval as be
from bayeseval.sequential.allocation import trial_values


def test_a_prior_that_pins_the_mean_still_warns():
    """prior=[1e20, 1e20]: sd 0, interval [0.5, 0.5] around a value of 0.1, and the pull check returned early on
    sd 0, so the most extreme pull had no warning (1e15 had one)."""
    R = np.eye(10, 3, dtype=int)
    with pytest.warns(be.ModelCheckWarning, match="its posterior sd is 0: the prior alone decides it"):
        e = be.estimate(R, prior=[1e20, 1e20], scope="benchmark")
    assert e.sd == 0.0 and e.mean == pytest.approx(0.5) and e.value == pytest.approx(0.1)
    with pytest.warns(be.ModelCheckWarning, match=r"is [0-9.]+ posterior sd from the unbiased estimate"):
        be.estimate(R, prior=[1e6, 1e6], scope="benchmark")  # a finite sd: the distance in sds, as before


def test_allocation_needs_a_model():
    with pytest.raises(ValueError, match="models must name at least one model's outcomes"):
        trial_values({}, "avg")  # was pandas' 'No objects to concatenate'


@pytest.mark.parametrize("column", ["question_id", "id", "Task_ID", "model"])
def test_a_dataframe_column_of_ids_is_not_read_as_a_trial(column):
    """{"question_id": [0, 1], "t0": [0, 0], "t1": [0, 0]} gave avg = 0.1667 (the ids read as a third trial)."""
    import pandas as pd

    df = pd.DataFrame({column: [0, 1], "t0": [0, 0], "t1": [0, 0]})
    with pytest.raises(ValueError, match=f"column '{column}' looks like question ids or model names, not a trial"):
        be.estimate(df)
    assert be.estimate(df.set_index(column), scope="benchmark").value == 0.0  # as the message says


def test_the_service_reads_question_ids_as_the_file_loaders_do():
    """"ids": ["", "b"] was accepted and ["a ", "a"] read as two questions; every file loader strips the spaces
    around an id and refuses a blank one, so the same data over HTTP and from a CSV could pair differently."""
    from fastapi.testclient import TestClient

    from bayeseval.service import create_app

    body = {"models": {"m": {"matrix": [[1, 0], [0, 1]], "ids": None}}, "metrics": ["avg"]}
    with TestClient(create_app()) as c:
        body["models"]["m"]["ids"] = ["", "b"]
        r = c.post("/v1/metrics", json=body)
        assert r.status_code == 422 and r.json()["error"]["field"] == "models.m.ids[0]"
        body["models"]["m"]["ids"] = ["a ", "a"]
        r = c.post("/v1/metrics", json=body)
        assert r.status_code == 422 and "ids must be unique" in r.json()["error"]["message"]
        body["models"]["m"]["ids"] = [" a", "b"]
        assert c.post("/v1/metrics", json=body).status_code == 200


def test_a_vanishing_prior_leaks_no_numpy_warning():
    """prior=[1e-100, 1e-100] printed 'RuntimeWarning: divide by zero encountered in log1p' twice (a weight of
    exactly 0 in the beta-binomial table); the numbers were right: each question with 1 of 3 has pass@2 posterior
    mean 2 E[p] - E[p^2] = 2/3 - 1/6, each with none about 0."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", be.ModelCheckWarning)
        e = be.estimate(np.eye(10, 3, dtype=int), "pass@2", prior=[1e-100, 1e-100])
    assert e.mean == pytest.approx(3 * 0.5 / 10, rel=1e-9)


def test_what_a_review_of_the_day_found():
    """Score DataFrames read an id column as a trial; avg@n took a threshold at the top of [0, 1]; max@k's error
    variance overflowed for weights of 1e77 and up (the degrees of freedom became NaN, the t a normal) and divided by
    a zero-width range for equal weights; the threshold hint suggested -0.2 on (0, 0.3)."""
    import pandas as pd

    ds = pd.DataFrame({"question_id": [0, 1], "t0": [0.31, 0.52], "t1": [0.15, 0.26]})
    for kw in ({}, {"threshold": 0.2}, {"score_range": (0, 5)}):
        with pytest.raises(ValueError, match="column 'question_id' looks like question ids"):
            be.estimate(ds, "avg", **kw)
    with pytest.raises(ValueError, match="no score lies above 1, the top of the range"):
        be.estimate(np.random.default_rng(0).random((50, 4)), "avg@n", threshold=1.0)
    with pytest.raises(ValueError, match=r"give a threshold below 0.3$"):
        be.estimate(np.random.default_rng(0).random((50, 4)) * 0.3, "pass@2", threshold=0.3, score_range=(0, 0.3))
    rng = np.random.default_rng(0)
    G = rng.integers(0, 3, (20, 6)).astype(float)
    base = be.estimate(G, "max@2", w=[0, 0.5, 1], scope="benchmark")
    for s in (1e80, 1e99):
        big = be.estimate(G, "max@2", w=np.array([0, 0.5, 1]) * s, scope="benchmark")
        assert (big.lo / s, big.hi / s, big.sd / s) == pytest.approx((base.lo, base.hi, base.sd), rel=1e-12)
    with pytest.raises(ValueError, match="w: max@k's interval is computed in the weights' units"):
        be.estimate(G, "max@2", w=np.array([0, 0.5, 1]) * 1e200)
    G[0, 2:] = np.nan  # one question with exactly k = 2 trials, every weight 1: max@2 is 1, with no spread
    for interval in ("normal", "exact", "hdi"):
        e = be.estimate(G, "max@2", w=[1, 1, 1], missing=np.nan, scope="benchmark", interval=interval)
        assert (e.value, e.lo, e.hi) == (1.0, 1.0, 1.0)


def test_a_huge_budget_is_refused_in_one_short_line(capsys):
    """--budget 1e308 printed all 307 digits of the trials per question in its error."""
    from pathlib import Path

    from bayeseval.cli import main

    data = Path(__file__).resolve().parents[1] / "examples" / "data" / "tau_bench_airline.json"
    assert main(["allocate", str(data), "--budget", "1e308"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "gives 2e+306 trials per question; at most 20000" in err and len(err) < 200
