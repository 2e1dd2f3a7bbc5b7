r"""A small asynchronous client for an OpenAI-compatible ``POST {base_url}/chat/completions``.

One :class:`ChatClient` holds one ``httpx.AsyncClient`` (connection pool as large as the
concurrency) and a semaphore bounding the requests in flight.  :meth:`ChatClient.complete` asks for
``n`` choices of one prompt and retries what a server does when it is busy or broken:

* retried: HTTP 408, 409, 425, 429 and 5xx; connection errors (refused, reset, a connection killed
  mid-stream); timeouts; malformed responses (a body that is not JSON, a malformed SSE chunk, no
  ``choices``, a stream that ends without ``data: [DONE]`` and without a ``finish_reason`` for
  every choice);
* not retried: other 4xx (a bad request, e.g. a prompt longer than the context, fails at once);
* the wait before retry ``a`` (1, 2, ...) is ``Retry-After`` when a 429 / 503 response carries one
  (seconds or an HTTP date; at most 600 s), else "equal jitter" exponential backoff:
  with :math:`c_a = \min(\text{max\_backoff}, \text{backoff}\cdot 2^{a-1})` the wait is uniform on
  :math:`[c_a/2, c_a]`;
* after ``retries`` retries the request fails with :class:`RequestFailed` (its text is the last
  error), which the runner records as failed samples.

Two timeouts bound an attempt.  httpx's per-operation timeout: ``connect`` for opening a
connection, ``timeout`` for each read (in streaming mode: between two chunks), so a server that
stops answering fails the attempt after ``timeout`` seconds.  And ``request_timeout``, a total
deadline per attempt (``asyncio.wait_for`` around it; default ``3 * timeout``): a server that keeps
trickling bytes -- SSE ``: keep-alive`` comments, or a body sent a byte at a time -- never lets a
read time out, but the attempt still fails (retryably) once the deadline has passed.  The
preflight ``GET /models`` has a total deadline too (:func:`preflight`).

Streaming reads ``data: {...}`` server-sent events and joins ``choices[i].delta.content`` per choice
index ``i``; non-streaming reads ``choices[i].message.content``.  Only ``content`` is kept (a
reasoning model's separate ``reasoning_content`` is not scored).

httpx is an optional dependency (``pip install 'bayeseval[run]'``); :func:`require_httpx` raises an
ImportError saying so.

>>> _retry_after("3"), _retry_after("soon"), _retry_after(None)
(3.0, None, None)
>>> delays = [backoff_delay(a, 1.0, 30.0) for a in (1, 2, 6)]
>>> 0.5 <= delays[0] <= 1.0 and 1.0 <= delays[1] <= 2.0 and 15.0 <= delays[2] <= 30.0
True
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ChatClient", "ClientOptions", "Choice", "RequestError", "RequestFailed", "require_httpx",
           "backoff_delay", "preflight"]

RETRY_STATUS = {408, 409, 425, 429} | set(range(500, 600))
MAX_RETRY_AFTER = 600.0
_JITTER = random.Random()


def require_httpx():
    """The httpx module, or an ImportError naming the extra to install."""
    try:
        import httpx
    except ImportError:
        raise ImportError("bayeseval run needs httpx: pip install 'bayeseval[run]'") from None
    return httpx


class RequestError(Exception):
    """One failed attempt: ``retryable`` and, from a Retry-After header, ``retry_after`` seconds."""

    def __init__(self, message: str, retryable: bool = True, retry_after: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class RequestFailed(Exception):
    """A request that failed for good (not retryable, or out of retries); ``attempts`` made."""

    def __init__(self, message: str, attempts: int):
        super().__init__(message)
        self.attempts = attempts


@dataclass(frozen=True)
class Choice:
    index: int
    text: str
    finish_reason: str | None = None


@dataclass
class ClientOptions:
    """Where and how to ask: endpoint, model, key, sampling parameters, timeouts and retry policy."""

    base_url: str = "http://127.0.0.1:8000/v1"
    model: str | None = None
    api_key: str | None = None
    temperature: float | None = 1.0
    max_tokens: int | None = None
    stream: bool = False
    timeout: float = 600.0
    connect_timeout: float = 10.0
    request_timeout: float | None = None   # total seconds per attempt; None: 3 * timeout
    retries: int = 5
    backoff: float = 1.0
    max_backoff: float = 60.0
    extra: dict = field(default_factory=dict)

    @property
    def deadline(self) -> float:
        """The total seconds one attempt may take (``request_timeout``, else ``3 * timeout``)."""
        return self.request_timeout if self.request_timeout is not None else 3 * self.timeout

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def headers(self) -> dict:
        h = {"Accept": "text/event-stream" if self.stream else "application/json"}
        if self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        return h


def backoff_delay(attempt: int, backoff: float, cap: float, retry_after: float | None = None) -> float:
    """Seconds to wait before retry ``attempt`` (1-based): Retry-After if given (at most
    :data:`MAX_RETRY_AFTER`), else equal jitter capped by ``cap``."""
    if retry_after is not None:
        return max(0.0, min(retry_after, MAX_RETRY_AFTER))
    c = min(cap, backoff * 2 ** (attempt - 1))
    return c / 2 + _JITTER.uniform(0, c / 2)


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:  # pragma: no cover - older Pythons
        return None
    return max(0.0, when.timestamp() - time.time())


def _one_line(text: str, size: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= size else text[:size] + "..."


#: an SSE line ends at CRLF, LF or CR, and nowhere else (the text of a JSON string may hold U+2028, U+2029, U+0085)
_EOL = re.compile(r"\r\n|\n|\r")


async def sse_lines(texts):
    r"""The lines of a server-sent event stream from its decoded text chunks, split only where the SSE format ends a
    line (CRLF, LF, CR).  httpx's line reader also splits at U+2028, U+2029 and U+0085, which servers send unescaped
    inside JSON strings: the chunk was cut in two, read as malformed, retried, and the sample lost, depending on
    what the model wrote.

    >>> async def chunks():
    ...     for t in ['data: {"a": "x\u2028y"}\r', '\ndata: [DONE]', '\n']:
    ...         yield t
    >>> async def read():
    ...     return [line async for line in sse_lines(chunks())]
    >>> asyncio.run(read())
    ['data: {"a": "x\u2028y"}', 'data: [DONE]']
    """
    buf = ""
    async for text in texts:
        buf += text
        start = 0
        for m in _EOL.finditer(buf):
            if m.group() == "\r" and m.end() == len(buf):  # perhaps the first half of a CRLF split across chunks
                break
            yield buf[start:m.start()]
            start = m.end()
        buf = buf[start:]
    if buf:
        yield buf[:-1] if buf.endswith("\r") else buf


def _status_error(status: int, body: str, headers, url: str) -> RequestError:
    retry_after = _retry_after(headers.get("retry-after")) if status in (429, 503) else None
    return RequestError(f"HTTP {status} from {url}: {_one_line(body) or '(empty body)'}",
                        retryable=status in RETRY_STATUS, retry_after=retry_after)


def _malformed(what: str) -> RequestError:
    return RequestError(f"malformed response: {what}", retryable=True)


def _index(c: dict, pos: int) -> int:
    idx = c.get("index", pos)
    if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0:
        raise _malformed(f"choice index {idx!r}")
    return idx


def parse_completion(doc: Any) -> list[Choice]:
    """A non-streaming chat completion body -> its choices (sorted by index)."""
    if not isinstance(doc, dict):
        raise _malformed(f"expected a JSON object, got {type(doc).__name__}")
    if "error" in doc and "choices" not in doc:
        raise RequestError(f"server error: {_one_line(json.dumps(doc['error']))}", retryable=True)
    choices = doc.get("choices")
    if not isinstance(choices, list) or not choices:
        raise _malformed("no 'choices' list")
    out = {}
    for pos, c in enumerate(choices):
        if not isinstance(c, dict) or not isinstance(c.get("message"), dict):
            raise _malformed(f"choices[{pos}] has no 'message' object")
        content = c["message"].get("content")
        if content is None:
            content = ""
        if not isinstance(content, str):
            raise _malformed(f"choices[{pos}].message.content is not text")
        out[_index(c, pos)] = Choice(_index(c, pos), content, c.get("finish_reason"))
    return [out[i] for i in sorted(out)]


class _Stream:
    """Accumulates SSE chunks of a streamed chat completion."""

    def __init__(self):
        self.texts: dict[int, list[str]] = {}
        self.finish: dict[int, str] = {}
        self.done = False

    def feed(self, line: str) -> None:
        line = line.strip()
        if not line or line.startswith(":") or not line.startswith("data:"):
            return  # blank separators, comments, event:/id: fields
        data = line[5:].strip()
        if data == "[DONE]":
            self.done = True
            return
        try:
            chunk = json.loads(data)
        except (json.JSONDecodeError, RecursionError):  # nested past the decoder's recursion limit: not usable
            raise _malformed(f"SSE chunk is not JSON: {_one_line(data, 80)!r}") from None
        if not isinstance(chunk, dict):
            raise _malformed(f"SSE chunk is not an object: {_one_line(data, 80)!r}")
        if "error" in chunk:
            raise RequestError(f"server error in stream: {_one_line(json.dumps(chunk['error']))}", retryable=True)
        choices = chunk.get("choices", [])
        if not isinstance(choices, list):
            raise _malformed("SSE chunk 'choices' is not a list")
        for pos, c in enumerate(choices):
            if not isinstance(c, dict):
                raise _malformed("SSE chunk choice is not an object")
            idx = _index(c, pos)
            delta = c.get("delta") or {}
            if not isinstance(delta, dict):
                raise _malformed("SSE chunk 'delta' is not an object")
            content = delta.get("content")
            if content is not None and not isinstance(content, str):
                raise _malformed("SSE chunk delta.content is not text")
            self.texts.setdefault(idx, [])
            if content:
                self.texts[idx].append(content)
            if c.get("finish_reason"):
                self.finish[idx] = c["finish_reason"]

    def choices(self) -> list[Choice]:
        if not self.texts:
            raise _malformed("the stream held no choices" + ("" if self.done else " and ended without data: [DONE]"))
        if not self.done and any(i not in self.finish for i in self.texts):
            raise RequestError("stream ended before data: [DONE] (connection closed mid-stream)", retryable=True)
        return [Choice(i, "".join(self.texts[i]), self.finish.get(i)) for i in sorted(self.texts)]


class ChatClient:
    """``async with ChatClient(options, concurrency) as c: choices, attempts = await c.complete(messages, n)``."""

    def __init__(self, options: ClientOptions, concurrency: int = 8):
        self.options = options
        self.concurrency = concurrency
        self._httpx = require_httpx()
        self._sem = asyncio.Semaphore(concurrency)
        self._client = None
        self.requests = 0

    async def __aenter__(self) -> "ChatClient":
        httpx = self._httpx
        o = self.options
        timeout = httpx.Timeout(o.timeout, connect=min(o.connect_timeout, o.timeout))
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        self._client = httpx.AsyncClient(timeout=timeout, limits=limits, headers=o.headers())
        return self

    async def __aexit__(self, *exc) -> None:
        await self._client.aclose()

    def body(self, messages: list, n: int) -> dict:
        o = self.options
        body = {"model": o.model, "messages": messages, "n": n, "stream": o.stream}
        if o.temperature is not None:
            body["temperature"] = o.temperature
        if o.max_tokens is not None:
            body["max_tokens"] = o.max_tokens
        body.update(o.extra)
        return body

    async def _once(self, messages: list, n: int) -> list[Choice]:
        httpx = self._httpx
        o = self.options
        self.requests += 1
        try:
            if not o.stream:
                r = await self._client.post(o.url, json=self.body(messages, n))
                if r.status_code != 200:
                    raise _status_error(r.status_code, r.text, r.headers, o.url)
                try:
                    doc = r.json()
                except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                    raise _malformed(f"body is not JSON: {_one_line(r.text, 80)!r}") from None
                return parse_completion(doc)
            async with self._client.stream("POST", o.url, json=self.body(messages, n)) as r:
                if r.status_code != 200:
                    body = (await r.aread()).decode("utf-8", "replace")
                    raise _status_error(r.status_code, body, r.headers, o.url)
                acc = _Stream()
                async for line in sse_lines(r.aiter_text()):
                    acc.feed(line)
                    if acc.done:
                        break
                return acc.choices()
        except httpx.TimeoutException as exc:
            raise RequestError(f"timed out after {o.timeout:g}s waiting for {o.url} ({type(exc).__name__})") from None
        except httpx.DecodingError as exc:
            raise _malformed(f"undecodable body ({exc})") from None
        except httpx.TransportError as exc:
            raise RequestError(f"connection error with {o.url}: {type(exc).__name__}: {_one_line(exc) or 'closed'}"
                               ) from None

    async def _attempt(self, messages: list, n: int) -> list[Choice]:
        """One attempt under the total deadline: a server trickling bytes cannot hold it forever."""
        o = self.options
        try:
            return await asyncio.wait_for(self._once(messages, n), o.deadline)
        except asyncio.TimeoutError:
            raise RequestError(f"no complete answer from {o.url} within {o.deadline:g}s (--request-timeout)"
                               ) from None

    async def complete(self, messages: list, n: int) -> tuple[list[Choice], int]:
        """Up to ``n`` choices for one prompt (the server may return fewer) and the attempts made;
        :class:`RequestFailed` after the retries."""
        attempt = 0
        while True:
            attempt += 1
            try:
                async with self._sem:
                    return await self._attempt(messages, n), attempt
            except RequestError as exc:
                if not exc.retryable or attempt > self.options.retries:
                    suffix = "" if not exc.retryable else f" (gave up after {attempt} attempt{'s' if attempt != 1 else ''})"
                    raise RequestFailed(f"{exc}{suffix}", attempt) from None
                o = self.options
                await asyncio.sleep(backoff_delay(attempt, o.backoff, o.max_backoff, exc.retry_after))


PREFLIGHT_LIMIT = 10.0        # seconds: the preflight's per-read timeout and its total deadline at most
MAX_MODELS_BODY = 4 * 2 ** 20  # bytes of a GET /models answer read at most


async def _get_models(options: ClientOptions, url: str, read: float):
    """``(status, body)`` of ``GET url``; the body read up to just past :data:`MAX_MODELS_BODY` bytes."""
    httpx = require_httpx()
    timeout = httpx.Timeout(read, connect=min(options.connect_timeout, read))
    async with httpx.AsyncClient(timeout=timeout, headers=options.headers()) as client:
        async with client.stream("GET", url) as r:
            body = bytearray()
            async for chunk in r.aiter_bytes():
                body += chunk
                if len(body) > MAX_MODELS_BODY:
                    break
            return r.status_code, bytes(body)


def _bounded_get(options: ClientOptions, url: str, read: float, total: float):
    """:func:`_get_models` with a total deadline, run on its own event loop in a worker thread (so it
    works from plain code and from inside a running loop alike); a builtin TimeoutError past ``total``."""
    from concurrent.futures import ThreadPoolExecutor

    async def bounded():
        return await asyncio.wait_for(_get_models(options, url, read), total)

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bayeseval-preflight") as pool:
        return pool.submit(asyncio.run, bounded()).result()


def preflight(options: ClientOptions) -> list[str] | None:
    """One quick ``GET {base_url}/models``: the served model ids (None when the server has no such
    route), or a one-line ValueError naming the URL when nothing answers there.

    Bounded in total: each read by ``min(timeout, 10)`` seconds and the whole request by
    ``min(request_timeout, 10)`` (``request_timeout`` defaulting to ``3 * timeout``), so a server
    trickling its answer a byte at a time cannot hold the run before it starts."""
    httpx = require_httpx()
    url = options.base_url.rstrip("/") + "/models"
    t = min(options.timeout, PREFLIGHT_LIMIT)
    total = min(options.deadline, PREFLIGHT_LIMIT)
    try:
        status, body = _bounded_get(options, url, t, total)
    except httpx.TimeoutException:
        raise ValueError(f"{url}: no answer within {t:g}s; is the server running (e.g. vllm serve ... --port 8000)?"
                         ) from None
    except asyncio.TimeoutError:
        raise ValueError(f"{url}: no complete answer within {total:g}s (the server keeps the request open without "
                         "finishing it); is --base-url an OpenAI-compatible server?") from None
    except httpx.DecodingError:
        return None
    except httpx.TransportError as exc:
        raise ValueError(f"{url}: cannot connect ({type(exc).__name__}: {_one_line(exc, 120) or 'refused'}); is the "
                         "server running and --base-url right?") from None
    if status in (401, 403):
        raise ValueError(f"{url}: HTTP {status} unauthorized; give the key in the environment variable named by "
                         "--api-key-env (default OPENAI_API_KEY)")
    if status != 200 or len(body) > MAX_MODELS_BODY:
        return None
    try:
        doc = json.loads(body)
        ids = [m["id"] for m in doc["data"] if isinstance(m, dict) and isinstance(m.get("id"), str)]
    except (ValueError, KeyError, TypeError, RecursionError):
        return None
    return ids
