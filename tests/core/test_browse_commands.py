"""/search, /compare and /inspect: the same registry answers headless (text) and in the TUI (a screen)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.core.commands import run_command
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply
from tests.test_cli import run_cli

SUMMARY = "## Active Task\nUser asked: 'keep going'\n## Goal\nShip it."


@pytest.fixture
def server():
    with FakeLLMServer() as srv:
        yield srv


async def test_search_prints_one_block_per_lineage_and_asks_the_tui_for_its_screen(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    await agent.run_conversation("tell me about the walrus migration")
    await run_command(agent, "/title walrus work")
    first = agent.session_id
    await run_command(agent, "/new")
    await agent.run_conversation("unrelated")

    found = await run_command(agent, "/search walrus role:user")
    assert not found.error and found.screen == "search" and found.screen_arg == "walrus role:user"
    assert found.output.splitlines()[0].startswith("1 lineage(s)")
    assert f"walrus work  [{first}]" in found.output and "user" in found.output
    assert "walrus migration" in found.output

    assert "No matches" in (await run_command(agent, "/search walrus since:2h until:1h")).output
    bad = await run_command(agent, "/search walrus since:someday")
    assert bad.error and bad.output.startswith("since: 'someday' is not a date")
    empty = await run_command(agent, "/search")
    assert empty.error and empty.screen == "search" and empty.output.startswith("usage: /search")
    await agent.close()
    await db.close()


async def test_compare_with_the_parent_by_default_or_two_named_sessions(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    none = await run_command(agent, "/compare")
    assert none.error and none.screen == "compare" and "no parent" in none.output
    await agent.run_conversation("where do we start?")
    parent = agent.session_id
    await run_command(agent, "/branch plan b")
    await agent.run_conversation("plan b it is")
    branch = agent.session_id

    default = await run_command(agent, "/compare")
    assert not default.error and default.screen == "compare" and default.screen_arg == ""
    assert f"A: {parent}" in default.output and f"B: {branch}" in default.output and "plan b it is" in default.output
    named = await run_command(agent, f"/compare {parent} plan b")
    assert named.error  # three references: one too many
    named = await run_command(agent, f"/compare {parent[:-2]} {branch}")  # an id prefix
    assert named.screen_arg == f"{parent} {branch}" and "shared messages" in named.output
    one = await run_command(agent, f"/compare {parent}")
    assert one.screen_arg == f"{branch} {parent}"  # this session against the one named
    unknown = await run_command(agent, "/compare nosuchsession")
    assert unknown.error and "no session matches" in unknown.output
    await agent.close()
    await db.close()


async def test_inspect_names_the_compression_a_session_carries(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    assert "no compression" in (await run_command(agent, "/inspect")).output
    for index in range(8):
        server.enqueue(Reply(text=f"Answer {index}: " + "detail " * 200))
        await agent.run_conversation(f"Question {index}")
    server.enqueue(Reply(text=SUMMARY))
    await run_command(agent, "/compress")
    child = agent.session_id
    shown = await run_command(agent, "/inspect")
    assert not shown.error and shown.screen == "inspect" and shown.screen_arg == child
    assert "Summary:" in shown.output and "Ship it." in shown.output and "Summarised messages:" in shown.output
    assert "Fallback summary: no" in shown.output
    await agent.close()
    await db.close()


def test_search_from_the_command_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    first = run_cli("--home", str(home), "run", "remember the narwhal", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    found = run_cli("--home", str(home), "run", "/search narwhal", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert "1 lineage(s)" in found.stdout and "remember the narwhal" in found.stdout
