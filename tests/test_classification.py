"""Classification metrics: point values against scikit-learn, posteriors against Dirichlet Monte Carlo and the
Goutte-Gaussier closed form, the paired comparison against statsmodels' McNemar, bad input, and coverage."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayeseval.classification import classification, compare_classifiers, confusion

sk = pytest.importorskip("sklearn.metrics")


def data(seed=0, n=400, K=4, acc=0.7):
    rng = np.random.default_rng(seed)
    labels = [f"c{k}" for k in range(K)]
    y = rng.choice(labels, n, p=np.linspace(1, 2, K) / np.linspace(1, 2, K).sum())
    wrong = rng.choice(labels, n)
    return y, np.where(rng.random(n) < acc, y, wrong)


def prior_matrix(K, a=0.5):
    """Its one-vs-rest margins are the per-class priors: a on each class's TP, FN and FP cells."""
    return np.full((K, K), a / (K - 1)) + (a - a / (K - 1)) * np.eye(K)


def aggregate_prior(K, a=0.5):
    """The prior of accuracy, balanced accuracy and macro F1: mass 2a, a / K per diagonal cell."""
    return np.where(np.eye(K, dtype=bool), a / K, a / (K * (K - 1)))


def test_point_values_equal_scikit_learn():
    y, p = data()
    p = np.where(p == "c3", "c2", p)  # c3 never predicted: precision 0/0
    r = classification(y, p)
    labels = sorted(set(y) | set(p))
    assert r.metrics["accuracy"]["value"] == pytest.approx(sk.accuracy_score(y, p), abs=1e-15)
    assert r.metrics["balanced_accuracy"]["value"] == pytest.approx(sk.balanced_accuracy_score(y, p), abs=1e-15)
    assert r.metrics["macro_f1"]["value"] == pytest.approx(sk.f1_score(y, p, average="macro", zero_division=0), abs=1e-15)
    assert r.metrics["micro_f1"]["value"] == pytest.approx(sk.f1_score(y, p, average="micro"), abs=1e-15)
    P, R, F, S = sk.precision_recall_fscore_support(y, p, labels=labels, zero_division=0)
    for k, lab in enumerate(labels):
        assert r.per_class[lab]["precision"]["value"] == pytest.approx(P[k], abs=1e-15)
        assert r.per_class[lab]["recall"]["value"] == pytest.approx(R[k], abs=1e-15)
        assert r.per_class[lab]["f1"]["value"] == pytest.approx(F[k], abs=1e-15)
        assert r.per_class[lab]["support"] == S[k]
    np.testing.assert_array_equal(r.confusion, sk.confusion_matrix(y, p, labels=labels))
    assert any("'c3' is never predicted" in w for w in r.warnings)


def test_exact_posteriors_against_dirichlet_monte_carlo():
    y, p = data(seed=1, n=150, K=3)
    r = classification(y, p, draws=20_000)  # Monte-Carlo error of the draws well inside the tolerance
    C = r.confusion
    K = C.shape[0]
    th = np.random.default_rng(2).dirichlet((prior_matrix(K) + C).ravel(), size=400_000).reshape(-1, K, K)
    d = np.diagonal(th, axis1=1, axis2=2)
    q = [0.025, 0.975]

    def close(summary, x):
        assert (summary["lo"], summary["hi"]) == pytest.approx(tuple(np.quantile(x, q)), abs=3e-3)

    for k, lab in enumerate(r.labels):
        close(r.per_class[lab]["recall"], d[:, k] / th[:, k, :].sum(axis=1))
        close(r.per_class[lab]["precision"], d[:, k] / th[:, :, k].sum(axis=1))
        f1 = 2 * d[:, k] / (th[:, k, :].sum(axis=1) + th[:, :, k].sum(axis=1))
        close(r.per_class[lab]["f1"], f1)
        assert r.per_class[lab]["f1"]["mean"] == pytest.approx(f1.mean(), abs=1e-3)
    th = np.random.default_rng(3).dirichlet((aggregate_prior(K) + C).ravel(), size=400_000).reshape(-1, K, K)
    d = np.diagonal(th, axis1=1, axis2=2)
    close(r.metrics["accuracy"], d.sum(axis=1))
    close(r.metrics["macro_f1"], (2 * d / (th.sum(axis=2) + th.sum(axis=1))).mean(axis=1))
    close(r.metrics["balanced_accuracy"], (d / th.sum(axis=2)).mean(axis=1))


def test_binary_f1_is_goutte_gaussier():
    # F1 = 2B / (1 + B), B ~ Beta(TP + a, FP + FN + 2a), a = 1/2 per cell (the binary prior)
    y = np.array([1] * 30 + [0] * 70)
    p = np.array([1] * 22 + [0] * 8 + [1] * 5 + [0] * 65)
    r = classification(y, p, positive=1)
    TP, FN, FP = 22, 8, 5
    q = stats.beta.ppf([0.025, 0.975], TP + 0.5, FP + FN + 1.0)
    assert (r.metrics["f1"]["lo"], r.metrics["f1"]["hi"]) == pytest.approx(tuple(2 * q / (1 + q)), rel=1e-12)
    assert r.metrics["f1"]["value"] == pytest.approx(2 * TP / (2 * TP + FP + FN))
    assert r.metrics["f1"]["method"] == "exact (2B / (1 + B))"
    same = classification(confusion_matrix=[[65, 5], [8, 22]], labels=[0, 1], positive=1)
    assert same.metrics["f1"] == r.metrics["f1"]


def test_imbalance_warning_on_the_always_other_classifier():
    rng = np.random.default_rng(3)
    y = rng.choice(["other", "billing", "bug"], 500, p=[0.92, 0.05, 0.03])
    lazy = classification(y, np.full(500, "other"))
    assert any("accuracy misleads here" in w and "balanced accuracy" in w for w in lazy.warnings)
    assert lazy.metrics["balanced_accuracy"]["value"] == pytest.approx(1 / 3)
    good = classification(y, np.where(rng.random(500) < 0.97, y, "other"))
    assert not any("misleads" in w for w in good.warnings)


def test_every_interval_contains_its_value():
    r = classification(["a"] * 20 + ["b"] * 20, ["a"] * 20 + ["b"] * 20)  # perfect
    for v in list(r.metrics.values()) + [m for d in r.per_class.values() for k, m in d.items() if k != "support"]:
        assert v["lo"] <= v["value"] <= v["hi"]


def test_repeated_predictions_per_item_use_the_design_effect():
    y, p = data(seed=4, n=120, K=2, acc=0.8)
    one = classification(y, p)
    rep = classification(np.repeat(y, 3), np.repeat(p, 3), items=np.repeat(np.arange(120), 3))
    assert rep.design_effect == pytest.approx(3 * 120 / 119)
    w1 = one.metrics["accuracy"]["hi"] - one.metrics["accuracy"]["lo"]
    w3 = rep.metrics["accuracy"]["hi"] - rep.metrics["accuracy"]["lo"]
    assert w3 == pytest.approx(w1, rel=0.03)  # copies of a prediction carry no new information


def test_compare_classifiers_closed_form_and_mcnemar():
    from statsmodels.stats.contingency_tables import mcnemar

    y, pa = data(seed=5, n=200, K=3, acc=0.75)
    _, pb = data(seed=6, n=200, K=3, acc=0.65)
    c = compare_classifiers(y, pa, pb)
    ra, rb = pa == y, pb == y
    n10, n01 = int((ra & ~rb).sum()), int((~ra & rb).sum())
    same = 200 - n10 - n01
    th = np.random.default_rng(7).dirichlet([0.5 + n10, 1.0 + same, 0.5 + n01], size=1_000_000)
    assert c.p_a_better == pytest.approx(float((th[:, 0] > th[:, 2]).mean()), abs=2e-3)
    diff = th[:, 0] - th[:, 2]
    assert (c.delta["lo"], c.delta["hi"]) == pytest.approx(tuple(np.quantile(diff, [0.025, 0.975])), abs=2e-3)
    assert c.delta["value"] == pytest.approx(ra.mean() - rb.mean())
    table = [[int((ra & rb).sum()), n10], [n01, int((~ra & ~rb).sum())]]
    assert c.mcnemar["exact"]["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    ({"y_true": [1, 0], "y_pred": [1]}, "same length"),
    ({"y_true": [1, None], "y_pred": [1, 0]}, "y_true is missing a label at position 1"),
    ({"confusion_matrix": [[1, 2, 3]]}, "must be square"),
    ({"confusion_matrix": [[1, -2], [0, 3]]}, "non-negative integer counts"),
    ({"confusion_matrix": [[1.5, 2], [0, 3]]}, "non-negative integer counts"),
    ({"confusion_matrix": [[1, 2], [0, 3]], "labels": ["a"]}, "labels has 1 entries"),
    ({"y_true": [1, 0], "y_pred": [1, 0], "positive": 2}, "positive 2 is not one of the labels"),
    ({"y_true": [1, 0, 2], "y_pred": [1, 0, 2], "positive": 1}, "positive is for two classes"),
    ({"y_true": [1, 0, 2], "y_pred": [1, 0, 2], "labels": [0, 1]}, "labels does not list '2'"),
    ({"y_true": [1, 0], "y_pred": [1, 0], "items": [1]}, "items must give one item per prediction"),
    ({"y_true": [1, 0], "y_pred": [1, 0], "confusion_matrix": [[1, 0], [0, 1]]}, "not both"),
    ({"y_true": [1, 0], "y_pred": [1, 0], "level": 1.5}, "level must lie in"),
])
def test_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        classification(**kwargs)


def test_labels_normalised_and_confusion_order():
    C, labels = confusion([1, 0, 1.0, "1"], [1, 1, 0, 1])
    assert labels == ["0", "1"] and C.tolist() == [[0, 1], [1, 2]]


@pytest.mark.slow
def test_coverage_of_f1_accuracy_and_macro_f1():
    rng = np.random.default_rng(8)
    # a population confusion distribution over 3 classes; truth of each metric from its cell shares
    P = np.array([[0.40, 0.05, 0.03], [0.06, 0.20, 0.04], [0.02, 0.03, 0.17]])
    d = np.diag(P)
    truth = {"accuracy": d.sum(), "macro_f1": float((2 * d / (P.sum(axis=1) + P.sum(axis=0))).mean()),
             "f1_c1": 2 * d[1] / (P[1].sum() + P[:, 1].sum()),
             "balanced_accuracy": float((d / P.sum(axis=1)).mean())}
    hits = dict.fromkeys(truth, 0)
    reps = 400
    for _ in range(reps):
        C = rng.multinomial(150, P.ravel()).reshape(3, 3)
        r = classification(confusion_matrix=C, labels=["c0", "c1", "c2"], draws=2000, seed=int(rng.integers(1e9)))
        got = {"accuracy": r.metrics["accuracy"], "macro_f1": r.metrics["macro_f1"],
               "f1_c1": r.per_class["c1"]["f1"], "balanced_accuracy": r.metrics["balanced_accuracy"]}
        for k, v in got.items():
            hits[k] += v["lo"] <= truth[k] <= v["hi"]
    for k in truth:
        assert 0.92 <= hits[k] / reps <= 0.98, (k, hits[k] / reps)


def _pred_table(tmp_path, flip=False):
    import pandas as pd

    rng = np.random.default_rng(9)
    y = rng.choice(["pos", "neg"], 120)
    rows = []
    for m, acc in (("A", 0.85), ("B", 0.7)):
        for i, t in enumerate(y):
            truth = ("neg" if t == "pos" else "pos") if (flip and m == "B" and i == 5) else t
            rows.append({"id": i, "label": truth, "system": m,
                         "prediction": t if rng.random() < acc else ("neg" if t == "pos" else "pos")})
    df = pd.DataFrame(rows)
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    return path, df


def test_cli_classify_equals_the_library(tmp_path, capsys):
    import json

    from bayeseval.cli import main

    path, df = _pred_table(tmp_path)
    assert main(["classify", str(path), "--true", "label", "--pred", "prediction", "--model", "system", "--item", "id",
                 "--positive", "pos", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    a = df[df.system == "A"]
    want = classification(a.label.tolist(), a.prediction.tolist(), positive="pos", items=a.id.tolist())
    assert out["models"]["A"]["metrics"]["f1"] == pytest.approx(want.metrics["f1"])
    b = df[df.system == "B"]
    cmp_ = compare_classifiers(a.label.tolist(), a.prediction.tolist(), b.prediction.tolist(), names=("A", "B"))
    assert out["comparison"]["p_a_better"] == cmp_.p_a_better and out["comparison"]["delta"] == cmp_.delta


def test_cli_classify_bad_input(tmp_path, capsys):
    from bayeseval.cli import main

    path, _ = _pred_table(tmp_path, flip=True)
    assert main(["classify", str(path), "--true", "label", "--pred", "prediction", "--model", "system", "--item", "id"]) == 2
    assert "item '5' has different true labels for 'A' and 'B'" in capsys.readouterr().err
    assert main(["classify", str(path), "--true", "lab", "--pred", "prediction"]) == 2
    assert "no column 'lab'" in capsys.readouterr().err
