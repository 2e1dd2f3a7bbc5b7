"""Regenerate ``tot_crosswords.json`` from the Tree-of-Thoughts mini-crossword logs (maintainers only).

Source: princeton-nlp/tree-of-thought-llm @ ab400345, ``logs/crosswords/`` (Yao et al., "Tree of
Thoughts", NeurIPS 2023, arXiv:2305.10601), MIT licence, (c) 2023 Shunyu Yao.
GPT-4, temperature 0.7, 5x5 mini crosswords 0-19, 10 samples per puzzle and prompt
(IO = "standard", CoT = "cot"); per sample ``r_letter`` (fraction of the 25 letters right),
``r_word`` (fraction of the 10 words right) and ``r_game`` (the whole grid right).

Encoding: one dataset per measure, the same puzzles and samples in each:
"letters" -- category = letters right (0..25), weights k/25; "words" -- category = words right
(0..10), weights k/10; "games" -- 0/1.  The mean of the weights is the paper's Table 3 number.

Usage: python examples/data/convert_tot_crosswords.py /path/to/tree-of-thought-llm/logs/crosswords
"""

import json
import sys
from pathlib import Path

from bayeseval.io import OutcomeSet, Run, write_outcomes

FILES = {"gpt-4 IO": "gpt-4_0.7_naive_standard_sample_10_start0_end20.json",
         "gpt-4 CoT": "gpt-4_0.7_naive_cot_sample_10_start0_end20.json"}
# Table 3, in fractions (letter / word / game %: IO 38.7 / 14 / 0, CoT 40.6 / 15.6 / 1)
PUBLISHED = {"gpt-4 IO": {"letters": 0.387, "words": 0.14, "games": 0.0},
             "gpt-4 CoT": {"letters": 0.406, "words": 0.156, "games": 0.01}}
MEASURES = {"letters": ("r_letter", 25), "words": ("r_word", 10), "games": ("r_game", 1)}


def count(x, n: int) -> int:
    """The number of items behind the fraction ``x`` of ``n`` (asserting it is an exact multiple of 1/n)."""
    k = round(float(x) * n)
    assert abs(float(x) * n - k) < 1e-9 and 0 <= k <= n, (x, n)
    return k


def main(folder: str) -> None:
    root = Path(folder)
    runs, ids0 = [], None
    for model, name in FILES.items():
        log = json.loads((root / name).read_text())
        assert all(len(t["infos"]) == 10 for t in log), "10 samples per puzzle"
        ids = [str(t["idx"]) for t in log]
        assert ids0 is None or ids == ids0, "IO and CoT must cover the same puzzles"
        ids0 = ids
        for dataset, (key, n) in MEASURES.items():
            rows = [[count(info[key], n) for info in t["infos"]] for t in log]
            runs.append(Run(dataset, model, ids, rows, weights=None if n == 1 else [k / n for k in range(n + 1)],
                            meta={"published": {"avg": PUBLISHED[model][dataset]}}))
    out = OutcomeSet(
        runs,
        source="princeton-nlp/tree-of-thought-llm @ ab400345, logs/crosswords/ "
        "(Yao et al., Tree of Thoughts, NeurIPS 2023, arXiv:2305.10601)",
        license="MIT License, Copyright (c) 2023 Shunyu Yao",
        notes="GPT-4, temperature 0.7, 5x5 mini crosswords 0-19, 10 samples per puzzle. Three datasets over the "
        "same samples: 'letters' = letters right out of 25 (category k, weight k/25, from r_letter), "
        "'words' = words right out of 10 (category k, weight k/10, from r_word), 'games' = 1 if the whole grid "
        "is right (r_game). Trial j is sample j in all three.",
    )
    write_outcomes(Path(__file__).with_name("tot_crosswords.json"), out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/tree-of-thought-llm/crosswords")
