"""plan(): variance components, standard errors, detectable effects and widths against simulation."""

import math

import numpy as np
import pytest
from scipy import stats

import bayeseval as be


def pilot(rng, M, N, a=2.0, b=2.0, shift=0.0):
    p = rng.beta(a, b, M)
    A = (rng.random((M, N)) < np.clip(p + shift, 0, 1)[:, None]).astype(np.int8)
    B = (rng.random((M, N)) < p[:, None]).astype(np.int8)
    return A, B


def test_components_are_unbiased():
    """Beta(2, 2): Var(p) = 0.05 and E[p(1-p)] = 0.2; the estimators average to them (4 MC SEs)."""
    rng = np.random.default_rng(1)
    fits = [be.plan(pilot(rng, 300, 4)[0]) for _ in range(300)]
    b = np.array([f.sigma_b2 for f in fits])
    w = np.array([f.sigma_w2 for f in fits])
    assert abs(b.mean() - 0.05) <= 4 * b.std() / math.sqrt(b.size)
    assert abs(w.mean() - 0.2) <= 4 * w.std() / math.sqrt(w.size)


def test_paired_components_and_se_match_simulated_spread():
    """SE(M, N) from a pilot predicts the spread of the paired mean difference over fresh benchmarks."""
    rng = np.random.default_rng(2)
    pl = be.plan(*pilot(rng, 2000, 8))
    diffs = []
    for _ in range(400):
        A, B = pilot(rng, 150, 3)
        diffs.append(A.mean() - B.mean())
    sd = float(np.std(diffs, ddof=1))
    # sd of a sample sd from 400 draws is about 3.5 %; allow 12 %
    assert pl.se(150, 3) == pytest.approx(sd, rel=0.12)


def test_mde_gives_the_requested_power():
    """Shift B by the MDE on the probability scale: the paired t-test rejects about 80 % of the time."""
    rng = np.random.default_rng(3)
    M, N = 200, 4
    pl = be.plan(*pilot(rng, 3000, 4, a=5, b=5))  # p well inside (0, 1): a shift needs no clipping
    d = pl.mde(M, N)
    rejections = 0
    reps = 400
    for _ in range(reps):
        A, B = pilot(rng, M, N, a=5, b=5, shift=d)
        rejections += stats.ttest_rel(A.mean(axis=1), B.mean(axis=1)).pvalue < 0.05
    assert abs(rejections / reps - 0.8) <= 4 * math.sqrt(0.8 * 0.2 / reps)


def test_questions_needed_inverts_mde_and_trials_enough_is_the_threshold():
    pl = be.plan(*pilot(np.random.default_rng(4), 500, 8), delta=0.03)
    for N in (1, 4, 16):
        m = pl.questions_needed(0.03, N)
        assert pl.mde(m, N) <= 0.03 < pl.mde(m - 1, N)
    single = be.plan(pilot(np.random.default_rng(4), 500, 8)[0])
    n = single.trials_enough(0.1)
    assert single.within_share(n) <= 0.1 < single.within_share(n - 1)
    rows = pl.table(Ms=(100,), Ns=(2,))
    assert rows[0]["questions_needed"] == pl.questions_needed(0.03, 2)


def test_interval_width_matches_compare():
    """The predicted width equals the average width of compare()'s population interval on fresh data."""
    rng = np.random.default_rng(5)
    pl = be.plan(*pilot(rng, 3000, 4))
    widths = []
    for i in range(30):
        A, B = pilot(rng, 300, 4)
        c = be.compare(A, B, seed=i, resamples=200, draws=2000)
        widths.append(c.delta.hi - c.delta.lo)
    assert pl.interval_width(300, 4) == pytest.approx(np.mean(widths), rel=0.08)


def test_plan_bad_input():
    R = np.random.default_rng(6).integers(0, 2, (20, 4))
    with pytest.raises(ValueError, match="at least 2 trials"):
        be.plan(R[:, :1])
    with pytest.raises(ValueError, match="alpha"):
        be.plan(R, alpha=1.5)
    with pytest.raises(ValueError, match="delta"):
        be.plan(R, delta=0)
    with pytest.raises(ValueError, match="0/1"):
        be.plan(R * 2)
    with pytest.raises(ValueError, match="questions"):
        be.plan(R, R[:10])
    d = be.plan(R).to_dict()
    assert {"sigma_b2", "sigma_w2", "table", "trials_enough"} <= set(d)


def test_plan_methods_validate_their_arguments():
    pl = be.plan(pilot(np.random.default_rng(7), 200, 4)[0])
    for bad in (0, -100, 2.5, "a"):
        with pytest.raises((ValueError, TypeError), match="M"):
            pl.mde(bad, 4)
        with pytest.raises((ValueError, TypeError), match="N"):
            pl.mde(100, bad)
    with pytest.raises(ValueError, match="N"):
        pl.questions_needed(0.05, 0)
    with pytest.raises(ValueError, match="N"):
        pl.within_share(0)
    for bad in (0, 1.5, 1e-300 * 0):
        with pytest.raises(ValueError, match="share"):
            pl.trials_enough(bad)
