"""Errors name the argument to change as the caller types it: the library's name (``until``) in the library and
the service, the option (``--until``) on the command line (:class:`bayeseval.validate.ArgumentError`).

Checks: what the user typed is never read as a slot (braces in a label or in ``until``); the error survives
pickling (worker processes pass it on); the command line names the option for errors that were found in an
argument given through another one (a ``--rope`` that covers the whole range was blamed on ``--until``)."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from bayeseval._argtypes import error_line, option
from bayeseval.classification import classification
from bayeseval.cli import main
from bayeseval.sequential import Sequential, SequentialCompare
from bayeseval.validate import ArgumentError

ROOT = Path(__file__).resolve().parents[1]
GAME24 = str(ROOT / "examples" / "data" / "tot_game24.json")
SUMMEVAL = str(ROOT / "examples" / "data" / "summeval_annotations.csv")


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err.strip().splitlines()


def test_user_text_with_braces_is_not_a_slot():
    with pytest.raises(ValueError) as exc:
        Sequential(until="width 0.1 or {until}")
    assert str(exc.value) == ("until: cannot read '{until}' in 'width 0.1 or {until}'; use 'decided', 'equivalent "
                              "within R', 'width W', 'N questions' or 'N samples', joined by 'or'")
    assert error_line(exc.value).startswith("--until: cannot read '{until}' in 'width 0.1 or {until}'")
    with pytest.raises(ValueError, match=r"hold only '\{labels\}'; name every class .* with labels \(a list"):
        classification(["{labels}"] * 3, ["{labels}"] * 3)


def test_the_error_survives_pickling_whole():
    err = ArgumentError("{x} got {v!r}", "x", v="{x}", prefix="f.csv: ")
    for back in (pickle.loads(pickle.dumps(err)), copy.deepcopy(err)):
        assert type(back) is ArgumentError and str(back) == "f.csv: x got '{x}'"
        assert back.spelled(option) == "f.csv: --x got '{x}'"
    assert option("question_cost") == "--question-cost" and option("constraints") == "--require"


def test_a_rope_too_wide_is_blamed_on_rope(capsys):
    with pytest.raises(ValueError, match=r"^rope: the equivalence region \(-2.0, 2.0\) covers the whole range "
                                         r"\[-1, 1\] of the difference$"):
        SequentialCompare(rope=2)
    code, out, err = _cli(capsys, "monitor", "--data", GAME24, "gpt-4 CoT", "gpt-4 IO", "--rope", "2")
    assert code == 2 and out == "" and err == ["bayeseval: error: --rope: the equivalence region (-2.0, 2.0) covers "
                                               "the whole range [-1, 1] of the difference"]
    code, _, err = _cli(capsys, "monitor", "--data", GAME24, "gpt-4 CoT", "gpt-4 IO", "--until",
                        "equivalent within 2")
    assert code == 2 and err[0].startswith("bayeseval: error: --until: the equivalence region (-2.0, 2.0) covers")


@pytest.mark.parametrize("argv, line", [
    (["compare", "--data", GAME24, "gpt-4 CoT", "gpt-4 IO", "--rope", "0.1,0.05"],
     "--rope must be a half-width or a pair (lo, hi) with lo < hi, got (0.1, 0.05)"),
    (["allocate", GAME24, "--question-cost", "-1"],
     "--question-cost must be a finite number >= 0 (what a new question costs, in trials), got -1"),
    (["rubric", SUMMEVAL, "--item", "doc_id", "--system", "model_id", "--judge",
      "annotator", "--require", "coherenc>=3"],
     f"{SUMMEVAL}: --require: 'coherenc' is not a dimension; dimensions: ['coherence', "
     "'consistency', 'fluency', 'relevance']"),
])
def test_the_command_line_names_its_options(capsys, argv, line):
    code, out, err = _cli(capsys, *argv)
    assert code == 2 and out == "" and err == [f"bayeseval: error: {line}"]


def test_classify_names_labels(tmp_path, capsys):
    f = tmp_path / "two.csv"
    f.write_text("true,pred\na,b\nb,a\n")
    code, _, err = _cli(capsys, "classify", f, "--labels", "a")
    assert code == 2 and err == [f"bayeseval: error: {f}: --labels does not list 'b', which the data hold; name "
                                 "every class"]
    with pytest.raises(ValueError, match=r"^labels does not list 'b', which the data hold"):
        classification(["a", "b"], ["b", "a"], labels=["a"])
