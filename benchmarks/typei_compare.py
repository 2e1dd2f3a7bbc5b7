"""Type-I error of compare's headline verdict under a true null, on question pools shaped like real benchmarks.

A and B answer the same M questions with the same per-question success probability p_i (drawn from
the pool), N trials each; a verdict that names a winner is a false rejection.  Pools: two clusters
(40% of questions at p = 0.05, 60% at p = 0.9: HumanEval-like), Beta(2, 5), Beta(0.5, 0.5) and
logit-normal(0, 2).  Prints one row per (pool, M, N) with the rejection rate in percent.

Run: ``python benchmarks/typei_compare.py [replicates]`` (1,000 replicates: about 2.5 min on 2 cores).
Results: ``benchmarks/results_typei.md``.
"""

from __future__ import annotations

import sys
import time
import warnings
from multiprocessing import Pool
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
warnings.simplefilter("ignore")
import bayeseval as be  # noqa: E402

POOLS = ("two-cluster", "beta(2,5)", "beta(.5,.5)", "logitnormal")


def pool_p(name: str, M: int, rng) -> np.ndarray:
    if name == "two-cluster":
        return np.where(rng.random(M) < 0.4, 0.05, 0.9)
    if name == "beta(2,5)":
        return rng.beta(2, 5, M)
    if name == "beta(.5,.5)":
        return rng.beta(0.5, 0.5, M)
    return 1 / (1 + np.exp(-rng.normal(0, 2, M)))


def cell(args):
    name, M, N, reps, seed = args
    rng = np.random.default_rng(seed)
    rejected = 0
    for r in range(reps):
        p = pool_p(name, M, rng)
        A = (rng.random((M, N)) < p[:, None]).astype(int)
        B = (rng.random((M, N)) < p[:, None]).astype(int)
        rejected += be.compare(A, B, seed=r, resamples=2000, draws=2000).decision in ("A", "B")
    return name, M, N, rejected / reps


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    cells = [(n, M, N, reps, 1000 * i + M + N) for i, n in enumerate(POOLS) for M in (15, 30, 100) for N in (1, 4)]
    t = time.time()
    with Pool(2) as pool:
        res = pool.map(cell, cells)
    print(f"type-I error of compare's verdict, 95% level, {reps} replicates per cell ({time.time() - t:.0f} s)\n")
    print("| pool | M | N | type-I (%) |")
    print("|---|---:|---:|---:|")
    for name, M, N, rate in res:
        print(f"| {name} | {M} | {N} | {100 * rate:.1f} |")


if __name__ == "__main__":
    main()
