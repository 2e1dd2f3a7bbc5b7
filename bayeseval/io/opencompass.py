r"""OpenCompass output -> :class:`~bayeseval.io.OutcomeSet` (replicated runs, G-Pass@k reported beside).

An OpenCompass work dir (``outputs/default/<timestamp>/``) holds::

    predictions/<model>/<dataset>.json   {"0": {"origin_prompt": ..., "prediction": ..., "gold": ...}, ...}
                                         N*n entries: key i is question i % N, replica i // N
                                         (a large run may be split into <dataset>_0.json, _1.json, ...,
                                         each keyed from "0"; they are read in order)
    results/<model>/<dataset>.json       top-level metrics ("accuracy", or for n > 1 "accuracy (n runs
                                         average)", "G-Pass@k_{0.0,0.25,0.5,0.75,1.0}", "mG-Pass@k", and
                                         "<subdivision>/..." copies) and "details": a list of
                                         per-question groups {"example_abbr": "<dataset>_<i>",
                                         "pred": [..n], "answer": [..n], "correct": [..n], ...}
                                         (or, for n = 1 in older versions, {"0": {..., "correct": true}})
    summary/summary_<time>.csv           dataset,version,metric,mode,<model>...   (optional)

Correctness comes from ``details`` (``correct``, else ``is_correct`` or
``cascade_correct``, as OpenCompass's ``BaseEvaluator.evaluate`` reads them);
OpenCompass groups the replicas correctly (by ``example_abbr``), so no
regrouping is done.  The predictions file, when present, is checked against
the details (N*n entries; each entry's ``gold`` against the group's
``answer``) and named in ``meta["files"]``.

**Question ids are ints** (the ``example_abbr`` suffix, or the details key).
``run.reported`` holds the top-level metrics in OpenCompass's units (percent);
``run.meta["recomputed"]`` the same G-Pass@k_tau, mG-Pass@k and accuracy
recomputed from the loaded matrix with
:func:`bayeseval.metrics.reference.g_pass_at_k_tau` /
:func:`~bayeseval.metrics.reference.mg_pass_at_k` (percent).

Reference: open-compass/opencompass
``opencompass/openicl/icl_evaluator/icl_base_evaluator.py`` (``BaseEvaluator.evaluate``,
``compute_g_pass_at_k``, ``compute_mg_pass_at_k``), https://github.com/open-compass/opencompass;
G-Pass@k: Liu et al. 2024, arXiv:2412.13147.

>>> results = {"accuracy (2 runs average)": 75.0, "G-Pass@2_1.0": 50.0, "mG-Pass@2": 50.0,
...            "details": [{"example_abbr": "d_0", "answer": ["1", "1"], "correct": [True, True]},
...                        {"example_abbr": "d_1", "answer": ["2", "2"], "correct": [True, False]}]}
>>> s = parse_opencompass_results(results, model="m", dataset="d")
>>> s.matrix("m").tolist()
[[1.0, 1.0], [1.0, 0.0]]
>>> s.run("m").meta["recomputed"]
{'accuracy (2 runs average)': 75.0, 'G-Pass@2_1.0': 50.0, 'mG-Pass@2': 50.0}
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..metrics.reference import g_pass_at_k_tau, mg_pass_at_k
from .._protocol import UNNAMED_DATASET
from ._vendor import (check_label, details_groups, int_id, load_json, numeric_items, read_work_dir,
                      reported_mismatch, same, show, where_of)
from .outcomeset import OutcomeSet, Run

__all__ = ["read_opencompass", "read_opencompass_results", "parse_opencompass_results"]

_GPASS = re.compile(r"^G-Pass@(\d+)_([0-9.]+)$")
_MGPASS = re.compile(r"^mG-Pass@(\d+)$")


def _recompute(matrix: np.ndarray, reported: dict) -> dict:
    """OpenCompass's metrics (percent) from the matrix, for the names the file reports."""
    n = matrix.shape[1]
    out = {("accuracy" if n == 1 else f"accuracy ({n} runs average)"): 100.0 * float(matrix.mean())}
    for key in reported:
        m, g = _GPASS.match(key), _MGPASS.match(key)
        if m and int(m.group(1)) <= n:
            out[key] = 100.0 * g_pass_at_k_tau(matrix, int(m.group(1)), float(m.group(2)))
        elif g and int(g.group(1)) <= n:
            out[key] = 100.0 * mg_pass_at_k(matrix, int(g.group(1)))
    return out


def _read_predictions(path: Path, where: str) -> list[dict]:
    """A predictions dict ``{"0": {...}, ...}`` -> list of entries in key order."""
    data = load_json(path, where, expected='an OpenCompass predictions file (a JSON object keyed "0", "1", ...)')
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object keyed \"0\", \"1\", ..., got {show(data)}")
    keyed = {}
    for key, entry in data.items():
        i = int_id(key, f"{where}: key {key!r}")
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: [{key!r}]: expected an object, got {show(entry)}")
        keyed[i] = entry
    if sorted(keyed) != list(range(len(keyed))):
        missing = next(i for i in range(len(keyed)) if i not in keyed)
        raise ValueError(f"{where}: keys must be \"0\"..\"{len(keyed) - 1}\"; \"{missing}\" is missing")
    return [keyed[i] for i in range(len(keyed))]


def _check_predictions(preds: list[dict], refs: list, N: int, n: int, where: str, pwhere: str) -> str:
    """Cross-check the predictions file against the details; returns a note (raises on a size mismatch)."""
    if len(preds) != N * n:
        raise ValueError(f"{pwhere}: has {len(preds)} entries but {where} holds {N} questions x {n} replicas "
                         f"= {N * n}; are they from the same run?")
    if any(r is None for r in refs) or not all("gold" in p for p in preds):
        return "predictions file not compared with the details (no references or no gold)"
    bad = [m for m, p in enumerate(preds) if not same(p["gold"], refs[m % N][m // N])]
    if not bad:
        return f"predictions' gold matches the details' references for all {N * n} replicas"
    m = bad[0]
    return (f"{len(bad)} of {N * n} prediction entries have a gold that differs from the details' reference "
            f"(first: key \"{m}\", gold {show(preds[m]['gold'])}, reference {show(refs[m % N][m // N])}); "
            "post-processing may differ")


def parse_opencompass_results(results: Any, *, predictions: list[dict] | None = None, model: str = "model",
                              dataset: str = UNNAMED_DATASET, where: str = "results",
                              predictions_where: str = "predictions") -> OutcomeSet:
    """A decoded OpenCompass results object (and optionally its predictions, in key order) -> one-run set."""
    if not isinstance(results, dict):
        raise ValueError(f"{where}: expected a JSON object with metrics and 'details', got {show(results)}")
    if "details" not in results:
        raise ValueError(f"{where}: details: missing; OpenCompass writes per-question details only when "
                         "the evaluation dumps them (e.g. --dump-eval-details)")
    ids, rows, refs = details_groups(results["details"], where)
    matrix = np.array(rows, dtype=float)
    reported = numeric_items(results, skip=("details",), where=where)
    notes = []
    files = [where]
    if predictions is not None:
        notes.append(_check_predictions(predictions, refs, len(ids), matrix.shape[1], where, predictions_where))
        files.append(predictions_where)
    recomputed = _recompute(matrix, reported)
    mismatch = reported_mismatch(where, "OpenCompass", reported, recomputed)
    meta = {"tool": "opencompass", "files": files, "n": matrix.shape[1], "recomputed": recomputed,
            "notes": notes + mismatch}
    return OutcomeSet([Run(dataset, model, ids, matrix, reported=reported, meta=meta)], source=where,
                      warnings=mismatch)


def _prediction_files(work: Path, model: str, dataset: str) -> list[Path]:
    base = work / "predictions" / model
    whole = base / f"{dataset}.json"
    if whole.is_file():
        return [whole]
    parts, i = [], 0
    while (base / f"{dataset}_{i}.json").is_file():
        parts.append(base / f"{dataset}_{i}.json")
        i += 1
    return parts


def read_opencompass_results(path: str | Path, *, model: str | None = None, dataset: str | None = None,
                             predictions: str | Path | bool | None = None,
                             root: str | Path | None = None) -> OutcomeSet:
    """One OpenCompass results JSON -> one-run :class:`OutcomeSet`.

    ``model`` / ``dataset`` default to the ``results/<model>/<dataset>.json``
    path parts (else ``"model"`` and the file stem); ``predictions`` is a path,
    ``None`` to look in the work dir, or ``False`` for none.
    """
    path = Path(path)
    work = path.parent.parent.parent if path.parent.parent.name == "results" else None
    model = model or (path.parent.name if work else "model")
    dataset = dataset or path.stem
    root = Path(root) if root is not None else work
    where = where_of(path, root)
    check_label(model, where, "model name")
    check_label(dataset, where, "dataset name")
    if predictions is None:
        pfiles = _prediction_files(work, path.parent.name, path.stem) if work else []
    else:
        pfiles = [Path(predictions)] if predictions else []
    preds, pwhere = None, "predictions"
    if pfiles:
        preds = []
        for p in pfiles:
            preds += _read_predictions(p, where_of(p, root))
        pwhere = where_of(pfiles[0], root) + (f" (+{len(pfiles) - 1} parts)" if len(pfiles) > 1 else "")
    results = load_json(path, where, expected="an OpenCompass results file (a JSON object of metrics and details)")
    return parse_opencompass_results(results, predictions=preds, model=model, dataset=dataset,
                                     where=where, predictions_where=pwhere)


def read_opencompass(folder_or_file: str | Path, *, models=None, datasets=None,
                     predictions: str | Path | bool | None = None) -> OutcomeSet:
    """An OpenCompass work dir (or one results JSON) -> :class:`OutcomeSet`, one run per (dataset, model).

    ``models`` / ``datasets`` select by name; ``predictions`` applies to a
    single results file (see :func:`read_opencompass_results`).
    """
    path = Path(folder_or_file)
    if path.is_file():
        return read_opencompass_results(path, predictions=predictions)
    if not path.is_dir():
        raise ValueError(f"{path}: no such file or folder")
    return read_work_dir(path, "OpenCompass", lambda f, root: read_opencompass_results(f, root=root),
                         models=models, datasets=datasets)
