"""Starting the service: :func:`serve` (``bayeseval serve``) and :func:`add_serve_parser` for the CLI.

``bayeseval serve`` listens on ``127.0.0.1:8321`` by default (loopback only; port 8000 is left
to model servers).  Limits come from the options or the ``BAYESEVAL_*`` environment variables
(:mod:`bayeseval.service.settings`).

>>> import argparse
>>> sub = argparse.ArgumentParser(prog="bayeseval").add_subparsers(dest="command")
>>> args = add_serve_parser(sub).parse_args(["--port", "9000", "--timeout", "10"])
>>> args.host, args.port, args.timeout
('127.0.0.1', 9000, 10.0)
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import validate as V
from .._argtypes import error_line
from .settings import MAX_PROCESSES, Settings, parse_size

__all__ = ["serve", "add_serve_parser", "cmd_serve", "DEFAULT_HOST", "DEFAULT_PORT"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8321


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, settings: Settings | None = None,
          processes: int = 1, log_level: str = "info", access_log: bool = True) -> None:
    """Run the service with uvicorn until interrupted.

    ``settings`` default to the environment; ``processes`` > 1 starts that many uvicorn
    server processes (each with its own ``settings.workers`` compute workers).
    """
    try:
        import uvicorn
    except ImportError as exc:
        raise ImportError(f"bayeseval serve needs the service extra: pip install 'bayeseval[service]' ({exc})") from None

    settings = Settings.from_env() if settings is None else settings
    kw = dict(host=host, port=port, log_level=log_level, access_log=access_log, timeout_graceful_shutdown=10)
    if processes > 1:
        os.environ.update(settings.to_env())  # the server processes build their app from the environment
        uvicorn.run("bayeseval.service.app:create_app", factory=True, workers=processes, **kw)
    else:
        from .app import create_app

        uvicorn.run(create_app(settings), **kw)


def _size(text: str) -> int:
    try:
        return parse_size(text, "--max-body")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_DESCRIPTION = ("Run the bayeseval HTTP service with uvicorn. Docs page at http://HOST:PORT/docs. "
                "Options override the BAYESEVAL_* environment variables.")
_EPILOG = ("examples:\n  bayeseval serve\n  bayeseval serve --port 9000 --timeout 30\n"
           "  BAYESEVAL_API_KEY=secret bayeseval serve --host 0.0.0.0")


def add_serve_parser(subparsers, **parser_kwargs) -> argparse.ArgumentParser:
    """Add ``serve`` to an argparse ``subparsers`` object (``set_defaults(func=cmd_serve)``) and return it."""
    p = subparsers.add_parser("serve", help="run the HTTP service (metrics, compare, rank, plan, AISBench uploads)",
                              description=_DESCRIPTION, epilog=_EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter, **parser_kwargs)
    _add_options(p)
    return p


def _count(lo: int):
    """argparse type: a whole number of processes in ``[lo, MAX_PROCESSES]``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not lo <= value <= MAX_PROCESSES:
            raise argparse.ArgumentTypeError(f"expected an integer from {lo} to {MAX_PROCESSES}, got {text!r}")
        return value
    return parse


def _add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default=DEFAULT_HOST, help=f"interface to listen on (default {DEFAULT_HOST}: loopback only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--workers", type=_count(0), default=None,
                   help=f"compute processes, 0 to {MAX_PROCESSES} (default 2, env BAYESEVAL_WORKERS)")
    p.add_argument("--processes", type=_count(1), default=1,
                   help=f"uvicorn server processes, 1 to {MAX_PROCESSES} (default 1)")
    p.add_argument("--timeout", type=float, default=None, help="seconds of computation per request (default 60)")
    p.add_argument("--max-body", type=_size, default=None, help="request body limit, e.g. 32MiB (default)")
    p.add_argument("--max-cells", type=int, default=None, help="cap on outcome cells per request (default 4000000)")
    p.add_argument("--api-key-env", metavar="VAR", default=None,
                   help="read the API key from this environment variable (default BAYESEVAL_API_KEY)")
    p.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"))
    p.add_argument("--no-access-log", action="store_true", help="do not log every request")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args) -> int:
    """The ``serve`` subcommand: settings from the environment and the options, then :func:`serve`."""
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    if args.api_key_env and not key:
        raise ValueError(f"--api-key-env {args.api_key_env}: that environment variable is not set")
    try:
        settings = Settings.from_env(api_key=key, workers=args.workers, timeout=args.timeout, max_body=args.max_body,
                                     max_cells=args.max_cells)
    except ValueError as exc:  # an option's value: name the option (--timeout, not timeout)
        for name in ("timeout", "max_cells", "max_body", "workers"):
            if getattr(args, name) is not None and V.slotted(exc, name) is not exc:
                raise V.slotted(exc, name) from None
        raise
    check_address(args.host, args.port)
    serve(args.host, args.port, settings=settings, processes=args.processes, log_level=args.log_level,
          access_log=not args.no_access_log)
    return 0


def check_address(host: str, port: int) -> None:
    """Refuse, before uvicorn starts, a port outside 1..65535, a host that is not an address of this machine,
    and a port already in use: one clear ValueError naming the option (the CLI prints it, exit 2)."""
    import socket

    if not 1 <= int(port) <= 65535:
        raise ValueError(f"--port {port}: a TCP port must be between 1 and 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ValueError(f"--host {host}: not an address or name this machine can listen on ({exc})") from None
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as exc:
            what = "is already in use" if exc.errno in (98, 48, 10048) else f"cannot be used ({exc.strerror})"
            raise ValueError(f"--host {host} --port {port}: that address {what}") from None


def main(argv=None) -> int:
    """``python -m bayeseval.service``: the ``serve`` subcommand on its own."""
    parser = argparse.ArgumentParser(prog="python -m bayeseval.service", description=_DESCRIPTION,
                                     epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_options(parser)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, OSError, ImportError) as exc:  # as `bayeseval serve`: one line, exit 2
        print(f"{parser.prog}: error: {error_line(exc)}", file=sys.stderr)
        return 2
