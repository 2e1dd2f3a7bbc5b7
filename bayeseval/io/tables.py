"""Outcome tables -> :class:`~bayeseval.io.OutcomeSet`: long tables (one row per trial) and wide per-model CSV.

Long table: one row per (model, question, trial) with a score; column names are
configurable, ``dataset`` and ``trial`` columns are optional::

    model,question,trial,score
    gpt-4o,q1,0,1
    gpt-4o,q1,1,0
    llama,q1,0,1

* ``score``: booleans, 0/1, integer grades (``0..C``; category weights are the
  grade values, so ``avg`` is the mean grade) or other numbers (each distinct
  value becomes a category whose weight is the value: partial credit such as
  0.24 of a crossword's letters).  An empty/NaN score is a missing trial.
* ``trial``: optional; without it, trials are numbered in row order within a
  question.  With it, a (model, question) pair may lack some trials (ragged).
* Question ids keep their order of first appearance; models are paired on ids,
  not on row positions.

Wide CSV (one file per model, the layout many scripts dump): first column the
question id, then one column per trial (0/1, grades, or empty for missing).

Both are vectorised with pandas (no Python loop per question).

>>> import pandas as pd
>>> df = pd.DataFrame({"model": ["a", "a", "a", "b"], "question": ["q1", "q1", "q2", "q1"],
...                    "score": [1, 0, 1, True]})
>>> s = from_long(df)
>>> s.counts("a").table.tolist(), s.counts("b").n.tolist()
([[1, 1], [0, 1]], [1])
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ._vendor import categorise
from .outcomeset import OutcomeSet, Run

__all__ = ["from_long", "read_long", "read_wide"]

_LONG_FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json",
                 ".parquet": "parquet", ".pq": "parquet"}


def _scores(values: np.ndarray, where: str, column: str, rows: np.ndarray | None = None):
    """Score column -> (float categories with NaN, weights or None); ``rows`` = the file's row numbers."""
    import pandas as pd

    rows = np.arange(len(values)) if rows is None else np.asarray(rows)
    s = pd.Series(values)
    if not (pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s)):
        s = s.astype(object)
        lowered = s.map(lambda v: v.strip().lower() if isinstance(v, str) else v)
        mapping = {"true": 1.0, "false": 0.0, "": np.nan, "nan": np.nan, "na": np.nan, "null": np.nan,
                   "none": np.nan}
        lowered = lowered.map(lambda v: mapping.get(v, v) if isinstance(v, str) else v)
        numeric = pd.to_numeric(lowered, errors="coerce")
        bad = numeric.isna() & lowered.notna() & ~lowered.map(lambda v: isinstance(v, float) and np.isnan(v))
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"{where}: row {int(rows[i])}: column {column!r} must be a number or true/false, "
                             f"got {_plain(values[i])!r}")
        s = numeric
    x = s.to_numpy(dtype=float)
    if np.isinf(x).any():
        i = int(np.flatnonzero(np.isinf(x))[0])
        raise ValueError(f"{where}: row {int(rows[i])}: column {column!r} is infinite")
    if np.isnan(x).all():
        raise ValueError(f"{where}: column {column!r} has no scores")
    return categorise(x, f"{where}: column {column!r}")


def _plain(v: Any) -> Any:
    """numpy scalars as Python values (for ids and error messages)."""
    return v.item() if isinstance(v, np.generic) else v


def from_long(table: Any, *, model: str | None = "model", question: str = "question", trial: str | None = "trial",
              score: str = "score", dataset: str | None = "dataset", default_model: str = "model",
              default_dataset: str = "dataset", where: str = "table") -> OutcomeSet:
    """A long table (pandas DataFrame or list of dicts, one row per trial) -> :class:`OutcomeSet`.

    ``model``, ``question``, ``trial``, ``score``, ``dataset`` name the columns;
    ``trial`` and ``dataset`` are used when present (pass None to ignore them), and
    ``model=None`` treats the whole table as one model called ``default_model``.
    Scores are coded per run (see the module docstring); the input is not modified.
    """
    import pandas as pd

    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame.from_records(list(table))
    for col, role in ((question, "question"), (score, "score"), (model, "model")):
        if col is not None and col not in df.columns:
            raise ValueError(f"{where}: no {role} column {col!r}; columns are {list(map(str, df.columns))} "
                             f"(name yours with {role}=...)")
    if len(df) == 0:
        raise ValueError(f"{where}: the table has no rows")
    for col, role in ((question, "question id"), (model, "model"), (dataset, "dataset")):
        if col is not None and col in df.columns:
            empty = df[col].isna().to_numpy() | (df[col].astype(object).map(lambda v: str(v).strip()) == "").to_numpy()
            if empty.any():
                raise ValueError(f"{where}: row {int(np.flatnonzero(empty)[0])}: column {col!r} ({role}) is empty")
    use_trial = trial is not None and trial in df.columns
    use_dataset = dataset is not None and dataset in df.columns
    keys = pd.DataFrame({
        "dataset": df[dataset].astype(str).to_numpy() if use_dataset else default_dataset,
        "model": df[model].astype(str).to_numpy() if model is not None else default_model,
        "question": df[question].to_numpy(),
    })
    runs = []
    for (ds, mdl), rows in keys.groupby(["dataset", "model"], sort=False).indices.items():  # positions
        sub = keys.iloc[rows]
        at = f"{where} (dataset {ds!r}, model {mdl!r})"
        qcodes, qids = pd.factorize(sub["question"], sort=False)
        if use_trial:
            t = pd.to_numeric(df[trial].iloc[rows], errors="coerce").to_numpy(dtype=float)
            bad = np.isnan(t) | (t < 0) | (t != np.round(t))
            if bad.any():
                i = int(rows[np.flatnonzero(bad)[0]])
                raise ValueError(f"{where}: row {i}: column {trial!r} must be a non-negative integer trial index, "
                                 f"got {_plain(df[trial].iloc[i])!r}")
            tcodes, _ = pd.factorize(t.astype(np.int64), sort=True)
        else:
            tcodes = pd.Series(qcodes).groupby(qcodes).cumcount().to_numpy()
        flat = qcodes.astype(np.int64) * (int(tcodes.max()) + 1) + tcodes
        dup = pd.Series(flat).duplicated(keep=False).to_numpy()
        if dup.any():
            i = rows[np.flatnonzero(dup)[:2]]
            raise ValueError(f"{at}: rows {int(i[0])} and {int(i[1])} are the same question "
                             f"{sub['question'].iloc[np.flatnonzero(dup)[0]]!r} and trial; each trial must appear once")
        cats, weights = _scores(df[score].iloc[rows].to_numpy(), where, score, rows)
        matrix = np.full((len(qids), int(tcodes.max()) + 1), np.nan)
        matrix[qcodes, tcodes] = cats
        ids = [_plain(v) for v in qids]
        runs.append(Run(ds, mdl, ids, matrix, weights=weights, meta={"source": where}))
    return OutcomeSet(runs)


def read_long(path: str | Path, *, format: str | None = None, **columns) -> OutcomeSet:
    """Read a long table from CSV, TSV, JSONL, JSON (a list of records) or Parquet; see :func:`from_long`."""
    import pandas as pd

    path = Path(path)
    fmt = format or _LONG_FORMATS.get(path.suffix.lower())
    if fmt not in set(_LONG_FORMATS.values()):
        raise ValueError(f"{path}: unknown table format {path.suffix!r}; pass format= one of "
                         f"{sorted(set(_LONG_FORMATS.values()))}")
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        labels = [columns.get(k, k) for k in ("model", "question", "dataset") if columns.get(k, k)]
        if fmt in ("csv", "tsv"):  # ids and names exactly as written ("007", "1e3"); empty scores are missing
            df = pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", dtype={c: str for c in labels},
                             keep_default_na=False, na_values={columns.get("score", "score"): ["", "NA", "NaN", "nan", "null"]},
                             encoding="utf-8-sig")
        elif fmt == "jsonl":
            df = pd.read_json(path, lines=True, dtype=False)
        elif fmt == "json":
            df = pd.read_json(path, orient="records", dtype=False)
        else:
            df = pd.read_parquet(path)
    except ImportError as exc:
        raise ImportError(f"{path}: reading {fmt} needs an extra package ({exc}); pip install 'bayeseval[tables]'") from None
    except ValueError as exc:
        raise ValueError(f"{path}: not a valid {fmt} table ({str(exc).splitlines()[0]})") from None
    return from_long(df, where=str(path), **columns)


def read_wide(path: str | Path, *, model: str | None = None, dataset: str = "dataset",
              question: str | None = None) -> OutcomeSet:
    """Read a wide per-model CSV: one row per question, the id column first (or ``question=``),
    then one column per trial; empty cells are missing trials.  ``model`` defaults to the file stem."""
    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        df = pd.read_csv(path, sep="\t" if path.suffix.lower() == ".tsv" else ",", encoding="utf-8-sig",
                         dtype={0: str} if question is None else {question: str})
    except (ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"{path}: not a valid CSV table ({str(exc).splitlines()[0]})") from None
    if df.shape[1] < 2:
        raise ValueError(f"{path}: a wide table needs a question id column and at least one trial column")
    qcol = question if question is not None else df.columns[0]
    if qcol not in df.columns:
        raise ValueError(f"{path}: no question column {qcol!r}; columns are {list(map(str, df.columns))}")
    ids = df[qcol]
    if ids.isna().any() or ids.duplicated().any():
        bad = int(np.flatnonzero((ids.isna() | ids.duplicated()).to_numpy())[0])
        raise ValueError(f"{path}: row {bad}: question id {_plain(ids.iloc[bad])!r} is empty or repeated")
    body = df.drop(columns=[qcol])
    flat = body.astype(object).to_numpy().ravel()
    cats, weights = _scores(flat, str(path), "trial cells")
    matrix = cats.reshape(body.shape)
    ids = [_plain(v) for v in ids]
    return OutcomeSet([Run(dataset, model or path.stem, ids, matrix, weights=weights, meta={"source": str(path)})])
