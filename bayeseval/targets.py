"""Metric specifications: what :func:`bayeseval.estimate` is asked to estimate.

A metric is named as in the literature, with its parameters as keywords or
inside the name (``"pass@8"`` is ``"pass@k"`` with ``k=8``):

=================  ===========================================  ===================
name               per-question quantity                        parameters
=================  ===========================================  ===================
``avg``            ``p`` (or the mean weight, with ``w``)        ``w``
``avg@n``          AISBench's name for ``avg``                   ``threshold`` (soft)
``bayes``          Bayes@N: ``avg`` under Dirichlet(1 + R0)       ``w``, ``R0``
``pass@k``         ``1 - (1-p)^k``                               ``k``
``pass^k``         ``p^k`` (tau-bench's pass^k, G-Pass@k)        ``k``
``maj@k``          more than k/2 of k correct                    ``k``
``cons@k``         AISBench's name for ``maj@k``                 ``k``
``g-pass@k``       at least ``ceil(tau k)`` of k correct          ``k``, ``tau``
``mg-pass@k``      mG-Pass@k                                     ``k``
``auc@k``          trapezoidal area under pass@1..pass@k         ``k``
``max@k``          expected best reward of k samples             ``k``, ``w``
``geospectrum@k``  ``Pass@k^lam * S_w,k^(1-lam)`` (dataset level) ``k``, ``lam``, ``weights``
custom             payoff vector ``c[0..k]``                     (the vector itself)
=================  ===========================================  ===================

>>> spec = parse("pass@8")
>>> spec.name, spec.params, spec.kind
('pass@k', {'k': 8}, 'bernstein')
>>> parse([0, 0, 1, 1]).label
'custom[0, 0, 1, 1]'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from . import validate as V
from .metrics import coefficients as coef

__all__ = ["MetricSpec", "parse", "NAMES"]

_BERNSTEIN = {
    "pass@k": coef.pass_at_k,
    "pass^k": coef.pass_hat_k,
    "maj@k": coef.maj_at_k,
    "cons@k": coef.maj_at_k,
    "mg-pass@k": coef.mg_pass_at_k,
    "auc@k": coef.auc_at_k,
}
_ALIASES = {
    "pass_at_k": "pass@k", "pass_hat_k": "pass^k", "unanimous@k": "pass^k", "maj_at_k": "maj@k",
    "cons_at_k": "cons@k", "g_pass_at_k": "g-pass@k", "g-pass@k_tau": "g-pass@k", "mg_pass_at_k": "mg-pass@k",
    "mg-pass": "mg-pass@k", "auc_at_k": "auc@k", "max_at_k": "max@k", "geo_spectrum_at_k": "geospectrum@k",
    "geo-spectrum@k": "geospectrum@k", "geospectrum*@k": "geospectrum@k", "avg@n": "avg@n", "avg_at_n": "avg@n",
    "mean": "avg", "accuracy": "avg", "bayes@n": "bayes",
}
NAMES = ("avg", "avg@n", "bayes", *(_BERNSTEIN), "g-pass@k", "max@k", "geospectrum@k")
_K_NAME = re.compile(r"^(pass|maj|cons|g-pass|mg-pass|auc|max|geospectrum)(@|\^)(\d+)$")


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric: canonical ``name``, its ``params``, and how it is computed (``kind``).

    ``kind`` is ``"bernstein"`` (a payoff vector on binary outcomes: the
    engine), ``"mean"`` (the weighted mean score: avg / Bayes@N, binary or
    categorical), ``"max"`` (max@k, categorical) or ``"geospectrum"``.
    """

    name: str
    params: dict = field(default_factory=dict)
    kind: str = "bernstein"
    coefficients: Any = None  # payoff vector for kind == "bernstein"

    @property
    def label(self) -> str:
        """Display name with parameters filled in (``pass@8``, ``g-pass@8 (tau=0.5)``)."""
        if self.name == "custom":
            return "custom[" + ", ".join(f"{x:g}" for x in self.coefficients.tolist()) + "]"
        k = self.params.get("k")
        base = self.name.replace("@k", f"@{k}").replace("^k", f"^{k}") if k is not None else self.name
        extra = {key: v for key, v in self.params.items() if key not in ("k", "w", "R0", "weights")}
        if extra:
            base += " (" + ", ".join(f"{key}={v:g}" if isinstance(v, float) else f"{key}={v}" for key, v in extra.items()) + ")"
        return base

    @property
    def k(self) -> int:
        return int(self.params.get("k", 1))

    def thresholded(self, threshold: float) -> "MetricSpec":
        """The metric read on outcomes binarised at ``threshold`` (a score above it counts as correct), named so:

        >>> parse("pass@2").thresholded(7).label
        'pass@2 (threshold=7)'
        """
        return replace(self, params={**self.params, "threshold": float(threshold)})


def _need_k(name: str, params: dict) -> int:
    if "k" not in params:
        raise ValueError(f"metric {name!r} needs k (for example metric='{name.replace('@k', '@8')}' or k=8)")
    return V.integer(params["k"], "k", minimum=1)


def _unknown_params(message: str, unknown: set) -> ValueError:
    """The error for keyword arguments that reached a metric it does not take: the calls pass on those they do
    not know, so a misspelt argument of the call lands here; ``method`` is named (the interval's is ``interval``).

    >>> str(_unknown_params("metric 'avg' takes no parameters ['method']", {"method"}))
    "metric 'avg' takes no parameters ['method'] (the call passes the keywords it does not know to the metric; \
the interval method is interval=, e.g. interval='exact')"
    """
    hint = "the call passes the keywords it does not know to the metric"
    if "method" in unknown:
        hint += "; the interval method is interval=, e.g. interval='exact'"
    return ValueError(f"{message} ({hint})")


def parse(metric: Any, **params) -> MetricSpec:
    """Turn a metric name (or payoff vector) and keyword parameters into a :class:`MetricSpec`."""
    if metric is None:
        raise V.InputTypeError("metric must be a name such as 'avg' or 'pass@8', or a payoff vector")
    if not isinstance(metric, str):
        c = V.bounded(V.vector(metric, "metric (payoff vector)", min_length=2), "metric (payoff vector)")
        V.integer(c.size - 1, "k")  # the payoff's degree is its k, under the same cap
        if params:
            raise ValueError(f"a payoff-vector metric takes no parameters, got {sorted(params)}")
        return MetricSpec("custom", {"k": c.size - 1}, "bernstein", c)
    name = metric.strip().lower().replace(" ", "")
    if name.startswith("[") and name.endswith("]"):  # a payoff vector spelled out (the command line's '[0,0,1]')
        try:
            vector = [float(x) for x in name[1:-1].split(",")]
        except ValueError:
            raise ValueError(f"metric {metric!r}: a payoff vector is numbers in brackets, e.g. '[0,0,1]'") from None
        return parse(vector, **params)
    name = _ALIASES.get(name, name)
    if re.fullmatch(r"avg@\d+", name):  # AISBench's avg@n with n spelled out (the mean over all n replicas)
        name = "avg@n"
    m = _K_NAME.match(name)
    if m:
        stem, sep, digits = m.groups()
        canonical = f"{stem}^k" if sep == "^" else f"{stem}@k"
        if "k" in params and params["k"] != int(digits):
            raise ValueError(f"metric {metric!r} names k={digits} but k={params['k']!r} was also given")
        params = {**params, "k": int(digits)}
        name = canonical
    if name in ("avg", "avg@n", "bayes"):
        unknown = set(params) - {"w", "R0", "threshold"}
        if unknown:
            raise _unknown_params(f"metric {name!r} takes no parameters {sorted(unknown)}", unknown)
        return MetricSpec(name, dict(params), "mean")
    if name in _BERNSTEIN:
        unknown = set(params) - {"k"}
        if unknown:
            raise _unknown_params(f"metric {name!r} takes only k, got {sorted(unknown)}", unknown)
        k = _need_k(name, params)
        return MetricSpec(name, {"k": k}, "bernstein", _BERNSTEIN[name](k))
    if name == "g-pass@k":
        unknown = set(params) - {"k", "tau"}
        if unknown:
            raise _unknown_params(f"metric 'g-pass@k' takes k and tau, got {sorted(unknown)}", unknown)
        k = _need_k(name, params)
        tau = V.tau(params.get("tau", 1.0))
        return MetricSpec(name, {"k": k, "tau": tau}, "bernstein", coef.g_pass_tau(k, tau))
    if name == "max@k":
        unknown = set(params) - {"k", "w", "R0"}
        if unknown:
            raise _unknown_params(f"metric 'max@k' takes k and w, got {sorted(unknown)}", unknown)
        k = _need_k(name, params)
        return MetricSpec(name, {**params, "k": k}, "max")
    if name == "geospectrum@k":
        unknown = set(params) - {"k", "lam", "weights"}
        if unknown:
            raise _unknown_params(f"metric 'geospectrum@k' takes k, lam and weights, got {sorted(unknown)}", unknown)
        k = _need_k(name, params)
        lam = V.real(params.get("lam", 0.5), "lam", lo=0.0, hi=1.0)
        weights = params.get("weights")
        spec_c = coef.spectrum(coef.mg_spectrum_weights(k) if weights is None else weights, k)
        return MetricSpec(name, {"k": k, "lam": lam}, "geospectrum", np.column_stack([coef.pass_at_k(k), spec_c]))
    raise ValueError(
        f"unknown metric {metric!r}; expected one of {', '.join(NAMES)} (with @k where needed, e.g. 'pass@8'), "
        "or a payoff vector c[0..k]"
    )
