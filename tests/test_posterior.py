"""The maths of ``bayeseval.estimate``: scopes, priors and intervals checked independently.

Every expected number here is computed without bayeseval's posterior code:

* payoff vectors are written out from the metric definitions and ``g(p)`` is
  evaluated with ``scipy.stats.binom`` (or the closed form ``1 - (1-p)^k``);
* per-question posterior moments come from Beta integrals written with
  ``scipy.special.betaln`` (``E[B_j B_l]`` of Bernstein basis polynomials);
* Monte Carlo references draw ``p_i ~ Beta`` / ``theta_i ~ Dirichlet`` and the
  Bayesian-bootstrap weights ``W ~ Dirichlet(1..1)`` with numpy directly;
* the hierarchical posterior is integrated on a brute-force midpoint grid in
  ``(mu, log kappa)`` with ``scipy.stats.betabinom``;
* the scorio-compatible ``*_ci`` functions (themselves differentially tested
  against scorio in ``test_scorio_diff.py``) are the reference for the
  benchmark scope with the normal interval.

Monte Carlo tolerances are ``Z`` standard errors (SE of a mean ``sd/sqrt(n)``;
SE of an sd from the sample fourth moment, ``sqrt((m4 - s^4)/n) / (2 s)``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from scipy.special import betaln

import bayeseval as B
from bayeseval import to_counts
from bayeseval.priors import HierarchicalBeta

Z = 4.0  # standard errors allowed in Monte Carlo comparisons
TIGHT = dict(rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- independent helpers
def payoff(name: str, k: int, tau: float | None = None) -> np.ndarray:
    """Payoff ``c[j]`` for exactly ``j`` of ``k`` correct, from each metric's definition."""
    j = np.arange(k + 1)
    if name == "pass":
        return (j >= 1).astype(float)
    if name == "hat":
        return (j == k).astype(float)
    if name == "maj":  # strictly more than half
        return (2 * j > k).astype(float)
    if name == "gpass":  # at least max(1, ceil(tau k)) correct, tau k in exact arithmetic
        j0 = max(1, math.ceil(Fraction(tau).limit_denominator(10**6) * k))
        return (j >= j0).astype(float)
    if name == "mg":
        m = math.ceil(k / 2)
        return np.where(j > m, 2.0 * (j - m) / k, 0.0)
    if name == "auc":  # trapezoid over pass@1..pass@k, each pass@i lifted to degree k
        lifted = [np.array([1 - math.comb(k - jj, i) / math.comb(k, i) for jj in j]) for i in range(1, k + 1)]
        if k == 1:
            return lifted[0]
        return sum((lifted[i] + lifted[i + 1]) / 2 for i in range(k - 1)) / (k - 1)
    raise KeyError(name)


def g_of_p(c, p):
    """``g(p) = sum_j c_j P(Binomial(k, p) = j)`` for any array ``p``."""
    c = np.asarray(c, float)
    k = c.size - 1
    p = np.asarray(p, float)
    return sum(c[j] * stats.binom.pmf(j, k, p) for j in range(k + 1))


def beta_moments(c, a, b):
    """``E[g(p)]`` and ``Var[g(p)]`` for ``p ~ Beta(a, b)`` from Beta integrals of Bernstein products."""
    c = np.asarray(c, float)
    k = c.size - 1
    coef = np.array([c[j] * math.comb(k, j) for j in range(k + 1)])
    m1 = sum(coef[j] * math.exp(betaln(a + j, b + k - j) - betaln(a, b)) for j in range(k + 1))
    m2 = sum(
        coef[j] * coef[l] * math.exp(betaln(a + j + l, b + 2 * k - j - l) - betaln(a, b))
        for j in range(k + 1)
        for l in range(k + 1)
    )
    return m1, max(m2 - m1 * m1, 0.0)


def binary_counts(rows):
    """(n_i, s_i) from a list of 0/1 rows (ragged allowed)."""
    n = np.array([len(r) for r in rows], float)
    s = np.array([sum(r) for r in rows], float)
    return n, s


def rows_of(R):
    return [list(map(int, r)) for r in np.asarray(R)]


def mc_se_mean_sd(x):
    """Sample mean and sd of ``x`` with their standard errors."""
    n = x.size
    m = x.mean()
    d = x - m
    s2 = np.mean(d**2)
    s = math.sqrt(s2)
    m4 = np.mean(d**4)
    return m, s, s / math.sqrt(n), math.sqrt(max(m4 - s2 * s2, 0.0) / n) / (2 * s)


def assert_mc(value, mc, se, what, extra=0.0):
    assert abs(value - mc) <= Z * se + extra, f"{what}: {value!r} vs Monte Carlo {mc!r} (SE {se:.3g}, allowance {extra:.3g})"


def bootstrap_weights(rng, n, M):
    g = rng.standard_exponential((n, M))
    return g / g.sum(axis=1, keepdims=True)


def binary_matrix(seed, M, N, a=1.5, b=2.0):
    rng = np.random.default_rng(seed)
    return (rng.random((M, N)) < rng.beta(a, b, (M, 1))).astype(int)


R_BIN = binary_matrix(11, 14, 7)
R_CAT = np.random.default_rng(12).integers(0, 3, (12, 6))
W_CAT = np.array([0.0, 0.4, 1.0])
R0_CAT = np.random.default_rng(13).integers(0, 3, (12, 2))
RAGGED_ROWS = [list(np.random.default_rng(100 + i).integers(0, 2, 2 + (i * 5) % 9)) for i in range(18)]
RAGGED = to_counts(RAGGED_ROWS, ragged=True)


# ----------------------------------------------------------------------------- 1. benchmark + normal = scorio *_ci
BERNSTEIN_CASES = [
    ("pass@3", {}, lambda R, **kw: B.pass_at_k_ci(R, 3, **kw)),
    ("pass@7", {}, lambda R, **kw: B.pass_at_k_ci(R, 7, **kw)),
    ("pass^2", {}, lambda R, **kw: B.pass_hat_k_ci(R, 2, **kw)),
    ("maj@5", {}, lambda R, **kw: B.maj_at_k_ci(R, 5, **kw)),
    ("cons@4", {}, lambda R, **kw: B.maj_at_k_ci(R, 4, **kw)),
    ("g-pass@6", {"tau": 0.5}, lambda R, **kw: B.g_pass_at_k_tau_ci(R, 6, 0.5, **kw)),
    ("mg-pass@5", {}, lambda R, **kw: B.mg_pass_at_k_ci(R, 5, **kw)),
    ("auc@4", {}, lambda R, **kw: B.auc_at_k_ci(R, 4, **kw)),
    ([0.0, 0.2, 1.0, 0.3], {}, lambda R, **kw: B.bernstein_at_k_ci(R, [0.0, 0.2, 1.0, 0.3], **kw)),
    ("avg", {}, lambda R, **kw: B.pass_at_k_ci(R, 1, **kw)),
]


@pytest.mark.parametrize("prior", ["uniform", (0.5, 2.0), "jeffreys"])
@pytest.mark.parametrize("metric,params,ref", BERNSTEIN_CASES, ids=lambda x: str(x) if not callable(x) else "")
def test_benchmark_normal_matches_reference_ci(metric, params, ref, prior):
    a0, b0 = {"uniform": (1.0, 1.0), "jeffreys": (0.5, 0.5)}.get(prior, prior) if isinstance(prior, str) else prior
    for R in (R_BIN, RAGGED):
        est = B.estimate(R, metric, scope="benchmark", prior=prior, interval="normal", level=0.9, **params)
        mu, sigma, lo, hi = ref(R, confidence=0.9, alpha0=a0, beta0=b0)
        np.testing.assert_allclose([est.mean, est.sd], [mu, sigma], **TIGHT)
        np.testing.assert_allclose([est.lo, est.hi], [lo, hi], **TIGHT)


def test_benchmark_normal_alpha0_beta0_keywords_match_reference():
    est = B.estimate(R_BIN, "pass@3", scope="benchmark", alpha0=2.0, beta0=0.7, interval="normal")
    mu, sigma, lo, hi = B.pass_at_k_ci(R_BIN, 3, alpha0=2.0, beta0=0.7)
    np.testing.assert_allclose([est.mean, est.sd, est.lo, est.hi], [mu, sigma, lo, hi], **TIGHT)


def test_benchmark_normal_bayes_with_w_and_R0_matches_bayes_ci():
    est = B.estimate(R_CAT, "bayes", w=W_CAT, R0=R0_CAT, scope="benchmark", interval="normal")
    mu, sigma, lo, hi = B.bayes_ci(R_CAT, W_CAT, R0_CAT)
    np.testing.assert_allclose([est.mean, est.sd, est.lo, est.hi], [mu, sigma, lo, hi], **TIGHT)
    est = B.estimate(R_CAT, "bayes", w=W_CAT, scope="benchmark", interval="normal")
    mu, sigma, lo, hi = B.bayes_ci(R_CAT, W_CAT)
    np.testing.assert_allclose([est.mean, est.sd, est.lo, est.hi], [mu, sigma, lo, hi], **TIGHT)
    # binary "bayes" without w is Bayes@N with weights (0, 1)
    est = B.estimate(R_BIN, "bayes", scope="benchmark", interval="normal")
    np.testing.assert_allclose([est.mean, est.sd], B.bayes_ci(R_BIN)[:2], **TIGHT)


@pytest.mark.parametrize("k", [1, 3, 8])
def test_benchmark_normal_max_at_k_matches_max_at_k_ci(k):
    est = B.estimate(R_CAT, f"max@{k}", w=W_CAT, scope="benchmark", interval="normal", prior="dirichlet")
    mu, sigma, lo, hi = B.max_at_k_ci(R_CAT, k, W_CAT)
    np.testing.assert_allclose([est.mean, est.sd, est.lo, est.hi], [mu, sigma, lo, hi], **TIGHT)
    est = B.estimate(R_CAT, "max@k", k=k, w=W_CAT, R0=R0_CAT, scope="benchmark", interval="normal")
    np.testing.assert_allclose([est.mean, est.sd], B.max_at_k_ci(R_CAT, k, W_CAT, R0_CAT)[:2], **TIGHT)


@pytest.mark.parametrize("lam,weights", [(0.5, None), (0.3, [0.1, 0.2, 0.3, 0.4]), (1.0, None), (0.0, [0, 0, 0.5, 0.5])])
def test_benchmark_normal_geospectrum_matches_geo_spectrum_ci(lam, weights):
    kw = {} if weights is None else {"weights": weights}
    for prior, (a0, b0) in (("uniform", (1.0, 1.0)), ((0.5, 1.5), (0.5, 1.5))):
        est = B.estimate(R_BIN, "geospectrum@4", lam=lam, scope="benchmark", prior=prior, interval="normal", **kw)
        mu, sigma, lo, hi = B.geo_spectrum_at_k_ci(R_BIN, 4, lam=lam, alpha0=a0, beta0=b0, **kw)
        np.testing.assert_allclose([est.mean, est.sd, est.lo, est.hi], [mu, sigma, lo, hi], **TIGHT)


def test_benchmark_normal_per_question_moments_written_out():
    """Independent of the reference too: mean_i E[g], sqrt(sum Var[g]) / M with Beta integrals."""
    n, s = binary_counts(RAGGED_ROWS)
    for metric, c in (("pass@3", payoff("pass", 3)), ("mg-pass@4", payoff("mg", 4)), ("auc@3", payoff("auc", 3))):
        mv = np.array([beta_moments(c, 1 + si, 1 + ni - si) for ni, si in zip(n, s)])
        est = B.estimate(RAGGED, metric, scope="benchmark", prior="uniform", interval="normal")
        M = len(n)
        np.testing.assert_allclose([est.mean, est.sd], [mv[:, 0].mean(), math.sqrt(mv[:, 1].sum()) / M], rtol=1e-10)


# ----------------------------------------------------------------------------- 2. population scope: closed form
POP_CASES = [("pass@3", payoff("pass", 3)), ("maj@3", payoff("maj", 3)), ("avg", np.array([0.0, 1.0])),
             ([0.0, 1.0, 0.25], np.array([0.0, 1.0, 0.25])), ("pass^4", payoff("hat", 4))]


def _pop_formula(mu, v):
    M = mu.size
    return mu.mean(), math.sqrt((2 * v.sum() + ((mu - mu.mean()) ** 2).sum()) / (M * (M + 1)))


@pytest.mark.parametrize("prior", ["uniform", (0.5, 2.0)])
@pytest.mark.parametrize("metric,c", POP_CASES, ids=lambda x: str(x) if not isinstance(x, np.ndarray) else "")
def test_population_closed_form_formula(metric, c, prior):
    a0, b0 = (1.0, 1.0) if prior == "uniform" else prior
    for rows, data in ((rows_of(R_BIN), R_BIN), (RAGGED_ROWS, RAGGED)):
        n, s = binary_counts(rows)
        mv = np.array([beta_moments(c, a0 + si, b0 + ni - si) for ni, si in zip(n, s)])
        est = B.estimate(data, metric, scope="population", prior=prior, interval="normal")
        np.testing.assert_allclose([est.mean, est.sd], _pop_formula(mv[:, 0], mv[:, 1]), rtol=1e-10, atol=1e-13)


def test_population_closed_form_formula_bayes_categorical():
    """Dirichlet(1 + counts + R0) per question; Bayes@N moments written out."""
    K = W_CAT.size
    nu = np.array([np.bincount(r, minlength=K) + np.bincount(r0, minlength=K) + 1.0 for r, r0 in zip(R_CAT, R0_CAT)])
    T = nu.sum(axis=1)
    mu = nu @ W_CAT / T
    v = (nu * (W_CAT[None, :] - mu[:, None]) ** 2).sum(axis=1) / (T * (T + 1))
    est = B.estimate(R_CAT, "bayes", w=W_CAT, R0=R0_CAT, scope="population", interval="normal")
    np.testing.assert_allclose([est.mean, est.sd], _pop_formula(mu, v), rtol=1e-10)


def _mc_binary(rows, c, a0, b0, rng, n_mc, scope):
    n, s = binary_counts(rows)
    p = rng.beta(a0 + s, b0 + n - s, size=(n_mc, n.size))
    gp = g_of_p(c, p)
    if scope == "benchmark":
        return gp.mean(axis=1)
    return (bootstrap_weights(rng, n_mc, n.size) * gp).sum(axis=1)


@pytest.mark.parametrize("scope", ["population", "benchmark"])
@pytest.mark.parametrize("metric,c,prior", [("pass@3", payoff("pass", 3), "uniform"),
                                            ("maj@3", payoff("maj", 3), (0.5, 2.0)),
                                            ("avg", np.array([0.0, 1.0]), "jeffreys")])
@pytest.mark.slow
def test_closed_form_vs_independent_monte_carlo(metric, c, prior, scope):
    a0, b0 = {"uniform": (1.0, 1.0), "jeffreys": (0.5, 0.5)}.get(prior, prior) if isinstance(prior, str) else prior
    rng = np.random.default_rng(2024)
    x = _mc_binary(RAGGED_ROWS, c, a0, b0, rng, 100_000, scope)
    m, s, se_m, se_s = mc_se_mean_sd(x)
    est = B.estimate(RAGGED, metric, scope=scope, prior=prior, interval="normal")
    assert_mc(est.mean, m, se_m, f"{metric} {scope} mean")
    assert_mc(est.sd, s, se_s, f"{metric} {scope} sd")


def _max_at_k_of_theta(theta, w, k):
    """E[max of k i.i.d. draws] for category probabilities ``theta`` (last axis) and rewards ``w``."""
    order = np.argsort(w, kind="stable")
    ws, th = w[order], theta[..., order]
    F = np.cumsum(th, axis=-1)
    F_prev = np.concatenate([np.zeros(F.shape[:-1] + (1,)), F[..., :-1]], axis=-1)
    return ((F**k - F_prev**k) * ws).sum(axis=-1)


@pytest.mark.slow
@pytest.mark.parametrize("scope", ["population", "benchmark"])
@pytest.mark.parametrize("metric", ["bayes", "max@3"])
def test_categorical_closed_form_vs_independent_monte_carlo(metric, scope):
    rng = np.random.default_rng(77)
    K, n_mc, M = W_CAT.size, 60_000, R_CAT.shape[0]
    nu = np.array([np.bincount(r, minlength=K) + 1.0 for r in R_CAT])
    gam = rng.standard_gamma(np.broadcast_to(nu, (n_mc, M, K)))
    theta = gam / gam.sum(axis=-1, keepdims=True)
    per_q = theta @ W_CAT if metric == "bayes" else _max_at_k_of_theta(theta, W_CAT, 3)
    x = per_q.mean(axis=1) if scope == "benchmark" else (bootstrap_weights(rng, n_mc, M) * per_q).sum(axis=1)
    m, s, se_m, se_s = mc_se_mean_sd(x)
    est = B.estimate(R_CAT, metric, w=W_CAT, scope=scope, interval="normal", prior="dirichlet")
    assert_mc(est.mean, m, se_m, f"{metric} {scope} mean")
    assert_mc(est.sd, s, se_s, f"{metric} {scope} sd")


# ----------------------------------------------------------------------------- 3. draws agree with the moments
def _geo_allowance(data, scope, prior, lam, k, weights):
    """Second-order (delta-method) bias bound of x^lam y^(1-lam): 0.5 lam (1-lam) f (sd_x/x + sd_y/y)^2.

    The GeoSpectrum moments are a first-order delta method (as in scorio); the draws are exact.
    """
    w = np.asarray(weights, float)
    A = np.concatenate([[0.0], np.cumsum(w)])  # spectrum payoff A_j = w_1 + ... + w_j
    ex = B.estimate(data, f"pass@{k}", scope=scope, prior=prior, interval="normal")
    ey = B.estimate(data, list(A), scope=scope, prior=prior, interval="normal")
    f = ex.mean**lam * ey.mean ** (1 - lam)
    return 0.5 * lam * (1 - lam) * f * (ex.sd / ex.mean + ey.sd / ey.mean) ** 2


DRAW_CASES = [("avg", {}), ("pass@3", {}), ("maj@3", {}), ("geospectrum@4", {"lam": 0.4, "weights": [0.1, 0.2, 0.3, 0.4]})]


@pytest.mark.parametrize("prior", ["hierarchical", "uniform"])
@pytest.mark.parametrize("scope", ["benchmark", "population"])
@pytest.mark.parametrize("metric,params", DRAW_CASES, ids=[c[0] for c in DRAW_CASES])
def test_draws_agree_with_moments_binary(metric, params, scope, prior):
    n = 20_000
    for name, data in (("matrix", binary_matrix(5, 40, 6)), ("ragged", RAGGED)):
        est = B.estimate(data, metric, scope=scope, prior=prior, interval="normal", **params)
        m, s, se_m, se_s = mc_se_mean_sd(est.draws(n, seed=31))
        extra = _geo_allowance(data, scope, prior, params["lam"], 4, params["weights"]) if "lam" in params else 0.0
        assert_mc(est.mean, m, se_m, f"{name} {metric} {scope} {prior} mean", extra)
        assert_mc(est.sd, s, se_s, f"{name} {metric} {scope} {prior} sd", extra)


@pytest.mark.parametrize("scope", ["benchmark", "population"])
@pytest.mark.parametrize("metric,params", [("bayes", {}), ("bayes", {"R0": R0_CAT}), ("max@3", {}), ("avg", {})])
def test_draws_agree_with_moments_categorical(metric, params, scope):
    n = 20_000
    est = B.estimate(R_CAT, metric, w=W_CAT, scope=scope, interval="normal", **params)
    m, s, se_m, se_s = mc_se_mean_sd(est.draws(n, seed=8))
    assert_mc(est.mean, m, se_m, f"{metric} {scope} mean")
    assert_mc(est.sd, s, se_s, f"{metric} {scope} sd")


def test_draws_agree_with_moments_categorical_ragged():
    rows = [list(np.random.default_rng(200 + i).integers(0, 3, 1 + i % 7)) for i in range(15)]
    C = to_counts(rows, ragged=True)
    for metric in ("bayes", "max@2"):
        for scope in ("benchmark", "population"):
            est = B.estimate(C, metric, w=W_CAT, scope=scope, interval="normal")
            m, s, se_m, se_s = mc_se_mean_sd(est.draws(20_000, seed=9))
            assert_mc(est.mean, m, se_m, f"ragged {metric} {scope} mean")
            assert_mc(est.sd, s, se_s, f"ragged {metric} {scope} sd")


@pytest.mark.parametrize("scope", ["benchmark", "population"])
def test_draws_agree_with_moments_large_groups(scope):
    """Count states shared by more than 200 questions are drawn from their normal limit."""
    rng = np.random.default_rng(21)
    Rb = (rng.random((3000, 4)) < rng.beta(1.0, 1.5, (3000, 1))).astype(int)
    Rc = rng.integers(0, 3, (3000, 2))
    cases = [(Rb, m, pr, {}) for m in ("avg", "pass@3") for pr in ("hierarchical", "uniform")]
    cases += [(Rb, "geospectrum@4", "uniform", {"lam": 0.5, "weights": [0.25] * 4})]
    cases += [(Rc, m, None, {"w": W_CAT}) for m in ("bayes", "max@2")]
    for data, metric, prior, kw in cases:
        est = B.estimate(data, metric, scope=scope, prior=prior, interval="normal", **kw)
        m, s, se_m, se_s = mc_se_mean_sd(est.draws(20_000, seed=6))
        extra = _geo_allowance(data, scope, prior, 0.5, 4, kw["weights"]) if "lam" in kw else 0.0
        assert_mc(est.mean, m, se_m, f"{metric} {prior} mean", extra)
        assert_mc(est.sd, s, se_s, f"{metric} {prior} sd", extra)


@pytest.mark.slow
@pytest.mark.parametrize("scope", ["benchmark", "population"])
def test_geospectrum_draws_are_the_exact_posterior(scope):
    """Draws of x^lam y^(1-lam) vs an independent Monte Carlo of the blended dataset-level components."""
    lam, weights = 0.4, np.array([0.1, 0.2, 0.3, 0.4])
    cp, cs = payoff("pass", 4), np.concatenate([[0.0], np.cumsum(weights)])
    rng = np.random.default_rng(99)
    n_mc = 60_000
    n, s = binary_counts(RAGGED_ROWS)
    p = rng.beta(1 + s, 1 + n - s, size=(n_mc, n.size))
    W = np.full((n_mc, n.size), 1.0 / n.size) if scope == "benchmark" else bootstrap_weights(rng, n_mc, n.size)
    x, y = (W * g_of_p(cp, p)).sum(axis=1), (W * g_of_p(cs, p)).sum(axis=1)
    ref = x**lam * y ** (1 - lam)
    est = B.estimate(RAGGED, "geospectrum@4", lam=lam, weights=weights, scope=scope, prior="uniform", interval="normal")
    d = est.draws(20_000, seed=4)
    m1, s1, se1, ses1 = mc_se_mean_sd(d)
    m2, s2, se2, ses2 = mc_se_mean_sd(ref)
    assert abs(m1 - m2) <= Z * math.hypot(se1, se2), (m1, m2)
    assert abs(s1 - s2) <= Z * math.hypot(ses1, ses2), (s1, s2)


@pytest.mark.parametrize("prior", ["hierarchical", "uniform"])
@pytest.mark.parametrize("scope", ["benchmark", "population"])
def test_draws_reproducible_and_seed_dependent(scope, prior):
    est = B.estimate(R_BIN, "pass@3", scope=scope, prior=prior)
    a, b, c = est.draws(500, seed=3), est.draws(500, seed=3), est.draws(500, seed=4)
    assert a.shape == (500,) and np.isfinite(a).all()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    np.testing.assert_array_equal(est.draws(300), est.draws(300))  # the estimate's own seed
    again = B.estimate(R_BIN, "pass@3", scope=scope, prior=prior)
    assert (again.lo, again.hi) == (est.lo, est.hi)
    other = B.estimate(R_BIN, "pass@3", scope=scope, prior=prior, seed=12345)
    assert (other.lo, other.hi) != (est.lo, est.hi)


def test_draws_reproducible_for_normal_interval_estimates():
    """The default seed is constant, so draws of a normal-interval estimate are reproducible too."""
    est = B.estimate(R_BIN, "pass@3", interval="normal")
    np.testing.assert_array_equal(est.draws(200), est.draws(200))
    est = B.estimate(R_BIN, "pass@3", interval="normal", seed=5)
    np.testing.assert_array_equal(est.draws(200), est.draws(200))
    assert est.confidence_interval(method="exact") == est.confidence_interval(method="exact")


@pytest.mark.slow
@pytest.mark.parametrize("scope", ["benchmark", "population"])
@pytest.mark.parametrize("method", ["exact", "hdi"])
def test_draw_interval_holds_its_level_under_independent_monte_carlo(scope, method):
    """Posterior mass between lo and hi, judged by an independent Monte Carlo, is the level
    (within the binomial errors of both the library's 4000 draws and the reference sample)."""
    level, n_lib, n_mc = 0.9, 4000, 100_000
    c = payoff("pass", 3)
    rng = np.random.default_rng(5)
    x = _mc_binary(RAGGED_ROWS, c, 1.0, 1.0, rng, n_mc, scope)
    est = B.estimate(RAGGED, "pass@3", scope=scope, prior="uniform", interval=method, level=level, draws=n_lib)
    mass = np.mean((x >= est.lo) & (x <= est.hi))
    tol = Z * math.sqrt(level * (1 - level) * (1 / n_lib + 1 / n_mc))
    assert abs(mass - level) <= tol, (mass, tol)
    if method == "exact":
        for q, end in (((1 - level) / 2, est.lo), ((1 + level) / 2, est.hi)):
            F = np.mean(x <= end)
            assert abs(F - q) <= Z * math.sqrt(q * (1 - q) * (1 / n_lib + 1 / n_mc)), (q, F)
    else:  # no wider than the central interval from the same draws
        central = est.confidence_interval(method="exact")
        assert est.hi - est.lo <= central[1] - central[0] + 1e-12


# ----------------------------------------------------------------------------- 4. one question: exact Beta quantiles
SINGLE = [  # (s, n, metric, payoff name, k, prior, (alpha0, beta0))
    (4, 8, "pass@3", "pass", 3, "uniform", (1.0, 1.0)),
    (8, 8, "pass^3", "hat", 3, "uniform", (1.0, 1.0)),
    (0, 8, "pass@3", "pass", 3, "uniform", (1.0, 1.0)),
    (1, 10, "pass@5", "pass", 5, "jeffreys", (0.5, 0.5)),
    (3, 5, "maj@3", "maj", 3, (2.0, 0.5), (2.0, 0.5)),
    (6, 9, "avg", None, 1, "uniform", (1.0, 1.0)),
    (2, 6, "mg-pass@4", "mg", 4, "uniform", (1.0, 1.0)),
]


def _g_single(name, k):
    c = np.array([0.0, 1.0]) if name is None else payoff(name, k)
    return lambda p: float(g_of_p(c, np.array([p]))[0])


def _invert(g, x):
    """p with g(p) = x for a non-decreasing g on [0, 1] (bisection; endpoints clamp)."""
    lo, hi = 0.0, 1.0
    if x <= g(0.0):
        return 0.0
    if x >= g(1.0):
        return 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if g(mid) < x:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _single_setup(case):
    """One question with s of n correct: its outcome row, g, and the Beta posterior (a, b)."""
    s, n, metric, name, k, prior, (a0, b0) = case
    return np.array([[1] * s + [0] * (n - s)]), metric, name, k, prior, _g_single(name, k), a0 + s, b0 + n - s


@pytest.mark.parametrize("case", SINGLE, ids=[f"{c[2]}-{c[0]}of{c[1]}" for c in SINGLE])
def test_single_question_exact_interval_is_beta_quantiles(case):
    R, metric, name, k, prior, g, a, b = _single_setup(case)
    for scope in ("benchmark", "population"):
        est = B.estimate(R, metric, prior=prior, interval="exact", scope=scope)
        for level, (lo, hi) in ((0.95, (est.lo, est.hi)), (0.8, est.confidence_interval(0.8))):
            central = [g(stats.beta.ppf((1 - level) / 2, a, b)), g(stats.beta.ppf((1 + level) / 2, a, b))]
            if est.value is not None and est.value >= 1.0 and central[1] < est.value:
                # the estimate sits on the top of the range: the one-sided interval holding `level` that reaches it
                central = [g(stats.beta.ppf(1 - level, a, b)), 1.0]
            elif est.value is not None and est.value <= 0.0 and central[0] > est.value:
                central = [0.0, g(stats.beta.ppf(level, a, b))]
            np.testing.assert_allclose([lo, hi], central, rtol=1e-9, atol=1e-12)
            assert lo <= est.value <= hi if est.value is not None else True


@pytest.mark.parametrize("case", SINGLE, ids=[f"{c[2]}-{c[0]}of{c[1]}" for c in SINGLE])
def test_single_question_hdi_is_shortest_with_the_level(case):
    R, metric, name, k, prior, g, a, b = _single_setup(case)
    level = 0.95
    hdi = B.estimate(R, metric, prior=prior, interval="hdi", level=level)
    exact = B.estimate(R, metric, prior=prior, interval="exact", level=level)
    width = hdi.hi - hdi.lo
    assert width <= exact.hi - exact.lo + 1e-12
    # posterior mass between the endpoints, by inverting the monotone g
    mass = stats.beta.cdf(_invert(g, hdi.hi), a, b) - stats.beta.cdf(_invert(g, hdi.lo), a, b)
    assert mass >= level - 1e-6, mass
    # brute force over lower-tail probabilities t: no interval [g(F^-1(t)), g(F^-1(t + level))] is shorter
    t = np.linspace(0.0, 1.0 - level, 20001)
    ends = g_of_p(np.array([0.0, 1.0]) if name is None else payoff(name, k),
                  stats.beta.ppf(np.concatenate([t, t + level]), a, b))
    widths = ends[t.size:] - ends[: t.size]
    assert width <= widths.min() + 1e-7, (width, widths.min())


def test_single_question_non_monotone_payoff_interval_holds_level():
    """A non-monotone payoff has no quantile shortcut; the draw-based interval still holds ~ the level."""
    R = np.array([[1, 0, 1, 1, 0, 0]])
    c = np.array([0.0, 1.0, 0.0])  # exactly one of two correct: 2 p (1 - p), peaks at 1/2
    rng = np.random.default_rng(3)
    x = g_of_p(c, rng.beta(4, 4, 200_000))
    est = B.estimate(R, list(c), prior="uniform", interval="exact", level=0.9)
    mass = np.mean((x >= est.lo) & (x <= est.hi))
    assert abs(mass - 0.9) <= Z * math.sqrt(0.09 * (1 / 4000 + 1 / 200_000))
    assert 0.0 <= est.lo <= est.hi <= 0.5 + 1e-12


# ----------------------------------------------------------------------------- 5. hierarchical prior
def integrate_hierarchical(n, s, G=500):
    """Posterior moments of (mu, log kappa) on a brute-force midpoint grid: mu ~ U(0, 1),
    log kappa ~ U(log 0.01, log 1e6), likelihood prod_i BetaBinomial(s_i; n_i, mu kappa, (1-mu) kappa)."""
    lo, hi = math.log(0.01), math.log(1e6)
    mu = (np.arange(G) + 0.5) / G
    lk = lo + (np.arange(G) + 0.5) / G * (hi - lo)
    MU, LK = np.meshgrid(mu, lk, indexing="ij")
    K = np.exp(LK)
    a, b = MU * K, (1 - MU) * K
    ll = np.zeros_like(a)
    states, freq = np.unique(np.column_stack([n, s]), axis=0, return_counts=True)
    for (ni, si), f in zip(states, freq):
        ll += f * stats.betabinom.logpmf(si, ni, a, b)
    w = np.exp(ll - ll.max())
    w /= w.sum()
    out = {"mu": (w * MU).sum(), "log_kappa": (w * LK).sum()}
    out["sd_mu"] = math.sqrt((w * (MU - out["mu"]) ** 2).sum())
    out["pass3"] = (w * (1 - np.exp(betaln(a, b + 3) - betaln(a, b)))).sum()
    return out


HIER_DATA = [
    [[1] * s + [0] * (5 - s) for s in (0, 1, 3, 5, 2, 4)],
    [[1] * s + [0] * (n - s) for n, s in ((3, 1), (8, 2), (5, 5), (10, 9))],  # ragged
    [[1] * s + [0] * (6 - s) for s in (0, 0, 0, 1, 0)],  # nearly all failures
]


@pytest.fixture(scope="module")
def hier_reference():
    out = []
    for rows in HIER_DATA:
        n, s = binary_counts(rows)
        out.append(integrate_hierarchical(n, s))
    return out


@pytest.mark.parametrize("i", range(len(HIER_DATA)))
def test_hierarchical_fit_mu_matches_2d_integration(i, hier_reference):
    ref = hier_reference[i]
    C = to_counts(HIER_DATA[i], ragged=True)
    fit = HierarchicalBeta.fit(C)
    assert abs(fit.mean_mu - ref["mu"]) <= 1e-3, (fit.mean_mu, ref["mu"])
    np.testing.assert_allclose(fit.w.sum(), 1.0, rtol=1e-12)


@pytest.mark.parametrize("i", range(len(HIER_DATA)))
def test_hierarchical_fit_log_kappa_matches_2d_integration(i, hier_reference):
    """The hyperprior is log kappa ~ U(log 0.01, log 1e6); the posterior mean of log kappa must match
    the integral over exactly that box (a grid resolution of ~0.6 in log kappa allows ~1e-2)."""
    ref = hier_reference[i]
    fit = HierarchicalBeta.fit(to_counts(HIER_DATA[i], ragged=True))
    assert abs(fit.mean_log_kappa - ref["log_kappa"]) <= 1e-2, (fit.mean_log_kappa, ref["log_kappa"])


@pytest.mark.parametrize("i", range(len(HIER_DATA)))
def test_hierarchical_population_avg_is_posterior_of_mu(i, hier_reference):
    ref = hier_reference[i]
    C = to_counts(HIER_DATA[i], ragged=True)
    fit = HierarchicalBeta.fit(C)
    est = B.estimate(C, "avg", scope="population", prior="hierarchical", interval="normal")
    mu_grid = fit.a / (fit.a + fit.b)
    np.testing.assert_allclose(est.mean, fit.w @ mu_grid, rtol=1e-12)
    np.testing.assert_allclose(est.sd, math.sqrt(fit.w @ (mu_grid - fit.w @ mu_grid) ** 2), rtol=1e-9)
    assert abs(est.mean - ref["mu"]) <= 1e-3
    assert abs(est.sd - ref["sd_mu"]) <= 2e-3 * ref["sd_mu"] + 1e-4
    # pass@3 of a new question: E[1 - B(a, b + 3) / B(a, b)] over the hyperposterior
    est3 = B.estimate(C, "pass@3", scope="population", prior="hierarchical", interval="normal")
    per_point = 1 - np.exp(betaln(fit.a, fit.b + 3) - betaln(fit.a, fit.b))
    np.testing.assert_allclose(est3.mean, fit.w @ per_point, rtol=1e-8)
    assert abs(est3.mean - ref["pass3"]) <= 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("metric,c", [("avg", np.array([0.0, 1.0])), ("pass@3", payoff("pass", 3)), ("maj@3", payoff("maj", 3))])
def test_hierarchical_benchmark_moments_vs_model_monte_carlo(metric, c):
    rows = HIER_DATA[1] + HIER_DATA[0]
    C = to_counts(rows, ragged=True)
    fit = HierarchicalBeta.fit(C)
    n, s = binary_counts(rows)
    rng = np.random.default_rng(17)
    n_mc = 100_000
    g = rng.choice(fit.w.size, size=n_mc, p=fit.w)
    p = rng.beta(fit.a[g][:, None] + s, fit.b[g][:, None] + n - s)
    x = g_of_p(c, p).mean(axis=1)
    m, sd, se_m, se_s = mc_se_mean_sd(x)
    est = B.estimate(C, metric, scope="benchmark", prior="hierarchical", interval="normal")
    assert_mc(est.mean, m, se_m, f"{metric} mean")
    assert_mc(est.sd, sd, se_s, f"{metric} sd")


def test_default_priors():
    est = B.estimate(R_BIN, "avg")
    assert est.prior == "robust" and est.scope == "population" and est.method == "exact"
    assert B.estimate(R_CAT, "bayes", w=W_CAT).prior == "dirichlet"
    assert B.estimate(R_BIN, "pass@2", alpha0=0.5, beta0=0.5).prior == "jeffreys"


# ----------------------------------------------------------------------------- 6. Miller SE and the point value
def _unbiased_per_question(kind, n, s, k):
    n, s = int(n), int(s)
    if kind == "pass":
        return 1 - math.comb(n - s, k) / math.comb(n, k)
    if kind == "maj":  # hypergeometric: more than k/2 of a random k-subset correct
        return sum(math.comb(s, j) * math.comb(n - s, k - j) for j in range(k // 2 + 1, k + 1)) / math.comb(n, k)
    if kind == "hat":
        return math.comb(s, k) / math.comb(n, k)
    if kind == "avg":
        return s / n
    raise KeyError(kind)


def _miller(x):
    x = np.asarray(x, float)
    M = x.size
    return math.sqrt(((x - x.mean()) ** 2).sum() / (M * (M - 1)))


@pytest.mark.parametrize("metric,kind,k", [("pass@3", "pass", 3), ("maj@5", "maj", 5), ("pass^2", "hat", 2), ("avg", "avg", 1)])
@pytest.mark.parametrize("prior", ["uniform", "hierarchical"])
def test_miller_se_and_value_independent(metric, kind, k, prior):
    for rows, data in ((rows_of(R_BIN), R_BIN), ([r for r in RAGGED_ROWS if len(r) >= 5], None)):
        data = to_counts(rows, ragged=True) if data is None else data
        n, s = binary_counts(rows)
        x = [_unbiased_per_question(kind, ni, si, k) for ni, si in zip(n, s)]
        est = B.estimate(data, metric, prior=prior, interval="normal")
        np.testing.assert_allclose(est.miller_se, _miller(x), rtol=1e-10)
        np.testing.assert_allclose(est.value, np.mean(x), rtol=1e-12, atol=1e-15)


def test_miller_se_geospectrum_delta_method():
    """Per-question influence of x^lam y^(1-lam): lam f / X * P_i + (1 - lam) f / Y * S_i (delta method)."""
    lam, k, weights = 0.3, 4, np.array([0.1, 0.2, 0.3, 0.4])
    A = np.concatenate([[0.0], np.cumsum(weights)])
    n, s = binary_counts(rows_of(R_BIN))
    P = np.array([_unbiased_per_question("pass", ni, si, k) for ni, si in zip(n, s)])
    S = np.array([sum(A[j] * math.comb(int(si), j) * math.comb(int(ni - si), k - j) for j in range(k + 1))
                  / math.comb(int(ni), k) for ni, si in zip(n, s)])
    X, Y = P.mean(), S.mean()
    f = X**lam * Y ** (1 - lam)
    est = B.estimate(R_BIN, "geospectrum@4", lam=lam, weights=weights)
    np.testing.assert_allclose(est.value, f, rtol=1e-12)
    np.testing.assert_allclose(est.miller_se, _miller(lam * f / X * P + (1 - lam) * f / Y * S), rtol=1e-10)


def test_miller_se_categorical_avg_and_max():
    xs_avg = [W_CAT[r].mean() for r in R_CAT]
    est = B.estimate(R_CAT, "avg", w=W_CAT, interval="normal")
    np.testing.assert_allclose([est.value, est.miller_se], [np.mean(xs_avg), _miller(xs_avg)], rtol=1e-10)
    k = 3
    xs_max = []
    for r in R_CAT:
        v = np.sort(W_CAT[r])
        nn = v.size
        xs_max.append(sum(math.comb(i - 1, k - 1) * v[i - 1] for i in range(k, nn + 1)) / math.comb(nn, k))
    est = B.estimate(R_CAT, "max@3", w=W_CAT, interval="normal")
    np.testing.assert_allclose([est.value, est.miller_se], [np.mean(xs_max), _miller(xs_max)], rtol=1e-10)


def test_miller_se_none_for_one_question_or_k_above_n():
    assert B.estimate(np.array([[1, 0, 1, 1]]), "pass@2").miller_se is None
    assert B.estimate(np.array([[1, 0, 1, 1]]), "avg").miller_se is None
    C = to_counts([[1, 0, 1, 1, 0], [1, 0]], ragged=True)
    est = B.estimate(C, "pass@3", prior="uniform")
    assert est.value is None and est.miller_se is None
    assert 0.0 <= est.lo <= est.mean <= est.hi <= 1.0  # the latent metric still has a posterior
    est = B.estimate(np.array([[1, 0], [0, 0]]), "pass@5")
    assert est.value is None and est.miller_se is None


VALUE_CASES = [
    ("pass@4", {}, lambda R: B.pass_at_k(R, 4)),
    ("pass^3", {}, lambda R: B.pass_hat_k(R, 3)),
    ("maj@5", {}, lambda R: B.maj_at_k(R, 5)),
    ("g-pass@6", {"tau": 0.5}, lambda R: B.g_pass_at_k_tau(R, 6, 0.5)),
    ("mg-pass@4", {}, lambda R: B.mg_pass_at_k(R, 4)),
    ("auc@5", {}, lambda R: B.auc_at_k(R, 5)),
    ("geospectrum@4", {"lam": 0.3}, lambda R: B.geo_spectrum_at_k(R, 4, lam=0.3)),
    ([0, 0.5, 1, 0.2], {}, lambda R: B.bernstein_at_k(R, [0, 0.5, 1, 0.2])),
    ("avg", {}, lambda R: B.avg(R)[0]),
]


@pytest.mark.parametrize("metric,params,ref", VALUE_CASES, ids=[str(c[0]) for c in VALUE_CASES])
def test_value_equals_reference_point_estimate(metric, params, ref):
    for prior in ("uniform", None):
        est = B.estimate(R_BIN, metric, prior=prior, **params)
        np.testing.assert_allclose(est.value, ref(R_BIN), rtol=1e-12, atol=1e-15)


def test_value_categorical_equals_reference():
    np.testing.assert_allclose(B.estimate(R_CAT, "max@4", w=W_CAT).value, B.max_at_k(R_CAT, 4, W_CAT), rtol=1e-12)
    np.testing.assert_allclose(B.estimate(R_CAT, "avg", w=W_CAT).value, B.avg(R_CAT, W_CAT)[0], rtol=1e-12)


def test_value_none_where_k_exceeds_some_ragged_row():
    C = to_counts([[1, 0, 1, 1, 0, 1], [0, 1, 1], [1, 1, 0, 0, 0]], ragged=True)
    assert B.estimate(C, "pass@3").value is not None
    for metric in ("pass@4", "maj@5", "geospectrum@4", "auc@6"):
        assert B.estimate(C, metric).value is None, metric
    Cc = to_counts([[0, 2, 1, 1], [2, 1]], ragged=True)
    assert B.estimate(Cc, "max@3", w=W_CAT).value is None
    assert B.estimate(Cc, "max@2", w=W_CAT).value == pytest.approx(B.max_at_k(Cc, 2, W_CAT), rel=1e-12)
