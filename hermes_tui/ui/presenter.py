"""`EventPresenter`: turns the core's events into updates of the main screen's widgets.

A dispatch table keyed by event class (`EVENT_HANDLERS`, filled by `@handles`) hands each event to
the one method that shows it in the conversation (a tool card's changed files too), the Sessions
tree, the token gauge, the Review log (a turn's "✎ N files" line, a /background report), the queue
line or the status bar (the permission-mode badge too); pinned messages get their 📌 in the
conversation (and an open context screen reads its report again), and /reasoning and /verbose
change what the conversation shows. Events nobody shows (e.g. TurnStarted) are ignored. Showing
a new kind of event is one decorated method here.

Nothing here waits on the app's queue, which keystrokes go through too: a long history
(`LONG_HISTORY` messages or more) is converted in a thread while the events after it wait in order
(`receive` holds them, `_release_held` shows them once the history is on screen), and the reads
a handler asks for (tree rows, the goal badge) run in the Sessions tree's ordered background lane.
Once the app is closing nothing more is shown. The presenter sees the app only through
`PresenterHost` and two callables (is a turn running; a history reached the conversation), so a
test can feed it events over a plain fake screen.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

from textual.await_complete import AwaitComplete

from hermes_tui.core import events as ev
from hermes_tui.screens.registry import loaded_class
from hermes_tui.ui.lineage_history import LineageHistory
from hermes_tui.ui.ports import MainView, PresenterHost
from hermes_tui.ui.sessions_tree import SessionsTree

LONG_HISTORY = 1_000  # messages from which a loaded history is converted in a thread, off the app's queue
TURN_DIFF_ROWS = 5_000  # rows of a turn's diff its Review-log files line opens

EventT = TypeVar("EventT", bound=ev.Event)
Handler = Callable[["EventPresenter", EventT], Awaitable[None]]
EVENT_HANDLERS: dict[type[ev.Event], Handler[Any]] = {}
"""Core event class -> the EventPresenter method that shows it (filled by `@handles`)."""


def handles(event_type: type[EventT]) -> Callable[[Handler[EventT]], Handler[EventT]]:
    """Register the decorated EventPresenter method as the one handler of `event_type`."""

    def register(method: Handler[EventT]) -> Handler[EventT]:
        if event_type in EVENT_HANDLERS:
            raise ValueError(f"{event_type.__name__} already has a handler")
        EVENT_HANDLERS[event_type] = method
        return method

    return register


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


class EventPresenter:
    """Shows core events on the main screen, in the order they came."""

    def __init__(
        self,
        app: PresenterHost,
        tree: SessionsTree,
        *,
        turn_running: Callable[[], bool],
        reveal_pending: Callable[[list[dict[str, Any]]], None],
    ) -> None:
        """`turn_running`: whether a turn runs now; `reveal_pending(messages)`: a history reached the
        conversation (a search hit may be waiting for it)."""
        self._app = app
        self._tree = tree
        self._turn_running = turn_running
        self._reveal_pending = reveal_pending
        self._held: list[ev.Event] | None = None  # events waiting for a long history (see `receive`)
        self._closed = False
        self.lineage_history = LineageHistory(app, tree)  # the gauge's count and sparkline over the lineage

    @property
    def _main(self) -> MainView:
        return self._app.main

    @property
    def holding(self) -> bool:
        """Whether events wait for a long history to reach the conversation."""
        return self._held is not None

    # ------------------------------------------------------------------ the dispatch

    async def receive(self, event: ev.Event) -> None:
        """Show `event` — after the held ones, while a long history is being converted."""
        if self._held is not None:
            self._held.append(event)
            return
        await self.show(event)

    async def show(self, event: ev.Event) -> None:
        """Hand `event` to its handler now (nothing, once the app is closing: a turn's last events can
        come after)."""
        if not self._app.screen_stack:
            return
        for event_type in type(event).__mro__:
            handler = EVENT_HANDLERS.get(event_type)
            if handler is not None:
                await handler(self, event)
                return

    async def _release_held(self) -> None:
        """Show the events that waited for a history, in order (until another long history holds them)."""
        held, self._held = self._held or [], None
        for index, event in enumerate(held):
            if self._held is not None:
                self._held.extend(held[index:])
                return
            await self.show(event)  # (nothing, once the app is closing)

    def close(self) -> None:
        """The app is closing: a history still converting is not shown."""
        self._closed = True

    # ------------------------------------------------------------------ the session, its goal, its reviews

    def show_session(self, session_id: str, title: str | None = None) -> None:
        """The status bar names the live session as the Sessions tree does: its title (the agent's own,
        never a stale event's), else its first user message."""
        agent = self._app.agent
        preview = ""
        if agent is not None and session_id == agent.session_id:
            title = agent.session.title
            preview = session_preview(agent.messages)
            self._main.show_first_hint(not agent.messages)  # until the first message
        self._main.status_bar.set_session(session_id, title, preview)

    async def show_goal_of_session(self) -> None:
        agent = self._app.agent
        if agent is None:
            return
        state = await agent.goals.load()
        if not self._app.screen_stack:  # the app closed while state.db answered
            return
        self._main.status_bar.goal = (
            goal_badge(state.goal, state.status, state.turns_used, state.max_turns) if state else ""
        )

    async def load_review_history(self) -> None:
        """Earlier self-review runs, so the Review log survives a restart."""
        agent = self._app.agent
        assert agent is not None
        for record in await agent.review_history():
            if not record.summary:
                continue
            kind = "memory" if any("Memory" in a or "profile" in a for a in record.actions) else "skill"
            when = datetime.fromtimestamp(record.finished_at or record.started_at)
            self._main.review_log.add_entry(kind, record.summary, detail=record.diff, key=record.key, time=when)

    # ------------------------------------------------------------------ the conversation

    @handles(ev.TextDelta)
    async def _show_text_delta(self, event: ev.TextDelta) -> None:
        self._main.conversation.append_text(event.text)

    @handles(ev.ReasoningDelta)
    async def _show_reasoning_delta(self, event: ev.ReasoningDelta) -> None:
        self._main.conversation.append_reasoning(event.text)

    @handles(ev.AssistantStarted)
    async def _show_assistant_started(self, event: ev.AssistantStarted) -> None:
        self._main.conversation.begin_assistant()
        self._main.status_bar.state = "streaming"

    @handles(ev.AssistantFinished)
    async def _show_assistant_finished(self, event: ev.AssistantFinished) -> None:
        self._main.conversation.end_assistant(interrupted=event.interrupted)

    @handles(ev.ToolCallStarted)
    async def _show_tool_call_started(self, event: ev.ToolCallStarted) -> None:
        self._main.conversation.add_tool_call(event.call_id, event.name, event.arguments)
        self._main.status_bar.state = f"running {event.name}"

    @handles(ev.ToolCallFinished)
    async def _show_tool_call_finished(self, event: ev.ToolCallFinished) -> None:
        # the card shows the files the call changed (`path +a −b`, the diff when expanded)
        self._main.conversation.finish_tool_call(
            event.call_id, event.result, event.is_error, event.duration_s, event.changes
        )

    @handles(ev.Warning)
    async def _show_warning(self, event: ev.Warning) -> None:
        self._main.conversation.add_notice("warning", event.text)

    @handles(ev.HistoryReplaced)
    async def _show_history_replaced(self, event: ev.HistoryReplaced) -> None:
        conversation = self._main.conversation
        if len(event.messages) < LONG_HISTORY:
            conversation.load_history(event.messages)
            self._history_shown(event)
            return
        # Converting 10,000 messages takes 30-45 ms (longer in a thread, sharing the interpreter):
        # a worker waits for it, and the core events after this one wait with it.
        self._held = []
        loading = conversation.load_history(event.messages, in_thread=True)
        # a description of our own: Textual's default is repr(work), here the whole history (~10 ms)
        work = functools.partial(self._show_long_history, loading, event)
        self._app.run_worker(work, group="history", description="show a long history")

    async def _show_long_history(self, loading: AwaitComplete, event: ev.HistoryReplaced) -> None:
        await loading
        if not self._app.screen_stack or self._closed:  # the app is closing: nothing is shown any more
            self._held = None
            return
        self._history_shown(event)
        await self._release_held()

    def _history_shown(self, event: ev.HistoryReplaced) -> None:
        self.show_session(event.session_id)
        self._reveal_pending(event.messages)  # a search hit waiting for this history
        if event.reason == "resume" and self._app.db is not None:
            self._tree.in_background(self._note_compactions, event.session_id)

    async def _note_compactions(self, session_id: str) -> None:
        """A resumed session that was compacted in place says so (the summary above stands for them)."""
        db = self._app.db
        if db is None:
            return
        replaced = await db.count_compacted(session_id)
        agent = self._app.agent
        if replaced and self._app.screen_stack and agent is not None and agent.session_id == session_id:
            times = await db.compaction_count(session_id)
            self._main.conversation.add_notice(
                "compression",
                f"Compacted in place {times}× — {replaced} earlier messages are kept in the record; F4 shows them",
            )

    @handles(ev.TurnFinished)
    async def _show_turn_finished(self, event: ev.TurnFinished) -> None:
        stopped = event.exit_reason == "stopped"
        self._main.status_bar.state = "interrupted" if event.interrupted else "stopped" if stopped else "idle"
        self.show_session(event.session_id)
        if event.failed and event.error:
            self._main.conversation.add_notice("warning", event.error)
        self._tree.in_background(self._tree.refresh)

    # ------------------------------------------------------------------ context and compression

    @handles(ev.UsageUpdated)
    async def _show_usage(self, event: ev.UsageUpdated) -> None:
        self._main.gauge.budget = event.budget

    @handles(ev.CompressionStarted)
    async def _show_compression_started(self, event: ev.CompressionStarted) -> None:
        self._main.status_bar.state = "compressing"
        self._main.conversation.add_notice(
            "compression", f"Compressing context ({event.reason}, ~{event.tokens:,} tokens)…"
        )

    @handles(ev.CompressionFinished)
    async def _show_compression_finished(self, event: ev.CompressionFinished) -> None:
        if not self._turn_running():  # a /compress outside a turn: nothing is running any more
            self._main.status_bar.state = "idle"
        if event.aborted:
            return
        self.lineage_history.read(with_sizes=False)
        fallback = " — fallback summary" if event.fallback_used else ""
        how = "compacted in place" if event.in_place else "compressed"
        self._main.conversation.add_notice(
            "compression",
            f"Context {how}: {event.before} → {event.after} messages, "
            f"~{event.tokens_before:,} → ~{event.tokens_after:,} tokens{fallback}",
        )
        if event.in_place:  # no child session: the same one, its replaced rows kept (F4 shows them)
            self._main.conversation.add_notice(
                "compression", "Same session; the replaced messages are kept and searchable — F4 shows them"
            )
            self._tree.in_background(self._tree.refresh, event.session_id)

    # ------------------------------------------------------------------ the session and the tree

    @handles(ev.TitleChanged)
    async def _show_title_changed(self, event: ev.TitleChanged) -> None:
        self.show_session(event.session_id)
        self._tree.sync.retitle(event.session_id, event.title)

    @handles(ev.SessionRotated)
    async def _show_session_rotated(self, event: ev.SessionRotated) -> None:
        self.show_session(event.new, event.title)
        if event.reason == "compression":
            self._main.conversation.add_notice("rotation", f"Continued in child session {event.new}")
        self._tree.in_background(self._tree.refresh, event.old, event.new)
        self._tree.in_background(self.show_goal_of_session)
        if event.reason == "new_session":
            self.lineage_history.forget()
        elif event.reason != "compression":  # a compression's count is read once it has finished
            self.lineage_history.read(with_sizes=event.reason == "resume")

    @handles(ev.QueueChanged)
    async def _show_queue(self, event: ev.QueueChanged) -> None:
        self._main.queue_line.show(event.queued, event.steers, event.stop_requested)

    @handles(ev.PinsChanged)
    async def _show_pins(self, event: ev.PinsChanged) -> None:
        """📌 on the pinned messages in the conversation; an open context screen reads its report again."""
        agent = self._app.agent
        if agent is None or event.session_id != agent.session_id:
            return
        messages = agent.messages
        rows = [messages[i].get("_db_id") for i in event.indices if 0 <= i < len(messages)]
        self._main.conversation.show_pinned(row for row in rows if isinstance(row, int))
        context_screen = loaded_class("ContextScreen")  # none is on show if it was never imported
        for screen in self._app.screen_stack:
            if context_screen is not None and isinstance(screen, context_screen):
                screen.reload()

    @handles(ev.DisplayChanged)
    async def _show_display(self, event: ev.DisplayChanged) -> None:
        """/reasoning show|hide and /verbose: the conversation shows reasoning and tool cards accordingly."""
        self._main.conversation.set_display(show_reasoning=event.show_reasoning, tool_progress=event.tool_progress)

    @handles(ev.GoalChanged)
    async def _show_goal(self, event: ev.GoalChanged) -> None:
        agent = self._app.agent
        if agent is not None and event.session_id != agent.session_id:
            return
        self._main.status_bar.goal = goal_badge(event.goal, event.status, event.turns_used, event.max_turns)

    @handles(ev.PermissionModeChanged)
    async def _show_permission_mode(self, event: ev.PermissionModeChanged) -> None:
        """The status bar's badge follows /mode, /yolo and Shift+Tab, with a short toast."""
        self._main.status_bar.set_permission_mode(event.mode, event.label)
        self._app.notify(f"Permission mode: {event.label or event.mode}", timeout=2)

    @handles(ev.ProviderSwitched)
    async def _show_provider_switched(self, event: ev.ProviderSwitched) -> None:
        self._main.status_bar.set_provider(event.provider, event.model)

    @handles(ev.Status)
    async def _show_status(self, event: ev.Status) -> None:
        self._main.status_bar.state = event.text

    # ------------------------------------------------------------------ the Review log

    @handles(ev.ReviewEntry)
    async def _show_review_entry(self, event: ev.ReviewEntry) -> None:
        self._main.review_log.add_entry(event.kind, event.text, detail=event.detail, key=event.run_key)
        if event.run_key:  # a self-review run ended: its leaf joins the Sessions tree
            await self._tree.reload()

    @handles(ev.CheckpointTaken)
    async def _show_checkpoint(self, event: ev.CheckpointTaken) -> None:
        left_out = f", {event.left_out} over the size cap left out" if event.left_out else ""
        self._main.review_log.add_entry(
            "info",
            f"Checkpoint {event.number} before turn #{event.turn}'s file changes ({event.files} files{left_out},"
            f" {event.duration_s * 1000:.0f} ms) — /rollback {event.number} restores it",
        )

    @handles(ev.FilesRestored)
    async def _show_files_restored(self, event: ev.FilesRestored) -> None:
        self._main.review_log.add_entry(
            "info",
            f"Files restored to checkpoint {event.number}: {event.changed} set back, {event.removed} removed,"
            f" {event.recreated} back — /rollback {event.undo_number} undoes it",
        )

    @handles(ev.TurnFilesChanged)
    async def _show_turn_files_changed(self, event: ev.TurnFilesChanged) -> None:
        """One Review-log line per turn that changed files ("✎ N files"); its detail is the turn's diff."""
        from hermes_tui.widgets.diff_rows import limited_diff_text, turn_files_line

        detail = limited_diff_text(event.changes, TURN_DIFF_ROWS)
        self._main.review_log.add_entry("files", turn_files_line(event.files), detail=detail)
