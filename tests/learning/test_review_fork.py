"""The background self-review end to end: real Agent, real SDK against the fake server, real files."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

from hermes_tui.config import AgentSettings, Settings
from hermes_tui.core import events as ev
from hermes_tui.core.review.prompts import NOTHING_TO_SAVE, TOOLS_ONLY_LINE
from hermes_tui.core.review.records import load_records
from tests.core.helpers import make_agent, openai_choice, rows, server_choice, wait_until
from tests.fake_llm import Fail, FakeLLMServer, Hang, Reply


def every_turn() -> Settings:
    settings = Settings()
    settings.memory.nudge_interval = 1
    return settings


def memory_add(content: str, call_id: str = "r1") -> Reply:
    args = json.dumps({"action": "add", "target": "user", "content": content})
    return Reply(tool_calls=[(call_id, "memory", args)])


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_a_due_nudge_runs_the_fork_which_writes_memory_and_reports_it(
    tmp_path: Path, server: FakeLLMServer, protocol: str
) -> None:
    choice = server_choice(protocol, server)
    server.enqueue(
        Reply(text="Done: the tests pass."),
        memory_add("Prefers answers that start with the result."),
        Reply(text="Saved the preference."),
    )
    agent, db, log = await make_agent(tmp_path, choice, settings=every_turn(), review=True)
    result = await agent.run_conversation("Run the tests and tell me the result first, please.")
    prompt_after_turn = agent.session.system_prompt
    record = await agent.reviewer.wait(10)

    assert result.completed and record is not None
    user_md = agent.home.memories / "USER.md"
    assert user_md.read_text("utf-8") == "Prefers answers that start with the result."
    # The fork shared the parent's cached prompt and the very same tool list (prompt-cache parity) ...
    main, fork_first, _fork_second = (r.body for r in server.requests)
    assert fork_first["tools"] == main["tools"]
    if protocol == "openai":
        assert fork_first["messages"][0] == main["messages"][0]
    else:
        assert fork_first["system"] == main["system"]
    # ... and asked with the review prompt after the parent's conversation.
    review_text = json.dumps(fork_first["messages"][-1], ensure_ascii=False)
    assert "Nothing to save." in review_text and TOOLS_ONLY_LINE[:40] in review_text
    # The Review log line names what changed and carries the diff.
    entries = [e for e in log.of(ev.ReviewEntry) if e.text.startswith("💾")]
    assert [e.text for e in entries] == ["💾 Self-improvement review: User profile updated"]
    assert "+Prefers answers that start with the result." in entries[0].detail
    assert "b/memories/USER.md" in entries[0].detail
    # The parent's transcript and the stored session hold nothing of the review.
    assert [m["role"] for m in agent.messages] == ["user", "assistant"]
    stored = await rows(db, result.session_id)
    assert [r["role"] for r in stored] == ["user", "assistant"]
    assert not any("Self-improvement" in (r["content"] or "") for r in stored)
    # The live session's cached prompt did not change: memory reaches it with the next session.
    assert agent.session.system_prompt == prompt_after_turn
    assert "Prefers answers" not in agent.session.system_prompt
    # The run survives a restart in state_meta.
    [saved] = await load_records(db)
    assert saved.session_id == result.session_id and saved.actions == ["User profile updated"]
    assert [c["name"] for c in saved.tool_calls] == ["memory"]
    await agent.new_session()
    assert "Prefers answers that start with the result." in await agent.session.prompt()
    await agent.close()
    await db.close()


async def test_the_fork_cannot_use_other_tools(tmp_path: Path, server: FakeLLMServer) -> None:
    (tmp_path / "secret.txt").write_text("top secret", encoding="utf-8")
    server.enqueue(
        Reply(text="ok"),
        Reply(
            tool_calls=[("r1", "read_file", '{"path": "secret.txt"}'), ("r2", "terminal", '{"command": "rm -rf /"}')]
        ),
        Reply(text=NOTHING_TO_SAVE),
    )
    agent, db, log = await make_agent(
        tmp_path, openai_choice(server.base_url_openai), settings=every_turn(), review=True
    )
    await agent.run_conversation("hello")
    record = await agent.reviewer.wait(10)
    assert record is not None and record.actions == []
    results = [c["result"] for c in record.tool_calls]
    assert all("may only use the memory and skill tools" in r for r in results)
    assert "'read_file'" in results[0] and "'terminal'" in results[1]
    assert "top secret" not in json.dumps(server.requests[-1].body)
    assert any(e.text == "Self-improvement review: nothing new to save" for e in log.of(ev.ReviewEntry))
    await agent.close()
    await db.close()


async def test_a_failing_review_is_one_warning_and_the_next_turn_works(tmp_path: Path, server: FakeLLMServer) -> None:
    settings = every_turn()
    settings.agent = AgentSettings(max_turns=settings.agent.max_turns, api_max_retries=1)
    server.enqueue(Reply(text="first"), Fail(400, "bad request for the review"))
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=settings, review=True)
    await agent.run_conversation("one")
    await agent.reviewer.wait(10)
    warnings = [w.text for w in log.of(ev.Warning)]
    assert len(warnings) == 1 and warnings[0].startswith("Self-improvement review failed")
    server.enqueue(Reply(text="second"), Reply(text=NOTHING_TO_SAVE))
    result = await agent.run_conversation("two")
    assert result.final_response == "second"
    await agent.close()
    await db.close()


async def test_quitting_cancels_a_running_review_cleanly(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Reply(text="answer"), Hang(seconds=600, first_text="thinking"))
    agent, db, log = await make_agent(
        tmp_path, openai_choice(server.base_url_openai), settings=every_turn(), review=True
    )
    await agent.run_conversation("hi")
    await wait_until(lambda: len(server.requests) == 2, what="the review's request")
    assert agent.reviewer.running
    await asyncio.wait_for(agent.close(), 5)
    assert not agent.reviewer.running
    assert not [w for w in log.of(ev.Warning) if "review" in w.text.lower()]
    assert await load_records(db) == []
    await db.close()


async def test_the_skill_nudge_counts_tool_iterations_and_runs_the_skill_review(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    settings = Settings()
    settings.skills.creation_nudge_interval = 2
    settings.memory.nudge_interval = 0
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    skill = "---\nname: read-twice\ndescription: Read a file twice.\n---\n\n# Read twice\n\n1. Read it.\n2. Again.\n"
    server.enqueue(
        Reply(tool_calls=[("c1", "read_file", '{"path": "a.txt"}')]),
        Reply(tool_calls=[("c2", "read_file", '{"path": "a.txt"}')]),
        Reply(text="read it twice"),
        Reply(
            tool_calls=[
                ("s1", "skill_manage", json.dumps({"action": "create", "name": "read-twice", "content": skill}))
            ]
        ),
        Reply(text="Created a skill."),
    )
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=settings, review=True)
    await agent.run_conversation("read a.txt twice")
    record = await agent.reviewer.wait(10)
    assert record is not None and record.skills_due and not record.memory_due
    assert record.actions == ["Skill 'read-twice' created"]
    assert "skills under" not in server.requests[3].body["messages"][-1]["content"]
    assert "class of task" in server.requests[3].body["messages"][-1]["content"]
    assert (agent.home.skills / "read-twice" / "SKILL.md").read_text("utf-8") == skill
    usage = json.loads((agent.home.skills / ".usage.json").read_text("utf-8"))
    assert usage["read-twice"]["created_by"] == "agent"
    line = next(e for e in log.of(ev.ReviewEntry) if e.text.startswith("💾"))
    assert line.kind == "skill" and "+# Read twice" in line.detail
    await agent.close()
    await db.close()


async def test_fork_settings_do_not_change_the_parent(tmp_path: Path) -> None:
    from hermes_tui.core.review.fork import fork_settings

    settings = Settings()
    forked = fork_settings(settings)
    assert forked.agent.max_turns == 16 and settings.agent.max_turns == 90
    assert forked.memory.nudge_interval == 0 and settings.memory.nudge_interval == 10
    assert dataclasses.replace(forked) is not settings
