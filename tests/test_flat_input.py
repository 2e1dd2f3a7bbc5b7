"""A flat sequence of outcomes is ambiguous (M questions with one trial each, or one question with M trials): the
front doors refuse it with the two reshapes, as compare already did; to_counts keeps its documented reading."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayeseval as be
from bayeseval.counts import is_flat, to_counts

FLAT = [1, 0, 1, 1, 0, 1, 1, 1]


@pytest.mark.parametrize("R", [FLAT, tuple(FLAT), np.array(FLAT), np.array(FLAT, dtype=bool), pd.Series(FLAT)],
                         ids=["list", "tuple", "array", "bool array", "Series"])
def test_estimate_refuses_a_flat_sequence_naming_both_readings(R):
    with pytest.raises(ValueError, match=r"R is one-dimensional \(8 values\), which could be 8 questions with one "
                                         r"trial each or one question with 8 trials.*reshape\(-1, 1\)"):
        be.estimate(R, "avg")


def test_the_two_reshapes_give_the_two_readings():
    many = be.estimate(np.asarray(FLAT).reshape(-1, 1), "avg", scope="benchmark")
    one = be.estimate(np.asarray(FLAT).reshape(1, -1), "avg", scope="benchmark")
    assert many.value == one.value == 0.75
    assert (many.M, many.N) == (8, 1)  # the unit of sampling differs, and so does the interval
    assert (one.M, one.N) == (1, 8)
    assert to_counts(np.asarray(FLAT)).M == 1  # the counts layer's documented reading is unchanged


def test_evaluate_and_compare_refuse_flat_outcomes_per_model():
    with pytest.raises(ValueError, match=r"model 'a': its outcomes are one-dimensional \(8 values\)"):
        be.evaluate({"a": FLAT, "b": np.ones((8, 1))})
    with pytest.raises(ValueError, match=r"one-dimensional \(8 values\)"):
        be.compare(pd.Series(FLAT), np.ones((8, 1)))  # a Series too (it passed as one question)


def test_what_is_flat():
    assert is_flat(FLAT) and is_flat(np.arange(3)) and is_flat(pd.Series([0.5, 1.0]))
    assert not is_flat([[1, 0], [1]]) and not is_flat(np.zeros((2, 1))) and not is_flat([])
    assert not is_flat(np.array([[1, 0], [1]], dtype=object)) and not is_flat(["a", "b"])
