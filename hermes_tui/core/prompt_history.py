"""The prompts you sent, kept per home in `<home>/.hermes_history` — the file Hermes's own CLI keeps.

Hermes reads and writes that file through prompt_toolkit's `FileHistory`, so this module speaks the
same format: every entry is a blank line, a comment line with the time it was written, then each
line of the prompt behind a "+":

    (blank line)
    # 2026-12-01 12:31:39.123456
    +first line of the prompt
    +its second line

Lines that do not start with "+" only separate entries, so any text file reads as some history.
`load_history(path)` returns the newest `MAX_ENTRIES` entries, oldest first, and at most one line
saying why the file was passed over: it is read only when it is a regular file (a FIFO or a device
is never opened: `store.regular_files`) of at most `MAX_FILE_BYTES`, and one holding NUL bytes is
taken as corrupt. `append_history(path, text)` adds one entry, secrets masked first (the redactor
every stored text goes through); the file is created 0600 and one that is looser is tightened.
Entries longer than `MAX_ENTRY_CHARS` (a huge paste) are kept in memory only. Blocking; the
standard library and our own helpers only.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from hermes_tui.store.file_modes import PRIVATE_FILE_MODE, looser_than
from hermes_tui.store.regular_files import read_regular_bytes

HISTORY_FILE_NAME = ".hermes_history"
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_ENTRIES = 500
MAX_ENTRY_CHARS = 100_000
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def history_path(home: Path) -> Path:
    """Where a home keeps its prompt history."""
    return home / HISTORY_FILE_NAME


@dataclass(frozen=True)
class LoadedHistory:
    """What `load_history` found: the entries (oldest first) and, when the file was passed over, why."""

    entries: tuple[str, ...] = ()
    problem: str | None = None


def _lines(data: str) -> list[str]:
    """The lines of `data` split at "\\n" only (a CR or a form feed is part of a prompt), each with its "\\n"."""
    pieces = data.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    return [*lines, pieces[-1]] if pieces[-1] else lines


def parse_history(data: str) -> list[str]:
    """The entries of a history file's text, oldest first (prompt_toolkit's reading of it)."""
    entries: list[str] = []
    lines: list[str] = []
    for line in _lines(data):
        if line.startswith("+"):
            lines.append(line[1:])
        elif lines:
            entries.append("".join(lines)[:-1])  # the last line's own newline is not part of the prompt
            lines = []
    if lines:
        text = "".join(lines)
        entries.append(text[:-1] if text.endswith("\n") else text)
    return entries


def format_entry(text: str, when: datetime | None = None) -> str:
    """One entry as the file holds it."""
    stamp = (when or datetime.now()).isoformat(sep=" ")
    return f"\n# {stamp}\n" + "".join(f"+{line}\n" for line in text.split("\n"))


def load_history(path: Path, limit: int = MAX_ENTRIES) -> LoadedHistory:
    """The newest `limit` entries of the file at `path` (none, quietly, when it does not exist)."""
    try:
        data = read_regular_bytes(path, limit=MAX_FILE_BYTES)
    except FileNotFoundError:
        return LoadedHistory()
    except OSError as exc:
        return LoadedHistory(problem=f"Prompt history {path} not read: it {exc}.")
    if b"\x00" in data:
        return LoadedHistory(problem=f"Prompt history {path} not read: it holds binary data, not prompts.")
    entries = [entry for entry in parse_history(data.decode("utf-8", "replace")) if entry.strip()]
    return LoadedHistory(tuple(entries[-limit:]) if limit > 0 else ())


def append_history(path: Path, text: str, when: datetime | None = None) -> str | None:
    """Add `text` (secrets masked) to the file at `path`; None when done, else one line saying why not."""
    if not text.strip() or len(text) > MAX_ENTRY_CHARS:
        return None
    from hermes_tui.core.context.redact import redact_sensitive_text  # (the context package is heavy to import)

    payload = format_entry(redact_sensitive_text(text), when).encode("utf-8", "replace")
    try:
        fd = os.open(path, _APPEND_FLAGS, PRIVATE_FILE_MODE)  # O_NONBLOCK: a FIFO there fails, never waits
    except OSError as exc:
        return f"Prompt history {path} not written: {exc.strerror or exc}."
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return f"Prompt history {path} not written: it is not a regular file."
        if looser_than(stat.S_IMODE(info.st_mode), PRIVATE_FILE_MODE):
            with contextlib.suppress(OSError):
                os.fchmod(fd, PRIVATE_FILE_MODE)  # prompts may hold secrets the redactor does not know
        view = memoryview(payload)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError as exc:
        return f"Prompt history {path} not written: {exc.strerror or exc}."
    finally:
        os.close(fd)
    return None
