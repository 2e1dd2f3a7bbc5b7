"""bayeseval.mcmc: NUTS cross-checks of the closed forms, hierarchical and paired models.

Small models only (M <= 50, 1,000 draws, 2 chains); the whole file runs in about a minute.
"""

import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

pm = pytest.importorskip("pymc")

import bayeseval as be  # noqa: E402
from bayeseval import mcmc  # noqa: E402
from bayeseval.posterior import Posterior, build  # noqa: E402

pytestmark = pytest.mark.slow

RNG = np.random.default_rng(2024)
P = RNG.beta(2, 2, 40)
R = (RNG.random((40, 4)) < P[:, None]).astype(int)
R_B = (RNG.random((40, 4)) < np.clip(P - 0.25, 0, 1)[:, None]).astype(int)
METRICS = ["avg", "pass@2", "maj@3", "pass^2", ("g-pass@k", {"k": 3, "tau": 0.5}), "geospectrum@3"]


@pytest.fixture(scope="module")
def binary_check():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mcmc.MCMCWarning)
        return mcmc.crosscheck(R, METRICS, draws=1000, chains=2, seed=3)


def test_import_bayeseval_does_not_import_pymc():
    code = "import sys, bayeseval; print('pymc' in sys.modules, 'pytensor' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False False"


def test_crosscheck_binary_passes_and_reports_the_closed_form(binary_check):
    cc = binary_check
    assert cc.passed, cc.summary()
    assert [r["metric"] for r in cc.rows] == ["avg", "pass@2", "maj@3", "pass^2", "g-pass@3 (tau=0.5)",
                                              "geospectrum@3 (lam=0.5)"]
    for r, m in zip(cc.rows, METRICS):
        name, params = (m, {}) if isinstance(m, str) else m
        mean, sd = build(R, name, prior="uniform", **params).moments("benchmark")
        assert r["closed_mean"] == mean and r["closed_sd"] == sd
        assert abs(r["z"]) <= 4 and abs(r["sd_ratio"] - 1) <= 0.10
        assert r["rhat"] < 1.01 and r["ess_bulk"] > 400 and r["ess_tail"] > 400
        assert r["mcse_mean"] > 0 and r["divergences"] == 0
    # the MCMC numbers are the metric on the draws: recompute avg from the sampled p directly
    p = cc.idata.posterior["p"].values
    assert cc.rows[0]["mcmc_mean"] == pytest.approx(p.mean(axis=-1).mean(), rel=1e-12)
    assert "PASS" in cc.summary() and cc.to_frame().shape[0] == len(METRICS)
    assert cc.to_dict()["passed"] is True


def test_crosscheck_fails_when_the_closed_form_is_perturbed(monkeypatch):
    """The check can fail: shift the closed-form mean by 0.02 (about 0.7 sd) or inflate its sd by 20%."""
    original = Posterior.moments
    monkeypatch.setattr(Posterior, "moments", lambda self, scope: (original(self, scope)[0] + 0.02, original(self, scope)[1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mcmc.MCMCWarning)
        shifted = mcmc.crosscheck(R, ["avg", "pass@2"], seed=3)
    assert not shifted.passed and all(abs(r["z"]) > 4 for r in shifted.rows) and "FAIL" in shifted.summary()
    monkeypatch.setattr(Posterior, "moments", lambda self, scope: (original(self, scope)[0], 1.2 * original(self, scope)[1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mcmc.MCMCWarning)
        wide = mcmc.crosscheck(R, ["avg"], seed=3)
    assert not wide.passed and wide.rows[0]["sd_ratio"] < 0.9


def test_crosscheck_categorical_bayes_and_max():
    Rc = np.random.default_rng(5).integers(0, 3, (15, 4))
    w = [0.0, 0.5, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mcmc.MCMCWarning)
        cc = mcmc.crosscheck(Rc, ["bayes", "max@2"], w=w, seed=4)
    assert cc.passed, cc.summary()
    mean, sd = be.bayes(Rc, w)
    assert cc.rows[0]["closed_mean"] == pytest.approx(mean, rel=1e-12) and cc.rows[0]["closed_sd"] == pytest.approx(sd, rel=1e-12)


def test_hierarchical_beta_binomial_matches_the_closed_form_population_scope():
    """Same hyperprior as the closed form's grid: the population means agree within MC error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mcmc.MCMCWarning)
        fit = mcmc.hierarchical(R, ["avg", "pass@2"], draws=1000, chains=2, seed=6)
    for row, metric in zip(fit.rows, ["avg", "pass@2"]):
        est = be.estimate(R, metric, scope="population", prior="hierarchical", interval="normal")
        assert row["closed_mean"] == est.mean and row["closed_sd"] == est.sd
        assert abs(row["beta_mean"] - est.mean) <= 4 * row["beta_mcse"] + 2e-3, row
        assert row["beta_sd"] == pytest.approx(est.sd, rel=0.15)
        # the logit-normal model is a different population family: close, not identical
        assert abs(row["logit_mean"] - est.mean) <= 2 * est.sd
    assert set(fit.idata) == {"beta-binomial", "logit-normal"}
    assert "closed form" in fit.summary()


def test_paired_model_effect_and_metric_difference():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mcmc.MCMCWarning)
        fit = mcmc.paired(R, R_B, ["avg"], seed=7, names=("strong", "weak"))
    assert fit.effect["mean"] > 0 and fit.effect["p_positive"] > 0.99
    for row in fit.rows:
        c = be.compare(R, R_B, scope=row["scope"], seed=7, resamples=200)
        assert row["closed_mean"] == pytest.approx(c.delta.mean, rel=1e-12)
        # a parametric model against the closed form: same answer within a posterior sd
        assert abs(row["mcmc_mean"] - row["closed_mean"]) <= max(row["mcmc_sd"], row["closed_sd"])
    assert "strong - weak" in fit.summary()


def test_diagnostics_are_never_silent():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", mcmc.MCMCWarning)
        mcmc.crosscheck(R[:10], ["avg"], draws=20, tune=20, chains=2, seed=8)
    messages = [str(w.message) for w in caught if issubclass(w.category, mcmc.MCMCWarning)]
    assert any(re.search(r"bulk ESS \d+ < 400 for p\[", m) for m in messages), messages
    import arviz as az

    constant_chains = az.from_dict(posterior={"x": np.repeat(np.arange(2.0)[:, None], 50, axis=1)})
    with np.errstate(divide="ignore", invalid="ignore"):
        problems = mcmc.diagnose(constant_chains, warn=False)
    assert any("R-hat" in p and "for x" in p for p in problems)


def test_plots(binary_check):
    import matplotlib

    matplotlib.use("Agg")
    assert mcmc.plot_trace(binary_check, var_names=["p"], coords={"p_dim_0": [0, 1]}) is not None
    assert mcmc.plot_forest(binary_check, var_names=["p"]) is not None
    assert mcmc.plot_posterior(binary_check, var_names=["p"], coords={"p_dim_0": [0]}) is not None


def test_bad_input():
    with pytest.raises(ValueError, match="sampler"):
        mcmc.crosscheck(R, sampler="stan")
    with pytest.raises(ValueError, match="draws"):
        mcmc.crosscheck(R, draws=0)
    with pytest.raises(ValueError, match="hierarchical"):
        mcmc.crosscheck(R, prior="hierarchical")
    with pytest.raises(ValueError, match="0/1"):
        mcmc.hierarchical(R * 2)
    with pytest.raises(ValueError, match="unknown metric"):
        mcmc.crosscheck(R, ["pass@@2"])


def test_nutpie_sampler_gives_the_same_answer():
    pytest.importorskip("nutpie")
    assert mcmc.sampler_name() == "pymc" and mcmc.sampler_name("nutpie") == "nutpie"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mcmc.MCMCWarning)
        cc = mcmc.crosscheck(R[:20], ["avg", "pass@2"], sampler="nutpie", seed=9)
    assert cc.sampler == "nutpie" and cc.passed, cc.summary()
