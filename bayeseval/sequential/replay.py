r"""Replay a finished paired run as if it were sampled live, and count what sequential stopping saves.

:func:`replay` takes two models' complete outcome matrices on the same questions (M questions x N
trials each) and, ``replays`` times, takes the questions in a fresh random order and, for each, ``trials``
of its N trials (a random subset, per model), feeds the per-question scores to a
:class:`~bayeseval.sequential.SequentialCompare` and stops when its rule holds.  It reports:

* the **full-data decision**: :func:`bayeseval.compare` on all M x N outcomes (its headline verdict,
  population scope: what a report of the full run would say);
* the **sequential design**: samples spent until it stopped (mean and median), and how often it reached
  the full-data decision, the opposite one (an error) or none (it ran out of questions: undecided);
* a **fixed design with the same error rates**: the textbook size of a two-sided paired test at level
  ``alpha`` with the sequential design's rate of reaching the full-data decision as its power (at most
  99.5%), ``m = (z_{1-alpha/2} + z_power)^2 sigma^2 / delta^2`` draws, from the *exact* mean ``delta`` and
  variance ``sigma^2`` of one draw's difference (hypergeometric over each question's recorded trials); the
  paired t-test's power at that size is then checked by subsampling (``fixed_agree``).  It is an *oracle*
  design (sized knowing the effect), the strongest fixed competitor there is (sized only when the
  sequential design reaches the decision in at least 80% of replays).  Taking instead the first size at
  which a simulated power curve crosses the target picks a size whose true power is lower (the curve's
  noise crosses early: 98.6% instead of 99.5% on Game of 24 with 400 subsamples per size);
* the sequential design's **type-I error on these data**: the same study on ``null_replays`` replays in
  which each draw's two models are swapped at random (the differences' signs flipped), so the mean
  difference is exactly 0 with the data's own spread; the share that decided a winner by the budget;
* the ratios "full data / sequential" and "fixed / sequential".

Questions are drawn with replacement and every draw gets fresh trials, so the sequence is exact for
the mean over these questions (benchmark scope).  Drawing questions at random pays for the spread
between questions, which the full data (every question, every trial) does not: where the full data
decides only by a small margin, the sequential study may use all the data and still not decide.

>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> p = rng.beta(1, 1, size=300)
>>> A = rng.binomial(1, np.clip(p + 0.2, 0, 1)[:, None], size=(300, 20))
>>> B = rng.binomial(1, p[:, None], size=(300, 20))
>>> r = replay(A, B, trials=1, replays=20, seed=0, fixed_replays=40)
>>> r.full_decision, r.agree > 0.9, r.full_samples / r.mean_samples > 2, r.null_decided <= 0.05
('A better', True, True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from .. import validate as V
from .._protocol import Result
from .._text import text_table
from ..scores import Scores, category_values, to_outcomes
from ..targets import parse
from .confseq import capital_at
from .monitor import SequentialCompare, parse_until
from .scoring import unbiased_table

__all__ = ["replay", "Replay"]

#: The fixed design must reach the sequential study's rate of the full data's decision, but at most this
#: power: 200 replays that all agree say the rate is above about 98.5%, not that it is 100%.
FIXED_POWER_CAP = 0.995


def _as_matrix(X: Any, name: str, w: Any, score_range: Any) -> tuple[np.ndarray, str, Any]:
    """The raw matrix (float, NaN = missing) and its kind: 'binary', 'graded' (weights) or 'scores'."""
    out = to_outcomes(X, w, missing=np.nan, score_range=score_range, name=name)
    arr = X.matrix() if hasattr(X, "matrix") else X
    arr = np.asarray(arr, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a questions x trials matrix, got shape {arr.shape}")
    if isinstance(out, Scores):
        return arr, "scores", (out.lo, out.hi)
    if not out.is_binary or w is not None:
        if w is None:
            raise ValueError(f"{name} holds categories above 1; give their weights w")
        return arr, "graded", np.asarray(w, dtype=np.float64)
    return arr, "binary", None


def _aligned(A: Any, B: Any) -> Any:
    """``B`` in ``A``'s question order where both are DataFrames with the same question ids (the index) in
    another order, as :func:`bayeseval.compare` pairs them; different ids are an error.  Other inputs pair by
    row, as documented."""
    import pandas as pd

    if not (isinstance(A, pd.DataFrame) and isinstance(B, pd.DataFrame)) or A.index.equals(B.index):
        return B
    if A.index.has_duplicates or B.index.has_duplicates or set(A.index) != set(B.index):
        raise ValueError("A and B are DataFrames whose indexes (question ids) differ; replay pairs questions by id: "
                         "give both the same questions, each once")
    return B.loc[A.index]


def _scores_for(arr: np.ndarray, kind: str, extra: Any, table: np.ndarray | None, pick: np.ndarray) -> np.ndarray:
    """Per-question score from the chosen trials ``pick`` (M, trials) of ``arr``."""
    chosen = np.take_along_axis(arr, pick, axis=1)
    if kind == "binary":
        return table[chosen.sum(axis=1).astype(np.int64)]
    if kind == "graded":
        return extra[chosen.astype(np.int64)].mean(axis=1)
    return chosen.mean(axis=1)


def _draws(rng: np.random.Generator, arr_a, arr_b, obs_a, obs_b, trials: int, how, length: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """A live study replayed on the recorded trials: ``length`` draws, each a question drawn uniformly *with
    replacement* and, per model, a fresh random ``trials``-subset of that question's recorded trials (drawn
    independently of every other draw).

    Given everything before it, a draw's score then has exactly the mean of the full data's per-question
    unbiased scores (the subset is a uniformly random ``trials``-subset): the sequence targets the value the
    full data report, and the replay never runs out of data; it is stopped at the full data's sample count.
    """
    M = arr_a.shape[0]
    kind, extra, table = how
    q = rng.integers(0, M, size=length)
    xa = _scores_for(arr_a[q], kind, extra, table, _pick(rng, obs_a[q], trials))
    xb = _scores_for(arr_b[q], kind, extra, table, _pick(rng, obs_b[q], trials))
    return xa, xb


def _pick(rng: np.random.Generator, observed: np.ndarray, trials: int) -> np.ndarray:
    """``trials`` random observed trials per question (rows), without replacement: those with the ``trials``
    smallest random keys."""
    keys = rng.random(observed.shape)
    keys[~observed] = np.inf
    if trials == 1:  # the same trial as the sort's first, several times faster
        return keys.argmin(axis=1)[:, None]
    return np.argsort(keys, axis=1)[:, :trials]


@dataclass(frozen=True, repr=False)
class Replay(Result):
    """What :func:`replay` measured; see :meth:`summary`."""

    names: tuple
    metric: str
    M: int
    N: tuple
    trials: int
    alpha: float
    until: str
    replays: int
    full_decision: str | None
    full_p_a_better: float
    full_samples: int
    mean_samples: float
    median_samples: float
    mean_questions: float
    agree: float
    other: float
    undecided: float
    fixed_questions: int | None
    fixed_samples: int | None
    fixed_agree: float | None
    fixed_note: str | None
    null_replays: int
    null_decided: float | None
    seed: int
    samples: np.ndarray = field(repr=False, default=None)
    decisions: np.ndarray = field(repr=False, default=None)

    @property
    def savings(self) -> float:
        """Full-data samples over the sequential design's mean samples."""
        return self.full_samples / self.mean_samples

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in (
            "names", "metric", "M", "N", "trials", "alpha", "until", "replays", "full_decision", "full_p_a_better",
            "full_samples", "mean_samples", "median_samples", "mean_questions", "agree", "other", "undecided",
            "fixed_questions", "fixed_samples", "fixed_agree", "fixed_note", "null_replays", "null_decided",
            "seed")} | {"savings": self.savings}

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"samples": self.samples, "decision": self.decisions})

    def summary(self) -> str:
        a, b = self.names
        full = {"A better": f"{a} better", "B better": f"{b} better"}.get(self.full_decision, "no clear difference")
        rows = [["full data", f"{self.M} questions x {self.N[0]}/{self.N[1]} trials", f"{self.full_samples:,}",
                 "1.00", full + f" (compare: P(A>B) = {self.full_p_a_better:.3f})"]]
        if self.full_decision is None:
            outcome = f"undecided {self.undecided:.1%}, decided {self.other:.1%} (the full data decide nothing)"
        else:
            outcome = f"same {self.agree:.1%}, opposite {self.other:.1%}, undecided {self.undecided:.1%}"
        rows.append([f"sequential ({self.trials} trial(s) per draw)", f"{self.mean_questions:.1f} draws (mean)",
                     f"{self.mean_samples:,.0f} (median {self.median_samples:,.0f})",
                     f"{self.savings:.2f}" if self.agree > 0 else "-", outcome])
        if self.fixed_samples is not None:
            rows.append([f"fixed, same rate, t-test ({self.trials} trial(s) per draw)", f"{self.fixed_questions} draws",
                         f"{self.fixed_samples:,}", f"{self.full_samples / self.fixed_samples:.2f}",
                         f"same {self.fixed_agree:.1%}"])
        else:
            rows.append(["fixed, same rate", "not sized", "-", "-", self.fixed_note])
        if self.null_decided is not None:
            rows.append(["sequential, null replays (A and B swapped at random per draw)",
                         f"{self.null_replays} replays",
                         "-", "-", f"decided a winner {self.null_decided:.1%} (type-I error, alpha {self.alpha:g})"])
        head = (f"Replay of {a} vs {b}, {self.metric}: {self.replays} replays, until '{self.until}', alpha "
                f"{self.alpha:g}; a replay that has not stopped by the full data's sample count is undecided")
        if self.fixed_samples is not None:
            head += ("\nfixed design: the paired test's size for the sequential study's rate of the full data's "
                     f"decision as power (at most {FIXED_POWER_CAP:.1%}), from the exact mean and variance of a "
                     f"draw (t-test power there by subsampling: {self.fixed_agree:.1%}); sequential saves "
                     f"{self.fixed_samples / self.mean_samples:.2f}x against it")
        return "\n".join([head, text_table(["design", "size", "samples", "full / design", "decision"], rows)])


def replay(A: Any, B: Any, *, metric: Any = "avg", trials: int = 1, replays: int = 200, until: Any = None,
           alpha: float = 0.05, seed: int = 0, names=("A", "B"), w: Any = None, score_range: Any = None,
           fixed_replays: int | None = None, null_replays: int | None = None, **metric_params) -> Replay:
    """Replay a paired run (A and B on the same questions, rows in the same order) as a sequential study.

    Parameters
    ----------
    A, B : outcome matrices (questions x trials; NaN marks a missing trial), DataFrames or runs with
        ``matrix()``.  0/1, graded (weights ``w``, metric avg) or scores (``score_range``, metric avg).
    metric : what is compared (its per-question unbiased score; ``trials`` must be at least its k).
    trials : trials per question and model in the sequential design.
    replays : random orders replayed.
    until : stopping rule (words or :class:`~bayeseval.sequential.StopRule`; default ``decided``).
    alpha : the sequence's error level, and the fixed design's test level.
    fixed_replays : subsamples checking the fixed design's t-test power (default ``max(replays, 400)``).
    null_replays : replays with A and B swapped at random per draw, for the type-I error (default ``replays``).
    """
    names = tuple(map(str, names))
    trials = V.integer(trials, "trials", minimum=1)
    replays = V.integer(replays, "replays", minimum=1)
    fixed_replays = max(replays, 400) if fixed_replays is None else V.integer(fixed_replays, "fixed_replays",
                                                                              minimum=1, limit="replays")
    null_replays = replays if null_replays is None else V.integer(null_replays, "null_replays", minimum=0,
                                                                  limit="replays")
    seed = V.integer(seed, "seed", minimum=0)
    alpha = V.probability(alpha, "alpha")
    if 0.5 + (1.0 - alpha) / 2 >= 1.0:  # the fixed design's test runs at level 1 - alpha: it would round to 1
        raise V.ArgumentError("{alpha} = {a!r} is too small: the fixed design's test level (one minus it) rounds to "
                              "level 1 in double precision; give at least 1e-15", "alpha", a=alpha)
    rule = parse_until(until)
    spec = parse(metric, **metric_params)
    B = _aligned(A, B)
    arr_a, kind_a, extra_a = _as_matrix(A, "A", w, score_range)
    arr_b, kind_b, extra_b = _as_matrix(B, "B", w, score_range)
    if kind_a != kind_b:
        raise ValueError(f"A holds {kind_a} outcomes and B {kind_b}; both must be of one kind")
    if arr_a.shape[0] != arr_b.shape[0]:
        raise ValueError(f"A has {arr_a.shape[0]} questions and B {arr_b.shape[0]}; replay needs the same questions")
    obs_a, obs_b = ~np.isnan(arr_a), ~np.isnan(arr_b)
    few = np.flatnonzero((obs_a.sum(axis=1) < trials) | (obs_b.sum(axis=1) < trials))
    if few.size:
        raise ValueError(f"question {int(few[0])} has fewer than trials={trials} observed trials in A or B "
                         f"({few.size} such questions); lower trials")
    if kind_a == "binary":
        table, (lo, hi) = unbiased_table(spec, trials)
    else:
        if spec.name not in ("avg", "avg@n"):
            raise ValueError(f"{kind_a} outcomes replay with metric avg only, not {spec.label}")
        table = None
        lo, hi = (float(extra_a.min()), float(extra_a.max())) if kind_a == "graded" else extra_a
    from ..comparison import compare

    if kind_a == "graded":  # compare reads graded outcomes as scores: each trial's weight, in the weights' range
        fa, fb, full_range = category_values(arr_a, extra_a), category_values(arr_b, extra_a), (lo, hi)
    else:
        fa, fb, full_range = A, B, score_range
    full = compare(fa, fb, metric=spec.label if spec.name != "custom" else spec.coefficients, names=names,
                   missing=np.nan, score_range=full_range, level=1 - alpha, seed=seed)
    full_decision = {"A": "A better", "B": "B better"}.get(full.decision)
    full_samples = int(obs_a.sum() + obs_b.sum())
    M = arr_a.shape[0]
    rng = np.random.default_rng(seed)
    grid = 1001 if rule.width is None else None  # the null and ROPE edges are exact points; only a width needs a fine grid
    budget = max(1, full_samples // (2 * trials))  # draws: a replay may spend as many samples as the full data
    how = (kind_a, extra_a, table)

    span = hi - lo
    plain = rule.decided and rule.rope is None and rule.width is None and rule.max_questions is None \
        and rule.max_samples is None

    def study(xa: np.ndarray, xb: np.ndarray) -> tuple[str | None, float, float]:
        """One sequential study on one replay's draws: its decision, draws and samples until it stopped
        (undecided: the whole budget)."""
        seq = SequentialCompare(lo, hi, alpha=alpha, until=rule, names=names, grid=grid)
        start, step = 0, 64
        while start < xa.size:  # fed in growing chunks: a study that stops early costs little
            st = seq.update(xa[start:start + step], xb[start:start + step], samples=trials)
            if st.stop:
                break
            start, step = start + step, 2 * step
        decision = st.decision if st.decision in ("A better", "B better", "equivalent") else None
        return (decision, st.stopped_at if st.stopped_at is not None else xa.size,
                st.samples_at_stop if st.samples_at_stop is not None else full_samples)

    def studies(rng: np.random.Generator, count: int, swap: bool) -> list[tuple[str | None, float, float]]:
        """``count`` studies on fresh replays (with A and B swapped at random per draw if ``swap``), drawn in
        blocks.  Under the rule ``decided`` alone a study can stop only once its capital against a difference of
        0 reaches ``log(1/alpha)`` (the null must leave the sequence); where it never does within the budget
        (:func:`_cannot_decide`, one capital for the whole block) the study is undecided without its grid."""
        out = []
        block = max(1, _BLOCK // budget)
        for start in range(0, count, block):
            pairs = []
            for _ in range(min(block, count - start)):
                xa, xb = _draws(rng, arr_a, arr_b, obs_a, obs_b, trials, how, budget)
                if swap:
                    flip = rng.random(budget) < 0.5
                    xa, xb = np.where(flip, xb, xa), np.where(flip, xa, xb)
                pairs.append((xa, xb))
            skip = _cannot_decide(pairs, span, alpha) if plain else np.zeros(len(pairs), dtype=bool)
            out += [(None, budget, full_samples) if s else study(xa, xb) for s, (xa, xb) in zip(skip, pairs)]
        return out

    runs = studies(rng, replays, swap=False)
    decisions = np.array([d for d, _, _ in runs], dtype=object)
    asked = np.array([q for _, q, _ in runs], dtype=np.float64)
    spent = np.array([n for _, _, n in runs], dtype=np.float64)
    nrng = np.random.default_rng(seed + 2)
    null_decided = float(np.mean([d in ("A better", "B better") for d, _, _ in studies(nrng, null_replays, swap=True)])
                         ) if null_replays else None
    agree = float(np.mean(decisions == full_decision)) if full_decision else float(np.mean(decisions == None))  # noqa: E711
    other = float(np.mean([d is not None and d != full_decision for d in decisions]))
    undecided = float(np.mean(decisions == None))  # noqa: E711
    fixed_m, fixed_rate, fixed_note = None, None, None
    if full_decision is None:
        fixed_note = "the full data decide nothing, so there is no decision to size a fixed design for"
    elif agree < 0.8:  # a fixed design matching a rarely-deciding study means nothing
        fixed_note = f"the sequential design reaches the full data's decision in {agree:.1%} of replays (< 80%)"
    else:
        sign = 1.0 if full_decision == "A better" else -1.0
        delta, var = _draw_moments(arr_a, arr_b, obs_a, obs_b, trials, how)
        if sign * delta <= 0:
            fixed_note = "the draws' mean difference does not point the way of the full data's decision"
        elif var == 0:
            fixed_note = "every draw's difference is the same number: no test is needed"
        else:
            power = min(agree, FIXED_POWER_CAP)
            z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
            fixed_m = max(2, math.ceil(z * z * var / delta**2))
            frng = np.random.default_rng(seed + 1)
            hits = 0
            for _ in range(fixed_replays):  # the t-test's power at that size, on fresh replays
                xa, xb = _draws(frng, arr_a, arr_b, obs_a, obs_b, trials, how, fixed_m)
                hits += bool(_t_rejects(xa - xb, alpha, sign)[-1])
            fixed_rate = hits / fixed_replays
    return Replay(
        names=names, metric=spec.label, M=M, N=(arr_a.shape[1], arr_b.shape[1]), trials=trials, alpha=alpha,
        until=rule.words(), replays=replays, full_decision=full_decision, full_p_a_better=float(full.p_a_better),
        full_samples=full_samples, mean_samples=float(spent.mean()), median_samples=float(np.median(spent)),
        mean_questions=float(asked.mean()), agree=agree, other=other, undecided=undecided,
        fixed_questions=fixed_m, fixed_samples=None if fixed_m is None else 2 * trials * fixed_m,
        fixed_agree=fixed_rate, fixed_note=fixed_note, null_replays=null_replays, null_decided=null_decided,
        seed=seed, samples=spent, decisions=decisions,
    )


def _draw_moments(arr_a, arr_b, obs_a, obs_b, trials: int, how) -> tuple[float, float]:
    """Exact mean and variance of one draw's difference ``x_a - x_b`` (see :func:`_draws`): a question uniformly,
    then per model the score of a uniformly random ``trials``-subset of its recorded trials (independently).

    0/1 outcomes: ``s ~ Hypergeom(n_q, c_q, trials)`` correct in the subset, score ``table[s]``.  Graded and
    scores: the subset mean of the recorded values, variance ``sigma_q^2 / trials * (n_q - trials) / (n_q - 1)``
    (sampling without replacement)."""
    kind, extra, table = how

    def per_question(arr, obs):
        n = obs.sum(axis=1)
        if kind == "binary":
            c = np.where(obs, arr, 0.0).sum(axis=1)
            pmf = stats.hypergeom.pmf(np.arange(trials + 1)[None, :], n[:, None], c[:, None], trials)
            return pmf @ table, pmf @ (table * table)
        vals = extra[np.where(obs, arr, 0).astype(np.int64)] if kind == "graded" else np.where(obs, arr, 0.0)
        mean = np.where(obs, vals, 0.0).sum(axis=1) / n
        pop_var = np.where(obs, (vals - mean[:, None]) ** 2, 0.0).sum(axis=1) / n
        fpc = np.where(n > 1, (n - trials) / np.maximum(n - 1, 1), 0.0)
        return mean, mean**2 + pop_var / trials * fpc

    ma, sa = per_question(arr_a, obs_a)
    mb, sb = per_question(arr_b, obs_b)
    delta = float(np.mean(ma - mb))
    second = float(np.mean(sa + sb - 2.0 * ma * mb))
    return delta, max(second - delta**2, 0.0)


#: draws x replays held at once while replaying (a block's draws take about 64 MB; its one-candidate capital
#: works in a few arrays of half that size each)
_BLOCK = 1 << 22
#: how far below log(1/alpha) the one-candidate capital must stay for a study to be called undecided without
#: its grid (the grid computes the same capital with the sums in another order; they agree to ~1e-13)
_MARGIN = 1e-6


def _cannot_decide(pairs: list, span: float, alpha: float) -> np.ndarray:
    """For each replay's draws ``(xa, xb)``: does the confidence sequence for the mean difference keep 0 in it at
    every step?  Then the rule ``decided`` never stops it.  The capital against a difference of 0 is the one that
    :class:`~bayeseval.sequential.SequentialCompare` computes at its null (aGRAPA bets on ``(d + span) / (2
    span)`` against 0.5; :func:`~bayeseval.sequential.capital_at`), and the null leaves the sequence only once
    its running maximum reaches ``log(1/alpha)``."""
    u = np.stack([(xa - xb + span) / (2.0 * span) for xa, xb in pairs])
    logk = capital_at(np.clip(u, 0.0, 1.0), 0.5, alpha, bets="agrapa")[:, -1]
    return logk < math.log(1.0 / alpha) - _MARGIN


def _t_rejects(d: np.ndarray, alpha: float, sign: float) -> np.ndarray:
    """For every prefix length m: does the two-sided one-sample t-test of the first m differences reject
    at ``alpha`` in the direction ``sign``?"""
    m = np.arange(1, d.size + 1, dtype=np.float64)
    mean = np.cumsum(d) / m
    var = np.maximum(np.cumsum(d * d) - m * mean**2, 0.0) / np.maximum(m - 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / m)
    crit = stats.t.ppf(1 - alpha / 2, np.maximum(m - 1, 1))
    return (m >= 2) & (var > 0) & (sign * t > crit)
