"""Pool-free bounds for metrics that need more trials than were run (k > n): bayeseval.posterior.identify.

Checked against closed forms (one trial: the mean alone is identified), a brute-force search over two-atom
pools, a simulation of their coverage, and the notes on estimates."""

from __future__ import annotations


import numpy as np
import pytest
from scipy import integrate, stats
from statsmodels.stats.proportion import proportion_confint

import bayeseval as be
from bayeseval.posterior.identify import pool_free_bounds


def _pass(k):
    return np.r_[0.0, np.ones(k)]


def _pass_all(k):
    return np.r_[np.zeros(k), 1.0]


@pytest.mark.parametrize("k", [2, 5, 16])
@pytest.mark.parametrize("hist", [(600, 400), (95, 5), (3, 27)])
def test_one_trial_matches_the_closed_form(k, hist):
    """With one trial per question only the mean mu is identified: pass@k = 1 - E(1-p)^k lies in [mu, 1 - (1-mu)^k]
    (Jensen's inequality and the two-point pool at 0 and 1), pass^k = E p^k in [mu^k, mu]; with mu in its
    Clopper-Pearson band (statsmodels, at alpha / 2 for the two cells)."""
    h = np.array(hist)
    lo_mu, hi_mu = proportion_confint(h[1], h.sum(), alpha=0.05 / 2, method="beta")
    lo, hi = pool_free_bounds({1: h}, _pass(k), 0.95)
    assert lo == pytest.approx(lo_mu, abs=2e-4) and hi == pytest.approx(1 - (1 - hi_mu) ** k, abs=2e-4)
    lo, hi = pool_free_bounds({1: h}, _pass_all(k), 0.95)
    assert lo == pytest.approx(lo_mu**k, abs=2e-4) and hi == pytest.approx(hi_mu, abs=2e-4)


@pytest.mark.slow
def test_two_trials_contain_every_two_atom_pool_that_fits():
    """Brute force over pools of two atoms (p1, p2 on a grid of 201, weight on a grid of 201) whose histogram
    of 2 trials lies within the bands: their pass@4 lies within the bounds, and the bounds reach to within 0.01
    of the extremes found (a third atom can reach a little further: the linear program's optimum)."""
    h = np.array([30, 40, 30])
    lo, hi = pool_free_bounds({2: h}, _pass(4), 0.95)
    band = [proportion_confint(x, h.sum(), alpha=0.05 / 3, method="beta") for x in h]
    L, U = np.array(band).T
    ps = np.linspace(0, 1, 201)
    P1, P2 = np.meshgrid(ps, ps, indexing="ij")
    found = [1.0, 0.0]
    for w in np.linspace(0, 1, 201):
        H = np.stack([w * stats.binom.pmf(j, 2, P1) + (1 - w) * stats.binom.pmf(j, 2, P2) for j in range(3)])
        ok = np.all((H >= L[:, None, None] - 1e-12) & (H <= U[:, None, None] + 1e-12), axis=0)
        if ok.any():
            g = w * (1 - (1 - P1) ** 4) + (1 - w) * (1 - (1 - P2) ** 4)
            found = [min(found[0], g[ok].min()), max(found[1], g[ok].max())]
    assert lo <= found[0] + 1e-4 and hi >= found[1] - 1e-4
    assert found[0] - lo < 0.01 and hi - found[1] < 0.01
    assert 0.6 < lo < found[0] < found[1] < hi < 0.97  # not the whole range


@pytest.mark.slow
def test_bounds_cover_the_pool_value_in_simulation():
    """Beta(2, 5) pool, 100 questions x 4 trials, pass@8 and pass^8: the 95% bounds cover the pool's value in
    at least 95% of 150 replicates (they hold for every pool, so they are conservative)."""
    rng = np.random.default_rng(3)
    truth = {"at": integrate.quad(lambda p: (1 - (1 - p) ** 8) * stats.beta.pdf(p, 2, 5), 0, 1)[0],
             "all": integrate.quad(lambda p: p**8 * stats.beta.pdf(p, 2, 5), 0, 1)[0]}
    hits = {"at": 0, "all": 0}
    for _ in range(150):
        hist = {4: np.bincount(rng.binomial(4, rng.beta(2, 5, 100)), minlength=5)}
        for key, c in (("at", _pass(8)), ("all", _pass_all(8))):
            lo, hi = pool_free_bounds(hist, c, 0.95)
            hits[key] += lo <= truth[key] <= hi
    assert hits["at"] >= 143 and hits["all"] >= 143, hits


@pytest.mark.slow
def test_a_rare_cell_does_not_push_the_bounds_past_the_truth():
    """88% of questions never solved, the rest at p uniform on [0.3, 0.7], 16 trials, M = 3 and 5: a cell that
    holds one question has a true share far below 1/M, which an approximate (Wilson) band at the Bonferroni level
    excluded, pushing the lower bound of pass@32 above the truth in a third of replicates; exact bands do not."""
    rng = np.random.default_rng(21)
    xs = np.linspace(0.3, 0.7, 2001)
    truth = 0.12 * float(np.mean(1 - (1 - xs) ** 32))
    for M in (3, 5):
        misses = 0
        for _ in range(60):
            p = np.where(rng.random(M) < 0.88, 0.0, rng.uniform(0.3, 0.7, M))
            lo, hi = pool_free_bounds({16: np.bincount(rng.binomial(16, p), minlength=17)}, _pass(32), 0.95)
            misses += not lo <= truth <= hi
        assert misses <= 3, (M, misses)


def test_no_pool_fits_gives_none():
    """Every question exactly 1 of 2: E[2 p (1-p)] would have to be near 1 (at most 1/2 for any pool)."""
    assert pool_free_bounds({2: np.array([0, 1000, 0])}, _pass(4), 0.95) is None
    assert pool_free_bounds({}, _pass(4), 0.95) is None


def test_estimate_notes_the_bounds_in_population_scope_only():
    rng = np.random.default_rng(0)
    R = (rng.random((100, 4)) < rng.beta(0.5, 0.5, (100, 1))).astype(int)
    with pytest.warns(be.ModelCheckWarning):
        e = be.estimate(R, "pass@8")
    hist = {4: np.bincount(R.sum(axis=1), minlength=5)}
    lo, hi = pool_free_bounds(hist, _pass(8), 0.95)
    note = [w for w in e.warnings if w.startswith("without a population model")]
    assert note == [f"without a population model: a 95% confidence interval for pass@8 that holds for every pool of "
                    f"questions (those whose count histograms lie within simultaneous 95% bands of these counts) is "
                    f"[{lo:.4g}, {hi:.4g}] (docs/model.md, 'Beyond the trials run')"]
    assert lo < e.lo and e.hi < hi  # here the model's interval is inside the bounds
    # docs/model.md quotes the same warning on named data (Game of 24): tests/test_docs.py checks it
    with pytest.warns(be.ModelCheckWarning):
        e90 = be.estimate(R, "pass@8", level=0.9)
    assert "a 90% confidence interval for pass@8" in " ".join(e90.warnings)
    with pytest.warns(be.ModelCheckWarning):
        e995 = be.estimate(R, "pass@8", level=0.995)
    assert "within simultaneous 99.5% bands" in " ".join(e995.warnings)
    with pytest.warns(be.ModelCheckWarning):
        b = be.estimate(R, "pass@8", scope="benchmark")
    assert not any(w.startswith("without a population model") for w in b.warnings)
    assert not any(w.startswith("without a population model") for w in be.estimate(R, "pass@4").warnings)
