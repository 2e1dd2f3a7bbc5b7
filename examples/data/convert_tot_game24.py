"""Regenerate ``tot_game24.json`` from the Tree-of-Thoughts logs (maintainers only).

Source: princeton-nlp/tree-of-thought-llm @ ab400345, ``logs/game24/`` (Yao et al.,
"Tree of Thoughts", NeurIPS 2023, arXiv:2305.10601), MIT licence, (c) 2023 Shunyu Yao.
GPT-4, temperature 0.7, tasks 900-999, 100 samples per task:
IO prompt ("standard"): ``accs`` booleans; CoT prompt: ``infos[j]["r"]`` 0/1.

Usage: python examples/data/convert_tot_game24.py /path/to/tree-of-thought-llm/logs/game24
Nothing else in the repository needs the upstream logs.
"""

import json
import sys
from pathlib import Path

from bayeseval.io import OutcomeSet, Run, write_outcomes


def main(folder: str) -> None:
    root = Path(folder)
    io_log = json.loads((root / "gpt-4_0.7_naive_standard_sample_100_start900_end1000.json").read_text())
    cot_log = json.loads((root / "gpt-4_0.7_naive_cot_sample_100_start900_end1000.json").read_text())
    io_rows = [[int(bool(a)) for a in task["accs"]] for task in io_log]
    cot_rows = [[int(info["r"]) for info in task["infos"]] for task in cot_log]
    assert [t["idx"] for t in io_log] == [t["idx"] for t in cot_log], "IO and CoT must cover the same tasks"
    ids = [str(t["idx"]) for t in io_log]
    dataset = "Game of 24, tasks 900-999 (Tree of Thoughts, Table 2)"
    published = {
        "gpt-4 IO": {"pass@1": 0.073, "pass@100": 0.33},
        "gpt-4 CoT": {"pass@1": 0.040, "pass@100": 0.49},
    }
    rows = {"gpt-4 IO": io_rows, "gpt-4 CoT": cot_rows}
    out = OutcomeSet(
        [Run(dataset, m, ids, rows[m], meta={"published": published[m]}) for m in rows],
        source="princeton-nlp/tree-of-thought-llm @ ab400345, logs/game24/ "
        "(Yao et al., Tree of Thoughts, NeurIPS 2023, arXiv:2305.10601)",
        license="MIT License, Copyright (c) 2023 Shunyu Yao",
        notes="GPT-4, temperature 0.7, 100 samples per task; 1 = the sample solves the task. "
        "IO from accs, CoT from infos[j]['r'].",
    )
    write_outcomes(Path(__file__).with_name("tot_game24.json"), out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/tree-of-thought-llm/game24")
