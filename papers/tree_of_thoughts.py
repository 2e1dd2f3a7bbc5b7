"""Tree of Thoughts (Yao et al., NeurIPS 2023, arXiv:2305.10601), Table 2: Game of 24, IO and CoT.

Recomputes the IO and CoT rows of Table 2 (success rate of one sample, and of the best of 100)
from GPT-4's 100 samples on tasks 900-999 in ``examples/data/tot_game24.json`` (MIT, (c) 2023
Shunyu Yao), prints them beside the published values, then with 95% credible intervals.
(Fig. 5a and Table 3 need the creative-writing and crosswords logs, not bundled yet.)

    python papers/tree_of_thoughts.py
"""

from pathlib import Path

import bayeseval as be
from bayeseval.io import read_outcomes
from bayeseval.report import text_table

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "tot_game24.json"
PUBLISHED = {("gpt-4 IO", 1): 7.3, ("gpt-4 CoT", 1): 4.0, ("gpt-4 IO", 100): 33.0, ("gpt-4 CoT", 100): 49.0}


def rows():
    """(model, k, published %, recomputed %, population estimate) for Table 2's IO and CoT rows."""
    runs = read_outcomes(DATA)
    out = []
    for (model, k), pub in PUBLISHED.items():
        R = runs.counts(model)
        out.append((model, k, pub, 100 * be.pass_at_k(R, k), be.estimate(R, f"pass@{k}", seed=1)))
    return out


def main():
    table = rows()
    print("Tree of Thoughts, Table 2 (Game of 24): success rate in %")
    print(text_table(["method", "metric", "published", "recomputed", "population 95%"],
                     [(m, "pass@1" if k == 1 else "best of 100", f"{p:.1f}", f"{v:.1f}",
                       f"[{100 * e.lo:.1f}, {100 * e.hi:.1f}]") for m, k, p, v, e in table], right=[2, 3, 4]))


if __name__ == "__main__":
    main()
