"""`ApprovalScreen`: ask the user whether a risky tool call may run.

Shows the tool, the whole command, the working directory and the reasons it is risky in the
error colour. Every line of the command is shown (`CommandListing`: a scrollable region, lines
numbered, long ones folded), with "N lines · M characters" above it and each span the risk check
flagged highlighted where it is; when a flagged line is out of view, a warning at the top names it
("⚠ line 50: recursive forced delete (rm -rf) — below …") until it is scrolled into view. The
command is shown exactly: every control and format character in it (a carriage return, an
erase-line or cursor-move sequence, a bidi override) appears as its escape, and when there is
any, a flag line says so — the prompt can never show `ls -la` while approving something else.

A file change that needs approval (`ApprovalRequest.change`) also shows the diff it would make,
coloured, in a `DiffView` under the command (only the rows on screen are drawn, so a 5,000-line
diff opens at once); the diff then has the focus, so the arrows read it first.

Keys: y allows, n / Esc deny, the buttons do the same. When the request offers it
(`session_scope`: "this exact command", "changing this file"), s allows for the rest of the
session — the core then never asks about that exact command or file again. When nothing is
flagged Allow has the focus and Enter allows, as before; when anything is (a reason, a flagged
span, a hidden character) the command has the focus (↑↓ PgUp PgDn Home End scroll it) and Enter
there does nothing, so a stray Enter never approves a risky command (Tab reaches the buttons).
The result is what the core's approver callback takes: True (allow once), False (deny) or
`ApprovalAnswer.SESSION`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from hermes_tui.core.tools.danger import Risk, find_risks
from hermes_tui.core.tools.permissions import ApprovalAnswer
from hermes_tui.text_safety import approval_view, visible
from hermes_tui.widgets.command_listing import CommandListing, FlaggedLine
from hermes_tui.widgets.diff_rows import change_rows
from hermes_tui.widgets.diff_view import DiffView

if TYPE_CHECKING:
    from hermes_tui.core.tools.file_diff import FileChange

TERMINAL_TOOL = "terminal"
OUT_OF_VIEW_NAMED = 3  # flagged lines out of view the top warning names; the rest are counted
LINES_NAMED = 5  # line numbers given after each reason
LONG_LINES = 8  # a command with more lines (or characters) gets the tall dialog
LONG_CHARACTERS = 480


def size_line(command: str, lines: int) -> str:
    """ "60 lines · 1,234 characters"."""
    return f"{lines:,} line{'s' if lines != 1 else ''} · {len(command):,} character{'s' if len(command) != 1 else ''}"


def out_of_view_warning(flagged: Sequence[FlaggedLine], top: int, bottom: int) -> str:
    """The top warning for flagged lines starting outside rows [top, bottom), or "" when all are in view."""
    hidden = [(line, "above" if line.row < top else "below") for line in flagged if not top <= line.row < bottom]
    parts = [
        f"⚠ line {line.line}: {', '.join(visible(reason) for reason in line.reasons)} — {where}, scroll to see it"
        for line, where in hidden[:OUT_OF_VIEW_NAMED]
    ]
    if len(hidden) > OUT_OF_VIEW_NAMED:
        parts.append(f"⚠ … and {len(hidden) - OUT_OF_VIEW_NAMED} more flagged lines out of view")
    return "\n".join(parts)


class ApprovalScreen(ModalScreen[bool | ApprovalAnswer]):
    """Allow or deny one tool call (or allow it for the rest of the session)."""

    AUTO_FOCUS = "#approval-allow"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "allow", "Allow", id="approval-allow"),
        Binding("enter", "allow_unflagged", "Allow, when nothing is flagged", show=False),
        Binding("s", "allow_session", "Allow for the rest of the session", id="approval-session"),
        Binding("n", "deny", "Deny", id="approval-deny"),
        Binding("escape", "deny", "Deny", show=False),
    ]

    def __init__(
        self,
        tool: str,
        command: str,
        cwd: str,
        reasons: Iterable[str],
        risks: Iterable[Risk] | None = None,
        *,
        change: FileChange | None = None,
        session_scope: str = "",
    ) -> None:
        """`risks` are the flagged spans of `command`; by default the risk check's, for the terminal tool.
        `change` is the diff a file change would make; `session_scope` names what s would allow for
        the session ("" = s is not offered)."""
        super().__init__()
        self.tool = tool
        self.command = command
        self.cwd = cwd
        self.reasons = tuple(reasons)
        self.change = change
        self.session_scope = session_scope
        if risks is None:
            risks = find_risks(command) if tool == TERMINAL_TOOL else ()
        self.risks = tuple(risks)
        self.command_view = approval_view(command)
        self.flagged = bool(self.reasons or self.risks or self.command_view.has_hidden)
        if self.flagged:
            self.AUTO_FOCUS = "#approval-command-box"  # reading it comes first: arrows scroll it at once
        self.listing = CommandListing(self.command_view, self.risks, id="approval-command")
        self.diff: DiffView | None = None
        if change is not None:
            self.diff = DiffView(list(change_rows(change)), id="approval-diff")
            self.AUTO_FOCUS = "#approval-diff"  # what the file would become is what there is to read

    def compose(self) -> ComposeResult:
        classes = " ".join(name for name, on in (("-long", self._long()), ("-with-diff", self.diff is not None)) if on)
        with Vertical(id="approval-dialog", classes=classes) as dialog:
            dialog.border_title = "Approval needed"
            yield Label(f"The agent wants to run [b]{self._escape(visible(self.tool))}[/b]:", id="approval-tool")
            yield Static("", markup=False, id="approval-out-of-view")
            yield Static(size_line(self.command, self.listing.line_count), markup=False, id="approval-size")
            with VerticalScroll(id="approval-command-box"):
                yield self.listing
            yield Label(f"in {visible(self.cwd)}", markup=False, id="approval-cwd")
            if self.command_view.has_hidden:
                yield Static(f"⚠ {self.command_view.warning()}", markup=False, id="approval-hidden")
            if self.reasons:
                yield Static(self._reasons_text(), markup=False, id="approval-reasons")
            if self.diff is not None:
                yield Static("The change it would make:", markup=False, id="approval-diff-title")
                yield self.diff
            with Horizontal(id="approval-buttons"):
                yield Button("Allow (y)", variant="success", id="approval-allow")
                if self.session_scope:
                    yield Button("Allow for session (s)", variant="primary", id="approval-session")
                yield Button("Deny (n)", variant="error", id="approval-deny")
            if self.session_scope:
                yield Static(
                    f"s: allow {visible(self.session_scope)} for the rest of the session",
                    markup=False,
                    id="approval-session-hint",
                )

    def on_mount(self) -> None:
        box = self.query_one("#approval-command-box", VerticalScroll)
        self.watch(box, "scroll_y", lambda _: self._show_out_of_view(), init=False)
        self.call_after_refresh(self._show_out_of_view)

    def on_resize(self) -> None:
        self.call_after_refresh(self._show_out_of_view)

    def _long(self) -> bool:
        """A command too long for a small box, or a diff to read: the dialog takes most of the screen."""
        if self.change is not None:
            return True
        return self.listing.line_count > LONG_LINES or len(self.command_view.text) > LONG_CHARACTERS

    @staticmethod
    def _escape(text: str) -> str:
        return text.replace("[", r"\[")

    def _reasons_text(self) -> str:
        lines_by_reason: dict[str, list[int]] = {}
        for risk in self.risks:
            line = self.listing.line_of(self.command_view.view_offset(risk.start)) + 1
            numbers = lines_by_reason.setdefault(risk.reason, [])
            if line not in numbers:
                numbers.append(line)
        shown: list[str] = []
        for reason in self.reasons:
            numbers = sorted(lines_by_reason.get(reason, []))
            where = ""
            if numbers and self.listing.line_count > 1:
                listed = ", ".join(str(number) for number in numbers[:LINES_NAMED])
                more = f" and {len(numbers) - LINES_NAMED} more" if len(numbers) > LINES_NAMED else ""
                where = f" — line{'s' if len(numbers) > 1 else ''} {listed}{more}"
            shown.append(f"⚠ {visible(reason)}{where}")
        return "\n".join(shown)

    def _show_out_of_view(self) -> None:
        """Name the flagged lines that are out of the command region's view (or hide the warning)."""
        if not self.is_attached:
            return
        box = self.query_one("#approval-command-box", VerticalScroll)
        warning = self.query_one("#approval-out-of-view", Static)
        width = self.listing.size.width
        if width <= 0:
            return
        top = round(box.scroll_y)
        text = out_of_view_warning(self.listing.flagged_rows(width), top, top + box.scrollable_content_region.height)
        warning.update(text)
        warning.display = bool(text)

    # ------------------------------------------------------------------ answers and keys

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "approval-session":
            self.action_allow_session()
            return
        self.dismiss(event.button.id == "approval-allow")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "allow_unflagged":
            return not self.flagged
        if action == "allow_session":
            return bool(self.session_scope)
        return True

    def action_allow_session(self) -> None:
        if self.session_scope:
            self.dismiss(ApprovalAnswer.SESSION)

    def action_allow(self) -> None:
        self.dismiss(True)

    def action_allow_unflagged(self) -> None:
        if not self.flagged:
            self.dismiss(True)

    def action_deny(self) -> None:
        self.dismiss(False)
