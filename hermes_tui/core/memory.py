"""Memory files (MEMORY.md, USER.md under <home>/memories) and the frozen prompt snapshot.

Owns reading the entries (separated by "\\n§\\n", as Hermes stores them), the usage figure, and the
snapshot block the system prompt embeds at session start (reference §8 "Prompt snapshot"). Writes
mid-session change the files, never the cached prompt; the snapshot is re-read on compression and
on a new session. Also the memory-provider hook points (no-op for now) the loop calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENTRY_SEPARATOR = "\n§\n"
RULE = "═" * 46


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    heading: str
    char_limit: int

    def entries(self) -> list[str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
        return [e.strip() for e in text.split(ENTRY_SEPARATOR) if e.strip()]

    def usage(self, entries: list[str]) -> str:
        used = len(ENTRY_SEPARATOR.join(entries))
        pct = int(used * 100 / self.char_limit) if self.char_limit else 0
        return f"{pct}% — {used:,}/{self.char_limit:,} chars"

    def block(self) -> str:
        entries = self.entries()
        if not entries:
            return ""
        body = ENTRY_SEPARATOR.join(entries)
        return f"{RULE}\n{self.heading} [{self.usage(entries)}]\n{RULE}\n{body}"


class MemoryStore:
    """The built-in memory: agent notes and the user profile, read from disk."""

    def __init__(
        self,
        folder: Path,
        *,
        memory_enabled: bool = True,
        user_profile_enabled: bool = True,
        memory_char_limit: int = 2200,
        user_char_limit: int = 1375,
    ) -> None:
        self.memory = MemoryFile(folder / "MEMORY.md", "MEMORY (your personal notes)", memory_char_limit)
        self.user = MemoryFile(folder / "USER.md", "USER PROFILE (who the user is)", user_char_limit)
        self.memory_enabled = memory_enabled
        self.user_profile_enabled = user_profile_enabled

    def snapshot_block(self) -> str:
        """The frozen block for the system prompt (empty when there is nothing to show)."""
        blocks = []
        if self.memory_enabled:
            blocks.append(self.memory.block())
        if self.user_profile_enabled:
            blocks.append(self.user.block())
        return "\n\n".join(b for b in blocks if b)


class MemoryHooks:
    """Memory-provider hook points the loop calls. Built-in behaviour: nothing (no external provider)."""

    def on_turn_start(self, turn_number: int, message: str) -> None:
        """Called at the start of each user turn."""

    def prefetch(self, query: str, session_id: str) -> str:
        return ""

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        return ""

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reason: str = "") -> None:
        """Called on every session-id rotation (compression, /new, /resume, /branch)."""

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        """Called at real session boundaries only."""

    def sync_turn(self, user: str, assistant: str, session_id: str) -> None:
        """Called after a completed (not interrupted) turn."""
