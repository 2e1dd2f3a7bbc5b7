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


# ----------------------------------------------------------------------------- the twenty-third session's review
def _rubric_table():
    import pandas as pd

    rows = [(i, s, f"j{j}", 1 + (i + j + (s == "B")) % 5, 1 + (i * j) % 5) for i in range(6) for s in "AB"
            for j in (1, 2, 3)]
    return pd.DataFrame(rows, columns=["item", "system", "judge", "coh", "flu"])


@pytest.mark.parametrize("column", ["item", "system", "judge"])
@pytest.mark.parametrize("blank", [np.nan, "", "  "])
def test_a_rubric_row_with_a_blank_id_is_refused(column, blank):
    """A blank item cell was read as a seventh item 'nan' (system A's coh 2.929 where the six items give 3.000), a
    blank judge as a judge 'nan' who entered Krippendorff's alpha as a coder."""
    from bayeseval.rubric import rubric

    t = _rubric_table()
    assert rubric(t, scale=(1, 5)).estimates["A", "coh"].value == pytest.approx(3.0)
    t[column] = t[column].astype(object)
    t.loc[4, column] = blank
    with pytest.raises(ValueError, match=rf"{column} column '{column}' is missing a value in row 4"):
        rubric(t, scale=(1, 5))


@pytest.mark.parametrize("command, header, row", [
    ("pairwise", "item,model_a,model_b,winner,winner", "1,x,y,model_a,model_b"),
    ("classify", "true,pred,pred", "a,a,b"),
    ("rubric", "item,system,judge,coh,coh", "1,A,j1,3,4"),
])
def test_a_header_that_names_a_column_twice_is_refused(tmp_path, capsys, command, header, row):
    """pandas renamed the second 'winner' to 'winner.1' and the reader used the first, dropping the other."""
    from bayeseval.cli import main

    path = tmp_path / "t.csv"
    path.write_text(f"{header}\n{row}\n{row.replace('1,', '2,', 1)}\n", encoding="utf-8")
    assert main([command, str(path)]) == 2
    name = header.split(",")[-1]
    assert f"line 1: the header names column '{name}' 2 times" in capsys.readouterr().err


def test_masked_entries_are_refused_where_missing_values_are_not_taken():
    """The mask was ignored: ppi_mean counted 5 labels where 4 are given (estimate 0.8 for four 1s), classification
    counted the masked item, Sequential.update took 4 questions for 1."""
    from bayeseval.classification import classification
    from bayeseval.pairwise import judge_agreement, ppi_mean
    from bayeseval.sequential import Sequential, SequentialCompare

    y = np.ma.masked_array([1, 0, 1.0, 1, 1], [0, 1, 0, 0, 0])
    f, fu = np.array([1, 0, 1.0, 1, 0]), np.random.default_rng(0).random(50)
    t, p = np.ma.masked_array(["a", "b", "a", "b"], [0, 1, 0, 0]), np.array(["a", "a", "a", "b"])
    cases = [(lambda: ppi_mean(y, f, fu), "y: 1 of its 5"), (lambda: classification(t, p), "y_true: 1 of its 4"),
             (lambda: judge_agreement(t, p), "human: 1 of its 4"),
             (lambda: Sequential(0, 1).update(np.ma.masked_array([1, 0, 0, 0.0], [0, 1, 1, 1])), "scores: 3 of its 4"),
             (lambda: SequentialCompare().update(np.ma.masked_array([1, 5, 1, 1, 0.0], [0, 1, 0, 0, 0]), f),
              "a: 1 of its 5")]
    for call, message in cases:
        with pytest.raises(ValueError, match=f"{message} entries are masked, and it takes no missing values"):
            call()
    same = ppi_mean(np.ma.masked_array(y.data), f, fu)  # nothing masked: the data, as a plain array gives them
    assert same.n == 5 and same.estimate == pytest.approx(ppi_mean(y.data, f, fu).estimate, abs=1e-15)


def test_shards_that_store_the_question_column_differently_are_refused_by_the_command_line(tmp_path, capsys):
    """The command line counts a folder shard by shard (for its progress) and skipped the schema check that load()
    runs: int ids in one shard and text in another ended in numpy's "'<' not supported between instances of 'str'
    and 'int'"."""
    import pandas as pd

    from bayeseval.cli import main
    from bayeseval.io import OutcomeSet

    rng = np.random.default_rng(0)
    rows = pd.DataFrame([(m, q, t, int(rng.random() < 0.6)) for m in "ab" for q in range(5) for t in range(3)],
                        columns=["model", "question", "trial", "score"])
    folder = tmp_path / "shards"
    folder.mkdir()
    rows[rows.trial < 2].reset_index(drop=True).to_parquet(folder / "p1.parquet")
    text = rows[rows.trial == 2].reset_index(drop=True)
    text["question"] = text["question"].astype(str)
    text.to_parquet(folder / "p2.parquet")
    assert main(["report", str(folder)]) == 2
    assert "p1.parquet stores column 'question' as numbers and" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"question ids mix types \(int, str\)"):
        R = np.array([[1, 0], [0, 1], [1, 1]])
        OutcomeSet.from_arrays({"a": R}, ids=[1, 2, 3]).add(OutcomeSet.from_arrays({"a": R}, ids=["1", "2", "3"]))


def test_a_constant_metric_is_named_when_monitoring():
    """Equal weights, or a payoff equal for every count, make every question's score one constant; /v1/monitor
    answered 422 on field 'until' with "the score range must be two finite numbers lo < hi", which the user never
    gave."""
    from fastapi.testclient import TestClient

    from bayeseval.service import create_app
    from bayeseval.sequential import question_values

    with pytest.raises(ValueError, match=r"w gives every category of a the same weight \(2\).*nothing to monitor"):
        question_values(np.array([[0, 1, 2], [2, 2, 1]]), w=[2, 2, 2], name="a")
    with pytest.raises(ValueError, match=r"metric custom\[1, 1, 1, 1\] pays 1 whatever the outcomes"):
        question_values(np.array([[1, 0, 1]]), [1, 1, 1, 1])
    with TestClient(create_app()) as client:
        r = client.post("/v1/monitor", json={"a": {"matrix": [[0, 1, 2], [2, 2, 1]], "weights": [1, 1, 1]},
                                             "b": {"matrix": [[0, 1, 2], [2, 0, 1]], "weights": [1, 1, 1]}})
        assert r.status_code == 422 and r.json()["error"]["field"] == "a.weights"
        r = client.post("/v1/monitor", json={"a": {"matrix": [[1, 0, 1]]}, "b": {"matrix": [[0, 0, 1]]},
                                             "metric": {"payoff": [1, 1, 1, 1]}})
        assert r.status_code == 422 and r.json()["error"]["field"] == "metric"
        assert "pays 1 whatever the outcomes" in r.json()["error"]["message"]


def test_miller_se_is_scale_safe():
    """Category weights of 1e160 gave miller_se = inf (the squared deviations overflowed); the rest of the estimate
    is rescaled and was finite."""
    import warnings

    R = np.array([[0, 1, 2], [2, 2, 1], [0, 0, 0], [1, 2, 0]])
    unit = be.estimate(R, "avg", w=[0, 1, 1]).miller_se
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        big = be.estimate(R, "avg", w=[0, 1e160, 1e160]).miller_se
    x = (R > 0).mean(axis=1)  # per question: its share of trials with weight 1
    assert unit == pytest.approx(x.std(ddof=1) / np.sqrt(4), rel=1e-12)
    assert big == pytest.approx(1e160 * unit, rel=1e-12)


def test_a_judge_with_two_verdicts_on_one_item_is_warned_about():
    """An exact repeat of a row was warned about; one judge giving the same item, models and order two different
    verdicts (more suspicious) was not. Both orders of a position swap are not a conflict."""
    import warnings

    import pandas as pd

    from bayeseval.pairwise import from_long

    def row(item, a, b, winner, judge):
        return {"item": item, "model_a": a, "model_b": b, "winner": winner, "judge": judge}

    base = [row(2, "x", "y", "model_b", "j1"), row(2, "x", "y", "model_b", "j2")]
    with pytest.warns(UserWarning, match=r"1 time\(s\) a judge gave two different verdicts .*item '1', 'x' vs 'y', "
                                         r"judge 'j1'"):
        p = from_long(pd.DataFrame(base + [row(1, "x", "y", "model_a", "j1"), row(1, "x", "y", "model_b", "j1")]),
                      judge="judge")
    assert p.outcome.size == 4  # both kept as labels
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from_long(pd.DataFrame(base + [row(1, "x", "y", "model_a", "j1"), row(1, "y", "x", "model_a", "j1")]),
                  judge="judge")  # the two orders of one pair: position bias, not a conflict


def test_compare_says_when_both_sides_have_the_same_counts():
    """compare(A, A) ran without a word (its population interval [-0.04, +0.05] is honest for two models that
    happen to agree, not for one model given twice)."""
    A = (np.random.default_rng(0).random((30, 4)) < 0.5).astype(int)
    same = be.compare(A, A.copy(), names=("x", "y"))
    assert any(n.startswith("x and y have the same outcome counts on every question") for n in same.notes)
    B = A.copy()
    B[0, 0] ^= 1  # one trial differs
    assert not any("same outcome counts" in n for n in be.compare(A, B).notes)


def test_ppi_by_item_refuses_an_item_scored_twice():
    """A Series with item 'a' twice became a dict with one 'a' (the last score): the error then said "every judged
    item also has a human score: there is nothing for the judge to add"."""
    import pandas as pd

    from bayeseval.pairwise import ppi_mean_by_item

    with pytest.raises(ValueError, match=r"judge gives item 'a' 2 scores; one score per item"):
        ppi_mean_by_item(pd.Series([1, 0, 1], index=["a", "a", "c"]), pd.Series({"a": 1, "c": 1}))
    with pytest.raises(ValueError, match=r"human gives item 'c' 2 scores"):
        ppi_mean_by_item(pd.Series([1, 0, 1, 1], index=list("abcd")), pd.Series([1, 1, 0], index=["a", "c", "c"]))


def test_the_service_refuses_control_characters_in_names_and_ids():
    """/v1/metrics took a model named 'a\\x00b' and a question id 'q\\n1' (the file loaders and /v1/pairwise refuse
    them: a NUL or newline makes a phantom label that prints like a real one)."""
    from fastapi.testclient import TestClient

    from bayeseval.service import create_app

    with TestClient(create_app()) as client:
        r = client.post("/v1/metrics", json={"models": {"a\u0000b": {"matrix": [[0, 1], [1, 1]]}}})
        assert r.status_code == 422 and "contains the control character '\\x00' at position 1" in r.json()["error"][
            "message"]
        r = client.post("/v1/metrics", json={"models": {"a": {"matrix": [[0, 1], [1, 1]], "ids": ["q\n1", "q2"]}}})
        assert r.status_code == 422 and r.json()["error"]["field"] == "models.a.ids[0]"
        assert client.post("/v1/metrics", json={"models": {"a b": {"matrix": [[0, 1], [1, 1]],
                                                                     "ids": ["q 1", "q2"]}}}).status_code == 200


def test_shards_that_differ_only_in_storage_or_unused_columns_are_counted(tmp_path):
    """The first shard check compared every column's storage type: int scores beside float ones (pandas makes a column
    float once a score is missing), int32 ids beside int64, an unused all-None column, an index column of two
    types, all counted before, were refused. Only the id columns' numbers-or-text matters."""
    import pandas as pd

    from bayeseval.io.scale import count_shards

    rng = np.random.default_rng(3)
    rows = pd.DataFrame([(m, q, t, int(rng.random() < 0.6)) for m in "ab" for q in range(6) for t in range(4)],
                        columns=["model", "question", "trial", "score"])
    folder = tmp_path / "shards"
    folder.mkdir()
    first, second = rows[rows.trial < 2], rows[rows.trial >= 2].copy()
    second["score"] = second["score"].astype(float)
    second["question"] = second["question"].astype("int32")
    second["error"] = None
    first.to_parquet(folder / "p1.parquet")  # its index: 0..., the second's: other numbers
    second.iloc[::-1].to_parquet(folder / "p2.parquet")
    pooled = count_shards(str(folder), progress=list)
    whole = count_shards(str(folder / "p1.parquet")).counts("a").n + count_shards(str(folder / "p2.parquet")).counts(
        "a").n
    assert pooled.counts("a").n.tolist() == whole.tolist() == [4] * 6


def test_a_csv_header_with_empty_trailing_cells_or_read_from_a_url(tmp_path):
    """Spreadsheet exports end in empty header cells ('winner,,'): they are no names, not a column named '' twice;
    a CSV named by URL is read as the table is (the check reopened the path with open())."""
    from bayeseval.pairwise import read_battles

    path = tmp_path / "b.csv"
    path.write_text("item,model_a,model_b,winner,,\n1,x,y,model_a,,\n2,y,x,model_b,,\n", encoding="utf-8")
    assert read_battles(str(path)).outcome.size == 2
    assert read_battles(path.as_uri()).outcome.size == 2
    (tmp_path / "twice.csv").write_text("item,model_a,model_b,winner,winner\n1,x,y,model_a,model_b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="the header names column 'winner' 2 times"):
        read_battles((tmp_path / "twice.csv").as_uri())


def test_more_masked_and_missing_inputs():
    from bayeseval.classification import classification
    from bayeseval.counts import _check_ids
    from bayeseval.validate import weights

    with pytest.raises(ValueError, match="w: 1 of its 2 entries are masked"):
        w = np.ma.masked_array(np.array([0.0, 1.0]), [0, 1])
        w.flags.writeable = False  # a read-only float64 vector took the fast path whole
        weights(w)
    with pytest.raises(ValueError, match="items: 1 of its 3 entries are masked"):
        classification(["a", "b", "a"], ["a", "a", "b"], items=np.ma.masked_array(["x", "y", "z"], [0, 1, 0]))
    with pytest.raises(ValueError, match=r"question id 1 \(from 0\) is missing \(None\)"):
        _check_ids([1, None, 3], 3)  # was "question ids mix types (NoneType, int)"


def test_the_headline_never_reads_minus_zero():
    """A difference of 0 beside a posterior mean of -1e-9 read '+0.0000 (posterior mean -0.0000, ...'."""
    import dataclasses

    A = np.array([[1, 0], [0, 1], [1, 1], [0, 0]] * 5)
    c = be.compare(A, A[::-1].copy())
    head = dataclasses.replace(c, delta=dataclasses.replace(c.delta, mean=-1e-9)).summary().splitlines()[0]
    assert "A - B = +0.0000 (95% credible interval" in head and "-0.0000" not in head


def test_an_unfinished_inspect_log_counts_the_samples_that_never_ran(tmp_path):
    """A log with status 'started', 4 sample ids x 3 epochs and 2 samples written warned '1 of 3 trials missing'
    (counted among the samples present): 10 of 12 are missing, and 3 of the 4 samples never ran."""
    import json
    import warnings
    from pathlib import Path

    src = next((Path(__file__).parent / "data" / "inspect").glob("*.json"))
    doc = json.loads(src.read_text(encoding="utf-8"))
    doc["status"], doc["samples"] = "started", doc["samples"][:2]  # sample 1, epochs 1 and 2
    doc.pop("results", None)
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        data = be.load(path)
    text = " ".join(str(w.message) for w in seen) + " ".join(data.warnings if hasattr(data, "warnings") else [])
    assert "10 of 12 trials missing (3 of its 4 samples never ran, e.g. [2, 3, 4]" in text
    assert data.matrix(data.models[0]).shape == (1, 3)


@pytest.mark.parametrize("keep", ["cut", "empty"])
def test_a_short_aisbench_predictions_file_is_called_short(tmp_path, keep):
    """Lines absent from the predictions file (cut short) were described as failed requests 'counted as incorrect
    here too', while the outcomes come whole from the results file's details; an empty file had no warning."""
    import shutil
    import warnings
    from pathlib import Path

    src = Path(__file__).parent / "data" / "service" / "aisbench_work" / "20260326_151326"
    work = tmp_path / "work"
    shutil.copytree(src, work)
    whole = be.load(work, format="aisbench")
    pred = next(work.rglob("predictions/*/*.jsonl"))
    lines = pred.read_text(encoding="utf-8").splitlines(keepends=True)
    pred.write_text("".join(lines[:-3]) if keep == "cut" else "", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        short = be.load(work, format="aisbench")
    text = " ".join(short.warnings)
    assert "prediction lines" in text and "the file looks cut short or partial" in text
    assert "count as incorrect here too" not in text
    name = whole.models[0]
    np.testing.assert_array_equal(short.matrix(name), whole.matrix(name))  # the details hold every replica


def test_an_mcmc_crosscheck_from_chains_that_did_not_mix_does_not_pass():
    """crosscheck(...).passed was True beside an R-hat warning: a CI gate on it accepted chains that did not mix."""
    from bayeseval.mcmc import CrossCheck

    row = {"metric": "avg", "closed_mean": 0.5, "closed_sd": 0.1, "mcmc_mean": 0.5, "mcmc_sd": 0.1, "z": 0.0,
           "sd_ratio": 1.0, "rhat": 1.2, "ess_bulk": 50.0, "ess_tail": 50.0, "divergences": 0, "passed": True,
           "status": "pass"}
    mixed = CrossCheck([row], None, "pymc", 100, 2, [])
    stuck = CrossCheck([row], None, "pymc", 100, 2, ["R-hat 1.200 > 1.01 for p"])
    assert mixed.passed and not stuck.passed and stuck.to_dict()["passed"] is False
    assert "FAIL (means within 4 MCSE, sds within 10%) (the chains did not mix" in stuck.summary()


def test_a_cut_lm_eval_samples_file_is_caught_by_its_document_count(tmp_path):
    """A samples file cut at a line boundary (2 of gsm8k's 4 documents) went unnoticed when the kept documents' mean
    happened to equal the reported one; the results file's n-samples.gsm8k.effective says 4."""
    import json
    import shutil
    import warnings
    from pathlib import Path

    src = Path(__file__).parent / "data" / "lm_eval" / "basic" / "EleutherAI__pythia-160m"
    folder = tmp_path / "EleutherAI__pythia-160m"
    shutil.copytree(src, folder)
    assert not be.load(folder).warnings
    samples = next(folder.glob("samples_gsm8k_*.jsonl"))
    kept = [x for x in samples.read_text(encoding="utf-8").splitlines() if json.loads(x)["doc_id"] < 2]
    samples.write_text("\n".join(kept) + "\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cut = be.load(folder)
    assert any("2 documents with filter" in w and "counts 4 (n-samples.gsm8k.effective): the samples file looks cut "
               "short or partial" in w for w in cut.warnings)
