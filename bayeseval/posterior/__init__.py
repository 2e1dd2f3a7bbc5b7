"""Posteriors of dataset-level metrics: one class per population model behind one interface."""

from .core import ATOMS, EXACT_GROUP, METHODS, SCOPES, Posterior, build, interval_from_draws

__all__ = ["Posterior", "build", "interval_from_draws", "SCOPES", "METHODS", "EXACT_GROUP", "ATOMS"]
