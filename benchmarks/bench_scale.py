"""Counting at scale: ``count_table`` (DuckDB) against DuckDB's own GROUP BY and the pandas reader.

Two sections, every measurement in a fresh subprocess (so each peak memory belongs to one method: the
process's peak resident set size as the kernel accounts it, read with ``/usr/bin/time -f %M``):

1. A Parquet file of 4 models x 200,000 questions x 16 trials (12.8M rows; columns model text, question
   int, trial int, score 0/1 int), written by DuckDB ``COPY (SELECT ... FROM range(n)) TO ... (FORMAT
   parquet)``; each question has a difficulty ``u`` (a hash of the question, uniform on (0, 1)) and model
   ``m`` succeeds on a trial when a hash of the row (uniform) is below ``u ** a_m``, ``a_m`` from 1.6 down
   to 0.5 (deterministic: the same file on every run).  Methods, each best (and median) of
   ``--repeats`` fresh processes ((a) and (b) in turn, ``--pair-repeats`` rounds):

   (a) DuckDB's own ``SELECT model, question, sum(score) AS correct, count(*) AS trials FROM
       read_parquet(f) GROUP BY ALL`` fetched to numpy (the floor count_table is held to: at most 1.5x);
   (b) ``bayeseval.io.scale.count_table(f)`` (peak memory floor: under 1 GB);
   (c) ``bayeseval.io.read_long(f)`` (pandas, every row);
   (d) ``bayeseval.evaluate(counts, ["avg", "pass@8"])`` on the result of (b) (only evaluate is timed);
   and the CLI end to end, ``bayeseval report FILE --metrics avg,pass@8 --engine duckdb|pandas``
   (whole process: start-up, load and report).

2. One billion rows: 16 checkpoints x 2,000,000 questions x 32 trials (1.024e9 rows), one Parquet file
   per checkpoint (``part-NN.parquet``, written one at a time by DuckDB COPY from ``range()``).  The first 4
   files (2.56e8 rows) are written and counted first, by ``count_table('<dir>/*.parquet')`` and by the same
   raw GROUP BY as (a) over the glob; the other 12 are written and everything is counted again only if
   the 2.56e8 timings say the whole section fits in ``--budget`` minutes.  The pandas reader is not run
   at this size (its bytes per row, measured in section 1, say why).

All generated data lives under /tmp/bench_scale/ and is deleted at the end, also on failure.  The timings
are warm: the files were just written, so they are in the page cache.

    python benchmarks/bench_scale.py --out benchmarks/results_scale.md   # both sections, ~11 min (2 cores)
    python benchmarks/bench_scale.py --quick                              # small sizes, ~1 min
    python benchmarks/bench_scale.py --skip-big                           # section 1 only
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import finish  # noqa: E402

DATA_ROOT = Path("/tmp/bench_scale")
RAW_SQL = ("SELECT model, question, sum(score) AS correct, count(*) AS trials FROM read_parquet({src}) "
           "GROUP BY ALL")
METRICS = ["avg", "pass@8"]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- data
def _rows_sql(models: int, questions: int, trials: int, model_offset: int, total_models: int) -> str:
    """One row per (model, question, trial), models ``model_offset ..``; deterministic 0/1 outcomes."""
    qt = questions * trials
    m = f"({model_offset} + i // {qt})"
    q = f"((i // {trials}) % {questions})"
    slope = 1.1 / max(total_models - 1, 1)
    u = f"(((hash({q}, 11) % 1000000) + 0.5) / 1e6)"  # question difficulty, uniform on (0, 1)
    r = f"(((hash({m} * {qt} + i, 7) % 1000000) + 0.5) / 1e6)"  # the trial's own draw
    name = "'ckpt_' || lpad({m}::VARCHAR, 2, '0')".format(m=m) if total_models > 4 else f"'model_' || {m}::VARCHAR"
    return (f"SELECT {name} AS model, {q}::INTEGER AS question, (i % {trials})::INTEGER AS trial, "
            f"({r} < pow({u}, 1.6 - {slope} * {m}))::INTEGER AS score FROM range({models * qt}) r(i)")


def write_parquet(path: Path, models: int, questions: int, trials: int, model_offset: int = 0,
                  total_models: int | None = None) -> float:
    import duckdb

    t0 = time.perf_counter()
    con = duckdb.connect()
    con.execute(f"COPY ({_rows_sql(models, questions, trials, model_offset, total_models or models)}) "
                f"TO '{path}' (FORMAT parquet)")
    con.close()
    return time.perf_counter() - t0


def cpu_snapshot() -> tuple[float, float, float]:
    """(wall, machine-wide busy CPU seconds from /proc/stat, CPU seconds of this script and its children)."""
    import resource

    with open("/proc/stat") as fh:
        f = [int(x) for x in fh.readline().split()[1:]]
    busy = (sum(f) - f[3] - (f[4] if len(f) > 4 else 0)) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter(), busy, me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def disk_bytes(paths) -> tuple[int, int]:
    """(file sizes, blocks allocated) in bytes."""
    size = blocks = 0
    for p in paths:
        st = os.stat(p)
        size += st.st_size
        blocks += st.st_blocks * 512
    return size, blocks


# ----------------------------------------------------------------------------- one measurement (child side)
def child(method: str, src: str) -> None:
    import resource
    import warnings

    import duckdb
    import numpy as np

    # each method imports what it needs (the peak memory of the raw query is not charged for pandas)
    if method in ("count", "evaluate", "stages"):
        from bayeseval.io.scale import count_table
    if method == "pandas":
        from bayeseval.io import read_long
    if method == "evaluate":
        import bayeseval

    def peak_mb() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    def totals(outcomes) -> dict:
        succ = trials = cells = 0
        for run in outcomes:
            c = run.counts()
            succ += int(c.table[:, 1].sum())
            trials += int(c.table.sum())
            cells += int(c.table.shape[0])
        return {"successes": succ, "trials": trials, "cells": cells, "runs": len(outcomes)}

    def cpu() -> float:
        ru = resource.getrusage(resource.RUSAGE_SELF)  # every thread of the process (DuckDB's included)
        return ru.ru_utime + ru.ru_stime

    def timed(fn):
        """fn() -> its result; its wall and CPU seconds go into ``out`` (the checks after it are not timed)."""
        c0, t0 = cpu(), time.perf_counter()
        r = fn()
        out["seconds"], out["cpu_seconds"] = time.perf_counter() - t0, cpu() - c0
        return r

    src_sql = "'" + src.replace("'", "''") + "'"
    out: dict = {"method": method, "rss_after_imports_mb": peak_mb()}
    out["scale_py"] = _scale_hash() if method != "raw" else None
    if method == "raw":
        t0 = time.perf_counter()
        con = duckdb.connect()  # timed apart: count_table opens its own connection inside its call
        out["connect_seconds"] = time.perf_counter() - t0
        res = timed(lambda: con.execute(RAW_SQL.format(src=src_sql)).fetchnumpy())
        out["check"] = {"successes": int(np.asarray(res["correct"]).sum()), "trials": int(np.asarray(res["trials"]).sum()),
                        "cells": int(len(res["question"])), "runs": int(len(np.unique(res["model"])))}
    elif method == "count":
        res = timed(lambda: count_table(src))
        out["check"] = totals(res)
    elif method == "pandas":
        res = timed(lambda: read_long(src))
        out["check"] = totals(res)
    elif method == "evaluate":
        res = count_table(src)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ev = timed(lambda: bayeseval.evaluate(res, METRICS))
        out["warnings"] = sorted({str(w.message).split(";")[0] for w in caught})
        out["values"] = {f"{e.model}/{e.metric}": round(float(e.mean), 6) for e in ev}
        out["check"] = totals(res)
    elif method == "stages":  # count_table once, every query it sends to DuckDB timed (a proxy connection)
        import bayeseval.io.scale as scale

        log_: list = []

        class Cur:
            def __init__(self, cur, sql, t):
                self._cur, self._sql, self._t = cur, sql, t

            def _done(self, fn, *a):
                t0 = time.perf_counter()
                r = getattr(self._cur, fn)(*a)
                log_.append((self._sql, self._t + time.perf_counter() - t0))
                return r

            def fetchone(self):
                return self._done("fetchone")

            def fetchall(self):
                return self._done("fetchall")

            def fetchnumpy(self):
                return self._done("fetchnumpy")

            def to_arrow_table(self, *a):
                return self._done("to_arrow_table", *a)

        class Con:
            def __init__(self, con):
                self._con = con

            def execute(self, sql, *a):
                t0 = time.perf_counter()
                cur = self._con.execute(sql, *a)
                t = time.perf_counter() - t0
                if sql.startswith("CREATE"):
                    log_.append((sql, t))
                return Cur(cur, sql, t)

            def sql(self, sql):  # a relation: bound here, run by its to_arrow_table()
                t0 = time.perf_counter()
                rel = self._con.sql(sql)
                return Cur(rel, sql, time.perf_counter() - t0)

            def cursor(self):
                return Con(self._con.cursor())

            def __getattr__(self, name):
                return getattr(self._con, name)

        class Mod:
            DuckDBPyRelation = duckdb.DuckDBPyRelation
            Error = duckdb.Error
            __version__ = duckdb.__version__

            @staticmethod
            def connect(*a, **k):
                t0 = time.perf_counter()
                con = duckdb.connect(*a, **k)
                log_.append(("CONNECT", time.perf_counter() - t0))
                return Con(con)

        scale._DB.clear()  # the first count of a process opens its database: timed like every other stage
        scale._duckdb = lambda: Mod
        res = timed(lambda: count_table(src))
        stages: dict = {}
        for sql, t in log_:
            key = _stage_name(sql)
            n, s = stages.get(key, (0, 0.0))
            stages[key] = (n + 1, s + t)
        out["stages"] = stages
        out["check"] = totals(res)
    else:
        raise SystemExit(f"unknown method {method}")
    out["rss_self_peak_mb"] = peak_mb()
    print(json.dumps(out))


def _scale_hash() -> str:
    """A short hash of the bayeseval/io/scale.py this process imported (the library may change between runs)."""
    import hashlib

    import bayeseval.io.scale as scale

    return hashlib.sha256(Path(scale.__file__).read_bytes()).hexdigest()[:12]


def _stage_name(sql: str) -> str:
    s = " ".join(sql.split())
    if s == "CONNECT":
        return "open the process's in-memory database (first count only; later counts take a cursor)"
    if s.startswith("SELECT file_name, name, type FROM parquet_schema"):
        return "schema check (parquet_schema)"
    if s.startswith("DESCRIBE"):
        return "columns (DESCRIBE)"
    if "parquet_metadata" in s:
        return "0/1 and trial-range check (parquet_metadata statistics)"
    if "GROUP BY ALL" in s and "max(" in s:
        return "the one counting query (counts + trial aggregates, GROUP BY) -> Arrow"
    if "GROUP BY ALL" in s:
        return "the one counting query (GROUP BY) -> Arrow"
    return s[:60].replace("|", "\\|")


# ----------------------------------------------------------------------------- measurements (parent side)
def run_process(cmd: list[str], timeout: float, env: dict | None = None) -> dict:
    """Run a command in a fresh process under ``/usr/bin/time``: its wall time from outside, its peak RSS as
    GNU time reports it (``%M``: the kernel's ``ru_maxrss`` of that one process), its output (through files:
    no pipe to fill).

    Why the detour through ``/usr/bin/time``: on Linux a process's ``ru_maxrss`` starts at the peak of the
    process it was forked from (the pre-exec address space counts), so a child started straight from this
    script, which holds DuckDB and the data writer, would inherit this script's peak as its floor; the small
    ``time`` program in between keeps that floor at a few MB."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r", suffix=".time") as tf:
        t0 = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M %U %S", "-o", tf.name, *cmd], stdout=out, stderr=err,
                                env=env, cwd=str(ROOT), start_new_session=True)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)  # the command too, not only time
            proc.wait()
            return {"error": f"killed after {timeout:.0f} s"}
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
        timing = tf.read().strip().splitlines()
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}: {stderr[-1500:]}"}
    kb, user, system = timing[-1].split()
    return {"process_wall": wall, "peak_mb_time": int(kb) / 1024, "process_cpu": float(user) + float(system),
            "stdout": stdout}


def measure(method: str, src: str, timeout: float) -> dict:
    """One fresh process running one method: its JSON answer, wall time and peak RSS."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", method, src]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "PYTHONWARNINGS": "ignore"}
    r = run_process(cmd, timeout, env)
    if "error" in r:
        return {"method": method, **r}
    out = json.loads(r["stdout"].strip().splitlines()[-1])
    out["process_wall"] = r["process_wall"]
    out["peak_mb"] = r["peak_mb_time"]  # the same figure as the child's own RUSAGE_SELF (kept as a cross-check)
    return out


def summarize(runs: list[dict]) -> dict:
    secs = [r["seconds"] for r in runs]
    return {"best": min(secs), "median": statistics.median(secs), "peak_mb": max(r["peak_mb"] for r in runs),
            "cpu": statistics.median(r["cpu_seconds"] for r in runs),
            "base_mb": statistics.median(r["rss_after_imports_mb"] for r in runs), "check": runs[-1]["check"],
            "n": len(runs), "last": runs[-1], "runs": runs}


def interleaved(methods: dict, src: str, n: int, timeout: float) -> dict:
    """``n`` rounds, each method once per round (A B A B ...: a drift in the machine's speed hits all of
    them alike) -> per method: best, median, peak and the runs; ``ratios``: the per-round ratios of the
    second method to the first."""
    runs: dict = {k: [] for k in methods}
    for i in range(n):
        for key, (method, label) in methods.items():
            r = measure(method, src, timeout)
            if "error" in r:
                log(f"  {label} run {i + 1}: ERROR {r['error'][:300]}")
                return {k: ({"error": r["error"]} if k == key or not runs[k] else summarize(runs[k])) for k in methods}
            log(f"  {label} run {i + 1}/{n}: {r['seconds']:.3f} s (CPU {r['cpu_seconds']:.2f} s), peak RSS "
                f"{r['peak_mb']:.0f} MB (the child's own count: {r['rss_self_peak_mb']:.0f} MB)")
            runs[key].append(r)
    out = {k: summarize(v) for k, v in runs.items()}
    if len(methods) == 2:
        a, b = list(methods)
        out["ratios"] = [rb["seconds"] / ra["seconds"] for ra, rb in zip(runs[a], runs[b])]
    return out


def repeat(method: str, src: str, n: int, timeout: float, label: str) -> dict:
    return interleaved({"x": (method, label)}, src, n, timeout)["x"]


def fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def row(name: str, r: dict, rows: int | None = None) -> str:
    if "error" in r:
        return f"| {name} | failed: {r['error'][:200]} | | | | | |"
    rate = f"{rows / r['best'] / 1e6:,.1f}" if rows else ""
    return (f"| {name} | {fmt_s(r['best'])} | {fmt_s(r['median'])} | {r['cpu']:.2f} | {r['n']} | {rate} "
            f"| {r['peak_mb']:,.0f} | {r['base_mb']:,.0f} |")


HEAD = ["| method | best s | median s | CPU s (median) | runs | M rows/s (best) | peak RSS MB | RSS after imports MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|"]


def stages_table(st: dict) -> list[str]:
    if "error" in st:
        return [f"stage breakdown failed: {st['error'][:300]}"]
    lines = [f"count_table stage breakdown (one run, {fmt_s(st['seconds'])} s in all; each query's execute + fetch):", "",
             "| stage | queries | seconds |", "|---|---:|---:|"]
    for k, (n, s) in sorted(st["stages"].items(), key=lambda kv: -kv[1][1]):
        lines.append(f"| {k} | {n} | {s:.3f} |")
    rest = st["seconds"] - sum(s for _, s in st["stages"].values())
    lines.append(f"| Python around the queries (Arrow -> numpy, the checks, sort, Counts) | | {rest:.3f} |")
    return lines


def checks_agree(*rs: dict) -> str:
    got = [r.get("check") for r in rs if "check" in r]
    keys = ("successes", "trials", "cells")
    if not got:
        return "no result to compare"
    ref = {k: got[0][k] for k in keys}
    same = all({k: g[k] for k in keys} == ref for g in got)
    return (f"{'yes' if same else 'NO'}: {ref['trials']:,} trials, {ref['successes']:,} successes, {ref['cells']:,} "
            f"(model, question) cells" + ("" if same else f"; got {got}"))


# ----------------------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", metavar="FILE", help="also write the Markdown report to FILE")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--repeats", type=int, default=3, help="fresh processes per method in section 1")
    ap.add_argument("--pair-repeats", type=int, default=5, help="rounds of (a), (b) in turn in section 1")
    ap.add_argument("--big-repeats", type=int, default=3, help="fresh processes per method in section 2 (fewer at the "
                    "full size if the budget says so)")
    ap.add_argument("--budget", type=float, default=25.0, help="minutes section 2 may take (writing included)")
    ap.add_argument("--skip-big", action="store_true", help="section 1 only")
    ap.add_argument("--child", nargs=2, metavar=("METHOD", "SRC"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0

    import duckdb
    import pandas
    import pyarrow

    t_start = time.perf_counter()
    load0 = os.getloadavg()
    scale_start = _scale_hash()
    snap0 = cpu_snapshot()
    M1, Q1, T1 = (4, 20_000, 16) if args.quick else (4, 200_000, 16)
    M2, Q2, T2, STEP = (16, 100_000, 32, 4) if args.quick else (16, 2_000_000, 32, 4)
    n1 = M1 * Q1 * T1
    DATA_ROOT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=DATA_ROOT))
    log(f"data under {work}")
    lines: list[str] = []
    sec1: dict = {}
    sec2: dict = {"sizes": []}
    try:
        # ---------------------------------------------------------------- section 1
        f = work / "long.parquet"
        gen1 = write_parquet(f, M1, Q1, T1)
        size1, _ = disk_bytes([f])
        log(f"section 1: wrote {n1:,} rows ({size1 / 1e6:.1f} MB) in {gen1:.1f} s")
        t_child = 600.0
        log("section 1: (a) DuckDB GROUP BY and (b) count_table, in turn")
        sec1.update(interleaved({"a": ("raw", "(a) DuckDB GROUP BY"), "b": ("count", "(b) count_table")}, str(f),
                                args.pair_repeats, t_child))
        for key, method, label in (("c", "pandas", "(c) read_long"), ("d", "evaluate", "(d) evaluate")):
            log(f"section 1: {label}")
            sec1[key] = repeat(method, str(f), args.repeats, t_child, label)
        log("section 1: count_table stage breakdown")
        sec1["stages"] = measure("stages", str(f), t_child)
        cli = str(Path(sys.executable).parent / "bayeseval")
        for engine in ("duckdb", "pandas"):
            runs = []
            for i in range(args.repeats):
                r = run_process([cli, "report", str(f), "--metrics", ",".join(METRICS), "--engine", engine], t_child)
                if "error" in r:
                    log(f"  CLI {engine}: ERROR {r['error'][:300]}")
                    break
                log(f"  CLI --engine {engine} run {i + 1}: {r['process_wall']:.2f} s, peak RSS {r['peak_mb_time']:.0f} MB")
                runs.append(r)
            sec1["cli_" + engine] = runs

        # ---------------------------------------------------------------- section 2
        if not args.skip_big:
            big = work / "big"
            big.mkdir()
            glob = str(big / "*.parquet")
            t2 = time.perf_counter()
            gen_times: list[float] = []

            def write_parts(lo: int, hi: int) -> None:
                for m in range(lo, hi):
                    gen_times.append(write_parquet(big / f"part-{m:02d}.parquet", 1, Q2, T2, m, M2))
                    log(f"section 2: wrote part-{m:02d}.parquet ({Q2 * T2:,} rows) in {gen_times[-1]:.1f} s")

            reps = args.big_repeats
            for step_models in (STEP, M2):
                rows = step_models * Q2 * T2
                write_parts(len(gen_times), step_models)
                files = sorted(big.glob("*.parquet"))
                size, blocks = disk_bytes(files)
                log(f"section 2: {rows:,} rows in {len(files)} files, {size / 1e9:.2f} GB; counting")
                entry = {"rows": rows, "models": step_models, "files": len(files), "bytes": size, "blocks": blocks,
                         "write_s": sum(gen_times)}
                t_child = max(600.0, args.budget * 60 - (time.perf_counter() - t2))
                entry.update(interleaved({"a": ("raw", f"DuckDB GROUP BY {rows:,}"),
                                          "b": ("count", f"count_table {rows:,}")}, glob, reps, t_child))
                sec2["sizes"].append(entry)
                if step_models == M2 or "error" in entry["a"] or "error" in entry["b"]:
                    break
                # does the full size fit? writing scales with rows; counting at least with rows (cells grow too)
                per_file = statistics.median(gen_times)
                factor = M2 / step_models
                count_s = sum(e["last"]["process_wall"] for e in (entry["a"], entry["b"]))  # one run of each
                remaining = args.budget * 60 - (time.perf_counter() - t2)
                for reps in range(args.big_repeats, 0, -1):  # as many repeats as fit (1.5x margin on the counting)
                    predicted = per_file * (M2 - step_models) + 1.5 * factor * count_s * (reps + 1) + 60
                    if predicted <= remaining:
                        break
                sec2["prediction"] = (predicted, remaining, reps)
                log(f"section 2: full size with {reps} run(s) per method predicted {predicted / 60:.1f} min, "
                    f"{remaining / 60:.1f} min left in the budget")
                if predicted > remaining:
                    sec2["skipped_full"] = True
                    break
            sec2["stages"] = measure("stages", glob, max(600.0, args.budget * 60 - (time.perf_counter() - t2)))
            log("section 2: stage breakdown done")
            sec2["seconds"] = time.perf_counter() - t2
    finally:
        shutil.rmtree(work, ignore_errors=True)
        try:
            DATA_ROOT.rmdir()  # only if nothing else is left there
        except OSError:
            pass
        log(f"deleted {work}")

    # -------------------------------------------------------------------- report
    total = time.perf_counter() - t_start
    snap1 = cpu_snapshot()
    others = (snap1[1] - snap0[1]) - (snap1[2] - snap0[2])
    avail = (snap1[0] - snap0[0]) * os.cpu_count()
    cmd = "python benchmarks/bench_scale.py " + " ".join(argv if argv is not None else sys.argv[1:])
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    a, b, c, d = (sec1[k] for k in "abcd")
    a_conn = dict(a)
    if "error" not in a:
        with_conn = [r["seconds"] + r["connect_seconds"] for r in a["runs"]]
        a_conn.update(best=min(with_conn), median=statistics.median(with_conn))
    seen: dict = {}
    for part in [sec1[k] for k in "abcd"] + [e[k] for e in sec2["sizes"] for k in "ab"]:
        for r in part.get("runs", []):
            if r["scale_py"] is None:
                continue
            seen[r["scale_py"]] = seen.get(r["scale_py"], 0) + 1
    scale_end = _scale_hash()
    versions = (f"`bayeseval/io/scale.py` sha256 {scale_start}, unchanged during the run" if set(seen) | {scale_end} == {scale_start}
                else f"**`bayeseval/io/scale.py` changed during the run** (edited by someone else): sha256 at the start "
                     f"{scale_start}, at the end {scale_end}; measured processes by version: "
                     + ", ".join(f"{h}: {n}" for h, n in seen.items()))
    lines += [
        "# Counting at scale: count_table against DuckDB's GROUP BY and the pandas reader",
        "",
        f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; total run time {total / 60:.1f} min",
        f"- machine: {os.cpu_count()} cores ({cpu}), {mem_gb:.0f} GiB RAM; load average "
        f"(1, 5, 15 min) at start {', '.join(f'{x:.2f}' for x in load0)}, at the end "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} (the machine is shared with another user's tests); other processes used {max(others, 0):,.0f} "
        f"CPU-seconds during the run, {max(others, 0) / avail:.0%} of the {os.cpu_count()} cores' capacity "
        "(`/proc/stat` busy time minus this benchmark's own)",
        f"- python {platform.python_version()}, DuckDB {duckdb.__version__} (default settings: "
        f"{os.cpu_count()} threads, memory limit 80% of RAM), pandas {pandas.__version__}, pyarrow {pyarrow.__version__}",
        f"- command: `{cmd.strip()}`",
        f"- library: bayeseval at {ROOT} (uncommitted working tree); {versions}",
        "- every figure is one fresh Python process per run: `seconds` is the method's own call (imports and "
        "start-up excluded), timed inside the process; `peak RSS` is the process's peak resident set size as "
        "the kernel accounts it for that one process (`/usr/bin/time -f %M`, i.e. its `ru_maxrss`; the "
        "child's own `getrusage(RUSAGE_SELF)` agrees): imports included (each process imports only what its method needs: "
        "the raw query duckdb and numpy, count_table `bayeseval.io.scale`, the pandas reader `bayeseval.io`), so "
        "the next column gives the peak right after the imports; data in the page cache (just written)",
        "",
        f"## 1. {n1 / 1e6:.1f}M rows: {M1} models x {Q1:,} questions x {T1} trials, one Parquet file",
        "",
        f"(a) and (b) ran in turn, {args.pair_repeats} rounds of fresh processes; (c), (d) {args.repeats} fresh processes "
        "each. `CPU s` is user + system time of the call (all threads), less disturbed than wall time by other "
        "work on the machine.",
        "",
        f"File: {size1 / 1e6:.1f} MB on disk ({size1 / n1:.2f} bytes per row), written in {gen1:.1f} s by DuckDB "
        "`COPY (SELECT ... FROM range(n)) TO ... (FORMAT parquet)` (snappy, DuckDB's default row groups); "
        "the SELECT:",
        "",
        "```sql",
        _rows_sql(M1, Q1, T1, 0, M1),
        "```",
        "",
        *HEAD,
        row("(a) DuckDB `SELECT model, question, sum(score), count(*) ... GROUP BY ALL` -> numpy", a, n1),
        row("(a') the same with `duckdb.connect()` included (count_table opens its connection inside its call)",
            a_conn, n1),
        row("(b) `count_table(f)`", b, n1),
        row("(c) `read_long(f)` (pandas, every row)", c, n1),
        row(f"(d) `evaluate(counts, {METRICS})` on (b)'s result (evaluate only)", d),
        "",
    ]
    if "error" not in a and "error" not in b:
        ratio_best, ratio_med = b["best"] / a["best"], b["median"] / a["median"]
        pr = sec1.get("ratios", [])
        lines.append(f"(b)/(a) = **{ratio_best:.2f}x** on the best times, {ratio_med:.2f}x on the medians; the "
                     f"{len(pr)} rounds (each (a) then (b), fresh processes) gave ratios "
                     f"{', '.join(f'{x:.2f}' for x in pr)} (median {statistics.median(pr):.2f}x); on CPU seconds "
                     f"(medians) {b['cpu'] / a['cpu']:.2f}x.")
        lines.append("")
        lines.append(f"(b)/(a') = {b['best'] / a_conn['best']:.2f}x on the best times, "
                     f"{b['median'] / a_conn['median']:.2f}x on the medians (a fresh process's first "
                     f"`duckdb.connect()` took {statistics.median(r['connect_seconds'] for r in a['runs']) * 1000:.0f} ms).")
    else:
        ratio_best = ratio_med = float("nan")
    lines += ["", f"Same counts from (a), (b), (c): {checks_agree(a, b, c)}."]
    if "error" not in d:
        w = d["last"].get("warnings", [])
        lines += ["", f"evaluate warnings ({len(w)}): " + ("; ".join(w) if w else "none")]
    lines += ["", *stages_table(sec1["stages"]), ""]
    lines += ["CLI end to end (whole process: interpreter start-up, imports, load, evaluate, print; wall time from "
              "outside, peak RSS from `/usr/bin/time -f %M`):", "",
              "| command | runs | best s | median s | peak RSS MB |", "|---|---:|---:|---:|---:|"]
    for engine in ("duckdb", "pandas"):
        runs = sec1.get("cli_" + engine) or []
        if runs:
            ws = [r["process_wall"] for r in runs]
            lines.append(f"| `bayeseval report FILE --metrics avg,pass@8 --engine {engine}` | {len(runs)} | {min(ws):.2f} "
                         f"| {statistics.median(ws):.2f} | {max(r['peak_mb_time'] for r in runs):,.0f} |")
        else:
            lines.append(f"| `--engine {engine}` | failed | | | |")
    bpr = None
    if "error" not in c:
        bpr = (c["peak_mb"] - c["base_mb"]) * 2**20 / n1
    if not args.skip_big:
        lines += ["", f"## 2. Up to {M2 * Q2 * T2 / 1e9:.3f}e9 rows: {M2} checkpoints x {Q2:,} questions x {T2} trials, "
                  "one Parquet file per checkpoint", "",
                  "Each size is counted over the glob `<dir>/*.parquet` (the files written so far), by `count_table` and "
                  "by the raw `SELECT model, question, sum(score) AS correct, count(*) AS trials FROM "
                  "read_parquet('<dir>/*.parquet') GROUP BY ALL` fetched to numpy; `seconds` is the best of the "
                  "fresh processes (median beside it).", "",
                  "| rows | files | on disk | method | runs | best s | median s | CPU s (median) | M rows/s (best) | peak RSS MB |",
                  "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
        for e in sec2["sizes"]:
            for key, name in (("a", "DuckDB GROUP BY -> numpy"), ("b", "`count_table(glob)`")):
                r = e[key]
                if "error" in r:
                    lines.append(f"| {e['rows']:,} | {e['files']} | {e['bytes'] / 1e9:.2f} GB | {name} | failed: "
                                 f"{r['error'][:200]} | | | | | |")
                    continue
                lines.append(f"| {e['rows']:,} | {e['files']} | {e['bytes'] / 1e9:.2f} GB | {name} | {r['n']} "
                             f"| {fmt_s(r['best'])} | {fmt_s(r['median'])} | {r['cpu']:.1f} | {e['rows'] / r['best'] / 1e6:,.1f} "
                             f"| {r['peak_mb']:,.0f} |")
        for e in sec2["sizes"]:
            lines.append("")
            lines.append(f"{e['rows']:,} rows: written in {e['write_s']:.0f} s in all ({e['bytes']:,} bytes, "
                         f"{e['bytes'] / e['rows']:.2f} bytes per row); same counts from both: "
                         f"{checks_agree(e['a'], e['b'])}; count_table / GROUP BY = "
                         + (f"{e['b']['best'] / e['a']['best']:.2f}x on the best times, per round "
                            f"{', '.join(f'{x:.2f}' for x in e.get('ratios', []))}"
                            if "error" not in e["a"] and "error" not in e["b"] else "n/a"))
        largest = sec2["sizes"][-1]["rows"] if sec2["sizes"] else 0
        if sec2.get("skipped_full"):
            p, rem, _ = sec2["prediction"]
            lines += ["", f"**The full {M2 * Q2 * T2:,} rows were NOT run**: the {largest:,}-row timings predicted "
                      f"{p / 60:.1f} min for writing and counting the rest, {rem / 60:.1f} min were left of the "
                      f"{args.budget:.0f}-minute budget. The largest size actually run is {largest:,} rows."]
        lines += ["", f"At {largest:,} rows:", "", *(stages_table(sec2["stages"]) if "stages" in sec2 else [])]
        if bpr is not None:
            lines += ["", f"The pandas reader is not run here: in section 1 it held {bpr:.0f} bytes per row above "
                      f"the process's post-import size ({c['peak_mb']:,.0f} MB peak for {n1 / 1e6:.1f}M rows), so "
                      f"{M2 * Q2 * T2 / 1e9:.3f}e9 rows would need about {bpr * M2 * Q2 * T2 / 1e9:,.0f} GB of RAM "
                      f"against {mem_gb:.0f} GiB on this machine (and, at its {n1 / c['best'] / 1e6:.1f}M rows/s, "
                      f"about {M2 * Q2 * T2 / (n1 / c['best']) / 60:.0f} min if the memory were there)."]
        lines += ["", f"Section 2 took {sec2.get('seconds', 0) / 60:.1f} min (writing included)."]

    # floors
    lines += ["", "## Floors", ""]
    parts = []
    if ratio_best == ratio_best:
        pr = sec1.get("ratios", [])
        over = sum(x > 1.5 for x in pr)
        if over == 0:
            verdict = "met" if max(pr) <= 1.4 else f"met, with little margin (worst round {max(pr):.2f}x)"
        elif ratio_best > 1.5 and ratio_med > 1.5:
            verdict = f"NOT met ({over} of {len(pr)} rounds above 1.5x)"
        else:
            verdict = (f"on the edge, so not met with any margin: {over} of {len(pr)} rounds were above 1.5x, "
                       f"{len(pr) - over} at or below it")
        parts.append(f"Speed: on {n1 / 1e6:.1f}M rows count_table takes {b['best']:.3f} s against {a['best']:.3f} s for "
                     f"DuckDB's own GROUP BY (query and fetch), {ratio_best:.2f}x on the best times (medians "
                     f"{ratio_med:.2f}x; per round {min(pr):.2f}-{max(pr):.2f}x): the floor of at most 1.5x is {verdict}. "
                     f"Giving the raw query the connection count_table opens inside its call, the ratio is "
                     f"{b['best'] / a_conn['best']:.2f}x.")
        parts.append(f"Memory: count_table's process peaks at {b['peak_mb']:,.0f} MB (imports included, "
                     f"{b['base_mb']:,.0f} MB of it before counting): the floor of under 1 GB is "
                     f"{'met' if b['peak_mb'] < 1024 else 'NOT met'}.")
    if "error" not in c:
        parts.append(f"The pandas reader takes {c['best']:.1f} s and {c['peak_mb']:,.0f} MB for the same file "
                     f"({c['best'] / b['best']:.0f}x count_table's time, {c['peak_mb'] / b['peak_mb']:.1f}x its memory).")
    if not args.skip_big and sec2["sizes"]:
        e = sec2["sizes"][-1]
        if "error" not in e["b"] and "error" not in e["a"]:
            parts.append(f"At {e['rows']:,} rows ({'the full size' if e['models'] == M2 else 'the largest size run, NOT the full 1e9'}) "
                         f"count_table counts {e['rows'] / e['b']['best'] / 1e6:.1f}M rows/s in {e['b']['best']:.0f} s with "
                         f"a {e['b']['peak_mb']:,.0f} MB peak, against {e['rows'] / e['a']['best'] / 1e6:.1f}M rows/s, "
                         f"{e['a']['best']:.0f} s and {e['a']['peak_mb']:,.0f} MB for the raw GROUP BY "
                         f"({e['b']['best'] / e['a']['best']:.2f}x); its memory follows the {Q2 * e['models']:,} "
                         "(model, question) cells, not the rows, so the 1 GB floor (stated for the 12.8M-row file) "
                         f"{'also holds' if e['b']['peak_mb'] < 1024 else 'does not hold'} here.")
        else:
            parts.append("Section 2 failed: see the table.")
    lines.append(" ".join(parts))
    return finish("\n".join(lines), args.out)


if __name__ == "__main__":
    sys.exit(main())
