"""`NavigationMixin`: the HermesApp half that finds, opens, compares and inspects sessions.

Owns the flows behind the search screen (Ctrl+F, /search, the palette), comparing two sessions
(F3, /compare: the Sessions tree's highlighted session, or the current one, plus a second pick
whose first choice is the parent), the compression inspector (F4, /inspect: the compression the
highlighted or current session's summary comes from) and its re-injection (a quoted user note,
sent as a normal turn), jumping to a session from the palette, the `[keymap]` table and the
persisted theme.

Opening a search hit: the hit's session is resumed (`agent.resume`); when its history arrives
(`HistoryReplaced`) the hit is found by row id — or, for a copy a branch or a compression carried,
by its text — and the conversation shows it marked, however far back (`reveal_item`). A message a
compression summarised away is not in the continuing session: the inspector opens on it instead.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_tui.keymap_config import keymap_problems, usable_keymap
from hermes_tui.transcript_locate import item_index_for_message, message_index_for_id, message_index_for_text
from hermes_tui.ui_state import save_theme, saved_theme

if TYPE_CHECKING:
    from textual.theme import Theme

    from hermes_tui.core.agent import Agent
    from hermes_tui.core.commands import Intent
    from hermes_tui.screens.main import MainScreen
    from hermes_tui.screens.search import SearchChoice
    from hermes_tui.store.db import SessionDB

BUSY = "Busy — press Ctrl-C to interrupt first, then try again."


@dataclass
class PendingReveal:
    """A search hit waiting for its session's history to reach the conversation."""

    choice: SearchChoice


class NavigationMixin:
    """Mixed into HermesApp (which provides agent, db, main, workers and `_start_turn`)."""

    agent: Agent | None
    db: SessionDB | None
    applied_keymap: dict[str, str]
    _pending_reveal: PendingReveal | None = None

    if TYPE_CHECKING:  # what HermesApp provides

        @property
        def main(self) -> MainScreen: ...
        @property
        def turn_running(self) -> bool: ...
        @property
        def command_running(self) -> bool: ...
        def _start_turn(self, text: str) -> None: ...

        turns: Any

        async def refresh_lineage(self) -> None: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...
        def push_screen(self, screen: Any, callback: Any = None) -> Any: ...
        def run_worker(self, work: Any, **kwargs: Any) -> Any: ...
        def set_keymap(self, keymap: dict[str, str]) -> None: ...

    # ------------------------------------------------------------------ keys and looks

    def _apply_keymap(self, keymap: dict[str, str]) -> None:
        """Use the `[keymap]` table (the CLI refused a bad one; here bad entries are skipped, said once)."""
        problems = keymap_problems(keymap)
        self.applied_keymap = usable_keymap(keymap)  # what the help screen shows
        self.set_keymap(self.applied_keymap)
        if problems:
            self.notify(problems[0], severity="warning")

    def _restore_theme(self, home_root: Any) -> None:
        """The theme chosen last time (if Textual still has it); every later choice is saved."""
        self._theme_home = home_root
        theme = saved_theme(home_root)
        if theme and theme in self.available_themes:  # type: ignore[attr-defined]
            self.theme = theme  # type: ignore[attr-defined]
        self.theme_changed_signal.subscribe(self, self._remember_theme)  # type: ignore[attr-defined]

    def _remember_theme(self, theme: Theme) -> None:
        error = save_theme(self._theme_home, theme.name)
        if error:
            self.notify(error, severity="warning")

    # ------------------------------------------------------------------ helpers

    def _busy(self) -> bool:
        if self.turn_running or self.command_running:
            self.notify(BUSY, severity="warning")
            return True
        return False

    def _selected_session(self) -> str | None:
        """The Sessions tree's highlighted session when the tree has focus, else the current session."""
        if self.agent is None:
            return None
        tree = self.main.lineage
        node = tree.cursor_node
        entry = node.data if node is not None else None
        session = entry.session if entry is not None else None
        if tree.has_focus and session is not None and not session.id.startswith("review:"):
            return session.id
        return self.agent.session_id

    def open_command_screen(self, intent: Intent) -> None:
        """A slash command asked for a screen (/search, /compare, /inspect): the screen reads the store."""
        from hermes_tui.core.commands import OpenCompare, OpenInspector, OpenSearch

        match intent:
            case OpenSearch(query=query):
                self.action_open_search(query)
            case OpenCompare(left=left, right=str() as right):
                self.open_compare(left, right)
            case OpenCompare():  # the other side is to be chosen (the highlighted or current one is A)
                self.run_worker(self.action_compare_sessions(), group="navigation")
            case OpenInspector(child_id=child_id):
                self.open_inspector(child_id)

    # ------------------------------------------------------------------ search

    def action_open_search(self, query: str = "") -> None:
        """Ctrl+F, /search, the palette: the search screen."""
        from hermes_tui.screens.search import SearchScreen

        if self.db is None:
            self.notify("Search needs the session database, which is not open yet.", severity="warning")
            return
        self.push_screen(SearchScreen(self.db, query), callback=self._search_chosen)

    def _search_chosen(self, choice: SearchChoice | None) -> None:
        if choice is not None:
            self.open_at_message(choice)

    def open_session(self, session_id: str) -> None:
        """Resume `session_id` (the palette's session jump; the same as Enter in the Sessions tree)."""
        if self.agent is None or session_id == self.agent.session_id or self._busy():
            return
        self.turns.run_command(f"/resume {session_id}")

    def open_at_message(self, choice: SearchChoice) -> None:
        """Open the chosen hit's session in the conversation, scrolled to the hit, marked."""
        if self.agent is None or self._busy():
            return
        self.turns.run_as_command(self._open_at_message(choice))

    async def _open_at_message(self, choice: SearchChoice) -> None:
        from hermes_tui.core.session.live import SessionError

        agent = self.agent
        assert agent is not None
        before = agent.session_id
        if choice.session_id != before:
            self._pending_reveal = PendingReveal(choice)
            try:
                await agent.resume(choice.session_id)
            except SessionError as exc:
                self._pending_reveal = None
                self.notify(str(exc), severity="error")
                return
            await self.refresh_lineage()
            if agent.session_id != before:
                return  # the history is on its way: `reveal_pending` takes it from there
            self._pending_reveal = None  # resuming led back here (a compressed ancestor's tip)
        # The live transcript also holds notices and this run's rows: show the stored history afresh,
        # so positions in it match the messages.
        await self.main.conversation.load_history(list(agent.messages))
        await self._reveal(list(agent.messages), choice)

    def reveal_pending(self, messages: list[dict[str, Any]]) -> None:
        """A history reached the conversation: mark the search hit waiting for it, if any."""
        pending, self._pending_reveal = self._pending_reveal, None
        if pending is not None:
            self.run_worker(self._reveal(messages, pending.choice), group="navigation")

    async def _reveal(self, messages: list[dict[str, Any]], choice: SearchChoice) -> None:
        index = message_index_for_id(messages, choice.message_id)
        if index is None:
            index = message_index_for_text(messages, choice.role, choice.text)
        if index is None:
            await self._show_summarised(choice)
            return
        item = await asyncio.to_thread(item_index_for_message, messages, index)
        if item is not None:
            await self.main.conversation.reveal_item(item)

    async def _show_summarised(self, choice: SearchChoice) -> None:
        """The hit is not in the live history: a compression summarised it. Show it in the inspector."""
        agent, db = self.agent, self.db
        if agent is None or db is None:
            return
        chain = await db.lineage_chain(agent.session_id)
        if choice.session_id in chain and chain.index(choice.session_id) + 1 < len(chain):
            child = chain[chain.index(choice.session_id) + 1]
            self.main.conversation.add_notice(
                "info", f"That message was summarised when session {choice.session_id} was compressed."
            )
            self.open_inspector(child, highlight_message_id=choice.message_id)
        else:
            self.notify("That message is no longer in this session's history.", severity="warning")

    # ------------------------------------------------------------------ compare

    async def action_compare_sessions(self) -> None:
        """F3, /compare: the highlighted (or current) session against a second pick, the parent first."""
        from hermes_tui.screens.session_picker import SessionPickerScreen

        agent = self.agent
        first = self._selected_session()
        if agent is None or first is None or self.db is None:
            return
        nodes = await agent.lineage()
        node = next((n for n in nodes if n.id == first), None)
        name = (node.title or node.preview or first) if node is not None else first
        heading = f"A: {name} ({first}) — choose B"

        def picked(second: str | None) -> None:
            if second:
                self.open_compare(first, second)

        self.push_screen(SessionPickerScreen(nodes, first, heading), callback=picked)

    def open_compare(self, left: str, right: str) -> None:
        from hermes_tui.screens.compare import CompareScreen

        if self.db is not None:
            self.push_screen(CompareScreen(self.db, left, right))

    # ------------------------------------------------------------------ compression inspector

    async def action_inspect_compression(self) -> None:
        """F4, /inspect: the compression the highlighted (or current) session's summary comes from."""
        from hermes_tui.core.compression_inspect import compression_at_or_above

        target = self._selected_session()
        if target is None or self.db is None:
            return
        child = await compression_at_or_above(self.db, target)
        if child is None:
            self.notify("No compression in this session's history.", severity="information")
            return
        self.open_inspector(child)

    def open_inspector(self, child_id: str, *, highlight_message_id: int | None = None) -> None:
        from hermes_tui.screens.compression_inspector import CompressionInspectorScreen

        if self.db is not None:
            screen = CompressionInspectorScreen(self.db, child_id, highlight_message_id=highlight_message_id)
            self.push_screen(screen, callback=self._reinject)

    def _reinject(self, note: str | None) -> None:
        """Send the inspector's quoted note as a user turn (or put it in the prompt when busy)."""
        if not note or self.agent is None:
            return
        if self.turn_running or self.command_running:
            self.main.prompt.set_text(note)
            self.notify("Busy — the note is in the prompt; send it when the turn ends.", severity="warning")
            return
        self._start_turn(note)
