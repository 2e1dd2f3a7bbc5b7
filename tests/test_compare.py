"""Paired comparisons: :mod:`bayeseval.compare` and :mod:`bayeseval.joint`.

Every number is checked against an independent computation: SciPy's
bootstrap, brute-force enumeration of sign flips, hand-built McNemar tables
with ``scipy.stats.binom`` / ``chi2``, SciPy's paired t-test and Wilcoxon test,
statsmodels' multiple-testing corrections, closed-form Beta moments, and
direct Monte Carlo simulations of the models the closed forms describe
(``rng.dirichlet`` weights, ``rng.beta`` per-question posteriors).  Monte
Carlo comparisons use tolerances of ``Z`` standard errors.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import betaln
from statsmodels.stats.multitest import multipletests

from bayeseval import to_counts
from bayeseval.comparison import Comparison, Delta, Ranking, compare, compare_all
from bayeseval.comparison.paired import align, question_scores
from bayeseval.comparison.paired_tests import durkalski, mcnemar_tests, paired_bootstrap, sign_flip_test
from bayeseval.comparison.joint import Side, bayesian_bootstrap, population_draws, population_moments
from bayeseval.posterior import build
from bayeseval.results import estimate

Z = 4.0  # Monte Carlo tolerance, in standard errors
Z975 = float(stats.norm.ppf(0.975))


# ----------------------------------------------------------------------------- data
def paired_data(seed, M, N, shift=0.1, NB=None, a=2.0, b=2.0):
    """Two 0/1 outcome matrices on the same questions; A is ``shift`` better per question."""
    rng = np.random.default_rng(seed)
    p = rng.beta(a, b, M)
    A = (rng.random((M, N)) < np.clip(p + shift, 0, 1)[:, None]).astype(int)
    B = (rng.random((M, NB or N)) < p[:, None]).astype(int)
    return A, B


def mcnemar_by_hand(a, b):
    """2x2 table [[both, a only], [b only, neither]] and the three p-values of the exact / mid-p / chi2 tests."""
    a = np.asarray(a).astype(bool)
    b = np.asarray(b).astype(bool)
    n11, n10 = int(np.sum(a & b)), int(np.sum(a & ~b))
    n01, n00 = int(np.sum(~a & b)), int(np.sum(~a & ~b))
    n, k = n10 + n01, min(n10, n01)
    exact = min(1.0, 2.0 * stats.binom.cdf(k, n, 0.5))
    return {"table": [[n11, n10], [n01, n00]], "b": n10, "c": n01, "n": n, "k": k, "exact": exact}


def unbiased_pass_k(R, k):
    """Per-question unbiased pass@k, 1 - C(n - s, k) / C(n, k), with integer arithmetic."""
    R = np.asarray(R)
    n = R.shape[1]
    return np.array([1.0 - math.comb(n - int(s), k) / math.comb(n, k) for s in R.sum(axis=1)])


# the two code paths of paired_bootstrap: few distinct differences (multinomial) and continuous ones (indices)
_A_DISC, _B_DISC = paired_data(11, 200, 4, shift=0.08)
D_DISCRETE = _A_DISC.mean(axis=1) - _B_DISC.mean(axis=1)  # multiples of 1/4: at most 9 distinct values
D_CONTINUOUS = np.random.default_rng(12).exponential(1.0, 80) - 0.7  # skewed, all distinct
D_PATHS = {"multinomial": D_DISCRETE, "index": D_CONTINUOUS}


def test_the_bootstrap_data_exercise_both_code_paths():
    assert np.unique(D_DISCRETE).size <= D_DISCRETE.size // 4
    assert np.unique(D_CONTINUOUS).size > D_CONTINUOUS.size // 4


# ----------------------------------------------------------------------------- 1. paired bootstrap
@pytest.mark.parametrize("level", [0.95, 0.9])
@pytest.mark.parametrize("path", ["multinomial", "index"])
def test_paired_bootstrap_matches_scipy_bootstrap(path, level):
    d = D_PATHS[path]
    M = d.size
    B = 20_000
    res = paired_bootstrap(d, resamples=B, level=level, rng=np.random.default_rng(5))
    # analytic bootstrap SE of a mean: the plug-in sd over sqrt(M)
    se = d.std(ddof=1) * math.sqrt((M - 1) / M) / math.sqrt(M)
    assert res["estimate"] == pytest.approx(float(np.mean(d)), abs=1e-14)
    assert res["resamples"] == B
    assert abs(res["se"] / se - 1.0) < 0.03
    # MC error of a bootstrap quantile with 20,000 resamples is ~0.03 SE per side: 0.15 SE is ~4 sd of the difference
    for method, key in (("percentile", "percentile"), ("BCa", "bca")):
        ref = stats.bootstrap((d,), np.mean, method=method, n_resamples=B, vectorized=True, confidence_level=level,
                              rng=np.random.default_rng(6)).confidence_interval
        assert abs(res[key]["lo"] - ref.low) < 0.15 * se, (method, res[key], ref)
        assert abs(res[key]["hi"] - ref.high) < 0.15 * se, (method, res[key], ref)
    assert (res["lo"], res["hi"]) == (res["bca"]["lo"], res["bca"]["hi"])
    assert res["method"] == "bca"


@pytest.mark.parametrize("path", ["multinomial", "index"])
def test_bca_acceleration_is_the_jackknife_formula(path):
    d = D_PATHS[path]
    M = d.size
    res = paired_bootstrap(d, resamples=2000, rng=np.random.default_rng(7))
    # Efron & Tibshirani (1993) eq. 14.15, by brute force over the M leave-one-out means
    loo = np.array([np.delete(d, i).mean() for i in range(M)])
    u = loo.mean() - loo
    a = float(np.sum(u**3) / (6.0 * np.sum(u**2) ** 1.5))
    assert res["acceleration"] == pytest.approx(a, rel=1e-9, abs=1e-15)
    assert abs(a) > 1e-3  # the data are skewed enough for the check to mean something


def test_bca_interval_follows_efron_from_the_draws():
    """z0 from the share of draws below the estimate, a from the jackknife, adjusted quantiles (eq. 14.10)."""
    d = D_CONTINUOUS
    M = d.size
    level = 0.9
    res = paired_bootstrap(d, resamples=20_000, level=level, rng=np.random.default_rng(8))
    boot = res["_draws"]
    est = d.mean()
    assert np.count_nonzero(boot == est) == 0  # continuous data: no ties with the estimate
    z0 = stats.norm.ppf(np.mean(boot < est))
    loo = (d.sum() - d) / (M - 1)
    u = loo.mean() - loo
    a = np.sum(u**3) / (6.0 * np.sum(u**2) ** 1.5)
    zl, zh = stats.norm.ppf([(1 - level) / 2, (1 + level) / 2])
    a1 = stats.norm.cdf(z0 + (z0 + zl) / (1 - a * (z0 + zl)))
    a2 = stats.norm.cdf(z0 + (z0 + zh) / (1 - a * (z0 + zh)))
    assert res["bias_correction"] == pytest.approx(z0, abs=1e-12)
    assert res["lo"] == pytest.approx(np.quantile(boot, a1), abs=1e-12)
    assert res["hi"] == pytest.approx(np.quantile(boot, a2), abs=1e-12)
    lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2])
    assert res["percentile"]["lo"] == pytest.approx(lo, abs=1e-12)
    assert res["percentile"]["hi"] == pytest.approx(hi, abs=1e-12)
    # skewed data: BCa moves the interval to the right of the percentile interval
    assert res["hi"] > res["percentile"]["hi"]


def test_bootstrap_p_value_degenerate_cases():
    zero = paired_bootstrap(np.zeros(40), resamples=1000, rng=np.random.default_rng(1))
    assert zero["p_value"] == 1.0
    assert zero["lo"] == zero["hi"] == 0.0
    B = 2000
    shifted = 3.0 + np.random.default_rng(2).normal(0.0, 0.2, 60)  # index path
    assert paired_bootstrap(shifted, resamples=B, rng=np.random.default_rng(3))["p_value"] == pytest.approx(1 / (B + 1))
    lattice = np.where(np.random.default_rng(4).random(40) < 0.5, 0.75, 1.0)  # multinomial path
    res = paired_bootstrap(lattice, resamples=B, rng=np.random.default_rng(5))
    assert res["p_value"] == pytest.approx(1 / (B + 1))
    assert res["lo"] > 0.75 and res["hi"] <= 1.0


@pytest.mark.parametrize("path", ["multinomial", "index"])
def test_bootstrap_p_value_matches_an_independent_bootstrap(path):
    d = D_PATHS[path]
    if path == "index":
        d = d - 0.15  # a moderate p-value
    M = d.size
    B = 20_000
    res = paired_bootstrap(d, resamples=B, rng=np.random.default_rng(9))
    est = d.mean()
    means = d[np.random.default_rng(10).integers(0, M, size=(B, M))].mean(axis=1)
    p = (1 + np.count_nonzero(np.abs(means - est) >= abs(est) - 1e-12)) / (B + 1)
    assert 0.001 < p < 0.5
    assert abs(res["p_value"] - p) < Z * math.sqrt(2 * p * (1 - p) / B)


# ----------------------------------------------------------------------------- 2. sign-flip permutation test
def brute_sign_flip_p(k):
    """Two-sided sign-flip p-value of integer differences ``k`` over all 2^m sign vectors (exact integers)."""
    k = np.asarray(k, dtype=np.int64)
    m = k.size
    signs = 1 - 2 * ((np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1)
    T = signs @ k
    return float(np.mean(np.abs(T) >= abs(int(k.sum()))))


SIGN_CASES = {
    # quarters: 13 nonzero values with repeats, 3 zeros
    "quarters": (np.array([2, 2, -1, 4, 1, 1, 2, -2, 3, 1, 4, -1, 2, 0, 0, 0]), 4),
    # thirds: sums are not exact in floating point, ties need the tolerance
    "thirds": (np.array([1, 1, 1, -1, 2, -2, 1, 3, -1, 1, 2, 1, 0, 0]), 3),
}


@pytest.mark.parametrize("case", list(SIGN_CASES))
def test_sign_flip_exact_equals_enumeration(case):
    k, denom = SIGN_CASES[case]
    d = k / denom
    p = brute_sign_flip_p(k)
    res = sign_flip_test(d, rng=np.random.default_rng(0))
    assert res["method"] == "exact"
    assert res["p_value"] == pytest.approx(p, abs=1e-12)
    assert res["statistic"] == pytest.approx(d.mean(), abs=1e-15)
    assert 0.005 < p < 0.5  # a p-value that ties and tolerance actually decide


@pytest.mark.parametrize("case", list(SIGN_CASES))
def test_sign_flip_monte_carlo_agrees_with_exact(case):
    k, denom = SIGN_CASES[case]
    d = k / denom
    p = brute_sign_flip_p(k)
    B = 20_000
    res = sign_flip_test(d, resamples=B, rng=np.random.default_rng(1), exact_limit=1)
    assert res["method"] == "monte carlo"
    assert res["resamples"] == B
    assert abs(res["p_value"] - p) < Z * math.sqrt(p * (1 - p) / B) + 1 / B


@pytest.mark.parametrize("seed", range(6))
def test_sign_flip_lattice_path_equals_enumeration(seed):
    # averages of N trials: differences on the lattice 1/N; many distinct values make the group-by-group
    # enumeration too large for the limit, so the exact lattice convolution answers
    rng = np.random.default_rng(seed)
    N = int(rng.integers(2, 8))
    k = rng.integers(-N, N + 1, size=18)
    k[0] = N  # at least one nonzero
    d = k / N
    v, f = np.unique(d[d != 0], return_counts=True)
    limit = 2000
    assert np.log(f + 1.0).sum() > math.log(limit)  # the enumeration is not what answers
    res = sign_flip_test(d, rng=np.random.default_rng(0), exact_limit=limit)
    assert res["method"] == "exact" and res["resamples"] == 0
    assert res["p_value"] == pytest.approx(brute_sign_flip_p(k), abs=1e-12)
    signs = 1 - 2 * ((np.arange(2**k.size)[:, None] >> np.arange(k.size)[None, :]) & 1)
    T = np.abs(signs @ k)
    t = abs(int(k.sum()))
    assert res["mid_p"] == pytest.approx(float(np.mean(T > t) + 0.5 * np.mean(T == t)), abs=1e-12)


def test_sign_flip_lattice_agrees_with_monte_carlo_at_benchmark_size():
    rng = np.random.default_rng(5)
    p = rng.beta(1, 1, 200)
    d = (rng.random((200, 16)) < p[:, None]).mean(axis=1) - (rng.random((200, 16)) < p[:, None]).mean(axis=1)
    exact = sign_flip_test(d, rng=np.random.default_rng(0))
    B = 100_000
    mc = sign_flip_test(d, resamples=B, rng=np.random.default_rng(1), exact_limit=1)
    assert exact["method"] == "exact" and mc["method"] == "monte carlo"
    p0 = exact["p_value"]
    assert 0.01 < p0 < 0.99
    assert abs(mc["p_value"] - p0) < Z * math.sqrt(p0 * (1 - p0) / B) + 1 / B
    # differences that are not on a small lattice (thirds of sevenths of ...) keep the Monte Carlo path
    irr = d + rng.normal(0, 1e-3, d.size)
    assert sign_flip_test(irr, rng=np.random.default_rng(0))["method"] == "monte carlo"


def test_sign_flip_all_zero_differences():
    res = sign_flip_test(np.zeros(12), rng=np.random.default_rng(0))
    assert res["p_value"] == 1.0 and res["statistic"] == 0.0


# ----------------------------------------------------------------------------- 3. McNemar, one trial per question
def test_mcnemar_one_trial_per_question():
    rng = np.random.default_rng(21)
    M = 90
    a = (rng.random(M) < 0.65).astype(int)
    b = (rng.random(M) < 0.45).astype(int)
    h = mcnemar_by_hand(a, b)
    assert h["b"] != h["c"]
    c = compare(a[:, None], b[:, None], prior="uniform", seed=1)
    mc = c.mcnemar
    one = mc["variants"]["single"]
    assert one["table"] == h["table"]
    assert (one["a_only"], one["b_only"]) == (h["b"], h["c"])
    assert sum(map(sum, one["table"])) == M
    assert one["exact"]["p_value"] == pytest.approx(h["exact"], rel=1e-10)
    assert one["exact"]["statistic"] == h["k"]
    mid = h["exact"] - stats.binom.pmf(h["k"], h["n"], 0.5)
    assert one["mid_p"]["p_value"] == pytest.approx(mid, rel=1e-10)
    x2 = (abs(h["b"] - h["c"]) - 1) ** 2 / (h["b"] + h["c"])
    assert one["chi2_cc"]["statistic"] == pytest.approx(x2, rel=1e-12)
    assert one["chi2_cc"]["p_value"] == pytest.approx(stats.chi2.sf(x2, 1), rel=1e-10)
    # headline: the exact test, whatever collapse says
    assert mc["p_value"] == pytest.approx(h["exact"], rel=1e-10)
    assert mc["statistic"] == h["k"]
    assert "exact" in mc["method"] and "one trial" in mc["method"]
    assert compare(a[:, None], b[:, None], prior="uniform", collapse="majority").mcnemar["p_value"] == mc["p_value"]
    # with 0/1 differences the sign-flip test is the exact two-sided binomial test on the discordant pairs
    assert c.permutation["method"] == "exact"
    assert c.permutation["p_value"] == pytest.approx(h["exact"], rel=1e-10)


def test_mcnemar_no_discordant_pairs():
    a = np.array([1, 0, 1, 1, 0, 1])
    res = mcnemar_tests(to_counts(a[:, None]), to_counts(a[:, None]))
    one = res["variants"]["single"]
    assert res["p_value"] == 1.0
    assert one["mid_p"]["p_value"] == 1.0 and one["chi2_cc"]["p_value"] == 1.0
    assert one["table"] == [[4, 0], [0, 2]]


def test_mcnemar_mid_p_is_one_when_discordant_counts_tie():
    """mid-p (Fagerland, Lydersen & Laake 2013) = 2 [P(X <= k) - P(X = k) / 2], X ~ Bin(b + c, 1/2), k = min(b, c).

    With b == c the observed split is the centre of a symmetric distribution, so
    the mid-p value is exactly 1 (no evidence of a difference at all).
    """
    a = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    b = np.array([0, 0, 1, 1, 1, 0, 0, 1])
    h = mcnemar_by_hand(a, b)
    assert h["b"] == h["c"] == 3
    mid = min(1.0, 2.0 * (stats.binom.cdf(h["k"], h["n"], 0.5) - 0.5 * stats.binom.pmf(h["k"], h["n"], 0.5)))
    assert mid == pytest.approx(1.0)
    one = mcnemar_tests(to_counts(a[:, None]), to_counts(b[:, None]))["variants"]["single"]
    assert one["exact"]["p_value"] == pytest.approx(1.0)
    assert one["mid_p"]["p_value"] == pytest.approx(mid, abs=1e-12)


# ----------------------------------------------------------------------------- 4. clustered McNemar and collapses
def test_durkalski_matches_explicit_trial_pairing_and_ignores_trial_order():
    A, B = paired_data(31, 60, 5, shift=0.08)
    bk = np.sum((A == 1) & (B == 0), axis=1)  # trial j of A paired with trial j of B
    ck = np.sum((A == 0) & (B == 1), axis=1)
    x2 = float(np.sum(bk - ck)) ** 2 / float(np.sum((bk - ck) ** 2))
    p = stats.chi2.sf(x2, 1)
    assert 1e-6 < p < 0.5
    c = compare(A, B, prior="uniform")
    assert c.mcnemar["method"].startswith("clustered McNemar")
    assert c.mcnemar["statistic"] == pytest.approx(x2, rel=1e-12)
    assert c.mcnemar["p_value"] == pytest.approx(p, rel=1e-10)
    assert c.mcnemar["variants"]["clustered"]["p_value"] == pytest.approx(p, rel=1e-10)
    direct = durkalski(A.mean(axis=1), B.mean(axis=1))
    assert direct["statistic"] == pytest.approx(x2, rel=1e-12)
    # shuffle the trials within each question (independently for A and B): another pairing, same answer
    rng = np.random.default_rng(32)
    As, Bs = rng.permuted(A, axis=1), rng.permuted(B, axis=1)
    assert not np.array_equal(As, A)
    bks = np.sum((As == 1) & (Bs == 0), axis=1)
    cks = np.sum((As == 0) & (Bs == 1), axis=1)
    assert not np.array_equal(bks, bk)  # the discordant counts change ...
    x2s = float(np.sum(bks - cks)) ** 2 / float(np.sum((bks - cks) ** 2))
    assert x2s == pytest.approx(x2, rel=1e-12)  # ... their differences do not
    cs = compare(As, Bs, prior="uniform")
    assert cs.mcnemar["statistic"] == pytest.approx(x2, rel=1e-12)
    assert cs.mcnemar["p_value"] == pytest.approx(p, rel=1e-10)


def test_durkalski_no_discordance():
    x = np.array([0.2, 0.5, 1.0])
    assert durkalski(x, x.copy()) == {"statistic": 0.0, "p_value": 1.0}


def test_collapse_majority_is_strict_majority():
    A, B = paired_data(33, 70, 4, shift=0.1)
    sa, sb = A.sum(axis=1), B.sum(axis=1)
    assert np.any(sa == 2) and np.any(sb == 2)  # ties exist, so strictness matters
    h = mcnemar_by_hand(sa > 2, sb > 2)
    assert mcnemar_by_hand(sa >= 2, sb >= 2)["table"] != h["table"]
    c = compare(A, B, prior="uniform", collapse="majority")
    maj = c.mcnemar["variants"]["majority"]
    assert maj["table"] == h["table"]
    assert c.mcnemar["p_value"] == pytest.approx(h["exact"], rel=1e-10)
    assert c.mcnemar["statistic"] == h["k"]
    assert "majority" in c.mcnemar["method"]


def test_collapse_first_uses_the_first_trial():
    A, B = paired_data(34, 70, 4, shift=0.15)
    h = mcnemar_by_hand(A[:, 0], B[:, 0])
    assert mcnemar_by_hand(A[:, 1], B[:, 1])["table"] != h["table"]
    c = compare(A, B, prior="uniform", collapse="first")
    assert c.mcnemar["variants"]["first"]["table"] == h["table"]
    assert c.mcnemar["p_value"] == pytest.approx(h["exact"], rel=1e-10)
    assert c.mcnemar["statistic"] == h["k"]
    assert "first" in c.mcnemar["method"]
    # the other variants are reported too; the headline follows collapse
    assert set(c.mcnemar["variants"]) == {"clustered", "majority", "first"}
    clustered = compare(A, B, prior="uniform")
    assert clustered.mcnemar["variants"]["first"]["table"] == h["table"]
    # lists of rows keep the trial order as well
    assert compare(A.tolist(), B.tolist(), prior="uniform", collapse="first").mcnemar["p_value"] == pytest.approx(h["exact"])


def test_collapse_first_ignores_values_hidden_under_a_mask():
    """A masked (missing) first trial is not an outcome: what lies under the mask must not change any result."""
    A, B = paired_data(36, 40, 3, shift=0.1)
    mask = np.zeros(A.shape, dtype=bool)
    mask[:12, 0] = True  # the first trial of 12 questions is missing
    hidden_one, hidden_zero = A.copy(), A.copy()
    hidden_one[:12, 0], hidden_zero[:12, 0] = 1, 0
    c1 = compare(np.ma.array(hidden_one, mask=mask), B, prior="uniform", collapse="first")
    c0 = compare(np.ma.array(hidden_zero, mask=mask), B, prior="uniform", collapse="first")
    assert c1.delta.mean == c0.delta.mean and c1.N == c0.N == ("2-3", 3)  # the counts ignore the mask ...
    assert c1.mcnemar["variants"]["clustered"] == c0.mcnemar["variants"]["clustered"]
    # ... and so must the first-trial McNemar (whichever way it treats a missing first trial)
    assert c1.mcnemar["variants"]["first"]["table"] == c0.mcnemar["variants"]["first"]["table"]
    assert c1.mcnemar["p_value"] == c0.mcnemar["p_value"]


def test_collapse_first_with_counts_raises():
    A, B = paired_data(35, 20, 3)
    with pytest.raises(ValueError, match="trial order"):
        compare(to_counts(A), to_counts(B), prior="uniform", collapse="first")
    c = compare(to_counts(A), to_counts(B), prior="uniform")
    assert "first" not in c.mcnemar["variants"]


# ----------------------------------------------------------------------------- 5. compare(): frequentist and Bayesian parts
def signed_rank_p(d) -> float:
    """Exact two-sided p of the signed-rank statistic given the midranks (ties included), zeros dropped: the null
    law of ``sum 2 r_i B_i`` (``B_i`` fair coins) as a product of polynomials ``(1 + x^(2 r_i)) / 2``."""
    nz = np.asarray(d, float)[np.asarray(d) != 0]
    r2 = np.rint(2 * stats.rankdata(np.abs(nz))).astype(int)
    law = np.array([1.0])
    for k in r2:
        step = np.zeros(k + 1)
        step[0] = step[k] = 0.5
        law = np.convolve(law, step)
    t = int(r2[nz > 0].sum())
    total = int(r2.sum())
    far = abs(2 * t - total)  # |T+ - T-| in the same units
    dev = np.abs(2 * np.arange(law.size) - total)
    return float(law[dev >= far].sum())


def test_compare_frequentist_parts_match_scipy():
    A, B = paired_data(41, 60, 4, shift=0.07)
    M = A.shape[0]
    xa, xb = A.mean(axis=1), B.mean(axis=1)
    d = xa - xb
    c = compare(A, B, prior="uniform", seed=2)
    tt = stats.ttest_rel(xa, xb)
    ci = tt.confidence_interval(0.95)
    assert c.t_test["statistic"] == pytest.approx(tt.statistic, rel=1e-10)
    assert c.t_test["p_value"] == pytest.approx(tt.pvalue, rel=1e-9)
    assert c.t_test["df"] == M - 1
    assert (c.t_test["lo"], c.t_test["hi"]) == pytest.approx((ci.low, ci.high), rel=1e-10)
    w = stats.wilcoxon(d)
    assert c.wilcoxon["statistic"] == pytest.approx(w.statistic)
    assert (d != 0).sum() == 37  # exact (SciPy: normal, as the length with zeros is 60)
    assert c.wilcoxon["p_value"] == pytest.approx(signed_rank_p(d), rel=1e-10)
    nz = d[d != 0]
    r = stats.rankdata(np.abs(nz))
    assert c.wilcoxon["statistic"] == pytest.approx(min(r[nz > 0].sum(), r[nz < 0].sum()))
    se = d.std(ddof=1) / math.sqrt(M)
    assert c.miller["delta"] == pytest.approx(d.mean(), abs=1e-15)
    assert c.miller["se_paired"] == pytest.approx(se, rel=1e-12)
    assert c.miller["se_unpaired"] == pytest.approx(math.hypot(xa.std(ddof=1), xb.std(ddof=1)) / math.sqrt(M), rel=1e-12)
    assert c.miller["correlation"] == pytest.approx(stats.pearsonr(xa, xb).statistic, rel=1e-10)
    assert (c.miller["lo"], c.miller["hi"]) == pytest.approx((d.mean() - Z975 * se, d.mean() + Z975 * se), rel=1e-10)
    assert c.effect_size["cohens_dz"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    assert c.bootstrap["estimate"] == pytest.approx(d.mean(), abs=1e-15)
    assert c.permutation["statistic"] == pytest.approx(d.mean(), abs=1e-15)
    assert c.M == M and c.N == (4, 4) and c.metric == "avg"
    # another level moves every interval
    c90 = compare(A, B, prior="uniform", seed=2, level=0.9)
    ci90 = tt.confidence_interval(0.9)
    assert (c90.t_test["lo"], c90.t_test["hi"]) == pytest.approx((ci90.low, ci90.high), rel=1e-10)
    z90 = stats.norm.ppf(0.95)
    assert (c90.miller["lo"], c90.miller["hi"]) == pytest.approx((d.mean() - z90 * se, d.mean() + z90 * se), rel=1e-10)
    assert c90.delta.level == 0.9
    assert c90.delta.hi - c90.delta.lo < c.delta.hi - c.delta.lo
    assert c90.bootstrap["hi"] - c90.bootstrap["lo"] < c.bootstrap["hi"] - c.bootstrap["lo"]


def test_compare_identical_models():
    A, _ = paired_data(47, 30, 3)
    c = compare(A, A.copy(), prior="uniform")
    assert c.t_test is None and c.effect_size is None
    assert any("same difference" in note for note in c.notes)
    assert c.wilcoxon["p_value"] == 1.0 and c.permutation["p_value"] == 1.0 and c.bootstrap["p_value"] == 1.0
    assert c.mcnemar["p_value"] == 1.0 and c.mcnemar["statistic"] == 0.0
    assert c.miller["se_paired"] == 0.0 and c.miller["correlation"] == pytest.approx(1.0)
    # no difference on any question: the posterior is centred at 0 and only the prior pseudo-question
    # (uniform prior: Y = U - U', E[Y^2] = 1/6) spreads it: Var = 2 E[Y^2] / ((M + 1)(M + 2)), studentized
    # (times (M + 1) / (M - 3))
    M = A.shape[0]
    assert c.delta.mean == 0.0
    assert c.delta.sd == pytest.approx(math.sqrt(2 / 6 / ((M + 1) * (M + 2)) * (M + 1) / (M - 3)), rel=1e-12)
    assert c.delta.lo < 0 < c.delta.hi and abs(c.p_a_better - 0.5) < 0.03
    assert c.verdict == "no clear difference"


def test_compare_population_delta_is_the_dirichlet_process_posterior_of_differences():
    """Population scope: shared Dirichlet weights on the M paired differences plus one prior pseudo-question
    with weight Gamma(1) whose difference is drawn from the priors (uniform: U - U')."""
    A, B = paired_data(42, 60, 4, shift=0.05)
    M = A.shape[0]
    d = A.mean(axis=1) - B.mean(axis=1)
    n = 20_000
    c = compare(A, B, prior="uniform", seed=4, draws=n)
    T = M + 1.0
    mean = d.sum() / T
    second = (d.sum() ** 2 + 1 / 6 + np.sum(d**2) + 1 / 6) / (T * (T + 1))
    sd = math.sqrt((second - mean**2) * (M + 1) / (M - 3))  # studentized (bootstrap.studentize)
    assert c.delta.scope == "population"
    assert "Dirichlet-process" in c.delta.basis
    assert c.delta.mean == pytest.approx(mean, rel=1e-12)
    assert c.delta.sd == pytest.approx(sd, rel=1e-12)
    # close to Rubin's Bayesian bootstrap (studentized) when M is not tiny
    assert c.delta.sd == pytest.approx(math.sqrt(np.sum((d - d.mean()) ** 2) / (M * (M - 3))), rel=0.05)
    x = c.draws()
    assert x.shape == (n,)
    assert abs(x.mean() - mean) < Z * sd / math.sqrt(n)
    assert abs(x.std() / sd - 1.0) < Z / math.sqrt(2 * n) * 1.5
    assert c.p_a_better == pytest.approx(np.mean(x > 0) + 0.5 * np.mean(x == 0), abs=1e-15)
    assert 0.6 < c.p_a_better < 0.999
    # exact interval: central quantiles, in agreement with a direct simulation of the same posterior
    assert (c.delta.lo, c.delta.hi) == pytest.approx(tuple(np.quantile(x, [0.025, 0.975])), abs=1e-15)
    rng = np.random.default_rng(43)
    W = rng.dirichlet(np.r_[np.ones(M), 1.0], size=n)
    ref = W[:, :M] @ d + W[:, M] * (rng.random(n) - rng.random(n))
    lo, hi = np.quantile(ref, [0.025, 0.975])
    assert abs(c.delta.lo - lo) < 0.15 * sd and abs(c.delta.hi - hi) < 0.15 * sd
    # normal interval
    cn = compare(A, B, prior="uniform", seed=4, interval="normal")
    assert (cn.delta.lo, cn.delta.hi) == pytest.approx((mean - Z975 * sd, mean + Z975 * sd), rel=1e-9)
    assert cn.delta.interval == "normal"
    # hdi: the shortest interval holding 95% of the draws is no wider than the central one
    ch = compare(A, B, prior="uniform", seed=4, interval="hdi", draws=n)
    assert ch.delta.hi - ch.delta.lo <= (c.delta.hi - c.delta.lo) * 1.001  # HDI vs interpolated quantiles
    assert np.mean((x >= ch.delta.lo) & (x <= ch.delta.hi)) >= 0.95


def test_one_won_question_is_not_certain():
    """49 ties and one question won: the frequentist tests see nothing, and P(A > B) must not be 1."""
    A = np.zeros((50, 1), dtype=int)
    B = np.zeros((50, 1), dtype=int)
    A[0, 0] = 1
    c = compare(A, B, seed=1)
    assert c.permutation["p_value"] == 1.0 and c.mcnemar["p_value"] == 1.0
    assert c.verdict.startswith("undecided: only 1 of 50 questions differ") and c.decision is None
    assert 0.5 < c.p_a_better < 0.95 and c.delta.lo < 0
    assert round(c.p_a_better, 2) == 0.87  # docs/comparisons.md's number (default seed-1 draws)
    one = compare(np.array([[1]]), np.array([[0]]), seed=1)  # one question
    assert one.p_a_better < 0.95 and one.bootstrap["p_value"] is None


def test_compare_benchmark_delta_is_the_difference_of_estimates():
    A, B = paired_data(44, 50, 4, shift=0.06)
    c = compare(A, B, scope="benchmark", seed=3)  # the robust pool (the default)
    ea = estimate(A, "avg", scope="benchmark")
    eb = estimate(B, "avg", scope="benchmark")
    assert c.delta.scope == "benchmark"
    assert c.delta.mean == pytest.approx(ea.mean - eb.mean, rel=1e-10, abs=1e-14)
    assert c.delta.sd == pytest.approx(math.hypot(ea.sd, eb.sd), rel=1e-10)
    assert c.estimates["A"].mean == pytest.approx(ea.mean, rel=1e-12)
    assert c.estimates["B"].prior == "robust"


def test_compare_benchmark_delta_with_uniform_prior_closed_form():
    A, B = paired_data(45, 50, 4, shift=0.06)
    M, N = A.shape

    def beta_moments(R):
        s = R.sum(axis=1)
        a, b = 1.0 + s, 1.0 + N - s
        return np.mean(a / (a + b)), np.sum(a * b / ((a + b) ** 2 * (a + b + 1))) / M**2

    ma, va = beta_moments(A)
    mb, vb = beta_moments(B)
    n = 20_000
    c = compare(A, B, scope="benchmark", prior="uniform", seed=5, draws=n)
    sd = math.sqrt(va + vb)
    assert c.delta.mean == pytest.approx(ma - mb, rel=1e-12)
    assert c.delta.sd == pytest.approx(sd, rel=1e-10)
    x = c.draws()
    assert abs(x.mean() - (ma - mb)) < Z * sd / math.sqrt(n)
    assert abs(x.std() / sd - 1.0) < 0.03


def test_compare_pass_at_3_uses_unbiased_per_question_scores():
    A, B = paired_data(46, 50, 5, shift=0.05, a=1.5, b=4.0)
    M = A.shape[0]
    xa, xb = unbiased_pass_k(A, 3), unbiased_pass_k(B, 3)
    d = xa - xb
    assert 0.1 < xa.mean() < 0.95
    np.testing.assert_allclose(question_scores(build(A, "pass@3", prior="uniform")), xa, rtol=1e-12, atol=1e-15)
    c = compare(A, B, metric="pass@3", prior="uniform", seed=6)
    assert c.metric == "pass@3"
    assert c.estimates["A"].value == pytest.approx(xa.mean(), rel=1e-12)
    assert c.miller["delta"] == pytest.approx(d.mean(), abs=1e-14)
    tt = stats.ttest_rel(xa, xb)
    assert c.t_test["statistic"] == pytest.approx(tt.statistic, rel=1e-9)
    assert c.t_test["p_value"] == pytest.approx(tt.pvalue, rel=1e-8)
    assert c.delta.mean == pytest.approx(d.sum() / (d.size + 1), abs=1e-14)  # DP posterior: one pseudo-question
    # DP variance; the pseudo-question's scores are g(q), q ~ U(0, 1): E[g] = 3/4, E[g^2] = 1 - 2/4 + 1/7
    var_g = (1 - 2 / 4 + 1 / 7) - (3 / 4) ** 2
    T = M + 1
    second = (d.sum() ** 2 + np.sum(d**2) + 2 * 2 * var_g) / (T * (T + 1))
    assert c.delta.sd == pytest.approx(math.sqrt((second - (d.sum() / T) ** 2) * (M + 1) / (M - 3)), rel=1e-10)
    # benchmark scope: E[1 - (1 - p)^3] = 1 - B(a, b + 3) / B(a, b) for p ~ Beta(a, b)
    N = A.shape[1]

    def pass3_moments(R):
        s = R.sum(axis=1)
        a, b = 1.0 + s, 1.0 + N - s
        e3 = np.exp(betaln(a, b + 3) - betaln(a, b))
        e6 = np.exp(betaln(a, b + 6) - betaln(a, b))
        return np.mean(1 - e3), np.sum(e6 - e3**2) / M**2

    ma, va = pass3_moments(A)
    mb, vb = pass3_moments(B)
    cb = compare(A, B, metric="pass@3", prior="uniform", scope="benchmark", seed=6)
    assert cb.delta.mean == pytest.approx(ma - mb, rel=1e-10)
    assert cb.delta.sd == pytest.approx(math.sqrt(va + vb), rel=1e-9)


# ----------------------------------------------------------------------------- 6. ROPE and verdicts
def _expected_verdict(level, p_better, rope):
    if rope is not None:
        if rope["above"] >= level:
            return "A is better (outside the ROPE)"
        if rope["below"] >= level:
            return "B is better (outside the ROPE)"
        if rope["inside"] >= level:
            return "practically equivalent (inside the ROPE)"
        return "undecided"
    if p_better >= (1 + level) / 2:
        return "A is better"
    if p_better <= (1 - level) / 2:
        return "B is better"
    return "no clear difference"


def _check_rope(c, lo, hi):
    r = c.rope
    x = c.draws()
    assert (r["lo"], r["hi"]) == (lo, hi)
    assert r["below"] + r["inside"] + r["above"] == pytest.approx(1.0, abs=1e-12)
    assert r["below"] == pytest.approx(np.mean(x < lo), abs=1e-15)
    assert r["inside"] == pytest.approx(np.mean((x >= lo) & (x <= hi)), abs=1e-15)
    assert r["above"] == pytest.approx(np.mean(x > hi), abs=1e-15)
    expected = _expected_verdict(c.delta.level, c.p_a_better, r)
    if expected == "undecided":  # with the reason: no part of the split holds the level
        expected = (f"undecided: no part of the ROPE split holds {c.delta.level:.0%} of the posterior (below "
                    f"{lo:+g}: {r['below']:.3f}, inside: {r['inside']:.3f}, above {hi:+g}: {r['above']:.3f})")
    assert c.verdict == expected


def test_rope_verdicts():
    rng = np.random.default_rng(51)
    M = 80
    A = (rng.random((M, 4)) < 0.85).astype(int)
    B = (rng.random((M, 4)) < 0.35).astype(int)
    c = compare(A, B, prior="uniform", rope=0.05)
    _check_rope(c, -0.05, 0.05)
    assert c.verdict == "A is better (outside the ROPE)" and c.rope["above"] == 1.0
    c = compare(B, A, prior="uniform", rope=0.05)
    _check_rope(c, -0.05, 0.05)
    assert c.verdict == "B is better (outside the ROPE)"
    c = compare(A, A.copy(), prior="uniform", rope=0.02)
    _check_rope(c, -0.02, 0.02)
    assert c.rope["inside"] > 0.95 and c.verdict == "practically equivalent (inside the ROPE)"
    # a small difference, a wide ROPE: equivalent; a ROPE the size of the difference: undecided
    A2, B2 = paired_data(52, 100, 4, shift=0.02)
    c = compare(A2, B2, prior="uniform", rope=0.2)
    _check_rope(c, -0.2, 0.2)
    assert c.verdict == "practically equivalent (inside the ROPE)"
    A3, B3 = paired_data(60, 40, 2, shift=0.04)
    c = compare(A3, B3, prior="uniform", rope=0.05)
    _check_rope(c, -0.05, 0.05)
    assert max(c.rope["below"], c.rope["inside"], c.rope["above"]) < 0.95
    assert c.verdict.startswith("undecided: no part of the ROPE split holds 95% of the posterior (below -0.05: ")
    # an asymmetric ROPE given as a pair
    c = compare(A3, B3, prior="uniform", rope=(-0.02, 0.1), level=0.9)
    _check_rope(c, -0.02, 0.1)


def test_verdicts_without_rope():
    rng = np.random.default_rng(53)
    M = 80
    A = (rng.random((M, 4)) < 0.85).astype(int)
    B = (rng.random((M, 4)) < 0.35).astype(int)
    assert compare(A, B, prior="uniform").verdict == "A is better"
    assert compare(B, A, prior="uniform").verdict == "B is better"
    same = compare(A, A.copy(), prior="uniform")
    assert same.verdict == "no clear difference"
    assert abs(same.p_a_better - 0.5) < 0.03 and same.delta.mean == 0.0 and 0 < same.delta.sd < 0.01
    assert same.rope is None
    A2, B2 = paired_data(54, 40, 2, shift=0.03)
    c = compare(A2, B2, prior="uniform", names=("big", "small"))
    assert c.verdict == _expected_verdict(0.95, c.p_a_better, None)
    assert c.verdict == "no clear difference" and 0.025 < c.p_a_better < 0.975
    assert compare(A, B, prior="uniform", names=("big", "small")).verdict == "big is better"
    # P(A > B) between 0.95 and 0.975 is not enough at level 0.95 (two-sided: 0.975 is needed) ...
    A3, B3 = paired_data(201, 40, 2, shift=0.06)
    c = compare(A3, B3, prior="uniform")
    assert 0.95 < c.p_a_better < 0.975 and c.verdict == "no clear difference"
    r = compare(B3, A3, prior="uniform")
    assert 0.025 < r.p_a_better < 0.05 and r.verdict == "no clear difference"
    # ... but is at level 0.9
    # (decided by the paired sign-flip mid-p; the exact p is above 0.1, so the verdict says it is tentative)
    assert compare(A3, B3, prior="uniform", level=0.9).verdict.startswith("A is better (tentative")
    assert compare(B3, A3, prior="uniform", level=0.9).verdict.startswith("B is better (tentative")


# ----------------------------------------------------------------------------- 7. question matching
def test_dataframes_in_another_order_match_aligned_numpy():
    A, B = paired_data(71, 40, 3, shift=0.08)
    M = A.shape[0]
    ids = [f"q{i}" for i in range(M)]
    perm = np.random.default_rng(72).permutation(M)
    Adf = pd.DataFrame(A, index=ids)
    Bdf = pd.DataFrame(B[perm], index=[ids[i] for i in perm])
    for kw in (dict(prior="uniform", collapse="first"), dict(scope="benchmark")):
        c_df = compare(Adf, Bdf, seed=9, **kw)
        c_np = compare(A, B, seed=9, **kw)
        assert c_df.to_dict() == c_np.to_dict()
        np.testing.assert_array_equal(c_df.draws(), c_np.draws())
    # and the first-trial McNemar of the DataFrames is the hand-built one in A's order
    h = mcnemar_by_hand(A[:, 0], B[:, 0])
    assert compare(Adf, Bdf, prior="uniform").mcnemar["variants"]["first"]["table"] == h["table"]
    # align itself
    cb, order = align(to_counts(Adf), to_counts(Bdf))
    assert list(cb.ids) == ids
    np.testing.assert_array_equal(cb.successes(), B.sum(axis=1))
    np.testing.assert_array_equal(np.asarray(Bdf.index)[order], ids)
    same, none = align(to_counts(Adf), to_counts(Adf))
    assert none is None


def test_mismatched_ids_are_listed():
    A, B = paired_data(73, 12, 2)
    ids = [f"q{i}" for i in range(12)]
    Adf = pd.DataFrame(A, index=ids)
    Bdf = pd.DataFrame(B, index=ids[:-2] + ["x1", "x2"])
    with pytest.raises(ValueError) as err:
        compare(Adf, Bdf, prior="uniform", names=("gpt", "llama"))
    msg = str(err.value)
    assert "missing in llama: q10, q11" in msg
    assert "missing in gpt: x1, x2" in msg
    # a superset on one side: nothing missing on the other
    Bbig = pd.concat([pd.DataFrame(B, index=ids), pd.DataFrame([[1, 0]], index=["extra"])])
    with pytest.raises(ValueError, match=r"missing in B: none; missing in A: extra"):
        compare(Adf, Bbig, prior="uniform")
    # many missing: the list is cut at 10 with the total
    Bother = pd.DataFrame(B, index=[f"z{i}" for i in range(12)])
    with pytest.raises(ValueError, match=r"\(12 in all\)"):
        compare(Adf, Bother, prior="uniform")


def test_different_M_without_ids_raises():
    A, B = paired_data(74, 20, 3)
    with pytest.raises(ValueError, match="A has 20 questions and B has 19"):
        compare(A, B[:-1], prior="uniform")


def test_different_N_per_model():
    A, B = paired_data(75, 60, 3, NB=5, shift=0.1)
    xa, xb = A.mean(axis=1), B.mean(axis=1)
    d = xa - xb
    c = compare(A, B, prior="uniform", collapse="majority")
    assert c.N == (3, 5)
    tt = stats.ttest_rel(xa, xb)
    assert c.t_test["statistic"] == pytest.approx(tt.statistic, rel=1e-10)
    assert c.delta.mean == pytest.approx(d.sum() / (d.size + 1), abs=1e-15)  # DP posterior: one pseudo-question
    # the clustered McNemar on per-question proportions
    x2 = d.sum() ** 2 / np.sum(d**2)
    assert c.mcnemar["variants"]["clustered"]["statistic"] == pytest.approx(x2, rel=1e-12)
    h = mcnemar_by_hand(A.sum(axis=1) > 1.5, B.sum(axis=1) > 2.5)
    assert c.mcnemar["variants"]["majority"]["table"] == h["table"]
    assert c.mcnemar["p_value"] == pytest.approx(h["exact"], rel=1e-10)


# ----------------------------------------------------------------------------- 8. k > n: the population fallback
def _ragged_pair(seed, M, lens_a, lens_b, ab=(2.0, 3.0)):
    rng = np.random.default_rng(seed)
    p = rng.beta(*ab, M)
    la = np.resize(lens_a, M)
    lb = np.resize(lens_b, M)
    rows_a = [list((rng.random(int(n)) < min(1.0, q + 0.1)).astype(int)) for n, q in zip(la, p)]
    rows_b = [list((rng.random(int(n)) < q).astype(int)) for n, q in zip(lb, p)]
    return rows_a, rows_b


def _posterior_params(rows, alpha0=1.0, beta0=1.0):
    s = np.array([sum(r) for r in rows], dtype=float)
    n = np.array([len(r) for r in rows], dtype=float)
    return alpha0 + s, beta0 + n - s


def _pass3_moments(a, b):
    """Per question E and Var of g(p) = 1 - (1 - p)^3 under Beta(a, b)."""
    e3 = np.exp(betaln(a, b + 3) - betaln(a, b))
    e6 = np.exp(betaln(a, b + 6) - betaln(a, b))
    return 1 - e3, e6 - e3**2


def _analytic_population(rows_a, rows_b, lam):
    """Closed form of sum_i W_i (lam0 g(p_Ai) + lam1 g(p_Bi)), W ~ Dirichlet(1..1), independent Beta posteriors."""
    ma, va = _pass3_moments(*_posterior_params(rows_a))
    mb, vb = _pass3_moments(*_posterior_params(rows_b))
    M = ma.size
    x = lam[0] * ma + lam[1] * mb
    v = lam[0] ** 2 * va + lam[1] ** 2 * vb
    return x.mean(), math.sqrt((2 * v.sum() + np.sum((x - x.mean()) ** 2)) / (M * (M + 1)))


def test_k_greater_than_n_uses_the_population_posterior():
    # U-shaped difficulties and some long rows: the questions differ, so shared weights correlate A and B
    rows_a, rows_b = _ragged_pair(81, 24, [2, 8, 10, 12], [1, 9, 12, 2, 10], ab=(0.5, 0.5))
    M = len(rows_a)
    ca, cb = to_counts(rows_a, ragged=True), to_counts(rows_b, ragged=True)
    n = 20_000
    c = compare(ca, cb, metric="pass@3", prior="uniform", draws=n, seed=5)
    for part in ("bootstrap", "permutation", "t_test", "wilcoxon", "miller", "effect_size"):
        assert getattr(c, part) is None, part
    assert any("k > n" in note for note in c.notes)
    assert c.estimates["A"].value is None
    assert c.N == ("2-12", "1-12")
    assert c.mcnemar["method"].startswith("clustered")
    assert "independent per model" in c.delta.basis
    # brute-force Monte Carlo of the model: shared Dirichlet(1..1) weights, independent Beta(1 + s, 1 + n - s) per question
    rng = np.random.default_rng(82)
    n_mc = 100_000
    W = rng.dirichlet(np.ones(M), size=n_mc)
    aa, ba = _posterior_params(rows_a)
    ab, bb = _posterior_params(rows_b)
    ga = 1 - (1 - rng.beta(aa, ba, size=(n_mc, M))) ** 3
    gb = 1 - (1 - rng.beta(ab, bb, size=(n_mc, M))) ** 3
    ta, tb = np.einsum("nm,nm->n", W, ga), np.einsum("nm,nm->n", W, gb)
    sides = [Side(build(ca, "pass@3", prior="uniform"), "A"), Side(build(cb, "pass@3", prior="uniform"), "B")]
    for lam in ((1.0, -1.0), (0.5, 2.0)):
        mc = lam[0] * ta + lam[1] * tb
        mean, sd = population_moments(sides, lam)
        assert abs(mean - mc.mean()) < Z * mc.std() / math.sqrt(n_mc)
        assert abs(sd / mc.std() - 1) < 0.015
        am, asd = _analytic_population(rows_a, rows_b, lam)
        assert (mean, sd) == pytest.approx((am, asd), rel=1e-9)
    mc = ta - tb
    assert c.delta.mean == pytest.approx(mc.mean(), abs=Z * mc.std() / math.sqrt(n_mc))
    assert c.delta.sd == pytest.approx(mc.std(), rel=0.015)
    # the draws behind the interval and P(A > B)
    x = c.draws()
    assert abs(x.mean() - mc.mean()) < Z * mc.std() * math.sqrt(1 / n + 1 / n_mc)
    assert abs(x.std() / mc.std() - 1) < 0.03
    assert abs(c.p_a_better - np.mean(mc > 0)) < Z * math.sqrt(0.25 / n + 0.25 / n_mc)
    lo, hi = np.quantile(mc, [0.025, 0.975])
    assert abs(c.delta.lo - lo) < 0.1 * mc.std() and abs(c.delta.hi - hi) < 0.1 * mc.std()
    # joint draws: shared weights make the two models' scores correlated, as in the brute force
    J = population_draws(sides, n, np.random.default_rng(83))
    assert J.shape == (n, 2)
    r_mc = np.corrcoef(ta, tb)[0, 1]
    assert r_mc > 0.3
    assert abs(np.corrcoef(J[:, 0], J[:, 1])[0, 1] - r_mc) < 0.03
    assert abs(J[:, 0].mean() - ta.mean()) < Z * ta.std() * math.sqrt(1 / n + 1 / n_mc)


def test_k_greater_than_n_with_the_hierarchical_prior():
    """The hierarchical prior: per model, hyperparameters from the grid posterior, then p_i | h ~ Beta(a_h + s_i, b_h + n_i - s_i)."""
    rows_a, rows_b = _ragged_pair(85, 24, [2, 8, 10, 12], [1, 9, 12, 2, 10], ab=(0.5, 0.5))
    M = len(rows_a)
    ca, cb = to_counts(rows_a, ragged=True), to_counts(rows_b, ragged=True)
    n = 20_000
    c = compare(ca, cb, metric="pass@3", draws=n, seed=6, prior="hierarchical")
    assert c.bootstrap is None and c.estimates["A"].prior == "hierarchical"
    posts = [build(ca, "pass@3", prior="hierarchical"), build(cb, "pass@3", prior="hierarchical")]
    rng = np.random.default_rng(86)
    n_mc = 50_000
    W = rng.dirichlet(np.ones(M), size=n_mc)
    theta = []
    for post, rows in zip(posts, (rows_a, rows_b)):
        h = post.hier
        g = rng.choice(h.w.size, size=n_mc, p=h.w)
        s = np.array([sum(r) for r in rows], dtype=float)
        nn = np.array([len(r) for r in rows], dtype=float)
        p = rng.beta(h.a[g][:, None] + s, h.b[g][:, None] + nn - s)
        theta.append(np.einsum("nm,nm->n", W, 1 - (1 - p) ** 3))
    mc = theta[0] - theta[1]
    mean, sd = population_moments([Side(p_, k) for p_, k in zip(posts, "AB")], (1.0, -1.0))
    assert abs(mean - mc.mean()) < Z * mc.std() / math.sqrt(n_mc)
    assert abs(sd / mc.std() - 1) < 0.02
    assert (c.delta.mean, c.delta.sd) == pytest.approx((mean, sd), rel=1e-12)
    x = c.draws()  # hyperparameters jittered within their grid cells: a slightly smoother model
    assert abs(x.mean() - mc.mean()) < Z * mc.std() * math.sqrt(1 / n + 1 / n_mc)
    assert abs(x.std() / mc.std() - 1) < 0.04


def test_population_draws_with_large_groups_keep_the_moments():
    """More than EXACT_GROUP questions sharing one pair of count states: the normal-limit path of the draws."""
    rows_a = [[1, 0]] * 260 + [[1, 1]] * 30 + [[0]] * 20 + [[1, 1, 0]] * 10
    rows_b = [[0, 0]] * 260 + [[1, 0]] * 30 + [[1]] * 20 + [[0, 0, 1]] * 10
    ca, cb = to_counts(rows_a, ragged=True), to_counts(rows_b, ragged=True)
    sides = [Side(build(ca, "pass@3", prior="uniform"), "A"), Side(build(cb, "pass@3", prior="uniform"), "B")]
    am, asd = _analytic_population(rows_a, rows_b, (1.0, -1.0))
    mean, sd = population_moments(sides, (1.0, -1.0))
    assert (mean, sd) == pytest.approx((am, asd), rel=1e-9)
    n = 20_000
    J = population_draws(sides, n, np.random.default_rng(84))
    x = J[:, 0] - J[:, 1]
    assert abs(x.mean() - am) < Z * asd / math.sqrt(n)
    assert abs(x.std() / asd - 1) < 0.03
    for m, rows in enumerate((rows_a, rows_b)):
        lam = (1.0, 0.0) if m == 0 else (0.0, 1.0)
        mm, ss = _analytic_population(rows_a, rows_b, lam)
        assert abs(J[:, m].mean() - mm) < Z * ss / math.sqrt(n)
        assert abs(J[:, m].std() / ss - 1) < 0.03


# ----------------------------------------------------------------------------- 9. Bayesian bootstrap
def test_bayesian_bootstrap_closed_form_and_draws():
    rng = np.random.default_rng(91)
    M = 25
    X = rng.integers(0, 3, (M, 3)) / 2.0  # repeated rows: the grouped gamma path
    X[:, 2] = 0.6 * X[:, 0] + 0.4 * rng.random(M)  # a continuous, correlated column
    assert np.unique(X[:, :2], axis=0).shape[0] < M
    n = 40_000
    mean, sd, draws = bayesian_bootstrap(X, n, np.random.default_rng(92))
    dev = X - X.mean(axis=0)
    cov = dev.T @ dev / (M * (M + 1))
    np.testing.assert_allclose(mean, X.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(sd, np.sqrt(np.diag(cov)), rtol=1e-12)
    assert draws.shape == (n, 3)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < Z * sd / math.sqrt(n))
    np.testing.assert_allclose(np.cov(draws.T), cov, rtol=0.05)
    # a direct simulation with Dirichlet weights
    ref = np.random.default_rng(93).dirichlet(np.ones(M), size=n) @ X
    for q in (0.025, 0.5, 0.975):
        assert np.all(np.abs(np.quantile(draws, q, axis=0) - np.quantile(ref, q, axis=0)) < 0.1 * sd)
    np.testing.assert_allclose(np.corrcoef(draws.T), np.corrcoef(ref.T), atol=0.03)
    # every draw is a convex combination of the rows
    assert np.all(draws >= X.min(axis=0) - 1e-12) and np.all(draws <= X.max(axis=0) + 1e-12)


def test_bayesian_bootstrap_one_column():
    x = np.array([0.0, 1.0, 1.0, 0.5, 0.25, 1.0, 0.0])
    mean, sd, draws = bayesian_bootstrap(x, 1000, np.random.default_rng(0))
    assert mean.shape == (1,) and sd.shape == (1,) and draws.shape == (1000, 1)
    assert sd[0] == pytest.approx(math.sqrt(np.sum((x - x.mean()) ** 2) / (7 * 8)), rel=1e-12)


# ----------------------------------------------------------------------------- 10. compare_all
def _four_models(seed=101, M=60, N=2):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, M)
    shifts = {"w": 0.0, "x": 0.05, "y": 0.07, "z": 0.2}
    return {k: (rng.random((M, N)) < np.clip(p + s, 0, 1)[:, None]).astype(int) for k, s in shifts.items()}


@pytest.mark.parametrize("test", ["permutation", "bootstrap"])
def test_compare_all_adjusted_p_values_and_rank_probabilities(test):
    models = _four_models()
    n = 20_000
    rk = compare_all(models, prior="uniform", seed=3, draws=n, resamples=2000, test=test, pairs="all")
    assert isinstance(rk, Ranking)
    K = len(models)
    assert len(rk.pairs) == K * (K - 1) // 2
    raw = np.array([p["p_value"] for p in rk.pairs])
    assert np.all((raw > 0) & (raw <= 1))
    np.testing.assert_allclose([p["p_holm"] for p in rk.pairs], multipletests(raw, method="holm")[1], rtol=1e-12)
    np.testing.assert_allclose([p["p_bh"] for p in rk.pairs], multipletests(raw, method="fdr_bh")[1], rtol=1e-12)
    # pair deltas: difference of mean fractions correct
    for p in rk.pairs:
        M = models[p["a"]].shape[0]  # DP posterior: one pseudo-question shrinks the mean by M / (M + 1)
        assert p["delta"] == pytest.approx((models[p["a"]].mean() - models[p["b"]].mean()) * M / (M + 1), abs=1e-14)
    # models sorted by value, which is the fraction correct
    values = {k: float(v.mean()) for k, v in models.items()}
    assert rk.models == sorted(values, key=lambda k: -values[k])
    for k in models:
        assert rk.scores[k].value == pytest.approx(values[k], rel=1e-12)
    P = rk.rank_probs
    assert P.shape == (K, K)
    np.testing.assert_allclose(P.sum(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert sum(rk.expected_rank.values()) == pytest.approx(K * (K + 1) / 2, abs=1e-9)
    for i, m in enumerate(rk.models):
        assert rk.p_best[m] == pytest.approx(P[i, 0], abs=1e-15)
        assert rk.expected_rank[m] == pytest.approx(float(P[i] @ np.arange(1, K + 1)), abs=1e-9)
    # rank probabilities against an independent simulation: shared Dirichlet weights on the per-question scores
    names = list(models)
    X = np.column_stack([models[k].mean(axis=1) for k in names])
    rng = np.random.default_rng(104)
    T = rng.dirichlet(np.ones(X.shape[0]), size=n) @ X
    M = X.shape[0]  # studentized: deviations times sqrt((M + 1) / chi^2_{M-1}), one scale per draw for all models
    T = T.mean(axis=0) + (T - T.mean(axis=0)) * np.sqrt((M + 1) / rng.chisquare(M - 1, n))[:, None]
    order = np.argsort(-T, axis=1, kind="stable")
    for i, m in enumerate(rk.models):
        j = names.index(m)
        for r in range(K):
            ref = np.mean(order[:, r] == j)
            assert abs(P[i, r] - ref) < Z * math.sqrt(2 * max(ref * (1 - ref), 1e-4) / n), (m, r, P[i, r], ref)
    assert 0.05 < P[rk.models.index("y"), 1] < 0.95  # a ranking that is actually uncertain somewhere


def test_compare_all_orders_clearly_separated_models():
    rng = np.random.default_rng(105)
    M = 150
    p = rng.beta(2, 2, M)
    models = {f"m{j}": (rng.random((M, 2)) < np.clip(p + 0.15 * j - 0.15, 0, 1)[:, None]).astype(int) for j in range(3)}
    for scope in ("population", "benchmark"):
        rk = compare_all(models, prior="uniform", seed=1, scope=scope, resamples=1000, pairs="all")
        assert rk.models == ["m2", "m1", "m0"]
        assert rk.p_best["m2"] > 0.99
        assert rk.rank_probs[0, 0] > 0.99 and rk.rank_probs[1, 1] > 0.99 and rk.rank_probs[2, 2] > 0.99
        assert [round(rk.expected_rank[m]) for m in rk.models] == [1, 2, 3]
        assert all(p["p_holm"] < 0.01 for p in rk.pairs)
    df = rk.to_frame()
    assert list(df["model"]) == ["m2", "m1", "m0"]
    np.testing.assert_allclose(df["p_best"], df["p_rank_1"])
    json.dumps(rk.to_dict())
    assert "<table>" in rk._repr_html_()


def test_compare_all_bad_input():
    A, B = paired_data(106, 10, 2)
    with pytest.raises(ValueError, match="at least two"):
        compare_all({"a": A})
    with pytest.raises(TypeError, match="models"):
        compare_all([A, B])
    with pytest.raises(ValueError, match="test"):
        compare_all({"a": A, "b": B}, test="t")


# ----------------------------------------------------------------------------- 11. output and reproducibility
def test_comparison_outputs():
    A, B = paired_data(111, 50, 3, shift=0.1)
    c = compare(A, B, prior="uniform", rope=0.02, seed=11)
    assert isinstance(c, Comparison) and isinstance(c.delta, Delta)
    d = c.to_dict()
    text = json.dumps(d)
    assert json.loads(text) == json.loads(c.to_json())
    assert set(d["delta"]) >= {"mean", "sd", "lo", "hi"}
    assert d["delta"]["mean"] == c.delta.mean and d["delta"]["lo"] <= d["delta"]["mean"] <= d["delta"]["hi"]
    assert 0 <= d["p_a_better"] <= 1
    assert set(d["bootstrap"]) >= {"lo", "hi", "p_value"} and "_draws" not in d["bootstrap"]
    assert set(d["mcnemar"]) >= {"statistic", "p_value", "method"}
    assert d["models"] == ["A", "B"] and d["seed"] == 11 and d["M"] == 50
    s = c.summary()
    assert s.startswith(c.verdict)
    assert "population" in s
    assert repr(c) == s
    assert "benchmark" in compare(A, B, prior="uniform", scope="benchmark").summary()
    df = c.to_frame()
    # to_frame is numeric (formatting lives in summary()): one row per analysis
    assert list(df.columns) == ["analysis", "tests", "estimate", "sd", "lo", "hi", "statistic", "p_value", "probability"]
    assert df["estimate"][0] == c.delta.mean and df["lo"][0] == c.delta.lo and df["probability"][0] == c.p_a_better
    assert df["p_value"][df["analysis"].str.startswith("sign-flip")].item() == c.permutation.p_value
    expected = ["Bayesian", "ROPE", "paired bootstrap (", "paired bootstrap (percentile)", "sign-flip", "clustered McNemar",
                "paired t-test", "Wilcoxon", "Miller", "effect size"]
    assert len(df) == len(expected)
    for row, start in zip(df["analysis"], expected):
        assert row.startswith(start), (row, start)
    html = c._repr_html_()
    assert "<table>" in html and c.verdict in html
    # k > n: only the Bayesian row and McNemar
    rows_a, rows_b = _ragged_pair(112, 12, [2, 4], [1, 3])
    ck = compare(to_counts(rows_a, ragged=True), to_counts(rows_b, ragged=True), metric="pass@3", prior="uniform")
    assert len(ck.to_frame()) == 2
    json.dumps(ck.to_dict())
    assert "note:" in ck.summary()


def test_same_seed_same_result_other_seed_other_draws():
    A, B = paired_data(113, 60, 4, shift=0.05)
    c1 = compare(A, B, prior="uniform", seed=7)
    c2 = compare(A, B, prior="uniform", seed=7)
    c3 = compare(A, B, prior="uniform", seed=8)
    assert c1.to_dict() == c2.to_dict()
    np.testing.assert_array_equal(c1.draws(), c2.draws())
    np.testing.assert_array_equal(c1.bootstrap["_draws"], c2.bootstrap["_draws"])
    assert not np.array_equal(c1.bootstrap["_draws"], c3.bootstrap["_draws"])
    assert not np.array_equal(c1.draws(), c3.draws())
    assert c1.bootstrap["se"] != c3.bootstrap["se"]  # the quantiles sit on the lattice of 1/(4 M): they may tie
    assert c1.delta.mean == c3.delta.mean and c1.delta.sd == c3.delta.sd  # closed form, seed-free
    # draws() hands out a copy
    x = c1.draws()
    x[:] = 0
    assert np.any(c1.draws() != 0)


# ----------------------------------------------------------------------------- 12. bad input
_A12, _B12 = paired_data(121, 20, 3)


@pytest.mark.parametrize(
    "kwargs, exc, pattern",
    [
        (dict(rope=0), ValueError, "rope"),
        (dict(rope=-0.1), ValueError, "rope"),
        (dict(rope=(0.1, -0.1)), ValueError, "rope"),
        (dict(rope=(0.1, 0.1)), ValueError, "rope"),
        (dict(rope=(0.1,)), ValueError, "rope"),
        (dict(rope="0.1"), TypeError, "rope"),
        (dict(rope=True), TypeError, "rope"),
        (dict(level=0.0), ValueError, "level"),
        (dict(level=1.0), ValueError, "level"),
        (dict(level=1.5), ValueError, "level"),
        (dict(scope="pool"), ValueError, "scope"),
        (dict(interval="wald"), ValueError, "interval"),
        (dict(collapse="all"), ValueError, "collapse"),
        (dict(names=("A", "A")), TypeError, "names"),
        (dict(names="AB"), TypeError, "names"),
        (dict(names=("A", 1)), TypeError, "names"),
        (dict(names=("A", "B", "C")), TypeError, "names"),
        (dict(draws=10), ValueError, "draws"),
        (dict(resamples=10), ValueError, "resamples"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(metric="geospectrum@3"), ValueError, "GeoSpectrum"),
    ],
)
def test_bad_arguments(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        compare(_A12, _B12, prior="uniform", **kwargs)


def test_bad_outcomes():
    An = _A12.astype(float)
    An[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"mine contains NaN"):
        compare(An, _B12, names=("mine", "theirs"))
    with pytest.raises(ValueError, match=r"theirs contains NaN"):
        compare(_A12, An, names=("mine", "theirs"))
    cat = np.random.default_rng(122).integers(0, 3, _A12.shape)
    with pytest.raises(ValueError, match="0/1 outcomes"):
        compare(cat, _B12)
    with pytest.raises(ValueError, match="0/1 outcomes"):
        compare(_A12, cat)


def test_geospectrum_refused_in_the_population_fallback():
    rows_a, rows_b = _ragged_pair(123, 12, [2, 4], [1, 3])
    ca, cb = to_counts(rows_a, ragged=True), to_counts(rows_b, ragged=True)
    with pytest.raises(ValueError, match="GeoSpectrum"):
        compare(ca, cb, metric="geospectrum@3", prior="uniform")
    with pytest.raises(ValueError, match="GeoSpectrum"):
        Side(build(ca, "geospectrum@3", prior="uniform"), "A")


def test_inputs_are_not_modified():
    A, B = paired_data(124, 30, 3)
    ids = [f"q{i}" for i in range(30)]
    Adf = pd.DataFrame(A.copy(), index=ids)
    Bdf = pd.DataFrame(B.copy()[::-1], index=ids[::-1])
    A0, B0, Adf0, Bdf0 = A.copy(), B.copy(), Adf.copy(), Bdf.copy()
    compare(A, B, prior="uniform", rope=0.05)
    compare(Adf, Bdf, collapse="first")
    np.testing.assert_array_equal(A, A0)
    np.testing.assert_array_equal(B, B0)
    pd.testing.assert_frame_equal(Adf, Adf0)
    pd.testing.assert_frame_equal(Bdf, Bdf0)
    ca, cb = to_counts(A), to_counts(B)
    ta, tb = ca.table.copy(), cb.table.copy()
    compare(ca, cb, prior="uniform")
    np.testing.assert_array_equal(ca.table, ta)
    np.testing.assert_array_equal(cb.table, tb)
    d = D_CONTINUOUS.copy()
    paired_bootstrap(d, resamples=200, rng=np.random.default_rng(0))
    sign_flip_test(d, resamples=200, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(d, D_CONTINUOUS)
    X = np.column_stack([D_CONTINUOUS, D_CONTINUOUS[::-1]])
    X0 = X.copy()
    bayesian_bootstrap(X, 200, np.random.default_rng(0))
    np.testing.assert_array_equal(X, X0)
    models = {"a": A, "b": B}
    compare_all(models, prior="uniform", resamples=200)
    np.testing.assert_array_equal(models["a"], A0)


def test_review_fixes_ties_clipping_degenerate_bootstrap_and_chi2():
    """compare_all splits tied draws; the normal delta interval stays in [-1, 1]; a one-value bootstrap
    gives no p-value; McNemar chi-square with b = c is 0 (no evidence), not (|b - c| - 1)^2 / (b + c)."""
    A, _ = paired_data(200, 40, 2)
    rk = compare_all({"a": A, "b": A.copy()}, seed=1, resamples=200)
    assert abs(rk.p_best["a"] - 0.5) < 0.05 and abs(rk.expected_rank["a"] - 1.5) < 0.05
    ones, zeros = np.ones((3, 2), dtype=int), np.zeros((3, 2), dtype=int)
    c = compare(ones, zeros, scope="benchmark", interval="normal", prior="uniform")
    assert -1.0 <= c.delta.lo <= c.delta.hi <= 1.0
    assert c.bootstrap["p_value"] is None and c.permutation["p_value"] == 0.25
    boot = paired_bootstrap(np.full(5, 0.5), resamples=200, rng=np.random.default_rng(0))
    assert boot["p_value"] is None and boot["lo"] == boot["hi"] == 0.5
    a = np.array([1, 0, 1, 0, 1, 1])
    b = np.array([0, 1, 1, 0, 1, 1])  # one question A-only, one B-only: b = c = 1
    out = mcnemar_tests(to_counts(a[:, None]), to_counts(b[:, None]))["variants"]["single"]
    assert out["a_only"] == out["b_only"] == 1
    assert out["chi2_cc"] == {"statistic": 0.0, "p_value": 1.0}
    # BCa at a level so extreme that 1 - a (z0 + z) < 0 stays inside the percentile range
    d = np.r_[np.zeros(199), 50.0]
    res = paired_bootstrap(d, resamples=2000, level=1 - 1e-9, rng=np.random.default_rng(1))
    assert res["bca"]["hi"] >= res["percentile"]["lo"]


def test_missing_trials_and_ragged_rows_pass_through():
    """NaN-marked or ragged outcomes reach to_counts with the user's flags; the result equals Counts input."""
    A, B = paired_data(61, 30, 4, shift=0.1)
    A_nan = A.astype(float)
    A_nan[:5, 3] = np.nan
    ca = to_counts(A_nan, missing=np.nan)
    c1 = compare(A_nan, B, missing=np.nan, seed=2, resamples=500)
    c2 = compare(ca, to_counts(B), seed=2, resamples=500)
    assert c1.delta == c2.delta and c1.N == ("3-4", 4)
    assert c1.mcnemar["variants"]["first"]["table"] == _first_table(A, B)  # first trials all observed
    with pytest.raises(ValueError, match="missing"):
        compare(A_nan, B)
    rows_a = [list(r[: 3 + (i % 2)]) for i, r in enumerate(A)]
    c3 = compare(rows_a, B, ragged=True, seed=2, resamples=500)
    assert c3.delta == compare(to_counts(rows_a, ragged=True), to_counts(B), seed=2, resamples=500).delta


def _first_table(A, B):
    a, b = A[:, 0].astype(bool), B[:, 0].astype(bool)
    return [[int(np.sum(a & b)), int(np.sum(a & ~b))], [int(np.sum(~a & b)), int(np.sum(~a & ~b))]]


def test_id_type_mismatch_hint_and_zero_d_rope():
    import pandas as pd

    A = pd.DataFrame(np.ones((3, 2), dtype=int), index=[1, 2, 3])
    B = pd.DataFrame(np.zeros((3, 2), dtype=int), index=["1", "2", "3"])
    with pytest.raises(ValueError, match=r"no id matches: A's ids are int64, B's are str"):
        compare(A, B)
    c = compare(np.ones((5, 2), dtype=int), np.zeros((5, 2), dtype=int), rope=np.array(0.05), resamples=200)
    assert (c.rope["lo"], c.rope["hi"]) == (-0.05, 0.05)


def test_holm_adjustment_equals_statsmodels_with_ties_ones_and_missing():
    from bayeseval.comparison.paired_tests import adjust

    rng = np.random.default_rng(7)
    for p in (rng.random(9), np.array([0.01, 0.01, 0.5, 0.5, 1.0, 0.003]), np.array([0.2]), rng.random(40) ** 4):
        np.testing.assert_allclose(adjust(p, ("holm",))["holm"], multipletests(p, method="holm")[1], rtol=1e-15)
    out = adjust([0.01, None, 0.04, float("nan")], ("holm",))["holm"]
    np.testing.assert_allclose(out[[0, 2]], [0.02, 0.04], rtol=1e-15)
    assert np.isnan(out[[1, 3]]).all()


def test_benchmark_scope_with_one_trial_uses_the_discordance_bound():
    """N = 1: the benchmark error of the difference, sum_i [p_A (1 - p_A) + p_B (1 - p_B)], is at most
    E[#discordant]; the paired population posterior has that spread (less d^2 / M), so the benchmark scope
    uses it instead of the two independent posteriors (whose pool fit cannot see the spread: type-I 9-16%)."""
    rng = np.random.default_rng(11)
    p = rng.beta(0.7, 0.7, 100)
    A = (rng.random((100, 1)) < p[:, None]).astype(int)
    B = (rng.random((100, 1)) < p[:, None]).astype(int)
    c, pop = compare(A, B, scope="benchmark"), compare(A, B)
    assert "discordant" in c.delta.basis
    # the population scope is the same posterior, studentized (variance times (M + 1) / (M - 3))
    assert c.delta.sd == pytest.approx(pop.delta.sd * math.sqrt(97 / 101), rel=1e-12)
    D, M = int(np.sum(A != B)), 100
    d = float((A - B).mean())
    bound = math.sqrt(D) / M  # sd of the bound, from the observed discordant count
    assert c.delta.sd == pytest.approx(math.sqrt((D / M - d**2) / (M + 2)), rel=0.05)  # DP: T = M + 1 pseudo
    assert c.delta.sd <= bound * 1.001
    A4 = (rng.random((100, 4)) < p[:, None]).astype(int)
    B4 = (rng.random((100, 4)) < p[:, None]).astype(int)
    assert "discordant" not in compare(A4, B4, scope="benchmark").delta.basis  # four trials: the error model


@pytest.mark.slow
def test_benchmark_scope_with_one_trial_keeps_its_level():
    """Type-I of P(A > B) outside [0.025, 0.975] in benchmark scope with N = 1, true null on a U-shaped pool
    (it was 9-16% before the bound): 400 replicates, M = 100; at most 6.5% + 2 MC s.e."""
    rng = np.random.default_rng(5)
    rej = 0
    for _ in range(400):
        p = rng.beta(0.7, 0.7, 100)
        A = (rng.random((100, 1)) < p[:, None]).astype(int)
        B = (rng.random((100, 1)) < p[:, None]).astype(int)
        pab = compare(A, B, scope="benchmark").p_a_better
        rej += not 0.025 <= pab <= 0.975
    assert rej / 400 <= 0.065 + 2 * math.sqrt(0.05 * 0.95 / 400)


def test_weights_0_1_on_0_1_outcomes_compare_as_the_binary_model():
    """w=[0, 1] scores 0/1 outcomes as 0 and 1: compare and compare_all read them as the binary model (the same
    numbers as without w), and other weights on 0/1 outcomes stay refused as categorical."""
    rng = np.random.default_rng(0)
    A, B = rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4))
    with_w, plain = compare(A, B, w=[0, 1]), compare(A, B)
    assert with_w.p_a_better == plain.p_a_better and str(with_w) == str(plain)
    assert str(compare_all({"a": A, "b": B}, w=[0, 1])) == str(compare_all({"a": A, "b": B}))
    with pytest.raises(ValueError, match="A has avg with categorical outcomes"):
        compare(A, B, w=[0, 2])
