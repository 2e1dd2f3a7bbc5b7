"""The one result protocol every result object follows.

``summary()`` (a text table, statsmodels style), ``to_dict()`` (JSON-safe), ``to_json()``, a numeric
``to_frame()`` (formatting only in ``summary()`` and :mod:`bayeseval.report`),
``confidence_interval(level=None, method=None) -> (lo, hi)`` where an interval exists, and an HTML
repr for notebooks.  :class:`Result` supplies the parts that follow from the others.
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["Result", "UNNAMED_DATASET", "check_choice", "user_stacklevel"]

_PACKAGE = Path(__file__).resolve().parent
UNNAMED_DATASET = "dataset"  # what the readers call a dataset the input does not name


def user_stacklevel() -> int:
    """The ``warnings.warn`` stacklevel, for a call made here, of the first frame outside the bayeseval package:
    a warning points at the caller's line (``evaluate(...)`` in a notebook), not at the library's."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _PACKAGE in Path(frame.f_code.co_filename).resolve().parents:
        frame, level = frame.f_back, level + 1
    return level


def check_choice(value: Any, name: str, options: tuple) -> str:
    """``value`` if it is one of ``options``, else a ValueError naming ``name`` and the options."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(repr(o) for o in options)}, got {value!r}")
    return value


class Result:
    """Mixin of the result protocol: subclasses define ``summary``, ``to_dict`` and ``to_frame``."""

    def summary(self) -> str:  # pragma: no cover - every result overrides it
        raise NotImplementedError

    def to_dict(self) -> dict:  # pragma: no cover - every result overrides it
        raise NotImplementedError

    def to_json(self) -> str:
        """``to_dict()`` as a JSON string."""
        return json.dumps(self.to_dict())

    def __repr__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.summary())}</pre>"
