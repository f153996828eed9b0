"""Lineage walks shared by the store's parts: ancestors, compression ancestry and tips, edge kinds.

A session's parent is `parent_session_id`. The kind of the edge is the one recorded when the child
was made (`state_meta["edge:<id>"]`, or newer Hermes's model_config marker; store/edges.py), so
resuming the parent never changes it. For a child without either (one older Hermes made) it is
derived (reference §2.5, §3): a child that started at/after its parent ended is a *compression*
continuation when the parent ended
"compression" and a *branch* when it ended "branched"; any other child (delegates, subagents,
children started while the parent ran) is "other". A session's compression *tip* follows, up to
MAX_LINEAGE_DEPTH hops, the latest-started continuation at each step; a child made as a branch,
delegation, reset or review (recorded, or marked in Hermes's model_config) is never one, so a
newer sibling of that kind cannot hide the chain's real tip.

`SessionGraph` answers these questions inside one read (on the reader's own thread), for the
async walks here and for the listing: `LazyGraph` reads the few sessions a page needs by id,
`LoadedGraph` holds every session; `edge_of`, `tip_of`, `tipped_by` and `root_of` work on either.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from hermes_tui.store.connection import StoreConnections
from hermes_tui.store.edges import EdgeRecord, read_edge_record
from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION, EDGE_OTHER, EDGE_ROOT, SIDE_EDGES
from hermes_tui.store.schema import LINEAGE_INDEX

MAX_LINEAGE_DEPTH = 100

_ANCESTORS_SQL = f"""
WITH RECURSIVE up(id, parent, depth) AS (
    SELECT id, parent_session_id, 0 FROM sessions WHERE id = ?
    UNION ALL
    SELECT s.id, s.parent_session_id, up.depth + 1
    FROM up JOIN sessions s ON s.id = up.parent
    WHERE up.depth < {MAX_LINEAGE_DEPTH}
)
SELECT id FROM up ORDER BY depth
"""


def edge_kind(
    parent_exists: bool,
    parent_end_reason: str | None,
    parent_ended_at: float | None,
    child_started_at: float,
    recorded: EdgeRecord | None = None,
) -> str:
    """The kind of edge between a child and its parent: the recorded one, else derived (module docstring).

    `recorded` must be the child's record for this parent (see `EdgeRecord.applies_to`).
    """
    if not parent_exists:
        return EDGE_ROOT
    if recorded is not None:
        return recorded.kind
    after_end = parent_ended_at is not None and child_started_at >= parent_ended_at
    if after_end and parent_end_reason == "compression":
        return EDGE_COMPRESSION
    if after_end and parent_end_reason == "branched":
        return EDGE_BRANCH
    return EDGE_OTHER


def _unique_prefix(ids: list[str]) -> list[str]:
    """`ids` up to the first repeat (a parent cycle)."""
    seen: set[str] = set()
    result: list[str] = []
    for sid in ids:
        if sid in seen:
            break
        seen.add(sid)
        result.append(sid)
    return result


async def ancestors(conns: StoreConnections, session_id: str) -> list[str]:
    """Root..session_id along parent links (any edge kind); [] when the session is unknown."""
    rows = await conns.fetchall(_ANCESTORS_SQL, (session_id,))
    return list(reversed(_unique_prefix([row[0] for row in rows])))


async def compression_ancestry(conns: StoreConnections, session_id: str) -> list[str]:
    """Root..session_id following only compression edges upward."""
    return await conns.read(lambda conn: chain_up(LazyGraph(conn), session_id))


async def compression_tip(conns: StoreConnections, session_id: str) -> str:
    """The newest continuation of `session_id` along compression edges (itself when none)."""
    return await conns.read(lambda conn: tip_of(LazyGraph(conn), session_id))


# The topmost ancestor of each listed session: rows (start, root, depth).
ROOTS_SQL = f"""
WITH RECURSIVE up(start, id, parent, depth) AS (
    SELECT id, id, parent_session_id, 0 FROM sessions WHERE id IN ({{marks}})
    UNION ALL
    SELECT up.start, s.id, s.parent_session_id, up.depth + 1
    FROM up JOIN sessions s ON s.id = up.parent
    WHERE up.depth < {MAX_LINEAGE_DEPTH}
)
SELECT start, id, MAX(depth) FROM up GROUP BY start
"""


# --------------------------------------------------------------------------- in-read graph

# The session columns lineage rules read, all in our covering index (schema.LINEAGE_INDEX): reading
# them never walks the overflow pages of a big `system_prompt`.
LINK_COLUMNS = "id, parent_session_id, started_at, ended_at, end_reason, archived, source"

_LINK_BY_ID_SQL = f"SELECT {LINK_COLUMNS} FROM sessions INDEXED BY {LINEAGE_INDEX} WHERE id = ?"
# A file opened read-only may lack our index (one Hermes wrote): then the same lookup by primary key.
_LINK_BY_ID_PLAIN_SQL = f"SELECT {LINK_COLUMNS} FROM sessions WHERE id = ?"
_INDEX_EXISTS_SQL = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?"
_LATER_CHILDREN_SQL = (
    "SELECT id FROM sessions WHERE parent_session_id = ? AND started_at >= ? ORDER BY started_at DESC, id DESC"
)


@dataclass(frozen=True, slots=True)
class SessionLink:
    """What lineage rules need of one session row (`LINK_COLUMNS`)."""

    id: str
    parent_id: str | None
    started_at: float
    ended_at: float | None
    end_reason: str | None
    archived: bool
    source: str

    @classmethod
    def from_row(cls, row: tuple) -> SessionLink:
        """A link from the first seven values of a `LINK_COLUMNS` row."""
        return cls(row[0], row[1], float(row[2] or 0.0), row[3], row[4], bool(row[5]), row[6])

    @property
    def ended_by_compression(self) -> bool:
        return self.end_reason == "compression" and self.ended_at is not None

    def continued_by(self, child: SessionLink) -> bool:
        """Is `child` a compression continuation of this session (it started after this ended so)?"""
        return self.end_reason == "compression" and self.ended_at is not None and child.started_at >= self.ended_at


class SessionGraph:
    """Sessions by id and their compression continuations; tips are memoized per graph."""

    def __init__(self) -> None:
        self.tips: dict[str, str] = {}

    def link(self, session_id: str) -> SessionLink | None:
        raise NotImplementedError

    def recorded_edge(self, session_id: str) -> EdgeRecord | None:
        """The edge recorded when `session_id` was made (store/edges.py), or None."""
        raise NotImplementedError

    def compression_child(self, session_id: str) -> str | None:
        """The latest child that started at/after `session_id` ended with "compression" and is not
        beside the chain (`beside_chain`)."""
        raise NotImplementedError

    def beside_chain(self, child: SessionLink) -> bool:
        """Whether `child` was made as a branch, delegation, reset or review of its parent (recorded
        or marked): such a child is never a compression continuation, however late it started."""
        record = self.recorded_edge(child.id)
        return record is not None and record.applies_to(child.parent_id) and record.kind in SIDE_EDGES

    def continues(self, parent: SessionLink, child: SessionLink) -> bool:
        """Is `child` a compression continuation of `parent`?"""
        return parent.continued_by(child) and not self.beside_chain(child)


class LoadedGraph(SessionGraph):
    """Every session, in memory (the full listing)."""

    def __init__(self, links: Iterable[SessionLink], edges: dict[str, EdgeRecord] | None = None) -> None:
        super().__init__()
        self.edges = edges or {}
        self.links = {link.id: link for link in links}
        self._children: dict[str, list[SessionLink]] = {}
        for link in self.links.values():
            if link.parent_id is not None and link.parent_id in self.links:
                self._children.setdefault(link.parent_id, []).append(link)

    def link(self, session_id: str) -> SessionLink | None:
        return self.links.get(session_id)

    def recorded_edge(self, session_id: str) -> EdgeRecord | None:
        return self.edges.get(session_id)

    def compression_child(self, session_id: str) -> str | None:
        parent = self.links.get(session_id)
        if parent is None or not parent.ended_by_compression:
            return None
        after = [child for child in self._children.get(session_id, ()) if self.continues(parent, child)]
        return max(after, key=lambda child: (child.started_at, child.id)).id if after else None


class LazyGraph(SessionGraph):
    """Sessions read by id on `conn` as the walk asks for them, each at most once (a page)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__()
        self._cursor = conn.cursor()
        self._cursor.row_factory = None
        has_index = self._cursor.execute(_INDEX_EXISTS_SQL, (LINEAGE_INDEX,)).fetchone() is not None
        self._link_sql = _LINK_BY_ID_SQL if has_index else _LINK_BY_ID_PLAIN_SQL
        self._links: dict[str, SessionLink | None] = {}
        self._edges: dict[str, EdgeRecord | None] = {}
        self._children: dict[str, str | None] = {}

    def link(self, session_id: str) -> SessionLink | None:
        if session_id not in self._links:
            row = self._cursor.execute(self._link_sql, (session_id,)).fetchone()
            self._links[session_id] = SessionLink.from_row(row) if row else None
        return self._links[session_id]

    def recorded_edge(self, session_id: str) -> EdgeRecord | None:
        if session_id not in self._edges:
            self._edges[session_id] = read_edge_record(self._cursor, session_id)
        return self._edges[session_id]

    def compression_child(self, session_id: str) -> str | None:
        if session_id not in self._children:
            parent = self.link(session_id)
            child = None
            if parent is not None and parent.ended_by_compression:
                later = [row[0] for row in self._cursor.execute(_LATER_CHILDREN_SQL, (session_id, parent.ended_at))]
                for child_id in later:  # newest first; nearly always one
                    link = self.link(child_id)
                    if link is not None and self.continues(parent, link):
                        child = child_id
                        break
            self._children[session_id] = child
        return self._children[session_id]


def edge_of(graph: SessionGraph, session_id: str) -> str:
    """The kind of edge from `session_id` to its parent (root when the parent is unknown)."""
    link = graph.link(session_id)
    parent = graph.link(link.parent_id) if link is not None and link.parent_id else None
    if link is None or parent is None:
        return EDGE_ROOT
    recorded = graph.recorded_edge(session_id)
    if recorded is not None and not recorded.applies_to(parent.id):
        recorded = None
    return edge_kind(True, parent.end_reason, parent.ended_at, link.started_at, recorded)


def tip_of(graph: SessionGraph, session_id: str) -> str:
    """The end of the compression chain from `session_id` (at most MAX_LINEAGE_DEPTH hops)."""
    found = graph.tips.get(session_id)
    if found is None:
        current, seen = session_id, {session_id}
        for _ in range(MAX_LINEAGE_DEPTH):
            following = graph.compression_child(current)
            if following is None or following in seen:
                break
            seen.add(following)
            current = following
        found = graph.tips[session_id] = current
    return found


def tipped_by(graph: SessionGraph, session_id: str) -> list[str]:
    """Every session whose compression tip is `session_id`, itself included when it is its own tip.

    They are its compression ancestors (at most MAX_LINEAGE_DEPTH hops up); each is checked with
    the forward rule, so a parent whose latest continuation is another child is left out.
    """
    found: list[str] = []
    current, seen = session_id, {session_id}
    for _ in range(MAX_LINEAGE_DEPTH + 1):
        if tip_of(graph, current) == session_id:
            found.append(current)
        link = graph.link(current)
        parent = graph.link(link.parent_id) if link is not None and link.parent_id else None
        if link is None or parent is None or parent.id in seen or not graph.continues(parent, link):
            break
        seen.add(parent.id)
        current = parent.id
    return found


def chain_up(graph: SessionGraph, session_id: str) -> list[str]:
    """Root..session_id along compression edges upward (at most MAX_LINEAGE_DEPTH hops)."""
    chain, seen = [session_id], {session_id}
    for _ in range(MAX_LINEAGE_DEPTH):
        link = graph.link(chain[-1])
        parent = graph.link(link.parent_id) if link is not None and link.parent_id else None
        if link is None or parent is None or parent.id in seen or not graph.continues(parent, link):
            break
        seen.add(parent.id)
        chain.append(parent.id)
    return list(reversed(chain))


def root_of(graph: SessionGraph, session_id: str) -> str:
    """The topmost known ancestor of `session_id` along parent links (any edge kind)."""
    current, seen = session_id, {session_id}
    for _ in range(MAX_LINEAGE_DEPTH):
        link = graph.link(current)
        parent = link.parent_id if link is not None else None
        if parent is None or parent in seen or graph.link(parent) is None:
            break
        seen.add(parent)
        current = parent
    return current
