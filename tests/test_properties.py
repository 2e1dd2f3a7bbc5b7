"""Property-based tests (Hypothesis, derandomised): invariances, ranges, orderings and
identities that every bayeseval metric must satisfy, and the ``to_counts`` invariants.

All Hypothesis tests use ``derandomize=True`` and no example database, so a run
is deterministic and CI sees the same examples every time.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose

import bayeseval as B
from bayeseval import Counts, to_counts

TOL = dict(rtol=1e-12, atol=1e-14)


def profile(n: int):
    return settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# ----------------------------------------------------------------------------- strategies
@st.composite
def binary_R(draw, max_m=7, max_n=12, min_n=1):
    M = draw(st.integers(1, max_m))
    N = draw(st.integers(min_n, max_n))
    return draw(arrays(np.int8, (M, N), elements=st.integers(0, 1)))


@st.composite
def binary_case(draw, max_m=7, max_n=12):
    R = draw(binary_R(max_m=max_m, max_n=max_n))
    k = draw(st.integers(1, R.shape[1]))
    return R, k


@st.composite
def categorical_case(draw):
    M = draw(st.integers(1, 6))
    N = draw(st.integers(1, 10))
    C = draw(st.integers(1, 4))
    R = draw(arrays(np.int64, (M, N), elements=st.integers(0, C)))
    w = draw(arrays(np.float64, (C + 1,), elements=st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 3))))
    D = draw(st.integers(0, 3))
    R0 = draw(arrays(np.int64, (M, D), elements=st.integers(0, C)))
    k = draw(st.integers(1, N))
    return R, w, R0, k


priors = st.tuples(st.floats(0.1, 5.0), st.floats(0.1, 5.0))


def spectrum_weights(k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.ones(k)) * rng.uniform(0.2, 0.999)
    w[rng.uniform(size=k) < 0.3] = 0.0
    return w


def point_values(R, k, tau=0.5, weights=None):
    """Every binary point estimate at (R, k), by name."""
    weights = spectrum_weights(k, 0) if weights is None else weights
    return {
        "pass_at_k": B.pass_at_k(R, k),
        "pass_hat_k": B.pass_hat_k(R, k),
        "unanimous_at_k": B.unanimous_at_k(R, k),
        "g_pass_at_k": B.g_pass_at_k(R, k),
        "g_pass_at_k_tau": B.g_pass_at_k_tau(R, k, tau),
        "mg_pass_at_k": B.mg_pass_at_k(R, k),
        "maj_at_k": B.maj_at_k(R, k),
        "auc_at_k": B.auc_at_k(R, k),
        "max_at_k": B.max_at_k(R, k),
        "threshold_spectrum_at_k": B.threshold_spectrum_at_k(R, k, weights),
        "geom_at_k": B.geom_at_k(R, k),
        "geom_at_k(1,1)": B.geom_at_k(R, k, 1.0, 1.0),
        "geom_ds_at_k": B.geom_ds_at_k(R, k),
        "geom_ds_at_k(0,1)": B.geom_ds_at_k(R, k, 0.0, 1.0),
        "geo_spectrum_at_k": B.geo_spectrum_at_k(R, k, 0.25, weights),
        "geo_spectrum_star_at_k": B.geo_spectrum_star_at_k(R, k),
        "bernstein_at_k": B.bernstein_at_k(R, np.linspace(0, 1, k + 1) ** 2),
    }


def ci_values(R, k, tau=0.5, weights=None, **kw):
    """Every binary *_ci summary at (R, k), by name (kw: confidence, bounds, alpha0, beta0)."""
    weights = spectrum_weights(k, 0) if weights is None else weights
    prior = {key: kw[key] for key in ("alpha0", "beta0") if key in kw}
    interval = {key: kw[key] for key in ("confidence", "bounds") if key in kw}
    return {
        "pass_at_k_ci": B.pass_at_k_ci(R, k, **kw),
        "pass_hat_k_ci": B.pass_hat_k_ci(R, k, **kw),
        "g_pass_at_k_ci": B.g_pass_at_k_ci(R, k, **kw),
        "g_pass_at_k_tau_ci": B.g_pass_at_k_tau_ci(R, k, tau, **kw),
        "mg_pass_at_k_ci": B.mg_pass_at_k_ci(R, k, **kw),
        "maj_at_k_ci": B.maj_at_k_ci(R, k, **kw),
        "auc_at_k_ci": B.auc_at_k_ci(R, k, **kw),
        "threshold_spectrum_at_k_ci": B.threshold_spectrum_at_k_ci(R, k, weights, **kw),
        "geom_at_k_ci": B.geom_at_k_ci(R, k, **kw),
        "geom_ds_at_k_ci": B.geom_ds_at_k_ci(R, k, 0.3, 0.7, **kw),
        "geo_spectrum_at_k_ci": B.geo_spectrum_at_k_ci(R, k, 0.25, weights, **kw),
        "geo_spectrum_star_at_k_ci": B.geo_spectrum_star_at_k_ci(R, k, **kw),
        "bernstein_at_k_ci": B.bernstein_at_k_ci(R, np.linspace(0, 1, k + 1) ** 2, **kw),
        "max_at_k_ci": B.max_at_k_ci(R, k, **interval),
        "bayes_ci": B.bayes_ci(R, **interval),
        "avg_ci": B.avg_ci(R, **interval),
        "_prior_used": prior,
    }


def assert_dicts_close(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if key.startswith("_"):
            continue
        assert_allclose(np.asarray(a[key], float), np.asarray(b[key], float), err_msg=key, **TOL)


# ----------------------------------------------------------------------------- invariance
def shuffled(R: np.ndarray, seed: int):
    """R with its questions permuted, and R with each row's trials permuted independently."""
    rng = np.random.default_rng(seed)
    rows = rng.permutation(R.shape[0])
    within = np.array([rng.permutation(r) for r in R])
    return rows, R[rows], within


@pytest.mark.slow
@profile(60)
@given(binary_case(), st.integers(0, 2**32 - 1), priors)
def test_binary_metrics_invariant_under_permutations(case, seed, prior):
    R, k = case
    _, by_rows, within = shuffled(R, seed)
    a0, b0 = prior
    base_p = point_values(R, k)
    base_c = ci_values(R, k, alpha0=a0, beta0=b0)
    for other in (by_rows, within):
        assert_dicts_close(point_values(other, k), base_p)
        assert_dicts_close(ci_values(other, k, alpha0=a0, beta0=b0), base_c)
    for fname in ("bayes", "avg"):
        for other in (by_rows, within):
            assert_allclose(getattr(B, fname)(other), getattr(B, fname)(R), **TOL)


@profile(60)
@given(categorical_case(), st.integers(0, 2**32 - 1))
def test_categorical_metrics_invariant_under_permutations(case, seed):
    R, w, R0, k = case
    rows, by_rows, within = shuffled(R, seed)
    rng = np.random.default_rng(seed)
    R0_within = np.array([rng.permutation(r) for r in R0]).reshape(R0.shape)
    big = R.shape[1] + 3
    for other, prior in ((by_rows, R0[rows]), (within, R0_within)):
        assert_allclose(B.bayes(other, w, prior), B.bayes(R, w, R0), **TOL)
        assert_allclose(B.bayes_ci(other, w, prior), B.bayes_ci(R, w, R0), **TOL)
        assert_allclose(B.avg_ci(other, w), B.avg_ci(R, w), **TOL)
        assert_allclose(B.max_at_k(other, k, w), B.max_at_k(R, k, w), **TOL)
        assert_allclose(B.max_at_k_ci(other, k, w, prior), B.max_at_k_ci(R, k, w, R0), **TOL)
        assert_allclose(B.max_at_k_ci(other, big, w, prior), B.max_at_k_ci(R, big, w, R0), **TOL)


# ----------------------------------------------------------------------------- ranges
@profile(80)
@given(binary_case(max_n=16), priors, st.floats(0.05, 0.999),
       st.one_of(st.none(), st.tuples(st.floats(-0.5, 0.6), st.floats(0.01, 1.0)).map(lambda t: (t[0], t[0] + t[1]))),
       st.floats(0.0, 1.0), st.integers(0, 20))
def test_values_lie_in_their_ranges(case, prior, confidence, bounds, tau, extra_k):
    R, k = case
    for name, v in point_values(R, k, tau).items():
        assert isinstance(v, float), name
        assert 0.0 <= v <= 1.0, f"{name} = {v!r} outside [0, 1]"
    a0, b0 = prior
    for kk in (k, k + extra_k):  # the posteriors accept k > N
        kw = {"alpha0": a0, "beta0": b0, "confidence": confidence}
        if bounds is not None:
            kw["bounds"] = bounds
        for name, v in ci_values(R, kk, tau, **kw).items():
            if name.startswith("_"):
                continue
            assert isinstance(v, tuple) and len(v) == 4 and all(isinstance(x, float) for x in v), name
            mu, sigma, lo, hi = v
            assert all(map(math.isfinite, v)), f"{name}: {v}"
            assert 0.0 <= mu <= 1.0, f"{name}: mu = {mu!r} outside [0, 1]"
            assert sigma >= 0.0, name
            assert lo <= hi, name
            blo, bhi = (0.0, 1.0) if bounds is None else bounds
            assert blo <= lo and hi <= bhi, f"{name}: ({lo}, {hi}) outside bounds {(blo, bhi)}"
            if blo <= mu <= bhi:
                assert lo <= mu <= hi, f"{name}: mu {mu} outside ({lo}, {hi})"
            # (geo*: delta method, avg_ci: sd rescaled by T/n -- neither is the sd of a [0, 1] variable)
            if bounds is None and not name.startswith(("geo", "avg")):
                assert sigma <= 0.5, name  # a [0, 1] variable has sd <= 1/2


@profile(50)
@given(categorical_case(), st.floats(0.05, 0.999))
def test_categorical_values_lie_in_weight_range(case, confidence):
    R, w, R0, k = case
    lo_w, hi_w = float(w.min()), float(w.max())
    eps = 1e-12 * max(1.0, abs(lo_w), abs(hi_w))
    for v in (B.bayes(R, w, R0), B.avg(R, w), (B.max_at_k(R, k, w), 0.0)):
        assert lo_w - eps <= v[0] <= hi_w + eps and v[1] >= 0.0
    for v in (B.bayes_ci(R, w, R0, confidence), B.avg_ci(R, w, confidence),
              B.max_at_k_ci(R, k, w, R0, confidence), B.max_at_k_ci(R, k + 5, w, R0, confidence)):
        mu, sigma, lo, hi = v
        assert lo_w - eps <= mu <= hi_w + eps and sigma >= 0.0
        assert lo_w <= lo <= hi <= hi_w  # default bounds are the weight range
        assert lo <= mu + eps and mu - eps <= hi
    # max@k is at least the mean reward (k = 1) and at most the top reward
    assert B.max_at_k(R, k, w) >= B.avg(R, w)[0] - eps


def test_auc_of_all_zero_matrix_is_exactly_zero():
    """Regression: AUC@k of an all-wrong matrix must be 0 (not -3e-16)."""
    for N in range(1, 16):
        R = np.zeros((2, N), dtype=int)
        for k in range(1, N + 1):
            v = B.auc_at_k(R, k)
            assert 0.0 <= v <= 1.0, f"auc_at_k(zeros(2, {N}), {k}) = {v!r}"
        assert B.auc_at_k(np.ones((2, N), dtype=int), N) <= 1.0


# ----------------------------------------------------------------------------- orderings
@profile(80)
@given(binary_case(max_n=16), priors)
def test_pass_at_k_above_avg_above_pass_hat_k(case, prior):
    R, k = case
    a0, b0 = prior
    eps = 1e-12
    p_at, p_hat, mean = B.pass_at_k(R, k), B.pass_hat_k(R, k), B.avg(R)[0]
    assert p_at + eps >= mean >= p_hat - eps
    assert p_at + eps >= B.pass_at_k(R, 1) >= p_hat - eps
    maj = B.maj_at_k(R, k)
    assert p_hat - eps <= maj <= p_at + eps
    for tau in (0.0, 0.3, 0.5, 1.0):
        assert p_hat - eps <= B.g_pass_at_k_tau(R, k, tau) <= p_at + eps
    mg = B.mg_pass_at_k(R, k)
    assert mg <= maj + eps
    # mG-Pass pays 2(k - ceil(k/2))/k for k correct: 1 for even k, (k-1)/k for odd k
    assert mg + eps >= (1.0 if k % 2 == 0 else (k - 1) / k) * p_hat
    assert B.pass_at_k(R, 1) - eps <= B.auc_at_k(R, k) <= p_at + eps
    for kk in (k, k + 4):
        pa = B.pass_at_k_ci(R, kk, alpha0=a0, beta0=b0)[0]
        ph = B.pass_hat_k_ci(R, kk, alpha0=a0, beta0=b0)[0]
        p1 = B.pass_at_k_ci(R, 1, alpha0=a0, beta0=b0)[0]
        mj = B.maj_at_k_ci(R, kk, alpha0=a0, beta0=b0)[0]
        mgc = B.mg_pass_at_k_ci(R, kk, alpha0=a0, beta0=b0)[0]
        assert pa + eps >= p1 >= ph - eps
        assert ph - eps <= mj <= pa + eps
        assert mgc <= mj + eps
        assert mgc + eps >= (1.0 if kk % 2 == 0 else (kk - 1) / kk) * ph


@profile(60)
@given(binary_R(max_n=14), priors)
def test_monotone_in_k(R, prior):
    N = R.shape[1]
    a0, b0 = prior
    eps = 1e-12
    pa = [B.pass_at_k(R, k) for k in range(1, N + 1)]
    ph = [B.pass_hat_k(R, k) for k in range(1, N + 1)]
    assert all(x <= y + eps for x, y in zip(pa, pa[1:])), pa
    assert all(x + eps >= y for x, y in zip(ph, ph[1:])), ph
    ks = range(1, N + 6)
    pa = [B.pass_at_k_ci(R, k, alpha0=a0, beta0=b0)[0] for k in ks]
    ph = [B.pass_hat_k_ci(R, k, alpha0=a0, beta0=b0)[0] for k in ks]
    assert all(x <= y + eps for x, y in zip(pa, pa[1:])), pa
    assert all(x + eps >= y for x, y in zip(ph, ph[1:])), ph
    mx = [B.max_at_k_ci(R, k)[0] for k in ks]
    assert all(x <= y + eps for x, y in zip(mx, mx[1:])), mx


# ----------------------------------------------------------------------------- identities
@profile(80)
@given(binary_R(max_n=14), st.floats(0.0, 1.0), st.floats(0.05, 0.999))
def test_k_equals_1_identities(R, tau, confidence):
    mean = float(R.mean())
    values = {
        "pass@1": B.pass_at_k(R, 1), "pass^1": B.pass_hat_k(R, 1), "maj@1": B.maj_at_k(R, 1),
        "g_pass_tau@1": B.g_pass_at_k_tau(R, 1, tau), "auc@1": B.auc_at_k(R, 1), "avg": B.avg(R)[0],
        "max@1": B.max_at_k(R, 1), "geom@1": B.geom_at_k(R, 1), "geom_ds@1": B.geom_ds_at_k(R, 1),
        "spectrum@1": B.threshold_spectrum_at_k(R, 1, [1.0]), "bernstein([0,1])": B.bernstein_at_k(R, [0, 1]),
    }
    for name, v in values.items():
        assert_allclose(v, mean, err_msg=name, **TOL)
    bayes = B.bayes_ci(R, confidence=confidence)
    for name, v in {
        "pass_at_k_ci": B.pass_at_k_ci(R, 1, confidence=confidence),
        "pass_hat_k_ci": B.pass_hat_k_ci(R, 1, confidence=confidence),
        "maj_at_k_ci": B.maj_at_k_ci(R, 1, confidence=confidence),
        "g_pass_at_k_tau_ci": B.g_pass_at_k_tau_ci(R, 1, tau, confidence=confidence),
        "auc_at_k_ci": B.auc_at_k_ci(R, 1, confidence=confidence),
        "threshold_spectrum_at_k_ci": B.threshold_spectrum_at_k_ci(R, 1, [1.0], confidence=confidence),
        "max_at_k_ci": B.max_at_k_ci(R, 1, confidence=confidence),
    }.items():
        assert_allclose(v[:2], bayes[:2], err_msg=name, **TOL)
        # same bounds (0, 1) here, so same interval; mean +- z sd through different code paths: 1e-13 absolute
        assert_allclose(v, bayes, err_msg=name, rtol=1e-12, atol=1e-13)


@profile(50)
@given(categorical_case(), st.floats(0.05, 0.999))
def test_max_at_k_ci_at_1_is_bayes_ci(case, confidence):
    R, w, R0, _ = case
    assert_allclose(B.max_at_k_ci(R, 1, w, R0, confidence), B.bayes_ci(R, w, R0, confidence), **TOL)
    assert_allclose(B.max_at_k(R, 1, w), B.avg(R, w)[0], **TOL)


@profile(50)
@given(categorical_case(), st.floats(-3, 3).filter(lambda a: abs(a) > 0.1), st.floats(-3, 3))
def test_affine_weights(case, scale, shift):
    """Scores are affine-equivariant in w: w -> a w + b maps mu -> a mu + b, sigma -> |a| sigma."""
    R, w, R0, k = case
    w2 = scale * w + shift
    atol = 1e-11 * (1 + abs(shift) + abs(scale) * float(np.abs(w).max()))
    for f, args in ((B.bayes, (R0,)), (B.avg, ())):
        mu, sd = f(R, w, *args)
        mu2, sd2 = f(R, w2, *args)
        assert_allclose([mu2, sd2], [scale * mu + shift, abs(scale) * sd], rtol=1e-10, atol=atol)
    if scale > 0:  # max@k picks the best reward: only an increasing map commutes with it
        assert_allclose(B.max_at_k(R, k, w2), scale * B.max_at_k(R, k, w) + shift, rtol=1e-10, atol=atol)
        mu, sd, *_ = B.max_at_k_ci(R, k, w, R0)
        mu2, sd2, *_ = B.max_at_k_ci(R, k, w2, R0)
        assert_allclose([mu2, sd2], [scale * mu + shift, scale * sd], rtol=1e-9, atol=atol)


@profile(60)
@given(binary_case(), priors, st.integers(0, 1000))
def test_geo_spectrum_endpoints(case, prior, seed):
    R, k = case
    a0, b0 = prior
    wts = spectrum_weights(k, seed)
    ci = {"alpha0": a0, "beta0": b0}
    assert_allclose(B.geo_spectrum_at_k(R, k, 1.0, wts), B.pass_at_k(R, k), **TOL)
    assert_allclose(B.geo_spectrum_at_k(R, k, 0.0, wts), B.threshold_spectrum_at_k(R, k, wts), **TOL)
    assert_allclose(B.geo_spectrum_at_k(R, k, lambda_=1.0), B.pass_at_k(R, k), **TOL)
    assert_allclose(B.geo_spectrum_at_k_ci(R, k, 1.0, wts, **ci), B.pass_at_k_ci(R, k, **ci), **TOL)
    assert_allclose(B.geo_spectrum_at_k_ci(R, k, 0.0, wts, **ci), B.threshold_spectrum_at_k_ci(R, k, wts, **ci), **TOL)
    # default weights: the upper-half mG spectrum, so lam = 0 is mG-Pass and the star is sqrt(pass * mG)
    assert_allclose(B.geo_spectrum_at_k(R, k, 0.0), B.mg_pass_at_k(R, k), **TOL)
    assert_allclose(B.geo_spectrum_at_k_ci(R, k, 0.0, **ci), B.mg_pass_at_k_ci(R, k, **ci), **TOL)
    assert_allclose(B.geo_spectrum_star_at_k(R, k), math.sqrt(B.pass_at_k(R, k) * B.mg_pass_at_k(R, k)), **TOL)
    assert_allclose(B.geo_spectrum_star_at_k_ci(R, k, **ci), B.geo_spectrum_at_k_ci(R, k, **ci), **TOL)
    # geometric blends with a zero power are the other factor
    assert_allclose(B.geom_ds_at_k(R, k, 1.0, 0.0), B.pass_at_k(R, k), **TOL)
    assert_allclose(B.geom_ds_at_k(R, k, 0.0, 1.0), B.pass_hat_k(R, k), **TOL)
    assert_allclose(B.geom_at_k(R, k, 1.0, 0.0), B.pass_at_k(R, k), **TOL)
    assert_allclose(B.geom_ds_at_k_ci(R, k, 1.0, 0.0, **ci)[:2], B.pass_at_k_ci(R, k, **ci)[:2], **TOL)
    assert_allclose(B.geom_at_k_ci(R, k, 0.0, 1.0, **ci)[:2], B.pass_hat_k_ci(R, k, **ci)[:2], **TOL)


def test_many_distinct_metrics_in_one_process():
    """Regression: hundreds of distinct metrics in one process (the product-coefficient cache
    fills and is cleared) must keep giving answers, not a KeyError from the cache."""
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    for k in range(1, 420):
        expect = B.pass_at_k_ci(R, k)
        got = B.geom_at_k_ci(R, k, 1.0, 0.0)  # pass_power 1, unanimous_power 0: latent pass@k
        assert_allclose(got[:2], expect[:2], rtol=1e-9, atol=1e-12, err_msg=f"k={k}")


# ----------------------------------------------------------------------------- to_counts invariants
def same_counts(a: Counts, b: Counts) -> None:
    np.testing.assert_array_equal(a.table, b.table)
    np.testing.assert_array_equal(a.n, b.n)
    assert (a.M, a.N, a.ragged) == (b.M, b.N, b.ragged)


@profile(60)
@given(st.integers(1, 6), st.integers(2, 12), st.integers(1, 4), st.data())
def test_counts_add_across_batches_of_trials(M, N, C, data):
    R = data.draw(arrays(np.int64, (M, N), elements=st.integers(0, C)))
    a = data.draw(st.integers(1, N - 1))
    whole = to_counts(R)
    same_counts(to_counts(R[:, :a]) + to_counts(R[:, a:]), whole)
    b = data.draw(st.integers(a + 1, N))
    if b < N:
        same_counts(to_counts(R[:, :a]) + to_counts(R[:, a:b]) + to_counts(R[:, b:]), whole)
    # with ids the right-hand side is aligned by id, whatever its row order
    ids = [f"q{i}" for i in range(M)]
    perm = np.random.default_rng(M * N).permutation(M)
    pooled = to_counts(R[:, :a], ids=ids) + to_counts(R[perm, a:], ids=[ids[i] for i in perm])
    np.testing.assert_array_equal(pooled.table, whole.table)
    assert list(pooled.ids) == ids
    w = np.linspace(0, 1, C + 1)
    assert_allclose(B.bayes(pooled, w), B.bayes(R, w), **TOL)


@profile(60)
@given(st.integers(2, 9), st.integers(1, 10), st.integers(1, 4), st.data())
def test_concat_of_row_shards_is_the_whole(M, N, C, data):
    R = data.draw(arrays(np.int64, (M, N), elements=st.integers(0, C)))
    cuts = sorted(set(data.draw(st.lists(st.integers(1, M - 1), min_size=1, max_size=3))))
    shards = np.split(R, cuts)
    same_counts(Counts.concat([to_counts(s) for s in shards]), to_counts(R))
    ids = np.arange(M) * 10
    pieces = np.split(ids, cuts)
    joined = Counts.concat([to_counts(s, ids=i) for s, i in zip(shards, pieces)])
    np.testing.assert_array_equal(joined.ids, ids)
    w = np.linspace(-1, 1, C + 1)
    k = data.draw(st.integers(1, N))
    assert_allclose(B.max_at_k_ci(joined, k, w), B.max_at_k_ci(R, k, w), **TOL)


@st.composite
def ragged_rows(draw):
    M = draw(st.integers(1, 6))
    lengths = draw(st.lists(st.integers(1, 9), min_size=M, max_size=M))
    return [draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)) for n in lengths]


@profile(60)
@given(ragged_rows(), priors)
def test_ragged_input_three_ways(rows, prior):
    """ragged=True, NaN padding with missing=np.nan, a mask, a masked array and a -1 marker agree."""
    M, N = len(rows), max(map(len, rows))
    pad = np.full((M, N), np.nan)
    for i, r in enumerate(rows):
        pad[i, : len(r)] = r
    mask = np.isnan(pad)
    zero_filled = np.where(mask, 0, pad).astype(np.int64)
    ways = [
        to_counts(rows, ragged=True),
        to_counts(pad, missing=np.nan),
        to_counts(zero_filled, mask=mask),
        to_counts(pad, mask=mask),
        to_counts(np.ma.masked_array(zero_filled, mask=mask)),
        to_counts(np.where(mask, -1, zero_filled), missing=-1),
    ]
    expect = np.array([[len(r) - sum(r), sum(r)] for r in rows])
    for c in ways:
        np.testing.assert_array_equal(c.table, expect)
        np.testing.assert_array_equal(c.n, [len(r) for r in rows])
        assert c.ragged == (len(set(map(len, rows))) > 1)
    a0, b0 = prior
    kmin = min(map(len, rows))
    ref = [B.pass_at_k(ways[0], kmin), B.pass_at_k_ci(ways[0], N + 1, alpha0=a0, beta0=b0),
           B.bayes_ci(ways[0]), B.avg_ci(ways[0]), B.max_at_k_ci(ways[0], 2)]
    for c in ways[1:]:
        got = [B.pass_at_k(c, kmin), B.pass_at_k_ci(c, N + 1, alpha0=a0, beta0=b0),
               B.bayes_ci(c), B.avg_ci(c), B.max_at_k_ci(c, 2)]
        for g, r in zip(got, ref):
            assert_allclose(g, r, **TOL)
    # a ragged question is scored on its own n: equal to the mean of one-question results
    per_q = [B.pass_at_k([r], 1) for r in rows]
    assert_allclose(B.pass_at_k(ways[0], 1), np.mean(per_q), **TOL)


@profile(40)
@given(binary_case(), st.sampled_from(["str", "int", "tuple"]))
def test_dataframe_input_equals_ndarray_and_keeps_index(case, index_kind):
    R, k = case
    M = R.shape[0]
    index = {"str": [f"q{i}" for i in range(M)], "int": list(range(100, 100 + M)),
             "tuple": pd.MultiIndex.from_tuples([("a", i) for i in range(M)])}[index_kind]
    df = pd.DataFrame(R, index=index, columns=[f"t{j}" for j in range(R.shape[1])])
    c = to_counts(df)
    same_counts(c, to_counts(R))
    assert list(c.ids) == list(df.index)
    assert_dicts_close(point_values(df, k), point_values(R, k))
    assert_dicts_close(ci_values(df, k), ci_values(R, k))
    # bool and nullable-with-NaN frames
    same_counts(to_counts(df.astype(bool)), to_counts(R))
    if R.shape[1] > 1:
        dfn = df.astype(float)
        dfn.iloc[0, 0] = np.nan
        cn = to_counts(dfn, missing=np.nan)
        assert cn.n[0] == R.shape[1] - 1 and list(cn.ids) == list(df.index)


@profile(40)
@given(binary_case())
def test_counts_input_equals_array_input(case):
    R, k = case
    c = to_counts(R)
    assert_dicts_close(point_values(c, k), point_values(R, k))
    assert_dicts_close(ci_values(c, k), ci_values(R, k))
    same_counts(Counts.from_table(c.table), c)
    assert_dicts_close(point_values(Counts.from_table(c.table), k), point_values(R, k))


# ----------------------------------------------------------------------------- inputs are not modified
def _all_calls(R, w, R0, weights, c, k, bounds):
    """One call of every public function, with every array argument passed in."""
    Rb = R.astype(bool) if R.max() <= 1 else (R >= 1)
    return [
        lambda: B.pass_at_k(Rb, k), lambda: B.pass_hat_k(Rb, k), lambda: B.unanimous_at_k(Rb, k),
        lambda: B.g_pass_at_k(Rb, k), lambda: B.g_pass_at_k_tau(Rb, k, 0.5), lambda: B.mg_pass_at_k(Rb, k),
        lambda: B.maj_at_k(Rb, k), lambda: B.auc_at_k(Rb, k), lambda: B.max_at_k(R, k, w),
        lambda: B.threshold_spectrum_at_k(Rb, k, weights), lambda: B.geom_at_k(Rb, k),
        lambda: B.geom_ds_at_k(Rb, k), lambda: B.geo_spectrum_at_k(Rb, k, 0.5, weights),
        lambda: B.geo_spectrum_star_at_k(Rb, k), lambda: B.bernstein_at_k(Rb, c),
        lambda: B.pass_at_k_ci(Rb, k, bounds=bounds), lambda: B.pass_hat_k_ci(Rb, k, bounds=bounds),
        lambda: B.unanimous_at_k_ci(Rb, k), lambda: B.g_pass_at_k_ci(Rb, k),
        lambda: B.g_pass_at_k_tau_ci(Rb, k, 0.5), lambda: B.mg_pass_at_k_ci(Rb, k),
        lambda: B.maj_at_k_ci(Rb, k), lambda: B.auc_at_k_ci(Rb, k),
        lambda: B.max_at_k_ci(R, k, w, R0, bounds=bounds),
        lambda: B.threshold_spectrum_at_k_ci(Rb, k, weights, bounds=bounds),
        lambda: B.geom_at_k_ci(Rb, k), lambda: B.geom_ds_at_k_ci(Rb, k),
        lambda: B.geo_spectrum_at_k_ci(Rb, k, 0.5, weights), lambda: B.geo_spectrum_star_at_k_ci(Rb, k),
        lambda: B.bernstein_at_k_ci(Rb, c, bounds=bounds),
        lambda: B.bayes(R, w, R0), lambda: B.bayes_ci(R, w, R0, bounds=bounds),
        lambda: B.avg(R, w), lambda: B.avg_ci(R, w, bounds=bounds),
        lambda: B.to_counts(R, w), lambda: B.Counts.from_table(B.to_counts(R).table),
    ], Rb


@pytest.mark.parametrize("readonly", [False, True], ids=["writeable", "read-only"])
@pytest.mark.parametrize("seed", range(4))
def test_functions_leave_inputs_unmodified(readonly, seed):
    rng = np.random.default_rng(seed)
    M, N, C = 5, 7, 3
    R = rng.integers(0, C + 1, size=(M, N))
    w = rng.normal(size=C + 1)
    R0 = rng.integers(0, C + 1, size=(M, 2))
    k = int(rng.integers(1, N + 1))
    weights = spectrum_weights(k, seed)
    c = rng.uniform(size=k + 1)
    bounds = np.array([-0.5, 1.5])
    args = [R, w, R0, weights, c, bounds]
    calls, Rb = _all_calls(R, w, R0, weights, c, k, bounds)
    args.append(Rb)
    if readonly:
        for a in args:
            a.setflags(write=False)
    before = [a.copy() for a in args]
    flags = [a.flags.writeable for a in args]
    for call in calls:
        call()
    for a, b, f in zip(args, before, flags):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype and a.flags.writeable == f


def test_to_counts_leaves_inputs_unmodified():
    R = np.array([[0.0, 1.0, np.nan], [1.0, np.nan, np.nan]])
    mask = np.isnan(R)
    ids = np.array(["a", "b"])
    lists = [[0, 1, 1], [1]]
    ma = np.ma.masked_array(np.nan_to_num(R), mask=mask)
    df = pd.DataFrame(np.nan_to_num(R), index=["x", "y"])
    for a in (R, mask, ids):
        a.setflags(write=False)
    copies = [R.copy(), mask.copy(), ids.copy(), [r[:] for r in lists], ma.copy(), df.copy()]
    to_counts(R, missing=np.nan, ids=ids)
    to_counts(np.nan_to_num(R), mask=mask)
    to_counts(R, mask=mask)
    to_counts(lists, ragged=True)
    to_counts(ma)
    to_counts(df, mask=mask)
    B.pass_at_k_ci(to_counts(R, missing=np.nan), 2)
    np.testing.assert_array_equal(R, copies[0])
    np.testing.assert_array_equal(mask, copies[1])
    np.testing.assert_array_equal(ids, copies[2])
    assert lists == copies[3]
    np.testing.assert_array_equal(ma.mask, copies[4].mask)
    np.testing.assert_array_equal(ma.data, copies[4].data)
    pd.testing.assert_frame_equal(df, copies[5])


def test_counts_are_read_only_and_independent_of_the_input():
    R = np.array([[0, 1, 1], [1, 1, 0]])
    c = to_counts(R)
    R[0, 0] = 1  # mutating the input afterwards does not change the counts
    np.testing.assert_array_equal(c.table, [[1, 2], [1, 2]])
    with pytest.raises(ValueError):
        c.table[0, 0] = 5
    with pytest.raises(ValueError):
        c.n[0] = 5
