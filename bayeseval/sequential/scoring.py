r"""Per-question scores for sequential monitoring: one unbiased number per question, in a known range.

For 0/1 outcomes and a metric in Bernstein form :math:`g(p) = \sum_j c_j \binom{k}{j} p^j (1-p)^{k-j}`
(avg, pass@k, pass^k, maj@k, ...) the per-question score from ``s`` correct of ``n >= k`` trials is the
unbiased estimate :math:`\hat g = \sum_j c_j \binom{s}{j}\binom{n-s}{k-j} / \binom{n}{k}` (the
hypergeometric mean of the payoff), which lies in :math:`[\min c, \max c]`.  Graded outcomes with
weights ``w`` score the mean weight; continuous scores their mean.  These are exactly the per-question
values :func:`bayeseval.compare` works from.

>>> import numpy as np
>>> x, rng_ = question_values(np.array([[1, 0, 0, 0], [1, 1, 0, 0]]), "pass@2")
>>> x.round(4).tolist(), rng_
([0.5, 0.8333], (0.0, 1.0))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import validate as V
from ..metrics.engine import Bernstein, score_table
from ..counts import flat_error, is_flat
from ..scores import Scores, binarise, to_outcomes
from ..targets import MetricSpec, parse

__all__ = ["question_values", "unbiased_table"]


def _coefficients(spec: MetricSpec) -> np.ndarray:
    """The payoff vector of a metric with a per-question unbiased score (avg is ``[0, 1]``)."""
    if spec.kind == "mean" and spec.name != "bayes" and "w" not in spec.params:
        return np.array([0.0, 1.0])
    if spec.kind == "bernstein":
        return np.asarray(spec.coefficients, dtype=np.float64)
    raise ValueError(f"metric {spec.label!r} has no per-question unbiased estimate for sequential monitoring; "
                     "use avg or an @k metric (pass@k, pass^k, maj@k, ...)")


def unbiased_table(metric: Any, n: int, **params) -> tuple[np.ndarray, tuple[float, float]]:
    """The unbiased per-question estimate for ``s = 0..n`` correct of ``n`` trials, and its range.

    >>> unbiased_table("pass@2", 4)[0].round(4).tolist()
    [0.0, 0.5, 0.8333, 1.0, 1.0]
    """
    spec = metric if isinstance(metric, MetricSpec) else parse(metric, **params)
    n = V.integer(n, "trials", minimum=1)
    c = _coefficients(spec)
    k = c.size - 1
    if k > n:
        raise V.ArgumentError("{label} needs at least {k} trials per question, got {trials} = {n}", "trials",
                              label=spec.label, k=k, n=n)
    return score_table(c[:, None], n)[:, 0], (float(c.min()), float(c.max()))


def question_values(X: Any, metric: Any = "avg", *, w: Any = None, score_range: Any = None, missing: Any = None,
                    ragged: bool = False, name: str = "outcomes", **params) -> tuple[np.ndarray, tuple[float, float]]:
    """One unbiased score per question (in the input's question order) and the range scores lie in.

    ``X`` is an outcome matrix (questions x trials), a DataFrame, lists of rows or a Counts table; 0/1,
    graded categories with weights ``w`` (metric avg) or continuous scores (``score_range``, metric avg);
    ``threshold=t`` turns scores into 0/1 outcomes (``score > t``) first, as :func:`bayeseval.estimate` does.
    A flat sequence is refused as ambiguous (questions with one trial each, or one question), as there.
    """
    if not ragged and is_flat(X):
        raise flat_error(f"{name} is", len(X))
    if "threshold" in params:  # binarised as estimate binarises them (for avg@n too: its threshold reads them so)
        X = binarise(X, params.pop("threshold"), score_range=score_range, missing=missing, ragged=ragged, name=name)
        missing, ragged, score_range = np.nan, False, None
    out = to_outcomes(X, w, missing=missing, ragged=ragged, score_range=score_range, name=name)
    spec = parse(metric, **params)
    if isinstance(out, Scores):
        if spec.name not in ("avg", "avg@n"):
            raise V.ArgumentError("{name} holds scores: sequential monitoring of scores supports metric avg, not "
                                  "{label}; give {threshold} t to count a trial correct when its score > t",
                                  "threshold", name=name, label=spec.label)
        return np.asarray(out.means, dtype=np.float64), (out.lo, out.hi)
    counts = out
    if not counts.is_binary or w is not None:
        if spec.name not in ("avg", "avg@n"):
            raise ValueError(f"{name} holds graded outcomes: sequential monitoring supports metric avg with "
                             f"weights w, not {spec.label}")
        if w is None:
            raise ValueError(f"{name} holds categories above 1; give their weights w (one per category)")
        table, wv = counts.table_for(w)
        if wv.min() == wv.max():
            raise ValueError(f"w gives every category of {name} the same weight ({wv[0]:g}), so every question scores "
                             f"{wv[0]:g} whatever its outcomes: there is nothing to monitor; give weights that differ")
        return table @ wv / counts.n, (float(wv.min()), float(wv.max()))
    c = _coefficients(spec)
    if c.min() == c.max():
        raise ValueError(f"metric {spec.label} pays {c[0]:g} whatever the outcomes, so every question scores the same: "
                         "there is nothing to monitor; choose a metric whose payoff differs between outcomes")
    return counts.per_question(Bernstein(c, spec.label).point_states(counts)), (float(c.min()), float(c.max()))
