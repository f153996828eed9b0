"""Typing while the agent works (the real app over the fake LLM server, Pilot): Enter queues the text
visibly and empties the prompt, the queue goes out in order after the turn, one turn each; the
queue line edits and removes; Alt+Enter steers; interrupt mode stops the turn and sends the text
next; toasts replace each other; Esc Esc interrupts a streaming turn as Ctrl-C does."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.config import ProviderChoice, Settings
from tests.app.test_app import db_rows, make_app, submit
from tests.fake_llm import FakeLLMServer, Hang, Reply
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S


def _app(tmp_path: Path, srv: FakeLLMServer, settings: Settings | None = None) -> HermesApp:
    return make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False), settings)


def _stored_users(app: HermesApp) -> list[str]:
    return [row[0] for row in db_rows(app, "select content from messages where role='user' order by id")]


async def _type(pilot, app: HermesApp, text: str, key: str = "enter") -> None:
    await pilot.press(*text)
    await pilot.press(key)


async def _first_turn_streaming(pilot, app: HermesApp) -> None:
    await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
    await submit(pilot, app, "first")
    await wait_until(pilot, lambda: "Working" in app.main.conversation.streamed_text(), 10, "the first delta")


async def test_two_messages_typed_during_a_turn_go_out_as_two_turns_in_order(tmp_path: Path) -> None:
    release = threading.Event()
    with FakeLLMServer() as srv:
        srv.enqueue(Hang(seconds=30, first_text="Working", release=release), Reply(text="Seven."), Reply(text="Eight."))
        app = _app(tmp_path, srv)
        async with app.run_test(size=(120, 40)) as pilot:
            await _first_turn_streaming(pilot, app)
            await _type(pilot, app, "turn 7")
            assert app.main.prompt.value == ""  # nothing is left behind to be glued onto the next text
            await _type(pilot, app, "turn 8")
            await wait_until(pilot, lambda: app.agent.steering.queued == ("turn 7", "turn 8"), 5, "both queued")
            await wait_until(pilot, lambda: "queued 2: turn 7" in app.main.queue_line.text, 5, "the queue line")
            await pilot.pause()
            assert len(app._notifications) == 1  # the second notice replaced the first
            release.set()
            await wait_until(pilot, lambda: len(_stored_users(app)) == 3, 15, "the queued turns")
            await wait_until(pilot, lambda: not app.turns.turn_running, 15, "the last turn to end")
            assert _stored_users(app) == ["first", "turn 7", "turn 8"]
            assert [r.body["messages"][-1]["content"] for r in srv.requests[1:]] == ["turn 7", "turn 8"]
            assert not app.main.queue_line.display


async def test_the_queue_line_edits_and_removes_queued_messages(tmp_path: Path) -> None:
    release = threading.Event()
    with FakeLLMServer() as srv:
        srv.enqueue(Hang(seconds=30, first_text="Working", release=release), Reply(text="Alpha done."))
        app = _app(tmp_path, srv)
        async with app.run_test(size=(120, 40)) as pilot:
            await _first_turn_streaming(pilot, app)
            for text in ("alpha", "beta", "gamma"):
                await _type(pilot, app, text)
            await wait_until(pilot, lambda: len(app.agent.steering.queued) == 3, 5, "three queued")
            await pilot.press("tab")
            line = app.main.queue_line
            assert app.focused is line
            assert "queued 1/3: alpha" in line.text
            await pilot.press("down", "delete")  # beta goes
            await wait_until(pilot, lambda: app.agent.steering.queued == ("alpha", "gamma"), 5, "beta removed")
            assert "queued 2/2: gamma" in line.text
            app.main.prompt.value = "a draft"
            await pilot.press("enter")  # a draft in the prompt is never overwritten
            await pilot.pause()
            assert app.agent.steering.queued == ("alpha", "gamma") and app.main.prompt.value == "a draft"
            app.main.prompt.value = ""
            await pilot.press("enter")  # gamma back into the prompt, to be edited
            await wait_until(pilot, lambda: app.agent.steering.queued == ("alpha",), 5, "gamma taken out")
            assert app.main.prompt.value == "gamma" and app.focused is app.main.prompt
            app.main.prompt.value = ""
            release.set()
            await wait_until(pilot, lambda: len(_stored_users(app)) == 2, 15, "the queued turn")
            await wait_until(pilot, lambda: not app.turns.turn_running, 15, "the last turn to end")
            assert _stored_users(app) == ["first", "alpha"]


async def test_alt_enter_steers_the_running_turn(tmp_path: Path) -> None:
    release = threading.Event()
    (tmp_path / "project").mkdir(parents=True, exist_ok=True)
    (tmp_path / "project" / "a.txt").write_text("letter a\n")
    with FakeLLMServer() as srv:
        call = Reply(tool_calls=[("c1", "read_file", json.dumps({"path": "a.txt"}))])
        srv.enqueue(Hang(seconds=30, first_text="Working", reply=call, release=release), Reply(text="Read it."))
        app = _app(tmp_path, srv)
        async with app.run_test(size=(120, 40)) as pilot:
            await _first_turn_streaming(pilot, app)
            await _type(pilot, app, "look at b too", key="alt+enter")
            await wait_until(pilot, lambda: app.agent.steering.pending_steers == ("look at b too",), 5, "the steer")
            assert app.agent.steering.queued == () and app.main.prompt.value == ""
            release.set()
            await srv.wait_for_requests(2, timeout=15)
            await wait_until(pilot, lambda: not app.turns.turn_running, 15, "the turn to end")
            tool_result = srv.requests[1].body["messages"][-1]
            assert tool_result["role"] == "tool" and "User guidance: look at b too" in tool_result["content"]
            assert _stored_users(app) == ["first"]


async def test_interrupt_mode_stops_the_turn_and_sends_the_text_next(tmp_path: Path) -> None:
    settings = Settings()
    settings.display.busy_input_mode = "interrupt"
    with FakeLLMServer() as srv:
        srv.enqueue(Hang(seconds=30, first_text="Working"), Reply(text="Instead, then."))
        app = _app(tmp_path, srv, settings)
        async with app.run_test(size=(120, 40)) as pilot:
            await _first_turn_streaming(pilot, app)
            await _type(pilot, app, "do this instead")
            await wait_until(pilot, lambda: len(_stored_users(app)) == 2, 15, "the next turn")
            await wait_until(pilot, lambda: not app.turns.turn_running, 15, "it to end")
            rows = db_rows(app, "select role, content, finish_reason from messages order by id")
            assert rows[:3] == [
                ("user", "first", None),
                ("assistant", "Working", "interrupted"),
                ("user", "do this instead", None),
            ]


async def test_esc_esc_interrupts_a_streaming_turn_and_keeps_the_partial_answer(tmp_path: Path) -> None:
    with FakeLLMServer() as srv:
        srv.enqueue(Hang(seconds=30, first_text="Working"))
        app = _app(tmp_path, srv)
        async with app.run_test(size=(120, 40)) as pilot:
            await _first_turn_streaming(pilot, app)
            await pilot.press("escape")
            assert app.turns.turn_running  # one Esc does not stop anything
            await pilot.press("escape")
            await wait_until(pilot, lambda: not app.turns.turn_running, 10, "the interrupt")
            stored = db_rows(app, "select content, finish_reason from messages where role='assistant'")
            assert stored == [("Working", "interrupted")]
            assert len(app.screen_stack) == 1  # no rewind picker
