"""Numbers the README and the docs pages quote are produced here, so a change that moves them fails a test."""

import re
from pathlib import Path

import numpy as np


import bayeseval as be
from bayeseval.cli import main
from bayeseval.io import read_outcomes

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def page(name: str) -> str:
    return (ROOT / "docs" / name).read_text(encoding="utf-8")


def test_creative_writing_intervals_quoted_for_the_pooled_dirichlet_prior():
    text = read_outcomes(ROOT / "examples" / "data" / "tot_text.json")
    counts, w = text.counts("gpt-4 CoT"), text.weights("gpt-4 CoT")
    pooled = be.estimate(counts, "avg", w=w)
    old = be.estimate(counts, "avg", w=w, prior="dirichlet")
    assert round(pooled.value, 2) == 6.93
    assert (round(old.lo, 2), round(old.hi, 2)) == (6.51, 6.87)
    assert (round(pooled.lo, 2), round(pooled.hi, 2)) == (6.70, 7.13)
    model = page("model.md")  # the categorical-outcomes paragraph moved there from the README
    assert "[6.51, 6.87]" in model and "[6.70, 7.13]" in model


def test_latex_table_in_the_docs_is_what_the_command_prints(capsys):
    block = re.search(r"```latex\n(.*?)```", page("reports.md"), flags=re.S).group(1).strip()
    code = main(["report", str(ROOT / "examples" / "data" / "tot_game24.json"), "--metrics", "avg,pass@100",
                 "--format", "latex", "--bold-best", "--baseline", "gpt-4 IO", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.strip() == block  # the notes (% lines) and the table, all of what the command prints


def _column(md: str, index: int) -> list[str]:
    rows = [line.split("|")[1:-1] for line in md.splitlines() if line.startswith("| ") and "---" not in line]
    return [r[index].strip() for r in rows[1:]]


def test_sequential_numbers_quoted_are_the_benchmark_results():
    """docs/comparisons.md (the section moved from the README) and docs/sequential.md quote ranges of
    benchmarks/results_sequential.md and results_replay.md."""
    docs = page("sequential.md")
    comparisons = page("comparisons.md")
    typei = (ROOT / "benchmarks" / "results_sequential.md").read_text(encoding="utf-8")

    def span(col):
        vals = [float(v.rstrip("%")) for v in _column(typei, col)]
        return min(vals), max(vals)

    seq, plugin, peek_t, peek_cmp = span(2), span(3), span(4), span(5)
    assert f"{seq[0]:.1f}-{seq[1]:.1f}%" == "0.5-2.2%" and seq[1] < 5.0
    assert f"{plugin[0]:.1f}-{plugin[1]:.1f}%" == "0.1-2.7%" and plugin[1] < 5.0
    assert (round(peek_t[0]), round(peek_t[1])) == (23, 41) and (round(peek_cmp[0]), round(peek_cmp[1])) == (18, 33)
    for text in (comparisons, docs):
        assert "0.5-2.2%" in text and "23-41%" in text and "18-33%" in text
    assert "0.1-2.7%" in docs
    replay = (ROOT / "benchmarks" / "results_replay.md").read_text(encoding="utf-8")
    savings, fixed, null = _column(replay, 7), _column(replay, 10), _column(replay, 11)
    assert "**12.3x**" in savings and "**50.1x**" in savings
    clear = [float(v) for v in fixed if v != "-"]
    assert (min(clear), max(clear), round(sum(clear) / len(clear), 2)) == (1.76, 2.41, 2.09)
    typei_null = [float(v.rstrip("%")) for v in null]
    assert (min(typei_null), max(typei_null)) == (0.0, 4.8) and max(typei_null) <= 5.0
    for text in (comparisons, docs):
        assert "12.3x" in text and "50.1x" in text and "1.76" in text and "2.41x" in text and "2.09x" in text
        assert "0.0-4.8%" in text


def test_the_readme_tour_numbers():
    """The five-minute tour's comments: pass@100 of CoT and the CoT - IO comparison on Game of 24."""
    data = be.load(ROOT / "examples" / "data" / "tot_game24.json")
    est = be.evaluate(data, ["avg", "pass@10", "pass@100"])["gpt-4 CoT", "pass@100"]
    assert f"{est.value:.2f} [{est.lo:.3f}, {est.hi:.3f}]" == "0.49 [0.394, 0.599]"
    assert "est.value, est.lo, est.hi                                # 0.49 [0.394, 0.599]" in README
    c = be.compare(data["gpt-4 CoT"], data["gpt-4 IO"], metric="pass@100", names=("CoT", "IO"))
    seen = c.estimates["CoT"].value - c.estimates["IO"].value  # the headline's difference (the posterior's mean 0.158)
    quoted = f"CoT - IO = {seen:+.3f} [{c.delta.lo:+.3f}, {c.delta.hi:+.3f}], P(CoT > IO) = {c.p_a_better:.3f}"
    assert quoted == "CoT - IO = +0.160 [+0.045, +0.273], P(CoT > IO) = 0.996"
    assert f"CoT - IO = +0.1600 (posterior mean {c.delta.mean:+.4f}," in c.summary()
    assert quoted in README


def test_the_readme_stays_short_and_keeps_the_ci_command():
    assert len(README.splitlines()) <= 250
    ci = [line for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if "pytest" in line]
    assert len(ci) == 1 and ci[0] in README  # the second set-up command is exactly what CI runs
    for name in ("model", "question", "score", "trial", "dataset"):
        assert f"`{name}`" in README
    assert "--question-col" in README and "pass@k" in README and "pass^k" in README


def test_scale_numbers_quoted_are_the_benchmark_results():
    """docs/io.md quotes benchmarks/results_scale.md: 12.8M rows (count_table, DuckDB's GROUP BY, the pandas
    reader: best seconds and peak memory) and the 1.024e9-row run."""
    md = (ROOT / "benchmarks" / "results_scale.md").read_text(encoding="utf-8")
    io = " ".join(page("io.md").split())

    def row(label: str) -> list[str]:
        hits = [line.split("|")[1:-1] for line in md.splitlines() if line.startswith(f"| {label}")]
        assert len(hits) == 1, label
        return [c.strip() for c in hits[0]]

    raw, mine, pandas = row("(a) DuckDB"), row("(b) `count_table(f)`"), row("(c) `read_long(f)`")
    ratio = float(mine[1]) / float(raw[1])
    assert f"counted in {mine[1]} s against {raw[1]} s for DuckDB's own `GROUP BY` ({ratio:.2f}x on the best times" in io
    assert f"{pandas[1]} s for the pandas reader, with a peak of {mine[6]} MB against {pandas[6]} MB" in io
    big = [line.split("|")[1:-1] for line in md.splitlines() if line.startswith("| 1,024,000,000 ")]
    group_by, counted = ([c.strip() for c in r] for r in big)
    assert "count_table" in counted[3] and "GROUP BY" in group_by[3]
    assert f"in {float(counted[5]):.0f} s" in io and f"raw `GROUP BY` {float(group_by[5]):.0f} s" in io
    assert f"peak {int(counted[-1].replace(',', '')) / 1000:.1f} GB" in io


def test_coverage_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes benchmarks/results_coverage_robust.md (lowest cell per metric and scope, at M >= 30
    and at M = 15; the cells outside the floor beyond Monte-Carlo noise) and results_coverage_confirm.md."""
    md = (ROOT / "benchmarks" / "results_coverage_robust.md").read_text(encoding="utf-8")
    doc = page("honesty.md")
    flat = " ".join(doc.split())
    rows = [line.split("|")[1:-1] for line in md.splitlines() if line.startswith("| ") and "---" not in line]
    worst = [[c.strip() for c in r] for r in rows if len(r) == 5 and r[0].strip() in ("avg", "pass@k", "pass^k",
                                                                                       "maj@k")]
    assert len(worst) == 8
    for metric, scope, big, small, _ in worst:
        low = big.split(" / ")[0]  # "90.7 (Beta(2,5), M=30, N=64)"
        value, where = low.split(" (", 1)
        pool, m, n = where.rstrip(")").rsplit(", ", 2)
        quoted = f"| {metric} | {scope} | "
        line = next(x for x in doc.splitlines() if x.startswith(quoted))
        assert f"| {value} ({pool}, {m[2:]}, {n[2:]}) | {small.split(' (')[0]} |" in line, (metric, scope)
    noise = [[c.strip() for c in r] for r in rows if len(r) == 6 and r[2].strip().isdigit()]
    below = sum(int(r[3].split(" / ")[0].split(" [")[0]) for r in noise)  # "2 [1] / 0": per cell [oracle too] / all
    above = sum(int(r[4].split(" / ")[0].split(" [")[0]) for r in noise)
    bonferroni = sum(int(r[3].split(" / ")[1]) for r in noise)
    assert (below, above, bonferroni) == (2, 28, 0)
    assert "2 cells are below it at 95% per cell (of 672) and 28 above it" in flat and "(Bonferroni), none" in flat
    confirm = (ROOT / "benchmarks" / "results_coverage_confirm.md").read_text(encoding="utf-8")
    verdicts = [line.split("|")[10].strip() for line in confirm.splitlines() if line.startswith("| ")
                and "---" not in line and "verdict" not in line]
    assert (len(verdicts), verdicts.count("below the floor")) == (16, 5)
    assert "Eleven are within noise of the floor" in flat and "five are below it for real" in flat
    for line in confirm.splitlines():
        if line.startswith("| ") and "---" not in line and line.split("|")[10].strip() == "below the floor":
            assert line.split("|")[8].strip() in flat  # the re-measured coverage, e.g. 90.2


def test_confirm_bound_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes every coverage of results_coverage_confirm_bound.md (the cells the n < 2k bound
    changed, re-run with 1,000 replicates), each at its own phrase, the M = 15 cell's exact interval and maj@3's
    oracle."""
    md = (ROOT / "benchmarks" / "results_coverage_confirm_bound.md").read_text(encoding="utf-8")
    flat = " ".join(page("honesty.md").split())
    rows = {(r[0], r[1], r[2], r[3]): r for r in ([c.strip() for c in line.split("|")[1:-1]] for line in md.splitlines()
            if line.startswith("| ") and "---" not in line and "verdict" not in line)}
    assert len(rows) == 7 and all(r[6] == "1000" and r[4] == "benchmark" for r in rows.values())
    cov = {k: r[7] for k, r in rows.items()}
    phrases = {
        ("two clusters", "30", "4", "pass^k"): "pass^3 from 4 trials on the two-cluster pool {}% at M = 30",
        ("two clusters", "15", "4", "pass^k"): "and {}% at M = 15 (exact interval [87.8, 91.6]",
        ("Beta(2,5)", "15", "4", "pass@k"): "pass@3 on Beta(2,5) at M = 15 {}%",
        ("logit-normal(0,2)", "100", "4", "pass@k"): "pass@3 on logit-normal at M = 100 {}%",
        ("logit-normal(0,2)", "30", "4", "pass^k"): "pass^3 on logit-normal at M = 30 {}%",
        ("logit-normal(0,2)", "100", "64", "pass@k"): "pass@16 on logit-normal at M = 100 with 64 trials {}%",
        ("two clusters", "30", "4", "maj@k"): "maj@3 on the two-cluster pool at M = 30 covers {}%",
    }
    for key, phrase in phrases.items():
        assert phrase.format(cov[key]) in flat, key
    assert rows["two clusters", "15", "4", "pass^k"][8] == "[87.8, 91.6]"
    assert rows["two clusters", "15", "4", "pass^k"][9] == "within noise of the floor"
    maj = rows["two clusters", "30", "4", "maj@k"]
    assert maj[9] == "above 97%" and f"(the oracle {maj[10]}%)" in flat


def _table_rows(md: str, skip: str) -> list[list[str]]:
    """The cells of a markdown table's body rows (header rows hold ``skip``)."""
    return [[c.strip() for c in line.split("|")[1:-1]] for line in md.splitlines()
            if line.startswith("| ") and "---" not in line and skip not in line]


def test_small_m_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_small_m.md: the default's largest one-side miss (and its cell), the largest
    two-sided miss, the largest one-side miss at M <= 5, and the exact interval's largest one-side miss."""
    md = (ROOT / "benchmarks" / "results_small_m.md").read_text(encoding="utf-8")
    flat = " ".join(page("honesty.md").split())
    rows = _table_rows(md, "warned %")
    side = lambda r, col: [float(x) for x in r[col].split(" / ")]  # noqa: E731
    assert len(rows) == 72
    worst = max(rows, key=lambda r: max(side(r, 5)))
    names = {"real: cruxeval": "the CRUXEval pool", "Beta(0.5,0.5)": "Beta(0.5, 0.5)"}
    assert (f"at most {max(side(worst, 5)):.1f}% of replicates on one side ({worst[2]} on {names[worst[1]]} at "
            f"M = {worst[0]}) and at most {max(sum(side(r, 5)) for r in rows):.1f}% on both sides together, so every "
            f"cell covers at least {100 - max(sum(side(r, 5)) for r in rows):.1f}%") in flat
    assert f"at M <= 5 no side misses more than {max(max(side(r, 5)) for r in rows if int(r[0]) <= 5):.1f}%" in flat
    ex = max(rows, key=lambda r: max(side(r, 4)))
    assert (f"the exact interval alone misses at most {max(side(ex, 4)):.1f}% on one side ({ex[2]} on "
            f"{names[ex[1]]} at M = {ex[0]})") in flat


def test_default_coverage_quoted_is_the_grid_result():
    """docs/honesty.md quotes results_coverage_robust_default.md (the default interval's grid, N = 1 to 64): its
    summary table row for row, the cells beyond noise (below and above, with the oracle), the lowest cells with 64
    trials and pass@2N's medians."""
    md = (ROOT / "benchmarks" / "results_coverage_robust_default.md").read_text(encoding="utf-8")
    doc = page("honesty.md")
    flat = " ".join(doc.split())
    summary = md.split("## Summary per metric and scope")[1].split("\n## ")[0]
    rows = [line for line in summary.splitlines() if line.startswith("| ") and not line.startswith("| metric")]
    assert len(rows) == 8 and all(row in doc.splitlines() for row in rows)
    noise = _table_rows(md.split("Monte-Carlo noise: the default interval")[1].split("\n## ")[0], "below: per cell")
    first = lambda cell: int(cell.split(" [")[0])  # noqa: E731 - "2 [1] / 0": per cell [oracle too] / all cells
    oracle = lambda cell: int(cell.split("[")[1].split("]")[0])  # noqa: E731
    below, above = sum(first(r[3]) for r in noise), sum(first(r[4]) for r in noise)
    assert sum(int(r[2]) for r in noise) == 672 and (below, above) == (1, 32)
    assert sum(oracle(r[4]) for r in noise) == 16 and sum(oracle(r[3]) for r in noise) == 1
    assert all(r[3].endswith("/ 0") and r[4].endswith("/ 0") for r in noise)  # none over all cells (Bonferroni)
    assert "the default has 1 of 672 cells below the floor" in flat and "32 are above it, all at 100% (16 with" in flat
    worst = md.split("## Worst cell per metric and scope")[1].split("\n## ")[0]
    assert "| pass@k | benchmark | 90.7 (Beta(2,5), M=30, N=64) /" in worst
    assert "| maj@k | benchmark | 90.0 (real: cruxeval, M=100, N=64) /" in worst
    assert "pass@16 on Beta(2,5) at M = 30 (90.7%, benchmark scope) and maj@16 on CRUXEval at M = 100 (90.0%)" in flat
    cell = next(line for line in md.split("## population scope")[1].splitlines() if line.startswith("| two clusters | 100 | 16 |"))
    assert cell.split("|")[4].strip().startswith("**88** / 87 / 87")  # avg: default / normal / oracle
    table = md.split("## pass@2N")[1].split("## ")[0]
    p2n = {r[0]: r for r in _table_rows(table, "median")}
    assert (f"pass@2N (k > N) covers a median {p2n['benchmark'][2]}% (benchmark) and {p2n['population'][2]}% "
            "(population) there") in flat


def test_extrapolated_coverage_quoted_is_the_grid_result():
    """docs/honesty.md quotes the pass@2N table of results_coverage_robust.md (median and lowest per scope)."""
    md = (ROOT / "benchmarks" / "results_coverage_robust.md").read_text(encoding="utf-8")
    table = md.split("## pass@2N")[1].split("## ")[0]
    row = {r[0]: r for r in _table_rows(table, "median")}
    flat = " ".join(page("honesty.md").split())
    assert (f"median {row['benchmark'][2]}% (benchmark) and {row['population'][2]}% (population), down to "
            f"{row['benchmark'][1]}% and {row['population'][1]}% when extrapolating") in flat


def test_extrapolation_bounds_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_extrapolation_bounds.md: the lowest coverage of the pool-free bounds for
    pass@2N and pass^2N over the cells, that every replicate had bounds, and the median widths."""
    import statistics

    md = (ROOT / "benchmarks" / "results_extrapolation_bounds.md").read_text(encoding="utf-8")
    flat = " ".join(page("honesty.md").split())
    rows = _table_rows(md, "no pool fits")
    assert len(rows) == 63
    cov = {col: min(float(r[col].split(" / ")[0]) for r in rows) for col in (3, 4)}
    width = lambda rs: statistics.median(float(r[3].split(" / ")[1]) for r in rs)  # noqa: E731
    at100 = {n: width([r for r in rows if r[1] == "100" and r[2] == n]) for n in ("1", "4", "16")}
    assert sum(int(r[5]) for r in rows) == 0
    assert (f"covering pass@2N in at least {cov[3]:.1f}% and pass^2N in at least {cov[4]:.1f}% of replicates in "
            f"every cell") in flat
    assert (f"a median of {width(rows):.3f} for pass@2N (at M = 100: {at100['1']:.3f} from one trial, "
            f"{at100['4']:.3f} from 4, {at100['16']:.3f} from 16)") in flat


def test_population_alternatives_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_population_alternatives.md: cells below and above the floor of the exact
    interval and the default, the default's lowest cell and mean widths against the exact interval's, and the
    alternatives' cells below (bootstrap-t's lowest cell also in its docstring) and the previous advice's width."""
    md = (ROOT / "benchmarks" / "results_population_alternatives.md").read_text(encoding="utf-8")
    flat = " ".join(page("honesty.md").split())
    rows = {(r[0], r[1]): r for r in _table_rows(md, "method")}
    metrics = ("avg", "pass@k", "pass^k", "maj@k")

    def per_metric(method, col):
        return " / ".join(rows[(m, method)][col] for m in metrics)

    assert (f"the exact interval {per_metric('exact', 2)}, the default {per_metric('default', 2)} (lowest cell "
            f"{min(float(rows[(m, 'default')][4].split()[0]) for m in metrics)}%); above it: "
            f"{per_metric('exact', 3)} and {per_metric('default', 3)}") in flat
    assert per_metric("default", 2) == "0 / 0 / 0 / 0"
    widths = ", ".join(f"{m} {rows[(m, 'default')][6]} against {rows[(m, 'exact')][6]}" for m in metrics)
    assert f"mean width {widths}" in flat
    assert f"bootstrap-t alone {per_metric('bootstrap-t', 2)}" in flat and f"JRSS-B 54(1)) {per_metric('Hall', 2)}" in flat
    low = rows[("pass^k", "bootstrap-t")][4]
    assert low.startswith("74.7 (Beta(2,5), M=30, N=64)") and "(lowest 74.7%: pass^16 on Beta(2,5) at M = 30" in flat
    assert "pass^16 on 30 questions of a Beta(2,5) pool: 74.7%" in " ".join(be.Estimate.bootstrap_t_interval.__doc__.split())
    assert (f"mean pass^k width {rows[('pass^k', 'hull if warned')][6]} against the default's "
            f"{rows[('pass^k', 'default')][6]}") in flat
    minutes = re.search(r"; ([\d.]+) min\.", md).group(1)
    assert f"`benchmarks/results_population_alternatives.md`, {minutes} min)" in flat


def test_few_carrying_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes benchmarks/results_few_carrying.md: how often the warning fires on the logit-normal
    cells and on the cells within the floor, the warned replicates' coverage by the exact interval and by the
    default, and pass@16 on Beta(2,5) at M = 30 (share warned, unwarned coverage)."""
    md = (ROOT / "benchmarks" / "results_few_carrying.md").read_text(encoding="utf-8")
    flat = " ".join(page("honesty.md").split())
    rows = _table_rows(md, "pool")
    ln = [r for r in rows if r[0] == "logit-normal(0,2)"]
    shares = [int(r[4]) for r in ln]
    covs = [float(r[5].split()[0]) for r in ln]
    default = {float(r[7].split()[0]) for r in ln}
    assert default == {100.0}
    assert (f"fires in {min(shares)}-{max(shares)}% of replicates, whose exact intervals cover "
            f"{min(covs):.1f}-{max(covs):.1f}% and whose default intervals 100.0%") in flat
    healthy = [int(r[4]) for r in rows if r[0] in ("Beta(2,5)", "three clusters", "two clusters") and r[3] != "pass@16"]
    assert f"it fires in {min(healthy)}-{max(healthy)}%" in flat
    b25 = next(r for r in rows if r[0] == "Beta(2,5)" and r[3] == "pass@16")
    assert f"is warned in {b25[4]}% of replicates, and the unwarned ones cover {b25[6].split()[0]}%" in flat


def test_compare_type_i_and_calibration_numbers_quoted_are_the_benchmark_results():
    """docs/comparisons.md quotes the two Bayesian rows of results_compare.md's type-I table and the share of
    null replicates with P(A > B) outside [0.025, 0.975] at M = 30, N = 1 from results_calibration_pools.md."""
    doc = page("comparisons.md")
    flat = " ".join(doc.split())
    md = (ROOT / "benchmarks" / "results_compare.md").read_text(encoding="utf-8")
    for scope in ("benchmark", "population"):
        cells = next(line for line in md.splitlines() if line.startswith(f"| Bayesian ({scope}) |")).split("|")[2:]
        assert f"| Bayesian, {scope} scope |" + "|".join(cells) in doc, scope
    cal = (ROOT / "benchmarks" / "results_calibration_pools.md").read_text(encoding="utf-8")
    null = cal.split("## Null")[1].split("##")[0]
    shares = [float(line.split("|")[-2]) for line in null.splitlines() if line.startswith("| ") and "| 30 | 1 |" in line]
    assert len(shares) == 4
    assert f"0.975] in {min(shares):.1f}-{max(shares):.1f}% of replicates" in flat

def test_tail_cells_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md, the few-carrying warning and Estimate.bootstrap_t_interval's docstring quote
    benchmarks/results_tail_cells.md: the exact interval's and the default's coverage and width ratio in the three
    cells that were below the floor, the betting interval's, Hoeffding's and bootstrap-t's."""
    import inspect

    from bayeseval.results import Estimate

    md = (ROOT / "benchmarks" / "results_tail_cells.md").read_text(encoding="utf-8")
    flat = " ".join(page("honesty.md").split())
    methods = ("default", "exact", "t", "percentile", "BCa", "bootstrap-t", "Hoeffding", "betting", "exact+bootstrap-t")
    head = next(r for r in _table_rows(md, "---") if r[0] == "M")
    assert tuple(head[4:13]) == methods
    rows = [r for r in _table_rows(md, "pool")]
    cov = {(r[0], r[2]): {m: float(c.split()[0]) for m, c in zip(methods, r[4:13])} for r in rows}
    wid = {(r[0], r[2]): {m: float(c.split(" w ")[1]) for m, c in zip(methods, r[4:13])} for r in rows}
    low = [("30", "Beta(2,5)"), ("30", "logit-normal(0,2)"), ("15", "logit-normal(0,2)")]
    for key in low:
        c, w = cov[key], wid[key]
        assert f"{c['exact']}% -> {c['default']}% ({w['default'] / w['exact']:.1f} times the width)" in flat, key
        assert c["default"] >= 93.0 > c["exact"]

    def span(values, fmt="{}"):
        return f"{fmt.format(min(values))}-{fmt.format(max(values))}"

    ratio = lambda m: [wid[k][m] / wid[k]["exact"] for k in low]  # noqa: E731
    assert (f"The betting interval alone covers {span([cov[k]['betting'] for k in low])}% at "
            f"{span(ratio('betting'), '{:.1f}')} times the exact interval's width") in flat
    assert f"Hoeffding's bound 100% at {span(ratio('Hoeffding'), '{:.1f}')} times" in flat
    boot = [cov[k]["bootstrap-t"] for k in low]
    assert f"`interval=\"bootstrap-t\"`) {span(boot)}%, at {span(ratio('bootstrap-t'), '{:.1f}')} times the width" in flat
    exact = [cov[k]["exact"] for k in low]
    doc = " ".join(inspect.getdoc(Estimate.bootstrap_t_interval).split())
    assert f"covered {span(boot)}% where the exact interval covered {span(exact)}%" in doc
    assert f"at {span(ratio('bootstrap-t'), '{:.1f}')} times the width" in doc
    R = np.zeros((15, 4), dtype=int)
    R[0] = 1
    R[1, :2] = 1
    warned = " ".join(be.estimate(R, "pass^2").warnings)
    assert (f"where this fires, the 95% equal-tailed posterior interval covered {round(min(exact))}-"
            f"{round(max(exact))}%") in warned
    assert f"that cell's default covers {cov[low[0]]['default']}% (2,000 replicates" in flat
    quoted = ", ".join(f"{cov[k]['default']}%" for k in low[:2]) + f" and {cov[low[2]]['default']}%"
    assert f"the default now widens the interval ({quoted} with 2,000 replicates; below)" in flat


def test_minorant_bound_numbers_quoted_are_the_grid_results():
    """docs/honesty.md and docs/model.md quote the pass^3 coverage from 4 trials (benchmark scope, exact interval)
    on the two-cluster and Beta(0.5, 0.5) pools after the n < 2k bound: results_coverage_robust.md's cells."""
    md = (ROOT / "benchmarks" / "results_coverage_robust.md").read_text(encoding="utf-8")
    bench = md.split("## benchmark scope")[1].split("## population scope")[0]
    cell = {}
    for line in bench.splitlines():
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) > 6 and c[2] == "4":
            cell[(c[0], c[1])] = c[5].replace("*", "").split(" / ")[0]  # pass^k, exact
    honesty = " ".join(page("honesty.md").split())
    model = " ".join(page("model.md").split())
    two15, two30 = cell[("two clusters", "15")], cell[("two clusters", "30")]
    u15, u30 = cell[("Beta(0.5,0.5)", "15")], cell[("Beta(0.5,0.5)", "30")]
    assert f"went from 89% to {two15}% (M = 15) and from 89% to {two30}% (M = 30)" in honesty
    assert f"from 89% to {u15}% (M = 15) and 92% to {u30}% (M = 30)" in honesty
    assert f"went from 89% to {two15}% (M = 15) and {two30}% (M = 30)" in model


def test_located_ablation_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_located_variance.md (the variance pieces on CRUXEval and the two-cluster pool,
    and how the fit splits the never-solved questions) and results_located_ablation.md (cells outside the floor
    with the located clusters on and off, and the cells below with them off)."""
    flat = " ".join(page("honesty.md").split())

    def rows(name):
        md = (ROOT / "benchmarks" / name).read_text(encoding="utf-8")
        return [[c.strip() for c in line.split("|")[1:-1]] for line in md.splitlines()
                if line.startswith("| ") and "---" not in line and not line.startswith("| pool |")
                and not line.startswith("| metric |")]

    var = {(r[0], r[1], r[2], r[3]): r for r in rows("results_located_variance.md") if len(r) == 12}
    avg = var[("real: cruxeval", "100", "4", "avg")]
    assert (f"the truth is {avg[4]}, the mixture's {avg[5]}, the pool-free estimate {avg[9]}, the located "
            f"clusters' {avg[7]}, so the sd is {avg[11]} times the true one") in flat
    p8 = var[("real: cruxeval", "100", "16", "pass@8")]
    assert f"truth {p8[4]}, located {p8[7]}, final {p8[10]} (sd {p8[11]} times the true one)" in flat
    mj = var[("two clusters", "100", "16", "maj@8")]
    assert f"the mixture itself predicts {mj[5]} against a truth of {mj[4]} (pool-free {mj[9]})" in flat
    split = {(r[0], r[1], r[2], r[3]): r for r in rows("results_located_variance.md") if len(r) == 10}
    s = split[("real: cruxeval", "100", "4", "avg")]
    assert (f"spreads the {s[4]} never-solved questions over {s[6]} components, and the {s[7]} sharp ones among "
            f"them hold at most {s[8]} questions' worth each") in flat
    beta, mean = s[9].split(", mean ")
    assert f"`{beta}` (mean {mean})" in flat and f"where {s[5]} trials of those questions never succeeded" in flat
    abl = {(r[0], r[1]): r for r in rows("results_located_ablation.md") if len(r) == 6}
    metrics = ("avg", "pass@k", "pass^k", "maj@k")
    before = " / ".join(abl[(m, "current")][3] for m in metrics)
    after = " / ".join(abl[(m, "no located")][3] for m in metrics)
    assert f"from {before} (avg / pass@k / pass^k / maj@k) to {after}" in flat
    assert all(abl[(m, "current")][2] == "0" for m in metrics)
    cell = {(r[0], r[1], r[2], r[3]): r for r in rows("results_located_ablation.md") if len(r) == 7}

    def moved(pool, M, N, metric):  # current -> no located, from the per-cell table
        r = cell[(pool, str(M), str(N), metric)]
        return r[4], r[5], r[6]

    a, b, o = moved("real: game24 CoT", 15, 4, "pass@k")
    assert f"Game of 24 at M = 15, 4 trials: pass@3 {b}%, oracle {o}%" in flat
    a, b, _ = moved("real: game24 CoT", 100, 4, "pass^k")
    assert f"pass^3 on the Game of 24 pool at M = 100 from {a}% to {b}%" in flat
    a, b, _ = moved("real: cruxeval", 100, 4, "maj@k")
    assert f"maj@3 on CRUXEval at M = 100 from {a}% to {b}%" in flat
    a, b, _ = moved("two clusters", 15, 4, "pass@k")
    assert f"pass@3 on the two-cluster pool at M = 15, {a}% to {b}%" in flat
    a15, b15, _ = moved("three clusters", 15, 16, "pass@k")
    a30, b30, _ = moved("three clusters", 30, 16, "pass@k")
    assert f"three-cluster pool from {a15}% to {b15}% at M = 15 and from {a30}% to {b30}% at M = 30" in flat
    a, b, _ = moved("two clusters", 15, 4, "pass^k")
    assert f"pass^3 on the two-cluster pool at M = 15, from {a}% to {b}%" in flat
    # the cells quoted as below the floor beyond noise are the ones the summary table lists, per metric
    assert abl[("pass@k", "no located")][5] == ("76.7 (two clusters, M=15, N=4); 73.3 (three clusters, M=15, N=16); "
                                                "86.0 (three clusters, M=30, N=16)")
    assert abl[("pass^k", "no located")][5] == "83.3 (two clusters, M=15, N=4)"


def test_kernel_candidate_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes the kernel candidate: its sd ratios (results_located_variance.md, last table) and its
    coverage over the grid with M <= 100 (results_located_kernel.md)."""
    flat = " ".join(page("honesty.md").split())
    md = (ROOT / "benchmarks" / "results_located_variance.md").read_text(encoding="utf-8")
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in md.splitlines() if line.startswith("| ")]
    ker = {(r[0], r[1], r[2], r[3]): r for r in rows if len(r) == 9 and r[0] != "pool"}
    a = ker[("real: cruxeval", "100", "4", "avg")]
    assert f"its sd over the true one is {a[8]} for CRUXEval avg ({a[7]} now)" in flat
    b = ker[("real: cruxeval", "100", "16", "pass@8")]
    assert f"and {b[8]} for pass@8 ({b[7]})" in flat
    c = ker[("two clusters", "15", "4", "pass@3")]
    d = ker[("three clusters", "15", "16", "pass@8")]
    assert (f"(pass@3 on two clusters at M = 15: {c[8]} against {c[7]}; pass@8 on three clusters at M = 15: {d[8]} "
            f"against {d[7]})") in flat
    assert f"maj@3 on CRUXEval at M = 100 falls to {ker[('real: cruxeval', '100', '4', 'maj@3')][8]}" in flat
    km = (ROOT / "benchmarks" / "results_located_kernel.md").read_text(encoding="utf-8")
    krows = [[c.strip() for c in line.split("|")[1:-1]] for line in km.splitlines() if line.startswith("| ")]
    summary = {(r[0], r[1]): r for r in krows if len(r) == 6 and r[0] != "metric"}
    metrics = ("avg", "pass@k", "pass^k", "maj@k")
    before = " / ".join(summary[(m, "current")][3] for m in metrics)
    after = " / ".join(summary[(m, "kernel")][3] for m in metrics)
    assert f"above the ceiling from {before} to {after}" in flat
    assert all(summary[(m, "current")][2] == "0" for m in metrics)
    assert summary[("pass@k", "kernel")][5] == "81.3 (three clusters, M=15, N=16); 86.7 (three clusters, M=30, N=16)"
    assert summary[("pass^k", "kernel")][5] == "84.7 (two clusters, M=15, N=4)"
    assert summary[("avg", "kernel")][2] == summary[("maj@k", "kernel")][2] == "0"
    cell = {(r[0], r[1], r[2], r[3]): r for r in krows if len(r) == 7 and r[0] != "pool"}
    x = cell[("two clusters", "15", "4", "pass@k")]
    abl = (ROOT / "benchmarks" / "results_located_ablation.md").read_text(encoding="utf-8")
    off = next(line for line in abl.splitlines() if line.startswith("| two clusters | 15 | 4 | pass@k |")).split("|")[6]
    assert f"keeps pass@3 on two clusters at M = 15 at {x[5]}% ({x[4]}% now; {off.strip()}% with no located" in flat
    t15, t30 = cell[("three clusters", "15", "16", "pass@k")], cell[("three clusters", "30", "16", "pass@k")]
    assert (f"three-cluster pool from {t15[4]}% to {t15[5]}% at M = 15 and from {t30[4]}% to {t30[5]}% at M = 30, "
            "and pass^3 on two clusters at M = 15 to 84.7%, below the floor beyond noise") in flat
    g3, gm = cell[("real: game24 CoT", "100", "4", "pass^k")], cell[("real: game24 CoT", "100", "4", "maj@k")]
    assert (f"pass^3 on the Game of 24 pool at M = 100 goes to {g3[5]}% and maj@3 to {gm[5]}% (oracle {g3[6]}% and "
            f"{gm[6]}%)") in flat
    drop = round(float(t15[4]) - float(t15[5]))
    assert f"the three-cluster cell keeps its ratio and loses {drop} points" in flat
    assert "`--variants current,kernel,oracle --ms 15,30,100`" in flat and "--ms 15,30,100`: the pools" in km


def test_confirm_default_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_coverage_confirm_default.md (the default interval's lowest grid cells re-run
    with 400 fresh replicates): the grid's one cell below the floor, the lowest at M >= 30 with its exact interval,
    and the one cell below the floor (with its interval and the oracle); every other cell is within noise."""
    md = (ROOT / "benchmarks" / "results_coverage_confirm_default.md").read_text(encoding="utf-8")
    flat = " ".join(page("honesty.md").split())
    rows = {(r[0], r[1], r[2], r[3], r[4]): r for r in ([c.strip() for c in line.split("|")[1:-1]]
            for line in md.splitlines() if line.startswith("| ") and "---" not in line and "verdict" not in line)}
    assert len(rows) == 16 and all(r[6] == "400" for r in rows.values())
    below = [k for k, r in rows.items() if r[9] == "below the floor"]
    assert below == [("three clusters", "15", "16", "pass^k", "benchmark")]
    r = rows[below[0]]
    assert f"M = 15 in benchmark scope, {r[7]}% ({r[8]} against the 91% floor), where the oracle covers {r[10]}%" in flat
    assert all(r[9] == "within noise of the floor" for k, r in rows.items() if k not in below)
    grid_low = rows["two clusters", "100", "16", "avg", "population"]
    assert grid_low[5] == "88" and f"(M = 100, 16 trials), covers {grid_low[7]}%" in flat
    big = {k: r for k, r in rows.items() if int(k[1]) >= 30}
    low = min(big, key=lambda k: float(big[k][7]))
    assert low == ("real: cruxeval", "100", "64", "maj@k", "benchmark")
    assert f"maj@16 on CRUXEval at M = 100 ({big[low][7]}%, exact interval {big[low][8]})" in flat
    assert "15.7 min" in md and "`python benchmarks/coverage_confirm.py --cells default --reps 400`, 15.7 min" in flat


def test_benchmark_variance_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_benchmark_variance_failures.md (the M = 15 cell binned by failures of the 0.97
    cluster) and results_benchmark_variance.md (the posterior-MSE candidate and the candidate warning over the grid's
    pools), each number recomputed here from the files."""
    flat = " ".join(page("honesty.md").split())
    md = (ROOT / "benchmarks" / "results_benchmark_variance_failures.md").read_text(encoding="utf-8")
    bins = {r[0]: r for r in _table_rows(md, "failures at p")}
    cov = lambda r: r[2].split(" [")[0]  # noqa: E731
    zero, one, every = bins["0"], bins["1"], bins["all"]
    assert f"{cov(zero)}% of the {zero[1]} replicates where none of those trials failed (its sd {zero[3]} times" in flat
    assert f"{cov(one)}% of the {one[1]} with one failure (sd ratio {one[3]})" in flat
    assert f"({cov(every)}% overall)" in flat
    low = min(float(cov(bins[k])) for k in ("2", "3-4", ">= 5"))
    assert f"and {low:.0f}-100% from two failures on" in flat
    assert f"{zero[4]}% of the replicates without a failure" in flat
    rows = _table_rows((ROOT / "benchmarks" / "results_benchmark_variance.md").read_text(encoding="utf-8"), "| pool")
    assert len(rows) == 7 * 3 * 2 * 4
    real = [r for r in rows if r[0].startswith("real")]
    synthetic = [r for r in rows if not r[0].startswith("real")]
    ratios = sorted(float(r[6]) for r in real)
    median = (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2
    assert f"by a median {median:.2f} times (up to {max(ratios):.2f})" in flat
    above = sum(float(r[4]) > 97 for r in real if int(r[1]) >= 30)
    assert f"above 97% in {above} of their {sum(int(r[1]) >= 30 for r in real)} cells at M >= 30" in flat
    syn30 = [r for r in synthetic if int(r[1]) >= 30]
    assert (f"cells above 97% from {sum(float(r[4]) > 97 for r in syn30)} to {sum(float(r[5]) > 97 for r in syn30)} "
            f"of {len(syn30)}") in flat
    cell = next(r for r in rows if r[:4] == ["three clusters", "15", "16", "pass^8"])
    assert f"mends the cell ({cell[5]}%;" in flat

    def flagged(group):
        n = sum(int(r[7]) for r in group)
        return n, 100 * sum(int(r[8]) for r in group) / n

    n, c = flagged(synthetic)
    assert f"flags {n:,} of {150 * len(synthetic):,} synthetic replicates (which cover {c:.1f}%)" in flat
    n, c = flagged(real)
    assert f"but {n:,} of {150 * len(real):,} real-pool ones (which cover {c:.1f}%" in flat


def test_tilted_candidate_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_benchmark_variance_tilted.md (the Wilson-type candidate): the cell, the
    synthetic pools' cells below the floor and above 97% for both intervals, and the real pools' pass^k widths,
    each recomputed here from the file's rows."""
    flat = " ".join(page("honesty.md").split())
    md = (ROOT / "benchmarks" / "results_benchmark_variance_tilted.md").read_text(encoding="utf-8")
    rows = [r for r in _table_rows(md, "| pool") if len(r) == 8]
    assert len(rows) == 7 * 3 * 2 * 4
    minutes = re.search(r"\(([0-9.]+) min on 2 cores", md).group(1)
    assert f"`--part tilted --reps 150`, {minutes} min," in flat
    cell = next(r for r in rows if r[:4] == ["three clusters", "15", "16", "pass^8"])
    assert f"takes the cell from {cell[4]}% to {cell[5]}% (width {cell[7]} times the default's)" in flat
    synthetic = [r for r in rows if not r[0].startswith("real")]
    below = lambda col: sum(float(r[col]) < (93.0 if int(r[1]) >= 30 else 91.0) for r in synthetic)  # noqa: E731
    above = lambda col: sum(float(r[col]) > 97.0 for r in synthetic)  # noqa: E731
    assert f"cells below the floor from {below(4)} to {below(5)} of {len(synthetic)}" in flat
    assert f"their cells above 97% from {above(4)} to {above(5)}," in flat
    real = [r for r in rows if r[0].startswith("real") and r[3].startswith("pass^")]
    ratios = sorted(float(r[7]) for r in real)
    median = (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2
    widest = max(real, key=lambda r: float(r[7]))
    assert f"by a median {median:.2f} times, up to {float(widest[7]):.2f} times" in flat
    assert widest[:3] == ["real: game24 CoT", "15", "16"] and f"covers {widest[4]}% already" in flat


def test_exact_law_candidate_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_benchmark_variance_exact.md (the Wilson-type test with the error's law drawn,
    and two other tilts): the three-cluster cell's pass^8 and maj@8, and the Game of 24 pool's pass^8 widths, each
    read here from the file's rows."""
    flat = " ".join(page("honesty.md").split())
    md = (ROOT / "benchmarks" / "results_benchmark_variance_exact.md").read_text(encoding="utf-8")
    rows = {tuple(r[:4]): r for r in _table_rows(md, "| pool") if len(r) == 12}
    assert len(rows) == 9 * 4
    cell = rows["three clusters", "15", "16", "pass^8"]
    widths = cell[11].split(" / ")  # tilted / exact / shift, normal / shift / restricted
    assert f"three clusters at M = 15: {cell[6]}%, width {widths[1]} times the default's" in flat
    maj = rows["three clusters", "15", "16", "maj@8"]
    assert f"maj@8 {maj[4]}% to {maj[6]}%)" in flat
    g15 = rows["real: game24 CoT", "15", "16", "pass^8"][11].split(" / ")
    g30 = rows["real: game24 CoT", "30", "16", "pass^8"][11].split(" / ")
    assert (f"still {g15[1]} times as wide at M = 15 and {g30[1]} times at M = 30 (shift: {g15[3]} and {g30[3]}; "
            f"restricted: {g15[4]} and {g30[4]})") in flat
    assert rows["real: game24 CoT", "15", "16", "pass^8"][4] == "100.0"


def test_profile_likelihood_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_profile_likelihood.md (the profile likelihood of the benchmark truth, chi-square
    and bootstrap calibrations): each number read here from the file's rows."""
    flat = " ".join(page("honesty.md").split())
    md = (ROOT / "benchmarks" / "results_profile_likelihood.md").read_text(encoding="utf-8")
    rows = {tuple(r[:2]): r for r in _table_rows(md, "| pool") if len(r) == 5}
    assert len(rows) == 6

    def cover(cell: str) -> str:
        return cell.split("%")[0]

    def times(cell: str) -> str:
        return cell.split("(")[1].split("x")[0]

    three = [rows["three clusters", m] for m in ("15", "30", "100")]
    assert f"{' / '.join(cover(r[3]) for r in three)}% on the three-cluster pool" in flat
    assert (f"({cover(three[0][4])}% at M = 15, {times(three[0][4])} times the default's width; "
            f"{cover(three[1][4])}%") in flat
    assert f"M = 100 ({cover(three[2][4])}%, where the default covers {cover(three[2][2])}%" in flat
    g = [times(rows["real: game24 CoT", m][4]) for m in ("15", "30", "100")]
    assert f"{' / '.join(g)} times as wide" in flat


def test_student_candidate_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_benchmark_variance_student.md (a Student-t quantile with Satterthwaite's degrees
    of freedom of the error variance's posterior law, and that law's normal scale mixture): each number read here from
    the file's rows."""
    flat = " ".join(page("honesty.md").split())
    md = (ROOT / "benchmarks" / "results_benchmark_variance_student.md").read_text(encoding="utf-8")
    rows = {tuple(r[:4]): r for r in _table_rows(md, "| pool") if len(r) == 9}
    assert len(rows) == 112

    def below(r, col):
        return float(r[col]) < (91.0 if r[1] == "15" else 93.0)

    three = rows["three clusters", "15", "16", "pass^8"]
    maj = rows["three clusters", "15", "16", "maj@8"]
    assert (f"takes the three-cluster cell from {three[4]}% to {three[5]}% ({three[7].split(' / ')[0]} times the "
            f"default's width; maj@8 there from {maj[4]}% to {maj[5]}%)") in flat
    n_def, n_t = (sum(below(r, c) for r in rows.values()) for c in (4, 5))
    assert f"the cells below the floor from {n_def} to {n_t} of 112" in flat
    g = [rows["real: game24 CoT", m, "16", "pass^8"] for m in ("15", "30")]
    assert f"pass^8 on the Game of 24 pool {g[0][7].split(' / ')[0]} / {g[1][7].split(' / ')[0]} times" in flat
    assert f"median degrees of freedom {g[0][8]}" in flat and g[0][4] == g[1][4] == "100.0"
    widest = max(float(r[7].split(" / ")[1]) for r in rows.values())
    assert f"at most {widest:.2f} times the width; the cell stays at {three[6]}%" in flat


def test_unpooled_candidate_numbers_quoted_are_the_benchmark_results():
    """docs/honesty.md quotes results_benchmark_variance_unpooled.md (each question's error variance under its own
    posterior, alone or as the larger of it and the default's): each number read here from the file's rows."""
    import statistics

    flat = " ".join(page("honesty.md").split())
    md = (ROOT / "benchmarks" / "results_benchmark_variance_unpooled.md").read_text(encoding="utf-8")
    rows = {tuple(r[:4]): r for r in _table_rows(md, "| pool") if len(r) == 10}
    assert len(rows) == 168
    cell = rows["three clusters", "15", "16", "pass^8"]
    width = cell[9].split(" / ")
    assert f"it mends the cell ({cell[4]}% to {cell[8]}%, {width[3]} times" in flat
    assert f"With the uniform prior the cell goes to {cell[7]}%" in flat
    summary = {tuple(r[:2]): r for r in _table_rows(md, "| metric") if len(r) == 8}

    def above(kind, col):
        return sum(int(summary[m, kind][col].split(" / ")[1]) for m in ("avg", "pass@k", "pass^k", "maj@k"))

    def below(kind, col):
        return sum(int(summary[m, kind][col].split(" / ")[0]) for m in ("avg", "pass@k", "pass^k", "maj@k"))

    assert f"from {above('synthetic', 3)} to {above('synthetic', 7)} of 120" in flat and below("synthetic", 7) == 0
    assert f"from {above('real', 3)} to {above('real', 7)} of 48" in flat
    total = summary["all", "all"]
    assert f"{total[6].split(' / ')[1]} cells are above 97%" in flat
    for kind, phrase in (("synthetic", "median width {:.2f} times)"),
                         ("real", "median width {:.2f} times, up to {:.2f})")):
        w = [float(r[9].split(" / ")[3]) for r in rows.values() if r[0].startswith("real") == (kind == "real")]
        assert phrase.format(statistics.median(w), max(w)) in flat


def test_the_compare_page_quotes_its_first_block():
    """docs/comparisons.md quotes the headline of its first block (A = CoT, B = IO, pass@1, rope=0.01)."""
    data = be.load(ROOT / "examples" / "data" / "tot_game24.json")
    res = be.compare(data["gpt-4 CoT"], data["gpt-4 IO"], metric="pass@1", rope=0.01)
    head = res.summary().splitlines()[0]
    d = res.delta
    quoted = (f"A - B = -0.0331 (posterior mean {d.mean:+.4f}, 95% credible interval [{d.lo:+.4f}, {d.hi:+.4f}]")
    assert quoted in head and quoted in page("comparisons.md")
