"""Findings of a review of the comparison layer (compare, compare_all, allocation.design), each with the case that
showed it."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import bayeseval as be
from bayeseval.sequential.allocation import design


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _shifted(M, N, shift, seed):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, M)
    A = (rng.random((M, N)) < np.clip(p + shift, 0, 1)[:, None]).astype(int)
    B = (rng.random((M, N)) < p[:, None]).astype(int)
    return A, B


def test_a_rope_does_not_let_thin_data_name_a_winner():
    """With rope= the verdict came from the posterior masses alone: 3 won questions of 50 (sign-flip p = 0.25)
    gave 'A is better (outside the ROPE)'.  A ROPE only makes a win harder: the sign-flip test must agree."""
    A = np.r_[np.ones((3, 1)), np.zeros((47, 1))].astype(int)
    B = np.zeros((50, 1), int)
    plain, roped = be.compare(A, B), be.compare(A, B, rope=0.001)
    assert plain.verdict == roped.verdict == ("undecided: only 3 of 50 questions differ, too few to decide at 95% "
                                              "(at least 5 are needed)")
    assert roped.decision is None and roped.rope["above"] > 0.95  # the posterior alone would have decided
    A2, B2 = _shifted(2000, 8, 0.03, 0)  # a real difference still decides, outside the ROPE
    c = be.compare(A2, B2, rope=0.01)
    assert c.decision == "A" and c.verdict == "A is better (outside the ROPE)"
    close = be.compare(B2, B2[np.random.default_rng(1).permutation(2000)] * 0 + B2, rope=0.01)  # identical models
    assert close.decision == "equivalent"


@pytest.mark.slow
def test_a_rope_keeps_the_verdicts_type_one_error():
    """Null two-cluster pool (40% of questions at p = 0.05, 60% at 0.9), M = 30, N = 1: with rope=0.01 a winner
    was named in 9.3% of 1,000 replicates; the sign-flip gate keeps it under 5% (2.4% on 1,000 replicates)."""
    rng = np.random.default_rng(11)
    named, reps = 0, 300
    for r in range(reps):
        p = rng.choice([0.05, 0.9], size=30, p=[0.4, 0.6])
        A = (rng.random((30, 1)) < p[:, None]).astype(int)
        B = (rng.random((30, 1)) < p[:, None]).astype(int)
        named += be.compare(A, B, rope=0.01, resamples=1000, draws=1000, seed=r).decision in ("A", "B")
    assert named / reps <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / reps)


@pytest.mark.parametrize("rope", [(0.05, 0.10), (2, 3), (-0.3, -0.1)])
def test_a_rope_must_hold_no_difference(rope):
    """A region that excludes 0 read any mass below it as 'B is better' although A was better (P(A > B) = 1)."""
    A, B = _shifted(300, 4, 0.03, 0)
    with pytest.raises(ValueError, match=r"rope: a region of practical equivalence holds no difference \(0\)"):
        be.compare(A, B, rope=rope)


def test_beyond_the_trials_a_handful_of_differing_questions_decides_nothing():
    """k > n on one question leaves no per-question score and no sign-flip test; the posterior alone named a winner
    on 3 differing questions of 50 (P = 0.98).  compare and compare_all now say undecided."""
    A, B = np.zeros((50, 2)), np.zeros((50, 2))
    A[:30] = 1
    B[3:30] = 1
    A[-1, 1] = B[-1, 1] = np.nan
    c = be.compare(A, B, metric="pass@2", missing=np.nan)
    assert c.permutation is None and c.p_a_better > 0.975
    assert c.decision is None and c.verdict.startswith("undecided: only 3 of 50 questions differ")
    rk = be.compare_all({"a": A, "b": B}, metric="pass@2", missing=np.nan)
    assert rk.pairs[0]["decision"] is None
    B[3:10] = 0  # 10 differing questions: the posterior decides as before
    assert be.compare(A, B, metric="pass@2", missing=np.nan).decision == "A"


def test_ranking_with_one_trial_uses_the_paired_posterior_of_its_pairs():
    """Benchmark scope, one trial per question: P(a is best) of two models is P(a > b); the ranking drew the models
    independently (0.971) while the pair and compare used the paired posterior (0.990)."""
    rng = np.random.default_rng(3)
    M = 200
    p = rng.beta(1, 1, M)
    A = (rng.random((M, 1)) < np.clip(p + 0.05, 0, 1)[:, None]).astype(int)
    B = (rng.random((M, 1)) < p[:, None]).astype(int)
    rk = be.compare_all({"a": A, "b": B}, scope="benchmark", draws=20000)
    c = be.compare(A, B, scope="benchmark", draws=20000)
    se = math.sqrt(0.01 * 0.99 / 20000)
    assert abs(rk.p_best["a"] - rk.pairs[0]["p_a_better"]) < 5 * se
    assert abs(rk.p_best["a"] - c.p_a_better) < 5 * se


def test_pairs_are_named_once():
    """A pair listed twice (or both ways) doubled its Holm p-value (0.1179 -> 0.2358); a string 'ab' was read as
    the pair ('a', 'b')."""
    rng = np.random.default_rng(0)
    models = {k: (rng.random((30, 2)) < 0.5).astype(int) for k in "abc"}
    for pairs in ([("a", "b"), ("a", "b")], [("a", "b"), ("b", "a")]):
        with pytest.raises(ValueError, match=r"pairs: \('\w', '\w'\) repeats \('a', 'b'\); name each pair once"):
            be.compare_all(models, pairs=pairs)
    with pytest.raises(ValueError, match="pairs: each pair must name two different models .* got 'ab'"):
        be.compare_all(models, pairs=["ab"])
    assert len(be.compare_all(models, pairs=[("a", "b"), ("b", "c")]).pairs) == 2
    assert len(be.compare_all(models, pairs=(p for p in [("a", "b"), ("b", "c")])).pairs) == 2  # a generator


def test_graded_outcomes_in_a_ranking_name_the_model_and_the_way():
    """compare_all on graded outcomes said 'R must be binary ... pass w', and with w= 'a has avg with categorical
    outcomes'; compare's advice (score_range) is given, naming the model."""
    rng = np.random.default_rng(0)
    graded = {"a": rng.integers(0, 3, (30, 2)), "b": rng.integers(0, 3, (30, 2))}
    with pytest.raises(ValueError, match=r"compare_all needs 0/1 outcomes or scores for every model; 'a' has graded "
                                         r"\(categorical\) outcomes.*score_range=\(lo, hi\)"):
        be.compare_all(graded)
    ranked = be.compare_all(graded, score_range=(0, 2))
    assert ranked.scores["a"].value == pytest.approx(graded["a"].mean())


def test_first_trial_mcnemar_skips_a_missing_first_entry():
    """collapse='first' with lists of rows whose first entry is NaN said it needed the trial order; it takes each
    row's first observed trial, as for matrices."""
    A = [[np.nan, 1, 1], [0, 0], [1], [1, 0], [0, 1, 1]]
    B = [[1, 0], [np.nan, 0, 1], [0], [0, 0], [1]]
    via_lists = be.compare(A, B, collapse="first", ragged=True, missing=np.nan)
    matrix = lambda rows: np.array([r + [np.nan] * (3 - len(r)) for r in rows], dtype=float)  # noqa: E731
    via_matrix = be.compare(matrix(A), matrix(B), collapse="first", missing=np.nan)
    first = via_lists.mcnemar["variants"]["first"]
    assert first["table"] == via_matrix.mcnemar["variants"]["first"]["table"]
    assert (first["a_only"], first["b_only"]) == (2, 1)  # first observed: A 1,0,1,1,0; B 1,0,0,0,1
    assert via_lists.mcnemar["method"] == "exact binomial McNemar on the first trial"


def test_few_questions_flag_the_clustered_mcnemar():
    """Four questions all won: the clustered McNemar's chi-square gives p = 0.0455, below anything an exact test
    on four questions can give; the notes say so."""
    c = be.compare(np.ones((4, 4), int), np.zeros((4, 4), int))
    assert c.mcnemar.p_value == pytest.approx(0.0455, abs=1e-4) and c.permutation.p_value == 0.125
    assert any("large-sample (chi-square) approximation" in n for n in c.notes)
    many = be.compare(*_shifted(60, 4, 0.1, 2))
    assert not any("large-sample (chi-square) approximation" in n for n in many.notes)


def test_a_design_below_k_trials_reports_no_infinite_variance():
    """design(X of 2 trials, 'pass@8', budget=50): var_more_trials was inf (to_dict not JSON) and the advice said
    'vs inf with more trials'."""
    rng = np.random.default_rng(0)
    X = (rng.random((40, 2)) < 0.5).astype(int)
    d = design(X, "pass@8", budget=50)
    assert d.var_more_trials is None and d.var_new_questions > 0
    json.dumps(d.to_dict(), allow_nan=False)
    assert d.advice.startswith("spend the budget on new questions") and "inf" not in d.advice
    small = design(X, "pass@8", budget=5)
    assert "buys no new question" in small.advice and "changes no estimate of pass@8" in small.advice


def test_the_bootstrap_does_not_depend_on_the_order_of_the_questions():
    """The index-resampling path drew from d in the order given: permuting the questions moved the bootstrap
    p-value (0.2888 vs 0.2940 at M = 80); it resamples the values in sorted order now."""
    A, B = _shifted(80, 4, 0.03, 5)
    perm = np.random.default_rng(9).permutation(80)
    one, other = be.compare(A, B), be.compare(A[perm], B[perm])
    assert one.bootstrap.p_value == other.bootstrap.p_value
    assert (one.bootstrap["lo"], one.bootstrap["hi"]) == (other.bootstrap["lo"], other.bootstrap["hi"])


def test_swapping_the_models_mirrors_the_bootstrap():
    """The multinomial path draws over the sorted distinct differences, so compare(B, A) drew other resamples than
    compare(A, B) (p 0.0143 vs 0.0126 at M = 400); a negative mean difference is bootstrapped mirrored now."""
    A, B = _shifted(400, 4, 0.03, 4)
    ab, ba = be.compare(A, B).bootstrap, be.compare(B, A).bootstrap
    assert ab.p_value == ba.p_value and ab.statistic == -ba.statistic
    assert (ab.lo, ab.hi) == (-ba.hi, -ba.lo)
    assert (ab["percentile"]["lo"], ab["percentile"]["hi"]) == (-ba["percentile"]["hi"], -ba["percentile"]["lo"])
    assert ab["bias_correction"] == -ba["bias_correction"] and ab["se"] == ba["se"]


def test_compare_all_bootstrap_names_no_winner_on_too_few_differing_questions():
    """From a docs review: compare_all(test="bootstrap") decided on the bootstrap p alone, naming a winner on 3
    differing questions of 6 (p = 0.03) where compare says 'undecided: only 3 of 6 questions differ'."""
    A, B = np.array([[1]] * 3 + [[0]] * 3), np.array([[0]] * 6)
    rk = be.compare_all({"a": A, "b": B}, test="bootstrap", resamples=2000)
    assert rk.pairs[0]["p_value"] < 0.05 and rk.pairs[0]["decision"] is None
    assert be.compare(A, B).decision is None
    A, B = np.array([[1]] * 12 + [[0]] * 3), np.array([[0]] * 15)  # 12 differing, all one way: decided
    assert be.compare_all({"a": A, "b": B}, test="bootstrap", resamples=2000).pairs[0]["decision"] == "A"


def test_plan_refuses_an_alpha_too_small_to_compute_with():
    """plan(alpha=1e-20) ended in OverflowError (cannot convert float infinity to integer) from its summary."""
    A = np.random.default_rng(0).integers(0, 2, (50, 4))
    with pytest.raises(ValueError, match=r"alpha = 1e-20 is too small to compute with"):
        be.plan(A, delta=0.02, alpha=1e-20)
    assert be.plan(A, delta=0.02, alpha=1.2e-16).questions_needed(0.02, 4) > 0


def test_a_one_model_plan_says_what_its_numbers_are_for():
    """A one-model plan is a one-sample calculation: its summary says so; a pilot of two models plans the comparison
    with the variance of their difference, larger than one model's for unrelated models and smaller for models that
    find the same questions hard."""
    rng = np.random.default_rng(1)
    p = rng.beta(0.5, 0.5, 50)
    A, B = rng.integers(0, 2, (50, 4)), rng.integers(0, 2, (50, 4))
    C, D = ((rng.random((50, 4)) < p[:, None]).astype(int) for _ in range(2))  # the same hard questions
    one = be.plan(A, delta=0.05)
    assert "One model: these are for a change of its mean score" in one.summary()
    assert "One model" not in be.plan(A, B, delta=0.05).summary()
    assert be.plan(A, B, delta=0.05).questions_needed(0.05, 4) > one.questions_needed(0.05, 4)
    assert be.plan(C, D, delta=0.05).questions_needed(0.05, 4) < be.plan(C, delta=0.05).questions_needed(0.05, 4)
