"""The ``bayeseval`` command (argument parsing and printing only; the statistics live in the library).

    bayeseval report PATH...     metrics with credible intervals (terminal, Markdown, LaTeX, CSV, JSON, AISBench)
    bayeseval compare A B        is A better than B, by how much, how sure (Bayesian + bootstrap + tests)
    bayeseval rank PATH...       every pair compared, adjusted p-values, rank probabilities
    bayeseval plan PATH          standard errors, detectable effects and questions needed from a pilot
    bayeseval plot-coverage      the coverage study as a plot
    bayeseval demo               the bundled Game of 24 runs, both scopes
    bayeseval serve              the HTTP JSON API (FastAPI + uvicorn)

Exit codes: 0 success; 1 a finding you asked to fail on (``--fail-if-worse``);
2 bad input (one line on stderr; ``--debug`` shows the traceback).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import re
import sys
import warnings
from pathlib import Path
import numpy as np

from . import __version__
from . import validate as V
from ._argtypes import error_line as _error_line, level as _level, nonneg_int as _nonneg_int, \
    positive_int as _positive_int, probability as _probability, resamples as _resamples
from .io.load import FORMATS, load
from .io.outcomes import read_outcomes
from ._text import fmt_prob, pct, text_table
from .results import DEFAULT_INTERVAL, ESTIMATE_INTERVALS, QUESTION_METHODS, WIDENING_METHODS, estimate, evaluate
from .posterior.robust import FEW_CARRYING_WORDS
from .scores import Scores
from .runner.command import add_parser as add_run_parser
from .service.server import add_serve_parser

DEMO_FILE = Path(__file__).resolve().parent / "data" / "tot_game24.json"  # package data: a pip install has it too
COVERAGE_RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results_coverage.md"  # in a clone

DEMO_METRICS = ("avg", "pass@10", "pass@100", "pass^10", "maj@10")
REPORT_FORMATS = ("terminal", "markdown", "latex", "csv", "json", "aisbench", "aisbench-csv")


class UsageError(ValueError):
    """Bad command-line input (exit code 2)."""


# --------------------------------------------------------------------------- helpers
def _progress(iterable, args, desc: str, total: int | None = None):
    """A tqdm progress bar on stderr when it is a terminal (and not --quiet)."""
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, disable=getattr(args, "quiet", False) or not sys.stderr.isatty(),
                file=sys.stderr, leave=False)


def _split(text: str | None, flag: str = "", unique: bool = True) -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in re.split(r",(?![^\[]*\])", text) if t.strip()]  # commas inside [...] (a payoff
    # vector) do not split
    if not items:
        raise UsageError(f"{flag or 'a list option'}: give at least one comma-separated name, got {text!r}")
    twice = next((t for i, t in enumerate(items) if t in items[:i]), None) if unique else None
    if twice is not None:  # --models a,a,b was two models without a word
        raise UsageError(f"{flag or 'a list option'}: {twice!r} is named twice; name each once")
    return items


def _columns(args) -> dict:
    out = {}
    for key in ("model", "question", "trial", "score", "dataset"):
        value = getattr(args, f"{key}_col", None)
        if value is not None:
            out[key] = value
    if getattr(args, "model_name", None) is not None:  # a long table of one model: no model column is read
        if "model" in out:
            raise UsageError("--model-name names the one model of a table without a model column; --model-col "
                             "reads the models from a column: give one of them")
        out["model"] = None
    return out


_SHOWN: set = set()


def _warn(text: str) -> None:
    """Print a warning once per run, on stderr (stdout stays clean for --format json / csv); a warning that begins
    one already shown (the same model and metric, said of another interval of it) is not repeated."""
    if not any(shown.startswith(text) for shown in _SHOWN):
        _SHOWN.add(text)
        print(f"bayeseval: warning: {text}", file=sys.stderr)


def _show_warning(message, category, filename, lineno, file=None, line=None):  # warnings.showwarning's signature
    _warn(str(message))


def _reader_options(args) -> dict:
    """Tool-reader options from the command line (each reader takes the ones it knows)."""
    out = {}
    if getattr(args, "regroup", None) is not None:
        out["regroup"] = {"auto": "auto", "yes": True, "no": False}[args.regroup]
    for flag, key in (("lm_eval_metric", "metric"), ("lm_eval_filter", "filter"), ("inspect_scorer", "scorer")):
        if getattr(args, flag, None):
            out[key] = getattr(args, flag)
    if getattr(args, "single_trial", False):
        out["single_trial"] = True
    if getattr(args, "allow_truncated", False):
        out["allow_truncated"] = True
    if getattr(args, "scores", None) is not None:
        out["score_range"] = _score_range(args.scores)
    return out


def _may_have_model_column(path: Path) -> bool:
    """False where a CSV / TSV header shows no model column (in any case), so --model-name need not read the table
    a first time to look for one; True for the other formats, whose first read is the check."""
    from .io.load import _header

    if path.is_file() and path.suffix.lower() in (".csv", ".tsv"):
        header = _header(path)
        return not header or any(h.strip().lower() == "model" for h in header)
    return True


def _load(paths, args):
    """Files/folders -> one OutcomeSet (with a progress bar over paths); warnings printed once."""
    sets = []
    for p in _progress(paths, args, "loading"):
        def read(columns):
            return load(p, format=args.input_format, columns=columns, engine=getattr(args, "engine", "auto"),
                        progress=lambda it: _progress(it, args, "counting shards"), **_reader_options(args))

        if getattr(args, "model_name", None) is None:
            sets.append(read(_columns(args)))
            continue
        if _may_have_model_column(Path(p)):
            try:  # --model-name: a table with a model column would be pooled into one model without a word
                found = read({k: v for k, v in _columns(args).items() if k != "model"})
            except ValueError as exc:
                if "no model column 'model'" not in str(exc):
                    raise
            else:
                raise UsageError(f"{p} has a model column 'model' (models: {', '.join(found.models)}); --model-name "
                                 "names the one model of a table without one: leave it out")
        sets.append(read(_columns(args)).rename(models={"model": args.model_name}))  # read with model=None
    data = sets[0].merge(*sets[1:]) if len(sets) > 1 else sets[0]
    for text in data.warnings:
        _warn(text)
    models = _split(getattr(args, "models", None), "--models")
    datasets = _split(getattr(args, "datasets", None), "--datasets")
    if models or datasets:
        data = data.select(models=models, datasets=datasets)
    if getattr(args, "scores", None) is not None:
        data = data.as_scores(_score_range(args.scores))
    if getattr(args, "threshold", None) is not None:  # every command reads 0/1 outcomes from here on
        data = data.thresholded(args.threshold)
        print(f"bayeseval: note: --threshold {args.threshold:g}: a trial whose score is above it counts as correct",
              file=sys.stderr)
    return data


def _score_range(text: str, flag: str = "--scores") -> tuple[float, float]:
    parts = text.split(",")
    try:
        lo, hi = (float(x) for x in parts)
    except ValueError:
        raise UsageError(f"{flag}: expected LO,HI (e.g. 0,1 or 1,5), got {text!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise UsageError(f"{flag}: LO and HI must be finite numbers with LO below HI, got {text!r}")
    return lo, hi


def _write(text: str, args) -> None:
    if getattr(args, "output", None):
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(f"bayeseval: wrote {args.output}", file=sys.stderr)
    else:
        print(text)


def _prior_kw(args) -> dict:
    """``prior=`` as the command line gave it (the table's prior: its ranking and its baseline column use it too)."""
    return {"prior": args.prior} if getattr(args, "prior", None) else {}


def _estimate_kwargs(args) -> dict:
    kw = {"scope": args.scope, "level": args.level}
    if getattr(args, "interval", None):
        kw["interval"] = args.interval
    kw.update(_prior_kw(args))
    if getattr(args, "seed", None) is not None:
        kw["seed"] = args.seed
    return kw


def _metric_params(metric: str, args) -> dict:
    params = {}
    if getattr(args, "tau", None) is not None and metric.startswith("g-pass"):
        params["tau"] = args.tau
    return params


def _metric_kw(metric: str, args) -> tuple:
    """``(metric, params)`` for the library: with --threshold (the runs binarised when read), the metric named with
    it, ``pass@2 (threshold=7)``, as the library labels it, so a saved table or JSON says what was counted."""
    from .scores import names_avg_at_n
    from .targets import parse

    t = getattr(args, "threshold", None)
    if t is None or names_avg_at_n(metric):  # avg@n's threshold is its own parameter: the plain mean here
        return metric, _metric_params(metric, args)
    return parse(metric, **_metric_params(metric, args)).thresholded(t), {}


def _metric_label(metric: str, args) -> str:
    """The metric as :func:`_metric_kw` names it to the library (``pass@2 (threshold=7)``), for outputs that take
    a label: the sequential commands read the binarised runs, whose own label would leave the threshold out."""
    from .scores import names_avg_at_n
    from .targets import MetricSpec, parse

    m, params = _metric_kw(metric, args)
    t = getattr(args, "threshold", None)
    if t is not None and names_avg_at_n(metric):  # the runs were binarised at load: avg@n of hard outcomes
        return parse(metric, **params).thresholded(t).label
    return m.label if isinstance(m, MetricSpec) else parse(m, **params).label


def _labelled(result, metric: str, args):
    """A comparison or ranking named as :func:`_metric_label` names its metric (avg@n with --threshold)."""
    return dataclasses.replace(result, metric=_metric_label(metric, args))


def _thresholded_labels(ev, metrics: list, args):
    """avg@n's rows named with --threshold (``avg@n (threshold=7)``): the library counts the runs binarised at
    load, and cannot label them so itself (its avg@n reads threshold= as its own parameter on [0, 1])."""
    from .scores import names_avg_at_n
    from .targets import parse

    if getattr(args, "threshold", None) is None:
        return ev
    names = {}
    for m in metrics:
        if names_avg_at_n(m):
            name, params = _metric_kw(m, args)
            names[parse(name, **params).label] = _metric_label(m, args)
    if not names:
        return ev
    return type(ev)(dataclasses.replace(e, metric=names[e.metric]) if e.metric in names else e for e in ev)


# --------------------------------------------------------------------------- report
def cmd_report(args) -> int:
    from .report import tables

    for path in (args.plot, args.plot_pass_k, args.output, args.html):
        _check_output(path)
    for path in (args.plot, args.plot_pass_k):
        _check_image(path)
    _check_html(args.html)
    if args.resamples is not None and not (args.baseline or args.html):
        raise UsageError("--resamples sets the resamples of --baseline's comparisons and --html's ranking; give one "
                         "of them, or leave it out")
    args.resamples = 10_000 if args.resamples is None else args.resamples
    if args.interval in QUESTION_METHODS and args.scope != "population":
        raise UsageError(f"--interval {args.interval} treats the questions as a sample, so it answers --scope "
                         "population; in --scope benchmark use auto, exact, normal or hdi")
    if args.plot_pass_k and args.interval in QUESTION_METHODS:
        raise UsageError(f"--plot-pass-k draws posterior intervals (exact, normal or hdi); --interval {args.interval} "
                         "is for the table: run the plot with another --interval")
    data = _load(args.paths, args)
    metrics = _split(args.metrics, "--metrics")
    kw = _estimate_kwargs(args)
    several = len(data.datasets) > 1
    try:  # each run counted once; its population fit shared by every metric
        ev = evaluate(data, [_metric_kw(m, args) for m in metrics], **kw)
    except (ValueError, TypeError) as exc:
        where = f"{exc.dataset}/{exc.model}" if several and getattr(exc, "dataset", None) else getattr(exc, "model", "")
        metric = metrics[exc.metric_index] if getattr(exc, "metric_index", None) is not None else ""
        prefix = ", ".join(p for p in (where, metric) if p)
        if isinstance(exc, V.ArgumentError):  # its slots kept: the line names the options
            raise exc.prefixed(f"{prefix}: " if prefix else "") from exc
        raise type(exc)(f"{prefix}: {exc}" if prefix else str(exc)) from exc
    ev = _thresholded_labels(ev, metrics, args)
    ranking = _baseline_comparisons(data, args, metrics[0]) if args.baseline else None
    if ranking is not None and len(metrics) > 1:  # one Δ column: say which metric it compares
        print(f"bayeseval: note: --baseline compares the first of --metrics ({metrics[0]}); put another first to "
              "compare it", file=sys.stderr)
    if args.plot_pass_k and not any(_is_binary_run(r) for r in data):
        raise UsageError("--plot-pass-k needs 0/1 outcomes; every run here is graded (categorical) or holds scores")
    text = tables.render(ev, args.format, outcomes=data, digits=args.digits, percent=not args.fraction,
                         bold_best=args.bold_best, comparisons=ranking, baseline=args.baseline)
    _write(text, args)
    if args.plot:
        from .report import plots

        plots.forest(ev, percent=not args.fraction, save=args.plot)
        print(f"bayeseval: wrote {args.plot}", file=sys.stderr)
    if args.plot_pass_k:
        from .report import plots

        binary, left = _binary_runs(data, several)
        if left:
            _warn(f"--plot-pass-k draws 0/1 outcomes only: {', '.join(left)} (graded or scores) left out of it")
        plots.pass_at_k_curve(binary, scope=args.scope, level=args.level,
                              interval=plots.posterior_interval(args.interval, [], "the pass@k curves"), prior=args.prior,
                              percent=not args.fraction, save=args.plot_pass_k)
        print(f"bayeseval: wrote {args.plot_pass_k}", file=sys.stderr)
    if args.html:
        _html_report(args, ev, data, metrics[0])
    return 0


#: the options that name a file the command writes, by attribute
OUTPUT_FLAGS = {"output": "--output", "html": "--html", "plot": "--plot", "plot_pass_k": "--plot-pass-k"}


def _check_paths(args) -> None:
    """Before any work: no output file is a folder, one of the inputs (writing it would replace the data), or
    another output of the same command."""
    inputs = []
    for name in ("paths", "path", "data", "a", "b"):
        value = getattr(args, name, None)
        inputs += [value] if isinstance(value, str) else list(value or [])
    inputs += [p.rsplit("::", 1)[0] for p in inputs if "::" in p]  # PATH::MODEL names the file PATH
    seen = {}
    for name, flag in OUTPUT_FLAGS.items():
        path = getattr(args, name, None)
        if not path:
            continue
        p = Path(path)
        if p.is_dir():
            raise UsageError(f"{flag} {path}: is a folder; name a file to write")
        where = p.resolve()
        for src in inputs:
            if Path(src).resolve() == where:
                raise UsageError(f"{flag} {path} is also an input: writing it would replace the data; "
                                 "name another file")
        if where in seen:
            raise UsageError(f"{flag} and {seen[where]} name the same file {path}; name two files")
        seen[where] = flag


def _check_output(path) -> None:
    """Fail before any work when an output file cannot be written (folder missing, unknown image type)."""
    if not path:
        return
    p = Path(path)
    if not p.parent.exists():
        raise UsageError(f"{path}: folder {p.parent} does not exist")


def _check_image(path) -> None:
    if path and Path(path).suffix.lower() not in (".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".ps", ".tif",
                                                  ".tiff", ".webp"):
        raise UsageError(f"{path}: unknown image type; use .png, .pdf or .svg")


def _check_html(path) -> None:
    """--html: its plots need matplotlib; say so (with the install command) before any work."""
    if not path:
        return
    from importlib.util import find_spec

    if find_spec("matplotlib") is None:
        raise UsageError("--html draws its plots with matplotlib, which is not installed: "
                         "pip install 'bayeseval[plots]'")


def _write_page(args, ev, ranking=None, paths=(), **kwargs) -> None:
    """Write the self-contained HTML report of --html (statistics done; this only renders)."""
    from .report.html import provenance, write_html

    prov = provenance(paths, seed=getattr(args, "seed", None), command=["bayeseval", *getattr(args, "argv", [])])
    write_html(args.html, ev, ranking, provenance=prov, **kwargs)
    print(f"bayeseval: wrote {args.html}", file=sys.stderr)


def _html_report(args, ev, data, metric: str) -> None:
    """report --html: the estimates, pass@k curves of the 0/1 runs, and per dataset the ranking of its 0/1 runs
    on the first metric (when it has two or more)."""
    from .comparison import compare_all
    from .report import plots

    several = len(data.datasets) > 1
    notes = list(data.warnings)
    rankings = {}
    for d in data.datasets:
        binary = [r for r in (data.select(datasets=[d]) if several else data) if r.weights is None]
        if len(binary) < 2:
            continue
        str_ids = not _same_id_types(binary)
        said: list = []  # the ranking's interval method, said only where a ranking is shown
        try:
            named, params = _metric_kw(metric, args)
            rankings[d] = _labelled(compare_all({r.model: r.counts(str_ids) for r in binary}, metric=named,
                                                scope=args.scope, level=args.level, seed=args.seed,
                                                interval=plots.posterior_interval(args.interval, said, "the ranking"),
                                                resamples=args.resamples, **_prior_kw(args), **params), metric, args)
        except (ValueError, TypeError) as exc:  # e.g. the models did not answer the same questions
            notes.append(f"no ranking{' of ' + str(d) if several else ''} on {metric}: {exc}")
        else:
            notes += [s for s in said if s not in notes]
    curves = None
    binary, left = _binary_runs(data, several)
    if binary and left:
        notes.append(f"the pass@k curves draw 0/1 outcomes only: {', '.join(left)} (graded or scores) left out")
    if binary and min(int(c.n.min()) for c in binary.values()) >= 2:
        curves = plots.pass_at_k_curve(binary, scope=args.scope, level=args.level,
                                       interval=plots.posterior_interval(args.interval, notes, "the pass@k curves"),
                                       prior=args.prior, percent=not args.fraction)
    ranking = rankings if several else list(rankings.values())
    _write_page(args, ev, ranking, args.paths, pass_at_k=curves, warnings=notes, percent=not args.fraction,
                digits=args.digits)


def _binary_runs(data, several: bool) -> tuple[dict, list]:
    """The 0/1 runs' counts by label (``dataset/model`` with several datasets), and the labels of the others."""
    label = lambda r: f"{r.dataset}/{r.model}" if several else r.model  # noqa: E731
    return ({label(r): r.counts() for r in data if _is_binary_run(r)},
            [label(r) for r in data if not _is_binary_run(r)])


def _is_binary_run(run) -> bool:
    """0/1 outcomes: neither graded (category weights) nor continuous scores."""
    return run.weights is None and getattr(run, "scale", None) is None and not isinstance(run.counts(), Scores)


def _same_id_types(runs) -> bool:
    return len(frozenset().union(*(r.id_types for r in runs))) <= 1


def _ungraded_runs(data, what: str):
    """The 0/1 and score runs of a one-dataset OutcomeSet (graded runs are left out, named in a warning) and whether
    ids need str (0/1 runs alone: :func:`_is_binary_run`)."""
    data = _one_dataset(data, what)
    kept = [r for r in data if r.weights is None]
    graded = [r.model for r in data if r.weights is not None]
    if graded:
        _warn(f"{what} compares 0/1 outcomes or scores; left out graded (categorical) model(s): {', '.join(graded)} "
              "(--scores LO,HI compares them by their mean score)")
    return kept, not _same_id_types(kept)


def _baseline_comparisons(data, args, metric: str):
    """compare(model, baseline) for every other model: the Δ column's family is these K - 1 comparisons."""
    from .comparison import compare

    binary, str_ids = _ungraded_runs(data, "--baseline")
    names = [r.model for r in binary]
    if args.baseline not in names:
        raise UsageError(f"--baseline: no model {args.baseline!r} with 0/1 outcomes; models: {names}")
    if len(binary) < 2:
        raise UsageError(f"--baseline compares every other model with {args.baseline!r}, but the inputs hold no "
                         "other model with 0/1 outcomes")
    base = next(r for r in binary if r.model == args.baseline)
    named, params = _metric_kw(metric, args)
    return [_labelled(compare(r.counts(str_ids), base.counts(str_ids), metric=named, scope=args.scope,
                              level=args.level, seed=args.seed, resamples=args.resamples, names=(r.model, base.model),
                              **_prior_kw(args), **params), metric, args)
            for r in _progress(binary, args, "comparing") if r is not base]


def _one_dataset(data, what: str):
    """The inputs as one dataset; runs from different files (one run per model) pair up by question id."""
    if len(data.datasets) > 1:
        if len(data.models) == len(data):
            _warn(f"{what}: pairing runs labelled with different datasets {data.datasets} by question id")
            return data
        raise UsageError(f"{what} works on one dataset at a time; these inputs hold {data.datasets}: "
                         "choose one with --datasets NAME")
    return data


def _ranking(data, args, metric: str):
    from .comparison import compare_all

    binary, str_ids = _ungraded_runs(data, "rank")
    if len(binary) < 2:
        raise UsageError("ranking needs at least two models with 0/1 outcomes or scores (--scores LO,HI)")
    models = {r.model: r.counts(str_ids) for r in binary}
    named, params = _metric_kw(metric, args)
    return _labelled(compare_all(models, metric=named, scope=args.scope, level=args.level, seed=args.seed,
                                 resamples=args.resamples, pairs=getattr(args, "pairs", "adjacent"),
                                 shrink=getattr(args, "shrink", False), **params), metric, args)


# --------------------------------------------------------------------------- compare
def _side(spec: str, data, args, label: str):
    """A model of an OutcomeSet, or PATH / PATH::MODEL -> (name, OutcomeSet with that one model)."""
    if data is not None:
        if "/" in spec and spec not in data:
            dataset, model = spec.split("/", 1)
            return model, data.select(models=[model], datasets=[dataset])
        if spec not in data:
            raise UsageError(f"{label}: no model {spec!r} in --data; models: {data.models}")
        return spec, data.select(models=[spec])
    path, _, model = spec.partition("::")
    side = _load([path], args)
    if model:
        side = side.select(models=[model])
    if len(side.models) != 1:
        raise UsageError(f"{label}: {path} holds models {side.models}; pick one with {path}::MODEL")
    return side.models[0], side


def cmd_compare(args) -> int:
    from .comparison import compare

    _check_output(args.output)
    _check_output(args.plot)
    _check_image(args.plot)
    _check_output(args.html)
    _check_html(args.html)
    name_a, name_b, pairs = _paired_runs(args)
    rope = args.rope
    results = []
    for da, ra, rb in _progress(pairs, args, "comparing"):
        if ra.weights is not None or rb.weights is not None:
            graded = ra.model if ra.weights is not None else rb.model
            raise UsageError(f"compare needs 0/1 outcomes or scores; {graded!r} on dataset {da!r} has graded "
                             "(categorical) outcomes or partial credit: --scores LO,HI compares them by their mean "
                             "score (--threshold T with it counts a score above T as correct)")
        str_ids = ra.id_types != rb.id_types  # "7" in one file, 7 in another
        named, params = _metric_kw(args.metric, args)
        res = compare(ra.counts(str_ids), rb.counts(str_ids), metric=named, scope=args.scope, level=args.level,
                      rope=rope, seed=args.seed, resamples=args.resamples, names=(name_a, name_b), **params)
        results.append((da, res))
    worse = [d for d, r in results if _credibly_worse(r)]
    if args.format == "json":
        text = json.dumps([{"dataset": d, **r.to_dict()} for d, r in results], indent=1)
    else:
        blocks = []
        for d, r in results:
            head = f"dataset: {d}\n" if len(results) > 1 or d != "dataset" else ""
            blocks.append(head + (r.summary() if args.format == "text" else _markdown_comparison(r)))
        text = "\n\n".join(blocks)
    _write(text, args)
    if args.plot:
        from .report import plots

        plots.difference_density(results[0][1], save=args.plot)
        print(f"bayeseval: wrote {args.plot}", file=sys.stderr)
    if args.html:
        import dataclasses

        from .results import Evaluation

        several = len(results) > 1
        ev = Evaluation([dataclasses.replace(e, dataset=d) if several else e for d, r in results
                         for e in r.estimates.values()])
        _write_page(args, ev, {d: r for d, r in results} if several else [results[0][1]],
                    [*(args.data or []), *([] if args.data else [args.a.partition("::")[0], args.b.partition("::")[0]])])
    if args.fail_if_worse and worse:
        print(f"bayeseval: {name_a} is credibly worse than {name_b} on {', '.join(worse)} (--fail-if-worse)",
              file=sys.stderr)
        return 1
    return 0


def _paired_runs(args, rows: bool = False):
    """A and B (files, PATH::MODEL, or models of --data) -> (name A, name B, [(dataset, run A, run B)]).  ``rows``:
    the analysis needs every trial in its row (monitor, replay), so ``--engine auto`` reads tables with pandas
    rather than counting them in DuckDB."""
    if rows and getattr(args, "engine", "auto") == "auto":
        args.engine = "pandas"
    data = _load(args.data, args) if args.data else None
    name_a, side_a = _side(args.a, data, args, "A")
    name_b, side_b = _side(args.b, data, args, "B")
    if name_a == name_b:  # the same model on two datasets or in two files: label the sides as given
        name_a, name_b = (args.a, args.b) if args.a != args.b else (f"{name_a} (A)", f"{name_b} (B)")
    shared = [d for d in side_a.datasets if d in side_b.datasets]
    if not shared:
        if len(side_a.datasets) == len(side_b.datasets) == 1:
            shared = [(side_a.datasets[0], side_b.datasets[0])]
            _warn(f"pairing A's dataset {side_a.datasets[0]!r} with B's {side_b.datasets[0]!r} by question id")
        else:
            raise UsageError(f"A and B share no dataset: A has {side_a.datasets}, B has {side_b.datasets}")
    else:
        shared = [(d, d) for d in shared]
    return name_a, name_b, [(da, side_a.run(side_a.models[0], da), side_b.run(side_b.models[0], db))
                            for da, db in shared]


def _aligned(ra, rb):
    """Two runs' per-trial values on the same questions, B's rows in A's question order, and the score range."""
    from .comparison.paired import align

    str_ids = ra.id_types != rb.id_types
    ca, cb = ra.counts(str_ids), rb.counts(str_ids)
    _, pos = align(ca, cb)
    va, vb = ra.values(), rb.values()
    if va.shape[0] != ca.M or vb.shape[0] != cb.M:  # questions without any trial were left out of the counts
        raise UsageError(f"{ra.dataset}: questions without an observed trial; drop them before a sequential analysis")
    vb = vb if pos is None else vb[pos]
    kinds = {r.scale if r.scale is not None else ((float(np.min(r.weights)), float(np.max(r.weights)))
                                                   if r.weights is not None else None) for r in (ra, rb)}
    if kinds == {None, (0.0, 1.0)}:  # 0/1 outcomes are scores in [0, 1] (as compare reads them beside such scores)
        kinds = {(0.0, 1.0)}
    if len(kinds) > 1:
        raise UsageError(f"{ra.dataset}: A and B hold different kinds of outcomes ({sorted(map(str, kinds))})")
    return va, vb, kinds.pop()


def _located(where: str, exc: ValueError) -> ValueError:
    """``exc`` with ``where`` (a file, a model) before its message; an error that names arguments keeps its slots,
    so the one-line message still names the options (``--labels``, ``--require``)."""
    return exc.prefixed(where) if isinstance(exc, V.ArgumentError) else ValueError(where + str(exc))


def cmd_monitor(args) -> int:
    from .sequential import SequentialCompare, question_values

    from .io.load import RUN_ORDER

    name_a, name_b, pairs = _paired_runs(args, rows=True)
    out, ordered = [], False
    for da, ra, rb in pairs:
        va, vb, scale = _aligned(ra, rb)  # in A's order: a run folder's is the random order the run drew
        ordered = ordered or ra.meta.get("order") == RUN_ORDER
        kw = {"score_range": scale} if scale is not None else {}
        xa, (lo, hi) = question_values(va, args.metric, missing=np.nan, **kw, **_metric_params(args.metric, args))
        xb, _ = question_values(vb, args.metric, missing=np.nan, **kw, **_metric_params(args.metric, args))
        seq = SequentialCompare(lo, hi, alpha=args.alpha, until=args.until, names=(name_a, name_b), rope=args.rope,
                                metric=_metric_label(args.metric, args))
        spent = ((~np.isnan(va)).sum(axis=1), (~np.isnan(vb)).sum(axis=1))
        out.append((da, seq.update(xa, xb, samples=spent)))
    if args.format == "json":
        text = json.dumps([{"dataset": d, **st.to_dict()} for d, st in out], indent=1)
    else:
        text = "\n\n".join((f"dataset: {d}\n" if len(out) > 1 else "") + st.summary() for d, st in out)
        text += ("\nQuestions are taken in the random order bayeseval run drew for A (its outcome file lists them so)."
                 if ordered else "\nQuestions are taken in the order of A's file: this is valid when that "
                 "is the order they were run in and it was random (bayeseval run's outcomes.json lists them so).")
    _write(text, args)
    return 0


def cmd_replay(args) -> int:
    from .sequential import replay

    name_a, name_b, pairs = _paired_runs(args, rows=True)
    out = []
    for da, ra, rb in _progress(pairs, args, "replaying"):
        va, vb, scale = _aligned(ra, rb)
        kw = {"score_range": scale} if scale is not None else {}
        res = replay(va, vb, metric=args.metric, trials=args.trials, replays=args.replays, until=args.until,
                     alpha=args.alpha, seed=args.seed or 0, names=(name_a, name_b), **kw,
                     **_metric_params(args.metric, args))
        out.append((da, dataclasses.replace(res, metric=_metric_label(args.metric, args))))
    if args.format == "json":
        text = json.dumps([{"dataset": d, **r.to_dict()} for d, r in out], indent=1, default=str)
    else:
        text = "\n\n".join((f"dataset: {d}\n" if len(out) > 1 else "") + r.summary() for d, r in out)
    _write(text, args)
    return 0


def cmd_allocate(args) -> int:
    from .sequential.allocation import design, trial_values

    data = _load(args.paths, args)
    runs = list(data)
    for r in runs:
        if r.weights is not None or r.scale is not None:
            raise UsageError(f"{r.dataset}/{r.model}: allocate works on 0/1 outcomes; these are "
                             + ("scores: --threshold T counts a score above T as correct" if r.scale is not None
                                else "graded: --scores LO,HI --threshold T counts a score above T as correct"))
    keyed = {(f"{r.dataset}/{r.model}" if len(data.datasets) > 1 else r.model): r.counts() for r in runs}
    params = _metric_params(args.metric, args)
    label = _metric_label(args.metric, args)
    values = dataclasses.replace(trial_values(keyed, args.metric, prior=args.prior, **params), metric=label)
    from .targets import parse

    longest = max(64, 2 * parse(args.metric, **params).k)  # the designs considered: up to this many trials
    designs = {k: dataclasses.replace(design(c, args.metric, question_cost=args.question_cost, budget=args.budget,
                                             prior=args.prior, max_trials=longest, **params), metric=label)
               for k, c in keyed.items()}
    if args.format == "json":
        text = json.dumps({"next": values.best(args.top).to_dict("records"),
                           "design": {k: d.to_dict() for k, d in designs.items()}}, indent=1, default=str)
    else:
        text = values.summary(args.top) + "\n\n" + "\n\n".join(f"{k}: {d.summary()}" for k, d in designs.items())
    _write(text, args)
    return 0


def _credibly_worse(res) -> bool:
    """A is credibly worse than B: the comparison's own decision (one rule, :func:`bayeseval.comparison.paired.decide`)."""
    return res.decision == "B"


def _markdown_comparison(res) -> str:
    rows = res._rows()
    head = ["analysis", "estimate", "interval", "p / probability"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return res._headline() + "\n\n" + "\n".join(lines)


# --------------------------------------------------------------------------- rank / plan
def cmd_rank(args) -> int:
    _check_output(args.html)
    _check_html(args.html)
    _check_output(args.plot)
    _check_image(args.plot)
    if args.top is not None and args.top < 1:
        raise UsageError(f"--top must be at least 1, got {args.top}")
    data = _load(args.paths, args)
    ranking = _ranking(data, args, metric=args.metric)
    if args.format == "json":
        text = json.dumps(ranking.to_dict(), indent=1)
    else:
        text = _rank_text(ranking, args.top)
    _write(text, args)
    if args.plot:
        from .report import plots

        plots.rank_plot(ranking, top=args.top, save=args.plot)
        print(f"bayeseval: wrote {args.plot}", file=sys.stderr)
    if args.html:
        from .results import Evaluation

        _write_page(args, Evaluation([ranking.scores[m] for m in ranking.models]), [ranking], args.paths,
                    warnings=list(data.warnings))
    return 0


def _prob(p: float) -> str:
    """A probability from posterior draws, three decimals (:func:`bayeseval._text.fmt_prob`, the HTML page's rule):
    0 or 1 there only says "in none / every draw", so it is ``<0.001`` / ``>0.999``."""
    return fmt_prob(p, 3, drawn=True)


def _rank_text(ranking, top: int | None) -> str:
    """One line per model (rank, estimate, interval, P(best), E[rank], and the test against the next model);
    with ``--pairs all`` the pair table follows (the pairs among the models shown)."""
    from .report.tables import fmt_near, fmt_p, scale_of

    models = ranking.models[:top] if top else ranking.models
    shown = set(models)
    nxt = {p["a"]: p for p in ranking.pairs if ranking.pair_set == "adjacent"}
    adjacent = ranking.pair_set == "adjacent"
    rows = []
    for i, m in enumerate(models):
        e = ranking.scores[m]
        bound = 1.0 if scale_of(e, True) == 100.0 else None
        v = e.value if e.value is not None else e.mean
        pair = nxt.get(m)
        row = (str(i + 1), m, fmt_near(v, 4, 1.0, bound),
               f"[{fmt_near(e.lo, 4, 1.0, bound)}, {fmt_near(e.hi, 4, 1.0, bound)}]",
               _prob(ranking.p_best[m]), f"{ranking.expected_rank[m]:.2f}")
        if adjacent:
            row += ("-", "-", "-") if pair is None else (f"{pair['delta']:+.4f}", _prob(pair["p_a_better"]),
                                                         fmt_p(pair["p_holm"]))
        rows.append(row)
    k = len(ranking.models)
    which = (f".\n'vs next': the difference to the model ranked next, P(this > next) and the {ranking.test} test's "
             f"p-value, Holm-adjusted over the {len(ranking.pairs)} adjacent pairs (--pairs all: every pair)"
             if adjacent else f".\n{ranking.test.capitalize()} tests on {'all' if ranking.pair_set == 'all' else 'the'} pairs below, "
             f"adjusted over the {len(ranking.pairs)} tested")
    head = (f"{ranking.metric}, {ranking.scope} scope, {pct(ranking.level)} credible intervals; "
            + (f"the top {len(models)} of {k} models" if len(models) < k else f"{k} models") + which + ".")
    if ranking.shrink is not None:
        t = ranking.shrink
        head += (f"\n--shrink: P(best), E[rank], the differences and P(A>B) pool the models' scores (exchangeable "
                 f"normal prior, spread tau {t['median']:.3g}, 95% [{t['lo']:.3g}, {t['hi']:.3g}]); the estimates, "
                 "the order of the rows and the tests are each model's own, so a pooled P(>next) can fall below 0.5.")
    header = ("rank", "model", "estimate", f"{pct(ranking.level)} interval", "P(best)", "E[rank]")
    if adjacent:
        header += ("vs next", "P(>next)", "p Holm")
    text = head + "\n\n" + text_table(header, rows, right=[0, 2, 3, 4, 5, 6, 7, 8])
    if ranking.pair_set != "adjacent":
        place = {m: i for i, m in enumerate(ranking.models)}
        rows = []
        for p in ranking.pairs:
            if p["a"] not in shown or p["b"] not in shown:
                continue
            flip = place[p["a"]] > place[p["b"]]  # the better-ranked model first
            a, b = (p["b"], p["a"]) if flip else (p["a"], p["b"])
            d, lo, hi = (-p["delta"], -p["hi"], -p["lo"]) if flip else (p["delta"], p["lo"], p["hi"])
            pa = 1.0 - p["p_a_better"] if flip else p["p_a_better"]
            rows.append((place[a], place[b], (a, b, f"{d:+.4f}", f"[{lo:+.4f}, {hi:+.4f}]", _prob(pa),
                                              fmt_p(p["p_value"]), fmt_p(p["p_holm"]), fmt_p(p["p_bh"]))))
        rows.sort(key=lambda r: (r[0], r[1]))
        if rows:
            text += "\n\n" + text_table(ranking._PAIR_HEAD, [r[2] for r in rows], right=[2, 3, 4, 5, 6, 7])
        else:
            text += f"\n\nNo tested pair has both models among the {len(models)} shown (--top)."
    return text


def cmd_plan(args) -> int:
    from .comparison import plan

    data = _one_dataset(_load(args.paths, args), "plan")
    models = data.models
    if len(models) > 2:
        raise UsageError(f"plan takes one model or a pair; these inputs hold {models}: choose with --models A,B")
    runs = [data.run(m) for m in models]
    str_ids = not _same_id_types(runs)  # "7" in one file, 7 in another: paired as compare pairs them
    counts = [r.counts(str_ids) for r in runs]
    result = plan(*counts, alpha=args.alpha, power=args.power, level=args.level, delta=args.delta)
    who = f"{models[0]} - {models[1]}" if len(models) == 2 else models[0]
    text = json.dumps(result.to_dict(), indent=1) if args.format == "json" else f"plan for {who}\n{result.summary()}"
    _write(text, args)
    return 0


def cmd_pairwise(args) -> int:
    """Pairwise preferences: Bradley-Terry / Davidson strengths of every model, or one pair head to head."""
    from .pairwise import bradley_terry, from_wide, read_battles, win_rate

    path = args.path
    if args.judges:
        given = [flag for flag, value in (("--winner", args.winner != "winner"), ("--judge", args.judge),
                                          ("--order", args.order), ("--shown-first", args.shown_first)) if value]
        if given:
            raise UsageError(f"--judges names one verdict column per judge, so {', '.join(given)} (for a long "
                             "battle log, one row per label) does not apply; leave it out")
        judges = [c.strip() for c in args.judges.split(",") if c.strip()]
        if len(set(judges)) != len(judges):
            raise UsageError(f"--judges: a column is named twice in {args.judges!r}")

        if not str(path).endswith(".csv"):
            raise UsageError(f"{path}: --judges reads a CSV with one verdict column per judge")
        from .pairwise.data import item_column, read_records

        df = read_records(path, "verdict table")

        prefs = from_wide(df, judges,
                          item=args.item or item_column(df.columns, str(path)), model_a=args.model_a,
                          model_b=args.model_b, invalid=args.invalid)
    else:
        cols = {"model_a": args.model_a, "model_b": args.model_b, "winner": args.winner, "judge": args.judge,
                "order": args.order, "shown_first": args.shown_first, "invalid": args.invalid}
        if args.item:
            cols["item"] = args.item
        prefs = read_battles(path, **cols)
    if (args.a is None) != (args.b is None):
        raise UsageError("give both --a and --b for a head-to-head comparison, or neither for the ranking")
    if args.a is not None:
        ties = args.ties or "split"
        if ties == "davidson":
            raise UsageError("--ties davidson is for the ranking; head to head, ties are 'split' or 'exclude'")
        res = win_rate(prefs, args.a, args.b, scope=args.scope, ties=ties, level=args.level, seed=args.seed)
    else:
        res = bradley_terry(prefs, ties=args.ties or "davidson", level=args.level, seed=args.seed)
    if prefs.dropped:
        print(f"bayeseval: warning: {prefs.dropped} label(s) with an unreadable verdict left out (--invalid drop)",
              file=sys.stderr)
    if args.format in ("markdown", "latex") or args.plot:
        if args.a is not None:
            raise UsageError("--format markdown/latex and --plot show the ranking; leave out --a/--b")
    if args.format in ("markdown", "latex"):
        from .report import pairwise_table

        text = pairwise_table(res, args.format)
    else:
        text = json.dumps(res.to_dict(), indent=1) if args.format == "json" else res.summary()
    _write(text, args)
    if args.plot:
        from .report import strengths_plot

        strengths_plot(res, save=args.plot)
        print(f"bayeseval: wrote {args.plot}", file=sys.stderr)
    return 0


def cmd_classify(args) -> int:
    """Classification metrics per model from a table of (true, predicted) labels; two models: also compared."""
    from .classification import classification, compare_classifiers, file_labels
    from .pairwise.data import read_records

    path = str(args.path)
    df = read_records(path, "label table")
    if args.model is None and "model" in df.columns and "model" not in (args.true, args.pred):
        args.model = "model"  # as every other command: a 'model' column names the models (it pooled them all)
    for col in [args.true, args.pred] + ([args.model] if args.model else []) + ([args.item] if args.item else []):
        if col not in df.columns:
            raise UsageError(f"{path}: no column {col!r} (columns: {', '.join(map(str, df.columns))}); name it with "
                             "--true / --pred / --model / --item")
    # a cell that reads as a finite number is that number (1 and 1.0 one class), other text stays text
    df = df.assign(**{c: file_labels(df[c]) for c in {args.true, args.pred}})
    labels = None if args.labels is None else file_labels(_split(args.labels, "--labels", unique=False)).tolist()
    positive = None if args.positive is None else file_labels([args.positive])[0]
    named = [(args.true, "--true", "give every row its label"), (args.pred, "--pred", "give every row its label")]
    for col, flag, what in named + ([(args.model, "--model", "name the model of every row")] if args.model else []):
        empty = np.flatnonzero((df[col].isna() | (df[col].astype(str).str.strip() == "")).to_numpy())
        if empty.size:  # named by its option and rows here (the library names its argument and a position)
            raise UsageError(f"{path}: column {col!r} ({flag}) is empty in {empty.size} row(s) (data rows "
                             f"{', '.join(map(str, empty[:5]))}{', ...' if empty.size > 5 else ''}, from 0); {what}, "
                             "or leave those rows out")
    groups = [(None, df)] if not args.model else list(df.groupby(args.model, sort=False))
    results = {}
    for name, g in groups:
        try:
            results[name] = classification(g[args.true].tolist(), g[args.pred].tolist(), positive=positive,
                                           items=None if not args.item else g[args.item].tolist(), level=args.level,
                                           labels=labels)
        except ValueError as exc:
            raise _located(f"{path}" + (f", model {name!r}" if name is not None else "") + ": ", exc) from None
    comparison = None
    if args.model and args.item and len(results) == 2:
        (na, ga), (nb, gb) = ((nm, g.assign(_item=g[args.item].astype(str))) for nm, g in groups)
        for nm, g in ((na, ga), (nb, gb)):  # pairing needs one prediction per item and model: never a cross-join
            counts = g["_item"].value_counts()
            if counts.max() > 1:
                raise UsageError(f"{path}: model {nm!r} predicts item {counts.index[0]!r} {counts.iloc[0]} times "
                                 f"({int((counts > 1).sum())} items more than once); comparing two models pairs one "
                                 "prediction per item and model: keep one per item (for each model's own metrics "
                                 "with repeated predictions, run classify on that model's rows)")
        shared = len(set(ga["_item"]) & set(gb["_item"]))
        if shared == len(ga) == len(gb):
            merged = ga.merge(gb, on="_item", suffixes=("_a", "_b"), validate="one_to_one")
            differ = merged[merged[f"{args.true}_a"].astype(str) != merged[f"{args.true}_b"].astype(str)]
            if len(differ):
                first = differ.iloc[0]
                raise ValueError(f"{path}: item {first['_item']!r} has different true labels for {na!r} and {nb!r} "
                                 f"({first[f'{args.true}_a']!r} vs {first[f'{args.true}_b']!r})")
            t = merged[f"{args.true}_a"].tolist()
            comparison = compare_classifiers(t, merged[f"{args.pred}_a"].tolist(), merged[f"{args.pred}_b"].tolist(),
                                             names=(str(na), str(nb)), level=args.level)
        else:
            print(f"bayeseval: warning: models {na!r} and {nb!r} share {shared} items ({na!r} predicts {len(ga)}, "
                  f"{nb!r} {len(gb)}); no paired comparison: it needs the same items for both", file=sys.stderr)
    elif args.model and len(results) == 2:
        print("bayeseval: note: two models and no --item column: each model's metrics only; name the item column "
              "(--item) to compare them item by item", file=sys.stderr)
    if args.format == "json":
        out = {"models": {str(k): r.to_dict() for k, r in results.items()}}
        if comparison is not None:
            out["comparison"] = comparison.to_dict()
        text = json.dumps(out, indent=1)
    else:
        parts = [(f"model {k}\n" if k is not None else "") + r.summary() for k, r in results.items()]
        if comparison is not None:
            parts.append(comparison.summary())
        text = "\n\n".join(parts)
    _write(text, args)
    return 0


def cmd_rubric(args) -> int:
    """Rubric ratings (one row per item, system, judge; one column per dimension): estimates per dimension,
    constraint pass rates, correlations and judge agreement; with --a / --b, the two compared per dimension."""
    from .pairwise.data import read_records
    from .rubric import compare_rubric, rubric

    _check_output(args.output)
    _check_output(args.plot)
    _check_image(args.plot)
    if args.a is not None and (args.format in ("markdown", "latex") or args.plot):
        raise UsageError("--format markdown / latex and --plot show the per-system estimates (without --a / --b)")
    path = str(args.path)
    df = read_records(path, "rubric table")
    scale = _score_range(args.scale, "--scale")
    cols = dict(item=args.item, system=args.system, judge=args.judge, dimensions=args.dimensions, scale=scale,
                dimension=args.dimension_col, rating=args.rating_col)
    if (args.a is None) != (args.b is None):
        raise UsageError("--a and --b go together (the two systems to compare)")
    try:
        if args.a is not None:
            res = compare_rubric(df, args.a, args.b, constraints=args.require, scope=args.scope, level=args.level,
                                 seed=args.seed, **cols)
        else:
            res = rubric(df, constraints=args.require, scope=args.scope, level=args.level, seed=args.seed,
                         measurement=args.measurement, **cols)
    except ValueError as exc:
        raise _located(f"{path}: ", exc) from None
    if args.format in ("markdown", "latex"):
        from .report import tables

        text = tables.render(res.to_evaluation(), args.format, percent=False, digits=args.digits)
    else:
        text = json.dumps(res.to_dict(), indent=1, default=float) if args.format == "json" else res.summary()
    _write(text, args)
    if args.plot:
        from .report import plots

        plots.forest(res.to_evaluation(), save=args.plot)
        print(f"bayeseval: wrote {args.plot}", file=sys.stderr)
    return 0


def cmd_plot_coverage(args) -> int:
    from .report import coverage_plot, read_coverage_results

    _check_output(args.output)
    _check_image(args.output)
    if args.results is None:
        if not COVERAGE_RESULTS.exists():
            raise UsageError("no results file given, and benchmarks/results_coverage.md ships with a clone of the "
                             "repository, not with the package: pass the file (bayeseval plot-coverage FILE -o OUT)")
        args.results = str(COVERAGE_RESULTS)
    table = read_coverage_results(args.results, reps=lambda M, N: 150 if M >= 500 else 300)
    for column in ("prior", "scope", "metric"):
        wanted = getattr(args, column)
        if wanted not in set(table[column]):
            raise UsageError(f"--{column}: {wanted!r} is not in {args.results}; it has {sorted(set(table[column]))}")
        table = table[table[column] == wanted]
    coverage_plot(table, save=args.output)
    print(f"bayeseval: wrote {args.output}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------- demo
def _demo_metrics(data) -> tuple:
    """:data:`DEMO_METRICS` with k at most the fewest trials of any task (tau-bench's 4 trials: avg, pass@4,
    pass^4, maj@4); avg alone from one trial."""
    n = min(int(data.counts(m).n.min()) for m in data.names())
    if n >= 100:
        return DEMO_METRICS
    k = min(10, n)
    return ("avg",) if k < 2 else ("avg", f"pass@{k}", *((f"pass@{n}",) if n > k else ()), f"pass^{k}", f"maj@{k}")


def _demo_data(path: Path):
    """The outcome file the demo reads: one dataset of 0/1 outcomes (the demo's metrics and story are those of
    pass@k); else a usage error that names the command that reads it."""
    data = read_outcomes(path)
    if len(data.datasets) > 1:
        raise UsageError(f"{path} holds {len(data.datasets)} datasets ({', '.join(data.datasets)}); the demo shows "
                         f"one: bayeseval report {path} --datasets NAME")
    if not all(_is_binary_run(r) for r in data):
        raise UsageError(f"{path} holds graded or scored outcomes; the demo shows the metrics of 0/1 outcomes: "
                         f"bayeseval report {path}")
    return data


def _demo_rows(path: Path, level: float):
    data = _demo_data(path)
    rows = []
    for model in data.names():
        counts = data.counts(model)
        published = data.published.get(model, {})
        for metric in _demo_metrics(data):
            pop = estimate(counts, metric, scope="population", level=level, model=model)
            bench = estimate(counts, metric, scope="benchmark", level=level, model=model)
            key = "pass@1" if metric == "avg" else metric
            rows.append((model, pop.metric, pop.value, published.get(key), pop, bench))
    return data, rows


def _pct(x):
    """Percent with one decimal; a value rounding to 0 or 100 without being it keeps the digits that say so."""
    from .report.tables import fmt_near

    return "-" if x is None else fmt_near(x, 1, 100.0, top=100.0)


def _demo_comparisons(data, level: float, seed=None) -> list:
    """Each model after the first against the first (the bundled runs: CoT against IO) on every demo metric:
    :func:`bayeseval.compare` on the same tasks, population scope."""
    from .comparison import compare

    names = data.names()
    return [(b, a, compare(data.counts(b), data.counts(a), metric=metric, level=level, seed=seed, names=(b, a)))
            for a in names[:1] for b in names[1:] for metric in _demo_metrics(data)]


def _demo_story(comparisons, level: float) -> str:
    """Who is better on which metric and how sure, as a table and one sentence per pair."""
    blocks = []
    for b, a in dict.fromkeys((b, a) for b, a, _ in comparisons):
        mine = [c for bb, aa, c in comparisons if (bb, aa) == (b, a)]
        rows = [(c.metric, f"{100 * c.delta.mean:+.1f}", f"[{100 * c.delta.lo:+.1f}, {100 * c.delta.hi:+.1f}]",
                 _prob(c.p_a_better), c.verdict) for c in mine]
        header = ("metric", f"{b} - {a}", f"{pct(level)} interval", f"P({b} > {a})", "verdict")
        won = [c.metric for c in mine if c.decision == "A"]
        lost = [c.metric for c in mine if c.decision == "B"]
        open_ = [c.metric for c in mine if c.decision not in ("A", "B")]
        story = "; ".join(part for part in (
            f"{b} is better on {', '.join(won)}" if won else "",
            f"{a} is better on {', '.join(lost)}" if lost else "",
            f"no clear difference on {', '.join(open_)}" if open_ else "") if part)
        blocks.append(f"{b} against {a}, paired on the same {mine[0].M} tasks (population scope; differences in "
                      f"points of %):\n\n" + text_table(header, rows, right=[1, 2, 3]) + f"\n\nIn short: {story}.")
    return "\n\n".join(blocks) + (
        "\nP(... > ...) is the posterior probability; the verdict is the paired sign-flip test at "
        f"{pct(level, complement=True)}"
        "\n(mid-p), in the direction of the difference. 'bayeseval compare A B --data FILE' shows every analysis.")


def cmd_demo(args) -> int:
    path = Path(args.data) if args.data else DEMO_FILE
    if not path.exists():
        raise UsageError(f"demo data not found at {path}; pass --data FILE")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data, rows = _demo_rows(path, args.level)
        comparisons = _demo_comparisons(data, args.level)
    widened = [(m, name) for m, name, _, _, pop, _ in rows if pop.interval in WIDENING_METHODS]
    said = tuple(f"{m}: {name}: " for m, name in widened)
    for w in caught:  # the few-questions warnings of the widened rows are said once, on stdout beside the table
        if not (FEW_CARRYING_WORDS in str(w.message) and str(w.message).startswith(said)):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if args.format == "json":
        print(json.dumps({
            "dataset": data.dataset,
            "rows": [{"model": m, "metric": name, "value": value, "published": pub,
                      "population": pop.to_dict(), "benchmark": bench.to_dict()}
                     for m, name, value, pub, pop, bench in rows],
            "comparisons": [{"a": b, "b": a, **c.to_dict()} for b, a, c in comparisons],
        }, indent=1, default=str))
        return 0
    shown = f"{pct(args.level)}"
    print(f"{data.dataset}\nsource: {data.source}\nlicence: {data.license}\n")
    print("All numbers in %. estimate = the finite-sample value (what papers report); the intervals are")
    print(f"{shown} exact posterior intervals (default robust model) in two scopes: population = a new task from")
    print(f"the same pool, benchmark = these {rows[0][4].M} tasks held fixed (only sampling noise).")
    if widened:
        import textwrap

        rows_said = ", ".join(f"{m} {name}" for m, name in widened)
        print(textwrap.fill(f"Few tasks (or none) carry {rows_said} away from 0 or 1 (their values sit near 0 or "
                            "1 because of a handful of tasks): the population interval there is widened to "
                            "Clopper-Pearson's on the summed task scores (the default; docs/honesty.md).", 100))
    print()
    header = ("model", "metric", "estimate", "published", f"population {shown}", f"benchmark {shown}")
    table = [header] + [
        (m, name, _pct(value), _pct(pub), f"[{_pct(pop.lo)}, {_pct(pop.hi)}]", f"[{_pct(bench.lo)}, {_pct(bench.hi)}]")
        for m, name, value, pub, pop, bench in rows
    ]
    print(text_table(table[0], table[1:], right=list(range(2, len(header)))))
    n = min(int(data.counts(m).n.min()) for m in data.names())
    same = all(int(data.counts(m).n.max()) == n for m in data.names())  # ragged: pass@n is not "solved at least once"
    print("\nThe intervals are for the latent metric g(p) of each task." + (
        f" For pass@{n} with {n} samples per task,\nthe estimate counts tasks solved at least once in these samples, "
        f"while the latent pass@{n} of a\ntask never solved is small but not zero: the two answer different "
        "questions." if same and f"pass@{n}" in _demo_metrics(data) else "")
        + " A value that would\nround to 0.0 is shown with more digits (0.00092), or as <0.00001: it is small, "
          "not zero.\n")
    if comparisons:
        print(_demo_story(comparisons, args.level))
    return 0


# --------------------------------------------------------------------------- parser
def _rope(text: str):
    try:
        parts = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a half-width r or lo,hi (numbers), got {text!r}") from None
    if len(parts) not in (1, 2):
        raise argparse.ArgumentTypeError(f"expected a half-width r or lo,hi, got {text!r}")
    return parts[0] if len(parts) == 1 else tuple(parts)


def _add_pair(p) -> None:
    """A and B (files, PATH::MODEL or models of --data), the input options, --metric and --tau."""
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--data", action="append", metavar="PATH", help="read both models from this input")
    _add_input(p, many=False)
    p.add_argument("--metric", default="avg", help="metric (default avg)")
    p.add_argument("--tau", type=float, default=None, help="tau for g-pass@k")


def _add_sequential(p) -> None:
    """The stopping rule and the error level of an anytime-valid sequence (monitor, replay)."""
    p.add_argument("--until", default="decided", metavar="WORDS",
                   help="stopping rule: 'decided', 'equivalent within R', 'width W', 'N questions', 'N samples', "
                        "joined by 'or' (default decided)")
    p.add_argument("--alpha", type=_probability, default=0.05, help="error level of the sequence (default 0.05)")


def _add_input(p, many: bool = True) -> None:
    if many:
        p.add_argument("paths", nargs="+", metavar="PATH",
                       help="outcome files or tool output folders (AISBench, OpenCompass, lm-eval, inspect_ai, "
                            "long CSV/JSONL/Parquet, wide CSV, bayeseval-outcomes JSON)")
    g = p.add_argument_group("input")
    g.add_argument("--input-format", choices=FORMATS, default="auto", help="how to read the inputs (default: detect)")
    g.add_argument("--engine", choices=("auto", "duckdb", "spark", "pandas"), default="auto",
                   help="tables: count inside DuckDB (auto: for Parquet files, globs, folders of shards and URLs), "
                        "on Spark (the session spark-submit configures, else a local one), or read every row with pandas")
    g.add_argument("--models", help="comma-separated models to keep")
    g.add_argument("--datasets", help="comma-separated datasets to keep")
    for key in ("model", "question", "trial", "score", "dataset"):
        g.add_argument(f"--{key}-col", metavar="NAME", help=f"long tables: the {key} column (default '{key}')")
    g.add_argument("--model-name", metavar="NAME", help="long tables without a model column: the whole table is "
                                                          "one model, called NAME")
    g.add_argument("--regroup", choices=("auto", "yes", "no"), default=None,
                   help="AISBench: regroup replicas (3.1 grouping bug): auto-detect (default), force, or keep")
    g.add_argument("--lm-eval-metric", metavar="NAME", help="lm-eval: the per-sample metric field (e.g. exact_match)")
    g.add_argument("--lm-eval-filter", metavar="NAME", help="lm-eval: the filter (e.g. strict-match)")
    g.add_argument("--allow-truncated", action="store_true",
                   help="drop a CSV/TSV/JSONL table's cut-off last row with a warning instead of refusing the file")
    g.add_argument("--single-trial", action="store_true",
                   help="lm-eval: read a per-document value as one trial when repeats > 1 (outcomes were aggregated)")
    g.add_argument("--inspect-scorer", metavar="NAME", help="inspect_ai: the scorer to read")
    g.add_argument("--scores", nargs="?", const="0,1", default=None, metavar="LO,HI",
                   help="read the outcomes as continuous scores in [LO, HI] (default 0,1): token F1, BLEU, judge "
                        "probabilities, grades compared by their mean; metric avg (a negative LO: --scores=-5,5)")
    g.add_argument("--threshold", type=float, default=None, metavar="T",
                   help="with --scores: count a trial correct when its score > T, for 0/1 metrics (pass@k, maj@k, "
                        "...) on scores")


def _add_stats(p, *, interval: bool = True) -> None:
    g = p.add_argument_group("statistics")
    g.add_argument("--scope", choices=("population", "benchmark"), default="population",
                   help="population: questions are a sample from a pool (default); benchmark: these questions fixed")
    g.add_argument("--level", type=_level, default=0.95, help="credibility level (default 0.95)")
    if interval:
        g.add_argument("--interval", choices=ESTIMATE_INTERVALS, default=DEFAULT_INTERVAL,
                       help="interval method (default auto: exact, widened to exact+binomial where few questions (or "
                            "none) carry a population-scope metric away from the end of its range; exact: posterior "
                            "quantiles; bootstrap-t: the studentized bootstrap over questions, population scope; "
                            "exact+bootstrap-t: the wider ends of exact and bootstrap-t; exact+binomial: exact widened "
                            "to Clopper-Pearson's interval on the summed scores (their hull); exact+betting: exact "
                            "with its far end widened to the betting confidence interval)")
        g.add_argument("--prior", choices=("robust", "hierarchical", "uniform", "jeffreys", "hierarchical-dirichlet", "dirichlet"),
                       help="population model (default: robust for 0/1 outcomes, hierarchical-dirichlet for graded ones)")
    g.add_argument("--seed", type=_nonneg_int, default=None, help="seed for draws and resamples (default fixed)")
    g.add_argument("--tau", type=float, default=None, help="tau for g-pass@k")


def _add_output(p, formats) -> None:
    p.add_argument("--format", choices=formats, default=formats[0])
    p.add_argument("-o", "--output", help="write the result to this file instead of stdout")


class _Parser(argparse.ArgumentParser):
    """The CLI's contract for a bad option too: one line on stderr, exit 2 (argparse prints the whole usage)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _common() -> argparse.ArgumentParser:
    """--debug and --quiet, accepted before or after the subcommand."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks instead of one-line errors")
    common.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress bars")
    return common


def _sub(sub, name: str, help: str, description: str, examples: str):
    return sub.add_parser(name, help=help, description=description, epilog="examples:\n" + examples,
                          formatter_class=argparse.RawDescriptionHelpFormatter, parents=[_common()])


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bayeseval",
        description="Bayesian metrics with credible intervals, and model comparisons, for LLM evaluation outcomes.",
        epilog="examples:\n  bayeseval demo\n  bayeseval report outputs/default/20250628_151326 --metrics avg,pass@3\n"
               "  bayeseval compare new.csv base.csv --fail-if-worse\n  bayeseval rank runs.csv --metric pass@4\n"
               "  bayeseval plan pilot.csv\n\nexit codes: 0 success, 1 a finding you asked to fail on "
               "(--fail-if-worse), 2 bad input",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bayeseval {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks instead of one-line errors")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    sub = parser.add_subparsers(dest="command", required=True)

    rep = _sub(sub, "report", "metrics with credible intervals as a table",
               "Estimate metrics with credible intervals for every model (and dataset) in the inputs.",
               "  bayeseval report examples/data/tot_game24.json --metrics avg,pass@10,pass@100\n"
               "  bayeseval report results.csv --format latex --bold-best --baseline gpt-4o -o table.tex\n"
               "  bayeseval report outputs/default/20250628_151326 --format aisbench --metrics avg@3,pass@3,cons@3\n"
               "  bayeseval report runs.jsonl --question-col task_id --score-col reward --model-name gpt-4o "
               "--plot forest.png")
    _add_input(rep)
    rep.add_argument("--metrics", default="avg", help="comma-separated metrics, e.g. avg,pass@8,pass^4,maj@5,bayes "
                                                       "(default avg)")
    rep.add_argument("--format", choices=REPORT_FORMATS, default="terminal")
    rep.add_argument("-o", "--output", help="write the table to this file instead of stdout")
    rep.add_argument("--digits", type=_nonneg_int, default=None,
                     help="decimals shown (default: 1 in percent, 2 in AISBench tables, 3 for fractions)")
    rep.add_argument("--fraction", action="store_true", help="show fractions instead of percent")
    rep.add_argument("--bold-best", action="store_true", help="LaTeX/Markdown: bold the best model per metric")
    rep.add_argument("--baseline", help="add a difference column against this model with adjusted p-values")
    rep.add_argument("--resamples", type=_resamples, default=None,
                     help="permutation resamples of --baseline's comparisons and --html's ranking (default 10000)")
    rep.add_argument("--plot", metavar="FILE", help="save a forest plot of the estimates (png/pdf/svg)")
    rep.add_argument("--plot-pass-k", metavar="FILE", help="save pass@k curves with credible bands")
    rep.add_argument("--html", metavar="FILE", help="also write one self-contained HTML page: table, forest plot, "
                                                    "pass@k curves, ranking, warnings, provenance")
    _add_stats(rep)
    rep.set_defaults(func=cmd_report)

    cmp_ = _sub(sub, "compare", "is A better than B (paired, same questions)",
                "Compare two models on the same questions: posterior of the difference A - B, P(A > B), "
                "paired bootstrap, sign-flip permutation test, McNemar, t and Wilcoxon tests. A and B are files "
                "or folders (PATH, or PATH::MODEL when a file holds several models), or model names with --data.",
                "  bayeseval compare new.csv base.csv\n"
                "  bayeseval compare --data examples/data/tot_game24.json 'gpt-4 CoT' 'gpt-4 IO' --metric pass@10\n"
                "  bayeseval compare runs/new runs/base --rope 0.01 --fail-if-worse   # CI gate: exit 1 if worse")
    cmp_.add_argument("a", metavar="A")
    cmp_.add_argument("b", metavar="B")
    cmp_.add_argument("--data", action="append", metavar="PATH",
                      help="read both models from this input (repeat for several files)")
    _add_input(cmp_, many=False)
    cmp_.add_argument("--metric", default="avg", help="metric to compare (default avg)")
    cmp_.add_argument("--rope", type=_rope, help="region of practical equivalence: half-width r or lo,hi")
    cmp_.add_argument("--resamples", type=_resamples, default=10_000, help="bootstrap / permutation resamples")
    cmp_.add_argument("--fail-if-worse", action="store_true",
                      help="exit 1 when A is credibly worse than B (the verdict says B is better)")
    _add_output(cmp_, ("text", "markdown", "json"))
    cmp_.add_argument("--plot", metavar="FILE", help="save the posterior density of A - B")
    cmp_.add_argument("--html", metavar="FILE", help="also write the comparison as one self-contained HTML page")
    _add_stats(cmp_, interval=False)
    cmp_.set_defaults(func=cmd_compare)

    rank = _sub(sub, "rank", "rank several models with adjusted pairwise p-values",
                "Rank probabilities, P(best) and expected rank of every model, and paired tests (Holm and "
                "Benjamini-Hochberg adjusted p-values) for the models adjacent in the ranking (--pairs all: "
                "every pair).",
                "  bayeseval rank examples/data/tot_game24.json\n  bayeseval rank a.csv b.csv c.csv --metric pass@4")
    _add_input(rank)
    rank.add_argument("--metric", default="avg")
    rank.add_argument("--resamples", type=_resamples, default=10_000)
    rank.add_argument("--pairs", choices=("adjacent", "all"), default="adjacent",
                      help="which pairs get a paired test: neighbours in the ranking (default; shown on each "
                           "model's line) or all (a pair table follows)")
    rank.add_argument("--shrink", action="store_true",
                      help="partial pooling of the models' scores (three models or more): P(best), ranks, A - B and "
                           "P(A>B) under an exchangeable prior whose spread is learnt from the models; the "
                           "estimates and the tests stay each model's own")
    rank.add_argument("--top", type=_positive_int, default=None, metavar="K",
                      help="show only the K best models (text and --plot; JSON keeps every model)")
    rank.add_argument("--plot", metavar="FILE", help="save the rank plot: estimates with intervals, P(best), E[rank]")
    _add_output(rank, ("text", "json"))
    rank.add_argument("--html", metavar="FILE", help="also write the ranking as one self-contained HTML page")
    _add_stats(rank, interval=False)
    rank.set_defaults(func=cmd_rank)

    pl = _sub(sub, "plan", "how many questions and trials a study needs",
              "From pilot outcomes (one model, or a pair on the same questions): variance between and within "
              "questions, standard errors, minimum detectable effect and questions needed for a given power.",
              "  bayeseval plan pilot.csv\n  bayeseval plan examples/data/tot_game24.json --delta 0.03 --power 0.9")
    _add_input(pl)
    pl.add_argument("--alpha", type=_probability, default=0.05)
    pl.add_argument("--power", type=_probability, default=0.8)
    pl.add_argument("--level", type=_level, default=0.95)
    pl.add_argument("--delta", type=float, default=None, help="the difference you want to detect")
    _add_output(pl, ("text", "json"))
    pl.set_defaults(func=cmd_plan)

    cov = _sub(sub, "plot-coverage", "plot the coverage study (observed vs nominal coverage per cell)",
               "Plot a coverage study's results (benchmarks/results_coverage.md, written by benchmarks/coverage.py): "
               "observed coverage of each interval method per cell, with the Monte-Carlo band around the nominal level.",
               "  bayeseval plot-coverage benchmarks/results_coverage.md -o coverage.png\n"
               "  bayeseval plot-coverage benchmarks/results_coverage.md --prior uniform --metric pass@k -o u.png")
    cov.add_argument("results", nargs="?", default=None,
                     help="the study's Markdown results (default: benchmarks/results_coverage.md of a clone of the "
                          "repository)")
    cov.add_argument("-o", "--output", required=True, help="image file to write (png/pdf/svg)")
    cov.add_argument("--prior", default="hierarchical")
    cov.add_argument("--scope", default="population")
    cov.add_argument("--metric", default="avg")
    cov.set_defaults(func=cmd_plot_coverage)

    pw = _sub(sub, "pairwise", "pairwise preferences: strengths of many models, or one pair head to head",
              "Read pairwise labels (one per row: item, model_a, model_b, winner [, judge, order]; Arena / MT-Bench "
              "battle logs as CSV, JSON or JSONL; or one verdict column per judge with --judges) and report "
              "Bradley-Terry / Davidson strengths with intervals, rank probabilities and Elo-scale ratings, or with "
              "--a/--b the win rate of one model over another, P(A preferred), exact tests and position bias.",
              "  bayeseval pairwise battles.jsonl\n"
              "  bayeseval pairwise battles.csv --a gpt-4 --b claude-v1 --ties exclude\n"
              "  bayeseval pairwise examples/data/pandalm_testset_labels.csv --judges annotator1,annotator2,annotator3 "
              "--item idx --model-a model_1 --model-b model_2")
    pw.add_argument("path", metavar="PATH", help="a battle log (.csv, .json, .jsonl)")
    pw.add_argument("--item", help="item column (default: item, question_id, idx or id, whichever exists)")
    pw.add_argument("--model-a", default="model_a", help="first model's column (default model_a)")
    pw.add_argument("--model-b", default="model_b", help="second model's column (default model_b)")
    pw.add_argument("--winner", default="winner", help="verdict column (default winner)")
    pw.add_argument("--judge", help="judge column (labels of one item by several judges)")
    pw.add_argument("--judges", help="comma-separated verdict columns, one per judge (a wide CSV, e.g. PandaLM)")
    pw.add_argument("--order", help="column naming the answer shown first (model_a / model_b / a model name)")
    pw.add_argument("--shown-first", choices=("model_a",), help="model_a's answer was always shown first (Arena)")
    pw.add_argument("--invalid", choices=("raise", "drop"), default="raise",
                    help="verdicts that are not understood: an error (default) or left out")
    pw.add_argument("--a", help="head to head: this model ...")
    pw.add_argument("--b", help="... against this one")
    pw.add_argument("--ties", choices=("davidson", "split", "exclude"),
                    help="ranking: davidson (default), split or exclude; head to head: split (default) or exclude")
    pw.add_argument("--scope", choices=("population", "benchmark"), default="population")
    pw.add_argument("--level", type=_level, default=0.95)
    pw.add_argument("--seed", type=_nonneg_int, default=None)
    pw.add_argument("--plot", metavar="FILE", help="save the rank plot (Elo with intervals, P(best)) of the ranking")
    _add_output(pw, ("text", "json", "markdown", "latex"))
    pw.set_defaults(func=cmd_pairwise)

    cl = _sub(sub, "classify", "classification metrics (accuracy, F1, per class) with intervals",
              "Accuracy, balanced accuracy, micro / macro F1 and per-class precision, recall and F1 with posterior "
              "intervals from a table of true and predicted labels (one row per prediction), per model; with "
              "--model and --item and two models, also their paired comparison (McNemar, P(A more accurate)).",
              "  bayeseval classify preds.csv --true label --pred prediction\n"
              "  bayeseval classify preds.csv --true label --pred prediction --model system --item id")
    cl.add_argument("path", metavar="PATH", help="a table (.csv, .json, .jsonl), one prediction per row")
    cl.add_argument("--true", default="true", help="column of true labels (default true)")
    cl.add_argument("--pred", default="pred", help="column of predicted labels (default pred)")
    cl.add_argument("--model", help="column naming the model (one result per model; default: 'model' if the table "
                                    "has it, else one classifier)")
    cl.add_argument("--item", help="column of item ids (repeated predictions per item count through their design "
                    "effect; two models with one prediction per item each are paired by it)")
    cl.add_argument("--positive", help="the positive label of a binary task (adds its F1)")
    cl.add_argument("--labels", help="comma-separated: every class the classifier chooses from (classes absent from "
                    "the data count with support 0; needed when the data hold one class)")
    cl.add_argument("--level", type=_level, default=0.95)
    _add_output(cl, ("text", "json"))
    cl.set_defaults(func=cmd_classify)

    rb = _sub(sub, "rubric", "rubric ratings on several dimensions: estimates, pass rules, judge agreement",
              "Per system and dimension the mean rating with a credible interval (items are questions, the judges' "
              "ratings their trials; items weigh equally), the mean over items of the share of an item's ratings that "
              "pass --require, the dimensions' Spearman correlation and Krippendorff's alpha of the judges, each with "
              "an interval; with --a and --b, the two systems compared per dimension (Holm-adjusted; A - B is the "
              "observed paired difference).",
              "  bayeseval rubric ratings.csv --item doc_id --system model_id --judge annotator --scale 1,5\n"
              "  bayeseval rubric ratings.csv --require 'consistency>=4,fluency>=4' --a M22 --b M23")
    rb.add_argument("path", metavar="PATH", help="a table (.csv, .json, .jsonl), one row per (item, system, judge)")
    rb.add_argument("--item", default="item", help="item column (default item)")
    rb.add_argument("--system", default="system", help="system column (default system)")
    rb.add_argument("--judge", default="judge", help="judge column (default judge)")
    rb.add_argument("--dimensions", help="comma-separated rating columns (default: every other numeric column)")
    rb.add_argument("--dimension-col", metavar="NAME",
                    help="a long table (one row per rating): the column naming the dimension")
    rb.add_argument("--rating-col", metavar="NAME", default="rating", help="long table: the rating column")
    rb.add_argument("--scale", default="1,5", metavar="LO,HI",
                    help="the rating scale (default 1,5; a negative LO: --scale=-2,2)")
    rb.add_argument("--require", metavar="RULES", help="pass rule, e.g. 'faithfulness>=4,relevance>=3'")
    rb.add_argument("--measurement", choices=("ordinal", "interval", "nominal", "ratio"), default="ordinal",
                    help="Krippendorff's alpha: level of measurement (default ordinal)")
    rb.add_argument("--a", help="compare this system ...")
    rb.add_argument("--b", help="... with this one, per dimension")
    rb.add_argument("--scope", choices=("population", "benchmark"), default="population")
    rb.add_argument("--level", type=_level, default=0.95)
    rb.add_argument("--seed", type=_nonneg_int, default=None)
    rb.add_argument("--digits", type=_nonneg_int, default=None, help="markdown / latex: decimals (default 3)")
    rb.add_argument("--plot", metavar="FILE", help="save a forest plot, one panel per dimension (png/pdf/svg)")
    _add_output(rb, ("text", "json", "markdown", "latex"))
    rb.set_defaults(func=cmd_rubric)

    mon = _sub(sub, "monitor", "anytime-valid A vs B: look after every question, stop when it is decided",
               "A confidence sequence for the mean paired difference A - B of the metric's per-question scores "
               "(betting, Waudby-Smith & Ramdas 2024): valid at every number of questions, so a running evaluation "
               "may be checked after each question and stopped whenever a rule holds. Questions are taken in the "
               "order of A's file (their run order, which must have been random); for a bayeseval run folder, in "
               "the random order the run drew (from its run.json).",
               "  bayeseval monitor runs/new.jsonl runs/base.jsonl --until 'decided or equivalent within 0.02'\n"
               "  bayeseval monitor --data examples/data/tot_game24.json 'gpt-4 CoT' 'gpt-4 IO' --metric pass@10")
    _add_pair(mon)
    _add_sequential(mon)
    mon.add_argument("--rope", type=_rope, help="region of practical equivalence: half-width r or lo,hi")
    _add_output(mon, ("text", "json"))
    mon.set_defaults(func=cmd_monitor)

    rp = _sub(sub, "replay", "replay a finished A vs B run as if sampled live: samples a sequential study saves",
              "Draw questions at random (with replacement) and fresh trials of each, as a live study would, until "
              "the stopping rule holds; repeat --replays times. Reports the samples spent against the full data and "
              "against the fixed design with the same error rates (a paired test whose power is the sequential "
              "study's rate of the full data's decision), and the type-I error on replays with A and B swapped at "
              "random per draw.",
              "  bayeseval replay --data examples/data/tot_game24.json 'gpt-4 CoT' 'gpt-4 IO' --trials 1\n"
              "  bayeseval replay new.csv base.csv --metric pass@4 --trials 4 --replays 500")
    _add_pair(rp)
    rp.add_argument("--trials", type=_positive_int, default=1, help="trials per drawn question and model (default 1)")
    rp.add_argument("--replays", type=_positive_int, default=200, help="random replays (default 200)")
    _add_sequential(rp)
    rp.add_argument("--seed", type=_nonneg_int, default=None)
    _add_output(rp, ("text", "json"))
    rp.set_defaults(func=cmd_replay)

    al = _sub(sub, "allocate", "where the next trials do most good; new questions or more trials",
              "For each model and question, the expected drop of the metric's posterior variance from one more trial "
              "(closed form under the fitted pool), best first; and the trials per question that minimise variance per "
              "budget, with --budget the choice between more trials on these questions and new ones.",
              "  bayeseval allocate pilot.csv --metric pass@4 --question-cost 5 --budget 2000")
    _add_input(al)
    al.add_argument("--metric", default="avg", help="metric (default avg)")
    al.add_argument("--top", type=_positive_int, default=10, help="how many next trials to list (default 10)")
    al.add_argument("--question-cost", type=float, default=0.0,
                    help="cost of a new question, in trials (writing it, a container, a judge set-up; default 0)")
    al.add_argument("--budget", type=float, default=None, help="trials to spend next")
    al.add_argument("--prior", choices=("pool", "uniform"), default="pool",
                    help="question pool: the fitted mixture (default) or uniform")
    al.add_argument("--tau", type=float, default=None, help="tau for g-pass@k")
    _add_output(al, ("text", "json"))
    al.set_defaults(func=cmd_allocate)

    demo = _sub(sub, "demo", "metrics with intervals for the bundled Tree-of-Thoughts Game of 24 runs",
                "Print avg (pass@1), pass@10, pass@100, pass^10 and maj@10 with population- and "
                "benchmark-scope intervals for GPT-4 IO and CoT on Game of 24 (100 tasks x 100 samples, "
                "Yao et al. 2023), beside the published numbers.",
                "  bayeseval demo\n  bayeseval demo --format json --level 0.9")
    demo.add_argument("--data", help="a bayeseval-outcomes/1 file (default: the bundled Game of 24 runs)")
    demo.add_argument("--level", type=_level, default=0.95, help="credibility level (default 0.95)")
    demo.add_argument("--format", choices=("table", "json"), default="table")
    demo.set_defaults(func=cmd_demo)
    add_run_parser(sub, parents=[_common()])
    add_serve_parser(sub, parents=[_common()])
    return parser


#: The optional dependencies of each extra, as imported (``pip install 'bayeseval[EXTRA]'``).
EXTRAS = {"plots": ("matplotlib",), "service": ("fastapi", "uvicorn", "pydantic", "fastapi_offline"),
          "scale": ("duckdb",), "spark": ("pyspark", "ibis")}


def _needed_extras(args) -> list:
    """(extra, the option or command that needs it) for this command line."""
    need = [("plots", f"--{flag.replace('_', '-')}") for flag in ("plot", "plot_pass_k") if getattr(args, flag, None)]
    if args.command == "plot-coverage":
        need.append(("plots", "bayeseval plot-coverage"))
    if args.command == "serve":
        need.append(("service", "bayeseval serve"))
    if getattr(args, "engine", None) == "duckdb":
        need.append(("scale", "--engine duckdb"))
    if getattr(args, "engine", None) == "spark":
        need.append(("spark", "--engine spark"))
    return need


def _check_tau(args) -> None:
    """--tau is g-pass@k's parameter: given with no g-pass metric it would be ignored, so it is refused."""
    if getattr(args, "tau", None) is None:
        return
    names = getattr(args, "metrics", None) or getattr(args, "metric", None) or ""
    if not any(m.strip().lower().startswith("g-pass") for m in str(names).split(",")):
        raise UsageError(f"--tau is the threshold of g-pass@k metrics, and the metric{'s' if ',' in str(names) else ''} "
                         f"given ({names}) has none: add a g-pass@k metric (e.g. g-pass@4) or drop --tau")


def _require_extras(args) -> None:
    """Before any work: an ImportError naming the install command when an extra this command line needs is missing
    (the CLI prints it as one line and exits 2)."""
    import importlib

    for extra, what in _needed_extras(args):
        for module in EXTRAS[extra]:
            try:
                importlib.import_module(module)
            except ImportError:
                raise ImportError(f"{what} needs {module}, which is not installed: "
                                  f"pip install 'bayeseval[{extra}]'") from None


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command line, for --html's provenance
    _SHOWN.clear()
    try:
        with warnings.catch_warnings():
            if not args.debug:
                warnings.showwarning = _show_warning
            _require_extras(args)
            _check_tau(args)
            _check_output(getattr(args, "output", None))  # -o into a missing folder: before any work, every command
            _check_paths(args)
            return args.func(args)
    except BrokenPipeError:  # `bayeseval report ... | head`: the reader left; not an error
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:  # pragma: no cover
            pass
        return 0
    except Exception as exc:  # noqa: BLE001 - the CLI's contract: one line, exit 2, traceback only with --debug
        if args.debug:
            raise
        print(f"bayeseval: error: {_error_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        print("bayeseval: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
