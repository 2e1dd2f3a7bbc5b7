"""Dirichlet-process draws over many distinct rows (continuous scores at scale): 1,024 frequency groups plus the
within-group spread drawn as a normal (bayeseval.posterior.bootstrap._binned_draws).  Its mean and covariance are
dp_moments' exactly; its quantiles agree with every question drawn its own weight; compare on scores goes through it
(4,000 draws over 10^6 scores: 35-39 s each question its own weight, 0.2 s grouped; benchmarks/results_dp_draws.md)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bayeseval.posterior.bootstrap as bs


def _rows(M, K, seed):
    rng = np.random.default_rng(seed)
    x = rng.beta(0.3, 0.3, M)
    X = np.column_stack([x] + [np.clip(x + rng.normal(0, 0.1 * j, M), 0, 1) for j in range(1, K)])
    rows, freq = np.unique(X, axis=0, return_counts=True)
    mu = np.full(K, 0.5)
    EYY = np.full((K, K), 0.25)
    EYY[np.diag_indices(K)] = 1 / 3
    return rows, freq.astype(float), mu, EYY


@pytest.mark.parametrize("K", [1, 2, 3])
def test_binned_draws_have_the_dirichlet_process_moments(K):
    rows, freq, mu, EYY = _rows(30_000, K, K)
    assert rows.shape[0] > bs.DP_EXACT_ROWS
    mean, cov = bs.dp_moments(rows, freq, mu, EYY, 1.0)
    rng = np.random.default_rng(10)
    n = 40_000
    d = bs.dp_draws(rows, freq, rng.random((n, K)), rng)
    se = np.sqrt(np.diag(cov) / n)
    assert np.all(np.abs(d.mean(axis=0) - mean) < 4 * se)
    emp = np.atleast_2d(np.cov(d, rowvar=False))
    assert np.allclose(emp, cov, rtol=0.05, atol=0.05 * float(np.max(np.diag(cov))))  # se of a variance: ~0.7%


@pytest.mark.parametrize("K", [1, 2])
def test_binned_quantiles_match_every_question_drawn(K, monkeypatch):
    rows, freq, mu, EYY = _rows(30_000, K, 20 + K)
    rng = np.random.default_rng(1)
    y = rng.random((20_000, K))
    binned = bs.dp_draws(rows, freq, y, np.random.default_rng(2))
    monkeypatch.setattr(bs, "DP_EXACT_ROWS", 10**9)
    exact = bs.dp_draws(rows, freq, y, np.random.default_rng(3))
    stat = (lambda d: d[:, 0]) if K == 1 else (lambda d: d[:, 0] - d[:, 1])  # a paired comparison's difference
    q = np.array([0.005, 0.025, 0.5, 0.975, 0.995])
    sd = stat(exact).std()
    # Monte-Carlo se of a normal's p-quantile from n draws, sqrt(p (1 - p) / n) / phi(z_p) sd; two independent sets
    se = np.sqrt(2 * q * (1 - q) / y.shape[0]) / stats.norm.pdf(stats.norm.ppf(q)) * sd
    assert np.all(np.abs(np.quantile(stat(binned), q) - np.quantile(stat(exact), q)) < 4 * se)
