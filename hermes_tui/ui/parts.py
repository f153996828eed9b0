"""The App's parts the first frame never uses, each built (and its module imported) on first use.

The event presenter, the navigation, the tree and message actions, the replay and rewind flows:
none of them draws the first frame, and together with what they import (the core's events, the
screens' flows, the search stack) they are a good share of start-up's imports (issue 23). The App
declares each as `functools.cached_property(build_…)`, so `app.presenter` builds the presenter the
first time it is read and keeps it; `is_built(app, "presenter")` says whether that happened yet.
Each builder hands the part the App typed as the one Protocol that part needs (`ui.ports`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from hermes_tui.ui.ports import ActionHost, NavigationHost, PresenterHost, ReplayHost, RewindHost

if TYPE_CHECKING:
    from hermes_tui.ui.message_actions import MessageActions
    from hermes_tui.ui.navigation import Navigation
    from hermes_tui.ui.presenter import EventPresenter
    from hermes_tui.ui.replay_flow import ReplayFlow
    from hermes_tui.ui.rewind_flow import RewindFlow
    from hermes_tui.ui.sessions_tree import SessionsTree
    from hermes_tui.ui.tree_actions import TreeActions
    from hermes_tui.ui.turn_control import TurnControl


class PartsHost(PresenterHost, NavigationHost, ActionHost, RewindHost, ReplayHost, Protocol):
    """The App as the builders see it: every part's host, the parts built at start, and each other."""

    sessions_tree: SessionsTree
    turns: TurnControl

    @property
    def presenter(self) -> EventPresenter: ...
    @property
    def navigation(self) -> Navigation: ...
    @property
    def replay_flow(self) -> ReplayFlow: ...


def is_built(app: Any, name: str) -> bool:
    """Whether the on-demand part `name` has been built (read) on `app` yet."""
    return name in vars(app)


def build_presenter(app: PartsHost) -> EventPresenter:
    """Shows the core's events (the first arrives once the agent is open, after the first frame)."""
    from hermes_tui.ui.presenter import EventPresenter

    return EventPresenter(
        app,
        app.sessions_tree,
        turn_running=lambda: app.turns.turn_running,
        reveal_pending=lambda messages: app.navigation.reveal_pending(messages),
    )


def build_navigation(app: PartsHost) -> Navigation:
    from hermes_tui.ui.navigation import Navigation

    return Navigation(app, app.turns, app.sessions_tree)


def build_replay_flow(app: PartsHost) -> ReplayFlow:
    from hermes_tui.ui.replay_flow import ReplayFlow

    return ReplayFlow(app, app.sessions_tree)


def build_tree_actions(app: PartsHost) -> TreeActions:
    from hermes_tui.ui.tree_actions import TreeActions

    return TreeActions(
        app,
        app.turns,
        app.sessions_tree,
        show_session=lambda session_id: app.presenter.show_session(session_id),
        replay=lambda session_id, turn=None: app.replay_flow.open(session_id, turn),
    )


def build_message_actions(app: PartsHost) -> MessageActions:
    from hermes_tui.ui.message_actions import MessageActions

    return MessageActions(app, app.turns, replay=lambda session_id, turn=None: app.replay_flow.open(session_id, turn))


def build_rewind_flow(app: PartsHost) -> RewindFlow:
    from hermes_tui.ui.rewind_flow import RewindFlow

    return RewindFlow(app, app.turns)
