"""Hardening of the library core: every bad input is a clear ValueError / TypeError naming the argument,
sizes are capped (overridable), memory follows the categories present, byte order is respected.

Each row of ``CASES``: (kind, call, exception type, a regex the message must match -- the argument's name).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import bayeseval as be

R = (np.random.default_rng(0).random((30, 4)) < 0.5).astype(int)
G = np.random.default_rng(1).integers(0, 3, (20, 3))  # graded 0/1/2

CASES = [
    ("k above the cap", lambda: be.estimate(R, "pass@1000000000000000000"), ValueError, r"k = .* cap"),
    ("k above the cap in a scorio function", lambda: be.maj_at_k_ci(R, 10**6), ValueError, r"k = .* cap"),
    ("k keyword above the cap", lambda: be.estimate(R, "pass@k", k=10**9), ValueError, r"\bk\b.*cap"),
    ("draws above the cap", lambda: be.estimate(R, "pass@2", draws=10**9), ValueError, r"draws = .* cap"),
    ("draws of an estimate above the cap", lambda: be.estimate(R).draws(10**9), ValueError, r"\bn = .* cap"),
    ("resamples above the cap", lambda: be.compare(R, R, resamples=10**12), ValueError, r"resamples = .* cap"),
    ("resamples above the cap in compare_all", lambda: be.compare_all({"a": R, "b": R}, resamples=10**12),
     ValueError, r"resamples"),
    ("payoff vector too long", lambda: be.estimate(R, np.zeros(30_000)), ValueError, r"\bk = .* cap"),
    ("payoff entries too large", lambda: be.estimate(R, [0, 1e308, -1e308]), ValueError, r"payoff.*magnitude"),
    ("payoff entries not finite", lambda: be.estimate(R, [0, np.inf]), ValueError, r"payoff.*finite"),
    ("Bernstein payoff too large", lambda: be.Bernstein([0, 1e300]), ValueError, r"\bc\b.*magnitude"),
    ("plan on an all-correct pilot", lambda: be.plan(np.ones((20, 4), int)), ValueError, r"variation"),
    ("plan on identical models", lambda: be.plan(np.ones((20, 4), int), np.ones((20, 4), int)), ValueError,
     r"variation"),
    ("plan delta tiny", lambda: be.plan(R, delta=1e-200), ValueError, r"delta"),
    ("plan delta in points", lambda: be.plan(R, delta=5), ValueError, r"delta.*0\.05"),
    ("plan delta huge", lambda: be.plan(R, delta=1e300), ValueError, r"delta"),
    ("plan delta zero", lambda: be.plan(R, delta=0.0), ValueError, r"delta"),
    ("questions_needed delta huge", lambda: be.plan(R).questions_needed(1e300, 4), ValueError, r"delta"),
    ("a category above the weights", lambda: be.estimate(G, "avg", w=[0, 1]), ValueError, r"\bw\b"),
    ("a value that cannot be a category", lambda: be.to_counts(np.array([[0, 5000]])), ValueError,
     r"categories 0\.\.C"),
    ("negative outcome", lambda: be.to_counts(np.array([[0, -1]])), ValueError, r"non-negative"),
    ("NaN without missing=", lambda: be.to_counts(np.array([[0.0, np.nan]])), ValueError, r"missing=np\.nan"),
    ("infinite outcome", lambda: be.to_counts(np.array([[0.0, np.inf]]), missing=np.nan), ValueError, r"finite"),
    ("fractional outcome", lambda: be.to_counts(np.array([[0.5, 1.0]])), ValueError, r"non-negative integers"),
    ("text outcomes", lambda: be.to_counts("0101"), TypeError, r"\bR\b"),
    ("empty matrix", lambda: be.to_counts(np.zeros((0, 3))), ValueError, r"at least one question"),
    ("no trials", lambda: be.to_counts(np.zeros((3, 0))), ValueError, r"at least one trial"),
    ("3-D outcomes", lambda: be.to_counts(np.zeros((2, 2, 2))), ValueError, r"1-D or 2-D"),
    ("unknown metric", lambda: be.estimate(R, "pass@@2"), ValueError, r"metric"),
    ("level outside (0, 1)", lambda: be.estimate(R, level=1.5), ValueError, r"level"),
    ("unknown scope", lambda: be.estimate(R, scope="world"), ValueError, r"scope"),
    ("unknown interval", lambda: be.estimate(R, interval="wald"), ValueError, r"interval"),
    ("bool seed", lambda: be.estimate(R, seed=True), TypeError, r"seed"),
    ("negative count cell", lambda: be.Counts.from_table([[1, -1]]), ValueError, r"table.*non-negative"),
    ("non-integer count cell", lambda: be.Counts.from_table([[1.5, 1]]), ValueError, r"table.*integer"),
    ("count table of text", lambda: be.Counts.from_table([["a", "b"]]), TypeError, r"table"),
    ("pairs naming an unknown model", lambda: be.compare_all({"a": R, "b": R}, pairs=[("a", "z")]), ValueError,
     r"pairs"),
    ("pairs that are not pairs", lambda: be.compare_all({"a": R, "b": R}, pairs=5), TypeError, r"pairs"),
    ("unknown pairs keyword", lambda: be.compare_all({"a": R, "b": R}, pairs="some"), ValueError, r"pairs"),
    ("labels of the wrong type", lambda: be.estimate(R, labels=3), TypeError, r"labels"),
    ("model and labels disagree", lambda: be.estimate(R, model="a", labels="b"), ValueError, r"labels"),
    ("evaluate labels of the wrong length", lambda: be.evaluate([R, R], ["avg"], labels=["x"]), ValueError,
     r"labels"),
    ("unknown limit", lambda: be.set_limits(kk=3), ValueError, r"limit"),
    ("Evaluation.item of several", lambda: be.evaluate({"a": R}, ["avg", "pass@2"]).item(), ValueError,
     r"exactly one"),
]


@pytest.mark.parametrize("kind, call, exc, pattern", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_a_clear_error(kind, call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_caps_can_be_raised_and_restored():
    old = be.set_limits(k=40_000)
    try:
        assert be.LIMITS["k"] == 40_000
        be.pass_at_k(np.ones((2, 30_000), np.int8), 25_000)  # above the default cap, now allowed
    finally:
        be.set_limits(**old)
    assert be.LIMITS["k"] == old["k"] == 20_000
    with pytest.raises(ValueError, match="cap"):
        be.pass_at_k(np.ones((2, 30_000), np.int8), 25_000)


@pytest.mark.parametrize("dtype", [">i2", ">i4", ">i8", ">u2", "<i4", ">f8"])
def test_big_endian_arrays_are_read_by_value(dtype):
    R2 = np.array([[1, 0, 1], [0, 0, 1]])
    ref = be.pass_at_k(R2, 2)
    assert be.pass_at_k(R2.astype(dtype), 2) == ref
    G2 = np.array([[0, 1, 2], [2, 2, 0]])
    assert be.avg(G2.astype(dtype), [0, 0.5, 1]) == be.avg(G2, [0, 0.5, 1])
    assert be.to_counts(G2.astype(dtype)).table.tolist() == be.to_counts(G2).table.tolist()


def test_few_large_categories_are_counted_over_the_categories_present():
    R3 = np.zeros((1000, 4), np.int16)
    R3[0, 0] = 1000
    c = be.to_counts(R3, np.arange(1001.0))
    part, codes = c.present()
    assert part.shape == (1000, 2) and codes.tolist() == [0, 1000] and c.K == 1001
    # the same numbers as the dense table: every metric sees all 1001 categories
    dense = be.Counts(c.table, fixed_categories=True)
    for metric in ("avg", "bayes"):
        a = be.estimate(c, metric, w=np.arange(1001.0))
        b = be.estimate(dense, metric, w=np.arange(1001.0))
        assert (a.value, a.mean, a.sd, a.lo, a.hi) == (b.value, b.mean, b.sd, b.lo, b.hi)
    assert not c.is_binary
    with pytest.raises(ValueError, match="category 1000"):
        c.check_weights(np.arange(10.0))


@pytest.mark.slow
def test_one_large_category_value_does_not_amplify_memory():
    """The audit's case: 100,000 x 4 with a single outcome of 1000 took 2.4 GB and 41 s (a dense
    100,000 x 1001 table); counting over the categories present keeps the peak near numpy's own."""
    code = textwrap.dedent("""
        import numpy as np, bayeseval as be
        R = np.zeros((100_000, 4), np.int16); R[0, 0] = 1000
        e = be.estimate(R, "avg", w=np.arange(1001.0))
        c = be.to_counts(R, np.arange(1001.0))  # counted once, then used by several metrics
        be.evaluate({"m": c}, ["avg", "bayes", "max@2"], w=np.arange(1001.0))
        # VmHWM: this process's peak resident memory since exec (ru_maxrss would include the forking parent's)
        hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]
        print(int(hwm) // 1024, e.value)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    peak_mb, value = out.stdout.split()
    assert float(value) == pytest.approx(1000 / 400_000)
    assert int(peak_mb) < 600, f"peak RSS {peak_mb} MB"


def test_plan_delta_in_points_names_the_fraction():
    with pytest.raises(ValueError, match=r"delta=0\.05"):
        be.plan(R, delta=5)


def test_avg_at_n_with_more_trials_than_named_is_refused():
    R8 = (np.random.default_rng(2).random((10, 8)) < 0.5).astype(int)
    with pytest.raises(ValueError, match=r"avg@3.*up to 8 trials"):
        be.estimate(R8, "avg@3")
    assert be.estimate(R8, "avg@8").value == be.estimate(R8, "avg").value
    with pytest.raises(ValueError, match=r"avg@10.*no question has more than 8 trials"):
        be.estimate(R8, "avg@10")  # fewer trials than named: not the number averaged either


def test_a_count_too_large_for_exact_arithmetic_is_named():
    with pytest.raises(ValueError, match=r"at most 9,007,199,254,740,992 trials.*1e\+19"):
        be.Counts.from_table([[1e19, 1.0]])


@pytest.mark.parametrize("N", [10_000, 1_000_000, 2_000_000])
def test_max_at_k_keeps_its_digits_for_rare_events(N):
    """One success in N trials: 1 - (ratio near 1) used to lose every digit (6e-3 relative error at
    N = 2e6 for the point estimate, 2e-4 for the posterior mean); both are exact to 1e-9 now."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    R1 = np.zeros((1, N), np.int8)
    R1[0, 0] = 1
    # unbiased max@2 of one success among N: P(the pair holds it) = 2 / N
    assert be.max_at_k(R1, 2) == pytest.approx(2 / N, rel=1e-9)
    # posterior mean under Dirichlet(1, 1) + counts: p ~ Beta(2, N), E[1 - (1 - p)^2]
    a, b = mpmath.mpf(2), mpmath.mpf(N)
    exact = 1 - (b * (b + 1)) / ((a + b) * (a + b + 1))
    assert be.max_at_k_ci(R1, 2)[0] == pytest.approx(float(exact), rel=1e-9)
    # k = 5 against the exact rising factorials
    exact5 = 1 - mpmath.rf(b, 5) / mpmath.rf(a + b, 5)
    assert be.max_at_k_ci(R1, 5)[0] == pytest.approx(float(exact5), rel=1e-9)


def test_max_at_k_agrees_with_exact_rationals_on_graded_data():
    from fractions import Fraction
    from itertools import combinations

    G3 = np.array([[0, 2, 1, 1, 0], [2, 2, 0, 1, 1]])
    w = [0.0, 0.5, 1.0]
    k = 3
    total = Fraction(0)
    for row in G3:
        subsets = list(combinations(row.tolist(), k))
        total += sum(Fraction(w[max(s)]).limit_denominator() for s in subsets) / len(subsets)
    assert be.max_at_k(G3, k, w) == pytest.approx(float(total / len(G3)), abs=1e-14)


def test_a_beta_prior_with_weights_0_1_on_binary_outcomes_is_the_binary_model():
    """prior=(1, 1) with w=[0, 1] on 0/1 data used to fail with 'needs binary outcomes' (it is binary)."""
    R2 = np.array([[0, 1, 1], [1, 0, 1]])
    for kw in ({"prior": (1, 1)}, {"prior": "jeffreys"}, {"alpha0": 2.0}):
        a = be.estimate(R2, "avg", w=[0, 1], scope="benchmark", interval="normal", **kw)
        b = be.estimate(R2, "avg", scope="benchmark", interval="normal", **kw)
        assert (a.mean, a.sd, a.lo, a.hi) == (b.mean, b.sd, b.lo, b.hi)
    with pytest.raises(ValueError, match=r"Beta prior .* w=\[0\.2, 0\.9\].*dirichlet"):
        be.estimate(R2, "avg", w=[0.2, 0.9], prior=(1, 1))
