"""The bayeseval HTTP service (FastAPI): metrics, comparisons, rankings, study plans and AISBench
uploads over HTTP, computed by the library (the service only translates).

Start it with ``bayeseval serve`` (``127.0.0.1:8321``) or, from Python,
``bayeseval.service.serve(port=8321)``; :func:`create_app` gives the ASGI app.
Needs the ``service`` extra: ``pip install 'bayeseval[service]'``.

Modules: :mod:`~bayeseval.service.app` (routes), :mod:`~bayeseval.service.schemas` (request and
response bodies), :mod:`~bayeseval.service.tasks` (request -> library call),
:mod:`~bayeseval.service.limits` (body size, API key, cell cap, safe unzip),
:mod:`~bayeseval.service.workers` (compute processes, time limit),
:mod:`~bayeseval.service.settings`, :mod:`~bayeseval.service.server` (``bayeseval serve``).
"""

from importlib import import_module

__all__ = ["create_app", "serve", "add_serve_parser", "Settings"]

_WHERE = {"create_app": "app", "serve": "server", "add_serve_parser": "server", "Settings": "settings"}


def __getattr__(name: str):  # imported on first use: worker processes import only what they need
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
