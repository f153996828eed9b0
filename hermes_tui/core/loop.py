"""One user turn: prepare -> outer tool loop (with the inner retry loop) -> finish.

Reference §6.0 (loop skeleton), §6.2 (response processing), §7 (empty-response layers) and §8
(finishing). The inner retry loop and error recovery live in `hermes_tui.core.recovery`; the
compression triggers call `hermes_tui.core.compression.compress_context`.

Interrupts: a cancelled turn (Ctrl-C) is caught here. The partial answer is kept as an assistant
message marked interrupted, unanswered tool calls get error results so the history stays valid,
everything is flushed to state.db, and `TurnFinished(interrupted=True)` is emitted.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from hermes_tui.core import events as ev
from hermes_tui.core.compression import compress_context
from hermes_tui.core.context.scaffolding import strip_trailing_scaffolding
from hermes_tui.core.messages import tool_call_ids
from hermes_tui.core.recovery import RESTART, call_with_recovery
from hermes_tui.core.streaming import StreamAccumulator, has_think_tags, strip_think_blocks

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent, TurnResult

HOUSEKEEPING_TOOLS = frozenset({"memory", "todo", "skill_manage", "session_search"})
LENGTH_CONTINUE_PROMPT = (
    "[System: Your previous response was truncated by the output length limit. Continue exactly "
    "where you left off. Do not restart or repeat prior text. Finish the answer directly.]"
)
POST_TOOL_NUDGE = (
    "You just executed tool calls but returned an empty response. Please process the tool results "
    "above and continue with the task."
)
MAX_ITERATIONS_PROMPT = (
    "You've reached the maximum number of tool-calling iterations allowed. Please provide a final "
    "response summarizing what you've found and accomplished so far, without calling any more tools."
)
INTERRUPTED_TOOL_RESULT = "Error executing tool: interrupted by the user before it finished."
MAX_LENGTH_CONTINUES = 3
MAX_TRUNCATED_TOOL_RETRIES = 3
MAX_EMPTY_RETRIES = 3
MAX_PREFILL_RETRIES = 2


def _sanitize_surrogates(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8") if any("\ud800" <= ch <= "\udfff" for ch in text) else text


class TurnRunner:
    """The state of one `run_conversation` call."""

    def __init__(self, agent: Agent, user_message: str) -> None:
        self.agent = agent
        self.user_message = _sanitize_surrogates(user_message)
        self.messages: list[dict[str, Any]] = []
        self.history_len: int | None = None
        self.api_calls = 0
        self.compression_attempts = 0
        self.final_response: str | None = None
        self.interrupted = False
        self.failed = False
        self.partial = False
        self.error = ""
        self.exit_reason = ""
        self.skip_persist = False
        self.acc: StreamAccumulator | None = None
        self.max_tokens_override: int | None = None
        self.extra_messages: list[dict[str, Any]] = []
        self.tools_enabled = True
        self.length_continues = 0
        self.truncated_tool_retries = 0
        self.truncated_parts: list[str] = []
        self.empty_retries = 0
        self.prefill_retries = 0
        self.nudged_this_round = False
        self.last_content_with_tools: str | None = None
        self.last_tool_names: tuple[str, ...] = ()

    # ------------------------------------------------------------------ entry

    async def run(self) -> TurnResult:
        agent = self.agent
        await agent.ensure_session_row()
        self.history_len = len(agent.messages)
        self.messages = list(agent.messages)
        if not agent.todo.items:
            agent.todo.hydrate_from_history(self.messages)
        self._count_user_turn()
        self.messages.append({"role": "user", "content": self.user_message})
        agent.emit(ev.TurnStarted(agent.session_id, self.user_message))
        try:
            await agent.system_prompt(history_nonempty=bool(self.history_len))
            agent.emit_budget(self.messages)
            await self._preflight()
            agent.memory_hooks.on_turn_start(agent.user_turn_count, self.user_message)
            await self._main_loop()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            self._on_interrupt()
        except Exception as exc:  # a bug must not lose the user's turn
            self.fail("internal_error", f"internal error: {type(exc).__name__}: {exc}")
        return await asyncio.shield(self._finish())

    def fail(self, exit_reason: str, error: str) -> None:
        """End the turn as failed with a user-facing message (shown as a warning and in the result)."""
        self.failed = True
        self.exit_reason = exit_reason
        self.error = error
        self.agent.warn(error)

    def _count_user_turn(self) -> None:
        agent = self.agent
        interval = agent.settings.memory.nudge_interval
        if agent.user_turn_count == 0:
            prior = sum(1 for m in self.messages if m.get("role") == "user")
            agent.user_turn_count = prior
            if interval > 0:
                agent.turns_since_memory = prior % interval
        agent.user_turn_count += 1
        if interval > 0 and agent.settings.memory.memory_enabled:
            agent.turns_since_memory += 1
            if agent.turns_since_memory >= interval:
                agent.turns_since_memory = 0

    # ------------------------------------------------------------------ compression triggers

    async def _preflight(self) -> None:
        """Compress before the first call when the history is already over the threshold (§6.0 step 4)."""
        agent = self.agent
        comp = agent.settings.compression
        compressor = agent.compressor
        if not comp.enabled or len(self.messages) <= comp.protect_first_n + comp.protect_last_n + 1:
            return
        rough = agent.request_estimate(self.messages)
        if compressor.should_defer_preflight_to_real_usage(rough):
            return
        # Unlike Hermes we do not seed last_prompt_tokens with the rough figure: the gauge shows the
        # estimate itself, marked as one, until the provider reports a real count.
        for _ in range(3):
            if not compressor.should_compress(rough):
                break
            before = len(self.messages)
            await self.compress(reason="preflight", approx_tokens=rough, flush_first=False)
            if len(self.messages) >= before:
                break
            rough = agent.request_estimate(self.messages)

    async def _after_tools_check(self) -> None:
        """In-loop trigger: provider prompt tokens only, never prompt+completion (#12026)."""
        agent = self.agent
        if not agent.settings.compression.enabled:
            return
        tokens = agent.compressor.last_prompt_tokens
        if tokens < 0:
            tokens = 0  # a compression just ran; no real usage yet
        elif tokens == 0:
            tokens = agent.request_estimate(self.messages)  # no usage reported (#14695, #2153)
        if agent.compressor.should_compress(tokens):
            await self.compress(reason="threshold", approx_tokens=tokens)

    async def compress(
        self,
        *,
        reason: str,
        approx_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
        flush_first: bool = True,
    ) -> bool:
        """Compress the working list and rotate the session; True when the list shrank."""
        agent = self.agent
        if flush_first:
            await agent.flush(self.messages, self.history_len)
        before = len(self.messages)
        outcome = await compress_context(
            agent,
            self.messages,
            reason=reason,
            approx_tokens=approx_tokens,
            focus_topic=focus_topic,
            force=force,
        )
        if outcome.rotated:
            self.messages = outcome.messages
            self.history_len = None  # the child receives the whole compressed list
            self.empty_retries = 0
            self.prefill_retries = 0
        return len(self.messages) < before

    # ------------------------------------------------------------------ main loop

    async def _main_loop(self) -> None:
        agent = self.agent
        max_iterations = agent.settings.agent.max_turns
        while self.api_calls < max_iterations:
            self.api_calls += 1
            response = await call_with_recovery(self)
            if response is RESTART:
                self.api_calls -= 1
                continue
            if response is None:
                return
            assert isinstance(response, StreamAccumulator)
            if await self._process(response):
                return
        if self.final_response is None and not self.failed:
            await self._handle_max_iterations()

    async def _handle_max_iterations(self) -> None:
        self.tools_enabled = False
        self.extra_messages = [{"role": "user", "content": MAX_ITERATIONS_PROMPT}]
        self.agent.emit(ev.Status("Iteration budget reached — asking for a final summary"))
        response = await call_with_recovery(self)
        self.extra_messages = []
        if isinstance(response, StreamAccumulator):
            text = strip_think_blocks(response.text)
            self._append_final(response, text or "(empty)")
        self.exit_reason = "max_iterations"

    # ------------------------------------------------------------------ response processing

    def _pop_prefill(self) -> None:
        self.messages = [m for m in self.messages if not m.get("_thinking_prefill")]

    def _append_final(self, acc: StreamAccumulator, text: str) -> None:
        self._pop_prefill()
        self.messages = strip_trailing_scaffolding(self.messages)
        message = acc.assistant_message()
        joined = "".join(self.truncated_parts) + text
        message["content"] = joined
        self.messages.append(message)
        self.final_response = joined

    async def _process(self, acc: StreamAccumulator) -> bool:
        """Handle one successful response; True when the turn is done."""
        agent = self.agent
        if acc.finish_reason == "length":
            return await self._handle_length(acc)
        if acc.tool_calls:
            await self._run_tools(acc)
            return self.failed
        visible = strip_think_blocks(acc.text)
        if not visible:
            return self._handle_empty(acc)
        self.empty_retries = 0
        self.prefill_retries = 0
        self._append_final(acc, visible if has_think_tags(acc.text) else acc.text)
        self.exit_reason = self.exit_reason or "text_response"
        agent.emit_budget(self.messages)
        return True

    async def _handle_length(self, acc: StreamAccumulator) -> bool:
        agent = self.agent
        base = agent.settings.model.max_tokens or 4096
        requested = self.max_tokens_override or base
        if acc.tool_calls:
            # A truncated tool call is never executed: retry the same request with more room.
            self.truncated_tool_retries += 1
            if self.truncated_tool_retries <= MAX_TRUNCATED_TOOL_RETRIES:
                self.max_tokens_override = min(base * (self.truncated_tool_retries + 1), max(32768, requested))
                agent.emit(ev.Status("↻ Tool call was truncated by the output limit — retrying with more room"))
                return False
            self.partial = True
            self.final_response = "Response truncated due to output length limit"
            self.exit_reason = "truncated_tool_call"
            return True
        visible = strip_think_blocks(acc.text)
        if not visible and has_think_tags(acc.text):
            self.partial = True
            self.final_response = (
                "⚠️ **Thinking Budget Exhausted** — the model spent its whole output budget reasoning. "
                "Lower the reasoning effort or switch model."
            )
            self.exit_reason = "thinking_exhausted"
            return True
        interim = acc.assistant_message()
        self.messages.append(interim)
        self.truncated_parts.append(acc.text)
        if self.length_continues < MAX_LENGTH_CONTINUES:
            self.length_continues += 1
            self.messages.append({"role": "user", "content": LENGTH_CONTINUE_PROMPT})
            self.max_tokens_override = min(base * (self.length_continues + 1), max(32768, requested))
            agent.emit(ev.Status(f"↻ Answer hit the output limit — continuing ({self.length_continues}/3)"))
            return False
        self.partial = True
        self.final_response = strip_think_blocks("".join(self.truncated_parts))
        self.exit_reason = "length_exhausted"
        agent.warn("Response remained truncated after 3 continuation attempts")
        return True

    async def _run_tools(self, acc: StreamAccumulator) -> None:
        agent = self.agent
        self._pop_prefill()
        self.empty_retries = 0
        self.prefill_retries = 0
        self.nudged_this_round = False
        message = acc.assistant_message()
        self.messages.append(message)
        names = tuple(call.name for call in acc.tool_calls)
        if strip_think_blocks(acc.text):
            self.last_content_with_tools = acc.text
            self.last_tool_names = names
        context = agent.tool_context()
        for call in acc.tool_calls:
            agent.emit(ev.ToolCallStarted(call.id, call.name, call.arguments))
            started = time.monotonic()
            result = await agent.registry.dispatch(call.name, call.arguments, context)
            agent.emit(
                ev.ToolCallFinished(call.id, call.name, result.content, result.is_error, time.monotonic() - started)
            )
            self.messages.append(
                {"role": "tool", "content": result.content, "tool_call_id": call.id, "tool_name": call.name}
            )
        await agent.flush(self.messages, self.history_len)
        agent.emit_budget(self.messages)
        await self._after_tools_check()

    def _handle_empty(self, acc: StreamAccumulator) -> bool:
        """The empty-response layers of §7, in order; True when the turn is done."""
        agent = self.agent
        # Layer 2: the previous assistant text, when its tools were only housekeeping.
        if self.last_content_with_tools and set(self.last_tool_names) <= HOUSEKEEPING_TOOLS:
            self.final_response = strip_think_blocks(self.last_content_with_tools)
            self.exit_reason = "prior_turn_content"
            agent.emit(ev.Status("↻ Empty response after tool calls — using earlier content as final answer"))
            return True
        # Layer 3: nudge once per tool round after tool results.
        recent_tool = any(m.get("role") == "tool" for m in self.messages[-5:])
        if recent_tool and not has_think_tags(acc.text) and not self.nudged_this_round:
            self.nudged_this_round = True
            self.messages.append({"role": "assistant", "content": "(empty)", "_empty_recovery_synthetic": True})
            self.messages.append({"role": "user", "content": POST_TOOL_NUDGE, "_empty_recovery_synthetic": True})
            agent.emit(ev.Status("↻ Empty response after tool results — nudging the model to continue"))
            return False
        # Layer 4: thinking-only prefill.
        if (acc.reasoning or has_think_tags(acc.text)) and self.prefill_retries < MAX_PREFILL_RETRIES:
            self.prefill_retries += 1
            prefill = acc.assistant_message(finish_reason="incomplete")
            prefill["_thinking_prefill"] = True
            self.messages.append(prefill)
            agent.emit(ev.Status("↻ Reasoning-only response — letting the model continue"))
            return False
        # Layer 5: plain retries.
        if self.empty_retries < MAX_EMPTY_RETRIES:
            self.empty_retries += 1
            agent.emit(ev.Status(f"↻ Empty response — retrying ({self.empty_retries}/{MAX_EMPTY_RETRIES})"))
            return False
        # Layer 7: terminal sentinel, then the explainer.
        self.messages = strip_trailing_scaffolding(self._drop_scaffolding_round())
        self.messages.append({"role": "assistant", "content": "(empty)", "_empty_terminal_sentinel": True})
        self.final_response = (
            "The model returned an empty response several times in a row, so this turn stopped. "
            "Nothing was lost: try rephrasing, /retry, or switch model."
        )
        self.exit_reason = "empty_response"
        self.partial = True
        return True

    def _drop_scaffolding_round(self) -> list[dict[str, Any]]:
        messages = list(self.messages)
        dropped = False
        while messages and (messages[-1].get("_empty_recovery_synthetic") or messages[-1].get("_thinking_prefill")):
            messages.pop()
            dropped = True
        if dropped:
            while messages and messages[-1].get("role") == "tool":
                messages.pop()
            if messages and messages[-1].get("role") == "assistant" and messages[-1].get("tool_calls"):
                messages.pop()
        return messages

    # ------------------------------------------------------------------ interrupt & finish

    def _on_interrupt(self) -> None:
        agent = self.agent
        self.interrupted = True
        self.exit_reason = "interrupted"
        acc = self.acc
        partial_text = acc.text if acc is not None else ""
        if acc is not None and partial_text.strip():
            self._pop_prefill()
            message = {"role": "assistant", "content": partial_text, "finish_reason": "interrupted"}
            self.messages.append(message)
            self.final_response = partial_text
        if acc is not None:
            agent.emit(ev.AssistantFinished(partial_text, 0, "interrupted", interrupted=True))
            self.acc = None
        self._answer_open_tool_calls()
        agent.review("info", "Turn interrupted — the partial answer was kept")

    def _answer_open_tool_calls(self) -> None:
        """Give every unanswered tool call of the last assistant message an error result."""
        for index in range(len(self.messages) - 1, -1, -1):
            message = self.messages[index]
            if message.get("role") == "assistant":
                if not message.get("tool_calls"):
                    return
                answered = {m.get("tool_call_id") for m in self.messages[index + 1 :] if m.get("role") == "tool"}
                for cid in tool_call_ids(message):
                    if cid not in answered:
                        name = next((c["function"]["name"] for c in message["tool_calls"] if c.get("id") == cid), "")
                        self.messages.append(
                            {"role": "tool", "content": INTERRUPTED_TOOL_RESULT, "tool_call_id": cid, "tool_name": name}
                        )
                return
            if message.get("role") == "user":
                return

    async def _finish(self) -> TurnResult:
        from hermes_tui.core.agent import TurnResult

        agent = self.agent
        self.messages = strip_trailing_scaffolding(self.messages)
        if not self.skip_persist:
            await agent.flush(self.messages, self.history_len)
        agent.messages = [m for m in self.messages if not m.get("_empty_terminal_sentinel")]
        completed = self.final_response is not None and not self.failed and not self.interrupted
        if completed and not self.partial:
            agent.memory_hooks.sync_turn(self.user_message, self.final_response or "", agent.session_id)
        agent.emit_budget(agent.messages)
        result = TurnResult(
            final_response=self.final_response,
            session_id=agent.session_id,
            api_calls=self.api_calls,
            completed=completed,
            interrupted=self.interrupted,
            failed=self.failed,
            partial=self.partial,
            error=self.error,
            exit_reason=self.exit_reason or ("failed" if self.failed else "done"),
            usage=agent.totals.as_dict(),
            last_prompt_tokens=max(0, agent.compressor.last_prompt_tokens),
            messages=agent.messages,
        )
        agent.emit(
            ev.TurnFinished(
                session_id=agent.session_id,
                final_response=self.final_response,
                interrupted=self.interrupted,
                failed=self.failed,
                error=self.error,
                api_calls=self.api_calls,
                exit_reason=result.exit_reason,
            )
        )
        return result
