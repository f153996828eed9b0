"""The scripted answers of the fake LLM server: one step is consumed per request.

Well-formed answers (`Reply`), HTTP errors (`Fail`), and the faults a real provider or the
network produces: errors inside a stream, dropped or reset connections, stalls before or after
the response headers, keep-alive-only streams, verbatim (malformed, truncated, compressed,
HTML) responses. `ByProtocol` picks a different step for the OpenAI and the Anthropic route.
`tests.fake_llm` re-exports every name here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """A successful streamed answer. Text and tool arguments are cut into `chunk_size` pieces.

    `usage` is (prompt, completion, cache_read, cache_write) with `prompt` the WHOLE prompt: the
    Anthropic rendering reports `input_tokens = prompt - cache_read - cache_write`.
    `finish` takes OpenAI names ("stop", "tool_calls", "length", "content_filter") or a
    protocol-native value, passed through as is; None = "tool_calls" when there are calls, else "stop".
    `send_finish=False` leaves the finish reason out (OpenAI `finish_reason`, Anthropic `message_delta`);
    `terminal=False` leaves out the closing `data: [DONE]` / `message_stop`.
    `inject` are raw SSE texts sent right after the first event (unknown event types, comments...).
    `paced=True` sends chunk i at `i * delay_per_chunk` after the first (an absolute schedule: a
    slow sleep does not lower the rate, only a reader that falls behind does); else each chunk
    waits `delay_per_chunk` after the previous one.
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
    send_finish: bool = True
    terminal: bool = True
    inject: list[str] = field(default_factory=list)
    paced: bool = False


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
    """Send a first text delta, then wait up to `seconds` (released when the server stops).

    With `release`, the pause also ends as soon as the test sets that event; the stream then
    completes normally (the rest of `reply`, the finish reason, the closing event).
    """

    seconds: float
    first_text: str = "thinking about it"
    reply: Reply = field(default_factory=lambda: Reply(text=" and done"))
    release: threading.Event | None = None


@dataclass
class Stall:
    """Read the request, then stay silent for `seconds` and drop the connection.

    `phase="headers"`: nothing at all is sent. `phase="body"`: the 200 event-stream headers are
    sent, then nothing (no event, no keep-alive).
    """

    seconds: float
    phase: str = "headers"


@dataclass
class KeepAlive:
    """A stream that only keeps the connection warm for `seconds`, then drops it.

    After the protocol's opening event (OpenAI: a role-only chunk; Anthropic: `message_start`) and
    the optional `text` deltas, it sends every `interval` seconds what real servers send while idle:
    Anthropic `ping` events; OpenAI SSE comments, blank lines and chunks with an empty delta.
    """

    seconds: float
    interval: float = 0.05
    text: str = ""


@dataclass
class Reset:
    """Abort the connection with a TCP reset (RST).

    `after_chunks=None`: right after reading the request, before any response byte. Otherwise the
    200 headers and `after_chunks` events of `reply` are sent first.
    """

    after_chunks: int | None = None
    reply: Reply = field(default_factory=lambda: Reply(text="partial answer before the reset"))


@dataclass
class Raw:
    """A verbatim HTTP response: status, headers and body bytes, framed by Content-Length."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass
class RawStream:
    """A 200 `text/event-stream` of verbatim SSE texts or raw bytes (sent one per chunk), then a clean end."""

    events: list[str | bytes] = field(default_factory=list)


@dataclass
class ByProtocol:
    """A different step for each route: `openai` for /chat/completions, `anthropic` for /messages."""

    openai: Step
    anthropic: Step


@dataclass
class RejectImages:
    """A provider's image check: a request whose body holds an image of more than `max_bytes` (base64
    characters) is answered with `Fail(400, message)`, any other with `otherwise`. `max_bytes=0`
    refuses every image (a model without vision). `largest` records the biggest image seen."""

    max_bytes: int
    message: str
    otherwise: Any = None
    largest: list[int] = field(default_factory=list)

    def resolve(self, body: Any) -> Any:
        sizes = [len(data) for data in image_payloads(body)]
        self.largest.append(max(sizes, default=-1))
        if any(size > self.max_bytes for size in sizes):
            return Fail(400, self.message)
        return self.otherwise if self.otherwise is not None else Reply(text="ok")


def image_payloads(node: Any) -> list[str]:
    """The base64 payloads of every image in a request body (OpenAI data URLs, Anthropic base64 sources)."""
    found: list[str] = []
    if isinstance(node, dict):
        if node.get("type") == "base64" and isinstance(node.get("data"), str):
            found.append(node["data"])
        for value in node.values():
            found += image_payloads(value)
    elif isinstance(node, list):
        for item in node:
            found += image_payloads(item)
    elif isinstance(node, str) and node.startswith("data:image/"):
        found.append(node.partition(",")[2])
    return found


Step = (
    Reply
    | Fail
    | StreamError
    | Disconnect
    | Hang
    | Stall
    | KeepAlive
    | Reset
    | Raw
    | RawStream
    | ByProtocol
    | RejectImages
)
