"""tau-bench (Yao et al., arXiv:2406.12045): gpt-4o tool-calling agent, airline domain, pass^1..4.

Recomputes the README leaderboard numbers from the 50 tasks x 4 trials in
``examples/data/tau_bench_airline.json`` (MIT, (c) 2024 Sierra) and prints them beside the
published values, then the same table with 95% credible intervals in both scopes.

    python papers/tau_bench.py
"""

from pathlib import Path

import bayeseval as be
from bayeseval.io import read_outcomes
from bayeseval.report import text_table

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "tau_bench_airline.json"
PUBLISHED = {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}


def rows():
    """(k, published, recomputed, population estimate, benchmark estimate) for pass^1..4."""
    R = read_outcomes(DATA).counts("gpt-4o")
    out = []
    for k, pub in PUBLISHED.items():
        metric = "avg" if k == 1 else f"pass^{k}"
        pop = be.estimate(R, metric, scope="population", seed=1)
        bench = be.estimate(R, metric, scope="benchmark", seed=1)
        out.append((k, pub, be.pass_hat_k(R, k), pop, bench))
    return out


def main():
    table = rows()
    print("tau-bench airline, gpt-4o (50 tasks x 4 trials): pass^k as published and recomputed")
    print(text_table(["k", "published", "recomputed"], [(str(k), f"{p:.3f}", f"{v:.3f}") for k, p, v, _, _ in table],
                     right=[1, 2]))
    print()
    print("with 95% exact credible intervals (hierarchical prior)")
    print(text_table(
        ["k", "pass^k", "population 95%", "benchmark 95%"],
        [(str(k), f"{v:.3f}", f"[{pop.lo:.3f}, {pop.hi:.3f}]", f"[{b.lo:.3f}, {b.hi:.3f}]") for k, _, v, pop, b in table],
        right=[1, 2, 3],
    ))


if __name__ == "__main__":
    main()
