"""The iteration budget and the caps on malformed tool calls, end to end through both real SDKs.

Hermes's rules (reference §6.0, §6.1, §6.2): invalid JSON arguments are asked for again twice, the
third time answered with an error; arguments cut off mid-JSON end the turn as partial; unknown
tools are answered three rounds running, the fourth ends the turn; a tool-call id already used in
the history is made unique; when the budget runs out one tool-less grace call asks for a summary;
a call that restarted after compression is refunded.
"""

from __future__ import annotations

import json

import pytest

from hermes_tui.config import AgentSettings, Settings
from hermes_tui.core import events as ev
from hermes_tui.core.turn.budget import MAX_INVALID_TOOL_RETRIES
from hermes_tui.core.turn.outcome import REASONS, failure_reason
from hermes_tui.core.turn.runner import MAX_ITERATIONS_PROMPT
from tests.fake_llm import Fail, Reply
from tests.faults.helpers import BOTH, Harness
from tests.faults.test_model_output import READ_NOTES, sent_tool_ids


def budget(max_turns: int) -> Settings:
    return Settings(agent=AgentSettings(max_turns=max_turns))


@pytest.mark.parametrize("protocol", BOTH)
async def test_invalid_json_is_asked_for_again_twice_then_answered_with_an_error(
    harness: Harness, protocol: str
) -> None:
    bad = Reply(tool_calls=[("call_bad", "read_file", '{"path": notes.txt}')])
    run = await harness.run(protocol, bad, bad, bad, Reply(text="Fixed my arguments."))
    run.assert_answered("Fixed my arguments.")
    assert len(run.requests) == 4
    first = run.requests[0].body["messages"]
    assert run.requests[1].body["messages"] == first and run.requests[2].body["messages"] == first, "resent as is"
    assert sum("asking again" in text for text in run.statuses) == 2
    finished = run.log.of(ev.ToolCallFinished)
    assert len(finished) == 1 and finished[0].is_error and "Invalid JSON" in finished[0].result
    assert run.roles == ["user", "assistant", "tool", "assistant"], "only the third answer is kept"
    assert "Invalid JSON" in json.dumps(run.requests[3].body), "the model is told what was wrong"


@pytest.mark.parametrize("protocol", BOTH)
async def test_arguments_cut_off_mid_json_end_the_turn_without_running_anything(
    harness: Harness, protocol: str, project
) -> None:
    cut = Reply(tool_calls=[("call_cut", "write_file", '{"path": "out.txt", "content": "half of it')])
    run = await harness.run(protocol, cut, Reply(text="never asked for"))
    run.assert_no_crash()
    result = run.result
    assert result.partial and result.exit_reason == "truncated_tool_arguments" and not result.failed
    assert "cut off" in (result.final_response or "") and "write_file" in (result.final_response or "")
    assert result.final_response in run.warnings
    assert len(run.requests) == 1 and not run.log.of(ev.ToolCallStarted)
    assert not (project / "out.txt").exists()
    assert run.roles == ["user"], "no half call is stored"
    assert failure_reason(result) == REASONS["truncated_tool_arguments"], "run exits 1 naming why"


@pytest.mark.parametrize("protocol", BOTH)
async def test_unknown_tools_are_answered_three_rounds_then_the_turn_stops(harness: Harness, protocol: str) -> None:
    rounds = [Reply(tool_calls=[(f"call_{i}", "launch_rockets", "{}")]) for i in range(MAX_INVALID_TOOL_RETRIES + 1)]
    run = await harness.run(protocol, *rounds, Reply(text="never asked for"))
    run.assert_no_crash()
    result = run.result
    assert result.partial and result.exit_reason == "invalid_tool_name"
    assert "launch_rockets" in (result.final_response or "") and result.final_response in run.warnings
    assert len(run.requests) == MAX_INVALID_TOOL_RETRIES + 1
    finished = run.log.of(ev.ToolCallFinished)
    assert len(finished) == MAX_INVALID_TOOL_RETRIES and all("does not exist" in e.result for e in finished)
    assert run.roles == ["user"] + ["assistant", "tool"] * MAX_INVALID_TOOL_RETRIES
    assert failure_reason(result) == REASONS["invalid_tool_name"]


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_good_round_resets_the_unknown_tool_count(harness: Harness, protocol: str) -> None:
    unknown = Reply(tool_calls=[("call_u", "launch_rockets", "{}")])
    good = Reply(tool_calls=[("call_g", "read_file", READ_NOTES)])
    run = await harness.run(protocol, unknown, unknown, unknown, good, unknown, Reply(text="Done."))
    run.assert_answered("Done.")


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_tool_call_id_reused_from_an_earlier_round_is_made_unique(harness: Harness, protocol: str) -> None:
    again = [Reply(tool_calls=[("call_0", "read_file", READ_NOTES)]) for _ in range(2)]
    run = await harness.run(protocol, *again, Reply(text="Read it twice."))
    run.assert_answered("Read it twice.")
    call_ids = [row["tool_calls"][0]["id"] for row in run.stored if row.get("tool_calls")]
    assert call_ids == ["call_0", "call_0_2"]
    assert [row["tool_call_id"] for row in run.stored if row["role"] == "tool"] == call_ids
    calls, results = sent_tool_ids(protocol, run.requests[2].body)
    assert calls == results == call_ids, "every id on the wire is unique and answered once"


@pytest.mark.parametrize("protocol", BOTH)
async def test_the_grace_call_is_tool_less_and_its_tool_calls_never_run(harness: Harness, protocol: str) -> None:
    tools = [Reply(tool_calls=[(f"c{i}", "read_file", READ_NOTES)]) for i in range(2)]
    grace = Reply(text="Here is what I found.", tool_calls=[("c9", "read_file", READ_NOTES)])
    run = await harness.run(protocol, *tools, grace, settings=budget(2))
    run.assert_answered("Here is what I found.")
    assert run.result.exit_reason == "max_iterations" and run.result.api_calls == 3
    last = run.requests[-1].body
    assert MAX_ITERATIONS_PROMPT in json.dumps(last) and not last.get("tools")
    assert len(run.log.of(ev.ToolCallFinished)) == 2, "the grace answer's tool call was not run"
    assert not run.stored[-1].get("tool_calls")
    assert MAX_ITERATIONS_PROMPT not in json.dumps(run.stored), "the grace prompt is not stored"


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_call_that_restarted_after_compression_is_refunded(harness: Harness, protocol: str) -> None:
    settings = budget(1)
    settings.model.context_length = 1_000_000
    tier = Fail(429, "Extra usage is required for long context requests.")
    run = await harness.run(protocol, tier, Reply(text="Within the standard window."), settings=settings)
    run.assert_answered("Within the standard window.")
    assert run.result.api_calls == 1 and run.result.exit_reason != "max_iterations"
    assert MAX_ITERATIONS_PROMPT not in json.dumps(run.requests[-1].body), "no grace call was needed"
