"""Every slash command the UI advertises — prompt completion, F1 help, Ctrl-P palette — is one the core runs."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from textual.command import CommandList, CommandPalette
from textual.message import Message
from textual.worker import Worker, WorkerState

from hermes_tui.app import HermesApp
from hermes_tui.core.commands import run_command
from hermes_tui.screens.help import HelpScreen
from hermes_tui.widgets.transcript import KIND_NOTICE
from tests.app.test_app import make_app
from tests.core.helpers import make_agent
from tests.tui.helpers import wait_until, widget_text
from tests.waits import HANG_GUARD_S

COMMAND_TOKEN = re.compile(r"(?<![\w/])/[a-z][a-z-]*")


class PaletteSearches:
    """A message hook (`run_test(message_hook=...)`): the palette lines whose search finished.

    The palette asks every provider concurrently in one worker per line typed (a newer line cancels the
    older one); when that worker succeeds, every provider has answered and its hits are listed."""

    def __init__(self) -> None:
        self.finished: list[str] = []

    def __call__(self, message: Message) -> None:
        if (
            isinstance(message, Worker.StateChanged)
            and message.state is WorkerState.SUCCESS
            and isinstance(message.worker.node, CommandPalette)
            and message.worker.name == "_gather_commands"
        ):
            self.finished.append(message.worker.description)

    async def wait_for(self, pilot, line: str) -> None:
        gathered = f"_gather_commands({line!r})"  # Textual names the worker after its call
        await wait_until(pilot, lambda: gathered in self.finished, what=f"every provider's hits for {line!r}")


async def open_palette(pilot, app: HermesApp, searches: PaletteSearches) -> CommandList:
    searches.finished.clear()
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the command palette")
    return app.screen.query_one(CommandList)


async def search_palette(pilot, searches: PaletteSearches, query: str) -> None:
    """Type `query` into the open palette and wait until every provider answered it."""
    await pilot.press(*query)
    await searches.wait_for(pilot, query)


def hit_texts(command_list: CommandList) -> list[str]:
    return [str(option.hit.text) for option in command_list.options]


async def palette_hits(pilot, app: HermesApp, searches: PaletteSearches, query: str = "") -> list[str]:
    """The entries the real palette lists for `query` (every provider, ours and Textual's)."""
    command_list = await open_palette(pilot, app, searches)
    if query:
        await search_palette(pilot, searches, query)
    else:
        await searches.wait_for(pilot, "")  # the palette searches the empty line as it opens
    texts = hit_texts(command_list)
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(app.screen, CommandPalette), what="the palette to close")
    return texts


async def test_every_advertised_command_is_answered_by_the_core(tmp_path: Path) -> None:
    app = make_app(tmp_path / "ui")
    searches = PaletteSearches()
    async with app.run_test(size=(120, 60), message_hook=searches) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        completions = set(app.main.prompt.slash_suggester.candidates)

        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "the help screen")
        await pilot.pause()
        help_rows = widget_text(app, app.screen.query_one("#help-commands")).splitlines()
        help_names = {row.split()[0] for row in help_rows if row.startswith("/")}
        help_all = set(COMMAND_TOKEN.findall("\n".join(help_rows)))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), 5, "help to close")

        discovered = {text for text in await palette_hits(pilot, app, searches) if text.startswith("/")}
        searched = {text for text in await palette_hits(pilot, app, searches, "/") if text.startswith("/")}
        aliases_searched = {
            text
            for alias in sorted(help_all - help_names)
            for text in await palette_hits(pilot, app, searches, alias.removeprefix("/"))
            if text.startswith("/")
        }

    assert len(help_names) >= 12 and help_names <= help_all
    assert {"/reset", "/fork", "/exit"} <= help_all - help_names  # the aliases are shown in the help
    assert completions == help_all  # the prompt completes exactly what the help lists
    assert discovered == searched == help_names  # the palette lists every command once
    assert help_all - help_names <= aliases_searched  # and finds each alias
    advertised = completions | help_all | discovered | searched | aliases_searched
    assert {"/search", "/compare", "/inspect"} <= advertised  # the power-user commands are offered everywhere

    agent, db, _log = await make_agent(tmp_path / "core")
    try:
        for text in sorted(advertised):
            result = await run_command(agent, text)
            assert "Unknown command" not in result.output, (text, result.output)
    finally:
        await agent.close()
        await db.close()


async def test_choosing_a_command_in_the_palette_runs_it_like_typing_it(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    searches = PaletteSearches()
    async with app.run_test(size=(120, 40), message_hook=searches) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        hits = await palette_hits(pilot, app, searches)
        assert {"Theme", "Quit", "Keys"} <= set(hits)  # Textual's own entries stay alongside ours
        await open_palette(pilot, app, searches)
        await search_palette(pilot, searches, "usage")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: any(
                i.kind == KIND_NOTICE and i.text.startswith(f"Session {app.agent.session_id}")
                for i in app.main.conversation.items
            ),
            5,
            "the /usage report in the conversation",
        )
        assert app.main.prompt.history == ["/usage"]  # it went through the prompt, as if typed
        assert app.main.prompt.value == ""


async def test_a_command_that_takes_arguments_is_put_in_the_prompt_to_finish(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    searches = PaletteSearches()
    async with app.run_test(size=(120, 40), message_hook=searches) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        first_session = app.agent.session_id
        await open_palette(pilot, app, searches)
        await search_palette(pilot, searches, "title")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main.prompt.value == "/title ", 5, "the prompt prefilled with /title")
        await wait_until(pilot, lambda: app.focused is app.main.prompt, 5, "focus on the prompt")
        await pilot.press(*"Gadget notes")
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: app.main.status_bar.session_title == "Gadget notes", 5, "the title in the status bar"
        )
        assert app.agent.session_id == first_session
