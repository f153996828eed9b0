"""One user turn: prepare -> outer tool loop (with the inner retry loop) -> finish.

Reference §6.0 (loop skeleton), §6.2 (response processing), §7 (empty-response layers) and §8
(finishing). `TurnRunner` works with the collaborators in `TurnDeps` — the live session, the
provider, the tool registry, the compression orchestrator, the context meter, the event emitter —
never with the Agent. The retry loop is `hermes_tui.core.turn.calls`; what a response leads to is
`hermes_tui.core.turn.responses`. How many calls the turn may make (the grace call, refunds) and what a
malformed tool call leads to (resend, error results, a partial stop) is `hermes_tui.core.turn.budget`.

Crash safety: the user's message is written to state.db as the turn starts, and the answer is
saved while it streams (`core.turn.partial_save`), so a process killed mid-turn loses neither.

Steering (`deps.steering`, logic in `hermes_tui.core.turn.steering`): /steer guidance is delivered
into the last tool result right after a tool round; /stop answers the remaining tool calls of the
round as not run and ends the turn before the next model call.

Interrupts: a cancelled turn (Ctrl-C, SIGTERM, SIGHUP) is caught here. The partial answer is kept
as an assistant message marked interrupted, unanswered tool calls get error results so the history
stays valid, everything is flushed to state.db, and `TurnFinished` carries the result, marked interrupted.
A cancellation that lands while the turn finishes waits for the finish (its final flush) to end.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Coroutine
from typing import Any

from hermes_tui.core import events as ev
from hermes_tui.core.context.scaffolding import strip_trailing_scaffolding
from hermes_tui.core.messages import tool_call_ids
from hermes_tui.core.turn import responses
from hermes_tui.core.turn.budget import (
    IterationBudget,
    Resend,
    Stop,
    ToolCallGuard,
    refunds_iteration,
    unique_history_ids,
)
from hermes_tui.core.turn.calls import FAILED, RESTART, call_with_recovery
from hermes_tui.core.turn.deps import TurnDeps
from hermes_tui.core.turn.partial_save import PartialSaver
from hermes_tui.core.turn.result import FinishedTurn, TurnResult
from hermes_tui.core.turn.state import TurnState
from hermes_tui.core.turn.steering import STOPPED_EXIT_REASON
from hermes_tui.core.turn.streaming import StreamAccumulator, strip_think_blocks
from hermes_tui.core.turn.tool_batch import run_tool_calls
from hermes_tui.text_safety import valid_unicode, valid_unicode_in

MAX_ITERATIONS_PROMPT = (
    "You've reached the maximum number of tool-calling iterations allowed. Please provide a final "
    "response summarizing what you've found and accomplished so far, without calling any more tools."
)
INTERRUPTED_TOOL_RESULT = "Error executing tool: interrupted by the user before it finished."
PREFLIGHT_PASSES = 3
MEMORY_TOOL = "memory"
SKILL_TOOL = "skill_manage"


async def _saved_even_if_cancelled(finishing: Coroutine[Any, Any, TurnResult]) -> TurnResult:
    """Run the turn's finish to its end even when the turn is cancelled meanwhile (a stop signal
    just as the answer ended): the caller closes the store next, so returning before the final
    flush would lose the answer. The cancellation is taken as handled, as in `run`, and the turn
    counts as interrupted, so nothing follows it (`Agent.next_turn`)."""
    task = asyncio.ensure_future(finishing)
    stopped = False
    while True:
        try:
            result = await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            stopped = True
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
            if task.done():
                result = task.result()
                break
    return dataclasses.replace(result, interrupted=True) if stopped else result


class TurnRunner:
    """Runs one `run_conversation` call."""

    def __init__(self, deps: TurnDeps, user_message: str, *, content: str | list[dict[str, Any]] | None = None) -> None:
        """`content` is what the user message carries when it is not `user_message` itself (the prompt
        with its @-mentioned files attached); hooks, memory and titles read `user_message`."""
        self.deps = deps
        self.state = TurnState(user_message=valid_unicode(user_message))
        self._content = self.state.user_message if content is None else valid_unicode_in(content)
        self.saver = PartialSaver(deps.session, self.state, deps.events)
        self.budget = IterationBudget(deps.settings.agent.max_turns)
        self.guard = ToolCallGuard()

    # ------------------------------------------------------------------ entry

    async def run(self) -> TurnResult:
        deps, state = self.deps, self.state
        session = deps.session
        await session.ensure_row()
        deps.steering.begin_turn()
        deps.checkpoints.begin_turn()  # one snapshot per turn, before its first file change
        state.messages = list(session.messages)
        if not session.todo.items:
            session.todo.hydrate_from_history(state.messages)
        self._count_user_turn()
        state.messages.append({"role": "user", "content": self._content})
        deps.events.emit(ev.TurnStarted(session.id, state.user_message))
        try:
            await session.flush(state.messages)  # the prompt is stored before anything can go wrong
            self.saver.start()
            await session.prompt()
            await deps.meter.prepare(state.messages)  # measures a long history in a worker
            deps.meter.publish(state.messages)
            await self._preflight()
            deps.hooks.on_turn_start(session.counters.user_turns, state.user_message)
            state.api_context = await deps.extras.turn_context(state.user_message, session.id, state.messages)
            await self._main_loop()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            self._on_interrupt()
        except Exception as exc:  # a bug must not lose the user's turn
            self._fail("internal_error", f"internal error: {type(exc).__name__}: {exc}")
        return await _saved_even_if_cancelled(self._finish())

    def _fail(self, exit_reason: str, error: str) -> None:
        """End the turn as failed with a user-facing message (shown as a warning and in the result)."""
        self.state.end_failed(exit_reason, error)
        self.deps.events.warn(error)

    def _count_user_turn(self) -> None:
        memory = self.deps.settings.memory
        counters = self.deps.session.counters
        interval = memory.nudge_interval
        if counters.user_turns == 0:
            prior = sum(1 for m in self.state.messages if m.get("role") == "user")
            counters.user_turns = prior
            if interval > 0:
                counters.turns_since_memory = prior % interval
        counters.user_turns += 1
        if interval > 0 and memory.memory_enabled:
            counters.turns_since_memory += 1
            if counters.turns_since_memory >= interval:
                counters.turns_since_memory = 0
                self.state.review_memory = MEMORY_TOOL in self.deps.tools

    def _count_tool_iteration(self, names: tuple[str, ...]) -> None:
        """The skill nudge counts tool iterations; a memory or skill_manage call resets its counter (§8)."""
        counters = self.deps.session.counters
        if MEMORY_TOOL in names:
            counters.turns_since_memory = 0
        if SKILL_TOOL in names:
            counters.iters_since_skill = 0
        elif SKILL_TOOL in self.deps.tools:
            counters.iters_since_skill += 1

    def _skill_review_due(self) -> bool:
        counters = self.deps.session.counters
        interval = self.deps.settings.skills.creation_nudge_interval
        if interval > 0 and SKILL_TOOL in self.deps.tools and counters.iters_since_skill >= interval:
            counters.iters_since_skill = 0
            return True
        return False

    # ------------------------------------------------------------------ compression triggers

    async def _preflight(self) -> None:
        """Compress before the first call when the history is already over the threshold (§6.0 step 4)."""
        deps, state = self.deps, self.state
        comp = deps.settings.compression
        compaction = deps.compaction
        if not compaction.enabled or len(state.messages) <= comp.protect_first_n + comp.protect_last_n + 1:
            return
        rough = deps.meter.estimate(state.messages)
        if compaction.should_defer_preflight(rough):
            return
        # Unlike Hermes we do not seed last_prompt_tokens with the rough figure: the gauge shows the
        # estimate itself, marked as one, until the provider reports a real count.
        for _ in range(PREFLIGHT_PASSES):
            if not compaction.should_compress(rough):
                break
            if not await self._compress("preflight", rough, flush_first=False):
                break
            rough = deps.meter.estimate(state.messages)

    async def _after_tools_check(self) -> None:
        """In-loop trigger: provider prompt tokens only, never prompt+completion (#12026)."""
        deps = self.deps
        if not deps.compaction.enabled:
            return
        tokens = deps.compaction.in_loop_tokens(deps.meter.estimate(self.state.messages))
        if deps.compaction.should_compress(tokens):
            await self._compress("threshold", tokens)

    async def _compress(self, reason: str, approx_tokens: int, *, flush_first: bool = True) -> bool:
        """Compress the working list and continue in the child session; True when the list shrank."""
        deps, state = self.deps, self.state
        if flush_first:
            await deps.session.flush(state.messages)
        before = len(state.messages)
        result = await deps.compaction.compress(state.messages, reason=reason, approx_tokens=approx_tokens)
        if result.applied:  # moved to a child session, or compacted in place
            state.messages = list(result.messages)
            state.reset_empty_recovery()
        return len(state.messages) < before

    # ------------------------------------------------------------------ main loop

    async def _main_loop(self) -> None:
        """Call, process, repeat while the iteration budget allows (`core.turn.budget`), then the grace call."""
        state, budget = self.state, self.budget
        while True:
            if self.deps.steering.stop_requested:
                state.exit_reason = STOPPED_EXIT_REASON
                return
            if not budget.may_call(state.api_calls):
                if state.final_response is not None or not budget.grant_grace():
                    return
                self._begin_grace()
            budget.consume()
            state.api_calls += 1
            continues = state.length_continues
            response = await call_with_recovery(state, self.deps, self._compress)
            if response is RESTART:
                if state.length_continues == continues:  # compressed or budget lowered: the call is refunded
                    state.api_calls -= 1
                    budget.refund_restart()
                continue
            if response is FAILED:
                return
            assert isinstance(response, StreamAccumulator)
            if budget.in_grace:
                self._finish_grace(response)
                return
            if await self._process(response):
                return

    def _begin_grace(self) -> None:
        """The budget ran out without an answer: one tool-less call asking for a summary (§6.0 step 8)."""
        state = self.state
        state.tools_enabled = False
        state.extra_messages = [{"role": "user", "content": MAX_ITERATIONS_PROMPT}]
        self.deps.events.status("Iteration budget reached — asking for a final summary")

    def _finish_grace(self, acc: StreamAccumulator) -> None:
        """The grace call's answer is final whatever it holds; tool calls in it are never run."""
        state = self.state
        state.extra_messages = []
        acc.tool_calls = []
        text = strip_think_blocks(acc.text)
        responses.append_final(state, acc, text or "(empty)")
        state.exit_reason = "max_iterations"

    async def _process(self, acc: StreamAccumulator) -> bool:
        """Handle one successful response; True when the turn is done."""
        state, events = self.state, self.deps.events
        if acc.finish_reason == "length":
            return responses.handle_length(state, acc, events, self.deps.settings.model.max_tokens)
        if acc.tool_calls:
            match self.guard.judge(acc.tool_calls, self.deps.tools):
                case Stop(exit_reason=exit_reason, message=message):
                    state.partial, state.exit_reason = True, exit_reason
                    state.final_response = strip_think_blocks(acc.text) or message
                    events.warn(message)
                    return True
                case Resend(status=status):
                    events.status(status)
                    return False
            await self._run_tools(acc)
            return state.failed
        if not responses.accept_answer(state, acc):
            return responses.handle_empty(state, acc, events)
        responses.note_filtered(acc, events)
        self.deps.meter.publish(state.messages)
        return True

    async def _run_tools(self, acc: StreamAccumulator) -> None:
        deps, state = self.deps, self.state
        state.pop_prefill()
        state.reset_empty_recovery()
        state.nudged_this_round = False
        acc.tool_calls = unique_history_ids(acc.tool_calls, state.messages)
        state.messages.append(acc.assistant_message())
        names = tuple(call.name for call in acc.tool_calls)
        if strip_think_blocks(acc.text):
            state.last_content_with_tools = acc.text
            state.last_tool_names = names
        self._count_tool_iteration(names)
        await run_tool_calls(acc.tool_calls, deps, deps.tool_context(), state.messages)
        if refunds_iteration(names):
            self.budget.refund_iteration()
        deps.steering.deliver(state.messages)  # /steer: guidance rides on the result just produced
        await deps.session.flush(state.messages)
        deps.meter.publish(state.messages)
        await self._after_tools_check()

    # ------------------------------------------------------------------ interrupt & finish

    def _on_interrupt(self) -> None:
        state, events = self.state, self.deps.events
        state.interrupted = True
        state.exit_reason = "interrupted"
        acc = state.acc
        partial_text = acc.text if acc is not None else ""
        if acc is not None and partial_text.strip():
            state.pop_prefill()
            state.messages.append({"role": "assistant", "content": partial_text, "finish_reason": "interrupted"})
            state.final_response = partial_text
        if acc is not None:
            events.emit(ev.AssistantFinished(partial_text, 0, "interrupted", interrupted=True))
            state.acc = None
        self._answer_open_tool_calls()
        events.review("info", "Turn interrupted — the partial answer was kept")

    def _answer_open_tool_calls(self) -> None:
        """Give every unanswered tool call of the last assistant message an error result, and say so
        (`ToolCallFinished`: a card that showed the call running — e.g. waiting for approval — settles)."""
        messages = self.state.messages
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if message.get("role") == "assistant":
                if not message.get("tool_calls"):
                    return
                answered = {m.get("tool_call_id") for m in messages[index + 1 :] if m.get("role") == "tool"}
                for cid in tool_call_ids(message):
                    if cid not in answered:
                        name = next((c["function"]["name"] for c in message["tool_calls"] if c.get("id") == cid), "")
                        messages.append(
                            {"role": "tool", "content": INTERRUPTED_TOOL_RESULT, "tool_call_id": cid, "tool_name": name}
                        )
                        self.deps.events.emit(ev.ToolCallFinished(cid, name, INTERRUPTED_TOOL_RESULT, True, 0.0))
                return
            if message.get("role") == "user":
                return

    async def _finish(self) -> TurnResult:
        deps, state = self.deps, self.state
        session = deps.session
        await self.saver.stop()
        state.messages = strip_trailing_scaffolding(state.messages)
        if state.skip_persist:
            await session.discard_partial()
        else:
            await session.flush(state.messages)
        session.commit([m for m in state.messages if not m.get("_empty_terminal_sentinel")])
        result = self._result()
        if result.completed and not result.partial:
            deps.hooks.sync_turn(state.user_message, result.final_response or "", session.id, session.messages)
            deps.hooks.queue_prefetch(state.user_message, session.id)
        state.review_skills = self._skill_review_due()
        finished = FinishedTurn(result, state.user_message, state.review_memory, state.review_skills)
        transformed = await deps.extras.finish(finished)
        if transformed:
            result = result.with_answer(transformed)
        deps.steering.after_turn()
        deps.meter.end_turn()
        deps.meter.publish(session.messages)
        deps.events.emit(ev.TurnFinished(result))
        return result

    def _result(self) -> TurnResult:
        """What the turn ended as, once it is stored: the one object every consumer reads."""
        deps, state = self.deps, self.state
        return TurnResult(
            final_response=state.final_response,
            session_id=deps.session.id,
            api_calls=state.api_calls,
            completed=state.final_response is not None and not state.failed and not state.interrupted,
            interrupted=state.interrupted,
            failed=state.failed,
            partial=state.partial,
            error=state.error,
            exit_reason=state.exit_reason or ("failed" if state.failed else "done"),
            usage=deps.meter.totals.as_dict(),
            last_prompt_tokens=max(0, deps.meter.last_prompt_tokens),
            messages=list(deps.session.messages),
        )
