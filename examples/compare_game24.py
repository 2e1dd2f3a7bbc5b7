"""Is chain-of-thought better than plain prompting on Game of 24?  compare() on real paired data.

GPT-4 answered the same 100 Game of 24 tasks (Tree of Thoughts, Yao et al. 2023, MIT licence)
100 times with an IO prompt and 100 times with a CoT prompt.  On pass@1 the IO prompt wins
(7.3% vs 4.0% in the paper's Table 2); on pass@100 CoT wins (49% vs 33%).  Are those
differences real, and how large could they be?

    python examples/compare_game24.py
"""

from pathlib import Path

import bayeseval as be
from bayeseval.io import read_outcomes

DATA = Path(__file__).with_name("data") / "tot_game24.json"


def main():
    runs = read_outcomes(DATA)
    io, cot = runs.counts("gpt-4 IO"), runs.counts("gpt-4 CoT")
    for metric in ("pass@1", "pass@100"):
        res = be.compare(cot, io, metric=metric, names=("CoT", "IO"), seed=1)
        print(f"== {metric} ==")
        print(res.summary())
        print()
    print("== planning: how many tasks would detect a 2-point difference in pass@1? ==")
    print(be.plan(cot, io, delta=0.02).summary())


if __name__ == "__main__":
    main()
