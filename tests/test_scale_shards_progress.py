"""count_shards(progress=...) pools the shards on integer codes (issue: the progress path was many times slower than
one query, its time in pd.Index work of adding each shard's counts): the result is, to the last bit, what adding the
shards one at a time with add_counts gave (the runs in the same order, their ids of the same type, counts, scores'
sums of squares, trial summaries, category weights, warnings) and, for the counts, what one query over the files
gives; errors are the same, in the same order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayeseval.io import scale
from bayeseval.io._vendor import OneValue
from bayeseval.io.outcomeset import ReadingMismatch
from bayeseval.io.scale import NoScores, add_counts, count_shards, count_table

pytest.importorskip("duckdb")


def _one_at_a_time(source, **kw):
    """The progress path as it was: each shard counted and added to the ones before it with add_counts."""
    files = scale._files(source)
    kept = set(scale._check_shards(files, kw))
    out, empty = None, set(files) - kept
    for i, f in enumerate(files):
        if f not in kept:
            continue
        try:
            part = count_table(f, **kw)
            out = part if out is None else add_counts(out, part, where=f"{f} (added to the shards before it)")
        except NoScores:
            empty.add(f)
        except (ReadingMismatch, OneValue):
            empty |= {x for x in files[i + 1:] if scale._empty_shard(x, kw)}
            out = count_table([x for x in files if x not in empty], **kw)
            break
    out.source = str(source)
    return out


def _identical(a, b):
    """Two OutcomeSets equal to the last bit: runs, labels, ids (values and Python types), counts, meta, warnings."""
    assert (a.source, a.warnings) == (b.source, b.warnings)
    assert [(r.dataset, r.model) for r in a] == [(r.dataset, r.model) for r in b]
    for x, y in zip(a, b):
        cx, cy = x.counts(), y.counts()
        assert type(cx) is type(cy) and type(x) is type(y)
        assert cx.ids.dtype == cy.ids.dtype and cx.ids.tolist() == cy.ids.tolist()
        assert [type(v) for v in cx.ids] == [type(v) for v in cy.ids]
        if hasattr(cx, "table"):
            np.testing.assert_array_equal(cx.table, cy.table)
            assert cx.fixed_categories == cy.fixed_categories
            assert (x.weights is None) == (y.weights is None)
            if x.weights is not None:
                np.testing.assert_array_equal(x.weights, y.weights)
        else:
            for k in ("n", "total", "sq"):
                assert getattr(cx, k).dtype == getattr(cy, k).dtype
                assert getattr(cx, k).tobytes() == getattr(cy, k).tobytes(), k  # bit for bit
            assert (cx.lo, cx.hi) == (cy.lo, cy.hi)
        assert list(x.meta) == list(y.meta)
        for k in x.meta:
            if k != "trials":
                assert x.meta[k] == y.meta[k]
                continue
            sx, sy = x.meta[k], y.meta[k]
            assert list(sx) == list(sy) and sx["ids"] is cx.ids and sy["ids"] is cy.ids
            for kk in ("rows", "max", "sum"):
                assert sx[kk].dtype == sy[kk].dtype == np.int64
                np.testing.assert_array_equal(sx[kk], sy[kk])


def _same_counts(a, b):
    """The counts of one OutcomeSet equal another's (ids lined up; the one query orders them its own way)."""
    assert sorted((r.dataset, r.model) for r in a) == sorted((r.dataset, r.model) for r in b)
    for x in a:
        cx, cy = x.counts(), b.run(x.model, x.dataset).counts()
        pos = pd.Index(list(cy.ids)).get_indexer(list(cx.ids))
        assert (pos >= 0).all() and cx.M == cy.M
        if hasattr(cx, "table"):
            K = max(cx.table.shape[1], cy.table.shape[1])
            pad = (lambda t: np.pad(t, ((0, 0), (0, K - t.shape[1]))))
            np.testing.assert_array_equal(pad(cx.table), pad(cy.table)[pos])
        else:
            np.testing.assert_array_equal(cx.n, cy.n[pos])
            np.testing.assert_allclose(cx.total, cy.total[pos], rtol=1e-12)
            np.testing.assert_allclose(cx.sq, cy.sq[pos], rtol=1e-9, atol=1e-12)


def _table(seed, models=("a", "b", "c"), M=60, N=6, kind="binary", ids="text", datasets=("d",)):
    rng = np.random.default_rng(seed)
    parts = []
    for ds in datasets:
        for m in models:
            q = np.repeat(np.arange(M), N)
            p = rng.beta(0.5, 1.5, M)[q]
            if kind == "binary":
                v = (rng.random(q.size) < p).astype(np.int64)
            elif kind == "grades":
                v = rng.integers(0, 4, q.size) * (rng.random(q.size) < p)
            elif kind == "missing":
                v = np.where(rng.random(q.size) < 0.1, np.nan, (rng.random(q.size) < p).astype(float))
            else:  # scores with a low mean and a large spread: add_counts' rebuilds of sq move some last bits
                v = np.where(rng.random(q.size) < p, rng.random(q.size), rng.random(q.size) * 1e-3)
            qid = np.array([f"q{i:03d}" for i in range(M)], dtype=object)[q] if ids == "text" else q * 7 + 3
            parts.append(pd.DataFrame({"dataset": ds, "model": m, "question": qid, "trial": np.tile(np.arange(N), M),
                                       "score": v}))
    return pd.concat(parts, ignore_index=True)


def _write(df, folder, layout, shards=9, seed=0):
    """Shards of ``df``: ``rows`` (consecutive rows), ``trials`` (every model, a block of questions and of trials:
    each question in several shards), ``random`` (rows at random: a question's trials scattered, with gaps)."""
    folder.mkdir(parents=True, exist_ok=True)
    if layout == "rows":
        which = np.arange(len(df)) * shards // len(df)
    elif layout == "trials":
        qcode = pd.factorize(df.question)[0]
        which = (qcode % 3) * 3 + df.trial.to_numpy() % 3
    else:
        which = np.random.default_rng(seed).integers(0, shards, len(df))
    for k in range(shards):
        df[which == k].to_parquet(folder / f"part-{k:02d}.parquet", index=False)
    return folder


@pytest.mark.parametrize("layout", ["rows", "trials", "random"])
@pytest.mark.parametrize("kind, ids", [("binary", "text"), ("binary", "numbers"), ("grades", "text"),
                                       ("missing", "numbers"), ("scores", "text")])
def test_the_progress_path_is_the_shards_added_one_at_a_time(tmp_path, layout, kind, ids):
    df = _table(1, kind=kind, ids=ids, datasets=("d1", "d2") if layout == "rows" else ("d",))
    folder = _write(df, tmp_path / "parts", layout)
    kw = {"score_range": (0, 1)} if kind == "scores" else {}
    seen = []
    got = count_shards(str(folder), progress=lambda files: seen.extend(files) or files, **kw)
    assert len(seen) == 9  # the progress moved over every shard
    _identical(got, _one_at_a_time(str(folder), **kw))
    _same_counts(got, count_shards(str(folder), **kw))  # and the one query's counts


def test_models_in_some_shards_and_empty_shards(tmp_path):
    """A model only some shards hold (kept as counted where one shard holds it), shards with no row and shards whose
    every score is missing (they add nothing), questions of one model spread over shards it shares with others."""
    df = _table(2, kind="missing", models=("a", "b", "c", "d"))
    folder = tmp_path / "parts"
    folder.mkdir()
    pieces = [df[df.model.isin(["a", "b"]) & (df.trial < 3)], df[df.model == "c"],
              df[df.model.isin(["a", "b"]) & (df.trial >= 3)], df.iloc[:0],
              df[(df.model == "d") & (df.question >= "q040")].assign(score=np.nan),
              df[(df.model == "d") & (df.question < "q020")]]
    for k, piece in enumerate(pieces):
        piece.to_parquet(folder / f"p{k}.parquet", index=False)
    got = count_shards(str(folder), progress=lambda it: it)
    ref = _one_at_a_time(str(folder))
    _identical(got, ref)
    _same_counts(got, count_shards(str(folder)))
    assert got.run("c") is not None and [r.model for r in got] == ["a", "b", "c", "d"]


@pytest.mark.parametrize("layout", ["rows", "random"])
def test_scores_sums_of_squares_bit_for_bit_over_many_shards(tmp_path, layout):
    """add_counts rebuilt every pooled question's sum of squares at every shard, (sq + a) - a, which moves last bits
    (rows: a question is rebuilt at every later shard of its run): the pooled path does those rebuilds when a
    question is next added to, or at the end, and its numbers are the same to the last bit."""
    df = _table(3, kind="scores", M=80, N=10)
    folder = _write(df if layout == "rows" else df.sample(frac=1, random_state=3), tmp_path / "parts", layout,
                    shards=23, seed=4)
    got = count_shards(str(folder), progress=lambda it: it, score_range=(0, 1))
    _identical(got, _one_at_a_time(str(folder), score_range=(0, 1)))
    _same_counts(got, count_shards(str(folder), score_range=(0, 1)))


def test_int_ids_beside_float_ids_pool_as_floats(tmp_path):
    """A question column stored as integers in one shard and as floats in another (both numbers: allowed) pools
    as add_counts pooled it: floats, for the runs that both shards hold."""
    df = _table(4, ids="numbers", models=("a", "b"))
    folder = tmp_path / "parts"
    folder.mkdir()
    df[df.trial < 3].to_parquet(folder / "p0.parquet", index=False)
    df[(df.trial >= 3) & (df.model == "a")].astype({"question": float}).to_parquet(folder / "p1.parquet", index=False)
    got = count_shards(str(folder), progress=lambda it: it)
    _identical(got, _one_at_a_time(str(folder)))
    assert type(got.run("a").counts().ids[0]) is float  # b, in one shard, keeps its ids as counted
    assert got.run("b").counts().ids.dtype == np.int64


def test_a_trial_counted_in_two_shards_is_the_same_error(tmp_path):
    """The first run (in the shard's order) whose pooled trial summary shows a repeat, and its first such question
    (in the pooled order), named as add_counts named them; shards before it are added, none after."""
    df = _table(5, models=("a", "b", "c"))
    folder = tmp_path / "parts"
    folder.mkdir()
    df[df.trial < 3].to_parquet(folder / "p0.parquet", index=False)
    df[df.trial >= 3].to_parquet(folder / "p1.parquet", index=False)
    again = df[(df.model.isin(["b", "c"])) & (df.question.isin(["q041", "q007", "q030"])) & (df.trial == 4)]
    again.to_parquet(folder / "p2.parquet", index=False)
    with pytest.raises(ValueError) as old:
        _one_at_a_time(str(folder))
    with pytest.raises(ValueError) as new:
        count_shards(str(folder), progress=lambda it: it)
    assert str(new.value) == str(old.value)
    assert "p2.parquet (added to the shards before it): dataset 'd', model 'b': question 'q007' has a (question, " \
           "trial) counted in both parts (6 + 1 rows, trials up to 5)" in str(new.value)


def test_shards_read_differently_are_counted_together(tmp_path):
    """0/1 in one shard, partial credit in another: counted in one query over the files that are not empty, as
    before (a ReadingMismatch while adding)."""
    df = _table(6, models=("a",))
    folder = tmp_path / "parts"
    folder.mkdir()
    df[df.trial < 3].to_parquet(folder / "p0.parquet", index=False)
    df[df.trial >= 3].assign(score=lambda d: d.score * 0.5).to_parquet(folder / "p1.parquet", index=False)
    df.iloc[:0].to_parquet(folder / "p2.parquet", index=False)
    got = count_shards(str(folder), progress=lambda it: it)
    _identical(got, _one_at_a_time(str(folder)))
    assert got.run("a").weights.tolist() == [0.0, 0.5, 1.0]


def test_text_ids_beside_number_ids_are_refused(tmp_path, monkeypatch):
    """The shards' schemas refuse an id column stored as text in one and as numbers in another; were it to pass (a
    shard DuckDB cannot describe), adding the counts refuses the mix as add_counts did: 7 and '7' are not one id."""
    df = _table(7, models=("a",), ids="numbers")
    folder = tmp_path / "parts"
    folder.mkdir()
    df[df.trial < 3].to_parquet(folder / "p0.parquet", index=False)
    df[df.trial >= 3].astype({"question": str}).to_parquet(folder / "p1.parquet", index=False)
    with pytest.raises(ValueError, match=r"stores column 'question' as numbers and .*p1.parquet as text"):
        count_shards(str(folder), progress=lambda it: it)
    monkeypatch.setattr(scale, "_check_shards", lambda files, kw: files)
    with pytest.raises(ValueError) as old:
        _one_at_a_time(str(folder))
    with pytest.raises(ValueError) as new:
        count_shards(str(folder), progress=lambda it: it)
    assert str(new.value) == str(old.value) and "question ids mix types (int, str)" in str(new.value)


def test_pooled_runs_keep_their_trial_summary_and_a_run_of_one_shard_is_kept_as_counted(tmp_path):
    df = _table(8, models=("a", "b"))
    parts = [count_table(df[(df.model == "a") & (df.trial < 2)]), count_table(df[df.trial >= 2]),
             count_table(df[(df.model == "a") & (df.trial < 2)].assign(trial=lambda d: d.trial + 6))]
    pool = scale._ShardPool()
    for k, part in enumerate(parts):
        assert pool.add(part, f"part {k}")
    got = pool.result()
    assert got.run("b") is parts[1].run("b")  # held by one shard: the run as counted
    summ = got.run("a").meta["trials"]
    assert summ["ids"] is got.run("a").counts().ids
    assert summ["rows"].tolist() == [8] * 60 and summ["max"].tolist() == [7] * 60 and summ["sum"].tolist() == [28] * 60
    assert got.run("a").counts().n.tolist() == [8] * 60
