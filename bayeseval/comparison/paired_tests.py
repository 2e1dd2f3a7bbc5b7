r"""Paired tests of two models on the same questions; each returns a :class:`TestResult`.

Every test works on the per-question scores of the two models (the unbiased per-question
estimates of the metric, so the tests concern the quantity the point estimate reports) or,
for the McNemar family, on per-trial correctness:

* :func:`paired_bootstrap` -- bootstrap over questions of the mean difference (percentile and
  BCa intervals, Efron & Tibshirani 1993 ch. 14);
* :func:`sign_flip_test` -- paired sign-flip permutation test of the mean difference;
* :func:`paired_t_test`, :func:`wilcoxon_test` -- on the per-question differences;
* :func:`mcnemar_tests` -- McNemar for one trial per question (exact, mid-p, chi-square with
  continuity correction; statsmodels) and the clustered McNemar of Durkalski et al. (2003);
* :func:`adjust` -- Holm and Benjamini-Hochberg adjustment of a family of p-values
  (statsmodels ``multipletests``), the one place where p-values are adjusted.

**Many distinct differences** (continuous scores: more than ``DP_EXACT_ROWS``, 20,000; for the bootstrap also
more than 2,048 on more than 32,768 questions, where grouping at least halves its work: pass@k from many trials,
:func:`_grouped_bootstrap`): the bootstrap and the Monte-Carlo sign-flip resample 1,024 groups of differences of
about equal frequency (:func:`bayeseval.posterior.bootstrap.frequency_groups`) -- multinomial counts of each
group, or a binomial number of flipped signs in each -- and add the spread within the groups as a normal,
uncorrelated with the groups' part and with its exact variance (``sum_i e_i^2 / M^2`` for the bootstrap mean,
``sum_i e_i^2`` for the flipped sum, ``e_i`` a difference's deviation from its group's mean).  The resampled
statistic keeps its exact mean and variance; only the within-group part's shape is a normal, and a difference that
would carry more than 1/256 of that part (an outlier) is a group of its own.  ``details["groups"]`` says so.  At
10^6 questions a resample then costs about 1,024 draws instead of 10^6 (scores rounded to 4 decimals, about 30,000
distinct differences: the bootstrap took 39 s of compare's 43 s before).  Up to 20,000 distinct differences the
Monte-Carlo sign-flip keeps every one and, once its binomials would number more than 4 million, draws each
question's sign as one random bit (:func:`_flips_by_bits`: the same law, exactly).

>>> import numpy as np
>>> d = np.array([0.25, 0.5, 0.0, 0.25, -0.25, 0.5, 0.25, 0.0])
>>> res = sign_flip_test(d, rng=np.random.default_rng(0))
>>> res.method, round(res.p_value, 4), res["p_value"] == res.p_value
('exact', 0.1563, True)
>>> adjust([0.01, 0.04, 0.03])["holm"].round(3).tolist()
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from scipy import stats
from scipy.special import ndtr, ndtri

from ..counts import Counts
from ..posterior.bootstrap import DP_BINS, DP_EXACT_ROWS, frequency_groups

__all__ = ["TestResult", "snap_ties", "paired_bootstrap", "sign_flip_test", "paired_t_test", "wilcoxon_test", "mcnemar_tests",
           "durkalski", "adjust", "DEFAULT_RESAMPLES", "COLLAPSE"]

COLLAPSE = ("clustered", "first", "majority")
DEFAULT_RESAMPLES = 10_000


def snap_ties(d: np.ndarray, rel: float = 1e-12) -> np.ndarray:
    """Per-question differences with float noise removed: values equal in exact arithmetic compare equal, and so
    do magnitudes (a rank test ranks ``|d|``; a sign flip maps ``d`` to ``-d``).

    The per-question scores are rationals (hypergeometric sums) computed in floating point, so two
    questions with the same exact difference, or with opposite ones (``4/5 - 3/5`` against ``2/5 - 3/5``), can
    differ by 1e-16 and no longer tie in a rank test or a permutation.  Magnitudes within ``rel * max(1, max
    |d|)`` of each other (after sorting) become the smallest of their group, keeping each value's sign, and
    values that close to 0 become 0.

    >>> snap_ties(np.array([0.1 + 0.2 - 0.3, 0.3, 0.1 + 0.2])).tolist()
    [0.0, 0.3, 0.3]
    >>> snap_ties(np.array([0.8 - 0.6, 0.4 - 0.6])).tolist()
    [0.19999999999999996, -0.19999999999999996]
    """
    d = np.asarray(d, dtype=np.float64)
    if d.size == 0:
        return d.copy()
    a = np.abs(d)
    tol = rel * max(1.0, float(np.max(a)))
    order = np.argsort(a, kind="stable")
    xs = a[order]
    new = np.concatenate([[True], np.diff(xs) > tol])
    reps = xs[new][np.cumsum(new) - 1]
    out = np.empty_like(d)
    out[order] = reps
    out[out <= tol] = 0.0
    return np.where(out > 0, np.copysign(out, d), 0.0)


@dataclass(frozen=True, eq=False)
class TestResult(Mapping):
    """One paired test: what it tests, its statistic, p-value and (where it has one) interval.

    ``tests`` says in words what the null hypothesis is about (which metric, which
    per-question quantity).  ``details`` holds the test's own extras (resamples,
    McNemar variants, the bootstrap's BCa constants).  The result is also a read-only
    mapping with the same keys as :meth:`to_dict`, so ``res["p_value"]`` works.
    """

    __test__ = False  # not a pytest test class

    name: str
    tests: str
    statistic: float | None
    p_value: float | None
    method: str
    lo: float | None = None
    hi: float | None = None
    details: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        out = {"test": self.name, "tests": self.tests, "statistic": self.statistic, "p_value": self.p_value,
               "method": self.method}
        if self.lo is not None or self.hi is not None:
            out.update(lo=self.lo, hi=self.hi)
        out.update(self.details)
        return out

    def confidence_interval(self) -> tuple[float, float] | None:
        """The test's interval for the difference, where it has one."""
        return None if self.lo is None else (self.lo, self.hi)

    def summary(self) -> str:
        p = "-" if self.p_value is None else f"{self.p_value:.4g}"
        ci = "" if self.lo is None else f", interval [{self.lo:+.4f}, {self.hi:+.4f}]"
        return f"{self.name} ({self.method}): tests {self.tests}; statistic {self.statistic}, p = {p}{ci}"

    def __getitem__(self, key):
        return self.to_dict()[key]

    def __iter__(self):
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())

    def _repr_html_(self) -> str:
        import html

        return f"<p>{html.escape(self.summary())}</p>"


def _distinct(d: np.ndarray):
    v, f = np.unique(d, return_counts=True)
    return v, f


def paired_bootstrap(d: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, level: float = 0.95,
                     rng: np.random.Generator, tests: str = "mean per-question difference = 0") -> TestResult:
    r"""Bootstrap over questions of the mean per-question difference ``d``.

    Resampling M questions with replacement is a multinomial draw of how often
    each distinct value of ``d`` appears, so each resample costs one
    multinomial over the ``U`` distinct values when ``16 U <= M`` (or else, the
    cheaper way then, one index draw per question); where 1,024 groups of values
    halve that work, a multinomial over the groups (module docstring).  Intervals: percentile and BCa
    (bias-corrected and accelerated; the jackknife acceleration of a mean is
    :math:`a = \sum (d_i - \bar d)^3 / (6 [\sum (d_i - \bar d)^2]^{3/2})`).
    p-value: two-sided, from the bootstrap distribution shifted to the null,
    :math:`(1 + \#\{|\hat\delta^*_b - \hat\delta| \ge |\hat\delta|\}) / (B + 1)`.  A negative mean
    difference is bootstrapped as its mirror image and the result mirrored back, so swapping the two models
    mirrors the intervals and keeps the p-value exactly (the draws follow the sorted distinct values).
    """
    d = np.asarray(d, dtype=np.float64)
    if d.mean() < 0:
        return _mirrored(paired_bootstrap(-d, resamples=resamples, level=level, rng=rng, tests=tests))
    M = d.size
    est = float(d.mean())
    v, f = _distinct(d)
    boot = np.empty(resamples)
    groups = None
    if v.size == 1:
        boot[:] = v[0]
    elif _grouped_bootstrap(v.size, M):  # many distinct differences: grouped by value (module docstring)
        means, fb, spread = frequency_groups(v[:, None], f.astype(np.float64))
        groups = int(fb.size)
        step = max(1, 4_000_000 // groups)
        for s in range(0, resamples, step):
            c = min(step, resamples - s)
            boot[s : s + c] = rng.multinomial(M, fb / M, size=c) @ means[:, 0] / M
        boot += rng.normal(0.0, math.sqrt(float(spread[0, 0])) / M, resamples)  # the spread within the groups
    elif v.size * 16 <= M:  # a multinomial row costs about 16 index draws per distinct value (numpy 2)
        prob = f / M
        step = max(1, 4_000_000 // v.size)
        for s in range(0, resamples, step):
            c = min(step, resamples - s)
            boot[s : s + c] = rng.multinomial(M, prob, size=c) @ v / M
    else:
        step = max(1, 4_000_000 // M)
        ordered = np.sort(d)  # resampled in value order: the same draws whatever the order of the questions
        for s in range(0, resamples, step):
            c = min(step, resamples - s)
            boot[s : s + c] = ordered[rng.integers(0, M, size=(c, M))].mean(axis=1)
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
    p_value = (1.0 if est == 0 else None) if v.size == 1 else float(min(1.0, p))
    # one distinct difference: the bootstrap distribution is a point and says nothing about the null
    return TestResult("paired bootstrap", tests, est, p_value, "bca", bca[0], bca[1], {
        "estimate": est, "percentile": {"lo": float(pct[0]), "hi": float(pct[1])}, "bca": {"lo": bca[0], "hi": bca[1]},
        "resamples": int(resamples), "se": float(boot.std(ddof=1)), "bias_correction": z0, "acceleration": a,
        "_draws": boot, **({} if groups is None else {"groups": groups}),
    })


def _mirrored(res: TestResult) -> TestResult:
    """The bootstrap of ``-d`` read as that of ``d``: estimate, ends and draws negated and swapped, the BCa
    constants' signs flipped; p-value and se unchanged."""
    x = res.details
    flip = lambda span: {"lo": -span["hi"], "hi": -span["lo"]}  # noqa: E731
    details = {**x, "estimate": -x["estimate"], "percentile": flip(x["percentile"]), "bca": flip(x["bca"]),
               "bias_correction": -x["bias_correction"], "acceleration": -x["acceleration"], "_draws": -x["_draws"]}
    return TestResult(res.name, res.tests, -res.statistic, res.p_value, res.method, -res.hi, -res.lo, details)


def sign_flip_test(d: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, rng: np.random.Generator,
                   exact_limit: int = 200_000, tests: str = "mean per-question difference = 0") -> TestResult:
    r"""Paired sign-flip permutation test of ``mean(d) = 0`` (two-sided).

    Under the null each question's pair can be swapped, flipping the sign of
    its difference.  Questions with the same value of ``d`` are exchangeable,
    so a group of ``f`` contributes ``v (2 X - f)`` with ``X ~ Bin(f, 1/2)``.
    Exact when the flips have at most ``exact_limit`` distinct outcomes
    (enumerated with binomial probabilities), or when the differences lie on a
    lattice ``z / L`` (integers ``z``, ``L <= 4096``: averages of N trials, N
    up to 4096, and their differences) whose null distribution has at most
    ``exact_limit`` support points (then convolved group by group on the
    integers, so ties are exact too); otherwise Monte Carlo with
    ``p = (1 + #{|T*| >= |T|}) / (B + 1)``, the ``X_u`` drawn as binomials or,
    where those cost more (:func:`_flips_by_bits`), as counts of random bits.
    """
    d = np.asarray(d, dtype=np.float64)
    M = d.size
    t_obs = float(d.sum())
    v, f = _distinct(d[d != 0])
    if v.size == 0:
        # every flip gives 0: P(|T| > 0) + P(|T| = 0) / 2 (Lancaster's mid-p, as below)
        return TestResult("sign-flip permutation", tests, 0.0, 1.0, "exact", details={"resamples": 0, "mid_p": 0.5})
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
        at_least = np.abs(values) >= abs(t_obs) - tol
        tie = at_least & (np.abs(values) <= abs(t_obs) + tol)
        p = float(probs[at_least].sum())
        mid = p - 0.5 * float(probs[tie].sum())  # mid-p (Lancaster 1961): half the probability of the observed value
        return TestResult("sign-flip permutation", tests, t_obs / M, min(1.0, p), "exact",
                          details={"resamples": 0, "mid_p": min(1.0, mid)})
    lattice = _lattice_null(v, f, exact_limit)
    if lattice is not None:
        return _result_on_lattice(lattice, t_obs, M, tests)
    extra = {}
    T = None if v.size > DP_EXACT_ROWS else _flips_by_bits(v, f, resamples, rng)  # None: binomials are cheaper
    if T is None:
        if v.size > DP_EXACT_ROWS:  # continuous differences at scale: grouped by value (module docstring)
            means, fb, spread = frequency_groups(v[:, None], f.astype(np.float64))
            v, f = means[:, 0], np.rint(fb).astype(np.int64)
            extra = {"groups": int(f.size)}
        T = np.empty(resamples)
        step = max(1, 4_000_000 // v.size)
        for s in range(0, resamples, step):
            c = min(step, resamples - s)
            T[s : s + c] = (2 * rng.binomial(f, 0.5, size=(c, f.size)) - f) @ v
        if extra:
            T += rng.normal(0.0, math.sqrt(float(spread[0, 0])), resamples)  # each flip of the spread within a group
    ge = np.count_nonzero(np.abs(T) >= abs(t_obs) - tol)
    eq = np.count_nonzero(np.abs(np.abs(T) - abs(t_obs)) <= tol)
    p = (1 + ge) / (resamples + 1)
    mid = (1 + ge - 0.5 * eq) / (resamples + 1)
    return TestResult("sign-flip permutation", tests, t_obs / M, float(min(1.0, p)), "monte carlo",
                      details={"resamples": int(resamples), "mid_p": float(min(1.0, mid)), **extra})


GROUPED_BOOTSTRAP_WORK = 32 * DP_BINS  # index draws per resample above which grouping halves the bootstrap's work
FLIP_BITS_FROM = 4_000_000  # binomial draws (resamples x distinct differences) above which signs are drawn as bits
_FULL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


def _grouped_bootstrap(U: int, M: int) -> bool:
    """Whether :func:`paired_bootstrap` resamples frequency groups (module docstring) instead of every distinct value.

    Above ``DP_EXACT_ROWS`` distinct differences always; below, where grouping at least halves the work.  A resample
    costs ``min(16 U, M)`` index draws exactly (a multinomial row over ``U`` values costs about 16 per value, numpy 2)
    and about ``16 x DP_BINS`` grouped, so the groups take over from ``U > 2,048`` distinct differences on more than
    32,768 questions (pass@8 from 128 trials: 4,300-4,900 distinct differences at 10^5-3 x 10^5 questions, whose
    10,000 resamples took 12.9-13.9 s, grouped 2.2-2.3 s; ``benchmarks/results_bench_compare_large.md``).  There the
    within-group spread drawn as a normal is 1e-4 to 4e-4 of the bootstrap variance.

    >>> _grouped_bootstrap(4_000, 100_000), _grouped_bootstrap(4_000, 10_000), _grouped_bootstrap(1_500, 10**6)
    (True, False, False)
    """
    return U > DP_EXACT_ROWS or min(16 * U, M) > GROUPED_BOOTSTRAP_WORK


def _popcount(x: np.ndarray) -> np.ndarray:
    """The number of one bits of each ``uint64`` (``np.bitwise_count`` from numpy 2.0; a byte table before)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    return table[x.view(np.uint8)].reshape(*x.shape, 8).sum(axis=-1, dtype=np.uint8)


def _flips_by_bits(v: np.ndarray, f: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray | None:
    r"""``resamples`` Monte-Carlo sums :math:`T = \sum_u |v_u| (2 X_u - f_u)`, ``X_u ~ Bin(f_u, 1/2)`` drawn as the
    number of ones among ``f_u`` random bits; None where numpy's binomials are cheap enough (at most
    ``FLIP_BITS_FROM`` of them, whose draws then stay as they were) or cheaper.

    The law is the sign-flip null's exactly: each question's sign is one fair bit, and under the null only ``|d|``
    matters (``v`` and ``-v`` form one group, so ``d`` and ``-d`` get the same draws and the same p-value).  A
    group takes ``ceil(f / 64)`` random 64-bit words, its last one masked to the bits it uses, and
    ``T = 2 sum_w popcount(word_w) |v_(w)| - sum_u f_u |v_u|`` is one matrix product per block of resamples.  A
    binomial costs 100-250 ns (numpy 2; its inversion loops over the ``f / 2`` expected successes), a word 5-10 ns:
    pass@8 from 128 trials at 10^5-3 x 10^5 questions (4,300-4,900 distinct differences) took 10.2-14.2 s for 10,000
    resamples, by bits 0.9-1.7 s (``benchmarks/results_bench_compare_large.md``).
    """
    if v.size * resamples <= FLIP_BITS_FROM:
        return None
    a, where = np.unique(np.abs(v), return_inverse=True)
    f = np.bincount(where.ravel(), weights=f, minlength=a.size).astype(np.int64)
    words = (f + 63) // 64
    W = int(words.sum())
    if W > 16 * a.size:  # few values, each on many questions: a binomial per value is the cheaper draw
        return None
    mask = np.full(W, _FULL)
    last = np.cumsum(words) - 1
    mask[last] = _FULL >> (64 - (f - 64 * (words - 1))).astype(np.uint64)  # the last word keeps 1..64 bits
    aw = np.repeat(a, words)
    total = float(f @ a)
    T = np.empty(resamples)
    step = max(1, 4_000_000 // W)
    for s in range(0, resamples, step):
        c = min(step, resamples - s)
        bits = rng.integers(0, _FULL, size=(c, W), dtype=np.uint64, endpoint=True)
        bits &= mask
        T[s : s + c] = 2.0 * (_popcount(bits).astype(np.float64) @ aw) - total
    return T


LATTICE_MAX_DENOMINATOR = 4096


def _lattice_null(v: np.ndarray, f: np.ndarray, limit: int):
    """The exact null distribution of ``sum_u v_u (2 X_u - f_u)`` (``X_u ~ Bin(f_u, 1/2)``) when every ``v_u``
    is ``z_u / L`` for integers ``z_u`` and ``L <= LATTICE_MAX_DENOMINATOR``, and the work is bounded
    (``sum_u (f_u + 1)`` shifts of an array of ``2 sum_u |z_u| f_u + 1`` entries, at most ``limit`` entries and
    ``50 limit`` operations, so at most a few thousand shifts): ``(probabilities over -S..S, L)``, else None."""
    L = _lattice_denominator(np.abs(v))
    if L is None:
        return None
    z = np.rint(np.abs(v) * L).astype(np.int64)
    z, where = np.unique(z, return_inverse=True)  # under the null only |d| matters: +-v form one group
    f = np.bincount(where.ravel(), weights=f, minlength=z.size).astype(np.int64)
    S = int(z @ f)
    width = 2 * S + 1
    if width > limit or float(f.sum() + f.size) * width > 50.0 * limit:
        return None
    dist = np.zeros(width)
    dist[S] = 1.0  # index S is a sum of 0; support grows from the centre
    span = 0
    starts = np.concatenate([[0], np.cumsum(f + 1)])
    x_all = np.arange(starts[-1]) - np.repeat(starts[:-1], f + 1)
    pmf_all = stats.binom.pmf(x_all, np.repeat(f, f + 1), 0.5)  # every group's Bin(f_u, 1/2) in one call
    for u, (zu, fu) in enumerate(zip(z.tolist(), f.tolist())):  # one group of equal |d|: X_u = x adds z_u (2x - f_u)
        pmf = pmf_all[starts[u] : starts[u + 1]]
        lo, hi = S - span, S + span + 1
        block = dist[lo:hi].copy()
        dist[lo:hi] = 0.0
        for x, px in enumerate(pmf):
            shift = zu * (2 * x - fu)
            dist[lo + shift : hi + shift] += px * block
        span += zu * fu
    return dist, L


def _lattice_denominator(a: np.ndarray) -> float | None:
    """The smallest ``L <= LATTICE_MAX_DENOMINATOR`` with every ``a * L`` an integer (to 1e-9), else None.  The
    candidates are those that fit 64 of the values; only they are checked on all of them (every ``L`` against every
    value took ``4,096 x U`` doubles: 9.8 GB for 300,000 continuous differences)."""
    def fits(x, L):
        s = x[None, :] * L[:, None]
        return np.all(np.abs(s - np.rint(s)) <= 1e-9 * np.maximum(s, 1.0), axis=1)

    L = np.arange(1, LATTICE_MAX_DENOMINATOR + 1, dtype=np.float64)
    pick = a[np.linspace(0, a.size - 1, min(a.size, 64)).round().astype(np.int64)]
    for cand in L[fits(pick, L)][:32]:  # bounded: past that, the Monte-Carlo test (not exact, still valid)
        if fits(a, np.array([cand]))[0]:
            return float(cand)
    return None


def _result_on_lattice(lattice, t_obs: float, M: int, tests: str) -> TestResult:
    dist, L = lattice
    S = (dist.size - 1) // 2
    t = int(round(abs(t_obs) * L))
    at_least = dist[: S - t + 1].sum() + dist[S + t :].sum() if t > 0 else 1.0
    tie = (dist[S - t] + dist[S + t]) if t > 0 else dist[S]
    p = min(1.0, float(at_least))
    mid = min(1.0, float(at_least - 0.5 * tie))
    return TestResult("sign-flip permutation", tests, t_obs / M, p, "exact", details={"resamples": 0, "mid_p": mid})


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


def mcnemar_tests(ca: Counts, cb: Counts, first_a=None, first_b=None, collapse: str = "clustered") -> TestResult:
    """McNemar-family tests; the headline follows ``collapse`` (forced to one trial when N = 1).

    They test per-trial correctness (the avg metric: is A right where B is wrong as often as the
    reverse?), whatever metric the comparison is about; every variant is in ``details["variants"]``.
    """
    na, sa = ca.n, ca.successes()
    nb, sb = cb.n, cb.successes()
    single = bool((na == 1).all() and (nb == 1).all())
    variants: dict = {}
    if single:
        one = _mcnemar_2x2(sa, sb, "single trial")
        variants["single"] = one
        return TestResult("McNemar", MCNEMAR_TESTS, one["exact"]["statistic"], one["exact"]["p_value"],
                          "exact McNemar on per-trial correctness (one trial per question)",
                          details={"variants": variants})
    variants["clustered"] = durkalski(sa / na, sb / nb)
    # majority: a question counts as correct when strictly more than half its trials are
    variants["majority"] = _mcnemar_2x2(2 * sa > na, 2 * sb > nb, "majority")
    if first_a is not None and first_b is not None:
        variants["first"] = _mcnemar_2x2(first_a, first_b, "first")
    if collapse == "clustered":
        c = variants["clustered"]
        stat, p = c["statistic"], c["p_value"]
        method = "clustered McNemar on per-trial correctness (Durkalski et al. 2003)"
    else:
        if collapse not in variants:
            raise ValueError("collapse='first' needs the trial order (give matrices or lists of rows, not Counts)")
        c = variants[collapse]
        stat, p = c["exact"]["statistic"], c["exact"]["p_value"]
        method = (f"exact binomial McNemar on the {collapse} trial" if collapse == "first"
                  else "exact binomial McNemar on majority votes")
    return TestResult("McNemar", MCNEMAR_TESTS, stat, p, method, details={"variants": variants})


MCNEMAR_TESTS = "per-trial correctness (the avg metric): A right where B is wrong as often as the reverse"


def paired_t_test(d: np.ndarray, *, level: float = 0.95, tests: str = "mean per-question difference = 0"
                  ) -> TestResult | None:
    r"""Paired t-test of ``mean(d) = 0`` with the t interval ``dbar +- t_{M-1} s_d / sqrt(M)``.

    None when ``M < 2`` or every difference is the same (the statistic is undefined).
    """
    d = np.asarray(d, dtype=np.float64)
    M = d.size
    if M < 2:
        return None
    sd_d = float(d.std(ddof=1))
    if not sd_d > 0:
        return None
    se = sd_d / math.sqrt(M)
    tq = float(stats.t.ppf(0.5 + level / 2, M - 1))
    t = float(d.mean()) / se
    return TestResult("paired t-test", tests, t, float(2 * stats.t.sf(abs(t), M - 1)), "Student t",
                      float(d.mean()) - tq * se, float(d.mean()) + tq * se, {"df": M - 1})


WILCOXON_EXACT_MAX = 50  # differences (zeros dropped) up to which the signed-rank p-value is exact


def wilcoxon_test(d: np.ndarray, *, tests: str = "per-question differences symmetric about 0") -> TestResult:
    r"""Wilcoxon signed-rank test of the per-question differences (zeros dropped, ``zero_method="wilcox"``).

    The statistic is ``min(T+, T-)``, the sums of the midranks of ``|d|`` over positive and negative
    differences.  With at most ``WILCOXON_EXACT_MAX`` (50) non-zero differences the p-value is exact,
    conditional on the ranks, ties included: the signed midranks are flipped as in :func:`sign_flip_test`
    (Pratt & Gibbons 1981, *Concepts of Nonparametric Theory*, ch. 5).  SciPy decides between exact and
    normal by the length with the zeros in, so 5 non-zero differences among 30 got the normal
    approximation (p = 0.025 where the exact value is 2 / 2^5 = 0.0625).  Above 50: SciPy's normal
    approximation with the tie correction.

    >>> round(wilcoxon_test(np.r_[np.ones(5), np.zeros(25)]).p_value, 4)
    0.0625
    """
    d = np.asarray(d, dtype=np.float64)
    nz = d[d != 0]
    if nz.size == 0:
        return TestResult("Wilcoxon signed-rank", tests, 0.0, 1.0, "signed-rank", details={"zero_method": "wilcox"})
    r = stats.rankdata(np.abs(nz))
    stat = float(min(r[nz > 0].sum(), r[nz < 0].sum()))
    lattice = _lattice_null(*_distinct(np.sign(nz) * r), 200_000) if nz.size <= WILCOXON_EXACT_MAX else None
    if lattice is not None:  # midranks are halves: on the lattice z / 2, exact
        p = _result_on_lattice(lattice, float(np.sign(nz) @ r), nz.size, tests).p_value
        method = "exact"
    else:
        p = float(stats.wilcoxon(nz, zero_method="wilcox", method="approx").pvalue)
        method = "normal"
    return TestResult("Wilcoxon signed-rank", tests, stat, p, "signed-rank",
                      details={"zero_method": "wilcox", "distribution": method})


def adjust(p_values, methods=("holm", "fdr_bh")) -> dict:
    """Adjust a family of p-values (statsmodels ``multipletests``); None / NaN entries stay NaN.

    Returns ``{method: adjusted array}``, e.g. ``adjust(p)["holm"]``.  Holm controls the
    family-wise error rate; ``"fdr_bh"`` (Benjamini-Hochberg) the false discovery rate.
    """
    from statsmodels.stats.multitest import multipletests

    pv = np.array([np.nan if p is None else float(p) for p in p_values], dtype=np.float64)
    ok = np.isfinite(pv)
    out = {}
    for m in methods:
        adj = np.full(pv.size, np.nan)
        if ok.any():
            adj[ok] = _holm(pv[ok]) if m == "holm" else multipletests(pv[ok], method=m)[1]
        out[m] = adj
    return out


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment, ``max_{j <= i} min(1, (m - j + 1) p_(j))`` in sorted order.  Equal to
    statsmodels' ``multipletests(p, method="holm")`` (tested), whose Holm branch runs ``gc.collect()`` on every
    call: 50 ms in a process holding many objects, the largest cost of ranking four models in the service."""
    order = np.argsort(p, kind="stable")
    adj = np.minimum(np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1)), 1.0)
    out = np.empty_like(adj)
    out[order] = adj
    return out
