"""A scripted, OpenAI-compatible HTTP server on 127.0.0.1, for tests and offline demos (stdlib only).

It serves ``POST /v1/chat/completions``, ``POST /v1/embeddings`` and ``GET /v1/models``. Chat replies come
from a *script*, a list of turns consumed one per chat request, or from a *responder* callable (request JSON ->
turn). Embeddings never touch the script: each input string gets :func:`hashed_embedding` (a signed, hashed bag
of lower-cased words, L2-normalised; 64 dimensions unless the request asks for ``dimensions``), so equal texts
get equal vectors in every run; ``"encoding_format": "base64"`` returns little-endian float32, as OpenAI does.
Embedding request bodies are recorded in :attr:`FakeOpenAIServer.embedding_requests`.

A turn is either a string (the assistant content, returned with a rough usage block) or a dict:

- ``{"status": 429}`` -- rate limit, with ``Retry-After`` (``"retry_after"`` key, default ``0``);
- ``{"status": 500}`` / ``{"status": 503}`` / any other status -- an OpenAI-style error body
  (optional ``"message"``);
- ``{"delay": seconds, "content": "..."}`` -- wait, then reply (to trigger client timeouts);
  ``delay`` combines with any other key, and the wait ends early when the server stops;
- ``{"malformed": true}`` -- HTTP 200 with a body that is not JSON;
- ``{"context_length": true}`` -- HTTP 400, code ``context_length_exceeded``;
- ``{"content": "..."}`` -- a plain reply (same as the string form); ``"finish_reason": "length"`` marks it
  cut off at the output limit (default ``"stop"``); ``"cached_tokens"`` and ``"reasoning_content"`` go in
  ``usage.prompt_tokens_details`` and the message, as servers with a prefix cache or reasoning send them.

Invariants: every chat request body is recorded in :attr:`FakeOpenAIServer.requests` (parsed JSON, or
``{"_raw": text}`` when it is not JSON), in arrival order, before it is answered, and its headers in
:attr:`FakeOpenAIServer.headers` (same index, lower-case names); a request arriving after the script is
exhausted (or when the responder returns ``None``) gets HTTP 500 with the error message ``"script exhausted"``
and is counted in :attr:`FakeOpenAIServer.unexpected_calls` -- a scripted fake fails loudly. The server binds
to 127.0.0.1 only and answers without delay beyond the scripted one (TCP_NODELAY on every connection).
Streaming requests (``"stream": true``) receive the reply as one server-sent-event chunk.

Command line: ``python -m modularrsi.offline.fake_server --script FILE.json [--port N]`` prints the
base URL on its first stdout line and serves until interrupted.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import math
import re
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from modularrsi.util.jsontypes import WireBody

Turn = str | WireBody
Responder = Callable[[WireBody], Turn | None]

HOST = "127.0.0.1"
EXHAUSTED = "script exhausted"
CONTEXT_MESSAGE = ("This model's maximum context length is 8192 tokens. However, your messages resulted in "
                   "9000 tokens. Please reduce the length of the messages.")


def rough_tokens(text: str) -> int:
    """A deterministic, rough token count: one token per four characters, at least one."""
    return max(1, len(text) // 4)


def prompt_tokens(request: WireBody) -> int:
    """Rough prompt size of a chat request: each message's content plus a small per-message overhead."""
    messages = request.get("messages") or []
    return sum(rough_tokens(str(m.get("content") or "")) + 4 for m in messages if isinstance(m, dict)) or 1


def error_body(message: str, kind: str, code: str | None = None) -> WireBody:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class FakeOpenAIServer:
    """A scripted OpenAI-compatible server; use as a context manager, read :attr:`base_url`.

    Exactly one of ``script`` and ``responder`` drives the replies (a ``responder`` wins when both are
    given). Thread-safe: the script is consumed and requests are recorded under one lock.
    """

    def __init__(self, script: Iterable[Turn] | None = None, *, responder: Responder | None = None,
                 port: int = 0, model: str = "fake-model", verbose: bool = False) -> None:
        self._script: deque[Turn] = deque(script or [])
        self._responder = responder
        self._port = port
        self.model = model
        self.verbose = verbose
        self.requests: list[WireBody] = []
        self.headers: list[dict[str, str]] = []
        self.embedding_requests: list[WireBody] = []
        self.unexpected_calls = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Bind to 127.0.0.1 (a free port unless one was given) and serve in a daemon thread."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = ThreadingHTTPServer((HOST, self._port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="fake-openai",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port; pending delayed replies are cut short."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not running")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` -- what an OpenAI client takes as its base URL."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def remaining(self) -> int:
        """Turns not yet consumed (always 0 for a responder)."""
        with self._lock:
            return len(self._script)

    # -- replies -----------------------------------------------------------------------------------

    def next_turn(self, request: WireBody, headers: dict[str, str] | None = None) -> Turn | None:
        """Record ``request`` and return the turn that answers it (``None`` once the script is exhausted)."""
        with self._lock:
            self.requests.append(request)
            self.headers.append({k.lower(): v for k, v in (headers or {}).items()})
            scripted = self._responder is None and bool(self._script)
            turn = self._script.popleft() if scripted else None
        if self._responder is not None:
            turn = self._responder(request)
        if turn is None:
            with self._lock:
                self.unexpected_calls += 1
        return turn

    def wait(self, seconds: float) -> None:
        """Sleep up to ``seconds``; returns early when the server stops."""
        self._stopping.wait(max(0.0, float(seconds)))


def completion_body(request: WireBody, content: str, model: str, number: int,
                    finish_reason: str = "stop", turn: WireBody | None = None) -> WireBody:
    """A non-streaming chat completion answering ``request`` with ``content`` (and ``turn``'s extras)."""
    prompt, reply = prompt_tokens(request), rough_tokens(content)
    body = {"id": f"chatcmpl-fake-{number}", "object": "chat.completion", "created": int(time.time()),
            "model": request.get("model") or model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": reply, "total_tokens": prompt + reply}}
    if (turn or {}).get("cached_tokens"):
        body["usage"]["prompt_tokens_details"] = {"cached_tokens": int(turn["cached_tokens"])}
    if (turn or {}).get("reasoning_content"):
        body["choices"][0]["message"]["reasoning_content"] = str(turn["reasoning_content"])
    return body


EMBEDDING_DIM = 64
_WORD = re.compile(r"\w+")


def hashed_embedding(text: str, dim: int = EMBEDDING_DIM) -> list[float]:
    """A deterministic embedding of ``text``: each lower-cased word adds +-1 to one of ``dim`` buckets (both
    chosen by BLAKE2b of the word, never by Python's salted ``hash``); the vector is L2-normalised (all zeros for
    a text without words)."""
    vector = [0.0] * dim
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        number = int.from_bytes(digest, "little")
        vector[number % dim] += 1.0 if (number >> 63) & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector] if norm else vector


def embedding_body(request: WireBody, model: str) -> tuple[int, WireBody]:
    """``(status, body)`` answering an embeddings request: one :func:`hashed_embedding` per input string."""
    texts = request.get("input")
    texts = [texts] if isinstance(texts, str) else texts
    dim = request.get("dimensions") or EMBEDDING_DIM
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        return 400, error_body("'input' must be a string or a non-empty list of strings", "invalid_request_error")
    if not isinstance(dim, int) or not 1 <= dim <= 4096:
        return 400, error_body("'dimensions' must be an integer from 1 to 4096", "invalid_request_error")
    data = []
    for index, text in enumerate(texts):
        vector: Any = hashed_embedding(text, dim)
        if request.get("encoding_format") == "base64":
            vector = base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode()
        data.append({"object": "embedding", "index": index, "embedding": vector})
    tokens = sum(rough_tokens(t) for t in texts)
    return 200, {"object": "list", "data": data, "model": request.get("model") or model,
                 "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def stream_chunks(body: WireBody) -> bytes:
    """``body`` as server-sent events: one content chunk, one final chunk with usage, then ``[DONE]``."""
    base = {k: body[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    content = body["choices"][0]["message"]["content"]
    first = base | {"choices": [{"index": 0, "delta": {"role": "assistant", "content": content},
                                 "finish_reason": None}]}
    last = base | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": body["usage"]}
    events = [f"data: {json.dumps(first)}\n\n", f"data: {json.dumps(last)}\n\n", "data: [DONE]\n\n"]
    return "".join(events).encode()


def _make_handler(fake: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    """A request-handler class bound to ``fake`` (the stdlib server instantiates it per request)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # TCP_NODELAY, as production servers set it: with keep-alive, Nagle's algorithm held each body
        # back until the client acknowledged the headers (a delayed ACK: up to ~40 ms per reply).
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            if fake.verbose:
                super().log_message(format, *args)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                data = [{"id": fake.model, "object": "model", "created": 0, "owned_by": "modularrsi-fake"}]
                self._send_json(200, {"object": "list", "data": data})
            else:
                self._send_json(404, error_body(f"no route {self.path}", "not_found"))

        def do_POST(self) -> None:
            request = self._read_json()
            if self.path.rstrip("/").endswith("/embeddings"):
                with fake._lock:
                    fake.embedding_requests.append(request)
                self._send_json(*embedding_body(request, fake.model))
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, error_body(f"no route {self.path}", "not_found"))
                return
            turn = fake.next_turn(request, dict(self.headers.items()))
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
                self._answer(request, turn)

        def _read_json(self) -> WireBody:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
            try:
                parsed = json.loads(raw)
            except ValueError:
                return {"_raw": raw}
            return parsed if isinstance(parsed, dict) else {"_raw": raw}

        def _answer(self, request: WireBody, turn: Turn | None) -> None:
            if turn is None:
                self._send_json(500, error_body(EXHAUSTED, "script_exhausted", "script_exhausted"))
                return
            if isinstance(turn, str):
                turn = {"content": turn}
            if turn.get("delay"):
                fake.wait(turn["delay"])
            if turn.get("malformed"):
                self._send(200, b"<html>this is not JSON {", "text/html")
            elif turn.get("context_length"):
                self._send_json(400, error_body(CONTEXT_MESSAGE, "invalid_request_error", "context_length_exceeded"))
            elif "status" in turn and int(turn["status"]) != 200:
                self._send_status(int(turn["status"]), turn)
            else:
                self._send_reply(request, turn)

        def _send_status(self, status: int, turn: WireBody) -> None:
            if status == 429:
                message = turn.get("message", "Rate limit reached (scripted).")
                headers = {"Retry-After": str(turn.get("retry_after", 0))}
                self._send_json(429, error_body(message, "rate_limit_error", "rate_limit_exceeded"), headers)
            else:
                message = turn.get("message", f"Scripted server error {status}.")
                self._send_json(status, error_body(message, "server_error" if status >= 500 else "invalid_request"))

        def _send_reply(self, request: WireBody, turn: WireBody) -> None:
            content, finish = str(turn.get("content", "")), str(turn.get("finish_reason", "stop"))
            body = completion_body(request, content, fake.model, len(fake.requests), finish, turn)
            if request.get("stream"):
                self._send(200, stream_chunks(body), "text/event-stream")
            else:
                self._send_json(200, body)

        def _send_json(self, status: int, body: WireBody, headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(body).encode(), "application/json", headers)

        def _send(self, status: int, payload: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()

    return Handler


def load_script(path: str | Path) -> list[Turn]:
    """Read a JSON list of turns; raises ``ValueError`` on anything else."""
    script = json.loads(Path(path).read_text())
    if not isinstance(script, list) or not all(isinstance(t, str | dict) for t in script):
        raise ValueError(f"{path}: a script is a JSON list of strings and objects")
    return script


def main(argv: list[str] | None = None) -> int:
    """Serve a JSON script until Ctrl-C; the first stdout line is the base URL."""
    parser = argparse.ArgumentParser(prog=f"python -m {__spec__.name}", description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True, help="JSON file: a list of turns")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)
    with FakeOpenAIServer(load_script(args.script), port=args.port, verbose=args.verbose) as server:
        print(server.base_url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
