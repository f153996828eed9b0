"""The Anthropic provider: Messages API streaming through the official async SDK.

Translates the canonical conversation at the edge (`anthropic_wire`), marks prompt-cache
breakpoints (`caching`, strategy "system_and_3"), and turns the raw stream events into the
normalised `StreamEvent`s: text, thinking (as reasoning), tool_use (input JSON assembled from its
deltas, ids made unique), usage (prompt = input + cache read + cache write) and the stop reason
under OpenAI names. The stream runs under `stream_guard` (connect, first-byte and idle timeouts,
where `ping` and `message_start` are not content; typed transport errors). A JSON message where a
stream was expected is read as if streamed; a stream without a stop reason raises
`ProviderStreamError`; a refusal with no content raises `ProviderRefusal`. The SDK is imported on
first use, never when hermes_tui is imported; HTTP status errors propagate as the SDK's exceptions.
The request body is translated and encoded by us (in a worker for a long history) and sent through
the client's generic `post` (`prebuilt_request`); the stream's events arrive as plain dicts.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from hermes_tui.core.context.offload import map_in_slices
from hermes_tui.core.providers.anthropic_wire import (
    AnthropicPayload,
    assemble_payload,
    split_system,
    to_anthropic,
    wire_one,
)
from hermes_tui.core.providers.base import (
    ChatRequest,
    Provider,
    StreamEvent,
    StreamFinish,
    StreamReasoning,
    StreamReasoningBlock,
    StreamText,
    StreamToolCall,
    StreamUsage,
    Usage,
    field_of,
    unique_call_id,
)
from hermes_tui.core.providers.caching import apply_anthropic_cache_control
from hermes_tui.core.providers.failures import ProviderRefusal, ProviderStreamError
from hermes_tui.core.providers.plain_body import read_plain_body
from hermes_tui.core.providers.prebuilt_request import encode_body_in_slices, post_anthropic_stream
from hermes_tui.core.providers.sdk_client import SdkClientHolder
from hermes_tui.core.providers.stream_guard import GuardedStream, StreamTimeouts

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

DEFAULT_MAX_TOKENS = 4096
DEFAULT_ENDPOINT = "https://api.anthropic.com"
THINKING_ANSWER_ROOM = 4096  # tokens of max_tokens left for the answer when thinking is on (as Hermes)
_CONTENT_EVENTS = frozenset({"content_block_start", "content_block_stop", "message_delta", "message_stop"})
_DELTA_FIELDS = ("text", "thinking", "partial_json", "signature")
STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class _StreamState:
    """What one Anthropic stream has said so far, folded from its raw events."""

    def __init__(self, endpoint: str = DEFAULT_ENDPOINT) -> None:
        self.endpoint = endpoint
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read = 0
        self.cache_write = 0
        self.saw_usage = False
        self.stop_reason: str | None = None
        self.blocks: dict[int, dict[str, Any]] = {}
        self.tool_calls = 0
        self.stopped = False  # message_stop seen
        self.content_seen = False
        self._seen_ids: set[str] = set()

    def take_usage(self, usage: Any) -> None:
        if usage is None:
            return
        self.saw_usage = True
        for attr, field in (
            ("input_tokens", "input_tokens"),
            ("output_tokens", "output_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
        ):
            value = field_of(usage, field)
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(self, attr, value)

    def usage(self) -> Usage:
        return Usage(
            prompt_tokens=self.input_tokens + self.cache_read + self.cache_write,
            completion_tokens=self.output_tokens,
            cache_read_tokens=self.cache_read,
            cache_write_tokens=self.cache_write,
        )

    def feed(self, event: Any) -> list[StreamEvent]:
        out = self._fold(event)
        self.content_seen = self.content_seen or bool(out)
        return out

    def _fold(self, event: Any) -> list[StreamEvent]:
        kind = field_of(event, "type")
        if kind == "message_start":
            self.take_usage(field_of(field_of(event, "message"), "usage"))
        elif kind == "content_block_start":
            block = field_of(event, "content_block")
            index = _int(field_of(event, "index"))
            self.blocks[index] = {
                "type": field_of(block, "type"),
                "id": field_of(block, "id") or "",
                "name": field_of(block, "name") or "",
                "input": field_of(block, "input"),
                "json": [],
                "thinking": [field_of(block, "thinking") or ""],
                "signature": field_of(block, "signature") or "",
                "data": field_of(block, "data") or "",
            }
            if field_of(block, "type") == "text" and field_of(block, "text"):
                return [StreamText(field_of(block, "text"))]
            if field_of(block, "type") == "thinking" and field_of(block, "thinking"):
                return [StreamReasoning(field_of(block, "thinking"))]
        elif kind == "content_block_delta":
            return self._delta(_int(field_of(event, "index")), field_of(event, "delta"))
        elif kind == "content_block_stop":
            return self._block_stop(_int(field_of(event, "index")))
        elif kind == "message_delta":
            self.stop_reason = field_of(field_of(event, "delta"), "stop_reason") or self.stop_reason
            self.take_usage(field_of(event, "usage"))
        elif kind == "message_stop":
            self.stopped = True
        return []

    def _delta(self, index: int, delta: Any) -> list[StreamEvent]:
        kind = field_of(delta, "type")
        if kind == "text_delta":
            text = field_of(delta, "text") or ""
            return [StreamText(text)] if text else []
        if kind == "thinking_delta":
            text = field_of(delta, "thinking") or ""
            if text and index in self.blocks:
                self.blocks[index]["thinking"].append(text)
            return [StreamReasoning(text)] if text else []
        if kind == "signature_delta" and index in self.blocks:
            self.blocks[index]["signature"] += field_of(delta, "signature") or ""
            return []
        if kind == "input_json_delta":
            block = self.blocks.setdefault(index, {"type": "tool_use", "id": "", "name": "", "input": None, "json": []})
            block["json"].append(field_of(delta, "partial_json") or "")
        return []

    def _block_stop(self, index: int) -> list[StreamEvent]:
        block = self.blocks.pop(index, None)
        if block and block["type"] in ("thinking", "redacted_thinking"):
            return _reasoning_block(block)
        if not block or block["type"] != "tool_use":
            return []
        arguments = "".join(block["json"])
        if not arguments.strip():
            start_input = block["input"]
            arguments = json.dumps(start_input) if isinstance(start_input, dict) else "{}"
        self.tool_calls += 1
        call_id = unique_call_id(str(block["id"] or f"toolu_{index}_{uuid.uuid4().hex[:8]}"), self._seen_ids)
        return [StreamToolCall(id=call_id, name=block["name"], arguments=arguments)]

    def finish_reason(self) -> str:
        """The normalised finish reason. Raises for a cut-off stream or a refusal with no content."""
        if not self.stop_reason and not self.stopped:
            if self.content_seen or self.blocks:
                raise ProviderStreamError(
                    "truncated", f"the stream from {self.endpoint} ended mid-answer (no stop reason)"
                )
            raise ProviderStreamError("empty", f"the stream from {self.endpoint} ended without an answer")
        if self.stop_reason:
            finish = STOP_REASONS.get(self.stop_reason, self.stop_reason)
        else:
            finish = "tool_calls" if self.tool_calls else "stop"
        if finish == "content_filter" and not self.content_seen:
            raise ProviderRefusal(self.stop_reason or finish)
        return finish


def _reasoning_block(block: dict[str, Any]) -> list[StreamEvent]:
    """A finished thinking block, kept with its signature so it can be sent back as Anthropic requires."""
    if block["type"] == "redacted_thinking":
        return [StreamReasoningBlock({"type": "redacted_thinking", "data": block["data"]})] if block["data"] else []
    if not block["signature"]:
        return []  # an unsigned block cannot be replayed
    thinking = "".join(block["thinking"])
    return [StreamReasoningBlock({"type": "thinking", "thinking": thinking, "signature": block["signature"]})]


def is_content_event(event: Any) -> bool:
    """True when a stream event carries part of the answer (`message_start`, pings and empty deltas do not)."""
    kind = field_of(event, "type")
    if kind in _CONTENT_EVENTS:
        return True
    if kind == "content_block_delta":
        delta = field_of(event, "delta")
        return any(field_of(delta, name) for name in _DELTA_FIELDS)
    return False


def message_as_events(body: dict[str, Any], endpoint: str) -> list[dict[str, Any]]:
    """A non-streamed Messages answer (a server that ignored `stream`) as its equivalent stream events."""
    content = body.get("content")
    if body.get("type") != "message" or not isinstance(content, list):
        raise ProviderStreamError("not_a_stream", f"{endpoint} answered with JSON that holds no message")
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {"usage": body.get("usage")}}]
    for index, block in enumerate(item for item in content if isinstance(item, dict)):
        events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    delta = {"stop_reason": body.get("stop_reason") or "end_turn"}
    events.append({"type": "message_delta", "delta": delta, "usage": body.get("usage")})
    events.append({"type": "message_stop"})
    return events


class AnthropicProvider(SdkClientHolder["AsyncAnthropic"], Provider):
    """Claude through `AsyncAnthropic(...).messages.create(stream=True)`; reusable across calls."""

    name = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str = "",
        timeout: float | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        prompt_caching: bool = True,
        thinking_budget: int = 0,
        timeouts: StreamTimeouts | None = None,
    ) -> None:
        super().__init__(model)
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.prompt_caching = prompt_caching
        self.thinking_budget = thinking_budget
        self.timeouts = timeouts or StreamTimeouts()
        self._client: AsyncAnthropic | None = None
        self._retired: list[AsyncAnthropic] = []

    @property
    def endpoint(self) -> str:
        """Where requests go, for error messages."""
        return self.base_url or DEFAULT_ENDPOINT

    def _new_client(self) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic  # lazy: ~1 s of imports

        kwargs: dict[str, Any] = {"api_key": self.api_key, "max_retries": 0}
        if self.base_url:
            kwargs["base_url"] = self.base_url
        kwargs["timeout"] = self.timeouts.http_timeout(self.timeout)
        return AsyncAnthropic(**kwargs)

    def _marked(self, request: ChatRequest) -> list[dict[str, Any]]:
        if self.prompt_caching:
            return apply_anthropic_cache_control(request.messages, request.cache_ttl, native_anthropic=True)
        return request.messages

    def build_params(self, request: ChatRequest, *, payload: AnthropicPayload | None = None) -> dict[str, Any]:
        """The keyword arguments of `messages.create` for this request (no network); `payload`: its
        messages already translated (`_payload_in_slices`)."""
        if payload is None:
            payload = to_anthropic(self._marked(request), request.tools)
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens or self.max_tokens,
            "messages": payload.messages,
        }
        if payload.system:
            params["system"] = payload.system
        if payload.tools:
            params["tools"] = payload.tools
        if self.thinking_budget > 0:
            params["thinking"] = {"type": "enabled", "budget_tokens": self.thinking_budget}
            # the budget is part of max_tokens, which must exceed it (room for the answer itself)
            params["max_tokens"] = max(params["max_tokens"], self.thinking_budget + THINKING_ANSWER_ROOM)
        return params

    async def _payload_in_slices(self, request: ChatRequest) -> AnthropicPayload:
        system, rest = split_system(self._marked(request))
        return assemble_payload(system, await map_in_slices(wire_one, rest), request.tools)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        # the body `messages.create(stream=True, **build_params(...))` would send, translated and
        # encoded a slice at a time (translation + the SDK's copy: ~0.45 s at 10,000 messages)
        payload = await self._payload_in_slices(request)
        body = await encode_body_in_slices({**self.build_params(request, payload=payload), "stream": True})
        timeout = self.timeouts.http_timeout(request.timeout) if request.timeout is not None else None
        client = await self._client_ready()
        guard = GuardedStream(self.timeouts, self.endpoint, request.timeout or self.timeout)
        state = _StreamState(self.endpoint)
        sdk_stream = await guard.open(post_anthropic_stream(client, body, timeout=timeout))
        async with sdk_stream:
            plain = await read_plain_body(guard, sdk_stream)
            if plain is not None:
                raw_events = plain.events if plain.whole is None else message_as_events(plain.whole, self.endpoint)
                for raw in raw_events:
                    for normalised in state.feed(raw):
                        yield normalised
            else:
                async for event in guard.items(sdk_stream):
                    if is_content_event(event):
                        guard.progress()
                    for normalised in state.feed(event):
                        yield normalised
        finish = state.finish_reason()
        if state.saw_usage:
            yield StreamUsage(state.usage())
        yield StreamFinish(finish)
