"""Speed of bayeseval.estimate: normal vs exact vs hdi intervals, both scopes, both prior kinds.

    python benchmarks/bench_intervals.py [--markdown-out FILE]

The issue's floor: exact intervals for M = 100,000 questions and N = 64 trials
in under 2 s.  Each cell is the minimum over 3 runs of a full
``bayeseval.estimate`` call on the raw matrix (counting, the posterior, the
robust mixture or hierarchical fit where used, the model check, and 4,000 seeded
draws for exact / hdi).  ``robust`` is the default prior for 0/1 outcomes.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
from _common import best_of, finish  # noqa: E402
import bayeseval  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown-out", default=None)
    args = ap.parse_args(argv)
    lines = [
        "# bayeseval.estimate: interval speed",
        "",
        f"python {platform.python_version()}, numpy {np.__version__}, bayeseval {bayeseval.__version__}, "
        f"{os.cpu_count()} CPUs. Seconds per call (min of 3), draws = 4000.",
        "",
    ]
    rng = np.random.default_rng(7)
    for M, N in [(1_000, 16), (100_000, 64)]:
        R = (rng.random((M, N)) < rng.beta(0.5, 0.5, (M, 1))).astype(np.int8)
        lines += [f"## M = {M:,}, N = {N}", "", "| metric | prior | scope | normal s | exact s | hdi s |", "|---|---|---|---|---|---|"]
        for metric in ("avg", "pass@8", "maj@8", "geospectrum@8"):
            for prior in ("robust", "hierarchical", "uniform"):
                for scope in ("benchmark", "population"):
                    cells = []
                    for method in ("normal", "exact", "hdi"):
                        t, _ = best_of(lambda: bayeseval.estimate(R, metric, scope=scope, prior=prior, interval=method))
                        cells.append(f"{t:.3f}")
                    lines.append(f"| {metric} | {prior} | {scope} | " + " | ".join(cells) + " |")
        lines.append("")
    return finish("\n".join(lines), args.markdown_out)


if __name__ == "__main__":
    sys.exit(main())
