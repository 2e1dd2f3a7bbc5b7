r"""AISBench's accuracy metrics: pass@k, cons@k, avg@n and "accuracy (n runs average)".

Definitions from the AISBench 3.1 metric notes (``n`` replicas per question,
``c_i`` of them correct, ``N`` questions):

* pass@k :math:`= \frac1N\sum_i \big(1 - \prod_{j=n-c_i+1}^{n}(1 - k/j)\big)
  = \frac1N\sum_i \big(1 - \binom{n-c_i}{k}/\binom{n}{k}\big)` (unbiased, Chen et al. 2021);
* cons@k :math:`= \frac1N\sum_i I(c_i > k/2)` -- *strictly more* than half of
  the replicas correct; AISBench sets ``n = k``.  For ``n > k`` this module
  returns the unbiased estimate of the same target, the probability that more
  than ``k/2`` of ``k`` sampled replicas are correct (maj@k), which equals
  AISBench's formula whenever ``n = k``;
* avg@n :math:`= \frac1N\sum_i c_i/n`, where a replica is correct when its
  score exceeds a hard threshold (0.5 by default, ``H_ij = I(s_ij > 0.5)``);
* accuracy (n runs average) :math:`= \frac1n\sum_j\frac1N\sum_i s_{ij}` --
  the mean of the *soft* per-replica scores; it equals avg@n only when every
  score is 0 or 1.

All functions return fractions in [0, 1] (AISBench prints percentages).

>>> import numpy as np
>>> R = np.array([[1, 1, 0], [1, 0, 1], [0, 0, 1], [0, 0, 0]])   # c = [2, 2, 1, 0]
>>> pass_at_k(R, 3), round(avg_at_n(R), 4), cons_at_k(R, 3)
(0.75, 0.4167, 0.5)
>>> S = np.array([[0.6, 0.4, 0.6]])
>>> round(accuracy_n_runs_average(S), 3), round(avg_at_n(S), 3)
(0.533, 0.667)
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from . import validate as V
from .counts import to_counts
from .metrics import coefficients as coef
from .metrics.engine import Bernstein

__all__ = ["pass_at_k", "cons_at_k", "avg_at_n", "accuracy_n_runs_average", "hard_outcomes", "metric_name",
           "reported_names"]

_AIS_METRIC = re.compile(r"^(avg|pass|cons)@(\d+)$")


def metric_name(reported: str) -> str | None:
    """The bayeseval metric of a name AISBench reports (``avg@3`` -> ``avg@n``, ``accuracy`` -> ``avg``,
    ``pass@3`` / ``cons@3`` as they are); None for a name that is not a metric.

    >>> [metric_name(k) for k in ("avg@3", "accuracy", "cons@3", "version")]
    ['avg@n', 'avg', 'cons@3', None]
    """
    key = str(reported).strip().lower()
    m = _AIS_METRIC.match(key)
    if m:
        return "avg@n" if m.group(1) == "avg" else key
    return "avg" if key == "accuracy" else None


def reported_names(metric: str, n: int) -> list[str]:
    """The names under which AISBench (or OpenCompass) may report a bayeseval metric with ``n`` replicas.

    >>> reported_names("avg", 3)
    ['avg', 'avg@3', 'accuracy (3 runs average)', 'accuracy']
    """
    out = [metric]
    if str(metric).lower().replace(" ", "") in ("avg", "avg@n"):
        out += [f"avg@{n}", f"accuracy ({n} runs average)", "accuracy"]
    return out


def _soft(S: Any, name: str = "scores") -> np.ndarray:
    if isinstance(S, (str, bytes)):
        raise V.InputTypeError(f"{name} must be an (N, n) array of per-replica scores, got {V.describe(S)}")
    try:
        arr = np.array(S, dtype=None)
    except ValueError:
        raise ValueError(f"{name} is a ragged nested list; every question needs the same number of replicas") from None
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise V.InputTypeError(f"{name} must hold numbers or booleans, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty (questions x replicas) matrix, got shape {arr.shape}")
    bad = np.argwhere(~np.isfinite(arr) | (arr < 0) | (arr > 1))
    if bad.size:
        i, j = bad[0]
        raise ValueError(f"{name} must hold scores in [0, 1]; {name}[{i}, {j}] = {float(arr[i, j])!r}")
    return arr


def hard_outcomes(scores: Any, threshold: float = 0.5, name: str = "scores") -> np.ndarray:
    """AISBench's hard correctness ``H_ij = I(score_ij > threshold)`` (a new int matrix)."""
    threshold = V.real(threshold, "threshold", lo=0.0, hi=1.0)
    return (_soft(scores, name) > threshold).astype(np.int64)


def avg_at_n(R: Any, threshold: float = 0.5) -> float:
    """avg@n: mean over questions of the fraction of replicas whose score exceeds ``threshold``.

    Binary ``R`` is used as is (1 > 0.5); soft scores in [0, 1] are thresholded first.

    >>> avg_at_n([[0.6, 0.4, 0.6]])
    0.6666666666666666
    """
    H = hard_outcomes(R, threshold, name="R")
    return float(np.mean(H.mean(axis=1)))


def accuracy_n_runs_average(scores: Any) -> float:
    """"accuracy (n runs average)": mean over replicas of the mean soft score over questions.

    >>> round(accuracy_n_runs_average([[0.6, 0.4, 0.6]]), 4)
    0.5333
    """
    S = _soft(scores)
    return float(np.mean(S.mean(axis=0)))


def _binary_point(R: Any, k: Any, metric: str, c) -> float:
    k = V.integer(k, "k", minimum=1)
    counts = to_counts(R)
    counts.successes(metric)
    counts.require_k_le_n(k, metric)
    return Bernstein(c(k), name=metric).point(counts)


def pass_at_k(R: Any, k: Any) -> float:
    """AISBench pass@k (unbiased); ``n=5, c=3, k=2`` gives 0.9.

    >>> pass_at_k([[1, 1, 1, 0, 0]], 2)
    0.9
    """
    return _binary_point(R, k, "pass@k", coef.pass_at_k)


def cons_at_k(R: Any, k: Any) -> float:
    """AISBench cons@k: strictly more than ``k/2`` correct (``n = k``: ``I(c > k/2)``).

    >>> cons_at_k([[1, 1, 0], [1, 0, 0]], 3)
    0.5
    """
    return _binary_point(R, k, "cons@k", coef.maj_at_k)
