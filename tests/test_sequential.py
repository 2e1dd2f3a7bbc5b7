"""Anytime-valid monitoring, stopping rules, replay and trial allocation (bayeseval.sequential).

Every formula is checked against an independent computation: the betting capital against a plain
Python loop over the paper's definitions, the confidence sequence's coverage under continuous
monitoring by simulation (next to a peeked t-test that loses its level on the same draws), unbiased
per-question scores against enumeration of every subset of trials, the value of one more trial
against numerical integration of the posterior, the within-question variance against simulation.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

import bayeseval as be
from bayeseval.sequential import (BettingCS, SequentialCompare, Sequential, StopRule, capital_at, parse_until,
                                  question_values, replay, unbiased_table)
from bayeseval.sequential.allocation import design, trial_values

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data"


# ----------------------------------------------------------------------------- the capital process
def naive_log_capital(x, m, alpha=0.05, c=0.5):
    """Waudby-Smith & Ramdas (2024), eq. (26)-(27) and the hedged capital, one observation at a time."""
    kp = km = 1.0
    best = 0.0
    sum_x, sum_v = 0.0, 0.0
    for t, xt in enumerate(x, start=1):
        var_prev = (0.25 + sum_v) / t  # sigma^2_{t-1}
        lam = math.sqrt(2 * math.log(2 / alpha) / (var_prev * t * math.log(1 + t)))
        lp = min(lam, c / m) if m > 0 else lam
        lm = min(lam, c / (1 - m)) if m < 1 else lam
        kp *= 1 + lp * (xt - m)
        km *= 1 - lm * (xt - m)
        best = max(best, math.log(0.5 * kp + 0.5 * km))
        sum_x += xt
        mu_t = (0.5 + sum_x) / (t + 1)
        sum_v += (xt - mu_t) ** 2
    return best


def naive_agrapa_log_capital(x, m, c=0.75):
    """aGRAPA (Waudby-Smith & Ramdas 2024, Section 5.3), one observation at a time."""
    kp = km = 1.0
    best = 0.0
    s1 = s2 = 0.0
    for xt in x:
        lam = s1 / (0.25 + s2)
        lp = min(max(lam, 0.0), c / m)
        lm = min(max(-lam, 0.0), c / (1 - m))
        kp *= 1 + lp * (xt - m)
        km *= 1 - lm * (xt - m)
        best = max(best, math.log(0.5 * kp + 0.5 * km))
        s1 += xt - m
        s2 += (xt - m) ** 2
    return best


@pytest.mark.parametrize("m", [0.1, 0.3, 0.5, 0.77, 0.95])
@pytest.mark.parametrize("bets,naive", [("plugin", naive_log_capital), ("agrapa", naive_agrapa_log_capital)])
def test_capital_equals_the_papers_definition(m, bets, naive):
    x = np.random.default_rng(3).beta(2, 3, size=120)
    cs = BettingCS(extra=[m], bets=bets)
    cs.update(x)
    assert cs.log_e(m) == pytest.approx(naive(x, m), rel=1e-10, abs=1e-10)
    assert capital_at(x[None, :], m, bets=bets)[0, -1] == pytest.approx(naive(x, m), rel=1e-10, abs=1e-10)


def test_the_set_is_every_mean_the_capital_has_not_rejected():
    x = np.random.default_rng(5).binomial(1, 0.3, size=80).astype(float)
    cs = BettingCS(grid=401)
    cs.update(x)
    lo, hi = cs.interval
    grid = np.linspace(0, 1, 401)
    inside = [m for m in grid if naive_log_capital(x, m) < math.log(20)]
    # reported ends are the nearest rejected grid points outside the set (conservative by one step)
    assert lo == pytest.approx(min(inside) - 1 / 400, abs=1e-12)
    assert hi == pytest.approx(max(inside) + 1 / 400, abs=1e-12)
    assert lo < x.mean() < hi


def test_streaming_in_pieces_equals_all_at_once():
    x = np.random.default_rng(1).beta(0.5, 0.5, size=700)
    a = BettingCS()
    la, ha = a.update(x)
    b = BettingCS()
    parts = [b.update(x[i:i + 97]) for i in range(0, 700, 97)]
    np.testing.assert_array_equal(la, np.concatenate([p[0] for p in parts]))
    np.testing.assert_array_equal(ha, np.concatenate([p[1] for p in parts]))
    assert np.all(np.diff(la) >= -1e-15) and np.all(np.diff(ha) <= 1e-15)  # running intersection: only shrinks


def test_a_range_other_than_0_1_is_an_affine_map():
    x = np.random.default_rng(2).uniform(size=200)
    a, b = BettingCS(), BettingCS(lo=1, hi=10)
    la, ha = a.update(x)
    lb, hb = b.update(1 + 9 * x)
    np.testing.assert_allclose(lb, 1 + 9 * la, atol=1e-12)
    np.testing.assert_allclose(hb, 1 + 9 * ha, atol=1e-12)
    assert b.mean == pytest.approx(1 + 9 * x.mean())


@pytest.mark.parametrize("pool", ["two-cluster", "beta(.5,.5)", "real"])
def test_coverage_at_every_look_and_the_peeked_t_test_that_loses_it(pool):
    """The sequence misses the true mean difference (0) at *some* look in <= alpha of studies; a t-test looked at
    after every question, on the same draws, rejects far more often."""
    rng = np.random.default_rng(11)
    R, T, trials = 1500, 400, 1
    if pool == "two-cluster":
        p = np.where(rng.random((R, T)) < 0.4, 0.05, 0.9)
    elif pool == "beta(.5,.5)":
        p = rng.beta(0.5, 0.5, (R, T))
    else:  # per-question rates of the bundled CRUXEval-O run, resampled
        s = be.load(str(DATA / "cruxeval.json"))
        p = rng.choice(np.nanmean(s.matrix(s.models[0], "CRUXEval-O"), axis=1), size=(R, T))
    d = (rng.binomial(trials, p) - rng.binomial(trials, p)) / trials
    for bets in ("plugin", "agrapa"):
        logk = capital_at((d + 1) / 2, 0.5, bets=bets)
        ever = (logk[:, -1] >= math.log(20)).mean()
        assert ever <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / R), bets
    m = np.arange(1, T + 1)
    mean = np.cumsum(d, axis=1) / m
    var = (np.cumsum(d * d, axis=1) - m * mean**2) / np.maximum(m - 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean) / np.sqrt(var / m)
    peeked = ((m >= 10) & (var > 0) & (t > stats.t.ppf(0.975, np.maximum(m - 1, 1)))).any(axis=1).mean()
    assert peeked > 0.15  # three times the level and more


# ----------------------------------------------------------------------------- rules and monitoring
def test_words_map_to_parameters():
    assert parse_until("decided") == StopRule()
    assert parse_until("Decided or practically equivalent within 0.01, 2,000 questions") == StopRule(
        decided=True, rope=(-0.01, 0.01), max_questions=2000)
    assert parse_until("width < 0.05 or 10_000 samples") == StopRule(decided=False, width=0.05, max_samples=10000)
    assert parse_until("rope 0.02").rope == (-0.02, 0.02)
    assert parse_until(None) == StopRule()
    for bad, words in [("soon", "cannot read 'soon'"), ("width -1", "positive"), ("2.5 questions", "whole"),
                       ("", "empty")]:
        with pytest.raises(ValueError, match=words):
            parse_until(bad)
    with pytest.raises(TypeError, match="until must be words"):
        parse_until(5)


def test_a_clear_difference_is_decided_early_and_the_reason_says_so():
    rng = np.random.default_rng(0)
    p = rng.beta(0.5, 0.5, size=400)
    a, b = rng.binomial(1, np.clip(p + 0.15, 0, 1)), rng.binomial(1, p)
    st = SequentialCompare(names=("new", "base")).update(a, b)
    assert st.decision == "A better" and st.stop and st.stopped_at == 205 and st.samples_at_stop == 410
    assert "new is better than base" in st.reason and "after 205 questions (410 samples)" in st.reason
    assert st.path_lower[st.stopped_at - 1] >= 0 > st.path_lower[st.stopped_at - 2]
    assert st.p_value < 0.05 and st.to_dict()["decision"] == "A better"
    swapped = SequentialCompare().update(b, a)
    assert swapped.decision == "B better" and swapped.stopped_at == 205


@pytest.mark.slow
def test_equivalence_width_and_budget_rules():
    rng = np.random.default_rng(4)
    p = rng.beta(2, 2, size=20000)
    a = rng.binomial(1, p)
    st = SequentialCompare(until="decided or equivalent within 0.05").update(a, a)  # identical answers
    assert st.decision == "equivalent" and -0.05 <= st.path_lower[st.stopped_at - 1] <= st.path_upper[st.stopped_at - 1] <= 0.05
    b = rng.binomial(1, p)
    st = SequentialCompare(until="width 0.2").update(a, b)
    assert st.decision == "precise" and st.path_upper[st.stopped_at - 1] - st.path_lower[st.stopped_at - 1] <= 0.2
    st = SequentialCompare(until="decided or 100 samples").update(a[:500], b[:500], samples=4)
    assert st.decision == "budget" and st.samples_at_stop == 104 and st.stopped_at == 13  # 2 models x 4 trials each
    one = Sequential(until="decided", null=0.5).update(rng.binomial(1, 0.7, size=2000))
    assert one.decision == "above" and "above 0.5" in one.reason


def test_bad_input_names_the_argument():
    seq = SequentialCompare()
    with pytest.raises(ValueError, match="one score per question each"):
        seq.update([1, 0], [1])
    with pytest.raises(ValueError, match="question 2 has score 1.5, outside"):
        seq.update([1, 1.5], [0, 0])
    with pytest.raises(ValueError, match="not a finite number|outside"):
        Sequential().update([0.5, np.nan])
    with pytest.raises(ValueError, match="needs null"):
        Sequential(until="decided")
    with pytest.raises(ValueError, match="range must be"):
        BettingCS(lo=1, hi=1)
    with pytest.raises(ValueError, match="samples must be"):
        seq.update([1], [0], samples=-1)
    assert seq.status().questions == 0  # nothing half-added


# ----------------------------------------------------------------------------- per-question scores
@pytest.mark.parametrize("metric,k", [("pass@k", 3), ("pass^k", 2), ("maj@k", 3)])
def test_unbiased_scores_equal_the_mean_over_every_subset_of_trials(metric, k):
    n = 6
    table, rng_ = unbiased_table(metric, n, k=k)
    payoff = {"pass@k": lambda j: float(j >= 1), "pass^k": lambda j: float(j == k),
              "maj@k": lambda j: float(j > k / 2)}[metric]
    for s in range(n + 1):
        trials = [1] * s + [0] * (n - s)
        subsets = list(itertools.combinations(trials, k))
        assert table[s] == pytest.approx(np.mean([payoff(sum(c)) for c in subsets]), abs=1e-12)
    assert rng_ == (0.0, 1.0)


def test_question_values_match_estimate_and_cover_scores_and_grades():
    R = np.random.default_rng(8).integers(0, 2, size=(40, 8))
    for metric in ("avg", "pass@4", "pass^3", "maj@5"):
        x, _ = question_values(R, metric)
        assert x.mean() == pytest.approx(be.estimate(R, metric=metric).value, abs=1e-12)
    S = np.random.default_rng(9).uniform(1, 5, size=(30, 3))
    x, r = question_values(S, score_range=(1, 5))
    np.testing.assert_allclose(x, S.mean(axis=1))
    assert r == (1.0, 5.0)
    G = np.array([[0, 2, 1], [2, 2, 2]])
    x, r = question_values(G, w=[0, 0.5, 1])
    np.testing.assert_allclose(x, [0.5, 1.0])
    with pytest.raises(ValueError, match=r"k must satisfy 1 <= k <= N \(N=3\), got k=4"):
        question_values(R[:, :3], "pass@4")
    with pytest.raises(ValueError, match="supports metric avg"):
        question_values(S, "pass@2", score_range=(1, 5))


# ----------------------------------------------------------------------------- replay
@pytest.mark.slow
def test_replay_of_game_of_24_saves_more_than_half_the_samples():
    s = be.load(str(DATA / "tot_game24.json"))
    r = replay(s.matrix("gpt-4 CoT"), s.matrix("gpt-4 IO"), trials=1, replays=40, seed=0, names=("CoT", "IO"))
    assert r.full_decision == "B better"  # IO 7.3% vs CoT 4.0% (Yao et al. 2023, Table 2)
    assert r.agree >= 0.95 and r.other == 0.0
    assert r.full_samples == 20000 and r.savings > 5
    # the fixed design: the paired test's size at 99.5% power from the draw's exact moments, computed here from the
    # per-question rates (one trial per draw: x ~ Bernoulli(rate of the drawn question), A and B independent)
    pa, pb = s.matrix("gpt-4 CoT").mean(axis=1), s.matrix("gpt-4 IO").mean(axis=1)
    delta = np.mean(pa - pb)
    var = np.mean(pa + pb - 2 * pa * pb) - delta**2
    m = math.ceil((stats.norm.ppf(0.975) + stats.norm.ppf(0.995)) ** 2 * var / delta**2)
    assert r.fixed_questions == m == 1701 and r.fixed_samples == 2 * m
    assert r.fixed_agree >= 0.98  # the t-test's power there, by subsampling (400 fresh replays)
    assert r.fixed_samples > 1.5 * r.mean_samples  # the power-matched fixed design needs more
    assert r.null_replays == 40 and r.null_decided <= 0.1  # A and B swapped at random per draw: the level holds
    text = r.summary()
    assert "sequential (1 trial(s) per draw)" in text and "null replays" in text and "type-I error" in text


def test_replay_says_why_no_fixed_design_is_sized():
    """No decision in the full data, a constant difference (no test needed), no null replays: a reason, no NaN."""
    r = replay(np.ones((50, 4)), np.zeros((50, 4)), replays=5, null_replays=0)
    assert r.full_decision == "A better" and r.fixed_samples is None and r.null_decided is None
    assert r.fixed_note == "every draw's difference is the same number: no test is needed"
    assert "NaN" not in r.to_json() and "null replays" not in r.summary()
    X = np.random.default_rng(0).integers(0, 2, (60, 4))
    r = replay(X, X[:, ::-1], replays=5, null_replays=5)
    assert r.full_decision is None and r.fixed_note.startswith("the full data decide nothing")
    assert r.null_decided == 0.0 and "decided a winner 0.0%" in r.summary()


def test_replay_skips_only_studies_that_cannot_decide(monkeypatch):
    """Replays whose capital against a difference of 0 never reaches log(1/alpha) are called undecided without
    running the grid; the result is identical to running every study (alpha = 0.3 so that some null replays
    decide, pass@2 from 3 trials of 5 and avg from one), and the shortcut does skip studies."""
    import importlib

    R = importlib.import_module("bayeseval.sequential.replay")  # the module (the package exports the function)
    rng = np.random.default_rng(3)
    p = rng.beta(0.6, 0.6, size=80)
    A = rng.binomial(1, np.clip(p + 0.04, 0, 1)[:, None], size=(80, 5)).astype(float)
    B = rng.binomial(1, p[:, None], size=(80, 5)).astype(float)
    skipped = []
    real = R._cannot_decide

    def spy(pairs, span, alpha):
        out = real(pairs, span, alpha)
        skipped.append(int(out.sum()))
        return out

    for kw in ({"metric": "pass@2", "trials": 3}, {"metric": "avg", "trials": 1}):
        monkeypatch.setattr(R, "_cannot_decide", spy)
        fast = replay(A, B, replays=12, null_replays=30, alpha=0.3, seed=1, fixed_replays=20, **kw)
        monkeypatch.setattr(R, "_cannot_decide", lambda pairs, span, alpha: np.zeros(len(pairs), dtype=bool))
        full = replay(A, B, replays=12, null_replays=30, alpha=0.3, seed=1, fixed_replays=20, **kw)
        assert fast.to_dict() == full.to_dict()
        assert 0.0 < full.null_decided < 1.0  # both kinds of null replay occur
    assert sum(skipped) > 0


def test_replay_fixed_design_moments_are_exact():
    """_draw_moments (hypergeometric over each question's recorded trials, or the without-replacement variance of a
    subset mean) against 400,000 simulated draws, for 0/1 with pass@2 of 3, graded and scores, with missing trials."""
    from bayeseval.sequential.replay import _draw_moments, _draws

    rng = np.random.default_rng(0)
    A, B = rng.integers(0, 2, (9, 7)).astype(float), rng.integers(0, 2, (9, 7)).astype(float)
    A[0, 3] = np.nan
    G, H = rng.integers(0, 3, (9, 7)).astype(float), rng.integers(0, 3, (9, 7)).astype(float)
    G[2, 1] = np.nan
    S, T = rng.random((9, 7)), rng.random((9, 7))
    cases = [(A, B, 3, ("binary", None, unbiased_table("pass@2", 3)[0])),
             (G, H, 2, ("graded", np.array([0.0, 0.5, 1.0]), None)), (S, T, 3, ("scores", (0.0, 1.0), None))]
    for X, Y, trials, how in cases:
        ox, oy = ~np.isnan(X), ~np.isnan(Y)
        delta, var = _draw_moments(X, Y, ox, oy, trials, how)
        xa, xb = _draws(rng, X, Y, ox, oy, trials, how, 400_000)
        d = xa - xb
        assert d.mean() == pytest.approx(delta, abs=4 * math.sqrt(var / d.size))
        assert d.var() == pytest.approx(var, rel=0.02)


def test_replay_draws_target_the_full_datas_value_and_never_run_out():
    """Each draw: a question uniformly with replacement, a fresh random k-subset of its recorded trials; the mean
    of the draws' scores is the full data's per-question unbiased estimate averaged (here pass@2 from 6 trials)."""
    from bayeseval.sequential.replay import _draws

    rng = np.random.default_rng(0)
    A = rng.integers(0, 2, size=(7, 6)).astype(float)
    obs = np.ones(A.shape, bool)
    table, _ = unbiased_table("pass@2", 2)
    xa, xb = _draws(rng, A, A, obs, obs, 2, ("binary", None, table), 200_000)
    assert xa.size == 200_000  # never runs out: the replay is stopped at the full data's sample count instead
    full, _ = question_values(A, "pass@2")
    assert xa.mean() == pytest.approx(full.mean(), abs=4 * xa.std() / math.sqrt(xa.size))
    assert not np.array_equal(xa, xb)  # the two models' subsets are drawn independently


# ----------------------------------------------------------------------------- allocation
def _posterior_var_numeric(g, a_s, b_s, w, s, n):
    """Var[g(p)] under sum_j w_j Beta(a_j, b_j) updated by s of n, by quadrature."""
    def dens(p):
        return sum(wj * stats.beta.pdf(p, aj, bj) for wj, aj, bj in zip(w, a_s, b_s)) * p**s * (1 - p) ** (n - s)

    z = integrate.quad(dens, 0, 1, limit=200)[0]
    m1 = integrate.quad(lambda p: g(p) * dens(p), 0, 1, limit=200)[0] / z
    m2 = integrate.quad(lambda p: g(p) ** 2 * dens(p), 0, 1, limit=200)[0] / z
    p1 = integrate.quad(lambda p: p * dens(p), 0, 1, limit=200)[0] / z
    return m2 - m1 * m1, p1


@pytest.mark.parametrize("metric,g", [("avg", lambda p: p), ("pass@3", lambda p: 1 - (1 - p) ** 3),
                                      ("pass^2", lambda p: p * p)])
def test_value_of_a_trial_equals_the_drop_of_posterior_variance_by_quadrature(metric, g, monkeypatch):
    import bayeseval.sequential.allocation as al

    a_s, b_s, w = np.array([0.5, 4.0]), np.array([2.0, 1.0]), np.array([0.3, 0.7])  # a two-component pool
    from bayeseval.priors import BetaMixture

    monkeypatch.setattr(al, "pool_of", lambda counts, prior="pool": BetaMixture(a_s, b_s, w[None, :], w))
    R = np.array([[1, 0, 0], [1, 1, 1], [0, 0, 0]])
    v = trial_values({"m": R}, metric).frame
    for i, row in enumerate(R):
        n, s = row.size, int(row.sum())
        before, p1 = _posterior_var_numeric(g, a_s, b_s, w, s, n)
        after = (p1 * _posterior_var_numeric(g, a_s, b_s, w, s + 1, n + 1)[0]
                 + (1 - p1) * _posterior_var_numeric(g, a_s, b_s, w, s, n + 1)[0])
        assert v.loc[i, "value"] * 3**2 == pytest.approx(before - after, rel=1e-6)


def test_design_within_variance_matches_simulation_and_cochrans_optimum():
    rng = np.random.default_rng(12)
    p = rng.beta(0.7, 0.9, size=3000)
    R = rng.binomial(1, p[:, None], size=(3000, 4))
    d = design(R, "avg", question_cost=20, prior="pool")
    row = d.table.set_index("trials")
    # avg: sigma_w^2(n) = E[p(1 - p)] / n under the fitted pool; compare with the pool's sample
    assert row.loc[1, "sigma_w2"] == pytest.approx(np.mean(p * (1 - p)), rel=0.05)
    assert row.loc[4, "sigma_w2"] == pytest.approx(row.loc[1, "sigma_w2"] / 4, rel=1e-9)
    assert d.sigma_b2 == pytest.approx(p.var(), rel=0.08)
    assert abs(d.n_best - math.sqrt(20 * row.loc[1, "sigma_w2"] / d.sigma_b2)) < 1  # Cochran's n*
    # pass@4's within variance, by simulating the unbiased estimate from 6 trials on the same pool
    d4 = design(R, "pass@4", max_trials=8)
    table, _ = unbiased_table("pass@4", 6)
    from bayeseval.counts import to_counts
    from bayeseval.sequential.allocation import pool_of

    mix = pool_of(to_counts(R))  # the fitted pool the design works with (4 trials cannot pin degree-12 moments)
    j = rng.choice(mix.point.size, p=mix.point / mix.point.sum(), size=400_000)
    sims = rng.beta(mix.a[j], mix.b[j])
    est = table[rng.binomial(6, sims)]
    truth = 1 - (1 - sims) ** 4
    assert d4.table.set_index("trials").loc[6, "sigma_w2"] == pytest.approx(np.mean((est - truth) ** 2), rel=0.05)
    spent = design(R, "avg", question_cost=0, budget=3000)
    assert spent.n_best == 1 and spent.var_new_questions < spent.var_more_trials
    assert "new questions" in spent.advice


# ----------------------------------------------------------------------------- command line
def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "bayeseval.cli", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.slow
def test_cli_monitor_replay_and_allocate():
    g24 = str(DATA / "tot_game24.json")
    out = run_cli("monitor", "--data", str(DATA / "tot_text.json"), "gpt-4 CoT", "gpt-4 IO", "--format", "json")
    assert out.returncode == 0, out.stderr
    import json

    st = json.loads(out.stdout)[0]
    assert st["decision"] == "A better" and st["stopped_at"] == 73 and st["what"] == "difference"
    out = run_cli("replay", "--data", g24, "gpt-4 CoT", "gpt-4 IO", "--replays", "20")
    assert out.returncode == 0, out.stderr
    assert "gpt-4 IO better (compare: P(A>B) = 0.018)" in out.stdout
    out = run_cli("allocate", str(DATA / "tau_bench_airline.json"), "--metric", "pass^2", "--question-cost", "5",
                  "--budget", "200")
    assert out.returncode == 0, out.stderr
    assert "Next trials for pass^2" in out.stdout and "3 trial(s) each" in out.stdout
    bad = run_cli("monitor", "--data", g24, "gpt-4 CoT", "gpt-4 IO", "--until", "when bored")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "cannot read 'when bored'" in bad.stderr


@pytest.mark.slow
def test_trials_chosen_from_earlier_questions_keep_the_level():
    """The number of trials of each question may depend on everything before it (here: more trials while the
    sequence is wide); scores stay unbiased given the past, so the sequence keeps its level."""
    rng = np.random.default_rng(21)
    R, T, misses = 300, 150, 0
    for _ in range(R):
        seq = SequentialCompare(grid=201)  # the null is evaluated exactly; a coarse grid only widens the ends
        for t in range(T):
            lo, hi = seq.status().lower, seq.status().upper
            n = 1 if hi - lo < 0.5 else 4  # adaptive, predictable: decided before this question is drawn
            p = rng.beta(0.5, 0.5)
            st = seq.update([rng.binomial(n, p) / n], [rng.binomial(n, p) / n], samples=n)
            if st.stop:
                misses += 1
                break
    assert misses / R <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / R)


@pytest.mark.slow
def test_rules_that_would_silently_mislead_are_refused_or_read_right():
    with pytest.raises(ValueError, match="use a decimal point"):
        parse_until("width 0,05")
    assert parse_until("2,000 questions").max_questions == 2000
    with pytest.raises(ValueError, match="not narrower than the whole range"):
        SequentialCompare(until="width 5")
    with pytest.raises(ValueError, match="covers the whole range"):
        SequentialCompare(until="equivalent within 2")
    with pytest.raises(ValueError, match="strictly inside the range"):
        Sequential(until="decided", null=0.0)
    with pytest.raises(ValueError, match="score range must be"):
        SequentialCompare(1, 0)
    with pytest.raises(ValueError, match="needs null"):
        Sequential(until="equivalent within 0.05")
    # one model: 'equivalent within r' is a region around null, and it stops there
    rng = np.random.default_rng(2)
    st = Sequential(until="equivalent within 0.05", null=0.7).update(rng.binomial(1, 0.7, size=20000))
    assert st.rule.rope == pytest.approx((0.65, 0.75)) and st.decision == "equivalent"
    with pytest.raises(ValueError, match=r"numbers in \[0, 1\]"):
        capital_at(np.full((1, 5), 3.0), 0.5)
    with pytest.raises(ValueError):
        capital_at(np.full((1, 5), 0.5), 1.5)


def test_design_spreads_a_small_budget_over_the_questions():
    rng = np.random.default_rng(5)
    R = rng.binomial(1, rng.beta(1, 1, 100)[:, None], size=(100, 4))
    one = design(R, "avg", question_cost=20, budget=1).var_more_trials  # a budget is at least one trial
    more50 = design(R, "avg", question_cost=20, budget=50).var_more_trials
    assert more50 < one  # 50 trials for 100 questions: half of them get a fifth trial, against one of them


# --------------------------------------------------------------------------- review: empty sequences and bad arguments
def test_an_empty_sequence_is_reported_empty_and_no_width_rule_holds_on_it():
    """A null stream (A, B ~ Bernoulli(0.5)) on which the sequence excluded 0 early and then rejected every value:
    it was reported as [0.130, 0.131] and a later width rule would stop on an empty set."""
    rng = np.random.default_rng(123)
    for _ in range(145):
        a, b = rng.binomial(1, 0.5, 200), rng.binomial(1, 0.5, 200)
    st = SequentialCompare(until="width 0.001").update(a, b)
    assert st.empty and st.to_dict()["empty"] is True and not st.stop
    assert "empty (every value rejected" in st.summary() and "happens with probability at most 0.05" in st.summary()
    cs = BettingCS(0.05, -1.0, 1.0, bets="agrapa")  # SequentialCompare's bets
    lo, hi, empty = cs.update_path(a.astype(float) - b)
    first = int(np.argmax(empty))
    assert cs.empty and 0 < first and empty[first:].all() and not empty[:first].any()  # once empty, always
    fine = SequentialCompare(until="width 0.5").update(rng.binomial(1, 0.5, 200), rng.binomial(1, 0.5, 200))
    assert not fine.empty and "empty" not in fine.summary()


@pytest.mark.parametrize("call, message", [
    (lambda: parse_until("width 0.1 or width 0.5"), "'width 0.5' repeats a condition already given"),
    (lambda: parse_until("100 questions or 10 questions"), "'10 questions' repeats a condition"),
    (lambda: parse_until("decided or decided"), "'decided' repeats a condition already given in 'decided or decided'"),
    (lambda: SequentialCompare(until="10 samples").update([1, 0, 1], [0, 0, 1], samples=np.inf),
     "samples must be finite whole numbers"),
    (lambda: SequentialCompare().update(np.ones((10, 4)), np.zeros((10, 4))),
     r"a must hold one score per question \(1-D\), got shape \(10, 4\)"),
    (lambda: Sequential().update(np.ones((10, 4))), "scores must hold one score per question"),
    (lambda: StopRule(decided=False, max_questions=0), "max_questions must be a whole number >= 1, got 0"),
    (lambda: StopRule(width=float("nan")), "width must be a finite number, got nan"),
    (lambda: StopRule(width="x"), "width must be a real number, got 'x'"),
    (lambda: StopRule(max_questions=1.5), "max_questions must be a whole number >= 1, got 1.5"),
    (lambda: SequentialCompare().update([1, 0, 1]), "b: give both models' scores"),
    (lambda: Sequential().update(["a"]), "scores must be numbers, one score per question"),
    (lambda: SequentialCompare(lo="x"), r"lo must be a real number, got 'x' \(str\)"),
    (lambda: Sequential(hi=None), "hi must be a real number"),
])
def test_sequential_arguments_that_were_misread_are_refused(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_a_column_of_scores_and_numpy_numbers_in_a_stop_rule_are_accepted():
    """One trial per question as a column (df[["score"]].values) is per-question scores; a StopRule takes numpy
    and integral float numbers (the new checks must not refuse them)."""
    x = np.array([1.0, 0.0, 1.0, 1.0])
    assert Sequential().update(x[:, None]).questions == 4
    st = SequentialCompare().update(x[:, None], x[::-1, None])
    assert st.questions == 4 and st.estimate == pytest.approx(0.0)
    rule = StopRule(width=np.float32(0.5), max_questions=1000.0)
    assert rule.width == pytest.approx(0.5) and rule.max_questions == 1000 and isinstance(rule.max_questions, int)
