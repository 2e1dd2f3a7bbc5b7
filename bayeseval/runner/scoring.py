r"""Scorers for ``bayeseval run``: a completion and a gold answer -> a score in [0, 1].

A scorer is named by a spec string (``--scorer``):

* ``exact`` -- SQuAD normalisation (:func:`bayeseval.metrics.scorers.normalize_answer`: lower-case,
  no punctuation, no articles, collapsed spaces) of the whole completion equals that of the gold
  answer (or of one of a list of acceptable answers): 1, else 0.
* ``numeric`` -- the final number (GSM8K / AIME / MATH style): the content of the last
  ``\boxed{...}`` when the completion has one, else the number after the last ``####``, else the
  last number in the text; thousands separators, ``$`` and a trailing ``.`` or ``%`` are ignored
  (:func:`bayeseval.metrics.scorers.extract_number`); correct when it equals the gold number
  (relative tolerance 1e-9).  ``"\boxed{042}"`` matches a gold ``42`` or ``"042"``; ``"#### 1,234"``
  matches ``1234``.  The gold answer is read the same way (a GSM8K solution ending ``#### 72`` is a
  valid gold answer); a gold answer without a number is an error before any request is sent.
* ``regex:PATTERN`` -- the *last* match of ``PATTERN`` (Python :mod:`re` syntax, searched with
  ``re.search`` semantics over the whole completion; use inline flags such as ``(?i)`` for
  options) is the answer: its first capturing group when the pattern has one, else the whole match.
  Correct when the answer equals the gold answer after SQuAD normalisation, or when both are plain
  numbers (``"042"`` = ``"42"``, ``"1,000"`` = ``"1000"``) that are equal.  No match scores 0.
  The last match is used because a model's final answer usually comes last.
* ``path/to/file.py:function`` or ``package.module:function`` -- a Python function called as
  ``function(completion_text, gold_answer)``; it returns a bool or a number in [0, 1] (``True`` =
  1).  Anything else is an error naming the question and sample.

Every scorer returns a float in [0, 1]: binary scorers 0.0 / 1.0, a user function may return
partial credit.

>>> s = make_scorer("numeric")
>>> s("so 1,000 + 234 = 1,234\n#### 1,234", "1234"), s(r"The answer is \boxed{042}.", 42)
(1.0, 1.0)
>>> make_scorer(r"regex:answer is (\w+)")("I think the answer is B. Final: the answer is C", "c")
1.0
>>> make_scorer("exact")("The Eiffel Tower!", ["eiffel tower", "la tour eiffel"])
1.0
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..metrics.scorers import exact_match, extract_number, normalize_answer

__all__ = ["Scorer", "make_scorer", "final_number", "boxed", "ScorerError"]

BUILTIN = ("exact", "numeric")
_PLAIN_NUMBER = re.compile(r"^\s*[-+]?\$?\s*(\d[\d,]*(\.\d+)?|\.\d+)\s*%?\s*$")


class ScorerError(ValueError):
    """A scorer raised, or returned something that is not a score; names the question and sample."""


def boxed(text: str) -> str | None:
    r"""The content of the last ``\boxed{...}`` (braces balanced), or None.

    >>> boxed(r"so \boxed{\frac{1}{2}} and finally \boxed{042}")
    '042'
    """
    start = text.rfind("\\boxed")
    while start != -1:
        i = text.find("{", start)
        if i != -1 and text[start + len("\\boxed"):i].strip() == "":
            depth = 0
            for j in range(i, len(text)):
                if text[j] == "{":
                    depth += 1
                elif text[j] == "}":
                    depth -= 1
                    if depth == 0:
                        return text[i + 1:j]
        start = text.rfind("\\boxed", 0, start)
    return None


def final_number(text: Any) -> float | None:
    r"""The final-answer number: last ``\boxed{}``, else after the last ``####``, else the last number.

    >>> final_number("We get 12 apples.\n#### 1,234"), final_number(r"\boxed{042}"), final_number("no idea")
    (1234.0, 42.0, None)
    """
    if isinstance(text, str):
        inner = boxed(text)
        if inner is not None:
            got = extract_number(inner)
            if got is not None:
                return got
    return extract_number(text)


def _gold_list(gold: Any) -> list:
    return list(gold) if isinstance(gold, (list, tuple)) else [gold]


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _plain_number(text: str) -> float | None:
    if not _PLAIN_NUMBER.match(text):
        return None
    try:
        value = float(text.strip().rstrip("%").replace("$", "").replace(",", "").replace(" ", ""))
    except ValueError:  # pragma: no cover - the pattern only matches numbers
        return None
    return value if math.isfinite(value) else None  # beyond a float's range: compared as text only


def _numeric(completion: str, gold: Any) -> float:
    got = final_number(completion)
    if got is None:
        return 0.0
    for g in _gold_list(gold):
        want = final_number(g if isinstance(g, str) else g)
        if want is not None and math.isclose(got, want, rel_tol=1e-9, abs_tol=0.0 if want else 1e-12):
            return 1.0
    return 0.0


def _exact(completion: str, gold: Any) -> float:
    return exact_match(completion, [_as_text(g) for g in _gold_list(gold)])


def _regex_answer(pattern: re.Pattern, completion: str) -> str | None:
    m = None
    for m in pattern.finditer(completion):
        pass
    if m is None:
        return None
    return m.group(1) if pattern.groups else m.group(0)


def _regex(pattern: re.Pattern) -> Callable[[str, Any], float]:
    def score(completion: str, gold: Any) -> float:
        answer = _regex_answer(pattern, completion)
        if answer is None:
            return 0.0
        norm = normalize_answer(answer)
        num = _plain_number(answer)
        for g in _gold_list(gold):
            g = _as_text(g)
            if norm == normalize_answer(g):
                return 1.0
            want = _plain_number(g)
            if num is not None and want is not None and math.isclose(num, want, rel_tol=1e-9, abs_tol=1e-12):
                return 1.0
        return 0.0

    return score


def _load_function(spec: str) -> Callable:
    target, _, name = spec.rpartition(":")
    if not target or not name.isidentifier():
        raise ValueError(f"--scorer {spec!r}: expected exact, numeric, regex:PATTERN, path/to/file.py:function "
                         "or module:function")
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target)
        if not path.is_file():
            raise ValueError(f"--scorer {spec!r}: no such file {target}")
        mod_name = f"_bayeseval_scorer_{abs(hash(str(path.resolve())))}"
        loader = importlib.util.spec_from_file_location(mod_name, path)
        if loader is None or loader.loader is None:  # pragma: no cover - a .py file always has a loader
            raise ValueError(f"--scorer {spec!r}: cannot load {target} as Python")
        module = importlib.util.module_from_spec(loader)
        sys.modules[mod_name] = module
        try:
            loader.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - the user's file: one line naming it
            del sys.modules[mod_name]
            raise ValueError(f"--scorer {spec!r}: importing {target} failed: {type(exc).__name__}: {exc}") from exc
    else:
        try:
            module = importlib.import_module(target)
        except Exception as exc:  # noqa: BLE001
            raise ValueError(f"--scorer {spec!r}: cannot import module {target} ({type(exc).__name__}: {exc})") from exc
    fn = getattr(module, name, None)
    if not callable(fn):
        raise ValueError(f"--scorer {spec!r}: {target} has no function {name!r}")
    return fn


@dataclass(frozen=True)
class Scorer:
    """A named scoring function ``(completion, gold) -> float in [0, 1]``; ``spec`` is its ``--scorer`` text."""

    spec: str
    fn: Callable[[str, Any], Any]
    user: bool = False
    pattern: re.Pattern | None = None

    def extract(self, completion: str) -> Any:
        """The answer the scorer reads from a completion (AISBench's ``pred``): the final number for
        ``numeric`` (None without one), the match for ``regex:`` (None without one), else the text."""
        if self.spec == "numeric":
            got = final_number(completion)
            return None if got is None else (int(got) if got.is_integer() else got)
        if self.pattern is not None:
            return _regex_answer(self.pattern, completion)
        return completion

    def __call__(self, completion: str, gold: Any) -> float:
        value = self.fn(completion, gold)
        if isinstance(value, bool):
            return float(value)
        if hasattr(value, "item") and callable(value.item):  # numpy scalars
            value = value.item()
        if isinstance(value, bool):
            return float(value)
        if not isinstance(value, (int, float)) or not math.isfinite(value) or not 0.0 <= value <= 1.0:
            raise TypeError(f"returned {value!r}; a scorer returns a bool or a number in [0, 1]")
        return float(value)

    def check_gold(self, gold: Any, where: str) -> None:
        """Refuse a gold answer this scorer cannot use (``where`` names the dataset line)."""
        if self.spec == "numeric" and all(final_number(g) is None for g in _gold_list(gold)
                                          if isinstance(g, (str, int, float)) and not isinstance(g, bool)):
            raise ValueError(f"{where}: answer {gold!r:.80} holds no number (--scorer numeric needs one, within a "
                             "float's range, about 1.8e308; compare longer numbers as text: --scorer exact)")


def make_scorer(spec: str) -> Scorer:
    """The scorer for a ``--scorer`` spec (see the module docstring); a bad spec is a ValueError."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("--scorer: give exact, numeric, regex:PATTERN, path/to/file.py:function or module:function")
    spec = spec.strip()
    if spec in ("exact", "em", "exact_match"):
        return Scorer("exact", _exact)
    if spec in ("numeric", "number", "math"):
        return Scorer("numeric", _numeric)
    if spec.startswith("regex:"):
        text = spec[len("regex:"):]
        if not text:
            raise ValueError("--scorer regex:PATTERN: the pattern is empty")
        try:
            pattern = re.compile(text)
        except re.error as exc:
            raise ValueError(f"--scorer {spec!r}: not a valid regular expression ({exc})") from None
        return Scorer(spec, _regex(pattern), pattern=pattern)
    return Scorer(spec, _load_function(spec), user=True)
