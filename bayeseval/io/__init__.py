"""Reading and writing outcome data: every loader returns a labelled :class:`OutcomeSet`.

:func:`load` is the front door (it detects the format); the readers below are
also usable directly.
"""

from .outcomeset import OutcomeSet, Run
from .outcomes import read_outcomes, write_outcomes
from .tables import from_long, read_long, read_model_columns, read_wide
from .aisbench import AISBenchGroupingWarning, read_aisbench, read_aisbench_results
from .opencompass import read_opencompass
from .lm_eval import read_lm_eval
from .inspect_ai import read_inspect, read_inspect_dimensions
from .detect import detect
from .load import load

__all__ = ["OutcomeSet", "Run", "load", "detect", "read_outcomes", "write_outcomes", "from_long", "read_long",
           "read_wide", "read_model_columns", "read_aisbench", "read_aisbench_results", "AISBenchGroupingWarning",
           "read_opencompass", "read_lm_eval", "read_inspect", "read_inspect_dimensions"]
