"""Large k and N (up to 5000): finite and correct values.

* point estimates at N = 5000 against exact rational arithmetic (``math.comb``,
  ``fractions.Fraction``);
* pass@k / pass^k posteriors at N = k = 5000 against closed forms via
  ``scipy.special.betaln`` and exact rationals (integer Beta parameters), and
  ``mpmath`` when it is importable;
* maj / mG / AUC / GeoSpectrum posteriors at k in the thousands: finite,
  inside [0, 1], agreeing with scorio where scorio is fast enough, and with
  numerical integration;
* the Geom@k delta method at large k against a log-space implementation.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import bdtr, bdtrc, betaln, logsumexp

import bayeseval as be

pytestmark = pytest.mark.slow

N = 5000
S_VALUES = [0, 1, 2, 1250, 2499, 2500, 2501, 3777, 4998, 4999, 5000]


def matrix(s_values, n=N):
    R = np.zeros((len(s_values), n), dtype=np.int8)
    for i, s in enumerate(s_values):
        R[i, :s] = 1
    # shuffle columns per row so that the order of trials is irrelevant
    rng = np.random.default_rng(5)
    for i in range(R.shape[0]):
        rng.shuffle(R[i])
    return R


R_BIG = matrix(S_VALUES)


# ----------------------------------------------------------------------------- exact point estimates
def exact_pass(n, s, k):
    return Fraction(math.comb(n, k) - math.comb(n - s, k), math.comb(n, k))


def exact_pass_hat(n, s, k):
    return Fraction(math.comb(s, k), math.comb(n, k))


def exact_maj(n, s, k):
    j0 = k // 2 + 1
    num = sum(math.comb(s, j) * math.comb(n - s, k - j) for j in range(j0, min(s, k) + 1))
    return Fraction(num, math.comb(n, k))


EXACT = {"pass_at_k": exact_pass, "pass_hat_k": exact_pass_hat, "maj_at_k": exact_maj}


@pytest.mark.parametrize("k", [1, 2500, 4999, 5000])
@pytest.mark.parametrize("name", list(EXACT))
def test_point_estimates_exact(name, k):
    fn = getattr(be, name)
    exact = [EXACT[name](N, s, k) for s in S_VALUES]
    # dataset mean
    assert fn(R_BIG, k) == pytest.approx(float(sum(exact) / len(exact)), rel=1e-10, abs=1e-15)
    # every question on its own, including values far below 1e-100
    for i, s in enumerate(S_VALUES):
        got = fn(R_BIG[i:i + 1], k)
        assert math.isfinite(got) and 0.0 <= got <= 1.0
        assert got == pytest.approx(float(exact[i]), rel=1e-9, abs=1e-300), (name, s, k)


def test_point_estimates_exact_random_rows():
    rng = np.random.default_rng(11)
    s_values = [int(x) for x in rng.integers(0, N + 1, size=4)]
    R = matrix(s_values)
    for k in (7, 333, 2500):
        for name, exact_fn in EXACT.items():
            exact = sum(exact_fn(N, s, k) for s in s_values) / len(s_values)
            assert getattr(be, name)(R, k) == pytest.approx(float(exact), rel=1e-10, abs=1e-15), (name, k)


# ----------------------------------------------------------------------------- pass@k / pass^k posteriors
def closed_pass(a, b, k):
    """E and sd of 1 - (1-p)^k: E = 1 - B(a, b+k)/B(a, b), E[g^2] via B(a, b+2k)."""
    l1 = betaln(a, b + k) - betaln(a, b)
    l2 = betaln(a, b + 2 * k) - betaln(a, b)
    mean = -math.expm1(l1)
    var = -math.exp(l2) * math.expm1(2 * l1 - l2) if l2 > -745 else 0.0   # = E[g^2] - E[g]^2
    return mean, math.sqrt(max(var, 0.0))


def closed_pass_hat(a, b, k):
    l1 = betaln(a + k, b) - betaln(a, b)
    l2 = betaln(a + 2 * k, b) - betaln(a, b)
    mean = math.exp(l1)
    var = -math.exp(l2) * math.expm1(2 * l1 - l2) if l2 > -745 else 0.0
    return mean, math.sqrt(max(var, 0.0))


def rising_ratio(x, y, k):
    """Exact Gamma(x+k) Gamma(y) / (Gamma(x) Gamma(y+k)) for positive integers x, y."""
    return Fraction(math.factorial(x + k - 1) * math.factorial(y - 1),
                    math.factorial(x - 1) * math.factorial(y + k - 1))


def exact_pass_moments(a, b, k):
    """Exact rational E[(1-p)^k], Var[(1-p)^k] for integer a, b."""
    e1 = rising_ratio(b, a + b, k)
    e2 = rising_ratio(b, a + b, 2 * k)
    return 1 - e1, e2 - e1 * e1


def exact_pass_hat_moments(a, b, k):
    e1 = rising_ratio(a, a + b, k)
    e2 = rising_ratio(a, a + b, 2 * k)
    return e1, e2 - e1 * e1


def frac_sqrt(x: Fraction) -> float:
    """sqrt of a non-negative rational, correctly scaled even far below the double range."""
    if x <= 0:
        return 0.0
    e = max(0, (x.denominator.bit_length() - x.numerator.bit_length()) // 2 + 64)
    r = math.isqrt((x.numerator << (2 * e)) // x.denominator)
    return math.ldexp(float(r), -e)


@pytest.mark.parametrize("k", [1, 2500, 4999, 5000])
def test_pass_ci_large_against_betaln_and_exact(k):
    for i, s in enumerate(S_VALUES):
        a, b = 1 + s, 1 + N - s
        R = R_BIG[i:i + 1]
        for fn, closed, exact in ((be.pass_at_k_ci, closed_pass, exact_pass_moments),
                                  (be.pass_hat_k_ci, closed_pass_hat, exact_pass_hat_moments)):
            mu, sigma, lo, hi = fn(R, k)
            assert all(math.isfinite(x) for x in (mu, sigma, lo, hi))
            assert 0.0 <= lo <= mu <= hi <= 1.0 and sigma >= 0.0
            m_c, s_c = closed(a, b, k)
            m_e, v_e = exact(a, b, k)
            # the two references agree (betaln differences carry ~1e-11 absolute error)
            assert float(m_e) == pytest.approx(m_c, rel=1e-10, abs=1e-10)
            assert mu == pytest.approx(float(m_e), rel=1e-9, abs=1e-300), (fn.__name__, s, k)
            # a variance below the double range (sd < 1e-154) may be flushed to 0
            assert sigma == pytest.approx(frac_sqrt(v_e), rel=1e-8, abs=1e-150), (fn.__name__, s, k)


def test_pass_ci_large_dataset_level():
    k = 5000
    mom = [exact_pass_moments(1 + s, 1 + N - s, k) for s in S_VALUES]
    M = len(S_VALUES)
    mean = sum(m for m, _ in mom) / M
    var = sum(v for _, v in mom) / M ** 2
    mu, sigma, _, _ = be.pass_at_k_ci(R_BIG, k)
    assert mu == pytest.approx(float(mean), rel=1e-10, abs=0.0)
    assert sigma == pytest.approx(frac_sqrt(var), rel=1e-8, abs=0.0)
    # non-integer prior: betaln closed form only
    mom = [closed_pass_hat(0.5 + s, 2.5 + N - s, k) for s in S_VALUES]
    mu, sigma, _, _ = be.pass_hat_k_ci(R_BIG, k, alpha0=0.5, beta0=2.5)
    assert mu == pytest.approx(sum(m for m, _ in mom) / M, rel=1e-9, abs=0.0)
    assert sigma == pytest.approx(math.sqrt(sum(s * s for _, s in mom)) / M, rel=1e-8, abs=0.0)


def test_pass_ci_large_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 60
    k = 5000
    for i, s in enumerate([0, 1, 2499, 4999]):
        a, b = mpmath.mpf(1 + s), mpmath.mpf(1 + N - s)
        e1 = mpmath.beta(a, b + k) / mpmath.beta(a, b)
        e2 = mpmath.beta(a, b + 2 * k) / mpmath.beta(a, b)
        mu, sigma, _, _ = be.pass_at_k_ci(matrix([s]), k)
        assert mu == pytest.approx(float(1 - e1), rel=1e-9, abs=1e-300)
        assert sigma == pytest.approx(float(mpmath.sqrt(e2 - e1 ** 2)), rel=1e-8, abs=1e-300)


# ----------------------------------------------------------------------------- other posteriors at large k
LARGE_CI = [
    ("maj_at_k_ci", lambda R, k: be.maj_at_k_ci(R, k)),
    ("mg_pass_at_k_ci", lambda R, k: be.mg_pass_at_k_ci(R, k)),
    ("auc_at_k_ci", lambda R, k: be.auc_at_k_ci(R, k)),
    ("geo_spectrum_at_k_ci", lambda R, k: be.geo_spectrum_at_k_ci(R, k)),
    ("geo_spectrum_star_at_k_ci", lambda R, k: be.geo_spectrum_star_at_k_ci(R, k)),
    ("g_pass_at_k_tau_ci", lambda R, k: be.g_pass_at_k_tau_ci(R, k, 0.3)),
]


@pytest.mark.parametrize("k", [3000, 5000])
@pytest.mark.parametrize("name, fn", LARGE_CI, ids=[c[0] for c in LARGE_CI])
def test_large_k_ci_finite_and_in_range(name, fn, k):
    R = matrix([0, 1, 2500, 4999, 5000])
    for rows in (R, R[:1], R[-1:], R[2:3]):
        mu, sigma, lo, hi = fn(rows, k)
        assert all(math.isfinite(x) for x in (mu, sigma, lo, hi)), (name, k)
        assert 0.0 <= lo <= mu <= hi <= 1.0 and sigma >= 0.0, (name, k, mu, sigma, lo, hi)


# scorio reference at sizes where one scorio call stays well under 5 s.
SCORIO_CASES = [("maj_at_k_ci", 1000), ("mg_pass_at_k_ci", 1000), ("auc_at_k_ci", 400),
                ("geo_spectrum_at_k_ci", 500), ("g_pass_at_k_tau_ci", 700)]


@pytest.mark.parametrize("name, k", SCORIO_CASES)
def test_large_k_ci_agrees_with_scorio(name, k):
    se = pytest.importorskip("scorio.eval")
    R = matrix([0, 1, 2500, 4990, 5000, 3100])
    args = (0.3,) if name == "g_pass_at_k_tau_ci" else ()
    ref = getattr(se, name)(R.astype(np.int64), k, *args)
    got = getattr(be, name)(R, k, *args)
    assert got[0] == pytest.approx(ref[0], rel=1e-9, abs=1e-14)
    assert got[1] == pytest.approx(ref[1], rel=1e-7, abs=1e-14)


# ----------------------------------------------------------------------------- numerical integration at k = 5000
def _beta_expect(fun, a, b):
    """E[fun(p, 1-p)] for p ~ Beta(a, b), a, b >= 1: split at 1/2, integrate the upper half in q."""
    total = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        for e, o, mirror in ((a, b, False), (b, a, True)):
            log_norm = float(betaln(e, o))
            pts = sorted(set(float(x) for x in stats.beta(e, o).ppf(
                [1e-14, 1e-9, 1e-5, 1e-3, 0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98, 0.999, 1 - 1e-5, 1 - 1e-9])
                if 0 < x < 0.5))

            def f(x, e=e, o=o, mirror=mirror, log_norm=log_norm):
                dens = math.exp((e - 1) * math.log(x) + (o - 1) * math.log1p(-x) - log_norm)
                return fun(1.0 - x, x) * dens if mirror else fun(x, 1.0 - x) * dens

            total += integrate.quad(f, 0.0, 0.5, points=pts or None, epsabs=0.0, epsrel=1e-11, limit=2000)[0]
    return total


def _tail_ge(k, j0, p, q):
    return float(bdtrc(j0 - 1, k, p)) if p <= 0.5 else float(bdtr(k - j0, k, q))


def _tail_le(k, j1, p, q):
    return float(bdtr(j1, k, p)) if p <= 0.5 else float(bdtrc(k - j1 - 1, k, q))


@pytest.mark.parametrize("k, s, n", [(5000, 2600, 5000), (5000, 2480, 5000), (4999, 2500, 5000), (3001, 1600, 3000)])
def test_maj_ci_large_k_against_quad(k, s, n):
    a, b = 1.0 + s, 1.0 + n - s
    j0 = k // 2 + 1
    lo_fn = lambda p, q: _tail_ge(k, j0, p, q)        # g
    hi_fn = lambda p, q: _tail_le(k, j0 - 1, p, q)    # 1 - g
    e_lo, e_hi = _beta_expect(lo_fn, a, b), _beta_expect(hi_fn, a, b)
    assert e_lo + e_hi == pytest.approx(1.0, abs=1e-10)
    rep, m = (lo_fn, e_lo) if e_lo <= e_hi else (hi_fn, e_hi)
    var = _beta_expect(lambda p, q: (rep(p, q) - m) ** 2, a, b)
    mu, sigma, _, _ = be.maj_at_k_ci(matrix([s], n), k)
    assert mu == pytest.approx(e_lo if e_lo <= e_hi else 1.0 - e_hi, rel=1e-8, abs=0.0)
    assert sigma == pytest.approx(math.sqrt(var), rel=1e-7, abs=0.0)


# ----------------------------------------------------------------------------- Geom@k at large k
def geom_delta_log(a, b, k, A=0.5, B=0.5):
    """Log-space first-order delta method for P^A U^B, P = pass@k, U = pass^k, p ~ Beta(a, b).

    Returns (log mean, log sd).  All moments are closed-form Beta-function ratios.
    """
    L = lambda da, db: betaln(a + da, b + db) - betaln(a, b)   # noqa: E731
    lH1, lH2, lU1, lU2, lHU = L(0, k), L(0, 2 * k), L(k, 0), L(2 * k, 0), L(k, k)
    lmP = math.log(-math.expm1(lH1))
    lvP = lH2 + math.log(-math.expm1(2 * lH1 - lH2))
    lvU = lU2 + math.log(-math.expm1(2 * lU1 - lU2))
    # Cov(P, U) = Cov(1 - H, U) = E[H] E[U] - E[H U]
    x, y = lH1 + lU1, lHU
    sign = 1.0 if x > y else -1.0
    lcov = max(x, y) + math.log(-math.expm1(min(x, y) - max(x, y)))
    terms = [2 * math.log(A) + (2 * A - 2) * lmP + 2 * B * lU1 + lvP,
             2 * math.log(B) + 2 * A * lmP + (2 * B - 2) * lU1 + lvU,
             math.log(2 * A * B) + (2 * A - 1) * lmP + (2 * B - 1) * lU1 + lcov]
    lv = float(logsumexp(terms, b=[1.0, 1.0, sign]))
    return A * lmP + B * lU1, 0.5 * lv


GEOM_LARGE = [(s, k) for s in (0, 1015, 2943, 4173, 4999, 5000) for k in (300, 500, 1000, 5000)]


@pytest.mark.parametrize("fn", [be.geom_at_k_ci, be.geom_ds_at_k_ci], ids=["geom_at_k_ci", "geom_ds_at_k_ci"])
@pytest.mark.parametrize("s, k", GEOM_LARGE)
def test_geom_ci_large_k_finite_and_correct(fn, s, k):
    """Finite output for every s and k, correct to 1e-12 absolute (the metric lives in [0, 1])."""
    mu, sigma, lo, hi = fn(matrix([s]), k)
    assert all(math.isfinite(x) for x in (mu, sigma, lo, hi))
    assert 0.0 <= lo <= mu <= hi <= 1.0 and sigma >= 0.0
    lm, ls = geom_delta_log(1.0 + s, 1.0 + N - s, k)
    assert mu == pytest.approx(math.exp(lm), rel=1e-8, abs=1e-12)
    assert sigma == pytest.approx(math.exp(ls), rel=1e-7, abs=1e-12)


@pytest.mark.xfail(
    reason="known limitation: when E[pass^k] itself is below the double range (< 1e-308) the engine's "
    "linear-space moments underflow, so Geom@k values far below 1e-12 lose relative (not absolute) accuracy",
    strict=False,
)
@pytest.mark.parametrize("s, k", [(s, k) for s, k in GEOM_LARGE if s not in (4999, 5000)])
def test_geom_ci_large_k_tiny_values_relative(s, k):
    """Where the delta-method mean (> 1e-300) and variance (sd > 1e-150) are normal doubles they
    should be reported to relative accuracy, not flushed to 0 or off by orders of magnitude."""
    lm, ls = geom_delta_log(1.0 + s, 1.0 + N - s, k)
    if lm < math.log(1e-300) and ls < math.log(1e-150):
        pytest.skip("reference below the double range")
    mu, sigma, _, _ = be.geom_at_k_ci(matrix([s]), k)
    if lm > math.log(1e-300):
        assert mu == pytest.approx(math.exp(lm), rel=1e-6, abs=0.0)
    if ls > math.log(1e-150):      # the variance sigma^2 is a normal double
        assert sigma == pytest.approx(math.exp(ls), rel=1e-6, abs=0.0)
