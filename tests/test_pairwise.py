"""Pairwise preferences: parsing, the two-system closed forms, Bradley-Terry / Davidson, PPI++, judge agreement.

Every number is checked against an independent computation: Monte Carlo from numpy's Dirichlet, scipy's
Beta, a direct per-label likelihood optimised by scipy with finite-difference Hessians, statsmodels'
logistic regression, the authors' ppi_py, scikit-learn's kappa, brute-force design effects, NUTS (slow),
and the published PandaLM numbers.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from bayeseval.pairwise import (bradley_terry, from_long, from_wide, judge_agreement, ppi_mean, ppi_mean_by_item,
                                read_battles, win_rate)
from bayeseval.pairwise.two import design_effect, split_win_rate_cdf

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "pandalm_testset_labels.csv"
ANN = ["annotator1", "annotator2", "annotator3"]


def pandalm():
    return pd.read_csv(DATA, dtype=str)


def battles(n_items, labels, rng, p=(0.5, 0.2, 0.3), a="x", b="y"):
    """Long table: ``labels`` labels per item, each A / tie / B with probabilities ``p``, orders alternating."""
    rows = {"item": [], "model_a": [], "model_b": [], "winner": []}
    for i in range(n_items):
        for r in range(labels):
            o = rng.choice(3, p=p)
            first_a = r % 2 == 0
            rows["item"].append(i)
            rows["model_a"].append(a if first_a else b)
            rows["model_b"].append(b if first_a else a)
            rows["winner"].append([a, "tie", b][o])
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- parsing
def test_from_long_reads_codes_names_and_tie_words():
    d = {"item": [0, 0, 1, 1, 2, 3], "model_a": ["x", "y", "x", "x", "y", "x"], "model_b": ["y", "x", "y", "y", "x", "y"],
         "winner": ["model_a", "b", "TIE", "tie (bothbad)", "x", 2]}
    p = from_long(d)
    assert p.models == ("x", "y") and p.n_labels == 6 and p.n_items == 4
    counts, items, pos = p.pair_counts("x", "y")
    # item 0: x (model_a) wins, then "b" = model_b = x wins; item 1: two ties; item 2: x named; item 3: 2 = y
    assert counts.tolist() == [[2, 0, 0], [0, 2, 0], [1, 0, 0], [0, 0, 1]]
    assert pos is None
    rev, _, _ = p.pair_counts("y", "x")
    np.testing.assert_array_equal(rev, counts[:, ::-1])


def test_from_wide_is_from_long_per_judge_column():
    d = pandalm().head(30)
    wide = from_wide(d, ANN, item="idx", model_a="model_1", model_b="model_2")
    long = pd.concat([pd.DataFrame({"item": d.idx, "model_a": d.model_1, "model_b": d.model_2, "winner": d[a],
                                    "judge": a}) for a in ANN])
    ref = from_long(long, judge="judge")
    assert wide.models == ref.models and wide.judges == tuple(ANN)
    pairs = {tuple(sorted(p)) for p in zip(d.model_1, d.model_2)}
    assert len(pairs) >= 5
    for x, y in pairs:  # every pair present in these 30 items
        np.testing.assert_array_equal(wide.pair_counts(x, y)[0], ref.pair_counts(x, y)[0])


def test_order_column_gives_position_counts():
    d = {"item": [0, 0, 1, 1], "model_a": ["x", "x", "x", "x"], "model_b": ["y", "y", "y", "y"],
         "winner": ["x", "y", "x", "tie"], "first": ["a", "b", "x", "y"]}
    p = from_long(d, order="first")
    counts, _, pos = p.pair_counts("x", "y")
    # columns: x first & preferred, x first & y preferred, y first & preferred, y first & x preferred
    # item 0: x shown first and won, y shown first and won; item 1: x first and won; the tie is skipped
    assert pos.tolist() == [[1, 0, 1, 0], [1, 0, 0, 0]]
    arena = from_long(d, shown_first="model_a")
    assert arena.pair_counts("x", "y")[2].tolist() == [[1, 1, 0, 0], [1, 0, 0, 0]]
    assert arena.pair_counts("y", "x")[2].tolist() == [[0, 0, 1, 1], [0, 0, 1, 0]]


@pytest.mark.parametrize("change, match", [
    ({"winner": ["x", "z", "x"]}, r"winner in row 1 is 'z': neither model of that row"),
    ({"model_b": ["y", "x", "y"]}, r"row 1 compares 'x' with itself"),
    ({"model_a": ["x", "", "x"]}, r"model_a in row 1 is '': a model name must be non-empty"),
    ({"model_a": ["x", "a\x00b", "x"]}, r"without control characters"),
    ({"winner": ["x", None, "x"]}, r"winner column 'winner' is missing a value in row 1"),
])
def test_bad_labels_are_named(change, match):
    d = {"item": [0, 1, 2], "model_a": ["x", "x", "x"], "model_b": ["y", "y", "y"], "winner": ["x", "y", "tie"]}
    d.update(change)
    with pytest.raises(ValueError, match=match):
        from_long(d)


def test_other_bad_input():
    d = {"item": [0, 0], "model_a": ["x", "x"], "model_b": ["y", "y"], "winner": ["x", "y"], "rep": [1, 1]}
    with pytest.raises(ValueError, match=r"rows 0 and 1 are the same label .* repeats must be numbered uniquely"):
        from_long(d, repeat="rep")
    with pytest.raises(ValueError, match=r"no column 'who' in the data \(columns: item, model_a, model_b, winner, rep\)"):
        from_long(d, winner="who")
    with pytest.raises(ValueError, match=r"order in row 0 is 'left'"):
        from_long({**d, "order": ["left", "a"]}, order="order")
    p = from_long({"item": [0, 1], "model_a": ["x", "x"], "model_b": ["y", "y"], "winner": ["x", "garbage"]},
                  invalid="drop")
    assert p.n_labels == 1 and p.dropped == 1
    with pytest.raises(ValueError, match=r"a 'nobody' is not one of the models in the data: 'x', 'y'"):
        win_rate(p, "nobody", "y")
    with pytest.raises(ValueError, match="two different models"):
        win_rate(p, "x", "x")
    with pytest.raises(TypeError, match="prefs must be Preferences"):
        win_rate({"x": 1}, "x", "y")
    with pytest.raises(ValueError, match="ties must be one of"):
        win_rate(p, "x", "y", ties="half")


def test_read_battles_csv_and_jsonl(tmp_path):
    df = pd.DataFrame({"question_id": [1, 1, 2], "model_a": ["x", "y", "x"], "model_b": ["y", "x", "y"],
                       "winner": ["model_a", "model_b", "tie"]})
    df.to_csv(tmp_path / "b.csv", index=False)
    df.to_json(tmp_path / "b.jsonl", orient="records", lines=True)
    a, b = read_battles(tmp_path / "b.csv"), read_battles(tmp_path / "b.jsonl")
    np.testing.assert_array_equal(a.pair_counts("x", "y")[0], [[2, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(a.pair_counts("x", "y")[0], b.pair_counts("x", "y")[0])
    df.drop(columns="question_id").to_csv(tmp_path / "c.csv", index=False)
    with pytest.raises(ValueError, match=r"c.csv: no item column"):
        read_battles(tmp_path / "c.csv")


# ----------------------------------------------------------------------------- two systems
def test_population_closed_forms_against_dirichlet_monte_carlo():
    rng = np.random.default_rng(0)
    p = from_long(battles(60, 1, rng))
    r = win_rate(p, "x", "y")
    W, T, L = r.counts
    assert r.design_effect == 1.0 and r.n_items == 60 and W + T + L == 60
    g = np.random.default_rng(1).dirichlet([1 + W, 1 + T, 1 + L], size=1_000_000)
    assert r.p_a_better == pytest.approx(float((g[:, 0] > g[:, 2]).mean()), abs=2e-3)
    split = g[:, 0] + 0.5 * g[:, 1]
    assert (r.lo, r.hi) == pytest.approx(tuple(np.quantile(split, [0.025, 0.975])), abs=2e-3)
    assert r.mean == pytest.approx(split.mean(), abs=5e-4)
    assert r.value == pytest.approx((W + 0.5 * T) / 60, abs=1e-15)
    ex = win_rate(p, "x", "y", ties="exclude")
    assert (ex.lo, ex.hi) == pytest.approx(tuple(stats.beta.ppf([0.025, 0.975], 1 + W, 1 + L)), rel=1e-12)
    assert ex.value == pytest.approx(W / (W + L), abs=1e-15)


@pytest.mark.parametrize("x, a", [(0.3, (2.0, 1.0, 5.0)), (0.62, (7.5, 3.0, 2.5)), (0.5, (1.0, 20.0, 1.0))])
def test_split_cdf_against_monte_carlo(x, a):
    g = np.random.default_rng(2).dirichlet(a, size=2_000_000)
    assert split_win_rate_cdf(x, *a) == pytest.approx(float((g[:, 0] + 0.5 * g[:, 1] <= x).mean()), abs=1.5e-3)


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
@pytest.mark.parametrize("a", [(2.0, 1.0, 5.0), (7.5, 3.0, 2.5), (300.0, 50.0, 250.0), (0.5, 0.5, 0.5), (40.0, 1.0, 3.0)])
def test_split_cdf_against_adaptive_quadrature(a):
    from scipy import integrate

    for x in (0.05, 0.3, 0.45, 0.5, 0.52, 0.7, 0.95):
        d = 2 * x - 1
        f = lambda u: stats.beta.cdf(min(max((d + u) / (1 - u), 0), 1), a[0], a[1]) * stats.beta.pdf(u, a[2], a[0] + a[1])  # noqa: E731
        pts = [p for p in (max(0, -d), (1 - d) / 2) if 0 < p < 1]
        want = integrate.quad(f, 0, 1, points=pts or None, limit=400, epsabs=1e-13)[0]
        assert split_win_rate_cdf(x, *a) == pytest.approx(want, abs=1e-4)
    np.testing.assert_allclose(split_win_rate_cdf(np.array([0.3, 0.5]), *a),
                               [split_win_rate_cdf(0.3, *a), split_win_rate_cdf(0.5, *a)], rtol=1e-12)


def test_design_effect_brute_force():
    rng = np.random.default_rng(3)
    M, m = 50, 4
    s = rng.choice([1, 0, -1], size=M, p=[0.5, 0.2, 0.3])
    counts = np.column_stack([(s == 1) * m, (s == 0) * m, (s == -1) * m])  # each item's labels all agree
    assert design_effect(counts, (counts[:, 0] - counts[:, 2]).astype(float)) == pytest.approx(m * M / (M - 1))
    one = np.eye(3, dtype=np.int64)[rng.integers(0, 3, size=M)]
    assert design_effect(one, (one[:, 0] - one[:, 2]).astype(float)) == 1.0
    # independent labels within items: a design effect near 1 (floored there)
    ind = np.stack([np.bincount(rng.choice(3, size=m), minlength=3) for _ in range(400)])
    assert 1.0 <= design_effect(ind, (ind[:, 0] - ind[:, 2]).astype(float)) < 1.3


def test_repeats_widen_the_interval_by_the_design_effect():
    rng = np.random.default_rng(4)
    base = battles(80, 1, rng)
    rep = pd.concat([base.assign(judge=j) for j in range(3)])  # three identical labels per item
    r1, r3 = win_rate(from_long(base), "x", "y"), win_rate(from_long(rep, judge="judge"), "x", "y")
    assert r3.design_effect == pytest.approx(3 * 80 / 79)
    assert r3.hi - r3.lo == pytest.approx(r1.hi - r1.lo, rel=0.03)  # the copies carry no new information
    assert r3.permutation["p_value"] == pytest.approx(r1.permutation["p_value"], abs=1e-12)


def test_benchmark_scope_is_centred_at_the_mean_of_per_item_shares():
    rng = np.random.default_rng(5)
    p = from_long(battles(40, 5, rng))
    r = win_rate(p, "x", "y", scope="benchmark", draws=20_000)
    counts = p.pair_counts("x", "y")[0]
    share = counts / counts.sum(axis=1, keepdims=True)
    want = float((share[:, 0] + 0.5 * share[:, 1]).mean())  # the observed mean: no per-item prior pulls it
    assert r.value == pytest.approx(want, abs=1e-12) and r.mean == pytest.approx(want, abs=1e-12)
    assert r.lo < want < r.hi
    pop = win_rate(p, "x", "y")
    # items alike here (one share for all): both scopes see the same label noise
    assert r.hi - r.lo == pytest.approx(pop.hi - pop.lo, rel=0.15)
    assert r.warnings == ()
    one = win_rate(from_long(battles(40, 1, rng)), "x", "y", scope="benchmark")
    assert any("one label on 40 of 40 items" in w for w in one.warnings)


def test_frequentist_companions_on_per_item_net_preference():
    rng = np.random.default_rng(6)
    p = from_long(battles(50, 3, rng, p=(0.6, 0.1, 0.3)))
    r = win_rate(p, "x", "y")
    counts = p.pair_counts("x", "y")[0]
    d = (counts[:, 0] - counts[:, 2]) / counts.sum(axis=1)
    npos, nneg = int((d > 0).sum()), int((d < 0).sum())
    assert r.sign_test["p_value"] == pytest.approx(stats.binomtest(npos, npos + nneg).pvalue, rel=1e-12)
    # exact sign-flip p against Monte Carlo flips of the per-item differences
    flips = np.random.default_rng(7).choice([-1.0, 1.0], size=(200_000, d.size)) @ d
    mc = float((np.abs(flips) >= abs(d.sum()) - 1e-12).mean())
    assert r.permutation["p_value"] == pytest.approx(mc, abs=3 * math.sqrt(mc * (1 - mc) / 200_000) + 1e-4)
    assert r.bootstrap["estimate"] == pytest.approx(d.mean(), abs=1e-15)
    assert r.decision == ("A" if r.permutation["mid_p"] <= 0.05 else None)


def test_position_bias_detected():
    rows = {"item": [], "model_a": [], "model_b": [], "winner": []}
    rng = np.random.default_rng(8)
    for i in range(60):
        for first in ("x", "y"):
            other = "y" if first == "x" else "x"
            rows["item"].append(i)
            rows["model_a"].append(first)
            rows["model_b"].append(other)
            rows["winner"].append(first if rng.random() < 0.8 else other)  # the first-shown answer wins 80%
    p = from_long(rows, shown_first="model_a")
    r = win_rate(p, "x", "y")
    pos = r.position
    assert pos["first_preferred"] + pos["second_preferred"] == 120
    assert pos["rate"] == pytest.approx(pos["first_preferred"] / 120)
    assert pos["lo"] < pos["rate"] < pos["hi"] and pos["lo"] > 0.6 and pos["p_value"] < 1e-4
    assert any("position bias" in w for w in r.warnings)
    assert 0.35 < r.value < 0.65  # balanced orders: the bias cancels in the win rate


@pytest.mark.slow
def test_population_interval_coverage_with_correlated_repeats():
    # items differ (a Dirichlet pool of item-level shares) and each item has 3 labels: the design-effect
    # closed form must cover the pool's win rate near 95%
    rng = np.random.default_rng(9)
    truth_shares = np.array([0.45, 0.15, 0.40])
    truth = truth_shares[0] + 0.5 * truth_shares[1]
    hits, reps = 0, 400
    for _ in range(reps):
        item_p = rng.dirichlet(truth_shares * 3.0, size=60)
        lab = np.array([rng.multinomial(3, q) for q in item_p])
        rows = {"item": np.repeat(np.arange(60), 3), "model_a": ["x"] * 180, "model_b": ["y"] * 180,
                "winner": np.concatenate([np.repeat(["x", "tie", "y"], c) for c in lab])}
        r = win_rate(from_long(rows), "x", "y")
        hits += r.lo <= truth <= r.hi
    assert 0.92 <= hits / reps <= 0.98


# ----------------------------------------------------------------------------- Bradley-Terry / Davidson
def _direct_negpost(x, p, K, prior_sd, davidson):
    """Per-label log posterior written from the model's definition (no pair aggregation, no analytic derivatives)."""
    beta = x[:K]
    ll = 0.0
    for a, b, o in zip(p.a, p.b, p.outcome):
        if davidson:
            eta = np.array([beta[a], x[K] + 0.5 * (beta[a] + beta[b]), beta[b]])
            ll += eta[1 - o] - np.logaddexp.reduce(eta)
        else:
            eta = np.array([beta[a], beta[b]])
            ll += (eta[0] if o == 1 else eta[1]) - np.logaddexp(*eta) if o != 0 else \
                0.5 * (eta[0] + eta[1]) - np.logaddexp(*eta)
    lp = -0.5 * (beta @ beta) / prior_sd**2 - (0.5 * x[K] ** 2 / 4.0 if davidson else 0.0)
    return -(ll + lp)


def _small_design(seed=10, n=150):
    rng = np.random.default_rng(seed)
    strength = {"p": 0.8, "q": 0.2, "r": 0.0, "s": -0.6}  # names that are not verdict codes
    names = list(strength)
    rows = {"item": [], "model_a": [], "model_b": [], "winner": []}
    for i in range(n):
        x, y = rng.choice(names, 2, replace=False)
        d = strength[x] - strength[y]
        pt = 0.3 * math.exp(-0.5 * d) / (1 + math.exp(-d) + 0.3 * math.exp(-0.5 * d))
        pi = 1 / (1 + math.exp(-d) + 0.3 * math.exp(-0.5 * d))
        u = rng.random()
        rows["item"].append(i)
        rows["model_a"].append(x)
        rows["model_b"].append(y)
        rows["winner"].append(x if u < pi else ("tie" if u < pi + pt else y))
    return from_long(rows)


@pytest.mark.parametrize("ties", ["davidson", "split"])
def test_strengths_mode_and_laplace_against_a_direct_fit(ties):
    p = _small_design()
    K = len(p.models)
    dav = ties == "davidson"
    s = bradley_terry(p, ties=ties, covariance="laplace")
    x0 = np.zeros(K + dav)
    res = optimize.minimize(_direct_negpost, x0, args=(p, K, 3.0, dav), method="BFGS", options={"gtol": 1e-9})
    beta = res.x[:K] - res.x[:K].mean()
    for k, m in enumerate(p.models):
        assert s.strength[m] == pytest.approx(beta[k], abs=1e-5)
    # finite-difference Hessian of the direct log posterior -> covariance of the centred strengths
    h = 1e-4
    H = np.zeros((K + dav, K + dav))
    for i in range(K + dav):
        for j in range(K + dav):
            e_i, e_j = np.eye(K + dav)[i] * h, np.eye(K + dav)[j] * h
            H[i, j] = (_direct_negpost(res.x + e_i + e_j, p, K, 3.0, dav) - _direct_negpost(res.x + e_i - e_j, p, K, 3.0, dav)
                       - _direct_negpost(res.x - e_i + e_j, p, K, 3.0, dav)
                       + _direct_negpost(res.x - e_i - e_j, p, K, 3.0, dav)) / (4 * h * h)
    C = np.eye(K) - 1.0 / K
    cov = C @ np.linalg.inv(H)[:K, :K] @ C
    for k, m in enumerate(p.models):
        assert s.sd[m] == pytest.approx(math.sqrt(cov[k, k]), rel=1e-3)
    if dav:
        assert s.tie_parameter["lo"] < s.tie_parameter["nu"] == pytest.approx(math.exp(res.x[K]), rel=1e-4)


def test_bradley_terry_without_ties_is_logistic_regression():
    import statsmodels.api as sm

    p = _small_design(seed=11, n=300)
    keep = p.outcome != 0
    K = len(p.models)
    X = np.zeros((int(keep.sum()), K))
    X[np.arange(X.shape[0]), p.a[keep]] += 1
    X[np.arange(X.shape[0]), p.b[keep]] -= 1
    y = (p.outcome[keep] == 1).astype(float)
    fit = sm.Logit(y, X[:, 1:]).fit(disp=0)  # model 0 as the reference
    beta = np.r_[0.0, fit.params]
    beta -= beta.mean()
    s = bradley_terry(p, ties="exclude", prior_sd=1e3, covariance="laplace")
    for k, m in enumerate(p.models):
        assert s.strength[m] == pytest.approx(beta[k], abs=1e-4)
    C = np.eye(K) - 1.0 / K
    full = np.zeros((K, K))
    full[1:, 1:] = fit.cov_params()
    se = np.sqrt(np.diag(C @ full @ C))
    for k, m in enumerate(p.models):
        assert s.sd[m] == pytest.approx(se[k], rel=1e-3)


def test_rank_probabilities_and_elo_are_consistent():
    s = bradley_terry(_small_design(n=400))
    P = s.rank_probs
    np.testing.assert_allclose(P.sum(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    for k, m in enumerate(s.models):
        assert s.p_best[m] == pytest.approx(P[k, 0])
        assert s.expected_rank[m] == pytest.approx(float(P[k] @ np.arange(1, len(s.models) + 1)), abs=1e-9)
        assert s.elo[m] == pytest.approx(1000 + 400 / math.log(10) * s.strength[m])
    assert s.models[0] == "p"
    assert 0.5 < s.p_beats("p", "s") <= 1.0 and s.p_beats("s", "p") == pytest.approx(1 - s.p_beats("p", "s"))


def test_sandwich_meat_equals_finite_difference_item_scores():
    from bayeseval.pairwise.strengths import _item_scores

    rng = np.random.default_rng(12)
    base = pd.DataFrame({"item": np.repeat(np.arange(40), 2), "model_a": rng.choice(["a", "b"], 80),
                         "winner": rng.choice(["model_a", "model_b", "tie"], 80)})
    base["model_b"] = np.where(base.model_a == "a", "c", "a")
    p = from_long(base)
    K = len(p.models)
    x = np.array([0.3, -0.1, -0.2, math.log(0.4)])
    B = _item_scores(p, x, K, True, "davidson")
    G = np.zeros((p.n_items, K + 1))
    for it in range(p.n_items):  # each item's log-likelihood gradient by central differences
        sub = p.subset(p.item == it)

        def ll(z):
            return -_direct_negpost(z, sub, K, 1e12, True) + 0.5 * z[K] ** 2 / 4.0  # the likelihood alone

        G[it] = [(ll(x + 1e-6 * e) - ll(x - 1e-6 * e)) / 2e-6 for e in np.eye(K + 1)]
    np.testing.assert_allclose(B, G.T @ G, rtol=1e-5, atol=1e-8)


def test_designs_that_fall_apart_are_refused_and_sparse_ones_warned():
    d = {"item": [0, 1, 2, 3], "model_a": ["p", "p", "r", "r"], "model_b": ["q", "q", "s", "s"],
         "winner": ["p", "q", "r", "tie"]}
    with pytest.raises(ValueError, match=r"falls apart into 2 groups .* \{p, q\}; \{r, s\}"):
        bradley_terry(from_long(d))
    d2 = {"item": [0, 1, 2, 3], "model_a": ["p", "p", "q", "q"], "model_b": ["q", "q", "r", "r"],
          "winner": ["p", "p", "q", "r"]}
    s = bradley_terry(from_long(d2))
    assert any("never lost" in w and w.startswith("p ") for w in s.warnings)
    assert any("2 of 3 pairs were judged" in w for w in s.warnings)
    # with ties left out, a model joined to the others by ties alone is cut off
    d3 = {"item": [0, 1, 2], "model_a": ["p", "q", "q"], "model_b": ["q", "r", "r"], "winner": ["p", "tie", "tie"]}
    bradley_terry(from_long(d3))
    with pytest.raises(ValueError, match="falls apart into 2 groups"):
        bradley_terry(from_long(d3), ties="exclude")


def test_pandalm_strengths_sandwich_wider_than_laplace():
    prefs = from_wide(pandalm(), ANN, item="idx", model_a="model_1", model_b="model_2")
    sw = bradley_terry(prefs)
    lp = bradley_terry(prefs, covariance="laplace")
    assert sw.covariance == "item-clustered sandwich" and lp.covariance == "Laplace"
    assert sw.models == lp.models == ["llama-7b", "pythia-6.9b", "bloom-7b", "opt-7b", "cerebras-gpt-6.7B"]
    for m in sw.models:
        assert sw.strength[m] == lp.strength[m]
        assert 1.3 < sw.sd[m] / lp.sd[m] < 2.0  # three agreeing annotators per item: design effect near 3


@pytest.mark.slow
def test_laplace_agrees_with_nuts_on_pandalm():
    from bayeseval.mcmc import davidson_mcmc

    prefs = from_wide(pandalm(), ANN, item="idx", model_a="model_1", model_b="model_2")
    chk = davidson_mcmc(prefs, draws=1500, chains=2, seed=3, warn=False)
    assert not chk.problems
    for r in chk.rows:
        assert r["mcmc_mean"] == pytest.approx(r["laplace_mean"], abs=0.01)
        assert r["mcmc_sd"] == pytest.approx(r["laplace_sd"], rel=0.1)


@pytest.mark.slow
def test_strength_intervals_cover_simulated_truth():
    rng = np.random.default_rng(13)
    true = np.array([0.6, 0.2, -0.1, -0.7])
    true_c = true - true.mean()
    names = ["p", "q", "r", "s"]
    hits = np.zeros(4)
    reps = 150
    for _ in range(reps):
        rows = {"item": [], "model_a": [], "model_b": [], "winner": []}
        for i in range(200):
            x, y = rng.choice(4, 2, replace=False)
            d = true[x] - true[y]
            S = 1 + math.exp(-d) + 0.3 * math.exp(-d / 2)
            u = rng.random()
            rows["item"].append(i)
            rows["model_a"].append(names[x])
            rows["model_b"].append(names[y])
            rows["winner"].append(names[x] if u < 1 / S else ("tie" if u < (1 + 0.3 * math.exp(-d / 2)) / S else names[y]))
        s = bradley_terry(from_long(rows))
        hits += [s.lo[m] <= true_c[k] <= s.hi[m] for k, m in enumerate(names)]
    assert np.all((hits / reps >= 0.9) & (hits / reps <= 0.99))


# ----------------------------------------------------------------------------- PPI and agreement
@pytest.mark.parametrize("lam", [None, 1.0, 0.0, 0.4])
def test_ppi_equals_the_authors_implementation(lam):
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(14)
    truth = (rng.random(3000) < 0.6).astype(float)
    judge = np.where(rng.random(3000) < 0.8, truth, 1 - truth)
    judge = np.where(rng.random(3000) < 0.1, 1.0, judge)  # biased towards 1
    y, f, fu = truth[:150], judge[:150], judge[150:]
    r = ppi_mean(y, f, fu, lam=lam)
    assert r.estimate == pytest.approx(float(np.ravel(ppi_py.ppi_mean_pointestimate(y, f, fu, lam=lam))[0]), rel=1e-12)
    lo, hi = ppi_py.ppi_mean_ci(y, f, fu, alpha=0.05, lam=lam)
    assert (r.lo, r.hi) == pytest.approx((float(np.ravel(lo)[0]), float(np.ravel(hi)[0])), rel=1e-10)
    if lam == 0.0:
        assert r.estimate == pytest.approx(y.mean()) and r.se == pytest.approx(r.classical["se"])


def test_ppi_bad_input():
    with pytest.raises(ValueError, match="y and f must label the same items: 3 human labels, 2 judge labels"):
        ppi_mean([1, 0, 1], [1, 0], [1, 1, 1])
    with pytest.raises(ValueError, match="lam must lie in"):
        ppi_mean([1, 0, 1], [1, 0, 1], [1, 1], lam=1.5)
    with pytest.raises(ValueError, match="y must be finite"):
        ppi_mean([1, float("nan"), 1], [1, 0, 1], [1, 1])


@pytest.mark.slow
def test_ppi_covers_with_a_biased_judge_and_gains_effective_labels():
    rng = np.random.default_rng(15)
    hits, eff = 0, []
    reps = 500
    for _ in range(reps):
        truth = (rng.random(2000) < 0.55).astype(float)
        judge = np.where(rng.random(2000) < 0.85, truth, 1 - truth)
        judge = np.where(rng.random(2000) < 0.15, 1.0, judge)  # the judge says "correct" too often
        r = ppi_mean(truth[:200], judge[:200], judge[200:])
        hits += r.lo <= 0.55 <= r.hi
        eff.append(r.effective_n)
    assert 0.93 <= hits / reps <= 0.97
    assert np.median(eff) > 250  # more than the 200 human labels alone


def test_judge_agreement_against_sklearn_and_published_kappas():
    from sklearn.metrics import cohen_kappa_score

    d = pandalm()
    for (i, j), pub in {(1, 2): 0.85, (1, 3): 0.88, (2, 3): 0.86}.items():
        a = judge_agreement(d[f"annotator{i}"], d[f"annotator{j}"])
        assert a.kappa == pytest.approx(cohen_kappa_score(d[f"annotator{i}"], d[f"annotator{j}"]), abs=1e-12)
        assert round(a.kappa, 2) == pub
        assert a.kappa_interval[0] < a.kappa < a.kappa_interval[1]
    maj = d[ANN].mode(axis=1)[0]
    a = judge_agreement(maj, d["pandalm7b"])
    assert a.agreement == pytest.approx(0.6677, abs=5e-5)  # the data README's figure
    assert a.table.sum() == 999 and a.sensitivity is None


def test_binary_sensitivity_and_specificity():
    h = np.array([1] * 40 + [0] * 60)
    j = np.array([1] * 30 + [0] * 10 + [0] * 50 + [1] * 10)
    a = judge_agreement(h, j)
    assert a.sensitivity["value"] == 0.75 and a.specificity["value"] == pytest.approx(50 / 60)
    assert (a.sensitivity["lo"], a.sensitivity["hi"]) == pytest.approx(tuple(stats.beta.ppf([0.025, 0.975], 30.5, 10.5)))
    with pytest.raises(ValueError, match="two label sequences of equal length"):
        judge_agreement([1, 0], [1])


# ----------------------------------------------------------------------------- command line
WIDE = ["--judges", "annotator1,annotator2,annotator3", "--item", "idx", "--model-a", "model_1", "--model-b", "model_2"]


def test_cli_ranking_and_head_to_head(capsys):
    import json

    from bayeseval.cli import main

    assert main(["pairwise", str(DATA), *WIDE]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("Davidson strengths") and "llama-7b" in out.splitlines()[3]
    assert main(["pairwise", str(DATA), *WIDE, "--a", "llama-7b", "--b", "opt-7b", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    prefs = from_wide(pandalm(), ANN, item="idx", model_a="model_1", model_b="model_2")
    want = win_rate(prefs, "llama-7b", "opt-7b")
    assert got["value"] == want.value and got["lo"] == want.lo and got["p_a_better"] == want.p_a_better


@pytest.mark.parametrize("extra, message", [
    (["--judges", "gpt35", "--item", "idx", "--model-a", "model_1", "--model-b", "model_2"],
     "winner in row 114 is 'garbage'"),
    ([*WIDE, "--a", "llama-7b"], "give both --a and --b"),
    ([*WIDE, "--a", "llama-7b", "--b", "gpt-5"], "b 'gpt-5' is not one of the models"),
    ([*WIDE, "--ties", "davidson", "--a", "llama-7b", "--b", "opt-7b"], "--ties davidson is for the ranking"),
    ([], "no column 'model_a'"),
])
def test_cli_bad_input_is_one_line_exit_2(capsys, extra, message):
    from bayeseval.cli import main

    assert main(["pairwise", str(DATA), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bayeseval: error:") and message in err[0]


def test_cli_drops_unreadable_verdicts_when_asked(capsys):
    from bayeseval.cli import main

    assert main(["pairwise", str(DATA), "--judges", "gpt35", "--item", "idx", "--model-a", "model_1", "--model-b",
                 "model_2", "--invalid", "drop"]) == 0
    cap = capsys.readouterr()
    assert "25 label(s) with an unreadable verdict left out" in cap.err and "974 labels" in cap.out


def test_readme_pairwise_numbers():
    import re

    readme = (Path(__file__).resolve().parents[1] / "docs" / "pairwise.md").read_text()  # moved from the README
    m = re.search(r"print\(r\.value, r\.lo, r\.hi, r\.p_a_better\)\s+# ([\d.]+) \[([\d.]+), ([\d.]+)\], P\(llama preferred\) = "
                  r"([\d.]+)", readme)
    prefs = from_wide(pandalm(), ANN, item="idx", model_a="model_1", model_b="model_2")
    r = win_rate(prefs, "llama-7b", "opt-7b")
    assert [float(x) for x in m.groups()] == [round(r.value, 3), round(r.lo, 3), round(r.hi, 3), round(r.p_a_better, 4)]


def test_cli_tables_and_rank_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    from bayeseval.cli import main
    from bayeseval.report import pairwise_table

    prefs = from_wide(pandalm(), ANN, item="idx", model_a="model_1", model_b="model_2")
    png = tmp_path / "rank.png"
    assert main(["pairwise", str(DATA), *WIDE, "--format", "latex", "--plot", str(png)]) == 0
    out = capsys.readouterr().out.strip()
    assert out == pairwise_table(bradley_terry(prefs), "latex")
    assert r"1 & llama-7b & 1137 [1107, 1168] & 1.00 & 1.00 \\" in out
    assert png.stat().st_size > 10_000
    assert main(["pairwise", str(DATA), *WIDE, "--a", "llama-7b", "--b", "opt-7b", "--format", "markdown"]) == 2


def test_strengths_plot_draws_every_interval():
    pytest.importorskip("matplotlib")
    from bayeseval.report import strengths_plot

    s = bradley_terry(from_wide(pandalm(), ANN, item="idx", model_a="model_1", model_b="model_2"))
    fig = strengths_plot(s)
    ax = fig.axes[0]
    segs = ax.collections[0].get_segments()
    assert [round(seg[0][0]) for seg in segs] == [round(1000 + 400 / math.log(10) * s.lo[m]) for m in s.models]
    assert ax.lines[0].get_xdata().tolist() == pytest.approx([s.elo[m] for m in s.models])
    assert [t.get_text() for t in fig.axes[1].get_yticklabels()] == [f"{s.p_best[m]:.2f}" for m in s.models]
    with pytest.raises(TypeError, match="strengths must be a bradley_terry result"):
        strengths_plot({"a": 1})


def test_ppi_by_item_ids_and_the_subset_check():
    rng = np.random.default_rng(16)
    items = [f"q{i}" for i in range(300)]
    judge = pd.Series(rng.integers(0, 2, 300).astype(float), index=items)
    human = {k: float(rng.integers(0, 2)) for k in items[:60]}
    r = ppi_mean_by_item(judge, human)
    direct = ppi_mean(list(human.values()), judge[items[:60]].to_numpy(), judge[items[60:]].to_numpy())
    assert (r.estimate, r.lo, r.hi, r.n, r.N) == (direct.estimate, direct.lo, direct.hi, 60, 240)
    with pytest.raises(ValueError, match=r"human holds 2 item\(s\) the judge did not score \('x1', 'x2'\)"):
        ppi_mean_by_item(judge, {**human, "x1": 1.0, "x2": 0.0})
    with pytest.raises(ValueError, match="nothing for the judge to add"):
        ppi_mean_by_item({"a": 1, "b": 0}, {"a": 1, "b": 1})
    with pytest.raises(TypeError, match="judge must be a non-empty dict or pandas Series"):
        ppi_mean_by_item([1, 0], {"a": 1})


# ----------------------------------------------------------------------------- review findings (regressions)
def test_sandwich_never_collapses_below_laplace():
    it = [k for k in range(30) for _ in (0, 1)]
    p = from_long({"item": it, "model_a": ["x"] * 60, "model_b": ["y"] * 60, "winner": ["x", "y"] * 30})
    s, lap = bradley_terry(p), bradley_terry(p, covariance="laplace")
    assert s.covariance == "item-clustered sandwich"
    for m in s.models:
        assert s.sd[m] >= lap.sd[m] - 1e-12 > 0
    assert 0.3 < s.p_best["x"] < 0.7  # a coin flip stays one
    one = from_long({"item": [0] * 20, "model_a": ["x"] * 20, "model_b": ["y"] * 20, "winner": ["x"] * 12 + ["y"] * 8})
    s1 = bradley_terry(one)
    assert s1.sd["x"] >= bradley_terry(one, covariance="laplace").sd["x"] - 1e-12
    assert any("only 1 items" in w for w in s1.warnings)
    assert win_rate(one, "x", "y").design_effect == 20.0  # one item: its labels are one cluster


def test_position_bias_is_not_confounded_with_quality():
    w = list(np.random.default_rng(3).choice(["x", "y"], 200, p=[0.7, 0.3]))
    r = win_rate(from_long({"item": range(200), "model_a": ["x"] * 200, "model_b": ["y"] * 200, "winner": w},
                           shown_first="model_a"), "x", "y")
    assert r.position is None
    assert any("cannot be told apart" in w for w in r.warnings) and not any("preferred in" in w for w in r.warnings)
    # x better (70%) and shown first in 3 of 4 labels, no position effect: the order-balanced rate stays near 1/2
    rng = np.random.default_rng(4)
    first_x = rng.random(800) < 0.75
    xwin = rng.random(800) < 0.7
    d = {"item": range(800), "model_a": np.where(first_x, "x", "y"), "model_b": np.where(first_x, "y", "x"),
         "winner": np.where(xwin, "x", "y")}
    pos = win_rate(from_long(d, shown_first="model_a"), "x", "y").position
    naive = float(np.mean(first_x == xwin))
    assert naive > 0.55 and abs(pos["rate"] - 0.5) < 0.04 and pos["p_value"] > 0.05


def test_codes_and_names_do_not_collide_silently():
    p = from_wide({"idx": [0], "m1": ["2"], "m2": ["1"], "h": [1]}, ["h"], item="idx", model_a="m1", model_b="m2")
    assert p.pair_counts("2", "1")[0].tolist() == [[1, 0, 0]]  # code 1: the first-listed model ("2") preferred
    with pytest.raises(ValueError, match="both a verdict code and the name of a model"):
        from_long({"item": [0], "model_a": ["b"], "model_b": ["x"], "winner": ["b"]})  # code b: x; name b: model_a
    ok = from_long({"item": [0], "model_a": ["tie"], "model_b": ["x"], "winner": ["model_b"]})
    assert ok.pair_counts("tie", "x")[0].tolist() == [[0, 0, 1]]


def test_missing_values_of_every_kind_and_numeric_text_codes():
    with pytest.raises(ValueError, match="item column 'item' is missing a value in row 1"):
        from_long({"item": pd.array([1, None], dtype="Int64"), "model_a": ["x", "x"], "model_b": ["y", "y"],
                   "winner": ["x", "y"]})
    with pytest.raises(ValueError, match="model_a column 'model_a' is missing a value in row 0"):
        from_long({"item": [1], "model_a": pd.array([None], dtype="string"), "model_b": ["y"], "winner": ["x"]})
    p = from_long({"item": [1, 2, 3], "model_a": ["x"] * 3, "model_b": ["y"] * 3, "winner": ["1.0", None, "2.0"]},
                  invalid="drop")
    assert p.n_labels == 2 and p.dropped == 1 and p.pair_counts("x", "y")[0].tolist() == [[1, 0, 0], [0, 0, 1]]
    with pytest.raises(ValueError, match="winner in row 1 is a missing value|winner column 'winner' is missing"):
        from_long({"item": [1, 2], "model_a": ["x"] * 2, "model_b": ["y"] * 2, "winner": ["x", None]})
    with pytest.raises(ValueError, match=r"item ids must be all numbers or all text.*1 and '1' would be merged"):
        from_long({"item": [1, "1"], "model_a": ["x"] * 2, "model_b": ["y"] * 2, "winner": ["x", "y"]})


def test_value_lies_inside_its_interval_and_repeats_in_both_orders():
    p = from_long({"item": range(10), "model_a": ["x"] * 10, "model_b": ["y"] * 10, "winner": ["x"] * 10})
    for scope in ("population", "benchmark"):
        r = win_rate(p, "x", "y", scope=scope)
        assert r.value == 1.0 and r.lo <= r.value <= r.hi
    two = from_long({"item": [1, 1], "model_a": ["x", "y"], "model_b": ["y", "x"], "winner": ["model_a", "model_a"],
                     "order": ["model_a", "model_a"], "repeat": [0, 0]}, order="order", repeat="repeat")
    assert two.n_labels == 2


def test_agreement_normalises_labels_and_refuses_missing():
    a = judge_agreement([1, 0, 1, 1, 0], [1.0, 0.0, 1.0, 1.0, 0.0])
    assert a.agreement == 1.0 and a.kappa == pytest.approx(1.0) and a.labels == ["0", "1"]
    with pytest.raises(ValueError, match="judge is missing a label at position 2"):
        judge_agreement([1, 0, 1], [1.0, 0.0, np.nan])
    same = judge_agreement(["A"] * 5, ["A"] * 5)
    assert same.kappa is None and same.kappa_interval is None and "undefined" in same.summary()


def test_read_battles_refuses_json_that_is_not_records(tmp_path):
    f = tmp_path / "n.json"
    f.write_text("[1, 2, 3]")
    with pytest.raises(ValueError, match=r"n.json: expected one record"):
        read_battles(f)


def test_cli_judges_detects_the_item_column(capsys):
    from bayeseval.cli import main

    assert main(["pairwise", str(DATA), "--judges", "annotator1", "--model-a", "model_1", "--model-b", "model_2"]) == 0
    assert "999 labels on 999 items" in capsys.readouterr().out
