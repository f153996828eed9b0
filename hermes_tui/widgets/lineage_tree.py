"""`LineageTree`: every session and how it descends from its parent, as one tree.

Edges are typed and drawn differently: a compression continuation "⇣ #N" (N = its place in the
compression chain, the root being #1), a branch "⑂", anything else (subagent, review fork) "↳".
Each label shows the title (or a preview), the short id, the message count and the relative age;
the current session is marked "●" and highlighted, its ancestors and itself expanded; the newest session of a
compression chain is marked as the lineage tip. Self-review runs are leaves "💾" under their
session (choosing one posts `SessionChosen` with the run's key; the app opens the run's diff).
Built lazily: only roots (capped, with a "… N more" row) and the current path are created up
front; other children are added when a node is expanded.
Enter or a double click on a session posts `SessionChosen` (the app resumes it); a single click
only moves the cursor (the preview follows); Space expands or collapses a node;
+ / - expand / collapse every shown node. The keys of the actions on the highlighted session
(rename, branch, export, copy id, archive, delete, filter, replay) post `ActionRequested`: the app
carries them out (`hermes_tui.ui.tree_actions`). Those keys work only once focus has moved to the
tree (Tab, a click, the filter line closing) and no screen has opened over it since: focus that
merely stayed on the tree while a modal was open never lets a typed letter act. Archived
sessions are hidden (with what is below them) until Shift+A shows them; `set_filter` keeps the
sessions whose title matches and their ancestors (`hermes_tui.widgets.lineage_filter`). A hidden
or filtered tree is rebuilt from what it holds, keeping which rows were expanded and where the
cursor was.
"""

from __future__ import annotations

import bisect
import dataclasses
import time
from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from hermes_tui.store.models import (
    EDGE_BRANCH,
    EDGE_COMPRESSION,
    EDGE_DELEGATE,
    EDGE_OTHER,
    EDGE_RESET,
    EDGE_REVIEW,
    EDGE_ROOT,
    LineageNode,
)
from hermes_tui.text_safety import visible
from hermes_tui.widgets.formatting import cut, format_age, short_session_id
from hermes_tui.widgets.lineage_filter import subtree_ids
from hermes_tui.widgets.lineage_view import LineageEntry, LineageView

TITLE_WIDTH = 28
DEFAULT_ROOT_LIMIT = 100
AGE_REFRESH_SECONDS = 30.0

TOGGLE_STYLE = Style.from_meta({"toggle": True})  # a click on the arrow toggles, as in Tree
EDGE_GLYPHS = {
    EDGE_COMPRESSION: "⇣",
    EDGE_BRANCH: "⑂",
    EDGE_DELEGATE: "⇢",  # a subagent's session, started by a delegation
    EDGE_RESET: "↺",  # a session reset that keeps its place in the chain
    EDGE_OTHER: "↳",
    EDGE_REVIEW: "💾",
}
EDGE_COMPONENTS = {
    EDGE_ROOT: "lineage-tree--root",
    EDGE_COMPRESSION: "lineage-tree--compression",
    EDGE_BRANCH: "lineage-tree--branch",
    EDGE_DELEGATE: "lineage-tree--other",
    EDGE_RESET: "lineage-tree--other",
    EDGE_OTHER: "lineage-tree--other",
    EDGE_REVIEW: "lineage-tree--other",
}


class LineageTree(LineageView):
    """The session lineage: compression chains, branches and other children in one tree."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open that session", show=False),
        Binding("space", "toggle_node", "Expand/collapse", show=False),
        Binding("r", "request('rename')", "Rename", id="tree-rename"),
        Binding("b", "request('branch')", "Branch", id="tree-branch"),
        Binding("e", "request('export')", "Export", id="tree-export"),
        Binding("c", "request('copy_id')", "Copy id", id="tree-copy-id"),
        Binding("a", "request('archive')", "Archive/unarchive", id="tree-archive"),
        Binding("d,delete", "request('delete')", "Delete", id="tree-delete"),
        Binding("slash", "request('filter')", "Filter", id="tree-filter"),
        Binding("p", "request('replay')", "Replay on…", id="tree-replay"),
        Binding("A", "toggle_archived", "Show archived", show=False, id="tree-show-archived"),
        Binding("plus", "expand_all", "Expand all", show=False, id="tree-expand-all"),
        Binding("minus", "collapse_all", "Collapse all", show=False, id="tree-collapse-all"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "lineage-tree--root",
        "lineage-tree--compression",
        "lineage-tree--branch",
        "lineage-tree--other",
        "lineage-tree--current",
        "lineage-tree--tip",
        "lineage-tree--meta",
        "lineage-tree--more",
        "lineage-tree--compacted",
    }

    class SessionChosen(Message):
        """The user picked a session (Enter or a double click on its row)."""

        def __init__(self, session_id: str) -> None:
            super().__init__()
            self.session_id = session_id

    class ActionRequested(Message):
        """A key asked for an action on the highlighted session (`session_id` None: no session row)."""

        def __init__(self, action: str, session_id: str | None) -> None:
            super().__init__()
            self.action = action
            self.session_id = session_id

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        root_limit: int = DEFAULT_ROOT_LIMIT,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__("sessions", name=name, id=id, classes=classes)
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 2
        self.clock = clock
        self.root_limit = max(1, root_limit)
        self._sessions: dict[str, LineageNode] = {}
        self._children: dict[str, list[LineageNode]] = {}
        self._roots: list[LineageNode] = []
        self._root_ids: set[str] = set()
        self._shown_roots = 0
        self._chain_index: dict[str, int] = {}
        self._tips: set[str] = set()
        self._rows_by_session: dict[str, TreeNode[LineageEntry]] = {}
        self.current_id: str | None = None
        self.filter_query = ""
        self.show_archived = False
        self._shown: set[str] | None = None  # the ids shown, None = all (lineage_filter)
        self._listed_roots: list[LineageNode] = []  # the roots shown, newest first
        self.match_count = 0  # sessions the filter matches (its ancestors not counted)
        self.keys_armed = False  # the action keys work: focus came here on purpose, no modal since

    def on_mount(self) -> None:
        self.set_interval(AGE_REFRESH_SECONDS, self._refresh_labels)
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    # ------------------------------------------------------------------ when the action keys work

    def _screen_changed(self, screen: object) -> None:
        if screen is not self.screen:
            self._arm(False)  # a modal opened over the tree: its keys rest until the tree is focused again

    def on_focus(self, event: events.Focus) -> None:
        if not event.from_app_focus:
            self._arm(True)  # focus moved here: Tab, a click, the filter line closing

    def on_blur(self, event: events.Blur) -> None:
        self._arm(False)

    def _arm(self, armed: bool) -> None:
        if armed != self.keys_armed:
            self.keys_armed = armed
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The action keys (r b e c a d / p) act only while the tree was focused on purpose."""
        return self.keys_armed if action == "request" else True

    def _refresh_labels(self) -> None:
        self._invalidate()  # Tree's own cache reset: relative ages are recomputed on render

    # ------------------------------------------------------------------ building

    def set_nodes(self, nodes: Iterable[LineageNode], current_id: str | None) -> None:
        """Rebuild the tree from `nodes`; `current_id` is highlighted and its ancestors expanded."""
        self._sessions = {node.id: node for node in nodes}
        self.current_id = current_id if current_id in self._sessions else None
        children: dict[str, list[LineageNode]] = {}
        roots: list[LineageNode] = []
        for node in self._sessions.values():
            parent = node.parent_id
            if parent and parent in self._sessions and parent != node.id:
                children.setdefault(parent, []).append(node)
            else:
                roots.append(node)
        roots.extend(self._unreachable(roots, children))  # parent cycles: show them as roots
        for siblings in children.values():
            siblings.sort(key=lambda n: (n.started_at, n.id))
        roots.sort(key=lambda n: (n.last_active, n.started_at), reverse=True)
        self._children = children
        self._roots = roots
        self._root_ids = {node.id for node in roots}
        self._chain_index = {}
        self._tips = {
            node.id
            for node in self._sessions.values()
            if node.edge == EDGE_COMPRESSION
            and not any(child.edge == EDGE_COMPRESSION for child in children.get(node.id, ()))
        }
        self._refilter()
        self._build_rows()

    def action_request(self, action: str) -> None:
        """An action key: the app does the work on the highlighted session."""
        session = self.highlighted_session()
        self.post_message(self.ActionRequested(action, session.id if session is not None else None))

    # ------------------------------------------------------------------ incremental updates

    def session(self, session_id: str) -> LineageNode | None:
        """The node the tree holds for a session."""
        return self._sessions.get(session_id)

    def children_of(self, session_id: str) -> list[LineageNode]:
        """Every child the tree holds for a session (shown or not), oldest first."""
        return list(self._children.get(session_id, ()))

    def upsert(self, node: LineageNode) -> None:
        """Add a session, or update what its row shows, without rebuilding the tree.

        A new child joins its parent's children (its row appears if they are built); a new root
        goes where its last activity puts it among the roots; tips and compression numbers follow.
        A root whose activity changed moves up like a rebuild would put it. A changed parent (or a
        parent link to itself) rebuilds the tree from what it holds, without any query.
        """
        old = self._sessions.get(node.id)
        if (old is not None and old.parent_id != node.parent_id) or node.parent_id == node.id:
            self._sessions[node.id] = node
            self.set_nodes(list(self._sessions.values()), self.current_id)
            return
        self._sessions[node.id] = node
        self._chain_index.clear()  # a cache: recomputed along the chain when a label is drawn
        parent = self._sessions.get(node.parent_id or "")
        archived_changed = node.archived != (old.archived if old is not None else False)
        if self._shown is not None or archived_changed:
            self._upsert_and_rebuild(node, parent, is_new=old is None)
            return
        if parent is not None:
            self._place_child(node, parent, is_new=old is None)
        else:
            self._place_root(node, is_new=old is None)
        self._update_tip(node.id)
        self._refresh_row(node.id)
        if parent is not None:
            self._update_tip(parent.id)
            self._refresh_row(parent.id)

    def _upsert_and_rebuild(self, node: LineageNode, parent: LineageNode | None, *, is_new: bool) -> None:
        """Upsert while some sessions are hidden: place the node, then rebuild the rows (layout kept)."""
        if parent is not None:
            siblings = self._children.setdefault(parent.id, [])
            if is_new:
                key = (node.started_at, node.id)
                siblings.insert(bisect.bisect(siblings, key, key=lambda n: (n.started_at, n.id)), node)
            else:
                siblings[:] = [node if sibling.id == node.id else sibling for sibling in siblings]
            self._update_tip(parent.id)
        else:
            self._roots = [root for root in self._roots if root.id != node.id]
            key = lambda n: (-n.last_active, -n.started_at)  # noqa: E731 - newest first, as set_nodes sorts
            self._roots.insert(bisect.bisect(self._roots, key(node), key=key), node)
            self._root_ids.add(node.id)
        self._update_tip(node.id)
        self._refilter()
        self._build_rows(keep_layout=True)

    def remove(self, session_id: str) -> None:
        """Drop a deleted session: its children become roots (as the store leaves them); the rows
        are rebuilt from what the tree holds, keeping which were expanded."""
        node = self._sessions.pop(session_id, None)
        if node is None:
            return
        for child in self._children.pop(session_id, []):
            self._sessions[child.id] = dataclasses.replace(child, parent_id=None, edge=EDGE_ROOT, branch_point=None)
        parent_id = node.parent_id if node.parent_id in self._sessions else None
        if parent_id is not None:
            self._children[parent_id] = [c for c in self._children.get(parent_id, []) if c.id != session_id]
        self._roots = [root for root in self._roots if root.id != session_id]
        self._roots.extend(n for n in self._sessions.values() if n.parent_id is None and n.id not in self._root_ids)
        self._roots.sort(key=lambda n: (n.last_active, n.started_at), reverse=True)
        self._root_ids = {root.id for root in self._roots}
        self._chain_index.clear()
        self._tips.discard(session_id)
        for changed in (parent_id, *(n.id for n in self._roots)):
            if changed is not None:
                self._update_tip(changed)
        if self.current_id == session_id:
            self.current_id = None
        self._refilter()
        self._build_rows(keep_layout=True)

    def set_current(self, session_id: str | None) -> None:
        """Mark `session_id` as the current session: the marker moves, its path is built and the cursor goes there."""
        previous = self.current_id
        self.current_id = session_id if session_id in self._sessions else None
        for changed in (previous, self.current_id):
            if changed is not None:
                self._refresh_row(changed)
        if self.current_id is None:
            return
        root = self._root_of(self.current_id)
        if root not in self._rows_by_session:  # its root sits beyond the "more" row: show it after the others
            shown = sum(1 for row in self.root.children if row.data is not None and row.data.session is not None)
            self._add_session(self.root, self._sessions[root], before=shown)
            self._update_more_row()
        self._reveal_current()

    def _place_child(self, node: LineageNode, parent: LineageNode, *, is_new: bool) -> None:
        siblings = self._children.setdefault(parent.id, [])
        if not is_new:
            siblings[:] = [node if sibling.id == node.id else sibling for sibling in siblings]
            return
        order = (node.started_at, node.id)
        siblings.insert(bisect.bisect(siblings, order, key=lambda n: (n.started_at, n.id)), node)
        parent_row = self._rows_by_session.get(parent.id)
        if parent_row is None:
            return
        parent_row.allow_expand = True
        if parent_row.data is None or not parent_row.data.populated:
            return  # its children are built when it is expanded
        later = [
            row
            for row in parent_row.children
            if row.data is not None
            and row.data.session is not None
            and (row.data.session.started_at, row.data.session.id) > order
        ]
        self._add_session(parent_row, node, before=later[0] if later else None)

    def _place_root(self, node: LineageNode, *, is_new: bool) -> None:
        """Put a root where its activity sorts it: rows for the first `_shown_roots` roots stay in that order."""
        position = None if is_new else next(i for i, root in enumerate(self._roots) if root.id == node.id)
        if position is not None:
            del self._roots[position]
        key = lambda n: (-n.last_active, -n.started_at)  # noqa: E731 - newest first, as set_nodes sorts
        index = bisect.bisect(self._roots, key(node), key=key)
        self._roots.insert(index, node)
        self._root_ids.add(node.id)
        row = self._rows_by_session.get(node.id)
        in_order = position is not None and position < self._shown_roots and row is not None
        if in_order and index == position:
            return  # it stays where it is
        if row is not None:  # it moves: build it again where it belongs now
            self._forget_rows(row)
            row.remove()
            if in_order:
                self._shown_roots -= 1
        if index <= self._shown_roots:
            self._add_session(self.root, node, before=index)
            self._shown_roots += 1
        elif row is not None:  # shown out of order before (the current session's root): stay shown
            self._add_session(self.root, node, before=self._shown_roots)
        self._update_more_row()
        if row is not None and self.current_id is not None and self._root_of(self.current_id) == node.id:
            self.reveal(self.current_id, move_cursor=False)

    def _forget_rows(self, row: TreeNode[LineageEntry]) -> None:
        """Drop the bookkeeping of a row and of every row under it (before removing it)."""
        stack = [row]
        while stack:
            current = stack.pop()
            if current.data is not None and current.data.session is not None:
                self._rows_by_session.pop(current.data.session.id, None)
            stack.extend(current.children)

    def _update_more_row(self) -> None:
        more = [n for n in self.root.children if n.data is not None and n.data.session is None]
        shown_roots = sum(1 for n in self.root.children if n.data is not None and n.data.session is not None)
        hidden = len(self._listed_roots) - shown_roots
        if more and hidden > 0:
            more[0].data.hidden_roots = hidden  # type: ignore[union-attr]
            more[0].refresh()
        elif more:
            more[0].remove()
        elif hidden > 0:
            self.root.add_leaf("", data=LineageEntry(session=None, hidden_roots=hidden))

    def _update_tip(self, session_id: str) -> None:
        node = self._sessions.get(session_id)
        is_tip = (
            node is not None
            and node.edge == EDGE_COMPRESSION
            and not any(child.edge == EDGE_COMPRESSION for child in self._children.get(session_id, ()))
        )
        if is_tip:
            self._tips.add(session_id)
        else:
            self._tips.discard(session_id)

    def _refresh_row(self, session_id: str) -> None:
        row = self._rows_by_session.get(session_id)
        node = self._sessions.get(session_id)
        if row is None or node is None or row.data is None:
            return
        populated = row.data.populated
        row.data = self._entry(node)
        row.data.populated = populated
        row.allow_expand = bool(self._shown_children(session_id))
        row.refresh()

    # ------------------------------------------------------------------ building helpers

    def _unreachable(self, roots: list[LineageNode], children: dict[str, list[LineageNode]]) -> list[LineageNode]:
        """Sessions no root leads to (their parent links form a cycle), oldest first."""
        seen = subtree_ids((root.id for root in roots), children)
        if len(seen) == len(self._sessions):
            return []
        stranded = sorted((n for n in self._sessions.values() if n.id not in seen), key=lambda n: n.started_at)
        promoted: list[LineageNode] = []
        for node in stranded:
            if node.id in seen:
                continue
            promoted.append(node)  # show it as a root; its descendants hang below it
            stack = [node.id]
            while stack:
                session_id = stack.pop()
                if session_id not in seen:
                    seen.add(session_id)
                    stack.extend(child.id for child in children.get(session_id, ()))
        return promoted

    def _path_to_root(self, session_id: str) -> list[str]:
        """[session, its parent, …, the root it is shown under]."""
        path = [session_id]
        while path[-1] not in self._root_ids:
            parent = self._sessions[path[-1]].parent_id
            if parent is None or parent not in self._sessions or parent in path:
                break
            path.append(parent)
        return path

    def _root_of(self, session_id: str) -> str:
        return self._path_to_root(session_id)[-1]

    def chain_index(self, session_id: str) -> int:
        """A session's place in its compression chain: 1 for the start, 2 for the first continuation…"""
        cached = self._chain_index.get(session_id)
        if cached is not None:
            return cached
        path: list[LineageNode] = []
        seen: set[str] = set()
        known = 0  # index of the nearest ancestor already computed
        node = self._sessions.get(session_id)
        while node is not None and node.id not in seen:
            if node.id in self._chain_index:
                known = self._chain_index[node.id]
                break
            seen.add(node.id)
            path.append(node)
            if node.edge != EDGE_COMPRESSION:
                break
            node = self._sessions.get(node.parent_id or "")
            if node is None:
                known = 1  # the chain's start is not loaded: the oldest known link is at least #2
        index = known
        for link in reversed(path):
            index = index + 1 if link.edge == EDGE_COMPRESSION else 1
            self._chain_index[link.id] = index
        return self._chain_index.get(session_id, 1)

    def _entry(self, node: LineageNode) -> LineageEntry:
        return LineageEntry(
            session=node,
            chain_index=self.chain_index(node.id),
            is_tip=node.id in self._tips,
            is_current=node.id == self.current_id,
        )

    def _add_session(
        self,
        parent: TreeNode[LineageEntry],
        node: LineageNode,
        before: int | TreeNode[LineageEntry] | None = None,
    ) -> TreeNode[LineageEntry]:
        has_children = bool(self._shown_children(node.id))
        tree_node = parent.add("", data=self._entry(node), before=before, allow_expand=has_children)
        self._rows_by_session[node.id] = tree_node
        return tree_node

    def _add_roots(self, count: int, must_include: str | None = None) -> None:
        more = [n for n in self.root.children if n.data is not None and n.data.session is None]
        for node in more:
            node.remove()
        start = self._shown_roots
        roots = self._listed_roots
        batch = roots[start : start + count]
        for node in batch:
            if node.id not in self._rows_by_session:
                self._add_session(self.root, node)
        self._shown_roots = start + len(batch)
        if must_include and must_include not in self._rows_by_session:
            self._add_session(self.root, self._sessions[must_include])
        hidden = len(roots) - self._shown_roots
        included = self._sessions.get(must_include or "")
        if included is not None and included in roots and roots.index(included) >= self._shown_roots:
            hidden -= 1  # already shown out of order, as the current session's root
        if hidden > 0:
            self.root.add_leaf("", data=LineageEntry(session=None, hidden_roots=hidden))

    def _populate(self, tree_node: TreeNode[LineageEntry]) -> None:
        entry = tree_node.data
        if entry is None or entry.session is None or entry.populated:
            return
        entry.populated = True
        for child in self._shown_children(entry.session.id):
            if child.id not in self._rows_by_session:
                self._add_session(tree_node, child)

    def _reveal_current(self) -> None:
        """Open the current lineage: its ancestors and the current session itself (its branches and
        compression children shown), the cursor on it; the rest of the tree stays lazy."""
        if self.current_id is None:
            return
        self.reveal(self.current_id)
        row = self._rows_by_session.get(self.current_id)
        if row is not None and self._shown_children(self.current_id):
            self._populate(row)
            row.expand()

    def reveal(self, session_id: str, *, move_cursor: bool = True) -> None:
        """Build and expand the path down to a session (and put the cursor on it)."""
        if session_id not in self._sessions:
            return
        path = self._path_to_root(session_id)
        for ancestor_id in reversed(path[1:]):
            tree_node = self._rows_by_session.get(ancestor_id)
            if tree_node is None:
                return  # its root is not shown (beyond the "more" row)
            self._populate(tree_node)
            tree_node.expand()
        target = self._rows_by_session.get(session_id)
        if target is not None and move_cursor:
            self.call_after_refresh(self._move_to, target)

    def _move_to(self, tree_node: TreeNode[LineageEntry]) -> None:
        self.move_cursor(tree_node)
        self.scroll_to_node(tree_node, animate=False)

    def tree_node_for(self, session_id: str) -> TreeNode[LineageEntry] | None:
        """The tree row of a session, if it has been built."""
        return self._rows_by_session.get(session_id)

    # ------------------------------------------------------------------ events

    async def _on_click(self, event: events.Click) -> None:
        """One click on a session's row only moves the cursor there (the preview follows); a double
        click opens it, as Enter does. The arrow still toggles; the "… more" row still lists more."""
        meta = event.style.meta
        if "line" not in meta or meta.get("toggle", False) or event.chain >= 2:
            return  # Tree's own handler runs: toggle, or select (a double click resumes)
        row = self.get_node_at_line(meta["line"])
        if row is not None and row.data is not None and row.data.session is not None:
            event.prevent_default()  # not Tree's select-on-click
            self.cursor_line = meta["line"]

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[LineageEntry]) -> None:
        self._populate(event.node)

    def on_tree_node_selected(self, event: Tree.NodeSelected[LineageEntry]) -> None:
        event.stop()
        entry = event.node.data
        if entry is None:
            return
        if entry.session is None:
            current_root = self._root_of(self.current_id) if self.current_id else None
            self._add_roots(self.root_limit, must_include=current_root)
            return
        self.post_message(self.SessionChosen(entry.session.id))

    # ------------------------------------------------------------------ rendering

    def _style(self, component: str) -> Style:
        return self.get_component_rich_style(component, partial=True)

    def render_label(self, node: TreeNode[LineageEntry], base_style: Style, style: Style) -> Text:
        entry = node.data
        if entry is None:
            return super().render_label(node, base_style, style)
        label = Text(no_wrap=True)
        if node.allow_expand:
            glyph = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
            label.append(glyph, base_style + TOGGLE_STYLE)
        if entry.session is None:
            label.append(f"… {entry.hidden_roots} more sessions", self._style("lineage-tree--more"))
            label.stylize(style)
            return label
        session = entry.session
        edge_style = self._style(EDGE_COMPONENTS.get(session.edge, "lineage-tree--other"))
        if entry.is_current:
            label.append("● ", self._style("lineage-tree--current"))
        glyph = EDGE_GLYPHS.get(session.edge)
        if glyph:
            suffix = f" #{entry.chain_index}" if session.edge == EDGE_COMPRESSION else ""
            label.append(f"{glyph}{suffix} ", edge_style)
        title = session.title or session.preview or "(untitled)"
        title_style = self._style("lineage-tree--current") if entry.is_current else edge_style
        label.append(cut(visible(title), TITLE_WIDTH), title_style)
        if entry.is_tip:
            label.append(" ◆tip", self._style("lineage-tree--tip"))
        if session.compactions:  # compacted in place: one session id, its older rows kept as compacted
            label.append(f" compacted {session.compactions}×", self._style("lineage-tree--compacted"))
        age = format_age(self.clock() - session.last_active)
        if session.edge == EDGE_REVIEW:
            calls = "tool call" if session.message_count == 1 else "tool calls"
            label.append(f"  {session.message_count} {calls} · {age}", self._style("lineage-tree--meta"))
            label.stylize(style)
            return label
        noun = "msg" if session.message_count == 1 else "msgs"
        archived = "archived · " if session.archived else ""
        label.append(
            f"  {archived}{short_session_id(session.id)} · {session.message_count} {noun} · {age}",
            self._style("lineage-tree--meta"),
        )
        label.stylize(style)
        return label
