"""Calibration of compare_all()'s P(A > B) across a ranking, with and without partial pooling (``shrink=True``).

Per replicate: K = 6 models answer the same M questions (p_i from a pool of benchmarks/typei_compare.py), model k
with ``expit(logit p_i + d_k)``, N trials each.  Model a is truly better than b (its pool mean is higher) exactly
when ``d_a > d_b``.  compare_all(pairs="all") states P(A > B) for the 15 pairs, once as it is (each pair's own
posterior, no prior on the difference) and once with ``shrink=True`` (the models' scores partially pooled); the
pairs are binned by the stated number (deciles) and each bin's mean stated probability is set against the
fraction where A is truly better.  Default population scope.

Ensembles of the true shifts d (logit scale):

* ``normal 0.25``: ``d_k ~ N(0, 0.25^2)`` (close models: the shrinkage prior's own shape);
* ``normal 1.0``: ``d_k ~ N(0, 1)`` (models far apart relative to the estimates' sd at M = 100);
* ``tied + spread``: three models share ``d = 0``, three draw ``d ~ N(0, 1)`` (not normal: a cluster of
  equal models among distant ones).  Pairs of tied models have no better one; they are left out of the
  calibration and counted apart: the share stated beyond [0.025, 0.975] ("false certainty").

Settings with fewer than 5 questions per model are left out: compare_all(shrink=True) refuses them (the 20-model
runs of results_calibration_shrink_k20.md on 30 questions predate that rule).  Monte-Carlo standard error of a
bin's observed fraction: sqrt(f (1 - f) / count), with the caveat that the
15 pairs of one replicate are not independent.

    python benchmarks/calibration_shrink.py --reps 150 --out benchmarks/results_calibration_shrink.md
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
from scipy.special import expit, logit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
warnings.simplefilter("ignore")
from _common import bench_parser, finish, pool_map  # noqa: E402
from bayeseval import compare_all  # noqa: E402
from bayeseval.comparison.ranking import SHRINK_QUESTIONS  # noqa: E402
from calibration_pools import POOLS, SETTINGS, pool_p, table, worst_gap  # noqa: E402

K = 6  # models per replicate (--models)
ENSEMBLES = ("normal 0.25", "normal 1.0", "tied + spread")


def shifts(ensemble: str, rng, K: int) -> np.ndarray:
    if ensemble == "normal 0.25":
        return rng.normal(0, 0.25, K)
    if ensemble == "normal 1.0":
        return rng.normal(0, 1.0, K)
    return np.concatenate([np.zeros(K // 2), rng.normal(0, 1.0, K - K // 2)])


def run(args):
    """One cell -> its rows ``(stated flat, stated pooled, d_a - d_b)``, one per pair and replicate."""
    pool, M, N, ensemble, reps, seed, K = args
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(reps):
        d = shifts(ensemble, rng, K)
        p = np.clip(pool_p(pool, M, rng), 1e-12, 1 - 1e-12)
        models = {f"m{k}": (rng.random((M, N)) < expit(logit(p) + d[k])[:, None]).astype(np.int8) for k in range(K)}
        flat, pooled = (compare_all(models, pairs="all", seed=seed + r, resamples=100, draws=2000, shrink=s)
                        for s in (False, True))
        for x, y in zip(flat.pairs, pooled.pairs):
            a, b = int(x["a"][1:]), int(x["b"][1:])
            rows.append((x["p_a_better"], y["p_a_better"], float(d[a] - d[b])))
    return (pool, M, N, ensemble), rows


def _certain(rows, col: int) -> float:
    x = np.array([r[col] for r in rows])
    return 100 * float(np.mean((x <= 0.025) | (x >= 0.975))) if x.size else float("nan")


def summary(res: dict) -> list[str]:
    out = ["| pool | M | N | ensemble | pairs | stated P(A > B): largest gap (points, its MC se; bins beyond 2 se) | "
           "shrink=True: largest gap | tied pairs beyond [0.025, 0.975]: stated / shrink (%) |",
           "|---|---|---|---|---|---|---|---|"]
    for (pool, M, N, ens), rows in res.items():
        ordered = [r for r in rows if r[2] != 0]
        tied = [r for r in rows if r[2] == 0]
        w, se, b = worst_gap([(r[0], r[2] > 0) for r in ordered])
        sw, sse, sb = worst_gap([(r[1], r[2] > 0) for r in ordered])
        t = f"{_certain(tied, 0):.1f} / {_certain(tied, 1):.1f}" if tied else "-"
        out.append(f"| {pool} | {M} | {N} | {ens} | {len(ordered)} | {w:.1f} ({se:.1f}; {b}) | {sw:.1f} ({sse:.1f}; {sb}) "
                   f"| {t} |")
    return out


def _flags(args) -> str:
    """The options of this run that differ from the defaults, as typed."""
    out = f" --models {args.models}" if args.models != K else ""
    if args.ensembles != ";".join(ENSEMBLES):
        out += f" --ensembles '{args.ensembles}'"
    if args.pools != ";".join(POOLS):
        out += f" --pools '{args.pools}'"
    return out


def main(argv=None) -> int:
    ap = bench_parser(__doc__, 150, "replicates per (pool, setting, ensemble)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--models", type=int, default=K, help=f"models per replicate (default {K})")
    ap.add_argument("--ensembles", default=";".join(ENSEMBLES), help="a subset of the ensembles, separated by ';'")
    ap.add_argument("--pools", default=";".join(POOLS), help="a subset of the pools, separated by ';'")
    args = ap.parse_args(argv)
    ensembles = [e for e in ENSEMBLES if e in args.ensembles.split(";")]
    pools = [p for p in POOLS if p in args.pools.split(";")]
    if not ensembles or not pools:
        ap.error(f"--ensembles / --pools: choose among {ENSEMBLES} and {POOLS}")
    settings = [(M, N) for M, N in SETTINGS if M >= SHRINK_QUESTIONS * args.models]  # compare_all refuses fewer
    if not settings:
        ap.error(f"--models {args.models}: shrink needs {SHRINK_QUESTIONS} questions per model; the settings have "
                 f"{[M for M, _ in SETTINGS]} questions")
    tasks = [(pool, M, N, ens, args.reps, 7000 + 100 * i + 10 * j + e + 1000 * (args.models != K), args.models)
             for e, ens in enumerate(ENSEMBLES) if ens in ensembles for i, pool in enumerate(POOLS) if pool in pools
             for j, (M, N) in enumerate(SETTINGS) if (M, N) in settings]
    results, seconds = pool_map(run, tasks, args.workers)
    res = dict(results)
    out = ["# Calibration of compare_all()'s P(A > B), with and without shrink=True", "",
           f"`python benchmarks/calibration_shrink.py --reps {args.reps}{_flags(args)}`: K = {args.models} models, all "
           f"{args.models * (args.models - 1) // 2} pairs, "
           f"{args.reps} replicates per pool, setting and ensemble; run time {seconds / 60:.1f} min. Default "
           "compare_all() (population scope); see the script's docstring for the design.", "",
           "## Per cell", "",
           "The largest |stated - observed| over the deciles holding at least 50 pairs (in brackets its bin's MC se "
           "and the number of deciles off by more than 2 se), for the stated P(A > B) and with shrink=True; for the "
           "ensemble with tied models, the share of their pairs stated beyond [0.025, 0.975].", ""]
    out += summary(res) + [""]
    for ens in ensembles:
        for M, N in settings:
            rows = [r for (pool, m, n, e), rs in res.items() if (m, n, e) == (M, N, ens) for r in rs if r[2] != 0]
            for col, label in ((0, "stated"), (1, "shrink=True")):
                out += [f"## All pools, M = {M}, N = {N}, {ens}: {label} ({len(rows)} pairs)", ""]
                out += table([(r[col], r[2] > 0) for r in rows]) + [""]
    finish("\n".join(out), args.out, args.json, {"|".join(map(str, k)): v for k, v in res.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
