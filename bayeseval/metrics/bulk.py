"""Every metric of the reference surface on one count pass, in a handful of matrix products.

:func:`all_metrics` counts ``R`` once, stacks the payoff vectors of all the
"@k" metrics into one matrix and evaluates their unbiased estimates, posterior
means, variances and the covariances the geometric blends need with one
hypergeometric and two beta-binomial products.  The values equal the
individual functions' (the tests check it); this is the fast path for
dashboards and services that want everything at once.

>>> import numpy as np
>>> R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
>>> out = all_metrics(R, 2)
>>> round(out["pass_at_k"], 6), tuple(round(x, 6) for x in out["pass_at_k_ci"][:2])
(0.95, (0.839286, 0.097263))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import validate as V
from ..counts import to_counts
from ..intervals import z_value
from . import categorical as cat
from . import coefficients as coef
from .engine import batch_moments, batch_points
from .reference import _blend, _blend1, _delta, _delta1, _lam, _powers

__all__ = ["all_metrics"]


def all_metrics(
    R: Any,
    k: Any,
    *,
    w: Any = None,
    R0: Any = None,
    tau: float = 0.5,
    weights: Any = None,
    lam: float = 0.5,
    pass_power: float = 0.5,
    unanimous_power: float = 0.5,
    confidence: float = 0.95,
    alpha0: float = 1.0,
    beta0: float = 1.0,
) -> dict:
    """All point estimates and ``*_ci`` summaries of the scorio surface for one matrix.

    Keys are the function names (``"pass_at_k"``, ``"pass_at_k_ci"``, ...).
    Binary ``R`` gives every metric; categorical ``R`` (with ``w``) gives the
    Dirichlet family (``bayes``, ``avg``, ``max_at_k`` and their ``_ci``).
    ``weights`` are the threshold-spectrum weights (default uniform ``1/k``);
    ``tau`` is for ``g_pass_at_k_tau``.  Point estimates that need ``k <= n``
    are left out when some question has fewer than ``k`` trials.
    """
    k = V.integer(k, "k", minimum=1)
    tau = V.tau(tau)
    lam = _lam(lam, None)
    a, b = _powers(pass_power, unanimous_power)
    confidence = V.confidence(confidence)
    alpha0, beta0 = V.beta_prior(alpha0, beta0)
    counts = to_counts(R, w)
    if w is None:
        counts.successes("bayes / avg / max_at_k", weighted=True)
    wv = V.weights(np.array([0.0, 1.0]) if w is None else w)
    span = (float(wv.min()), float(wv.max()))
    finite_ok = int(counts.n.min()) >= k
    out: dict = {}
    z = z_value(confidence)

    def put(name, mu, var, bounds=(0.0, 1.0), sd=None):
        mu = float(mu)
        sd = float(np.sqrt(max(float(var), 0.0))) if sd is None else float(sd)
        lo, hi = bounds
        out[name] = (mu, sd, min(max(mu - z * sd, lo), hi), min(max(mu + z * sd, lo), hi))

    # Dirichlet family (binary R uses w = [0, 1])
    for name, (mu, sd) in (("bayes", cat.bayes_moments(counts, wv, R0)), ("avg", cat.avg_moments(counts, wv))):
        put(name + "_ci", mu, None, span, sd=sd)
        out[name] = out[name + "_ci"][:2]
    binary_max = w is None and R0 is None and alpha0 == 1.0 and beta0 == 1.0
    if not binary_max:  # otherwise max@k of 0/1 outcomes is pass@k, filled in below
        mu, sd = cat.max_moments(counts, wv, k, R0)
        put("max_at_k_ci", mu, None, span, sd=sd)
        if finite_ok:
            out["max_at_k"] = cat.max_point(counts, wv, k)
    if not counts.is_binary:
        return dict(sorted(out.items()))

    # the Bernstein family: one column per metric, all of degree k
    columns = {
        "pass_at_k": coef.pass_at_k(k),
        "pass_hat_k": coef.pass_hat_k(k),
        "g_pass_at_k_tau": coef.g_pass_tau(k, tau),
        "maj_at_k": coef.maj_at_k(k),
        "mg_pass_at_k": coef.mg_pass_at_k(k),
        "auc_at_k": coef.auc_at_k(k),
        "threshold_spectrum_at_k": coef.spectrum(weights, k),  # None: uniform 1/k
        "mg_spectrum": coef.spectrum(coef.mg_spectrum_weights(k), k),
    }
    names = list(columns)
    P_, U_, S_ = 0, 1, names.index("mg_spectrum")
    C = np.column_stack(list(columns.values()))
    _, _, freq, _ = counts.binary_states()
    M = counts.M

    def geo(x, y, lam_):
        if lam_ == 1.0:
            return float(x)
        if lam_ == 0.0:
            return float(y)
        return _blend1(x, y, lam_, 1.0 - lam_)

    if finite_ok:
        P = batch_points(counts, C)
        ds = freq @ P / M
        for i, name in enumerate(names[:-1]):
            out[name] = float(ds[i])
        out["geom_at_k"] = float(freq @ _blend(P[:, P_], P[:, U_], a, b) / M)
        out["geom_ds_at_k"] = _blend1(ds[P_], ds[U_], a, b)
        out["geo_spectrum_at_k"] = geo(ds[P_], ds[S_], lam)
        out["geo_spectrum_star_at_k"] = geo(ds[P_], ds[S_], 0.5)

    mean, var, (cov_pu, cov_ps) = batch_moments(counts, C, [(P_, U_), (P_, S_)], alpha0, beta0)
    dmean, dvar = freq @ mean / M, freq @ var / M**2
    for i, name in enumerate(names[:-1]):
        put(name + "_ci", dmean[i], dvar[i])
    gm, gv = _delta(mean[:, P_], var[:, P_], mean[:, U_], var[:, U_], cov_pu, a, b)
    put("geom_at_k_ci", freq @ gm / M, freq @ gv / M**2)
    dcov_pu, dcov_ps = freq @ cov_pu / M**2, freq @ cov_ps / M**2
    put("geom_ds_at_k_ci", *_delta1(dmean[P_], dvar[P_], dmean[U_], dvar[U_], dcov_pu, a, b))
    for name, lam_ in (("geo_spectrum_at_k_ci", lam), ("geo_spectrum_star_at_k_ci", 0.5)):
        if lam_ in (0.0, 1.0):
            i = P_ if lam_ == 1.0 else S_
            put(name, dmean[i], dvar[i])
        else:
            put(name, *_delta1(dmean[P_], dvar[P_], dmean[S_], dvar[S_], dcov_ps, lam_, 1.0 - lam_))
    aliases = (("g_pass_at_k", "pass_hat_k"), ("unanimous_at_k", "pass_hat_k"))
    if binary_max:
        aliases += (("max_at_k", "pass_at_k"),)
    for alias, name in aliases:
        for suffix in ("", "_ci"):
            if name + suffix in out:
                out[alias + suffix] = out[name + suffix]
    return dict(sorted(out.items()))
