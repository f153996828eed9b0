"""Which sessions the Sessions tree shows: archived ones hidden, and the filter-as-you-type by title.

`visible_sessions(...)` answers with a set of ids, or None when every session is shown (the
common case: no filter and nothing archived, so the tree does no per-row test at all).
An archived session is hidden with everything below it unless archived sessions are shown; the
filter keeps the sessions whose label (the title, else the first-message preview the row shows)
contains the query, compared case-folded and after `visible()` (so CJK and hostile titles match
what the user sees), plus their ancestors so each match keeps its place in the tree. The current
session and its ancestors are always shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hermes_tui.store.models import LineageNode
from hermes_tui.text_safety import visible


def label_text(node: LineageNode) -> str:
    """The name a row shows for a session: its title, else its first-message preview."""
    return visible(node.title or node.preview or "")


def normalise_query(query: str) -> str:
    """A filter query as compared: visible characters, outer spaces dropped, case-folded."""
    return visible(query).strip().casefold()


def _with_ancestors(ids: Iterable[str], sessions: Mapping[str, LineageNode], into: set[str]) -> None:
    for session_id in ids:
        current: str | None = session_id
        while current is not None and current in sessions and current not in into:
            into.add(current)
            current = sessions[current].parent_id


def subtree_ids(start: Iterable[str], children: Mapping[str, list[LineageNode]]) -> set[str]:
    """The ids of `start` and of every session below them (safe on parent links that form a cycle)."""
    reached: set[str] = set()
    stack = list(start)
    while stack:
        session_id = stack.pop()
        if session_id in reached:
            continue
        reached.add(session_id)
        stack.extend(child.id for child in children.get(session_id, ()))
    return reached


def _archived_subtrees(sessions: Mapping[str, LineageNode], children: Mapping[str, list[LineageNode]]) -> set[str]:
    return subtree_ids((node.id for node in sessions.values() if node.archived), children)


def visible_sessions(
    sessions: Mapping[str, LineageNode],
    children: Mapping[str, list[LineageNode]],
    *,
    query: str,
    show_archived: bool,
    current_id: str | None,
) -> set[str] | None:
    """The ids the tree shows, or None for all of them (module docstring)."""
    needle = normalise_query(query)
    hidden = set() if show_archived else _archived_subtrees(sessions, children)
    if not needle and not hidden:
        return None
    keep: set[str] = set()
    if current_id is not None:
        _with_ancestors([current_id], sessions, keep)
    if needle:
        matches = (
            node.id for node in sessions.values() if node.id not in hidden and needle in label_text(node).casefold()
        )
        shown: set[str] = set()
        _with_ancestors(matches, sessions, shown)
        return shown | keep
    return {session_id for session_id in sessions if session_id not in hidden} | keep


def matching_sessions(sessions: Mapping[str, LineageNode], query: str, shown: set[str] | None) -> list[str]:
    """The shown sessions whose label contains `query` (the filter's matches, not their ancestors)."""
    needle = normalise_query(query)
    if not needle:
        return []
    return [
        node.id
        for node in sessions.values()
        if (shown is None or node.id in shown) and needle in label_text(node).casefold()
    ]
