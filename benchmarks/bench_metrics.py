#!/usr/bin/env python
"""Benchmark bayeseval against the reference implementation ``scorio.eval``.

Usage::

    python benchmarks/bench_metrics.py [--quick] [--large] [--markdown-out FILE]

Sections
--------
1. Per metric: bayeseval vs scorio on the same random matrices (shapes
   10,000 x 64 and 100,000 x 256; k = 8 and 64).  Binary metrics run on an
   int8 0/1 matrix (per-question success probability p ~ Beta(0.5, 0.5));
   categorical metrics (bayes, avg, max_at_k and their _ci) on an int8 matrix
   with values 0..2 (per-question category probabilities ~ Dirichlet(0.5,
   0.5, 0.5)) and w = [0, 0.5, 1].  Both libraries get the raw matrix ``R`` in
   each call (bayeseval counts inside the call, as scorio does).  Each cell is
   the minimum over several repeats; a call slower than ``--single-cap``
   seconds (default 20) is run once only.  ``max |diff|`` is the largest
   absolute difference between the two libraries' returned values (every
   element of the returned tuple); values > 1e-9 are flagged with ``!``.
2. All metrics together: one ``R.sum(axis=1)`` versus ``to_counts(R)`` plus
   every binary metric and _ci on the shared Counts (and the same for the
   categorical matrix with bayes/avg/max_at_k and their _ci).  The project's
   floor is all/sum < 3x.
3. (``--large``) Large k: M = 200, N = 5000 binary, k in {1000, 5000}, for the
   six _ci metrics listed in ``LARGE_METRICS``.  scorio is run once per cell
   in a forked child process, killed after ``--large-timeout`` seconds
   (default 120); once a scorio call for a metric exceeds that, the remaining
   cells of that metric are not run and reported as "> 120 s".

Timings are wall-clock (``time.perf_counter``) with the garbage collector
disabled during a call; the machine may be shared, so the minimum over the
repeats is reported.
"""

from __future__ import annotations

import argparse
import gc
import io
import math
import multiprocessing as mp
import os
import platform
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import scipy

import bayeseval
import scorio
import scorio.eval as se

SEED = 20240611
FLAG_TOL = 1e-9
TAU = 0.5  # for g_pass_at_k_tau(_ci)
W_CAT = np.array([0.0, 0.5, 1.0])

SHAPES = [(10_000, 64), (100_000, 256)]
KS = [8, 64]
LARGE_SHAPE = (200, 5000)
LARGE_KS = [1000, 5000]


# --------------------------------------------------------------------------
# output: print and keep a copy for --markdown-out
# --------------------------------------------------------------------------
class Out:
    def __init__(self) -> None:
        self.buf = io.StringIO()
        self.path: str | None = None

    def __call__(self, line: str = "") -> None:
        print(line, flush=True)
        self.buf.write(line + "\n")

    def flush_file(self) -> None:
        if self.path:
            with open(self.path, "w", encoding="utf-8") as fh:
                fh.write(self.buf.getvalue())


out = Out()


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def binary_matrix(M: int, N: int, seed: int = SEED) -> np.ndarray:
    """int8 0/1 matrix; row i has success probability p_i ~ Beta(0.5, 0.5)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.5, 0.5, size=M)
    R = np.empty((M, N), dtype=np.int8)
    step = max(1, 2_000_000 // N)  # generate in chunks to bound memory
    for a in range(0, M, step):
        b = min(M, a + step)
        R[a:b] = rng.random((b - a, N)) < p[a:b, None]
    return R


def categorical_matrix(M: int, N: int, C: int = 2, seed: int = SEED + 1) -> np.ndarray:
    """int8 matrix with values 0..C; row probabilities ~ Dirichlet(0.5, ..., 0.5)."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(C + 1, 0.5), size=M)
    cum = np.cumsum(P, axis=1)[:, :-1]  # (M, C) thresholds
    R = np.empty((M, N), dtype=np.int8)
    step = max(1, 2_000_000 // N)
    for a in range(0, M, step):
        b = min(M, a + step)
        u = rng.random((b - a, N))
        R[a:b] = (u[:, :, None] >= cum[a:b, None, :]).sum(axis=2)
    return R


# --------------------------------------------------------------------------
# metric specifications
# --------------------------------------------------------------------------
def _spectrum_weights(k: int) -> np.ndarray:
    """Uniform threshold weights w_r = 1/k, r = 1..k (sum = 1)."""
    return np.full(k, 1.0 / k)


# name -> function(k) returning the arguments after R
BINARY_BASE: list[tuple[str, Callable[[int], tuple]]] = [
    ("pass_at_k", lambda k: (k,)),
    ("pass_hat_k", lambda k: (k,)),
    ("g_pass_at_k", lambda k: (k,)),
    ("g_pass_at_k_tau", lambda k: (k, TAU)),
    ("mg_pass_at_k", lambda k: (k,)),
    ("maj_at_k", lambda k: (k,)),
    ("auc_at_k", lambda k: (k,)),
    ("threshold_spectrum_at_k", lambda k: (k, _spectrum_weights(k))),
    ("geom_at_k", lambda k: (k,)),
    ("geom_ds_at_k", lambda k: (k,)),
    ("geo_spectrum_at_k", lambda k: (k,)),
    ("geo_spectrum_star_at_k", lambda k: (k,)),
]
CAT_BASE: list[tuple[str, Callable[[int], tuple]]] = [
    ("bayes", lambda k: (W_CAT,)),
    ("avg", lambda k: (W_CAT,)),
    ("max_at_k", lambda k: (k, W_CAT)),
]


def with_ci(base):
    specs = []
    for name, args in base:
        specs.append((name, args))
        specs.append((name + "_ci", args))
    return specs


BINARY_METRICS = with_ci(BINARY_BASE)
CAT_METRICS = with_ci(CAT_BASE)
LARGE_METRICS = [
    "pass_at_k_ci",
    "maj_at_k_ci",
    "mg_pass_at_k_ci",
    "auc_at_k_ci",
    "geo_spectrum_at_k_ci",
    "threshold_spectrum_at_k_ci",
]
LARGE_ARGS = dict(with_ci(BINARY_BASE))


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------
MIN_SPENT = 0.25  # s
MAX_CALLS = 500


@dataclass
class Timing:
    best: float | None  # seconds (min over repeats); None on error / timeout
    n: int  # number of timed calls
    result: Any = None
    error: str | None = None
    timed_out: bool = False


def _call_timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc_was = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        res = fn()
        dt = time.perf_counter() - t0
    finally:
        if gc_was:
            gc.enable()
    return dt, res


class _Sampler:
    """Repeated timing of one callable; see :func:`measure` for the stopping rule."""

    def __init__(self, fn, *, min_repeats, max_repeats, budget, single_cap):
        self.fn = fn
        self.min_repeats, self.max_repeats = min_repeats, max_repeats
        self.budget, self.single_cap = budget, single_cap
        self.best = math.inf
        self.n = 0
        self.spent = 0.0
        self.result = None
        self.error: str | None = None

    def needs_more(self) -> bool:
        if self.error is not None:
            return False
        if self.n == 0:
            return True
        if self.n == 1 and self.best > self.single_cap:
            return False
        # fast calls: keep going for at least MIN_SPENT seconds (more samples
        # for the minimum, which is what is reported); slower calls stop at
        # max_repeats or once the budget is spent.
        return self.n < MAX_CALLS and (
            self.n < self.min_repeats
            or (self.spent < self.budget and (self.n < self.max_repeats or self.spent < MIN_SPENT))
        )

    def step(self) -> None:
        try:
            dt, res = _call_timed(self.fn)
        except Exception as exc:  # report, do not abort the whole benchmark
            self.error = f"{type(exc).__name__}: {exc}"
            return
        if self.n == 0:
            self.result = res
        self.best = min(self.best, dt)
        self.spent += dt
        self.n += 1

    def timing(self) -> Timing:
        if self.error is not None:
            return Timing(None, 0, error=self.error)
        return Timing(self.best, self.n, self.result)


def measure_many(fns: list[Callable[[], Any]], **kw) -> list[Timing]:
    """Time several callables, alternating their calls so that all of them
    see the same background load; each gets the minimum over its calls.

    Each callable runs at least ``min_repeats`` times and at most
    ``max_repeats`` (more, up to ``MAX_CALLS``, while its calls total less
    than ``MIN_SPENT`` seconds), stopping once ``budget`` seconds have been
    spent on it; a callable whose first call takes longer than ``single_cap``
    seconds is not repeated.
    """
    samplers = [_Sampler(fn, **kw) for fn in fns]
    gc.collect()
    while True:
        active = [s for s in samplers if s.needs_more()]
        if not active:
            break
        for s in active:
            s.step()
    return [s.timing() for s in samplers]


def measure(fn: Callable[[], Any], **kw) -> Timing:
    """Minimum wall time of ``fn()`` over several calls (see :func:`measure_many`)."""
    return measure_many([fn], **kw)[0]


def _child_run(conn, fn):
    try:
        dt, res = _call_timed(fn)
        conn.send(("ok", dt, res))
    except BaseException as exc:  # noqa: BLE001 - report anything
        conn.send(("err", None, f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def measure_once_with_timeout(fn: Callable[[], Any], timeout: float) -> Timing:
    """One call of ``fn()`` in a forked child, killed after ``timeout`` seconds."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_run, args=(child, fn), daemon=True)
    gc.collect()
    proc.start()
    child.close()
    try:
        if parent.poll(timeout):
            status, dt, payload = parent.recv()
            proc.join()
            if status == "ok":
                return Timing(dt, 1, payload)
            return Timing(None, 0, error=payload)
        # timed out: stop our own child (by its pid, through Process.terminate)
        proc.terminate()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        return Timing(None, 1, timed_out=True)
    finally:
        parent.close()


# --------------------------------------------------------------------------
# comparison / formatting
# --------------------------------------------------------------------------
def max_abs_diff(a: Any, b: Any) -> float | None:
    if a is None or b is None:
        return None
    x = np.asarray(a, dtype=float).ravel()
    y = np.asarray(b, dtype=float).ravel()
    if x.shape != y.shape:
        return math.inf
    both_nan = np.isnan(x) & np.isnan(y)
    d = np.abs(x - y)
    d[both_nan] = 0.0
    d[np.isnan(d)] = math.inf  # one NaN, the other not
    return float(d.max()) if d.size else 0.0


def fmt_ms(t: Timing, timeout: float | None = None) -> str:
    if t.timed_out:
        return f"> {timeout:.0f} s" if timeout else "timeout"
    if t.best is None:
        return f"error ({t.error})" if t.error else "n/a"
    ms = t.best * 1e3
    s = f"{ms:.3g}" if ms < 100 else f"{ms:,.0f}"
    if t.n == 1:
        s += " (1 run)"
    return s


def fmt_ratio(num: Timing, den: Timing, timeout: float | None = None) -> str:
    if num.timed_out and den.best:
        return f"> {timeout / den.best:,.0f}x" if timeout else "n/a"
    if num.best is None or den.best is None or den.best == 0:
        return "n/a"
    r = num.best / den.best
    s = f"{r:.2f}x" if r < 10 else f"{r:,.0f}x"
    if r < 1:
        s = "**" + s + "**"  # bayeseval slower
    return s


def fmt_diff(d: float | None) -> str:
    if d is None:
        return "n/a"
    s = f"{d:.1e}"
    return s + " !" if d > FLAG_TOL else s


def table_header(cols: list[str]) -> list[str]:
    return ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]


# --------------------------------------------------------------------------
# sections
# --------------------------------------------------------------------------
@dataclass
class Finding:
    section: str
    metric: str
    shape: str
    k: Any
    be: str
    sc: str
    why: str


findings: list[Finding] = []


def warm_up() -> None:
    """Call every function once on a tiny matrix (imports, lazy caches)."""
    Rb = binary_matrix(50, 64, seed=1)
    Rc = categorical_matrix(50, 64, seed=2)
    for k in KS:
        for name, args in BINARY_METRICS:
            for lib in (bayeseval, se):
                getattr(lib, name)(Rb, *args(k))
        for name, args in CAT_METRICS:
            for lib in (bayeseval, se):
                getattr(lib, name)(Rc, *args(k))


def section_per_metric(shapes, args) -> dict:
    out("## 1. Per metric: bayeseval vs scorio (raw R in every call)")
    out()
    out(
        f"bayeseval and scorio calls alternate; min over repeats (>= {args.min_repeats} calls; then up to {args.max_repeats} calls "
        f"within ~{args.budget:g} s, or more, up to {MAX_CALLS}, for calls totalling "
        f"< {MIN_SPENT:g} s); a call slower than {args.single_cap:g} s "
        "is run once (marked '(1 run)'). ratio = scorio / bayeseval "
        "(bold: bayeseval slower). max |diff| over all returned values; "
        f"'!' flags > {FLAG_TOL:g}."
    )
    out()
    kw = dict(
        min_repeats=args.min_repeats,
        max_repeats=args.max_repeats,
        budget=args.budget,
        single_cap=args.single_cap,
    )
    data = {}
    for M, N in shapes:
        t0 = time.perf_counter()
        Rb = binary_matrix(M, N)
        Rc = categorical_matrix(M, N)
        data[(M, N)] = (Rb, Rc)
        out(
            f"_data {M:,} x {N}: generated in {time.perf_counter() - t0:.1f} s; "
            f"binary mean {Rb.mean():.4f}, categorical value frequencies "
            f"{np.bincount(Rc.ravel(), minlength=3) / Rc.size}_"
        )
        out()
        for k in KS:
            for kind, R, specs in (("binary", Rb, BINARY_METRICS), ("categorical C=2", Rc, CAT_METRICS)):
                tsec = time.perf_counter()
                title = f"### {M:,} x {N}, k = {k}, {kind}"
                out(title)
                out()
                for line in table_header(["metric", "bayeseval ms", "scorio ms", "ratio", "max \\|diff\\|"]):
                    out(line)
                for name, argf in specs:
                    a = argf(k)
                    fb = getattr(bayeseval, name)
                    fs = getattr(se, name)
                    tb, ts = measure_many([lambda: fb(R, *a), lambda: fs(R, *a)], **kw)
                    d = max_abs_diff(tb.result, ts.result)
                    row = [name, fmt_ms(tb), fmt_ms(ts), fmt_ratio(ts, tb), fmt_diff(d)]
                    out("| " + " | ".join(row) + " |")
                    shape = f"{M:,} x {N}"
                    if tb.best is not None and ts.best is not None and tb.best > ts.best:
                        findings.append(Finding("1", name, shape, k, row[1], row[2], f"bayeseval slower ({row[3]})"))
                    if d is None or d > FLAG_TOL:
                        why = "values differ" if d is not None else f"error: {tb.error or ts.error}"
                        findings.append(Finding("1", name, shape, k, row[1], row[2], f"{why} ({fmt_diff(d)})"))
                out()
                out(f"_table time: {time.perf_counter() - tsec:.1f} s_")
                out()
                out.flush_file()
    return data


def section_all_together(shapes, data, args) -> None:
    out("## 2. All metrics together: one count pass shared vs one R.sum(axis=1)")
    out()
    out(
        "sum = `R.sum(axis=1)` on the int8 matrix; to_counts = `bayeseval.to_counts(R)` "
        "(categorical: `to_counts(R, w)`) alone; calls = to_counts + every metric and _ci "
        "called one by one on that Counts (binary: the 24 binary functions of section 1; categorical: "
        "bayes, avg, bayes_ci, avg_ci, max_at_k, max_at_k_ci); all_metrics = `bayeseval.all_metrics(R, k)` "
        "(categorical: `all_metrics(R, k, w=w)`), which computes the same values from one count pass "
        "with stacked payoff vectors. Min over repeats. Project floor: all_metrics/sum < 3x."
    )
    out()
    for line in table_header(["shape", "k", "matrix", "sum ms", "to_counts ms", "calls ms", "calls/sum",
                              "all_metrics ms", "all_metrics/sum", "< 3x"]):
        out(line)
    kw = dict(min_repeats=max(5, args.min_repeats), max_repeats=max(15, args.max_repeats), budget=args.budget, single_cap=args.single_cap)
    for M, N in shapes:
        Rb, Rc = data.get((M, N)) or (binary_matrix(M, N), categorical_matrix(M, N))
        for k in KS:
            bin_calls = [(getattr(bayeseval, name), argf(k)) for name, argf in BINARY_METRICS]
            cat_calls = [(getattr(bayeseval, name), argf(k)) for name, argf in CAT_METRICS]

            def all_binary(R=Rb, calls=bin_calls):
                C = bayeseval.to_counts(R)
                return [f(C, *a) for f, a in calls]

            def all_cat(R=Rc, calls=cat_calls):
                C = bayeseval.to_counts(R, W_CAT)
                return [f(C, *a) for f, a in calls]

            # sanity: shared-Counts results equal the raw-R results
            for R, fn, calls in ((Rb, all_binary, bin_calls), (Rc, all_cat, cat_calls)):
                shared = fn()
                for (f, a), v in zip(calls, shared):
                    d = max_abs_diff(v, f(R, *a))
                    if d is None or d > FLAG_TOL:
                        findings.append(Finding("2", f.__name__, f"{M:,} x {N}", k, "", "", f"Counts vs raw R differ ({d})"))

            for label, R, fn, cnt, bulk in (
                ("binary", Rb, all_binary, lambda R=Rb: bayeseval.to_counts(R),
                 lambda R=Rb, k=k: bayeseval.all_metrics(R, k)),
                ("categorical", Rc, all_cat, lambda R=Rc: bayeseval.to_counts(R, W_CAT),
                 lambda R=Rc, k=k: bayeseval.all_metrics(R, k, w=W_CAT)),
            ):
                ts, tc, ta, tb = measure_many([lambda R=R: R.sum(axis=1), cnt, fn, bulk], **kw)
                ratio = tb.best / ts.best
                row = [
                    f"{M:,} x {N}", str(k), label, f"{ts.best * 1e3:.3g}", f"{tc.best * 1e3:.3g}",
                    f"{ta.best * 1e3:.3g}", f"{ta.best / ts.best:.2f}x", f"{tb.best * 1e3:.3g}",
                    f"{ratio:.2f}x", "yes" if ratio < 3 else "**no**",
                ]
                out("| " + " | ".join(row) + " |")
                if ratio >= 3:
                    findings.append(Finding("2", f"all_metrics ({label})", f"{M:,} x {N}", k, "", "",
                                            f"all_metrics {row[7]} ms / sum {row[3]} ms = {ratio:.2f}x >= 3x"))
    out()
    out.flush_file()


def section_large(args) -> None:
    M, N = LARGE_SHAPE
    tmo = args.large_timeout
    out(f"## 3. Large k: {M} x {N} binary, k in {LARGE_KS}")
    out()
    out(
        f"bayeseval: min over repeats. scorio: one call per cell in a forked child, "
        f"stopped after {tmo:g} s; once a scorio call exceeds {tmo:g} s the remaining "
        "cells of that metric are not run. ratio = scorio / bayeseval."
    )
    out()
    R = binary_matrix(M, N, seed=SEED + 2)
    kw = dict(min_repeats=args.min_repeats, max_repeats=args.max_repeats, budget=args.budget, single_cap=args.single_cap)
    for line in table_header(["metric", "k", "bayeseval ms", "scorio ms", "ratio", "max \\|diff\\|"]):
        out(line)
    for name in LARGE_METRICS:
        argf = LARGE_ARGS[name]
        stopped_at: int | None = None
        for k in LARGE_KS:
            a = argf(k)
            fb = getattr(bayeseval, name)
            fs = getattr(se, name)
            tb = measure(lambda: fb(R, *a), **kw)
            if stopped_at is not None:
                row = [name, str(k), fmt_ms(tb), f"> {tmo:.0f} s (not run; k={stopped_at} exceeded)", "n/a", "n/a"]
                out("| " + " | ".join(row) + " |")
                out.flush_file()
                continue
            ts = measure_once_with_timeout(lambda: fs(R, *a), tmo)
            if ts.timed_out:
                stopped_at = k
            d = max_abs_diff(tb.result, ts.result)
            row = [name, str(k), fmt_ms(tb), fmt_ms(ts, tmo), fmt_ratio(ts, tb, tmo), fmt_diff(d)]
            out("| " + " | ".join(row) + " |")
            out.flush_file()
            shape = f"{M} x {N}"
            if tb.best is not None and ts.best is not None and tb.best > ts.best:
                findings.append(Finding("3", name, shape, k, row[2], row[3], "bayeseval slower"))
            if d is not None and d > FLAG_TOL:
                findings.append(Finding("3", name, shape, k, row[2], row[3], f"values differ ({fmt_diff(d)})"))
            if tb.error or ts.error:
                findings.append(Finding("3", name, shape, k, row[2], row[3], f"error: {tb.error or ts.error}"))
    out()


# --------------------------------------------------------------------------
def environment() -> None:
    out("# bayeseval vs scorio.eval: metric benchmarks")
    out()
    out(f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    out(f"- python: {platform.python_version()} ({platform.python_implementation()}), {platform.platform()}")
    out(f"- numpy: {np.__version__}, scipy: {scipy.__version__}")
    out(f"- scorio: {getattr(scorio, '__version__', '?')}, bayeseval: {bayeseval.__version__}")
    try:
        aff = len(os.sched_getaffinity(0))
    except AttributeError:
        aff = None
    out(f"- CPUs: os.cpu_count() = {os.cpu_count()}, usable = {aff}")
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        out(f"- load average at start: {load}")
    except OSError:
        pass
    threads = {v: os.environ[v] for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS") if v in os.environ}
    if threads:
        out(f"- thread env: {threads}")
    out(f"- command: {' '.join([os.path.basename(sys.executable)] + sys.argv)}")
    out(f"- data seed: {SEED}; binary p ~ Beta(0.5, 0.5); categorical C=2, w = {W_CAT.tolist()}; "
        f"g_pass_at_k_tau tau = {TAU}; threshold_spectrum weights = 1/k each")
    out()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the 10,000 x 64 shape (smoke run)")
    ap.add_argument("--large", action="store_true", help="also run section 3 (large k, M=200, N=5000)")
    ap.add_argument("--large-only", action="store_true", help="run only section 3")
    ap.add_argument("--markdown-out", metavar="FILE", help="also write the output (markdown) to FILE")
    ap.add_argument("--min-repeats", type=int, default=3)
    ap.add_argument("--max-repeats", type=int, default=9)
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per cell before repeats stop (after --min-repeats)")
    ap.add_argument("--single-cap", type=float, default=20.0, help="a first call slower than this (s) is not repeated")
    ap.add_argument("--large-timeout", type=float, default=120.0, help="per-call scorio cap in section 3 (s)")
    args = ap.parse_args(argv)
    out.path = args.markdown_out

    t_start = time.perf_counter()
    environment()
    shapes = SHAPES[:1] if args.quick else SHAPES
    section_times = []
    if not args.large_only:
        t0 = time.perf_counter()
        warm_up()
        data = section_per_metric(shapes, args)
        section_times.append(("1. per metric", time.perf_counter() - t0))
        t0 = time.perf_counter()
        section_all_together(shapes, data, args)
        section_times.append(("2. all metrics together", time.perf_counter() - t0))
        del data
    if args.large or args.large_only:
        t0 = time.perf_counter()
        section_large(args)
        section_times.append(("3. large k", time.perf_counter() - t0))

    out("## Summary")
    out()
    out("Section runtimes:")
    out()
    for label, dt in section_times:
        out(f"- {label}: {dt:.0f} s ({dt / 60:.1f} min)")
    out(f"- total: {time.perf_counter() - t_start:.0f} s")
    out()
    if findings:
        out("Flagged (bayeseval slower than scorio, values differ > 1e-9, errors, or all/sum >= 3x):")
        out()
        for line in table_header(["section", "metric", "shape", "k", "bayeseval ms", "scorio ms", "note"]):
            out(line)
        for f in findings:
            out(f"| {f.section} | {f.metric} | {f.shape} | {f.k} | {f.be} | {f.sc} | {f.why} |")
    else:
        out("Nothing flagged: bayeseval was never slower, all values agree within 1e-9, all/sum < 3x.")
    out()
    out.flush_file()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        out.flush_file()
        raise
    except Exception:
        traceback.print_exc()
        out.flush_file()
        raise
