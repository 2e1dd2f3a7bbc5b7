"""CRUXEval (Gu et al., arXiv:2401.03065): Code Llama 7B, temperature 0.2, pass@1 and pass@5.

Recomputes the numbers stored in CRUXEval's sample evaluation results (800 problems x 10
samples, input prediction CRUXEval-I and output prediction CRUXEval-O;
``examples/data/cruxeval.json``, MIT, (c) 2023 Meta) and prints them beside the published
values, then the same table with 95% credible intervals in both scopes.  pass@k is the unbiased
estimator ``1 - C(n-c, k) / C(n, k)`` averaged over problems, as in CRUXEval's own code.

With 800 problems the population interval (a new problem from the same pool, hierarchical
prior) is still 4 to 8 times wider than the benchmark one (these 800 problems, only the noise
of 10 samples each): a claim about Code Llama 7B's code reasoning in general is about +-3
points uncertain, whatever the number of samples.  (``examples/cruxeval.py`` compares input
and output prediction on the same problems.)

    python papers/cruxeval.py
"""

from pathlib import Path

import bayeseval as be
from bayeseval.io import read_outcomes
from bayeseval.report import text_table

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "cruxeval.json"
MODEL = "codellama-7b"
# published in %, as printed in the paper's tables; the upstream files hold 35.94999999999998,
# 44.991071428571416, 34.212500000000006 and 40.286706349206355
PUBLISHED = {("CRUXEval-I", 1): 35.95, ("CRUXEval-I", 5): 44.99, ("CRUXEval-O", 1): 34.21, ("CRUXEval-O", 5): 40.29}


def rows():
    """(task, k, published %, recomputed %, file's value %, population estimate, benchmark estimate)."""
    runs = read_outcomes(DATA)
    out = []
    for (task, k), pub in PUBLISHED.items():
        run = runs.run(MODEL, task)
        R = run.counts()
        pop = be.estimate(R, f"pass@{k}", seed=1, model=task)
        bench = be.estimate(R, f"pass@{k}", scope="benchmark", seed=1, model=task)
        out.append((task, k, pub, 100 * be.pass_at_k(R, k), 100 * run.meta["published"][f"pass@{k}"], pop, bench))
    return out


def main():
    table = rows()
    print("CRUXEval, Code Llama 7B (T=0.2, 800 problems x 10 samples): pass@k in %")
    print(text_table(["task", "metric", "published", "recomputed"],
                     [(t, f"pass@{k}", f"{p:.2f}", f"{v:.2f}") for t, k, p, v, *_ in table], right=[2, 3]))
    print()
    print("with 95% credible intervals (hierarchical prior)")
    print(text_table(
        ["task", "metric", "%", "population 95%", "benchmark 95%"],
        [(t, f"pass@{k}", f"{v:.2f}", f"[{100 * pop.lo:.2f}, {100 * pop.hi:.2f}]",
          f"[{100 * b.lo:.2f}, {100 * b.hi:.2f}]") for t, k, _, v, _, pop, b in table],
        right=[2, 3, 4]))


if __name__ == "__main__":
    main()
