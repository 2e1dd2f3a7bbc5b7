"""Paired bootstrap speed: bayeseval against scipy.stats.bootstrap(paired=True, vectorized=True).

    python benchmarks/bench_compare.py [--markdown-out FILE]

Same per-question scores (fraction correct of two correlated models, M =
10,000 questions; N = 1 and N = 8 trials), 10,000 resamples, percentile and
BCa intervals.  Times are the minimum over 3 runs.  The intervals should agree
within Monte-Carlo error: both are 10,000-resample estimates of the same
bootstrap quantiles, whose MC sd is roughly 0.02-0.03 bootstrap SEs at 2.5%.
Also timed: the whole ``bayeseval.compare`` (Bayesian difference, bootstrap,
permutation, McNemar, t, Wilcoxon) on the raw matrices.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

import numpy as np
import scipy
from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from _common import best_of, finish  # noqa: E402
import bayeseval  # noqa: E402
from bayeseval.comparison.paired import paired_bootstrap  # noqa: E402

B = 10_000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown-out", default=None)
    args = ap.parse_args(argv)
    lines = [
        "# Paired bootstrap: bayeseval vs scipy.stats.bootstrap",
        "",
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"{os.cpu_count()} CPUs; M = 10,000 questions, {B:,} resamples, min of 3 runs.",
        "",
        "| N | method | bayeseval s | scipy s | speed-up | bayeseval interval | scipy interval | max diff / boot SE |",
        "|---|---|---|---|---|---|---|---|",
    ]
    rng = np.random.default_rng(11)
    M = 10_000
    timings = []
    for N in (1, 8):
        p = rng.beta(1.5, 1.5, M)
        A = (rng.random((M, N)) < np.clip(p + 0.02, 0, 1)[:, None]).astype(np.int8)
        Bm = (rng.random((M, N)) < p[:, None]).astype(np.int8)
        xa, xb = A.mean(axis=1), Bm.mean(axis=1)
        d = xa - xb
        for method in ("percentile", "BCa"):
            t_be, res = best_of(lambda: paired_bootstrap(d, resamples=B, rng=np.random.default_rng(1)))
            key = "percentile" if method == "percentile" else "bca"
            ours = (res[key]["lo"], res[key]["hi"])

            def run_scipy():
                return stats.bootstrap((xa, xb), lambda a, b, axis: np.mean(a - b, axis=axis), paired=True,
                                       vectorized=True, n_resamples=B, method=method,
                                       random_state=np.random.default_rng(2))

            t_sp, sp = best_of(run_scipy)
            theirs = (float(sp.confidence_interval.low), float(sp.confidence_interval.high))
            diff = max(abs(ours[0] - theirs[0]), abs(ours[1] - theirs[1])) / res["se"]
            timings.append(t_sp / t_be)
            lines.append(f"| {N} | {method} | {t_be:.4f} | {t_sp:.3f} | {t_sp / t_be:,.0f}x | "
                         f"[{ours[0]:+.5f}, {ours[1]:+.5f}] | [{theirs[0]:+.5f}, {theirs[1]:+.5f}] | {diff:.3f} |")
        t_cmp, _ = best_of(lambda: bayeseval.compare(A, Bm))
        lines.append(f"| {N} | whole `compare(A, B)` | {t_cmp:.3f} | - | - | - | - | - |")
    lines += ["", f"Smallest speed-up: {min(timings):,.0f}x (floor: 10x)."]
    return finish("\n".join(lines), args.markdown_out)


if __name__ == "__main__":
    sys.exit(main())
