"""The pooled (hierarchical) Dirichlet prior of categorical ``avg``: checked against independent computations.

* (a) the empirical-Bayes point maximises the Dirichlet-multinomial marginal likelihood (written here
  with ``scipy.special.gammaln`` on the raw count table, maximised with ``scipy.optimize``), and the
  Dirichlet approximation of ``m | s`` matches importance sampling from the exact conditional posterior;
* (b) closed-form posterior moments against Monte Carlo from independent numpy draws with the same
  parameters (benchmark and population scopes), and the library's own draws against its moments;
* (c) coverage of the population-scope interval in a small simulation, and the intervals on the
  bundled real data contain the sample value;
* (d) what must not change: Bayes@N, ``prior="uniform"`` / ``"dirichlet"`` for avg, max@k, binary outcomes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import optimize
from scipy.special import gammaln, logsumexp

import bayeseval as B
from bayeseval.io import read_outcomes
from bayeseval.priors import LOG_S, HierarchicalDirichlet

DATA = Path(__file__).resolve().parents[1] / "examples" / "data"


def pool_table(seed, M, N, s, m, ragged=False):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(s * np.asarray(m), size=M)
    n = rng.integers(1, N + 1, M) if ragged else np.full(M, N)
    return np.stack([rng.multinomial(k, q) for k, q in zip(n, p)])


def fit_of(table, w):
    """The fit as the estimate builds it: distinct rows with frequencies, weights rescaled to [-1, 1]."""
    rows, freq = np.unique(table, axis=0, return_counts=True)
    w = np.asarray(w, float)
    u = (w - w[0]) / np.abs(w - w[0]).max()
    return HierarchicalDirichlet.fit(rows, freq.astype(float), u), u


def dm_objective(table, s, m):
    """log DirMult(table | s m) summed over questions (multinomial coefficients dropped) + sum_c log(m_c) / K."""
    K = table.shape[1]
    n = table.sum(axis=1)
    ll = (gammaln(s) - gammaln(s + n)).sum() + (gammaln(table + s * m) - gammaln(s * m)).sum()
    return ll + np.log(m).sum() / K


def scipy_maximise(table):
    K = table.shape[1]

    def neg(theta):
        s = np.exp(theta[0])
        m = np.exp(theta[1:] - logsumexp(theta[1:]))
        return -dm_objective(table, s, m)

    freq = (table.sum(axis=0) + 1.0 / K) / (table.sum() + 1.0)
    best = None
    for ls in (0.0, 2.0, 5.0):
        res = optimize.minimize(neg, np.r_[ls, np.log(freq)], method="BFGS", options={"gtol": 1e-9, "maxiter": 5000})
        if best is None or res.fun < best.fun:
            best = res
    s = np.exp(best.x[0])
    return s, np.exp(best.x[1:] - logsumexp(best.x[1:])), -best.fun


# ----------------------------------------------------------------------------- (a) the fit
@pytest.mark.parametrize("seed,M,N,s,m", [
    (1, 40, 8, 5.0, [0.1, 0.2, 0.3, 0.4]),
    (2, 60, 3, 1.0, [0.5, 0.3, 0.15, 0.05, 0.0 + 1e-9]),  # the last category is (almost) never observed
    (3, 25, 20, 30.0, [0.25, 0.25, 0.5]),
])
def test_empirical_bayes_maximises_the_dirichlet_multinomial_likelihood(seed, M, N, s, m):
    m = np.asarray(m) / np.sum(m)
    table = pool_table(seed, M, N, s, m)
    fit, _ = fit_of(table, np.arange(table.shape[1]))
    s_hat, m_hat = fit.empirical_bayes()
    s_ref, m_ref, obj_ref = scipy_maximise(table)
    obj = dm_objective(table, s_hat, m_hat)
    assert obj >= obj_ref - 1e-7, (obj, obj_ref)
    np.testing.assert_allclose(np.log(s_hat), np.log(s_ref), atol=2e-3)
    np.testing.assert_allclose(m_hat, m_ref, atol=1e-4)
    assert (m_hat > 0).all() and abs(m_hat.sum() - 1) < 1e-12
    # the conditional fixed point m_hat(s) maximises over m at fixed s, too
    for s_fixed in (0.3, 4.0, 200.0):
        mm = fit.lik.fixed_point(np.array([s_fixed]), np.full((1, m.size), 1.0 / m.size))[0]
        res = optimize.minimize(lambda z: -dm_objective(table, s_fixed, np.exp(z - logsumexp(z))), np.log(mm) + 0.3,
                                method="BFGS", options={"gtol": 1e-10})
        assert dm_objective(table, s_fixed, mm) >= -res.fun - 1e-8
        np.testing.assert_allclose(mm, np.exp(res.x - logsumexp(res.x)), atol=1e-5)


def test_posterior_of_s_concentrates_near_the_truth():
    m = np.array([0.1, 0.2, 0.3, 0.4])
    for s_true in (1.0, 10.0, 100.0):
        fit, _ = fit_of(pool_table(int(s_true), 400, 10, s_true, m), np.arange(4))
        sd = np.sqrt(fit.w @ (fit.log_s - fit.mean_log_s) ** 2)
        assert abs(fit.mean_log_s - np.log(s_true)) < 4 * sd + 0.05, (s_true, np.exp(fit.mean_log_s), sd)
        np.testing.assert_allclose(fit.mean_m, m, atol=0.03)


@pytest.mark.slow
def test_dirichlet_approximation_of_m_given_s_matches_importance_sampling():
    """Given s, m | counts ~ Dirichlet(B m_hat): its mean and the sd of m . u against self-normalised importance
    sampling from the exact conditional posterior p(counts | s, m) Dir(m | a0)."""
    rng = np.random.default_rng(11)
    m0 = rng.dirichlet(np.full(8, 2.0))
    table = pool_table(12, 60, 10, 4.0, m0)
    K = table.shape[1]
    fit, u = fit_of(table, np.linspace(0, 1, K))
    a0 = np.full(K, 1.0 / K)
    for g in np.argsort(fit.w)[-3:]:
        s, mh, Bc = fit.s[g], fit.m[g], fit.B[g]
        q = 0.8 * Bc * mh  # a slightly wider proposal
        draws = np.maximum(rng.dirichlet(q, size=40_000), 1e-300)
        logq = gammaln(q.sum()) - gammaln(q).sum() + ((q - 1) * np.log(draws)).sum(axis=1)
        n_i = table.sum(axis=1)
        logp = np.concatenate([  # the Dirichlet-multinomial log likelihood of every draw, in chunks
            (gammaln(table[None] + s * d[:, None, :]) - gammaln(s * d[:, None, :])).sum(axis=(1, 2))
            for d in np.array_split(draws, 20)]) + (gammaln(s) - gammaln(s + n_i)).sum()
        logp += ((a0 - 1) * np.log(draws)).sum(axis=1)  # hyperprior Dir(a0)
        lw = logp - logq
        wts = np.exp(lw - lw.max())
        wts /= wts.sum()
        assert 1 / (wts**2).sum() > 5000  # a usable importance sample
        f = draws @ u
        mean_is = wts @ f
        sd_is = np.sqrt(wts @ (f - mean_is) ** 2)
        spread = mh @ u**2 - (mh @ u) ** 2
        sd_fit = np.sqrt(spread / (Bc + 1))
        sd_mean_field = np.sqrt(spread / (fit.N[g] + 1))  # Dirichlet(a0 + E[L]): too narrow
        assert abs(mh @ u - mean_is) < 0.05 * sd_is
        assert 0.97 < sd_fit / sd_is < 1.03, (s, sd_fit, sd_is)
        assert sd_mean_field / sd_is < 0.95


def test_edge_cases_of_the_fit():
    w = np.arange(4) / 3
    # all questions alike: the likelihood is flat as s -> infinity, so the posterior of s runs up to the box's top
    fit, _ = fit_of(np.tile([2, 3, 1, 0], (30, 1)), w)
    assert fit.w[fit.s > 100].sum() > 0.75 and fit.log_s.max() > LOG_S[1] - 0.5
    assert fit.empirical_bayes()[0] > 1e5
    # one question: s fixed at 1
    fit, _ = fit_of(np.array([[2, 3, 1, 0]]), w)
    assert fit.s.tolist() == [1.0] and fit.w.tolist() == [1.0]
    # a category never observed keeps a positive pool mean
    fit, _ = fit_of(pool_table(5, 30, 6, 3.0, [0.5, 0.5, 0.0 + 1e-12, 1e-12]), w)
    assert (fit.m > 0).all() and (fit.mean_m[2:] < 0.01).all()
    for est in (B.estimate(np.tile([0, 1, 1, 2], (30, 1)), "avg", w=w, scope=sc) for sc in ("benchmark", "population")):
        assert est.lo < est.value < est.hi and est.sd > 0.01


# ----------------------------------------------------------------------------- (b) moments
def _independent_draws(fit, table, u, n, rng, scope):
    """Benchmark: mean over questions of p_i . u with (cell, m, p_i) drawn by numpy; population: the Bayesian
    bootstrap of xbar_i + p_i . u - E[p_i . u | s, m]."""
    M = table.shape[0]
    n_i = table.sum(axis=1)
    xbar = table @ u / n_i
    out = np.empty(n)
    for j in range(n):
        g = rng.choice(fit.w.size, p=fit.w)
        s = fit.s[g]
        m = rng.dirichlet(fit.B[g] * fit.m[g])
        p = np.array([rng.dirichlet(x + s * m) for x in table])
        y = p @ u
        if scope == "benchmark":
            out[j] = y.mean()
        else:
            W = rng.dirichlet(np.ones(M))
            out[j] = W @ (xbar + y - (table @ u + s * (m @ u)) / (n_i + s))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("scope", ["benchmark", "population"])
def test_closed_form_moments_equal_independent_monte_carlo(scope, ragged):
    w = np.array([0.0, 0.25, 0.6, 1.0])
    table = pool_table(21, 30, 6, 3.0, [0.4, 0.3, 0.2, 0.1], ragged=ragged)
    est = B.estimate(B.Counts.from_table(table, w), "avg", w=w, scope=scope, interval="normal")
    assert est.prior == "hierarchical-dirichlet"
    fit, u = fit_of(table, w)
    post = est._post
    if scope == "population":
        assert post._population_hdir()[0] == "bootstrap"
    n = 6000
    x = _independent_draws(fit, table, u, n, np.random.default_rng(5), scope) * (w.max() - w[0]) + w[0]
    se_m = x.std() / np.sqrt(n)
    se_s = x.std() / np.sqrt(2 * (n - 1))
    assert abs(est.mean - x.mean()) < 4.5 * se_m, (est.mean, x.mean(), se_m)
    assert abs(est.sd - x.std()) < 4.5 * se_s, (est.sd, x.std(), se_s)
    # the library's own draws agree with its moments
    y = est.draws(20_000, seed=3)
    assert abs(y.mean() - est.mean) < 4.5 * y.std() / np.sqrt(y.size)
    assert abs(y.std() - est.sd) < 4.5 * y.std() / np.sqrt(2 * y.size)


def test_population_uses_the_pool_where_every_question_has_the_same_estimate():
    """All trials in one category: the bootstrap over questions sees no spread; the pool's posterior is reported,
    and its draws agree with the closed form."""
    w = np.arange(5) / 4
    R = np.full((30, 4), 3)
    bench = B.estimate(R, "avg", w=w, scope="benchmark", interval="normal")
    pop = B.estimate(R, "avg", w=w, scope="population", interval="normal")
    assert pop._post._population_hdir()[0] == "pool"
    assert pop.sd >= bench.sd > 0
    y = pop.draws(20_000, seed=1)
    assert abs(y.mean() - pop.mean) < 4.5 * y.std() / np.sqrt(y.size)
    assert abs(y.std() - pop.sd) < 4.5 * y.std() / np.sqrt(2 * y.size)


def test_large_count_groups_use_their_normal_limit():
    w = np.array([0.0, 0.5, 1.0])
    table = np.array([[3, 1, 0]] * 450 + [[0, 2, 2]] * 300 + [[1, 1, 2]] * 50)
    C = B.Counts.from_table(table, w)
    for scope in ("benchmark", "population"):
        est = B.estimate(C, "avg", w=w, scope=scope, interval="normal")
        y = est.draws(20_000, seed=4)
        assert abs(y.mean() - est.mean) < 4.5 * y.std() / np.sqrt(y.size)
        assert abs(y.std() - est.sd) < 4.5 * y.std() / np.sqrt(2 * y.size)


# ----------------------------------------------------------------------------- (c) coverage and real data
@pytest.mark.slow
def test_population_interval_covers_the_pool_mean():
    rng = np.random.default_rng(2025)
    K, M, N, reps = 10, 50, 5, 200
    w = np.arange(K) / (K - 1)
    m = rng.dirichlet(np.full(K, 3.0))
    truth = m @ w
    hits = 0
    for _ in range(reps):
        p = rng.dirichlet(20.0 * m, size=M)
        table = np.stack([rng.multinomial(N, q) for q in p])
        est = B.estimate(B.Counts.from_table(table, w), "avg", w=w, draws=1000, seed=int(rng.integers(2**31)))
        hits += est.lo <= truth <= est.hi
    assert 0.90 <= hits / reps <= 0.99, hits / reps


def _real_runs():
    t = read_outcomes(str(DATA / "tot_text.json"))
    for model in ("gpt-4 IO", "gpt-4 CoT"):
        yield f"tot_text {model}", t.counts(model), t.weights(model)
    c = read_outcomes(str(DATA / "tot_crosswords.json"))
    for dataset in ("letters", "words"):
        for model in ("gpt-4 IO", "gpt-4 CoT"):
            run = c.run(model, dataset)
            yield f"crosswords {dataset} {model}", run.counts(), run.weights


@pytest.mark.slow
@pytest.mark.parametrize("scope", ["population", "benchmark"])
def test_real_data_intervals_contain_the_sample_value(scope):
    for name, counts, w in _real_runs():
        for interval in ("exact", "normal"):
            est = B.estimate(counts, "avg", w=w, scope=scope, interval=interval)
            assert est.prior == "hierarchical-dirichlet"
            assert est.lo < est.value < est.hi, (name, scope, interval, est)
        if scope == "population":  # never narrower than the clustered standard error's interval
            assert est.hi - est.lo > 0.9 * 2 * 1.96 * est.miller_se


def test_the_reported_defect_is_fixed():
    t = read_outcomes(str(DATA / "tot_text.json"))
    old = B.estimate(t.counts("gpt-4 CoT"), "avg", w=t.weights("gpt-4 CoT"), prior="uniform")
    assert old.prior == "dirichlet" and old.hi < old.value  # Dirichlet(1..1): the interval excludes the value
    c = read_outcomes(str(DATA / "tot_crosswords.json"))
    run = c.run("gpt-4 IO", "letters")
    old = B.estimate(run.counts(), "avg", w=run.weights, prior="dirichlet")
    assert old.lo > old.value


# ----------------------------------------------------------------------------- (d) unchanged behaviour
RC = np.random.default_rng(12).integers(0, 3, (12, 6))
WC = np.array([0.0, 0.4, 1.0])


def test_bayes_is_unchanged_and_its_value_is_bayes_at_n():
    for scope in ("benchmark", "population"):
        est = B.estimate(RC, "bayes", w=WC, scope=scope, interval="normal")
        mu, sd = B.bayes(RC, WC)
        assert est.prior == "dirichlet"
        np.testing.assert_allclose(est.mean, mu, rtol=1e-12)
        np.testing.assert_allclose(est.value, mu, rtol=1e-12)  # Bayes@N, not the plain average
        if scope == "benchmark":
            np.testing.assert_allclose(est.sd, sd, rtol=1e-12)
    nu = np.array([np.bincount(r, minlength=3) + 1.0 for r in RC])
    per_q = nu @ WC / nu.sum(axis=1)
    est = B.estimate(RC, "bayes", w=WC)
    np.testing.assert_allclose(est.value, per_q.mean(), rtol=1e-12)
    np.testing.assert_allclose(est.miller_se, per_q.std(ddof=1) / np.sqrt(per_q.size), rtol=1e-10)
    with pytest.raises(ValueError, match="prior"):
        B.estimate(RC, "bayes", w=WC, prior="hierarchical-dirichlet")


@pytest.mark.parametrize("prior", ["uniform", "dirichlet"])
def test_explicit_dirichlet_prior_for_avg_is_the_old_behaviour(prior):
    """Dirichlet(1..1) per question: benchmark sd = sqrt(sum v_i) / M, population the Bayesian bootstrap."""
    nu = np.array([np.bincount(r, minlength=3) + 1.0 for r in RC])
    T = nu.sum(axis=1)
    mu = nu @ WC / T
    v = (nu * (WC[None, :] - mu[:, None]) ** 2).sum(axis=1) / (T * (T + 1))
    M = mu.size
    for scope, sd in (("benchmark", np.sqrt(v.sum()) / M),
                      ("population", np.sqrt((2 * v.sum() + ((mu - mu.mean()) ** 2).sum()) / (M * (M + 1))))):
        est = B.estimate(RC, "avg", w=WC, scope=scope, prior=prior, interval="normal")
        assert est.prior == "dirichlet"
        np.testing.assert_allclose([est.mean, est.sd], [mu.mean(), sd], rtol=1e-12)
        np.testing.assert_allclose(est.value, np.mean(WC[RC], axis=1).mean(), rtol=1e-12)


def test_defaults_and_labels():
    assert B.estimate(RC, "avg", w=WC).prior == "hierarchical-dirichlet"
    assert B.estimate(RC, "avg@n", w=WC).prior == "hierarchical-dirichlet"
    assert B.estimate(RC, "avg", w=WC, prior="hierarchical-dirichlet").prior == "hierarchical-dirichlet"
    assert B.estimate(RC, "max@2", w=WC).prior == "robust"  # centred at the unbiased estimate (posterior/maxk.py)
    assert B.estimate(RC, "max@2", w=WC, prior="dirichlet").prior == "dirichlet"
    assert B.estimate(RC, "avg", w=WC, R0=np.zeros((12, 1), int)).prior == "dirichlet"  # R0: the Bayes@N prior
    R = (np.random.default_rng(3).random((20, 5)) < 0.4).astype(int)
    assert B.estimate(R, "avg").prior == "robust"  # binary outcomes: the nonparametric pool
    assert B.estimate(R, "avg", w=[0.0, 1.0]).prior == "hierarchical-dirichlet"
    with pytest.raises(ValueError, match="hierarchical-dirichlet"):
        B.estimate(RC, "max@2", w=WC, prior="hierarchical-dirichlet")
    with pytest.raises(ValueError, match="binary"):
        B.estimate(R, "avg", prior="hierarchical-dirichlet")
    with pytest.raises(ValueError, match="R0"):
        B.estimate(RC, "avg", w=WC, prior="hierarchical-dirichlet", R0=np.zeros((12, 1), int))
    assert "prior=hierarchical-dirichlet" in repr(B.estimate(RC, "avg", w=WC))


def test_binary_avg_with_two_categories_agrees_with_the_hierarchical_beta():
    """w = (0, 1) on 0/1 outcomes: the pooled Dirichlet is a pooled Beta; the benchmark estimates agree closely."""
    rng = np.random.default_rng(8)
    R = (rng.random((60, 8)) < rng.beta(3, 5, (60, 1))).astype(int)
    a = B.estimate(R, "avg", scope="benchmark", interval="normal", prior="hierarchical")
    b = B.estimate(R, "avg", w=[0.0, 1.0], scope="benchmark", interval="normal")
    assert a.prior == "hierarchical" and b.prior == "hierarchical-dirichlet"
    assert abs(a.mean - b.mean) < 0.1 * a.sd and abs(a.sd / b.sd - 1) < 0.1
