"""Regenerate ``tau_bench_airline.json`` from tau-bench's historical trajectories (maintainers only).

Source: sierra-research/tau-bench @ 59a200c6, ``historical_trajectories/gpt-4o-airline.json``
(Yao et al., "tau-bench", arXiv:2406.12045), MIT licence, (c) 2024 Sierra.
gpt-4o tool-calling agent, airline domain, 50 tasks x 4 trials; ``reward`` 0/1 per (task_id, trial).

Usage: python examples/data/convert_tau_bench.py /path/to/gpt-4o-airline.json
"""

import json
import sys
from pathlib import Path

from bayeseval.io import OutcomeSet, Run, write_outcomes


def main(path: str) -> None:
    records = json.loads(Path(path).read_text())
    tasks = sorted({r["task_id"] for r in records})
    trials = sorted({r["trial"] for r in records})
    grid = {(r["task_id"], r["trial"]): r["reward"] for r in records}
    assert len(grid) == len(records) == len(tasks) * len(trials), "one reward per (task, trial)"
    assert all(v in (0.0, 1.0) for v in grid.values()), "rewards are 0/1"
    rows = [[int(grid[t, j]) for j in trials] for t in tasks]
    published = {"pass^1": 0.420, "pass^2": 0.273, "pass^3": 0.220, "pass^4": 0.200}
    out = OutcomeSet(
        [Run("tau-bench airline, gpt-4o tool-calling agent (50 tasks x 4 trials)", "gpt-4o",
             [str(t) for t in tasks], rows, meta={"published": published})],
        source="sierra-research/tau-bench @ 59a200c6, historical_trajectories/gpt-4o-airline.json "
        "(Yao et al., tau-bench, arXiv:2406.12045)",
        license="MIT License, Copyright (c) 2024 Sierra",
        notes="1 = the trial's reward is 1 (task solved). Trials 0..3 in order.",
    )
    write_outcomes(Path(__file__).with_name("tau_bench_airline.json"), out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/tau-bench/gpt-4o-airline.json")
