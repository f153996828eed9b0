"""`SessionDB`: the one object the rest of hermes-tui uses to read and write Hermes's `state.db`.

It is composed of small parts, one job each: sessions.py (session rows, state_meta), edges.py
(the edge kind and branch point recorded for each child we create), insights.py (usage over time),
messages.py (message rows, conversation restore, rewind), titles.py, lineage.py (tips,
resolution, tree), listing.py (`list_sessions_rich`), search.py (FTS), locks.py (compression
lock), views.py (message windows around an anchor), preview.py (what the tree previews of a
session), maintenance.py (prune/vacuum/FTS optimize). connection.py owns the SQLite connections,
schema.py the v14 schema. All methods are async; open with `await SessionDB.open(path)`.
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
    """Async access to one Hermes-compatible `state.db` (schema v14)."""

    sanitize_title = staticmethod(sanitize_title)

    def __init__(self, connections: StoreConnections) -> None:
        self._conns = connections

    @classmethod
    async def open(cls, path: str | Path, *, read_only: bool = False) -> SessionDB:
        """Open (creating if needed) the database at `path` and bring it to schema v14.

        `read_only=True` opens an existing file without writing anything (not even a schema
        upgrade, so an out-of-date file is a StoreError); every write then raises StoreError.
        Raises StoreError with one line naming the file when it is not a usable SQLite database.
        """
        return cls(await StoreConnections.open(Path(path), read_only=read_only))

    @property
    def read_only(self) -> bool:
        return self._conns.read_only

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
