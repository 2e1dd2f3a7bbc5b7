"""The prompts of ``bayeseval run``: a JSON-lines file, one question per line.

Each non-blank line is an object::

    {"id": "q17", "prompt": "What is 6 x 7?", "answer": "42"}
    {"id": "q18", "messages": [{"role": "system", "content": "..."}, {"role": "user", "content": "..."}],
     "answer": 7}

* the prompt: the ``prompt`` field (a string, sent as one user message) or, when the line has no
  ``prompt``, a ``messages`` list of ``{"role", "content"}`` objects sent as is (``--prompt-field``
  renames the field; a list under that name is read as messages too);
* the gold answer: the ``answer`` field (``--answer-field``), any JSON value (a string, a number, or
  a list of acceptable answers);
* the question id: the ``id`` field, a string or an integer; without it, the line number (1-based).  A field
  named with ``--id-field`` (other than ``id``) must be on every line.  Ids must be unique.

The file is read and checked before any request is sent: a line that is not JSON (or is nested too
deeply to decode), is not an object, lacks a prompt or an answer, or repeats an id is a ValueError
naming the file and line.  With ``limit``, reading stops at the ``limit``-th question: the lines after
it are not decoded or checked (the file's sha256 still covers them).

>>> import json, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "d.jsonl")
>>> _ = open(path, "w").write(json.dumps({"prompt": "1+1?", "answer": 2}) + "\\n")
>>> ds = load_dataset(path)
>>> ds.questions[0].id, ds.questions[0].messages, ds.name
(1, [{'role': 'user', 'content': '1+1?'}], 'd')
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._json import loads

__all__ = ["Question", "Dataset", "load_dataset"]


@dataclass(frozen=True)
class Question:
    """One dataset line: ``index`` (0-based position among the questions), ``id``, chat ``messages``,
    gold ``answer`` and the ``line`` number it came from."""

    index: int
    id: Any
    messages: list
    answer: Any
    line: int


@dataclass(frozen=True)
class Dataset:
    path: Path
    name: str
    sha256: str
    questions: list


def _messages(value: Any, where: str, field: str) -> list:
    if isinstance(value, str):
        if not value.strip():
            raise ValueError(f"{where}: {field}: is empty")
        return [{"role": "user", "content": value}]
    if isinstance(value, list) and value:
        for i, m in enumerate(value):
            if not (isinstance(m, dict) and isinstance(m.get("role"), str) and "content" in m):
                raise ValueError(f"{where}: {field}[{i}]: expected an object with 'role' and 'content'")
        return value
    raise ValueError(f"{where}: {field}: expected a string or a non-empty list of messages, got "
                     f"{json.dumps(value)[:60]}")


def _lines(path: Path, limit: int | None) -> tuple[list[tuple[int, str]], str]:
    """The numbered non-blank lines of the file, the first ``limit`` of them (all without a limit), and the
    sha256 of the whole file (the bytes after the last line kept are hashed, not decoded).

    Lines end at ``\\n`` only (U+2028 may sit in a string); a line is decoded with its ``\\n`` so that a bad
    byte is described as in the whole file."""
    digest = hashlib.sha256()
    kept: list[tuple[int, str]] = []
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a folder; the dataset is a JSON-lines file") from None
    with fh:
        for ln, raw in enumerate(fh, start=1):
            digest.update(raw)
            try:
                line = raw.decode("utf-8-sig" if ln == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"{path}: not UTF-8 text ({exc.reason}); the dataset is JSON Lines (one JSON object "
                                 f"per line): convert a Parquet, zip or other binary file first") from None
            if line.strip():
                kept.append((ln, line))
                if len(kept) == limit:
                    break
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return kept, digest.hexdigest()


def load_dataset(path: str | Path, *, prompt_field: str = "prompt", answer_field: str = "answer",
                 id_field: str = "id", name: str | None = None, limit: int | None = None) -> Dataset:
    """Read and check a dataset (see the module docstring); ``limit`` keeps the first questions and reads no
    line after them.

    ``sha256`` is the digest of the whole file's bytes, whatever ``limit`` (stored with a run, so that a resumed
    run is known to use the same file).
    """
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise ValueError(f"--limit {limit!r}: expected an integer >= 1")
        if limit < 1:
            raise ValueError(f"--limit {limit}: must be at least 1")
    path = Path(path)
    lines, sha256 = _lines(path, limit)
    expected = f"a JSON object with a prompt ({prompt_field!r} or 'messages') and an answer ({answer_field!r})"
    questions: list[Question] = []
    seen: dict = {}
    for ln, line in lines:
        where = f"{path}: line {ln}"
        try:
            rec = loads(line, where, expected)
        except json.JSONDecodeError as exc:
            hint = ("; the dataset is JSON Lines, one object per line: a JSON array or an indented file must be "
                    "rewritten so" if ln == lines[0][0] and line.lstrip().startswith(("[", "{")) else "")
            raise ValueError(f"{where}: not valid JSON (column {exc.colno}: {exc.msg}){hint}") from None
        if not isinstance(rec, dict):
            hint = ("; the dataset is JSON Lines, one object per line, not a JSON array"
                    if isinstance(rec, list) and ln == lines[0][0] else "")
            raise ValueError(f"{where}: expected a JSON object, got {type(rec).__name__}{hint}")
        if prompt_field in rec:
            messages = _messages(rec[prompt_field], where, prompt_field)
        elif "messages" in rec:
            messages = _messages(rec["messages"], where, "messages")
        else:
            raise ValueError(f"{where}: no prompt: the line has neither {prompt_field!r} nor 'messages'")
        if answer_field not in rec or rec[answer_field] is None:
            raise ValueError(f"{where}: no answer: the line has no {answer_field!r} field")
        if id_field in rec:
            qid = rec[id_field]
            if isinstance(qid, bool) or not isinstance(qid, (str, int)) or (isinstance(qid, str) and not qid.strip()):
                raise ValueError(f"{where}: {id_field}: a question id is a non-empty string or an integer, got "
                                 f"{json.dumps(qid)[:60]}")
        elif id_field != "id":  # a field named on purpose (--id-field) must be there: line numbers would hide a typo
            raise ValueError(f"{where}: no {id_field!r} field for the question id (--id-field); the line has "
                             f"{', '.join(map(repr, list(rec)[:8]))}")
        else:
            qid = ln
        key = str(qid)
        if key in seen:
            raise ValueError(f"{where}: duplicate question id {qid!r} (also on line {seen[key]})")
        seen[key] = ln
        questions.append(Question(len(questions), qid, messages, rec[answer_field], ln))
    if not questions:
        raise ValueError(f"{path}: holds no questions")
    return Dataset(path, name or path.stem, sha256, questions)
