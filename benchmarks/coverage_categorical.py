"""Coverage study for categorical outcomes: avg with weights under the pooled Dirichlet prior.

Simulates benchmarks of M questions x N trials with K = 10 categories (weights
w_c = c / 9, so scores lie in [0, 1]); each question's category probabilities
p_i come from a pool, and every interval is scored against its own scope's
estimand:

* benchmark scope: the mean of p_i . w over the simulated questions;
* population scope: the pool's mean E[p . w] (known in closed form).

Pools (the first three are the model's own family, the last is not):

* ``Dirichlet s=2``   -- p ~ Dirichlet(2 m0): questions very different;
* ``Dirichlet s=20``  -- p ~ Dirichlet(20 m0);
* ``Dirichlet s=200`` -- p ~ Dirichlet(200 m0): questions nearly alike;
* ``ordinal``         -- grades around a question-specific level: mu_i ~ Beta(3, 2),
  p_i = Binomial(9, mu_i) over the categories (not a Dirichlet pool);

with m0 a fixed, skewed mean (E[p . w] = 0.654).  Grid: M in {15, 50, 200}, N in
{1, 5, 20}; priors ``hierarchical-dirichlet`` (the default for avg) and the
independent uniform ``dirichlet`` (Dirichlet(1, ..., 1) per question, the prior of
Bayes@N); both scopes; normal and exact intervals.

    python benchmarks/coverage_categorical.py                  # the table (about 8 min on 2 cores)
    python benchmarks/coverage_categorical.py --reps 40        # quicker, noisier
    python benchmarks/coverage_categorical.py --out benchmarks/results_coverage_categorical.md

Monte-Carlo standard error of one cell's coverage is sqrt(0.95 * 0.05 / reps).
"""

from __future__ import annotations

import itertools
import math
import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from _common import bench_parser, finish, run_cells  # noqa: E402
from bayeseval.counts import Counts  # noqa: E402
from bayeseval.posterior import interval_from_draws, posterior_for  # noqa: E402
from bayeseval.priors import PriorSpec  # noqa: E402
from bayeseval.targets import parse  # noqa: E402

LEVEL = 0.95
K = 10
W = np.arange(K) / (K - 1)
M0 = np.array([0.02, 0.03, 0.05, 0.07, 0.09, 0.12, 0.16, 0.18, 0.15, 0.13])  # a skewed pool mean
MS = (15, 50, 200)
NS = (1, 5, 20)
POOLS = ("Dirichlet s=2", "Dirichlet s=20", "Dirichlet s=200", "ordinal")
PRIORS = ("hierarchical-dirichlet", "dirichlet")
SCOPES = ("benchmark", "population")
METHODS = ("normal", "exact")
ORDINAL = (3.0, 2.0)  # mu_i ~ Beta(3, 2)


def draw_p(rng: np.random.Generator, pool: str, M: int) -> np.ndarray:
    if pool.startswith("Dirichlet"):
        s = float(pool.split("=")[1])
        return rng.dirichlet(s * M0, size=M)
    mu = rng.beta(*ORDINAL, size=M)
    return stats.binom.pmf(np.arange(K)[None, :], K - 1, mu[:, None])


def pool_mean(pool: str) -> float:
    if pool.startswith("Dirichlet"):
        return float(M0 @ W)
    a, b = ORDINAL
    return a / (a + b)  # E[Binomial(9, mu) / 9] = E[mu]


def run_cell(args):
    M, N, pool, reps, draws, seed = args
    rng = np.random.default_rng(seed)
    spec = parse("avg")
    truth_pop = pool_mean(pool)
    z = stats.norm.ppf(0.5 + LEVEL / 2)
    keys = list(itertools.product(PRIORS, SCOPES, METHODS))
    hits = {k: 0 for k in keys}
    width = {k: 0.0 for k in keys}
    for _ in range(reps):
        p = draw_p(rng, pool, M)
        table = np.stack([rng.multinomial(N, q) for q in p])
        counts = Counts.from_table(table, W)
        truth = {"benchmark": float((p @ W).mean()), "population": truth_pop}
        for prior in PRIORS:
            post = posterior_for(counts, spec, PriorSpec(prior), w=W)
            for scope in SCOPES:
                mean, sd = post.moments(scope)
                ivs = {"normal": (max(mean - z * sd, 0.0), min(mean + z * sd, 1.0)),
                       "exact": interval_from_draws(post.draws(scope, draws, rng), LEVEL, "exact")}
                for method, (lo, hi) in ivs.items():
                    key = (prior, scope, method)
                    hits[key] += lo - 1e-12 <= truth[scope] <= hi + 1e-12
                    width[key] += hi - lo
    return (M, N, pool), {k: v / reps for k, v in hits.items()}, {k: v / reps for k, v in width.items()}


def main(argv=None) -> int:
    ap = bench_parser(__doc__, 160, "replicates per cell (default 160; half that at M = 200)")
    ap.add_argument("--draws", type=int, default=1000, help="posterior draws per exact interval")
    args = ap.parse_args(argv)
    tasks = [(M, N, pool, args.reps if M < 200 else max(1, args.reps // 2), args.draws, 2000 + i)
             for i, (M, N, pool) in enumerate(itertools.product(MS, NS, POOLS))]
    tasks.sort(key=lambda t: -t[0])  # the slow (large M) cells first
    cov, wid, elapsed = run_cells(run_cell, tasks, args.workers)
    finish(render(cov, wid, args, elapsed), args.out)
    return 0


def render(cov, wid, args, elapsed) -> str:
    out = ["# Coverage of 95% intervals: categorical avg (K = 10 categories, weights c / 9)", ""]
    half = max(1, args.reps // 2)
    out.append(f"Replicates per cell: {args.reps} (M < 200), {half} (M = 200); MC standard error of one cell about "
               f"{100 * math.sqrt(0.95 * 0.05 / args.reps):.1f} / {100 * math.sqrt(0.95 * 0.05 / half):.1f} points; "
               f"{args.draws} posterior draws per exact "
               f"interval; run time {elapsed / 60:.1f} min.  Produced by `python benchmarks/coverage_categorical.py`.")
    out.append("")
    out.append("## Average coverage % over the grid (normal / exact)")
    out.append("")
    out.append("| prior | scope | Dirichlet pools | ordinal pool | all cells | worst cell (exact) |")
    out.append("|---|---|---|---|---|---|")
    for prior in PRIORS:
        for scope in SCOPES:
            row = [prior, scope]
            for sel in (lambda c: c[2] != "ordinal", lambda c: c[2] == "ordinal", lambda c: True):
                cells = [c for c in cov if sel(c)]
                vals = [np.mean([cov[c][(prior, scope, m)] for c in cells]) for m in METHODS]
                row.append(" / ".join(f"{100 * v:.1f}" for v in vals))
            worst = min(cov, key=lambda c: cov[c][(prior, scope, "exact")])
            row.append(f"{100 * cov[worst][(prior, scope, 'exact')]:.0f} (M={worst[0]}, N={worst[1]}, {worst[2]})")
            out.append("| " + " | ".join(row) + " |")
    for scope in SCOPES:
        out.append("")
        out.append(f"## scope={scope}: coverage % normal / exact (mean width of the exact interval); "
                   "**bold** = exact below 92.5")
        out.append("")
        out.append("| M | N | pool | " + " | ".join(PRIORS) + " |")
        out.append("|---|---|---|" + "---|" * len(PRIORS))
        for cell in sorted(cov, key=lambda c: (c[0], c[1], POOLS.index(c[2]))):
            row = [str(cell[0]), str(cell[1]), cell[2]]
            for prior in PRIORS:
                n_, e_ = (100 * cov[cell][(prior, scope, m)] for m in METHODS)
                e_txt = f"**{e_:.0f}**" if e_ < 92.5 else f"{e_:.0f}"
                row.append(f"{n_:.0f} / {e_txt} ({wid[cell][(prior, scope, 'exact')]:.3f})")
            out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
