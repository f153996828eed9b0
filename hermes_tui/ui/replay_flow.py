"""`ReplayFlow`: "replay this turn on …" from the Sessions tree (p) and the message cursor (F5, p).

Asks for the route (`ReplayPickerScreen` over `replay_session.replay_routes`), then sends the turn
in a worker (`replay_session.replay_as_side_session`: replay.py's one call, tool calls never
run) and stores the result as a side session under the replayed one. The result shows in the
Review log (the new answer, the stored one as its detail) and the new session in the tree, with
the cursor on it. A turn that does not exist or a failed call is one line in a notice.
"""

from __future__ import annotations

from hermes_tui.config import ProviderChoice
from hermes_tui.screens.registry import screen_class
from hermes_tui.ui.ports import ReplayHost
from hermes_tui.ui.sessions_tree import SessionsTree

ANSWER_HEAD = 160  # characters of the new answer the Review log line shows


class ReplayFlow:
    """Replays a stored turn on a route the user picks."""

    def __init__(self, app: ReplayHost, tree: SessionsTree) -> None:
        self._app = app
        self._tree = tree
        self.replays = 0  # replays stored (tests wait on it)

    def open(self, session_id: str, turn: int | None = None) -> None:
        """Ask for the route to replay turn `turn` (None = the last) of `session_id` on."""
        from hermes_tui.replay_session import replay_routes, route_label

        if self._app.db is None:
            self._app.notify("The session database is not open yet.", severity="warning")
            return
        routes = replay_routes(self._app.settings, self._app.choice)
        which = f"turn {turn}" if turn is not None else "the last turn"
        heading = f"Replay {which} of session {session_id} on:"

        def chosen(index: int | None) -> None:
            if index is not None:
                self._app.run_worker(self._replay(session_id, turn, routes[index]), group="replay")

        self._app.push_screen(
            screen_class("ReplayPickerScreen")(heading, [route_label(route) for route in routes]), chosen
        )

    async def _replay(self, session_id: str, turn: int | None, route: ProviderChoice) -> None:
        from hermes_tui.replay import ReplayError
        from hermes_tui.replay_session import replay_as_side_session, route_label
        from hermes_tui.store.errors import StoreError
        from hermes_tui.text_safety import visible

        db = self._app.db
        if db is None:
            return
        label = route_label(route)
        self._app.notify(f"Replaying on {label} …", timeout=2)
        try:
            done = await replay_as_side_session(db, session_id, turn, self._app.settings, route)
        except (ReplayError, StoreError) as exc:
            self._app.notify(f"Not replayed: {visible(str(exc))}", severity="error")
            return
        except Exception as exc:  # a provider failure: one line, never a traceback
            self._app.notify(f"Replay on {label} failed: {visible(str(exc) or type(exc).__name__)}", severity="error")
            return
        if not self._app.screen_stack:
            return
        self.replays += 1
        answer = " ".join((done.replayed.text or "(tool calls only)").split())
        head = answer if len(answer) <= ANSWER_HEAD else answer[: ANSWER_HEAD - 1] + "…"
        detail = f"Stored answer ({done.stored.model or 'unknown model'}):\n{done.stored.answer}\n\n{label}:\n"
        self._app.main.review_log.add_entry(
            "info",
            f"Replayed turn {done.stored.turn} of {done.stored.session_id} on {label} → {done.session_id}: {head}",
            detail=detail + (done.replayed.text or ""),
        )
        await self._tree.refresh(done.stored.session_id, done.session_id)
        self._app.main.lineage.reveal(done.session_id)
