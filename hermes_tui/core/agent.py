"""The Agent: one conversation's state and the public methods the TUI and the headless CLI drive.

Owns the session identity (lazy DB row, cached system prompt, flush cursor), the context engine
instance, the todo store and session token totals. A turn runs through `run_conversation`, which
delegates the loop itself to `hermes_tui.core.loop.TurnRunner`. Session moves (/new, /resume,
/branch, /undo …) live in `hermes_tui.core.sessions`, compression rotation in
`hermes_tui.core.compression`.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.config import Home, Settings
from hermes_tui.core import events as ev
from hermes_tui.core.context.compressor import ContextCompressor
from hermes_tui.core.context.tokens import TokenLedger, build_context_budget
from hermes_tui.core.context.windows import MINIMUM_CONTEXT_LENGTH, context_window
from hermes_tui.core.memory import MemoryHooks, MemoryStore
from hermes_tui.core.persistence import FlushCursor
from hermes_tui.core.prompt import PromptInputs, build_system_prompt
from hermes_tui.core.providers.base import Provider, Usage
from hermes_tui.core.todo import TodoStore
from hermes_tui.core.tools.base import Approver, ToolContext
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.store.ids import new_session_id

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB


class AgentError(Exception):
    """A problem that stops the agent from starting; the message is one clear line."""


@dataclass
class SessionTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    api_calls: int = 0

    def add(self, usage: Usage) -> None:
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.completion_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_write_tokens += usage.cache_write_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        self.api_calls += 1

    def as_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "api_calls": self.api_calls,
        }


@dataclass
class TurnResult:
    final_response: str | None
    session_id: str
    api_calls: int = 0
    completed: bool = False
    interrupted: bool = False
    failed: bool = False
    partial: bool = False
    error: str = ""
    exit_reason: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    last_prompt_tokens: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "final_response": self.final_response,
            "session_id": self.session_id,
            "api_calls": self.api_calls,
            "completed": self.completed,
            "interrupted": self.interrupted,
            "failed": self.failed,
            "error": self.error or None,
            "exit_reason": self.exit_reason,
            "usage": self.usage,
            "last_prompt_tokens": self.last_prompt_tokens,
        }


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
    ) -> None:
        self.settings = settings
        self.home = home
        self.provider = provider
        self.aux_provider = aux_provider
        self.db = db
        self.sink = sink
        self.approver = approver
        self.source = source
        self.cwd = (cwd or Path.cwd()).resolve()
        self.registry = registry or default_registry()
        self.tool_schemas = self.registry.schemas()
        self.ledger = TokenLedger()
        self.agent_id = uuid.uuid4().hex[:8]

        window, known = context_window(provider.model, settings.model.context_length)
        if window < MINIMUM_CONTEXT_LENGTH:
            raise AgentError(
                f"model window {window:,} tokens is below the {MINIMUM_CONTEXT_LENGTH:,}-token minimum "
                "(set model.context_length or --context-length to the model's real window)"
            )
        self.context_window_known = known
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

        self.session_id = session_id or new_session_id()
        self.session_started = datetime.now()
        self.parent_session_id: str | None = None
        self.pending_title: str | None = None
        self._session_row_created = False
        self.messages: list[dict[str, Any]] = []
        self.cursor = FlushCursor()
        self.cached_system_prompt: str | None = None
        self.todo = TodoStore()
        self.memory = MemoryStore(
            home.memories,
            memory_enabled=settings.memory.memory_enabled,
            user_profile_enabled=settings.memory.user_profile_enabled,
            memory_char_limit=settings.memory.memory_char_limit,
            user_char_limit=settings.memory.user_char_limit,
        )
        self.memory_hooks = MemoryHooks()
        self.totals = SessionTotals()
        self.user_turn_count = 0
        self.turns_since_memory = 0
        self.iters_since_skill = 0
        self.compression_warnings_shown: set[str] = set()
        self.turn_active = False
        self.backoff_base = 2.0  # seconds; the retry loop's jittered backoff base (reference §1.2)
        self._turn_lock = asyncio.Lock()

    # ------------------------------------------------------------------ events

    def emit(self, event: ev.Event) -> None:
        try:
            self.sink(event)
        except Exception:  # a broken UI sink must never break the agent
            pass

    def review(self, kind: str, text: str) -> None:
        self.emit(ev.ReviewEntry(kind, text))

    def warn(self, text: str, *, once_key: str | None = None) -> None:
        if once_key is not None:
            if once_key in self.compression_warnings_shown:
                return
            self.compression_warnings_shown.add(once_key)
        self.emit(ev.Warning(text))
        self.review("warning", text)

    # ------------------------------------------------------------------ session row & prompt

    @property
    def model_label(self) -> str:
        return self.provider.model

    def tool_context(self) -> ToolContext:
        return ToolContext(
            cwd=self.cwd,
            settings=self.settings.tools,
            approve=self.approver,
            todo=self.todo,
            session_id=self.session_id,
            services={"db": self.db, "agent_session_id": self.session_id},
        )

    async def ensure_session_row(self) -> None:
        """Create the session row lazily; a failure is retried next time (reference §3)."""
        if self._session_row_created or self.db is None:
            return
        try:
            await self.db.create_session(
                self.session_id,
                self.source,
                model=self.provider.model,
                model_config=None,
                parent_session_id=self.parent_session_id,
                cwd=str(self.cwd),
            )
            if self.pending_title:
                await self.db.set_session_title(self.session_id, self.pending_title)
                self.pending_title = None
            self._session_row_created = True
        except Exception as exc:  # retried on the next turn
            self.warn(f"could not create the session row: {exc}")

    def build_system_prompt(self) -> str:
        return build_system_prompt(
            PromptInputs(
                cwd=self.cwd,
                model=self.provider.model,
                provider=self.provider.name,
                tool_names=tuple(self.registry.names()),
                memory_block=self.memory.snapshot_block(),
                session_started=self.session_started,
            )
        )

    async def system_prompt(self, *, history_nonempty: bool) -> str:
        """The cached prompt; restored verbatim from the DB for continuing sessions (§6.0 step 3)."""
        if self.cached_system_prompt is not None:
            return self.cached_system_prompt
        stored = None
        if history_nonempty and self.db is not None:
            row = await self.db.get_session(self.session_id)
            stored = (row or {}).get("system_prompt")
        if stored:
            self.cached_system_prompt = stored
            return stored
        prompt = self.build_system_prompt()
        self.cached_system_prompt = prompt
        if self.db is not None:
            await self.db.update_system_prompt(self.session_id, prompt)
        return prompt

    def rebuild_system_prompt(self) -> str:
        """Invalidate the cache, re-read memory from disk, rebuild and persist (§5 step 9)."""
        self.cached_system_prompt = None
        prompt = self.build_system_prompt()
        self.cached_system_prompt = prompt
        return prompt

    # ------------------------------------------------------------------ context budget

    def request_estimate(self, messages: list[dict[str, Any]] | None = None) -> int:
        """Rough size of the next request (messages + system prompt + tool schemas), cached per message."""
        return self.ledger.rough_request_tokens(
            self.messages if messages is None else messages,
            self.cached_system_prompt or "",
            self.tool_schemas,
        )

    def budget(self, messages: list[dict[str, Any]] | None = None) -> ev.ContextBudget:
        c = self.compressor
        return build_context_budget(
            context_length=c.context_length,
            threshold_tokens=c.threshold_tokens,
            last_prompt_tokens=c.last_prompt_tokens,
            estimated_tokens=self.request_estimate(messages),
            cache_read_tokens=self.totals.cache_read_tokens,
            cache_write_tokens=self.totals.cache_write_tokens,
            compression_count=c.compression_count,
            ineffective_compressions=c.ineffective_compression_count,
            window_is_default=not self.context_window_known,
            compression_enabled=self.settings.compression.enabled,
        )

    def emit_budget(self, messages: list[dict[str, Any]] | None = None, usage: Usage | None = None) -> None:
        self.emit(
            ev.UsageUpdated(
                budget=self.budget(messages),
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
                session_input_tokens=self.totals.input_tokens,
                session_output_tokens=self.totals.output_tokens,
            )
        )

    # ------------------------------------------------------------------ summaries

    async def _summarize(self, provider: Provider, prompt: str, max_tokens: int) -> str:
        timeout = self.settings.auxiliary.compression.timeout or None
        return await asyncio.wait_for(provider.complete(prompt, max_tokens=max_tokens), timeout)

    async def _summarize_with_main(self, prompt: str, max_tokens: int) -> str:
        return await self._summarize(self.provider, prompt, max_tokens)

    async def _summarize_with_aux(self, prompt: str, max_tokens: int) -> str:
        assert self.aux_provider is not None
        return await self._summarize(self.aux_provider, prompt, max_tokens)

    # ------------------------------------------------------------------ turns

    async def run_conversation(self, user_message: str) -> TurnResult:
        """Run one user turn to completion, interruption or failure; persist what happened."""
        from hermes_tui.core.loop import TurnRunner

        async with self._turn_lock:
            self.turn_active = True
            try:
                return await TurnRunner(self, user_message).run()
            finally:
                self.turn_active = False

    async def flush(self, messages: list[dict[str, Any]], history_len: int | None) -> None:
        await self.ensure_session_row()
        if self.db is None:
            return
        try:
            await self.cursor.flush(self.db, self.session_id, messages, history_len)
        except Exception as exc:  # never lose the turn over a write error
            self.warn(f"could not save messages to state.db: {exc}")

    async def record_usage(self, usage: Usage) -> None:
        self.totals.add(usage)
        self.compressor.update_from_response(usage.as_dict())
        if self.db is None:
            return
        await self.ensure_session_row()
        try:
            await self.db.update_token_counts(
                self.session_id,
                input_tokens=usage.input_tokens,
                output_tokens=usage.completion_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                reasoning_tokens=usage.reasoning_tokens,
                api_call_count=1,
                model=self.provider.model,
            )
        except Exception as exc:
            self.warn(f"could not save token counts: {exc}")

    # ------------------------------------------------------------------ lifecycle

    async def close(self, end_reason: str = "cli_close") -> None:
        """End the live session (only if its row exists) and release provider resources."""
        if self.db is not None and self._session_row_created:
            try:
                await self.db.end_session(self.session_id, end_reason)
            except Exception:  # closing must not raise
                pass
        for provider in {id(p): p for p in (self.provider, self.aux_provider) if p}.values():
            try:
                await provider.aclose()
            except Exception:
                pass

    def mark_session_created(self, created: bool = True) -> None:
        self._session_row_created = created

    @property
    def session_row_created(self) -> bool:
        return self._session_row_created

    def now(self) -> float:
        return time.time()
