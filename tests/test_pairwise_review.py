"""Review of pairwise preferences: the benchmark-scope interval (F2), a verdict that must agree with the numbers
shown beside it (F5), duplicated rows and the label count of ``bradley_terry`` with ties left out (F8), and the
service route against the library.

Every expected number is computed here from the raw labels (pandas / numpy / scipy: per-item shares, within-item
sample variances, Welch-Satterthwaite degrees of freedom, Student-t quantiles, Dirichlet Monte Carlo), or by
simulation with a fixed seed.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayeseval.pairwise import Preferences, bradley_terry, from_long, from_wide, win_rate

DATA = Path(__file__).resolve().parents[1] / "examples" / "data" / "pandalm_testset_labels.csv"
ANN = ["annotator1", "annotator2", "annotator3"]
CODE = {"1": 1.0, "0": 0.5, "2": 0.0}  # PandaLM: 1 = first model preferred, 2 = second, 0 = tie


def pandalm():
    return pd.read_csv(DATA, dtype=str)


def pandalm_prefs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the bundled labels have no duplicated rows: no warning
        return from_wide(pandalm(), ANN, item="idx", model_a="model_1", model_b="model_2")


def pair_scores(a, b):
    """``(items, 3)`` label scores of ``a`` over ``b`` on their PandaLM items (1 / 0.5 / 0), by hand."""
    d = pandalm()
    sel = d[((d.model_1 == a) & (d.model_2 == b)) | ((d.model_1 == b) & (d.model_2 == a))]
    v = np.vectorize(CODE.get)(sel[ANN].to_numpy()).astype(float)
    flip = (sel.model_1 == b).to_numpy()
    v[flip] = 1.0 - v[flip]
    return v


def t_interval(v, level=0.95):
    """Mean over items of per-item mean scores, t interval with the unbiased error variance sum_i s_i^2 / n_i / M^2
    and Welch-Satterthwaite degrees of freedom (every item with the same n >= 2 labels)."""
    M, n = v.shape
    m = v.mean(axis=1)
    V = v.var(axis=1, ddof=1) / n
    se = math.sqrt(V.sum()) / M
    df = V.sum() ** 2 / (V**2 / (n - 1)).sum()
    t = stats.t.ppf(0.5 + level / 2, df)
    return float(m.mean()), float(m.mean() - t * se), float(m.mean() + t * se), se


# ----------------------------------------------------------------------------- F2: benchmark scope
def test_benchmark_scope_on_pandalm_is_centred_at_the_value_with_the_t_interval_of_the_label_spread():
    v = pair_scores("llama-7b", "bloom-7b")
    want, lo, hi, se = t_interval(v)
    assert want == pytest.approx(0.6952, abs=5e-5) and v.shape == (111, 3)
    r = win_rate(pandalm_prefs(), "llama-7b", "bloom-7b", scope="benchmark", draws=40_000)
    assert r.value == pytest.approx(want, abs=1e-12) and r.mean == pytest.approx(want, abs=1e-12)
    # the posterior is centred at the value: it is not an end of the interval (it was: [0.5718, 0.6952])
    assert (r.lo, r.hi) == pytest.approx((lo, hi), abs=1e-12)  # the t quantiles themselves, not 4,000 draws'
    assert r.lo < r.value - 0.015 and r.hi > r.value + 0.015
    assert r.warnings == ()
    # P(llama preferred): P(mean share > 1/2), t with the same degrees of freedom: (0.695 - 0.5) / se is ~ 22
    assert r.p_a_better == 1.0


def test_benchmark_scope_ties_excluded_is_the_ratio_of_mean_shares_linearised():
    v = pair_scores("llama-7b", "bloom-7b")
    w, l = (v == 1.0).mean(axis=1), (v == 0.0).mean(axis=1)  # per-item shares of llama / bloom preferred
    R = w.sum() / (w + l).sum()
    # the ratio's influence per label: (1[llama] - R 1[decided]) / mean decided share
    z = ((v == 1.0) - R * (v != 0.5)) / (w + l).mean()
    _, zlo, zhi, se = t_interval(z)
    r = win_rate(pandalm_prefs(), "llama-7b", "bloom-7b", scope="benchmark", ties="exclude", draws=40_000)
    assert r.value == pytest.approx(R, abs=1e-12) and R == pytest.approx(0.7181, abs=5e-5)
    assert (r.lo, r.hi) == pytest.approx((R + zlo, R + zhi), abs=1e-12)
    assert r.lo < R - 0.015 and r.hi > R + 0.015  # was [0.592, 0.718]: the value as the upper end


def _simulate(rng, M, L, ties=False):
    """M items, P(A preferred) per item ~ Beta(7, 3), per-item tie probability ~ Beta(2, 6) when ``ties``; L labels
    per item, each drawn on its own (a uniform against the item's cumulative shares), read by ``from_long``;
    returns Preferences and the two estimands (mean split share; ratio of mean decided shares)."""
    p = rng.beta(7.0, 3.0, M)
    tie = rng.beta(2.0, 6.0, M) if ties else np.zeros(M)
    win, lose = (1 - tie) * p, (1 - tie) * (1 - p)
    u = rng.random((M, L))
    verdict = np.where(u < win[:, None], "x", np.where(u < (win + tie)[:, None], "tie", "y"))
    prefs = from_long({"item": np.repeat(np.arange(M), L), "model_a": ["x"] * (M * L), "model_b": ["y"] * (M * L),
                       "winner": verdict.ravel()})
    return prefs, float((win + tie / 2).mean()), float(win.sum() / (win + lose).sum())


@pytest.mark.slow
@pytest.mark.parametrize("L, ties", [(3, False), (10, False), (3, True)])
def test_benchmark_scope_covers_the_mean_of_these_items_shares(L, ties):
    """The reviewer's simulation (100 items, Beta(7, 3) shares; truth = these items' mean share): the old interval
    covered 55% (3 labels) and 59% (10 labels)."""
    rng = np.random.default_rng(20260401 + L + 7 * ties)
    reps, hit, hit_e = 200, 0, 0
    for _ in range(reps):
        prefs, truth, truth_e = _simulate(rng, 100, L, ties)
        r = win_rate(prefs, "x", "y", scope="benchmark", resamples=100, draws=2000)
        hit += r.lo <= truth <= r.hi
        if ties:
            e = win_rate(prefs, "x", "y", scope="benchmark", ties="exclude", resamples=100, draws=2000)
            hit_e += e.lo <= truth_e <= e.hi
    assert 0.90 <= hit / reps <= 0.99  # 95% +- 3 Monte Carlo standard errors (1.5 points each)
    if ties:
        assert 0.90 <= hit_e / reps <= 0.99


def test_benchmark_scope_one_label_per_item_warns_and_takes_the_across_item_bound():
    rng = np.random.default_rng(11)
    prefs, _, _ = _simulate(rng, 400, 1)
    r = win_rate(prefs, "x", "y", scope="benchmark", draws=40_000)
    assert any("one label on 400 of 400 items" in w and "bound" in w for w in r.warnings)
    y = np.where(prefs.outcome == 1, 1.0, 0.0)  # one label per item: its score
    half = stats.t.ppf(0.975, 399) * y.std(ddof=1) / math.sqrt(400)  # the across-item spread, a bound on the error
    assert r.value == pytest.approx(y.mean(), abs=1e-12)
    assert (r.hi - r.lo) / 2 == pytest.approx(half, rel=0.05)
    # some items with one label, others with three: the warning counts them
    mixed = Preferences(("x", "y"), tuple(range(4 * 10)), np.repeat(np.arange(40), [1] * 10 + [3] * 30),
                        np.zeros(100, np.int64), np.ones(100, np.int64), np.resize([1, -1, 0, 1, 1], 100))
    assert any("one label on 10 of 40 items" in w for w in win_rate(mixed, "x", "y", scope="benchmark").warnings)


# ----------------------------------------------------------------------------- F5: the verdict and its numbers
def _lopsided():
    items = [0] * 60 + list(range(1, 31))
    w = ["x"] * 60 + ["y"] * 22 + ["x"] * 8
    return from_long({"item": items, "model_a": ["x"] * 90, "model_b": ["y"] * 90, "winner": w})


def test_one_item_with_sixty_labels_is_one_item_the_numbers_agree_with_the_verdict():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 60 anonymous labels on one item are labels, not a duplicated table
        p = _lopsided()
    r = win_rate(p, "x", "y")
    # items weighted equally: item 0 is one x-preferring item, 8 more prefer x, 22 prefer y
    share_w = np.array([1.0] + [0.0] * 22 + [1.0] * 8)
    n_i = np.array([60] + [1] * 30)
    M = 31
    assert r.value == pytest.approx(share_w.mean(), abs=1e-12) and r.value == pytest.approx(9 / 31)
    # population posterior by hand: labels an item-weighted mean is worth, the design effect of d_i = +-1
    d = 2 * share_w - 1
    n_h = M * M / (1.0 / n_i).sum()
    v_clu = ((d - d.mean()) ** 2).sum() / (M * (M - 1))
    v_iid = (1.0 - d.mean() ** 2) / n_h
    D = max(1.0, v_clu / v_iid)
    assert r.design_effect == pytest.approx(D, rel=1e-12) and D == pytest.approx(n_h / 30)
    aw, al = 1 + n_h / D * share_w.mean(), 1 + n_h / D * (1 - share_w.mean())
    assert r.p_a_better == pytest.approx(stats.beta.sf(0.5, aw, al), abs=1e-10)
    x = np.random.default_rng(3).dirichlet([aw, 1.0, al], 400_000)
    lo, hi = np.quantile(x[:, 0] + x[:, 1] / 2, [0.025, 0.975])
    assert r.lo == pytest.approx(lo, abs=3e-3) and r.hi == pytest.approx(hi, abs=3e-3)
    # coherent: the verdict (sign-flip test over items) says y; the win rate and P(x preferred) are below 1/2
    assert r.decision == "B" and r.value < 0.5 and r.p_a_better < 0.05 and r.hi < 0.5
    text = r.summary()
    assert "y is preferred" in text and "0.2903" in text and "0.7556" not in text.split("warning")[0]
    # the label-pooled rate is named, with why the verdict does not use it
    note = [w for w in r.warnings if "pooling the labels" in w]
    assert note and "0.7556" in note[0] and "60 labels is one item" in note[0]
    b = win_rate(p, "x", "y", scope="benchmark")
    assert b.value == pytest.approx(9 / 31) and b.p_a_better < 0.05 and b.decision == "B"
    e = win_rate(p, "x", "y", ties="exclude")
    assert e.value == pytest.approx(9 / 31) and e.hi < 0.5


def test_equal_labels_per_item_keep_the_pooled_numbers():
    """With the same number of labels on every item the item-weighted shares are the pooled ones: PandaLM's
    llama-7b vs opt-7b as documented, 0.715 [0.631, 0.783], hand Dirichlet Monte Carlo with the pooled design
    effect."""
    d = pandalm()
    sel = d[d.model_1.isin(["llama-7b", "opt-7b"]) & d.model_2.isin(["llama-7b", "opt-7b"])]
    v = np.vectorize(CODE.get)(sel[ANN].to_numpy()).astype(float)
    v[(sel.model_1 == "opt-7b").to_numpy()] = 1.0 - v[(sel.model_1 == "opt-7b").to_numpy()]
    W, T, L = int((v == 1).sum()), int((v == 0.5).sum()), int((v == 0).sum())
    n, M = v.size, v.shape[0]
    y = (v == 1).sum(axis=1) - (v == 0).sum(axis=1)
    r_ = (W - L) / n
    D = max(1.0, ((y - r_ * 3) ** 2).sum() / n**2 * M / (M - 1) / (((W + L) / n - r_**2) / n))
    x = np.random.default_rng(5).dirichlet([1 + W / D, 1 + T / D, 1 + L / D], 400_000)
    lo, hi = np.quantile(x[:, 0] + x[:, 1] / 2, [0.025, 0.975])
    r = win_rate(pandalm_prefs(), "llama-7b", "opt-7b")
    assert r.value == pytest.approx((W + T / 2) / n, abs=1e-12) and r.design_effect == pytest.approx(D, rel=1e-10)
    assert (round(r.value, 3), round(r.lo, 3), round(r.hi, 3)) == (0.715, 0.631, 0.783)
    assert r.lo == pytest.approx(lo, abs=2e-3) and r.hi == pytest.approx(hi, abs=2e-3)
    assert not any("pooling" in w for w in r.warnings)


# ----------------------------------------------------------------------------- F8: duplicated rows, label counts
def test_duplicated_rows_with_a_judge_column_are_warned_naming_how_many():
    d = pandalm().head(40)
    twice = pd.concat([d, d.iloc[:7]])  # 7 items written twice: 21 labels repeat (3 judges each)
    with pytest.warns(UserWarning, match=r"^21 row\(s\) repeat an earlier row exactly"):
        p = from_wide(twice, ANN, item="idx", model_a="model_1", model_b="model_2")
    assert p.duplicates == 21 and p.n_labels == 141
    s = bradley_terry(p)
    assert any(w.startswith("21 row(s) repeat an earlier row") for w in s.warnings)
    a, b = p.models[0], p.models[1]
    pair = p.pair_counts(a, b)[0]
    assert pair.sum() > 0
    assert any(w.startswith("21 row(s)") for w in win_rate(p, a, b).warnings)


def test_a_table_written_twice_without_a_judge_column_is_warned():
    rng = np.random.default_rng(9)
    base = pd.DataFrame({"item": np.repeat(np.arange(30), 2), "model_a": ["x", "y"] * 30, "model_b": ["y", "x"] * 30,
                         "winner": rng.choice(["model_a", "model_b", "tie"], 60), "first": ["model_a"] * 60})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        once = from_long(base, order="first")
    with pytest.warns(UserWarning, match=r"60 row\(s\) repeat an earlier one"):
        doubled = from_long(pd.concat([base, base]), order="first")
    assert once.duplicates == 0 and doubled.duplicates == 60
    r = win_rate(doubled, "x", "y", scope="benchmark")
    assert any("as if the table were written more than once" in w for w in r.warnings)
    # with repeats numbered, the copies are labels and nothing is said
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        numbered = from_long(pd.concat([base.assign(rep=0), base.assign(rep=1)]), order="first", repeat="rep")
    assert numbered.duplicates == 0


def test_bradley_terry_with_ties_excluded_counts_the_labels_it_uses():
    d = pandalm()
    verdicts = d[ANN].to_numpy()
    ties = int((verdicts == "0").sum())
    decided_items = int((verdicts != "0").any(axis=1).sum())
    s = bradley_terry(pandalm_prefs(), ties="exclude")
    assert s.n_labels == verdicts.size - ties and s.ties_left_out == ties and ties > 0
    assert s.n_items == decided_items
    assert f"{verdicts.size - ties} decided labels (ties left out: {ties}) on {decided_items} items" in s.summary()
    assert s.to_dict()["ties_left_out"] == ties
    full = bradley_terry(pandalm_prefs())
    assert full.n_labels == verdicts.size and full.ties_left_out == 0 and f"{verdicts.size} labels on" in full.summary()


# ----------------------------------------------------------------------------- the service route
def test_service_pairwise_route_agrees_with_the_library_in_benchmark_scope():
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from bayeseval.service import create_app
    from bayeseval.service.settings import Settings

    d = pandalm()
    code = {"1": "model_a", "2": "model_b", "0": "tie"}
    labels = [{"item": int(r.idx), "model_a": r.model_1, "model_b": r.model_2, "winner": code[getattr(r, a)],
               "judge": a} for r in d.itertuples() for a in ANN]
    table = {k: [lab[k] for lab in labels] for k in ("item", "model_a", "model_b", "winner", "judge")}
    prefs = from_long(table, judge="judge")
    with TestClient(create_app(Settings(workers=0))) as c:
        for ties in ("split", "exclude"):
            body = {"labels": labels, "a": "llama-7b", "b": "bloom-7b", "scope": "benchmark", "ties": ties}
            got = c.post("/v1/pairwise", json=body)
            assert got.status_code == 200, got.text
            want = win_rate(prefs, "llama-7b", "bloom-7b", scope="benchmark", ties=ties).to_dict()
            assert got.json() == json.loads(json.dumps(want))
            assert got.json()["lo"] < got.json()["value"] < got.json()["hi"]
        dup = labels + labels[:6]  # two items' three labels written twice
        got = c.post("/v1/pairwise", json={"labels": dup, "ties": "exclude"})
        assert got.status_code == 200, got.text
        assert [w for w in got.json()["warnings"] if "repeat an earlier row" in w] == [
            "6 row(s) repeat an earlier row exactly (same item, models, judge, order and verdict) and are counted as "
            "separate labels: drop them if the table was duplicated; if the judge labelled the item again (a repeat, "
            "a second turn), number the repeats (repeat=) or make the turn part of the item id"]
        assert got.json()["n_labels"] + got.json()["ties_left_out"] == len(dup)


# ----------------------------------------------------------------------------- judge_agreement's labels
def test_agreement_reads_labels_as_classification_does():
    from sklearn.metrics import cohen_kappa_score

    from bayeseval.pairwise import judge_agreement

    h = [True] * 12 + [False] * 8
    j = [True] * 9 + [False] * 3 + [False] * 7 + [True]
    a = judge_agreement(h, j)
    assert a.labels == ["False", "True"] and a.warnings == ()
    # True / False labels: sensitivity and specificity as for 1 / 0 (they were left out)
    assert a.sensitivity["value"] == 0.75 and a.specificity["value"] == 7 / 8
    want = stats.beta.ppf([0.025, 0.975], 9.5, 3.5)
    assert (a.sensitivity["lo"], a.sensitivity["hi"]) == pytest.approx(tuple(want), rel=1e-12)
    assert a.kappa == pytest.approx(cohen_kappa_score(h, j), abs=1e-12)
    # True against 1: different labels (as in classification), and a warning says every item disagrees
    mixed = judge_agreement(h, [int(v) for v in j])
    assert mixed.agreement == 0.0 and any("no judge label is one of the human labels" in w for w in mixed.warnings)
    # case is kept (it was folded silently) and named
    c = judge_agreement(["Yes", "No", "yes", "Yes"], ["Yes", "no", "yes", "Yes"])
    assert c.agreement == 0.75 and c.labels == ["No", "Yes", "no", "yes"]
    assert c.kappa == pytest.approx(cohen_kappa_score(["Yes", "No", "yes", "Yes"], ["Yes", "no", "yes", "Yes"]))
    assert any("'No' and 'no'" in w for w in c.warnings) and "warning: labels that differ only in case" in c.summary()
    # numbers by value: 2 before 10
    assert judge_agreement([1, 2, 10, 2], [1.0, "2", 10, 10]).labels == ["1", "2", "10"]


def test_agreement_intervals_hold_their_values_and_no_nan():
    import json

    from bayeseval.pairwise import judge_agreement

    a = judge_agreement([1, 1, 1, 0, 0], [1, 1, 1, 1, 1])  # the judge always says 1
    assert a.recall["1"]["value"] == 1.0 and a.recall["1"]["hi"] == 1.0  # Jeffreys ends at 1 when x = n
    assert a.recall["0"]["value"] == 0.0 and a.recall["0"]["lo"] == 0.0
    assert a.recall["1"]["lo"] == pytest.approx(stats.beta.ppf(0.025, 3.5, 0.5), rel=1e-12)
    assert a.kappa == 0.0 and a.kappa_interval is None  # no spread: one side uses one label
    b = judge_agreement(["x", "y", "x"], ["x", "y", "z"])  # 'z' only from the judge: no recall of 'z'
    assert set(b.recall) == {"x", "y"}
    json.dumps(b.to_dict(), allow_nan=False)
    lo, hi = judge_agreement(["a", "b", "a"], ["a", "b", "b"]).kappa_interval
    assert -1.0 <= lo < hi <= 1.0


def test_benchmark_scope_coverage_quoted_in_the_docs_is_the_benchmark_results():
    """docs/pairwise.md's benchmark-scope table and the sentences under it are read here from
    results_coverage_pairwise_benchmark.md (now) and ..._before.md (the former interval)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]

    def cells(name):
        out = {}
        for line in (root / "benchmarks" / name).read_text(encoding="utf-8").splitlines():
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(c) == 7 and c[1].isdigit():
                vals = [float(v) for v in c[4:6] if v != "-"]
                out.setdefault((c[0].split(":")[0], c[2]), []).extend(vals)
        return out

    now = cells("results_coverage_pairwise_benchmark.md")
    before = cells("results_coverage_pairwise_benchmark_before.md")
    assert len(now) == 12 and all(len(v) == 9 for v in now.values())
    doc = " ".join((root / "docs" / "pairwise.md").read_text(encoding="utf-8").split())
    for (pool, labels), v in now.items():
        b = before[pool, labels]
        row = f"| {labels} | {min(b):.0f} - {max(b):.0f}% | {min(v):.1f} - {max(v):.1f}% |"
        assert row in doc, (pool, labels)
    many = [x for (_, labels), v in now.items() if labels != "1" for x in v]
    one = [x for (_, labels), v in now.items() if labels == "1" for x in v if not 93 <= x <= 97]
    assert f"every cell lies in [93, 97] ({min(many):.1f} - {max(many):.1f}%)" in doc and 93 <= min(many)
    assert f"The {len(one)} cells outside now all have one label per item and over-cover ({min(one):.1f} - " \
           f"{max(one):.1f}%)" in doc
    outside = sum(not 93 <= x <= 97 for v in before.values() for x in v)
    assert f"the former interval had {outside} of 108 cells outside it" in doc


def test_kappas_zero_standard_error_warning_says_whether_the_labels_agree_on_every_item_or_none():
    """The fallback interval also serves labels that agree on no item (kappa -1), whose warning said they agree on
    every item."""
    from bayeseval.pairwise import judge_agreement

    none = judge_agreement(["x", "y", "x", "y"], ["y", "x", "y", "x"])
    assert none.agreement == 0.0 and none.kappa == -1.0
    assert any("(the labels agree on no item)" in w for w in none.warnings)
    every = judge_agreement(["x", "y", "x", "y"], ["x", "y", "x", "y"])
    assert every.kappa == 1.0 and any("(the labels agree on every item)" in w for w in every.warnings)


def test_a_verdict_on_the_mid_p_alone_is_marked_tentative_as_in_compare():
    """5 of 5 items for x: the exact sign-flip p is 0.0625, its mid-p 0.031 names x; compare marks such a verdict
    tentative and win_rate said only 'x is preferred'."""
    import bayeseval as be

    frame = pd.DataFrame([[i, "x", "y", "model_a"] for i in range(5)], columns=["item", "model_a", "model_b", "winner"])
    r = win_rate(from_long(frame), "x", "y")
    assert r.decision == "A" and r.permutation["p_value"] == pytest.approx(0.0625)
    assert r.verdict == ("x is preferred (tentative: 5 of 5 items prefer a side; the sign-flip p = 0.0625 > 0.05, its "
                         "mid-p 0.03125 decides)")
    assert r.to_dict()["verdict"] == r.verdict and any("borderline" in w for w in r.warnings)
    c = be.compare(np.ones((5, 1), int), np.zeros((5, 1), int))  # the same five one-sided questions
    assert "tentative" in c.verdict and c.decision == "A"
    frame8 = pd.DataFrame([[i, "x", "y", "model_a"] for i in range(8)], columns=frame.columns)
    assert win_rate(from_long(frame8), "x", "y").verdict == "x is preferred"  # p = 0.0078: no mark
