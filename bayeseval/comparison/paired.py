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
  multinomial or binomial draws with ``U`` distinct differences (``U <= M``).
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
import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats
from scipy.special import ndtr, ndtri

from .. import validate as V
from ..counts import Counts, to_counts
from .joint import Side, base_measure, dp_bootstrap, population_draws, population_moments
from ..posterior import METHODS, SCOPES, build, interval_from_draws
from .._text import html_table, text_table
from ..results import DEFAULT_DRAWS, DEFAULT_INTERVAL, DEFAULT_SCOPE, DEFAULT_SEED, _check_choice, summarise

__all__ = ["compare", "Comparison", "Delta", "align", "question_scores", "paired_bootstrap", "sign_flip_test",
           "mcnemar_tests", "COLLAPSE"]

COLLAPSE = ("clustered", "first", "majority")
DEFAULT_RESAMPLES = 10_000


# ----------------------------------------------------------------------------- inputs
def _as_counts(X: Any, name: str, missing: Any = None, ragged: bool = False) -> Counts:
    if isinstance(X, Counts):
        return X
    return to_counts(X, missing=missing, ragged=ragged, name=name)


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
        elif isinstance(X, np.ndarray):
            arr = np.asarray(X, dtype=np.float64)
        else:
            arr = None
            col = np.asarray([row[0] for row in X], dtype=np.float64)
        if arr is not None:
            arr = arr[None, :] if arr.ndim == 1 else arr
            observed = ~np.isnan(arr)
            first = observed.argmax(axis=1)
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

            hint = ""
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
    return None if x is None else x[np.asarray(post.counts.binary_states()[3]())]


# ----------------------------------------------------------------------------- resampling tests
def _distinct(d: np.ndarray):
    v, f = np.unique(d, return_counts=True)
    return v, f


def paired_bootstrap(d: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, level: float = 0.95,
                     rng: np.random.Generator) -> dict:
    r"""Bootstrap over questions of the mean per-question difference ``d``.

    Resampling M questions with replacement is a multinomial draw of how often
    each distinct value of ``d`` appears, so each resample costs one
    multinomial over the ``U`` distinct values (or, when most values are
    distinct, one index draw per question).  Intervals: percentile and BCa
    (bias-corrected and accelerated; the jackknife acceleration of a mean is
    :math:`a = \sum (d_i - \bar d)^3 / (6 [\sum (d_i - \bar d)^2]^{3/2})`).
    p-value: two-sided, from the bootstrap distribution shifted to the null,
    :math:`(1 + \#\{|\hat\delta^*_b - \hat\delta| \ge |\hat\delta|\}) / (B + 1)`.
    """
    d = np.asarray(d, dtype=np.float64)
    M = d.size
    est = float(d.mean())
    v, f = _distinct(d)
    boot = np.empty(resamples)
    if v.size == 1:
        boot[:] = v[0]
    elif v.size <= M // 4:
        prob = f / M
        step = max(1, 4_000_000 // v.size)
        for s in range(0, resamples, step):
            c = min(step, resamples - s)
            boot[s : s + c] = rng.multinomial(M, prob, size=c) @ v / M
    else:
        step = max(1, 4_000_000 // M)
        for s in range(0, resamples, step):
            c = min(step, resamples - s)
            boot[s : s + c] = d[rng.integers(0, M, size=(c, M))].mean(axis=1)
    alpha = 1.0 - level
    pct = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    # BCa
    below = (np.count_nonzero(boot < est) + np.count_nonzero(boot <= est)) / (2.0 * resamples)
    dev = v - est  # jackknife: theta_(.) - theta_(i) = (d_i - est) / (M - 1); the scale cancels in a
    den = float(f @ dev**2)
    if den <= 0 or below <= 0 or below >= 1:
        bca = (float(pct[0]), float(pct[1])) if den > 0 else (est, est)
        z0 = a = 0.0
    else:
        z0 = float(ndtri(below))
        a = float(f @ dev**3) / (6.0 * den**1.5)  # Efron & Tibshirani (1993), eq. 14.15
        zs = ndtri(np.array([alpha / 2, 1 - alpha / 2]))
        den_a = 1 - a * (z0 + zs)
        # where 1 - a (z0 + z) <= 0 the BCa map has left its domain: take the extreme quantile
        adj = np.where(den_a > 0, ndtr(z0 + (z0 + zs) / np.where(den_a > 0, den_a, 1.0)), np.array([0.0, 1.0]))
        lo, hi = np.quantile(boot, adj)
        bca = (float(lo), float(hi))
    p = (1 + np.count_nonzero(np.abs(boot - est) >= abs(est) - 1e-15 * max(1.0, abs(est)))) / (resamples + 1)
    return {
        "estimate": est, "lo": bca[0], "hi": bca[1], "method": "bca",
        "percentile": {"lo": float(pct[0]), "hi": float(pct[1])}, "bca": {"lo": bca[0], "hi": bca[1]},
        # one distinct difference: the bootstrap distribution is a point and says nothing about the null
        "p_value": (1.0 if est == 0 else None) if v.size == 1 else float(min(1.0, p)), "resamples": int(resamples), "se": float(boot.std(ddof=1)),
        "bias_correction": z0, "acceleration": a, "_draws": boot,
    }


def sign_flip_test(d: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, rng: np.random.Generator,
                   exact_limit: int = 200_000) -> dict:
    r"""Paired sign-flip permutation test of ``mean(d) = 0`` (two-sided).

    Under the null each question's pair can be swapped, flipping the sign of
    its difference.  Questions with the same value of ``d`` are exchangeable,
    so a group of ``f`` contributes ``v (2 X - f)`` with ``X ~ Bin(f, 1/2)``.
    Exact when the flips have at most ``exact_limit`` distinct outcomes
    (enumerated with binomial probabilities); otherwise Monte Carlo with
    ``p = (1 + #{|T*| >= |T|}) / (B + 1)``.
    """
    d = np.asarray(d, dtype=np.float64)
    M = d.size
    t_obs = float(d.sum())
    v, f = _distinct(d[d != 0])
    if v.size == 0:
        return {"statistic": 0.0, "p_value": 1.0, "method": "exact", "resamples": 0}
    tol = 1e-9 * max(1.0, float(np.abs(v) @ f))
    log_combos = float(np.log(f.astype(np.float64) + 1).sum())
    if log_combos <= math.log(exact_limit):
        # distribution of sum_u v_u (2 X_u - f_u): convolve group by group
        values, probs = np.array([0.0]), np.array([1.0])
        for vu, fu in zip(v, f):
            x = np.arange(fu + 1)
            pv = stats.binom.pmf(x, fu, 0.5)
            values = (values[:, None] + vu * (2 * x - fu)[None, :]).ravel()
            probs = (probs[:, None] * pv[None, :]).ravel()
        p = float(probs[np.abs(values) >= abs(t_obs) - tol].sum())
        return {"statistic": t_obs / M, "p_value": min(1.0, p), "method": "exact", "resamples": 0}
    T = np.empty(resamples)
    step = max(1, 4_000_000 // v.size)
    for s in range(0, resamples, step):
        c = min(step, resamples - s)
        T[s : s + c] = (2 * rng.binomial(f, 0.5, size=(c, f.size)) - f) @ v
    p = (1 + np.count_nonzero(np.abs(T) >= abs(t_obs) - tol)) / (resamples + 1)
    return {"statistic": t_obs / M, "p_value": float(min(1.0, p)), "method": "monte carlo", "resamples": int(resamples)}


# ----------------------------------------------------------------------------- McNemar
def _mcnemar_2x2(a: np.ndarray, b: np.ndarray, rule: str) -> dict:
    from statsmodels.stats.contingency_tables import mcnemar

    a = a.astype(bool)
    b = b.astype(bool)
    table = np.array([[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]])
    n10, n01 = int(table[0, 1]), int(table[1, 0])
    exact = mcnemar(table, exact=True)
    n = n10 + n01
    k = min(n10, n01)
    # mid-p (Fagerland, Lydersen & Laake 2013): 2 P(X <= k) - P(X = k), capped at 1
    mid = min(1.0, 2 * float(stats.binom.cdf(k, n, 0.5)) - float(stats.binom.pmf(k, n, 0.5))) if n else 1.0
    if n and n10 != n01:
        chi = mcnemar(table, exact=False, correction=True)
        chi_stat, chi_p = float(chi.statistic), float(chi.pvalue)
    else:  # no discordant pairs, or b = c: (|b - c| - 1)^2 would be a positive statistic for no difference
        chi_stat, chi_p = 0.0, 1.0
    return {
        "rule": rule, "table": table.tolist(), "a_only": n10, "b_only": n01,
        "exact": {"statistic": float(exact.statistic), "p_value": float(exact.pvalue)},
        "mid_p": {"statistic": float(k), "p_value": float(mid)},
        "chi2_cc": {"statistic": chi_stat, "p_value": chi_p},
    }


def durkalski(pa: np.ndarray, pb: np.ndarray) -> dict:
    r"""Clustered McNemar (Durkalski et al. 2003, Stat. Med. 22:2417): questions are clusters.

    With matched trials the discordant counts of question ``k`` satisfy
    ``b_k - c_k = s_Ak - s_Bk`` for any pairing of trials, so the statistic
    :math:`X^2 = (\sum_k (b_k - c_k))^2 / \sum_k (b_k - c_k)^2 \sim \chi^2_1`
    needs only the counts.  With different numbers of trials per model the
    per-question differences of proportions are used (identical when N is equal).
    """
    d = pa - pb
    den = float(d @ d)
    if den == 0:
        return {"statistic": 0.0, "p_value": 1.0}
    x2 = float(d.sum()) ** 2 / den
    return {"statistic": x2, "p_value": float(stats.chi2.sf(x2, 1))}


def mcnemar_tests(ca: Counts, cb: Counts, first_a=None, first_b=None, collapse: str = "clustered") -> dict:
    """McNemar-family tests; the headline follows ``collapse`` (forced to one trial when N = 1)."""
    na, sa = ca.n, ca.successes()
    nb, sb = cb.n, cb.successes()
    single = bool((na == 1).all() and (nb == 1).all())
    out = {"variants": {}}
    if single:
        one = _mcnemar_2x2(sa, sb, "single trial")
        out["variants"]["single"] = one
        out.update(statistic=one["exact"]["statistic"], p_value=one["exact"]["p_value"],
                   method="exact McNemar on per-trial correctness (one trial per question)")
        return out
    out["variants"]["clustered"] = durkalski(sa / na, sb / nb)
    # majority: a question counts as correct when strictly more than half its trials are
    out["variants"]["majority"] = _mcnemar_2x2(2 * sa > na, 2 * sb > nb, "majority")
    if first_a is not None and first_b is not None:
        out["variants"]["first"] = _mcnemar_2x2(first_a, first_b, "first")
    if collapse == "clustered":
        c = out["variants"]["clustered"]
        out.update(statistic=c["statistic"], p_value=c["p_value"],
                   method="clustered McNemar on per-trial correctness (Durkalski et al. 2003)")
    else:
        if collapse not in out["variants"]:
            raise ValueError("collapse='first' needs the trial order (give matrices or lists of rows, not Counts)")
        c = out["variants"][collapse]
        out.update(statistic=c["exact"]["statistic"], p_value=c["exact"]["p_value"],
                   method=f"exact binomial McNemar on the {collapse} trial" if collapse == "first"
                   else "exact binomial McNemar on majority votes")
    return out


# ----------------------------------------------------------------------------- result
@dataclass(frozen=True)
class Delta:
    """Posterior summary of ``theta_A - theta_B``."""

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


@dataclass(frozen=True, eq=False)
class Comparison:
    """Everything :func:`compare` found; see :meth:`summary`, :meth:`to_dict`, :meth:`to_frame`."""

    names: tuple
    metric: str
    M: int
    N: tuple
    estimates: dict
    delta: Delta
    p_a_better: float
    rope: dict | None
    verdict: str
    bootstrap: dict | None
    permutation: dict | None
    mcnemar: dict
    t_test: dict | None
    wilcoxon: dict | None
    miller: dict | None
    effect_size: dict | None
    seed: int
    notes: tuple = ()
    _draws: np.ndarray | None = field(default=None, repr=False)

    def draws(self) -> np.ndarray:
        """Posterior draws of ``theta_A - theta_B`` behind the interval and ``P(A > B)``."""
        return self._draws.copy()

    def to_dict(self) -> dict:
        def clean(x):
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items() if not k.startswith("_")}
            if isinstance(x, (list, tuple)):
                return [clean(v) for v in x]
            if isinstance(x, (np.floating, float)):
                return float(x) if math.isfinite(x) else None
            if isinstance(x, np.integer):
                return int(x)
            return x

        return clean({
            "models": list(self.names), "metric": self.metric, "M": self.M, "N": list(self.N),
            "estimates": {k: v.to_dict() for k, v in self.estimates.items()},
            "delta": self.delta.to_dict(), "p_a_better": self.p_a_better, "rope": self.rope,
            "verdict": self.verdict, "bootstrap": self.bootstrap, "permutation": self.permutation,
            "mcnemar": self.mcnemar, "t_test": self.t_test, "wilcoxon": self.wilcoxon, "miller": self.miller,
            "effect_size": self.effect_size, "seed": self.seed, "notes": list(self.notes),
        })

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def _rows(self) -> list[tuple[str, str, str, str]]:
        """(analysis, estimate, interval, p / probability) rows of the summary table."""
        a, b = self.names
        lv = f"{self.delta.level:.0%}"

        def f(x, d=4):
            return "-" if x is None else f"{x:.{d}f}"

        def pv(x):
            return "-" if x is None else (f"{x:.2g}" if x < 0.001 else f"{x:.4f}")

        rows = [(f"Bayesian {self.metric} {a} - {b} ({self.delta.scope})", f"{self.delta.mean:+.4f} (sd {self.delta.sd:.4f})",
                 f"[{self.delta.lo:+.4f}, {self.delta.hi:+.4f}] {lv} {self.delta.interval}", f"P(A>B) = {self.p_a_better:.4f}")]
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
        a, b = self.names
        ea, eb = self.estimates[a], self.estimates[b]
        va = ea.value if ea.value is not None else ea.mean
        vb = eb.value if eb.value is not None else eb.mean
        return (
            f"{self.verdict}. {self.metric}: {a} {va:.4f} vs {b} {vb:.4f}; {a} - {b} = {self.delta.mean:+.4f} "
            f"({self.delta.level:.0%} credible interval [{self.delta.lo:+.4f}, {self.delta.hi:+.4f}], "
            f"{self.delta.scope} scope), P({a} > {b}) = {self.p_a_better:.3f}; M = {self.M} paired questions."
        )

    def summary(self) -> str:
        """A plain-language verdict followed by a table of every analysis."""
        rows = self._rows()
        table = text_table(["analysis", "estimate", "interval", "p / probability"], rows)
        notes = "".join(f"\nnote: {n}" for n in self.notes)
        return self._headline() + "\n\n" + table + notes

    def __repr__(self) -> str:
        return self.summary()

    def to_frame(self):
        """One row per analysis (pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame(self._rows(), columns=["analysis", "estimate", "interval", "p / probability"])

    def _repr_html_(self) -> str:
        table = html_table(["analysis", "estimate", "interval", "p / probability"], self._rows())
        return f"<p>{html.escape(self._headline())}</p>{table}"


# ----------------------------------------------------------------------------- the front door
def _rope(rope: Any) -> tuple[float, float] | None:
    if rope is None:
        return None
    if isinstance(rope, np.ndarray) and rope.ndim == 0:
        rope = rope.item()
    if isinstance(rope, (bool, str)):
        raise V.InputTypeError(f"rope must be a half-width r > 0 or a pair (lo, hi), got {V.describe(rope)}")
    if np.ndim(rope) == 0:
        r = V.real(rope, "rope", lo=0.0)
        if r <= 0:
            raise ValueError(f"rope half-width must be > 0, got {r}")
        return -r, r
    lo, hi = (V.real(x, "rope") for x in rope) if len(rope) == 2 else (None, None)
    if lo is None or not lo < hi:
        raise ValueError(f"rope must be a half-width or a pair (lo, hi) with lo < hi, got {rope!r}")
    return lo, hi


def _verdict(names, level, p_better, rope_probs) -> str:
    a, b = names
    if rope_probs is not None:
        below, inside, above = rope_probs
        if above >= level:
            return f"{a} is better (outside the ROPE)"
        if below >= level:
            return f"{b} is better (outside the ROPE)"
        if inside >= level:
            return "practically equivalent (inside the ROPE)"
        return "undecided"
    if p_better >= (1 + level) / 2:
        return f"{a} is better"
    if p_better <= (1 - level) / 2:
        return f"{b} is better"
    return "no clear difference"


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
    prior, alpha0, beta0 : as in :func:`bayeseval.estimate` (default hierarchical).
    interval : "exact" (draw quantiles), "hdi" or "normal" for ``delta``.
    resamples : bootstrap and permutation resamples (10,000).
    collapse : McNemar for N > 1: "clustered" (Durkalski et al. 2003, all
        trials, the default), "first" (first observed trial of each question;
        needs matrices or lists of rows) or
        "majority" (strict majority vote per question); all available
        variants are reported under ``mcnemar["variants"]``.
    missing, ragged : passed to :func:`bayeseval.to_counts` for both models
        (e.g. ``missing=np.nan`` for unobserved trials, ``ragged=True`` for
        lists of rows of different lengths).

    Returns
    -------
    Comparison with ``delta`` (mean, sd, lo, hi), ``p_a_better``, ``rope``,
    ``verdict``, ``bootstrap``, ``permutation``, ``mcnemar``, ``t_test``,
    ``wilcoxon``, ``miller``, ``effect_size`` and ``estimates`` of each model.

    Formula (population scope): the Dirichlet-process posterior over questions,
    :math:`\Delta = [\sum_i G_i (x_{Ai} - x_{Bi}) + G_0 (Y_A - Y_B)] / (\sum_i G_i + G_0)`,
    :math:`G_i \sim \mathrm{Exp}(1)`, :math:`G_0 \sim \mathrm{Gamma}(1)`, with ``x`` the
    per-question unbiased scores and ``Y = g(q)``, ``q ~ Beta(prior)`` (uniform under the
    hierarchical prior) for each model; see :func:`bayeseval.comparison.joint.dp_bootstrap`.
    """
    scope = _check_choice(scope, "scope", SCOPES)
    method = _check_choice(interval, "interval", METHODS)
    collapse = _check_choice(collapse, "collapse", COLLAPSE)
    level = V.confidence(level, "level")
    draws = V.integer(draws, "draws", minimum=100)
    resamples = V.integer(resamples, "resamples", minimum=100)
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    rope_lh = _rope(rope)
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and all(isinstance(x, str) for x in names)
            and names[0] != names[1]):
        raise V.InputTypeError(f"names must be two different strings, got {names!r}")
    names = tuple(names)
    ca = _as_counts(A, names[0], missing, ragged)
    cb = _as_counts(B, names[1], missing, ragged)
    if not ca.is_binary or not cb.is_binary:
        raise ValueError("compare needs 0/1 outcomes for both models (categorical outcomes are not supported yet)")
    first_a, first_b = _first_trials(A), _first_trials(B)
    cb, order = align(ca, cb, names)
    if order is not None and first_b is not None:
        first_b = first_b[order]
    kw = dict(prior=prior, alpha0=alpha0, beta0=beta0, **metric_params)
    pa, pb = build(ca, metric, **kw), build(cb, metric, **kw)
    side_a, side_b = Side(pa, names[0]), Side(pb, names[1])
    rng = np.random.default_rng(seed)
    rng_bayes, rng_boot, rng_perm = rng.spawn(3)

    # Bayesian difference
    notes = []
    xa, xb = question_scores(pa), question_scores(pb)
    if scope == "population" and xa is not None and xb is not None:
        # Dirichlet-process posterior over questions of the paired per-question unbiased scores:
        # E[x_Ai - x_Bi | p] = g(p_Ai) - g(p_Bi), so it targets the population difference and keeps
        # the pairing exactly; one prior pseudo-question, the same for both models, keeps a handful
        # of one-sided differences from looking certain
        m_, cov, x = dp_bootstrap(np.column_stack([xa, xb]), side_a.c, base_measure(pa), draws, rng_bayes)
        mean = float(m_[0] - m_[1])
        sd = math.sqrt(max(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], 0.0))
        dx = x[:, 0] - x[:, 1]
        basis = ("Dirichlet-process posterior over questions (Bayesian bootstrap plus one prior pseudo-question) "
                 "of the paired per-question scores")
    elif scope == "population":
        mean, sd = population_moments([side_a, side_b], [1.0, -1.0])
        x = population_draws([side_a, side_b], draws, rng_bayes)
        dx = x[:, 0] - x[:, 1]
        basis = "Bayesian bootstrap over questions of each question's posterior (independent per model)"
        notes.append("k > n for some question, so the population difference uses each model's per-question "
                     "posterior, which ignores the correlation of A and B within a question (conservative)")
    else:
        ma, sa = pa.moments("benchmark")
        mb, sb = pb.moments("benchmark")
        mean, sd = ma - mb, math.hypot(sa, sb)
        r1, r2 = rng_bayes.spawn(2)
        dx = pa.draws("benchmark", draws, r1) - pb.draws("benchmark", draws, r2)
        basis = "difference of the two models' independent posteriors over these questions"
    if method == "normal":
        z = float(ndtri(0.5 + level / 2))
        lo_b, hi_b = pa.range[0] - pb.range[1], pa.range[1] - pb.range[0]  # the difference's range
        lo, hi = max(mean - z * sd, lo_b), min(mean + z * sd, hi_b)
    else:
        lo, hi = interval_from_draws(dx, level, method)
    p_better = float(np.mean(dx > 0) + 0.5 * np.mean(dx == 0))
    rope_out = None
    rope_probs = None
    if rope_lh is not None:
        rope_probs = (float(np.mean(dx < rope_lh[0])), float(np.mean((dx >= rope_lh[0]) & (dx <= rope_lh[1]))),
                      float(np.mean(dx > rope_lh[1])))
        rope_out = {"lo": rope_lh[0], "hi": rope_lh[1], "below": rope_probs[0], "inside": rope_probs[1],
                    "above": rope_probs[2]}
    delta = Delta(float(mean), float(sd), float(lo), float(hi), level, scope, method, basis)

    # per-model estimates (same scope, prior and seed), from the posteriors built above
    est = {name: summarise(post, scope=scope, method=method, level=level, draws=draws, seed=seed, model=name)
           for name, post in zip(names, (pa, pb))}

    # frequentist analyses on per-question unbiased scores
    boot = perm = ttest = wil = miller = effect = None
    if xa is None or xb is None:
        notes.append(f"{pa.spec.label} has no unbiased per-question estimate where k > n; "
                     "only the Bayesian comparison is reported")
    else:
        d = xa - xb
        M = d.size
        boot = paired_bootstrap(d, resamples=resamples, level=level, rng=rng_boot)
        perm = sign_flip_test(d, resamples=resamples, rng=rng_perm)
        sd_d = float(d.std(ddof=1)) if M > 1 else 0.0
        z = float(ndtri(0.5 + level / 2))
        if M > 1:
            se = sd_d / math.sqrt(M)
            se_a = float(xa.std(ddof=1)) / math.sqrt(M)
            se_b = float(xb.std(ddof=1)) / math.sqrt(M)
            corr = float(np.corrcoef(xa, xb)[0, 1]) if xa.std() > 0 and xb.std() > 0 else None
            miller = {"delta": float(d.mean()), "se_paired": se, "se_unpaired": math.hypot(se_a, se_b),
                      "lo": float(d.mean()) - z * se, "hi": float(d.mean()) + z * se, "correlation": corr}
            tq = float(stats.t.ppf(0.5 + level / 2, M - 1))
            if sd_d > 0:
                t = float(d.mean()) / se
                ttest = {"statistic": t, "df": M - 1, "p_value": float(2 * stats.t.sf(abs(t), M - 1)),
                         "lo": float(d.mean()) - tq * se, "hi": float(d.mean()) + tq * se}
                effect = {"cohens_dz": float(d.mean()) / sd_d}
            else:
                notes.append("every question has the same difference; the t-test and effect size are undefined")
            if np.any(d != 0):
                w = stats.wilcoxon(d, zero_method="wilcox")
                wil = {"statistic": float(w.statistic), "p_value": float(w.pvalue), "zero_method": "wilcox"}
            else:
                wil = {"statistic": 0.0, "p_value": 1.0, "zero_method": "wilcox"}
    mc = mcnemar_tests(ca, cb, first_a, first_b, collapse)
    return Comparison(
        names=names, metric=pa.spec.label, M=ca.M, N=(_n_label(ca), _n_label(cb)), estimates=est, delta=delta,
        p_a_better=p_better, rope=rope_out, verdict=_verdict(names, level, p_better, rope_probs), bootstrap=boot,
        permutation=perm, mcnemar=mc, t_test=ttest, wilcoxon=wil, miller=miller, effect_size=effect, seed=seed,
        notes=tuple(notes), _draws=dx,
    )


def _n_label(c: Counts):
    return int(c.n[0]) if not c.ragged else f"{int(c.n.min())}-{int(c.n.max())}"


# ----------------------------------------------------------------------------- many models
@dataclass(frozen=True, eq=False)
class Ranking:
    """Result of :func:`compare_all`: scores, rank probabilities and every pairwise comparison."""

    metric: str
    scope: str
    level: float
    models: list  # sorted by score, best first
    scores: dict  # name -> Estimate
    rank_probs: np.ndarray  # (K, K): row = model (in ``models`` order), column = rank 1..K
    expected_rank: dict
    p_best: dict
    pairs: list  # dicts: a, b, delta, lo, hi, p_a_better, p_value, p_holm, p_bh
    test: str
    seed: int

    def table(self) -> list[tuple]:
        rows = []
        for m in self.models:
            e = self.scores[m]
            rows.append((m, "-" if e.value is None else f"{e.value:.4f}", f"{e.mean:.4f}",
                         f"[{e.lo:.4f}, {e.hi:.4f}]", f"{self.p_best[m]:.3f}", f"{self.expected_rank[m]:.2f}"))
        return rows

    def pair_table(self) -> list[tuple]:
        return [(p["a"], p["b"], f"{p['delta']:+.4f}", f"[{p['lo']:+.4f}, {p['hi']:+.4f}]", f"{p['p_a_better']:.3f}",
                 f"{p['p_value']:.4g}", f"{p['p_holm']:.4g}", f"{p['p_bh']:.4g}") for p in self.pairs]

    _HEAD = ("model", "value", "mean", "interval", "P(best)", "E[rank]")
    _PAIR_HEAD = ("A", "B", "A - B", "interval", "P(A>B)", "p", "p Holm", "p BH")

    def summary(self) -> str:
        head = (f"{self.metric}, {self.scope} scope, {self.level:.0%} intervals; p-values: {self.test} test, "
                "adjusted for all pairs (Holm; Benjamini-Hochberg)")
        return "\n\n".join([head, text_table(self._HEAD, self.table()), text_table(self._PAIR_HEAD, self.pair_table())])

    def __repr__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        return html_table(self._HEAD, self.table()) + html_table(self._PAIR_HEAD, self.pair_table())

    def to_frame(self):
        """Models sorted by score with P(best), expected rank and P(rank = r) columns."""
        import pandas as pd

        df = pd.DataFrame.from_records([self.scores[m].to_dict() for m in self.models])
        df["p_best"] = [self.p_best[m] for m in self.models]
        df["expected_rank"] = [self.expected_rank[m] for m in self.models]
        for r in range(len(self.models)):
            df[f"p_rank_{r + 1}"] = self.rank_probs[:, r]
        return df

    def pairs_frame(self):
        import pandas as pd

        return pd.DataFrame.from_records(self.pairs)

    def to_dict(self) -> dict:
        return {
            "metric": self.metric, "scope": self.scope, "level": self.level, "test": self.test, "seed": self.seed,
            "models": [{**self.scores[m].to_dict(), "p_best": self.p_best[m], "expected_rank": self.expected_rank[m],
                        "p_rank": self.rank_probs[i].tolist()} for i, m in enumerate(self.models)],
            "pairs": [{k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in p.items()}
                      for p in self.pairs],
        }


def _model_dict(models: Any) -> dict:
    if isinstance(models, dict):
        out = dict(models)
    elif hasattr(models, "names") and hasattr(models, "counts"):
        out = {name: models.counts(name) for name in models.names()}
    else:
        raise V.InputTypeError(f"models must be a dict name -> outcomes or an outcome file, got {V.describe(models)}")
    if len(out) < 2:
        raise ValueError(f"compare_all needs at least two models, got {len(out)}")
    if not all(isinstance(k, str) for k in out):
        raise V.InputTypeError("model names must be strings")
    return out


def compare_all(models: Any, *, metric: Any = "avg", scope: str = DEFAULT_SCOPE, level: float = 0.95,
                seed: int | None = None, prior: Any = None, alpha0: Any = None, beta0: Any = None,
                test: str = "permutation", draws: int = DEFAULT_DRAWS, resamples: int = DEFAULT_RESAMPLES,
                missing: Any = None, ragged: bool = False, **metric_params) -> Ranking:
    """Every pair of models compared, p-values adjusted (Holm, Benjamini-Hochberg), and rank probabilities.

    ``models``: dict name -> outcomes (same questions; matched by id when
    every model has ids) or an outcome file.  ``test``: which p-value is
    adjusted, "permutation" (sign-flip, the default) or "bootstrap".  Rank
    probabilities come from joint posterior draws of all models' scores: in
    the population scope one Bayesian bootstrap over questions with shared
    weights (so question difficulty is shared), in the benchmark scope the
    models' independent posteriors.  Tied draws are split at random (equally
    in expectation).

    >>> import numpy as np
    >>> rng = np.random.default_rng(3)
    >>> p = rng.beta(2, 2, 300)
    >>> R = {f"m{j}": (rng.random((300, 2)) < np.clip(p + 0.06 * j, 0, 1)[:, None]).astype(int) for j in range(3)}
    >>> rk = compare_all(R, seed=1)
    >>> rk.models, rk.p_best["m2"] > rk.p_best["m1"] > rk.p_best["m0"]
    (['m2', 'm1', 'm0'], True)
    """
    from statsmodels.stats.multitest import multipletests


    test = _check_choice(test, "test", ("permutation", "bootstrap"))
    scope = _check_choice(scope, "scope", SCOPES)
    level = V.confidence(level, "level")
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    draws = V.integer(draws, "draws", minimum=100)
    raw = _model_dict(models)
    names = list(raw)
    counts = {k: _as_counts(v, k, missing, ragged) for k, v in raw.items()}
    base = counts[names[0]]
    for k in names[1:]:
        counts[k], _ = align(base, counts[k], (names[0], k))
    kw = dict(prior=prior, alpha0=alpha0, beta0=beta0, **metric_params)
    posts = {k: build(c, metric, **kw) for k, c in counts.items()}
    scores = {k: summarise(posts[k], scope=scope, method=DEFAULT_INTERVAL, level=level, draws=draws, seed=seed,
                           model=k) for k in names}
    rng = np.random.default_rng(seed)
    r_joint, r_pairs = rng.spawn(2)
    X = [question_scores(posts[k]) for k in names]
    sides = [Side(posts[k], k) for k in names]
    if scope == "population" and all(x is not None for x in X):
        _, _, joint = dp_bootstrap(np.column_stack(X), sides[0].c, base_measure(posts[names[0]]), draws, r_joint)
    elif scope == "population":
        joint = population_draws(sides, draws, r_joint)
    else:
        joint = np.column_stack([posts[k].draws("benchmark", draws, r) for k, r in zip(names, r_joint.spawn(len(names)))])
    K = len(names)
    order = np.lexsort((r_joint.random(joint.shape), -joint), axis=1)  # ties split at random
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, K + 1)[None, :].repeat(joint.shape[0], 0), axis=1)
    probs = np.stack([(ranks == r).mean(axis=0) for r in range(1, K + 1)], axis=1)  # (K models, K ranks)
    pairs = []
    for i in range(K):
        for j in range(i + 1, K):
            a, b = names[i], names[j]
            c = compare(counts[a], counts[b], metric=posts[a].spec, scope=scope, level=level, prior=prior,
                        alpha0=alpha0, beta0=beta0, seed=int(r_pairs.integers(2**31)), draws=draws,
                        resamples=resamples, names=(a, b))
            src = c.permutation if test == "permutation" else c.bootstrap
            pairs.append({"a": a, "b": b, "delta": c.delta.mean, "lo": c.delta.lo, "hi": c.delta.hi,
                          "p_a_better": c.p_a_better, "p_value": None if src is None else src["p_value"]})
    pv = np.array([p["p_value"] if p["p_value"] is not None else np.nan for p in pairs])
    ok = np.isfinite(pv)
    holm = np.full(pv.size, np.nan)
    bh = np.full(pv.size, np.nan)
    if ok.any():
        holm[ok] = multipletests(pv[ok], method="holm")[1]
        bh[ok] = multipletests(pv[ok], method="fdr_bh")[1]
    for p, h, q in zip(pairs, holm, bh):
        p["p_holm"], p["p_bh"] = (float(h), float(q)) if math.isfinite(h) else (None, None)

    def key(k):
        e = scores[k]
        return -(e.value if e.value is not None else e.mean)

    sorted_names = sorted(names, key=key)
    idx = [names.index(k) for k in sorted_names]
    return Ranking(
        metric=posts[names[0]].spec.label, scope=scope, level=level, models=sorted_names, scores=scores,
        rank_probs=probs[idx], expected_rank={k: float(ranks[:, names.index(k)].mean()) for k in names},
        p_best={k: float(probs[names.index(k), 0]) for k in names}, pairs=pairs, test=test, seed=seed,
    )
