"""`StatusBar`: the one-line bar with provider:model (and a DEMO badge), the session, the standing
goal (when there is one) and the turn state.

The offline demo provider is always labelled: the badge shows whenever `is_demo` is set (which
`set_provider("demo", …)` does). The turn state is a short phrase — "idle", "streaming",
"compressing", "running read_file"… — whose first word, when known, becomes a CSS class so
styles.tcss can colour it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import Label

from hermes_tui.text_safety import visible
from hermes_tui.widgets.formatting import cut, short_session_id

DEMO_PROVIDER = "demo"
STATE_ICONS = {
    "idle": "○",
    "thinking": "…",
    "streaming": "●",
    "running": "⚙",
    "compressing": "🗜",
    "interrupting": "⏹",
    "interrupted": "⏹",
    "stopped": "⏹",
}
KNOWN_STATES = tuple(STATE_ICONS)
SESSION_TITLE_WIDTH = 40


class StatusBar(Horizontal):
    """Provider and model, DEMO badge, session, turn state."""

    provider_label: reactive[str] = reactive("")
    is_demo: reactive[bool] = reactive(False)
    session_id: reactive[str] = reactive("")
    session_title: reactive[str] = reactive("")
    session_preview: reactive[str] = reactive("")  # the first user message, named when there is no title
    state: reactive[str] = reactive("idle")
    goal: reactive[str] = reactive("")  # "" = no goal; else e.g. "⚑ 3/20" (set by the app from GoalChanged)

    def compose(self) -> ComposeResult:
        yield Label("", id="status-provider", markup=False)
        yield Label(" DEMO ", id="status-demo", markup=False)
        yield Label("", id="status-session", markup=False)
        yield Label("", id="status-goal", markup=False)
        yield Label("", id="status-state", markup=False)

    # ------------------------------------------------------------------ setters for the app

    def set_provider(self, provider: str, model: str) -> None:
        """Show `provider:model`; the demo provider gets the DEMO badge."""
        self.provider_label = f"{provider}:{model}" if model else provider
        self.is_demo = provider == DEMO_PROVIDER

    def set_session(self, session_id: str, title: str | None = None, preview: str = "") -> None:
        """Name the live session: its title, else (as the Sessions tree does) its first user message."""
        self.session_id = session_id
        self.session_title = title or ""
        self.session_preview = preview

    @property
    def session(self) -> str:
        """The current session id (alias of `session_id`)."""
        return self.session_id

    @session.setter
    def session(self, session_id: str) -> None:
        self.session_id = session_id

    # ------------------------------------------------------------------ what is shown

    @property
    def session_label(self) -> str:
        if not self.session_id:
            return "new session"
        name = self.session_title or self.session_preview
        title = cut(name, SESSION_TITLE_WIDTH) if name else "untitled"
        return f"{title} · {short_session_id(self.session_id)}"

    @property
    def state_kind(self) -> str:
        """The known state word the current state starts with ("running read_file" -> "running")."""
        first = self.state.split(" ", 1)[0] if self.state else ""
        return first if first in STATE_ICONS else ""

    @property
    def state_label(self) -> str:
        return f"{STATE_ICONS.get(self.state_kind, '•')} {self.state}"

    def on_mount(self) -> None:
        self._refresh_labels()

    def watch_provider_label(self) -> None:
        self._refresh_labels()

    def watch_is_demo(self) -> None:
        self._refresh_labels()

    def watch_session_id(self) -> None:
        self._refresh_labels()

    def watch_session_title(self) -> None:
        self._refresh_labels()

    def watch_session_preview(self) -> None:
        self._refresh_labels()

    def watch_state(self) -> None:
        self._refresh_labels()

    def watch_goal(self) -> None:
        self._refresh_labels()

    def _refresh_labels(self) -> None:
        if not self.query("#status-provider"):
            return  # not composed yet: on_mount fills the labels
        self.query_one("#status-provider", Label).update(visible(self.provider_label) or "no provider")
        self.query_one("#status-demo", Label).display = self.is_demo
        self.query_one("#status-session", Label).update(visible(self.session_label))
        goal = self.query_one("#status-goal", Label)
        goal.update(visible(self.goal))
        goal.display = bool(self.goal)
        state = self.query_one("#status-state", Label)
        state.update(visible(self.state_label))  # "running <tool name the model chose>"
        for known in KNOWN_STATES:
            state.set_class(self.state_kind == known, f"-{known}")
