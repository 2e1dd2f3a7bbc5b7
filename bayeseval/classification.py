r"""Classification metrics with posterior intervals: accuracy, balanced accuracy, per-class precision / recall /
F1, micro and macro F1, and a paired comparison of two classifiers on the same items.

Items are a sample from a population (population scope); the cells of the confusion matrix (true label
``i``, predicted label ``j``) have shares :math:`\theta_{ij}` with the posterior

.. math::  \theta \sim \mathrm{Dirichlet}(a + C_{ij} / D),

``C`` the confusion counts, ``a`` the prior counts (``prior`` = 1/2 on each diagonal cell and
``prior / (K - 1)`` on each off-diagonal one, so that every class's one-vs-rest table carries the binary
prior of 1/2 per cell, and accuracy a Beta(K/2, K/2) prior) and ``D`` the design effect of
item-clustered predictions (1 with one prediction per item; with repeated predictions per item, the
Kish / Rao-Scott design effect of per-prediction correctness, floored at 1).  Dirichlet aggregation and
neutrality give exact (closed-form) posteriors for most metrics:

* accuracy (= micro F1 for single-label data) :math:`= \sum_k \theta_{kk} \sim \mathrm{Beta}(\sum_k a_{kk},
  \sum_{i \ne j} a_{ij})`;
* recall of class ``k`` :math:`\sim \mathrm{Beta}(a_{kk}, \sum_{j \ne k} a_{kj})`, precision
  :math:`\sim \mathrm{Beta}(a_{kk}, \sum_{i \ne k} a_{ik})`;
* F1 of class ``k`` (binary F1 for the positive class) is :math:`2B/(1 + B)` with
  :math:`B = \theta_{kk} / (\theta_{kk} + FP_k + FN_k) \sim \mathrm{Beta}(a_{kk}, \sum_{FP, FN} a)`
  (Goutte & Gaussier 2005, ECIR, LNCS 3408), so its quantiles are ``2q/(1 + q)`` of the Beta's;
* balanced accuracy (mean recall) and macro F1 (mean per-class F1) from exact Dirichlet draws.

The reported value is the observed metric; every interval is widened to contain it where the prior pulls
the posterior away (a class never predicted, a perfect score).  A warning says when classes are so
imbalanced that accuracy misleads (the majority class holds at least 80% of the items and accuracy is
within 5 points of always predicting it), pointing at balanced accuracy and per-class F1.

:func:`compare_classifiers` compares two classifiers on the same items: the four correctness cells
(both right, only A, only B, both wrong) get a Dirichlet posterior, so P(A more accurate) =
:math:`P(\theta_{10} > \theta_{01}) = I_{1/2}(a_{01}, a_{10})` in closed form and the accuracy
difference :math:`\theta_{10} - \theta_{01}` has an exact distribution (the same quadrature as
:func:`bayeseval.pairwise.win_rate`); McNemar's exact and mid-p tests (statsmodels) beside it.

>>> r = classification(["a", "a", "b", "b", "c", "c"], ["a", "b", "b", "b", "c", "a"])
>>> round(r.metrics["accuracy"]["value"], 4), sorted(r.per_class)
(0.6667, ['a', 'b', 'c'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special, stats

from . import validate as V
from ._protocol import Result
from ._text import pct, text_table

__all__ = ["classification", "Classification", "compare_classifiers", "ClassifierComparison", "confusion"]

DEFAULT_SEED = 20261125
PRIOR = 0.5


def _labels(x: Any, name: str) -> np.ndarray:
    import pandas as pd

    from .pairwise.data import _text

    arr = np.asarray(x, dtype=object)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty one-dimensional sequence of labels, got shape {arr.shape}")
    gone = np.flatnonzero(pd.isna(arr))
    if gone.size:
        raise ValueError(f"{name} is missing a label at position {int(gone[0])} ({gone.size} missing)")
    return np.array([_text(v) for v in arr], dtype=object)  # 1, 1.0 and "1" are one label


def _label_list(labels: Any) -> list:
    """``labels`` as text (``1``, ``1.0`` and ``"1"`` are one label, as in the data), each class once."""
    from .pairwise.data import _text

    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
        raise V.InputTypeError(f"labels must be a sequence of class labels, got {V.describe(labels)}")
    out = [_text(v) for v in labels]
    first: dict = {}
    for i, lab in enumerate(out):
        if lab in first:
            raise V.ArgumentError("{labels} names class {lab!r} twice (at positions {a} and {b}, from 0); name each "
                                  "class once", "labels", lab=lab, a=first[lab], b=i)
        first[lab] = i
    return out


def _two_classes(labels: list, given: bool) -> None:
    """Classification metrics need at least two classes (one-vs-rest tables, the prior's off-diagonal cells)."""
    if len(labels) >= 2:
        return
    only = ", ".join(map(repr, labels))
    if given:
        raise V.ArgumentError("{labels} names only {only}: classification needs at least two classes; name every "
                              "class the classifier chooses from", "labels", only=only)
    raise V.ArgumentError("classification needs at least two classes, but the true and predicted labels hold only "
                          "{only}; name every class the classifier chooses from with {labels} (a list of them all: "
                          "{only} and the classes absent from these data), so that the absent ones count",
                          "labels", only=only)


def confusion(y_true: Any, y_pred: Any, labels: Any = None) -> tuple[np.ndarray, list]:
    """Confusion counts ``C[i, j]`` (true label ``i``, predicted ``j``) and the label order."""
    t, p = _labels(y_true, "y_true"), _labels(y_pred, "y_pred")
    if t.size != p.size:
        raise ValueError(f"y_true and y_pred must have the same length, got {t.size} and {p.size}")
    present = sorted(set(t) | set(p))
    if labels is None:
        labels = present
    else:
        labels = _label_list(labels)
        unknown = sorted(set(present) - set(labels))
        if unknown:
            raise V.ArgumentError("{labels} does not list {missing}, which the data hold; name every class",
                                  "labels", missing=", ".join(map(repr, unknown[:5])))
    code = {k: i for i, k in enumerate(labels)}
    C = np.zeros((len(labels), len(labels)), dtype=np.int64)
    np.add.at(C, (np.array([code[v] for v in t]), np.array([code[v] for v in p])), 1)
    return C, labels


def _design_effect(correct: np.ndarray, items: np.ndarray) -> float:
    from .pairwise.two import design_effect

    _, inv = np.unique(items, return_inverse=True)
    inv = inv.ravel()
    M = int(inv.max()) + 1
    right = np.bincount(inv, weights=correct.astype(np.float64), minlength=M)
    n_i = np.bincount(inv, minlength=M).astype(np.float64)
    counts = np.column_stack([right, np.zeros(M), n_i - right]).astype(np.int64)
    return design_effect(counts, (2 * right - n_i))


def _beta_summary(value: float, a: float, b: float, level: float, transform=None) -> dict:
    lo_q, hi_q = (1 - level) / 2, (1 + level) / 2
    value = float(value)
    q = stats.beta.ppf([lo_q, hi_q], a, b)
    mean = a / (a + b)
    if transform is not None:
        q = transform(q)
        mean = float(stats.beta.expect(transform, args=(a, b)))
    lo, hi = float(q[0]), float(q[1])
    return {"value": float(value), "mean": float(mean), "lo": min(lo, value), "hi": max(hi, value),
            "method": "exact (Beta)"}


def _draw_summary(value: float, x: np.ndarray, level: float) -> dict:
    lo, hi = (float(v) for v in np.quantile(x, [(1 - level) / 2, (1 + level) / 2]))
    value = float(value)
    return {"value": float(value), "mean": float(x.mean()), "lo": min(lo, value), "hi": max(hi, value),
            "method": "exact Dirichlet draws"}


def _f1(x):
    return 2 * x / (1 + x)


@dataclass(frozen=True)
class Classification(Result):
    """Metrics of one classifier: ``metrics`` (accuracy, balanced_accuracy, micro_f1, macro_f1, and f1 of the
    positive class when binary) and ``per_class`` (precision, recall, f1, support per label)."""

    labels: list
    confusion: np.ndarray
    metrics: dict
    per_class: dict
    level: float
    prior: float
    design_effect: float
    n: int
    warnings: tuple = field(default=())

    def confidence_interval(self, level: float | None = None, method: str | None = None) -> tuple[float, float]:
        """The interval of accuracy."""
        if level not in (None, self.level):
            raise ValueError(f"this result holds {self.level:g} intervals; call classification again")
        return self.metrics["accuracy"]["lo"], self.metrics["accuracy"]["hi"]

    def to_dict(self) -> dict:
        return {"labels": list(self.labels), "confusion": self.confusion.tolist(), "metrics": self.metrics,
                "per_class": self.per_class, "level": self.level, "prior": self.prior,
                "design_effect": self.design_effect, "n": self.n, "warnings": list(self.warnings)}

    def to_frame(self):
        import pandas as pd

        rows = [{"metric": k, **{c: v[c] for c in ("value", "mean", "lo", "hi")}} for k, v in self.metrics.items()]
        for lab, d in self.per_class.items():
            rows += [{"metric": f"{m}[{lab}]", **{c: d[m][c] for c in ("value", "mean", "lo", "hi")}}
                     for m in ("precision", "recall", "f1")]
        return pd.DataFrame(rows)

    def summary(self) -> str:
        shown = f"{pct(self.level)}"
        rows = [[k, f"{v['value']:.4f}", f"[{v['lo']:.4f}, {v['hi']:.4f}]"] for k, v in self.metrics.items()]
        rows += [[f"{m} [{lab}]", f"{d[m]['value']:.4f}", f"[{d[m]['lo']:.4f}, {d[m]['hi']:.4f}]"]
                 for lab, d in self.per_class.items() for m in ("precision", "recall", "f1")]
        head = (f"classification: {self.n} predictions, {len(self.labels)} labels; {shown} intervals (population "
                f"scope, prior {self.prior:g} per one-vs-rest cell{'' if self.design_effect == 1 else f', design effect {self.design_effect:.2f}'})")
        return "\n".join([head, text_table(["metric", "value", "interval"], rows, right=(1,))]
                         + [f"warning: {w}" for w in self.warnings])


def classification(y_true: Any = None, y_pred: Any = None, *, confusion_matrix: Any = None, labels: Any = None,
                   positive: Any = None, items: Any = None, level: float = 0.95, prior: float = PRIOR,
                   draws: int = 4000, seed: int | None = None) -> Classification:
    """Accuracy, balanced accuracy, micro / macro F1 and per-class precision, recall and F1 with posterior
    intervals, from labels (``y_true``, ``y_pred``) or a ``confusion_matrix`` (rows true, columns predicted,
    with ``labels``).  ``items``: the item of each prediction when items were predicted several times (the
    item is then the cluster).  ``labels``: every class the classifier chooses from, each once (classes absent
    from the data count with support 0; at least two classes are needed, so data holding one class must name
    the others here).  ``positive``: for two classes, the positive label (adds ``f1``).  See the module
    docstring."""
    level = V.confidence(level, "level")
    prior = V.real(prior, "prior", lo=0.0, lo_open=True, hi=1e6)
    draws = V.integer(draws, "draws", minimum=100)
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    D = 1.0
    if confusion_matrix is not None:
        if y_true is not None or y_pred is not None or items is not None:
            raise ValueError("give either y_true and y_pred (with optional items) or confusion_matrix, not both")
        try:
            C = np.asarray(confusion_matrix)
        except ValueError:  # numpy: "setting an array element with a sequence ... inhomogeneous shape"
            raise ValueError("confusion_matrix must be a square table of counts: its rows have different "
                             "lengths") from None
        if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] < 2:
            raise ValueError(f"confusion_matrix must be square with at least 2 classes, got shape {C.shape}")
        if not np.issubdtype(C.dtype, np.integer):
            if not np.issubdtype(C.dtype, np.number) or not np.all(np.isfinite(C)) or not np.all(C == np.round(C)):
                raise ValueError("confusion_matrix must hold non-negative integer counts")
            C = C.astype(np.int64)
        if (C < 0).any():
            raise ValueError("confusion_matrix must hold non-negative integer counts")
        labels = _label_list(labels) if labels is not None else [str(i) for i in range(C.shape[0])]
        if len(labels) != C.shape[0]:
            raise ValueError(f"labels has {len(labels)} entries for a {C.shape[0]} x {C.shape[0]} confusion matrix")
    else:
        if y_true is None or y_pred is None:
            raise ValueError("give y_true and y_pred, or confusion_matrix")
        given = labels is not None
        C, labels = confusion(y_true, y_pred, labels)
        _two_classes(labels, given)  # the counts of one class are well defined; its metrics are not
        if items is not None:
            it = np.asarray(items, dtype=object)
            if it.shape != (int(C.sum()),):
                raise ValueError(f"items must give one item per prediction ({int(C.sum())}), got shape {it.shape}")
            t, p = _labels(y_true, "y_true"), _labels(y_pred, "y_pred")
            D = _design_effect(t == p, np.array([str(v) for v in it], dtype=object))
    n = int(C.sum())
    if n == 0:
        raise ValueError("there are no predictions")
    K = len(labels)
    # prior: `prior` on each diagonal cell, prior / (K - 1) on each off-diagonal one, so every class's one-vs-rest
    # table carries Goutte & Gaussier's binary prior (1/2 per cell by default) whatever K is
    A = np.full((K, K), prior / (K - 1)) + (prior - prior / (K - 1)) * np.eye(K) + C / D
    diag = np.diag(A)
    warns: list[str] = []
    if y_true is not None and not given:
        said, chosen = C.sum(axis=1) > 0, C.sum(axis=0) > 0
        if not np.any(said & chosen):  # every prediction wrong because no class is written alike on both sides?
            show = lambda mask: ", ".join(repr(lab) for lab, m in zip(labels, mask) if m)  # noqa: E731
            warns.append(f"no predicted label is one of the true labels (true: {show(said)}; predicted: "
                         f"{show(chosen)}), so every prediction counts as wrong: if they name the same classes written "
                         "differently (1 and 1.0, True and 1, 'yes' and 'Yes'), write them alike")
    metrics = {"accuracy": _beta_summary(np.trace(C) / n, float(diag.sum()), float(A.sum() - diag.sum()), level)}
    per_class = {}
    for k, lab in enumerate(labels):
        fn_k = float(A[k].sum() - A[k, k])
        fp_k = float(A[:, k].sum() - A[k, k])
        tp, fn, fp = int(C[k, k]), int(C[k].sum() - C[k, k]), int(C[:, k].sum() - C[k, k])
        per_class[lab] = {
            "support": int(C[k].sum()),
            "precision": _beta_summary(tp / (tp + fp) if tp + fp else 0.0, A[k, k], fp_k, level),
            "recall": _beta_summary(tp / (tp + fn) if tp + fn else 0.0, A[k, k], fn_k, level),
            "f1": _beta_summary(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0, A[k, k], fp_k + fn_k, level,
                                transform=_f1),
        }
        for m, method in (("precision", "exact (Beta)"), ("recall", "exact (Beta)"), ("f1", "exact (2B / (1 + B))")):
            per_class[lab][m]["method"] = method
        if tp + fp == 0:
            warns.append(f"class {lab!r} is never predicted: its precision is 0/0, reported as 0 (the interval is the "
                         "prior's)")
    metrics["micro_f1"] = dict(metrics["accuracy"], method="exact (Beta): micro F1 equals accuracy for single-label data")
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(A.ravel(), size=draws).reshape(draws, K, K)
    d = np.diagonal(theta, axis1=1, axis2=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = d / theta.sum(axis=2)
        f1 = 2 * d / (theta.sum(axis=2) + theta.sum(axis=1))
    support = C.sum(axis=1)
    obs_recall = np.array([per_class[lab]["recall"]["value"] for lab in labels])
    obs_f1 = np.array([per_class[lab]["f1"]["value"] for lab in labels])
    present = support > 0
    metrics["balanced_accuracy"] = _draw_summary(float(obs_recall[present].mean()), recall[:, present].mean(axis=1), level)
    metrics["macro_f1"] = _draw_summary(float(obs_f1.mean()), f1.mean(axis=1), level)
    if K == 2 and positive is not None:
        from .pairwise.data import _text

        pos = _text(positive)
        if pos not in labels:
            raise ValueError(f"positive {positive!r} is not one of the labels {labels}")
        metrics["f1"] = dict(per_class[pos]["f1"])
    elif positive is not None:
        raise ValueError(f"positive is for two classes; these data have {K}")
    share = support.max() / n
    majority = labels[int(np.argmax(support))]
    if share >= 0.8 and metrics["accuracy"]["value"] <= share + 0.05:
        warns.append(f"class {majority!r} holds {share:.0%} of the items and accuracy ({metrics['accuracy']['value']:.1%}) "
                     f"is within 5 points of always predicting it: accuracy misleads here; report balanced accuracy "
                     f"({metrics['balanced_accuracy']['value']:.1%}) and per-class F1")
    return Classification(labels=list(labels), confusion=C, metrics=metrics, per_class=per_class, level=level,
                          prior=prior, design_effect=float(D), n=n, warnings=tuple(warns))


@dataclass(frozen=True)
class ClassifierComparison(Result):
    """Two classifiers on the same items: accuracy difference A - B with its posterior, and McNemar."""

    names: tuple
    accuracy: dict  # per name: the Classification accuracy summary
    delta: dict
    p_a_better: float
    mcnemar: dict
    table: list  # [[both right, only A right], [only B right, both wrong]]
    level: float

    def to_dict(self) -> dict:
        return {"names": list(self.names), "accuracy": self.accuracy, "delta": self.delta,
                "p_a_better": self.p_a_better, "mcnemar": self.mcnemar, "table": self.table, "level": self.level}

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame([{"delta": self.delta["value"], "lo": self.delta["lo"], "hi": self.delta["hi"],
                              "p_a_better": self.p_a_better, "mcnemar_exact_p": self.mcnemar["exact"]["p_value"]}])

    def summary(self) -> str:
        a, b = self.names
        rows = [[f"accuracy {a}", f"{self.accuracy[a]['value']:.4f}", f"[{self.accuracy[a]['lo']:.4f}, {self.accuracy[a]['hi']:.4f}]"],
                [f"accuracy {b}", f"{self.accuracy[b]['value']:.4f}", f"[{self.accuracy[b]['lo']:.4f}, {self.accuracy[b]['hi']:.4f}]"],
                [f"{a} - {b}", f"{self.delta['value']:+.4f}", f"[{self.delta['lo']:+.4f}, {self.delta['hi']:+.4f}]"],
                [f"P({a} more accurate)", f"{self.p_a_better:.4f}", ""],
                ["McNemar exact / mid-p", f"p = {self.mcnemar['exact']['p_value']:.4g}",
                 f"mid-p {self.mcnemar['mid_p']['p_value']:.4g} ({self.table[0][1]} vs {self.table[1][0]} discordant)"]]
        return f"{a} vs {b} on the same items, {pct(self.level)} intervals\n" + text_table(
            ["quantity", "value", "interval / note"], rows, right=(1,))


def compare_classifiers(y_true: Any, pred_a: Any, pred_b: Any, *, names: tuple = ("A", "B"), level: float = 0.95,
                        prior: float = PRIOR) -> ClassifierComparison:
    """Accuracy of ``pred_a`` against ``pred_b`` on the same items (one prediction each): the posterior of the
    difference, P(A more accurate) in closed form and McNemar's tests.  See the module docstring."""
    from .comparison.paired_tests import _mcnemar_2x2
    from .pairwise.two import _split_quantile

    level = V.confidence(level, "level")
    prior = V.real(prior, "prior", lo=0.0, lo_open=True, hi=1e6)
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and names[0] != names[1]):
        raise V.InputTypeError(f"names must be two different labels, got {names!r}")
    t = _labels(y_true, "y_true")
    pa, pb = _labels(pred_a, "pred_a"), _labels(pred_b, "pred_b")
    if not (t.size == pa.size == pb.size):
        raise ValueError(f"y_true, pred_a and pred_b must have the same length, got {t.size}, {pa.size}, {pb.size}")
    ra, rb = t == pa, t == pb
    mc = _mcnemar_2x2(ra, rb, "single prediction")
    n10, n01 = mc["a_only"], mc["b_only"]
    n11 = int(np.sum(ra & rb))
    n00 = int(t.size - n11 - n10 - n01)
    a10, a01, a_same = prior + n10, prior + n01, 2 * prior + n11 + n00
    p_better = float(special.betainc(a01, a10, 0.5))  # P(theta_10 > theta_01)
    alpha = (1 - level) / 2
    # theta_10 - theta_01 = 2 (theta_10 + theta_same / 2) - 1, the split win rate's structure
    lo = 2 * _split_quantile(alpha, a10, a_same, a01) - 1
    hi = 2 * _split_quantile(1 - alpha, a10, a_same, a01) - 1
    value = (n10 - n01) / t.size
    names = (str(names[0]), str(names[1]))
    acc = {nm: _beta_summary(float(r.mean()), prior + float(r.sum()), prior + float((~r).sum()), level)
           for nm, r in zip(names, (ra, rb))}
    return ClassifierComparison(names=names, accuracy=acc,
                                delta={"value": value, "mean": (a10 - a01) / (a10 + a01 + a_same),
                                       "lo": min(lo, value), "hi": max(hi, value),
                                       "method": "Dirichlet over the four correctness cells (exact quadrature)"},
                                p_a_better=p_better, mcnemar=mc, table=mc["table"], level=level)
