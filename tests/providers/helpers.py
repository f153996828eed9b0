"""Helpers for the provider tests: collect a stream and pick out its events by kind."""

from __future__ import annotations

from hermes_tui.core.providers.base import (
    ChatRequest,
    Provider,
    StreamEvent,
    StreamFinish,
    StreamReasoning,
    StreamText,
    StreamToolCall,
    StreamUsage,
)


async def collect(provider: Provider, request: ChatRequest) -> list[StreamEvent]:
    return [event async for event in provider.stream(request)]


def texts(events: list[StreamEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, StreamText)]


def reasoning(events: list[StreamEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, StreamReasoning)]


def tool_calls(events: list[StreamEvent]) -> list[StreamToolCall]:
    return [e for e in events if isinstance(e, StreamToolCall)]


def usages(events: list[StreamEvent]) -> list[StreamUsage]:
    return [e for e in events if isinstance(e, StreamUsage)]


def finish(events: list[StreamEvent]) -> str:
    finishes = [e.reason for e in events if isinstance(e, StreamFinish)]
    assert len(finishes) == 1, f"expected exactly one finish event, got {finishes}"
    assert isinstance(events[-1], StreamFinish), "the finish event must come last"
    return finishes[0]


READ_FILE_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a text file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
}
