"""Pinned messages survive a compression verbatim, in order, with their whole tool-call group."""

from __future__ import annotations

import copy

from hermes_tui.core.context import ContextCompressor
from hermes_tui.core.context.pins import PIN_KEY, pinned_indices
from hermes_tui.core.messages import content_text

from .helpers import RecordingSummarizer, conversation


def _pin(messages: list[dict], *indices: int) -> list[dict]:
    for index in indices:
        messages[index] = {**messages[index], PIN_KEY: True}
    return messages


def test_pinning_one_message_of_a_tool_group_keeps_the_whole_group() -> None:
    messages = conversation(3)  # 0 system, then user / call / result / answer per round
    assert pinned_indices(_pin(messages, 7)) == [6, 7]  # round 1's result: its call comes along
    assert pinned_indices(_pin(conversation(3), 2)) == [2, 3]  # the call: its result comes along
    assert pinned_indices(_pin(conversation(3), 5)) == [5]  # a plain user message


async def test_a_pinned_tool_result_in_the_middle_is_kept_verbatim_after_the_summary() -> None:
    messages = _pin(conversation(30, output_chars=3_000), 23, 41)  # round 5's result, round 10's user message
    original = copy.deepcopy(messages)
    summarizer = RecordingSummarizer()
    compressor = ContextCompressor(200_000, summarize=summarizer)
    outcome = await compressor.run(messages)
    assert outcome.changed and outcome.pinned_kept == (22, 23, 41)
    assert messages == original  # never mutated

    texts = [content_text(m.get("content")) for m in outcome.messages]
    summary_at = next(i for i, text in enumerate(texts) if "Keep the tests green." in text)
    kept = [m for m in outcome.messages if m.get(PIN_KEY)]
    assert [content_text(m["content"]) for m in kept] == [original[23]["content"], original[41]["content"]]
    call_at = next(i for i, m in enumerate(outcome.messages) if (m.get("tool_calls") or [{}])[0].get("id") == "call_5")
    result_at = texts.index(original[23]["content"])
    assert summary_at < call_at < result_at < texts.index(original[41]["content"])  # in order, after the summary
    prompt = summarizer.prompts[0]
    assert "contents of module 5" not in prompt and "Step 10:" not in prompt  # not summarised either
    assert "Step 9:" in prompt and "Step 11:" in prompt  # its neighbours were
    assert outcome.summarised_count == compressor.plan(messages).summarised_count


async def test_without_pins_the_same_message_is_summarised_away() -> None:
    messages = conversation(30, output_chars=3_000)
    outcome = await ContextCompressor(200_000, summarize=RecordingSummarizer()).run(messages)
    assert messages[23]["content"] not in [content_text(m.get("content")) for m in outcome.messages]
    assert outcome.pinned_kept == ()


async def test_a_middle_that_is_all_pinned_is_not_compressed() -> None:
    messages = conversation(30, output_chars=3_000)
    compressor = ContextCompressor(200_000, summarize=RecordingSummarizer())
    plan = compressor.plan(messages)
    assert plan is not None
    _pin(messages, *range(plan.start, plan.end))
    assert compressor.plan(messages) is None
    outcome = await compressor.run(messages)
    assert not outcome.changed and outcome.messages == messages
