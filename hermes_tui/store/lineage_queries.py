"""Lineage walks shared by the store's parts: ancestors, compression ancestry and tips, edge kinds.

A session's parent is `parent_session_id`. The kind of the edge is derived (reference §2.5, §3):
a child that started at/after its parent ended is a *compression* continuation when the parent
ended "compression" and a *branch* when it ended "branched"; any other child (delegates,
subagents, children started while the parent ran) is "other".
"""

from __future__ import annotations

from hermes_tui.store.connection import StoreConnections
from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION, EDGE_OTHER, EDGE_ROOT

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

_COMPRESSION_ANCESTORS_SQL = f"""
WITH RECURSIVE up(id, depth) AS (
    SELECT ?, 0
    UNION ALL
    SELECT p.id, up.depth + 1
    FROM up JOIN sessions c ON c.id = up.id JOIN sessions p ON p.id = c.parent_session_id
    WHERE p.end_reason = 'compression' AND p.ended_at IS NOT NULL AND c.started_at >= p.ended_at
      AND up.depth < {MAX_LINEAGE_DEPTH}
)
SELECT id FROM up ORDER BY depth
"""

# One hop forward along compression edges: the latest child that started after the parent ended.
_TIP_SQL = f"""
WITH RECURSIVE chain(id, depth) AS (
    SELECT ?, 0
    UNION ALL
    SELECT (SELECT c.id FROM sessions c
            WHERE c.parent_session_id = p.id AND c.started_at >= p.ended_at
            ORDER BY c.started_at DESC, c.id DESC LIMIT 1),
           chain.depth + 1
    FROM chain JOIN sessions p ON p.id = chain.id
    WHERE p.end_reason = 'compression' AND p.ended_at IS NOT NULL AND chain.depth < {MAX_LINEAGE_DEPTH}
)
SELECT id FROM chain WHERE id IS NOT NULL ORDER BY depth
"""


def edge_kind(
    parent_exists: bool, parent_end_reason: str | None, parent_ended_at: float | None, child_started_at: float
) -> str:
    """The kind of edge between a child and its parent (see the module docstring)."""
    if not parent_exists:
        return EDGE_ROOT
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
    rows = await conns.fetchall(_COMPRESSION_ANCESTORS_SQL, (session_id,))
    return list(reversed(_unique_prefix([row[0] for row in rows])))


async def compression_tip(conns: StoreConnections, session_id: str) -> str:
    """The newest continuation of `session_id` along compression edges (itself when none)."""
    rows = await conns.fetchall(_TIP_SQL, (session_id,))
    chain = _unique_prefix([row[0] for row in rows])
    return chain[-1] if chain else session_id


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
