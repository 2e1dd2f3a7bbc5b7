"""Pairwise preferences and judge-labelled data.

* :mod:`.data`: :class:`Preferences` from long tables (:func:`from_long`, Arena / MT-Bench battle logs via
  :func:`read_battles`) or one column per judge (:func:`from_wide`, PandaLM);
* :func:`win_rate`: two systems head to head -- win rate with ties split or excluded, P(A preferred) in
  closed form, both scopes, position bias, sign / sign-flip tests and the clustered bootstrap;
* :func:`bradley_terry`: K systems -- Bradley-Terry / Davidson strengths with a Laplace posterior, rank
  probabilities, P(best), expected ranks, Elo-scale ratings, disconnected designs refused;
* :func:`ppi_mean` and :func:`judge_agreement`: accuracy from judge labels with a human-labelled subset
  (prediction-powered inference, PPI++) and the judge's agreement with humans.
"""

from .data import Preferences, from_long, from_wide, read_battles
from .judge import Agreement, PPIMean, judge_agreement, ppi_mean, ppi_mean_by_item
from .strengths import Strengths, bradley_terry
from .two import WinRate, win_rate

__all__ = ["Preferences", "from_long", "from_wide", "read_battles", "win_rate", "WinRate", "bradley_terry", "Strengths",
           "ppi_mean", "ppi_mean_by_item", "PPIMean", "judge_agreement", "Agreement"]
