"""/search, /compare and /inspect: the registry returns a screen intent; only headless turns it into text."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.core.commands import CommandResult, OpenCompare, OpenInspector, OpenSearch, run_command
from hermes_tui.headless import headless_command
from tests.core.helpers import count_searches, make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply
from tests.test_cli import run_cli

SUMMARY = "## Active Task\nUser asked: 'keep going'\n## Goal\nShip it."


async def test_search_prints_one_block_per_lineage_and_asks_the_tui_for_its_screen(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    await agent.run_conversation("tell me about the walrus migration")
    await run_command(agent, "/title walrus work")
    first = agent.session_id
    await run_command(agent, "/new")
    await agent.run_conversation("unrelated")

    found = await headless_command(agent, "/search walrus role:user")
    assert not found.error and found.intent == OpenSearch("walrus role:user")
    assert found.output.splitlines()[0].startswith("1 lineage(s)")
    assert f"walrus work  [{first}]" in found.output and "user" in found.output
    assert "walrus migration" in found.output

    assert "No matches" in (await headless_command(agent, "/search walrus since:2h until:1h")).output
    bad = await headless_command(agent, "/search walrus since:someday")
    assert bad.error and bad.output.startswith("since: 'someday' is not a date")
    empty = await headless_command(agent, "/search")
    assert empty.error and empty.intent == OpenSearch("") and empty.output.startswith("usage: /search")
    await agent.close()
    await db.close()


async def test_the_tui_search_leaves_the_store_to_its_screen_and_headless_searches_once(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    await agent.run_conversation("tell me about the walrus migration")
    queries = count_searches(db)

    opened = await run_command(agent, "/search walrus", interactive=True)
    assert opened == CommandResult(intent=OpenSearch("walrus"))  # no text built for a screen that searches itself
    assert queries == []  # and the store was not asked

    printed = await headless_command(agent, "/search walrus")
    assert len(queries) == 1 and "walrus migration" in printed.output
    await agent.close()
    await db.close()


async def test_compare_with_the_parent_by_default_or_two_named_sessions(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    lonely = agent.session_id
    assert (await run_command(agent, "/compare", interactive=True)).intent == OpenCompare(lonely)  # the TUI asks
    none = await headless_command(agent, "/compare")
    assert none.error and "no parent" in none.output
    await agent.run_conversation("where do we start?")
    parent = agent.session_id
    await run_command(agent, "/branch plan b")
    await agent.run_conversation("plan b it is")
    branch = agent.session_id

    default = await headless_command(agent, "/compare")
    assert not default.error and default.intent == OpenCompare(branch)
    assert f"A: {parent}" in default.output and f"B: {branch}" in default.output and "plan b it is" in default.output
    named = await run_command(agent, f"/compare {parent} plan b")
    assert named.error  # three references: one too many
    tui = await run_command(agent, f"/compare {parent[:-2]} {branch}", interactive=True)  # an id prefix
    assert tui == CommandResult(intent=OpenCompare(parent, branch))  # resolved, but no comparison built
    named = await headless_command(agent, f"/compare {parent[:-2]} {branch}")
    assert named.intent == OpenCompare(parent, branch) and "shared messages" in named.output
    one = await run_command(agent, f"/compare {parent}")
    assert one.intent == OpenCompare(branch, parent)  # this session against the one named
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
    assert await run_command(agent, "/inspect", interactive=True) == CommandResult(intent=OpenInspector(child))
    shown = await headless_command(agent, "/inspect")
    assert not shown.error and shown.intent == OpenInspector(child)
    assert "Summary:" in shown.output and "Ship it." in shown.output and "Summarised messages:" in shown.output
    assert "Fallback summary: no" in shown.output
    await agent.close()
    await db.close()


@pytest.mark.subprocess
def test_search_from_the_command_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    first = run_cli("--home", str(home), "run", "remember the narwhal", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    found = run_cli("--home", str(home), "run", "/search narwhal", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert "1 lineage(s)" in found.stdout and "remember the narwhal" in found.stdout
