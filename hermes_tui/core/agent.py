"""The Agent: a thin facade over one conversation's collaborators, driven by the TUI and the CLI.

Construction wires the parts together — the live session (`core.session.live.LiveSession`, the
one owner of the session's identity, messages, flush cursor and cached prompt), the context meter
(with its look ahead, `core.session.outlook`), the compression orchestrator, the session moves,
the steering inbox (`core.turn.steering`: /steer, /queue, /stop), the standing goal
(`core.goals`) and the tool registry. After that the Agent only forwards: `run_conversation` runs
one turn (`core.turn.runner.TurnRunner`), `next_turn` says what to send after it (a queued
message, else the goal's continuation), the session commands move the live session,
`budget`/`totals`/`lineage` answer what the UI shows, `close` ends it.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.config import Home, Settings
from hermes_tui.core import events as ev
from hermes_tui.core.context.compressor import ContextCompressor
from hermes_tui.core.context.windows import MINIMUM_CONTEXT_LENGTH, context_window
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.goals import GoalKeeper
from hermes_tui.core.memory import MemoryHooks, MemoryStore
from hermes_tui.core.messages import Message
from hermes_tui.core.prompt import PromptInputs, build_system_prompt
from hermes_tui.core.providers.base import Provider
from hermes_tui.core.session.branching import BranchResult
from hermes_tui.core.session.compression import CompressionOrchestrator
from hermes_tui.core.session.compression_check import CompressionPreview
from hermes_tui.core.session.live import LiveSession, SessionError
from hermes_tui.core.session.manual_compress import compression_preview
from hermes_tui.core.session.meter import ContextMeter, SessionTotals
from hermes_tui.core.session.model_switch import check_model_name, switched_provider, window_for
from hermes_tui.core.session.moves import BUSY, SessionMoves
from hermes_tui.core.session.outlook import OutlookTracker
from hermes_tui.core.tools.base import Approver, ToolContext
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.turn.deps import TurnDeps
from hermes_tui.core.turn.runner import TurnRunner
from hermes_tui.core.turn.state import TurnResult
from hermes_tui.core.turn.steering import SteeringInbox

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB
    from hermes_tui.store.models import LineageNode

DEFAULT_BACKOFF_BASE = 2.0  # seconds; the retry loop's jittered backoff base (reference §1.2)


class AgentError(Exception):
    """A problem that stops the agent from starting; the message is one clear line."""


class Agent:
    """A conversation with one model, persisted to a Hermes-compatible state.db."""

    def __init__(
        self,
        *,
        settings: Settings,
        home: Home,
        provider: Provider,
        db: SessionDB | None = None,
        aux_provider: Provider | None = None,
        sink: ev.EventSink = ev.null_sink,
        approver: Approver | None = None,
        source: str = "cli",
        cwd: Path | None = None,
        registry: ToolRegistry | None = None,
        session_id: str | None = None,
        backoff_base: float = DEFAULT_BACKOFF_BASE,
    ) -> None:
        self.settings = settings
        self.home = home
        self.provider = provider
        self.aux_provider = aux_provider
        self.db = db
        self.approver = approver
        self.cwd = (cwd or Path.cwd()).resolve()
        self.registry = registry or default_registry()
        self.tool_schemas = self.registry.schemas()
        self.backoff_base = backoff_base
        self.events = Emitter(sink)

        window, known = context_window(provider.model, settings.model.context_length)
        if window < MINIMUM_CONTEXT_LENGTH:
            raise AgentError(
                f"model window {window:,} tokens is below the {MINIMUM_CONTEXT_LENGTH:,}-token minimum "
                "(set model.context_length or --context-length to the model's real window)"
            )
        comp = settings.compression
        self.compressor = ContextCompressor(
            window,
            threshold_percent=comp.threshold,
            protect_first_n=comp.protect_first_n,
            protect_last_n=comp.protect_last_n,
            summary_target_ratio=comp.target_ratio,
            summarize=self._summarize_with_aux if aux_provider is not None else self._summarize_with_main,
            fallback_summarize=self._summarize_with_main if aux_provider is not None else None,
            abort_on_summary_failure=comp.abort_on_summary_failure,
        )
        self.memory = MemoryStore(
            home.memories,
            memory_enabled=settings.memory.memory_enabled,
            user_profile_enabled=settings.memory.user_profile_enabled,
            memory_char_limit=settings.memory.memory_char_limit,
            user_char_limit=settings.memory.user_char_limit,
        )
        self.memory_hooks = MemoryHooks()
        self.session = LiveSession(
            db=db,
            emitter=self.events,
            source=source,
            cwd=self.cwd,
            model=lambda: self.provider.model,
            build_prompt=self._build_system_prompt,
            session_id=session_id,
        )
        self.meter = ContextMeter(
            session=self.session,
            compressor=self.compressor,
            tool_schemas=self.tool_schemas,
            emitter=self.events,
            window_known=known,
            compression_enabled=comp.enabled,
            outlook=OutlookTracker(model=lambda: self.provider.model),
        )
        self.compression = CompressionOrchestrator(
            compressor=self.compressor,
            session=self.session,
            meter=self.meter,
            emitter=self.events,
            memory_hooks=self.memory_hooks,
            agent_id=uuid.uuid4().hex[:8],
            enabled=comp.enabled,
        )
        self._turn_lock = asyncio.Lock()
        self.moves = SessionMoves(
            session=self.session,
            meter=self.meter,
            compression=self.compression,
            memory_hooks=self.memory_hooks,
            emitter=self.events,
            busy=self._turn_lock.locked,
        )
        self.steering = SteeringInbox(self.events)
        self.goals = GoalKeeper(
            session=self.session, judge=lambda: self.aux_provider or self.provider, emitter=self.events
        )

    # ------------------------------------------------------------------ what the front-ends read

    @property
    def session_id(self) -> str:
        return self.session.id

    @property
    def messages(self) -> list[Message]:
        return self.session.messages

    @property
    def totals(self) -> SessionTotals:
        return self.meter.totals

    @property
    def context_window_known(self) -> bool:
        return self.meter.window_known

    def budget(self) -> ev.ContextBudget:
        return self.meter.budget()

    @property
    def busy(self) -> bool:
        """A turn is running."""
        return self._turn_lock.locked()

    async def lineage(self) -> list[LineageNode]:
        """Every session's lineage node, plus the live one when its row does not exist yet."""
        nodes = list(await self.db.lineage_tree()) if self.db is not None else []
        unsaved = self.session.unsaved_node()
        if unsaved is not None:
            nodes.append(unsaved)
        return nodes

    # ------------------------------------------------------------------ turns

    async def run_conversation(self, user_message: str) -> TurnResult:
        """Run one user turn to completion, interruption or failure; persist what happened."""
        async with self._turn_lock:
            return await TurnRunner(self._turn_deps(), user_message).run()

    async def next_turn(self, result: TurnResult) -> str | None:
        """What to send after the turn that gave `result`: the next queued message (a real user
        message comes first), else the standing goal's continuation — or None, to wait for the user.
        After an interrupted, stopped or failed turn nothing is sent (the goal pauses; the queue waits)."""
        if result.interrupted or result.failed or result.exit_reason == "stopped":
            await self.goals.after_turn(result)
            return None
        queued = self.steering.take_next()
        if queued is not None:
            return queued
        return await self.goals.after_turn(result)

    def _turn_deps(self) -> TurnDeps:
        return TurnDeps(
            session=self.session,
            provider=self.provider,
            tools=self.registry,
            tool_schemas=self.tool_schemas,
            tool_context=self._tool_context,
            compaction=self.compression,
            meter=self.meter,
            events=self.events,
            hooks=self.memory_hooks,
            settings=self.settings,
            backoff_base=self.backoff_base,
            steering=self.steering,
        )

    def _tool_context(self) -> ToolContext:
        return ToolContext(
            cwd=self.cwd,
            settings=self.settings.tools,
            approve=self.approver,
            todo=self.session.todo,
            session_id=self.session.id,
            services={"db": self.db, "agent_session_id": self.session.id},
        )

    def _build_system_prompt(self) -> str:
        return build_system_prompt(
            PromptInputs(
                cwd=self.cwd,
                model=self.provider.model,
                provider=self.provider.name,
                tool_names=tuple(self.registry.names()),
                memory_block=self.memory.snapshot_block(),
                session_started=self.session.started_at,
            )
        )

    async def _summarize(self, provider: Provider, prompt: str, max_tokens: int) -> str:
        timeout = self.settings.auxiliary.compression.timeout or None
        return await asyncio.wait_for(provider.complete(prompt, max_tokens=max_tokens), timeout)

    async def _summarize_with_main(self, prompt: str, max_tokens: int) -> str:
        return await self._summarize(self.provider, prompt, max_tokens)

    async def _summarize_with_aux(self, prompt: str, max_tokens: int) -> str:
        assert self.aux_provider is not None
        return await self._summarize(self.aux_provider, prompt, max_tokens)

    # ------------------------------------------------------------------ session commands

    async def new_session(self, title: str | None = None) -> str:
        return await self.moves.new_session(title)

    async def resume(self, ref: str) -> str:
        return await self.moves.resume(ref)

    async def continue_session(self, title: str | None = None) -> str:
        """Continue the most recent session, or the newest one titled `title` (`hermes-tui -c [title]`)."""
        return await self.moves.continue_latest(title)

    async def branch(self, name: str | None = None) -> str:
        return await self.moves.branch(name)

    async def branch_at(self, message_index: int, *, edit: bool = False, name: str | None = None) -> BranchResult:
        """Branch from any message of `messages` (the message cursor's "branch here" / "edit and resend").

        `edit=False`: the new branch keeps the history up to and including `message_index`.
        `edit=True` (user messages only): it keeps the history before it, and `BranchResult.prefill`
        is the message's text for the prompt. The original session keeps all its messages.
        Raises SessionError (one line) for a bad index, a non-user message to edit, or a running turn.
        """
        return await self.moves.branch_at(message_index, edit=edit, name=name)

    async def set_title(self, name: str | None) -> str:
        return await self.moves.title(name)

    async def undo(self, count: int = 1) -> str:
        return await self.moves.undo(count)

    async def compress(self, args: str = "") -> str:
        return await self.moves.compress(args)

    async def compression_preview(self, args: str = "") -> CompressionPreview:
        """What `/compress args` would do now — summarised/kept messages, tokens before and estimated
        after, or why it would change nothing. Calls no model and changes nothing."""
        return await compression_preview(self.session, self.compression, self.meter, args)

    async def switch_model(self, name: str) -> str:
        """/model NAME: the same provider with another model from the next turn on; budgets follow its window."""
        if self.busy:
            raise SessionError(BUSY)
        model = check_model_name(name)
        if model == self.provider.model:
            return f"Already using {self.provider.label}"
        window, known = window_for(model, self.settings.model.context_length)
        provider = switched_provider(self.provider, model)
        old = self.provider.label
        self.provider = provider
        self.meter.set_window(window, known)
        if self.db is not None and self.session.row_created:
            await self.db.update_session_model(self.session.id, model)
        self.meter.publish()
        guess = "" if known else " (unknown model: window assumed)"
        self.events.review("info", f"Model switched {old} → {provider.label}, window {window:,} tokens{guess}")
        return (
            f"Model: {provider.label} — window {window:,} tokens{guess}, threshold {self.compressor.threshold_tokens:,}"
        )

    # ------------------------------------------------------------------ lifecycle

    async def close(self, end_reason: str = "cli_close") -> None:
        """End the live session (only if its row exists) and release provider resources."""
        await self.session.end(end_reason)
        for provider in {id(p): p for p in (self.provider, self.aux_provider) if p}.values():
            try:
                await provider.aclose()
            except Exception:
                pass
