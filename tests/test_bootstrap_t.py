"""Estimate.bootstrap_t_interval: the studentized bootstrap over questions (population scope)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bayeseval as be
from bayeseval.posterior.bootstrap import bootstrap_t


def _skewed(seed=0, M=30, N=64):
    """pass@16 on a Beta(2,5) pool: scores mostly near 1, a few far below (left-skewed)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 5, M)
    return (rng.random((M, N)) < p[:, None]).astype(np.int8)


def test_bootstrap_t_matches_a_brute_force_resampling_of_questions():
    """The counts-first version (a multinomial over distinct states) against resampling question indices one by
    one, each with 40,000 resamples: the ends agree to Monte-Carlo error (0.006 here)."""
    R = _skewed(1)
    e = be.estimate(R, "pass@16")
    post = e._post
    x = np.repeat(post.state_scores(), post.freq.astype(np.int64))
    M = x.size
    rng = np.random.default_rng(5)
    idx = rng.integers(0, M, size=(40_000, M))
    xb = x[idx]
    se = x.std(ddof=1) / math.sqrt(M)
    t = (xb.mean(axis=1) - x.mean()) / (xb.std(axis=1, ddof=1) / math.sqrt(M))
    lo_t, hi_t = np.quantile(t, [0.025, 0.975])
    ref = (x.mean() - hi_t * se, x.mean() - lo_t * se)
    got = e.bootstrap_t_interval(resamples=40_000, seed=3)
    assert got == pytest.approx(ref, abs=0.006)
    assert got[0] <= e.value <= got[1]


def test_bootstrap_t_reaches_further_on_the_long_tail_side_than_the_t_interval():
    """Left-skewed scores: the lower end sits further from the estimate than the upper end, and below the t
    interval's lower end; the t interval is symmetric."""
    from scipy import stats

    R = _skewed(2)
    e = be.estimate(R, "pass@16")
    lo, hi = e.bootstrap_t_interval(seed=0)
    x = np.repeat(e._post.state_scores(), e._post.freq.astype(np.int64))
    half = stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    assert e.value - lo > hi - e.value
    assert lo < e.value - half


def test_bootstrap_t_is_seeded_and_takes_a_level():
    e = be.estimate(_skewed(3), "pass@16")
    assert e.bootstrap_t_interval(seed=4) == e.bootstrap_t_interval(seed=4)
    lo90, hi90 = e.bootstrap_t_interval(level=0.9, seed=4)
    lo95, hi95 = e.bootstrap_t_interval(level=0.95, seed=4)
    assert lo95 < lo90 < hi90 < hi95


def test_a_resample_of_identical_scores_reaches_the_bound():
    """Three questions of which one differs: some resamples hold only the common score (se* = 0, t* infinite),
    so the interval reaches the end of the range on that side."""
    lo, hi = bootstrap_t(np.array([0.0, 1.0]), np.array([1, 2]), 0.95, 2000, np.random.default_rng(0), (0.0, 1.0))
    assert lo == 0.0 and 0.0 < hi <= 1.0


def test_bootstrap_t_works_for_continuous_scores():
    rng = np.random.default_rng(6)
    S = rng.beta(5, 2, size=(40, 3))
    e = be.estimate(S, score_range=(0, 1))
    lo, hi = e.bootstrap_t_interval(seed=1)
    assert 0.0 <= lo < e.value < hi <= 1.0


@pytest.mark.parametrize("case, match", [
    ("benchmark", "answers the population scope"),
    ("extrapolated", "needs at least k trials"),
    ("alike", "two questions whose scores differ"),
    ("geospectrum", "does not cover geospectrum"),
])
def test_bootstrap_t_refuses_what_it_cannot_answer(case, match):
    R = _skewed(4, M=20, N=4)
    if case == "benchmark":
        e = be.estimate(R, "pass@2", scope="benchmark")
    elif case == "extrapolated":
        e = be.estimate(R, "pass@8")
    elif case == "alike":
        e = be.estimate(np.ones((10, 4), dtype=int), "avg")
    else:
        e = be.estimate(R, "geospectrum@2")
    with pytest.raises(ValueError, match=match):
        e.bootstrap_t_interval()


def test_bootstrap_t_validates_its_arguments():
    e = be.estimate(_skewed(5), "pass@16")
    with pytest.raises(ValueError, match="resamples"):
        e.bootstrap_t_interval(resamples=10)
    with pytest.raises((ValueError, TypeError), match="level"):
        e.bootstrap_t_interval(level=1.5)


def test_interval_bootstrap_t_in_estimate_is_the_bootstrap_t_interval():
    """``estimate(..., interval="bootstrap-t")`` puts the studentized bootstrap's ends in ``lo`` / ``hi`` (``draws``
    resamples, ``seed``), keeps the posterior's mean and sd, and names the method; other methods stay reachable
    through confidence_interval, and the bootstrap-t interval at another level from a default estimate."""
    R = _skewed(7)
    e = be.estimate(R, "pass@16", interval="bootstrap-t", draws=3000, seed=11)
    ref = be.estimate(R, "pass@16", seed=11, draws=3000, interval="exact")
    assert (e.lo, e.hi) == ref.bootstrap_t_interval(resamples=3000, seed=11)
    assert e.interval == "bootstrap-t" and e.draws_n == 3000
    assert (e.mean, e.sd, e.value) == (ref.mean, ref.sd, ref.value)
    assert e.confidence_interval(method="exact") == pytest.approx((ref.lo, ref.hi), abs=1e-12)
    assert ref.confidence_interval(0.9, method="bootstrap-t") == ref.bootstrap_t_interval(level=0.9)  # 4000 resamples
    assert e.confidence_interval(0.9) == ref.bootstrap_t_interval(level=0.9, resamples=3000)  # this estimate's 3000
    assert e.lo < ref.lo  # left-skewed pass@16 scores: the long side reaches further than the posterior's
    ev = be.evaluate({"m": R}, ["pass@16", "avg"], interval="bootstrap-t", seed=11, draws=3000)
    assert (ev["m", "pass@16"].lo, ev["m", "pass@16"].hi) == (e.lo, e.hi)


def test_interval_bootstrap_t_refuses_in_estimate_and_where_only_posterior_intervals_exist():
    R = _skewed(4, M=20, N=4)
    with pytest.raises(ValueError, match="answers the population scope"):
        be.estimate(R, "pass@2", scope="benchmark", interval="bootstrap-t")
    with pytest.raises(ValueError, match="needs at least k trials"):
        be.estimate(R, "pass@8", interval="bootstrap-t")
    with pytest.raises(ValueError, match="interval"):  # compare's intervals are the posterior's
        be.compare(R, 1 - R, metric="avg", interval="bootstrap-t")
    with pytest.raises(ValueError, match="method"):  # and so are a ranking's
        be.compare_all({"a": R, "b": 1 - R}).confidence_interval(method="bootstrap-t")
    with pytest.raises(ValueError, match="answers the population scope"):  # no cell of a table could take it
        be.evaluate({"a": R}, ["avg"], scope="benchmark", interval="bootstrap-t")


def test_evaluate_keeps_the_posterior_interval_where_bootstrap_t_cannot_answer_and_says_so():
    """A table with interval="bootstrap-t": pass@8 from 4 trials (k > n) and a model that solves everything keep the
    equal-tailed posterior interval, marked by their method and a warning; the other cells are bootstrap-t."""
    R = _skewed(4, M=20, N=4)
    with pytest.warns(be.ModelCheckWarning, match="bootstrap-t interval does not apply here"):
        ev = be.evaluate({"a": R, "top": np.ones_like(R)}, ["avg", "pass@8"], interval="bootstrap-t", seed=3)
    got = {(e.model, e.metric): e for e in ev}
    assert got["a", "avg"].interval == "bootstrap-t"
    for key in (("a", "pass@8"), ("top", "avg"), ("top", "pass@8")):
        e = got[key]
        ref = be.estimate(R if key[0] == "a" else np.ones_like(R), key[1], seed=3, interval="exact")
        assert e.interval == "exact" and (e.lo, e.hi) == (ref.lo, ref.hi), key
        assert any("this row shows the equal-tailed posterior interval" in w for w in e.warnings), key


def test_exact_plus_bootstrap_t_is_the_wider_ends_of_the_two():
    """interval="exact+bootstrap-t" (the few-carrying warning's advice): each end is the further of the exact
    interval's and the bootstrap-t interval's, with the estimate's draws as both the draws and the resamples."""
    for seed in (7, 8):
        R = _skewed(seed, M=15)
        e = be.estimate(R, "pass@16", interval="exact+bootstrap-t", draws=3000, seed=2)
        ex = be.estimate(R, "pass@16", draws=3000, seed=2, interval="exact")
        bt = ex.bootstrap_t_interval(resamples=3000, seed=2)
        assert (e.lo, e.hi) == (min(ex.lo, bt[0]), max(ex.hi, bt[1]))
        assert e.interval == "exact+bootstrap-t" and e.lo <= e.value <= e.hi
    assert e.confidence_interval(method="exact") == (ex.lo, ex.hi)
    with pytest.raises(ValueError, match="answers the population scope"):
        be.estimate(R, "pass@16", interval="exact+bootstrap-t", scope="benchmark")
    with pytest.warns(be.ModelCheckWarning, match="bootstrap-t interval does not apply here"):
        ev = be.evaluate({"top": np.ones((10, 4), dtype=int)}, ["avg"], interval="exact+bootstrap-t")
    assert ev["top", "avg"].interval == "exact"


def test_the_few_carrying_warning_says_the_default_widened_and_advises_it_only_where_it_can_be_taken():
    """The default interval ("auto") widens where the warning fires and the warning says so; an estimate asked for
    the posterior interval alone gets the advice (interval='auto'); "exact+betting" asked for directly says what it
    did; one that already has a bootstrap-t interval over questions, geospectrum (which the betting interval does not cover) and compare / compare_all (posterior intervals only)
    get the warning without either."""
    R = np.zeros((15, 4), dtype=int)
    R[0] = 1
    R[1, :2] = 1
    R2 = R.copy()
    R2[2, 0] = 1

    def few(warnings):
        return next(w for w in warnings if "rests on about" in w)

    auto = be.estimate(R, "pass^2")
    assert auto.interval == "exact+binomial"
    assert "so this interval holds Clopper-Pearson's interval on the questions' summed scores" in few(auto.warnings)
    exact = be.estimate(R, "pass^2", interval="exact")
    assert exact.interval == "exact" and "interval='auto'" in few(exact.warnings)
    asked = be.estimate(R, "pass^2", interval="exact+betting")  # asked for directly: its warning says what it did
    assert asked.interval == "exact+betting" and "interval='auto'" not in few(asked.warnings)
    assert "far end (away from the nearer end of the range) is a betting" in few(asked.warnings)
    for e in (be.estimate(R, "pass^2", interval="bootstrap-t"), be.estimate(R, "pass^2", interval="exact+bootstrap-t"),
              be.estimate(R, "geospectrum@2"),
              be.compare(R, R2, metric="pass^2").estimates["A"], be.compare_all({"a": R, "b": R2}, metric="pass^2").scores["a"]):
        text = few(e.warnings)
        assert "interval='auto'" not in text and "betting confidence bound" not in text
        assert "evaluate more questions" in text
