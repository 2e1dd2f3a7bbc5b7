"""Outcome matrix -> per-question category counts (the sufficient statistic).

Every metric, posterior and comparison in bayeseval depends on a question only
through how many of its trials fell in each category, so inputs are reduced
once, here, to a :class:`Counts` table:

* ``table[i, c]`` -- number of trials of question ``i`` in category ``c``
  (``c = 0..C``; binary outcomes have ``C = 1`` and ``table[:, 1]`` is the
  number of correct trials);
* ``n[i]`` -- the number of observed trials of question ``i`` (rows may be
  *ragged*: failed requests get dropped, so ``n`` need not be constant).

Accepted inputs: numpy arrays, nested lists, pandas DataFrames (rows are
questions, the index becomes the question ids), ``numpy.ma`` masked arrays;
bool, integer or integer-valued float entries; binary ``0/1`` or categories
``0..C``.  Missing trials are accepted only when marked: ``missing=np.nan``
(or another marker value), a boolean ``mask`` (True = missing, as in
``numpy.ma``), or ``ragged=True`` for a list of rows of different lengths.

Counts add up: ``a + b`` pools more trials of the same questions, and
:meth:`Counts.concat` stacks shards of different questions.

Example
-------
>>> import numpy as np
>>> c = to_counts(np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]))
>>> c.table.tolist(), c.n.tolist()
([[2, 3], [1, 4]], [5, 5])
>>> to_counts([[1, 0, 1], [1]], ragged=True).n.tolist()
[3, 1]
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np

from . import validate as V

__all__ = ["Counts", "to_counts"]

_LOC_LIMIT = 5
MAX_COUNT = 2**53  # trials per cell of a count table: exact in float64 and int64
SPARSE_ABOVE = 16  # more categories than this, and at most a quarter present: counted over those present
MAX_CATEGORIES = 1001  # categories 0..1000: rubric grades, partial-credit levels; larger values are not categories


def row_sums(table: np.ndarray) -> np.ndarray:
    """Row sums of a narrow table (few columns): a column-wise add loop, much faster than
    ``table.sum(axis=1)``, whose per-row overhead dominates when rows hold 2-12 entries (no columns: 0)."""
    if table.shape[1] == 0:
        return np.zeros(table.shape[0], dtype=table.dtype)
    out = table[:, 0].copy()
    for j in range(1, table.shape[1]):
        out += table[:, j]
    return out


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _where(name: str, index: np.ndarray) -> str:
    """Human-readable list of matrix positions ``R[i, j]``."""
    index = np.asarray(index)
    shown = ", ".join(
        f"{name}[{', '.join(str(int(v)) for v in np.atleast_1d(row))}]"
        for row in index[:_LOC_LIMIT]
    )
    more = f" and {len(index) - _LOC_LIMIT} more" if len(index) > _LOC_LIMIT else ""
    return shown + more


class Counts:
    """Per-question category counts of an outcome matrix.

    Build one with :func:`to_counts` (or :meth:`from_table`); every metric
    function accepts a ``Counts`` wherever it accepts ``R``, so a matrix is
    counted once and shared by all the metrics computed on it.

    Attributes
    ----------
    table : ndarray, shape (M, C+1), int64, read-only
    n : ndarray, shape (M,), trials per question
    ids : ndarray or None, question ids (from a DataFrame index or ``ids=``)
    fixed_categories : bool, whether ``C`` was fixed explicitly (a ``w`` at
        construction, ``categories=``, or a count table); then a ``w`` of any
        other length is refused.
    """

    __slots__ = ("_table", "ids", "fixed_categories", "_n", "_cache", "_sparse")

    def __init__(self, table: np.ndarray, ids: Any = None, fixed_categories: bool = False,
                 *, _trusted_n: np.ndarray | None = None, _unique_ids: bool = False):
        if _trusted_n is None:
            table = np.array(table, dtype=np.int64, copy=True)
            if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] < 2:
                raise ValueError(f"a count table must have shape (M >= 1, C+1 >= 2), got {table.shape}")
            if (table < 0).any():
                raise ValueError("a count table must be non-negative")
            n = row_sums(table)
        else:  # built by to_counts: a fresh non-negative int64 table and its row sums
            n = _trusted_n
        if not n.all():
            empty = np.flatnonzero(n == 0)
            raise ValueError(
                f"every question needs at least one observed trial; "
                f"question(s) {_list(empty, ids)} have none (drop them first)"
            )
        self._table = _readonly(table)
        self._sparse = None
        self.ids = _check_ids(ids, table.shape[0], known_unique=_unique_ids)
        self.fixed_categories = bool(fixed_categories)
        self._n = _readonly(n)
        self._cache: dict = {}

    @classmethod
    def _from_present(cls, table: np.ndarray, codes: np.ndarray, K: int, ids: Any, fixed: bool,
                      n: np.ndarray) -> "Counts":
        """Counts kept over the categories present only: ``table[:, j]`` counts category ``codes[j]`` of
        ``K`` (memory M x present, not M x K, when a few large category values occur)."""
        out = cls(table, ids=ids, fixed_categories=fixed, _trusted_n=n)
        out._sparse = (_readonly(np.asarray(codes, dtype=np.int64)), int(K))
        return out

    @property
    def table(self) -> np.ndarray:
        """The (M, C+1) count table (built on first use when only the categories present are stored)."""
        if self._sparse is None:
            return self._table
        if "dense" not in self._cache:
            codes, K = self._sparse
            dense = np.zeros((self._table.shape[0], K), dtype=np.int64)
            dense[:, codes] = self._table
            self._cache["dense"] = _readonly(dense)
        return self._cache["dense"]

    def present(self) -> tuple[np.ndarray, np.ndarray]:
        """``(table over the categories that occur, their category codes)``; no M x (C+1) table is built."""
        if self._sparse is not None:
            return self._table, self._sparse[0]
        used = np.flatnonzero(self._table.any(axis=0))
        return self._table[:, used], used

    # -- construction -------------------------------------------------------
    @classmethod
    def from_table(cls, table: Any, w: Any = None, *, ids: Any = None) -> "Counts":
        """Counts from a ready-made (M, C+1) table of category counts.

        ``w``, if given, must have exactly ``C+1`` entries.

        >>> Counts.from_table([[2, 3], [1, 4]]).n.tolist()
        [5, 5]
        """
        if isinstance(table, (str, bytes)):
            raise V.InputTypeError(f"table must be an (M, C+1) array of counts, got {V.describe(table)}")
        try:
            arr = np.array(table)
        except (TypeError, ValueError) as exc:
            raise V.InputTypeError(f"table must be an (M, C+1) array of counts ({exc})") from None
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
            raise V.InputTypeError(f"table must hold counts (integers), got dtype {arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(f"table must be 2-D (questions x categories), got shape {arr.shape}")
        if arr.dtype.kind == "f":
            bad = np.argwhere(~np.isfinite(arr) | (arr != np.floor(arr)) | (arr < 0))
            if bad.size:
                raise ValueError(f"table must hold non-negative integer counts; bad entries at {_where('table', bad)}")
        if arr.dtype.kind in "fiu" and arr.size and float(np.max(arr)) > MAX_COUNT:
            big = np.argwhere(arr > MAX_COUNT)
            raise ValueError(f"table entries must be counts of at most {MAX_COUNT:,} trials; "
                             f"{_where('table', big)} = {arr[tuple(big[0])].item()!r}")
        elif arr.dtype.kind == "i" and (arr < 0).any():
            raise ValueError(f"table must hold non-negative counts; negative at {_where('table', np.argwhere(arr < 0))}")
        if arr.shape[0] == 0:
            raise ValueError("table must have at least one question (row), got 0")
        out = cls(arr.astype(np.int64), ids=ids, fixed_categories=True)
        if w is not None:
            out.check_weights(w)
        return out

    @classmethod
    def concat(cls, parts: Sequence["Counts"]) -> "Counts":
        """Stack counts of different questions (shards) into one table."""
        parts = list(parts)
        if not parts or not all(isinstance(p, Counts) for p in parts):
            raise V.InputTypeError("concat expects a non-empty sequence of Counts")
        K = max(p.K for p in parts)
        table = np.vstack([np.pad(p.table, ((0, 0), (0, K - p.K))) for p in parts])
        if all(p.ids is not None for p in parts):
            ids = np.concatenate([p.ids for p in parts])
        elif any(p.ids is not None for p in parts):
            raise ValueError("concat: either every part has question ids or none has")
        else:
            ids = None
        return cls(table, ids=ids, fixed_categories=any(p.fixed_categories for p in parts))

    def __add__(self, other: "Counts") -> "Counts":
        """Pool more trials of the same questions (same order, or same ids)."""
        if not isinstance(other, Counts):
            return NotImplemented
        if other.M != self.M:
            raise ValueError(f"cannot add counts of {self.M} and {other.M} questions")
        table_b = other.table
        if self.ids is not None and other.ids is not None:
            if not np.array_equal(self.ids, other.ids):
                pos = {q: i for i, q in enumerate(other.ids.tolist())}
                missing = [q for q in self.ids.tolist() if q not in pos]
                if missing:
                    raise ValueError(f"cannot add counts: question ids {missing[:5]} missing on the right")
                table_b = other.table[[pos[q] for q in self.ids.tolist()]]
        K = max(self.K, other.K)
        a = np.pad(self.table, ((0, 0), (0, K - self.K)))
        b = np.pad(table_b, ((0, 0), (0, K - other.K)))
        return Counts(a + b, ids=self.ids, fixed_categories=self.fixed_categories or other.fixed_categories)

    # -- shape --------------------------------------------------------------
    @property
    def n(self) -> np.ndarray:
        """Observed trials per question."""
        return self._n

    @property
    def M(self) -> int:
        return int(self._table.shape[0])

    @property
    def K(self) -> int:
        """Number of categories, ``C + 1``."""
        return int(self._table.shape[1]) if self._sparse is None else self._sparse[1]

    @property
    def C(self) -> int:
        return self.K - 1

    @property
    def N(self) -> int:
        """Largest number of trials of any question."""
        return int(self._n.max())

    @property
    def ragged(self) -> bool:
        return bool(self._n.min() != self._n.max())

    @property
    def is_binary(self) -> bool:
        if "binary" not in self._cache:
            if self._sparse is not None:
                codes = self._sparse[0]
                self._cache["binary"] = self.K == 2 or not self._table[:, codes >= 2].any()
            else:
                self._cache["binary"] = self.K == 2 or not self._table[:, 2:].any()
        return self._cache["binary"]

    def __repr__(self) -> str:
        n = f"N={self.N}" if not self.ragged else f"N={int(self._n.min())}..{self.N} (ragged)"
        kind = "binary" if self.is_binary else f"categories 0..{self.C}"
        return f"<Counts M={self.M} {n} {kind}>"

    # -- views used by the metrics -------------------------------------------
    def successes(self, metric: str = "this metric", weighted: bool = False) -> np.ndarray:
        """Correct trials per question; refuses non-binary outcomes with an :class:`~bayeseval.validate.ArgumentError`
        whose slots ``R`` (the outcomes) and ``w`` (category weights) each front end spells as its users give them.
        ``weighted``: ``metric`` takes weights (the advice is to give them, not to use another metric).

        >>> to_counts([[0, 2], [1, 1]]).successes("avg", weighted=True)
        Traceback (most recent call last):
        ...
        bayeseval.validate.ArgumentError: R must be binary (0/1) for avg without w; it has categories up to 2. \
Threshold it first (1 for every category above 0) or give the category weights (w) for categorical outcomes.
        """
        if not self.is_binary:
            _, codes = self.present()
            cats = codes[codes >= 2]
            advice = ("give the category weights ({w}) for categorical outcomes" if weighted
                      else "use a categorical metric with the category weights ({w})")
            raise V.ArgumentError("{R} must be binary (0/1) for {metric}" + (" without {w}" if weighted else "")
                                  + "; it has categories up to {top}. Threshold it first (1 for every category "
                                  "above 0) or " + advice + ".", "R", "w", metric=metric, top=int(cats.max()))
        if self._sparse is not None:
            codes = self._sparse[0]
            hit = np.flatnonzero(codes == 1)
            return self._table[:, hit[0]] if hit.size else np.zeros(self.M, dtype=np.int64)
        return self._table[:, 1]

    def check_weights(self, w: Any, name: str = "w") -> np.ndarray:
        """``w`` validated against the categories (as :meth:`table_for`), without building a table."""
        w = V.weights(w, name)
        if w.size != self.K:
            _, codes = self.present()
            top = int(codes.max()) if codes.size else 0
            if top >= w.size:
                raise ValueError(
                    f"{name} has {w.size} entries (categories 0..{w.size - 1}) but the outcomes use "
                    f"category {top}; give one weight per category (w is never padded)"
                )
            if self.fixed_categories:
                raise ValueError(
                    f"{name} has {w.size} entries but the outcomes were declared with {self.K} "
                    f"categories (0..{self.C}); w must have exactly {self.K} entries"
                    + (" (never truncated)" if w.size > self.K else "")
                )
        return w

    def table_for(self, w: Any, name: str = "w") -> tuple[np.ndarray, np.ndarray]:
        """The count table matched to a weight vector ``w`` of length ``C+1``.

        ``w`` is never padded or truncated: it must name a weight for every
        observed category, and, when the number of categories was fixed
        explicitly, have exactly that many entries.
        """
        w = self.check_weights(w, name)
        if w.size < self.K:
            return self.table[:, : w.size], w
        if w.size > self.K:
            return np.pad(self.table, ((0, 0), (0, w.size - self.K))), w
        return self.table, w

    def binary_states(self):
        """Distinct ``(n, s)`` pairs: ``(n_u, s_u, freq, inverse)``.

        ``inverse[i]`` is the state of question ``i``; every per-question
        quantity is computed once per state and gathered.
        """
        if "states" not in self._cache:
            s = self.successes()
            n = self._n
            if not self.ragged:
                N = self.N
                hist = np.bincount(s, minlength=N + 1)
                s_u = np.flatnonzero(hist)
                freq = hist[s_u]
                n_u = np.full(s_u.size, N, dtype=np.int64)
                key_pos = np.zeros(N + 1, dtype=np.int64)
                key_pos[s_u] = np.arange(s_u.size)
                inverse_fn = lambda: key_pos[s]  # noqa: E731 - computed lazily
            else:
                key = n * (self.N + 1) + s
                keys, inv, freq = np.unique(key, return_inverse=True, return_counts=True)
                n_u = keys // (self.N + 1)
                s_u = keys % (self.N + 1)
                inverse_fn = lambda: inv  # noqa: E731
            self._cache["states"] = (
                _readonly(n_u.astype(np.int64)),
                _readonly(s_u.astype(np.int64)),
                _readonly(freq.astype(np.float64)),
                inverse_fn,
            )
        n_u, s_u, freq, inverse_fn = self._cache["states"]
        return n_u, s_u, freq, inverse_fn

    def take(self, index: Any) -> "Counts":
        """The questions at ``index`` (positions), in that order, with their ids."""
        idx = np.asarray(index, dtype=np.int64)
        ids = None if self.ids is None else self.ids[idx]
        if self._sparse is not None:
            return Counts._from_present(self._table[idx], self._sparse[0], self._sparse[1], ids,
                                        self.fixed_categories, _readonly(self._n[idx]))
        return Counts(self._table[idx], ids, self.fixed_categories, _trusted_n=_readonly(self._n[idx]))

    def distinct_rows(self):
        """Distinct rows of the count table: ``(rows (U, K), freq (U,))``.

        Categorical metrics depend on a question only through its row of
        counts, so they are evaluated once per distinct row.
        """
        if "rows" not in self._cache:
            if self.K == 2:
                n_u, s_u, freq, _ = self.binary_states()
                rows = np.column_stack([n_u - s_u, s_u])
            else:
                part, codes = self.present() if self._sparse is not None else (self._table, None)
                rows, freq = distinct_rows(part, self._n)
                if codes is not None:  # back to all categories, for the few distinct rows only
                    full = np.zeros((rows.shape[0], self.K), dtype=np.int64)
                    full[:, codes] = rows
                    rows, freq = _dense_order(full, freq, self._n, part)
            self._cache["rows"] = (_readonly(rows), _readonly(np.asarray(freq, dtype=np.float64)))
        return self._cache["rows"]

    def per_question(self, state_values: np.ndarray) -> np.ndarray:
        """Gather per-state values back to one value per question."""
        inverse = self.binary_states()[3]()
        return np.asarray(state_values)[inverse]

    def require_k_le_n(self, k: int, metric: str) -> None:
        """Finite-sample estimators need ``k <= n`` for every question."""
        bad = np.flatnonzero(self._n < k)
        if not bad.size:
            return
        if not self.ragged:
            raise ValueError(
                f"k must satisfy 1 <= k <= N (N={self.N}), got k={k}: the unbiased {metric} "
                "estimator needs at least k trials per question (the *_ci posterior accepts any k >= 1)"
            )
        raise ValueError(
            f"k={k} exceeds the number of trials of {bad.size} question(s) "
            f"({_list(bad, self.ids)}; they have n={sorted(set(self._n[bad].tolist()))[:5]}); "
            f"the unbiased {metric} estimator needs 1 <= k <= n for every question"
        )

    def cache(self) -> dict:
        """Per-object cache shared by the metrics (weights, log-gamma tables)."""
        return self._cache


def distinct_rows(table: np.ndarray, totals: np.ndarray | None = None):
    """Distinct rows of an integer table and their frequencies (mixed-radix keys, no row sort).

    When every row has the same total (pass ``totals`` if known), the first
    column is implied by the others and is left out of the key, which keeps
    the key space small enough for a histogram.
    """
    table = np.asarray(table)
    M, K = table.shape
    if totals is None:
        totals = row_sums(table)
    same_total = bool(totals.min() == totals.max())
    first = 1 if same_total else 0
    width = K - first
    top = (int(totals[0]) if same_total else int(table.max())) + 1
    if width * np.log2(max(top, 2)) < 62:
        key = table[:, K - 1].astype(np.int64)
        for j in range(K - 2, first - 1, -1):  # Horner over the few columns
            key *= top
            key += table[:, j]
        space = int(top) ** width
        if space <= max(4 * M, 1 << 20):
            hist = np.bincount(key, minlength=space)
            keys = np.flatnonzero(hist)
            freq = hist[keys]
        else:
            keys, freq = np.unique(key, return_counts=True)
        rows = np.empty((keys.size, K), dtype=np.int64)
        for j in range(first, K):
            keys, rows[:, j] = np.divmod(keys, top)
    else:
        cols, freq = np.unique(table[:, first:], axis=0, return_counts=True)
        rows = np.empty((cols.shape[0], K), dtype=np.int64)
        rows[:, first:] = cols
    if same_total:
        rows[:, 0] = int(totals[0]) - row_sums(rows[:, 1:])
    return rows, freq


def _dense_order(rows: np.ndarray, freq: np.ndarray, totals: np.ndarray, part: np.ndarray):
    """Distinct rows (of all categories) in the order :func:`distinct_rows` gives for the full table, so
    that counting only the categories present changes no draw: lexicographic from the first key column
    where the full table's key would overflow 62 bits, else by its mixed-radix key (last column first)."""
    K = rows.shape[1]
    same_total = bool(totals.min() == totals.max())
    first = 1 if same_total else 0
    top = (int(totals[0]) if same_total else int(part.max())) + 1
    cols = rows[:, first:]
    if (K - first) * np.log2(max(top, 2)) < 62:
        order = np.lexsort(cols.T)  # the last column is the most significant digit of the key
    else:
        order = np.lexsort(cols.T[::-1])  # np.unique(axis=0): the first column is the most significant
    return rows[order], np.asarray(freq)[order]


def _list(index: np.ndarray, ids: Any) -> str:
    index = np.asarray(index)
    if ids is not None:
        labels = [repr(v) for v in np.asarray(ids)[index[:_LOC_LIMIT]].tolist()]
    else:
        labels = [str(int(i)) for i in index[:_LOC_LIMIT]]
    more = f" and {index.size - _LOC_LIMIT} more" if index.size > _LOC_LIMIT else ""
    return ", ".join(labels) + more


def _check_ids(ids: Any, M: int, known_unique: bool = False):
    """Question ids as a read-only array, one per question and unique (``known_unique``: the caller built them
    from a GROUP BY, so the O(M log M) check is skipped)."""
    if ids is None:
        return None
    arr = np.asarray(list(ids) if not isinstance(ids, np.ndarray) else ids)
    if arr.ndim != 1 or arr.size != M:
        raise ValueError(f"ids must have one entry per question ({M}), got shape {arr.shape}")
    if not known_unique:
        try:
            distinct = np.unique(arr).size
        except TypeError:  # ids that cannot be ordered together: numbers beside text (shards read differently)
            values = arr.tolist()
            if any(v is None for v in values):
                raise ValueError(f"question id {values.index(None)} (from 0) is missing (None); every question needs "
                                 "an id") from None
            kinds = sorted({type(v).__name__ for v in values})
            raise ValueError(f"question ids mix types ({', '.join(kinds)}): 7 and '7' would be two questions; give "
                             "every id as a number or every id as text (the files or shards that were joined "
                             "store the question column differently)") from None
        if distinct != M:
            raise ValueError("ids must be unique (one id per question)")
    return _readonly(arr.copy())


def _is_nan_marker(missing: Any) -> bool:
    return isinstance(missing, numbers.Real) and not isinstance(missing, bool) and math.isnan(missing)


def flat_error(what: str, k: int) -> ValueError:
    """The error for a flat sequence of ``k`` outcomes given as ``what`` (see :func:`is_flat`)."""
    return ValueError(f"{what} one-dimensional ({k} values), which could be {k} questions with one trial each or one "
                      f"question with {k} trials; give a questions x trials matrix: np.asarray(x).reshape(-1, 1) for "
                      "one trial per question, np.asarray(x).reshape(1, -1) for one question")


def is_flat(R: Any) -> bool:
    """``R`` is a flat sequence of outcomes: a 1-D array or Series (not of objects), or a list / tuple of scalars (a
    list of rows, even of unequal length, is not).  :func:`to_counts` reads it as one question; the front doors
    (:func:`bayeseval.estimate`, :func:`bayeseval.compare`) refuse it as ambiguous.

    >>> is_flat([1, 0, 1]), is_flat([[1, 0, 1]]), is_flat(np.zeros((3, 1)))
    (True, False, False)
    """
    if isinstance(R, (list, tuple)):
        return len(R) > 0 and all(np.ndim(x) == 0 and not isinstance(x, (str, bytes)) for x in R)
    ndim, dtype = getattr(R, "ndim", None), getattr(R, "dtype", None)
    return ndim == 1 and dtype is not None and dtype != object


def to_counts(
    R: Any,
    w: Any = None,
    *,
    mask: Any = None,
    missing: Any = None,
    ragged: bool = False,
    categories: int | None = None,
    ids: Any = None,
    name: str = "R",
) -> Counts:
    """Reduce an outcome matrix to a :class:`Counts` table (one pass over ``R``).

    Parameters
    ----------
    R : array-like (M, N), DataFrame, masked array, list of rows, or Counts
        Outcomes: rows are questions, columns are trials.  A 1-D input is one
        question.  Entries are 0/1 (bool, int, or integer-valued float) or
        categories ``0..C``.
    w : array-like, optional
        Category weights ``(w_0..w_C)``; fixes ``C = len(w) - 1`` and every
        entry must be ``<= C``.
    mask : bool array-like, optional
        ``True`` marks a missing trial (the ``numpy.ma`` convention).
    missing : scalar, optional
        Marker value of a missing trial, e.g. ``np.nan`` or ``-1``.
        Without it (or ``mask``), NaN is an error.
    ragged : bool
        ``R`` is a list of rows of different lengths.
    categories : int, optional
        The number of categories ``C + 1`` when it should be fixed without
        weights (for example a 1..10 rubric where no 10 was given).
    ids : sequence, optional
        Question ids (a DataFrame's index is used by default).

    Returns
    -------
    Counts
        ``R`` itself is never modified.
    """
    if isinstance(R, Counts):
        if w is not None:
            R.check_weights(w)
        return R
    ragged = V.flag(ragged, "ragged")
    K_fixed = None
    if categories is not None:
        K_fixed = V.integer(categories, "categories", minimum=2)
    w_arr = None
    if w is not None:
        w_arr = V.weights(w)
        if K_fixed is not None and K_fixed != w_arr.size:
            raise ValueError(f"w has {w_arr.size} entries but categories={K_fixed}")
        K_fixed = w_arr.size

    # pandas DataFrame / Series: rows are questions, index gives the ids
    if hasattr(R, "to_numpy") and hasattr(R, "index") and hasattr(R, "columns"):
        if ids is None:
            ids = R.index.to_numpy()
        refuse_id_columns(R, name)
        if any(str(t) in ("object", "string", "str") for t in getattr(R, "dtypes", [])):
            raise V.InputTypeError(f"{name} must hold numbers or booleans; a DataFrame column holds text or objects")
        from pandas.api.types import is_extension_array_dtype

        nullable = any(is_extension_array_dtype(t) for t in R.dtypes)  # Int64, Float64, boolean: pd.NA, not NaN
        try:
            R = R.to_numpy(dtype=np.float64, na_value=np.nan) if nullable or R.isna().to_numpy().any() else R.to_numpy()
        except (TypeError, ValueError):  # e.g. a categorical column of text
            raise V.InputTypeError(f"{name} must hold numbers or booleans; a DataFrame column holds text") from None

    if ragged:
        if mask is not None:
            raise ValueError("mask cannot be combined with ragged=True (absent entries are already missing)")
        arr, absent = _pad_rows(R, name)
        mask = absent
    else:
        arr = _as_array(R, name)

    if isinstance(arr, np.ma.MaskedArray):
        m = np.ma.getmaskarray(arr)
        arr = np.asarray(arr.data)
        mask = m if mask is None else (m | _as_mask(mask, arr.shape))
    if isinstance(arr, np.ndarray) and not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))  # big-endian input: read in native byte order (a copy)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
        if mask is not None:
            mask = np.asarray(mask).reshape(1, -1)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D (questions x trials), got {arr.ndim} dimensions")
    M, N = arr.shape
    if M == 0:
        raise ValueError(f"{name} must contain at least one question (M >= 1), got shape {arr.shape}")
    if N == 0:
        raise ValueError(f"{name} must contain at least one trial (N >= 1), got shape {arr.shape}")

    missing_mask = None if mask is None else _as_mask(mask, arr.shape).copy()
    kind = arr.dtype.kind
    if kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            if _is_nan_marker(missing) or (missing_mask is not None and not (nan & ~missing_mask).any()):
                missing_mask = nan if missing_mask is None else (missing_mask | nan)
            else:
                where = np.argwhere(nan if missing_mask is None else nan & ~missing_mask)
                raise ValueError(
                    f"{name} contains NaN at {_where(name, where)}; if NaN marks a missing trial, "
                    "pass missing=np.nan (or a mask) to bayeseval.to_counts"
                )
        inf = np.isinf(arr)
        if inf.any():
            raise ValueError(f"{name} must be finite; infinite value at {_where(name, np.argwhere(inf))}")
    if missing is not None and not _is_nan_marker(missing):
        if isinstance(missing, bool) or not isinstance(missing, numbers.Real):
            raise V.InputTypeError(f"missing must be a number or np.nan, got {V.describe(missing)}")
        hit = arr == missing
        missing_mask = hit if missing_mask is None else (missing_mask | hit)

    fixed = K_fixed is not None and K_fixed >= 2
    if K_fixed == 1:  # a single category (w of length 1): keep the table two columns wide
        K_fixed = 2
    if missing_mask is None and kind in "biu":
        table = _count_integer_fast(arr, name, K_fixed)
    else:
        table = _count_general(arr, name, K_fixed, missing_mask)
    if isinstance(table, tuple):  # many categories, few of them present: keep those only
        part, codes, K = table
        return Counts._from_present(part, codes, K, ids, fixed, row_sums(part))
    n = np.full(M, N, dtype=np.int64) if missing_mask is None and kind in "biu" else row_sums(table)
    return Counts(table, ids=ids, fixed_categories=fixed, _trusted_n=n)


def _as_mask(mask: Any, shape: tuple) -> np.ndarray:
    try:
        m = np.asarray(mask)
    except (TypeError, ValueError) as exc:
        raise V.InputTypeError(f"mask must be a boolean array ({exc})") from None
    if m.dtype != np.bool_:
        raise V.InputTypeError(f"mask must be a boolean array (True = missing), got dtype {m.dtype}")
    if m.shape != shape:
        raise ValueError(f"mask must have the shape of R {shape}, got {m.shape}")
    return m


#: DataFrame columns that are not trials: a wide matrix's columns are its trials, its index the question ids
_ID_COLUMNS = frozenset({"question", "question_id", "qid", "id", "task", "task_id", "item", "item_id", "model"})


def refuse_id_columns(frame: Any, name: str) -> None:
    """A wide DataFrame's columns are its trials and its index the question ids: a column named like ids
    (``question_id``, ``id``, ``model``, ...) is refused, naming ``set_index`` (``{"question_id": [0, 1], "t0": ...}``
    read the ids as a trial of 0/1 outcomes; as scores, they were averaged in)."""
    named = [c for c in frame.columns if str(c).strip().lower() in _ID_COLUMNS]
    if named:
        raise ValueError(f"{name}: column {named[0]!r} looks like question ids or model names, not a trial; make "
                         f"it the index (df.set_index({named[0]!r})), or read a long table with bayeseval.load")


def _as_array(R: Any, name: str) -> np.ndarray:
    if isinstance(R, (str, bytes)):
        raise V.InputTypeError(f"{name} must be an array of outcomes, got {V.describe(R)}")
    if isinstance(R, np.ma.MaskedArray):
        return R
    try:
        arr = np.asarray(R)
    except ValueError as exc:
        if "inhomogeneous" in str(exc) or "sequence" in str(exc):
            raise ValueError(
                f"{name} is a ragged nested list (rows of different lengths); pass ragged=True to "
                "bayeseval.to_counts, or pad the rows with a missing marker (missing=np.nan or a mask)"
            ) from None
        raise V.InputTypeError(f"{name} must be an array of outcomes ({exc})") from None
    except TypeError as exc:
        raise V.InputTypeError(f"{name} must be an array of outcomes ({exc})") from None
    if arr.dtype == object:
        raise V.InputTypeError(
            f"{name} must hold numbers or booleans, got Python objects (None, text or mixed rows?); "
            "mark missing trials with np.nan and pass missing=np.nan"
        )
    if arr.dtype.kind in "USV":
        raise V.InputTypeError(f"{name} must hold numbers or booleans, got text (dtype {arr.dtype})")
    if arr.dtype.kind == "c":
        raise V.InputTypeError(f"{name} must hold real numbers, got complex values")
    if arr.dtype.kind not in "biuf":
        raise V.InputTypeError(f"{name} must hold numbers or booleans, got dtype {arr.dtype}")
    return arr


def _pad_rows(rows: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A list of rows of different lengths -> padded float matrix and absent mask."""
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__"):
        raise V.InputTypeError(f"{name} with ragged=True must be a list of rows, got {V.describe(rows)}")
    parsed = []
    for i, row in enumerate(rows):
        arr = _as_array(row, f"{name}[{i}]")
        if arr.ndim != 1:
            raise ValueError(f"{name}[{i}] must be a 1-D row of outcomes, got shape {arr.shape}")
        parsed.append(arr)
    if not parsed:
        raise ValueError(f"{name} must contain at least one question (M >= 1)")
    lengths = np.array([a.size for a in parsed])
    width = int(lengths.max())
    if width == 0:
        raise ValueError(f"{name} must contain at least one trial (N >= 1)")
    kinds = {a.dtype.kind for a in parsed}
    out = np.zeros((len(parsed), width), dtype=np.float64 if "f" in kinds else np.int64)
    absent = np.arange(width)[None, :] >= lengths[:, None]
    for i, a in enumerate(parsed):
        out[i, : a.size] = a
    return out, absent


def _bad_category(name: str, arr: np.ndarray, bad: np.ndarray, K_fixed: int | None) -> ValueError:
    where = np.argwhere(bad)
    first = arr[tuple(where[0])].item()
    if K_fixed is not None:
        return ValueError(
            f"{name} entries must be categories 0..{K_fixed - 1} (w has {K_fixed} entries, one per category; "
            f"w is never padded): {_where(name, where)} = {first!r}"
        )
    return ValueError(f"{name} entries must be non-negative integers (0/1 or categories 0..C): "
                      f"{_where(name, where)} = {first!r}")


def _check_category_cap(name: str, arr: np.ndarray, top: int, K_fixed: int | None) -> None:
    """Refuse values that cannot be categories before anything is allocated for them."""
    limit = K_fixed if K_fixed is not None else MAX_CATEGORIES
    if top >= limit:
        raise _bad_category(name, arr, arr >= limit, K_fixed) if K_fixed is not None else ValueError(
            f"{name} entries must be 0/1 outcomes or categories 0..C with C < {MAX_CATEGORIES}; "
            f"found the value {top!r} (scores or ids, not categories?)"
        )


def _row_sums(arr: np.ndarray, top: int) -> np.ndarray:
    """Row sums of a small-valued integer matrix, accumulated in the narrowest safe type."""
    bound = arr.shape[1] * max(top, 1)
    if arr.dtype == np.bool_:
        arr = arr.view(np.uint8)
    if arr.dtype.itemsize <= 2 and bound < 2**15:
        acc = np.int16  # about twice as fast as int64 accumulation for int8 input
    elif arr.dtype.itemsize <= 4 and bound < 2**31:
        acc = np.int32
    else:
        acc = np.int64
    return arr.sum(axis=1, dtype=acc).astype(np.int64)


def _count_integer_fast(arr: np.ndarray, name: str, K_fixed: int | None) -> np.ndarray:
    """Bool / integer matrix without missing trials, counted in a few vectorised passes.

    One ``max`` checks the range (a signed view as unsigned maps negatives to
    huge values); binary input then needs one row sum; ``C`` categories need
    the row sum plus one ``R == c`` count for each ``c >= 2``.
    """
    M, N = arr.shape
    if arr.dtype.kind == "b":
        top = 1
    else:
        unsigned = arr.view(np.dtype(f"u{arr.dtype.itemsize}")) if arr.dtype.kind == "i" else arr
        top = int(unsigned.max())
    if arr.dtype.kind == "i" and top > np.iinfo(arr.dtype).max:
        raise _bad_category(name, arr, arr < 0, None)
    _check_category_cap(name, arr, top, K_fixed)
    K = K_fixed if K_fixed is not None else max(2, top + 1)
    if top >= K:
        raise _bad_category(name, arr, arr >= K, K_fixed)
    if K > 12:
        return _count_general(arr, name, K_fixed, None)
    table = np.zeros((M, K), dtype=np.int64)
    if top == 2 and arr.dtype.itemsize == 1:
        return _count_three_levels(arr, table)  # one narrow pass instead of two
    rest = _row_sums(arr, top)  # sum_c c * n_c
    for c in range(2, top + 1):
        table[:, c] = _row_sums(arr == c, 1)
        rest -= c * table[:, c]
    table[:, 1] = rest
    table[:, 0] = N - row_sums(table[:, 1:])
    return table


def _count_three_levels(arr: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Outcomes 0/1/2 (wrong / partial / right) counted with a single narrow row sum.

    Each entry ``v`` is mapped to ``f(v) = v (a + b v)`` with ``f(0) = 0``,
    ``f(1) = 1`` and ``f(2) = r`` for an even radix ``r`` above the number of
    columns summed (so ``a``, ``b`` are integers); the row sum ``n_1 + r n_2``
    is split by ``divmod``.  The map runs in uint8 arithmetic (wrapping mod
    256 is harmless because every ``f(v) <= r < 256``) and the sums in int16,
    over blocks of at most 180 columns so that ``r * width < 2**15``.
    """
    M, N = arr.shape
    blocks = -(-N // 180)
    width = -(-N // blocks)
    radix = width + 1 + (width + 1) % 2
    b = np.uint8((radix - 2) // 2)
    a = np.uint8((1 - int(b)) % 256)
    v = arr.view(np.uint8)
    even = N % width == 0
    keys = np.empty((M, blocks), dtype=np.int64)
    # large matrices: cache-sized blocks of rows through one scratch buffer; small ones: one block
    rows_per = M if M * N <= (1 << 20) else max(1, (1 << 18) // N)
    scratch = np.empty((min(rows_per, M), N), dtype=np.uint8)
    for start in range(0, M, rows_per):
        blk = v[start : start + rows_per]
        f = scratch[: blk.shape[0]]
        np.multiply(blk, b, out=f)
        f += a
        f *= blk
        if even:
            part = f.reshape(-1, width).sum(axis=1, dtype=np.int16).reshape(blk.shape[0], blocks)
        else:
            part = np.column_stack(
                [f[:, j : j + width].sum(axis=1, dtype=np.int16) for j in range(0, N, width)]
            )
        keys[start : start + blk.shape[0]] = part
    q, r = np.divmod(keys, radix)
    n2 = row_sums(q) if blocks > 1 else q[:, 0]
    n1 = row_sums(r) if blocks > 1 else r[:, 0]
    table[:, 2] = n2
    table[:, 1] = n1
    table[:, 0] = N - n1 - n2
    return table


def _count_general(arr: np.ndarray, name: str, K_fixed: int | None, missing_mask) -> np.ndarray:
    M, N = arr.shape
    observed = None if missing_mask is None else ~missing_mask
    if arr.dtype.kind == "f":
        bad = (arr != np.floor(arr)) | (arr < 0)
        if observed is not None:
            bad &= observed
        if bad.any():
            raise _bad_category(name, arr, bad, None)
    elif arr.dtype.kind == "i":
        bad = arr < 0 if observed is None else (arr < 0) & observed
        if bad.any():
            raise _bad_category(name, arr, bad, None)
    vals = arr if observed is None else np.where(observed, arr, 0)
    top = int(vals.max()) if vals.size else 0
    _check_category_cap(name, arr, top, K_fixed)
    K = K_fixed if K_fixed is not None else max(2, top + 1)
    if top >= K:
        bad = vals >= K if observed is None else (vals >= K) & observed
        raise _bad_category(name, arr, bad, K_fixed)
    if top <= 1 and observed is None:
        s = vals.sum(axis=1).astype(np.int64)
        table = np.zeros((M, K), dtype=np.int64)
        table[:, 0] = N - s
        table[:, 1] = s
        return table
    if K > SPARSE_ABOVE:
        # count over the categories present (memory M x present, never M x (largest value + 1))
        present = np.unique(vals if observed is None else vals[observed]).astype(np.int64)
        if present.size * 4 <= K:
            codes = np.searchsorted(present, vals).astype(np.int64)
            rows = np.broadcast_to(np.arange(M, dtype=np.int64)[:, None] * present.size, (M, N))
            flat = rows + codes
            if observed is not None:
                flat = flat[observed]
            P = present.size
            return np.bincount(flat.ravel(), minlength=M * P).reshape(M, P), present, K
    rows = np.broadcast_to(np.arange(M, dtype=np.int64)[:, None] * K, (M, N))
    flat = (rows + vals.astype(np.int64))
    if observed is not None:
        flat = flat[observed]
    return np.bincount(flat.ravel(), minlength=M * K).reshape(M, K)

