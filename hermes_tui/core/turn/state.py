"""The state of one user turn while it runs.

`TurnState` is plain data the runner, the retry loop and the response handlers share while one
`run_conversation` call lasts: the working message list, counters of each recovery path, and how
the turn is ending. What the turn hands back once it ended is `core.turn.result.TurnResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermes_tui.core.messages import Message
from hermes_tui.core.turn.streaming import StreamAccumulator


@dataclass
class TurnState:
    """Everything one turn tracks between API calls."""

    user_message: str
    messages: list[Message] = field(default_factory=list)
    api_calls: int = 0
    # how the turn ends
    final_response: str | None = None
    interrupted: bool = False
    failed: bool = False
    partial: bool = False
    error: str = ""
    exit_reason: str = ""
    skip_persist: bool = False
    # the call in flight (kept so an interrupt can save what it streamed)
    acc: StreamAccumulator | None = None
    # request shaping
    max_tokens_override: int | None = None
    extra_messages: list[Message] = field(default_factory=list)
    tools_enabled: bool = True
    # recovery counters
    compression_attempts: int = 0
    fallback_reason: str = ""  # set by the empty-response layers: fall back before the next call
    fallbacks: int = 0
    fallback_available: bool = False  # the chain has a next provider (kept current by the retry loop)
    length_continues: int = 0
    truncated_tool_retries: int = 0
    truncated_parts: list[str] = field(default_factory=list)
    empty_retries: int = 0
    prefill_retries: int = 0
    nudged_this_round: bool = False
    last_content_with_tools: str | None = None
    last_tool_names: tuple[str, ...] = ()
    # per-turn material for the API copy of the current user message (memory prefetch, plugins)
    api_context: str = ""
    # the nudges due at the end of this turn (reference §8 steps 8 and 10)
    review_memory: bool = False
    review_skills: bool = False

    def end_failed(self, exit_reason: str, error: str) -> None:
        self.failed = True
        self.exit_reason = exit_reason
        self.error = error

    def joined_answer(self, text: str) -> str:
        """The answer as the user saw it: the continued (length- or network-cut) parts, then `text`."""
        return "".join(self.truncated_parts) + text

    def reset_empty_recovery(self) -> None:
        self.empty_retries = 0
        self.prefill_retries = 0

    def pop_prefill(self) -> None:
        self.messages = [m for m in self.messages if not m.get("_thinking_prefill")]
