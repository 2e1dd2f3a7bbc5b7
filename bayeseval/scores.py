r"""Bounded continuous scores -> per-question sufficient statistics (:class:`Scores`).

Token F1, BLEU / ROUGE, a judge's probability or partial credit is a number in a known range
``[lo, hi]`` per trial, not a category.  The mean score and its intervals need, per question, only

* ``n[i]``     -- observed trials (ragged allowed),
* ``total[i]`` -- the sum of its scores,
* ``sq[i]``    -- the sum of squared deviations from its own mean (``(n_i - 1) s_i^2``),

so an outcome matrix is reduced once, here, and everything after works on ``(n, total, sq)``.
The within-question sum of squares is accumulated about each question's mean (two passes over
the row), which keeps it exact when every trial of a question has nearly the same score.

What is and is not a score: an input with a value that is not an integer (0.5, 0.37) is read as
scores in ``[0, 1]`` unless ``score_range`` says otherwise; 0/1 and category inputs stay counts
(:func:`bayeseval.to_counts`), so 0/1 outcomes are never treated as scores by accident, and scores
are never binarised by accident either (``threshold=`` in :func:`bayeseval.estimate` does that,
explicitly).  With ``score_range=(lo, hi)`` any numbers in that range are scores, integer or not
(a 1-10 rating read as a score, not as categories).

>>> import numpy as np
>>> s = to_scores([[0.5, 1.0, 0.75], [0.0, 0.2, 0.1]])
>>> s.n.tolist(), s.means.round(3).tolist(), s.within_var().round(4).tolist()
([3, 3], [0.75, 0.1], [0.0625, 0.01])
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from . import validate as V
from .counts import Counts, _check_ids, refuse_id_columns

__all__ = ["Scores", "to_scores", "to_outcomes", "looks_continuous", "score_range_arg", "any_scores", "score_matrix",
           "binarise", "same_range", "RangeMismatch", "label_threshold", "thresholded", "names_avg_at_n"]

_LOC_LIMIT = 5
MAX_MAGNITUDE = 1e12  # score ranges beyond this overflow the variance arithmetic: rescale instead


class Scores:
    """Per-question sufficient statistics of bounded scores: trials ``n``, sums ``total``, within-question
    sums of squared deviations ``sq``, the declared range ``(lo, hi)`` and optional question ``ids``.
    Read-only; add more trials of the same questions with ``a + b`` (pooled exactly)."""

    is_binary = False
    is_scores = True

    def __init__(self, n: Any, total: Any, sq: Any, lo: float, hi: float, ids: Any = None):
        try:
            n_in = np.array(n, dtype=np.float64)  # copies: the caller's arrays are not frozen or changed
            total = np.array(total, dtype=np.float64)
            sq = np.array(sq, dtype=np.float64)
            lo, hi = float(lo), float(hi)
        except (TypeError, ValueError):
            raise V.InputTypeError("Scores needs numbers: n, total and sq arrays, lo and hi") from None
        if not (n_in.ndim == 1 and n_in.shape == total.shape == sq.shape and n_in.size >= 1):
            raise ValueError("Scores needs n, total and sq of the same length >= 1")
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"Scores needs a range lo < hi of finite numbers, got ({lo:g}, {hi:g})")
        if not np.all(np.isfinite(n_in)) or (n_in != np.round(n_in)).any():
            raise ValueError("n must hold whole numbers of observed scores per question")
        n = n_in.astype(np.int64)
        if (n < 1).any():
            raise ValueError("every question needs at least one observed score (n >= 1)")
        if not (np.all(np.isfinite(total)) and np.all(np.isfinite(sq))):
            raise ValueError("total and sq must be finite numbers")
        tol = 1e-9 * (hi - lo)
        mean = total / n
        out = np.flatnonzero((mean < lo - tol) | (mean > hi + tol))
        if out.size:
            raise ValueError(f"question {int(out[0])}: its mean score total / n = {mean[out[0]]:g} lies outside the "
                             f"range [{lo:g}, {hi:g}]")
        if (sq < -tol * (hi - lo) * n).any():  # rounding of a sum of squares: far below 1e-9 of its scale
            raise ValueError(f"sq must be sums of squared deviations (>= 0), got {float(sq.min()):g}")
        sq = np.maximum(sq, 0.0)  # rounding below 0
        for a in (n, total, sq):
            a.setflags(write=False)
        self.n, self.total, self.sq = n, total, sq
        self.lo, self.hi = lo, hi
        self.ids = _check_ids(ids, n.size)
        self._cache: dict = {}

    @property
    def M(self) -> int:
        return int(self.n.size)

    @property
    def N(self) -> int:
        return int(self.n.max())

    @property
    def ragged(self) -> bool:
        return bool(self.n.min() != self.n.max())

    @property
    def means(self) -> np.ndarray:
        """Per-question mean score (the unbiased estimate of the question's expected score)."""
        return self.total / self.n

    def within_var(self) -> np.ndarray:
        """Per question, the unbiased within-question variance ``sq / (n - 1)``; NaN where ``n = 1``."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.n >= 2, self.sq / np.maximum(self.n - 1, 1), np.nan)

    def cache(self) -> dict:
        return self._cache

    def take(self, index: Any) -> "Scores":
        index = np.asarray(index)
        return Scores(self.n[index], self.total[index], self.sq[index], self.lo, self.hi,
                      None if self.ids is None else self.ids[index])

    def __add__(self, other: "Scores") -> "Scores":
        """More trials of the same questions: counts, sums and (by the parallel-variance formula of Chan,
        Golub & LeVeque 1983) the within-question sums of squares pool exactly."""
        if not isinstance(other, Scores):
            return NotImplemented
        if other.M != self.M or (self.lo, self.hi) != (other.lo, other.hi):
            raise ValueError("Scores add only for the same questions and the same score range")
        if self.ids is not None and other.ids is not None and not np.array_equal(self.ids, other.ids):
            pos = {q: i for i, q in enumerate(other.ids.tolist())}
            missing = [q for q in self.ids.tolist() if q not in pos]
            if missing:
                raise ValueError(f"cannot add scores: question ids {missing[:5]} missing on the right")
            other = other.take([pos[q] for q in self.ids.tolist()])
        n = self.n + other.n
        d = other.means - self.means
        sq = self.sq + other.sq + d**2 * self.n * other.n / n
        return Scores(n, self.total + other.total, sq, self.lo, self.hi, self.ids)

    def __repr__(self) -> str:
        N = f"{int(self.n.min())}-{self.N}" if self.ragged else str(self.N)
        return f"Scores(M={self.M}, N={N}, range=[{self.lo:g}, {self.hi:g}])"


def category_values(matrix: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Each trial's value from a matrix of category codes (NaN = missing): the category's weight ``w[code]``, NaN
    where missing; a new array.

    >>> category_values(np.array([[0.0, 2.0], [1.0, np.nan]]), np.array([0.0, 0.5, 1.0])).tolist()
    [[0.0, 1.0], [0.5, nan]]
    """
    out = np.full(matrix.shape, np.nan)
    seen = ~np.isnan(matrix)
    out[seen] = np.asarray(w, dtype=np.float64)[matrix[seen].astype(np.int64)]
    return out


def score_range_arg(score_range: Any) -> tuple[float, float] | None:
    """``score_range`` validated: None, or ``(lo, hi)`` finite with ``lo < hi``."""
    if score_range is None:
        return None
    if isinstance(score_range, (str, bytes)) or not hasattr(score_range, "__len__") or len(score_range) != 2:
        raise V.InputTypeError(f"score_range must be a pair (lo, hi), got {V.describe(score_range)}")
    lo, hi = (V.real(x, "score_range") for x in score_range)
    why = ("must be finite with lo < hi" if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi)
           else f"must lie within +-{MAX_MAGNITUDE:g} (rescale the scores)" if max(abs(lo), abs(hi)) > MAX_MAGNITUDE
           # a width near the smallest doubles loses the variance arithmetic too
           else f"must be at least {1.0 / MAX_MAGNITUDE:g} wide (rescale the scores)" if hi - lo < 1.0 / MAX_MAGNITUDE
           else None)
    if why:  # the slot: the command line says --scores
        raise V.ArgumentError("{score_range} {why}, got ({lo:g}, {hi:g})", "score_range", why=why, lo=lo, hi=hi)
    return float(lo), float(hi)


class RangeMismatch(ValueError):
    """Scores compared on different ranges; ``model`` names the first whose range differs from the first one's."""

    def __init__(self, message: str, model: str):
        super().__init__(message)
        self.model = model


def same_range(named: dict) -> None:
    """Models compared or ranked together must share one score range: ``{name: Scores}``."""
    ranges = {k: (v.lo, v.hi) for k, v in named.items() if isinstance(v, Scores)}
    if len(set(ranges.values())) > 1:
        shown = ", ".join(f"{k}: [{lo:g}, {hi:g}]" for k, (lo, hi) in ranges.items())
        first = next(iter(ranges.values()))
        raise RangeMismatch(f"the models' scores are on different ranges ({shown}); compare scores on one scale "
                            "(rescale them, or give the same score_range to each)",
                            next(k for k, r in ranges.items() if r != first))


def looks_continuous(R: Any) -> bool:
    """Whether ``R`` (before counting) holds a finite value that is not an integer: then it is scores.

    Counts, lists of rows of mixed lengths and non-numeric inputs are not inspected (False)."""
    if isinstance(R, (Counts, Scores)):
        return False
    if hasattr(R, "to_numpy") and hasattr(R, "columns"):
        try:
            R = R.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):
            return False
    if isinstance(R, np.ma.MaskedArray):
        R = np.ma.filled(R.astype(np.float64), 0.0)
    try:
        arr = np.asarray(R)
    except (TypeError, ValueError):  # rows of different lengths
        arr = None
    if arr is None or arr.dtype == object:
        try:
            return any(_has_fraction(np.asarray(r, dtype=np.float64)) for r in R)
        except (TypeError, ValueError):
            return False
    return arr.dtype.kind == "f" and _has_fraction(arr)


def _has_fraction(arr: np.ndarray) -> bool:
    fin = arr[np.isfinite(arr)]
    return bool(fin.size and (fin != np.floor(fin)).any())


def _where(name: str, index: np.ndarray) -> str:
    shown = ", ".join(f"{name}[{', '.join(str(int(x)) for x in i)}]" for i in index[:_LOC_LIMIT])
    more = f" and {len(index) - _LOC_LIMIT} more" if len(index) > _LOC_LIMIT else ""
    return shown + more


def score_matrix(R: Any, *, score_range: Any = None, missing: Any = None, mask: Any = None, ragged: bool = False,
                 ids: Any = None, name: str = "R") -> tuple[np.ndarray, np.ndarray, Any, float, float]:
    """The parsing half of :func:`to_scores`: ``(scores as float (M, N), observed mask, ids, lo, hi)``, every
    observed score checked against the range; ``R`` is copied, never modified."""
    if isinstance(R, (Scores, Counts)):
        raise V.InputTypeError(f"{name} is already counted; the scores themselves (a matrix) are needed here")
    lo, hi = score_range_arg(score_range) or (0.0, 1.0)
    ragged = V.flag(ragged, "ragged")
    if hasattr(R, "to_numpy") and hasattr(R, "index") and hasattr(R, "columns"):
        if ids is None:
            ids = R.index.to_numpy()
        refuse_id_columns(R, name)
        if any(str(t) in ("object", "string", "str") for t in getattr(R, "dtypes", [])):
            raise V.InputTypeError(f"{name} must hold numbers; a DataFrame column holds text or objects")
        R = R.to_numpy(dtype=np.float64, na_value=np.nan)
    absent = None
    if ragged:
        if mask is not None:
            raise ValueError("mask cannot be combined with ragged=True (absent entries are already missing)")
        rows = list(R)
        if not rows:
            raise ValueError(f"{name} must contain at least one question")
        width = max((len(r) for r in rows), default=0)
        arr = np.full((len(rows), width), np.nan)
        absent = np.ones((len(rows), width), dtype=bool)
        for i, r in enumerate(rows):
            try:
                v = np.asarray(r, dtype=np.float64).ravel()
            except (TypeError, ValueError):
                raise V.InputTypeError(f"{name}[{i}] must hold numbers") from None
            arr[i, : v.size] = v
            absent[i, : v.size] = False
    else:
        if isinstance(R, np.ma.MaskedArray):
            absent = np.ma.getmaskarray(R).copy()
            R = R.data
        try:
            arr = np.array(R, dtype=np.float64)  # a copy: the caller's data are never touched
        except (TypeError, ValueError):
            raise V.InputTypeError(f"{name} must be a numeric matrix of scores (questions x trials)") from None
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
        absent = None if absent is None else absent.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D matrix (questions x trials), got shape {arr.shape}")
    if mask is not None:
        m = np.asarray(mask, dtype=bool)
        if m.shape != arr.shape:
            raise ValueError(f"mask has shape {m.shape}, {name} has {arr.shape}")
        absent = m if absent is None else absent | m
    nan = np.isnan(arr)
    if missing is not None:
        if isinstance(missing, float) and math.isnan(missing):
            absent = nan if absent is None else absent | nan
        elif isinstance(missing, numbers.Real) and not isinstance(missing, bool):
            hit = arr == float(missing)
            absent = hit if absent is None else absent | hit
        else:
            raise V.InputTypeError(f"missing must be a number or np.nan, got {V.describe(missing)}")
    observed = np.ones(arr.shape, bool) if absent is None else ~absent
    bad = nan & observed
    if bad.any():
        raise ValueError(f"{name} contains NaN at {_where(name, np.argwhere(bad))}; if NaN marks a missing trial, "
                         "pass missing=np.nan")
    out = observed & ((arr < lo) | (arr > hi) | np.isinf(arr))
    if out.any():
        i = np.argwhere(out)
        raise V.ArgumentError("{name} has scores outside [{lo:g}, {hi:g}] at {where} (e.g. {v!r}); give the range of "
                              "the scores with {score_range}", "score_range", name=name, lo=lo, hi=hi,
                              where=_where(name, i), v=float(arr[tuple(i[0])]))
    return arr, observed, ids, lo, hi


def to_scores(R: Any, *, score_range: Any = None, missing: Any = None, mask: Any = None, ragged: bool = False,
              ids: Any = None, name: str = "R") -> Scores:
    """Reduce a matrix of scores (questions x trials) to :class:`Scores` in one pass; ``R`` is not modified.

    Parameters
    ----------
    R : array-like (M, N), DataFrame (index = question ids), masked array, list of rows, or Scores
    score_range : ``(lo, hi)``; default ``(0, 1)``.  Every observed score must lie in it.
    missing, mask, ragged : unobserved trials, as in :func:`bayeseval.to_counts` (NaN is an error unless
        ``missing=np.nan`` or a mask marks it).
    """
    if isinstance(R, Scores):
        rng = score_range_arg(score_range)
        if rng is not None and rng != (R.lo, R.hi):
            raise ValueError(f"{name} holds scores in [{R.lo:g}, {R.hi:g}], but score_range={rng}")
        return R
    if isinstance(R, Counts):
        raise V.InputTypeError(f"{name} is a Counts table of categories; scores need the raw score matrix")
    arr, observed, ids, lo, hi = score_matrix(R, score_range=score_range, missing=missing, mask=mask, ragged=ragged,
                                              ids=ids, name=name)
    n = observed.sum(axis=1).astype(np.int64)
    if (n == 0).any():
        empty = np.flatnonzero(n == 0)[:_LOC_LIMIT]
        which = [ids[i].item() if hasattr(ids[i], "item") else ids[i] for i in empty] if ids is not None else empty.tolist()
        raise ValueError(f"{name}: question(s) {which} have no observed score")
    x = np.where(observed, arr, 0.0)
    total = x.sum(axis=1)
    dev = np.where(observed, arr - (total / n)[:, None], 0.0)
    return Scores(n, total, np.einsum("ij,ij->i", dev, dev), lo, hi, ids)


def any_scores(inputs: Any, score_range: Any = None) -> bool:
    """Whether a set of models' inputs are to be read as scores: ``score_range`` given, or any of them
    already :class:`Scores` or holding a value that is not an integer (then all are scores, so a model
    whose scores happen to be all 0 or 1 is read the same way as the others)."""
    return score_range is not None or any(isinstance(x, Scores) or looks_continuous(x) for x in inputs)


def to_outcomes(R: Any, w: Any = None, *, missing: Any = None, ragged: bool = False, score_range: Any = None,
                scores: bool | None = None, ids: Any = None, name: str = "R") -> "Counts | Scores":
    """``R`` counted once: :class:`Scores` when it holds scores (``scores=True``, ``score_range`` given, or
    a value that is not an integer), else :func:`bayeseval.to_counts` categories / 0/1 outcomes."""
    if scores is None:
        scores = any_scores([R], score_range)
    if scores:
        if w is not None:
            raise ValueError(f"w (category weights) is for categorical outcomes; {name} holds scores")
        if isinstance(R, Counts):
            if not R.is_binary:
                raise V.InputTypeError(f"{name} is a Counts table of categories; scores need the raw score matrix")
            lo, hi = score_range_arg(score_range) or (0.0, 1.0)
            if (lo, hi) != (0.0, 1.0):
                raise ValueError(f"{name} holds 0/1 outcomes, which are scores in [0, 1], not {score_range}")
            n, s = R.n, R.successes()
            return Scores(n, s.astype(np.float64), s * (n - s) / n, lo, hi, R.ids)  # 0/1 trials as scores
        return to_scores(R, score_range=score_range, missing=missing, ragged=ragged, ids=ids, name=name)
    from .counts import to_counts

    return to_counts(R, w, missing=missing, ragged=ragged, ids=ids, name=name)


def binarise(R: Any, threshold: Any, *, score_range: Any = None, missing: Any = None, mask: Any = None,
             ragged: bool = False, name: str = "R") -> Any:
    """``threshold=t``: scores to 0/1 outcomes, 1 where ``score > t`` (AISBench's convention), as a float matrix
    with NaN for unobserved trials (a DataFrame keeps its index, so questions still pair by id)."""
    if isinstance(R, (Scores, Counts)):
        raise V.InputTypeError(f"threshold= needs the raw scores of {name} (a matrix), not already-counted outcomes")
    arr, observed, ids, lo, hi = score_matrix(R, score_range=score_range, missing=missing, mask=mask, ragged=ragged,
                                              name=name)
    t = threshold_below_top(threshold, lo, hi)
    out = np.where(observed, (arr > t).astype(np.float64), np.nan)
    if ids is not None:
        import pandas as pd

        return pd.DataFrame(out, index=pd.Index(ids, dtype=object))
    return out


def threshold_below_top(threshold: Any, lo: float, hi: float) -> float:
    """``threshold`` as a number in ``[lo, hi)``: a trial counts as correct when its score is above it, and no score
    lies above ``hi``, so a threshold there would count every trial wrong (a confident 0 whatever the data)."""
    t = V.real(threshold, "threshold", lo=lo, hi=hi)
    if t >= hi:
        whole = float(lo).is_integer() and float(hi).is_integer() and hi - 0.5 >= lo
        raise V.ArgumentError("{threshold} counts a score above it as correct, and no score lies above {hi:g}, the top "
                              "of the range: every trial would count as wrong; give a threshold below {hi:g}"
                              + (" (with whole-number grades, {half:g} counts a {hi:g} as correct)" if whole else ""),
                              "threshold", hi=hi, half=hi - 0.5)
    return t


def thresholded(inputs: dict, metric: Any, params: dict, *, score_range: Any = None, missing: Any = None,
                ragged: bool = False) -> tuple[dict, Any, bool]:
    """``threshold=`` in a comparison's metric parameters (any metric but ``avg@n``, whose own parameter it is):
    every model's raw scores binarised before counting.  Returns ``(inputs, missing, ragged)`` to count with
    (``params`` loses ``threshold``)."""
    if "threshold" not in params or names_avg_at_n(metric):
        return inputs, missing, ragged
    t = params.pop("threshold")
    out = {k: binarise(v, t, score_range=score_range, missing=missing, ragged=ragged, name=k) for k, v in inputs.items()}
    return out, np.nan, False


def label_threshold(posts, threshold: Any) -> None:
    """Each of ``posts`` (posteriors built on outcomes binarised at ``threshold``) names it in its metric's label,
    ``pass@2 (threshold=0.5)``, as :func:`bayeseval.estimate` labels its estimate (a comparison said "pass@2")."""
    for post in posts:
        post.spec = post.spec.thresholded(threshold)


def names_avg_at_n(metric: Any) -> bool:
    """Whether ``metric`` is AISBench's avg@n, for which ``threshold=`` is the metric's own parameter (every
    other metric reads it as "binarise the scores first")."""
    if isinstance(metric, str):
        return metric.strip().lower().startswith("avg@")
    return getattr(metric, "name", None) == "avg@n"
