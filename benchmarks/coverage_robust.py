"""Coverage of the default 95% intervals on question pools shaped like real benchmarks (issue "Honest by default").

Pools of per-question success probabilities: Beta(0.5, 0.5) (U-shaped), Beta(2, 5), two clusters (40% of
questions at p = 0.05, 60% at 0.9), three clusters (30% at 0.02, 30% at 0.5, 40% at 0.97), logit-normal(0, 2),
and two pools resampled from the per-question success rates of bundled real data (Game of 24, gpt-4 CoT:
100 questions x 100 samples; CRUXEval-O, the first model).  Grid: M in {15, 30, 100, 500} x N in {1, 4, 16, 64};
metrics avg, pass@k, pass^k, maj@k with k = 1, 3, 8, 16 for N = 1, 4, 16, 64 (k <= N), and pass@2N (k > N:
extrapolation by the population model, reported separately).  Each replicate draws M new questions from the
pool, N trials each, and checks whether each interval contains its scope's estimand:

* benchmark scope: the mean of g(p_i) over the drawn questions;
* population scope: the pool's E[g(p)] (exact sums for discrete pools, numerical integration otherwise).

Besides the library's exact and normal intervals, each cell has an *oracle*: the unbiased estimate +/- 1.96 times
the estimator's true sd (benchmark scope: sqrt(sum_i Var(ghat_i | p_i)) / M from the drawn p_i; population scope:
sd(ghat) / sqrt(M) over the pool), clipped to the range.  Where even the oracle covers more than 97%, the error's
law is too discrete or too skewed for a normal interval with the right variance to sit inside [93, 97].

    python benchmarks/coverage_robust.py --out benchmarks/results_coverage_robust.md   # over 70 min, 2 cores
    python benchmarks/coverage_robust.py --prior hierarchical --out /tmp/before.md     # the previous default
    python benchmarks/coverage_robust.py --quick                                       # a few cells
    python benchmarks/coverage_robust.py --ns 1 --out benchmarks/results_coverage_robust_n1.md  # N = 1 only

Monte-Carlo standard error of one cell: sqrt(0.95 * 0.05 / reps) (1.3 points at 300 replicates).
"""

from __future__ import annotations

import itertools
import math
import os
import sys

import numpy as np
from scipy import integrate, stats
from scipy.special import expit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from _common import bench_parser, finish, run_cells  # noqa: E402
from bayeseval.counts import to_counts  # noqa: E402
from bayeseval.metrics.engine import bernstein_eval, score_table  # noqa: E402
from bayeseval.posterior import build, interval_from_draws  # noqa: E402
from bayeseval.results import WIDENING_METHODS, resolve_interval, widen  # noqa: E402

LEVEL = 0.95
MS = (15, 30, 100, 500)
NS = (1, 4, 16, 64)
K_FOR_N = {1: 1, 4: 3, 16: 8, 64: 16}
METRICS = ("avg", "pass@k", "pass^k", "maj@k", "pass@2N")
SCOPES = ("benchmark", "population")
#: default: the library's default interval ("auto": exact, widened to Clopper-Pearson's interval where the
#: population-scope result warns that few questions carry the metric, or none does); oracle: the normal interval
#: with the estimator's true sd (k <= N)
METHODS = ("default", "exact", "normal", "oracle")
EXAMPLES = os.path.join(HERE, "..", "examples", "data")


def _real_rates(file: str, model: str | None = None, dataset: str | None = None) -> np.ndarray:
    from bayeseval.io import read_outcomes

    o = read_outcomes(os.path.join(EXAMPLES, file))
    c = o.counts(model or o.models[0], dataset)
    return c.successes("avg") / c.n


def pools() -> dict:
    """name -> ("beta", a, b) | ("atoms", values, weights) | ("logitnormal", mu, sd)."""
    g24 = _real_rates("tot_game24.json", "gpt-4 CoT")
    crux = _real_rates("cruxeval.json", dataset="CRUXEval-O")
    return {
        "Beta(0.5,0.5)": ("beta", 0.5, 0.5),
        "Beta(2,5)": ("beta", 2.0, 5.0),
        "two clusters": ("atoms", np.array([0.05, 0.9]), np.array([0.4, 0.6])),
        "three clusters": ("atoms", np.array([0.02, 0.5, 0.97]), np.array([0.3, 0.3, 0.4])),
        "logit-normal(0,2)": ("logitnormal", 0.0, 2.0),
        "real: game24 CoT": ("atoms", g24, np.full(g24.size, 1.0 / g24.size)),
        "real: cruxeval": ("atoms", crux, np.full(crux.size, 1.0 / crux.size)),
    }


def draw_p(rng, pool, M: int) -> np.ndarray:
    kind = pool[0]
    if kind == "beta":
        return rng.beta(pool[1], pool[2], size=M)
    if kind == "atoms":
        return pool[1][rng.choice(pool[1].size, size=M, p=pool[2])]
    return expit(rng.normal(pool[1], pool[2], size=M))


def pool_mean(pool, c: np.ndarray) -> float:
    g = lambda p: float(bernstein_eval(c, np.array([p]))[0])  # noqa: E731
    kind = pool[0]
    if kind == "atoms":
        return float(pool[2] @ bernstein_eval(c, pool[1]))
    if kind == "beta":
        val, _ = integrate.quad(lambda p: g(p) * stats.beta.pdf(p, pool[1], pool[2]), 0, 1, limit=200,
                                epsabs=1e-12, epsrel=1e-10)
        return val
    val, _ = integrate.quad(lambda z: g(float(expit(z))) * stats.norm.pdf(z, pool[1], pool[2]), -40, 40, limit=400,
                            epsabs=1e-12, epsrel=1e-10)
    return val


def metric_name(metric: str, N: int) -> str:
    return "avg" if metric == "avg" else (f"pass@{2 * N}" if metric == "pass@2N" else metric.replace("k", str(K_FOR_N[N])))


def run_cell(args):
    M, N, pool_name, reps, draws, seed, prior = args
    pool = pools()[pool_name]
    rng = np.random.default_rng(seed)
    rng_w = np.random.default_rng(seed + 50_000)  # the betting interval's question orders: the replicates do not
    # depend on them, so the exact, normal and oracle columns are those of a run without the default column
    names = {m: metric_name(m, N) for m in METRICS}
    probe = to_counts(np.ones((1, max(N, 2 * N)), np.int8))
    cs = {m: (np.array([0.0, 1.0]) if m == "avg" else build(probe, names[m], prior="uniform").C[:, 0]) for m in METRICS}
    truth_pop = {m: pool_mean(pool, cs[m]) for m in METRICS}
    tables = {m: score_table(cs[m][:, None], N)[:, 0] for m in METRICS[:4]}  # ghat(t), t = 0..N
    sd_pop = {m: math.sqrt(max(pool_mean(pool, tables[m] ** 2) - truth_pop[m] ** 2, 0.0) / M) for m in tables}
    t_axis = np.arange(N + 1)
    z = stats.norm.ppf(0.5 + LEVEL / 2)
    hits = {key: 0 for key in itertools.product(METRICS, SCOPES, METHODS)}
    width = {key: 0.0 for key in hits}
    for _ in range(reps):
        p = draw_p(rng, pool, M)
        counts = to_counts((rng.random((M, N)) < p[:, None]).astype(np.int8))
        for m in METRICS:
            post = build(counts, names[m], prior=prior)
            g = bernstein_eval(cs[m], p)
            truth = {"benchmark": float(g.mean()), "population": truth_pop[m]}
            if m in tables:
                pmf = stats.binom.pmf(t_axis[None, :], N, p[:, None])
                sd_true = {"benchmark": math.sqrt(max(float((pmf @ tables[m] ** 2 - g**2).sum()), 0.0)) / M,
                           "population": sd_pop[m]}
                est = float(post.freq @ post._scores()[:, 0] / M)  # the unbiased estimate
            for scope in SCOPES:
                mean, sd = post.moments(scope)
                lo_b, hi_b = post.range
                ivs = {"normal": (max(mean - z * sd, lo_b), min(mean + z * sd, hi_b)),
                       "exact": interval_from_draws(post.draws(scope, draws, rng), LEVEL, "exact"),
                       "oracle": ((max(est - z * sd_true[scope], lo_b), min(est + z * sd_true[scope], hi_b))
                                  if m in tables else (math.nan, math.nan))}
                widened = resolve_interval(post, scope, "auto") in WIDENING_METHODS
                ivs["default"] = (widen(post, scope, LEVEL, *ivs["exact"], int(rng_w.integers(2**31))) if widened
                                  else ivs["exact"])
                for method, (lo, hi) in ivs.items():
                    key = (m, scope, method)
                    hits[key] += lo - 1e-12 <= truth[scope] <= hi + 1e-12
                    width[key] += hi - lo
    return ((M, N, pool_name), {"|".join(k): v / reps for k, v in hits.items()},
            {"|".join(k): v / reps for k, v in width.items()})


def _noise_table(cov, cells, reps, method="default") -> list[str]:
    """Cells outside the floor beyond Monte-Carlo noise: the exact (Clopper-Pearson) interval of the cell's
    coverage lies wholly below the floor (93%, or 91% at M = 15) or above 97% (M >= 30), at 95% per cell and
    with a Bonferroni correction over the row's cells (hundreds of cells at 95% flag some by chance alone)."""
    what = "the default interval" if method == "default" else "the exact interval alone, the default before 'auto'"
    out = ["", f"## Cells outside the floor beyond Monte-Carlo noise: {what} (k <= N, N >= 4)", "",
           "A cell counts when the exact binomial interval of its coverage lies wholly outside the floor (below 93%, "
           "91% at M = 15; above 97% at M >= 30): at 95% per cell, and at 95% over the row's cells together "
           "(Bonferroni).  In brackets: how many of the per-cell ones the oracle (the normal interval with the "
           "estimator's true sd) also puts outside the floor (below 93% / 91%, or above 97%).", "",
           "| metric | scope | cells | below: per cell [oracle too] / all cells | above: per cell [oracle too] / all cells | below over all cells (coverage, pool, M, N) |",
           "|---|---|---|---|---|---|"]
    for metric in METRICS[:4]:
        for scope in SCOPES:
            mine = [c for c in cells if c[1] >= 4]
            counts = {"below": [0, 0], "above": [0, 0]}
            oracle = {"below": 0, "above": 0}
            named = []
            for c in mine:
                r = reps[c]
                x = round(cov[c][f"{metric}|{scope}|{method}"] * r)
                floor_lo = 0.91 if c[0] == 15 else 0.93
                for j, level in enumerate((0.95, 1 - 0.05 / len(mine))):
                    ci = stats.binomtest(x, r).proportion_ci(level, "exact")
                    orc = cov[c][f"{metric}|{scope}|oracle"]
                    if ci.high < floor_lo:
                        counts["below"][j] += 1
                        oracle["below"] += j == 0 and orc < floor_lo
                        if j == 1:
                            named.append(f"{100 * x / r:.0f} ({c[2]}, {c[0]}, {c[1]})")
                    if c[0] >= 30 and ci.low > 0.97:
                        counts["above"][j] += 1
                        oracle["above"] += j == 0 and orc > 0.97
            out.append(f"| {metric} | {scope} | {len(mine)} | {counts['below'][0]} [{oracle['below']}] / "
                       f"{counts['below'][1]} | {counts['above'][0]} [{oracle['above']}] / {counts['above'][1]} | "
                       f"{', '.join(named) or '-'} |")
    return out


def _summary_table(cov, cells) -> list[str]:
    """Per metric and scope over the cells with M >= 30 and N >= 4 (k <= N): the default's mean coverage, the
    share of cells within [93, 97] (and the oracle's), the lowest cell; and the lowest cell at M = 15."""
    out = ["", "## Summary per metric and scope (the default interval; cells with M >= 30 and N >= 4, k <= N)", "",
           "| metric | scope | mean | cells in [93, 97] | oracle: cells in [93, 97] | lowest cell (pool, M, N) | "
           "M = 15: lowest |", "|---|---|---|---|---|---|---|"]
    for metric in METRICS[:4]:
        for scope in SCOPES:
            big = [c for c in cells if c[0] >= 30 and c[1] >= 4]
            small = [c for c in cells if c[0] == 15 and c[1] >= 4]
            if not big or not small:
                continue
            v = {c: 100 * cov[c][f"{metric}|{scope}|default"] for c in big}
            orc = [100 * cov[c][f"{metric}|{scope}|oracle"] for c in big]
            low = min(big, key=lambda c: (round(v[c], 1), c))
            inside = np.mean([93 <= round(x, 1) <= 97 for x in v.values()])
            orc_inside = np.mean([93 <= round(x, 1) <= 97 for x in orc])
            low15 = min(100 * cov[c][f"{metric}|{scope}|default"] for c in small)
            out.append(f"| {metric} | {scope} | {np.mean(list(v.values())):.1f} | {100 * inside:.0f}% | "
                       f"{100 * orc_inside:.0f}% | {v[low]:.1f} ({low[2]}, {low[0]}, {low[1]}) | {low15:.1f} |")
    return out


def render(cov, wid, tasks, elapsed, args) -> str:
    reps = sorted({t[3] for t in tasks})
    cells = sorted(cov, key=lambda c: (c[2], c[0], c[1]))
    out = [f"# Coverage of 95% intervals on benchmark-shaped pools (prior={args.prior})", "",
           f"Replicates per cell: {', '.join(map(str, reps))} (MC standard error of a cell about "
           f"{100 * math.sqrt(0.0475 / min(reps)):.1f} points); {args.draws} posterior draws per exact interval; "
           "default: the library's default interval (the exact interval, widened to Clopper-Pearson's interval on the "
           "summed scores where the population-scope result warns that few questions carry the metric, or none does); "
           f"k = 1, 3, 8, 16 for N = 1, 4, 16, 64; run time {elapsed / 60:.1f} min.", "",
           "Floors (issue 13): k <= N, 93-97% in every cell with M >= 30 and N >= 4, at least 91% at M = 15. "
           "N = 1 and k > N are shown separately: see the notes below the tables.", "",
           "## Worst cell per metric and scope (the default interval; k <= N)", "",
           "| metric | scope | M >= 30, N >= 4: min / max | M = 15, N >= 4: min | N = 1 (avg only): min / max |",
           "|---|---|---|---|---|"]

    def pick(metric, scope, method, pred):
        vals = [(100 * cov[c][f"{metric}|{scope}|{method}"], c) for c in cells if pred(c)]
        return (min(vals), max(vals)) if vals else ((math.nan, (0, 0, "-")), (math.nan, (0, 0, "-")))

    for metric in METRICS[:4]:
        for scope in SCOPES:
            (lo1, c1), (hi1, c1b) = pick(metric, scope, "default", lambda c: c[0] >= 30 and c[1] >= 4)
            (lo2, c2), _ = pick(metric, scope, "default", lambda c: c[0] == 15 and c[1] >= 4)
            if metric == "avg":
                (lo3, c3), (hi3, c3b) = pick(metric, scope, "default", lambda c: c[1] == 1)
                n1 = f"{lo3:.1f} ({c3[2]}, M={c3[0]}) / {hi3:.1f} ({c3b[2]}, M={c3b[0]})"
            else:
                n1 = "-"
            out.append(f"| {metric} | {scope} | {lo1:.1f} ({c1[2]}, M={c1[0]}, N={c1[1]}) / {hi1:.1f} "
                       f"({c1b[2]}, M={c1b[0]}, N={c1b[1]}) | {lo2:.1f} ({c2[2]}, N={c2[1]}) | {n1} |")
    out = [x.replace("nan (-, M=0, N=0) / nan (-, M=0, N=0)", "-").replace("nan (-, N=0)", "-") for x in out]  # --ns
    out += _summary_table(cov, cells)
    reps_of = {(t[0], t[1], t[2]): t[3] for t in tasks}
    out += _noise_table(cov, cells, reps_of) + _noise_table(cov, cells, reps_of, "exact")
    out += ["", "## pass@2N (k > N: extrapolated by the population model; flagged in the result)", "",
            "| scope | min | median | max |", "|---|---|---|---|"]
    for scope in SCOPES:
        v = np.array([100 * cov[c][f"pass@2N|{scope}|default"] for c in cells if c[0] >= 30] or [math.nan])
        out.append(f"| {scope} | {v.min():.1f} | {np.median(v):.1f} | {v.max():.1f} |")
    for scope in SCOPES:
        out += ["", f"## {scope} scope: coverage % per cell, default / normal / oracle (**bold**: default outside the "
                "floor; the exact interval alone where it differs, in brackets)", "",
                "| pool | M | N | avg | pass@k | pass^k | maj@k | pass@2N | mean width avg / pass@k |",
                "|---|---|---|---|---|---|---|---|---|"]
        for c in cells:
            M, N, pool = c
            row = []
            for metric in METRICS:
                e, ex, nm, orc = (100 * cov[c][f"{metric}|{scope}|{m}"] for m in METHODS)
                floor_lo = 91 if M == 15 else 93
                bad = metric != "pass@2N" and N >= 4 and (e < floor_lo or (M >= 30 and e > 97))
                third = "" if metric == "pass@2N" else f" / {orc:.0f}"
                alone = f" [{ex:.0f}]" if round(ex) != round(e) else ""
                row.append((f"**{e:.0f}**" if bad else f"{e:.0f}") + f"{alone} / {nm:.0f}{third}")
            w = f"{wid[c][f'avg|{scope}|default']:.3f} / {wid[c][f'pass@k|{scope}|default']:.3f}"
            out.append(f"| {pool} | {M} | {N} | " + " | ".join(row) + f" | {w} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = bench_parser(__doc__, None, "replicates per cell (default 300; 150 at M = 500)")
    ap.add_argument("--quick", action="store_true", help="M in {30, 100}, N in {4, 16}, 60 replicates")
    ap.add_argument("--draws", type=int, default=1000, help="posterior draws per exact interval")
    ap.add_argument("--prior", default="robust", help="the population model (default: the library's default)")
    ap.add_argument("--ns", default=None, help="only these N (comma-separated); each cell keeps its seed")
    ap.add_argument("--json", default=None)
    ap.add_argument("--render", default=None, metavar="JSON", help="rebuild the report from a run's --json file "
                    "(its --reps and the run time in --minutes) instead of running")
    ap.add_argument("--minutes", type=float, default=math.nan, help="with --render: the run's time")
    args = ap.parse_args(argv)
    if args.render:
        import json

        with open(args.render) as fh:
            data = json.load(fh)
        cells = {tuple(int(x) if x.isdigit() else x for x in k.split("|", 2)): v for k, v in data.items()}
        cov = {c: v["coverage"] for c, v in cells.items()}
        wid = {c: v["width"] for c, v in cells.items()}
        tasks = [(*c, args.reps or 150) for c in cells]
        return finish(render(cov, wid, tasks, 60 * args.minutes, args), args.out)
    ms, ns = ((30, 100), (4, 16)) if args.quick else (MS, NS)
    only = None if args.ns is None else {int(x) for x in args.ns.split(",")}
    tasks = []
    for i, (M, N, pool) in enumerate(itertools.product(ms, ns, pools())):
        if only is not None and N not in only:
            continue
        reps = args.reps or (60 if args.quick else (150 if M >= 500 else 300))
        tasks.append((M, N, pool, reps, args.draws, 7000 + i, args.prior))
    tasks.sort(key=lambda t: -t[0] * t[1])  # the longest cells first
    cov, wid, elapsed = run_cells(run_cell, tasks, args.workers)
    report = render(cov, wid, tasks, elapsed, args)
    return finish(report, args.out, args.json, {"|".join(map(str, k)): {"coverage": v, "width": wid[k]}
                                                 for k, v in cov.items()})


if __name__ == "__main__":
    raise SystemExit(main())
