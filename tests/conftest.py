"""Shared fixtures, the ``slow`` marker's policy, and the one live HTTP server of the test session.

* ``game24`` -- the bundled Game of 24 outcomes (examples/data/tot_game24.json), read once.
* ``live_service`` -- uvicorn on a free loopback port with :data:`LIVE` settings, started once per
  session and shared by tests/test_service.py, tests/test_service_schema.py and
  tests/test_service_faults.py.

Slow tests (``@pytest.mark.slow`` or a module's ``pytestmark``): MCMC, the live service and its
fuzzing, the examples and papers scripts, large-k agreement, subprocess memory checks, Monte Carlo
checks of posterior moments and intervals, and the largest differential/quadrature grids.
``pytest -m "not slow"`` is the development loop (under a minute); ``pytest`` runs everything.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAME24 = ROOT / "examples" / "data" / "tot_game24.json"

# the live server's settings (tests/test_service.py asserts its caps against these)
LIVE = {"workers": 2, "max_body": 1_000_000, "max_cells": 100_000, "timeout": 5.0, "max_unzipped": 16 * 2**20}


@pytest.fixture(scope="session")
def game24():
    from bayeseval.io import read_outcomes

    return read_outcomes(str(GAME24))


@pytest.fixture(scope="session")
def live_service():
    """Base URL of one uvicorn server (two killable workers) for the whole test session."""
    pytest.importorskip("uvicorn")
    from bayeseval.service.settings import Settings
    from bayeseval.service.testing import running

    with running(Settings(**LIVE)) as base:
        yield base
