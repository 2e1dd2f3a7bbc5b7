"""Regenerate ``tot_text.json`` from the Tree-of-Thoughts creative-writing logs (maintainers only).

Source: princeton-nlp/tree-of-thought-llm @ ab400345, ``logs/text/`` (Yao et al., "Tree of
Thoughts", NeurIPS 2023, arXiv:2305.10601), MIT licence, (c) 2023 Shunyu Yao.
GPT-4, temperature 1.0, tasks 0-99, 10 passages per task and prompt (IO = "standard", CoT = "cot");
GPT-4 rated the coherency of each passage 5 times on 1..10 (``infos[j]["rs"]``, mean ``r``).
Fig. 5a reports the mean of ``r``: IO 6.19, CoT 6.93.

Encoding: one trial per rating, category = grade - 1 with weights 1..10, 50 trials per task in
passage-major order (trial 5j + t is rating t of passage j), so per-passage means can be
recovered.  Three passages have only 4 parsed ratings (the paper's code drops replies without
a score); their fifth position is a missing trial ("."), not a zero.

Usage: python examples/data/convert_tot_text.py /path/to/tree-of-thought-llm/logs/text
Nothing else in the repository needs the upstream logs.
"""

import json
import sys
from pathlib import Path

import numpy as np

from bayeseval.io import OutcomeSet, Run, write_outcomes

RATINGS = 5  # ratings per passage
FILES = {"gpt-4 IO": "gpt-4_1.0_naive_standard_sample_10_start0_end100.json",
         "gpt-4 CoT": "gpt-4_1.0_naive_cot_sample_10_start0_end100.json"}
PUBLISHED = {"gpt-4 IO": {"avg": 6.19}, "gpt-4 CoT": {"avg": 6.93}}


def rows_of(log: list) -> tuple[list, list, int]:
    """(task ids, rows of categories with NaN for a missing rating, number of missing ratings)."""
    ids, rows, missing = [], [], 0
    for task in log:
        row = []
        for info in task["infos"]:
            rs = info["rs"]
            assert 1 <= len(rs) <= RATINGS and all(isinstance(g, int) and 1 <= g <= 10 for g in rs), info
            assert abs(info["r"] - sum(rs) / len(rs)) < 1e-9, "r is the mean of rs"
            row += [g - 1 for g in rs] + [np.nan] * (RATINGS - len(rs))
            missing += RATINGS - len(rs)
        ids.append(str(task["idx"]))
        rows.append(row)
    return ids, rows, missing


def main(folder: str) -> None:
    root = Path(folder)
    runs, ids0 = [], None
    for model, name in FILES.items():
        log = json.loads((root / name).read_text())
        assert all(len(t["infos"]) == 10 for t in log), "10 passages per task"
        ids, rows, missing = rows_of(log)
        assert ids0 is None or ids == ids0, "IO and CoT must cover the same tasks"
        ids0 = ids
        published = np.mean([i["r"] for t in log for i in t["infos"]])
        assert round(published, 2) == PUBLISHED[model]["avg"], (model, published)
        print(f"{model}: {len(ids)} tasks, {missing} missing ratings, mean r = {published:.4f}")
        runs.append(Run("Creative writing, tasks 0-99 (Tree of Thoughts, Fig. 5a)", model, ids, np.array(rows, float),
                        weights=list(range(1, 11)), meta={"published": PUBLISHED[model]}))
    out = OutcomeSet(
        runs,
        source="princeton-nlp/tree-of-thought-llm @ ab400345, logs/text/ "
        "(Yao et al., Tree of Thoughts, NeurIPS 2023, arXiv:2305.10601)",
        license="MIT License, Copyright (c) 2023 Shunyu Yao",
        notes="GPT-4, temperature 1.0, 10 passages per task, each rated 5 times by GPT-4 for coherency on 1..10. "
        "One trial per rating: category = grade - 1 (weights 1..10); trial 5j+t is rating t of passage j; "
        "'.' = a rating the paper's parser did not find (3 passages have 4 ratings). "
        "Fig. 5a's score is the mean over passages of the mean rating (infos[j]['r']).",
    )
    write_outcomes(Path(__file__).with_name("tot_text.json"), out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/tree-of-thought-llm/text")
