"""The built-in memory: MEMORY.md (agent notes) and USER.md (user profile) under <home>/memories.

File format, as Hermes writes it (so either program reads the other's files unchanged): the
entries joined by "\\n§\\n", no header, no trailing newline; reading splits on that separator,
trims each entry, drops empty ones and collapses duplicates. Limits count characters of the joined
file (2,200 and 1,375 by default); usage reads "22% — 503/2,200 chars".

Every mutation (`add`, `replace`, `remove`, and `apply_batch`: a list of those applied to one file
all or nothing, with the limit checked only on the result, so one call can free room and add)
runs under an exclusive lock on "<file>.lock", re-reads
the file under the lock (another process may have written since) and applies the change to what is
on disk now. A file that was edited outside the tool in a way that does not round-trip through the
format (a header, stray blank separators, duplicates, bytes that are not UTF-8) is backed up to
"<file>.bak-<timestamp>" and the mutation is refused, never silently rewritten. Writes go through a
0600 temporary file and a rename. Results are plain dicts in Hermes's response shape.

`snapshot_block()` renders the frozen block the system prompt carries for a whole session (each
entry re-screened; a suspicious one is shown as a "[BLOCKED: …]" placeholder).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_tui.core.memory.scan import scan_text
from hermes_tui.core.private_io import atomic_write_private, file_lock
from hermes_tui.store.regular_files import read_regular_bytes

ENTRY_SEPARATOR = "\n§\n"
RULE = "═" * 46
PREVIEW_CHARS = 80
TARGETS = ("memory", "user")
MEMORY_HEADING = "MEMORY (your personal notes)"
USER_HEADING = "USER PROFILE (who the user is)"


def parse_entries(text: str) -> list[str]:
    """The entries of a memory file's text: split on the separator, trimmed, empties and repeats dropped."""
    entries: list[str] = []
    for piece in text.split(ENTRY_SEPARATOR):
        entry = piece.strip()
        if entry and entry not in entries:
            entries.append(entry)
    return entries


def join_entries(entries: list[str]) -> str:
    return ENTRY_SEPARATOR.join(entries)


def usage_text(used: int, limit: int) -> str:
    """ "22% — 503/2,200 chars" (whole percent, rounded down)."""
    pct = int(used * 100 / limit) if limit > 0 else 0
    return f"{pct}% — {used:,}/{limit:,} chars"


def preview(entry: str) -> str:
    return entry if len(entry) <= PREVIEW_CHARS else entry[:PREVIEW_CHARS] + "..."


class MemoryDrift(Exception):
    """The file was changed outside the tool in a way the tool cannot preserve (it was backed up)."""


@dataclass(frozen=True)
class MemoryFile:
    """One of the two memory files: where it is, its prompt heading and its character limit."""

    target: str
    path: Path
    heading: str
    char_limit: int

    def read_text(self) -> str | None:
        """The file's text; None when it does not exist. Raises UnicodeDecodeError/OSError."""
        try:
            return read_regular_bytes(self.path).decode("utf-8")
        except FileNotFoundError:
            return None

    def entries(self) -> list[str]:
        """The entries on disk now ([] when missing or unreadable)."""
        try:
            return parse_entries(self.read_text() or "")
        except (OSError, UnicodeDecodeError):
            return []

    def usage(self, entries: list[str]) -> str:
        return usage_text(len(join_entries(entries)), self.char_limit)

    def block(self) -> str:
        """The prompt block: rule, heading with usage, rule, entries (suspicious ones blocked)."""
        entries = self.entries()
        if not entries:
            return ""
        shown = []
        for entry in entries:
            reason = scan_text(entry)
            shown.append(f"[BLOCKED: this entry looks like {reason}]" if reason else entry)
        return f"{RULE}\n{self.heading} [{self.usage(entries)}]\n{RULE}\n{join_entries(shown)}"


@dataclass(frozen=True)
class MemoryChange:
    """What a successful mutation did, for listeners (memory providers' on_memory_write)."""

    action: str
    target: str
    content: str
    before: str
    after: str


class MemoryStore:
    """The agent's notes and the user profile on disk, with Hermes's rules for changing them."""

    def __init__(
        self,
        folder: Path,
        *,
        memory_enabled: bool = True,
        user_profile_enabled: bool = True,
        memory_char_limit: int = 2200,
        user_char_limit: int = 1375,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.folder = folder
        self.memory = MemoryFile("memory", folder / "MEMORY.md", MEMORY_HEADING, memory_char_limit)
        self.user = MemoryFile("user", folder / "USER.md", USER_HEADING, user_char_limit)
        self.memory_enabled = memory_enabled
        self.user_profile_enabled = user_profile_enabled
        self._clock = clock
        self.listeners: list[Callable[[MemoryChange], None]] = []

    def file(self, target: str) -> MemoryFile:
        return self.memory if target == "memory" else self.user

    def enabled(self, target: str) -> bool:
        return self.memory_enabled if target == "memory" else self.user_profile_enabled

    # ------------------------------------------------------------------ the prompt snapshot

    def snapshot_block(self) -> str:
        """The frozen block for the system prompt (empty when there is nothing to show)."""
        blocks = []
        if self.memory_enabled:
            blocks.append(self.memory.block())
        if self.user_profile_enabled:
            blocks.append(self.user.block())
        return "\n\n".join(b.strip() for b in blocks if b)

    # ------------------------------------------------------------------ responses

    def _success(self, file: MemoryFile, entries: list[str], message: str) -> dict[str, Any]:
        return {
            "success": True,
            "target": file.target,
            "entries": entries,
            "usage": file.usage(entries),
            "entry_count": len(entries),
            "message": message,
        }

    @staticmethod
    def _error(message: str, **extra: Any) -> dict[str, Any]:
        return {"success": False, "error": message, **extra}

    def _refusal(self, file: MemoryFile, entries: list[str], message: str) -> dict[str, Any]:
        return self._error(message, current_entries=entries, usage=file.usage(entries))

    # ------------------------------------------------------------------ reading under the lock

    def _load_checked(self, file: MemoryFile) -> list[str]:
        """The entries on disk; MemoryDrift (after a backup) when the file does not round-trip."""
        try:
            text = file.read_text()
        except UnicodeDecodeError:
            raise MemoryDrift(self._backup(file, "it is not UTF-8 text")) from None
        if text is None:
            return []
        entries = parse_entries(text)
        if join_entries(entries) != text.strip():
            raise MemoryDrift(self._backup(file, "its layout is not the entry format"))
        return entries

    def _backup(self, file: MemoryFile, why: str) -> str:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self._clock()))
        backup = file.path.with_name(f"{file.path.name}.bak-{stamp}")
        n = 2
        while backup.exists():
            backup = file.path.with_name(f"{file.path.name}.bak-{stamp}-{n}")
            n += 1
        atomic_write_private(backup, read_regular_bytes(file.path))
        return (
            f"{file.path.name} was edited outside the memory tool and {why}; nothing was changed. "
            f"A copy was saved as {backup.name}. Fix or tidy the file, then try again."
        )

    def _write(self, file: MemoryFile, entries: list[str]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_private(file.path, join_entries(entries))

    # ------------------------------------------------------------------ mutations

    def apply(self, action: str, target: str, content: str = "", old_text: str = "") -> dict[str, Any]:
        """Run one memory-tool action; always returns a response dict, never raises for bad input."""
        if target not in TARGETS:
            return self._error(f"Unknown target '{target}'. Use 'memory' or 'user'.")
        if not self.enabled(target):
            which = "Agent memory" if target == "memory" else "The user profile"
            return self._error(f"{which} is turned off in the settings.")
        if action not in ("add", "replace", "remove"):
            return self._error(f"Unknown action '{action}'. Use add, replace or remove.")
        file = self.file(target)
        try:
            with file_lock(file.path):
                try:
                    entries = self._load_checked(file)
                except MemoryDrift as exc:
                    return self._error(str(exc))
                before = join_entries(entries)
                result, updated = getattr(self, f"_{action}")(file, entries, content.strip(), old_text.strip())
                if updated is not None:
                    self._write(file, updated)
        except OSError as exc:
            return self._error(f"Could not update {file.path.name}: {exc.strerror or exc}")
        if updated is not None:
            change = MemoryChange(action, target, content.strip(), before, join_entries(updated))
            for listener in list(self.listeners):
                try:
                    listener(change)
                except Exception:
                    pass
        return result

    def apply_batch(self, target: str, operations: object) -> dict[str, Any]:
        """Run several actions on one file at once: all of them, or none (the first problem is reported).

        Each operation is `{action, content?, old_text?}`. The character limit is checked on the final
        result only, so stale entries can be removed or shortened and a new one added in one call. An
        `add` of an entry that is already saved is skipped, not a failure.
        """
        if target not in TARGETS:
            return self._error(f"Unknown target '{target}'. Use 'memory' or 'user'.")
        if not self.enabled(target):
            which = "Agent memory" if target == "memory" else "The user profile"
            return self._error(f"{which} is turned off in the settings.")
        if not isinstance(operations, list) or not operations:
            return self._error("'operations' must be a non-empty list of {action, content?, old_text?} objects.")
        steps: list[tuple[str, str, str]] = []
        for number, op in enumerate(operations, 1):
            if not isinstance(op, dict):
                return self._error(f"Operation {number} is not an object; nothing was changed.")
            action, content = str(op.get("action") or ""), str(op.get("content") or "").strip()
            reason = scan_text(content) if action in ("add", "replace") and content else None
            if reason:
                return self._error(f"Operation {number}: {self._blocked(reason)['error']} Nothing was changed.")
            steps.append((action, content, str(op.get("old_text") or "").strip()))
        file = self.file(target)
        try:
            with file_lock(file.path):
                try:
                    entries = self._load_checked(file)
                except MemoryDrift as exc:
                    return self._error(str(exc))
                working, problem = self._batch_result(file, entries, steps)
                if problem is not None:
                    return problem
                self._write(file, working)
        except OSError as exc:
            return self._error(f"Could not update {file.path.name}: {exc.strerror or exc}")
        before, after = join_entries(entries), join_entries(working)
        for action, content, _old in steps:
            change = MemoryChange(action, target, content, before, after)
            for listener in list(self.listeners):
                try:
                    listener(change)
                except Exception:
                    pass
        return self._success(file, working, f"Applied {len(steps)} operation(s).")

    def _batch_result(
        self, file: MemoryFile, entries: list[str], steps: list[tuple[str, str, str]]
    ) -> tuple[list[str], dict[str, Any] | None]:
        """The entries after every step, or the refusal for the first one that cannot be done."""
        working = list(entries)

        def refused(message: str) -> tuple[list[str], dict[str, Any]]:
            return working, self._refusal(file, entries, f"{message} Nothing was changed (all or nothing).")

        for number, (action, content, old_text) in enumerate(steps, 1):
            where = f"Operation {number} ({action or 'no action'})"
            if action not in ("add", "replace", "remove"):
                return refused(f"{where}: unknown action. Use add, replace or remove.")
            if action == "add":
                if not content:
                    return refused(f"{where}: 'content' is empty.")
                if content not in working:
                    working.append(content)
                continue
            if action == "replace" and not content:
                return refused(f"{where}: the new 'content' is empty; use remove to delete an entry.")
            index, error = self._find(file, working, old_text)
            if error is not None or index is None:
                return refused(f"{where}: {(error or {}).get('error', 'no entry matched')}")
            if action == "replace":
                working[index] = content
                working = parse_entries(join_entries(working))
            else:
                working.pop(index)
        if len(join_entries(working)) > file.char_limit:
            would = len(join_entries(working))
            return refused(
                f"After all {len(steps)} operations {file.path.name} would hold {would:,} of its "
                f"{file.char_limit:,} characters. Remove or shorten more entries in the same call."
            )
        return working, None

    def _add(self, file: MemoryFile, entries: list[str], content: str, _old: str) -> tuple[dict, list[str] | None]:
        if not content:
            return self._error("Nothing to add: 'content' is empty."), None
        reason = scan_text(content)
        if reason:
            return self._blocked(reason), None
        if content in entries:
            return self._refusal(file, entries, "This entry is already saved; nothing was added."), None
        updated = [*entries, content]
        if len(join_entries(updated)) > file.char_limit:
            return self._over_limit(file, entries, updated), None
        return self._success(file, updated, "Entry added."), updated

    def _find(self, file: MemoryFile, entries: list[str], old_text: str) -> tuple[int | None, dict | None]:
        if not old_text:
            return None, self._error("Give 'old_text': a short piece of the entry to change.")
        hits = [i for i, entry in enumerate(entries) if old_text in entry]
        if not hits:
            return None, self._error(f"No entry matched '{old_text}'.", entries=entries)
        exact = [i for i in hits if entries[i] == old_text]
        if exact:  # the whole entry given (the Memory screen does this): no ambiguity
            return exact[0], None
        if len({entries[i] for i in hits}) > 1:
            return None, self._error(
                f"Multiple entries matched '{old_text}'. Be more specific.",
                matches=[preview(entries[i]) for i in hits],
            )
        return hits[0], None

    def _replace(
        self, file: MemoryFile, entries: list[str], content: str, old_text: str
    ) -> tuple[dict, list[str] | None]:
        if not content:
            return self._error("The new 'content' is empty; use action 'remove' to delete an entry."), None
        reason = scan_text(content)
        if reason:
            return self._blocked(reason), None
        index, error = self._find(file, entries, old_text)
        if error is not None or index is None:
            return error or {}, None
        updated = list(entries)
        updated[index] = content
        updated = parse_entries(join_entries(updated))  # a replacement equal to another entry collapses
        if len(join_entries(updated)) > file.char_limit:
            return self._over_limit(file, entries, updated), None
        return self._success(file, updated, "Entry replaced."), updated

    def _remove(self, file: MemoryFile, entries: list[str], _content: str, old_text: str) -> tuple[dict, list | None]:
        index, error = self._find(file, entries, old_text)
        if error is not None or index is None:
            return error or {}, None
        updated = [entry for i, entry in enumerate(entries) if i != index]
        return self._success(file, updated, "Entry removed."), updated

    def _over_limit(self, file: MemoryFile, entries: list[str], updated: list[str]) -> dict[str, Any]:
        would = len(join_entries(updated))
        return self._refusal(
            file,
            entries,
            f"{file.path.name} would hold {would:,} of its {file.char_limit:,} characters. "
            "Shorten the entry, or replace or remove older entries first.",
        )

    @staticmethod
    def _blocked(reason: str) -> dict[str, Any]:
        return MemoryStore._error(
            f"Refused: the content looks like {reason}. Memory holds facts and preferences, "
            "never instructions to the agent or secrets."
        )
