r"""A confidence sequence for the mean of bounded observations, by betting (Waudby-Smith & Ramdas 2024).

Observations :math:`x_1, x_2, \dots \in [0, 1]` arrive one at a time with a common conditional mean
:math:`\mu` (i.i.d. draws, e.g. questions taken in a random order).  For each candidate mean
:math:`m` a gambler bets on :math:`x_t - m` and on :math:`m - x_t`; the hedged capital

.. math::

    K_t(m) = \tfrac12 \prod_{i \le t} \bigl(1 + \lambda_i^+(m)\,(x_i - m)\bigr)
           + \tfrac12 \prod_{i \le t} \bigl(1 - \lambda_i^-(m)\,(x_i - m)\bigr)

is a nonnegative martingale with :math:`K_0 = 1` when :math:`m = \mu`, so by Ville's inequality
:math:`P(\exists t: K_t(\mu) \ge 1/\alpha) \le \alpha`.  The confidence sequence

.. math::  C_t = \{m : \max_{s \le t} K_s(m) < 1/\alpha\}

therefore covers :math:`\mu` at every :math:`t` simultaneously with probability at least
:math:`1 - \alpha`: it may be looked at after every observation and a study may stop whenever it
likes (optional stopping) without losing its level.  The running maximum makes :math:`C_t` the
intersection of all earlier sets, so it only shrinks.

Bets are predictable (they use :math:`x_1..x_{t-1}` only): the "predictable plug-in" of the paper's
eq. (26)-(27),

.. math::

    \lambda_t = \sqrt{\frac{2 \log(2/\alpha)}{\hat\sigma^2_{t-1}\, t \log(1 + t)}},\quad
    \hat\mu_t = \frac{1/2 + \sum_{i\le t} x_i}{t + 1},\quad
    \hat\sigma^2_t = \frac{1/4 + \sum_{i \le t} (x_i - \hat\mu_i)^2}{t + 1},

truncated to :math:`\lambda^+_t(m) = \min(\lambda_t, c/m)` and :math:`\lambda^-_t(m) =
\min(\lambda_t, c/(1-m))` with :math:`c = 1/2`, which keeps every factor at least :math:`1 - c > 0`.
Any predictable bet keeps the guarantee; this one adapts to the variance, so a sequence of paired
differences that are mostly 0 (sparse disagreement) narrows fast.  ``bets="agrapa"`` bets instead the
paper's aGRAPA fraction (Section 5.3), :math:`\lambda_t(m) = \sum_{i<t} y_i / (1/4 + \sum_{i<t} y_i^2)` with
:math:`y_i = x_i - m`, truncated at :math:`c = 3/4`: the capital then grows at nearly the Kelly-optimal rate,
so a false ``m`` -- in particular a false null -- is rejected sooner; :class:`~bayeseval.sequential.Sequential`
uses it (in simulations its sets were also narrower after 100 and 1,000 observations for means near the middle of
the range; not everywhere: for Bernoulli(0.9) outcomes at 100 observations the plug-in set is the narrower, 0.160
wide against 0.175 on average over 50 seeded runs).

The set is computed on a grid of candidate means (``grid`` points on [0, 1], plus any ``extra``
points such as a null value or ROPE edges, evaluated exactly); reported endpoints are the nearest
*excluded* grid points outside the set, so they are conservative by at most one grid step
(1/4000 of the range by default).  Since the set only shrinks, a grid point leaves the computation once its
running maximum reaches :math:`\log(1/\alpha)` (the observations are taken in steps of about 32,768 grid
points x observations, the rejected points dropped between steps): an observation costs about as many grid
points as the set still holds, not the whole grid.  A rejected point's capital is brought up to date from the
stored observations only when it is asked for (:meth:`BettingCS.log_e`, or every point rejected), with the
same sums in the same order, so every number is the one the whole grid would give.

Reference: I. Waudby-Smith and A. Ramdas (2024), "Estimating means of bounded random variables by
betting", JRSS-B 86(1), 1-27, arXiv:2010.09686 (Theorem 3, Section 5.1, Remark 3 on hedging).

>>> import numpy as np
>>> cs = BettingCS(alpha=0.05)
>>> lo, hi = cs.update(np.tile([1.0, 1.0, 0.0, 1.0], 10))   # 30 of 40 right, in a mixed order
>>> cs.t, round(float(lo[-1]), 3), round(float(hi[-1]), 3)
(40, 0.54, 0.923)
>>> bool(lo[-1] <= 0.75 <= hi[-1])
True
"""

from __future__ import annotations

import math

import numpy as np

from .. import validate as V
from ..intervals import plugin_variance
from ..scores import MAX_MAGNITUDE

__all__ = ["BettingCS", "capital_at"]

CS_BET_CAP = 0.5  # c: the bet never risks more than half the capital on one observation (the fixed-sample
# betting interval of intervals.py has its own, CI_BET_CAP = 0.9)
AGRAPA_CAP = 0.75  # the paper's truncation for aGRAPA
GRID = 4001
_BLOCK = 1 << 20  # the running sums restart every _BLOCK // (grid points) observations (the cut the whole grid was
# once updated in, about 100 MB a block; the sums keep it so every capital is the same to the last bit)
_CELLS = 1 << 15  # grid points x observations per step of work: rejected points are dropped between steps
_MIN_ROWS = 4  # observations per step at the least (the whole grid at the start: 4,001 points)


def _predictable_bets(x: np.ndarray, alpha: float, state: tuple[int, float, float]):
    """``lambda_t`` for each new observation (from the earlier ones only) and the updated running sums.

    ``state`` = (t, sum x, sum (x_i - mu_i)^2) before ``x``.
    """
    t, var_prev, state = plugin_variance(x, state)  # sigma^2_{t-1} = (1/4 + sum_{i<t} (x_i - mu_i)^2) / t
    lam = np.sqrt(2.0 * math.log(2.0 / alpha) / (var_prev * t * np.log1p(t)))
    return lam, state


def _agrapa_sums(x: np.ndarray, state: tuple[int, float, float]):
    """What the aGRAPA bets need of the earlier observations, for each new one: ``(c1, c2, k)`` = (sum x, sum x^2,
    how many) over the observations before it, and the updated sums ``(t, sum x, sum x^2)``."""
    t0, s1, s2 = state
    c1 = s1 + np.concatenate([[0.0], np.cumsum(x)[:-1]])  # sums over the earlier observations
    c2 = s2 + np.concatenate([[0.0], np.cumsum(x * x)[:-1]])
    k = (t0 + np.arange(x.size)).astype(np.float64)
    return (c1, c2, k), (t0 + x.size, s1 + float(x.sum()), s2 + float((x * x).sum()))


def _agrapa_bets(sums: tuple[np.ndarray, np.ndarray, np.ndarray], m: np.ndarray) -> np.ndarray:
    """aGRAPA bets against every candidate ``m`` (Waudby-Smith & Ramdas 2024, Section 5.3): the running
    ``mean(y) / mean(y^2)`` of ``y_i = x_i - m`` over the earlier observations (one pseudo-observation with
    ``y^2 = 1/4`` keeps it finite), the Kelly-optimal fraction to first order.  ``sums`` from :func:`_agrapa_sums`
    (T,) each; returns ``(T, G)`` signed bets."""
    c1, c2, k = (a[:, None] for a in sums)
    num = c1 - k * m[None, :]
    den = 0.25 + c2 - 2.0 * m[None, :] * c1 + k * m[None, :] ** 2
    return num / den


def _log_factors(x: np.ndarray, lam: np.ndarray, m: np.ndarray, cap: float):
    """log of each observation's factor in the two bets' capitals, (T, G) each.

    ``lam`` is ``(T,)`` (one size for every candidate, bet both ways) or ``(T, G)`` signed (positive: on
    ``x > m``); each side's bet is truncated to keep every factor at least ``1 - cap``."""
    with np.errstate(divide="ignore"):
        cap_up = np.where(m > 0, cap / m, np.inf)
        cap_dn = np.where(m < 1, cap / (1.0 - m), np.inf)
    d = x[:, None] - m[None, :]
    if lam.ndim == 1:
        lam_up = lam_dn = lam[:, None]
    else:
        lam_up, lam_dn = np.maximum(lam, 0.0), np.maximum(-lam, 0.0)
    up = np.minimum(lam_up, cap_up[None, :])
    up *= d
    dn = np.minimum(lam_dn, cap_dn[None, :])
    np.negative(dn, out=dn)
    dn *= d
    return np.log1p(up, out=up), np.log1p(dn, out=dn)


def _hedged(logp: np.ndarray, logm: np.ndarray) -> np.ndarray:
    """log(K+/2 + K-/2)."""
    return np.logaddexp(logp, logm) - math.log(2.0)


def _put(buf: np.ndarray, at: int, rows) -> np.ndarray:
    """``rows`` written into ``buf`` from row ``at`` on; ``buf`` is grown (doubled) first when it is too short."""
    end = at + len(rows)
    if end > buf.shape[0]:
        grown = np.empty((max(2 * buf.shape[0], end, 64),) + buf.shape[1:], dtype=buf.dtype)
        grown[:at] = buf[:at]
        buf = grown
    buf[at:end] = rows
    return buf


class BettingCS:
    """A streaming confidence sequence for the mean of observations in ``[lo, hi]``.

    Parameters
    ----------
    alpha : error level; the sequence covers the mean at all times with probability ``>= 1 - alpha``.
    lo, hi : the range every observation lies in (values outside are an error).
    extra : candidate means (in the ``[lo, hi]`` units) evaluated exactly besides the grid, e.g. a
        null value or the edges of a region of practical equivalence.
    grid : number of grid points on ``[lo, hi]``.

    Notes
    -----
    ``update(x)`` takes observations in the order they arrived and returns the lower and upper end of
    the sequence after each of them; ``interval`` is the current one, ``log_e(m)`` the log of the
    running-maximum capital against the mean ``m`` (an e-value: ``exp(-log_e)`` is an anytime-valid
    p-value for "the mean is ``m``", when ``m`` is one of ``extra``).

    Only the grid points still in the set (and the ``extra`` ones) are updated with every observation; the
    sequence keeps the observations (8 bytes each) to bring a rejected point's capital up to date when
    :meth:`log_e` asks for it.  Once every point is rejected (:attr:`empty`), the least-rejected one is sought over
    the whole grid: every point is brought up to date once and updated with every observation from then on, the
    cost of updating the whole grid.
    """

    def __init__(self, alpha: float = 0.05, lo: float = 0.0, hi: float = 1.0, *, extra=(), grid: int = GRID,
                 bets: str = "plugin"):
        self.alpha = V.probability(alpha, "alpha")
        if bets not in ("plugin", "agrapa"):
            raise ValueError(f"bets must be 'plugin' or 'agrapa', got {bets!r}")
        self.bets = bets
        lo, hi = V.real(lo, "lo"), V.real(hi, "hi")
        if not hi > lo:
            raise ValueError(f"the range must be two finite numbers lo < hi, got ({lo}, {hi})")
        if max(abs(lo), abs(hi)) > MAX_MAGNITUDE or hi - lo < 1.0 / MAX_MAGNITUDE:  # as score ranges: (0, 1e-300)
            # reported its sequence as (>-0.00000001, >-0.00000001) and (-1e300, 1e300) printed 300-digit numbers
            raise ValueError(f"the range must lie within +-{MAX_MAGNITUDE:g} and be at least {1.0 / MAX_MAGNITUDE:g} "
                             f"wide (rescale the values), got ({lo:g}, {hi:g})")
        self.lo, self.hi = lo, hi
        grid = V.integer(grid, "grid", minimum=11)
        try:
            extra = np.atleast_1d(np.asarray(extra, dtype=np.float64))
        except (TypeError, ValueError):
            raise V.InputTypeError(f"extra must be candidate means (numbers), got {V.describe(extra)}") from None
        if extra.size and (not np.isfinite(extra).all()):
            raise ValueError("extra candidate means must be finite numbers")
        self._extra = extra
        u = np.concatenate([np.linspace(0.0, 1.0, grid), np.clip((extra - lo) / (hi - lo), 0.0, 1.0)])
        self._m, self._order = np.unique(u, return_inverse=True)
        G = self._m.size
        # per candidate mean: the two bets' log capitals where its block of sums began, the sums since, the
        # running maximum of the hedged log capital, and how many observations all of that has taken in
        self._logp, self._logm = np.zeros(G), np.zeros(G)
        self._accp, self._accm = np.zeros(G), np.zeros(G)
        self._runmax = np.zeros(G)
        self._asof = np.zeros(G, dtype=np.int64)
        self._pinned = np.zeros(G, dtype=bool)  # the extra points: updated with every observation
        self._pinned[self._order[grid:]] = True
        self._live = np.arange(G)  # the points updated with every observation (in order): the set and the pinned
        self._seen = np.zeros(0)  # every observation so far, in [0, 1]
        self._starts = np.zeros(0, dtype=np.int64)  # where each block of sums begins, and the two running sums
        self._sums = np.zeros((0, 2))  # there (the bets' state; the count is the start)
        self._blocks = 0
        self._bets_of: dict[int, tuple] = {}  # a block's observations and bets, for the last blocks used
        self._state = (0, 0.0, 0.0)
        self._threshold = math.log(1.0 / self.alpha)
        self._sum = 0.0
        self._interval = (lo, hi)

    @property
    def t(self) -> int:
        """Observations so far."""
        return self._state[0]

    @property
    def mean(self) -> float:
        """Sample mean so far (NaN before the first observation)."""
        return self.lo + (self.hi - self.lo) * self._sum / self.t if self.t else float("nan")

    def _scaled(self, x) -> np.ndarray:
        x = np.atleast_1d(np.asarray(x, dtype=np.float64)).ravel()
        if not np.isfinite(x).all():
            bad = int(np.flatnonzero(~np.isfinite(x))[0])
            raise ValueError(f"observation {self.t + bad + 1} is not a finite number ({x[bad]})")
        out = (x - self.lo) / (self.hi - self.lo)
        tol = 1e-12
        if out.size and (out.min() < -tol or out.max() > 1 + tol):
            bad = int(np.flatnonzero((out < -tol) | (out > 1 + tol))[0])
            raise ValueError(f"observation {self.t + bad + 1} is {x[bad]}, outside the range [{self.lo}, {self.hi}]")
        return np.clip(out, 0.0, 1.0)

    def _open_block(self, x: np.ndarray) -> None:
        """Start a block of sums with the observations ``x``: record where it starts and the bets' state there,
        and work out its bets (they do not depend on the candidate for the plug-in, and on it only through
        three running sums for aGRAPA)."""
        t, s1, s2 = self._state
        self._starts = _put(self._starts, self._blocks, [t])
        self._sums = _put(self._sums, self._blocks, [(s1, s2)])
        self._blocks += 1
        if self.bets == "agrapa":
            bets, self._state = _agrapa_sums(x, self._state)
        else:
            bets, self._state = _predictable_bets(x, self.alpha, self._state)
        self._bets_of = {self._blocks - 1: (t, t + x.size, x, bets)}

    def _block(self, r: int) -> tuple[int, int, np.ndarray, object]:
        """The block of sums holding observation ``r`` (0-based): its first and past-the-end observation, its
        observations and bets (computed again from the stored observations: the same numbers)."""
        b = int(np.searchsorted(self._starts[:self._blocks], r, side="right")) - 1
        if b not in self._bets_of:
            b0 = int(self._starts[b])
            b1 = int(self._starts[b + 1]) if b + 1 < self._blocks else self.t
            x = self._seen[b0:b1]
            state = (b0, float(self._sums[b, 0]), float(self._sums[b, 1]))
            bets = _agrapa_sums(x, state)[0] if self.bets == "agrapa" else _predictable_bets(x, self.alpha, state)[0]
            if len(self._bets_of) > 1:
                del self._bets_of[min(self._bets_of)]
            self._bets_of[b] = (b0, b1, x, bets)
        return self._bets_of[b]

    def _advance(self, cols: np.ndarray, r0: int, r1: int) -> np.ndarray:
        """Take the candidates ``cols`` (each having taken in ``r0`` observations) through observations
        ``r0 .. r1 - 1`` of one block of sums; return their running-maximum log capital after each, ``(r1 - r0,
        cols.size)``.  The sums go on from where the block's earlier observations left them, in the same
        order as over the whole block at once."""
        b0, b1, x, bets = self._block(r0)
        i, j = r0 - b0, r1 - b0
        m = self._m[cols]
        if self.bets == "agrapa":
            up, dn = _log_factors(x[i:j], _agrapa_bets(tuple(a[i:j] for a in bets), m), m, AGRAPA_CAP)
        else:
            up, dn = _log_factors(x[i:j], bets[i:j], m, CS_BET_CAP)
        if i:
            up[0] += self._accp[cols]
            dn[0] += self._accm[cols]
        np.cumsum(up, axis=0, out=up)
        np.cumsum(dn, axis=0, out=dn)
        bp, bm, prev = self._logp[cols], self._logm[cols], self._runmax[cols]
        # the hedged capital is at most the larger of the two bets' (rounding, being monotone, keeps the largest
        # over the steps where it was): where that stays below the running maximum (with room for the log-sum's
        # rounding), the running maximum stands and the costly log-sum is not needed
        top = np.maximum(bp + up.max(axis=0), bm + dn.max(axis=0))
        grow = np.flatnonzero(top + 1e-12 * (1.0 + np.abs(top)) >= prev)
        logk = np.empty_like(up)
        logk[:] = prev
        if grow.size:
            h = _hedged(bp[grow] + up[:, grow], bm[grow] + dn[:, grow])
            h[0] = np.maximum(h[0], prev[grow])
            logk[:, grow] = np.maximum.accumulate(h, axis=0)
        self._accp[cols], self._accm[cols] = up[-1], dn[-1]
        if r1 == b1:
            self._logp[cols], self._logm[cols] = bp + up[-1], bm + dn[-1]
        self._runmax[cols] = logk[-1]
        self._asof[cols] = r1
        return logk

    def _catch_up(self, cols: np.ndarray, r: int) -> None:
        """Bring the candidates ``cols`` (rejected, left behind) up to ``r`` observations, a block at a time
        from the earliest left behind (those left at the same observation go together)."""
        cols = cols[self._asof[cols] < r]
        while cols.size:
            at = self._asof[cols]
            r0 = int(at.min())
            self._advance(cols[at == r0], r0, min(self._block(r0)[1], r))
            cols = cols[self._asof[cols] < r]

    def _step(self, r0: int, r1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Observations ``r0 .. r1 - 1`` (already in a block of sums): update the live candidates; return the
        grid bounds (in [0, 1]) and whether the set is empty after each; drop the candidates rejected by the end.

        Every candidate not live is already rejected (its running maximum is at least log(1/alpha) and only
        grows), so the set after each observation is among the live ones.  When it is empty, the reported ends
        are the neighbours of the least-rejected candidate over the whole grid, so every candidate left behind is
        brought up to date once and all stay live from then on (an empty set stays empty): each observation then
        costs what it did when the whole grid was updated, with no catching up per observation (keeping only the
        candidates near the least-rejected one made an empty set fed one observation at a time 47 times slower)."""
        live, G = self._live, self._m.size
        logk = self._advance(live, r0, r1)
        inside = logk < self._threshold
        any_in = inside.any(axis=1)
        first = live[inside.argmax(axis=1)]
        last = live[live.size - 1 - inside[:, ::-1].argmax(axis=1)]
        lo_u = np.where(first > 0, self._m[np.maximum(first - 1, 0)], 0.0)
        hi_u = np.where(last < G - 1, self._m[np.minimum(last + 1, G - 1)], 1.0)
        if not any_in.all():  # every grid point rejected (a coarse grid, or the truth outside [lo, hi]): the
            # set, if not empty, lies between the neighbours of the point of least evidence against it
            behind = np.ones(G, dtype=bool)
            behind[live] = False
            more = np.flatnonzero(behind)
            if more.size:
                self._catch_up(more, r0)
                cols = np.concatenate([live, more])
                order = np.argsort(cols)
                live, logk = cols[order], np.hstack([logk, self._advance(more, r0, r1)])[:, order]
            j = live[logk[~any_in].argmin(axis=1)]
            lo_u[~any_in] = self._m[np.maximum(j - 1, 0)]
            hi_u[~any_in] = self._m[np.minimum(j + 1, G - 1)]
        end = logk[-1]
        self._live = live if not any_in[-1] else live[(end < self._threshold) | self._pinned[live]]
        return lo_u, hi_u, ~any_in

    def update(self, x) -> tuple[np.ndarray, np.ndarray]:
        """Add observations (in arrival order); return the sequence's (lower, upper) after each."""
        lo, hi, _ = self.update_path(x)
        return lo, hi

    @property
    def empty(self) -> bool:
        """Every candidate mean on the grid (and every ``extra`` one) is rejected: the sequence is empty -- an event
        of probability at most ``alpha`` when the observations are what the sequence assumes (else they are not:
        the order was not random, or the range is wrong) -- or narrower than the grid (``4,000`` steps of the range:
        after millions of observations).  ``interval`` then names the neighbours of the least-rejected mean."""
        return self.t > 0 and not bool((self._runmax[self._live] < self._threshold).any())

    def update_path(self, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`update`, and after each observation whether the sequence is :attr:`empty`."""
        x = self._scaled(x)
        if x.size == 0:
            lo, hi = self.interval
            return np.array([lo])[:0], np.array([hi])[:0], np.zeros(0, dtype=bool)
        t0 = self.t
        self._seen = _put(self._seen, t0, x)
        lo_u, hi_u, empty = np.empty(x.size), np.empty(x.size), np.empty(x.size, dtype=bool)
        step = max(1, _BLOCK // self._m.size)
        for start in range(0, x.size, step):
            self._open_block(x[start:start + step])
            r, end = t0 + start, self.t
            while r < end:
                rows = min(end - r, max(_MIN_ROWS, _CELLS // max(self._live.size, 1)))
                at = slice(r - t0, r - t0 + rows)
                lo_u[at], hi_u[at], empty[at] = self._step(r, r + rows)
                r += rows
        self._sum += float(x.sum())
        scale = self.hi - self.lo
        lo, hi = self.lo + scale * lo_u, self.lo + scale * hi_u
        self._interval = (float(lo[-1]), float(hi[-1]))
        return lo, hi, empty

    @property
    def interval(self) -> tuple[float, float]:
        """The current confidence set's outer ends (the whole range before any observation)."""
        return self._interval

    def log_e(self, m: float) -> float:
        """log of the running-maximum capital against the mean ``m`` (one of ``extra`` for an exact value;
        otherwise the nearest grid point)."""
        u = (V.real(m, "m") - self.lo) / (self.hi - self.lo)
        j = int(np.abs(self._m - u).argmin())
        self._catch_up(np.array([j]), self.t)  # a rejected point left behind is brought up to date
        return float(self._runmax[j])


def capital_at(x: np.ndarray, m: float, alpha: float = 0.05, bets: str = "plugin") -> np.ndarray:
    """Running-maximum log capital against one mean ``m`` for many sequences at once.

    ``x`` is ``(R, T)`` in [0, 1] (R independent sequences, e.g. simulation replicates); returns
    ``(R, T)``: the sequence rejects ``m`` at step ``t`` once the value reaches ``log(1/alpha)``.  The
    same bets as :class:`BettingCS` with the same ``bets`` (a test of one value needs no grid).

    >>> rng = np.random.default_rng(0)
    >>> logk = capital_at(rng.integers(0, 2, size=(2000, 200)).astype(float), 0.5)
    >>> float((logk[:, -1] >= np.log(20)).mean()) <= 0.05   # type-I error under continuous monitoring
    True
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"x must be a (replicates, steps) array, got shape {x.shape}")
    if not (np.isfinite(x).all() and x.min(initial=0.0) >= 0.0 and x.max(initial=0.0) <= 1.0):
        raise ValueError("x must hold numbers in [0, 1] (rescale observations in [lo, hi] by (x - lo) / (hi - lo))")
    m = V.real(m, "m", lo=0.0, hi=1.0)
    alpha = V.probability(alpha, "alpha")
    if bets not in ("plugin", "agrapa"):
        raise ValueError(f"bets must be 'plugin' or 'agrapa', got {bets!r}")
    R = x.shape[0]
    y = x - m
    if bets == "agrapa":  # the same bets as _agrapa_bets, one candidate, many sequences
        before = np.concatenate([np.zeros((R, 1)), np.cumsum(y, axis=1)[:, :-1]], axis=1)
        before2 = np.concatenate([np.zeros((R, 1)), np.cumsum(y * y, axis=1)[:, :-1]], axis=1)
        lam = before / (0.25 + before2)
        lam_up, lam_dn, cap = np.maximum(lam, 0.0), np.maximum(-lam, 0.0), AGRAPA_CAP
    else:
        t, var_prev, _ = plugin_variance(x)  # the same plug-in as _predictable_bets, R streams at once
        lam_up = lam_dn = np.sqrt(2.0 * math.log(2.0 / alpha) / (var_prev * t * np.log1p(t)))
        cap = CS_BET_CAP
    up = np.log1p(np.minimum(lam_up, cap / m if m > 0 else np.inf) * y).cumsum(axis=1)
    dn = np.log1p(-np.minimum(lam_dn, cap / (1 - m) if m < 1 else np.inf) * y).cumsum(axis=1)
    return np.maximum.accumulate(_hedged(up, dn), axis=1)
