"""Counting at scale, from an adversarial review: the one-query path and the shard-by-shard path read the same
shards alike, the DuckDB reader refuses the ids the pandas reader refuses, counts on disk read back as written, and
the sequential commands read Parquet runs."""
import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("duckdb")

from bayeseval.io import load  # noqa: E402
from bayeseval.io.scale import add_counts, count_shards, count_table, read_counts, write_counts  # noqa: E402

BASE = dict(model=["a"] * 4, question=[1, 1, 2, 2], trial=[0, 1, 0, 1], score=[1, 0, 1, 1])


def _both_paths(folder):
    return (lambda: count_shards(str(folder)), lambda: count_shards(str(folder), progress=lambda it: it))


def test_a_shard_without_a_column_the_others_have_is_refused_on_both_paths(tmp_path):
    """With progress, a shard without the trial column was added unchecked (its rows could repeat the other
    shard's trials), where one query refused the folder."""
    pq.write_table(pa.table(BASE), tmp_path / "p0.parquet")
    pq.write_table(pa.table({k: v for k, v in BASE.items() if k != "trial"}), tmp_path / "p1.parquet")
    for count in _both_paths(tmp_path):
        with pytest.raises(ValueError, match=r"p1.parquet: no trial column 'trial', which .*p0.parquet has"):
            count()


def test_shards_are_read_by_column_name_and_widened(tmp_path):
    """Column order, int32 beside int64 and an extra column do not matter (the order gave "its columns differ
    ([])"); a 0.5 in the second shard stays 0.5 (read with the first shard's int type it would be cast to 0)."""
    pq.write_table(pa.table({**BASE, "question": pa.array([1, 1, 2, 2], pa.int32())}), tmp_path / "p0.parquet")
    second = {"score": [1.0, 0.5, 0.0, 1.0], "trial": [0, 1, 0, 1], "question": [3, 3, 4, 4], "model": ["a"] * 4,
              "extra": ["x"] * 4}
    pq.write_table(pa.table(second), tmp_path / "p1.parquet")
    for count in _both_paths(tmp_path):
        got = count()
        assert got.counts("a").ids.tolist() == [1, 2, 3, 4]
        assert got.run("a").weights.tolist() == [0.0, 0.5, 1.0]
        assert got.counts("a").table.tolist() == [[1, 0, 1], [0, 0, 2], [0, 1, 1], [1, 0, 1]]


@pytest.mark.parametrize("ids, typ", [([True, True, False, False], "BOOLEAN"), ([b"\x00a", b"\x00a", b"b", b"b"], "BLOB"),
                                      ([[1], [1], [2], [2]], r"BIGINT\[\]"),
                                      ([{"x": 1}] * 2 + [{"x": 2}] * 2, r"STRUCT\(x BIGINT\)")])
def test_ids_that_are_not_text_or_numbers_are_refused_by_the_engine(tmp_path, ids, typ):
    """As the pandas reader refuses them; they became questions (True, b'\\x00a', [1]) or ended in Python's "'<'
    not supported between instances of 'dict' and 'dict'"."""
    pq.write_table(pa.table({**BASE, "question": ids}), tmp_path / "q.parquet")
    with pytest.raises(ValueError, match=rf"column 'question' \(question id\) holds {typ}; a question id must be text "
                                         "or a number"):
        count_table(str(tmp_path / "q.parquet"))


def test_a_nan_id_is_empty_in_the_engine_as_in_the_pandas_reader(tmp_path):
    """Between 1.0 and 2.0: Parquet's statistics leave NaN out, and DuckDB folded isnan() to false from them (a
    review found the first fix passing only on a column whose other ids were all 1.0)."""
    pq.write_table(pa.table({**BASE, "question": [1.0, 1.0, np.nan, 2.0]}), tmp_path / "q.parquet")
    for engine in ("duckdb", "pandas"):
        with pytest.raises(ValueError, match=r"row 2: column 'question' \(question id\) is empty"):
            load(str(tmp_path / "q.parquet"), engine=engine)
    pq.write_table(pa.table({**BASE, "model": [1.0, np.nan, 2.0, 2.0]}), tmp_path / "m.parquet")
    with pytest.raises(ValueError, match=r"row 1: column 'model' \(model\) is empty"):
        count_table(str(tmp_path / "m.parquet"))


@pytest.mark.parametrize("trial", [pa.array([0, 2**64 - 1, 0, 1], pa.uint64()), pa.array([2**62, 2**62, 0, 1])])
def test_huge_trial_numbers_get_the_trial_message(tmp_path, trial):
    """A uint64 trial past 2^63, or two int64 trials of 2^62 in one question, overflowed DuckDB's sum and the file
    was called "not a valid parquet table"."""
    pq.write_table(pa.table({**BASE, "trial": trial}), tmp_path / "t.parquet")
    with pytest.raises(ValueError, match=r"column 'trial' must be a non-negative integer trial index \(at most 2\^53\)"):
        count_table(str(tmp_path / "t.parquet"))
    pq.write_table(pa.table({**BASE, "trial": pa.array([0, 1, 0, 1], pa.uint64())}), tmp_path / "t.parquet")
    assert count_table(str(tmp_path / "t.parquet")).counts("a").table.tolist() == [[1, 1], [0, 2]]


def test_counts_on_disk_read_back_as_written(tmp_path):
    """A 0/1 run beside a scores run read back as two score runs ("Scores needs a range ... got (nan, nan)"), and
    whole-number ids came back as text, so fresh counts no longer added to them."""
    scores = pd.DataFrame({"model": ["s"] * 4, "question": [1, 1, 2, 2], "trial": [0, 1, 0, 1],
                           "score": [0.3, 0.7, 0.1, 0.9]})
    both = count_table(pd.DataFrame(BASE)).add(count_table(scores, score_range=(0, 1)))
    write_counts(both, tmp_path / "c.parquet")
    back = read_counts(tmp_path / "c.parquet")
    assert [r.model for r in back] == ["a", "s"]
    assert back.counts("a").table.tolist() == [[1, 1], [0, 2]] and back.counts("a").ids.tolist() == [1, 2]
    s = back.counts("s")
    assert (s.lo, s.hi, s.ids.tolist()) == (0.0, 1.0, [1, 2])
    np.testing.assert_allclose(s.total, [1.0, 1.0])
    np.testing.assert_allclose(s.sq, [0.08, 0.32])  # within-question sums of squares: 2 x 0.2^2, 2 x 0.4^2
    fresh = count_table(pd.DataFrame({"model": ["a"] * 2, "question": [3, 3], "trial": [0, 1], "score": [1, 1]}))
    assert add_counts(back, fresh).counts("a").ids.tolist() == [1, 2, 3]
    text = count_table(pd.DataFrame({**BASE, "question": ["x", "x", "y", "y"]}))
    write_counts(text.add(count_table(pd.DataFrame({**BASE, "model": ["b"] * 4}))), tmp_path / "t.parquet")
    mixed = read_counts(tmp_path / "t.parquet")  # text ids in one run: the column is text, and says so in the doc
    assert mixed.counts("a").ids.tolist() == ["x", "y"] and mixed.counts("b").ids.tolist() == ["1", "2"]


def test_monitor_and_replay_read_a_parquet_run_with_the_default_engine(tmp_path, capsys):
    """--engine auto counted Parquet in DuckDB, and both commands then failed ("counted by a query engine: it holds
    per-question counts, not a trial matrix"); an explicit --engine duckdb is told to read every row."""
    from bayeseval.cli import main

    rng = np.random.default_rng(0)
    rows = [(m, f"q{q}", t, int(rng.random() < p)) for m, p in (("A", 0.8), ("B", 0.4)) for q in range(40)
            for t in range(2)]
    path = tmp_path / "order.parquet"
    pd.DataFrame(rows, columns=["model", "question", "trial", "score"]).to_parquet(path)
    assert main(["monitor", "--data", str(path), "A", "B"]) == 0
    assert "A is better than B" in capsys.readouterr().out
    assert main(["replay", "--data", str(path), "A", "B", "--replays", "5"]) == 0
    assert "null replays" in capsys.readouterr().out
    assert main(["monitor", "--engine", "duckdb", "--data", str(path), "A", "B"]) == 2
    assert "not a trial matrix; have every row read (--engine pandas) for one" in capsys.readouterr().err


def test_id_types_come_from_the_id_array_not_one_python_value_per_question():
    """The command line asked every question id of every counted run for its type (11 s of a 31 s report --html on
    10^7 cells); the types now come from the id array's dtype, and agree with the ids' own types."""
    from bayeseval.io.outcomeset import id_kinds

    ints = count_table(pd.DataFrame(BASE))
    text = count_table(pd.DataFrame({**BASE, "question": ["x", "x", "y", "y"]}))
    for run in (ints.run("a"), text.run("a")):
        assert run.id_types == frozenset(type(i) for i in run.ids)
    assert ints.run("a").id_types == {int} and text.run("a").id_types == {str}
    assert id_kinds(np.array([1.5, 2.0])) == {float} and id_kinds(np.array([], dtype=object)) == frozenset()
    assert id_kinds(np.array(["a", 7, 2.5], dtype=object)) == {str, int, float}


def test_an_empty_shard_of_another_schema_adds_nothing_on_both_paths(tmp_path):
    """One query left an empty shard with only a column 'foo' out; counted shard by shard it was read and failed
    ("no question column")."""
    pq.write_table(pa.table(BASE), tmp_path / "a.parquet")
    pq.write_table(pa.table({"foo": pa.array([], pa.int64())}), tmp_path / "b.parquet")
    for count in _both_paths(tmp_path):
        assert count().counts("a").table.tolist() == [[1, 1], [0, 2]]


def test_model_name_reads_parquet_and_refuses_a_table_with_a_model_column(tmp_path, capsys):
    """--model-name renamed runs with dataclasses.replace, which a counted run (Parquet, DuckDB) is not; and a table
    with a model column was pooled into one model without a word."""
    from bayeseval.cli import main

    pd.DataFrame({"task_id": [1, 1, 2, 2], "trial": [0, 1, 0, 1], "reward": [1.0, 0.0, 1.0, 1.0]}).to_parquet(
        tmp_path / "one.parquet")
    args = ["--question-col", "task_id", "--score-col", "reward", "--metrics", "avg", "--format", "csv"]
    assert main(["report", str(tmp_path / "one.parquet"), "--model-name", "X", *args]) == 0
    assert "\n,X,avg,0.75," in capsys.readouterr().out
    pd.DataFrame({"model": ["a", "a", "b", "b"], "question": [1, 2, 1, 2], "score": [1, 1, 0, 0]}).to_csv(
        tmp_path / "two.csv", index=False)
    assert main(["report", str(tmp_path / "two.csv"), "--model-name", "X"]) == 2
    assert "two.csv has a model column 'model' (models: a, b); --model-name names the one model of a table without " \
           "one: leave it out" in capsys.readouterr().err
