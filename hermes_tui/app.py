"""HermesApp: owns one Agent, runs turns in workers, turns core events into widget updates.

The first frame paints before anything heavy happens: the database opens and the provider SDK is
imported in a startup worker after mount. Each turn runs in an async worker in the exclusive
group "turn". Core events arrive through the Agent's sink as `CoreEvent` messages; a dispatch
table keyed by event class (`EVENT_HANDLERS`) hands each to the one method that updates the
conversation, lineage tree, token gauge, review log or status bar. Keystrokes go through the same
queue, so no handler waits there: a long history is converted in a thread while later events wait
in order (`_held_events`), and refreshes that read the database run in an ordered background
worker (`refresh_in_background`). While it runs the app paces full garbage collections
(`GcPacer`), draws at up to 240 frames a second and gives the interpreter back to the loop within
1 ms (see docs/PERFORMANCE.md for why each).

Commands: while a turn (or another command) runs, the commands the registry flags `while_busy`
(/steer, /queue, /stop, /status …) run at once in their own workers; anything else is refused
with a hint. A turn worker runs turn after turn: when one ends, `Agent.next_turn` gives the next
queued message, or the standing goal's continuation. `/compress` shows its preview in
`CompressPreviewScreen` and rotates only when confirmed.

Ctrl-C ladder: text in the input -> clear it; a turn running -> interrupt it (the partial answer
stays, marked interrupted, and is saved); idle -> a second Ctrl-C within 2 s quits. Ctrl-Q quits.
SIGINT, SIGTERM and SIGHUP stop the app the same way: the turn is interrupted and saved, the session
ends with the signal's reason, and the app exits 130 / 143 / 129 (`hermes_tui.stop_signals`). A
terminal that goes away (SIGHUP, a failed write) cannot keep the process alive: `terminal_watch`.
"""

from __future__ import annotations

import asyncio
import functools
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events
from textual.app import App
from textual.await_complete import AwaitComplete
from textual.binding import BindingType
from textual.driver import Driver
from textual.message import Message
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from hermes_tui import stop_signals, terminal_watch
from hermes_tui.app_navigation import NavigationMixin
from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.core import events as ev
from hermes_tui.gc_pacer import GcPacer
from hermes_tui.keymap import APP_BINDINGS
from hermes_tui.lineage_sync import LineageSync
from hermes_tui.message_actions import MessageActionsMixin
from hermes_tui.screens.approval import ApprovalScreen
from hermes_tui.screens.compress_preview import CompressPreviewScreen
from hermes_tui.screens.help import HelpScreen
from hermes_tui.screens.main import STYLES_PATH, MainScreen
from hermes_tui.tree_actions import TreeActionsMixin
from hermes_tui.widgets.lineage_tree import LineageTree
from hermes_tui.widgets.prompt_input import PromptInput
from hermes_tui.widgets.review_log import ReviewLog
from hermes_tui.widgets.textual_workarounds import quicker_frames, release_removed_widget_lines

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent
    from hermes_tui.core.commands import CommandResult
    from hermes_tui.core.tools.base import ApprovalRequest
    from hermes_tui.core.turn.result import TurnResult
    from hermes_tui.store.db import SessionDB

QUIT_WINDOW_S = 2.0
GC_TICK_S = 0.25
LOOP_SWITCH_INTERVAL_S = 0.001
"""How long a worker thread (the store's, `off_loop`'s, the SDK import) may keep the interpreter
once the event loop wants it back: CPython's default 5 ms let resuming a 20,000-message session
hold the loop 15-18 ms in stretches (`python -m bench.responsiveness_bench loop`); 1 ms, 5-8 ms."""
ECHO_SETTLE_S = 0.002  # after a key is drawn, before a due collection runs (see _collect_after_echo)
LONG_HISTORY = 1_000  # messages from which a loaded history is converted in a thread, off the app's queue
BUSY_HINT = "— /queue TEXT sends it when the turn ends, /steer TEXT guides it now, Ctrl-C interrupts."

EventT = TypeVar("EventT", bound=ev.Event)
Handler = Callable[["HermesApp", EventT], Awaitable[None]]
EVENT_HANDLERS: dict[type[ev.Event], Handler[Any]] = {}
"""Core event class -> the HermesApp method that shows it (filled by `@handles`)."""


def session_preview(messages: list[dict[str, Any]]) -> str:
    """The first user message that is not a compaction summary, as the Sessions tree previews it."""
    from hermes_tui.store.codec import preview_of
    from hermes_tui.store.models import is_summary_text

    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str) and not is_summary_text(content):
            return preview_of(content)
    return ""


def goal_badge(goal: str | None, status: str, turns_used: int, max_turns: int) -> str:
    """The status bar's goal label: "⚑ 3/20" while active, "⚑ paused", "⚑ done", "" without a goal."""
    if not goal or status == "cleared":
        return ""
    if status == "active":
        return f"⚑ {turns_used}/{max_turns}"
    return f"⚑ {status}"


def handles(event_type: type[EventT]) -> Callable[[Handler[EventT]], Handler[EventT]]:
    """Register the decorated HermesApp method as the one handler of `event_type`."""

    def register(method: Handler[EventT]) -> Handler[EventT]:
        if event_type in EVENT_HANDLERS:
            raise ValueError(f"{event_type.__name__} already has a handler")
        EVENT_HANDLERS[event_type] = method
        return method

    return register


class CoreEvent(Message):
    """A core event delivered to the UI thread."""

    def __init__(self, event: ev.Event) -> None:
        super().__init__()
        self.event = event


def _import_core() -> None:
    """Load the core's modules (the agent, its turn loop and reviewer) so start-up finds them imported."""
    import importlib

    for module in ("hermes_tui.core.bootstrap", "hermes_tui.core.agent"):
        importlib.import_module(module)


class HermesApp(MessageActionsMixin, NavigationMixin, TreeActionsMixin, App[int]):
    CSS_PATH = STYLES_PATH  # absolute, so subclasses defined anywhere find it
    TITLE = "hermes-tui"
    BINDINGS: ClassVar[list[BindingType]] = APP_BINDINGS  # F1 (help) is MainScreen's

    def __init__(
        self,
        *,
        home: Home,
        settings: Settings,
        choice: ProviderChoice,
        resume: str | None = None,
        continue_title: str | None = None,
        cwd: Path | None = None,
    ) -> None:
        """`resume` opens a session by reference; `continue_title` ("" = the most recent) continues one."""
        self._terminal_watch = terminal_watch.TerminalWatch()  # before App.__init__ asks get_driver_class
        super().__init__()
        self.home = home
        self.settings = settings
        self.choice = choice
        self.resume_ref = resume
        self.continue_title = continue_title
        self.cwd = cwd
        self.agent: Agent | None = None
        self.db: SessionDB | None = None
        self.startup_error: str | None = None
        self.turn_worker: Worker[Any] | None = None
        self.command_worker: Worker[Any] | None = None
        self._last_ctrl_c = 0.0
        self._agent_closed = False
        self._stopping_for_signal = False
        self._stop_signals = stop_signals.StopSignals(self._on_stop_signal)
        self.ready = asyncio.Event()
        self._lineage_sync: LineageSync | None = None
        self.gc_pacer = GcPacer(release=release_removed_widget_lines)
        self._inputs_handled = 0  # keys and mouse events this app's queue has handed over (on_event)
        self._held_events: list[ev.Event] | None = None  # core events waiting for a history (see on_core_event)
        self._refresh_lock = asyncio.Lock()  # background refreshes run one at a time, in order (FIFO)
        self._saved_switch_interval: float | None = None
        quicker_frames()  # a keystroke's frame follows a long one by 4-8 ms, not 17-33

    # ------------------------------------------------------------------ start-up

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, made safe for a terminal that goes away (`terminal_watch`)."""
        return terminal_watch.guarded_driver(super().get_driver_class(), self._terminal_watch)

    def get_default_screen(self) -> MainScreen:
        return MainScreen(provider_label=f"{self.choice.provider}:{self.choice.model}", is_demo=self.choice.is_demo)

    @property
    def lineage_sync(self) -> LineageSync:
        """What keeps the Sessions tree up to date (created with the main screen's tree)."""
        if self._lineage_sync is None:
            self._lineage_sync = LineageSync(self.main.lineage)
        return self._lineage_sync

    @property
    def main(self) -> MainScreen:
        screen = self.screen_stack[0] if self.screen_stack else self.screen
        assert isinstance(screen, MainScreen)
        return screen

    def on_mount(self) -> None:
        self.gc_pacer.hold()  # no automatic full collection in the middle of start-up
        self._saved_switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(LOOP_SWITCH_INTERVAL_S)  # worker threads hand the interpreter back sooner
        self._stop_signals.install()
        if not self.is_headless:  # a real terminal (never under Pilot: the watchdog ends the process)
            self._terminal_watch.install(on_gone=self._on_terminal_gone)
        self._apply_keymap(self.settings.keymap)
        self._restore_theme(self.home.root)
        if self.choice.is_demo:
            self.main.review_log.add_entry("info", f"Demo model — {self.choice.reason}")
        self.call_after_refresh(self._start)

    def _start(self) -> None:
        self.run_worker(self._start_agent(), group="startup", exclusive=True)

    async def _start_agent(self) -> None:
        await asyncio.to_thread(_import_core)  # ~90 ms of module loading, off the event loop
        from hermes_tui.config import ConfigError
        from hermes_tui.core.agent import AgentError
        from hermes_tui.core.bootstrap import open_agent
        from hermes_tui.core.session.live import SessionError
        from hermes_tui.store.errors import StoreError

        try:
            agent, db = await open_agent(
                home=self.home,
                settings=self.settings,
                choice=self.choice,
                sink=self._sink,
                approver=self._approve,
                source="tui",
                cwd=self.cwd,
                build_extra_indexes=True,
            )
        except (StoreError, AgentError, ConfigError) as exc:
            self.startup_error = str(exc)
            self.exit(2)
            return
        self.agent, self.db = agent, db
        try:
            if self.resume_ref:
                await agent.resume(self.resume_ref)
            elif self.continue_title is not None:
                await agent.continue_session(self.continue_title or None)
        except SessionError as exc:
            self.notify(str(exc), severity="error")
        self._show_session(agent.session_id)
        await self._show_goal_of_session()
        self.main.gauge.budget = agent.budget()
        await self._load_review_history()
        await self.refresh_lineage()
        self.wire_sessions_pane()
        self.ready.set()
        # a resumed history is on screen first: the warm-up's imports would slow its frames down
        await self.main.conversation.history_loaded()
        await self._warm_up_sdk()
        self.gc_pacer.start()  # after the imports: what start-up left alive is frozen
        self.set_interval(GC_TICK_S, self.gc_pacer.tick)

    async def _warm_up_sdk(self) -> None:
        """Import the provider SDK and build its client now (after the first frame), so the first turn
        pays for neither: both would share the interpreter with the frames drawn as it starts."""
        if self.choice.provider in ("openai", "anthropic"):
            import importlib

            await asyncio.to_thread(importlib.import_module, self.choice.provider)
        if self.agent is not None:
            await self.agent.warm_up()

    # ------------------------------------------------------------------ core events

    def _sink(self, event: ev.Event) -> None:
        self.post_message(CoreEvent(event))

    async def refresh_lineage(self) -> None:
        """Read every session into the Sessions tree (start-up)."""
        if self.agent is not None:
            await self.lineage_sync.reload(self.agent, self.db)

    async def sync_lineage(self, *session_ids: str | None) -> None:
        """Update the tree's rows of these sessions and of the current one (all, if another process wrote)."""
        if self.agent is not None:
            await self.lineage_sync.refresh(self.agent, self.db, session_ids)

    def refresh_in_background(self, refresh: Callable[..., Awaitable[None]], *args: Any) -> None:
        """Run a refresh that reads the database (the tree, the goal badge) after the ones asked for
        earlier, in a worker: an event handler awaiting it held the app's queue, and the keys in it,
        for 10-35 ms while a turn's threads kept the database busy."""

        async def in_turn() -> None:
            async with self._refresh_lock:  # tasks reach it in the order they were made: FIFO
                if self.screen_stack and not self._agent_closed:
                    await refresh(*args)

        # a callable, not a coroutine: a worker cancelled before it started leaves nothing un-awaited
        self.run_worker(in_turn, group="refresh")

    async def on_core_event(self, message: CoreEvent) -> None:
        """Hand the event to its handler; events nobody shows (e.g. TurnStarted) are ignored.

        While a long history is converted for the conversation, later events wait (in order) in
        `_held_events` instead of holding the app's queue, which keystrokes go through too.
        """
        if self._held_events is not None:
            self._held_events.append(message.event)
            return
        await self._show_core_event(message.event)

    async def _show_core_event(self, event: ev.Event) -> None:
        if not self.screen_stack:  # the app is closing (a turn's last events can come after): nothing to show
            return
        for event_type in type(event).__mro__:
            handler = EVENT_HANDLERS.get(event_type)
            if handler is not None:
                await handler(self, event)
                return

    async def _release_held_events(self) -> None:
        """Show the events that waited for a history, in order (until another long history holds them)."""
        held, self._held_events = self._held_events or [], None
        for index, event in enumerate(held):
            if self._held_events is not None:
                self._held_events.extend(held[index:])
                return
            await self._show_core_event(event)  # (nothing, once the app is closing)

    @handles(ev.TextDelta)
    async def _show_text_delta(self, event: ev.TextDelta) -> None:
        self.main.conversation.append_text(event.text)

    @handles(ev.ReasoningDelta)
    async def _show_reasoning_delta(self, event: ev.ReasoningDelta) -> None:
        self.main.conversation.append_reasoning(event.text)

    @handles(ev.AssistantStarted)
    async def _show_assistant_started(self, event: ev.AssistantStarted) -> None:
        self.main.conversation.begin_assistant()
        self.main.status_bar.state = "streaming"

    @handles(ev.AssistantFinished)
    async def _show_assistant_finished(self, event: ev.AssistantFinished) -> None:
        self.main.conversation.end_assistant(interrupted=event.interrupted)

    @handles(ev.ToolCallStarted)
    async def _show_tool_call_started(self, event: ev.ToolCallStarted) -> None:
        self.main.conversation.add_tool_call(event.call_id, event.name, event.arguments)
        self.main.status_bar.state = f"running {event.name}"

    @handles(ev.ToolCallFinished)
    async def _show_tool_call_finished(self, event: ev.ToolCallFinished) -> None:
        self.main.conversation.finish_tool_call(event.call_id, event.result, event.is_error, event.duration_s)

    @handles(ev.UsageUpdated)
    async def _show_usage(self, event: ev.UsageUpdated) -> None:
        self.main.gauge.budget = event.budget

    @handles(ev.CompressionStarted)
    async def _show_compression_started(self, event: ev.CompressionStarted) -> None:
        self.main.status_bar.state = "compressing"
        self.main.conversation.add_notice(
            "compression", f"Compressing context ({event.reason}, ~{event.tokens:,} tokens)…"
        )

    @handles(ev.CompressionFinished)
    async def _show_compression_finished(self, event: ev.CompressionFinished) -> None:
        if not self.turn_running:  # a /compress outside a turn: nothing is running any more
            self.main.status_bar.state = "idle"
        if event.aborted:
            return
        fallback = " — fallback summary" if event.fallback_used else ""
        how = "compacted in place" if event.in_place else "compressed"
        self.main.conversation.add_notice(
            "compression",
            f"Context {how}: {event.before} → {event.after} messages, "
            f"~{event.tokens_before:,} → ~{event.tokens_after:,} tokens{fallback}",
        )
        if event.in_place:  # no child session: the same one, its replaced rows kept (F4 shows them)
            self.main.conversation.add_notice(
                "compression", "Same session; the replaced messages are kept and searchable — F4 shows them"
            )
            self.refresh_in_background(self.sync_lineage, event.session_id)

    @handles(ev.TitleChanged)
    async def _show_title_changed(self, event: ev.TitleChanged) -> None:
        self._show_session(event.session_id)
        self.lineage_sync.retitle(event.session_id, event.title)

    @handles(ev.SessionRotated)
    async def _show_session_rotated(self, event: ev.SessionRotated) -> None:
        self._show_session(event.new, event.title)
        if event.reason == "compression":
            self.main.conversation.add_notice("rotation", f"Continued in child session {event.new}")
        self.refresh_in_background(self.sync_lineage, event.old, event.new)
        self.refresh_in_background(self._show_goal_of_session)

    def _show_session(self, session_id: str, title: str | None = None) -> None:
        """The status bar names the live session as the Sessions tree does: its title (the agent's own,
        never a stale event's), else its first user message."""
        preview = ""
        if self.agent is not None and session_id == self.agent.session_id:
            title = self.agent.session.title
            preview = session_preview(self.agent.messages)
        self.main.status_bar.set_session(session_id, title, preview)

    @handles(ev.QueueChanged)
    async def _show_queue(self, event: ev.QueueChanged) -> None:
        self.main.queue_line.show(event.queued, event.steers, event.stop_requested)

    @handles(ev.GoalChanged)
    async def _show_goal(self, event: ev.GoalChanged) -> None:
        if self.agent is not None and event.session_id != self.agent.session_id:
            return
        self.main.status_bar.goal = goal_badge(event.goal, event.status, event.turns_used, event.max_turns)

    async def _show_goal_of_session(self) -> None:
        if self.agent is None:
            return
        state = await self.agent.goals.load()
        if not self.screen_stack:  # the app closed while state.db answered
            return
        self.main.status_bar.goal = (
            goal_badge(state.goal, state.status, state.turns_used, state.max_turns) if state else ""
        )

    @handles(ev.ReviewEntry)
    async def _show_review_entry(self, event: ev.ReviewEntry) -> None:
        self.main.review_log.add_entry(event.kind, event.text, detail=event.detail, key=event.run_key)
        if event.run_key:  # a self-review run ended: its leaf joins the Sessions tree
            await self.refresh_lineage()

    @handles(ev.CheckpointTaken)
    async def _show_checkpoint(self, event: ev.CheckpointTaken) -> None:
        left_out = f", {event.left_out} over the size cap left out" if event.left_out else ""
        self.main.review_log.add_entry(
            "info",
            f"Checkpoint {event.number} before turn #{event.turn}'s file changes ({event.files} files{left_out},"
            f" {event.duration_s * 1000:.0f} ms) — /rollback {event.number} restores it",
        )

    @handles(ev.FilesRestored)
    async def _show_files_restored(self, event: ev.FilesRestored) -> None:
        self.main.review_log.add_entry(
            "info",
            f"Files restored to checkpoint {event.number}: {event.changed} set back, {event.removed} removed,"
            f" {event.recreated} back — /rollback {event.undo_number} undoes it",
        )

    async def _load_review_history(self) -> None:
        """Earlier self-review runs, so the Review log survives a restart."""
        from datetime import datetime

        assert self.agent is not None
        for record in await self.agent.review_history():
            if not record.summary:
                continue
            kind = "memory" if any("Memory" in a or "profile" in a for a in record.actions) else "skill"
            when = datetime.fromtimestamp(record.finished_at or record.started_at)
            self.main.review_log.add_entry(kind, record.summary, detail=record.diff, key=record.key, time=when)

    async def on_review_log_detail_requested(self, message: ReviewLog.DetailRequested) -> None:
        from hermes_tui.screens.review_diff import ReviewDiffScreen

        self.push_screen(ReviewDiffScreen(message.entry.text, message.entry.detail))

    async def _open_review_run(self, key: str) -> None:
        from hermes_tui.screens.review_diff import ReviewDiffScreen

        assert self.agent is not None
        record = next((r for r in await self.agent.review_history() if r.key == key), None)
        if record is not None:
            summary = record.summary or ("Review failed: " + record.error if record.error else "Nothing to save.")
            self.push_screen(ReviewDiffScreen(summary, record.diff))

    def action_open_learning(self) -> None:
        """F2, /memory, /skills: the Memory & Skills screen."""
        from hermes_tui.screens.learning import LearningScreen

        if self.agent is not None:
            self.push_screen(LearningScreen(self.agent.memory, self.agent.skills))

    @handles(ev.Warning)
    async def _show_warning(self, event: ev.Warning) -> None:
        self.main.conversation.add_notice("warning", event.text)

    @handles(ev.ProviderSwitched)
    async def _show_provider_switched(self, event: ev.ProviderSwitched) -> None:
        self.main.status_bar.set_provider(event.provider, event.model)

    @handles(ev.Status)
    async def _show_status(self, event: ev.Status) -> None:
        self.main.status_bar.state = event.text

    @handles(ev.HistoryReplaced)
    async def _show_history_replaced(self, event: ev.HistoryReplaced) -> None:
        conversation = self.main.conversation
        if len(event.messages) < LONG_HISTORY:
            conversation.load_history(event.messages)
            self._history_shown(event)
            return
        # Converting 10,000 messages takes 30-45 ms (longer in a thread, sharing the interpreter):
        # a worker waits for it, and the core events after this one wait with it.
        self._held_events = []
        loading = conversation.load_history(event.messages, in_thread=True)
        # a description of our own: Textual's default is repr(work), here the whole history (~10 ms)
        work = functools.partial(self._show_long_history, loading, event)
        self.run_worker(work, group="history", description="show a long history")

    async def _show_long_history(self, loading: AwaitComplete, event: ev.HistoryReplaced) -> None:
        await loading
        if not self.screen_stack or self._agent_closed:  # the app is closing: nothing is shown any more
            self._held_events = None
            return
        self._history_shown(event)
        await self._release_held_events()

    def _history_shown(self, event: ev.HistoryReplaced) -> None:
        self._show_session(event.session_id)
        self.reveal_pending(event.messages)  # a search hit waiting for this history
        if event.reason == "resume" and self.db is not None:
            self.refresh_in_background(self._note_compactions, event.session_id)

    async def _note_compactions(self, session_id: str) -> None:
        """A resumed session that was compacted in place says so (the summary above stands for them)."""
        if self.db is None:
            return
        replaced = await self.db.count_compacted(session_id)
        if replaced and self.screen_stack and self.agent is not None and self.agent.session_id == session_id:
            times = await self.db.compaction_count(session_id)
            self.main.conversation.add_notice(
                "compression",
                f"Compacted in place {times}× — {replaced} earlier messages are kept in the record; F4 shows them",
            )

    @handles(ev.TurnFinished)
    async def _show_turn_finished(self, event: ev.TurnFinished) -> None:
        stopped = event.exit_reason == "stopped"
        self.main.status_bar.state = "interrupted" if event.interrupted else "stopped" if stopped else "idle"
        self._show_session(event.session_id)
        if event.failed and event.error:
            self.main.conversation.add_notice("warning", event.error)
        self.refresh_in_background(self.sync_lineage)

    # ------------------------------------------------------------------ input

    @staticmethod
    def _active(worker: Worker[Any] | None) -> bool:
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    @property
    def turn_running(self) -> bool:
        return self._active(self.turn_worker)

    @property
    def command_running(self) -> bool:
        return self._active(self.command_worker)

    @property
    def busy(self) -> bool:
        return self.turn_running or self.command_running

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text.strip()
        if not text:
            return
        if self.agent is None:
            await self.ready.wait()
        from hermes_tui.core.commands import is_command, runs_while_busy

        if self.busy:
            if runs_while_busy(text):  # /steer, /queue, /stop, /status …: at once, beside the turn
                self.run_worker(self._run_command(text, beside=True), group="busy-command")
                return
            busy = "A turn" if self.turn_running else "A command"
            self.notify(f"{busy} is running {BUSY_HINT}", severity="warning")
            self.main.prompt.set_text(text)
            return
        if is_command(text):
            self.command_worker = self.run_worker(self._run_command(text), group="command", exclusive=True)
        else:
            self._start_turn(text)

    def _start_turn(self, text: str) -> None:
        assert self.agent is not None  # input waits for `ready`
        self.main.conversation.add_user(text)
        self.main.status_bar.state = "thinking"
        self.turn_worker = self.run_worker(self._run_turns(text), group="turn", exclusive=True)

    async def _run_turns(self, text: str) -> TurnResult | None:
        """Run `text`, then whatever the agent says comes next (queued messages, the goal's continuation)."""
        assert self.agent is not None
        result = None
        next_text: str | None = text
        while next_text is not None:
            result = await self.agent.run_conversation(next_text)
            next_text = await self.agent.next_turn(result)
            if next_text is not None:
                self.main.conversation.add_user(next_text)
                self.main.status_bar.state = "thinking"
        return result

    async def _run_command(self, text: str, *, beside: bool = False) -> None:
        """Run a command; `beside` = it runs next to a running turn or command (a while-busy command)."""
        from hermes_tui.core.commands import run_command

        assert self.agent is not None  # input waits for `ready`
        await self._show_result(await run_command(self.agent, text, interactive=True), beside=beside)

    async def _show_result(self, result: CommandResult, *, beside: bool = False) -> None:
        assert self.agent is not None
        convo = self.main.conversation
        if result.quit:
            self.call_later(self.action_quit)  # exit from the app's own loop, not from this worker
            return
        if result.clear_conversation:
            await convo.clear()
        from hermes_tui.core.commands import OpenLearning, ShowHelp

        if isinstance(result.intent, ShowHelp):
            self.push_screen(HelpScreen())
        elif isinstance(result.intent, OpenLearning):
            self.action_open_learning()
        elif result.intent is not None:
            self.open_command_screen(result.intent)
        elif result.confirm is not None:
            self.push_screen(CompressPreviewScreen(result.confirm.preview), callback=self._confirmed(result))
        elif result.output:
            convo.add_notice("warning" if result.error else "info", result.output)
        if result.prefill is not None:
            self.main.prompt.set_text(result.prefill)
        if result.send:
            if beside or self.turn_running:  # it ran beside a turn or a command: its message waits its turn
                self.agent.steering.enqueue(result.send)
            else:
                self.call_later(self._start_turn, result.send)  # after this command's worker ends
        elif not self.turn_running:
            self.call_later(self._send_queued)
        await self.sync_lineage()

    def _confirmed(self, result: CommandResult) -> Callable[[bool | None], None]:
        confirmation = result.confirm
        assert confirmation is not None

        def done(agreed: bool | None) -> None:
            if not agreed:
                self.main.conversation.add_notice("info", "Compression cancelled — nothing changed.")
                return

            async def apply() -> None:
                await self._show_result(await confirmation.apply())

            self.command_worker = self.run_worker(apply(), group="command", exclusive=True)

        return done

    def _send_queued(self) -> None:
        """Messages queued while a command ran go out once nothing runs."""
        if self.agent is None or self.busy:
            return
        queued = self.agent.steering.take_next()
        if queued is not None:
            self._start_turn(queued)

    async def on_lineage_tree_session_chosen(self, message: LineageTree.SessionChosen) -> None:
        if self.agent is None or message.session_id == self.agent.session_id:
            return
        if message.session_id.startswith("review:"):  # a self-review leaf: show what it changed
            await self._open_review_run(message.session_id)
            return
        if self.turn_running or self.command_running:
            self.notify("Busy — press Ctrl-C to interrupt first, then choose the session again.", severity="warning")
            return
        command = f"/resume {message.session_id}"
        self.command_worker = self.run_worker(self._run_command(command), group="command", exclusive=True)

    async def _approve(self, request: ApprovalRequest) -> bool:
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def done(result: bool | None) -> None:
            if not future.done():
                future.set_result(bool(result))

        screen = ApprovalScreen(request.tool, request.command, request.cwd, tuple(request.reasons))
        self.push_screen(screen, callback=done)
        try:
            return await future
        except asyncio.CancelledError:
            if screen.is_attached:
                screen.dismiss(False)
            raise

    # ------------------------------------------------------------------ actions

    async def action_ctrl_c(self) -> None:
        prompt = self.main.prompt
        if prompt.value:
            prompt.value = ""
            self._last_ctrl_c = 0.0
            return
        for worker in (self.turn_worker, self.command_worker):
            if self._active(worker) and worker is not None:
                worker.cancel()
                self.main.status_bar.state = "interrupting"
                self._last_ctrl_c = 0.0
                return
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_S:
            await self.action_quit()
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl-C again within 2 s to quit (Ctrl-Q quits at once).", timeout=QUIT_WINDOW_S)

    async def action_quit(self) -> None:
        await self.shutdown_agent()
        self.exit(0)

    def _on_stop_signal(self, signum: int) -> None:
        """SIGINT/SIGTERM/SIGHUP: stop like Ctrl-C then quit — the partial answer is saved, the session ended."""
        self._terminal_watch.arm(signum)  # the process ends by the deadline, whatever the driver does
        if not self._stopping_for_signal:  # the first one; later signals wait for it
            self._stopping_for_signal = True
            self.call_later(self._stop_for_signal, signum)

    def _on_terminal_gone(self) -> None:
        """A write found the terminal gone (no SIGHUP came): stop as SIGHUP does."""
        self._on_stop_signal(signal.SIGHUP)

    async def _stop_for_signal(self, signum: int) -> None:
        await self.shutdown_agent(stop_signals.end_reason(signum))
        self._terminal_watch.saved()  # with the terminal gone, the watchdog ends the process now
        self.exit(return_code=stop_signals.exit_code(signum))

    async def shutdown_agent(self, end_reason: str = "tui_shutdown") -> None:
        if self._agent_closed:
            return
        self._agent_closed = True
        if self.turn_running and self.turn_worker is not None:
            self.turn_worker.cancel()
            try:
                await asyncio.wait_for(self.turn_worker.wait(), 5)
            except Exception:
                pass
        if self.agent is not None:
            await self.agent.close(end_reason)
        if self.db is not None:
            await self.db.close()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseEvent)):  # (counted by post_message on arrival)
            self._inputs_handled += 1
            if isinstance(event, events.Key) and self.screen_stack:
                self.main.conversation.note_keypress()  # a history still mounting lets this key's frame go first
        await super().on_event(event)

    def post_message(self, message: Message) -> bool:
        if isinstance(message, (events.Key, events.MouseEvent)):
            self.gc_pacer.note_input()  # counted as it arrives, not when the app's queue reaches it
        return super().post_message(message)

    def on_input_changed(self, event: Input.Changed) -> None:
        """A key changed a text field (the prompt, mostly): a due full collection runs once the frame
        showing it is drawn, unless another key is waiting by then (see `_collect_after_echo`)."""
        if self.gc_pacer.due:
            # Twice: the field's repaint may not have reached the screen when this message does, and
            # a screen with nothing to draw runs the callback at once — before the key is shown.
            # By the first callback the screen knows, so the second one waits for that frame.
            handled = self._inputs_handled
            self.call_after_refresh(self.call_after_refresh, self._collect_after_echo, handled)

    on_text_area_changed = on_input_changed  # issue 21 editor: the prompt is a TextArea now

    def _collect_after_echo(self, handled: int) -> None:
        # A moment later: a key the driver's thread sent while the frame was drawn reaches
        # post_message through loop callbacks that are ready now, so it is counted before the pacer
        # compares — and the collection waits for that key's echo instead of holding it up.
        asyncio.get_running_loop().call_later(ECHO_SETTLE_S, self.gc_pacer.after_echo, handled)

    async def on_unmount(self) -> None:
        self.gc_pacer.stop()
        if self._saved_switch_interval is not None:
            sys.setswitchinterval(self._saved_switch_interval)
            self._saved_switch_interval = None
        await self.shutdown_agent()
        self._terminal_watch.remove()
        self._stop_signals.remove()
