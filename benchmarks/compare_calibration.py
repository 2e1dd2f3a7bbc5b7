"""Calibration of compare(): type-I error under the null, power, and the calibration of P(A > B).

    python benchmarks/compare_calibration.py            # full study (~30 min on 2 cores)
    python benchmarks/compare_calibration.py --quick    # few replicates
    python benchmarks/compare_calibration.py --out benchmarks/results_compare.md
    python benchmarks/compare_calibration.py --null-only --ns 1 --out benchmarks/results_compare_n1.md  # N = 1 type-I

Null: two correlated models with equal per-question success probability,
p_i ~ Beta(0.7, 0.7) shared by both models (question difficulty is the
correlation), outcomes independent given p_i; M in {30, 100, 1000}, N in {1, 8}.
Every test rejects at alpha = 0.05 (interval-based tests: the 95% interval
excludes 0; the Bayesian ones: P(A > B) outside [0.025, 0.975]).  Monte-Carlo
standard error of a type-I rate near 5% with R replicates: sqrt(0.05 * 0.95 / R).

Power: p_Ai = expit(logit p_i + d), p_Bi = p_i, d in {0.1, 0.2, 0.4}.
Calibration: d ~ Normal(0, 0.25^2) per replicate, M = 100, N = 4; P(A > B)
binned, against the frequency with which A's population score really is higher.
Resamples: 2,000 bootstrap / permutation resamples and 2,000 posterior draws per call.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import sys
import time

import numpy as np
from scipy.special import expit, logit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from _common import bench_parser, finish  # noqa: E402
from bayeseval import compare  # noqa: E402

ALPHA = 0.05
MS = (30, 100, 1000)
NS = (1, 8)
SHAPE = (0.7, 0.7)
RES = 2000


def rejections(A, B, seed) -> dict:
    """Reject / not for every test on one pair of outcome matrices."""
    out = {}
    for scope in ("population", "benchmark"):
        c = compare(A, B, scope=scope, seed=seed, resamples=RES, draws=RES)
        out[f"Bayesian ({scope})"] = not (0.025 <= c.p_a_better <= 0.975)
        if scope == "benchmark":
            continue
        if c.bootstrap is not None:
            out["bootstrap percentile"] = not (c.bootstrap["percentile"]["lo"] <= 0 <= c.bootstrap["percentile"]["hi"])
            out["bootstrap BCa"] = not (c.bootstrap["bca"]["lo"] <= 0 <= c.bootstrap["bca"]["hi"])
            out["bootstrap p-value"] = c.bootstrap["p_value"] is not None and c.bootstrap["p_value"] < ALPHA
            out["sign-flip permutation"] = c.permutation["p_value"] < ALPHA
            out["Miller paired SE (z)"] = not (c.miller["lo"] <= 0 <= c.miller["hi"])
            out["paired t-test"] = c.t_test is not None and c.t_test["p_value"] < ALPHA
            out["Wilcoxon signed-rank"] = c.wilcoxon["p_value"] < ALPHA
        v = c.mcnemar["variants"]
        if "single" in v:
            out["McNemar exact"] = v["single"]["exact"]["p_value"] < ALPHA
            out["McNemar mid-p"] = v["single"]["mid_p"]["p_value"] < ALPHA
            out["McNemar chi2 (cc)"] = v["single"]["chi2_cc"]["p_value"] < ALPHA
        else:
            out["McNemar clustered (Durkalski)"] = v["clustered"]["p_value"] < ALPHA
            out["McNemar exact, majority"] = v["majority"]["exact"]["p_value"] < ALPHA
            out["McNemar exact, first trial"] = v["first"]["exact"]["p_value"] < ALPHA
            out["McNemar mid-p, first trial"] = v["first"]["mid_p"]["p_value"] < ALPHA
    return out


def simulate(rng, M, N, d):
    p = rng.beta(*SHAPE, M)
    pa = expit(logit(np.clip(p, 1e-12, 1 - 1e-12)) + d)
    A = (rng.random((M, N)) < pa[:, None]).astype(np.int8)
    B = (rng.random((M, N)) < p[:, None]).astype(np.int8)
    return A, B


def run_cell(args):
    M, N, d, reps, seed = args
    rng = np.random.default_rng(seed)
    hits: dict = {}
    for r in range(reps):
        A, B = simulate(rng, M, N, d)
        for k, v in rejections(A, B, seed + r).items():
            hits[k] = hits.get(k, 0) + int(v)
    return (M, N, d), {k: v / reps for k, v in hits.items()}


def run_calibration(args):
    reps, seed = args
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(reps):
        d = rng.normal(0, 0.25)
        A, B = simulate(rng, 100, 4, d)
        c = compare(A, B, seed=seed + r, resamples=200, draws=RES)
        rows.append((c.p_a_better, d > 0))
    return rows


def main(argv=None) -> int:
    ap = bench_parser(__doc__, 1500, "null replicates per cell (half for M = 1000)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--null-only", action="store_true", help="the type-I table alone (no power, no calibration)")
    ap.add_argument("--ns", default=None, help="only these N in the type-I table (comma-separated; seeds kept)")
    args = ap.parse_args(argv)
    t0 = time.time()
    null_reps = 100 if args.quick else args.reps
    power_reps = 40 if args.quick else 300
    cal_reps = 100 if args.quick else 1000
    tasks = [(M, N, 0.0, null_reps if M < 1000 else null_reps // 2, 100 + i) for i, (M, N) in
             enumerate((M, N) for M in MS for N in NS)]
    ns = NS if args.ns is None else tuple(N for N in NS if N in {int(x) for x in args.ns.split(",")})
    tasks = [t for t in tasks if t[1] in ns]
    if args.null_only:
        power_reps = cal_reps = 0
    ptasks = [(M, N, d, power_reps, 500 + i) for i, (M, N, d) in
              enumerate((M, N, d) for M in (100, 1000) for N in NS for d in (0.1, 0.2, 0.4))]
    ctasks = [(cal_reps // 4, 900 + i) for i in range(4)] if cal_reps else []
    ptasks = ptasks if power_reps else []
    with mp.Pool(args.workers) as pool:
        null = dict(pool.map(run_cell, tasks, chunksize=1))
        power = dict(pool.map(run_cell, ptasks, chunksize=1))
        cal = [row for part in pool.map(run_calibration, ctasks) for row in part]
    tests = sorted({k for v in null.values() for k in v})
    out = ["# compare(): type-I error, power and calibration", "",
           f"Null replicates per cell: {null_reps} ({null_reps // 2} for M = 1000); MC standard error of a 5% rate "
           f"about {100 * math.sqrt(0.0475 / (null_reps // 2)):.1f} points (M = 1000) and "
           f"{100 * math.sqrt(0.0475 / null_reps):.1f} (others). Run time {(time.time() - t0) / 60:.1f} min.", "",
           "## Type-I error at alpha = 0.05 (%), null: equal per-question p, p ~ Beta(0.7, 0.7)", "",
           "**bold** = outside [4, 6].", "",
           "| test | " + " | ".join(f"M={M}, N={N}" for M in MS for N in ns) + " |",
           "|---|" + "---|" * (len(MS) * len(ns))]
    for t in tests:
        cells = []
        for M in MS:
            for N in ns:
                v = null[(M, N, 0.0)].get(t)
                if v is None:
                    cells.append("-")
                else:
                    s = f"{100 * v:.1f}"
                    cells.append(f"**{s}**" if not 4.0 <= 100 * v <= 6.0 else s)
        out.append(f"| {t} | " + " | ".join(cells) + " |")
    if args.null_only:
        return finish("\n".join(out), args.out, args.json, {"null": {str(k): v for k, v in null.items()}})
    out += ["", f"## Power (%), p_A = expit(logit p + d); {power_reps} replicates per cell", "",
            "| test | " + " | ".join(f"M={M}, N={N}, d={d}" for M in (100, 1000) for N in NS for d in (0.1, 0.2, 0.4)) + " |",
            "|---|" + "---|" * 12]
    ptests = sorted({k for v in power.values() for k in v})
    for t in ptests:
        cells = []
        for M in (100, 1000):
            for N in NS:
                for d in (0.1, 0.2, 0.4):
                    v = power[(M, N, d)].get(t)
                    cells.append("-" if v is None else f"{100 * v:.0f}")
        out.append(f"| {t} | " + " | ".join(cells) + " |")
    probs = np.array([r[0] for r in cal])
    truth = np.array([r[1] for r in cal])
    edges = np.linspace(0, 1, 11)
    out += ["", f"## Calibration of P(A > B): {len(cal)} replicates, d ~ N(0, 0.25^2), M = 100, N = 4", "",
            "| P(A > B) bin | replicates | mean P(A > B) | fraction with A truly better |", "|---|---|---|---|"]
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (probs >= lo) & ((probs < hi) if hi < 1 else (probs <= hi))
        if sel.any():
            out.append(f"| [{lo:.1f}, {hi:.1f}) | {sel.sum()} | {probs[sel].mean():.3f} | {truth[sel].mean():.3f} |")
    brier = float(np.mean((probs - truth) ** 2))
    out += ["", f"Brier score {brier:.4f}."]
    data = {"null": {str(k): v for k, v in null.items()}, "power": {str(k): v for k, v in power.items()},
            "calibration": [[float(p), bool(t)] for p, t in cal]}
    return finish("\n".join(out), args.out, args.json, data)


if __name__ == "__main__":
    sys.exit(main())
