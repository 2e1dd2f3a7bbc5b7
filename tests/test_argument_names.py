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


def _template_calls():
    """Every ``ArgumentError(template, *names, **values)`` in the package whose template is a string literal (or
    literals joined by ``+``, a ``"{" + name + "}"`` slot taken as a wildcard), with its slot names, its argument
    names and its value names; calls with ``*args`` or ``**kwargs`` are left out."""
    import ast
    import string

    def literal(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = literal(node.left), literal(node.right)
            return None if left is None or right is None else left + right
        return "\x00" if isinstance(node, ast.Name) else None  # a slot name held in a variable

    for path in sorted((ROOT / "bayeseval").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            func = getattr(node, "func", None)
            name = getattr(func, "attr", getattr(func, "id", None))
            if not isinstance(node, ast.Call) or name != "ArgumentError" or not node.args:
                continue
            template = literal(node.args[0])
            if template is None or any(isinstance(a, ast.Starred) for a in node.args) or any(
                    k.arg is None for k in node.keywords):
                continue
            slots = {f.split(".")[0].split("[")[0] for _, f, _, _ in string.Formatter().parse(template) if f}
            names = {a.value for a in node.args[1:] if isinstance(a, ast.Constant)}
            dynamic = any(not isinstance(a, ast.Constant) for a in node.args[1:])
            values = {k.arg for k in node.keywords if k.arg != "prefix"}
            yield f"{path.relative_to(ROOT)}:{node.lineno}", slots, names, values, dynamic


def test_every_error_template_names_its_slots():
    """A slot without a name or value (a typo) raises KeyError inside the error's constructor, on an error path that
    may be reached rarely; a name or value without a slot is dropped from the message silently.  Checked on every
    call in the package, so such a typo fails here instead of in front of a user."""
    calls = list(_template_calls())
    assert len(calls) >= 25  # the checker finds the package's calls (it silently found none if the parse broke)
    for where, slots, names, values, dynamic in calls:
        slots = {s for s in slots if "\x00" not in s}
        given = names | values
        if not dynamic:
            assert slots <= given, f"{where}: slots {sorted(slots - given)} have no name or value"
        assert (names | values) <= slots | ({"\x00"} if dynamic else set()), \
            f"{where}: {sorted(given - slots)} given but not in the template"
