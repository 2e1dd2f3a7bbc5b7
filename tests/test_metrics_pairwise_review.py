"""Metrics, pairwise, classification and the service: what two adversarial reviews found (session of 2026-11-27),
each case as it was reproduced, with the right value computed independently or taken from scorio 0.2.3."""

from __future__ import annotations

import numpy as np
import pytest

import bayeseval as be
from bayeseval.classification import classification, confusion
from bayeseval.pairwise import bradley_terry, from_long, judge_agreement, ppi_mean, win_rate
from bayeseval.pairwise.judge import ppi_mean_by_item


# ----------------------------------------------------------------------------- levels whose quantile is infinite
def _prefs():
    return from_long({"item": range(6), "model_a": ["x", "y"] * 3, "model_b": ["y", "x"] * 3,
                      "winner": ["a", "a", "b", "tie", "a", "b"]})


@pytest.mark.parametrize("call", [
    lambda level: bradley_terry(_prefs(), level=level),
    lambda level: ppi_mean([1, 0, 1, 0], [1, 0, 0, 0], [1, 1, 0], level=level),
    lambda level: be.estimate(np.eye(4, dtype=int), level=level),
])
def test_a_level_whose_quantile_is_infinite_is_refused(call):
    with pytest.raises(ValueError, match=r"level = 0.9999999999999999 is too close to 1"):
        call(0.9999999999999999)
    call(0.9999999999999998)  # the largest level below it: finite


def test_cli_and_service_refuse_that_level_but_not_that_power(capsys):
    from fastapi.testclient import TestClient

    from bayeseval.cli import main
    from bayeseval.service import create_app

    with pytest.raises(SystemExit) as exit_:
        main(["pairwise", "x.csv", "--level", "0.9999999999999999"])
    assert exit_.value.code == 2 and "at most 0.9999999999999998" in capsys.readouterr().err
    with TestClient(create_app()) as c:
        r = c.post("/v1/pairwise", json={"labels": [{"item": 1, "model_a": "x", "model_b": "y", "winner": "a"}],
                                         "level": 0.9999999999999999})
        assert r.status_code == 422 and r.json()["error"]["field"] == "level"
    assert be.plan(np.random.default_rng(0).integers(0, 2, (30, 4)), power=0.9999999999999999).mde(100, 4) > 0


# ----------------------------------------------------------------------------- PPI
def test_ppi_with_no_spread_warns_and_reports_no_effective_n():
    r = ppi_mean([1, 1], [1, 1], [1])
    assert r.se == 0 and r.effective_n is None and "no width" in r.warnings[0]
    assert "worth" not in r.summary() and "warning:" in r.summary()
    assert ppi_mean([1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0]).effective_n > 0


@pytest.mark.parametrize("judge, human, match", [
    ({1: 1, 2: 0, 3: "x"}, {1: 1, 2: 1}, r"^judge: item 3 has score 'x'; scores must be finite numbers$"),
    ({1: np.nan, 2: 0, 3: 1}, {1: 1, 2: 1}, r"^judge: item 1 has score nan"),
    ({1: 1, 2: 0, 3: 1}, {1: 1}, r"^human must score at least 2 items, got 1$"),
])
def test_ppi_by_item_messages_name_the_item(judge, human, match):
    with pytest.raises(ValueError, match=match):
        ppi_mean_by_item(judge, human)


# ----------------------------------------------------------------------------- classification
def test_items_missing_or_spelled_two_ways_are_refused():
    t, p = [1, 0, 1, 0, 1, 0, 1, 0], [1, 0, 0, 1, 1, 0, 1, 0]
    with pytest.raises(ValueError, match=r"items is missing an item id at position 0 \(4 missing\)"):
        classification(t, p, items=[None, None, None, None, 3, 4, 5, 6])
    with pytest.raises(ValueError, match=r"items spells one id two ways \(1 and '1'\)"):
        classification(t, p, items=[1, "1", 2, "2", 3, 4, 5, 6])
    same = classification(t, p, items=[1, 1.0, 2, 2, 3, 4, 5, 6])  # 1 and 1.0: one item
    assert same.metrics["accuracy"]["value"] == 0.75


def test_confusion_counts_that_would_overflow_are_refused():
    with pytest.raises(ValueError, match=r"confusion_matrix counts must sum to less than 2\^53"):
        classification(confusion_matrix=[[2**62, 2**62], [2**62, 1]])


def test_float32_labels_match_the_same_values_as_python_floats():
    C, labels = confusion(np.array([0.1, 0.2, 0.1, 0.2], dtype=np.float32), [0.1, 0.2, 0.1, 0.2])
    assert labels == ["0.1", "0.2"] and C.tolist() == [[2, 0], [0, 2]]


def test_service_names_the_field_of_a_check_across_fields():
    from fastapi.testclient import TestClient

    from bayeseval.service import create_app

    lab = {"item": 1, "model_a": "x", "model_b": "y", "winner": "a"}
    with TestClient(create_app()) as c:
        for body, field in (({"labels": [lab], "a": "x"}, "b"), ({"labels": [lab], "a": "x", "b": "y",
                                                                 "ties": "davidson"}, "ties"),
                            ({"labels": [lab, {**lab, "first": "model_a"}]}, "labels")):
            r = c.post("/v1/pairwise", json=body)
            assert r.status_code == 422 and r.json()["error"]["field"] == field, r.text


# ----------------------------------------------------------------------------- judge agreement, names, order
def test_kappa_interval_at_perfect_agreement_is_the_agreement_interval_carried_over():
    a = judge_agreement([1, 0] * 5, [1, 0] * 5)
    lo_agree = a.agreement_interval[0]
    p_e = 0.5  # both sides use each label half the time
    assert a.kappa == 1.0 and a.kappa_interval == pytest.approx(((lo_agree - p_e) / (1 - p_e), 1.0))
    assert 0.5 < a.kappa_interval[0] < 0.6 and any("Wald standard error is 0" in w for w in a.warnings)


def test_model_names_given_as_the_data_writes_them():
    p = from_long({"item": [1, 2, 3], "model_a": [1, 1, 2], "model_b": [2, 2, 1], "winner": ["a", "b", "a"]})
    r = win_rate(p, 1, 2)
    assert r.summary().startswith("1 vs 2")
    q = from_long({"item": [1, 2], "model_a": [" gpt", "gpt"], "model_b": ["m", "m"], "winner": ["a", "a"]})
    assert win_rate(q, " gpt", "m").summary().startswith("gpt vs m")


def test_order_value_that_is_a_code_and_the_other_models_name_is_refused():
    with pytest.raises(ValueError, match=r"order: row 0 holds 'a', both an order code and the name of a model"):
        from_long({"item": [1, 2], "model_a": ["b", "x"], "model_b": ["a", "y"], "winner": ["model_a", "model_b"],
                   "order": ["a", "model_a"]}, order="order")
    p = from_long({"item": [1, 2], "model_a": ["m", "x"], "model_b": ["n", "y"], "winner": ["model_a", "model_b"],
                   "order": ["a", "y"]}, order="order")
    assert p.a_first.tolist() == [True, False]


# ----------------------------------------------------------------------------- metrics
def test_many_categories_with_one_used_match_scorio():
    w = np.arange(17) / 16
    R = np.array([[16, 16], [16, 16]])
    assert be.avg(R, w)[0] == 1.0 and be.estimate(R, "avg", w=w).value == 1.0 and be.max_at_k(R, 2, w) == 1.0
    w = np.arange(101) / 100
    R = np.full((3, 4), 100)
    # scorio 0.2.3: avg (1.0, 0.44387), bayes (0.51905, 0.016909), max_at_k 1.0
    assert be.avg(R, w) == pytest.approx((1.0, 0.44387), abs=1e-5)
    assert be.bayes(R, w) == pytest.approx((0.51905, 0.016909), abs=1e-5)


def test_threshold_is_in_the_label_so_rows_do_not_collide():
    R = np.array([[0.2, 0.7, 0.9], [0.1, 0.3, 0.6], [0.8, 0.9, 0.95], [0.4, 0.45, 0.5]])
    ev = be.evaluate({"m": R}, ["avg", ("avg", {"threshold": 0.5}), ("avg", {"threshold": 0.8})])
    # plain mean 17/30; above 0.5: 6 of 12; above 0.8: 3 of 12
    assert ev["m", "avg"].value == pytest.approx(17 / 30)
    assert ev["m", "avg (threshold=0.5)"].value == pytest.approx(0.5)
    assert ev["m", "avg (threshold=0.8)"].value == pytest.approx(0.25)
    assert sorted(ev.to_xarray()["value"].values.ravel().tolist()) == pytest.approx([0.25, 0.5, 17 / 30])


def test_avg_at_n_refuses_questions_with_fewer_replicas():
    with pytest.raises(ValueError, match=r"names 3 replicas per question, but 1 question\(s\) have fewer"):
        be.estimate([[1, 1, 1], [0]], "avg@3", ragged=True)
    with pytest.raises(ValueError, match=r"1 question\(s\) have fewer \(as few as 1\)"):
        be.estimate(np.array([[1, 1, 1], [0, np.nan, np.nan]]), "avg@3", missing=np.nan)
    assert be.estimate([[1, 1, 1], [0, 1, 0]], "avg@3").value == pytest.approx(4 / 6)


def test_tailpass_moment_of_a_constant_score_has_no_spread():
    # every attempt scores the same: S is constant, E[S^lam] = 0.5^2 exactly with sd 0 (scorio 0.2.3 gives 0)
    assert be.tailpass([[1, 1, 0, 0, 0]], 5, w=[0.5, 0.5]).moment(2) == (0.25, 0.0)
    assert be.tailpass([[1, 0, 1, 1]], 3, w=[1.0, 1.0], thresholds=[0.4, 0.8, 1.0]).moment(3) == (1.0, 0.0)


def test_ppi_intervals_of_a_share_stay_in_range_and_an_estimate_outside_it_is_named():
    """0/1 human labels: the normal intervals ran past 1 (classical hi 1.046 for 19 of 20); they are cut at the
    range, and a prediction-powered estimate outside it (1.144: unbiased, not range-keeping) is warned, not hidden."""
    from scipy import stats as st

    y = np.r_[np.ones(19), 0.0]
    f = np.r_[np.ones(15), np.zeros(5)]
    r = ppi_mean(y, f, np.ones(100))
    z = st.norm.ppf(0.975)
    se_c = np.sqrt(0.95 * 0.05 / 20)
    assert r.classical["lo"] == pytest.approx(0.95 - z * se_c, rel=1e-12) and r.classical["hi"] == 1.0
    lam = r.lam
    assert r.estimate == pytest.approx(lam * 1.0 + (y - lam * f).mean(), rel=1e-12) and r.estimate > 1
    assert r.hi > r.lo > 1  # left as computed: cutting it would read as certainty
    assert any("lies outside [0, 1]" in w and "20 human labels" in w for w in r.warnings)
    inside = ppi_mean(np.r_[np.ones(18), 0, 0], np.r_[np.ones(17), 0, 1, 0], np.r_[np.ones(95), np.zeros(5)])
    assert inside.estimate + z * inside.se > 1.0  # the normal interval's end, before the cut
    assert inside.hi == 1.0 and inside.lo == pytest.approx(inside.estimate - z * inside.se, rel=1e-12)
    assert inside.lo < inside.estimate < 1.0 and not inside.warnings
    scores = ppi_mean([0.9, 1.0, 0.95, 1.0], [0.9, 1.0, 0.9, 1.0], [1.0, 1.0])  # not 0/1: no range is assumed
    assert scores.hi > 1.0


def test_ppi_rounding_past_one_is_one_not_outside_the_range():
    """Humans and judge agreeing on every label with lam = 0.2 gave 1.0000000000000002, 'outside [0, 1]', a se of
    1e-17 and an interval above 1 (a review found it in 102 of 3,000 random draws)."""
    r = ppi_mean([1, 1, 1], [1, 1, 1], [1, 1, 1], lam=0.2)
    assert (r.estimate, r.lo, r.hi, r.se) == (1.0, 1.0, 1.0, 0.0)
    assert len(r.warnings) == 1 and "standard error is 0" in r.warnings[0]
