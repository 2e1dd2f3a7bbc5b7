"""Calibration of compare()'s P(A > B) on question pools shaped like real benchmarks (issue "Honest by default").

Per replicate: a logit shift d ~ Normal(0, 0.25^2); p_i from the pool (two clusters: 40% at 0.05, 60% at
0.9; Beta(2, 5); Beta(0.5, 0.5); logit-normal(0, 2)); model A answers with expit(logit p_i + d), model B with
p_i, N trials each on the same M questions.  A is truly better (its pool mean is higher) exactly when d > 0.
compare() with its defaults (population scope) states P(A > B); the replicates are binned by that number
(deciles) and each bin's mean stated probability is set against the fraction where A is truly better.

    python benchmarks/calibration_pools.py --reps 1000 --out benchmarks/results_calibration_pools.md

A posterior probability is calibrated against the distribution the truths are drawn from only when that is
also the analysis prior; here the analysis uses no prior on d (Dirichlet-process posterior over questions), so
small miscalibration in the extreme bins is expected and shown as measured.  Monte-Carlo standard error of
a bin's observed fraction: sqrt(f (1 - f) / count).
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import sys
import time
import warnings

import numpy as np
from scipy.special import expit, logit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
warnings.simplefilter("ignore")
from _common import bench_parser, finish  # noqa: E402
from bayeseval import compare  # noqa: E402
from typei_compare import pool_p as typei_pool_p  # noqa: E402

# the pools of benchmarks/typei_compare.py (one definition), under the labels the results file uses
LABELS = {"two-cluster": "two clusters", "beta(2,5)": "Beta(2,5)", "beta(.5,.5)": "Beta(0.5,0.5)",
          "logitnormal": "logit-normal(0,2)"}
POOLS = tuple(LABELS.values())
SETTINGS = ((100, 4), (30, 1))
SD = 0.25


def pool_p(label: str, M: int, rng) -> np.ndarray:
    return typei_pool_p({v: k for k, v in LABELS.items()}[label], M, rng)


def run(args):
    pool, M, N, reps, seed, sd = args
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(reps):
        d = rng.normal(0, sd) if sd > 0 else 0.0
        p = pool_p(pool, M, rng)
        pa = expit(logit(np.clip(p, 1e-12, 1 - 1e-12)) + d)
        A = (rng.random((M, N)) < pa[:, None]).astype(np.int8)
        B = (rng.random((M, N)) < p[:, None]).astype(np.int8)
        c = compare(A, B, seed=seed + r, resamples=200, draws=2000)
        rows.append((c.p_a_better, d > 0))
    return (pool, M, N, sd), rows


def null_table(res: dict) -> list[str]:
    """Under d = 0, P(A > B) is a one-sided p-value's mirror: the share of replicates in each decile of
    stated P(A > B) should be 10% (prior-free: no distribution of true differences is assumed)."""
    out = ["| pool | M | N | " + " | ".join(f"[{d / 10:.1f}, {(d + 1) / 10:.1f})" for d in range(10)) +
           " | P <= 0.025 or >= 0.975 |", "|---|---|---|" + "---|" * 11]
    for (pool, M, N, sd), rows in res.items():
        if sd != 0:
            continue
        x = np.array([r[0] for r in rows])
        h = np.histogram(np.clip(x, 0, 1 - 1e-12), bins=10, range=(0, 1))[0] / x.size
        tails = np.mean((x <= 0.025) | (x >= 0.975))
        out.append(f"| {pool} | {M} | {N} | " + " | ".join(f"{100 * v:.1f}" for v in h) + f" | {100 * tails:.1f} |")
    return out


def table(rows) -> list[str]:
    x = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows], dtype=float)
    out = ["| P(A > B) bin | replicates | mean stated | observed (A truly better) | stated - observed (points) | MC se |",
           "|---|---|---|---|---|---|"]
    worst = 0.0
    for lo in np.arange(0, 1, 0.1):
        sel = (x >= lo) & (x < lo + 0.1 if lo < 0.85 else x <= 1.0)
        if sel.sum() == 0:
            continue
        s, o = x[sel].mean(), y[sel].mean()
        se = math.sqrt(max(o * (1 - o), 0.25 / sel.sum()) / sel.sum())
        worst = max(worst, abs(s - o))
        out.append(f"| [{lo:.1f}, {lo + 0.1:.1f}) | {sel.sum()} | {s:.3f} | {o:.3f} | {100 * (s - o):+.1f} | {100 * se:.1f} |")
    out.append("")
    out.append(f"Largest |stated - observed|: {100 * worst:.1f} points; Brier score {np.mean((x - y) ** 2):.4f}.")
    return out


def main(argv=None) -> int:
    ap = bench_parser(__doc__, 1000, "replicates per (pool, setting)")
    ap.add_argument("--null-only", action="store_true", help="only the null (d = 0) replicates")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    t0 = time.time()
    sds = (0.0,) if args.null_only else (SD, 0.0)
    tasks = [(pool, M, N, args.reps, 3000 + 100 * i + j + (50 if sd == 0 else 0), sd) for sd in sds
             for i, pool in enumerate(POOLS) for j, (M, N) in enumerate(SETTINGS)]
    with mp.Pool(args.workers) as p:
        res = dict(p.map(run, tasks, chunksize=1))
    out = ["# Calibration of compare()'s P(A > B) on benchmark-shaped pools", "",
           f"`python benchmarks/calibration_pools.py --reps {args.reps}{' --null-only' if args.null_only else ''}`: "
           + ("" if args.null_only else f"d ~ N(0, {SD}^2) logit shift per replicate, and d = 0 (null); ") +
           f"{args.reps} replicates per pool and setting; run time {(time.time() - t0) / 60:.1f} min. "
           "Default compare() (population scope).", "",
           "## Null (d = 0): share of replicates per decile of stated P(A > B), % (10 each when calibrated)", ""]
    out += null_table(res) + [""]
    for M, N in SETTINGS if not args.null_only else ():
        rows = [r for (pool, m, n, sd), v in res.items() if (m, n) == (M, N) and sd > 0 for r in v]
        out += [f"## All pools, M = {M}, N = {N} ({len(rows)} replicates), d ~ N(0, {SD}^2)", ""] + table(rows) + [""]
        for pool in POOLS:
            out += [f"### {pool}, M = {M}, N = {N}", ""] + table(res[(pool, M, N, SD)]) + [""]
    return finish("\n".join(out), args.out, args.json, {"|".join(map(str, k)): v for k, v in res.items()})


if __name__ == "__main__":
    raise SystemExit(main())
