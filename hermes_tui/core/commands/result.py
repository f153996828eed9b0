"""What a slash command hands back to the front-end (`CommandResult`), in a module of its own so
command handlers beside `core/commands/registry.py` can build one without importing the registry."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_tui.core.session.compression_check import CompressionPreview


@dataclass(frozen=True)
class Confirmation:
    """An interactive front-end shows `preview` and asks; `apply()` does the command when the user agrees."""

    preview: CompressionPreview
    apply: Callable[[], Awaitable[CommandResult]]


@dataclass
class CommandResult:
    output: str = ""
    send: str | None = None  # run this text as a user turn next
    prefill: str | None = None  # put this text back into the prompt input
    quit: bool = False
    show_help: bool = False
    error: bool = False
    clear_conversation: bool = False  # /clear: empty the conversation pane (the session is unchanged)
    screen: str = ""  # a screen for the TUI to open ("learning", "search", "compare", "inspect")
    screen_arg: str = ""  # what that screen opens on (a query, "LEFT RIGHT" session ids, a child id)
    confirm: Confirmation | None = None  # ask first (the TUI's /compress), then run `confirm.apply`
