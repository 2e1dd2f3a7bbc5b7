"""Every example number printed in the reference documents.

* ``/work/shared/seeds/003_de41bba6fbdeb3ae.txt`` -- the scorio.eval reference
  (doc examples with ``round(x, 6)`` / ``round(x, 4)`` outputs);
* ``/work/shared/seeds/000_87987e1f9e7e13f3.txt`` -- the AISBench metric notes
  (worked examples for pass@k, cons@k, avg@n and accuracy (n runs average)).

Each number is asserted to the precision at which it is printed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import bayeseval as be
from bayeseval import aisbench as ais

# The matrices used throughout the scorio reference.
R_BIN = np.array([[0, 1, 1, 0, 1],
                  [1, 1, 0, 1, 1]])
R_CAT = np.array([[0, 1, 2, 2, 1],
                  [1, 1, 0, 2, 2]])
W_CAT = np.array([0.0, 0.5, 1.0])
R0_CAT = np.array([[0, 2],
                   [1, 2]])


def _rounded(values, digits):
    if isinstance(digits, int):
        digits = (digits,) * len(values)
    return tuple(round(float(v), d) for v, d in zip(values, digits))


# ----------------------------------------------------------------------------- scalar outputs
SCALAR_CASES = [
    # (id, callable, expected, digits)
    ("pass_at_k k=1", lambda: be.pass_at_k(R_BIN, 1), 0.7, 6),
    ("pass_at_k k=2", lambda: be.pass_at_k(R_BIN, 2), 0.95, 6),
    ("pass_hat_k k=1", lambda: be.pass_hat_k(R_BIN, 1), 0.7, 6),
    ("pass_hat_k k=2", lambda: be.pass_hat_k(R_BIN, 2), 0.45, 6),
    ("unanimous_at_k k=1", lambda: be.unanimous_at_k(R_BIN, 1), 0.7, 6),
    ("unanimous_at_k k=2", lambda: be.unanimous_at_k(R_BIN, 2), 0.45, 6),
    ("auc_at_k k=1", lambda: be.auc_at_k(R_BIN, 1), 0.7, 6),
    ("auc_at_k k=2", lambda: be.auc_at_k(R_BIN, 2), 0.825, 6),
    ("auc_at_k k=3", lambda: be.auc_at_k(R_BIN, 3), 0.9, 6),
    ("maj_at_k k=1", lambda: be.maj_at_k(R_BIN, 1), 0.7, 6),
    ("maj_at_k k=2", lambda: be.maj_at_k(R_BIN, 2), 0.45, 6),
    ("maj_at_k k=3", lambda: be.maj_at_k(R_BIN, 3), 0.85, 6),
    ("g_pass_at_k k=1", lambda: be.g_pass_at_k(R_BIN, 1), 0.7, 6),
    ("g_pass_at_k k=2", lambda: be.g_pass_at_k(R_BIN, 2), 0.45, 6),
    ("g_pass_at_k_tau k=2 tau=0.5", lambda: be.g_pass_at_k_tau(R_BIN, 2, 0.5), 0.95, 6),
    ("g_pass_at_k_tau k=2 tau=1", lambda: be.g_pass_at_k_tau(R_BIN, 2, 1.0), 0.45, 6),
    ("mg_pass_at_k k=2", lambda: be.mg_pass_at_k(R_BIN, 2), 0.45, 6),
    ("mg_pass_at_k k=3", lambda: be.mg_pass_at_k(R_BIN, 3), 0.166667, 6),
    ("geom_at_k k=2", lambda: be.geom_at_k(R_BIN, 2), 0.647106, 6),
    ("geom_ds_at_k k=2", lambda: be.geom_ds_at_k(R_BIN, 2), 0.653835, 6),
    ("geo_spectrum_at_k k=3", lambda: be.geo_spectrum_at_k(R_BIN, 3), 0.408248, 6),
    ("geo_spectrum_at_k k=3 lam=1", lambda: be.geo_spectrum_at_k(R_BIN, 3, lam=1.0), 1.0, 6),
    ("max_at_k binary k=2", lambda: be.max_at_k(R_BIN, 2), 0.95, 6),
    ("max_at_k weighted k=2", lambda: be.max_at_k(R_CAT, 2, w=W_CAT), 0.85, 6),
]


@pytest.mark.parametrize("fn, expected, digits", [c[1:] for c in SCALAR_CASES], ids=[c[0] for c in SCALAR_CASES])
def test_scorio_scalar_examples(fn, expected, digits):
    value = fn()
    assert isinstance(value, float)
    assert round(value, digits) == expected


# ----------------------------------------------------------------------------- tuple outputs
TUPLE_CASES = [
    # (id, callable, expected tuple, digits per entry)
    ("bayes with prior R0", lambda: be.bayes(R_CAT, W_CAT, R0_CAT), (0.575, 0.084275), 6),
    ("bayes without prior", lambda: be.bayes(R_CAT, W_CAT), (0.5625, 0.091998), 6),
    ("bayes_ci binary bounds=(0,1)", lambda: be.bayes_ci(R_BIN, bounds=(0.0, 1.0)),
     (0.642857, 0.118451, 0.4107, 0.875), (6, 6, 4, 4)),
    ("avg binary", lambda: be.avg(R_BIN), (0.7, 0.165831), 6),
    ("avg weighted", lambda: be.avg(R_CAT, W_CAT), (0.6, 0.147196), 6),
    ("avg_ci binary bounds=(0,1)", lambda: be.avg_ci(R_BIN, bounds=(0.0, 1.0)), (0.7, 0.1658, 0.375, 1.0), 4),
    ("avg_ci weighted", lambda: be.avg_ci(R_CAT, W_CAT, confidence=0.95), (0.6, 0.1472, 0.3115, 0.8885), 4),
    ("pass_at_k_ci k=1", lambda: be.pass_at_k_ci(R_BIN, 1), (0.642857, 0.118451, 0.4107, 0.875), (6, 6, 4, 4)),
    ("pass_at_k_ci k=2", lambda: be.pass_at_k_ci(R_BIN, 2), (0.839286, 0.097263, 0.6487, 1.0), (6, 6, 4, 4)),
    ("pass_hat_k_ci k=1", lambda: be.pass_hat_k_ci(R_BIN, 1), (0.642857, 0.118451, 0.4107, 0.875), (6, 6, 4, 4)),
    ("pass_hat_k_ci k=2", lambda: be.pass_hat_k_ci(R_BIN, 2), (0.446429, 0.146167, 0.1599, 0.7329), (6, 6, 4, 4)),
    ("unanimous_at_k_ci k=2", lambda: be.unanimous_at_k_ci(R_BIN, 2),
     (0.446429, 0.146167, 0.1599, 0.7329), (6, 6, 4, 4)),
    ("maj_at_k_ci k=2", lambda: be.maj_at_k_ci(R_BIN, 2), (0.446429, 0.146167, 0.1599, 0.7329), (6, 6, 4, 4)),
    ("maj_at_k_ci k=3", lambda: be.maj_at_k_ci(R_BIN, 3), (0.684524, 0.151958, 0.3867, 0.9824), (6, 6, 4, 4)),
    ("geom_at_k_ci k=2", lambda: be.geom_at_k_ci(R_BIN, 2), (0.610666, 0.133107, 0.3498, 0.8716), (6, 6, 4, 4)),
    ("geom_ds_at_k_ci k=2", lambda: be.geom_ds_at_k_ci(R_BIN, 2), (0.612112, 0.132755, 0.3519, 0.8723), (6, 6, 4, 4)),
    ("max_at_k_ci binary k=2", lambda: be.max_at_k_ci(R_BIN, 2), (0.839286, 0.097263, 0.6487, 1.0), (6, 6, 4, 4)),
    ("max_at_k_ci weighted k=2", lambda: be.max_at_k_ci(R_CAT, 2, w=W_CAT),
     (0.75, 0.08812, 0.5773, 0.9227), (6, 6, 4, 4)),
]


@pytest.mark.parametrize("fn, expected, digits", [c[1:] for c in TUPLE_CASES], ids=[c[0] for c in TUPLE_CASES])
def test_scorio_tuple_examples(fn, expected, digits):
    got = fn()
    assert isinstance(got, tuple) and len(got) == len(expected)
    assert all(isinstance(x, float) for x in got)
    assert _rounded(got, digits) == expected


def test_bayes_effective_sample_sizes_in_reference():
    """The reference states T = 10 with the 2-column prior and T = 8 without; check sigma scales.

    Independently of bayeseval's code: mu = w0 + sum nu (w - w0) / (M T).
    """
    for R0, T in ((R0_CAT, 10), (None, 8)):
        nu = np.zeros((2, 3))
        for i in range(2):
            for c in range(3):
                nu[i, c] = 1 + np.sum(R_CAT[i] == c) + (0 if R0 is None else np.sum(R0[i] == c))
        assert nu.sum(axis=1).tolist() == [T, T]
        mu = W_CAT[0] + (nu @ (W_CAT - W_CAT[0])).sum() / (2 * T)
        assert be.bayes(R_CAT, W_CAT, R0)[0] == pytest.approx(mu, rel=1e-14)


# ----------------------------------------------------------------------------- AISBench worked examples
# Section II.2.3: n = k = 3, correct counts c = [2, 2, 1, 0].
AIS_R = np.array([[1, 1, 0],   # [A, A, X] -> 2 correct
                  [1, 0, 1],   # [B, C, B] -> 2 correct
                  [0, 0, 1],   # [X, X, C] -> 1 correct
                  [0, 0, 0]])  # [X, X, X] -> 0 correct


def test_aisbench_section_2_3_pass3():
    assert round(ais.pass_at_k(AIS_R, 3), 2) == 0.75
    assert round(be.pass_at_k(AIS_R, 3), 2) == 0.75


def test_aisbench_section_2_3_avg3():
    assert round(ais.avg_at_n(AIS_R), 4) == 0.4167
    # (0.6667 + 0.6667 + 0.3333 + 0.0)/4 with the per-question accuracies printed to 4 places
    per_q = ais.hard_outcomes(AIS_R).mean(axis=1)
    assert [round(x, 4) for x in per_q] == [0.6667, 0.6667, 0.3333, 0.0]


def test_aisbench_section_2_3_cons3():
    assert ais.cons_at_k(AIS_R, 3) == 0.5


def test_aisbench_section_1_example_n5_c3_k2():
    R = np.array([[1, 1, 1, 0, 0]])
    assert round(ais.pass_at_k(R, 2), 1) == 0.9
    assert round(be.pass_at_k(R, 2), 1) == 0.9
    # "Probability of all failures = C(2,2)/C(5,2) = 1/10 = 0.1"
    assert round(1.0 - ais.pass_at_k(R, 2), 1) == 0.1
    # the document's product formula
    n, c, k = 5, 3, 2
    assert round(1 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1))), 1) == 0.9


def test_aisbench_section_1_single_sample_rate():
    """n = 100 samples, c = 20 correct: the single-sample pass rate is 0.2."""
    R = np.zeros((1, 100), dtype=int)
    R[0, :20] = 1
    assert round(ais.pass_at_k(R, 1), 1) == 0.2


def test_aisbench_section_3_soft_scores():
    S = np.array([[0.6, 0.4, 0.6]])
    acc = ais.accuracy_n_runs_average(S)
    avg = ais.avg_at_n(S)
    assert round(acc, 3) == 0.533
    # printed as 0.666 (truncated); 2/3 to three places
    assert math.floor(avg * 1000) / 1000 == 0.666
    assert round(avg, 3) == 0.667
    assert ais.hard_outcomes(S).tolist() == [[1, 0, 1]]   # correct = True, False, True
    assert acc != avg


# Section II.3.1 scenarios (k = 3, two problems each), expected (avg@n, cons@k) as printed.
SCENARIOS = [
    # Scenario 1: [A, A, B] true A; [B, B, C] true B -> 2 correct each
    ("scenario 1: cons > avg", [[1, 1, 0], [1, 1, 0]], 0.667, 1.0, ">"),
    # Scenario 2: [A, B, C] true A; [A, B, C] true B -> 1 correct each
    ("scenario 2: cons < avg", [[1, 0, 0], [0, 1, 0]], 0.333, 0.0, "<"),
    # Scenario 3: [A, A, A] true A; [B, B, B] true C -> 3 and 0 correct
    ("scenario 3: cons = avg", [[1, 1, 1], [0, 0, 0]], 0.5, 0.5, "="),
]


@pytest.mark.parametrize("R, avg_expected, cons_expected, relation", [s[1:] for s in SCENARIOS],
                         ids=[s[0] for s in SCENARIOS])
def test_aisbench_cons_vs_avg_scenarios(R, avg_expected, cons_expected, relation):
    R = np.array(R)
    avg = ais.avg_at_n(R)
    cons = ais.cons_at_k(R, 3)
    assert round(avg, 3) == avg_expected
    assert round(cons, 3) == cons_expected
    if relation == ">":
        assert cons > avg
    elif relation == "<":
        assert cons < avg
    else:
        assert cons == avg
    # "pass@k is always greater than or equal to avg@n and cons@k"
    p = ais.pass_at_k(R, 3)
    assert p >= avg and p >= cons


def test_aisbench_module_doctest_numbers():
    """The numbers in bayeseval.aisbench's own module example (mirroring the notes)."""
    R = np.array([[1, 1, 0], [1, 0, 1], [0, 0, 1], [0, 0, 0]])
    assert (ais.pass_at_k(R, 3), round(ais.avg_at_n(R), 4), ais.cons_at_k(R, 3)) == (0.75, 0.4167, 0.5)
