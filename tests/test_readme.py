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


def _column(md: str, index: int) -> list[str]:
    rows = [line.split("|")[1:-1] for line in md.splitlines() if line.startswith("| ") and "---" not in line]
    return [r[index].strip() for r in rows[1:]]


def test_sequential_numbers_quoted_are_the_benchmark_results():
    """README and docs/sequential.md quote ranges of benchmarks/results_sequential.md and results_replay.md."""
    docs = (ROOT / "docs" / "sequential.md").read_text(encoding="utf-8")
    typei = (ROOT / "benchmarks" / "results_sequential.md").read_text(encoding="utf-8")

    def span(col):
        vals = [float(v.rstrip("%")) for v in _column(typei, col)]
        return min(vals), max(vals)

    seq, peek_t, peek_cmp = span(2), span(3), span(4)
    assert f"{seq[0]:.1f}-{seq[1]:.1f}%" == "0.1-2.7%" and seq[1] < 5.0
    assert (round(peek_t[0]), round(peek_t[1])) == (23, 41) and (round(peek_cmp[0]), round(peek_cmp[1])) == (18, 33)
    for text in (README, docs):
        assert "0.1-2.7%" in text and "23-41%" in text and "18-33%" in text
    replay = (ROOT / "benchmarks" / "results_replay.md").read_text(encoding="utf-8")
    savings = _column(replay, 7)
    assert "**11.4x**" in savings and "**43.9x**" in savings
    for text in (README, docs):
        assert "11.4x" in text and "43.9x" in text
