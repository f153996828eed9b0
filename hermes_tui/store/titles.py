"""Session titles (reference §2.7): sanitising, uniqueness, lineage numbering, lookup by title.

`sanitize_title` strips control and invisible/bidi characters, collapses whitespace and refuses
titles over 100 characters. Titles are unique among sessions (NULL never conflicts), except that a
compression continuation may take back a title its own compression ancestor holds: the title moves
to it (`/title refactor auth` on "refactor auth #2"; the ancestors are hidden behind their tip, so
the user could not free it otherwise). In a lineage, titles are numbered "base", "base #2",
"base #3"...; the numbered variants are matched with ASCII letters case-insensitively, as
Hermes's SQL `LIKE` matches them, and looking a title up returns the most recently started one.
"""

from __future__ import annotations

import re
import sqlite3

from hermes_tui.store.base import StoreBase, escape_like
from hermes_tui.store.connection import fetch_in
from hermes_tui.store.lineage_queries import LazyGraph, chain_up

MAX_TITLE_LENGTH = 100

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Zero-width marks, word joiners, bidi embeddings/overrides/isolates, line/paragraph separators,
# BOM and the interlinear annotation/object replacement block.
_INVISIBLE = re.compile("[\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffc]")
_WHITESPACE = re.compile(r"\s+")
_NUMBERED = re.compile(r"^(?P<base>.*?) #(?P<num>\d+)$")


def sanitize_title(title: str | None) -> str | None:
    """A clean title, or None when nothing is left. Raises ValueError when over 100 chars."""
    if title is None:
        return None
    text = _INVISIBLE.sub("", _CONTROL.sub("", str(title)))
    text = _WHITESPACE.sub(" ", text).strip()
    if not text:
        return None
    if len(text) > MAX_TITLE_LENGTH:
        raise ValueError(f"Title is too long ({len(text)} characters, the limit is {MAX_TITLE_LENGTH})")
    return text


def title_conflict_message(title: str, other_session_id: str) -> str:
    return f"Title '{title}' is already in use by session {other_session_id}"


def title_base(title: str) -> str:
    """`title` without a trailing " #N"."""
    match = _NUMBERED.match(title)
    return match.group("base") if match else title


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _same_base(a: str, b: str) -> bool:
    """Equal when ASCII letters are folded (SQLite's LIKE), other characters exactly."""
    return a.translate(_ASCII_LOWER) == b.translate(_ASCII_LOWER)


def _numbered_on(existing: str, base: str) -> int | None:
    """N when `existing` is "base #N" (base matched as `_same_base`), else None."""
    match = _NUMBERED.match(existing)
    return int(match.group("num")) if match and _same_base(match.group("base"), base) else None


def is_compression_ancestor(conn: sqlite3.Connection, ancestor_id: str, descendant_id: str) -> bool:
    """Whether `ancestor_id` is reached from `descendant_id` going up compression edges only."""
    if not ancestor_id or ancestor_id == descendant_id:
        return False
    return ancestor_id in chain_up(LazyGraph(conn), descendant_id)[:-1]


class TitlesMixin(StoreBase):
    async def set_session_title(self, session_id: str, title: str | None) -> bool:
        """Set (or clear, with an empty title) the session's title. True when the row exists.

        Raises ValueError "Title '…' is already in use by session …" or for a too-long title. A title
        held by one of the session's compression ancestors moves to the session instead.
        """
        clean = sanitize_title(title)

        def work(conn: sqlite3.Connection) -> bool:
            if clean is not None:
                taken = fetch_in(conn, "SELECT id FROM sessions WHERE title = ? AND id != ?", (clean, session_id))
                if taken:
                    holder = str(taken[0]["id"])
                    if not is_compression_ancestor(conn, holder, session_id):
                        raise ValueError(title_conflict_message(clean, holder))
                    conn.execute("UPDATE sessions SET title = NULL WHERE id = ?", (holder,))  # the title moves
            cursor = conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (clean, session_id))
            return cursor.rowcount > 0

        return await self._conns.write(work)

    async def get_session_title(self, session_id: str) -> str | None:
        return await self._conns.fetchvalue("SELECT title FROM sessions WHERE id = ?", (session_id,))

    async def title_in_use(self, title: str, exclude_session_id: str | None = None) -> str | None:
        """The id of the session using `title` (other than `exclude_session_id`), or None."""
        clean = sanitize_title(title)
        if clean is None:
            return None
        return await self._conns.fetchvalue(
            "SELECT id FROM sessions WHERE title = ? AND id != ?", (clean, exclude_session_id or "")
        )

    async def _numbered_variants(self, base: str) -> list[tuple[str, str, float]]:
        rows = await self._conns.fetchall(
            "SELECT id, title, started_at FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'",
            (base, escape_like(base) + " #%"),
        )
        return [(row["id"], row["title"], row["started_at"]) for row in rows]

    async def get_next_title_in_lineage(self, title: str) -> str:
        """The next free title in `title`'s lineage: "proj" -> "proj #2", "proj #2" -> "proj #3"."""
        base = title_base(title.strip())
        variants = await self._numbered_variants(base)
        if not variants:
            return base
        highest = 0
        for _, existing, _ in variants:
            number = 1 if existing == base else _numbered_on(existing, base)
            if number is not None:
                highest = max(highest, number)
        return f"{base} #{highest + 1}" if highest else base

    async def resolve_session_by_title(self, title: str) -> str | None:
        """The latest-started "title #N" session when numbered variants exist, else the exact title."""
        clean = sanitize_title(title)
        if clean is None:
            return None
        numbered = []
        exact = None
        for session_id, existing, started_at in await self._numbered_variants(clean):
            if existing == clean:
                exact = session_id
                continue
            if _numbered_on(existing, clean) is not None:
                numbered.append((started_at, session_id))
        if numbered:
            return max(numbered)[1]
        return exact
