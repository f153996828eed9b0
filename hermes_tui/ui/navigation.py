"""`Navigation`: finding, opening, comparing and inspecting sessions, and the screens commands ask for.

Owns the flows behind the search screen (Ctrl+F, /search, the palette), comparing two sessions
(F3, /compare: the Sessions tree's highlighted session, or the current one, plus a second pick
whose first choice is the parent), the compression inspector (F4, /inspect: the compression the
highlighted or current session's summary comes from) and its re-injection (a quoted user note,
sent as a normal turn), resuming a session chosen in the tree or the palette, a self-review run's
diff or a turn's files diff (the Review log, the tree's review leaves), Memory & Skills (F2), help (/help)
and what fills the context (/context, F7, the gauge: `ContextScreen`, whose Enter scrolls the
conversation to the chosen message and whose p pins it through the agent). `open_intent` opens
whatever screen a command's result asks for.

Opening a search hit: the hit's session is resumed (`agent.resume`); when its history arrives
(`HistoryReplaced`, through the presenter's `reveal_pending`) the hit is found by row id — or,
for a copy a branch or a compression carried, by its text — and the conversation shows it marked,
however far back (`reveal_item`). A message a compression summarised away is not in the
continuing session: the inspector opens on it instead. Whatever moves the session runs as the
command (`TurnControl.run_as_command`), refused while busy.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from hermes_tui.screens.registry import screen_class
from hermes_tui.transcript_locate import item_index_for_message, message_index_for_id, message_index_for_text
from hermes_tui.ui.ports import MainView, NavigationHost
from hermes_tui.ui.sessions_tree import SessionsTree
from hermes_tui.ui.turn_control import TurnControl

if TYPE_CHECKING:
    from hermes_tui.core.commands import Intent
    from hermes_tui.screens.search import SearchChoice
    from hermes_tui.widgets.review_log import ReviewLogEntry


class Navigation:
    """The app's ways from one session or screen to another."""

    def __init__(self, app: NavigationHost, turns: TurnControl, tree: SessionsTree) -> None:
        self._app = app
        self._turns = turns
        self._tree = tree
        self._pending_reveal: SearchChoice | None = None  # a hit waiting for its session's history

    @property
    def _main(self) -> MainView:
        return self._app.main

    def _selected_session(self) -> str | None:
        """The Sessions tree's highlighted session when the tree has focus, else the current session."""
        if self._app.agent is None:
            return None
        tree = self._main.lineage
        node = tree.cursor_node
        entry = node.data if node is not None else None
        session = entry.session if entry is not None else None
        if tree.has_focus and session is not None and not session.id.startswith("review:"):
            return session.id
        return self._app.agent.session_id

    def open_intent(self, intent: Intent) -> None:
        """A slash command asked for a screen (/help, /memory, /search, /compare, /inspect)."""
        from hermes_tui.core.commands import (
            CopyText,
            OpenCompare,
            OpenContext,
            OpenInspector,
            OpenLearning,
            OpenSearch,
            ShowHelp,
        )

        match intent:
            case ShowHelp():
                self._app.push_screen(screen_class("HelpScreen")())
            case OpenLearning():
                self.open_learning()
            case OpenSearch(query=query):
                self.open_search(query)
            case OpenCompare(left=left, right=str() as right):
                self.open_compare(left, right)
            case OpenCompare():  # the other side is to be chosen (the highlighted or current one is A)
                self._app.run_worker(self.compare_sessions(), group="navigation")
            case OpenInspector(child_id=child_id):
                self.open_inspector(child_id)
            case OpenContext(top=top):
                self.open_context(top)
            case CopyText(text=text):
                self._app.copy_to_clipboard(text)
                self._app.notify(f"Copied {len(text):,} characters to the clipboard.")

    def open_learning(self) -> None:
        """F2, /memory, /skills: the Memory & Skills screen."""
        agent = self._app.agent
        if agent is not None:
            self._app.push_screen(screen_class("LearningScreen")(agent.memory, agent.skills))

    # ------------------------------------------------------------------ sessions

    def open_session(self, session_id: str) -> None:
        """Resume `session_id` (the palette's session jump; the same as Enter in the Sessions tree)."""
        agent = self._app.agent
        if agent is None or session_id == agent.session_id or self._turns.refuse_if_busy():
            return
        self._turns.run_command(f"/resume {session_id}")

    async def session_chosen(self, session_id: str) -> None:
        """Enter in the Sessions tree: resume that session, or show what a self-review run changed."""
        agent = self._app.agent
        if agent is None or session_id == agent.session_id:
            return
        if session_id.startswith("review:"):  # a self-review leaf: show what it changed
            await self.open_review_run(session_id)
        elif not self._turns.refuse_if_busy():
            self._turns.run_command(f"/resume {session_id}")

    def open_review_detail(self, entry: ReviewLogEntry) -> None:
        """A Review-log line's detail (the diff a self-review made, or a turn's files line's diff),
        under the title its kind of entry has."""
        self._app.push_screen(screen_class("ReviewDiffScreen").for_entry_kind(entry.text, entry.detail, entry.kind))

    async def open_review_run(self, key: str) -> None:
        agent = self._app.agent
        assert agent is not None
        record = next((r for r in await agent.review_history() if r.key == key), None)
        if record is not None:
            summary = record.summary or ("Review failed: " + record.error if record.error else "Nothing to save.")
            self._app.push_screen(screen_class("ReviewDiffScreen")(summary, record.diff))

    # ------------------------------------------------------------------ search

    def open_search(self, query: str = "") -> None:
        """Ctrl+F, /search, the palette: the search screen."""
        if self._app.db is None:
            self._app.notify("Search needs the session database, which is not open yet.", severity="warning")
            return
        self._app.push_screen(screen_class("SearchScreen")(self._app.db, query), callback=self._search_chosen)

    def _search_chosen(self, choice: SearchChoice | None) -> None:
        if choice is not None:
            self.open_at_message(choice)

    def open_at_message(self, choice: SearchChoice) -> None:
        """Open the chosen hit's session in the conversation, scrolled to the hit, marked."""
        if self._app.agent is None or self._turns.refuse_if_busy():
            return
        self._turns.run_as_command(self._open_at_message(choice))

    async def _open_at_message(self, choice: SearchChoice) -> None:
        from hermes_tui.core.session.live import SessionError

        agent = self._app.agent
        assert agent is not None
        before = agent.session_id
        if choice.session_id != before:
            self._pending_reveal = choice
            try:
                await agent.resume(choice.session_id)
            except SessionError as exc:
                self._pending_reveal = None
                self._app.notify(str(exc), severity="error")
                return
            await self._tree.reload()
            if agent.session_id != before:
                return  # the history is on its way: `reveal_pending` takes it from there
            self._pending_reveal = None  # resuming led back here (a compressed ancestor's tip)
        # The live transcript also holds notices and this run's rows: show the stored history afresh,
        # so positions in it match the messages.
        await self._main.conversation.load_history(list(agent.messages))
        await self._reveal(list(agent.messages), choice)

    def reveal_pending(self, messages: list[dict[str, Any]]) -> None:
        """A history reached the conversation: mark the search hit waiting for it, if any."""
        pending, self._pending_reveal = self._pending_reveal, None
        if pending is not None:
            self._app.run_worker(self._reveal(messages, pending), group="navigation")

    async def _reveal(self, messages: list[dict[str, Any]], choice: SearchChoice) -> None:
        index = message_index_for_id(messages, choice.message_id)
        if index is None:
            index = message_index_for_text(messages, choice.role, choice.text)
        if index is None:
            await self._show_summarised(choice)
            return
        item = await asyncio.to_thread(item_index_for_message, messages, index)
        if item is not None:
            await self._main.conversation.reveal_item(item)

    async def _show_summarised(self, choice: SearchChoice) -> None:
        """The hit is not in the live history: a compression summarised it. Show it in the inspector."""
        agent, db = self._app.agent, self._app.db
        if agent is None or db is None:
            return
        if choice.session_id == agent.session_id and await db.count_compacted(agent.session_id):
            self._main.conversation.add_notice("info", "That message was compacted in place (kept in the record).")
            self.open_inspector(agent.session_id, highlight_message_id=choice.message_id)
            return
        chain = await db.lineage_chain(agent.session_id)
        if choice.session_id in chain and chain.index(choice.session_id) + 1 < len(chain):
            child = chain[chain.index(choice.session_id) + 1]
            self._main.conversation.add_notice(
                "info", f"That message was summarised when session {choice.session_id} was compressed."
            )
            self.open_inspector(child, highlight_message_id=choice.message_id)
        else:
            self._app.notify("That message is no longer in this session's history.", severity="warning")

    # ------------------------------------------------------------------ context

    def open_context(self, top: int = 10) -> None:
        """/context, F7, the gauge: what fills the window, by category and by message."""
        from hermes_tui.core.context_report import context_report

        agent = self._app.agent
        if agent is None:
            return

        async def load() -> Any:
            return await context_report(agent, top)

        async def toggle_pin(weight: Any) -> str:
            from hermes_tui.core.session.live import SessionError

            try:
                if weight.pinned:
                    return await agent.unpin_message(weight.index, weight.ref)
                return await agent.pin_message(weight.index, weight.ref)
            except SessionError as exc:
                return str(exc)

        self._app.push_screen(screen_class("ContextScreen")(load, toggle_pin), callback=self._context_chosen)

    def _context_chosen(self, index: int | None) -> None:
        if index is not None and self._app.agent is not None:
            self._app.run_worker(self.show_message(index), group="navigation")

    async def show_message(self, index: int) -> None:
        """Scroll the conversation to `Agent.messages[index]`, marked (the stored history is shown afresh,
        so positions in the transcript match the messages)."""
        agent = self._app.agent
        assert agent is not None
        messages = list(agent.messages)
        await self._main.conversation.load_history(messages)
        item = await asyncio.to_thread(item_index_for_message, messages, index)
        if item is not None:
            await self._main.conversation.reveal_item(item)

    # ------------------------------------------------------------------ compare

    async def compare_sessions(self) -> None:
        """F3, /compare: the highlighted (or current) session against a second pick, the parent first."""

        agent = self._app.agent
        first = self._selected_session()
        if agent is None or first is None or self._app.db is None:
            return
        nodes = await agent.lineage()
        node = next((n for n in nodes if n.id == first), None)
        name = (node.title or node.preview or first) if node is not None else first
        heading = f"A: {name} ({first}) — choose B"

        def picked(second: str | None) -> None:
            if second:
                self.open_compare(first, second)

        self._app.push_screen(screen_class("SessionPickerScreen")(nodes, first, heading), callback=picked)

    def open_compare(self, left: str, right: str) -> None:

        if self._app.db is not None:
            self._app.push_screen(screen_class("CompareScreen")(self._app.db, left, right))

    # ------------------------------------------------------------------ compression inspector

    async def inspect_compression(self) -> None:
        """F4, /inspect: the compression the highlighted (or current) session's summary comes from."""
        from hermes_tui.core.compression_inspect import compression_at_or_above

        target = self._selected_session()
        if target is None or self._app.db is None:
            return
        child = await compression_at_or_above(self._app.db, target)
        if child is None:
            self._app.notify("No compression in this session's history.", severity="information")
            return
        self.open_inspector(child)

    def open_inspector(self, child_id: str, *, highlight_message_id: int | None = None) -> None:

        if self._app.db is not None:
            screen = screen_class("CompressionInspectorScreen")(
                self._app.db, child_id, highlight_message_id=highlight_message_id
            )
            self._app.push_screen(screen, callback=self._reinject)

    def _reinject(self, note: str | None) -> None:
        """Send the inspector's quoted note as a user turn (or put it in the prompt when busy)."""
        if not note or self._app.agent is None:
            return
        if self._turns.refuse_if_busy():
            self._main.prompt.set_text(note)
            return
        self._turns.start_turn(note)
