r"""Paired comparison of two models on the same questions: :func:`compare`.

One call answers "is A better than B, by how much, and how sure are we" in
the three languages reviewers speak:

* **Bayesian** -- the posterior of :math:`\Delta = \theta_A - \theta_B` for
  any single-payoff engine metric, in the chosen scope (population: a
  Dirichlet-process posterior over paired questions; benchmark: the models'
  independent posteriors; see :mod:`bayeseval.comparison.joint`): mean, sd, credible
  interval, ``P(A > B)``, and with
  ``rope`` the mass below / inside / above the region of practical
  equivalence.  Closed-form moments; seeded draws for the interval.
* **Resampling** -- a paired bootstrap over questions (percentile and BCa,
  Efron & Tibshirani 1993 ch. 14) and a paired sign-flip permutation test of
  the mean per-question difference.  Both work from the distinct values of
  the per-question differences, so 10,000 resamples cost ``10,000 x U``
  multinomial or binomial draws with ``U`` distinct differences (``U <= M``), at
  most: with thousands of distinct differences on many questions the bootstrap
  resamples 1,024 groups of them and the sign-flip test draws one random bit per
  question (:mod:`bayeseval.comparison.paired_tests`).
* **Classical paired tests** -- McNemar for one trial per question (exact
  binomial, mid-p, chi-square with continuity correction; statsmodels), the
  clustered McNemar of Durkalski et al. (2003) for several trials, a paired
  t-test and the Wilcoxon signed-rank test on per-question scores, Miller's
  paired standard error ("Adding Error Bars to Evals", arXiv:2411.00640) and Cohen's d_z.

Per-question scores are the unbiased per-question estimates of the metric
(for avg: the fraction correct), so the frequentist tests concern the same
quantity as the point estimate a paper reports.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> p = rng.beta(2, 2, 200)
>>> A = (rng.random((200, 4)) < np.clip(p + 0.1, 0, 1)[:, None]).astype(int)
>>> B = (rng.random((200, 4)) < p[:, None]).astype(int)
>>> res = compare(A, B, seed=1)
>>> res.verdict
'A is better'
>>> round(res.delta.mean, 3), res.p_a_better > 0.99
(0.062, True)
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy.special import ndtri

from .. import validate as V
from .._protocol import Result, check_choice
from .._text import html_table, near_bound, pct, text_table
from ..counts import Counts, is_flat
from ..scores import Scores, any_scores, label_threshold, same_range, thresholded, to_outcomes
from ..posterior import METHODS, SCOPES, build, interval_from_draws
from ..results import DEFAULT_DRAWS, DEFAULT_SCOPE, DEFAULT_SEED, summarise
from .joint import Side, base_measure, dp_bootstrap, population_draws, population_moments
from .paired_tests import (COLLAPSE, DEFAULT_RESAMPLES, TestResult, mcnemar_tests, paired_bootstrap, paired_t_test,
                           sign_flip_test, snap_ties, wilcoxon_test)

__all__ = ["compare", "Comparison", "Delta", "align", "question_scores", "as_counts", "paired_difference",
           "decide", "verdict_text", "parse_rope", "p_better", "differing_questions", "too_few_to_decide",
           "check_comparable"]


# ----------------------------------------------------------------------------- inputs
def as_counts(X: Any, name: str, missing: Any = None, ragged: bool = False, score_range: Any = None,
              scores: bool = False) -> Counts | Scores:
    """``X`` as :class:`Counts` (a Counts passes through; matrices are counted once), or as
    :class:`~bayeseval.scores.Scores` when ``scores`` (see :func:`~bayeseval.scores.any_scores`)."""
    if isinstance(X, Counts) and not scores:
        return X
    if not ragged and is_flat(X):
        raise ValueError(f"{name} is one-dimensional ({len(X)} values), which reads as one question with {len(X)} "
                         "trials, and a comparison over one question says nothing; give a questions x trials matrix "
                         "(np.asarray(x).reshape(-1, 1) for one trial per question)")
    return to_outcomes(X, missing=missing, ragged=ragged, score_range=score_range, scores=scores, name=name)


def binary_weights(metric_params: dict, counts) -> dict:
    """``metric_params`` without ``w`` when it is ``[0, 1]`` and every model's outcomes are 0/1: the weights then
    score 0/1 outcomes as 0 and 1, which is the binary model's own reading (an estimate keeps ``w=[0, 1]`` as
    the categorical model, which a paired comparison does not support)."""
    if "w" not in metric_params or not all(isinstance(c, Counts) and c.is_binary for c in counts):
        return metric_params
    wv = V.weights(metric_params["w"])
    if wv.size == 2 and wv[0] == 0.0 and wv[1] == 1.0:
        return {k: v for k, v in metric_params.items() if k != "w"}
    return metric_params


def _first_trials(X: Any) -> np.ndarray | None:
    """First observed trial of each question when the input still has trial order.

    Matrices (missing trials masked or NaN) and lists of rows qualify; a
    :class:`Counts` has no trial order, so "first" is unavailable (None).
    """
    if isinstance(X, Counts):
        return None
    try:
        if hasattr(X, "iloc"):
            arr = np.asarray(X, dtype=np.float64)
        elif np.ma.isMaskedArray(X):
            arr = np.ma.filled(np.ma.asarray(X, dtype=np.float64), np.nan)
        elif isinstance(X, np.ndarray):  # integers and booleans have no missing trial: no float copy (300 MB at
            arr = X if X.dtype.kind in "biu" else np.asarray(X, dtype=np.float64)  # 300,000 x 128, 0.3 s)
        else:
            arr = None
            col = np.asarray([next((v for v in row if v is not None and v == v), np.nan) for row in X],
                             dtype=np.float64)  # each row's first observed trial (None / NaN are missing)
        if arr is not None:
            arr = arr[None, :] if arr.ndim == 1 else arr
            if arr.dtype.kind in "biu":
                col = arr[:, 0].astype(np.float64)
            else:
                first = (~np.isnan(arr)).argmax(axis=1)
                col = arr[np.arange(arr.shape[0]), first]
    except (TypeError, ValueError, IndexError):
        return None
    if not np.isin(col, (0.0, 1.0)).all():
        return None
    return col


def align(A: Counts, B: Counts, names=("A", "B")) -> tuple[Counts, np.ndarray | None]:
    """Put B's questions in A's order (by question id when both have ids).

    Returns B re-ordered and the index applied to B's rows (None when the
    order was kept).  Raises ValueError listing what is missing on each side.
    """
    if A.ids is not None and B.ids is not None:
        import pandas as pd

        ia, ib = pd.Index(A.ids), pd.Index(B.ids)
        pos = ib.get_indexer(ia)
        missing_b = ia[pos < 0].tolist()
        missing_a = ib[~ib.isin(ia)].tolist()
        if missing_a or missing_b:
            def show(xs):
                return ", ".join(map(str, xs[:10])) + (f" ... ({len(xs)} in all)" if len(xs) > 10 else "") or "none"

            hint = ("; a question with no observed trial (every sample failed, say) is left out when a file is "
                    "read: sample it again (bayeseval run --retry-failed) or leave it out of both; a model run on "
                    "a subset by design is compared on that subset only (keep those questions of the other), or "
                    "left out (CLI --models)"
                    if not (len(missing_a) and len(missing_b)) else "")  # one side a subset of the other
            if len(missing_b) == len(ia) and type(ia[0]) is not type(ib[0]):
                hint = (f" (no id matches: {names[0]}'s ids are {type(ia[0]).__name__}, "
                        f"{names[1]}'s are {type(ib[0]).__name__})")
            raise ValueError(
                f"{names[0]} and {names[1]} must cover the same questions: "
                f"missing in {names[1]}: {show(missing_b)}; missing in {names[0]}: {show(missing_a)}{hint}"
            )
        if (pos == np.arange(pos.size)).all():
            return B, None
        return B.take(pos), pos
    if A.M != B.M:
        raise ValueError(
            f"{names[0]} has {A.M} questions and {names[1]} has {B.M}; give question ids (a DataFrame index "
            "or ids=) to match them, or the same questions in the same order"
        )
    return B, None


def question_scores(post) -> np.ndarray | None:
    """Per-question unbiased estimates of a binary metric, in question order (None where k > n somewhere)."""
    x = post.state_scores()
    if isinstance(post.counts, Scores):  # one row per question already
        return x
    return None if x is None else x[np.asarray(post.counts.binary_states()[3]())]


# ----------------------------------------------------------------------------- result
@dataclass(frozen=True)
class Delta:
    """Posterior summary of ``theta_A - theta_B``.

    ``mean`` and ``sd`` are the posterior's moments; ``lo``, ``hi`` (and ``P(A > B)``) come from its draws.  In
    population scope the posterior is a Student-t law (M - 1 degrees of freedom) whose draws are clipped to each
    score's range; ``sd`` is the t law's, before clipping, so with very few questions (M <= 5) and a difference near
    an end it exceeds the spread of the clipped draws (and the draws' own sd, at 4 degrees of freedom, is a noisy
    estimate of it).
    """

    mean: float
    sd: float
    lo: float
    hi: float
    level: float
    scope: str
    interval: str
    basis: str = ""

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("mean", "sd", "lo", "hi", "level", "scope", "interval", "basis")}


def _clean(x):
    """JSON-safe copy: private keys dropped, numpy scalars to Python, non-finite floats to None."""
    if isinstance(x, Mapping):
        return {k: _clean(v) for k, v in x.items() if not k.startswith("_")}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    return x


_COLUMNS = ["analysis", "estimate", "interval", "p / probability"]


@dataclass(frozen=True, eq=False, repr=False)
class Comparison(Result):
    """Everything :func:`compare` found; see :meth:`summary`, :meth:`to_dict`, :meth:`to_frame`.

    ``decision`` is ``"A"`` / ``"B"`` (that side is credibly better), ``"equivalent"`` (inside the
    ROPE) or None (undecided); ``verdict`` says the same in words.  Each frequentist analysis is a
    :class:`~bayeseval.comparison.paired_tests.TestResult` that says what it tests.
    """

    names: tuple
    metric: str
    M: int
    N: tuple
    estimates: dict
    delta: Delta
    p_a_better: float
    rope: dict | None
    verdict: str
    bootstrap: TestResult | None
    permutation: TestResult | None
    mcnemar: TestResult | None
    t_test: TestResult | None
    wilcoxon: TestResult | None
    miller: dict | None
    effect_size: dict | None
    seed: int
    notes: tuple = ()
    decision: str | None = None
    _draws: np.ndarray | None = field(default=None, repr=False)

    def draws(self) -> np.ndarray:
        """Posterior draws of ``theta_A - theta_B`` behind the interval and ``P(A > B)``."""
        return self._draws.copy()

    def confidence_interval(self, level: float | None = None, method: str | None = None) -> tuple[float, float]:
        """Credible interval of ``theta_A - theta_B`` at another ``level`` / ``method`` (same draws)."""
        d = self.delta
        level = d.level if level is None else V.confidence(level, "level")
        method = d.interval if method is None else check_choice(method, "method", METHODS)
        if level == d.level and method == d.interval:
            return d.lo, d.hi
        if method == "normal":
            z = float(ndtri(0.5 + level / 2))
            return d.mean - z * d.sd, d.mean + z * d.sd
        return interval_from_draws(self._draws, level, method)

    def tests(self) -> dict:
        """The frequentist analyses that ran, by name: ``{"bootstrap": TestResult, ...}``."""
        named = {"bootstrap": self.bootstrap, "permutation": self.permutation, "mcnemar": self.mcnemar,
                 "t_test": self.t_test, "wilcoxon": self.wilcoxon}
        return {k: v for k, v in named.items() if v is not None}

    def to_dict(self) -> dict:
        return _clean({
            "models": list(self.names), "metric": self.metric, "M": self.M, "N": list(self.N),
            "estimates": {k: v.to_dict() for k, v in self.estimates.items()},
            "delta": self.delta.to_dict(), "p_a_better": self.p_a_better, "rope": self.rope,
            "verdict": self.verdict, "decision": self.decision, "bootstrap": self.bootstrap,
            "permutation": self.permutation, "mcnemar": self.mcnemar, "t_test": self.t_test,
            "wilcoxon": self.wilcoxon, "miller": self.miller, "effect_size": self.effect_size, "seed": self.seed,
            "notes": list(self.notes),
        })

    def _records(self) -> list[dict]:
        """One numeric record per analysis: what it tests, estimate, interval, statistic, p-value, probability."""
        a, b = self.names
        d = self.delta
        recs = [dict(analysis=f"Bayesian {self.metric} {a} - {b} ({d.scope})", tests=f"{self.metric} difference",
                     estimate=d.mean, sd=d.sd, lo=d.lo, hi=d.hi, statistic=None, p_value=None,
                     probability=self.p_a_better)]
        if self.rope is not None:
            r = self.rope
            recs.append(dict(analysis=f"ROPE [{r['lo']:+g}, {r['hi']:+g}]", tests="practical equivalence",
                             estimate=None, sd=None, lo=r["lo"], hi=r["hi"], statistic=None, p_value=None,
                             probability=r["inside"]))
        bs = self.bootstrap
        if bs is not None:
            recs.append(dict(analysis=f"paired bootstrap ({bs['resamples']:,}, BCa)", tests=bs.tests,
                             estimate=bs["estimate"], sd=bs["se"], lo=bs.lo, hi=bs.hi, statistic=None,
                             p_value=bs.p_value, probability=None))
            recs.append(dict(analysis="paired bootstrap (percentile)", tests=bs.tests, estimate=bs["estimate"],
                             sd=bs["se"], lo=bs["percentile"]["lo"], hi=bs["percentile"]["hi"], statistic=None,
                             p_value=None, probability=None))
        pm = self.permutation
        if pm is not None:
            recs.append(dict(analysis=f"sign-flip permutation ({pm.method})", tests=pm.tests, estimate=pm.statistic,
                             sd=None, lo=None, hi=None, statistic=pm.statistic, p_value=pm.p_value, probability=None))
        mc = self.mcnemar
        if mc is not None:
            recs.append(dict(analysis=mc.method, tests=mc.tests, estimate=None, sd=None, lo=None, hi=None,
                             statistic=mc.statistic, p_value=mc.p_value, probability=None))
        if self.t_test is not None:
            t = self.t_test
            recs.append(dict(analysis="paired t-test", tests=t.tests, estimate=None, sd=None, lo=t.lo, hi=t.hi,
                             statistic=t.statistic, p_value=t.p_value, probability=None))
        if self.wilcoxon is not None:
            w = self.wilcoxon
            recs.append(dict(analysis="Wilcoxon signed-rank", tests=w.tests, estimate=None, sd=None, lo=None,
                             hi=None, statistic=w.statistic, p_value=w.p_value, probability=None))
        if self.miller is not None:
            m = self.miller
            recs.append(dict(analysis="Miller paired SE", tests=f"{self.metric} difference", estimate=m["delta"],
                             sd=m["se_paired"], lo=m["lo"], hi=m["hi"], statistic=None, p_value=None,
                             probability=None))
        if self.effect_size is not None:
            recs.append(dict(analysis="effect size (Cohen's d_z)", tests=f"{self.metric} difference",
                             estimate=self.effect_size["cohens_dz"], sd=None, lo=None, hi=None, statistic=None,
                             p_value=None, probability=None))
        return recs

    def _rows(self) -> list[tuple[str, str, str, str]]:
        """(analysis, estimate, interval, p / probability) rows of the summary table."""
        lv = f"{pct(self.delta.level)}"

        def f(x, d=4):
            return "-" if x is None else f"{x:.{d}f}"

        def pv(x):
            return "-" if x is None else (f"{x:.2g}" if x < 0.001 else f"{x:.4f}")

        d = self.delta
        rows = [(f"Bayesian {self.metric} {self.names[0]} - {self.names[1]} ({d.scope})",
                 f"{d.mean:+.4f} (sd {d.sd:.4f})", f"[{d.lo:+.4f}, {d.hi:+.4f}] {lv} {d.interval}",
                 f"P(A>B) = {self.p_a_better:.4f}")]
        if self.rope is not None:
            r = self.rope
            rows.append((f"ROPE [{r['lo']:+g}, {r['hi']:+g}]", "-", "-",
                         f"below {r['below']:.3f} / inside {r['inside']:.3f} / above {r['above']:.3f}"))
        if self.bootstrap is not None:
            bs = self.bootstrap
            rows.append((f"paired bootstrap ({bs['resamples']:,}, BCa)", f"{bs['estimate']:+.4f}",
                         f"[{bs['lo']:+.4f}, {bs['hi']:+.4f}] {lv}", f"p = {pv(bs['p_value'])}"))
            rows.append(("paired bootstrap (percentile)", f"{bs['estimate']:+.4f}",
                         f"[{bs['percentile']['lo']:+.4f}, {bs['percentile']['hi']:+.4f}] {lv}", "-"))
        if self.permutation is not None:
            rows.append((f"sign-flip permutation ({self.permutation['method']})", f"{self.permutation['statistic']:+.4f}",
                         "-", f"p = {pv(self.permutation['p_value'])}"))
        mc = self.mcnemar
        if mc is not None:
            rows.append((mc["method"], f"stat {mc['statistic']:.4g}", "-", f"p = {pv(mc['p_value'])}"))
        if self.t_test is not None:
            rows.append(("paired t-test", f"t = {self.t_test['statistic']:.3f}", f"[{self.t_test['lo']:+.4f}, {self.t_test['hi']:+.4f}] {lv}",
                         f"p = {pv(self.t_test['p_value'])}"))
        if self.wilcoxon is not None:
            rows.append(("Wilcoxon signed-rank", f"W = {self.wilcoxon['statistic']:.4g}", "-", f"p = {pv(self.wilcoxon['p_value'])}"))
        if self.miller is not None:
            m = self.miller
            rows.append(("Miller paired SE", f"{m['delta']:+.4f} +- {m['se_paired']:.4f}",
                         f"[{m['lo']:+.4f}, {m['hi']:+.4f}] {lv}", f"unpaired SE {m['se_unpaired']:.4f}, corr {f(m['correlation'], 3)}"))
        if self.effect_size is not None:
            rows.append(("effect size (Cohen's d_z)", f"{self.effect_size['cohens_dz']:+.3f}", "-", "-"))
        return rows

    def _headline(self) -> str:
        def signed(x: float) -> str:  # -0.00001 reads +0.0000, not -0.0000
            text = f"{x:+.4f}"
            return "+0.0000" if text == "-0.0000" else text

        a, b = self.names
        ea, eb = self.estimates[a], self.estimates[b]
        va = ea.value if ea.value is not None else ea.mean
        vb = eb.value if eb.value is not None else eb.mean

        def shown(e, v):  # a value rounding to an end of the metric's range keeps the digits that say it is not
            rng = getattr(getattr(e, "_post", None), "range", None) or (None, None)
            return near_bound(v, 4, *rng)

        d = self.delta
        seen, mean = signed(va - vb), signed(d.mean)  # the estimates' difference; the mean is pulled towards 0
        what = f"{mean} (" if seen == mean else f"{seen} (posterior mean {mean}, "
        return (
            f"{self.verdict}. {self.metric}: {a} {shown(ea, va)} vs {b} {shown(eb, vb)}; {a} - {b} = {what}"
            f"{pct(d.level)} credible interval [{d.lo:+.4f}, {d.hi:+.4f}], "
            f"{d.scope} scope), P({a} > {b}) = {self.p_a_better:.3f}; M = {self.M} paired questions."
        )

    def summary(self) -> str:
        """A plain-language verdict followed by a table of every analysis."""
        table = text_table(_COLUMNS, self._rows())
        notes = "".join(f"\nnote: {n}" for n in self.notes)
        return self._headline() + "\n\n" + table + notes

    def to_frame(self):
        """One numeric row per analysis (pandas DataFrame): analysis, tests, estimate, sd, lo, hi, statistic,
        p_value, probability; formatted text is in :meth:`summary`."""
        import pandas as pd

        return pd.DataFrame.from_records(self._records())

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(self._headline())}</p>{html_table(_COLUMNS, self._rows())}"


# ----------------------------------------------------------------------------- decisions
def parse_rope(rope: Any) -> tuple[float, float] | None:
    """A ROPE half-width ``r`` (-> ``(-r, r)``) or pair ``(lo, hi)``, validated; None passes through."""
    if rope is None:
        return None
    if isinstance(rope, np.ndarray) and rope.ndim == 0:
        rope = rope.item()
    if isinstance(rope, (bool, str)):
        raise V.InputTypeError(f"rope must be a half-width r > 0 or a pair (lo, hi), got {V.describe(rope)}")
    if np.ndim(rope) == 0:
        try:
            r = V.real(rope, "rope", lo=0.0)
        except ValueError as exc:  # the slot lets the command line say --rope
            raise V.slotted(exc, "rope") from None
        if r <= 0:
            raise V.ArgumentError("{rope}: a half-width must be > 0, got {r}", "rope", r=r)
        return -r, r
    try:
        lo, hi = (V.real(x, "rope") for x in rope) if len(rope) == 2 else (None, None)
    except ValueError as exc:
        raise V.slotted(exc, "rope") from None
    if lo is None or not lo < hi:
        raise V.ArgumentError("{rope} must be a half-width or a pair (lo, hi) with lo < hi, got {rope_!r}", "rope",
                              rope_=rope)
    if not lo <= 0.0 <= hi:  # mass below it would read as "B is better" where A is better by less than lo
        raise V.ArgumentError("{rope}: a region of practical equivalence holds no difference (0): lo <= 0 <= hi, "
                              "got ({lo:g}, {hi:g})", "rope", lo=lo, hi=hi)
    return lo, hi


def check_rope_span(region: tuple[float, float], lo: float, hi: float, arg: str = "rope", of: str = "") -> None:
    """Refuse an equivalence region that covers the whole range ``[lo, hi]`` (every value would be "practically
    equivalent"), naming the argument it came from (``rope``, or ``until`` for 'equivalent within');  a region
    over part of the range is a usable (one-sided) region (:func:`parse_rope` has checked that it holds 0).

    >>> check_rope_span((-0.5, 1.6), -1.0, 1.0)
    >>> check_rope_span((-2.0, 2.0), -1.0, 1.0, of=" of the difference")
    Traceback (most recent call last):
    ...
    bayeseval.validate.ArgumentError: rope: the equivalence region (-2.0, 2.0) covers the whole range [-1, 1] of the difference
    """
    if region[0] <= lo and region[1] >= hi:
        raise V.ArgumentError("{" + arg + "}: the equivalence region {region} covers the whole range [{lo:g}, {hi:g}]"
                              "{of}", arg, region=tuple(region), lo=lo, hi=hi, of=of)


SMALL_CLUSTERED = 30  # fewer questions: the clustered McNemar's chi-square approximation is flagged in the notes


def check_comparable(counts: Mapping, scored: bool, what: str) -> None:
    """Paired comparisons take 0/1 outcomes or scores: graded outcomes are an error naming the model and the
    way to compare them (by their mean score)."""
    graded = [k for k, c in counts.items() if not scored and not c.is_binary]
    if graded:
        raise ValueError(f"{what} needs 0/1 outcomes or scores for every model; {graded[0]!r} has graded "
                         "(categorical) outcomes, which compare by their mean score: pass each trial's value with "
                         "score_range=(lo, hi), or use OutcomeSet.as_scores((lo, hi)) / the command line's "
                         "--scores LO,HI")


def differing_questions(ca, cb) -> int:
    """How many questions the two models' outcomes differ on (per-question mean score, aligned counts): without
    an unbiased per-question score (k > n) there is no sign-flip test, but a winner on fewer than
    ``log2(1 / (1 - level))`` differing questions could not be named by one even if all went one way."""
    def means(c):
        if isinstance(c, Scores):
            return np.asarray(c.means, dtype=np.float64)
        return (c.table * np.arange(c.table.shape[1])).sum(axis=1) / c.n
    return int(np.count_nonzero(np.abs(means(ca) - means(cb)) > 1e-12))


def too_few_to_decide(differ: int, level: float) -> bool:
    """Even ``differ`` questions all one way could not reach ``level`` (sign-flip p = 0.5^differ)."""
    return 0.5**differ > 1.0 - level


def _too_few(differ: int, M: int, level: float) -> str:
    return (f"undecided: only {differ} of {M} questions differ, too few to decide at {pct(level)} "
            f"(at least {math.ceil(math.log2(1.0 / (1.0 - level)))} are needed)")


def decide(level: float, p_better: float, rope_probs=None) -> str | None:
    """The decision rule, the one place it lives: ``"A"`` / ``"B"`` when that side is credibly better,
    ``"equivalent"`` when the ROPE holds ``level`` of the mass, else None.

    Without a ROPE: A when ``P(A > B) >= (1 + level) / 2``, B when ``<= (1 - level) / 2``.  With a
    ROPE ``(below, inside, above)`` masses: the side whose mass reaches ``level``.
    """
    if rope_probs is not None:
        below, inside, above = rope_probs
        if above >= level:
            return "A"
        if below >= level:
            return "B"
        return "equivalent" if inside >= level else None
    if p_better >= (1 + level) / 2:
        return "A"
    if p_better <= (1 - level) / 2:
        return "B"
    return None


def verdict_text(names, decision: str | None, rope: bool, why: dict | None = None, level: float = 0.95) -> str:
    """The decision in words, with the models' names; ``why`` (the ROPE's bounds and masses) says why a ROPE
    left it undecided: no part of the split holds ``level`` of the posterior, or the paired test did not confirm
    the side that does.

    >>> why = {"lo": -0.01, "hi": 0.01, "below": 0.926, "inside": 0.072, "above": 0.002}
    >>> head, masses = verdict_text(("A", "B"), None, True, why).split(" (")
    >>> head
    'undecided: no part of the ROPE split holds 95% of the posterior'
    >>> masses
    'below -0.01: 0.926, inside: 0.072, above +0.01: 0.002)'
    """
    a, b = names
    tail = " (outside the ROPE)" if rope else ""
    if decision == "A":
        return f"{a} is better{tail}"
    if decision == "B":
        return f"{b} is better{tail}"
    if decision == "equivalent":
        return "practically equivalent (inside the ROPE)"
    if not rope:
        return "no clear difference"
    if why is None:
        return "undecided"
    masses = f"below {why['lo']:+g}: {why['below']:.3f}, inside: {why['inside']:.3f}, above {why['hi']:+g}: " \
             f"{why['above']:.3f}"
    if max(why["below"], why["above"]) >= level:
        return f"undecided: the paired sign-flip test does not confirm the side beyond the ROPE ({masses})"
    return f"undecided: no part of the ROPE split holds {pct(level)} of the posterior ({masses})"


# ----------------------------------------------------------------------------- the Bayesian difference
def paired_difference(pa, pb, *, scope: str, method: str, level: float, draws: int, rng: np.random.Generator,
                      xa=None, xb=None) -> tuple[Delta, np.ndarray, list]:
    r"""Posterior of ``theta_A - theta_B`` from the two models' posteriors: ``(Delta, draws, notes)``.

    Population scope: the Dirichlet-process posterior over questions of the paired per-question
    unbiased scores ``xa``, ``xb`` (:func:`~bayeseval.comparison.joint.dp_bootstrap`); where
    ``k > n`` leaves no unbiased score, the Bayesian bootstrap over each model's per-question
    posterior (conservative).  Benchmark scope: the two independent posteriors; with one trial per question
    for both, the paired population posterior, whose spread matches the bound
    ``sum_i Var(e_Ai - e_Bi) <= E[#discordant questions]`` on the error of the difference.
    """
    notes = []
    one_trial = (scope == "benchmark" and xa is not None and xb is not None
                 and int(pa.counts.n.max()) == 1 and int(pb.counts.n.max()) == 1)
    if (scope == "population" or one_trial) and xa is not None and xb is not None:
        # Dirichlet-process posterior over questions of the paired per-question unbiased scores:
        # E[x_Ai - x_Bi | p] = g(p_Ai) - g(p_Bi), so it targets the population difference and keeps
        # the pairing exactly; one prior pseudo-question, the same for both models, keeps a handful
        # of one-sided differences from looking certain
        m_, cov, x = dp_bootstrap(np.column_stack([xa, xb]), pa.C[:, 0], base_measure(pa), draws, rng,
                                  studentized=not one_trial)  # one trial: the bound below, not a spread estimate
        mean = float(m_[0] - m_[1])
        sd = math.sqrt(max(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], 0.0))
        dx = x[:, 0] - x[:, 1]
        basis = ("Dirichlet-process posterior over questions (Bayesian bootstrap plus one prior pseudo-question"
                 + (")" if one_trial else ", studentized)") + " of the paired per-question scores")
        if one_trial:
            # benchmark error of the difference: sum_i [p_Ai (1 - p_Ai) + p_Bi (1 - p_Bi)]
            # = E[#discordant] - sum_i (p_Ai - p_Bi)^2 <= E[#discordant], which one trial cannot split further;
            # the paired population posterior has that spread (less d^2 / M), so it serves as the bound
            basis += (" (one trial per question: the benchmark-scope error of the difference is at most the expected "
                      "sum of squared per-question differences -- the number of discordant questions for 0/1 "
                      "outcomes -- which this posterior's spread matches)")
    elif scope == "population":
        sides = [Side(pa, "A"), Side(pb, "B")]
        mean, sd = population_moments(sides, [1.0, -1.0])
        x = population_draws(sides, draws, rng)
        dx = x[:, 0] - x[:, 1]
        basis = "Bayesian bootstrap over questions of each question's posterior (independent per model)"
        notes.append("k > n for some question, so the population difference uses each model's per-question "
                     "posterior, which ignores the correlation of A and B within a question (conservative)")
    else:
        ma, sa = pa.moments("benchmark")
        mb, sb = pb.moments("benchmark")
        mean, sd = ma - mb, math.hypot(sa, sb)
        r1, r2 = rng.spawn(2)
        dx = pa.draws("benchmark", draws, r1) - pb.draws("benchmark", draws, r2)
        basis = "difference of the two models' independent posteriors over these questions"
        if pa.prior.label == "robust" and min(int(pa.counts.n.min()), int(pb.counts.n.min())) == 1:
            notes.append("one trial for some questions: the benchmark-scope difference takes the widest error for "
                         "them (equally hard questions), conservative")
    lo, hi = delta_interval(dx, mean, sd, level, method, pa.range)
    return Delta(float(mean), float(sd), float(lo), float(hi), level, scope, method, basis), dx, notes


def delta_interval(dx: np.ndarray, mean: float, sd: float, level: float, method: str, span) -> tuple[float, float]:
    """The interval of a difference of two scores on the range ``span``, from its draws ``dx`` (``exact`` / ``hdi``,
    reaching ``mean`` where it sits on an end: :func:`reach_value`) or its moments (``normal``), within the
    difference's range ``[lo - hi, hi - lo]``.

    >>> delta_interval(np.linspace(-0.1, 0.3, 401), 0.1, 0.05, 0.95, "normal", (0.0, 1.0))
    (0.002001800772..., 0.197998199227...)
    """
    lo_b, hi_b = span[0] - span[1], span[1] - span[0]
    if method == "normal":
        z = float(ndtri(0.5 + level / 2))
        return max(mean - z * sd, lo_b), min(mean + z * sd, hi_b)
    return reach_value(*interval_from_draws(dx, level, method), mean, dx, level, (lo_b, hi_b))


def reach_value(lo: float, hi: float, value: float, dx: np.ndarray, level: float, bounds) -> tuple[float, float]:
    """An interval from draws ``dx`` that contains the ``value`` it is reported with: where the value sits on an end
    of the range ``bounds`` (A solves every question, B none) and outside ``(lo, hi)``, the one-sided interval that
    holds ``level`` of the draws and reaches that end; elsewhere outside (a skewed posterior at a low level), the
    nearer end moves to the value.

    >>> dx = np.linspace(0.5, 1.0, 101)
    >>> reach_value(0.62, 0.87, 1.0, dx, 0.5, (-1.0, 1.0))
    (0.75, 1.0)
    >>> reach_value(0.62, 0.87, 0.6, dx, 0.5, (-1.0, 1.0))
    (0.6, 0.87)
    """
    if lo <= value <= hi:
        return lo, hi
    lo_b, hi_b = bounds
    if value >= hi_b:
        return max(float(np.quantile(dx, 1.0 - level)), lo_b), hi_b
    if value <= lo_b:
        return lo_b, min(float(np.quantile(dx, level)), hi_b)
    return min(lo, value), max(hi, value)


def p_better(dx: np.ndarray) -> float:
    """``P(A > B)`` from draws of the difference, ties counted half."""
    return float(np.mean(dx > 0) + 0.5 * np.mean(dx == 0))


# ----------------------------------------------------------------------------- the front door
def compare(
    A: Any,
    B: Any,
    *,
    metric: Any = "avg",
    scope: str = DEFAULT_SCOPE,
    rope: Any = None,
    level: float = 0.95,
    seed: int | None = None,
    prior: Any = None,
    alpha0: Any = None,
    beta0: Any = None,
    interval: str = "exact",
    draws: int = DEFAULT_DRAWS,
    resamples: int = DEFAULT_RESAMPLES,
    collapse: str = "clustered",
    names: tuple = ("A", "B"),
    missing: Any = None,
    ragged: bool = False,
    labels: Any = None,
    score_range: Any = None,
    **metric_params,
) -> Comparison:
    r"""Compare two models' outcomes on the same questions.

    Parameters
    ----------
    A, B : outcome matrices (M x N, 0/1), DataFrames (index = question id),
        lists of rows, or :class:`Counts`.  Questions are matched by id when
        both have ids; otherwise they must be in the same order.  N may differ.
    metric : "avg", "pass@k", "pass^k", "maj@k", ... or a payoff vector.
    scope : "population" (default: the questions are a sample; the posterior
        over questions uses the same weights for A and B, so the pairing is
        exploited) or "benchmark" (these questions fixed).
    rope : half-width ``r`` (ROPE ``[-r, r]``) or ``(lo, hi)``: report the
        posterior mass below, inside and above it, and decide by it.
    level : credibility / confidence level of every interval.
    seed : seeds the posterior draws, bootstrap and permutation (default fixed).
    prior, alpha0, beta0 : as in :func:`bayeseval.estimate` (default robust).
    interval : "exact" (draw quantiles), "hdi" or "normal" for ``delta``.
    resamples : bootstrap and permutation resamples (10,000).
    collapse : McNemar for N > 1: "clustered" (Durkalski et al. 2003, all
        trials, the default), "first" (first observed trial of each question;
        needs matrices or lists of rows) or
        "majority" (strict majority vote per question); all available
        variants are reported under ``mcnemar["variants"]``.
    names, labels : the two models' names (``labels=`` is the name shared with the other entry points).
    missing, ragged : passed to :func:`bayeseval.to_counts` for both models
        (e.g. ``missing=np.nan`` for unobserved trials, ``ragged=True`` for
        lists of rows of different lengths).
    score_range : ``(lo, hi)``: both models' outcomes are continuous scores in that range (a value that
        is not an integer in either makes both scores in ``[0, 1]``); metric ``avg``, no McNemar.

    Returns
    -------
    Comparison with ``delta`` (mean, sd, lo, hi), ``p_a_better``, ``rope``,
    ``verdict``, ``bootstrap``, ``permutation``, ``mcnemar``, ``t_test``,
    ``wilcoxon``, ``miller``, ``effect_size`` and ``estimates`` of each model.

    Formula (population scope): the Dirichlet-process posterior over questions,
    :math:`\Delta = [\sum_i G_i (x_{Ai} - x_{Bi}) + G_0 (Y_A - Y_B)] / (\sum_i G_i + G_0)`,
    :math:`G_i \sim \mathrm{Exp}(1)`, :math:`G_0 \sim \mathrm{Gamma}(1)`, with ``x`` the
    per-question unbiased scores and ``Y = g(q)``, ``q ~ Beta(prior)`` (uniform under the
    hierarchical and robust models) for each model; see :func:`bayeseval.comparison.joint.dp_bootstrap`.
    """
    scope = check_choice(scope, "scope", SCOPES)
    method = check_choice(interval, "interval", METHODS)
    collapse = check_choice(collapse, "collapse", COLLAPSE)
    level = V.confidence(level, "level")
    draws = V.integer(draws, "draws", minimum=100)
    resamples = V.integer(resamples, "resamples", minimum=100)
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    rope_lh = parse_rope(rope)
    if labels is not None:  # the argument name shared with estimate / evaluate / compare_all
        names = labels
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and all(isinstance(x, str) for x in names)
            and names[0] != names[1]):
        raise V.InputTypeError(f"names must be two different strings, got {names!r}")
    names = tuple(names)
    metric_params = dict(metric_params)
    threshold = metric_params.get("threshold")
    raw, missing, ragged = thresholded({names[0]: A, names[1]: B}, metric, metric_params, score_range=score_range,
                                       missing=missing, ragged=ragged)
    binarised = raw[names[0]] is not A
    if binarised:  # 0/1 outcomes from here on
        A, B, score_range = raw[names[0]], raw[names[1]], None
    scored = any_scores([A, B], score_range)
    ca = as_counts(A, names[0], missing, ragged, score_range, scored)
    cb = as_counts(B, names[1], missing, ragged, score_range, scored)
    same_range({names[0]: ca, names[1]: cb})
    check_comparable({names[0]: ca, names[1]: cb}, scored, "compare")
    first_a, first_b = _first_trials(A), _first_trials(B)
    cb, order = align(ca, cb, names)
    if order is not None and first_b is not None:
        first_b = first_b[order]
    kw = dict(prior=prior, alpha0=alpha0, beta0=beta0, score_range=score_range,
              **binary_weights(metric_params, (ca, cb)))
    pa, pb = build(ca, metric, **kw), build(cb, metric, **kw)
    if binarised:
        label_threshold((pa, pb), threshold)
    if not scored:
        Side(pa, names[0]), Side(pb, names[1])  # refuses categorical outcomes and GeoSpectrum, naming the model
    span = float(pa.range[1] - pa.range[0])
    if rope_lh is not None:
        check_rope_span(rope_lh, -span, span, of=" of the difference, so every difference would be 'practically "
                                                 "equivalent'; give a region inside it")
    rng = np.random.default_rng(seed)
    rng_bayes, rng_boot, rng_perm = rng.spawn(3)

    xa, xb = question_scores(pa), question_scores(pb)
    delta, dx, notes = paired_difference(pa, pb, scope=scope, method=method, level=level, draws=draws,
                                         rng=rng_bayes, xa=xa, xb=xb)
    if isinstance(ca, Counts) and isinstance(cb, Counts) and ca.table.shape == cb.table.shape and \
            np.array_equal(ca.table, cb.table):
        notes.append(f"{names[0]} and {names[1]} have the same outcome counts on every question: if that is one "
                     "model's outcomes given twice, its difference is 0 by construction, whatever the interval says")
    p_ab = p_better(dx)
    rope_out = rope_probs = None
    if rope_lh is not None:
        rope_probs = (float(np.mean(dx < rope_lh[0])), float(np.mean((dx >= rope_lh[0]) & (dx <= rope_lh[1]))),
                      float(np.mean(dx > rope_lh[1])))
        rope_out = {"lo": rope_lh[0], "hi": rope_lh[1], "below": rope_probs[0], "inside": rope_probs[1],
                    "above": rope_probs[2]}
    decision = decide(level, p_ab, rope_probs)

    # per-model estimates (same scope, prior and seed), from the posteriors built above
    est = {name: summarise(post, scope=scope, method=method, level=level, draws=draws, seed=seed, model=name,
                           advise=False) for name, post in zip(names, (pa, pb))}

    # frequentist analyses on per-question unbiased scores
    boot = perm = ttest = wil = miller = effect = None
    if xa is None or xb is None:
        notes.append(f"{pa.spec.label} has no unbiased per-question estimate where k > n; "
                     "only the Bayesian comparison is reported")
    else:
        d = snap_ties(xa - xb)  # differences equal in exact arithmetic tie in the rank and permutation tests
        M = d.size
        what = f"mean per-question {pa.spec.label} difference = 0"
        boot = paired_bootstrap(d, resamples=resamples, level=level, rng=rng_boot, tests=what)
        perm = sign_flip_test(d, resamples=resamples, rng=rng_perm, tests=what)
        if M > 1:
            sd_d = float(d.std(ddof=1))
            z = float(ndtri(0.5 + level / 2))
            se = sd_d / math.sqrt(M)
            se_a = float(xa.std(ddof=1)) / math.sqrt(M)
            se_b = float(xb.std(ddof=1)) / math.sqrt(M)
            corr = float(np.corrcoef(xa, xb)[0, 1]) if xa.std() > 0 and xb.std() > 0 else None
            miller = {"delta": float(d.mean()), "se_paired": se, "se_unpaired": math.hypot(se_a, se_b),
                      "lo": float(d.mean()) - z * se, "hi": float(d.mean()) + z * se, "correlation": corr}
            ttest = paired_t_test(d, level=level, tests=what)
            if ttest is not None:
                effect = {"cohens_dz": float(d.mean()) / sd_d}
            else:
                notes.append("every question has the same difference; the t-test and effect size are undefined")
            wil = wilcoxon_test(d, tests=f"per-question {pa.spec.label} differences symmetric about 0")
    too_few, tentative = None, ""
    if perm is not None and rope_lh is not None and decision in ("A", "B"):
        # a ROPE only makes a win harder to claim: the sign-flip test must name the same side (without it the
        # posterior named a winner on 3 of 50 differing questions; tests/test_compare_review.py)
        says = perm["mid_p"] <= 1.0 - level and perm.statistic != 0
        if not says or (perm.statistic > 0) != (decision == "A"):
            differ = int(np.count_nonzero(d))  # d: the snapped differences above
            notes.append(f"the posterior puts {max(rope_probs[0], rope_probs[2]):.3f} of its mass beyond the ROPE, "
                         f"but the paired sign-flip test gives mid-p = {perm['mid_p']:.4g} ({differ} of {ca.M} "
                         "questions differ): too little evidence to name a winner at this level")
            decision = None
            if too_few_to_decide(differ, level):
                too_few = _too_few(differ, ca.M, level)
    if perm is None and decision in ("A", "B"):  # k > n: no sign-flip test; a handful of differing questions
        differ = differing_questions(ca, cb)  # cannot name a winner whatever their sign
        if too_few_to_decide(differ, level):
            decision, too_few = None, _too_few(differ, ca.M, level)
    if rope_lh is None and perm is not None:
        # the headline decision keeps its level: the paired sign-flip test (mid-p, Lancaster 1961) at
        # alpha = 1 - level decides, in the direction of the difference; the posterior alone over-decides
        # with few differing questions (a Bayesian bootstrap of a handful of one-sided differences is
        # near-certain: type-I 9-13% at M = 15-30, N = 1 in benchmarks/results_typei.md)
        test_says = perm["mid_p"] <= 1.0 - level and perm.statistic != 0
        side = ("A" if perm.statistic > 0 else "B") if test_says else None
        differ = int(np.count_nonzero(d))  # d: the snapped differences above
        if decision != side and side is None:
            notes.append(f"P({names[0]} > {names[1]}) = {p_ab:.3f}, but the paired sign-flip test gives mid-p = "
                         f"{perm['mid_p']:.4g} > {1 - level:.2g} ({differ} of {ca.M} questions differ): too "
                         "little evidence to name a winner at this level")
        decision = side
        if side is None and 0 < differ and too_few_to_decide(differ, level):  # even all one way could not decide
            too_few = _too_few(differ, ca.M, level)
        if side is not None and perm.p_value > 1.0 - level:  # decided on the mid-p only: say how thin it is
            tentative = (f" (tentative: {differ} of {ca.M} questions differ; the sign-flip p = "
                         f"{perm.p_value:.4g} > {1 - level:.2g}, its mid-p {perm['mid_p']:.4g} decides)")
            notes.append(f"the verdict is borderline ({differ} of {ca.M} questions differ): the sign-flip test's "
                         f"p = {perm.p_value:.4g} would not decide at {pct(level)}; its mid-p {perm['mid_p']:.4g} does")
    mc = None if scored else mcnemar_tests(ca, cb, first_a, first_b, collapse)
    if mc is not None and mc.method.startswith("clustered") and ca.M < SMALL_CLUSTERED:
        notes.append(f"the clustered McNemar p-value is a large-sample (chi-square) approximation over questions; "
                     f"with {ca.M} questions it can be far from exact (4 of 4 questions won give p = 0.0455; the exact "
                     "two-sided sign-flip p is 0.125): read the sign-flip row instead")
    if scored:
        notes.append("scores, not 0/1 outcomes: McNemar does not apply; the sign-flip, bootstrap, t and Wilcoxon "
                     "rows test the mean per-question score difference")
    elif pa.spec.label != "avg":  # McNemar is about per-trial correctness: say so beside any other metric
        mc = replace(mc, method=f"{mc.method} [tests avg, not {pa.spec.label}]")
        notes.append(f"McNemar compares per-trial correctness (avg); it is not evidence about {pa.spec.label}, "
                     f"which the Bayesian difference, bootstrap, permutation, t and Wilcoxon rows test")
    return Comparison(
        names=names, metric=pa.spec.label, M=ca.M, N=(_n_label(ca), _n_label(cb)), estimates=est, delta=delta,
        p_a_better=p_ab, rope=rope_out,
        verdict=too_few or verdict_text(names, decision, rope_lh is not None, rope_out, level) + tentative,
        bootstrap=boot,
        permutation=perm, mcnemar=mc, t_test=ttest, wilcoxon=wil, miller=miller, effect_size=effect, seed=seed,
        notes=tuple(notes), decision=decision, _draws=dx,
    )


def _n_label(c: Counts):
    return int(c.n[0]) if not c.ragged else f"{int(c.n.min())}-{int(c.n.max())}"
