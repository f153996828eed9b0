"""The context meter: how big the next request is, what the gauge shows, and the session's token totals.

Owns `SessionTotals` (what the provider billed this session) and `ContextMeter`, which reads the live
session (messages and cached system prompt), the compressor's budgets and usage tracking, and the
tool schemas, and turns them into the rough request estimate the triggers use and the
`ContextBudget` the token gauge draws (`publish` emits it as `UsageUpdated`), with the look ahead
of `outlook.py` attached. Recording a call's usage goes through here too, so totals, the
compressor's tracking, the outlook (cost, cache hits) and the session row agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from hermes_tui.core import events as ev
from hermes_tui.core.context.compressor import ContextCompressor
from hermes_tui.core.context.offload import off_loop
from hermes_tui.core.context.tokens import TokenLedger, build_context_budget, estimate_request_tokens_rough
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.messages import Message
from hermes_tui.core.providers.base import Usage
from hermes_tui.core.session.live import LiveSession
from hermes_tui.core.session.outlook import OutlookTracker


@dataclass
class SessionTotals:
    """Token counts billed in this session (reset by /new)."""

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

    def reset(self) -> None:
        for item in fields(self):
            setattr(self, item.name, 0)

    def as_dict(self) -> dict[str, int]:
        return {item.name: getattr(self, item.name) for item in fields(self)}


class ContextMeter:
    """Measures the live context against the model's window."""

    def __init__(
        self,
        *,
        session: LiveSession,
        compressor: ContextCompressor,
        tool_schemas: Sequence[dict[str, Any]],
        emitter: Emitter,
        window_known: bool,
        compression_enabled: bool,
        outlook: OutlookTracker | None = None,
    ) -> None:
        self._session = session
        self._compressor = compressor
        self._tool_schemas = list(tool_schemas)
        self._events = emitter
        self._compression_enabled = compression_enabled
        self.window_known = window_known
        self.ledger = TokenLedger()
        self.totals = SessionTotals()
        self.outlook = outlook

    def use_tool_schemas(self, tool_schemas: Sequence[dict[str, Any]]) -> None:
        """The tool schemas requests now carry (the agent's tools changed: an MCP server connected)."""
        self._tool_schemas = list(tool_schemas)

    @property
    def context_length(self) -> int:
        return self._compressor.context_length

    @property
    def last_prompt_tokens(self) -> int:
        """The last provider-reported prompt size (0 = none yet, -1 = unknown since a compression)."""
        return self._compressor.last_prompt_tokens

    async def prepare(self, messages: Sequence[Message] | None = None) -> None:
        """Measure a long history in a worker, so the next `estimate` answers from the cache.

        Call it where a long list first appears (a resume, a turn's start): the first measurement
        of 20,000 messages takes ~50 ms, which would otherwise run on the event loop.
        """
        target = list(self._session.messages if messages is None else messages)
        await off_loop(self.ledger.measure, target, size=self.ledger.unmeasured(target))

    def estimate(self, messages: Sequence[Message] | None = None) -> int:
        """Rough size of the next request (messages + system prompt + tool schemas), cached per message."""
        return self.ledger.rough_request_tokens(
            self._session.messages if messages is None else messages,
            self._session.system_prompt or "",
            self._tool_schemas,
        )

    def estimate_uncached(self, messages: Sequence[Message]) -> int:
        """The same rough size for a list that is not the live one (leaves the per-message cache alone)."""
        return estimate_request_tokens_rough(messages, self._session.system_prompt or "", self._tool_schemas)

    def budget(self, messages: Sequence[Message] | None = None) -> ev.ContextBudget:
        c = self._compressor
        budget = build_context_budget(
            context_length=c.context_length,
            threshold_tokens=c.threshold_tokens,
            last_prompt_tokens=c.last_prompt_tokens,
            estimated_tokens=self.estimate(messages),
            cache_read_tokens=self.totals.cache_read_tokens,
            cache_write_tokens=self.totals.cache_write_tokens,
            compression_count=c.compression_count,
            ineffective_compressions=c.ineffective_compression_count,
            window_is_default=not self.window_known,
            compression_enabled=self._compression_enabled,
        )
        if self.outlook is None:
            return budget
        t = self.totals
        outlook = self.outlook.snapshot(
            current=budget.shown_tokens,
            threshold=budget.threshold_tokens,
            input_tokens=t.input_tokens + t.cache_read_tokens + t.cache_write_tokens,
            output_tokens=t.output_tokens,
        )
        return replace(budget, outlook=outlook)

    def end_turn(self) -> None:
        """A turn ended: the outlook notes the context's size (for growth, turns left, the sparkline)."""
        if self.outlook is not None:
            self.outlook.end_turn(self.budget().shown_tokens, self._compressor.compression_count)

    def publish(self, messages: Sequence[Message] | None = None, usage: Usage | None = None) -> None:
        """Emit what the gauge should show now."""
        self._events.emit(
            ev.UsageUpdated(
                budget=self.budget(messages),
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
                session_input_tokens=self.totals.input_tokens,
                session_output_tokens=self.totals.output_tokens,
            )
        )

    async def record(self, usage: Usage) -> None:
        """One API call's usage: totals, the compressor's tracking, the session row."""
        self.totals.add(usage)
        self._compressor.update_from_response(usage.as_dict())
        cost = self.outlook.record_call(usage) if self.outlook is not None else None
        await self._session.record_usage(usage, cost_usd=cost)

    def lower_window(self, limit: int) -> bool:
        """The provider named a smaller window: recompute every budget for it. True when lowered."""
        if not limit or limit >= self._compressor.context_length:
            return False
        self._compressor.update_model(limit)
        self.window_known = True
        return True

    def use_window(self, window: int, known: bool) -> None:
        """Another model answers now (a fallback, or the primary again): measure against its window."""
        if window and window != self._compressor.context_length:
            self._compressor.update_model(window)
        self.window_known = known

    def reset(self, *, totals: bool) -> None:
        """A different conversation is live: forget the compressor's session state (and the totals)."""
        self._compressor.reset_session_state()
        if totals:
            self.totals.reset()
        if self.outlook is not None:
            self.outlook.reset() if totals else self.outlook.forget_sizes()
