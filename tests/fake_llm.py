"""A loopback fake LLM server for tests: OpenAI chat-completions SSE and Anthropic messages SSE.

A stdlib `ThreadingHTTPServer` on 127.0.0.1 runs in a daemon thread and answers, over HTTP/1.1
chunked `text/event-stream`, with whatever the test scripted:

    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="hi", usage=(10, 2, 0, 0)), Fail(429, "slow down"))
        client = AsyncOpenAI(base_url=srv.base_url_openai, api_key="k", max_retries=0)

Steps are consumed one per request, in order; an empty queue answers with `Reply(text="ok")`.
Every request is recorded in `srv.requests` (path, lower-cased headers, parsed JSON body).
The same steps render in each protocol's real wire shape, chosen by the request path.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# --------------------------------------------------------------------------- steps


@dataclass
class Reply:
    """A successful streamed answer. Text and tool arguments are cut into `chunk_size` pieces.

    `usage` is (prompt, completion, cache_read, cache_write) with `prompt` the WHOLE prompt: the
    Anthropic rendering reports `input_tokens = prompt - cache_read - cache_write`.
    `finish` takes OpenAI names ("stop", "tool_calls", "length", "content_filter") or a
    protocol-native value, passed through as is; None = "tool_calls" when there are calls, else "stop".
    """

    text: str = ""
    tool_calls: list[tuple[str, str, str]] = field(default_factory=list)
    reasoning: str = ""
    usage: tuple[int, int, int, int] = (12, 3, 0, 0)
    finish: str | None = None
    chunk_size: int = 4
    delay_per_chunk: float = 0.0
    reasoning_tokens: int = 0
    reasoning_field: str = "reasoning_content"  # OpenAI-compatible servers use this or "reasoning"


@dataclass
class Fail:
    """An HTTP error with the protocol's real error body (`body` overrides it verbatim)."""

    status: int
    message: str
    code: str | None = None
    type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None


@dataclass
class StreamError:
    """An error event inside a 200 stream, after `after_chunks` events of `reply`."""

    after_chunks: int
    message: str
    type: str = "overloaded_error"
    reply: Reply = field(default_factory=lambda: Reply(text="partial answer before the failure"))


@dataclass
class Disconnect:
    """Close the socket mid-stream (no terminating chunk) after `after_chunks` events of `reply`."""

    after_chunks: int
    reply: Reply = field(default_factory=lambda: Reply(text="partial answer before the drop"))


@dataclass
class Hang:
    """Send a first text delta, then wait up to `seconds` (released when the server stops)."""

    seconds: float
    first_text: str = "thinking about it"
    reply: Reply = field(default_factory=lambda: Reply(text=" and done"))


Step = Reply | Fail | StreamError | Disconnect | Hang


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


# --------------------------------------------------------------------------- wire rendering


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


_OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    402: "billing_error",
    403: "permission_error",
    404: "invalid_request_error",
    413: "invalid_request_error",
    429: "requests",
}
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_TO_ANTHROPIC_STOP = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def openai_error_body(fail: Fail) -> Any:
    if fail.body is not None:
        return fail.body
    kind = fail.type or _OPENAI_ERROR_TYPES.get(fail.status, "server_error")
    return {"error": {"message": fail.message, "type": kind, "code": fail.code, "param": None}}


def anthropic_error_body(fail: Fail) -> Any:
    if fail.body is not None:
        return fail.body
    kind = fail.type or _ANTHROPIC_ERROR_TYPES.get(fail.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": fail.message}}


def openai_events(
    reply: Reply, model: str, include_usage: bool, text_pieces: list[str] | None = None
) -> list[tuple[str, str]]:
    """(kind, SSE text) of an OpenAI chat-completions stream, `[DONE]` included; kind "text" marks deltas."""
    base = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        payload = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(payload)}\n\n"

    out = [("other", chunk({"role": "assistant", "content": ""}))]
    out += [("other", chunk({reply.reasoning_field: p})) for p in _pieces(reply.reasoning, reply.chunk_size)]
    pieces = _pieces(reply.text, reply.chunk_size) if text_pieces is None else text_pieces
    out += [("text", chunk({"content": p})) for p in pieces]
    for index, (call_id, name, args) in enumerate(reply.tool_calls):
        head = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        out.append(("other", chunk({"tool_calls": [head]})))
        for piece in _pieces(args, reply.chunk_size):
            out.append(("other", chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})))
    finish = reply.finish or ("tool_calls" if reply.tool_calls else "stop")
    out.append(("other", chunk({}, finish)))
    if include_usage:
        prompt, completion, cache_read, _cache_write = reply.usage
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cache_read},
            "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        }
        out.append(("other", f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}\n\n"))
    out.append(("other", "data: [DONE]\n\n"))
    return out


def anthropic_events(reply: Reply, model: str, text_pieces: list[str] | None = None) -> list[tuple[str, str]]:
    """(kind, SSE text) of an Anthropic messages stream; kind "text" marks text deltas."""
    out: list[tuple[str, str]] = []

    def event(name: str, data: dict[str, Any], kind: str = "other") -> None:
        out.append((kind, f"event: {name}\ndata: {json.dumps(data)}\n\n"))

    prompt, completion, cache_read, cache_write = reply.usage
    start_usage = {
        "input_tokens": max(0, prompt - cache_read - cache_write),
        "output_tokens": 1,
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_write,
    }
    message = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    event("message_start", {"type": "message_start", "message": message})
    event("ping", {"type": "ping"})
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]], str]] = []
    if reply.reasoning:
        deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(reply.reasoning, reply.chunk_size)]
        deltas.append({"type": "signature_delta", "signature": "c2lnbmF0dXJl"})
        blocks.append(({"type": "thinking", "thinking": "", "signature": ""}, deltas, "other"))
    pieces = _pieces(reply.text, reply.chunk_size) if text_pieces is None else text_pieces
    if pieces:
        blocks.append(({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in pieces], "text"))
    for call_id, name, args in reply.tool_calls:
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(args, reply.chunk_size)]
        blocks.append(({"type": "tool_use", "id": call_id, "name": name, "input": {}}, deltas, "other"))
    for index, (content_block, deltas, kind) in enumerate(blocks):
        event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": content_block},
        )
        for delta in deltas:
            event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}, kind)
        event("content_block_stop", {"type": "content_block_stop", "index": index})
    finish = reply.finish or ("tool_calls" if reply.tool_calls else "stop")
    event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _TO_ANTHROPIC_STOP.get(finish, finish), "stop_sequence": None},
            "usage": {"output_tokens": completion},
        },
    )
    event("message_stop", {"type": "message_stop"})
    return out


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

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = raw.decode("utf-8", "replace")
        fake = self.server.fake
        headers = {k.lower(): v for k, v in self.headers.items()}
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
        model = body.get("model", "fake-model") if isinstance(body, dict) else "fake-model"
        if isinstance(step, Fail):
            payload = anthropic_error_body(step) if anthropic else openai_error_body(step)
            self._send_json(step.status, payload, step.headers)
            return
        include_usage = bool(isinstance(body, dict) and (body.get("stream_options") or {}).get("include_usage"))
        try:
            self._stream(step, anthropic, model, include_usage)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

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

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _stream(self, step: Step, anthropic: bool, model: str, include_usage: bool) -> None:
        reply = step if isinstance(step, Reply) else step.reply
        pieces = None
        if isinstance(step, Hang):
            pieces = [step.first_text, *_pieces(reply.text, reply.chunk_size)]
        if anthropic:
            events = anthropic_events(reply, model, pieces)
        else:
            events = openai_events(reply, model, include_usage, pieces)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        stop = self.server.fake.stopping
        hang_after = -1
        if isinstance(step, Hang):
            hang_after = next(i for i, (kind, _) in enumerate(events) if kind == "text")
        limit = step.after_chunks if isinstance(step, (StreamError, Disconnect)) else len(events)
        for position, (_kind, event) in enumerate(events[:limit]):
            if reply.delay_per_chunk and stop.wait(reply.delay_per_chunk):
                self._abort()
                return
            self._chunk(event)
            if position == hang_after and stop.wait(step.seconds):  # type: ignore[union-attr]
                self._abort()
                return
        if isinstance(step, Disconnect):
            self._abort()
            return
        if isinstance(step, StreamError):
            if anthropic:
                error = {"type": "error", "error": {"type": step.type, "message": step.message}}
                self._chunk(f"event: error\ndata: {json.dumps(error)}\n\n")
            else:
                error = {"error": {"message": step.message, "type": step.type, "code": None, "param": None}}
                self._chunk(f"data: {json.dumps(error)}\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _abort(self) -> None:
        """Drop the connection without the terminating chunk: the client sees a broken stream."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: FakeLLMServer) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)


class FakeLLMServer:
    """The scriptable loopback server; use as a context manager."""

    def __init__(self) -> None:
        self._steps: deque[Step] = deque()
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self.requests: list[RecordedRequest] = []
        self.stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> FakeLLMServer:
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-llm", daemon=True
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
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url_openai(self) -> str:
        return f"{self.base_url_anthropic}/v1"

    # ----------------------------------------------------------------- scripting

    def enqueue(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    def next_step(self) -> Step:
        with self._lock:
            return self._steps.popleft() if self._steps else Reply(text="ok")

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    @property
    def last_body(self) -> Any:
        """The parsed JSON body of the latest request."""
        with self._lock:
            return self.requests[-1].body

    async def wait_for_requests(self, count: int, timeout: float = 5.0) -> None:
        """Poll, without blocking the event loop, until `count` requests arrived (else AssertionError)."""
        deadline = time.monotonic() + timeout
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
