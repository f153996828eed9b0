"""The footer is honest: every key it shows on the main screen does what its label says (Pilot, real app)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.command import CommandPalette
from textual.widgets._footer import FooterKey

from hermes_tui.app import HermesApp
from hermes_tui.screens.help import HelpScreen
from hermes_tui.screens.main import MainScreen
from tests.app.test_app import make_app, wait_exit
from tests.tui.helpers import screen_text, wait_until
from tests.waits import HANG_GUARD_S


async def interrupts_or_quits(pilot, app: HermesApp, key: str) -> None:
    app.main.prompt.value = "a draft"
    await pilot.press(key)
    assert app.main.prompt.value == "" and app.is_running  # text in the prompt: cleared
    await pilot.press(key)
    await wait_until(pilot, lambda: "Press Ctrl-C again" in screen_text(app), 5, "the quit warning")
    assert app.is_running  # idle: the first press only warns
    await pilot.press(key)
    await wait_exit(app)  # the second quits
    assert app.return_code == 0


async def toggles_the_side_panel(pilot, app: HermesApp, key: str) -> None:
    assert app.main.side_panel_visible
    await pilot.press(key)
    await wait_until(pilot, lambda: not app.main.side_panel_visible, 5, "the side panel to hide")
    assert "─ Sessions " not in screen_text(app)  # the pane's title (the first screen's hint names it too)
    await pilot.press(key)
    await wait_until(pilot, lambda: app.main.side_panel_visible, 5, "the side panel to come back")


async def opens_the_help(pilot, app: HermesApp, key: str) -> None:
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "the help screen")


async def quits(pilot, app: HermesApp, key: str) -> None:
    await pilot.press(key)
    await wait_exit(app)
    assert app.return_code == 0


async def opens_the_command_palette(pilot, app: HermesApp, key: str) -> None:
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), 5, "the command palette")


async def opens_the_search(pilot, app: HermesApp, key: str) -> None:
    from hermes_tui.screens.search import SearchScreen

    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen), 5, "the search screen")
    assert app.screen.focused is app.screen.query_one("#search-input")  # typing searches at once


async def asks_what_to_compare_with(pilot, app: HermesApp, key: str) -> None:
    from hermes_tui.screens.session_picker import SessionPickerScreen

    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), 5, "the session picker")


async def turns_on_the_message_cursor(pilot, app: HermesApp, key: str) -> None:
    app.main.conversation.add_user("a message to pick")
    await pilot.press(key)
    convo = app.main.conversation
    await wait_until(pilot, lambda: app.focused is convo and convo.cursor.active, 5, "the message cursor")
    assert convo.query(".-cursor").first().item.text == "a message to pick"
    assert "Branch here" in screen_text(app).splitlines()[-1]  # the footer now lists the message's actions


EFFECTS: dict[str, Callable[..., Awaitable[None]]] = {
    "Interrupt/Quit": interrupts_or_quits,
    "Side panel": toggles_the_side_panel,
    "Help": opens_the_help,
    "Quit": quits,
    "Command palette": opens_the_command_palette,
    "Search": opens_the_search,
    "Compare": asks_what_to_compare_with,
    "Messages": turns_on_the_message_cursor,
}


async def footer_keys(tmp_path: Path) -> list[tuple[str, str]]:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await wait_until(pilot, lambda: len(app.main.query(FooterKey)) >= len(EFFECTS), 5, "the footer")
        shown = [(key.key, key.description) for key in app.main.query(FooterKey)]
        await pilot.press("ctrl+q")
        await wait_exit(app)
    return shown


async def test_every_key_the_footer_shows_does_what_it_says(tmp_path: Path) -> None:
    shown = await footer_keys(tmp_path / "footer")
    descriptions = [description for _key, description in shown]
    assert sorted(descriptions) == sorted(EFFECTS)  # a new footer key needs its effect checked here
    for index, (key, description) in enumerate(shown):
        app = make_app(tmp_path / f"press-{index}")
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            assert isinstance(app.screen, MainScreen)
            await EFFECTS[description](pilot, app, key)
