r"""The default population model for 0/1 outcomes (``prior="robust"``): no shape assumed for the pool.

Real question pools are clustered and U-shaped (HumanEval: 75 of 164 tasks never solved, 60 always); a
single Beta population misfits them, and its shrinkage moves the estimate away from the data (the previous
default covered maj@k 0% of the time on a two-cluster pool).  This model lets the data speak where they can
and uses a pool model only for what they cannot say:

* **Centre** -- where every question has at least ``k`` trials, both scopes are centred at the unbiased
  estimate ``ghat = (1/M) sum_i ghat_i`` (``E[ghat_i | p_i] = g(p_i)``): no shrinkage, so no bias from a
  misfitting pool (the population scope's posterior mean is ``(M ghat + E[g(q)]) / (M + 1)``, its one uniform
  pseudo-question included: within ``1 / (M + 1)`` of it).
* **Benchmark scope** (these M questions): ``theta_B = ghat - e``, ``e = (1/M) sum_i e_i`` the estimator's
  error, ``e_i = ghat_i - g(p_i)``. Its law per question is the posterior predictive: ``p* ~ p_i | s_i``, ``s*
  ~ Bin(n_i, p*)``, ``e_i = ghat(s*) - g(p*)``; the interval uses its variance, not its skew (see *Shape*
  below). Its variance ``E[Var(ghat_i | p) | s_i]`` is closed form: ``E[ghat^2 | p]`` is the Bernstein
  polynomial of degree ``n_i`` with coefficients ``ghat(t)^2``. Where questions have ``n_i >= 2k`` trials, the
  variance is raised to the pool-free unbiased estimate ``sum_i [ghat_i^2 - (g^2)^_i]`` when that is larger;
  with ``2 <= n_i < 2k``, to the pool-free upper bound ``sum_i [ghat_i^2 - L^_i]``, ``L <= g^2`` a polynomial
  of degree ``n_i`` (:func:`square_minorant`; :meth:`RobustPosterior._unbiased_error`). ``p_i | s_i`` is the
  posterior under the fitted pool (:class:`bayeseval.priors.BetaMixture`, a fine-grid mixture of Betas with
  weighted-likelihood-bootstrap refits), or, where that gives the question a larger error variance, the same
  mixture with each near point mass (``kappa >= 100``) replaced by the posterior of its location, ``Beta(1 +
  S_j, 1 + F_j)`` from the pooled successes and failures of its members: a grid point does not know how well
  the data place a cluster (12 never-solved questions x 4 trials say only that the cluster sits below about
  0.06). On CRUXEval-I (800 questions x 10) the benchmark sd of pass@5 is 0.0039 against 0.0034 from the
  unbiased variance estimate (``n >= 2k`` there; ``tests/test_robust.py``); coverage per pool in
  ``benchmarks/results_coverage_robust.md``.
* **Shape** (benchmark scope, every question with at least 2 trials): draws are normal, ``N(ghat, sd^2)``
  with ``sd^2 = (1/M^2) sum_i E[Var(ghat_i | p) | s_i]`` (clipped to the metric's range; geospectrum's two
  components drawn jointly and combined), not the predicted
  error law itself.  That law's skewness follows the realised counts: when a high-p question's count comes
  out low, the law predicted from it is short on exactly the side where the truth lies.  On pass^16 from
  64 trials (Beta(2,5) pool, M = 100) the skewed law covered 81% and the symmetric interval with the same
  variance 92-97% (two runs of 150 replicates); over the whole grid (7 pools x M x N >= 4) the skewed law
  had 9 cells significantly below the floor, the symmetric interval 2 (on the same replicates) and 2 on a
  fresh run (``benchmarks/results_coverage_robust.md``).
* **One trial per question** (benchmark scope): ``Var(e_i | p_i) = p_i (1 - p_i)`` cannot be learnt from one
  trial, so those questions take the bounding case of equally hard questions: the group's benchmark truth is
  ``M_1 pbar`` with ``pbar`` from :func:`one_trial_law` (:meth:`RobustPosterior._one_trial`).
* **Population scope** (questions sampled from a pool): the Dirichlet-process posterior over questions
  (:mod:`bayeseval.posterior.bootstrap`) of the per-question scores ``ghat_i``, with one uniform prior
  pseudo-question; the pool's mean of ``ghat`` is the estimand.  Studentized for a spread estimated from M
  questions (:func:`bayeseval.posterior.bootstrap.studentize`: Student-t tails with M - 1 degrees of freedom,
  1.17 times as wide at M = 15, 1.02 times at M = 100).  Asymptotically the question-clustered interval of
  Miller (2024, arXiv:2411.00640).
* **k > n** for some question: no unbiased score exists.  Each question's ``g(p_i)`` is uncertain; its
  posterior (fitted mixture, or located clusters where wider) gives the benchmark scope directly, and the
  population scope is the Dirichlet-process posterior over questions of those posteriors (rows: posterior
  means; plus ``2 sum_i v_i / (T (T + 1))`` for their variances and the refits' common shift of the pool).
  The result says that the number rests on the population model (:attr:`RobustPosterior.extrapolated`).

References: Koenker & Mizera (2014), JASA 109(506) (the grid mixture); Newton & Raftery (1994), JRSS-B
56(1) (weighted likelihood bootstrap); Ferguson (1973), Ann. Stat. 1(2); Rubin (1981), Ann. Stat. 9(1).

>>> import numpy as np
>>> from bayeseval.posterior import build
>>> R = np.array([[0, 0, 0, 0]] * 6 + [[1, 1, 1, 1]] * 8 + [[1, 0, 1, 1]] * 2)
>>> post = build(R, "pass@2")
>>> type(post).__name__, post.value(), post.moments("benchmark")[0], round(post.moments("population")[0], 4)
('RobustPosterior', 0.625, 0.625, 0.6275)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import linprog
from scipy.stats import binom

from ..counts import Counts
from ..metrics.engine import batch_points, bernstein_eval, means_rows, moments_rows, product_coefficients, score_table
from ..priors import BetaMixture, PriorSpec
from ..targets import MetricSpec
from .base import EXACT_GROUP, _mvnormal
from .binary import _BinaryPosterior
from .bootstrap import DP_CONCENTRATION, dp_draws_studentized, dp_moments, studentized_factor, widest_sd

__all__ = ["RobustPosterior"]

CHECK_LL_TOL = 1e-5  # EM stop (nats per question) of the point fit that only feeds the model check
FEW_CARRYING = 5.0  # fewer questions than this carrying the population-scope estimate: a warning (carrying_questions)
#: the words of that warning, which tables look for to say why a row widened
FEW_CARRYING_WORDS = "rests on about"
MINORANT_DEGREES = 8  # at most this many linear programs (square_minorant) per payoff column: ragged trial counts
MINORANT_BOX = 2.0  # square_minorant's coefficients within +-this times the largest g^2
MINORANT_NOISE = 4.0  # a minorant whose per-question term has a pool-predictive sd above this many times its mean
# is not used (maj@15 from 20 trials: about 13; pass^3 or pass@3 from 4 trials: about 2)
MINORANT_MAX_DEGREE = 100  # no minorant above this many trials: its linear program took minutes (pass@2000 from
# 2000 trials: 400 s) for a sum that MINORANT_NOISE discards at high degrees anyway; those questions keep the model's
SHARP = 100.0  # components at least this concentrated (kappa = a + b) are clusters whose location is learnt


class RobustPosterior(_BinaryPosterior):
    """Centred at the unbiased estimate; benchmark scope: the estimator's error under per-question
    posteriors; population scope: a Dirichlet-process posterior over questions of the unbiased scores;
    k > n: the fitted mixture pool (``extrapolated``).  See the module docstring."""

    _POOL = ("mix", "resp", "mean_gu", "var_gu", "cov_gu", "w")
    centred = True

    def __init__(self, counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None):
        super().__init__(counts, spec, prior)
        self._cdf = None
        self.extrapolated = int(counts.n.min()) < spec.k if spec.kind != "mean" else False

    def __getattr__(self, name: str):
        """The fitted pool and the per-question posteriors under it, computed on first use: the population
        scope with k <= n needs neither (its model check uses the point fit alone)."""
        if name in RobustPosterior._POOL:
            self._fit_pool()
            return self.__dict__[name]
        raise AttributeError(name)

    def _fit_pool(self) -> None:
        cache = self.counts.cache()
        if "robust" not in cache:  # one fit serves every metric of this outcome set
            cache["robust"] = BetaMixture.fit(self.counts)
        mix = cache["robust"]
        resp = mix.responsibilities(self.n_u, self.s_u)  # (G, U, J)
        mean_gu, var_gu, cov_gu = self._mixture_moments(mix.a, mix.b, resp)
        self.__dict__.update(mix=mix, resp=resp, mean_gu=mean_gu, var_gu=var_gu, cov_gu=cov_gu,
                             w=np.full(mix.fits, 1.0 / mix.fits))

    def _mixture_moments(self, a: np.ndarray, b: np.ndarray, resp: np.ndarray):
        """Per refit and state, mean, variance (and covariance of two payoff columns) of ``g(p)`` for
        ``p ~ sum_j resp[g, u, j] Beta(a_j + s_u, b_j + n_u - s_u)``."""
        U, J, m = self.n_u.size, a.size, self.C.shape[1]
        mean, var, covs = moments_rows(np.repeat(self.n_u, J), np.repeat(self.s_u, J), np.tile(a, U), np.tile(b, U),
                                       self.C, self._pairs)
        mean, var = mean.reshape(U, J, m), var.reshape(U, J, m)
        mean_gu = np.einsum("guj,ujk->guk", resp, mean)
        var_gu = np.maximum(np.einsum("guj,ujk->guk", resp, var + mean**2) - mean_gu**2, 0.0)
        if covs:
            cross = covs[0].reshape(U, J) + mean[..., 0] * mean[..., 1]
            cov_gu = np.einsum("guj,uj->gu", resp, cross) - mean_gu[..., 0] * mean_gu[..., 1]
        else:
            cov_gu = None
        return mean_gu, var_gu, cov_gu

    def _located(self) -> tuple[np.ndarray, np.ndarray]:
        """Each component with its location learnt from its members: ``Beta(1 + S_j, 1 + F_j)``, ``S_j`` and
        ``F_j`` the successes and failures of all questions weighted by their (refit-averaged) responsibility
        for component ``j``.  A sharp component near 0 or 1 then carries the uncertainty of where that
        cluster sits (0 successes in 48 pooled trials: anywhere up to about 0.06), which the fitted
        component, a point on the grid, does not; with thousands of pooled trials it is as sharp."""
        if getattr(self, "_loc", None) is None:  # computed once: the draws ask for it per count state
            r = self.resp.mean(axis=0) * self.freq[:, None]  # (U, J)
            S = r.T @ self.s_u.astype(np.float64)
            F = r.T @ (self.n_u - self.s_u).astype(np.float64)
            a, b = self.mix.a, self.mix.b
            sharp = a + b >= SHARP  # near point masses: one location shared by the members; wide ones keep theirs
            self._loc = np.where(sharp, 1.0 + S, a), np.where(sharp, 1.0 + F, b)
        return self._loc

    def _extrap(self):
        """k > n: per refit and state, the posterior moments of ``g(p)`` under the fitted mixture, or under the
        mixture with located clusters (:meth:`_located`) where that gives the larger variance (one question
        with one trial cannot place a cluster): ``(mean (G, U, m), var (G, U, m), cov (G, U) | None, flag (U,))``."""
        if getattr(self, "_ext", None) is None:
            ab = self._located()
            mL, vL, cL = self._mixture_moments(*ab, self.resp)
            flag = vL[..., 0].mean(axis=0) > self.var_gu[..., 0].mean(axis=0)
            pick = flag[None, :, None]
            cov = None if self.cov_gu is None else np.where(flag[None, :], cL, self.cov_gu)
            self._ext = (np.where(pick, mL, self.mean_gu), np.where(pick, vL, self.var_gu), cov, flag)
        return self._ext

    def _extrap_population(self):
        """k > n, population scope: the Dirichlet-process posterior over questions (one uniform pseudo-question)
        of each question's ``g(p_i)``, which is now uncertain: its posterior mean ``mu_i`` (averaged over refits)
        enters as the row, its posterior variance ``v_i`` adds ``2 sum_i v_i / (T (T + 1))`` (``E[W_i^2]``),
        and the refits' common shift of the pool adds ``Var_g(sum_i mu_gi / T)``.  Returns ``(mean, cov,
        rows, extra_cov)``."""
        mean_x, var_x, cov_x, _ = self._extrap()
        w, f = self.w, self.freq
        mu = np.einsum("g,guk->uk", w, mean_x)
        within = np.einsum("g,guk->uk", w, var_x)
        m = mu.shape[1]
        T = float(f.sum()) + DP_CONCENTRATION
        extra = np.zeros((m, m))
        extra[np.diag_indices(m)] = 2.0 * (f @ within) / (T * (T + 1.0))
        if m == 2 and cov_x is not None:
            extra[0, 1] = extra[1, 0] = 2.0 * (f @ (w @ cov_x)) / (T * (T + 1.0))
        shift = np.einsum("u,guk->gk", f, mean_x) / T  # (G, m)
        dev = shift - w @ shift
        extra += (dev * w[:, None]).T @ dev
        pm, second = self._pseudo()
        mean, cov = dp_moments(mu, f, pm, second, DP_CONCENTRATION)
        return mean, cov + extra, mu, extra

    # ------------------------------------------------------------------ population scope, model-free
    def _scores(self) -> np.ndarray:
        """Per count state, the unbiased per-question score of every payoff column ``(U, m)``."""
        if self.spec.kind == "mean":
            return (self.s_u / self.n_u)[:, None]
        return batch_points(self.counts, self.C)

    def _score_table(self, n: int) -> np.ndarray:
        """``(n + 1, m)``: the unbiased score of every payoff column for ``s = 0..n`` successes of ``n``."""
        if self.spec.kind == "mean":
            return (np.arange(n + 1) / n)[:, None]
        return score_table(self.C, n)

    def _error_moments(self):
        """Per count state, the expected sampling covariance of the unbiased scores, ``E[Cov(ghat_a, ghat_b
        | p) | s]`` (``(U, m, m)``), and per state whether the located clusters gave it (see the module
        docstring).

        ``E[ghat_a ghat_b | p]`` is the Bernstein polynomial of degree ``n`` whose coefficients are
        ``ghat_a(t) ghat_b(t)``, ``t = 0..n``; its posterior mean, minus ``E[g_a g_b | s]``, is closed form."""
        if getattr(self, "_err", None) is None:
            mix = self.mix
            pooled = self._expected_error(mix.a, mix.b, self.resp, self.mean_gu, self.var_gu, self.cov_gu)
            a, b = self._located()
            located = self._expected_error(a, b, self.resp, *self._mixture_moments(a, b, self.resp))
            use = located[:, 0, 0] > pooled[:, 0, 0]
            err = np.where(use[:, None, None], located, pooled)
            one = self.n_u == 1
            if one.any():  # one trial: the group's common p (see _one_trial); its M_1 questions share the variance
                # of M_1 pbar, M_1^2 Var(pbar), as the draws do
                c, S, F = self._one_trial()
                err[one] = np.outer(c, c) * ((S + F) * one_trial_law(S, F)[1])
            self._err = err, use
        return self._err

    def _one_trial(self) -> tuple[np.ndarray, float, float]:
        r"""Questions with one trial (``k = 1``, so ``g(p) = C_0 + c p`` is linear, ``c = C_1 - C_0``): the
        error ``e_i = c (x_i - p_i)`` has ``Var(e_i | p_i) = c^2 p_i (1 - p_i)``, which one trial cannot
        learn (every pool with the same mean predicts the same data).  The benchmark scope takes the case of
        equally hard questions, which bounds the error (``sum_i p_i (1 - p_i) <= M_1 pbar (1 - pbar)``,
        concavity): the group's successes are then binomial, and its benchmark truth ``M_1 pbar`` has the law
        of :func:`one_trial_law` (half ``Beta(S, F + 1)``, half ``Beta(S + 1, F)``: the two laws whose quantiles
        are Clopper-Pearson's ends).  Returns ``(c, S_1, F_1)``."""
        one = self.n_u == 1
        S = float(self.freq[one] @ self.s_u[one])
        F = float(self.freq[one].sum()) - S
        return self._score_table(1)[1] - self._score_table(1)[0], S, F

    def _expected_error(self, a, b, resp, mean_gu, var_gu, cov_gu) -> np.ndarray:
        """:meth:`_error_moments` under per-question posteriors ``sum_j resp[g, u, j] Beta(a_j + s, b_j + n - s)``
        (averaged over the refits ``g``)."""
        m, J = self.C.shape[1], a.size
        err = np.zeros((self.n_u.size, m, m))
        pairs = [(x, y) for x in range(m) for y in range(x, m)]
        for n in np.unique(self.n_u).tolist():
            rows = np.flatnonzero(self.n_u == n)
            T = self._score_table(n)
            D = np.stack([T[:, x] * T[:, y] for x, y in pairs], axis=1)
            e2 = means_rows(np.full(rows.size * J, n), np.repeat(self.s_u[rows], J), np.tile(a, rows.size),
                            np.tile(b, rows.size), D)
            e2 = e2.reshape(rows.size, J, len(pairs))
            r = resp[:, rows]  # (G, rows, J)
            for c, (x, y) in enumerate(pairs):
                fresh = np.einsum("grj,rj->r", r, e2[..., c]) / r.shape[0]
                if x == y:
                    est = (var_gu[:, rows, x] + mean_gu[:, rows, x] ** 2).mean(axis=0)
                else:
                    est = (cov_gu[:, rows] + mean_gu[:, rows, 0] * mean_gu[:, rows, 1]).mean(axis=0)
                err[rows, x, y] = err[rows, y, x] = fresh - est
        for x in range(m):
            err[:, x, x] = np.maximum(err[:, x, x], 0.0)
        return err

    def _benchmark_error(self) -> tuple[np.ndarray, np.ndarray]:
        """Benchmark scope, ``k <= n``: the unbiased estimate of every payoff column ``(m,)`` and the covariance
        of its sampling error ``(m, m)``: ``(1/M^2) sum_i E[Cov(ghat_i) | s_i]`` under the fitted pool, each
        variance raised to the pool-free estimate of :meth:`_unbiased_error` where that is larger (the
        correlation kept)."""
        mean = self.freq @ self._scores() / self.M
        model = np.einsum("u,uab->ab", self.freq, self._error_moments()[0])
        v0 = np.diag(model)
        v1 = v0 + self._pool_free_excess(model)
        corr = np.divide(model, np.sqrt(np.outer(v0, v0)), out=np.zeros_like(model), where=np.outer(v0, v0) > 0)
        np.fill_diagonal(corr, 1.0)
        return mean, corr * np.sqrt(np.outer(v1, v1)) / self.M**2

    def _pool_free_excess(self, model: np.ndarray) -> np.ndarray:
        """``(m,)``: how much the pool-free estimate (:meth:`_unbiased_error`) exceeds the model's summed error
        variance ``model`` (``(m, m)``) per payoff column, 0 where it does not or cannot be formed."""
        free = self._unbiased_error()
        return np.zeros(model.shape[0]) if free is None else np.maximum(np.diag(free) - np.diag(model), 0.0)

    def _unbiased_error(self) -> np.ndarray | None:
        r"""The error covariance summed over questions, ``sum_i Cov(ghat_i | p_i)``, estimated without a pool
        model where it can be: ``Cov(ghat_a, ghat_b | p) = E[ghat_a ghat_b | p] - g_a(p) g_b(p)``, and the
        product ``g_a g_b`` (degree ``2k``) has an unbiased score from ``n >= 2k`` trials, so ``ghat_a(s)
        ghat_b(s) - [g_a g_b]^(s)`` is unbiased for it whatever the pool.

        With ``2 <= n < 2k`` trials ``g^2`` has no unbiased score (n trials identify only the pool's first n
        moments), but every polynomial ``L <= g^2`` of degree at most ``n`` has one, so ``ghat(s)^2 - L^(s)``
        is unbiased for ``Var(ghat | p) + (g^2 - L)(p)``: for a fixed ``L``, an upper bound whatever the pool.
        :func:`square_minorant` picks the ``L`` closest to ``g^2`` where the fitted pool puts its questions
        (pass^3 from 4 trials: within 0.003 of ``g^2`` at p = 0.9, where ``Var(ghat | p) = 0.14``); that
        choice sees the counts only through the fitted pool, which moved the sum by less than its noise with
        15-30 questions (with one question it can fall below the variance).  At high degrees the minorant's
        coefficients oscillate and the sum is mostly noise: a minorant whose per-question term has a
        pool-predictive sd above ``MINORANT_NOISE`` (4) times its mean is not used (maj@15 from 20 trials: about
        13), and above ``MINORANT_MAX_DEGREE`` (100) trials none is formed.  The bound of the questions
        with ``n`` trials is capped at their number times the largest
        ``Var(ghat | p)`` over p.  That is the diagonal; off-diagonal terms there, questions where the minorant
        is not used, and questions with one trial (:meth:`_one_trial`) keep the model's.  None where every
        question has one trial.

        The fitted pool can split a cluster (questions at p = 0.05 seen as some at 0 and some at 0.1), which
        lowers the error variance it predicts; the pool-free sum cannot be misled that way, but is noisy and
        can be negative, so the benchmark scope takes the larger of the two (:meth:`_benchmark_error`).  On
        the two-cluster pool (M = 30, 16 trials, pass@8) the 95% interval covered 90.2% with the model's
        variance alone and 93.8% with the larger of the two (1,000 replicates each;
        ``benchmarks/results_coverage_confirm.md``)."""
        if getattr(self, "_free", False) is not False:
            return self._free
        self._free = self._pool_free()
        return self._free

    def _pool_free(self) -> np.ndarray | None:
        """:meth:`_unbiased_error`, computed."""
        k = self.C.shape[0] - 1
        if int(self.n_u.max()) < 2:
            return None
        ok = self.n_u >= 2 * k
        short = (self.n_u >= 2) & ~ok
        m = self.C.shape[1]
        free = np.einsum("u,uab->ab", self.freq[~ok], self._error_moments()[0][~ok])  # the model's, n < 2k
        x = self._scores()
        for n in np.unique(self.n_u[ok]).tolist():
            rows = np.flatnonzero(self.n_u == n)
            s = self.s_u[rows]
            for a in range(m):
                for b in range(a, m):
                    gg = score_table(product_coefficients(self.C[:, a], self.C[:, b])[:, None], n)[s, 0]
                    free[a, b] = free[b, a] = free[a, b] + self.freq[rows] @ (x[rows, a] * x[rows, b] - gg)
        short &= self.n_u <= MINORANT_MAX_DEGREE  # above it: the model's term (see MINORANT_MAX_DEGREE)
        if short.any():  # the upper bound through a minorant of g^2, one degree per group of trial counts
            ns = np.unique(self.n_u[short])
            degrees = ns if ns.size <= MINORANT_DEGREES else \
                np.unique(ns[np.linspace(0, ns.size - 1, MINORANT_DEGREES).round().astype(np.int64)])
            model = self._error_moments()[0]
            cache = self.counts.cache()
            for a in range(m):
                col = np.ascontiguousarray(self.C[:, a])
                for n in ns.tolist():
                    d = int(degrees[degrees <= n].max())
                    key = ("minorant", col.tobytes(), d)
                    if key not in cache:  # one linear program per payoff column and degree, shared by every call
                        cache[key] = square_minorant(col, d, self.mix.predictive(d))
                    L = cache[key]
                    if L is None:  # the linear program failed: the model's term stays
                        continue
                    term = self._score_table(n)[:, a] ** 2 - score_table(L[:, None], n)[:, 0]  # s = 0..n
                    P = self.mix.predictive(n)
                    mean_t = float(P @ term)
                    if not mean_t > 0 or math.sqrt(max(float(P @ (term - mean_t) ** 2), 0.0)) > MINORANT_NOISE * mean_t:
                        continue  # too noisy to help (high degrees: the minorant's coefficients oscillate)
                    rows = np.flatnonzero(self.n_u == n)
                    grid = np.linspace(0.0, 1.0, 1001)  # no sum exceeds its questions' largest variances
                    most = float(np.max(bernstein_eval(self._score_table(n)[:, a] ** 2, grid)
                                        - bernstein_eval(self.C[:, a], grid) ** 2))
                    bound = min(float(self.freq[rows] @ term[self.s_u[rows]]), float(self.freq[rows].sum()) * most)
                    free[a, a] += bound - float(self.freq[rows] @ model[rows, a, a])
        return free

    def _pseudo(self):
        """The uniform pseudo-question: ``E[Y]``, ``E[Y Y^T]`` of ``Y = g(q)``, ``q ~ U(0, 1)``."""
        pm, pv, pc = moments_rows(np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1), np.ones(1), self.C,
                                  self._pairs)
        mu = pm[0]
        second = np.outer(mu, mu)
        second[np.diag_indices(mu.size)] += pv[0]
        if pc:
            second[0, 1] = second[1, 0] = second[0, 1] + pc[0][0]
        return mu, second

    # ------------------------------------------------------------------ the interface
    def _moments(self, scope: str) -> tuple[float, float]:
        M, f = self.M, self.freq
        if scope == "population":  # the Dirichlet-process posterior, studentized (bootstrap.studentize)
            if self.extrapolated:
                mean, cov, _, extra = self._extrap_population()
                cov = cov - extra
            else:
                mu, second = self._pseudo()
                mean, cov = dp_moments(self._scores(), f, mu, second, DP_CONCENTRATION)
                extra = 0.0
            factor = studentized_factor(M)
            if factor is None:  # three questions or fewer: a t posterior with no variance; the range bounds it
                return widest_sd(float(self._combine(mean[None, :])[0]), self.range)
            cov = factor * cov + extra
            m_, v_ = self._delta(mean[None, :], np.diag(cov)[None, :],
                                 np.array([cov[0, 1]]) if cov.shape[0] == 2 else None)
            return float(m_[0]), float(math.sqrt(max(v_[0], 0.0)))
        if not self.extrapolated:  # centred at the unbiased estimate; spread: its sampling error
            mean, cov = self._benchmark_error()
            m_, v_ = self._delta(mean[None, :], np.diag(cov)[None, :],
                                 np.array([cov[0, 1]]) if cov.shape[0] == 2 else None)
            return float(m_[0]), float(math.sqrt(max(v_[0], 0.0)))
        w = self.w
        mean_x, var_x, cov_x, _ = self._extrap()
        mg = np.einsum("u,guk->gk", f, mean_x) / M
        vg = np.einsum("u,guk->gk", f, var_x) / M**2
        cg = (cov_x @ f) / M**2 if cov_x is not None else None
        per_g_mean, per_g_var = self._delta(mg, vg, cg)
        mean = float(w @ per_g_mean)
        return mean, float(math.sqrt(max(w @ (per_g_var + per_g_mean**2) - mean**2, 0.0)))

    def draws(self, scope: str, n: int, rng: np.random.Generator) -> np.ndarray:
        if scope == "population":  # the DP posterior of the unbiased scores (k > n: of posterior means, plus the
            # normal limit of what they omit), studentized
            q = rng.random(n)
            y = np.stack([bernstein_eval(self.C[:, j], q) for j in range(self.C.shape[1])], axis=-1)
            _, _, rows, extra = self._extrap_population() if self.extrapolated else (None, None, self._scores(), None)
            x = dp_draws_studentized(rows, self.freq, y, *self._pseudo(), rng)
            if extra is not None:
                x += _mvnormal(rng, n, extra)
            return self._combine(np.clip(x, self.C.min(axis=0), self.C.max(axis=0)))
        if not self.extrapolated and int(self.n_u.min()) >= 2:  # symmetric about the unbiased estimate: see the
            # module docstring ("Shape"); payoff columns drawn jointly, each kept in its range, then combined
            # (geospectrum: no delta method, whose sd is 0 where one component's estimate is 0)
            mean, cov = self._benchmark_error()
            x = np.clip(mean[None, :] + _mvnormal(rng, n, cov), self.C.min(axis=0), self.C.max(axis=0))
            lo, hi = self.range
            return np.clip(self._combine(x), lo, hi)
        g, _, _ = self.mix.sample(rng, n)
        if not self.extrapolated:  # one trial for some question: the conservative bound, drawn exactly
            return self._error_draws(rng, g)
        M, m = self.M, self.C.shape[1]
        mean_x, var_x, cov_x, flag = self._extrap()
        total = np.zeros((n, m))
        for cols in self._small_states(n):  # every question of the small states in batches, not one state a call
            p = self._draw_p(rng, g, cols, flag[cols])
            total += np.stack([bernstein_eval(self.C[:, j], p).sum(axis=1) for j in range(m)], axis=-1)
        for u, f in enumerate(self.freq.astype(np.int64).tolist()):
            if f > EXACT_GROUP:
                mu, v = mean_x[g, u], var_x[g, u]
                z = rng.standard_normal((n, m))
                if m == 2:
                    rho = np.divide(cov_x[g, u], np.sqrt(v[:, 0] * v[:, 1]),
                                    out=np.zeros(n), where=v[:, 0] * v[:, 1] > 0)
                    z[:, 1] = rho * z[:, 0] + np.sqrt(np.maximum(1 - rho**2, 0.0)) * z[:, 1]
                total += f * mu + np.sqrt(f * v) * z
        return self._combine(total / M)

    def _error_draws(self, rng: np.random.Generator, g: np.ndarray) -> np.ndarray:
        """Benchmark scope, ``k <= n``: ``theta_B = ghat - e`` with ``e`` the estimator's error, drawn per
        question from the posterior predictive: ``p* ~ p | s`` (refit ``g`` of each draw), ``s* ~ Bin(n, p*)``,
        ``e_i = ghat(s*) - g(p*)``.  States with more than EXACT_GROUP questions use the normal limit."""
        M, m, n = self.M, self.C.shape[1], g.size
        err = np.zeros((n, m))
        big, located = self._error_moments()
        one = self.n_u == 1
        if one.any():  # one trial per question: the bounding case of equally hard questions (_one_trial): the
            # group's benchmark truth is M_1 pbar, pbar drawn from one_trial_law (drawing the sampling error at each
            # pbar instead, a Wald-like interval, reached 1.7% for 0 of 100 and covered 82% at p = 0.017)
            c, S, F = self._one_trial()
            err += np.outer(S - (S + F) * one_trial_law(S, F, rng, n), c)
        for nu in np.unique(self.n_u[~one]).tolist():  # the small states of each trial count, in batches
            table = self._score_table(nu)
            for cols in self._small_states(n, self.n_u == nu):
                p = self._draw_p(rng, g, cols, located[cols])  # (n, questions)
                t = rng.binomial(nu, p)
                for j in range(m):
                    err[:, j] += (table[t, j] - bernstein_eval(self.C[:, j], p)).sum(axis=1)
        for u, f in enumerate(self.freq.astype(np.int64).tolist()):
            if self.n_u[u] > 1 and f > EXACT_GROUP:
                err += math.sqrt(f) * _mvnormal(rng, n, big[u])
        # the pool-free variance where it exceeds the model's (as in _benchmark_error), as independent noise
        excess = self._pool_free_excess(np.einsum("u,uab->ab", self.freq, big))
        err += rng.standard_normal((n, m)) * np.sqrt(excess)
        mean = self.freq @ self._scores() / M
        lo, hi = self.range
        return np.clip(self._combine(mean[None, :] - err / M), lo, hi)

    def _draw_p(self, rng: np.random.Generator, g: np.ndarray, states: np.ndarray, located=None) -> np.ndarray:
        """``(len(g), len(states))`` draws of ``p`` for questions in ``states`` under refit ``g`` of each draw:
        a mixture component by its posterior weight, then that component's Beta posterior (the located
        components' parameters, :meth:`_located`, in the columns where ``located`` (one flag per column) is set,
        else the fitted ones)."""
        G, U, J = self.resp.shape
        if self._cdf is None:  # every (refit, state) row's cumulative weights, offset by the row's index
            cum = np.cumsum(self.resp, axis=-1)
            cum[..., -1] = 1.0
            self._cdf = (cum + np.arange(G * U, dtype=np.float64).reshape(G, U, 1)).ravel()
        rows = g[:, None] * U + states[None, :]
        j = np.searchsorted(self._cdf, rows + rng.random(rows.shape)) - rows * J
        j = np.minimum(j, J - 1)
        s = self.s_u[states][None, :]
        nf = (self.n_u - self.s_u)[states][None, :]
        a, b = self.mix.a[j], self.mix.b[j]
        if located is not None and np.any(located):
            la, lb = self._located()
            a, b = np.where(located[None, :], la[j], a), np.where(located[None, :], lb[j], b)
        return rng.beta(a + s, b + nf)

    def _small_states(self, n: int, pick=None):
        """The count states of at most EXACT_GROUP questions (summed exactly in the draws) as columns, one per
        question holding its state's index, in batches of about 4 million draws (``n`` draws a column); ``pick``
        (a mask over the states) chooses which states take part."""
        f = self.freq.astype(np.int64)
        keep = f <= EXACT_GROUP if pick is None else (f <= EXACT_GROUP) & pick
        states = np.flatnonzero(keep)
        cols = np.repeat(states, f[states])
        step = max(1, 4_000_000 // max(n, 1))
        return [cols[i:i + step] for i in range(0, cols.size, step)]

    pool_name = "mixture of binomials"
    pool_advice = ("no mixture of binomials fits these counts, so the trials of a question are not exchangeable "
                   "(order effects, repeated or cached answers?); benchmark-scope intervals assume they are: check "
                   "the data, or report the population scope")

    def pool_predictive(self, n: int) -> np.ndarray:
        cache = self.counts.cache()
        if "robust" in cache:
            return cache["robust"].predictive(n)
        if "robust-point" not in cache:  # the check needs the point fit only, not the refits, and not to 1e-7 nats:
            # stopping at 1e-5 nats per question moves the predictive histogram by at most about 1e-3 (200 x 16
            # Beta pools) and takes a quarter of the time -- this fit runs on every default estimate
            cache["robust-point"] = BetaMixture.fit(self.counts, fits=0, ll_tol=CHECK_LL_TOL)
        return cache["robust-point"].predictive(n)

    def _model_checks(self, scope: str, advice: str = "") -> list[str]:
        out = super()._model_checks(scope, advice)
        few = self.few_carrying(scope)
        if few is not None:
            out.append(f"the estimate's distance from the nearer end of the range {FEW_CARRYING_WORDS} {few:.1f} of {self.M} "
                       "questions: a posterior interval can be too narrow when so few questions carry the metric (in "
                       "simulated cells of 15-30 questions where this fires, the 95% equal-tailed posterior interval "
                       "covered 84-91%); evaluate more questions, or report the benchmark scope (these questions)"
                       + advice)
        if scope == "benchmark" and int(self.counts.n.min()) == 1 and not self.extrapolated:
            out.append("one trial per question: how much each question's success probability varies cannot be learnt "
                       "from one trial, so the benchmark-scope interval takes the widest case (equally hard "
                       "questions): conservative, about as wide as the population scope")
        return out

    def few_carrying(self, scope: str) -> float | None:
        """:meth:`carrying_questions` in the population scope where it is above 0 and below ``FEW_CARRYING`` (the
        result warns, and the default interval widens to Clopper-Pearson's on the summed scores), else None."""
        if scope != "population" or self.extrapolated:
            return None
        few = self.carrying_questions()  # 0: every question at the end of the range (the pseudo-question sets it)
        return few if 0.0 < few < FEW_CARRYING else None

    def at_range_end(self, scope: str) -> bool:
        """Population scope: every question scores at the same end of the range (:meth:`carrying_questions` is 0),
        where the posterior's far end rests on the prior pseudo-question alone (0 of 100 reached 2.3%, below the
        rule of three's 3%), so the default interval takes Clopper-Pearson's (3.6% there, ``1 - 0.025^(1/M)``: each
        question scores 0 with probability at most one minus the mean, so it holds whatever the pool)."""
        return (scope == "population" and not self.extrapolated and float(self.C.max()) > float(self.C.min())
                and self.carrying_questions() == 0.0)  # a constant payoff has no range to be at the end of

    def carrying_questions(self) -> float:
        r"""How many questions carry the population-scope estimate: ``(sum_i y_i)^2 / sum_i y_i^2`` with ``y_i`` each
        question's unbiased score measured from the end of the payoff range nearer the estimate (the smallest
        over payoff columns); M when every question contributes alike, 1 when one question does, 0 when the
        estimate is at the end of the range.

        Where it is below ``FEW_CARRYING`` (5) but above 0 (a model at the end of the range on every question is
        answered by the prior pseudo-question, not by a few questions), the population-scope result warns.
        With M = 15 on a logit-normal(0, 2) pool, pass^16 from 64 trials was warned in 97% of 300 replicates
        and its 95% interval covered 88.7% of those; pass@8 from 16 trials 93% and 90.7%; on
        Beta(0.5, 0.5) 78% and 90.2%; avg from 4 trials on Beta(2, 5) 1% (``benchmarks/results_few_carrying.md``).

        >>> import numpy as np
        >>> from bayeseval.posterior import build
        >>> R = np.zeros((15, 4), dtype=int); R[0] = 1; R[1, :2] = 1
        >>> round(build(R, "pass^2").carrying_questions(), 2)   # scores 1, 1/6, thirteen 0s: (7/6)^2 / (1 + 1/36)
        1.32
        """
        if self.extrapolated:
            raise ValueError(f"carrying_questions needs an unbiased score per question: {self.spec.label} needs "
                             f"{self.spec.k} trials per question and some have {int(self.counts.n.min())}")
        x = self._scores()
        lo, hi = self.C.min(axis=0), self.C.max(axis=0)
        mean = self.freq @ x / self.M
        y = np.where(mean - lo <= hi - mean, x - lo, hi - x)
        total, square = self.freq @ y, self.freq @ (y * y)
        ratio = np.divide(total * total, square, out=np.zeros(total.shape), where=square > 0)  # all at the end: 0
        return float(ratio.min())

    def state_moments(self):
        return self.w, self.mean_gu[..., 0], self.var_gu[..., 0]

    def sample_hyper(self, rng: np.random.Generator, n: int):
        return self.mix.sample(rng, n)

    def state_draws(self, rng: np.random.Generator, states: np.ndarray, hyper, c: int) -> np.ndarray:
        return bernstein_eval(self.C[:, 0], self._draw_p(rng, hyper[0], states))


def one_trial_law(S: float, F: float, rng: np.random.Generator | None = None, n: int = 0):
    r"""The law of ``pbar``, the benchmark truth of questions with one trial each in the bounding case of equally
    hard questions, from ``S`` successes and ``F`` failures: half ``Beta(S, F + 1)``, half ``Beta(S + 1, F)`` (a
    ``Beta(0, .)`` is a point at 0, a ``Beta(., 0)`` one at 1).  Those two laws' 2.5% and 97.5% quantiles are
    Clopper-Pearson's ends; their even mixture lies inside them, like the mid-p interval.  By enumeration over
    the binomial's outcomes at M = 100 (every question at p, p on a fine grid from 0.0005 to 0.5), its equal-tailed
    95% interval covers at least 92.1% (mean 96.3%), where ``Beta(1 + S, 1 + F)`` dipped to 78.9% (p = 0.0024, its
    lower end at S = 1 above p) and Clopper-Pearson's covers at least 95% (mean 97.6%) at a greater width.

    Without ``rng``: ``(mean, variance)``; with it, ``n`` draws.

    >>> m, v = one_trial_law(0.0, 100.0)
    >>> round(m, 6), round(v, 8)   # half a point at 0, half Beta(1, 100)
    (0.00495, 7.256e-05)
    """
    n_ = S + F
    means = np.array([S / (n_ + 1.0), (S + 1.0) / (n_ + 1.0)])
    a, b = np.array([S, S + 1.0]), np.array([F + 1.0, F])
    var = a * b / ((n_ + 1.0) ** 2 * (n_ + 2.0))
    if rng is None:
        mean = float(means.mean())
        return mean, float((var + means**2).mean() - mean**2)
    pick = rng.random(n) < 0.5
    a_, b_ = np.where(pick, a[0], a[1]), np.where(pick, b[0], b[1])
    draws = rng.beta(np.maximum(a_, 1.0), np.maximum(b_, 1.0))  # degenerate laws replaced below
    return np.where(a_ == 0, 0.0, np.where(b_ == 0, 1.0, draws))


def square_minorant(c: np.ndarray, d: int, weights: np.ndarray) -> np.ndarray | None:
    r"""Bernstein coefficients (degree ``d``) of a polynomial ``L <= g^2`` on [0, 1], ``g`` the Bernstein
    polynomial with coefficients ``c``, that is closest to ``g^2`` where ``weights`` put the questions:

    .. math::  \max_{\ell}\ \sum_{j=0}^{d} w_j \ell_j \quad\text{s.t.}\quad
               \sum_j \ell_j \binom{d}{j} t^j (1 - t)^{d - j} \le g(t)^2 \ \text{on a grid of } t,

    a linear program (HiGHS through :func:`scipy.optimize.linprog`); with ``w_j = P(s = j)`` of ``d`` trials under
    the fitted pool the objective is ``E[L(p)]`` over the pool. ``w`` gets 10% of uniform weight, coefficients are
    bounded by ``MINORANT_BOX`` (2) times the largest ``g^2``, and ``L`` is lowered by its largest excess over
    ``g^2`` on a grid ten times finer, so ``L <= g^2`` holds to that grid's resolution. ``L``'s unbiased score
    from ``s`` of ``n >= d`` trials is ``score_table(L, n)[s]`` (for ``n = d``: ``l_s``). None if the program
    fails. Used by :meth:`RobustPosterior._unbiased_error` (Var(ghat | p) <= E[ghat^2 | p] - L(p)).

    >>> import numpy as np
    >>> L = square_minorant(np.array([0.0, 0.0, 0.0, 1.0]), 4, np.full(5, 0.2))   # pass^3, g^2 = p^6
    >>> t = np.linspace(0, 1, 101)
    >>> bool(np.all(bernstein_eval(L, t) <= t**6 + 1e-12)), round(float(np.max(t**6 - bernstein_eval(L, t))), 3)
    (True, 0.034)
    """
    t = np.linspace(0.0, 1.0, 2001)
    g2c = product_coefficients(c, c)
    g2 = bernstein_eval(g2c, t)
    w = 0.9 * np.asarray(weights, np.float64) / max(float(np.sum(weights)), 1e-300) + 0.1 / (d + 1)
    B = binom.pmf(np.arange(d + 1)[None, :], d, t[:, None])
    R = max(float(np.abs(g2).max()), 1e-12)
    if not np.all(np.isfinite(w)):
        return None
    try:
        res = linprog(-w, A_ub=B, b_ub=g2, bounds=[(-MINORANT_BOX * R, MINORANT_BOX * R)] * (d + 1), method="highs")
    except ValueError:
        return None
    if res.status != 0:
        return None
    fine = np.linspace(0.0, 1.0, 20001)
    slack = float(np.min(bernstein_eval(g2c, fine) - bernstein_eval(res.x, fine)))
    return res.x + min(slack, 0.0)
