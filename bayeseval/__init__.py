"""bayeseval: Bayesian metrics with credible intervals for LLM evaluation outcomes.

Start with :func:`to_counts` (outcome matrix -> per-question counts) and the
scorio-compatible metric functions (``pass_at_k``, ``pass_at_k_ci``, ``bayes``,
...), all importable from here.  AISBench's metrics live in
:mod:`bayeseval.aisbench`.
"""

from .counts import Counts, to_counts
from .metrics.bulk import all_metrics
from .metrics.engine import Bernstein
from .metrics.reference import *  # noqa: F401,F403 - the scorio.eval surface
from .results import Estimate, Evaluation, estimate, evaluate
from .compare import Comparison, Ranking, compare, compare_all
from .plan import Plan, plan
from .metrics.reference import __all__ as _reference_all
from .validate import InputTypeError

__version__ = "0.1.0"

__all__ = ["Counts", "to_counts", "Bernstein", "all_metrics", "estimate", "evaluate", "Estimate", "Evaluation", "compare", "compare_all", "plan", "Comparison", "Ranking", "Plan", "InputTypeError", "__version__", *_reference_all]
