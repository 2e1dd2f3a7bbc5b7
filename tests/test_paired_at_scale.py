"""compare's paired tests on continuous differences at scale.  Every lattice denominator up to 4,096 was tried on
every difference at once (4,096 x U doubles): compare on 300,000 questions of continuous scores was killed for its
memory (9.8 GB), 30,000 took 3.1 GB.  Above 20,000 distinct differences the bootstrap and the Monte-Carlo sign-flip
now resample 1,024 groups plus the within-group spread as a normal (the resampled statistic's mean and variance
exact).  Measured: 10^6 questions x 2 trials of continuous scores in 5.9 s and 367 MB (docs/scores.md)."""

from __future__ import annotations

import numpy as np
import pytest

import bayeseval.comparison.paired_tests as pt


def test_the_lattice_denominator_without_the_big_array():
    rng = np.random.default_rng(0)
    for L in (1, 3, 8, 100, 4096):
        a = rng.integers(1, 50, 500) / L
        got = pt._lattice_denominator(a)
        assert got is not None and np.allclose(a * got, np.rint(a * got)) and got <= L
        brute = next(x for x in range(1, 4097) if np.allclose(a * x, np.rint(a * x), rtol=0, atol=1e-9 * x * 50))
        assert got == brute
    assert pt._lattice_denominator(rng.random(300_000)) is None  # continuous: no lattice, no 9.8 GB array
    assert pt._lattice_denominator(np.r_[np.arange(1, 200) / 4, np.pi]) is None  # one value off the lattice


def test_grouped_bootstrap_keeps_the_bootstrap_moments_and_intervals(monkeypatch):
    rng = np.random.default_rng(1)
    d = rng.normal(0.02, 0.3, 30_000) ** 3  # skewed, every value distinct
    grouped = pt.paired_bootstrap(d, resamples=20_000, rng=np.random.default_rng(2))
    assert grouped.details["groups"] >= 1024  # the tails' largest rows alone (GROUP_SHARE)
    M = d.size
    se = np.sqrt(np.sum((d - d.mean()) ** 2)) / M  # the bootstrap mean's exact sd
    boot = grouped.details["_draws"]
    assert abs(boot.mean() - d.mean()) < 4 * se / np.sqrt(boot.size)
    assert boot.std() == pytest.approx(se, rel=0.03)
    monkeypatch.setattr(pt, "DP_EXACT_ROWS", 10**9)
    plain = pt.paired_bootstrap(d, resamples=20_000, rng=np.random.default_rng(3))
    assert "groups" not in plain.details
    for key in ("percentile", "bca"):
        for end in ("lo", "hi"):
            assert grouped.details[key][end] == pytest.approx(plain.details[key][end], abs=0.1 * se)


def test_grouped_sign_flip_keeps_the_null_variance_and_p_value(monkeypatch):
    rng = np.random.default_rng(4)
    d = rng.normal(0.004, 0.2, 30_000)
    grouped = pt.sign_flip_test(d, resamples=20_000, rng=np.random.default_rng(5))
    assert grouped.details["groups"] >= 1024 and grouped.method == "monte carlo"
    monkeypatch.setattr(pt, "DP_EXACT_ROWS", 10**9)
    plain = pt.sign_flip_test(d, resamples=20_000, rng=np.random.default_rng(6))
    p = plain.p_value  # about 0.005: Monte-Carlo se sqrt(p (1 - p) / B) for each
    assert abs(grouped.p_value - p) < 5 * np.sqrt(2 * p * (1 - p) / 20_000) + 1e-4
    from scipy import stats

    z = d.sum() / np.sqrt(np.sum(d**2))  # the flipped sum's exact null sd is sqrt(sum d^2)
    assert grouped.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), abs=5 * np.sqrt(p * (1 - p) / 20_000) + 1e-4)


def test_an_outlier_is_a_group_of_its_own(monkeypatch):
    """One difference of 3,000 among 30,000 of sd 1: drawn inside a group's normal it moved the BCa interval to
    [-0.058, 0.375] (per question: [-0.012, 0.595]); four differences of 1 among 25,000 of 0.001 made the grouped
    sign-flip reject a true null 7.75% of the time at 5% (a review's measurements)."""
    rng = np.random.default_rng(0)
    d = rng.normal(0, 1, 30_000)
    d[0] = 3000.0
    grouped = pt.paired_bootstrap(d, resamples=20_000, rng=np.random.default_rng(1))
    assert grouped.details["groups"] > 1024  # the outlier (and the rows it dominated) alone
    monkeypatch.setattr(pt, "DP_EXACT_ROWS", 10**9)
    plain = pt.paired_bootstrap(d, resamples=20_000, rng=np.random.default_rng(2))
    se = grouped.details["se"]
    for end in ("lo", "hi"):
        assert grouped.details["bca"][end] == pytest.approx(plain.details["bca"][end], abs=0.15 * se)
    assert grouped.p_value == pytest.approx(plain.p_value, abs=0.03)
    monkeypatch.setattr(pt, "DP_EXACT_ROWS", 20_000)
    rejected = 0
    for s in range(200):  # the null: random signs on 24,996 tiny and 4 large differences
        r = np.random.default_rng(100 + s)
        x = np.r_[np.abs(r.normal(0, 0.001, 24_996)), 1 + r.normal(0, 1e-3, 4)] * r.choice([-1, 1], 25_000)
        rejected += pt.sign_flip_test(x, resamples=999, rng=r).p_value <= 0.05
    assert rejected / 200 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 200)  # 7.75% before


def test_rounded_scores_at_scale_take_the_grouped_bootstrap():
    """Scores rounded to 4 decimals: about 57,000 distinct differences among 10^6, where 16 U <= M sent the bootstrap
    to a multinomial over every distinct value (179 s)."""
    d = np.round(np.random.default_rng(7).normal(0, 1, 1_000_000), 4)
    res = pt.paired_bootstrap(d, resamples=2_000, rng=np.random.default_rng(8))
    assert res.details["groups"] >= 1024
    assert res.details["se"] == pytest.approx(d.std() / np.sqrt(d.size), rel=0.05)
