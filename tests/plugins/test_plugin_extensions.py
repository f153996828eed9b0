"""Plugins adding tools and slash commands through the `hermes_tui.tools` / `hermes_tui.commands` entry points.

The plugin is a real installed distribution as importlib.metadata sees one (a module and a
`*.dist-info` with `entry_points.txt` on sys.path), enabled by name in `[plugins] enabled`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.core import events as ev
from hermes_tui.core.bootstrap import open_agent
from hermes_tui.core.commands import all_commands, help_text, run_command
from hermes_tui.slash_commands import completion_candidates
from tests.core.helpers import DEMO, EventLog, background_work, openai_choice
from tests.fake_llm import FakeLLMServer, Reply
from tests.plugins.site import install
from tests.test_cli import run_cli
from tests.waits import HANG_GUARD_S


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    site = install(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    yield site
    for module in ("demo_ext", "broken_ext"):
        sys.modules.pop(module, None)


def enabled(*names: str) -> Settings:
    settings = Settings()
    return dataclasses.replace(settings, plugins=dataclasses.replace(settings.plugins, enabled=list(names)))


async def start_agent(tmp_path: Path, settings: Settings, choice: ProviderChoice = DEMO) -> tuple:
    """The agent as both front-ends open it (`open_agent`), on a fresh home."""
    log = EventLog()
    agent, db = await open_agent(
        home=Home(tmp_path / "home").ensure(),
        settings=background_work(settings, auto_title=False, review=False),
        choice=choice,
        sink=log,
        approver=None,
        source="cli",
        cwd=tmp_path,
    )
    return agent, db, log


def warnings(log: list) -> list[str]:
    return [event.text for event in log if isinstance(event, ev.Warning)]


async def test_an_enabled_plugin_adds_a_tool_the_model_calls_and_a_command(tmp_path: Path, plugin_site: Path) -> None:
    with FakeLLMServer() as srv:
        agent, db, _log = await start_agent(tmp_path, enabled("demo"), openai_choice(srv.base_url_openai))
        try:
            srv.enqueue(Reply(tool_calls=[("c1", "shout", json.dumps({"text": "hello"}))]), Reply(text="Shouted."))
            await agent.run_conversation("shout hello")
            assert "shout" in [tool["function"]["name"] for tool in srv.requests[0].body["tools"]]
            tool_results = [m["content"] for m in srv.requests[1].body["messages"] if m["role"] == "tool"]
            assert tool_results == ["HELLO!"]
            listing = (await run_command(agent, "/tools")).output
            assert "plugin:demo\n  on   shout" in listing
            assert (await run_command(agent, "/greet Ann")).output == "Hello, Ann!"
            assert "/greet" in completion_candidates()
            assert "/greet [name]" in help_text() and "Commands of plugin:demo:" in help_text()
        finally:
            await agent.close()
            await db.close()
    assert "greet" not in {command.name for command in all_commands()}, "the agent's close takes its commands away"


async def test_what_fails_in_a_plugin_is_one_line_and_the_rest_loads(tmp_path: Path, plugin_site: Path) -> None:
    agent, db, log = await start_agent(tmp_path, enabled("demo", "broken"))
    try:
        lines = warnings(log)
        assert "plugin 'broken' failed to load its tools: ImportError: needs numpy 9" in lines
        assert "plugin 'demo': left out str, which is not a Tool" in lines
        assert "plugin:demo: tool 'read_file' left out: the name belongs to a built-in tool" in lines
        assert "plugin:demo: /help left out: the name belongs to a built-in command" in lines
        assert len(lines) == 4 and all("\n" not in line and "Traceback" not in line for line in lines)
        assert agent.registry.get("read_file").source == "built-in"  # the built-in kept its name
        failed = await run_command(agent, "/boom")
        assert failed.error and failed.output == "/boom failed: RuntimeError: kaboom"
        assert (await run_command(agent, "/greet")).output == "Hello, you!"
    finally:
        await agent.close()
        await db.close()


async def test_an_installed_plugin_that_is_not_enabled_adds_nothing(tmp_path: Path, plugin_site: Path) -> None:
    agent, db, log = await start_agent(tmp_path, enabled())
    try:
        assert "shout" not in agent.registry and "greet" not in {c.name for c in all_commands()}
        assert (await run_command(agent, "/greet")).error
        assert warnings(log) == []
    finally:
        await agent.close()
        await db.close()


async def test_the_tui_completes_helps_and_offers_a_plugin_command(tmp_path: Path, plugin_site: Path) -> None:
    from hermes_tui.screens.help import HelpScreen
    from tests.app.test_advertised_commands import PaletteSearches, palette_hits
    from tests.app.test_app import make_app
    from tests.tui.helpers import wait_until, widget_text

    app = make_app(tmp_path, settings=enabled("demo"))
    searches = PaletteSearches()
    async with app.run_test(size=(120, 240), message_hook=searches) as pilot:  # tall enough for the whole help
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        assert "/greet" in app.main.prompt.slash_suggester.candidates
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "the help screen")
        await pilot.pause()
        assert "say hello from the demo plugin" in widget_text(app, app.screen.query_one("#help-commands"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), 5, "the help screen to close")
        hits = await palette_hits(pilot, app, searches, "greet")
        assert any(hit.startswith("/greet") for hit in hits)
        app.main.prompt.value = "/greet Pilot"
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: any("Hello, Pilot!" in item.text for item in app.main.conversation.items), 10, "the answer"
        )


def test_a_headless_run_runs_a_plugin_command(tmp_path: Path, plugin_site: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[plugins]\nenabled = ["demo", "broken"]\n', encoding="utf-8")
    result = run_cli("--home", str(home), "run", "/greet Bob", cwd=tmp_path, env={"PYTHONPATH": str(plugin_site)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Hello, Bob!"
    assert "plugin 'broken' failed to load its tools: ImportError: needs numpy 9" in result.stderr
    assert "Traceback" not in result.stderr
