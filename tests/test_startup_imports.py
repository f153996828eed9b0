"""The first frame loads only what it draws: screens, SDKs, the search stack and the rest come later.

A fresh Python builds the app to its first frame (headless, as bench/startup.py times it: the
moment HermesApp's first refresh is done and its start-up worker is about to run) and reports
which of the watched modules are loaded then; afterwards it opens the help screen (F1) and, once
the agent is ready, the search screen (Ctrl+F), and reports again — so the watch itself is shown
to see a module arrive.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.screens import registry
from tests.waits import HANG_GUARD_S

pytestmark = pytest.mark.subprocess

NOT_IN_FIRST_FRAME = (
    # the on-demand screens (hermes_tui/screens/registry.py opens them)
    "hermes_tui.screens.approval",
    "hermes_tui.screens.compare",
    "hermes_tui.screens.compress_preview",
    "hermes_tui.screens.compression_inspector",
    "hermes_tui.screens.context",
    "hermes_tui.screens.diff",
    "hermes_tui.screens.full_text",
    "hermes_tui.screens.help",
    "hermes_tui.screens.learning",
    "hermes_tui.screens.replay_picker",
    "hermes_tui.screens.review_diff",
    "hermes_tui.screens.rewind",
    "hermes_tui.screens.search",
    "hermes_tui.screens.session_picker",
    "hermes_tui.screens.tree_dialogs",
    # the provider SDKs and MCP
    "openai",
    "anthropic",
    "mcp",
    # the search stack
    "hermes_tui.store.search",
    "hermes_tui.store.search_plan",
    "hermes_tui.store.fts_query",
    "hermes_tui.store.search_lineages",
    "hermes_tui.core.search_query",
    # the store's connection, the agent and what it brings (opened in the start-up worker)
    "aiosqlite",
    "hermes_tui.store.db",
    "hermes_tui.core.agent",
    "hermes_tui.core.events",
    "hermes_tui.core.context",
    "hermes_tui.core.checkpoints",
    "hermes_tui.rewind",
    # Markdown: the first screen has no answer yet
    "markdown_it",
    "hermes_tui.widgets.answer_body",
    # the app's parts that only act on events and commands
    "hermes_tui.ui.presenter",
    "hermes_tui.ui.navigation",
    "hermes_tui.ui.tree_actions",
    "hermes_tui.ui.message_actions",
)

SNIPPET = r"""
import asyncio, json, sys
from hermes_tui.app import HermesApp
from hermes_tui.config import load_settings, resolve_home, resolve_provider

watched = json.loads(sys.argv[2])
guard = float(sys.argv[3])
home = resolve_home(sys.argv[1]).ensure()
settings = load_settings(home, {}, env={})
choice = resolve_provider(settings, env={})
report = {}

def loaded():
    return sorted(name for name in watched if name in sys.modules)

class WatchedApp(HermesApp):
    def _start(self):  # HermesApp schedules this right after the first refresh (the first frame)
        report["first_frame"] = loaded()
        super()._start()

async def until(pilot, condition):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + guard
    while not condition():
        assert loop.time() < deadline, "hang guard"
        await pilot.pause()

async def main():
    app = WatchedApp(home=home, settings=settings, choice=choice)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "first_frame" in report)
        await pilot.press("f1")
        await until(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        report["after_help"] = loaded()
        await pilot.press("escape")
        await until(pilot, lambda: type(app.screen).__name__ == "MainScreen")
        await asyncio.wait_for(app.ready.wait(), guard)
        await pilot.press("ctrl+f")
        await until(pilot, lambda: type(app.screen).__name__ == "SearchScreen")
        report["after_search"] = loaded()
    print(json.dumps(report))

asyncio.run(main())
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    home = tmp_path_factory.mktemp("startup-home")
    watched = sorted({*NOT_IN_FIRST_FRAME, *(registry.module_of(name) for name in registry.names())})
    env = {key: value for key, value in os.environ.items() if not key.startswith("HERMES_TUI_")}
    env.update(HERMES_TUI_DEMO_DELAY="0", HOME=str(home / "user"))
    done = subprocess.run(
        [sys.executable, "-c", SNIPPET, str(home / "hermes"), json.dumps(watched), str(HANG_GUARD_S)],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
        timeout=HANG_GUARD_S * 3,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_first_frame_loads_no_screen_sdk_search_stack_or_markdown(report: dict[str, list[str]]) -> None:
    assert report["first_frame"] == []


def test_every_on_demand_screen_is_watched() -> None:
    assert {registry.module_of(name) for name in registry.names()} <= set(NOT_IN_FIRST_FRAME)


def test_opening_help_loads_the_help_screen_and_only_what_it_needs(report: dict[str, list[str]]) -> None:
    assert "hermes_tui.screens.help" in report["after_help"]
    assert "hermes_tui.screens.search" not in report["after_help"]


def test_opening_search_loads_the_search_screen_and_its_stack(report: dict[str, list[str]]) -> None:
    assert {"hermes_tui.screens.search", "hermes_tui.core.search_query"} <= set(report["after_search"])
