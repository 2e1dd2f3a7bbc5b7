"""A threshold on scores (a trial counts as correct when its score is above it) in every front end: the library
had threshold=, and its error for pass@k on scores pointed at it, but the command line and the service had no way
to give one.  Each front end is checked against the library on the same scores."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import bayeseval as be
from bayeseval.cli import main
from bayeseval.sequential import SequentialCompare, question_values

TOT = Path(__file__).resolve().parents[1] / "examples" / "data" / "tot_text.json"


def _scores(model: str) -> np.ndarray:
    return be.load(TOT, score_range=(1, 10)).run(model).matrix


def test_the_command_line_reads_scores_above_the_threshold_as_correct(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["report", str(TOT), "--scores", "1,10", "--threshold", "7", "--metrics", "avg,pass@2",
                 "--format", "json", "-o", str(out)]) == 0
    assert "--threshold 7: a trial whose score is above it counts as correct" in capsys.readouterr().err
    rows = {(r["model"], r["metric"]): r for r in json.loads(out.read_text())}
    for model in ("gpt-4 IO", "gpt-4 CoT"):
        S = _scores(model)
        ref = be.estimate(S, "pass@2", threshold=7, score_range=(1, 10), missing=np.nan)
        got = rows[model, "pass@2 (threshold=7)"]  # named with its threshold, as the library names it
        assert got["value"] == pytest.approx(ref.value, abs=1e-12)
        assert (got["lo"], got["hi"]) == pytest.approx((ref.lo, ref.hi), abs=1e-9)
        correct = np.where(np.isnan(S), np.nan, S > 7)  # the mean over questions of each one's share correct
        mean = np.mean(np.nanmean(correct, axis=1))
        assert rows[model, "avg (threshold=7)"]["value"] == pytest.approx(mean, abs=1e-12)
    assert main(["report", str(TOT), "--scores", "1,10", "--threshold", "7", "--metrics", "avg@n,avg",
                 "--format", "json", "-o", str(out)]) == 0  # avg@n of the binarised runs, named so
    got = {(r["model"], r["metric"]): r["value"] for r in json.loads(out.read_text())}
    assert {m for _, m in got} == {"avg@n (threshold=7)", "avg (threshold=7)"}
    for model in ("gpt-4 IO", "gpt-4 CoT"):
        assert got[model, "avg@n (threshold=7)"] == pytest.approx(got[model, "avg (threshold=7)"], abs=1e-12)
    cmp = tmp_path / "c.json"
    assert main(["compare", "--data", str(TOT), "gpt-4 IO", "gpt-4 CoT", "--scores", "1,10", "--threshold", "7",
                 "--metric", "pass@2", "--format", "json", "-o", str(cmp)]) == 0
    ref = be.compare(_scores("gpt-4 IO"), _scores("gpt-4 CoT"), metric="pass@2", threshold=7, score_range=(1, 10),
                     missing=np.nan, names=("gpt-4 IO", "gpt-4 CoT"))
    got = json.loads(cmp.read_text())[0]
    assert got["delta"]["mean"] == pytest.approx(ref.delta.mean, abs=1e-12) and got["verdict"] == ref.verdict


@pytest.mark.parametrize("argv, message", [
    (["--threshold", "7"], "bayeseval: error: --threshold counts a score above it as correct; Creative writing, "
                           "tasks 0-99 (Tree of Thoughts, Fig. 5a)/gpt-4 IO holds graded categories, not scores: "
                           "read them as scores first (--scores)"),
    (["--scores", "1,10", "--threshold", "70"], "bayeseval: error: --threshold must lie in [1, 10], got 70.0"),
    (["--scores", "1,10", "--metrics", "pass@2"], "bayeseval: error: gpt-4 IO, pass@2: pass@2 needs 0/1 outcomes; "
                                                   "these are scores in [1, 10] (a value that is not 0 or 1, or "
                                                   "--scores was given): use metric avg for the mean score, or "
                                                   "give --threshold t to count a trial correct when its score > t"),
])
def test_threshold_errors_name_the_options(capsys, argv, message):
    assert main(["report", str(TOT), *argv]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == message


def test_the_service_takes_a_threshold_in_the_metric():
    from fastapi.testclient import TestClient

    from bayeseval.service import create_app

    rng = np.random.default_rng(0)
    S, T = rng.random((20, 3)).round(3), rng.random((20, 3)).round(3)
    metric = {"name": "pass@k", "k": 2, "threshold": 0.5}
    with TestClient(create_app()) as c:
        r = c.post("/v1/metrics", json={"models": {"a": {"scores": S.tolist()}}, "metrics": ["avg", metric]}).json()
        got = {e["metric"]: e for e in r["estimates"]}
        ref = be.estimate(S, "pass@2", threshold=0.5, score_range=(0, 1))
        assert got["pass@2 (threshold=0.5)"]["value"] == pytest.approx(ref.value)
        assert got["pass@2 (threshold=0.5)"]["hi"] == pytest.approx(ref.hi) and got["avg"]["value"] == pytest.approx(S.mean())
        pair = {"a": {"scores": S.tolist()}, "b": {"scores": T.tolist()}, "metric": metric}
        ref = be.compare(S, T, metric="pass@2", threshold=0.5, score_range=(0, 1))
        assert c.post("/v1/compare", json=pair).json()["p_a_better"] == pytest.approx(ref.p_a_better)
        ranked = c.post("/v1/rank", json={"models": {"a": pair["a"], "b": pair["b"], "c": pair["a"]},
                                          "metric": metric}).json()
        ref = be.compare_all({"a": S, "b": T, "c": S}, metric="pass@2", threshold=0.5, score_range=(0, 1))
        assert {m["model"]: m["p_best"] for m in ranked["models"]} == pytest.approx(ref.p_best)
        got = c.post("/v1/monitor", json=pair).json()  # the same as monitoring the 0/1 outcomes above 0.5
        plain = c.post("/v1/monitor", json={"a": {"matrix": (S > 0.5).astype(int).tolist()},
                                            "b": {"matrix": (T > 0.5).astype(int).tolist()}, "metric": "pass@2"}).json()
        assert got["questions"] == 20 and (got["lower"], got["upper"]) == pytest.approx((plain["lower"],
                                                                                           plain["upper"]))
        for bad, field in (({**pair, "b": {"scores": T.tolist(), "range": [0, 2]}}, "b"),
                           ({**pair, "metric": {**metric, "threshold": True}}, "metric.threshold")):
            r = c.post("/v1/compare", json=bad)  # scores on two ranges stay refused; true is no threshold
            assert r.status_code == 422 and r.json()["error"]["field"] == field, r.text
        bad = c.post("/v1/metrics", json={"models": {"a": {"matrix": [[0, 1], [1, 1]]}},
                                          "metrics": ["avg", metric]})
        assert bad.status_code == 422 and bad.json()["error"]["field"] == "metrics[1]"
        assert bad.json()["error"]["message"].startswith("metrics[1].threshold counts a trial correct when its score "
                                                         "is above it; models.a gives outcomes, not scores")


def test_comparisons_name_the_threshold_as_estimates_do():
    """compare and compare_all with threshold= labelled the metric 'pass@2', which estimate calls
    'pass@2 (threshold=0.5)'; the numbers are those of the binarised outcomes."""
    rng = np.random.default_rng(0)
    S, T = rng.random((20, 3)), rng.random((20, 3))
    c = be.compare(S, T, metric="pass@2", threshold=0.5, score_range=(0, 1))
    assert c.metric == "pass@2 (threshold=0.5)" and {e.metric for e in c.estimates.values()} == {c.metric}
    plain = be.compare((S > 0.5).astype(int), (T > 0.5).astype(int), metric="pass@2")
    assert c.p_a_better == plain.p_a_better and c.delta.mean == plain.delta.mean
    r = be.compare_all({"a": S, "b": T, "c": S}, metric="pass@2", threshold=0.5, score_range=(0, 1))
    assert r.metric == "pass@2 (threshold=0.5)" and r.scores["a"].metric == r.metric


def test_the_command_line_names_the_threshold_in_what_it_writes(tmp_path, capsys):
    """The JSON of compare said "metric": "pass@2" (only a note on stderr named the threshold)."""
    out = tmp_path / "c.json"
    assert main(["compare", "--data", str(TOT), "gpt-4 IO", "gpt-4 CoT", "--scores", "1,10", "--threshold", "7",
                 "--metric", "pass@2", "--format", "json", "-o", str(out)]) == 0
    assert json.loads(out.read_text())[0]["metric"] == "pass@2 (threshold=7)"
    assert main(["rank", str(TOT), "--scores", "1,10", "--threshold", "7", "--metric", "pass@2"]) == 0
    assert capsys.readouterr().out.startswith("pass@2 (threshold=7), population scope")


def test_counted_parquet_scores_read_with_scores_and_refuse_a_threshold(tmp_path, capsys):
    """--scores on DuckDB-counted Parquet said 'holds scores in [0, 10], not (0.0, 10.0)' (the range applied twice);
    a threshold there is refused naming --engine pandas, which reads every row."""
    import pandas as pd

    rng = np.random.default_rng(0)
    path = tmp_path / "s.parquet"
    pd.DataFrame([{"model": m, "question": f"q{i}", "trial": t, "score": 10 * rng.random()}
                  for m in "ab" for i in range(30) for t in range(3)]).to_parquet(path)
    assert main(["report", str(path), "--scores", "0,10"]) == 0
    capsys.readouterr()
    assert main(["report", str(path), "--scores", "0,10", "--threshold", "5", "--metrics", "pass@2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--threshold cannot be applied to each trial" in err and "(--engine pandas)" in err
    assert main(["report", str(path), "--scores", "0,10", "--threshold", "5", "--metrics", "pass@2", "--engine",
                 "pandas"]) == 0


def test_allocate_on_scores_or_grades_points_at_the_threshold(capsys):
    assert main(["allocate", str(TOT), "--scores", "1,10"]) == 2
    assert capsys.readouterr().err.strip().endswith("allocate works on 0/1 outcomes; these are scores: --threshold T "
                                                    "counts a score above T as correct")
    assert main(["allocate", str(TOT), "--scores", "1,10", "--threshold", "7"]) == 0


def test_the_sequential_outputs_name_the_metric_with_its_threshold(tmp_path, capsys):
    """monitor's text and JSON did not name the metric at all; replay and allocate named it without the threshold
    (they read the binarised runs, whose label is plain pass@2)."""
    base = ["--data", str(TOT), "gpt-4 IO", "gpt-4 CoT", "--scores", "1,10", "--threshold", "7", "--metric", "pass@2"]
    out = tmp_path / "m.json"
    assert main(["monitor", *base, "--format", "json", "-o", str(out)]) == 0
    got = json.loads(out.read_text())[0]
    assert got["metric"] == "pass@2 (threshold=7)"
    ref = SequentialCompare(until="decided").update(  # the library on the binarised scores, in A's order
        *(question_values(_scores(m), "pass@2", threshold=7, score_range=(1, 10), missing=np.nan)[0]
          for m in ("gpt-4 IO", "gpt-4 CoT")))
    assert (got["lower"], got["upper"]) == pytest.approx((ref.lower, ref.upper), abs=1e-12)
    capsys.readouterr()
    assert main(["monitor", *base]) == 0
    assert capsys.readouterr().out.startswith("Sequential difference: gpt-4 IO - gpt-4 CoT, pass@2 (threshold=7)\n")
    assert main(["replay", *base, "--trials", "2", "--replays", "5", "--format", "json", "-o", str(out)]) == 0
    assert json.loads(out.read_text())[0]["metric"] == "pass@2 (threshold=7)"
    assert main(["allocate", str(TOT), "--scores", "1,10", "--threshold", "7", "--metric", "pass@2", "--format",
                 "json", "-o", str(out)]) == 0
    got = json.loads(out.read_text())
    assert {d["metric"] for d in got["design"].values()} == {"pass@2 (threshold=7)"}
    assert main(["monitor", "--data", str(TOT), "gpt-4 IO", "gpt-4 CoT", "--format", "json", "-o", str(out),
                 "--scores", "1,10"]) == 0  # no threshold: the plain mean score
    assert json.loads(out.read_text())[0]["metric"] == "avg"
    avg_n = ["--data", str(TOT), "gpt-4 IO", "gpt-4 CoT", "--scores", "1,10", "--threshold", "7", "--metric", "avg@n"]
    assert main(["monitor", *avg_n, "--format", "json", "-o", str(out)]) == 0  # binarised at load, as /v1/monitor
    assert json.loads(out.read_text())[0]["metric"] == "avg@n (threshold=7)"


def test_the_service_monitor_names_its_metric():
    from fastapi.testclient import TestClient

    from bayeseval.service import create_app

    rng = np.random.default_rng(1)
    S, T = rng.random((20, 3)).round(3), rng.random((20, 3)).round(3)
    with TestClient(create_app()) as c:
        for metric, label in (({"name": "pass@k", "k": 2, "threshold": 0.5}, "pass@2 (threshold=0.5)"),
                              ("avg", "avg")):
            r = c.post("/v1/monitor", json={"a": {"scores": S.tolist()}, "b": {"scores": T.tolist()},
                                            "metric": metric})
            assert r.status_code == 200 and r.json()["metric"] == label, r.text
    st = SequentialCompare(metric="pass@4").update([1.0, 0.0], [0.0, 0.0])
    assert st.metric == "pass@4" and st.summary().startswith("Sequential difference: A - B, pass@4\n")
    with pytest.raises(TypeError, match="metric must be a label"):
        SequentialCompare(metric=4)


def test_a_threshold_at_the_top_of_the_range_is_refused(capsys):
    """score > hi never holds: --threshold 10 on 1-10 ratings reported 0% for both models with exit 0."""
    assert main(["report", str(TOT), "--scores", "1,10", "--threshold", "10", "--metrics", "pass@2"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "bayeseval: error: --threshold counts a score above it as correct, and no score lies above 10, the top of "
        "the range: every trial would count as wrong; give a threshold below 10 (with whole-number grades, 9.5 "
        "counts a 10 as correct)")
    S = np.random.default_rng(0).uniform(0, 1, (30, 4))
    with pytest.raises(ValueError, match="no score lies above 1, the top of the range"):
        be.estimate(S, "pass@2", threshold=1)
    assert be.estimate(S, "pass@2", threshold=0).value == 1.0  # the bottom: every score above it counts
    assert main(["report", str(TOT), "--scores", "1,10", "--threshold", "9.5", "--metrics", "pass@2"]) == 0
