"""The scripts in examples/ run end to end on the bundled data and print what they promise."""

import re
import runpy
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name, argv, capsys):
    old = sys.argv
    sys.argv = [str(EXAMPLES / name), *argv]
    try:
        runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    finally:
        sys.argv = old
    return capsys.readouterr().out


def test_posterior_exports_example(tmp_path, capsys):
    pytest.importorskip("arviz")
    png = tmp_path / "posterior.png"
    out = run_example("posterior_exports.py", ["--plot", str(png)], capsys)
    # the single estimate states its scope and prior; the estimate is the published-style value
    first = out.splitlines()[0]
    assert first.startswith("<Estimate gpt-4 CoT: pass@10 = ")
    assert "scope=population" in first and "prior=robust" in first
    # both scopes printed as tables with one row per model x metric
    assert "scope=population" in out and "scope=benchmark" in out
    assert len(re.findall(r"^gpt-4 (IO|CoT)\s+pass@100 ", out, flags=re.M)) == 4
    # Game of 24 avg (Tree of Thoughts Table 2: IO 7.3 %, CoT 4.0 %, to the published precision) appears as the point value
    assert re.search(r"^gpt-4 IO\s+avg\s+0\.0734 ", out, flags=re.M)
    assert re.search(r"^gpt-4 CoT\s+avg\s+0\.0403 ", out, flags=re.M)
    # the ArviZ summary has one row per metric variable and model
    assert re.search(r"^avg\[gpt-4 IO\]", out, flags=re.M) and re.search(r"^pass@10\[gpt-4 CoT\]", out, flags=re.M)
    assert png.exists() and png.stat().st_size > 10_000


def test_compare_game24_example(capsys):
    """IO beats CoT on pass@1 (7.3 % vs 4.0 %), CoT beats IO on pass@100 (49 % vs 33 %): Tree of Thoughts Table 2."""
    out = run_example("compare_game24.py", [], capsys)
    p1, p100 = out.split("== pass@100 ==")
    assert "IO is better. pass@1: CoT 0.0403 vs IO 0.0734" in p1
    assert "CoT is better. pass@100: CoT 0.4900 vs IO 0.3300; CoT - IO = +0.1600 (posterior mean +0.1584" in p100
    # the paired analyses agree on the direction; the exact sign-flip test is deterministic
    assert re.search(r"sign-flip permutation \(exact\)\s+\+0\.1600\s+-\s+p = 0\.01", p100)
    assert "questions needed for delta = 0.02" in out
    # the numbers docs/comparisons.md quotes from this run
    # the estimates' difference first (4.03% - 7.34%), then the posterior's mean, pulled towards 0 by its prior question
    assert ("CoT 0.0403 vs IO 0.0734; CoT - IO = -0.0331 (posterior mean -0.0328, 95% credible interval [-0.0708, "
            "-0.0035], population scope), P(CoT > IO) = 0.013") in p1
    assert "CoT - IO = +0.1600 (posterior mean +0.1584, 95% credible interval [+0.0446, +0.2709]" in p100
    page = (Path(__file__).resolve().parent.parent / "docs" / "comparisons.md").read_text(encoding="utf-8")
    assert "[-7.1, -0.4], P(CoT > IO) = 0.013" in page and "+15.8 points [+4.5, +27.1]" in page


def test_mcmc_tau_bench_example(capsys):
    pytest.importorskip("pymc")
    out = run_example("mcmc_tau_bench.py", ["--draws", "1000"], capsys)
    # tau-bench README leaderboard: pass^1..4 = 0.420, 0.273, 0.220, 0.200
    assert "unbiased estimates: 0.420 0.273 0.220 0.200" in out
    assert "benchmark scope): PASS" in out
    assert re.search(r"^pass\^4\s+0\.1757\s", out, flags=re.M)  # closed-form population scope, hierarchical prior


def test_creative_writing_example(capsys):
    """Tree of Thoughts Fig. 5a: mean score IO 6.19, CoT 6.93; Bayes@N pulled towards 5.5 by its Dirichlet(1) prior."""
    out = run_example("creative_writing.py", [], capsys)
    assert "100 questions x 49..50 trials, 10 categories" in out  # 3 missing ratings kept as missing trials
    row = r"\s+(6\.\d+)\s+\[(\S+), (\S+)\]\s+(6\.\d+)\s+\[(\S+), (\S+)\]\s+\[(\S+), (\S+)\]$"
    io = re.search(r"^gpt-4 IO" + row, out, flags=re.M)
    cot = re.search(r"^gpt-4 CoT" + row, out, flags=re.M)
    assert io and cot
    assert io.group(1) == "6.192" and cot.group(1) == "6.927"  # the published 6.19 and 6.93
    assert io.group(4) == "6.077" and cot.group(4) == "6.689"  # Bayes@N = mean of (n x_i + 55) / (n + 10)
    for m in (io, cot):
        avg, mlo, mhi, bayes, plo, phi, blo, bhi = map(float, m.groups())
        assert mlo < avg < mhi and plo < bayes < phi and blo < bayes < bhi
        assert plo < blo < bhi < phi and bhi < avg  # the benchmark interval is Bayes@N's, below the plain mean
    # the grades compared by their mean (scores on 1-10): the published means 6.19 / 6.93, paired by task
    assert "mean rating, as scores on 1-10: CoT is better. avg: CoT 6.9270 vs IO 6.1921" in out
    assert "CoT is better. avg: CoT 0.6220 vs IO 0.4640; CoT - IO = +0.1580 (posterior mean +0.1564" in out


def test_cruxeval_example(capsys):
    """CRUXEval, Code Llama 7B: I pass@1 35.95, pass@5 44.99; O pass@1 34.21, pass@5 40.29 (the upstream files)."""
    out = run_example("cruxeval.py", [], capsys)
    pop, bench = out.split("scope=benchmark")
    for part, scope in ((pop, "population"), (bench, "benchmark")):
        for task, metric, value in (("I", "pass@1", "0.3595"), ("I", "pass@5", "0.4499"),
                                    ("O", "pass@1", "0.3421"), ("O", "pass@5", "0.4029")):
            m = re.search(rf"^CRUXEval-{task}\s+{metric}\s+{value}\s+\S+\s+\S+\s+\[(\S+), (\S+)\] 95% exact\s+{scope}",
                          part, flags=re.M)
            assert m, (task, metric, scope)
            assert float(m.group(1)) < float(value) < float(m.group(2))
    # population scope: the Dirichlet-process posterior over the 800 questions plus one uniform pseudo-question,
    # mean (800 x 0.3595 + 1/2) / 801 = 0.3597
    assert re.search(r"^CRUXEval-I\s+pass@1\s+0\.3595\s+0\.3597\s+0\.0155\s+\[0\.3303, 0\.3904\]", pop, flags=re.M)
    assert "no clear difference. pass@1: input 0.3595 vs output 0.3421; input - output = +0.0174" in out
    assert "input is better. pass@5: input 0.4499 vs output 0.4029; input - output = +0.0470" in out


def test_tau_bench_pass_k_example(capsys):
    """tau-bench README leaderboard, gpt-4o airline: pass^1..4 = 0.420, 0.273, 0.220, 0.200."""
    out = run_example("tau_bench_pass_k.py", [], capsys)
    previous = None
    for k, value in ((1, "0.420"), (2, "0.273"), (3, "0.220"), (4, "0.200")):
        m = re.search(rf"^pass\^{k}\s+{value}\s+\[(\S+), (\S+)\]\s+\[(\S+), (\S+)\]$", out, flags=re.M)
        assert m, k
        plo, phi, blo, bhi = map(float, m.groups())
        assert plo < blo < float(value) < bhi < phi  # the population interval adds task sampling
        if previous is not None:
            assert float(value) < previous  # pass^k falls with k
        previous = float(value)
    assert re.search(r"^pass@4\s+0\.720\s", out, flags=re.M)  # pass@k rises: any of k trials succeeds


def test_game24_pass_at_k_example(tmp_path, capsys):
    """Tree of Thoughts Table 2 at both ends of the curve (IO 7.3 / 33 %, CoT 4.0 / 49 %) and where they cross."""
    pytest.importorskip("matplotlib")
    png = tmp_path / "curve.png"
    out = run_example("game24_pass_at_k.py", ["--plot", str(png)], capsys)
    assert re.search(r"^\s+1\s+7\.3 \[4\.3, 12\.3\]\s+4\.0 \[2\.8, 6\.8\]$", out, flags=re.M)
    assert re.search(r"^100\s+33\.0 \[[\d.]+, [\d.]+\]\s+49\.0 \[[\d.]+, [\d.]+\]$", out, flags=re.M)
    import bayeseval as be
    from bayeseval.io import read_outcomes

    data = read_outcomes(EXAMPLES / "data" / "tot_game24.json")
    k = int(re.search(r"CoT overtakes IO at k = (\d+)", out).group(1))
    assert be.pass_at_k(data["gpt-4 CoT"], k) > be.pass_at_k(data["gpt-4 IO"], k)
    assert be.pass_at_k(data["gpt-4 CoT"], k - 1) <= be.pass_at_k(data["gpt-4 IO"], k - 1)
    assert png.stat().st_size > 10_000
