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


def test_question_dot_run_rows_under_a_question_header(tmp_path):
    """The q.run ids are looked for in the question column whatever it is called: a first column headed 'question'
    used to be read as one model whose trials were the models."""
    p = tmp_path / "mcq.csv"
    p.write_text("question,gpt,claude\n1,1,0\n1.1,1,1\n1.2,0,1\n2,0,0\n2.1,1,0\n2.2,1,0\n")
    with pytest.warns(UserWarning, match=r"models in columns: 2 models, 2 questions, 3 trials"):
        s = load(p)
    assert s.models == ["gpt", "claude"]
    np.testing.assert_array_equal(s.matrix("gpt"), [[1, 1, 0], [0, 1, 1]])
    np.testing.assert_array_equal(s.matrix("claude"), [[0, 1, 1], [0, 0, 0]])


def test_unnumbered_columns_are_ambiguous_and_either_reading_can_be_asked_for(tmp_path, capsys):
    """id,gpt-4o,claude-3 with one row per question: one model with two trials, or two models with one run each;
    the loader names both instead of picking one."""
    p = tmp_path / "permodel.csv"
    p.write_text("id,gpt-4o,claude-3\nq1,1,0\nq2,1,1\nq3,0,1\n")
    with pytest.raises(ValueError, match=r"ambiguous layout: the columns 'gpt-4o', 'claude-3' are not numbered "
                                         r"trials.*format='wide'.*format='model-columns'.*--question-col"):
        load(p)
    with pytest.warns(UserWarning, match=r"2 models, 3 questions, 1 trial per question \(rows are one per question\)"):
        s = load(p, format="model-columns")
    np.testing.assert_array_equal(s.matrix("claude-3"), [[0], [1], [1]])
    s = load(p, format="wide")
    assert s.models == ["permodel"] and s.matrix("permodel").shape == (3, 2)
    assert main(["report", str(p), "--metrics", "avg"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ambiguous layout" in err[0]


@pytest.mark.parametrize("header", ["question,0,1,2", "id,t0,t1,t2", "id,trial_1,trial_2,trial_3", "id,Run 1,Run 2,Run 3"])
def test_numbered_columns_are_a_wide_tables_trials(tmp_path, header):
    """Numbered columns with one prefix are trials, even beside ids that look like q.run (sub-questions 1.1, 1.2)."""
    p = tmp_path / "m.csv"
    p.write_text(header + "\n1,1,0,1\n1.1,0,0,1\n1.2,1,1,1\n")
    s = load(p)
    assert s.models == ["m"] and s.matrix("m").shape == (3, 3)


def test_a_column_has_one_role(tmp_path):
    p = tmp_path / "long.csv"
    p.write_text("model,question,score\na,q1,1\na,q2,0\nb,q1,1\nb,q2,1\n")
    with pytest.raises(ValueError, match=r"column 'score' is given as the question column and is the default name "
                                         r"of the score column.*--score-col"):
        load(p, columns={"question": "score"})
    with pytest.raises(ValueError, match=r"column 'x' is given as the model column and is also given as the "
                                         r"question column"):
        load(p, columns={"model": "x", "question": "x"})
    assert load(p, columns={"question": "question"}).models == ["a", "b"]  # naming a column its own default is fine


@pytest.mark.parametrize("run", ["1.5", "-3", "x"])
def test_a_run_column_holds_whole_run_indices(tmp_path, run):
    p = tmp_path / "runs.csv"
    p.write_text(f"question,trial,a,b\nq1,0,1,0\nq1,{run},1,1\n")
    with pytest.raises(ValueError, match=r"column 'trial' \(run\) must hold whole numbers >= 0"):
        load(p)


def test_a_header_in_another_case_names_the_roles(tmp_path):
    """Model,Question,Score was read as a wide table keyed by 'Model' (and failed on a repeated id)."""
    p = tmp_path / "cap.csv"
    p.write_text("Model,Question,Score\na,q1,1\na,q2,0\nb,q1,1\nb,q2,1\n")
    s = load(p)
    assert s.models == ["a", "b"]
    np.testing.assert_array_equal(s.matrix("b"), [[1], [1]])


@pytest.mark.parametrize("sep, name", [(";", "semicolon"), ("|", "pipe")])
def test_a_file_separated_otherwise_than_its_name_says(tmp_path, sep, name):
    p = tmp_path / "runs.csv"
    p.write_text(sep.join(["model", "question", "score"]) + "\n" + sep.join(["a", "q1", "1"]) + "\n")
    with pytest.raises(ValueError, match=rf"the header .* is one column: the file looks {name}-separated"):
        load(p)


def test_models_in_columns_with_a_trial_column_read_the_same_when_the_format_is_named(tmp_path):
    """Detection read a 'trial' column beside models in columns; format='model-columns' refused the same file and
    its error said 'pass run=', which load() does not take (columns={'trial': NAME} does)."""
    import warnings

    path = tmp_path / "mc.csv"
    path.write_text("question,trial,gpt,claude\nq1,0,1,0\nq1,1,1,1\nq2,0,0,0\nq2,1,1,0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        detected, named = be.load(path), be.load(path, format="model-columns")
    for m, rows in (("gpt", [[1, 1], [0, 1]]), ("claude", [[0, 1], [0, 0]])):
        assert np.array_equal(detected.matrix(m), rows) and np.array_equal(named.matrix(m), rows)
    (tmp_path / "bad.csv").write_text("question,gpt,claude\nq1,1,0\nq1,1,1\n")
    with pytest.raises(ValueError, match=r"pass run= \(load: columns=\{'trial': NAME\}; CLI --trial-col NAME\)"):
        be.load(tmp_path / "bad.csv", format="model-columns")
