"""Comparisons of models on the same questions.

* :mod:`~bayeseval.comparison.paired` -- :func:`compare` (two models) and its :class:`Comparison`;
* :mod:`~bayeseval.comparison.paired_tests` -- the paired tests, each a :class:`TestResult`, and the
  one p-value adjustment;
* :mod:`~bayeseval.comparison.ranking` -- :func:`compare_all` (many models) and its :class:`Ranking`;
* :mod:`~bayeseval.comparison.planning` -- :func:`plan` (study size from a pilot) and its :class:`Plan`;
* :mod:`~bayeseval.comparison.joint` -- joint posteriors of several models on the same questions.
"""

from .paired import Comparison, Delta, compare
from .paired_tests import TestResult, adjust
from .planning import Plan, plan
from .ranking import Ranking, compare_all

__all__ = ["compare", "Comparison", "Delta", "compare_all", "Ranking", "plan", "Plan", "TestResult", "adjust"]
