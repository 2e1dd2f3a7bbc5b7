"""Service configuration: :class:`Settings`, from keywords or ``BAYESEVAL_*`` environment variables.

=========================  ======================  ==================================================
environment variable       default                 meaning
=========================  ======================  ==================================================
``BAYESEVAL_API_KEY``      (none: open)            required ``X-API-Key`` header on ``/v1/*``
``BAYESEVAL_MAX_BODY``     ``32MiB``               request-body limit (bytes; ``k``/``M``/``MiB`` ok) -> 413
``BAYESEVAL_MAX_CELLS``    ``4000000``             cap on outcome cells (M x N summed over models) -> 422
``BAYESEVAL_TIMEOUT``      ``60``                  seconds of computation per request -> 422
``BAYESEVAL_WORKERS``      ``2``                   compute processes (0: threads in the server process)
``BAYESEVAL_MAX_ZIP_FILES`` ``10000``              entries of an uploaded zip
``BAYESEVAL_MAX_UNZIPPED`` ``512MiB``              uncompressed size of an uploaded zip
=========================  ======================  ==================================================

>>> s = Settings.from_env({"BAYESEVAL_MAX_BODY": "1MiB", "BAYESEVAL_TIMEOUT": "2.5"})
>>> s.max_body, s.timeout, s.api_key
(1048576, 2.5, None)
>>> Settings.from_env({"BAYESEVAL_MAX_CELLS": "lots"})
Traceback (most recent call last):
...
ValueError: BAYESEVAL_MAX_CELLS must be a positive integer, got 'lots'
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, fields, replace
from typing import Mapping

__all__ = ["Settings", "parse_size", "MAX_PROCESSES"]

MAX_PROCESSES = 64  # compute workers and server processes: more is a typo, not a machine (100000 forked until killed)

_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "kib": 2**10, "m": 10**6, "mb": 10**6, "mib": 2**20,
          "g": 10**9, "gb": 10**9, "gib": 2**30}


def parse_size(text: str | int, name: str = "size") -> int:
    """Bytes from ``"1048576"``, ``"512k"``, ``"32MiB"`` or ``"1GB"``.

    >>> parse_size("32MiB"), parse_size("2k"), parse_size(10)
    (33554432, 2000, 10)
    """
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", str(text))
        if not m or m.group(2).lower() not in _UNITS:
            raise ValueError(f"{name} must be a size in bytes such as 1048576, 512k or 32MiB, got {text!r}")
        value = int(m.group(1)) * _UNITS[m.group(2).lower()]
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {text!r}")
    return value


def _positive_int(text: str, name: str, minimum: int = 1) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < minimum:
        what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {what}, got {text!r}")
    return value


def _positive_float(text: str, name: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise ValueError(f"{name} must be a positive number of seconds, got {text!r}")
    return value


@dataclass(frozen=True)
class Settings:
    """Limits and access control of one service instance (see the module table for the defaults)."""

    api_key: str | None = None
    max_body: int = 32 * 2**20
    max_cells: int = 4_000_000
    timeout: float = 60.0
    workers: int = 2
    max_zip_files: int = 10_000
    max_unzipped: int = 512 * 2**20

    def __post_init__(self):
        if self.api_key is not None and not (isinstance(self.api_key, str) and self.api_key):
            raise ValueError("api_key must be a non-empty string or None")
        for name in ("max_body", "max_cells", "max_zip_files", "max_unzipped"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        w = self.workers
        if isinstance(w, bool) or not isinstance(w, int) or not 0 <= w <= MAX_PROCESSES:
            raise ValueError(f"workers must be an integer from 0 to {MAX_PROCESSES} (compute processes), got "
                             f"{self.workers!r}")
        if not (isinstance(self.timeout, (int, float)) and 0 < self.timeout < float("inf")):
            raise ValueError(f"timeout must be a positive number of seconds, got {self.timeout!r}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides) -> "Settings":
        """Defaults, then ``BAYESEVAL_*`` variables from ``env`` (default ``os.environ``), then ``overrides``
        (keywords whose value is None are ignored)."""
        env = os.environ if env is None else env
        kw: dict = {}
        if env.get("BAYESEVAL_API_KEY"):
            kw["api_key"] = env["BAYESEVAL_API_KEY"]
        if env.get("BAYESEVAL_MAX_BODY"):
            kw["max_body"] = parse_size(env["BAYESEVAL_MAX_BODY"], "BAYESEVAL_MAX_BODY")
        if env.get("BAYESEVAL_MAX_CELLS"):
            kw["max_cells"] = _positive_int(env["BAYESEVAL_MAX_CELLS"], "BAYESEVAL_MAX_CELLS")
        if env.get("BAYESEVAL_TIMEOUT"):
            kw["timeout"] = _positive_float(env["BAYESEVAL_TIMEOUT"], "BAYESEVAL_TIMEOUT")
        if env.get("BAYESEVAL_WORKERS"):
            kw["workers"] = _positive_int(env["BAYESEVAL_WORKERS"], "BAYESEVAL_WORKERS", minimum=0)
        if env.get("BAYESEVAL_MAX_ZIP_FILES"):
            kw["max_zip_files"] = _positive_int(env["BAYESEVAL_MAX_ZIP_FILES"], "BAYESEVAL_MAX_ZIP_FILES")
        if env.get("BAYESEVAL_MAX_UNZIPPED"):
            kw["max_unzipped"] = parse_size(env["BAYESEVAL_MAX_UNZIPPED"], "BAYESEVAL_MAX_UNZIPPED")
        known = {f.name for f in fields(cls)}
        unknown = set(overrides) - known
        if unknown:
            raise TypeError(f"unknown settings {sorted(unknown)}; known: {sorted(known)}")
        kw.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**kw)

    def to_env(self) -> dict[str, str]:
        """The ``BAYESEVAL_*`` variables that reproduce these settings (for server worker processes).

        >>> Settings(timeout=5).to_env()["BAYESEVAL_TIMEOUT"]
        '5'
        """
        env = {"BAYESEVAL_MAX_BODY": str(self.max_body), "BAYESEVAL_MAX_CELLS": str(self.max_cells),
               "BAYESEVAL_TIMEOUT": repr(self.timeout) if isinstance(self.timeout, float) else str(self.timeout),
               "BAYESEVAL_WORKERS": str(self.workers), "BAYESEVAL_MAX_ZIP_FILES": str(self.max_zip_files),
               "BAYESEVAL_MAX_UNZIPPED": str(self.max_unzipped)}
        if self.api_key:
            env["BAYESEVAL_API_KEY"] = self.api_key
        return env

    def public(self) -> dict:
        """The limits a client may see (the API key is never shown)."""
        return {"max_body": self.max_body, "max_cells": self.max_cells, "timeout": self.timeout,
                "max_zip_files": self.max_zip_files, "max_unzipped": self.max_unzipped,
                "api_key_required": self.api_key is not None}

    def replace(self, **changes) -> "Settings":
        return replace(self, **changes)
