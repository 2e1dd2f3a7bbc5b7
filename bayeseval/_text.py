"""Plain-text and HTML tables shared by every printed result."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["text_table", "html_table", "near_bound", "fmt_prob", "pct", "label_order", "label_text", "label_texts"]


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    """Columns padded to their widest cell, a rule under the header; ``right`` lists right-aligned columns.

    >>> print(text_table(["a", "b"], [["x", "1.0"], ["yy", "10.0"]], right=[1]))
    a      b
    --  ----
    x    1.0
    yy  10.0
    """
    table = [tuple(header)] + [tuple(r) for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """The same table as HTML (cells escaped)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def near_bound(v: float, digits: int, lo: float | None, hi: float | None, text: str | None = None) -> str:
    """The one rule for a number ``v`` (display units) in ``[lo, hi]`` shown with ``digits`` decimals: if it
    rounds to ``lo`` or ``hi`` without being on it, it keeps two significant digits of its distance from that
    end (up to ``digits + 4`` decimals; past that ``<lo + 1e-(digits+4)`` / ``>hi - 1e-(digits+4)``); otherwise
    ``text`` (default ``f"{v:.{digits}f}"``).  Used by the tables and the HTML report alike.

    >>> near_bound(1.0004, 2, 1.0, 10.0), near_bound(6.19, 2, 1.0, 10.0), near_bound(99.996, 1, 0.0, 100.0)
    ('1.00040', '6.19', '99.9960')
    """
    s = f"{v:.{digits}f}" if text is None else text
    half = 0.5 * 10.0 ** -digits
    for end, side in ((lo, 1.0), (hi, -1.0)):
        if end is None or not math.isfinite(end):
            continue
        gap = side * (v - end)
        if not 0 < gap < half:
            continue
        most = digits + 4
        if gap < 0.5 * 10.0 ** -most:
            return f"<{end + 10.0 ** -most:.{most}f}" if side > 0 else f">{end - 10.0 ** -most:.{most}f}"
        d = min(most, max(digits, 1 - math.floor(math.log10(gap))))
        return f"{v:.{d}f}"
    return s


def fmt_prob(p: float | None, digits: int = 3, *, drawn: bool = False) -> str:
    """A probability with ``digits`` decimals; ``<0.001`` / ``>0.999`` (for 3 digits) where it rounds to 0 or 1
    without being there.  ``drawn=True``: a share of posterior draws, where 0 or 1 only says "in none / every
    draw" and is written ``<0.001`` / ``>0.999`` too.  The one rule of the terminal, the HTML page and the plots.

    >>> fmt_prob(0.9875), fmt_prob(0.99999), fmt_prob(0.0), fmt_prob(0.0, drawn=True), fmt_prob(None)
    ('0.988', '>0.999', '0.000', '<0.001', '-')
    """
    if p is None or not math.isfinite(p):
        return "-"
    step = 10.0 ** -digits
    if (drawn and p == 0.0) or 0.0 < p < step / 2:
        return f"<{step:.{digits}f}"
    if (drawn and p == 1.0) or 1.0 - step / 2 < p < 1.0:
        return f">{1 - step:.{digits}f}"
    return f"{p:.{digits}f}"


def pct(level: float, complement: bool = False) -> str:
    """A level (``complement``: its error rate ``1 - level``) as a percentage with the digits it has, no more: a
    level of 0.999999 is "99.9999%", not "100%" (which would claim an interval that cannot miss).  Computed in
    decimal from the level's shortest form, so the complement of 0.95 is "5%" and not "5.000000000000004%".

    >>> pct(0.95), pct(0.999999), pct(0.95, complement=True), pct(0.975), pct(0.99999999999)
    ('95%', '99.9999%', '5%', '97.5%', '99.999999999%')
    >>> pct(0.999999999, complement=True), pct(1.0), pct(0.5), pct(1e-300)
    ('0.0000001%', '100%', '50%', '1E-298%')
    """
    from decimal import Decimal

    x = Decimal(repr(float(level)))
    x = (1 - x if complement else x) * 100
    text = format(x.normalize(), "f")
    if len(text) > 24:  # a level of 1e-300 printed 300 zeros: its digits, with an exponent
        text = format(x.normalize(), "E")
    return f"{text}%"


def label_order(label: str) -> tuple:
    """Sort key of a label written as text: numbers by value first, then other text.

    >>> sorted(["10", "b", "2", "a", "1.5"], key=label_order)
    ['1.5', '2', '10', 'a', 'b']
    """
    try:
        x = float(label)
    except ValueError:
        return (1, 0.0, label)
    return (0, x, label) if math.isfinite(x) else (1, 0.0, label)


def label_text(v: Any) -> str:
    """A label as text, as classification, judge agreement and pairwise verdicts compare labels: a whole float as
    its integer (``1.0`` -> ``"1"``), a boolean as ``"True"`` / ``"False"``, other values as ``str``, stripped.

    >>> [label_text(v) for v in (1, 1.0, "1", True, " yes ", 2.5)]
    ['1', '1', '1', 'True', 'yes', '2.5']
    """
    if isinstance(v, (bool, np.bool_)):
        return str(v)
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def unique_header(header: Sequence[str], where: str, among: Sequence[str] | None = None) -> None:
    """A table header that names a column twice is an error naming it and the count (pandas would rename the second
    ``name.1`` and a reader would take the first, dropping the other without a word).  Empty cells (a spreadsheet's
    trailing columns) are not names; ``among`` limits the check to the columns a reader uses.

    >>> unique_header(["model", "score", "", ""], "t.csv")
    >>> unique_header(["model", "score", "score"], "t.csv")
    Traceback (most recent call last):
    ...
    ValueError: t.csv: line 1: the header names column 'score' 2 times; name each column once
    """
    named = [h for h in header if h]
    for i, h in enumerate(named):
        if h in named[:i] and (among is None or h in among):
            raise ValueError(f"{where}: line 1: the header names column {h!r} {named.count(h)} times; "
                             "name each column once")


#: kinds of object arrays (pandas' infer_dtype) in which values that compare equal are one label
ONE_KIND = frozenset({"integer", "floating", "mixed-integer-float", "string", "boolean", "bytes", "decimal"})


def label_texts(values: Any) -> np.ndarray:
    """:func:`label_text` of every element of a one-dimensional sequence, as an object array; each distinct label is
    converted once (values that compare equal and print alike share one conversion; ``True`` and ``1`` compare equal
    but print apart, so they stay apart), not once per element.

    >>> label_texts([1, 1.0, "1", True, " yes ", 2.5, 1]).tolist()
    ['1', '1', '1', 'True', 'yes', '2.5', '1']
    """
    import pandas as pd

    typed = np.asarray(values) if isinstance(values, (np.ndarray, pd.Series, pd.Index)) else None
    if typed is not None and typed.dtype.kind in "biufUS":  # one type throughout: one key per distinct value
        codes, uniq = pd.factorize(typed.ravel(), use_na_sentinel=False)
        # each value as its own type prints it (a float32 0.1 is "0.1", as the object path gives; tolist() would
        # widen it to 0.10000000149011612)
        return np.array([label_text(v) for v in np.asarray(uniq)], dtype=object)[codes]
    arr = np.asarray(values, dtype=object).ravel()
    if arr.size == 0:
        return arr.copy()
    if pd.api.types.infer_dtype(arr, skipna=False) in ONE_KIND:  # no True beside a 1: equal values, one label
        codes, uniq = pd.factorize(arr, use_na_sentinel=False)
        return np.array([label_text(v) for v in uniq.tolist()], dtype=object)[codes]
    try:
        by_value, _ = pd.factorize(arr, use_na_sentinel=False)  # 1, 1.0 and True: one key (they compare equal)
    except TypeError:  # unhashable elements (lists): each converted on its own
        return np.array([label_text(v) for v in arr], dtype=object)
    by_text, _ = pd.factorize(arr.astype(str), use_na_sentinel=False)  # True and 1 apart; 1 and "1" one key
    key = by_value.astype(np.int64) * (int(by_text.max()) + 1) + by_text
    codes, uniq = pd.factorize(key)
    first = np.empty(uniq.size, dtype=np.int64)
    first[codes[::-1]] = np.arange(arr.size - 1, -1, -1)  # each key's first element
    return np.array([label_text(v) for v in arr[first]], dtype=object)[codes]
