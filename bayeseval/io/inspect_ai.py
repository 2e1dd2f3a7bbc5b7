r"""inspect_ai eval logs (``.json`` or ``.eval``) -> :class:`~bayeseval.io.OutcomeSet`; epochs are trials.

A ``.json`` log is one object::

    {"version": 2, "status": "success",
     "eval": {"task": "gsm8k", "model": "openai/gpt-4o-mini",
              "dataset": {"name": ..., "samples": 4, "sample_ids": [1, 2, 3, 4]},
              "config": {"epochs": 3, "epochs_reducer": ["mean"], ...}, "packages": {"inspect_ai": ...}},
     "results": {"scores": [{"name": "match", "scorer": "match", "reducer": "mean",
                             "metrics": {"accuracy": {"name": "accuracy", "value": 0.46}, ...}}]},
     "samples": [{"id": 1, "epoch": 1, "input": ..., "target": ...,
                  "scores": {"match": {"value": "C", "answer": "72", ...}}, "error": ...}, ...],
     "reductions": [...]}

A ``.eval`` log is a zip of the same pieces: ``header.json`` (the log without
samples; ``_journal/start.json`` while running), ``samples/<id>_epoch_<n>.json``
(one sample each) and ``summaries.json`` (id, epoch, scores of every sample;
read first because it is small).

Each log is one run: dataset = ``eval.task``, model = ``eval.model``, one row per
sample id (**question ids as the log writes them, int or str**, in
``eval.dataset.sample_ids`` order when given), one column per epoch (1-based in
the log, column ``epoch - 1``).  A sample without a score (an error, a limit, an
unfinished eval) is a missing trial (NaN).  Score values follow inspect's
``value_to_float``: ``"C"`` 1, ``"I"`` 0, ``"N"`` (no answer) 0, ``"P"`` 0.5,
``yes``/``true`` 1, ``no``/``false`` 0, numbers as they are; 0/1 stays binary,
anything else uses the library's category convention (e.g. C/P/I becomes
categories with weights 0, 0.5, 1).  ``scorer`` picks the scorer (default: the
first in ``results.scores``); a scorer whose value is a dict needs
``value_key``.  ``run.reported`` holds ``results.scores`` as
``"<scorer>/<metric>"`` (tool units: fractions).

Not handled: logs read through an ``s3://`` URL, scores whose value is a list.

Reference: UKGovernmentBEIS/inspect_ai ``src/inspect_ai/log/_log.py`` (EvalLog,
EvalSample, EvalSampleSummary), ``src/inspect_ai/log/_recorders/eval.py`` (the zip
layout) and ``src/inspect_ai/scorer/_metric.py`` (``value_to_float``),
https://github.com/UKGovernmentBEIS/inspect_ai.

>>> log = {"version": 2, "status": "success",
...        "eval": {"task": "t", "model": "m", "config": {"epochs": 2}},
...        "samples": [{"id": "a", "epoch": 1, "scores": {"match": {"value": "C"}}},
...                    {"id": "a", "epoch": 2, "scores": {"match": {"value": "I"}}},
...                    {"id": "b", "epoch": 1, "scores": {"match": {"value": "C"}}},
...                    {"id": "b", "epoch": 2, "error": {"message": "timeout"}}]}
>>> s = parse_inspect_log(log)
>>> s.run("m").ids, s.matrix("m").tolist()
(('a', 'b'), [[1.0, 0.0], [1.0, nan]])
"""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .._json import loads
from ._vendor import check_label, check_scores, code_scores, finite_float, load_json, reported_mismatch, show, where_of
from .outcomeset import OutcomeSet, Run

__all__ = ["read_inspect", "read_inspect_dimensions", "parse_inspect_log", "is_inspect_json"]

_LETTERS = {"C": 1.0, "I": 0.0, "N": 0.0, "P": 0.5}
_HEAD = re.compile(r'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


def is_inspect_json(path: Path) -> bool:
    """Does a ``.json`` file start like an inspect log (``{"version": <int>, "status": ...``)?"""
    try:
        with Path(path).open("rb") as fh:
            head = fh.read(256).decode("utf-8", errors="replace")
    except OSError:
        return False
    return bool(_HEAD.match(head))


def _to_float(v: Any, at: str) -> float:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        x = finite_float(v)
        if x is None:
            raise ValueError(f"{at}: expected a finite number, got {show(v)}")
        return x
    if isinstance(v, str):
        s = v.strip()
        if s in _LETTERS:
            return _LETTERS[s]
        if s.lower() in ("yes", "true"):
            return 1.0
        if s.lower() in ("no", "false"):
            return 0.0
        try:
            return _to_float(float(s), at)
        except ValueError:
            pass
    raise ValueError(f"{at}: expected C/I/P/N, yes/no, a number or a boolean, got {show(v)}")


def _reported(header: dict) -> tuple[dict, list[str]]:
    """``results.scores`` -> ({"<scorer>/<metric>": value}, scorer names in order)."""
    reported, names = {}, []
    results = header.get("results")
    scores = (results.get("scores") if isinstance(results, dict) else None) or []
    for s in scores if isinstance(scores, list) else []:
        if not isinstance(s, dict):
            continue
        name = s.get("name") or s.get("scorer")
        if isinstance(name, str):
            names.append(name)
        metrics = s.get("metrics")
        for metric, m in (metrics.items() if isinstance(metrics, dict) else ()):
            value = m.get("value") if isinstance(m, dict) else m
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                reported[f"{name}/{metric}"] = float(value)
    return reported, list(dict.fromkeys(names))


def parse_inspect_log(header: Any, samples: Iterable[tuple[str, Any]] | None = None, *, scorer: str | None = None,
                      value_key: str | None = None, where: str = "log") -> OutcomeSet:
    """A decoded inspect log -> one-run :class:`OutcomeSet`.

    ``header`` is the log object; ``samples`` are ``(label, sample)`` pairs
    (default: ``header["samples"]``, labelled ``samples[i]``).
    """
    if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
        raise ValueError(f"{where}: eval: missing; not an inspect_ai log")
    ev = header["eval"]
    for key in ("task", "model"):
        if not isinstance(ev.get(key), str) or not ev[key].strip():
            raise ValueError(f"{where}: eval.{key}: expected a non-empty string, got {show(ev.get(key))}")
        check_label(ev[key], where, f"eval.{key}")
    if samples is None:
        raw = header.get("samples")
        if raw is None:
            raise ValueError(f"{where}: samples: missing (was the eval run with --no-log-samples?)")
        if not isinstance(raw, list):
            raise ValueError(f"{where}: samples: expected a list, got {show(raw)}")
        samples = [(f"samples[{i}]", s) for i, s in enumerate(raw)]
    reported, scorer_names = _reported(header)
    entries, seen_scorers = [], []
    for label, smp in samples:
        at = f"{where}: {label}"
        if not isinstance(smp, dict):
            raise ValueError(f"{at}: expected an object, got {show(smp)}")
        sid = smp.get("id")
        if isinstance(sid, bool) or not isinstance(sid, (int, str)):
            raise ValueError(f"{at}: id: expected an integer or a string, got {show(sid)}")
        check_label(sid, at, "id")
        epoch = smp.get("epoch", 1)
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
            raise ValueError(f"{at}: epoch: expected an integer >= 1, got {show(epoch)}")
        scores = smp.get("scores")
        if scores is not None and not isinstance(scores, dict):
            raise ValueError(f"{at}: scores: expected an object keyed by scorer, got {show(scores)}")
        seen_scorers += [k for k in (scores or {}) if k not in seen_scorers]
        entries.append((at, label, sid, epoch, scores or {}, smp.get("error")))
    if not entries:
        raise ValueError(f"{where}: samples: no samples")
    available = [n for n in scorer_names if n in seen_scorers] + [n for n in seen_scorers if n not in scorer_names]
    if scorer is None:
        if not available:
            raise ValueError(f"{where}: no sample has a score")
        scorer = available[0]
    elif scorer not in available:
        raise ValueError(f"{where}: scorer {scorer!r} not found; scorers: {available}")
    order = ev.get("dataset", {}).get("sample_ids") if isinstance(ev.get("dataset"), dict) else None
    if isinstance(order, list) and not all(isinstance(i, (int, str)) and not isinstance(i, bool) for i in order):
        bad = next(i for i in order if not (isinstance(i, (int, str)) and not isinstance(i, bool)))
        raise ValueError(f"{where}: eval.dataset.sample_ids: expected integers or strings, got {show(bad)}")
    ids = list(dict.fromkeys(e[2] for e in entries))
    if isinstance(order, list) and set(ids) <= set(order):
        ids = [i for i in dict.fromkeys(order) if i in set(ids)]
    epochs = max(e[3] for e in entries)
    cfg = ev.get("config") if isinstance(ev.get("config"), dict) else {}
    if isinstance(cfg.get("epochs"), int) and not isinstance(cfg.get("epochs"), bool):
        epochs = max(epochs, cfg["epochs"])
    if len(ids) * epochs > max(64 * len(entries), 1_000_000):  # an epoch number far beyond the scored samples
        raise ValueError(f"{where}: epochs: {epochs} epochs for {len(ids)} sample id(s) but only {len(entries)} "
                         "scored sample(s): the outcome matrix would be almost empty; check samples[].epoch and "
                         "eval.config.epochs")
    pos = {sid: i for i, sid in enumerate(ids)}
    raw = np.full((len(ids), epochs), np.nan)
    filled: dict = {}
    errors = 0
    for at, label, sid, epoch, scores, error in entries:
        if (sid, epoch) in filled:
            raise ValueError(f"{at}: id {sid!r}, epoch {epoch} already in {filled[(sid, epoch)]}")
        filled[(sid, epoch)] = label
        errors += error is not None
        score = scores.get(scorer)
        if score is None:
            continue
        if not isinstance(score, dict) or "value" not in score:
            raise ValueError(f"{at}: scores[{scorer!r}]: expected an object with a 'value', got {show(score)}")
        value = score["value"]
        vat = f"{at}: scores[{scorer!r}].value"
        if isinstance(value, dict):
            if value_key is None:
                raise ValueError(f"{vat}: a dict of values {sorted(value)}; pass value_key= to pick one")
            if value_key not in value:
                raise ValueError(f"{vat}: no key {value_key!r}; keys: {sorted(value)}")
            value, vat = value[value_key], f"{vat}[{value_key!r}]"
        if value is None:
            continue
        x = _to_float(value, vat)
        check_scores(x, vat)
        raw[pos[sid], epoch - 1] = x
    matrix, weights, scale = code_scores(raw)
    missing = int(np.isnan(raw).sum())
    notes, set_warnings = [], []
    status = header.get("status")
    if missing:
        notes.append(f"{missing} of {raw.size} (sample, epoch) trials have no {scorer!r} score "
                     f"({errors} samples with an error)")
    if status not in (None, "success"):
        planned = list(dict.fromkeys((order if isinstance(order, list) else []) + ids))  # listed, and any scored
        unrun = [i for i in planned if i not in pos]  # the samples the log lists that never ran: no row here
        msg = (f"{where}: status {status!r}: the eval did not finish cleanly; {missing + len(unrun) * epochs} of "
               f"{len(planned) * epochs} trials missing" + (f" ({len(unrun)} of its {len(planned)} samples never ran, "
                                                            f"e.g. {unrun[:3]}; they are not among the questions "
                                                            "here)" if unrun else ""))
        notes.append(msg)
        set_warnings.append(msg)
    scored = ~np.isnan(raw).all(axis=1)
    if scored.all() and value_key is None and np.nanmin(raw) >= 0.0 and np.nanmax(raw) <= 1.0 and \
            cfg.get("epochs_reducer") in (None, ["mean"], "mean"):
        # inspect's accuracy: the mean over samples of each sample's mean over its scored epochs (the default
        # reducer)
        accuracy = float(np.nanmean(raw, axis=1).mean())
        mismatch = reported_mismatch(where, "inspect_ai", reported, {f"{scorer}/accuracy": accuracy},
                                     tolerance=5e-5, digits=4)
        notes += mismatch
        set_warnings += mismatch
    meta = {"tool": "inspect", "files": [where], "scorer": scorer, "scorers": available, "value_key": value_key,
            "epochs": epochs, "status": status, "missing": missing, "errors": errors, "notes": notes}
    if isinstance(cfg.get("epochs_reducer"), list):
        meta["epochs_reducer"] = cfg["epochs_reducer"]
    version = (ev.get("packages") or {}).get("inspect_ai") if isinstance(ev.get("packages"), dict) else None
    if version:
        meta["version"] = version
    run = Run(ev["task"], ev["model"], ids, matrix, weights=weights, reported=reported, meta=meta, scale=scale)
    return OutcomeSet([run], source=where, warnings=set_warnings)


def _read_zip_json(z: zipfile.ZipFile, name: str, where: str) -> Any:
    try:
        data = z.read(name)
    except (zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error, EOFError, OSError) as exc:
        # a damaged (CRC), encrypted or oddly compressed member
        raise ValueError(f"{where}: {name}: cannot be read from the .eval (zip) log ({exc})") from None
    try:
        return loads(data.decode("utf-8"), f"{where}: {name}", "a JSON member of an inspect_ai .eval log")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where}: {name}: not valid JSON ({exc})") from None


def _read_eval(path: Path, where: str) -> tuple[dict, list[tuple[str, Any]]]:
    """A ``.eval`` zip -> (header, labelled samples)."""
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"{where}: not a readable .eval (zip) log ({exc})") from None
    with z:
        names = set(z.namelist())
        if "header.json" in names:
            header = _read_zip_json(z, "header.json", where)
        elif "_journal/start.json" in names:
            header = _read_zip_json(z, "_journal/start.json", where)
            if isinstance(header, dict):
                header = {**header, "status": header.get("status", "started")}
        else:
            raise ValueError(f"{where}: header.json: missing (and no _journal/start.json); not an inspect .eval log")
        if "summaries.json" in names:
            data = _read_zip_json(z, "summaries.json", where)
            if not isinstance(data, list):
                raise ValueError(f"{where}: summaries.json: expected a list, got {show(data)}")
            return header, [(f"summaries.json[{i}]", s) for i, s in enumerate(data)]
        sample_files = sorted(n for n in names if n.startswith("samples/") and n.endswith(".json"))
        if sample_files:
            return header, [(n, _read_zip_json(z, n, where)) for n in sample_files]
        journal = sorted((n for n in names if re.fullmatch(r"_journal/summaries/\d+\.json", n)),
                         key=lambda n: int(n.rsplit("/", 1)[1].split(".")[0]))
        out = []
        for n in journal:
            data = _read_zip_json(z, n, where)
            if not isinstance(data, list):
                raise ValueError(f"{where}: {n}: expected a list, got {show(data)}")
            out += [(f"{n}[{i}]", s) for i, s in enumerate(data)]
        return header, out


def _read_one(path: Path, root: Path | None, scorer, value_key) -> OutcomeSet:
    where = where_of(path, root)
    if path.suffix == ".eval":
        header, samples = _read_eval(path, where)
        return parse_inspect_log(header, samples, scorer=scorer, value_key=value_key, where=where)
    log = load_json(path, where, expected="an inspect_ai log (a JSON object with 'eval' and 'samples')")
    return parse_inspect_log(log, scorer=scorer, value_key=value_key, where=where)


def read_inspect(path: str | Path, *, scorer: str | None = None, value_key: str | None = None, models=None,
                 tasks=None) -> OutcomeSet:
    """An inspect log (``.json`` / ``.eval``) or a log folder -> :class:`OutcomeSet`, one run per log.

    ``models`` / ``tasks`` select logs by ``eval.model`` / ``eval.task``; two
    logs of the same task and model raise (pass the one you mean).
    """
    path = Path(path)
    if path.is_file():
        files, root = [path], None
    elif path.is_dir():
        files = sorted(path.glob("*.eval")) + [p for p in sorted(path.glob("*.json")) if is_inspect_json(p)]
        root = path
        if not files:
            raise ValueError(f"{path}: no inspect logs (*.eval, or *.json starting with \"version\" and \"status\")")
    else:
        raise ValueError(f"{path}: no such file or folder")
    sets, owner = [], {}
    for f in files:
        s = _read_one(f, root, scorer, value_key)
        run = next(iter(s))
        key = (run.dataset, run.model)
        if key in owner:
            raise ValueError(f"{where_of(f, root)}: task {run.dataset!r}, model {run.model!r} already read from "
                             f"{owner[key]}; pass one log (or a folder holding one log per task and model)")
        owner[key] = where_of(f, root)
        sets.append(s)
    found_m = sorted({next(iter(s)).model for s in sets})
    found_t = sorted({next(iter(s)).dataset for s in sets})
    for wanted, have, what in ((models, found_m, "model"), (tasks, found_t, "task")):
        for w in ([wanted] if isinstance(wanted, str) else wanted or []):
            if w not in have:
                raise ValueError(f"{path}: no {what} {w!r}; {what}s: {have}")
    keep_m = None if models is None else ({models} if isinstance(models, str) else set(models))
    keep_t = None if tasks is None else ({tasks} if isinstance(tasks, str) else set(tasks))
    sets = [s for s in sets if (keep_m is None or next(iter(s)).model in keep_m)
            and (keep_t is None or next(iter(s)).dataset in keep_t)]
    out = sets[0].merge(*sets[1:])
    out.source = str(path)
    out.notes = "inspect_ai eval logs"
    return out


def read_inspect_dimensions(path: str | Path, keys: Any, *, scorer: str | None = None, models=None, tasks=None):
    """Dict-valued inspect scores (``{"correct": 1, "format": 0.5}``) as rubric dimensions: a pandas DataFrame
    with one row per (sample, model, epoch) -- columns ``item``, ``system`` (``task/model`` when several tasks),
    ``judge`` (``epoch k``) -- and one column per key in ``keys`` (NaN where a sample has no score), the layout
    :func:`bayeseval.rubric.rubric` reads.  The keys of a scorer's dict are named by :func:`read_inspect`'s error
    without ``value_key``."""
    import pandas as pd

    keys = [keys] if isinstance(keys, str) else list(keys)
    if not keys or not all(isinstance(k, str) for k in keys):
        raise TypeError(f"keys must name the dict's keys (strings), got {keys!r}")
    frames = []
    for k in keys:
        s = read_inspect(path, scorer=scorer, value_key=k, models=models, tasks=tasks)
        several = len(s.datasets) > 1
        for run in s:
            m = run.values()  # a category's weight, a score itself; NaN where missing
            i, j = np.indices(m.shape)
            ids = np.empty(run.M, dtype=object)
            ids[:] = list(run.ids)
            frames.append(pd.DataFrame({"item": ids[i.ravel()], "judge": [f"epoch {e + 1}" for e in j.ravel()],
                                        "system": f"{run.dataset}/{run.model}" if several else run.model,
                                        "key": k, "value": m.ravel()}))
    long = pd.concat(frames, ignore_index=True)
    wide = long.pivot_table(index=["item", "system", "judge"], columns="key", values="value", aggfunc="first",
                            dropna=False, sort=False)
    wide = wide.reindex(columns=keys).reset_index()
    wide.columns.name = None
    return wide.dropna(subset=keys, how="all").reset_index(drop=True)
