"""The agent loop end to end: real providers (demo, and the SDKs against the fake server), real state.db."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hermes_tui.core import events as ev
from tests.core.helpers import DEMO, anthropic_choice, make_agent, openai_choice, rows, server_choice, wait_until
from tests.fake_llm import Disconnect, Fail, FakeLLMServer, Hang, Reply, StreamError


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# Demo project\n\nIt reads files.\n", encoding="utf-8")
    return folder


async def test_demo_read_file_round_trip_is_stored_in_order(tmp_path: Path, project: Path) -> None:
    agent, db, log = await make_agent(tmp_path, DEMO, cwd=project)
    result = await agent.run_conversation("read README.md")
    await db.close()
    db = await type(db).open(agent.home.state_db)

    assert result.completed and not result.failed
    assert "Demo project" in (result.final_response or "")
    stored = await rows(db, result.session_id)
    assert [r["role"] for r in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[1]["tool_calls"][0]["function"]["name"] == "read_file"
    assert stored[2]["tool_name"] == "read_file" and "Demo project" in stored[2]["content"]
    started = log.of(ev.ToolCallStarted)
    finished = log.of(ev.ToolCallFinished)
    assert [e.name for e in started] == ["read_file"] and not finished[0].is_error
    assert isinstance(log[-1], ev.TurnFinished) and log[-1].final_response == result.final_response
    await db.close()


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_sdk_tool_round_trip(tmp_path: Path, project: Path, server: FakeLLMServer, protocol: str) -> None:
    choice = server_choice(protocol, server)
    server.enqueue(
        Reply(
            text="Let me look.", tool_calls=[("call_1", "read_file", '{"path": "README.md"}')], usage=(900, 20, 0, 0)
        ),
        Reply(text="The README says it **reads files**.", usage=(1000, 12, 600, 0)),
    )
    agent, db, log = await make_agent(tmp_path, choice, cwd=project)
    result = await agent.run_conversation("What does the README say?")

    assert result.final_response == "The README says it **reads files**."
    assert result.api_calls == 2
    assert log.text() == "Let me look.The README says it **reads files**."
    second = server.requests[1].body
    wire = json.dumps(second)
    assert "It reads files." in wire  # the tool result went back to the model
    stored = await rows(db, result.session_id)
    assert [r["role"] for r in stored] == ["user", "assistant", "tool", "assistant"]
    session = await db.get_session(result.session_id)
    assert session["api_call_count"] == 2 and session["output_tokens"] == 32
    assert session["cache_read_tokens"] == 600
    budget = log.of(ev.UsageUpdated)[-1].budget
    assert budget.reported_prompt_tokens == 1000 and not budget.is_estimate
    await db.close()


async def test_interrupt_keeps_partial_answer_and_persists_it(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Hang(seconds=600, first_text="Half of the answer"))
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    task = asyncio.create_task(agent.run_conversation("Explain everything"))
    await wait_until(lambda: "Half of the answer" in log.text(), what="the first streamed delta")
    task.cancel()
    result = await asyncio.wait_for(task, 5)

    assert result.interrupted and result.final_response == "Half of the answer"
    finished = log.of(ev.AssistantFinished)
    assert finished and finished[-1].interrupted
    assert log.of(ev.TurnFinished)[-1].interrupted
    stored = await rows(db, result.session_id)
    assert [r["role"] for r in stored] == ["user", "assistant"]
    assert stored[1]["content"] == "Half of the answer" and stored[1]["finish_reason"] == "interrupted"
    # The agent stays usable: the next turn works and sees the partial answer in its history.
    server.enqueue(Reply(text="Continuing."))
    again = await agent.run_conversation("go on")
    assert again.completed
    assert "Half of the answer" in json.dumps(server.last_body)
    await db.close()


async def test_interrupt_during_tool_answers_the_open_call(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Reply(tool_calls=[("call_9", "terminal", '{"command": "sleep 30"}')]))
    gate = asyncio.Event()

    async def approve(request):
        gate.set()
        return True

    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), approver=approve)
    task = asyncio.create_task(agent.run_conversation("wait a while"))
    await asyncio.wait_for(gate.wait(), 5)
    await wait_until(lambda: bool(log.of(ev.ToolCallStarted)), what="the tool to start")
    task.cancel()
    result = await asyncio.wait_for(task, 10)

    assert result.interrupted
    stored = await rows(db, result.session_id)
    assert [r["role"] for r in stored] == ["user", "assistant", "tool"]
    assert stored[2]["tool_call_id"] == "call_9" and "interrupted" in stored[2]["content"]
    await db.close()


async def test_flush_cursor_never_writes_a_row_twice(tmp_path: Path, project: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO, cwd=project)
    first = await agent.run_conversation("read README.md")
    await agent.run_conversation("hello there")
    count = len(await rows(db, first.session_id))
    assert count == 6  # user, assistant+call, tool, assistant, user, assistant
    await agent.session.flush()  # an extra flush on any exit path writes nothing
    await agent.session.flush(list(agent.messages))
    assert len(await rows(db, first.session_id)) == count
    session = await db.get_session(first.session_id)
    assert session["message_count"] == count and session["tool_call_count"] == 1
    await db.close()


async def test_retryable_error_backs_off_and_succeeds(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Fail(500, "upstream hiccup"), Fail(529, "overloaded"), Reply(text="fine now"))
    agent, db, log = await make_agent(tmp_path, anthropic_choice(server.base_url_anthropic))
    result = await agent.run_conversation("hi")
    assert result.completed and result.final_response == "fine now"
    assert len(server.requests) == 3
    assert any("retrying" in s.text for s in log.of(ev.Status))
    await db.close()


async def test_retries_exhausted_fails_clearly_and_keeps_the_user_message(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    server.enqueue(Fail(500, "down"), Fail(500, "down"), Fail(500, "down"), Fail(500, "down"))
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    result = await agent.run_conversation("hi")
    assert result.failed and "after 3 retries" in result.error
    assert len(server.requests) == 3
    stored = await rows(db, result.session_id)
    assert [r["role"] for r in stored] == ["user"]
    await db.close()


async def test_auth_error_is_not_retried(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Fail(401, "invalid api key"))
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    result = await agent.run_conversation("hi")
    assert result.failed and "auth" in result.error and "API key" in result.error
    assert len(server.requests) == 1
    await db.close()


async def test_stream_dying_after_text_is_continued_and_joined(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(
        Disconnect(after_chunks=4, reply=Reply(text="The first part of a long answer", chunk_size=3)),
        Reply(text=" and the rest."),
    )
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    result = await agent.run_conversation("tell me")
    assert result.final_response == log.text() == "The first and the rest."
    assert any("asking the model to continue" in s.text for s in log.of(ev.Status))
    assert "cut off by a network error" in server.requests[1].body["messages"][-1]["content"]
    await db.close()


async def test_error_inside_stream_is_retried(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(StreamError(after_chunks=0, message="Overloaded", reply=Reply(text="")), Reply(text="second try"))
    agent, db, _ = await make_agent(tmp_path, anthropic_choice(server.base_url_anthropic))
    result = await agent.run_conversation("hi")
    assert result.final_response == "second try"
    await db.close()


async def test_invalid_tool_arguments_become_a_tool_error_not_a_crash(tmp_path: Path, server: FakeLLMServer) -> None:
    bad = Reply(tool_calls=[("call_x", "read_file", '{"path": README.md}')])  # complete but invalid JSON
    server.enqueue(bad, bad, bad, Reply(tool_calls=[("call_y", "no_such_tool", "{}")]), Reply(text="sorry"))
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    result = await agent.run_conversation("read it")
    assert result.completed
    errors = [e for e in log.of(ev.ToolCallFinished) if e.is_error]
    assert len(errors) == 2
    assert "Invalid JSON" in errors[0].result and "does not exist" in errors[1].result
    # The first two invalid answers were dropped and the same request sent again (reference §6.2).
    assert (
        server.requests[1].body["messages"]
        == server.requests[0].body["messages"]
        == server.requests[2].body["messages"]
    )
    # The invalid arguments were never sent back to the provider as-is.
    for message in server.requests[3].body["messages"]:
        for call in message.get("tool_calls") or []:
            json.loads(call["function"]["arguments"])
    await db.close()


async def test_length_finish_continues_and_joins_the_parts(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Reply(text="The answer begins", finish="length"), Reply(text=" and ends."))
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    result = await agent.run_conversation("long please")
    assert result.final_response == "The answer begins and ends."
    assert "truncated by the output length limit" in json.dumps(server.requests[1].body)
    await db.close()


async def test_empty_response_after_tools_is_nudged(tmp_path: Path, server: FakeLLMServer, project: Path) -> None:
    server.enqueue(
        Reply(tool_calls=[("c1", "read_file", '{"path": "README.md"}')]),
        Reply(text=""),
        Reply(text="Processed the file."),
    )
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
    result = await agent.run_conversation("read README.md")
    assert result.final_response == "Processed the file."
    assert "returned an empty response" in json.dumps(server.requests[2].body)
    stored = await rows(db, result.session_id)
    assert all(r["content"] != "(empty)" for r in stored)  # scaffolding is never persisted
    await db.close()


async def test_repeated_empty_responses_end_with_an_explanation(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(*[Reply(text="") for _ in range(5)])
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    result = await agent.run_conversation("say nothing")
    assert result.exit_reason == "empty_response" and "empty response" in (result.final_response or "")
    stored = await rows(db, result.session_id)
    assert [r["role"] for r in stored] == ["user"]
    await db.close()


async def test_max_iterations_asks_for_a_final_summary(tmp_path: Path, server: FakeLLMServer, project: Path) -> None:
    from hermes_tui.config import AgentSettings, Settings

    settings = Settings(agent=AgentSettings(max_turns=2))
    server.enqueue(
        Reply(tool_calls=[("a", "read_file", '{"path": "README.md"}')]),
        Reply(tool_calls=[("b", "read_file", '{"path": "README.md"}')]),
        Reply(text="Summary of what I did."),
    )
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=settings, cwd=project)
    result = await agent.run_conversation("loop forever")
    assert result.final_response == "Summary of what I did." and result.exit_reason == "max_iterations"
    last = server.requests[-1].body
    assert "maximum number of tool-calling iterations" in json.dumps(last) and not last.get("tools")
    await db.close()


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_warm_up_builds_the_client_the_first_turn_uses(
    tmp_path: Path, server: FakeLLMServer, protocol: str
) -> None:
    choice = server_choice(protocol, server)
    agent, db, _ = await make_agent(tmp_path, choice)
    await agent.warm_up()  # the TUI calls it once start-up is over, before the first prompt
    client = agent.provider._client  # type: ignore[attr-defined]
    assert client is not None
    server.enqueue(Reply(text="warm"))
    result = await agent.run_conversation("hello")
    assert result.completed and result.final_response == "warm"
    assert agent.provider._client is client  # type: ignore[attr-defined]
    await agent.close()
    await db.close()


async def test_a_warm_up_that_fails_leaves_the_error_to_the_first_turn(tmp_path: Path) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice("http://[::1"))  # no client can be built for it
    await agent.warm_up()  # start-up goes on
    result = await agent.run_conversation("hello")
    assert result.failed and "port" in result.error  # the turn says what is wrong with the address
    assert log.of(ev.TurnFinished)[-1].failed
    await agent.close()
    await db.close()
