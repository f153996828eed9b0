"""Session moves behind the slash commands: /new, /resume, /branch, /title, /undo, /retry, /compress.

Branching from any message (`branch_at`) is in `hermes_tui.core.session.branching`.

`SessionMoves` coordinates one move across the collaborators that each own a part of it: the live
session changes identity (and emits SessionRotated / HistoryReplaced / TitleChanged itself), the
context meter forgets the old conversation's usage, the memory hooks hear about the boundary, the
gauge is re-published and the Review log gets a line. Methods return a short human message; user
mistakes raise `SessionError`, which the command dispatcher shows as an error line.
"""

from __future__ import annotations

from collections.abc import Callable

from hermes_tui.core.context.redact import redact_sensitive_text
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.memory import MemoryHooks
from hermes_tui.core.messages import content_text
from hermes_tui.core.session.branching import BranchResult, branch_at
from hermes_tui.core.session.compression import CompressionOrchestrator
from hermes_tui.core.session.live import LiveSession, SessionError, last_stored_id
from hermes_tui.core.session.manual_compress import manual_compress
from hermes_tui.core.session.meter import ContextMeter
from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import AmbiguousSession, SessionNotFound
from hermes_tui.store.models import EDGE_BRANCH
from hermes_tui.store.titles import sanitize_title

BUSY = "a turn is running — press Ctrl-C to interrupt it first"
RECENT_INDEX_DIGITS = 3  # "/resume 2" indexes the recent list; longer numbers are ids or prefixes


def clean_title(raw: str) -> str | None:
    """A title as stored (secrets masked, sanitised), or a SessionError saying what is wrong with it."""
    try:
        return sanitize_title(redact_sensitive_text(raw))
    except ValueError as exc:
        raise SessionError(str(exc)) from None


class SessionMoves:
    """The session commands of one agent."""

    def __init__(
        self,
        *,
        session: LiveSession,
        meter: ContextMeter,
        compression: CompressionOrchestrator,
        memory_hooks: MemoryHooks,
        emitter: Emitter,
        busy: Callable[[], bool],
    ) -> None:
        self._session = session
        self._meter = meter
        self._compression = compression
        self._hooks = memory_hooks
        self._events = emitter
        self._busy = busy

    def _require_idle(self) -> None:
        if self._busy():
            raise SessionError(BUSY)

    def _require_db(self) -> SessionDB:
        db = self._session.db
        if db is None:
            raise SessionError("sessions are not available: no state.db is open")
        return db

    async def new_session(self, title: str | None = None) -> str:
        """/new [title] (alias /reset): end the old session "new_session" and start fresh."""
        self._require_idle()
        session = self._session
        clean = clean_title(title) if title else None
        if clean and session.db is not None and await session.db.title_in_use(clean):
            raise SessionError(f"Title '{clean}' is already in use")
        if session.row_created:
            self._hooks.on_session_end(session.messages)
        await session.start_fresh(clean)
        self._meter.reset(totals=True)
        self._hooks.on_session_switch("", parent_session_id="", reason="new_session")
        self._meter.publish()
        named = f" “{clean}”" if clean else ""
        self._events.review("rotation", f"New session {session.id}{named}")
        return f"Started a new session {session.id}{named}"

    async def resolve(self, ref: str) -> str:
        """A session reference -> id: a small number indexes the recent list; else id, id prefix, the
        shown 6-character suffix or a title (`store.session_refs`; ambiguity lists the candidates)."""
        db = self._require_db()
        ref = ref.strip().strip("[]\"'")
        if not ref:
            raise SessionError("which session? give a number, an id (or its shown tail) or a title")
        if ref.isdigit() and len(ref) <= RECENT_INDEX_DIGITS:
            rows = await db.list_sessions_rich(limit=max(10, int(ref)))
            index = int(ref) - 1
            if not 0 <= index < len(rows):
                raise SessionError(f"there is no session #{ref} in the recent list")
            return str(rows[index]["id"])
        try:
            return await db.resolve_session(ref)
        except (SessionNotFound, AmbiguousSession) as exc:
            raise SessionError(str(exc)) from None

    async def resume(self, ref: str) -> str:
        """/resume N|id|prefix|title: end the current session "resumed_other", reopen the target."""
        self._require_idle()
        target = await self.resolve(ref)
        session = self._session
        if target == session.id:
            return f"Already in session {target}"
        old = session.id
        await session.switch_to(target)
        self._meter.reset(totals=False)
        self._hooks.on_session_switch(target, parent_session_id=old, reason="resume")
        await self._meter.prepare()  # a long history is measured in a worker, not on the event loop
        self._meter.publish()
        users = sum(1 for m in session.messages if m.get("role") == "user")
        total = len(session.messages)
        self._events.review("rotation", f"Resumed {target} ({users} user messages, {total} total)")
        return f"↻ Resumed session {target} ({users} user messages, {total} total)"

    async def continue_latest(self, title: str | None = None) -> str:
        """`--continue [title]`: resume the most recently active session, or the one `title` names —
        a title (its latest "#N" variant) or, as everywhere, an id, prefix or shown suffix — followed
        to its compression tip."""
        db = self._require_db()
        if title:
            try:
                target = await db.resolve_session(title)
            except (SessionNotFound, AmbiguousSession) as exc:
                raise SessionError(str(exc)) from None
        else:
            rows = await db.list_sessions_rich(limit=1)
            if not rows:
                raise SessionError("there is no session to continue yet")
            target = str(rows[0]["id"])
        return await self.resume(target)

    async def branch(self, name: str | None = None) -> str:
        """/branch [name] (alias /fork): copy the history into a child session and continue there."""
        self._require_idle()
        db = self._require_db()
        session = self._session
        if not session.messages:
            raise SessionError("nothing to branch yet — send a message first")
        await session.ensure_row()
        if name:
            title = clean_title(name)
            if title and await db.title_in_use(title):
                raise SessionError(f"Title '{title}' is already in use")
        else:
            title = await db.get_next_title_in_lineage(session.title or "branch")
        old = session.id
        new_id = await session.start_child(
            edge=EDGE_BRANCH,
            branch_point=last_stored_id(session.messages),
            end_reason="branched",
            reason="branch",
            title=title,
            system_prompt=session.rebuild_prompt(),
            messages=session.messages,
            announce_history=True,
        )
        self._hooks.on_session_switch(new_id, parent_session_id=old, reason="branch")
        self._meter.publish()
        named = f" “{title}”" if title else ""
        self._events.review("rotation", f"Branched {old} → {new_id}{named}")
        return f"⑂ Branched into {new_id}{named} (from {old})"

    async def branch_at(self, message_index: int, *, edit: bool, name: str | None = None) -> BranchResult:
        """Branch here (history through `message_index`) or edit and resend (history before it)."""
        self._require_idle()
        db = self._require_db()
        old = self._session.id
        result = await branch_at(self._session, db, message_index, edit=edit, name=name)
        self._hooks.on_session_switch(result.session_id, parent_session_id=old, reason="branch")
        self._meter.publish()
        named = f" “{result.title}”" if result.title else ""
        self._events.review("rotation", f"Branched {old} → {result.session_id}{named} at message {message_index}")
        return result

    async def title(self, name: str | None) -> str:
        """/title [name]: show or set the session title (queued until the row exists)."""
        session = self._session
        if not name or not name.strip():
            return f"Session {session.id}: " + (f"“{session.title}”" if session.title else "(untitled)")
        title = clean_title(name)
        if title is None:
            raise SessionError("a title needs at least one visible character")
        await session.set_title(title)
        return f"Title set to “{title}”"

    async def undo(self, count: int = 1) -> str:
        """/undo [N]: soft-rewind N user turns; returns the removed user text (for the input box)."""
        self._require_idle()
        if count < 1:
            raise SessionError("undo needs a positive number of turns")
        session = self._session
        users = [i for i, m in enumerate(session.messages) if m.get("role") == "user"]
        if not users:
            raise SessionError("nothing to undo")
        count = min(count, len(users))
        cut = users[-count]
        removed_text = content_text(session.messages[cut].get("content"))
        await session.rewind(cut)
        self._meter.publish()
        self._events.review("info", f"Undid {count} turn(s)")
        return removed_text

    async def compress(self, args: str) -> str:
        """/compress [focus | here [N]]: compress now and continue in a child session."""
        self._require_idle()
        return await manual_compress(self._session, self._compression, self._meter, args)
