"""`BackgroundReviewer`: runs the self-review fork as a background asyncio task and reports it.

`spawn` is called from the finishing phase of a turn that produced an answer and was not
interrupted, when the memory or the skill nudge is due. It returns at once: the fork runs as a task
while the user types the next prompt (one review at a time; a review due while one runs is skipped).
The fork is a `TurnRunner` over `review.fork`'s collaborators, with the prompt for what is due. When
it ends, the reviewer works out what changed (`review.report`), saves a `ReviewRecord` in state_meta,
and emits one Review-log line — "💾 Self-improvement review: Memory updated · Skill 'x' created",
with the files' diff attached — or a quiet "nothing to save" line. A failure is one warning line.
`close` cancels a running review cleanly (nothing is reported for a cancelled run).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.config import Settings
from hermes_tui.core import events as ev
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.messages import Message
from hermes_tui.core.providers.base import Provider
from hermes_tui.core.review.fork import ForkSession, build_fork_deps
from hermes_tui.core.review.prompts import review_prompt
from hermes_tui.core.review.records import ReviewRecord, new_run_id, save_record
from hermes_tui.core.review.report import FileSnapshot, review_actions, summary_line
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.turn.runner import TurnRunner

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

RESULT_CHARS = 2000
CLOSE_GRACE_S = 5.0


class _ToolCallLog:
    """The fork's event sink: keeps its tool calls for the run record, drops everything else."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._open: dict[str, dict[str, Any]] = {}

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.ToolCallStarted):
            call = {"name": event.name, "arguments": event.arguments, "result": "", "is_error": False}
            self._open[event.call_id] = call
            self.calls.append(call)
        elif isinstance(event, ev.ToolCallFinished):
            call = self._open.pop(event.call_id, None)
            if call is not None:
                call["result"] = event.result[:RESULT_CHARS]
                call["is_error"] = event.is_error


class BackgroundReviewer:
    """Spawns and tracks review forks for one agent."""

    def __init__(
        self,
        *,
        provider: Callable[[], Provider],
        registry: ToolRegistry,
        tool_schemas: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]],
        settings: Settings,
        context_length: Callable[[], int],
        emitter: Emitter,
        home: Path,
        cwd: Path,
        services: Callable[[], dict[str, Any]],
        db: SessionDB | None,
        backoff_base: float = 2.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._provider = provider
        self._registry = registry
        self._tool_schemas = tool_schemas
        self._settings = settings
        self._context_length = context_length
        self._events = emitter
        self._home = home
        self._cwd = cwd
        self._services = services
        self._db = db
        self._backoff_base = backoff_base
        self._clock = clock
        self._task: asyncio.Task[ReviewRecord | None] | None = None
        self.runs = 0

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def spawn(
        self, *, session_id: str, messages: list[Message], system_prompt: str, memory_due: bool, skills_due: bool
    ) -> asyncio.Task[ReviewRecord | None] | None:
        """Start a review in the background; None when one is already running or nothing is due."""
        if not (memory_due or skills_due) or not system_prompt or self.running:
            return None
        self.runs += 1
        self._task = asyncio.get_running_loop().create_task(
            self._run(session_id, [dict(m) for m in messages], system_prompt, memory_due, skills_due),
            name="self-review",
        )
        return self._task

    async def wait(self, timeout: float = 30.0) -> ReviewRecord | None:
        """The running review's record once it ends (tests, headless runs); None when none ran."""
        if self._task is None:
            return None
        done, _pending = await asyncio.wait({self._task}, timeout=timeout)
        return self._task.result() if done and not self._task.cancelled() else None

    async def close(self) -> None:
        """Cancel a running review and wait (briefly) for it to wind down."""
        task = self._task
        if task is None or task.done():
            return
        task.cancel()
        await asyncio.wait({task}, timeout=CLOSE_GRACE_S)

    async def _run(
        self, session_id: str, snapshot: list[Message], system_prompt: str, memory_due: bool, skills_due: bool
    ) -> ReviewRecord | None:
        record = ReviewRecord(
            session_id, new_run_id(self._clock()), self._clock(), memory_due=memory_due, skills_due=skills_due
        )
        try:
            before = await asyncio.to_thread(FileSnapshot.take, self._home)
            log = _ToolCallLog()
            session = ForkSession(session_id, snapshot, system_prompt)
            services = {**self._services(), "skill_origin": "agent"}
            deps, _meter = build_fork_deps(
                session=session,
                provider=self._provider(),
                registry=self._registry,
                tool_schemas=self._tool_schemas() if callable(self._tool_schemas) else self._tool_schemas,
                settings=self._settings,
                context_length=self._context_length(),
                events=Emitter(log),
                cwd=self._cwd,
                services=services,
                backoff_base=self._backoff_base,
            )
            result = await TurnRunner(deps, review_prompt(memory_due, skills_due)).run()
            if result.interrupted:  # cancelled (the app is closing): report nothing
                return None
            after = await asyncio.to_thread(FileSnapshot.take, self._home)
        except asyncio.CancelledError:
            return None
        except Exception as exc:  # the review must never disturb the user's work
            self._events.warn(f"Self-improvement review failed: {type(exc).__name__}: {exc}")
            return None
        record.finished_at = self._clock()
        record.api_calls = result.api_calls
        record.tool_calls = log.calls
        record.actions = review_actions(snapshot, session.messages)
        record.summary = summary_line(record.actions) if record.actions else ""
        record.diff = after.diff_since(before)
        if result.failed:
            record.error = result.error or result.exit_reason
        await self._save(record)
        self._report(record)
        return record

    async def _save(self, record: ReviewRecord) -> None:
        if self._db is None:
            return
        try:
            await save_record(self._db, record)
        except Exception as exc:
            self._events.warn(f"could not record the self-review: {exc}", once_key="review-record")

    def _report(self, record: ReviewRecord) -> None:
        if record.error and not record.actions:
            self._events.warn(f"Self-improvement review failed: {record.error}")
            return
        if record.actions:
            kind = "memory" if any(a.endswith("updated") and "Skill" not in a for a in record.actions) else "skill"
            self._events.emit(ev.ReviewEntry(kind, record.summary, detail=record.diff, run_key=record.key))
            return
        self._events.emit(ev.ReviewEntry("info", "Self-improvement review: nothing new to save", run_key=record.key))
