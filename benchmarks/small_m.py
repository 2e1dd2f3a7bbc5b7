"""Which side do the population-scope intervals miss on at very few questions (M <= 8)?  (Issue "Honest by
default".)

At M <= 4 every population-scope estimate that is not at the end of its range warns that few questions carry
it (``carrying_questions`` is at most M), and the default interval (``interval="auto"``) widens to Clopper-Pearson's
interval on the summed scores, which moves mostly the far end (away from the end of the range nearer the estimate).
Does the near end then miss more than its share (2.5% for a 95% interval)?  Per cell: the share of
replicates warned, and the misses below the lower end and above the upper end, of the exact (posterior)
interval and of the default, with the pools of ``coverage_robust.py`` (its pool means as the truth).

    python benchmarks/small_m.py --reps 1000 --out benchmarks/results_small_m.md   # about 3 min on 2 cores
"""

from __future__ import annotations

import itertools
import os
import sys

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from _common import bench_parser, finish, pool_map  # noqa: E402
from coverage_robust import draw_p, metric_name, pool_mean, pools  # noqa: E402

from bayeseval.counts import to_counts  # noqa: E402
from bayeseval.posterior import build, interval_from_draws  # noqa: E402
from bayeseval.results import WIDENING_METHODS, resolve_interval, widen  # noqa: E402

LEVEL = 0.95
MS = (3, 4, 5, 8)
N = 4
METRICS = ("avg", "pass@k", "pass^k")  # k = 3 of 4 trials
POOLS = ("Beta(0.5,0.5)", "Beta(2,5)", "two clusters", "three clusters", "logit-normal(0,2)", "real: cruxeval")


def run_cell(args):
    M, pool_name, metric, reps, seed = args
    pool = pools()[pool_name]
    rng = np.random.default_rng(seed)
    name = metric_name(metric, N)
    probe = build(to_counts(np.ones((1, N), np.int8)), name, prior="uniform")
    truth = pool_mean(pool, np.array([0.0, 1.0]) if metric == "avg" else probe.C[:, 0])
    miss = {(m, side): 0 for m in ("exact", "default") for side in ("below", "above")}
    warned = 0
    for _ in range(reps):
        p = draw_p(rng, pool, M)
        post = build(to_counts((rng.random((M, N)) < p[:, None]).astype(np.int8)), name)
        lo, hi = interval_from_draws(post.draws("population", 2000, rng), LEVEL, "exact")
        miss["exact", "below"] += truth < lo - 1e-12
        miss["exact", "above"] += truth > hi + 1e-12
        if resolve_interval(post, "population", "auto") in WIDENING_METHODS:
            warned += 1
            lo, hi = widen(post, "population", LEVEL, lo, hi, int(rng.integers(2**31)))
        miss["default", "below"] += truth < lo - 1e-12
        miss["default", "above"] += truth > hi + 1e-12
    return (M, pool_name, metric), warned, miss, truth


def main(argv=None) -> int:
    ap = bench_parser(__doc__, 1000, "replicates per cell (default 1000)")
    args = ap.parse_args(argv)
    tasks = [(M, pool, metric, args.reps, 9100 + i)
             for i, (M, pool, metric) in enumerate(itertools.product(MS, POOLS, METRICS))]
    results, elapsed = pool_map(run_cell, tasks, args.workers)
    r = args.reps
    hi_share = stats.binom.ppf(0.975, r, 0.025) / r  # one side's miss share that noise alone reaches 2.5% of the time
    out = ["# Misses by side of 95% population-scope intervals at very few questions", "",
           f"`python benchmarks/small_m.py --reps {r}`: N = {N} trials, k = 3; {r} replicates per cell; the pools of "
           f"coverage_robust.py (their means as the truth); run time {elapsed / 60:.1f} min. A side misses its share "
           f"when it misses more than 2.5%; with {r} replicates, noise alone takes a side above {100 * hi_share:.1f}% "
           "in 2.5% of cells. warned: the share of replicates whose result warns that few questions carry the "
           "estimate (where the default widens to Clopper-Pearson's on the summed scores).", "",
           "| M | pool | metric | warned % | exact: below / above % | default: below / above % |",
           "|---|---|---|---|---|---|"]
    worst = {"exact": 0.0, "default": 0.0}
    for (M, pool, metric), warned, miss, truth in results:
        for m in worst:
            worst[m] = max(worst[m], miss[m, "below"] / r, miss[m, "above"] / r)
        out.append(f"| {M} | {pool} | {metric_name(metric, N)} | {100 * warned / r:.0f} | "
                   f"{100 * miss['exact', 'below'] / r:.1f} / {100 * miss['exact', 'above'] / r:.1f} | "
                   f"{100 * miss['default', 'below'] / r:.1f} / {100 * miss['default', 'above'] / r:.1f} |")
    out += ["", f"Largest miss share of one side over all cells: exact {100 * worst['exact']:.1f}%, default "
            f"{100 * worst['default']:.1f}%."]
    return finish("\n".join(out), args.out, None, None)


if __name__ == "__main__":
    raise SystemExit(main())
