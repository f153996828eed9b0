"""The power-user flows in the real app (Pilot): commands while a turn runs, the queue, /compress asking first,
/clear, the goal badge, and a status bar that names the session as the Sessions tree does."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.screens.compress_preview import CompressPreviewScreen
from hermes_tui.widgets.transcript import KIND_NOTICE, KIND_USER
from tests.app.test_app import DEMO, db_rows, make_app, submit, wait_turn
from tests.fake_llm import FakeLLMServer, Hang, Reply
from tests.tui.helpers import wait_until, widget_text
from tests.waits import HANG_GUARD_S


def notices(app: HermesApp) -> list[str]:
    return [item.text for item in app.main.conversation.items if item.kind == KIND_NOTICE]


def user_items(app: HermesApp) -> list[str]:
    return [item.text for item in app.main.conversation.items if item.kind == KIND_USER]


async def send(pilot, app: HermesApp, text: str) -> None:
    app.main.prompt.value = text
    await pilot.press("enter")


async def test_steering_commands_run_while_a_turn_runs_and_the_queue_goes_out_after(tmp_path: Path) -> None:
    answer = threading.Event()  # the first answer stays unfinished until the test has done its steering
    with FakeLLMServer() as srv:
        first = Hang(seconds=HANG_GUARD_S, first_text="Working", reply=Reply(text=" on it."), release=answer)
        srv.enqueue(first, Reply(text="Second answer."))
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False))
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await submit(pilot, app, "first question")
            await wait_until(pilot, lambda: "Working" in app.main.conversation.streamed_text(), 10, "the first delta")

            await send(pilot, app, "/status")
            await wait_until(pilot, lambda: any("Turn: running" in n for n in notices(app)), 5, "/status at once")
            await send(pilot, app, "/queue second question")
            await wait_until(pilot, lambda: app.main.queue_line.display, 5, "the queue line")
            assert app.main.queue_line.text.startswith("⏵ queued 1: second question")
            assert "second question" in widget_text(app, app.main.queue_line)

            await send(pilot, app, "third, typed")  # plain text typed while busy joins the queue too
            await wait_until(pilot, lambda: len(app.agent.steering.queued) == 2, 5, "the typed text queued")
            assert app.main.prompt.value == "" and "third, typed" not in user_items(app)
            answer.set()

            await wait_until(pilot, lambda: "third, typed" in user_items(app), 15, "the queued messages to go")
            await wait_until(pilot, lambda: not app.turns.turn_running, 15, "the last turn to end")
            assert not app.main.queue_line.display
            stored = [r[0] for r in db_rows(app, "select content from messages where role='user' order by id")]
            assert stored == ["first question", "second question", "third, typed"]


async def test_compress_shows_the_preview_and_asks_before_rotating(tmp_path: Path) -> None:
    detail = " The step reads the config, checks the token, and writes the session." * 30
    with FakeLLMServer() as srv:
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False))
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            await send(pilot, app, "/compress")
            await wait_until(pilot, lambda: any(n.startswith("Nothing to compress") for n in notices(app)), 5, "no-op")
            assert not isinstance(app.screen, CompressPreviewScreen)

            for index in range(8):
                srv.enqueue(Reply(text=f"Answer {index}.{detail}"))
                await submit(pilot, app, f"question {index}")
                await wait_turn(pilot, app)
            session, requests = app.agent.session_id, len(srv.requests)

            await send(pilot, app, "/compress")
            await wait_until(pilot, lambda: isinstance(app.screen, CompressPreviewScreen), 5, "the preview")
            preview = app.screen.preview
            assert preview.summarised_count > 0 and preview.tokens_after < preview.tokens_before
            assert len(srv.requests) == requests  # the preview calls no model
            await pilot.press("n")
            await wait_until(pilot, lambda: any("Compression cancelled" in n for n in notices(app)), 5, "cancel")
            assert app.agent.session_id == session

            srv.enqueue(Reply(text="## Active Task\nUser asked: 'question 7'"))
            await send(pilot, app, "/compress")
            await wait_until(pilot, lambda: isinstance(app.screen, CompressPreviewScreen), 5, "the preview again")
            await pilot.press("y")
            await wait_until(pilot, lambda: app.agent.session_id != session, 10, f"the rotation: {notices(app)}")
            await wait_until(pilot, lambda: any(n.startswith("🗜️ Compressed") for n in notices(app)), 5, "the report")
            await wait_until(pilot, lambda: app.main.status_bar.state == "idle", 5, "the status back to idle")


async def test_the_status_bar_names_the_session_as_the_tree_does(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        bar = app.main.status_bar
        await submit(pilot, app, "hello there")
        await wait_turn(pilot, app)
        assert bar.session_label.startswith("hello there · ")  # untitled: the first message, as in the tree
        await app.sessions_tree.reload()
        await pilot.pause()
        assert "hello there" in widget_text(app, app.main.lineage)

        await send(pilot, app, "/title Gadget work")
        await wait_until(pilot, lambda: bar.session_title == "Gadget work", 5, "the title")
        parent = app.agent.session_id
        await send(pilot, app, "/branch")
        await wait_until(pilot, lambda: app.agent.session_id != parent, 5, "the branch")
        await wait_until(pilot, lambda: bar.session_title == app.agent.session.title == "Gadget work #2", 5, "title")
        await send(pilot, app, f"/resume {parent}")
        await wait_until(pilot, lambda: app.agent.session_id == parent and bar.session_title == "Gadget work", 5, "")

    # Started with --resume by title, or -c: the bar has the title from the first frame the session is live.
    for kwargs, title in (({"resume": parent}, "Gadget work"), ({"continue_title": "Gadget work"}, "Gadget work #2")):
        again = HermesApp(home=Home(tmp_path / "home"), settings=Settings(), choice=DEMO, cwd=app.cwd, **kwargs)
        async with again.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(again.ready.wait(), HANG_GUARD_S)
            assert again.agent.session.title == title  # -c TITLE: the newest session of that title
            assert again.main.status_bar.session_title == title
            assert f"{title} · " in widget_text(again, again.main.status_bar)


async def test_clear_empties_the_pane_and_keeps_the_session(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await submit(pilot, app, "hello")
        await wait_turn(pilot, app)
        session, count = app.agent.session_id, len(app.agent.messages)
        await send(pilot, app, "/clear")
        await wait_until(pilot, lambda: "hello" not in user_items(app), 5, "the pane to clear")
        assert app.agent.session_id == session and len(app.agent.messages) == count


async def test_a_goal_runs_and_its_badge_shows_in_the_status_bar(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
        await send(pilot, app, "/goal read README.md")
        await wait_until(pilot, lambda: app.main.status_bar.goal == "⚑ done", 15, "the goal to be judged done")
        assert "read README.md" in user_items(app)
        assert "⚑ done" in widget_text(app, app.main.status_bar)
