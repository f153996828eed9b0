"""What a user means by a session reference: the one matcher behind every command that names a session.

A reference is matched, in this order, as
  1. an exact id,
  2. ids it selects: a unique prefix (`20261201_1231`), or the 6-hex tail the status bar and the
     Sessions tree show (`e87044`) — the start of that tail (`e870`) or the id's end (`7044`)
     from 4 characters on,
  3. a title (exact, or the newest "#N" of its lineage; `titles.resolve_session_by_title`).
A reference that selects several ids and is no title is ambiguous: `AmbiguousSession` names up to
`SHOWN_CANDIDATES` of them as "id · title · when", newest first. One that matches nothing is
`SessionNotFound`. Both messages are one line. Following a compression chain to its tip is the
caller's business (`LineageMixin.resolve_session`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from hermes_tui.store.base import escape_like
from hermes_tui.store.connection import StoreConnections
from hermes_tui.store.errors import AmbiguousSession, SessionNotFound

SHOWN_CANDIDATES = 5
MIN_SUFFIX = 4  # shorter tails match too much to be meant as an id
_CANDIDATE_LIMIT = 50  # ids read per kind of match; more are only counted as "more"

_LIKE = "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT ?"
_DESCRIBE = "SELECT id, title, started_at FROM sessions WHERE id IN ({marks}) ORDER BY started_at DESC, id DESC"


async def selected_ids(conns: StoreConnections, reference: str) -> list[str]:
    """The ids `reference` is a prefix of, or (from MIN_SUFFIX characters) the end of or the start of
    the tail after the last "_" of, without repeats."""
    pattern = escape_like(reference)
    found = [row[0] for row in await conns.fetchall(_LIKE, (pattern + "%", _CANDIDATE_LIMIT))]
    if len(reference) >= MIN_SUFFIX and "_" not in reference:
        found += [row[0] for row in await conns.fetchall(_LIKE, ("%" + pattern, _CANDIDATE_LIMIT))]
        in_tail = await conns.fetchall(_LIKE, ("%\\_" + pattern + "%", _CANDIDATE_LIMIT))
        found += [row[0] for row in in_tail if row[0].rsplit("_", 1)[-1].startswith(reference)]
    return list(dict.fromkeys(found))


def _when(started_at: object) -> str:
    if not isinstance(started_at, int | float) or isinstance(started_at, bool):
        return "?"
    try:
        return datetime.fromtimestamp(float(started_at)).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return "?"


async def describe_candidates(conns: StoreConnections, ids: list[str], shown: int = SHOWN_CANDIDATES) -> str:
    """ "id · title · when; …" for the newest `shown` of `ids` (and how many more there are)."""
    marks = ",".join("?" * len(ids))
    rows = await conns.fetchall(_DESCRIBE.format(marks=marks), tuple(ids))
    parts = [f"{row['id']} · {row['title'] or '(untitled)'} · {_when(row['started_at'])}" for row in rows[:shown]]
    more = len(ids) - len(parts)
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


async def match_reference(
    conns: StoreConnections, reference: str, by_title: Callable[[str], Awaitable[str | None]]
) -> str:
    """The one session `reference` (already cleaned of quotes and brackets) names; see the module doc."""
    if not reference:
        raise SessionNotFound("no session given")
    if await conns.fetchone("SELECT 1 FROM sessions WHERE id = ?", (reference,)):
        return reference
    ids = await selected_ids(conns, reference)
    if len(ids) == 1:
        return ids[0]
    titled = await by_title(reference)
    if titled is not None:
        return titled
    if ids:
        listing = await describe_candidates(conns, ids)
        raise AmbiguousSession(f"'{reference}' matches several sessions: {listing} — give more of the id")
    raise SessionNotFound(f"no session matches '{reference}' (an id, the 6-character tail shown, or a title)")
