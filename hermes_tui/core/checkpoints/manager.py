"""`CheckpointManager`: one snapshot per turn before its first file change, and the rewind API.

The turn runner calls `begin_turn()` as a turn starts and `before_change(messages)` before a batch
of tool calls that may change files (`Tool.mutates_files`, asked through the registry); the first
such call of a turn snapshots the working folder (`core.checkpoints.store`) and files a record in
state_meta (`core.checkpoints.records`) naming the turn's user message. Nothing here ever fails a
turn: without git on PATH, in a folder too large or too broad (/, the user's home, inside the
hermes home), or when git fails, the turn goes on and the user is told once per session.

What the UI and /rollback use (`Checkpoint`s are numbered 1.. in the order they were taken, across
the conversation: the session and the sessions it continues, in this working folder):

    list_for_session()               the conversation's checkpoints
    overview()                       the same, each with what changed in the folder since it
    diff(n)                          the patch from checkpoint n to the folder as it is now
    restore(n)                       snapshot the folder first (a "rewind" checkpoint: restoring that
                                     one undoes the rollback), then make its files checkpoint n's
    checkpoint_for_message(id)       the checkpoint taken in the turn of that user message

A checkpoint emits `CheckpointTaken`, a restore `FilesRestored` (the Review log shows both).
Pruning by age runs in the background at most once a day, after a checkpoint.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.config import CheckpointsSettings
from hermes_tui.core import events as ev
from hermes_tui.core.checkpoints.git import GitFailed, GitMissing, git_executable
from hermes_tui.core.checkpoints.records import (
    KIND_REWIND,
    KIND_TURN,
    CheckpointRecord,
    load_session_records,
    save_record,
)
from hermes_tui.core.checkpoints.store import Caps, Restored, ShadowStore, Skipped, Snapshot, Stat, StoreError
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.messages import Message, content_text

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

CHECKPOINTS_FOLDER = "checkpoints"
NO_GIT = "Checkpoints are off: git is not on PATH, so this session's file changes cannot be rolled back"
PROMPT_PREVIEW = 80
MAX_LINEAGE = 200


class CheckpointError(Exception):
    """A rewind that cannot be done as asked; the message is one line for the user."""


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint of the conversation, as the UI shows it; `number` is what /rollback N takes."""

    number: int
    record: CheckpointRecord
    available: bool = True  # False once pruning removed its snapshot

    @property
    def message_id(self) -> int | None:
        return self.record.message_id

    @property
    def turn(self) -> int:
        return self.record.turn

    @property
    def created_at(self) -> float:
        return self.record.created_at

    @property
    def prompt(self) -> str:
        return self.record.prompt

    @property
    def kind(self) -> str:
        return self.record.kind


@dataclass(frozen=True)
class RewindResult:
    restored: Checkpoint
    undo: Checkpoint  # taken just before: restoring it undoes this rewind
    changes: Restored


def turn_of(messages: Sequence[Message]) -> tuple[int | None, int, str]:
    """(state.db id, number, preview) of the newest stored user message in `messages`."""
    turn = 0
    found: tuple[int | None, int, str] = (None, 0, "")
    for message in messages:
        if message.get("role") != "user":
            continue
        turn += 1
        row_id = message.get("_db_id")
        if isinstance(row_id, int) and not isinstance(row_id, bool):
            text = " ".join(content_text(message.get("content")).split())
            found = (row_id, turn, text[:PROMPT_PREVIEW])
    return found


class CheckpointManager:
    """The checkpoints of one agent's working folder."""

    def __init__(
        self,
        *,
        settings: CheckpointsSettings,
        home_root: Path,
        cwd: Path,
        db: SessionDB | None,
        emitter: Emitter,
        session_id: Callable[[], str],
        messages: Callable[[], list[Message]],
    ) -> None:
        self.settings = settings
        self.store = ShadowStore(home_root / CHECKPOINTS_FOLDER)
        self._home_root = home_root.resolve()
        self._cwd = cwd.resolve()
        self._db = db
        self._events = emitter
        self._session_id = session_id
        self._messages = messages
        self._taken_this_turn = False
        self._conversation: tuple[str, list[CheckpointRecord]] | None = None  # cache: session id, records
        self._unsaved: dict[str, list[CheckpointRecord]] = {}  # without a state.db
        self._prune_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ the turn's hook

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    def begin_turn(self) -> None:
        self._taken_this_turn = False

    def wanted(self) -> bool:
        """Whether a checkpoint would still be taken in this turn (enabled, none taken yet)."""
        return self.settings.enabled and not self._taken_this_turn

    async def before_change(self, messages: list[Message]) -> None:
        """Snapshot the folder before the turn's first file change (once per turn); never raises."""
        if not self.wanted():
            return
        self._taken_this_turn = True
        session_id = self._session_id()
        once = f"checkpoints:{session_id}"
        if git_executable() is None:
            self._events.warn(NO_GIT, once_key=once)
            return
        refusal = self._refusal()
        if refusal:
            self._events.review("warning", refusal, once_key=once)
            return
        message_id, turn, prompt = turn_of(messages)
        try:
            result = await self.store.snapshot(
                self._cwd, f"turn {turn} of {session_id}", self._caps(), self._leave_out()
            )
        except GitMissing:
            self._events.warn(NO_GIT, once_key=once)
            return
        except (GitFailed, StoreError, OSError) as exc:
            self._events.warn(f"Checkpoint failed, the turn goes on without one: {exc}", once_key=once)
            return
        except Exception as exc:  # a bug here must not cost the user the turn
            self._events.warn(
                f"Checkpoint failed, the turn goes on without one: {type(exc).__name__}: {exc}", once_key=once
            )
            return
        if isinstance(result, Skipped):
            self._events.review("warning", result.reason, once_key=once)
            return
        try:
            checkpoint = await self._file(result, KIND_TURN, message_id, turn, prompt)
        except Exception as exc:  # the snapshot exists; only its record could not be written
            self._events.warn(f"Checkpoint taken but not recorded: {type(exc).__name__}: {exc}", once_key=once)
            return
        self._events.emit(
            ev.CheckpointTaken(
                session_id=session_id,
                number=checkpoint.number,
                message_id=message_id,
                turn=turn,
                files=result.file_count,
                changed=result.stat.files,
                left_out=len(result.left_out),
                duration_s=result.duration_s,
            )
        )
        self._prune_soon()

    def _caps(self) -> Caps:
        return Caps(int(self.settings.max_file_mb * 1024 * 1024), self.settings.max_files)

    def _refusal(self) -> str:
        """Why this folder is not snapshotted at all ('' when it is)."""
        cwd = self._cwd
        if cwd == Path(cwd.anchor) or cwd == Path.home().resolve():
            return f"No checkpoints: the working folder {cwd} is too broad to snapshot (start hermes-tui in a project)"
        if cwd == self._home_root or self._home_root in cwd.parents:
            return f"No checkpoints: the working folder {cwd} is inside the hermes home {self._home_root}"
        return ""

    def _leave_out(self) -> tuple[str, ...]:
        """The hermes home, when it lies inside the working folder: never part of a snapshot."""
        if self._cwd in self._home_root.parents:
            return (str(self._home_root.relative_to(self._cwd)),)
        return ()

    async def _file(
        self, snapshot: Snapshot, kind: str, message_id: int | None, turn: int, prompt: str, restored: str = ""
    ) -> Checkpoint:
        """Record a snapshot for the live session; returns it as the conversation's newest checkpoint."""
        session_id = self._session_id()
        records = await self._lineage_records()
        seq = 1 + max((r.seq for r in records if r.session_id == session_id), default=0)  # any folder's
        record = CheckpointRecord(
            seq=seq,
            session_id=session_id,
            message_id=message_id,
            turn=turn,
            prompt=prompt,
            created_at=time.time(),
            workdir=str(self._cwd),
            commit=snapshot.commit,
            tree=snapshot.tree,
            files=snapshot.stat.files,
            added=snapshot.stat.added,
            removed=snapshot.stat.removed,
            left_out=len(snapshot.left_out),
            kind=kind,
            restored=restored,
        )
        if self._db is not None:
            await save_record(self._db, record)
        else:
            self._unsaved.setdefault(session_id, []).append(record)
        records.append(record)
        return Checkpoint(len(await self._conversation_records()), record)

    # ------------------------------------------------------------------ reading

    async def _lineage(self) -> list[str]:
        """The live session and the sessions it continues, newest first."""
        chain = [self._session_id()]
        if self._db is None:
            return chain
        while len(chain) < MAX_LINEAGE:
            row = await self._db.get_session(chain[-1])
            parent = (row or {}).get("parent_session_id")
            if not parent or parent in chain:
                break
            chain.append(str(parent))
        return chain

    async def _lineage_records(self) -> list[CheckpointRecord]:
        """Every record of the conversation's sessions, whatever their folder (cached per live session)."""
        session_id = self._session_id()
        if self._conversation is not None and self._conversation[0] == session_id:
            return self._conversation[1]
        records: list[CheckpointRecord] = []
        for sid in await self._lineage():
            if self._db is not None:
                records.extend(await load_session_records(self._db, sid))
            records.extend(self._unsaved.get(sid, []))
        self._conversation = (session_id, records)
        return records

    async def _conversation_records(self) -> list[CheckpointRecord]:
        """The conversation's records in this working folder, oldest first."""
        records = [r for r in await self._lineage_records() if r.workdir == str(self._cwd)]
        return sorted(records, key=lambda r: (r.created_at, r.seq))

    async def list_for_session(self) -> list[Checkpoint]:
        """The conversation's checkpoints in this folder, oldest (1) first."""
        records = list(await self._conversation_records())
        present: set[str] = set()
        if records and git_executable() is not None:
            with contextlib.suppress(GitFailed, GitMissing, OSError):
                present = await self.store.existing_trees(sorted({r.tree for r in records}))
        return [Checkpoint(i, record, record.tree in present) for i, record in enumerate(records, 1)]

    async def checkpoint_for_message(self, message_id: int) -> Checkpoint | None:
        """The checkpoint taken in the turn of the user message `message_id` (its first, if several)."""
        for checkpoint in await self.list_for_session():
            if checkpoint.message_id == message_id and checkpoint.kind == KIND_TURN:
                return checkpoint
        return None

    async def _pick(self, number: int) -> Checkpoint:
        if git_executable() is None:
            raise CheckpointError("Rollback needs git on PATH, and git is not there")
        checkpoints = await self.list_for_session()
        if not checkpoints:
            raise CheckpointError("No checkpoints in this conversation yet.")
        if not 1 <= number <= len(checkpoints):
            raise CheckpointError(f"There is no checkpoint {number}: this conversation has 1–{len(checkpoints)}.")
        checkpoint = checkpoints[number - 1]
        if not checkpoint.available:
            raise CheckpointError(
                f"Checkpoint {number} has expired: its snapshot was pruned ([checkpoints] retention_days)."
            )
        return checkpoint

    async def _now_tree(self) -> str:
        refusal = self._refusal()
        if refusal:
            raise CheckpointError(refusal)
        try:
            return await self.store.current_tree(self._cwd, self._caps(), self._leave_out())
        except (GitFailed, GitMissing, StoreError, OSError) as exc:
            raise CheckpointError(f"Cannot read the folder's files: {exc}") from None

    async def overview(self) -> list[tuple[Checkpoint, Stat | None]]:
        """Each checkpoint with what changed in the folder since it (None when that cannot be told)."""
        checkpoints = await self.list_for_session()
        if not any(c.available for c in checkpoints):
            return [(c, None) for c in checkpoints]
        now = await self._now_tree()
        rows: list[tuple[Checkpoint, Stat | None]] = []
        for checkpoint in checkpoints:
            stat = None
            if checkpoint.available:
                with contextlib.suppress(GitFailed, GitMissing, OSError):
                    stat = await self.store.shortstat(checkpoint.record.tree, now)
            rows.append((checkpoint, stat))
        return rows

    async def diff(self, number: int) -> tuple[Checkpoint, str]:
        """Checkpoint `number` and the patch from it to the folder now (what restoring it undoes)."""
        checkpoint = await self._pick(number)
        now = await self._now_tree()
        try:
            return checkpoint, await self.store.diff_text(checkpoint.record.tree, now)
        except (GitFailed, GitMissing, OSError) as exc:
            raise CheckpointError(f"Cannot compare with checkpoint {number}: {exc}") from None

    # ------------------------------------------------------------------ rewinding

    async def restore(self, number: int) -> RewindResult:
        """Make the folder's files checkpoint `number`'s, after a checkpoint of them as they are."""
        target = await self._pick(number)
        refusal = self._refusal()
        if refusal:
            raise CheckpointError(refusal)
        caps = self._caps()
        try:
            before = await self.store.snapshot(
                self._cwd, f"before rollback to checkpoint {number}", caps, self._leave_out()
            )
        except (GitFailed, GitMissing, StoreError, OSError) as exc:
            raise CheckpointError(f"Nothing was restored: the files as they are could not be kept ({exc})") from None
        if isinstance(before, Skipped):
            raise CheckpointError(f"Nothing was restored: {before.reason}")
        message_id, turn, prompt = turn_of(self._messages())
        undo = await self._file(before, KIND_REWIND, message_id, turn, prompt, restored=target.record.key)
        try:
            changes = await self.store.restore(self._cwd, target.record.tree, caps, self._leave_out())
        except (GitFailed, GitMissing, StoreError, OSError) as exc:
            raise CheckpointError(
                f"Restoring checkpoint {number} failed: {exc} — /rollback {undo.number} brings back the files"
                " as they were"
            ) from None
        self._events.emit(
            ev.FilesRestored(
                session_id=self._session_id(),
                number=target.number,
                undo_number=undo.number,
                changed=len(changes.changed),
                removed=len(changes.removed),
                recreated=len(changes.recreated),
            )
        )
        return RewindResult(target, undo, changes)

    # ------------------------------------------------------------------ upkeep

    def _prune_soon(self) -> None:
        if self._prune_task is not None or not self.store.prune_due():
            return
        self._prune_task = asyncio.get_running_loop().create_task(self._prune())

    async def _prune(self) -> None:
        try:
            report = await self.store.prune(self.settings.retention_days)
        except (GitFailed, GitMissing, StoreError, OSError):
            return
        if report.line():
            self._events.review("info", report.line())

    async def close(self) -> None:
        """Stop a pruning still running (git is killed; the store stays consistent)."""
        task, self._prune_task = self._prune_task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
