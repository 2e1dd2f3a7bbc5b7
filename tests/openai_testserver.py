r"""A misbehaving OpenAI-compatible chat server on a loopback port, for the runner's tests.

A real HTTP/1.1 server (``http.server.ThreadingHTTPServer``, one thread per connection) in a
background thread: ``POST /v1/chat/completions`` (``n``, ``stream`` as chunked server-sent events)
and ``GET /v1/models``.

**Answers are deterministic.**  The prompt holds a sum (``"... 17 + 25 ..."``); the ``k``-th choice
the server hands out for a prompt (counting from 0, over all requests) is correct with probability
``p(prompt)`` -- a number in [0.1, 0.9] from a hash of the prompt -- decided by a hash of
``(prompt, k)``; a wrong answer is the sum plus one.  The answer is written in one of three styles
(by ``k``): GSM8K (``#### 1,234``), AIME (``\boxed{...}``) or prose (``The answer is ...``).
``answer_fn(prompt, k) -> text`` replaces all that.

**Faults** are injected per chat request (numbered 1, 2, ... in arrival order; ``GET /models`` is
not counted): ``faults`` is a dict ``{request number: kind}`` or a callable ``(number, body) ->
kind or None``.  Kinds:

* ``"500"`` / ``"503"`` -- that status (503 with ``Retry-After``); ``"429"`` -- rate limited, with
  ``Retry-After: <retry_after>``; ``"400"`` -- a bad request (not worth retrying);
* ``"hang"`` -- no answer for ``hang`` seconds (longer than the client's timeout), then the
  connection is closed;
* ``"bad_json"`` -- a body that is not JSON (non-streaming) or a malformed ``data:`` chunk
  after a good one (streaming);
* ``"kill"`` -- the connection is cut mid-body (non-streaming: a short body under a longer
  ``Content-Length``; streaming: after the first chunk, inside the chunked encoding);
* ``"empty"`` -- a 200 with an empty ``choices`` list;
* ``"trickle"`` -- a 200 that never finishes but never goes quiet either: streaming, an SSE
  ``: keep-alive`` comment every ``trickle`` seconds; non-streaming, a body under a large
  ``Content-Length`` sent one byte every ``trickle`` seconds.  No read ever waits longer than
  ``trickle`` seconds, so only a total deadline ends it; the server gives up after ``trickle_for``
  seconds (closing the connection) or when the client hangs up.

``models_fault="trickle"`` makes ``GET /v1/models`` trickle its body the same way.

``max_choices`` caps the choices per response (a server that ignores ``n``); ``delay`` (seconds
before each chat answer) and ``chunk_delay`` (between streamed chunks) slow it down.  ``stats`` counts
chat requests, faults served and choices served; ``seen`` keeps each chat request's ``n``,
``stream``, fault and ``Authorization`` header.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["OpenAITestServer", "p_correct", "answer_of"]


def _unit(*parts) -> float:
    h = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2 ** 64


def p_correct(prompt: str) -> float:
    """The probability that the server answers ``prompt`` correctly, in [0.1, 0.9]."""
    return 0.1 + 0.8 * _unit("p", prompt)


def answer_of(prompt: str) -> int:
    """The correct answer: the sum ``a + b`` written in the prompt."""
    m = re.search(r"(\d+)\s*\+\s*(\d+)", prompt)
    return int(m.group(1)) + int(m.group(2)) if m else 0


def default_answer(prompt: str, k: int) -> str:
    value = answer_of(prompt)
    if _unit("c", prompt, k) >= p_correct(prompt):
        value += 1
    style = k % 3
    if style == 0:
        return f"We add the two numbers step by step; 7 + 3 = 10 is a warm-up.\n#### {value:,}"
    if style == 1:
        return f"Adding gives {value}. So the final answer is $\\boxed{{{value:03d}}}$."
    return f"Let me compute: the total is {value + 5} minus 5. The answer is {value}."


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, *args):  # quiet
        pass

    # ------------------------------------------------------------------ helpers
    def _send(self, status: int, body: bytes, headers: dict | None = None, ctype: str = "application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _json(self, status: int, doc, headers: dict | None = None):
        self._send(status, json.dumps(doc).encode(), headers)

    def _chunk(self, data: bytes):
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _trickle(self, stream: bool) -> None:
        """Keep the response open, a few bytes at a time, until ``trickle_for`` passes or the client leaves."""
        owner = self.server.owner
        self.close_connection = True
        self.send_response(200)
        if stream:
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000000")
        self.end_headers()
        deadline = time.monotonic() + owner.trickle_for
        try:
            if not stream:
                self.wfile.write(b"{")
                self.wfile.flush()
            while time.monotonic() < deadline and not owner.release.wait(owner.trickle):
                if stream:
                    self._chunk(b": keep-alive\n\n")
                else:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                with owner.lock:
                    owner.stats["trickled"] += 1
        except OSError:          # the client gave up and closed the connection
            pass
        self._kill()

    def _kill(self):
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # ------------------------------------------------------------------ routes
    def do_GET(self):
        owner = self.server.owner
        if owner.api_key is not None and self.headers.get("Authorization") != f"Bearer {owner.api_key}":
            self._json(401, {"error": {"message": "bad key"}})
            return
        if self.path.rstrip("/") == "/v1/models" and owner.models_fault == "trickle":
            self._trickle(stream=False)
        elif self.path.rstrip("/") == "/v1/models" and owner.list_models:
            self._json(200, {"object": "list", "data": [{"id": owner.model, "object": "model"}]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self):
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._json(400, {"error": {"message": "request body is not JSON"}})
            return
        if owner.api_key is not None and self.headers.get("Authorization") != f"Bearer {owner.api_key}":
            self._json(401, {"error": {"message": "bad key"}})
            return
        with owner.lock:
            owner.stats["requests"] += 1
            number = owner.stats["requests"]
            fault = owner.fault_for(number, body)
            if fault:
                owner.stats[f"fault:{fault}"] += 1
            owner.seen.append({"number": number, "n": body.get("n", 1), "stream": bool(body.get("stream")),
                               "fault": fault, "authorization": self.headers.get("Authorization"),
                               "model": body.get("model")})
        stream = bool(body.get("stream"))
        if owner.delay:
            time.sleep(owner.delay)
        if fault in ("500", "503", "429", "400"):
            status = int(fault)
            headers = {"Retry-After": str(owner.retry_after)} if status in (429, 503) else {}
            self._json(status, {"error": {"message": f"injected {status}", "code": status}}, headers)
            return
        if fault == "hang":
            owner.release.wait(owner.hang)
            self.close_connection = True
            return
        if fault == "trickle":
            self._trickle(stream)
            return
        if fault == "empty":
            self._json(200, {"id": "x", "object": "chat.completion", "choices": []})
            return
        if fault == "bad_json" and not stream:
            self._send(200, b'{"id": "x", "choices": [{"index": 0, "message": {"content": "tru', ctype="application/json")
            return
        if fault == "deep" and not stream:  # JSON nested past Python's recursion limit
            self._send(200, b"[" * 100_000 + b"]" * 100_000, ctype="application/json")
            return
        if fault == "kill" and not stream:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "5000")
            self.end_headers()
            self.wfile.write(b'{"id": "x", "choices": [')
            self._kill()
            return
        messages = body.get("messages") or []
        prompt = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
        want = int(body.get("n", 1) or 1)
        give = want if owner.max_choices is None else min(want, owner.max_choices)
        with owner.lock:
            start = owner.counter[prompt]
            owner.counter[prompt] += give
            owner.stats["choices"] += give
        texts = [owner.answer_fn(prompt, start + i) for i in range(give)]
        if not stream:
            self._json(200, {"id": f"chatcmpl-{number}", "object": "chat.completion", "created": int(time.time()),
                             "model": body.get("model"),
                             "choices": [{"index": i, "message": {"role": "assistant", "content": t},
                                          "finish_reason": "stop"} for i, t in enumerate(texts)]})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def event(doc) -> bytes:
            return b"data: " + json.dumps(doc, ensure_ascii=not owner.raw_unicode).encode() + b"\n\n"

        base = {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "model": body.get("model")}
        self._chunk(event({**base, "choices": [{"index": i, "delta": {"role": "assistant", "content": ""}}
                                               for i in range(give)]}))
        pieces = [[t[k:k + 7] for k in range(0, len(t), 7)] for t in texts]
        longest = max((len(p) for p in pieces), default=0)
        for step in range(longest):
            if step == 1 and fault == "kill":
                self._kill()
                return
            if step == 1 and fault == "bad_json":
                self._chunk(b'data: {"choices": [{"index": 0, "delta": {"content": "oops"\n\n')
                self._chunk(b"")
                return
            if step == 1 and fault == "deep":
                self._chunk(b"data: " + b"[" * 100_000 + b"]" * 100_000 + b"\n\n")
                self._chunk(b"")
                return
            for i, p in enumerate(pieces):
                if step < len(p):
                    self._chunk(event({**base, "choices": [{"index": i, "delta": {"content": p[step]},
                                                            "finish_reason": None}]}))
            if owner.chunk_delay:
                time.sleep(owner.chunk_delay)
        for i in range(give):
            self._chunk(event({**base, "choices": [{"index": i, "delta": {}, "finish_reason": "stop"}]}))
        self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: "OpenAITestServer"


class OpenAITestServer:
    """``with OpenAITestServer(faults={1: "500"}) as srv: ... srv.base_url ...`` (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, *, model: str = "test-model", faults=None, max_choices: int | None = None, hang: float = 3.0,
                 retry_after: float | str = 0, answer_fn=None, api_key: str | None = None, list_models: bool = True,
                 chunk_delay: float = 0.0, delay: float = 0.0, trickle: float = 0.3, trickle_for: float = 5.0,
                 models_fault: str | None = None, raw_unicode: bool = False):
        self.model = model
        self.raw_unicode = raw_unicode  # streamed JSON with U+2028 and the like unescaped, as vLLM and llama.cpp send
        self.faults = faults or {}
        self.max_choices = max_choices
        self.hang = hang
        self.retry_after = retry_after
        self.answer_fn = answer_fn or default_answer
        self.api_key = api_key
        self.list_models = list_models
        self.chunk_delay = chunk_delay
        self.delay = delay
        self.trickle = trickle
        self.trickle_for = trickle_for
        self.models_fault = models_fault
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.stats: Counter = Counter()
        self.counter: Counter = Counter()
        self.seen: list[dict] = []
        self._httpd = None
        self._thread = None

    def fault_for(self, number: int, body: dict) -> str | None:
        if callable(self.faults):
            return self.faults(number, body)
        return self.faults.get(number)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "OpenAITestServer":
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.release.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=5)
            self._httpd = None

    def __enter__(self) -> "OpenAITestServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
