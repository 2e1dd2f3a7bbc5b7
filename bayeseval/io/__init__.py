"""Reading and writing outcome data."""

from .outcomes import OutcomeFile, read_outcomes, write_outcomes

__all__ = ["OutcomeFile", "read_outcomes", "write_outcomes"]
