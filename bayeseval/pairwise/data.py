"""Pairwise preference data: which of two responses to an item was preferred, by whom, in which order.

One label says, for one item (a prompt, a question), which of two models' answers a judge (a human
annotator, an LLM judge, a repeat of one judge) preferred, or that it was a tie.  Labels of one item
are not independent -- the item is the cluster -- so everything downstream groups by item.

:func:`from_long` reads a long table, one label per row (Arena / MT-Bench battle logs: ``model_a``,
``model_b``, ``winner`` in ``{"model_a", "model_b", "tie", "tie (bothbad)"}``); :func:`from_wide`
reads one row per item with one column per judge (PandaLM's test set: codes ``1`` = first model,
``2`` = second, ``0`` = tie).  Both return :class:`Preferences`.

>>> p = from_long({"item": [1, 1, 2], "model_a": ["x", "x", "y"], "model_b": ["y", "y", "x"],
...                "winner": ["model_a", "tie", "x"]})
>>> p.models, p.n_labels, p.pair_counts("x", "y")[0].tolist()
(('x', 'y'), 3, [[1, 1, 0], [1, 0, 0]])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import validate as V
from .._text import label_text as _text
from .._text import label_texts as _texts
from .._text import unique_header

__all__ = ["Preferences", "from_long", "from_wide", "read_battles", "read_records", "item_column", "duplicate_note",
           "WIN_A", "WIN_B", "TIE_WORDS"]

WIN_A = ("model_a", "a", "1")
WIN_B = ("model_b", "b", "2")
TIE_WORDS = ("tie", "tie (bothbad)", "draw", "0", "both_bad", "tie(bothbad)")


@dataclass(frozen=True, eq=False)
class Preferences:
    """Labels of pairwise preferences, one entry per label (arrays of equal length).

    ``item`` indexes ``items`` (the item ids as given), ``a`` and ``b`` index ``models``,
    ``outcome`` is +1 where ``a`` was preferred, -1 where ``b`` was, 0 for a tie; ``a_first`` is True
    where ``a``'s answer was shown first (None when the order is unknown); ``judge`` indexes ``judges``
    (None without a judge column); ``dropped`` counts the rows left out with ``invalid="drop"``, ``duplicates``
    the rows that repeat an earlier row exactly (:func:`from_long` without ``repeat=``).
    """

    models: tuple
    items: tuple
    item: np.ndarray
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    a_first: np.ndarray | None = None
    judge: np.ndarray | None = None
    judges: tuple | None = None
    dropped: int = 0  # labels left out with invalid="drop"
    duplicates: int = 0  # rows identical to an earlier row (item, models, judge, order, verdict), kept as labels

    @property
    def n_labels(self) -> int:
        return int(self.outcome.size)

    @property
    def n_items(self) -> int:
        return len(self.items)

    def index(self, model: Any, name: str = "model") -> int:
        if model not in self.models and _text(model) in self.models:  # written as the data's names are read
            model = _text(model)
        if model not in self.models:
            raise ValueError(f"{name} {model!r} is not one of the models in the data: "
                             f"{', '.join(map(repr, self.models))}")
        return self.models.index(model)

    def subset(self, keep: np.ndarray) -> "Preferences":
        """The labels where ``keep`` is True (items renumbered, models kept)."""
        keep = np.asarray(keep, dtype=bool)
        used, item = np.unique(self.item[keep], return_inverse=True)
        return Preferences(self.models, tuple(self.items[i] for i in used), item.ravel(), self.a[keep], self.b[keep],
                           self.outcome[keep], None if self.a_first is None else self.a_first[keep],
                           None if self.judge is None else self.judge[keep], self.judges, self.dropped,
                           self.duplicates)

    def pair_counts(self, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Per item that compares ``x`` and ``y``: ``(counts (M, 3) of [x preferred, tie, y preferred],
        item indices (M,), position counts (M, 4) over the non-tie labels -- [x shown first and preferred,
        x shown first and y preferred, y shown first and preferred, y shown first and x preferred] -- or None
        when the order is unknown)``."""
        i, j = self.index(x, "a"), self.index(y, "b")
        if i == j:
            raise ValueError(f"a and b must be two different models, got {x!r} twice")
        fwd = (self.a == i) & (self.b == j)
        rev = (self.a == j) & (self.b == i)
        sel = fwd | rev
        if not sel.any():
            raise ValueError(f"no labels compare {x!r} with {y!r}")
        o = np.where(fwd[sel], self.outcome[sel], -self.outcome[sel])  # +1: x preferred
        items, inv = np.unique(self.item[sel], return_inverse=True)
        inv = inv.ravel()
        counts = np.zeros((items.size, 3), dtype=np.int64)
        np.add.at(counts, (inv, 1 - o), 1)  # +1 -> column 0, 0 -> 1, -1 -> 2
        pos = None
        if self.a_first is not None:
            x_first = np.where(fwd[sel], self.a_first[sel], ~self.a_first[sel])
            decided = o != 0
            # columns: x first and preferred, x first and y preferred, y first and preferred, y first and x preferred
            col = np.where(x_first, np.where(o == 1, 0, 1), np.where(o == -1, 2, 3))
            pos = np.zeros((items.size, 4), dtype=np.int64)
            np.add.at(pos, (inv[decided], col[decided]), 1)
        return counts, items, pos

    def pairs(self) -> np.ndarray:
        """Per unordered model pair that was judged: rows ``(i, j, wins of i, ties, wins of j)``, ``i < j``."""
        lo, hi = np.minimum(self.a, self.b), np.maximum(self.a, self.b)
        o = np.where(self.a == lo, self.outcome, -self.outcome)  # +1: lo preferred
        K = len(self.models)
        key = lo * K + hi
        out = np.zeros((K * K, 3), dtype=np.int64)
        np.add.at(out, (key, 1 - o), 1)
        judged = np.flatnonzero(out.sum(axis=1))
        return np.column_stack([judged // K, judged % K, out[judged]])


def duplicate_note(k: int, judged: bool) -> str:
    """The warning for ``k`` rows that repeat an earlier row exactly (:attr:`Preferences.duplicates`); ``judged``: the
    table has a judge column."""
    if judged:
        return (f"{k} row(s) repeat an earlier row exactly (same item, models, judge, order and verdict) and are "
                "counted as separate labels: drop them if the table was duplicated; if the judge labelled the item "
                "again (a repeat, a second turn), number the repeats (repeat=) or make the turn part of the item id")
    return ("every row comes with exact copies (same item, models, order and verdict), as if the table were written "
            "more than once: "
            f"{k} row(s) repeat an earlier one and are counted as separate labels; drop them if so, or name the judge "
            "column (judge=) or number the repeats (repeat=) if they are distinct labels")


def _column(data: Any, name: str, what: str, allow_missing: bool = False) -> np.ndarray:
    try:
        col = data[name]
    except (KeyError, IndexError, TypeError):
        cols = list(data.columns) if hasattr(data, "columns") else list(data) if isinstance(data, dict) else []
        raise ValueError(f"{what}: no column {name!r} in the data (columns: {', '.join(map(str, cols))})") from None
    arr = np.asarray(col, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"{what} column {name!r} must be one-dimensional")
    import pandas as pd

    missing = np.flatnonzero(pd.isna(arr))  # None, NaN, pd.NA, NaT, elementwise
    if missing.size and not allow_missing:
        raise ValueError(f"{what} column {name!r} is missing a value in row {int(missing[0])}")
    if missing.size:
        arr = arr.copy()
        arr[missing] = None
    return arr


def _code(v: Any) -> str:
    """A verdict as a lower-case word; a whole number (1, 1.0, "1.0") as the integer it is.  A boolean is the word
    ``"true"`` / ``"false"``, not a code (a winner column of booleans says nothing about which side won)."""
    if v is None:
        return ""
    t = _text(v).lower()
    try:
        x = float(t)
    except ValueError:
        return t
    return str(int(x)) if x.is_integer() else t


def _winner(win: np.ndarray, ma: np.ndarray, mb: np.ndarray, column: str, invalid: str,
            codes_only: bool = False) -> np.ndarray:
    """+1 / 0 / -1 per row, or -2 for a value dropped with ``invalid="drop"`` (also a missing one).  A model's own
    name counts as its win unless ``codes_only``; a verdict that is both a code and the name of the other model
    of its row is refused as ambiguous."""
    words = np.array([_code(v) for v in win], dtype=object)
    by_code = np.full(win.size, -9, dtype=np.int64)
    by_code[np.isin(words, TIE_WORDS)] = 0
    by_code[np.isin(words, WIN_A)] = 1
    by_code[np.isin(words, WIN_B)] = -1
    out = by_code.copy()
    if not codes_only:
        raw = np.array(["" if v is None else _text(v) for v in win], dtype=object)
        by_name = np.where(raw == ma, 1, np.where(raw == mb, -1, -9))
        clash = np.flatnonzero((by_code != -9) & (by_name != -9) & (by_code != by_name))
        if clash.size:
            r = int(clash[0])
            raise ValueError(f"{column} in row {r} is {win[r]!r}, which is both a verdict code and the name of a model "
                             f"of that row ({ma[r]!r}, {mb[r]!r}): write model_a / model_b / tie instead")
        out = np.where(by_name != -9, by_name, by_code)
    bad = np.flatnonzero(out == -9)
    if bad.size:
        if invalid == "drop":
            out[bad] = -2
        else:
            r = int(bad[0])
            shown = "a missing value" if win[r] is None else repr(win[r])
            raise ValueError(f"{column} in row {r} is {shown}: neither model of that row ({ma[r]!r}, {mb[r]!r}) "
                             f"nor a known value (model_a / a / 1, model_b / b / 2, tie / draw / 0); "
                             f"{bad.size} such row(s); pass invalid='drop' (CLI: --invalid drop) to leave them out")
    return out


def from_long(data: Any, *, item: str = "item", model_a: str = "model_a", model_b: str = "model_b",
              winner: str = "winner", judge: str | None = None, order: str | None = None,
              shown_first: str | None = None, repeat: str | None = None, invalid: str = "raise",
              codes_only: bool = False) -> Preferences:
    """Preferences from a long table (a DataFrame or a dict of columns), one label per row.

    ``winner``: ``model_a`` / ``a`` / ``1``, ``model_b`` / ``b`` / ``2``, ``tie`` / ``tie (bothbad)`` /
    ``draw`` / ``0`` (case-insensitive), or the name of one of the row's two models.  ``order`` names a
    column saying which answer was shown first (``model_a`` / ``a`` / ``model_b`` / ``b`` or a model
    name); ``shown_first="model_a"`` declares instead that ``model_a`` was always shown first (Arena
    logs put it on the left).  ``repeat`` names a column numbering repeats: then (item, models, judge,
    order, repeat) must be unique.  Without it, rows that repeat an earlier row exactly (item, models, judge,
    order, verdict) are kept as labels and warned about, naming how many (:attr:`Preferences.duplicates`; the
    results of :func:`win_rate` and :func:`bradley_terry` repeat the warning): with a judge column, wherever they
    occur; without one, copies are read as anonymous labels unless every distinct row comes a multiple of
    ``k >= 2`` times over several items (a table written ``k`` times).  ``invalid="drop"`` leaves out rows
    whose winner is missing or not understood (unparseable judge verdicts) instead of raising.
    ``codes_only=True`` reads the winner as a code only, never as a model name (a verdict that is both a code
    and a model name of its row is otherwise refused as ambiguous).  Item ids must be all numbers or all text.
    """
    if invalid not in ("raise", "drop"):
        raise ValueError(f"invalid must be 'raise' or 'drop', got {invalid!r}")
    if isinstance(data, (list, tuple)) and data and all(isinstance(r, dict) for r in data):
        import pandas as pd

        data = pd.DataFrame.from_records(list(data))  # a list of records, as a JSON battle log reads
    elif data is None or isinstance(data, (list, tuple, str, bytes, np.ndarray, int, float)):
        raise V.InputTypeError(f"data must be a table: a DataFrame, a dict of columns or a list of records (dicts), "
                               f"got {V.describe(data)}")
    if shown_first not in (None, "model_a"):
        raise ValueError(f"shown_first must be None or 'model_a', got {shown_first!r}")
    if order is not None and shown_first is not None:
        raise ValueError("give either order (a column) or shown_first, not both")
    ids = _column(data, item, "item")
    kinds = {"text" if isinstance(v, str) else "number" for v in ids}
    if len(kinds) > 1:
        r = next(i for i, v in enumerate(ids) if isinstance(v, str) != isinstance(ids[0], str))
        raise ValueError(f"{item} ids must be all numbers or all text, not a mix (row 0 is {ids[0]!r}, row {r} is "
                         f"{ids[r]!r}: 1 and '1' would be merged)")
    ma = _texts(_column(data, model_a, "model_a"))  # each distinct name converted once
    mb = _texts(_column(data, model_b, "model_b"))
    if ids.size == 0:
        raise ValueError("the table has no rows")
    for arr, what in ((ma, model_a), (mb, model_b)):
        bad = np.flatnonzero([(not s) or any(ord(c) < 32 for c in s) for s in arr])
        if bad.size:
            raise ValueError(f"{what} in row {int(bad[0])} is {arr[bad[0]]!r}: a model name must be non-empty "
                             "text without control characters")
    same = np.flatnonzero(ma == mb)
    if same.size:
        r = int(same[0])
        raise ValueError(f"row {r} compares {ma[r]!r} with itself ({model_a} == {model_b}); a preference needs two "
                         f"different models ({same.size} such row(s))")
    out = _winner(_column(data, winner, "winner", allow_missing=invalid == "drop"), ma, mb, winner, invalid, codes_only)
    a_first = None
    if order is not None:
        od = _column(data, order, "order")
        import pandas as pd

        raw = _texts(od)
        words = pd.Series(raw, dtype=object).str.lower().to_numpy(dtype=object)
        a_first = np.full(od.size, -1, dtype=np.int64)
        says_a = np.isin(words, ("model_a", "a", "true")) | (raw == ma)
        says_b = np.isin(words, ("model_b", "b", "false")) | (raw == mb)
        both = np.flatnonzero(says_a & says_b)
        if both.size:  # a code for one side and the other side's model name: refused, as for verdicts
            i = int(both[0])
            raise ValueError(f"order: row {i} holds {raw[i]!r}, both an order code and the name of a model in that row "
                             f"({ma[i]!r} vs {mb[i]!r}); write model_a / model_b ({both.size} such row(s))")
        a_first[says_a] = 1
        a_first[says_b] = 0
        bad = np.flatnonzero(a_first < 0)
        if bad.size:
            r = int(bad[0])
            raise ValueError(f"{order} in row {r} is {od[r]!r}: expected which answer was shown first (model_a / a / "
                             f"model_b / b, or {ma[r]!r} / {mb[r]!r})")
        a_first = a_first.astype(bool)
    elif shown_first == "model_a":
        a_first = np.ones(ids.size, dtype=bool)
    jd = None if judge is None else _texts(_column(data, judge, "judge"))
    if repeat is not None:
        rep = _texts(_column(data, repeat, "repeat"))
        lo = np.where(ma < mb, ma, mb)
        hi = np.where(ma < mb, mb, ma)
        first = None if a_first is None else np.where(a_first, ma, mb)  # the model shown first, by name
        keys = [tuple(x) for x in zip(map(_text, ids), lo, hi, *(() if jd is None else (jd,)),
                                      *(() if first is None else (first,)), rep)]
        seen: dict = {}
        for r, k in enumerate(keys):
            if k in seen:
                raise ValueError(f"rows {seen[k]} and {r} are the same label (item {ids[r]!r}, models {lo[r]!r} / "
                                 f"{hi[r]!r}, {repeat} {rep[r]!r}): repeats must be numbered uniquely per item")
            seen[k] = r
    keep = out != -2
    if not keep.any():
        raise ValueError(f"no row of {winner!r} could be read")
    item_text = _texts(ids)
    dups = 0
    if repeat is None:  # exact copies of earlier rows: with a judge column, the same judge's verdict twice; without
        # one, copies are anonymous labels unless every distinct row comes a multiple of k >= 2 times over several
        # items (the table written k times)
        import pandas as pd

        key = {"item": item_text, "a": ma, "b": mb, "o": out}
        if jd is not None:
            key["j"] = jd
        if a_first is not None:
            key["f"] = a_first
        frame = pd.DataFrame(key)[keep]
        dups = int(frame.duplicated(keep="first").sum())
        if jd is None and (np.gcd.reduce(frame.value_counts().to_numpy()) < 2 or frame["item"].nunique() < 2):
            dups = 0
        if dups:
            import warnings

            warnings.warn(duplicate_note(dups, jd is not None), UserWarning, stacklevel=2)
        if jd is not None:  # one judge, one item, the same two answers in the same order: two verdicts
            same = frame.drop_duplicates()  # one row per verdict given; a key with two of them disagrees
            split = same.drop(columns="o").duplicated(keep="first")
            if split.any():
                import warnings

                first = same[split.to_numpy()].iloc[0]
                warnings.warn(f"{int(split.sum())} time(s) a judge gave two different verdicts on the same item, "
                              f"models and order (first: item {first['item']!r}, {first['a']!r} vs {first['b']!r}, judge "
                              f"{first['j']!r}); both are counted as labels: if one is a correction, keep only it, or "
                              "number the repeats (repeat=) if the judge was asked twice", UserWarning, stacklevel=2)
    models = tuple(sorted(set(ma[keep]) | set(mb[keep])))
    code = {m: i for i, m in enumerate(models)}
    item_ids, item_idx = np.unique(item_text[keep], return_inverse=True)
    judges = None
    jcode = None
    if jd is not None:
        judges, jcode = np.unique(jd[keep], return_inverse=True)
        judges, jcode = tuple(judges), jcode.ravel()
    return Preferences(models, tuple(item_ids), item_idx.ravel(), np.array([code[m] for m in ma[keep]]),
                       np.array([code[m] for m in mb[keep]]), out[keep], None if a_first is None else a_first[keep],
                       jcode, judges, dropped=int((~keep).sum()), duplicates=dups)


def from_wide(data: Any, judges: list[str], *, item: str = "item", model_a: str = "model_a",
              model_b: str = "model_b", invalid: str = "raise") -> Preferences:
    """Preferences from one row per item with one verdict column per judge (``judges``); the judge of a
    label is its column name.  Verdicts are codes only (PandaLM: 1, 2, 0; or model_a / model_b / tie), never
    model names.

    >>> p = from_wide({"idx": [0, 1], "m1": ["x", "x"], "m2": ["y", "y"], "h1": [1, 0], "h2": [1, 2]},
    ...               ["h1", "h2"], item="idx", model_a="m1", model_b="m2")
    >>> p.judges, p.pair_counts("x", "y")[0].tolist()
    (('h1', 'h2'), [[2, 0, 0], [0, 1, 1]])
    """
    if not judges:
        raise ValueError("judges must name at least one verdict column")
    if isinstance(judges, str) or len(set(judges)) != len(list(judges)):
        raise ValueError(f"judges must name each verdict column once (a list of column names), got {judges!r}")
    ids = _column(data, item, "item")
    ma, mb = _column(data, model_a, "model_a"), _column(data, model_b, "model_b")
    long = {"item": np.concatenate([ids] * len(judges)), "model_a": np.concatenate([ma] * len(judges)),
            "model_b": np.concatenate([mb] * len(judges)),
            "winner": np.concatenate([_column(data, j, "judge verdict", allow_missing=invalid == "drop") for j in judges]),
            "judge": np.repeat(np.array(judges, dtype=object), ids.size)}
    return from_long(long, judge="judge", invalid=invalid, codes_only=True)


def item_column(columns: Any, where: str) -> str:
    """The first of ``item``, ``question_id``, ``idx``, ``id`` among ``columns``, else a ValueError naming them."""
    found = next((c for c in ("item", "question_id", "idx", "id") if c in columns), None)
    if found is None:
        raise ValueError(f"{where}: no item column (item, question_id, idx or id); columns: "
                         f"{', '.join(map(str, columns))}; name one with item= (CLI: --item)")
    return found


def _unique_header(path: str) -> None:
    """:func:`~bayeseval._text.unique_header` of a CSV's first row, read through pandas (a URL is read as the
    table is)."""
    import pandas as pd

    first = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    unique_header([str(h).strip() for h in first.iloc[0].tolist()], path)


def read_records(path: Any, what: str = "table"):
    """A table of records from CSV (every cell as text; an empty cell is missing), JSON (a list of records) or
    JSONL, as a DataFrame; a ValueError naming the file otherwise."""
    import pandas as pd

    p = str(path)
    if not p.endswith((".csv", ".json", ".jsonl")):
        raise ValueError(f"{p}: a {what} must be .csv, .json or .jsonl")
    try:
        if p.endswith(".csv"):
            df = pd.read_csv(p, dtype=str, keep_default_na=False, na_values=[""])
        else:
            df = pd.read_json(p, lines=p.endswith(".jsonl"), dtype=False)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{p}: cannot read a {what} ({exc})") from None
    if p.endswith(".csv"):
        _unique_header(p)
    if not all(isinstance(c, str) for c in df.columns):
        raise ValueError(f"{p}: expected one record (an object with named fields) per row, got columns "
                         f"{', '.join(map(str, df.columns[:5]))}")
    for c in df.columns[(df.dtypes == object).to_numpy()]:  # JSON: a list or object in a field is no label
        nested = np.flatnonzero(df[c].map(lambda v: isinstance(v, (list, dict))).to_numpy(dtype=bool))
        if nested.size:
            v = df[c].iloc[nested[0]]
            raise ValueError(f"{p}: record {nested[0]} (from 0): field {c!r} is a {type(v).__name__} ({v!r:.60}); "
                             "a name, label or rating is one value")
    return df


def read_battles(path: str, **columns: Any) -> Preferences:
    """A battle log from CSV, JSON (a list of records) or JSONL, then :func:`from_long` with ``columns``.
    Without ``item=``, the first of ``item``, ``question_id``, ``idx``, ``id`` present names the item."""
    p = str(path)
    df = read_records(p, "battle log")
    if "item" not in columns:
        columns["item"] = item_column(df.columns, p)
    try:
        return from_long(df, **columns)
    except ValueError as exc:
        raise ValueError(f"{p}: {exc}") from None
