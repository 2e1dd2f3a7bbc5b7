r"""AISBench output -> :class:`~bayeseval.io.OutcomeSet`, with AISBench 3.1's replica-grouping bug repaired.

An AISBench work dir (``outputs/default/<timestamp>/``) holds::

    predictions/<model>/<dataset>.jsonl   one line per (question, replica): {"id": <question index>,
                                          "success": true, "prediction": ..., "gold": ..., ...};
                                          replicas share the id, lines are in completion order and
                                          carry no replica index
    results/<model>/<dataset>.json        top-level metrics ("accuracy", or for n > 1
                                          "accuracy (n runs average)", "avg@n", "pass@n", "cons@n")
                                          and, with --dump-eval-details, "details":
                                            n = 1: {"0": {"predictions": [..], "references": [..],
                                                          "correct": [true]}, "1": ...}
                                            n > 1: [{"example_abbr": "<dataset>_0", "pred": [..n],
                                                     "answer": [..n], "correct": [..n]}, ...]
    summary/summary_<time>.csv            dataset,version,metric,mode,<model>...   (optional)

Each results file with details becomes one :class:`~bayeseval.io.Run`: rows are
questions, columns the ``n`` replicas (0/1).  **Question ids are ints**: the
question index (the ``example_abbr`` suffix, the details key for n = 1, or the
position after regrouping).  ``run.reported`` holds the file's top-level
metrics in AISBench's units (percent); ``run.meta`` holds ``files``, ``n``,
``grouping``, ``grouping_evidence``, ``recomputed`` (the same metrics from the
loaded matrix, with :mod:`bayeseval.aisbench`), ``notes`` and, from the summary
CSV, ``version``, ``mode`` and ``summary``.

**The replica-grouping bug (AISBench 3.1).**  With n > 1 the flattened details
are replica-major: flattened position ``m`` belongs to question ``m % N``,
replica ``m // N`` (``N`` questions), but AISBench cuts them into groups of
``n`` consecutive entries.  avg@n and "accuracy (n runs average)" survive;
pass@k and cons@k do not.  Symptom: one group's ``answer`` list holds different
references.  ``regroup="auto"`` decides from, in order: the predictions' per-id
``gold`` (the right grouping is the one whose every group's references equal
its question's gold), then whether the references are constant within groups.
When neither grouping can be told apart (e.g. every reference is the same),
AISBench's grouping is kept and a note says so.  ``regroup=True`` / ``False``
forces.  Regrouping emits an :class:`AISBenchGroupingWarning` and appends the
same text to ``OutcomeSet.warnings``: it names the file and shows AISBench's
pass@k / cons@k beside the corrected values.

Not handled: results without ``details`` (rerun AISBench with
``--dump-eval-details``, e.g. with ``--reuse``), split prediction files
(``<dataset>_0.jsonl``), soft per-replica scores (details carry only
booleans).  A question with fewer than ``n`` prediction lines (failed
requests, which AISBench scores as wrong) is reported in ``warnings``.

Reference: AISBench/benchmark ``ais_bench/benchmark/tasks/openicl_eval.py``
(``OpenICLEvalTask._score``, ``format_details``) and
``docs/source_en/base_tutorials/results_intro/accuracy_metric.md``,
https://github.com/AISBench/benchmark (HEAD 29c363e).

>>> import warnings
>>> results = {"accuracy (2 runs average)": 50.0, "avg@2": 50.0, "pass@2": 100.0, "cons@2": 0.0,
...            "details": [{"example_abbr": "d_0", "answer": ["1", "2"], "correct": [True, False]},
...                        {"example_abbr": "d_1", "answer": ["1", "2"], "correct": [True, False]}]}
>>> with warnings.catch_warnings(record=True) as caught:
...     s = parse_aisbench_results(results, model="m", dataset="d")
>>> s.matrix("m").tolist()                      # question 0 always right, question 1 always wrong
[[1.0, 1.0], [0.0, 0.0]]
>>> run = s.run("m")
>>> run.reported["cons@2"], run.meta["recomputed"]["cons@2"], run.meta["recomputed"]["avg@2"]
(0.0, 50.0, 50.0)
>>> caught[0].category.__name__
'AISBenchGroupingWarning'
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from .. import aisbench as ais
from .._protocol import UNNAMED_DATASET, user_stacklevel
from ._vendor import (check_label, details_groups, int_id, iter_jsonl, load_json, numeric_items, read_work_dir,
                      reported_mismatch, same, show, where_of)
from .outcomeset import OutcomeSet, Run

__all__ = ["read_aisbench", "read_aisbench_results", "parse_aisbench_results", "AISBenchGroupingWarning"]

_METRIC = re.compile(r"^(pass|cons|avg)@(\d+)$")


class AISBenchGroupingWarning(UserWarning):
    """AISBench 3.1 grouped a results file's replicas wrongly; the loader regrouped them."""


# ----------------------------------------------------------------------------- predictions
def _read_predictions(path: Path, where: str) -> list[dict]:
    """``predictions/<model>/<dataset>.jsonl`` (or the older ``.json`` dict) -> list of records with an ``id``."""
    out = []
    if path.suffix == ".json":
        data = load_json(path, where, expected="an AISBench predictions file (a JSON object keyed by question index)")
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected an object keyed by question index, got {show(data)}")
        for key, rec in data.items():
            if not isinstance(rec, dict):
                raise ValueError(f"{where}: [{key!r}]: expected an object, got {show(rec)}")
            if "id" in rec:
                out.append({**rec, "id": int_id(rec["id"], f"{where}: [{key!r}].id")})
            else:   # keyed by position: the key is the question index only with one entry per question
                out.append({**rec, "id": int_id(key, f"{where}: key {key!r}"), "_positional": True})
        return out
    for ln, rec in iter_jsonl(path, where, "one prediction object per line"):
        if not isinstance(rec, dict):
            raise ValueError(f"{where}: line {ln}: expected an object, got {show(rec)}")
        if "id" not in rec:
            raise ValueError(f"{where}: line {ln}: id: missing (the question index)")
        out.append({**rec, "id": int_id(rec["id"], f"{where}: line {ln}: id")})
    return out


def _gold_and_counts(preds: list[dict] | None, where: str) -> tuple[dict | None, dict, dict]:
    """Per-id gold (None when the records carry none), per-id count of successful lines, and of all lines."""
    if not preds:
        return None, {}, {}
    gold: dict = {}
    counts: dict = {}
    lines: dict = {}
    for rec in preds:
        qid = rec["id"]
        lines[qid] = lines.get(qid, 0) + 1
        if rec.get("success", True) is not False:
            counts[qid] = counts.get(qid, 0) + 1
        if "gold" in rec:
            if qid in gold and not same(gold[qid], rec["gold"]):
                raise ValueError(f"{where}: id {qid}: gold: replicas disagree ({show(gold[qid])} vs "
                                 f"{show(rec['gold'])})")
            gold[qid] = rec["gold"]
    return (gold or None), counts, lines


# ----------------------------------------------------------------------------- grouping
def _decide(refs: list, ids: list[int], n: int, gold: dict | None) -> tuple[bool | None, str]:
    """Regroup? (True / False / None = cannot tell) and the evidence, from references and gold."""
    N = len(ids)
    if n == 1 or N == 1:
        return False, "one replica or one question: both groupings coincide"
    if any(r is None for r in refs):
        flat = None
    else:
        flat = [v for r in refs for v in r]
    if flat is None:
        return None, "the details carry no per-replica references ('answer') to check the grouping against"
    asis = [[flat[g * n + r] for r in range(n)] for g in range(N)]
    regr = [[flat[i + N * j] for j in range(n)] for i in range(N)]
    note = ""
    if gold:
        def fits(groups, labels):
            checked = [(grp, gold[q]) for grp, q in zip(groups, labels) if q in gold]
            return bool(checked) and all(same(v, g) for grp, g in checked for v in grp)

        fit_asis, fit_regr = fits(asis, ids), fits(regr, list(range(N)))
        if fit_regr and not fit_asis:
            return True, "every regrouped question's references equal its gold in the predictions file"
        if fit_asis and not fit_regr:
            return False, "every group's references equal its question's gold in the predictions file"
        note = ("the predictions' gold fits both groupings; " if fit_asis else
                "the references match the predictions' gold under neither grouping; ")
    hom_asis = all(all(same(v, grp[0]) for v in grp) for grp in asis)
    hom_regr = all(all(same(v, grp[0]) for v in grp) for grp in regr)
    if hom_regr and not hom_asis:
        return True, note + "AISBench's groups mix different references, the regrouped questions do not"
    if hom_asis and not hom_regr:
        return False, note + "every AISBench group holds a single reference"
    if hom_asis:
        return None, note + "every grouping holds a single reference (e.g. all references identical)"
    return None, note + "both groupings mix different references"


def _recompute(matrix: np.ndarray, reported: dict) -> dict:
    """AISBench's metrics (percent) from the loaded matrix, for the k values the file reports (else k = n)."""
    n = matrix.shape[1]
    ks = {"pass": set(), "cons": set()}
    for key in reported:
        m = _METRIC.match(key)
        if m and m.group(1) in ks:
            ks[m.group(1)].add(int(m.group(2)))
    avg = 100.0 * ais.avg_at_n(matrix)
    if n == 1:
        return {"accuracy": avg}
    out = {f"accuracy ({n} runs average)": avg, f"avg@{n}": avg}
    for k in sorted(ks["pass"] or {n}):
        if k <= n:
            out[f"pass@{k}"] = 100.0 * ais.pass_at_k(matrix, k)
    for k in sorted(ks["cons"] or {n}):
        if k <= n:
            out[f"cons@{k}"] = 100.0 * ais.cons_at_k(matrix, k)
    return out


def _regroup_message(where: str, n: int, N: int, evidence: str, reported: dict, recomputed: dict) -> str:
    parts = []
    for key, value in recomputed.items():
        m = _METRIC.match(key)
        if not m or m.group(1) == "avg":
            continue
        if key in reported:
            parts.append(f"{key}: AISBench reported {reported[key]:.2f}, corrected {value:.2f}")
        else:
            parts.append(f"{key}: corrected {value:.2f}")
    avg = f"avg@{n}"
    same_avg = f"; {avg} {recomputed[avg]:.2f} is unaffected" if avg in recomputed else ""
    return (f"{where}: AISBench 3.1 grouped the {n} replicas of each of the {N} questions wrongly "
            f"(flattened position m is question m % {N}, replica m // {N}); regrouped by question "
            f"({evidence}). " + "; ".join(parts) + same_avg)


# ----------------------------------------------------------------------------- one results file
def parse_aisbench_results(results: Any, *, predictions: list[dict] | None = None, model: str = "model",
                           dataset: str = UNNAMED_DATASET, regroup: bool | str = "auto", where: str = "results",
                           predictions_where: str = "predictions", meta: dict | None = None) -> OutcomeSet:
    """A decoded AISBench results object (and optionally its prediction records) -> one-run :class:`OutcomeSet`.

    ``predictions`` are the decoded lines of ``predictions/<model>/<dataset>.jsonl``
    (dicts with ``id`` and ``gold``); ``where`` / ``predictions_where`` name the
    files in messages.  See the module docstring for ``regroup``.
    """
    if regroup not in ("auto", True, False):
        raise ValueError(f"regroup must be 'auto', True or False, got {regroup!r}")
    if not isinstance(results, dict):
        raise ValueError(f"{where}: expected a JSON object with metrics and 'details', got {show(results)}")
    if "error" in results and "details" not in results:
        raise ValueError(f"{where}: error: AISBench recorded {show(results['error'])} instead of results")
    if "details" not in results:
        raise ValueError(f"{where}: details: missing; AISBench writes per-question details only with "
                         "--dump-eval-details (rerun the evaluation with --mode eval --reuse --dump-eval-details)")
    ids, rows, refs = details_groups(results["details"], where)
    N, n = len(ids), len(rows[0])
    reported = numeric_items(results, skip=("details",), where=where)
    notes, set_warnings = [], []
    if predictions and any(p.get("_positional") for p in predictions) and len(predictions) != N:
        notes.append(f"{predictions_where}: entries carry no 'id' and are keyed by position ({len(predictions)} "
                     f"entries for {N} questions); not used to check the grouping")
        predictions_for_gold = None
    else:
        predictions_for_gold = predictions
    gold, counts, lines = _gold_and_counts(predictions_for_gold, predictions_where)
    decided, evidence = _decide(refs, ids, n, gold)
    if n == 1 or N == 1:                         # one replica or one question: nothing to regroup
        do = False
    elif regroup == "auto":
        do = bool(decided)
        if decided is None:
            undecided = (f"{where}: replica grouping not checked: {evidence}; kept AISBench's grouping, so pass@k and "
                         "cons@k may be wrong if this file has AISBench 3.1's grouping bug (add the predictions file, "
                         "or force regroup=True/False; CLI: --regroup yes/no)")
            notes.append(undecided)
            warnings.warn(undecided, UserWarning, stacklevel=user_stacklevel())
            set_warnings.append(undecided)
    else:
        do = regroup
        if decided is not None and decided is not regroup:
            notes.append(f"regroup={regroup} overrides the evidence ({evidence})")
    if do:
        flat = np.array([v for r in rows for v in r], dtype=float)
        matrix = flat.reshape(n, N).T            # position m = i + N*j -> question i, replica j
        qids = list(range(N))
    else:
        matrix = np.array(rows, dtype=float)
        qids = ids
    recomputed = _recompute(matrix, reported)
    # regrouping corrects pass@k and cons@k, so only the mean is held to the file's number then
    for msg in reported_mismatch(where, "AISBench", reported, recomputed,
                                 [k for k in recomputed if not do or k.startswith(("accuracy", "avg@"))]):
        set_warnings.append(msg)
        notes.append(msg)
    if do:
        msg = _regroup_message(where, n, N, evidence if regroup == "auto" else "regroup=True", reported, recomputed)
        warnings.warn(msg, AISBenchGroupingWarning, stacklevel=user_stacklevel())
        set_warnings.append(msg)
    checked = predictions_for_gold is not None  # a predictions file keyed by id (an empty one too)
    absent = [q for q in qids if checked and lines.get(q, 0) < n]  # lines that are not there at all
    failed = [q for q in qids if checked and lines.get(q, 0) >= n and counts.get(q, 0) < n]
    for short, seen, what, why in (
            (absent, lines, "prediction lines", ": the file looks cut short or partial; the outcomes here come from "
             "the results file's details, which hold every replica"),
            (failed, counts, "successful prediction lines", "; AISBench scores failed requests as wrong answers, so "
             "those replicas count as incorrect here too")):
        if short:
            msg = (f"{predictions_where}: {len(short)} question(s) have fewer than n={n} {what} (e.g. id {short[0]}: "
                   f"{seen.get(short[0], 0)}){why}")
            set_warnings.append(msg)
            notes.append(msg)
    run_meta = {"tool": "aisbench", "files": [where] + ([predictions_where] if predictions is not None else []),
                "n": n, "grouping": "regrouped" if do else "aisbench", "grouping_evidence": evidence,
                "recomputed": recomputed, "notes": notes}
    if isinstance(results.get("type"), str):
        run_meta["type"] = results["type"]
    run_meta.update(meta or {})
    run = Run(dataset, model, qids, matrix, reported=reported, meta=run_meta)
    return OutcomeSet([run], source=where, warnings=set_warnings)


def _layout(path: Path) -> tuple[Path | None, str | None, str]:
    """(work dir, model, dataset) of ``<work>/results/<model>/<dataset>.json``; work dir None outside that layout."""
    path = Path(path)
    if path.parent.parent.name == "results":
        return path.parent.parent.parent, path.parent.name, path.stem
    return None, None, path.stem


def read_aisbench_results(path: str | Path, *, model: str | None = None, dataset: str | None = None,
                          predictions: str | Path | bool | None = None, regroup: bool | str = "auto",
                          root: str | Path | None = None) -> OutcomeSet:
    """One AISBench results JSON -> one-run :class:`OutcomeSet`.

    ``model`` / ``dataset`` default to the ``results/<model>/<dataset>.json``
    path parts (else ``"model"`` and the file stem).  ``predictions``: a
    predictions JSONL path, ``None`` to look for
    ``<work dir>/predictions/<model>/<dataset>.jsonl`` when the file sits in a
    work dir, or ``False`` to use none.  ``root`` shortens paths in messages.
    """
    path = Path(path)
    work, m, d = _layout(path)
    model = model or m or "model"
    dataset = dataset or d
    root = Path(root) if root is not None else work
    where = where_of(path, root)
    check_label(model, where, "model name")
    check_label(dataset, where, "dataset name")
    if predictions is None and work is not None:
        for ext in (".jsonl", ".json"):
            cand = work / "predictions" / (m or model) / f"{d}{ext}"
            if cand.is_file():
                predictions = cand
                break
    preds, pwhere = None, "predictions"
    if predictions:
        ppath = Path(predictions)
        pwhere = where_of(ppath, root)
        preds = _read_predictions(ppath, pwhere)
    results = load_json(path, where, expected="an AISBench results file (a JSON object of metrics and details)")
    return parse_aisbench_results(results, predictions=preds, model=model, dataset=dataset, regroup=regroup,
                                  where=where, predictions_where=pwhere)


# ----------------------------------------------------------------------------- a work dir
def read_aisbench(folder: str | Path, *, models=None, datasets=None, regroup: bool | str = "auto") -> OutcomeSet:
    """An AISBench work dir (or one results JSON) -> :class:`OutcomeSet`, one run per (dataset, model).

    ``models`` / ``datasets`` select by name (the ``results/<model>/<dataset>.json``
    path parts); see the module docstring for the layout and ``regroup``.
    """
    folder = Path(folder)
    if folder.is_file():
        return read_aisbench_results(folder, regroup=regroup)
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such file or folder")
    return read_work_dir(folder, "AISBench", lambda path, root: read_aisbench_results(path, regroup=regroup, root=root),
                         models=models, datasets=datasets)
