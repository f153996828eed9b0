"""EventPresenter without a Pilot: core events fed over a fake main screen made of plain recorders.

Each pane of the fake screen logs the calls made on it and the attributes set on it, in one shared
list, so a test reads what the user would see happen, in order: the conversation growing, the
status bar's state, a long history holding back the events after it until it is on screen. The
presenter and the Sessions tree part are the real ones; only the app around them is a plain object
offering what `PresenterHost` names (workers run as asyncio tasks).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_tui.core import events as ev
from hermes_tui.core.tools.file_diff import FileChange
from hermes_tui.ui.presenter import LONG_HISTORY, EventPresenter, handles
from hermes_tui.ui.sessions_tree import SessionsTree

Log = list[tuple[Any, ...]]
CHANGE = FileChange("app.py", 1, 1, "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-old\n+new\n")


class Pane:
    """Stands in for one widget: logs `(pane.method, *args)` for each call, `(pane.attr, value)` for each set."""

    def __init__(self, name: str, log: Log, returns: dict[str, Any] | None = None) -> None:
        self.__dict__.update(_name=name, _log=log, returns=returns or {})

    def __getattr__(self, method: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            self._log.append((f"{self._name}.{method}", *args, *sorted(kwargs.items())))
            return self.returns.get(method)

        return call

    def __setattr__(self, attr: str, value: Any) -> None:
        self._log.append((f"{self._name}.{attr}", value))


class FakeApp:
    """What the presenter sees of the app: the main view, the agent (none), workers, the screens on show."""

    PANES = ("conversation", "status_bar", "gauge", "review_log", "queue_line", "prompt", "lineage")

    def __init__(self) -> None:
        self.log: Log = []
        self.main = SimpleNamespace(**{name: Pane(name, self.log) for name in self.PANES})
        self.agent = None
        self.db = None
        self.screen_stack: list[Any] = ["the main screen"]
        self.workers: list[Any] = []
        self.tasks: list[asyncio.Task[Any]] = []

    def run_worker(self, work: Any, name: str | None = "", group: str = "default", **options: Any) -> Any:
        coroutine: Coroutine[Any, Any, Any] = work() if callable(work) else work
        self.tasks.append(asyncio.ensure_future(coroutine))
        return SimpleNamespace(group=group)

    def call_later(self, callback: Any, *args: Any, **kwargs: Any) -> bool:
        asyncio.get_running_loop().call_soon(callback, *args)
        return True

    def notify(self, message: str, **options: Any) -> None:
        self.log.append(("notify", message))

    def push_screen(self, screen: Any, callback: Any = None) -> None:
        self.log.append(("push_screen", screen))

    async def settle(self) -> None:
        """Wait for every worker started so far (and those they start)."""
        while not all(task.done() for task in self.tasks):
            await asyncio.wait_for(asyncio.gather(*self.tasks), 5)

    def shown(self, pane_method: str) -> list[tuple[Any, ...]]:
        return [entry for entry in self.log if entry[0] == pane_method]


def presenter_over(app: FakeApp, *, turn_running: bool = False, revealed: Log | None = None) -> EventPresenter:
    def reveal(messages: list[dict[str, Any]]) -> None:
        if revealed is not None:
            revealed.append((len(messages),))

    return EventPresenter(app, SessionsTree(app), turn_running=lambda: turn_running, reveal_pending=reveal)


def history(count: int) -> list[dict[str, Any]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"} for i in range(count)]


async def test_a_streamed_answer_reaches_the_conversation_and_the_status_bar() -> None:
    app = FakeApp()
    presenter = presenter_over(app)
    for event in (
        ev.AssistantStarted(api_call=1),
        ev.TextDelta("Hel"),
        ev.TextDelta("lo"),
        ev.ToolCallStarted("call-1", "terminal", '{"command": "ls"}'),
        ev.ToolCallFinished("call-1", "terminal", "README.md", False, 0.25, changes=(CHANGE,)),
        ev.AssistantFinished("Hello", 1, "tool_calls", interrupted=True),
    ):
        await presenter.receive(event)
    assert app.log == [
        ("conversation.begin_assistant",),
        ("status_bar.state", "streaming"),
        ("conversation.append_text", "Hel"),
        ("conversation.append_text", "lo"),
        ("conversation.add_tool_call", "call-1", "terminal", '{"command": "ls"}'),
        ("status_bar.state", "running terminal"),
        ("conversation.finish_tool_call", "call-1", "README.md", False, 0.25, (CHANGE,)),
        ("conversation.end_assistant", ("interrupted", True)),
    ]


async def test_events_after_a_long_history_wait_for_it_and_keep_their_order() -> None:
    app = FakeApp()
    revealed: Log = []
    presenter = presenter_over(app, revealed=revealed)
    converted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    app.main.conversation.returns["load_history"] = converted
    await presenter.receive(ev.HistoryReplaced("long-one", history(LONG_HISTORY)))
    await presenter.receive(ev.Warning("first after the history"))
    await presenter.receive(ev.QueueChanged(queued=("next question",)))
    assert presenter.holding
    assert app.shown("conversation.add_notice") == [] and app.shown("queue_line.show") == []
    assert revealed == []  # a search hit is revealed only once the history is on screen

    converted.set_result(None)
    await app.settle()
    assert not presenter.holding
    after = app.log[[entry[0] for entry in app.log].index("status_bar.set_session") :]
    assert after == [
        ("status_bar.set_session", "long-one", None, ""),
        ("conversation.add_notice", "warning", "first after the history"),
        ("queue_line.show", ("next question",), (), False),
    ]
    assert revealed == [(LONG_HISTORY,)]


async def test_a_second_long_history_holds_what_came_after_it_again() -> None:
    app = FakeApp()
    presenter = presenter_over(app)
    loop = asyncio.get_running_loop()
    first, second = loop.create_future(), loop.create_future()
    app.main.conversation.returns["load_history"] = first
    await presenter.receive(ev.HistoryReplaced("one", history(LONG_HISTORY)))
    await presenter.receive(ev.Warning("after one"))
    await presenter.receive(ev.HistoryReplaced("two", history(LONG_HISTORY + 1)))
    await presenter.receive(ev.Warning("after two"))
    app.main.conversation.returns["load_history"] = second

    first.set_result(None)
    await asyncio.wait_for(app.tasks[0], 5)  # the first history shown: what came after it, up to the second
    assert [entry[2] for entry in app.shown("conversation.add_notice")] == ["after one"]
    assert presenter.holding

    second.set_result(None)
    await app.settle()
    assert [entry[2] for entry in app.shown("conversation.add_notice")] == ["after one", "after two"]
    assert [entry[1] for entry in app.shown("status_bar.set_session")] == ["one", "two"]


async def test_nothing_is_shown_once_the_app_has_closed() -> None:
    app = FakeApp()
    presenter = presenter_over(app)
    converted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    app.main.conversation.returns["load_history"] = converted
    await presenter.receive(ev.HistoryReplaced("long-one", history(LONG_HISTORY)))
    await presenter.receive(ev.Warning("held"))
    presenter.close()  # the app begins closing while the history converts
    converted.set_result(None)
    await app.settle()
    assert app.shown("status_bar.set_session") == [] and app.shown("conversation.add_notice") == []
    assert not presenter.holding

    app.screen_stack = []  # closed: a turn's last events may still come
    await presenter.receive(ev.Warning("late"))
    await presenter.receive(ev.TitleChanged("long-one", "late title"))
    assert app.shown("conversation.add_notice") == [] and app.shown("status_bar.set_session") == []


@pytest.mark.parametrize(("turn_running", "states"), [(False, [("status_bar.state", "idle")]), (True, [])])
async def test_a_compression_outside_a_turn_sets_the_status_back_to_idle(
    turn_running: bool, states: list[tuple[str, str]]
) -> None:
    app = FakeApp()
    presenter = presenter_over(app, turn_running=turn_running)
    await presenter.receive(ev.CompressionFinished(before=40, after=6, dropped=34, fallback_used=True))
    assert app.shown("status_bar.state") == states
    notices = [entry[1:] for entry in app.shown("conversation.add_notice")]
    assert notices == [("compression", "Context compressed: 40 → 6 messages, ~0 → ~0 tokens — fallback summary")]


async def test_the_goal_badge_follows_the_goal() -> None:
    app = FakeApp()
    presenter = presenter_over(app)
    await presenter.receive(ev.GoalChanged("s1", "ship it", status="active", turns_used=3, max_turns=20))
    await presenter.receive(ev.GoalChanged("s1", "ship it", status="paused"))
    await presenter.receive(ev.GoalChanged("s1", None, status="cleared"))
    assert [value for _, value in app.shown("status_bar.goal")] == ["⚑ 3/20", "⚑ paused", ""]


async def test_an_event_class_gets_one_handler_only() -> None:
    with pytest.raises(ValueError, match="Warning already has a handler"):

        @handles(ev.Warning)
        async def again(presenter: EventPresenter, event: ev.Warning) -> None:  # pragma: no cover
            pass


async def test_the_permission_mode_badge_and_a_turns_files_line_follow_their_events() -> None:
    app = FakeApp()
    presenter = presenter_over(app)
    await presenter.receive(ev.PermissionModeChanged("read_only", "ask", "read-only (plan)"))
    other = FileChange("notes.md", 3, 0, "--- a/notes.md\n+++ b/notes.md\n@@ -0,0 +1,3 @@\n+a\n+b\n+c\n")
    await presenter.receive(ev.TurnFilesChanged("s1", (CHANGE, other, CHANGE)))
    assert app.shown("status_bar.set_permission_mode") == [
        ("status_bar.set_permission_mode", "read_only", "read-only (plan)")
    ]
    assert ("notify", "Permission mode: read-only (plan)") in app.log
    [(_, kind, line, detail)] = app.shown("review_log.add_entry")
    assert (kind, line) == ("files", "2 files: app.py +2 −2, notes.md +3 −0")
    assert "+new" in detail[1] and "+c" in detail[1]
