"""StreamAccumulator on its own: provider events in, core events and one assistant message out."""

from __future__ import annotations

from hermes_tui.core import events as ev
from hermes_tui.core.providers.base import StreamFinish, StreamReasoning, StreamText, StreamToolCall, StreamUsage, Usage
from hermes_tui.core.turn.streaming import StreamAccumulator, has_think_tags, strip_think_blocks


def test_text_and_reasoning_deltas_become_events_and_empty_ones_do_not() -> None:
    acc = StreamAccumulator()
    assert acc.feed(StreamText("Hel")) == ev.TextDelta("Hel")
    assert acc.feed(StreamText("")) is None
    assert acc.feed(StreamReasoning("thinking")) == ev.ReasoningDelta("thinking")
    assert acc.feed(StreamText("lo")) == ev.TextDelta("lo")
    assert acc.text == "Hello" and acc.reasoning == "thinking"


def test_tool_calls_usage_and_finish_are_recorded_silently() -> None:
    acc = StreamAccumulator()
    usage = Usage(prompt_tokens=10, completion_tokens=2)
    for event in (
        StreamToolCall("c1", "read_file", '{"path": "a"}'),
        StreamToolCall("c2", "todo", ""),
        StreamUsage(usage),
        StreamFinish("tool_calls"),
    ):
        assert acc.feed(event) is None
    message = acc.assistant_message()
    assert message["finish_reason"] == "tool_calls" and acc.usage is usage
    assert [c["function"]["arguments"] for c in message["tool_calls"]] == ['{"path": "a"}', "{}"]
    assert [c["id"] for c in message["tool_calls"]] == ["c1", "c2"]


def test_assistant_message_defaults_and_override() -> None:
    acc = StreamAccumulator()
    acc.feed(StreamText("answer"))
    acc.feed(StreamReasoning("why"))
    assert acc.assistant_message() == {
        "role": "assistant",
        "content": "answer",
        "reasoning": "why",
        "finish_reason": "stop",
    }
    assert acc.assistant_message(finish_reason="incomplete")["finish_reason"] == "incomplete"
    assert "tool_calls" not in acc.assistant_message()


def test_delivered_text_ignores_think_blocks() -> None:
    acc = StreamAccumulator()
    acc.feed(StreamText("<think>only reasoning"))
    assert not acc.delivered_text
    acc.feed(StreamText("</think> visible"))
    assert acc.delivered_text


def test_think_blocks_are_stripped_including_an_unclosed_one() -> None:
    assert strip_think_blocks("<think>a</think>Answer") == "Answer"
    assert strip_think_blocks("Start <reasoning>never closed") == "Start"
    assert strip_think_blocks("  plain  ") == "plain"
    assert has_think_tags("x <THINKING>y") and not has_think_tags("no tags")
