"""``bayeseval run --until``: a sequential stopping rule (:mod:`bayeseval.sequential`) as the run's stop hook.

The hook receives the score matrix of the questions done so far, in the random order the run drew
(see :mod:`bayeseval.runner.engine`); each new question's mean score (the avg of its ``n`` samples, in
[0, 1]) goes into an anytime-valid confidence sequence for the mean, and the run stops when the rule
holds: ``width 0.05`` (the sequence is that narrow), ``N questions`` / ``N samples`` (budgets), or, with
``null``, ``decided`` (the mean is above or below ``null``).  A question whose every sample failed carries
no score and is skipped (its failures are in the summary).

>>> import numpy as np
>>> stop = sequential_stop("width 0.3")
>>> rng = np.random.default_rng(0)
>>> m = rng.binomial(1, 0.6, size=(200, 4)).astype(float)
>>> verdict, reason = stop(m)
>>> verdict, reason.split(":")[0]
(True, 'stopped after 30 questions (120 samples)')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..sequential import Sequential

__all__ = ["sequential_stop"]


def sequential_stop(until: Any, *, alpha: float = 0.05, null: float | None = None):
    """A ``stop(matrix) -> (bool, reason)`` hook running a :class:`~bayeseval.sequential.Sequential`."""
    seq = Sequential(0.0, 1.0, alpha=alpha, until=until, null=null, name="model")
    fed = [0]

    def stop(matrix: np.ndarray):
        matrix = np.asarray(matrix, dtype=np.float64)
        new = matrix[fed[0]:]
        fed[0] = matrix.shape[0]
        seen = (~np.isnan(new)).sum(axis=1)
        keep = seen > 0
        if keep.any():
            x = np.nansum(new[keep], axis=1) / seen[keep]
            seq.update(x, samples=seen[keep])
        st = seq.status()
        return st.stop, st.reason

    stop.sequence = seq
    return stop
