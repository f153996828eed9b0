"""/context: the window by category (adding up to the gauge's estimate) and the heaviest messages."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.core.commands import OpenContext, run_command
from hermes_tui.core.context.tokens import estimate_tokens_rough
from hermes_tui.core.context_report import context_report, parse_ref, prompt_parts
from hermes_tui.headless import headless_command
from tests.core.helpers import make_agent

RULES = "Always run the linter before you commit. " * 40


def _furnish(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    skill = home / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: Ship the app\n---\nSteps.\n", encoding="utf-8")
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("The project uses uv.\n§\nTests run with make test.", "utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text(RULES, encoding="utf-8")
    (project / "big.txt").write_text("\n".join(f"line {n} of the big file" for n in range(400)), encoding="utf-8")
    return project


async def test_the_categories_add_up_to_what_the_gauge_estimates(tmp_path: Path) -> None:
    project = _furnish(tmp_path)
    agent, db, _ = await make_agent(tmp_path, cwd=project)
    await agent.run_conversation("read big.txt")
    report = await context_report(agent)
    tokens = {c.key: c.tokens for c in report.categories}
    assert {"system_prompt", "tool_schemas", "rules", "skills", "memory", "conversation", "free"} <= set(tokens)
    budget = agent.budget()
    assert report.estimated_tokens == budget.estimated_tokens  # the gauge's own counter
    assert sum(t for k, t in tokens.items() if k != "free") == budget.estimated_tokens
    assert tokens["free"] == budget.context_length - budget.shown_tokens
    parts = prompt_parts(agent.session.system_prompt or "")
    assert RULES.strip()[:60] in parts["rules"] and "deploy" not in parts["rules"]
    assert "- deploy: Ship the app" in parts["skills"] and "The project uses uv." in parts["memory"]
    assert tokens["rules"] == estimate_tokens_rough(parts["rules"]) >= len(RULES) // 4

    heaviest = report.heaviest[0]
    assert (heaviest.role, heaviest.tool_name, heaviest.ref) == ("tool", "read_file", "#1.2")
    assert heaviest.index == parse_ref("#1.2", agent.messages) and "line 0 of the big file" in heaviest.preview
    assert [w.tokens for w in report.heaviest] == sorted((w.tokens for w in report.heaviest), reverse=True)

    agent.set_personality("pirate")
    with_overlay = await context_report(agent)
    assert with_overlay.tokens_of("personality") > 0
    assert with_overlay.estimated_tokens == agent.budget().estimated_tokens
    await agent.close()
    await db.close()


async def test_context_is_an_intent_the_headless_run_prints(tmp_path: Path) -> None:
    project = _furnish(tmp_path)
    agent, db, _ = await make_agent(tmp_path, cwd=project)
    assert (await run_command(agent, "/context 3")).intent == OpenContext(3)
    fresh = (await headless_command(agent, "/context")).output
    assert "no message yet: the system prompt shown is the one the first message will build" in fresh
    assert (await db.list_sessions_rich()) == []  # looking made no session
    await agent.run_conversation("read big.txt")
    text = (await headless_command(agent, "/context 2")).output
    lines = text.splitlines()
    assert lines[0].startswith("Context: ~") and "of 128,000 tokens" in lines[0]
    assert any(line.strip().startswith("Rules (project context)") for line in lines)
    assert any(line.strip().startswith("Free") for line in lines)
    heavy = lines[lines.index(next(line for line in lines if line.startswith("Heaviest of 4 messages"))) + 1]
    assert heavy.split()[:3] == ["#1.2", "tool", "read_file"]
    assert (await run_command(agent, "/context many")).error
    await agent.close()
    await db.close()
