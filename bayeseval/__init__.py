"""bayeseval: Bayesian metrics with credible intervals, and sound comparisons, for LLM evaluation outcomes.

The object API comes first:

* :func:`estimate` (one metric, one model) and :func:`evaluate` (many metrics and models) return
  :class:`Estimate` / :class:`Evaluation`;
* :func:`compare` (two models, paired) returns a :class:`Comparison`, :func:`compare_all` (many
  models) a :class:`Ranking`, :func:`plan` (study size from a pilot) a :class:`Plan`;
* :func:`load` reads evaluation outputs into an :class:`~bayeseval.io.OutcomeSet`;
  :func:`to_counts` turns outcomes into the per-question :class:`Counts` everything works from.

Every result offers ``summary()``, ``to_dict()``, a numeric ``to_frame()`` and, where an interval
exists, ``confidence_interval(level=None, method=None)``.  The scorio-compatible functions
(``pass_at_k``, ``pass_at_k_ci``, ``bayes``, ...) live in :mod:`bayeseval.scorio` and are importable
from here too, for drop-in use.
"""

from .results import Estimate, Evaluation, ModelCheckWarning, estimate, evaluate
from .comparison import Comparison, Plan, Ranking, compare, compare_all, plan
from .counts import Counts, to_counts
from .scores import Scores, to_scores
from .validate import LIMITS, InputTypeError, set_limits
from .metrics.bulk import all_metrics
from .metrics.engine import Bernstein
from .scorio import *  # noqa: F401,F403 - the scorio.eval surface, for drop-in use
from .scorio import __all__ as _scorio_all

__version__ = "0.1.0"

__all__ = [
    "estimate", "evaluate", "compare", "compare_all", "plan", "load", "to_counts", "to_scores",
    "Estimate", "Evaluation", "Comparison", "Ranking", "Plan", "Counts", "Scores",
    "all_metrics", "Bernstein", "InputTypeError", "set_limits", "LIMITS", "__version__",
    *_scorio_all,
]


def __getattr__(name: str):
    # the loaders pull in pandas and the vendor readers: loaded on first use, not on `import bayeseval`
    if name == "load":
        from .io.load import load

        return load
    raise AttributeError(f"module 'bayeseval' has no attribute {name!r}")
