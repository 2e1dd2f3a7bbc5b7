"""argparse ``type=`` converters shared by the command line (``bayeseval.cli``) and ``bayeseval run``.

Each turns the text into a number or raises :class:`argparse.ArgumentTypeError` naming what was expected,
which argparse prints as one line with exit code 2.

>>> level("0.9"), positive_int("3"), nonneg_int("0"), positive("2.5")
(0.9, 3, 0, 2.5)
"""

from __future__ import annotations

import argparse

__all__ = ["level", "positive_int", "nonneg_int", "positive"]


def _parse(text: str, cast, ok, expected: str):
    try:
        value = cast(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def level(text: str) -> float:
    """A probability strictly between 0 and 1 (a credibility or error level)."""
    return _parse(text, float, lambda v: 0 < v < 1, "a number in (0, 1)")


def positive_int(text: str) -> int:
    return _parse(text, int, lambda v: v >= 1, "an integer >= 1")


def nonneg_int(text: str) -> int:
    return _parse(text, int, lambda v: v >= 0, "an integer >= 0")


def positive(text: str) -> float:
    return _parse(text, float, lambda v: v > 0, "a number > 0")
