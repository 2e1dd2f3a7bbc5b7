"""Population scope over the whole coverage grid: the exact interval against second-order alternatives and the default.

``tail_cells.py`` shows that on the few population-scope cells below the floor only the studentized bootstrap
keeps its level (by being wide), and a skewness correction is the textbook remedy for a skewed mean.  Before
either could replace the exact interval, it has to hold on every pool, not only on the tail cells; the default
that did (``interval="auto"``) is measured here beside them.  This script runs
the population scope of ``coverage_robust.py``'s grid (same pools, M, N >= 4, k, seeds) for:

* exact -- the equal-tailed interval of ``bayeseval``'s population posterior (studentized Dirichlet-process
  posterior; the default before ``"auto"``);
* bootstrap-t -- the studentized bootstrap over questions (``interval="bootstrap-t"``; 2,000 resamples);
* hull -- the smallest interval holding both the exact and the bootstrap-t interval (the rule of
  ``interval="exact+bootstrap-t"``, here with 1,000 posterior draws and 2,000 resamples); "hull if warned" only
  where the result warns that few questions carry it (``carrying_questions() < 5``), the exact interval elsewhere;
* default -- the library's default now (``interval="auto"``): the exact interval, widened to Clopper-Pearson's
  interval on the summed scores (their hull) where the result warns;
* Hall -- the exact interval with each side stretched by Hall's skewness-correcting transformation: the side's
  half-width times the ratio of Hall's interval to the t interval on that side, both at the t_{M-1} quantile
  (symmetric scores leave the exact interval as it is; Hall 1992, "On the removal of skewness by transformation",
  JRSS-B 54(1): ``g(T) = T + a T^2 + a^2 T^3 / 3 + b``, ``a = gamma / (3 sqrt(M))``, ``b = gamma / (6
  sqrt(M))``, ``gamma`` the scores' sample skewness).

Replicates whose scores are all alike (bootstrap-t has nothing to resample; ``interval="bootstrap-t"`` refuses
them) take the exact interval in the bootstrap-t and hull columns.

For each method and metric: cells outside the floor beyond Monte-Carlo noise (the exact binomial interval of
the cell's coverage wholly below 93%, 91% at M = 15, or above 97% at M >= 30), the lowest cell, and the mean
width.

    python benchmarks/population_alternatives.py --out benchmarks/results_population_alternatives.md  # 2-6 min
"""

from __future__ import annotations

import itertools
import math
import os
import sys

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from _common import bench_parser, finish, run_cells  # noqa: E402
from coverage_robust import MS, NS, draw_p, metric_name, pool_mean, pools  # noqa: E402
from bayeseval.counts import to_counts  # noqa: E402
from bayeseval.posterior import build, interval_from_draws  # noqa: E402
from bayeseval.posterior.bootstrap import bootstrap_t  # noqa: E402
from bayeseval.posterior.robust import FEW_CARRYING  # noqa: E402
from bayeseval.results import WIDENING_METHODS, resolve_interval, widen  # noqa: E402

LEVEL = 0.95
METRICS = ("avg", "pass@k", "pass^k", "maj@k")
METHODS = ("exact", "bootstrap-t", "Hall", "hull", "hull if warned", "default")
RESAMPLES = 2000


def hall_stretch(x: np.ndarray, f: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
    """The interval ``(lo, hi)`` about the mean of scores ``x`` (``f`` questions each), each side stretched by the
    ratio of Hall's transformed-t interval to the t interval on that side (unchanged where the scores are all
    alike)."""
    M = float(f.sum())
    m = float(f @ x) / M
    ss = float(f @ (x - m) ** 2)
    if ss <= 0.0:
        return lo, hi
    se = math.sqrt(ss / (M - 1.0) / M)
    gamma = float(f @ (x - m) ** 3) / M / (ss / M) ** 1.5
    a, b = gamma / (3.0 * math.sqrt(M)), gamma / (6.0 * math.sqrt(M))

    def inverse(y):  # g^{-1}: g(t) = ((1 + a t)^3 - 1) / (3 a) + b
        return y - b if abs(a) < 1e-12 else (np.cbrt(1.0 + 3.0 * a * (y - b)) - 1.0) / a

    q = stats.t.ppf(0.5 + LEVEL / 2, M - 1)  # one quantile for both, so no skewness leaves the interval as it is
    up, down = -se * inverse(-q), se * inverse(q)  # Hall's half-widths above and below the mean
    return m - (m - lo) * down / (q * se), m + (hi - m) * up / (q * se)


def run_cell(args):
    M, N, pool_name, reps, seed = args
    pool = pools()[pool_name]
    rng = np.random.default_rng(seed)
    rng_m = np.random.default_rng(seed + 10_000)  # the methods' draws: the replicates do not depend on them
    rng_w = np.random.default_rng(seed + 20_000)  # the betting interval's question orders (the others keep theirs)
    probe = to_counts(np.ones((1, N), np.int8))
    names = {m: metric_name(m, N) for m in METRICS}
    cs = {m: (np.array([0.0, 1.0]) if m == "avg" else build(probe, names[m], prior="uniform").C[:, 0]) for m in METRICS}
    truth = {m: pool_mean(pool, cs[m]) for m in METRICS}
    hits = {f"{m}|{k}": 0 for m in METRICS for k in METHODS}
    width = dict.fromkeys(hits, 0.0)
    for _ in range(reps):
        p = draw_p(rng, pool, M)
        counts = to_counts((rng.random((M, N)) < p[:, None]).astype(np.int8))
        for m in METRICS:
            post = build(counts, names[m])
            x, f = np.asarray(post.state_scores(), dtype=np.float64), np.asarray(post.freq, dtype=np.float64)
            lo, hi = interval_from_draws(post.draws("population", 1000, rng_m), LEVEL, "exact")
            ivs = {"exact": (lo, hi), "Hall": hall_stretch(x, f, lo, hi)}
            alike = not post.miller_se()  # every question scores alike: nothing to resample
            ivs["bootstrap-t"] = (lo, hi) if alike else bootstrap_t(x, f, LEVEL, RESAMPLES, rng_m, (0.0, 1.0))
            ivs["hull"] = (min(lo, ivs["bootstrap-t"][0]), max(hi, ivs["bootstrap-t"][1]))
            ivs["hull if warned"] = ivs["hull"] if 0.0 < post.carrying_questions() < FEW_CARRYING else (lo, hi)
            auto = resolve_interval(post, "population", "auto") in WIDENING_METHODS
            ivs["default"] = widen(post, "population", LEVEL, lo, hi, int(rng_w.integers(2**31))) if auto else (lo, hi)
            for k, (a, b) in ivs.items():
                a, b = max(a, 0.0), min(b, 1.0)
                hits[f"{m}|{k}"] += a - 1e-12 <= truth[m] <= b + 1e-12
                width[f"{m}|{k}"] += b - a
    return (M, N, pool_name), {k: v / reps for k, v in hits.items()}, {k: v / reps for k, v in width.items()}


def render(cov, wid, reps, elapsed) -> str:
    out = ["# Population scope over the coverage grid: the exact interval against bootstrap-t, their hull, a skewness "
           "correction and the default (widened to Clopper-Pearson's on the summed scores where warned)", "",
           f"`python benchmarks/population_alternatives.py --reps {reps}`: the pools, M, N >= 4, k and seeds of "
           f"coverage_robust.py; {reps} replicates a cell, the same replicates for every method; 95% intervals; "
           f"{elapsed / 60:.1f} min. Replicates whose scores are all alike (nothing to resample; "
           "`interval=\"bootstrap-t\"` refuses them) take the exact interval in the bootstrap-t and hull columns; "
           "Hall: each side of the exact interval stretched by Hall's transformed-t interval over the t interval; "
           "default: the library's default interval (`interval=\"auto\"`), the exact interval widened to "
           "Clopper-Pearson's on the summed scores where the result warns that few questions carry the metric.", "",
           "Cells outside the floor beyond Monte-Carlo noise (exact binomial interval of the cell's coverage wholly "
           "below 93%, 91% at M = 15, or above 97% at M >= 30), of the 84 cells per metric; lowest cell; mean width:", "",
           "| metric | method | below | above | lowest cell | mean coverage % | mean width |", "|---|---|---|---|---|---|---|"]
    for m in METRICS:
        for k in METHODS:
            key = f"{m}|{k}"
            below = above = 0
            for cell, c in cov.items():
                x = round(c[key] * reps)
                ci = stats.binomtest(x, reps).proportion_ci(0.95, "exact")
                below += ci.high < (0.91 if cell[0] == 15 else 0.93)
                above += cell[0] >= 30 and ci.low > 0.97
            low = min(cov, key=lambda cell: cov[cell][key])
            mean_c = 100 * float(np.mean([c[key] for c in cov.values()]))
            mean_w = float(np.mean([w[key] for w in wid.values()]))
            out.append(f"| {m} | {k} | {below} | {above} | {100 * cov[low][key]:.1f} ({low[2]}, M={low[0]}, "
                       f"N={low[1]}) | {mean_c:.1f} | {mean_w:.3f} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = bench_parser(__doc__, 300)
    args = ap.parse_args(argv)
    tasks = [(M, N, pool, args.reps, 7000 + i) for i, (M, N, pool) in enumerate(itertools.product(MS, NS, pools()))
             if N >= 4]
    tasks.sort(key=lambda t: -t[0] * t[1])
    cov, wid, elapsed = run_cells(run_cell, tasks, args.workers)
    return finish(render(cov, wid, args.reps, elapsed), args.out)


if __name__ == "__main__":
    raise SystemExit(main())
