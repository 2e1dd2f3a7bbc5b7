"""Differential tests: bayeseval against the reference implementation ``scorio.eval`` (0.2.3).

bayeseval claims to be a drop-in for ``scorio.eval``: same names, argument
names, defaults and return shapes, and the same numbers to 1e-9 wherever
scorio accepts the input.  Every test here feeds the *same* input to both
libraries (seeded random matrices, plus a Hypothesis-driven part with a
derandomised, database-free profile) and compares with
``assert_allclose(rtol=1e-9, atol=1e-12)``.

The deliberate differences (reference.py module docstring) get their own
small tests at the end: default clipping of ``bayes_ci`` / ``avg_ci`` /
``max_at_k_ci`` (k = 1) / ``bernstein_at_k_ci``; ``*_ci`` posteriors that
accept ``k > N``; ``w`` of the wrong length; ragged rows.

``bernstein_at_k`` has no public scorio counterpart; it is compared with
scorio's internal ``CountScore`` / ``posterior_moments`` (pinned 0.2.3).
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose
from scipy.special import betaln

import bayeseval as B
from bayeseval import Counts, to_counts
from scorio import eval as S
from scorio.eval._count_score import CountScore
from scorio.eval._inputs import prepare_binary_bank
from scorio.eval._posterior import posterior_moments
from scorio.eval.utils import normal_credible_interval

RTOL, ATOL = 1e-9, 1e-12
INF = math.inf

HYP = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

BINARY_K_FUNCS = [
    "pass_at_k", "pass_hat_k", "unanimous_at_k", "g_pass_at_k", "mg_pass_at_k",
    "maj_at_k", "auc_at_k", "geo_spectrum_star_at_k",
]
POINT_K_FUNCS = BINARY_K_FUNCS + ["max_at_k", "geom_at_k", "geom_ds_at_k", "geo_spectrum_at_k"]


# ----------------------------------------------------------------------------- helpers
def assert_same(ours, ref, what: str = "") -> None:
    """Same shape and type family as scorio, finite, and equal to 1e-9."""
    if isinstance(ref, tuple):
        assert isinstance(ours, tuple), f"{what}: expected a tuple, got {type(ours).__name__}"
        assert len(ours) == len(ref), what
        assert all(isinstance(x, float) for x in ours), f"{what}: non-float entry in {ours!r}"
    else:
        assert isinstance(ours, float), f"{what}: expected a float, got {type(ours).__name__}"
    a = np.atleast_1d(np.asarray(ours, dtype=float))
    b = np.atleast_1d(np.asarray(ref, dtype=float))
    assert np.all(np.isfinite(a)), f"{what}: non-finite result {ours!r}"
    assert_allclose(a, b, rtol=RTOL, atol=ATOL, err_msg=what)


def both(fname: str, *args, **kw):
    """Call ``fname`` in both libraries on the same arguments and compare."""
    ref = getattr(S, fname)(*args, **kw)
    ours = getattr(B, fname)(*args, **kw)
    assert_same(ours, ref, f"{fname} args={_short(args)} kw={kw}")
    return ours, ref


def _short(args) -> str:
    text = repr(args)
    return text if len(text) < 400 else text[:400] + "..."


def binary_matrix(rng: np.random.Generator, M: int, N: int) -> np.ndarray:
    """Rows with varied success probability, including all-0 and all-1 rows."""
    p = rng.uniform(size=M)
    u = rng.uniform(size=M)
    p[u < 0.15] = 0.0
    p[u > 0.85] = 1.0
    near = (u >= 0.15) & (u < 0.3)
    p[near] = rng.choice([0.02, 0.98], size=int(near.sum()))
    return (rng.uniform(size=(M, N)) < p[:, None]).astype(np.int64)


def as_variant(R: np.ndarray, variant: str):
    """The same outcomes in another accepted container / dtype."""
    if variant == "int":
        return R
    if variant == "bool":
        return R.astype(bool)
    if variant == "float":
        return R.astype(np.float64)
    if variant == "int8":
        return R.astype(np.int8)
    if variant == "uint8":
        return R.astype(np.uint8)
    if variant == "list":
        return R.tolist()
    raise AssertionError(variant)


def spectrum_weights(rng: np.random.Generator, k: int) -> np.ndarray:
    """Non-negative weights of length k, sum <= 1 (some zeros, sometimes exactly a unit vector)."""
    kind = rng.integers(4)
    if kind == 0:
        w = np.zeros(k)
        w[rng.integers(k)] = 1.0
        return w
    w = rng.dirichlet(np.ones(k))
    if kind == 1:
        w[rng.uniform(size=k) < 0.4] = 0.0
    return w * rng.uniform(0.3, 0.999)


def tau_values(rng: np.random.Generator, k: int) -> list[float]:
    """tau at 0, 1, random, and exactly on the j/k boundaries (and just above one)."""
    j = int(rng.integers(0, k + 1))
    taus = [0.0, 1.0, float(rng.uniform()), j / k]
    if 0 < j < k:
        taus.append(float(np.nextafter(j / k, 1.0)))
    return taus


def ci_kwargs(rng: np.random.Generator) -> dict:
    """Random confidence and bounds (or the default bounds)."""
    kw = {"confidence": float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, rng.uniform(0.05, 0.999)]))}
    choice = int(rng.integers(4))
    if choice == 1:
        kw["bounds"] = None
    elif choice == 2:
        kw["bounds"] = (-INF, INF)
    elif choice == 3:
        lo = float(rng.uniform(0, 0.5))
        kw["bounds"] = (lo, lo + float(rng.uniform(0.05, 0.5)))
    return kw


def check_binary_surface(R, N: int, rng: np.random.Generator, also=()) -> None:
    """Every binary function of the surface on ``R`` (and on each extra input in ``also``)."""
    k = int(rng.integers(1, N + 1))
    a0, b0 = (float(x) for x in rng.uniform(0.1, 5.0, size=2))
    prior = {"alpha0": a0, "beta0": b0}
    ckw = ci_kwargs(rng)
    weights = spectrum_weights(rng, k)
    lam = float(rng.choice([0.0, 0.25, 0.5, 1.0]))
    powers = [(0.5, 0.5), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0), (0.25, 2.0)]
    pp, up = powers[int(rng.integers(len(powers)))]

    calls: list[tuple[str, tuple, dict]] = []
    for f in BINARY_K_FUNCS:
        calls.append((f, (R, k), {}))
        calls.append((f + "_ci", (R, k), {**prior, **ckw}))
    calls.append(("pass_at_k_ci", (R, k), {}))  # all defaults
    for tau in tau_values(rng, k):
        calls.append(("g_pass_at_k_tau", (R, k, tau), {}))
        calls.append(("g_pass_at_k_tau_ci", (R, k, tau), {**prior, **ckw}))
    calls += [
        ("max_at_k", (R, k), {}),
        ("max_at_k_ci", (R, max(k, 2)), {}),
        ("max_at_k_ci", (R, k), {"bounds": (0.0, 1.0), "confidence": ckw["confidence"]}),
        ("bayes", (R,), {}),
        ("bayes_ci", (R,), {"bounds": (0.0, 1.0), "confidence": ckw["confidence"]}),
        ("bayes_ci", (R,), {"bounds": (-INF, INF)}),
        ("avg", (R,), {}),
        ("avg_ci", (R,), {"bounds": (0.0, 1.0), "confidence": ckw["confidence"]}),
        ("threshold_spectrum_at_k", (R, k, weights), {}),
        ("threshold_spectrum_at_k_ci", (R, k, weights), {**prior, **ckw}),
        ("geom_at_k", (R, k, pp, up), {}),
        ("geom_at_k", (R, k), {}),
        ("geom_at_k_ci", (R, k, pp, up), {**prior, **ckw}),
        ("geom_ds_at_k", (R, k), {"pass_power": pp, "unanimous_power": up}),
        ("geom_ds_at_k_ci", (R, k, pp, up), {**prior, **ckw}),
        ("geo_spectrum_at_k", (R, k, lam, weights), {}),
        ("geo_spectrum_at_k", (R, k, lam), {}),
        ("geo_spectrum_at_k", (R, k), {"lambda_": lam}),
        ("geo_spectrum_at_k_ci", (R, k, lam, weights), {**prior, **ckw}),
        ("geo_spectrum_at_k_ci", (R, k), {"lambda_": lam, **prior}),
    ]
    for fname, args, kw in calls:
        ours, ref = both(fname, *args, **kw)
        for other in also:  # e.g. a Counts of the same outcomes
            assert_same(getattr(B, fname)(other, *args[1:], **kw), ref, f"{fname} on {type(other).__name__}")


# ----------------------------------------------------------------------------- the surface
SURFACE = list(S.__all__)  # every scorio.eval name, tailpass and tailpass_empirical included


@pytest.mark.parametrize("name", SURFACE)
def test_same_signature_as_scorio(name):
    """Same function names, argument names, kinds and defaults as scorio.eval."""
    assert name in B.__all__
    ref = inspect.signature(getattr(S, name))
    ours = inspect.signature(getattr(B, name))
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == [
        (p.name, p.kind, p.default) for p in ref.parameters.values()
    ]


def test_aliases_are_the_same_metric():
    rng = np.random.default_rng(7)
    R = binary_matrix(rng, 6, 9)
    for k in (1, 4, 9):
        assert B.unanimous_at_k(R, k) == B.pass_hat_k(R, k) == B.g_pass_at_k(R, k)
        assert B.unanimous_at_k_ci(R, k) == B.pass_hat_k_ci(R, k)
        assert_same(B.g_pass_at_k_ci(R, k), S.g_pass_at_k_ci(R, k))


# ----------------------------------------------------------------------------- seeded random: binary
VARIANTS = ["int", "bool", "float", "int8", "uint8", "list"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(48))
def test_binary_random_matrices(seed):
    rng = np.random.default_rng(1000 + seed)
    M = int(rng.integers(1, 9))
    N = int(rng.integers(1, 26))
    R = binary_matrix(rng, M, N)
    variant = VARIANTS[seed % len(VARIANTS)]
    check_binary_surface(as_variant(R, variant), N, rng, also=(to_counts(R),))


@pytest.mark.parametrize("seed", range(8))
def test_single_question_as_1d_array(seed):
    """A 1-D R is one question, in both libraries; equal to the (1, N) matrix."""
    rng = np.random.default_rng(2000 + seed)
    N = int(rng.integers(1, 20))
    R = binary_matrix(rng, 1, N)
    row = R[0] if seed % 2 else R[0].astype(bool)
    check_binary_surface(row, N, rng, also=(R, to_counts(row)))


@pytest.mark.parametrize("M,N", [(1, 1), (3, 1), (1, 2), (5, 5), (2, 12)])
@pytest.mark.parametrize("fill", [0, 1])
def test_constant_matrices(M, N, fill):
    """All-zero and all-one matrices: every metric at its boundary, like scorio."""
    rng = np.random.default_rng(M * 100 + N * 10 + fill)
    R = np.full((M, N), fill, dtype=np.int64)
    for k in sorted({1, N}):
        for f in BINARY_K_FUNCS + ["max_at_k"]:
            both(f, R, k)
            both(f + "_ci", R, max(k, 2) if f == "max_at_k" else k)
        both("g_pass_at_k_tau", R, k, 0.5)
        both("g_pass_at_k_tau_ci", R, k, 0.5)
    check_binary_surface(R, N, rng)


# ----------------------------------------------------------------------------- seeded random: categorical
def categorical_case(rng: np.random.Generator):
    M = int(rng.integers(1, 8))
    N = int(rng.integers(1, 16))
    C = int(rng.integers(1, 5))
    R = rng.integers(0, C + 1, size=(M, N))
    if rng.uniform() < 0.3:  # one question stuck in a single category
        R[rng.integers(M)] = rng.integers(0, C + 1)
    extra = int(rng.integers(0, 2)) if rng.uniform() < 0.3 else 0  # w longer than the categories used
    w = rng.normal(scale=2.0, size=C + 1 + extra)
    if rng.uniform() < 0.4:  # repeated weights (grouped levels in max@k)
        i, j = rng.choice(C + 1 + extra, size=2, replace=False)
        w[i] = w[j]
    if np.ptp(w) == 0:
        w[0] += 1.0
    D = int(rng.integers(0, 4))
    R0 = None if rng.uniform() < 0.3 else rng.integers(0, C + 1, size=(M, D))
    return R, w, R0, N


@pytest.mark.parametrize("seed", range(48))
def test_categorical_random_matrices(seed):
    rng = np.random.default_rng(3000 + seed)
    R, w, R0, N = categorical_case(rng)
    conf = float(rng.uniform(0.5, 0.99))
    span = (float(w.min()), float(w.max()))
    w_in = [w, w.tolist(), tuple(w)][seed % 3]
    R_in = [R, R.astype(np.float64), R.tolist(), R.astype(np.int16)][seed % 4]
    counts = to_counts(R)
    for ours_R in (R_in, counts):  # the same input for both, then bayeseval on a Counts

        def call(fname, *args, **kw):
            ref = getattr(S, fname)(R_in, *args, **kw)
            assert_same(getattr(B, fname)(ours_R, *args, **kw), ref, f"{fname} {type(ours_R).__name__} {args} {kw}")

        call("bayes", w_in, R0)
        call("bayes", w_in)
        call("bayes_ci", w_in, R0, conf, span)
        call("bayes_ci", w_in, R0, bounds=(-INF, INF))
        call("avg", w_in)
        call("avg_ci", w_in, conf, span)
        for k in sorted({1, int(rng.integers(1, N + 1)), N}):
            call("max_at_k", k, w_in)
            call("max_at_k_ci", k, w_in, R0, conf, span)
            if k > 1:
                call("max_at_k_ci", k, w_in, R0, conf)  # default bounds: scorio clips to [min w, max w] too
        # the posterior target is defined for any k: scorio accepts k > N here
        big = N + int(rng.integers(1, 3 * N + 2))
        call("max_at_k_ci", big, w_in, R0)


def test_categorical_prior_outcome_containers():
    """R0 as a list, float array, bool array or (M, 0) array gives scorio's numbers."""
    R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    w = np.array([0.0, 0.5, 1.0])
    for R0 in ([[0, 2], [1, 2]], np.array([[0.0, 2.0], [1.0, 2.0]]), np.zeros((2, 0), int),
               np.array([[True], [False]])):
        both("bayes", R, w, R0)
        both("bayes_ci", R, w, R0, 0.9, (0.0, 1.0))
        both("max_at_k_ci", R, 3, w, R0)


def test_binary_prior_outcomes():
    rng = np.random.default_rng(11)
    R = binary_matrix(rng, 5, 7)
    R0 = binary_matrix(rng, 5, 3)
    both("bayes", R, None, R0)
    both("bayes", R, np.array([0.0, 1.0]), R0)
    both("bayes_ci", R, None, R0, 0.95, (0.0, 1.0))
    both("max_at_k_ci", R, 3, None, R0)


# ----------------------------------------------------------------------------- bernstein_at_k
def _scorio_custom(R, c):
    """scorio's internal bank and count score for the payoff vector c (degree len(c) - 1)."""
    bank = prepare_binary_bank(R)
    score = CountScore(len(c) - 1, np.asarray(c, dtype=float))
    return bank, score


@pytest.mark.parametrize("seed", range(16))
def test_bernstein_user_metric(seed):
    rng = np.random.default_rng(4000 + seed)
    M, N = int(rng.integers(1, 7)), int(rng.integers(1, 16))
    R = binary_matrix(rng, M, N)
    k = int(rng.integers(1, N + 1))
    c = rng.normal(size=k + 1)
    if seed % 4 == 0:
        c = np.r_[0.0, np.ones(k)]  # pass@k
        assert_same(B.bernstein_at_k(R, c), S.pass_at_k(R, k))
    a0, b0 = (float(x) for x in rng.uniform(0.1, 5.0, size=2))
    bank, score = _scorio_custom(R, c)
    assert_same(B.bernstein_at_k(R, c), score.mean(bank), "bernstein_at_k")
    ref = posterior_moments(bank, score, alpha0=a0, beta0=b0)
    sigma = math.sqrt(ref.variance)
    lo, hi = normal_credible_interval(ref.mean, sigma, 0.9, bounds=(float(c.min()), float(c.max())))
    assert_same(B.bernstein_at_k_ci(R, c, confidence=0.9, alpha0=a0, beta0=b0), (ref.mean, sigma, lo, hi))
    # latent k > N: the posterior is still defined
    big = np.r_[c, rng.normal(size=3)]
    bank, score = _scorio_custom(R, big)
    ref = posterior_moments(bank, score, alpha0=a0, beta0=b0)
    assert_same(B.bernstein_at_k_ci(R, big, alpha0=a0, beta0=b0)[:2], (ref.mean, math.sqrt(ref.variance)))


def test_bernstein_spectrum_equals_threshold_spectrum():
    rng = np.random.default_rng(12)
    R = binary_matrix(rng, 6, 10)
    for k in (1, 3, 10):
        wts = spectrum_weights(rng, k)
        c = np.r_[0.0, np.cumsum(wts)]
        assert_same(B.bernstein_at_k(R, c), S.threshold_spectrum_at_k(R, k, wts))
        assert_same(B.bernstein_at_k_ci(R, c, bounds=(0.0, 1.0)), S.threshold_spectrum_at_k_ci(R, k, wts))


# ----------------------------------------------------------------------------- hypothesis
@st.composite
def binary_cases(draw):
    M = draw(st.integers(1, 6))
    N = draw(st.integers(1, 14))
    R = draw(arrays(np.int8, (M, N), elements=st.integers(0, 1)))
    k = draw(st.integers(1, N))
    a0 = draw(st.floats(0.1, 5.0))
    b0 = draw(st.floats(0.1, 5.0))
    j = draw(st.integers(0, k))
    tau = draw(st.sampled_from([0.0, 1.0, j / k, 0.5]) | st.floats(0.0, 1.0))
    dtype = draw(st.sampled_from([np.int8, np.int64, bool, np.float64]))
    return R.astype(dtype), k, a0, b0, tau


@HYP
@given(binary_cases())
def test_hypothesis_binary(case):
    R, k, a0, b0, tau = case
    prior = {"alpha0": a0, "beta0": b0}
    for f in BINARY_K_FUNCS:
        both(f, R, k)
        both(f + "_ci", R, k, **prior)
    both("g_pass_at_k_tau", R, k, tau)
    both("g_pass_at_k_tau_ci", R, k, tau, **prior)
    both("geom_at_k_ci", R, k, **prior)
    both("geom_ds_at_k_ci", R, k, **prior)
    both("max_at_k", R, k)
    both("bayes", R)
    both("avg", R)


@st.composite
def categorical_cases(draw):
    M = draw(st.integers(1, 5))
    N = draw(st.integers(1, 10))
    C = draw(st.integers(1, 4))
    R = draw(arrays(np.int64, (M, N), elements=st.integers(0, C)))
    w = draw(arrays(np.float64, (C + 1,), elements=st.floats(-10, 10, allow_nan=False)))
    if np.ptp(w) == 0:
        w = w + np.arange(C + 1)
    D = draw(st.integers(0, 3))
    R0 = draw(arrays(np.int64, (M, D), elements=st.integers(0, C)))
    k = draw(st.integers(1, N + 3))
    return R, w, R0, k


@HYP
@given(categorical_cases())
def test_hypothesis_categorical(case):
    R, w, R0, k = case
    span = (float(w.min()), float(w.max()))
    both("bayes", R, w, R0)
    both("bayes_ci", R, w, R0, 0.95, span)
    both("avg", R, w)
    both("avg_ci", R, w, 0.95, span)
    if k <= R.shape[1]:
        both("max_at_k", R, k, w)
    both("max_at_k_ci", R, k, w, R0, 0.95, span)


# ----------------------------------------------------------------------------- where scorio is inexact
def _exact_posterior(R, c, alpha0, beta0):
    """Posterior mean and variance of mean_i g(p_i) in exact rational arithmetic (Fractions)."""
    from fractions import Fraction as F

    def rising(x, n):
        out = F(1)
        for i in range(n):
            out *= x + i
        return out

    def betabin(K, a, b):
        den = rising(a + b, K)
        return [math.comb(K, j) * rising(a, j) * rising(b, K - j) / den for j in range(K + 1)]

    c = [F(x) for x in c]
    k = len(c) - 1
    c2 = [sum(F(math.comb(k, i) * math.comb(k, m - i), math.comb(2 * k, m)) * c[i] * c[m - i]
              for i in range(max(0, m - k), min(k, m) + 1)) for m in range(2 * k + 1)]
    R = np.atleast_2d(R)
    M, N = R.shape
    means, variances = [], []
    for s in R.sum(axis=1).tolist():
        a, b = F(alpha0) + s, F(beta0) + N - s
        m1 = sum(x * p for x, p in zip(c, betabin(k, a, b)))
        m2 = sum(x * p for x, p in zip(c2, betabin(2 * k, a, b)))
        means.append(m1)
        variances.append(m2 - m1 * m1)
    return float(sum(means) / M), math.sqrt(float(sum(variances) / M**2))


@pytest.mark.parametrize("R", [np.ones((2, 40), int), np.r_[np.zeros((2, 41), int), np.ones((3, 41), int)]],
                         ids=["ones-2x40", "zeros-and-ones-5x41"])
def test_tiny_posterior_sd_is_exact_where_scorio_loses_digits(R):
    """maj@40 with a nearly certain outcome: sd ~1e-5; bayeseval matches exact arithmetic to 1e-12
    relative (scorio 0.2.3 is off by ~5e-7 relative here, so this is not a scorio comparison)."""
    k = R.shape[1] - (R.shape[1] % 2)
    c = [0.0] * (k // 2 + 1) + [1.0] * (k - k // 2)
    mu, sd = _exact_posterior(R, c, 1.234, 0.715)
    ours = B.maj_at_k_ci(R, k, alpha0=1.234, beta0=0.715)
    assert_allclose(ours[:2], [mu, sd], rtol=1e-12, atol=0)
    ref = S.maj_at_k_ci(R, k, alpha0=1.234, beta0=0.715)
    assert_allclose(ours[:2], ref[:2], rtol=1e-5, atol=0)  # the reference agrees to its own accuracy


PRIOR_METRICS = [
    ("pass_at_k_ci", [0.0, 1.0, 1.0, 1.0]),
    ("pass_hat_k_ci", [0.0, 0.0, 0.0, 1.0]),
    ("maj_at_k_ci", [0.0, 0.0, 1.0, 1.0]),
    ("mg_pass_at_k_ci", [0.0, 0.0, 0.0, 2.0 / 3.0]),
]


@pytest.mark.parametrize("a0,b0", [(1e2, 1e2), (1e4, 1e4), (1e6, 1e6), (1e6, 1.0), (0.5, 1e8), (1e10, 1e10),
                                   (1e15, 1e15)])
def test_strong_beta_prior(a0, b0):
    """(1e15: the mean is exact; the sd, about 5e-9, would need E[g^2] - E[g]^2 to 1e-17 relative,
    beyond double precision in any basis that sums beta-binomial terms, so only the mean is checked.)"""
    """Large (valid) prior pseudo-counts: posterior mean and sd equal exact rational arithmetic.
    Up to 1e4 scorio agrees with the exact values to < 1e-9, so it is compared too (at alpha0=1e6,
    beta0=1 its mG-Pass sd is off by 9e-7 relative while bayeseval matches exact arithmetic)."""
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1], [0, 0, 0, 0, 0]])
    for fname, c in PRIOR_METRICS:
        mu, sd = _exact_posterior(R, c, a0, b0)
        ours = getattr(B, fname)(R, 3, alpha0=a0, beta0=b0)
        assert_allclose(ours[0], mu, rtol=1e-9, atol=1e-15, err_msg=f"{fname} mean")
        if max(a0, b0) <= 1e10:
            assert_allclose(ours[1], sd, rtol=1e-6, atol=1e-15, err_msg=f"{fname} sd")
        if max(a0, b0) <= 1e6:
            assert_allclose(ours[:2], [mu, sd], rtol=1e-9, atol=1e-15, err_msg=fname)
        if max(a0, b0) <= 1e4:
            assert_same(ours, getattr(S, fname)(R, 3, alpha0=a0, beta0=b0), fname)


@pytest.mark.parametrize("N", [1000, 20000])
def test_many_trials_per_question(N):
    """Thousands of trials per question: same posterior as scorio and as exact arithmetic."""
    R = np.zeros((2, N), dtype=np.int8)
    R[0, : N // 2] = 1
    R[1, : N // 10] = 1
    for fname, c in PRIOR_METRICS:
        mu, sd = _exact_posterior(R, c, 1.0, 1.0)
        ours = getattr(B, fname)(R, 3)
        assert_allclose(ours[:2], [mu, sd], rtol=1e-9, atol=1e-15, err_msg=fname)
        assert_same(ours, getattr(S, fname)(R, 3), fname)


# ----------------------------------------------------------------------------- where scorio refuses
@pytest.mark.parametrize("fname", POINT_K_FUNCS)
def test_point_estimates_refuse_k_above_N(fname):
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    for k in (6, 50):
        with pytest.raises(ValueError):
            getattr(S, fname)(R, k)
        with pytest.raises(ValueError, match=r"\bk\b"):
            getattr(B, fname)(R, k)
    for k in (0, -1):
        with pytest.raises(ValueError):
            getattr(S, fname)(R, k)
        with pytest.raises(ValueError, match=r"\bk\b"):
            getattr(B, fname)(R, k)


@pytest.mark.parametrize("fname,extra", [
    ("g_pass_at_k_tau", (0.5,)),
    ("threshold_spectrum_at_k", ([0.2, 0.3, 0.1, 0.1, 0.1, 0.1],)),
])
def test_parametrised_point_estimates_refuse_k_above_N(fname, extra):
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    with pytest.raises(ValueError):
        getattr(S, fname)(R, 6, *extra)
    with pytest.raises(ValueError, match=r"\bk\b"):
        getattr(B, fname)(R, 6, *extra)


def test_bernstein_point_refuses_degree_above_N():
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"\bk\b"):
        B.bernstein_at_k(R, np.ones(7))


@pytest.mark.parametrize("R", [
    np.array([[0, 1, 2]]),                      # categorical for a binary metric
    np.array([[0.0, 0.5, 1.0]]),                # non-integer
    np.array([[0.0, np.nan, 1.0]]),             # NaN
    np.array([[0, -1, 1]]),                     # negative
    np.zeros((0, 3), int),                      # no questions
    np.zeros((2, 0), int),                      # no trials
    np.zeros((2, 2, 2), int),                   # 3-D
    np.array([[0, 1j]]),                        # complex
])
def test_both_refuse_invalid_R(R):
    for fname in ("pass_at_k", "pass_at_k_ci", "maj_at_k", "bayes", "avg"):
        args = (R,) if fname in ("bayes", "avg") else (R, 1)
        with pytest.raises(ValueError):
            getattr(S, fname)(*args)
        with pytest.raises(ValueError, match=r"\bR\b"):
            getattr(B, fname)(*args)


# ----------------------------------------------------------------------------- deliberate differences
def test_difference_bayes_ci_default_bounds_clip_to_weight_range():
    """bounds=None: scorio does not clip bayes_ci/avg_ci; bayeseval clips to [min w, max w]."""
    R = np.array([[1, 1, 1]])
    ref = S.bayes_ci(R)
    ours = B.bayes_ci(R)
    assert ref[3] > 1.0  # scorio leaves the interval unclipped
    assert_allclose(ours[:2], ref[:2], rtol=RTOL, atol=ATOL)
    assert ours[3] == 1.0 and 0.0 <= ours[2] <= 1.0
    assert_same(B.bayes_ci(R, bounds=(-INF, INF)), ref)
    # categorical, w spanning [-1, 2]
    Rc = np.array([[2, 2]])
    w = np.array([-1.0, 0.5, 2.0])
    ref = S.bayes_ci(Rc, w, confidence=0.999)
    ours = B.bayes_ci(Rc, w, confidence=0.999)
    assert ref[2] < -1.0 or ref[3] > 2.0
    assert_allclose(ours[:2], ref[:2], rtol=RTOL, atol=ATOL)
    assert -1.0 <= ours[2] <= ours[3] <= 2.0
    assert_same(B.bayes_ci(Rc, w, confidence=0.999, bounds=(-INF, INF)), ref)


def test_difference_avg_ci_default_bounds_clip_to_weight_range():
    R = np.array([[1, 1, 1], [1, 1, 0]])
    ref = S.avg_ci(R)
    ours = B.avg_ci(R)
    assert ref[3] > 1.0
    assert_allclose(ours[:2], ref[:2], rtol=RTOL, atol=ATOL)
    assert ours[3] == 1.0
    assert_same(B.avg_ci(R, bounds=(-INF, INF)), ref)
    Rc = np.array([[0, 0, 0], [0, 0, 1]])
    w = [-3.0, 1.0]
    ref = S.avg_ci(Rc, w)
    ours = B.avg_ci(Rc, w)
    assert ref[2] < -3.0
    assert ours[2] == -3.0
    assert_same(B.avg_ci(Rc, w, bounds=(-INF, INF)), ref)


def test_difference_max_at_k_ci_k1_default_bounds():
    """scorio's max_at_k_ci(k=1) delegates to its unclipped bayes_ci; bayeseval clips like k > 1."""
    R = np.array([[2]])
    w = np.array([0.0, 0.5, 1.0])
    ref = S.max_at_k_ci(R, 1, w, confidence=0.999)
    ours = B.max_at_k_ci(R, 1, w, confidence=0.999)
    assert ref[3] > 1.0
    assert_allclose(ours[:2], ref[:2], rtol=RTOL, atol=ATOL)
    assert ours[3] == 1.0
    assert_allclose(ours, B.bayes_ci(R, w, confidence=0.999), rtol=1e-12, atol=0)
    assert_same(B.max_at_k_ci(R, 1, w, confidence=0.999, bounds=(-INF, INF)), ref)


def test_difference_bernstein_ci_default_bounds_are_payoff_range():
    R = np.array([[1, 1], [1, 1]])
    c = np.array([0.0, 0.5, 3.0])
    mu, sigma, lo, hi = B.bernstein_at_k_ci(R, c, confidence=0.999)
    bank, score = _scorio_custom(R, c)
    ref = posterior_moments(bank, score)
    assert_allclose([mu, sigma], [ref.mean, math.sqrt(ref.variance)], rtol=RTOL, atol=ATOL)
    assert mu + 3.29 * sigma > 3.0  # would leave [min c, max c] without clipping
    assert hi == 3.0 and 0.0 <= lo <= hi


CI_LATENT = ["pass_at_k_ci", "pass_hat_k_ci", "unanimous_at_k_ci", "g_pass_at_k_ci", "mg_pass_at_k_ci",
             "maj_at_k_ci", "auc_at_k_ci", "geo_spectrum_star_at_k_ci", "geom_at_k_ci", "geom_ds_at_k_ci",
             "geo_spectrum_at_k_ci", "max_at_k_ci"]


@pytest.mark.parametrize("fname", CI_LATENT)
def test_difference_ci_accepts_k_above_N(fname):
    """bayeseval's *_ci posteriors accept any k >= 1; compare with scorio where it also does."""
    rng = np.random.default_rng(5)
    R = binary_matrix(rng, 4, 3)
    for k in (4, 9, 25):
        ours = getattr(B, fname)(R, k)
        mu, sigma, lo, hi = ours
        assert all(map(math.isfinite, ours)) and sigma >= 0 and 0 <= lo <= mu <= hi <= 1
        try:
            ref = getattr(S, fname)(R, k)
        except ValueError:
            continue  # scorio refuses (finite-bank check); bayeseval's answer is checked below
        assert_same(ours, ref, f"{fname} k={k}")


def test_latent_pass_at_k_above_N_matches_closed_form():
    """E[1-(1-p)^k] = 1 - B(a, b+k)/B(a, b) and E[p^k] = B(a+k, b)/B(a, b) for k > N."""
    R = np.array([[0, 1, 1], [0, 0, 0], [1, 1, 1]])
    a0, b0 = 0.7, 2.5
    s = R.sum(1)
    a, b = a0 + s, b0 + 3 - s
    for k in (4, 10, 60):
        m1 = 1 - np.exp(betaln(a, b + k) - betaln(a, b))
        m2 = 1 - 2 * np.exp(betaln(a, b + k) - betaln(a, b)) + np.exp(betaln(a, b + 2 * k) - betaln(a, b))
        mu, sigma, *_ = B.pass_at_k_ci(R, k, alpha0=a0, beta0=b0)
        assert_allclose([mu, sigma], [m1.mean(), math.sqrt((m2 - m1**2).sum()) / 3], rtol=1e-9)
        u1 = np.exp(betaln(a + k, b) - betaln(a, b))
        u2 = np.exp(betaln(a + 2 * k, b) - betaln(a, b))
        mu, sigma, *_ = B.pass_hat_k_ci(R, k, alpha0=a0, beta0=b0)
        assert_allclose([mu, sigma], [u1.mean(), math.sqrt((u2 - u1**2).sum()) / 3], rtol=1e-9)


def test_difference_weight_vector_length():
    """Too short: both refuse.  Longer than the observed categories: both accept (same numbers),
    unless bayeseval was told the number of categories (then it refuses instead of truncating)."""
    Rc = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    for fname, args in (("bayes", ()), ("avg", ()), ("max_at_k", (2,)), ("max_at_k_ci", (2,))):
        f_s, f_b = getattr(S, fname), getattr(B, fname)
        with pytest.raises(ValueError):
            f_s(Rc, *args, w=[0.0, 1.0])
        with pytest.raises(ValueError, match=r"\bw\b"):
            f_b(Rc, *args, w=[0.0, 1.0])
        assert_same(f_b(Rc, *args, w=[0.0, 0.5, 1.0, 2.0]), f_s(Rc, *args, w=[0.0, 0.5, 1.0, 2.0]))
        with pytest.raises(ValueError, match=r"\bw\b"):
            f_b(to_counts(Rc, categories=3), *args, w=[0.0, 0.5, 1.0, 2.0])
        with pytest.raises(ValueError, match=r"\bw\b"):
            f_b(Counts.from_table([[2, 3], [1, 4]]), *args, w=[0.0, 0.5, 1.0])


def test_difference_ragged_rows():
    """scorio refuses ragged lists; bayeseval needs ragged=True and then averages per question."""
    rows = [[0, 1, 1, 0, 1], [1, 1], [0, 0, 0], [1, 1, 1, 1]]
    with pytest.raises(ValueError):
        S.pass_at_k(rows, 1)
    with pytest.raises(ValueError, match="ragged"):
        B.pass_at_k(rows, 1)
    C = to_counts(rows, ragged=True)
    M = len(rows)
    for k in (1, 2):
        ref = [S.pass_at_k([r], k) for r in rows]
        assert_allclose(B.pass_at_k(C, k), np.mean(ref), rtol=RTOL, atol=ATOL)
        ref = [S.maj_at_k([r], k) for r in rows]
        assert_allclose(B.maj_at_k(C, k), np.mean(ref), rtol=RTOL, atol=ATOL)
    for fname in ("pass_at_k_ci", "pass_hat_k_ci", "mg_pass_at_k_ci", "auc_at_k_ci"):
        ref = [getattr(S, fname)([r], 2, alpha0=0.5, beta0=2.0) for r in rows]
        mu, sigma, *_ = getattr(B, fname)(C, 2, alpha0=0.5, beta0=2.0)
        assert_allclose([mu, sigma], [np.mean([r[0] for r in ref]), math.sqrt(sum(r[1] ** 2 for r in ref)) / M],
                        rtol=RTOL, atol=ATOL)
    for fname in ("bayes", "avg"):
        ref = [getattr(S, fname)([r]) for r in rows]
        mu, sigma = getattr(B, fname)(C)
        assert_allclose([mu, sigma], [np.mean([r[0] for r in ref]), math.sqrt(sum(r[1] ** 2 for r in ref)) / M],
                        rtol=RTOL, atol=ATOL)
    ref = [S.max_at_k_ci([r], 3) for r in rows]
    mu, sigma, *_ = B.max_at_k_ci(C, 3)
    assert_allclose([mu, sigma], [np.mean([r[0] for r in ref]), math.sqrt(sum(r[1] ** 2 for r in ref)) / M],
                    rtol=RTOL, atol=ATOL)


# ----------------------------------------------------------------------------- scorio accepts, so must we
R_DEMO = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
RC_DEMO = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])


@pytest.mark.parametrize("fname,args,kw", [
    # degenerate (lo == hi) clipping bounds: scorio accepts bounds[0] <= bounds[1]
    ("bayes_ci", (R_DEMO,), {"bounds": (0.5, 0.5)}),
    ("pass_at_k_ci", (R_DEMO, 2), {"bounds": (0.5, 0.5)}),
    ("bayes_ci", (RC_DEMO, [0.3, 0.3, 0.3]), {"bounds": (0.3, 0.3)}),
    # a single category (w of length 1) when every outcome is 0
    ("bayes", (np.zeros((2, 3), int), [0.5]), {}),
], ids=["bayes_ci-bounds-lo==hi", "pass_at_k_ci-bounds-lo==hi", "const-w-bounds-lo==hi", "w-length-1"])
def test_inputs_scorio_accepts_give_scorio_numbers(fname, args, kw):
    """Not among the documented differences: wherever scorio accepts the input, agree with it."""
    both(fname, *args, **kw)


def test_documented_difference_flat_R0_is_refused():
    """scorio silently reshapes a 1-D R0 of M*D entries into rows; bayeseval asks for the (M, D) matrix."""
    flat = np.array([0, 2, 1, 2])
    S.bayes(RC_DEMO, [0.0, 0.5, 1.0], flat)  # accepted there
    with pytest.raises(ValueError, match="R0 must be 2-D with one row per question"):
        B.bayes(RC_DEMO, [0.0, 0.5, 1.0], flat)
    assert_same(B.bayes(RC_DEMO, [0.0, 0.5, 1.0], flat.reshape(2, 2)), S.bayes(RC_DEMO, [0.0, 0.5, 1.0], flat))
