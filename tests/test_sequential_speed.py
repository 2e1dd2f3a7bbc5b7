"""BettingCS updates only the candidate means still in its set; every number must be the whole grid's.

The reference is the old algorithm (every grid point's capital updated with every observation), kept verbatim in
benchmarks/bench_sequential.py as ``OldBettingCS``; the comparisons are exact (to the last bit), after every
observation, for streams fed at once and in pieces, and for capitals asked of rejected points.
"""

from __future__ import annotations

import importlib.util
import math
import zlib
from pathlib import Path

import numpy as np
import pytest

import bayeseval.sequential.confseq as confseq
from bayeseval.sequential import BettingCS, SequentialCompare, capital_at, replay


def _bench():
    """benchmarks/bench_sequential.py as a module (a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("bench_sequential",
                                                  Path(__file__).parents[1] / "benchmarks" / "bench_sequential.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()
OldBettingCS = BENCH.OldBettingCS


def _stream(kind: str, n: int, rng: np.random.Generator):
    """Observations and their range."""
    if kind == "0/1":
        return rng.binomial(1, 0.3, n).astype(float), (0.0, 1.0)
    if kind == "beta":
        return rng.beta(0.5, 0.5, n), (0.0, 1.0)
    if kind == "paired":  # A - B on 0/1 outcomes, per-question rates Beta(0.5, 0.5), A better by 0.1
        p = rng.beta(0.5, 0.5, n)
        return rng.binomial(1, np.clip(p + 0.1, 0, 1)) - rng.binomial(1, p).astype(float), (-1.0, 1.0)
    return 1.0 + 9.0 * rng.beta(2, 5, n), (1.0, 10.0)  # ratings on 1..10


def _same(old: BettingCS, new: BettingCS, got_old, got_new, probes) -> None:
    for a, b in zip(got_old, got_new, strict=True):
        np.testing.assert_array_equal(a, b)
    assert new.interval == old.interval and new.empty == old.empty and new.t == old.t
    assert new.mean == old.mean or (math.isnan(new.mean) and math.isnan(old.mean))
    for m in probes:
        assert new.log_e(m) == old.log_e(m), m


def _all_points_agree(old: BettingCS, new: BettingCS) -> None:
    """Every candidate's capital, brought up to date: the whole grid's, bit for bit."""
    new._catch_up(np.arange(new._m.size), new.t)
    np.testing.assert_array_equal(new._runmax, old._runmax)
    np.testing.assert_array_equal(new._logp, old._logp)
    np.testing.assert_array_equal(new._logm, old._logm)


@pytest.mark.parametrize("kind", ["0/1", "beta", "paired", "ratings"])
@pytest.mark.parametrize("bets", ["plugin", "agrapa"])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
def test_the_set_and_every_capital_are_the_whole_grids(kind, bets, alpha):
    """In pieces of 1 to 700 observations (the first of them inside a block of sums, the last across several),
    with log e-values asked between pieces of extra points and of grid points long rejected."""
    rng = np.random.default_rng(zlib.crc32(f"{kind} {bets} {alpha}".encode()))
    x, (lo, hi) = _stream(kind, 1500, rng)
    mid = (lo + hi) / 2
    extra = [mid, mid - 0.01 * (hi - lo), mid + 0.05 * (hi - lo), lo, hi + 1.0]  # the last is clipped to hi
    old = OldBettingCS(alpha, lo, hi, extra=extra, bets=bets)
    new = BettingCS(alpha, lo, hi, extra=extra, bets=bets)
    _same(old, new, old.update_path([]), new.update_path([]), extra)
    start = 0
    for size in [1, 1, 3, 700, 37, 1, 262, 263, 232]:
        piece = x[start:start + size]
        start += size
        probes = extra + list(lo + (hi - lo) * rng.uniform(size=3)) + [lo + 0.999 * (hi - lo)]
        _same(old, new, old.update_path(piece), new.update_path(piece), probes)
    assert start == x.size and new.t == x.size
    assert new._live.size < 0.2 * new._m.size  # the point of it: most of the grid has left the computation
    _all_points_agree(old, new)


def test_a_set_that_is_not_an_interval(monkeypatch):
    """Bets that swing with the candidate mean (not the library's) reject scattered candidates: the set has holes.
    The ends are still the nearest rejected points outside the outermost candidates left, as over the whole grid."""
    def swing(m, rows):
        return np.tile(0.6 * np.sin(40.0 * m), (rows, 1))

    monkeypatch.setattr(confseq, "_agrapa_bets", lambda sums, m: swing(m, sums[0].size))
    old_bets = BENCH._old_agrapa_bets
    monkeypatch.setattr(BENCH, "_old_agrapa_bets", lambda x, m, state: (swing(m, x.size), old_bets(x, m, state)[1]))
    x = np.random.default_rng(8).binomial(1, 0.5, 400).astype(float)
    old, new = OldBettingCS(0.3, grid=401, bets="agrapa"), BettingCS(0.3, grid=401, bets="agrapa")
    holes = 0
    for piece in np.array_split(x, 9):
        _same(old, new, old.update_path(piece), new.update_path(piece), [0.1, 0.5, 0.77])
        inside = np.flatnonzero(old._runmax < old._threshold)
        holes += bool(inside.size and (np.diff(inside) > 1).any())
    assert holes >= 3
    _all_points_agree(old, new)


@pytest.mark.parametrize("case", ["review stream", "coarse grid", "out of order", "at the edge"])
def test_once_every_mean_is_rejected(case):
    """An empty set: its ends are the neighbours of the least-rejected candidate of the whole grid; every candidate
    left behind is brought up to date once and all stay live from then on."""
    if case == "review stream":  # the null stream of test_sequential.py that excludes every value
        rng = np.random.default_rng(123)
        for _ in range(145):
            a, b = rng.binomial(1, 0.5, 200), rng.binomial(1, 0.5, 200)
        x, kw = a.astype(float) - b, {"lo": -1.0, "hi": 1.0, "bets": "agrapa"}
    elif case == "coarse grid":  # narrower than the grid: mean 0.55 between the points 0.5 and 0.6
        x, kw = np.random.default_rng(2).binomial(1, 0.55, 6000).astype(float), {"grid": 11}
    elif case == "out of order":  # not in a random order
        x, kw = np.r_[np.zeros(400), np.ones(400), np.full(300, 0.5)], {"bets": "agrapa"}
    else:
        x, kw = np.r_[np.ones(300), np.zeros(3), np.ones(300)], {"alpha": 0.5}
    old, new = OldBettingCS(**kw), BettingCS(**kw)
    got_old, got_new = old.update_path(x), new.update_path(x)
    _same(old, new, got_old, got_new, [0.0, 0.25, 0.5, 0.75, 1.0])
    if case != "at the edge":
        assert new.empty and got_new[2].any()
    _all_points_agree(old, new)


def test_log_e_of_a_long_rejected_mean_is_its_capital():
    """A candidate rejected at the start is brought up to date when asked for: the paper's capital (capital_at
    sums the same terms in another order)."""
    x = np.random.default_rng(4).beta(2, 5, 3000)
    cs = BettingCS(bets="agrapa")
    cs.update(x)
    assert cs._asof[-1] < 100 and 0.9 not in cs._m[cs._live]  # left behind early
    assert cs.log_e(0.9) == pytest.approx(capital_at(x[None, :], 0.9, bets="agrapa")[0, -1], rel=1e-10)
    assert cs._asof[-1] < 100  # only the point asked for was brought up to date


def test_sequential_compare_and_replay_say_the_same():
    """What monitor prints: SequentialCompare's status, summary and path on the old and the new sequence; and a
    replay (its studies run on SequentialCompare) gives the same numbers as on the old one."""
    rng = np.random.default_rng(0)
    p = rng.beta(0.5, 0.5, size=3000)
    a, b = rng.binomial(1, np.clip(p + 0.04, 0, 1)), rng.binomial(1, p)
    for until in ("decided", "width 0.1", "decided or equivalent within 0.05"):
        old = BENCH.OldSequentialCompare(until=until, names=("new", "base"))
        new = SequentialCompare(until=until, names=("new", "base"))
        for lo in range(0, 3000, 700):
            so, sn = old.update(a[lo:lo + 700], b[lo:lo + 700]), new.update(a[lo:lo + 700], b[lo:lo + 700])
            assert sn.summary() == so.summary() and sn.to_dict() == so.to_dict()
            np.testing.assert_array_equal(sn.path_lower, so.path_lower)
            np.testing.assert_array_equal(sn.path_upper, so.path_upper)
    A = rng.binomial(1, np.clip(p[:200] + 0.15, 0, 1)[:, None], size=(200, 8))
    B = rng.binomial(1, p[:200, None], size=(200, 8))
    new = replay(A, B, trials=2, replays=6, seed=1, fixed_replays=20)
    saved = BENCH.monitor.BettingCS
    BENCH.monitor.BettingCS = OldBettingCS
    try:
        old = replay(A, B, trials=2, replays=6, seed=1, fixed_replays=20)
    finally:
        BENCH.monitor.BettingCS = saved
    assert new.summary() == old.summary() and new.to_dict() == old.to_dict()
