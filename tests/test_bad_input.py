"""Every bad input raises a clear error that names the offending argument.

Conventions checked here (bayeseval.validate):

* a wrong *type* raises :class:`bayeseval.InputTypeError` (a ``TypeError`` and,
  for scorio compatibility, a ``ValueError``);
* a wrong *value* raises ``ValueError`` (and not a ``TypeError``);
* the message names the argument (checked with ``match=``);
* errors come before any heavy numerical work: every test here runs with
  warnings turned into errors, so a numpy ``RuntimeWarning`` (overflow,
  invalid value, ...) escaping before the check would fail the test;
* valid but adversarial inputs never produce NaN / inf.
"""

from __future__ import annotations

import math
import re
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pandas as pd
import pytest

import bayeseval as B
from bayeseval import Counts, InputTypeError, to_counts


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def value_error(fn, match):
    """``fn()`` raises a ValueError that is not a type error, with ``match`` in the message."""
    with pytest.raises(ValueError, match=match) as info:
        fn()
    assert not isinstance(info.value, TypeError), f"expected a value error, got {info.value!r}"
    return info.value


def type_error(fn, match):
    """``fn()`` raises InputTypeError (TypeError and ValueError), with ``match`` in the message."""
    with pytest.raises(InputTypeError, match=match) as info:
        fn()
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    return info.value


def either_error(fn, match):
    """Shape-like problems where either kind is defensible: still a ValueError naming the argument."""
    with pytest.raises(ValueError, match=match) as info:
        fn()
    return info.value


R_OK = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
RC_OK = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
W_OK = np.array([0.0, 0.5, 1.0])


def test_input_type_error_is_both_type_and_value_error():
    assert issubclass(InputTypeError, TypeError)
    assert issubclass(InputTypeError, ValueError)
    with pytest.raises(TypeError):
        B.pass_at_k(R_OK, 2.5)
    with pytest.raises(ValueError):  # scorio-style callers catch ValueError
        B.pass_at_k(R_OK, 2.5)


# ----------------------------------------------------------------------------- every function, bad R
BINARY_CALLERS = {
    "pass_at_k": lambda R: B.pass_at_k(R, 1),
    "pass_hat_k": lambda R: B.pass_hat_k(R, 1),
    "g_pass_at_k_tau": lambda R: B.g_pass_at_k_tau(R, 1, 0.5),
    "mg_pass_at_k": lambda R: B.mg_pass_at_k(R, 1),
    "maj_at_k": lambda R: B.maj_at_k(R, 1),
    "auc_at_k": lambda R: B.auc_at_k(R, 1),
    "threshold_spectrum_at_k": lambda R: B.threshold_spectrum_at_k(R, 1, [1.0]),
    "geom_at_k": lambda R: B.geom_at_k(R, 1),
    "geom_ds_at_k": lambda R: B.geom_ds_at_k(R, 1),
    "geo_spectrum_at_k": lambda R: B.geo_spectrum_at_k(R, 1),
    "geo_spectrum_star_at_k": lambda R: B.geo_spectrum_star_at_k(R, 1),
    "bernstein_at_k": lambda R: B.bernstein_at_k(R, [0, 1]),
    "pass_at_k_ci": lambda R: B.pass_at_k_ci(R, 1),
    "pass_hat_k_ci": lambda R: B.pass_hat_k_ci(R, 1),
    "g_pass_at_k_tau_ci": lambda R: B.g_pass_at_k_tau_ci(R, 1, 0.5),
    "mg_pass_at_k_ci": lambda R: B.mg_pass_at_k_ci(R, 1),
    "maj_at_k_ci": lambda R: B.maj_at_k_ci(R, 1),
    "auc_at_k_ci": lambda R: B.auc_at_k_ci(R, 1),
    "threshold_spectrum_at_k_ci": lambda R: B.threshold_spectrum_at_k_ci(R, 1, [1.0]),
    "geom_at_k_ci": lambda R: B.geom_at_k_ci(R, 1),
    "geom_ds_at_k_ci": lambda R: B.geom_ds_at_k_ci(R, 1),
    "geo_spectrum_at_k_ci": lambda R: B.geo_spectrum_at_k_ci(R, 1),
    "bernstein_at_k_ci": lambda R: B.bernstein_at_k_ci(R, [0, 1]),
    "bayes(w=None)": lambda R: B.bayes(R),
    "bayes_ci(w=None)": lambda R: B.bayes_ci(R),
    "avg(w=None)": lambda R: B.avg(R),
    "avg_ci(w=None)": lambda R: B.avg_ci(R),
    "max_at_k(w=None)": lambda R: B.max_at_k(R, 1),
    "max_at_k_ci(w=None)": lambda R: B.max_at_k_ci(R, 1),
}
WEIGHTED_CALLERS = {
    "bayes": lambda R: B.bayes(R, W_OK),
    "bayes_ci": lambda R: B.bayes_ci(R, W_OK),
    "avg": lambda R: B.avg(R, W_OK),
    "avg_ci": lambda R: B.avg_ci(R, W_OK),
    "max_at_k": lambda R: B.max_at_k(R, 1, W_OK),
    "max_at_k_ci": lambda R: B.max_at_k_ci(R, 1, W_OK),
    "to_counts": lambda R: to_counts(R),
}
ALL_CALLERS = {**BINARY_CALLERS, **WEIGHTED_CALLERS}

BAD_R_VALUES = {
    "nan": (np.array([[0.0, np.nan, 1.0]]), r"\bR\b.*NaN"),
    "inf": (np.array([[0.0, np.inf, 1.0]]), r"\bR\b.*finite"),
    "-inf": (np.array([[0.0, 1.0], [-np.inf, 1.0]]), r"\bR\b.*finite"),
    "0.5": (np.array([[0.0, 0.5, 1.0]]), r"R\[0, 1\]"),
    "negative-int": (np.array([[0, -1, 1]]), r"R\[0, 1\]"),
    "negative-float": (np.array([[0.0, 1.0], [1.0, -2.0]]), r"R\[1, 1\]"),
    "int64-min": (np.array([[0, np.iinfo(np.int64).min]]), r"\bR\b"),
    "empty-M": (np.zeros((0, 3), dtype=int), r"\bR\b.*question"),
    "empty-N": (np.zeros((3, 0), dtype=int), r"\bR\b.*trial"),
    "empty-list": ([], r"\bR\b"),
    "empty-rows": ([[], []], r"\bR\b.*trial"),
    "ragged-list": ([[0, 1, 1], [1, 0]], r"\bR\b.*ragged"),
    "3-D": (np.zeros((2, 2, 2), dtype=int), r"\bR\b.*(1-D or 2-D|dimension)"),
    "0-D": (np.int64(1), r"\bR\b.*(1-D or 2-D|dimension)"),
    "dataframe-nan": (pd.DataFrame({"a": [0.0, np.nan], "b": [1.0, 1.0]}), r"\bR\b.*NaN"),
    "masked-row": (np.ma.masked_array([[0, 1], [1, 1]], mask=[[True, True], [False, False]]), r"question"),
}
BAD_R_TYPES = {
    "string": ("0101", r"\bR\b"),
    "bytes": (b"0101", r"\bR\b"),
    "strings-inside": ([["0", "1"], ["1", "1"]], r"\bR\b"),
    "mixed-str": ([[0, "1"], [1, 1]], r"\bR\b"),
    "None-inside": ([[0, None], [1, 1]], r"\bR\b"),
    "None": (None, r"\bR\b"),
    "complex": (np.array([[0, 1j], [1, 0]]), r"\bR\b"),
    "object-dtype": (np.array([[0, 1], [1, 0]], dtype=object), r"\bR\b"),
    "dict": ({"a": 1}, r"\bR\b"),
    "dataframe-text": (pd.DataFrame({"a": ["x", "y"]}), r"\bR\b"),
    "datetime": (np.array([["2020-01-01"]], dtype="datetime64[D]"), r"\bR\b"),
}


@pytest.mark.parametrize("caller", list(ALL_CALLERS), ids=list(ALL_CALLERS))
@pytest.mark.parametrize("bad", list(BAD_R_VALUES), ids=list(BAD_R_VALUES))
def test_bad_R_values(caller, bad):
    R, match = BAD_R_VALUES[bad]
    value_error(lambda: ALL_CALLERS[caller](R), match)


@pytest.mark.parametrize("caller", list(ALL_CALLERS), ids=list(ALL_CALLERS))
@pytest.mark.parametrize("bad", list(BAD_R_TYPES), ids=list(BAD_R_TYPES))
def test_bad_R_types(caller, bad):
    R, match = BAD_R_TYPES[bad]
    type_error(lambda: ALL_CALLERS[caller](R), match)


@pytest.mark.parametrize("caller", list(BINARY_CALLERS), ids=list(BINARY_CALLERS))
def test_categorical_R_for_a_binary_metric(caller):
    e = value_error(lambda: BINARY_CALLERS[caller](RC_OK), r"\bR\b.*binary")
    if "w=None" in caller:
        assert "w" in str(e)  # tells the user to pass w


@pytest.mark.parametrize("fname", ["bayes", "bayes_ci", "avg", "avg_ci"])
def test_categorical_R_without_w_names_w(fname):
    value_error(lambda: getattr(B, fname)(RC_OK), r"\bw\b")


@pytest.mark.parametrize("fname", ["max_at_k", "max_at_k_ci"])
def test_categorical_R_without_w_names_w_max(fname):
    value_error(lambda: getattr(B, fname)(RC_OK, 2), r"\bw\b")


@pytest.mark.parametrize("R", [np.array([[0.0, 1e300]]), np.array([[0, 2**64 - 1]], dtype=np.uint64)],
                         ids=["float-1e300", "uint64-max"])
@pytest.mark.parametrize("caller", ["pass_at_k", "pass_at_k_ci", "bayes(w=None)", "max_at_k(w=None)"])
def test_huge_category_values_are_refused_cleanly(R, caller):
    """An integer-valued but astronomically large 'category' is a clear ValueError naming R,
    not an OverflowError from inside numpy."""
    value_error(lambda: BINARY_CALLERS[caller](R), r"\bR\b")


@pytest.mark.slow
def test_huge_category_value_does_not_allocate_a_huge_table():
    """pass_at_k on R = [[0, 10**12]] must refuse (R is not binary) without trying to build a
    (1, 10**12 + 1) count table.  Run in a child process with a 3 GB address-space limit so a
    regression cannot take the machine's memory."""
    code = textwrap.dedent(
        """
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, resource.RLIM_INFINITY))
        import numpy as np, bayeseval as B
        for R in (np.array([[0, 10**12]]), np.array([[0.0, 1e12]])):
            for f in (lambda: B.pass_at_k(R, 1), lambda: B.bayes(R), lambda: B.pass_at_k_ci(R, 1)):
                try:
                    f()
                except MemoryError as e:
                    print("MemoryError", e); sys.exit(3)
                except ValueError as e:
                    assert "R" in str(e), e
                else:
                    sys.exit(4)
        """
    )
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, f"rc={done.returncode}\n{done.stdout}\n{done.stderr[-2000:]}"


# ----------------------------------------------------------------------------- k
K_CALLERS = {
    "pass_at_k": lambda k: B.pass_at_k(R_OK, k),
    "pass_hat_k": lambda k: B.pass_hat_k(R_OK, k),
    "unanimous_at_k": lambda k: B.unanimous_at_k(R_OK, k),
    "g_pass_at_k": lambda k: B.g_pass_at_k(R_OK, k),
    "g_pass_at_k_tau": lambda k: B.g_pass_at_k_tau(R_OK, k, 0.5),
    "mg_pass_at_k": lambda k: B.mg_pass_at_k(R_OK, k),
    "maj_at_k": lambda k: B.maj_at_k(R_OK, k),
    "auc_at_k": lambda k: B.auc_at_k(R_OK, k),
    "max_at_k": lambda k: B.max_at_k(R_OK, k),
    "max_at_k(w)": lambda k: B.max_at_k(RC_OK, k, W_OK),
    "threshold_spectrum_at_k": lambda k: B.threshold_spectrum_at_k(R_OK, k, [0.5, 0.5]),
    "geom_at_k": lambda k: B.geom_at_k(R_OK, k),
    "geom_ds_at_k": lambda k: B.geom_ds_at_k(R_OK, k),
    "geo_spectrum_at_k": lambda k: B.geo_spectrum_at_k(R_OK, k),
    "geo_spectrum_star_at_k": lambda k: B.geo_spectrum_star_at_k(R_OK, k),
}
K_CI_CALLERS = {
    "pass_at_k_ci": lambda k: B.pass_at_k_ci(R_OK, k),
    "pass_hat_k_ci": lambda k: B.pass_hat_k_ci(R_OK, k),
    "unanimous_at_k_ci": lambda k: B.unanimous_at_k_ci(R_OK, k),
    "g_pass_at_k_ci": lambda k: B.g_pass_at_k_ci(R_OK, k),
    "g_pass_at_k_tau_ci": lambda k: B.g_pass_at_k_tau_ci(R_OK, k, 0.5),
    "mg_pass_at_k_ci": lambda k: B.mg_pass_at_k_ci(R_OK, k),
    "maj_at_k_ci": lambda k: B.maj_at_k_ci(R_OK, k),
    "auc_at_k_ci": lambda k: B.auc_at_k_ci(R_OK, k),
    "max_at_k_ci": lambda k: B.max_at_k_ci(R_OK, k),
    "max_at_k_ci(w)": lambda k: B.max_at_k_ci(RC_OK, k, W_OK),
    "threshold_spectrum_at_k_ci": lambda k: B.threshold_spectrum_at_k_ci(R_OK, k, [0.5, 0.5]),
    "geom_at_k_ci": lambda k: B.geom_at_k_ci(R_OK, k),
    "geom_ds_at_k_ci": lambda k: B.geom_ds_at_k_ci(R_OK, k),
    "geo_spectrum_at_k_ci": lambda k: B.geo_spectrum_at_k_ci(R_OK, k),
    "geo_spectrum_star_at_k_ci": lambda k: B.geo_spectrum_star_at_k_ci(R_OK, k),
}
ALL_K = {**K_CALLERS, **K_CI_CALLERS}
BAD_K_TYPES = [2.0, 2.5, np.float64(2.0), True, False, np.bool_(True), "2", None, 2 + 0j, [2], np.array([2])]


@pytest.mark.parametrize("caller", list(ALL_K), ids=list(ALL_K))
@pytest.mark.parametrize("k", [0, -1, -(10**12)], ids=["0", "-1", "-1e12"])
def test_k_below_one(caller, k):
    value_error(lambda: ALL_K[caller](k), r"\bk\b")


@pytest.mark.parametrize("caller", list(ALL_K), ids=list(ALL_K))
@pytest.mark.parametrize("k", BAD_K_TYPES, ids=[repr(k) for k in BAD_K_TYPES])
def test_k_not_an_integer(caller, k):
    type_error(lambda: ALL_K[caller](k), r"\bk\b")


@pytest.mark.parametrize("caller", list(K_CALLERS), ids=list(K_CALLERS))
def test_k_above_N_for_point_estimates(caller):
    if caller.startswith("threshold"):  # needs k weights
        fn = lambda: B.threshold_spectrum_at_k(R_OK, 6, np.full(6, 1 / 6))  # noqa: E731
    else:
        fn = lambda: K_CALLERS[caller](6)  # noqa: E731
    e = value_error(fn, r"\bk\b")
    assert "N=5" in str(e) or "n=" in str(e)


def test_numpy_integer_k_is_accepted():
    for k in (np.int8(2), np.int64(2), np.uint16(2)):
        assert B.pass_at_k(R_OK, k) == B.pass_at_k(R_OK, 2)
        assert B.pass_at_k_ci(R_OK, k) == B.pass_at_k_ci(R_OK, 2)


@pytest.mark.parametrize("fname", ["pass_at_k", "maj_at_k", "geom_at_k", "geo_spectrum_at_k", "max_at_k"])
def test_k_above_n_of_one_ragged_question_names_it(fname):
    rows = [[0, 1, 1, 0], [1, 0, 1], [1], [0, 1, 1, 1]]
    c = to_counts(rows, ragged=True, ids=["alpha", "beta", "gamma", "delta"])
    e = value_error(lambda: getattr(B, fname)(c, 2), r"\bk\b")
    assert "'gamma'" in str(e) and "alpha" not in str(e) and "beta" not in str(e)
    c = to_counts(rows, ragged=True)
    e = value_error(lambda: getattr(B, fname)(c, 2), r"question")
    assert "2" in str(e)  # the index of the short question
    # the posterior accepts it
    assert all(math.isfinite(x) for x in B.pass_at_k_ci(c, 2))


# ----------------------------------------------------------------------------- tau
TAU_CALLERS = {
    "g_pass_at_k_tau": lambda tau: B.g_pass_at_k_tau(R_OK, 2, tau),
    "g_pass_at_k_tau_ci": lambda tau: B.g_pass_at_k_tau_ci(R_OK, 2, tau),
}


@pytest.mark.parametrize("caller", list(TAU_CALLERS))
@pytest.mark.parametrize("tau", [-0.1, 1.1, -1e-12, 1 + 1e-12, np.nan, np.inf, -np.inf])
def test_tau_bad_value(caller, tau):
    value_error(lambda: TAU_CALLERS[caller](tau), r"\btau\b")


@pytest.mark.parametrize("caller", list(TAU_CALLERS))
@pytest.mark.parametrize("tau", ["0.5", None, True, [0.5], 0.5j])
def test_tau_bad_type(caller, tau):
    type_error(lambda: TAU_CALLERS[caller](tau), r"\btau\b")


# ----------------------------------------------------------------------------- w
W_CALLERS = {
    "bayes": lambda R, w: B.bayes(R, w),
    "bayes_ci": lambda R, w: B.bayes_ci(R, w),
    "avg": lambda R, w: B.avg(R, w),
    "avg_ci": lambda R, w: B.avg_ci(R, w),
    "max_at_k": lambda R, w: B.max_at_k(R, 2, w),
    "max_at_k_ci": lambda R, w: B.max_at_k_ci(R, 2, w),
    "to_counts": lambda R, w: to_counts(R, w),
}
BAD_W_VALUES = {
    "too-short": [0.0, 1.0],
    "length-1": [0.5],
    "empty": [],
    "nan": [0.0, np.nan, 1.0],
    "inf": [0.0, np.inf, 1.0],
    "-inf": [-np.inf, 0.0, 1.0],
    "2-D": [[0.0, 0.5, 1.0]],
}
BAD_W_TYPES = {
    "string": "abc",
    "strings": ["0", "0.5", "1"],
    "None-inside": [0.0, None, 1.0],
    "complex": [0.0, 0.5j, 1.0],
    "dict": {"a": 1},
}


@pytest.mark.parametrize("caller", list(W_CALLERS))
@pytest.mark.parametrize("bad", list(BAD_W_VALUES))
def test_w_bad_value(caller, bad):
    value_error(lambda: W_CALLERS[caller](RC_OK, BAD_W_VALUES[bad]), r"\bw\b")


@pytest.mark.parametrize("caller", list(W_CALLERS))
@pytest.mark.parametrize("bad", list(BAD_W_TYPES))
def test_w_bad_type(caller, bad):
    type_error(lambda: W_CALLERS[caller](RC_OK, BAD_W_TYPES[bad]), r"\bw\b")


@pytest.mark.parametrize("caller", list(W_CALLERS))
def test_w_too_long_when_categories_were_fixed(caller):
    fixed = [
        Counts.from_table([[2, 3], [1, 4]]),
        to_counts(R_OK, categories=2),
        to_counts(RC_OK, W_OK),
    ]
    for counts, w in zip(fixed, ([0.0, 0.5, 1.0], [0.0, 0.5, 1.0], [0.0, 0.25, 0.5, 1.0])):
        value_error(lambda: W_CALLERS[caller](counts, w), r"\bw\b")
    # and too short for a fixed table
    value_error(lambda: W_CALLERS[caller](Counts.from_table([[2, 3, 1], [1, 4, 0]]), [0.0, 1.0]), r"\bw\b")


def test_w_and_categories_disagree_in_to_counts():
    value_error(lambda: to_counts(RC_OK, [0.0, 0.5, 1.0], categories=4), r"\bw\b")
    value_error(lambda: Counts.from_table([[2, 3], [1, 4]], w=[0.0, 0.5, 1.0]), r"\bw\b")


# ----------------------------------------------------------------------------- confidence, bounds, priors
CI_CALLERS = {
    "pass_at_k_ci": lambda **kw: B.pass_at_k_ci(R_OK, 2, **kw),
    "pass_hat_k_ci": lambda **kw: B.pass_hat_k_ci(R_OK, 2, **kw),
    "g_pass_at_k_ci": lambda **kw: B.g_pass_at_k_ci(R_OK, 2, **kw),
    "g_pass_at_k_tau_ci": lambda **kw: B.g_pass_at_k_tau_ci(R_OK, 2, 0.5, **kw),
    "mg_pass_at_k_ci": lambda **kw: B.mg_pass_at_k_ci(R_OK, 2, **kw),
    "maj_at_k_ci": lambda **kw: B.maj_at_k_ci(R_OK, 2, **kw),
    "auc_at_k_ci": lambda **kw: B.auc_at_k_ci(R_OK, 2, **kw),
    "threshold_spectrum_at_k_ci": lambda **kw: B.threshold_spectrum_at_k_ci(R_OK, 2, [0.5, 0.5], **kw),
    "geom_at_k_ci": lambda **kw: B.geom_at_k_ci(R_OK, 2, **kw),
    "geom_ds_at_k_ci": lambda **kw: B.geom_ds_at_k_ci(R_OK, 2, **kw),
    "geo_spectrum_at_k_ci": lambda **kw: B.geo_spectrum_at_k_ci(R_OK, 2, **kw),
    "geo_spectrum_star_at_k_ci": lambda **kw: B.geo_spectrum_star_at_k_ci(R_OK, 2, **kw),
    "bernstein_at_k_ci": lambda **kw: B.bernstein_at_k_ci(R_OK, [0, 1, 1], **kw),
}
DIRICHLET_CI_CALLERS = {
    "bayes_ci": lambda **kw: B.bayes_ci(RC_OK, W_OK, **kw),
    "avg_ci": lambda **kw: B.avg_ci(RC_OK, W_OK, **kw),
    "max_at_k_ci": lambda **kw: B.max_at_k_ci(RC_OK, 2, W_OK, **kw),
    "bayes_ci(binary)": lambda **kw: B.bayes_ci(R_OK, **kw),
}
ALL_CI = {**CI_CALLERS, **DIRICHLET_CI_CALLERS}


@pytest.mark.parametrize("caller", list(ALL_CI))
@pytest.mark.parametrize("confidence", [0, 1, 0.0, 1.0, -0.1, 1.5, np.nan, np.inf, -np.inf])
def test_confidence_bad_value(caller, confidence):
    value_error(lambda: ALL_CI[caller](confidence=confidence), r"\bconfidence\b")


@pytest.mark.parametrize("caller", list(ALL_CI))
@pytest.mark.parametrize("confidence", [True, False, np.bool_(True), "0.95", None, [0.95], 0.95j])
def test_confidence_bad_type(caller, confidence):
    type_error(lambda: ALL_CI[caller](confidence=confidence), r"\bconfidence\b")


@pytest.mark.parametrize("caller", list(ALL_CI))
@pytest.mark.parametrize("bounds", [(1.0, 0.0), (0.7, 0.2), (np.nan, 1.0), (0.0, np.nan), (np.inf, -np.inf)],
                         ids=["reversed", "reversed2", "nan-lo", "nan-hi", "inf-reversed"])
def test_bounds_bad_value(caller, bounds):
    value_error(lambda: ALL_CI[caller](bounds=bounds), r"\bbounds")


@pytest.mark.parametrize("caller", list(ALL_CI))
@pytest.mark.parametrize("bounds", [(0.0,), (0.0, 0.5, 1.0), (), np.zeros((2, 2))],
                         ids=["len1", "len3", "empty", "2x2"])
def test_bounds_wrong_length(caller, bounds):
    either_error(lambda: ALL_CI[caller](bounds=bounds), r"\bbounds")


@pytest.mark.parametrize("caller", list(ALL_CI))
@pytest.mark.parametrize("bounds", ["ab", 0.5, ("0", "1"), (None, 1.0), (True, 1.0)],
                         ids=["str", "scalar", "str-pair", "None-inside", "bool-inside"])
def test_bounds_bad_type(caller, bounds):
    type_error(lambda: ALL_CI[caller](bounds=bounds), r"\bbounds")


@pytest.mark.parametrize("caller", list(CI_CALLERS))
@pytest.mark.parametrize("name", ["alpha0", "beta0"])
@pytest.mark.parametrize("value", [0, 0.0, -1.0, -1e-300, np.inf, -np.inf, np.nan])
def test_beta_prior_bad_value(caller, name, value):
    value_error(lambda: CI_CALLERS[caller](**{name: value}), rf"\b{name}\b")


@pytest.mark.parametrize("caller", list(CI_CALLERS))
@pytest.mark.parametrize("name", ["alpha0", "beta0"])
@pytest.mark.parametrize("value", ["1", None, True, [1.0], 1j])
def test_beta_prior_bad_type(caller, name, value):
    type_error(lambda: CI_CALLERS[caller](**{name: value}), rf"\b{name}\b")


# ----------------------------------------------------------------------------- R0
R0_CALLERS = {
    "bayes": lambda R0: B.bayes(RC_OK, W_OK, R0),
    "bayes_ci": lambda R0: B.bayes_ci(RC_OK, W_OK, R0),
    "max_at_k_ci": lambda R0: B.max_at_k_ci(RC_OK, 2, W_OK, R0),
    "bayes(binary)": lambda R0: B.bayes(R_OK, None, R0),
}
BAD_R0_VALUES = {
    "one-row-too-few": np.array([[0, 1]]),
    "one-row-too-many": np.array([[0, 1], [1, 1], [0, 0]]),
    "category-beyond-w": np.array([[0, 3], [1, 1]]),
    "nan": np.array([[0.0, np.nan], [1.0, 1.0]]),
    "0.5": np.array([[0.0, 0.5], [1.0, 1.0]]),
    "negative": np.array([[0, -1], [1, 1]]),
    "3-D": np.zeros((2, 1, 1), dtype=int),
    "ragged": [[0, 1], [1]],
}
BAD_R0_TYPES = {"string": "ab", "None-inside": [[0, None], [1, 1]], "complex": np.array([[0, 1j], [1, 1]])}


@pytest.mark.parametrize("caller", list(R0_CALLERS))
@pytest.mark.parametrize("bad", list(BAD_R0_VALUES))
def test_R0_bad_value(caller, bad):
    R0 = BAD_R0_VALUES[bad]
    if caller == "bayes(binary)" and bad == "category-beyond-w":
        R0 = np.array([[0, 2], [1, 1]])  # w = (0, 1) here
    value_error(lambda: R0_CALLERS[caller](R0), r"\bR0\b")


@pytest.mark.parametrize("caller", list(R0_CALLERS))
@pytest.mark.parametrize("bad", list(BAD_R0_TYPES))
def test_R0_bad_type(caller, bad):
    type_error(lambda: R0_CALLERS[caller](BAD_R0_TYPES[bad]), r"\bR0\b")


# ----------------------------------------------------------------------------- spectrum weights, lam, powers
SPECTRUM_CALLERS = {
    "threshold_spectrum_at_k": lambda wts: B.threshold_spectrum_at_k(R_OK, 3, wts),
    "threshold_spectrum_at_k_ci": lambda wts: B.threshold_spectrum_at_k_ci(R_OK, 3, wts),
    "geo_spectrum_at_k": lambda wts: B.geo_spectrum_at_k(R_OK, 3, 0.5, wts),
    "geo_spectrum_at_k_ci": lambda wts: B.geo_spectrum_at_k_ci(R_OK, 3, 0.5, wts),
    "geo_spectrum_at_k(lam=0)": lambda wts: B.geo_spectrum_at_k(R_OK, 3, 0.0, wts),
}
BAD_SPECTRUM = {
    "too-short": [0.5, 0.5],
    "too-long": [0.25, 0.25, 0.25, 0.25],
    "negative": [0.5, -0.1, 0.5],
    "sum-above-1": [0.5, 0.3, 0.3],
    "nan": [0.1, np.nan, 0.1],
    "inf": [0.1, np.inf, 0.0],
    "2-D": [[0.1, 0.1, 0.1]],
    "empty": [],
}


@pytest.mark.parametrize("caller", list(SPECTRUM_CALLERS))
@pytest.mark.parametrize("bad", list(BAD_SPECTRUM))
def test_spectrum_weights_bad_value(caller, bad):
    value_error(lambda: SPECTRUM_CALLERS[caller](BAD_SPECTRUM[bad]), r"\bweights\b")


@pytest.mark.parametrize("caller", list(SPECTRUM_CALLERS))
@pytest.mark.parametrize("bad", ["abc", ["0.1", "0.1", "0.1"], [0.1, None, 0.1]])
def test_spectrum_weights_bad_type(caller, bad):
    type_error(lambda: SPECTRUM_CALLERS[caller](bad), r"\bweights\b")


def test_threshold_spectrum_weights_are_required():
    type_error(lambda: B.threshold_spectrum_at_k(R_OK, 3, None), r"\bweights\b")


LAM_CALLERS = {
    "geo_spectrum_at_k": lambda **kw: B.geo_spectrum_at_k(R_OK, 2, **kw),
    "geo_spectrum_at_k_ci": lambda **kw: B.geo_spectrum_at_k_ci(R_OK, 2, **kw),
}


@pytest.mark.parametrize("caller", list(LAM_CALLERS))
@pytest.mark.parametrize("name", ["lam", "lambda_"])
@pytest.mark.parametrize("lam", [-0.1, 1.1, -1e-9, np.nan, np.inf])
def test_lam_bad_value(caller, name, lam):
    value_error(lambda: LAM_CALLERS[caller](**{name: lam}), r"\blam")


@pytest.mark.parametrize("caller", list(LAM_CALLERS))
@pytest.mark.parametrize("lam", ["0.5", True, [0.5]])
def test_lam_bad_type(caller, lam):
    type_error(lambda: LAM_CALLERS[caller](lam=lam), r"\blam\b")


@pytest.mark.parametrize("caller", list(LAM_CALLERS))
def test_lam_and_lambda_both_given(caller):
    with pytest.raises(TypeError, match=r"lam.*lambda_|lambda_.*lam"):
        LAM_CALLERS[caller](lam=0.3, lambda_=0.4)


POWER_CALLERS = {
    "geom_at_k": lambda *a: B.geom_at_k(R_OK, 2, *a),
    "geom_ds_at_k": lambda *a: B.geom_ds_at_k(R_OK, 2, *a),
    "geom_at_k_ci": lambda *a: B.geom_at_k_ci(R_OK, 2, *a),
    "geom_ds_at_k_ci": lambda *a: B.geom_ds_at_k_ci(R_OK, 2, *a),
}


@pytest.mark.parametrize("caller", list(POWER_CALLERS))
def test_powers_bad(caller):
    f = POWER_CALLERS[caller]
    value_error(lambda: f(0, 0), r"pass_power.*unanimous_power")
    value_error(lambda: f(0.0, 0.0), r"pass_power.*unanimous_power")
    value_error(lambda: f(np.nan, 0.5), r"\bpass_power\b")
    value_error(lambda: f(0.5, np.inf), r"\bunanimous_power\b")
    type_error(lambda: f("0.5", 0.5), r"\bpass_power\b")
    type_error(lambda: f(0.5, None), r"\bunanimous_power\b")
    type_error(lambda: f(True, 0.5), r"\bpass_power\b")


# ----------------------------------------------------------------------------- bernstein payoff vector
@pytest.mark.parametrize("fname", ["bernstein_at_k", "bernstein_at_k_ci"])
def test_bernstein_payoffs_bad(fname):
    f = getattr(B, fname)
    value_error(lambda: f(R_OK, [0.0, np.nan]), r"\bc\b")
    value_error(lambda: f(R_OK, [0.0, np.inf, 1.0]), r"\bc\b")
    value_error(lambda: f(R_OK, [1.0]), r"\bc\b")
    value_error(lambda: f(R_OK, []), r"\bc\b")
    value_error(lambda: f(R_OK, [[0.0, 1.0]]), r"\bc\b")
    type_error(lambda: f(R_OK, "01"), r"\bc\b")
    type_error(lambda: f(R_OK, [0, None]), r"\bc\b")


# ----------------------------------------------------------------------------- to_counts / Counts
def test_mask_wrong_shape():
    value_error(lambda: to_counts(R_OK, mask=np.zeros((2, 4), bool)), r"\bmask\b")
    value_error(lambda: to_counts(R_OK, mask=np.zeros((5, 2), bool)), r"\bmask\b")
    value_error(lambda: to_counts(R_OK, mask=np.zeros(10, bool)), r"\bmask\b")


@pytest.mark.parametrize("mask", [np.zeros((2, 5), int), np.zeros((2, 5)), np.full((2, 5), "a"), "mask"],
                         ids=["int", "float", "str-array", "str"])
def test_mask_not_boolean(mask):
    type_error(lambda: to_counts(R_OK, mask=mask), r"\bmask\b")


def test_mask_with_ragged():
    value_error(lambda: to_counts([[0, 1], [1]], ragged=True, mask=np.zeros((2, 2), bool)), r"\bmask\b")


@pytest.mark.parametrize("ids", [["a"], ["a", "b", "c"], [["a", "b"]], []], ids=["short", "long", "2-D", "empty"])
def test_ids_wrong_length(ids):
    value_error(lambda: to_counts(R_OK, ids=ids), r"\bids\b")


@pytest.mark.parametrize("ids", [["a", "a"], [1, 1], [np.nan, np.nan]], ids=["str", "int", "nan"])
def test_ids_duplicated(ids):
    value_error(lambda: to_counts(R_OK, ids=ids), r"\bids\b")


def test_dataframe_with_duplicated_index():
    df = pd.DataFrame(R_OK, index=["q", "q"])
    value_error(lambda: to_counts(df), r"\bids\b")


@pytest.mark.parametrize("make", [
    lambda: to_counts(np.array([[0.0, 1.0], [np.nan, np.nan]]), missing=np.nan),
    lambda: to_counts(R_OK, mask=np.array([[0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], bool)),
    lambda: to_counts([[0, 1], []], ragged=True),
    lambda: to_counts(np.array([[0, 1], [-1, -1]]), missing=-1),
    lambda: Counts.from_table([[1, 2], [0, 0]]),
], ids=["nan-marker", "mask", "ragged-empty-row", "marker-value", "table"])
def test_question_with_no_observed_trial(make):
    e = value_error(make, r"question")
    assert "1" in str(e)  # names the empty question


def test_question_with_no_observed_trial_named_by_id():
    e = value_error(lambda: to_counts(np.array([[0.0, 1.0], [np.nan, np.nan]]), missing=np.nan, ids=["x", "y"]),
                    r"question")
    assert "'y'" in str(e)


def test_nan_without_missing_marker_mentions_missing():
    e = value_error(lambda: to_counts(np.array([[0.0, np.nan]])), r"\bR\b")
    assert "missing" in str(e)
    # a mask that does not cover the NaN is not enough
    value_error(lambda: to_counts(np.array([[0.0, np.nan]]), mask=np.array([[True, False]])), r"R\[0, 1\]")


def test_to_counts_option_types():
    type_error(lambda: to_counts(R_OK, ragged="yes"), r"\bragged\b")
    type_error(lambda: to_counts(R_OK, missing="x"), r"\bmissing\b")
    type_error(lambda: to_counts(R_OK, categories=2.0), r"\bcategories\b")
    value_error(lambda: to_counts(R_OK, categories=1), r"\bcategories\b")
    value_error(lambda: to_counts(RC_OK, categories=2), r"\bR\b")
    type_error(lambda: to_counts(5, ragged=True), r"\bR\b")
    type_error(lambda: to_counts([[0, 1], "ab"], ragged=True), r"R\[1\]")
    value_error(lambda: to_counts([[0, 1], [[1]]], ragged=True), r"R\[1\]")
    value_error(lambda: to_counts([], ragged=True), r"\bR\b")


def test_count_table_bad():
    value_error(lambda: Counts.from_table([[1, -1]]), r"\btable\b")
    value_error(lambda: Counts.from_table([[1, 0.5]]), r"\btable\b")
    value_error(lambda: Counts.from_table([[1, np.nan]]), r"\btable\b")
    value_error(lambda: Counts.from_table([[1], [2]]), r"table")
    value_error(lambda: Counts.from_table([1, 2]), r"\btable\b")
    value_error(lambda: Counts.from_table(np.zeros((0, 2), int)), r"\btable\b")
    type_error(lambda: Counts.from_table("12"), r"\btable\b")
    type_error(lambda: Counts.from_table([["1", "2"]]), r"\btable\b")
    type_error(lambda: Counts.concat([]), r"concat")
    type_error(lambda: Counts.concat([R_OK]), r"concat")
    value_error(lambda: to_counts([[0, 1]]) + to_counts([[0, 1], [1, 1]]), r"questions")
    value_error(lambda: Counts.concat([to_counts([[0, 1]], ids=["a"]), to_counts([[1, 1]])]), r"ids")
    value_error(lambda: to_counts([[0, 1]], ids=["a"]) + to_counts([[1, 1]], ids=["b"]), r"ids")


# ----------------------------------------------------------------------------- valid but adversarial inputs
ADVERSARIAL = {
    "zeros": np.zeros((4, 5), dtype=int),
    "ones": np.ones((4, 5), dtype=int),
    "N=1": np.array([[0], [1], [1]]),
    "M=1": np.array([[0, 1, 1, 0, 1, 1]]),
    "M=N=1 zero": np.zeros((1, 1), dtype=int),
    "M=N=1 one": np.ones((1, 1), dtype=int),
    "1-D": np.array([1, 1, 0]),
    "bool": np.array([[True, False, True], [True, True, True]]),
    "float": np.array([[1.0, 0.0], [0.0, 0.0]]),
    "zeros-and-ones": np.r_[np.zeros((3, 8), int), np.ones((2, 8), int)],
}


def _finite(v):
    arr = np.atleast_1d(np.asarray(v, dtype=float))
    return bool(np.all(np.isfinite(arr)))


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_no_nan_for_valid_adversarial_inputs(name):
    R = ADVERSARIAL[name]
    N = np.atleast_2d(R).shape[1]
    results = {}
    for k in sorted({1, N}):
        for f in ("pass_at_k", "pass_hat_k", "unanimous_at_k", "g_pass_at_k", "mg_pass_at_k", "maj_at_k",
                  "auc_at_k", "geo_spectrum_star_at_k", "geom_at_k", "geom_ds_at_k", "max_at_k"):
            results[f"{f}@{k}"] = getattr(B, f)(R, k)
            for kk in (k, k + 1, 50):
                results[f"{f}_ci@{kk}"] = getattr(B, f + "_ci")(R, kk)
        for tau in (0.0, 0.5, 1.0):
            results[f"gtau{tau}@{k}"] = B.g_pass_at_k_tau(R, k, tau)
            results[f"gtau_ci{tau}@{k}"] = B.g_pass_at_k_tau_ci(R, k, tau, alpha0=0.1, beta0=5.0)
        wts = np.full(k, 1.0 / k)
        results[f"ts@{k}"] = B.threshold_spectrum_at_k(R, k, wts)
        results[f"ts_ci@{k}"] = B.threshold_spectrum_at_k_ci(R, k, wts, alpha0=5.0, beta0=0.1)
        for lam in (0.0, 0.25, 1.0):
            results[f"gs{lam}@{k}"] = B.geo_spectrum_at_k(R, k, lam)
            results[f"gs_ci{lam}@{k}"] = B.geo_spectrum_at_k_ci(R, k, lam)
        for a, b in ((1.0, 0.0), (0.0, 1.0), (2.0, 3.0)):
            results[f"geom{a},{b}@{k}"] = B.geom_at_k(R, k, a, b)
            results[f"geom_ci{a},{b}@{k}"] = B.geom_at_k_ci(R, k, a, b)
            results[f"geomds_ci{a},{b}@{k}"] = B.geom_ds_at_k_ci(R, k, a, b)
        results[f"bern@{k}"] = B.bernstein_at_k(R, np.r_[np.zeros(k), 1.0])
        results[f"bern_ci@{k}"] = B.bernstein_at_k_ci(R, np.r_[np.zeros(k), 1.0])
    for f in ("bayes", "bayes_ci", "avg", "avg_ci"):
        results[f] = getattr(B, f)(R)
        results[f + "(w)"] = getattr(B, f)(R, [0.0, 1.0, 2.0])
    results["max_ci(w)"] = B.max_at_k_ci(R, 3, [2.0, -1.0, 0.0])
    bad = {key: v for key, v in results.items() if not _finite(v)}
    assert not bad
    for key, v in results.items():  # binary-metric summaries stay in [0, 1]
        if "(w)" not in key:
            mu = v[0] if isinstance(v, tuple) else v
            assert 0.0 <= mu <= 1.0, f"{key} = {v!r}"


@pytest.mark.parametrize("w", [[0.0, 1e200, 2e200], [0.0, 1e300, -1e300], [-1e-300, 0.0, 5e-324]],
                         ids=["1e200", "1e300", "tiny"])
def test_no_inf_for_extreme_but_finite_weights(w):
    """Finite weights give finite summaries (scorio rescales rewards; sigma must not overflow)."""
    R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    for f in (lambda: B.bayes(R, w), lambda: B.bayes_ci(R, w), lambda: B.avg(R, w), lambda: B.avg_ci(R, w),
              lambda: B.max_at_k(R, 2, w), lambda: B.max_at_k_ci(R, 2, w), lambda: B.max_at_k_ci(R, 9, w)):
        v = f()
        assert _finite(v), v


def test_many_trials_do_not_warn():
    R = np.ones((2, 20000), dtype=np.int8)
    R[0, ::3] = 0
    for v in (B.pass_at_k(R, 10000), B.maj_at_k(R, 20000), B.pass_at_k_ci(R, 7), B.bayes_ci(R), B.avg_ci(R),
              B.max_at_k_ci(R, 300)):
        assert _finite(v)


@pytest.mark.parametrize("metric", ["pass@2", "pass^2", "maj@3", "geospectrum@2"])
def test_a_count_metric_refuses_weights_it_would_ignore(metric):
    """pass@k and its kin count the correct trials of 0/1 outcomes: weights other than [0, 1] used to be ignored
    without a word (pass@2 was 0.667 with w=[1, 0] and w=[0, 0.5] alike)."""
    R = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0]])
    warnings.simplefilter("ignore")  # the model checks' warnings on four questions are not the point here
    plain = B.estimate(R, metric).value
    assert B.estimate(R, metric, w=[0, 1]).value == plain  # 0/1 scored 0 and 1: the metric's own reading
    for w in ([1, 0], [0, 0.5]):
        with pytest.raises(ValueError, match=rf"w: {re.escape(metric)}( \(lam=0.5\))? counts the correct trials of 0/1 outcomes.*"
                                             rf"got w=\[{w[0]:.1f}, {w[1]:.1f}\]"):
            B.estimate(R, metric, w=w)


def test_a_comparison_refuses_one_dimensional_outcomes():
    """A flat vector reads as one question with N trials; compare used to answer "undecided: only 1 of 1 questions
    differ" for 200 questions given as a vector.  compare, compare_all and plan refuse it and say how to reshape."""
    rng = np.random.default_rng(0)
    a, b = rng.binomial(1, 0.8, 200), rng.binomial(1, 0.4, 200)
    msg = r"A is one-dimensional \(200 values\), which reads as one question with 200 trials.*reshape\(-1, 1\)"
    value_error(lambda: B.compare(a, b), msg)
    value_error(lambda: B.compare(list(a), b.reshape(-1, 1)), msg)
    value_error(lambda: B.plan(a, b), msg)
    value_error(lambda: B.compare_all({"x": a.reshape(-1, 1), "y": b}), r"y is one-dimensional")
    warnings.simplefilter("ignore")
    assert B.compare(a.reshape(-1, 1), b.reshape(-1, 1)).decision == "A"  # the same data as a matrix
    assert B.compare([[1, 0], [1]], [[0, 0], [1]], ragged=True).M == 2  # ragged rows are not one-dimensional


@pytest.mark.parametrize("record, message", [
    ('{"model":"a","question":[1,2],"score":1}', r"line 2: column 'question' \(question id\) is list \[1, 2\]"),
    ('{"model":"a","question":true,"score":1}', r"line 2: column 'question' \(question id\) is bool True"),
    ('{"model":{"n":1},"question":"q","score":1}', r"line 2: column 'model' \(model\) is dict"),
])
def test_ids_and_names_are_text_or_numbers(tmp_path, record, message):
    """A list or dict id used to surface as Python's 'unhashable type' and a boolean id merged with question 1."""
    p = tmp_path / "runs.jsonl"
    p.write_text('{"model":"a","question":"q0","score":0}\n' + record + "\n")
    value_error(lambda: B.load(p), message)


def test_ids_that_differ_only_by_surrounding_spaces_are_one_question(tmp_path):
    p = tmp_path / "runs.csv"
    p.write_text("model,question,score\na,q1,1\n a,q1 ,0\na,q2,1\n")
    s = B.load(p)
    assert s.models == ["a"] and s.run("a").ids == ("q1", "q2")
    np.testing.assert_array_equal(s.matrix("a"), [[1, 0], [1, np.nan]])


@pytest.mark.parametrize("argv, message", [
    (["compare", "a.csv", "b.csv", "--level", "95"], "bayeseval compare: error: argument --level: expected a number"),
    (["repor", "x.csv"], "bayeseval: error: argument command: invalid choice: 'repor'"),
    (["report"], "bayeseval report: error: the following arguments are required: PATH"),
])
def test_a_bad_command_line_option_is_one_line_and_exit_2(capsys, argv, message):
    from bayeseval.cli import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message) and err[0].endswith("--help)")


def test_one_partial_credit_value_asks_for_the_scale(tmp_path):
    """Every score 0.5: one category says nothing of the scale; it failed deep inside with 'weights must be a finite
    vector with one value per category' and no file named."""
    p = tmp_path / "const.csv"
    p.write_text("model,question,score\na,q1,0.5\na,q2,0.5\nb,q1,1\nb,q2,0\n")
    value_error(lambda: B.load(p), r"const.csv: column 'score' \(model 'a'\): every score is 0.5.*score_range")
    warnings.simplefilter("ignore")
    assert B.load(p, score_range=(0, 1)).run("a").scale == (0.0, 1.0)


def test_nullable_pandas_columns_are_numbers():
    """Int64 / boolean columns (pandas' nullable dtypes) were refused as 'Python objects'; pd.NA is a missing trial
    under missing=np.nan, as NaN is."""
    R = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0]])
    warnings.simplefilter("ignore")
    assert B.estimate(pd.DataFrame(R).astype("Int64"), "pass@2").value == B.estimate(R, "pass@2").value
    assert B.estimate(pd.DataFrame(R.astype(bool)).astype("boolean"), "avg").value == 0.5
    df = pd.DataFrame(R).astype("Int64")
    df.iloc[0, 0] = pd.NA
    warnings.simplefilter("error")
    value_error(lambda: B.to_counts(df), r"R contains NaN at R\[0, 0\].*missing=np.nan")
    assert B.to_counts(df, missing=np.nan).n.tolist() == [2, 3, 3, 3]


def test_a_count_metric_on_scored_categories_says_they_are_not_0_1():
    G = np.array([[0, 1, 2], [2, 2, 1], [0, 0, 1]])
    value_error(lambda: B.estimate(G, "pass@2", w=[0, 0.5, 1]),
                r"pass@2 needs 0/1 outcomes; these have 3 categories scored 0, 0.5, 1 \(grades or partial credit\)")


def test_evaluate_refuses_an_empty_metric_list():
    value_error(lambda: B.evaluate({"a": np.ones((3, 2), int)}, []), r"metrics: give at least one metric")


def test_two_values_that_read_as_one_question_id(tmp_path):
    """ids 1 and "1" in one model failed with ", : ids must be unique" (no file, no model, no row)."""
    p = tmp_path / "mixq.jsonl"
    p.write_text('{"model":"a","question":1,"score":1}\n{"model":"a","question":"1","score":0}\n')
    value_error(lambda: B.load(p), r"mixq.jsonl \(dataset 'dataset', model 'a'\): lines 1 and 2: column 'question' "
                                   r"holds 1 and '1', two values that read as one question id")


def test_method_for_interval_is_pointed_at_interval():
    """compare_all(method='exact') said only "metric 'avg' takes no parameters ['method']"; the calls pass unknown
    keywords to the metric, and the error says so and names interval=."""
    A = np.ones((10, 2), int)
    for call in (lambda: B.compare_all({"a": A, "b": A, "c": A}, method="exact"),
                 lambda: B.evaluate(A, "avg", method="exact"), lambda: B.compare(A, A, metric="pass@2", method="hdi")):
        with pytest.raises(ValueError, match=r"takes .*\['method'\].*the interval method is interval=, e\.g\. "
                                             r"interval='exact'"):
            call()
