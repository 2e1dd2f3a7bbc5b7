"""``python -m bayeseval.runner DATASET ...``: the ``bayeseval run`` command on its own."""

import sys

from .command import main

sys.exit(main())
