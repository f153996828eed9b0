"""TurnControl without a Pilot: what runs is read from the worker groups, and the busy rule refuses
with its one notice, keeping the text. The app around it is a plain object offering `TurnHost`;
workers are plain records of a group and a state, as Textual's WorkerManager lists them."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from textual.worker import WorkerState

from hermes_tui.core.emitter import Emitter
from hermes_tui.core.turn.steering import SteeringInbox
from hermes_tui.ui.sessions_tree import SessionsTree
from hermes_tui.ui.turn_control import BUSY, TurnControl
from tests.waits import HANG_GUARD_S


class FakeWorker:
    def __init__(self, group: str, state: WorkerState = WorkerState.RUNNING) -> None:
        self.group = group
        self.state = state
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeApp:
    def __init__(self, *workers: FakeWorker) -> None:
        self.workers = list(workers)
        self.notices: list[tuple[str, str]] = []
        self.started: list[str] = []
        self.prompt_text: list[str] = []
        self.status = SimpleNamespace(state="idle")
        prompt = SimpleNamespace(set_text=self.prompt_text.append)
        self.main = SimpleNamespace(prompt=prompt, status_bar=self.status)
        self.agent: Any = SimpleNamespace(session_id="s1")
        self.db = None
        self.ready = asyncio.Event()
        self.ready.set()  # the agent is open (and its session resumed)
        self.screen_stack = ["the main screen"]

    def notify(self, message: str, *, severity: str = "information", **options: Any) -> None:
        self.notices.append((severity, message))

    def run_worker(self, work: Any, name: str | None = "", group: str = "default", **options: Any) -> Any:
        if asyncio.iscoroutine(work):
            work.close()  # never run: the test looks at what was started
        self.started.append(group)
        return FakeWorker(group)

    def push_screen(self, screen: Any, callback: Any = None) -> None: ...
    def call_later(self, callback: Any, *args: Any, **kwargs: Any) -> bool:
        return True


async def _quit() -> None: ...


def control(app: FakeApp) -> TurnControl:
    return TurnControl(app, SessionsTree(app), open_intent=lambda intent: None, quit=_quit)


def test_a_turn_or_command_worker_that_runs_makes_the_app_busy() -> None:
    turn, command = FakeWorker("turn"), FakeWorker("command", WorkerState.PENDING)
    turns = control(FakeApp(turn, command, FakeWorker("busy-command"), FakeWorker("refresh")))
    assert turns.turn_running and turns.command_running and turns.busy
    turn.state = WorkerState.SUCCESS
    command.state = WorkerState.CANCELLED
    assert not turns.turn_running and not turns.command_running and not turns.busy
    assert not control(FakeApp(FakeWorker("busy-command"), FakeWorker("history"))).busy


async def test_a_command_sent_while_busy_is_refused_with_the_one_notice_and_kept_in_the_prompt() -> None:
    app = FakeApp(FakeWorker("command"))
    turns = control(app)
    await turns.submit("  /compress  ")
    assert app.notices == [("warning", BUSY)]
    assert app.prompt_text == ["/compress"]
    assert app.started == []
    await turns.submit("/status")  # a while-busy command runs at once, beside the command
    assert app.started == ["busy-command"]
    assert turns.refuse_if_busy() and app.notices == [("warning", BUSY)] * 2


async def test_text_sent_while_busy_follows_busy_input_mode() -> None:
    app = FakeApp(FakeWorker("turn"))
    app.agent = SimpleNamespace(session_id="s1", steering=SteeringInbox(Emitter(lambda event: None)))
    turns = TurnControl(app, SessionsTree(app), open_intent=lambda i: None, quit=_quit, busy_input_mode="steer")
    await turns.submit("mind the tests")
    assert app.agent.steering.pending_steers == ("mind the tests",) and app.agent.steering.queued == ()
    await turns.submit("then the docs", other_mode=True)  # Alt+Enter: the other of steer and queue
    assert app.agent.steering.queued == ("then the docs",)
    assert app.prompt_text == [] and app.started == []


async def test_text_sent_while_idle_starts_a_turn() -> None:
    app = FakeApp()
    app.main.conversation = SimpleNamespace(add_user=lambda text: None)
    turns = control(app)
    await turns.submit("hello")
    assert app.started == ["turn"] and turns.turn_runs == 1 and app.status.state == "thinking"
    assert app.notices == [] and not turns.refuse_if_busy()


def test_ctrl_c_interrupts_the_turn_before_a_command() -> None:
    turn, command = FakeWorker("turn"), FakeWorker("command")
    app = FakeApp(turn, command)
    turns = control(app)
    assert turns.interrupt()
    assert turn.cancelled and not command.cancelled and app.status.state == "interrupting"
    assert not control(FakeApp(FakeWorker("turn", WorkerState.SUCCESS))).interrupt()


async def test_a_prompt_sent_while_the_session_still_resumes_waits_for_it() -> None:
    """--resume: the agent exists before its session is resumed. A prompt sent in between waited for
    nothing, and its user row went to the fresh session while the answer went to the resumed one."""
    app = FakeApp()
    app.ready.clear()
    app.main.conversation = SimpleNamespace(add_user=lambda text: None)
    turns = control(app)
    sent = asyncio.ensure_future(turns.submit("go on please"))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not sent.done() and app.started == []
    app.ready.set()
    await sent
    assert app.started == ["turn"]


async def test_a_turn_runs_only_once_the_first_answer_modules_are_imported() -> None:
    # The answer's row imports the Markdown stack on the loop; while the warm-up's thread imported it,
    # the loop waited for that thread's import lock. The turn's worker waits instead.
    order: list[str] = []
    gate = asyncio.Event()

    async def answer_modules_ready() -> None:
        order.append("waiting")
        await gate.wait()

    async def run_conversation(text: str) -> Any:
        order.append(f"turn: {text}")
        return SimpleNamespace(interrupted=False)

    async def next_turn(result: Any) -> None:
        return None

    app = FakeApp()
    app.agent = SimpleNamespace(session_id="s1", run_conversation=run_conversation, next_turn=next_turn)
    turns = TurnControl(
        app, SessionsTree(app), open_intent=lambda i: None, quit=_quit, answer_modules_ready=answer_modules_ready
    )
    task = asyncio.ensure_future(turns._run_turns("hello"))
    for _ in range(100):  # loop passes, not time: the worker runs up to its wait
        if order:
            break
        await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert order == ["waiting"] and not task.done()
    gate.set()
    await asyncio.wait_for(task, HANG_GUARD_S)
    assert order == ["waiting", "turn: hello"]
