"""Lineage lookups: compression tips, resume resolution, id/prefix/title resolution, the tree.

Owns `resolve_session(query)`, the one resolution used by `/resume` and `--resume`:
exact id -> unique id prefix -> title (latest "#N") -> compression tip -> first descendant with
messages (#15000). Also `lineage_tree()` for the UI's tree and `lineage_chain()`/`lineage_root()`.
"""

from __future__ import annotations

from hermes_tui.store.base import escape_like
from hermes_tui.store.errors import AmbiguousSession, SessionNotFound
from hermes_tui.store.lineage_index import LineageIndex, LineageIndexMixin
from hermes_tui.store.lineage_queries import ancestors, compression_tip
from hermes_tui.store.models import LineageNode
from hermes_tui.store.titles import TitlesMixin

RESUME_MAX_DEPTH = 32
_QUOTES_AND_BRACKETS = "\"'`[]<>() \t"


def clean_reference(query: str) -> str:
    """A session reference with surrounding quotes/brackets removed (`[abc]`, `"my title"`)."""
    return query.strip().strip(_QUOTES_AND_BRACKETS).strip()


class LineageMixin(TitlesMixin, LineageIndexMixin):
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
        """The session a user means by `query` (id, id prefix or title).

        Order: exact id -> unique id prefix -> title (latest "#N" variant) -> compression tip ->
        first descendant with messages. With `follow_tip=False` the last two steps are skipped
        (export of one exact session). Raises SessionNotFound or AmbiguousSession.
        """
        reference = clean_reference(query or "")
        if not reference:
            raise SessionNotFound("no session given")
        found: str | None = None
        ambiguous: list[str] = []
        if await self._conns.fetchone("SELECT 1 FROM sessions WHERE id = ?", (reference,)):
            found = reference
        else:
            matches = await self._prefix_matches(reference, limit=6)
            if len(matches) == 1:
                found = matches[0]
            elif matches:
                ambiguous = matches
        if found is None:
            found = await self.resolve_session_by_title(reference)
        if found is None:
            if ambiguous:
                shown = ", ".join(ambiguous[:5]) + (", ..." if len(ambiguous) > 5 else "")
                raise AmbiguousSession(f"'{reference}' matches several sessions: {shown}")
            raise SessionNotFound(f"no session matches '{reference}'")
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

    _tree_cache: tuple[LineageIndex, int, dict[str, LineageNode], list[str]] | None = None

    async def lineage_tree(self, include_archived: bool = True) -> list[LineageNode]:
        """Every session as a LineageNode (parent, derived edge kind, last activity, preview).

        Nodes are rebuilt only for sessions that changed since the previous call.
        """
        index = await self.lineage_index(with_previews=True)
        cache = self._tree_cache
        if cache is None or cache[0] is not index or cache[1] != index.structure_version:
            index.take_changed()
            nodes = {sid: _node(index, sid) for sid in index.sessions}
            order = sorted(index.sessions, key=lambda sid: (index.sessions[sid].started_at, sid))
            self._tree_cache = cache = (index, index.structure_version, nodes, order)
        else:
            nodes = cache[2]
            for sid in index.take_changed():
                if sid in index.sessions:
                    nodes[sid] = _node(index, sid)
        nodes, order = cache[2], cache[3]
        if include_archived:
            return [nodes[sid] for sid in order]
        return [nodes[sid] for sid in order if not index.sessions[sid].archived]


def _node(index: LineageIndex, session_id: str) -> LineageNode:
    row = index.sessions[session_id]
    return LineageNode(
        id=row.id,
        parent_id=row.parent_id if row.parent_id in index.sessions else None,
        edge=index.edge(row.id),
        title=row.title,
        source=row.source,
        model=row.model,
        started_at=row.started_at,
        ended_at=row.ended_at,
        end_reason=row.end_reason,
        message_count=row.message_count,
        last_active=index.last_active(row.id),
        preview=index.previews.get(row.id, ""),
    )
