"""StreamAccumulator on its own: provider events in, core events and one assistant message out."""

from __future__ import annotations

import json

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


# --------------------------------------------------------------------------- valid text on arrival


def test_lone_surrogates_in_text_reasoning_and_tool_calls_become_the_replacement_character() -> None:
    acc = StreamAccumulator()
    assert acc.feed(StreamReasoning("why \udfff")) == ev.ReasoningDelta("why \ufffd")
    assert acc.feed(StreamText("bad \ud800 text")) == ev.TextDelta("bad \ufffd text")
    acc.feed(StreamToolCall("c\udc00", "read_\ud800file", '{"path": "a\ud800.txt"}'))
    acc.feed(StreamToolCall("c2", "read_file", '{"path": "b\\udbff.txt"}'))  # escaped in the JSON text
    acc.feed(StreamFinish("tool_calls"))
    message = acc.assistant_message()
    assert message["content"] == "bad \ufffd text" and message["reasoning"] == "why \ufffd"
    first, second = message["tool_calls"]
    assert first["id"] == "c\ufffd" and first["function"]["name"] == "read_\ufffdfile"
    assert first["function"]["arguments"] == '{"path": "a\ufffd.txt"}'
    assert json.loads(second["function"]["arguments"]) == {"path": "b\ufffd.txt"}
    json.dumps(message, ensure_ascii=False).encode("utf-8")  # storable


def test_a_surrogate_pair_split_between_two_deltas_is_joined() -> None:
    acc = StreamAccumulator()
    assert acc.feed(StreamText("smile \ud83d")) == ev.TextDelta("smile ")
    assert acc.text == "smile \ufffd", "a Ctrl-C now would keep the half as a visible replacement"
    assert acc.feed(StreamText("\ude00 done")) == ev.TextDelta("😀 done")
    assert acc.text == "smile 😀 done"


def test_a_half_pair_left_at_the_end_of_the_answer_is_emitted_as_the_replacement() -> None:
    acc = StreamAccumulator()
    acc.feed(StreamText("cut \ud83d"))
    assert acc.feed(StreamFinish("stop")) == ev.TextDelta("\ufffd")
    assert acc.text == "cut \ufffd" and acc.assistant_message()["content"] == "cut \ufffd"
    reasoning = StreamAccumulator()
    reasoning.feed(StreamReasoning("think \ud83d"))
    reasoning.feed(StreamText("answer"))
    assert reasoning.reasoning == "think \ufffd" and reasoning.text == "answer"
