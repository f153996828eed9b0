"""`LineageSync`: keeps the Sessions tree in step with the agent without reading every session again.

After a turn, a command or a rotation only the sessions concerned are read, each on its own
(`SessionDB.lineage_node`: a few indexed lookups, whatever the number of sessions), and handed to
the tree's incremental `upsert`; a title change updates one label from the event alone. The
whole tree is read again only when another process committed to state.db since the last read
(`SessionDB.external_change_version`: one pragma; our own writes never change it) or when there
is no database to ask.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING

from hermes_tui.widgets.lineage_tree import LineageTree

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent
    from hermes_tui.store.db import SessionDB


class LineageSync:
    """Feeds one LineageTree from one agent and its database."""

    def __init__(self, tree: LineageTree) -> None:
        self.tree = tree
        self._version: int | None = None
        self.full_reloads = 0  # how often every session was read (tests and benchmarks look)
        self.node_reads = 0  # how many single sessions were read

    async def reload(self, agent: Agent, db: SessionDB | None) -> None:
        """Read every session and rebuild the tree (start-up, or after another process's commit)."""
        version = await db.external_change_version() if db is not None else None
        self.tree.set_nodes(await agent.lineage(), agent.session_id)
        self._version = version
        self.full_reloads += 1

    async def _changed_elsewhere(self, db: SessionDB | None) -> bool:
        if db is None or self._version is None:
            return True
        return await db.external_change_version() != self._version

    async def refresh(self, agent: Agent, db: SessionDB | None, session_ids: Iterable[str | None] = ()) -> None:
        """Bring these sessions' rows and the current session's up to date, and mark the current one.

        Everything is read again instead when another process changed state.db meanwhile.
        """
        if await self._changed_elsewhere(db):
            await self.reload(agent, db)
            return
        assert db is not None  # _changed_elsewhere is True without one
        current = agent.session_id
        for session_id in dict.fromkeys([*session_ids, current]):
            if session_id is None:
                continue
            node = await db.lineage_node(session_id)
            self.node_reads += 1
            if node is None and session_id == current:
                node = agent.session.unsaved_node()  # its row is created with its first message
            if node is not None:
                self.tree.upsert(node)
        if self.tree.current_id != current:
            self.tree.set_current(current)

    def remove(self, session_id: str) -> None:
        """A session was deleted: its row goes, its children become roots (nothing is read)."""
        self.tree.remove(session_id)

    def retitle(self, session_id: str, title: str | None) -> None:
        """Show a session's new title (the event says it all: nothing is read)."""
        node = self.tree.session(session_id)
        if node is not None and node.title != title:
            self.tree.upsert(dataclasses.replace(node, title=title))
