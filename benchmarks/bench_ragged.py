"""Speed of bayeseval.estimate when questions have many different trial counts (ragged runs: failed requests,
adaptive sampling), the case where the robust pool's work grows with the number of distinct (trials, successes)
states rather than with the questions.

    python benchmarks/bench_ragged.py [--out FILE]

M questions with n_i drawn uniformly from 1..300 trials (about 300 distinct trial counts, 1,000-2,800 distinct
states), p_i ~ Beta(0.5, 0.5); one full ``bayeseval.estimate`` call on the raw matrix (NaN for trials not run,
``ragged=True``) per cell, the exact 95% interval with 4,000 draws, timed once (a call counts its matrix afresh,
so nothing is cached between calls); beside the default robust prior, the hierarchical Beta and the independent
uniform prior on the same matrices.
"""

from __future__ import annotations

import os
import platform
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from _common import bench_parser, finish  # noqa: E402
import bayeseval  # noqa: E402


def ragged(M: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 301, M)
    x = rng.binomial(n, rng.beta(0.5, 0.5, M))
    j = np.arange(300)[None, :]
    return np.where(j < n[:, None], (j < x[:, None]).astype(float), np.nan)


def main(argv=None) -> int:
    ap = bench_parser(__doc__, None)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    out = ["# bayeseval.estimate with ragged trial counts (1-300 trials per question)", "",
           f"python {platform.python_version()}, numpy {np.__version__}, bayeseval {bayeseval.__version__}, "
           f"{os.cpu_count()} CPUs. Seconds per call (one call: the matrix is counted afresh each time), exact 95% "
           "interval, 4,000 draws. `python benchmarks/bench_ragged.py`.", "",
           "| M | distinct states | metric | scope | robust (default) s | hierarchical s | uniform s |",
           "|---|---|---|---|---|---|---|"]
    for M in (1_000, 3_000):
        R = ragged(M, 11)
        states = bayeseval.counts.to_counts(R, missing=np.nan, ragged=True).binary_states()[0].size
        for metric in ("avg", "pass@4"):
            for scope in ("benchmark", "population"):
                cells = []
                for prior in ("robust", "hierarchical", "uniform"):
                    t0 = time.perf_counter()
                    bayeseval.estimate(R, metric, scope=scope, prior=prior, missing=np.nan, ragged=True)
                    cells.append(f"{time.perf_counter() - t0:.2f}")
                out.append(f"| {M:,} | {states:,} | {metric} | {scope} | " + " | ".join(cells) + " |")
    return finish("\n".join(out), args.out)


if __name__ == "__main__":
    raise SystemExit(main())
