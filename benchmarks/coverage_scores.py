"""Coverage of the score model's 95% intervals, and type-I error of compare on scores.

The score model (:mod:`bayeseval.posterior.scores`): ``estimate(R, "avg", scope=..., score_range=(lo, hi))``
on an M x N matrix of bounded continuous scores.  Each replicate draws M new questions from a pool of
per-question mean scores ``mu_i``, N trials per question from the pool's trial distribution, and checks
whether each interval contains its scope's estimand:

* benchmark scope: the mean over the drawn questions of their expected trial score ``E[y | i]``;
* population scope: the pool's ``E[mu]`` (exact, or numerical integration where stated).

Pools (per-question mean ``mu`` -> one trial ``y``; the question's mean is always the exact ``E[y | i]``):

* "Beta means, Beta trials": ``mu ~ Beta(2, 3)``; ``y ~ Beta(5 mu, 5 (1 - mu))`` (parameters floored at
  1e-3, never reached in practice); ``E[mu] = 0.4`` (computed by quadrature with the floor).
* "0/1 masses + uniform middle": per question ``(a, b, c) ~ Dirichlet(1, 1, 1)``; a trial is 0 w.p. ``a``,
  1 w.p. ``b``, else ``U(0, 1)``; ``mu = b + c / 2``; ``E[mu] = 0.5``.
* "U-shaped": ``mu ~ Beta(0.3, 0.3)``; ``y ~ Beta(2 mu, 2 (1 - mu))`` with both parameters floored at 1e-3
  (so the question's mean is ``a / (a + b)`` of the floored parameters, within 5e-4 of ``mu``); ``E = 0.5``
  by symmetry (checked by quadrature).
* "real: NQ-open token F1": ``mu`` resampled with replacement from the 3,610 per-question token F1 values
  of the model FiD on the bundled NQ-open data (``papers/nqopen_f1.py``, ``scores("f1")``; 40% are 0 and
  47% are 1); ``y = mu`` when ``mu`` is 0 or 1, else ``y ~ Beta(4 mu, 4 (1 - mu))``; population truth:
  the mean of the 3,610 values.
* "scale 1-5 (rubric-like)": ``mu ~ 1 + 4 Beta(5, 2)``; a trial is ``round(mu + N(0, 0.7))`` clipped to
  [1, 5], integer ratings read as scores with ``score_range=(1, 5)``.  Rounding and clipping move the
  mean, so the question's mean is the exact ``sum_k k P(trial = k)`` (normal CDF), and the population
  truth its integral over the Beta(5, 2) pool.

Every matrix is passed with an explicit ``score_range`` (``(0, 1)`` or ``(1, 5)``), so a matrix whose
scores happen to be all 0 or 1 (possible for NQ-open) is still read as scores.

Grid: M in {15, 30, 100, 500} x N in {1, 4, 16}; 300 replicates per cell (150 at M = 500); both scopes;
intervals "exact" (the default, 1000 posterior draws) and "normal"; coverage (%) and mean width per cell.

Type-I of ``compare`` on scores: A and B share every question's ``mu`` and have independent trials
(pools "Beta means, Beta trials" and "U-shaped"), M in {30, 100} x N in {1, 4}, 500 replicates per cell,
``resamples=2000``; rate at which ``.verdict`` names a winner (decided by the paired sign-flip test) and
rate at which ``.p_a_better`` is outside [0.025, 0.975], for both scopes.

    python benchmarks/coverage_scores.py --out benchmarks/results_coverage_scores.md   # about 3 min, 2 cores
    python benchmarks/coverage_scores.py --quick                                       # a few cells

Monte-Carlo standard error of one coverage cell: sqrt(0.95 * 0.05 / reps) (1.3 points at 300 replicates,
1.8 at 150); of a type-I rate near 5%: 1.0 point at 500 replicates.  Warnings (the library's
ModelCheckWarning for one-trial benchmark scope) are silenced inside the workers; the report holds none.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import math
import os
import runpy
import sys
import time
import warnings

import numpy as np
from scipy import integrate, stats

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)
from _common import finish, run_cells  # noqa: E402
import bayeseval as be  # noqa: E402

LEVEL = 0.95
MS = (15, 30, 100, 500)
NS = (1, 4, 16)
SCOPES = ("benchmark", "population")
METHODS = ("exact", "normal")
POOLS = ("Beta means, Beta trials", "0/1 masses + uniform middle", "U-shaped", "real: NQ-open token F1",
         "scale 1-5 (rubric-like)")
TYPEI_POOLS = ("Beta means, Beta trials", "U-shaped")
TYPEI_MS = (30, 100)
TYPEI_NS = (1, 4)
FLOOR = 1e-3
RUBRIC_SD = 0.7


# ----------------------------------------------------------------------------- pools
@functools.lru_cache(maxsize=None)
def nq_f1() -> np.ndarray:
    """Per-question token F1 of FiD on the bundled NQ-open data (3,610 values in [0, 1])."""
    scores = runpy.run_path(os.path.join(ROOT, "papers", "nqopen_f1.py"))["scores"]
    return scores("f1")["FiD"].to_numpy(dtype=np.float64)


def _beta_params(mu: np.ndarray, conc: float) -> tuple[np.ndarray, np.ndarray]:
    return np.maximum(conc * mu, FLOOR), np.maximum(conc * (1.0 - mu), FLOOR)


def _rubric_mean(mu: np.ndarray) -> np.ndarray:
    """Exact E[clip(round(mu + N(0, sd)), 1, 5)] per question."""
    shape = np.shape(mu)
    mu = np.atleast_1d(np.asarray(mu, dtype=np.float64))
    cuts = np.array([1.5, 2.5, 3.5, 4.5])
    cdf = stats.norm.cdf((cuts[None, :] - mu[..., None]) / RUBRIC_SD)  # P(trial <= k) for k = 1..4
    p = np.diff(np.concatenate([np.zeros(mu.shape + (1,)), cdf, np.ones(mu.shape + (1,))], axis=-1), axis=-1)
    return (p @ np.arange(1.0, 6.0)).reshape(shape)


def score_range(pool: str) -> tuple[float, float]:
    return (1.0, 5.0) if pool.startswith("scale") else (0.0, 1.0)


def draw(pool: str, rng: np.random.Generator, M: int, N: int, mu: np.ndarray | None = None):
    """``(per-question exact mean E[y | i], M x N trials)``; ``mu`` (the pool's draw) may be given to draw
    more trials of the same questions (type-I study); returns the ``mu`` used as a third element."""
    if pool == "0/1 masses + uniform middle":
        abc = rng.dirichlet(np.ones(3), size=M) if mu is None else mu
        u = rng.random((M, N))
        y = np.where(u < abc[:, :1], 0.0, np.where(u < abc[:, :1] + abc[:, 1:2], 1.0, rng.random((M, N))))
        return abc[:, 1] + abc[:, 2] / 2.0, y, abc
    if pool == "Beta means, Beta trials" or pool == "U-shaped":
        conc = 5.0 if pool.startswith("Beta") else 2.0
        if mu is None:
            mu = rng.beta(2.0, 3.0, size=M) if pool.startswith("Beta") else rng.beta(0.3, 0.3, size=M)
        a, b = _beta_params(mu, conc)
        return a / (a + b), rng.beta(a[:, None], b[:, None], size=(M, N)), mu
    if pool == "real: NQ-open token F1":
        if mu is None:
            f1 = nq_f1()
            mu = f1[rng.integers(f1.size, size=M)]
        edge = (mu == 0.0) | (mu == 1.0)
        mid = np.where(edge, 0.5, mu)
        y = rng.beta(4.0 * mid[:, None], 4.0 * (1.0 - mid[:, None]), size=(M, N))
        return mu, np.where(edge[:, None], mu[:, None], y), mu
    if pool == "scale 1-5 (rubric-like)":
        if mu is None:
            mu = 1.0 + 4.0 * rng.beta(5.0, 2.0, size=M)
        y = np.clip(np.round(mu[:, None] + RUBRIC_SD * rng.standard_normal((M, N))), 1.0, 5.0)
        return _rubric_mean(mu), y, mu
    raise ValueError(pool)


@functools.lru_cache(maxsize=None)
def pool_truth(pool: str) -> float:
    """The population estimand: the pool's E[E[y | i]]."""
    q = dict(limit=400, epsabs=1e-11, epsrel=1e-9)
    if pool == "0/1 masses + uniform middle":
        return 0.5
    if pool == "Beta means, Beta trials" or pool == "U-shaped":
        conc, (pa, pb) = (5.0, (2.0, 3.0)) if pool.startswith("Beta") else (2.0, (0.3, 0.3))

        def f(m):
            a, b = _beta_params(np.array(m), conc)
            return float(a / (a + b)) * stats.beta.pdf(m, pa, pb)

        pts = [2 * FLOOR / conc, 1 - 2 * FLOOR / conc]
        return float(sum(integrate.quad(f, lo, hi, **q)[0] for lo, hi in zip([0.0] + pts, pts + [1.0])))
    if pool == "real: NQ-open token F1":
        return float(nq_f1().mean())
    if pool == "scale 1-5 (rubric-like)":
        return float(integrate.quad(lambda u: float(_rubric_mean(np.array(1.0 + 4.0 * u))) * stats.beta.pdf(u, 5, 2),
                                    0.0, 1.0, **q)[0])
    raise ValueError(pool)


# ----------------------------------------------------------------------------- the studies
def run_cell(args):
    M, N, pool, reps, draws, seed = args
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(seed)
    truth_pop, rnge = pool_truth(pool), score_range(pool)
    hits = {key: 0 for key in itertools.product(SCOPES, METHODS)}
    width = {key: 0.0 for key in hits}
    for _ in range(reps):
        mu, R, _ = draw(pool, rng, M, N)
        truth = {"benchmark": float(mu.mean()), "population": truth_pop}
        s = int(rng.integers(2**31))
        for scope, method in hits:
            e = be.estimate(R, "avg", scope=scope, interval=method, draws=draws, seed=s, score_range=rnge)
            hits[(scope, method)] += e.lo - 1e-12 <= truth[scope] <= e.hi + 1e-12
            width[(scope, method)] += e.hi - e.lo
    return ((M, N, pool), {"|".join(k): v / reps for k, v in hits.items()},
            {"|".join(k): v / reps for k, v in width.items()})


def run_typei(args):
    pool, M, N, reps, seed = args
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(seed)
    named = {s: 0 for s in SCOPES}
    extreme = {s: 0 for s in SCOPES}
    for _ in range(reps):
        _, A, mu = draw(pool, rng, M, N)
        _, B, _ = draw(pool, rng, M, N, mu=mu)
        s = int(rng.integers(2**31))
        for scope in SCOPES:
            c = be.compare(A, B, scope=scope, resamples=2000, seed=s, score_range=(0.0, 1.0))
            named[scope] += c.verdict.startswith(("A is better", "B is better"))
            extreme[scope] += not (0.025 <= c.p_a_better <= 0.975)
    return (pool, M, N), {s: named[s] / reps for s in SCOPES}, {s: extreme[s] / reps for s in SCOPES}


# ----------------------------------------------------------------------------- the report
def _cell(c) -> str:
    M, N, pool = c
    return f"{pool}, M={M}, N={N}"


def render(cov, wid, tasks, elapsed, typei, typei_tasks, typei_elapsed, args) -> str:
    reps_by_m = {}
    for t in tasks:
        reps_by_m.setdefault(t[0], set()).add(t[3])
    reps_text = "; ".join(f"M = {M}: {', '.join(map(str, sorted(r)))}" for M, r in sorted(reps_by_m.items()))
    min_reps = min(t[3] for t in tasks)
    cells = sorted(cov, key=lambda c: (POOLS.index(c[2]), c[0], c[1]))
    se = lambda r: 100 * math.sqrt(0.95 * 0.05 / r)  # noqa: E731
    out = ["# Coverage of the score model's 95% intervals, and type-I error of compare on scores", "",
           f"Command: `python benchmarks/coverage_scores.py{' --quick' if args.quick else ''}"
           f"{f' --reps {args.reps}' if args.reps else ''}{f' --out {args.out}' if args.out else ''}` "
           f"({args.workers} workers).  Run time: coverage {elapsed / 60:.1f} min, type-I "
           f"{typei_elapsed / 60:.1f} min.", "",
           f"Replicates per cell: {reps_text}.  Monte-Carlo standard error of a coverage cell: "
           f"sqrt(0.95 * 0.05 / reps) = " + ", ".join(f"{se(r):.1f} points at {r}" for r in
                                                       sorted({t[3] for t in tasks}, reverse=True)) +
           f".  Exact intervals from {args.draws} posterior draws.  Pools, trial distributions and truths: "
           "see the module docstring of `benchmarks/coverage_scores.py`.", "",
           "Benchmark truth: the mean over the drawn questions of their exact expected trial score; population "
           "truth: the pool's mean (" + ", ".join(f"{p} {pool_truth(p):.4f}" for p in POOLS) + ").", "",
           "## Worst cells per scope and interval method (coverage %, cell named)", "",
           "| scope | method | M >= 30, N >= 4: min / max | M = 15 (all N): min / max | N = 1 (all M): min / max |",
           "|---|---|---|---|---|"]

    def pick(scope, method, pred):
        vals = [(100 * cov[c][f"{scope}|{method}"], c) for c in cells if pred(c)]
        if not vals:
            return "-"
        (lo, cl), (hi, ch) = min(vals, key=lambda v: v[0]), max(vals, key=lambda v: v[0])
        return f"{lo:.1f} ({_cell(cl)}) / {hi:.1f} ({_cell(ch)})"

    for scope in SCOPES:
        for method in METHODS:
            out.append(f"| {scope} | {method} | {pick(scope, method, lambda c: c[0] >= 30 and c[1] >= 4)} | "
                       f"{pick(scope, method, lambda c: c[0] == 15)} | {pick(scope, method, lambda c: c[1] == 1)} |")

    out += ["", "## Cells outside [93, 97]", "",
            f"With a standard error of {se(min_reps):.1f} points (at {min_reps} replicates) a cell at 95% falls "
            "outside [93, 97] by chance now and then; below 93 is anti-conservative (the interval misses more "
            "often than it claims), above 97 conservative (wider than needed).", ""]
    for scope in SCOPES:
        for method in METHODS:
            below = [(100 * cov[c][f"{scope}|{method}"], c) for c in cells if cov[c][f"{scope}|{method}"] < 0.93]
            above = [(100 * cov[c][f"{scope}|{method}"], c) for c in cells if cov[c][f"{scope}|{method}"] > 0.97]
            fmt = lambda xs: "; ".join(f"{v:.1f} ({_cell(c)})" for v, c in sorted(xs, key=lambda x: x[0])) or "none"  # noqa: E731
            out.append(f"* **{scope}, {method}**: {len(below)} of {len(cells)} cells below 93 (anti-conservative): "
                       f"{fmt(below)}.  {len(above)} above 97 (conservative): {fmt(above)}.")

    out += ["", "## Type-I error of `compare` on scores (true null: the same per-question means, independent "
            "trials)", "",
            f"{typei_tasks[0][3]} replicates per cell (Monte-Carlo s.e. of a 5% rate: "
            f"{100 * math.sqrt(0.05 * 0.95 / typei_tasks[0][3]):.1f} points); `resamples=2000`, default draws.  "
            "*winner named*: `verdict` starts with \"A is better\" or \"B is better\" (the paired sign-flip test "
            "decides it, so it does not depend on the scope); *P extreme*: `p_a_better` outside [0.025, 0.975].  "
            "Nominal: 5%.", "",
            "| pool | M | N | winner named, population (%) | winner named, benchmark (%) | "
            "P extreme, population (%) | P extreme, benchmark (%) |",
            "|---|---|---|---|---|---|---|"]
    for key in sorted(typei, key=lambda k: (TYPEI_POOLS.index(k[0]), k[1], k[2])):
        named, extreme = typei[key]
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {100 * named['population']:.1f} | "
                   f"{100 * named['benchmark']:.1f} | {100 * extreme['population']:.1f} | "
                   f"{100 * extreme['benchmark']:.1f} |")

    for scope in SCOPES:
        out += ["", f"## {scope} scope: coverage % and mean width per cell (**bold**: outside [93, 97])", "",
                "| pool | M | N | reps | exact | normal | width exact | width normal |",
                "|---|---|---|---|---|---|---|---|"]
        reps_of = {(t[0], t[1], t[2]): t[3] for t in tasks}
        for c in cells:
            row = []
            for method in METHODS:
                v = 100 * cov[c][f"{scope}|{method}"]
                row.append(f"**{v:.1f}**" if (v < 93 or v > 97) else f"{v:.1f}")
            w = [f"{wid[c][f'{scope}|{m}']:.4f}" for m in METHODS]
            out.append(f"| {c[2]} | {c[0]} | {c[1]} | {reps_of[c]} | " + " | ".join(row + w) + " |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="M in {30, 100}, N in {1, 4}, 60 replicates; type-I 60 replicates")
    ap.add_argument("--reps", type=int, default=None, help="replicates per coverage cell (default 300; 150 at M = 500)")
    ap.add_argument("--typei-reps", type=int, default=None, help="replicates per type-I cell (default 500)")
    ap.add_argument("--draws", type=int, default=1000, help="posterior draws per exact interval")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    ms, ns = ((30, 100), (1, 4)) if args.quick else (MS, NS)
    nq_f1()  # once, before the workers fork
    for p in POOLS:
        pool_truth(p)
    tasks = []
    for i, (pool, M, N) in enumerate(itertools.product(POOLS, MS, NS)):  # seeds fixed per cell, --quick or not
        if M not in ms or N not in ns:
            continue
        reps = args.reps or (60 if args.quick else (150 if M >= 500 else 300))
        tasks.append((M, N, pool, reps, args.draws, 11000 + i))
    tasks.sort(key=lambda t: -t[0] * t[1])  # the longest cells first
    cov, wid, elapsed = run_cells(run_cell, tasks, args.workers)
    print(f"coverage: {elapsed:.0f} s", file=sys.stderr)

    treps = args.typei_reps or (60 if args.quick else 500)
    typei_tasks = [(pool, M, N, treps, 12000 + i)
                   for i, (pool, M, N) in enumerate(itertools.product(TYPEI_POOLS, TYPEI_MS, TYPEI_NS))]
    import multiprocessing as mp

    t0 = time.time()
    with mp.Pool(args.workers) as pool:
        res = pool.map(run_typei, sorted(typei_tasks, key=lambda t: -t[1] * t[2]), chunksize=1)
    typei_elapsed = time.time() - t0
    print(f"type-I: {typei_elapsed:.0f} s", file=sys.stderr)
    typei = {k: (named, extreme) for k, named, extreme in res}
    report = render(cov, wid, tasks, elapsed, typei, typei_tasks, typei_elapsed, args)
    data = {"coverage": {"|".join(map(str, k)): v for k, v in cov.items()},
            "width": {"|".join(map(str, k)): v for k, v in wid.items()},
            "typei": {"|".join(map(str, k)): v for k, v in typei.items()}}
    return finish(report, args.out, args.json, data)


if __name__ == "__main__":
    raise SystemExit(main())
