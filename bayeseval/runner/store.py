"""The run folder's own files: ``run.json`` (the configuration) and ``samples.jsonl`` (one line per sample).

``samples.jsonl`` is appended to as each sample finishes, one JSON object per line, flushed per
line::

    {"question": "q17", "index": 16, "sample": 2, "text": "... #### 42", "score": 1.0, "error": null,
     "finish_reason": "stop", "attempts": 1, "latency": 0.84, "finished": "2026-03-26T15:13:26.123+00:00"}

``index`` is the question's 0-based position in the dataset, ``sample`` the sample index
``0..n-1``.  A failed sample has ``text`` and ``score`` null and the last error in ``error``.  On a
restart the file is read back: a last line without its newline (the process was killed while
writing it) is cut off and that sample is asked again; a later record of a pair replaces an earlier
*failure* of the same pair (``retry_failed``); a repeated successful record with the same content
(every field but the bookkeeping ``attempts``, ``latency`` and ``finished``) is dropped, the first
kept; any other repeated pair (two different answers for one sample), or a malformed line before
the last, is an error naming the line.

:class:`RunLock` keeps a second run off a folder in use: the runner holds an exclusive, non-blocking
``fcntl.flock`` on ``<out>/.bayeseval-run.lock`` (which holds the owner's pid) for the whole run, and
a second run on the same folder fails at once naming that pid.  The lock is released when the run
ends or its process dies (the file stays; an unlocked file means nothing).  Without ``fcntl`` (Windows)
there is no lock.

``run.json`` holds ``config``: the keys that decide what the samples mean (base URL, model, dataset
path and sha256, the fields read, ``n``, temperature, max_tokens, scorer, seed).  Resuming with a
different value of any of them is a ValueError naming the key; start a new ``--out`` folder instead.
"""

from __future__ import annotations

import errno
import json
import os

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .._json import dumps_text

__all__ = ["SampleStore", "RunLock", "FolderInUse", "check_config", "read_run", "write_run", "default_abbr",
           "CONFIG_KEYS", "RUN_FORMAT", "LOCK_NAME"]

RUN_FORMAT = "bayeseval-run/1"
LOCK_NAME = ".bayeseval-run.lock"
BOOKKEEPING = ("attempts", "latency", "finished")   # fields that may differ between copies of one sample
CONFIG_KEYS = ("base_url", "model", "dataset", "dataset_sha256", "prompt_field", "answer_field", "id_field", "n",
               "temperature", "max_tokens", "scorer", "seed", "model_abbr", "dataset_name")


def default_abbr(model: str) -> str:
    """The file-name form of a model name (``--model-abbr``'s default): ``org/model-7b`` -> ``org_model-7b``."""
    import re

    abbr = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_.")
    return abbr or "model"


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def read_run(folder: Path) -> dict | None:
    path = Path(folder) / "run.json"
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        why = "JSON nested too deeply" if isinstance(exc, RecursionError) else exc
        raise ValueError(f"{path}: not a readable run file ({why}); use a new --out folder") from None
    if not isinstance(doc, dict) or doc.get("format") != RUN_FORMAT or not isinstance(doc.get("config"), dict):
        raise ValueError(f"{path}: not a {RUN_FORMAT} file; use a new --out folder")
    return doc


def write_run(folder: Path, doc: dict) -> None:
    """Write ``run.json`` atomically (a temporary file renamed over it)."""
    path = Path(folder) / "run.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def check_config(stored: dict, config: dict, where: str) -> None:
    """A ValueError naming the first key whose value differs between the stored and the new config."""
    for key in CONFIG_KEYS:
        if key in stored and stored.get(key) != config.get(key):
            raise ValueError(f"{where}: cannot resume: {key} differs (stored {stored.get(key)!r}, now "
                             f"{config.get(key)!r}); use a new --out folder, or the stored settings")


def _content(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k not in BOOKKEEPING}


class FolderInUse(ValueError):
    """Another process (or another open :class:`RunLock`) holds the run folder."""


class RunLock:
    """``with RunLock(folder): ...``: an exclusive, non-blocking ``flock`` on ``folder/.bayeseval-run.lock``.

    :meth:`acquire` raises :class:`FolderInUse` at once when the lock is held (by another process, or
    by another open lock in this one), naming the holder's pid as written in the file.
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self._fd: int | None = None

    def holder(self) -> str:
        """The pid written in the lock file, or ``'unknown'``."""
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return "unknown"
        return text if text.isdigit() else "unknown"

    def acquire(self) -> "RunLock":
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._fd is not None or fcntl is None:
            return self
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if isinstance(exc, BlockingIOError) or exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise FolderInUse(f"{self.folder} is in use by another bayeseval run (pid {self.holder()}); wait "
                                  "for it to finish, or use another --out folder") from None
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)          # closing the descriptor drops the flock

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


class SampleStore:
    """The append-only samples file of a run folder; ``records`` maps ``(str(question id), sample)`` to a record."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / "samples.jsonl"
        self.records: dict[tuple[str, int], dict] = {}
        self.repaired = False
        self.duplicates = 0      # identical repeated records dropped by the last load
        self._fh = None
        self.stale: list[Path] = []  # files that no longer describe the run once a new record is written

    def load(self, n: int) -> dict[tuple[str, int], dict]:
        """Read the finished samples back (cutting off a half-written last line)."""
        self.records = {}
        if not self.path.exists():
            return self.records
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        lines = data[:end].split(b"\n")[:-1]
        keep = end
        if end < len(data):          # a last line without its newline: the process died writing it
            self.repaired = True
        for ln, raw in enumerate(lines, start=1):
            try:
                rec = json.loads(raw.decode("utf-8"))
                ok = isinstance(rec, dict) and {"question", "sample"} <= set(rec)
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):   # RecursionError: nested too deeply
                ok = False
            if not ok:
                if ln == len(lines) and end == len(data):   # the last line itself is broken: redo it too
                    keep = end - len(raw) - 1
                    self.repaired = True
                    break
                raise ValueError(f"{self.path}: line {ln}: not a sample record; the file is damaged")
            j = rec["sample"]
            if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < n:
                raise ValueError(f"{self.path}: line {ln}: sample index {j!r} is outside 0..{n - 1}")
            key = (str(rec["question"]), j)
            old = self.records.get(key)
            if old is not None and old.get("error") is None:
                if _content(old) == _content(rec):     # the same answer written twice: keep the first
                    self.duplicates += 1
                    continue
                raise ValueError(f"{self.path}: line {ln}: question {rec['question']!r} sample {j} is recorded twice, "
                                 "with different content (were two runs writing to this folder?)")
            self.records[key] = rec
        if keep < len(data):
            with self.path.open("r+b") as fh:
                fh.truncate(keep)
        return self.records

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = self.path.open("a", encoding="utf-8")

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def append(self, rec: dict[str, Any]) -> None:
        """Write one record as one line and flush it."""
        key = (str(rec["question"]), rec["sample"])
        old = self.records.get(key)
        if old is not None and old.get("error") is None:   # pragma: no cover - the runner never asks twice
            raise RuntimeError(f"question {rec['question']!r} sample {rec['sample']} is already recorded")
        for path in self.stale:
            path.unlink(missing_ok=True)
        self.stale = []
        self._fh.write(dumps_text(rec) + "\n")  # a lone surrogate in an answer is escaped, not a failed write
        self._fh.flush()
        self.records[key] = rec
