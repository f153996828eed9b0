"""What the Sessions tree previews of one session: `SessionDB.session_preview(session_id)`.

One read on the reader's thread, a few indexed lookups whatever the size of the file: the
session row (dates, counters, input/output tokens), its newest message's time, and its first
and last user messages that are not compression summaries (clipped to PREVIEW_CHARS, so a huge
message costs no more than a short one), plus how many compression edges lead up to it and
down from it (its place in its compression chain, recorded or derived as the tree draws it).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from hermes_tui.store.base import StoreBase
from hermes_tui.store.codec import clipped_content_sql, not_summary_sql, preview_of
from hermes_tui.store.connection import tuples
from hermes_tui.store.edges import read_edge_record
from hermes_tui.store.lineage_queries import edge_kind
from hermes_tui.store.models import EDGE_COMPRESSION

PREVIEW_CHARS = 160  # of each user message the preview shows
CHAIN_MAX_HOPS = 100  # as Hermes's tip walk: a damaged file never loops

_ROW_SQL = """
SELECT s.id, s.title, s.started_at, s.ended_at, s.end_reason, s.message_count,
       COALESCE(s.input_tokens, 0), COALESCE(s.output_tokens, 0), s.archived, s.parent_session_id,
       (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id)
FROM sessions s WHERE s.id = ?
"""
_USER_SQL = """
SELECT {clipped} FROM messages m INDEXED BY idx_messages_session
WHERE m.session_id = ? AND m.role = 'user' AND m.active = 1 AND {not_summary}
ORDER BY m.timestamp {order}, m.id {order} LIMIT 1
""".replace("{clipped}", clipped_content_sql("m.content", PREVIEW_CHARS)).replace(
    "{not_summary}", not_summary_sql("m.content")
)
_LINK_SQL = "SELECT parent_session_id, started_at, ended_at, end_reason FROM sessions WHERE id = ?"
_CHILDREN_SQL = "SELECT id, started_at FROM sessions WHERE parent_session_id = ? ORDER BY started_at, id"


@dataclass(frozen=True, slots=True)
class SessionPreview:
    """One session as the tree's preview shows it (texts are raw: the UI makes them visible-safe)."""

    id: str
    title: str | None
    started_at: float
    ended_at: float | None
    end_reason: str | None
    last_active: float
    message_count: int
    input_tokens: int
    output_tokens: int
    archived: bool
    compressions_before: int  # compression edges from its chain's start down to it
    compressions_after: int  # compression continuations below it
    first_user: str
    last_user: str


def _is_compression_edge(conn: sqlite3.Connection, child: str, parent: str, child_started: float) -> bool:
    link = tuples(conn, _LINK_SQL, (parent,))
    if not link:
        return False
    _grand, _started, ended, reason = link[0]
    record = read_edge_record(conn, child)
    if record is not None and not record.applies_to(parent):
        record = None  # it describes an earlier parent: derive, as the tree does
    return edge_kind(True, reason, ended, child_started, record) == EDGE_COMPRESSION


def _compressions_before(conn: sqlite3.Connection, session_id: str) -> int:
    count, seen, current = 0, {session_id}, session_id
    for _ in range(CHAIN_MAX_HOPS):
        link = tuples(conn, _LINK_SQL, (current,))
        if not link or link[0][0] is None or link[0][0] in seen:
            break
        parent, started = link[0][0], link[0][1]
        if not _is_compression_edge(conn, current, parent, started):
            break
        count += 1
        seen.add(parent)
        current = parent
    return count


def _compressions_after(conn: sqlite3.Connection, session_id: str) -> int:
    count, seen, current = 0, {session_id}, session_id
    for _ in range(CHAIN_MAX_HOPS):
        follower = next(
            (
                child
                for child, started in tuples(conn, _CHILDREN_SQL, (current,))
                if child not in seen and _is_compression_edge(conn, child, current, started)
            ),
            None,
        )
        if follower is None:
            break
        count += 1
        seen.add(follower)
        current = follower
    return count


def _preview(conn: sqlite3.Connection, session_id: str) -> SessionPreview | None:
    rows = tuples(conn, _ROW_SQL, (session_id,))
    if not rows:
        return None
    sid, title, started, ended, reason, count, tokens_in, tokens_out, archived, _parent, newest = rows[0]
    first = tuples(conn, _USER_SQL.replace("{order}", "ASC"), (session_id,))
    last = tuples(conn, _USER_SQL.replace("{order}", "DESC"), (session_id,))
    return SessionPreview(
        id=sid,
        title=title,
        started_at=float(started),
        ended_at=None if ended is None else float(ended),
        end_reason=reason,
        last_active=float(newest) if newest is not None else float(started),
        message_count=int(count or 0),
        input_tokens=int(tokens_in),
        output_tokens=int(tokens_out),
        archived=bool(archived),
        compressions_before=_compressions_before(conn, session_id),
        compressions_after=_compressions_after(conn, session_id),
        first_user=preview_of(first[0][0], PREVIEW_CHARS) if first and first[0][0] else "",
        last_user=preview_of(last[0][0], PREVIEW_CHARS) if last and last[0][0] else "",
    )


class PreviewMixin(StoreBase):
    async def session_preview(self, session_id: str) -> SessionPreview | None:
        """What the Sessions tree previews of `session_id`; None when there is no such session."""
        return await self._conns.read(lambda conn: _preview(conn, session_id))
