"""The memory-provider interface (Hermes's lifecycle) and what a provider is built from.

A `MemoryProvider` adds recall to the agent from somewhere other than the two memory files. The
lifecycle, in the order the agent calls it: `initialize` once per session id; `system_prompt_block`
when a session's prompt is built (static text for the volatile tier); `prefetch` before each turn's
first model call (fast; its text goes into the API copy of the current user message only);
`queue_prefetch` and `sync_turn` after a completed turn (background work, never awaited by the
turn); `get_tool_schemas`/`handle_tool_call` for tools of its own; `shutdown` at the end. The
optional hooks default to doing nothing. Any method may be a coroutine function; the manager
awaits or schedules it. A method that raises is isolated by the manager (`core.memory.manager`).

External providers are found through the entry-point group `ENTRY_POINT_GROUP`; each entry point
names a callable taking a `ProviderContext` and returning a provider.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_tui.config import Settings
    from hermes_tui.core.memory.store import MemoryChange
    from hermes_tui.store.db import SessionDB

ENTRY_POINT_GROUP = "hermes_tui.memory_providers"


@dataclass
class ProviderContext:
    """What a provider may use: the home folder, the settings, the state.db and the working folder."""

    home: Path
    settings: Settings
    db: SessionDB | None
    cwd: Path
    extra: dict[str, Any] = field(default_factory=dict)


class MemoryProvider:
    """Base class of memory providers; override what the provider does, leave the rest."""

    name: str = "provider"

    # ------------------------------------------------------------------ lifecycle

    def initialize(self, session_id: str, **kwargs: Any) -> Any:
        """A session starts (or the agent starts in one)."""

    def system_prompt_block(self) -> str:
        """Static text for the volatile tier of a new session's system prompt ("" for none)."""
        return ""

    def prefetch(self, query: str, session_id: str) -> Any:
        """Recall for the turn about to run: text (or a coroutine giving text); "" for nothing."""
        return ""

    def queue_prefetch(self, query: str, session_id: str) -> Any:
        """Prepare the next turn's prefetch in the background."""

    def sync_turn(self, user: str, assistant: str, session_id: str, messages: list[dict[str, Any]]) -> Any:
        """A completed, not interrupted turn: store what is worth keeping (background)."""

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function schemas of this provider's own tools."""
        return []

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> Any:
        """Run one of this provider's tools: a string or dict result (or a coroutine giving one)."""
        return {"error": f"{self.name} has no tool named {name}"}

    def shutdown(self) -> Any:
        """The agent is closing: release what the provider holds."""

    # ------------------------------------------------------------------ optional hooks

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> Any:
        """A user turn begins."""

    def on_session_end(self, messages: list[dict[str, Any]]) -> Any:
        """A real session boundary (quit, /new, compression), not the end of every turn."""

    def on_session_switch(
        self, new_session_id: str, parent_session_id: str = "", reset: bool = False, rewound: bool = False, **kw: Any
    ) -> Any:
        """The session id changed (compression, /new, /resume, /branch, /undo)."""

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> Any:
        """Compression is about to summarise `messages`: text worth keeping in the summary ("" for none)."""
        return ""

    def on_memory_write(self, action: str, target: str, content: str, metadata: dict[str, Any]) -> Any:
        """The built-in memory tool changed MEMORY.md or USER.md."""

    def on_delegation(self, task: str, result: str, child_session_id: str) -> Any:
        """A delegated sub-task finished."""


def change_metadata(change: MemoryChange) -> dict[str, Any]:
    return {"before": change.before, "after": change.after}
