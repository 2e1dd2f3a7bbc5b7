r"""K systems from pairwise labels: Bradley-Terry and Davidson strengths with a posterior.

Model ``i`` has strength :math:`\beta_i`.  Davidson's model (1970, JASA 65(329)) gives, for one label
on the pair (i, j) with :math:`\delta = \beta_i - \beta_j` and tie parameter :math:`\nu = e^\theta`,

.. math::  P(i) = \frac{1}{S}, \quad P(j) = \frac{e^{-\delta}}{S}, \quad P(\mathrm{tie}) =
           \frac{\nu e^{-\delta/2}}{S}, \qquad S = 1 + e^{-\delta} + \nu e^{-\delta/2};

``ties="split"`` (a tie is half a win each) and ``ties="exclude"`` use Bradley-Terry,
:math:`P(i) = 1 / (1 + e^{-\delta})`.  Priors: :math:`\beta_i \sim N(0, \sigma^2)` (``prior_sd``,
default 3: it only keeps a model that never lost finite) and :math:`\theta \sim N(0, 2^2)`.

The posterior is approximated by a normal at its mode (Laplace; Newton's method with the exact
Hessian, counts per judged pair, so the cost does not grow with labels).  Labels of one item are not
independent (several judges, both orders): when any item carries more than one label the covariance
is the item-clustered sandwich :math:`H^{-1} B H^{-1}` (``B`` the sum over the ``G`` items of their
score vectors' outer products, times ``G / (G - 1)``) around the same mode, kept at least as wide as
the Laplace covariance :math:`H^{-1}` (its positive part is added to it: with few items, or items whose
labels cancel, the sandwich alone collapses); else the Laplace one; the result says which.
Strengths are reported centred (their mean over models is 0: only differences are identified), with
an Elo scale, :math:`400 / \ln 10` per unit, centred at 1000.  Rank probabilities, P(best) and expected
ranks come from draws of the approximate posterior.  ``bayeseval.mcmc.davidson_mcmc`` fits the same
model with NUTS (PyMC) as a cross-check.

Designs where not every pair was judged are fine; a design whose comparison graph falls apart in
pieces is refused (strengths in different pieces are not comparable: the prior alone would place
them).

>>> from bayeseval.pairwise import from_long
>>> p = from_long({"item": range(6), "model_a": ["x", "x", "y", "y", "x", "z"],
...                "model_b": ["y", "z", "z", "x", "z", "y"], "winner": ["x", "x", "y", "tie", "z", "y"]})
>>> s = bradley_terry(p)
>>> s.models[0], round(sum(s.strength.values()), 12)
('x', 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, stats

from .. import validate as V
from .._protocol import Result, check_choice
from .._text import pct, text_table
from .data import Preferences, duplicate_note

__all__ = ["bradley_terry", "Strengths", "ELO_SCALE"]

ELO_SCALE = 400.0 / math.log(10.0)
THETA_SD = 2.0
DEFAULT_SEED = 20261125


def _pair_terms(delta: np.ndarray, theta: float, davidson: bool):
    """Per judged pair: probabilities ``(p_i, p_tie, p_j)`` and the derivatives of one label's log-likelihood
    parts: ``q = p_j + p_tie / 2`` (so d loglik / d delta = n q - l - t/2), and the Hessian entries."""
    if davidson:
        nu = math.exp(theta)
        e2, e3 = np.exp(-delta), nu * np.exp(-0.5 * delta)
        S = 1.0 + e2 + e3
        pi, pj, pt = 1.0 / S, e2 / S, e3 / S
    else:
        pi = 0.5 * (1.0 + np.tanh(0.5 * delta))
        pj, pt = 1.0 - pi, np.zeros_like(delta)
    q = pj + 0.5 * pt
    return pi, pt, pj, q


def _negloglik(x, I, J, w, t, l, K, davidson, prior_sd):
    beta, theta = x[:K], (x[K] if davidson else 0.0)
    delta = beta[I] - beta[J]
    pi, pt, pj, q = _pair_terms(delta, theta, davidson)
    n = w + t + l
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = float((w * np.log(pi) + l * np.log(pj)).sum() + ((t * np.log(pt)).sum() if davidson else 0.0))
    ll = ll if math.isfinite(ll) else -1e300
    lp = -0.5 * float(beta @ beta) / prior_sd**2 - (0.5 * theta**2 / THETA_SD**2 if davidson else 0.0)
    # gradient
    gd = n * q - l - 0.5 * t  # d loglik / d delta per pair
    g = np.zeros(K + davidson)
    np.add.at(g, I, gd)
    np.add.at(g, J, -gd)
    g[:K] -= beta / prior_sd**2
    if davidson:
        g[K] = float((t - n * pt).sum()) - theta / THETA_SD**2
    # Hessian
    hdd = n * (q * q - pj - 0.25 * pt)
    H = np.zeros((K + davidson, K + davidson))
    np.add.at(H, (I, I), hdd)
    np.add.at(H, (J, J), hdd)
    np.add.at(H, (I, J), -hdd)
    np.add.at(H, (J, I), -hdd)
    H[np.arange(K), np.arange(K)] -= 1.0 / prior_sd**2
    if davidson:
        hdt = n * (0.5 * pt - 0.5 * pt * pt - pj * pt)
        col = np.zeros(K)
        np.add.at(col, I, hdt)
        np.add.at(col, J, -hdt)
        H[:K, K] = H[K, :K] = col
        H[K, K] = -float((n * (pt - pt * pt)).sum()) - 1.0 / THETA_SD**2
    return -(ll + lp), -g, -H


@dataclass(frozen=True)
class Strengths(Result):
    """Strengths of K models from :func:`bradley_terry`, sorted strongest first."""

    models: list
    strength: dict
    sd: dict
    lo: dict
    hi: dict
    elo: dict
    rank_probs: np.ndarray  # (K models in the order of ``models``, K ranks)
    p_best: dict
    expected_rank: dict
    ties: str
    tie_parameter: dict | None
    covariance: str
    level: float
    n_labels: int
    n_items: int
    pairs_judged: int
    cov: np.ndarray = field(repr=False)
    warnings: tuple = ()
    ties_left_out: int = 0  # tie labels not used (ties="exclude"); n_labels counts the labels used

    def confidence_interval(self, level: float | None = None, method: str | None = None) -> dict:
        if level not in (None, self.level) or method not in (None, "normal"):
            raise ValueError(f"this result holds the {self.level:g} normal interval; call bradley_terry again")
        return {m: (self.lo[m], self.hi[m]) for m in self.models}

    def p_beats(self, a: Any, b: Any) -> float:
        """Posterior probability that ``a`` is stronger than ``b`` (normal approximation)."""
        i, j = self.models.index(a), self.models.index(b)
        d = self.strength[a] - self.strength[b]
        v = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
        return float(stats.norm.cdf(d / math.sqrt(v))) if v > 0 else float(d > 0) + 0.5 * float(d == 0)

    def to_dict(self) -> dict:
        rows = [{"model": m, "strength": self.strength[m], "sd": self.sd[m], "lo": self.lo[m], "hi": self.hi[m],
                 "elo": self.elo[m], "p_best": self.p_best[m], "expected_rank": self.expected_rank[m],
                 "p_rank": self.rank_probs[k].tolist()} for k, m in enumerate(self.models)]
        return {"models": rows, "ties": self.ties, "tie_parameter": self.tie_parameter, "covariance": self.covariance,
                "level": self.level, "n_labels": self.n_labels, "ties_left_out": self.ties_left_out,
                "n_items": self.n_items, "pairs_judged": self.pairs_judged, "warnings": list(self.warnings)}

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame([{k: v for k, v in r.items() if k != "p_rank"} for r in self.to_dict()["models"]])

    def summary(self) -> str:
        rows = [[m, f"{self.strength[m]:+.3f}", f"[{self.lo[m]:+.3f}, {self.hi[m]:+.3f}]", f"{self.elo[m]:.0f}",
                 f"{self.p_best[m]:.3f}", f"{self.expected_rank[m]:.2f}"] for m in self.models]
        K = len(self.models)
        used = (f"{self.n_labels} decided labels (ties left out: {self.ties_left_out})" if self.ties == "exclude"
                else f"{self.n_labels} labels")
        head = (f"{'Davidson' if self.ties == 'davidson' else 'Bradley-Terry'} strengths (ties {self.ties}), "
                f"{pct(self.level)} intervals, {self.covariance} covariance; {used} on {self.n_items} "
                f"items, {self.pairs_judged} of {K * (K - 1) // 2} pairs judged")
        out = [head, text_table(["model", "strength", "interval", "Elo", "P(best)", "E[rank]"], rows, right=(1, 3, 4, 5))]
        if self.tie_parameter:
            out.append(f"tie parameter nu = {self.tie_parameter['nu']:.3f} [{self.tie_parameter['lo']:.3f}, "
                       f"{self.tie_parameter['hi']:.3f}]")
        out += [f"warning: {w}" for w in self.warnings]
        return "\n".join(out)


def bradley_terry(prefs: Preferences, *, ties: str = "davidson", level: float = 0.95, prior_sd: float = 3.0,
                  covariance: str = "auto", draws: int = 4000, seed: int | None = None) -> Strengths:
    """Strengths of every model in ``prefs`` with intervals, rank probabilities and Elo-scale ratings.

    ``ties``: ``"davidson"`` (a tie parameter), ``"split"`` (half a win each) or ``"exclude"``.
    ``covariance``: ``"auto"`` (item-clustered sandwich when some item has several labels, else
    Laplace), ``"laplace"`` or ``"sandwich"``.  See the module docstring.
    """
    if not isinstance(prefs, Preferences):
        raise V.InputTypeError(f"prefs must be Preferences (bayeseval.pairwise.from_long), got {V.describe(prefs)}")
    check_choice(ties, "ties", ("davidson", "split", "exclude"))
    check_choice(covariance, "covariance", ("auto", "laplace", "sandwich"))
    level = V.confidence(level, "level")
    prior_sd = V.real(prior_sd, "prior_sd", lo=1e-3, hi=1e3)  # below 1e-3 every strength is 0; 1e-200 overflowed
    draws = V.integer(draws, "draws", minimum=100)
    seed = DEFAULT_SEED if seed is None else V.integer(seed, "seed", minimum=0)
    K = len(prefs.models)
    if K < 2:
        raise ValueError("bradley_terry needs labels on at least two models")
    P = prefs.pairs()
    if ties == "exclude":  # pairs joined by ties alone say nothing once ties are left out
        P = P[(P[:, 2] + P[:, 4]) > 0]
        if P.size == 0:
            raise ValueError("every label is a tie: with ties='exclude' nothing is left; use ties='davidson'")
    I, J = P[:, 0], P[:, 1]
    w, t, l = (P[:, 2].astype(np.float64), P[:, 3].astype(np.float64), P[:, 4].astype(np.float64))
    _check_connected(prefs, I, J)
    davidson = ties == "davidson"
    if ties == "split":
        w, l, t = w + 0.5 * t, l + 0.5 * t, np.zeros_like(t)
    elif ties == "exclude":
        t = np.zeros_like(t)
    args = (I, J, w, t, l, K, davidson, prior_sd)
    x0 = np.zeros(K + davidson)
    res = optimize.minimize(lambda x: _negloglik(x, *args)[0], x0, jac=lambda x: _negloglik(x, *args)[1],
                            hess=lambda x: _negloglik(x, *args)[2], method="trust-exact", options={"gtol": 1e-10})
    x = res.x
    _, _, Hn = _negloglik(x, *args)  # negative Hessian of the log posterior: positive definite
    Hinv = np.linalg.inv(Hn)
    n_per_item = np.bincount(prefs.item, minlength=prefs.n_items)
    clustered = covariance == "sandwich" or (covariance == "auto" and bool((n_per_item > 1).any()))
    warns = []
    if clustered:
        G = int((n_per_item > 0).sum())
        B = _item_scores(prefs, x, K, davidson, ties) * (G / (G - 1.0) if G > 1 else 1.0)  # CR1 small-sample factor
        # never narrower than the model-based (Laplace) covariance: with few items, or items whose labels cancel,
        # the sandwich alone can collapse towards 0
        ev, V_ = np.linalg.eigh(Hinv @ B @ Hinv - Hinv)
        Sigma = Hinv + (V_ * np.maximum(ev, 0.0)) @ V_.T
        cov_name = "item-clustered sandwich"
        if G < 30:
            warns.append(f"only {G} items: the item-clustered covariance rests on few clusters and is rough (it is "
                         "kept at least as wide as the Laplace one)")
    else:
        Sigma = Hinv
        cov_name = "Laplace"
    C = np.eye(K) - 1.0 / K
    beta = C @ x[:K]
    cov = C @ Sigma[:K, :K] @ C
    sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
    z = float(stats.norm.ppf(0.5 + level / 2))
    rng = np.random.default_rng(seed)
    Xd = rng.multivariate_normal(beta, cov, size=draws, method="eigh")
    order = np.argsort(-Xd, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, K + 1)[None, :].repeat(draws, 0), axis=1)
    probs = np.stack([(ranks == r).mean(axis=0) for r in range(1, K + 1)], axis=1)
    names = list(prefs.models)
    idx = list(np.argsort(-beta, kind="stable"))
    wins = np.zeros(K)
    losses = np.zeros(K)
    np.add.at(wins, I, P[:, 2])
    np.add.at(wins, J, P[:, 4])
    np.add.at(losses, I, P[:, 4])
    np.add.at(losses, J, P[:, 2])
    for k in range(K):
        if losses[k] == 0 or wins[k] == 0:
            warns.append(f"{names[k]} {'never lost' if losses[k] == 0 else 'never won'} a comparison: its strength is "
                         f"held finite by the prior (prior_sd = {prior_sd:g}) and its interval rests on it")
    judged = len(P)
    if judged < K * (K - 1) // 2:
        warns.append(f"{judged} of {K * (K - 1) // 2} pairs were judged: unjudged pairs are compared through the "
                     "others, which assumes the model's transitivity")
    if prefs.duplicates:
        warns.append(duplicate_note(prefs.duplicates, prefs.judges is not None))
    ties_out = int((prefs.outcome == 0).sum()) if ties == "exclude" else 0
    tie_par = None
    if davidson:
        se = math.sqrt(max(Sigma[K, K], 0.0))
        tie_par = {"nu": math.exp(x[K]), "lo": math.exp(x[K] - z * se), "hi": math.exp(x[K] + z * se)}
    ordered = [names[i] for i in idx]
    return Strengths(
        models=ordered, strength={names[i]: float(beta[i]) for i in idx}, sd={names[i]: float(sd[i]) for i in idx},
        lo={names[i]: float(beta[i] - z * sd[i]) for i in idx}, hi={names[i]: float(beta[i] + z * sd[i]) for i in idx},
        elo={names[i]: float(1000.0 + ELO_SCALE * beta[i]) for i in idx}, rank_probs=probs[idx],
        p_best={names[i]: float(probs[i, 0]) for i in idx},
        expected_rank={names[i]: float(ranks[:, i].mean()) for i in idx}, ties=ties, tie_parameter=tie_par,
        covariance=cov_name, level=level, n_labels=prefs.n_labels - ties_out,
        n_items=int(np.unique(prefs.item[prefs.outcome != 0]).size) if ties_out else prefs.n_items, pairs_judged=judged,
        cov=cov[np.ix_(idx, idx)], warnings=tuple(warns), ties_left_out=ties_out)


def _check_connected(prefs: Preferences, I: np.ndarray, J: np.ndarray) -> None:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    K = len(prefs.models)
    g = coo_matrix((np.ones(I.size), (I, J)), shape=(K, K))
    n, lab = connected_components(g, directed=False)
    if n > 1:
        parts = [", ".join(prefs.models[k] for k in np.flatnonzero(lab == c)) for c in range(n)]
        raise ValueError(f"the comparison graph falls apart into {n} groups that were never judged against each other: "
                         + "; ".join(f"{{{p}}}" for p in parts) + ". Strengths across groups are not comparable; "
                         "judge some pairs across groups, or fit each group on its own")


def _item_scores(prefs: Preferences, x: np.ndarray, K: int, davidson: bool, ties: str) -> np.ndarray:
    """Sum over items of the outer product of each item's log-likelihood gradient (the sandwich's meat)."""
    a, b, o = prefs.a, prefs.b, prefs.outcome.astype(np.float64)
    keep = np.ones(o.size, dtype=bool) if ties != "exclude" else o != 0
    a, b, o, item = a[keep], b[keep], o[keep], prefs.item[keep]
    delta = x[a] - x[b]
    theta = x[K] if davidson else 0.0
    pi, pt, pj, q = _pair_terms(delta, theta, davidson)
    if davidson:
        gd = q - (o == -1) - 0.5 * (o == 0)
        gt = (o == 0) - pt
    else:  # split: a tie is half a win; exclude: no ties left
        gd = q - np.where(o == -1, 1.0, np.where(o == 0, 0.5, 0.0))
    G = np.zeros((prefs.n_items, K + davidson))
    np.add.at(G, (item, a), gd)
    np.add.at(G, (item, b), -gd)
    if davidson:
        np.add.at(G[:, K], item, gt)
    return G.T @ G
