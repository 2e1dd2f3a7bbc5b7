r"""lm-evaluation-harness ``--log_samples`` output -> :class:`~bayeseval.io.OutcomeSet`.

``lm_eval --output_path <out> --log_samples`` writes::

    <out>/<model_name_sanitized>/results_<date>.json         aggregated metrics ("results": {task:
                                                             {"exact_match,strict-match": 0.5, ...}}),
                                                             "configs" (with "repeats"), "versions",
                                                             "n-shot", "model_name", ...
    <out>/<model_name_sanitized>/samples_<task>_<date>.jsonl one line per (document, filter):
        {"doc_id": 0, "doc": {...}, "target": ..., "arguments": {...},
         "resps": [[<response>, ...]],            one list per request, one entry per repeat
         "filtered_resps": [<filtered>, ...],     after the filter pipeline
         "filter": "strict-match", "metrics": ["exact_match"],
         "doc_hash": ..., "prompt_hash": ..., "target_hash": ...,
         "exact_match": 1.0}                      one field per metric, the value for this doc

(``<date>`` is ``datetime.now().isoformat()`` with ``:`` replaced by ``-``;
files older than lm-eval 0.4.3 lack ``filter`` and ``metrics``.)

What is read: for one filter and one metric field, each document's value is
one trial; **question ids are the ints** ``doc_id`` (rows sorted by it).
0/1 and boolean values stay binary; other numbers follow the library's table
convention (integers ``0..C`` weighted by their value, else one category per
distinct value; a negative value is an error).  ``metric=None`` picks the first
of ``exact_match``, ``acc``, ``pass@1``, ``pass_at_1``, ``em``, ``correct``,
``acc_norm`` that the records carry, else the first metric the records name in
their ``metrics`` list; records without a ``metrics`` list (lm-eval before
0.4.3) and without any of those fields raise ValueError listing the candidate
fields (a guess could pick a length or a seed): pick one with ``metric=`` (CLI
``--lm-eval-metric``).  ``filter=None`` picks the first filter in the file
(both recorded in ``run.meta`` with the alternatives).  ``run.reported`` is
the task's entry of the matching ``results_<date>.json`` (``"metric,filter"``
keys, tool units: fractions).

**Repeats.**  With ``repeats: K > 1`` lm-eval sends each request K times but
logs one record per document whose metric is computed *after* the filter
(e.g. ``take_first`` or ``majority_vote``): per-repeat correctness is not in
the file, and this loader does not invent it from the raw responses.  Such a
file raises ValueError; ``single_trial=True`` reads the logged value as one
trial per document (the filter's outcome, e.g. a majority vote) and says so in
``meta["notes"]``.  A metric logged as a list with one 0/1 value per repeat is
read as K trials.  Several samples files of one task (separate runs, e.g.
different seeds) are stacked as trials with ``runs="trials"``, joined on
``doc_id`` (missing = NaN); the default ``runs="latest"`` reads the newest.

Not handled: gzipped samples, tasks logged without ``doc_id``, metrics whose
per-document value is a string or a dict.

Reference: EleutherAI/lm-evaluation-harness ``lm_eval/evaluator.py``
(``evaluate``: the logged ``example``) and ``lm_eval/loggers/evaluation_tracker.py``
(``save_results_samples``, ``save_results_aggregated``), v0.4,
https://github.com/EleutherAI/lm-evaluation-harness.

>>> recs = [{"doc_id": 1, "filter": "none", "metrics": ["acc"], "resps": [[["-1.2", "True"]]], "acc": 0.0},
...         {"doc_id": 0, "filter": "none", "metrics": ["acc"], "resps": [[["-0.3", "True"]]], "acc": 1.0}]
>>> s = parse_lm_eval_samples(enumerate(recs, 1), task="arc_easy", model="m")
>>> s.run("m").ids, s.matrix("m").ravel().tolist(), s.run("m").meta["metric"]
((0, 1), [1.0, 0.0], 'acc')
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from ._vendor import (code_scores, check_label, check_scores, iter_jsonl, load_json, numeric_items,
                      reported_mismatch, show, where_of)
from .outcomeset import OutcomeSet, Run

__all__ = ["read_lm_eval", "parse_lm_eval_samples", "PREFERRED_METRICS"]

PREFERRED_METRICS = ("exact_match", "acc", "pass@1", "pass_at_1", "em", "correct", "acc_norm")
_BOOKKEEPING = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash",
                "prompt_hash", "target_hash", "task_name"}


def _task_and_date(name: str) -> tuple[str, str]:
    """``samples_<task>_<date>.jsonl`` -> (task, date), as lm-eval's get_file_task_name / get_file_datetime."""
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    if stem.startswith("samples_"):
        stem = stem[len("samples_"):]
    head, sep, tail = stem.rpartition("_")
    if sep and re.fullmatch(r"\d{4}-\d{2}-\d{2}T[\d\-.:]+", tail):  # lm-eval's timestamp suffix
        return head, tail
    return stem, ""  # no timestamp: the whole stem is the task


def _repeats(rec: dict, config: dict | None) -> int:
    if isinstance(config, dict) and isinstance(config.get("repeats"), int) and config["repeats"] >= 1:
        return config["repeats"]
    resps = rec.get("resps")
    if isinstance(resps, list) and resps and isinstance(resps[0], list):
        return max(1, len(resps[0]))
    return 1


def _metric_names(rec: dict) -> list[str]:
    if isinstance(rec.get("metrics"), list):
        return [m for m in rec["metrics"] if isinstance(m, str)]
    return [k for k, v in rec.items() if k not in _BOOKKEEPING
            and (isinstance(v, (bool, int, float, list)) or v is None)]


def _value(v: Any, repeats: int, single_trial: bool, at: str, task: str, metric: str, filt: str | None) -> list:
    if v is None:
        return [np.nan]
    if isinstance(v, (bool, int, float)):
        if repeats > 1 and not single_trial:
            raise ValueError(
                f"{at}: {metric}: task {task!r} ran with repeats={repeats} but the field holds one value per "
                f"document (filter {filt!r}, computed after the filter), so the {repeats} per-repeat outcomes "
                "cannot be recovered; pass single_trial=True (CLI: --single-trial) to read it as one trial per document")
        if isinstance(v, float) and not np.isfinite(v):
            raise ValueError(f"{at}: {metric}: expected a finite number, got {show(v)}")
        check_scores(v, f"{at}: {metric}")
        return [float(v)]
    if isinstance(v, list) and v and all(isinstance(x, (bool, int, float)) for x in v):
        if len(v) != repeats:
            raise ValueError(f"{at}: {metric}: a list of {len(v)} values, but the task has repeats={repeats}")
        if not all(np.isfinite(float(x)) for x in v):
            raise ValueError(f"{at}: {metric}: expected finite numbers, got {show(v)}")
        check_scores(v, f"{at}: {metric}")
        return [float(x) for x in v]
    raise ValueError(f"{at}: {metric}: expected a number, a boolean or a list with one value per repeat, "
                     f"got {show(v)}")


def parse_lm_eval_samples(records: Iterable[tuple[int, Any]], *, task: str, model: str, metric: str | None = None,
                          filter: str | None = None, single_trial: bool = False, results: dict | None = None,
                          where: str = "samples", meta: dict | None = None) -> OutcomeSet:
    """``(line number, record)`` pairs of one samples file -> one-run :class:`OutcomeSet` (see the module doc).

    ``results`` is the decoded ``results_<date>.json`` (for ``repeats`` and ``reported``).
    """
    recs = []
    for ln, rec in records:
        if not isinstance(rec, dict):
            raise ValueError(f"{where}: line {ln}: expected an object, got {show(rec)}")
        if "doc_id" not in rec:
            raise ValueError(f"{where}: line {ln}: doc_id: missing")
        if isinstance(rec["doc_id"], bool) or not isinstance(rec["doc_id"], int):
            raise ValueError(f"{where}: line {ln}: doc_id: expected an integer, got {show(rec['doc_id'])}")
        if "filter" in rec and not isinstance(rec["filter"], str):
            raise ValueError(f"{where}: line {ln}: filter: expected a string, got {show(rec['filter'])}")
        recs.append((ln, rec))
    if not recs:
        raise ValueError(f"{where}: no records")
    filters = list(dict.fromkeys(r.get("filter") for _, r in recs))
    if filter is not None and filter not in filters:
        raise ValueError(f"{where}: filter {filter!r} not found; filters: {[f for f in filters if f is not None]}")
    chosen = filter if filter is not None else filters[0]
    rows = [(ln, r) for ln, r in recs if r.get("filter") == chosen]
    seen: dict = {}
    for ln, r in rows:
        if r["doc_id"] in seen:
            extra = (" (records carry no 'filter' field: lm-eval before 0.4.3 writes one record per filter "
                     "without naming it, so the filters cannot be told apart)" if chosen is None else "")
            raise ValueError(f"{where}: line {ln}: doc_id: {r['doc_id']} already on line {seen[r['doc_id']]}{extra}")
        seen[r["doc_id"]] = ln
    names = _metric_names(rows[0][1])
    if metric is None:
        declared = isinstance(rows[0][1].get("metrics"), list)
        metric = next((m for m in PREFERRED_METRICS if m in names), names[0] if names and declared else None)
        if metric is None and not names:
            raise ValueError(f"{where}: line {rows[0][0]}: no metric field found (no 'metrics' list and no numeric "
                             "field besides lm-eval's bookkeeping); name it with metric= (CLI --lm-eval-metric NAME)")
        if metric is None:
            usual = ", ".join(PREFERRED_METRICS)
            raise ValueError(f"{where}: line {rows[0][0]}: the records name no metric (no 'metrics' list, as lm-eval "
                             f"before 0.4.3 writes) and carry none of the usual fields ({usual}); "
                             f"candidate fields: {names}: pick one with metric= (CLI --lm-eval-metric NAME)")
    configs = results.get("configs") if isinstance(results, dict) else None
    config = configs.get(task) if isinstance(configs, dict) else None
    repeats = _repeats(rows[0][1], config)
    per_doc = []
    for ln, r in rows:
        at = f"{where}: line {ln}"
        if metric not in r:
            have = _metric_names(r)
            raise ValueError(f"{at}: {metric}: missing; metric fields here: {have}")
        per_doc.append((r["doc_id"], _value(r[metric], repeats, single_trial, at, task, metric, chosen)))
    per_doc.sort(key=lambda t: t[0])
    width = max(len(v) for _, v in per_doc)
    raw = np.full((len(per_doc), width), np.nan)
    for i, (_, v) in enumerate(per_doc):
        raw[i, : len(v)] = v
    matrix, weights, scale = code_scores(raw)
    notes = []
    if repeats > 1 and width == 1:
        notes.append(f"task ran with repeats={repeats}; read one logged value per document "
                     f"(filter {chosen!r}) as a single trial")
    reported, run_meta = {}, {}
    if isinstance(results, dict):
        table = results.get("results")
        entry = table.get(task, {}) if isinstance(table, dict) else {}
        if isinstance(entry, dict):
            reported = numeric_items(entry, where=f"{where}: results.{task}")  # NaN / Infinity left out, warned
        for key, field in (("version", "versions"), ("n-shot", "n-shot")):
            if isinstance(results.get(field), dict) and task in results[field]:
                run_meta[key] = results[field][task]
        for key in ("model_name", "lm_eval_version", "git_hash", "date"):
            if key in results:
                run_meta[key] = results[key]
    mismatch = []
    if width == 1 and not np.isnan(raw).any() and raw.min() >= 0.0 and raw.max() <= 1.0:
        # one value per document: lm-eval's number for this metric and filter is their mean
        mismatch = reported_mismatch(where, "lm-eval", reported, {f"{metric},{chosen}": float(raw.mean())},
                                     tolerance=5e-5, digits=4)
    counted = results.get("n-samples", {}).get(task, {}) if isinstance(results, dict) and \
        isinstance(results.get("n-samples"), dict) else {}
    effective = counted.get("effective") if isinstance(counted, dict) else None
    if isinstance(effective, int) and not isinstance(effective, bool) and effective != len(per_doc):
        # a samples file cut at a line boundary is caught by the mean only where the mean happens to move
        mismatch.append(f"{where}: {len(per_doc)} documents with filter {chosen!r}, but the results file counts "
                        f"{effective} (n-samples.{task}.effective): the samples file looks "
                        + ("cut short or partial" if len(per_doc) < effective else "to hold documents of another run"))
    run_meta = {"tool": "lm-eval", "files": [where], "task": task, "metric": metric, "metrics": names,
                "filter": chosen, "filters": filters, "repeats": repeats, "notes": notes + mismatch, **run_meta,
                **(meta or {})}
    run = Run(task, model, [d for d, _ in per_doc], matrix, weights=weights, reported=reported, meta=run_meta,
              scale=scale)
    return OutcomeSet([run], source=where, warnings=mismatch)


def _results_for(folder: Path, date: str, task: str, root: Path) -> tuple[dict | None, str | None]:
    """The ``results_<date>.json`` beside a samples file (same date, else the newest holding the task)."""
    exact = folder / f"results_{date}.json"
    cands = [exact] if exact.is_file() else sorted(folder.glob("results_*.json"), reverse=True)
    for path in cands:
        where = where_of(path, root)
        data = load_json(path, where, expected="an lm-eval results file (a JSON object with 'results')")
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected a JSON object with 'results', got {show(data)}")
        table = data.get("results")
        if table is not None and not isinstance(table, dict):
            raise ValueError(f"{where}: results: expected an object keyed by task, got {show(table)}")
        if path == exact or task in (table or {}):  # a key of the results, not a substring of some text
            return data, where
    return None, None


def _samples_files(path: Path) -> list[Path]:
    if path.is_file():
        if path.name.startswith("results_") and path.suffix == ".json":
            date = path.stem[len("results_"):]
            found = [p for p in sorted(path.parent.glob("samples_*.jsonl")) if _task_and_date(p.name)[1] == date]
            if not found:
                raise ValueError(f"{path}: no samples_<task>_{date}.jsonl beside it (run lm_eval with --log_samples)")
            return found
        return [path]
    if not path.is_dir():
        raise ValueError(f"{path}: no such file or folder")
    found = sorted(path.glob("samples_*.jsonl")) + sorted(path.glob("*/samples_*.jsonl"))
    if not found:
        raise ValueError(f"{path}: no samples_<task>_<date>.jsonl files here or one folder down "
                         "(run lm_eval with --log_samples)")
    return found


def _stack(sets: list[OutcomeSet], where: str) -> OutcomeSet:
    """Runs of one task from several files -> one run whose trials are the files' trials, joined on doc_id."""
    runs = [next(iter(s)) for s in sets]
    if any(r.weights is not None or r.scale is not None for r in runs):
        raise ValueError(f"{where}: runs='trials' needs 0/1 outcomes in every file")
    ids = sorted({i for r in runs for i in r.ids})
    pos = {d: k for k, d in enumerate(ids)}
    blocks = []
    for r in runs:
        block = np.full((len(ids), r.matrix.shape[1]), np.nan)
        block[[pos[d] for d in r.ids]] = r.matrix
        blocks.append(block)
    first = runs[0]
    meta = dict(first.meta, files=[f for r in runs for f in r.meta["files"]],
                notes=first.meta["notes"] + [f"{len(runs)} samples files stacked as trials (runs='trials')"])
    return OutcomeSet([Run(first.dataset, first.model, ids, np.hstack(blocks), reported=runs[-1].reported,
                           meta=meta)], source=where)


def read_lm_eval(path_or_folder: str | Path, *, models=None, tasks=None, metric: str | None = None,
                 filter: str | None = None, runs: str = "latest", single_trial: bool = False) -> OutcomeSet:
    """lm-eval samples (a ``samples_*.jsonl`` file, a ``results_*.json``, a model folder or the output folder).

    One run per (task, model); the model is the results file's ``model_name``,
    else the folder name (``model_name_sanitized``).  ``models`` / ``tasks``
    select; ``metric``, ``filter``, ``runs`` and ``single_trial``: see the
    module docstring.
    """
    if runs not in ("latest", "trials"):
        raise ValueError(f"runs must be 'latest' or 'trials', got {runs!r}")
    path = Path(path_or_folder)
    root = path if path.is_dir() else path.parent
    groups: dict = {}
    for f in _samples_files(path):
        task, date = _task_and_date(f.name)
        groups.setdefault((f.parent, task), []).append((date, f))
    tasks_found = sorted({t for _, t in groups})
    for wanted, have, what in ((tasks, tasks_found, "task"),):
        for w in ([wanted] if isinstance(wanted, str) else wanted or []):
            if w not in have:
                raise ValueError(f"{path}: no {what} {w!r}; {what}s: {have}")
    keep_t = None if tasks is None else ({tasks} if isinstance(tasks, str) else set(tasks))
    sets, model_names = [], []
    for (folder, task), dated in sorted(groups.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        if keep_t is not None and task not in keep_t:
            continue
        dated.sort()
        chosen = dated if runs == "trials" else dated[-1:]
        parts = []
        for date, f in chosen:
            results, rwhere = _results_for(folder, date, task, root)
            name = (results or {}).get("model_name") or folder.name
            if not isinstance(name, str):
                raise ValueError(f"{rwhere}: model_name: expected a string, got {show(name)}")
            check_label(name, rwhere or where_of(folder, root), "model_name")
            check_label(task, where_of(f, root), "task name (from the file name)")
            where = where_of(f, root)
            samples = iter_jsonl(f, where, "one lm-eval sample object per line")
            parts.append(parse_lm_eval_samples(samples, task=task, model=str(name), metric=metric, filter=filter,
                                               single_trial=single_trial, results=results, where=where, meta=None))
            if rwhere:
                next(iter(parts[-1])).meta["files"].append(rwhere)
        s = parts[0] if len(parts) == 1 else _stack(parts, f"{where_of(folder, root)}: {task}")
        model_names.append(next(iter(s)).model)
        sets.append(s)
    if models is not None:
        wanted = [models] if isinstance(models, str) else list(models)
        for w in wanted:
            if w not in model_names:
                raise ValueError(f"{path}: no model {w!r}; models: {sorted(set(model_names))}")
        sets = [s for s in sets if next(iter(s)).model in wanted]
    if not sets:
        raise ValueError(f"{path}: no samples files match the selection")
    out = sets[0].merge(*sets[1:])
    out.source = str(path)
    out.notes = "lm-evaluation-harness samples"
    return out
