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
    df = _long(np.random.default_rng(1), M=300, kind="scores")  # 1200 distinct values in [0, 1]: a continuous score
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


@pytest.mark.parametrize("values", [(0.0, 0.5, 1.0), (0.0, 0.25, 0.5, 0.75, 1.0), (0.0, 1.5, 2.5)])
def test_partial_credit_reads_the_same_in_every_engine(tmp_path, values):
    """Partial credit (a few distinct values that are not all integers) is one category per value, weighted by
    it, in DuckDB as in pandas: DuckDB read 0 / 0.5 / 1 as continuous scores (another prior and interval) and
    refused 1.5 / 2.5 without a score_range; a run whose values are 0/1 stays binary in both."""
    import ibis

    rng = np.random.default_rng(7)
    df = pd.DataFrame({"model": np.repeat(["a", "b"], 120), "question": np.tile(np.repeat(np.arange(30), 4), 2),
                       "trial": np.tile(np.arange(4), 60),
                       "score": np.r_[rng.choice(values, 120), rng.choice([0.0, 1.0], 120)]})
    df.to_parquet(tmp_path / "p.parquet")
    got = {e: be.load(tmp_path / "p.parquet", engine=e) for e in ("pandas", "duckdb")}
    via_ibis = count_table(ibis.memtable(df), engine="ibis")
    assert via_ibis.weights("a").tolist() == list(values) and via_ibis.weights("b") is None
    _same_counts(via_ibis.counts("a"), got["pandas"].counts("a"))
    assert got["duckdb"].weights("a").tolist() == list(values) == got["pandas"].weights("a").tolist()
    assert got["duckdb"].weights("b") is None and got["pandas"].weights("b") is None
    for m in ("a", "b"):
        _same_counts(got["pandas"].counts(m), got["duckdb"].counts(m))
        ev = {e: be.evaluate(got[e], ["avg", "bayes"]).to_frame() for e in got}
        pd.testing.assert_frame_equal(ev["pandas"], ev["duckdb"])
    mean = df[df.model == "a"].groupby("question").score.mean().mean()
    assert be.estimate(got["duckdb"].counts("a"), "avg", w=got["duckdb"].weights("a")).value == pytest.approx(mean)


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
    # a wider number type and the columns in another order: read by name, widened, counted as the whole table
    df.iloc[100:].astype({"trial": float})[["score", "trial", "question", "model"]].to_parquet(
        tmp_path / "parts" / "p1.parquet")
    whole = count_table(df)
    for got in (count_table(str(tmp_path / "parts" / "*.parquet")),
                count_shards(str(tmp_path / "parts"), progress=lambda it: it)):
        for m in ("a", "b"):
            _same_counts(got.counts(m), whole.counts(m))
    # an id column stored as text in one part and as numbers in the other is refused, on both paths
    df.iloc[100:].astype({"trial": str}).to_parquet(tmp_path / "parts" / "p1.parquet")
    for count in (lambda p: count_table(str(p / "*.parquet")), lambda p: count_shards(str(p), progress=lambda it: it)):
        with pytest.raises(ValueError, match=r"p0.parquet stores column 'trial' as numbers and .*p1.parquet as text"):
            count(tmp_path / "parts")


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
        assert on_spark.run("a").meta["trials"]["rows"].sum() == (df.model == "a").sum()
        # a repeated (question, trial) is found on Spark too, in the same pass as the counts
        dup = pd.concat([df, df.iloc[[5]]], ignore_index=True)
        with pytest.raises(ValueError, match=r"question 'q001' has a \(question, trial\) written more than once"):
            count_table(spark.createDataFrame(dup))
        assert pyspark.__version__
        # load(engine="spark") and the CLI's --engine spark: Spark reads the files (here the running session)
        df.to_csv(tmp_path / "t.csv", index=False)
        for f in (path, tmp_path / "t.csv"):
            via = be.load(str(f), engine="spark")
            _same_counts(via.counts("a"), ref.counts("a"))
        from bayeseval.cli import main

        assert main(["report", str(path), "--engine", "spark", "--quiet", "--format", "json"]) == 0
    finally:
        spark.stop()


def test_trial_summaries_and_the_unpacked_query(tmp_path):
    """The counting query sums score and trial as one packed integer when the Parquet statistics allow it; trial
    numbers too large for that (or a missing score) take the unpacked query: the same counts and the same
    per-question trial summaries (rows, max, sum) either way, equal to pandas' own."""
    df = _long(np.random.default_rng(9), M=50, N=6, ragged=True)
    df.to_parquet(tmp_path / "small.parquet")
    big = df.assign(trial=df.trial + 3_000_000_000)  # >= 2^31: not packed; trials not 0..max (a gap): not flagged
    big.to_parquet(tmp_path / "big.parquet")
    nulls = df.astype({"score": float})
    nulls.loc[nulls.index[::9], "score"] = np.nan
    nulls.to_parquet(tmp_path / "nulls.parquet")
    want = df.groupby(["model", "question"]).trial.agg(["count", "max", "sum"])
    for name, frame in (("small", df), ("big", big), ("nulls", nulls)):
        o = count_table(tmp_path / f"{name}.parquet")
        ref = read_long(tmp_path / f"{name}.parquet")
        for m in ("a", "b"):
            _same_counts(o.counts(m), ref.counts(m))
            summ = o.run(m).meta["trials"]
            assert summ["ids"] is o.counts(m).ids
            got = pd.DataFrame({"rows": summ["rows"], "max": summ["max"], "sum": summ["sum"]},
                               index=[str(i) for i in summ["ids"]]).sort_index()
            w = want.loc[m].loc[got.index]  # (with missing scores, a question with none observed is left out)
            assert len(got) == (len(w) if name != "nulls" else len(got)) and len(got) >= 45
            shift = 3_000_000_000 if name == "big" else 0
            np.testing.assert_array_equal(got["rows"], w["count"])
            np.testing.assert_array_equal(got["max"], w["max"] + shift)
            np.testing.assert_array_equal(got["sum"], w["sum"] + shift * w["count"])
    assert list(count_table(tmp_path / "small.parquet").run("a").ids) == sorted(df.question.unique())


def test_empty_ids_and_control_characters_are_named(tmp_path):
    df = _long(np.random.default_rng(10))
    q = df.astype({"question": object})
    q.loc[7, "question"] = None
    q.to_parquet(tmp_path / "q.parquet")
    with pytest.raises(ValueError, match=r"q.parquet: row 7: column 'question' \(question id\) is empty"):
        count_table(tmp_path / "q.parquet")
    c = df.copy()
    c.loc[11, "question"] = "q\x01"
    c.to_parquet(tmp_path / "c.parquet")
    with pytest.raises(ValueError, match=r"c.parquet: row 11: column 'question' \(question\) contains the control"):
        count_table(tmp_path / "c.parquet")


def test_repeated_trials_across_shards(tmp_path):
    """Counts keep, per question, the number of trial rows and the maximum and sum of the trial numbers, so a
    (question, trial) counted in two shards is found when the shards are added (count_shards, add_counts);
    check_overlap=True checks every trial in the engine and names both files."""
    df = _long(np.random.default_rng(11), M=30)
    later = df.assign(trial=df.trial + 4)  # the same questions, trials 4..7: no overlap
    ok = tmp_path / "ok"
    ok.mkdir()
    df.to_parquet(ok / "p0.parquet")
    later.to_parquet(ok / "p1.parquet")
    pooled = count_shards(str(ok), progress=lambda it: it, check_overlap=True)
    assert pooled.counts("a").n.tolist() == [8] * 30
    summ = pooled.run("a").meta["trials"]
    assert summ["ids"] is pooled.counts("a").ids and summ["rows"].tolist() == [8] * 30
    assert summ["max"].tolist() == [7] * 30 and summ["sum"].tolist() == [28] * 30
    bad = tmp_path / "bad"
    bad.mkdir()
    df.to_parquet(bad / "p0.parquet")
    df[df.question == "q004"].to_parquet(bad / "p1.parquet")  # q004 trials 0..3 again
    with pytest.raises(ValueError, match=r"p1.parquet \(added to the shards before it\): .*question 'q004' has a "
                                         r"\(question, trial\) counted in both parts \(4 \+ 4 rows"):
        count_shards(str(bad), progress=lambda it: it)
    with pytest.raises(ValueError, match=r"'q004', 0 of 'a' appears 2 times \(in .*p0.parquet and .*p1.parquet\)"):
        count_shards(str(bad), check_overlap=True)
    with pytest.raises(ValueError, match=r"question 'q004' has a \(question, trial\) counted in both parts"):
        add_counts(count_table(df), count_table(df[(df.question == "q004") & (df.trial < 2)].assign(
            trial=lambda d: d.trial + 1)))  # trials 1, 2 again (a gap at 0 in that part: fine on its own)
    # the overlap only a gap hides: q004 has trials 0..3 and 5 in one shard and 5 again in the other; the pooled
    # summary cannot tell (documented), the engine check can
    gap = tmp_path / "gap"
    gap.mkdir()
    df.to_parquet(gap / "p0.parquet")
    extra = df[(df.question == "q004") & (df.trial == 0)].assign(trial=5)
    extra.to_parquet(gap / "p1.parquet")
    pd.concat([extra, extra.assign(trial=9)]).to_parquet(gap / "p2.parquet")
    count_shards(str(gap), progress=lambda it: it)  # counted: 0..3, 5, 5, 9 has a gap at 4 and 6..8
    with pytest.raises(ValueError, match=r"'q004', 5 of 'a' appears 2 times \(in .*p1.parquet and .*p2.parquet\)"):
        count_shards(str(gap), check_overlap=True)
    # counts read back from disk carry no trial numbers: adding them cannot check (documented)
    write_counts(count_table(df), tmp_path / "history.parquet")
    assert add_counts(read_counts(tmp_path / "history.parquet"), count_table(df)).counts("a").n.tolist() == [8] * 30


def test_the_ibis_path_finds_repeated_trials(tmp_path):
    """The Ibis expression carries the trial numbers' maximum and sum (and the rows whose trial is not a
    non-negative integer) in its one GROUP BY: the DuckDB path's check, on any backend (Spark: in the slow test)."""
    import ibis

    df = _long(np.random.default_rng(12))
    dup = pd.concat([df, df.iloc[[6]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"question 'q001' has a \(question, trial\) written more than once"):
        count_table(ibis.memtable(dup))
    dup.to_parquet(tmp_path / "dup.parquet")
    with pytest.raises(ValueError, match=r"question 'q001' has a \(question, trial\) written more than once"):
        count_table(ibis.duckdb.connect().read_parquet(str(tmp_path / "dup.parquet")))
    text = df.astype({"trial": str})
    text.loc[3, "trial"] = "x"
    with pytest.raises(ValueError, match=r"column 'trial' must be a non-negative integer trial index \(1 rows"):
        count_table(ibis.memtable(text))
    fine = count_table(ibis.memtable(df.astype({"trial": str})))
    _same_counts(fine.counts("a"), count_table(df).counts("a"))
    groups = count_expression(ibis.memtable(df)).to_pandas()
    assert {"tmax", "tsum", "tbad"} <= set(groups.columns) and groups.tbad.sum() == 0


def _httpfs_or_skip():
    from bayeseval.io.scale import _cursor

    con = _cursor(duckdb)  # count_table's own database (it finds a duckdb-ext-httpfs wheel of this DuckDB version)
    try:
        con.execute("LOAD httpfs")
    except duckdb.Error as exc:
        pytest.skip("DuckDB's httpfs extension is not installed here and cannot be downloaded "
                    f"({str(exc).splitlines()[0][:120]})")
    finally:
        con.close()


def test_a_parquet_file_over_http(tmp_path):
    """A URL is counted by DuckDB's httpfs (range requests to a loopback HTTP server)."""
    _httpfs_or_skip()
    import functools
    import http.server
    import threading

    df = _long(np.random.default_rng(13))
    df.to_parquet(tmp_path / "x.parquet")

    class Ranged(http.server.SimpleHTTPRequestHandler):
        def send_head(self):  # Range: bytes=a-b -> 206 with that slice
            rng = self.headers.get("Range")
            path = self.translate_path(self.path)
            if not rng or not rng.startswith("bytes="):
                return super().send_head()
            data = open(path, "rb").read()
            a, _, b = rng[6:].partition("-")
            a, b = int(a), min(int(b) if b else len(data) - 1, len(data) - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {a}-{b}/{len(data)}")
            self.send_header("Content-Length", str(b - a + 1))
            self.end_headers()
            import io

            return io.BytesIO(data[a:b + 1])

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(Ranged, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/x.parquet"
        remote = load(url)
        for m in ("a", "b"):
            _same_counts(remote.counts(m), count_table(df).counts(m))
    finally:
        server.shutdown()


@pytest.mark.parametrize("trial, shown", [(0.5, "0.5"), (-1, "-1"), (2**60, str(2**60))])
def test_the_engine_checks_trial_numbers_as_pandas_does(tmp_path, trial, shown):
    """Parquet counted in DuckDB: a trial index that is not a whole number in [0, 2^53] is an error naming the row
    (0.5 and -1 were taken silently, 2^60 overflowed inside the engine), as the pandas reader says."""
    df = pd.DataFrame({"model": ["a"] * 4, "question": ["q1", "q1", "q2", "q2"], "score": [1, 0, 1, 1],
                       "trial": [0, trial, 0, 1]})
    df.to_parquet(tmp_path / "t.parquet")
    with pytest.raises(ValueError, match=rf"row 1: column 'trial' must be a non-negative integer trial index.*"
                                         rf"got {shown}"):
        load(tmp_path / "t.parquet", engine="duckdb")
    df.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(ValueError, match=r"column 'trial' must be a non-negative integer trial index"):
        load(tmp_path / "t.csv", engine="pandas")


def test_the_engine_reads_true_and_false_text_as_pandas_does(tmp_path):
    p = tmp_path / "tf.csv"
    p.write_text("model,question,score\na,q1,True\na,q1,False\na,q2,TRUE\na,q2,false\nb,q1,true\nb,q2,0\n")
    for engine in ("duckdb", "pandas"):
        s = load(p, engine=engine)
        np.testing.assert_array_equal(s.counts("a").table, [[1, 1], [1, 1]])
        np.testing.assert_array_equal(s.counts("b").table, [[0, 1], [1, 0]])


def test_each_run_is_coded_on_its_own_values_in_every_engine(tmp_path):
    """One model graded 0..2, the other 0/1 in the same table: DuckDB gave the 0/1 model three categories (and so
    another prior and interval) where pandas reads it as binary; both now code each run on its own values."""
    p = tmp_path / "g.csv"
    p.write_text("model,question,score\n" + "".join(f"a,q{i},{v}\n" for i, v in enumerate([1, 0, 0, 1, 0, 2]))
                 + "".join(f"b,q{i},{v}\n" for i, v in enumerate([1, 0, 0, 1, 0, 1])))
    got = {e: load(p, engine=e) for e in ("pandas", "duckdb")}
    for e, s in got.items():
        assert s.counts("b").table.shape == (6, 2) and s.run("b").weights is None, e
        assert s.counts("a").table.shape == (6, 3) and s.run("a").weights.tolist() == [0, 1, 2], e
    assert be.estimate(got["duckdb"].counts("b"), "avg").interval == be.estimate(got["pandas"].counts("b"), "avg").interval


def test_a_misspelt_dataset_or_trial_column_is_an_error_in_duckdb_and_ibis(tmp_path):
    """Named otherwise than their defaults, the optional columns must exist (they pooled the datasets)."""
    import ibis

    df = pd.DataFrame({"bench": ["easy", "easy", "hard", "hard"], "model": "m", "question": ["q1", "q2"] * 2,
                       "trial": 0, "score": [1, 0, 1, 1]})
    path = tmp_path / "bench.parquet"
    df.to_parquet(path)
    assert [r.dataset for r in count_table(str(path), dataset="bench")] == ["easy", "hard"]
    with pytest.raises(ValueError, match=r"no dataset column 'bnech'; columns are \['bench', 'model', 'question', "
                                         r"'score', 'trial'\] \(pass dataset=None"):
        count_table(str(path), dataset="bnech")
    with pytest.raises(ValueError, match="no trial column 'tiral'"):
        count_table(str(path), trial="tiral")
    with pytest.raises(ValueError, match="^table: no dataset column 'bnech'"):
        count_expression(ibis.memtable(df), dataset="bnech")


def test_shards_counted_one_by_one_give_the_one_query(tmp_path):
    """load(..., progress=f) counts a folder shard by shard; it failed on an empty shard ("no scores") and on
    shards read differently on their own values (0/1 beside grades or partial credit), where the one query over
    every file succeeds.  Now both give the same counts and weights."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def shard(folder, name, values, questions):
        folder.mkdir(exist_ok=True)
        rows = [{"model": "m", "question": q, "trial": t, "score": float(v)} for q in questions
                for t, v in enumerate(values)]
        schema = pa.schema([("model", pa.string()), ("question", pa.int64()), ("trial", pa.int64()),
                            ("score", pa.float64())])
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), folder / name)

    cases = {"grades": ([0, 1, 1, 0], [0, 2, 1, 2]), "partial": ([0, 1, 1, 0], [0, 0.5, 1, 0.5]),
             "empty": ([0, 1, 1, 0], [])}
    for name, (first, second) in cases.items():
        folder = tmp_path / name
        shard(folder, "a.parquet", first, range(5))
        shard(folder, "b.parquet", second, range(5, 10))
        seen = []
        one = be.load(folder)
        each = be.load(folder, progress=lambda files: (seen.append(f) or f for f in files))
        assert len(seen) == 2
        np.testing.assert_array_equal(each.counts("m").table, one.counts("m").table)
        w1, w2 = one.weights("m"), each.weights("m")
        assert (w1 is None and w2 is None) or w1.tolist() == w2.tolist()
    assert be.load(tmp_path / "partial", progress=list).weights("m").tolist() == [0.0, 0.5, 1.0]
    assert be.load(tmp_path / "grades", progress=list).weights("m").tolist() == [0.0, 1.0, 2.0]
    # a shard whose values alone say nothing of their scale (every score 0.5), read with the others: one query
    shard(tmp_path / "half", "a.parquet", [0, 1, 0.5, 1], range(4))
    shard(tmp_path / "half", "b.parquet", [0.5, 0.5], range(4, 6))
    assert be.load(tmp_path / "half", progress=list).weights("m").tolist() == [0.0, 0.5, 1.0]
    # with an empty shard of another schema beside them: the one query leaves it out, as the shard loop does
    pq.write_table(pa.table({"model": pa.array([], pa.string()), "question": pa.array([], pa.int32()),
                             "trial": pa.array([], pa.int32()), "score": pa.array([], pa.string())}),
                   tmp_path / "half" / "c.parquet")
    both = [str(tmp_path / "half" / f) for f in ("a.parquet", "b.parquet")]
    np.testing.assert_array_equal(be.load(tmp_path / "half", progress=list).counts("m").table,
                                  count_table(both).counts("m").table)  # one query over the shards with scores
    shard(tmp_path / "none", "a.parquet", [], range(3))
    shard(tmp_path / "none", "b.parquet", [], range(3))
    with pytest.raises(ValueError, match="no scores .* in any of its 2 files"):
        be.load(tmp_path / "none", progress=list)


def test_the_repeat_a_gap_hides_from_the_engine_rule(tmp_path):
    """docs/scale.md's example: trials 0, 0, 3 (three rows, max 3) pass the engine's rule, which the pandas reader
    refuses; 0, 2, 2 (three rows, max 2, sum 4 != 3) is caught by the rule itself."""
    def table(trials):
        path = tmp_path / f"t{'_'.join(map(str, trials))}.csv"
        pd.DataFrame({"model": "m", "question": "q0", "trial": trials, "score": [1] * len(trials)}).to_csv(path,
                                                                                                           index=False)
        return str(path)

    with pytest.raises(ValueError, match=r"written more than once"):
        count_table(table([0, 2, 2]))
    hidden = table([0, 0, 3])
    assert count_table(hidden).run("m").counts().n.tolist() == [3]
    with pytest.raises(ValueError):
        read_long(hidden)


def test_a_url_without_httpfs_is_not_called_a_bad_file():
    """Where httpfs cannot be loaded, a URL was refused as 'not a valid parquet table (An error occurred while trying
    to automatically install the required extension 'httpfs:)'; the file is not at fault."""
    from bayeseval.io.scale import _cursor

    con = _cursor(duckdb)
    try:
        con.execute("LOAD httpfs")
        pytest.skip("httpfs loads here: URLs are read")
    except duckdb.Error:
        pass
    finally:
        con.close()
    with pytest.raises(ImportError, match=r"reading a URL needs DuckDB's httpfs extension"):
        count_table("http://127.0.0.1:1/x.parquet")


def test_an_empty_file_or_a_table_without_rows_says_so(tmp_path):
    """An empty CSV was 'no question column ... columns are ['column0']' and a header-only CSV or zero-row Parquet
    'no scores (every score is missing)'; a table whose scores are all missing keeps that message."""
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header.csv").write_text("model,question,trial,score\n")
    empty = pd.DataFrame({"model": pd.Series([], dtype=str), "question": pd.Series([], dtype=str),
                          "trial": pd.Series([], dtype=int), "score": pd.Series([], dtype=float)})
    empty.to_parquet(tmp_path / "zero.parquet")
    with pytest.raises(ValueError, match=r"empty\.csv: the file is empty \(expected a header line"):
        count_table(tmp_path / "empty.csv")
    for source in (tmp_path / "header.csv", tmp_path / "zero.parquet", empty):
        with pytest.raises(ValueError, match=r": the table has no rows$"):
            count_table(source)
    missing = pd.DataFrame({"model": ["a"], "question": ["q"], "trial": [0], "score": [np.nan]})
    with pytest.raises(ValueError, match=r"no scores \(every score is missing\)"):
        count_table(missing)


def test_the_pandas_engine_reads_globs_and_folders_of_shards_as_duckdb_counts_them(tmp_path):
    """engine='pandas' (every row read, its exact checks) said 'no such file or folder' for a glob and 'not an
    AISBench ... folder' for a folder of shards; it reads them as one table, with the same estimates."""
    rng = np.random.default_rng(5)
    for s in range(3):
        pd.DataFrame([{"model": m, "question": f"q{s}_{i}", "trial": t, "score": int(rng.random() < 0.6)}
                      for m in "ab" for i in range(20) for t in range(3)]).to_parquet(tmp_path / f"part{s}.parquet")
    counted = load(tmp_path, engine="duckdb")
    for source in (str(tmp_path / "*.parquet"), tmp_path):
        read = load(source, engine="pandas")
        for m in "ab":
            a, b = be.estimate(counted.run(m).counts()), be.estimate(read.run(m).counts())
            assert (a.value, a.lo, a.hi) == (b.value, b.lo, b.hi) and b.M == 60
    with pytest.raises(FileNotFoundError, match=r"the pattern matches no file"):
        load(str(tmp_path / "*.csv"), engine="pandas")
