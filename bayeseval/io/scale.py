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
Spark (tested on DuckDB and on a local Spark session).  Both paths check the values (finite, >= 0 or in
``score_range``) and repeated trials.

In DuckDB the counting is ONE grouped query: besides the counts, each (question[, value]) group carries the
aggregates every check needs (the number of trial rows and the maximum and sum of the trial numbers -- for
0/1 Parquet scores summed with the score as one packed integer --, the rows that are not numbers), and the
engine flags the groups that break the repeated-trial rule.  The groups come back once, through Arrow, and are
checked, sorted (a counting sort for dense integer ids) and split into runs in numpy.  Each process keeps one
in-memory DuckDB database; every count runs on a cursor of it.

What is checked, before anything is reported (the query either completes or nothing comes back):

* across the parts of a Parquet glob or folder (from their metadata): a column the count reads that some parts
  lack, or an id column stored as text in some and as numbers in others (parts are read by column name, each type
  widened to one that holds them all; empty parts are left out);
* a score that is not a number (text in a CSV), negative, or not finite: the error names the file, the row
  and the column;
* a repeated (question, trial): with a trial column, a question with more rows than ``max(trial) + 1``, or
  with exactly that many whose trial numbers are not ``0..max`` (a repeat that a gap in the numbering
  elsewhere hides is found only by the exact pandas reader, ``engine="pandas"``);
* across shards: the counts keep each question's trial summary (rows, max, sum of the trial numbers, in
  ``run.meta["trials"]``), so :func:`add_counts` and :func:`count_shards` find a (question, trial) counted in
  two shards by the same rule on the pooled summary (exact when the pooled trial numbers have no gap);
  ``count_shards(..., check_overlap=True)`` checks every trial over all the shards in the engine;
* an empty question / model / dataset label, or one with a control character: named by file, row and column;
* category weights, as the pandas reader gives them (each run on its own values): 0/1 outcomes stay binary;
  integer grades ``0..C`` become categories weighted by their value; other values (partial credit such as 0,
  0.5, 1) one category per distinct value, weighted by it; more than 1001 distinct values in [0, 1], or any
  values with ``score_range``, are continuous scores.
"""

from __future__ import annotations

import glob as _glob
import itertools
import re
import threading
from pathlib import Path
from typing import Any

import numpy as np

from .. import validate as V
from .._protocol import UNNAMED_DATASET
from ..counts import Counts
from ..scores import Scores, score_range_arg
from ._vendor import OneValue, score_kind
from .outcomeset import CountRun, OutcomeSet, ReadingMismatch
from .outcomeset import add_counts as _add_counts
from .tables import check_optional_columns

__all__ = ["count_table", "count_shards", "CountRun", "write_counts", "read_counts", "add_counts", "count_expression", "ENGINES"]

ENGINES = ("duckdb", "ibis", "pandas")
_KEYS = ("dataset", "model", "question")


# ----------------------------------------------------------------------------- sources
try:  # the groups come back through Arrow (imported with this module, not inside the first count)
    import pyarrow as _pa
    import pyarrow.compute as _pc
except ImportError:  # DuckDB's numpy fetch instead
    _pa = _pc = None

_NAMES = itertools.count()
_DB: list = []  # one in-memory DuckDB database per process; each count runs on its own cursor of it
_DB_LOCK = threading.Lock()


class NoScores(ValueError):
    """A table (or one shard of a folder) without a single observed score."""


def _cursor(duckdb):
    """A connection of its own (a cursor) to this process's one in-memory DuckDB database, opened on first use:
    opening a database takes ~15 ms, a cursor ~10 us, and cursors can be used from several threads."""
    with _DB_LOCK:
        if not _DB:
            ext = _extension_dir(duckdb)
            _DB.append(duckdb.connect(config={"extension_directory": ext}) if ext else duckdb.connect())
        return _DB[0].cursor()


def _extension_dir(duckdb) -> str | None:
    """The extension folder of the ``duckdb-ext-*`` packages (DuckDB's extensions, httpfs among them, as PyPI
    wheels), when one holds extensions built for this DuckDB version (an extension of another version must
    not be loaded); None otherwise (DuckDB's own folder, where ``INSTALL httpfs`` puts it)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("duckdb_ext")
    except (ImportError, ValueError):
        return None
    for base in (spec.submodule_search_locations or []) if spec is not None else []:
        folder = Path(base) / "extensions"
        if (folder / f"v{duckdb.__version__}").is_dir():
            return str(folder)
    return None


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
    if fmt == "parquet":  # several local files, their schemas checked (_shard_schemas): read by column name, each
        # type widened to one that holds them all; remote files keep DuckDB's own check of one schema
        union = ", union_by_name = true" if len(files) > 1 and not any("://" in f for f in files) else ""
        return f"read_parquet({lst}{fn}{', file_row_number = true' if located else ''}{hive}{union})"
    if fmt == "csv":
        sep = "\\t" if all(f.endswith(".tsv") for f in files) else ","
        return f"read_csv({lst}{fn}, all_varchar = true, header = true, delim = '{sep}'{hive})"
    return f"read_json_auto({lst}{fn}{hive})"


def _top_level(rows: list) -> list[tuple[str, str]]:
    """The top-level columns (name, kind) of one Parquet file from its ``parquet_schema`` rows (root first, then
    every element depth first with its ``num_children``): kind ``text`` (byte arrays), ``nested`` (a group) or
    ``numbers``."""
    out, i = [], 1
    for _ in range(rows[0][2] or 0) if rows else ():
        name, typ, kids = rows[i]
        out.append((name, "nested" if kids else ("text" if typ == "BYTE_ARRAY" else "numbers")))
        i += 1
        todo = kids or 0
        while todo:  # skip the group's descendants
            todo += (rows[i][2] or 0) - 1
            i += 1
    return out


def _shard_schemas(con, files: list[str], used: dict) -> list[str]:
    """The shards of one Parquet table that hold rows, after checking that they store the columns the count reads
    alike: ``used`` maps each such column to its role (model, question, trial, dataset, weight, score).  A column
    that some shards have and others lack is refused (counted on its own, a shard without the trial column would
    pass its rows unchecked for repeats), and so is an id column stored as numbers in some and as text in others
    (7 and '7' would be two questions).  Other columns, the order of the columns and the width of a number (int32
    beside int64, int beside double) do not matter: the files are read by column name, each type widened to the
    one that holds them all.  Empty shards add nothing, whatever their schema, and are left out (all of them when
    no shard has a row)."""
    local = [f for f in files if "://" not in f]
    if len(local) < 2 or any(_FORMATS.get(Path(f).suffix.lower()) != "parquet" for f in local):
        return files
    lst = "[" + ", ".join(_literal(f) for f in local) + "]"
    filled = [f for f, n in con.execute(f"SELECT file_name, num_rows FROM parquet_file_metadata({lst})").fetchall()
              if n > 0]
    if not filled:
        return files
    by_file: dict = {}
    for f, name, typ, kids in con.execute(f"SELECT file_name, name, type, num_children FROM parquet_schema({lst})"
                                          ).fetchall():
        by_file.setdefault(f, []).append((name, typ, kids))
    columns = {f: dict(_top_level(by_file.get(f, []))) for f in filled}
    for col, role in used.items():
        have = [f for f in filled if col in columns[f]]
        if have and len(have) < len(filled):
            lack = next(f for f in filled if col not in columns[f])
            raise ValueError(f"{lack}: no {role} column {col!r}, which {have[0]} has; every part of a table must have "
                             "the columns the count reads")
        kinds: dict = {}
        for f in have:
            kinds.setdefault(columns[f][col], f)
        if role != "score" and len(kinds) > 1:
            (k1, f1), (k2, f2) = sorted(kinds.items())[:2]
            why = " (7 and '7' would be two questions)" if role == "question" else ""
            raise ValueError(f"{f1} stores column {col!r} as {k1} and {f2} as {k2}; the shards of one table must "
                             f"store it one way{why}")
    keep = set(filled)
    return [f for f in files if "://" in f or f in keep]


# ----------------------------------------------------------------------------- counting
def _columns(con, scan: str) -> dict:
    return {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()}


def _locate(con, scan: str, where: str, col: str, what: str, fmt: str, scale_hint: bool = False) -> ValueError:
    """The first row where ``where`` holds: an error naming its file, row and column (``scale_hint``: and saying
    to give the range of the scores, named as the caller's front end names it: ``score_range``, ``--scores``)."""
    if fmt == "parquet":
        row = con.execute(f"SELECT filename, file_row_number, {_quote(col)} FROM {scan} WHERE {where} "
                          "ORDER BY filename, file_row_number LIMIT 1").fetchone()
        place = f"{row[0]}: row {row[1]}"
    else:
        row = con.execute(f"SELECT filename, n, v FROM (SELECT filename, row_number() OVER (PARTITION BY filename) "
                          f"AS n, {_quote(col)} AS v, {where} AS bad FROM {scan}) WHERE bad ORDER BY filename, n "
                          "LIMIT 1").fetchone()
        place = f"{row[0]}: line {int(row[1]) + 1}"  # line 1 is the header
    if scale_hint:
        return V.ArgumentError("{place}: column {col!r} {what}, got {v!r}; give the range of the scores with "
                               "{score_range}", "score_range", place=place, col=col, what=what, v=row[2])
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
        return _assemble(rows, rng, where="table", trial=trial)
    duckdb = _duckdb()
    try:
        return _count_duckdb(duckdb, source, model, question, trial, score, dataset, weight, rng, format)
    except duckdb.Error as exc:  # a file DuckDB cannot read: one line naming it, nothing reported
        what = str(source) if isinstance(source, (str, Path)) else "table"
        first = str(exc).splitlines()[0]
        if "httpfs" in str(exc):  # a URL, and the extension that reads URLs is missing: not the file's fault
            raise ImportError(f"{what}: reading a URL needs DuckDB's httpfs extension, which cannot be loaded into "
                              f"this DuckDB ({duckdb.__version__}); download the file and pass its path "
                              "(docs/scale.md, Remote files)") from None
        kind = {"parquet": "parquet", "csv": "CSV", "json": "JSON"}.get(
            _FORMATS.get(Path(what).suffix.lower(), ""), "readable")
        raise ValueError(f"{what}: not a valid {kind} table ({first})") from None


def _count_duckdb(duckdb, source, model, question, trial, score, dataset, weight, rng, format) -> OutcomeSet:
    """:func:`count_table` in DuckDB (its errors are turned into ValueError by the caller)."""
    con = _cursor(duckdb)
    name = None
    try:
        if isinstance(source, (str, Path, list, tuple)):
            files = _files(source)
            fmt = _format_of(files, format)
            if fmt == "parquet":
                files = _shard_schemas(con, files, _used(model, question, trial, score, dataset, weight))
            scan, where = _scan(files, fmt, located=False), str(source)
            located_scan = _scan(files, fmt)
        else:  # a DuckDB relation, pandas / Polars / Arrow table: registered as a view on this call's cursor
            if isinstance(source, duckdb.DuckDBPyRelation):  # it lives on another connection: read it through Arrow
                source = source.to_arrow_table()  # (to count files in place, pass their paths)
            name = f"bayeseval_src_{next(_NAMES)}"
            con.register(name, source)
            files, scan, where, fmt = [], name, "table", "table"
            located_scan = scan
        return _count_on(con, scan, located_scan, where, fmt, files, model, question, trial, score, dataset, weight,
                         rng)
    finally:
        if name is not None:
            try:
                con.unregister(name)
            except Exception:  # the cursor is closed next anyway
                pass
        con.close()


_INT = r"^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$"


def _check_optional(where: str, cols, trial: str | None, dataset: str | None) -> None:
    """:func:`bayeseval.io.tables.check_optional_columns` on a scan's columns (DuckDB's file bookkeeping left out)."""
    check_optional_columns(where, sorted(c for c in cols if c not in ("filename", "file_row_number")), trial,
                           dataset)


def _count_on(con, scan, located_scan, where, fmt, files, model, question, trial, score, dataset, weight,
              rng) -> OutcomeSet:
    """The counting itself: ONE grouped query whose rows carry, besides the counts, what every check needs (the
    trial numbers' count, maximum and sum per question, the rows that are no number); the groups come back once
    (through Arrow: labels stay in Arrow buffers) and are checked, sorted and split into runs in numpy."""
    cols = _columns(con, scan)
    if list(cols) == ["column0"] and files and all("://" not in f and Path(f).stat().st_size == 0 for f in files):
        raise NoScores(f"{where}: the file is empty (expected a header line and one row per trial)")
    for col, role in ((question, "question"), (score, "score"), (model, "model"), (weight, "weight")):
        if col is not None and col not in cols:
            one = "; a table of one model: model=None, CLI --model-name NAME" if role == "model" else ""
            shown = sorted(c for c in cols if c not in ("filename", "file_row_number"))
            raise ValueError(f"{where}: no {role} column {col!r}; columns are {shown} "
                             f"(name yours with {role}=... ; CLI --{role}-col NAME{one})")
    _check_optional(where, cols, trial, dataset)
    use_trial = trial is not None and trial in cols and weight is None
    use_dataset = dataset is not None and dataset in cols
    s = _quote(score)
    numeric = re.match(r"^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|"
                       r"FLOAT|DOUBLE|DECIMAL.*)$", cols[score]) is not None
    # text scores: true / false (any case) are 1 / 0, as the pandas reader takes them
    value = (f"(CASE lower(trim({s}::VARCHAR)) WHEN 'true' THEN 1.0 WHEN 'false' THEN 0.0 "
             f"ELSE TRY_CAST({s} AS DOUBLE) END)") if not numeric else (
        f"{s}::DOUBLE" if cols[score] != "BOOLEAN" else f"{s}::INTEGER::DOUBLE")
    blank = f"({s} IS NULL OR trim({s}::VARCHAR) IN ('', 'NA', 'NaN', 'nan', 'null'))" if not numeric else f"{s} IS NULL"

    for col, role in ((question, "question id"), (model, "model"), (dataset if use_dataset else None, "dataset")):
        typ = cols.get(col) if col is not None else None  # as the pandas reader: text or a number, not a list
        if typ is not None and (typ in ("BOOLEAN", "BLOB") or typ.endswith("]") or typ.startswith(("STRUCT", "MAP",
                                                                                                    "UNION"))):
            raise ValueError(f"{where}: column {col!r} ({role}) holds {typ}; a {role} must be text or a number")

    def number(col: str) -> str:  # a NaN id is no id (empty), as the pandas reader reads it
        q = _quote(col)  # tested as text: DuckDB folds isnan() to false from Parquet statistics that omit NaN
        return (f"(CASE WHEN lower({q}::VARCHAR) IN ('nan', '-nan') THEN NULL ELSE {q} END)"
                if cols[col] in ("FLOAT", "DOUBLE") else q)

    def text(col: str) -> str:  # labels as text (a cast only where the column is not text already), stripped of
        # surrounding spaces as the pandas reader strips them ('q1 ' is question 'q1'); blank is empty (NULL)
        return f"NULLIF(trim({_quote(col)}), '')" if cols[col] == "VARCHAR" else f"{number(col)}::VARCHAR"

    def label(col: str) -> str:  # a question id keeps its type; text ids are stripped as above
        return text(col) if cols[col] == "VARCHAR" else number(col)

    keys = ([f"{text(dataset)} AS dataset"] if use_dataset else []) + \
           ([f"{text(model)} AS model"] if model is not None else []) + [f"{label(question)} AS question"]
    w = _quote(weight) if weight is not None else None
    t = _quote(trial) if use_trial else None
    bad = []  # (alias, condition, column, what): rows the query counts as malformed, located only if some are
    if not numeric:
        bad.append(("bad_value", f"({value} IS NULL AND NOT {blank})", score, "must be a number"))
    if use_trial:  # whole numbers 0 .. 2^53, as the pandas reader takes them
        what = "must be a non-negative integer trial index (at most 2^53)"
        if re.match(_INT, cols[trial]) and cols[trial] != "UBIGINT":  # a NULL trial index is no trial number either
            # (UBIGINT: past 2^63 a sum of them overflows before the check is read; it takes the cast below)
            bad.append(("bad_trial", f"({t} IS NULL OR {t} < 0 OR {t} > 9007199254740992)", trial, what))
        else:
            d = f"TRY_CAST({_quote(trial)} AS DOUBLE)"
            t = f"TRY_CAST({_quote(trial)} AS BIGINT)"
            bad.append(("bad_trial", f"({d} IS NULL OR NOT isfinite({d}) OR {d} < 0 OR {d} <> floor({d}) "
                                     f"OR {d} > 9007199254740992)", trial, what))
    if w is not None:  # a weight is how many identical trials a row stands for (write_counts' n): a whole number
        if not re.match(r"^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|"
                        r"DECIMAL.*)$", cols[weight]):
            raise ValueError(f"{where}: weight column {weight!r} holds {cols[weight]}; it must hold whole numbers >= 0 "
                             "(how many trials each row stands for)")
        bad.append(("bad_weight", f"({w} IS NULL OR {w} < 0 OR {w} <> floor({w}))", weight,
                    "must be a whole number >= 0 (how many trials the row stands for)"))
    stats = _stats(con, files, [score] + ([trial] if use_trial else [])) if fmt == "parquet" and rng is None else {}
    st_s = stats.get(score)
    binary = rng is None and (cols[score] == "BOOLEAN" or (binary_ok(cols[score]) and _zero_one(st_s)))
    no_nulls = binary and st_s is not None and st_s[3] == 0  # every row is an observed trial: n counts the rows
    st_t = stats.get(trial) if use_trial else None
    # the score and the trial number summed as one BIGINT (score + trial * 2^32): one aggregate where there were
    # two; safe when the statistics show 0 <= trial < 2^31 and no missing value (decoded exactly below, or the
    # query is run unpacked when a question's sums do not fit)
    pack = (no_nulls and use_trial and re.match(_INT, cols[trial]) is not None and st_t is not None
            and st_t[0] is not None and st_t[2] == 0 and st_t[3] == 0 and st_t[0] >= 0 and st_t[1] < 2**31)
    sint = f"{s}::INTEGER" if cols[score] == "BOOLEAN" else s
    checks = [f"count(*) FILTER (WHERE {cond}) AS {alias}" for alias, cond, _, _ in bad]

    def query(pack: bool) -> str:
        if binary:
            if w:
                aggs = [f"coalesce(sum({w}) FILTER (WHERE {s} IS NOT NULL), 0)::BIGINT AS n",
                        f"coalesce(sum({sint} * {w}), 0)::BIGINT AS s"]
            else:
                aggs = ["count(*) AS n" if no_nulls else f"count({s}) AS n"]
                aggs += ([f"TRY_CAST(sum({sint} + {t}::BIGINT * 4294967296) AS BIGINT) AS st", f"max({t}) AS tmax"]
                         if pack else [f"coalesce(sum({sint}), 0)::BIGINT AS s"])
            if use_trial and not pack:
                aggs += [f"max({t}) AS tmax", f"TRY_CAST(sum({t}) AS BIGINT) AS tsum"]  # NULL past 2^63: bad_trial
                aggs += [] if no_nulls else ["count(*) AS rows_"]
            inner = f"SELECT {', '.join(keys + aggs + checks)} FROM {scan} GROUP BY ALL"
            if not use_trial:
                return inner
            # the repeated-trial rule (see _trial_faults) on every group, in the engine: one flag per group
            r_, ts_ = ("n" if no_nulls else "rows_"), ("(st >> 32)" if pack else "tsum")
            return (f"SELECT *, ({r_} > tmax::HUGEINT + 1 OR ({r_} = tmax::HUGEINT + 1 AND {ts_}::HUGEINT * 2 <> "
                    f"tmax::HUGEINT * (tmax::HUGEINT + 1))) AS trial_fault FROM ({inner})")  # HUGEINT: a trial index
            # near 2^63 must reach the bad_trial check, not overflow here
        v = f"(CASE WHEN {blank} THEN NULL ELSE {value} END)"
        aggs = [f"sum({w})::DOUBLE AS n" if w else "count(*) AS n"]
        if use_trial:
            aggs += [f"max({t}) AS tmax", f"TRY_CAST(sum({t}) AS BIGINT) AS tsum"]
        return f"SELECT {', '.join(keys + [f'{v} AS value'] + aggs + checks)} FROM {scan} GROUP BY ALL"

    g = _fetch(con, query(pack))
    if pack and (g["st"].dtype.kind != "i" or (g["n"].size and g["n"].max() >= 2**32)):
        pack = False  # a question's sums do not fit one BIGINT (NULL from TRY_CAST), or 2^32 rows: count unpacked
        g = _fetch(con, query(False))
    for alias, cond, col, what in bad:
        if g[alias].any():
            raise _locate(con, located_scan, cond, col, what, fmt)
    for col, role, key in ((dataset if use_dataset else None, "dataset", "dataset"), (model, "model", "model"),
                           (question, "question id", "question")):
        if col is None:
            continue
        if key in g["_null"]:
            raise _locate(con, located_scan, f"{label(col)} IS NULL", col, f"({role}) is empty", fmt)
        ch = g["_control"].get(key)
        if ch is not None:  # labels must be printable: found on the (small) groups, then located in the rows
            raise _locate(con, located_scan, f"contains({_quote(col)}, {_literal(ch)})", col,
                          f"({role.split()[0]}) contains the control character {ch!r}; names and ids must be "
                          "printable text", fmt)
    # one code per (dataset, model) in label order, then every group sorted by (that code, question[, value])
    pair, labels = _pairs(g, use_dataset, model is not None)
    q = g["question"]
    meta = {"source": where, "engine": "duckdb"}
    if binary:
        n = g["n"]
        if use_trial and g["trial_fault"]:  # flagged in the engine; named here (the first in sorted order)
            tsum = (g["st"] >> 32) if pack else g["tsum"]
            _check_trials(where, labels, pair, q, n if no_nulls else g["rows_"], g["tmax"], tsum)
        order = _order(pair, q, labels.size, g.get("question_rank"))
        q, n = q[order], n[order]
        table = np.empty((n.size, 2), dtype=np.int64)  # one (failures, successes) table; each run a slice of it
        if pack:
            st = g["st"][order]
            np.bitwise_and(st, 0xFFFFFFFF, out=table[:, 1])
        else:
            table[:, 1] = g["s"][order]
        np.subtract(n, table[:, 1], out=table[:, 0])
        if use_trial:
            rows, tmax = (n if no_nulls else g["rows_"][order]), g["tmax"][order]
            tsum = np.right_shift(st, 32, out=st) if pack else g["tsum"][order]
        runs, notes = [], []
        ends = np.cumsum(np.bincount(pair, minlength=labels.size))
        for code in np.flatnonzero(np.diff(np.r_[0, ends])):
            a, b = (int(ends[code - 1]) if code else 0), int(ends[code])
            ds, mdl = labels[code]
            nn, tab, ids = n[a:b], table[a:b], q[a:b]
            keep = None if nn.all() else nn > 0
            if keep is not None:
                notes.append(f"{ds}/{mdl}: {int((~keep).sum())} question(s) have no observed trial and are left out")
                nn, tab, ids = nn[keep], tab[keep], ids[keep]
                if not nn.size:
                    continue
            counted = Counts(tab, ids=ids, _trusted_n=nn, _unique_ids=True)
            m = dict(meta)
            if use_trial:
                sel = slice(a, b) if keep is None else np.flatnonzero(keep) + a
                m["trials"] = _summary(counted, rows[sel], tmax[sel], tsum[sel])
            runs.append(CountRun(ds, mdl, counted, weights=None, meta=m))
        return OutcomeSet(runs, source=where, warnings=notes)
    val = g["value"]
    rank = g["question_rank"] if "question_rank" in g else _ranks(q)
    order = np.lexsort((np.where(np.isnan(val), np.inf, val), rank, pair))
    pair, q = pair[order], q[order]
    cut = np.flatnonzero(pair[1:] != pair[:-1]) + 1
    starts, ends = np.r_[0, cut], np.r_[cut, pair.size]
    val, n = g["value"][order], g["n"][order].astype(np.int64)
    observed = ~np.isnan(val) if "value_null" not in g else ~g["value_null"][order]
    ov = val[observed]
    if ov.size == 0:
        raise NoScores(f"{where}: " + ("no scores (every score is missing)" if val.size else "the table has no rows"))
    lo_v, hi_v = float(ov.min()), float(ov.max())
    if not np.isfinite(ov).all():
        raise _locate(con, located_scan, f"NOT isfinite({value})", score, "must be finite", fmt)
    if rng is None and lo_v < 0:
        raise _locate(con, located_scan, f"{value} < 0", score, "must be a score >= 0", fmt, scale_hint=True)
    if rng is not None and (lo_v < rng[0] or hi_v > rng[1]):
        raise _locate(con, located_scan, f"({value} < {rng[0]!r} OR {value} > {rng[1]!r})", score,
                      f"is outside [{rng[0]:g}, {rng[1]:g}]", fmt, scale_hint=True)
    # cells: one (pair, question); its groups (one per value) are consecutive
    new_cell = np.r_[True, (pair[1:] != pair[:-1]) | (q[1:] != q[:-1])]
    cell_start = np.flatnonzero(new_cell)
    if use_trial:
        rows = np.add.reduceat(n, cell_start)
        tmax = np.fmax.reduceat(g["tmax"][order].astype(np.float64), cell_start)
        tsum = np.add.reduceat(g["tsum"][order], cell_start)
        _check_trials(where, labels, pair[cell_start], q[cell_start], rows, tmax, tsum)
    cell = np.cumsum(new_cell) - 1
    runs, notes = [], []
    for a, b in zip(starts, ends):
        ds, mdl = labels[pair[a]]
        obs = observed[a:b]
        c = cell[a:b][obs]
        present, code = np.unique(c, return_inverse=True)
        missing = np.unique(cell[a:b]).size - present.size
        if missing:
            notes.append(f"{ds}/{mdl}: {missing} question(s) have no observed trial and are left out")
        if present.size == 0:
            continue
        kind_r, weights_r = _run_kind(val[a:b][obs], rng, f"{where}: {ds}/{mdl}")
        counted = _build(code.ravel(), q[cell_start[present]], val[a:b][obs], n[a:b][obs], kind_r, rng, weights_r)
        m = dict(meta)
        if use_trial:
            m["trials"] = _summary(counted, rows[present], tmax[present], tsum[present])
        runs.append(CountRun(ds, mdl, counted, weights=weights_r, meta=m))
    return OutcomeSet(runs, source=where, warnings=notes)


def _fetch(con, sql: str) -> dict:
    """The grouped rows of ``sql`` as numpy arrays; the label columns ``dataset`` / ``model`` as (codes, labels)
    (``*_codes`` / ``*_labels``), with ``_null`` (label columns holding a NULL) and ``_control`` (label column ->
    a control character it contains).  Through Arrow when pyarrow is installed (the labels never become Python
    strings row by row; text question ids become one Python string per distinct id, shared by the groups of every
    model, with ``question_rank``, their order as :func:`_ranks` gives it), else through DuckDB's numpy fetch."""
    out: dict = {"_null": set(), "_control": {}}
    if _pa is not None:
        tb = _arrow(con, sql)
        for name in tb.column_names:
            col = tb.column(name)
            if name in ("dataset", "model", "question") and col.null_count:
                out["_null"].add(name)
                continue
            if name in ("dataset", "model"):
                out[name + "_codes"], labels = _encoded(col)
                out[name + "_labels"] = labels.to_pylist()
                _control(out, name, out[name + "_labels"])
                continue
            if name == "question" and _is_text(col.type):
                codes, labels = _encoded(col)
                if _pa.types.is_string_view(labels.type):  # (no sort kernel for views)
                    labels = labels.cast(_pa.large_string())
                hit = _pc.match_substring_regex(labels, _CONTROL)  # the first in the column's order, as labels are
                if _pc.any(hit).as_py():
                    _control(out, name, [x.as_py() for x in labels.filter(hit)[:1]])
                ids = np.empty(len(labels), dtype=object)
                ids[:] = labels.to_pylist()
                rank = np.empty(len(labels), dtype=np.int64)
                rank[np.asarray(_pc.array_sort_indices(labels))] = np.arange(len(labels))
                out[name], out["question_rank"] = ids[codes], rank[codes]
                continue
            if name == "trial_fault":  # one flag per group: only whether any is set comes back to Python
                out[name] = bool(_pc.any(col).as_py())
                continue
            out[name], mask = _column(col)
            if name == "value" and mask is not None:
                out["value_null"] = mask
        return out
    res = con.execute(sql).fetchnumpy()
    for name, arr in res.items():
        mask = np.ma.getmaskarray(arr)
        if name in ("dataset", "model", "question") and mask.any():
            out["_null"].add(name)
            continue
        data = np.ma.getdata(arr)
        if name == "trial_fault":
            out[name] = bool(np.any(data & ~mask))
            continue
        if name in ("dataset", "model"):
            labels, codes = np.unique(data.astype(object), return_inverse=True)
            out[name + "_codes"], out[name + "_labels"] = codes.ravel(), labels.tolist()
            _control(out, name, out[name + "_labels"])
            continue
        if name == "question" and data.dtype == object:
            _control(out, name, [x for x in data if isinstance(x, str) and _CONTROL_RE.search(x)][:1])
        if name == "value":
            out["value_null"] = mask
            data = np.where(mask, np.nan, data.astype(np.float64))
        elif mask.any():
            data = np.where(mask, np.nan, data.astype(np.float64))
        out[name] = data
    return out


def _encoded(col) -> tuple[np.ndarray, Any]:
    """An Arrow column dictionary-encoded: the code of each row (numpy) and the distinct values in the order they
    first come (an Arrow array)."""
    enc = col.dictionary_encode()  # one dictionary shared by every chunk
    if len({len(ch.dictionary) for ch in enc.chunks}) > 1:
        enc = _pa.chunked_array([col.combine_chunks().dictionary_encode()])
    codes = _column(_pa.chunked_array([ch.indices for ch in enc.chunks], type=enc.type.index_type))[0]
    return codes, (enc.chunk(0).dictionary if enc.num_chunks else _pa.array([], type=col.type))


def _arrow(con, sql: str):
    """The result of ``sql`` as an Arrow table (DuckDB's relation API: no extra copy of the rows), in batches as
    large as DuckDB makes them (one per thread: far fewer, and faster, than the default 131,072 rows)."""
    return con.sql(sql).to_arrow_table(1 << 30)


def _is_text(t) -> bool:
    return _pa.types.is_string(t) or _pa.types.is_large_string(t) or _pa.types.is_string_view(t)


def _column(col) -> tuple[np.ndarray, np.ndarray | None]:
    """An Arrow column (or array) as numpy, and the mask of its NULLs (None when it has none; then the values are
    floats with NaN there).  Fixed-width numbers are read from their buffers: pyarrow's own conversion imports
    pandas (~150 ms in a fresh process), which counting does not need.  Text becomes an object array."""
    chunks = col.chunks if hasattr(col, "chunks") else [col]
    t = col.type
    if not (_pa.types.is_integer(t) or _pa.types.is_floating(t)) or _pa.types.is_float16(t):
        vals = col.to_pylist()
        mask = np.fromiter((v is None for v in vals), dtype=bool, count=len(vals)) if col.null_count else None
        if _pa.types.is_boolean(t) and mask is None:
            return np.asarray(vals, dtype=bool), None
        arr = np.empty(len(vals), dtype=object)
        arr[:] = vals
        return arr, mask
    dt = np.dtype({"double": "float64", "float": "float32"}.get(str(t), str(t)))
    parts, masks = [], []
    for ch in chunks:
        if len(ch) == 0:
            continue
        bufs = ch.buffers()
        parts.append(np.frombuffer(bufs[1], dtype=dt)[ch.offset:ch.offset + len(ch)])
        masks.append(~np.unpackbits(np.frombuffer(bufs[0], dtype=np.uint8), bitorder="little")
                     [ch.offset:ch.offset + len(ch)].astype(bool) if ch.null_count else np.zeros(len(ch), dtype=bool))
    data = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.empty(0, dtype=dt)
    if not col.null_count:
        return data, None
    mask = np.concatenate(masks)
    out = data.astype(np.float64)
    out[mask] = np.nan
    return out, mask


_CONTROL = "[\\x00-\\x1f\\x7f]"
_CONTROL_RE = re.compile(_CONTROL)


def _control(out: dict, name: str, labels: list) -> None:
    for lab in labels:
        m = _CONTROL_RE.search(lab) if isinstance(lab, str) else None
        if m:
            out["_control"][name] = m.group(0)
            return


def _pairs(g: dict, use_dataset: bool, use_model: bool) -> tuple[np.ndarray, "_Labels"]:
    """Per group, a code of its (dataset, model) that sorts as the labels do (int32); and the labels by code."""
    dl = g["dataset_labels"] if use_dataset else [UNNAMED_DATASET]
    ml = g["model_labels"] if use_model else ["model"]
    pair = None
    if use_model:
        pair = np.argsort(np.argsort(np.asarray(ml, dtype=object))).astype(np.int32)[g["model_codes"]]
    if use_dataset:
        part = (np.argsort(np.argsort(np.asarray(dl, dtype=object))) * len(ml)).astype(np.int32)[g["dataset_codes"]]
        pair = part if pair is None else np.add(pair, part, out=pair)
    if pair is None:
        pair = np.zeros(g["question"].size, dtype=np.int32)
    return pair, _Labels(sorted(dl), sorted(ml))


class _Labels:
    """(dataset, model) of a pair code."""

    def __init__(self, datasets: list, models: list):
        self.d, self.m = datasets, models
        self.size = len(datasets) * len(models)

    def __getitem__(self, code) -> tuple:
        return self.d[int(code) // len(self.m)], self.m[int(code) % len(self.m)]


def _ranks(q: np.ndarray) -> np.ndarray:
    """Integer sort keys of question ids (ordered as DuckDB orders them; text by code point)."""
    if q.dtype.kind in "iub":
        return q
    if q.dtype.kind == "f":
        return q
    if _pa is not None and q.dtype == object:
        try:
            arr = _pa.array(q)
            enc = arr.dictionary_encode()
            rank = np.empty(len(enc.dictionary), dtype=np.int64)
            rank[np.asarray(_pc.array_sort_indices(enc.dictionary))] = np.arange(len(enc.dictionary))
            return rank[np.asarray(enc.indices)]
        except (_pa.ArrowInvalid, _pa.ArrowTypeError, _pa.ArrowNotImplementedError):
            pass
    return np.unique(q, return_inverse=True)[1].ravel()


def _order(pair: np.ndarray, q: np.ndarray, npairs: int, rank: np.ndarray | None = None) -> np.ndarray:
    """The permutation sorting the groups (unique (pair, question)) by (pair, question); ``rank``: the order of
    text ids (:func:`_ranks`, integers 0..distinct ids - 1), when known: sorted as those integers are."""
    if rank is not None:
        return _order(pair, rank, npairs)
    if q.dtype.kind in "iu" and q.size:
        lo, hi = int(q.min()), int(q.max())
        span = hi - lo + 1
        if npairs * span <= 2 * q.size + 4096 and npairs * span < 2**31:  # dense ids (0..M-1, the usual):
            key = (pair * np.int32(span)).astype(np.int32, copy=False)  # a counting sort, O(groups)
            if q.dtype.itemsize <= 4 and hi < 2**31:
                key += q.astype(np.int32, copy=False)
                if lo:
                    key -= np.int32(lo)
            else:
                key += (q - lo).astype(np.int32)
            slot = np.full(npairs * span, -1, dtype=np.int32)
            slot[key] = np.arange(q.size, dtype=np.int32)
            return slot[slot >= 0]
        if span < 2**31 and npairs < 2**31:  # one int64 key: one argsort, not a two-key lexsort
            return np.argsort((pair.astype(np.int64) << 32) | (q.astype(np.int64) - lo))
    return np.lexsort((_ranks(q), pair))


def _trial_faults(rows, tmax, tsum) -> np.ndarray:
    """Positions of the questions whose trial rows show a repeated (question, trial), from each question's
    number of rows and the maximum and sum of its trial numbers: more rows than ``max + 1`` (pigeonhole), or
    exactly that many whose sum is not ``max (max + 1) / 2`` (then they are not ``0..max``).  Exact when a
    question's trial numbers have no gap; a question without trial numbers (NaN maximum) is not checked."""
    tmax = np.asarray(tmax)
    if tmax.dtype.kind == "f":
        known = ~np.isnan(tmax)
        t1 = np.where(known, tmax, -1).astype(np.int64)
        tsum = np.asarray(tsum)
        tsum = np.where(np.isnan(tsum), 0, tsum).astype(np.int64) if tsum.dtype.kind == "f" else tsum
    else:
        known, t1 = None, tmax.astype(np.int64, copy=False)
    rows = np.asarray(rows).astype(np.int64, copy=False)
    top = t1 + 1
    bad = (rows > top) | ((rows == top) & (np.asarray(tsum, dtype=np.int64) * 2 != t1 * top))
    if known is not None:
        bad &= known
    return np.flatnonzero(bad)


def _check_trials(where, labels, pair, q, rows, tmax, tsum) -> None:
    """Repeated (question, trial) rows (:func:`_trial_faults`); the first offending question, in (dataset, model,
    question) order, is named."""
    hit = _trial_faults(rows, tmax, tsum)
    if not hit.size:
        return
    i = hit[np.lexsort((_ranks(q[hit]), pair[hit]))[0]]
    ds, mdl = labels[pair[i]]
    t1 = np.asarray(tmax)[i]
    raise ValueError(f"{where}: dataset {ds!r}, model {mdl!r}: question {_item(q[i])!r} has a (question, "
                     f"trial) written more than once ({int(np.asarray(rows)[i])} rows, trials up to {int(t1)}); each "
                     "trial must appear once")


def _summary(counted, rows, tmax, tsum) -> dict:
    """Per question of ``counted`` (in its order): the number of trial rows and the maximum and sum of the trial
    numbers -- what tells, when the counts of two shards are added, that a (question, trial) is in both.
    ``ids`` is the counts' own ids array: a summary whose ``ids`` is not the run's (after counts were added
    by code that does not keep summaries) is stale and not used."""
    tmax = np.asarray(tmax)
    if tmax.dtype.kind == "f":  # no trial number for some question: -1 (nothing to check there)
        tmax = np.where(np.isnan(tmax), -1, tmax)
        tsum = np.where(np.isnan(tsum), 0, tsum)
    return {"ids": counted.ids, "rows": np.asarray(rows, dtype=np.int64), "max": np.asarray(tmax, dtype=np.int64),
            "sum": np.asarray(tsum, dtype=np.int64)}


def _item(x):
    return x.item() if isinstance(x, np.generic) else x


def binary_ok(typ: str) -> bool:
    return re.match(r"^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$", typ) is not None


def _stats(con, files: list[str], cols: list[str]) -> dict:
    """Per column: ``(min, max, row groups without min/max, row groups that may hold NULL)`` from the Parquet
    files' statistics (empty for remote files; a column without statistics is left out)."""
    if not files or any("://" in f for f in files):
        return {}
    lst = "[" + ", ".join(_literal(f) for f in files) + "]"
    try:
        rows = con.execute(
            "SELECT path_in_schema, min(TRY_CAST(stats_min_value AS DOUBLE)), max(TRY_CAST(stats_max_value AS DOUBLE)), "
            "count(*) FILTER (WHERE stats_min_value IS NULL OR stats_max_value IS NULL), "
            "count(*) FILTER (WHERE stats_null_count IS NULL OR stats_null_count > 0) "
            f"FROM parquet_metadata({lst}) WHERE path_in_schema IN ({', '.join(_literal(c) for c in cols)}) "
            "GROUP BY path_in_schema").fetchall()
    except Exception:  # no statistics: count by value
        return {}
    return {r[0]: tuple(r[1:]) for r in rows}


def _zero_one(stats: tuple | None) -> bool:
    """The statistics prove every value is 0 or 1 (integer / boolean column)."""
    return stats is not None and stats[0] is not None and stats[2] == 0 and stats[0] >= 0 and stats[1] <= 1


def _assemble(table: dict, rng, where: str, trial: str | None = None) -> OutcomeSet:
    """(dataset, model, question, value, n) groups -> one counted run per (dataset, model); with ``tmax``,
    ``tsum`` and ``tbad`` (the Ibis expression's trial aggregates) repeated (question, trial) rows are found as
    in DuckDB, and each run keeps its trial summary."""
    import pandas as pd

    v = table["value"]
    df = pd.DataFrame({"dataset": np.asarray(table["dataset"], dtype=object),
                       "model": np.asarray(table["model"], dtype=object),
                       "question": _plain(np.asarray(table["question"])),
                       "value": np.asarray(v.filled(np.nan) if np.ma.isMaskedArray(v) else v, dtype=np.float64),
                       "n": np.asarray(table["n"], dtype=np.int64)})
    use_trial = "tmax" in table
    if use_trial:
        if np.nansum(np.asarray(table["tbad"], dtype=np.float64)) > 0:
            raise ValueError(f"{where}: column {trial!r} must be a non-negative integer trial index "
                             f"({int(np.nansum(np.asarray(table['tbad'], dtype=np.float64)))} rows are not)")
        df["tmax"] = np.asarray(table["tmax"], dtype=np.float64)
        df["tsum"] = np.asarray(table["tsum"], dtype=np.float64)
        cells = df.groupby(["dataset", "model", "question"], sort=True).agg(
            rows=("n", "sum"), tmax=("tmax", "max"), tsum=("tsum", "sum"))
        bad_at = _trial_faults(cells.rows.to_numpy(), cells.tmax.to_numpy(), cells.tsum.to_numpy())
        if bad_at.size:  # the first in (dataset, model, question) order
            keys, i = cells.index.to_frame(index=False), int(bad_at[0])
            raise ValueError(f"{where}: dataset {keys.dataset[i]!r}, model {keys.model[i]!r}: question "
                             f"{_item(keys.question[i])!r} has a (question, trial) written more than once "
                             f"({int(cells.rows.iloc[i])} rows, trials up to {int(cells.tmax.iloc[i])}); each trial "
                             "must appear once")
    obs = df[~np.isnan(df.value)]
    if obs.empty:
        raise NoScores(f"{where}: " + ("the table has no rows" if df.empty else "no scores (every score is missing)"))
    levels = np.unique(obs.value.to_numpy())
    if not np.isfinite(levels).all():
        raise ValueError(f"{where}: a score is not finite; scores must be finite numbers")
    if rng is None and levels.min() < 0:
        raise V.ArgumentError("{where}: a score of {v:g} is below 0; scores are 0/1, grades 0..C or partial credit "
                              ">= 0 (or give the range of the scores with {score_range})", "score_range", where=where,
                              v=levels.min())
    if rng is not None and (levels.min() < rng[0] or levels.max() > rng[1]):
        raise V.ArgumentError("{where}: scores from {a:g} to {b:g} are not all in [{lo:g}, {hi:g}]; give the range of "
                              "the scores with {score_range}", "score_range", where=where, a=levels.min(),
                              b=levels.max(), lo=rng[0], hi=rng[1])
    runs = []
    for (ds, mdl), part in obs.groupby(["dataset", "model"], sort=False):
        q_codes, q_ids = pd.factorize(part.question, sort=False)
        kind_r, weights_r = _run_kind(part.value.to_numpy(), rng, f"{where}: {ds}/{mdl}")
        counted = _build(q_codes, np.asarray(list(q_ids), dtype=object), part.value.to_numpy(), part.n.to_numpy(),
                         kind_r, rng, weights_r)
        meta = {"source": where, "engine": "counted"}
        if use_trial:
            c = cells.loc[(ds, mdl)].reindex(list(q_ids))
            meta["trials"] = _summary(counted, c.rows.to_numpy(), c.tmax.to_numpy(), c.tsum.to_numpy())
        runs.append(CountRun(ds, mdl, counted, weights=weights_r, meta=meta))
    return OutcomeSet(runs, source=where)


def _run_kind(val: np.ndarray, rng, where: str) -> tuple[str, np.ndarray | None]:
    """One run's reading of its values, by the rule of the pandas reader (:func:`~bayeseval.io._vendor.score_kind`,
    applied to each run on its own values): ``"scores"`` with ``score_range``; else ``"binary"`` (0/1),
    ``"grades"`` (integers 0..C, weights 0..C), ``"partial"`` (one category per distinct value, weighted by it:
    partial credit such as 0, 0.5, 1) or ``"scores"`` in [0, 1] (over 1001 distinct non-integer values)."""
    if rng is not None:
        return "scores", None
    return score_kind(np.unique(val), where)


def _build(code: np.ndarray, ids: np.ndarray, val: np.ndarray, n: np.ndarray, kind: str, rng,
           weights: np.ndarray | None) -> Counts | Scores:
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
    col = np.searchsorted(weights, val) if kind == "partial" else val.astype(np.int64)
    table = np.zeros((M, 2 if weights is None else weights.size), dtype=np.int64)
    np.add.at(table, (code, col), n)
    return Counts(table, ids=ids, fixed_categories=weights is not None, _unique_ids=True)


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
                     dataset: str | None = "dataset", weight: str | None = None, trial: str | None = "trial"):
    """The counting, written once as an Ibis expression: ``(dataset, model, question, value, n)`` groups of the
    Ibis table ``t``.  It compiles to each backend's own GROUP BY (DuckDB, Spark, BigQuery, Trino,
    Snowflake, ...).  With a ``trial`` column (and no ``weight``) each group also carries ``tmax`` and
    ``tsum``, the maximum and sum of its trial numbers, and ``tbad``, its rows whose trial is missing, not an
    integer or negative: what the repeated-(question, trial) check needs, computed in the same pass."""
    import ibis

    cols = set(t.columns)
    for col, role in ((question, "question"), (score, "score"), (model, "model"), (weight, "weight")):
        if col is not None and col not in cols:
            raise ValueError(f"table: no {role} column {col!r}; columns are {sorted(cols)}")
    _check_optional("table", cols, trial, dataset)
    use_trial = trial is not None and trial in cols and weight is None
    extra = {}
    if use_trial:
        tr = t[trial]
        extra["tr"] = tr.cast("int64") if tr.type().is_integer() else tr.try_cast("int64")
    def text(col):  # stripped as the pandas reader strips labels ('q1 ' is question 'q1'); blank is empty
        return t[col].cast("string").strip().nullif("")

    keyed = t.mutate(
        dataset=(text(dataset) if dataset is not None and dataset in cols else ibis.literal(UNNAMED_DATASET)),
        model=(text(model) if model is not None else ibis.literal("model")),
        question=(text(question) if t[question].type().is_string() else t[question]), value=t[score].cast("float64"),
        w=(t[weight] if weight is not None else ibis.literal(1)), **extra)
    aggs = {"n": keyed.w.sum()}
    if use_trial:
        aggs.update(tmax=keyed.tr.max(), tsum=keyed.tr.sum(),
                    tbad=(keyed.tr.isnull() | (keyed.tr < 0)).ifelse(1, 0).sum())
    if weight is not None:  # how many trials a row stands for: a whole number >= 0 (checked on the groups)
        wv = keyed.w.cast("float64")
        aggs["wbad"] = (wv.isnull() | (wv < 0) | (wv != wv.floor())).ifelse(1, 0).sum()
    return keyed.group_by(["dataset", "model", "question", "value"]).aggregate(**aggs)


def _aggregate_ibis(source: Any, model, question, trial, score, dataset, weight) -> dict:
    import ibis

    t = source
    if type(source).__module__.startswith("pyspark."):
        session = source.sparkSession
        con = ibis.pyspark.connect(session=session)
        name = f"bayeseval_src_{next(_NAMES)}"
        source.createOrReplaceTempView(name)
        t = con.table(name)
    out = count_expression(t, model=model, question=question, score=score, dataset=dataset, weight=weight,
                           trial=trial)
    df = out.to_pandas()
    if "wbad" in df.columns and (df["wbad"] > 0).any():
        raise ValueError(f"table: column {weight!r} (weight) must hold whole numbers >= 0 (how many trials a row "
                         f"stands for); {int(df['wbad'].sum())} row(s) do not")
    for key, col, role in (("dataset", dataset, "dataset"), ("model", model, "model"), ("question", question,
                                                                                       "question id")):
        if key in df.columns and df[key].isna().any():  # a missing or blank label: never a group of its own
            raise ValueError(f"table: column {col!r} ({role}) is empty in some rows; every row needs one")
    return {k: df[k].to_numpy() for k in ("dataset", "model", "question", "value", "n", "tmax", "tsum", "tbad")
            if k in df.columns}


# ----------------------------------------------------------------------------- counts on disk
def _id_column(ids: list) -> np.ndarray:
    """Question ids of several runs as one Parquet column that reads back as it was written: whole numbers as int64,
    other numbers as float64, anything else (text, or a mix) as text."""
    import pandas as pd

    allids = np.concatenate([np.asarray(x, dtype=object) for x in ids]) if ids else np.empty(0, dtype=object)
    kind = pd.api.types.infer_dtype(allids, skipna=False)
    if kind == "integer":
        return allids.astype(np.int64)
    if kind in ("floating", "mixed-integer-float"):
        return allids.astype(np.float64)
    return allids.astype(str)


def write_counts(outcomes: OutcomeSet, path: str | Path) -> None:
    """Counts as a Parquet table ``dataset, model, question, value, n`` (one row per question and category,
    or per question for scores, with ``total`` and ``sq``); :func:`read_counts` reads it back (each run of its kind,
    its question ids of their type: whole numbers stay numbers unless another run's ids are text), and
    :func:`count_table` with ``weight="n"`` counts it like any table, so shards and history add up."""
    import pandas as pd

    parts, ids = [], []
    for run in outcomes:
        c = run.counts()
        run_ids = np.asarray(c.ids if c.ids is not None else np.arange(c.M), dtype=object)
        if isinstance(c, Scores):
            parts.append(pd.DataFrame({"dataset": run.dataset, "model": run.model, "value": np.nan, "n": c.n,
                                       "total": c.total, "sq": c.sq, "lo": c.lo, "hi": c.hi}))
            ids.append(run_ids)
            continue
        w = run.weights if run.weights is not None else np.arange(c.table.shape[1], dtype=np.float64)
        i, k = np.nonzero(c.table)
        parts.append(pd.DataFrame({"dataset": run.dataset, "model": run.model, "value": w[k], "n": c.table[i, k]}))
        ids.append(run_ids[i])
    df = pd.concat(parts, ignore_index=True)
    df.insert(2, "question", _id_column(ids))
    df.to_parquet(path, index=False)


def read_counts(path: str | Path) -> OutcomeSet:
    """Counts written by :func:`write_counts` (one file, a glob or a folder of them: counts add)."""
    import pandas as pd

    files = _files(path)
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    scored = df["total"].notna().to_numpy() if "total" in df.columns else np.zeros(len(df), dtype=bool)
    runs = {}
    if scored.any():
        sc = df[scored].copy()
        sc["m2"] = sc["sq"] + sc["total"] ** 2 / sc["n"]  # raw second moments add across shards
        for (ds, mdl), g in sc.groupby(["dataset", "model"], sort=False):
            g = g.groupby("question", sort=False).agg(n=("n", "sum"), total=("total", "sum"), m2=("m2", "sum"),
                                                     lo=("lo", "first"), hi=("hi", "first"))
            sq = np.maximum(g.m2.to_numpy() - g.total.to_numpy() ** 2 / g.n.to_numpy(), 0.0)
            runs[(ds, mdl)] = CountRun(ds, mdl, Scores(g.n.to_numpy(), g.total.to_numpy(), sq, float(g.lo.iloc[0]),
                                                       float(g.hi.iloc[0]), np.asarray(g.index, dtype=object)))
    warnings = []
    if not scored.all():
        cat = df[~scored]
        table = {k: cat[k].to_numpy() for k in ("dataset", "model", "question", "value", "n")}
        counted = _assemble(table, None, where=str(path))
        runs.update({(r.dataset, r.model): r for r in counted})
        warnings = counted.warnings
    order = df[["dataset", "model"]].drop_duplicates().itertuples(index=False, name=None)  # as the file lists them
    return OutcomeSet([runs[k] for k in order if k in runs], source=str(path), warnings=warnings)


def _trials_of(run) -> dict | None:
    """The run's trial summary (:func:`_summary`), if it has one that belongs to its current counts."""
    summ = getattr(run, "meta", {}).get("trials") if isinstance(getattr(run, "meta", None), dict) else None
    if summ is None or summ.get("ids") is not run.counts().ids:
        return None
    return summ


def add_counts(a: OutcomeSet, b: OutcomeSet, *, where: str | None = None) -> OutcomeSet:
    """Counts add (:meth:`OutcomeSet.add`): runs of the same (dataset, model) pool their trials, by question id.

    Counts from :func:`count_table` keep, per question, the number of trial rows and the maximum and sum of the
    trial numbers; when both parts have them, a (question, trial) counted in both parts is an error (pooled,
    the question has more rows than ``max + 1``, or ``max + 1`` rows that are not trials ``0..max``).  Exact when
    a question's pooled trial numbers have no gap; where they have one, or a part has no trial column (or was
    read by :func:`read_counts`), counts alone cannot tell: :func:`count_shards` with ``check_overlap=True``
    checks every (question, trial) in the engine."""
    pooled = {}
    runs_a = {(r.dataset, r.model): r for r in a}
    for r in b:
        x = runs_a.get((r.dataset, r.model))
        if x is None:
            continue
        sx, sy = _trials_of(x), _trials_of(r)
        if sx is None or sy is None:
            pooled[(r.dataset, r.model)] = None
            continue
        pooled[(r.dataset, r.model)] = _pool_trials(x, r, sx, sy, where)
    out = _add_counts(a, b)
    for run in out:
        key = (run.dataset, run.model)
        if key not in pooled:
            continue
        if pooled[key] is None:
            run.meta.pop("trials", None)
            continue
        ids, rows, tmax, tsum = pooled[key]
        pos = _index_of(ids, run.counts().ids)
        run.meta["trials"] = {"ids": run.counts().ids, "rows": rows[pos], "max": tmax[pos], "sum": tsum[pos]}
    return out


def _index_of(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Positions in ``ids`` of each of ``wanted`` (all present)."""
    import pandas as pd

    pos = pd.Index(list(ids)).get_indexer(list(wanted))
    if (pos < 0).any():
        raise AssertionError("question ids of the pooled trial summary do not match the pooled counts")
    return pos


def _pool_trials(x, y, sx: dict, sy: dict, where: str | None):
    """The pooled trial summary of two runs of the same (dataset, model); a (question, trial) in both is an
    error."""
    import pandas as pd

    ids = pd.Index(list(sx["ids"])).append(pd.Index(list(sy["ids"]))).unique()
    ix, iy = ids.get_indexer(list(sx["ids"])), ids.get_indexer(list(sy["ids"]))
    rows, tsum = np.zeros(len(ids), dtype=np.int64), np.zeros(len(ids), dtype=np.int64)
    tmax = np.full(len(ids), -1, dtype=np.int64)
    for s_, i in ((sx, ix), (sy, iy)):
        np.add.at(rows, i, s_["rows"])
        np.add.at(tsum, i, s_["sum"])
        np.maximum.at(tmax, i, s_["max"])
    both = np.zeros(len(ids), dtype=bool)
    both[ix] = True
    both &= np.isin(np.arange(len(ids)), iy)
    known = np.zeros(len(ids), dtype=bool)
    known[ix] = sx["max"] >= 0
    known[iy] &= sy["max"] >= 0
    hit = _trial_faults(rows, np.where(known & both, tmax, np.nan), tsum)
    if hit.size:
        i = int(hit[0])
        rx, ry = int(sx["rows"][list(ix).index(i)]), int(sy["rows"][list(iy).index(i)])
        raise _overlap(where, x, ids[i], rx, ry, tmax[i])
    return np.asarray(ids, dtype=object), rows, tmax, tsum


def _overlap(where: str | None, run, question, rx: int, ry: int, tmax) -> ValueError:
    """The error for a (question, trial) of ``run`` counted in two parts (``rx`` and ``ry`` rows, pooled trials up to
    ``tmax``)."""
    return ValueError(f"{where + ': ' if where else ''}dataset {run.dataset!r}, model {run.model!r}: question "
                      f"{_item(question)!r} has a (question, trial) counted in both parts ({rx} + {ry} rows, "
                      f"trials up to {int(tmax)}); shards must not overlap: each trial is counted once")


class _ShardPool:
    """Shards' counts added one at a time (:func:`count_shards` with ``progress``): the :func:`add_counts` of the
    shards in turn -- the same runs, counts, trial summaries, checks and errors, in the same order -- kept on integer
    codes.  A question id gets a code the first time a shard holds it (a shard's distinct ids are looked up in one
    dict), a (run, question) cell a code the first time a shard holds it in the run (so a run's cells come in the
    order of its pooled ids); the shard's counts are added to the running totals by position, its trial summaries
    checked and added for all its runs at once.  Adding the shards as OutcomeSets instead built an index of every
    pooled id, per shard and run: 200 shards of 20 models x 50,000 questions x 16 trials, every model in every
    shard, took 579 s, 8 s now (benchmarks/results_bench_shards_progress.md)."""

    def __init__(self):
        self.codes: tuple = ({}, {})  # question id -> code: ids held as numbers, ids held as objects (text)
        self.count = 0
        self.blocks: list = []  # the ids, in code order, as object arrays (one per shard that brought new ones)
        self.values = np.empty(0, dtype=object)
        self.runs: dict = {}  # (dataset, model) -> _Pooled, in the order the runs come
        self.added, self.source, self.warnings = False, None, []
        self.cells = 0  # cells of the runs held by more than one shard so far; per cell, its trial summary:
        self.trials = [np.zeros(0, dtype=np.int64), np.full(0, -1, dtype=np.int64), np.zeros(0, dtype=np.int64)]
        # (rows, maximum and sum of the trial numbers: add_counts' pooled summary) and its place in its run
        self.local = np.zeros(0, dtype=np.int64)

    def add(self, part: OutcomeSet, where: str) -> bool:
        """Add one shard's counts (a :class:`ReadingMismatch` or the overlap error as :func:`add_counts` raises
        them, before anything is added); False (nothing added) when a run's question ids would be of another kind
        than those pooled (text beside numbers): :func:`add_counts` has the last word on those."""
        runs = list(part)
        pooled = [self.runs.get((r.dataset, r.model)) for r in runs]
        ids = [r.counts().ids for r in runs]
        if any(p is not None and (p.dtypes[0].kind == "O") != (i.dtype.kind == "O") for p, i in zip(pooled, ids)):
            return False
        gq = self._question_codes(ids)
        for p in pooled:
            if p is not None and p.cells is None:  # held by a second shard: its first shard's cells get codes
                p.start(self)
        # as add_counts: every run's trial summary is checked, then the runs' kinds; only then is anything added
        found = [None if p is None else p.find(g) for p, g in zip(pooled, gq)]
        self._check_trials(runs, pooled, gq, found, where)
        weights = [None if p is None else p.kind_check(r) for p, r in zip(pooled, runs)]
        for p, g, r, hit, w in zip(pooled, gq, runs, found, weights):
            if p is None:
                self.runs[(r.dataset, r.model)] = _Pooled(r, g)
            else:
                p.add(self, r, g, hit, w)
        if not self.added:
            self.added, self.source = True, part.source
        self.warnings += part.warnings
        return True

    def _question_codes(self, ids: list) -> list:
        """The question code of each id of each run (new ids get the next codes, in the order they come)."""
        import pandas as pd

        every = np.concatenate(ids) if ids else np.empty(0, dtype=object)
        codes, distinct = pd.factorize(every)
        distinct = np.asarray(distinct, dtype=object)
        keys, known = distinct.tolist(), self.codes[every.dtype.kind == "O"]
        code = np.fromiter(map(known.get, keys, itertools.repeat(-1)), dtype=np.int64, count=len(keys))
        new = np.flatnonzero(code < 0)
        if new.size:
            code[new] = np.arange(self.count, self.count + new.size)
            self.count += new.size
            known.update(zip(distinct[new].tolist(), code[new].tolist()))
            self.blocks.append(distinct[new])
        ends = np.cumsum([i.size for i in ids], dtype=np.int64)
        return np.split(code[codes], ends[:-1]) if ids else []

    def new_cells(self, k: int, local: np.ndarray) -> np.ndarray:
        """Codes for ``k`` new cells, at places ``local`` in their run (no trials yet: 0 rows, maximum -1)."""
        start, self.cells = self.cells, self.cells + k
        self.trials = [_room(a, self.cells, fill) for a, fill in zip(self.trials, (0, -1, 0))]
        self.local = _room(self.local, self.cells, 0)
        self.local[start:self.cells] = local
        return np.arange(start, self.cells)

    def _check_trials(self, runs, pooled, gq, found, where) -> None:
        """:func:`_pool_trials`' check of every run the shard adds to: the first run (in the shard's order) with a
        question whose pooled trial summary shows a (question, trial) counted twice; its first such question in the
        pooled order."""
        sel = [(k, f) for k, (p, f) in enumerate(zip(pooled, found)) if f is not None and p.trials
               and _trials_of(runs[k]) is not None]
        if not sel:
            return
        at = [np.flatnonzero(f >= 0) for _, f in sel]  # the shard's questions each run holds already
        cell = np.concatenate([f[a] for (_, f), a in zip(sel, at)])
        summ = [_trials_of(runs[k]) for k, _ in sel]
        part = [np.concatenate([np.asarray(s[key], dtype=np.int64)[a] for s, a in zip(summ, at)])
                for key in ("rows", "max", "sum")]
        rows, tmax, tsum = (t[cell] for t in self.trials)
        top = np.maximum(tmax, part[1])
        hit = _trial_faults(rows + part[0], np.where((tmax >= 0) & (part[1] >= 0), top, np.nan), tsum + part[2])
        if not hit.size:
            return
        which = np.repeat(np.arange(len(sel)), [a.size for a in at])
        j = int(which[hit[0]])  # the first run, in the shard's order, then its first question in the pooled order
        mine = hit[which[hit] == j]
        i = int(mine[np.argmin(cell[mine])])
        k, p = sel[j][0], pooled[sel[j][0]]
        q = p.ids(self, gq[k][at[j][[i - sum(a.size for a in at[:j])]]], runs[k])[0]
        raise _overlap(where, p.first, q, int(rows[i]), int(part[0][i]), top[i])

    def question(self, code: np.ndarray) -> np.ndarray:
        """The question ids of ``code`` (an object array: each as first seen)."""
        if self.blocks:
            self.values = np.concatenate([self.values] + self.blocks)
            self.blocks = []
        return self.values[code]

    def result(self) -> OutcomeSet | None:
        if not self.added:
            return None
        return OutcomeSet([p.result(self) for p in self.runs.values()], source=self.source, warnings=self.warnings)


def _room(a: np.ndarray, n: int, fill) -> np.ndarray:
    """``a`` with room for ``n`` entries along its first axis (doubled when full; the new room holds ``fill``)."""
    if n <= a.shape[0]:
        return a
    out = np.full((max(n, 2 * a.shape[0]),) + a.shape[1:], fill, dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


class _Pooled:
    """One (dataset, model) of a :class:`_ShardPool`: its first run as counted and, once a second shard holds it, its
    cells (in the order of its pooled ids), their question codes, and its pooled counts: a category table, or the
    number, sum and sum of squares of scores, each added as :func:`add_counts` adds them (the same floating-point
    operations in the same order); its trial summary is the pool's, at its cells."""

    def __init__(self, run, gq: np.ndarray):
        self.first, self.gq, self.parts = run, gq, 1
        self.dtypes = [run.counts().ids.dtype]
        self.weights = run.weights
        self.cells = None

    def start(self, pool: _ShardPool) -> None:
        """The first shard's counts as the running totals: codes for its cells."""
        c = self.first.counts()
        self.M = c.M
        self.cells = pool.new_cells(self.M, np.arange(self.M))
        at = np.argsort(self.gq, kind="stable")
        self.sorted = (self.gq[at], self.cells[at])  # question codes in order, and the cell of each
        if isinstance(c, Scores):  # and the number of shards added when each question was last added to
            self.n, self.total, self.sq, self.table = c.n.astype(np.float64), c.total.copy(), c.sq.copy(), None
            self.last = np.zeros(self.M, dtype=np.int64)
        else:
            self.table = np.array(c.table, dtype=np.int64)
        summ = _trials_of(self.first)
        self.trials = summ is not None
        if self.trials:
            for t, key in zip(pool.trials, ("rows", "max", "sum")):
                t[self.cells] = summ[key]

    def find(self, gq: np.ndarray) -> np.ndarray:
        """The cell of each question ``gq`` in this run (-1: a question it does not hold yet)."""
        keys, cell = self.sorted
        near = np.minimum(np.searchsorted(keys, gq), keys.size - 1)
        found = keys[near] == gq
        return cell[near] if found.all() else np.where(found, cell[near], -1)

    def kind_check(self, run):
        """The pooled category weights after ``run`` is added; a :class:`ReadingMismatch` as :func:`add_counts`
        raises it."""
        x, y = self.first.counts(), run.counts()
        key = (run.dataset, run.model)
        if type(x) is not type(y):
            raise ReadingMismatch(f"{key[0]}/{key[1]}: cannot add scores to category counts")
        if isinstance(x, Scores):
            if (x.lo, x.hi) != (y.lo, y.hi):
                raise ReadingMismatch(f"{key[0]}/{key[1]}: scores on different ranges cannot be added")
            return None
        wx, wy = self.weights, run.weights
        if (wx is None) != (wy is None):  # 0/1 beside grades: categories 0 and 1 weighted 0 and 1
            wx, wy = (np.array([0.0, 1.0]) if w is None else w for w in (wx, wy))
        if wx is not None and not np.array_equal(wx[:min(len(wx), len(wy))], wy[:min(len(wx), len(wy))]):
            raise ReadingMismatch(f"{key[0]}/{key[1]}: the two parts weigh their categories differently; counts add "
                                  "only for the same categories")
        return None if wx is None else (wx if len(wx) >= len(wy) else wy)

    def add(self, pool: _ShardPool, run, gq: np.ndarray, cell: np.ndarray, weights) -> None:
        """Add ``run`` (one shard's counts of this run; ``cell``: :meth:`find`'s answer, completed here)."""
        new = np.flatnonzero(cell < 0) if cell.size and cell.min() < 0 else np.empty(0, dtype=np.int64)
        M0, M = self.M, self.M + new.size
        if new.size:  # new questions: the next places in the run, in the shard's order
            cell[new] = pool.new_cells(new.size, np.arange(M0, M))
            o = np.argsort(gq[new], kind="stable")
            keys, cells = self.sorted
            ins = np.searchsorted(keys, gq[new][o])
            self.sorted = (np.insert(keys, ins, gq[new][o]), np.insert(cells, ins, cell[new][o]))
            self.gq = np.concatenate([self.gq, gq[new]])
            self.cells = np.concatenate([self.cells, cell[new]])
        pos = pool.local[cell]
        y = run.counts()
        if self.table is None:  # scores: add_counts' raw second moments
            self.n, self.total, self.sq, self.last = (_room(a, M, 0) for a in
                                                      (self.n, self.total, self.sq, self.last))
            held = pos < M0
            old = pos[held]
            self._settle(old, self.parts - 1 - self.last[old])  # first the rebuilds it missed
            m2 = np.zeros(pos.size)
            m2[held] = self.sq[old] + self.total[old]**2 / self.n[old]
            m2 += y.sq + y.total**2 / y.n
            n, total = self.n[pos] + y.n, self.total[pos] + y.total
            self.n[pos], self.total[pos], self.sq[pos] = n, total, np.maximum(m2 - total**2 / n, 0.0)
            self.last[pos] = self.parts
        else:
            table, K = y.table, max(self.table.shape[1], y.table.shape[1])
            if K > self.table.shape[1]:
                self.table = np.pad(self.table, ((0, 0), (0, K - self.table.shape[1])))
            self.table = _room(self.table, M, 0)
            for j in range(table.shape[1]) if table.shape[1] <= 8 else ():  # a column at a time: half the time
                self.table[pos, j] += table[:, j]
            if table.shape[1] > 8:
                self.table[pos, :table.shape[1]] += table
            self.weights = weights
        sy = _trials_of(run)
        if self.trials and sy is not None:
            rows, tmax, tsum = pool.trials
            rows[cell] += sy["rows"]
            tmax[cell] = np.maximum(tmax[cell], sy["max"])
            tsum[cell] += sy["sum"]
        else:
            self.trials = False
        self.M, self.parts = M, self.parts + 1
        self.dtypes.append(y.ids.dtype)

    def _settle(self, at: np.ndarray, trips: np.ndarray) -> None:
        """Scores: ``trips[i]`` more of add_counts' rebuilds of question ``at[i]`` (sq = (sq + a) - a, at least 0,
        with a = total^2 / n: every pooled question, at every shard added, whether the shard holds it or not), done
        when the question is next added to (or at the end); a rebuild that leaves sq as it was leaves it so again."""
        at, trips = at[trips > 0], trips[trips > 0]
        while at.size:
            before = self.sq[at]
            a = self.total[at]**2 / self.n[at]
            after = np.maximum((before + a) - a, 0.0)
            self.sq[at] = after
            trips -= 1
            keep = (after != before) & (trips > 0)
            at, trips = at[keep], trips[keep]

    def ids(self, pool: _ShardPool, gq: np.ndarray, run=None) -> np.ndarray:
        """The question ids of ``gq`` as :func:`add_counts` pools them (with ``run``'s, when given): numbers of the
        type that holds every shard's (int beside float: float), as Python values in an object array."""
        ids = pool.question(gq)
        dtypes = self.dtypes + ([] if run is None else [run.counts().ids.dtype])
        if all(d.kind in "iuf" for d in dtypes):
            return np.asarray(ids, dtype=np.result_type(*dtypes)).astype(object)
        return ids

    def result(self, pool: _ShardPool):
        """The pooled run (the first run itself when one shard holds it)."""
        if self.parts == 1:
            return self.first
        ids = self.ids(pool, self.gq)
        c = self.first.counts()
        if self.table is None:
            everyone = np.arange(self.M)
            self._settle(everyone, self.parts - 1 - self.last[everyone])
            self.last[everyone] = self.parts - 1
            M = self.M
            counted = Scores(self.n[:M].astype(np.int64), self.total[:M], self.sq[:M], c.lo, c.hi, ids)
        else:
            counted = Counts(self.table[:self.M], ids=ids, fixed_categories=self.weights is not None,
                             _unique_ids=True)
        meta = dict(self.first.meta)
        if self.trials:
            rows, tmax, tsum = (t[self.cells] for t in pool.trials)
            meta["trials"] = {"ids": counted.ids, "rows": rows, "max": tmax, "sum": tsum}
        else:
            meta.pop("trials", None)
        return CountRun(self.first.dataset, self.first.model, counted, weights=None if self.table is None else
                        self.weights, meta=meta)


def count_shards(source: Any, *, progress: Any = None, check_overlap: bool = False, **kw: Any) -> OutcomeSet:
    """A folder or glob of shards counted: with ``progress`` (a callable wrapping an iterable, e.g. tqdm) shard by
    shard and added (counts add: what :func:`add_counts` gives when the shards are added in turn, pooled on integer
    codes), so the progress moves and an error names the shard; without it, or for one file, a URL or a list, in
    one query over the files (faster: a query per shard costs more than one over them all; an error names the
    files).  The result is the one query's: an empty shard adds nothing, and where shards read on their own values
    differ (0/1 in one, partial credit in another) the files are counted together after all.

    Repeated (question, trial) rows are found within a shard, and across shards from the per-question trial
    summaries the counts keep (:func:`add_counts`: exact unless a gap in a question's trial numbers hides the
    repeat).  ``check_overlap=True`` also checks every (dataset, model, question, trial) over all the shards in
    the engine (one more pass, with memory for every distinct trial: an opt-in audit), naming the trial and
    the two files."""
    if check_overlap:
        _check_overlap(source, kw)
    if isinstance(source, (list, tuple)) or "://" in str(source):
        return count_table(source, **kw)
    files = _files(source)
    if len(files) == 1 or progress is None:
        return count_table(files if len(files) > 1 else files[0], **kw)
    kept = set(_check_shards(files, kw))  # as the one query checks them: shards that store a column differently
    # are refused, empty ones left out (whatever their schema; the progress still moves over them)
    pool, out, empty = _ShardPool(), None, set(files) - kept
    for i, f in enumerate(progress(files)):
        if f not in kept:
            continue
        try:
            part = count_table(f, **kw)
            where = f"{f} (added to the shards before it)"
            if out is None and not pool.add(part, where):  # question ids of two types: added by add_counts
                out = pool.result()  # (which refuses them, as it refuses text beside numbers), as every shard after
            if out is not None:
                out = add_counts(out, part, where=where)
        except NoScores:  # an empty shard adds nothing; one query over all the files would not see it either
            empty.add(f)
        except (ReadingMismatch, OneValue):  # a shard read on its own values differs from the whole (0/1 beside
            # partial credit; one value 0.5 that only the other shards give a scale): the values are read together,
            # in one query over the files that are not empty (whose errors, if any, are the data's)
            empty |= {x for x in files[i + 1:] if _empty_shard(x, kw)}
            out = count_table([x for x in files if x not in empty], **kw)
            break
    out = pool.result() if out is None else out
    if out is None:
        raise NoScores(f"{source}: no scores (every score is missing) in any of its {len(files)} files")
    out.source = str(source)
    return out


def _used(model, question, trial, score, dataset, weight) -> dict:
    """The columns a count reads, each with its role."""
    named = (("model", model), ("question", question), ("trial", trial), ("score", score), ("dataset", dataset),
             ("weight", weight))
    return {col: role for role, col in named if col is not None}


def _check_shards(files: list[str], kw: dict) -> list[str]:
    """:func:`_shard_schemas` for shards counted one by one (``count_shards`` with ``progress``): the shards to
    count (empty Parquet shards left out, whatever their schema, as one query leaves them out)."""
    if kw.get("format") not in (None, "parquet"):
        return files
    try:
        import duckdb
    except ImportError:  # no DuckDB: the engine that counts each shard reads it as it is
        return files
    names = {role: kw.get(role, role) for role in ("model", "question", "trial", "score", "dataset")}
    con = _cursor(duckdb)
    try:
        return _shard_schemas(con, files, _used(**names, weight=kw.get("weight")))
    except duckdb.Error:  # a shard DuckDB cannot read: its own count names it
        return files
    finally:
        con.close()


def _empty_shard(path: str, kw: dict) -> bool:
    """Whether the shard ``path`` holds no score (its other faults are left to the query that reads it)."""
    try:
        count_table(path, **kw)
    except NoScores:
        return True
    except ValueError:
        return False
    return False


def _check_overlap(source: Any, kw: dict) -> None:
    """Every (dataset, model, question, trial) once over all the files of ``source``, checked in DuckDB."""
    duckdb = _duckdb()
    files = _files(source)
    fmt = _format_of(files, kw.get("format"))
    model, question = kw.get("model", "model"), kw.get("question", "question")
    trial, dataset = kw.get("trial", "trial"), kw.get("dataset", "dataset")
    con = _cursor(duckdb)
    try:
        scan = _scan(files, fmt)
        cols = _columns(con, scan)
        if trial is None or trial not in cols:
            raise ValueError(f"{source}: check_overlap needs a trial column ({trial!r} is not one of the columns)")
        keys = [_quote(c) for c in (dataset, model) if c is not None and c in cols] + [_quote(question)]
        t = _quote(trial) if re.match(_INT, cols[trial]) else f"TRY_CAST({_quote(trial)} AS BIGINT)"
        row = con.execute(f"SELECT {', '.join(keys)}, {t} AS t, count(*) AS c, min(filename) AS f0, max(filename) AS f1 "
                          f"FROM {scan} WHERE {t} IS NOT NULL GROUP BY ALL HAVING count(*) > 1 "
                          f"ORDER BY ALL LIMIT 1").fetchone()
    except duckdb.Error as exc:
        raise ValueError(f"{source}: the overlap check could not read the shards ({str(exc).splitlines()[0]})") from None
    finally:
        con.close()
    if row:
        *key, tr, c, f0, f1 = row
        where = f"in {f0} and {f1}" if f0 != f1 else f"in {f0}"
        raise ValueError(f"{source}: (question, trial) {_item(key[-1])!r}, {tr} of "
                         f"{' / '.join(repr(k) for k in key[:-1]) or 'the table'} appears {c} times ({where}); each "
                         "trial must be counted once")
