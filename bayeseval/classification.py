r"""Classification metrics with posterior intervals: accuracy, balanced accuracy, per-class precision / recall /
F1, micro and macro F1, and a paired comparison of two classifiers on the same items.

Items are a sample from a population (population scope).  The cells of the confusion matrix (true label ``i``,
predicted label ``j``) have population shares :math:`\theta_{ij}`, and each interval is about a function of
:math:`\theta` (its estimand): accuracy :math:`\sum_k \theta_{kk}`; class ``k``'s recall
:math:`\theta_{kk} / \theta_{k\cdot}`, precision :math:`\theta_{kk} / \theta_{\cdot k}` and F1
:math:`2\theta_{kk} / (\theta_{k\cdot} + \theta_{\cdot k})`; balanced accuracy and macro F1 the means of the
per-class recalls and F1s over the classes.  Macro F1 is thus the macro F1 *of the population confusion
probabilities* (the F1s of expected counts), not the expected macro F1 of a benchmark of ``n`` items: with few
items per class the two differ by the bias of a ratio, and so does the plug-in value from its estimand.

``C`` are the confusion counts, ``n`` their total, ``D`` the design effect of item-clustered predictions (1
with one prediction per item; with repeated predictions per item the Kish / Rao-Scott design effect of
per-prediction correctness, floored at 1), ``p`` the ``prior`` (1/2, Jeffreys's).  The priors are chosen so
that no interval's prior grows with the number of classes ``K``:

* accuracy (= micro F1 for single-label data) is right against wrong with Jeffreys's prior,
  :math:`\mathrm{Beta}(p + \mathrm{tr}(C) / D,\ p + (n - \mathrm{tr}(C)) / D)` (Jeffreys's interval: Brown, Cai &
  DasGupta 2001, Statist. Sci. 16, 101-133), the interval :func:`compare_classifiers` gives each model;
* balanced accuracy and macro F1 come from exact draws of :math:`\theta \sim \mathrm{Dirichlet}(a + C / D)`
  whose prior ``a`` has total mass ``2p``: ``p / K`` on each diagonal cell and ``p / (K (K - 1))`` on each
  off-diagonal one, so that (Dirichlet aggregation) its accuracy is the Beta above.  A prior of ``p`` per
  one-vs-rest cell of every class instead adds ``K`` pseudo-observations at accuracy 1/2 (accuracy
  ``Beta(K/2, K/2)`` a priori), which pulled intervals towards 1/2 as ``K`` grew;
* each class's recall, precision and F1 take its own one-vs-rest table with ``p`` on each of its TP, FN and FP
  cells (the binary Jeffreys prior, whatever ``K``): recall :math:`\sim \mathrm{Beta}(p + TP/D, p + FN/D)`,
  precision :math:`\sim \mathrm{Beta}(p + TP/D, p + FP/D)`, and F1 :math:`= 2B/(1 + B)` with
  :math:`B = \theta_{kk} / (\theta_{kk} + FP_k + FN_k) \sim \mathrm{Beta}(p + TP/D, 2p + (FP + FN)/D)`
  (Goutte & Gaussier 2005, ECIR, LNCS 3408), so its quantiles are ``2q/(1 + q)`` of the Beta's and its mean
  :math:`2(1 - {}_2F_1(1, \alpha; \alpha + \beta; -1))`.

The reported value is the observed metric (scikit-learn's, ``zero_division=0``); every interval is widened to
contain it where the prior pulls the posterior away (a perfect score, a class never predicted).  A class that
the data never show (named in ``labels`` only: no example, no prediction) has F1 0/0, counted as 0 in macro F1
both in the value and in every draw, and is left out of balanced accuracy (so is any class without examples).
Warnings say when a metric is 0/0 and reported as 0; when classes have so few examples that macro F1's and
balanced accuracy's intervals cover their estimands less often than their level (the ratio bias above;
``benchmarks/coverage_classification.py``); and when one class holds at least 80% of the items and accuracy is
not more than 5 points above always predicting it (accuracy then misleads: see balanced accuracy and per-class
F1).

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

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special, stats

from . import validate as V
from ._protocol import Result
from ._text import label_order, label_text, label_texts, pct, text_table

__all__ = ["classification", "Classification", "compare_classifiers", "ClassifierComparison", "confusion",
           "file_labels"]

DEFAULT_SEED = 20261125
PRIOR = 0.5
CELLS_PER_CHUNK = 4_000_000  # Dirichlet draws are made in chunks of at most this many cells


def _labels(x: Any, name: str) -> np.ndarray:
    import pandas as pd

    x = V.unmasked(x, name)
    arr = x if isinstance(x, (np.ndarray, pd.Series, pd.Index)) else np.asarray(x, dtype=object)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty one-dimensional sequence of labels, got shape {arr.shape}")
    if np.asarray(arr).dtype == object:  # rows of different lengths make a 1-D array of lists: not labels
        nested = np.flatnonzero(np.frompyfunc(lambda v: isinstance(v, (list, tuple, dict, set, np.ndarray)), 1, 1)(
            np.asarray(arr)).astype(bool))
        if nested.size:
            raise ValueError(f"{name} must be a non-empty one-dimensional sequence of labels; position "
                             f"{int(nested[0])} holds a {type(np.asarray(arr)[nested[0]]).__name__}")
    gone = np.flatnonzero(pd.isna(np.asarray(arr)))
    if gone.size:
        raise ValueError(f"{name} is missing a label at position {int(gone[0])} ({gone.size} missing)")
    return label_texts(arr)  # 1, 1.0 and "1" are one label; each distinct label converted once


def _number_text(text: str) -> str:
    """``text`` as the number it writes (``"1.0"``, ``" 1"``, ``"+1"`` -> ``"1"``; ``"2.50"`` -> ``"2.5"``) when it is
    a finite number, else itself."""
    t = text.strip()
    if "_" in t:  # Python reads "1_0" as 10; a label column does not
        return t
    try:
        return str(int(t))  # integers exactly, however long
    except ValueError:
        pass
    try:
        x = float(t)
    except ValueError:
        return t
    return label_text(x) if math.isfinite(x) else t


def file_labels(values: Any) -> np.ndarray:
    """Label cells read from a file (every cell text, as a CSV reader may give them), as the labels
    :func:`classification` compares: a cell that reads as a finite number is that number (``1``, ``1.0``,
    ``"1.0"`` and ``" 1"`` are one class), other text stays text, a missing cell stays missing.  Each distinct
    cell is read once.  ``bayeseval classify`` reads its label columns this way.

    >>> file_labels(["1.0", " 1", "+1", "2.50", "cat", None, "1_0"]).tolist()
    ['1', '1', '1', '2.5', 'cat', None, '1_0']
    """
    import pandas as pd

    s = pd.Series(np.asarray(values, dtype=object), dtype=object)
    out = np.full(s.size, None, dtype=object)
    keep = ~s.isna().to_numpy()
    codes, uniq = pd.factorize(s[keep].astype(str))  # as text first: True, 1 and 1.0 must not merge as keys
    out[keep] = np.array([_number_text(u) for u in uniq], dtype=object)[codes]
    return out


def _item_keys(items: np.ndarray) -> np.ndarray:
    """Item ids as one text key each (``1`` and ``1.0`` one item); a missing id, or one id spelled two ways (``1``
    and ``"1"``), is an error naming ``items``: either would merge items that may differ into one cluster."""
    import pandas as pd

    gone = np.flatnonzero(pd.isna(items))
    if gone.size:
        raise ValueError(f"items is missing an item id at position {int(gone[0])} ({gone.size} missing); every "
                         "prediction needs its item")
    keys = label_texts(items)
    if pd.unique(keys).size < pd.unique(items).size:  # two different values read as one id
        first: dict = {}
        for v, k in zip(items.tolist(), keys.tolist()):
            if k in first and first[k] != v:
                raise ValueError(f"items spells one id two ways ({first[k]!r} and {v!r}); write each item's id "
                                 "one way")
            first.setdefault(k, v)
    return keys


def _label_list(labels: Any) -> list:
    """``labels`` as text (``1``, ``1.0`` and ``"1"`` are one label, as in the data), each class once."""
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
        raise V.InputTypeError(f"labels must be a sequence of class labels, got {V.describe(labels)}")
    out = [label_text(v) for v in labels]
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
    """Confusion counts ``C[i, j]`` (true label ``i``, predicted ``j``) and the label order (``labels`` as given;
    without it the labels of the data, numbers by value first, then text)."""
    import pandas as pd

    t, p = _labels(y_true, "y_true"), _labels(y_pred, "y_pred")
    if t.size != p.size:
        raise ValueError(f"y_true and y_pred must have the same length, got {t.size} and {p.size}")
    inv, uniq = pd.factorize(np.concatenate([t, p]))  # labels are text already: one key per class
    present = sorted(uniq.tolist(), key=label_order)
    if labels is None:
        labels = present
    else:
        labels = _label_list(labels)
        unknown = sorted(set(present) - set(labels), key=label_order)
        if unknown:
            raise V.ArgumentError("{labels} does not list {missing}, which the data hold; name every class",
                                  "labels", missing=", ".join(map(repr, unknown[:5])))
    where = {lab: i for i, lab in enumerate(labels)}
    code = np.array([where[u] for u in uniq.tolist()], dtype=np.int64)[inv.ravel()]  # per class, not per item
    K = len(labels)
    C = np.bincount(code[:t.size] * K + code[t.size:], minlength=K * K).reshape(K, K).astype(np.int64)
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


def _summary(value: float, lo: float, hi: float, mean: float, method: str) -> dict:
    value = float(value)
    return {"value": value, "mean": float(mean), "lo": min(float(lo), value), "hi": max(float(hi), value),
            "method": method}


def _beta_summary(value: float, a: float, b: float, level: float) -> dict:
    lo, hi = stats.beta.ppf([(1 - level) / 2, (1 + level) / 2], a, b)
    return _summary(value, lo, hi, a / (a + b), "exact (Beta)")


def _accuracy(right: float, wrong: float, value: float, prior: float, level: float) -> dict:
    """Accuracy's posterior, right against wrong: ``Beta(prior + right, prior + wrong)`` (Jeffreys's interval for
    ``prior`` = 1/2; Brown, Cai & DasGupta 2001).  :func:`classification` and :func:`compare_classifiers` both
    call it, so a model's accuracy has one interval."""
    return _beta_summary(value, prior + right, prior + wrong, level)


def _per_class(values: np.ndarray, a: np.ndarray, b: np.ndarray, level: float, f1: bool = False) -> list[dict]:
    """Per-class Beta(a, b) summaries in one vectorised call; ``f1``: of ``2B / (1 + B)``, whose mean is
    ``2 (1 - 2F1(1, a; a + b; -1))`` (the Beta integral of ``(1 + x)^-1``)."""
    q = stats.beta.ppf(np.array([(1 - level) / 2, (1 + level) / 2])[:, None], a, b)
    if f1:
        q, mean, method = 2 * q / (1 + q), 2 * (1 - special.hyp2f1(1.0, a, a + b, -1.0)), "exact (2B / (1 + B))"
    else:
        mean, method = a / (a + b), "exact (Beta)"
    return [_summary(v, lo, hi, m, method) for v, lo, hi, m in zip(values, q[0], q[1], mean)]


def _draw_summary(value: float, x: np.ndarray, level: float) -> dict:
    lo, hi = np.quantile(x, [(1 - level) / 2, (1 + level) / 2])
    return _summary(value, lo, hi, x.mean(), "exact Dirichlet draws")


def _prior_matrix(K: int, prior: float) -> np.ndarray:
    """The Dirichlet prior counts of the ``K x K`` confusion cells behind balanced accuracy and macro F1: total
    ``2 prior``, half on the diagonal (``prior / K`` per cell) and half off it (``prior / (K (K - 1))`` per cell),
    so that the implied prior of accuracy is ``Beta(prior, prior)`` whatever ``K``."""
    return np.where(np.eye(K, dtype=bool), prior / K, prior / (K * (K - 1)))


def _macro_draws(A: np.ndarray, present: np.ndarray, seen: np.ndarray, draws: int,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draws of balanced accuracy (mean recall over the ``present`` classes) and macro F1 (mean F1 over all
    classes, 0 for those not ``seen``) under ``theta ~ Dirichlet(A)``, in chunks of bounded memory."""
    K = A.shape[0]
    step = max(1, CELLS_PER_CHUNK // (K * K))
    bal, mac = np.empty(draws), np.empty(draws)
    for s in range(0, draws, step):  # a loop over chunks of draws, not over items
        g = rng.standard_gamma(A, size=(min(step, draws - s), K, K))  # Dirichlet = normalised gammas; the scale
        d = np.diagonal(g, axis1=1, axis2=2)                          # cancels in every ratio below
        rows, cols = g.sum(axis=2), g.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            recall = np.divide(d[:, present], rows[:, present])
            f1 = np.where(seen, np.divide(2 * d, rows + cols), 0.0)
        bal[s:s + len(g)] = np.nan_to_num(recall).mean(axis=1)
        mac[s:s + len(g)] = np.nan_to_num(f1).mean(axis=1)
    return bal, mac


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
        deff = "" if self.design_effect == 1 else f", design effect {self.design_effect:.2f}"
        head = (f"classification: {self.n} predictions, {len(self.labels)} labels; {shown} intervals (population "
                f"scope, prior Beta({self.prior:g}, {self.prior:g}) for accuracy, a Dirichlet of total mass "
                f"{2 * self.prior:g} on the confusion matrix for balanced accuracy and macro F1, {self.prior:g} per "
                f"one-vs-rest cell for each class{deff})")
        return "\n".join([head, text_table(["metric", "value", "interval"], rows, right=(1,))]
                         + [f"warning: {w}" for w in self.warnings])


def _class_warnings(labels: list, support: np.ndarray, predicted: np.ndarray) -> list[str]:
    """Warnings for the metrics a class's counts leave 0/0 (reported as 0)."""
    out = []
    for lab, s, k in zip(labels, support.tolist(), predicted.tolist()):  # per class
        if s == 0 and k == 0:
            out.append(f"class {lab!r} has no examples and is never predicted: its precision, recall and F1 are 0/0, "
                       "reported as 0 (their intervals are the prior's); its F1 counts as 0 in macro F1 (as "
                       "scikit-learn counts it), in the value and in every draw, and balanced accuracy leaves it out")
        elif s == 0:
            times = "once" if k == 1 else f"{k} times"
            out.append(f"class {lab!r} has no examples (it is predicted {times}, always wrongly): its recall is 0/0, "
                       "reported as 0 (the interval is the prior's), and balanced accuracy leaves it out; its F1 is 0")
        elif k == 0:
            out.append(f"class {lab!r} is never predicted: its precision is 0/0, reported as 0 (the interval is the "
                       "prior's)")
    return out


def classification(y_true: Any = None, y_pred: Any = None, *, confusion_matrix: Any = None, labels: Any = None,
                   positive: Any = None, items: Any = None, level: float = 0.95, prior: float = PRIOR,
                   draws: int = 4000, seed: int | None = None) -> Classification:
    """Accuracy, balanced accuracy, micro / macro F1 and per-class precision, recall and F1 with posterior
    intervals, from labels (``y_true``, ``y_pred``) or a ``confusion_matrix`` (rows true, columns predicted,
    with ``labels``).  ``items``: the item of each prediction when items were predicted several times (the
    item is then the cluster).  ``labels``: every class the classifier chooses from, each once (classes absent
    from the data count with support 0; at least two classes are needed, so data holding one class must name
    the others here).  ``positive``: for two classes, the positive label (adds ``f1``).  ``prior``: ``p`` of the
    module docstring (accuracy ``Beta(p + right / D, p + wrong / D)``, ``p`` per one-vs-rest cell of each
    class, total mass ``2p`` on the confusion matrix for balanced accuracy and macro F1; Jeffreys's 1/2 by
    default).  See the module docstring."""
    level = V.confidence(level, "level")
    prior = V.real(prior, "prior", lo=0.0, lo_open=True, hi=1e6)
    draws = V.integer(draws, "draws", minimum=100)
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    D = 1.0
    given = labels is not None
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
        if float(C.sum(dtype=np.float64)) >= 2.0**53:  # sums of counts must stay exact (int64 would overflow)
            raise ValueError("confusion_matrix counts must sum to less than 2^53; these sum to "
                             f"{float(C.sum(dtype=np.float64)):.4g}")
        labels = _label_list(labels) if labels is not None else [str(i) for i in range(C.shape[0])]
        if len(labels) != C.shape[0]:
            raise ValueError(f"labels has {len(labels)} entries for a {C.shape[0]} x {C.shape[0]} confusion matrix")
    else:
        if y_true is None or y_pred is None:
            raise ValueError("give y_true and y_pred, or confusion_matrix")
        C, labels = confusion(y_true, y_pred, labels)
        _two_classes(labels, given)  # the counts of one class are well defined; its metrics are not
        if items is not None:
            it = np.asarray(V.unmasked(items, "items"), dtype=object)
            if it.shape != (int(C.sum()),):
                raise ValueError(f"items must give one item per prediction ({int(C.sum())}), got shape {it.shape}")
            t, p = _labels(y_true, "y_true"), _labels(y_pred, "y_pred")
            D = _design_effect(t == p, _item_keys(it))
    n = int(C.sum())
    if n == 0:
        raise ValueError("there are no predictions")
    K = len(labels)
    warns: list[str] = []
    support, predicted = C.sum(axis=1), C.sum(axis=0)
    if y_true is not None and not given:
        said, chosen = support > 0, predicted > 0
        if not np.any(said & chosen):  # every prediction wrong because no class is written alike on both sides?
            show = lambda mask: ", ".join(repr(lab) for lab, m in zip(labels, mask) if m)  # noqa: E731
            warns.append(f"no predicted label is one of the true labels (true: {show(said)}; predicted: "
                         f"{show(chosen)}), so every prediction counts as wrong: if they name the same classes written "
                         "differently (1 and 1.0, True and 1, 'yes' and 'Yes'), write them alike")
    right = float(np.trace(C))
    metrics = {"accuracy": _accuracy(right / D, (n - right) / D, right / n, prior, level)}
    tp = np.diag(C).astype(np.float64)
    fn, fp = support - tp, predicted - tp
    with np.errstate(invalid="ignore", divide="ignore"):  # 0/0 reported as 0 (scikit-learn's zero_division=0)
        precision = np.nan_to_num(tp / (tp + fp))
        recall = np.nan_to_num(tp / (tp + fn))
        f1 = np.nan_to_num(2 * tp / (2 * tp + fp + fn))
    a_tp = prior + tp / D
    blocks = zip(_per_class(precision, a_tp, prior + fp / D, level), _per_class(recall, a_tp, prior + fn / D, level),
                 _per_class(f1, a_tp, 2 * prior + (fp + fn) / D, level, f1=True))
    per_class = {lab: {"support": int(s), "precision": pr, "recall": rc, "f1": f}
                 for lab, s, (pr, rc, f) in zip(labels, support, blocks)}
    warns += _class_warnings(labels, support, predicted)
    metrics["micro_f1"] = dict(metrics["accuracy"],
                               method="exact (Beta): micro F1 equals accuracy for single-label data")
    present, seen = support > 0, (support + predicted) > 0
    bal, mac = _macro_draws(_prior_matrix(K, prior) + C / D, present, seen, draws, np.random.default_rng(seed))
    metrics["balanced_accuracy"] = _draw_summary(float(recall[present].mean()), bal, level)
    metrics["macro_f1"] = _draw_summary(float(f1.mean()), mac, level)
    inverse = float((1.0 / support[present]).sum())
    if inverse >= 1:  # bias ~ sum 1 / n_k against an sd ~ sqrt(sum 1 / n_k): coverage falls as the sum grows
        k = int(np.flatnonzero(present)[np.argmin(support[present])])
        warns.append(f"the classes hold few examples for their number ({int(present.sum())} with examples, "
                     f"{int(present.sum()) / inverse:.1f} per class in harmonic mean; fewest: {labels[k]!r}, "
                     f"{int(support[k])}): F1 and recall of a class with few examples are ratios biased away from "
                     "their population values, and macro F1 and balanced accuracy average them over many classes, "
                     f"so their intervals cover less often than {pct(level)}, and with a few examples per class "
                     "hardly at all (simulated 95% intervals of macro F1, 20 and 50 classes: 10-93% of their "
                     "estimand at 6-15 examples per class, 0-43% at 1-2.5; "
                     "benchmarks/results_coverage_classification.md): report accuracy and per-class F1, whose "
                     "intervals hold their level")
    if K == 2 and positive is not None:
        pos = label_text(positive)
        if pos not in labels:
            raise ValueError(f"positive {positive!r} is not one of the labels {labels}")
        metrics["f1"] = dict(per_class[pos]["f1"])
    elif positive is not None:
        raise ValueError(f"positive is for two classes; these data have {K}")
    share = support.max() / n
    majority = labels[int(np.argmax(support))]
    if share >= 0.8 and metrics["accuracy"]["value"] <= share + 0.05:
        warns.append(f"class {majority!r} holds {share:.0%} of the items and accuracy "
                     f"({metrics['accuracy']['value']:.1%}) is not more than 5 points above the {share:.1%} of always "
                     f"predicting it: accuracy misleads here; report balanced accuracy "
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
        rows = [[f"accuracy {m}", f"{self.accuracy[m]['value']:.4f}",
                 f"[{self.accuracy[m]['lo']:.4f}, {self.accuracy[m]['hi']:.4f}]"] for m in (a, b)]
        rows += [[f"{a} - {b}", f"{self.delta['value']:+.4f}", f"[{self.delta['lo']:+.4f}, {self.delta['hi']:+.4f}]"],
                 [f"P({a} more accurate)", f"{self.p_a_better:.4f}", ""],
                 ["McNemar exact / mid-p", f"p = {self.mcnemar['exact']['p_value']:.4g}",
                  f"mid-p {self.mcnemar['mid_p']['p_value']:.4g} ({self.table[0][1]} vs {self.table[1][0]} "
                  "discordant)"]]
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
    acc = {nm: _accuracy(float(r.sum()), float((~r).sum()), float(r.mean()), prior, level)  # as classification()
           for nm, r in zip(names, (ra, rb))}
    return ClassifierComparison(names=names, accuracy=acc,
                                delta={"value": value, "mean": (a10 - a01) / (a10 + a01 + a_same),
                                       "lo": min(lo, value), "hi": max(hi, value),
                                       "method": "Dirichlet over the four correctness cells (exact quadrature)"},
                                p_a_better=p_better, mcnemar=mc, table=mc["table"], level=level)
