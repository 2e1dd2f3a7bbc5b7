"""Models in columns (MathArena's layout): detected, read and reported, never misread as one model."""

from __future__ import annotations

import numpy as np
import pytest

import bayeseval as be
from bayeseval.cli import main
from bayeseval.io import load
from bayeseval.io.tables import split_run_ids

ROWS = """id,o3-mini (high),o3-mini (medium),gpt-4o
1,1,1,0
1.1,1,0,0
1.2,1,1,0
1.3,1,1,1
2,0,0,0
2.1,0,1,0
2.2,1,0,0
2.3,0,0,0
3,1,1,1
3.1,1,1,1
3.2,1,1,0
3.3,1,1,1
"""


def test_question_dot_run_rows_are_models_in_columns(tmp_path):
    p = tmp_path / "matharena.csv"
    p.write_text(ROWS)
    with pytest.warns(UserWarning, match=r"models in columns: 3 models, 3 questions, 4 trials"):
        s = load(p)
    assert s.models == ["o3-mini (high)", "o3-mini (medium)", "gpt-4o"]
    assert s.run("o3-mini (high)").ids == ("1", "2", "3")
    np.testing.assert_array_equal(s.matrix("o3-mini (high)"), [[1, 1, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1]])
    assert be.estimate(s.counts("o3-mini (high)"), "avg").value == pytest.approx(9 / 12)


def test_a_separate_run_column(tmp_path):
    p = tmp_path / "runs.csv"
    p.write_text("question,trial,a,b\nq1,0,1,0\nq1,1,1,1\nq2,0,0,0\nq2,1,,1\n")
    with pytest.warns(UserWarning, match=r"2 models, 2 questions, 2 trials"):
        s = load(p)
    np.testing.assert_array_equal(s.matrix("a"), [[1, 1], [0, np.nan]])
    assert s.run("a").n.tolist() == [2, 1]


def test_a_wide_per_model_table_is_still_wide(tmp_path):
    p = tmp_path / "model_x.csv"
    p.write_text("question,t0,t1,t2\nq1,1,0,1\nq2,0,0,1\n")
    s = load(p)
    assert s.models == ["model_x"] and s.matrix("model_x").shape == (2, 3)


def test_question_dot_run_ids_without_the_layout_are_ambiguous(tmp_path):
    p = tmp_path / "odd.csv"
    p.write_text("id,a,b\n1.1,1,0\n1.2,0,1\n2.5,1,1\n")
    with pytest.raises(ValueError, match=r"ambiguous layout.*--input-format wide.*model-columns"):
        load(p)


def test_the_command_line_reports_what_it_found(tmp_path, capsys):
    p = tmp_path / "matharena.csv"
    p.write_text(ROWS)
    assert main(["report", str(p), "--metrics", "avg", "--quiet"]) == 0
    out = capsys.readouterr()
    assert "3 models, 3 questions, 4 trials per question" in out.err
    assert "o3-mini (medium)" in out.out


def test_split_run_ids():
    assert split_run_ids(["a", "a.1", "b", "b.1"]) == (["a", "a", "b", "b"], [0, 1, 0, 1])
    assert split_run_ids(["a", "b"]) is None
    assert split_run_ids(["1.5", "2.5"]) is None
