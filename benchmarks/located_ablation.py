"""Benchmark scope: what the located clusters cost and what they buy (an ablation, not a change of default).

The benchmark-scope variance of the default 0/1 model (``bayeseval.posterior.robust``) is the larger of two
things: the error variance the fitted pool predicts, and the pool-free estimate of it.  The fitted pool's
prediction is itself, per question, the larger of two: the fine-grid mixture's, and the same mixture with each
sharp component (``kappa >= 100``) replaced by the posterior of its location from its members' pooled trials
(the "located clusters").  ``results_coverage_robust.md`` has benchmark-scope cells above the 97% ceiling that
the oracle does not have (real pools; maj@k on two clusters).  This script measures where that variance comes
from and what the located clusters do, on the same pools, M and seeds style as ``coverage_robust.py``:

* ``--part variance`` (about 3 min): for a few cells, the summed error variance ``sum_i Var(ghat_i | p_i)``
  (the truth, from the drawn p_i) against each piece the library forms: the fitted mixture's (refits averaged,
  and the point fit alone), the located clusters', the larger of the two per question (the model's), the
  pool-free estimate, and the final variance; means over replicates, and the final sd over the true sd.
* ``--part coverage`` (about 53 min on 2 cores): the whole grid with N >= 4, the normal interval
  ``estimate +/- 1.96 sd`` clipped to the range, for the library as it is ("current"), the same with the
  located clusters switched off ("no located": the fitted mixture's variance, still raised to the pool-free
  estimate), and the oracle (the true sd).  "no located" is the library with ``RobustPosterior._located``
  returning the fitted components, so the per-question choice and the pool-free step run as they do.
* a candidate, "kernel" (``--variants current,kernel,oracle``): each count state's sharp components located once,
  from the pooled trials of the states that share its sharp-responsibility profile (weight: the cosine of the
  two profiles, so a cluster split over near-identical components is pooled whole and no chain of partial
  overlaps joins neighbouring clusters), in place of each component's own share (:func:`kernel_error`; it
  also counts a state's own trials once, where the library counts them twice); the rest as in the library.
  ``--part variance`` adds its variance on the same replicates and on the small clustered cells the located
  clusters protect.

    python benchmarks/located_ablation.py --part variance --out benchmarks/results_located_variance.md
    python benchmarks/located_ablation.py --part coverage --reps 150 --out benchmarks/results_located_ablation.md
    python benchmarks/located_ablation.py --part coverage --variants current,kernel,oracle --ms 15,30,100 \
        --out benchmarks/results_located_kernel.md
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
from coverage_robust import MS, draw_p, metric_name, pools  # noqa: E402
from bayeseval.counts import to_counts  # noqa: E402
from bayeseval.metrics.engine import bernstein_eval, moments_rows, score_table  # noqa: E402
from bayeseval.posterior import build  # noqa: E402
from bayeseval.posterior.robust import SHARP  # noqa: E402

METRICS = ("avg", "pass@k", "pass^k", "maj@k")
VARIANTS = ("current", "nolocated", "oracle")  # the default of --variants
NAMES = {"current": "current", "nolocated": "no located", "kernel": "kernel", "oracle": "oracle"}
Z = stats.norm.ppf(0.975)
#: (M, N, pool, metric) for --part variance: over-covering real and clustered cells, then two at the floor
VARIANCE_CELLS = [(100, 16, "real: cruxeval", "pass@k"), (100, 64, "real: cruxeval", "pass^k"),
                  (100, 4, "real: cruxeval", "avg"), (100, 16, "two clusters", "maj@k"),
                  (30, 4, "real: game24 CoT", "pass@k"), (100, 4, "two clusters", "pass^k"),
                  (100, 16, "Beta(2,5)", "avg")]
#: more cells for the kernel candidate in --part variance: real pools at M = 100, and the small clustered cells that
#: fall below the floor without the located clusters
KERNEL_CELLS = VARIANCE_CELLS[:5] + [(100, 4, "real: game24 CoT", "pass^k"), (100, 4, "real: cruxeval", "maj@k"),
                                     (15, 4, "real: game24 CoT", "pass@k"), (15, 4, "two clusters", "pass@k"),
                                     (15, 16, "three clusters", "pass@k"), (30, 16, "three clusters", "pass@k"),
                                     (15, 4, "two clusters", "pass^k")]


def kernel_error(post) -> np.ndarray:
    """``(U,)``: ``E[Var(ghat | p) | s]`` per count state (one payoff column) under the fitted mixture with every
    sharp component of state ``u`` replaced by one location, ``Beta(1 + S_u, 1 + F_u)`` after the state's own
    trials, ``S_u``, ``F_u`` the successes and failures of the questions of every state ``v`` weighted by
    the cosine ``<r_u, r_v> / (|r_u| |r_v|)`` of their profiles (``r`` the refit-averaged responsibilities of the
    sharp components): 1 for states held alike, however thinly each spreads over near-identical components,
    and small between a thinly spread state and a concentrated one.  Unlike ``RobustPosterior._located``,
    which counts a question's own trials twice (in ``S_j`` and again in the posterior), a state's own trials
    count once here."""
    a, b = post.mix.a, post.mix.b
    R = post.resp.mean(axis=0)
    sharp = a + b >= SHARP
    K = R[:, sharp] @ R[:, sharp].T
    d = np.sqrt(np.diag(K))
    W = np.divide(K, np.outer(d, d), out=np.zeros_like(K), where=np.outer(d, d) > 0)  # cosine: symmetric
    f = post.freq.astype(np.float64)
    S, F = W @ (f * post.s_u), W @ (f * (post.n_u - post.s_u))
    A = np.where(sharp[None, :], (1.0 + S - post.s_u)[:, None], a[None, :])
    B = np.where(sharp[None, :], (1.0 + F - (post.n_u - post.s_u))[:, None], b[None, :])
    err = np.zeros(post.n_u.size)
    J = a.size
    for n in np.unique(post.n_u).tolist():
        rows = np.flatnonzero(post.n_u == n)
        nn, ss = np.full(rows.size * J, n), np.repeat(post.s_u[rows], J)
        e2, _, _ = moments_rows(nn, ss, A[rows].ravel(), B[rows].ravel(), post._score_table(n)[:, :1] ** 2)
        mg, vg, _ = moments_rows(nn, ss, A[rows].ravel(), B[rows].ravel(), post.C[:, :1])
        v = (e2[:, 0] - vg[:, 0] - mg[:, 0] ** 2).reshape(rows.size, J)
        err[rows] = np.maximum((R[rows] * v).sum(axis=1), 0.0)
    return err


def use_kernel(post) -> None:
    """Set ``post``'s per-state error moments to the larger of the mixture's and :func:`kernel_error`'s (one
    trial: the library's bound), as ``RobustPosterior._error_moments`` does with its located clusters."""
    mix = post.mix
    err = post._expected_error(mix.a, mix.b, post.resp, post.mean_gu, post.var_gu, post.cov_gu)
    ker = kernel_error(post)
    use = ker > err[:, 0, 0]
    err[use, 0, 0] = ker[use]
    one = post.n_u == 1
    if one.any():
        c, al, be = post._one_trial()
        err[one] = np.outer(c, c) * (al * be / ((al + be) * (al + be + 1.0)))
    post._err, post._free = (err, use), False


def sd_of(post, variant):
    """``(estimate, sd)`` of the benchmark scope: the library ("current"), the located clusters off, or the
    kernel candidate."""
    if variant == "kernel":
        post._err, post._free = None, False
        use_kernel(post)
        m, sd = post.moments("benchmark")
        post._err, post._free = None, False
        return m, sd
    if variant == "nolocated":
        post._err = None
        post._free = False
        orig = post._located
        post._located = lambda: (post.mix.a, post.mix.b)
        m, sd = post.moments("benchmark")
        post._located = orig
        post._err = None
        post._free = False
        return m, sd
    return post.moments("benchmark")


def run_cell(args):
    M, N, pool_name, reps, seed, variants = args
    pool = pools()[pool_name]
    rng = np.random.default_rng(seed)
    names = {m: metric_name(m, N) for m in METRICS}
    probe = to_counts(np.ones((1, N), np.int8))
    cs = {m: (np.array([0.0, 1.0]) if m == "avg" else build(probe, names[m], prior="uniform").C[:, 0]) for m in METRICS}
    tables = {m: score_table(cs[m][:, None], N)[:, 0] for m in METRICS}
    hits = {f"{m}|{v}": 0 for m in METRICS for v in variants}
    wid = dict.fromkeys(hits, 0.0)
    t_axis = np.arange(N + 1)
    for _ in range(reps):
        p = draw_p(rng, pool, M)
        counts = to_counts((rng.random((M, N)) < p[:, None]).astype(np.int8))
        pmf = stats.binom.pmf(t_axis[None, :], N, p[:, None])
        for m in METRICS:
            post = build(counts, names[m])
            g = bernstein_eval(cs[m], p)
            truth = float(g.mean())
            sd_true = math.sqrt(max(float((pmf @ tables[m] ** 2 - g**2).sum()), 0.0)) / M
            lo_b, hi_b = post.range
            for v in variants:
                if v == "oracle":
                    mean, sd = float(post.freq @ post._scores()[:, 0] / M), sd_true
                else:
                    mean, sd = sd_of(post, v)
                lo, hi = max(mean - Z * sd, lo_b), min(mean + Z * sd, hi_b)
                hits[f"{m}|{v}"] += lo - 1e-12 <= truth <= hi + 1e-12
                wid[f"{m}|{v}"] += hi - lo
    return (M, N, pool_name), {k: x / reps for k, x in hits.items()}, {k: x / reps for k, x in wid.items()}


def render_coverage(cov, wid, reps, elapsed, variants=VARIANTS, ms=MS) -> str:
    other = NAMES[variants[1]]
    flags = "" if tuple(variants) == VARIANTS else f" --variants {','.join(variants)}"
    flags += "" if tuple(ms) == MS else f" --ms {','.join(str(m) for m in ms)}"
    title = ("with and without the located clusters" if variants[1] == "nolocated" else
             f"the located clusters against the {other} candidate")
    out = [f"# Benchmark scope {title} (normal interval, N >= 4)", "",
           f"`python benchmarks/located_ablation.py --part coverage --reps {reps}{flags}`: the pools and M of "
           f"coverage_robust.py{'' if tuple(ms) == MS else ' with M in {' + ', '.join(map(str, ms)) + '}'}, "
           f"N in {{4, 16, 64}}, k = 3, 8, 16; {reps} replicates a cell, the same replicates "
           f"for every variant; 95% intervals estimate +/- 1.96 sd, clipped to the range; {elapsed / 60:.1f} min.", "",
           "Cells outside the floor beyond Monte-Carlo noise (the exact binomial interval of the cell's coverage "
           f"wholly below 93%, 91% at M = 15, or above 97% at M >= 30), of the {len(cov)} cells per metric; mean "
           "width; the cells below:", "",
           "| metric | variant | below | above | mean width | cells below (coverage %, pool, M, N) |",
           "|---|---|---|---|---|---|"]
    for m in METRICS:
        for v in variants:
            key = f"{m}|{v}"
            below, above = [], 0
            for cell, c in sorted(cov.items()):
                x = round(c[key] * reps)
                ci = stats.binomtest(x, reps).proportion_ci(0.95, "exact")
                if ci.high < (0.91 if cell[0] == 15 else 0.93):
                    below.append(f"{100 * c[key]:.1f} ({cell[2]}, M={cell[0]}, N={cell[1]})")
                above += cell[0] >= 30 and ci.low > 0.97
            w = float(np.mean([x[key] for x in wid.values()]))
            out.append(f"| {m} | {NAMES[v]} | {len(below)} | {above} | {w:.4f} | {'; '.join(below) or '-'} |")
    out += ["", f"## Cells where the two differ by 3 points or more: coverage %, current / {other} / oracle", "",
            f"| pool | M | N | metric | current | {other} | oracle |", "|---|---|---|---|---|---|---|"]
    for cell, c in sorted(cov.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
        for m in METRICS:
            a, b, o = (100 * c[f"{m}|{v}"] for v in variants)
            if abs(a - b) >= 3.0 - 1e-9:
                out.append(f"| {cell[2]} | {cell[0]} | {cell[1]} | {m} | {a:.1f} | {b:.1f} | {o:.1f} |")
    return "\n".join(out)


def _replicates(M: int, N: int, pool_name: str, name: str, reps: int):
    """``(posterior, true summed error variance)`` of ``reps`` replicates of a cell (seed 1)."""
    pool = pools()[pool_name]
    rng = np.random.default_rng(1)
    for _ in range(reps):
        p = draw_p(rng, pool, M)
        post = build(to_counts((rng.random((M, N)) < p[:, None]).astype(np.int8)), name)
        C = post.C[:, 0]
        T = score_table(C[:, None], N)[:, 0]
        yield post, float(np.sum(bernstein_eval(T**2, p) - bernstein_eval(C, p) ** 2))


def variance_part(reps: int) -> str:
    out = ["# Where the benchmark-scope variance comes from", "",
           f"`python benchmarks/located_ablation.py --part variance --reps {reps}`: {reps} replicates a cell (seed 1). "
           "Summed error variance over the M questions (times M^2 is the variance of the estimate), mean over "
           "replicates: the truth from the drawn p_i; the fitted mixture's (refits averaged; the point fit alone); the "
           "located clusters'; the model's (the larger of the two per question); the pool-free estimate; the final "
           "variance (the model's raised to the pool-free estimate where larger); and sqrt(final / truth).", "",
           "| pool | M | N | metric | truth | mixture | point fit | located | model | pool-free | final | sd ratio |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    split = []
    for M, N, pool_name, met in VARIANCE_CELLS:
        name = metric_name(met, N)
        acc = []
        for post, truth in _replicates(M, N, pool_name, name, reps):
            mix = post.mix
            pooled = post._expected_error(mix.a, mix.b, post.resp, post.mean_gu, post.var_gu, post.cov_gu)[:, 0, 0]
            rp = mix.responsibilities(post.n_u, post.s_u, "point")[None]
            point = post._expected_error(mix.a, mix.b, rp, *post._mixture_moments(mix.a, mix.b, rp))[:, 0, 0]
            a, b = post._located()
            loc = post._expected_error(a, b, post.resp, *post._mixture_moments(a, b, post.resp))[:, 0, 0]
            model = post._error_moments()[0][:, 0, 0]
            free = post._unbiased_error()
            final = post._benchmark_error()[1][0, 0] * M**2
            f = post.freq
            acc.append((truth, f @ pooled, f @ point, f @ loc, f @ model, math.nan if free is None else free[0, 0],
                        final))
            if len(acc) == 1 and pool_name.startswith("real"):  # the first replicate: how the never-solved are held
                split.append(_split(post, pool_name, M, N, name))
        mu = np.nanmean(np.array(acc), axis=0)
        out.append(f"| {pool_name} | {M} | {N} | {name} | " + " | ".join(f"{x:.4g}" for x in mu)
                   + f" | {math.sqrt(mu[6] / mu[0]):.2f} |")
    out += ["", "How the fit holds the never-solved questions (the first replicate of each real-pool cell): the "
            "components that take at least half a question of them, the sharp ones (kappa >= 100) among those, "
            "the largest share a sharp one holds, and that component's located Beta:", "",
            "| pool | M | N | metric | never solved | their trials | components | sharp | largest sharp share "
            "| located |", "|---|---|---|---|---|---|---|---|---|---|"] + split
    out += ["", "The kernel candidate (each state's sharp components located once, from the states sharing its profile) "
            "on the same kind of replicates (seed 1), with the small clustered cells where switching the located "
            "clusters off falls below the floor: the final variance, and its sd over the true one:", "",
            "| pool | M | N | metric | truth | current | kernel | sd ratio current | sd ratio kernel |",
            "|---|---|---|---|---|---|---|---|---|"]
    for M, N, pool_name, met in KERNEL_CELLS:
        name = metric_name(met, N)
        acc = []
        for post, truth in _replicates(M, N, pool_name, name, reps):
            current = post._benchmark_error()[1][0, 0] * M**2
            use_kernel(post)
            acc.append((truth, current, post._benchmark_error()[1][0, 0] * M**2))
        mu = np.mean(np.array(acc), axis=0)
        out.append(f"| {pool_name} | {M} | {N} | {name} | " + " | ".join(f"{x:.4g}" for x in mu)
                   + f" | {math.sqrt(mu[1] / mu[0]):.2f} | {math.sqrt(mu[2] / mu[0]):.2f} |")
    return "\n".join(out)


def _split(post, pool_name, M, N, name) -> str:
    a, b = post._located()
    sharp = post.mix.a + post.mix.b >= SHARP
    zero = post.s_u == 0
    share = (post.resp.mean(axis=0) * post.freq[:, None])[zero].sum(axis=0)
    j = int(np.argmax(np.where(sharp, share, 0.0)))
    held = share > 0.5
    nz = float(post.freq[zero].sum())
    top = (f"{share[j]:.1f} | Beta({a[j]:.1f}, {b[j]:.1f}), mean {a[j] / (a[j] + b[j]):.3f}" if sharp.any()
           else "- | -")  # no sharp component: nothing is located
    return (f"| {pool_name} | {M} | {N} | {name} | {nz:.0f} | {nz * N:.0f} | {int(held.sum())} | "
            f"{int((held & sharp).sum())} | {top} |")


def main(argv=None) -> int:
    ap = bench_parser(__doc__, None, "150 for coverage, 60 for variance")
    ap.add_argument("--part", choices=("variance", "coverage"), required=True)
    ap.add_argument("--variants", default=",".join(VARIANTS), help="current,<nolocated|kernel>,oracle")
    ap.add_argument("--ms", default=",".join(str(m) for m in MS), help="numbers of questions to run")
    args = ap.parse_args(argv)
    if args.part == "variance":
        return finish(variance_part(args.reps or 60), args.out)
    reps = args.reps or 150
    variants = tuple(args.variants.split(","))
    ms = tuple(int(m) for m in args.ms.split(","))
    if len(variants) != 3 or variants[0] != "current" or variants[2] != "oracle" or \
            variants[1] not in ("nolocated", "kernel"):
        ap.error("--variants: current,<nolocated|kernel>,oracle")
    if not ms or any(m not in MS for m in ms):
        ap.error(f"--ms: some of {','.join(map(str, MS))}")
    # seeds by position in the whole grid, so a cell has the same replicates whichever M are run
    tasks = [(M, N, pool, reps, 9000 + i, variants)
             for i, (M, N, pool) in enumerate(itertools.product(MS, (4, 16, 64), pools())) if M in ms]
    tasks.sort(key=lambda t: -t[0] * t[1])
    cov, wid, elapsed = run_cells(run_cell, tasks, args.workers)
    return finish(render_coverage(cov, wid, reps, elapsed, variants, ms), args.out)


if __name__ == "__main__":
    raise SystemExit(main())
