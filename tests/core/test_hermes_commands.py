"""/copy, /reasoning, /personality, /verbose, /version, /config, /debug and /reload-skills through the real
Agent (demo model or the real SDK clients against the loopback fake server) and a real state.db."""

from __future__ import annotations

import platform
import re
from pathlib import Path

from hermes_tui import __version__
from hermes_tui.config import Home, load_settings
from hermes_tui.core import events as ev
from hermes_tui.core.commands import CopyText, run_command
from hermes_tui.core.personality import PERSONALITIES
from hermes_tui.headless import headless_command
from tests.core.helpers import anthropic_choice, make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply

SECRET = "sk-live-0123456789abcdefghijklmnop"


async def test_copy_gives_the_nth_last_answer(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    nothing = await run_command(agent, "/copy")
    assert nothing.error and "Nothing to copy yet" in nothing.output
    (tmp_path / "notes.txt").write_text("first file\n", encoding="utf-8")
    await agent.run_conversation("hello")
    await agent.run_conversation("read notes.txt")
    answers = [m["content"] for m in agent.messages if m["role"] == "assistant" and m.get("content")]
    last = await run_command(agent, "/copy")
    assert last.intent == CopyText(answers[-1].strip(), 1) and "Copied the last answer" in last.output
    earlier = await run_command(agent, f"/copy {len(answers)}")
    assert earlier.intent == CopyText(answers[0].strip(), len(answers))
    for bad, why in ((f"/copy {len(answers) + 1}", f"/copy 1-{len(answers)}"), ("/copy x", "usage: /copy [N]")):
        refused = await run_command(agent, bad)
        assert refused.error and why in refused.output
    assert (await headless_command(agent, "/copy")).output == answers[-1].strip()  # headless prints the text
    await agent.close()
    await db.close()


async def test_reasoning_effort_reaches_the_openai_request(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    for command, sent in (("/reasoning high", "high"), ("/reasoning max", "xhigh"), ("/reasoning default", None)):
        outcome = await run_command(agent, command)
        assert not outcome.error, outcome.output
        server.enqueue(Reply(text="ok"))
        await agent.run_conversation("think")
        assert server.last_body.get("reasoning_effort") == sent, command
    shown = await run_command(agent, "/reasoning")
    assert "Reasoning effort: default" in shown.output and "Reasoning display: shown" in shown.output
    hidden = await run_command(agent, "/reasoning hide")
    assert "hidden" in hidden.output and not agent.display.show_reasoning
    assert log.of(ev.DisplayChanged)[-1] == ev.DisplayChanged(False, "all")
    refused = await run_command(agent, "/reasoning loud")
    assert refused.error and "Unknown reasoning setting 'loud'" in refused.output
    await agent.close()
    await db.close()


async def test_reasoning_levels_become_anthropic_thinking_budgets(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await make_agent(tmp_path, anthropic_choice(server.base_url_anthropic))
    await run_command(agent, "/reasoning high")
    server.enqueue(Reply(text="ok"))
    await agent.run_conversation("think hard")
    body = server.last_body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 16_000}
    assert body["max_tokens"] > 16_000  # the answer keeps room beside the thinking budget
    await run_command(agent, "/reasoning none")
    server.enqueue(Reply(text="ok"))
    await agent.run_conversation("quick")
    assert "thinking" not in server.last_body
    await agent.close()
    await db.close()


async def test_a_personality_is_sent_with_every_request_but_never_stored(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    server.enqueue(Reply(text="plain"))
    await agent.run_conversation("hello")
    listed = await run_command(agent, "/personality")
    assert "● none" in listed.output and "pirate" in listed.output
    chosen = await run_command(agent, "/personality Pirate")
    assert not chosen.error and "Personality: pirate" in chosen.output
    server.enqueue(Reply(text="arr"))
    await agent.run_conversation("again")
    system = server.last_body["messages"][0]
    assert system["role"] == "system" and system["content"].endswith(PERSONALITIES["pirate"])
    stored = (await db.get_session(agent.session_id))["system_prompt"]
    assert PERSONALITIES["pirate"] not in stored and system["content"].startswith(stored)  # the cached prefix stays
    assert "● pirate" in (await run_command(agent, "/personality")).output
    await run_command(agent, "/personality none")
    server.enqueue(Reply(text="plain again"))
    await agent.run_conversation("and again")
    assert server.last_body["messages"][0]["content"] == stored
    refused = await run_command(agent, "/personality grumpy")
    assert refused.error and "Unknown personality 'grumpy'" in refused.output
    await agent.close()
    await db.close()


async def test_verbose_cycles_the_tool_progress_modes(tmp_path: Path) -> None:
    agent, db, log = await make_agent(tmp_path)
    seen = [(await run_command(agent, "/verbose")).output.split(" — ")[0] for _ in range(4)]
    assert seen == ["Tool progress: VERBOSE", "Tool progress: OFF", "Tool progress: NEW", "Tool progress: ALL"]
    assert [e.tool_progress for e in log.of(ev.DisplayChanged)] == ["verbose", "off", "new", "all"]
    assert (await run_command(agent, "/verbose loud")).error
    await agent.close()
    await db.close()


async def test_version_config_and_debug_say_where_things_come_from_without_secrets(tmp_path: Path) -> None:
    home = Home(tmp_path / "home").ensure()
    home.config_file.write_text(
        f'[model]\nmax_tokens = 2048\napi_key = "{SECRET}"\n[compression]\nthreshold = 0.6\n', encoding="utf-8"
    )
    settings = load_settings(home, {"model": {"context_length": 200_000}}, env={"HERMES_TUI_MODEL": "demo"})
    agent, db, _ = await make_agent(tmp_path, settings=settings)

    version = (await run_command(agent, "/version")).output
    assert version.startswith(f"hermes-tui {__version__}\nPython {platform.python_version()}") and "textual " in version

    config = (await run_command(agent, "/config")).output
    lines = {line.split("=")[0].strip(): line for line in config.splitlines()[1:]}
    assert lines["model.max_tokens"].endswith(f"← {home.config_file}") and "= 2048" in lines["model.max_tokens"]
    assert lines["model.name"].endswith("← environment variable HERMES_TUI_MODEL")
    assert lines["model.context_length"].endswith("← --context-length")
    assert lines["compression.protect_first_n"].endswith("← default")
    assert "= (set)" in lines["model.api_key"] and "= (not set)" in lines["auxiliary.compression.api_key"]
    only = (await run_command(agent, "/config compression.")).output.splitlines()[1:]
    assert only and all(line.strip().startswith("compression.") for line in only)
    assert (await run_command(agent, "/config nothing.like.it")).error

    debug = (await run_command(agent, "/debug")).output
    assert "nothing is uploaded" in debug and str(home.state_db) in debug and "provider demo" in debug
    assert "window 200,000 tokens" in debug and re.search(r"model\.max_tokens +\= 2048 ", debug)
    assert "compression.protect_first_n" not in debug  # only the settings not at their defaults
    for text in (version, config, debug):
        assert SECRET not in text and SECRET[-8:] not in text
    await agent.close()
    await db.close()


async def test_reload_skills_reports_what_changed_since_the_prompt(tmp_path: Path) -> None:
    skills = tmp_path / "home" / "skills"

    def skill(name: str, about: str) -> None:
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {about}\n---\nSteps.\n", "utf-8")

    skill("deploy", "Ship the app")
    agent, db, _ = await make_agent(tmp_path)
    before = (await run_command(agent, "/reload-skills")).output
    assert "1 in" in before and "built with its first message" in before
    await agent.run_conversation("hello")
    skill("triage", "Sort incoming bugs")
    (skills / "deploy" / "SKILL.md").unlink()
    (skills / "deploy").rmdir()
    after = (await run_command(agent, "/reload-skills")).output
    assert "  + triage: Sort incoming bugs" in after and "  - deploy" in after
    assert "follows at the next session or compression" in after
    assert "triage" not in (agent.session.system_prompt or "")  # the cached prompt is kept as it is
    await agent.new_session()
    await agent.run_conversation("fresh")
    assert "triage" in (agent.session.system_prompt or "")
    await agent.close()
    await db.close()
