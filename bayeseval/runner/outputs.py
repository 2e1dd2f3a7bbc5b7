r"""The outputs of a finished ``bayeseval run``: bayeseval's outcome file and an AISBench-style work dir.

The run folder is itself laid out as an AISBench work dir (``outputs/default/<timestamp>/``), so
``bayeseval report <out>`` and :func:`bayeseval.load` read it as one::

    <out>/run.json                          the run's configuration (resume checks it)
    <out>/samples.jsonl                     one line per sample (text, score, error, latency, time)
    <out>/outcomes.json                     bayeseval-outcomes/1: 0/1 per sample, "." for a failed one
                                            (outcomes.csv, a long table, when the scorer gave partial credit)
    <out>/configs/<timestamp>.py            the configuration as Python literals (no API key)
    <out>/predictions/<model>/<dataset>.jsonl
                                            one line per (question, sample) in finishing order:
                                            {"id": <question index>, "uuid", "origin_prompt", "prediction",
                                             "gold", "success"[, "error"]}
    <out>/results/<model>/<dataset>.json    AISBench's metrics in percent and the per-question details
    <out>/summary/summary_<timestamp>.csv|md|txt
                                            AISBench's summary rows with bayeseval's posterior mean and
                                            credible interval beside them

``<model>`` is the model name with every character outside ``[A-Za-z0-9._-]`` replaced by ``_``
(``Qwen/Qwen2.5-7B`` -> ``Qwen_Qwen2.5-7B``), ``<dataset>`` the dataset file's stem; the question
index is the question's 0-based position in the dataset.

**Results file.**  With ``n`` samples per question and ``N`` complete questions, hard outcomes
:math:`H_{ij} = I(s_{ij} > 1/2)` (a failed sample counts 0, as in AISBench) and :math:`c_i=\sum_j H_{ij}`:
``accuracy (n runs average)`` :math:`=\frac1n\sum_j\frac1N\sum_i s_{ij}`, ``avg@n``
:math:`=\frac1N\sum_i c_i/n`, ``pass@n`` :math:`=\frac1N\sum_i I(c_i>0)`, ``cons@n``
:math:`=\frac1N\sum_i I(c_i>n/2)`, all times 100 (:mod:`bayeseval.aisbench`); ``n = 1`` gives
``accuracy`` only.  ``details`` is grouped question-major -- entry ``i`` holds question ``i``'s ``n``
samples (``pred``: the answer the scorer read, ``answer``: the gold answer, ``correct``) -- the
grouping AISBench 3.1 gets wrong and :func:`bayeseval.io.read_aisbench` checks.

**Summary.**  Beside each AISBench number, bayeseval's posterior mean and equal-tailed credible
interval (:func:`bayeseval.evaluate`; population scope by default: the questions are a sample from
a larger pool).  There a failed sample is a *missing* trial, not a wrong answer; a question whose
samples all failed is left out.  The Markdown and text summaries end with notes: failures, an early
stop and its reason, and the estimator's warnings.
"""

from __future__ import annotations

import csv
import io
import warnings
from datetime import datetime
from pathlib import Path

import numpy as np

from .._json import dumps_text
from .._text import pct
from .store import default_abbr, write_run

__all__ = ["write_outputs", "aisbench_numbers"]



def aisbench_numbers(S: np.ndarray) -> dict:
    """AISBench's metrics (percent) of a score matrix, a failed sample (NaN) counting as wrong."""
    from .. import aisbench as ais

    S = np.nan_to_num(np.asarray(S, dtype=float), nan=0.0)
    n = S.shape[1]
    if n == 1:
        return {"accuracy": 100.0 * ais.accuracy_n_runs_average(S)}
    H = ais.hard_outcomes(S)
    return {f"accuracy ({n} runs average)": 100.0 * ais.accuracy_n_runs_average(S),
            f"avg@{n}": 100.0 * ais.avg_at_n(H), f"pass@{n}": 100.0 * ais.pass_at_k(H, n),
            f"cons@{n}": 100.0 * ais.cons_at_k(H, n)}


def _bayes_metric(name: str, n: int, binary: bool) -> str | None:
    """The bayeseval metric estimated beside an AISBench row (None: none, e.g. pass@n of partial credit)."""
    if name.startswith("accuracy"):
        return "avg"
    if not binary:
        return None
    if name.startswith("avg@"):
        return "avg@n"
    return name  # pass@n, cons@n


def _estimates(result, binary: bool, names: list[str], scope: str, level: float) -> tuple[dict, list[str]]:
    """bayeseval's estimate for each AISBench row name, and the notes (warnings, errors)."""
    from ..io.outcomeset import OutcomeSet, Run
    from ..results import evaluate

    M = result.matrix
    keep = ~np.all(np.isnan(M), axis=1)
    notes = []
    if not keep.all():
        notes.append(f"{int((~keep).sum())} question(s) have no answered sample and are left out of the estimate")
    if not keep.any():
        return {}, notes + ["no answered sample: no estimate"]
    ids = [q for q, k in zip(result.ids, keep) if k]
    run = Run(result.dataset, result.abbr, ids, M[keep], scale=None if binary else (0.0, 1.0))
    wanted = {name: _bayes_metric(name, result.n, binary) for name in names}
    metrics = list(dict.fromkeys(m for m in wanted.values() if m))
    out = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ev = evaluate(OutcomeSet([run]), metrics, scope=scope, level=level)
        except Exception as exc:  # noqa: BLE001 - the samples are safe on disk; the summary says what failed
            notes.append(f"bayeseval estimate failed: {type(exc).__name__}: {exc}")
            return {}, notes
    by_metric = {e.metric: e for e in ev}
    for name, metric in wanted.items():
        if metric in by_metric:
            out[name] = by_metric[metric]
    for w in caught:
        text = str(w.message)
        if text not in notes:
            notes.append(text)
    return out, notes


def _table(header: list[str], rows: list[list[str]], style: str) -> str:
    if style == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        return buf.getvalue()
    right = set(range(4, len(header)))
    if style == "md":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if j in right else "---"
                                                                 for j in range(len(header))) + "|"]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows]) + "\n"
    from ..report.tables import tabulate_simple

    return tabulate_simple(header, rows, right) + "\n"


def _pyconfig(config: dict, doc: dict, result, ds) -> str:
    s = doc.get("settings", {})
    model = {"attr": "service", "type": "bayeseval.runner (OpenAI-compatible chat)", "abbr": result.abbr,
             "model": config["model"], "url": config["base_url"] + "/chat/completions", "stream": s.get("stream"),
             "batch_size": s.get("concurrency"), "max_out_len": config["max_tokens"], "retry": s.get("retries"),
             "timeout": s.get("timeout"),
             "generation_kwargs": {"temperature": config["temperature"], "num_return_sequences": config["n"]}}
    dataset = {"abbr": ds.name, "path": config["dataset"], "sha256": config["dataset_sha256"], "n": config["n"],
               "reader_cfg": {"input_columns": [config["prompt_field"]], "output_column": config["answer_field"],
                              "id_column": config["id_field"]},
               "eval_cfg": {"scorer": config["scorer"]}, "limit": s.get("limit")}
    return ("# written by bayeseval run (AISBench-style combined config); question order seed "
            f"{config['seed']}\n\nmodels = [{model!r}]\n\ndatasets = [{dataset!r}]\n\nwork_dir = {str(Path(result.folder).resolve())!r}\n")


def _clean_old(folder: Path, doc: dict) -> None:
    for rel in doc.get("reports", []):
        p = folder / rel
        if p.is_file():
            p.unlink()


def write_outputs(result, ds, complete, records: dict, scorer, config: dict, doc: dict, *, scope: str = "population",
                  level: float = 0.95) -> None:
    """Write outcomes, the AISBench work dir and the summary into ``result.folder``; fill ``result.files``
    and ``result.summary``."""
    from ..io.outcomes import write_outcomes
    from ..io.outcomeset import OutcomeSet, Run

    folder, n, abbr = result.folder, result.n, result.abbr
    M = result.matrix
    seen = M[~np.isnan(M)]
    binary = bool(np.all((seen == 0) | (seen == 1)))
    files = {}
    if not complete:
        result.summary = "no question is complete: nothing to report"
        return
    numbers = aisbench_numbers(M)
    # (a) bayeseval's own outcome file, its questions in the order the run took them (random: what a sequential
    # analysis of the file, `bayeseval monitor`, needs); the AISBench work dir below keeps the dataset's order
    rank = {pos: r for r, pos in enumerate(result.order)}
    run_rows = sorted(range(len(complete)), key=lambda i: rank.get(complete[i].index, i))
    ids, M_run = [result.ids[i] for i in run_rows], M[run_rows]
    # the model as named: --model-abbr where one was given (two checkpoints served under one name), else --model
    name = config["model"] if config["model_abbr"] == default_abbr(config["model"]) else config["model_abbr"]
    for stale in ("outcomes.csv", "outcomes.json"):  # one outcome file: a resumed run may change its kind
        (folder / stale).unlink(missing_ok=True)
    if binary:
        path = folder / "outcomes.json"
        s = OutcomeSet([Run(ds.name, name, ids, M_run, meta={"published": numbers})],
                       source=f"bayeseval run of {config['model']} at {config['base_url']}",
                       notes=f"n={n}, scorer {config['scorer']}, temperature {config['temperature']}; "
                             f"'.' marks a failed sample")
        write_outcomes(path, s)
    else:
        path = folder / "outcomes.csv"
        with path.open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["dataset", "model", "question", "trial", "score"])
            for qid, row in zip(ids, M_run):
                for j, v in enumerate(row):
                    if not np.isnan(v):
                        w.writerow([ds.name, name, qid, j, repr(float(v))])
    files["outcomes"] = path
    # (b) the AISBench work dir
    _clean_old(folder, doc)
    stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
    for sub in ("configs", f"predictions/{abbr}", f"results/{abbr}", "summary"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    cfg = folder / "configs" / f"{stamp}.py"
    cfg.write_text(_pyconfig(config, doc, result, ds), encoding="utf-8")
    recs = sorted((records[(str(q.id), j)] for q in complete for j in range(n)), key=lambda r: r.get("finished", ""))
    by_id = {str(q.id): q for q in complete}
    pred = folder / "predictions" / abbr / f"{ds.name}.jsonl"
    with pred.open("w", encoding="utf-8") as fh:
        for r in recs:
            q = by_id[str(r["question"])]
            line = {"id": q.index, "uuid": f"{q.id}/{r['sample']}", "origin_prompt": q.messages,
                    "prediction": r["text"] if r.get("error") is None else "", "gold": q.answer,
                    "success": r.get("error") is None}
            if r.get("error") is not None:
                line["error"] = r["error"]
            fh.write(dumps_text(line) + "\n")
    details: list | dict
    if n == 1:
        details = {}
        for q, row in zip(complete, M):
            r = records[(str(q.id), 0)]
            details[str(q.index)] = {"predictions": [scorer.extract(r["text"]) if r.get("error") is None else None],
                                     "references": [q.answer], "correct": [bool(row[0] > 0.5)]}
    else:
        details = []
        for q, row in zip(complete, M):
            preds = []
            for j in range(n):
                r = records[(str(q.id), j)]
                preds.append(scorer.extract(r["text"]) if r.get("error") is None else None)
            details.append({"example_abbr": f"{ds.name}_{q.index}", "pred": preds, "answer": [q.answer] * n,
                            "correct": [bool(v > 0.5) for v in row]})
    res = folder / "results" / abbr / f"{ds.name}.json"
    res.write_text(dumps_text({**numbers, "details": details}, indent=1) + "\n", encoding="utf-8")
    # (c) the summary: AISBench's rows, bayeseval's estimate beside them
    names = list(numbers)
    ests, notes = _estimates(result, binary, names, scope, level)
    lv = pct(level)
    header = ["dataset", "version", "metric", "mode", abbr, f"{abbr} posterior mean", f"{abbr} {lv} lo",
              f"{abbr} {lv} hi"]
    rows = []
    for name in names:
        e = ests.get(name)
        cells = ["-", "-", "-"] if e is None else [f"{100 * e.mean:.2f}", f"{100 * e.lo:.2f}", f"{100 * e.hi:.2f}"]
        rows.append([ds.name, ds.sha256[:6], name, "gen", f"{numbers[name]:.2f}"] + cells)
    failed = result.failures
    total = M.size
    some = next(iter(ests.values()), None)
    from ..report.tables import interval_words, widened_rows
    shown = list(ests.values())
    lines = [f"{abbr}: the AISBench numbers ({len(complete)} questions x {n} samples, percent); beside them "
             f"bayeseval's posterior mean and "
             + (f"{interval_words(shown)} interval ({some.scope} scope, prior {some.prior})." + widened_rows(shown)
                if some is not None else f"{lv} credible interval.")]
    if failed:
        nq = int(np.isnan(M).any(axis=1).sum())
        lines.append(f"{failed} of {total} samples FAILED (in {nq} question{'s' if nq > 1 else ''}; errors in samples.jsonl): AISBench's "
                     "columns count them as wrong answers, bayeseval's estimate as missing trials.")
    else:
        lines.append(f"All {total} samples answered (no failed request).")
    if result.stopped:
        lines.append(f"Stopped early after {len(complete)} of {result.questions_total} questions: {result.stop_reason}")
    elif len(complete) < result.questions_total:
        lines.append(f"{result.questions_total - len(complete)} of {result.questions_total} questions are incomplete.")
    lines += [f"note: {t}" for t in notes]
    summary = folder / "summary"
    written = {}
    for ext, style in (("csv", "csv"), ("md", "md"), ("txt", "txt")):
        text = _table(header, rows, style)
        if style == "md":
            text += "\n" + "\n".join(f"- {ln}" for ln in lines) + "\n"
        elif style == "txt":
            text += "\n" + "\n".join(lines) + "\n"
        p = summary / f"summary_{stamp}.{ext}"
        p.write_text(text, encoding="utf-8")
        written[ext] = p
    files.update(config=cfg, predictions=pred, results=res, summary_csv=written["csv"], summary_md=written["md"],
                 summary_txt=written["txt"])
    result.files = files
    result.summary = written["txt"].read_text(encoding="utf-8")
    doc["reports"] = [str(p.relative_to(folder)) for p in (cfg, written["csv"], written["md"], written["txt"])]
    doc["last"] = {"finished": stamp, "questions_complete": len(complete), "questions_total": result.questions_total,
                   "failed_samples": failed, "stopped": result.stopped, "stop_reason": result.stop_reason}
    write_run(folder, doc)
