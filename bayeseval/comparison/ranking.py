r"""Many models on the same questions: :func:`compare_all` and its :class:`Ranking`.

Each model is counted once and its posterior built once.  Rank probabilities, ``P(best)`` and
expected ranks come from one joint posterior draw of all models' scores: in the population scope
the Dirichlet-process posterior over questions with weights shared by every model (so question
difficulty is shared; :func:`~bayeseval.comparison.joint.dp_bootstrap`), in the benchmark scope
the models' independent posteriors.  Pairwise decisions run only for the pairs asked: models
adjacent in the ranking by default (``K - 1`` pairs), every pair with ``pairs="all"``, or a list of
pairs.  Each pair's posterior is the one :func:`~bayeseval.compare` gives it: its difference ``A - B``
(the posterior mean) and its p-value are exactly compare's with the pair's seed, while its interval and
``P(A > B)`` are read from the joint draws above (the models' own, before ``shrink`` pools them) wherever the
pair's posterior is the one they were drawn from, so they agree with compare's within Monte-Carlo error and
with the rank probabilities draw for draw; where the ranking draws another posterior than the pair's (some
models without an unbiased per-question score, or in the benchmark scope only some with one trial), one joint
draw of the pair's posterior serves those pairs.  A pair then costs its test and a difference of two columns
of draws, not new draws: 1,225 pairs of 50 models on 500 questions x 8 trials took 2.5 s, not 12.3, and 190
pairs of pass@4 from one trial (k > n) 13 s, not about 155 (``benchmarks/results_bench_rank_pairs.md``).  The
p-values are adjusted over the pairs tested (Holm; Benjamini-Hochberg) by
:func:`~bayeseval.comparison.paired_tests.adjust`.

>>> import numpy as np
>>> rng = np.random.default_rng(3)
>>> p = rng.beta(2, 2, 300)
>>> R = {f"m{j}": (rng.random((300, 2)) < np.clip(p + 0.06 * j, 0, 1)[:, None]).astype(int) for j in range(3)}
>>> rk = compare_all(R, seed=1)
>>> rk.models, rk.p_best["m2"] > rk.p_best["m1"] > rk.p_best["m0"]
(['m2', 'm1', 'm0'], True)
>>> [(p["a"], p["b"]) for p in rk.pairs]
[('m2', 'm1'), ('m1', 'm0')]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import validate as V
from .._protocol import Result, check_choice
from .._text import html_table, pct, text_table
from ..posterior import METHODS, SCOPES, build
from ..scores import any_scores, label_threshold, same_range, thresholded
from ..results import DEFAULT_DRAWS, DEFAULT_SCOPE, DEFAULT_SEED, POSTERIOR_INTERVAL, summarise
from .joint import (Side, base_measure, dp_bootstrap, dp_posterior_moments, population_draws, population_moments,
                    score_codes)
from .paired import (align, as_counts, binary_weights, check_comparable, decide, differing_questions, p_better,
                     delta_interval, paired_difference, question_scores, too_few_to_decide)
from .paired_tests import DEFAULT_RESAMPLES, adjust, paired_bootstrap, sign_flip_test, snap_ties
from .pooling import pooled_draws

__all__ = ["compare_all", "Ranking", "PAIRS"]

PAIRS = ("adjacent", "all")
SHRINK_QUESTIONS = 5  # shrink=True needs at least this many questions per model (see compare_all)


@dataclass(frozen=True, eq=False, repr=False)
class Ranking(Result):
    """Result of :func:`compare_all`: scores, rank probabilities and the pairwise comparisons asked for.

    ``pairs`` holds one dict per tested pair: ``a``, ``b``, ``delta``, ``lo``, ``hi``,
    ``p_a_better``, ``decision`` (``"A"``, ``"B"`` or None: the pair's paired test -- permutation mid-p or
    bootstrap p -- Holm-adjusted over the tested pairs, at ``1 - level``, in the direction of the
    difference), ``p_value`` and its adjustments ``p_holm``, ``p_bh`` over the tested pairs.  ``pair_set`` says
    which pairs were tested ("adjacent", "all" or "custom").
    """

    metric: str
    scope: str
    level: float
    models: list  # sorted by score, best first
    scores: dict  # name -> Estimate
    rank_probs: np.ndarray  # (K, K): row = model (in ``models`` order), column = rank 1..K
    expected_rank: dict
    p_best: dict
    pairs: list
    test: str
    seed: int
    pair_set: str = "adjacent"
    shrink: dict | None = None  # compare_all(shrink=True): the spread tau of the models' scores, {median, lo, hi}
    # (its 95% interval, whatever ``level``)

    def table(self) -> list[tuple]:
        rows = []
        for m in self.models:
            e = self.scores[m]
            rows.append((m, "-" if e.value is None else f"{e.value:.4f}", f"{e.mean:.4f}",
                         f"[{e.lo:.4f}, {e.hi:.4f}]", f"{self.p_best[m]:.3f}", f"{self.expected_rank[m]:.2f}"))
        return rows

    def pair_table(self) -> list[tuple]:
        def pv(x):
            return "-" if x is None else f"{x:.4g}"

        return [(p["a"], p["b"], f"{p['delta']:+.4f}", f"[{p['lo']:+.4f}, {p['hi']:+.4f}]", f"{p['p_a_better']:.3f}",
                 pv(p["p_value"]), pv(p["p_holm"]), pv(p["p_bh"])) for p in self.pairs]

    _HEAD = ("model", "value", "mean", "interval", "P(best)", "E[rank]")
    _PAIR_HEAD = ("A", "B", "A - B", "interval", "P(A>B)", "p", "p Holm", "p BH")

    def summary(self) -> str:
        which = {"adjacent": "adjacent pairs in the ranking", "all": "all pairs"}.get(self.pair_set, "the pairs asked")
        head = (f"{self.metric}, {self.scope} scope, {pct(self.level)} intervals; p-values: {self.test} test on "
                f"{which}, adjusted over the {len(self.pairs)} tested (Holm; Benjamini-Hochberg)")
        if self.shrink is not None:
            t = self.shrink
            head += (f"\nP(best), ranks, A - B and P(A>B): the models' scores partially pooled (exchangeable normal "
                     f"prior; spread tau {t['median']:.4g}, 95% [{t['lo']:.4g}, {t['hi']:.4g}]); the scores and the "
                     "tests are each model's own")
        return "\n\n".join([head, text_table(self._HEAD, self.table()), text_table(self._PAIR_HEAD, self.pair_table())])

    def _repr_html_(self) -> str:
        return html_table(self._HEAD, self.table()) + html_table(self._PAIR_HEAD, self.pair_table())

    def confidence_interval(self, level: float | None = None, method: str | None = None, *, model: str | None = None):
        """Each model's credible interval ``{model: (lo, hi)}``, or one model's ``(lo, hi)`` with ``model=``."""
        if method is not None:
            check_choice(method, "method", METHODS)  # posterior intervals, as the ranking's
        if model is not None:
            if model not in self.scores:
                raise KeyError(f"no model {model!r}; models: {self.models}")
            return self.scores[model].confidence_interval(level, method)
        return {m: self.scores[m].confidence_interval(level, method) for m in self.models}

    def to_frame(self):
        """Models sorted by score with P(best), expected rank and P(rank = r) columns (numeric)."""
        import pandas as pd

        df = pd.DataFrame.from_records([self.scores[m].to_dict() for m in self.models])
        df["p_best"] = [self.p_best[m] for m in self.models]
        df["expected_rank"] = [self.expected_rank[m] for m in self.models]
        for r in range(len(self.models)):
            df[f"p_rank_{r + 1}"] = self.rank_probs[:, r]
        return df

    def pairs_frame(self):
        """The tested pairs, one numeric row each."""
        import pandas as pd

        return pd.DataFrame.from_records(self.pairs)

    def to_dict(self) -> dict:
        return {
            "metric": self.metric, "scope": self.scope, "level": self.level, "test": self.test, "seed": self.seed,
            "pair_set": self.pair_set, "shrink": self.shrink,
            "models": [{**self.scores[m].to_dict(), "p_best": self.p_best[m], "expected_rank": self.expected_rank[m],
                        "p_rank": self.rank_probs[i].tolist()} for i, m in enumerate(self.models)],
            "pairs": [{k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in p.items()}
                      for p in self.pairs],
        }


def model_dict(models: Any, what: str = "compare_all") -> dict:
    """``{name: outcomes}`` from a dict or an :class:`~bayeseval.io.OutcomeSet` (at least two models)."""
    if isinstance(models, dict):
        out = dict(models)
    elif hasattr(models, "names") and hasattr(models, "counts"):
        datasets = getattr(models, "datasets", None)
        if isinstance(datasets, list) and len(datasets) > 1:
            raise V.ArgumentError("{models} holds several datasets ({names}); models are ranked on one: pass "
                                  "models.select(datasets=[NAME])", "models", names=", ".join(map(repr, datasets)))
        out = {name: models.counts(name) for name in models.names()}
    else:
        raise V.InputTypeError(f"models must be a dict name -> outcomes or an outcome file, got {V.describe(models)}")
    if len(out) < 2:
        raise ValueError(f"{what} needs at least two models, got {len(out)}")
    if not all(isinstance(k, str) for k in out):
        raise V.InputTypeError("model names must be strings")
    return out


def _pair_list(pairs: Any, names: list, ranked: list) -> tuple[list[tuple[int, int]], str]:
    """The pairs to test as (i, j) indices into ``names`` (presented as ``names[i]`` vs ``names[j]``)."""
    index = {k: i for i, k in enumerate(names)}
    if isinstance(pairs, str):
        kind = check_choice(pairs, "pairs", PAIRS)
        if kind == "all":
            return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))], "all"
        return [(index[a], index[b]) for a, b in zip(ranked, ranked[1:])], "adjacent"
    try:
        pairs = list(pairs)  # a generator is read once
        asked = [tuple(p) for p in pairs]
    except TypeError:
        raise V.InputTypeError(f"pairs must be 'adjacent', 'all' or a list of (model, model) pairs, "
                               f"got {V.describe(pairs)}") from None
    out, seen = [], {}
    for p, given in zip(asked, pairs):
        if isinstance(given, str) or len(p) != 2 or p[0] == p[1] or any(x not in index for x in p):
            raise ValueError(f"pairs: each pair must name two different models of {names}, got {given!r}")
        key = frozenset(p)
        if key in seen:  # a pair tested twice would count twice in the adjustment
            raise ValueError(f"pairs: {given!r} repeats {seen[key]!r}; name each pair once (the adjustment family "
                             "is the pairs tested)")
        seen[key] = given
        out.append((index[p[0]], index[p[1]]))
    if not out:
        raise ValueError("pairs must name at least one pair")
    return out, "custom"


class _PairDraws:
    """Each pair's posterior difference ``(mean, sd, draws)`` in the posterior that
    :func:`~bayeseval.comparison.paired.paired_difference` gives the pair, its draws read from draws of all the
    models made once.

    The mean and sd are the pair's closed forms, the same numbers as ``paired_difference``'s.  The draws are the
    columns of ``joint`` (the rank probabilities' draws, before any pooling) where the pair's posterior is the one
    they were drawn from: the Dirichlet-process posterior over questions of all models' per-question scores (its
    marginal for two models is the pair's own: the same weights over questions, an independent pseudo-question per
    model, one studentizing scale per draw), the Bayesian bootstrap of each model's per-question posterior (finer
    groups of questions, so fewer drawn as their normal limit), or the models' independent posteriors.  Where the
    ranking draws another posterior than the pair's (some models have no unbiased per-question score, or in the
    benchmark scope only some have one trial), one Dirichlet-process draw of the models that have the pair's
    posterior serves those pairs.  A pair costs a difference of two columns, not ``draws x M`` new weights.
    """

    def __init__(self, names, posts, X, codes, trials, scope, joint_law, joint, sides, draws, rng):
        self.names, self.posts, self.X, self.codes, self.trials = names, posts, X, codes, trials
        self.scope, self.joint_law, self.joint, self.sides, self.draws, self.rng = (scope, joint_law, joint, sides,
                                                                                     draws, rng)
        first = posts[names[0]]
        self.c, self.base = first.C[:, 0], base_measure(first)
        # the joint draws use the first model's payoff and prior pseudo-question, a pair its first model's
        self.same_base = all(np.array_equal(posts[k].C[:, 0], self.c) and base_measure(posts[k]) == self.base
                             for k in names[1:])
        self._dp, self._benchmark = {}, {}

    def law(self, i: int, j: int) -> str:
        """The posterior ``paired_difference`` takes for models ``i`` and ``j``."""
        if self.X[i] is None or self.X[j] is None:
            return "questions" if self.scope == "population" else "benchmark"
        if self.scope == "population":
            return "dp"
        return "dp one trial" if self.trials[i] == 1 and self.trials[j] == 1 else "benchmark"

    def _dp_draws(self, law: str) -> tuple[np.ndarray, dict]:
        """Draws of the models a Dirichlet-process pair can involve, and each model's column in them."""
        if law == self.joint_law:
            return self.joint, {m: m for m in range(len(self.names))}
        if law not in self._dp:
            cols = [m for m, x in enumerate(self.X) if x is not None and (law == "dp" or self.trials[m] == 1)]
            _, _, x = dp_bootstrap(np.column_stack([self.X[m] for m in cols]), self.c, self.base, self.draws,
                                   self.rng, studentized=law == "dp", codes=[self.codes[m] for m in cols])
            self._dp[law] = (x, {m: col for col, m in enumerate(cols)})
        return self._dp[law]

    def _moments(self, m: int) -> tuple[float, float]:
        if m not in self._benchmark:
            self._benchmark[m] = self.posts[self.names[m]].moments("benchmark")
        return self._benchmark[m]

    def difference(self, i: int, j: int, method: str, level: float, rng: np.random.Generator):
        """``(mean, sd, draws)`` of ``theta_i - theta_j``; ``rng`` (the pair's) is drawn from only where the pair's
        posterior is drawn on its own: the models' payoffs or prior pseudo-questions differ."""
        law = self.law(i, j)
        if law.startswith("dp"):
            pa, pb = self.posts[self.names[i]], self.posts[self.names[j]]
            if not self.same_base:
                delta, dx, _ = paired_difference(pa, pb, scope=self.scope, method=method, level=level,
                                                 draws=self.draws, rng=rng, xa=self.X[i], xb=self.X[j])
                return delta.mean, delta.sd, dx
            m_, cov = dp_posterior_moments(np.column_stack([self.X[i], self.X[j]]), self.c, self.base,
                                           studentized=law == "dp", codes=(self.codes[i], self.codes[j]))
            x, col = self._dp_draws(law)
            dx = x[:, col[i]] - x[:, col[j]]
            # M <= 3 questions (no finite t variance): the sd of the clipped draws, as dp_bootstrap takes it
            sd = (math.sqrt(max(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], 0.0)) if cov is not None
                  else float(np.std(dx, ddof=1)))
            return float(m_[0] - m_[1]), sd, dx
        dx = self.joint[:, i] - self.joint[:, j]
        if law == "questions":
            mean, sd = population_moments([self.sides[i], self.sides[j]], [1.0, -1.0])
        else:
            (ma, sa), (mb, sb) = self._moments(i), self._moments(j)
            mean, sd = ma - mb, math.hypot(sa, sb)
        return float(mean), float(sd), dx


def compare_all(models: Any, *, metric: Any = "avg", scope: str = DEFAULT_SCOPE, interval: str = POSTERIOR_INTERVAL,
                level: float = 0.95, seed: int | None = None, prior: Any = None, alpha0: Any = None,
                beta0: Any = None, test: str = "permutation", pairs: Any = "adjacent", draws: int = DEFAULT_DRAWS,
                resamples: int = DEFAULT_RESAMPLES, missing: Any = None, ragged: bool = False,
                score_range: Any = None, shrink: bool = False, **metric_params) -> Ranking:
    """Rank models with rank probabilities, and compare the pairs asked with adjusted p-values.

    Parameters
    ----------
    models : dict name -> outcomes (same questions; matched by id when every model has ids) or an
        :class:`~bayeseval.io.OutcomeSet` of one dataset.
    metric, scope, interval, level, prior, alpha0, beta0, draws, seed, missing, ragged, score_range :
        as in :func:`bayeseval.estimate` (``interval`` applies to the scores and the pair differences;
        with ``score_range``, or a value that is not an integer in any model, every model's outcomes are
        continuous scores).
    test : which p-value each pair gets and is adjusted: "permutation" (sign-flip, the default) or
        "bootstrap" (paired bootstrap over questions).
    pairs : "adjacent" (default: neighbours in the ranking, best first), "all", or a list of
        ``(a, b)`` model-name pairs.  The adjustment family is the pairs tested.
    resamples : for the pairwise test.
    shrink : partial pooling of the models' scores (:mod:`~bayeseval.comparison.pooling`; at least three
        models): the pairs' ``P(A>B)`` and ``A - B`` intervals, the rank probabilities, ``P(best)`` and expected
        ranks come from the joint posterior under an exchangeable normal prior whose spread ``tau`` is learnt
        from the models (:attr:`Ranking.shrink` holds its median and 95% interval, whatever ``level``).  Rows stay
        in the order of the models' own scores.  Close models are pulled
        together.  Measured (``benchmarks/results_calibration_shrink*.md``, ``docs/comparisons.md``): with 20
        models on 100 questions x 4 trials, ``P(A>B)`` as odds across the pairs is within 2 points per decile
        (each pair's own: 3.1); with 6 models the spread is poorly learnt and it errs the other way
        (underconfident); with 30 questions x 1 trial neither is calibrated.  It needs at least 5 questions per
        model (``M >= 5 K``): the covariance of the scores is estimated from the questions.  The models' own
        scores and the pairs' tests and decisions are unchanged.

    Notes
    -----
    Tied draws are split at random (equally in expectation) for rank probabilities.  A pair's ``delta`` and
    p-value are :func:`~bayeseval.compare`'s with the pair's seed; its interval and ``P(A > B)`` come from the
    joint draws behind the rank probabilities (the pair's posterior, drawn once for all pairs: module docstring),
    within Monte-Carlo error of compare's.
    """
    if "labels" in metric_params:  # compare's argument; read here it would be taken for a parameter of the metric
        raise V.InputTypeError("compare_all names the models by the keys of models (a dict name -> outcomes), not "
                               "labels=")
    test = check_choice(test, "test", ("permutation", "bootstrap"))
    shrink = V.flag(shrink, "shrink")
    scope = check_choice(scope, "scope", SCOPES)
    method = check_choice(interval, "interval", METHODS)
    level = V.confidence(level, "level")
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    draws = V.integer(draws, "draws", minimum=100)
    resamples = V.integer(resamples, "resamples", minimum=100)
    raw = model_dict(models)
    names = list(raw)
    if shrink and len(names) < 3:
        raise V.ArgumentError("{shrink} needs at least three models (the spread of two is not identified), got {n}",
                              "shrink", n=len(names))
    metric_params = dict(metric_params)
    if "threshold" in metric_params and hasattr(models, "run"):  # an OutcomeSet: threshold= reads trial values
        from ..results import run_values

        raw = {k: run_values(models.run(k)) for k in names}
        missing = np.nan
    threshold = metric_params.get("threshold")
    binarised, missing, ragged = thresholded(raw, metric, metric_params, score_range=score_range, missing=missing,
                                             ragged=ragged)
    threshold = threshold if binarised is not raw else None
    if threshold is not None:  # threshold=: 0/1 outcomes from here on
        raw, score_range = binarised, None
    scored = any_scores(raw.values(), score_range)
    counts = {k: as_counts(v, k, missing, ragged, score_range, scored) for k, v in raw.items()}  # counted once
    same_range(counts)
    check_comparable(counts, scored, "compare_all")
    base = counts[names[0]]
    for k in names[1:]:
        counts[k], _ = align(base, counts[k], (names[0], k))
    if shrink and base.M < SHRINK_QUESTIONS * len(names):
        # the covariance of K models' scores comes from the M questions: with few questions per model its smallest
        # eigenvalues are far too small (below rank at K >= M), a spread is read into contrasts that have none
        # (40 identical models on 30 questions: tau's 95% interval above 0.04; tests/test_shrink.py)
        raise V.ArgumentError("{shrink} needs at least {q} questions per model, so that the covariance of the "
                              "models' scores can be estimated from the questions; got {M} questions for {K} models",
                              "shrink", q=SHRINK_QUESTIONS, M=base.M, K=len(names))
    kw = dict(prior=prior, alpha0=alpha0, beta0=beta0, score_range=score_range,
              **binary_weights(metric_params, counts.values()))
    posts = {k: build(c, metric, **kw) for k, c in counts.items()}  # each posterior built once
    if threshold is not None:
        label_threshold(posts.values(), threshold)
    sides = None if scored else [Side(posts[k], k) for k in names]  # Side refuses categories, naming the model
    scores = {k: summarise(posts[k], scope=scope, method=method, level=level, draws=draws, seed=seed, model=k,
                           advise=False) for k in names}
    rng = np.random.default_rng(seed)
    r_joint, r_pairs = rng.spawn(2)
    X = [question_scores(posts[k]) for k in names]
    codes = [None if x is None else score_codes(x) for x in X]  # each model's scores as integer codes, once
    trials = [int(counts[k].n.max()) for k in names]
    c0, base0 = posts[names[0]].C[:, 0], base_measure(posts[names[0]])
    if scope == "population" and all(x is not None for x in X):
        joint_law = "dp"
        _, _, joint = dp_bootstrap(np.column_stack(X), c0, base0, draws, r_joint, codes=codes)
    elif scope == "population":
        joint_law = "questions"
        joint = population_draws(sides, draws, r_joint)
    elif all(x is not None for x in X) and all(n == 1 for n in trials):
        # one trial per question: the paired posterior that compare and the pairs below use (its spread matches
        # the bound on the benchmark error of a difference); independent draws gave P(best) 0.971 where the pair's
        # P(A > B) was 0.990
        joint_law = "dp one trial"
        _, _, joint = dp_bootstrap(np.column_stack(X), c0, base0, draws, r_joint, studentized=False, codes=codes)
    else:
        joint_law = "benchmark"
        joint = np.column_stack([posts[k].draws("benchmark", draws, r)
                                 for k, r in zip(names, r_joint.spawn(len(names)))])
    K = len(names)
    own_joint = joint  # each model's own posterior, before any pooling: the pairs' differences read it
    tau = None
    if shrink:
        joint, tau = pooled_draws(joint, posts[names[0]].range, rng.spawn(1)[0])
    order = np.lexsort((r_joint.random(joint.shape), -joint), axis=1)  # ties split at random
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, K + 1)[None, :].repeat(joint.shape[0], 0), axis=1)
    probs = np.stack([(ranks == r).mean(axis=0) for r in range(1, K + 1)], axis=1)  # (K models, K ranks)

    def key(k):
        e = scores[k]
        return -(e.value if e.value is not None else e.mean)

    ranked = sorted(names, key=key)
    # one seed per pair of the full (i < j) family, drawn in that order, so a pair's numbers do not
    # depend on which other pairs are tested
    seeds = [int(r_pairs.integers(2**31)) for _ in range(K * (K - 1) // 2)]
    wanted, pair_set = _pair_list(pairs, names, ranked)
    pair_draws = _PairDraws(names, posts, X, codes, trials, scope, joint_law, own_joint, sides, draws,
                            r_pairs.spawn(1)[0])
    out = []
    for i, j in wanted:
        lo_i, hi_j = min(i, j), max(i, j)
        pair_seed = seeds[lo_i * K - lo_i * (lo_i + 1) // 2 + (hi_j - lo_i - 1)]
        a, b = names[lo_i], names[hi_j]
        rb, r_boot, r_perm = np.random.default_rng(pair_seed).spawn(3)
        mean, sd, dx = pair_draws.difference(lo_i, hi_j, method, level, rb)
        own = (mean, p_better(dx))  # what the decision reads: the pair's own posterior, pooled or not
        if shrink:  # the pooled joint posterior's difference (the pair's test and decision are unchanged)
            dx = joint[:, lo_i] - joint[:, hi_j]
            mean, sd = float(np.mean(dx)), float(np.std(dx))
        summary = (mean, *delta_interval(dx, mean, sd, level, method, posts[a].range))
        pab = p_better(dx) if shrink else own[1]
        p = p_decide = None
        if X[lo_i] is not None and X[hi_j] is not None:
            d = snap_ties(X[lo_i] - X[hi_j])
            res = (sign_flip_test(d, resamples=resamples, rng=r_perm) if test == "permutation"
                   else paired_bootstrap(d, resamples=resamples, level=level, rng=r_boot))
            p = res.p_value
            p_decide = res["mid_p"] if test == "permutation" else p
        mean, lo, hi = summary
        rec = {"a": a, "b": b, "delta": mean, "lo": lo, "hi": hi, "p_a_better": pab}
        if (i, j) != (lo_i, hi_j):  # presented the other way round: the same posterior, mirrored
            rec = {"a": b, "b": a, "delta": -mean, "lo": -hi, "hi": -lo, "p_a_better": 1.0 - pab}
            own = (-own[0], 1.0 - own[1])
        rec["p_value"] = p
        out.append((rec, p_decide, own))
    adj = adjust([rec["p_value"] for rec, _, _ in out])
    # decisions keep their level as compare's do: the paired test (permutation: mid-p), Holm-adjusted
    # over the tested pairs, decides in the direction of the difference; without a test, the posterior
    adj_decide = adjust([pd for _, pd, _ in out], ("holm",))["holm"]
    for (rec, pd, (own_delta, own_p)), h, q, hd in zip(out, adj["holm"], adj["fdr_bh"], adj_decide):
        rec["p_holm"], rec["p_bh"] = (float(h), float(q)) if math.isfinite(h) else (None, None)
        # too few differing questions for any test to decide (even all one way): no winner, as in compare; the
        # bootstrap's p named one on 3 differing questions of 6 (p = 0.03)
        few = too_few_to_decide(differing_questions(counts[rec["a"]], counts[rec["b"]]), level)
        if few:
            rec["decision"] = None
        elif pd is None:  # k > n: the posterior
            rec["decision"] = decide(level, own_p)
        else:
            rec["decision"] = ("A" if own_delta > 0 else "B") if hd <= 1.0 - level and own_delta != 0 else None
    out = [rec for rec, _, _ in out]
    idx = [names.index(k) for k in ranked]
    return Ranking(
        metric=posts[names[0]].spec.label, scope=scope, level=level, models=ranked, scores=scores,
        rank_probs=probs[idx], expected_rank={k: float(ranks[:, names.index(k)].mean()) for k in names},
        p_best={k: float(probs[names.index(k), 0]) for k in names}, pairs=out, test=test, seed=seed,
        pair_set=pair_set, shrink=tau,
    )
