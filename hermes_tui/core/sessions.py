"""Session moves: /new, /resume, /branch, /title, /undo, /retry (reference §3 rotation table, §10).

Each move ends the old session with its Hermes end reason, switches the Agent to the new or
target session, resets what a new session resets (flush cursor, cached system prompt, todo,
compressor state), and emits `SessionRotated` + `HistoryReplaced` so the UI updates live.
Functions return a short human message; user mistakes raise `SessionCommandError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_tui.core import events as ev
from hermes_tui.core.messages import content_text
from hermes_tui.core.todo import TodoStore
from hermes_tui.store.ids import new_session_id

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent


class SessionCommandError(Exception):
    """A session command that cannot be done as asked; the message is one clear line."""


def _require_db(agent: Agent) -> Any:
    if agent.db is None:
        raise SessionCommandError("sessions are not available: no state.db is open")
    return agent.db


def _require_idle(agent: Agent) -> None:
    if agent.turn_active:
        raise SessionCommandError("a turn is running — press Ctrl-C to interrupt it first")


def _reset_conversation_state(agent: Agent) -> None:
    agent.cursor.reset(len(agent.messages))
    agent.cached_system_prompt = None
    agent.compressor.reset_session_state()
    agent.todo = TodoStore()
    agent.user_turn_count = 0
    agent.turns_since_memory = 0


def _switch(agent: Agent, new_id: str, reason: str, *, title: str | None = None) -> None:
    old = agent.session_id
    agent.session_id = new_id
    agent.emit(ev.SessionRotated(old, new_id, reason, title))
    agent.emit(ev.HistoryReplaced(new_id, list(agent.messages), reason))
    agent.emit_budget()


def _clean_title(agent: Agent, raw: str) -> str | None:
    from hermes_tui.store.titles import sanitize_title

    try:
        return sanitize_title(raw)
    except ValueError as exc:
        raise SessionCommandError(str(exc)) from None


async def new_session(agent: Agent, title: str | None = None) -> str:
    """/new [title] (alias /reset): end the old session "new_session" and start fresh."""
    _require_idle(agent)
    clean = _clean_title(agent, title) if title else None
    if clean and agent.db is not None and await agent.db.title_in_use(clean):
        raise SessionCommandError(f"Title '{clean}' is already in use")
    old = agent.session_id
    if agent.db is not None and agent.session_row_created:
        agent.memory_hooks.on_session_end(agent.messages)
        await agent.db.end_session(old, "new_session")
    agent.messages = []
    agent.parent_session_id = None
    agent.pending_title = clean
    agent.mark_session_created(False)
    _reset_conversation_state(agent)
    agent.totals = type(agent.totals)()
    agent.memory_hooks.on_session_switch("", parent_session_id="", reason="new_session")
    _switch(agent, new_session_id(), "new_session", title=clean)
    agent.review("rotation", f"New session {agent.session_id}" + (f" “{clean}”" if clean else ""))
    return f"Started a new session {agent.session_id}" + (f" “{clean}”" if clean else "")


async def load_session(agent: Agent, target: str, *, reason: str = "resume") -> int:
    """Make `target` the live session with its stored history; returns the message count."""
    db = _require_db(agent)
    history = await db.get_messages_as_conversation(target)
    history = [m for m in history if m.get("role") != "session_meta"]
    row = await db.get_session(target) or {}
    await db.reopen_session(target)
    agent.messages = history
    agent.parent_session_id = row.get("parent_session_id")
    agent.pending_title = None
    agent.mark_session_created(True)
    _reset_conversation_state(agent)
    agent.todo.hydrate_from_history(history)
    _switch(agent, target, reason, title=row.get("title"))
    return len(history)


async def resolve_target(agent: Agent, ref: str) -> str:
    """A session reference -> id: a number indexes the recent list; else id, prefix, title."""
    db = _require_db(agent)
    ref = ref.strip().strip("[]\"'")
    if not ref:
        raise SessionCommandError("which session? give a number, an id, an id prefix or a title")
    if ref.isdigit() and len(ref) <= 3:
        rows = await db.list_sessions_rich(limit=max(10, int(ref)))
        index = int(ref) - 1
        if not 0 <= index < len(rows):
            raise SessionCommandError(f"there is no session #{ref} in the recent list")
        return str(rows[index]["id"])
    from hermes_tui.store.errors import AmbiguousSession, SessionNotFound

    try:
        return await db.resolve_session(ref)
    except (SessionNotFound, AmbiguousSession) as exc:
        raise SessionCommandError(str(exc)) from None


async def resume_session(agent: Agent, ref: str) -> str:
    """/resume N|id|prefix|title: end the current session "resumed_other", reopen the target."""
    _require_idle(agent)
    target = await resolve_target(agent, ref)
    if target == agent.session_id:
        return f"Already in session {target}"
    db = _require_db(agent)
    if agent.session_row_created:
        await db.end_session(agent.session_id, "resumed_other")
    old = agent.session_id
    total = await load_session(agent, target)
    agent.memory_hooks.on_session_switch(target, parent_session_id=old, reason="resume")
    users = sum(1 for m in agent.messages if m.get("role") == "user")
    agent.review("rotation", f"Resumed {target} ({users} user messages, {total} total)")
    return f"↻ Resumed session {target} ({users} user messages, {total} total)"


async def branch_session(agent: Agent, name: str | None = None) -> str:
    """/branch [name] (alias /fork): copy the history into a child session and continue there."""
    _require_idle(agent)
    db = _require_db(agent)
    if not agent.messages:
        raise SessionCommandError("nothing to branch yet — send a message first")
    await agent.ensure_session_row()
    old = agent.session_id
    row = await db.get_session(old) or {}
    if name:
        title = _clean_title(agent, name)
        if title and await db.title_in_use(title):
            raise SessionCommandError(f"Title '{title}' is already in use")
    else:
        title = await db.get_next_title_in_lineage(row.get("title") or "branch")
    new_id = await start_child_session(
        agent, old, row, end_reason="branched", title=title, system_prompt=agent.rebuild_system_prompt()
    )
    from hermes_tui.core.persistence import to_row

    ids = await db.append_messages(new_id, [to_row(m) for m in agent.messages])
    agent.messages = [dict(m) for m in agent.messages]
    for message, row_id in zip(agent.messages, ids, strict=False):
        message["_db_id"] = row_id
    agent.cursor.reset(len(agent.messages))
    agent.parent_session_id = old
    agent.mark_session_created(True)
    agent.memory_hooks.on_session_switch(new_id, parent_session_id=old, reason="branch")
    _switch(agent, new_id, "branch", title=title)
    agent.review("rotation", f"Branched {old} → {new_id}" + (f" “{title}”" if title else ""))
    return f"⑂ Branched into {new_id}" + (f" “{title}”" if title else "") + f" (from {old})"


async def set_title(agent: Agent, name: str | None) -> str:
    """/title [name]: show or set the session title (queued until the row exists)."""
    if not name or not name.strip():
        current = agent.pending_title
        if agent.db is not None and agent.session_row_created:
            current = (await agent.db.get_session(agent.session_id) or {}).get("title")
        return f"Session {agent.session_id}: " + (f"“{current}”" if current else "(untitled)")
    title = _clean_title(agent, name)
    if agent.db is None:
        agent.pending_title = title
        return f"Title set to “{title}”"
    if agent.session_row_created:
        try:
            await agent.db.set_session_title(agent.session_id, title)
        except ValueError as exc:
            raise SessionCommandError(str(exc)) from None
    else:
        if title and await agent.db.title_in_use(title):
            raise SessionCommandError(f"Title '{title}' is already in use")
        agent.pending_title = title
    agent.emit(ev.SessionRotated(agent.session_id, agent.session_id, "title", title))
    return f"Title set to “{title}”"


async def start_child_session(
    agent: Agent,
    parent_id: str,
    parent_row: dict[str, Any],
    *,
    end_reason: str,
    title: str | None,
    system_prompt: str,
) -> str:
    """End `parent_id` with `end_reason` and create its child row (Hermes's rotation rule, §3).

    The child keeps the parent's source, model and model_config, and gets `system_prompt` and
    `title`. Ending first means the child starts after the parent ended, which is how
    lineage queries tell a continuation or branch from a delegate child. Returns the new id.
    """
    db = _require_db(agent)
    await db.end_session(parent_id, end_reason)
    new_id = new_session_id()
    await db.create_session(
        new_id,
        parent_row.get("source") or agent.source,
        model=parent_row.get("model") or agent.provider.model,
        model_config=parent_row.get("model_config"),
        parent_session_id=parent_id,
        cwd=str(agent.cwd),
    )
    if title:
        await db.set_session_title(new_id, title)
    await db.update_system_prompt(new_id, system_prompt)
    return new_id


def _user_indexes(messages: list[dict[str, Any]]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.get("role") == "user"]


async def undo(agent: Agent, count: int = 1) -> str:
    """/undo [N]: soft-rewind N user turns; returns the removed user text (for the input box)."""
    _require_idle(agent)
    if count < 1:
        raise SessionCommandError("undo needs a positive number of turns")
    users = _user_indexes(agent.messages)
    if not users:
        raise SessionCommandError("nothing to undo")
    count = min(count, len(users))
    cut = users[-count]
    removed_text = content_text(agent.messages[cut].get("content"))
    db_id = agent.messages[cut].get("_db_id")
    if agent.db is not None and agent.session_row_created and db_id is not None:
        await agent.db.rewind_to_message(agent.session_id, int(db_id))
    agent.messages = agent.messages[:cut]
    agent.cursor.reset(len(agent.messages))
    agent.cached_system_prompt = None
    agent.emit(ev.HistoryReplaced(agent.session_id, list(agent.messages), "undo"))
    agent.emit_budget()
    agent.review("info", f"Undid {count} turn(s)")
    return removed_text


async def retry_text(agent: Agent) -> str:
    """/retry: remove the last user turn and everything after it; returns its text to re-send."""
    return await undo(agent, 1)
