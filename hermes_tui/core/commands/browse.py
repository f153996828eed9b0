"""/search, /compare and /inspect: their handlers, and the text the headless front-end prints.

A handler only resolves what the user typed to sessions and returns an intent (`OpenSearch`,
`OpenCompare`, `OpenInspector`): /search touches no store at all, and nothing here builds text for
the TUI, whose screens read the store themselves. The text functions (`search_text`,
`compare_text`, `inspect_text`, `parent_pair`) are called by the headless front-end alone
(`hermes_tui.headless.intent_text`). Session references name an exact session (id, unique id
prefix, title, or N of the recent list) — unlike /resume they do not follow a compression chain
to its tip, since comparing or inspecting a parent is the point. Mistakes raise SessionError
(one line).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from hermes_tui.core.branch_compare import CompareError, comparison_text, load_comparison
from hermes_tui.core.commands.result import CommandResult, OpenCompare, OpenInspector, OpenSearch
from hermes_tui.core.compression_inspect import (
    InspectError,
    compression_at_or_above,
    details_text,
    inspect_compression,
)
from hermes_tui.core.search_query import marked_pieces, parse_search
from hermes_tui.core.session.live import SessionError
from hermes_tui.core.session.moves import RECENT_INDEX_DIGITS
from hermes_tui.store.errors import AmbiguousSession, SessionNotFound
from hermes_tui.store.search_lineages import STOP_CAP, LineageSearchOptions

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent
    from hermes_tui.store.db import SessionDB

SEARCH_USAGE = 'usage: /search WORDS ["phrase"] [role:user] [source:cli] [since:7d] [until:2026-11-26]'
HEADLESS_SEARCH = LineageSearchOptions(max_lineages=20, hits_per_lineage=3, scan_cap=5000, time_budget_s=5.0)


def require_db(agent: Agent) -> SessionDB:
    """The open state.db, or the one line that says there is none."""
    if agent.db is None:
        raise SessionError("sessions are not available: no state.db is open")
    return agent.db


async def resolve_exact(agent: Agent, ref: str) -> str:
    """The session `ref` names, exactly (no compression tip, no descendant)."""
    ref = ref.strip().strip("[]\"'")
    if ref.isdigit() and len(ref) <= RECENT_INDEX_DIGITS:
        return await agent.moves.resolve(ref)
    try:
        return await require_db(agent).resolve_session(ref, follow_tip=False)
    except (SessionNotFound, AmbiguousSession) as exc:
        raise SessionError(str(exc)) from None


# --------------------------------------------------------------------------- the handlers


async def search(agent: Agent, args: str) -> CommandResult:
    """The search screen on what was typed (empty: the TUI opens an empty search; headless says what to type)."""
    return CommandResult(intent=OpenSearch(args.strip()))


async def compare(agent: Agent, args: str) -> CommandResult:
    if not args.strip():  # the TUI asks for the other session (the parent first); headless uses the parent
        return CommandResult(intent=OpenCompare(agent.session_id))
    left, right = await compare_pair(agent, args)
    return CommandResult(intent=OpenCompare(left, right))


async def inspect(agent: Agent, args: str) -> CommandResult:
    return CommandResult(intent=OpenInspector(await inspect_target(agent, args)))


# --------------------------------------------------------------------------- resolving references


async def compare_pair(agent: Agent, args: str) -> tuple[str, str]:
    """The two sessions `/compare A B` or `/compare A` (this session against A) names."""
    refs = args.split()
    if not refs or len(refs) > 2:
        raise SessionError("usage: /compare [SESSION [OTHER]]  (ids, prefixes, titles or N from /sessions)")
    if len(refs) == 2:
        return await resolve_exact(agent, refs[0]), await resolve_exact(agent, refs[1])
    return agent.session_id, await resolve_exact(agent, refs[0])


async def inspect_target(agent: Agent, args: str) -> str:
    """The child id of the compression /inspect shows (the one the named or current session carries)."""
    session_id = await resolve_exact(agent, args) if args.strip() else agent.session_id
    child = await compression_at_or_above(require_db(agent), session_id)
    if child is None:
        raise SessionError(f"no compression in the history of session {session_id}")
    return child


# --------------------------------------------------------------------------- headless text


async def search_text(db: SessionDB, line: str) -> str:
    """Every session's messages searched for `line` (filters included), one block per lineage."""
    request = parse_search(line, datetime.now(), as_you_type=False)
    if request.error:
        raise SessionError(request.error)
    if not request.query:
        raise SessionError(SEARCH_USAGE)
    found = await db.search_lineages(
        request.query,
        role_filter=list(request.roles) or None,
        source_filter=list(request.sources) or None,
        since=request.since,
        until=request.until,
        options=HEADLESS_SEARCH,
    )
    if found.query_error:
        raise SessionError("that query cannot be searched; try plain words")
    if not found.lineages:
        return f"No matches for {request.words!r}."
    more = " (the newest)" if found.stopped == STOP_CAP else ""
    lines = [f"{len(found.lineages)} lineage(s), {found.scanned:,} match(es){more}:"]
    for row in found.lineages:
        title = row.title or "(untitled)"
        lines.append(f"● {title}  [{row.tip_id}]  {row.hit_count} match(es) in {row.session_count} session(s)")
        for hit in row.hits:
            text = "".join(piece for piece, _matched in marked_pieces(hit.snippet))
            when = datetime.fromtimestamp(hit.timestamp).strftime("%Y-%m-%d %H:%M")
            lines.append(f"    {hit.session_id} #{hit.id} {hit.role} {when}: {text}")
    return "\n".join(lines)


async def parent_pair(agent: Agent, session_id: str) -> tuple[str, str]:
    """`session_id`'s parent and itself: what `/compare` alone compares headless."""
    if session_id == agent.session_id:
        parent = agent.session.parent_id
    else:
        row = await require_db(agent).get_session(session_id)
        parent = row.get("parent_session_id") if row else None
    if not parent:
        raise SessionError("this session has no parent to compare with; /compare SESSION [OTHER]")
    return parent, session_id


async def compare_text(db: SessionDB, left: str, right: str) -> str:
    try:
        return comparison_text(await load_comparison(db, left, right))
    except CompareError as exc:
        raise SessionError(str(exc)) from None


async def inspect_text(db: SessionDB, child_id: str) -> str:
    try:
        return details_text(await inspect_compression(db, child_id))
    except InspectError as exc:
        raise SessionError(str(exc)) from None
