"""Faults are 4xx/503 with a reason, never 500: a worker killed mid-request, and `serve` on a bad address."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from bayeseval.service.settings import Settings  # noqa: E402
from bayeseval.service.testing import running  # noqa: E402
from test_service import _worker_pids  # noqa: E402

pytestmark = pytest.mark.slow


def test_a_worker_killed_mid_request_is_503_with_retry_after_and_the_pool_recovers():
    s = np.random.default_rng(0).binomial(40, 0.5, 3000)
    slow = {"models": {f"m{i}": {"counts": np.column_stack([40 - s, s]).tolist()} for i in range(8)},
            "scope": "benchmark", "metric": "pass@64", "draws": 100_000, "resamples": 100_000, "pairs": "all",
            "test": "bootstrap"}  # pass@64 from 40 trials: extrapolated, seconds per model
    before = _worker_pids()
    with running(Settings(workers=1, timeout=60)) as base, httpx.Client(base_url=base, timeout=90) as c:
        mine = _worker_pids() - before
        assert len(mine) == 1
        box = {}
        t = threading.Thread(target=lambda: box.update(r=c.post("/v1/rank", json=slow)))
        t.start()
        time.sleep(1.5)  # the request is computing in the worker
        os.kill(next(iter(mine)), signal.SIGKILL)  # as the OOM killer would
        t.join(60)
        r = box["r"]
        assert r.status_code == 503, r.text
        assert r.headers.get("retry-after") == "2"
        err = r.json()["error"]
        assert err["type"] == "worker_lost" and "retry" in err["message"]
        for _ in range(3):  # a replacement serves the next requests
            ok = c.post("/v1/plan", json={"a": {"matrix": [[1, 0], [0, 0], [1, 1]]}})
            assert ok.status_code == 200, ok.text


def _serve(*args):
    return subprocess.run([sys.executable, "-m", "bayeseval.cli", "serve", *args], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("args, needle", [(["--port", "99999"], "--port 99999"),
                                          (["--port", "0"], "--port 0"),
                                          (["--host", "999.1.1.1"], "--host 999.1.1.1")])
def test_serve_refuses_a_bad_address_in_one_line(args, needle):
    r = _serve(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in r.stderr


def test_serve_refuses_a_busy_port_in_one_line():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = _serve("--port", str(port))
    assert r.returncode == 2 and "already in use" in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1"])
def test_a_body_that_is_not_utf8_is_400(live_service, encoding):
    text = '{"models": {"ä": {"matrix": [[1, 0], [0, 1]]}}}'
    with httpx.Client(base_url=live_service, timeout=30) as c:
        r = c.post("/v1/metrics", content=text.encode(encoding), headers={"Content-Type": "application/json"})
        assert r.status_code == 400, r.text
        err = r.json()["error"]
        assert err["type"] == "invalid_json" and err["field"] == "body" and "UTF-8" in err["message"]
        ok = c.post("/v1/metrics", content=text.encode("utf-8"), headers={"Content-Type": "application/json"})
        assert ok.status_code == 200, ok.text
