"""compare_all(shrink=True): partial pooling of the models' scores (bayeseval.comparison.pooling), checked against
a brute-force computation of the same hierarchical normal model, and end to end in the library, CLI and service."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayeseval as be
from bayeseval import validate as V
from bayeseval.cli import main
from bayeseval.comparison.paired import delta_interval
from bayeseval.comparison.pooling import pooled_draws


def _brute(joint: np.ndarray, width: float, pairs):
    """The same model integrated another way: tau on a fine uniform grid, the marginal likelihood from explicit
    inverses of Sigma + tau^2 I, and per tau the exact normal law of (mu, theta) (mu integrated analytically);
    returns P(theta_i > theta_j) for each pair and the posterior means."""
    y, S = joint.mean(axis=0), np.cov(joint, rowvar=False)
    K = y.size
    one = np.ones(K)
    taus = np.linspace(width / 40000, width, 40000)
    logm, parts = [], []
    Si = np.linalg.inv(S)
    for t in taus[::20]:  # the likelihood at every 20th point, weighted by its 20 cells
        C = S + t * t * np.eye(K)
        Ci = np.linalg.inv(C)
        a = one @ Ci @ one
        mu = one @ Ci @ y / a
        r = y - mu
        logm.append(-0.5 * np.linalg.slogdet(C)[1] - 0.5 * np.log(a) - 0.5 * r @ Ci @ r)
        V_ = np.linalg.inv(Si + np.eye(K) / t**2)
        m0, m1 = V_ @ (Si @ y), V_ @ (one / t**2)
        parts.append((m0 + m1 * mu, V_ + np.outer(m1, m1) / a))
    w = np.exp(np.array(logm) - max(logm))
    w /= w.sum()
    probs = []
    for i, j in pairs:
        c = np.zeros(K)
        c[i], c[j] = 1.0, -1.0
        probs.append(sum(wt * stats.norm.cdf(c @ m / np.sqrt(c @ C_ @ c)) for wt, (m, C_) in zip(w, parts)))
    return np.array(probs), sum(wt * m for wt, (m, _) in zip(w, parts))


def test_pooled_draws_match_brute_force_integration():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(4, 4)) * 0.01
    Sigma = A @ A.T + np.diag([0.02, 0.015, 0.02, 0.03]) ** 2  # correlated, as paired scores are
    joint = rng.multivariate_normal([0.50, 0.53, 0.58, 0.51], Sigma, size=200_000)
    draws, tau = pooled_draws(joint, (0.0, 1.0), np.random.default_rng(1))
    want, means = _brute(joint, 1.0, [(1, 0), (2, 3), (2, 0)])
    got = [np.mean(draws[:, i] > draws[:, j]) for i, j in [(1, 0), (2, 3), (2, 0)]]
    np.testing.assert_allclose(got, want, atol=0.004)  # MC se of each about 0.001
    np.testing.assert_allclose(draws.mean(axis=0), means, atol=6e-4)
    assert 0 < tau["lo"] < tau["median"] < tau["hi"] < 1


def test_far_apart_models_are_left_alone_close_ones_pulled_together():
    rng = np.random.default_rng(2)
    far = rng.multivariate_normal([0.2, 0.5, 0.8], np.eye(3) * 0.01**2, size=50_000)
    pooled, tau = pooled_draws(far, (0.0, 1.0), np.random.default_rng(3))
    np.testing.assert_allclose(pooled.mean(axis=0), far.mean(axis=0), atol=2e-3)
    np.testing.assert_allclose(pooled.std(axis=0), far.std(axis=0), rtol=0.05)
    assert 0.2 < tau["median"] < 0.8
    close = rng.multivariate_normal([0.50, 0.52, 0.54], np.eye(3) * 0.015**2, size=50_000)
    pooled, _ = pooled_draws(close, (0.0, 1.0), np.random.default_rng(3))
    flat_p = np.mean(close[:, 2] > close[:, 0])
    pooled_p = np.mean(pooled[:, 2] > pooled[:, 0])
    assert 0.5 < pooled_p < flat_p - 0.05  # about 0.97 without the prior
    spread = np.ptp(pooled.mean(axis=0))
    assert spread < 0.75 * np.ptp(close.mean(axis=0))


def test_identical_models_give_a_finite_answer():
    """A singular covariance (two models with the same scores in every draw) is allowed: their difference is 0."""
    rng = np.random.default_rng(4)
    x = rng.normal(0.5, 0.02, 20_000)
    joint = np.column_stack([x, x, rng.normal(0.6, 0.02, 20_000)])
    pooled, tau = pooled_draws(joint, (0.0, 1.0), np.random.default_rng(5))
    assert np.all(np.isfinite(pooled)) and np.isfinite(tau["median"])
    assert np.abs(pooled[:, 0] - pooled[:, 1]).max() < 1e-12


def test_a_pooled_pairs_normal_interval_is_scipy_normal_from_the_draws_moments():
    """compare_all(shrink=True, interval="normal"): the pooled difference's mean -+ z sd (paired.delta_interval, the
    rule paired_difference uses), within the difference's range."""
    x = np.random.default_rng(6).normal(0.1, 0.05, 100_000)
    lo, hi = delta_interval(x, x.mean(), x.std(), 0.95, "normal", (0.0, 1.0))
    assert (lo, hi) == pytest.approx(stats.norm.interval(0.95, loc=x.mean(), scale=x.std()), rel=1e-12)
    assert delta_interval(x, x.mean(), x.std(), 0.9, "exact", (0.0, 1.0))[0] == pytest.approx(np.quantile(x, 0.05))
    assert delta_interval(x + 1.5, 1.6, 0.6, 0.95, "normal", (0.0, 1.0))[1] == 1.0  # clamped to the range


def _models(shifts, M=120, N=4, seed=7):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, M)
    return {f"m{k}": (rng.random((M, N)) < np.clip(p + s, 0, 1)[:, None]).astype(int) for k, s in enumerate(shifts)}


def test_compare_all_shrink_changes_only_the_pooled_quantities():
    models = _models([0.0, 0.01, 0.02, 0.03])
    flat = be.compare_all(models, seed=1, pairs="all", resamples=500)
    pooled = be.compare_all(models, seed=1, pairs="all", resamples=500, shrink=True)
    assert flat.shrink is None and set(pooled.shrink) == {"median", "lo", "hi"}
    assert pooled.models == flat.models
    for m in models:  # each model's own estimate is kept
        assert pooled.scores[m].mean == flat.scores[m].mean and pooled.scores[m].hi == flat.scores[m].hi
    for a, b in zip(flat.pairs, pooled.pairs):
        assert (a["a"], a["b"], a["p_value"], a["p_holm"], a["decision"]) == \
               (b["a"], b["b"], b["p_value"], b["p_holm"], b["decision"])
        if abs(a["p_a_better"] - 0.5) > 0.1:  # close models: pulled towards even odds
            assert abs(b["p_a_better"] - 0.5) < abs(a["p_a_better"] - 0.5) - 0.02
        assert b["lo"] < b["delta"] < b["hi"]
    assert max(pooled.p_best.values()) < max(flat.p_best.values())
    d = pooled.to_dict()
    assert d["shrink"] == pooled.shrink and "partially pooled" in pooled.summary()
    assert json.dumps(be.compare_all(models, seed=1, resamples=500, shrink=True).to_dict())  # JSON-safe


def test_compare_all_shrink_refuses_two_models_and_non_booleans():
    models = _models([0.0, 0.05])
    with pytest.raises(V.ArgumentError, match="shrink needs at least three models"):
        be.compare_all(models, shrink=True)
    with pytest.raises(TypeError, match="shrink must be True or False"):
        be.compare_all(_models([0.0, 0.05, 0.1]), shrink="yes")


def _long_csv(path, models):
    rows = [{"model": k, "question": f"q{i}", "trial": j, "score": int(R[i, j])}
            for k, R in models.items() for i in range(R.shape[0]) for j in range(R.shape[1])]
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def test_cli_rank_shrink(tmp_path, capsys):
    path = _long_csv(tmp_path / "three.csv", _models([0.0, 0.01, 0.02], M=60))
    code = main(["rank", path, "--shrink", "--pairs", "all", "--resamples", "200", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "--shrink: P(best), E[rank], the differences and P(A>B) pool the models' scores" in out
    code = main(["rank", path, "--shrink", "--resamples", "200", "--format", "json", "--quiet"])
    out, _ = capsys.readouterr()
    assert code == 0 and set(json.loads(out)["shrink"]) == {"median", "lo", "hi"}
    two = _long_csv(tmp_path / "two.csv", _models([0.0, 0.01], M=60))
    code = main(["rank", two, "--shrink", "--quiet"])
    _, err = capsys.readouterr()
    assert code == 2 and err.strip() == ("bayeseval: error: --shrink needs at least three models (the spread of two "
                                         "is not identified), got 2")


def test_service_rank_shrink():
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from bayeseval.service.app import Settings, create_app

    models = {k: {"matrix": R.tolist()} for k, R in _models([0.0, 0.01, 0.02], M=40).items()}
    with TestClient(create_app(Settings(workers=0))) as c:
        r = c.post("/v1/rank", json={"models": models, "shrink": True, "resamples": 200})
        assert r.status_code == 200 and set(r.json()["shrink"]) == {"median", "lo", "hi"}
        r = c.post("/v1/rank", json={"models": dict(list(models.items())[:2]), "shrink": True})
        assert r.status_code == 422 and r.json()["error"]["field"] == "shrink"
        r = c.post("/v1/rank", json={"models": models, "shrink": "yes"})
        assert r.status_code == 422 and r.json()["error"]["field"] == "shrink"


def test_too_few_questions_per_model_read_a_spread_into_identical_models_so_shrink_refuses_them():
    """40 identical models on 30 questions x 1 trial: the covariance of their scores, estimated from 30 questions, is
    below rank, and the pooled model reads a spread into contrasts that have none (tau's 95% interval excludes 0 by
    far).  compare_all(shrink=True) needs at least 5 questions per model."""
    from bayeseval.comparison.joint import base_measure, dp_bootstrap
    from bayeseval.comparison.paired import question_scores
    from bayeseval.posterior import build
    from bayeseval.counts import to_counts

    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, 30)
    R = {f"m{k}": (rng.random((30, 1)) < p[:, None]).astype(int) for k in range(40)}
    posts = [build(to_counts(r), "avg") for r in R.values()]
    X = np.column_stack([question_scores(q) for q in posts])
    _, _, joint = dp_bootstrap(X, posts[0].C[:, 0], base_measure(posts[0]), 4000, np.random.default_rng(1))
    _, tau = pooled_draws(joint, (0.0, 1.0), np.random.default_rng(2))
    assert tau["lo"] > 0.04  # the truth is 0
    with pytest.raises(V.ArgumentError, match=r"shrink needs at least 5 questions per model, .* got 30 questions for "
                                               r"40 models"):
        be.compare_all(R, shrink=True)
    with pytest.raises(V.ArgumentError, match="got 30 questions for 7 models"):
        be.compare_all(dict(list(R.items())[:7]), shrink=True)
    assert be.compare_all(dict(list(R.items())[:6]), shrink=True, resamples=200).shrink is not None


@pytest.mark.parametrize("method", ["normal", "exact", "hdi"])
def test_pooled_pairs_contain_their_difference_within_its_range(method):
    """A pooled pair's interval holds the difference it is reported with and stays in the difference's range, for
    every interval method (one model solves every question, one none: differences at the ends of [-1, 1])."""
    rng = np.random.default_rng(11)
    models = {"all": np.ones((40, 2), int), "none": np.zeros((40, 2), int), "half": rng.integers(0, 2, (40, 2))}
    ranked = be.compare_all(models, shrink=True, interval=method, pairs="all")
    for rec in ranked.pairs:
        assert -1.0 <= rec["lo"] <= rec["delta"] <= rec["hi"] <= 1.0, rec
