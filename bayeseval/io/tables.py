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

Both are vectorised with pandas and numpy: no Python work per row or cell (a label or score text is
checked once however many rows repeat it; a CSV file's shape is scanned with numpy).

Reading files is strict, so a damaged file fails loudly instead of giving a
wrong number: every message names the file, the record (``line 7`` for CSV /
TSV / JSONL, ``record 3`` for a JSON list, ``row 3`` for Parquet and data
frames) and the column.  A CSV row with fewer or more cells than the header,
a file cut inside its last row (``allow_truncated=True`` drops that row with a
warning instead), a JSON record lacking a column the others have, a key written
twice, a negative score (a ``-1`` "failed" marker would otherwise become a
category weighted -1), a control character (a NUL byte, a newline) in a model,
dataset or question label and a (model, question, trial) written twice are all
errors.

>>> import pandas as pd
>>> df = pd.DataFrame({"model": ["a", "a", "a", "b"], "question": ["q1", "q1", "q2", "q1"],
...                    "score": [1, 0, 1, True]})
>>> s = from_long(df)
>>> s.counts("a").table.tolist(), s.counts("b").n.tolist()
([[1, 1], [0, 1]], [1])
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import validate as V
from .._json import too_deep
from .._text import unique_header
from .._protocol import UNNAMED_DATASET, user_stacklevel
from ._vendor import _open_error, code_scores, control_char, no_duplicate_keys, show
from ..scores import score_range_arg
from .outcomeset import OutcomeSet, Run

__all__ = ["from_long", "read_long", "read_wide", "read_model_columns", "split_run_ids"]

_LONG_FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json",
                 ".parquet": "parquet", ".pq": "parquet"}
_ROLES = ("model", "question", "trial", "score", "dataset")
_RECORD = '{"model": ..., "question": ..., "score": ...}'    # a long table's record, for messages
_ONE_RECORD = f"one record per line, {_RECORD}"                 # a JSON-lines table's line
_RECORDS = f"a JSON list of records [{_RECORD}, ...] (a long table)"   # a JSON table


class _Rows:
    """Names a table's rows in messages: ``line 7`` (text files), ``record 3`` (JSON lists), ``row 3`` (frames).

    ``numbers[i]`` is the number shown for the DataFrame's row ``i`` (the file line of a CSV record).
    """

    def __init__(self, kind: str = "row", numbers: Any = None):
        self.kind, self.numbers = kind, numbers

    def number(self, i: int) -> int:
        return int(self.numbers[i]) if self.numbers is not None else int(i)

    def __call__(self, i: int) -> str:
        return f"{self.kind} {self.number(i)}"

    def two(self, i: int, j: int) -> str:
        return f"{self.kind}s {self.number(i)} and {self.number(j)}"


#: kinds of cells (pandas' ``infer_dtype``) that hold no text: the text rules (strip, lower case, true/false,
#: na/null/none) leave them as they are, so they go to ``pd.to_numeric`` whole
_NO_TEXT = frozenset({"integer", "floating", "mixed-integer-float", "boolean", "empty", "decimal", "complex"})


def _numbers(values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Score cells -> (floats, NaN = missing; which cells are not numbers, or None when none can be).

    Text (``" 1"``, ``"True"``, ``"NA"``, ``""``) is read once per distinct text, each cell then looks up its own;
    cells without text go to ``pd.to_numeric`` whole; a column mixing text with other objects, cell by cell.
    """
    import pandas as pd

    s = values if isinstance(values, pd.Series) else pd.Series(values)
    if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
        return s.to_numpy(dtype=float), None
    mapping = {"true": 1.0, "false": 0.0, "": np.nan, "nan": np.nan, "na": np.nan, "null": np.nan, "none": np.nan}
    kind = pd.api.types.infer_dtype(s, skipna=True)
    if kind == "string":  # every cell text or missing (code -1): each distinct text read once
        codes, texts = pd.factorize(s, sort=False)
        lowered = pd.Series([mapping.get(v, v) for v in (t.strip().lower() for t in texts)] + [np.nan], dtype=object)
        numeric = pd.to_numeric(lowered, errors="coerce")
        bad = (numeric.isna() & lowered.notna()).to_numpy(dtype=bool)
        return numeric.to_numpy(dtype=float)[codes], bad[codes]
    s = s.astype(object)
    if kind in _NO_TEXT:
        numeric = pd.to_numeric(s, errors="coerce")
        return numeric.to_numpy(dtype=float), (numeric.isna() & s.notna()).to_numpy(dtype=bool)
    lowered = s.map(lambda v: v.strip().lower() if isinstance(v, str) else v)
    lowered = lowered.map(lambda v: mapping.get(v, v) if isinstance(v, str) else v)
    numeric = pd.to_numeric(lowered, errors="coerce")
    return numeric.to_numpy(dtype=float), (numeric.isna() & lowered.notna()).to_numpy(dtype=bool)


def _scores(values: np.ndarray, where: str, column: str, at: Callable[[int], str], score_range: Any = None):
    """Score cells -> (float categories with NaN, weights or None, scale or None).

    ``at(k)`` names the place of ``values[k]`` (``"line 7: column 'score'"``); ``column`` names the
    cells as a whole (messages about all of them).  With ``score_range=(lo, hi)`` the cells are
    continuous scores in that range (returned as they are, scale ``(lo, hi)``); without it, more than
    1001 distinct non-integer values in [0, 1] are scores in [0, 1] too (a set that large is no set of
    categories).
    """
    return _coded(*_numbers(values), lambda i: values[i], where, column, at, score_range)


def _coded(x: np.ndarray, bad: np.ndarray | None, value_at: Callable[[int], Any], where: str, column: str,
           at: Callable[[int], str], score_range: Any = None):
    """:func:`_scores` of cells read by :func:`_numbers`: ``x`` their numbers, ``bad`` the cells that are not
    numbers (``value_at(i)`` the cell as written, for the message)."""
    if bad is not None and bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{where}: {at(i)} must be a number or true/false, got {_plain(value_at(i))!r}")
    if np.isinf(x).any():
        i = int(np.flatnonzero(np.isinf(x))[0])
        raise ValueError(f"{where}: {at(i)} is infinite")
    if score_range is not None:
        lo, hi = score_range_arg(score_range)
        out = (x < lo) | (x > hi)
        if out.any():
            i = int(np.flatnonzero(out)[0])
            raise V.ArgumentError("{where}: {at}: a score of {v:g} is outside [{lo:g}, {hi:g}]; give the range of "
                                  "the scores with {score_range}", "score_range", where=where, at=at(i), v=x[i],
                                  lo=lo, hi=hi)
        if np.isnan(x).all():
            raise ValueError(f"{where}: {column} has no scores")
        return x, None, (lo, hi)
    if (x < 0).any():
        i = int(np.flatnonzero(x < 0)[0])
        raise ValueError(f"{where}: {at(i)}: a score of {x[i]:g} is below 0; scores are 0/1, true/false, grades "
                         "0..C or partial credit >= 0 (leave the cell empty for a missing trial)")
    if np.isnan(x).all():
        raise ValueError(f"{where}: {column} has no scores")
    return code_scores(x, f"{where}: {column}")


def _plain(v: Any) -> Any:
    """numpy scalars as Python values (for ids and error messages)."""
    return v.item() if isinstance(v, np.generic) else v


def check_optional_columns(where: str, columns: list, trial: str | None, dataset: str | None) -> None:
    """The trial and dataset columns are optional under their own names; named otherwise, they must exist (a
    misspelt dataset column would pool the datasets).  Every reader checks with this: pandas here, DuckDB and
    Ibis in :mod:`bayeseval.io.scale`."""
    for col, role in ((trial, "trial"), (dataset, "dataset")):
        if col is not None and col != role and col not in columns:
            raise ValueError(f"{where}: no {role} column {col!r}; columns are {columns} "
                             f"(pass {role}=None to read without one; CLI: leave out --{role}-col)")


def from_long(table: Any, *, model: str | None = "model", question: str = "question", trial: str | None = "trial",
              score: str = "score", dataset: str | None = "dataset", default_model: str = "model",
              default_dataset: str = UNNAMED_DATASET, where: str = "table", score_range: Any = None) -> OutcomeSet:
    """A long table (pandas DataFrame or list of dicts, one row per trial) -> :class:`OutcomeSet`.

    ``model``, ``question``, ``trial``, ``score``, ``dataset`` name the columns;
    ``trial`` and ``dataset`` are used when present (pass None to ignore them), and
    ``model=None`` treats the whole table as one model called ``default_model``.
    Scores are coded per run (see the module docstring); ``score_range=(lo, hi)`` reads them as continuous
    scores in that range (:class:`~bayeseval.scores.Scores`); the input is not modified.
    Errors name ``where`` and the row (0-based position) and column.
    """
    return _from_long(table, _Rows(), model=model, question=question, trial=trial, score=score, dataset=dataset,
                      default_model=default_model, default_dataset=default_dataset, where=where,
                      score_range=score_range)


#: kinds of label columns (pandas' ``infer_dtype``) whose equal values are the same label (distinct strings or
#: integers print apart); other columns (1 with '1' or 1.0, True) are read cell by cell
_ONE_KIND = frozenset({"string", "integer", "empty"})


class _Labels:
    """A model / question / dataset column: ``values[codes[i]]`` is row ``i``'s label, stripped ('q1 ' is question
    'q1'), ``values`` in order of first appearance.  ``rows`` holds every row's label when the column mixes kinds:
    values that compare equal (1, 1.0, True) are one code but may print apart, and a run's question id is its first
    spelling there."""

    def __init__(self, codes: np.ndarray, values: np.ndarray, rows: np.ndarray | None = None):
        self.codes, self.values, self.rows = codes, values, rows

    def at(self, i: int) -> Any:
        """Row ``i``'s label."""
        return self.values[self.codes[i]] if self.rows is None else self.rows[i]

    def factorize(self, rows: np.ndarray) -> tuple[np.ndarray, Any]:
        """The labels of ``rows``: (code per row, distinct labels in order of first appearance), as
        ``pd.factorize`` of those rows' labels gives them."""
        import pandas as pd

        if self.rows is not None:
            return pd.factorize(self.rows[rows], sort=False)
        codes, seen = pd.factorize(self.codes[rows], sort=False)
        return codes, self.values[seen]

    def texts(self) -> tuple[np.ndarray, Any]:
        """The labels as text (model 1 and '1' are one model): (code per row, distinct texts)."""
        import pandas as pd

        if self.rows is not None:
            return pd.factorize(pd.Series(self.rows, dtype=object).astype(str), sort=False)
        codes, names = pd.factorize(pd.Series(self.values, dtype=object).astype(str), sort=False)
        return codes[self.codes], names


def _labels(column: Any, col: str, role: str, where: str, rows_of: _Rows) -> _Labels:
    """A model / question / dataset column -> :class:`_Labels`, checked: no list, bool or bytes, no empty cell, no
    control character (errors name the first such row).  Each distinct value is checked once (a column of 16
    million rows holds some thousand questions); a column that mixes kinds, cell by cell."""
    import pandas as pd

    kinds = column.dtype.categories if isinstance(column.dtype, pd.CategoricalDtype) else column
    kind = pd.api.types.infer_dtype(kinds, skipna=True)
    if kind in _ONE_KIND:
        codes, seen = pd.factorize(column, sort=False)  # a missing cell is code -1
        seen = np.asarray(seen, dtype=object)
        stripped = np.empty(len(seen), dtype=object)
        stripped[:] = [v.strip() if isinstance(v, str) else v for v in seen]  # 'q1 ' is question 'q1'
        empty = np.array([str(v).strip() == "" for v in stripped] + [True])  # last: a missing cell
        if empty[:-1].any() or (codes < 0).any():
            i = int(np.flatnonzero(empty[codes])[0])
            raise ValueError(f"{where}: {rows_of(i)}: column {col!r} ({role}) is empty")
        ctrl = np.array([control_char(v) is not None for v in stripped], dtype=bool)
        if ctrl.any():
            i = int(np.flatnonzero(ctrl[codes])[0])
            _control_error(stripped[codes[i]], i, col, role, where, rows_of)
        merged, values = pd.factorize(stripped, sort=False)  # 'q1' and 'q1 ': one label
        return _Labels(merged[codes] if len(values) < len(stripped) else codes, values)
    values = column.astype(object)
    odd = values.map(lambda v: isinstance(v, (list, tuple, dict, set, bool, np.bool_, bytes))).to_numpy(bool)
    if odd.any():
        i = int(np.flatnonzero(odd)[0])
        v = values.iloc[i]
        raise ValueError(f"{where}: {rows_of(i)}: column {col!r} ({role}) is {type(v).__name__} {v!r}; "
                         f"a {role} must be text or a number")
    values = values.map(lambda v: v.strip() if isinstance(v, str) else v)  # 'q1 ' is question 'q1'
    empty = column.isna().to_numpy() | (values.map(lambda v: str(v).strip()) == "").to_numpy()
    if empty.any():
        raise ValueError(f"{where}: {rows_of(int(np.flatnonzero(empty)[0]))}: column {col!r} ({role}) is empty")
    ctrl = values.map(lambda v: control_char(v) is not None).to_numpy(dtype=bool)
    if ctrl.any():
        i = int(np.flatnonzero(ctrl)[0])
        _control_error(values.iloc[i], i, col, role, where, rows_of)
    rows = values.to_numpy()
    codes, seen = pd.factorize(rows, sort=False)
    return _Labels(codes, np.asarray(seen, dtype=object), rows)


def _control_error(v: str, i: int, col: str, role: str, where: str, rows_of: _Rows):
    ch = control_char(v)
    raise ValueError(f"{where}: {rows_of(i)}: column {col!r} ({role}) {v!r} contains the control "
                     f"character {ch!r} at position {v.index(ch)}; names and ids must be printable text")


def _from_long(table: Any, rows_of: _Rows, *, model: str | None = "model", question: str = "question",
               trial: str | None = "trial", score: str = "score", dataset: str | None = "dataset",
               default_model: str = "model", default_dataset: str = UNNAMED_DATASET, where: str = "table",
               score_range: Any = None) -> OutcomeSet:
    import pandas as pd

    df = table if isinstance(table, pd.DataFrame) else pd.DataFrame.from_records(list(table))
    for col, role in ((question, "question"), (score, "score"), (model, "model")):
        if col is not None and col not in df.columns:
            one = "; a table of one model: model=None, CLI --model-name NAME" if role == "model" else ""
            raise ValueError(f"{where}: no {role} column {col!r}; columns are {list(map(str, df.columns))} "
                             f"(name yours with {role}=... ; CLI --{role}-col NAME{one})")
    check_optional_columns(where, list(map(str, df.columns)), trial, dataset)
    if len(df) == 0:
        raise ValueError(f"{where}: the table has no rows")
    q = _labels(df[question], question, "question id", where, rows_of)
    m_codes, m_names = _labels(df[model], model, "model", where, rows_of).texts() if model is not None else (
        None, [default_model])
    use_trial = trial is not None and trial in df.columns
    use_dataset = dataset is not None and dataset in df.columns
    ds_codes, ds_names = _labels(df[dataset], dataset, "dataset", where, rows_of).texts() if use_dataset else (
        None, [default_dataset])
    n_m = len(m_names)  # a run's code: dataset * n_m + model
    codes = m_codes if len(ds_names) == 1 else ds_codes if n_m == 1 else ds_codes.astype(np.int64) * n_m + m_codes
    del m_codes, ds_codes
    pairs, keys = pd.factorize(np.zeros(1, np.int64) if codes is None else codes, sort=False)
    del codes
    rows_of_run = np.split(np.argsort(pairs, kind="stable"), np.cumsum(np.bincount(pairs))[:-1]) if len(keys) > 1 \
        else [np.arange(len(df))]  # each run's rows, in table order
    del pairs
    # the runs in the order pandas' groupby of the (dataset, model) texts gives them: an order of their first
    # appearances (the pairs' own, or the datasets' then the models', by pandas version), so the runs' first
    # appearances, in order, give it
    groups = pd.DataFrame({"dataset": keys // n_m, "model": keys % n_m}).groupby(["dataset", "model"], sort=False)
    cells = df[score] if isinstance(df[score].dtype, pd.StringDtype) else df[score].to_numpy()
    numbers, not_numbers = _numbers(cells)  # the score cells read once; each run checks and codes its own
    cell = cells.iloc.__getitem__ if isinstance(cells, pd.Series) else cells.__getitem__
    trials = df[trial].to_numpy(dtype=float) if use_trial and pd.api.types.is_numeric_dtype(df[trial]) else None
    runs = []
    for (d, m), (k,) in groups.indices.items():
        ds, mdl, rows = str(ds_names[d]), str(m_names[m]), rows_of_run[k]
        at = f"{where} (dataset {ds!r}, model {mdl!r})"
        qcodes, qids = q.factorize(rows)
        texts = pd.Index(qids).astype(str)
        if texts.has_duplicates:  # 1 and '1': two values, one id once written down
            a, b = np.flatnonzero(texts == texts[texts.duplicated()][0])[:2]
            ra, rb = (int(rows[np.flatnonzero(qcodes == j)[0]]) for j in (a, b))
            raise ValueError(f"{at}: {rows_of.two(ra, rb)}: column {question!r} holds {_plain(qids[a])!r} and "
                             f"{_plain(qids[b])!r}, two values that read as one question id; write each id one way")
        if use_trial:
            t = trials[rows] if trials is not None else pd.to_numeric(df[trial].iloc[rows],
                                                                      errors="coerce").to_numpy(dtype=float)
            bad = np.isnan(t) | (t < 0) | (t != np.round(t)) | (t > 2.0 ** 53)
            if bad.any():
                i = int(rows[np.flatnonzero(bad)[0]])
                raise ValueError(f"{where}: {rows_of(i)}: column {trial!r} must be a non-negative integer trial "
                                 f"index, got {_plain(df[trial].iloc[i])!r}")
            tcodes, _ = pd.factorize(t.astype(np.int64), sort=True)
        else:
            tcodes = pd.Series(qcodes).groupby(qcodes).cumcount().to_numpy()
        flat = qcodes.astype(np.int64) * (int(tcodes.max()) + 1) + tcodes
        seen = np.bincount(flat)  # no larger than the matrix below
        if seen.max() > 1:
            dup = seen[flat] > 1
            first = np.flatnonzero(dup)[0]
            second = np.flatnonzero(dup & (flat == flat[first]))[1]
            raise ValueError(f"{at}: {rows_of.two(int(rows[first]), int(rows[second]))} are the same question "
                             f"{_plain(q.at(int(rows[first])))!r} and trial; each trial must appear once")
        cats, weights, scale = _coded(numbers[rows], None if not_numbers is None else not_numbers[rows],
                                      lambda k: cell(int(rows[k])), where,
                                      f"column {score!r}" + (f" (model {mdl!r})" if model is not None else ""),
                                      lambda k: f"{rows_of(int(rows[k]))}: column {score!r}", score_range)
        matrix = np.full((len(qids), int(tcodes.max()) + 1), np.nan)
        matrix[qcodes, tcodes] = cats
        runs.append(Run(ds, mdl, list(qids), matrix, weights=weights, meta={"source": where}, scale=scale))
    return OutcomeSet(runs)


# ----------------------------------------------------------------------------- reading files
def _truncated(where: str, line: int, reason: str, allow: bool, hint: str = "") -> str:
    """The message for a file cut inside its last row: raised, or (``allow``) returned as a warning."""
    if not allow:
        raise ValueError(f"{where}: line {line}: the file ends inside this row ({reason}): truncated? Pass "
                         f"allow_truncated=True (CLI: --allow-truncated) to drop the row with a warning{hint}")
    return f"{where}: line {line}: dropped an incomplete last row ({reason}; allow_truncated=True)"


def _warn(out: OutcomeSet, notes: list[str]) -> OutcomeSet:
    for msg in notes:
        warnings.warn(msg, UserWarning, stacklevel=user_stacklevel())
        out.warnings.append(msg)
    return out


def _first_bad_byte(path: Path) -> tuple[int, str]:
    """(line, reason) of the first byte that is not UTF-8."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data.count(b"\n", 0, exc.start) + 1, f"{exc.reason}, byte {data[exc.start]:#04x}"
    return 1, "undecodable"  # pragma: no cover - only called after a decode error


_BLOCK = 1 << 25  # bytes of a CSV file that _scan_plain reads at a time
_TEXT = np.ones(256, dtype=bool)  # bytes that are text, not white space (str.strip's ASCII white space)
_TEXT[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = False
_TEXT[128:] = False  # part of a character that may be white space (U+00A0, U+2003): such lines are decoded


def _scan_plain(path: Path, sep: str) -> tuple[list | None, np.ndarray, tuple | None, list | None] | None:
    """:func:`_scan_rows` with numpy, for a file in which every line is one record: no quote character (a quoted
    cell may hold a separator or a line break), no NUL, no carriage return but in CRLF, valid UTF-8 and no line
    longer than the csv module's field limit.  A line's cells are its separators + 1; a line of one cell is blank
    when it strips to nothing (empty lines are skipped, as pandas skips them).  None when the file is not of that
    kind (or cannot be opened): :func:`_scan_rows` then reads it and names what is wrong."""
    limit, code = csv.field_size_limit(), ord(sep)
    header, last, seen = None, None, 0  # seen: lines before the block
    starts, cells = [], []
    try:
        fh = path.open("rb")
    except OSError:
        return None
    with fh:
        rest = fh.read(3)
        rest = b"" if rest == b"\xef\xbb\xbf" else rest  # utf-8-sig: a byte order mark is not text
        while True:
            more = fh.read(_BLOCK)
            block = rest + more
            if more:  # whole lines only; the tail goes with the next block
                cut = block.rfind(b"\n") + 1
                block, rest = block[:cut], block[cut:]
                if not block:
                    continue
            elif not block:
                break
            if b'"' in block or b"\0" in block or (b"\r" in block and block.count(b"\r") != block.count(b"\r\n")):
                return None
            try:
                block.isascii() or block.decode("utf-8")
            except UnicodeDecodeError:
                return None
            a = np.frombuffer(block, dtype=np.uint8)
            ends = np.flatnonzero(a == 10)
            if not more and (ends.size == 0 or ends[-1] != a.size - 1):  # the last line, without a newline
                ends = np.append(ends, a.size)
            begins = np.concatenate(([0], ends[:-1] + 1))
            if int((ends - begins).max()) > limit:
                return None
            n = np.add.reduceat(a == code, begins, dtype=np.int64) + 1  # cells per line: separators + 1
            kept = n > 1
            if not kept.all():  # a line of one cell is blank when it holds nothing but white space
                one = np.flatnonzero(~kept)
                kept[one] = np.add.reduceat(_TEXT[a], begins, dtype=np.int64)[one] > 0
                wide = one[np.add.reduceat(a >= 128, begins, dtype=np.int64)[one] > 0]
                kept[wide] = [bool(block[begins[k]:ends[k]].decode("utf-8").strip()) for k in wide]
            lines = np.flatnonzero(kept)
            if header is None and lines.size:
                k, lines = lines[0], lines[1:]
                header = [h.strip() for h in _line(block, begins[k], ends[k]).split(sep)]
            if lines.size:
                starts.append(seen + 1 + lines)
                cells.append(n[lines])
                last = _line(block, begins[lines[-1]], ends[lines[-1]]).split(sep)
            seen += begins.size
            if not more:
                break
    starts = np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64)
    cells = np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64)
    other = np.flatnonzero(cells != len(header)) if header is not None else []
    bad = (int(starts[other[0]]), int(cells[other[0]]), int(other[0])) if len(other) else None
    return header, starts, bad, last


def _line(block: bytes, begin: int, end: int) -> str:
    """The text of a line of ``block`` without its line end (``end``: the position of its newline)."""
    text = block[begin:end].decode("utf-8")
    return text[:-1] if text.endswith("\r") else text


def _scan_rows(path: Path, sep: str, where: str) -> tuple[list | None, list, tuple | None, list | None]:
    """:func:`_scan_csv`'s reading, row by row with the csv module: (header, record lines, first record of another
    width as (line, cells, index), last record's cells)."""
    try:
        fh = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise _open_error(exc, where, "a table file") from None
    header, starts, bad = None, [], None
    last = None
    with fh:
        reader = csv.reader(fh, delimiter=sep)
        end = 0
        try:
            for row in reader:
                start, end = end + 1, reader.line_num
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                if header is None:
                    header = [h.strip() for h in row]
                    continue
                if len(row) != len(header) and bad is None:
                    bad = (start, len(row), len(starts))
                starts.append(start)
                last = row
        except UnicodeDecodeError:
            line, reason = _first_bad_byte(path)
            raise ValueError(f"{where}: line {line}: not UTF-8 text ({reason}); save the file as UTF-8") from None
        except csv.Error as exc:
            raise ValueError(f"{where}: line {reader.line_num}: not a readable row ({exc})") from None
    return header, starts, bad, last


def _scan_csv(path: Path, sep: str, where: str, key_columns: tuple[str, ...], empty_tail_counts: Callable):
    """Check a CSV/TSV file's shape with the csv module before pandas reads it (pandas pads a short row
    with empty cells and takes an extra cell for an index, silently).

    Returns ``(header, starts, truncation)``: ``starts[i]`` is the first line of data record ``i``
    (blank lines skipped, as pandas skips them) and ``truncation`` is ``(line, reason)`` when the
    file ends inside its last record, else None.  Other shape errors raise.
    """
    shape = _scan_plain(path, sep)
    if shape is not None:
        header, starts, bad, last = shape
    else:
        header, starts, bad, last = _scan_rows(path, sep, where)
    if header is None:
        raise ValueError(f"{where}: the file is empty (expected a header line and one row per record)")
    unique_header(header, where, among=key_columns)
    truncation = None
    if bad is not None:
        line, cells, index = bad
        if index == len(starts) - 1 and cells < len(header) and not _ends_with_newline(path):
            truncation = (line, f"it has {cells} of the header's {len(header)} cells")
        else:
            raise ValueError(f"{where}: line {line}: has {cells} cells, the header has {len(header)} "
                             f"({', '.join(header)}); every row needs one cell per column")
    elif last is not None and not last[-1].strip() and empty_tail_counts(header[-1]) and not _ends_with_newline(path):
        truncation = (int(starts[-1]),
                      f"its last cell ({header[-1]!r}) is empty and the file does not end with a newline")
    return header, starts, truncation


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(0, 2)
        if fh.tell() == 0:
            return True
        fh.seek(-1, 2)
        return fh.read(1) in (b"\n", b"\r")


def _read_csv(path: Path, sep: str, where: str, *, allow_truncated: bool, key_columns: tuple[str, ...],
              empty_tail_counts: Callable, as_written: Any = None, **read_options):
    """A CSV/TSV file -> (DataFrame, row names as file lines, warnings); shape checked by :func:`_scan_csv`.
    ``as_written`` (a column name or position): that column's cells kept as the text written (an id ``NA`` or
    ``None`` is that id; an empty cell is ``""``), not read as missing."""
    import pandas as pd

    header, starts, truncation = _scan_csv(path, sep, where, key_columns, empty_tail_counts)
    notes = []
    end_hint = "; if the row is complete, end the file with a newline"

    def parse(drop_last: bool, **options):
        options = options or read_options
        if not drop_last:
            return pd.read_csv(path, sep=sep, encoding="utf-8-sig", **options)
        with path.open(encoding="utf-8-sig", newline="") as fh:
            text = "".join(itertools.islice(fh, int(starts[-1]) - 1))
        return pd.read_csv(io.StringIO(text, newline=""), sep=sep, **options)

    drop = False
    if truncation is not None:
        line, reason = truncation
        notes.append(_truncated(where, line, reason, allow_truncated, end_hint if "newline" in reason else ""))
        drop = True
    try:
        df = parse(drop)
    except (ValueError, pd.errors.ParserError) as exc:
        text = str(exc).splitlines()[0] if str(exc).strip() else type(exc).__name__
        if "EOF inside string" in text and not drop and starts:
            notes.append(_truncated(where, int(starts[-1]), "the file ends inside a quoted cell", allow_truncated))
            drop = True
            df = parse(True)
        else:
            raise ValueError(f"{where}: not a valid {'TSV' if sep == chr(9) else 'CSV'} table ({text})") from None
    if as_written is not None and len(df.columns):
        col = df.columns[as_written] if isinstance(as_written, int) else as_written
        if col in df.columns:  # the id column again, its cells as written (the other cells keep pandas' NA rule)
            opts = {k: v for k, v in read_options.items() if k not in ("dtype", "keep_default_na", "na_values")}
            raw = parse(drop, **opts, usecols=[col], dtype=str, keep_default_na=False)
            if len(raw) == len(df):
                df[col] = raw[col].to_numpy(dtype=object)
    kept = starts[:-1] if drop else starts
    if len(kept) == 0 and len(df) == 0 and drop:
        raise ValueError(f"{where}: no complete row (the only row was dropped as truncated)")
    rows = _Rows("line", kept) if len(kept) == len(df) else _Rows("row")
    return df, rows, notes


def _records_frame(records: list, rows_of: _Rows, where: str, roles: tuple[str, ...], score: str):
    """Decoded JSON / JSONL records -> DataFrame; a record lacking a column the others have is an error
    (it would be read as a missing score or an empty label)."""
    import pandas as pd

    present = {c for c in roles if any(c in r for r in records)}
    if present:
        for i, r in enumerate(records):
            if not present <= r.keys():
                col = sorted(present - r.keys())[0]
                hint = f"; write \"{col}\": null for a missing trial" if col == score else ""
                raise ValueError(f"{where}: {rows_of(i)}: no {col!r} field (other records have one{hint})")
    return pd.DataFrame.from_records(records)


def _read_jsonl(path: Path, where: str, allow_truncated: bool, roles: tuple[str, ...] = _ROLES
                ) -> tuple[list, _Rows, list[str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        line, reason = _first_bad_byte(path)
        raise ValueError(f"{where}: line {line}: not UTF-8 text ({reason})") from None
    except OSError as exc:
        raise _open_error(exc, where, "a JSON-lines file") from None
    lines = text.split("\n")
    last = max((k for k, ln in enumerate(lines) if ln.strip()), default=-1)
    records, numbers, notes = [], [], []
    quoted = [json.dumps(r) for r in roles]
    for k, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            # a column's key written twice is an error (JSON keeps the last); the slower duplicate-checking
            # decode runs only on lines that name a column twice
            twice = any(line.count(q) > 1 for q in quoted)
            rec = json.loads(line, object_pairs_hook=no_duplicate_keys if twice else None)
        except RecursionError:
            raise too_deep(f"{where}: line {k + 1}", _ONE_RECORD) from None
        except json.JSONDecodeError as exc:
            if k == last and not text.endswith("\n"):
                notes.append(_truncated(where, k + 1, f"not valid JSON: {exc.msg} (column {exc.colno})",
                                        allow_truncated))
                continue
            raise ValueError(f"{where}: line {k + 1}: not valid JSON (column {exc.colno}: {exc.msg})") from None
        except ValueError as exc:
            raise ValueError(f"{where}: line {k + 1}: {exc}") from None
        if not isinstance(rec, dict):
            raise ValueError(f"{where}: line {k + 1}: expected an object ({_ONE_RECORD}), got {show(rec)}")
        records.append(rec)
        numbers.append(k + 1)
    if not records:
        raise ValueError(f"{where}: no records (expected one JSON object per line)")
    return records, _Rows("line", numbers), notes


def _read_json_records(path: Path, where: str) -> tuple[list, _Rows]:
    from ._vendor import load_json

    data = load_json(path, where, strict_keys=True, expected=_RECORDS)
    if isinstance(data, dict):
        keys = list(data)[:8]
        hint = ("; a bayeseval-outcomes file needs \"format\": \"bayeseval-outcomes/1\"" if "models" in data else "")
        raise ValueError(f"{where}: expected {_RECORDS}, got an object with keys {keys}{hint}")
    if not isinstance(data, list):
        raise ValueError(f"{where}: expected a JSON list of records (a long table), got {show(data)}")
    if not data:
        raise ValueError(f"{where}: the list of records is empty")
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise ValueError(f"{where}: record {i}: expected an object {{\"model\": ..., \"question\": ..., "
                             f"\"score\": ...}}, got {show(rec)}")
    return data, _Rows("record")


def _check_path(path: Path, what: str) -> None:
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.is_dir():
        raise ValueError(f"{path}: is a folder, expected {what}")


def read_long(path: str | Path, *, format: str | None = None, allow_truncated: bool = False,
              **columns) -> OutcomeSet:
    """Read a long table from CSV, TSV, JSONL, JSON (a list of records) or Parquet; see :func:`from_long`.

    Errors name the file, the record (``line`` for CSV / TSV / JSONL, ``record`` for JSON, ``row`` for
    Parquet) and the column.  A file cut inside its last row is an error; ``allow_truncated=True``
    drops that row and warns (the warning is also in ``OutcomeSet.warnings``).
    """
    import pandas as pd

    path = Path(path)
    fmt = format or _LONG_FORMATS.get(path.suffix.lower())
    if fmt not in set(_LONG_FORMATS.values()):
        raise ValueError(f"{path}: unknown table format {path.suffix!r}; pass format= one of "
                         f"{sorted(set(_LONG_FORMATS.values()))}")
    _check_path(path, f"a {fmt} file")
    where = str(path)
    names = {k: columns.get(k, k) for k in _ROLES}
    roles = tuple(v for v in names.values() if v)
    notes: list[str] = []
    try:
        if fmt in ("csv", "tsv"):  # ids and names exactly as written ("007", "1e3"); empty scores are missing
            labels = [names[k] for k in ("model", "question", "dataset") if names[k]]
            score_col = names["score"]
            df, rows_of, notes = _read_csv(
                path, "\t" if fmt == "tsv" else ",", where, allow_truncated=allow_truncated, key_columns=roles,
                empty_tail_counts=lambda col: col in roles, dtype={c: str for c in labels}, keep_default_na=False,
                na_values={score_col: ["", "NA", "NaN", "nan", "null"]})
        elif fmt == "jsonl":
            records, rows_of, notes = _read_jsonl(path, where, allow_truncated, roles)
            df = _records_frame(records, rows_of, where, roles, names["score"])
        elif fmt == "json":
            records, rows_of = _read_json_records(path, where)
            df = _records_frame(records, rows_of, where, roles, names["score"])
        else:
            try:
                df = pd.read_parquet(path)
            except (ValueError, OSError) as exc:  # pyarrow's ArrowInvalid is a ValueError
                raise ValueError(f"{where}: not a valid parquet table ({str(exc).splitlines()[0]})") from None
            rows_of = _Rows("row")
    except ImportError as exc:
        why = str(exc).strip().splitlines()[0].rstrip(".") if str(exc).strip() else type(exc).__name__
        raise ImportError(f"{path}: reading {fmt} needs pyarrow: pip install 'bayeseval[tables]' ({why})") from None
    return _warn(_from_long(df, rows_of, where=where, **columns), notes)


def read_wide(path: str | Path, *, model: str | None = None, dataset: str = UNNAMED_DATASET,
              question: str | None = None, allow_truncated: bool = False, score_range: Any = None) -> OutcomeSet:
    """Read a wide per-model CSV: one row per question, the id column first (or ``question=``),
    then one column per trial; empty cells are missing trials.  ``model`` defaults to the file stem.
    Errors name the file, the line and the column; ``allow_truncated`` as in :func:`read_long`."""
    path = Path(path)
    _check_path(path, "a CSV file")
    where = str(path)
    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    df, rows_of, notes = _read_csv(path, sep, where, allow_truncated=allow_truncated,
                                   key_columns=(question,) if question else (),
                                   empty_tail_counts=lambda col: True,
                                   dtype={0: str} if question is None else {question: str},
                                   as_written=0 if question is None else question)
    if df.shape[1] < 2:
        raise ValueError(f"{path}: a wide table needs a question id column and at least one trial column")
    if len(df) == 0:
        raise ValueError(f"{path}: the table has no rows")
    qcol = question if question is not None else df.columns[0]
    if qcol not in df.columns:
        raise ValueError(f"{path}: no question column {qcol!r}; columns are {list(map(str, df.columns))}")
    ids = df[qcol].map(lambda v: v.strip() if isinstance(v, str) else v)  # 'q1 ' is question 'q1', as in a long table
    blank = ids.isna() | (ids == "")
    if blank.any() or ids.duplicated().any():
        bad = int(np.flatnonzero((blank | ids.duplicated()).to_numpy())[0])
        what = "is empty" if blank.iloc[bad] else (
            f"repeats {rows_of(int(np.flatnonzero((ids == ids.iloc[bad]).to_numpy())[0]))}")
        raise ValueError(f"{path}: {rows_of(bad)}: column {str(qcol)!r}: question id {_plain(ids.iloc[bad])!r} "
                         f"{what}; a wide table has one row per question")
    for i, v in enumerate(ids):
        if control_char(v) is not None:
            ch = control_char(v)
            raise ValueError(f"{path}: {rows_of(i)}: column {str(qcol)!r} (question id) {v!r} contains the control "
                             f"character {ch!r} at position {v.index(ch)}; names and ids must be printable text")
    name = model or path.stem
    if control_char(name) is not None:
        raise ValueError(f"{path}: the model name {name!r} (the file name) contains a control character; pass model=")
    body = df.drop(columns=[qcol])
    width = body.shape[1]
    flat = body.astype(object).to_numpy().ravel()
    cats, weights, scale = _scores(flat, where, "the trial cells",
                                   lambda k: f"{rows_of(k // width)}: column {str(body.columns[k % width])!r}",
                                   score_range)
    matrix = cats.reshape(body.shape)
    out = OutcomeSet([Run(dataset, name, [_plain(v) for v in ids], matrix, weights=weights,
                          meta={"source": str(path)}, scale=scale)])
    return _warn(out, notes)


_RUN_ID = re.compile(r"^(?P<q>.+?)\.(?P<r>\d+)$")


def split_run_ids(ids: list[str]) -> tuple[list[str], list[int]] | None:
    """Row ids ``q`` / ``q.1`` / ``q.2`` ... (question ``q``, runs 0, 1, 2, ...) -> (questions, runs).

    None unless the ids follow that layout: at least one ``q.r`` id, the bare ``q`` present for every
    one of them, and no (question, run) twice.

    >>> split_run_ids(["1", "1.1", "1.2", "2", "2.1", "2.2"])
    (['1', '1', '1', '2', '2', '2'], [0, 1, 2, 0, 1, 2])
    >>> split_run_ids(["1.1", "1.2", "2.5"]) is None
    True
    """
    ids = [str(i).strip() for i in ids]
    bare = set(ids)
    qs, runs, suffixed = [], [], False
    for i in ids:
        m = _RUN_ID.match(i)
        if m and m.group("q") in bare:
            qs.append(m.group("q"))
            runs.append(int(m.group("r")))
            suffixed = True
        else:
            qs.append(i)
            runs.append(0)
    if not suffixed or len(set(zip(qs, runs))) != len(ids):
        return None
    return qs, runs


def read_model_columns(path: str | Path, *, dataset: str = UNNAMED_DATASET, question: str | None = None,
                       run: str | None = None, allow_truncated: bool = False, score_range: Any = None) -> OutcomeSet:
    """Read a table with one column per model: rows are (question, run), cells are outcomes.

    The question and run come from a row id ``q`` / ``q.1`` / ``q.2`` ... in the first column (or
    ``question=``), the layout MathArena publishes (Balunovic et al. 2025), or from a separate ``run=``
    column.  Every other column is a model.  Empty cells are missing trials.  The result says what it
    found (models, questions, trials) in ``OutcomeSet.warnings``, so a misread layout shows.
    """
    import pandas as pd

    path = Path(path)
    _check_path(path, "a CSV file")
    where = str(path)
    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    keys = tuple(k for k in (question, run) if k)
    df, rows_of, notes = _read_csv(path, sep, where, allow_truncated=allow_truncated, key_columns=keys,
                                   empty_tail_counts=lambda col: True,
                                   dtype={k: str for k in keys} if keys else {0: str},
                                   as_written=question if question is not None else 0)
    if len(df) == 0:
        raise ValueError(f"{path}: the table has no rows")
    qcol = question if question is not None else df.columns[0]
    for c in (qcol,) + ((run,) if run else ()):
        if c not in df.columns:
            raise ValueError(f"{path}: no column {c!r}; columns are {list(map(str, df.columns))}")
    ids = df[qcol].astype(str).str.strip()
    if (ids == "").any():
        bad = int(np.flatnonzero((ids == "").to_numpy())[0])
        raise ValueError(f"{path}: {rows_of(bad)}: column {str(qcol)!r}: the question id is empty; every row needs one")
    if run is not None:
        try:
            vals = [float(v) for v in df[run]]
        except (TypeError, ValueError):
            vals = [math.nan]
        if not all(math.isfinite(v) and v >= 0 and v == round(v) for v in vals):
            raise ValueError(f"{path}: column {run!r} (run) must hold whole numbers >= 0 (the run index)")
        runs = [int(v) for v in vals]
        qs = list(ids)
        if len(set(zip(qs, runs))) != len(qs):
            raise ValueError(f"{path}: column {run!r}: a (question, run) pair appears twice")
    else:
        split = split_run_ids(list(ids))
        if split is None and not ids.duplicated().any() and not any(_RUN_ID.match(i) for i in ids):
            split = (list(ids), [0] * len(ids))  # plain ids, each once: one run per question
        if split is None:
            raise ValueError(f"{path}: column {str(qcol)!r}: the row ids are neither 'question.run' ids (q, q.1, q.2, "
                             "...) nor one row per question; pass run= (load: columns={'trial': NAME}; CLI --trial-col "
                             "NAME) for a separate run column, or read the file with format='wide' (one model, columns "
                             "are trials)")
        qs, runs = split
    models = [c for c in df.columns if c not in (qcol, run)]
    if not models:
        raise ValueError(f"{path}: no model columns besides {qcol!r}")
    qcodes, order = pd.factorize(np.asarray(qs, dtype=object), sort=False)  # questions in order of first appearance
    rcodes, rvalues = pd.factorize(np.asarray(runs, dtype=object), sort=True)  # runs in increasing order
    M, N = len(order), len(rvalues)
    out_runs = []
    for m in models:
        name = str(m)
        if control_char(name) is not None:
            raise ValueError(f"{path}: the model column name {name!r} contains a control character")
        cats, weights, scale = _scores(df[m].to_numpy(dtype=object), where, f"column {name!r}",
                                       lambda k, name=name: f"{rows_of(k)}: column {name!r}", score_range)
        matrix = np.full((M, N), np.nan)
        matrix[qcodes, rcodes] = cats  # each (question, run) once: checked above
        keep = ~np.isnan(matrix).all(axis=1)
        if not keep.any():
            continue
        out_runs.append(Run(dataset, name, [q for q, k in zip(order, keep) if k], matrix[keep], weights=weights,
                            meta={"source": str(path), "layout": "model-columns"}, scale=scale))
    if not out_runs:
        raise ValueError(f"{path}: every model column is empty")
    rows_are = "question, run" if run else "question.run ids" if len(qs) > M else "one per question"
    notes.append(f"{path}: read with models in columns: {len(out_runs)} models, {M} questions, "
                 f"{N} trial{'s' if N != 1 else ''} per question (rows are {rows_are})")
    return _warn(OutcomeSet(out_runs), notes)
