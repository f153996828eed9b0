"""The OpenAI-compatible provider: chat completions streaming through the official async SDK.

Works with any base URL that speaks `/chat/completions` (OpenAI, OpenRouter, Ollama, vLLM,
LM Studio). Sends a wire copy of the conversation with in-memory flags and canonical-only keys
removed; assembles tool calls from their streamed fragments (by index, several in parallel, ids
made unique); reads reasoning deltas (`reasoning_content` / `reasoning`), refusal text (shown
as the answer), usage from the final chunk, and the finish reason. The stream runs under
`stream_guard` (connect, first-byte and idle timeouts; typed transport errors); a server that
ignores `stream` and answers with one JSON completion is read as if it had streamed it. A stream
without a finish reason (or `[DONE]`) raises `ProviderStreamError`; a content-filter stop with no
content raises `ProviderRefusal`. The SDK is imported on first use; HTTP status errors propagate
as the SDK's exceptions. The request body is encoded by us and sent through the client's generic
`post` (`prebuilt_request`), so the SDK's per-request walk never runs on the event loop; the
stream's chunks arrive as plain dicts.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from hermes_tui.core.context.offload import map_in_slices
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
    field_of,
    unique_call_id,
)
from hermes_tui.core.providers.failures import ProviderRefusal, ProviderStreamError
from hermes_tui.core.providers.plain_body import read_plain_body
from hermes_tui.core.providers.prebuilt_request import body_frame, encode_body_in_slices, post_openai_stream
from hermes_tui.core.providers.request_body import OpenAIBody
from hermes_tui.core.providers.sdk_client import SdkClientHolder
from hermes_tui.core.providers.stream_guard import GuardedStream, StreamTimeouts

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# keys the chat-completions API accepts on a message; everything else is ours (reasoning,
# finish_reason, tool_name, timestamps...) and strict servers reject it
DEFAULT_ENDPOINT = "https://api.openai.com/v1"
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


def wire_message(message: dict[str, Any], *, replay_reasoning: bool = False) -> dict[str, Any]:
    """The copy of one canonical message that goes on the wire.

    With `replay_reasoning` (OpenAI-compatible servers, not OpenAI itself), an assistant message's
    `reasoning_content` goes back as that field: the servers that stream it expect their own reasoning back.
    """
    out = {key: value for key, value in message.items() if key in WIRE_KEYS}
    if replay_reasoning and message.get("role") == "assistant" and isinstance(message.get("reasoning_content"), str):
        out["reasoning_content"] = message["reasoning_content"]
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


def wire_messages(messages: list[dict[str, Any]], *, replay_reasoning: bool = False) -> list[dict[str, Any]]:
    return [
        wire_message(message, replay_reasoning=replay_reasoning) for message in messages if isinstance(message, dict)
    ]


class _ToolCallAssembler:
    """Collect tool-call fragments by index: id and name arrive first, arguments in pieces."""

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, Any]] = {}
        self._seen_ids: set[str] = set()

    def feed(self, fragment: Any) -> None:
        index = field_of(fragment, "index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = len(self._calls)
        call = self._calls.setdefault(index, {"id": "", "name": "", "arguments": []})
        if field_of(fragment, "id"):
            call["id"] = str(field_of(fragment, "id"))
        function = field_of(fragment, "function")
        if function is not None:
            if field_of(function, "name"):
                call["name"] = str(field_of(function, "name"))
            arguments = field_of(function, "arguments")
            if arguments:
                call["arguments"].append(arguments if isinstance(arguments, str) else json.dumps(arguments))

    def drain(self) -> list[StreamToolCall]:
        calls = [
            StreamToolCall(
                id=unique_call_id(call["id"] or f"call_{index}_{uuid.uuid4().hex[:8]}", self._seen_ids),
                name=call["name"],
                arguments="".join(call["arguments"]),
            )
            for index, call in sorted(self._calls.items())
        ]
        self._calls.clear()
        return calls

    @property
    def pending(self) -> bool:
        """True while fragments are collected that no finish reason has closed yet."""
        return bool(self._calls)


def _usage(raw: Any) -> Usage:
    prompt_details = field_of(raw, "prompt_tokens_details")
    completion_details = field_of(raw, "completion_tokens_details")
    return Usage(
        prompt_tokens=field_of(raw, "prompt_tokens") or 0,
        completion_tokens=field_of(raw, "completion_tokens") or 0,
        cache_read_tokens=field_of(prompt_details, "cached_tokens") or 0,
        reasoning_tokens=field_of(completion_details, "reasoning_tokens") or 0,
    )


def _reasoning(delta: Any) -> tuple[str, str]:
    """(text, field name) of a delta's reasoning: `reasoning_content` (DeepSeek, Kimi...) or `reasoning`."""
    for name in ("reasoning_content", "reasoning"):
        value = field_of(delta, name)
        if isinstance(value, str) and value:
            return value, name
    return "", ""


class _ChunkFolder:
    """What one chat-completions stream has said so far, folded chunk by chunk."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.calls = _ToolCallAssembler()
        self.finish: str | None = None
        self.usage: Usage | None = None
        self.emitted_calls = 0
        self.content_seen = False
        self.refused = False
        self.done = False  # the closing `data: [DONE]` arrived

    def feed(self, chunk: Any) -> tuple[list[StreamEvent], bool]:
        """The events one chunk yields, and whether it carried content (keep-alives do not)."""
        out: list[StreamEvent] = []
        progress = False
        if field_of(chunk, "usage") is not None:
            self.usage = _usage(field_of(chunk, "usage"))
            progress = True
        for choice in field_of(chunk, "choices") or []:
            delta = field_of(choice, "delta")
            if delta is not None:
                reasoning, reasoning_field = _reasoning(delta)
                if reasoning:
                    out.append(StreamReasoning(reasoning, reasoning_field))
                content = field_of(delta, "content")
                if isinstance(content, str) and content:
                    out.append(StreamText(content))
                refusal = field_of(delta, "refusal")  # the model's own words when it declines
                if isinstance(refusal, str) and refusal:
                    out.append(StreamText(refusal))
                    self.refused = True
                fragments = field_of(delta, "tool_calls") or []
                for fragment in fragments:
                    self.calls.feed(fragment)
                progress = progress or bool(reasoning or content or refusal or fragments)
            if field_of(choice, "finish_reason"):
                self.finish = str(field_of(choice, "finish_reason"))
                progress = True
                out += self._drain()
        self.content_seen = self.content_seen or bool(out)
        return out, progress

    def _drain(self) -> list[StreamEvent]:
        calls = self.calls.drain()
        self.emitted_calls += len(calls)
        return list(calls)

    def close(self) -> list[StreamEvent]:
        """The closing events: usage and the normalised finish reason. Raises for a cut-off stream."""
        if self.finish is None and self.done and (self.content_seen or self.calls.pending):
            self.finish = "stop"  # a server that ends with [DONE] but never names a finish reason
        if self.finish is None:
            if self.content_seen or self.calls.pending:
                raise ProviderStreamError(
                    "truncated", f"the stream from {self.endpoint} ended mid-answer (no finish reason)"
                )
            raise ProviderStreamError("empty", f"the stream from {self.endpoint} ended without an answer")
        out: list[StreamEvent] = self._drain()
        if self.usage is not None:
            out.append(StreamUsage(self.usage))
        finish = _FINISH_ALIASES.get(self.finish, self.finish)
        if finish == "stop" and self.emitted_calls:
            finish = "tool_calls"  # e.g. Ollama reports "stop" on a tool-calling turn
        if finish == "stop" and self.refused:
            finish = "content_filter"  # the model declined: its words are shown, but it is not an answer
        if finish == "content_filter" and not self.content_seen:
            raise ProviderRefusal(self.finish)
        out.append(StreamFinish(finish))
        return out


def completion_as_chunk(body: dict[str, Any], endpoint: str) -> dict[str, Any]:
    """A non-streamed chat completion (a server that ignored `stream`) as one equivalent chunk."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ProviderStreamError("not_a_stream", f"{endpoint} answered with JSON that holds no answer (no choices)")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    delta = dict(message)
    delta["tool_calls"] = [
        {**call, "index": index} for index, call in enumerate(message.get("tool_calls") or []) if isinstance(call, dict)
    ]
    return {
        "choices": [{"index": 0, "delta": delta, "finish_reason": choice.get("finish_reason") or "stop"}],
        "usage": body.get("usage") if isinstance(body.get("usage"), dict) else None,
    }


class OpenAIProvider(SdkClientHolder["AsyncOpenAI"], Provider):
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
        timeouts: StreamTimeouts | None = None,
    ) -> None:
        super().__init__(model)
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        self.reasoning_effort = reasoning_effort
        self.timeouts = timeouts or StreamTimeouts()
        self._client: AsyncOpenAI | None = None
        self._retired: list[AsyncOpenAI] = []

    @property
    def endpoint(self) -> str:
        """Where requests go, for error messages."""
        return self.base_url or DEFAULT_ENDPOINT

    @property
    def is_official_api(self) -> bool:
        return not self.base_url or "api.openai.com" in self.base_url

    def _new_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI  # lazy: ~0.5 s of imports

        kwargs: dict[str, Any] = {"api_key": self.api_key, "max_retries": 0}
        if self.base_url:
            kwargs["base_url"] = self.base_url
        kwargs["timeout"] = self.timeouts.http_timeout(self.timeout)
        return AsyncOpenAI(**kwargs)

    def build_params(self, request: ChatRequest, *, wired: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The keyword arguments of `chat.completions.create` for this request (no network);
        `wired`: its messages already translated (`_wire_in_slices`)."""
        if wired is None:
            wired = wire_messages(request.messages, replay_reasoning=not self.is_official_api)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": wired,
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

    async def _wire_in_slices(self, request: ChatRequest) -> list[dict[str, Any]]:
        wire = functools.partial(wire_message, replay_reasoning=not self.is_official_api)
        return await map_in_slices(wire, [message for message in request.messages if isinstance(message, dict)])

    async def request_body(self, request: ChatRequest) -> bytes:
        """The body `chat.completions.create(**build_params(...))` would send, translated and encoded
        a slice at a time (the SDK's own walk over it held the loop ~1.6 s at 10,000 messages); with
        the conversation's `request.cache`, only what changed since its previous request is encoded."""
        replay = not self.is_official_api
        if request.cache is None:
            wired = await self._wire_in_slices(request)
            return await encode_body_in_slices(self.build_params(request, wired=wired))
        encoder = request.cache.encoder(("openai", replay), OpenAIBody)
        frame = body_frame(self.build_params(request, wired=[]))
        wire = functools.partial(wire_message, replay_reasoning=replay)
        return await encoder.encode(request.messages, request.reusable, frame, wire)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        body = await self.request_body(request)
        timeout = self.timeouts.http_timeout(request.timeout) if request.timeout is not None else None
        client = await self._client_ready()
        guard = GuardedStream(self.timeouts, self.endpoint, request.timeout or self.timeout)
        folder = _ChunkFolder(self.endpoint)
        sdk_stream = await guard.open(post_openai_stream(client, body, timeout=timeout))
        async with sdk_stream:
            plain = await read_plain_body(guard, sdk_stream)
            if plain is not None:
                chunks = plain.events if plain.whole is None else [completion_as_chunk(plain.whole, self.endpoint)]
                for chunk in chunks:
                    events, _ = folder.feed(chunk)
                    for event in events:
                        yield event
                folder.done = plain.done
            else:
                done = guard.watch_for_done(sdk_stream)
                async for chunk in guard.items(sdk_stream):
                    events, progress = folder.feed(chunk)
                    if progress:
                        guard.progress()
                    for event in events:
                        yield event
                folder.done = done.seen
        for event in folder.close():
            yield event
