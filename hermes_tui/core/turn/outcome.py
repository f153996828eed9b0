"""Did a turn produce a real answer? If not, why — in one line a user understands.

Only a turn that completed with an answer the model finished is answered. Everything else is a
failure for `hermes-tui run`'s exit code and its `--json` "failed" field: an interruption, an
API or internal error, an empty or reasoning-only answer (the explainer the loop shows in its
place is not an answer), a stop by the provider's content filter or a refusal, an answer still
cut by the output limit, a tool call truncated by it, a stream that died mid-answer, and an
iteration budget that ran out. The turn's text, if any, is still printed; only the verdict changes.
"""

from __future__ import annotations

from hermes_tui.core.turn.result import TurnResult

ANSWERED_EXIT_REASONS = frozenset({"text_response", "prior_turn_content"})

REASONS: dict[str, str] = {
    "interrupted": "the turn was interrupted before the answer was complete",
    "empty_response": "the model returned no answer (empty or reasoning only), even after retries",
    "thinking_exhausted": "the model spent its whole output budget reasoning and gave no answer",
    "length_exhausted": "the answer was still cut by the output limit after 3 continuations",
    "truncated_tool_call": "a tool call was cut by the output limit and could not be run",
    "partial_stream_recovery": "the connection dropped mid-answer; only the part that arrived is shown",
    "max_iterations": "the tool-call iteration budget ran out before the task was finished",
    "invalid_tool_name": "the model kept calling tools that do not exist, so the turn was stopped",
    "truncated_tool_arguments": "a tool call arrived cut off (incomplete JSON arguments) and was not run",
}
CONTENT_FILTERED = "the provider's content filter (or the model's refusal) stopped the answer"
NO_ANSWER = "the model returned no answer"


def _finish_reason_of_answer(result: TurnResult) -> str | None:
    """The finish_reason of the turn's final assistant message, if the turn ended on one."""
    for message in reversed(result.messages):
        role = message.get("role")
        if role == "assistant":
            return message.get("finish_reason")
        if role in ("user", "tool"):
            return None
    return None


def failure_reason(result: TurnResult) -> str | None:
    """None when the turn produced a real answer, else the one-line reason it did not."""
    if result.failed:
        return result.error or result.exit_reason or "the turn failed"
    if result.interrupted:
        return REASONS["interrupted"]
    if result.exit_reason in REASONS:
        return REASONS[result.exit_reason]
    if not (result.final_response or "").strip():
        return NO_ANSWER
    if _finish_reason_of_answer(result) == "content_filter":
        return CONTENT_FILTERED
    if result.partial or not result.completed or result.exit_reason not in ANSWERED_EXIT_REASONS:
        return f"the turn ended without a complete answer ({result.exit_reason or 'unknown reason'})"
    return None
