"""Findings of a first-time user's review (real data, the command line and the library), each with the case that
showed it."""
from __future__ import annotations

import numpy as np
import pytest

import bayeseval as be


pytestmark = pytest.mark.filterwarnings("ignore")


def test_an_undecided_rope_verdict_says_why():
    """With rope= the headline read "undecided." with no reason, where the same call without it named a winner."""
    data = be.load("examples/data/tot_game24.json")
    c = be.compare(data["gpt-4 CoT"], data["gpt-4 IO"], metric="pass@1", rope=0.01, seed=1)
    r = c.rope
    assert max(r["below"], r["inside"], r["above"]) < 0.95 and c.decision is None
    assert c.verdict == (f"undecided: no part of the ROPE split holds 95% of the posterior (below -0.01: "
                         f"{r['below']:.3f}, inside: {r['inside']:.3f}, above +0.01: {r['above']:.3f})")
    assert c.summary().startswith(c.verdict + ". pass@1: ")
    # 8 questions won, 2 lost of 60: the posterior puts 0.975 above the ROPE, the sign-flip mid-p is 0.065
    A, B = np.zeros((60, 1), int), np.zeros((60, 1), int)
    A[:8], B[8:10] = 1, 1
    c = be.compare(A, B, rope=0.001)
    assert c.rope["above"] >= 0.95 and c.permutation["mid_p"] == pytest.approx(0.0654296875)
    assert c.verdict.startswith("undecided: the paired sign-flip test does not confirm the side beyond the ROPE "
                                "(below -0.001: ")
