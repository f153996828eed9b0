"""`LineageTree`: every session and how it descends from its parent, as one tree.

Edges are typed and drawn differently: a compression continuation "⇣ #N" (N = its place in the
compression chain, the root being #1), a branch "⑂", anything else (subagent, review fork) "↳".
Each label shows the title (or a preview), the short id, the message count and the relative age;
the current session is marked "●" and highlighted, its ancestors expanded; the newest session of a
compression chain is marked as the lineage tip. Self-review runs are leaves "💾" under their
session (choosing one posts `SessionChosen` with the run's key; the app opens the run's diff).
Built lazily: only roots (capped, with a "… N more" row) and the current path are created up
front; other children are added when a node is expanded.
Enter on a session posts `SessionChosen` (the app resumes it); Space expands or collapses a node.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION, EDGE_OTHER, EDGE_REVIEW, EDGE_ROOT, LineageNode
from hermes_tui.text_safety import visible
from hermes_tui.widgets.formatting import cut, format_age, short_session_id

TITLE_WIDTH = 28
DEFAULT_ROOT_LIMIT = 100
AGE_REFRESH_SECONDS = 30.0

TOGGLE_STYLE = Style.from_meta({"toggle": True})  # a click on the arrow toggles, as in Tree
EDGE_GLYPHS = {EDGE_COMPRESSION: "⇣", EDGE_BRANCH: "⑂", EDGE_OTHER: "↳", EDGE_REVIEW: "💾"}
EDGE_COMPONENTS = {
    EDGE_ROOT: "lineage-tree--root",
    EDGE_COMPRESSION: "lineage-tree--compression",
    EDGE_BRANCH: "lineage-tree--branch",
    EDGE_OTHER: "lineage-tree--other",
    EDGE_REVIEW: "lineage-tree--other",
}


@dataclass
class LineageEntry:
    """What one tree row shows: a session, or the "… N more" row when `session` is None."""

    session: LineageNode | None
    chain_index: int = 1
    is_tip: bool = False
    is_current: bool = False
    hidden_roots: int = 0
    populated: bool = False


class LineageTree(Tree[LineageEntry]):
    """The session lineage: compression chains, branches and other children in one tree."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open that session", show=False),
        Binding("space", "toggle_node", "Expand/collapse", show=False),
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
    }

    class SessionChosen(Message):
        """The user picked a session (Enter or click on its row)."""

        def __init__(self, session_id: str) -> None:
            super().__init__()
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

    def on_mount(self) -> None:
        self.set_interval(AGE_REFRESH_SECONDS, self._refresh_labels)

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
        self._rows_by_session = {}
        self.clear()
        current_root = self._root_of(self.current_id) if self.current_id else None
        self._shown_roots = 0
        self._add_roots(self.root_limit, must_include=current_root)
        self._reveal_current()

    def _unreachable(self, roots: list[LineageNode], children: dict[str, list[LineageNode]]) -> list[LineageNode]:
        """Sessions no root leads to (their parent links form a cycle), oldest first."""
        seen: set[str] = set()
        stack = [root.id for root in roots]
        while stack:
            session_id = stack.pop()
            if session_id in seen:
                continue
            seen.add(session_id)
            stack.extend(child.id for child in children.get(session_id, ()))
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

    def _add_session(self, parent: TreeNode[LineageEntry], node: LineageNode) -> TreeNode[LineageEntry]:
        has_children = bool(self._children.get(node.id))
        tree_node = parent.add("", data=self._entry(node), allow_expand=has_children)
        self._rows_by_session[node.id] = tree_node
        return tree_node

    def _add_roots(self, count: int, must_include: str | None = None) -> None:
        more = [n for n in self.root.children if n.data is not None and n.data.session is None]
        for node in more:
            node.remove()
        start = self._shown_roots
        batch = self._roots[start : start + count]
        for node in batch:
            if node.id not in self._rows_by_session:
                self._add_session(self.root, node)
        self._shown_roots = start + len(batch)
        if must_include and must_include not in self._rows_by_session:
            self._add_session(self.root, self._sessions[must_include])
        hidden = len(self._roots) - self._shown_roots
        if must_include and self._roots.index(self._sessions[must_include]) >= self._shown_roots:
            hidden -= 1  # already shown out of order, as the current session's root
        if hidden > 0:
            self.root.add_leaf("", data=LineageEntry(session=None, hidden_roots=hidden))

    def _populate(self, tree_node: TreeNode[LineageEntry]) -> None:
        entry = tree_node.data
        if entry is None or entry.session is None or entry.populated:
            return
        entry.populated = True
        for child in self._children.get(entry.session.id, ()):
            if child.id not in self._rows_by_session:
                self._add_session(tree_node, child)

    def _reveal_current(self) -> None:
        if self.current_id is not None:
            self.reveal(self.current_id)

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
        age = format_age(self.clock() - session.last_active)
        if session.edge == EDGE_REVIEW:
            calls = "tool call" if session.message_count == 1 else "tool calls"
            label.append(f"  {session.message_count} {calls} · {age}", self._style("lineage-tree--meta"))
            label.stylize(style)
            return label
        noun = "msg" if session.message_count == 1 else "msgs"
        label.append(
            f"  {short_session_id(session.id)} · {session.message_count} {noun} · {age}",
            self._style("lineage-tree--meta"),
        )
        label.stylize(style)
        return label
