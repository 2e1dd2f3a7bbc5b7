"""Model checks on every fit (issue 13, item 2): the posterior predictive check of the count histogram, the
pull of the prior, and the notes where an interval rests on the population model; in the library, the CLI
and the service."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayeseval as be
from bayeseval.posterior import build
from bayeseval.posterior.check import count_histograms, histogram_check


def _two_clusters(seed, M=100, N=16):
    rng = np.random.default_rng(seed)
    p = np.where(rng.random(M) < 0.4, 0.05, 0.9)
    return (rng.random((M, N)) < p[:, None]).astype(np.int8)


def test_histogram_check_agrees_with_the_chi_square_limit():
    """Large expected counts: G^2 is asymptotically chi-square with n degrees of freedom (n + 1 bins, known P)."""
    P = stats.binom.pmf(np.arange(6), 5, 0.4)
    rng = np.random.default_rng(3)
    for _ in range(5):
        O = rng.multinomial(20_000, P)
        dev, p = histogram_check({5: O}, lambda n: P)
        assert p == pytest.approx(stats.chi2.sf(dev, 5), abs=0.06)


def test_histogram_check_has_its_level_when_the_predictive_is_true():
    P = stats.betabinom.pmf(np.arange(9), 8, 0.7, 0.9)
    rng = np.random.default_rng(4)
    ps = np.array([histogram_check({8: rng.multinomial(200, P)}, lambda n: P)[1] for _ in range(300)])
    assert 0.02 <= np.mean(ps < 0.1) <= 0.18  # binomial sd of the rate 0.017 at 300 draws


def test_count_histograms_group_by_trials():
    c = be.to_counts([[1, 0, 1], [1, 1, 1], [0, 0], [1, 0]], ragged=True)
    n, s, f, _ = c.binary_states()
    h = count_histograms(n, s, f)
    assert set(h) == {2, 3} and h[3].tolist() == [0, 0, 1, 1] and h[2].tolist() == [1, 1, 0]


def test_hierarchical_misfit_is_flagged_and_robust_is_not():
    R = _two_clusters(1)
    hier = be.estimate(R, "avg", prior="hierarchical")
    rob = be.estimate(R, "avg")
    assert any("misfits the histogram" in w and "prior='robust'" in w for w in hier.warnings)
    assert not any("misfits" in w for w in rob.warnings)


def test_robust_check_false_alarms_are_rare_on_binomial_mixtures():
    """Data from a mixture of binomials (the model's assumption): the fitted-predictive check rarely fires."""
    fired = 0
    for seed in range(40):
        rng = np.random.default_rng(100 + seed)
        p = rng.beta(0.5, 0.5, 80)
        R = (rng.random((80, 8)) < p[:, None]).astype(np.int8)
        fired += any("misfits" in w for w in be.estimate(R, "avg").warnings)
    assert fired <= 2


def test_non_exchangeable_trials_are_flagged():
    """Every question solved in exactly half of its 16 trials: no mixture of binomials gives that histogram."""
    R = np.zeros((100, 16), np.int8)
    R[:, :8] = 1
    e = be.estimate(R, "avg")
    assert any("not exchangeable" in w for w in e.warnings)
    assert e.to_dict()["warnings"] == list(e.warnings)


def test_prior_pull_is_named():
    R = _two_clusters(2, M=100, N=16)
    e = be.estimate(R, "maj@8", prior="uniform", scope="benchmark")
    pull = [w for w in e.warnings if "posterior sd from the unbiased estimate" in w]
    assert pull and "prior='uniform'" in pull[0]
    assert abs(e.mean - e.value) > 0.5 * e.sd
    assert not be.estimate(R, "maj@8", scope="benchmark").warnings  # centred at the unbiased estimate


def test_extrapolation_and_one_trial_notes():
    R = _two_clusters(3, M=60, N=4)
    with pytest.warns(be.ModelCheckWarning, match="extrapolates with the population model"):
        e = be.estimate(R, "pass@8")
    assert e.value is None and any("extrapolates" in w for w in e.warnings)
    one = be.estimate(R[:, :1], "avg", scope="benchmark")
    assert any("one trial per question" in w for w in one.warnings)
    assert not any("one trial" in w for w in be.estimate(R[:, :1], "avg").warnings)  # population scope


def test_warnings_are_cached_per_outcome_set():
    c = be.to_counts(_two_clusters(4))
    build(c, "avg", prior="hierarchical").checks("population", 0.5, 0.1, 0.5)
    assert ("ppc", "hierarchical") in c.cache()


def test_cli_prints_the_model_check_on_stderr(capsys, tmp_path):
    from bayeseval.cli import main

    R = np.zeros((100, 16), np.int8)
    R[:, :8] = 1
    path = tmp_path / "half.csv"
    pd.DataFrame(R, index=pd.Index(range(100), name="question")).to_csv(path)
    with warnings.catch_warnings():
        code = main(["report", str(path), "--metrics", "avg", "--format", "json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "not exchangeable" in err and err.count("not exchangeable") == 1
    assert "not exchangeable" in out  # the JSON output carries each estimate's warnings


def test_a_huge_benchmark_is_not_warned_about_an_immaterial_misfit_but_a_material_one_still_is():
    """At 200,000 questions any pool model can be rejected by a p-value alone; the warning also needs a misfit of
    MIN_KL nats per question (the scale benchmark's generator pool, p = u ** a with a hash-uniform u, used to be
    flagged with deviance 35.0, p = 0.01)."""
    from bayeseval.posterior.check import MIN_KL

    import bayeseval.posterior.check as check
    from bayeseval.counts import Counts

    rng = np.random.default_rng(5)
    M, N = 200_000, 16
    p = rng.random(M) ** 1.6
    R = rng.binomial(N, p)
    e = be.estimate(Counts.from_table(np.column_stack([N - R, R])), "avg")
    assert not [w for w in e.warnings if "model check" in w]
    dev, pval, checked = e._post.counts.cache()[("ppc", "robust")] if hasattr(e, "_post") else (None, None, None)
    assert pval < check.LEVEL and dev / (2 * checked) < MIN_KL  # significant, and immaterial: 9e-5 nats per question
    two = np.where(rng.random(M) < 0.4, 0.05, 0.9)
    R2 = rng.binomial(N, two)
    e2 = be.estimate(Counts.from_table(np.column_stack([N - R2, R2])), "avg", prior="hierarchical")
    flagged = [w for w in e2.warnings if "model check" in w]
    assert flagged and MIN_KL == 0.002
