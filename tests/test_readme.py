"""Numbers the README quotes are produced here, so a change that moves them fails a test."""

import re
from pathlib import Path

import pytest

import bayeseval as be
from bayeseval.cli import main
from bayeseval.io import read_outcomes

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_creative_writing_intervals_quoted_for_the_pooled_dirichlet_prior():
    text = read_outcomes(ROOT / "examples" / "data" / "tot_text.json")
    counts, w = text.counts("gpt-4 CoT"), text.weights("gpt-4 CoT")
    pooled = be.estimate(counts, "avg", w=w)
    old = be.estimate(counts, "avg", w=w, prior="dirichlet")
    assert round(pooled.value, 2) == 6.93
    assert (round(old.lo, 2), round(old.hi, 2)) == (6.51, 6.87)
    assert (round(pooled.lo, 2), round(pooled.hi, 2)) == (6.71, 7.13)
    assert "[6.51, 6.87]" in README and "[6.71, 7.13]" in README


def test_latex_table_in_the_readme_is_what_the_command_prints(capsys):
    block = re.search(r"```latex\n(.*?)```", README, flags=re.S).group(1).strip()
    code = main(["report", str(ROOT / "examples" / "data" / "tot_game24.json"), "--metrics", "avg,pass@100",
                 "--format", "latex", "--bold-best", "--baseline", "gpt-4 IO", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    body = out[out.index("\\begin{tabular}"):out.index("\\end{tabular}") + len("\\end{tabular}")]
    assert body == block
