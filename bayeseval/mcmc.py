r"""MCMC cross-checks and hierarchical models with PyMC and ArviZ (``pip install 'bayeseval[mcmc]'``).

The closed forms are fast; this module is how a sceptical reader checks
them, and how to go where no closed form reaches.  PyMC is imported only
when a function here runs (``import bayeseval`` never imports it).

* :func:`crosscheck` samples the conjugate per-question model -- ``p_i ~
  Beta(alpha0, beta0)``, ``s_i ~ Binomial(n_i, p_i)`` for 0/1 outcomes, or
  ``theta_i ~ Dirichlet(1 + prior counts)``, category counts ``~
  Multinomial(n_i, theta_i)`` with weights ``w`` -- computes each requested
  dataset-level metric on every draw (benchmark scope: ``mean_i g(p_i)``) and
  compares the MCMC mean and sd with the closed form: a metric passes when
  the means differ by at most 4 Monte-Carlo standard errors and the sds by at
  most 10%.
* :func:`hierarchical` fits the hierarchical Beta-binomial (``p_i ~
  Beta(mu kappa, (1 - mu) kappa)``, ``mu ~ U(0, 1)``, ``log kappa ~
  U(log 0.01, log 1e6)``: the closed form's own hyperprior, marginalised over
  ``p_i``) and a non-centred logit-normal variant (``logit p_i = m + sigma
  z_i``, ``m ~ N(0, 1.5^2)``, ``sigma ~ HalfNormal(1.5)``, ``z_i ~ N(0, 1)``),
  and reports population-scope estimates of engine metrics from the posterior
  predictive of a new question beside the closed-form population scope.
* :func:`paired` fits ``logit p_(i, model) = mu + sigma z_i +/- delta / 2``
  (question difficulty plus a model effect) to two models' outcomes and
  reports the posterior of ``delta`` and of the metric difference A - B beside
  :func:`bayeseval.compare`'s closed form.

Sampler: PyMC's own NUTS (the fastest here; ``benchmarks/bench_mcmc.py`` times it against
nutpie), or ``sampler="nutpie"``.  Diagnostics are never
silent: an :class:`MCMCWarning` names every parameter with R-hat > 1.01, bulk
ESS < 400, and any divergence.  Results carry ArviZ ``InferenceData``.

References: Gelman et al., *Bayesian Data Analysis* (3rd ed.) ch. 5 and 11;
Vehtari et al. (2021), "Rank-normalization, folding, and localization: an
improved R-hat", Bayesian Analysis 16(2).
"""

from __future__ import annotations

import importlib.util
import logging
import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import expit

from . import validate as V
from .counts import to_counts
from .metrics.engine import bernstein_eval, means_rows
from .posterior import build
from .results import _metric_list
from ._protocol import Result
from ._text import html_table, pct, text_table
from .targets import parse

__all__ = ["crosscheck", "hierarchical", "paired", "davidson_mcmc", "StrengthsCheck", "MCMCWarning", "diagnose", "sampler_name",
           "plot_trace", "plot_posterior", "plot_forest", "CrossCheck", "HierarchicalFit", "PairedFit"]

RHAT_MAX = 1.01
ESS_MIN = 400
GH_NODES = 64  # Gauss-Hermite nodes for expectations over a normal question effect


class MCMCWarning(UserWarning):
    """A convergence diagnostic failed (R-hat, ESS or divergences)."""


def _pymc():
    try:
        import pymc as pm
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("bayeseval.mcmc needs PyMC: pip install 'bayeseval[mcmc]'") from exc
    # a performance notice about pip-installed PyTensor; the samplers here do not need BLAS
    warnings.filterwarnings("ignore", message="PyTensor could not link to a BLAS", category=UserWarning)
    return pm


def sampler_name(sampler: str = "auto") -> str:
    """The NUTS implementation used.

    ``"auto"`` is PyMC's own NUTS: on these models nutpie was no faster once compiled and
    slower on a first call (``benchmarks/results_mcmc.md``: 3.0 s against 5.5 s cold, 2.3 s
    both warm at M = 100, N = 8; 7.4 s both at M = 1000).  ``"nutpie"`` needs nutpie installed;
    JAX-based samplers (numpyro, blackjax) are not offered because JAX is not a dependency.
    """
    if sampler not in ("auto", "nutpie", "pymc"):
        raise ValueError(f"sampler must be 'auto', 'nutpie' or 'pymc', got {sampler!r}")
    if sampler == "nutpie" and importlib.util.find_spec("nutpie") is None:
        raise ImportError("sampler='nutpie' needs nutpie: pip install nutpie")
    return "nutpie" if sampler == "nutpie" else "pymc"


def _sample(model, draws: int, chains: int, seed: int, sampler: str, tune: int | None = None):
    pm = _pymc()
    name = sampler_name(sampler)
    logger = logging.getLogger("pymc")
    level = logger.level
    logger.setLevel(logging.WARNING)  # no "Initializing NUTS..." chatter; diagnose() reports what matters
    try:
        with model, warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*running at least 4 chains.*")
            return pm.sample(draws=draws, tune=tune if tune is not None else max(draws, 1000), chains=chains,
                             cores=min(chains, os.cpu_count() or 1), random_seed=seed, nuts_sampler=name,
                             progressbar=False, compute_convergence_checks=False)
    finally:
        logger.setLevel(level)


def diagnose(idata, var_names=None, *, warn: bool = True) -> list[str]:
    """R-hat, bulk ESS and divergences; returns (and warns) one message per failing parameter group."""
    import arviz as az

    post = idata.posterior
    names = list(var_names) if var_names is not None else [
        v for v in post.data_vars if not v.startswith("_") and not v.endswith("__")  # skip transformed copies
    ]
    problems = []
    rhat = az.rhat(post[names])
    ess = az.ess(post[names], method="bulk")
    for v in names:
        r = np.atleast_1d(rhat[v].values)
        e = np.atleast_1d(ess[v].values)
        bad_r = np.flatnonzero(~(r <= RHAT_MAX))
        bad_e = np.flatnonzero(~(e >= ESS_MIN))
        if bad_r.size:
            problems.append(f"R-hat {float(np.nanmax(r)):.3f} > {RHAT_MAX} for {_label(v, bad_r, r.size)}")
        if bad_e.size:
            problems.append(f"bulk ESS {float(np.nanmin(e)):.0f} < {ESS_MIN} for {_label(v, bad_e, e.size)}")
    if "sample_stats" in idata.groups() and "diverging" in idata.sample_stats:
        nd = int(idata.sample_stats["diverging"].values.sum())
        if nd:
            problems.append(f"{nd} divergent transitions (parameters: {', '.join(names)})")
    if warn:
        for msg in problems:
            warnings.warn(msg, MCMCWarning, stacklevel=3)
    return problems


def _label(v: str, bad: np.ndarray, size: int) -> str:
    if size == 1:
        return v
    shown = ", ".join(f"{v}[{i}]" for i in bad[:5].tolist())
    return shown + (f" and {bad.size - 5} more" if bad.size > 5 else "")


def _diag_stats(x: np.ndarray) -> dict:
    """MCMC summary of one derived quantity, x of shape (chain, draw)."""
    import arviz as az

    return {
        "mcmc_mean": float(x.mean()), "mcmc_sd": float(x.std(ddof=1)),
        "mcse_mean": _scalar(az.mcse(x, method="mean")),
        "rhat": _scalar(az.rhat(x)), "ess_bulk": _scalar(az.ess(x, method="bulk")),
        "ess_tail": _scalar(az.ess(x, method="tail")),
    }


def _scalar(x) -> float:
    return float(np.asarray(x).ravel()[0])


def _fmt_rows(rows: list[dict], cols: list[tuple[str, str, str]]) -> list[tuple]:
    out = []
    for r in rows:
        cells = []
        for key, _, fmt in cols:
            v = r.get(key)
            cells.append("-" if v is None else (format(v, fmt) if fmt else str(v)))
        out.append(tuple(cells))
    return out


class _Table(Result):
    """Shared printing for the result types (the result protocol): ``rows`` (dicts) and ``_COLS``
    (key, header, format)."""

    rows: list
    _COLS: list

    def _table(self):
        return [c[1] for c in self._COLS], _fmt_rows(self.rows, self._COLS)

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame.from_records(self.rows)

    def _repr_html_(self) -> str:
        return html_table(*self._table())

    def __repr__(self) -> str:
        return self.summary()


# ----------------------------------------------------------------------------- cross-check
@dataclass(eq=False, repr=False)
class CrossCheck(_Table):
    """Per metric: closed form vs MCMC, diagnostics and pass/fail."""

    rows: list
    idata: Any
    sampler: str
    draws: int
    chains: int
    problems: list = field(default_factory=list)

    _COLS = [("metric", "metric", ""), ("closed_mean", "closed mean", ".5f"), ("closed_sd", "closed sd", ".5f"),
             ("mcmc_mean", "MCMC mean", ".5f"), ("mcmc_sd", "MCMC sd", ".5f"), ("z", "diff/MCSE", "+.2f"),
             ("sd_ratio", "sd ratio", ".3f"), ("rhat", "R-hat", ".4f"), ("ess_bulk", "ESS bulk", ".0f"),
             ("ess_tail", "ESS tail", ".0f"), ("divergences", "div", "d"), ("status", "check", "")]

    @property
    def passed(self) -> bool:
        """Every metric agrees (means within 4 MCSE, sds within 10%) and the chains mixed (no R-hat, ESS or
        divergence warning): agreement from chains that did not mix is no check."""
        return all(r["passed"] for r in self.rows) and not self.problems

    def summary(self) -> str:
        why = " (the chains did not mix: see the warnings below)" if self.problems and all(
            r["passed"] for r in self.rows) else ""
        head = (f"MCMC cross-check ({self.sampler}, {self.chains} chains x {self.draws} draws; benchmark scope): "
                f"{'PASS' if self.passed else 'FAIL'} (means within 4 MCSE, sds within 10%){why}")
        diag = "".join(f"\nwarning: {p}" for p in self.problems)
        return head + "\n\n" + text_table(*self._table()) + diag

    def to_dict(self) -> dict:
        return {"passed": self.passed, "sampler": self.sampler, "draws": self.draws, "chains": self.chains,
                "rows": self.rows, "problems": list(self.problems)}


def _check_mcmc_args(draws, chains, seed, tune=None):
    if tune is not None:
        V.integer(tune, "tune", minimum=0)
    draws = V.integer(draws, "draws", minimum=10)
    chains = V.integer(chains, "chains", minimum=1)
    seed = 20251104 if seed is None else V.integer(seed, "seed", minimum=0)
    return draws, chains, seed


def _derived_metric(spec, post, draws_p=None, draws_theta=None, w=None) -> np.ndarray:
    """Dataset-level metric (benchmark scope) on each posterior draw: shape (chain, draw)."""
    if draws_p is not None:
        if spec.kind == "mean":
            return draws_p.mean(axis=-1)
        C = post.C
        comps = [bernstein_eval(C[:, j], draws_p).mean(axis=-1) for j in range(C.shape[1])]
        return post._combine(np.stack(comps, axis=-1))
    theta = draws_theta  # (chain, draw, M, C+1)
    if spec.kind == "mean":
        return (theta @ w).mean(axis=-1)
    # max@k: E[max of k draws] = w_max - sum_l P(score <= level_l)^k (level_{l+1} - level_l)
    levels = np.unique(w)
    per_level = np.stack([theta[..., w == lev].sum(axis=-1) for lev in levels], axis=-1)
    A = np.cumsum(per_level, axis=-1)[..., :-1]
    return (levels[-1] - (A ** spec.k) @ np.diff(levels)).mean(axis=-1)


def crosscheck(R: Any, metrics: Any = ("avg",), *, draws: int = 1000, chains: int = 2, seed: int | None = None,
               prior: Any = "uniform", alpha0: Any = None, beta0: Any = None, w: Any = None, R0: Any = None,
               sampler: str = "auto", tune: int | None = None, warn: bool = True) -> CrossCheck:
    """Sample the conjugate per-question posterior with NUTS and check every metric's closed form.

    ``metrics``: names as in :func:`bayeseval.estimate` (``"pass@4"``,
    ``("g-pass@k", {"k": 4, "tau": 0.5})``, ...).  ``prior``: an independent
    Beta prior (``"uniform"``, ``"jeffreys"``, ``(a, b)`` or ``alpha0``/``beta0``);
    with ``w`` the Dirichlet(1 + ``R0``) model of Bayes@N.  Returns a
    :class:`CrossCheck`; ``.passed`` is the overall verdict.
    """
    pm = _pymc()
    draws, chains, seed = _check_mcmc_args(draws, chains, seed, tune)
    C = to_counts(R, w, name="R")
    specs = [(parse(m, **p), p) for m, p in _metric_list(metrics)]
    categorical = w is not None or not C.is_binary
    if categorical and any(s.kind not in ("mean", "max") for s, _ in specs):
        raise ValueError("with categorical outcomes (w=) crosscheck supports 'bayes', 'avg' and 'max@k'")
    posts = [build(C, s, prior="dirichlet" if categorical else prior, alpha0=alpha0, beta0=beta0, w=w, R0=R0)
             for s, _ in specs]
    if any(p.prior.kind == "hierarchical" for p in posts):
        raise ValueError("crosscheck checks the independent-prior closed form; use hierarchical() for pooled models")
    with pm.Model() as model:
        if categorical:
            table, wv = C.table_for(w)
            alpha = np.ones(table.shape)
            if R0 is not None:
                from .metrics.categorical import prior_table

                alpha = alpha + prior_table(R0, C, wv.size)
            theta = pm.Dirichlet("theta", a=alpha, shape=table.shape)
            pm.Multinomial("counts", n=C.n, p=theta, observed=table)
        else:
            a0, b0 = posts[0].prior.alpha0, posts[0].prior.beta0
            p = pm.Beta("p", alpha=a0, beta=b0, shape=C.M)
            pm.Binomial("s", n=C.n, p=p, observed=C.successes())
    idata = _sample(model, draws, chains, seed, sampler, tune)
    problems = diagnose(idata, warn=warn)
    div = int(idata.sample_stats["diverging"].values.sum()) if "diverging" in idata.sample_stats else 0
    out_rows = []
    for (spec, _), post in zip(specs, posts):
        if categorical:
            x = _derived_metric(spec, post, draws_theta=idata.posterior["theta"].values, w=np.asarray(wv, float))
        else:
            x = _derived_metric(spec, post, draws_p=idata.posterior["p"].values)
        mean, sd = post.moments("benchmark")
        st = _diag_stats(x)
        z = (st["mcmc_mean"] - mean) / st["mcse_mean"] if st["mcse_mean"] > 0 else (0.0 if st["mcmc_mean"] == mean else math.inf)
        ratio = st["mcmc_sd"] / sd if sd > 0 else (1.0 if st["mcmc_sd"] == 0 else math.inf)
        ok = abs(z) <= 4 and abs(ratio - 1) <= 0.10
        out_rows.append({"metric": spec.label, "closed_mean": mean, "closed_sd": sd, **st, "z": z, "sd_ratio": ratio,
                         "divergences": div, "passed": bool(ok), "status": "pass" if ok else "FAIL"})
    return CrossCheck(out_rows, idata, sampler_name(sampler), draws, chains, problems)


# ----------------------------------------------------------------------------- hierarchical models
def _gh():
    x, wts = np.polynomial.hermite_e.hermegauss(GH_NODES)  # probabilists' Hermite: weight exp(-x^2/2)
    return x, wts / wts.sum()


def _population_beta(C: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """E[g(p)] for p ~ Beta(a, b), per draw (exact, through the engine's beta-binomial weights)."""
    z = np.zeros(a.size, dtype=np.int64)
    return means_rows(z, z, a, b, C)


def _population_logitnormal(c: np.ndarray, m: np.ndarray, s: np.ndarray) -> np.ndarray:
    """E[g(expit(m + s Z))], Z ~ N(0, 1), per draw (Gauss-Hermite)."""
    x, wts = _gh()
    p = expit(m[:, None] + s[:, None] * x[None, :])
    return bernstein_eval(c, p) @ wts


@dataclass(eq=False, repr=False)
class HierarchicalFit(_Table):
    """Population-scope estimates: closed form beside two MCMC hierarchical models."""

    rows: list
    idata: dict  # variant -> InferenceData
    sampler: str
    problems: list = field(default_factory=list)

    _COLS = [("metric", "metric", ""), ("closed_mean", "closed form", ".4f"), ("closed_sd", "sd", ".4f"),
             ("beta_mean", "Beta-binomial MCMC", ".4f"), ("beta_sd", "sd", ".4f"), ("beta_z", "diff/MCSE", "+.2f"),
             ("logit_mean", "logit-normal MCMC", ".4f"), ("logit_sd", "sd", ".4f"),
             ("beta_rhat", "R-hat (BB)", ".4f"), ("logit_rhat", "R-hat (LN)", ".4f")]

    def summary(self) -> str:
        head = ("Population scope (a new question from the same pool): closed form (hierarchical prior, grid) vs "
                f"MCMC ({self.sampler}) for the same hierarchical Beta-binomial and a logit-normal alternative")
        diag = "".join(f"\nwarning: {p}" for p in self.problems)
        return head + "\n\n" + text_table(*self._table()) + diag

    def to_dict(self) -> dict:
        return {"sampler": self.sampler, "rows": self.rows, "problems": list(self.problems)}


def _single_payoff(specs: list, what: str) -> list:
    """The metrics, checked before any model is sampled: one payoff per question (not max@k or geospectrum)."""
    for spec, _ in specs:
        if spec.kind not in ("bernstein", "mean"):
            raise ValueError(f"{what}() supports single-payoff metrics, not {spec.label}")
    return specs


def hierarchical(R: Any, metrics: Any = ("avg",), *, draws: int = 1000, chains: int = 2, seed: int | None = None,
                 sampler: str = "auto", tune: int | None = None, warn: bool = True) -> HierarchicalFit:
    """Fit the hierarchical Beta-binomial and the non-centred logit-normal model; population-scope
    estimates of each metric from the posterior predictive of a new question, beside the closed form."""
    pm = _pymc()
    from .results import estimate

    draws, chains, seed = _check_mcmc_args(draws, chains, seed, tune)
    C = to_counts(R, name="R")
    if not C.is_binary:
        raise ValueError("hierarchical models need 0/1 outcomes")
    specs = _single_payoff([(parse(m, **p), p) for m, p in _metric_list(metrics)], "hierarchical")
    n, s = C.n, C.successes()
    with pm.Model() as bb:
        mu = pm.Uniform("mu", 0.0, 1.0)
        log_kappa = pm.Uniform("log_kappa", math.log(0.01), math.log(1e6))
        kappa = pm.math.exp(log_kappa)
        pm.BetaBinomial("s", alpha=mu * kappa, beta=(1 - mu) * kappa, n=n, observed=s)
    with pm.Model() as ln:
        m = pm.Normal("m", 0.0, 1.5)
        sigma = pm.HalfNormal("sigma", 1.5)
        z = pm.Normal("z", 0.0, 1.0, shape=C.M)
        pm.Binomial("s", n=n, p=pm.math.invlogit(m + sigma * z), observed=s)
    id_bb = _sample(bb, draws, chains, seed, sampler, tune)
    id_ln = _sample(ln, draws, chains, seed + 1, sampler, tune)
    problems = diagnose(id_bb, ["mu", "log_kappa"], warn=warn) + diagnose(id_ln, ["m", "sigma"], warn=warn)
    mu_d = id_bb.posterior["mu"].values
    kap = np.exp(id_bb.posterior["log_kappa"].values)
    a, b = (mu_d * kap).ravel(), ((1 - mu_d) * kap).ravel()
    m_d, s_d = id_ln.posterior["m"].values.ravel(), id_ln.posterior["sigma"].values.ravel()
    shape = mu_d.shape
    rows = []
    for spec, params in specs:
        if spec.kind not in ("bernstein", "mean"):
            raise ValueError(f"hierarchical() supports single-payoff metrics, not {spec.label}")
        c = np.array([0.0, 1.0]) if spec.kind == "mean" else spec.coefficients
        est = estimate(C, spec, scope="population", prior="hierarchical", interval="normal")
        xb = _population_beta(c[:, None], a, b)[:, 0].reshape(shape)
        xl = _population_logitnormal(c, m_d, s_d).reshape(shape)
        sb, sl = _diag_stats(xb), _diag_stats(xl)
        rows.append({"metric": spec.label, "closed_mean": est.mean, "closed_sd": est.sd,
                     "beta_mean": sb["mcmc_mean"], "beta_sd": sb["mcmc_sd"], "beta_mcse": sb["mcse_mean"],
                     "beta_z": (sb["mcmc_mean"] - est.mean) / sb["mcse_mean"] if sb["mcse_mean"] > 0 else 0.0,
                     "beta_rhat": sb["rhat"], "beta_ess_bulk": sb["ess_bulk"],
                     "logit_mean": sl["mcmc_mean"], "logit_sd": sl["mcmc_sd"], "logit_mcse": sl["mcse_mean"],
                     "logit_rhat": sl["rhat"], "logit_ess_bulk": sl["ess_bulk"]})
    return HierarchicalFit(rows, {"beta-binomial": id_bb, "logit-normal": id_ln}, sampler_name(sampler), problems)


# ----------------------------------------------------------------------------- paired two-model model
@dataclass(eq=False, repr=False)
class PairedFit(_Table):
    """Posterior of the model effect and of the metric difference A - B, beside compare()'s closed form."""

    rows: list
    effect: dict  # posterior of delta (logit scale): mean, sd, lo, hi, p_positive
    idata: Any
    sampler: str
    names: tuple
    problems: list = field(default_factory=list)
    level: float = 0.95  # the level of effect's interval (and of the rows')

    _COLS = [("metric", "metric", ""), ("scope", "scope", ""), ("mcmc_mean", "MCMC A-B", "+.4f"),
             ("mcmc_sd", "sd", ".4f"), ("mcmc_lo", "lo", "+.4f"), ("mcmc_hi", "hi", "+.4f"),
             ("mcmc_p", "P(A>B)", ".3f"), ("closed_mean", "compare() A-B", "+.4f"), ("closed_sd", "sd", ".4f"),
             ("closed_lo", "lo", "+.4f"), ("closed_hi", "hi", "+.4f"), ("closed_p", "P(A>B)", ".3f")]

    def summary(self) -> str:
        e = self.effect
        a, b = self.names
        head = (f"Paired model logit p = question difficulty +/- delta/2 ({self.sampler}): delta ({a} - {b}, logit "
                f"scale) = {e['mean']:+.3f} (sd {e['sd']:.3f}, {pct(self.level)} [{e['lo']:+.3f}, {e['hi']:+.3f}]), "
                f"P(delta > 0) = {e['p_positive']:.3f}")
        diag = "".join(f"\nwarning: {p}" for p in self.problems)
        return head + "\n\n" + text_table(*self._table()) + diag

    def to_dict(self) -> dict:
        return {"sampler": self.sampler, "names": list(self.names), "effect": self.effect, "rows": self.rows,
                "problems": list(self.problems)}


def paired(A: Any, B: Any, metrics: Any = ("avg",), *, draws: int = 1000, chains: int = 2, seed: int | None = None,
           level: float = 0.95, sampler: str = "auto", tune: int | None = None, names=("A", "B"),
           warn: bool = True) -> PairedFit:
    """Fit ``logit p_(i,A) = mu + sigma z_i + delta/2``, ``logit p_(i,B) = mu + sigma z_i - delta/2``
    (``mu ~ N(0, 2^2)``, ``sigma ~ HalfNormal(2)``, ``delta ~ N(0, 2^2)``) and compare the metric
    difference in both scopes with :func:`bayeseval.compare`."""
    pm = _pymc()
    from .comparison.paired import as_counts, align, compare

    draws, chains, seed = _check_mcmc_args(draws, chains, seed, tune)
    level = V.confidence(level, "level")
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and all(isinstance(x, str) for x in names)
            and names[0] != names[1]):
        raise V.InputTypeError(f"names must be two different strings, got {names!r}")
    ca, cb = as_counts(A, names[0]), as_counts(B, names[1])
    if not (ca.is_binary and cb.is_binary):
        raise ValueError("paired() needs 0/1 outcomes for both models")
    cb, _ = align(ca, cb, names)
    specs = _single_payoff([(parse(m, **p), p) for m, p in _metric_list(metrics)], "paired")
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 2.0)
        sigma = pm.HalfNormal("sigma", 2.0)
        delta = pm.Normal("delta", 0.0, 2.0)
        z = pm.Normal("z", 0.0, 1.0, shape=ca.M)
        base = mu + sigma * z
        pm.Binomial("s_a", n=ca.n, p=pm.math.invlogit(base + delta / 2), observed=ca.successes())
        pm.Binomial("s_b", n=cb.n, p=pm.math.invlogit(base - delta / 2), observed=cb.successes())
    idata = _sample(model, draws, chains, seed, sampler, tune)
    problems = diagnose(idata, ["mu", "sigma", "delta"], warn=warn)
    post = idata.posterior
    d = post["delta"].values
    q = ((1 - level) / 2, (1 + level) / 2)
    effect = {"mean": float(d.mean()), "sd": float(d.std(ddof=1)), "lo": float(np.quantile(d, q[0])),
              "hi": float(np.quantile(d, q[1])), "p_positive": float((d > 0).mean())}
    mu_d, s_d, z_d = post["mu"].values.ravel(), post["sigma"].values.ravel(), post["z"].values.reshape(-1, ca.M)
    dd = d.ravel()
    rows = []
    for spec, params in specs:
        if spec.kind not in ("bernstein", "mean"):
            raise ValueError(f"paired() supports single-payoff metrics, not {spec.label}")
        c = np.array([0.0, 1.0]) if spec.kind == "mean" else spec.coefficients
        base = mu_d[:, None] + s_d[:, None] * z_d
        bench = (bernstein_eval(c, expit(base + dd[:, None] / 2)) - bernstein_eval(c, expit(base - dd[:, None] / 2))).mean(axis=1)
        pop = _population_logitnormal(c, mu_d + dd / 2, s_d) - _population_logitnormal(c, mu_d - dd / 2, s_d)
        for scope, x in (("benchmark", bench), ("population", pop)):
            cmp_ = compare(ca, cb, metric=spec, scope=scope, level=level, seed=seed, names=tuple(names), resamples=200)
            rows.append({"metric": spec.label, "scope": scope, "mcmc_mean": float(x.mean()), "mcmc_sd": float(x.std(ddof=1)),
                         "mcmc_lo": float(np.quantile(x, q[0])), "mcmc_hi": float(np.quantile(x, q[1])),
                         "mcmc_p": float((x > 0).mean()), "closed_mean": cmp_.delta.mean, "closed_sd": cmp_.delta.sd,
                         "closed_lo": cmp_.delta.lo, "closed_hi": cmp_.delta.hi, "closed_p": cmp_.p_a_better})
    return PairedFit(rows, effect, idata, sampler_name(sampler), tuple(names), problems, level)


# ----------------------------------------------------------------------------- pairwise strengths
@dataclass(eq=False, repr=False)
class StrengthsCheck(_Table):
    """Per model: the Laplace posterior of :func:`bayeseval.pairwise.bradley_terry` against NUTS."""

    rows: list
    idata: Any
    sampler: str
    problems: list = field(default_factory=list)

    _COLS = [("model", "model", ""), ("laplace_mean", "Laplace mean", "+.4f"), ("laplace_sd", "Laplace sd", ".4f"),
             ("mcmc_mean", "MCMC mean", "+.4f"), ("mcmc_sd", "MCMC sd", ".4f"), ("laplace_p_best", "P(best) Laplace", ".3f"),
             ("mcmc_p_best", "P(best) MCMC", ".3f")]

    def summary(self) -> str:
        diag = "".join(f"\nwarning: {p}" for p in self.problems)
        return (f"Bradley-Terry / Davidson strengths: Laplace approximation vs NUTS ({self.sampler})\n\n"
                + text_table(*self._table()) + diag)

    def to_dict(self) -> dict:
        return {"sampler": self.sampler, "rows": self.rows, "problems": list(self.problems)}


def davidson_mcmc(prefs: Any, *, ties: str = "davidson", prior_sd: float = 3.0, draws: int = 1000, chains: int = 2,
                  seed: int | None = None, sampler: str = "auto", tune: int | None = None,
                  warn: bool = True) -> StrengthsCheck:
    """The model of :func:`bayeseval.pairwise.bradley_terry` (same priors, labels independent given the
    strengths) sampled with NUTS, beside its Laplace approximation with ``covariance="laplace"``:
    centred strengths' means and sds, and P(best)."""
    pm = _pymc()
    from .pairwise import bradley_terry
    from .pairwise.strengths import THETA_SD

    draws, chains, seed = _check_mcmc_args(draws, chains, seed, tune)
    lap = bradley_terry(prefs, ties=ties, prior_sd=prior_sd, covariance="laplace", seed=seed)
    P = prefs.pairs()
    I, J = P[:, 0], P[:, 1]
    w, t, l = (P[:, 2].astype(float), P[:, 3].astype(float), P[:, 4].astype(float))
    if ties == "split":
        w, l, t = w + 0.5 * t, l + 0.5 * t, 0.0 * t
    elif ties == "exclude":
        t = 0.0 * t
    K = len(prefs.models)
    with pm.Model() as model:
        beta = pm.Normal("beta", 0.0, prior_sd, shape=K)
        pm.Deterministic("strength", beta - beta.mean())
        if ties == "davidson":
            theta = pm.Normal("theta", 0.0, THETA_SD)
            eta = pm.math.stack([beta[I], theta + 0.5 * (beta[I] + beta[J]), beta[J]], axis=1)
        else:
            eta = pm.math.stack([beta[I], beta[J]], axis=1)
        logp = eta - pm.math.logsumexp(eta, axis=1, keepdims=True)
        obs = np.column_stack([w, t, l]) if ties == "davidson" else np.column_stack([w, l])
        pm.Potential("loglik", (logp * obs).sum())
    idata = _sample(model, draws, chains, seed, sampler, tune)
    # the strengths' common level is identified by the prior alone and mixes slowly; the centred strengths do not
    problems = diagnose(idata, ["strength"] + (["theta"] if ties == "davidson" else []), warn=warn)
    x = idata.posterior["strength"].values.reshape(-1, K)
    best = np.bincount(np.argmax(x, axis=1), minlength=K) / x.shape[0]
    rows = [{"model": m, "laplace_mean": lap.strength[m], "laplace_sd": lap.sd[m],
             "mcmc_mean": float(x[:, k].mean()), "mcmc_sd": float(x[:, k].std(ddof=1)),
             "laplace_p_best": lap.p_best[m], "mcmc_p_best": float(best[k])}
            for k, m in enumerate(prefs.models)]
    return StrengthsCheck(rows, idata, sampler_name(sampler), problems)


# ----------------------------------------------------------------------------- plots
def _az():
    import arviz as az

    return az


def plot_trace(result, var_names=None, *, variant=None, **kw):
    """ArviZ trace plot of a result's InferenceData (or of an InferenceData); ``variant`` picks one model of a
    result that fitted several (:func:`hierarchical`: ``"beta-binomial"`` or ``"logit-normal"``)."""
    return _az().plot_trace(_idata(result, variant), var_names=var_names, **kw)


def plot_posterior(result, var_names=None, *, variant=None, **kw):
    """ArviZ posterior plot (``variant`` as in :func:`plot_trace`)."""
    return _az().plot_posterior(_idata(result, variant), var_names=var_names, **kw)


def plot_forest(result, var_names=None, *, variant=None, **kw):
    """ArviZ forest plot (R-hat and ESS columns with ``r_hat=True, ess=True``; ``variant`` as in
    :func:`plot_trace`)."""
    return _az().plot_forest(_idata(result, variant), var_names=var_names, **kw)


def _idata(result, variant=None):
    """The InferenceData to plot: a result's, or, where the result fitted several models, the ``variant`` named
    (a ValueError listing them when it is not given: the first was taken silently)."""
    idata = getattr(result, "idata", result)
    if isinstance(idata, dict):
        if variant not in idata:
            raise ValueError(f"variant must name one of the fitted models {list(idata)}, got {variant!r}")
        idata = idata[variant]
    elif variant is not None:
        raise ValueError(f"variant: this result fitted one model; variant={variant!r} does not apply")
    return idata

