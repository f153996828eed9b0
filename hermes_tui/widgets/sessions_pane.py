"""`SessionsPane`: the Sessions tree with its filter line above it and its preview below it.

The filter line (`TreeFilterInput`) is hidden until the tree's "/" key opens it; each keystroke
filters the tree by title (`LineageTree.set_filter`), Enter goes back to the tree keeping the
filter, Escape clears it and goes back. The preview (`SessionPreviewPanel`) follows the tree's
cursor. While the tree or the filter has focus the pane carries the class "-active" (and the
screen "-sessions-active"): the stylesheet shows the preview then, and on short terminals makes
room for it.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Tree

from hermes_tui.store.models import EDGE_REVIEW
from hermes_tui.widgets.lineage_tree import LineageEntry, LineageTree
from hermes_tui.widgets.session_preview import SessionPreviewPanel

FILTER_PLACEHOLDER = "filter by title — Enter keeps, Esc clears"


class TreeFilterInput(Input):
    """The Sessions tree's filter line."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_filter", "Clear the filter", show=False),
        Binding("enter", "keep_filter", "Keep the filter, back to the tree", show=False),
        Binding("down", "keep_filter", "Back to the tree", show=False),
    ]

    def action_clear_filter(self) -> None:
        pane = self.parent
        if isinstance(pane, SessionsPane):
            pane.close_filter(clear=True)

    def action_keep_filter(self) -> None:
        pane = self.parent
        if isinstance(pane, SessionsPane):
            pane.close_filter(clear=False)


class SessionsPane(Vertical):
    """Filter line, tree and preview (see the module docstring)."""

    def __init__(
        self, lineage: LineageTree, preview: SessionPreviewPanel, *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.lineage = lineage
        self.preview = preview
        self.filter_input = TreeFilterInput(placeholder=FILTER_PLACEHOLDER, id="tree-filter")
        self.filter_input.border_title = "Filter"
        self.filter_input.display = False

    def compose(self) -> ComposeResult:
        yield self.filter_input
        yield self.lineage
        yield self.preview

    # ------------------------------------------------------------------ filter

    def open_filter(self) -> None:
        """Show the filter line and type into it."""
        self.filter_input.display = True
        self.filter_input.focus()

    def close_filter(self, *, clear: bool) -> None:
        """Back to the tree; `clear` drops the filter (and hides the line)."""
        if clear:
            self.filter_input.value = ""
            self.lineage.set_filter("")
            self.filter_input.display = False
        self.lineage.focus()

    def on_lineage_tree_action_requested(self, event: LineageTree.ActionRequested) -> None:
        if event.action == "filter":  # the pane's own: the other actions go on to the app
            event.stop()
            self.open_filter()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input is not self.filter_input:
            return
        event.stop()
        self.lineage.set_filter(event.value)
        if self.lineage.filter_query:
            noun = "match" if self.lineage.match_count == 1 else "matches"
            self.lineage.border_subtitle = f"{self.lineage.match_count} {noun}"
        else:
            self.lineage.border_subtitle = ""

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is self.filter_input:
            event.stop()
            self.close_filter(clear=False)

    # ------------------------------------------------------------------ preview

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[LineageEntry]) -> None:
        if event.control is not self.lineage:
            return
        entry = event.node.data
        session = entry.session if entry is not None else None
        if session is None:
            self.preview.follow(None, "Enter shows more sessions." if entry is not None else "")
        elif session.edge == EDGE_REVIEW:
            self.preview.follow(session.id, "A self-review run: Enter shows what it changed.")
        else:
            self.preview.follow(session.id)

    # ------------------------------------------------------------------ focus

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._set_active(True)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.call_after_refresh(self._follow_focus)

    def _follow_focus(self) -> None:
        focused = self.screen.focused if self.is_attached else None
        self._set_active(focused is not None and self in focused.ancestors)

    def _set_active(self, active: bool) -> None:
        self.set_class(active, "-active")
        if self.is_attached:
            self.screen.set_class(active, "-sessions-active")
        if active and self.preview.wanted is None:
            session = self.lineage.highlighted_session()
            if session is not None:
                self.preview.follow(session.id)
