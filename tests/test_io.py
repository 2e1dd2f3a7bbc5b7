"""The labelled OutcomeSet, compact outcome files, long / wide tables and the load() front door."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayeseval as be
from bayeseval.io import OutcomeSet, Run, read_outcomes, write_outcomes
from bayeseval.io.load import load
from bayeseval.io.tables import from_long, read_long, read_wide

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"


def _long_frame(rng, models=("a", "b"), M=30, N=5):
    rows = []
    truth = {}
    for m in models:
        R = (rng.random((M, N)) < rng.random(M)[:, None]).astype(int)
        truth[m] = R
        for i in range(M):
            for j in range(N):
                rows.append({"model": m, "question": f"q{i}", "trial": j, "score": int(R[i, j])})
    return pd.DataFrame(rows), truth


def test_long_table_rebuilds_the_matrices_and_counts():
    df, truth = _long_frame(np.random.default_rng(0))
    shuffled = df.sample(frac=1.0, random_state=1)  # row order must not matter when trial is given
    s = from_long(shuffled)
    assert s.models == ["a", "b"] or set(s.models) == {"a", "b"}
    for m, R in truth.items():
        run = s.run(m)
        order = np.array([int(q[1:]) for q in run.ids])
        np.testing.assert_array_equal(run.matrix, R[order])
        assert run.weights is None
        np.testing.assert_array_equal(s.counts(m).successes(), R[order].sum(axis=1))
    assert df.equals(_long_frame(np.random.default_rng(0))[0])  # input untouched


def test_long_table_without_trial_column_numbers_trials_in_row_order():
    df = pd.DataFrame({"model": ["m"] * 5, "question": [7, 7, 8, 7, 8], "score": [1, 0, 0, 1, 1]})
    s = from_long(df, trial=None)
    assert s.run("m").ids == (7, 8)
    np.testing.assert_array_equal(s.matrix("m"), [[1, 0, 1], [0, 1, np.nan]])


def test_long_table_ragged_by_trial_index_and_missing_scores():
    df = pd.DataFrame({"model": "m", "question": ["x", "x", "y", "y"], "trial": [0, 3, 1, 3],
                       "score": [1.0, np.nan, 0.0, 1.0]})
    s = from_long(df)
    np.testing.assert_array_equal(s.matrix("m"), [[1, np.nan, np.nan], [np.nan, 0, 1]])
    assert s.counts("m").n.tolist() == [1, 2]


def test_grades_and_partial_credit_become_weighted_categories():
    grades = pd.DataFrame({"model": "m", "question": [1, 1, 2, 2], "score": [3, 10, 7, 7]})
    s = from_long(grades)
    np.testing.assert_array_equal(s.weights("m"), np.arange(11))
    ev = be.evaluate(s, ["avg"], scope="benchmark")
    assert ev[0].value == pytest.approx((3 + 10 + 7 + 7) / 4)
    partial = pd.DataFrame({"model": "m", "question": [1, 1, 2], "score": [0.24, 0.4, 1.0]})
    p = from_long(partial)
    np.testing.assert_array_equal(p.weights("m"), [0.24, 0.4, 1.0])
    assert be.evaluate(p, ["avg"])[0].value == pytest.approx(((0.24 + 0.4) / 2 + 1.0) / 2)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "json", "parquet"])
def test_read_long_from_every_file_format(tmp_path, fmt):
    df, truth = _long_frame(np.random.default_rng(2), M=8, N=3)
    df = df.rename(columns={"model": "system", "question": "task_id", "score": "reward"})
    path = tmp_path / f"runs.{fmt}"
    if fmt in ("csv", "tsv"):
        df.to_csv(path, index=False, sep="\t" if fmt == "tsv" else ",")
    elif fmt == "jsonl":
        df.to_json(path, orient="records", lines=True)
    elif fmt == "json":
        df.to_json(path, orient="records")
    else:
        df.to_parquet(path)
    s = read_long(path, model="system", question="task_id", score="reward")
    for m, R in truth.items():
        np.testing.assert_array_equal(s.matrix(m), R)
    cols = {"model": "system", "question": "task_id", "score": "reward"}
    t = load(path, columns=cols, engine="pandas")
    np.testing.assert_array_equal(t.matrix("b"), truth["b"])
    if fmt == "parquet":  # the default front door counts Parquet in DuckDB: the same counts, no trial matrix
        counted = load(path, columns=cols)
        want = be.to_counts(truth["b"], missing=np.nan, ids=list(t.run("b").ids))
        pos = pd.Index([str(i) for i in counted.counts("b").ids]).get_indexer([str(i) for i in want.ids])
        np.testing.assert_array_equal(counted.counts("b").table[pos], want.table)


def test_read_wide_csv(tmp_path):
    path = tmp_path / "gpt.csv"
    path.write_text("id,t0,t1,t2\nx,1,0,\ny,1,1,1\nz,false,true,true\n")
    s = read_wide(path)
    assert s.models == ["gpt"] and s.run("gpt").ids == ("x", "y", "z")
    np.testing.assert_array_equal(s.matrix("gpt"), [[1, 0, np.nan], [1, 1, 1], [0, 1, 1]])
    assert load(path).counts("gpt").n.tolist() == [2, 3, 3]  # auto-detected as wide (no score column)


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"model": ["m"], "question": ["q"], "score": ["maybe"]}), "row 0: column 'score' must be a number"),
    (pd.DataFrame({"model": ["m", "m"], "question": ["q", "q"], "trial": [0, 0], "score": [1, 0]}),
     "rows 0 and 1 are the same question 'q' and trial"),
    (pd.DataFrame({"model": ["m"], "question": ["q"], "trial": [1.5], "score": [1]}),
     "row 0: column 'trial' must be a non-negative integer trial index, got 1.5"),
    (pd.DataFrame({"model": ["m"], "question": [None], "score": [1]}), "row 0: column 'question' (question id) is empty"),
    (pd.DataFrame({"model": ["m"], "task": ["q"], "score": [1]}), "no question column 'question'"),
    (pd.DataFrame({"model": ["m"], "question": ["q"], "score": [np.inf]}), "column 'score' is infinite"),
])
def test_long_table_errors_name_the_row_and_column(frame, message):
    with pytest.raises(ValueError) as err:
        from_long(frame, where="runs.csv")
    assert message in str(err.value) and "runs.csv" in str(err.value)


def test_malformed_files_name_the_file(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "bayeseval-outcomes/1", "models": {"m": {"questions": ["a"], "outcomes": ["1x"]}}}')
    with pytest.raises(ValueError, match=r"broken.json: models\['m'\].outcomes\[0\]: outcomes must be"):
        load(bad)
    with pytest.raises(FileNotFoundError, match="nope.csv: no such file"):
        load(tmp_path / "nope.csv")
    odd = tmp_path / "x.weird"
    odd.write_text("?")
    with pytest.raises(ValueError, match="cannot tell the format"):
        load(odd)
    with pytest.raises(ValueError, match="format must be one of"):
        load(odd, format="excel")
    with pytest.raises(ValueError, match="columns: unknown key 'modle'"):
        load(odd, columns={"modle": "x"})


def test_outcome_file_round_trip_with_weights_ragged_rows_and_two_datasets(tmp_path):
    s = OutcomeSet([
        Run("letters", "IO", ["p1", "p2"], [[25, 3, np.nan], [0, 12, 7]], weights=np.arange(26) / 25,
            meta={"published": {"avg": 0.387}}),
        Run("games", "IO", ["p1", "p2"], [[0, 1], [0, np.nan]]),
        Run("games", "CoT", ["p1", "p2"], [[1, 1], [np.nan, 0]]),
    ], source="src", license="MIT", notes="n")
    path = tmp_path / "x.json"
    write_outcomes(path, s)
    doc = json.loads(path.read_text())
    assert set(doc["models"]) == {"letters/IO", "games/IO", "CoT"}
    assert doc["published"] == {"letters/IO": {"avg": 0.387}}
    t = read_outcomes(path)
    for run in s:
        back = t.run(run.model, run.dataset)
        np.testing.assert_array_equal(back.matrix, run.matrix)
        assert back.ids == run.ids
        if run.weights is None:
            assert back.weights is None
        else:
            np.testing.assert_allclose(back.weights, run.weights)
    assert t.run("IO", "letters").meta["published"] == {"avg": 0.387}
    assert (t.source, t.license, t.notes) == ("src", "MIT", "n")


def test_bundled_outcome_files_load_with_the_published_numbers():
    g = load(DATA / "tot_game24.json")
    assert g.models == ["gpt-4 IO", "gpt-4 CoT"]
    assert g.published["gpt-4 IO"]["pass@100"] == 0.33
    assert g.counts("gpt-4 IO").M == 100 and g.counts("gpt-4 IO").N == 100
    assert be.estimate(g["gpt-4 IO"], "avg").value == pytest.approx(0.0734)


def test_outcome_set_access_select_merge_and_frame():
    s = OutcomeSet.from_arrays({"a": np.eye(3, dtype=int), "b": np.ones((3, 2), int)}, ids=["x", "y", "z"],
                               dataset="d1")
    t = OutcomeSet.from_arrays({"a": [[1, 0]]}, ids=["x"], dataset="d2")
    u = s | t
    assert u.datasets == ["d1", "d2"] and u.models == ["a", "b"]
    with pytest.raises(KeyError, match="runs on several datasets"):
        u.run("a")
    assert u["d2", "a"].n.tolist() == [2]
    assert u.select(datasets=["d1"]).models == ["a", "b"]
    with pytest.raises(KeyError, match="no model 'c'"):
        u.select(models=["c"])
    frame = u.to_frame()
    assert len(frame) == 9 + 6 + 2
    assert frame.groupby(["dataset", "model"])["score"].sum().to_dict() == {("d1", "a"): 3.0, ("d1", "b"): 6.0,
                                                                             ("d2", "a"): 1.0}
    with pytest.raises(ValueError, match="two runs for dataset 'd1', model 'a'"):
        s | s
    ev = be.evaluate(u, ["avg"], scope="benchmark")
    assert [e.dataset for e in ev] == ["d1", "d1", "d2"]


def test_runs_are_read_only_and_copies():
    R = np.array([[1.0, 0.0]])
    run = Run("d", "m", ["q"], R)
    R[0, 0] = 0.0
    assert run.matrix[0, 0] == 1.0
    with pytest.raises(ValueError):
        run.matrix[0, 0] = 5
    with pytest.raises(ValueError, match="one row per question id"):
        Run("d", "m", ["q", "r"], [[1, 0]])


def test_ids_and_names_are_kept_exactly_as_written(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"model": "007", "question": "1e3", "score": 1}\n{"model": "007", "question": "1000", "score": 0}\n')
    s = load(path)
    assert s.models == ["007"] and s.run("007").ids == ("1e3", "1000")
    csv = tmp_path / "runs.csv"
    csv.write_text("\ufeffmodel,question,score\nNA,01,1\nNA,02,\nNA,01,0\n")  # BOM, a model called NA, empty score
    t = load(csv)
    assert t.models == ["NA"] and t.run("NA").ids == ("01", "02")
    np.testing.assert_array_equal(t.matrix("NA"), [[1, 0], [np.nan, np.nan]])


def test_empty_labels_are_errors_and_empty_questions_are_left_out_with_a_warning():
    with pytest.raises(ValueError, match="row 1: column 'model' \\(model\\) is empty"):
        from_long(pd.DataFrame({"model": ["a", None], "question": [1, 2], "score": [1, 0]}))
    s = from_long(pd.DataFrame({"model": "a", "question": [1, 1, 2], "score": [1, 0, np.nan]}))
    with pytest.warns(UserWarning, match=r"dataset/a: 1 question\(s\) have no observed trial and are left out: \[2\]"):
        c = s.counts("a")
    assert c.M == 1 and list(c.ids) == [1]


def test_to_frame_round_trips_graded_scores():
    s = from_long(pd.DataFrame({"model": "m", "question": [1, 1, 2, 2], "score": [0.25, 0.5, 1.0, 0.5]}))
    frame = s.to_frame()
    assert frame["score"].tolist() == [0.25, 0.5, 1.0, 0.5]
    back = from_long(frame)
    assert be.evaluate(back, ["avg"])[0].value == be.evaluate(s, ["avg"])[0].value == pytest.approx(0.5625)


def test_runs_validate_their_content():
    with pytest.raises(ValueError, match="outcomes must be categories 0, 1, 2"):
        Run("d", "m", ["q"], [[0.5]])
    with pytest.raises(ValueError, match="categories above 1 need weights"):
        Run("d", "m", ["q"], [[2, 1]])
    with pytest.raises(ValueError, match="question ids must be unique"):
        Run("d", "m", ["q", "q"], [[1], [0]])
    assert Run("d", "m", np.arange(2), [[1], [0]]).ids == (0, 1) and type(Run("d", "m", np.arange(1), [[1]]).ids[0]) is int


def test_a_continuous_score_is_read_as_scores_not_thousands_of_categories():
    """More than 1001 distinct non-integer values in [0, 1]: a continuous score (Scores, the mean-score model);
    outside [0, 1] it is still refused, with the hint to bin it (or give its range)."""
    from bayeseval.scores import Scores

    scores = np.linspace(0, 1, 3000)
    o = from_long(pd.DataFrame({"model": "m", "question": np.arange(3000), "score": scores}))
    c = o.counts("m")
    assert isinstance(c, Scores) and o.run("m").scale == (0.0, 1.0) and c.means.mean() == pytest.approx(0.5)
    with pytest.raises(ValueError, match="3000 distinct non-integer scores; a continuous score is not a set of categories"):
        from_long(pd.DataFrame({"model": "m", "question": np.arange(3000), "score": 2 * scores}))
    wide = from_long(pd.DataFrame({"model": "m", "question": np.arange(3000), "score": 2 * scores}),
                     score_range=(0, 2))
    assert wide.run("m").scale == (0.0, 2.0)
    with pytest.raises(ValueError, match=r"row 1500: column 'score': a score of 1.00033 is outside \[0, 1\]; give "
                                         r"the range of the scores with score_range$"):
        from_long(pd.DataFrame({"model": "m", "question": np.arange(3000), "score": 2 * scores}), score_range=(0, 1))
