"""Honest outputs (issue "Honest by default", first items): intervals contain the value they are
reported with at the range's bounds, ties in exact arithmetic are ties, each test says what it tests."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import bayeseval as be
from bayeseval.comparison.paired import question_scores
from bayeseval.comparison.paired_tests import snap_ties, wilcoxon_test

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_compare import signed_rank_p  # noqa: E402  (the exact signed-rank law, written independently)
from bayeseval.posterior import build


@pytest.mark.parametrize("metric", ["avg", "pass@4", "pass^4", "maj@3", "mg-pass@4"])
@pytest.mark.parametrize("scope", ["benchmark", "population"])
@pytest.mark.parametrize("interval", ["exact", "hdi", "normal"])
@pytest.mark.parametrize("prior", [None, "uniform"])
@pytest.mark.parametrize("fill", [0, 1])
def test_interval_contains_its_value_at_the_bounds(metric, scope, interval, prior, fill):
    R = np.full((25, 8), fill)
    e = be.estimate(R, metric, scope=scope, interval=interval, prior=prior)
    assert e.lo <= e.value <= e.hi, (e.value, e.lo, e.hi)
    lo, hi = e.confidence_interval(0.9)
    assert lo <= e.value <= hi
    # one-sided at the bound, and the level is the posterior mass inside it
    x = e.draws(20_000)
    if e.value in (0.0, 1.0) and interval != "normal":
        assert (e.hi == 1.0) if e.value == 1.0 else (e.lo == 0.0)
        inside = np.mean((x >= e.lo - 1e-12) & (x <= e.hi + 1e-12))
        # one-sided: 95% inside; a central interval whose end already reached the bound (draws equal to
        # 1.0 in floating point) keeps its 97.5%
        assert 0.93 <= inside <= 0.985  # (an hdi from 4,000 draws, checked on 20,000 others)


@pytest.mark.parametrize("metric", ["avg", "pass@2", "pass^2"])
@pytest.mark.parametrize("scope", ["benchmark", "population"])
@pytest.mark.parametrize("interval", ["exact", "hdi", "normal"])
@pytest.mark.parametrize("level", [0.5, 0.95])
def test_a_difference_interval_contains_its_mean_at_the_bounds(metric, scope, interval, level):
    """A solves every question, B none: the observed difference is 1 (the range's end) and the benchmark-scope
    interval of the difference reached only 0.99992 at level 0.5; one-sided now, holding ``level`` of the
    draws, and mirrored when the models are swapped."""
    A, B = np.ones((5, 3), int), np.zeros((5, 3), int)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = be.compare(A, B, metric=metric, scope=scope, level=level, interval=interval, seed=0).delta
        m = be.compare(B, A, metric=metric, scope=scope, level=level, interval=interval, seed=0).delta
    assert d.lo <= d.mean <= d.hi and m.lo <= m.mean <= m.hi
    if scope == "benchmark":
        assert d.mean == 1.0 and d.hi == 1.0 and d.lo < 1.0
        assert m.mean == -1.0 and m.lo == -1.0 and m.hi > -1.0


@pytest.mark.parametrize("interval", ["exact", "hdi"])
@pytest.mark.parametrize("R", [np.ones((1, 5), int), np.array([[1, 1, 1, 1, 0]] * 3)])
def test_bayes_at_n_intervals_contain_the_posterior_mean_they_report(interval, R):
    """Bayes@N's value is its posterior's mean; a skewed posterior's shortest 50% interval (Beta(6, 1): [0.891, 1])
    passed it (0.857), so its nearer end moves to the value.  A prior that pulls (avg with prior='uniform') keeps
    its interval and warns."""
    for level in (0.3, 0.5, 0.95):
        e = be.estimate(R, "bayes", interval=interval, level=level)
        assert e.lo <= e.value <= e.hi, (level, e.value, e.lo, e.hi)
    e = be.estimate(np.ones((1, 5), int), "bayes", interval="hdi", level=0.5)
    assert e.value == pytest.approx(6 / 7) and e.lo == pytest.approx(6 / 7) and e.hi > 0.99
    with pytest.warns(be.ModelCheckWarning, match="shrinks each question"):
        u = be.estimate(np.array([[1, 1, 1, 1, 0]] * 3), "avg", prior="uniform", interval="hdi", level=0.3)
    assert u.value == pytest.approx(0.8) and u.hi < 0.8


def test_the_audit_case_pass4_of_all_correct():
    """pass@4 = 1.0 used to come with [0.931, 0.9999988]."""
    e = be.estimate(np.ones((30, 16), int), "pass@4", scope="benchmark")
    assert e.value == 1.0 and e.hi == 1.0 and e.lo < 1.0


def test_ties_in_exact_arithmetic_are_ties():
    rng = np.random.default_rng(4)
    A = (rng.random((60, 9)) < 0.5).astype(int)
    B = (rng.random((60, 9)) < 0.45).astype(int)
    pa, pb = build(A, "pass@5", prior="uniform"), build(B, "pass@5", prior="uniform")
    raw = question_scores(pa) - question_scores(pb)
    exact = np.round(raw, 9)  # the per-question scores are rationals with denominator C(9, 5) = 126
    snapped = snap_ties(raw)
    assert np.unique(snapped).size == np.unique(exact).size
    np.testing.assert_allclose(snapped, exact, atol=1e-12)
    c = be.compare(A, B, metric="pass@5", prior="uniform", seed=1, resamples=2000)
    assert c.wilcoxon.p_value == pytest.approx(signed_rank_p(exact), rel=1e-12)


def test_wilcoxon_is_exact_when_few_questions_differ():
    """5 of 30 questions differ, all one way: SciPy chose the normal approximation by the length with the zeros
    in (p = 0.025); the exact signed-rank p is 2 / 2^5 as the sign-flip test and McNemar say.  Above 50 non-zero
    differences, SciPy's normal approximation with the tie correction."""
    A, B = np.zeros((30, 1), int), np.zeros((30, 1), int)
    A[:5] = 1
    A[10:20] = B[10:20] = 1
    c = be.compare(A, B, seed=0)
    assert c.wilcoxon.p_value == pytest.approx(0.0625, rel=1e-12) == c.permutation.p_value
    rng = np.random.default_rng(3)
    for m in (8, 20, 50):  # no ties: SciPy's exact law
        d = rng.permutation(np.arange(1, m + 1)) * rng.choice([-1, 1], m) / 7.0
        assert wilcoxon_test(d).p_value == pytest.approx(float(stats.wilcoxon(d, method="exact").pvalue), rel=1e-10)
    d = rng.integers(-3, 4, 200).astype(float)  # many ties, 170 or so non-zero: normal
    got = wilcoxon_test(d)
    assert got.details["distribution"] == "normal"
    assert got.p_value == pytest.approx(float(stats.wilcoxon(d[d != 0], method="approx").pvalue), rel=1e-12)
    assert abs(got.p_value - signed_rank_p(d)) < 0.01  # and near the exact value there


def test_opposite_differences_tie_in_magnitude_and_the_order_of_the_models_does_not_matter():
    """avg differences of exactly 1, 1, 1, 2, 3, -1 fifths, computed as 4/5 - 3/5 beside 2/5 - 3/5 (they differ by
    1e-16 in floating point): Wilcoxon ranks |d|, so +1/5 and -1/5 tie; the p-value is scipy's on the exact
    differences (10/64 by enumeration) whichever model comes first."""
    def mat(c, n=5):
        return np.array([[1] * x + [0] * (n - x) for x in c])

    A, B = mat([4, 3, 3, 4, 5, 2]), mat([3, 2, 2, 2, 2, 3])
    expected = float(stats.wilcoxon([1, 1, 1, 2, 3, -1]).pvalue)
    assert expected == pytest.approx(10 / 64)
    with np.errstate(all="ignore"), pytest.warns(be.ModelCheckWarning):
        ab, ba = be.compare(A, B, seed=0), be.compare(B, A, seed=0)
    assert ab.wilcoxon.p_value == pytest.approx(expected, rel=1e-12)
    assert ba.wilcoxon.p_value == pytest.approx(expected, rel=1e-12)
    assert ab.permutation.p_value == pytest.approx(ba.permutation.p_value, rel=1e-12)
    d = snap_ties(np.array([0.8 - 0.6, 0.4 - 0.6, 0.1 + 0.2 - 0.3]))
    assert d[0] == -d[1] and d[2] == 0.0 and not np.signbit(d[2])


def test_a_pass_at_k_comparison_says_mcnemar_tests_avg():
    rng = np.random.default_rng(5)
    A = (rng.random((40, 4)) < 0.6).astype(int)
    B = (rng.random((40, 4)) < 0.5).astype(int)
    c = be.compare(A, B, metric="pass@2", seed=1, resamples=500)
    assert "tests avg, not pass@2" in c.mcnemar.method
    assert any("not evidence about pass@2" in n for n in c.notes)
    assert "tests avg, not pass@2" in c.summary()
    assert all("pass@2" in t.tests for k, t in c.tests().items() if k != "mcnemar")
    c_avg = be.compare(A, B, metric="avg", seed=1, resamples=500)
    assert "tests avg, not" not in c_avg.mcnemar.method


def test_few_differing_questions_do_not_name_a_winner():
    """MathArena-shaped: 5 of 15 questions differ, all one way (exact sign-flip p = 0.0625)."""
    A, B = np.zeros((15, 4), int), np.zeros((15, 4), int)
    A[:5] = 1
    c = be.compare(A, B, seed=1)
    assert c.permutation.p_value == pytest.approx(0.0625) and c.permutation["mid_p"] == pytest.approx(0.03125)
    assert c.verdict.startswith("A is better (tentative: 5 of 15 questions differ")
    assert any("borderline (5 of 15 questions differ)" in n for n in c.notes)
    A[3:5] = 0  # three differ: no test at 5% can decide
    c3 = be.compare(A, B, seed=1)
    assert c3.decision is None and c3.verdict.startswith("undecided: only 3 of 15 questions differ")
    assert c3.p_a_better > 0.9  # the posterior leans, and is reported, but does not decide


def test_the_verdict_follows_the_paired_test_and_compare_all_pairs_agree():
    rng = np.random.default_rng(8)
    p = rng.beta(2, 2, 120)
    A = (rng.random((120, 4)) < np.clip(p + 0.12, 0, 1)[:, None]).astype(int)
    B = (rng.random((120, 4)) < p[:, None]).astype(int)
    c = be.compare(A, B, seed=2)
    assert c.decision == "A" and c.permutation["mid_p"] <= 0.05
    rk = be.compare_all({"a": A, "b": B}, seed=2)
    assert rk.pairs[0]["decision"] == "A" and (rk.pairs[0]["a"], rk.pairs[0]["b"]) == ("a", "b")


@pytest.mark.slow
def test_type_one_error_of_the_verdict_stays_near_its_level():
    """A quick cell of benchmarks/typei_compare.py: Beta(0.5, 0.5) pool, M = 30, N = 4, 200 null replicates."""
    rng = np.random.default_rng(11)
    rejected = 0
    for r in range(200):
        p = rng.beta(0.5, 0.5, 30)
        A = (rng.random((30, 4)) < p[:, None]).astype(int)
        B = (rng.random((30, 4)) < p[:, None]).astype(int)
        rejected += be.compare(A, B, seed=r, resamples=1000, draws=1000).decision is not None
    assert rejected / 200 <= 0.10  # nominal 5%; before, the posterior-only verdict was at 7-10% on such pools


def test_docs_metrics_k_beyond_the_trials_has_no_value_and_an_extrapolated_mean():
    """docs/metrics.md: pass@8 on the quick start's 2 x 5 matrix has value None and mean 0.959, with a warning."""
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    with pytest.warns(be.ModelCheckWarning, match="there is no unbiased estimate"):
        e = be.estimate(R, "pass@8")
    assert e.value is None and round(e.mean, 3) == 0.959
    text = " ".join((Path(__file__).parents[1] / "docs" / "metrics.md").read_text().split())
    assert f"`mean` is the fitted pool's extrapolation ({e.mean:.3f} here)" in text
