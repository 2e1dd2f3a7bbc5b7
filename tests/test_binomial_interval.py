"""Clopper-Pearson's interval on the summed scores (``bayeseval.intervals.binomial_interval``), the far end the
default interval ("auto") takes where few questions (or none) carry a population-scope estimate."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

import bayeseval as be
from bayeseval.intervals import binomial_interval


@pytest.mark.parametrize("M, s, level", [(1, 0, 0.95), (1, 1, 0.95), (15, 3, 0.95), (30, 0, 0.9), (100, 4, 0.95),
                                         (100, 100, 0.95), (1000, 517, 0.99), (7, 6, 0.5)])
def test_zero_one_scores_give_clopper_pearson(M, s, level):
    """With 0/1 scores the interval is scipy's exact binomial interval."""
    lo, hi = binomial_interval(np.array([0.0, 1.0]), np.array([M - s, s]), level, (0.0, 1.0))
    ci = stats.binomtest(s, M).proportion_ci(level, "exact")
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


def test_the_range_maps_back_and_the_order_of_scores_does_not_matter():
    x, f = np.array([2.0, 5.0, 3.5]), np.array([4, 1, 2])
    lo, hi = binomial_interval(x, f, 0.95, (2.0, 5.0))  # scaled: 0, 1, 0.5 -> S = 2 of M = 7
    S, M = 2.0, 7
    assert lo == pytest.approx(2 + 3 * stats.beta.ppf(0.025, S, M - S + 1), rel=1e-12)
    assert hi == pytest.approx(2 + 3 * stats.beta.ppf(0.975, S + 1, M - S), rel=1e-12)
    assert binomial_interval(x[::-1], f[::-1], 0.95, (2.0, 5.0)) == (lo, hi)


def _worst_one_sided_miss(M: int, values: np.ndarray, level: float = 0.95) -> float:
    """The largest probability, over pools on the scores ``values`` (two or three values: every mix on a grid),
    that the interval misses the pool's mean on one side, by enumeration of the multinomial outcomes."""
    a = 0.5 * (1 - level)
    if values.size == 2:
        K = np.arange(M + 1)
        S = values[0] * (M - K) + values[1] * K
        lo, hi = _ends(S, M, a)
        worst = 0.0
        for q in np.linspace(0.001, 0.999, 400):
            pm = stats.binom.pmf(K, M, q)
            mu = values[0] * (1 - q) + values[1] * q
            worst = max(worst, pm[hi < mu].sum(), pm[lo > mu].sum())
        return worst
    K1, K2 = np.meshgrid(np.arange(M + 1), np.arange(M + 1), indexing="ij")
    keep = K1 + K2 <= M
    K1, K2 = K1[keep], K2[keep]
    K0 = M - K1 - K2
    S = values[0] * K0 + values[1] * K1 + values[2] * K2
    lo, hi = _ends(S, M, a)
    log_c = gammaln(M + 1) - gammaln(K0 + 1) - gammaln(K1 + 1) - gammaln(K2 + 1)
    worst = 0.0
    for q1 in np.linspace(0.01, 0.98, 40):
        for q2 in np.linspace(0.005, 0.995 - q1, 30):
            q0 = 1 - q1 - q2
            pm = np.exp(log_c + K0 * np.log(q0) + K1 * np.log(q1) + K2 * np.log(q2))
            mu = values[0] * q0 + values[1] * q1 + values[2] * q2
            worst = max(worst, pm[hi < mu].sum(), pm[lo > mu].sum())
    return worst


def _ends(S: np.ndarray, M: int, a: float):
    out = [binomial_interval(np.array([s / M]), np.array([M]), 1 - 2 * a, (0.0, 1.0)) for s in S]
    return np.array([o[0] for o in out]), np.array([o[1] for o in out])


@pytest.mark.parametrize("M", [10, 30])
@pytest.mark.parametrize("a", [0.2, 0.5, 0.85])
def test_scores_between_the_ends_miss_no_more_than_a_binomial_two_values(M, a):
    """Pools of two scores {0, a}: by enumeration each end misses at most 2.5% (the docstring's check, in part)."""
    assert _worst_one_sided_miss(M, np.array([0.0, a])) <= 0.025 + 1e-9


@pytest.mark.parametrize("a", [0.3, 0.65])
def test_scores_between_the_ends_miss_no_more_than_a_binomial_three_values(a):
    assert _worst_one_sided_miss(12, np.array([0.0, a, 1.0])) <= 0.025 + 1e-9


def test_zero_one_scores_reach_the_level_by_enumeration():
    """The 0/1 case is the extreme one: the worst one-sided miss is close to 2.5%, so the checks above can fail."""
    assert 0.02 < _worst_one_sided_miss(30, np.array([0.0, 1.0])) <= 0.025 + 1e-9


@pytest.mark.parametrize("M", [15, 30, 100, 1000])
@pytest.mark.parametrize("N", [1, 4])
def test_the_default_upper_end_grows_with_the_count_across_the_few_carrying_switch(M, N):
    """s of M questions always solved (the rest never): the default's upper end grows with s.  With the betting
    bound as the far end it fell where the warning stopped (4 of 100: 14.2%; 5 of 100: 10.5%)."""
    his = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in range(0, 9):
            R = np.zeros((M, N), int)
            R[:s] = 1
            e = be.estimate(R, "avg", seed=0)
            his.append(e.hi)
            if s < 5:
                assert e.interval in ("exact+binomial", "exact")
    assert np.all(np.diff(his) > 0), his


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="bounds must be two finite numbers"):
        binomial_interval(np.array([0.5]), np.array([3]), 0.95, (1.0, 0.0))
    with pytest.raises(ValueError, match="within bounds"):
        binomial_interval(np.array([1.5]), np.array([3]), 0.95, (0.0, 1.0))
    with pytest.raises(ValueError, match="freq must hold whole numbers"):
        binomial_interval(np.array([0.5]), np.array([0.5]), 0.95, (0.0, 1.0))
    with pytest.raises(ValueError, match="level"):
        binomial_interval(np.array([0.5]), np.array([3]), 1.5, (0.0, 1.0))
    with pytest.raises(TypeError, match="x must be numbers"):
        binomial_interval(["a"], np.array([3]), 0.95, (0.0, 1.0))
