"""Review of the HTTP service: rubric dimensions named like an id column, keys repeated in a JSON object,
/v1/monitor on mixed scales and out-of-range scores, /v1/classify's ragged confusion matrix and items with a
confusion matrix, /v1/plan's alpha / power / level that make the answer infinite or negative."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from bayeseval.service import create_app  # noqa: E402
from bayeseval.service.settings import Settings  # noqa: E402


@pytest.fixture(scope="module")
def api():
    with TestClient(create_app(Settings(workers=0)), raise_server_exceptions=False) as c:
        yield c


def error_of(r, status, field):
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert set(err) == {"type", "field", "message", "details"}
    assert err["field"] == field, err
    assert "Traceback" not in err["message"] and "inhomogeneous" not in err["message"]
    return err


# ----------------------------------------------------------------------------- /v1/rubric: dimension names
def _ratings(names, systems=("x",), judges=3, items=6):
    """Ratings on dimensions ``names``, the k-th dimension rated ``(i (k + 1) + j + s) % 5 + 1``."""
    return [{"item": i, "system": s, "judge": f"j{j}",
             "ratings": {n: (i * (k + 1) + j + si) % 5 + 1 for k, n in enumerate(names)}}
            for i in range(items) for si, s in enumerate(systems) for j in range(judges)]


def _strip(e):
    return {k: v for k, v in e.items() if k != "dimension"}


@pytest.mark.parametrize("name", ["item", "judge", "system"])
def test_rubric_dimension_named_like_an_id_column_gets_the_right_numbers(api, name):
    ref = api.post("/v1/rubric", json={"ratings": _ratings(["q"])})
    r = api.post("/v1/rubric", json={"ratings": _ratings([name])})
    assert ref.status_code == 200 and r.status_code == 200, r.text
    got, want = r.json(), ref.json()
    assert got["dimensions"] == [name]
    assert [e["dimension"] for e in got["estimates"]] == [name]
    assert _strip(got["estimates"][0]) == _strip(want["estimates"][0])  # the interval of the ratings, not the ids
    assert list(got["agreement"]) == [name]
    assert got["agreement"][name] == want["agreement"]["q"]
    assert got["agreement"][name]["coders"] == 3 and got["agreement"][name]["alpha"] < 1


def test_rubric_all_three_id_names_with_constraints_and_comparison(api):
    names, plain = ["item", "judge", "system"], ["a1", "a2", "a3"]  # sorted alike, so rows line up
    for extra, ex_plain in [({"constraints": {"item": 3, "system": 2}}, {"constraints": {"a1": 3, "a3": 2}}),
                            ({"a": "x", "b": "y", "constraints": {"judge": 2}}, {"a": "x", "b": "y",
                                                                                 "constraints": {"a2": 2}})]:
        r = api.post("/v1/rubric", json={"ratings": _ratings(names, ("x", "y")), **extra})
        ref = api.post("/v1/rubric", json={"ratings": _ratings(plain, ("x", "y")), **ex_plain})
        assert r.status_code == 200 and ref.status_code == 200, r.text
        got, want = r.json(), ref.json()
        text = json.dumps(got)
        assert "<" not in text  # no internal column name leaks
        if "a" in extra:
            assert [d["dimension"] for d in got["dimensions"]] == names + ["passes: judge >= 2"]
            assert [_strip(d) for d in got["dimensions"]] == [_strip(d) for d in want["dimensions"]]
        else:
            assert got["constraints"] == {"item": 3.0, "system": 2.0}
            assert got["passing"] == want["passing"]
            assert [(c["a"], c["b"]) for c in got["correlation"]] == [("item", "judge"), ("item", "system"),
                                                                      ("judge", "system")]
            assert [c["rho"] for c in got["correlation"]] == [c["rho"] for c in want["correlation"]]


def test_rubric_error_names_the_dimension_as_sent(api):
    ratings = _ratings(["item"])
    ratings[4]["ratings"]["item"] = 9
    err = error_of(api.post("/v1/rubric", json={"ratings": ratings}), 422, "ratings[4]")
    assert "'item'" in err["message"] and "<" not in err["message"]


# ----------------------------------------------------------------------------- repeated keys
@pytest.mark.parametrize("path, text, field, key", [
    ("/v1/metrics", '{"models": {"a": {"matrix": [[1, 0]]}, "a": {"matrix": [[0, 0]]}}}', "models", "'a'"),
    ("/v1/report.html", '{"models": {"a": {"matrix": [[1, 0]]}, "a": {"matrix": [[0, 0]]}}}', "models", "'a'"),
    ("/v1/rank", '{"models": {"a": {"matrix": [[1]]}, "b": {"matrix": [[0]]}, "a": {"matrix": [[0]]}}}', "models",
     "'a'"),
    ("/v1/classify", '{"true": [0, 1], "models": {"m": [0, 1], "m": [1, 0]}}', "models", "'m'"),
    ("/v1/compare", '{"a": {"matrix": [[1], [0]], "ids": [1, 2], "ids": [2, 1]}, "b": {"matrix": [[1], [0]]}}',
     "a", "'ids'"),
    ("/v1/rubric", '{"ratings": [{"item": 1, "system": "x", "judge": "j", "ratings": {"c": 1, "c": 2}}]}',
     "ratings[0].ratings", "'c'"),
])
def test_a_repeated_key_is_422_naming_the_object_and_the_key(api, path, text, field, key):
    r = api.post(path, content=text, headers={"Content-Type": "application/json"})
    err = error_of(r, 422, field)
    assert err["type"] == "validation_error" and key in err["message"] and "more than once" in err["message"]


def test_a_repeated_top_level_field_is_422_naming_it(api):
    text = '{"models": {"a": {"matrix": [[1, 0]]}}, "level": 0.9, "level": 0.5}'
    err = error_of(api.post("/v1/metrics", content=text, headers={"Content-Type": "application/json"}), 422, "level")
    assert "more than once" in err["message"]


def test_unrepeated_keys_and_bad_json_are_as_before(api):
    ok = api.post("/v1/metrics", content='{"models": {"a": {"matrix": [[1, 0]]}, "b": {"matrix": [[0, 0]]}}}',
                  headers={"Content-Type": "application/json"})
    assert ok.status_code == 200 and [e["model"] for e in ok.json()["estimates"]] == ["a", "b"]
    bad = api.post("/v1/metrics", content='{"models": ', headers={"Content-Type": "application/json"})
    assert error_of(bad, 400, "body")["type"] == "invalid_json"


# ----------------------------------------------------------------------------- /v1/monitor
def test_monitor_scores_outside_a_range_is_422_naming_b_not_500(api):
    r = api.post("/v1/monitor", json={"a": {"matrix": [[1, 2]] * 5, "weights": [0, 0.5, 1]},
                                      "b": {"matrix": [[1, 2]] * 5, "weights": [0, 1, 3]}})
    err = error_of(r, 422, "b.weights")  # the weights put b on another scale (it blamed a question's score)
    assert "a's per-question values lie in [0, 1] and b's in [0, 3]; compare outcomes on one scale" in err["message"]
    # a mean grade on [0, 10] beside 0/1 outcomes was compared as one scale (200, estimate 4.33)
    r = api.post("/v1/monitor", json={"a": {"matrix": [[0, 0, 2], [1, 2, 1]], "weights": [0, 5, 10]},
                                      "b": {"matrix": [[0, 0, 1], [1, 1, 1]]}})
    assert "lie in [0, 10] and b's in [0, 1]" in error_of(r, 422, "a.weights")["message"]


@pytest.mark.parametrize("a, b", [
    ({"matrix": [[1, 0]] * 5}, {"scores": [[5.0]] * 5, "range": [0, 10]}),
    ({"scores": [[5.0]] * 5, "range": [0, 10]}, {"matrix": [[1, 0]] * 5}),
    ({"scores": [[0.5]] * 5}, {"scores": [[0.5]] * 5, "range": [0, 2]}),
])
def test_monitor_refuses_scores_on_different_ranges_as_compare_does(api, a, b):
    err = error_of(api.post("/v1/monitor", json={"a": a, "b": b}), 422, "b")
    assert "scores are on different ranges" in err["message"]
    same = error_of(api.post("/v1/compare", json={"a": a, "b": b}), 422, "b")["message"]  # it named 'metric'
    assert err["message"] == same  # the one shared check
    ranked = api.post("/v1/rank", json={"models": {"a": a, "b": b, "c": a}})
    assert error_of(ranked, 422, "models.b")["message"].startswith("the models' scores are on different ranges")
    pilot = {"a": {"scores": [[0.5, 0.4]] * 5}, "b": {"scores": [[5.0, 4.0]] * 5, "range": [0, 10]}, "delta": 0.1}
    assert "different ranges" in error_of(api.post("/v1/plan", json=pilot), 422, "b")["message"]  # it named a


def test_monitor_scores_against_0_1_outcomes_on_one_scale_still_run(api):
    r = api.post("/v1/monitor", json={"a": {"scores": [[0.5], [1.0], [0.25], [0.75], [0.5]]},
                                      "b": {"matrix": [[1], [0], [1], [0], [1]]}})
    assert r.status_code == 200, r.text
    assert r.json()["estimate"] == pytest.approx((0.5 + 1 + 0.25 + 0.75 + 0.5 - 3) / 5)


# ----------------------------------------------------------------------------- /v1/classify
def test_classify_ragged_confusion_matrix_is_422_saying_rows_must_be_equal(api):
    r = api.post("/v1/classify", json={"confusion_matrix": [[5, 0, 1], [0, 5]], "labels": [0, 1]})
    err = error_of(r, 422, "confusion_matrix")
    assert "equal lengths" in err["message"] and "square" in err["message"]


def test_classify_rectangular_confusion_matrix_is_422(api):
    r = api.post("/v1/classify", json={"confusion_matrix": [[5, 0, 1], [0, 5, 1]], "labels": [0, 1]})
    assert "square" in error_of(r, 422, "confusion_matrix")["message"]


def test_classify_items_with_a_confusion_matrix_is_422_naming_items(api):
    r = api.post("/v1/classify", json={"confusion_matrix": [[5, 0], [0, 5]], "labels": [0, 1], "items": [1, 2]})
    assert "confusion_matrix" in error_of(r, 422, "items")["message"]
    assert api.post("/v1/classify", json={"confusion_matrix": [[5, 0], [0, 5]], "labels": [0, 1]}).status_code == 200


# ----------------------------------------------------------------------------- /v1/plan
_PILOT = {"a": {"matrix": [[1, 0], [0, 1], [1, 1], [0, 0], [1, 1]]},
          "b": {"matrix": [[0, 0], [0, 1], [1, 0], [0, 0], [0, 1]]}, "delta": 0.1}


@pytest.mark.parametrize("extra, field, text", [
    ({"alpha": 1e-300, "power": 0.9999999999999999}, "alpha", "alpha >= 1.2e-16"),
    ({"alpha": 2.0 ** -53}, "alpha", "infinite"),
    ({"power": 5e-324}, "power", "must exceed alpha = 0.05"),
    ({"power": 0.02}, "power", "must exceed alpha = 0.05"),
    ({"power": 0.05}, "power", "must exceed alpha = 0.05"),
    ({"level": 0.9999999999999999}, "level", "infinite"),
])
def test_plan_refuses_what_gives_no_finite_answer_naming_the_field(api, extra, field, text):
    err = error_of(api.post("/v1/plan", json={**_PILOT, **extra}), 422, field)
    assert text in err["message"] and "OverflowError" not in err["message"]


def test_plan_edges_that_compute_are_finite(api):
    for extra in ({"alpha": 1.2e-16}, {"power": 0.9999999999999999}, {"level": 0.9999999999999998},
                  {"alpha": 0.05, "power": 0.051}):
        r = api.post("/v1/plan", json={**_PILOT, **extra})
        assert r.status_code == 200, (extra, r.text)
        row = r.json()["table"][0]
        assert all(row[k] is not None and row[k] > 0 for k in ("mde", "interval_width", "questions_needed"))


def test_rubric_constraint_keys_are_dimensions_as_sent(api):
    """The ids travel under the library's private column names: a constraint on '<item>' is not a dimension (an
    alias of 'item' once took it), and a rule on 'item' keeps its minimum."""
    ratings = _ratings(["item"])
    r = api.post("/v1/rubric", json={"ratings": ratings, "constraints": {"<item>": 3}, "seed": 1})
    assert r.status_code == 422 and "'<item>' is not a dimension" in r.json()["error"]["message"]
    r = api.post("/v1/rubric", json={"ratings": ratings, "constraints": {"item": 5}, "seed": 1})
    assert r.status_code == 200, r.text
    assert r.json()["constraints"] == {"item": 5.0}


def test_a_repeated_key_inside_a_large_matrix_body_is_found_without_walking_the_numbers():
    from bayeseval.service.errors import ServiceError, loads

    rows = ",".join(["[" + ",".join(["1"] * 50) + "]"] * 20_000)
    with pytest.raises(ServiceError) as exc:
        loads('{"models": {"m": {"matrix": [' + rows + ']}}, "z": {"k": 1, "k": 2}}')
    assert exc.value.field == "z" and "the key 'k' is given more than once" in exc.value.message
    with pytest.raises(ServiceError) as exc:  # inside an array that starts with a number: said of the body
        loads('{"x": [1, {"a": 1, "a": 2}]}')
    assert exc.value.field == "body" and "the key 'a' is given more than once" in exc.value.message


def test_a_zip_with_two_entries_of_one_name_is_refused(api):
    """Two copies of one results file: the second overwrote the first silently (avg@3 0.0 instead of 1.0)."""
    import io
    import warnings
    import zipfile

    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name it is asked to write
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("w/results/m/d.json", '{"accuracy": 100.0}')
            z.writestr("w/results/m/d.json", '{"accuracy": 0.0}')
    r = api.post("/v1/aisbench", files={"file": ("run.zip", buf.getvalue(), "application/zip")})
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["type"] == "bad_archive" and "w/results/m/d.json" in err["message"]
    assert "appears twice in the archive" in err["message"]


@pytest.mark.parametrize("argv, text", [(["--processes", "0"], "argument --processes: expected an integer from 1 to 64"),
                                        (["--processes", "100000"], "argument --processes: expected an integer from 1"),
                                        (["--workers", "100000"], "argument --workers: expected an integer from 0 to 64")])
def test_serve_refuses_process_counts_that_are_typos(capsys, argv, text):
    from bayeseval.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["serve", *argv])
    assert exc.value.code == 2 and text in capsys.readouterr().err


def test_workers_from_the_environment_are_capped():
    with pytest.raises(ValueError, match=r"workers must be an integer from 0 to 64"):
        Settings(workers=100_000)


def test_monitor_refuses_one_name_for_both_models(api):
    """/v1/monitor took names ["x", "x"] (an 'x - x' difference), where /v1/compare refuses them."""
    m = {"a": {"matrix": [[1, 0]] * 10}, "b": {"matrix": [[0, 0]] * 10}}
    error_of(api.post("/v1/monitor", json={**m, "names": ["x", "x"]}), 422, "names")


def test_serve_names_its_options_and_module_entry_point_refuses_in_one_line(capsys):
    """bayeseval serve --timeout 0 said 'timeout must be ...'; python -m bayeseval.service --port 0 (or a busy port)
    ended in a traceback and exit 1."""
    from bayeseval.cli import main
    from bayeseval.service.server import main as module_main

    assert main(["serve", "--timeout", "0"]) == 2
    assert capsys.readouterr().err.strip() == "bayeseval: error: --timeout must be a positive number of seconds, got 0.0"
    assert main(["serve", "--max-cells", "0"]) == 2
    assert capsys.readouterr().err.strip() == "bayeseval: error: --max-cells must be a positive integer, got 0"
    assert module_main(["--port", "0"]) == 2
    assert capsys.readouterr().err.strip() == ("python -m bayeseval.service: error: --port 0: a TCP port must be "
                                               "between 1 and 65535")


def test_a_graded_matrix_without_weights_names_the_matrix(api):
    """A matrix holding a 2 (no weights) was refused naming metrics[0] and the library's 'R' and 'pass w'."""
    for route in ("/v1/metrics", "/v1/report.html"):
        err = error_of(api.post(route, json={"models": {"a": {"matrix": [[1, 2], [0, 1]]}}, "metrics": ["pass@2"]}),
                       422, "models.a.matrix")
        assert err["message"].startswith("models.a.matrix must be binary (0/1) for pass@2")
        assert " R " not in err["message"] and "(w)" not in err["message"], err["message"]
    err = error_of(api.post("/v1/metrics", json={"models": {"a": {"matrix": [[1, 2], [0, 1]]}}, "metrics": ["avg"]}),
                   422, "models.a.matrix")
    assert err["message"] == ("models.a.matrix must be binary (0/1) for avg without models.a.weights; it has "
                              "categories up to 2. Threshold it first (1 for every category above 0) or give the "
                              "category weights (models.a.weights) for categorical outcomes.")
    counts = error_of(api.post("/v1/metrics", json={"models": {"a": {"counts": [[1, 0, 2], [1, 1, 1]]}},
                                                    "metrics": ["pass@2"]}), 422, "models.a.counts")  # as sent
    assert counts["message"].startswith("models.a.counts must be binary (0/1) for pass@2")


def test_classify_takes_number_and_boolean_labels_as_the_library_does(api):
    """JSON 1.0 and true/false labels were 422 'Input should be a valid integer'; 1 and 1.0 are one class."""
    from bayeseval.classification import classification

    r = api.post("/v1/classify", json={"true": [1.0, 0.0, 1], "models": {"m": [1, 0.0, 0]}})
    assert r.status_code == 200, r.text
    got = r.json()["models"]["m"]
    lib = classification([1.0, 0.0, 1], [1, 0.0, 0])
    assert got["labels"] == ["0", "1"] and got["metrics"]["accuracy"]["lo"] == pytest.approx(
        lib.metrics["accuracy"]["lo"])
    r = api.post("/v1/classify", json={"true": [True, False, True], "models": {"m": [True, False, False]}})
    assert r.status_code == 200 and r.json()["models"]["m"]["labels"] == ["False", "True"]
