"""Coverage study: do bayeseval's 95% intervals hold their level, in both scopes?

Simulates benchmarks with M questions x N trials, per-question success
probabilities p_i drawn from a population shape, and checks how often each
interval contains its own scope's estimand:

* benchmark scope: the mean of g(p_i) over the simulated questions;
* population scope: the population mean E[g(p)] (numerical integration).

Grid: M in {15, 30, 100, 500}, N in {1, 4, 16, 80}; shapes uniform Beta(1,1),
U-shaped Beta(0.3,0.3), concentrated near 0.05 Beta(2,38) and near 0.95
Beta(38,2), plus a non-Beta robustness shape (an equal mixture of Beta(4,36)
and Beta(36,4)) reported separately; metrics avg, pass@k, pass^k, maj@k with
k = 1, 3, 8, 20 for N = 1, 4, 16, 80.  For every cell: prior (hierarchical,
uniform) x scope x interval method (normal, exact, hdi).

    python benchmarks/coverage.py                # full study (about 30-60 min on 2 cores)
    python benchmarks/coverage.py --quick        # a few cells, few replicates
    python benchmarks/coverage.py --out benchmarks/results_coverage.md

Replicates and draws per cell are printed with the results; Monte-Carlo
standard error of one cell's coverage is sqrt(0.95 * 0.05 / reps).
"""

from __future__ import annotations

import itertools
import math
import os
import sys

import numpy as np
from scipy import integrate, stats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from _common import bench_parser, finish, run_cells  # noqa: E402
from bayeseval.counts import to_counts  # noqa: E402
from bayeseval.metrics.engine import bernstein_eval  # noqa: E402
from bayeseval.posterior import interval_from_draws, posterior_for  # noqa: E402
from bayeseval.priors import PriorSpec  # noqa: E402
from bayeseval.targets import parse  # noqa: E402

LEVEL = 0.95
MS = (15, 30, 100, 500)
NS = (1, 4, 16, 80)
K_FOR_N = {1: 1, 4: 3, 16: 8, 80: 20}
SHAPES = {
    "uniform": [(1.0, 1.0, 1.0)],
    "U-shaped": [(0.3, 0.3, 1.0)],
    "near 0.05": [(2.0, 38.0, 1.0)],
    "near 0.95": [(38.0, 2.0, 1.0)],
    "mixture (non-Beta)": [(4.0, 36.0, 0.5), (36.0, 4.0, 0.5)],
}
MAIN_SHAPES = ("uniform", "U-shaped", "near 0.05", "near 0.95")
METRICS = ("avg", "pass@k", "pass^k", "maj@k")
PRIORS = ("hierarchical", "uniform")
SCOPES = ("benchmark", "population")
METHODS = ("normal", "exact", "hdi")


def spec_for(metric: str, N: int):
    if metric == "avg":
        return parse("avg")
    return parse(metric, k=K_FOR_N[N])


def coefficients(spec):
    return np.array([0.0, 1.0]) if spec.kind == "mean" else spec.coefficients


def draw_p(rng, shape: str, M: int) -> np.ndarray:
    comps = SHAPES[shape]
    which = rng.choice(len(comps), size=M, p=[c[2] for c in comps])
    a = np.array([c[0] for c in comps])[which]
    b = np.array([c[1] for c in comps])[which]
    return rng.beta(a, b)


def population_value(shape: str, c: np.ndarray) -> float:
    total = 0.0
    for a, b, wt in SHAPES[shape]:
        val, _ = integrate.quad(lambda p: float(bernstein_eval(c, np.array([p]))[0]) * stats.beta.pdf(p, a, b),
                                0, 1, limit=200, epsabs=1e-12, epsrel=1e-10)
        total += wt * val
    return total


def run_cell(args):
    M, N, shape, reps, draws, seed = args
    rng = np.random.default_rng(seed)
    specs = {m: spec_for(m, N) for m in METRICS}
    cs = {m: coefficients(s) for m, s in specs.items()}
    truth_pop = {m: population_value(shape, cs[m]) for m in METRICS}
    hits = {key: 0 for key in itertools.product(METRICS, PRIORS, SCOPES, METHODS)}
    width = {key: 0.0 for key in hits}
    for _ in range(reps):
        p = draw_p(rng, shape, M)
        R = (rng.random((M, N)) < p[:, None]).astype(np.int8)
        counts = to_counts(R)
        for m in METRICS:
            truth = {"benchmark": float(bernstein_eval(cs[m], p).mean()), "population": truth_pop[m]}
            for prior in PRIORS:
                pspec = PriorSpec("hierarchical") if prior == "hierarchical" else PriorSpec("beta", 1.0, 1.0)
                post = posterior_for(counts, specs[m], pspec)
                for scope in SCOPES:
                    mean, sd = post.moments(scope)
                    z = stats.norm.ppf(0.5 + LEVEL / 2)
                    lo_b, hi_b = post.range
                    ivs = {"normal": (max(mean - z * sd, lo_b), min(mean + z * sd, hi_b))}
                    x = post.draws(scope, draws, rng)
                    ivs["exact"] = interval_from_draws(x, LEVEL, "exact")
                    ivs["hdi"] = interval_from_draws(x, LEVEL, "hdi")
                    for method, (lo, hi) in ivs.items():
                        key = (m, prior, scope, method)
                        hits[key] += lo - 1e-12 <= truth[scope] <= hi + 1e-12
                        width[key] += hi - lo
    return (M, N, shape), {"|".join(k): v / reps for k, v in hits.items()}, {"|".join(k): v / reps for k, v in width.items()}


def main(argv=None) -> int:
    ap = bench_parser(__doc__, None, "replicates per cell (default 300; 150 for M = 500)")
    ap.add_argument("--quick", action="store_true", help="M in {30, 100}, N in {4, 16}, 40 replicates")
    ap.add_argument("--draws", type=int, default=1000, help="posterior draws per exact / hdi interval")
    ap.add_argument("--json", default=None, help="write raw coverage numbers as JSON")
    args = ap.parse_args(argv)
    ms, ns = ((30, 100), (4, 16)) if args.quick else (MS, NS)
    tasks = []
    for i, (M, N, shape) in enumerate(itertools.product(ms, ns, SHAPES)):
        reps = args.reps or (40 if args.quick else (150 if M >= 500 else 300))
        tasks.append((M, N, shape, reps, args.draws, 1000 + i))
    cov, wid, elapsed = run_cells(run_cell, tasks, args.workers)
    report = render(cov, wid, tasks, elapsed, args)
    finish(report, args.out, args.json, {"|".join(map(str, k)): v for k, v in cov.items()})
    return 0


def render(cov, wid, tasks, elapsed, args) -> str:
    out = ["# Coverage of 95% intervals", ""]
    reps = sorted({t[3] for t in tasks})
    out.append(f"Replicates per cell: {', '.join(map(str, reps))} (MC standard error of one cell about "
               f"{100 * math.sqrt(0.95 * 0.05 / min(reps)):.1f} points); {args.draws} posterior draws per "
               f"exact / hdi interval; k = {K_FOR_N} for N; run time {elapsed / 60:.1f} min.")
    out.append("")
    out.append("## Average coverage over cells with M >= 30 (main shapes; all four metrics)")
    out.append("")
    out.append("| prior | scope | normal | exact | hdi |")
    out.append("|---|---|---|---|---|")
    cells = [c for c in cov if c[0] >= 30 and c[2] in MAIN_SHAPES]
    for prior in PRIORS:
        for scope in SCOPES:
            row = [prior, scope]
            for method in METHODS:
                vals = [cov[c][f"{m}|{prior}|{scope}|{method}"] for c in cells for m in METRICS]
                row.append(f"{100 * np.mean(vals):.1f}")
            out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append("Same average for the non-Beta robustness shape (mixture of Beta(4,36) and Beta(36,4)), M >= 30:")
    out.append("")
    out.append("| prior | scope | normal | exact | hdi |")
    out.append("|---|---|---|---|---|")
    rcells = [c for c in cov if c[0] >= 30 and c[2] not in MAIN_SHAPES]
    for prior in PRIORS:
        for scope in SCOPES:
            row = [prior, scope]
            for method in METHODS:
                vals = [cov[c][f"{m}|{prior}|{scope}|{method}"] for c in rcells for m in METRICS]
                row.append(f"{100 * np.mean(vals):.1f}" if vals else "-")
            out.append("| " + " | ".join(row) + " |")
    for prior in PRIORS:
        for scope in SCOPES:
            out.append("")
            out.append(f"## prior={prior}, scope={scope}: coverage % (normal / exact / hdi); **bold** = normal below 92.5")
            out.append("")
            out.append("| M | N | shape | " + " | ".join(METRICS) + " |")
            out.append("|---|---|---|" + "---|" * len(METRICS))
            for cell in sorted(cov, key=lambda c: (c[0], c[1], list(SHAPES).index(c[2]))):
                row = [str(cell[0]), str(cell[1]), cell[2]]
                for m in METRICS:
                    vals = [100 * cov[cell][f"{m}|{prior}|{scope}|{meth}"] for meth in METHODS]
                    normal = f"**{vals[0]:.0f}**" if vals[0] < 92.5 else f"{vals[0]:.0f}"
                    row.append(f"{normal} / {vals[1]:.0f} / {vals[2]:.0f}")
                out.append("| " + " | ".join(row) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
