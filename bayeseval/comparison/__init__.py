"""Comparisons of models on the same questions: paired differences, paired tests, rankings, planning."""

from .paired import Comparison, Delta, compare
from .paired import compare_all, Ranking
from .planning import Plan, plan

__all__ = ["compare", "Comparison", "Delta", "compare_all", "Ranking", "plan", "Plan"]
