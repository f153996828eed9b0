"""Odd model output through a real turn: filters, refusals, length stops and broken or excessive tool calls."""

from __future__ import annotations

import json

import pytest

from hermes_tui.core import events as ev
from hermes_tui.core.turn.outcome import CONTENT_FILTERED, failure_reason
from tests.fake_llm import RawStream, Reply
from tests.faults.helpers import BOTH, Harness

READ_NOTES = '{"path": "notes.txt"}'


def sent_messages(body: dict) -> list[dict]:
    return body["messages"]


def sent_tool_ids(protocol: str, body: dict) -> tuple[list[str], list[str]]:
    """(ids of the tool calls, ids the tool results answer) in one request body, in wire order."""
    calls: list[str] = []
    results: list[str] = []
    for message in sent_messages(body):
        if protocol == "openai":
            calls += [call["id"] for call in message.get("tool_calls") or []]
            if message.get("role") == "tool":
                results.append(message["tool_call_id"])
        elif isinstance(message.get("content"), list):
            for block in message["content"]:
                if block.get("type") == "tool_use":
                    calls.append(block["id"])
                elif block.get("type") == "tool_result":
                    results.append(block["tool_use_id"])
    return calls, results


# --------------------------------------------------------------------------- content filter and refusal


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_content_filter_stop_with_no_text_fails_clearly_without_retrying(
    harness: Harness, protocol: str
) -> None:
    run = await harness.run(protocol, Reply(text="", finish="content_filter"), Reply(text="never asked"))
    run.assert_failed("content_policy_blocked", "content filter", "rephrase")
    assert len(run.requests) == 1, "a refusal is not an empty answer to retry"
    assert run.roles == ["user"]


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_content_filter_stop_after_text_keeps_it_and_says_why_it_stopped(
    harness: Harness, protocol: str
) -> None:
    run = await harness.run(protocol, Reply(text="Here is the first part of", finish="content_filter"))
    run.assert_no_crash()
    run.assert_prompt_stored()
    assert run.result.final_response == "Here is the first part of"
    assert run.stored[-1]["content"] == "Here is the first part of"
    told = [*run.statuses, *run.warnings]
    assert any("content filter" in text.lower() for text in told), f"the cut is not explained: {told}"


# --------------------------------------------------------------------------- length


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_answer_cut_by_the_output_limit_is_continued_and_joined(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, Reply(text="The first half, ", finish="length"), Reply(text="and the second."))
    run.assert_continued("The first half, ", "and the second.")
    assert len(run.requests) == 2
    second = run.requests[1].body
    assert "Continue exactly where you left off" in json.dumps(second)
    limit_key = "max_tokens"
    assert second[limit_key] > run.requests[0].body[limit_key], "the continuation gets more room"


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_tool_call_cut_by_the_output_limit_is_not_run_but_retried_with_more_room(
    harness: Harness, protocol: str
) -> None:
    cut = Reply(tool_calls=[("call_cut", "read_file", '{"path": "no')], finish="length")
    whole = Reply(tool_calls=[("call_whole", "read_file", READ_NOTES)])
    run = await harness.run(protocol, cut, whole, Reply(text="The code is 4242."))
    run.assert_answered("The code is 4242.")
    started = run.log.of(ev.ToolCallStarted)
    assert [event.call_id for event in started] == ["call_whole"], "the truncated call never ran"
    assert run.requests[1].body["max_tokens"] > run.requests[0].body["max_tokens"]
    assert run.roles == ["user", "assistant", "tool", "assistant"]


# --------------------------------------------------------------------------- broken tool calls


@pytest.mark.parametrize("protocol", BOTH)
async def test_arguments_that_are_not_an_object_become_a_tool_error_the_model_reads(
    harness: Harness, protocol: str
) -> None:
    """Valid JSON of the wrong shape is answered at once (invalid and cut-off JSON: test_tool_call_budget)."""
    run = await harness.run(
        protocol, Reply(tool_calls=[("call_bad", "read_file", '["notes.txt"]')]), Reply(text="Let me retry that.")
    )
    run.assert_answered("Let me retry that.")
    finished = run.log.of(ev.ToolCallFinished)
    assert len(finished) == 1 and finished[0].is_error and "Invalid JSON" in finished[0].result
    assert run.roles == ["user", "assistant", "tool", "assistant"]
    assert "Invalid JSON" in json.dumps(run.requests[1].body), "the model is told what was wrong"


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_unknown_tool_becomes_a_tool_error_listing_the_real_ones(harness: Harness, protocol: str) -> None:
    run = await harness.run(
        protocol, Reply(tool_calls=[("call_x", "launch_rockets", "{}")]), Reply(text="That tool does not exist.")
    )
    run.assert_answered("That tool does not exist.")
    finished = run.log.of(ev.ToolCallFinished)
    assert finished[0].is_error and "does not exist" in finished[0].result and "read_file" in finished[0].result
    assert run.stored[2]["tool_name"] == "launch_rockets"


@pytest.mark.parametrize("protocol", BOTH)
async def test_duplicate_tool_call_ids_are_made_unique_so_the_history_stays_valid(
    harness: Harness, protocol: str
) -> None:
    twins = Reply(
        tool_calls=[("call_dup", "read_file", READ_NOTES), ("call_dup", "read_file", '{"path": "missing.txt"}')]
    )
    run = await harness.run(protocol, twins, Reply(text="One worked, one did not."))
    run.assert_answered("One worked, one did not.")
    assert run.roles == ["user", "assistant", "tool", "tool", "assistant"]
    stored_ids = [call["id"] for call in run.stored[1]["tool_calls"]]
    assert len(set(stored_ids)) == 2 and stored_ids[0] == "call_dup"
    assert [row["tool_call_id"] for row in run.stored[2:4]] == stored_ids
    finished = {event.call_id: event for event in run.log.of(ev.ToolCallFinished)}  # parallel: any order
    assert "4242" in run.stored[2]["content"] and finished[stored_ids[1]].is_error
    calls, results = sent_tool_ids(protocol, run.requests[1].body)
    assert calls == results == stored_ids, "every call is answered exactly once on the wire"


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_hundred_tool_calls_in_one_answer_all_run_and_are_stored(harness: Harness, protocol: str) -> None:
    calls = [(f"call_{i:03d}", "read_file", READ_NOTES) for i in range(100)]
    run = await harness.run(protocol, Reply(tool_calls=calls, chunk_size=64), Reply(text="Read it 100 times."))
    run.assert_answered("Read it 100 times.")
    assert run.roles == ["user", "assistant", *["tool"] * 100, "assistant"]
    assert [row["tool_call_id"] for row in run.stored[2:102]] == [call_id for call_id, _, _ in calls]
    assert all("4242" in row["content"] for row in run.stored[2:102])
    sent_calls, sent_results = sent_tool_ids(protocol, run.requests[1].body)
    assert sent_calls == sent_results == [call_id for call_id, _, _ in calls]


async def test_an_openai_refusal_message_is_shown_as_the_answer(harness: Harness) -> None:
    """OpenAI streams a refusal in `delta.refusal`, not `content`; the user must see it, not an empty answer."""
    base = {"id": "chatcmpl-r", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict, finish: str | None = None) -> str:
        return f"data: {json.dumps({**base, 'choices': [{'index': 0, 'delta': delta, 'finish_reason': finish}]})}\n\n"

    refusal = RawStream(
        [
            chunk({"role": "assistant", "content": None, "refusal": ""}),
            chunk({"refusal": "I can't help with "}),
            chunk({"refusal": "that request."}),
            chunk({}, "stop"),
            "data: [DONE]\n\n",
        ]
    )
    run = await harness.run("openai", refusal)
    run.assert_answered("I can't help with that request.")
    assert len(run.requests) == 1, "a refusal is an answer, not an empty response to retry"
    # Shown, but not a real answer: stored as filtered, and `hermes-tui run` exits 1 for it.
    assert run.stored[-1]["finish_reason"] == "content_filter"
    assert failure_reason(run.result) == CONTENT_FILTERED


async def test_an_anthropic_refusal_stop_with_its_explanation_shows_the_explanation(harness: Harness) -> None:
    run = await harness.run("anthropic", Reply(text="I won't write that.", finish="refusal"))
    run.assert_no_crash()
    assert run.result.final_response == "I won't write that." and not run.result.failed
    assert run.stored[-1]["content"] == "I won't write that."
