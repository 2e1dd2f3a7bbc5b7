"""Posteriors of dataset-level metrics: one class per population model behind one interface.

:func:`build` parses the metric and prior, counts the outcomes (a :class:`~bayeseval.Counts` passes
through), and picks the model's class from :data:`REGISTRY` by the prior's kind.  Adding a
population model is one subclass of :class:`Posterior` and one line in :data:`REGISTRY`.
See :mod:`bayeseval.posterior.base` for the interface, the two scopes and the three interval methods.

* ``"beta"`` -- :class:`IndependentBeta` (``beta.py``): ``p_i ~ Beta(alpha0, beta0)`` independently.
* ``"robust"`` (the default for 0/1 outcomes) -- :class:`RobustPosterior` (``robust.py``): a fine-grid
  mixture of Betas fitted to the count histogram; population scope from the unbiased per-question scores.
* ``"hierarchical"`` -- :class:`HierarchicalBetaPosterior` (``hierarchical.py``): ``p_i ~ Beta(mu kappa,
  (1 - mu) kappa)`` with ``(mu, kappa)`` on a grid.
* ``"dirichlet"`` -- :class:`DirichletPosterior` (``dirichlet.py``): ``p_i ~ Dirichlet(1 + R0_i)``
  independently (Bayes@N, categorical avg, max@k).
* ``"hierarchical-dirichlet"`` -- :class:`HierarchicalDirichletPosterior` (``hdirichlet.py``):
  ``p_i ~ Dirichlet(s m)`` with ``(s, m)`` from their posterior.

The Beta models share :class:`~bayeseval.posterior.binary._BinaryPosterior`, the Dirichlet models
:class:`~bayeseval.posterior.categorical._CategoricalPosterior`.

>>> import numpy as np
>>> post = build(np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1]]), "pass@2", prior="uniform")
>>> type(post).__name__, round(post.moments("benchmark")[0], 4)
('IndependentBeta', 0.7778)
"""

from __future__ import annotations

from typing import Any

from .. import validate as V
from ..counts import Counts, to_counts
from ..priors import PriorSpec, resolve_prior
from ..targets import MetricSpec, parse
from .base import ATOMS, EXACT_GROUP, METHODS, SCOPES, Posterior, interval_from_draws
from .beta import IndependentBeta
from .dirichlet import DirichletPosterior
from .hdirichlet import HierarchicalDirichletPosterior
from .hierarchical import HierarchicalBetaPosterior
from .robust import RobustPosterior

__all__ = ["Posterior", "build", "posterior_for", "REGISTRY", "interval_from_draws", "SCOPES", "METHODS",
           "EXACT_GROUP", "ATOMS", "IndependentBeta", "HierarchicalBetaPosterior", "DirichletPosterior",
           "HierarchicalDirichletPosterior", "RobustPosterior"]

# prior kind (PriorSpec.kind) -> the population model's class
REGISTRY: dict[str, type[Posterior]] = {
    "beta": IndependentBeta,
    "hierarchical": HierarchicalBetaPosterior,
    "robust": RobustPosterior,
    "dirichlet": DirichletPosterior,
    "hierarchical-dirichlet": HierarchicalDirichletPosterior,
}


def posterior_for(counts: Counts, spec: MetricSpec, prior: PriorSpec, *, w: Any = None, R0: Any = None) -> Posterior:
    """The posterior of ``spec`` on ``counts`` under ``prior`` (already resolved), from :data:`REGISTRY`."""
    try:
        cls = REGISTRY[prior.kind]
    except KeyError:
        raise ValueError(f"no population model is registered for prior kind {prior.kind!r}; "
                         f"known: {sorted(REGISTRY)}") from None
    return cls(counts, spec, prior, w=w, R0=R0)


def _beta_prior_asked(prior: Any, alpha0: Any, beta0: Any) -> bool:
    """Whether the caller asked for a prior of 0/1 outcomes (a Beta pair, Jeffreys, alpha0/beta0, hierarchical)."""
    if alpha0 is not None or beta0 is not None:
        return True
    if isinstance(prior, str):
        return prior.strip().lower() in ("jeffreys", "hierarchical", "pooled", "beta", "robust")
    return prior is not None and hasattr(prior, "__len__") and len(prior) == 2


def build(R: Any, metric: Any, *, prior=None, alpha0=None, beta0=None, w=None, R0=None, **metric_params) -> Posterior:
    """Parse the metric and prior, count ``R`` once, and build the :class:`Posterior`."""
    if isinstance(metric, MetricSpec):
        spec = metric
    else:
        spec = parse(metric, **metric_params)
    w = spec.params.get("w", w)
    R0 = spec.params.get("R0", R0)
    if spec.name == "avg@n" and "threshold" in spec.params:
        from ..aisbench import hard_outcomes

        R = hard_outcomes(R, spec.params["threshold"], name="R")
    counts = to_counts(R, w)
    if w is not None and counts.is_binary and _beta_prior_asked(prior, alpha0, beta0) and R0 is None:
        wv = V.weights(w)
        if wv.size == 2 and wv[0] == 0.0 and wv[1] == 1.0:
            w = None  # 0/1 outcomes scored 0 and 1 are binary outcomes: the Beta prior asked for applies
        else:
            raise ValueError(f"a Beta prior (prior={prior!r}, alpha0={alpha0!r}, beta0={beta0!r}) is for 0/1 "
                             f"outcomes scored 0 and 1; with weights w={wv.tolist()} they are scored categories: "
                             "use prior='dirichlet' or 'hierarchical-dirichlet', or drop w")
    binary_data = w is None and counts.is_binary
    if spec.name == "bayes":
        if prior not in (None, "uniform", "dirichlet") or alpha0 is not None or beta0 is not None:
            raise ValueError("Bayes@N is defined by its Dirichlet(1 + R0) prior; use metric='avg' for other priors")
        pspec = PriorSpec("dirichlet")
    elif spec.kind in ("mean", "max") and not binary_data:
        pspec = resolve_prior(prior, alpha0, beta0, binary=False)
        if prior is None and spec.kind == "mean" and R0 is None:
            pspec = PriorSpec("hierarchical-dirichlet")  # avg / avg@n: pooled across questions by default
        if pspec.kind == "hierarchical-dirichlet" and spec.kind != "mean":
            raise ValueError(f"prior='hierarchical-dirichlet' supports avg / avg@n; "
                             f"{spec.label} uses the Dirichlet prior")
    else:
        pspec = resolve_prior(prior, alpha0, beta0, binary=True)
    if spec.kind == "max" and w is None and pspec.kind != "dirichlet":
        # max@k of 0/1 outcomes is pass@k: computed as such, still labelled as asked
        spec = MetricSpec("max@k", {"k": spec.k}, "bernstein", parse("pass@k", k=spec.k).coefficients)
    if pspec.kind == "dirichlet" and spec.kind == "mean" and binary_data and spec.name != "bayes":
        pspec = PriorSpec("beta", 1.0, 1.0)
    if R0 is not None and pspec.kind != "dirichlet":
        raise ValueError("R0 (prior outcomes) applies to the Dirichlet prior of Bayes@N / categorical metrics")
    if pspec.kind == "dirichlet" and spec.kind in ("bernstein", "geospectrum"):
        raise ValueError(f"{spec.label} needs binary outcomes and a Beta or hierarchical prior")
    return posterior_for(counts, spec, pspec, w=w, R0=R0)
