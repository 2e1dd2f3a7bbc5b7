"""Point estimates against brute-force enumeration of k-subsets.

For every question the finite-sample metric is, by definition, the average
over all ``C(n, k)`` subsets of its ``n`` observed trials of the payoff of that
subset.  Here that average is computed literally with
``itertools.combinations`` in exact rational arithmetic
(``fractions.Fraction``), with no binomial / hypergeometric formula, and
compared with the library.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import bayeseval as be
from bayeseval import aisbench as ais

TOL = dict(rel=1e-12, abs=1e-12)
SEEDS = [0, 1, 2, 3, 7, 11]


# ----------------------------------------------------------------------------- data
def binary_rows(seed: int, ragged: bool):
    """Random binary rows (N <= 8) including all-0 and all-1 rows; ragged rows of length >= 3."""
    rng = np.random.default_rng(seed)
    M = int(rng.integers(3, 7))
    N = int(rng.integers(3, 9))
    rows = []
    for i in range(M):
        n = int(rng.integers(3, N + 1)) if ragged else N
        p = rng.random()
        row = (rng.random(n) < p).astype(int).tolist()
        rows.append(row)
    rows[0] = [0] * len(rows[0])
    rows[-1] = [1] * len(rows[-1])
    if ragged:
        # make sure the rows really are ragged
        rows[1] = rows[1][:3]
        rows[2] = (rows[2] + [1, 0, 1, 1, 0, 1, 0, 1])[:8]
    return rows


def as_input(rows, ragged: bool):
    if ragged:
        counts = be.to_counts(rows, ragged=True)
        assert counts.ragged
        return counts
    return np.array(rows)


CASES = [(seed, ragged) for seed in SEEDS for ragged in (False, True)]
CASE_IDS = [f"seed{s}-{'ragged' if r else 'rect'}" for s, r in CASES]


# ----------------------------------------------------------------------------- brute force
def subset_mean(row, k, payoff):
    """Exact mean of payoff(number correct in subset) over all k-subsets of the row."""
    total = Fraction(0)
    count = 0
    for subset in itertools.combinations(range(len(row)), k):
        total += Fraction(payoff(sum(row[i] for i in subset)))
        count += 1
    return total / count


def dataset_mean(rows, k, payoff):
    return float(sum(subset_mean(r, k, payoff) for r in rows) / len(rows))


def ceil_tau_k(tau, k):
    """ceil(tau * k) in exact decimal arithmetic: tau = 0.3, k = 10 means exactly 3."""
    return math.ceil(Fraction(repr(tau)) * k)


def bf_pass(rows, k):
    return dataset_mean(rows, k, lambda x: 1 if x >= 1 else 0)


def bf_pass_hat(rows, k):
    return dataset_mean(rows, k, lambda x: 1 if x == k else 0)


def bf_per_question(rows, k, payoff):
    return [subset_mean(r, k, payoff) for r in rows]


def k_values(rows):
    return range(1, min(len(r) for r in rows) + 1)


# ----------------------------------------------------------------------------- pass family
@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_pass_and_pass_hat(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    for k in k_values(rows):
        assert be.pass_at_k(R, k) == pytest.approx(bf_pass(rows, k), **TOL)
        hat = bf_pass_hat(rows, k)
        assert be.pass_hat_k(R, k) == pytest.approx(hat, **TOL)
        assert be.unanimous_at_k(R, k) == pytest.approx(hat, **TOL)
        assert be.g_pass_at_k(R, k) == pytest.approx(hat, **TOL)


TAUS = [0.0, 0.1, 0.25, 0.3, 1 / 3, 0.5, 0.6, 2 / 3, 0.7, 0.75, 0.9, 1.0]


@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_g_pass_at_k_tau(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    for k in k_values(rows):
        for tau in TAUS:
            j0 = max(1, ceil_tau_k(tau, k))
            expected = dataset_mean(rows, k, lambda x: 1 if x >= j0 else 0)
            assert be.g_pass_at_k_tau(R, k, tau) == pytest.approx(expected, **TOL), (k, tau)


def test_g_pass_tau_boundaries_k10():
    """tau = j/k exactly (0.3 * 10 = 3.0000000000000004 in floating point) requires exactly j."""
    rng = np.random.default_rng(42)
    rows = [(rng.random(10) < p).astype(int).tolist() for p in (0.1, 0.25, 0.35, 0.5, 0.7, 0.95)]
    rows.append([1, 1, 1, 0, 0, 0, 0, 0, 0, 0])   # exactly 3 correct of 10
    R = np.array(rows)
    k = 10
    for tau, j0 in [(0.0, 1), (0.1, 1), (0.2, 2), (0.3, 3), (0.6, 6), (0.7, 7), (0.9, 9), (1.0, 10),
                    (0.30000000000000004, 4), (0.31, 4), (0.05, 1)]:
        assert max(1, ceil_tau_k(tau, k)) == j0
        expected = dataset_mean(rows, k, lambda x: 1 if x >= j0 else 0)
        assert be.g_pass_at_k_tau(R, k, tau) == pytest.approx(expected, **TOL), tau
    # the row with exactly 3 correct of 10 passes tau = 0.3 (all 10 drawn)
    assert be.g_pass_at_k_tau(R[-1:], 10, 0.3) == 1.0
    assert be.g_pass_at_k_tau(R[-1:], 10, 0.31) == 0.0


@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_maj_at_k(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    for k in k_values(rows):
        expected = dataset_mean(rows, k, lambda x: 1 if 2 * x > k else 0)
        assert be.maj_at_k(R, k) == pytest.approx(expected, **TOL), k


@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_mg_pass_at_k(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    for k in k_values(rows):
        m = math.ceil(k / 2)
        expected = dataset_mean(rows, k, lambda x: Fraction(2, k) * max(x - m, 0))
        assert be.mg_pass_at_k(R, k) == pytest.approx(expected, **TOL), k


@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_auc_at_k(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    for k in k_values(rows):
        # per question exact pass@j for j = 1..k, then the trapezoid
        per_q = []
        for r in rows:
            pj = [subset_mean(r, j, lambda x: 1 if x >= 1 else 0) for j in range(1, k + 1)]
            if k == 1:
                per_q.append(pj[0])
            else:
                per_q.append(sum((pj[j] + pj[j + 1]) / 2 for j in range(k - 1)) / (k - 1))
        expected = float(sum(per_q) / len(per_q))
        assert be.auc_at_k(R, k) == pytest.approx(expected, **TOL), k


@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_threshold_spectrum(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    rng = np.random.default_rng(1000 + seed)
    for k in k_values(rows):
        for _ in range(3):
            w = rng.random(k)
            w *= rng.uniform(0.2, 1.0) / w.sum()
            if rng.random() < 0.5:
                w[rng.integers(0, k)] = 0.0
            wf = [Fraction(float(x)) for x in w]
            expected = dataset_mean(rows, k, lambda x: sum(wf[r - 1] for r in range(1, k + 1) if x >= r))
            assert be.threshold_spectrum_at_k(R, k, w) == pytest.approx(expected, **TOL), (k, w)
        # one-hot weights give the G-Pass thresholds
        for r in range(1, k + 1):
            onehot = np.zeros(k)
            onehot[r - 1] = 1.0
            expected = dataset_mean(rows, k, lambda x: 1 if x >= r else 0)
            assert be.threshold_spectrum_at_k(R, k, onehot) == pytest.approx(expected, **TOL)


POWERS = [(0.5, 0.5), (1.0, 0.0), (0.0, 1.0), (0.3, 0.7), (2.0, 1.5), (0.25, 1.0)]


@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_geom_at_k_and_geom_ds(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    for k in k_values(rows):
        P = [float(x) for x in bf_per_question(rows, k, lambda x: 1 if x >= 1 else 0)]
        U = [float(x) for x in bf_per_question(rows, k, lambda x: 1 if x == k else 0)]
        for a, b in POWERS:
            expected_q = float(np.mean([p ** a * u ** b for p, u in zip(P, U)]))
            expected_ds = float(np.mean(P)) ** a * float(np.mean(U)) ** b
            assert be.geom_at_k(R, k, a, b) == pytest.approx(expected_q, **TOL), (k, a, b)
            assert be.geom_ds_at_k(R, k, pass_power=a, unanimous_power=b) == pytest.approx(expected_ds, **TOL)
        # defaults are a = b = 1/2
        assert be.geom_at_k(R, k) == pytest.approx(float(np.mean([math.sqrt(p * u) for p, u in zip(P, U)])), **TOL)
        assert be.geom_ds_at_k(R, k) == pytest.approx(math.sqrt(np.mean(P) * np.mean(U)), **TOL)


@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_geo_spectrum(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    rng = np.random.default_rng(2000 + seed)
    for k in k_values(rows):
        P = bf_pass(rows, k)
        # default weights: w_r = (2/k) 1{r >= ceil(k/2) + 1}
        m = math.ceil(k / 2)
        wdef = [Fraction(2, k) if r >= m + 1 else Fraction(0) for r in range(1, k + 1)]
        Sdef = dataset_mean(rows, k, lambda x: sum(wdef[r - 1] for r in range(1, k + 1) if x >= r))
        w = rng.random(k)
        w *= rng.uniform(0.3, 1.0) / w.sum()
        wf = [Fraction(float(x)) for x in w]
        Scus = dataset_mean(rows, k, lambda x: sum(wf[r - 1] for r in range(1, k + 1) if x >= r))
        for lam in (0.0, 0.3, 0.5, 1.0):
            exp_def = P ** lam * Sdef ** (1 - lam)
            exp_cus = P ** lam * Scus ** (1 - lam)
            assert be.geo_spectrum_at_k(R, k, lam=lam) == pytest.approx(exp_def, **TOL), (k, lam)
            assert be.geo_spectrum_at_k(R, k, lam, w) == pytest.approx(exp_cus, **TOL), (k, lam)
            assert be.geo_spectrum_at_k(R, k, weights=w, lambda_=lam) == pytest.approx(exp_cus, **TOL)
        # GeoSpectrum* = sqrt(pass@k * S_default)
        assert be.geo_spectrum_star_at_k(R, k) == pytest.approx(math.sqrt(P * Sdef), **TOL)
        assert be.geo_spectrum_at_k(R, k) == pytest.approx(math.sqrt(P * Sdef), **TOL)


# ----------------------------------------------------------------------------- max@k (categorical)
def categorical_rows(seed: int, ragged: bool):
    rng = np.random.default_rng(500 + seed)
    C = int(rng.integers(1, 5))        # categories 0..C
    M = int(rng.integers(2, 6))
    N = int(rng.integers(3, 9))
    rows = []
    for _ in range(M):
        n = int(rng.integers(3, N + 1)) if ragged else N
        rows.append(rng.integers(0, C + 1, size=n).tolist())
    if ragged:
        rows[0] = rows[0][:3]
        rows[1] = (rows[1] + rng.integers(0, C + 1, size=8).tolist())[:8]
    # make sure the top category is used so that w of length C+1 is consistent
    rows[-1][0] = C
    return rows, C


def weight_vectors(rng, C):
    yield rng.normal(size=C + 1)                       # arbitrary real rewards (unsorted, negatives)
    w = rng.uniform(-1, 2, size=C + 1)
    if C >= 1:
        w[C] = w[0]                                    # repeated weights
    yield w
    yield np.round(rng.uniform(0, 1, size=C + 1), 1)   # likely ties
    yield np.full(C + 1, 0.25)                         # all equal
    yield np.arange(C + 1)[::-1].astype(float)         # decreasing in the category


@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_max_at_k(seed, ragged):
    rows, C = categorical_rows(seed, ragged)
    R = be.to_counts(rows, ragged=True) if ragged else np.array(rows)
    rng = np.random.default_rng(900 + seed)
    for w in weight_vectors(rng, C):
        wf = [Fraction(float(x)) for x in w]
        for k in range(1, min(len(r) for r in rows) + 1):
            per_q = []
            for r in rows:
                subsets = list(itertools.combinations(r, k))
                per_q.append(sum(max(wf[c] for c in s) for s in subsets) / len(subsets))
            expected = float(sum(per_q) / len(per_q))
            assert be.max_at_k(R, k, w=w) == pytest.approx(expected, **TOL), (k, w)


@pytest.mark.parametrize("seed", SEEDS)
def test_max_at_k_binary_default_weights(seed):
    rows = binary_rows(seed, False)
    R = np.array(rows)
    for k in k_values(rows):
        assert be.max_at_k(R, k) == pytest.approx(bf_pass(rows, k), **TOL)


# ----------------------------------------------------------------------------- user Bernstein metric
@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_bernstein_at_k(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    rng = np.random.default_rng(3000 + seed)
    for k in k_values(rows):
        for scale in (1.0, 5.0):
            c = rng.uniform(-1, 1, size=k + 1) * scale
            cf = [Fraction(float(x)) for x in c]
            expected = dataset_mean(rows, k, lambda x: cf[x])
            assert be.bernstein_at_k(R, c) == pytest.approx(expected, **TOL), (k, c)
            # Bernstein(c).point on a Counts is the same estimate
            counts = R if isinstance(R, be.Counts) else be.to_counts(R)
            assert be.Bernstein(c).point(counts) == pytest.approx(expected, **TOL)


# ----------------------------------------------------------------------------- aisbench
@pytest.mark.parametrize("seed, ragged", CASES, ids=CASE_IDS)
def test_aisbench_pass_and_cons(seed, ragged):
    rows = binary_rows(seed, ragged)
    R = as_input(rows, ragged)
    for k in k_values(rows):
        assert ais.pass_at_k(R, k) == pytest.approx(bf_pass(rows, k), **TOL)
        expected = dataset_mean(rows, k, lambda x: 1 if x > k / 2 else 0)
        assert ais.cons_at_k(R, k) == pytest.approx(expected, **TOL), k


# ----------------------------------------------------------------------------- missing trials
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_nan_missing_and_mask_equal_dropping_trials(seed):
    """NaN-marked / masked trials are dropped: the estimate equals brute force on the kept trials."""
    rng = np.random.default_rng(4000 + seed)
    M, N = 5, 7
    R = (rng.random((M, N)) < rng.random((M, 1))).astype(float)
    mask = rng.random((M, N)) < 0.3
    mask[:, :3] = False                      # keep at least 3 trials per question
    kept = [[int(R[i, j]) for j in range(N) if not mask[i, j]] for i in range(M)]
    Rnan = R.copy()
    Rnan[mask] = np.nan
    c_nan = be.to_counts(Rnan, missing=np.nan)
    c_mask = be.to_counts(R, mask=mask)
    for k in range(1, 4):
        expected = bf_pass(kept, k)
        assert be.pass_at_k(c_nan, k) == pytest.approx(expected, **TOL)
        assert be.pass_at_k(c_mask, k) == pytest.approx(expected, **TOL)
        expected_maj = dataset_mean(kept, k, lambda x: 1 if 2 * x > k else 0)
        assert be.maj_at_k(c_nan, k) == pytest.approx(expected_maj, **TOL)
