"""One streamed API call: provider events in, core events out, an assistant message at the end.

`StreamAccumulator` collects what a provider streams (so a Ctrl-C mid-stream still leaves the
partial answer in hand) and turns it into the canonical assistant message. It is where model
output becomes valid text: lone surrogates in text and reasoning deltas, tool-call ids, names and
arguments (raw, or escaped as `\\ud800` in the arguments' JSON) are replaced with U+FFFD, a pair
split between two deltas is joined, so every answer can be stored, resumed and sent back.
`strip_think_blocks` removes inline reasoning tags from visible text (reference §6.2, §7).
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
from hermes_tui.text_safety import SurrogateMender, valid_json_text, valid_unicode, valid_unicode_in

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
    _text_mender: SurrogateMender = field(default_factory=SurrogateMender, repr=False)
    _reasoning_mender: SurrogateMender = field(default_factory=SurrogateMender, repr=False)

    def feed(self, event: StreamEvent) -> ev.Event | None:
        """Record one provider event; return the core event to emit, if any.

        A text delta that ends in half of a surrogate pair keeps that half back for the next
        delta; when anything else comes first it becomes U+FFFD (emitted with that event when it
        is answer text; reasoning's is kept in the message).
        """
        if isinstance(event, StreamText):
            self._settle_reasoning()
            text = self._text_mender.feed(event.text)
            if text:
                self.text_parts.append(text)
                return ev.TextDelta(text)
            return None
        if isinstance(event, StreamReasoning):
            reasoning = self._reasoning_mender.feed(event.text)
            if reasoning:
                self.reasoning_parts.append(reasoning)
                self.reasoning_field = self.reasoning_field or event.field
                return ev.ReasoningDelta(reasoning)
            return None
        self._settle_reasoning()
        if isinstance(event, StreamReasoningBlock):
            self.reasoning_details.append(valid_unicode_in(event.block))
        elif isinstance(event, StreamToolCall):
            self.tool_calls.append(
                StreamToolCall(valid_unicode(event.id), valid_unicode(event.name), valid_json_text(event.arguments))
            )
        elif isinstance(event, StreamUsage):
            self.usage = event.usage
        elif isinstance(event, StreamFinish):
            self.finish_reason = event.reason
        held = self._text_mender.flush()
        if held:
            self.text_parts.append(held)
            return ev.TextDelta(held)
        return None

    def _settle_reasoning(self) -> None:
        held = self._reasoning_mender.flush()
        if held:
            self.reasoning_parts.append(held)

    @property
    def text(self) -> str:
        return "".join(self.text_parts) + self._text_mender.pending

    @property
    def reasoning(self) -> str:
        return "".join(self.reasoning_parts) + self._reasoning_mender.pending

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
