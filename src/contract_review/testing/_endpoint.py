"""A local OpenAI-compatible chat-completions server for tests and benchmarks.

    with FakeLLM([Reply(text="hi"), HttpError(429), Reply(text="ok")]) as fake:
        client = LLMClient(base_url=fake.base_url, ...)
        ...
        assert fake.requests[0]["model"] == "m"

Each `POST /v1/chat/completions` consumes the next step of the script: a `Reply` (text and/or
tool calls, with usage; sent as JSON, or as SSE chunks when the request asks `stream: true`), an
`HttpError`, a `Hang` (no answer for some seconds) or `InvalidJSON`. When the script runs out the
server answers HTTP 410, which the client does not retry, so a test that sends too many requests
fails clearly. Instead of a script, a `responder` function may compute each step from the request
body — concurrent agents (one per clause) need answers that depend on the conversation, not on
arrival order. Every request body is recorded in `requests` (parsed JSON), in arrival order.
Requests are served concurrently (one thread each), each after `latency` seconds.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from ._wire import wire_tool_calls, words


@dataclass
class Reply:
    """A successful completion.

    `tool_calls` items are `{"name": ..., "arguments": dict | str}` (optionally `"id"`);
    `chunks` splits `text` for streaming (default: one chunk per whitespace-separated word).
    """

    text: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 10
    completion_tokens: int = 5
    chunks: list[str] | None = None


@dataclass
class HttpError:
    """An error answer with this HTTP status and an OpenAI-style error body."""

    status: int
    message: str = "fake error"


@dataclass
class Hang:
    """Answer nothing for `seconds` (then close the connection)."""

    seconds: float


@dataclass
class InvalidJSON:
    """A 200 answer whose JSON body does not parse."""

    body: str = '{"choices": [ this is not json'


Step = Reply | HttpError | Hang | InvalidJSON
Responder = Callable[[dict[str, Any]], Step]
"""Request body → the step to answer it with."""


class _Server(ThreadingHTTPServer):
    # The default listen backlog (5) drops connections when many clauses call at once, and a
    # dropped SYN costs a 1 s TCP retransmit: latency the benchmark would blame on us.
    request_queue_size = 256


class FakeLLM:
    """The server; a context manager that starts it on 127.0.0.1 (free port) and stops it."""

    def __init__(
        self,
        script: list[Step] | None = None,
        *,
        responder: Responder | None = None,
        latency: float = 0.0,
    ) -> None:
        """Serve `script` in order (or ask `responder`), waiting `latency` seconds before each
        answer."""
        if (script is None) == (responder is None):
            raise ValueError("give FakeLLM either a script or a responder")
        self.script = list(script or [])
        self.responder = responder
        self.latency = latency
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The `/v1` base URL to give an OpenAI client."""
        assert self._server is not None, "FakeLLM is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> FakeLLM:
        """Start serving in a background thread."""
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = False  # server_close() joins handlers (woken by _stop)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop serving, wake hanging handlers, close the socket."""
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _next_step(self, body: dict[str, Any], headers: dict[str, str]) -> Step | None:
        """Record a request and take the next step of the script (or the responder's)."""
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            if self.responder is not None:
                return self.responder(body)
            return self.script.pop(0) if self.script else None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        """A request handler class bound to this server's script."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

            def do_POST(self) -> None:
                """Answer one chat-completions request from the script."""
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._json(404, {"error": {"message": "not found"}})
                    return
                body: dict[str, Any] = json.loads(raw or b"{}")
                step = fake._next_step(body, {k.lower(): v for k, v in self.headers.items()})
                if fake.latency:
                    fake._stop.wait(fake.latency)
                # A client that gave up (timeout) closed its end; nothing to do then.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._answer(step, body)

            def _answer(self, step: Step | None, body: dict[str, Any]) -> None:
                if step is None:
                    self._error(410, "fake LLM script exhausted")
                elif isinstance(step, HttpError):
                    self._error(step.status, step.message)
                elif isinstance(step, Hang):
                    fake._stop.wait(step.seconds)
                elif isinstance(step, InvalidJSON):
                    self._raw(200, step.body.encode(), "application/json")
                elif body.get("stream"):
                    self._stream(step, body)
                else:
                    self._json(200, self._completion(step, body))

            def _completion(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
                calls = wire_tool_calls(reply.tool_calls, "call_")
                message: dict[str, Any] = {"role": "assistant", "content": reply.text}
                if calls:
                    message["tool_calls"] = calls
                return {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "fake"),
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if calls else "stop",
                        }
                    ],
                    "usage": self._usage(reply),
                }

            @staticmethod
            def _usage(reply: Reply) -> dict[str, int]:
                return {
                    "prompt_tokens": reply.prompt_tokens,
                    "completion_tokens": reply.completion_tokens,
                    "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                }

            def _stream(self, reply: Reply, body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                base = {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": body.get("model", "fake"),
                }
                text = reply.text or ""
                chunks = reply.chunks if reply.chunks is not None else words(text)
                deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
                deltas += [{"content": c} for c in chunks]
                calls = wire_tool_calls(reply.tool_calls, "call_")
                if calls:
                    deltas.append({"tool_calls": [{"index": i, **c} for i, c in enumerate(calls)]})
                for delta in deltas:
                    choice = {"index": 0, "delta": delta, "finish_reason": None}
                    self._event({**base, "choices": [choice]})
                finish = "tool_calls" if calls else "stop"
                self._event(
                    {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
                )
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._event({**base, "choices": [], "usage": self._usage(reply)})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _event(self, payload: dict[str, Any]) -> None:
                self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
                self.wfile.flush()

            def _error(self, status: int, message: str) -> None:
                error = {"message": message, "type": "fake_error", "code": str(status)}
                self._json(status, {"error": error})

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                self._raw(status, json.dumps(payload).encode(), "application/json")

            def _raw(self, status: int, data: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def free_port() -> int:
    """A local TCP port that nothing listens on (for connection-refused tests)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
