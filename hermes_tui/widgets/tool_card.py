"""`ToolCard`: one tool call in the transcript — a one-line summary that expands to the details.

Collapsed: "⚙ read_file  README.md  ✓ 0.01s" (a spinner while running, "✗" in the error colour on
failure). Expanded (Enter / Space / click when focused): the arguments as pretty JSON and the result,
cut to a sensible height with a note saying how much was left out. What JSON decoding brings back
(`\\u001b` in a command's output) is made visible again before it is shown.

A call that changed files (write_file, patch: `ToolCallFinished.changes`) shows them instead of
its argument: collapsed, "⚙ patch  app.py +1 −1  ✓" for one file, or "3 files +7 −2" with a
`path +a −b` line per file under it; expanded, the coloured unified diff of each file (a size line
for a binary or huge one), at most `DIFF_MAX_ROWS` rows with a note saying how many more, then the
start of the result. `a` opens the whole diff (`ShowWholeDiff`, answered by the main screen).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from hermes_tui.text_safety import visible
from hermes_tui.widgets.diff_rows import ROLES, DiffRow, change_title, files_line, rows_limited
from hermes_tui.widgets.diff_view import ShowWholeDiff, append_title, diff_text
from hermes_tui.widgets.formatting import cut, format_duration
from hermes_tui.widgets.transcript import (
    TOOL_ERROR,
    TOOL_NO_RESULT,
    TOOL_OK,
    TOOL_RUNNING,
    TranscriptItem,
)

if TYPE_CHECKING:
    from hermes_tui.core.tools.file_diff import FileChange

SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SUMMARY_KEYS = ("path", "file_path", "command", "pattern", "query", "url", "name", "title")
SUMMARY_WIDTH = 40
RESULT_MAX_LINES = 20
RESULT_MAX_CHARS = 4_000
ARGUMENTS_MAX_LINES = 30
DIFF_MAX_ROWS = 120  # rows of diff an expanded card draws; `a` shows the rest
FILES_LISTED = 8  # files named one per line under a collapsed card that changed several
CHANGED_RESULT_MAX_LINES = 6  # a call that changed files: its result is mostly the diff again


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
        Binding("a", "show_whole_diff", "The whole diff (a call that changed files)", show=False),
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
        *(f"tool-card--diff-{role}" for role in ROLES),
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
        self._diff_shown: tuple[list[DiffRow], int] | None = None

    @property
    def call_id(self) -> str:
        return self.item.call_id

    def on_mount(self) -> None:
        self._sync_classes()
        if self.status == TOOL_RUNNING:
            self._spinner = self.set_interval(1 / 8, self._advance_spinner)

    def _advance_spinner(self) -> None:
        self.spinner_frame = (self.spinner_frame + 1) % len(SPINNER_FRAMES)

    @property
    def changes(self) -> tuple[FileChange, ...]:
        """The files this call changed (empty for calls that change none)."""
        return self.item.changes

    def finish(self, result: str, is_error: bool, duration_s: float | None, changes: Sequence[FileChange] = ()) -> None:
        """Show the result of the call and the files it changed (the transcript item is updated too)."""
        self.item.result = result
        self.item.duration_s = duration_s
        self.item.changes = tuple(changes)
        self._diff_shown = None
        self.refresh(layout=True)  # the files listed under the card change its height
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "show_whole_diff":
            return bool(self.item.changes)
        return True

    def action_show_whole_diff(self) -> None:
        if self.item.changes:
            self.post_message(ShowWholeDiff(visible(self.item.name) or "tool", self.item.changes))

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
        if item.changes:
            header.append("  ")
            title = change_title(item.changes[0]) if len(item.changes) == 1 else files_line(item.changes)
            append_title(header, title, self._diff_style)
        else:
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

    def _diff_style(self, role: str) -> Style:
        return self._style(f"tool-card--diff-{role}")

    def files_text(self) -> Text | None:
        """Under a collapsed card that changed several files: a `path +a −b` line per file."""
        changes = self.item.changes
        if len(changes) < 2:
            return None
        text = Text(no_wrap=True, overflow="ellipsis")
        for index, change in enumerate(changes[:FILES_LISTED]):
            text.append("\n  " if index else "  ")
            append_title(text, change_title(change), self._diff_style)
        if len(changes) > FILES_LISTED:
            text.append(f"\n  … and {len(changes) - FILES_LISTED} more files", self._style("tool-card--note"))
        return text

    def diff_body(self) -> RenderableType:
        """The expanded details of a call that changed files: its diff (cut), then the start of its result."""
        item = self.item
        if self._diff_shown is None:
            self._diff_shown = rows_limited(item.changes, DIFF_MAX_ROWS)
        rows, hidden = self._diff_shown
        parts: list[RenderableType] = [diff_text(rows, self._diff_style)]
        note_style = self._style("tool-card--note")
        if hidden:
            parts.append(Text(f"… {hidden:,} more diff rows not shown — a: the whole diff", note_style))
        result = Text()
        result.append("result\n", self._style("tool-card--label"))
        shown, note = truncate_block(readable_result(item.result or ""), CHANGED_RESULT_MAX_LINES, RESULT_MAX_CHARS)
        result.append(shown or "(empty)")
        if note:
            result.append("\n" + note, note_style)
        parts.append(result)
        return Group(*parts)

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
            files = self.files_text()
            return header if files is None else Group(header, files)
        if self.item.changes:
            return Group(header, self.diff_body())
        return Group(header, self.body_text())
