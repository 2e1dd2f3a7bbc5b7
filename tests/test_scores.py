"""Continuous scores in a bounded range (issue "Beyond right or wrong", item 1): counting, the mean score's
posterior in both scopes, and the front doors (estimate, evaluate, compare, compare_all, plan), each
checked against an independent computation (numpy / scipy, Monte Carlo of the Dirichlet process,
closed-form bounds)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import bayeseval as be
from bayeseval.posterior import build
from bayeseval.posterior.scores import ScorePosterior
from bayeseval.scores import looks_continuous, to_scores


def _pool(rng, M, N, shift=0.0):
    mu = rng.beta(2, 3, M)
    return np.clip(rng.normal(mu[:, None] + shift, 0.15, (M, N)), 0, 1)


# ----------------------------------------------------------------------------- counting
def test_to_scores_statistics_match_numpy_and_leave_the_input_alone():
    rng = np.random.default_rng(0)
    R = rng.random((40, 5))
    R[3, 1] = np.nan
    before = R.copy()
    s = to_scores(R, missing=np.nan)
    np.testing.assert_array_equal(R, before)  # NaN marker and all: not modified
    assert s.n.tolist() == [5] * 3 + [4] + [5] * 36
    np.testing.assert_allclose(s.means, np.nanmean(R, axis=1), rtol=1e-14)
    np.testing.assert_allclose(s.within_var(), np.nanvar(R, axis=1, ddof=1), rtol=1e-12)
    one = to_scores([[0.3], [0.2, 0.4]], ragged=True)
    assert one.n.tolist() == [1, 2] and math.isnan(one.within_var()[0])
    assert one.within_var()[1] == pytest.approx(0.02)


def test_scores_add_pools_more_trials_exactly():
    rng = np.random.default_rng(1)
    a, b = rng.random((30, 3)), rng.random((30, 5))
    both = to_scores(a) + to_scores(b)
    ref = to_scores(np.hstack([a, b]))
    np.testing.assert_array_equal(both.n, ref.n)
    np.testing.assert_allclose(both.total, ref.total, rtol=1e-13)
    np.testing.assert_allclose(both.sq, ref.sq, rtol=1e-11)


@pytest.mark.parametrize("R, kw, match", [
    ([[0.5, 1.2]], {}, r"outside \[0, 1\] at R\[0, 1\] \(e\.g\. 1\.2\); give the range of the scores with score_range$"),
    ([[0.5, -3.0]], {"score_range": (0, 10)}, r"outside \[0, 10\]"),
    ([[0.5, np.nan]], {}, r"NaN at R\[0, 1\].*missing=np.nan"),
    ([[0.5, np.inf]], {"score_range": (0, 10)}, r"outside \[0, 10\] .*\(e\.g\. inf\)"),
    ([[0.5]], {"score_range": (1, 0)}, r"lo < hi"),
    ([[0.5]], {"score_range": "0-1"}, r"score_range must be a pair"),
    ([[np.nan, np.nan]], {"missing": np.nan}, r"no observed score"),
])
def test_bad_scores_are_named(R, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        to_scores(R, **kw)


def test_what_counts_as_scores():
    assert looks_continuous(np.array([[0.0, 1.0, 0.5]]))
    assert not looks_continuous(np.array([[0.0, 1.0, 1.0]]))  # 0/1 floats stay outcomes
    assert not looks_continuous([[0, 2, 3]])  # categories stay categories
    assert looks_continuous([[0.1], [1, 0]])  # ragged lists are inspected too
    with pytest.raises(ValueError, match="must be non-negative integers"):
        be.to_counts([[0.5, 1.0]])  # to_counts itself still refuses scores


# ----------------------------------------------------------------------------- the posterior
def test_population_scope_is_the_dirichlet_process_posterior():
    """Closed-form moments = Monte Carlo of theta = (sum G_i x_i + G_0 Y) / (sum G_i + G_0), G_i ~ Exp(1),
    G_0 ~ Gamma(1), Y ~ U(lo, hi), written out independently here."""
    rng = np.random.default_rng(2)
    R = 4 + 6 * rng.random((25, 3))  # scores in [4, 10] of a 0-10 scale
    post = build(R, "avg", score_range=(0, 10))
    assert isinstance(post, ScorePosterior)
    mean, sd = post.moments("population")
    x = R.mean(axis=1)
    g = rng.standard_exponential((400_000, 25))
    g0 = rng.standard_gamma(1.0, 400_000)
    y = 10 * rng.random(400_000)
    theta = (g @ x + g0 * y) / (g.sum(axis=1) + g0)
    assert mean == pytest.approx(theta.mean(), abs=3 * theta.std() / math.sqrt(4e5))
    # studentized (bootstrap.studentize): deviations times sqrt((M + 1) / X), X ~ chi^2_{M-1}, M = 25
    t = theta.mean() + (theta - theta.mean()) * np.sqrt(26 / rng.chisquare(24, theta.size))
    assert sd == pytest.approx(theta.std() * math.sqrt(26 / 22), rel=0.01) and sd == pytest.approx(t.std(), rel=0.02)
    d = post.draws("population", 200_000, np.random.default_rng(0))
    assert d.mean() == pytest.approx(mean, abs=3 * sd / math.sqrt(2e5)) and d.std() == pytest.approx(sd, rel=0.01)
    assert np.quantile(d, [0.025, 0.975]) == pytest.approx(np.quantile(t, [0.025, 0.975]), abs=0.01)


def test_benchmark_scope_sd_is_the_estimators_error():
    rng = np.random.default_rng(3)
    R = _pool(rng, 60, 4)
    post = build(R, "avg")
    m, sd = post.moments("benchmark")
    assert m == pytest.approx(R.mean(), rel=1e-14)
    V = R.var(axis=1, ddof=1) / 4
    df = V.sum() ** 2 / np.sum(V**2 / 3)  # Welch-Satterthwaite; the sd is the t posterior's, scale sqrt(df / (df - 2))
    assert sd == pytest.approx(math.sqrt(V.sum()) / 60 * math.sqrt(df / (df - 2)), rel=1e-12)
    assert sd == pytest.approx(np.std(post.draws("benchmark", 400_000, np.random.default_rng(0))), rel=0.02)
    # every question scored the same on every trial: no error left in benchmark scope
    same = np.repeat(rng.random((20, 1)), 3, axis=1)
    assert build(same, "avg").moments("benchmark")[1] == pytest.approx(0.0, abs=1e-12)


def test_one_trial_questions():
    """Every question with one trial: benchmark scope = population scope (it bounds the benchmark error on
    average, and its pseudo-question keeps 20 equal scores at the top from a zero-width interval: coverage of
    p = 0.97 with M = 20 was 45% before).  Some questions with one trial: their across-question variance shrunk
    toward the Bhatia-Davis bound by one pseudo-question."""
    rng = np.random.default_rng(4)
    R = 10 * rng.random((50, 1))
    post = build(R, "avg", score_range=(0, 10))
    assert post.moments("benchmark") == post.moments("population")
    with pytest.warns(be.ModelCheckWarning, match="one trial per question"):
        e = be.estimate(R, scope="benchmark", score_range=(0, 10))
    assert e.lo <= R.mean() <= e.hi
    top = be.estimate([[1.0]] * 20, scope="benchmark", score_range=(0, 1))
    assert top.hi == 1.0 and top.lo < 0.95
    hits = 0
    for _ in range(200):
        x = (rng.random((20, 1)) < 0.97).astype(float)
        e = be.estimate(x, scope="benchmark", score_range=(0, 1), draws=1000)
        hits += e.lo <= 0.97 <= e.hi
    assert hits / 200 >= 0.93
    mixed = [[7.0], [3.0]] + [list(10 * rng.random(3)) for _ in range(8)]
    p = build(be.to_scores(mixed, ragged=True, score_range=(0, 10)), "avg")
    u = 0.5  # (7 + 3) / 10 of two questions
    a, b = 1 + 2 * u, 1 + 2 - 2 * u
    bound = 100 * a * b / ((a + b) * (a + b + 1))
    one = 2 * ((1 * np.var([7.0, 3.0], ddof=1) + bound) / 2)
    within = sum(np.var(r, ddof=1) / 3 for r in mixed[2:])
    assert p.error_var() == pytest.approx(one + within, rel=1e-12)


def test_few_varying_questions_widen_the_interval_to_a_t():
    """Welch-Satterthwaite: df = (sum V_i)^2 / sum V_i^2 / (n_i - 1), V_i = s_i^2 / n_i; the exact interval's
    half-width is t_{df, 0.975} sd (draws), not 1.96 sd."""
    rng = np.random.default_rng(15)
    R = np.repeat(rng.integers(0, 2, (15, 1)).astype(float), 4, axis=1)  # 13 questions always 0 or 1 ...
    R[0] = [0.2, 0.6, 0.4, 0.9]  # ... two vary
    R[1] = [0.5, 0.5, 0.7, 0.1]
    post = build(R, "avg")
    V = R[:2].var(axis=1, ddof=1) / 4
    df = V.sum() ** 2 / np.sum(V**2 / 3)
    total, got = post.error_model()
    assert total == pytest.approx(V.sum(), rel=1e-12) and got == pytest.approx(df, rel=1e-12)
    e = be.estimate(R, scope="benchmark", draws=100_000, seed=2)
    half = (e.hi - e.lo) / 2
    scale = math.sqrt(V.sum()) / 15
    assert half == pytest.approx(stats.t.ppf(0.975, df) * scale, rel=0.03)
    assert half > 1.2 * 1.96 * scale  # df about 4 here: t = 2.45
    assert e.sd == pytest.approx(stats.t(df, scale=scale).std(), rel=1e-12)  # the t's sd, not its scale
    with pytest.warns(be.ModelCheckWarning, match="every question scored the same on each of its trials"):
        be.estimate(np.repeat(rng.random((10, 1)), 3, axis=1), scope="benchmark")


def test_rescaling_the_range_rescales_everything():
    rng = np.random.default_rng(5)
    R = _pool(rng, 40, 3)
    for scope in ("population", "benchmark"):
        e1 = be.estimate(R, scope=scope, seed=1)
        e10 = be.estimate(10 * R - 5, scope=scope, seed=1, score_range=(-5, 5))
        assert e10.value == pytest.approx(10 * e1.value - 5, rel=1e-12)
        assert e10.sd == pytest.approx(10 * e1.sd, rel=1e-12)
        assert (e10.lo, e10.hi) == pytest.approx((10 * e1.lo - 5, 10 * e1.hi - 5), rel=1e-9)


def test_estimate_reads_scores_and_asks_for_a_threshold_elsewhere():
    rng = np.random.default_rng(6)
    R = _pool(rng, 30, 4)
    e = be.estimate(R)
    assert e.value == pytest.approx(R.mean()) and e.lo < e.value < e.hi and e.prior == "robust"
    with pytest.raises(ValueError, match=r"pass@2 needs 0/1 outcomes.*or give threshold t to count a trial correct"):
        be.estimate(R, "pass@2")
    t = be.estimate(R, "pass@2", threshold=0.4)
    ref = be.estimate((R > 0.4).astype(int), "pass@2")
    assert (t.value, t.lo, t.hi) == (ref.value, ref.lo, ref.hi)
    with pytest.raises(ValueError, match=r"avg@n counts a replica correct.*give threshold \(0.5 there\)"):
        be.estimate(R, "avg@n")
    assert be.estimate(R, "avg@n", threshold=0.5).value == pytest.approx(np.mean(R > 0.5))
    with pytest.raises(ValueError, match="prior='uniform'.*assumes no shape"):
        be.estimate(R, prior="uniform")
    with pytest.raises(ValueError, match="outside .*; give the range of the scores with score_range"):
        be.estimate(R * 2, score_range=(0, 1))
    # 0/1 outcomes read as scores on request: the same mean, the score model's intervals
    B = (R > 0.5).astype(int)
    assert be.estimate(B, score_range=(0, 1)).value == pytest.approx(B.mean())


def test_evaluate_takes_score_matrices():
    rng = np.random.default_rng(7)
    ev = be.evaluate({"x": _pool(rng, 30, 4), "y": (rng.random((30, 4)) < 0.5).astype(int)}, ["avg"])
    assert [e.model for e in ev] == ["x", "y"]
    assert type(ev["x", "avg"]._post).__name__ == "ScorePosterior"
    assert type(ev["y", "avg"]._post).__name__ == "RobustPosterior"


# ----------------------------------------------------------------------------- comparisons and planning
def test_compare_scores_against_scipy():
    rng = np.random.default_rng(8)
    mu = rng.beta(2, 2, 80)
    A = np.clip(rng.normal(mu[:, None] + 0.04, 0.1, (80, 4)), 0, 1)
    B = np.clip(rng.normal(mu[:, None], 0.1, (80, 4)), 0, 1)
    c = be.compare(A, B, seed=3)
    d = A.mean(axis=1) - B.mean(axis=1)
    assert c.mcnemar is None and any("McNemar does not apply" in n for n in c.notes)
    assert c.t_test.p_value == pytest.approx(stats.ttest_rel(A.mean(axis=1), B.mean(axis=1)).pvalue, rel=1e-10)
    assert c.wilcoxon.p_value == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-6)
    assert c.verdict.startswith("A is better") and c.p_a_better > 0.99
    cb = be.compare(A, B, scope="benchmark", seed=3)
    assert cb.delta.mean == pytest.approx(d.mean(), rel=1e-12)
    def t_var(X):  # each model's benchmark posterior: a t with Welch-Satterthwaite df; its variance
        V = X.var(axis=1, ddof=1) / 4
        df = V.sum() ** 2 / np.sum(V**2 / 3)
        return stats.t(df, scale=math.sqrt(V.sum()) / 80).var()

    assert cb.delta.sd == pytest.approx(math.sqrt(t_var(A) + t_var(B)), rel=1e-12)
    assert "McNemar" not in c.summary().split("note:")[0]
    # one model's scores happen to be all 0/1: both are still read as scores (not a silent binarisation)
    both = be.compare(A, np.round(B), seed=3)
    assert both.mcnemar is None and both.delta.mean == pytest.approx(np.mean(A.mean(1) - np.round(B).mean(1)),
                                                                     abs=0.01)


def test_compare_all_and_plan_on_scores():
    rng = np.random.default_rng(9)
    mu = rng.beta(2, 3, 100)
    models = {f"s{j}": np.clip(rng.normal(mu[:, None] + 0.05 * j, 0.1, (100, 4)), 0, 1) for j in range(3)}
    r = be.compare_all(models)
    assert r.models == ["s2", "s1", "s0"]
    assert all(p["decision"] == "A" for p in r.pairs)
    pl = be.plan(models["s0"])
    x = models["s0"].mean(axis=1)
    w = models["s0"].var(axis=1, ddof=1)
    assert pl.sigma_w2 == pytest.approx(w.mean(), rel=1e-12)
    assert pl.sigma_b2 == pytest.approx(x.var(ddof=1) - (w / 4).mean(), rel=1e-10)
    pl10 = be.plan(10 * models["s0"], score_range=(0, 10), delta=0.5)
    assert pl10.sigma_w2 == pytest.approx(100 * pl.sigma_w2, rel=1e-10)
    assert pl10.questions_needed(0.5, 4) == pl.questions_needed(0.05, 4)
    with pytest.raises(ValueError, match=r"scores in \[0, 10\].*\|delta\| <= 10"):
        be.plan(10 * models["s0"], score_range=(0, 10), delta=20)


def _simulate(pool, rng, M, N):
    """Per-question mean scores mu and an M x N matrix of trial scores in [0, 1]; the pool's E[mu]."""
    if pool == "beta":  # Beta(2, 3) question means, Beta(5 mu, 5 (1 - mu)) trials
        mu = rng.beta(2, 3, M)
        return mu, rng.beta(5 * mu[:, None], 5 * (1 - mu[:, None]), (M, N)), 0.4
    if pool == "atoms":  # point masses at 0 and 1 plus a uniform middle: P(0) = a, P(1) = b per question
        ab = rng.dirichlet([1.0, 1.0, 1.0], M)
        mu = ab[:, 1] + 0.5 * ab[:, 2]
        u = rng.random((M, N))
        y = np.where(u < ab[:, :1], 0.0, np.where(u < ab[:, :2].sum(1, keepdims=True), 1.0, rng.random((M, N))))
        return mu, y, 0.5
    mu = rng.beta(0.3, 0.3, M)  # U-shaped question means, U-shaped trials
    return mu, rng.beta(2 * mu[:, None] + 1e-3, 2 * (1 - mu[:, None]) + 1e-3, (M, N)), 0.5


@pytest.mark.slow
@pytest.mark.parametrize("pool", ["beta", "atoms", "u-shape"])
def test_fixed_seed_coverage_on_score_pools(pool):
    """200 replicates (MC s.e. 1.5 points), M = 50, N = 4, exact 95% intervals: both scopes cover within
    [91, 99] (benchmark: the mean of these questions' mu; population: the pool's E[mu]).  The full grid is
    benchmarks/coverage_scores.py."""
    rng = np.random.default_rng(11)
    hits = {"benchmark": 0, "population": 0}
    for _ in range(200):
        mu, R, pop = _simulate(pool, rng, 50, 4)
        for scope in hits:
            e = be.estimate(R, scope=scope, draws=1000)
            hits[scope] += e.lo <= (mu.mean() if scope == "benchmark" else pop) <= e.hi
    for scope, h in hits.items():
        assert 0.91 <= h / 200 <= 0.99, (pool, scope, h)


# ----------------------------------------------------------------------------- loaders and the command line
def test_outcome_sets_of_scores(tmp_path):
    import pandas as pd

    from bayeseval.io import OutcomeSet, from_long, write_outcomes

    rng = np.random.default_rng(12)
    A, B = _pool(rng, 30, 3), _pool(rng, 30, 3)
    o = OutcomeSet.from_arrays({"a": A, "b": B})
    assert o.run("a").scale == (0.0, 1.0)
    np.testing.assert_allclose(o.counts("a").means, A.mean(axis=1), rtol=1e-14)
    assert be.evaluate(o, ["avg"])["a", "avg"].value == pytest.approx(A.mean())
    with pytest.raises(ValueError, match="holds continuous scores; the compact outcome format stores categories"):
        write_outcomes(tmp_path / "x.json", o)
    back = from_long(o.to_frame(), score_range=(0, 1))  # a long table round trip keeps every score
    np.testing.assert_allclose(back.counts("b").means, B.mean(axis=1), rtol=1e-14)
    # graded outcomes (categories with weights) as scores: each category becomes its weight, nothing is lost
    G = rng.integers(1, 6, (25, 4))
    graded = from_long(pd.DataFrame([{"model": "g", "question": i, "score": int(G[i, j])}
                                     for i in range(25) for j in range(4)]))
    assert graded.run("g").weights is not None
    s = graded.as_scores((1, 5)).counts("g")
    np.testing.assert_allclose(s.means, G.mean(axis=1), rtol=1e-14)
    with pytest.raises(ValueError, match=r"scores from 1 to 5 are not all in \[0, 1\]; give the range of the scores with score_range$"):
        graded.as_scores()


def test_tool_logs_with_continuous_scores(tmp_path):
    """inspect_ai scores in [0, 1] and lm-eval per-sample numeric fields: read, then as scores."""
    import copy
    import json
    from pathlib import Path

    from bayeseval.io import read_inspect, read_lm_eval

    log = json.loads((Path(__file__).parent / "data" / "inspect" /
                      "2024-09-02T14-03-11+00-00_gsm8k_Fq4gLhQv7iR5cz8d9WYJxM.json").read_text())
    rng = np.random.default_rng(13)
    bad = copy.deepcopy(log)
    vals = {}
    for k, smp in enumerate(bad["samples"]):
        if "scores" in smp:
            v = round(float(rng.random()), 3)
            smp["scores"]["match"]["value"] = v
            vals[(smp["id"], smp["epoch"])] = v
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(bad))
    run = read_inspect(path).as_scores().run("openai/gpt-4o-mini")
    assert run.scale == (0.0, 1.0)
    assert np.nansum(run.matrix) == pytest.approx(sum(vals.values()))
    recs = [{"doc_id": i, "doc": {}, "target": "x", "arguments": {}, "resps": [["a"]], "filtered_resps": ["a"],
             "filter": "none", "metrics": ["f1"], "f1": v} for i, v in enumerate(rng.random(40).round(4))]
    lm = tmp_path / "samples_squad_2024-06-01T00-00-00.jsonl"
    lm.write_text("".join(json.dumps(r) + "\n" for r in recs))
    o = read_lm_eval(lm, metric="f1").as_scores()
    e = be.evaluate(o, ["avg"])
    assert e[0].value == pytest.approx(np.mean([r["f1"] for r in recs]))


def test_command_line_scores(tmp_path, capsys):
    import pandas as pd

    from bayeseval.cli import main

    rng = np.random.default_rng(14)
    mu = rng.beta(2, 3, 80)
    rows = []
    for name, shift in (("base", 0.0), ("new", 0.15)):
        R = np.clip(rng.normal(mu[:, None] + shift, 0.1, (80, 3)), 0, 1)
        rows += [{"model": name, "question": f"q{i}", "score": float(R[i, j])} for i in range(80) for j in range(3)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    assert main(["report", str(path), "--scores", "--format", "json"]) == 0
    out = capsys.readouterr().out
    import json

    rep = json.loads(out)
    vals = {r["model"]: r["value"] for r in (rep["estimates"] if isinstance(rep, dict) else rep)}
    df = pd.DataFrame(rows)
    assert vals["new"] == pytest.approx(df[df.model == "new"].score.mean(), rel=1e-9)
    assert main(["compare", "new", "base", "--data", str(path), "--scores"]) == 0
    assert capsys.readouterr().out.startswith("new is better")
    assert main(["rank", str(path), "--scores"]) == 0
    assert main(["plan", str(path), "--scores", "--models", "base"]) == 0
    capsys.readouterr()
    assert main(["report", str(path), "--scores", "--metrics", "pass@2"]) == 2
    assert "pass@2 needs 0/1 outcomes" in capsys.readouterr().err
    assert main(["report", str(path), "--scores", "2,1"]) == 2
    assert "--scores: LO and HI must be finite numbers with LO below HI, got '2,1'" in capsys.readouterr().err
    assert main(["report", str(path), "--scores", "0,inf"]) == 2  # was refused by the library as score_range
    assert "--scores: LO and HI must be finite numbers with LO below HI, got '0,inf'" in capsys.readouterr().err
    assert main(["report", str(path), "--scores", "0,0.5"]) == 2  # the data hold larger scores: name the option
    err = capsys.readouterr().err
    assert ("line 2: column 'score': a score of 0.598555 is outside [0, 0.5]; give the range of the scores with "
            "--scores") in err


def test_service_takes_scores():
    from fastapi.testclient import TestClient

    from bayeseval.service.app import create_app

    rng = np.random.default_rng(16)
    A = rng.random((30, 3)).round(3)
    B = (0.8 * rng.random((30, 3))).round(3)
    with TestClient(create_app()) as c:
        r = c.post("/v1/metrics", json={"models": {"a": {"scores": A.tolist()}}})
        assert r.status_code == 200 and r.json()["estimates"][0]["value"] == pytest.approx(A.mean())
        r = c.post("/v1/compare", json={"a": {"scores": A.tolist()}, "b": {"scores": B.tolist()}})
        assert r.status_code == 200 and r.json()["mcnemar"] is None
        assert r.json()["delta"]["mean"] == pytest.approx(be.compare(A, B).delta.mean)
        assert c.post("/v1/rank", json={"models": {"a": {"scores": A.tolist()}, "b": {"scores": B.tolist()}}}
                      ).status_code == 200
        assert c.post("/v1/plan", json={"a": {"scores": (10 * A).tolist(), "range": [0, 10]}}).status_code == 200
        r = c.post("/v1/metrics", json={"models": {"a": {"scores": [[0.5, 1.5]]}}})
        assert r.status_code == 422 and "scores[0][1] = 1.5 is outside range [0, 1]" in r.json()["error"]["message"]
        r = c.post("/v1/metrics", json={"models": {"a": {"scores": A.tolist()}}, "metrics": ["pass@2"]})
        assert r.status_code == 422 and r.json()["error"]["field"] == "metrics[0]"


# ----------------------------------------------------------------------------- review fixes
def test_scores_pool_and_pair_by_id():
    a = to_scores([[0.1, 0.2], [0.9, 0.8]], ids=["q1", "q2"])
    b = to_scores([[0.85], [0.15]], ids=["q2", "q1"])
    np.testing.assert_allclose((a + b).means, [0.15, 0.85], rtol=1e-12)
    with pytest.raises(ValueError, match=r"question ids \['q1', 'q2'\] missing on the right"):
        a + to_scores([[0.5], [0.5]], ids=["x", "y"])
    with pytest.raises(ValueError, match="ids must be unique"):
        to_scores([[0.1], [0.2]], ids=["x", "x"])
    with pytest.raises(ValueError, match=r"score_range must lie within"):
        be.estimate([[1.0]], score_range=(0, 1e160))


def test_models_on_different_scales_are_refused():
    rng = np.random.default_rng(17)
    x, y = rng.random((20, 2)), 1 + 4 * rng.random((20, 2))
    for call in (lambda: be.compare(to_scores(x), to_scores(y, score_range=(1, 5))),
                 lambda: be.compare_all({"x": to_scores(x), "y": to_scores(y, score_range=(1, 5))}),
                 lambda: be.plan(to_scores(x), to_scores(y, score_range=(1, 5)))):
        with pytest.raises(ValueError, match=r"different ranges \(.*\[0, 1\].*\[1, 5\]\)"):
            call()


def test_threshold_respects_missing_trials_and_reaches_every_front_door():
    R = np.array([[0.9, 0.2, 0.7], [0.6, 0.1, 0.3], [0.8, 0.9, 0.4]])
    mask = np.zeros_like(R, bool)
    mask[0, 0] = mask[1, 1] = True
    H = (R > 0.5).astype(float)
    want = np.mean([H[0, 1:].mean(), H[1, [0, 2]].mean(), H[2].mean()])
    assert be.estimate(np.ma.masked_array(R, mask), threshold=0.5).value == pytest.approx(want)
    R2 = np.where(mask, np.nan, R)
    assert be.estimate(R2, threshold=0.5, missing=np.nan).value == pytest.approx(want)
    assert be.estimate(np.where(mask, -1.0, R), threshold=0.5, missing=-1).value == pytest.approx(want)
    assert be.estimate([[0.9, 0.2], [0.6]], threshold=0.5, ragged=True).value == pytest.approx(0.75)
    rng = np.random.default_rng(18)
    A, B = rng.random((40, 4)), 0.7 * rng.random((40, 4))
    c = be.compare(A, B, metric="pass@2", threshold=0.5)
    assert c.metric == "pass@2 (threshold=0.5)" and c.mcnemar is not None  # named as estimate names it
    ref = be.compare((A > 0.5).astype(int), (B > 0.5).astype(int), metric="pass@2")
    assert c.delta.mean == pytest.approx(ref.delta.mean, rel=1e-12)
    r = be.compare_all({"a": A, "b": B}, metric="pass@2", threshold=0.5)
    assert r.pairs[0]["delta"] == pytest.approx(ref.delta.mean, rel=1e-12)
    from bayeseval.io import OutcomeSet

    o = OutcomeSet.from_arrays({"a": A, "b": B})
    ev = be.evaluate(o, [("pass@2", {"threshold": 0.5})])
    # the label says what was counted: evaluate's rows of pass@2 with and without a threshold are two rows
    assert ev["a", "pass@2 (threshold=0.5)"].value == pytest.approx(be.estimate((A > 0.5).astype(int), "pass@2").value)
    assert be.compare_all(o, metric="pass@2", threshold=0.5).pairs[0]["delta"] == pytest.approx(ref.delta.mean, rel=1e-12)


def test_plan_keeps_the_score_scale():
    rng = np.random.default_rng(19)
    y = 1 + 4 * rng.random((30, 3))
    pl = be.plan(y, score_range=(1, 5), delta=2)
    assert pl.scale == (1.0, 5.0) and "questions needed for delta = 2" in pl.summary()
    assert pl.to_dict()["scale"] == [1.0, 5.0] and pl.questions_needed(2, 4) >= 1
    assert be.plan(to_scores(y, score_range=(1, 5)), delta=2).scale == (1.0, 5.0)
    with pytest.raises(ValueError, match=r"\|delta\| <= 4"):
        be.plan(y, score_range=(1, 5), delta=5)


def test_tables_and_the_command_line_read_scores_of_any_range(tmp_path, capsys):
    import pandas as pd

    from bayeseval.cli import main
    from bayeseval.io import from_long, load
    from bayeseval.io._vendor import code_scores

    rng = np.random.default_rng(20)
    rows = [{"model": m, "question": i, "score": float(rng.uniform(-5, 5))} for m in "ab" for i in range(40)
            for _ in range(2)]
    path = tmp_path / "neg.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    o = load(path, score_range=(-5, 5))
    assert o.run("a").scale == (-5.0, 5.0)
    assert main(["report", str(path), "--scores=-5,5", "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["plan", str(path), "--scores=-5,5", "--models", "a", "--delta", "2"]) == 0
    assert "questions needed for delta = 2" in capsys.readouterr().out
    # 1000 distinct fractions plus 0 and 1 (token F1 looks like this): scores, not a refused set of 1002 categories
    vals = np.concatenate([np.linspace(0.0005, 0.9995, 1000), [0.0, 1.0]])
    m, w, scale = code_scores(vals)
    assert scale == (0.0, 1.0) and w is None
    assert from_long(pd.DataFrame({"model": "m", "question": np.arange(1002), "score": vals})).run("m").scale == (0, 1)


def test_service_refuses_duplicate_ids_and_mixed_scales():
    from fastapi.testclient import TestClient

    from bayeseval.service.app import create_app

    with TestClient(create_app()) as c:
        dup = {"scores": [[0.1, 0.5], [0.2, 0.3]], "ids": ["x", "x"]}
        r = c.post("/v1/compare", json={"a": dup, "b": dup})
        assert r.status_code == 422 and "unique" in r.json()["error"]["message"]
        r = c.post("/v1/compare", json={"a": {"scores": [[0.1], [0.5], [0.3]]},
                                         "b": {"scores": [[1], [5], [3]], "range": [1, 5]}})
        assert r.status_code == 422 and "different ranges" in r.json()["error"]["message"]
        r = c.post("/v1/plan", json={"a": {"scores": [[1, 2], [5, 4], [3, 3]], "range": [1, 5]}, "delta": 2})
        assert r.status_code == 200 and r.json()["delta"] == 2


@pytest.mark.parametrize("scope", ["population", "benchmark"])
def test_a_seed_gives_the_same_interval_whatever_the_question_order(scope):
    """The population draws of scores followed the order of the questions, so the same file read by DuckDB (ids
    sorted) and by pandas (file order) gave [64.3, 67.1] and [64.4, 67.0]; they are drawn over the sorted scores."""
    rng = np.random.default_rng(0)
    F, G = rng.beta(2, 1, (400, 3)), rng.beta(2, 2, (400, 3))
    perm = rng.permutation(400)
    for interval in ("exact", "hdi"):
        a = be.estimate(F, score_range=(0, 1), scope=scope, interval=interval)
        b = be.estimate(F[perm], score_range=(0, 1), scope=scope, interval=interval)
        assert (b.lo, b.hi) == pytest.approx((a.lo, a.hi), rel=1e-12, abs=1e-14)
        c = be.compare(F, G, score_range=(0, 1), scope=scope, interval=interval)
        d = be.compare(F[perm], G[perm], score_range=(0, 1), scope=scope, interval=interval)
        assert (d.delta.lo, d.delta.hi, d.p_a_better) == pytest.approx((c.delta.lo, c.delta.hi, c.p_a_better),
                                                                        rel=1e-12, abs=1e-14)
