"""Compressor safeguards of today's Hermes: a summary model that fails on its credential or on the
network keeps the conversation whole (no lossy fallback summary), also while it cools down; an
empty summary is a failure; the cooldown survives a resume (stored with the session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.core.commands import run_command
from hermes_tui.core.context import ContextCompressor
from hermes_tui.core.context.cooldown_store import load_cooldown
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import Fail, FakeLLMServer, Reply

from .helpers import FailingSummarizer, FakeClock, RecordingSummarizer, StatusError, conversation


@pytest.mark.parametrize(
    "error",
    [
        StatusError(401, "Incorrect API key provided"),
        StatusError(403, "Forbidden"),
        ConnectionRefusedError(111, "Connection refused"),
        ConnectionError("cannot connect to http://127.0.0.1:9/v1: Connection refused"),
    ],
    ids=["401", "403", "refused", "cannot-connect"],
)
async def test_an_auth_or_network_failure_keeps_everything(error: BaseException) -> None:
    clock = FakeClock()
    compressor = ContextCompressor(200_000, summarize=FailingSummarizer(error), clock=clock)
    messages = conversation(12)
    outcome = await compressor.run(messages)
    assert outcome.aborted and not outcome.changed and not outcome.fallback_used
    assert outcome.messages == messages
    again = await compressor.run(messages)  # within the cooldown: still no fallback summary
    assert again.aborted and again.messages == messages
    clock.advance(120)
    compressor.summarize = RecordingSummarizer()
    healed = await compressor.run(messages)
    assert healed.changed and not healed.fallback_used


async def test_an_ordinary_server_error_still_uses_the_fallback_summary() -> None:
    compressor = ContextCompressor(200_000, summarize=FailingSummarizer(StatusError(500, "boom")), clock=FakeClock())
    outcome = await compressor.run(conversation(12))
    assert outcome.changed and outcome.fallback_used and not outcome.aborted


async def test_an_empty_summary_is_a_failure_not_an_empty_handoff() -> None:
    compressor = ContextCompressor(200_000, summarize=RecordingSummarizer(reply="  \n "), clock=FakeClock())
    outcome = await compressor.run(conversation(12))
    assert outcome.fallback_used and "empty summary" in (outcome.error or "")
    assert compressor.summary_cooldown_remaining > 0


async def test_the_cooldown_survives_a_resume_and_a_restart(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
        for index in range(8):
            server.enqueue(Reply(text=f"Answer {index}: " + "details of the step. " * 40))
            assert (await agent.run_conversation(f"question {index}")).completed
        failed = agent.session_id
        server.enqueue(Fail(401, "Incorrect API key provided"))  # the summary call
        outcome = await run_command(agent, "/compress")
        assert "aborted" in outcome.output.lower() and agent.session_id == failed
        await agent.cooldowns.flush()
        stored = await load_cooldown(db, failed)
        assert stored is not None and 0 < stored[0] <= 60 and "API key" in stored[1]
        assert (await db.get_compression_failure_cooldown(failed))[0] > 0  # on the row, as Hermes keeps it

        await run_command(agent, "/new")
        assert agent.compressor.summary_cooldown_remaining == 0  # a new session starts unpaused
        await run_command(agent, f"/resume {failed}")
        assert agent.compressor.summary_cooldown_remaining > 0
        assert agent.compressor.should_compress(10**7) is False
        await agent.close()

        restarted, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), db=db)
        await restarted.resume(failed)
        assert restarted.compressor.summary_cooldown_remaining > 0
        await restarted.close()
        await db.close()
