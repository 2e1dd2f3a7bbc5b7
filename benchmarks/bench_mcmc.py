"""How long the MCMC cross-check takes, per sampler, beside the closed form it checks.

    python benchmarks/bench_mcmc.py [--markdown-out FILE]

crosscheck(R, ["avg", "pass@4", "maj@5", "pass^4"], draws=1000, chains=2) on random 0/1 matrices
with M = 100 and 1000 questions, N = 8 trials; samplers: nutpie (NUTS in Rust, model compiled
with numba) and PyMC's own NUTS (C backend).  Each cell is one cold call (model compilation
included, as a user experiences it) and a second warm call on fresh data of the same shape.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from _common import best_of, finish  # noqa: E402

# numba (under nutpie) imports the `coverage` package when it exists; keep it from finding this
# folder's coverage.py (the coverage study), which Python put on the path with the script's folder
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
import bayeseval  # noqa: E402
from bayeseval import mcmc  # noqa: E402

METRICS = ["avg", "pass@4", "maj@5", "pass^4"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown-out", default=None)
    args = ap.parse_args(argv)
    import pymc

    samplers = ["pymc"]
    try:
        import nutpie

        samplers.insert(0, "nutpie")
        nut = f", nutpie {nutpie.__version__}"
    except ImportError:
        nut = " (nutpie not installed)"
    lines = ["# MCMC cross-check: time per call", "",
             f"python {platform.python_version()}, PyMC {pymc.__version__}{nut}, {os.cpu_count()} CPUs; "
             f"metrics {', '.join(METRICS)}; 1,000 draws x 2 chains after 1,000 tuning steps.", "",
             "| M x N | sampler | cold s | warm s | passed | min bulk ESS | closed form s |", "|---|---|---|---|---|---|---|"]
    rng = np.random.default_rng(3)
    for M in (100, 1000):
        data = [(rng.random((M, 8)) < rng.beta(1, 1, (M, 1))).astype(np.int8) for _ in range(2)]
        t_closed, _ = best_of(lambda: [bayeseval.estimate(data[0], m, scope="benchmark", prior="uniform",
                                                          interval="normal") for m in METRICS])
        for s in samplers:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", mcmc.MCMCWarning)
                t0 = time.perf_counter()
                mcmc.crosscheck(data[0], METRICS, sampler=s, seed=1)
                cold = time.perf_counter() - t0
                t0 = time.perf_counter()
                cc = mcmc.crosscheck(data[1], METRICS, sampler=s, seed=2)
                warm = time.perf_counter() - t0
            ess = min(r["ess_bulk"] for r in cc.rows)
            lines.append(f"| {M} x 8 | {s} | {cold:.1f} | {warm:.1f} | {cc.passed} | {ess:.0f} | {t_closed:.4f} |")
    lines += ["", "numpyro / blackjax need JAX, which is not a dependency. `sampler='auto'` is PyMC's NUTS: "
              "as fast as nutpie once compiled and faster on a first call (nutpie's numba compilation)."]
    return finish("\n".join(lines), args.markdown_out)


if __name__ == "__main__":
    sys.exit(main())
