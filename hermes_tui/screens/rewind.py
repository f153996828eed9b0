"""`RewindScreen`: the rewind picker (Esc Esc when idle, or F6) — back to before one of your turns.

Three steps in one modal. 1: the conversation's user turns, newest first, each with its number,
when it was sent, its text and what its checkpoint says (`RewindTurn.code_line`: the checkpoint
holding the files as they were, what changed since, or why there is none). 2: what to restore —
code and conversation, the conversation only (a branch from just before that message; its text
comes back in the prompt), or the code only; the code choices are disabled, with the reason, when
no checkpoint holds that turn's files. 3: a confirmation saying what will change (for the files,
the stat of what restoring undoes, read by the `summary` callable the app passes; a checkpoint of
the files as they are is taken first, so the rewind can be undone). y or Enter does it; n or Esc
goes back a step (from the first step it closes). The result is a `RewindChoice`, or None.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import ContentSwitcher, Label, OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.rewind import RewindTurn, RewindWhat

STEP_TURNS = "rewind-turns"
STEP_WHAT = "rewind-what"
STEP_CONFIRM = "rewind-confirm"
LOADING = "Reading what changed since the checkpoint…"
HINTS = {
    STEP_TURNS: "↑↓ choose · Enter: next · Esc: close",
    STEP_WHAT: "↑↓ choose · Enter: next · Esc: back to the turns",
    STEP_CONFIRM: "y / Enter: rewind · n / Esc: back",
}
WHAT_LABELS = {
    RewindWhat.BOTH: "Restore code and conversation",
    RewindWhat.CONVERSATION: "Restore the conversation only",
    RewindWhat.CODE: "Restore the code only",
}
"""The choices of step 2, in the order they are offered."""

Summary = Callable[[RewindTurn], Awaitable[str]]


@dataclass(frozen=True)
class RewindChoice:
    """What the user chose: rewind to just before `turn`, restoring `what`."""

    turn: RewindTurn
    what: RewindWhat


def sent_label(sent_at: float | None) -> str:
    """When a turn was sent, short: "11-26 22:15" ("" when not known)."""
    return datetime.fromtimestamp(sent_at).strftime("%m-%d %H:%M") if sent_at else ""


def turn_prompt(turn: RewindTurn) -> Text:
    """A turn's two lines in the list: number, time and text; then what its checkpoint says."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"#{turn.number}", "bold")
    when = sent_label(turn.sent_at)
    if when:
        text.append(f"  {when}", "dim")
    text.append(f"  {turn.preview}")
    text.append(f"\n    {'◆' if turn.can_restore_code else '·'} {turn.code_line()}", "dim")
    return text


def what_prompt(what: RewindWhat, turn: RewindTurn) -> Text:
    """A step-2 choice: what it does, and why it cannot be chosen when it cannot."""
    text = Text(WHAT_LABELS[what], "bold")
    if what.restores_code and not turn.can_restore_code:
        text.append(f" — not possible: {turn.code_line()}", "dim")
    elif what is RewindWhat.CONVERSATION:
        text.append(" — a branch from just before this message; its text comes back in the prompt", "dim")
    elif what is RewindWhat.CODE:
        text.append(f" — the files as they were before turn #{turn.number}; the conversation stays", "dim")
    else:
        text.append(" — the files first, then the conversation", "dim")
    return text


def confirm_text(choice: RewindChoice, summary: str) -> str:
    """What step 3 says will happen."""
    turn = choice.turn
    lines = [f"Rewind to just before turn #{turn.number}: “{turn.preview}”", ""]
    if choice.what.restores_code:
        lines.append(f"Files: back to checkpoint {turn.checkpoint}. These changes since are undone:")
        lines.extend(f"  {line}" for line in (summary or LOADING).splitlines())
        lines.append("A checkpoint of the files as they are is taken first: /rollback can undo this.")
        lines.append("")
    if choice.what.restores_conversation:
        lines.append(
            "Conversation: a new branch whose history ends just before that message; its text comes back"
            " in the prompt. This session keeps every message (/resume goes back to it)."
        )
    return "\n".join(lines).rstrip()


class RewindScreen(ModalScreen[RewindChoice | None]):
    """Pick a turn, what to restore, confirm."""

    AUTO_FOCUS = "#rewind-turn-list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back a step (closes from the list)", id="rewind-back"),
        Binding("n", "back", "Back a step", show=False),
        Binding("y", "confirm", "Rewind (when asked to confirm)", id="rewind-confirm"),
        Binding("enter", "confirm", "Rewind (when asked to confirm)", show=False),
    ]

    def __init__(self, turns: Sequence[RewindTurn], summary: Summary | None = None) -> None:
        super().__init__()
        self.turns = list(turns)
        self._summary = summary
        self.turn: RewindTurn | None = None
        self.choice: RewindChoice | None = None
        self.summary_text = ""

    @property
    def step(self) -> str:
        return self.query_one(ContentSwitcher).current or STEP_TURNS

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-dialog") as dialog:
            dialog.border_title = "Rewind"
            with ContentSwitcher(initial=STEP_TURNS):
                with Vertical(id=STEP_TURNS):
                    heading = "Rewind to just before which turn? (newest first)" if self.turns else "No turns yet."
                    yield Label(heading, classes="rewind-heading")
                    yield OptionList(
                        *(Option(turn_prompt(turn), id=str(index)) for index, turn in enumerate(self.turns)),
                        id="rewind-turn-list",
                    )
                with Vertical(id=STEP_WHAT):
                    yield Static("", markup=False, id="rewind-what-heading", classes="rewind-heading")
                    yield OptionList(id="rewind-what-list")
                with VerticalScroll(id=STEP_CONFIRM, can_focus=True):
                    yield Static("", markup=False, id="rewind-confirm-text")
            yield Label(HINTS[STEP_TURNS], id="rewind-hint")

    # ------------------------------------------------------------------ steps

    def _show(self, step: str) -> None:
        self.query_one(ContentSwitcher).current = step
        self.query_one("#rewind-hint", Label).update(HINTS[step])
        focus = {STEP_TURNS: "#rewind-turn-list", STEP_WHAT: "#rewind-what-list", STEP_CONFIRM: f"#{STEP_CONFIRM}"}
        self.query_one(focus[step]).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_list.id == "rewind-turn-list" and event.option.id is not None:
            self.choose_turn(self.turns[int(event.option.id)])
        elif event.option_list.id == "rewind-what-list" and self.turn is not None and event.option.id:
            self.choose_what(RewindWhat(event.option.id))

    def choose_turn(self, turn: RewindTurn) -> None:
        """Step 2 for `turn`: what to restore."""
        self.turn = turn
        self.query_one("#rewind-what-heading", Static).update(f"Before turn #{turn.number}: “{turn.preview}”")
        options = self.query_one("#rewind-what-list", OptionList)
        options.clear_options()
        options.add_options(
            Option(what_prompt(what, turn), id=what.value, disabled=what.restores_code and not turn.can_restore_code)
            for what in WHAT_LABELS
        )
        options.highlighted = next(i for i, what in enumerate(WHAT_LABELS) if turn.can_restore_code or i == 1)
        self._show(STEP_WHAT)

    def choose_what(self, what: RewindWhat) -> None:
        """Step 3: say what will change, and wait for y."""
        assert self.turn is not None
        if what.restores_code and not self.turn.can_restore_code:
            return
        self.choice = RewindChoice(self.turn, what)
        self.summary_text = ""
        self._update_confirm()
        self._show(STEP_CONFIRM)
        if what.restores_code and self._summary is not None:
            self.run_worker(self._load_summary(self.choice), group="rewind-summary", exclusive=True)

    async def _load_summary(self, choice: RewindChoice) -> None:
        assert self._summary is not None
        text = await self._summary(choice.turn)
        if self.choice is choice and self.is_attached:
            self.summary_text = text or "(nothing)"
            self._update_confirm()

    def _update_confirm(self) -> None:
        if self.choice is not None:
            self.query_one("#rewind-confirm-text", Static).update(confirm_text(self.choice, self.summary_text))

    # ------------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "confirm":
            return self.step == STEP_CONFIRM
        return True

    def action_confirm(self) -> None:
        if self.step == STEP_CONFIRM and self.choice is not None:
            self.dismiss(self.choice)

    def action_back(self) -> None:
        step = self.step
        if step == STEP_CONFIRM:
            self.choice = None
            self._show(STEP_WHAT)
        elif step == STEP_WHAT:
            self.turn = None
            self._show(STEP_TURNS)
        else:
            self.dismiss(None)
