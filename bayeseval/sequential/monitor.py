r"""Anytime-valid monitoring: look after every question, stop when the question is answered.

A running evaluation adds questions one at a time (in a random order).  :class:`Sequential` keeps a
confidence sequence (:class:`~bayeseval.sequential.confseq.BettingCS`) for the mean per-question score
of one model, or, through :class:`SequentialCompare`, for the mean paired difference A - B, and says
after every question whether a stopping rule holds.  Because the sequence covers the truth at *all*
times at once (probability ``>= 1 - alpha``), every decision taken from it -- "A is better", "A and B
are practically equivalent", "the interval is narrow enough" -- keeps its error rate however often it
is looked at and whenever the study stops.  Fixed-sample tests (the t-test, bayeseval's own
``compare``) do not: checked after every question they reject a true null far more often than their
level (``benchmarks/results_sequential.md``).

**What it rests on.** Each question's score is an unbiased estimate of its metric from trials chosen
before its outcomes were seen, and the next question is drawn at random, in one of two ways:

* *with replacement from a fixed benchmark* (a question may come back; it then gets fresh trials): the
  conditional mean of every score is exactly the benchmark's mean, whatever came before, so the
  sequence is exact for these questions (benchmark scope) -- this is how :func:`replay` draws;
* *in a random order from a large pool*, each question once: the target is the pool's mean
  (population scope); drawing without replacement from a small benchmark this way makes the
  guarantee approximate.

Nothing else is assumed: no model of the question difficulties, no normality.  Scores must lie in a
known range (0/1 outcomes and every "@k" metric lie in [0, 1]).

Stopping rules (:class:`StopRule`, or words through :func:`parse_until`):

=======================  ==============================================================================
words                    stops when
=======================  ==============================================================================
``decided``              the null value (0 for a difference) has left the sequence: "A better" / "B better"
``equivalent within r``  the sequence lies inside ``[-r, r]`` (or ``[lo, hi]``): practically equivalent
``width w``              the sequence is narrower than ``w``
``N questions``          ``N`` questions have been scored (a budget)
``N samples``            ``N`` samples (trials, both models) have been spent (a budget)
=======================  ==============================================================================

Rules are joined with "or": ``"decided or equivalent within 0.02 or 2000 questions"``.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> p = rng.beta(0.5, 0.5, size=400)                  # a U-shaped pool of question difficulties
>>> a = rng.binomial(1, np.clip(p + 0.15, 0, 1))       # model A is 15 points better
>>> b = rng.binomial(1, p)
>>> seq = SequentialCompare(until="decided or 400 questions")
>>> status = seq.update(a, b)
>>> status.decision, status.stopped_at
('A better', 205)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import validate as V
from .._protocol import Result
from .._text import near_bound, text_table
from .confseq import BettingCS

__all__ = ["StopRule", "parse_until", "Sequential", "SequentialCompare", "Status"]


@dataclass(frozen=True)
class StopRule:
    """When to stop: any one of the conditions that is set.

    decided : stop when the null value leaves the confidence sequence.
    rope : ``(lo, hi)``: stop when the sequence lies inside it (practical equivalence).
    width : stop when the sequence is narrower than this.
    max_questions, max_samples : budgets.
    """

    decided: bool = True
    rope: tuple[float, float] | None = None
    width: float | None = None
    max_questions: int | None = None
    max_samples: int | None = None

    def __post_init__(self):
        if self.width is not None:
            w = V.real(self.width, "StopRule: width")
            if not (math.isfinite(w) and w > 0):
                raise ValueError(f"StopRule: width must be a positive finite number, got {self.width!r}")
            object.__setattr__(self, "width", w)
        for name in ("max_questions", "max_samples"):
            v = getattr(self, name)
            if v is not None:
                x = V.real(v, f"StopRule: {name}")
                if not (math.isfinite(x) and x >= 1 and x == round(x)):
                    raise ValueError(f"StopRule: {name} must be a whole number >= 1, got {v!r}")
                object.__setattr__(self, name, int(x))
        if self.rope is not None:
            try:
                lo, hi = self.rope
            except (TypeError, ValueError):
                raise V.InputTypeError(f"StopRule: rope must be a pair (lo, hi), got {self.rope!r}") from None
            lo, hi = V.real(lo, "StopRule: rope's lo"), V.real(hi, "StopRule: rope's hi")
            if not lo < hi:
                raise ValueError(f"StopRule: rope must be two finite numbers lo < hi, got {self.rope!r}")
            object.__setattr__(self, "rope", (lo, hi))

    def words(self) -> str:
        parts = ["decided"] if self.decided else []
        if self.rope is not None:
            lo, hi = self.rope
            parts.append(f"equivalent within {hi:g}" if lo == -hi else f"inside [{lo:g}, {hi:g}]")
        if self.width is not None:
            parts.append(f"width {self.width:g}")
        if self.max_questions is not None:
            parts.append(f"{self.max_questions} questions")
        if self.max_samples is not None:
            parts.append(f"{self.max_samples} samples")
        return " or ".join(parts) if parts else "never (no rule)"


_TERMS = [
    (re.compile(r"^decided$"), "decided"),
    (re.compile(r"^(?:practically\s+)?equivalent\s+(?:within\s+)?(?:\+-|±)?\s*(\S+)$"), "rope"),
    (re.compile(r"^rope\s+(\S+)$"), "rope"),
    (re.compile(r"^(?:interval\s+)?(?:width|narrower\s+than)\s*(?:<=?|below)?\s*(\S+)$"), "width"),
    (re.compile(r"^(?:at\s+)?(\d[\d_,.]*)\s+questions?$"), "max_questions"),
    (re.compile(r"^(?:at\s+)?(\d[\d_,.]*)\s+(?:samples?|trials?)$"), "max_samples"),
]


def _until_error(template: str, **values: Any) -> V.ArgumentError:
    """An error in the words of ``until`` (``template`` and ``values`` as :class:`~bayeseval.validate.ArgumentError`
    takes them), naming it as the caller's front end does (``--until`` on the command line)."""
    return V.ArgumentError("{until}: " + template, "until", **values)


def _number(text: str, what: str, words: str, whole: bool = False) -> float:
    """A positive number; thousands separators (``2,000``, ``10_000``) only in whole-number budgets, so that a
    decimal comma (``width 0,05``) is an error rather than 5."""
    clean = text.replace("_", "")
    if whole and re.fullmatch(r"\d{1,3}(,\d{3})+", clean):
        clean = clean.replace(",", "")
    try:
        value = float(clean)
    except ValueError:
        hint = " (use a decimal point)" if "," in text and not whole else ""
        raise _until_error("{what} needs a number, got {text!r} in {words!r}{hint}", what=what, text=text, words=words,
                           hint=hint) from None
    if not math.isfinite(value) or value <= 0:
        raise _until_error("{what} must be a positive number, got {text!r} in {words!r}", what=what, text=text,
                           words=words)
    return value


def parse_until(words: Any) -> StopRule:
    """A stopping rule from words (see the module's table), a :class:`StopRule`, or None (``decided``).

    >>> parse_until("decided or equivalent within 0.02 or 5,000 samples")
    StopRule(decided=True, rope=(-0.02, 0.02), width=None, max_questions=None, max_samples=5000)
    >>> parse_until("width 0.05 or 800 questions").decided
    False
    """
    if words is None:
        return StopRule()
    if isinstance(words, StopRule):
        return words
    if not isinstance(words, str):
        raise V.InputTypeError(f"until must be words such as 'decided or 2000 questions' or a StopRule, "
                               f"got {type(words).__name__}")
    found: dict[str, Any] = {"decided": False}
    terms = [t.strip() for t in re.split(r"\s+or\s+|,\s+|;", words.strip().lower()) if t.strip()]
    if not terms:
        raise V.ArgumentError("{until} is empty; say e.g. 'decided', 'equivalent within 0.02', 'width 0.05', "
                              "'2000 questions' or '10000 samples', joined by 'or'", "until")
    for term in terms:
        for pattern, key in _TERMS:
            m = pattern.match(term)
            if m is None:
                continue
            if key in found and (key != "decided" or found["decided"]):
                raise _until_error("{term!r} repeats a condition already given in {words!r}; give each of "
                                   "'decided', 'equivalent within', 'width', 'questions' and 'samples' once",
                                   term=term, words=words)
            if key == "decided":
                found["decided"] = True
            elif key == "rope":
                r = _number(m.group(1), "equivalent within", words)
                found["rope"] = (-r, r)
            elif key == "width":
                found["width"] = _number(m.group(1), "width", words)
            else:
                value = _number(m.group(1), key.replace("max_", ""), words, whole=True)
                if value != int(value):
                    raise _until_error("{what} must be a whole number, got {text!r}", what=key.replace("max_", ""),
                                       text=m.group(1))
                found[key] = int(value)
            break
        else:
            raise _until_error("cannot read {term!r} in {words!r}; use 'decided', 'equivalent within R', "
                               "'width W', 'N questions' or 'N samples', joined by 'or'", term=term, words=words)
    return StopRule(**found)


@dataclass(frozen=True, repr=False)
class Status(Result):
    """Where a monitored evaluation stands (and, if a rule held, where it stopped first).

    ``lower``/``upper`` are the current confidence sequence; ``stopped_at`` is the number of questions
    at which the rule first held (None if it has not), with ``decision`` and ``reason``; ``path_lower``
    and ``path_upper`` hold the sequence after every question (read-only views of the monitor's path, which later
    updates only extend: copy one to change it).
    """

    what: str
    names: tuple
    questions: int
    samples: int
    estimate: float | None  # None before the first question
    lower: float
    upper: float
    alpha: float
    null: float | None
    log_e: float | None
    decision: str | None
    stopped_at: int | None
    samples_at_stop: int | None
    reason: str
    rule: StopRule
    assumptions: str
    path_lower: np.ndarray = field(repr=False, default=None)
    path_upper: np.ndarray = field(repr=False, default=None)
    #: every candidate value is rejected (see :attr:`~bayeseval.sequential.confseq.BettingCS.empty`): ``lower`` and
    #: ``upper`` then name the neighbours of the least-rejected value, and no width or equivalence rule holds
    empty: bool = False
    #: what the per-question scores are (``pass@4``, ``pass@2 (threshold=7)``), as given to the monitor; None if not
    metric: str | None = None

    @property
    def stop(self) -> bool:
        """True once a rule has held."""
        return self.stopped_at is not None

    @property
    def p_value(self) -> float | None:
        """Anytime-valid p-value against the null value: ``min(1, 1 / max_t K_t)``."""
        return None if self.log_e is None else float(min(1.0, math.exp(-self.log_e)))

    def confidence_interval(self, level=None, method=None) -> tuple[float, float]:
        if level is not None and not math.isclose(level, 1.0 - self.alpha):
            raise ValueError(f"this sequence was built at level {1 - self.alpha:g}; start a new one with "
                             f"alpha={1 - level:g} for another level (a sequence's level is fixed in advance)")
        return self.lower, self.upper

    def to_dict(self) -> dict:
        return {
            "what": self.what, "names": list(self.names), "questions": self.questions, "samples": self.samples,
            "estimate": self.estimate, "lower": self.lower, "upper": self.upper, "level": 1.0 - self.alpha,
            "null": self.null, "e_value": None if self.log_e is None else float(math.exp(min(self.log_e, 700.0))),
            "p_value": self.p_value, "decision": self.decision, "stop": self.stop, "stopped_at": self.stopped_at,
            "samples_at_stop": self.samples_at_stop, "reason": self.reason, "until": self.rule.words(),
            "assumptions": self.assumptions, "empty": self.empty, "metric": self.metric,
        }

    def to_frame(self):
        import pandas as pd

        lo = self.path_lower if self.path_lower is not None else np.array([])
        hi = self.path_upper if self.path_upper is not None else np.array([])
        return pd.DataFrame({"questions": np.arange(1, lo.size + 1), "lower": lo, "upper": hi})

    def summary(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        rows = [["questions", f"{self.questions}"], ["samples", f"{self.samples}"],
                ["estimate", "-" if self.estimate is None else
                 f"{self.estimate:+.4f}" if self.what == "difference" else f"{self.estimate:.4f}"],
                [f"{level} confidence sequence", f"[{self.lower:.4f}, {self.upper:.4f}]" if not self.empty else
                 f"empty (every value rejected; least rejected near [{self.lower:.4f}, {self.upper:.4f}])"]]
        if self.p_value is not None:
            rows.append([f"anytime p-value (mean = {self.null:g})", f"{self.p_value:.4g}"])
        rows.append(["until", self.rule.words()])
        head = f"Sequential {self.what}: {' - '.join(self.names) if self.what == 'difference' else self.names[0]}"
        head += f", {self.metric}" if self.metric else ""
        lines = [head, text_table(["", "value"], rows), self.reason]
        if self.empty:
            lines.append(EMPTY_NOTE.format(level=level, alpha=self.alpha))
        return "\n".join(lines + ["Assumes: " + self.assumptions])


def _per_question(scores: Any, name: str) -> np.ndarray:
    """One score per question (a 1-D sequence of numbers): a matrix of trials is not per-question scores."""
    scores = V.unmasked(scores, name)
    try:
        if np.asarray(scores).dtype.kind in "USO" and any(isinstance(v, (str, bytes)) for v in np.ravel(scores)):
            raise TypeError  # "1" is text, not a score (numpy would read it as 1.0)
        x = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise V.InputTypeError(f"{name} must be numbers, one score per question, got {V.describe(scores)}") from None
    if x.ndim == 2 and x.shape[1] == 1:  # a column of scores (one trial per question, df[["score"]].values)
        x = x[:, 0]
    if x.ndim > 1:
        raise ValueError(f"{name} must hold one score per question (1-D), got shape {x.shape}: reduce a matrix of "
                         "trials to per-question scores first (bayeseval.sequential.question_values(R, metric))")
    return np.atleast_1d(x)


EMPTY_NOTE = ("The {level} sequence is empty: every value has been rejected. Its guarantee says this happens with "
              "probability at most {alpha:g} when the assumptions below hold; otherwise they do not (the questions "
              "were not in a random order, or not scored as declared).")

_ASSUMES = ("each question drawn at random -- with replacement from a fixed benchmark (target: its mean, benchmark "
            "scope) or in a random order from a large pool (target: the pool's mean) -- and scored from trials chosen "
            "before its outcomes were seen; no model of question difficulty")


class Sequential:
    r"""Monitor the mean per-question score of one model in ``[lo, hi]``, anytime-valid.

    Parameters
    ----------
    lo, hi : range of a per-question score (0, 1 for 0/1 outcomes and every "@k" metric).
    alpha : error level (the sequence covers the mean at all times with probability ``>= 1 - alpha``).
    until : a :class:`StopRule` or words (:func:`parse_until`); ``decided`` needs ``null``.
    null : a reference value, e.g. 0.7: ``decided`` then means "above" or "below" it.
    name : label.
    metric : what the scores are (``"pass@4"``): a label the status carries and prints; None to leave it out.

    Notes
    -----
    ``update(scores, samples=1)`` adds per-question scores in the order the questions were run and
    returns the :class:`Status`.  ``samples`` is the number of trials behind each score (for a budget
    in samples).
    """

    what = "mean"

    def __init__(self, lo: float = 0.0, hi: float = 1.0, *, alpha: float = 0.05, until: Any = None,
                 null: float | None = None, name: str = "model", grid: int | None = None, bets: str = "agrapa",
                 metric: str | None = None, _names=None):
        self.rule = parse_until(until)
        self.alpha = V.probability(alpha, "alpha")
        lo, hi = V.real(lo, "lo"), V.real(hi, "hi")
        if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
            raise ValueError(f"the score range must be two finite numbers lo < hi, got ({lo}, {hi})")
        if null is not None:
            try:
                null = V.real(null, "null")
            except ValueError as exc:  # named as a slot, so the command line says --null
                raise V.slotted(exc, "null") from None
            if not lo < null < hi:
                raise V.ArgumentError("{null} must lie strictly inside the range ({lo:g}, {hi:g}), got {value:g}: "
                                      "every mean is on one side of an end of the range, so there is nothing to "
                                      "decide", "null", lo=lo, hi=hi, value=null)
        if self.rule.decided and null is None and self.what == "mean":
            if until is None:  # the default rule for one model: no decision to take, run to a budget
                self.rule = StopRule(decided=False)
            else:
                raise V.ArgumentError("{until} 'decided' for one model needs {null} (the value to decide against)",
                                      "until", "null")
        span = hi - lo
        if self.rule.width is not None and self.rule.width >= span:
            raise _until_error("width {width:g} is not narrower than the whole range [{lo:g}, {hi:g}]",
                               width=self.rule.width, lo=lo, hi=hi)
        if self.rule.rope is not None:  # two finite numbers lo < hi: StopRule checks them
            rl, rh = self.rule.rope
            if self.what == "mean" and rl == -rh:  # one model: 'equivalent within r' is a region around null
                if null is None:
                    raise V.ArgumentError("{until} 'equivalent within r' for one model needs {null} (the value it "
                                          "should be equivalent to)", "until", "null")
                self.rule = StopRule(self.rule.decided, (null - rh, null + rh), self.rule.width,
                                     self.rule.max_questions, self.rule.max_samples)
            from ..comparison.paired import check_rope_span

            check_rope_span(self.rule.rope, lo, hi, "until")
        self.null = null
        self.names = tuple(_names) if _names else (name,)
        if metric is not None and not isinstance(metric, str):
            raise V.InputTypeError(f"metric must be a label (text, e.g. 'pass@4') or None, got {V.describe(metric)}")
        self.metric = metric
        extra = [v for v in ([null] if null is not None else []) + list(self.rule.rope or ()) if lo <= v <= hi]
        kwargs = {} if grid is None else {"grid": grid}
        self._cs = BettingCS(self.alpha, lo, hi, extra=extra, bets=bets, **kwargs)
        self._samples = 0
        self._path = GrowingRows(2)  # the sequence's lower and upper ends per question
        self._stop: tuple[int, int, str, str] | None = None

    def _decide(self, lo: np.ndarray, hi: np.ndarray, q: np.ndarray, s: np.ndarray, empty: np.ndarray):
        """Per step: (decision, reason) codes of the first rule that holds, as arrays.  An empty sequence is not
        narrow or inside a region: no width or equivalence rule holds on it."""
        rule = self.rule
        decision = np.full(lo.size, None, dtype=object)
        if rule.max_samples is not None:
            decision[s >= rule.max_samples] = "budget"
        if rule.max_questions is not None:
            decision[q >= rule.max_questions] = "budget"
        if rule.width is not None:
            decision[((hi - lo) <= rule.width) & ~empty] = "precise"
        if rule.rope is not None:
            decision[(lo >= rule.rope[0]) & (hi <= rule.rope[1]) & ~empty] = "equivalent"
        if rule.decided and self.null is not None:
            hi_word, lo_word = self._words()
            # the reported ends are excluded grid points (the null is one of them, evaluated exactly), so an end
            # that reaches the null means the null itself has left the sequence
            decision[(lo >= self.null) & (hi > self.null)] = hi_word
            decision[(hi <= self.null) & (lo < self.null)] = lo_word
        return decision

    def _words(self):
        return ("above", "below")

    def _reason(self, decision: str, q: int, s: int, lo: float, hi: float) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        where = f"after {q} questions ({s} samples)"
        if decision == "budget":
            return f"stopped at the budget {where}; undecided: the {level} sequence is [{lo:.4f}, {hi:.4f}]"
        if decision == "precise":
            return f"stopped {where}: the {level} sequence [{lo:.4f}, {hi:.4f}] is narrower than {self.rule.width:g}"
        if decision == "equivalent":
            return (f"stopped {where}: practically equivalent, the {level} sequence [{lo:.4f}, {hi:.4f}] lies inside "
                    f"[{self.rule.rope[0]:g}, {self.rule.rope[1]:g}]")
        ends = ", ".join(near_bound(x, 4, self.null, self.null) for x in (lo, hi))  # 1e-6 is not shown as 0.0000
        return (f"stopped {where}: {self._decision_text(decision)} -- {self.null:g} left the {level} sequence, now "
                f"inside ({ends})")

    def _decision_text(self, decision: str) -> str:
        return f"{self.names[0]} is {decision} {self.null:g}"

    def _samples_arg(self, samples: Any, size: int) -> np.ndarray:
        s = np.broadcast_to(np.asarray(samples), (size,)) if np.ndim(samples) == 0 else np.asarray(samples)
        if s.shape != (size,):
            raise ValueError(f"samples must be one number or one per question ({size}), got shape {s.shape}")
        if not np.issubdtype(s.dtype, np.number) or not np.isfinite(s).all() or (s < 0).any() or \
                (s != np.round(s)).any() or (s > 2**53).any():
            raise ValueError("samples must be finite whole numbers from 0 to 2^53 (the trials behind each question's "
                             "score)")
        return s.astype(np.int64)

    def _feed(self, x: np.ndarray, samples: np.ndarray) -> "Status":
        lo, hi, empty = self._cs.update_path(x)
        t0 = self._cs.t - x.size
        q = t0 + np.arange(1, x.size + 1)
        s = self._samples + np.cumsum(samples)
        self._samples = int(s[-1]) if s.size else self._samples
        self._path.append(np.column_stack([lo, hi]))  # status() hands out views of the path, never a copy
        if self._stop is None and x.size:
            decision = self._decide(lo, hi, q, s, empty)
            hit = np.flatnonzero(decision != None)  # noqa: E711 - elementwise on an object array
            if hit.size:
                j = int(hit[0])
                self._stop = (int(q[j]), int(s[j]), decision[j], self._reason(decision[j], int(q[j]), int(s[j]),
                                                                            float(lo[j]), float(hi[j])))
        return self.status()

    def update(self, scores: Any, samples: Any = 1) -> Status:
        """Add per-question scores (in run order); ``samples`` trials behind each (a number or one per question)."""
        x = _per_question(scores, "scores")
        return self._feed(x, self._samples_arg(samples, x.size))

    def status(self) -> Status:
        t = self._cs.t
        lo, hi = self._cs.interval
        if self._stop is None:
            reason = (f"continue: no rule ({self.rule.words()}) holds after {t} questions" if t else
                      "no questions yet")
            stopped = (None, None, None)
        else:
            q, s, decision, reason = self._stop
            stopped = (q, s, decision)
            if q < t:
                reason += f" (monitoring went on to {t} questions)"
        return Status(
            what=self.what, names=self.names, questions=t, samples=self._samples,
            estimate=float(self._cs.mean) if t else None, lower=lo, upper=hi, alpha=self.alpha, null=self.null,
            log_e=None if self.null is None or t == 0 else self._cs.log_e(self.null),
            decision=stopped[2], stopped_at=stopped[0], samples_at_stop=stopped[1], reason=reason, rule=self.rule,
            assumptions=_ASSUMES,
            path_lower=self._path.view()[:, 0], path_upper=self._path.view()[:, 1], empty=self._cs.empty,
            metric=self.metric,
        )


class GrowingRows:
    """Rows appended in blocks to one array grown by doubling: :meth:`view` hands out all the rows so far, read-only,
    without a copy (later appends only extend the array, so a view handed out earlier never changes).  What a
    monitor shows after every question costs O(new rows), not O(all rows), per look.

    >>> g = GrowingRows(2)
    >>> g.append(np.array([[1.0, 2.0]])); g.append(np.array([[3.0, 4.0], [5.0, 6.0]]))
    >>> g.view().tolist(), g.view().flags.writeable
    ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], False)
    """

    def __init__(self, width: int):
        self._a = np.empty((0, width))
        self.size = 0

    def append(self, rows: np.ndarray) -> None:
        end = self.size + len(rows)
        if end > self._a.shape[0]:
            grown = np.empty((max(2 * self._a.shape[0], end, 64), self._a.shape[1]))
            grown[: self.size] = self._a[: self.size]
            self._a = grown
        self._a[self.size: end] = rows
        self.size = end

    def view(self) -> np.ndarray:
        v = self._a[: self.size]
        v.flags.writeable = False
        return v


class SequentialCompare(Sequential):
    r"""Monitor the paired difference A - B of per-question scores, anytime-valid.

    Per question the difference :math:`d_i = x_{Ai} - x_{Bi} \in [lo - hi, hi - lo]`; the confidence
    sequence is for its mean :math:`\Delta` (the pool's mean difference of the metric).  The default rule
    is ``decided``: stop when 0 leaves the sequence.  Error control: :math:`P(\text{the sequence ever
    misses } \Delta) \le \alpha`, so "A better" when B is at least as good has probability at most
    :math:`\alpha` under continuous monitoring (and so does a wrong "equivalent").

    ``update(a, b, samples=1)`` takes both models' scores for the same questions (one per question,
    in run order); ``samples`` is the trials per question *per model* (a budget counts both models).
    """

    what = "difference"

    def __init__(self, lo: float = 0.0, hi: float = 1.0, *, alpha: float = 0.05, until: Any = None,
                 names=("A", "B"), rope: Any = None, grid: int | None = None, bets: str = "agrapa",
                 metric: str | None = None):
        rule = parse_until(until)
        if rope is not None:
            from ..comparison.paired import parse_rope

            region = parse_rope(rope)
            if rule.rope is not None and tuple(map(float, region)) != tuple(map(float, rule.rope)):
                raise V.ArgumentError("{rope} {region} and {until}'s equivalence region {given} differ: give the "
                                      "equivalence region once ({rope}, or 'equivalent within' in {until})",
                                      "rope", "until", region=region, given=rule.rope)
            rule = StopRule(rule.decided, region, rule.width, rule.max_questions, rule.max_samples)
        lo, hi = V.real(lo, "lo"), V.real(hi, "hi")
        if not (math.isfinite(float(lo)) and math.isfinite(float(hi)) and float(hi) > float(lo)):
            raise ValueError(f"the score range must be two finite numbers lo < hi, got ({lo}, {hi})")
        span = float(hi) - float(lo)
        if rope is not None:  # named here: the region came from rope, not until
            from ..comparison.paired import check_rope_span

            check_rope_span(rule.rope, -span, span, of=" of the difference")
        if not (isinstance(names, (tuple, list)) and len(names) == 2):
            raise V.InputTypeError("names must be two model names, e.g. ('new', 'base')")
        if str(names[0]) == str(names[1]):  # 'x - x' would read as a model against itself
            raise ValueError(f"names must be two different model names, got {list(names)!r}")
        super().__init__(-span, span, alpha=alpha, until=rule, null=0.0, _names=tuple(map(str, names)), grid=grid,
                         bets=bets, metric=metric)
        self._range = (float(lo), float(hi))

    def _words(self):
        return ("A better", "B better")

    def _decision_text(self, decision: str) -> str:
        a, b = self.names
        return f"{a} is better than {b}" if decision == "A better" else f"{b} is better than {a}"

    def update(self, a: Any, b: Any = None, samples: Any = 1) -> Status:  # type: ignore[override]
        """Both models' scores for the same questions, in run order; ``samples``: the trials behind each score,
        per model (a number or one per question), or a pair ``(samples_a, samples_b)`` when they differ."""
        if b is None:
            raise V.InputTypeError("b: give both models' scores for the same questions, update(a, b)")
        xa, xb = _per_question(a, "a"), _per_question(b, "b")
        if xa.shape != xb.shape:
            raise ValueError(f"a and b must hold one score per question each, for the same questions; got "
                             f"{xa.size} and {xb.size}")
        lo, hi = self._range
        for name, x in (("a", xa), ("b", xb)):
            bad = ~np.isfinite(x) | (x < lo - 1e-12) | (x > hi + 1e-12)
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                raise ValueError(f"{name}: question {self._cs.t + j + 1} has score {x[j]}, outside [{lo:g}, {hi:g}]")
        if isinstance(samples, tuple) and len(samples) == 2:
            spent = self._samples_arg(samples[0], xa.size) + self._samples_arg(samples[1], xa.size)
        else:
            spent = 2 * self._samples_arg(samples, xa.size)
        return self._feed(xa - xb, spent)
