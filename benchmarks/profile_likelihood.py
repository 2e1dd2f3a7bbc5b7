"""The benchmark scope's edge, measured for the candidate named in docs/honesty.md: a profile likelihood of the rates.

The benchmark truth is ``theta_B = (1/M) sum_i g(p_i)`` over these M questions, ``g(p) = p^k`` (pass^k), each
question's count ``x_i ~ Binomial(N, p_i)``.  Its profile log-likelihood ``l_P(t) = max {sum_i l_i(p_i) :
(1/M) sum_i g(p_i) = t}`` is traced through the Lagrangian: for a multiplier ``lambda`` every question's rate is
``argmax_p x_i log p + (N - x_i) log(1 - p) + lambda g(p)`` (on a grid of 2,001 rates; ``lambda`` on a grid of
801 values from -1e5 to 1e5), which gives one point ``(t(lambda), l_P)`` of the curve; between points the curve
is interpolated (where the tilted objective has two modes, as for questions at 0 of N, the Lagrangian skips a
stretch of ``t`` and the interpolation stands in for it).  The interval holds every ``t`` whose likelihood-ratio
statistic ``2 (l_max - l_P(t))`` is accepted at the 5% level, with two calibrations:

* ``chi2``: Wilks's chi-square(1) quantile (3.84);
* ``bootstrap``: the statistic's law under each tested truth, drawn by simulating every question's count from its
  constrained maximum-likelihood rate at that truth (``--boot`` draws; bisection over ``lambda``), a
  parametric bootstrap of the test (the Wilson-type idea of ``benchmark_variance.py --part exact`` with the
  likelihood ratio, which sees every question's count, as its statistic).

Each interval is widened to hold the unbiased estimate (the reported value).  ``default`` is the default's
benchmark-scope interval (``bayeseval.estimate(..., scope="benchmark")``) on the same replicates.

    python benchmarks/profile_likelihood.py --reps 200 --out benchmarks/results_profile_likelihood.md
"""

from __future__ import annotations

import itertools
import os
import sys
import warnings

import numpy as np
from scipy import special, stats

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from _common import bench_parser, finish, pool_map  # noqa: E402
from coverage_robust import draw_p, pools  # noqa: E402

import bayeseval as be  # noqa: E402

K, N = 8, 16
POOLS = ("three clusters", "real: game24 CoT")
MS = (15, 30, 100)
LEVEL = 0.95
RATES = np.linspace(0.0, 1.0, 2001)
LAMBDAS = np.concatenate([-np.logspace(5, -3, 400), [0.0], np.logspace(-3, 5, 400)])
ZERO = 400  # index of lambda = 0


def tables():
    """Per count x = 0..N and multiplier: the profiled rate, its g, and the log-likelihood it gives up."""
    x = np.arange(N + 1)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = (np.where(x > 0, x * np.log(np.maximum(RATES, 1e-300)), 0.0)
              + np.where(N - x > 0, (N - x) * np.log(np.maximum(1.0 - RATES, 1e-300)), 0.0))
    g = RATES ** K
    arg = (ll[None, :, :] + LAMBDAS[:, None, None] * g[None, None, :]).argmax(axis=2)  # (lambdas, N + 1)
    dev = ll.max(axis=1)[None, :] - ll[np.arange(N + 1)[None, :], arg]
    return RATES[arg], g[arg], dev


P_AT, G_AT, DEV = tables()
UNBIASED = special.comb(np.arange(N + 1), K) / special.comb(N, K)


def lr_at(t: float, T: np.ndarray, D: np.ndarray) -> np.ndarray:
    """``2 (l_max - l_P(t))`` for every column (``T``: t along the multipliers, nondecreasing; ``D``: deviance)."""
    rows, cols = T.shape[0], np.arange(T.shape[1])
    idx = (T < t).sum(axis=0)
    i1 = np.clip(idx, 1, rows - 1)
    i0 = i1 - 1
    t0, t1 = T[i0, cols], T[i1, cols]
    w = np.where(t1 > t0, (t - t0) / np.where(t1 > t0, t1 - t0, 1.0), 0.0)
    out = D[i0, cols] + np.clip(w, 0.0, 1.0) * (D[i1, cols] - D[i0, cols])
    out = np.where((idx == 0) & (T[0, cols] > t), np.inf, out)  # t beyond the curve's reach
    out = np.where((idx >= rows) & (T[-1, cols] < t), np.inf, out)
    return 2.0 * out


def _crossing(t_in: float, t_out: float, s_in: float, s_out: float, crit: float) -> float:
    """Where a statistic interpolated linearly from ``s_in`` at ``t_in`` (accepted) to ``s_out`` at ``t_out`` meets
    ``crit`` (between multipliers on the grid the profile is the straight line of the Lagrangian dual)."""
    if not np.isfinite(s_out) or s_out == s_in:
        return t_in
    return t_in + (t_out - t_in) * float(np.clip((crit - s_in) / (s_out - s_in), 0.0, 1.0))


def chi2_interval(h: np.ndarray) -> tuple[float, float]:
    M = h.sum()
    T, lr = G_AT @ h / M, 2.0 * (DEV @ h)
    crit = stats.chi2.ppf(LEVEL, 1)
    ok = np.flatnonzero(lr <= crit)
    a, b = ok[0], ok[-1]
    lo = T[a] if a == 0 else _crossing(T[a], T[a - 1], lr[a], lr[a - 1], crit)
    hi = T[b] if b == len(T) - 1 else _crossing(T[b], T[b + 1], lr[b], lr[b + 1], crit)
    return float(lo), float(hi)


def boot_pvalue(j: int, h: np.ndarray, boot: int, seed: int) -> float:
    M = int(h.sum())
    t = float(G_AT[j] @ h / M)
    observed = 2.0 * float(DEV[j] @ h)
    rng = np.random.default_rng(seed)
    xs = rng.binomial(N, np.repeat(P_AT[j], h)[:, None], size=(M, boot))
    H = np.zeros((N + 1, boot))
    np.add.at(H, (xs, np.broadcast_to(np.arange(boot), xs.shape)), 1)
    star = lr_at(t, G_AT @ H / M, DEV @ H)
    return (np.sum(star >= observed - 1e-9) + 1.0) / (boot + 1.0)


def boot_interval(h: np.ndarray, boot: int, seed: int) -> tuple[float, float]:
    M = h.sum()
    alpha = 1 - LEVEL
    ends = []
    for far in (0, len(LAMBDAS) - 1):  # bisection over the multipliers from 0 outwards: the last one accepted
        inside, outside = ZERO, far
        p_in, p_out = 1.0, boot_pvalue(far, h, boot, seed)
        if p_out > alpha:
            inside, p_in = far, p_out
        while abs(outside - inside) > 1 and inside != far:
            mid = (inside + outside) // 2
            pm = boot_pvalue(mid, h, boot, seed)
            if pm > alpha:
                inside, p_in = mid, pm
            else:
                outside, p_out = mid, pm
        t_in, t_out = float(G_AT[inside] @ h / M), float(G_AT[outside] @ h / M)
        ends.append(t_in if inside == far else _crossing(t_in, t_out, -p_in, -p_out, -alpha))
    return ends[0], ends[1]


def run_cell(task):
    pool_name, M, reps, boot, seed = task
    pool = pools()[pool_name]
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(("default", "chi2", "bootstrap"), 0)
    width = dict.fromkeys(hits, 0.0)
    for r in range(reps):  # a loop over simulated benchmarks
        p = draw_p(rng, pool, M)
        x = rng.binomial(N, p)
        truth = float(np.mean(p ** K))
        h = np.bincount(x, minlength=N + 1)
        value = float(UNBIASED @ h / M)
        outcomes = (np.arange(N)[None, :] < x[:, None]).astype(np.int8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = be.estimate(outcomes, f"pass^{K}", scope="benchmark")
        got = {"default": (d.lo, d.hi), "chi2": chi2_interval(h), "bootstrap": boot_interval(h, boot, seed + r)}
        for name, (lo, hi) in got.items():
            lo, hi = min(lo, value), max(hi, value)
            hits[name] += lo <= truth <= hi
            width[name] += (hi - lo) / reps
    return (pool_name, M), {k: v / reps for k, v in hits.items()}, width


def main() -> int:
    ap = bench_parser(__doc__, 200)
    ap.add_argument("--boot", type=int, default=1000, help="bootstrap draws per tested truth (default 1000)")
    args = ap.parse_args()
    tasks = [(pn, M, args.reps, args.boot, 7000 + i) for i, (pn, M) in enumerate(itertools.product(POOLS, MS))]
    results, seconds = pool_map(run_cell, tasks, args.workers)
    lines = [f"# Profile-likelihood intervals for the benchmark scope: pass^{K} from {N} trials", "",
             f"`python benchmarks/profile_likelihood.py --reps {args.reps} --boot {args.boot}` "
             f"({seconds / 60:.1f} min, "
             f"{args.workers} workers). 95% intervals of the benchmark truth (these questions' mean p^{K}); coverage "
             f"over {args.reps} replicates (Monte-Carlo se about {100 * np.sqrt(0.95 * 0.05 / args.reps):.1f} points), "
             "mean width, and width over the default's.", "",
             "| pool | M | default: coverage, width | chi2: coverage, width (x) | bootstrap: coverage, width (x) |",
             "|---|---:|---|---|---|"]
    for (pn, M), cover, width in results:
        cells = [f"{100 * cover['default']:.1f}%, {width['default']:.4f}"]
        cells += [f"{100 * cover[k]:.1f}%, {width[k]:.4f} ({width[k] / width['default']:.2f}x)"
                  for k in ("chi2", "bootstrap")]
        lines.append(f"| {pn} | {M} | " + " | ".join(cells) + " |")
    return finish("\n".join(lines), args.out)


if __name__ == "__main__":
    sys.exit(main())
