"""The compression preview and the no-op rule: a compression that would not shrink the context is not applied.

Through the real Agent: the demo model for the short session a new user tries, the fake server
for exact token reports and scripted summaries, and the real `hermes-tui run` for the headless form.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply
from tests.test_cli import run_cli

SUMMARY = "## Active Task\nUser asked: 'keep going'\n## Goal\nShip the auth refactor."
DETAIL = " The step reads the config, checks the token, and writes the session." * 30


async def _seed(agent, server: FakeLLMServer, count: int, *, detail: str = DETAIL, prompt_tokens: int = 1_000) -> None:
    for index in range(count):
        server.enqueue(Reply(text=f"Answer {index}.{detail}", usage=(prompt_tokens, 20, 0, 0)))
        assert (await agent.run_conversation(f"Question {index}")).completed


def _session_count(agent) -> int:
    con = sqlite3.connect(agent.db.path)
    try:
        return con.execute("select count(*) from sessions").fetchone()[0]
    finally:
        con.close()


async def test_compress_on_a_short_demo_session_is_not_applied_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Gadget\n\nThe gadget toggles.\n", encoding="utf-8")
    agent, db, log = await make_agent(tmp_path)
    for text in ("hello", "read README.md", "what else?", "list files", "thanks"):
        assert (await agent.run_conversation(text)).completed
    session, history, sessions = agent.session_id, [dict(m) for m in agent.messages], _session_count(agent)

    outcome = await run_command(agent, "/compress")
    assert not outcome.error
    assert outcome.output.startswith("Compression not applied: it would not reduce the context"), outcome.output
    assert agent.session_id == session and agent.messages == history  # no rotation
    assert _session_count(agent) == sessions  # no new session
    assert not log.of(ev.SessionRotated)
    assert agent.budget().compression_count == 0  # a discarded compression does not count
    assert any("Compression not applied" in e.text for e in log.of(ev.ReviewEntry))
    await db.close()


async def test_preview_says_what_would_be_summarised_without_calling_the_model(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await _seed(agent, server, 8)
    requests, session = len(server.requests), agent.session_id

    preview = await agent.compression_preview("the login flow")
    assert preview.would_compress and preview.focus_topic == "the login flow"
    assert preview.messages_total == 16
    assert preview.head_count + preview.summarised_count + preview.tail_count == 16
    assert preview.summarised_count > 0 and preview.head_count == 3
    assert preview.tokens_after < preview.tokens_before and 0 < preview.saving_percent < 100
    assert preview.head[0] == "user: Question 0" and any(line.startswith("assistant: Answer") for line in preview.tail)
    text = (await run_command(agent, "/compress preview the login flow")).output
    assert text.startswith(f"/compress would summarise {preview.summarised_count} of 16 messages, focus")
    assert f"~{preview.tokens_before:,} → ~{preview.tokens_after:,}" in text
    assert len(server.requests) == requests and agent.session_id == session  # nothing was done

    partial = await agent.compression_preview("here 3")
    assert partial.keep_exchanges == 3 and partial.tail_count >= 6
    too_many = await agent.compression_preview("here 40")
    assert not too_many.would_compress and "only has 8" in too_many.reason

    server.enqueue(Reply(text=SUMMARY))
    applied = await run_command(agent, "/compress the login flow")
    assert applied.output.startswith("🗜️ Compressed") and agent.session_id != session
    await db.close()


async def test_preview_of_a_conversation_too_short_to_compress(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    preview = await agent.compression_preview("")
    assert not preview.would_compress and "at least 4" in preview.reason
    assert preview.text().startswith("/compress would not change anything:")
    await db.close()


async def test_a_summary_bigger_than_what_it_replaces_is_discarded(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await _seed(agent, server, 6)
    session, count = agent.session_id, len(agent.messages)
    server.enqueue(Reply(text=SUMMARY + "\n" + "detail " * 20_000))
    outcome = await run_command(agent, "/compress")
    assert "Compression not applied: it would not reduce the context (the summary left" in outcome.output
    assert agent.session_id == session and len(agent.messages) == count
    assert agent.budget().compression_count == 0
    assert not log.of(ev.SessionRotated)
    # The next compression starts from scratch, not from the discarded summary.
    server.enqueue(Reply(text=SUMMARY))
    assert (await run_command(agent, "/compress")).output.startswith("🗜️ Compressed")
    assert "PREVIOUS SUMMARY" not in server.last_body["messages"][0]["content"]
    await db.close()


async def test_an_automatic_compression_that_cannot_help_is_skipped_without_a_summary_call(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    """The provider says the prompt is over the threshold, but the middle of the conversation is tiny."""
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await _seed(agent, server, 6, detail="")
    session = agent.session_id
    threshold = agent.compressor.threshold_tokens
    server.enqueue(
        Reply(tool_calls=[("c1", "todo", "{}")], usage=(threshold + 5_000, 30, 0, 0)),
        Reply(text="All done.", usage=(threshold + 6_000, 5, 0, 0)),  # still over: the attempt still counts
    )
    requests = len(server.requests)
    result = await agent.run_conversation("carry on")
    assert result.completed and result.final_response == "All done."
    assert len(server.requests) == requests + 2  # the two turn calls; no summary call
    assert agent.session_id == session and not log.of(ev.CompressionStarted)
    warnings = [w.text for w in log.of(ev.Warning)]
    assert any(w.startswith("Compression not applied: it would not reduce the context") for w in warnings)
    assert agent.compressor.ineffective_compression_count == 1  # two such attempts pause the trigger
    await db.close()


@pytest.mark.subprocess
def test_headless_compress_preview_prints_and_changes_nothing(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("".join(f"Line {i}: the gadget toggles a switch.\n" for i in range(200)))
    home = tmp_path / "home"
    first = run_cli("run", "read notes.md", "--json", "--home", str(home), cwd=project)
    session = json.loads(first.stdout)["session_id"]
    for text in ("what else?", "read notes.md", "and more", "read notes.md", "and the rest"):
        assert run_cli("run", text, "--home", str(home), "--resume", session, cwd=project).returncode == 0
    preview = run_cli("run", "/compress preview", "--home", str(home), "--resume", session, cwd=project)
    assert preview.returncode == 0, preview.stderr
    assert preview.stdout.startswith("/compress would summarise"), preview.stdout
    assert "summarised:" in preview.stdout and "user: read notes.md" in preview.stdout
    con = sqlite3.connect(home / "state.db")
    try:
        assert con.execute("select count(*) from sessions").fetchone()[0] == 1  # nothing rotated
    finally:
        con.close()
