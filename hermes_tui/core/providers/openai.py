"""The OpenAI-compatible provider: chat completions streaming through the official async SDK.

Works with any base URL that speaks `/chat/completions` (OpenAI, OpenRouter, Ollama, vLLM,
LM Studio). Sends a wire copy of the conversation with in-memory flags and canonical-only keys
removed; assembles tool calls from their streamed fragments (by index, several in parallel);
reads reasoning deltas (`reasoning_content` / `reasoning`), usage from the final chunk, and the
finish reason. The SDK is imported on first use; SDK exceptions propagate unchanged.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from hermes_tui.core.messages import content_text
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

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# keys the chat-completions API accepts on a message; everything else is ours (reasoning,
# finish_reason, tool_name, timestamps...) and strict servers reject it
WIRE_KEYS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})
_FINISH_ALIASES = {
    "function_call": "tool_calls",
    "tool_use": "tool_calls",
    "end_turn": "stop",
    "max_tokens": "length",
}


def _wire_part(part: Any) -> Any:
    """A content part in chat-completions shape (Responses-style image parts converted)."""
    if not isinstance(part, dict):
        return {"type": "text", "text": str(part)}
    clean = {key: value for key, value in part.items() if not key.startswith("_") and key != "cache_control"}
    if clean.get("type") == "input_image":
        url = clean.get("image_url")
        url = url.get("url") if isinstance(url, dict) else url
        return {"type": "image_url", "image_url": {"url": str(url or "")}}
    if clean.get("type") == "input_text":
        return {"type": "text", "text": str(clean.get("text") or "")}
    return clean


def _wire_tool_call(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments = function.get("arguments", "")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {
        "id": str(call.get("id") or call.get("call_id") or ""),
        "type": "function",
        "function": {"name": str(function.get("name") or ""), "arguments": arguments or "{}"},
    }


def wire_message(message: dict[str, Any]) -> dict[str, Any]:
    """The copy of one canonical message that goes on the wire."""
    out = {key: value for key, value in message.items() if key in WIRE_KEYS}
    content = out.get("content")
    if isinstance(content, list):
        out["content"] = [_wire_part(part) for part in content]
    elif isinstance(content, dict):
        out["content"] = content_text(content)
    if out.get("tool_calls"):
        out["tool_calls"] = [_wire_tool_call(call) for call in out["tool_calls"] if isinstance(call, dict)]
    else:
        out.pop("tool_calls", None)
    if out.get("role") == "assistant" and "content" not in out:
        out["content"] = None
    return out


def wire_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [wire_message(message) for message in messages if isinstance(message, dict)]


class _ToolCallAssembler:
    """Collect tool-call fragments by index: id and name arrive first, arguments in pieces."""

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, Any]] = {}

    def feed(self, fragment: Any) -> None:
        index = getattr(fragment, "index", None)
        if not isinstance(index, int):
            index = len(self._calls)
        call = self._calls.setdefault(index, {"id": "", "name": "", "arguments": []})
        if getattr(fragment, "id", None):
            call["id"] = fragment.id
        function = getattr(fragment, "function", None)
        if function is not None:
            if getattr(function, "name", None):
                call["name"] = function.name
            if getattr(function, "arguments", None):
                call["arguments"].append(function.arguments)

    def drain(self) -> list[StreamToolCall]:
        calls = [
            StreamToolCall(
                id=call["id"] or f"call_{index}_{uuid.uuid4().hex[:8]}",
                name=call["name"],
                arguments="".join(call["arguments"]),
            )
            for index, call in sorted(self._calls.items())
        ]
        self._calls.clear()
        return calls


def _usage(raw: Any) -> Usage:
    prompt_details = getattr(raw, "prompt_tokens_details", None)
    completion_details = getattr(raw, "completion_tokens_details", None)
    return Usage(
        prompt_tokens=getattr(raw, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(raw, "completion_tokens", 0) or 0,
        cache_read_tokens=getattr(prompt_details, "cached_tokens", 0) or 0,
        reasoning_tokens=getattr(completion_details, "reasoning_tokens", 0) or 0,
    )


def _reasoning_text(delta: Any) -> str:
    for name in ("reasoning_content", "reasoning"):
        value = getattr(delta, name, None)
        if isinstance(value, str) and value:
            return value
    return ""


class OpenAIProvider(Provider):
    """Chat completions through `AsyncOpenAI`; one instance serves many calls."""

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str = "",
        timeout: float | None = None,
        reasoning_effort: str = "",
    ) -> None:
        super().__init__(model)
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        self.reasoning_effort = reasoning_effort
        self._client: AsyncOpenAI | None = None

    @property
    def is_official_api(self) -> bool:
        return not self.base_url or "api.openai.com" in self.base_url

    def _get_client(self) -> AsyncOpenAI:
        if self._client is None:
            from openai import AsyncOpenAI  # lazy: ~0.5 s of imports

            kwargs: dict[str, Any] = {"api_key": self.api_key, "max_retries": 0}
            if self.base_url:
                kwargs["base_url"] = self.base_url
            if self.timeout is not None:
                kwargs["timeout"] = self.timeout
            self._client = AsyncOpenAI(**kwargs)
        return self._client

    def build_params(self, request: ChatRequest) -> dict[str, Any]:
        """The keyword arguments of `chat.completions.create` for this request (no network)."""
        params: dict[str, Any] = {
            "model": self.model,
            "messages": wire_messages(request.messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            params["tools"] = request.tools
        if request.max_tokens:
            # OpenAI's newer models only take max_completion_tokens; compatible servers know max_tokens
            key = "max_completion_tokens" if self.is_official_api else "max_tokens"
            params[key] = request.max_tokens
        if self.reasoning_effort:
            params["reasoning_effort"] = self.reasoning_effort
        return params

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        params = self.build_params(request)
        if request.timeout is not None:
            params["timeout"] = request.timeout
        client = self._get_client()
        calls = _ToolCallAssembler()
        finish: str | None = None
        usage: Usage | None = None
        emitted_calls = 0
        sdk_stream = await client.chat.completions.create(**params)
        async with sdk_stream:
            async for chunk in sdk_stream:
                if getattr(chunk, "usage", None) is not None:
                    usage = _usage(chunk.usage)
                for choice in getattr(chunk, "choices", None) or []:
                    delta = getattr(choice, "delta", None)
                    if delta is not None:
                        reasoning = _reasoning_text(delta)
                        if reasoning:
                            yield StreamReasoning(reasoning)
                        if getattr(delta, "content", None):
                            yield StreamText(delta.content)
                        for fragment in getattr(delta, "tool_calls", None) or []:
                            calls.feed(fragment)
                    if getattr(choice, "finish_reason", None):
                        finish = choice.finish_reason
                        for call in calls.drain():
                            emitted_calls += 1
                            yield call
        for call in calls.drain():  # servers that end the stream without a finish reason
            emitted_calls += 1
            yield call
        if usage is not None:
            yield StreamUsage(usage)
        finish = _FINISH_ALIASES.get(finish or "", finish) or ("tool_calls" if emitted_calls else "stop")
        if finish == "stop" and emitted_calls:
            finish = "tool_calls"  # e.g. Ollama reports "stop" on a tool-calling turn
        yield StreamFinish(finish)

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()
