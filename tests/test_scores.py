"""Continuous scores in a bounded range (issue "Beyond right or wrong", item 1): counting, the mean score's
posterior in both scopes, and the front doors (estimate, evaluate, compare, compare_all, plan), each
checked against an independent computation (numpy / scipy, Monte Carlo of the Dirichlet process,
closed-form bounds)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import bayeseval as be
from bayeseval.posterior import build
from bayeseval.posterior.scores import ScorePosterior
from bayeseval.scores import looks_continuous, to_scores


def _pool(rng, M, N, shift=0.0):
    mu = rng.beta(2, 3, M)
    return np.clip(rng.normal(mu[:, None] + shift, 0.15, (M, N)), 0, 1)


# ----------------------------------------------------------------------------- counting
def test_to_scores_statistics_match_numpy_and_leave_the_input_alone():
    rng = np.random.default_rng(0)
    R = rng.random((40, 5))
    R[3, 1] = np.nan
    before = R.copy()
    s = to_scores(R, missing=np.nan)
    np.testing.assert_array_equal(R, before)  # NaN marker and all: not modified
    assert s.n.tolist() == [5] * 3 + [4] + [5] * 36
    np.testing.assert_allclose(s.means, np.nanmean(R, axis=1), rtol=1e-14)
    np.testing.assert_allclose(s.within_var(), np.nanvar(R, axis=1, ddof=1), rtol=1e-12)
    one = to_scores([[0.3], [0.2, 0.4]], ragged=True)
    assert one.n.tolist() == [1, 2] and math.isnan(one.within_var()[0])
    assert one.within_var()[1] == pytest.approx(0.02)


def test_scores_add_pools_more_trials_exactly():
    rng = np.random.default_rng(1)
    a, b = rng.random((30, 3)), rng.random((30, 5))
    both = to_scores(a) + to_scores(b)
    ref = to_scores(np.hstack([a, b]))
    np.testing.assert_array_equal(both.n, ref.n)
    np.testing.assert_allclose(both.total, ref.total, rtol=1e-13)
    np.testing.assert_allclose(both.sq, ref.sq, rtol=1e-11)


@pytest.mark.parametrize("R, kw, match", [
    ([[0.5, 1.2]], {}, r"outside score_range \[0, 1\] at R\[0, 1\].*1\.2.*score_range=\(lo, hi\)"),
    ([[0.5, -3.0]], {"score_range": (0, 10)}, r"outside score_range \[0, 10\]"),
    ([[0.5, np.nan]], {}, r"NaN at R\[0, 1\].*missing=np.nan"),
    ([[0.5, np.inf]], {"score_range": (0, 10)}, r"outside score_range"),
    ([[0.5]], {"score_range": (1, 0)}, r"lo < hi"),
    ([[0.5]], {"score_range": "0-1"}, r"score_range must be a pair"),
    ([[np.nan, np.nan]], {"missing": np.nan}, r"no observed score"),
])
def test_bad_scores_are_named(R, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        to_scores(R, **kw)


def test_what_counts_as_scores():
    assert looks_continuous(np.array([[0.0, 1.0, 0.5]]))
    assert not looks_continuous(np.array([[0.0, 1.0, 1.0]]))  # 0/1 floats stay outcomes
    assert not looks_continuous([[0, 2, 3]])  # categories stay categories
    assert looks_continuous([[0.1], [1, 0]])  # ragged lists are inspected too
    with pytest.raises(ValueError, match="must be non-negative integers"):
        be.to_counts([[0.5, 1.0]])  # to_counts itself still refuses scores


# ----------------------------------------------------------------------------- the posterior
def test_population_scope_is_the_dirichlet_process_posterior():
    """Closed-form moments = Monte Carlo of theta = (sum G_i x_i + G_0 Y) / (sum G_i + G_0), G_i ~ Exp(1),
    G_0 ~ Gamma(1), Y ~ U(lo, hi), written out independently here."""
    rng = np.random.default_rng(2)
    R = 4 + 6 * rng.random((25, 3))  # scores in [4, 10] of a 0-10 scale
    post = build(R, "avg", score_range=(0, 10))
    assert isinstance(post, ScorePosterior)
    mean, sd = post.moments("population")
    x = R.mean(axis=1)
    g = rng.standard_exponential((400_000, 25))
    g0 = rng.standard_gamma(1.0, 400_000)
    y = 10 * rng.random(400_000)
    theta = (g @ x + g0 * y) / (g.sum(axis=1) + g0)
    assert mean == pytest.approx(theta.mean(), abs=3 * theta.std() / math.sqrt(4e5))
    assert sd == pytest.approx(theta.std(), rel=0.01)
    d = post.draws("population", 200_000, np.random.default_rng(0))
    assert d.mean() == pytest.approx(mean, abs=3 * sd / math.sqrt(2e5)) and d.std() == pytest.approx(sd, rel=0.01)


def test_benchmark_scope_sd_is_the_estimators_error():
    rng = np.random.default_rng(3)
    R = _pool(rng, 60, 4)
    post = build(R, "avg")
    m, sd = post.moments("benchmark")
    assert m == pytest.approx(R.mean(), rel=1e-14)
    assert sd == pytest.approx(math.sqrt(np.sum(R.var(axis=1, ddof=1) / 4)) / 60, rel=1e-12)
    # every question scored the same on every trial: no error left in benchmark scope
    same = np.repeat(rng.random((20, 1)), 3, axis=1)
    assert build(same, "avg").moments("benchmark")[1] == pytest.approx(0.0, abs=1e-12)


def test_one_trial_takes_the_bhatia_davis_bound():
    """n = 1: sum_i Var(y_i) <= M (hi - m)(m - lo); with u = (m - lo)/(hi - lo) ~ Beta(1 + S, 1 + F)."""
    rng = np.random.default_rng(4)
    R = 10 * rng.random((50, 1))
    post = build(R, "avg", score_range=(0, 10))
    S = float(R.sum() / 10)
    a, b = 1 + S, 1 + 50 - S
    bound = 10 * math.sqrt(a * b / ((a + b) * (a + b + 1)) / 50)
    assert post.moments("benchmark")[1] == pytest.approx(bound, rel=1e-12)
    with pytest.warns(be.ModelCheckWarning, match="Bhatia-Davis"):
        e = be.estimate(R, scope="benchmark", score_range=(0, 10))
    assert e.lo <= R.mean() <= e.hi


def test_rescaling_the_range_rescales_everything():
    rng = np.random.default_rng(5)
    R = _pool(rng, 40, 3)
    for scope in ("population", "benchmark"):
        e1 = be.estimate(R, scope=scope, seed=1)
        e10 = be.estimate(10 * R - 5, scope=scope, seed=1, score_range=(-5, 5))
        assert e10.value == pytest.approx(10 * e1.value - 5, rel=1e-12)
        assert e10.sd == pytest.approx(10 * e1.sd, rel=1e-12)
        assert (e10.lo, e10.hi) == pytest.approx((10 * e1.lo - 5, 10 * e1.hi - 5), rel=1e-9)


def test_estimate_reads_scores_and_asks_for_a_threshold_elsewhere():
    rng = np.random.default_rng(6)
    R = _pool(rng, 30, 4)
    e = be.estimate(R)
    assert e.value == pytest.approx(R.mean()) and e.lo < e.value < e.hi and e.prior == "robust"
    with pytest.raises(ValueError, match=r"pass@2 needs 0/1 outcomes.*threshold=t"):
        be.estimate(R, "pass@2")
    t = be.estimate(R, "pass@2", threshold=0.4)
    ref = be.estimate((R > 0.4).astype(int), "pass@2")
    assert (t.value, t.lo, t.hi) == (ref.value, ref.lo, ref.hi)
    with pytest.raises(ValueError, match="avg@n counts a replica correct.*threshold="):
        be.estimate(R, "avg@n")
    assert be.estimate(R, "avg@n", threshold=0.5).value == pytest.approx(np.mean(R > 0.5))
    with pytest.raises(ValueError, match="prior='uniform'.*assumes no shape"):
        be.estimate(R, prior="uniform")
    with pytest.raises(ValueError, match="outside score_range"):
        be.estimate(R * 2, score_range=(0, 1))
    # 0/1 outcomes read as scores on request: the same mean, the score model's intervals
    B = (R > 0.5).astype(int)
    assert be.estimate(B, score_range=(0, 1)).value == pytest.approx(B.mean())


def test_evaluate_takes_score_matrices():
    rng = np.random.default_rng(7)
    ev = be.evaluate({"x": _pool(rng, 30, 4), "y": (rng.random((30, 4)) < 0.5).astype(int)}, ["avg"])
    assert [e.model for e in ev] == ["x", "y"]
    assert type(ev["x", "avg"]._post).__name__ == "ScorePosterior"
    assert type(ev["y", "avg"]._post).__name__ == "RobustPosterior"


# ----------------------------------------------------------------------------- comparisons and planning
def test_compare_scores_against_scipy():
    rng = np.random.default_rng(8)
    mu = rng.beta(2, 2, 80)
    A = np.clip(rng.normal(mu[:, None] + 0.04, 0.1, (80, 4)), 0, 1)
    B = np.clip(rng.normal(mu[:, None], 0.1, (80, 4)), 0, 1)
    c = be.compare(A, B, seed=3)
    d = A.mean(axis=1) - B.mean(axis=1)
    assert c.mcnemar is None and any("McNemar does not apply" in n for n in c.notes)
    assert c.t_test.p_value == pytest.approx(stats.ttest_rel(A.mean(axis=1), B.mean(axis=1)).pvalue, rel=1e-10)
    assert c.wilcoxon.p_value == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-6)
    assert c.verdict.startswith("A is better") and c.p_a_better > 0.99
    cb = be.compare(A, B, scope="benchmark", seed=3)
    assert cb.delta.mean == pytest.approx(d.mean(), rel=1e-12)
    sd = math.sqrt(np.sum(A.var(axis=1, ddof=1) / 4) + np.sum(B.var(axis=1, ddof=1) / 4)) / 80
    assert cb.delta.sd == pytest.approx(sd, rel=1e-12)
    assert "McNemar" not in c.summary().split("note:")[0]
    # one model's scores happen to be all 0/1: both are still read as scores (not a silent binarisation)
    both = be.compare(A, np.round(B), seed=3)
    assert both.mcnemar is None and both.delta.mean == pytest.approx(np.mean(A.mean(1) - np.round(B).mean(1)),
                                                                     abs=0.01)


def test_compare_all_and_plan_on_scores():
    rng = np.random.default_rng(9)
    mu = rng.beta(2, 3, 100)
    models = {f"s{j}": np.clip(rng.normal(mu[:, None] + 0.05 * j, 0.1, (100, 4)), 0, 1) for j in range(3)}
    r = be.compare_all(models)
    assert r.models == ["s2", "s1", "s0"]
    assert all(p["decision"] == "A" for p in r.pairs)
    pl = be.plan(models["s0"])
    x = models["s0"].mean(axis=1)
    w = models["s0"].var(axis=1, ddof=1)
    assert pl.sigma_w2 == pytest.approx(w.mean(), rel=1e-12)
    assert pl.sigma_b2 == pytest.approx(x.var(ddof=1) - (w / 4).mean(), rel=1e-10)
    pl10 = be.plan(10 * models["s0"], score_range=(0, 10), delta=0.5)
    assert pl10.sigma_w2 == pytest.approx(100 * pl.sigma_w2, rel=1e-10)
    assert pl10.questions_needed(0.5, 4) == pl.questions_needed(0.05, 4)
    with pytest.raises(ValueError, match=r"scores in \[0, 10\].*\|delta\| <= 10"):
        be.plan(10 * models["s0"], score_range=(0, 10), delta=20)


def _simulate(pool, rng, M, N):
    """Per-question mean scores mu and an M x N matrix of trial scores in [0, 1]; the pool's E[mu]."""
    if pool == "beta":  # Beta(2, 3) question means, Beta(5 mu, 5 (1 - mu)) trials
        mu = rng.beta(2, 3, M)
        return mu, rng.beta(5 * mu[:, None], 5 * (1 - mu[:, None]), (M, N)), 0.4
    if pool == "atoms":  # point masses at 0 and 1 plus a uniform middle: P(0) = a, P(1) = b per question
        ab = rng.dirichlet([1.0, 1.0, 1.0], M)
        mu = ab[:, 1] + 0.5 * ab[:, 2]
        u = rng.random((M, N))
        y = np.where(u < ab[:, :1], 0.0, np.where(u < ab[:, :2].sum(1, keepdims=True), 1.0, rng.random((M, N))))
        return mu, y, 0.5
    mu = rng.beta(0.3, 0.3, M)  # U-shaped question means, U-shaped trials
    return mu, rng.beta(2 * mu[:, None] + 1e-3, 2 * (1 - mu[:, None]) + 1e-3, (M, N)), 0.5


@pytest.mark.slow
@pytest.mark.parametrize("pool", ["beta", "atoms", "u-shape"])
def test_fixed_seed_coverage_on_score_pools(pool):
    """200 replicates (MC s.e. 1.5 points), M = 50, N = 4, exact 95% intervals: both scopes cover within
    [91, 99] (benchmark: the mean of these questions' mu; population: the pool's E[mu]).  The full grid is
    benchmarks/coverage_scores.py."""
    rng = np.random.default_rng(11)
    hits = {"benchmark": 0, "population": 0}
    for _ in range(200):
        mu, R, pop = _simulate(pool, rng, 50, 4)
        for scope in hits:
            e = be.estimate(R, scope=scope, draws=1000)
            hits[scope] += e.lo <= (mu.mean() if scope == "benchmark" else pop) <= e.hi
    for scope, h in hits.items():
        assert 0.91 <= h / 200 <= 0.99, (pool, scope, h)
