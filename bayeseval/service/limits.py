"""Limits enforced before any statistics run: body size, API key, cell cap, and safe unzipping.

* :class:`BodyLimit` -- ASGI middleware: refuses a body whose ``Content-Length`` or streamed
  bytes exceed the limit with 413 (the body is read here, so the application never sees more);
* :class:`ApiKey` -- ASGI middleware: with a key configured, ``/v1/*`` needs ``X-API-Key``;
* :func:`check_cells` -- 422 when the outcome cells of a request exceed the cap;
* :func:`safe_extract` -- unzip into a folder, refusing absolute paths, ``..``, links, special
  files, too many entries and too many uncompressed bytes (zip bombs).

>>> import io, zipfile, tempfile
>>> buf = io.BytesIO()
>>> with zipfile.ZipFile(buf, "w") as z:
...     z.writestr("../evil.txt", "x")
>>> with tempfile.TemporaryDirectory() as d:
...     safe_extract(buf.getvalue(), d)
Traceback (most recent call last):
...
bayeseval.service.errors.ServiceError: zip entry '../evil.txt' would be written outside the extraction folder; refused
"""

from __future__ import annotations

import hmac
import io
import json
import os
import stat
import zipfile
from pathlib import Path, PurePosixPath

from .errors import ServiceError, error_body

__all__ = ["BodyLimit", "ApiKey", "check_cells", "safe_extract", "OPEN_PATHS", "DOCS_STATIC"]

#: Paths that never need the API key.
OPEN_PATHS = ("/healthz", "/docs", "/docs/oauth2-redirect", "/openapi.json")

#: Where the Swagger UI assets of /docs are served from (shipped by the ``fastapi-offline`` package, so the docs
#: page works without internet); open like the page itself.
DOCS_STATIC = "/docs/static"

#: Longest path component (bytes, UTF-8) and deepest path of a zip entry.
MAX_NAME_BYTES = 255
MAX_DEPTH = 32


async def _send_json(send, status: int, body: dict, headers: list | None = None) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            *(headers or [])]})
    await send({"type": "http.response.body", "body": data})


class BodyLimit:
    """Read at most ``max_body`` bytes of a request body; more -> 413 ``payload_too_large``.

    The body is buffered here and replayed to the application, so a client
    that lies about (or omits) ``Content-Length`` is stopped all the same.
    """

    def __init__(self, app, max_body: int):
        self.app, self.max_body = app, max_body

    def _too_large(self, size: str) -> dict:
        return error_body("payload_too_large", "body",
                          f"request body of {size} exceeds the limit of {self.max_body} bytes (BAYESEVAL_MAX_BODY)")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        encoding = headers.get(b"content-encoding", b"").strip().lower()
        if encoding not in (b"", b"identity"):
            return await _send_json(send, 415, error_body(
                "unsupported_media_type", "Content-Encoding",
                f"request bodies are not decoded; send them without Content-Encoding (got {encoding.decode('latin-1')!r})"))
        length = headers.get(b"content-length")
        if length is not None:
            if not length.strip().isdigit():
                return await _send_json(send, 400, error_body("invalid_request", "Content-Length",
                                                              "Content-Length must be a number of bytes"))
            if int(length) > self.max_body:
                return await _send_json(send, 413, self._too_large(f"{int(length)} bytes"))
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            size += len(body)
            if size > self.max_body:
                return await _send_json(send, 413, self._too_large(f"more than {self.max_body} bytes"))
            chunks.append(body)
            if not message.get("more_body", False):
                break
        ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        if ctype == b"application/json" or ctype.endswith(b"+json"):
            data = b"".join(chunks)
            # json.loads would sniff UTF-16 / UTF-32 from the bytes; the API speaks UTF-8 only (RFC 8259)
            problem = ("a UTF-16/UTF-32 byte order mark or NUL bytes" if data[:2] in (b"\xff\xfe", b"\xfe\xff")
                       or b"\x00" in data[:4] else None)
            if problem is None:
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    problem = f"a byte that is not UTF-8 at offset {exc.start}"
            if problem is not None:
                return await _send_json(send, 400, error_body("invalid_json", "body",
                                                              f"the JSON body must be UTF-8; it has {problem}"))
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _open(path: str | None) -> bool:
    """``path`` is one of :data:`OPEN_PATHS`, with or without a trailing slash, or a docs asset under
    :data:`DOCS_STATIC` (no ``..``: the static files refuse to leave their folder anyway)."""
    if path and path.startswith(DOCS_STATIC + "/") and ".." not in path.split("/"):
        return True
    return bool(path) and (path.rstrip("/") or "/") in OPEN_PATHS


class ApiKey:
    """With ``api_key`` set, every path but :data:`OPEN_PATHS` needs header ``X-API-Key: <key>`` (else 401)."""

    def __init__(self, app, api_key: str | None):
        self.app = app
        self.key = api_key.encode() if api_key else None

    async def __call__(self, scope, receive, send):
        if self.key is None or scope["type"] != "http" or _open(scope.get("path")):
            return await self.app(scope, receive, send)
        given = dict(scope.get("headers") or []).get(b"x-api-key", b"")
        if not hmac.compare_digest(given, self.key):
            what = "missing" if not given else "wrong"
            return await _send_json(send, 401, error_body(
                "unauthorized", "X-API-Key", f"API key {what}: send the configured key in the X-API-Key header"))
        await self.app(scope, receive, send)


def check_cells(parts: dict, cap: int) -> None:
    """Refuse (422 ``too_many_cells``) when the cells of ``parts`` (request field -> outcomes), summed, exceed ``cap``."""
    sizes = {name: o.cells for name, o in parts.items() if o is not None}
    total = sum(sizes.values())
    if total > cap:
        field = max(sizes, key=sizes.get)
        raise ServiceError(422, "too_many_cells", field,
                           f"the outcomes hold {total:,} cells (M x N summed over models); the cap is {cap:,} "
                           "cells per request (BAYESEVAL_MAX_CELLS): send fewer questions or trials, or count "
                           "tables instead of matrices")


def _entry_error(name: str, why: str) -> ServiceError:
    return ServiceError(422, "bad_archive", "file", f"zip entry {name!r} {why}; refused")


def safe_extract(data: bytes, dest: str | os.PathLike, *, max_files: int = 10_000,
                 max_bytes: int = 512 * 2**20) -> list[str]:
    """Extract the zip archive ``data`` into ``dest`` and return the extracted file names.

    Raises :class:`ServiceError` (422 ``bad_archive``, field ``file``) for a
    file that is not a zip, an encrypted entry, an absolute path or drive, a
    ``..`` component, a symlink or other special file, more than
    ``max_files`` entries, or more than ``max_bytes`` uncompressed bytes
    (counted while decompressing, not trusted from the header).
    """
    dest = Path(dest).resolve()
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise ServiceError(422, "bad_archive", "file", f"the upload is not a readable zip archive ({exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > max_files:
            raise ServiceError(422, "bad_archive", "file", f"the zip holds {len(infos)} entries; the limit is "
                                                           f"{max_files} (BAYESEVAL_MAX_ZIP_FILES)")
        declared = sum(i.file_size for i in infos)
        if declared > max_bytes:
            raise ServiceError(422, "bad_archive", "file", f"the zip unpacks to {declared:,} bytes; the limit is "
                                                           f"{max_bytes:,} (BAYESEVAL_MAX_UNZIPPED)")
        plan, seen = [], set()
        for info in infos:
            name = info.filename.replace("\\", "/")
            path = PurePosixPath(name)
            if path in seen:  # the second copy would overwrite the first: which one was meant?
                raise _entry_error(info.filename, "appears twice in the archive (each copy would overwrite the "
                                                  "other)")
            seen.add(path)
            if name.startswith("/") or (len(name) > 1 and name[1] == ":") or path.is_absolute():
                raise _entry_error(info.filename, "has an absolute path")
            if ".." in path.parts:
                raise _entry_error(info.filename, "would be written outside the extraction folder")
            if "\x00" in name:
                raise _entry_error(info.filename, "has a NUL character in its name")
            if any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in path.parts):
                raise _entry_error(info.filename, f"has a path component longer than {MAX_NAME_BYTES} bytes")
            if len(path.parts) > MAX_DEPTH:
                raise _entry_error(info.filename, f"is nested more than {MAX_DEPTH} folders deep")
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode)
            # zipfile.writestr stores 0o600 without file-type bits: no type is a regular file
            if info.create_system == 3 and kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                raise _entry_error(info.filename, "is a symbolic link or special file")
            if info.flag_bits & 0x1:
                raise _entry_error(info.filename, "is encrypted")
            target = (dest / path).resolve()
            if target != dest and dest not in target.parents:
                raise _entry_error(info.filename, "would be written outside the extraction folder")
            plan.append((info, target))
        written, names = 0, []
        for info, target in plan:
            try:
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(target, "wb") as out:
                    while chunk := src.read(1 << 16):
                        written += len(chunk)
                        if written > max_bytes:
                            raise ServiceError(422, "bad_archive", "file", f"the zip unpacks to more than "
                                               f"{max_bytes:,} bytes (BAYESEVAL_MAX_UNZIPPED)")
                        out.write(chunk)
            except ServiceError:
                raise
            except OSError as exc:  # a file where a folder should be, a name the file system refuses, ...
                raise _entry_error(info.filename, f"cannot be written ({exc.strerror or type(exc).__name__})") from None
            except Exception as exc:  # noqa: BLE001 - bad CRC, zlib/bz2/lzma errors, unsupported methods
                raise _entry_error(info.filename, f"cannot be read ({exc})") from None
            names.append(info.filename)
        return names
