"""The inner retry loop of one API call (reference §6.1): stream, and on failure carry out the decision.

`call_with_recovery(state, deps, compress)` builds the request from the turn's working list,
streams it (provider events become core events), records usage, and returns the finished
`StreamAccumulator`. When the call fails it asks `recovery.decide` what to do and does it: backs
off in interrupt-responsive slices and calls again, lowers the output budget, compresses (through
the `compress` callback, which rotates the session) and returns `RESTART`, keeps delivered text as
the answer, or ends the turn as failed and returns `FAILED`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Final

from hermes_tui.core import events as ev
from hermes_tui.core.context.offload import off_loop
from hermes_tui.core.providers.base import ChatRequest, Usage
from hermes_tui.core.turn import recovery
from hermes_tui.core.turn.api_messages import build_api_messages
from hermes_tui.core.turn.deps import TurnDeps
from hermes_tui.core.turn.retry import interruptible_sleep
from hermes_tui.core.turn.state import TurnState
from hermes_tui.core.turn.streaming import StreamAccumulator


class _Signal:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


RESTART: Final = _Signal("RESTART")  # the list was compressed (or the budget lowered): call again
FAILED: Final = _Signal("FAILED")  # the turn failed; the reason is on the state

CallOutcome = StreamAccumulator | _Signal
Compress = Callable[[str, int], Awaitable[bool]]  # (reason, approx tokens) -> the list shrank


async def build_request(state: TurnState, deps: TurnDeps) -> ChatRequest:
    settings = deps.settings
    return ChatRequest(
        messages=await off_loop(  # a long history's copy is built in a worker, never on the event loop
            build_api_messages,
            list(state.messages),
            deps.session.system_prompt,
            extra_messages=state.extra_messages or None,
            size=len(state.messages),
        ),
        tools=deps.tool_schemas if state.tools_enabled else [],
        max_tokens=state.max_tokens_override or settings.model.max_tokens,
        cache_ttl=settings.prompt_caching.cache_ttl,
    )


async def _stream_once(state: TurnState, deps: TurnDeps) -> StreamAccumulator:
    acc = StreamAccumulator()
    state.acc = acc
    deps.events.emit(ev.AssistantStarted(state.api_calls))
    async for event in deps.provider.stream(await build_request(state, deps)):
        out = acc.feed(event)
        if out is not None:
            deps.events.emit(out)
    return acc


async def call_with_recovery(state: TurnState, deps: TurnDeps, compress: Compress) -> CallOutcome:
    max_retries = max(1, deps.settings.agent.api_max_retries)
    retry_count = 0
    while True:
        try:
            acc = await _stream_once(state, deps)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            acc = state.acc or StreamAccumulator()
            state.acc = None
            outcome = await _recover(state, deps, compress, exc, acc, retry_count, max_retries)
            if outcome is None:
                retry_count += 1
                continue
            return outcome
        state.acc = None
        deps.events.emit(ev.AssistantFinished(acc.text, len(acc.tool_calls), acc.finish_reason or "stop"))
        # No usage reported: count the call with zero tokens, so the triggers fall back to the estimate.
        await deps.meter.record(acc.usage or Usage())
        deps.meter.publish(state.messages, acc.usage)
        return acc


async def _recover(
    state: TurnState,
    deps: TurnDeps,
    compress: Compress,
    exc: Exception,
    acc: StreamAccumulator,
    retry_count: int,
    max_retries: int,
) -> CallOutcome | None:
    """Carry out the decision for one failed call; None means "call again"."""
    events = deps.events
    provider = deps.provider
    facts = recovery.ErrorFacts.read(
        exc,
        provider=provider.name,
        model=provider.model,
        request_tokens=deps.meter.estimate(state.messages),
        context_length=deps.meter.context_length,
        message_count=len(state.messages),
        delivered_text=acc.delivered_text,
        has_tool_calls=bool(acc.tool_calls),
    )
    if acc.text_parts or acc.reasoning_parts:
        events.emit(ev.AssistantFinished(acc.text, 0, "error", interrupted=False))
    decision = recovery.decide(
        facts,
        retry_count=retry_count,
        max_retries=max_retries,
        compression_attempts=state.compression_attempts,
        backoff_base=deps.backoff_base,
    )
    match decision:
        case recovery.Retry(delay=delay, attempt=attempt, reason=reason, message=message):
            events.status(f"↻ {reason.replace('_', ' ')} — retrying in {delay:.1f}s ({attempt}/{max_retries})")
            events.review("warning", f"API {reason}: {message[:160]} — retry {attempt}/{max_retries}")
            await interruptible_sleep(delay)
            return None
        case recovery.LowerOutputBudget(max_tokens=max_tokens):
            state.compression_attempts += 1
            state.max_tokens_override = max_tokens
            events.status(f"↻ Output budget lowered to {max_tokens:,} tokens")
            return RESTART
        case recovery.CompressAndRestart(window_limit=limit):
            state.compression_attempts += 1
            lowered = bool(limit) and deps.meter.lower_window(int(limit or 0))
            if lowered:
                events.review(
                    "compression", f"Provider reported a {limit:,}-token window — gauge and threshold lowered"
                )
            events.status("🗜️ Request too large for the model — compressing and retrying")
            shrank = await compress("overflow", deps.meter.estimate(state.messages))
            if shrank or lowered:
                return RESTART
            _fail(state, deps, "compression_exhausted", decision.cannot_compress())
            return FAILED
        case recovery.AcceptPartial(cause=cause):
            events.status(f"↻ Stream interrupted ({cause}) — using delivered content as final response")
            events.review("warning", f"The answer stopped early: {cause[:160]} — the delivered part was kept")
            acc.finish_reason = "stop"
            return acc
        case recovery.Fail(exit_reason=exit_reason, error=error, skip_persist=skip_persist):
            state.skip_persist = state.skip_persist or skip_persist
            _fail(state, deps, exit_reason, error)
            return FAILED
    raise AssertionError(f"unhandled recovery decision {decision!r}")


def _fail(state: TurnState, deps: TurnDeps, exit_reason: str, error: str) -> None:
    state.end_failed(exit_reason, error)
    deps.events.warn(error)
