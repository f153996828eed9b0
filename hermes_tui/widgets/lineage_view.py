"""`LineageView`: which of the Sessions tree's sessions have rows, and building those rows again.

The base of `LineageTree` (which owns the data and the incremental updates): it works out what is
shown (archived sessions hidden unless Shift+A shows them, the filter by title; see
`lineage_filter`), rebuilds the rows from what the tree holds keeping the expanded rows and the
cursor, opens the paths to the filter's matches, expands or collapses every shown node.
`LineageEntry` is what one row holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from hermes_tui.store.models import LineageNode
from hermes_tui.widgets.lineage_filter import matching_sessions, visible_sessions


@dataclass
class LineageEntry:
    """What one tree row shows: a session, or the "… N more" row when `session` is None."""

    session: LineageNode | None
    chain_index: int = 1
    is_tip: bool = False
    is_current: bool = False
    hidden_roots: int = 0
    populated: bool = False


class LineageView(Tree[LineageEntry]):
    """What the tree shows, and building its rows (see the module docstring)."""

    root_limit: int
    current_id: str | None
    filter_query: str
    show_archived: bool
    match_count: int
    _sessions: dict[str, LineageNode]
    _children: dict[str, list[LineageNode]]
    _roots: list[LineageNode]
    _listed_roots: list[LineageNode]
    _shown: set[str] | None
    _shown_roots: int
    _rows_by_session: dict[str, TreeNode[LineageEntry]]

    if TYPE_CHECKING:  # what LineageTree provides

        def _path_to_root(self, session_id: str) -> list[str]: ...
        def _root_of(self, session_id: str) -> str: ...
        def _add_roots(self, count: int, must_include: str | None = None) -> None: ...
        def _populate(self, tree_node: TreeNode[LineageEntry]) -> None: ...
        def _reveal_current(self) -> None: ...
        def reveal(self, session_id: str, *, move_cursor: bool = True) -> None: ...
        def _move_to(self, tree_node: TreeNode[LineageEntry]) -> None: ...

    # ------------------------------------------------------------------ what is shown

    def _refilter(self) -> None:
        """Work out which sessions are shown now (archived hidden, the filter)."""
        self._shown = visible_sessions(
            self._sessions,
            self._children,
            query=self.filter_query,
            show_archived=self.show_archived,
            current_id=self.current_id,
        )
        shown = self._shown
        self._listed_roots = self._roots if shown is None else [root for root in self._roots if root.id in shown]
        self.match_count = len(matching_sessions(self._sessions, self.filter_query, shown))

    def is_shown(self, session_id: str) -> bool:
        return session_id in self._sessions and (self._shown is None or session_id in self._shown)

    def _shown_children(self, session_id: str) -> list[LineageNode]:
        children = self._children.get(session_id, [])
        if self._shown is None:
            return children
        return [child for child in children if child.id in self._shown]

    def _build_rows(self, *, keep_layout: bool = False) -> None:
        """Create the rows again from what the tree holds: shown roots (paged) and the current path;
        with `keep_layout`, the rows that were expanded are expanded again and the cursor stays."""
        expanded: list[str] = []
        cursor_id: str | None = None
        if keep_layout:
            expanded = [sid for sid, row in self._rows_by_session.items() if row.is_expanded]
            entry = self.cursor_node.data if self.cursor_node is not None else None
            cursor_id = entry.session.id if entry is not None and entry.session is not None else None
        self._rows_by_session = {}
        self.clear()
        current_root = self._root_of(self.current_id) if self.current_id else None
        self._shown_roots = 0
        self._add_roots(self.root_limit, must_include=current_root)
        for session_id in sorted(expanded, key=lambda sid: len(self._path_to_root(sid))):
            row = self._rows_by_session.get(session_id)
            if row is not None and self._shown_children(session_id):
                self._populate(row)
                row.expand()
        if self.filter_query:
            self._open_matches()
        if cursor_id is not None and cursor_id in self._rows_by_session:
            self.call_after_refresh(self._move_to, self._rows_by_session[cursor_id])
        elif not self.filter_query:
            self._reveal_current()

    def _open_matches(self) -> None:
        """Expand the paths down to the filter's matches under the shown roots; the cursor to the first."""
        matches = set(matching_sessions(self._sessions, self.filter_query, self._shown))
        for session_id in matches:
            if self._root_of(session_id) in self._rows_by_session:
                self.reveal(session_id, move_cursor=False)
        target = self._first_row(
            lambda row: row.data is not None and row.data.session is not None and row.data.session.id in matches
        )
        target = target or next(iter(self.root.children), None)
        if target is not None:
            self.call_after_refresh(self._move_to, target)

    def set_filter(self, query: str) -> None:
        """Show only the sessions whose title contains `query`, with their ancestors ("" shows all)."""
        if query == self.filter_query:
            return
        self.filter_query = query
        self._refilter()
        self._build_rows(keep_layout=not query)

    def action_toggle_archived(self) -> None:
        """Shift+A: show or hide archived sessions."""
        self.show_archived = not self.show_archived
        self._refilter()
        self._build_rows(keep_layout=True)
        shown = "shown" if self.show_archived else "hidden"
        self.notify(f"Archived sessions {shown} (Shift+A toggles).", timeout=3)

    def _first_row(self, wanted: Callable[[TreeNode[LineageEntry]], bool]) -> TreeNode[LineageEntry] | None:
        """The first built row, top to bottom as drawn (expanded rows only), that is `wanted`."""
        stack = list(reversed(self.root.children))
        while stack:
            row = stack.pop()
            if wanted(row):
                return row
            if row.is_expanded:
                stack.extend(reversed(row.children))
        return None

    def highlighted_session(self) -> LineageNode | None:
        """The session under the cursor (None on the "more" row or an empty tree)."""
        node = self.cursor_node
        entry = node.data if node is not None else None
        return entry.session if entry is not None else None

    def action_expand_all(self) -> None:
        """Expand every shown node under the shown roots (building their rows)."""
        stack = [row for row in self.root.children if row.data is not None and row.data.session is not None]
        while stack:
            row = stack.pop()
            entry = row.data
            assert entry is not None and entry.session is not None
            if not self._shown_children(entry.session.id):
                continue
            self._populate(row)
            if not row.is_expanded:
                row.expand()
            stack.extend(child for child in row.children if child.data is not None)

    def action_collapse_all(self) -> None:
        """Collapse every node; the cursor goes to the top-level row it was under."""
        session = self.highlighted_session()
        top = self._root_of(session.id) if session is not None and session.id in self._sessions else None
        for row in list(self._rows_by_session.values()):
            if row.is_expanded:
                row.collapse()
        target = self._rows_by_session.get(top) if top is not None else None
        if target is not None:
            self.call_after_refresh(self._move_to, target)
