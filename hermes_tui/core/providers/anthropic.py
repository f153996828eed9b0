"""The Anthropic provider: Messages API streaming through the official async SDK.

Translates the canonical conversation at the edge (`anthropic_wire`), marks prompt-cache
breakpoints (`caching`, strategy "system_and_3"), and turns the raw stream events into the
normalised `StreamEvent`s: text, thinking (as reasoning), tool_use (input JSON assembled from its
deltas), usage (prompt = input + cache read + cache write) and the stop reason under OpenAI names.
The SDK is imported on first use, never when hermes_tui is imported; SDK exceptions propagate.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from hermes_tui.core.providers.anthropic_wire import to_anthropic
from hermes_tui.core.providers.base import (
    ChatRequest,
    Provider,
    StreamEvent,
    StreamFinish,
    StreamReasoning,
    StreamText,
    StreamToolCall,
    StreamUsage,
    Usage,
)
from hermes_tui.core.providers.caching import apply_anthropic_cache_control

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

DEFAULT_MAX_TOKENS = 4096
STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}


def _field(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class _StreamState:
    """What one Anthropic stream has said so far, folded from its raw events."""

    def __init__(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read = 0
        self.cache_write = 0
        self.saw_usage = False
        self.stop_reason: str | None = None
        self.blocks: dict[int, dict[str, Any]] = {}
        self.tool_calls = 0

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
            value = _field(usage, field)
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
        kind = _field(event, "type")
        if kind == "message_start":
            self.take_usage(_field(_field(event, "message"), "usage"))
        elif kind == "content_block_start":
            block = _field(event, "content_block")
            index = _int(_field(event, "index"))
            self.blocks[index] = {
                "type": _field(block, "type"),
                "id": _field(block, "id") or "",
                "name": _field(block, "name") or "",
                "input": _field(block, "input"),
                "json": [],
            }
            if _field(block, "type") == "text" and _field(block, "text"):
                return [StreamText(_field(block, "text"))]
        elif kind == "content_block_delta":
            return self._delta(_int(_field(event, "index")), _field(event, "delta"))
        elif kind == "content_block_stop":
            return self._block_stop(_int(_field(event, "index")))
        elif kind == "message_delta":
            self.stop_reason = _field(_field(event, "delta"), "stop_reason") or self.stop_reason
            self.take_usage(_field(event, "usage"))
        return []

    def _delta(self, index: int, delta: Any) -> list[StreamEvent]:
        kind = _field(delta, "type")
        if kind == "text_delta":
            text = _field(delta, "text") or ""
            return [StreamText(text)] if text else []
        if kind == "thinking_delta":
            text = _field(delta, "thinking") or ""
            return [StreamReasoning(text)] if text else []
        if kind == "input_json_delta":
            block = self.blocks.setdefault(index, {"type": "tool_use", "id": "", "name": "", "input": None, "json": []})
            block["json"].append(_field(delta, "partial_json") or "")
        return []

    def _block_stop(self, index: int) -> list[StreamEvent]:
        block = self.blocks.pop(index, None)
        if not block or block["type"] != "tool_use":
            return []
        arguments = "".join(block["json"])
        if not arguments.strip():
            start_input = block["input"]
            arguments = json.dumps(start_input) if isinstance(start_input, dict) else "{}"
        self.tool_calls += 1
        return [StreamToolCall(id=block["id"], name=block["name"], arguments=arguments)]

    def finish_reason(self) -> str:
        if self.stop_reason:
            return STOP_REASONS.get(self.stop_reason, self.stop_reason)
        return "tool_calls" if self.tool_calls else "stop"


class AnthropicProvider(Provider):
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
    ) -> None:
        super().__init__(model)
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.prompt_caching = prompt_caching
        self.thinking_budget = thinking_budget
        self._client: AsyncAnthropic | None = None

    def _get_client(self) -> AsyncAnthropic:
        if self._client is None:
            from anthropic import AsyncAnthropic  # lazy: ~1 s of imports

            kwargs: dict[str, Any] = {"api_key": self.api_key, "max_retries": 0}
            if self.base_url:
                kwargs["base_url"] = self.base_url
            if self.timeout is not None:
                kwargs["timeout"] = self.timeout
            self._client = AsyncAnthropic(**kwargs)
        return self._client

    def build_params(self, request: ChatRequest) -> dict[str, Any]:
        """The keyword arguments of `messages.create` for this request (no network)."""
        messages = request.messages
        if self.prompt_caching:
            messages = apply_anthropic_cache_control(messages, request.cache_ttl, native_anthropic=True)
        payload = to_anthropic(messages, request.tools)
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
        return params

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        params = self.build_params(request)
        if request.timeout is not None:
            params["timeout"] = request.timeout
        client = self._get_client()
        state = _StreamState()
        sdk_stream = await client.messages.create(stream=True, **params)
        async with sdk_stream:
            async for event in sdk_stream:
                for normalised in state.feed(event):
                    yield normalised
        if state.saw_usage:
            yield StreamUsage(state.usage())
        yield StreamFinish(state.finish_reason())

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()
