"""Run the service on a free loopback port inside this process (tests, notebooks, embedding).

>>> import httpx
>>> with running(Settings(workers=0)) as url:
...     httpx.get(url + "/healthz").json()["status"]
'ok'
"""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from typing import Iterator

from .settings import Settings

__all__ = ["running"]


@contextmanager
def running(settings: Settings | None = None, host: str = "127.0.0.1", startup_timeout: float = 60.0) -> Iterator[str]:
    """Start uvicorn in a thread on a free port of ``host``; yield the base URL; stop it on exit."""
    import uvicorn

    from .app import create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP: asyncio sets TCP_NODELAY
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(settings or Settings()), log_level="warning", access_log=False,
                            lifespan="on", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="bayeseval-uvicorn")
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the bayeseval service did not start")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
