"""bayeseval.aisbench: AISBench's pass@k, cons@k, avg@n and accuracy (n runs average).

Definitions (AISBench metric notes, /work/shared/seeds/000_87987e1f9e7e13f3.txt):
pass@k = mean_i 1 - C(n - c_i, k) / C(n, k); cons@k = mean_i I(c_i > k/2)
(n = k); avg@n = mean_i c_i / n with H_ij = I(score_ij > 0.5); accuracy
(n runs average) = mean of the soft scores.
"""

from __future__ import annotations

import inspect
import itertools
import math
import re
from fractions import Fraction

import numpy as np
import pytest

import bayeseval as be
from bayeseval import aisbench as ais


def brute_cons(rows, k):
    """Exact probability that a random k-subset of the row has strictly more than k/2 correct."""
    out = []
    for r in rows:
        subsets = list(itertools.combinations(r, k))
        out.append(Fraction(sum(1 for s in subsets if 2 * sum(s) > k), len(subsets)))
    return float(sum(out) / len(out))


def chen_pass(rows, k):
    """The notes' product form 1 - prod_{j=n-c+1}^{n} (1 - k/j), in exact arithmetic."""
    vals = []
    for r in rows:
        n, c = len(r), sum(r)
        if n - c < k:
            vals.append(Fraction(1))
            continue
        prod = Fraction(1)
        for j in range(n - c + 1, n + 1):
            prod *= 1 - Fraction(k, j)
        vals.append(1 - prod)
    return float(sum(vals) / len(vals))


# ----------------------------------------------------------------------------- worked examples
def test_worked_example_n3():
    R = np.array([[1, 1, 0], [1, 0, 1], [0, 0, 1], [0, 0, 0]])
    assert ais.pass_at_k(R, 3) == pytest.approx(0.75, abs=1e-15)
    assert ais.avg_at_n(R) == pytest.approx(5 / 12, abs=1e-15)
    assert ais.cons_at_k(R, 3) == pytest.approx(0.5, abs=1e-15)


def test_worked_example_n5_c3_k2():
    assert ais.pass_at_k([[1, 1, 1, 0, 0]], 2) == pytest.approx(0.9, abs=1e-15)
    assert ais.pass_at_k([[0, 1, 0, 1, 1]], 2) == pytest.approx(0.9, abs=1e-15)


def test_worked_example_soft_scores():
    S = [[0.6, 0.4, 0.6]]
    assert ais.accuracy_n_runs_average(S) == pytest.approx(1.6 / 3, abs=1e-15)
    assert ais.avg_at_n(S) == pytest.approx(2 / 3, abs=1e-15)
    assert ais.hard_outcomes(S).tolist() == [[1, 0, 1]]


@pytest.mark.parametrize("R, avg, cons", [
    ([[1, 1, 0], [1, 1, 0]], 2 / 3, 1.0),
    ([[1, 0, 0], [0, 1, 0]], 1 / 3, 0.0),
    ([[1, 1, 1], [0, 0, 0]], 0.5, 0.5),
])
def test_scenarios(R, avg, cons):
    assert ais.avg_at_n(R) == pytest.approx(avg, abs=1e-15)
    assert ais.cons_at_k(R, 3) == pytest.approx(cons, abs=1e-15)


# ----------------------------------------------------------------------------- pass@k
@pytest.mark.parametrize("seed", range(6))
def test_pass_at_k_against_product_formula(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    R = (rng.random((6, n)) < rng.random((6, 1))).astype(int)
    R[0] = 0
    R[1] = 1
    rows = R.tolist()
    for k in range(1, n + 1):
        expected = chen_pass(rows, k)
        assert ais.pass_at_k(R, k) == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert ais.pass_at_k(R, k) == pytest.approx(be.pass_at_k(R, k), rel=1e-13, abs=1e-14)


# ----------------------------------------------------------------------------- cons@k
@pytest.mark.parametrize("n", range(1, 10))
def test_cons_at_k_with_n_equal_k_is_majority_indicator(n):
    """n = k: cons@k = mean_i I(c_i > k/2); equal to maj@k."""
    rows = [[1] * c + [0] * (n - c) for c in range(n + 1)]
    R = np.array(rows)
    expected = np.mean([1.0 if c > n / 2 else 0.0 for c in range(n + 1)])
    assert ais.cons_at_k(R, n) == pytest.approx(expected, abs=1e-14)
    assert be.maj_at_k(R, n) == pytest.approx(expected, abs=1e-14)
    # per question
    for c in range(n + 1):
        assert ais.cons_at_k(R[c:c + 1], n) == (1.0 if 2 * c > n else 0.0)


@pytest.mark.parametrize("seed", range(6))
def test_cons_at_k_unbiased_generalisation_n_greater_than_k(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 9))
    R = (rng.random((5, n)) < rng.random((5, 1))).astype(int)
    rows = R.tolist()
    for k in range(1, n + 1):
        expected = brute_cons(rows, k)
        assert ais.cons_at_k(R, k) == pytest.approx(expected, rel=1e-12, abs=1e-12), k
        assert ais.cons_at_k(R, k) == pytest.approx(be.maj_at_k(R, k), rel=1e-13, abs=1e-14)


def test_cons_at_k_even_k_tie_is_not_a_majority():
    # 2 of 4 correct is not strictly more than half
    assert ais.cons_at_k([[1, 1, 0, 0]], 4) == 0.0
    assert ais.cons_at_k([[1, 1, 1, 0]], 4) == 1.0
    # n = 4, k = 2: need both sampled correct -> C(2,2)/C(4,2) = 1/6
    assert ais.cons_at_k([[1, 1, 0, 0]], 2) == pytest.approx(1 / 6, abs=1e-15)


# ----------------------------------------------------------------------------- avg@n
def test_avg_at_n_threshold_is_strict():
    S = [[0.5, 0.5000001, 0.4999999, 1.0, 0.0]]
    assert ais.avg_at_n(S) == pytest.approx(2 / 5, abs=1e-15)              # default 0.5, strict >
    assert ais.avg_at_n(S, 0.5) == pytest.approx(2 / 5, abs=1e-15)
    assert ais.hard_outcomes(S).tolist() == [[0, 1, 0, 1, 0]]
    assert ais.avg_at_n(S, threshold=0.4999999) == pytest.approx(3 / 5, abs=1e-15)
    assert ais.avg_at_n(S, threshold=0.0) == pytest.approx(4 / 5, abs=1e-15)   # 0.0 is not > 0
    assert ais.avg_at_n(S, threshold=1.0) == 0.0                              # nothing exceeds 1
    assert ais.avg_at_n([[0.3, 0.3, 0.7]], threshold=0.3) == pytest.approx(1 / 3, abs=1e-15)


def test_avg_at_n_default_threshold_is_half():
    assert inspect.signature(ais.avg_at_n).parameters["threshold"].default == 0.5
    assert inspect.signature(ais.hard_outcomes).parameters["threshold"].default == 0.5
    S = np.array([[0.51, 0.49], [0.5, 0.9]])
    assert ais.avg_at_n(S) == pytest.approx((0.5 + 0.5) / 2, abs=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_avg_at_n_binary_unchanged(seed):
    rng = np.random.default_rng(200 + seed)
    R = (rng.random((7, 6)) < 0.4).astype(int)
    expected = float(np.mean([np.mean(r) for r in R]))
    assert ais.avg_at_n(R) == pytest.approx(expected, abs=1e-15)
    assert ais.avg_at_n(R.astype(bool)) == pytest.approx(expected, abs=1e-15)
    assert ais.avg_at_n(R.astype(float)) == pytest.approx(expected, abs=1e-15)
    for t in (0.0, 0.2, 0.9):
        assert ais.avg_at_n(R, threshold=t) == pytest.approx(expected, abs=1e-15)
    assert ais.hard_outcomes(R).tolist() == R.tolist()


@pytest.mark.parametrize("seed", range(5))
def test_soft_scores_mean_of_means(seed):
    rng = np.random.default_rng(300 + seed)
    S = rng.random((5, 4))
    # avg@n: per-question fraction over the threshold, then mean over questions
    expected_avg = sum(sum(1 for x in row if x > 0.5) / 4 for row in S.tolist()) / 5
    assert ais.avg_at_n(S) == pytest.approx(expected_avg, abs=1e-15)
    # accuracy: per-replica mean over questions, then mean over replicas
    expected_acc = sum(sum(S[i][j] for i in range(5)) / 5 for j in range(4)) / 4
    assert ais.accuracy_n_runs_average(S) == pytest.approx(expected_acc, abs=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_accuracy_equals_avg_at_n_for_binary_scores(seed):
    rng = np.random.default_rng(400 + seed)
    S = (rng.random((6, 5)) < 0.55).astype(float)
    assert ais.accuracy_n_runs_average(S) == pytest.approx(ais.avg_at_n(S), abs=1e-15)
    assert ais.accuracy_n_runs_average(S) == pytest.approx(S.sum() / S.size, abs=1e-15)


def test_accuracy_differs_from_avg_at_n_for_soft_scores():
    S = [[0.6, 0.4, 0.6], [0.2, 0.9, 0.51]]
    assert ais.accuracy_n_runs_average(S) == pytest.approx((1.6 + 1.61) / 6, abs=1e-15)
    assert ais.avg_at_n(S) == pytest.approx((2 / 3 + 2 / 3) / 2, abs=1e-15)


def test_one_dimensional_input_is_one_question():
    assert ais.avg_at_n([0.6, 0.4, 0.6]) == pytest.approx(2 / 3, abs=1e-15)
    assert ais.accuracy_n_runs_average([0.6, 0.4, 0.6]) == pytest.approx(1.6 / 3, abs=1e-15)


# ----------------------------------------------------------------------------- bad inputs
def first_param(fn):
    return next(iter(inspect.signature(fn).parameters))


SOFT_FUNCS = [ais.avg_at_n, ais.accuracy_n_runs_average, ais.hard_outcomes]


def _names(msg, name):
    return re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", msg) is not None


@pytest.mark.parametrize("fn", SOFT_FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("bad, exc", [
    ([[0.2, 1.5]], ValueError),
    ([[-0.1, 0.5]], ValueError),
    ([[0.2, np.nan]], ValueError),
    ([[0.2, np.inf]], ValueError),
    ([["a", "b"]], (TypeError, ValueError)),
    ("0.5", (TypeError, ValueError)),
    ([[0.1, 0.2], [0.3]], ValueError),
    ([[None, 0.5]], (TypeError, ValueError)),
    ([], ValueError),
], ids=["above1", "negative", "nan", "inf", "strings", "string", "ragged", "none", "empty"])
def test_bad_scores_raise_naming_the_argument(fn, bad, exc):
    with pytest.raises(exc) as info:
        fn(bad)
    assert _names(str(info.value), first_param(fn)), (first_param(fn), str(info.value))


@pytest.mark.parametrize("fn", [ais.avg_at_n, ais.hard_outcomes], ids=lambda f: f.__name__)
@pytest.mark.parametrize("t, exc", [(-0.1, ValueError), (1.5, ValueError), (float("nan"), ValueError),
                                    ("0.5", TypeError), (None, TypeError)])
def test_bad_threshold_raises_naming_threshold(fn, t, exc):
    with pytest.raises(exc) as info:
        fn([[0.2, 0.7]], threshold=t)
    assert _names(str(info.value), "threshold"), str(info.value)


@pytest.mark.parametrize("fn", [ais.pass_at_k, ais.cons_at_k], ids=lambda f: f.__name__)
def test_pass_cons_bad_inputs(fn):
    R = [[1, 0, 1]]
    for k, exc in [(0, ValueError), (4, ValueError), (1.5, TypeError), ("2", TypeError), (True, TypeError)]:
        with pytest.raises(exc) as info:
            fn(R, k)
        assert _names(str(info.value), "k"), str(info.value)
    with pytest.raises(ValueError):
        fn([[1, 2, 0]], 2)          # not binary
    with pytest.raises(ValueError):
        fn([[0.4, 0.6, 1.0]], 1)    # soft scores are not outcomes
    with pytest.raises((TypeError, ValueError)):
        fn("101", 1)


def test_inputs_not_modified():
    S = np.array([[0.6, 0.4, 0.6]])
    before = S.copy()
    ais.avg_at_n(S)
    ais.accuracy_n_runs_average(S)
    H = ais.hard_outcomes(S)
    H[0, 0] = 7
    assert np.array_equal(S, before)
