"""The `session_search` tool: the agent looks through its own past sessions (reference §2.6).

No LLM calls. The mode follows from the arguments:
- scroll (`session_id` + `around_message_id`, wins over `query`): ±window messages around a
  message of another lineage; a message living in a descendant of the named session within the
  same lineage is followed transparently, with a warning;
- discover (`query`): full-text hits mapped to their lineage root, one per root, best first,
  each with an anchored window, bookends and where it sits in its session;
- browse (neither): recent sessions.
The current session's lineage is always excluded. Bad arguments give `{"error": ...}`; the
function never raises (except cancellation).
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import StoreError

DEFAULT_DISCOVER_LIMIT = 3
DEFAULT_BROWSE_LIMIT = 10
MAX_LIMIT = 10
DEFAULT_WINDOW = 5
MAX_WINDOW = 20
DISCOVER_WINDOW = 5
DISCOVER_BOOKEND = 3
INTERNAL_SEARCH_LIMIT = 50
DEFAULT_ROLES = ("user", "assistant")
EXCLUDED_SOURCES = ["tool"]
WHEN_FORMAT = "%B %d, %Y at %I:%M %p"

SESSION_SEARCH_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "session_search",
        "description": (
            "Search or browse your own past conversations (other sessions, never the current one). "
            "With no arguments: list recent sessions. With `query`: full-text search; each result shows "
            "the matching message with surrounding turns. With `session_id` + `around_message_id`: "
            "scroll the conversation around that message (use ids from earlier results)."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": 'Words to find; "quoted phrases", OR, NOT and prefix* work.',
                },
                "limit": {
                    "type": "integer",
                    "description": "How many sessions to return (1-10; default 3 for a query, 10 to browse).",
                },
                "role_filter": {
                    "type": "string",
                    "description": "Comma-separated roles that may match (default: user,assistant).",
                },
                "session_id": {
                    "type": "string",
                    "description": "Session to scroll (with around_message_id).",
                },
                "around_message_id": {
                    "type": "integer",
                    "description": "Message id to centre the scroll on.",
                },
                "window": {
                    "type": "integer",
                    "description": "Messages each side when scrolling (1-20; default 5).",
                },
            },
            "required": [],
        },
    },
}


class _BadArgs(ValueError):
    pass


def format_when(epoch: float | None) -> str:
    """Hermes's date style, e.g. "June 03, 2026 at 02:25 PM"."""
    return datetime.fromtimestamp(epoch).strftime(WHEN_FORMAT) if epoch else "unknown"


def _int_arg(args: dict[str, Any], name: str, default: int) -> int:
    value = args.get(name)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise _BadArgs(f"'{name}' must be an integer")
    try:
        return int(str(value).strip())
    except ValueError:
        raise _BadArgs(f"'{name}' must be an integer, got {value!r}") from None


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def _roles(args: dict[str, Any]) -> list[str]:
    value = args.get("role_filter")
    if value is None or value == "" or value == []:
        return list(DEFAULT_ROLES)
    if isinstance(value, str):
        roles = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, list):
        roles = [str(part).strip() for part in value if str(part).strip()]
    else:
        raise _BadArgs("'role_filter' must be a comma-separated string of roles")
    return roles or list(DEFAULT_ROLES)


async def _root_of(db: SessionDB, session_id: str | None) -> str | None:
    """`_resolve_to_parent`: the topmost ancestor; the input itself on any failure."""
    if not session_id:
        return None
    try:
        return await db.lineage_root(session_id)
    except StoreError:
        return session_id


async def session_search(db: SessionDB, current_session_id: str | None, args: dict[str, Any]) -> dict[str, Any]:
    """Run the tool; returns a JSON-able dict (`{"error": ...}` for bad arguments or a DB failure)."""
    if not isinstance(args, dict):
        return {"error": "arguments must be a JSON object"}
    try:
        current_root = await _root_of(db, current_session_id)
        if args.get("around_message_id") not in (None, ""):
            return await _scroll(db, current_root, args)
        query = args.get("query")
        if query is not None and not isinstance(query, str):
            raise _BadArgs("'query' must be a string")
        if query and query.strip():
            return await _discover(db, current_root, query.strip(), args)
        if args.get("session_id"):
            raise _BadArgs("to scroll a session give both 'session_id' and 'around_message_id'")
        return await _browse(db, current_root, args)
    except _BadArgs as exc:
        return {"error": str(exc)}
    except (StoreError, ValueError) as exc:
        return {"error": f"session search failed: {exc}"}
    except asyncio.CancelledError:
        raise


async def _browse(db: SessionDB, current_root: str | None, args: dict[str, Any]) -> dict[str, Any]:
    limit = _clamp(_int_arg(args, "limit", DEFAULT_BROWSE_LIMIT), 1, MAX_LIMIT)
    rows = await db.list_sessions_rich(limit=limit + 5, exclude_sources=EXCLUDED_SOURCES, order_by_last_active=True)
    sessions = []
    for row in rows:
        if row.get("parent_session_id") or row.get("lineage_root_id") == current_root:
            continue
        sessions.append(
            {
                "session_id": row["id"],
                "title": row.get("title"),
                "source": row.get("source"),
                "started_at": format_when(row.get("started_at")),
                "last_active": format_when(row.get("last_active")),
                "message_count": row.get("message_count") or 0,
                "preview": row.get("preview") or "",
            }
        )
        if len(sessions) >= limit:
            break
    return {"mode": "browse", "count": len(sessions), "sessions": sessions}


async def _discover(db: SessionDB, current_root: str | None, query: str, args: dict[str, Any]) -> dict[str, Any]:
    limit = _clamp(_int_arg(args, "limit", DEFAULT_DISCOVER_LIMIT), 1, MAX_LIMIT)
    hits = await db.search_messages(
        query, role_filter=_roles(args), exclude_sources=EXCLUDED_SOURCES, limit=INTERNAL_SEARCH_LIMIT
    )
    results: list[dict[str, Any]] = []
    seen_roots: set[str] = set()
    for hit in hits:
        root = hit.get("lineage_root_id") or hit["session_id"]
        if root == current_root or root in seen_roots:
            continue
        view = await db.get_anchored_view(
            hit["session_id"], hit["id"], window=DISCOVER_WINDOW, bookend=DISCOVER_BOOKEND
        )
        if view is None:
            continue
        seen_roots.add(root)
        session = await db.get_session(hit["session_id"]) or {}
        entry: dict[str, Any] = {
            "session_id": hit["session_id"],
            "when": format_when(hit.get("timestamp")),
            "source": hit.get("source"),
            "model": hit.get("model"),
            "title": session.get("title"),
            "matched_role": hit["role"],
            "match_message_id": hit["id"],
            "snippet": hit.get("snippet", ""),
            "bookend_start": view["bookend_start"],
            "messages": view["messages"],
            "bookend_end": view["bookend_end"],
            "messages_before": view["messages_before"],
            "messages_after": view["messages_after"],
        }
        if root != hit["session_id"]:
            entry["parent_session_id"] = root
        results.append(entry)
        if len(results) >= limit:
            break
    return {"mode": "discover", "query": query, "count": len(results), "results": results}


async def _scroll(db: SessionDB, current_root: str | None, args: dict[str, Any]) -> dict[str, Any]:
    session_id = args.get("session_id")
    if not isinstance(session_id, str) or not session_id.strip():
        raise _BadArgs("'session_id' is required with 'around_message_id'")
    session_id = session_id.strip()
    message_id = _int_arg(args, "around_message_id", 0)
    window = _clamp(_int_arg(args, "window", DEFAULT_WINDOW), 1, MAX_WINDOW)
    if await db.get_session(session_id) is None:
        return {"error": f"session {session_id} not found"}
    message = await db.get_message(message_id)
    if message is None:
        return {"error": f"message {message_id} not found"}
    anchor_session = message["session_id"]
    anchor_root = await _root_of(db, anchor_session)
    if current_root is not None and anchor_root == current_root:
        return {"error": "that message belongs to the current conversation's lineage; scroll only other sessions"}
    warning = None
    if anchor_session != session_id:
        chain = await db.lineage_chain(anchor_session)
        if session_id not in chain:
            return {"error": f"message {message_id} is not in session {session_id}"}
        warning = (
            f"message {message_id} lives in {anchor_session}, a later session of the same lineage; showing it there"
        )
    view = await db.get_messages_around(anchor_session, message_id, window=window)
    if view is None:
        return {"error": f"message {message_id} is no longer active in session {anchor_session}"}
    session = await db.get_session(anchor_session) or {}
    result: dict[str, Any] = {
        "mode": "scroll",
        "session_id": anchor_session,
        "title": session.get("title"),
        "when": format_when(message.get("timestamp")),
        "around_message_id": message_id,
        "window": window,
        **view,
    }
    if warning:
        result["warning"] = warning
    return result
