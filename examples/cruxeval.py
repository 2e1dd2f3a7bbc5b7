"""pass@1 and pass@5 with credible intervals on CRUXEval: Code Llama 7B, input vs output prediction.

CRUXEval (Gu et al. 2024, MIT licence) asks a model to predict a Python function's input from
its output (CRUXEval-I) or its output from its input (CRUXEval-O); Code Llama 7B answered each of
the 800 problems 10 times at temperature 0.2.  Published: CRUXEval-I pass@1 35.95, pass@5 44.99;
CRUXEval-O pass@1 34.21, pass@5 40.29.

Shows: pass@1 and pass@5 with 95% intervals in both scopes, then a paired comparison of input
and output prediction on the same 800 functions: the 1.7-point pass@1 gap is not resolved, the
4.7-point pass@5 gap is.

    python examples/cruxeval.py
"""

from pathlib import Path

import bayeseval as be
from bayeseval.io import read_outcomes

DATA = Path(__file__).with_name("data") / "cruxeval.json"


def main():
    runs = read_outcomes(DATA)
    tasks = {task: runs.counts("codellama-7b", task) for task in runs.datasets}  # CRUXEval-I, CRUXEval-O
    for scope in ("population", "benchmark"):
        print(f"scope={scope}")
        print(be.evaluate(tasks, ["pass@1", "pass@5"], scope=scope, seed=1))
        print()
    for metric in ("pass@1", "pass@5"):
        res = be.compare(tasks["CRUXEval-I"], tasks["CRUXEval-O"], metric=metric, names=("input", "output"), seed=1)
        print(res.summary().splitlines()[0])


if __name__ == "__main__":
    main()
