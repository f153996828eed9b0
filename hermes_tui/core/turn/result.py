"""What a turn ended as: `TurnResult`, built once by the runner's finishing step.

The caller of `run_conversation` gets it (and `--json` prints it), the `TurnFinished` event carries
it to the front-end, and the finishing hooks see it inside `FinishedTurn` together with the two
facts only they need (the user's message and which self-reviews are due). None of them copies its
fields: the one object is handed on. Nothing here imports the rest of the turn package, so the
event module can name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from hermes_tui.core.messages import Message


@dataclass(frozen=True)
class TurnResult:
    """The outcome of one turn (its answer, how it ended, what it cost)."""

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
    messages: list[Message] = field(default_factory=list)  # the session's history once the turn was stored

    def with_answer(self, text: str) -> TurnResult:
        """The same outcome with the answer a plugin's transform made of it."""
        return replace(self, final_response=text)

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


@dataclass(frozen=True)
class FinishedTurn:
    """What the finishing hooks see of a turn that just ended (reference §8): its result, plus the
    user's message and the self-reviews the nudge counters made due."""

    result: TurnResult
    user_message: str
    review_memory: bool = False
    review_skills: bool = False
