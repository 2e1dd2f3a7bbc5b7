"""compare's bootstrap and sign-flip test with many distinct per-question differences (pass@8 from 128 trials:
thousands of distinct differences on 10^5 questions took 6-40 s each).  The bootstrap now resamples 1,024 groups
of differences where that at least halves its work, and the Monte-Carlo sign-flip draws each question's sign as a
random bit where the binomials would cost more: new random streams, so the results are checked against the old
algorithms (forced by their switches) within Monte-Carlo error, with tolerances from the number of resamples, and
the bit draws against the binomial law and the exact null.  Cheap cases keep their numbers (recorded from the code
before the change)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bayeseval.comparison.paired_tests as pt
from bayeseval import compare

Z = 5.0  # Monte-Carlo tolerances: five standard errors of the difference of two independent estimates


def _pass_at_8_pair(M: int, seed: int, shift: float = 0.004):
    rng = np.random.default_rng(seed)
    p = rng.beta(1, 1, M)
    A = (rng.random((M, 128)) < np.clip(p + shift, 0, 1)[:, None]).astype(np.int8)
    B = (rng.random((M, 128)) < p[:, None]).astype(np.int8)
    return A, B


def test_cheap_cases_keep_their_numbers():
    """Recorded from the code before this change (same seeds): few distinct differences, or few questions."""
    rng = np.random.default_rng(11)
    r = pt.sign_flip_test(rng.normal(0.05, 1, 300), rng=np.random.default_rng(1))
    assert (r.method, r.p_value, r["mid_p"]) == ("monte carlo", 0.1740825917408259, 0.1740825917408259)
    r = pt.paired_bootstrap(rng.normal(0.01, 1, 5_000), rng=np.random.default_rng(2))  # per-question indices
    assert (r.lo, r.hi, r.p_value, r["se"]) == (-0.004776162445637015, 0.05051359117441649, 0.10008999100089991,
                                                0.014157745428965217)
    d = rng.integers(0, 300, 50_000) / 7.3  # a multinomial over 300 values
    r = pt.paired_bootstrap(d - d.mean() + 0.1, rng=np.random.default_rng(3))
    assert (r.lo, r.hi, r.p_value, r["se"]) == (-0.004155282994093756, 0.20297770194142212, 0.058994100589941006,
                                                0.05286153825484555)
    p = rng.beta(1, 1, 3000)
    A = (rng.random((3000, 16)) < np.clip(p + 0.004, 0, 1)[:, None]).astype(int)
    B = (rng.random((3000, 16)) < p[:, None]).astype(int)
    c = compare(A, B, metric="pass@8", seed=4)
    assert (c.bootstrap.lo, c.bootstrap.hi, c.bootstrap.p_value) == (-0.003520420009127755, 0.011242090782057438,
                                                                     0.2886711328867113)
    assert (c.permutation.method, c.permutation.p_value, c.permutation["mid_p"]) == (
        "monte carlo", 0.28647135286471354, 0.28647135286471354)


@pytest.mark.parametrize("f", [[1], [63], [64], [65], [128], [129], [1, 64, 65, 1000]])
def test_bit_flips_are_binomial(monkeypatch, f):
    """Each group's count of ones is Bin(f, 1/2): decoded from T with weights 4096^u (one base-4096 digit per
    group), in range (the last word's mask), with the binomial's mean and variance and a chi-square fit."""
    monkeypatch.setattr(pt, "FLIP_BITS_FROM", 0)
    f = np.array(f)
    a = 4096.0 ** np.arange(f.size)
    B = 20_000
    T = pt._flips_by_bits(a, f, B, np.random.default_rng(len(f) + int(f[0])))
    assert T is not None
    S = np.rint((T + f @ a) / 2).astype(np.int64)  # sum_u a_u X_u, exact in doubles
    for u, fu in enumerate(f):
        X = (S // 4096**u) % 4096
        assert X.min() >= 0 and X.max() <= fu
        assert abs(X.mean() - fu / 2) < Z * np.sqrt(fu / 4 / B)
        assert X.var() == pytest.approx(fu / 4, rel=Z * np.sqrt(2 / B))
        k = np.arange(fu + 1)
        pmf = stats.binom.pmf(k, fu, 0.5)
        keep = pmf * B >= 5  # cells with an expected count of 5 or more; the tails pooled
        obs = np.bincount(X, minlength=fu + 1)
        lo, hi = k[keep][0], k[keep][-1]
        o = np.r_[obs[: lo + 1].sum(), obs[lo + 1 : hi], obs[hi:].sum()]
        e = B * np.r_[pmf[: lo + 1].sum(), pmf[lo + 1 : hi], pmf[hi:].sum()]
        if o.size > 1:
            assert stats.chisquare(o, e).pvalue > 1e-4


def test_bit_flips_merge_opposite_values(monkeypatch):
    """``v`` and ``-v`` flip as one group of ``|v|``: ``d`` and ``-d`` draw the same sums, so the p-value does not
    depend on which model is A."""
    monkeypatch.setattr(pt, "FLIP_BITS_FROM", 0)
    T = pt._flips_by_bits(np.array([-3.0, 3.0]), np.array([2, 5]), 5000, np.random.default_rng(0))
    X = (T + 21) / 6
    assert np.array_equal(X, np.rint(X)) and X.min() >= 0 and X.max() <= 7
    d = np.random.default_rng(1).normal(0.01, 1, 5000)
    a = pt.sign_flip_test(d, resamples=2000, rng=np.random.default_rng(2))
    b = pt.sign_flip_test(-d, resamples=2000, rng=np.random.default_rng(2))
    assert a.method == "monte carlo" and (a.p_value, a["mid_p"]) == (b.p_value, b["mid_p"])


def test_popcount_without_numpy_2(monkeypatch):
    x = np.random.default_rng(0).integers(0, pt._FULL, size=(7, 33), dtype=np.uint64, endpoint=True)
    x[0, :3] = [0, pt._FULL, 1]
    want = np.array([[bin(int(w)).count("1") for w in row] for row in x])
    assert np.array_equal(pt._popcount(x), want)
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert np.array_equal(pt._popcount(x), want)


def test_bit_flips_keep_the_exact_p_value_and_ties(monkeypatch):
    """Differences on the lattice z / 8 (ties of |T| with the observed value have probability): the bit-drawn
    Monte-Carlo p and mid-p agree with the exact null (convolved on the lattice) within Monte-Carlo error."""
    rng = np.random.default_rng(3)
    d = (rng.integers(-12, 13, 400) + (rng.random(400) < 0.6)) / 8
    exact = pt.sign_flip_test(d, rng=np.random.default_rng(0), exact_limit=10**6)
    assert exact.method == "exact" and 0.02 < exact.p_value < 0.5
    monkeypatch.setattr(pt, "FLIP_BITS_FROM", 0)
    B = 40_000
    mc = pt.sign_flip_test(d, resamples=B, rng=np.random.default_rng(4), exact_limit=1)
    assert mc.method == "monte carlo"
    for key in ("p_value", "mid_p"):
        p = exact[key]
        assert mc[key] == pytest.approx(p, abs=Z * np.sqrt(p * (1 - p) / B) + 1 / B)
    assert exact["mid_p"] < exact.p_value  # the observed |T| has positive probability: the tie counts half


def test_compare_at_scale_agrees_with_the_old_algorithms(monkeypatch):
    """pass@8 from 128 trials on 40,000 questions (about 8,000 distinct differences): the grouped bootstrap and the
    bit-drawn sign-flip against the per-question bootstrap and the binomial sign-flip (the old algorithms, forced)
    within Monte-Carlo error; every other number of the comparison identical."""
    A, B = _pass_at_8_pair(40_000, 5, 0.001)
    R = 4000
    new = compare(A, B, metric="pass@8", seed=6, resamples=R)
    assert new.bootstrap.details["groups"] >= 900 and new.permutation.method == "monte carlo"
    with monkeypatch.context() as m:
        m.setattr(pt, "GROUPED_BOOTSTRAP_WORK", 10**12)
        m.setattr(pt, "FLIP_BITS_FROM", 10**18)
        old = compare(A, B, metric="pass@8", seed=6, resamples=R)
    assert "groups" not in old.bootstrap.details
    same = ["delta", "p_a_better", "verdict", "decision", "miller", "effect_size", "t_test", "wilcoxon", "mcnemar"]
    a, b = new.to_dict(), old.to_dict()
    assert {k: a[k] for k in same} == {k: b[k] for k in same}
    assert new.bootstrap.statistic == old.bootstrap.statistic
    assert new.bootstrap["acceleration"] == old.bootstrap["acceleration"]
    se = old.bootstrap["se"]
    assert new.bootstrap["se"] == pytest.approx(se, rel=Z * np.sqrt(2 / (2 * (R - 1))))
    q = 0.025  # an end's Monte-Carlo sd: sqrt(q (1 - q) / R) / phi(z_q) bootstrap ses (normal shape)
    end_sd = np.sqrt(q * (1 - q) / R) / stats.norm.pdf(stats.norm.ppf(q)) * se
    z0_sd = np.sqrt(0.25 / R) / stats.norm.pdf(0) * se  # the BCa bias correction's own Monte-Carlo error
    for key, tol in (("percentile", end_sd), ("bca", end_sd + z0_sd)):
        for end in ("lo", "hi"):
            assert new.bootstrap[key][end] == pytest.approx(old.bootstrap[key][end], abs=Z * np.sqrt(2) * tol)
    for test in ("bootstrap", "permutation"):
        p = max(old.tests()[test].p_value, 1 / R)
        assert new.tests()[test].p_value == pytest.approx(p, abs=Z * np.sqrt(2 * p * (1 - p) / R) + 2 / R)
    assert 0.01 < old.permutation.p_value < 0.5 and old.verdict.startswith("no clear")  # p-values worth comparing


def test_grouped_bootstrap_switch():
    assert not pt._grouped_bootstrap(2048, 10**7)  # 16 U = 32,768: grouping would not halve the work
    assert pt._grouped_bootstrap(2049, 32_769) and not pt._grouped_bootstrap(2049, 32_768)
    assert pt._grouped_bootstrap(20_001, 20_001)  # continuous scores, whatever M


def test_first_trials_of_integer_matrices_without_a_float_copy():
    from bayeseval.comparison.paired import _first_trials

    X = np.random.default_rng(0).integers(0, 2, (200, 5))
    want = _first_trials(X.astype(np.float64))  # the float path, which finds the first observed trial
    for Y in (X, X.astype(bool), X.astype(np.int8), X.astype(np.uint8)):
        assert np.array_equal(_first_trials(Y), want) and _first_trials(Y).dtype == np.float64
    assert np.array_equal(_first_trials(X[0]), [X[0, 0]])
    assert _first_trials(np.array([[2, 1]])) is None and _first_trials(X[:, :0]) is None
    F = X.astype(np.float64)
    F[:, 0] = np.nan  # a missing first trial: the second one
    assert np.array_equal(_first_trials(F), X[:, 1])
