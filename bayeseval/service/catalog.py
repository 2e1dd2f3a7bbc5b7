"""``GET /v1/catalog``: the metrics the library knows (:data:`bayeseval.targets.NAMES`) and their parameters.

Each entry is checked against :func:`bayeseval.targets.parse` when the catalog is built, so a metric
the library renames or drops cannot linger here.

>>> names = [m["name"] for m in catalog()["metrics"]]
>>> names[:4], "custom" in names
(['avg', 'avg@n', 'bayes', 'pass@k'], True)
"""

from __future__ import annotations

from functools import lru_cache

from bayeseval import __version__, targets
from bayeseval.posterior import METHODS, SCOPES
from bayeseval.results import ESTIMATE_INTERVALS

from .schemas import LIMITS

__all__ = ["catalog"]

_K = {"name": "k", "type": "integer", "required": True, "minimum": 1,
      "description": "trials per attempt; also written into the name ('pass@8')"}
_DOC = {
    "avg": ("mean score p (or the mean category weight with weights)", []),
    "avg@n": ("AISBench's name for avg", []),
    "bayes": ("Bayes@N: avg under a Dirichlet(1 + R0) prior", []),
    "pass@k": ("1 - (1 - p)^k: at least one of k trials correct", [_K]),
    "pass^k": ("p^k: all of k trials correct (tau-bench's pass^k)", [_K]),
    "maj@k": ("more than k/2 of k trials correct", [_K]),
    "cons@k": ("AISBench's name for maj@k", [_K]),
    "mg-pass@k": ("mG-Pass@k", [_K]),
    "auc@k": ("trapezoidal area under pass@1..pass@k", [_K]),
    "g-pass@k": ("G-Pass@k: at least ceil(tau k) of k trials correct",
                 [_K, {"name": "tau", "type": "number", "required": False, "minimum": 0, "maximum": 1,
                       "default": 1.0, "description": "threshold"}]),
    "max@k": ("expected best category weight of k samples (pass@k for 0/1 outcomes)", [_K]),
    "geospectrum@k": ("Pass@k^lam * S_w,k^(1-lam), dataset level",
                      [_K, {"name": "lam", "type": "number", "required": False, "minimum": 0, "maximum": 1,
                            "default": 0.5, "description": "mixing exponent"},
                       {"name": "weights", "type": "array", "required": False,
                        "description": "spectrum weights (default: mG-Pass weights)"}]),
}
_EXAMPLE = {"k": 4, "tau": 0.5, "lam": 0.5}


@lru_cache(maxsize=1)
def _metrics() -> tuple:
    out = []
    for name in targets.NAMES:
        description, params = _DOC.get(name, ("", []))
        example = {p["name"]: _EXAMPLE[p["name"]] for p in params if p["name"] in _EXAMPLE}
        spec = targets.parse(name, **example)  # fails loudly if the library no longer knows the name
        out.append({"name": name, "description": description, "parameters": params, "kind": spec.kind,
                    "example": {"name": name, **example} if example else name,
                    "needs_binary": spec.kind in ("bernstein", "geospectrum")})
    out.append({"name": "custom", "description": "payoff vector c[0..k]: c[j] is the payoff when j of k trials "
                                                 "are correct", "kind": "bernstein", "needs_binary": True,
                "parameters": [{"name": "payoff", "type": "array", "required": True,
                                "description": "k + 1 finite numbers"}],
                "example": {"payoff": [0, 0, 1, 1]}})
    return tuple(out)


def catalog(limits: dict | None = None) -> dict:
    """The catalog document (``limits``: the instance's configurable limits, shown beside the schema bounds)."""
    return {"version": __version__, "metrics": list(_metrics()), "scopes": list(SCOPES), "intervals": list(METHODS),
            "estimate_intervals": list(ESTIMATE_INTERVALS),
            "priors": [None, "robust", "hierarchical", "uniform", "jeffreys", "dirichlet", "hierarchical-dirichlet", "[alpha0, beta0]"],
            "limits": {**LIMITS, **(limits or {})}}
