"""`SessionsTree`: the Sessions tree's reads, and the one ordered lane for the side panel's reads.

The tree is kept up by `LineageSync` (made over the main screen's tree the first time it is
needed): `reload` reads every session (start-up), `refresh` the sessions named and the current
one. `in_background` runs such a read — or any refresh that asks the database, like the goal
badge's — in a worker, after the ones asked for earlier: an event handler awaiting it held the
app's queue, and the keys in it, for 10-35 ms while a turn's threads kept the database busy.
Once the app closes (`close`) nothing more is read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from hermes_tui.lineage_sync import LineageSync
from hermes_tui.store.errors import StoreError
from hermes_tui.ui.ports import TreeHost


class SessionsTree:
    """Feeds the main screen's Sessions tree and its preview from the app's agent and database."""

    def __init__(self, app: TreeHost) -> None:
        self._app = app
        self._sync: LineageSync | None = None
        self._lock = asyncio.Lock()  # background refreshes run one at a time, in order (FIFO)
        self._closed = False

    @property
    def sync(self) -> LineageSync:
        """What keeps the tree's rows up to date (created with the main screen's tree)."""
        if self._sync is None:
            self._sync = LineageSync(self._app.main.lineage)
        return self._sync

    async def reload(self) -> None:
        """Read every session into the tree (start-up, a self-review run's new leaf)."""
        if self._app.agent is not None:
            await self.sync.reload(self._app.agent, self._app.db)

    async def refresh(self, *session_ids: str | None) -> None:
        """Update the rows of these sessions and of the current one (all, if another process wrote)."""
        if self._app.agent is not None:
            await self.sync.refresh(self._app.agent, self._app.db, session_ids)

    def wire_preview(self) -> None:
        """Let the preview read from the open database (start-up, once the database is open)."""
        if self._app.db is not None:
            preview = self._app.main.tree_preview
            preview.loader = self._app.db.session_preview
            preview.refresh_preview()

    def in_background(self, refresh: Callable[..., Awaitable[None]], *args: Any) -> None:
        """Run `refresh(*args)` in a worker once the refreshes asked for before it have run."""

        async def in_turn() -> None:
            async with self._lock:  # tasks reach it in the order they were made: FIFO
                if self._app.screen_stack and not self._closed:
                    try:
                        await refresh(*args)
                    except StoreError:
                        if not self._closed:
                            raise
                        # the app closed the database while this read ran: nothing is left to show it in

        # a callable, not a coroutine: a worker cancelled before it started leaves nothing un-awaited
        self._app.run_worker(in_turn, group="refresh")

    def close(self) -> None:
        """The app is closing: refreshes not yet run are dropped."""
        self._closed = True
