"""A stop that lands just as the answer has streamed in full still keeps the answer in state.db.

Ctrl-C, SIGTERM and SIGHUP cancel the turn; the front-end then closes the agent and the store. Two
moments after the stream ended used to lose what it brought: while the call's token counts were
stored (the answer was neither the call in flight nor in the history yet, so the saved row was
deleted as a stream not kept), and while the turn was finishing (the cancellation escaped before
the final flush, and the store was closed under it). The test is the front-end: it cancels its
turn task from the event sink at the exact event, then closes everything at once, as `run` does.
Real Agent built by `open_agent` (as both front-ends build it), real state.db, real SDK against
the loopback fake server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermes_tui.config import Home, Settings
from hermes_tui.core import events as ev
from hermes_tui.core.bootstrap import open_agent
from tests.core.helpers import background_work, openai_choice
from tests.crash.helpers import message_ids, stored
from tests.fake_llm import FakeLLMServer, Reply

ANSWER = "The whole answer, streamed to its last word."


class CancelAt:
    """An event sink that cancels the turn task at the first event `moment` picks."""

    def __init__(self, moment: Callable[[ev.Event], bool]) -> None:
        self.moment = moment
        self.task: asyncio.Task[object] | None = None
        self.fired = False

    def __call__(self, event: ev.Event) -> None:
        if not self.fired and self.task is not None and self.moment(event):
            self.fired = True
            self.task.cancel()


def stream_ended(event: ev.Event) -> bool:
    """The stream is over; the call's token counts are about to be stored."""
    return isinstance(event, ev.AssistantFinished) and not event.interrupted


def usage_stored(event: ev.Event) -> bool:
    """The call's token counts are stored (the gauge hears of them); the turn goes on to finish."""
    return isinstance(event, ev.UsageUpdated) and event.prompt_tokens > 0


async def stop_turn_at(tmp_path: Path, server: FakeLLMServer, moment: Callable[[ev.Event], bool]) -> tuple[Any, Path]:
    home = Home(tmp_path / "home").ensure()
    settings = background_work(Settings(), auto_title=False, review=False)
    sink = CancelAt(moment)
    agent, db = await open_agent(
        home=home,
        settings=settings,
        choice=openai_choice(server.base_url_openai),
        sink=sink,
        approver=None,
        source="cli",
    )
    server.enqueue(Reply(text=ANSWER, chunk_size=8))
    sink.task = asyncio.ensure_future(agent.run_conversation("answer me"))
    try:
        result = await asyncio.wait_for(sink.task, 20)
    finally:
        await agent.close("sigterm")
        await db.close()
    assert sink.fired, "the turn reached the moment"
    return result, home.root


async def test_a_stop_while_the_answers_usage_is_stored_keeps_the_whole_answer(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    result, home = await stop_turn_at(tmp_path, server, stream_ended)
    assert result.interrupted and result.final_response == ANSWER
    rows = stored(home)
    assert [(r["role"], r["content"], r["finish_reason"]) for r in rows] == [
        ("user", "answer me", None),
        ("assistant", ANSWER, "interrupted"),
    ]
    ids, given = message_ids(home)
    assert ids == list(range(1, given + 1)), "no saved row was deleted"


async def test_a_stop_while_the_turn_finishes_waits_for_the_final_flush(tmp_path: Path, server: FakeLLMServer) -> None:
    result, home = await stop_turn_at(tmp_path, server, usage_stored)
    assert result.completed and result.final_response == ANSWER  # the answer had come in full
    assert result.interrupted, "a stopped turn: no queued message or goal continuation follows it"
    rows = stored(home)
    assert [(r["role"], r["content"], r["finish_reason"]) for r in rows] == [
        ("user", "answer me", None),
        ("assistant", ANSWER, "stop"),
    ]
