"""An in-memory copy of the lineage structure, kept fresh cheaply, for listings and the tree.

Why: ordering sessions by their lineage tip's last activity needs every session's parent, end
reason and last message time. Computing that in SQL costs tens of milliseconds at 10,000
sessions (more when big system prompts push the columns onto overflow pages) — every time.
So the first use reads it once, and later uses only catch up:
- sessions our own writes touched are re-read by id (the write path marks them dirty);
- when another connection (another process) committed, `PRAGMA data_version` on our writer
  changes: sessions with messages newer than the last seen id, sessions with a newer rowid and
  their parents are re-read; the whole skeleton is re-read when the last full load is older
  than FULL_RELOAD_AFTER_S (to pick up the rare change that touches neither, e.g. archiving).
Ordering remains exact: last activity is the newest message timestamp, else `started_at`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from hermes_tui.store.base import StoreBase
from hermes_tui.store.codec import clipped_content_sql, preview_of
from hermes_tui.store.connection import placeholders
from hermes_tui.store.lineage_queries import MAX_LINEAGE_DEPTH, edge_kind

_SKELETON_COLUMNS = (
    "rowid, id, parent_session_id, source, model, title, started_at, ended_at, end_reason, message_count, archived"
)
FULL_RELOAD_AFTER_S = 60.0
_ACTIVITY_SQL = "SELECT s.id, (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id) FROM sessions s"
_PREVIEW_SQL = """
SELECT s.id,
       (SELECT {clipped}
          FROM messages m WHERE m.session_id = s.id AND m.role = 'user' AND m.active = 1
          ORDER BY m.timestamp, m.id LIMIT 1)
FROM sessions s {where}
""".replace("{clipped}", clipped_content_sql("m.content", 200))
_BATCH = 500


@dataclass(slots=True)
class SessionSkeleton:
    id: str
    parent_id: str | None
    source: str
    model: str | None
    title: str | None
    started_at: float
    ended_at: float | None
    end_reason: str | None
    message_count: int
    archived: bool


def _structure(row: SessionSkeleton | None) -> tuple[object, ...] | None:
    """The fields edges and tips depend on."""
    return None if row is None else (row.parent_id, row.started_at, row.ended_at, row.end_reason)


@dataclass
class LineageIndex:
    """Sessions, their children, last activity and previews (see the module docstring).

    Edges, tips and the listed set are derived once per `structure_version`; `take_changed()`
    tells the tree which sessions' nodes to rebuild.
    """

    sessions: dict[str, SessionSkeleton] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)
    activity: dict[str, float] = field(default_factory=dict)
    previews: dict[str, str] = field(default_factory=dict)
    watermark: int = 0  # newest message id read from the database
    max_rowid: int = 0  # newest sessions rowid read
    loaded_at: float = 0.0  # time.monotonic() of the last full load
    caught_up_externally: bool = False  # other connections' changes were folded in since then
    structure_version: int = 0
    version: int = 0  # bumped by every change: keys caches of orderings
    changed: set[str] = field(default_factory=set)
    _derived_version: int = -1
    _edges: dict[str, str] = field(default_factory=dict)
    _tips: dict[str, str] = field(default_factory=dict)
    _listed: list[str] = field(default_factory=list)

    def set_sessions(self, rows: Iterable[SessionSkeleton]) -> None:
        self.sessions = {row.id: row for row in rows}
        self._structure_changed()

    def update_sessions(self, ids: Iterable[str], rows: Iterable[SessionSkeleton]) -> None:
        fresh = {row.id: row for row in rows}
        structural = False
        for sid in ids:
            old = self.sessions.pop(sid, None)
            new = fresh.get(sid)
            structural = structural or _structure(old) != _structure(new)
            self.activity.pop(sid, None)
            self.previews.pop(sid, None)
            self.changed.add(sid)
            if new is not None:
                self.sessions[sid] = new
        self.version += 1
        if structural:
            self._structure_changed()

    def _structure_changed(self) -> None:
        children: dict[str, list[str]] = {}
        for row in self.sessions.values():
            if row.parent_id is not None and row.parent_id in self.sessions:
                children.setdefault(row.parent_id, []).append(row.id)
        for kids in children.values():
            kids.sort(key=lambda sid: (self.sessions[sid].started_at, sid), reverse=True)
        self.children = children
        self.structure_version += 1
        self.version += 1

    def take_changed(self) -> set[str]:
        changed, self.changed = self.changed, set()
        return changed

    def _derive(self) -> None:
        if self._derived_version == self.structure_version:
            return
        self._edges = {sid: self._edge_of(sid) for sid in self.sessions}
        self._tips = {sid: self._tip_of(sid) for sid in self.sessions}
        self._listed = [sid for sid, edge in self._edges.items() if edge in ("root", "branch")]
        self._derived_version = self.structure_version

    def tips(self) -> dict[str, str]:
        """Every session's compression tip (itself when it has no continuation)."""
        self._derive()
        return self._tips

    def last_active(self, session_id: str) -> float:
        found = self.activity.get(session_id)
        return found if found is not None else self.sessions[session_id].started_at

    def edge(self, session_id: str) -> str:
        self._derive()
        return self._edges[session_id]

    def tip(self, session_id: str) -> str:
        """The end of the compression chain starting at `session_id`."""
        self._derive()
        return self._tips.get(session_id, session_id)

    def listed(self) -> list[str]:
        """Roots and branch children: the sessions listings show (other children are hidden)."""
        self._derive()
        return self._listed

    def _edge_of(self, session_id: str) -> str:
        row = self.sessions[session_id]
        parent = self.sessions.get(row.parent_id) if row.parent_id else None
        if parent is None:
            return edge_kind(False, None, None, row.started_at)
        return edge_kind(True, parent.end_reason, parent.ended_at, row.started_at)

    def compression_child(self, session_id: str) -> str | None:
        """The latest child that continues `session_id` after it ended with "compression"."""
        row = self.sessions.get(session_id)
        if row is None or row.end_reason != "compression" or row.ended_at is None:
            return None
        for child in self.children.get(session_id, ()):
            if self.sessions[child].started_at >= row.ended_at:
                return child
        return None

    def _tip_of(self, session_id: str) -> str:
        current, seen = session_id, {session_id}
        for _ in range(MAX_LINEAGE_DEPTH):
            nxt = self.compression_child(current)
            if nxt is None or nxt in seen:
                break
            seen.add(nxt)
            current = nxt
        return current

    def root(self, session_id: str) -> str:
        current, seen = session_id, {session_id}
        for _ in range(MAX_LINEAGE_DEPTH):
            row = self.sessions.get(current)
            parent = row.parent_id if row else None
            if parent is None or parent not in self.sessions or parent in seen:
                break
            seen.add(parent)
            current = parent
        return current


def _skeleton(row: tuple) -> SessionSkeleton:
    """A skeleton from a `_SKELETON_COLUMNS` row (rowid first)."""
    return SessionSkeleton(
        id=row[1],
        parent_id=row[2],
        source=row[3],
        model=row[4],
        title=row[5],
        started_at=float(row[6] or 0.0),
        ended_at=row[7],
        end_reason=row[8],
        message_count=int(row[9] or 0),
        archived=bool(row[10]),
    )


class LineageIndexMixin(StoreBase):
    _lineage_index: LineageIndex | None = None
    _lineage_index_version: int | None = None
    _lineage_index_lock: asyncio.Lock | None = None

    async def lineage_index(self, with_previews: bool = False) -> LineageIndex:
        """The lineage index, caught up with committed changes (module docstring)."""
        if self._lineage_index_lock is None:
            self._lineage_index_lock = asyncio.Lock()
        async with self._lineage_index_lock:
            conns = self._conns
            version = await conns.external_data_version()
            dirty, everything = conns.take_dirty()
            index = self._lineage_index
            external = version != self._lineage_index_version
            stale = index is not None and time.monotonic() - index.loaded_at > FULL_RELOAD_AFTER_S
            if index is None or everything or (stale and (external or index.caught_up_externally)):
                index = await self._load_index()
            else:
                touched = set(dirty)
                if external:
                    touched |= await self._external_changes(index)
                    index.caught_up_externally = True
                if touched:
                    await self._refresh_sessions(index, sorted(touched))
            self._lineage_index, self._lineage_index_version = index, version
            if with_previews:
                missing = [sid for sid in index.sessions if sid not in index.previews]
                await self._load_previews(index, missing, everything=len(missing) == len(index.sessions))
            return index

    async def _load_index(self) -> LineageIndex:
        rows = await self._conns.fetchall(f"SELECT {_SKELETON_COLUMNS} FROM sessions")
        index = LineageIndex(loaded_at=time.monotonic())
        index.set_sessions(_skeleton(tuple(row)) for row in rows)
        index.max_rowid = max((int(row[0]) for row in rows), default=0)
        for row in await self._conns.fetchall(_ACTIVITY_SQL):
            if row[1] is not None:
                index.activity[row[0]] = float(row[1])
        index.watermark = int(await self._conns.fetchvalue("SELECT COALESCE(MAX(id), 0) FROM messages") or 0)
        return index

    async def _external_changes(self, index: LineageIndex) -> set[str]:
        """Sessions another connection touched: new messages, new sessions and their parents.

        (A change with neither — an archive flag, a deletion — shows at the next full load, at
        most FULL_RELOAD_AFTER_S later; listings read each shown row fresh in any case.)
        """
        touched: set[str] = set()
        for sid, max_id in await self._conns.fetchall(
            # NOT INDEXED: walk the rowid range of new rows, never a whole index for the GROUP BY.
            "SELECT session_id, MAX(id) FROM messages NOT INDEXED WHERE id > ? GROUP BY session_id",
            (index.watermark,),
        ):
            touched.add(sid)
            index.watermark = max(index.watermark, int(max_id))
        for rowid, sid, parent in await self._conns.fetchall(
            "SELECT rowid, id, parent_session_id FROM sessions WHERE rowid > ?", (index.max_rowid,)
        ):
            touched.add(sid)
            if parent:
                touched.add(parent)
            index.max_rowid = max(index.max_rowid, int(rowid))
        return touched

    async def _refresh_sessions(self, index: LineageIndex, ids: list[str]) -> None:
        for start in range(0, len(ids), _BATCH):
            batch = ids[start : start + _BATCH]
            marks = placeholders(batch)
            rows = await self._conns.fetchall(f"SELECT {_SKELETON_COLUMNS} FROM sessions WHERE id IN ({marks})", batch)
            index.update_sessions(batch, (_skeleton(tuple(row)) for row in rows))
            activity = await self._conns.fetchall(
                f"SELECT session_id, MAX(timestamp), MAX(id) FROM messages WHERE session_id IN ({marks})"
                " GROUP BY session_id",
                batch,
            )
            # The watermark is left alone: it marks how far *other* connections' rows were read.
            for sid, newest, _max_id in activity:
                index.activity[sid] = float(newest)

    async def _load_previews(self, index: LineageIndex, ids: list[str], everything: bool) -> None:
        if not ids:
            return
        if everything:
            rows = await self._conns.fetchall(_PREVIEW_SQL.format(where=""))
        else:
            rows = []
            for start in range(0, len(ids), _BATCH):
                batch = ids[start : start + _BATCH]
                rows += await self._conns.fetchall(
                    _PREVIEW_SQL.format(where=f"WHERE s.id IN ({placeholders(batch)})"), batch
                )
        for sid, first_user in rows:
            index.previews[sid] = preview_of(first_user) if first_user else ""
            index.changed.add(sid)
