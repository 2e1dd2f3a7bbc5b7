r"""Judge-labelled data with a human-labelled subset: prediction-powered accuracy, and how far the judge agrees.

**Prediction-powered inference** (Angelopoulos et al. 2023, Science 382(6671); PPI++ with power
tuning: Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453).  ``n`` items carry a human label ``y``
and a judge label ``f``; ``N`` more carry only the judge's ``f~``.  For the mean of ``y`` (an accuracy, a
win rate, a mean score),

.. math::  \hat\theta_\lambda = \bar y + \lambda\,(\bar{\tilde f} - \bar f), \qquad
   \widehat{\mathrm{se}}^2 = \frac{\mathrm{Var}(y - \lambda f)}{n} + \lambda^2\,\frac{\mathrm{Var}(\tilde f)}{N},

an interval :math:`\hat\theta \pm z\,\widehat{\mathrm{se}}` that stays valid however biased the
judge is (the human subset measures the bias :math:`\bar y - \bar f`), and with the power-tuning
parameter

.. math::  \hat\lambda = \mathrm{clip}_{[0,1]}\ \frac{\widehat{\mathrm{Cov}}(y, f)}{(1 + n/N)\,\widehat{\mathrm{Var}}(f, \tilde f)}

never worse than the human labels alone (``lambda = 0``) in large samples; ``lambda = 1`` is plain PPI.
The effective number of human labels is ``n Var_classical / Var_PPI``.  With 0/1 human labels (a share) both
normal intervals are cut at 0 and 1; a prediction-powered estimate outside [0, 1] (it is unbiased, not kept in
range) is reported as it is, with a warning that its interval does not hold there.  Estimators as in the
authors' ``ppi_py`` (tested against it).  The human subset must be a random subset of the items.

**Agreement** of a judge with humans on the same items: raw agreement, Cohen's kappa (statsmodels,
with its asymptotic standard error), per-class recall of the judge, and for 0/1 labels sensitivity and
specificity with Jeffreys intervals (Beta(1/2 + x, 1/2 + n - x) quantiles).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> truth = rng.random(2000) < 0.7
>>> judge = np.where(rng.random(2000) < 0.85, truth, ~truth)        # right 85% of the time
>>> r = ppi_mean(truth[:200], judge[:200], judge[200:])
>>> round(r.estimate, 3), r.n, r.N, r.lam > 0
(0.667, 200, 1800, True)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from .. import validate as V
from .._protocol import Result
from .._text import label_order, label_texts, pct, text_table

__all__ = ["ppi_mean", "ppi_mean_by_item", "PPIMean", "judge_agreement", "Agreement"]


@dataclass(frozen=True)
class PPIMean(Result):
    """Prediction-powered estimate of a mean, beside the human-only one."""

    estimate: float
    se: float
    lo: float
    hi: float
    lam: float
    level: float
    n: int
    N: int
    classical: dict  # human labels alone: estimate, se, lo, hi
    judge_only: float  # the judge's mean on all items (biased unless the judge is right)
    effective_n: float | None  # None where the PPI++ se is 0 (no spread to compare)
    warnings: list = field(default_factory=list)

    def confidence_interval(self, level: float | None = None, method: str | None = None) -> tuple[float, float]:
        if level not in (None, self.level) or method not in (None, "normal"):
            raise ValueError(f"this result holds the {self.level:g} normal interval; call ppi_mean again")
        return self.lo, self.hi

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("estimate", "se", "lo", "hi", "lam", "level", "n", "N", "classical",
                                               "judge_only", "effective_n", "warnings")}

    def to_frame(self):
        import pandas as pd

        c = self.classical
        return pd.DataFrame([{"method": "PPI++", "estimate": self.estimate, "se": self.se, "lo": self.lo,
                              "hi": self.hi},
                             {"method": "human labels only", "estimate": c["estimate"], "se": c["se"], "lo": c["lo"],
                              "hi": c["hi"]}])

    def summary(self) -> str:
        c = self.classical
        rows = [["PPI++ (lambda = %.3f)" % self.lam, f"{self.estimate:.4f}", f"{self.se:.4f}",
                 f"[{self.lo:.4f}, {self.hi:.4f}]"],
                ["human labels only", f"{c['estimate']:.4f}", f"{c['se']:.4f}", f"[{c['lo']:.4f}, {c['hi']:.4f}]"],
                ["judge on all items (biased)", f"{self.judge_only:.4f}", "", ""]]
        worth = "" if self.effective_n is None else f"; worth {self.effective_n:.0f} human labels"
        return "\n".join([f"prediction-powered mean: {self.n} human-labelled items, {self.N} judge-only; "
                          f"{pct(self.level)} intervals{worth}",
                          text_table(["method", "estimate", "se", "interval"], rows, right=(1, 2))]
                         + [f"warning: {w}" for w in self.warnings])


def _scores(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(V.unmasked(x, name))
    if arr.dtype == bool:
        arr = arr.astype(np.float64)
    return V.bounded(V.vector(arr, name), name)


def ppi_mean(y: Any, f: Any, f_unlabeled: Any, *, lam: float | None = None, level: float = 0.95) -> PPIMean:
    """Mean of ``y`` from ``n`` human labels ``y`` with the judge's labels ``f`` on the same items and ``N``
    judge-only labels ``f_unlabeled``; ``lam=None`` tunes the power parameter, ``lam=1`` is plain PPI.
    See the module docstring."""
    y = _scores(y, "y")
    f = _scores(f, "f")
    fu = _scores(f_unlabeled, "f_unlabeled")
    if y.size != f.size:
        raise ValueError(f"y and f must label the same items: {y.size} human labels, {f.size} judge labels")
    if y.size < 2 or fu.size < 1:
        raise ValueError(f"ppi_mean needs at least 2 human-labelled items and 1 judge-only item, got {y.size} "
                         f"and {fu.size}")
    level = V.confidence(level, "level")
    n, N = y.size, fu.size
    if lam is None:
        fc, yc = f - f.mean(), y - y.mean()
        var_f = float(np.var(np.concatenate([f, fu]), ddof=1))
        lam = float(np.clip((yc @ fc) / n / ((1.0 + n / N) * var_f), 0.0, 1.0)) if var_f > 0 else 0.0
    else:
        lam = V.real(lam, "lam", lo=0.0, hi=1.0)
    est = float(fu.mean() * lam + (y - lam * f).mean())
    se = math.sqrt(float(np.var(lam * fu)) / N + float(np.var(y - lam * f)) / n)
    z = float(stats.norm.ppf(0.5 + level / 2))
    se_c = math.sqrt(float(np.var(y)) / n)
    binary = bool(np.isin(y, (0.0, 1.0)).all())  # 0/1 human labels: the mean is a share, within [0, 1]
    clip = (lambda a, b: (max(a, 0.0), min(b, 1.0))) if binary else (lambda a, b: (a, b))
    c_lo, c_hi = clip(float(y.mean()) - z * se_c, float(y.mean()) + z * se_c)
    classical = {"estimate": float(y.mean()), "se": se_c, "lo": c_lo, "hi": c_hi}
    scale = max(1.0, abs(est))
    se = 0.0 if se <= 1e-12 * scale else se  # rounding (1e-17 where humans and judge agree on every label) is no spread
    eff = n * se_c**2 / se**2 if se > 0 else None
    warns = [] if se > 0 else [f"the {n} human labels and the judge's residuals on them do not vary, so the "
                               "standard error is 0 and the interval has no width: that is no certainty, only no "
                               "spread seen; label more items"]
    if binary and -1e-12 * scale <= est <= 1.0 + 1e-12 * scale:  # rounding past an end is the end
        est = min(max(est, 0.0), 1.0)
    lo, hi = est - z * se, est + z * se
    if binary and not 0.0 <= est <= 1.0:  # PPI's estimate is unbiased, not kept in range: say so, change nothing
        warns.append(f"the prediction-powered estimate {est:.4g} lies outside [0, 1], the range of a share of 0/1 "
                     f"labels: its normal interval does not hold with {n} human labels this far from the judge's; "
                     "report the human labels alone (classical) or label more items")
    elif binary:  # a share lies in [0, 1]: the normal interval's ends are cut there (it still holds the estimate)
        lo, hi = clip(lo, hi)
    return PPIMean(estimate=est, se=se, lo=lo, hi=hi, lam=lam, level=level, n=n, N=N,
                   classical=classical, judge_only=float(np.concatenate([f, fu]).mean()),
                   effective_n=None if eff is None else float(eff), warnings=warns)


def ppi_mean_by_item(judge: Any, human: Any, *, lam: float | None = None, level: float = 0.95) -> PPIMean:
    """:func:`ppi_mean` from per-item scores keyed by item id: ``judge`` (a dict or a pandas Series: item ->
    the judge's score, for every item) and ``human`` (item -> the human score, for a random subset of them).
    Items that carry a human score but no judge score are refused, naming them.

    >>> r = ppi_mean_by_item({1: 1, 2: 0, 3: 1, 4: 1, 5: 0}, {1: 1, 2: 1, 3: 1})
    >>> r.n, r.N
    (3, 2)
    """
    j, h = _by_item(judge, "judge"), _by_item(human, "human")
    missing = [k for k in h if k not in j]
    if missing:
        shown = ", ".join(map(repr, missing[:5])) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise ValueError(f"human holds {len(missing)} item(s) the judge did not score ({shown}): the human-labelled "
                         "items must be a subset of the judged ones")
    keys = list(h)
    rest = [k for k in j if k not in h]
    if not rest:
        raise ValueError("every judged item also has a human score: there is nothing for the judge to add "
                         "(use the human scores alone)")
    if len(keys) < 2:
        raise ValueError(f"human must score at least 2 items, got {len(keys)}")
    for d, name in ((h, "human"), (j, "judge")):  # name the item, not a position in ppi_mean's arrays
        for k, v in d.items():
            if not (isinstance(v, (numbers.Real, np.bool_)) and math.isfinite(float(v))):
                raise ValueError(f"{name}: item {k!r} has score {v!r}; scores must be finite numbers")
    return ppi_mean([h[k] for k in keys], [j[k] for k in keys], [j[k] for k in rest], lam=lam, level=level)


def _by_item(x: Any, name: str) -> dict:
    index = getattr(x, "index", None)
    if index is not None and not isinstance(x, dict) and hasattr(index, "duplicated") and index.duplicated().any():
        twice = index[index.duplicated()][0]  # to_dict would keep the last score of the item and drop the others
        raise ValueError(f"{name} gives item {twice!r} {int((index == twice).sum())} scores; one score per item")
    if hasattr(x, "to_dict") and not isinstance(x, dict):
        x = x.to_dict()
    if not isinstance(x, dict) or not x:
        raise V.InputTypeError(f"{name} must be a non-empty dict or pandas Series of item -> score, got {V.describe(x)}")
    return x


@dataclass(frozen=True)
class Agreement(Result):
    """A judge against human labels on the same items."""

    n: int
    labels: list
    agreement: float
    agreement_interval: tuple
    kappa: float | None  # None when undefined (one label used throughout)
    kappa_interval: tuple | None
    recall: dict  # per human label: share the judge got right
    sensitivity: dict | None
    specificity: dict | None
    level: float
    table: np.ndarray  # rows: human label, columns: judge label
    warnings: tuple = ()

    def to_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("n", "labels", "agreement", "kappa", "recall", "sensitivity",
                                              "specificity", "level")}
        out["warnings"] = list(self.warnings)
        out["agreement_interval"] = list(self.agreement_interval)
        out["kappa_interval"] = None if self.kappa_interval is None else list(self.kappa_interval)
        out["table"] = self.table.tolist()
        return out

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.table, index=[f"human {x}" for x in self.labels],
                            columns=[f"judge {x}" for x in self.labels])

    def summary(self) -> str:
        rows = [["agreement", f"{self.agreement:.4f}", "[%.4f, %.4f]" % self.agreement_interval],
                ["Cohen's kappa", "undefined" if self.kappa is None else f"{self.kappa:.4f}",
                 "none: a side uses one label throughout" if self.kappa_interval is None
                 else "[%.4f, %.4f]" % self.kappa_interval]]
        for lab, r in self.recall.items():
            rows.append([f"judge right when human says {lab}", f"{r['value']:.4f}", f"[{r['lo']:.4f}, {r['hi']:.4f}]"])
        return "\n".join([f"judge vs human labels on {self.n} items, {pct(self.level)} intervals",
                          text_table(["quantity", "value", "interval"], rows, right=(1,))]
                         + [f"warning: {w}" for w in self.warnings])


def _jeffreys(x: int, n: int, level: float) -> dict:
    """Jeffreys's interval for ``x`` of ``n``, with the ends at 0 / 1 when ``x`` is 0 / ``n`` (Brown, Cai & DasGupta
    2001, Statist. Sci. 16, 101-133) so that it holds the reported share."""
    a = (1 - level) / 2
    lo, hi = stats.beta.ppf([a, 1 - a], 0.5 + x, 0.5 + n - x)
    return {"value": x / n, "lo": 0.0 if x == 0 else float(lo), "hi": 1.0 if x == n else float(hi), "n": int(n)}


def judge_agreement(human: Any, judge: Any, *, level: float = 0.95) -> Agreement:
    """Agreement, Cohen's kappa and per-class recall of ``judge`` against ``human`` (equal-length label
    sequences; any hashable labels).  Labels are compared as :func:`bayeseval.classification.classification`
    compares them: as text, case and all, with the numbers ``1``, ``1.0`` and ``"1"`` one label; ``True`` is the
    label ``True``, not ``1``.  Two labels ``0`` / ``1`` or ``False`` / ``True``: also sensitivity (recall of
    ``1`` / ``True``) and specificity (of ``0`` / ``False``).  A warning says when no judge label is a human label
    (``True`` against ``1``) or when two labels differ only in case (``Yes`` and ``yes``): written differently,
    they count as disagreements.

    >>> a = judge_agreement([True, False, True, True], [True, False, False, True])
    >>> a.labels, a.agreement, a.sensitivity["value"]
    (['False', 'True'], 0.75, 0.6666666666666666)
    """
    from statsmodels.stats.inter_rater import cohens_kappa

    import pandas as pd

    h = np.asarray(V.unmasked(human, "human"), dtype=object)
    j = np.asarray(V.unmasked(judge, "judge"), dtype=object)
    if h.ndim != 1 or j.ndim != 1 or h.size != j.size:
        raise ValueError(f"human and judge must be two label sequences of equal length, got {h.shape} and {j.shape}")
    if h.size < 2:
        raise ValueError("judge_agreement needs at least 2 labelled items")
    level = V.confidence(level, "level")
    for arr, name in ((h, "human"), (j, "judge")):
        gone = np.flatnonzero(pd.isna(arr))
        if gone.size:
            raise ValueError(f"{name} is missing a label at position {int(gone[0])} ({gone.size} missing): leave out "
                             "the items without both labels")
    hs, js = label_texts(h), label_texts(j)  # 1, 1.0 and "1" are one label; each distinct label converted once
    labels = sorted(set(hs) | set(js), key=label_order)
    warns = _label_warnings(set(hs), set(js))
    index, K = pd.Index(labels, dtype=object), len(labels)
    T = np.bincount(index.get_indexer(hs) * K + index.get_indexer(js), minlength=K * K).reshape(K, K).astype(np.int64)
    n = int(T.sum())
    agree = int(np.trace(T))
    # kappa is undefined when chance agreement is 1 (both sides use one and the same label throughout)
    with np.errstate(invalid="ignore", divide="ignore"):  # statsmodels' z statistic under the null is not used
        k = cohens_kappa(T) if len(labels) > 1 else None
    kappa = float(k.kappa) if k is not None else None
    z = float(stats.norm.ppf(0.5 + level / 2))
    kint = None
    one_sided = min((T.sum(axis=0) > 0).sum(), (T.sum(axis=1) > 0).sum()) == 1  # kappa 0 by construction, no spread
    if k is not None and not one_sided and np.isfinite(k.std_kappa):  # the Wald interval, kept inside [-1, 1]
        kint = (max(-1.0, kappa - z * float(k.std_kappa)), min(1.0, kappa + z * float(k.std_kappa)))
    # per label the human uses: how often the judge gives it too (a label only the judge uses has no recall)
    recall = {lab: _jeffreys(int(T[i, i]), int(T[i].sum()), level) for i, lab in enumerate(labels) if T[i].sum()}
    sens = spec = None
    for neg, pos in (("0", "1"), ("False", "True")):
        if set(labels) == {neg, pos}:
            sens, spec = recall.get(pos), recall.get(neg)
    ai = _jeffreys(agree, n, level)
    if kint is not None and kint[0] == kint[1]:  # the Wald sd is 0 (agreement on every item or none): no certainty, so
        # kappa = (p_o - p_e) / (1 - p_e) at the agreement interval's ends, the marginals (p_e) held fixed
        p_e = float(T.sum(axis=1) @ T.sum(axis=0)) / (n * n)
        kint = (max(-1.0, min(kappa, (ai["lo"] - p_e) / (1 - p_e))), min(1.0, max(kappa, (ai["hi"] - p_e) / (1 - p_e))))
        said = "agree on every item" if agree == n else "agree on no item" if agree == 0 else "leave no spread"
        warns.append(f"kappa's Wald standard error is 0 here (the labels {said}), so its interval is the "
                     "agreement interval carried to kappa with the labels' shares held fixed")
    return Agreement(n=n, labels=labels, agreement=agree / n, agreement_interval=(ai["lo"], ai["hi"]), kappa=kappa,
                     kappa_interval=kint, recall=recall, sensitivity=sens, specificity=spec, level=level, table=T,
                     warnings=tuple(warns))


def _label_warnings(human: set, judge: set) -> list[str]:
    """Warnings for label sets written differently on the two sides (every item would count as a disagreement)."""
    out = []
    if not human & judge:
        out.append(f"no judge label is one of the human labels (human: {', '.join(map(repr, sorted(human)))}; judge: "
                   f"{', '.join(map(repr, sorted(judge)))}), so every item counts as a disagreement: if they name the "
                   "same classes written differently (True and 1, 'yes' and 'Yes'), write them alike")
    folded: dict = {}
    for lab in human | judge:
        folded.setdefault(lab.casefold(), []).append(lab)
    clash = sorted(sorted(v) for v in folded.values() if len(v) > 1)
    if clash:
        out.append("labels that differ only in case are different labels here: "
                   + "; ".join(" and ".join(map(repr, c)) for c in clash) + ": write them alike if they are one class")
    return out
