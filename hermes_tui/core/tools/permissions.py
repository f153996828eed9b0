"""Who decides whether a tool call may act without asking: the permission mode and the session's allow list.

Owns `PermissionMode` (ask, accept_edits, read_only, yolo — the order Shift+Tab cycles through),
`ApprovalAnswer` (what a user can answer: once, for the rest of the session, or no) and
`Permissions`, the one owner of the current mode and of what the user allowed for the session.
Every approval decision consults it — `file_access.authorize` for the file tools, the terminal
tool for shell commands — so a mode change applies to the very next call:

- ask: today's rules. Shell commands ask; file tools ask outside the working folder and for
  sensitive files (`file_policy`).
- accept_edits: as ask, except that a write inside the working folder never asks for its
  name alone (the only in-folder reason that is not about secrets, code that runs later or
  another file's second name); sensitive files, links leading out and shell commands still ask.
- read_only (plan mode): write_file, patch and the terminal refuse with an error the model can
  read (`refusal`), telling it to propose instead.
- yolo: nothing asks (`--yes` starts here).

"Allow for the rest of the session" stores an exact key: the command string for the terminal,
the access and resolved path for a file tool. It lasts as long as this Permissions object (the
agent's process); a later identical request goes through unasked in ask and accept_edits mode.
Imports no tool module but the pure `file_policy`, so `base` can build a default one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from enum import StrEnum
from typing import Any

from hermes_tui.core.tools.file_policy import ODD_NAME


class PermissionMode(StrEnum):
    ASK = "ask"
    ACCEPT_EDITS = "accept_edits"
    READ_ONLY = "read_only"
    YOLO = "yolo"

    @property
    def label(self) -> str:
        """How the mode is named to a person (status bar, /mode)."""
        return _LABELS[self]

    @property
    def explanation(self) -> str:
        return _EXPLANATIONS[self]

    def next(self) -> PermissionMode:
        """The mode after this one in the Shift+Tab cycle."""
        order = list(PermissionMode)
        return order[(order.index(self) + 1) % len(order)]


_LABELS = {
    PermissionMode.ASK: "ask",
    PermissionMode.ACCEPT_EDITS: "accept edits",
    PermissionMode.READ_ONLY: "read-only (plan)",
    PermissionMode.YOLO: "yolo",
}
_EXPLANATIONS = {
    PermissionMode.ASK: "shell commands, and file access outside the working folder or to sensitive files, ask first",
    PermissionMode.ACCEPT_EDITS: "file changes inside the working folder go through; shell commands and sensitive "
    "or outside files still ask",
    PermissionMode.READ_ONLY: "no file changes and no shell commands: the agent reads, searches and proposes",
    PermissionMode.YOLO: "nothing asks: every command and file change runs at once",
}
_NAMES = {
    "ask": PermissionMode.ASK,
    "default": PermissionMode.ASK,
    "accept_edits": PermissionMode.ACCEPT_EDITS,
    "accept-edits": PermissionMode.ACCEPT_EDITS,
    "acceptedits": PermissionMode.ACCEPT_EDITS,
    "edits": PermissionMode.ACCEPT_EDITS,
    "read_only": PermissionMode.READ_ONLY,
    "read-only": PermissionMode.READ_ONLY,
    "readonly": PermissionMode.READ_ONLY,
    "plan": PermissionMode.READ_ONLY,
    "yolo": PermissionMode.YOLO,
}
MODE_NAMES = ("ask", "accept-edits", "read-only", "yolo")  # as /mode shows them


def parse_mode(text: str) -> PermissionMode | None:
    """The mode a user named ("accept-edits", "accept_edits", "plan", ...), or None."""
    return _NAMES.get(text.strip().lower())


def initial_mode(configured: str, auto_approve: bool) -> PermissionMode:
    """The mode an agent starts in: yolo with --yes (`auto_approve`), else the configured one."""
    if auto_approve:
        return PermissionMode.YOLO
    return parse_mode(configured) or PermissionMode.ASK


class ApprovalAnswer(StrEnum):
    ONCE = "once"
    SESSION = "session"  # allow this exact command (or file access) for the rest of the session
    DENY = "deny"


def as_answer(value: object) -> ApprovalAnswer:
    """An approver's reply as an ApprovalAnswer: True is once, False (or anything unknown) is deny."""
    if isinstance(value, ApprovalAnswer):
        return value
    if value is True:
        return ApprovalAnswer.ONCE
    if isinstance(value, str) and value in ApprovalAnswer._value2member_map_:
        return ApprovalAnswer(value)
    return ApprovalAnswer.DENY


# The in-folder reasons a write may skip in accept_edits mode (everything else still asks).
_ACCEPTED_EDIT_REASONS = frozenset({ODD_NAME})
MUTATING_TOOLS = frozenset({"write_file", "patch", "terminal"})


def read_only_refusal(tool: str) -> str:
    """The error a changing tool answers with in read-only (plan) mode; the model reads it."""
    what = "no shell command runs" if tool == "terminal" else f"{tool} cannot change files"
    return (
        f"Error: the user has put the agent in read-only (plan) mode, so {what}; nothing was done. "
        "Keep reading and searching, then propose the change (the commands to run, or the edits as a diff) "
        "and let the user switch the mode with /mode to carry it out."
    )


Approval = Callable[[Any], Awaitable[object]]  # base.Approver (base imports this module)


class Permissions:
    """The current permission mode and the session's allow list; one per agent."""

    def __init__(
        self,
        mode: PermissionMode = PermissionMode.ASK,
        on_change: Callable[[PermissionMode, PermissionMode], None] | None = None,
    ) -> None:
        self._mode = mode
        self._before_yolo = PermissionMode.ASK if mode is PermissionMode.YOLO else mode
        self._allowed: set[str] = set()
        self._on_change = on_change

    @property
    def mode(self) -> PermissionMode:
        return self._mode

    def set_mode(self, mode: PermissionMode) -> bool:
        """Switch to `mode`; True when it changed (the change callback was called)."""
        previous = self._mode
        if mode is previous:
            return False
        if mode is PermissionMode.YOLO:
            self._before_yolo = previous
        self._mode = mode
        if self._on_change is not None:
            self._on_change(mode, previous)
        return True

    def toggle_yolo(self) -> PermissionMode:
        """/yolo: into yolo, or back to the mode before it; returns the new mode."""
        self.set_mode(self._before_yolo if self._mode is PermissionMode.YOLO else PermissionMode.YOLO)
        return self._mode

    # ------------------------------------------------------------------ what the mode allows

    def refusal(self, tool: str) -> str | None:
        """The read-only refusal for a tool that changes things, else None."""
        if self._mode is PermissionMode.READ_ONLY and tool in MUTATING_TOOLS:
            return read_only_refusal(tool)
        return None

    def needs_asking(self, access: str, reasons: Iterable[str]) -> bool:
        """Whether a file access with these policy reasons must be put to the user in this mode."""
        reasons = frozenset(reasons)
        if not reasons or self._mode is PermissionMode.YOLO:
            return False
        if self._mode is PermissionMode.ACCEPT_EDITS and access == "write":
            return not reasons <= _ACCEPTED_EDIT_REASONS
        return True

    # ------------------------------------------------------------------ the session's allow list

    @property
    def allowed_commands(self) -> frozenset[str]:
        """The exact shell commands allowed for the rest of the session."""
        return frozenset(key.removeprefix("terminal:") for key in self._allowed if key.startswith("terminal:"))

    def allowed(self, key: str) -> bool:
        return key in self._allowed

    def allow_for_session(self, key: str) -> None:
        self._allowed.add(key)

    async def ask(self, approver: Approval | None, request: Any, key: str) -> ApprovalAnswer | None:
        """Put `request` to the user unless the mode or the allow list already answers it.

        Returns ONCE or SESSION when the call may go ahead (SESSION also stores `key`), DENY when
        the user said no, and None when no one can be asked (no approver: headless without a TTY).
        """
        if self._mode is PermissionMode.YOLO or key in self._allowed:
            return ApprovalAnswer.ONCE
        if approver is None:
            return None
        answer = as_answer(await approver(request))
        if answer is ApprovalAnswer.SESSION:
            self._allowed.add(key)
        return answer


def command_key(command: str) -> str:
    """The allow-list key of one exact shell command."""
    return f"terminal:{command}"


def file_key(access: str, resolved: str) -> str:
    """The allow-list key of one kind of access to one resolved path."""
    return f"file:{access}:{resolved}"
