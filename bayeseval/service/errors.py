"""One error shape for every refusal: ``{"error": {"type", "field", "message", "details"}}``.

* request bodies that are not JSON (also bad UTF-8, nesting too deep) -> 400 ``invalid_json`` (field
  ``body``); a ``Content-Encoding`` other than identity -> 415 ``unsupported_media_type``;
* a JSON object that repeats a key (``{"models": {"a": ..., "a": ...}}``) -> 422 ``validation_error`` naming
  the object (``models``) and the key, instead of keeping the last one silently (:func:`loads`);
* schema violations (wrong types, out-of-range values, unknown fields) -> 422
  ``validation_error``, ``field`` = the first offending field as a dotted path;
* the library's ``ValueError`` / ``TypeError`` / ``LookupError``, and arithmetic errors
  (overflow, division by zero), ``RecursionError`` and ``MemoryError`` from extreme inputs -> 422
  ``validation_error`` naming the field of the request that caused it;
* limits: 413 ``payload_too_large``, 422 ``too_many_cells`` / ``time_limit``,
  422 ``bad_archive``; 401 ``unauthorized``; 404 / 405 as usual.

>>> field_path(("body", "models", "a", "matrix", 3, 1))
'models.a.matrix[3][1]'
>>> field_path(("body", "metrics", 0, "str"), {"metrics": [17]})   # a union member's tag is dropped
'metrics[0]'
>>> error_body("too_many_cells", "models", "too big")["error"]["field"]
'models'
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["ServiceError", "error_body", "field_path", "validation_errors", "library_field", "loads"]


class ServiceError(Exception):
    """A refusal with its HTTP status, error type, request field and message (raised by the translation layer)."""

    def __init__(self, status: int, type: str, field: str | None, message: str):
        super().__init__(message)
        self.status, self.type, self.field, self.message = status, type, field, message

    def __reduce__(self):  # crosses the process boundary intact
        return ServiceError, (self.status, self.type, self.field, self.message)

    def body(self) -> dict:
        return error_body(self.type, self.field, self.message)


def encode_json(content: Any) -> bytes:
    r"""The service's JSON encoding: compact, ASCII only (a client's lone surrogate, ``"\ud800"`` in a model
    name, is echoed back as valid JSON instead of failing to encode), no NaN.

    >>> encode_json({"m": "\u00e9", "x": [1, 0.5]})
    b'{"m":"\\u00e9","x":[1,0.5]}'
    """
    return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def encoded(fn, *args) -> bytes:
    """``encode_json(fn(*args))``: what a compute worker sends back, so the server forwards bytes instead of
    unpickling a result and encoding it on its event loop."""
    return encode_json(fn(*args))


class _Repeated(dict):
    """A decoded JSON object that gave ``key`` more than once (the value kept is the last, as json.loads does)."""

    __slots__ = ("key",)


def _object(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set = set()
    out = _Repeated(obj)
    out.key = next(k for k, _ in pairs if k in seen or seen.add(k))
    return out


def _first_repeated(doc: Any) -> tuple[list, str] | None:
    """(location, key) of the first object of ``doc`` (depth first, in document order) that repeats a key.  Only
    containers are visited, and an array whose first element is a number, text or null is taken to hold no objects
    (a matrix of outcomes: millions of numbers are not walked one by one); None if the object is not found so."""
    stack = [([], doc)]
    while stack:
        loc, node = stack.pop()
        if isinstance(node, _Repeated):
            return loc, node.key
        if isinstance(node, dict):
            stack.extend((loc + [k], v) for k, v in reversed(list(node.items())) if isinstance(v, (dict, list)))
        elif isinstance(node, list) and node and isinstance(node[0], (dict, list)):
            stack.extend((loc + [i], v) for i, v in reversed(list(enumerate(node))) if isinstance(v, (dict, list)))
    return None


def loads(data: bytes | str) -> Any:
    """``json.loads`` that refuses an object repeating a key: :class:`ServiceError` (422) naming the object's
    field and the key (a top-level key repeated: that field), where ``json.loads`` keeps the last value.

    >>> loads(b'{"models": {"a": {"matrix": [[1]]}}}')
    {'models': {'a': {'matrix': [[1]]}}}
    >>> loads(b'{"models": {"a": 1, "a": 2}}')
    Traceback (most recent call last):
    ...
    bayeseval.service.errors.ServiceError: models: the key 'a' is given more than once; each key of an object must be unique
    >>> loads(b'{"level": 0.9, "level": 0.5}')
    Traceback (most recent call last):
    ...
    bayeseval.service.errors.ServiceError: level: the field is given more than once; give each field once
    """
    repeated = []

    def hook(pairs):
        obj = _object(pairs)
        if isinstance(obj, _Repeated):
            repeated.append(obj)
        return obj

    doc = json.loads(data, object_pairs_hook=hook)
    if not repeated:
        return doc
    loc, key = _first_repeated(doc) or (None, repeated[0].key)
    if loc is None:  # inside an array that starts with a number: said of the whole body
        raise ServiceError(422, "validation_error", "body", f"the key {key!r} is given more than once in an object "
                                                            "of the body; each key of an object must be unique")
    if not loc:
        raise ServiceError(422, "validation_error", key, f"{key}: the field is given more than once; give each "
                                                         "field once")
    field = field_path(loc)
    raise ServiceError(422, "validation_error", field, f"{field}: the key {key!r} is given more than once; each key "
                                                       "of an object must be unique")


def error_body(type: str, field: str | None, message: str, details: list | None = None) -> dict:
    return {"error": {"type": type, "field": field, "message": message, "details": details or []}}


def field_path(loc: tuple | list, body: Any = None) -> str | None:
    """A pydantic error location as ``a.b[0][1]``, leaving out the request part (``body``, ``query``) and
    the tags pydantic adds for union members (found by walking the submitted ``body``)."""
    loc = list(loc)
    in_body = bool(loc) and loc[0] == "body"
    if loc and loc[0] in ("body", "query", "path", "header", "cookie"):
        loc = loc[1:]
    out = ""
    node, walking = body, in_body and isinstance(body, (dict, list))
    for i, part in enumerate(loc):
        if walking:
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                node = node[part]
            elif i == len(loc) - 1 and isinstance(node, dict) and isinstance(part, str) and _is_field(part):
                walking = False  # a missing field: keep its name
            else:
                continue  # a union tag such as 'str' or 'Metric', or a key pydantic invented
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or None


def _is_field(name: str) -> bool:
    return re.fullmatch(r"[a-z_][a-z0-9_]*", name) is not None


def _clean_message(msg: str) -> str:
    return msg[len("Value error, "):] if msg.startswith("Value error, ") else msg


def validation_errors(errors: list[dict], body: Any = None) -> tuple[int, dict]:
    """(status, error body) for pydantic / FastAPI validation errors."""
    if any(e.get("type") == "json_invalid" for e in errors):
        e = next(e for e in errors if e.get("type") == "json_invalid")
        ctx = e.get("ctx") or {}
        where = f" at position {e['loc'][-1]}" if len(e.get("loc", ())) > 1 else ""
        reason = ctx.get("error", "invalid JSON")
        return 400, error_body("invalid_json", "body", f"the request body is not valid JSON ({reason}){where}")
    details = []
    for e in errors:
        field = field_path(e.get("loc", ()), body)
        message = _clean_message(str(e.get("msg", "")))
        if field is None:  # a check across fields: its message begins with the field it is about
            field = _leading_field(message, body)
        details.append({"field": field, "message": message, "type": e.get("type")})
    # a value that fails every member of a union yields one error per member: headline the most specific
    # one (not "should be a valid string" from a member of another type), then the deepest field
    def rank(d):
        noise = str(d["type"]).endswith("_type") or d["type"] == "none_required"
        return (not noise, len(d["field"] or ""))

    first = max(details, key=rank) if details else {"field": None, "message": "invalid request"}
    msg = first["message"]
    if first["field"] and not msg.startswith(first["field"]):
        msg = f"{first['field']}: {msg}"
    return 422, error_body("validation_error", first["field"], msg, details)


_PARAM = re.compile(r"^([A-Za-z_][A-Za-z0-9_@^-]*)")
_LEADING = re.compile(r"^([A-Za-z_]\w*)((?:\.[^\s.:\[]+|\[\d+\])*)[: ]")


def _leading_field(message: str, body: Any) -> str | None:
    """The field a request-level message names first (``models.a has 2 predictions ...`` -> ``models.a``), when its
    top-level key is one the request may hold, else None.

    >>> _leading_field("models.a has 2 predictions but true has 3", {"models": {}, "true": []})
    'models.a'
    >>> _leading_field("labels: a confusion_matrix needs labels", {"confusion_matrix": []})
    'labels'
    >>> _leading_field("give both a and b", {}) is None
    True
    """
    m = _LEADING.match(message)
    if not m or not isinstance(body, dict):
        return None
    known = set(body) | {"a", "b", "labels", "true", "models", "items", "ties", "confusion_matrix", "first"}
    return m.group(1) + m.group(2) if m.group(1) in known else None


def library_field(message: str, context: str | None, known: dict | None = None) -> str | None:
    """The request field a library error is about: ``known[first word of the message]`` when the message
    starts with a parameter the request has (``level must be ...`` -> ``level``), else ``context`` (the part of
    the request being computed).

    >>> library_field("level must be in (0, 1), got 1.5", "metrics[0]", {"level": "level"})
    'level'
    >>> library_field("pass@5 needs k <= n", "metrics[0]", {"level": "level"})
    'metrics[0]'
    """
    m = _PARAM.match(message)
    if m and known and m.group(1) in known:
        return known[m.group(1)]
    return context
