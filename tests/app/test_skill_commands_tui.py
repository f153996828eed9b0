"""In the TUI, every installed skill is a slash command: completed, listed in F1 help and the palette, and run."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hermes_tui.config import Home, load_settings
from hermes_tui.screens.help import HelpScreen
from tests.app.test_advertised_commands import PaletteSearches, palette_hits
from tests.app.test_app import make_app
from tests.tui.helpers import wait_until, widget_text
from tests.waits import HANG_GUARD_S

SKILL = (
    "---\nname: git-bisect-helper\ndescription: Find the commit that broke a test.\n---\n"
    "# Git bisect helper\n\nRun `git bisect run`.\n"
)
INVOKED = '[IMPORTANT: The user has invoked the "git-bisect-helper" skill'


async def test_a_skill_is_completed_listed_and_run_as_a_command(tmp_path: Path) -> None:
    folder = tmp_path / "home" / "skills" / "devops" / "git-bisect-helper"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (tmp_path / "home" / "config.toml").write_text(
        '[quick_commands.standup]\ntype = "prompt"\nprompt = "Write my stand-up notes."\n', encoding="utf-8"
    )

    app = make_app(tmp_path, settings=load_settings(Home(tmp_path / "home"), env={}))
    searches = PaletteSearches()
    async with app.run_test(size=(150, 240), message_hook=searches) as pilot:  # tall enough for the whole help
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        prompt = app.main.prompt
        await pilot.press(*"/git-b")
        await wait_until(pilot, lambda: prompt.suggestion == "isect-helper", 5, "the skill's completion")
        prompt.value = ""

        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "the help screen")
        await pilot.pause()
        help_rows = widget_text(app, app.screen.query_one("#help-commands"))
        assert "/git-bisect-helper [instruction]" in help_rows and "(skill) Find the commit" in help_rows
        assert "/standup [args]" in help_rows
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), 5, "help to close")

        assert "/git-bisect-helper" in await palette_hits(pilot, app, searches, "bisect")

        await pilot.press(*"/git-bisect-helper the login test broke", "enter")
        await wait_until(pilot, lambda: len(app.agent.messages) >= 2, 10, "the skill's turn")
        await wait_until(pilot, lambda: not app.turns.turn_running, 10, "the turn to end")
        first = app.agent.messages[0]["content"]
        assert first.startswith(INVOKED) and first.endswith("alongside the skill invocation: the login test broke")
        notices = [item.text for item in app.main.conversation.items]
        assert any("Loading skill: git-bisect-helper" in text for text in notices)
