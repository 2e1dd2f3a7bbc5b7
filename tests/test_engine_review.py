"""Findings of a review of the posterior engine, each with the case that showed it (the hierarchical grid's tail:
tests/test_posterior_quad.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import bayeseval as be
from bayeseval.posterior import build
from bayeseval.posterior.robust import MINORANT_MAX_DEGREE


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _ragged(M=400, top=60, seed=0):
    rng = np.random.default_rng(seed)
    n = rng.integers(1, top + 1, M)
    s = rng.binomial(n, rng.beta(0.5, 0.5, M))
    return be.Counts.from_table(np.stack([n - s, s], 1))


@pytest.mark.parametrize("metric", ["avg", "pass@4"])
def test_benchmark_draws_drawn_in_batches_keep_their_moments(metric):
    """The benchmark-scope draws with one-trial questions (avg) or k > n (pass@4) were drawn one count state at a
    time, and each state recomputed the located clusters: time grew with the square of the number of states
    (M = 3,000 ragged questions: 190 s for avg).  Drawn in batches now; their mean and sd are the posterior's
    closed-form moments, within Monte-Carlo error."""
    c = _ragged()
    post = build(c, metric)
    assert post._located() is post._located()  # computed once
    x = post.draws("benchmark", 20000, np.random.default_rng(1))
    mean, sd = post.moments("benchmark")
    assert abs(x.mean() - mean) < 5 * sd / np.sqrt(20000)
    assert x.std() == pytest.approx(sd, rel=0.05)


def test_no_minorant_above_its_degree_cap():
    """pass@2000 from 2000 trials spent 400 s in the minorant's linear program, whose sum the noise rule drops at
    such degrees anyway (at 30-120 trials, pass@n, pass^n and maj@n all kept the model's variance): above
    MINORANT_MAX_DEGREE trials the program is not run and the questions keep the model's error variance."""
    rng = np.random.default_rng(0)
    for N, formed in ((MINORANT_MAX_DEGREE + 20, False), (40, True)):
        s = rng.binomial(N, rng.beta(0.5, 2, 30))
        c = be.Counts.from_table(np.stack([N - s, s], 1))
        post = build(c, f"pass@{N}")
        model = np.einsum("u,uab->ab", post.freq, post._error_moments()[0])
        assert post._pool_free()[0, 0] == pytest.approx(model[0, 0], rel=1e-12)
        assert any(isinstance(k, tuple) and k[0] == "minorant" for k in c.cache()) is formed


@pytest.mark.parametrize("prior", [(1e200, 1.0), (1.0, 1e200), (1e200, 1e200)])
@pytest.mark.parametrize("scope", ["benchmark", "population"])
def test_a_prior_beyond_double_precision_gives_finite_intervals(prior, scope):
    """prior=(1e200, 1) gave an interval of NaN ends (the Beta quantiles leave double precision past about 1e154
    pseudo-trials); the quantiles fall back to the narrow normal there, and the interval holds the prior mean."""
    R = np.array([[1, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]])
    mean = prior[0] / (prior[0] + prior[1])
    for metric, g in (("avg", mean), ("pass@2", 1 - (1 - mean) ** 2)):
        e = be.estimate(R, metric, prior=prior, scope=scope)
        assert np.isfinite([e.lo, e.hi]).all() and e.lo <= e.mean <= e.hi
        assert e.mean == pytest.approx(g, abs=1e-12) and e.hi - e.lo < 1e-12


@pytest.mark.parametrize("z", [0.5, 1.5, 2.5])
def test_the_refined_hierarchical_grid_keeps_a_narrow_posterior_near_a_cell_edge(z):
    """One trial per question: the pool mean's posterior is exactly Beta(1 + S, 1 + F) (uniform mu; kappa does not
    enter).  With M = 50,000 its sd is far below a coarse cell, and with its mode near a cell's edge the next cell's
    midpoint weight underflowed, so the refined window stopped at the edge: sd 12% short (1.5 sd from the edge).
    The window keeps one cell more on each side."""
    from scipy.special import expit
    from scipy.stats import beta

    M, edge = 50_000, -1.11340206  # a coarse-cell edge of logit mu
    sd = 1 / np.sqrt(M * expit(edge) * (1 - expit(edge)))
    S = int(round(M * expit(edge - z * sd)))
    table = np.zeros((M, 2), dtype=np.int64)
    table[:S, 1], table[S:, 0] = 1, 1
    e = be.estimate(be.Counts(table), "avg", prior="hierarchical", scope="population", interval="normal")
    exact = beta(1 + S, 1 + M - S)
    assert e.mean == pytest.approx(exact.mean(), abs=0.02 * exact.std())
    assert e.sd == pytest.approx(exact.std(), rel=0.02)
