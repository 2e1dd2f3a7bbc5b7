"""Inputs that were accepted and answered wrongly or without bound, now refused naming the argument (from an
adversarial review): a repeated pass rule, lists inside JSON records, ragged label lists, score ranges too narrow
for the arithmetic, a Bradley-Terry prior too tight to compute with, a model named twice, and budgets and grids
that asked for unbounded memory."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bayeseval as be
from bayeseval.classification import classification
from bayeseval.cli import main
from bayeseval.pairwise import bradley_terry, from_long
from bayeseval.rubric import parse_constraints
from bayeseval.sequential import Sequential
from bayeseval.sequential.allocation import design


def test_a_dimension_with_two_rules_is_refused():
    with pytest.raises(ValueError, match=r"constraints: 'q' has two rules; give one minimum per dimension"):
        parse_constraints("q>=3,q>=4", ["q", "r"])
    assert parse_constraints("q>=3,r>=4", ["q", "r"]) == {"q": 3.0, "r": 4.0}


@pytest.mark.parametrize("command, records, field", [
    (["pairwise"], [{"item": 1, "model_a": {"n": "a"}, "model_b": "b", "winner": "model_a"},
                    {"item": 2, "model_a": "a", "model_b": "b", "winner": "model_b"}], "model_a"),
    (["classify", "--true", "true", "--pred", "pred"], [{"true": "a", "pred": "a"}, {"true": ["a"], "pred": "b"}],
     "true"),
])
def test_lists_and_objects_inside_json_records_are_refused(tmp_path, capsys, command, records, field):
    """They became model names and labels ("{'n': 'a'}" ranked as a model)."""
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records))
    assert main([command[0], str(path), *command[1:]]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bayeseval: error: ") and f"field {field!r} is a " in err and "one value" in err
    assert len(err.splitlines()) == 1


def test_ragged_label_lists_are_refused():
    with pytest.raises(ValueError, match=r"y_true must be a non-empty one-dimensional sequence of labels; position 0 "
                                         r"holds a list"):
        classification([[1, 0], [1]], [[1, 0], [1]])


def test_a_score_range_too_narrow_for_the_arithmetic_is_refused():
    """(0, 1e-308) gave a mean of 7.19e-310 for scores averaging 5.05e-310."""
    S = np.random.default_rng(0).random((20, 3))
    with pytest.raises(ValueError, match=r"score_range must be at least 1e-12 wide \(rescale the scores\)"):
        be.evaluate({"a": S * 1e-310}, score_range=(0, 1e-308))
    e = be.estimate(S * 1e-6, score_range=(0, 1e-6))  # narrow but computable: the same as on [0, 1]
    ref = be.estimate(S, score_range=(0, 1))
    assert (e.value, e.lo, e.hi) == pytest.approx((ref.value * 1e-6, ref.lo * 1e-6, ref.hi * 1e-6), rel=1e-6)


def test_a_bradley_terry_prior_too_tight_is_refused():
    df = pd.DataFrame({"item": range(6), "model_a": ["a", "b", "c"] * 2, "model_b": ["b", "c", "a"] * 2,
                       "winner": ["model_a", "model_b", "tie"] * 2})
    with pytest.raises(ValueError, match=r"prior_sd"):
        bradley_terry(from_long(df), prior_sd=1e-200)
    assert np.isfinite(list(bradley_terry(from_long(df), prior_sd=1e-3).strength.values())).all()


def test_a_model_named_twice_on_the_command_line_is_refused(tmp_path, capsys):
    rng = np.random.default_rng(1)
    rows = [{"model": m, "question": f"q{i}", "trial": t, "score": int(rng.random() < 0.6)}
            for m in "ab" for i in range(20) for t in range(2)]
    path = tmp_path / "long.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    assert main(["report", str(path), "--models", "a,a,b"]) == 2
    assert capsys.readouterr().err.strip() == "bayeseval: error: --models: 'a' is named twice; name each once"


def test_a_budget_beyond_the_trial_cap_and_a_huge_grid_are_refused():
    X = (np.random.default_rng(2).random((30, 4)) < 0.5).astype(int)
    with pytest.raises(ValueError, match=r"budget 1e\+09 spread over 30 questions gives 33333338 trials per question; "
                                         r"at most 20000"):
        design(X, budget=1e9)
    assert design(X, budget=1e4).var_more_trials > 0
    with pytest.raises(ValueError, match=r"grid = 10,000,000 is above the cap of 1,000,000"):
        Sequential(null=0.5, grid=10**7)


def test_from_long_reads_a_list_of_records_and_refuses_what_is_no_table():
    """A list of records said "item: no column 'item' in the data (columns: )"; None did too."""
    df = pd.DataFrame({"item": range(6), "model_a": ["a", "b", "c"] * 2, "model_b": ["b", "c", "a"] * 2,
                       "winner": ["model_a", "model_b", "tie"] * 2})
    assert bradley_terry(from_long(df.to_dict("records"))).strength == bradley_terry(from_long(df)).strength
    for bad in (None, df.to_numpy(), [1, 2]):
        with pytest.raises(TypeError, match=r"data must be a table: a DataFrame, a dict of columns or a list of "
                                            r"records \(dicts\), got"):
            from_long(bad)


@pytest.mark.parametrize("argv, line", [
    (["replay", "--alpha", "1e-300", "--replays", "100"], "bayeseval: error: --alpha = 1e-300 is too small: the "
     "fixed design's test level (one minus it) rounds to level 1 in double precision; give at least 1e-15"),
    (["replay", "--metric", "pass@8"], "bayeseval: error: pass@8 needs at least 8 trials per question, got "
                                        "--trials = 1"),
    (["rank", "--scores", "0,1e300"], "bayeseval: error: --scores must lie within +-1e+12 (rescale the scores), got "
                                      "(0, 1e+300)"),
    (["rank", "-o", "/nonexistent/folder/x.txt"], "bayeseval: error: /nonexistent/folder/x.txt: folder "
                                                  "/nonexistent/folder does not exist"),
])
def test_command_line_errors_name_the_option_the_user_typed(tmp_path, capsys, argv, line):
    """They named the library's level, score_range and trials, or gave an OSError's text after the work was done."""
    rng = np.random.default_rng(3)
    rows = [{"model": m, "question": f"q{i}", "trial": t, "score": int(rng.random() < 0.5)}
            for m in "ab" for i in range(30) for t in range(4)]
    path = tmp_path / "two.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    where = ["--data", str(path), "a", "b"] if argv[0] == "replay" else [str(path)]
    assert main([argv[0], *where, *argv[1:]]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == line


def test_compare_of_graded_outcomes_points_at_scores(capsys):
    from pathlib import Path

    tot = Path(__file__).resolve().parents[1] / "examples" / "data" / "tot_text.json"
    assert main(["compare", "--data", str(tot), "gpt-4 IO", "gpt-4 CoT"]) == 2
    err = capsys.readouterr().err.strip()
    assert "compare needs 0/1 outcomes or scores; 'gpt-4 IO'" in err and "--scores LO,HI compares them" in err


def test_sequence_ranges_beyond_the_arithmetic_are_refused_and_tiny_levels_print_short():
    """(0, 1e-300) reported its sequence as (>-0.00000001, >-0.00000001); (-1e300, 1e300) printed 300-digit
    numbers; plan --level 1e-300 printed a level with 300 zeros."""
    for lo, hi, null in ((0.0, 1e-300, 5e-301), (-1e300, 1e300, 0.0)):
        with pytest.raises(ValueError, match=r"the range must lie within \+-1e\+12 and be at least 1e-12 wide"):
            Sequential(lo, hi, null=null)
    from bayeseval._text import pct

    assert pct(1e-300) == "1E-298%" and pct(0.95) == "95%"


def test_a_budget_of_exactly_the_cap_per_question_is_allowed():
    """The cap said 'at most 20000' and refused exactly 20000 trials per question."""
    X = (np.random.default_rng(0).random((10, 4)) < 0.5).astype(int)
    assert design(X, "avg", budget=10 * 20_000 - 40).var_more_trials > 0  # 20,000 each
    with pytest.raises(ValueError, match=r"gives 20001 trials per question; at most 20000"):
        design(X, "avg", budget=10 * 20_000 - 39)
