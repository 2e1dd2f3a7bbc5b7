"""Plain-text and HTML tables shared by every printed result."""

from __future__ import annotations

import html
from collections.abc import Sequence

__all__ = ["text_table", "html_table"]


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
