r"""Counting at any scale: the per-question counts of a long table computed inside a query engine.

bayeseval needs, per (dataset, model, question), only how many trials fell in each category (or, for
continuous scores, their number, sum and within-question sum of squares).  Those are a GROUP BY away, so a
table of any size -- Parquet, CSV or JSONL files, a glob, a hive-partitioned folder, a remote URL that
DuckDB's httpfs reads, or a table object (DuckDB relation, pandas / Polars / Arrow table, Ibis table,
Spark DataFrame) -- is counted where it lives and only the counts come back: memory grows with the number
of (model, question) cells, never with rows.

* :func:`count_table` -- the table -> :class:`~bayeseval.io.OutcomeSet` of counted runs
  (:class:`CountRun`), which every estimate, comparison and report takes.
* :func:`write_counts` / :func:`read_counts` -- counts to and from Parquet; :meth:`OutcomeSet.add` (counts
  add) pools shards counted separately, so a nightly evaluation updates its numbers without rereading
  history.

The engine is DuckDB (embedded, the default); the same counting is written once as an Ibis expression
(:func:`count_expression`) that each Ibis backend compiles to its own GROUP BY: a Spark DataFrame is counted by
Spark (tested on DuckDB and on a local Spark session).  The Ibis path checks the values (finite, >= 0 or in
``score_range``) but not repeated trials.

What is checked, before anything is reported (the query either completes or nothing comes back):

* mixed schemas across the parts of a glob (Parquet: column names and types of every file);
* a score that is not a number (text in a CSV), negative, or not finite: the error names the file, the row
  and the column;
* a repeated (question, trial): with a trial column, a question with more rows than ``max(trial) + 1``, or
  with exactly that many whose trial numbers are not ``0..max`` (a repeat that a gap in the numbering
  elsewhere hides is found only by the exact pandas reader, ``engine="pandas"``);
* category weights: 0/1 outcomes stay binary; integer grades ``0..C`` become categories weighted by their
  value; other values in ``[0, 1]`` (or ``score_range``) are continuous scores.
"""

from __future__ import annotations

import glob as _glob
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..counts import Counts
from ..scores import Scores, score_range_arg
from .outcomeset import CountRun, OutcomeSet, add_counts

__all__ = ["count_table", "count_shards", "CountRun", "write_counts", "read_counts", "add_counts", "count_expression", "ENGINES"]

ENGINES = ("duckdb", "ibis", "pandas")
_KEYS = ("dataset", "model", "question")


# ----------------------------------------------------------------------------- sources
def _duckdb():
    try:
        import duckdb
    except ImportError:
        raise ImportError("counting at scale needs DuckDB: pip install 'bayeseval[scale]' (or duckdb)") from None
    return duckdb


def _quote(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "csv", ".jsonl": "json",
            ".ndjson": "json", ".json": "json"}


def _files(source: Any) -> list[str]:
    """The files a path / glob / folder names (local ones; a URL is left to DuckDB)."""
    items = source if isinstance(source, (list, tuple)) else [source]
    out = []
    for item in items:
        s = str(item)
        if re.match(r"^[a-z][a-z0-9+]*://", s):
            out.append(s)
            continue
        p = Path(s)
        if p.is_dir():
            found = sorted(str(f) for f in p.rglob("*") if f.is_file() and f.suffix.lower() in _FORMATS)
            if not found:
                raise ValueError(f"{s}: a folder with no .parquet, .csv, .tsv or .jsonl files")
            out += found
        elif any(ch in s for ch in "*?["):
            found = sorted(_glob.glob(s, recursive=True))
            if not found:
                raise ValueError(f"{s}: no file matches this pattern")
            out += found
        elif p.is_file():
            out.append(s)
        else:
            raise FileNotFoundError(f"{s}: no such file or folder")
    return out


def _format_of(files: list[str], format: str | None) -> str:
    if format is not None:
        if format not in ("parquet", "csv", "json"):
            raise ValueError(f"format must be 'parquet', 'csv' or 'json', got {format!r}")
        return format
    kinds = {_FORMATS.get(Path(f.split("?")[0]).suffix.lower()) for f in files}
    if None in kinds or len(kinds) != 1:
        raise ValueError(f"cannot tell one table format from the file names {files[:3]}; pass format= "
                         "('parquet', 'csv' or 'json')")
    return kinds.pop()


def _scan(files: list[str], fmt: str, located: bool = True) -> str:
    """A DuckDB table function over the files; ``located``: with the file name and the row number in each file
    (for error messages; the counting itself reads without them)."""
    lst = "[" + ", ".join(_literal(f) for f in files) + "]"
    hive = ", hive_partitioning = true" if any("=" in Path(f).parent.name for f in files if "://" not in f) else ""
    fn = ", filename = true" if located else ""
    if fmt == "parquet":
        return f"read_parquet({lst}{fn}{', file_row_number = true' if located else ''}{hive})"
    if fmt == "csv":
        sep = "\\t" if all(f.endswith(".tsv") for f in files) else ","
        return f"read_csv({lst}{fn}, all_varchar = true, header = true, delim = '{sep}'{hive})"
    return f"read_json_auto({lst}{fn}{hive})"


def _check_schemas(con, files: list[str], fmt: str) -> None:
    """Every part has the same columns (and, for Parquet, types): checked from metadata before counting."""
    if fmt != "parquet" or len(files) < 2:
        return
    lst = "[" + ", ".join(_literal(f) for f in files) + "]"
    rows = con.execute(f"SELECT file_name, name, type FROM parquet_schema({lst}) WHERE name <> 'schema'"
                       ).fetchall()
    by_file: dict = {}
    for f, name, typ in rows:
        by_file.setdefault(f, []).append((name, typ))
    first = files[0] if files[0] in by_file else next(iter(by_file))
    want = by_file[first]
    for f, cols in by_file.items():
        if cols != want:
            a, b = dict(want), dict(cols)
            diff = sorted(set(a.items()) ^ set(b.items()))
            raise ValueError(f"{f}: its columns differ from {first}'s ({diff[:4]}); every part of a dataset must "
                             "have the same schema")


# ----------------------------------------------------------------------------- counting
def _columns(con, scan: str) -> dict:
    return {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()}


def _locate(con, scan: str, where: str, col: str, what: str, fmt: str) -> ValueError:
    """The first row where ``where`` holds: an error naming its file, row and column."""
    if fmt == "parquet":
        row = con.execute(f"SELECT filename, file_row_number, {_quote(col)} FROM {scan} WHERE {where} "
                          "ORDER BY filename, file_row_number LIMIT 1").fetchone()
        place = f"{row[0]}: row {row[1]}"
    else:
        row = con.execute(f"SELECT filename, n, v FROM (SELECT filename, row_number() OVER (PARTITION BY filename) "
                          f"AS n, {_quote(col)} AS v, {where} AS bad FROM {scan}) WHERE bad ORDER BY filename, n "
                          "LIMIT 1").fetchone()
        place = f"{row[0]}: line {int(row[1]) + 1}"  # line 1 is the header
    return ValueError(f"{place}: column {col!r} {what}, got {row[2]!r}")


def count_table(source: Any, *, model: str | None = "model", question: str = "question", trial: str | None = "trial",
                score: str = "score", dataset: str | None = "dataset", weight: str | None = None,
                score_range: Any = None, format: str | None = None, engine: str = "duckdb") -> OutcomeSet:
    """Count a long table (one row per trial) where it lives and return the counts as an OutcomeSet.

    ``source``: a path, glob (``'runs/*.parquet'``), folder (hive partitions included), URL, or a list of
    them; or a table object (DuckDB relation, pandas / Polars DataFrame, Arrow table, Ibis table, Spark
    DataFrame).  Column names as in :func:`bayeseval.io.from_long`; ``weight``: a column of trial counts
    (a table of counts, as :func:`write_counts` writes).  ``engine``: ``"duckdb"`` (default) or ``"ibis"``
    (an Ibis table counted on its own backend, through :func:`count_expression`); reading every row with
    pandas is :func:`bayeseval.io.load` with ``engine="pandas"``.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"model": ["a"] * 4, "question": [1, 1, 2, 2], "trial": [0, 1, 0, 1], "score": [1, 0, 1, 1]})
    >>> c = count_table(t).counts("a")
    >>> c.ids.tolist(), c.table.tolist()
    ([1, 2], [[1, 1], [0, 2]])
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    rng = score_range_arg(score_range)
    if engine == "pandas":
        raise ValueError("engine='pandas' reads every row: use bayeseval.io.load(..., engine='pandas') or read_long")
    if engine == "ibis" or _is_foreign(source):
        rows = _aggregate_ibis(source, model, question, trial, score, dataset, weight)
        return _assemble(rows, rng, where="table")
    duckdb = _duckdb()
    try:
        return _count_duckdb(duckdb, source, model, question, trial, score, dataset, weight, rng, format)
    except duckdb.Error as exc:  # a file DuckDB cannot read: one line naming it, nothing reported
        what = str(source) if isinstance(source, (str, Path)) else "table"
        first = str(exc).splitlines()[0]
        kind = {"parquet": "parquet", "csv": "CSV", "json": "JSON"}.get(
            _FORMATS.get(Path(what).suffix.lower(), ""), "readable")
        raise ValueError(f"{what}: not a valid {kind} table ({first})") from None


def _count_duckdb(duckdb, source, model, question, trial, score, dataset, weight, rng, format) -> OutcomeSet:
    """:func:`count_table` in DuckDB (its errors are turned into ValueError by the caller)."""
    con = duckdb.connect()
    if isinstance(source, (str, Path, list, tuple)):
        files = _files(source)
        fmt = _format_of(files, format)
        _check_schemas(con, [f for f in files if "://" not in f], fmt)
        scan, where = _scan(files, fmt, located=False), str(source)
        located_scan = _scan(files, fmt)
    else:  # a DuckDB relation, pandas / Polars / Arrow table: registered as a view
        if isinstance(source, duckdb.DuckDBPyRelation):  # it lives on another connection: read it through Arrow
            source = source.to_arrow_table()  # (to count files in place, pass their paths)
        con.register("bayeseval_src", source)
        scan, where, fmt = "bayeseval_src", "table", "table"
        located_scan = scan
    cols = _columns(con, scan)
    for col, role in ((question, "question"), (score, "score"), (model, "model"), (weight, "weight")):
        if col is not None and col not in cols:
            raise ValueError(f"{where}: no {role} column {col!r}; columns are {sorted(c for c in cols if c not in ('filename', 'file_row_number'))} "
                             f"(name yours with {role}=... ; CLI --{role}-col NAME)")
    use_trial = trial is not None and trial in cols and weight is None
    use_dataset = dataset is not None and dataset in cols
    s = _quote(score)
    numeric = re.match(r"^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|"
                       r"FLOAT|DOUBLE|DECIMAL.*)$", cols[score]) is not None
    value = f"TRY_CAST({s} AS DOUBLE)" if not numeric else (f"{s}::DOUBLE" if cols[score] != "BOOLEAN" else
                                                             f"{s}::INTEGER::DOUBLE")
    blank = f"({s} IS NULL OR trim({s}::VARCHAR) IN ('', 'NA', 'NaN', 'nan', 'null'))" if not numeric else f"{s} IS NULL"
    if not numeric:  # text that is no number: an error naming the row, before anything is counted
        bad = con.execute(f"SELECT count(*) FROM {scan} WHERE {value} IS NULL AND NOT {blank}").fetchone()[0]
        if bad:
            raise _locate(con, located_scan, f"({value} IS NULL AND NOT {blank})", score, "must be a number", fmt)
    def text(col: str) -> str:  # labels as text (a cast only where the column is not text already)
        return _quote(col) if cols[col] == "VARCHAR" else f"{_quote(col)}::VARCHAR"

    keys = [f"{text(dataset)} AS dataset" if use_dataset else "'dataset' AS dataset",
            f"{text(model)} AS model" if model is not None else "'model' AS model",
            f"{_quote(question)} AS question"]
    w = _quote(weight) if weight is not None else None
    v = f"(CASE WHEN {blank} THEN NULL ELSE {value} END)"
    t = _quote(trial) if use_trial else None
    if use_trial and not re.match(r"^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$", cols[trial]):
        t = f"TRY_CAST({_quote(trial)} AS BIGINT)"
        if con.execute(f"SELECT count(*) FROM {scan} WHERE {t} IS NULL OR {t} < 0").fetchone()[0]:
            raise _locate(con, located_scan, f"({t} IS NULL OR {t} < 0)", trial, "must be a non-negative integer trial index",
                          fmt)
    stats = _stats(con, files, score) if fmt == "parquet" and binary_ok(cols[score]) and rng is None else None
    binary = _zero_one(stats)
    no_nulls = binary and stats[3] == 0  # then every row is an observed trial: n counts the rows
    trial_aggs = (f", max({t}) AS tmax, sum({t}) AS tsum" + ("" if no_nulls else ", count(*) AS rows_")
                  if use_trial else "")
    if binary:  # 0/1 outcomes (from the files' statistics): one group per question, the engine's plain GROUP BY
        body = (f"sum({w}) FILTER (WHERE {s} IS NOT NULL) AS n, sum({s}::INTEGER * {w}) AS s" if w else
                f"count({s}) AS n, sum({s}::INTEGER) AS s" if cols[score] == "BOOLEAN" else
                f"count({s}) AS n, sum({s}) AS s")
        sql = f"SELECT {', '.join(keys)}, {body}{trial_aggs} FROM {scan} GROUP BY ALL"
    else:  # categories or scores: one group per (question, value)
        sql = (f"SELECT {', '.join(keys)}, {v} AS value, {f'sum({w})' if w else 'count(*)'} AS n{trial_aggs} "
               f"FROM {scan} GROUP BY ALL")
    con.execute(f"CREATE TEMP TABLE g AS {sql}")
    for col, role in ((question, "question"), (model, "model"), (dataset if use_dataset else None, "dataset")):
        if col is None or cols[col] != "VARCHAR":
            continue
        key = {"question": "question", "model": "model", "dataset": "dataset"}[role]
        hit = con.execute(f"SELECT {key} FROM g WHERE regexp_matches({key}, '[\\x00-\\x1f\\x7f]') LIMIT 1").fetchone()
        if hit:  # labels must be printable: found on the (small) groups, then located in the rows
            ch = next(c for c in hit[0] if ord(c) < 32 or ord(c) == 127)
            err = _locate(con, located_scan, f"contains({_quote(col)}, {_literal(ch)})", col,
                          f"({role}) contains the control character {ch!r}; names and ids must be printable text", fmt)
            raise err
    if not binary:
        lo_v, hi_v, nonfinite, integral, levels = con.execute(
            "SELECT min(value), max(value), bool_or(NOT isfinite(value)), bool_and(value = floor(value)), "
            "count(DISTINCT value) FROM g WHERE value IS NOT NULL").fetchone()
        if lo_v is None:
            raise ValueError(f"{where}: no scores (every score is missing)")
        if nonfinite:
            raise _locate(con, located_scan, f"NOT isfinite({value})", score, "must be finite", fmt)
        if rng is None and lo_v < 0:
            raise _locate(con, located_scan, f"{value} < 0", score, "must be a score >= 0 (or give score_range)", fmt)
        if rng is not None and (lo_v < rng[0] or hi_v > rng[1]):
            raise _locate(con, located_scan, f"({value} < {rng[0]!r} OR {value} > {rng[1]!r})", score,
                          f"is outside score_range [{rng[0]:g}, {rng[1]:g}]", fmt)
        kind = _kind(integral, levels, hi_v, rng, where)
    else:
        kind, hi_v = "binary", 1.0
    if use_trial:
        rows = "rows_" if "rows_" in trial_aggs else "n"
        per_q = ("SELECT dataset, model, question, sum(rows_) AS r, max(tmax) AS t1, sum(tsum) AS ts FROM g "
                 "GROUP BY ALL" if not binary else f"SELECT dataset, model, question, {rows} AS r, tmax AS t1, "
                 "tsum AS ts FROM g")
        bad = con.execute(f"SELECT dataset, model, question, r, t1 FROM ({per_q}) WHERE r > t1 + 1 OR "
                          "(r = t1 + 1 AND ts::HUGEINT * 2 <> t1::HUGEINT * (t1 + 1)) LIMIT 1").fetchone()
        if bad:
            raise ValueError(f"{where}: dataset {bad[0]!r}, model {bad[1]!r}: question {_item(bad[2])!r} has a (question, "
                             f"trial) written more than once ({int(bad[3])} rows, trials up to {int(bad[4])}); each "
                             "trial must appear once")
    return _collect(con, binary, kind, rng, hi_v, where)


def _item(x):
    return x.item() if isinstance(x, np.generic) else x


def binary_ok(typ: str) -> bool:
    return re.match(r"^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$", typ) is not None


def _stats(con, files: list[str], col: str) -> tuple | None:
    """``(min, max, row groups without min/max, row groups that may hold NULL)`` of ``col`` from the Parquet
    files' statistics (None for remote files or files without statistics)."""
    if any("://" in f for f in files):
        return None
    lst = "[" + ", ".join(_literal(f) for f in files) + "]"
    try:
        return con.execute(
            "SELECT min(TRY_CAST(stats_min_value AS DOUBLE)), max(TRY_CAST(stats_max_value AS DOUBLE)), "
            "count(*) FILTER (WHERE stats_min_value IS NULL OR stats_max_value IS NULL), "
            "count(*) FILTER (WHERE stats_null_count IS NULL OR stats_null_count > 0) "
            f"FROM parquet_metadata({lst}) WHERE path_in_schema = {_literal(col)}").fetchone()
    except Exception:  # no statistics: count by value
        return None


def _zero_one(stats: tuple | None) -> bool:
    """The statistics prove every value is 0 or 1 (integer / boolean column)."""
    return stats is not None and stats[0] is not None and stats[2] == 0 and stats[0] >= 0 and stats[1] <= 1


def _collect(con, binary: bool, kind: str, rng, hi_v: float, where: str) -> OutcomeSet:
    """The grouped counts (temp table ``g``) -> one counted run per (dataset, model), questions in id order."""
    pairs = con.execute("SELECT DISTINCT dataset, model FROM g ORDER BY dataset, model").fetchall()
    weights = np.arange(int(hi_v) + 1, dtype=np.float64) if kind == "grades" else None
    runs, notes = [], []
    for ds, mdl in pairs:
        if binary:
            r = con.execute("SELECT question, n, s FROM g WHERE dataset = ? AND model = ? ORDER BY question",
                            [ds, mdl]).fetchnumpy()
            n, s_ = np.asarray(r["n"], dtype=np.int64), np.asarray(r["s"], dtype=np.float64)
            q = np.asarray(r["question"])
            keep = n > 0
            table = np.column_stack([n - s_.astype(np.int64), s_.astype(np.int64)])[keep]
            counted: Counts | Scores = Counts(table, ids=q[keep], _unique_ids=True)  # one group per question
        else:
            r = con.execute("SELECT question, value, n FROM g WHERE dataset = ? AND model = ? AND value IS NOT NULL "
                            "ORDER BY question, value", [ds, mdl]).fetchnumpy()
            q, val, n = np.asarray(r["question"]), np.asarray(r["value"], dtype=np.float64), np.asarray(r["n"],
                                                                                                        dtype=np.int64)
            start = np.concatenate([[True], q[1:] != q[:-1]])  # sorted by question: a new id starts a new row
            counted = _build(np.cumsum(start) - 1, q[start], val, n, kind, rng, hi_v)
            keep = None
        dropped = 0 if keep is None else int((~keep).sum())
        if dropped:
            notes.append(f"{ds}/{mdl}: {dropped} question(s) have no observed trial and are left out")
        runs.append(CountRun(ds, mdl, counted, weights=weights, meta={"source": where, "engine": "duckdb"}))
    return OutcomeSet(runs, source=where, warnings=notes)


def _assemble(table: dict, rng, where: str) -> OutcomeSet:
    """(dataset, model, question, value, n) groups -> one counted run per (dataset, model)."""
    import pandas as pd

    v = table["value"]
    df = pd.DataFrame({"dataset": np.asarray(table["dataset"], dtype=object),
                       "model": np.asarray(table["model"], dtype=object),
                       "question": _plain(np.asarray(table["question"])),
                       "value": np.asarray(v.filled(np.nan) if np.ma.isMaskedArray(v) else v, dtype=np.float64),
                       "n": np.asarray(table["n"], dtype=np.int64)})
    obs = df[~np.isnan(df.value)]
    if obs.empty:
        raise ValueError(f"{where}: no scores (every score is missing)")
    levels = np.unique(obs.value.to_numpy())
    if not np.isfinite(levels).all():
        raise ValueError(f"{where}: a score is not finite; scores must be finite numbers")
    if rng is None and levels.min() < 0:
        raise ValueError(f"{where}: a score of {levels.min():g} is below 0; scores are 0/1, grades 0..C or partial "
                         "credit >= 0 (or give score_range=(lo, hi))")
    if rng is not None and (levels.min() < rng[0] or levels.max() > rng[1]):
        raise ValueError(f"{where}: scores from {levels.min():g} to {levels.max():g} are not all in score_range "
                         f"[{rng[0]:g}, {rng[1]:g}]")
    hi_v = float(levels.max())
    kind = _kind(bool(np.all(levels == np.round(levels))), levels.size, hi_v, rng, where)
    weights = np.arange(int(hi_v) + 1, dtype=np.float64) if kind == "grades" else None
    runs = []
    for (ds, mdl), part in obs.groupby(["dataset", "model"], sort=False):
        q_codes, q_ids = pd.factorize(part.question, sort=False)
        counted = _build(q_codes, np.asarray(list(q_ids), dtype=object), part.value.to_numpy(), part.n.to_numpy(),
                         kind, rng, hi_v)
        runs.append(CountRun(ds, mdl, counted, weights=weights, meta={"source": where, "engine": "counted"}))
    return OutcomeSet(runs, source=where)


def _kind(integral: bool, levels: int, hi: float, rng, where: str) -> str:
    """How the values are read, as the pandas reader reads them: ``"binary"`` (0/1), ``"grades"`` (integers
    0..C, categories weighted by their value) or ``"scores"`` (``score_range`` given, or values that are not
    integers, in [0, 1] or too many to be categories)."""
    if rng is not None or (not integral and (levels > 1001 or hi <= 1)):
        return "scores"
    if hi <= 1:
        return "binary"
    if not integral:
        raise ValueError(f"{where}: scores up to {hi:g} that are not integers; give their range "
                         "(score_range=(lo, hi), CLI --scores LO,HI)")
    if hi > 1000:
        raise ValueError(f"{where}: integer scores up to {hi:g}; categories stop at 1000 (rescale or bin them, "
                         "or give score_range=(lo, hi) to read them as scores)")
    return "grades"


def _build(code: np.ndarray, ids: np.ndarray, val: np.ndarray, n: np.ndarray, kind: str, rng,
           hi: float) -> Counts | Scores:
    """One run's counts from its (question code, value, n) groups: a category table, or a score's number, sum
    and within-question sum of squares (exact: sum_v n_v (v - mean)^2)."""
    M = ids.size
    val, n = np.asarray(val, dtype=np.float64), np.asarray(n, dtype=np.int64)
    if kind == "scores":
        lo, top = rng or (0.0, 1.0)
        cnt = np.bincount(code, weights=n, minlength=M)
        total = np.bincount(code, weights=n * val, minlength=M)
        sq = np.bincount(code, weights=n * (val - (total / cnt)[code]) ** 2, minlength=M)
        return Scores(cnt.astype(np.int64), total, sq, lo, top, ids)
    table = np.zeros((M, 2 if kind == "binary" else int(hi) + 1), dtype=np.int64)
    np.add.at(table, (code, val.astype(np.int64)), n)
    return Counts(table, ids=ids, fixed_categories=kind == "grades", _unique_ids=True)


def _plain(a: np.ndarray) -> np.ndarray:
    return np.array([x.item() if isinstance(x, np.generic) else x for x in a], dtype=object)


# ----------------------------------------------------------------------------- other engines through Ibis
def _is_foreign(source: Any) -> bool:
    """An Ibis table or a Spark DataFrame (counted on its own engine)."""
    mod = type(source).__module__
    return mod.startswith("ibis.") or mod.startswith("pyspark.")


def _to_pandas(source: Any):
    if hasattr(source, "to_pandas"):
        return source.to_pandas()
    if hasattr(source, "df"):  # a DuckDB relation
        return source.df()
    return source


def count_expression(t: Any, *, model: str | None = "model", question: str = "question", score: str = "score",
                     dataset: str | None = "dataset", weight: str | None = None):
    """The counting, written once as an Ibis expression: ``(dataset, model, question, value, n)`` groups of the
    Ibis table ``t``.  It compiles to each backend's own GROUP BY (DuckDB, Spark, BigQuery, Trino,
    Snowflake, ...)."""
    import ibis

    cols = set(t.columns)
    for col, role in ((question, "question"), (score, "score"), (model, "model"), (weight, "weight")):
        if col is not None and col not in cols:
            raise ValueError(f"table: no {role} column {col!r}; columns are {sorted(cols)}")
    keyed = t.mutate(
        dataset=(t[dataset].cast("string") if dataset is not None and dataset in cols else ibis.literal("dataset")),
        model=(t[model].cast("string") if model is not None else ibis.literal("model")),
        question=t[question], value=t[score].cast("float64"),
        w=(t[weight] if weight is not None else ibis.literal(1)))
    return keyed.group_by(["dataset", "model", "question", "value"]).aggregate(n=keyed.w.sum())


def _aggregate_ibis(source: Any, model, question, trial, score, dataset, weight) -> dict:
    import ibis

    t = source
    if type(source).__module__.startswith("pyspark."):
        session = source.sparkSession
        con = ibis.pyspark.connect(session=session)
        name = "bayeseval_src"
        source.createOrReplaceTempView(name)
        t = con.table(name)
    out = count_expression(t, model=model, question=question, score=score, dataset=dataset, weight=weight)
    df = out.to_pandas()
    return {k: df[k].to_numpy() for k in ("dataset", "model", "question", "value", "n")}


# ----------------------------------------------------------------------------- counts on disk
def write_counts(outcomes: OutcomeSet, path: str | Path) -> None:
    """Counts as a Parquet table ``dataset, model, question, value, n`` (one row per question and category,
    or per question for scores, with ``total`` and ``sq``); :func:`read_counts` reads it back, and
    :func:`count_table` with ``weight="n"`` counts it like any table, so shards and history add up."""
    import pandas as pd

    parts = []
    for run in outcomes:
        c = run.counts()
        ids = np.asarray(c.ids if c.ids is not None else np.arange(c.M), dtype=object)
        if isinstance(c, Scores):
            parts.append(pd.DataFrame({"dataset": run.dataset, "model": run.model, "question": ids.astype(str),
                                       "value": np.nan, "n": c.n, "total": c.total, "sq": c.sq, "lo": c.lo,
                                       "hi": c.hi}))
            continue
        w = run.weights if run.weights is not None else np.arange(c.table.shape[1], dtype=np.float64)
        i, k = np.nonzero(c.table)
        parts.append(pd.DataFrame({"dataset": run.dataset, "model": run.model, "question": ids[i].astype(str),
                                   "value": w[k], "n": c.table[i, k]}))
    pd.concat(parts, ignore_index=True).to_parquet(path, index=False)


def read_counts(path: str | Path) -> OutcomeSet:
    """Counts written by :func:`write_counts` (one file, a glob or a folder of them: counts add)."""
    import pandas as pd

    files = _files(path)
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    if "total" in df.columns and df["total"].notna().any():
        runs = []
        df["m2"] = df["sq"] + df["total"] ** 2 / df["n"]  # raw second moments add across shards
        for (ds, mdl), g in df.groupby(["dataset", "model"], sort=False):
            g = g.groupby("question", sort=False).agg(n=("n", "sum"), total=("total", "sum"), m2=("m2", "sum"),
                                                     lo=("lo", "first"), hi=("hi", "first"))
            sq = np.maximum(g.m2.to_numpy() - g.total.to_numpy() ** 2 / g.n.to_numpy(), 0.0)
            runs.append(CountRun(ds, mdl, Scores(g.n.to_numpy(), g.total.to_numpy(), sq, float(g.lo.iloc[0]),
                                                 float(g.hi.iloc[0]), np.asarray(g.index, dtype=object))))
        return OutcomeSet(runs, source=str(path))
    table = {k: df[k].to_numpy() for k in ("dataset", "model", "question", "value")}
    table["n"] = df["n"].to_numpy()
    return _assemble(table, None, where=str(path))


def count_shards(source: Any, *, progress: Any = None, **kw: Any) -> OutcomeSet:
    """A folder or glob of shards counted shard by shard and added (counts add), with ``progress`` (a callable
    wrapping an iterable, e.g. tqdm) over the shards; one file, a URL or a list is one query.  Repeated
    (question, trial) rows are found within a shard; across shards only the pooled counts are kept."""
    if isinstance(source, (list, tuple)) or "://" in str(source):
        return count_table(source, **kw)
    files = _files(source)
    if len(files) == 1 or progress is None:
        return count_table(files if len(files) > 1 else files[0], **kw)
    out = None
    for f in progress(files):
        part = count_table(f, **kw)
        out = part if out is None else add_counts(out, part)
    out.source = str(source)
    return out
