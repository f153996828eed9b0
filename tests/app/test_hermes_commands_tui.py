"""Hermes's commands of issue 21 typed into the real app's prompt (Pilot, the fake LLM server): what each
one shows — /reasoning hide|show and the /verbose cycle applied to the conversation, /copy on the
clipboard with one notice, /background reporting to the Review log, /yolo's badge, and the text of
/tools, /config, /personality, /version, /debug and /reload-skills."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import ProviderChoice
from hermes_tui.widgets.tool_card import ToolCard
from hermes_tui.widgets.transcript import KIND_NOTICE
from tests.app.test_app import make_app, submit, wait_turn
from tests.fake_llm import FakeLLMServer, Reply
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S

ANSWER = "The gadget toggles."


def _notices(app: HermesApp) -> list[str]:
    return [item.text for item in app.main.conversation.items if item.kind == KIND_NOTICE]


async def _command(pilot, app: HermesApp, text: str) -> str:
    """Type `text` and wait for the notice it adds; returns that notice."""
    before = len(_notices(app))
    await submit(pilot, app, text)
    await wait_until(pilot, lambda: len(_notices(app)) > before, 10, f"the answer to {text}")
    await wait_until(pilot, lambda: not app.turns.busy, 10, f"{text} to end")
    return _notices(app)[-1]


def _cards(app: HermesApp) -> list[ToolCard]:
    return list(app.main.conversation.query(ToolCard))


async def test_each_command_shows_what_hermes_documents(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir(parents=True, exist_ok=True)
    (tmp_path / "project" / "a.txt").write_text("letter a\n")
    read = json.dumps({"path": "a.txt"})
    with FakeLLMServer() as srv:
        srv.enqueue(
            Reply(reasoning="Pondering the gadget.", tool_calls=[("c1", "read_file", read)]),
            Reply(tool_calls=[("c2", "read_file", read)]),
            Reply(text=ANSWER),
        )
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False))
        async with app.run_test(size=(140, 45), notifications=True) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "look at the gadget")
            await wait_turn(pilot, app)
            convo = app.main.conversation
            await wait_until(pilot, lambda: bool(convo.query(".reasoning")) and len(_cards(app)) == 2, 10, "the rows")
            reasoning = convo.query_one(".reasoning")
            assert reasoning.display

            assert "hidden" in await _command(pilot, app, "/reasoning hide")
            await wait_until(pilot, lambda: not reasoning.display, 5, "the reasoning hidden")
            assert "shown" in await _command(pilot, app, "/reasoning show")
            await wait_until(pilot, lambda: reasoning.display, 5, "the reasoning shown")

            assert "VERBOSE" in await _command(pilot, app, "/verbose")  # all → verbose: every card expanded
            await wait_until(pilot, lambda: all(card.expanded for card in _cards(app)), 5, "the cards expanded")
            assert "OFF" in await _command(pilot, app, "/verbose")
            await wait_until(pilot, lambda: not any(card.display for card in _cards(app)), 5, "the cards hidden")
            assert "NEW" in await _command(pilot, app, "/verbose")  # the repeated read_file is left out
            await wait_until(pilot, lambda: [card.display for card in _cards(app)] == [True, False], 5, "repeats")
            assert "ALL" in await _command(pilot, app, "/verbose")
            await wait_until(pilot, lambda: all(card.display for card in _cards(app)), 5, "every card")

            await submit(pilot, app, "/copy")
            await wait_until(pilot, lambda: app.clipboard == ANSWER, 10, "the answer on the clipboard")
            await wait_until(
                pilot, lambda: any(f"{len(ANSWER)} characters" in n.message for n in app._notifications), 5, "toast"
            )

            assert "read_file" in await _command(pilot, app, "/tools")
            assert "busy_input_mode" in await _command(pilot, app, "/config display")
            assert "Python" in await _command(pilot, app, "/version")
            assert "state.db" in await _command(pilot, app, "/debug")
            assert "skill" in (await _command(pilot, app, "/reload-skills")).lower()
            assert "personalit" in (await _command(pilot, app, "/personality")).lower()

            await _command(pilot, app, "/yolo")
            await wait_until(pilot, lambda: "YOLO" in app.main.status_bar.mode_badge, 5, "the YOLO badge")

            srv.enqueue(Reply(text="Background answer: all clear."))
            await _command(pilot, app, "/background check the logs")
            log = app.main.review_log
            await wait_until(pilot, lambda: any(e.kind == "background" for e in log.entries), 20, "the report")
            report = next(e for e in log.entries if e.kind == "background")
            assert "all clear" in report.text + report.detail
