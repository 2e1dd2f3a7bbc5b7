"""Anytime-valid sequential evaluation: monitor, stop early, replay.

* :class:`BettingCS` -- a confidence sequence for a bounded mean (Waudby-Smith & Ramdas 2024);
* :class:`Sequential` / :class:`SequentialCompare` -- one model's mean score or the paired difference
  A - B, with stopping rules stated in words (:func:`parse_until`);
* :func:`question_values` -- one unbiased score per question from outcome matrices (avg, pass@k, ...);
* :func:`replay` -- a finished paired run replayed as if sampled live: samples saved, error rates;
* :mod:`bayeseval.sequential.allocation` -- :func:`~bayeseval.sequential.allocation.trial_values` (which
  question and model should get the next trial) and :func:`~bayeseval.sequential.allocation.design` (new
  questions or more trials), closed form under the Beta-binomial posterior.
"""

from .confseq import BettingCS, capital_at
from .monitor import Sequential, SequentialCompare, Status, StopRule, parse_until
from .replay import Replay, replay
from .scoring import question_values, unbiased_table

__all__ = ["BettingCS", "capital_at", "Sequential", "SequentialCompare", "Status", "StopRule", "parse_until",
           "Replay", "replay", "question_values", "unbiased_table"]
