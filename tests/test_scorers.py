"""QA scorers: SQuAD normalisation, exact match, token F1 and GSM8K-style numbers against hand-computed cases,
and SQuAD v1.1's published evaluation logic re-implemented independently in the test."""

from __future__ import annotations

import re
import string
from collections import Counter

import numpy as np
import pytest

import bayeseval as be
from bayeseval.metrics.scorers import exact_match, extract_number, normalize_answer, numeric_match, score_answers, token_f1


@pytest.mark.parametrize("text, want", [
    ("The Cat", "cat"), ("an apple a day", "apple day"), ("  U.S.A.  ", "usa"), ("Theater", "theater"),
    ("rock-n-roll!", "rocknroll"), ("A", ""), ("", ""), ("café au lait", "café au lait"),
])
def test_normalisation(text, want):
    assert normalize_answer(text) == want


@pytest.mark.parametrize("pred, refs, em, f1", [
    ("Eiffel Tower", ["the eiffel tower"], 1.0, 1.0),
    ("Eiffel Tower in Paris", ["The Eiffel Tower"], 0.0, 2 * 2 / (4 + 2)),       # 2 common of 4 and 2 tokens
    ("Paris", ["Lyon", "paris."], 1.0, 1.0),                                      # max over references
    ("new york new york", ["new york"], 0.0, 2 * 2 / (4 + 2)),                    # multiset overlap: 2, not 4
    ("the", ["a"], 1.0, 1.0),                                                     # both normalise to empty
    ("the", ["Paris"], 0.0, 0.0),                                                 # one side empty
    ("George Washington", ["Washington, George"], 0.0, 1.0),                      # F1 ignores order
])
def test_exact_match_and_f1_hand_computed(pred, refs, em, f1):
    assert exact_match(pred, refs) == em
    assert token_f1(pred, refs) == pytest.approx(f1, abs=1e-15)


def _squad_f1(prediction, ground_truth):  # SQuAD v1.1 evaluate script's logic, written out here
    def norm(s):
        s = s.lower()
        s = "".join(ch for ch in s if ch not in set(string.punctuation))
        s = re.sub(r"\b(a|an|the)\b", " ", s)
        return " ".join(s.split())
    p, g = norm(prediction).split(), norm(ground_truth).split()
    common = Counter(p) & Counter(g)
    same = sum(common.values())
    if same == 0:
        return 0.0
    prec, rec = same / len(p), same / len(g)
    return 2 * prec * rec / (prec + rec)


def test_token_f1_equals_squad_v11_on_random_answers():
    rng = np.random.default_rng(0)
    vocab = ["the", "a", "paris", "france", "city", "of", "light", "capital", "Paris,", "an", "tower"]
    for _ in range(500):
        p = " ".join(rng.choice(vocab, rng.integers(1, 7)))
        g = " ".join(rng.choice(vocab, rng.integers(1, 7)))
        if normalize_answer(p) and normalize_answer(g):
            assert token_f1(p, [g]) == pytest.approx(_squad_f1(p, g), abs=1e-12)


@pytest.mark.parametrize("text, want", [
    ("Natalia sold 48/2 = 24 clips in May.\n#### 72", 72.0), ("so the answer is 1,234.", 1234.0),
    ("It costs $18.50", 18.5), ("-3 degrees", -3.0), ("no number here", None), ("#### 5 then 6", 5.0),
    ("about .5 of them", 0.5), (42, 42.0),
])
def test_extract_number(text, want):
    assert extract_number(text) == want


def test_numeric_match():
    assert numeric_match("#### 1,000", "1000") == 1.0
    assert numeric_match("the answer is 999", "1000") == 0.0
    assert numeric_match("no idea", "7") == 0.0
    assert numeric_match("0.30000000000000004", "0.3") == 1.0
    with pytest.raises(ValueError, match="reference 'seven' holds no number"):
        numeric_match("7", "seven")


def test_score_answers_feeds_the_estimators():
    preds = [["Paris", "paris!", "Lyon", "Paris"], ["4", "four", "five", "4"], ["x", "y", "z", "w"]]
    refs = ["Paris", ["4", "four"], "v"]
    em = score_answers(preds, refs, "em")
    np.testing.assert_array_equal(em, [[1, 1, 0, 1], [1, 1, 0, 1], [0, 0, 0, 0]])
    est = be.estimate(em.astype(int), "pass@2", scope="benchmark")
    assert est.value == pytest.approx(np.mean([1.0, 1.0, 0.0]))
    f1 = score_answers([["Eiffel Tower in Paris"]], [["The Eiffel Tower"]], "f1")
    assert f1.shape == (1, 1) and f1[0, 0] == pytest.approx(2 / 3)
    ragged = score_answers([["a1"], ["b", "b"]], ["a1", "b"])
    assert np.isnan(ragged[0, 1]) and ragged[1].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("call, match", [
    (lambda: score_answers(["a"], ["a", "b"]), "same questions: 1 and 2"),
    (lambda: score_answers(["a"], ["a"], "bleu"), "metric must be one of"),
    (lambda: exact_match(3, ["a"]), "an answer must be text"),
    (lambda: exact_match("a", []), "at least one acceptable answer"),
    (lambda: token_f1("a", [None]), "a reference answer must be text"),
])
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
