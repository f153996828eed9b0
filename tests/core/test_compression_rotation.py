"""The three compression triggers and session rotation, end to end against the fake server and a real DB.

Reference §4.1 (which token number), §5 (orchestrator), §6.1 items 18–19 (413 / overflow), §11 cases
17–20; issue 4 part 7: a session whose reported prompt tokens cross the threshold rotates mid-turn.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_tui.config import Settings
from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from tests.core.helpers import anthropic_choice, make_agent, openai_choice, rows
from tests.fake_llm import Fail, FakeLLMServer, Reply

SUMMARY = "## Active Task\nUser asked: 'keep going'\n## Goal\nShip the auth refactor.\n## Completed Actions\n1. READ"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "auth.py").write_text("def login(user):\n    return session.create(user)\n" * 40, encoding="utf-8")
    return folder


# Each answer carries real content (~500 tokens), so summarising the middle of a few turns makes the
# context smaller: a compression that would not is refused (the no-op rule, tests/core/test_compress_preview.py).
DETAIL = " The step reads the config, checks the token, and writes the session." * 30


async def _seed_turns(agent, server: FakeLLMServer, count: int, prompt_tokens: int = 1_000) -> None:
    for index in range(count):
        server.enqueue(Reply(text=f"Answer number {index} with some detail.{DETAIL}", usage=(prompt_tokens, 20, 0, 0)))
        result = await agent.run_conversation(f"Question {index}: tell me about step {index}")
        assert result.completed


async def test_reported_prompt_tokens_crossing_threshold_rotate_mid_turn(
    tmp_path: Path, server: FakeLLMServer, project: Path
) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
    await _seed_turns(agent, server, 6)
    await run_command(agent, "/title auth refactor")
    log.clear()
    parent = agent.session_id
    threshold = agent.compressor.threshold_tokens  # 64,000 for gpt-4o-mini's 128K window (the floor)

    server.enqueue(
        # The tool round reports a prompt over the threshold: compression runs after the tools.
        Reply(tool_calls=[("c1", "read_file", '{"path": "auth.py"}')], usage=(threshold + 5_000, 30, 0, 0)),
        Reply(text=SUMMARY),  # the summary call (main model, no aux configured)
        Reply(text="Done: login now issues JWTs.", usage=(9_000, 15, 0, 0)),
    )
    result = await agent.run_conversation("Now refactor auth.py to JWT")

    assert result.completed and result.final_response == "Done: login now issues JWTs."
    child = agent.session_id
    assert child != parent and result.session_id == child
    parent_row = await db.get_session(parent)
    child_row = await db.get_session(child)
    assert parent_row["end_reason"] == "compression"
    assert child_row["parent_session_id"] == parent and child_row["title"] == "auth refactor #2"
    assert child_row["end_reason"] is None
    stored = await rows(db, child)
    assert any(r["content"] and r["content"].startswith("[CONTEXT COMPACTION") for r in stored)
    assert stored[-1]["content"] == "Done: login now issues JWTs."
    assert len(stored) < len(await rows(db, parent))
    # Events drive the UI: started, finished, rotated — in that order, mid-turn.
    kinds = [type(e) for e in log if isinstance(e, ev.CompressionStarted | ev.CompressionFinished | ev.SessionRotated)]
    assert kinds == [ev.CompressionStarted, ev.SessionRotated, ev.CompressionFinished]
    rotated = log.of(ev.SessionRotated)[-1]
    assert (rotated.old, rotated.new, rotated.reason) == (parent, child, "compression")
    # The gauge shows an estimate until the next real usage arrives, then the reported value.
    budgets = [e.budget for e in log.of(ev.UsageUpdated)]
    assert any(b.is_estimate and b.compression_count == 1 for b in budgets)
    assert budgets[-1].reported_prompt_tokens == 9_000 and not budgets[-1].is_estimate
    meta = json.loads(await db.get_meta(f"compression:{child}"))
    assert meta["parent_session_id"] == parent and meta["messages_after"] < meta["messages_before"]
    assert meta["fallback_used"] is False
    # The summary request was a plain single user prompt asking for the checkpoint.
    summary_request = server.requests[-2].body
    assert len(summary_request["messages"]) == 1 and "TURNS TO SUMMARIZE" in summary_request["messages"][0]["content"]
    await db.close()


async def test_completion_tokens_never_trigger_compression(
    tmp_path: Path, server: FakeLLMServer, project: Path
) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
    await _seed_turns(agent, server, 6)
    threshold = agent.compressor.threshold_tokens
    server.enqueue(
        Reply(tool_calls=[("c1", "read_file", '{"path": "auth.py"}')], usage=(threshold - 20_000, 80_000, 0, 0)),
        Reply(text="fine"),
    )
    session = agent.session_id
    await agent.run_conversation("read auth.py")
    assert agent.session_id == session and not log.of(ev.CompressionStarted)
    await db.close()


async def test_413_compresses_and_retries_the_call(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, anthropic_choice(server.base_url_anthropic))
    await _seed_turns(agent, server, 6)
    parent = agent.session_id
    server.enqueue(Fail(413, "request entity too large"), Reply(text=SUMMARY), Reply(text="Made it."))
    result = await agent.run_conversation("one more thing")
    assert result.completed and result.final_response == "Made it."
    assert agent.session_id != parent
    assert (await db.get_session(parent))["end_reason"] == "compression"
    assert len(log.of(ev.CompressionStarted)) == 1
    await db.close()


async def test_anthropic_prompt_too_long_lowers_window_and_compresses_once(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    settings = Settings()
    settings.model.context_length = 1_000_000
    agent, db, log = await make_agent(tmp_path, anthropic_choice(server.base_url_anthropic), settings=settings)
    await _seed_turns(agent, server, 6)
    server.enqueue(
        Fail(400, "prompt is too long: 233153 tokens > 200000 maximum", type="invalid_request_error"),
        Reply(text=SUMMARY),
        Reply(text="Answered after compression."),
    )
    result = await agent.run_conversation("and now?")
    assert result.final_response == "Answered after compression."
    assert agent.compressor.context_length == 200_000
    assert len(log.of(ev.CompressionStarted)) == 1
    assert log.of(ev.UsageUpdated)[-1].budget.context_length == 200_000
    await db.close()


async def test_overflow_that_cannot_shrink_fails_without_losing_anything(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    server.enqueue(
        Fail(400, "This model's maximum context length is 128000 tokens", code="context_length_exceeded"),
    )
    result = await agent.run_conversation("a short conversation cannot be compressed")
    assert result.failed and "cannot be compressed further" in result.error
    stored = await rows(db, result.session_id)
    assert [r["content"] for r in stored] == ["a short conversation cannot be compressed"]
    await db.close()


async def test_preflight_compresses_an_oversized_history_before_the_first_call(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await _seed_turns(agent, server, 12)
    # Make the stored history far larger than the ~93K threshold (rough estimate: chars / 4).
    for message in agent.messages:
        if message["role"] == "assistant":
            message["content"] = message["content"] + " lorem ipsum dolor" * 2_500
    agent.meter.ledger.reset()
    before = agent.session_id
    server.enqueue(Reply(text=SUMMARY), Reply(text="Fresh answer."))
    result = await agent.run_conversation("continue")
    assert result.final_response == "Fresh answer."
    started = log.of(ev.CompressionStarted)
    assert started and started[0].reason == "preflight"
    assert agent.session_id != before
    # The first request the model saw was the summary prompt, not the oversized history.
    assert "TURNS TO SUMMARIZE" in json.dumps(server.requests[12].body)
    await db.close()


async def test_summary_failure_inserts_fallback_and_keeps_going(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await _seed_turns(agent, server, 6)
    server.enqueue(Fail(500, "summary model down"))
    outcome = await run_command(agent, "/compress")
    assert "Compressed" in outcome.output
    finished = log.of(ev.CompressionFinished)[-1]
    assert finished.fallback_used and not finished.aborted
    stored = await rows(db, agent.session_id)
    assert any("Summary generation was unavailable" in (r["content"] or "") for r in stored)
    await db.close()


async def test_abort_on_summary_failure_keeps_everything(tmp_path: Path, server: FakeLLMServer) -> None:
    settings = Settings()
    settings.compression.abort_on_summary_failure = True
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=settings)
    await _seed_turns(agent, server, 6)
    session, count = agent.session_id, len(agent.messages)
    server.enqueue(Fail(500, "summary model down"))
    outcome = await run_command(agent, "/compress")
    assert "Compression not applied" in outcome.output and "Nothing changed" in outcome.output
    assert agent.session_id == session and len(agent.messages) == count
    assert any("Compression aborted" in w.text for w in log.of(ev.Warning))
    await db.close()


async def test_manual_compress_with_focus_and_here(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    too_short = await run_command(agent, "/compress")
    assert "Nothing to compress" in too_short.output
    await _seed_turns(agent, server, 8)
    server.enqueue(Reply(text=SUMMARY))
    outcome = await run_command(agent, "/compress here 2")
    assert "last 2 exchange(s) kept verbatim" in outcome.output
    users = [m["content"] for m in agent.messages if m["role"] == "user"]
    assert users[-2:] == ["Question 6: tell me about step 6", "Question 7: tell me about step 7"]
    child = agent.session_id
    stored = await rows(db, child)
    assert len(stored) == len(agent.messages)  # flushed from offset 0 into the child
    server.enqueue(Reply(text=SUMMARY))
    await run_command(agent, "/compress the login flow")
    prompt = server.last_body["messages"][0]["content"]
    assert 'FOCUS TOPIC: "the login flow"' in prompt and "PREVIOUS SUMMARY" in prompt
    await db.close()


async def test_todo_list_survives_compression(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await _seed_turns(agent, server, 6)
    agent.session.todo.write([{"id": "1", "content": "write tests", "status": "in_progress"}])
    server.enqueue(Reply(text=SUMMARY))
    await run_command(agent, "/compress")
    assert "[Your active task list was preserved across context compression]" in agent.messages[-1]["content"]
    assert "- [>] 1. write tests (in_progress)" in agent.messages[-1]["content"]
    await db.close()


async def test_two_ineffective_compressions_pause_automatic_compression(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await _seed_turns(agent, server, 8)
    bloated = SUMMARY + "\n" + "detail " * 20_000  # a summary as large as what it replaces: < 10 % saved
    server.enqueue(Reply(text=bloated))
    first = await run_command(agent, "/compress")
    # (no turn in between: a reported prompt under the threshold would lift the pause, as in Hermes)
    server.enqueue(Reply(text=bloated))
    second = await run_command(agent, "/compress")
    assert agent.compressor.ineffective_compression_count == 2, (first.output, second.output)
    assert not agent.compressor.should_compress(10**9)  # automatic compression is paused
    assert any("Automatic compression paused" in e.text and "/new" in e.text for e in log.of(ev.ReviewEntry))
    assert agent.budget().ineffective_compressions == 2  # the gauge can say so
    # The in-loop trigger respects the guard: a huge reported prompt no longer compresses.
    compressions = len(log.of(ev.CompressionStarted))
    server.enqueue(
        Reply(tool_calls=[("c1", "todo", "{}")], usage=(10**6, 5, 0, 0)),
        Reply(text="still here"),
    )
    await agent.run_conversation("carry on")
    assert len(log.of(ev.CompressionStarted)) == compressions
    await db.close()
