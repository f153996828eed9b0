"""`LineageHistory`: what the token gauge knows of the current lineage beyond this run's turns.

The core counts the compressions and records the context's size per turn only for what happened
since the session was opened. This part reads the rest from the database, in the Sessions tree's
ordered background lane: every compression of the lineage (`SessionDB.lineage_compressions`:
rotations and in-place compactions), read again after each compression and each switch of
session, and the size at the end of each earlier turn (`SessionDB.lineage_turn_sizes`), read at
start-up and after /resume (the core then starts its own sizes afresh) and dropped by /new.
"""

from __future__ import annotations

from hermes_tui.ui.ports import TreeHost
from hermes_tui.ui.sessions_tree import SessionsTree


class LineageHistory:
    """Feeds the gauge's lineage-wide compression count and earlier turn sizes."""

    def __init__(self, app: TreeHost, tree: SessionsTree) -> None:
        self._app = app
        self._tree = tree

    def read(self, *, with_sizes: bool) -> None:
        """Read the current lineage's compression count (and, `with_sizes`, its earlier turns' sizes):
        at start-up and after /resume with the sizes, after a compression or a branch without."""
        self._tree.in_background(self._read, with_sizes)

    def forget(self) -> None:
        """/new: a fresh session has no history; its count is read (zero, or what it inherited)."""
        self._app.main.gauge.history = ()
        self.read(with_sizes=False)

    async def _read(self, with_sizes: bool) -> None:
        agent, db = self._app.agent, self._app.db
        if agent is None or db is None:
            return
        session_id = agent.session_id
        count = await db.lineage_compressions(session_id)
        sizes = await db.lineage_turn_sizes(session_id) if with_sizes else None
        if not self._app.screen_stack or agent.session_id != session_id:
            return  # closed, or another session is current by now (its own read follows)
        gauge = self._app.main.gauge
        gauge.lineage_compressions = count
        if sizes is not None:
            gauge.history = tuple(sizes)
