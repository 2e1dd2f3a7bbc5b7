"""argparse ``type=`` converters and the one-line error, shared by the command line (``bayeseval.cli``) and
``bayeseval run``.

Each converter turns the text into a number or raises :class:`argparse.ArgumentTypeError` naming what was
expected, which argparse prints as one line with exit code 2.  :func:`error_line` is the one line an error
becomes, with the library's argument names spelled as the options that set them.

>>> level("0.9"), positive_int("3"), nonneg_int("0"), positive("2.5")
(0.9, 3, 0, 2.5)
"""

from __future__ import annotations

import argparse
import re

from .validate import ArgumentError, confidence

__all__ = ["level", "positive_int", "nonneg_int", "positive", "resamples", "option", "error_line"]


def _parse(text: str, cast, ok, expected: str):
    try:
        value = cast(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def level(text: str) -> float:
    """A credibility level strictly between 0 and 1, far enough below 1 that ``0.5 + v / 2`` does not round to 1 (an
    infinite interval)."""
    def ok(v: float) -> bool:  # the library's rule (validate.confidence), as a test
        try:
            confidence(v, "level")
        except ValueError:
            return False
        return True

    return _parse(text, float, ok, "a number in (0, 1), at most 0.9999999999999998")


def probability(text: str) -> float:
    """A probability strictly between 0 and 1 (an error level or a power)."""
    return _parse(text, float, lambda v: 0 < v < 1, "a number in (0, 1)")


def positive_int(text: str) -> int:
    return _parse(text, int, lambda v: v >= 1, "an integer >= 1")


def nonneg_int(text: str) -> int:
    return _parse(text, int, lambda v: v >= 0, "an integer >= 0")


def positive(text: str) -> float:
    return _parse(text, float, lambda v: v > 0, "a number > 0")


def resamples(text: str) -> int:
    """Bootstrap / permutation resamples: at least 100, as the library asks (its cap is checked there)."""
    return _parse(text, int, lambda v: v >= 100, "an integer >= 100")


#: library arguments whose option has another name (the rest are spelled by ``option``'s rule)
OPTIONS = {"constraints": "--require", "score_range": "--scores"}


def option(name: str) -> str:
    """The command-line option that sets the library argument ``name`` (``rope`` -> ``--rope``, ``question_cost``
    -> ``--question-cost``, ``constraints`` -> ``--require``): the commands name their options after the arguments
    they pass on, except those in ``OPTIONS``."""
    return OPTIONS.get(name, "--" + name.replace("_", "-"))


#: ``prior='uniform'`` in a library message, for the arguments that are options of the same name (a value in quotes);
#: ``metric='avg'`` reads ``metric avg`` (``report`` takes --metrics, the other commands --metric)
_KEYWORD = re.compile(r"\b(metric|prior|interval|scope|engine)='([^'\s]*)'")


def _keyword(m: re.Match) -> str:
    return f"metric {m[2]}" if m[1] == "metric" else f"{option(m[1])} {m[2]}"


def error_line(exc: BaseException) -> str:
    """The one line ``bayeseval: error: ...`` shows for ``exc``: its first line, the library's argument names
    spelled as options (:class:`bayeseval.validate.ArgumentError`), and the type of an error that is not about
    the input (not a ValueError, TypeError, LookupError, OSError or ImportError) with a pointer to ``--debug``.

    >>> error_line(ArgumentError("{until} 'decided' for one model needs {null}", "until", "null"))
    "--until 'decided' for one model needs --null"
    >>> error_line(KeyError("no model 'x'")), error_line(RuntimeError("lost"))
    ("no model 'x'", 'RuntimeError: lost (run with --debug for the traceback)')
    >>> error_line(ValueError("Bayes@N is defined by its Dirichlet prior; use metric='avg' for other priors"))
    'Bayes@N is defined by its Dirichlet prior; use metric avg for other priors'
    >>> error_line(ValueError("a Beta prior is for 0/1 outcomes: use prior='dirichlet', or drop w"))
    'a Beta prior is for 0/1 outcomes: use --prior dirichlet, or drop w'
    """
    if isinstance(exc, ArgumentError):
        message = exc.spelled(option)
    else:
        message = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc)
    message = _KEYWORD.sub(_keyword, message)  # the library's keyword, as the command line spells it
    first = message.strip().splitlines()[0] if message.strip() else type(exc).__name__
    if not isinstance(exc, (ValueError, TypeError, LookupError, OSError, ImportError)):
        first = f"{type(exc).__name__}: {first} (run with --debug for the traceback)"
    return first
