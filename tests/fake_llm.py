"""A loopback fake LLM server for tests: OpenAI chat-completions SSE and Anthropic messages SSE.

A stdlib `ThreadingHTTPServer` on 127.0.0.1 runs in a daemon thread and answers, over HTTP/1.1
chunked `text/event-stream`, with whatever the test scripted:

    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="hi", usage=(10, 2, 0, 0)), Fail(429, "slow down"))
        client = AsyncOpenAI(base_url=srv.base_url_openai, api_key="k", max_retries=0)

Steps (`tests.fake_llm_steps`) are consumed one per request, in order; an empty queue answers
with `Reply(text="ok")`. `RejectImages` answers by what the request holds (a 400 for an image over
a size, or for any image). Besides answers and HTTP errors the server injects faults: errors inside
a stream, dropped and reset connections, stalls, keep-alive-only streams and verbatim responses.
`refused_url()` and `BlackHole` give addresses that refuse, or never accept, a connection.
Every model request is recorded in `srv.requests` (path, lower-cased headers, parsed JSON body).
The same steps render in each protocol's real wire shape (`tests.fake_llm_wire`), chosen by path.

`FakeLLMServer(tls=context)` serves HTTPS (`srv.connections` counts accepted connections).
Local servers also describe their models: `srv.serve_json("GET", "/v1/models", {...})` answers a
metadata route (vLLM/llama.cpp/LM Studio `/v1/models`, llama.cpp `/props`, Ollama `POST /api/show`)
with that JSON; those requests are recorded in `srv.metadata_requests`, and a metadata route nobody
scripted answers 404 (as a server without it would).
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fake_llm_steps import (
    ByProtocol,
    Disconnect,
    Fail,
    Hang,
    KeepAlive,
    Raw,
    RawStream,
    RejectImages,
    Reply,
    Reset,
    Stall,
    Step,
    StreamError,
)
from tests.fake_llm_wire import (
    anthropic_error_body,
    anthropic_events,
    error_event,
    keep_alive_events,
    openai_error_body,
    openai_events,
)
from tests.waits import guard

__all__ = [
    "BlackHole",
    "ByProtocol",
    "Disconnect",
    "Fail",
    "FakeLLMServer",
    "Hang",
    "KeepAlive",
    "Raw",
    "RawStream",
    "RecordedRequest",
    "RejectImages",
    "Reply",
    "Reset",
    "Stall",
    "Step",
    "StreamError",
    "anthropic_error_body",
    "anthropic_events",
    "openai_error_body",
    "openai_events",
    "refused_url",
]


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def api_key(self) -> str:
        """The key the client sent, from `x-api-key` or `Authorization: Bearer`."""
        if self.headers.get("x-api-key"):
            return self.headers["x-api-key"]
        auth = self.headers.get("authorization", "")
        return auth[7:] if auth.lower().startswith("bearer ") else ""


# --------------------------------------------------------------------------- server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.server.fake.track(self.connection)

    def finish(self) -> None:
        self.server.fake.untrack(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    # ----------------------------------------------------------------- entry

    def do_GET(self) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        self._metadata("GET", RecordedRequest(self.path, headers, None))

    def _metadata(self, method: str, request: RecordedRequest) -> None:
        fake = self.server.fake
        fake.record_metadata(request)
        route = fake.metadata_route(method, request.path)
        if route is None:
            self._send_json(404, {"error": {"message": f"no route {request.path}", "type": "not_found"}})
            return
        status, payload = route
        self._send_json(status, payload)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = raw.decode("utf-8", "replace")
        fake = self.server.fake
        headers = {k.lower(): v for k, v in self.headers.items()}
        if self.path.rstrip("/").endswith("/api/show"):
            self._metadata("POST", RecordedRequest(self.path, headers, body))
            return
        fake.record(RecordedRequest(self.path, headers, body))
        anthropic = self.path.rstrip("/").endswith("/messages")
        if not self.path.rstrip("/").endswith(("/chat/completions", "/messages")):
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        request = RecordedRequest(self.path, headers, body)
        if not request.api_key:
            fail = Fail(401, "missing API key")
            self._send_json(401, anthropic_error_body(fail) if anthropic else openai_error_body(fail))
            return
        step = fake.next_step()
        if isinstance(step, ByProtocol):
            step = step.anthropic if anthropic else step.openai
        if isinstance(step, RejectImages):
            step = step.resolve(body)
        model = body.get("model", "fake-model") if isinstance(body, dict) else "fake-model"
        include_usage = bool(isinstance(body, dict) and (body.get("stream_options") or {}).get("include_usage"))
        try:
            self._answer(step, anthropic, model, include_usage)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _answer(self, step: Step, anthropic: bool, model: str, include_usage: bool) -> None:
        if isinstance(step, Fail):
            payload = anthropic_error_body(step) if anthropic else openai_error_body(step)
            self._send_json(step.status, payload, step.headers)
        elif isinstance(step, Raw):
            self._send_raw(step)
        elif isinstance(step, Stall):
            if step.phase != "headers":
                self._start_event_stream()
            self._wait(step.seconds)
            self._abort()
        elif isinstance(step, Reset) and step.after_chunks is None:
            self._reset()
        elif isinstance(step, RawStream):
            self._start_event_stream()
            for event in step.events:
                self._chunk(event)
            self._end_chunks()
        elif isinstance(step, KeepAlive):
            self._keep_alive(step, anthropic, model)
        else:
            self._stream(step, anthropic, model, include_usage)

    # ----------------------------------------------------------------- responses

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_raw(self, step: Raw) -> None:
        self.send_response(step.status)
        names = {key.lower() for key in step.headers}
        for key, value in step.headers.items():
            self.send_header(key, value)
        if "content-length" not in names:
            self.send_header("Content-Length", str(len(step.body)))
        self.end_headers()
        self.wfile.write(step.body)
        self.wfile.flush()

    def _start_event_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def _chunk(self, text: str | bytes) -> None:
        data = text if isinstance(text, bytes) else text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _wait(self, seconds: float) -> bool:
        """Wait `seconds`; True when the server is stopping (the caller should give up)."""
        return self.server.fake.stopping.wait(seconds)

    def _pause(self, step: Hang) -> bool:
        """A Hang's pause: until `seconds` pass or its `release` is set; True when the server is stopping."""
        if step.release is None:
            return self._wait(step.seconds)
        deadline = time.monotonic() + step.seconds
        while not step.release.wait(0.01) and time.monotonic() < deadline:
            if self.server.fake.stopping.is_set():
                return True
        return self.server.fake.stopping.is_set()

    def _stream(self, step: Step, anthropic: bool, model: str, include_usage: bool) -> None:
        reply = step.reply if isinstance(step, (StreamError, Disconnect, Hang, Reset)) else step
        assert isinstance(reply, Reply), f"not a streamable step: {step!r}"
        pieces = None
        if isinstance(step, Hang):
            pieces = [step.first_text, *_pieces(reply.text, reply.chunk_size)]
        if anthropic:
            events = anthropic_events(reply, model, pieces)
        else:
            events = openai_events(reply, model, include_usage, pieces)
        self._start_event_stream()
        hang_after = -1
        if isinstance(step, Hang):
            hang_after = next(i for i, (kind, _) in enumerate(events) if kind == "text")
        limit = len(events)
        if isinstance(step, (StreamError, Disconnect, Reset)):
            limit = step.after_chunks or 0
        began = time.monotonic()
        for position, (_kind, event) in enumerate(events[:limit]):
            delay = reply.delay_per_chunk
            if delay and reply.paced:
                delay = began + position * delay - time.monotonic()
            if delay > 0 and self._wait(delay):
                self._abort()
                return
            self._chunk(event)
            if position == hang_after and self._pause(step):  # type: ignore[arg-type]
                self._abort()
                return
        if isinstance(step, Disconnect):
            self._abort()
            return
        if isinstance(step, Reset):
            self._reset()
            return
        if isinstance(step, StreamError):
            self._chunk(error_event(anthropic, step.message, step.type))
        self._end_chunks()

    def _keep_alive(self, step: KeepAlive, anthropic: bool, model: str) -> None:
        self._start_event_stream()
        reply = Reply(text=step.text, send_finish=False, terminal=False)
        events = anthropic_events(reply, model) if anthropic else openai_events(reply, model, False)
        for _kind, event in events:
            self._chunk(event)
        deadline = time.monotonic() + step.seconds
        while time.monotonic() < deadline:
            if self._wait(step.interval):
                break
            for event in keep_alive_events(anthropic, model):
                self._chunk(event)
        self._abort()

    def _abort(self) -> None:
        """Drop the connection without the terminating chunk: the client sees a broken stream."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _reset(self) -> None:
        """Abort with a TCP reset: SO_LINGER 0, then close (the client reads ECONNRESET)."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: FakeLLMServer) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)
        if fake.tls is not None:  # the handshake runs in the handler's thread, on its first read
            self.socket = fake.tls.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)

    def get_request(self) -> tuple[socket.socket, Any]:
        connection = super().get_request()
        self.fake.note_connection()
        return connection


class FakeLLMServer:
    """The scriptable loopback server; use as a context manager."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls  # serve HTTPS with this server context (e.g. a self-signed certificate)
        self.connections = 0  # TCP connections accepted (each client attempt opens one or more)
        self._steps: deque[Step] = deque()
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self.requests: list[RecordedRequest] = []
        self.metadata_requests: list[RecordedRequest] = []
        self._metadata: dict[tuple[str, str], tuple[int, Any]] = {}
        self.stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> FakeLLMServer:
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._server is None:
            return
        self._server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----------------------------------------------------------------- addresses

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url_anthropic(self) -> str:
        return f"{'https' if self.tls is not None else 'http'}://127.0.0.1:{self.port}"

    @property
    def base_url_openai(self) -> str:
        return f"{self.base_url_anthropic}/v1"

    # ----------------------------------------------------------------- scripting

    def enqueue(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    def clear(self) -> None:
        """Drop the steps not consumed yet (a client that was killed will not ask for them)."""
        with self._lock:
            self._steps.clear()

    def next_step(self) -> Step:
        with self._lock:
            return self._steps.popleft() if self._steps else Reply(text="ok")

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def note_connection(self) -> None:
        with self._lock:
            self.connections += 1

    def serve_json(self, method: str, path: str, payload: Any, status: int = 200) -> None:
        """Answer `method path` (a metadata route such as GET /v1/models) with `payload` as JSON."""
        with self._lock:
            self._metadata[(method.upper(), path)] = (status, payload)

    def metadata_route(self, method: str, path: str) -> tuple[int, Any] | None:
        with self._lock:
            return self._metadata.get((method.upper(), path.split("?", 1)[0]))

    def record_metadata(self, request: RecordedRequest) -> None:
        with self._lock:
            self.metadata_requests.append(request)

    @property
    def last_body(self) -> Any:
        """The parsed JSON body of the latest request."""
        with self._lock:
            return self.requests[-1].body

    async def wait_for_requests(self, count: int, timeout: float | None = None) -> None:
        """Poll, without blocking the event loop, until `count` requests arrived (else AssertionError after
        the hang guard, `guard(timeout)` seconds)."""
        deadline = time.monotonic() + guard(timeout)
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.requests) >= count:
                    return
            await asyncio.sleep(0.01)
        raise AssertionError(f"expected {count} requests, got {len(self.requests)}")

    # ----------------------------------------------------------------- connections

    def track(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)

    def untrack(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)


# --------------------------------------------------------------------------- dead addresses


def refused_url(path: str = "") -> str:
    """A loopback URL where nothing listens: connecting fails at once with ECONNREFUSED."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return f"http://127.0.0.1:{port}{path}"


class BlackHole:
    """A loopback port whose accept queue is full: a new connection attempt hangs (SYNs are dropped).

    Use as a context manager; `url(path)` gives the address. The connect timeout is what ends it.
    """

    def __init__(self) -> None:
        self._listener = socket.socket()
        self._fillers: list[socket.socket] = []

    def __enter__(self) -> BlackHole:
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(0)
        port = self._listener.getsockname()[1]
        for _ in range(3):  # fill the (backlog + 1) accept queue; never accept
            filler = socket.socket()
            filler.setblocking(False)
            try:
                filler.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            self._fillers.append(filler)
        return self

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}{path}"

    def __exit__(self, *exc: object) -> None:
        for sock in [*self._fillers, self._listener]:
            sock.close()
