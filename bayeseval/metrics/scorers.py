r"""Answer scorers for question answering: exact match and token F1 (SQuAD), and the final number (GSM8K).

Normalisation (SQuAD v1.1's evaluation script, Rajpurkar et al. 2016): lower-case, drop every ASCII
punctuation character, drop the articles ``a``, ``an``, ``the`` as whole words, collapse whitespace.

* :func:`exact_match`: 1 when the normalised prediction equals a normalised reference, else 0; the
  maximum over the references.
* :func:`token_f1`: on normalised whitespace tokens, with multiset overlap ``c``,
  :math:`F_1 = 2c / (|p| + |r|)` (0 when ``c = 0``); when either side has no tokens it is 1 if both are
  empty, else 0 (SQuAD v2's convention); the maximum over the references.
* :func:`numeric_match`: the prediction's answer is the number after the last ``####`` if there is one
  (GSM8K's answer marker), else the last number in the text; thousands separators, a leading ``$`` and a
  trailing ``%`` or ``.`` are ignored; it matches a reference number when they are equal within
  ``rel_tol`` (default 1e-9) -- ``"1,000"``, ``"$1000.00"`` and ``"#### 1000"`` all match ``1000``.

:func:`score_answers` applies one of them to lists of predictions (one per trial, or a list of trials
per question) and references (a string, or a list of acceptable strings, per question), returning a
float array shaped like the predictions: 0/1 for ``"em"`` and ``"numeric"`` (a 0/1 outcome matrix that
every metric of :func:`bayeseval.estimate` takes), scores in [0, 1] for ``"f1"``.

>>> normalize_answer("The  Washington Redskins!")
'washington redskins'
>>> exact_match("the Eiffel Tower.", ["Eiffel tower", "La tour Eiffel"]), round(token_f1("Eiffel tower in Paris", "the Eiffel Tower"), 4)
(1.0, 0.6667)
>>> numeric_match("so the total is $1,000.", "1000"), numeric_match("#### 42\\nthen 7", "42")
(1.0, 1.0)
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from typing import Any

import numpy as np

__all__ = ["normalize_answer", "exact_match", "token_f1", "numeric_match", "extract_number", "score_answers"]

_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NUMBER = re.compile(r"-?\$?\s*\d[\d,]*(?:\.\d+)?|-?\$?\s*\.\d+")


def normalize_answer(text: Any) -> str:
    """SQuAD's answer normalisation (see the module docstring)."""
    if not isinstance(text, str):
        raise TypeError(f"an answer must be text, got {type(text).__name__}: {text!r}")
    s = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


def _refs(references: Any) -> list[str]:
    refs = [references] if isinstance(references, str) else list(references)
    if not refs:
        raise ValueError("references must hold at least one acceptable answer")
    for r in refs:
        if not isinstance(r, str):
            raise TypeError(f"a reference answer must be text, got {type(r).__name__}: {r!r}")
    return refs


def exact_match(prediction: str, references: Any) -> float:
    """1.0 when the normalised prediction equals a normalised reference, else 0.0."""
    p = normalize_answer(prediction)
    return float(any(p == normalize_answer(r) for r in _refs(references)))


def _f1(p_tokens: list[str], r_tokens: list[str]) -> float:
    if not p_tokens or not r_tokens:
        return float(p_tokens == r_tokens)
    common = sum((Counter(p_tokens) & Counter(r_tokens)).values())
    return 0.0 if common == 0 else 2.0 * common / (len(p_tokens) + len(r_tokens))


def token_f1(prediction: str, references: Any) -> float:
    """SQuAD token F1, the maximum over the references."""
    p = normalize_answer(prediction).split()
    return max(_f1(p, normalize_answer(r).split()) for r in _refs(references))


def extract_number(text: Any) -> float | None:
    """The answer number of ``text`` (after the last ``####``, else the last number), or None; None too for a number
    beyond a float's range (as infinities, 10**400 and 9 * 10**400 compared equal).

    >>> extract_number("so 1,024"), extract_number("9" * 400), extract_number(10**400)
    (1024.0, None, None)
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        try:
            value = float(text)
        except OverflowError:  # an int beyond a float's range
            return None
        return value if math.isfinite(value) else None
    if not isinstance(text, str):
        raise TypeError(f"an answer must be text or a number, got {type(text).__name__}: {text!r}")
    tail = text.rsplit("####", 1)[1] if "####" in text else text
    found = _NUMBER.findall(tail)
    if not found:
        return None
    raw = (found[0] if "####" in text else found[-1]).replace("$", "").replace(",", "").replace(" ", "")
    try:
        value = float(raw)
    except ValueError:  # pragma: no cover - the pattern only matches numbers
        return None
    return value if math.isfinite(value) else None


def numeric_match(prediction: Any, reference: Any, rel_tol: float = 1e-9) -> float:
    """1.0 when the prediction's answer number equals the reference's (within ``rel_tol``), else 0.0."""
    refs = [reference] if isinstance(reference, (str, int, float)) else list(reference)
    want = [extract_number(r) for r in refs]
    if any(w is None for w in want):
        raise ValueError(f"reference {refs[want.index(None)]!r} holds no number")
    got = extract_number(prediction)
    if got is None:
        return 0.0
    return float(any(math.isclose(got, w, rel_tol=rel_tol, abs_tol=0.0 if w else 1e-12) for w in want))


_SCORERS = {"em": exact_match, "exact_match": exact_match, "f1": token_f1, "token_f1": token_f1,
            "numeric": numeric_match}


def score_answers(predictions: Any, references: Any, metric: str = "em") -> np.ndarray:
    """Scores of ``predictions`` against ``references`` with ``metric`` (``"em"``, ``"f1"`` or ``"numeric"``).

    ``predictions``: one answer per question, or one list of trials per question (ragged lists give
    NaN for the missing trials, which :func:`bayeseval.to_counts` reads as missing with ``missing=np.nan``);
    ``references``: per question, an answer or a list of acceptable answers.  Returns an array of shape
    (questions,) for one answer per question (``.reshape(-1, 1)`` makes it the one-trial matrix
    :func:`bayeseval.estimate` takes) or (questions, trials).

    >>> score_answers([["Paris", "paris!", "Lyon"], ["4", "four"]], ["Paris", ["4", "four"]])
    array([[ 1.,  1.,  0.],
           [ 1.,  1., nan]])
    """
    if metric not in _SCORERS:
        raise ValueError(f"metric must be one of 'em', 'f1', 'numeric', got {metric!r}")
    fn = _SCORERS[metric]
    preds = list(predictions)
    refs = list(references) if not isinstance(references, str) else [references]
    if len(preds) != len(refs):
        raise ValueError(f"predictions and references must cover the same questions: {len(preds)} and {len(refs)}")
    nested = any(isinstance(p, (list, tuple)) for p in preds)
    if not nested:
        return np.array([fn(p, r) for p, r in zip(preds, refs)], dtype=np.float64)
    width = max(len(p) if isinstance(p, (list, tuple)) else 1 for p in preds)
    out = np.full((len(preds), width), np.nan)
    for i, (p, r) in enumerate(zip(preds, refs)):  # one call per answer: scoring text is the work
        trials = p if isinstance(p, (list, tuple)) else [p]
        out[i, : len(trials)] = [fn(t, r) for t in trials]
    return out
