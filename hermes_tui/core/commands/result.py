"""What a slash command hands back to the front-end: `CommandResult`, and the typed screen intents.

A command that opens a screen does not build the text of that screen: it returns an intent (open
the search on a query, compare two sessions, inspect a compression, show the learning screen,
the help or the context breakdown, copy a text). The TUI opens the screen, which reads the store
itself; the headless front-end turns the intent into text (`hermes_tui.headless.intent_text`).
So the TUI never computes an answer it would throw away. This module holds plain data only, so
every handler module can build a result without importing the registry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from hermes_tui.core.session.compression_check import CompressionPreview


@dataclass(frozen=True)
class OpenSearch:
    """/search: the search over every session's messages, on `query` (filters included; "" = empty)."""

    query: str = ""


@dataclass(frozen=True)
class OpenCompare:
    """/compare: two sessions side by side. `right` None: the other side is still to be chosen (the
    TUI asks, offering the parent first; headless compares `left` with its parent)."""

    left: str
    right: str | None = None


@dataclass(frozen=True)
class OpenInspector:
    """/inspect: what the compression that started session `child_id` did."""

    child_id: str


@dataclass(frozen=True)
class OpenLearning:
    """/memory, /skills: what the agent has learnt (`part` is what headless prints)."""

    part: Literal["memory", "skills"] = "memory"


@dataclass(frozen=True)
class ShowHelp:
    """/help: the commands and keys."""


@dataclass(frozen=True)
class OpenContext:
    """/context: what fills the window (`core.context_report.context_report(agent, top)`: the
    categories, the `top` heaviest messages with their positions in Agent.messages, the pinned ones)."""

    top: int = 10


@dataclass(frozen=True)
class CopyText:
    """/copy: put `text` (the `number`-th last answer) on the clipboard; headless prints it."""

    text: str
    number: int = 1


Intent = OpenSearch | OpenCompare | OpenInspector | OpenLearning | ShowHelp | OpenContext | CopyText


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
    error: bool = False
    clear_conversation: bool = False  # /clear: empty the conversation pane (the session is unchanged)
    intent: Intent | None = None  # a screen to open (the TUI) or to print as text (headless)
    confirm: Confirmation | None = None  # ask first (the TUI's /compress), then run `confirm.apply`
