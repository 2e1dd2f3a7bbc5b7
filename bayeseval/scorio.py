"""The scorio.eval-compatible functions, under scorio's names, argument names and return shapes.

``from bayeseval.scorio import pass_at_k_ci`` (or ``from bayeseval import pass_at_k_ci``) is a
drop-in for ``scorio.eval``: point functions return the unbiased finite-sample estimate, ``*_ci``
functions ``(mu, sigma, lo, hi)`` in the benchmark scope.  See :mod:`bayeseval.metrics.reference`
for the formulas and the deliberate differences from scorio.

>>> import numpy as np
>>> from bayeseval.scorio import pass_at_k
>>> pass_at_k(np.array([[1, 0, 0, 1], [0, 0, 0, 0]]), 2)
0.4166666666666667
"""

from .metrics.reference import *  # noqa: F401,F403
from .metrics.reference import __all__  # noqa: F401
