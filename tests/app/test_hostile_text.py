"""Hostile text in the real app: escape sequences are shown, never obeyed; invalid text never breaks a turn.

The real HermesApp, a real state.db and the real OpenAI SDK against the loopback fake server.
What reaches the terminal is read from the composed screen (every text segment the widgets
render, as `screen_text` exports them): it must hold no raw ESC, BEL, C1 or bidi control —
while the escapes themselves are on screen as literal text, so nothing is silently dropped.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from textual.widgets import Collapsible

from hermes_tui.app import HermesApp
from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.widgets.review_log import ReviewLog
from hermes_tui.widgets.transcript import KIND_ASSISTANT, KIND_TOOL
from tests.app.test_app import db_rows, make_app, submit, wait_turn
from tests.fake_llm import Fail, FakeLLMServer, Reply
from tests.hostile_text import HOSTILE, SHOWN_CLIPBOARD, SHOWN_TITLE, live_characters
from tests.tui.helpers import screen_text, wait_until
from tests.waits import HANG_GUARD_S

SIZE = (220, 80)  # tall and wide: the whole transcript and the side panel fit on one screen


def openai(srv: FakeLLMServer) -> ProviderChoice:
    return ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False)


async def expand_everything(pilot, app: HermesApp) -> None:
    """Open every tool card and reasoning block, as a user reading the whole turn would."""
    for item in app.main.conversation.items:
        if item.kind == KIND_TOOL:
            card = app.main.conversation.tool_card(item.call_id)
            assert card is not None
            card.focus()
            await pilot.press("enter")
            await wait_until(pilot, lambda card=card: card.expanded, 5, "the card to expand")
    for collapsible in app.main.conversation.query(Collapsible):
        collapsible.collapsed = False
    await pilot.press("escape")  # back to the prompt
    await wait_until(pilot, lambda: app.focused is app.main.prompt, 5, "the prompt to have focus")


def assert_inert_but_shown(text: str) -> None:
    assert live_characters(text) == [], f"raw terminal controls reached the screen: {live_characters(text)}"
    assert SHOWN_CLIPBOARD in text, "the clipboard write is shown as text, not obeyed"


async def test_escape_sequences_from_the_model_tools_and_errors_never_reach_the_screen(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(
            Fail(500, f"overloaded {HOSTILE}"),  # the retry goes to the review log
            Reply(
                reasoning=f"plan {HOSTILE}",
                text=f"Reading {HOSTILE}",
                tool_calls=[("c1", "read_file", json.dumps({"path": "evil.txt"}))],
            ),
            Reply(text=f"Done {HOSTILE} end"),
        )
        app = make_app(tmp_path, openai(srv))
        (tmp_path / "project" / "evil.txt").write_text(f"line one {HOSTILE}\nline two\n", encoding="utf-8")
        async with app.run_test(size=SIZE) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "read evil.txt")
            await wait_turn(pilot, app, timeout=20)
            await expand_everything(pilot, app)
            text = screen_text(app)
            assert_inert_but_shown(text)
            assert "Done " in text and "line one" in text and "plan " in text
            review = app.main.query_one(ReviewLog)
            assert any("overloaded" in entry.text for entry in review.entries)
            assert all(live_characters(entry.text) == [] for entry in review.entries)

        session_id = db_rows(app, "select id from sessions")[0][0]
        stored = db_rows(app, "select content from messages where role='assistant' order by id")
        assert stored[-1][0] == f"Done {HOSTILE} end", "the data is kept exactly; only its display is inert"

    # A title another program wrote into state.db, escape sequences and all.
    con = sqlite3.connect(app.home.state_db)
    with con:
        con.execute("update sessions set title = ? where id = ?", (f"{HOSTILE} title", session_id))
    con.close()

    # --resume: the history and the title show inert too, and the conversation goes on.
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(text="resumed fine"))
        home = Home(tmp_path / "home").ensure()
        resumed = HermesApp(
            home=home, settings=Settings(), choice=openai(srv), resume=session_id, cwd=tmp_path / "project"
        )
        async with resumed.run_test(size=SIZE) as pilot:
            await asyncio.wait_for(resumed.ready.wait(), HANG_GUARD_S)
            await wait_until(pilot, lambda: len(resumed.main.conversation.items) >= 4, 5, "the history")
            await expand_everything(pilot, resumed)
            text = screen_text(resumed)
            assert_inert_but_shown(text)
            assert text.count(SHOWN_TITLE[:14]) >= 2, "the status bar and the lineage tree show the title"
            await submit(pilot, resumed, "and now?")
            await wait_turn(pilot, resumed)
            answers = [i.text for i in resumed.main.conversation.items if i.kind == KIND_ASSISTANT]
            assert answers[-1] == "resumed fine"


async def test_lone_surrogates_from_the_model_leave_the_app_working_for_the_next_turn(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(
            Reply(text="odd \ud800 text", tool_calls=[("c1", "read_file", '{"path": "README\ud800.md"}')]),
            Reply(text="still \udfff here"),
            Reply(text="second turn works"),
        )
        app = make_app(tmp_path, openai(srv))
        async with app.run_test(size=SIZE) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "first")
            await wait_turn(pilot, app)
            answers = [i.text for i in app.main.conversation.items if i.kind == KIND_ASSISTANT]
            assert answers == ["odd \ufffd text", "still \ufffd here"]
            await submit(pilot, app, "second")
            await wait_turn(pilot, app)
            answers = [i.text for i in app.main.conversation.items if i.kind == KIND_ASSISTANT]
            assert answers[-1] == "second turn works"
            assert live_characters(screen_text(app)) == []
        users = [row[0] for row in db_rows(app, "select content from messages where role='user' order by id")]
        assert users == ["first", "second"]
        calls = db_rows(app, "select tool_calls from messages where tool_calls is not null")
        assert json.loads(json.loads(calls[0][0])[0]["function"]["arguments"]) == {"path": "README\ufffd.md"}
