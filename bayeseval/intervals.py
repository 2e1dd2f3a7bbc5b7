"""Interval helpers shared by the metric functions.

The scorio-compatible ``*_ci`` functions report the normal approximation
``mu +- z * sigma`` (``z`` the ``(1 + confidence) / 2`` standard-normal
quantile), clipped to ``bounds``; clipping moves both ends into the bounds, so
the interval never inverts.

>>> lo, hi = normal_interval(0.7, 0.1658, 0.95, (0.0, 1.0))
>>> round(lo, 4), hi
(0.375, 1.0)
"""

from __future__ import annotations

import math

from scipy.special import ndtri

from . import validate as V

__all__ = ["normal_interval", "z_value"]


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile for a credibility level."""
    confidence = V.confidence(confidence)
    return float(ndtri(0.5 + 0.5 * confidence))


def normal_interval(mu: float, sigma: float, confidence: float, bounds) -> tuple[float, float]:
    """Central normal-approximation interval, clipped to ``bounds`` (or not, if None)."""
    z = z_value(confidence)
    if not (math.isfinite(mu) and math.isfinite(sigma)) or sigma < 0:
        raise FloatingPointError(f"internal error: non-finite posterior summary ({mu!r}, {sigma!r})")
    lo, hi = mu - z * sigma, mu + z * sigma
    if bounds is not None:
        b_lo, b_hi = bounds
        lo = min(max(lo, b_lo), b_hi)
        hi = min(max(hi, b_lo), b_hi)
    return float(lo), float(hi)
