"""compare_all at leaderboard scale: K models x 1,000 questions x 4 trials, default output.

Prints, for K = 10, 30, 100, the wall time of ``compare_all`` (each model counted and its
posterior built once, rank probabilities from one joint draw, tests for the K - 1 adjacent pairs)
and, for K <= 30, the same with every pair tested (``pairs="all"``, what it did before), plus the
time per model, so the growth in K is visible, and the default with ``shrink=True`` (partial pooling of the
scores).  Run: ``python benchmarks/bench_compare_all.py --out benchmarks/results_compare_all.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bayeseval as be  # noqa: E402
from _common import best_of, finish  # noqa: E402

M, N = 1000, 4


def models(K: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    p = rng.beta(0.6, 0.6, M)  # U-shaped difficulty, as real benchmarks have
    shift = np.linspace(-0.1, 0.1, K)
    return {f"m{j:03d}": (rng.random((M, N)) < np.clip(p + shift[j], 0, 1)[:, None]).astype(np.int8)
            for j in range(K)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=None, help="write the markdown table here too")
    args = ap.parse_args(argv)
    rows = []
    for K in (10, 30, 100):
        data = models(K)
        repeat = 3 if K < 100 else 2
        t_adj, _ = best_of(lambda: be.compare_all(data, seed=1), repeat)
        t_shrink, _ = best_of(lambda: be.compare_all(data, seed=1, shrink=True), repeat)
        t_all = best_of(lambda: be.compare_all(data, seed=1, pairs="all"), 1)[0] if K <= 30 else None
        rows.append((K, t_adj, t_adj / K, t_shrink, t_all))
    out = [f"# compare_all at leaderboard scale\n\n`python benchmarks/bench_compare_all.py`: {M} questions x {N} "
           f"trials, metric avg, population scope, defaults (best of 2-3 runs, seconds; python "
           f"{platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs).\n",
           "| K models | default (adjacent pairs) | per model | shrink=True | pairs='all' |", "|---:|---:|---:|---:|---:|"]
    for K, t, per, t_shrink, t_all in rows:
        out.append(f"| {K} | {t:.2f} | {per * 1000:.0f} ms | {t_shrink:.2f} | {'-' if t_all is None else f'{t_all:.2f}'} |")
    return finish("\n".join(out), args.out)


if __name__ == "__main__":
    sys.exit(main())
