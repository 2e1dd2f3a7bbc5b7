"""Posterior moments of the *_ci functions against numerical integration.

For a question with posterior ``p ~ Beta(a, b)`` the ``*_ci`` functions report
``E[g(p)]`` and ``sd[g(p)]`` of the latent metric ``g``.  Here both are
computed with ``scipy.integrate.quad`` against the Beta density (written out
and checked against ``scipy.stats.beta.pdf``; quantiles from ``scipy.stats.beta``),
with ``g`` written out from its definition (``1 - (1-p)^k``, binomial tails,
...), never through bayeseval.  A one-question matrix with ``s`` successes of
``n`` and ``alpha0 = a - s``, ``beta0 = b - (n - s)`` has posterior exactly
``Beta(a, b)``.

Integration notes: the domain is split at 1/2; the upper half is integrated in
``q = 1 - p`` against the mirrored density ``Beta(b, a)`` so ``q`` is never
rounded through ``1 - p``; an endpoint singularity ``x^(e-1)``, ``e < 1`` is
removed by ``x = u^(1/e)``; break points are placed at posterior quantiles.
Every ``g`` is given as the pair ``g - c_0`` and ``c_k - g`` (both computed
without cancellation) and moments are taken on the smaller one, so tiny
variances near ``g = 1`` are resolved as well.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import bdtr, bdtrc, betaln, gammaln, xlogy

import bayeseval as be

REL = 1e-8
QUANT = [1e-12, 1e-6, 1e-3, 0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98, 1 - 1e-3, 1 - 1e-6, 1 - 1e-12]
Z95 = float(stats.norm.ppf(0.975))


# ----------------------------------------------------------------------------- integration
def beta_pdf(x, a, b, log_norm):
    """Beta(a, b) density at x in (0, 1); log_norm = betaln(a, b).  Checked against scipy.stats.beta below."""
    return math.exp((a - 1.0) * math.log(x) + (b - 1.0) * math.log1p(-x) - log_norm)


def _half(fun, a, b, mirror):
    """Integral over x in [0, 1/2] of fun(p, q) * density, x = p (mirror=False) or x = q = 1 - p."""
    e, o = (b, a) if mirror else (a, b)          # x ~ Beta(e, o)
    log_norm = float(betaln(e, o))
    call = (lambda x: fun(1.0 - x, x)) if mirror else (lambda x: fun(x, 1.0 - x))
    pts = [float(x) for x in stats.beta(e, o).ppf(QUANT) if 0 < x < 0.5]
    if e < 1:
        # x = u^(1/e): the density's x^(e-1) and the Jacobian u^(1/e-1)/e cancel to 1/e
        def integrand(u):
            x = u ** (1.0 / e)
            return call(x) * math.exp((o - 1.0) * math.log1p(-x) - log_norm) / e
        top = 0.5 ** e
        pts = [x ** e for x in pts]
    else:
        def integrand(x):
            return call(x) * beta_pdf(x, e, o, log_norm)
        top = 0.5
    pts = sorted(set(x for x in pts if 0 < x < top))
    val, _ = integrate.quad(integrand, 0.0, top, points=pts or None, epsabs=0.0, epsrel=1e-12, limit=1000)
    return val


def beta_expect(fun, a, b):
    """E[fun(p, 1 - p)] for p ~ Beta(a, b)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return _half(fun, a, b, False) + _half(fun, a, b, True)


class Latent:
    """A latent metric g given as lo(p, q) = g - c0 and hi(p, q) = ck - g."""

    def __init__(self, c0, ck, lo, hi):
        self.c0, self.ck, self.lo, self.hi = float(c0), float(ck), lo, hi

    def moments(self, a, b):
        """(mean, variance, representation, sign) under Beta(a, b)."""
        elo = beta_expect(self.lo, a, b)
        ehi = beta_expect(self.hi, a, b)
        if abs(elo) <= abs(ehi):
            rep, m, mean, sign = self.lo, elo, self.c0 + elo, 1.0
        else:
            rep, m, mean, sign = self.hi, ehi, self.ck - ehi, -1.0
        var = beta_expect(lambda p, q: (rep(p, q) - m) ** 2, a, b)
        return mean, var, (rep, m, sign)


def covariance(x_info, y_info, a, b):
    (rx, mx, sx), (ry, my, sy) = x_info, y_info
    return sx * sy * beta_expect(lambda p, q: (rx(p, q) - mx) * (ry(p, q) - my), a, b)


# ----------------------------------------------------------------------------- latent metrics
def binom_pmf(k, p, q):
    j = np.arange(k + 1)
    return np.exp(gammaln(k + 1) - gammaln(j + 1) - gammaln(k - j + 1) + xlogy(j, p) + xlogy(k - j, q))


def at_least(k, j0, p, q):
    """P(X >= j0), X ~ Bin(k, p); evaluated on the side that has no cancellation."""
    if j0 <= 0:
        return 1.0
    if p <= 0.5:
        return float(bdtrc(j0 - 1, k, p))
    return float(bdtr(k - j0, k, q))        # failures F = k - X ~ Bin(k, q): X >= j0 <=> F <= k - j0


def at_most(k, j1, p, q):
    """P(X <= j1)."""
    if j1 < 0:
        return 0.0
    if j1 >= k:
        return 1.0
    if p <= 0.5:
        return float(bdtr(j1, k, p))
    return float(bdtrc(k - j1 - 1, k, q))   # X <= j1 <=> F >= k - j1


def latent_pass(k):
    return Latent(0.0, 1.0, lambda p, q: -math.expm1(k * math.log(q)) if q > 0 else 1.0,
                  lambda p, q: q ** k)


def latent_pass_hat(k):
    return Latent(0.0, 1.0, lambda p, q: p ** k,
                  lambda p, q: -math.expm1(k * math.log(p)) if p > 0 else 1.0)


def latent_threshold(k, j0):
    return Latent(0.0, 1.0, lambda p, q: at_least(k, j0, p, q), lambda p, q: at_most(k, j0 - 1, p, q))


def latent_maj(k):
    # strictly more than k/2 of k: X > k/2, i.e. P(X >= floor(k/2) + 1) = binom.sf(floor(k/2))
    return latent_threshold(k, k // 2 + 1)


def latent_payoff(c):
    """g(p) = sum_j c_j P(X = j), X ~ Bin(k, p), k = len(c) - 1."""
    c = np.asarray(c, dtype=float)
    k = c.size - 1
    return Latent(c[0], c[-1], lambda p, q: float((c - c[0]) @ binom_pmf(k, p, q)),
                  lambda p, q: float((c[-1] - c) @ binom_pmf(k, p, q)))


def latent_mg(k):
    m = math.ceil(k / 2)
    c = [(2.0 / k) * max(j - m, 0) for j in range(k + 1)]
    return latent_payoff(c)


def latent_spectrum(w):
    k = len(w)
    total = float(sum(w))
    # S(p) = sum_r w_r P(X >= r); total - S = sum_r w_r P(X <= r - 1)
    return Latent(0.0, total, lambda p, q: sum(w[r - 1] * at_least(k, r, p, q) for r in range(1, k + 1)),
                  lambda p, q: sum(w[r - 1] * at_most(k, r - 1, p, q) for r in range(1, k + 1)))


def latent_auc(k):
    if k == 1:
        return latent_pass(1)
    trap = [0.5 / (k - 1)] + [1.0 / (k - 1)] * (k - 2) + [0.5 / (k - 1)]
    # AUC = sum_j trap_j (1 - (1-p)^j); 1 - AUC = sum_j trap_j (1-p)^j
    return Latent(0.0, 1.0, lambda p, q: sum(t * -math.expm1(j * math.log(q)) for j, t in enumerate(trap, 1))
                  if q > 0 else 1.0,
                  lambda p, q: sum(t * q ** j for j, t in enumerate(trap, 1)))


def tau_j0(tau, k):
    return max(1, math.ceil(Fraction(repr(tau)) * k))


# ----------------------------------------------------------------------------- posterior parameters
def beta_pairs():
    pairs = [(0.3, 2.7), (2.7, 0.3), (0.3, 400.0), (400.0, 0.3), (400.0, 400.0), (1.5, 1.0), (6.0, 1.0),
             (2.5, 7.0), (1500.5, 1.5)]
    rng = np.random.default_rng(20240601)
    while len(pairs) < 13:
        a, b = np.exp(rng.uniform(np.log(0.3), np.log(400.0), size=2))
        if max(a, b) > 1.05:
            pairs.append((float(round(a, 3)), float(round(b, 3))))
    return pairs


PAIRS = beta_pairs()


def one_question(a, b, seed=0):
    """(R, alpha0, beta0) with a 1-question matrix whose posterior is Beta(a, b)."""
    rng = np.random.default_rng(seed + int(a * 1000) + 7 * int(b * 1000))
    while True:
        s = int(rng.integers(0, math.ceil(a)))
        f = int(rng.integers(0, math.ceil(b)))
        if s + f >= 1:
            break
    alpha0, beta0 = a - s, b - f
    assert alpha0 > 0 and beta0 > 0
    R = np.array([[1] * s + [0] * f])
    return R, alpha0, beta0


# ----------------------------------------------------------------------------- the integrator itself
@pytest.mark.parametrize("a, b", PAIRS, ids=[f"a={a}-b={b}" for a, b in PAIRS])
def test_integrator_against_scipy_pdf_and_beta_functions(a, b):
    xs = np.array([1e-9, 1e-4, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-4])
    ref = stats.beta(a, b).pdf(xs)
    mine = [beta_pdf(float(x), a, b, float(betaln(a, b))) for x in xs]
    assert mine == pytest.approx(ref, rel=1e-11, abs=1e-300)
    assert beta_expect(lambda p, q: 1.0, a, b) == pytest.approx(1.0, rel=1e-11, abs=0.0)
    for k in (1, 4, 13):
        assert beta_expect(lambda p, q: q ** k, a, b) == pytest.approx(
            math.exp(betaln(a, b + k) - betaln(a, b)), rel=1e-10, abs=0.0)
        assert beta_expect(lambda p, q: p ** k, a, b) == pytest.approx(
            math.exp(betaln(a + k, b) - betaln(a, b)), rel=1e-10, abs=0.0)


# ----------------------------------------------------------------------------- single-question metrics
def metric_cases(k, rng):
    """(name, library call (R, alpha0, beta0) -> tuple, Latent)."""
    w = rng.random(k)
    w *= rng.uniform(0.3, 1.0) / w.sum()
    c = rng.uniform(-1.0, 2.0, size=k + 1)
    cases = [
        ("pass@k", lambda R, a0, b0: be.pass_at_k_ci(R, k, alpha0=a0, beta0=b0), latent_pass(k)),
        ("pass^k", lambda R, a0, b0: be.pass_hat_k_ci(R, k, alpha0=a0, beta0=b0), latent_pass_hat(k)),
        ("unanimous", lambda R, a0, b0: be.unanimous_at_k_ci(R, k, alpha0=a0, beta0=b0), latent_pass_hat(k)),
        ("g_pass", lambda R, a0, b0: be.g_pass_at_k_ci(R, k, alpha0=a0, beta0=b0), latent_pass_hat(k)),
        ("maj@k", lambda R, a0, b0: be.maj_at_k_ci(R, k, alpha0=a0, beta0=b0), latent_maj(k)),
        ("mg-pass@k", lambda R, a0, b0: be.mg_pass_at_k_ci(R, k, alpha0=a0, beta0=b0), latent_mg(k)),
        ("auc@k", lambda R, a0, b0: be.auc_at_k_ci(R, k, alpha0=a0, beta0=b0), latent_auc(k)),
        ("spectrum", lambda R, a0, b0: be.threshold_spectrum_at_k_ci(R, k, w, alpha0=a0, beta0=b0),
         latent_spectrum(list(w))),
        ("bernstein", lambda R, a0, b0: be.bernstein_at_k_ci(R, c, alpha0=a0, beta0=b0), latent_payoff(c)),
        ("geo_spectrum lam=0", lambda R, a0, b0: be.geo_spectrum_at_k_ci(R, k, lam=0.0, alpha0=a0, beta0=b0),
         latent_mg(k)),
        ("geo_spectrum lam=1", lambda R, a0, b0: be.geo_spectrum_at_k_ci(R, k, lam=1.0, weights=w, alpha0=a0,
                                                                            beta0=b0), latent_pass(k)),
    ]
    for tau in (0.0, 0.3, 0.5, 0.75, 1.0):
        j0 = tau_j0(tau, k)
        cases.append((f"g_pass_tau={tau}",
                      lambda R, a0, b0, tau=tau: be.g_pass_at_k_tau_ci(R, k, tau, alpha0=a0, beta0=b0),
                      latent_threshold(k, j0)))
    return cases


K_VALUES = [1, 2, 3, 5, 10, 13]


@pytest.mark.slow
@pytest.mark.parametrize("a, b", PAIRS, ids=[f"a={a}-b={b}" for a, b in PAIRS])
@pytest.mark.parametrize("k", K_VALUES)
def test_single_question_moments(a, b, k):
    R, alpha0, beta0 = one_question(a, b)
    rng = np.random.default_rng(k * 1000 + int(a) + int(b))
    failures = []
    for name, call, latent in metric_cases(k, rng):
        mean, var, _ = latent.moments(a, b)
        mu, sigma, lo, hi = call(R, alpha0, beta0)
        if mu != pytest.approx(mean, rel=REL, abs=1e-300):
            failures.append(f"{name}: mu {mu!r} != {mean!r}")
        if sigma != pytest.approx(math.sqrt(var), rel=REL, abs=1e-300):
            failures.append(f"{name}: sigma {sigma!r} != {math.sqrt(var)!r}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("a, b", [(0.3, 400.0), (2.5, 7.0), (400.0, 400.0), (400.0, 0.3)])
def test_interval_is_clipped_normal(a, b):
    R, alpha0, beta0 = one_question(a, b)
    mean, var, _ = latent_pass(3).moments(a, b)
    sd = math.sqrt(var)
    for conf in (0.5, 0.9, 0.95, 0.99):
        z = float(stats.norm.ppf(0.5 + conf / 2))
        mu, sigma, lo, hi = be.pass_at_k_ci(R, 3, confidence=conf, alpha0=alpha0, beta0=beta0)
        assert lo == pytest.approx(min(max(mean - z * sd, 0.0), 1.0), rel=1e-8, abs=1e-12)
        assert hi == pytest.approx(min(max(mean + z * sd, 0.0), 1.0), rel=1e-8, abs=1e-12)
        assert 0.0 <= lo <= mu <= hi <= 1.0
    mu, sigma, lo, hi = be.pass_at_k_ci(R, 3, bounds=(-5.0, 5.0), alpha0=alpha0, beta0=beta0)
    assert (lo, hi) == pytest.approx((mean - Z95 * sd, mean + Z95 * sd), rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("k", [7, 20])
def test_ci_accepts_k_larger_than_n(k):
    """The latent metric is defined for k > n: one question with 3 of 4 correct, uniform prior."""
    R = np.array([[1, 1, 1, 0]])
    a, b = 4.0, 2.0
    for name, call, latent in metric_cases(k, np.random.default_rng(k)):
        mean, var, _ = latent.moments(a, b)
        mu, sigma, _, _ = call(R, 1.0, 1.0)
        assert mu == pytest.approx(mean, rel=REL, abs=0.0), name
        assert sigma == pytest.approx(math.sqrt(var), rel=REL, abs=0.0), name


# ----------------------------------------------------------------------------- several questions
@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ragged", [False, True])
def test_multi_question_aggregation(seed, ragged):
    rng = np.random.default_rng(77 + seed)
    alpha0, beta0 = float(rng.uniform(0.2, 3)), float(rng.uniform(0.2, 3))
    M = 4
    if ragged:
        rows = [(rng.random(int(n)) < rng.random()).astype(int).tolist() for n in rng.integers(2, 9, size=M)]
        rows[0] = [0] * len(rows[0])
        rows[1] = [1] * 9
        R = be.to_counts(rows, ragged=True)
    else:
        rows = (rng.random((M, 6)) < rng.random((M, 1))).astype(int).tolist()
        rows[0] = [0] * 6
        R = np.array(rows)
    posts = [(alpha0 + sum(r), beta0 + len(r) - sum(r)) for r in rows]
    k = int(rng.integers(2, 6))
    for name, call, latent in metric_cases(k, np.random.default_rng(seed)):
        mom = [latent.moments(a, b)[:2] for a, b in posts]
        mean = sum(m for m, _ in mom) / M
        sigma = math.sqrt(sum(v for _, v in mom)) / M
        mu, sd, _, _ = call(R, alpha0, beta0)
        assert mu == pytest.approx(mean, rel=REL, abs=0.0), name
        assert sd == pytest.approx(sigma, rel=REL, abs=0.0), name


def test_multi_question_identical_rows_scale_as_one_over_sqrt_m():
    R1 = np.array([[1, 0, 1, 1, 0]])
    for M in (1, 4, 9):
        R = np.repeat(R1, M, axis=0)
        mean, var, _ = latent_maj(4).moments(4.0, 3.0)
        mu, sigma, _, _ = be.maj_at_k_ci(R, 4)
        assert mu == pytest.approx(mean, rel=REL, abs=0.0)
        assert sigma == pytest.approx(math.sqrt(var / M), rel=REL, abs=0.0)


# ----------------------------------------------------------------------------- Dirichlet family
def bayes_closed(rows, w, prior_rows=None):
    """Per-question Dirichlet(counts + prior counts + 1): mean and variance of the weighted score."""
    w = np.asarray(w, float)
    K = w.size
    means, variances = [], []
    for i, r in enumerate(rows):
        nu = np.ones(K)
        for x in r:
            nu[x] += 1
        if prior_rows is not None:
            for x in prior_rows[i]:
                nu[x] += 1
        T = nu.sum()
        m = float(nu @ w / T)
        second = float(nu @ (w * w) / T)
        means.append(m)
        variances.append((second - m * m) / (T + 1))
    M = len(rows)
    return sum(means) / M, math.sqrt(sum(variances)) / M


def bayes_doc_formula(R, w, R0=None):
    """The scorio reference formula with T = 1 + C + D + N, transcribed literally."""
    R = np.asarray(R)
    M, N = R.shape
    C = len(w) - 1
    D = 0 if R0 is None else np.asarray(R0).shape[1]
    T = 1 + C + D + N
    nu = np.zeros((M, C + 1))
    for a in range(M):
        for kk in range(C + 1):
            nu[a, kk] = np.sum(R[a] == kk) + 1 + (0 if R0 is None else np.sum(np.asarray(R0)[a] == kk))
    dw = np.asarray(w, float) - w[0]
    mu = w[0] + (nu * dw).sum() / (M * T)
    inner = ((nu / T) * dw ** 2).sum(axis=1) - ((nu / T) * dw).sum(axis=1) ** 2
    sigma = math.sqrt(inner.sum() / (M ** 2 * (T + 1)))
    return mu, sigma


@pytest.mark.parametrize("seed", range(6))
def test_bayes_closed_form(seed):
    rng = np.random.default_rng(600 + seed)
    C = int(rng.integers(1, 5))
    M, N, D = int(rng.integers(1, 6)), int(rng.integers(1, 9)), int(rng.integers(0, 4))
    R = rng.integers(0, C + 1, size=(M, N))
    R0 = rng.integers(0, C + 1, size=(M, D)) if D else None
    w = rng.normal(size=C + 1)
    expected = bayes_closed(R.tolist(), w, None if R0 is None else R0.tolist())
    assert bayes_doc_formula(R, w, R0) == pytest.approx(expected, rel=1e-12, abs=0.0)
    mu, sigma = be.bayes(R, w, R0)
    assert (mu, sigma) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    mu2, sigma2, lo, hi = be.bayes_ci(R, w, R0)
    assert (mu2, sigma2) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # default clipping to [min w, max w]
    assert lo == pytest.approx(max(expected[0] - Z95 * expected[1], w.min()), rel=1e-10, abs=1e-13)
    assert hi == pytest.approx(min(expected[0] + Z95 * expected[1], w.max()), rel=1e-10, abs=1e-13)
    # avg@N: plain weighted average; sigma scaled by T / N
    a, sa = be.avg(R, w)
    assert a == pytest.approx(float(np.mean(w[R])), rel=1e-12, abs=1e-15)
    T = 1 + C + N
    assert sa == pytest.approx(T / N * bayes_closed(R.tolist(), w)[1], rel=1e-12, abs=1e-15)


def test_bayes_ragged_rows_use_their_own_T():
    rows = [[0, 1, 2], [2, 2, 1, 0, 0, 1, 2], [1]]
    w = [0.0, 0.3, 1.0]
    expected = bayes_closed(rows, w)
    got = be.bayes(be.to_counts(rows, ragged=True), w)
    assert got == pytest.approx(expected, rel=1e-12, abs=0.0)


@pytest.mark.parametrize("seed", range(4))
def test_max_at_k_ci_k1_equals_bayes(seed):
    rng = np.random.default_rng(700 + seed)
    C = int(rng.integers(1, 5))
    R = rng.integers(0, C + 1, size=(3, 6))
    R0 = rng.integers(0, C + 1, size=(3, 2))
    w = rng.normal(size=C + 1)
    for prior in (None, R0):
        expected = bayes_closed(R.tolist(), w, None if prior is None else prior.tolist())
        got = be.max_at_k_ci(R, 1, w=w, R0=prior)
        assert got[:2] == pytest.approx(expected, rel=1e-10, abs=0.0)
        assert got == pytest.approx(be.bayes_ci(R, w, prior), rel=1e-10, abs=1e-14)


def beta_closed_pass(a, b, k):
    """Closed-form posterior mean / sd of 1 - (1-p)^k under Beta(a, b)."""
    l1 = betaln(a, b + k) - betaln(a, b)
    l2 = betaln(a, b + 2 * k) - betaln(a, b)
    return -math.expm1(l1), math.sqrt(-math.exp(l2) * math.expm1(2 * l1 - l2))


@pytest.mark.parametrize("k", [1, 2, 3, 7, 30])
def test_max_at_k_ci_binary_is_pass_at_k_ci(k):
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]])
    mom = [beta_closed_pass(1 + s, 1 + 5 - s, k) for s in R.sum(axis=1)]
    mean = sum(m for m, _ in mom) / 4
    sigma = math.sqrt(sum(s * s for _, s in mom)) / 4
    got = be.max_at_k_ci(R, k)
    assert got[:2] == pytest.approx((mean, sigma), rel=1e-10, abs=0.0)
    assert got == pytest.approx(be.pass_at_k_ci(R, k), rel=1e-10, abs=1e-14)
    # explicit binary weights give the same
    assert be.max_at_k_ci(R, k, w=[0.0, 1.0])[:2] == pytest.approx((mean, sigma), rel=1e-10, abs=0.0)


def expected_max_given_theta(theta, w, k):
    """E[max of k i.i.d. rewards] for category probabilities theta (rows) and rewards w."""
    order = np.argsort(w, kind="stable")
    ws = np.asarray(w, float)[order]
    F = np.cumsum(theta[:, order], axis=1)
    F = np.clip(F, 0.0, 1.0)
    Fk = F ** k
    prev = np.concatenate([np.zeros((theta.shape[0], 1)), Fk[:, :-1]], axis=1)
    return (Fk - prev) @ ws


@pytest.mark.parametrize("k, w", [(1, [0.0, 0.5, 1.0]), (2, [0.0, 0.5, 1.0]), (3, [0.2, -1.0, 0.7]),
                                  (5, [1.0, 0.0, 1.0]), (12, [0.0, 0.3, 0.25])])
@pytest.mark.slow
def test_max_at_k_ci_three_categories_monte_carlo(k, w):
    R = np.array([[0, 1, 2, 2, 1, 0], [1, 1, 0, 2, 2, 2], [0, 0, 0, 1, 0, 0]])
    R0 = np.array([[2], [0], [1]])
    n_draws = 1_000_000
    rng = np.random.default_rng(1234 + k)
    for prior in (None, R0):
        g = np.zeros(n_draws)
        for i in range(R.shape[0]):
            alpha = np.ones(3) + np.bincount(R[i], minlength=3)
            if prior is not None:
                alpha += np.bincount(prior[i], minlength=3)
            theta = rng.dirichlet(alpha, size=n_draws)
            g += expected_max_given_theta(theta, w, k)
        g /= R.shape[0]
        mc_mean = g.mean()
        centred = g - mc_mean
        mc_var = centred.var()
        se_mean = math.sqrt(mc_var / n_draws)
        se_var = math.sqrt((np.mean(centred ** 4) - mc_var ** 2) / n_draws)
        mu, sigma, lo, hi = be.max_at_k_ci(R, k, w=w, R0=prior)
        assert abs(mu - mc_mean) < 5 * se_mean, (mu, mc_mean, se_mean)
        assert abs(sigma ** 2 - mc_var) < 5 * se_var, (sigma ** 2, mc_var, se_var)
        assert min(w) <= lo <= mu <= hi <= max(w)


# ----------------------------------------------------------------------------- geometric (delta method)
def delta(mx, vx, my, vy, cov, a, b):
    """First-order delta method for x^a y^b, written out."""
    mean = mx ** a * my ** b
    gx = a * mx ** (a - 1) * my ** b if a else 0.0
    gy = b * mx ** a * my ** (b - 1) if b else 0.0
    return mean, max(gx * gx * vx + gy * gy * vy + 2 * gx * gy * cov, 0.0)


def joint_moments(x: Latent, y: Latent, a, b):
    mx, vx, ix = x.moments(a, b)
    my, vy, iy = y.moments(a, b)
    return mx, vx, my, vy, covariance(ix, iy, a, b)


GEOM_MATRICES = {
    "doc": (np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]), 1.0, 1.0),
    "mixed": (np.array([[1, 1, 1, 1, 1, 1], [0, 1, 0, 0, 0, 1], [1, 0, 1, 1, 0, 1]]), 0.5, 2.0),
    "single": (np.array([[1, 1, 0, 1]]), 0.3, 0.7),
}


@pytest.mark.parametrize("key", list(GEOM_MATRICES))
@pytest.mark.parametrize("k", [1, 2, 4, 9])
@pytest.mark.parametrize("powers", [(0.5, 0.5), (0.3, 1.2), (1.0, 2.0)])
def test_geom_delta_method(key, k, powers):
    R, alpha0, beta0 = GEOM_MATRICES[key]
    pa, pb = powers
    M, N = R.shape
    posts = [(alpha0 + s, beta0 + N - s) for s in R.sum(axis=1)]
    per_q = [joint_moments(latent_pass(k), latent_pass_hat(k), a, b) for a, b in posts]
    # questionwise: delta per question, then average
    qs = [delta(*m, pa, pb) for m in per_q]
    mean_q = sum(m for m, _ in qs) / M
    sd_q = math.sqrt(sum(v for _, v in qs)) / M
    got = be.geom_at_k_ci(R, k, pa, pb, alpha0=alpha0, beta0=beta0)
    assert got[0] == pytest.approx(mean_q, rel=REL, abs=0.0)
    assert got[1] == pytest.approx(sd_q, rel=REL, abs=0.0)
    # dataset level: average the moments first
    mx = sum(m[0] for m in per_q) / M
    vx = sum(m[1] for m in per_q) / M ** 2
    my = sum(m[2] for m in per_q) / M
    vy = sum(m[3] for m in per_q) / M ** 2
    cov = sum(m[4] for m in per_q) / M ** 2
    mean_ds, var_ds = delta(mx, vx, my, vy, cov, pa, pb)
    got = be.geom_ds_at_k_ci(R, k, pass_power=pa, unanimous_power=pb, alpha0=alpha0, beta0=beta0)
    assert got[0] == pytest.approx(mean_ds, rel=REL, abs=0.0)
    assert got[1] == pytest.approx(math.sqrt(var_ds), rel=REL, abs=0.0)


@pytest.mark.parametrize("key", list(GEOM_MATRICES))
@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize("lam", [0.3, 0.5, 0.8])
@pytest.mark.parametrize("custom", [False, True])
def test_geo_spectrum_delta_method(key, k, lam, custom):
    R, alpha0, beta0 = GEOM_MATRICES[key]
    M, N = R.shape
    if custom:
        w = np.random.default_rng(k).random(k)
        w *= 0.8 / w.sum()
        spec = latent_spectrum(list(w))
        weights = w
    else:
        m = math.ceil(k / 2)
        spec = latent_spectrum([(2.0 / k) if r >= m + 1 else 0.0 for r in range(1, k + 1)])
        weights = None
    posts = [(alpha0 + s, beta0 + N - s) for s in R.sum(axis=1)]
    per_q = [joint_moments(latent_pass(k), spec, a, b) for a, b in posts]
    mx = sum(m[0] for m in per_q) / M
    vx = sum(m[1] for m in per_q) / M ** 2
    my = sum(m[2] for m in per_q) / M
    vy = sum(m[3] for m in per_q) / M ** 2
    cov = sum(m[4] for m in per_q) / M ** 2
    if my == 0.0:
        mean, var = 0.0, 0.0
    else:
        mean, var = delta(mx, vx, my, vy, cov, lam, 1 - lam)
    got = be.geo_spectrum_at_k_ci(R, k, lam=lam, weights=weights, alpha0=alpha0, beta0=beta0)
    assert got[0] == pytest.approx(mean, rel=REL, abs=1e-300)
    assert got[1] == pytest.approx(math.sqrt(var), rel=REL, abs=1e-300)
    if not custom and lam == 0.5:
        star = be.geo_spectrum_star_at_k_ci(R, k, alpha0=alpha0, beta0=beta0)
        assert star[:2] == pytest.approx((mean, math.sqrt(var)), rel=REL, abs=1e-300)


def test_the_hierarchical_grid_keeps_the_tail_of_log_kappa():
    """prior='hierarchical': each refinement centred its window at mean +- 7 sd of the last grid's (already cut)
    posterior, so the window shrank round by round (log kappa up to 13.8, then 10.3, ..., 5.94) and a flat tail
    of log kappa was dropped: sd 0.0698 where the model's is 0.0723.  Checked against an independent integration
    on an 800 x 600 midpoint grid over (mu, log kappa) with the same hyperprior (uniform mu, uniform log kappa on
    [log 0.01, log 1e6]) and closed-form Beta moments of pass@5."""
    from scipy.special import betaln

    import bayeseval as be

    rng = np.random.default_rng(2)
    R = (rng.random((20, 5)) < rng.beta(1, 3, (20, 1))).astype(int)
    e = be.estimate(R, "pass@5", prior="hierarchical", scope="benchmark", interval="normal")
    s_vals, freq = np.unique(R.sum(axis=1), return_counts=True)
    n, M = 5, R.shape[0]
    mu = (np.arange(800) + 0.5) / 800
    lk = np.log(0.01) + (np.arange(600) + 0.5) * (np.log(1e6) - np.log(0.01)) / 600
    MU, LK = np.meshgrid(mu, lk, indexing="ij")
    a, b = (MU * np.exp(LK)).ravel(), ((1 - MU) * np.exp(LK)).ravel()
    loglik = sum(f * (betaln(a + s, b + n - s) - betaln(a, b)) for s, f in zip(s_vals, freq))
    w = np.exp(loglik - loglik.max())
    w /= w.sum()
    mean_h, var_h = np.zeros(a.size), np.zeros(a.size)
    for s, f in zip(s_vals, freq):  # g = 1 - (1 - p)^5 under Beta(a + s, b + n - s)
        A, B = a + s, b + n - s
        m1 = 1 - np.exp(betaln(A, B + 5) - betaln(A, B))
        m2 = np.exp(betaln(A, B + 10) - betaln(A, B)) - (1 - m1) ** 2
        mean_h += f * m1 / M
        var_h += f * m2 / M**2
    mean = w @ mean_h
    sd = np.sqrt(w @ var_h + w @ (mean_h - mean) ** 2)
    assert e.mean == pytest.approx(mean, abs=5e-4) and e.sd == pytest.approx(sd, rel=0.01)
    assert sd > 0.072  # the grid that cut the tail gave 0.0698
