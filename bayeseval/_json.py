"""Decoding a user's JSON: :func:`loads` is :func:`json.loads` where a document nested too deeply for Python's
decoder (arrays or objects thousands deep, a RecursionError) is a ValueError naming the place and what was expected
(:func:`too_deep`, for readers that catch the RecursionError themselves).

>>> loads('{"a": [1]}', "f.json", "an object")
{'a': [1]}
>>> try:
...     loads("[" * 100000 + "]" * 100000, "f.json: line 3", "one record per line")
... except ValueError as exc:
...     print(exc)
f.json: line 3: JSON nested too deeply to read (arrays or objects within one another past Python's recursion \
limit); expected one record per line
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads", "too_deep", "dumps_text"]


def too_deep(where: str, expected: str) -> ValueError:
    """The error for a document nested too deeply to decode: ``where`` (the file, and the line or member) and
    ``expected`` (what it should hold)."""
    return ValueError(f"{where}: JSON nested too deeply to read (arrays or objects within one another past Python's "
                      f"recursion limit); expected {expected}")


def loads(text: str | bytes, where: str, expected: str, **options: Any) -> Any:
    """``json.loads(text, **options)``, with :func:`too_deep`'s ValueError for a RecursionError; other errors are
    json.loads's own (a JSONDecodeError is a ValueError)."""
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise too_deep(where, expected) from None


def dumps_text(doc: Any, **options: Any) -> str:
    r"""``json.dumps(doc, ensure_ascii=False, **options)`` (readable UTF-8) where that text can be written as UTF-8;
    a lone surrogate in a string (a model's answer cut inside an emoji) cannot, so then every non-ASCII character is
    escaped (``\ud83d``: lossless, read back by any JSON reader) instead of failing the write.

    >>> dumps_text({"a": "é"}), dumps_text({"a": "\ud83d"})
    ('{"a": "é"}', '{"a": "\\ud83d"}')
    """
    text = json.dumps(doc, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(doc, ensure_ascii=True, **options)
    return text
