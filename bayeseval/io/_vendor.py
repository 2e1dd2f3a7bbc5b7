"""Shared plumbing for the evaluation-tool loaders: reading files with errors that name the place.

Every message starts with the file (shown relative to the folder the user
passed, when it lies inside it), then the record (``line 7``, ``details[3]``,
``samples[2]``) and the field, e.g.
``results/m/d.json: details[3].correct: expected a boolean or a list of booleans, got 'yes' (str)``.
Nothing here writes to the user's files.

>>> show("yes"), show([1, 2])
("'yes' (str)", '[1, 2] (list)')
>>> categorise([1.0, 0.0, float("nan")])[1] is None
True
>>> categorise([0.0, 0.5, 1.0])[1].tolist()
[0.0, 0.5, 1.0]
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .._json import loads, too_deep
from .._protocol import user_stacklevel

__all__ = ["where_of", "show", "load_json", "iter_jsonl", "categorise", "code_scores", "score_kind", "OneValue",
           "finite_float", "same", "int_id", "numeric_items", "CORRECT_FIELDS", "details_groups", "read_summary_csv",
           "control_char", "check_label", "check_scores", "no_duplicate_keys"]

# C0 and C1 control characters (NUL, escape, newline, DEL, ...): never part of a model, dataset or question label
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

# fields holding per-replica correctness in OpenCompass-family details (OpenCompass BaseEvaluator.evaluate)
CORRECT_FIELDS = ("correct", "is_correct", "cascade_correct")


def where_of(path: Path, root: Path | None = None) -> str:
    """``path`` as shown in messages: relative to ``root`` when inside it (POSIX separators)."""
    path = Path(path)
    if root is not None:
        try:
            return path.resolve().relative_to(Path(root).resolve()).as_posix()
        except ValueError:
            pass
    return str(path)


def show(value: Any) -> str:
    """Short repr of a value from a file, with its JSON-ish type, for messages."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _open_error(exc: OSError, where: str, what: str) -> ValueError:
    """An OSError from opening a file -> a ValueError naming it (a folder, a missing file, no permission)."""
    if isinstance(exc, FileNotFoundError):
        return ValueError(f"{where}: no such file")
    if isinstance(exc, IsADirectoryError):
        return ValueError(f"{where}: is a folder, expected {what}")
    if isinstance(exc, PermissionError):
        return ValueError(f"{where}: cannot be read (permission denied)")
    return ValueError(f"{where}: cannot be read ({exc.strerror or exc})")


def no_duplicate_keys(pairs: list) -> dict:
    """``json.loads`` object hook: a key written twice in one object is an error (JSON keeps the last silently)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"key {dup!r} appears twice in one object")
    return out


def load_json(path: Path, where: str, *, strict_keys: bool = False, expected: str = "a JSON document") -> Any:
    """Decode a JSON file; a missing, unreadable, malformed or too deeply nested file raises ValueError naming it
    (the last says ``expected``, what the file should hold).

    ``strict_keys``: a key written twice in one object is an error (else JSON keeps the last).
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise _open_error(exc, where, "a JSON file") from None
    try:
        return json.loads(text, object_pairs_hook=no_duplicate_keys if strict_keys else None)
    except RecursionError:
        raise too_deep(where, expected) from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except ValueError as exc:  # no_duplicate_keys
        raise ValueError(f"{where}: {exc}") from None


def iter_jsonl(path: Path, where: str, expected: str = "one JSON value per line") -> Iterator[tuple[int, Any]]:
    """``(line number, decoded object)`` for each non-blank line of a JSON-lines file (``expected``: what a line
    holds, said when one is nested too deeply)."""
    try:
        fh = Path(path).open(encoding="utf-8-sig")
    except OSError as exc:
        raise _open_error(exc, where, "a JSON-lines file") from None
    with fh:
        try:
            for ln, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    yield ln, loads(line, f"{where}: line {ln}", expected)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{where}: line {ln}: not valid JSON (column {exc.colno}: {exc.msg})") from None
        except UnicodeDecodeError as exc:
            raise ValueError(f"{where}: not UTF-8 text ({exc.reason})") from None


def control_char(text: Any) -> str | None:
    """The first control character (NUL, newline, escape, DEL, ...) of a string, else None."""
    if not isinstance(text, str):
        return None
    m = _CONTROL.search(text)
    return m.group() if m else None


def check_label(value: Any, where: str, what: str) -> None:
    """A model / dataset / question label must be printable: a control character (a NUL byte, a newline, an
    escape) would make a phantom model that prints like a real one.  ``where`` names the place, ``what`` the field."""
    ch = control_char(value)
    if ch is not None:
        raise ValueError(f"{where}: {what} {value!r} contains the control character {ch!r} at position "
                         f"{value.index(ch)}; names and ids must be printable text")


def check_scores(values: Any, where: str) -> None:
    """Scores read from a tool: finite and not negative (a -1 'failed' marker would become a category
    weighted -1).  ``values`` is one score or a list of them; ``where`` names the record and field."""
    for v in values if isinstance(values, list) else [values]:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and v < 0:
            raise ValueError(f"{where}: a score of {v!r} is below 0; scores are 0/1, booleans, grades 0..C or "
                             "partial credit >= 0")


def same(a: Any, b: Any) -> bool:
    """Equality of two references as a tool would print them (strings compared after strip)."""
    if isinstance(a, str) and isinstance(b, str):
        return a.strip() == b.strip()
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        return float(a) == float(b)
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def int_id(value: Any, where: str) -> int:
    """A question index written as an int or a decimal string."""
    if isinstance(value, bool):
        raise ValueError(f"{where}: expected a question index (integer), got {show(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"\d+", value.strip()):
        return int(value)
    raise ValueError(f"{where}: expected a question index (integer), got {show(value)}")


def finite_float(v: int | float) -> float | None:
    """A JSON number as a float, or None where it is NaN, infinite or an integer beyond any float.

    >>> finite_float(3), finite_float(float("nan")), finite_float(10**400)
    (3.0, None, None)
    """
    try:
        x = float(v)
    except OverflowError:  # an integer beyond any float (JSON allows it)
        return None
    return x if math.isfinite(x) else None


def numeric_items(doc: dict, skip: tuple = (), where: str = "") -> dict:
    """Top-level ``name -> float`` pairs of a results object (booleans and non-numbers left out).  A NaN or
    infinite number (JSON's ``NaN``, ``Infinity``) is no reported value: left out, with a UserWarning naming
    ``where`` and the key (the numbers read come from the per-question details).

    >>> numeric_items({"accuracy": 75, "ok": True, "name": "x"})
    {'accuracy': 75.0}
    """
    out = {}
    for k, v in doc.items():
        if k in skip or isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        x = finite_float(v)
        if x is None:
            warnings.warn(f"{where}: {k}: the reported value {v!r} is not a number; bayeseval reads the per-question "
                          "details", UserWarning, stacklevel=user_stacklevel())
            continue
        out[k] = x
    return out


#: how far a tool's own number may lie from the one recomputed from its per-question details (both in percent):
#: the tools round to two decimals
REPORTED_TOLERANCE = 0.01


def reported_mismatch(where: str, tool: str, reported: dict, recomputed: dict, keys=None, *,
                      tolerance: float = REPORTED_TOLERANCE, digits: int = 2) -> list[str]:
    """Messages for the metrics (``keys``, default every one in both) whose reported value differs from the value
    recomputed from the per-question details by more than the tool's rounding: the file was edited, a question is
    missing from the details, or the tool computed something else; the numbers read come from the details.
    ``tolerance`` and ``digits``: the tool's rounding (two decimals of a percentage by default).  Each message is
    also issued as a UserWarning (the caller keeps them in the set's warnings and the run's notes).

    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     msgs = reported_mismatch("r.json", "AISBench", {"accuracy": 99.0}, {"accuracy": 50.0})
    >>> msgs
    ['r.json: accuracy: AISBench reported 99.00 but its per-question details give 50.00; bayeseval reads the details (was the file edited, or a question dropped from them?)']
    """
    out = []
    for key in (keys if keys is not None else recomputed):
        if key in reported and key in recomputed and abs(float(reported[key]) - float(recomputed[key])) > \
                tolerance + 1e-9:
            out.append(f"{where}: {key}: {tool} reported {float(reported[key]):.{digits}f} but its per-question "
                       f"details give {float(recomputed[key]):.{digits}f}; bayeseval reads the details (was the file "
                       "edited, or a question dropped from them?)")
    for msg in out:
        warnings.warn(msg, UserWarning, stacklevel=user_stacklevel())
    return out


def _bools(value: Any, where: str) -> list[int]:
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return [int(value)]
    if isinstance(value, list) and value and all(
            isinstance(v, bool) or (isinstance(v, int) and v in (0, 1)) for v in value):
        return [int(v) for v in value]
    raise ValueError(f"{where}: expected a boolean or a list of booleans, got {show(value)}")


def details_groups(details: Any, where: str) -> tuple[list[int], list[list[int]], list[list | None]]:
    """OpenCompass-family ``details`` -> (question ids, per-question correctness lists, references).

    ``details`` is either a dict ``{"0": {...}, "1": {...}}`` (ids are the keys) or a
    list of per-question groups (ids from the ``example_abbr`` suffix, else the
    position).  Correctness is the first of ``correct`` / ``is_correct`` /
    ``cascade_correct``: a boolean (one replica) or a list (one per replica).
    References come from ``answer`` (groups) or ``references`` (n = 1 dict
    entries); None where absent.
    """
    if isinstance(details, dict):
        keys = list(details)
        ids = [int_id(k, f"{where}: details key {k!r}") for k in keys]
        order = sorted(range(len(keys)), key=ids.__getitem__)
        entries = [(f"details[{keys[i]!r}]", details[keys[i]], ids[i]) for i in order]
    elif isinstance(details, list):
        entries = []
        for pos, entry in enumerate(details):
            qid = pos
            abbr = entry.get("example_abbr") if isinstance(entry, dict) else None
            if isinstance(abbr, str) and re.search(r"_(\d+)$", abbr):
                qid = int(re.search(r"_(\d+)$", abbr).group(1))
            entries.append((f"details[{pos}]", entry, qid))
    else:
        raise ValueError(f"{where}: details: expected a list of per-question groups or an object keyed by "
                         f"question index, got {show(details)}")
    if not entries:
        raise ValueError(f"{where}: details: is empty")
    ids, rows, refs = [], [], []
    for at, entry, qid in entries:
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: {at}: expected an object, got {show(entry)}")
        field = next((f for f in CORRECT_FIELDS if f in entry), None)
        if field is None:
            raise ValueError(f"{where}: {at}: no correctness field (one of {', '.join(CORRECT_FIELDS)})")
        row = _bools(entry[field], f"{where}: {at}.{field}")
        ref = entry.get("answer", entry.get("references"))
        if ref is not None and not (isinstance(ref, list) and len(ref) == len(row)):
            ref = [ref] if len(row) == 1 else None
        ids.append(qid)
        rows.append(row)
        refs.append(ref)
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise ValueError(f"{where}: details: question index {dup} occurs more than once")
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        i = next(k for k, r in enumerate(rows) if len(r) != len(rows[0]))
        raise ValueError(f"{where}: {entries[i][0]}: has {len(rows[i])} replicas, {entries[0][0]} has "
                         f"{len(rows[0])}; every question needs the same number of replicas")
    return ids, rows, refs


def categorise(values: Any, where: str = "scores") -> tuple[np.ndarray, np.ndarray | None]:
    """Scores (NaN = missing) -> (category codes, weights): the library's convention for tables.

    0/1 scores stay binary (weights None); non-negative integers become
    categories ``0..max`` weighted by their value; other numbers become one
    category per distinct value, weighted by the value (partial credit).  At
    most 1001 categories: a continuous score (BLEU, a log-likelihood) is not a
    set of categories, and the error says to bin it.
    """
    x = np.asarray(values, dtype=float)
    seen = x[~np.isnan(x)]
    if seen.size and not np.isfinite(seen).all():
        raise ValueError(f"{where}: scores must be finite numbers")
    levels = np.unique(seen)
    kind, weights = score_kind(levels, where, continuous=False)
    if kind != "partial":
        return x, weights
    cats = np.full(x.shape, np.nan)
    ok = ~np.isnan(x)
    cats[ok] = np.searchsorted(levels, x[ok])
    return cats, levels


def score_kind(levels: np.ndarray, where: str = "scores", *, continuous: bool = True) -> tuple[str, Any]:
    """How a run's distinct observed scores (sorted, finite) are read -- the one rule of every reader (pandas
    tables, tool folders, DuckDB and Ibis counts): ``("binary", None)`` for 0/1; ``("grades", 0..C)`` for
    integers up to 1000; ``("scores", None)`` for more than 1001 distinct non-integer values all in [0, 1] (with
    ``continuous``: a continuous score in [0, 1]); otherwise ``("partial", levels)``, one category per value
    weighted by the value.  Negative values, one value that is neither 0 nor 1, and too many levels are errors.

    >>> score_kind(np.array([0.0, 0.5, 1.0]))
    ('partial', array([0. , 0.5, 1. ]))
    """
    if levels.size == 0 or np.all((levels == 0) | (levels == 1)):
        return "binary", None
    if levels[0] < 0:
        raise ValueError(f"{where}: a score of {levels[0]:g} is below 0; scores are 0/1, grades 0..C or partial "
                         "credit >= 0 (a missing trial is an empty / null score, not a negative one)")
    if np.all(levels == np.round(levels)):
        if levels[-1] > 1000:
            raise ValueError(f"{where}: integer scores up to {levels[-1]:g}; categories stop at 1000 "
                             "(rescale or bin the scores)")
        return "grades", np.arange(int(levels[-1]) + 1, dtype=float)
    if continuous and levels.size > 1001 and levels[-1] <= 1:  # as many levels as the categories allow
        return "scores", None
    if levels.size == 1:
        raise OneValue(f"{where}: every score is {levels[0]:g}: one value that is neither 0 nor 1 says nothing "
                       "of its scale; give the scores' range (score_range=(lo, hi), CLI --scores LO,HI)")
    if levels.size > 1001:
        raise ValueError(f"{where}: {levels.size} distinct non-integer scores; a continuous score is not a set of "
                         "categories: bin it into at most 1001 levels (e.g. round it) first")
    return "partial", levels


class OneValue(ValueError):
    """Every score of a run is one value that is neither 0 nor 1: it gives no scale (other shards of the same run
    may)."""


def code_scores(values: Any, where: str = "scores") -> tuple[np.ndarray, np.ndarray | None, tuple | None]:
    """Scores (NaN = missing) -> ``(matrix, weights, scale)``: categories as :func:`categorise` codes them, or,
    for more than 1001 distinct non-integer values all in [0, 1] (token F1, BLEU, a judge's probability), the
    scores themselves with ``scale = (0, 1)`` -- a continuous score, read by :mod:`bayeseval.posterior.scores`."""
    x = np.asarray(values, dtype=float)
    seen = x[~np.isnan(x)]
    if seen.size and np.isfinite(seen).all() and score_kind(np.unique(seen), where)[0] == "scores":
        return x, None, (0.0, 1.0)
    return (*categorise(x, where), None)


def read_summary_csv(folder: Path, root: Path | None = None) -> dict:
    """The newest ``summary/summary_*.csv`` (OpenCompass DefaultSummarizer layout) of a work dir.

    Columns ``dataset,version,metric,mode,<model>...``.  Returns
    ``{dataset: {"version", "mode", "summary": {model: {metric: value}}, "file"}}``
    (``{}`` without a summary; cells such as ``-`` are left out).
    """
    import csv

    files = sorted(Path(folder, "summary").glob("summary_*.csv"))
    if not files:
        return {}
    path = files[-1]
    where = where_of(path, root)
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.reader(fh))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{where}: not a readable CSV file ({exc})") from None
    except OSError as exc:
        raise _open_error(exc, where, "a CSV file") from None
    if not rows:
        return {}
    head = [h.strip() for h in rows[0]]
    for col in ("dataset", "version", "metric", "mode"):
        if col not in head:
            raise ValueError(f"{where}: line 1: header lacks the {col!r} column "
                             "(expected dataset,version,metric,mode,<model>...)")
    models = [h for h in head if h not in ("dataset", "version", "metric", "mode")]
    out: dict = {}
    for ln, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(head):
            raise ValueError(f"{where}: line {ln}: has {len(row)} cells, the header has {len(head)}")
        cell = dict(zip(head, (c.strip() for c in row)))
        entry = out.setdefault(cell["dataset"], {"version": cell["version"], "mode": cell["mode"], "summary": {},
                                                 "file": where})
        for m in models:
            try:
                value = float(cell[m])
            except ValueError:
                continue
            entry["summary"].setdefault(m, {})[cell["metric"]] = value
    return out


def read_work_dir(folder: Path, tool: str, read_results, *, models=None, datasets=None):
    """An AISBench / OpenCompass work dir -> one OutcomeSet: every ``results/<model>/<dataset>.json``
    read by ``read_results(path, root)`` (selected by ``models`` / ``datasets``), with the summary
    CSV's version, mode and values copied into each run's meta."""
    results_dir = folder / "results"
    if not results_dir.is_dir():
        inner = sorted(p.name for p in folder.iterdir() if (p / "results").is_dir())
        hint = f"; it holds work dirs {inner}: pass one of them" if inner else ""
        raise ValueError(f"{folder}: no results/ folder (expected an {tool} work dir with predictions/, "
                         f"results/, summary/){hint}")
    summary = read_summary_csv(folder, folder)
    files = sorted(results_dir.glob("*/*.json"))
    label = where_of(results_dir, folder.parent)
    keep = {}
    for what, wanted, have in (("model", models, sorted({p.parent.name for p in files})),
                               ("dataset", datasets, sorted({p.stem for p in files}))):
        wanted = have if wanted is None else ([wanted] if isinstance(wanted, str) else list(wanted))
        for w in wanted:
            if w not in have:
                raise ValueError(f"{label}: no {what} {w!r}; {what}s: {have}")
        keep[what] = set(wanted)
    sets = []
    for path in files:
        if path.parent.name in keep["model"] and path.stem in keep["dataset"]:
            s = read_results(path, folder)
            _attach_summary(s, summary)
            sets.append(s)
    if not sets:
        raise ValueError(f"{label}: no results/<model>/<dataset>.json files" + (" match the selection" if files else ""))
    out = sets[0].merge(*sets[1:])
    out.source = str(folder)
    out.notes = f"{tool} work dir"
    return out


def _attach_summary(outcomes, summary: dict) -> None:
    """Copy a work dir's summary CSV (version, mode, the summarised values) into its one run's meta."""
    run = next(iter(outcomes))
    info = summary.get(run.dataset)
    if info:
        run.meta.update({"version": info["version"], "mode": info["mode"],
                         "summary": info["summary"].get(run.model, {})})
        run.meta["files"].append(info["file"])
