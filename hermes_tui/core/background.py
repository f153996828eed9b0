"""/background TEXT: one turn in a side session of its own, while the conversation goes on.

As Hermes documents it: the background turn is a separate session that knows nothing of the
current conversation — it gets only the prompt — and works with the same model, tools, permission
mode and approvals as the live agent; several can run at once, each numbered. Ours is a child of
the session it was asked in (an edge of kind "background" in state_meta, so the Sessions tree
shows it beside that session and it never becomes a compression tip; a session not saved yet
has no row to hang it on, and the background session is then a root). It runs as its own asyncio
task with its own `LiveSession` on the same state.db (messages, token counts and system prompt
stored as for any session), a `TurnRunner` whose events go nowhere (nothing of it reaches the
conversation pane), no compression, no fallbacks, no file checkpoints. When it ends, one
`ReviewEntry` of kind "background" says so, with the answer's first lines as its detail.
`Agent.close` stops runs still going (their partial answer is kept, as after a Ctrl-C).
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from hermes_tui.core import events as ev
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.memory.hooks import MemoryHooks
from hermes_tui.core.providers.base import Usage
from hermes_tui.core.providers.chain import ProviderChain
from hermes_tui.core.review.fork import ForkMeter, NoCompaction
from hermes_tui.core.session.live import LiveSession, SessionError, last_stored_id
from hermes_tui.core.tools.base import ToolContext
from hermes_tui.core.turn.deps import TurnDeps
from hermes_tui.core.turn.outcome import failure_reason
from hermes_tui.core.turn.result import TurnResult
from hermes_tui.core.turn.runner import TurnRunner
from hermes_tui.store.edges import EdgeRecord
from hermes_tui.store.ids import new_session_id
from hermes_tui.store.models import EDGE_BACKGROUND

if TYPE_CHECKING:
    from pathlib import Path

    from hermes_tui.config import Home, Settings
    from hermes_tui.core.memory.store import MemoryStore
    from hermes_tui.core.providers.base import Provider
    from hermes_tui.core.session.meter import ContextMeter
    from hermes_tui.core.skills.manage import SkillManager
    from hermes_tui.core.tools.base import Approver
    from hermes_tui.core.tools.permissions import Permissions
    from hermes_tui.core.tools.registry import ToolRegistry
    from hermes_tui.store.db import SessionDB

REPORT_LINES = 12  # lines of the answer the Review-log entry carries
END_REASON = "background_done"
PREVIEW = 60


def _short(text: str, limit: int = PREVIEW) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass
class BackgroundRun:
    """One /background turn: its number, its session and, once it ended, its result."""

    number: int
    session_id: str
    prompt: str
    parent_id: str | None
    task: asyncio.Task[TurnResult | None] | None = field(default=None, repr=False)
    result: TurnResult | None = None

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()


class _SessionMeter(ForkMeter):
    """The review fork's quiet meter, also adding each call's tokens to the background session's row."""

    def __init__(self, session: LiveSession, context_length: int, system_prompt: str, tools: list) -> None:
        super().__init__(context_length, system_prompt, tools)
        self._session = session

    async def record(self, usage: Usage) -> None:
        await super().record(usage)
        await self._session.record_usage(usage)


def report(run: BackgroundRun) -> tuple[str, str]:
    """(the Review-log line, its detail) for a run that ended."""
    result = run.result
    head = f"Background #{run.number} ({run.session_id})"
    if result is None or result.interrupted:
        return f"⏹ {head} stopped before it finished — “{_short(run.prompt)}”", ""
    reason = failure_reason(result)
    answer = (result.final_response or "").strip()
    lines = answer.splitlines()
    detail = "\n".join(lines[:REPORT_LINES]) + (
        f"\n… {len(lines) - REPORT_LINES} more lines" if len(lines) > REPORT_LINES else ""
    )
    if reason is not None:
        return f"✗ {head} failed: {reason} — “{_short(run.prompt)}”", detail
    first = _short(lines[0], 100) if lines else "(no text)"
    return f"✅ {head} done: {first}", detail


class Host(Protocol):
    """What a background turn takes from the live agent (the Agent is one)."""

    db: SessionDB | None
    session: LiveSession
    cwd: Path
    settings: Settings
    home: Home
    registry: ToolRegistry
    tool_schemas: list[dict[str, Any]]
    approver: Approver | None
    permissions: Permissions
    memory: MemoryStore
    skills: SkillManager
    meter: ContextMeter
    events: Emitter
    backoff_base: float

    @property
    def provider(self) -> Provider: ...

    @property
    def context_window_known(self) -> bool: ...


class BackgroundRuns:
    """The /background turns of one agent (it reads the agent's provider, tools and settings)."""

    def __init__(self, agent: Host) -> None:
        self._agent = agent
        self.runs: list[BackgroundRun] = []

    @property
    def running(self) -> list[BackgroundRun]:
        return [run for run in self.runs if run.running]

    async def start(self, prompt: str) -> BackgroundRun:
        """Create the side session and start its turn; returns at once (the turn runs in its task)."""
        agent = self._agent
        db = agent.db
        if db is None:
            raise SessionError("background sessions need the session database, which is not open")
        parent = agent.session
        parent_id = parent.id if parent.row_created else None
        session_id = new_session_id()
        edge = EdgeRecord(EDGE_BACKGROUND, parent_id, last_stored_id(parent.messages)) if parent_id else None
        provider = agent.provider
        try:
            await db.create_session(
                session_id,
                "background",
                model=provider.model,
                parent_session_id=parent_id,
                cwd=str(agent.cwd),
                edge=edge,
            )
        except Exception as exc:
            raise SessionError(f"could not create the background session: {exc}") from None
        session = LiveSession(
            db=db,
            emitter=Emitter(),  # nothing of the side turn reaches the conversation pane
            source="background",
            cwd=agent.cwd,
            model=lambda: provider.model,
            build_prompt=parent.rebuild_prompt,
            session_id=session_id,
        )
        session.prompt_overlay = parent.prompt_overlay
        run = BackgroundRun(len(self.runs) + 1, session_id, prompt, parent_id)
        self.runs.append(run)
        run.task = asyncio.create_task(self._run(run, session), name=f"background-{run.number}")
        return run

    def _deps(self, session: LiveSession, system_prompt: str) -> TurnDeps:
        agent = self._agent
        settings = agent.settings
        settings = dataclasses.replace(  # no self-review nudges of its own
            settings,
            memory=dataclasses.replace(settings.memory, nudge_interval=0),
            skills=dataclasses.replace(settings.skills, creation_nudge_interval=0),
        )
        window = agent.meter.context_length
        services = {"db": agent.db, "agent_session_id": session.id, "memory": agent.memory, "skills": agent.skills}

        def tool_context() -> ToolContext:
            return ToolContext(
                cwd=agent.cwd,
                settings=settings.tools,
                approve=agent.approver,
                todo=session.todo,
                session_id=session.id,
                services=dict(services),
                home=agent.home.root,
                permissions=agent.permissions,
            )

        return TurnDeps(
            session=session,
            chain=ProviderChain.single(agent.provider, window, agent.context_window_known),
            tools=agent.registry,
            tool_schemas=agent.tool_schemas,
            tool_context=tool_context,
            compaction=NoCompaction(),
            meter=_SessionMeter(session, window, system_prompt, agent.tool_schemas),
            events=Emitter(),  # the side turn's events go nowhere
            hooks=MemoryHooks(),
            settings=settings,
            backoff_base=agent.backoff_base,
        )

    async def _run(self, run: BackgroundRun, session: LiveSession) -> TurnResult | None:
        try:
            system_prompt = await session.prompt()
            run.result = await TurnRunner(self._deps(session, system_prompt), run.prompt).run()
        except asyncio.CancelledError:
            run.result = None
            raise
        except Exception as exc:  # never let a side turn take the agent down
            run.result = TurnResult(final_response=None, session_id=run.session_id, failed=True, error=str(exc))
        finally:
            await session.end(END_REASON)
            text, detail = report(run)
            self._agent.events.emit(ev.ReviewEntry("background", text, detail=detail))
        return run.result

    async def wait(self, timeout: float | None = None) -> None:
        """Let the running background turns finish (a one-shot CLI run waits before it closes)."""
        tasks = [run.task for run in self.running if run.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def stop(self) -> None:
        """Stop every run still going; each keeps what it had (partial answer stored, marked interrupted)."""
        tasks = [run.task for run in self.running if run.task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
