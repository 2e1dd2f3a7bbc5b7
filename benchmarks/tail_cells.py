"""Population scope where few questions carry the metric: the default interval against standard alternatives.

The coverage grid (``coverage_robust.py``, re-measured in ``coverage_confirm.py``) leaves a few population-scope
cells below the floor of issue "Honest by default": pass@16 and pass^16 from 64 trials on 15-30 questions of a
Beta(2,5) or logit-normal(0, 2) pool.  There the per-question scores are heavily skewed (most questions near one
end of the range, a few far from it), and the pool's mean is carried by the few.  This script asks whether any
standard interval for a mean over questions does better on the same replicates:

* default -- ``bayeseval``'s default population interval (``interval="auto"``): the exact interval, widened to
  Clopper-Pearson's on the summed scores (their hull) where the result warns that few questions carry the metric;
* exact -- the exact interval alone (studentized Dirichlet-process posterior; the default before ``"auto"``);
* t -- the question-clustered interval, mean +/- t_{M-1} s / sqrt(M) (Miller 2024, arXiv:2411.00640);
* percentile, BCa -- the ordinary bootstrap of questions (``scipy.stats.bootstrap``, 2,000 resamples);
* bootstrap-t -- the studentized bootstrap, as ``Estimate.bootstrap_t_interval`` computes it (2,000
  resamples; second-order accurate for skewed means, Hall 1992, *The Bootstrap and Edgeworth Expansion*,
  section 3.5);
* Hoeffding -- mean +/- sqrt(log(2 / 0.05) / (2 M)): valid for every pool of scores in [0, 1], conservative;
* betting -- the betting confidence interval for a bounded mean (``bayeseval.intervals.betting_interval``,
  Waudby-Smith & Ramdas 2024): valid for every pool too, and narrower where the scores vary little;
* exact+bootstrap-t -- the wider ends of the default and bootstrap-t (``interval="exact+bootstrap-t"``, with
  the draws and resamples above), the previous advice of the "rests on about X of M questions" warning;
* betting, 256 orders -- the betting interval made independent of the questions' order: the capital at the last
  question (not its running maximum), averaged over 256 random orders.  Each order's final capital is an e-value
  under the null mean (a test martingale stopped at a fixed time), an average of e-values is one (Vovk & Wang 2021,
  "E-values: calibration, combination and applications", Ann. Statist. 49(3)), so by Markov's inequality the set
  of means whose average stays below 2 / alpha on each side covers at least ``1 - alpha``.  Not the library's:
  measured here beside it;
* default, 256 orders -- the default with its far end from "betting, 256 orders" instead.

Each cell draws M questions from the pool, N trials each, and checks each interval against the pool's
E[g(p)].  Two cells where the default meets the floor are shown for contrast.

    python benchmarks/tail_cells.py --reps 2000 --out benchmarks/results_tail_cells.md   # under a minute, 2 cores
"""

from __future__ import annotations

import math
import os
import sys

import numpy as np
from scipy import stats
from scipy.special import logsumexp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from _common import bench_parser, finish, run_cells  # noqa: E402
from coverage_robust import draw_p, pool_mean, pools  # noqa: E402
from bayeseval.counts import to_counts  # noqa: E402
from bayeseval.posterior import build, interval_from_draws  # noqa: E402
from bayeseval.posterior.bootstrap import bootstrap_t  # noqa: E402
from bayeseval.intervals import CI_BET_CAP, betting_interval, plugin_variance  # noqa: E402
from bayeseval.posterior.robust import FEW_CARRYING  # noqa: E402
from bayeseval.results import WIDENING_METHODS, resolve_interval, widen  # noqa: E402

LEVEL = 0.95
RESAMPLES = 2000
#: (M, N, pool, metric): the three population-scope cells below the floor in results_coverage_confirm.md, then two
#: cells within it
CELLS = [
    (30, 64, "Beta(2,5)", "pass@16"),
    (30, 64, "logit-normal(0,2)", "pass^16"),
    (15, 64, "logit-normal(0,2)", "pass^16"),
    (100, 64, "Beta(2,5)", "pass@16"),
    (30, 16, "two clusters", "pass@8"),
]
METHODS = ("default", "exact", "t", "percentile", "BCa", "bootstrap-t", "Hoeffding", "betting", "exact+bootstrap-t",
           "betting, 256 orders", "default, 256 orders")
ORDERS = 256


def betting_orders(x: np.ndarray, freq: np.ndarray, level: float, rng: np.random.Generator,
                   orders: int = ORDERS) -> tuple[float, float]:
    """The betting interval on [0, 1] with the final capital averaged over ``orders`` random orders of the
    questions (module docstring): the same bets as ``betting_interval`` in each order; a candidate mean is out when
    the average capital of the bets on one side reaches 2 / alpha.  Each average falls as the candidate moves
    towards the far end of the range (as ``betting_interval``'s capital does), so bisection finds the ends."""
    u = np.repeat(np.asarray(x, dtype=np.float64), np.asarray(freq, dtype=np.int64))
    M, alpha = u.size, 1.0 - level
    U = u[np.argsort(rng.random((orders, M)), axis=1)]
    _, var_prev, _ = plugin_variance(U)
    lam = np.sqrt(2.0 * math.log(2.0 / alpha) / (M * var_prev))
    threshold = math.log(2.0 / alpha) + math.log(orders)  # log of the sum of the capitals, against orders * 2 / alpha

    def rejects(m: float, up: bool) -> bool:
        room = m if up else 1.0 - m
        bet = np.minimum(lam, CI_BET_CAP / room) if room > 0 else lam
        log_final = np.log1p(bet * ((U - m) if up else (m - U))).sum(axis=1)
        return bool(logsumexp(log_final) >= threshold)

    def end(up: bool) -> float:
        a, b = (0.0, 1.0) if up else (1.0, 0.0)
        if not rejects(a, up):
            return a
        while abs(b - a) > 1e-9:
            mid = 0.5 * (a + b)
            a, b = (mid, b) if rejects(mid, up) else (a, mid)
        return b

    return end(True), end(False)


def intervals(post, x: np.ndarray, rng: np.random.Generator, draws: int, rng_w: np.random.Generator) -> dict:
    """Every method's 95% interval from one replicate: ``post`` the library's posterior, ``x`` (M,) the
    per-question unbiased scores; ``rng_w`` orders the questions for the betting intervals."""
    M = x.size
    m, s = float(x.mean()), float(x.std(ddof=1))
    se = s / math.sqrt(M)
    out = {"exact": interval_from_draws(post.draws("population", draws, rng), LEVEL, "exact")}
    seed = int(rng_w.integers(2**31))
    widened = resolve_interval(post, "population", "auto") in WIDENING_METHODS
    out["default"] = widen(post, "population", LEVEL, *out["exact"], seed) if widened else out["exact"]
    out["betting"] = betting_interval(post.state_scores(), post.freq, LEVEL, (0.0, 1.0), np.random.default_rng(seed))
    out["betting, 256 orders"] = betting_orders(post.state_scores(), post.freq, LEVEL, np.random.default_rng(seed))
    out["default, 256 orders"] = out["exact"]
    if widened:
        b_lo, b_hi = out["betting, 256 orders"]
        lo, hi = out["exact"]
        near_low = m <= 1.0 - m  # as results.widen: the far end is the one away from the nearer end of [0, 1]
        out["default, 256 orders"] = (lo, max(hi, b_hi)) if near_low else (min(lo, b_lo), hi)
    q = stats.t.ppf(0.5 + LEVEL / 2, M - 1)
    out["t"] = (m - q * se, m + q * se)
    if s == 0.0:  # every question alike: the resampling methods have nothing to resample
        for name in ("percentile", "BCa", "bootstrap-t"):
            out[name] = (m, m)
    else:
        for method, name in (("percentile", "percentile"), ("BCa", "BCa")):
            ci = stats.bootstrap((x,), np.mean, n_resamples=RESAMPLES, confidence_level=LEVEL, method=method,
                                 random_state=rng).confidence_interval
            out[name] = (float(ci.low), float(ci.high))
        out["bootstrap-t"] = bootstrap_t(post.state_scores(), post.freq, LEVEL, RESAMPLES, rng, (0.0, 1.0))
    h = math.sqrt(math.log(2 / (1 - LEVEL)) / (2 * M))
    out["Hoeffding"] = (m - h, m + h)
    (lo_d, hi_d), (lo_t, hi_t) = out["exact"], out["bootstrap-t"]
    out["exact+bootstrap-t"] = (min(lo_d, lo_t), max(hi_d, hi_t))
    if s == 0.0:  # as interval="exact+bootstrap-t" in evaluate: no bootstrap, the exact interval
        out["exact+bootstrap-t"] = out["exact"]
    return {k: (max(lo, 0.0), min(hi, 1.0)) for k, (lo, hi) in out.items()}


def run_cell(args):
    M, N, pool_name, metric, reps, seed = args
    pool = pools()[pool_name]
    rng = np.random.default_rng(seed)  # the replicates' questions and trials
    rng_m = np.random.default_rng(seed + 10_000)  # the methods' draws and resamples: the replicates do not depend on them
    rng_w = np.random.default_rng(seed + 20_000)  # the betting intervals' question orders (the other columns keep theirs)
    probe = build(to_counts(np.ones((1, N), np.int8)), metric, prior="uniform")
    truth = pool_mean(pool, probe.C[:, 0])
    hits = dict.fromkeys(METHODS, 0)
    width = dict.fromkeys(METHODS, 0.0)
    warned = 0
    warned_hits = {"exact": 0, "default": 0}
    for _ in range(reps):
        p = draw_p(rng, pool, M)
        counts = to_counts((rng.random((M, N)) < p[:, None]).astype(np.int8))
        post = build(counts, metric)
        x = post.freq.astype(np.int64)
        scores = np.repeat(post._scores()[:, 0], x)
        ivs = intervals(post, scores, rng_m, 1000, rng_w)
        for name, (lo, hi) in ivs.items():
            hits[name] += lo - 1e-12 <= truth <= hi + 1e-12
            width[name] += hi - lo
        few = post.carrying_questions()
        if 0.0 < few < FEW_CARRYING:
            warned += 1
            for name in warned_hits:
                lo, hi = ivs[name]
                warned_hits[name] += lo - 1e-12 <= truth <= hi + 1e-12
    return ((M, N, pool_name, metric, reps), {k: v / reps for k, v in hits.items()},
            {"width": {k: v / reps for k, v in width.items()}, "warned": warned / reps,
             "warned_cover": {k: v / max(warned, 1) for k, v in warned_hits.items()}})


def render(cov, extra, elapsed, reps) -> str:
    out = ["# Tail-dominated population-scope cells: the default against standard intervals", "",
           f"Replicates per cell: {reps} (the same replicates for every method); 95% intervals; pool's E[g(p)] as "
           f"the estimand; run time {elapsed / 60:.1f} min.  Produced by `python benchmarks/tail_cells.py`.", "",
           "Coverage % [exact binomial 95% interval] and mean width per method:", "",
           "| M | N | pool | metric | " + " | ".join(METHODS) + " | warned (covered: exact / default) |",
           "|---|---|---|---|" + "---|" * len(METHODS) + "---|"]
    for key in cov:
        M, N, pool, metric, r = key
        cells = []
        for name in METHODS:
            x = round(cov[key][name] * r)
            ci = stats.binomtest(x, r).proportion_ci(0.95, "exact")
            cells.append(f"{100 * x / r:.1f} [{100 * ci.low:.0f}, {100 * ci.high:.0f}] w {extra[key]['width'][name]:.3f}")
        e = extra[key]
        c = e["warned_cover"]
        warned = (f"{100 * e['warned']:.0f}% ({100 * c['exact']:.0f}% / {100 * c['default']:.0f}%)" if e["warned"]
                  else "0%")
        out.append(f"| {M} | {N} | {pool} | {metric} | " + " | ".join(cells) + f" | {warned} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = bench_parser(__doc__, 2000)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    tasks = [(M, N, pool, metric, args.reps, 9500 + i) for i, (M, N, pool, metric) in enumerate(CELLS)]
    cov, extra, elapsed = run_cells(run_cell, tasks, args.workers)
    return finish(render(cov, extra, elapsed, args.reps), args.out, args.json,
                  {"|".join(map(str, k)): {"coverage": v, **extra[k]} for k, v in cov.items()})


if __name__ == "__main__":
    raise SystemExit(main())
