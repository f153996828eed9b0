"""`StatusBar`: the one-line bar with provider:model (and a DEMO badge), the session, the standing
goal (when there is one), the permission mode and the turn state.

The permission mode (`set_permission_mode`, from the agent at start-up and from every
`PermissionModeChanged`) is a badge beside the turn state: none in the default mode (ask), "⏵⏵
accept edits", "⏸ read-only (plan)" in its own colour and "⚠ YOLO" in the error colour; the
mode's name is a CSS class on it (`-mode-yolo`, …).

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
DEFAULT_MODE = "ask"
MODE_BADGES = {"accept_edits": "⏵⏵ {label}", "read_only": "⏸ {label}", "yolo": "⚠ YOLO"}
"""The badge of each permission mode but the default one, which shows none."""
KNOWN_MODES = (DEFAULT_MODE, *MODE_BADGES)


class StatusBar(Horizontal):
    """Provider and model, DEMO badge, session, turn state."""

    provider_label: reactive[str] = reactive("")
    is_demo: reactive[bool] = reactive(False)
    session_id: reactive[str] = reactive("")
    session_title: reactive[str] = reactive("")
    session_preview: reactive[str] = reactive("")  # the first user message, named when there is no title
    state: reactive[str] = reactive("idle")
    goal: reactive[str] = reactive("")  # "" = no goal; else e.g. "⚑ 3/20" (set by the app from GoalChanged)
    permission_mode: reactive[str] = reactive(DEFAULT_MODE)  # "ask", "accept_edits", "read_only", "yolo"
    permission_label: reactive[str] = reactive("")  # the mode's name for people ("read-only (plan)")

    def compose(self) -> ComposeResult:
        yield Label("", id="status-provider", markup=False)
        yield Label(" DEMO ", id="status-demo", markup=False)
        yield Label("", id="status-session", markup=False)
        yield Label("", id="status-goal", markup=False)
        yield Label("", id="status-mode", markup=False)
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

    def set_permission_mode(self, mode: str, label: str = "") -> None:
        """Show the permission mode ("ask", "accept_edits", "read_only", "yolo") and its name."""
        self.permission_label = label or mode.replace("_", " ")
        self.permission_mode = mode

    @property
    def mode_badge(self) -> str:
        """The permission mode's badge text ("" in the default mode)."""
        if self.permission_mode == DEFAULT_MODE:
            return ""
        label = self.permission_label or self.permission_mode.replace("_", " ")
        return MODE_BADGES.get(self.permission_mode, "{label}").format(label=label)

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

    def watch_permission_mode(self) -> None:
        self._refresh_labels()

    def watch_permission_label(self) -> None:
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
        mode = self.query_one("#status-mode", Label)
        badge = self.mode_badge
        mode.update(f" {visible(badge)} " if badge else "")
        mode.display = bool(badge)
        for known in KNOWN_MODES:
            mode.set_class(self.permission_mode == known, f"-mode-{known}")
        state = self.query_one("#status-state", Label)
        state.update(visible(self.state_label))  # "running <tool name the model chose>"
        for known in KNOWN_STATES:
            state.set_class(self.state_kind == known, f"-{known}")
