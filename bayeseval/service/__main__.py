"""``python -m bayeseval.service [--host H] [--port P] ...``: the same as ``bayeseval serve``."""

import sys

from .server import main

if __name__ == "__main__":
    sys.exit(main())
