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

Two checks separate the likelihood from the prior, on the same replicates:

* PIT (prior-free): each replicate's posterior probability that the difference is below its true value
  (the pool difference E[expit(logit p + d) - p], from 400,000 draws of the pool).  Whatever the true
  differences are, a posterior whose probability statements hold has these uniform: 10% per decile.
* Matched prior: the same posterior (its mean m and sd s) combined with the Normal(0, tau^2) prior that the
  replicates' true differences really follow (tau their sd): P(A > B) = Phi(m tau / (s sqrt(tau^2 + s^2))).
  Calibrated when the gap of the stated P(A > B) is the prior's, not the likelihood's.  A check, not a method:
  a user does not know tau.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import sys
import time
import warnings

import numpy as np
from scipy.special import expit, logit, ndtr
from scipy.stats import chisquare

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
SDS = (0.25, 1.0)  # spreads of the logit shift d: about the estimate's sd at M = 100, N = 4, and well beyond it
_REF: dict = {}


def pool_difference(pool: str, d: float) -> float:
    """The pool (population) difference E[expit(logit p + d) - p], from 400,000 fixed draws of the pool."""
    if pool not in _REF:
        _REF[pool] = np.clip(pool_p(pool, 400_000, np.random.default_rng(12345)), 1e-12, 1 - 1e-12)
    p = _REF[pool]
    return float(np.mean(expit(logit(p) + d) - p))


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
        dx, truth = c.draws(), pool_difference(pool, d)
        pit = float(np.mean(dx < truth) + 0.5 * np.mean(dx == truth))
        rows.append((c.p_a_better, d > 0, pit, c.delta.mean, c.delta.sd, truth))
    return (pool, M, N, sd), rows


def matched(rows) -> list:
    """The rows with P(A > B) from the same posterior under the Normal(0, tau^2) prior the true differences follow."""
    tau = float(np.std([r[5] for r in rows]))
    return [(float(ndtr(m * tau / (s * math.sqrt(tau ** 2 + s ** 2)))) if s > 0 else float(m > 0), y)
            for _, y, _, m, s, _ in rows]


def worst_gap(rows) -> tuple[float, float, int]:
    """Largest |stated - observed| over the deciles holding at least 50 replicates (points), its bin's MC se, and
    the deciles (of any size) off by more than 2 MC se."""
    x = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows], dtype=float)
    bins = np.minimum((x * 10).astype(int), 9)
    worst, worst_se, beyond = 0.0, 0.0, 0
    for b in range(10):
        sel = bins == b
        if sel.sum() == 0:
            continue
        s, o = x[sel].mean(), y[sel].mean()
        se = math.sqrt(max(o * (1 - o), 0.25 / sel.sum()) / sel.sum())
        beyond += abs(s - o) > 2 * se
        if sel.sum() >= 50 and abs(s - o) > worst:
            worst, worst_se = abs(s - o), se
    return 100 * worst, 100 * worst_se, beyond


def pit_gap(rows) -> tuple[float, float]:
    """Largest |share - 10%| of the PIT values over the deciles (points), and the chi-square test's p-value of
    uniform deciles (9 degrees of freedom)."""
    counts = np.histogram(np.clip([r[2] for r in rows], 0, 1 - 1e-12), bins=10, range=(0, 1))[0]
    return float(100 * np.max(np.abs(counts / len(rows) - 0.1))), float(chisquare(counts).pvalue)


def summary_table(res: dict) -> list[str]:
    out = ["| pool | M | N | sd of d | sd of true difference / median posterior sd | stated P(A > B): largest gap "
           "(points, its MC se; bins beyond 2 se) | matched prior: largest gap | PIT: largest decile gap (points) "
           "| PIT: chi-square p |", "|---|---|---|---|---|---|---|---|---|"]
    for (pool, M, N, sd), rows in res.items():
        if sd == 0:
            continue
        ratio = np.std([r[5] for r in rows]) / np.median([r[4] for r in rows])
        w, se, b = worst_gap(rows)
        mw, mse, mb = worst_gap(matched(rows))
        gap, p = pit_gap(rows)
        out.append(f"| {pool} | {M} | {N} | {sd} | {ratio:.2f} | {w:.1f} ({se:.1f}; {b}) | {mw:.1f} ({mse:.1f}; {mb}) "
                   f"| {gap:.1f} | {p:.3f} |")
    return out


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
    ap.add_argument("--sds", default=",".join(map(str, SDS)), help="spreads of the logit shift d (comma-separated)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    t0 = time.time()
    spreads = () if args.null_only else tuple(float(x) for x in args.sds.split(","))
    offset = {0.0: 50, SD: 0}  # the seeds of the first run's two designs kept; a new spread gets its own
    tasks = [(pool, M, N, args.reps, 3000 + 100 * i + j + offset.get(sd, 25 + 5 * k), sd)
             for k, sd in enumerate(spreads + (0.0,)) for i, pool in enumerate(POOLS)
             for j, (M, N) in enumerate(SETTINGS)]
    with mp.Pool(args.workers) as p:
        res = dict(p.map(run, tasks, chunksize=1))
    out = ["# Calibration of compare()'s P(A > B) on benchmark-shaped pools", "",
           f"`python benchmarks/calibration_pools.py --reps {args.reps}{' --null-only' if args.null_only else ''}`: "
           + ("" if args.null_only else "d ~ N(0, sd^2) logit shift per replicate, sd in "
              f"{{{', '.join(map(str, spreads))}}}, and d = 0 (null); ") +
           f"{args.reps} replicates per pool and setting; run time {(time.time() - t0) / 60:.1f} min. "
           "Default compare() (population scope).", "",
           "## Null (d = 0): share of replicates per decile of stated P(A > B), % (10 each when calibrated)", ""]
    out += null_table(res) + [""]
    if spreads:
        out += ["## Stated P(A > B), the same posterior under the matched prior, and the PIT", "",
                "Per pool and spread: the largest |stated - observed| over the deciles of P(A > B) holding at least 50 "
                "replicates (in brackets its "
                "bin's MC se and the number of deciles off by more than 2 se); the same for the posterior combined "
                "with the Normal(0, tau^2) prior the true differences follow; the largest gap of the PIT's "
                "deciles from 10% (MC se about 0.95 points at 1,000 replicates) and the chi-square test of uniform "
                "deciles.", ""] + summary_table(res) + [""]
    for sd in spreads:
        for M, N in SETTINGS:
            rows = [r for (pool, m, n, s), v in res.items() if (m, n) == (M, N) and s == sd for r in v]
            out += [f"## All pools, M = {M}, N = {N} ({len(rows)} replicates), d ~ N(0, {sd}^2)", ""]
            out += table(rows) + [""]
            for pool in POOLS if sd == SD else ():
                out += [f"### {pool}, M = {M}, N = {N}", ""] + table(res[(pool, M, N, sd)]) + [""]
    return finish("\n".join(out), args.out, args.json, {"|".join(map(str, k)): v for k, v in res.items()})


if __name__ == "__main__":
    raise SystemExit(main())
