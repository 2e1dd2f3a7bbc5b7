"""Guess which evaluation tool wrote a file or folder, so a command line can pick the loader.

:func:`detect` returns one of ``"aisbench"``, ``"opencompass"``, ``"lm-eval"``,
``"inspect"`` (the ``format=`` names of :func:`bayeseval.io.load.load`) or
None.  It looks at names and at most the first few kilobytes of a few files;
it never decodes a whole log.

* a folder with ``results/`` (a work dir): ``opencompass`` when a results file
  reports ``G-Pass@``, ``aisbench`` when one reports ``cons@`` / ``avg@``; else by
  the predictions (``*.jsonl`` AISBench, ``*.json`` OpenCompass); else ``aisbench``;
* a folder whose sub-folders are work dirs: the same guess for the newest of them
  (the readers then ask for one work dir);
* a folder with ``samples_*.jsonl`` (or one folder down): ``lm-eval``;
* a folder with ``*.eval`` files or inspect JSON logs: ``inspect``;
* ``*.eval``: ``inspect`` (a zip holding ``header.json`` or ``_journal/start.json``);
* ``*.json`` beginning ``{"version": <int>, "status": ...``: ``inspect``;
* ``results_*.json`` holding ``"results"``: ``lm-eval``;
* another ``*.json`` holding ``"details"``: ``opencompass`` if it reports ``G-Pass@``,
  else ``aisbench`` (n = 1 files of the two tools are alike and load alike);
  a ``bayeseval-outcomes`` file is never claimed;
* another ``*.json`` that is a list (of records) is no tool's: None (a long table);
* ``*.jsonl`` named ``samples_*`` or whose first record has ``doc_id`` and no ``model``: ``lm-eval``.

>>> import json, tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> (d / "results" / "m").mkdir(parents=True)
>>> _ = (d / "results" / "m" / "gsm8k.json").write_text(json.dumps({"accuracy": 50.0, "details": {}}))
>>> detect(d), detect(d / "results" / "m" / "gsm8k.json")
('aisbench', 'aisbench')
>>> _ = (d / "samples_gsm8k_2024-05-01T10-00-00.jsonl").write_text('{"doc_id": 0, "exact_match": 1.0}\\n')
>>> detect(d / "samples_gsm8k_2024-05-01T10-00-00.jsonl"), detect(pathlib.Path("no/such/path"))
('lm-eval', None)
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from .inspect_ai import is_inspect_json

__all__ = ["detect"]

_PEEK = 16384


def _head(path: Path, size: int = _PEEK) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _work_dir(folder: Path) -> str | None:
    for f in sorted((folder / "results").glob("*/*.json"))[:20]:
        head = _head(f)
        if "G-Pass@" in head:
            return "opencompass"
        if any(k in head for k in ('"cons@', '"avg@')):
            return "aisbench"
    preds = folder / "predictions"
    if any(preds.glob("*/*.jsonl")):
        return "aisbench"
    if any(preds.glob("*/*.json")):
        return "opencompass"
    return "aisbench" if (folder / "results").is_dir() else None


def _file(path: Path) -> str | None:
    name, suffix = path.name, path.suffix.lower()
    if suffix == ".eval":
        try:
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
        except (zipfile.BadZipFile, OSError):
            return None
        return "inspect" if names & {"header.json", "_journal/start.json"} else None
    if suffix == ".jsonl":
        if name.startswith("samples_"):
            return "lm-eval"
        line = _head(path, 65536).split("\n", 1)[0]
        try:
            first = json.loads(line)
        except (json.JSONDecodeError, RecursionError):   # not JSON, or nested too deeply: the reader says which
            return None
        # lm-eval's records carry no model field; a record with one is a row of a long table
        return "lm-eval" if isinstance(first, dict) and "doc_id" in first and "model" not in first else None
    if suffix == ".json":
        if is_inspect_json(path):
            return "inspect"
        head = _head(path)
        if name.startswith("results_") and '"results"' in head:
            return "lm-eval"
        if "bayeseval-outcomes" in head or '"details"' not in head or head.lstrip("\ufeff \t\r\n").startswith("["):
            return None  # the tools write one JSON object; a list of records is a long table
        return "opencompass" if "G-Pass@" in head else "aisbench"
    return None


def detect(path: str | Path) -> str | None:
    """``"aisbench"``, ``"opencompass"``, ``"lm-eval"``, ``"inspect"`` or None for a file or folder."""
    path = Path(path)
    if path.is_file():
        return _file(path)
    if not path.is_dir():
        return None
    if (path / "results").is_dir() or (path / "predictions").is_dir():
        return _work_dir(path)
    if any(path.glob("samples_*.jsonl")) or any(path.glob("*/samples_*.jsonl")):
        return "lm-eval"
    if any(path.glob("*.eval")) or any(is_inspect_json(p) for p in sorted(path.glob("*.json"))[:50]):
        return "inspect"
    inner = sorted((p for p in path.iterdir() if (p / "results").is_dir()), key=lambda p: p.name)
    if inner:
        return _work_dir(inner[-1])
    return None
