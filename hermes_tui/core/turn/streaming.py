"""One streamed API call: provider events in, core events out, an assistant message at the end.

`StreamAccumulator` collects what a provider streams (so a Ctrl-C mid-stream still leaves the
partial answer in hand) and turns it into the canonical assistant message. `strip_think_blocks`
removes inline reasoning tags from visible text (reference §6.2, §7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hermes_tui.core import events as ev
from hermes_tui.core.providers.base import (
    StreamEvent,
    StreamFinish,
    StreamReasoning,
    StreamReasoningBlock,
    StreamText,
    StreamToolCall,
    StreamUsage,
    Usage,
)

_THINK_TAGS = ("think", "thinking", "reasoning", "REASONING_SCRATCHPAD")
_THINK_BLOCK = re.compile(r"<(" + "|".join(_THINK_TAGS) + r")>.*?(?:</\1>|\Z)", re.DOTALL | re.IGNORECASE)


def strip_think_blocks(text: str) -> str:
    """Visible text without `<think>…</think>`-style blocks (an unclosed block runs to the end)."""
    if "<" not in text:
        return text.strip()
    return _THINK_BLOCK.sub("", text).strip()


def has_think_tags(text: str) -> bool:
    lowered = text.lower()
    return any(f"<{tag.lower()}>" in lowered for tag in _THINK_TAGS)


@dataclass
class StreamAccumulator:
    """Everything one API call has streamed so far."""

    text_parts: list[str] = field(default_factory=list)
    reasoning_parts: list[str] = field(default_factory=list)
    tool_calls: list[StreamToolCall] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str = ""
    reasoning_details: list[dict[str, Any]] = field(default_factory=list)  # signed blocks, replayed verbatim
    reasoning_field: str = ""

    def feed(self, event: StreamEvent) -> ev.Event | None:
        """Record one provider event; return the core event to emit, if any."""
        if isinstance(event, StreamText):
            if event.text:
                self.text_parts.append(event.text)
                return ev.TextDelta(event.text)
        elif isinstance(event, StreamReasoning):
            if event.text:
                self.reasoning_parts.append(event.text)
                self.reasoning_field = self.reasoning_field or event.field
                return ev.ReasoningDelta(event.text)
        elif isinstance(event, StreamReasoningBlock):
            self.reasoning_details.append(event.block)
        elif isinstance(event, StreamToolCall):
            self.tool_calls.append(event)
        elif isinstance(event, StreamUsage):
            self.usage = event.usage
        elif isinstance(event, StreamFinish):
            self.finish_reason = event.reason
        return None

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def reasoning(self) -> str:
        return "".join(self.reasoning_parts)

    @property
    def delivered_text(self) -> bool:
        """True when visible text already reached the user."""
        return bool(strip_think_blocks(self.text))

    def tool_calls_openai(self) -> list[dict[str, Any]]:
        return [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments or "{}"},
            }
            for call in self.tool_calls
        ]

    def assistant_message(self, *, finish_reason: str | None = None) -> dict[str, Any]:
        """The canonical assistant message for what was streamed."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            message["tool_calls"] = self.tool_calls_openai()
        reasoning = self.reasoning
        if reasoning:
            message["reasoning"] = reasoning
            if self.reasoning_field == "reasoning_content":
                message["reasoning_content"] = reasoning
        if self.reasoning_details:
            message["reasoning_details"] = list(self.reasoning_details)
        message["finish_reason"] = finish_reason or self.finish_reason or ("tool_calls" if self.tool_calls else "stop")
        return message
