"""Small helpers shared by the benchmark scripts: timing and writing the report."""

from __future__ import annotations

import argparse
import json
import os
import time


def best_of(fn, repeats: int = 3):
    """``(seconds, result)``: the minimum wall time over ``repeats`` calls and the last result."""
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def finish(report: str, markdown_path: str | None = None, json_path: str | None = None, data=None) -> int:
    """Print the report; write it (and optional JSON data) where asked."""
    print(report)
    if markdown_path:
        with open(markdown_path, "w") as fh:
            fh.write(report + "\n")
    if json_path:
        with open(json_path, "w") as fh:
            json.dump(data, fh, indent=1)
    return 0


def pool_map(run_cell, tasks, workers: int):
    """``run_cell`` over ``tasks`` in a process pool, one task at a time -> (results in task order, seconds)."""
    import multiprocessing as mp

    t0 = time.time()
    with mp.Pool(workers) as pool:
        results = pool.map(run_cell, tasks, chunksize=1)
    return results, time.time() - t0


def run_cells(run_cell, tasks, workers: int):
    """Coverage study cells (each returns ``(cell, coverage, width)``) -> (coverage by cell, widths by cell, seconds)."""
    results, seconds = pool_map(run_cell, tasks, workers)
    return {cell: c for cell, c, _ in results}, {cell: w for cell, _, w in results}, seconds


def bench_parser(doc: str, reps: int | None, reps_help: str | None = None) -> argparse.ArgumentParser:
    """The options every coverage study shares: ``--reps`` (default ``reps``), ``--workers`` (default: every core)
    and ``--out`` (write the markdown report there too); a script adds its own."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=reps, help=reps_help)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=None, help="write the markdown report here too")
    return ap
