"""`LiveSession`: the one owner of the session a conversation is writing to.

Owns the session's identity — id, parent id, title (queued until the row exists), whether the row
exists — its message list, the `FlushCursor` that writes that list to state.db exactly once, the
cached system prompt, the todo list and the per-session turn counters. Nothing else assigns any
of these. Every change of session is one method that leaves all of it consistent and emits the
events the UI updates from, together:

    ensure_row()      the row is created lazily, with the queued title (reference §3)
    flush(messages)   pending messages are written through the cursor
    save_partial()    the answer being streamed is stored (and rewritten) as an interrupted row;
                      the next flush settles it (see `core.session.persistence`)
    commit(messages)  a finished turn's list becomes the live list
    start_fresh()     /new: the old session ends, an empty one begins    -> SessionRotated, HistoryReplaced
    switch_to()       /resume: a stored session and its history          -> SessionRotated, HistoryReplaced
    start_child()     compression and /branch: end the parent with a reason, create the child with its
                      title, prompt, the messages it starts with and its recorded edge (kind and
                      branch point, store/edges.py)                      -> SessionRotated (+ HistoryReplaced)
    compact_in_place() Hermes's in-place compaction: the same id; the stored live rows become
                      compacted (kept, searchable), the compacted list the new live rows
                      (the orchestrator announces it: CompressionFinished(in_place=True))
    set_title()       /title                                             -> TitleChanged
    set_pinned()      /pin, /unpin: one message flagged (core/session/pins.py owns the record)
    rewind(index)     /undo: drop the messages from `index` on           -> HistoryReplaced
    end(reason)       closing

`prompt_overlay` (/personality) is added after the cached prompt in what `system_prompt` returns,
so every request carries it from the next call on, but it is never stored with the session.

State that is not the session's (compressor budgets, token totals, memory hooks) belongs to the
collaborators that coordinate a move (`hermes_tui.core.session.moves`, the compression orchestrator).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core import events as ev
from hermes_tui.core.context.pins import PIN_KEY
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.messages import Message
from hermes_tui.core.providers.base import Usage
from hermes_tui.core.session.persistence import FlushCursor
from hermes_tui.core.session.workspace import git_identity
from hermes_tui.core.todo import TodoStore
from hermes_tui.store.edges import EdgeRecord, child_model_config
from hermes_tui.store.ids import new_session_id
from hermes_tui.store.models import EDGE_ROOT, LineageNode

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

UNSAVED_PREVIEW = "new session (saved with the first message)"


class SessionError(Exception):
    """A session move that cannot be done as asked; the message is one clear line."""


def last_stored_id(messages: list[Message]) -> int | None:
    """The state.db row id of the newest stored message in `messages` (None when none is stored)."""
    for message in reversed(messages):
        row_id = message.get("_db_id")
        if isinstance(row_id, int) and not isinstance(row_id, bool):
            return row_id
    return None


@dataclass
class TurnCounters:
    """Per-session counters the memory and skill nudges read (reference §8)."""

    user_turns: int = 0
    turns_since_memory: int = 0
    iters_since_skill: int = 0

    def reset(self) -> None:
        self.user_turns = 0
        self.turns_since_memory = 0
        self.iters_since_skill = 0


class LiveSession:
    """The session the agent is talking in right now."""

    def __init__(
        self,
        *,
        db: SessionDB | None,
        emitter: Emitter,
        source: str,
        cwd: Path,
        model: Callable[[], str],
        build_prompt: Callable[[], str],
        session_id: str | None = None,
        clock: Callable[[], datetime] = datetime.now,
    ) -> None:
        self._db = db
        self._events = emitter
        self._source = source
        self._cwd = cwd
        self._model = model
        self._build_prompt = build_prompt
        self._clock = clock
        self._id = session_id or new_session_id()
        self._parent_id: str | None = None
        self._edge: EdgeRecord | None = None  # written with the row when the split could not create it
        self._title: str | None = None
        self._row_created = False
        self._cursor = FlushCursor()
        self._writing = asyncio.Lock()  # one cursor write at a time: the turn and its partial saver
        self._system_prompt: str | None = None
        self._messages: list[Message] = []
        self._started_at = clock()
        self._git: tuple[str | None, str | None] | None = None  # (branch, repo root) of cwd, read once
        self.todo = TodoStore()
        self.counters = TurnCounters()
        self.prompt_overlay = ""  # /personality: sent after the cached prompt, never stored

    # ------------------------------------------------------------------ read access

    @property
    def id(self) -> str:
        return self._id

    @property
    def parent_id(self) -> str | None:
        return self._parent_id

    @property
    def title(self) -> str | None:
        """The title, whether already stored or queued for the row's creation."""
        return self._title

    @property
    def pending_title(self) -> str | None:
        """The title while it waits for the row to exist; None once stored."""
        return None if self._row_created else self._title

    @property
    def row_created(self) -> bool:
        return self._row_created

    @property
    def messages(self) -> list[Message]:
        """The live history (read it; change it only through this class's methods)."""
        return self._messages

    @property
    def system_prompt(self) -> str | None:
        """The cached system prompt (with the overlay, if any), or None until the first turn needs it."""
        if self._system_prompt is None or not self.prompt_overlay:
            return self._system_prompt
        return f"{self._system_prompt}\n\n{self.prompt_overlay}"

    @property
    def started_at(self) -> datetime:
        return self._started_at

    @property
    def db(self) -> SessionDB | None:
        return self._db

    def unsaved_node(self) -> LineageNode | None:
        """The lineage-tree node of a session whose row does not exist yet (None once it does)."""
        if self._row_created:
            return None
        now = time.time()
        return LineageNode(
            id=self._id,
            parent_id=self._parent_id,
            edge=EDGE_ROOT,
            title=self._title,
            source=self._source,
            model=self._model(),
            started_at=now,
            ended_at=None,
            end_reason=None,
            message_count=0,
            last_active=now,
            preview=UNSAVED_PREVIEW,
        )

    # ------------------------------------------------------------------ writing

    def _git_fields(self) -> dict[str, str | None]:
        """The working folder's git branch and repository root for a new row (v21's columns)."""
        if self._git is None:
            self._git = git_identity(self._cwd)
        return {"git_branch": self._git[0], "git_repo_root": self._git[1]}

    async def ensure_row(self) -> bool:
        """Create the row lazily (reference §3); a failure is warned about and retried next time.

        A queued title that another session took meanwhile, or a parent that vanished, never keeps
        the conversation from being saved: the row is created without it, with a warning.
        """
        if self._row_created or self._db is None:
            return self._row_created
        fields: dict[str, Any] = {"title": self._title, "parent_session_id": self._parent_id, "edge": self._edge}
        if self._edge is not None:  # a split that failed earlier: mark a branch as the split would have
            fields["model_config"] = child_model_config(None, self._edge.kind, self._edge.parent_id)
        while True:
            try:
                await self._db.create_session(
                    self._id, self._source, model=self._model(), cwd=str(self._cwd), **fields, **self._git_fields()
                )
            except ValueError as exc:  # a title conflict or a missing parent: save without it
                dropped = next((key for key in ("title", "parent_session_id") if fields[key]), None)
                if dropped is None:
                    self._events.warn(f"could not create the session row: {exc}")
                    return False
                self._events.warn(f"{exc} — saving the session without it")
                fields[dropped] = None
                if dropped == "title":
                    self._title = None
                    self._events.emit(ev.TitleChanged(self._id, None))
                else:
                    self._parent_id = None
                    fields["edge"] = self._edge = None
                    fields["model_config"] = None
                continue
            except Exception as exc:
                self._events.warn(f"could not create the session row: {exc}")
                return False
            self._row_created = True
            self._edge = None
            return True

    async def _write(self, work: Callable[[SessionDB], Awaitable[None]]) -> None:
        """Run one cursor write under the lock and to its end, even when the caller is cancelled.

        A Ctrl-C (or SIGTERM) landing mid-write must not leave a row stored that the cursor does
        not count (it would be written twice): the write finishes in its own task while the
        cancellation goes on to the caller.
        """
        db = self._db
        if db is None:
            return

        async def locked() -> None:
            async with self._writing:
                await work(db)

        await asyncio.shield(locked())

    async def flush(self, messages: list[Message] | None = None) -> None:
        """Write what `messages` (default: the live list) holds beyond the cursor; never raises."""
        await self.ensure_row()

        async def work(db: SessionDB) -> None:
            try:
                await self._cursor.flush(db, self._id, self._messages if messages is None else messages)
            except Exception as exc:  # never lose the turn over a write error: the next flush retries
                self._events.warn(f"could not save messages to state.db: {exc}")

        await self._write(work)

    async def save_partial(self, snapshot: Callable[[], tuple[list[Message], str] | None]) -> None:
        """Store the answer being streamed, marked interrupted until a flush settles it.

        `snapshot()` is read once this write's turn comes (so it never saves a stream that ended
        meanwhile) and gives the list the answer streams after and its text so far, or None.
        Raises what the database raises (the caller decides how loudly to say so); the row and
        the cursor stay consistent either way.
        """
        if not await self.ensure_row():
            return

        async def work(db: SessionDB) -> None:
            current = snapshot()
            if current is not None:
                await self._cursor.save_partial(db, self._id, *current)

        await self._write(work)

    async def discard_partial(self) -> None:
        """Delete the stored partial answer, if one is unsettled (a turn whose end is not stored)."""

        async def work(db: SessionDB) -> None:
            try:
                await self._cursor.discard_partial(db, self._id)
            except Exception as exc:
                self._events.warn(f"could not remove the partial answer from state.db: {exc}")

        await self._write(work)

    def commit(self, messages: list[Message]) -> None:
        """A finished turn's working list becomes the live history."""
        self._messages = messages
        if self._cursor.flushed > len(messages):
            self._cursor.reset(len(messages))

    async def record_usage(self, usage: Usage, *, cost_usd: float | None = None) -> None:
        """Add one API call's token counts (and its estimated cost, when known) to the session row."""
        if self._db is None:
            return
        await self.ensure_row()
        try:
            await self._db.update_token_counts(
                self._id,
                input_tokens=usage.input_tokens,
                output_tokens=usage.completion_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                reasoning_tokens=usage.reasoning_tokens,
                api_call_count=1,
                model=self._model(),
                estimated_cost_usd=cost_usd,
                cost_status="estimated" if cost_usd is not None else None,
                cost_source="hermes-tui price table" if cost_usd is not None else None,
            )
        except Exception as exc:
            self._events.warn(f"could not save token counts: {exc}")

    # ------------------------------------------------------------------ system prompt

    async def prompt(self) -> str:
        """The cached prompt; restored verbatim from the row for a continuing session (§6.0 step 3)."""
        if self._system_prompt is not None:
            return self._system_prompt
        stored = None
        if self._messages and self._db is not None:
            row = await self._db.get_session(self._id)
            stored = (row or {}).get("system_prompt")
        if stored:
            self._system_prompt = stored
            return stored
        self._system_prompt = self._build_prompt()
        if self._db is not None:
            await self.ensure_row()
            try:
                await self._db.update_system_prompt(self._id, self._system_prompt)
            except Exception as exc:
                self._events.warn(f"could not save the system prompt: {exc}")
        return self._system_prompt

    def rebuild_prompt(self) -> str:
        """A fresh prompt (memory re-read from disk) for the session about to start (§5 step 9)."""
        return self._build_prompt()

    # ------------------------------------------------------------------ moves

    def _require_db(self) -> SessionDB:
        if self._db is None:
            raise SessionError("sessions are not available: no state.db is open")
        return self._db

    def _announce(self, old: str, reason: str, *, history: bool) -> None:
        self._events.emit(ev.SessionRotated(old, self._id, reason, self._title))
        if history:
            self._events.emit(ev.HistoryReplaced(self._id, list(self._messages), reason))

    async def start_fresh(self, title: str | None = None, *, end_reason: str = "new_session") -> None:
        """End the current session (if saved) and begin an empty one; its row waits for a message."""
        old = self._id
        if self._db is not None and self._row_created:
            await self._db.end_session(old, end_reason)
        self._id = new_session_id()
        self._parent_id = None
        self._edge = None
        self._title = title
        self._row_created = False
        self._messages = []
        self._cursor.reset(0)
        self._system_prompt = None
        self._started_at = self._clock()
        self.todo.clear()
        self.counters.reset()
        self._announce(old, "new_session", history=True)

    async def switch_to(self, target: str, *, reason: str = "resume", end_reason: str = "resumed_other") -> None:
        """Make the stored session `target` live with its history; the current one ends (if saved)."""
        db = self._require_db()
        history = [m for m in await db.get_messages_as_conversation(target) if m.get("role") != "session_meta"]
        row = await db.get_session(target) or {}
        old = self._id
        if self._row_created and old != target:
            await db.end_session(old, end_reason)
        await db.reopen_session(target)
        self._id = target
        self._parent_id = row.get("parent_session_id")
        self._edge = None
        self._title = row.get("title")
        self._row_created = True
        self._messages = history
        self._cursor.reset(len(history))
        self._system_prompt = None
        self.todo.clear()
        self.todo.hydrate_from_history(history)
        self.counters.reset()
        self._announce(old, reason, history=True)

    async def start_child(
        self,
        *,
        edge: str,
        end_reason: str,
        reason: str,
        title: str | None,
        system_prompt: str,
        messages: list[Message],
        announce_history: bool,
        branch_point: int | None = None,
    ) -> str:
        """End this session with `end_reason` and continue in a new child session (Hermes's rule, §3).

        The child keeps the parent's source, model and model_config (a branch's marked
        `_branched_from`, as Hermes marks it; `child_model_config`), gets `title` and
        `system_prompt`, and starts with `messages` (copied), written at once. `edge` (compression,
        branch or review) and `branch_point` (the parent's messages.id the child was made after)
        are recorded with the child's row (`state_meta["edge:<id>"]`), so the tree shows the edge
        kind even after the parent is resumed. Ending the parent first also keeps Hermes's own
        derivation right (the child starts after the parent ended). If the database refuses the
        split, the child's row (and its edge record) is created lazily with the next write and a
        warning says so. Returns the child's id.
        """
        old = self._id
        new_id = new_session_id()
        record = EdgeRecord(edge, old, branch_point)
        created = False
        if self._db is not None:
            try:
                parent_row = await self._db.get_session(old) or {}
                await self._db.end_session(old, end_reason)
                await self._db.create_session(
                    new_id,
                    parent_row.get("source") or self._source,
                    model=parent_row.get("model") or self._model(),
                    model_config=child_model_config(parent_row.get("model_config"), edge, old),
                    system_prompt=system_prompt,
                    parent_session_id=old,
                    cwd=str(self._cwd),
                    title=title,
                    edge=record,
                    **self._git_fields(),
                )
                created = True
            except Exception as exc:
                self._events.warn(f"Session split failed ({exc}); the new session will be created with its first write")
        self._id = new_id
        self._parent_id = old
        self._edge = None if created else record
        self._title = title
        self._row_created = created
        self._system_prompt = system_prompt
        self._messages = [dict(m) for m in messages]
        self._cursor.reset(0)
        self._announce(old, reason, history=announce_history)
        await self.flush()
        return new_id

    async def compact_in_place(self, messages: list[Message], *, system_prompt: str) -> bool:
        """Continue in the same session with `messages` (copied) as its whole live history.

        In one transaction (`SessionDB.archive_and_compact`) every stored live row becomes
        `active = 0, compacted = 1` and `messages` become the new live rows; the rebuilt
        `system_prompt` is stored and cached. True when state.db recorded it; on a write error the
        conversation goes on compacted in memory, the stored history stays as it was (nothing is
        lost), and the warning says so.
        """
        new = [dict(m) for m in messages]
        recorded = False
        if self._db is not None and await self.ensure_row():

            async def work(db: SessionDB) -> None:
                nonlocal recorded
                try:
                    ids = await db.archive_and_compact(self._id, new)
                    for message, row_id in zip(new, ids, strict=True):
                        message["_db_id"] = row_id
                    recorded = True
                    await db.update_system_prompt(self._id, system_prompt)
                except Exception as exc:
                    self._events.warn(
                        f"could not record the compaction in state.db ({exc}); the stored history stays uncompacted"
                    )

            await self._write(work)
        self._messages = new
        self._cursor.reset(len(new))  # stored (or, on failure, deliberately not stored again)
        self._system_prompt = system_prompt
        return recorded

    async def set_title(self, title: str) -> None:
        """Store `title` (or queue it until the row exists); a title in use is a SessionError."""
        if self._db is not None:
            try:
                if self._row_created:
                    await self._db.set_session_title(self._id, title)
                elif await self._db.title_in_use(title):
                    raise SessionError(f"Title '{title}' is already in use")
            except ValueError as exc:
                raise SessionError(str(exc)) from None
        self._title = title
        self._events.emit(ev.TitleChanged(self._id, title))

    def set_pinned(self, index: int, pinned: bool) -> None:
        """Flag message `index` pinned or not (in memory only). The entry is replaced by a copy, so the
        token ledger, which matches messages by identity, measures it again."""
        message = dict(self._messages[index])
        if pinned:
            message[PIN_KEY] = True
        else:
            message.pop(PIN_KEY, None)
        self._messages[index] = message

    async def rewind(self, index: int) -> None:
        """Drop the messages from `index` on, in memory and in state.db (soft rewind, reference §10)."""
        db_id = self._messages[index].get("_db_id") if 0 <= index < len(self._messages) else None
        if self._db is not None and self._row_created and db_id is not None:
            await self._db.rewind_to_message(self._id, int(db_id))
        self._messages = self._messages[:index]
        self._cursor.reset(len(self._messages))
        self._system_prompt = None
        self._events.emit(ev.HistoryReplaced(self._id, list(self._messages), "undo"))

    async def end(self, end_reason: str) -> None:
        """End the session (only if its row exists); never raises."""
        if self._db is None or not self._row_created:
            return
        try:
            await self._db.end_session(self._id, end_reason)
        except Exception:
            pass
