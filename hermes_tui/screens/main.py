"""`MainScreen`: the conversation, the prompt, and the side panel (sessions, context, review log).

Layout: a status bar on top; "Conversation" (large, left) with the prompt under it (between them
the prompt's completion list while it offers commands, files or sessions; under the prompt, a
line with what waits for the running agent: queued messages, /steer, /stop); a right column
with "Sessions" (lineage tree, its filter line and the preview of the highlighted session:
`SessionsPane`), "Context" (token gauge) and "Review log"; a Footer with the keys.
The prompt has focus when the screen opens, and again whenever a modal or another screen on top of
it closes (`_screen_changed`). Ctrl+B hides/shows the side panel (narrow terminals
start with a slimmer column; below FOLD_BELOW_COLUMNS, 80×24 say, it folds by itself and comes
back when the terminal grows, unless Ctrl+B was used meanwhile). Ctrl+P's command palette lists the slash commands here
(`SlashCommandProvider`) and jumps to sessions by title (`SessionJumpProvider`), next to Textual's
own entries. Ctrl+F searches every session, F3 compares two sessions, F4 inspects a compression
(the app's actions, `hermes_tui.ui.navigation`); F5 puts the message cursor in the conversation
(branch here, edit and resend, copy: `hermes_tui.ui.message_actions`). F6, or Esc pressed twice within
`DOUBLE_ESCAPE_S`, posts `RewindRequested` (the app interrupts a running turn as Ctrl-C does, else
opens the rewind picker: `hermes_tui.ui.rewind_flow`). A "show all" bar or a long message posts
`ShowFullText` and a tool card's `a` posts `ShowWholeDiff`: the whole text opens here in
`FullTextScreen`, the whole diff in `DiffScreen`.
The app drives the widgets through the typed properties below; the widgets exist from construction, so
they can be filled before the screen is first composed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer

from hermes_tui.screens.command_palette import SlashCommandProvider
from hermes_tui.screens.registry import screen_class
from hermes_tui.screens.session_palette import SessionJumpProvider
from hermes_tui.widgets.completion_menu import CompletionMenu
from hermes_tui.widgets.conversation import ConversationView
from hermes_tui.widgets.diff_view import ShowWholeDiff
from hermes_tui.widgets.first_hint import FirstScreenHint
from hermes_tui.widgets.hidden_text import ShowFullText
from hermes_tui.widgets.lineage_tree import LineageTree
from hermes_tui.widgets.prompt_input import PromptInput
from hermes_tui.widgets.queue_line import QueueLine
from hermes_tui.widgets.review_log import ReviewLog
from hermes_tui.widgets.session_preview import SessionPreviewPanel
from hermes_tui.widgets.sessions_pane import SessionsPane
from hermes_tui.widgets.status_bar import StatusBar
from hermes_tui.widgets.token_gauge import TokenGauge

CURSOR_NOTE = "The message cursor: pick a message to branch here, edit and resend, or copy (Esc: back to the prompt)."
REWIND_NOTE = (
    "The rewind picker (F6, or Esc twice within a second when idle): back to before one of your turns —"
    " its files, the conversation (a branch from just before it), or both."
)
CONTEXT_NOTE = (
    "What fills the context window, by category and by message (also /context, or Enter / a click on the gauge):"
    " Enter shows a message in the conversation, p pins it so the next compression keeps it verbatim."
)
DOUBLE_ESCAPE_S = 1.0
STYLES_PATH = Path(__file__).resolve().parent.parent / "styles.tcss"
"""The stylesheet every screen and widget here is styled by (the App sets it as its CSS_PATH)."""


FOLD_BELOW_COLUMNS = 90  # the conversation and the side panel's narrowest column need this many


class MainScreen(Screen[None]):
    """The home screen of hermes-tui."""

    class RewindRequested(Message):
        """F6 or a double Esc: the user wants the rewind picker (`by_escape` tells which)."""

        def __init__(self, *, by_escape: bool) -> None:
            super().__init__()
            self.by_escape = by_escape

    AUTO_FOCUS = "PromptInput"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-short"), (32, "-tall")]
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {
        SlashCommandProvider,
        SessionJumpProvider,
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+b", "toggle_side_panel", "Side panel", id="toggle-side-panel"),
        Binding("f1", "show_help", "Help", id="help"),
        Binding("f2", "app.open_learning", "Memory & skills", show=False, id="learning"),
        Binding("ctrl+f", "app.open_search", "Search", id="search"),
        Binding("f3", "app.compare_sessions", "Compare", id="compare"),
        Binding("f4", "app.inspect_compression", "Inspect compression", show=False, id="inspect-compression"),
        Binding("f5", "message_cursor", "Messages", id="message-cursor", tooltip=CURSOR_NOTE),
        Binding("f6", "rewind", "Rewind", show=False, id="rewind", tooltip=REWIND_NOTE),
        Binding("f7", "app.open_context", "Context", show=False, id="context", tooltip=CONTEXT_NOTE),
        Binding(
            "escape", "focus_prompt", "Back to the prompt (twice: interrupt, or rewind)", show=False, id="focus-prompt"
        ),
        Binding("tab", "app.focus_next", "Next pane", show=False),
        Binding("shift+tab", "app.focus_previous", "Previous pane", show=False),
    ]

    def __init__(
        self,
        *,
        provider_label: str = "",
        is_demo: bool = False,
        wall_clock: Callable[[], datetime] = datetime.now,
        epoch_clock: Callable[[], float] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`provider_label` ("provider:model") and `is_demo` fill the status bar from the first frame;
        `wall_clock` stamps review-log entries; `epoch_clock` ages sessions (defaults to time.time)."""
        super().__init__(name=name, id=id, classes=classes)
        # The panes are built now, so the app can fill them before the screen is composed.
        self._status_bar = StatusBar(id="status-bar")
        self._status_bar.provider_label = provider_label
        self._status_bar.is_demo = is_demo
        self._conversation = ConversationView(id="conversation")
        self._conversation.border_title = "Conversation"
        self._prompt = PromptInput(id="prompt")
        self._completions = CompletionMenu(self._prompt, id="completions")
        self._queue_line = QueueLine(id="queue-line")
        self._lineage = LineageTree(id="lineage", clock=epoch_clock or time.time)
        self._lineage.border_title = "Sessions"
        self._tree_preview = SessionPreviewPanel(id="tree-preview", clock=epoch_clock or time.time)
        self._tree_preview.border_title = "Preview"
        self._sessions_pane = SessionsPane(self._lineage, self._tree_preview, id="sessions-pane")
        self._gauge = TokenGauge(id="gauge")
        self._gauge.border_title = "Context"
        self._review_log = ReviewLog(id="review-log", clock=wall_clock)
        self._review_log.border_title = "Review log"
        self._first_hint = FirstScreenHint(self.BINDINGS, is_demo=is_demo, id="first-hint")
        self._first_hint.display = False  # until start-up knows the live session has no messages
        self._last_escape = 0.0  # when Esc last reached this screen (monotonic), for Esc Esc
        self._too_narrow = False  # narrower than FOLD_BELOW_COLUMNS at the last resize
        self.side_panel_auto_folded = False  # the panel was folded by the width, not by Ctrl+B

    def compose(self) -> ComposeResult:
        yield self._status_bar
        with Horizontal(id="main-body"):
            with Vertical(id="conversation-column"):
                yield self._first_hint
                yield self._conversation
                yield self._completions
                yield self._prompt
                yield self._queue_line
            with Vertical(id="side-panel"):
                yield self._sessions_pane
                yield self._gauge
                yield self._review_log
        yield Footer()

    # ------------------------------------------------------------------ typed getters for the app

    @property
    def conversation(self) -> ConversationView:
        return self._conversation

    @property
    def lineage(self) -> LineageTree:
        return self._lineage

    @property
    def sessions_pane(self) -> SessionsPane:
        return self._sessions_pane

    @property
    def tree_preview(self) -> SessionPreviewPanel:
        return self._tree_preview

    @property
    def gauge(self) -> TokenGauge:
        return self._gauge

    @property
    def review_log(self) -> ReviewLog:
        return self._review_log

    @property
    def prompt(self) -> PromptInput:
        return self._prompt

    @property
    def queue_line(self) -> QueueLine:
        return self._queue_line

    @property
    def status_bar(self) -> StatusBar:
        return self._status_bar

    @property
    def side_panel_visible(self) -> bool:
        return not self.has_class("-side-hidden")

    @property
    def first_hint(self) -> FirstScreenHint:
        return self._first_hint

    def show_first_hint(self, show: bool) -> None:
        """The first screen's hint: shown while the live session has no messages."""
        self._first_hint.display = show

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        """The first message is on its way: the hint goes (a slash command leaves it; the app handles both)."""
        if not message.text.lstrip().startswith("/"):
            self.show_first_hint(False)

    # ------------------------------------------------------------------ focus after a screen

    def on_mount(self) -> None:
        self.app.screen_change_signal.subscribe(self, self._screen_changed)

    def _screen_changed(self, screen: Screen[object]) -> None:
        """Back from any modal or screen (search, compare, a dialog, the palette …): the prompt has the
        focus, whatever had it before, so keys typed next are text, never a pane's one-letter action.
        The signal comes as the screen closes, before any key typed after it is handled."""
        if screen is self and self.prompt.is_attached:
            self.set_focus(self.prompt, scroll_visible=False)

    # ------------------------------------------------------------------ actions

    def on_resize(self, event: events.Resize) -> None:
        """Narrower than FOLD_BELOW_COLUMNS (80×24, say) the side panel folds by itself; it comes back
        once the terminal is wide enough again — unless Ctrl+B folded or showed it meanwhile."""
        too_narrow = event.size.width < FOLD_BELOW_COLUMNS
        if too_narrow == self._too_narrow:
            return
        self._too_narrow = too_narrow
        if too_narrow and self.side_panel_visible:
            self._show_side_panel(False)
            self.side_panel_auto_folded = True
        elif not too_narrow and self.side_panel_auto_folded:
            self._show_side_panel(True)
            self.side_panel_auto_folded = False

    def action_toggle_side_panel(self) -> None:
        """Hide or show the right column (the conversation takes the whole width when hidden)."""
        self.side_panel_auto_folded = False  # the user decides from now on
        self._show_side_panel(not self.side_panel_visible)

    def _show_side_panel(self, show: bool) -> None:
        self.set_class(not show, "-side-hidden")
        if not show and self.focused is not None and self.query_one("#side-panel") in self.focused.ancestors:
            self.prompt.focus()

    def action_show_help(self) -> None:
        self.app.push_screen(screen_class("HelpScreen")())

    def action_focus_prompt(self) -> None:
        """Esc: back to the prompt; a second Esc within DOUBLE_ESCAPE_S asks for the rewind picker."""
        now = time.monotonic()
        double = now - self._last_escape <= DOUBLE_ESCAPE_S
        self._last_escape = 0.0 if double else now
        self.prompt.focus()
        if double:
            self.post_message(self.RewindRequested(by_escape=True))

    def action_rewind(self) -> None:
        """F6: the rewind picker."""
        self.post_message(self.RewindRequested(by_escape=False))

    def on_show_full_text(self, event: ShowFullText) -> None:
        """A "show all" bar or a long message in the conversation: the whole text in the viewer."""
        event.stop()
        self.app.push_screen(screen_class("FullTextScreen")(event.title, event.text))

    def on_show_whole_diff(self, event: ShowWholeDiff) -> None:
        """A tool card asked for the whole diff of the files its call changed: the diff viewer."""
        event.stop()
        self.app.push_screen(screen_class("DiffScreen")(event.title, event.changes))

    def action_message_cursor(self) -> None:
        """F5: the message cursor in the conversation."""
        self.conversation.start_cursor()
