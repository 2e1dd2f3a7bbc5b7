r"""Two systems judged head to head: win rate, P(A preferred over B), position bias.

Per item ``i`` the labels give counts ``(w_i, t_i, l_i)`` of A preferred, tie, B preferred (over
judges, repeats and both presentation orders), ``n_i`` labels and shares ``s_i = (w_i, t_i, l_i) / n_i``.
**Items are weighted equally** in every number shown: the item is the unit sampled, so an item judged 60
times counts once, as in the verdict's test.  The mean shares ``sbar = (1/M) sum_i s_i`` give the win rate,
``sbar_w + sbar_t / 2`` with ties split and ``sbar_w / (sbar_w + sbar_l)`` with ties excluded; with the same
number of labels on every item they are the pooled label shares ``(W, T, L) / n``.  A label-pooled rate
that falls outside the interval (items carrying very different numbers of labels) is named in a warning.

**Population scope** (items are a sample from a pool; the default).  The pool's mean shares
``(theta_w, theta_t, theta_l)`` get a Dirichlet posterior,

.. math::  (\theta_w, \theta_t, \theta_l) \sim \mathrm{Dirichlet}(a + n_e\,\bar s_w,\ a + n_e\,\bar s_t,\
           a + n_e\,\bar s_l), \qquad n_e = \frac{M^2}{D \sum_i 1/n_i},

with ``a`` the prior count per outcome (default 1), ``M^2 / sum_i (1/n_i)`` the number of labels the
item-weighted mean is worth when labels are independent (``n`` when every item has the same number), and
``D`` the design effect of the item-clustered labels (Rao & Scott 1981, JASA 76(374); Kish 1965): the
clustered variance of the mean net preference ``(1/M) sum_i (w_i - l_i) / n_i`` over its variance under
independent labels, floored at 1, exactly 1 with one label per item (one design effect serves every share:
a first-order correction).  The reported rate is the observed one; its interval is widened to contain it
where the prior pulls the posterior away (all wins, all losses).  Then, in closed form,

.. math::  P(\theta_w > \theta_l) = 1 - I_{1/2}(a_w, a_l), \qquad
           \frac{\theta_w}{\theta_w + \theta_l} \sim \mathrm{Beta}(a_w, a_l)

(ties excluded), and the win rate with ties split, ``theta_w + theta_t / 2``, has the distribution
function :math:`P(\theta_w - \theta_l \le x) = \int P(\theta_w \le x + u \mid \theta_l = u) f(u)\,du`
with :math:`\theta_w \mid \theta_l = u \sim (1 - u)\,\mathrm{Beta}(a_w, a_t)` (one-dimensional
quadrature, no sampling; quantiles by root finding).  With one label per item this is the exact
posterior of a multinomial; with several it rests on the design-effect correction, whose coverage
``benchmarks/coverage_pairwise.py`` measures.

**Benchmark scope** (these items fixed; only the judges' randomness).  Item ``i`` has its own probabilities
``pi_i = (pi_w, pi_t, pi_l)``; the estimand is their mean over the items, ``theta_B = (1/M) sum_i
(pi_w,i + pi_t,i / 2)`` with ties split, ``sum_i pi_w,i / sum_i (pi_w,i + pi_l,i)`` with ties excluded.  Each
label is a score ``v`` (1, 1/2, 0 for A, tie, B) and ``s_i . v`` is unbiased for item ``i``'s part, so the
estimate is the observed mean (no per-item prior, no shrinkage) and its error is the finite labels per item:

.. math::  \mathrm{Var}(\hat\theta_B) = \frac{1}{M^2} \sum_i \frac{\sigma_i^2}{n_i}, \qquad
           \sigma_i^2 = \sum_k \pi_{k,i} v_k^2 - \Big(\sum_k \pi_{k,i} v_k\Big)^2,

estimated without bias by the within-item sample variance of the labels, ``hat sigma_i^2 = n_i / (n_i - 1)
sum_k s_k,i (v_k - s_i . v)^2`` (for 0/1 labels ``p_hat (1 - p_hat) n / (n - 1)``), for ``n_i >= 2``.  That
is the mean-score posterior of :mod:`bayeseval.posterior.scores` with the labels as scores (a t interval with
Welch-Satterthwaite degrees of freedom).  An item with one label cannot show its ``sigma_i^2``: those items
take the spread of their labels across items, an upper bound on average (it adds how much the items
differ; a warning says so); with one label per item that is the Bayesian bootstrap over items, about as wide
as the population scope.
Ties excluded, the ratio is linearised (delta method): labels score ``v = (1 - R, 0, -R) / (sbar_w +
sbar_l)``, ``R`` the estimate.  Coverage: ``benchmarks/results_coverage_pairwise_benchmark.md``.

**P(A preferred)** is the posterior probability that the items' mean share of A exceeds B's, ``theta_w >
theta_l`` (the same event whether ties are split or excluded, and the direction of the verdict's test).

Frequentist companions on the per-item net preference ``d_i = (w_i - l_i) / n_i`` (items equally
weighted, the item is the cluster): the sign test on the items that prefer one side (exact binomial),
the exact paired sign-flip test and the clustered (item) bootstrap with BCa interval.  The verdict,
as in :func:`bayeseval.compare`, is the sign-flip test's mid-p at ``1 - level``.

**Position bias**: over the non-tie labels whose presentation order is known, the share won by the
answer shown first, averaged over the two orders (A first, B first) so that a better model shown first
more often does not pass for a position effect; Jeffreys Beta posteriors on design-effect-corrected
counts give the interval and a two-sided posterior tail probability of 1/2.  With one order only it is
not identifiable, and a warning says so.

>>> from bayeseval.pairwise import from_long
>>> p = from_long({"item": list(range(40)), "model_a": ["x"] * 40, "model_b": ["y"] * 40,
...                "winner": ["x"] * 24 + ["tie"] * 6 + ["y"] * 10})
>>> r = win_rate(p, "x", "y")
>>> round(r.p_a_better, 4), round(r.value, 3), r.design_effect
(0.9917, 0.675, 1.0)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, special, stats

from .. import validate as V
from .._protocol import Result, check_choice
from .._text import pct, text_table
from ..comparison.paired_tests import paired_bootstrap, sign_flip_test
from ..results import Estimate, ModelCheckWarning, estimate
from ..scores import Scores
from .data import Preferences, duplicate_note

__all__ = ["win_rate", "WinRate", "design_effect", "item_shares", "split_win_rate_cdf"]

DEFAULT_SEED = 20261125


def design_effect(counts: np.ndarray, y: np.ndarray) -> float:
    """Kish / Rao-Scott design effect of a ratio ``sum(y_i) / sum(n_i)`` over items (``n_i`` = labels of item
    ``i``, ``y_i`` per-item totals of a per-label score in [-1, 1]): the linearised clustered variance
    over the variance the same labels would have if independent, floored at 1; exactly 1 when every
    item has one label, and the number of labels when there is one item (one cluster)."""
    n_i = counts.sum(axis=1).astype(np.float64)
    M, n = n_i.size, float(n_i.sum())
    if np.all(n_i == 1):
        return 1.0
    if M < 2:  # one item: its labels are one cluster, worth one observation
        return max(1.0, n)
    r = float(y.sum()) / n
    v_clu = float(((y - r * n_i) ** 2).sum()) / n**2 * M / (M - 1)
    second = float(counts[:, 0].sum() + counts[:, 2].sum()) / n  # E[score^2] for scores -1, 0, 1
    v_iid = (second - r * r) / n
    if v_iid <= 0:
        return 1.0
    return max(1.0, v_clu / v_iid)


def item_shares(counts: np.ndarray) -> tuple[np.ndarray, float, float]:
    r"""Items weighted equally: ``(sbar, n_e, D)`` -- the mean over items of each item's shares
    ``(w_i, t_i, l_i) / n_i``, the number of labels it is worth, ``n_e = M^2 / (D sum_i 1/n_i)``, and its design
    effect ``D`` (:func:`design_effect` of the shares, every item given the weight ``n_h / M``, ``n_h = M^2 /
    sum_i 1/n_i``: the clustered variance of the mean net preference over its variance under independent labels,
    floored at 1; Rao & Scott 1981, JASA 76(374)).  With ``n_i = c`` for every item, ``sbar = (W, T, L) / n``,
    ``n_h = n`` and ``D`` is the pooled one.

    >>> s, ne, D = item_shares(np.array([[3, 0, 0], [0, 0, 1], [0, 0, 1]]))
    >>> s.round(4).tolist(), round(ne, 4), round(D, 4)
    ([0.3333, 0.0, 0.6667], 2.0, 1.9286)
    """
    n_i = counts.sum(axis=1).astype(np.float64)
    M = n_i.size
    shares = counts / n_i[:, None]
    n_h = M * M / float((1.0 / n_i).sum())
    w = n_h / M
    D = design_effect(shares * w, w * (shares[:, 0] - shares[:, 2]))
    return shares.mean(axis=0), n_h / D, D


SPLIT_NODES = 128  # Gauss-Legendre nodes over the quantiles of theta_l


def split_win_rate_cdf(x: Any, a_w: float, a_t: float, a_l: float) -> Any:
    """``P(theta_w + theta_t / 2 <= x)`` under Dirichlet(a_w, a_t, a_l), for a number or an array ``x``.

    ``theta_l ~ Beta(a_l, a_w + a_t)`` and, given ``theta_l = u``, ``theta_w = (1 - u) B`` with
    ``B ~ Beta(a_w, a_t)``, so the probability is the integral over ``v = F_l(u)`` in [0, 1] of
    ``I_{(2x - 1 + u) / (1 - u)}(a_w, a_t)``; that is 0 below ``u = 1 - 2x`` and 1 above ``u = 1 - x``, so
    Gauss-Legendre (128 nodes) runs over the ``v`` between them only: within 1e-4 of adaptive quadrature
    everywhere tested, within 1e-6 in the body of the distribution, so quantiles at 2.5% / 97.5% are good to
    about 1e-5 or better.

    >>> round(float(split_win_rate_cdf(0.5, 2.0, 1.0, 2.0)), 8)  # symmetric: the median is 1/2
    0.5
    """
    t, wt = _legendre()
    d = 2.0 * np.atleast_1d(np.asarray(x, dtype=np.float64)) - 1.0
    b = a_w + a_t
    # in u = theta_l: below -d the conditional probability is 0, from (1 - d) / 2 on it is 1; between, smooth
    v0 = special.betainc(a_l, b, np.clip(-d, 0.0, 1.0))
    v1 = special.betainc(a_l, b, np.clip((1.0 - d) / 2.0, 0.0, 1.0))
    v = v0[:, None] + (v1 - v0)[:, None] * t[None, :]
    u = special.betaincinv(a_l, b, v)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.clip((d[:, None] + u) / (1.0 - u), 0.0, 1.0)
    z = np.where(u < 1.0, z, 1.0)
    out = (1.0 - v1) + (v1 - v0) * (special.betainc(a_w, a_t, z) @ wt)
    out = np.clip(out, 0.0, 1.0)
    return out.reshape(np.shape(x)) if np.ndim(x) else float(out[0])


def _legendre():
    if not hasattr(_legendre, "nodes"):
        t, w = np.polynomial.legendre.leggauss(SPLIT_NODES)
        _legendre.nodes = ((t + 1.0) / 2.0, w / 2.0)
    return _legendre.nodes


def _split_quantile(q: float, a_w: float, a_t: float, a_l: float) -> float:
    return float(optimize.brentq(lambda x: float(split_win_rate_cdf(x, a_w, a_t, a_l)) - q, 0.0, 1.0, xtol=1e-10))


@dataclass(frozen=True)
class WinRate(Result):
    """Head-to-head result of :func:`win_rate`; ``value`` / ``lo`` / ``hi`` are the win rate of ``a``."""

    a: str
    b: str
    scope: str
    ties: str
    level: float
    n_items: int
    n_labels: int
    counts: tuple  # (A preferred, tie, B preferred), pooled over labels
    value: float
    mean: float
    lo: float
    hi: float
    p_a_better: float
    design_effect: float
    decision: str | None
    sign_test: dict
    permutation: dict
    bootstrap: dict
    position: dict | None
    basis: str
    warnings: tuple = field(default=())
    tentative: str = ""  # decided on the sign-flip's mid-p alone (its p above 1 - level): said beside the verdict

    def confidence_interval(self, level: float | None = None, method: str | None = None) -> tuple[float, float]:
        if level not in (None, self.level) or method not in (None, "exact"):
            raise ValueError(f"this result holds the {self.level:g} exact interval; call win_rate again for another")
        return self.lo, self.hi

    def to_dict(self) -> dict:
        out = {k: getattr(self, k) for k in ("a", "b", "scope", "ties", "level", "n_items", "n_labels", "value",
                                              "mean", "lo", "hi", "p_a_better", "design_effect", "decision",
                                              "verdict", "sign_test", "permutation", "bootstrap", "position", "basis")}
        out["counts"] = dict(zip(("a_preferred", "tie", "b_preferred"), map(int, self.counts)))
        out["warnings"] = list(self.warnings)
        return out

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame([{"a": self.a, "b": self.b, "win_rate": self.value, "lo": self.lo, "hi": self.hi,
                              "p_a_better": self.p_a_better, "items": self.n_items, "labels": self.n_labels,
                              "a_preferred": self.counts[0], "tie": self.counts[1], "b_preferred": self.counts[2],
                              "sign_test_p": self.sign_test["p_value"], "permutation_p": self.permutation["p_value"]}])

    def summary(self) -> str:
        shown = f"{pct(self.level)}"
        rows = [["win rate of " + self.a + f" (ties {self.ties})", f"{self.value:.4f}", f"[{self.lo:.4f}, {self.hi:.4f}]"],
                [f"P({self.a} preferred over {self.b})", f"{self.p_a_better:.4f}", ""],
                ["labels: A / tie / B", " / ".join(map(str, self.counts)), f"{self.n_items} items"],
                ["sign test (items)", f"p = {self.sign_test['p_value']:.4g}", ""],
                ["sign-flip test (items)", f"p = {self.permutation['p_value']:.4g}", f"mid-p {self.permutation['mid_p']:.4g}"],
                ["clustered bootstrap, net preference", f"{self.bootstrap['estimate']:+.4f}",
                 f"[{self.bootstrap['lo']:+.4f}, {self.bootstrap['hi']:+.4f}] BCa"]]
        if self.position:
            rows.append(["first-shown answer preferred", f"{self.position['rate']:.4f}",
                         f"[{self.position['lo']:.4f}, {self.position['hi']:.4f}] (p = {self.position['p_value']:.3g})"])
        head = (f"{self.a} vs {self.b}: {self.verdict}; {shown} interval, {self.scope} scope"
                + (f"; design effect {self.design_effect:.2f}" if self.scope == "population" else ""))
        lines = [head, text_table(["quantity", "value", "interval / note"], rows, right=(1,)), f"basis: {self.basis}"]
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)

    @property
    def verdict(self) -> str:
        side = {"A": f"{self.a} is preferred", "B": f"{self.b} is preferred"}.get(self.decision)
        return side + self.tentative if side else "no clear preference"


def win_rate(prefs: Preferences, a: Any, b: Any, *, scope: str = "population", ties: str = "split",
             level: float = 0.95, prior: float = 1.0, draws: int = 4000, resamples: int = 10_000,
             seed: int | None = None) -> WinRate:
    """How often ``a``'s answer is preferred over ``b``'s, with an interval, P(a preferred), the verdict of
    the exact paired test, and position bias when the order is known.  See the module docstring.

    Items are weighted equally (``sbar``, the mean of the per-item label shares).  ``ties="split"`` counts a tie
    as half a win (``theta_w + theta_t / 2``); ``"exclude"`` drops ties (``theta_w / (theta_w + theta_l)``).
    ``scope="population"``: a Dirichlet posterior of the pool's shares with design-effect-corrected counts
    (Rao & Scott 1981); ``"benchmark"``: these items' mean, centred at the observed one, with error variance
    ``(1/M^2) sum_i hat sigma_i^2 / n_i`` from the within-item spread of the labels.  ``prior`` is the
    Dirichlet count per outcome (> 0; population scope).
    """
    if not isinstance(prefs, Preferences):
        raise V.InputTypeError(f"prefs must be Preferences (bayeseval.pairwise.from_long), got {V.describe(prefs)}")
    check_choice(scope, "scope", ("population", "benchmark"))
    check_choice(ties, "ties", ("split", "exclude"))
    level = V.confidence(level, "level")
    prior = V.real(prior, "prior", lo=0.0, lo_open=True, hi=1e6)
    draws = V.integer(draws, "draws", minimum=100)
    resamples = V.integer(resamples, "resamples", minimum=100)
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    a, b = prefs.models[prefs.index(a, "a")], prefs.models[prefs.index(b, "b")]  # as the data's names are read
    counts, _, pos = prefs.pair_counts(a, b)
    M = counts.shape[0]
    n_i = counts.sum(axis=1)
    Wc, Tc, Lc = (int(x) for x in counts.sum(axis=0))
    n = Wc + Tc + Lc
    y = (counts[:, 0] - counts[:, 2]).astype(np.float64)
    if ties == "exclude" and Wc + Lc == 0:
        raise ValueError(f"every label comparing {a!r} and {b!r} is a tie: the win rate without ties is undefined; "
                         "use ties='split'")
    sbar, n_eff, D = item_shares(counts)
    value = sbar[0] + 0.5 * sbar[1] if ties == "split" else sbar[0] / (sbar[0] + sbar[2])
    alpha = (1.0 - level) / 2.0
    warns: list[str] = []
    if scope == "population":
        aw, at, al = prior + n_eff * sbar
        p_better = float(special.betainc(al, aw, 0.5))  # P(Beta(a_w, a_l) > 1/2) = I_{1/2}(a_l, a_w)
        if ties == "exclude":
            mean = aw / (aw + al)
            lo, hi = (float(x) for x in stats.beta.ppf([alpha, 1 - alpha], aw, al))
        else:
            mean = (aw + 0.5 * at) / (aw + at + al)
            lo, hi = _split_quantile(alpha, aw, at, al), _split_quantile(1 - alpha, aw, at, al)
        basis = ("Dirichlet posterior of the pool's mean label shares (items weighted equally), counts divided by "
                 "the design effect of item-clustered labels" + (" (one label per item: exact)" if np.all(n_i == 1)
                                                                 else f" ({D:.2f}, Rao-Scott; floored at 1)"))
    else:
        mean, lo, hi, p_better = _benchmark(counts, sbar, ties, level, draws, seed)
        basis = (f"items fixed: the mean over the {M} items of each item's share (items weighted equally), centred "
                 "at the observed mean; error variance from the spread of each item's labels (within-item sample "
                 "variance / labels, unbiased), t interval with Welch-Satterthwaite degrees of freedom"
                 + (" (ratio linearised: delta method)" if ties == "exclude" else ""))
        ones = int((n_i == 1).sum())
        if ones:
            warns.append(f"benchmark scope with one label on {ones} of {M} items: how much an item's labels vary "
                         "cannot be learnt from one label, so those items take the spread of their labels across "
                         "items, a bound that also holds how much the items differ (conservative)"
                         + ("; with one label per item it is about as wide as the population scope's"
                            if ones == M else ""))
        elif lo == hi:
            warns.append("benchmark scope: every item's labels agree, so the interval has no width from them: it "
                         "holds only if each item's verdict is fixed; the population scope does not rest on that")
    lo, hi = min(lo, value), max(hi, value)  # the reported rate lies inside its interval (at 0 or 1 wins)
    if n_i.min() != n_i.max():  # label-pooled vs item-weighted
        pooled = (Wc + 0.5 * Tc) / n if ties == "split" else Wc / (Wc + Lc)
        if not lo <= pooled <= hi:
            warns.append(f"pooling the labels gives {a}'s win rate {pooled:.4f}, outside this interval: items carry "
                         f"{int(n_i.min())} to {int(n_i.max())} labels and the pooled rate weights each item by its "
                         "number of labels; the win rate, P(preferred) and the verdict weight items equally (the item "
                         f"is the unit sampled: an item with {int(n_i.max())} labels is one item)")
    if prefs.duplicates:
        warns.append(duplicate_note(prefs.duplicates, prefs.judges is not None))
    # frequentist companions, per item (the item is the cluster)
    d = y / n_i
    npos, nneg = int((d > 0).sum()), int((d < 0).sum())
    sign_p = float(stats.binomtest(npos, npos + nneg, 0.5).pvalue) if npos + nneg else 1.0
    r_boot, r_perm, r_pos = np.random.default_rng(seed).spawn(3)
    what = f"mean per-item net preference of {a} over {b} = 0"
    perm = sign_flip_test(d, resamples=resamples, rng=r_perm, tests=what)
    boot = paired_bootstrap(d, resamples=resamples, level=level, rng=r_boot, tests=what)
    decision, tentative = None, ""
    if perm["mid_p"] <= 1.0 - level and perm.statistic != 0:
        decision = "A" if perm.statistic > 0 else "B"
        if perm.p_value > 1.0 - level:  # decided on the mid-p only: say how thin it is, as compare does
            tentative = (f" (tentative: {npos + nneg} of {M} items prefer a side; the sign-flip p = "
                         f"{perm.p_value:.4g} > {1 - level:.2g}, its mid-p {perm['mid_p']:.4g} decides)")
            warns.append(f"the verdict is borderline ({npos + nneg} of {M} items prefer a side): the sign-flip test's "
                         f"p = {perm.p_value:.4g} would not decide at {pct(level)}; its mid-p {perm['mid_p']:.4g} does")
    if M < 10:
        warns.append(f"only {M} items compare {a!r} and {b!r}: intervals and tests over items are rough")
    position = _position(pos, level, r_pos, str(a), str(b), warns) if pos is not None and pos.sum() > 0 else None
    return WinRate(a=str(a), b=str(b), scope=scope, ties=ties, level=level, n_items=M, n_labels=n,
                   counts=(Wc, Tc, Lc), value=float(value), mean=float(mean), lo=float(lo), hi=float(hi),
                   p_a_better=p_better, design_effect=float(D), decision=decision,
                   sign_test={"p_value": sign_p, "a_items": npos, "b_items": nneg, "method": "exact binomial"},
                   permutation={"p_value": float(perm.p_value), "mid_p": float(perm["mid_p"]), "method": perm.method},
                   bootstrap={"estimate": float(boot.statistic), "lo": float(boot.lo), "hi": float(boot.hi),
                              "p_value": boot.p_value, "method": "bca"},
                   position=position, basis=basis, warnings=tuple(warns), tentative=tentative)


def _position(pos: np.ndarray, level: float, rng: np.random.Generator, a: str, b: str, warns: list) -> dict | None:
    """Order-balanced position bias: the mean of P(first-shown preferred | a shown first) and P(first-shown
    preferred | b shown first), each a Jeffreys Beta posterior on design-effect-corrected counts (items are
    clusters), so a better model shown first more often does not pass for a position effect.  Two-sided
    posterior tail probability of 1/2 as the p-value."""
    groups = []
    for won, lost in ((0, 1), (2, 3)):
        c = pos[:, [won, lost]]
        has = c.sum(axis=1) > 0
        if not has.any():
            first = a if won == 0 else b
            warns.append(f"position bias: every decided label shows {b if first == a else a} first, so a position "
                         "effect cannot be told apart from a preference; show both orders")
            return None
        D = design_effect(np.column_stack([c[has, 0], np.zeros(int(has.sum()), np.int64), c[has, 1]]),
                          (c[has, 0] - c[has, 1]).astype(np.float64))
        groups.append((int(c[:, 0].sum()), int(c[:, 1].sum()), D))
    draws = 20_000
    x = 0.5 * sum(rng.beta(0.5 + f / D, 0.5 + s / D, size=draws) for f, s, D in groups)
    alpha = (1.0 - level) / 2.0
    lo, hi = (float(v) for v in np.quantile(x, [alpha, 1 - alpha]))
    p = float(min(1.0, 2.0 * min(np.mean(x <= 0.5), np.mean(x >= 0.5))))
    rate = 0.5 * sum(f / (f + s) for f, s, _ in groups)
    out = {"rate": rate, "lo": min(lo, rate), "hi": max(hi, rate), "p_value": p,
           "first_preferred": sum(f for f, _, _ in groups), "second_preferred": sum(s for _, s, _ in groups),
           f"{a}_first": {"first_preferred": groups[0][0], "second_preferred": groups[0][1]},
           f"{b}_first": {"first_preferred": groups[1][0], "second_preferred": groups[1][1]},
           "method": "mean over the two orders of the first-shown answer's share, Jeffreys posteriors with design "
                     "effects; p: two-sided posterior tail probability of 1/2"}
    if p < 1.0 - level:
        warns.append(f"position bias: averaged over both orders, the first-shown answer is preferred in {rate:.1%} of "
                     f"decided labels (p = {p:.3g}); balance the orders, or the win rate carries it")
    return out


SPLIT_SCORES = np.array([1.0, 0.5, 0.0])  # a label's score with ties split: A preferred, tie, B preferred


def _label_scores(counts: np.ndarray, v: np.ndarray, level: float, draws: int, seed: int) -> Estimate:
    """Benchmark scope of the mean over items of the labels' scores ``v`` (per outcome A, tie, B): per item
    ``n_i``, the sum and the within-item sum of squared deviations, through
    :class:`bayeseval.posterior.scores.ScorePosterior` (its model-check notes are the caller's to word)."""
    n_i = counts.sum(axis=1)
    total = counts @ v
    sq = (counts * (v[None, :] - (total / n_i)[:, None]) ** 2).sum(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelCheckWarning)
        return estimate(Scores(n_i, total, sq, float(v.min()), float(v.max())), "avg", scope="benchmark",
                        interval="exact", level=level, draws=draws, seed=seed)


def _benchmark(counts: np.ndarray, sbar: np.ndarray, ties: str, level: float, draws: int,
               seed: int) -> tuple[float, float, float, float]:
    """Benchmark scope (module docstring): ``(centre, lo, hi, P(theta_w > theta_l))``.  P(A preferred) comes from
    the ties-split posterior, whose ``theta > 1/2`` is that event under either tie rule."""
    split = _label_scores(counts, SPLIT_SCORES, level, draws, seed)
    x = split.draws(draws)
    p_better = float(np.mean(x > 0.5) + 0.5 * np.mean(x == 0.5))
    if ties == "split":
        return float(split.value), float(split.lo), float(split.hi), p_better
    decided = float(sbar[0] + sbar[2])
    R = float(sbar[0]) / decided
    z = _label_scores(counts, np.array([1.0 - R, 0.0, -R]) / decided, level, draws, seed)  # the ratio's influence
    return R, float(np.clip(R + z.lo, 0.0, 1.0)), float(np.clip(R + z.hi, 0.0, 1.0)), p_better
