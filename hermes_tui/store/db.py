"""`SessionDB`: the one object the rest of hermes-tui uses to read and write Hermes's `state.db`.

It is composed of small parts, one job each: sessions.py (session rows, state_meta), edges.py
(the edge kind and branch point recorded for each child we create), insights.py (usage over time),
messages.py (message rows, conversation restore, rewind), titles.py, lineage.py (tips,
resolution, tree), listing.py (`list_sessions_rich`), search.py (FTS), locks.py (compression
lock), views.py (message windows around an anchor), preview.py (what the tree previews of a
session), maintenance.py (prune/vacuum/FTS optimize). connection.py owns the SQLite connections,
schema.py the v21 schema, extra_indexes.py our two indexes (built in the background when asked).
All methods are async; open with `await SessionDB.open(path)`.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from hermes_tui.store.connection import StoreConnections
from hermes_tui.store.edges import EdgesMixin
from hermes_tui.store.errors import AmbiguousSession, SessionNotFound, StoreError
from hermes_tui.store.insights import InsightsMixin
from hermes_tui.store.lineage import LineageMixin
from hermes_tui.store.listing import ListingMixin
from hermes_tui.store.locks import LocksMixin
from hermes_tui.store.maintenance import MaintenanceMixin
from hermes_tui.store.messages import MessagesMixin
from hermes_tui.store.preview import PreviewMixin
from hermes_tui.store.schema import SCHEMA_VERSION
from hermes_tui.store.search import SearchMixin
from hermes_tui.store.titles import sanitize_title
from hermes_tui.store.views import ViewsMixin

__all__ = ["SCHEMA_VERSION", "AmbiguousSession", "SessionDB", "SessionNotFound", "StoreError"]


class SessionDB(
    MaintenanceMixin,
    LocksMixin,
    SearchMixin,
    ViewsMixin,
    ListingMixin,
    LineageMixin,
    MessagesMixin,
    EdgesMixin,
    InsightsMixin,
    PreviewMixin,
):
    """Async access to one Hermes-compatible `state.db` (schema v21; a v14 file is read as it is read-only)."""

    sanitize_title = staticmethod(sanitize_title)

    def __init__(self, connections: StoreConnections) -> None:
        self._conns = connections

    @classmethod
    async def open(cls, path: str | Path, *, read_only: bool = False) -> SessionDB:
        """Open (creating if needed) the database at `path` and bring it to schema v21.

        `read_only=True` opens an existing file without writing anything (no schema upgrade: a v14
        file is read as it is, an older one is a SchemaTooOld StoreError); every write then raises
        StoreError. Our extra indexes are not built here (`start_extra_indexes`).
        Raises StoreError with one line naming the file when it is not a usable SQLite database.
        """
        return cls(await StoreConnections.open(Path(path), read_only=read_only))

    @property
    def read_only(self) -> bool:
        return self._conns.read_only

    @property
    def store_hops(self) -> int:
        """How many trips to the connections' threads this object made (each call makes one; tests, benches)."""
        return self._conns.hops

    def start_extra_indexes(self) -> None:
        """Build our two extra indexes in the background if the file lacks them (store.extra_indexes)."""
        self._conns.start_extra_indexes()

    async def build_extra_indexes(self) -> list[str]:
        """Build the missing extra indexes now (scripts, tests); returns the names built."""
        if self.read_only:
            return []
        return await self._conns.extra_indexes.build_now()

    async def release_caches(self) -> None:
        """Give the connections' page caches back (after a long read); the next reads refill them."""
        await self._conns.release_caches()

    async def close(self) -> None:
        """Checkpoint and close; safe to call twice."""
        await self._conns.close()

    @property
    def closed(self) -> bool:
        return self._conns.closed

    async def __aenter__(self) -> SessionDB:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
