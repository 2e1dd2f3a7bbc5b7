"""Reading and writing outcome data: every loader returns a labelled :class:`OutcomeSet`."""

from .outcomeset import OutcomeSet, Run
from .outcomes import read_outcomes, write_outcomes

__all__ = ["OutcomeSet", "Run", "read_outcomes", "write_outcomes"]
