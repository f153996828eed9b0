"""Sending a request body we built ourselves through an official SDK client, with no walk on the event loop.

The SDKs' `create()` methods walk the whole request before sending it: OpenAI's
`async_maybe_transform` (~1.6 s for 10,000 messages on this project's machine kind) and
Anthropic's request-data copy (~0.23 s), both on the event loop. Our request bodies are already
plain JSON-ready dicts, so that walk changes nothing. Here the providers translate a long request's
messages a slice at a time on the event loop (`core.context.offload.map_in_slices`) and the body is
serialised the same way (`encode_body_in_slices`), with the SDKs' own encoder settings (UTF-8,
compact separators, no NaN: the same JSON `create()` sends, keys in our order); keys and frames
run between the slices. The bytes go through the client's
generic `post(path, content=..., stream=True, stream_cls=...)`: request building, headers,
authentication, timeouts, retries, HTTP status errors (the same SDK exception classes) and the
SSE decoding with its in-stream error events are still the SDK's.

Stream items come back as the plain dicts of each event's JSON (`AsyncStream[object]`: the SDKs
hand data cast to `object` back unchanged), which spares building pydantic objects for every
chunk of an answer; the providers read fields with `field_of`, which takes either.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any


def _jsonable(value: Any) -> Any:
    """What the SDKs' encoders do with the few non-JSON types a body may hold: mappings and sets."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return list(value)
    raise TypeError(f"a request body holds a value that is not JSON: {type(value).__name__}")


# the settings both SDKs serialise request bodies with
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_jsonable)


MESSAGES_PER_SLICE = 200  # one call of the encoder (C code) holds the event loop for its whole length
_SLOT = "\x00hermes-tui messages slot\x00"  # encodes as a JSON string no real value can produce


def _encoded_parts(body: dict[str, Any]) -> Iterator[str]:
    """The JSON text of `body` in parts whose concatenation is `encode(body)`: a long `messages`
    list is encoded a slice at a time, joined the way the encoder joins list items."""
    messages = body.get("messages")
    if not isinstance(messages, list) or len(messages) <= MESSAGES_PER_SLICE:
        yield _ENCODER.encode(body)
        return
    frame = _ENCODER.encode({**body, "messages": _SLOT})
    before, _, after = frame.partition(_ENCODER.encode(_SLOT))
    yield before + "["
    for start in range(0, len(messages), MESSAGES_PER_SLICE):
        yield ("," if start else "") + _ENCODER.encode(messages[start : start + MESSAGES_PER_SLICE])[1:-1]
    yield "]" + after


def encode_value(value: Any) -> bytes:
    """The JSON bytes of one value (a message, a block), with the SDKs' encoder settings."""
    return _ENCODER.encode(value).encode()


def body_frame(body: dict[str, Any]) -> tuple[bytes, bytes]:
    """The encoded `body` around its `messages` value, as (everything before it and `[`, `]` and
    everything after): a body is then `join_body(frame, encoded messages)`, the bytes `encode(body)` gives."""
    before, _, after = _ENCODER.encode({**body, "messages": _SLOT}).partition(_ENCODER.encode(_SLOT))
    return (before + "[").encode(), ("]" + after).encode()


def join_body(frame: tuple[bytes, bytes], messages: Sequence[bytes]) -> bytes:
    """The body from its frame and its messages' encoded bytes, in one join (one copy of the whole)."""
    head, tail = frame
    if not messages:
        return head + tail
    pieces = list(messages)
    pieces[0] = head + pieces[0]
    pieces[-1] = pieces[-1] + tail
    return b",".join(pieces)


async def encode_body_in_slices(body: dict[str, Any]) -> bytes:
    """The JSON bytes of a request body, as the SDKs would send it, returning to the event loop
    between slices of a long `messages` list (encoding 10,000 messages in one call held the loop
    ~10 ms at a stretch)."""
    parts: list[str] = []
    for part in _encoded_parts(body):  # a part is encoded only when asked for
        parts.append(part)
        if len(parts) > 1:
            await asyncio.sleep(0)
    return "".join(parts).encode()


def request_options(*, timeout: Any = None, **extra: Any) -> dict[str, Any]:
    """The per-request options of an SDK `post` (`RequestOptions`): the timeout when one is set."""
    options: dict[str, Any] = dict(extra)
    if timeout is not None:
        options["timeout"] = timeout
    return options


async def post_openai_stream(client: Any, body: bytes, *, timeout: Any = None) -> Any:
    """`chat.completions.create(stream=True, ...)` with a body already encoded; items are dicts."""
    from openai import AsyncStream

    # the security option `create()` passes: the API key as a bearer token
    options = request_options(timeout=timeout, security={"bearer_auth": True})
    return await client.post(
        "/chat/completions", cast_to=object, content=body, options=options, stream=True, stream_cls=AsyncStream[object]
    )


async def post_anthropic_stream(client: Any, body: bytes, *, timeout: Any = None) -> Any:
    """`messages.create(stream=True, ...)` with a body already encoded; items are dicts."""
    from anthropic import AsyncStream

    return await client.post(
        "/v1/messages",
        cast_to=object,
        content=body,
        options=request_options(timeout=timeout),
        stream=True,
        stream_cls=AsyncStream[object],
    )
