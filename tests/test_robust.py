"""The default population model of 0/1 outcomes (prior="robust"): each piece against an independent computation.

* the mixture fit: the optimality (KKT) conditions of the smoothed NPMLE, the predictive against direct sums;
* the benchmark scope's error variance: numerical integration of E[Var(ghat | p) | s] with ghat from math.comb;
* the population scope: the Dirichlet-process posterior against Monte Carlo with numpy's Dirichlet;
* the draws against the closed-form moments; the extrapolation flag; fixed-seed coverage cells on pools
  the previous default failed (two clusters: maj@8 benchmark coverage 0%).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import bayeseval as be
from bayeseval.counts import to_counts
from bayeseval.metrics.engine import bernstein_eval
from bayeseval.posterior import build
from bayeseval.posterior.robust import RobustPosterior
from bayeseval.priors import MIX_SMOOTH, BetaMixture, _component_likelihood


def _pool_data(seed, M=60, N=8, atoms=(0.05, 0.9), weights=(0.4, 0.6)):
    rng = np.random.default_rng(seed)
    p = np.asarray(atoms)[rng.choice(len(atoms), size=M, p=weights)]
    return (rng.random((M, N)) < p[:, None]).astype(np.int8), p


def test_default_for_binary_outcomes_is_robust():
    R, _ = _pool_data(1)
    assert isinstance(build(R, "pass@2"), RobustPosterior)
    assert be.estimate(R, "avg").prior == "robust"
    assert be.estimate(R, "avg", prior="hierarchical").prior == "hierarchical"


@pytest.mark.slow
def test_mixture_fit_satisfies_the_optimality_conditions():
    """MAP of l(pi) = sum_i log sum_j pi_j L_ij + (lam/J) sum_j log pi_j on the simplex: the EM's answer is a
    fixed point pi_j = (pi_j dl/dpi_j + lam/J) / (M + lam) to 1e-4, no vertex direction gains more than 1% of
    M per unit step, and an independent optimiser (L-BFGS on softmax weights) beats it by < 1e-4 nats per question."""
    from scipy.optimize import minimize
    from scipy.special import expit, logsumexp

    from bayeseval.priors import MIX_KAPPAS, MIX_LOGIT_MEANS

    R, _ = _pool_data(2, M=80)
    c = to_counts(R)
    mix = BetaMixture.fit(c)
    n = c.n.astype(float)
    s = c.successes("avg").astype(float)
    lam = MIX_SMOOTH
    m = expit(MIX_LOGIT_MEANS)
    a_all = (m[:, None] * np.asarray(MIX_KAPPAS)[None, :]).ravel()
    b_all = ((1 - m)[:, None] * np.asarray(MIX_KAPPAS)[None, :]).ravel()
    J = a_all.size
    L = _component_likelihood(mix.a, mix.b, n, s)  # questions x retained components
    grad = L.T @ (1.0 / (L @ mix.point))
    fixed = (mix.point * grad + lam / J) / (c.M + lam)
    assert np.max(np.abs(fixed - mix.point)) < 1e-4
    assert grad.max() <= c.M * 1.01 + lam

    logL = np.log(_component_likelihood(a_all, b_all, n, s))

    def objective(z):
        logpi = z - logsumexp(z)
        return -(logsumexp(logL + logpi[None, :], axis=1).sum() + lam / J * logpi.sum())

    best = minimize(objective, np.zeros(J), method="L-BFGS-B", options={"maxiter": 5000})
    full = np.zeros(J)
    idx = [int(np.flatnonzero((a_all == a) & (b_all == b))[0]) for a, b in zip(mix.a, mix.b)]
    full[idx] = mix.point
    em = -objective(np.log(np.maximum(full, 1e-300)))
    assert em >= -best.fun - 1e-4 * c.M  # within 1e-4 nats per question of the optimum (EM stops on a gain tolerance)
    assert mix.pi.shape == (64, mix.a.size) and np.allclose(mix.pi.sum(axis=1), 1.0)


def test_predictive_is_the_mixture_of_beta_binomials():
    R, _ = _pool_data(3)
    mix = BetaMixture.fit(to_counts(R))
    direct = np.array([[stats.betabinom.pmf(t, 8, a, b) for a, b in zip(mix.a, mix.b)] for t in range(9)]) @ mix.point
    assert np.allclose(mix.predictive(8), direct, rtol=1e-10, atol=1e-14)
    assert mix.predictive(8).sum() == pytest.approx(1.0, abs=1e-12)


def _ghat_pass(t, n, k):
    return 1.0 - math.comb(n - t, k) / math.comb(n, k)


@pytest.mark.parametrize("pool", ["clusters", "beta"])
@pytest.mark.parametrize("metric,k", [("pass@3", 3), ("avg", 1)])
def test_benchmark_error_variance_by_numerical_integration(metric, k, pool):
    """Per state: E[Var(ghat | p) | s] = int [sum_t ghat(t)^2 Bin(t | n, p) - g(p)^2] post(p | s) dp, with the
    posterior of the state (the mixture with located clusters where that gives the larger variance, else the
    fitted mixture), each component integrated by quadrature; the located parameters from their definition."""
    if pool == "clusters":
        R, _ = _pool_data(4, M=40, N=6)
    else:
        rng = np.random.default_rng(4)
        R = (rng.random((40, 6)) < rng.beta(2, 2, 40)[:, None]).astype(np.int8)
    post = build(R, metric)
    err, located = post._error_moments()
    mix = post.mix
    r_bar = post.resp.mean(axis=0) * post.freq[:, None]
    sharp = mix.a + mix.b >= 100
    a_loc = np.where(sharp, 1 + r_bar.T @ post.s_u, mix.a)
    b_loc = np.where(sharp, 1 + r_bar.T @ (post.n_u - post.s_u), mix.b)
    assert np.allclose(post._located()[0], a_loc) and np.allclose(post._located()[1], b_loc)
    n = 6
    gh = np.array([(t / n if metric == "avg" else _ghat_pass(t, n, k)) for t in range(n + 1)])
    g = (lambda p: p) if metric == "avg" else (lambda p: 1 - (1 - p) ** k)

    def h(p):
        return float(gh**2 @ stats.binom.pmf(np.arange(n + 1), n, p)) - g(p) ** 2

    for u in range(post.n_u.size):
        s = int(post.s_u[u])
        a, b = (a_loc, b_loc) if located[u] else (mix.a, mix.b)
        r = post.resp[:, u, :].mean(axis=0)  # average over refits of the mixture posterior
        j = r > 1e-10  # every component at once: one adaptive quadrature of the vector of integrands
        comp, _ = integrate.quad_vec(lambda p: h(p) * stats.beta.pdf(p, a[j] + s, b[j] + n - s), 0, 1,
                                     epsabs=1e-13, epsrel=1e-10, points=[0.05, 0.5, 0.9], norm="max")
        assert err[u, 0, 0] == pytest.approx(float(r[j] @ comp), rel=2e-5, abs=1e-9), (u, s)


def test_population_scope_is_the_dp_posterior_of_the_unbiased_scores():
    """theta = sum_i W_i ghat_i + W_0 g(q), (W_0..W_M) ~ Dirichlet(1, ..., 1), q ~ U(0, 1): Monte Carlo."""
    R, _ = _pool_data(5, M=25, N=4)
    post = build(R, "pass@2")
    n = R.shape[1]
    s = R.sum(axis=1)
    gh = np.array([_ghat_pass(int(t), n, 2) for t in s])
    rng = np.random.default_rng(0)
    W = rng.dirichlet(np.ones(R.shape[0] + 1), size=400_000)
    q = rng.random(400_000)
    theta = W[:, 1:] @ gh + W[:, 0] * (1 - (1 - q) ** 2)
    mean, sd = post.moments("population")
    se = theta.std() / math.sqrt(theta.size)
    assert abs(mean - theta.mean()) < 4 * se
    M = R.shape[0]  # studentized: Student-t with M - 1 df, the spread scaled by sqrt((M + 1) / (M - 1))
    assert sd == pytest.approx(theta.std() * math.sqrt((M + 1) / (M - 1) * (M - 1) / (M - 3)), rel=0.01)
    chi2 = rng.chisquare(M - 1, theta.size)
    t_draws = theta.mean() + (theta - theta.mean()) * np.sqrt((M + 1) / chi2)
    e = be.estimate(R, "pass@2", scope="population", draws=200_000, seed=3)
    lo, hi = e.lo, e.hi
    assert (lo, hi) == pytest.approx(tuple(np.quantile(t_draws, [0.025, 0.975])), abs=2e-3)
    assert post.value() == pytest.approx(gh.mean(), abs=1e-12)


@pytest.mark.parametrize("metric", ["avg", "pass@3", "pass^2", "maj@3", "geospectrum@3"])
@pytest.mark.parametrize("scope", ["benchmark", "population"])
def test_draws_match_the_closed_form_moments(metric, scope):
    R, _ = _pool_data(6, M=50, N=6)
    post = build(R, metric)
    x = post.draws(scope, 40_000, np.random.default_rng(1))
    mean, sd = post.moments(scope)
    # GeoSpectrum's closed form is the delta method through x^lam y^(1-lam): its mean is off by O(sd^2)
    curvature = 0.05 * sd if metric.startswith("geospectrum") else 0.0
    assert abs(x.mean() - mean) < 5 * sd / math.sqrt(x.size) + curvature + 1e-9
    assert x.std() == pytest.approx(sd, rel=0.03)


def test_benchmark_scope_is_centred_at_the_unbiased_estimate_and_contains_it():
    R, _ = _pool_data(7, M=30, N=4)
    for metric in ("avg", "pass@2", "pass^3", "maj@3"):
        e = be.estimate(R, metric, scope="benchmark")
        assert e.mean == pytest.approx(e.value, abs=1e-12)
        assert e.lo <= e.value <= e.hi


def test_extrapolation_beyond_n_is_flagged_and_uses_the_pool():
    R, _ = _pool_data(8, M=40, N=4)
    post = build(R, "pass@8")
    assert post.extrapolated and post.value() is None
    mean_x = post._extrap()[0][..., 0]  # per refit and state: the posterior mean of pass@8
    mu = post.w @ mean_x
    f = post.freq
    # DP over questions with one uniform pseudo-question: E[pass@8(q)] = 1 - 1/9 for q ~ U(0, 1)
    assert post.moments("population")[0] == pytest.approx((f @ mu + 8 / 9) / (f.sum() + 1), abs=1e-12)
    one = build([[1]], "pass@8")  # one question, one trial: the pool cannot be learnt, the interval is wide
    assert one.moments("population")[1] > 0.1 and one.moments("benchmark")[1] > 0.05
    assert not build(R, "pass@4").extrapolated


def _coverage(pool_atoms, weights, M, N, metric, scope, reps, seed):
    rng = np.random.default_rng(seed)
    k_c = None
    hits = 0
    for _ in range(reps):
        p = np.asarray(pool_atoms)[rng.choice(len(pool_atoms), size=M, p=weights)]
        R = (rng.random((M, N)) < p[:, None]).astype(np.int8)
        post = build(R, metric)
        k_c = post.C[:, 0]
        truth = float(bernstein_eval(k_c, p).mean()) if scope == "benchmark" else float(weights @ bernstein_eval(k_c, np.asarray(pool_atoms)))
        mean, sd = post.moments(scope)
        hits += mean - 1.96 * sd <= truth <= mean + 1.96 * sd
    return hits / reps


@pytest.mark.slow
@pytest.mark.parametrize("metric,scope", [("maj@8", "benchmark"), ("pass^8", "benchmark"), ("avg", "population"),
                                          ("maj@8", "population")])
def test_fixed_seed_coverage_on_the_two_cluster_pool(metric, scope):
    """Two clusters (40% of questions at p = 0.05, 60% at 0.9), M = 100, N = 16, 200 replicates: the previous
    default (hierarchical Beta) covered maj@8 0% (benchmark) and 17% (population) of the time here; the
    normal interval of the robust model must cover at least 90% (MC se 1.5 points) and, except for maj@8 in
    benchmark scope, at most 99.5%.  maj@8 (benchmark) is conservative here (200 of 200): each question's
    maj@8 is 0 or 1 to within 1e-3, but its error variance is the posterior expectation over p, which puts
    weight on p near 1/2 where maj@8 varies most.  Reported in benchmarks/results_coverage_robust.md."""
    cov = _coverage((0.05, 0.9), np.array([0.4, 0.6]), 100, 16, metric, scope, 200, 11)
    assert cov >= 0.90, cov
    if (metric, scope) != ("maj@8", "benchmark"):
        assert cov <= 0.995, cov


@pytest.mark.slow
def test_fixed_seed_coverage_of_the_default_interval_on_a_skewed_metric():
    """pass^16 from 64 trials on a Beta(2,5) pool, M = 100, benchmark scope, the default (exact) interval from
    draws, 100 replicates: the skewed posterior-predictive error law covered 81-85% here (every miss with the
    truth above the interval); the symmetric interval with the same variance covers 95-97%."""
    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(100):
        p = rng.beta(2.0, 5.0, 100)
        R = (rng.random((100, 64)) < p[:, None]).astype(np.int8)
        e = be.estimate(R, "pass^16", scope="benchmark", seed=int(rng.integers(1 << 30)))
        hits += e.lo <= float(np.mean(p**16)) <= e.hi
        assert e.lo <= e.value <= e.hi
    assert hits >= 90, hits


def test_benchmark_geospectrum_with_a_zero_component_is_not_certain():
    """GeoSpectrum = x^lam y^(1-lam): with pass^8's estimate 0 the delta method's sd is 0; the benchmark
    interval draws both components jointly instead, so it is [0, something above 0], not [0, 0]."""
    R = np.zeros((40, 8), dtype=int)
    R[:5, :4] = 1
    e = be.estimate(R, "geospectrum@8", scope="benchmark")
    assert e.value == 0.0 and e.lo == 0.0 and 0.01 < e.hi < 0.2, (e.lo, e.hi)


@pytest.mark.slow
@pytest.mark.parametrize("metric", ["pass@3", "avg"])
def test_fixed_seed_coverage_small_pool_few_trials(metric):
    """Three clusters (0.02, 0.5, 0.97 at 30/30/40%), M = 30, N = 4, benchmark scope, 300 replicates."""
    cov = _coverage((0.02, 0.5, 0.97), np.array([0.3, 0.3, 0.4]), 30, 4, metric, "benchmark", 300, 12)
    assert 0.91 <= cov <= 0.99, cov


def test_benchmark_sd_on_real_data_is_close_to_the_unbiased_variance_estimate():
    """CRUXEval-I, codellama-7b (bundled; 800 questions x 10): n >= 2k, so Var(ghat_i | p_i) has an unbiased
    estimate ghat_i^2 - (unbiased estimate of g^2); the model's benchmark sd must be within 20% above it
    (the uniform-prior alternative used before gave 0.0076 against 0.0034 for pass@5)."""
    from pathlib import Path

    from bayeseval.io import read_outcomes
    from bayeseval.metrics.engine import batch_points, product_coefficients

    o = read_outcomes(Path(__file__).resolve().parents[1] / "examples" / "data" / "cruxeval.json")
    c = o.counts("codellama-7b", "CRUXEval-I")
    for k, sd_doc in ((1, None), (5, 0.0039)):
        post = build(c, f"pass@{k}")
        C = post.C[:, 0]
        x = batch_points(c, post.C)[:, 0]
        unbiased = x**2 - batch_points(c, product_coefficients(C, C)[:, None])[:, 0]
        ref = math.sqrt(post.freq @ unbiased) / post.M
        sd = post.moments("benchmark")[1]
        assert ref * 0.95 < sd < ref * 1.2, (k, sd, ref)
        if sd_doc is not None:
            assert round(sd, 4) == sd_doc  # the module docstring's number


@pytest.mark.parametrize("freq", [[1, 1, 1, 1, 1, 2], [10, 3, 2, 5, 4, 1]])  # M <= 4 U, M > 4 U
def test_dp_draws_equal_an_independent_dirichlet_construction(freq):
    # per-question exponentials (rows mostly distinct) or one Gamma(f) per row (many ties): both must be the
    # Dirichlet-process posterior, theta = (sum_i W_i x_i + W_0 y) / (sum_i W_i + W_0) with
    # (W_1..W_M, W_0) / total ~ Dirichlet(1, ..., 1, alpha); here built from numpy's Dirichlet per question
    from bayeseval.posterior.bootstrap import dp_draws, dp_moments

    rows = np.array([[0.0, 0.2], [0.25, 0.1], [0.5, 0.9], [0.75, 0.4], [1.0, 1.0], [0.1, 0.0]])
    f = np.array(freq)
    n = 40_000
    y = np.random.default_rng(1).random((n, 2))
    got = dp_draws(rows, f, y, np.random.default_rng(2), alpha=1.0)
    per_q = np.repeat(rows, f, axis=0)
    Wd = np.random.default_rng(3).dirichlet(np.r_[np.ones(per_q.shape[0]), 1.0], size=n)
    want = Wd[:, :-1] @ per_q + Wd[:, -1:] * y
    for k in range(2):
        assert stats.ks_2samp(got[:, k], want[:, k]).pvalue > 1e-3
    mean, cov = dp_moments(rows, f, np.full(2, 0.5), np.array([[1 / 3, 0.25], [0.25, 1 / 3]]), 1.0)
    np.testing.assert_allclose(got.mean(axis=0), mean, atol=4 * np.sqrt(np.diag(cov) / n).max())
    np.testing.assert_allclose(np.cov(got.T), cov, rtol=0.05)


def test_one_trial_benchmark_scope_takes_the_equally_hard_bound():
    """N = 1: Var(sum_i e_i) = sum_i p_i (1 - p_i) <= M pbar (1 - pbar), equality for equally hard questions, whose
    benchmark truth is pbar itself, drawn from half Beta(S, F + 1), half Beta(S + 1, F) (Clopper-Pearson's two
    laws): the benchmark sd is that mixture's (by numerical integration here), the draws are its, and 0 of 100
    reaches its 97.5% quantile, the rule of three's 2.95%, where drawing the sampling error at each pbar reached
    0.017."""
    from scipy import integrate, stats

    rng = np.random.default_rng(3)
    x = (rng.random((80, 1)) < rng.beta(0.5, 0.5, 80)[:, None]).astype(int)
    S = int(x.sum())
    F = 80 - S

    def pdf(t):
        return 0.5 * (stats.beta.pdf(t, S, F + 1) + stats.beta.pdf(t, S + 1, F))

    mean = integrate.quad(lambda t: t * pdf(t), 0, 1)[0]
    bound = math.sqrt(integrate.quad(lambda t: t * t * pdf(t), 0, 1)[0] - mean**2)
    post = build(x, "avg")
    m, sd = post.moments("benchmark")
    assert m == pytest.approx(S / 80, abs=1e-12) and sd == pytest.approx(bound, rel=1e-9)
    d = post.draws("benchmark", 200_000, np.random.default_rng(0))
    assert d.mean() == pytest.approx(mean, abs=4 * bound / math.sqrt(2e5))
    assert d.std() == pytest.approx(bound, rel=0.01)
    e = be.estimate(np.zeros((100, 1), int), "avg", scope="benchmark", draws=200_000, seed=1)
    q95 = 1 - 0.05 ** (1 / 100)  # half a point at 0: the mixture's 97.5% quantile is Beta(1, 100)'s 95% (2.95%)
    assert (e.lo, e.interval) == (0.0, "exact") and e.hi == pytest.approx(q95, rel=0.01)
    # pass@1 / maj@1 / pass^1 are the same linear functional of p: the same bound
    for metric in ("pass@1", "pass^1", "maj@1"):
        assert build(x, metric).moments("benchmark")[1] == pytest.approx(bound, rel=1e-12)


@pytest.mark.parametrize("metric", ["avg", "pass@3", "pass^2", "maj@3", "geospectrum@3"])
def test_pool_free_error_covariance_is_unbiased_by_enumeration(metric):
    """RobustPosterior._unbiased_error of one question with s successes of n = 6, averaged over s ~ Bin(6, p),
    equals Cov(ghat_a, ghat_b | p) enumerated from the score table: sum_t Bin(t | 6, p) ghat_a(t) ghat_b(t) -
    g_a(p) g_b(p), at several p (the payoff columns' product has degree 2k <= 6)."""
    n = 6
    posts = [build(np.array([[1] * s + [0] * (n - s)]), metric) for s in range(n + 1)]
    terms = np.stack([p._unbiased_error() for p in posts])  # (n + 1, m, m)
    C = posts[0].C
    table = np.stack([p._scores()[0] for p in posts])  # ghat of every column, s = 0..n
    for q in (0.03, 0.3, 0.5, 0.8, 0.97):
        w = stats.binom.pmf(np.arange(n + 1), n, q)
        g = np.array([bernstein_eval(C[:, j], np.array([q]))[0] for j in range(C.shape[1])])
        cov = np.einsum("t,ta,tb->ab", w, table, table) - np.outer(g, g)
        assert np.allclose(np.einsum("t,tab->ab", w, terms), cov, atol=1e-12), q


def test_benchmark_variance_is_the_larger_of_the_model_and_the_pool_free_estimate():
    """Two clusters (0.05 / 0.9), M = 30, N = 16, pass@8: the fitted pool can split the p = 0.05 cluster and
    predict too small an error variance (coverage 90.2% with it alone, 93.8% with the larger of the two); the
    benchmark variance is the larger of that and the unbiased sum over questions, which is computed here
    directly from ghat_i^2 and the unbiased score of g^2."""
    from bayeseval.metrics.engine import batch_points, product_coefficients

    raised = 0
    for seed in range(6):
        R, _ = _pool_data(seed, M=30, N=16)
        post = build(R, "pass@8")
        counts = to_counts(R)
        C = post.C[:, 0]
        x = batch_points(counts, post.C)[:, 0]
        free = post.freq @ (x**2 - batch_points(counts, product_coefficients(C, C)[:, None])[:, 0])
        model = post.freq @ post._error_moments()[0][:, 0, 0]
        sd = post.moments("benchmark")[1]
        assert sd == pytest.approx(math.sqrt(max(model, free)) / 30, rel=1e-9)
        raised += free > model
    assert 0 < raised < 6  # both branches occur on these seeds


@pytest.mark.parametrize("metric", ["pass@3", "pass^3", "maj@3", "pass@4", "geospectrum@3"])
def test_square_minorant_makes_an_upper_bound_of_the_error_variance_by_enumeration(metric):
    """n = 4 < 2k trials: g^2 has no unbiased score, but L <= g^2 of degree 4 does, so over s ~ Bin(4, p)
    E[ghat(s)^2 - L^(s)] = Var(ghat | p) + g(p)^2 - L(p) >= Var(ghat | p): enumerated at eleven p, with L
    checked below g^2 on a grid of 100,001 points, for every payoff column."""
    from bayeseval.metrics.engine import product_coefficients, score_table
    from bayeseval.posterior.robust import square_minorant

    n = 4
    R, _ = _pool_data(3, M=40, N=n)
    post = build(R, metric)
    fine = np.linspace(0.0, 1.0, 100_001)
    for a in range(post.C.shape[1]):
        C = post.C[:, a]
        L = square_minorant(C, n, post.mix.predictive(n))
        assert np.all(bernstein_eval(L, fine) <= bernstein_eval(product_coefficients(C, C), fine) + 1e-12)
        ghat = score_table(post.C[:, [a]], n)[:, 0]
        Ls = score_table(L[:, None], n)[:, 0]
        assert np.allclose(Ls, L, atol=1e-12)  # n = degree: the unbiased score of s is the s-th coefficient
        for q in np.linspace(0.0, 1.0, 11):
            w = stats.binom.pmf(np.arange(n + 1), n, q)
            g = bernstein_eval(C, np.array([q]))[0]
            var = w @ ghat**2 - g**2
            gap = g**2 - bernstein_eval(L, np.array([q]))[0]
            assert w @ (ghat**2 - Ls) == pytest.approx(var + gap, abs=1e-12)
            assert gap >= -1e-12
        # close to g^2 where the pool is (L = 0 would be 0.3 or more away): the gap averaged over the two
        # clusters (0.05 / 0.9 at 40 / 60%) is under 0.01
        at = np.array([0.05, 0.9])
        gaps = bernstein_eval(C, at) ** 2 - bernstein_eval(L, at)
        assert np.array([0.4, 0.6]) @ gaps < 0.01
        # more trials than the degree: the unbiased score of L from n' = 5..9 trials averages to L(p)
        for n2 in (5, 7, 9):
            table = score_table(L[:, None], n2)[:, 0]
            for q in (0.05, 0.5, 0.9):
                assert stats.binom.pmf(np.arange(n2 + 1), n2, q) @ table == pytest.approx(
                    bernstein_eval(L, np.array([q]))[0], abs=1e-12)


def test_square_minorant_is_close_to_g_squared_where_the_weights_are():
    """pass^3 (g^2 = p^6) from 4 trials, weights of the two-cluster pool (0.05 / 0.9): the minorant is within
    0.005 of p^6 at both clusters (Var(ghat | 0.9) = 0.143), and with uniform weights within 0.035 anywhere."""
    from bayeseval.posterior.robust import square_minorant

    C = np.array([0.0, 0.0, 0.0, 1.0])
    w = 0.4 * stats.binom.pmf(np.arange(5), 4, 0.05) + 0.6 * stats.binom.pmf(np.arange(5), 4, 0.9)
    L = square_minorant(C, 4, w)
    for q in (0.05, 0.9):
        assert 0 <= q**6 - bernstein_eval(L, np.array([q]))[0] < 0.005
    t = np.linspace(0, 1, 1001)
    assert np.max(t**6 - bernstein_eval(square_minorant(C, 4, np.ones(5)), t)) < 0.035


def test_benchmark_variance_with_fewer_than_2k_trials_takes_the_minorant_bound():
    """Two clusters (0.05 / 0.9), M = 30, N = 4, pass^3 (n < 2k): the benchmark variance is the larger of the
    model's and sum_i [ghat_i^2 - L^(s_i)], computed here from square_minorant directly; on these seeds the
    model's is below the true sum_i Var(ghat_i | p_i) most of the time and the bound is raised."""
    from bayeseval.metrics.engine import score_table
    from bayeseval.posterior.robust import square_minorant

    raised = below = 0
    table = score_table(np.array([[0.0], [0.0], [0.0], [1.0]]), 4)[:, 0]
    for seed in range(6):
        R, p = _pool_data(seed, M=30, N=4)
        post = build(R, "pass^3")
        L = square_minorant(post.C[:, 0], 4, post.mix.predictive(4))
        x = post._scores()[:, 0]
        free = post.freq @ (x**2 - L[post.s_u])
        model = post.freq @ post._error_moments()[0][:, 0, 0]
        assert post.moments("benchmark")[1] == pytest.approx(math.sqrt(max(model, free)) / 30, rel=1e-9)
        true = sum(stats.binom.pmf(np.arange(5), 4, q) @ table**2 - q**6 for q in p)
        raised += free > model
        below += model < true
    assert raised >= 3 and below >= 3


def test_ragged_trials_below_2k_share_at_most_eight_minorants(monkeypatch):
    """Trial counts 10..19 for pass@10 (ten distinct n < 2k): eight linear programs, each n taking the
    minorant of the largest degree not above it (degree elevation keeps its unbiased score); the benchmark
    sd is finite and at least the model's."""
    rng = np.random.default_rng(4)
    M = 60
    R = (rng.random((M, 19)) < rng.beta(1, 3, M)[:, None]).astype(float)
    for i in range(M):
        R[i, 10 + i % 10:] = np.nan
    import bayeseval.posterior.robust as robust

    degrees = []
    real = robust.square_minorant
    monkeypatch.setattr(robust, "square_minorant", lambda c, d, w: degrees.append(d) or real(c, d, w))
    post = build(to_counts(R, missing=np.nan), "pass@10")
    assert np.unique(post.n_u).size == 10
    post.moments("benchmark")
    assert sorted(degrees) == [10, 11, 13, 14, 15, 16, 18, 19]  # evenly spaced over the distinct n
    model = post.freq @ post._error_moments()[0][:, 0, 0]
    sd = post.moments("benchmark")[1]
    assert math.isfinite(sd) and sd >= math.sqrt(model) / M - 1e-15


def test_trial_counts_above_and_below_2k_each_take_their_pool_free_term():
    """pass@3 with 4, 6 and 8 trials per question: questions with n >= 6 = 2k give the unbiased term
    ghat^2 - (g^2)^, those with 4 the minorant bound ghat^2 - L^ (degree 4), summed by hand here."""
    from bayeseval.metrics.engine import product_coefficients, score_table
    from bayeseval.posterior.robust import square_minorant

    rng = np.random.default_rng(8)
    M = 45
    p = np.where(rng.random(M) < 0.4, 0.05, 0.9)
    R = (rng.random((M, 8)) < p[:, None]).astype(float)
    R[:15, 4:] = np.nan
    R[15:30, 6:] = np.nan
    post = build(to_counts(R, missing=np.nan), "pass@3")
    C = post.C[:, 0]
    total = 0.0
    for n in (4, 6, 8):
        rows = post.n_u == n
        x, s, f = post._scores()[rows, 0], post.s_u[rows], post.freq[rows]
        if n >= 6:
            total += f @ (x**2 - score_table(product_coefficients(C, C)[:, None], n)[s, 0])
        else:
            total += f @ (x**2 - square_minorant(C, 4, post.mix.predictive(4))[s])
    assert post._unbiased_error()[0, 0] == pytest.approx(total, rel=1e-12)


def test_the_minorant_bound_is_capped_at_the_largest_variance():
    """One question, 3 of 4 trials, pass^3: the bound ghat^2 - L^(3) (0.51) exceeds the largest variance of
    ghat over p (0.173 at p = 0.83, found here on a fine grid), which caps it: sd = sqrt(0.173)."""
    from bayeseval.metrics.engine import score_table

    post = build(np.array([[1, 1, 1, 0]]), "pass^3")
    t = np.linspace(0, 1, 100_001)
    table = score_table(post.C, 4)[:, 0]
    most = np.max(bernstein_eval(table**2, t) - t**6)
    assert post.moments("benchmark")[1] == pytest.approx(math.sqrt(most), rel=1e-5)


def test_a_noisy_minorant_is_not_used():
    """maj@15 from 20 trials (Beta(1, 1) pool, M = 100): a degree-20 minorant of g^2 (degree 30) has oscillating
    coefficients and its sum is mostly noise (it once made the sd 2.8 times the true sd); it is not used, and
    the benchmark sd stays within 30% of the true sd sqrt(sum_i Var(ghat_i | p_i)) / M on every seed."""
    from bayeseval.metrics.engine import score_table

    for seed in range(5):
        rng = np.random.default_rng(seed)
        p = rng.beta(1, 1, 100)
        R = (rng.random((100, 20)) < p[:, None]).astype(np.int8)
        post = build(R, "maj@15")
        table = score_table(post.C, 20)[:, 0]
        true = math.sqrt(sum(stats.binom.pmf(np.arange(21), 20, q) @ table**2
                             - bernstein_eval(post.C[:, 0], np.array([q]))[0] ** 2 for q in p)) / 100
        model = post.freq @ post._error_moments()[0][:, 0, 0]
        assert post._unbiased_error()[0, 0] == pytest.approx(model, rel=1e-12)  # the model's terms only
        assert post.moments("benchmark")[1] / true == pytest.approx(1.0, abs=0.3)


@pytest.mark.slow
def test_fixed_seed_coverage_of_pass_at_k_on_the_two_cluster_pool_with_16_trials():
    """The cell the model-only variance failed (pass@8, two clusters, M = 30, N = 16, benchmark scope: 90.2%
    [88.2, 92.0] at 1,000 replicates): 300 replicates of the normal interval must cover at least 91%."""
    cov = _coverage((0.05, 0.9), np.array([0.4, 0.6]), 30, 16, "pass@8", "benchmark", 300, 21)
    assert cov >= 0.91, cov


def test_population_estimate_carried_by_few_questions_is_a_warning():
    """carrying_questions() = (sum y)^2 / sum y^2, y the scores measured from the end of the range nearer the
    estimate: 15 questions, one always solved and one solved twice in 4 (pass^2 scores 1 and 1/6): 1.32, so
    the population scope warns and names what to do; the benchmark scope does not; a pool whose questions
    all contribute (every question solved about half the time) carries on all of them and does not warn."""
    R = np.zeros((15, 4), dtype=int)
    R[0] = 1
    R[1, :2] = 1
    post = build(R, "pass^2")
    assert post.carrying_questions() == pytest.approx((7 / 6) ** 2 / (1 + 1 / 36), rel=1e-12)
    warned = be.estimate(R, "pass^2").warnings
    assert any("rests on about 1.3 of 15 questions" in w and "evaluate more questions" in w for w in warned)
    assert not any("rests on about" in w for w in be.estimate(R, "pass^2", scope="benchmark").warnings)
    half = (np.arange(60).reshape(15, 4) % 2).astype(int)
    assert build(half, "avg").carrying_questions() == pytest.approx(15.0)
    assert not any("rests on about" in w for w in be.estimate(half, "avg").warnings)
    with pytest.raises(ValueError, match="carrying_questions needs an unbiased score"):
        build(R, "pass@8").carrying_questions()  # 4 trials: extrapolated, no unbiased score


def test_benchmark_draws_carry_the_pool_free_variance_with_one_trial_questions():
    """Three questions with one trial send the benchmark draws through the per-question error law; the
    pool-free excess (questions with n >= 2k) must reach them too, so draws and closed-form sd agree."""
    rng = np.random.default_rng(21)
    p = rng.choice([0.02, 0.1, 0.5], 20)
    R = (rng.random((20, 4)) < p[:, None]).astype(float)
    R[:3, 1:] = np.nan
    post = build(to_counts(R, missing=np.nan), "avg")
    model = np.einsum("u,uab->ab", post.freq, post._error_moments()[0])
    assert post._pool_free_excess(model)[0] > 0  # the raise is active here
    x = post.draws("benchmark", 200_000, np.random.default_rng(0))
    assert x.std() == pytest.approx(post.moments("benchmark")[1], rel=0.01)


@pytest.mark.parametrize("M", [1, 2, 3])
def test_three_questions_or_fewer_give_the_whole_range_in_population_scope(M):
    """Student-t with M - 1 <= 2 degrees of freedom has no variance (one question: one degree of freedom):
    the sd is the largest any law on the range with that mean has, sqrt(m (1 - m)) (Bhatia-Davis; it was half
    the range, which no law with a mean of 0.75 reaches), and the intervals reach both ends or close to them."""
    R = np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 0]])[:M]
    for interval in ("normal", "exact"):
        e = be.estimate(R, "avg", interval=interval, seed=2)
        m = e.mean  # the posterior mean (the estimate, shrunk towards the uniform pseudo-question)
        assert 0.5 <= m < 0.7 and e.sd == pytest.approx(math.sqrt(m * (1 - m)), abs=1e-12) and e.sd <= 0.5
        assert e.lo <= 0.13 and e.hi >= 0.87, (interval, e.lo, e.hi)


def test_a_model_at_the_end_of_the_range_is_not_warned_as_carried_by_few_questions():
    for R in (np.ones((30, 4), dtype=int), np.zeros((30, 4), dtype=int)):
        post = build(R, "avg")
        assert post.carrying_questions() == 0.0
        assert not any("rests on about" in w for w in be.estimate(R, "avg").warnings)
