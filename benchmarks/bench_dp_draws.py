"""Dirichlet-process draws of a mean over many distinct per-question scores: every question its own weight
(exact) against 1,024 frequency groups plus the within-group spread drawn as a normal (``bayeseval.posterior.
bootstrap.dp_draws`` above ``DP_EXACT_ROWS`` distinct rows), side by side on the same scores.

    python benchmarks/bench_dp_draws.py [--quick] [--out benchmarks/results_dp_draws.md]

Prints seconds for 4,000 draws and the 2.5 / 50 / 97.5% quantiles of each (their Monte-Carlo error is about
sd / 30 at the tails), for continuous scores (uniform, and a U-shaped Beta(0.3, 0.3)) at 10^5 and 10^6 questions.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from _common import bench_parser, finish  # noqa: E402
import bayeseval.posterior.bootstrap as bs  # noqa: E402

DRAWS = 4000


def run(rows, freq, exact: bool, seed: int):
    saved = bs.DP_EXACT_ROWS
    bs.DP_EXACT_ROWS = 10**12 if exact else saved
    try:
        rng = np.random.default_rng(seed)
        y = rng.random((DRAWS, 1))
        t = time.perf_counter()
        d = bs.dp_draws(rows, freq, y, rng)[:, 0]
        return time.perf_counter() - t, np.quantile(d, [0.025, 0.5, 0.975]), d.std()
    finally:
        bs.DP_EXACT_ROWS = saved


def main() -> None:
    ap = bench_parser(__doc__, None)
    ap.add_argument("--quick", action="store_true", help="10^5 questions only")
    args = ap.parse_args()
    sizes = (100_000,) if args.quick else (100_000, 1_000_000)
    lines = ["| M | scores | method | seconds | 2.5% | 50% | 97.5% | sd |", "|---|---|---|---|---|---|---|---|"]
    for M in sizes:
        for name, draw in (("uniform", lambda r, m: r.random(m)), ("Beta(0.3, 0.3)", lambda r, m: r.beta(0.3, 0.3, m))):
            x = draw(np.random.default_rng(M), M)
            rows, freq = np.unique(x, return_counts=True)
            for label, exact in (("every question (exact)", True), ("1,024 groups + normal", False)):
                sec, q, sd = run(rows[:, None], freq.astype(float), exact, 1)
                lines.append(f"| {M:,} | {name} | {label} | {sec:.2f} | {q[0]:.6f} | {q[1]:.6f} | {q[2]:.6f} | "
                             f"{sd:.2e} |")
                print(lines[-1], flush=True)
    head = (f"# Dirichlet-process draws over many distinct scores ({DRAWS:,} draws)\n\n"
            "`python benchmarks/bench_dp_draws.py`; the same scores and seed for both methods.\n\n")
    finish(head + "\n".join(lines), args.out)


if __name__ == "__main__":
    main()
