"""The betting confidence interval for a bounded mean and the default interval ("auto") that widens with it.

Checks: the bisection ends against a brute-force evaluation of the same capital process (explicit loops over the
scores and a fine grid of candidate means); coverage by simulation on skewed pools where the t interval fails;
Clopper-Pearson as the yardstick for a sparse metric; the far end only; and the default's resolution in the
library, the command line and the service."""

from __future__ import annotations

import json
import math
import warnings

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import bayeseval as be
from bayeseval.intervals import CI_BET_CAP, betting_interval, binomial_interval
from bayeseval.report.tables import to_markdown, to_terminal
from bayeseval.results import BootstrapTUnavailable, widen


def _brute_force(u: np.ndarray, level: float, grid: np.ndarray) -> tuple[float, float]:
    """The same bets, written out one score and one candidate mean at a time: the lower end is the smallest
    candidate whose up-bet capital never reaches 2/alpha, the upper end the largest whose down-bet never does."""
    alpha, M = 1.0 - level, len(u)
    lam, total, sq = [], 0.0, 0.0
    for t, x in enumerate(u, start=1):
        lam.append(math.sqrt(2 * math.log(2 / alpha) / (M * (0.25 + sq) / t)))
        total += x
        mu = (0.5 + total) / (t + 1)
        sq += (x - mu) ** 2
    kept = []
    for m in grid:
        up = dn = 0.0
        best_up = best_dn = 0.0
        for x, lt in zip(u, lam):
            up += math.log1p(min(lt, CI_BET_CAP / m if m > 0 else math.inf) * (x - m))
            dn += math.log1p(min(lt, CI_BET_CAP / (1 - m) if m < 1 else math.inf) * (m - x))
            best_up, best_dn = max(best_up, up), max(best_dn, dn)
        kept.append(best_up < math.log(2 / alpha) and best_dn < math.log(2 / alpha))
    inside = grid[np.array(kept)]
    return float(inside.min()), float(inside.max())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bisection_finds_the_ends_of_the_brute_force_set(seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.beta(0.4, 2.0, 40), 3)
    values, freq = np.unique(x, return_counts=True)
    lo, hi = betting_interval(values, freq, 0.95, (0.0, 1.0), np.random.default_rng(7))
    u = np.repeat(values, freq)[np.random.default_rng(7).permutation(freq.sum())]  # the same order
    grid = np.linspace(0.0, 1.0, 2001)
    b_lo, b_hi = _brute_force(u, 0.95, grid)
    step = grid[1]
    assert b_lo - step <= lo <= b_lo + 1e-9 and b_hi - 1e-9 <= hi <= b_hi + step
    assert lo < x.mean() < hi


def test_scores_in_another_range_are_rescaled():
    rng = np.random.default_rng(3)
    x = rng.beta(2, 2, 30)
    f = np.ones(30, dtype=np.int64)
    lo, hi = betting_interval(x, f, 0.9, (0.0, 1.0), np.random.default_rng(1))
    lo5, hi5 = betting_interval(1 + 4 * x, f, 0.9, (1.0, 5.0), np.random.default_rng(1))
    assert (lo5, hi5) == pytest.approx((1 + 4 * lo, 1 + 4 * hi), abs=1e-7)


def _misses(draw, mean: float, reps: int, seed: int) -> tuple[float, float, float]:
    """Share of samples whose betting interval lies wholly below / above ``mean``, and the t interval's misses."""
    rng = np.random.default_rng(seed)
    below = above = t_miss = 0
    for _ in range(reps):
        x = draw(rng)
        lo, hi = betting_interval(x, np.ones(x.size, dtype=np.int64), 0.95, (0.0, 1.0), rng)
        below += hi < mean
        above += lo > mean
        half = stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
        t_miss += not (x.mean() - half <= mean <= x.mean() + half)
    return below / reps, above / reps, t_miss / reps


@pytest.mark.parametrize("name, draw, mean", [
    ("Beta(0.1, 2), 15 scores", lambda r: r.beta(0.1, 2.0, 15), 0.1 / 2.1),
    ("3% ones, 30 scores", lambda r: (r.random(30) < 0.03).astype(float), 0.03),
    ("Beta(8, 0.3), 20 scores", lambda r: r.beta(8.0, 0.3, 20), 8 / 8.3),
])
def test_each_side_misses_at_most_alpha_over_2_on_skewed_pools(name, draw, mean):
    """Where the t interval misses far more than 5% (few large scores carry the mean), the betting interval keeps
    each side's miss rate within alpha / 2 = 2.5% (1,500 samples: 3 binomial standard errors of slack)."""
    below, above, t_miss = _misses(draw, mean, 1500, 11)
    slack = 3 * math.sqrt(0.025 * 0.975 / 1500)
    assert below <= 0.025 + slack and above <= 0.025 + slack, name
    assert t_miss > 0.07, name  # the pools are ones where the textbook interval fails


@pytest.mark.parametrize("name, draw, mean", [
    ("30% ones, 50 scores", lambda r: (r.random(50) < 0.3).astype(float), 0.3),
    ("uniform, 50 scores", lambda r: r.random(50), 0.5),
])
def test_near_nominal_each_side_misses_close_to_but_below_alpha_over_2(name, draw, mean):
    """On pools where the bound is tight each side misses 1-2% (2,000 samples; about 0 on the skewed pools
    above), so these exercise the level itself, not only the conservative case."""
    below, above, _ = _misses(draw, mean, 2000, 5)
    for miss in (below, above):
        assert 0.005 <= miss <= 0.025 + 3 * math.sqrt(0.025 * 0.975 / 2000), (name, miss)


@pytest.mark.parametrize("M", [30, 100, 1000])
def test_no_score_above_zero_gives_about_clopper_pearson(M):
    """Every score 0: the upper end is about log(2/alpha) / (c M) (c = CI_BET_CAP), next to Clopper-Pearson's
    one-sided 97.5% bound for 0 of M, log(40) / M roughly."""
    lo, hi = betting_interval(np.array([0.0]), np.array([M]), 0.95, (0.0, 1.0), np.random.default_rng(0))
    cp = stats.binomtest(0, M).proportion_ci(0.95, "exact").high
    assert lo == 0.0 and cp < hi < 1.5 * cp


def _sparse():
    R = np.zeros((30, 16), dtype=int)
    R[0] = 1
    R[1, :12] = 1
    R[2, :3] = 1
    return R


def _dense():
    rng = np.random.default_rng(4)
    return (rng.random((30, 16)) < rng.beta(8, 2, (30, 1))).astype(int)  # pass^8 carried by about 10


def test_the_default_widens_the_far_end_only_where_few_questions_carry_the_estimate():
    R = _sparse()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = be.estimate(R, "pass^8")
        exact = be.estimate(R, "pass^8", interval="exact")
        bench = be.estimate(R, "pass^8", scope="benchmark")
        plain = be.estimate(_dense(), "pass^8")
    post = auto._post
    b_lo, b_hi = binomial_interval(np.asarray(post.state_scores()), post.freq, 0.95, (0.0, 1.0))
    # Clopper-Pearson's upper end at the summed scores: 1 + 495/12870 + 0 (pass^8's unbiased scores: 1, C(12,8)/C(16,8))
    S = 1 + 495 / 12870
    assert b_hi == pytest.approx(stats.beta.ppf(0.975, S + 1, 30 - S), rel=1e-12)
    assert auto.interval == "exact+binomial" and 0 < post.carrying_questions() < 5
    assert (auto.lo, auto.hi) == (min(exact.lo, b_lo), max(exact.hi, b_hi)) and auto.hi > exact.hi  # the hull
    assert auto.lo <= auto.value <= auto.hi and auto.to_dict()["interval"] == "exact+binomial"
    assert auto.confidence_interval(method="auto") == (auto.lo, auto.hi)
    assert exact.confidence_interval(method="auto") == (auto.lo, auto.hi)
    assert bench.interval == "exact"  # the benchmark scope has its own variance and no such check
    assert plain.interval == "exact" and plain._post.few_carrying("population") is None
    assert post.few_carrying("benchmark") is None
    assert be.estimate(R, "pass^8", interval="exact+binomial").confidence_interval() == (auto.lo, auto.hi)
    bet = be.estimate(R, "pass^8", interval="exact+betting")  # asked for: the betting bound, wider here
    g_lo, g_hi = betting_interval(np.asarray(post.state_scores()), post.freq, 0.95, (0.0, 1.0),
                                  np.random.default_rng(auto.seed))
    assert bet.interval == "exact+betting" and (bet.lo, bet.hi) == (exact.lo, max(exact.hi, g_hi)) and g_hi > b_hi


def test_near_the_top_the_lower_end_widens():
    R = 1 - _sparse()  # pass@8 near 1, carried by the few questions that fail
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = be.estimate(R, "pass@8")
        exact = be.estimate(R, "pass@8", interval="exact")
    assert auto.interval == "exact+binomial" and auto.hi >= exact.hi and auto.lo < exact.lo
    post = auto._post
    assert (auto.lo, auto.hi) == widen(post, "population", 0.95, exact.lo, exact.hi, auto.seed)


def test_evaluate_and_tables_name_the_widened_rows():
    R = _sparse()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = be.evaluate({"d": _dense(), "m": R}, ["pass^8"])
    assert [e.interval for e in ev] == ["exact", "exact+binomial"]
    assert "95% exact+binomial" in ev.summary()
    text = " ".join(to_terminal(ev).split())
    assert "[95% equal-tailed credible interval]" in text
    assert ("Widened to Clopper-Pearson's interval on the summed scores (few questions carry the metric): m pass^8."
            in text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        only = be.evaluate({"m": R}, ["pass^8"], interval="exact+betting")
        asked = be.evaluate({"d": _dense(), "m": R}, ["pass^8", "pass^32"], interval="exact+betting")
    text = " ".join(to_markdown(only).split())
    assert "[95% equal-tailed (far end: betting confidence bound) credible interval]" in text and "Far end" not in text
    # asked for: the rows it could answer are named without a reason that is not theirs (d is carried by many)
    assert [e.interval for e in asked] == ["exact+betting", "exact", "exact+betting", "exact"]
    text = " ".join(to_markdown(asked).split())
    assert "Far end from a betting confidence bound: d pass^8, m pass^8." in text
    assert "Equal-tailed posterior interval where exact+betting does not apply: d pass^32, m pass^32." in text


def test_the_row_stays_the_posteriors_where_the_betting_bound_lies_inside():
    """Two of 10,000 questions carry pass^2: the warning fires, but the betting bound asked for (about 4.1 / M above
    the estimate's end) lies inside the posterior's far end, so the row keeps "exact" and the warning says why; at
    2,000 questions it reaches further and the row is widened.  The default's Clopper-Pearson bound (summed scores
    2 + 1/6) reaches further at both."""
    rows = {}
    for M in (2000, 10_000):
        R = np.zeros((M, 4), dtype=int)
        R[:2] = 1
        R[2, :2] = 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows[M] = (be.estimate(R, "pass^2", interval="exact+betting"), be.estimate(R, "pass^2", interval="exact"))
            auto = be.estimate(R, "pass^2")
        cp = stats.beta.ppf(0.975, 2 + 1 / 6 + 1, M - 2 - 1 / 6)
        assert auto.interval == "exact+binomial" and auto.hi == pytest.approx(cp, rel=1e-12) and cp > rows[M][1].hi
    (wide, exact), (inside, exact_10k) = rows[2000], rows[10_000]
    assert wide.interval == "exact+betting" and wide.hi > exact.hi and wide.lo == exact.lo
    assert inside.interval == "exact" and (inside.lo, inside.hi) == (exact_10k.lo, exact_10k.hi)
    note = next(w for w in inside.warnings if "rests on about" in w)
    assert "lies inside this interval's far end, so the interval is the posterior's" in note


def test_pass_at_k_curves_do_not_advise_the_interval_the_table_already_has(tmp_path):
    pytest.importorskip("matplotlib")
    from bayeseval.report import plots

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plots.pass_at_k_curve({"m": _sparse()}, ks=[1, 8], save=tmp_path / "pk.png")
    texts = [str(w.message) for w in caught if "rests on about" in str(w.message)]
    assert texts and not any("interval='auto'" in t for t in texts)


def test_explicit_betting_that_moves_nothing_is_called_exact():
    """interval="exact+betting" asked for explicitly: a row whose betting bound lies inside is the posterior's and
    says so (it was named among the widened rows)."""
    R = np.array([[1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        asked = be.estimate(R, "avg", interval="exact+betting")
        exact = be.estimate(R, "avg", interval="exact")
    assert (asked.lo, asked.hi) == (exact.lo, exact.hi) and asked.interval == "exact"


def test_an_auto_estimate_decides_again_at_another_level():
    """confidence_interval(level) of an estimate made with "auto" equals the estimate made at that level."""
    R = np.array([[1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = be.estimate(R, "avg")
        at_half = be.estimate(R, "avg", level=0.5)
    assert e.interval == "exact" and at_half.interval == "exact+binomial"
    assert e.confidence_interval(0.5) == (at_half.lo, at_half.hi)
    assert e.confidence_interval(0.5, "exact") != (at_half.lo, at_half.hi)


@pytest.mark.parametrize("flip", [False, True])
def test_every_interval_contains_its_value_at_a_low_level(flip):
    """A skewed posterior at level 0.5: its equal-tailed interval's near end passed the reported value (0.0156 in
    [0.0157, 0.187]); the nearer end now moves to the value, for every method."""
    R = np.zeros((8, 8), dtype=int)
    R[0, 0] = 1
    R = 1 - R if flip else R
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("auto", "exact", "hdi", "exact+binomial", "exact+betting"):
            e = be.estimate(R, "avg", level=0.5, interval=method)
            assert e.lo <= e.value <= e.hi, (method, e)
            assert min(abs(e.lo - e.value), abs(e.hi - e.value)) < 0.05


def test_betting_interval_refuses_what_voids_its_guarantee():
    rng = np.random.default_rng(0)
    one = np.array([0.5])
    for args, match in (((np.array([2.0]), [3], 0.95, (0, 1)), "within bounds"),
                        ((np.array([np.nan]), [3], 0.95, (0, 1)), "finite scores"),
                        ((one, [3], 1.0, (0, 1)), "level"),
                        ((one, [3], 0.95, (1, 0)), "lo < hi"),
                        ((one, [2.5], 0.95, (0, 1)), "whole numbers"),
                        ((np.array([]), [], 0.95, (0, 1)), "non-empty")):
        with pytest.raises(ValueError, match=match):
            betting_interval(*args, rng)
    with pytest.raises(ValueError, match="one-dimensional"):
        betting_interval(np.array([[0.0, 1.0]]), np.array([[1], [1]]), 0.95, (0, 1), rng)
    with pytest.raises(ValueError, match="finite width"):
        betting_interval(one, [3], 0.95, (-1e308, 1e308), rng)
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        betting_interval(one, [3], 0.95, (0, 1), None)
    with pytest.raises(TypeError, match="x must be numbers"):
        betting_interval(["a"], [3], 0.95, (0, 1), rng)


def test_exact_plus_betting_refuses_the_benchmark_scope_and_k_above_n():
    R = _sparse()
    with pytest.raises(ValueError, match="answers the population scope"):
        be.estimate(R, "pass^8", scope="benchmark", interval="exact+betting")
    with pytest.raises(BootstrapTUnavailable, match="betting interval needs an unbiased per-question score"):
        be.estimate(R, "pass^32", interval="exact+betting")
    with pytest.warns(be.ModelCheckWarning, match="betting interval does not apply here"):
        ev = be.evaluate({"m": R}, ["pass^32"], interval="exact+betting")
    assert ev["m", "pass^32"].interval == "exact"


def test_cli_default_is_auto_and_refuses_betting_in_benchmark_scope(tmp_path, capsys):
    from bayeseval.cli import main

    path = tmp_path / "runs.csv"
    rows = [f"{name},q{i},{int(v)}" for name, R in (("dense", _dense()), ("sparse", _sparse()))
            for i, row in enumerate(R) for v in row]
    path.write_text("model,question,score\n" + "\n".join(rows) + "\n")
    assert main(["report", str(path), "--metrics", "pass^8", "--format", "json", "--quiet"]) == 0
    rows = json.loads(capsys.readouterr().out)
    rows = rows["estimates"] if isinstance(rows, dict) else rows
    assert [(r["model"], r["interval"]) for r in rows] == [("dense", "exact"), ("sparse", "exact+binomial")]
    assert main(["report", str(path), "--interval", "exact+betting", "--scope", "benchmark", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--interval exact+betting treats the questions as a sample" in err and len(err.strip().splitlines()) == 1


def test_the_far_end_over_question_orders_is_as_documented():
    """docs/honesty.md quotes how far the widened far end moves with the seed (the questions' order)."""
    rng = np.random.default_rng(11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while True:
            p = 1 / (1 + np.exp(-rng.normal(0, 2, 30)))
            R = (rng.random((30, 64)) < p[:, None]).astype(int)
            if be.estimate(R, "pass^16", seed=0)._post.few_carrying("population") is not None:
                break
        exact = be.estimate(R, "pass^16", interval="exact")
        rows = [be.estimate(R, "pass^16", seed=s, interval="exact+betting") for s in range(20)]
        auto = [be.estimate(R, "pass^16", seed=s) for s in range(3)]
    far = np.array([e.hi for e in rows])
    assert all(e.interval == "exact+betting" and e.lo < exact.lo + 0.01 for e in rows)
    # the default's Clopper-Pearson bound reads the summed scores, not an order: the same far end at every seed
    assert all(e.interval == "exact+binomial" and e.hi == auto[0].hi for e in auto) and auto[0].hi > exact.hi
    flat = " ".join((Path(__file__).parents[1] / "docs" / "honesty.md").read_text(encoding="utf-8").split())
    assert (f"estimate {rows[0].value:.3f}, exact interval [{exact.lo:.3f}, {exact.hi:.3f}]), 20 seeds put the widened "
            f"far end between {far.min():.3f} and {far.max():.3f} (sd {far.std(ddof=1):.3f};") in flat
    # the order-averaged variant measured in benchmarks/tail_cells.py, on the same 20 seeds
    bench = _tail_cells()
    post = rows[0]._post
    averaged = np.array([bench.betting_orders(post.state_scores(), post.freq, 0.95, np.random.default_rng(s))[1]
                         for s in range(20)])
    single = np.array([betting_interval(post.state_scores(), post.freq, 0.95, (0.0, 1.0), np.random.default_rng(s))[1]
                       for s in range(20)])
    assert np.allclose(np.maximum(far, exact.hi), np.maximum(single, exact.hi))  # the library's far end is one order's
    assert (f"the same 20 seeds put the far end above between {averaged.min():.4f} and {averaged.max():.4f} (sd "
            f"{averaged.std(ddof=1):.4f}), where one order's reaches at most {single.max():.4f}") in flat
    assert averaged.std(ddof=1) < single.std(ddof=1) / 20


def _tail_cells():
    """benchmarks/tail_cells.py as a module (it is a script, not part of the package).  The script puts
    benchmarks/ first on sys.path to import its neighbours; that is undone here (benchmarks/coverage.py would
    shadow the coverage package for every later test in this process)."""
    import importlib.util
    import sys

    path = Path(__file__).parents[1] / "benchmarks" / "tail_cells.py"
    spec = importlib.util.spec_from_file_location("tail_cells_bench", path)
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


def test_the_order_averaged_capital_is_brute_force_and_holds_its_level():
    """benchmarks/tail_cells.py's order-averaged betting interval (measured there, not the library's): its ends
    are where the average final capital over the orders crosses 2 / alpha (checked by explicit loops over the
    orders and scores), and it covers the mean of a skewed pool at least 95% of the time."""
    bench = _tail_cells()
    rng = np.random.default_rng(5)
    x = np.round(rng.beta(0.3, 3.0, 25), 2)
    values, freq = np.unique(x, return_counts=True)
    lo, hi = bench.betting_orders(values, freq, 0.9, np.random.default_rng(3), orders=8)
    u = np.repeat(values, freq)
    keys = np.random.default_rng(3).random((8, u.size))
    alpha, M = 0.1, u.size

    def mean_capital(m, up):
        total = 0.0
        for key in keys:
            order = u[np.argsort(key)]
            cap, sq, s = 1.0, 0.0, 0.0
            for t, v in enumerate(order, start=1):
                lam = math.sqrt(2 * math.log(2 / alpha) / (M * (0.25 + sq) / t))
                room = m if up else 1 - m
                bet = min(lam, CI_BET_CAP / room) if room > 0 else lam
                cap *= 1 + bet * ((v - m) if up else (m - v))
                s += v
                sq += (v - (0.5 + s) / (t + 1)) ** 2
            total += cap
        return total / len(keys)

    assert mean_capital(lo - 1e-6, True) >= 2 / alpha > mean_capital(lo + 1e-6, True)
    assert mean_capital(hi + 1e-6, False) >= 2 / alpha > mean_capital(hi - 1e-6, False)
    covered = 0
    for _ in range(200):
        draw = rng.beta(0.3, 3.0, 30)
        v, f = np.unique(draw, return_counts=True)
        b_lo, b_hi = bench.betting_orders(v, f, 0.95, rng, orders=16)
        covered += b_lo <= 0.3 / 3.3 <= b_hi
    assert covered >= 190
