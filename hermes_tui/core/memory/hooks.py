"""`MemoryHooks`: the memory hook points the turn, the compression and the session moves call.

This base does nothing, which is what the review fork and the tests without memory providers get.
`hermes_tui.core.memory.manager.MemoryManager` is the real implementation: it forwards each call to
the built-in provider and the one external provider, isolating failures. Hook calls never block a
turn: only `prefetch` is awaited (before the first model call); everything else returns at once.
"""

from __future__ import annotations

from typing import Any


class MemoryHooks:
    """Memory-provider hook points (no providers: every call is a no-op)."""

    def on_turn_start(self, turn_number: int, message: str) -> None:
        """A user turn starts."""

    async def prefetch(self, query: str, session_id: str) -> str:
        """Recall for this turn, for the API copy of the current user message ("" for none)."""
        return ""

    def queue_prefetch(self, query: str, session_id: str) -> None:
        """Background preparation for the next turn."""

    def sync_turn(
        self, user: str, assistant: str, session_id: str, messages: list[dict[str, Any]] | None = None
    ) -> None:
        """A completed (not interrupted) turn."""

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        """Text the providers want kept in the compression summary ("" for none)."""
        return ""

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reason: str = "") -> None:
        """Every session-id rotation (compression, /new, /resume, /branch)."""

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        """Real session boundaries only."""

    def system_prompt_block(self) -> str:
        """The external provider's block for the volatile tier of a new session's prompt."""
        return ""

    async def shutdown(self) -> None:
        """The agent is closing."""
