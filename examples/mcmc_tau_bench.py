"""MCMC cross-check and hierarchical models on tau-bench (gpt-4o airline agent, 50 tasks x 4 trials).

Source: sierra-research/tau-bench @ 59a200c6 (Yao et al., arXiv:2406.12045), MIT licence.
The published pass^1..4 (0.420, 0.273, 0.220, 0.200) are the unbiased estimates; this script
checks the closed-form posteriors of pass^k with NUTS and then fits two hierarchical models
for the population scope (a new task from the same pool).

    python examples/mcmc_tau_bench.py [--draws 2000]
"""

import argparse
from pathlib import Path

import bayeseval as be
from bayeseval import mcmc
from bayeseval.io import read_outcomes

DATA = Path(__file__).with_name("data") / "tau_bench_airline.json"
METRICS = ["avg", "pass^2", "pass^3", "pass^4", "pass@4"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--draws", type=int, default=2000)
    args = ap.parse_args(argv)
    R = read_outcomes(DATA).counts("gpt-4o")
    print("published pass^1..4: 0.420 0.273 0.220 0.200; unbiased estimates:",
          " ".join(f"{be.pass_hat_k(R, k):.3f}" for k in (1, 2, 3, 4)))
    print()
    print(mcmc.crosscheck(R, METRICS, draws=args.draws, chains=2, seed=1))
    print()
    print(mcmc.hierarchical(R, METRICS, draws=args.draws, chains=2, seed=2))


if __name__ == "__main__":
    main()
