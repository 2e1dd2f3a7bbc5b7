"""Speed of the sequential betting confidence sequence: the whole grid per observation (old) vs the set only (new).

    python benchmarks/bench_sequential.py [--sizes 1000,10000,100000] [--markdown-out FILE]

(``--markdown-out benchmarks/results_bench_sequential.md`` wrote the results file: about 4 minutes, nearly all of
it the old algorithm's.)

``BettingCS`` before this change updated the capital of every one of its 4,001 grid points with every
observation (``OldBettingCS`` below is that algorithm, kept verbatim for the side-by-side and for
tests/test_sequential_speed.py).  Now only the points still in the set (and the ``extra`` ones) are updated; a
rejected point's capital is brought up to date only when asked for.  Two streams:

* ``BettingCS`` (plug-in bets, its default) on 0/1 outcomes with mean 0.3;
* ``SequentialCompare`` (aGRAPA bets on the paired difference in [-1, 1], what ``bayeseval monitor`` and the
  service's ``/v1/monitor`` run) on two models' 0/1 outcomes, per-question rates Beta(0.5, 0.5), B 0.05 better.

Each cell is one call on the whole stream, wall and CPU seconds (the least of 3 calls below 10^5 observations,
one call at 10^5 and more); ``same`` says that the two give the same ends after every observation, the same
emptiness, interval and log e-value (at the null for SequentialCompare, with its summary and status; at 0.3, 0.5
and 0.9 for BettingCS), to the last bit.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time

import numpy as np

# the repository, for bayeseval; not benchmarks/ itself (tests import this module for OldBettingCS, and
# benchmarks/coverage.py would shadow the coverage package there)
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import bayeseval  # noqa: E402
from bayeseval.intervals import plugin_variance  # noqa: E402
from bayeseval.sequential import BettingCS, SequentialCompare, monitor  # noqa: E402
from bayeseval.sequential.confseq import AGRAPA_CAP, CS_BET_CAP  # noqa: E402

OLD_BLOCK = 1 << 20


# ------------------------------------------------------------------------- the old algorithm, as it was
def _old_predictable_bets(x, alpha, state):
    t, var_prev, state = plugin_variance(x, state)
    lam = np.sqrt(2.0 * math.log(2.0 / alpha) / (var_prev * t * np.log1p(t)))
    return lam, state


def _old_agrapa_bets(x, m, state):
    t0, s1, s2 = state
    c1 = s1 + np.concatenate([[0.0], np.cumsum(x)[:-1]])
    c2 = s2 + np.concatenate([[0.0], np.cumsum(x * x)[:-1]])
    k = (t0 + np.arange(x.size))[:, None].astype(np.float64)
    num = c1[:, None] - k * m[None, :]
    den = 0.25 + c2[:, None] - 2.0 * m[None, :] * c1[:, None] + k * m[None, :] ** 2
    return num / den, (t0 + x.size, s1 + float(x.sum()), s2 + float((x * x).sum()))


def _old_log_capital_steps(x, lam, m, logp0, logm0, cap=CS_BET_CAP):
    with np.errstate(divide="ignore"):
        cap_up = np.where(m > 0, cap / m, np.inf)
        cap_dn = np.where(m < 1, cap / (1.0 - m), np.inf)
    d = x[:, None] - m[None, :]
    if lam.ndim == 1:
        lam_up = lam_dn = lam[:, None]
    else:
        lam_up, lam_dn = np.maximum(lam, 0.0), np.maximum(-lam, 0.0)
    up = np.log1p(np.minimum(lam_up, cap_up[None, :]) * d)
    dn = np.log1p(-np.minimum(lam_dn, cap_dn[None, :]) * d)
    return logp0 + np.cumsum(up, axis=0), logm0 + np.cumsum(dn, axis=0)


class OldBettingCS(BettingCS):
    """``BettingCS`` as it was: every grid point's capital updated with every observation (the constructor and
    its checks are the library's; ``_logp``, ``_logm``, ``_runmax`` are the whole grid's, as they were)."""

    def _bounds(self, logk_max):
        inside = logk_max < self._threshold
        G = self._m.size
        any_in = inside.any(axis=1)
        first = inside.argmax(axis=1)
        last = G - 1 - inside[:, ::-1].argmax(axis=1)
        lo_u = np.where(first > 0, self._m[np.maximum(first - 1, 0)], 0.0)
        hi_u = np.where(last < G - 1, self._m[np.minimum(last + 1, G - 1)], 1.0)
        if not any_in.all():
            j = logk_max.argmin(axis=1)
            lo_u = np.where(any_in, lo_u, self._m[np.maximum(j - 1, 0)])
            hi_u = np.where(any_in, hi_u, self._m[np.minimum(j + 1, G - 1)])
        scale = self.hi - self.lo
        return self.lo + scale * lo_u, self.lo + scale * hi_u

    @property
    def empty(self):
        return self.t > 0 and not bool((self._runmax < self._threshold).any())

    def update_path(self, x):
        x = self._scaled(x)
        if x.size == 0:
            lo, hi = self.interval
            return np.array([lo])[:0], np.array([hi])[:0], np.zeros(0, dtype=bool)
        lows, highs, empties = [], [], []
        step = max(1, OLD_BLOCK // self._m.size)
        for start in range(0, x.size, step):
            xb = x[start:start + step]
            if self.bets == "agrapa":
                lam, self._state = _old_agrapa_bets(xb, self._m, self._state)
                logp, logm = _old_log_capital_steps(xb, lam, self._m, self._logp, self._logm, AGRAPA_CAP)
            else:
                lam, self._state = _old_predictable_bets(xb, self.alpha, self._state)
                logp, logm = _old_log_capital_steps(xb, lam, self._m, self._logp, self._logm)
            logk = np.maximum.accumulate(np.vstack([self._runmax[None, :],
                                                    np.logaddexp(logp, logm) - math.log(2.0)]), axis=0)[1:]
            self._logp, self._logm, self._runmax = logp[-1], logm[-1], logk[-1]
            lo, hi = self._bounds(logk)
            lows.append(lo)
            highs.append(hi)
            empties.append(~(logk < self._threshold).any(axis=1))
        self._sum += float(x.sum())
        return np.concatenate(lows), np.concatenate(highs), np.concatenate(empties)

    @property
    def interval(self):
        if self.t == 0:
            return self.lo, self.hi
        lo, hi = self._bounds(self._runmax[None, :])
        return float(lo[0]), float(hi[0])

    def log_e(self, m):
        u = (float(m) - self.lo) / (self.hi - self.lo)
        return float(self._runmax[int(np.abs(self._m - u).argmin())])


class OldSequentialCompare(SequentialCompare):
    """``SequentialCompare`` on the old confidence sequence."""

    def __init__(self, *args, **kwargs):
        saved = monitor.BettingCS
        monitor.BettingCS = OldBettingCS
        try:
            super().__init__(*args, **kwargs)
        finally:
            monitor.BettingCS = saved


# ------------------------------------------------------------------------- the measurement
def _streams(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.binomial(1, 0.3, n).astype(float)
    p = rng.beta(0.5, 0.5, n)
    a, b = rng.binomial(1, p), rng.binomial(1, np.clip(p + 0.05, 0, 1))
    return x, a, b


def _run_cs(cls, x):
    cs = cls()
    lo, hi, empty = cs.update_path(x)
    return (lo, hi, empty, cs.interval, cs.empty, [cs.log_e(m) for m in (0.3, 0.5, 0.9)])


def _run_compare(cls, a, b):
    st = cls(until="decided").update(a, b)
    d = st.to_dict()
    return (st.path_lower, st.path_upper, st.empty, st.summary(), d["lower"], d["upper"], d["e_value"], st.log_e)


def _same(u, v) -> bool:
    return all(np.array_equal(p, q) if isinstance(p, np.ndarray) else p == q for p, q in zip(u, v, strict=True))


def _clocked(best_of, fn, repeats: int):
    """``(wall seconds, CPU seconds, result)``: the least of ``repeats`` calls each (the machine is shared: the CPU
    time of this process is the steadier)."""
    cpu = []

    def call():
        start = time.process_time()
        out = fn()
        cpu.append(time.process_time() - start)
        return out

    wall, out = best_of(call, repeats)
    return wall, min(cpu), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000", help="observations per stream, comma-separated")
    ap.add_argument("--markdown-out", default=None)
    args = ap.parse_args(argv)
    from _common import best_of, finish  # benchmarks/ is on the path when this runs as a script

    sizes = [int(s) for s in args.sizes.split(",")]
    lines = [
        "# Sequential confidence sequence: whole grid (old) vs the set only (new)",
        "",
        f"python {platform.python_version()}, numpy {np.__version__}, bayeseval {bayeseval.__version__}, "
        f"{os.cpu_count()} CPUs (shared with other work: the CPU seconds of this process are the steadier). Seconds "
        "per call on the whole stream, wall and CPU (each the least of 3 calls; one call at 10^5 and more); "
        "grid 4,001 points.",
        "",
        "| stream | observations | old s | new s | old CPU s | new CPU s | old / new (CPU) | old ms / obs (CPU) | "
        "new ms / obs (CPU) | same |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n in sizes:
        x, a, b = _streams(n)
        reps = 3 if n < 100_000 else 1
        for name, run, old, new in [
            ("BettingCS, plug-in, 0/1 (mean 0.3)", lambda c: _run_cs(c, x), OldBettingCS, BettingCS),
            ("SequentialCompare, aGRAPA, paired 0/1", lambda c: _run_compare(c, a, b), OldSequentialCompare,
             SequentialCompare),
        ]:
            w_old, c_old, r_old = _clocked(best_of, lambda: run(old), reps)
            w_new, c_new, r_new = _clocked(best_of, lambda: run(new), reps)
            lines.append(f"| {name} | {n:,} | {w_old:.3f} | {w_new:.3f} | {c_old:.3f} | {c_new:.3f} | "
                         f"{c_old / c_new:.0f}x | {1e3 * c_old / n:.3f} | {1e3 * c_new / n:.4f} | "
                         f"{'yes' if _same(r_old, r_new) else 'NO'} |")
            print(lines[-1], file=sys.stderr, flush=True)
    lines.append("")
    return finish("\n".join(lines), args.markdown_out)


if __name__ == "__main__":
    sys.exit(main())
