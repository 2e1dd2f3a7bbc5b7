"""Defects found by a review, each reproduced on the library, the HTTP service and the command line where it
showed: a single-class classification (bare ZeroDivisionError), duplicate class labels (one class's statistics
overwrote the other's), numpy reprs in the rubric's duplicate-rating message, a rubric pass rule that no rating
can meet, and the rubric Markdown note calling ratings on [1, 5] fractions."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayeseval.classification import classification, confusion
from bayeseval.cli import main
from bayeseval.rubric import compare_rubric, parse_constraints, rubric

SUMMEVAL = Path(__file__).resolve().parents[1] / "examples" / "data" / "summeval_annotations.csv"


@pytest.fixture(scope="module")
def api():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's httpx deprecation notice
        from fastapi.testclient import TestClient

    from bayeseval.service import create_app
    from bayeseval.service.settings import Settings

    with TestClient(create_app(Settings(workers=0))) as c:
        yield c


def _error(r, field):
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert err["type"] == "validation_error" and err["field"] == field, err
    return err["message"]


def _cli(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err.strip().splitlines()


# ----------------------------------------------------------------------------- 1. a single class
def test_classification_of_a_single_class_is_a_value_error_naming_labels():
    with pytest.raises(ValueError, match=r"at least two classes.*hold only '1'.*labels") as exc:
        classification([1, 1, 1], [1, 1, 1])
    assert not isinstance(exc.value, ZeroDivisionError)
    with pytest.raises(ValueError, match=r"^labels names only '1': classification needs at least two classes"):
        classification([1, 1, 1], [1, 1, 1], labels=[1])
    assert confusion(["a"], ["a"], labels=["a"])[0].tolist() == [[1]]  # counting one class is defined


def test_classification_of_a_single_class_with_the_other_class_named_is_defined():
    r = classification([1, 1, 1], [1, 1, 1], labels=[0, 1])
    assert r.labels == ["0", "1"]
    assert r.confusion.tolist() == [[0, 0], [0, 3]]
    acc = r.metrics["accuracy"]
    assert acc["value"] == 1.0 and acc["hi"] == 1.0 and type(acc["hi"]) is float
    assert acc["mean"] == pytest.approx(7 / 8)  # Jeffreys's Beta(1/2 + 3, 1/2), whatever the number of classes
    assert r.per_class["0"]["support"] == 0 and r.per_class["1"]["recall"]["value"] == 1.0


def test_service_single_class_is_422_with_the_library_message(api):
    r = api.post("/v1/classify", json={"true": [1, 1, 1], "models": {"x": [1, 1, 1]}})
    msg = _error(r, "models.x")
    assert "classification needs at least two classes" in msg and "'1'" in msg
    assert "ZeroDivisionError" not in msg and "computable range" not in msg
    r = api.post("/v1/classify", json={"true": [1, 1, 1], "models": {"x": [1, 1, 1]}, "labels": [0, 1]})
    assert r.status_code == 200, r.text
    assert r.json()["models"]["x"]["metrics"]["accuracy"]["value"] == 1.0


def test_cli_single_class_is_one_line_and_exit_2(tmp_path, capsys):
    f = tmp_path / "c1.csv"
    f.write_text("true,pred\n1,1\n")
    code, out, err = _cli(["classify", f], capsys)
    assert code == 2 and out == ""
    assert len(err) == 1, err
    assert err[0].startswith(f"bayeseval: error: {f}: classification needs at least two classes")
    assert err[0].endswith("name every class the classifier chooses from with --labels (a list of them all: '1' "
                           "and the classes absent from these data), so that the absent ones count")
    assert "ZeroDivisionError" not in err[0] and "--debug" not in err[0]
    code, out, err = _cli(["classify", f, "--labels", "0,1", "--format", "json"], capsys)
    assert code == 0
    (result,) = json.loads(out)["models"].values()
    assert result["labels"] == ["0", "1"] and result["confusion"] == [[0, 0], [0, 1]]
    assert result["metrics"]["accuracy"]["value"] == 1.0
    code, out, err = _cli(["classify", f, "--labels", "1,1"], capsys)
    assert code == 2 and err[0].endswith("--labels names class '1' twice (at positions 0 and 1, from 0); name each "
                                         "class once")


# ----------------------------------------------------------------------------- 2. duplicate labels
def test_duplicate_labels_are_refused_naming_the_label():
    with pytest.raises(ValueError, match=r"^labels names class 'a' twice \(at positions 0 and 1, from 0\)"):
        classification(confusion_matrix=[[1, 2], [3, 4]], labels=["a", "a"])
    with pytest.raises(ValueError, match=r"^labels names class 'b' twice \(at positions 1 and 2, from 0\)"):
        classification(["a", "b"], ["a", "b"], labels=["a", "b", "b"])
    # 1, 1.0 and "1" are one label in the data, so also in labels
    with pytest.raises(ValueError, match=r"labels names class '1' twice"):
        classification(confusion_matrix=[[1, 2], [3, 4]], labels=[1, "1"])


def test_labels_are_compared_as_the_data_are():
    r = classification([0.0, 1.0, 1.0], [0, 1, 0], labels=[0.0, 1.0], positive=1.0)
    assert r.labels == ["0", "1"]
    assert r.metrics["f1"]["value"] == pytest.approx(2 / 3)


def test_service_duplicate_labels_are_422_naming_labels(api):
    r = api.post("/v1/classify", json={"confusion_matrix": [[1, 2], [3, 4]], "labels": ["a", "a"]})
    assert "labels names class 'a' twice" in _error(r, "labels")
    r = api.post("/v1/classify", json={"true": ["a", "b"], "models": {"x": ["a", "b"]}, "labels": ["a", "b", "a"]})
    assert "labels names class 'a' twice" in _error(r, "labels")
    r = api.post("/v1/classify", json={"confusion_matrix": [[1, 2], [3, 4]], "labels": ["a", "b"]})
    assert r.status_code == 200 and sorted(r.json()["models"]["confusion_matrix"]["per_class"]) == ["a", "b"]


# ----------------------------------------------------------------------------- 3. repeated rating
def test_rubric_repeated_rating_message_has_plain_values(api):
    t = pd.DataFrame({"item": [1, 1, 2], "system": ["s"] * 3, "judge": ["j"] * 3, "q": [3, 4, 5]})
    with pytest.raises(ValueError) as exc:
        rubric(t, dimensions=["q"])
    assert "([1, 's', 'j'] and [1, 's', 'j'], as text)" in str(exc.value)
    assert "np." not in str(exc.value)
    long = pd.DataFrame({"item": np.array([1, 1, 2]), "system": ["s"] * 3, "judge": ["j"] * 3,
                         "aspect": ["q"] * 3, "rating": [3, 4, 5]})
    with pytest.raises(ValueError) as exc:
        rubric(long, dimension="aspect")
    assert str(exc.value).endswith("(item, system, judge, dimension) ([1, 's', 'j', 'q'])")
    rows = [{"item": 1, "system": "s", "judge": "j", "ratings": {"q": 3}}] * 2
    msg = _error(api.post("/v1/rubric", json={"ratings": rows}), "ratings[0]")
    assert "([1, 's', 'j'] and [1, 's', 'j'], as text)" in msg and "np.int64" not in msg


# ----------------------------------------------------------------------------- 4. impossible pass rule
def _ratings():
    return pd.DataFrame([{"item": i, "system": s, "judge": j, "q": (i + len(j) + len(s)) % 5 + 1}
                         for i in range(8) for s in ("s", "tt") for j in ("a", "bb")])


@pytest.mark.parametrize("rule, minimum, what", [({"q": 9}, "9", "no rating can meet it"),
                                                  ("q>=5.5", "5.5", "no rating can meet it"),
                                                  ({"q": 0}, "0", "every rating meets it")])
def test_rubric_pass_rule_outside_the_scale_is_refused(rule, minimum, what):
    want = (rf"^constraints: the minimum {minimum} for 'q' is outside its rating scale \[1, 5\] \({what}\); "
            r"give a minimum within \[1, 5\]$")
    with pytest.raises(ValueError, match=want):
        rubric(_ratings(), dimensions=["q"], constraints=rule, agreement=False)
    with pytest.raises(ValueError, match=want):
        compare_rubric(_ratings(), "s", "tt", dimensions=["q"], constraints=rule, resamples=200)
    with pytest.raises(ValueError, match=want):
        parse_constraints(rule, ["q"], (1, 5))


def test_rubric_pass_rule_at_the_ends_of_the_scale_is_accepted():
    r = rubric(_ratings(), dimensions=["q"], constraints="q>=5", agreement=False)
    assert r.constraints == {"q": 5.0}
    assert r.passing["s"].value == pytest.approx(np.mean(_ratings().query("system == 's'").q >= 5))
    r = rubric(_ratings(), dimensions=["q"], constraints={"q": 1}, agreement=False)
    assert r.passing["s"].value == 1.0
    r = rubric(_ratings().assign(q=lambda d: d.q * 2), dimensions=["q"], scale=(0, 10), constraints={"q": 9},
               agreement=False)
    assert r.constraints == {"q": 9.0}


def test_service_and_cli_refuse_a_pass_rule_outside_the_scale(api, capsys):
    rows = [{"item": int(r.item), "system": r.system, "judge": r.judge, "ratings": {"q": int(r.q)}}
            for r in _ratings().itertuples()]
    msg = _error(api.post("/v1/rubric", json={"ratings": rows, "constraints": {"q": 9}}), "constraints")
    assert msg == ("constraints: the minimum 9 for 'q' is outside its rating scale [1, 5] (no rating can meet it); "
                   "give a minimum within [1, 5]")
    r = api.post("/v1/rubric", json={"ratings": rows, "constraints": {"q": 9}, "scale": [0, 10]})
    assert r.status_code == 200 and r.json()["constraints"] == {"q": 9.0}
    code, out, err = _cli(["rubric", SUMMEVAL, "--item", "doc_id", "--system", "model_id", "--judge", "annotator",
                           "--dimensions", "consistency", "--require", "consistency>=9"], capsys)
    assert code == 2 and out == "" and len(err) == 1
    assert err[0] == (f"bayeseval: error: {SUMMEVAL}: --require: the minimum 9 for 'consistency' is outside its "
                      "rating scale [1, 5] (no rating can meet it); give a minimum within [1, 5]")


# ----------------------------------------------------------------------------- 5. the Markdown note's units
def test_rubric_markdown_note_states_the_rating_scale(tmp_path, capsys):
    d = pd.read_csv(SUMMEVAL)
    d = d[(d.annotator_type == "expert") & d.model_id.isin(["M22", "M23"])]
    f = tmp_path / "summeval.csv"
    d.to_csv(f, index=False)
    base = ["rubric", f, "--item", "doc_id", "--system", "model_id", "--judge", "annotator",
            "--dimensions", "coherence,consistency"]
    code, out, _ = _cli(base + ["--require", "consistency>=4", "--format", "markdown"], capsys)
    assert code == 0
    note = out.strip().splitlines()[-1]
    assert note.startswith("Note: estimate [95% equal-tailed credible interval], on [1, 5] (coherence, consistency) "
                           "and as fractions (passes); population scope; prior: robust."), note
    code, out, _ = _cli(base + ["--format", "markdown"], capsys)
    assert code == 0
    assert "], on [1, 5]; population scope" in out and "fraction" not in out
    code, out, _ = _cli(base + ["--format", "latex"], capsys)
    assert code == 0 and "on [1, 5]; population scope" in out and "fraction" not in out


def test_tables_say_fractions_only_for_rates():
    import bayeseval as be
    from bayeseval.report import tables

    ev = be.evaluate({"a": np.array([[1, 0], [1, 1]]), "b": np.array([[0, 0], [1, 0]])}, ["avg"],
                     scope="benchmark", interval="normal")
    assert "], as fractions; benchmark scope" in tables.to_markdown(ev, percent=False)
    r = rubric(_ratings(), dimensions=["q"], constraints={"q": 4}, agreement=False, correlation=False)
    md = tables.to_markdown(r.to_evaluation(), percent=False)
    assert "on [1, 5] (q) and as fractions (passes);" in md


def test_confusion_counts_of_one_class_are_defined():
    """confusion() only counts: one class is a 1 x 1 table (classification() needs two classes, not the counts)."""
    C, labels = confusion(["a", "a"], ["a", "a"])
    assert C.tolist() == [[2]] and labels == ["a"]
