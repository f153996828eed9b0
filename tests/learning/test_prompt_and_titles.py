"""The full system prompt (tiers, context files, Hermes blocks byte for byte, stable on resume) and auto-titles."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime
from pathlib import Path

from hermes_tui.config import Home
from hermes_tui.core import events as ev
from hermes_tui.core.prompt import IDENTITY, PromptInputs, build_system_prompt
from hermes_tui.core.prompt_context import (
    CONTEXT_FILE_MAX_CHARS,
    context_file_cap,
    find_context_file,
    search_folders,
)
from hermes_tui.core.session.autotitle import clean_title, demo_title
from tests.core.helpers import DEMO, make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply
from tests.learning.fixture_home import copy_home, expected


def inputs(cwd: Path, **extra: object) -> PromptInputs:
    return PromptInputs(
        cwd=cwd,
        model="m",
        provider="p",
        tool_names=("memory", "session_search", "skill_view", "skill_manage"),
        session_started=datetime(2026, 3, 5, 14, 30),
        **extra,  # type: ignore[arg-type]
    )


def test_tiers_are_in_order_and_only_the_date_is_stamped(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Use tabs.", encoding="utf-8")
    prompt = build_system_prompt(
        inputs(tmp_path, memory_block="MEMBLOCK", skills_listing="<available_skills>\n</available_skills>")
    )
    order = [
        IDENTITY,
        "## Memory",
        "## Past conversations",
        "## Skills",
        "## Available skills",
        "## Environment",
        "# Project context",
        "## AGENTS.md\n\nUse tabs.",
        "MEMBLOCK",
        "Conversation started: Thursday, March 05, 2026",
    ]
    positions = [prompt.index(part) for part in order]
    assert positions == sorted(positions)
    assert "14:30" not in prompt and f"Working folder: {tmp_path}" in prompt
    assert "not inside a git repository" in prompt


def test_soul_md_replaces_the_identity(tmp_path: Path) -> None:
    prompt = build_system_prompt(inputs(tmp_path, soul="You are Kestrel, a terse pair programmer."))
    assert prompt.startswith("You are Kestrel") and IDENTITY not in prompt


def test_hermes_md_is_looked_for_up_to_the_git_root_and_loses_its_front_matter(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    deep = repo / "pkg" / "sub"
    deep.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (tmp_path / "HERMES.md").write_text("outside the repository", encoding="utf-8")
    assert search_folders(deep) == [deep, repo / "pkg", repo]
    assert find_context_file(deep) is None  # a HERMES.md above the git root is never read
    (repo / "HERMES.md").write_text("---\nmodel: x\n---\nhermes at the root", encoding="utf-8")
    found = find_context_file(deep)
    assert found is not None and found.name == str(repo / "HERMES.md")  # above the working folder: its full path
    assert found.text == f"## {found.name}\n\nhermes at the root"  # the front matter is not sent
    (repo / "pkg" / ".hermes.md").write_text("nearer wins", encoding="utf-8")
    assert find_context_file(deep).text.endswith("nearer wins")
    outside = tmp_path / "plain"
    outside.mkdir()
    (tmp_path / ".hermes.md").write_text("a parent outside any repository", encoding="utf-8")
    assert find_context_file(outside) is None  # outside a repository only the working folder counts


def test_agents_claude_and_cursor_rules_are_read_from_the_working_folder_only(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "pkg"
    sub.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("root agents", encoding="utf-8")
    (repo / "CLAUDE.md").write_text("root claude", encoding="utf-8")
    assert find_context_file(sub) is None  # a parent folder's AGENTS.md or CLAUDE.md is not read
    found = find_context_file(repo)
    assert found is not None and found.name == "AGENTS.md" and found.text == "## AGENTS.md\n\nroot agents"

    (sub / "agents.md").write_text("lower-case agents", encoding="utf-8")
    (sub / "claude.md").write_text("lower-case claude", encoding="utf-8")
    found = find_context_file(sub)
    assert found is not None and found.name == "agents.md" and found.text.endswith("lower-case agents")
    (sub / "agents.md").unlink()
    assert find_context_file(sub).text == "## claude.md\n\nlower-case claude"  # AGENTS outranks CLAUDE
    (sub / "claude.md").unlink()

    rules = sub / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "b-style.mdc").write_text("no globals", encoding="utf-8")
    (rules / "a-tests.mdc").write_text("test first", encoding="utf-8")
    (rules / "notes.md").write_text("not a rule file", encoding="utf-8")
    (sub / ".cursorrules").write_text("be brief", encoding="utf-8")
    found = find_context_file(sub)
    assert found is not None and found.name == ".cursorrules and .cursor/rules"
    assert found.text == (
        "## .cursorrules\n\nbe brief\n\n## .cursor/rules/a-tests.mdc\n\ntest first"
        "\n\n## .cursor/rules/b-style.mdc\n\nno globals"
    )
    (sub / "AGENTS.md").write_text("   \n", encoding="utf-8")  # an empty file does not count
    assert find_context_file(sub).name == ".cursorrules and .cursor/rules"


def test_a_long_context_file_keeps_head_and_tail_within_a_cap_that_grows_with_the_window(tmp_path: Path) -> None:
    text = "H" * 50_000 + "M" * 100_000 + "T" * 50_000
    (tmp_path / "AGENTS.md").write_text(text, encoding="utf-8")
    capped = find_context_file(tmp_path).text
    assert len(capped) < CONTEXT_FILE_MAX_CHARS + 400
    assert capped.startswith("## AGENTS.md\n\n" + "H" * 100)
    assert capped.endswith("\n\n" + "T" * int(CONTEXT_FILE_MAX_CHARS * 0.2))
    assert "M" * 100 not in capped and f"Read {tmp_path / 'AGENTS.md'} with read_file" in capped
    assert context_file_cap(None) == context_file_cap(64_000) == CONTEXT_FILE_MAX_CHARS
    assert context_file_cap(1_000_000) == 240_000 and context_file_cap(10_000_000) == 500_000
    whole = find_context_file(tmp_path, context_length=1_000_000).text  # a 1M window takes the file whole
    assert whole == "## AGENTS.md\n\n" + text
    prompt = build_system_prompt(
        PromptInputs(cwd=tmp_path, model="m", provider="p", tool_names=(), context_length=1_000_000)
    )
    assert text in prompt


async def test_opened_on_a_hermes_home_the_prompt_carries_hermes_blocks_byte_for_byte(tmp_path: Path) -> None:
    root = copy_home(tmp_path / "home")
    Home(root).ensure()
    agent, db, log = await make_agent(tmp_path, DEMO, cwd=tmp_path)
    prompt = await agent.session.prompt()
    assert expected("expected_memory_block.txt") in prompt
    listing = expected("expected_skills_index.txt")
    listing = listing[listing.index("<available_skills>") : listing.index("</available_skills>") + 19]
    assert listing in prompt
    assert "## Skills (mandatory)" not in prompt  # the guidance around it is ours
    assert not [e for e in log.of(ev.ReviewEntry) if e.kind == "warning"]
    await agent.close()
    await db.close()


async def test_a_malformed_skill_is_one_review_log_warning(tmp_path: Path) -> None:
    broken = tmp_path / "home" / "skills" / "broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("no frontmatter", encoding="utf-8")
    agent, db, log = await make_agent(tmp_path, DEMO, cwd=tmp_path)
    await agent.run_conversation("hi")
    await agent.new_session()
    await agent.run_conversation("again")
    warnings = [e.text for e in log.of(ev.ReviewEntry) if e.kind == "warning"]
    assert len(warnings) == 1 and "broken" in warnings[0] and "must start with a '---'" in warnings[0]
    assert not log.of(ev.Warning)  # the Review log only, never a crash or a conversation notice
    await agent.close()
    await db.close()


async def test_the_prompt_is_byte_identical_after_a_resume(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Reply(text="one"), Reply(text="two"))
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=tmp_path)
    result = await agent.run_conversation("first")
    session = result.session_id
    (agent.home.memories / "MEMORY.md").write_text("a note written later", encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text("a context file added later", encoding="utf-8")
    await agent.close()
    agent2, _db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=tmp_path, db=db)
    await agent2.resume(session)
    await agent2.run_conversation("second")
    first_system = server.requests[0].body["messages"][0]["content"]
    second_system = server.requests[1].body["messages"][0]["content"]
    assert second_system == first_system
    assert "a note written later" not in second_system
    await agent2.close()
    await db.close()


# ---------------------------------------------------------------------------- auto-titles


def test_titles_are_cleaned_like_hermes_does() -> None:
    assert clean_title('Title: "Fix the login bug"') == "Fix the login bug"
    assert clean_title("**Deploy checklist.**\nmore lines") == "Deploy checklist"
    assert clean_title("a" * 90) == "a" * 77 + "..."
    assert clean_title("  \u200b ") is None
    assert demo_title("read README.md and tell me what it says") == "Read README.md and tell me what"


async def test_an_untitled_session_gets_a_title_and_its_compression_child_is_numbered(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    server.enqueue(Reply(text="Here is how the cache works."), Reply(text='Title: "Cache invalidation design"'))
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), auto_title=True)
    result = await agent.run_conversation("How should cache invalidation work here?")
    title = await agent.learning.titles.wait(10)
    assert title == "Cache invalidation design"
    assert (await db.get_session(result.session_id))["title"] == title
    assert ev.TitleChanged(result.session_id, title) in log
    title_request = server.requests[1].body["messages"][-1]["content"]
    assert "How should cache invalidation work here?" in title_request and "3 to 7 words" in title_request
    for index in range(5):  # answers long enough that summarising them saves tokens (the no-op rule)
        server.enqueue(Reply(text=f"more {index}: " + "the cache keeps entries until their source changes. " * 40))
        await agent.run_conversation(f"more {index}")
    assert len(server.requests) == 7  # titles are only proposed while the session is young
    server.enqueue(Reply(text="## Active Task\nUser asked: 'go'\n## Goal\nGo."))
    await agent.compress("")
    assert agent.session.title == "Cache invalidation design #2"
    listing = json.dumps(await db.list_sessions_rich(limit=5), default=str)
    assert "Cache invalidation design #2" in listing
    await agent.close()
    await db.close()


async def test_a_taken_title_is_numbered_and_the_demo_title_is_deterministic(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path, DEMO, auto_title=True)
    await agent.run_conversation("read README.md please")
    assert await agent.learning.titles.wait(10) == "Read README.md please"
    await agent.new_session()
    await agent.run_conversation("read README.md please")
    assert await agent.learning.titles.wait(10) == "Read README.md please #2"
    await agent.close()
    await db.close()


async def test_a_title_set_by_the_user_meanwhile_wins(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Reply(text="answer"), Reply(text="Model title", delay_per_chunk=0.05))
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai), auto_title=True)
    await agent.run_conversation("question")
    await agent.set_title("my own title")
    assert await agent.learning.titles.wait(10) is None
    assert agent.session.title == "my own title"
    await agent.close()
    await db.close()
