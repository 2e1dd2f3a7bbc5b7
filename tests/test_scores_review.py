"""Scores, rubric and sequential monitoring: what an adversarial review found (session of 2026-11-27), each case as
it was reproduced, with the right value computed independently."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayeseval as be
from bayeseval.rubric import compare_rubric, krippendorff_alpha, rubric
from bayeseval.sequential import BettingCS, StopRule, replay
from bayeseval.sequential.scoring import question_values


# ----------------------------------------------------------------------------- benchmark sd of scores: the t's sd
def _three_varying():
    F = np.full((30, 3), 0.5)
    F[0], F[1], F[2] = [0.1, 0.9, 0.5], [0.2, 0.3, 0.25], [0.45, 0.55, 0.5]
    return F


def test_benchmark_sd_of_scores_is_the_t_posteriors_sd():
    F = _three_varying()
    V = F[:3].var(axis=1, ddof=1) / 3
    df = V.sum() ** 2 / np.sum(V**2 / 2)  # Welch-Satterthwaite: 2.126
    scale = math.sqrt(V.sum()) / 30
    e = be.estimate(F, scope="benchmark")
    assert df == pytest.approx(2.126, abs=1e-3)
    assert e.sd == pytest.approx(stats.t(df, scale=scale).std(), rel=1e-12)  # 0.0321, was the scale 0.0078
    assert e.sd == pytest.approx(0.0321, abs=5e-5)
    n = be.estimate(F, scope="benchmark", interval="normal")
    assert (n.lo, n.hi) == pytest.approx((e.value - 1.959964 * e.sd, e.value + 1.959964 * e.sd), abs=1e-6)
    c = be.compare(F, np.full((30, 3), 0.5) + np.r_[[[0.01, -0.01, 0.0]], np.zeros((29, 3))], scope="benchmark")
    assert c.delta.sd > 0.03


# ----------------------------------------------------------------------------- question_values
def test_question_values_binarise_with_threshold_as_estimate_does():
    G = np.array([[0.2, 0.7, 0.9], [0.4, 0.6, 0.1], [0.8, 0.3, 0.55]])
    x, rng_ = question_values(G, "avg@n", threshold=0.5)
    assert x.tolist() == pytest.approx([2 / 3, 1 / 3, 2 / 3]) and rng_ == (0.0, 1.0)
    assert x.mean() == pytest.approx(be.estimate(G, "avg@n", threshold=0.5).value, rel=1e-12)
    y, _ = question_values(G, "pass@2", threshold=0.5)  # 2 of 3, 1 of 3, 2 of 3 above 0.5: 1 - C(1,2)/C(3,2) ...
    assert y.tolist() == pytest.approx([1.0, 2 / 3, 1.0])


def test_question_values_refuse_a_flat_sequence():
    with pytest.raises(ValueError, match=r"one-dimensional \(3 values\).*reshape\(-1, 1\)"):
        question_values([0.9, 0.1, 0.8])


# ----------------------------------------------------------------------------- replay
def _pair(M=200, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, M)
    A = (rng.random((M, 8)) < np.clip(p[:, None] + 0.05, 0, 1)).astype(int)
    B = (rng.random((M, 8)) < p[:, None]).astype(int)
    ids = [f"q{i}" for i in range(M)]
    return pd.DataFrame(A, index=ids), pd.DataFrame(B, index=ids), rng


def test_replay_pairs_dataframes_by_question_id():
    dA, dB, rng = _pair()
    one = replay(dA, dB, replays=20, seed=0, null_replays=0)
    shuffled = replay(dA, dB.iloc[rng.permutation(len(dB))], replays=20, seed=0, null_replays=0)
    assert shuffled.mean_samples == one.mean_samples and shuffled.fixed_samples == one.fixed_samples
    with pytest.raises(ValueError, match="indexes \\(question ids\\) differ"):
        replay(dA, dB.rename(index={"q0": "other"}), replays=5)


def test_replay_graded_outcomes_with_weights():
    rng = np.random.default_rng(1)
    G, H = rng.integers(0, 3, (40, 4)), rng.integers(0, 3, (40, 4))
    r = replay(G, H, w=[0, 0.5, 1], replays=10, null_replays=0)
    full = be.compare(np.array([0, 0.5, 1])[G], np.array([0, 0.5, 1])[H], score_range=(0, 1), level=0.95)
    assert r.metric == "avg" and r.full_decision == {"A": "A better", "B": "B better"}.get(full.decision)


# ----------------------------------------------------------------------------- rubric
def _ratings(**cols):
    base = {"item": [1, 1, 2, 2, 3, 3], "system": ["s"] * 6, "judge": ["j1", "j2"] * 3}
    return pd.DataFrame({**base, **cols})


def test_rubric_refuses_a_rating_column_with_a_text_cell():
    t = _ratings(fluency=[5, 4, 4, "four", 2, 3], coherence=[1, 2, 3, 4, 5, 5])
    with pytest.raises(ValueError, match=r"column 'fluency' holds ratings and text \(row 3: 'four'\)"):
        rubric(t)
    notes = _ratings(fluency=[5, 4, 4, 3, 2, 3], notes=["ok", "fine", "5", "bad", "x", "y"])
    assert rubric(notes, scale=(1, 5)).dimensions == ["fluency"]  # a text column with one number: not a rating


def test_rubric_refuses_a_dimension_named_twice():
    with pytest.raises(ValueError, match=r"dimensions names 'f' twice"):
        rubric(_ratings(f=[5, 4, 4, 3, 2, 3]), dimensions=["f", "f"])


def test_compare_rubric_takes_system_ids_as_the_table_holds_them():
    u = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3] * 2, "system": [1] * 6 + [2] * 6, "judge": ["j1", "j2"] * 6,
                      "f": [5, 4, 4, 3, 2, 3, 4, 4, 3, 3, 2, 2]})
    r = compare_rubric(u, 1, 2, scale=(1, 5)).to_dict()
    # per item: means 4.5, 3.5, 2.5 against 4, 3, 2: a difference of 0.5 on each; the exact sign-flip p of three
    # equal positive differences is 2 / 2^3
    assert r["models"] == ["1", "2"] and r["dimensions"][0]["delta"] == pytest.approx(0.5, abs=1e-12)
    assert r["dimensions"][0]["p_value"] == pytest.approx(0.25, abs=1e-12)


def test_krippendorff_interval_holds_alpha():
    nan = np.nan
    k = krippendorff_alpha([[4, nan], [4, 2], [2, 1], [2, 1]], measurement="interval")
    assert k.lo <= k.alpha <= k.hi
    rng = np.random.default_rng(2)
    for _ in range(60):
        R = rng.integers(1, 4, (5, 2)).astype(float)
        R[rng.random(R.shape) < 0.15] = nan
        try:
            k = krippendorff_alpha(R, measurement="interval", resamples=200)
        except ValueError:
            continue
        assert np.isfinite([k.alpha, k.lo, k.hi]).all() and k.lo <= k.alpha <= k.hi
    with pytest.raises(ValueError, match="at least 2 distinct values among their ratings"):
        krippendorff_alpha([[2, 2], [2, 2], [1, nan], [3, nan]])  # the pairable units agree on one value: 0 / 0


# ----------------------------------------------------------------------------- sequential bad input
@pytest.mark.parametrize("make, match", [
    (lambda: StopRule(rope=("a", "b")), r"rope's lo must be a real number"),
    (lambda: StopRule(rope=(1, 2, 3)), r"rope must be a pair \(lo, hi\)"),
    (lambda: BettingCS(lo="a"), r"lo must be a real number"),
    (lambda: BettingCS(extra=["a"]), r"extra must be candidate means"),
    (lambda: BettingCS().log_e(float("nan")), r"m must be a finite number"),
])
def test_sequential_bad_input_names_the_argument(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


# ----------------------------------------------------------------------------- Scores and plan
@pytest.mark.parametrize("args, match", [
    (([2, 2], [1.0, np.nan], [0, 0], 0, 1), "finite"),
    (([2, 2], [1.0, 1.0], [0, 0], 1, 0), "lo < hi"),
    (([2, 2], [1.0, 1.0], [-1, 0], 0, 1), "sq must be sums of squared deviations"),
    (([2, 2], [5.0, 1.0], [0, 0], 0, 1), "outside the range"),
    (([2.7, 2], [1.0, 1.0], [0, 0], 0, 1), "whole numbers"),
])
def test_scores_constructor_validates(args, match):
    with pytest.raises(ValueError, match=match):
        be.Scores(*args)


def test_scores_constructor_leaves_the_callers_arrays_writable():
    n = np.array([2, 2])
    be.Scores(n, [1.0, 1.0], [0.0, 0.0], 0, 1)
    assert n.flags.writeable


def test_plan_summary_without_between_question_variance_says_so():
    F = np.tile([0.2, 0.8], (20, 2))  # every question alike: no between-question variance
    p = be.plan(F, score_range=(0, 1))
    assert p.trials_enough() is None
    assert "N = None" not in p.summary() and "keep paying off" in p.summary()
