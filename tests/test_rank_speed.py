"""compare_all's pairs read their posterior draws from the joint draws made once for the ranking
(bayeseval.comparison.ranking._PairDraws), and distinct rows are found on integer codes (joint.distinct_rows).

Every number compare_all returns is checked against the output of the code before that change
(``tests/data/rank_speed_before.json``, recorded at commit 2313172 by ``python tests/test_rank_speed.py --record
PATH``): identical, except each pair's interval and P(A > B), whose draws changed; those are checked against the
old per-pair draws (``compare`` with the pair's seed, which reproduces the recorded numbers exactly) with tolerances
from the number of draws.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import bayeseval as be

BEFORE = Path(__file__).parent / "data" / "rank_speed_before.json"
SEED = 7
Z = 5.0  # Monte-Carlo tolerances: standard errors of the difference of two independent estimates


def outcomes(K, M, N, seed, spread=0.06):
    """K models on M questions, N trials each (an int, or one per model)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.8, 0.8, M)
    Ns = [N] * K if isinstance(N, int) else list(N)
    return {f"m{j}": (rng.random((M, Ns[j])) < np.clip(p + spread * (j - K / 2) / K, 0, 1)[:, None]).astype(int)
            for j in range(K)}


def scores(K, M, seed):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, M)
    return {f"m{j}": np.clip(p[:, None] + 0.03 * j + 0.1 * rng.standard_normal((M, 1)), 0, 1) for j in range(K)}


FAST = dict(draws=2000, resamples=1000)
CASES = {  # name: (models, compare_all keywords); every law a pair's posterior can take
    "population avg N=4": (lambda: outcomes(4, 80, 4, 1), dict(pairs="all", **FAST)),
    "population avg N=1": (lambda: outcomes(4, 80, 1, 2), dict(pairs="all", **FAST)),
    "population adjacent": (lambda: outcomes(5, 120, 3, 3), dict(**FAST)),
    "benchmark N=1": (lambda: outcomes(4, 80, 1, 4), dict(pairs="all", scope="benchmark", **FAST)),
    "benchmark N=4": (lambda: outcomes(4, 80, 4, 5), dict(pairs="all", scope="benchmark", **FAST)),
    "benchmark mixed N": (lambda: outcomes(4, 80, [1, 4, 1, 4], 6), dict(pairs="all", scope="benchmark", **FAST)),
    "pass@4 mixed N": (lambda: outcomes(4, 60, [1, 4, 4, 2], 7),
                       dict(metric="pass@4", pairs="all", prior="uniform", draws=1000, resamples=1000)),
    "pass@4 N=8 level 0.9": (lambda: outcomes(4, 80, 8, 8), dict(metric="pass@4", pairs="all", level=0.9, **FAST)),
    "scores": (lambda: scores(4, 100, 9), dict(pairs="all", score_range=(0, 1), **FAST)),
    "shrink": (lambda: outcomes(5, 100, 2, 10), dict(pairs="all", shrink=True, **FAST)),
    "bootstrap normal": (lambda: outcomes(4, 80, 2, 11), dict(pairs="all", test="bootstrap", interval="normal",
                                                              **FAST)),
    "hdi custom pairs": (lambda: outcomes(4, 80, 2, 12), dict(pairs=[("m2", "m0"), ("m1", "m3"), ("m3", "m2")],
                                                              interval="hdi", **FAST)),
    "tiny M=3": (lambda: outcomes(3, 3, 2, 13), dict(pairs="all", **FAST)),
}
DRAWN = ("lo", "hi", "p_a_better")  # a pair's numbers read from the draws


def _run(name):
    data, kw = CASES[name]
    models = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return models, kw, be.compare_all(models, seed=SEED, **kw).to_dict()


@pytest.fixture(scope="module")
def before():
    return json.loads(BEFORE.read_text())


def _pair_compare(models, kw, a, b):
    """``compare`` of the pair as compare_all orders it (the first model in ``models`` first), with the pair's seed:
    the per-pair posterior draws the code before drew."""
    names = list(models)
    i, j = sorted((names.index(a), names.index(b)))
    K = len(names)
    _, r_pairs = np.random.default_rng(SEED).spawn(2)
    seeds = [int(r_pairs.integers(2**31)) for _ in range(K * (K - 1) // 2)]
    keep = ("metric", "scope", "level", "interval", "draws", "resamples", "prior", "score_range")
    ck = {k: v for k, v in kw.items() if k in keep}
    ck.setdefault("interval", "exact")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = be.compare(models[names[i]], models[names[j]], seed=seeds[i * K - i * (i + 1) // 2 + (j - i - 1)],
                       names=(names[i], names[j]), **ck)
    return c, (names[i], names[j]) != (a, b)


def _within(draws: np.ndarray, x: float, q: float, n: int) -> bool:
    """Whether ``x``, a ``q``-quantile of ``n`` other draws of the same law, is one of ``draws`` (n of them) too:
    ``q`` lies within the empirical CDF of ``draws`` at ``x`` (its jump included) give or take Z standard errors
    of the difference of two empirical CDFs."""
    e = Z * math.sqrt(2 * q * (1 - q) / n) + 2.0 / n
    return float(np.mean(draws < x)) - e <= q <= float(np.mean(draws <= x)) + e


@pytest.mark.parametrize("name", list(CASES))
def test_compare_all_as_before(before, name):
    models, kw, got = _run(name)
    want = before[name]
    assert {k: v for k, v in got.items() if k != "pairs"} == {k: v for k, v in want.items() if k != "pairs"}
    assert len(got["pairs"]) == len(want["pairs"])
    level, method = kw.get("level", 0.95), kw.get("interval", "exact")
    n = kw["draws"]
    for new, old in zip(got["pairs"], want["pairs"]):
        same = {k: v for k, v in new.items() if k not in DRAWN + ("decision",)}
        assert same == {k: v for k, v in old.items() if k not in DRAWN + ("decision",)}
        if new["p_value"] is not None:  # the test decides, as before
            assert new["decision"] == old["decision"]
        else:  # k > n: the posterior decides, on P(A > B) read from the new draws
            cut = [(1 + level) / 2, (1 - level) / 2]
            near = any(abs(old["p_a_better"] - t) <= Z * math.sqrt(2 * 0.25 / n) for t in cut)
            assert new["decision"] == old["decision"] or near
        if kw.get("shrink") or method == "normal":  # from the pooled draws (unchanged) or closed forms
            assert [new[k] for k in DRAWN[:2]] == [old[k] for k in DRAWN[:2]]
            if kw.get("shrink"):
                assert new["p_a_better"] == old["p_a_better"]
        if kw.get("shrink"):
            continue
        c, mirrored = _pair_compare(models, kw, new["a"], new["b"])
        dx = -c.draws() if mirrored else c.draws()
        lo, hi = (-c.delta.hi, -c.delta.lo) if mirrored else (c.delta.lo, c.delta.hi)
        pab = 1.0 - c.p_a_better if mirrored else c.p_a_better
        # compare with the pair's seed is the code before: the recorded numbers to the last bit
        assert (lo, hi, pab) == (old["lo"], old["hi"], old["p_a_better"])
        assert new["delta"] == (-c.delta.mean if mirrored else c.delta.mean)
        assert abs(new["p_a_better"] - pab) <= Z * math.sqrt(2 * max(pab * (1 - pab), 1.0 / n) / n) + 1.0 / n
        if method == "exact":
            assert _within(dx, new["lo"], (1 - level) / 2, n) and _within(dx, new["hi"], (1 + level) / 2, n)
        elif method == "hdi":  # holds `level` of the old draws
            e = Z * math.sqrt(2 * level * (1 - level) / n) + 2.0 / n
            assert np.mean((dx >= new["lo"]) & (dx <= new["hi"])) >= level - e
            assert np.mean((dx > new["lo"]) & (dx < new["hi"])) <= level + e


def test_pairs_draw_nothing_of_their_own(monkeypatch):
    """One Dirichlet-process draw for the ranking serves every pair (two where the ranking's law is another)."""
    from bayeseval.comparison import ranking

    calls = {"dp": 0}
    real = ranking.dp_bootstrap

    def counted(*args, **kwargs):
        calls["dp"] += 1
        return real(*args, **kwargs)

    def refused(*args, **kwargs):
        raise AssertionError("a pair drew its own posterior")

    monkeypatch.setattr(ranking, "dp_bootstrap", counted)
    monkeypatch.setattr(ranking, "paired_difference", refused)
    for name, dp in (("population avg N=4", 1), ("benchmark N=1", 1), ("benchmark mixed N", 1),
                     ("pass@4 mixed N", 1), ("benchmark N=4", 0)):
        calls["dp"] = 0
        _run(name)
        assert calls["dp"] == dp, name


def test_p_best_and_pairs_from_the_same_draws():
    """The pairs' P(A > B) and P(best) come from the same draws: a model best in a draw beats every other there."""
    _, _, got = _run("population avg N=4")
    best = {m["model"]: m["p_best"] for m in got["models"]}
    assert len(got["pairs"]) == 6
    for p in got["pairs"]:
        assert best[p["a"]] <= p["p_a_better"] + 1e-12 and best[p["b"]] <= 1.0 - p["p_a_better"] + 1e-12


def test_own_draws_where_the_payoffs_differ(monkeypatch, before):
    """Where the models' payoffs or prior pseudo-questions differed, a pair would draw its own posterior as before."""
    from bayeseval.comparison import ranking

    monkeypatch.setattr(ranking._PairDraws, "same_base", property(lambda self: False, lambda self, value: None),
                        raising=False)
    for name in ("population avg N=1", "benchmark N=1"):
        assert _run(name)[2] == before[name]


def test_pairs_agree_with_compare():
    """A pair's difference and p-value are compare's with the pair's seed, exactly."""
    models, kw, got = _run("population adjacent")
    for p in got["pairs"]:
        c, mirrored = _pair_compare(models, kw, p["a"], p["b"])
        assert p["delta"] == (-c.delta.mean if mirrored else c.delta.mean)
        assert p["p_value"] == c.permutation.p_value


@pytest.mark.parametrize("shape, values", [((500, 1), 3), ((500, 2), 9), ((300, 5), 3), ((40, 60), 200),
                                           ((2000, 3), None), ((1, 4), 2), ((7, 2), None)])
def test_distinct_rows_are_numpys(shape, values):
    from bayeseval.comparison.joint import distinct_rows, score_codes

    rng = np.random.default_rng(sum(shape))
    X = rng.random(shape) if values is None else rng.integers(0, values, shape) / max(values - 1, 1)
    if values is None:
        X[: shape[0] // 2] = X[shape[0] // 2 : 2 * (shape[0] // 2)]  # repeated rows of continuous values
    want_rows, want_freq = np.unique(X, axis=0, return_counts=True)
    for codes in (None, [score_codes(X[:, m]) for m in range(shape[1])]):
        rows, freq = distinct_rows(X, codes)
        assert np.array_equal(rows, want_rows) and np.array_equal(freq, want_freq)
    if shape[1] == 1:
        rows, freq = distinct_rows(X[:, 0])
        assert np.array_equal(rows, want_rows) and np.array_equal(freq, want_freq)


@pytest.mark.parametrize("M, K, studentized", [(200, 3, True), (200, 2, False), (3, 2, True), (30000, 2, True)])
def test_dp_bootstrap_unchanged(monkeypatch, M, K, studentized):
    """dp_bootstrap and bayesian_bootstrap with rows found on codes draw exactly what they drew on np.unique's."""
    from bayeseval.comparison import joint

    rng = np.random.default_rng(M + K)
    X = rng.integers(0, 5, (M, K)) / 4 if M < 30000 else rng.random((M, K))
    c = np.array([0.0, 1.0])

    def run():
        out = joint.dp_bootstrap(X, c, (1.0, 1.0), 500, np.random.default_rng(1), studentized=studentized)
        return out, joint.bayesian_bootstrap(X, 300, np.random.default_rng(2))

    new = run()
    moments = joint.dp_posterior_moments(X, c, (1.0, 1.0), studentized=studentized)
    monkeypatch.setattr(joint, "distinct_rows", lambda X, codes=None: np.unique(X, axis=0, return_counts=True))
    old = run()
    for a, b in zip(new[0] + new[1], old[0] + old[1]):
        assert np.array_equal(a, b)
    assert np.array_equal(moments[0], old[0][0])
    assert moments[1] is None if (studentized and M <= 3) else np.array_equal(moments[1], old[0][1])


def _record(path: str) -> None:
    """Write every case's compare_all output with the bayeseval on the path (the code before, for BEFORE)."""
    out = {name: _run(name)[2] for name in CASES}
    Path(path).write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {path} with {be.__file__}")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--record"] or len(sys.argv) != 3:
        sys.exit("usage: python tests/test_rank_speed.py --record PATH")
    _record(sys.argv[2])
