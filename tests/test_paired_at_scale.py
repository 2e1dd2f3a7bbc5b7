"""compare's paired tests on continuous differences at scale.  Every lattice denominator up to 4,096 was tried on
every difference at once (4,096 x U doubles): compare on 300,000 questions of continuous scores was killed for its
memory (9.8 GB), 30,000 took 3.1 GB.  Above 20,000 distinct differences the bootstrap and the Monte-Carlo sign-flip
now resample 1,024 groups plus the within-group spread as a normal (the resampled statistic's mean and variance
exact).  Measured: 10^6 questions x 2 trials of continuous scores in 9.5 s and 359 MB (docs/scores.md)."""

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
    assert grouped.details["groups"] == 1024
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
    assert grouped.details["groups"] == 1024 and grouped.method == "monte carlo"
    monkeypatch.setattr(pt, "DP_EXACT_ROWS", 10**9)
    plain = pt.sign_flip_test(d, resamples=20_000, rng=np.random.default_rng(6))
    p = plain.p_value  # about 0.005: Monte-Carlo se sqrt(p (1 - p) / B) for each
    assert abs(grouped.p_value - p) < 5 * np.sqrt(2 * p * (1 - p) / 20_000) + 1e-4
    from scipy import stats

    z = d.sum() / np.sqrt(np.sum(d**2))  # the flipped sum's exact null sd is sqrt(sum d^2)
    assert grouped.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), abs=5 * np.sqrt(p * (1 - p) / 20_000) + 1e-4)
