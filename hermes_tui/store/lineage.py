"""Lineage lookups: compression tips, resume resolution, id/prefix/title resolution, the tree.

Owns `resolve_session(query)`, the one resolution used by every command that names a session
(/resume, /compare, /inspect, `--resume`, `-c TITLE`, `export`, `replay`): exact id -> unique id
prefix or shown 6-hex suffix -> title (latest "#N") (`session_refs`) -> compression tip -> first
descendant with messages (#15000). Also `lineage_tree()` for the UI's tree and `lineage_chain()`/`lineage_root()`.
"""

from __future__ import annotations

import sqlite3
from operator import itemgetter
from typing import Any

from hermes_tui.store.base import escape_like
from hermes_tui.store.codec import clipped_content_sql, not_summary_sql, preview_of
from hermes_tui.store.connection import tuples
from hermes_tui.store.edges import EdgeRecord, read_edge_record, read_edge_records
from hermes_tui.store.lineage_queries import LazyGraph, ancestors, chain_up, compression_tip, edge_kind
from hermes_tui.store.models import EDGE_ROOT, LineageNode
from hermes_tui.store.session_refs import match_reference
from hermes_tui.store.titles import TitlesMixin

RESUME_MAX_DEPTH = 32
_QUOTES_AND_BRACKETS = "\"'`[]<>() \t"

# Every session with what its node shows. The session columns come from our covering index
# (schema.LINEAGE_INDEX), walked in id order: the order of `idx_messages_session`, which both
# per-session lookups then read almost sequentially, mostly from the same leaf page.
_TREE_SQL = """
SELECT s.id, s.parent_session_id, s.title, s.source, s.model, s.started_at, s.ended_at, s.end_reason,
       s.message_count, s.archived,
       (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id),
       (SELECT {clipped}
          FROM messages m INDEXED BY idx_messages_session
          WHERE m.session_id = s.id AND m.role = 'user' AND m.active = 1 AND {not_summary}
          ORDER BY m.timestamp, m.id LIMIT 1)
FROM sessions s ORDER BY s.id
""".replace("{clipped}", clipped_content_sql("m.content", 200)).replace("{not_summary}", not_summary_sql("m.content"))
# The same columns for one session (the tree updates its current node with this), and what edge
# kinds need of its parent.
_NODE_SQL = _TREE_SQL.replace("FROM sessions s ORDER BY s.id", "FROM sessions s WHERE s.id = ?")
_PARENT_SQL = "SELECT end_reason, ended_at FROM sessions WHERE id = ?"

# In-place compactions (Hermes's `compacted = 1` rows, schema v21). Each one put a new summary among
# the live rows, so a session was compacted as often as it holds distinct summaries (live or
# compacted: a later compaction keeps the earlier summary in its protected head, as an identical
# copy), less the one a compression continuation starts with. Only sessions with compacted rows
# are counted: one index probe per session finds them.
_COMPACTED_SESSIONS_SQL = (
    "SELECT s.id FROM sessions s WHERE EXISTS (SELECT 1 FROM messages m"
    " WHERE m.session_id = s.id AND m.active = 0 AND m.compacted = 1)"
)
_COMPACTIONS_SQL = """
SELECT COUNT(DISTINCT CASE WHEN NOT ({m_plain}) THEN m.content END),
       (SELECT NOT ({f_plain}) FROM messages f
          WHERE f.session_id = ?1 AND (f.active = 1 OR f.compacted = 1) ORDER BY f.id LIMIT 1)
FROM messages m WHERE m.session_id = ?1 AND (m.active = 1 OR m.compacted = 1)
""".replace("{m_plain}", not_summary_sql("m.content")).replace("{f_plain}", not_summary_sql("f.content"))


def compaction_count(conn: sqlite3.Connection, session_id: str) -> int:
    """How many times the session was compacted in place (0 when it never was)."""
    summaries, starts_with_summary = tuples(conn, _COMPACTIONS_SQL, (session_id,))[0]
    return max(0, int(summaries or 0) - (1 if starts_with_summary else 0))


def _compaction_counts(conn: sqlite3.Connection, session_ids: list[str] | None = None) -> dict[str, int]:
    """In-place compaction counts of the sessions that have compacted rows (all, or of `session_ids`)."""
    if "compacted" not in {row[1] for row in conn.execute("PRAGMA table_info(messages)")}:
        return {}  # a v14 file read as it is: nothing was compacted in place
    if session_ids is None:
        session_ids = [row[0] for row in tuples(conn, _COMPACTED_SESSIONS_SQL)]
    counts = {sid: compaction_count(conn, sid) for sid in session_ids}
    return {sid: n for sid, n in counts.items() if n}


_TURN_ROWS_SQL = """
SELECT m.role, LENGTH(COALESCE(m.content, '')) + LENGTH(COALESCE(m.tool_calls, '')), NOT ({plain}), m.active
FROM messages m WHERE m.session_id = ? AND ({live}) ORDER BY m.id
""".replace("{plain}", not_summary_sql("m.content"))


def _turn_sizes(conn: sqlite3.Connection, session_id: str) -> list[tuple[int, bool]]:
    """See `LineageMixin.lineage_turn_sizes`."""
    has_compacted = "compacted" in {row[1] for row in conn.execute("PRAGMA table_info(messages)")}
    sql = _TURN_ROWS_SQL.replace("{live}", "m.active = 1 OR m.compacted = 1" if has_compacted else "m.active = 1")
    sizes: list[tuple[int, bool]] = []
    for index, sid in enumerate(chain_up(LazyGraph(conn), session_id)):
        rows = tuples(conn, sql, (sid,))
        in_place = any(not active for *_, active in rows)  # compacted rows: compacted in place
        chars, marked, seen_user = 0, index > 0, False  # a continuation starts after a compression
        for role, length, is_summary, _active in rows:
            if is_summary and in_place and seen_user:  # an in-place compaction: the context starts again
                sizes.append(((chars + 3) // 4, marked))
                chars, marked, seen_user = 0, True, False
            elif role == "user" and not is_summary and seen_user:  # the turn before this one ended
                sizes.append(((chars + 3) // 4, marked))
                marked = False
            seen_user = seen_user or (role == "user" and not is_summary)
            chars += int(length or 0)
        if seen_user:
            sizes.append(((chars + 3) // 4, marked))
    return sizes


def _has_compacted_rows(conn: sqlite3.Connection, session_id: str) -> bool:
    """Whether the session was compacted in place (it holds Hermes's compacted rows)."""
    if "compacted" not in {row[1] for row in conn.execute("PRAGMA table_info(messages)")}:
        return False
    sql = "SELECT 1 FROM messages WHERE session_id = ? AND active = 0 AND compacted = 1 LIMIT 1"
    return bool(tuples(conn, sql, (session_id,)))


def clean_reference(query: str) -> str:
    """A session reference with surrounding quotes/brackets removed (`[abc]`, `"my title"`)."""
    return query.strip().strip(_QUOTES_AND_BRACKETS).strip()


class LineageMixin(TitlesMixin):
    async def get_compression_tip(self, session_id: str) -> str:
        """Follow compression continuations (parent ended "compression", child started after) to the end."""
        return await compression_tip(self._conns, session_id)

    async def _has_messages(self, session_id: str) -> bool:
        row = await self._conns.fetchone(
            "SELECT 1 FROM messages WHERE session_id = ? AND active = 1 LIMIT 1", (session_id,)
        )
        return row is not None

    async def resolve_resume_session_id(self, session_id: str) -> str:
        """`session_id`, or its first descendant with messages when it has none (#15000).

        Walks the latest-started child at each step (depth cap 32, loop guard).
        """
        if await self._has_messages(session_id):
            return session_id
        seen = {session_id}
        current = session_id
        for _ in range(RESUME_MAX_DEPTH):
            child = await self._conns.fetchvalue(
                "SELECT id FROM sessions WHERE parent_session_id = ? ORDER BY started_at DESC, id DESC LIMIT 1",
                (current,),
            )
            if child is None or child in seen:
                break
            if await self._has_messages(child):
                return child
            seen.add(child)
            current = child
        return session_id

    async def _prefix_matches(self, prefix: str, limit: int = 2) -> list[str]:
        rows = await self._conns.fetchall(
            "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT ?",
            (escape_like(prefix) + "%", limit),
        )
        return [row[0] for row in rows]

    async def resolve_session_id(self, prefix: str) -> str | None:
        """The exact id, else the id a unique prefix selects; None when unknown or ambiguous."""
        if not prefix:
            return None
        if await self._conns.fetchone("SELECT 1 FROM sessions WHERE id = ?", (prefix,)):
            return prefix
        matches = await self._prefix_matches(prefix)
        return matches[0] if len(matches) == 1 else None

    async def resolve_session(self, query: str, follow_tip: bool = True) -> str:
        """The session a user means by `query`: exact id -> unique id prefix or shown suffix -> title
        (latest "#N" variant) (`session_refs.match_reference`) -> compression tip -> first descendant
        with messages. With `follow_tip=False` the last two steps are skipped (export of one exact
        session). Raises SessionNotFound or AmbiguousSession (which lists the candidates).
        """
        found = await match_reference(self._conns, clean_reference(query or ""), self.resolve_session_by_title)
        if not follow_tip:
            return found
        tip = await self.get_compression_tip(found)
        return await self.resolve_resume_session_id(tip)

    async def lineage_chain(self, session_id: str) -> list[str]:
        """Ids from the lineage root down to `session_id` (any edge kind); [] when unknown."""
        return await ancestors(self._conns, session_id)

    async def lineage_root(self, session_id: str) -> str:
        """The topmost ancestor of `session_id` (itself when it has no parent or is unknown)."""
        chain = await ancestors(self._conns, session_id)
        return chain[0] if chain else session_id

    async def get_child_sessions(self, session_id: str) -> list[dict[str, object]]:
        rows = await self._conns.fetchall(
            "SELECT * FROM sessions WHERE parent_session_id = ? ORDER BY started_at, id", (session_id,)
        )
        return [dict(row) for row in rows]

    _tree_cache: tuple[int, list[LineageNode], frozenset[str]] | None = None

    async def lineage_tree(self, include_archived: bool = True) -> list[LineageNode]:
        """Every session as a LineageNode (parent, derived edge kind, last activity, preview), by start.

        Read from scratch in one statement whenever anything was committed since the last call
        (by us or by another process: the reader's `PRAGMA data_version` tells), so it always
        matches the file; otherwise the previous answer is still exact and is returned.
        """
        cached = self._tree_cache

        def work(conn: sqlite3.Connection) -> tuple[int, list[LineageNode], frozenset[str]]:
            # Read before the tree: a commit in between only makes the answer newer than its label.
            version = int(conn.execute("PRAGMA data_version").fetchone()[0])
            if cached is not None and cached[0] == version:
                return cached
            return (version, *_tree_nodes(conn))

        self._tree_cache = await self._conns.read(work)
        _version, nodes, archived = self._tree_cache
        if include_archived or not archived:
            return list(nodes)
        return [node for node in nodes if node.id not in archived]

    async def lineage_node(self, session_id: str) -> LineageNode | None:
        """One session's tree node, as `lineage_tree` would give it; None when there is no such row.

        A few indexed lookups, however many sessions there are: the tree updates the current
        session's node with this after each turn instead of reading every session again.
        """
        return await self._conns.read(lambda conn: _one_node(conn, session_id))

    async def compaction_count(self, session_id: str) -> int:
        """How many times the session was compacted in place (Hermes's compacted rows; 0 when never)."""
        return await self._conns.read(lambda conn: _compaction_counts(conn, [session_id]).get(session_id, 0))

    async def lineage_compressions(self, session_id: str) -> int:
        """Every compression of a session's lineage: the compression edges from the chain's start down
        to it (each rotation made a child) plus every in-place compaction of those sessions."""

        def work(conn: sqlite3.Connection) -> int:
            chain = chain_up(LazyGraph(conn), session_id)
            if not chain:
                return 0
            compacted = [sid for sid in chain if _has_compacted_rows(conn, sid)]
            return len(chain) - 1 + sum(_compaction_counts(conn, compacted).values()) if compacted else len(chain) - 1

        return await self._conns.read(work)

    async def lineage_turn_sizes(self, session_id: str, limit: int = 120) -> list[tuple[int, bool]]:
        """The context's rough size (tokens, Hermes's chars/4) at the end of each turn of a session's
        compression chain, oldest first, the newest `limit`: (size, a compression came just before).

        Nothing per turn is stored by us (messages.token_count stays empty), so the sizes are
        measured from the stored rows: the running length of the conversation, restarting at each
        continuation and at each in-place compaction's summary.
        """
        return await self._conns.read(lambda conn: _turn_sizes(conn, session_id)[-max(1, limit) :])

    async def external_change_version(self) -> int:
        """Changes when another process commits to this file (never for this SessionDB's own writes).

        Compare two calls to know whether anything but us changed the sessions since (the tree
        then reloads); one pragma, whatever the file's size.
        """
        return await self._conns.external_data_version()


def _node(row: tuple[Any, ...], parent_end: tuple[Any, Any] | None, record: EdgeRecord | None) -> LineageNode:
    """A tree node from a `_TREE_SQL` row, its parent's (end_reason, ended_at) — None without a parent
    row — and the child's recorded edge (store/edges.py), used when it names this parent."""
    sid, parent, title, source, model, started, ended, reason, count, archived, newest, first_user = row
    # Types as the v14 columns give them: started_at REAL NOT NULL, the counter INTEGER.
    if record is not None and not record.applies_to(parent):
        record = None
    if parent_end is None:
        parent, edge, record = None, EDGE_ROOT, None
    else:
        edge = edge_kind(True, parent_end[0], parent_end[1], started, record)
    last_active = started if newest is None else newest
    preview = preview_of(first_user) if first_user else ""
    return LineageNode(
        sid,
        parent,
        edge,
        title,
        source,
        model,
        started,
        ended,
        reason,
        count or 0,
        last_active,
        preview,
        record.branch_point if record is not None else None,
        bool(archived),
    )


def _tree_nodes(conn: sqlite3.Connection) -> tuple[list[LineageNode], frozenset[str]]:
    """Every session's node ordered by (started_at, id), and the ids of archived sessions.

    A child's edge is its recorded one (store/edges.py) when it has one, else derived.
    """
    rows = tuples(conn, _TREE_SQL)
    recorded = read_edge_records(conn)
    by_id = {row[0]: row for row in rows}
    rows.sort(key=itemgetter(5, 0))
    nodes: list[LineageNode] = []
    compactions = _compaction_counts(conn)
    for row in rows:
        parent_row = by_id.get(row[1]) if row[1] is not None else None
        end = None if parent_row is None else (parent_row[7], parent_row[6])
        node = _node(row, end, recorded.get(row[0]))
        node.compactions = compactions.get(node.id, 0)
        nodes.append(node)
    return nodes, frozenset(row[0] for row in rows if row[9])


def _one_node(conn: sqlite3.Connection, session_id: str) -> LineageNode | None:
    rows = tuples(conn, _NODE_SQL, (session_id,))
    if not rows:
        return None
    parent = rows[0][1]
    parent_rows = tuples(conn, _PARENT_SQL, (parent,)) if parent is not None else []
    node = _node(rows[0], parent_rows[0] if parent_rows else None, read_edge_record(conn, session_id))
    node.compactions = _compaction_counts(conn, [session_id]).get(session_id, 0)
    return node
