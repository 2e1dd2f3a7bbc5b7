"""Does the population-scope warning "rests on about X of M questions" pick out the replicates whose intervals
are too narrow?  (Issue "Honest by default".)

For cells of the coverage grid (``coverage_robust.py``'s pools and metrics; the exact 95% interval, the
posterior's own), each replicate records ``carrying_questions()`` (the questions that carry the estimate's
distance from the nearer end of the range; the result warns where it is above 0 and below 5) and whether the
population-scope interval covered the pool's value.  Printed per cell: the share of replicates warned, and the
coverage among warned and unwarned replicates with exact binomial 95% intervals; and among the warned, the
coverage of the default interval (``interval="auto"``), which widens the exact interval to Clopper-Pearson's on
the summed scores there (their hull), and of the exact interval widened to the betting interval's instead
(``interval="exact+betting"``, the default before).

    python benchmarks/few_carrying.py --reps 300 --out benchmarks/results_few_carrying.md   # about 10 s, 2 cores
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from _common import bench_parser, finish  # noqa: E402
from coverage_robust import draw_p, metric_name, pool_mean, pools  # noqa: E402

from bayeseval.counts import to_counts  # noqa: E402
from bayeseval.posterior import build, interval_from_draws  # noqa: E402
from bayeseval.posterior.robust import FEW_CARRYING  # noqa: E402
from bayeseval.results import widen  # noqa: E402

#: (M, N, pool, metric): population-scope cells below the floor in results_coverage_confirm.md (and pass@8 on
#: logit-normal at M = 15, just above it), a U-shaped pool, and three cells within the floor
CELLS = [
    (15, 64, "logit-normal(0,2)", "pass^k"),
    (15, 16, "logit-normal(0,2)", "pass@k"),
    (30, 64, "logit-normal(0,2)", "pass^k"),
    (30, 64, "Beta(2,5)", "pass@k"),
    (15, 16, "Beta(0.5,0.5)", "pass@k"),
    (15, 4, "Beta(2,5)", "avg"),
    (15, 64, "three clusters", "maj@k"),
    (30, 16, "two clusters", "pass^k"),
]


def run(cell, reps: int, seed: int):
    M, N, pool_name, metric = cell
    pool = pools()[pool_name]
    rng = np.random.default_rng(seed)
    rng_w = np.random.default_rng(seed + 20_000)  # the betting interval's question orders
    name = metric_name(metric, N)
    c = build(to_counts(np.ones((1, N), np.int8)), name, prior="uniform").C[:, 0]
    truth = pool_mean(pool, c)
    warned, hit, hit_default, hit_bet = (np.zeros(reps, bool) for _ in range(4))
    ratio = []  # the default's width over the betting-widened one's, warned replicates
    for r in range(reps):
        p = draw_p(rng, pool, M)
        post = build(to_counts((rng.random((M, N)) < p[:, None]).astype(np.int8)), name)
        lo, hi = interval_from_draws(post.draws("population", 1000, rng), 0.95, "exact")
        warned[r] = post.few_carrying("population") is not None
        hit[r] = lo - 1e-12 <= truth <= hi + 1e-12
        if warned[r]:
            seed_w = int(rng_w.integers(2**31))
            b_lo, b_hi = widen(post, "population", 0.95, lo, hi, seed_w, "exact+betting")
            lo, hi = widen(post, "population", 0.95, lo, hi, seed_w)
            hit_bet[r] = b_lo - 1e-12 <= truth <= b_hi + 1e-12
            ratio.append((hi - lo) / (b_hi - b_lo))
        hit_default[r] = lo - 1e-12 <= truth <= hi + 1e-12
    return warned, hit, hit_default, hit_bet, float(np.median(ratio)) if ratio else math.nan


def _share(hit: np.ndarray) -> str:
    if hit.size == 0:
        return "-"
    ci = stats.binomtest(int(hit.sum()), hit.size).proportion_ci(0.95, "exact")
    return f"{100 * hit.mean():.1f} [{100 * ci.low:.1f}, {100 * ci.high:.1f}] ({hit.size})"


def main(argv=None) -> int:
    ap = bench_parser(__doc__, 300)
    args = ap.parse_args(argv)
    lines = ["# The population-scope warning on few carrying questions, against coverage", "",
             f"`python benchmarks/few_carrying.py --reps {args.reps}`: the exact 95% interval (the posterior's own), "
             f"population scope; warned: `0 < carrying_questions() < {FEW_CARRYING:g}`; the default interval (auto) "
             "widens the exact interval to Clopper-Pearson's on the summed scores in the warned replicates; "
             "exact+betting widens its far end to the betting interval's instead (the default before). Coverage % "
             "[exact 95% interval] (replicates); width: the median over warned replicates of the default's width "
             "over exact+betting's.", "",
             "| pool | M | N | metric | warned % | coverage, warned | coverage, not warned | default, warned "
             "| exact+betting, warned | width |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    import multiprocessing as mp

    with mp.Pool(args.workers) as pool_:
        results = pool_.starmap(run, [(cell, args.reps, 5100 + i) for i, cell in enumerate(CELLS)], chunksize=1)
    for cell, (warned, hit, hit_default, hit_bet, ratio) in zip(CELLS, results):
        M, N, pool, metric = cell
        lines.append(f"| {pool} | {M} | {N} | {metric_name(metric, N)} | {100 * warned.mean():.0f} | "
                     f"{_share(hit[warned])} | {_share(hit[~warned])} | {_share(hit_default[warned])} | "
                     f"{_share(hit_bet[warned])} | {ratio:.2f} |")
    return finish("\n".join(lines), args.out)


if __name__ == "__main__":
    raise SystemExit(main())
