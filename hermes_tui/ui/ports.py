"""The small Protocols through which the App's parts (`hermes_tui.ui`) see the app and its main screen.

Each part is handed the App typed as one host Protocol below, naming what that part uses and
nothing more; HermesApp satisfies them structurally (Textual's App has push_screen, notify,
run_worker, workers, call_later, copy_to_clipboard and screen_stack; HermesApp adds agent, db,
ready and main). A test can hand a part any plain object with those attributes instead. The main
screen is reached through `main` each time (it exists only once the app runs) and `screen_stack`
is empty once the app has closed. Nothing here imports the App, a screen or a part.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.worker import Worker

    from hermes_tui.config import ProviderChoice, Settings
    from hermes_tui.core.agent import Agent
    from hermes_tui.store.db import SessionDB
    from hermes_tui.widgets.conversation import ConversationView
    from hermes_tui.widgets.lineage_tree import LineageTree
    from hermes_tui.widgets.prompt_input import PromptInput
    from hermes_tui.widgets.queue_line import QueueLine
    from hermes_tui.widgets.review_log import ReviewLog
    from hermes_tui.widgets.session_preview import SessionPreviewPanel
    from hermes_tui.widgets.sessions_pane import SessionsPane
    from hermes_tui.widgets.status_bar import StatusBar
    from hermes_tui.widgets.token_gauge import TokenGauge


class MainView(Protocol):
    """The main screen's panes (`hermes_tui.screens.main.MainScreen` is one)."""

    @property
    def conversation(self) -> ConversationView: ...
    @property
    def status_bar(self) -> StatusBar: ...
    @property
    def gauge(self) -> TokenGauge: ...
    @property
    def review_log(self) -> ReviewLog: ...
    @property
    def queue_line(self) -> QueueLine: ...
    @property
    def prompt(self) -> PromptInput: ...
    @property
    def lineage(self) -> LineageTree: ...
    @property
    def tree_preview(self) -> SessionPreviewPanel: ...
    @property
    def sessions_pane(self) -> SessionsPane: ...
    def show_first_hint(self, show: bool) -> None: ...


class Shown(Protocol):
    """The main view, and the screens on show (none once the app has closed)."""

    @property
    def main(self) -> MainView: ...
    @property
    def screen_stack(self) -> list[Any]: ...


class Session(Protocol):
    """The agent and its database: None until start-up has opened them."""

    agent: Agent | None
    db: SessionDB | None


class Screens(Protocol):
    """Opening a screen over the others, and a notice in the corner."""

    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


class Workers(Protocol):
    """Work run beside the app's queue (Textual workers, by group), and a call once the queue is free."""

    @property
    def workers(self) -> Iterable[Worker[Any]]: ...
    def run_worker(
        self,
        work: Any,
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[Any]: ...
    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...


class Clipboard(Protocol):
    def copy_to_clipboard(self, text: str) -> None: ...


# ---------------------------------------------------------------------- what each part sees


class TreeHost(Session, Workers, Shown, Protocol):
    """What `SessionsTree` sees."""


class PresenterHost(Session, Screens, Workers, Shown, Protocol):
    """What `EventPresenter` sees (`notify` for the permission mode's toast)."""


class TurnHost(Session, Screens, Workers, Shown, Protocol):
    """What `TurnControl` sees; `ready` is set once the agent and the database are open."""

    ready: asyncio.Event


class NavigationHost(Session, Screens, Workers, Clipboard, Shown, Protocol):
    """What `Navigation` sees (the clipboard for /copy)."""


class ActionHost(Session, Screens, Workers, Clipboard, Shown, Protocol):
    """What `TreeActions` and `MessageActions` see."""


class PermissionHost(Session, Screens, Shown, Protocol):
    """What `Permissions` sees."""


class RewindHost(Session, Screens, Workers, Shown, Protocol):
    """What `RewindFlow` sees."""


class ReplayHost(Session, Screens, Workers, Shown, Protocol):
    """What `ReplayFlow` sees: the settings and the route in use, for the routes it offers."""

    settings: Settings
    choice: ProviderChoice
