"""What a turn does with a response that came back without an error (reference §6.2, §7).

Pure decisions over the turn's state: a final answer is appended; a response cut by the output
limit is continued (or, when it carried tool calls, retried with more room); an empty response
walks Hermes's fallback layers (earlier content after housekeeping tools, a nudge after tool
results, a thinking-only prefill, plain retries, then a terminal sentinel and an explanation).
Each handler returns True when the turn is done. The only side effect is a status line.
"""

from __future__ import annotations

from typing import Any

from hermes_tui.core.context.scaffolding import strip_trailing_scaffolding
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.turn.state import TurnState
from hermes_tui.core.turn.streaming import StreamAccumulator, has_think_tags, strip_think_blocks

HOUSEKEEPING_TOOLS = frozenset({"memory", "todo", "skill_manage", "session_search"})
LENGTH_CONTINUE_PROMPT = (
    "[System: Your previous response was truncated by the output length limit. Continue exactly "
    "where you left off. Do not restart or repeat prior text. Finish the answer directly.]"
)
POST_TOOL_NUDGE = (
    "You just executed tool calls but returned an empty response. Please process the tool results "
    "above and continue with the task."
)
EMPTY_EXPLAINER = (
    "The model returned an empty response several times in a row, so this turn stopped. "
    "Nothing was lost: try rephrasing, /retry, or switch model."
)
THINKING_EXHAUSTED = (
    "⚠️ **Thinking Budget Exhausted** — the model spent its whole output budget reasoning. "
    "Lower the reasoning effort or switch model."
)
TRUNCATED_TOOL_CALL = "Response truncated due to output length limit"
FILTERED_NOTE = "The provider's content filter stopped this answer early; the part that arrived is kept."
MAX_LENGTH_CONTINUES = 3
MAX_TRUNCATED_TOOL_RETRIES = 3
MAX_EMPTY_RETRIES = 3
MAX_PREFILL_RETRIES = 2
DEFAULT_MAX_TOKENS = 4096
ROOMY_MAX_TOKENS = 32768


def append_final(state: TurnState, acc: StreamAccumulator, text: str) -> None:
    """The answer: the streamed message as its own row; the answer joins any continued parts to it.

    The interim parts are already rows of their own (as Hermes stores them), so the last row holds only
    the last part: repeating them there would count them twice in the context.
    """
    state.pop_prefill()
    state.messages = strip_trailing_scaffolding(state.messages)
    message = acc.assistant_message()
    message["content"] = text
    state.messages.append(message)
    state.final_response = state.joined_answer(text)


def accept_answer(state: TurnState, acc: StreamAccumulator) -> bool:
    """A response with visible text is the answer; False when it had none (the empty layers follow)."""
    visible = strip_think_blocks(acc.text)
    if not visible:
        return False
    state.reset_empty_recovery()
    append_final(state, acc, visible if has_think_tags(acc.text) else acc.text)
    state.exit_reason = state.exit_reason or "text_response"
    return True


def note_filtered(acc: StreamAccumulator, events: Emitter) -> None:
    """Say so when the provider's content filter cut a visible answer short."""
    if acc.finish_reason == "content_filter":
        events.warn(FILTERED_NOTE)


def handle_length(state: TurnState, acc: StreamAccumulator, events: Emitter, max_tokens: int | None) -> bool:
    """finish_reason "length": continue the answer, or retry a truncated tool call with more room."""
    base = max_tokens or DEFAULT_MAX_TOKENS
    requested = state.max_tokens_override or base
    if acc.tool_calls:
        # A truncated tool call is never executed: retry the same request with more room.
        state.truncated_tool_retries += 1
        if state.truncated_tool_retries <= MAX_TRUNCATED_TOOL_RETRIES:
            state.max_tokens_override = min(base * (state.truncated_tool_retries + 1), max(ROOMY_MAX_TOKENS, requested))
            events.status("↻ Tool call was truncated by the output limit — retrying with more room")
            return False
        state.partial = True
        state.final_response = TRUNCATED_TOOL_CALL
        state.exit_reason = "truncated_tool_call"
        return True
    visible = strip_think_blocks(acc.text)
    if not visible and has_think_tags(acc.text):
        state.partial = True
        state.final_response = THINKING_EXHAUSTED
        state.exit_reason = "thinking_exhausted"
        return True
    state.messages.append(acc.assistant_message())
    state.truncated_parts.append(acc.text)
    if state.length_continues < MAX_LENGTH_CONTINUES:
        state.length_continues += 1
        state.messages.append({"role": "user", "content": LENGTH_CONTINUE_PROMPT})
        state.max_tokens_override = min(base * (state.length_continues + 1), max(ROOMY_MAX_TOKENS, requested))
        events.status(f"↻ Answer hit the output limit — continuing ({state.length_continues}/3)")
        return False
    state.partial = True
    state.final_response = strip_think_blocks("".join(state.truncated_parts))
    state.exit_reason = "length_exhausted"
    events.warn("Response remained truncated after 3 continuation attempts")
    return True


def handle_empty(state: TurnState, acc: StreamAccumulator, events: Emitter) -> bool:
    """The empty-response layers of §7, in order; True when the turn is done."""
    # Layer 2: the previous assistant text, when its tools were only housekeeping.
    if state.last_content_with_tools and set(state.last_tool_names) <= HOUSEKEEPING_TOOLS:
        state.final_response = strip_think_blocks(state.last_content_with_tools)
        state.exit_reason = "prior_turn_content"
        events.status("↻ Empty response after tool calls — using earlier content as final answer")
        return True
    # Layer 3: nudge once per tool round after tool results.
    recent_tool = any(m.get("role") == "tool" for m in state.messages[-5:])
    if recent_tool and not has_think_tags(acc.text) and not state.nudged_this_round:
        state.nudged_this_round = True
        state.messages.append({"role": "assistant", "content": "(empty)", "_empty_recovery_synthetic": True})
        state.messages.append({"role": "user", "content": POST_TOOL_NUDGE, "_empty_recovery_synthetic": True})
        events.status("↻ Empty response after tool results — nudging the model to continue")
        return False
    # Layer 4: thinking-only prefill.
    if (acc.reasoning or has_think_tags(acc.text)) and state.prefill_retries < MAX_PREFILL_RETRIES:
        state.prefill_retries += 1
        prefill = acc.assistant_message(finish_reason="incomplete")
        prefill["_thinking_prefill"] = True
        state.messages.append(prefill)
        events.status("↻ Reasoning-only response — letting the model continue")
        return False
    # Layer 5: plain retries.
    if state.empty_retries < MAX_EMPTY_RETRIES:
        state.empty_retries += 1
        events.status(f"↻ Empty response — retrying ({state.empty_retries}/{MAX_EMPTY_RETRIES})")
        return False
    # Layer 6: the next provider of the chain, if there is one (the retry loop switches before calling).
    if state.fallback_available:
        state.fallback_available = False
        state.fallback_reason = "empty_response"
        state.empty_retries = 0
        return False
    # Layer 7: terminal sentinel, then the explainer.
    state.messages = strip_trailing_scaffolding(_drop_scaffolding_round(state.messages))
    state.messages.append({"role": "assistant", "content": "(empty)", "_empty_terminal_sentinel": True})
    state.final_response = EMPTY_EXPLAINER
    state.exit_reason = "empty_response"
    state.partial = True
    return True


def _drop_scaffolding_round(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Without the trailing recovery scaffolding and the tool round it was trying to rescue."""
    messages = list(messages)
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
