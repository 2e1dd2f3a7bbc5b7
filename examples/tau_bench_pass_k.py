"""pass^k (all k trials succeed) with credible intervals in both scopes: tau-bench, gpt-4o airline agent.

tau-bench (Yao et al. 2024, MIT licence) measures an agent's reliability by pass^k, the chance
that k independent trials of the same task all succeed; gpt-4o solved the 50 airline tasks in 4
trials each (README leaderboard: pass^1..4 = 0.420, 0.273, 0.220, 0.200).

Shows: the unbiased pass^k (the leaderboard numbers) beside pass@k, with 95% intervals for these
50 tasks (benchmark scope) and for a new task from the same pool (population scope, the default):
with 50 tasks the population interval is 1.4 to 1.8 times as wide.

    python examples/tau_bench_pass_k.py
"""

from pathlib import Path

import bayeseval as be
from bayeseval.io import read_outcomes
from bayeseval.report import text_table

DATA = Path(__file__).with_name("data") / "tau_bench_airline.json"


def main():
    R = read_outcomes(DATA).counts("gpt-4o")
    rows = []
    for k in (1, 2, 3, 4):
        for metric in (f"pass^{k}", f"pass@{k}") if k > 1 else ("pass^1",):
            pop = be.estimate(R, metric, seed=1)
            bench = be.estimate(R, metric, scope="benchmark", seed=1)
            rows.append((metric, f"{pop.value:.3f}", f"[{pop.lo:.3f}, {pop.hi:.3f}]",
                         f"[{bench.lo:.3f}, {bench.hi:.3f}]"))
    print("tau-bench airline, gpt-4o: 50 tasks x 4 trials (hierarchical prior)")
    print(text_table(["metric", "estimate", "population 95%", "benchmark 95%"], rows, right=[1, 2, 3]))


if __name__ == "__main__":
    main()
