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
* the question id: the ``id`` field (``--id-field``), a string or an integer; without it, the line
  number (1-based).  Ids must be unique.

The whole file is read and checked before any request is sent: a line that is not JSON, is not an
object, lacks a prompt or an answer, or repeats an id is a ValueError naming the file and line.

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


def load_dataset(path: str | Path, *, prompt_field: str = "prompt", answer_field: str = "answer",
                 id_field: str = "id", name: str | None = None, limit: int | None = None) -> Dataset:
    """Read and check a dataset (see the module docstring); ``limit`` keeps the first questions (every line
    is still checked).

    ``sha256`` is the digest of the whole file's bytes (stored with a run, so that a resumed run
    is known to use the same file).
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a folder; the dataset is a JSON-lines file") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from None
    questions: list[Question] = []
    seen: dict = {}
    for ln, line in enumerate(text.split("\n"), start=1):  # JSON Lines end at \n only: U+2028 may sit in a string
        if not line.strip():
            continue
        where = f"{path}: line {ln}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not valid JSON (column {exc.colno}: {exc.msg})") from None
        if not isinstance(rec, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(rec).__name__}")
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
        else:
            qid = ln
        key = str(qid)
        if key in seen:
            raise ValueError(f"{where}: duplicate question id {qid!r} (also on line {seen[key]})")
        seen[key] = ln
        questions.append(Question(len(questions), qid, messages, rec[answer_field], ln))
    if not questions:
        raise ValueError(f"{path}: holds no questions")
    if limit is not None:
        if limit < 1:
            raise ValueError(f"--limit {limit}: must be at least 1")
        questions = questions[:limit]
    return Dataset(path, name or path.stem, hashlib.sha256(raw).hexdigest(), questions)
