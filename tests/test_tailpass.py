"""TailPass@k (:mod:`bayeseval.metrics.tailpass`): scorio parity, brute force, and bayeseval's own metrics.

* Differential tests against ``scorio.eval.tailpass`` / ``tailpass_empirical`` (scorio 0.2.3) on
  seeded random inputs -- binary, two-level and categorical rubrics with scores in [0, 1] (ties,
  exact 0 and 1, decimal scores meeting thresholds), ``k`` below, equal to and above ``N``,
  custom thresholds, ``R0`` with ``eta``, scalar / vector / matrix priors -- asserting every
  exposed number (mean, std, covariance, question_mean, moment, linear, discovery, stability,
  the normal ``*_ci`` summaries, ``at_k``, the empirical profile) to 1e-10.  The draw utilities
  are compared on the *same* latent draws (scorio's ``TailPassDraws`` fed bayeseval's draws),
  and bayeseval's own sampler is checked by its moments.
* Independent checks: binary endpoints are bayeseval's ``pass_at_k`` / ``pass_hat_k`` (finite
  bank) and the ``pass_at_k_ci`` / ``pass_hat_k_ci`` / ``g_pass_at_k_tau_ci`` posteriors,
  ``moment(1)`` is ``bayes``; a brute-force enumeration of Polya-urn sequences in exact rational
  arithmetic checks a tiny categorical case (means, covariance, moments, linear utility), and
  an enumeration of subsets the finite bank.
* Errors: each bad argument raises ``ValueError`` naming it (scorio raises too).
"""

from __future__ import annotations

import inspect
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

import bayeseval as B
from bayeseval.metrics import tailpass as T
from scorio import eval as S
from scorio.eval.tailpass import TailPassDraws as SDraws

TOL = 1e-10
R2 = np.array([[0, 1, 1], [1, 0, 1]])
R3 = np.array([[0, 1, 2], [2, 2, 1]])
_seen = {"values": 0, "max": 0.0}


def close(ours, ref, what: str, tol: float = TOL) -> None:
    """``|ours - ref| <= tol`` elementwise (absolute: every TailPass number lies in [0, 1])."""
    a = np.asarray(ours, dtype=float)
    b = np.asarray(ref, dtype=float)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    assert np.all(np.isfinite(a)), f"{what}: non-finite {a}"
    if a.size:
        diff = float(np.max(np.abs(a - b)))
        _seen["values"] += a.size
        _seen["max"] = max(_seen["max"], diff)
    assert_allclose(a, b, rtol=0.0, atol=tol, err_msg=what)


# ----------------------------------------------------------------------------- random inputs
def _scores(rng, size: int) -> np.ndarray:
    kind = rng.integers(4)
    if kind == 0:  # decimal grades that meet decimal thresholds exactly
        w = np.round(rng.uniform(0, 1, size), 1)
    elif kind == 1:  # ties (merged levels) and the endpoints
        w = rng.choice([0.0, 0.25, 0.5, 1.0], size)
    elif kind == 2:
        w = rng.uniform(0, 1, size)
    else:
        w = np.linspace(0, 1, size)
    if rng.random() < 0.6:
        w[0], w[-1] = 0.0, 1.0
    return w


def _thresholds(rng, k: int):
    kind = rng.integers(4)
    if kind == 0:
        return None
    if kind == 1:  # a few of the default grid points
        j = np.sort(rng.choice(np.arange(1, k + 1), size=min(k, rng.integers(1, 4)), replace=False))
        return (j / k).tolist()
    if kind == 2:
        return np.unique(np.round(rng.uniform(0, 1, rng.integers(1, 6)), 2)).tolist()
    return [0.0, 0.3, 0.5, 0.7, 1.0]


def random_case(seed: int, categorical: bool) -> dict:
    """Outcomes, rubric, budget and prior for one differential case (scorio accepts all of them)."""
    rng = np.random.default_rng([seed, int(categorical)])
    M, N = int(rng.integers(1, 6)), int(rng.integers(1, 8))
    if categorical:
        K = int(rng.integers(3, 6))
        w = _scores(rng, K)
        R = rng.choice(K, size=(M, N), p=rng.dirichlet(np.ones(K)))
        k = int(rng.integers(1, 6))
    else:
        K = 2
        w = None if rng.random() < 0.7 else np.sort(rng.uniform(0, 1, 2))  # two levels, any scores
        R = (rng.random((M, N)) < rng.beta(1, 1, size=(M, 1))).astype(int)
        k = int(rng.choice([1, max(1, N - 1), N, N + 3, 2 * N + 5]))
    case = dict(R=R, k=k, w=w, thresholds=_thresholds(rng, k))
    if rng.random() < 0.5:
        case["R0"] = rng.integers(0, K, (M, int(rng.integers(0, 4))))
        case["eta"] = float(rng.choice([1.0, 0.0, rng.uniform()]))
    prior_kind = rng.integers(4)
    if prior_kind == 1:
        case["prior"] = float(rng.uniform(0.2, 5))
    elif prior_kind == 2:
        case["prior"] = rng.uniform(0.2, 5, K)
    elif prior_kind == 3:
        case["prior"] = rng.uniform(0.2, 5, (M, K))
    return case


def _call(lib, case):
    kw = {key: case[key] for key in ("R0", "eta", "prior", "thresholds") if key in case}
    R0 = kw.pop("R0", None)
    return lib.tailpass(case["R"], case["k"], case["w"], R0, **kw)


def compare_profiles(ours, ref, rng, what: str) -> None:
    assert isinstance(ours, B.TailPassProfile)
    assert ours.k == ref.k and ours.question_count == ref.question_count
    close(ours.thresholds, ref.thresholds, f"{what} thresholds", 0.0)
    close(ours.mean, ref.mean, f"{what} mean")
    close(ours.question_mean, ref.question_mean, f"{what} question_mean")
    close(ours.covariance, ref.covariance, f"{what} covariance")
    close(ours.std, ref.std, f"{what} std")
    for lam in (0.5, 1, 1.7, 2, 3, 4):
        mu_sd = ours.moment(lam)
        assert isinstance(mu_sd, tuple) and all(isinstance(x, float) for x in mu_sd)
        close(mu_sd, ref.moment(lam), f"{what} moment({lam})")
    m = ours.thresholds.size
    weights = rng.dirichlet(np.ones(m))
    close(ours.linear(weights), ref.linear(weights), f"{what} linear")
    one_hot = np.eye(m)[rng.integers(m)]
    close(ours.linear(one_hot), ref.linear(one_hot), f"{what} linear one-hot")
    close(ours.discovery(), ref.discovery(), f"{what} discovery")
    close(ours.stability(), ref.stability(), f"{what} stability")
    for mine, theirs in zip(ours.ci(0.9, method="normal"), ref.ci(0.9, method="normal")):
        close(mine, theirs, f"{what} ci normal")
    close(ours.linear_ci(weights, 0.8, method="normal"), ref.linear_ci(weights, 0.8, method="normal"),
          f"{what} linear_ci")
    close(ours.moment_ci(2, method="normal"), ref.moment_ci(2, method="normal"), f"{what} moment_ci")


# ----------------------------------------------------------------------------- surface
def test_exported_from_the_scorio_surface():
    from bayeseval import tailpass as top
    from bayeseval.scorio import TailPassProfile, tailpass, tailpass_empirical

    assert top is tailpass is T.tailpass and tailpass_empirical is T.tailpass_empirical
    assert TailPassProfile is T.TailPassProfile
    for name in ("tailpass", "tailpass_empirical", "TailPassProfile", "TailPassDraws"):
        assert name in B.__all__
    assert {"tailpass", "tailpass_empirical"} <= set(S.__all__)


@pytest.mark.parametrize("name", ["tailpass", "tailpass_empirical"])
def test_same_signature_as_scorio(name):
    ours, ref = inspect.signature(getattr(B, name)), inspect.signature(getattr(S, name))
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in ref.parameters.values()]


@pytest.mark.parametrize("draws", [False, True], ids=["TailPassProfile", "TailPassDraws"])
def test_same_public_attributes_and_methods_as_scorio(draws):
    ours, ref = B.tailpass(R2, 3), S.tailpass(R2, 3)
    if draws:
        ours, ref = ours.sample(5, rng=0), ref.sample(5, rng=0)
    assert type(ours).__name__ == type(ref).__name__
    public = sorted(n for n in dir(ref) if not n.startswith("_"))
    assert public == sorted(n for n in dir(ours) if not n.startswith("_"))
    for name in public:
        a, b = getattr(type(ref), name, None), getattr(type(ours), name, None)
        if inspect.isfunction(a):
            assert [(p.name, p.kind, p.default) for p in inspect.signature(b).parameters.values()] == \
                [(p.name, p.kind, p.default) for p in inspect.signature(a).parameters.values()], name


# ----------------------------------------------------------------------------- differential: posterior
@pytest.mark.slow
@pytest.mark.parametrize("categorical", [False, True], ids=["binary", "categorical"])
@pytest.mark.parametrize("seed", range(40))
def test_posterior_profile_matches_scorio(seed, categorical):
    case = random_case(seed, categorical)
    rng = np.random.default_rng(seed)
    ours, ref = _call(B, case), _call(S, case)
    compare_profiles(ours, ref, rng, f"seed={seed} k={case['k']} w={case['w']}")
    k2 = int(rng.integers(1, 7))
    compare_profiles(ours.at_k(k2), ref.at_k(k2), rng, f"seed={seed} at_k({k2})")


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_hard_posteriors_match_scorio(seed):
    """Near-certain pass@k (tiny variances), strong priors, k well above N, one question, one level."""
    rng = np.random.default_rng(100 + seed)
    R = np.ones((3, 40), dtype=int)
    R[1, : seed + 1] = 0
    R[2] = rng.integers(0, 2, 40)
    for k, prior in ((1, 1.0), (7, 1.0), (25, 0.5), (60, [2.0, 0.3]), (5, 300.0)):
        compare_profiles(B.tailpass(R, k, prior=prior), S.tailpass(R, k, prior=prior), rng, f"k={k} prior={prior}")
    # one question given as a 1-D array; a single merged level; a rubric without 0 or 1
    R1 = rng.integers(0, 3, 6)
    for w in ([0.0, 0.5, 1.0], [0.4, 0.4, 0.4], [0.2, 0.6, 0.9]):
        compare_profiles(B.tailpass(R1, 4, w), S.tailpass(R1, 4, w), rng, f"1-D w={w}")


# ----------------------------------------------------------------------------- differential: finite bank
@pytest.mark.parametrize("categorical", [False, True], ids=["binary", "categorical"])
@pytest.mark.parametrize("seed", range(40))
def test_empirical_profile_matches_scorio(seed, categorical):
    case = random_case(seed, categorical)
    N = case["R"].shape[1]
    rng = np.random.default_rng(seed)
    for k in sorted({1, N, int(rng.integers(1, N + 1))}):
        t = _thresholds(rng, k)
        ours = B.tailpass_empirical(case["R"], k, case["w"], thresholds=t)
        ref = S.tailpass_empirical(case["R"], k, case["w"], thresholds=t)
        assert isinstance(ours, np.ndarray) and not ours.flags.writeable
        close(ours, ref, f"empirical seed={seed} k={k} t={t}")


# ----------------------------------------------------------------------------- differential: draw utilities
@pytest.mark.parametrize("w", [None, [0.0, 0.5, 0.5, 1.0], [0.2, 0.9, 1.0]], ids=["binary", "ties", "no-zero"])
def test_draw_utilities_match_scorio_on_the_same_draws(w):
    rng = np.random.default_rng(7)
    R = rng.integers(0, 2 if w is None else len(w), (4, 6))
    ours = B.tailpass(R, 5, w).sample(400, rng=3)
    ref = SDraws(S.tailpass(R, 5, w), ours._probabilities)
    close(ours.profile, ref.profile, "profile")
    for lam in (1, 2, 3, 4, 0.6):
        close(ours.moment(lam), ref.moment(lam), f"moment({lam})")
    weights = np.array([0.1, 0.3, 0.0, 0.4, 0.2])
    close(ours.linear(weights), ref.linear(weights), "linear")
    for q in (0.05, 0.5, 1.0, 2.0, 7.0):
        for aggregation in ("question", "profile"):
            close(ours.power_mean(q, weights, aggregation=aggregation),
                  ref.power_mean(q, weights, aggregation=aggregation), f"power_mean({q}, {aggregation})")
    close(ours.qrs(), ref.qrs(), "qrs")
    close(ours.rollout(3, weights), ref.rollout(3, weights), "rollout")
    for alpha in (0.0, 0.3, 1.0):
        close(ours.harmonic(alpha), ref.harmonic(alpha), f"harmonic({alpha})")
    close(ours.discovery(), ref.discovery(), "discovery")
    close(ours.stability(), ref.stability(), "stability")
    target = np.array([0.9, 0.8, 0.5, 0.5, 0.1])
    close(ours.shortfall(target, np.arange(1.0, 6.0), epsilon=0.1),
          ref.shortfall(target, np.arange(1.0, 6.0), epsilon=0.1), "shortfall")
    close(ours.at_k(3, thresholds=[0.4, 1.0]).profile, ref.at_k(3, thresholds=[0.4, 1.0]).profile, "at_k")
    for mine, theirs in zip(ours.summary(confidence=0.9), ref.summary(confidence=0.9)):
        close(mine, theirs, "summary(profile)")
    diff = ours.moment(2) - ours.linear(weights)
    summary = ours.summary(diff)
    assert all(isinstance(x, float) for x in summary)
    close(summary, ref.summary(diff), "summary(values)")


def test_posterior_draws_have_the_exact_moments():
    """bayeseval's own sampler (seeding differs from scorio's): Monte Carlo moments vs the exact ones."""
    R = np.array([[0, 1, 2, 2, 1], [2, 2, 2, 1, 2], [0, 0, 1, 0, 2]])
    profile = B.tailpass(R, 4, [0.0, 0.5, 1.0], R0=np.array([[2], [1], [0]]), eta=0.5, prior=[1.0, 0.5, 2.0])
    n = 40_000
    draws = profile.sample(n, rng=11)
    assert draws.profile.shape == (n, 4) and not draws.profile.flags.writeable
    se = np.sqrt(np.diag(profile.covariance) / n)
    assert np.all(np.abs(draws.profile.mean(axis=0) - profile.mean) < 5 * se + 1e-12)
    assert_allclose(np.cov(draws.profile.T), profile.covariance, atol=0.1 * profile.std.max() ** 2)
    for exact, sample in ((profile.moment(1), draws.moment(1)), (profile.moment(2.5), draws.moment(2.5)),
                          (profile.linear([0.1, 0.2, 0.3, 0.4]), draws.linear([0.1, 0.2, 0.3, 0.4])),
                          (profile.discovery(), draws.discovery()), (profile.stability(), draws.stability())):
        mu, sd = exact
        assert abs(sample.mean() - mu) < 5 * sd / math.sqrt(n)
        assert abs(sample.std(ddof=1) / sd - 1) < 0.05
    mean, sd, lo, hi = profile.ci(0.9, n_draws=n, rng=5)
    assert np.all(np.abs(mean - profile.mean) < 5 * se) and np.all(np.abs(sd / profile.std - 1) < 0.05)
    assert np.all(lo <= mean) and np.all(mean <= hi)
    mu, sigma, lo, hi = profile.moment_ci(2, n_draws=n, rng=6)
    assert abs(mu - profile.moment(2)[0]) < 5 * sigma / math.sqrt(n) and lo < mu < hi
    mu, sigma, lo, hi = profile.linear_ci([0.5, 0, 0, 0.5], n_draws=n, rng=6)
    assert abs(sigma / profile.linear([0.5, 0, 0, 0.5])[1] - 1) < 0.05
    # the same seed gives the same draws; scorio's sampler agrees in distribution
    assert np.array_equal(profile.sample(50, rng=1).profile, profile.sample(50, rng=1).profile)
    ref = S.tailpass(R, 4, [0.0, 0.5, 1.0], R0=np.array([[2], [1], [0]]), eta=0.5, prior=[1.0, 0.5, 2.0])
    theirs = ref.sample(n, rng=11).profile
    assert np.all(np.abs(theirs.mean(axis=0) - draws.profile.mean(axis=0)) < 7 * se + 1e-12)


# ----------------------------------------------------------------------------- bayeseval's own metrics
@pytest.mark.parametrize("seed", range(15))
def test_binary_endpoints_are_pass_at_k_and_pass_hat_k(seed):
    rng = np.random.default_rng(200 + seed)
    M, N = int(rng.integers(1, 8)), int(rng.integers(1, 12))
    R = (rng.random((M, N)) < rng.beta(0.7, 0.7, size=(M, 1))).astype(int)
    for k in range(1, N + 1):
        profile = B.tailpass_empirical(R, k)
        close(profile[0], B.pass_at_k(R, k), f"pass@{k}")
        close(profile[-1], B.pass_hat_k(R, k), f"pass^{k}")
    for k in (1, 2, N, N + 4):  # the posterior accepts k > N
        profile = B.tailpass(R, k)
        for j in range(1, k + 1):
            mu, sigma, _, _ = B.g_pass_at_k_tau_ci(R, k, j / k)
            close((profile.mean[j - 1], profile.std[j - 1]), (mu, sigma), f"G-Pass@{k}_tau={j}/{k}")
        close((profile.mean[0], profile.std[0]), B.pass_at_k_ci(R, k)[:2], f"pass@{k} posterior")
        close((profile.mean[-1], profile.std[-1]), B.pass_hat_k_ci(R, k)[:2], f"pass^{k} posterior")
        close(profile.discovery(), B.pass_at_k_ci(R, k)[:2], "discovery = pass@k")
        close(profile.stability(), B.pass_hat_k_ci(R, k)[:2], "stability = pass^k")


@pytest.mark.parametrize("seed", range(8))
def test_moment_one_is_bayes_at_n(seed):
    rng = np.random.default_rng(300 + seed)
    w = np.array([0.0, 0.3, 0.7, 1.0])
    R = rng.integers(0, 4, (5, 6))
    R0 = rng.integers(0, 4, (5, 2))
    close(B.tailpass(R, 3, w, R0).moment(1), B.bayes(R, w, R0), "moment(1) = Bayes@N")
    # with the uniform grid weights the linear utility is the mean grid-rounded score (binary: Bayes@N)
    Rb = rng.integers(0, 2, (5, 6))
    close(B.tailpass(Rb, 4).linear(np.full(4, 0.25)), B.bayes(Rb), "linear(uniform) = Bayes@N")


# ----------------------------------------------------------------------------- brute force
def _urn(alpha: list[Fraction], length: int):
    """Every category sequence of ``length`` Polya-urn draws with its exact probability."""
    total = sum(alpha)
    for seq in itertools.product(range(len(alpha)), repeat=length):
        p, seen = Fraction(1), [0] * len(alpha)
        for i, z in enumerate(seq):
            p *= (alpha[z] + seen[z]) / (total + i)
            seen[z] += 1
        yield seq, p


def _brute_posterior(alpha, w, k, thresholds, payoffs):
    """Exact mean / covariance of the threshold events and mean / variance of payoff functions of S."""
    score = lambda seq: sum(w[z] for z in seq) / k  # noqa: E731
    m = len(thresholds)
    mean = [Fraction(0)] * m
    pay_mean = [Fraction(0)] * len(payoffs)
    for seq, p in _urn(alpha, k):
        s = score(seq)
        for j, t in enumerate(thresholds):
            mean[j] += p * (s >= t)
        for i, f in enumerate(payoffs):
            pay_mean[i] += p * f(s)
    joint = [[Fraction(0)] * m for _ in range(m)]
    pay_second = [Fraction(0)] * len(payoffs)
    for seq, p in _urn(alpha, 2 * k):
        s1, s2 = score(seq[:k]), score(seq[k:])
        for i, t in enumerate(thresholds):
            if s1 >= t:
                for j, u in enumerate(thresholds):
                    joint[i][j] += p * (s2 >= u)
        for i, f in enumerate(payoffs):
            pay_second[i] += p * f(s1) * f(s2)
    cov = [[joint[i][j] - mean[i] * mean[j] for j in range(m)] for i in range(m)]
    pay_var = [pay_second[i] - pay_mean[i] ** 2 for i in range(len(payoffs))]
    return mean, cov, pay_mean, pay_var


def test_brute_force_categorical_posterior():
    """Two questions, three levels, k = 3: every bank sequence of one Polya urn, in exact rationals."""
    w = [Fraction(0), Fraction(1, 2), Fraction(1)]
    R = np.array([[0, 1, 2, 2], [2, 2, 1, 0]])
    prior = np.array([[1, 2, 1], [3, 1, 2]])
    k, thresholds = 3, [Fraction(1, 3), Fraction(1, 2), Fraction(5, 6), Fraction(1)]
    weights = [Fraction(1, 10), Fraction(2, 10), Fraction(3, 10), Fraction(4, 10)]
    payoffs = [lambda s: s, lambda s: s * s, lambda s: s**4,
               lambda s: sum(wt for wt, t in zip(weights, thresholds) if s >= t)]
    M, m = R.shape[0], len(thresholds)
    mean, cov = np.zeros(m), np.zeros((m, m))
    pay_mean, pay_var = np.zeros(len(payoffs)), np.zeros(len(payoffs))
    for i in range(M):
        alpha = [Fraction(int(prior[i, c] + np.sum(R[i] == c))) for c in range(3)]
        mu, cv, pm, pv = _brute_posterior(alpha, w, k, thresholds, payoffs)
        mean += np.array([float(x) for x in mu]) / M
        cov += np.array([[float(x) for x in row] for row in cv]) / M**2
        pay_mean += np.array([float(x) for x in pm]) / M
        pay_var += np.array([float(x) for x in pv]) / M**2
    profile = B.tailpass(R, k, [0.0, 0.5, 1.0], prior=prior, thresholds=[float(t) for t in thresholds])
    close(profile.mean, mean, "brute mean", 1e-13)
    close(profile.covariance, cov, "brute covariance", 1e-13)
    for (mu, sd), pm, pv, what in zip(
        (profile.moment(1), profile.moment(2), profile.moment(4), profile.linear([float(x) for x in weights])),
        pay_mean, pay_var, ("moment(1)", "moment(2)", "moment(4)", "linear"),
    ):
        close((mu, sd), (pm, math.sqrt(pv)), f"brute {what}", 1e-13)


def test_brute_force_binary_posterior_k_above_n():
    R = np.array([[1, 0], [1, 1]])
    k = 4
    profile = B.tailpass(R, k, prior=[0.5, 2.0])
    w = [Fraction(0), Fraction(1)]
    thresholds = [Fraction(j, k) for j in range(1, k + 1)]
    mean, cov = np.zeros(k), np.zeros((k, k))
    for row in R:
        alpha = [Fraction(1, 2) + int(np.sum(row == 0)), Fraction(2) + int(np.sum(row == 1))]
        mu, cv, _, _ = _brute_posterior(alpha, w, k, thresholds, [])
        mean += np.array([float(x) for x in mu]) / 2
        cov += np.array([[float(x) for x in r] for r in cv]) / 4
    close(profile.mean, mean, "brute binary mean", 1e-13)
    close(profile.covariance, cov, "brute binary covariance", 1e-13)


def test_brute_force_finite_bank_including_ragged_rows():
    """Every k-subset of each question's trials; ragged rows (a bayeseval Counts) need k <= n_i."""
    rows = [[0, 1, 2, 2, 1], [2, 0, 2], [1, 1, 0, 2]]
    w = [0.0, 0.4, 1.0]
    counts = B.to_counts(rows, w, ragged=True)
    k, thresholds = 3, [0.1, 0.4, 0.6, 0.8, 1.0]
    brute = np.zeros(len(thresholds))
    for row in rows:
        subsets = list(itertools.combinations(row, k))
        for j, t in enumerate(thresholds):
            brute[j] += np.mean([np.sum([w[c] for c in s]) / k >= t - 1e-12 for s in subsets]) / len(rows)
    close(B.tailpass_empirical(counts, k, w, thresholds=thresholds), brute, "brute finite bank", 1e-14)
    with pytest.raises(ValueError, match="k"):
        B.tailpass_empirical(counts, 4, w)


def test_integer_moments_need_no_enumeration():
    """moment(2 | 3 | 4) for budgets whose bank grid is far beyond the exact-profile limit."""
    R = np.array([[0, 1, 2, 3, 3], [3, 3, 1, 2, 0]])
    w = [0.0, 0.2, 0.6, 1.0]
    big = B.tailpass(R, 5000, w, thresholds=[0.5])
    with pytest.raises(ValueError, match="count states"):
        big.mean
    close(big.moment(2), S.tailpass(R, 5000, w, thresholds=[0.5]).moment(2), "moment(2), k = 5000")
    small = B.tailpass(R, 6, w)  # k = 6: compare the closed form with the exact grid sum
    for lam in (2, 3, 4):
        close(small.moment(lam), small._payoff_moments(small._grid.score ** lam), f"moment({lam}) closed form")
    binary = B.tailpass(np.array([[0, 1, 1]]), 10**6, thresholds=[0.5])
    close(binary.moment(2), S.tailpass(np.array([[0, 1, 1]]), 10**6, thresholds=[0.5]).moment(2), "binary k=1e6")


# ----------------------------------------------------------------------------- errors
ERRORS = [
    ("k", lambda L: L.tailpass(R2, 0)),
    ("k", lambda L: L.tailpass(R2, -3)),
    ("k", lambda L: L.tailpass(R2, 2.5)),
    ("k", lambda L: L.tailpass_empirical(R2, 0)),
    ("k", lambda L: L.tailpass_empirical(R2, 4)),
    ("thresholds", lambda L: L.tailpass(R2, 2, thresholds=[])),
    ("thresholds", lambda L: L.tailpass(R2, 2, thresholds=[0.5, 0.2])),
    ("thresholds", lambda L: L.tailpass(R2, 2, thresholds=[0.5, 0.5])),
    ("thresholds", lambda L: L.tailpass(R2, 2, thresholds=[0.5, 1.2])),
    ("thresholds", lambda L: L.tailpass(R2, 2, thresholds=[-0.1, 0.5])),
    ("thresholds", lambda L: L.tailpass(R2, 2, thresholds=[[0.5]])),
    ("thresholds", lambda L: L.tailpass(R2, 2, thresholds=[np.nan])),
    ("thresholds", lambda L: L.tailpass_empirical(R2, 2, thresholds=[0.9, 0.1])),
    ("thresholds", lambda L: L.tailpass(R2, 30_000)),
    ("w", lambda L: L.tailpass(R3, 2, w=[0.0, 0.5, 1.5])),
    ("w", lambda L: L.tailpass(R3, 2, w=[-0.1, 0.5, 1.0])),
    ("w", lambda L: L.tailpass_empirical(R3, 2, w=[0.0, 1.0, 2.0])),
    ("w", lambda L: L.tailpass(R3, 2)),  # categorical outcomes need rubric scores
    ("prior", lambda L: L.tailpass(R2, 2, prior=0.0)),
    ("prior", lambda L: L.tailpass(R2, 2, prior=-1.0)),
    ("prior", lambda L: L.tailpass(R2, 2, prior=[1.0, 0.0])),
    ("prior", lambda L: L.tailpass(R2, 2, prior=np.ones((2, 2)) * -1)),
    ("prior", lambda L: L.tailpass(R2, 2, prior=[1.0, 1.0, 1.0])),
    ("prior", lambda L: L.tailpass(R2, 2, prior=np.inf)),
    ("eta", lambda L: L.tailpass(R2, 2, R0=R2, eta=1.5)),
    ("eta", lambda L: L.tailpass(R2, 2, R0=R2, eta=-0.1)),
    ("R0", lambda L: L.tailpass(R2, 2, R0=np.array([[0, 1]]))),
    ("weights", lambda L: L.tailpass(R2, 2).linear([1.0])),
    ("weights", lambda L: L.tailpass(R2, 2).linear([0.5, 0.4])),
    ("weights", lambda L: L.tailpass(R2, 2).linear([1.5, -0.5])),
    ("lam", lambda L: L.tailpass(R2, 2).moment(0)),
    ("lam", lambda L: L.tailpass(R2, 2).moment(np.inf)),
    ("n_draws", lambda L: L.tailpass(R2, 2).sample(1)),
    ("confidence", lambda L: L.tailpass(R2, 2).ci(1.0)),
    ("method", lambda L: L.tailpass(R2, 2).ci(method="bootstrap")),
    ("confidence", lambda L: L.tailpass(R2, 2).moment_ci(1, 0.0)),
    ("count states", lambda L: L.tailpass(R3, 300, w=[0, 0.5, 1], thresholds=[0.5]).mean),
    ("covariance", lambda L: L.tailpass(R2, 2500, thresholds=[0.5]).covariance),
    ("m", lambda L: L.tailpass(R2, 2).sample(5, rng=0).rollout(1)),
    ("aggregation", lambda L: L.tailpass(R2, 2).sample(5, rng=0).qrs(aggregation="dataset")),
    ("target", lambda L: L.tailpass(R2, 2).sample(5, rng=0).shortfall([0.2, 0.5])),
    ("weights", lambda L: L.tailpass(R2, 2).sample(5, rng=0).shortfall([0.5, 0.2], [1.0, 0.0])),
    ("epsilon", lambda L: L.tailpass(R2, 2).sample(5, rng=0).shortfall([0.5, 0.2], epsilon=0.0)),
    ("alpha", lambda L: L.tailpass(R2, 2).sample(5, rng=0).harmonic(2.0)),
    ("q", lambda L: L.tailpass(R2, 2).sample(5, rng=0).power_mean(0.0)),
    ("values", lambda L: L.tailpass(R2, 2).sample(5, rng=0).summary(np.ones(4))),
]


@pytest.mark.parametrize("argument, call", ERRORS, ids=[f"{i}-{a}" for i, (a, _) in enumerate(ERRORS)])
def test_bad_arguments_raise_value_error_naming_them(argument, call):
    with pytest.raises(ValueError):
        call(S)
    with pytest.raises(ValueError, match=rf"\b{argument}\b"):
        call(B)


def test_outputs_are_read_only_and_typed():
    profile = B.tailpass(R2, 3)
    for array in (profile.mean, profile.std, profile.covariance, profile.question_mean, profile.thresholds):
        assert isinstance(array, np.ndarray) and not array.flags.writeable
    assert repr(profile) == repr(S.tailpass(R2, 3))
    mean, sd, lo, hi = profile.ci(method="normal")
    assert np.all((0 <= lo) & (lo <= mean) & (mean <= hi) & (hi <= 1))
    assert all(isinstance(x, float) for x in profile.linear_ci([0, 0, 1], method="normal"))


def test_zz_differences_recorded():
    """Runs last: how many numbers were compared and the largest difference seen (``pytest -s`` prints it)."""
    if not _seen["values"]:
        pytest.skip("run with the differential tests")
    print(f"\nTailPass: {_seen['values']:,} numbers compared, max |difference| = {_seen['max']:.3g}")
    assert _seen["max"] <= TOL
