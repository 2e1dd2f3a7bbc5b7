"""Anytime-valid sequential evaluation: monitor, stop early, replay.

* :class:`BettingCS` -- a confidence sequence for a bounded mean (Waudby-Smith & Ramdas 2024);
* :class:`Sequential` / :class:`SequentialCompare` -- one model's mean score or the paired difference
  A - B, with stopping rules stated in words (:func:`parse_until`);
* :func:`monitor` -- the same from outcome matrices, questions in run order;
* :func:`replay` -- a finished paired run replayed as if sampled live: samples saved, error rates;
* :func:`allocation` -- which question and model should get the next trial, and whether new questions
  beat more trials (closed form under the Beta-binomial posterior).
"""

from .confseq import BettingCS, capital_at
from .monitor import Sequential, SequentialCompare, Status, StopRule, parse_until
from .replay import Replay, replay
from .scoring import question_values, unbiased_table

__all__ = ["BettingCS", "capital_at", "Sequential", "SequentialCompare", "Status", "StopRule", "parse_until",
           "Replay", "replay", "question_values", "unbiased_table"]
