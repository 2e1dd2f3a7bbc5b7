"""Regenerate ``cruxeval.json`` from CRUXEval's scored sample generations (maintainers only).

Source: facebookresearch/cruxeval @ 190faf16, ``samples/evaluation_results/`` (Gu et al.,
"CRUXEval: A Benchmark for Code Reasoning, Understanding and Execution", arXiv:2401.03065),
MIT licence, (c) 2023 Meta.  Code Llama 7B, temperature 0.2, 800 problems x 10 samples for
input prediction (CRUXEval-I) and output prediction (CRUXEval-O);
``raw_scored_generations`` = {"sample_i": [bool x 10]}, and each file carries its
``pass_at_1`` / ``pass_at_5`` in % (I: 35.95 / 44.99, O: 34.21 / 40.29).

Usage: python examples/data/convert_cruxeval.py /path/to/cruxeval/samples/evaluation_results
"""

import json
import sys
from pathlib import Path

from bayeseval.io import OutcomeSet, Run, write_outcomes

MODEL = "codellama-7b"
TASKS = {"CRUXEval-I": "sample_scored_codellama-7b_temp0.2_input.json",
         "CRUXEval-O": "sample_scored_codellama-7b_temp0.2_output.json"}


def main(folder: str) -> None:
    root = Path(folder)
    runs = []
    for dataset, name in TASKS.items():
        doc = json.loads((root / name).read_text())
        scored = doc["raw_scored_generations"]
        ids = sorted(scored, key=lambda q: int(q.split("_")[1]))  # sample_0 .. sample_799, numerically
        assert ids == [f"sample_{i}" for i in range(800)], "800 problems sample_0..sample_799"
        assert all(len(scored[q]) == 10 and all(isinstance(x, bool) for x in scored[q]) for q in ids)
        rows = [[int(x) for x in scored[q]] for q in ids]
        # the file's own numbers (in %), as fractions to 10 digits
        published = {"pass@1": round(doc["pass_at_1"] / 100, 10), "pass@5": round(doc["pass_at_5"] / 100, 10)}
        runs.append(Run(dataset, MODEL, ids, rows, meta={"published": published}))
    out = OutcomeSet(
        runs,
        source="facebookresearch/cruxeval @ 190faf16, samples/evaluation_results/ (Gu et al., CRUXEval, "
        "arXiv:2401.03065)",
        license="MIT License, Copyright (c) 2023 Meta",
        notes="Code Llama 7B, temperature 0.2, 10 samples per problem; 1 = the sample's predicted input "
        "(CRUXEval-I) or output (CRUXEval-O) passes the problem's assertion. Questions sample_0..sample_799 in "
        "numeric order. Datasets: CRUXEval-I = input prediction, CRUXEval-O = output prediction. "
        "'published' holds the pass_at_1 / pass_at_5 stored in each upstream file, divided by 100.",
    )
    write_outcomes(Path(__file__).with_name("cruxeval.json"), out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/cruxeval")
