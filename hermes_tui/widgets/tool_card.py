"""`ToolCard`: one tool call in the transcript — a one-line summary that expands to the details.

Collapsed: "⚙ read_file  README.md  ✓ 0.01s" (a spinner while running, "✗" in the error colour on
failure). Expanded (Enter / Space / click when focused): the arguments as pretty JSON and the result,
cut to a sensible height with a note saying how much was left out. What JSON decoding brings back
(`\\u001b` in a command's output) is made visible again before it is shown.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from hermes_tui.text_safety import visible
from hermes_tui.widgets.formatting import cut, format_duration
from hermes_tui.widgets.transcript import (
    TOOL_ERROR,
    TOOL_NO_RESULT,
    TOOL_OK,
    TOOL_RUNNING,
    TranscriptItem,
)

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SUMMARY_KEYS = ("path", "file_path", "command", "pattern", "query", "url", "name", "title")
SUMMARY_WIDTH = 40
RESULT_MAX_LINES = 20
RESULT_MAX_CHARS = 4_000
ARGUMENTS_MAX_LINES = 30


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def arguments_summary(arguments: str) -> str:
    """The one argument worth showing on the collapsed card (a path, a command, a query…)."""
    parsed = _parse_json(arguments)
    if not isinstance(parsed, dict):
        return cut(visible(arguments), SUMMARY_WIDTH) if arguments.strip() not in ("", "{}") else ""
    for key in SUMMARY_KEYS:
        value = parsed.get(key)
        if isinstance(value, str) and value.strip():
            return cut(visible(value), SUMMARY_WIDTH)
    for value in parsed.values():
        if isinstance(value, str) and value.strip():
            return cut(visible(value), SUMMARY_WIDTH)
    return ""


def pretty_arguments(arguments: str) -> str:
    """Arguments as indented JSON when they parse, else as given."""
    parsed = _parse_json(arguments)
    if parsed is None:
        return visible(arguments)
    return visible(json.dumps(parsed, indent=2, ensure_ascii=False))


def readable_result(result: str) -> str:
    """A result for reading: command output shown as text (with its other fields), JSON indented."""
    parsed = _parse_json(result)
    if isinstance(parsed, dict) and isinstance(parsed.get("output"), str):
        fields = [f"{key}: {value}" for key, value in parsed.items() if key != "output"]
        return visible("\n".join([*fields, parsed["output"]]))
    if isinstance(parsed, (dict, list)):
        return visible(json.dumps(parsed, indent=2, ensure_ascii=False))
    return visible(result)


def truncate_block(text: str, max_lines: int, max_chars: int) -> tuple[str, str]:
    """(shown text, note) — the note says what was cut, or is empty when nothing was."""
    lines = text.splitlines()
    shown = lines[:max_lines]
    shown_text = "\n".join(shown)
    notes: list[str] = []
    if len(lines) > max_lines:
        notes.append(f"{len(lines) - max_lines} more lines")
    if len(shown_text) > max_chars:
        notes.append(f"{len(shown_text) - max_chars} more characters")
        shown_text = shown_text[:max_chars]
    if not notes:
        return shown_text, ""
    return shown_text, f"… {' and '.join(notes)} not shown ({len(lines)} lines, {len(text)} chars in all)"


class ToolCard(Widget, can_focus=True):
    """A tool call: collapsed to one line, expanded to its arguments and result."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle", "Expand/collapse", show=False),
        Binding("space", "toggle", "Expand/collapse", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tool-card--icon",
        "tool-card--name",
        "tool-card--summary",
        "tool-card--ok",
        "tool-card--error",
        "tool-card--running",
        "tool-card--label",
        "tool-card--note",
    }

    expanded: reactive[bool] = reactive(False, layout=True)
    status: reactive[str] = reactive(TOOL_RUNNING, layout=True)
    spinner_frame: reactive[int] = reactive(0)

    def __init__(
        self,
        item: TranscriptItem,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.item = item
        self._spinner: Timer | None = None
        self.set_reactive(ToolCard.status, item.tool_status)
        # Parsing and cutting arguments and results is done once, not on every render (a spinner
        # tick re-renders the card 8 times a second, and arguments or results can be megabytes).
        self._summary: str | None = None
        self._arguments_shown: tuple[str, str] | None = None
        self._result_shown: tuple[str | None, tuple[str, str]] | None = None

    @property
    def call_id(self) -> str:
        return self.item.call_id

    def on_mount(self) -> None:
        self._sync_classes()
        if self.status == TOOL_RUNNING:
            self._spinner = self.set_interval(1 / 8, self._advance_spinner)

    def _advance_spinner(self) -> None:
        self.spinner_frame = (self.spinner_frame + 1) % len(SPINNER_FRAMES)

    def finish(self, result: str, is_error: bool, duration_s: float | None) -> None:
        """Show the result of the call (the transcript item is updated too)."""
        self.item.result = result
        self.item.duration_s = duration_s
        self.item.tool_status = TOOL_ERROR if is_error else TOOL_OK
        self.status = self.item.tool_status

    def watch_status(self, status: str) -> None:
        if status != TOOL_RUNNING and self._spinner is not None:
            self._spinner.stop()
            self._spinner = None
        self._sync_classes()

    def watch_expanded(self, _expanded: bool) -> None:
        self._sync_classes()

    def _sync_classes(self) -> None:
        self.set_class(self.expanded, "-expanded")
        self.set_class(self.status == TOOL_ERROR, "-error")
        self.set_class(self.status == TOOL_RUNNING, "-running")

    def action_toggle(self) -> None:
        self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.focus()
        self.expanded = not self.expanded

    # ------------------------------------------------------------------ rendering

    def _style(self, component: str) -> Style:
        return self.get_component_rich_style(component, partial=True)

    def header_text(self) -> Text:
        """The collapsed one-liner."""
        item = self.item
        header = Text(no_wrap=True, overflow="ellipsis")
        header.append("⚙ ", self._style("tool-card--icon"))
        header.append(visible(item.name) or "tool", self._style("tool-card--name"))
        if self._summary is None:
            self._summary = arguments_summary(item.arguments)
        summary = self._summary
        if summary:
            header.append("  ")
            header.append(summary, self._style("tool-card--summary"))
        header.append("  ")
        if self.status == TOOL_RUNNING:
            frame = SPINNER_FRAMES[self.spinner_frame % len(SPINNER_FRAMES)]
            header.append(f"{frame} running", self._style("tool-card--running"))
        elif self.status == TOOL_NO_RESULT:
            header.append("· no result", self._style("tool-card--summary"))
        else:
            ok = self.status == TOOL_OK
            mark = "✓" if ok else "✗"
            duration = f" {format_duration(item.duration_s)}" if item.duration_s is not None else ""
            header.append(f"{mark}{duration}", self._style("tool-card--ok" if ok else "tool-card--error"))
        header.append("  ▾" if self.expanded else "  ▸", self._style("tool-card--summary"))
        return header

    def body_text(self) -> Text:
        """The expanded details: arguments and result."""
        item = self.item
        body = Text()
        label = self._style("tool-card--label")
        note_style = self._style("tool-card--note")
        if self._arguments_shown is None:
            self._arguments_shown = truncate_block(
                pretty_arguments(item.arguments) or "{}", ARGUMENTS_MAX_LINES, RESULT_MAX_CHARS
            )
        arguments, arguments_note = self._arguments_shown
        body.append("arguments\n", label)
        body.append(arguments)
        if arguments_note:
            body.append("\n" + arguments_note, note_style)
        body.append("\nresult\n", label)
        if item.result is None:
            body.append("(still running)" if self.status == TOOL_RUNNING else "(no result recorded)", note_style)
        else:
            if self._result_shown is None or self._result_shown[0] is not item.result:
                cut_result = truncate_block(readable_result(item.result), RESULT_MAX_LINES, RESULT_MAX_CHARS)
                self._result_shown = (item.result, cut_result)
            shown, note = self._result_shown[1]
            body.append(shown or "(empty)")
            if note:
                body.append("\n" + note, note_style)
        return body

    def render(self) -> RenderableType:
        header = self.header_text()
        if not self.expanded:
            return header
        return Group(header, self.body_text())
