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
  independently (Bayes@N, categorical avg with ``prior="dirichlet"`` or ``R0``, max@k with ``prior="dirichlet"``
  or where some question has fewer than k trials).
* ``"hierarchical-dirichlet"`` -- :class:`HierarchicalDirichletPosterior` (``hdirichlet.py``):
  ``p_i ~ Dirichlet(s m)`` with ``(s, m)`` from their posterior.

The Beta models share :class:`~bayeseval.posterior.binary._BinaryPosterior`, the Dirichlet models
:class:`~bayeseval.posterior.categorical._CategoricalPosterior`.  Two models are picked by the outcomes rather than
the prior: continuous scores take :class:`ScorePosterior` (``scores.py``), and max@k of scored categories with at
least k trials on every question :class:`MaxAtKPosterior` (``maxk.py``, reported as ``"robust"``): both centred at
the unbiased estimate, with no shape assumed for the pool.

>>> import numpy as np
>>> post = build(np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1]]), "pass@2", prior="uniform")
>>> type(post).__name__, round(post.moments("benchmark")[0], 4)
('IndependentBeta', 0.7778)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import validate as V
from ..counts import Counts, to_counts
from ..priors import PriorSpec, resolve_prior
from ..scores import (Scores, binarise, looks_continuous, names_avg_at_n, score_range_arg, threshold_below_top,
                      to_outcomes)
from ..targets import MetricSpec, parse
from .base import ATOMS, EXACT_GROUP, METHODS, SCOPES, Posterior, interval_from_draws
from .beta import IndependentBeta
from .dirichlet import DirichletPosterior
from .hdirichlet import HierarchicalDirichletPosterior
from .hierarchical import HierarchicalBetaPosterior
from .robust import RobustPosterior
from .maxk import MaxAtKPosterior
from .scores import ScorePosterior

__all__ = ["Posterior", "build", "posterior_for", "REGISTRY", "interval_from_draws", "SCOPES", "METHODS",
           "EXACT_GROUP", "ATOMS", "IndependentBeta", "HierarchicalBetaPosterior", "DirichletPosterior",
           "HierarchicalDirichletPosterior", "RobustPosterior", "ScorePosterior", "MaxAtKPosterior"]

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


def _asks_robust(prior: Any) -> bool:
    return isinstance(prior, str) and prior.strip().lower() in ("robust", "mixture", "nonparametric")


def _beta_prior_asked(prior: Any, alpha0: Any, beta0: Any) -> bool:
    """Whether the caller asked for a prior of 0/1 outcomes (a Beta pair, Jeffreys, alpha0/beta0, hierarchical)."""
    if alpha0 is not None or beta0 is not None:
        return True
    if isinstance(prior, str):
        return prior.strip().lower() in ("jeffreys", "hierarchical", "pooled", "beta", "robust")
    return prior is not None and hasattr(prior, "__len__") and len(prior) == 2


def build(R: Any, metric: Any, *, prior=None, alpha0=None, beta0=None, w=None, R0=None, score_range=None,
          missing=None, ragged=False, **metric_params) -> Posterior:
    """Parse the metric and prior, count ``R`` once, and build the :class:`Posterior`.

    Scores (a :class:`~bayeseval.scores.Scores`, ``score_range=(lo, hi)``, or any value that is not an
    integer) take :class:`~bayeseval.posterior.scores.ScorePosterior`; ``threshold=t`` (any metric but
    ``avg@n``, whose own parameter it is) first turns scores into 0/1 outcomes, ``score > t`` (AISBench's
    convention), explicitly; ``missing`` / ``ragged`` say which of the raw scores are unobserved there."""
    threshold = None
    if "threshold" in metric_params and not names_avg_at_n(metric):
        threshold = metric_params.pop("threshold")
    if isinstance(metric, MetricSpec):
        spec = metric
    else:
        spec = parse(metric, **metric_params)
    if threshold is not None:
        R = to_counts(binarise(R, threshold, score_range=score_range, missing=missing, ragged=ragged),
                      missing=np.nan)
        # the label says what was counted (avg (threshold=0.5) and avg are two rows of a table, not one)
        spec = spec.thresholded(V.real(threshold, "threshold"))
    elif not (spec.name == "avg@n" and "threshold" in spec.params) and (
            isinstance(R, Scores) or score_range is not None or looks_continuous(R)):
        return _score_posterior(R, spec, prior, alpha0, beta0, w, R0, score_range)
    w = spec.params.get("w", w)
    R0 = spec.params.get("R0", R0)
    if spec.name == "avg@n" and "threshold" in spec.params:
        from ..aisbench import hard_outcomes

        threshold_below_top(spec.params["threshold"], 0.0, 1.0)  # AISBench's soft scores lie in [0, 1]
        R = hard_outcomes(R, spec.params["threshold"], name="R")
    counts = to_counts(R, w)
    if w is not None and spec.kind in ("bernstein", "geospectrum"):
        wv = V.weights(w)
        if not counts.is_binary:
            shown = ", ".join(f"{v:g}" for v in wv[:6]) + (", ..." if wv.size > 6 else "")
            raise V.ArgumentError("{label} needs 0/1 outcomes; these have {size} categories scored {shown} (grades or "
                                  "partial credit): threshold them first (read as scores with {score_range} and "
                                  "count those above {threshold} as correct), or use avg (or max@k) for scored "
                                  "categories", "score_range", "threshold", label=spec.label, size=wv.size,
                                  shown=shown)
        if not (wv.size == 2 and wv[0] == 0.0 and wv[1] == 1.0):
            raise ValueError(f"w: {spec.label} counts the correct trials of 0/1 outcomes and has no use for category "
                             f"weights (got w={wv.tolist()}); drop w, or use avg (or max@k) for weighted categories")
        w = None  # 0/1 outcomes scored 0 and 1: the metric's own reading
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
    elif spec.kind == "max" and not binary_data and w is not None and R0 is None and alpha0 is None and \
            beta0 is None and (prior is None or _asks_robust(prior)):
        if int(counts.n.min()) >= spec.k:  # centred at the unbiased estimate (maxk.py)
            return MaxAtKPosterior(counts, spec, PriorSpec("robust"), w=w)
        if prior is not None:
            raise ValueError(f"prior={prior!r} for {spec.label} needs at least {spec.k} trials on every question "
                             f"(the fewest here: {int(counts.n.min())}); prior='dirichlet' extrapolates with a "
                             "Dirichlet(1) prior per question")
        pspec = resolve_prior(None, None, None, binary=False)  # k > n: the Dirichlet posterior (the reference's)
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


def _score_posterior(R, spec: MetricSpec, prior, alpha0, beta0, w, R0, score_range) -> Posterior:
    """Scores: the mean score only, with no Beta or Dirichlet prior (the score model assumes no shape)."""
    scores = to_outcomes(R, score_range=score_range_arg(score_range), scores=True)
    if spec.name == "avg@n":
        raise V.ArgumentError("avg@n counts a replica correct when its score exceeds a threshold (AISBench): give "
                              "{threshold} (0.5 there), or use metric='avg' for the mean score", "threshold")
    if spec.kind != "mean" or spec.name == "bayes":
        raise V.ArgumentError("{label} needs 0/1 outcomes; these are scores in [{lo:g}, {hi:g}] (a value that is not "
                              "0 or 1, or {score_range} was given): use metric='avg' for the mean score, or give "
                              "{threshold} t to count a trial correct when its score > t", "score_range", "threshold",
                              label=spec.label, lo=scores.lo, hi=scores.hi)
    if w is not None or R0 is not None:
        raise ValueError("w and R0 are for categorical outcomes; scores are used as they are")
    if alpha0 is not None or beta0 is not None or prior not in (None, "robust"):
        raise ValueError(f"prior={prior!r} (alpha0={alpha0!r}, beta0={beta0!r}) is a prior for 0/1 or categorical "
                         "outcomes; the mean score assumes no shape (leave prior unset)")
    return ScorePosterior(scores, spec, PriorSpec("robust"))
