"""The compact outcome file: several models' outcome matrices in one small JSON file.

Format ``bayeseval-outcomes/1``::

    {
      "format": "bayeseval-outcomes/1",
      "dataset": "...", "source": "...", "license": "...", "notes": "...",
      "published": {"<model>": {"<metric>": value, ...}, ...},      (optional)
      "models": {
        "<model>": {
          "questions": ["id0", "id1", ...],          (one id per row)
          "outcomes": ["0100...", [3, 10, null], ...],
                                                     (one entry per row: a string with
                                                      one digit per trial, category 0..9,
                                                      "." for a missing trial; or a list
                                                      of integers, null = missing)
          "weights": [1, 2, ..., 10],                (optional: value of category 0..C)
          "dataset": "...",                          (optional: overrides the file's)
          "model": "..."                             (optional: the model's name when the
                                                      key differs, e.g. "<dataset>/<model>"
                                                      for a model run on several datasets)
        }, ...
      }
    }

Rows may have different lengths (ragged).  Digits keep the file small and
diff-able: 100 x 100 binary outcomes take 10 kB.  Reading gives an
:class:`~bayeseval.io.OutcomeSet`.

>>> s = parse_outcomes({"format": "bayeseval-outcomes/1", "dataset": "d",
...                     "models": {"m": {"questions": ["q1", "q2"], "outcomes": ["101", [1, None]]}}})
>>> s.counts("m").n.tolist()
[3, 1]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .._protocol import UNNAMED_DATASET
from ._vendor import check_label, load_json, show
from .outcomeset import OutcomeSet, Run

__all__ = ["read_outcomes", "write_outcomes", "parse_outcomes", "encode_rows", "FORMAT"]

FORMAT = "bayeseval-outcomes/1"


def _row(row: Any, where: str) -> list:
    if isinstance(row, str) and row and all(ch in "0123456789." for ch in row):
        return [np.nan if ch == "." else int(ch) for ch in row]
    if isinstance(row, list) and row and all(v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 0)
                                             for v in row):
        return [np.nan if v is None else v for v in row]
    raise ValueError(f"{where}: outcomes must be a string of digits or '.', or a list of non-negative integers "
                     f"or null, got {json.dumps(row)[:60]}")


def _matrix(rows: list, at: str) -> np.ndarray:
    """A model's outcome rows -> matrix, NaN-padded.  Rows that are all digit strings are read at once with numpy
    (one byte per trial); any other row, or a bad one, row by row (:func:`_row`, whose error names it)."""
    if all(isinstance(r, str) for r in rows):
        text = "".join(rows)
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        cells = np.frombuffer(text.encode("ascii"), dtype=np.uint8) if text.isascii() else None
        if cells is not None and lengths.min() > 0 and np.all(((cells >= 48) & (cells <= 57)) | (cells == 46)):
            matrix = np.full((len(rows), int(lengths.max())), np.nan)
            starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
            matrix[np.repeat(np.arange(len(rows)), lengths), np.arange(cells.size) - starts] = np.where(
                cells == 46, np.nan, cells - 48.0)  # '.' is a missing trial
            return matrix
    parsed = [_row(r, f"{at}.outcomes[{i}]") for i, r in enumerate(rows)]
    matrix = np.full((len(parsed), max(len(r) for r in parsed)), np.nan)
    for i, r in enumerate(parsed):
        matrix[i, : len(r)] = r
    return matrix


def parse_outcomes(data: Any, where: str = "outcome file") -> OutcomeSet:
    """A decoded ``bayeseval-outcomes/1`` document -> :class:`OutcomeSet` (errors name ``where`` and the field)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where}: not a {FORMAT} file (missing or different 'format' field)")
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        raise ValueError(f"{where}: field 'models' must be a non-empty object")
    published = data.get("published", {}) or {}
    if not isinstance(published, dict):
        raise ValueError(f"{where}: field 'published' must be an object {{model: {{metric: value}}}}")
    for key in ("dataset", "source", "license", "notes"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise ValueError(f"{where}: field {key!r} must be a string, got {show(data[key])}")
    check_label(data.get("dataset"), where, "field 'dataset'")
    runs = []
    for name, entry in models.items():
        at = f"{where}: models[{name!r}]"
        check_label(name, f"{where}: models", "key")
        if not isinstance(entry, dict):
            raise ValueError(f"{at}: must be an object with 'questions' and 'outcomes'")
        for key in ("model", "dataset"):
            if key in entry and not (isinstance(entry[key], str) and entry[key].strip()):
                raise ValueError(f"{at}.{key}: must be a non-empty string, got {show(entry[key])}")
            check_label(entry.get(key), at, f"field {key!r}")
        ids, rows = entry.get("questions"), entry.get("outcomes")
        if not isinstance(ids, list) or not isinstance(rows, list) or len(ids) != len(rows) or not rows:
            raise ValueError(f"{at}: 'questions' and 'outcomes' must be non-empty lists of equal length")
        for i, qid in enumerate(ids):
            if isinstance(qid, bool) or not isinstance(qid, (str, int, float)) or qid != qid or qid in (
                    float("inf"), float("-inf")):
                raise ValueError(f"{at}.questions[{i}]: a question id must be a string or a number, got {show(qid)}")
            check_label(qid, f"{at}.questions[{i}]", "question id")
        if len(set(map(str, ids))) != len(ids):
            seen: dict = {}
            i = next(k for k, q in enumerate(map(str, ids)) if q in seen or seen.setdefault(q, k) is None)
            raise ValueError(f"{at}.questions[{i}]: question id {ids[i]!r} repeats questions[{seen[str(ids[i])]}]; "
                             "'questions' has duplicate ids")
        matrix = _matrix(rows, at)
        weights = entry.get("weights")
        top = np.nanmax(matrix) if not np.isnan(matrix).all() else 0
        if weights is not None:
            if (not isinstance(weights, list) or len(weights) < 2
                    or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v)
                               for v in weights)):
                raise ValueError(f"{at}.weights: must be a list of at least two finite numbers (one per category)")
            if top >= len(weights):
                i = int(np.flatnonzero(np.nanmax(np.where(np.isnan(matrix), -1, matrix), axis=1) == top)[0])
                raise ValueError(f"{at}.outcomes[{i}]: category {int(top)} is out of range: 'weights' has "
                                 f"{len(weights)} entries (categories 0..{len(weights) - 1})")
        elif top > 1:
            i = int(np.flatnonzero(np.nanmax(np.where(np.isnan(matrix), -1, matrix), axis=1) == top)[0])
            raise ValueError(f"{at}.outcomes[{i}]: category {int(top)} is out of range: without 'weights' "
                             "outcomes are 0/1 (add \"weights\": [value of category 0, 1, ...] for grades)")
        meta = {"published": published.get(name, {})}  # keyed like 'models'

        dataset = str(entry.get("dataset", data.get("dataset", "")) or UNNAMED_DATASET)
        runs.append(Run(dataset, str(entry.get("model", name)),
                        ids, matrix, weights=weights, meta=meta))
    return OutcomeSet(runs, source=data.get("source", ""), license=data.get("license", ""),
                      notes=data.get("notes", ""))


def read_outcomes(path: str | Path) -> OutcomeSet:
    """Read a compact outcome file; malformed files raise ValueError naming the file and field."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    doc = load_json(path, str(path), strict_keys=True,
                    expected=f"a {FORMAT} file (a JSON object with 'format' and 'models')")
    return parse_outcomes(doc, str(path))


def encode_rows(rows) -> list:
    """Rows of outcomes (NaN or None = missing) -> digit strings, or integer lists where a category exceeds 9."""
    out = []
    for row in rows:
        vals = [None if v is None or (isinstance(v, float) and np.isnan(v)) else int(v) for v in row]
        if all(v is None or v <= 9 for v in vals):
            out.append("".join("." if v is None else str(v) for v in vals))
        else:
            out.append(vals)
    return out


def _trim(row: np.ndarray) -> np.ndarray:
    """Drop the padding (trailing NaN) of a ragged row; an all-missing row keeps one missing trial."""
    seen = np.nonzero(~np.isnan(row))[0]
    return row[: seen[-1] + 1] if seen.size else row[:1]


def _dumps(doc: dict) -> str:
    """JSON with one line per question row (compact rows, readable diffs)."""
    c = lambda v: json.dumps(v, separators=(", ", ": "))  # noqa: E731
    head = [f" {c(k)}: {c(v)}" for k, v in doc.items() if k != "models"]
    models = []
    for key, entry in doc["models"].items():
        fields = [f"   {c(k)}: {c(v)}" for k, v in entry.items() if k not in ("questions", "outcomes")]
        fields.append('   "questions": ' + c(entry["questions"]))
        fields.append('   "outcomes": [\n' + ",\n".join("    " + c(r) for r in entry["outcomes"]) + "\n   ]")
        models.append(f"  {c(key)}: {{\n" + ",\n".join(fields) + "\n  }")
    return "{\n" + ",\n".join(head + [' "models": {\n' + ",\n".join(models) + "\n }"]) + "\n}\n"


def write_outcomes(path: str | Path, outcomes: OutcomeSet) -> None:
    """Write an :class:`OutcomeSet` as a compact outcome file (one question row per line).

    A model run on several datasets is keyed ``"<dataset>/<model>"`` (with ``"model"`` and
    ``"dataset"`` fields); ``published`` uses the same keys.
    """
    datasets = outcomes.datasets
    models, published = {}, {}
    for run in outcomes:
        entry = {}
        key = run.model
        if len(datasets) > 1:
            entry["dataset"] = run.dataset
            if sum(r.model == run.model for r in outcomes) > 1:
                key = f"{run.dataset}/{run.model}"
                entry["model"] = run.model
        if key in models:
            raise ValueError(f"two runs would be stored under the key {key!r} (a model named like "
                             "'<dataset>/<model>'); rename one with OutcomeSet.rename")
        if run.scale is not None:
            raise ValueError(f"run {run.dataset}/{run.model} holds continuous scores; the compact outcome format "
                             "stores categories: write a long table instead (OutcomeSet.to_frame().to_csv(...))")
        if run.weights is not None:
            entry["weights"] = [int(v) if float(v).is_integer() else float(v) for v in run.weights]
        entry["questions"] = list(run.ids)
        entry["outcomes"] = encode_rows([_trim(r) for r in run.matrix])
        models[key] = entry
        if run.meta.get("published"):
            published[key] = run.meta["published"]
    doc = {
        "format": FORMAT,
        "dataset": datasets[0] if len(datasets) == 1 else "",
        "source": outcomes.source,
        "license": outcomes.license,
        "notes": outcomes.notes,
        "published": published,
        "models": models,
    }
    Path(path).write_text(_dumps(doc), encoding="utf-8")
