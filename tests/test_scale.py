"""Counting at scale (issue "Count at any scale"): DuckDB counts a table where it lives; the counts equal the
row-by-row pandas readers' on the same files (ids, ragged trials, missing values, categories, scores),
bad rows are named by file, row and column, shards add up, counts round-trip through Parquet, the Ibis
expression gives the same groups, and every front door takes the counted runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayeseval as be
from bayeseval.io import load, read_long
from bayeseval.io.scale import CountRun, add_counts, count_expression, count_shards, count_table, read_counts, write_counts

duckdb = pytest.importorskip("duckdb")


def _long(rng, models=("a", "b"), M=40, N=4, kind="binary", ragged=False, missing=False):
    rows = []
    for m in models:
        p = rng.beta(2, 2, M)
        for i in range(M):
            for t in range(N):
                if ragged and t >= 1 + i % N:
                    continue
                if kind == "binary":
                    v = int(rng.random() < p[i])
                elif kind == "grades":
                    v = int(rng.integers(0, 5))
                else:
                    v = float(rng.beta(5 * p[i], 5 * (1 - p[i])))
                rows.append({"model": m, "question": f"q{i:03d}", "trial": t, "score": v})
    df = pd.DataFrame(rows)
    if missing:
        df.loc[df.index[::7], "score"] = np.nan
    return df


def _same_counts(a, b):
    """Two counts (Counts or Scores) of the same questions, compared after lining the ids up."""
    pos = pd.Index([str(i) for i in a.ids]).get_indexer([str(i) for i in b.ids])
    assert (pos >= 0).all() and a.M == b.M
    if hasattr(a, "table"):
        K = min(a.table.shape[1], b.table.shape[1])
        np.testing.assert_array_equal(a.table[pos][:, :K], b.table[:, :K])
    else:
        np.testing.assert_array_equal(a.n[pos], b.n)
        np.testing.assert_allclose(a.means[pos], b.means, rtol=1e-12)
        np.testing.assert_allclose(a.sq[pos], b.sq, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind, ragged, missing, suffix", [
    ("binary", False, False, ".parquet"), ("binary", True, False, ".parquet"), ("binary", False, True, ".parquet"),
    ("grades", False, False, ".parquet"), ("binary", True, False, ".csv"), ("grades", False, True, ".csv"),
    ("binary", False, False, ".jsonl"),
])
def test_duckdb_counts_equal_the_pandas_reader(tmp_path, kind, ragged, missing, suffix):
    df = _long(np.random.default_rng(0), kind=kind, ragged=ragged, missing=missing)
    path = tmp_path / f"t{suffix}"
    if suffix == ".parquet":
        df.to_parquet(path)
    elif suffix == ".csv":
        df.to_csv(path, index=False)
    else:
        df.to_json(path, orient="records", lines=True)
    fast, slow = count_table(path), read_long(path)
    assert sorted(fast.models) == sorted(slow.models)
    for m in slow.models:
        assert isinstance(fast.run(m), CountRun)
        _same_counts(fast.counts(m), slow.counts(m))
        if kind == "grades":
            np.testing.assert_array_equal(fast.weights(m), slow.weights(m))
    metrics = ["avg", "pass@2"] if kind == "binary" else ["avg"]
    ev_f, ev_s = be.evaluate(fast, metrics, scope="benchmark"), be.evaluate(slow, metrics, scope="benchmark")
    for m in slow.models:
        assert ev_f[m, "avg"].value == pytest.approx(ev_s[m, "avg"].value, rel=1e-12)


def test_continuous_scores_are_counted_as_scores(tmp_path):
    df = _long(np.random.default_rng(1), kind="scores")
    path = tmp_path / "s.parquet"
    df.to_parquet(path)
    o = count_table(path)
    direct = be.to_scores(df[df.model == "a"].pivot(index="question", columns="trial", values="score").to_numpy())
    c = o.counts("a")
    assert isinstance(c, be.Scores)
    np.testing.assert_allclose(np.sort(c.means), np.sort(direct.means), rtol=1e-12)
    np.testing.assert_allclose(np.sort(c.sq), np.sort(direct.sq), rtol=1e-9)
    wide = count_table(path, score_range=(0, 2))
    assert wide.run("a").scale == (0.0, 2.0)


def test_bad_rows_are_named_by_file_row_and_column(tmp_path):
    df = _long(np.random.default_rng(2))
    bad = df.astype({"score": object})
    bad.loc[77, "score"] = "oops"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ValueError, match=r"bad.csv: line 79: column 'score' must be a number, got 'oops'"):
        count_table(tmp_path / "bad.csv")
    neg = df.astype({"score": float})
    neg.loc[123, "score"] = -1.0
    neg.to_parquet(tmp_path / "neg.parquet")
    with pytest.raises(ValueError, match=r"neg.parquet: row 123: column 'score' must be a score >= 0"):
        count_table(tmp_path / "neg.parquet")
    inf = df.astype({"score": float})
    inf.loc[9, "score"] = np.inf
    inf.to_parquet(tmp_path / "inf.parquet")
    with pytest.raises(ValueError, match=r"inf.parquet: row 9: column 'score' must be finite"):
        count_table(tmp_path / "inf.parquet")
    dup = pd.concat([df, df.iloc[[5]]], ignore_index=True)
    dup.to_parquet(tmp_path / "dup.parquet")
    with pytest.raises(ValueError, match=r"question 'q001' has a \(question, trial\) written more than once"):
        count_table(tmp_path / "dup.parquet")
    t = df.astype({"trial": object})
    t.loc[4, "trial"] = "x"
    t.to_csv(tmp_path / "trial.csv", index=False)
    with pytest.raises(ValueError, match=r"trial.csv: line 6: column 'trial' must be a non-negative integer"):
        count_table(tmp_path / "trial.csv")
    with pytest.raises(ValueError, match=r"no question column 'task'.*--question-col"):
        count_table(tmp_path / "dup.parquet", question="task")


def test_mixed_schemas_are_caught_before_counting(tmp_path):
    df = _long(np.random.default_rng(3))
    (tmp_path / "parts").mkdir()
    df.iloc[:100].to_parquet(tmp_path / "parts" / "p0.parquet")
    df.iloc[100:].astype({"trial": float}).to_parquet(tmp_path / "parts" / "p1.parquet")
    with pytest.raises(ValueError, match=r"p1.parquet: its columns differ from .*p0.parquet"):
        count_table(str(tmp_path / "parts" / "*.parquet"))


def test_globs_folders_shards_and_counts_on_disk(tmp_path):
    df = _long(np.random.default_rng(4), M=60)
    root = tmp_path / "runs"
    for k, (lo, hi) in enumerate([(0, 150), (150, 300), (300, len(df))]):
        part = root / f"day={k}"
        part.mkdir(parents=True)
        df.iloc[lo:hi].to_parquet(part / "part.parquet")
    whole = count_table(df)
    globbed = count_table(str(root / "*" / "*.parquet"))
    shards = count_shards(str(root), progress=lambda it: it)
    for m in ("a", "b"):
        _same_counts(globbed.counts(m), whole.counts(m))
        _same_counts(shards.counts(m), whole.counts(m))
    write_counts(whole, tmp_path / "counts.parquet")
    back = read_counts(tmp_path / "counts.parquet")
    for m in ("a", "b"):
        _same_counts(back.counts(m), whole.counts(m))
    # nightly update: yesterday's counts plus today's shard equal counting everything
    yesterday = count_table(df.iloc[:300])
    today = count_table(df.iloc[300:])
    both = add_counts(yesterday, today)
    _same_counts(both.counts("a"), whole.counts("a"))
    assert load(str(root / "*" / "*.parquet")).counts("a").M == 60  # the front door counts globs in DuckDB


def test_table_objects_and_the_ibis_expression(tmp_path):
    import ibis
    import pyarrow as pa

    df = _long(np.random.default_rng(5))
    ref = count_table(df)
    for obj in (pa.Table.from_pandas(df), duckdb.sql("SELECT * FROM df")):
        _same_counts(count_table(obj).counts("b"), ref.counts("b"))
    t = ibis.memtable(df)
    groups = count_expression(t).to_pandas()
    per_q = groups[groups.model == "a"].groupby("question").apply(lambda g: (g.n * g.value).sum() / g.n.sum(),
                                                                  include_groups=False)
    c = ref.counts("a")
    want = pd.Series(c.table[:, 1] / c.n, index=[str(i) for i in c.ids])
    np.testing.assert_allclose(per_q.sort_index().to_numpy(), want.sort_index().to_numpy(), rtol=1e-12)
    via_ibis = count_table(t, engine="ibis")
    _same_counts(via_ibis.counts("a"), ref.counts("a"))
    path = tmp_path / "t.parquet"
    df.to_parquet(path)
    on_file = count_table(ibis.duckdb.connect().read_parquet(str(path)))  # an Ibis table of a backend: counted there
    _same_counts(on_file.counts("b"), ref.counts("b"))


def test_counted_runs_take_every_front_door(tmp_path):
    df = _long(np.random.default_rng(6), M=80)
    path = tmp_path / "t.parquet"
    df.to_parquet(path)
    fast, slow = count_table(path), read_long(path)
    cf = be.compare(fast.counts("a"), fast.counts("b"), seed=1)
    cs = be.compare(slow.counts("a"), slow.counts("b"), seed=1)
    assert cf.delta.mean == pytest.approx(cs.delta.mean, rel=1e-12)
    assert cf.permutation.p_value == pytest.approx(cs.permutation.p_value, rel=1e-12)
    r = be.compare_all(fast)
    assert set(r.models) == {"a", "b"}
    assert be.plan(fast.counts("a")).sigma_w2 == pytest.approx(be.plan(slow.counts("a")).sigma_w2, rel=1e-12)
    scored = fast.as_scores()
    assert scored.counts("a").means.mean() == pytest.approx(fast.counts("a").successes().mean() / 4)
    with pytest.raises(ValueError, match="counted by a query engine"):
        fast.run("a").matrix


def test_command_line_engine(tmp_path, capsys):
    from bayeseval.cli import main

    df = _long(np.random.default_rng(7))
    path = tmp_path / "t.parquet"
    df.to_parquet(path)
    outs = []
    for engine in ("duckdb", "pandas"):
        assert main(["report", str(path), "--metrics", "avg,pass@2", "--format", "json", "--engine", engine]) == 0
        outs.append(capsys.readouterr().out)
    import json

    a, b = (json.loads(o) for o in outs)
    va = {(r["model"], r["metric"]): r["value"] for r in (a["estimates"] if isinstance(a, dict) else a)}
    vb = {(r["model"], r["metric"]): r["value"] for r in (b["estimates"] if isinstance(b, dict) else b)}
    assert va.keys() == vb.keys() and all(va[k] == pytest.approx(vb[k], rel=1e-12) for k in va)
    assert main(["compare", "a", "b", "--data", str(path)]) == 0
    assert main(["rank", str(tmp_path / "*.parquet")]) == 0
    assert main(["plan", str(path), "--models", "a"]) == 0


@pytest.mark.slow
def test_a_spark_dataframe_is_counted_on_spark(tmp_path):
    """A local Spark session (PySpark with the Java runtime .ci/run installs): a Spark DataFrame -- from pandas,
    and read from Parquet by Spark itself -- is counted by Spark through the Ibis expression; the counts equal
    DuckDB's."""
    pyspark = pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("bayeseval-test").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    try:
        df = _long(np.random.default_rng(8), kind="grades")
        ref = count_table(df)
        on_spark = count_table(spark.createDataFrame(df))
        for m in ("a", "b"):
            _same_counts(on_spark.counts(m), ref.counts(m))
        path = tmp_path / "t.parquet"
        df.to_parquet(path)
        from_files = count_table(spark.read.parquet(str(path)))
        _same_counts(from_files.counts("b"), ref.counts("b"))
        assert be.evaluate(on_spark, ["avg"])["a", "avg"].value == pytest.approx(
            be.evaluate(ref, ["avg"])["a", "avg"].value, rel=1e-12)
        assert pyspark.__version__
    finally:
        spark.stop()
