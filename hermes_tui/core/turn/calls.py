"""The inner retry loop of one API call (reference §6.1): stream, and on failure carry out the decision.

`call_with_recovery(state, deps, compress)` builds the request from the turn's working list,
streams it from the chain's active provider (provider events become core events), records usage,
and returns the finished `StreamAccumulator`. When the call fails it asks `recovery.decide` what to
do and does it: rotates to the pool's next key, applies a one-shot repair, backs off in
interrupt-responsive slices and calls again, lowers the output budget, compresses (through the
`compress` callback, which rotates the session) and returns `RESTART`, asks the model to continue
an answer the network cut (`RESTART`), keeps delivered text as the answer, falls back to the next
provider of the chain (announced in the Review log and the status bar, the gauge re-measured for the
new window, the same session going on), or ends the turn as failed and returns `FAILED`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Final

from hermes_tui.core import events as ev
from hermes_tui.core.providers.base import ChatRequest, RequestCache, Usage
from hermes_tui.core.providers.credentials import cooldown_for
from hermes_tui.core.turn import images, recovery, repairs
from hermes_tui.core.turn.api_messages import build_api_messages_in_slices
from hermes_tui.core.turn.deps import TurnDeps
from hermes_tui.core.turn.request_copy import RequestCopy
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

NETWORK_CONTINUE_PROMPT = (
    "[System: The previous response was cut off by a network error mid-stream. Continue exactly where "
    "you left off. Do not restart or repeat prior text. Finish the answer directly.]"
)
# repairs that stay on for the provider that needed them (applied to every request's copy)
STICKY_REPAIRS = frozenset({"text_tool_results", "strip_schema_patterns", "shrink_images", "strip_images"})


async def build_request(state: TurnState, deps: TurnDeps) -> ChatRequest:
    """The next call's request. Its copy of the history is built from what changed since the
    conversation's previous request (`RequestCopy`), and the request carries the conversation's
    cache so the provider encodes only that too — unless a repair rewrites the copy's messages
    (tool results as text, images), when it is built and encoded whole."""
    settings = deps.settings
    quirks = deps.chain.active.quirks
    history = list(state.messages)
    system_prompt = deps.session.system_prompt
    extra = state.extra_messages or None
    cache: RequestCache | None = deps.session.request_cache
    rewrites = "text_tool_results" in quirks or bool(quirks & repairs.IMAGE_QUIRKS)
    if cache is None or rewrites:
        cache, reusable = None, range(0)
        messages = await build_api_messages_in_slices(  # a long history's copy never holds the loop
            history, system_prompt, extra_user_context=state.api_context, extra_messages=extra
        )
    else:
        copy: RequestCopy = cache.slot("request_copy", RequestCopy)
        messages, reusable = await copy.build(
            history, system_prompt, extra_user_context=state.api_context, extra_messages=extra
        )
    if "text_tool_results" in quirks:
        repairs.text_tool_results(messages)
    if quirks & repairs.IMAGE_QUIRKS:  # decoding and re-encoding images: never on the event loop
        await asyncio.to_thread(repairs.apply_image_quirks, messages, quirks, deps.chain.active.image_limit)
    tools = deps.tool_schemas if state.tools_enabled else []
    if tools and "strip_schema_patterns" in quirks:
        tools, _ = repairs.strip_schema_patterns(tools)
    return ChatRequest(
        messages=messages,
        tools=tools,
        max_tokens=state.max_tokens_override or settings.model.max_tokens,
        cache_ttl=settings.prompt_caching.cache_ttl,
        cache=cache,
        reusable=reusable,
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
    repairs_used: set[str] = set()
    if state.fallback_reason:  # the empty-response layers asked for the next provider
        reason, state.fallback_reason = state.fallback_reason, ""
        fall_back(state, deps, reason, "the model returned empty responses")
    while True:
        state.fallback_available = deps.chain.has_fallback
        try:
            acc = await _stream_once(state, deps)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            acc = state.acc or StreamAccumulator()
            state.acc = None
            outcome = await _recover(state, deps, compress, exc, acc, retry_count, max_retries, repairs_used)
            if outcome is _AGAIN:
                retry_count += 1
                continue
            if outcome is _FRESH:
                retry_count = 0
                continue
            assert not isinstance(outcome, _Internal)
            return outcome
        deps.events.emit(ev.AssistantFinished(acc.text, len(acc.tool_calls), acc.finish_reason or "stop"))
        # No usage reported: count the call with zero tokens, so the triggers fall back to the estimate.
        await deps.meter.record(acc.usage or Usage())
        deps.meter.publish(state.messages, acc.usage)
        # Still the call in flight until the caller puts it in the history (no await between): an
        # interrupt while the usage is stored keeps the answer that already arrived.
        state.acc = None
        return acc


class _Internal(_Signal):
    pass


_AGAIN: Final = _Internal("AGAIN")  # call again; counts as a retry
_FRESH: Final = _Internal("FRESH")  # call again with a fresh retry budget (new key, repair, new provider)


def fall_back(state: TurnState, deps: TurnDeps, reason: str, message: str) -> bool:
    """Move the turn to the chain's next provider and say so; False when there is none."""
    chain = deps.chain
    previous = chain.active.label
    route = chain.fall_back()
    if route is None:
        return False
    state.fallbacks += 1
    state.compression_attempts = 0
    deps.meter.use_window(route.window, route.window_known)
    text = f"Fell back from {previous} to {route.label} after {reason.replace('_', ' ')}: {message[:160]}"
    deps.events.review("fallback", text)
    deps.events.status(f"↪ Falling back to {route.label} ({reason.replace('_', ' ')})")
    deps.events.emit(ev.ProviderSwitched(route.choice.provider, route.choice.model, reason))
    deps.meter.publish(state.messages)
    return True


def _apply_repair(state: TurnState, deps: TurnDeps, kind: str, message: str) -> int:
    """Apply one repair; how many things it changed (0: nothing to fix, the call is simply tried again)."""
    if kind == "shrink_images":
        deps.chain.active.image_limit = images.limit_from_error(message)
    if kind in STICKY_REPAIRS:
        deps.chain.active.quirks.add(kind)
        return 1
    if kind == "strip_reasoning":
        return repairs.strip_reasoning(state.messages)
    raise AssertionError(f"unknown repair {kind!r}")


REPAIR_TEXT = {
    "shrink_images": "shrinking the images it rejected as too large",
    "strip_images": "leaving images out for this model (it does not accept them)",
    "text_tool_results": "sending tool results as plain text to this provider",
    "strip_reasoning": "removed the replayed reasoning it rejected",
    "strip_schema_patterns": "removed pattern/format from the tool schemas for this provider",
}


async def _recover(
    state: TurnState,
    deps: TurnDeps,
    compress: Compress,
    exc: Exception,
    acc: StreamAccumulator,
    retry_count: int,
    max_retries: int,
    repairs_used: set[str],
) -> CallOutcome | _Internal:
    """Carry out the decision for one failed call."""
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
    chain = deps.chain
    decision = recovery.decide(
        facts,
        retry_count=retry_count,
        max_retries=max_retries,
        compression_attempts=state.compression_attempts,
        backoff_base=deps.backoff_base,
        chain=recovery.ChainFacts(
            can_rotate=chain.can_rotate(),
            has_fallback=chain.has_fallback,
            repairs_used=frozenset(repairs_used),
            continuations=state.length_continues,
        ),
    )
    match decision:
        case recovery.RotateCredential(reason=reason, retry_after=retry_after, message=message):
            old = chain.active.key_note
            chain.rotate_key(cooldown_for(reason, retry_after))
            events.review(
                "warning",
                f"API {reason} on {chain.active.label} {old}: {message[:120]} — switched to {chain.active.key_note}",
            )
            events.status(f"↻ {reason.replace('_', ' ')} — trying the next API key ({chain.active.key_note})")
            return _FRESH
        case recovery.Repair(kind=kind, reason=reason, message=message):
            repairs_used.add(kind)
            _apply_repair(state, deps, kind, message)
            events.review("warning", f"API {reason}: {REPAIR_TEXT[kind]} and retrying once")
            events.status(f"↻ {reason.replace('_', ' ')} — repairing the request and retrying")
            return _FRESH
        case recovery.Retry(delay=delay, attempt=attempt, reason=reason, message=message):
            events.status(f"↻ {reason.replace('_', ' ')} — retrying in {delay:.1f}s ({attempt}/{max_retries})")
            events.review("warning", f"API {reason}: {message[:160]} — retry {attempt}/{max_retries}")
            await interruptible_sleep(delay)
            return _AGAIN
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
        case recovery.ContinueStream(cause=cause):
            continue_after_cut(state, acc)
            events.status(
                f"↻ Stream cut by the network — asking the model to continue ({state.length_continues}/"
                f"{recovery.MAX_CONTINUATIONS})"
            )
            events.review("warning", f"The answer was cut mid-stream: {cause[:160]} — asking the model to continue")
            return RESTART
        case recovery.AcceptPartial(cause=cause):
            events.status(f"↻ Stream interrupted ({cause}) — using delivered content as final response")
            events.review("warning", f"The answer stopped early: {cause[:160]} — the delivered part was kept")
            acc.finish_reason = "stop"
            state.partial, state.exit_reason = True, "partial_stream_recovery"  # Hermes's name (§7 layer 1)
            return acc
        case recovery.FallBack(reason=reason, message=message):
            if fall_back(state, deps, reason, message):
                return _FRESH
            _fail(state, deps, reason, f"{facts.provider} API error ({reason}): {message}")
            return FAILED
        case recovery.Fail(exit_reason=exit_reason, error=error, skip_persist=skip_persist):
            state.skip_persist = state.skip_persist or skip_persist
            _fail(state, deps, exit_reason, error)
            return FAILED
    raise AssertionError(f"unhandled recovery decision {decision!r}")


def continue_after_cut(state: TurnState, acc: StreamAccumulator) -> None:
    """Keep the cut answer as an interim message and ask for the rest (as a length stop does)."""
    state.messages.append(acc.assistant_message(finish_reason="length"))
    state.truncated_parts.append(acc.text)
    state.length_continues += 1
    state.messages.append({"role": "user", "content": NETWORK_CONTINUE_PROMPT})


def _fail(state: TurnState, deps: TurnDeps, exit_reason: str, error: str) -> None:
    state.end_failed(exit_reason, error)
    deps.events.warn(error)
