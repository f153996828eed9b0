"""/context in the real app (Pilot, a stored session, the fake LLM server for /compress): the screen lists
the categories and the heaviest messages; p pins one (📌 in the list and on its row in the conversation),
Enter scrolls the conversation to it, and the next /compress keeps it verbatim; F7 and the gauge open it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.core.context.pins import is_pinned
from hermes_tui.core.messages import content_text
from hermes_tui.screens.compress_preview import CompressPreviewScreen
from hermes_tui.screens.compression_inspector import CompressionInspectorScreen
from hermes_tui.screens.context import PIN_MARK, ContextScreen
from hermes_tui.store.db import SessionDB
from tests.app.test_app import submit
from tests.core.helpers import background_work
from tests.fake_llm import FakeLLMServer, Reply
from tests.tui.helpers import wait_until, widget_text
from tests.waits import HANG_GUARD_S

STORED = "20261201_101010_c0ffee"
HEAVY = ("WALRUS " + "a long pasted log line " * 200).strip()  # turn 3's user message, the heaviest


async def _home(tmp_path: Path) -> Home:
    home = Home(tmp_path / "home").ensure()
    db = await SessionDB.open(home.state_db)
    try:
        await db.create_session(STORED, "tui", model="gpt-4o-mini", title="Long talk")
        for turn in range(8):
            await db.append_message(STORED, "user", HEAVY if turn == 3 else f"Question {turn}")
            await db.append_message(STORED, "assistant", f"Answer {turn}: " + "detail " * 60)
    finally:
        await db.close()
    return home


def _app(tmp_path: Path, home: Home, srv: FakeLLMServer) -> HermesApp:
    settings = background_work(Settings(), auto_title=False, review=False)
    settings.compression.protect_last_n = 4
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    choice = ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False)
    return HermesApp(home=home, settings=settings, choice=choice, cwd=project, resume=STORED)


async def _open(pilot, app: HermesApp) -> ContextScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen), 10, "the context screen")
    screen = app.screen
    await wait_until(pilot, lambda: screen.report is not None and screen.table.row_count > 0, 10, "the report")
    return screen


async def test_context_lists_categories_and_messages_pins_jumps_and_compress_keeps_the_pin(tmp_path: Path) -> None:
    home = await _home(tmp_path)
    with FakeLLMServer() as srv:
        app = _app(tmp_path, home, srv)
        async with app.run_test(size=(140, 45)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await wait_until(pilot, lambda: len(app.agent.messages) == 16, 10, "the stored history")
            await submit(pilot, app, "/context")
            screen = await _open(pilot, app)
            categories = widget_text(app, screen.query_one("#context-categories"))
            assert "Conversation" in categories and "Free" in categories and "System prompt" in categories
            assert screen.rows[0].index == 6 and "WALRUS" in screen.rows[0].preview  # the heaviest first

            await pilot.press("p")  # pin it
            await wait_until(pilot, lambda: app.agent.pins.indices() == [6], 10, "the pin")
            await wait_until(pilot, lambda: screen.rows and screen.rows[0].pinned, 10, "the list to show the pin")
            assert PIN_MARK in str(screen.table.get_row_at(0)[-1])

            await pilot.press("enter")  # to the message in the conversation
            await wait_until(pilot, lambda: not isinstance(app.screen, ContextScreen), 10, "the screen to close")
            convo = app.main.conversation
            await wait_until(pilot, lambda: bool(convo.query(".-marked")), 10, "the message marked")
            marked = convo.query_one(".-marked")
            assert "WALRUS" in widget_text(app, marked) and marked.has_class("-pinned")
            assert marked.border_title == "📌 pinned"

            srv.enqueue(Reply(text="## Active Task\nKeep going\n## Goal\nShip it."))
            await submit(pilot, app, "/compress")
            await wait_until(pilot, lambda: isinstance(app.screen, CompressPreviewScreen), 10, "the preview")
            await pilot.press("y")
            await wait_until(
                pilot,
                lambda: any("Ship it." in content_text(m.get("content")) for m in app.agent.messages),
                15,
                "the compression",
            )
            kept = [m for m in app.agent.messages if content_text(m.get("content")) == HEAVY]
            assert len(kept) == 1 and is_pinned(kept[0])  # verbatim, still pinned
            assert all("Answer 2:" not in content_text(m.get("content")) for m in app.agent.messages)

            await pilot.press("f4")  # the inspector names the pinned message as kept verbatim
            await wait_until(pilot, lambda: isinstance(app.screen, CompressionInspectorScreen), 10, "the inspector")
            inspector = app.screen
            await wait_until(pilot, lambda: inspector.details is not None, 10, "the details")
            facts = widget_text(app, inspector.query_one("#inspector-facts"))
            assert "Kept verbatim (pinned): 1" in facts and "WALRUS" in facts


async def test_f7_and_the_gauge_open_the_context_screen(tmp_path: Path) -> None:
    home = await _home(tmp_path)
    with FakeLLMServer() as srv:
        app = _app(tmp_path, home, srv)
        async with app.run_test(size=(140, 45)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await pilot.press("f7")
            await _open(pilot, app)
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, ContextScreen), 10, "closed")
            await pilot.click("#gauge")
            await _open(pilot, app)
