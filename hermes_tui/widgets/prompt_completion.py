"""What the prompt offers to complete: slash commands, and the files and sessions of @-mentions.

A `Candidate` is one offer: the text that replaces what was typed (`insert`), how the list shows
it, and whether accepting it ends the completion (`final`: a command, a file, a session) or goes
on (a folder, whose entries are offered next). `slash_candidates("/comp")` reads the core's one
command registry (`hermes_tui.slash_commands`: names first, then aliases, as help and the palette
list them); `mention_candidates` asks the core's @-mention helpers — the working folder's files,
ranked, in a worker thread, and the session titles. `CompletionMenu` is the list: it follows the
prompt's `completions` and `completion_index`, never takes the focus, and a click accepts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core.mentions.tokens import SESSION_PREFIX, TypedMention, path_mention, session_mention
from hermes_tui.slash_commands import completion_candidates, slash_commands
from hermes_tui.text_safety import visible

if TYPE_CHECKING:
    from hermes_tui.core.mentions.files import FileIndex

SESSION_HINT = "quote a session's last answer"


@dataclass(frozen=True)
class Candidate:
    """One completion: `insert` replaces the typed token; `label` and `detail` are what the list shows."""

    insert: str
    label: str
    detail: str = ""
    final: bool = True


def slash_candidates(typed: str) -> list[Candidate]:
    """The commands (then aliases) that complete `typed` ("/co"), case-insensitively, in registry order."""
    helps: dict[str, str] = {}
    for command in slash_commands():
        helps[command.name] = command.help
        for alias in command.aliases:
            helps.setdefault(alias, f"same as {command.name}")
    lowered = typed.lower()
    return [
        Candidate(name, name, helps.get(name, ""))
        for name in completion_candidates()
        if name.startswith(lowered) and name != lowered
    ]


def _path_candidates(entries: list[str], query: str) -> list[Candidate]:
    candidates = [
        Candidate(path_mention(entry), entry, "folder" if entry.endswith("/") else "", final=not entry.endswith("/"))
        for entry in entries
    ]
    if query and SESSION_PREFIX.startswith(query):
        candidates.insert(0, Candidate(f"@{SESSION_PREFIX}", f"@{SESSION_PREFIX}", SESSION_HINT, final=False))
    elif not query:
        candidates.append(Candidate(f"@{SESSION_PREFIX}", f"@{SESSION_PREFIX}", SESSION_HINT, final=False))
    return candidates


async def mention_candidates(mention: TypedMention, cwd: Path, db: Any, files: FileIndex) -> list[Candidate]:
    """Files and folders of `cwd` for `@query`, or sessions for `@session:query`."""
    if mention.kind == "session":
        if db is None:
            return []
        from hermes_tui.core.mentions.sessions import session_choices

        choices = await session_choices(db, mention.query)
        return [
            Candidate(session_mention(choice.title), visible(choice.title), choice.session_id[-6:])
            for choice in choices
        ]
    entries = await asyncio.to_thread(files.rank, cwd, mention.query)
    return _path_candidates(entries, mention.query)
