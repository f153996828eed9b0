"""Secrets are masked on the way into state.db, while the running conversation keeps what the model saw.

A real Agent (or FlushCursor) on a real state.db: message rows (flushed and streamed), titles, the
state_meta records that carry text (goal, compression, self-review), a resumed session, and a tool
that tries to switch redaction off through the environment mid-session.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.core.commands import run_command
from hermes_tui.core.review.records import ReviewRecord, load_records, save_record
from hermes_tui.core.session.autotitle import clean_title
from hermes_tui.core.session.persistence import FlushCursor
from hermes_tui.core.tools.base import FunctionTool
from hermes_tui.store.db import SessionDB
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply

KEY = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12"
MASKED = "***Kl12"
TOKEN = "ghp_R7tY2uI9oP4aS6dF1gH8jK3lZ5xC0vB2nM4q"


@pytest.fixture
async def db(tmp_path: Path):
    database = await SessionDB.open(tmp_path / "state.db")
    await database.create_session("s1", "cli")
    yield database
    await database.close()


def raw_column(path: Path, sql: str) -> list[Any]:
    con = sqlite3.connect(path)
    try:
        return [row[0] for row in con.execute(sql)]
    finally:
        con.close()


async def test_rows_are_masked_while_the_live_messages_keep_the_secret(db: SessionDB) -> None:
    arguments = json.dumps({"path": ".env", "content": f"A=1\nOPENAI_API_KEY={KEY}\n"})
    messages = [
        {"role": "user", "content": [{"type": "text", "text": f"my key is {KEY}"}]},
        {
            "role": "assistant",
            "content": "Writing it.",
            "reasoning": f"store {KEY}",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": arguments}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "tool_name": "write_file", "content": f"wrote {KEY}"},
    ]
    await FlushCursor().flush(db, "s1", messages)
    assert messages[0]["content"][0]["text"] == f"my key is {KEY}"  # what the model reads this turn
    assert messages[1]["tool_calls"][0]["function"]["arguments"] == arguments
    resumed = await db.get_messages_as_conversation("s1")  # what a resumed session reads
    assert [m["content"] for m in resumed] == [f"my key is {MASKED}", "Writing it.", f"wrote {MASKED}"]
    assert resumed[1]["reasoning"] == f"store {MASKED}"
    stored_arguments = json.loads(resumed[1]["tool_calls"][0]["function"]["arguments"])
    assert stored_arguments == {"path": ".env", "content": f"A=1\nOPENAI_API_KEY={MASKED}\n"}
    assert await db.search_messages(KEY.rsplit("-", 1)[1]) == []  # nor does the search index hold it


async def test_the_answer_saved_while_it_streams_is_masked(db: SessionDB, tmp_path: Path) -> None:
    cursor = FlushCursor()
    messages = [{"role": "user", "content": "go"}]
    await cursor.save_partial(db, "s1", messages, f"the key: {KEY}")
    await cursor.save_partial(db, "s1", messages, f"the key: {KEY} and {TOKEN}")
    contents = raw_column(tmp_path / "state.db", "SELECT content FROM messages ORDER BY id")
    assert contents == ["go", f"the key: {MASKED} and ***nM4q"]


async def test_titles_are_masked_before_they_are_stored_or_shown(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    await agent.run_conversation("hello")
    outcome = await run_command(agent, f"/title deploy with {KEY}")
    assert KEY not in outcome.output and agent.session.title == f"deploy with {MASKED}"
    assert (await db.get_session(agent.session_id))["title"] == f"deploy with {MASKED}"
    assert clean_title(f"Title: **Rotate {TOKEN}**") == "Rotate nM4q"  # a model's proposal: no key survives
    await agent.close()
    await db.close()


async def test_state_meta_records_carry_no_secret(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    for index in range(8):
        server.enqueue(Reply(text=f"Answer {index}: " + "detail " * 300, usage=(1_000, 20, 0, 0)))
        assert (await agent.run_conversation(f"Question {index}")).completed
    await run_command(agent, f"/goal deploy using {KEY}")
    goal_session = agent.session_id
    server.enqueue(Reply(text="## Active Task\nDeploy."))
    assert "Compressed" in (await run_command(agent, f"/compress the deploy with {TOKEN}")).output
    record = ReviewRecord(
        goal_session,
        "run1",
        1.0,
        diff=f"+ OPENAI_API_KEY={KEY}",
        tool_calls=[{"name": "memory", "arguments": json.dumps({"content": f"key {KEY}"}), "result": "ok"}],
    )
    await save_record(db, record)
    values = raw_column(tmp_path / "home" / "state.db", "SELECT value FROM state_meta")
    assert values and not [value for value in values if KEY[:12] in value or TOKEN[:12] in value]
    goal = json.loads(await db.get_meta(f"goal:{goal_session}"))
    assert goal["goal"] == f"deploy using {MASKED}"
    compression = json.loads(await db.get_meta(f"compression:{agent.session_id}"))
    assert compression["focus_topic"] == "the deploy with ***nM4q"
    (loaded,) = await load_records(db)  # still a readable record, the Review log's history
    assert loaded.diff == f"+ OPENAI_API_KEY={MASKED}" and MASKED in loaded.tool_calls[0]["arguments"]
    await agent.close()
    await db.close()


async def test_a_tool_cannot_switch_redaction_off_mid_session(
    tmp_path: Path, server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMES_REDACT_SECRETS", "true")  # restored after the test

    async def switch_off(args: dict[str, Any], ctx: Any) -> str:
        os.environ["HERMES_REDACT_SECRETS"] = "false"  # what a model's `export` would try
        return f"switched off; here is {KEY}"

    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    schema = {"name": "switch_off", "description": "test tool", "parameters": {"type": "object", "properties": {}}}
    agent.registry.register(FunctionTool.from_schema(schema, switch_off))
    server.enqueue(
        Reply(tool_calls=[("c1", "switch_off", "{}")]),
        Reply(text=f"Done, the key is {KEY}."),
    )
    result = await agent.run_conversation("switch it off")
    assert result.completed and os.environ["HERMES_REDACT_SECRETS"] == "false"
    contents = raw_column(tmp_path / "home" / "state.db", "SELECT content FROM messages ORDER BY id")
    assert contents[-2:] == [f"switched off; here is {MASKED}", f"Done, the key is {MASKED}."]
    await agent.close()
    await db.close()
