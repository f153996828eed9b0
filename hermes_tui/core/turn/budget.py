"""The iteration budget of one turn and the caps on malformed tool calls (reference §6.0 step 7-8, §6.1, §6.2).

`IterationBudget` is Hermes's loop guard: the tool loop runs while
`(api_calls < max_iterations and budget.remaining > 0) or grace`. When it runs out without a final
answer, one *grace call* is granted: a tool-less call asking the model to summarise what it found
(the runner sends it; tool calls in its answer are never run). Refunds follow the reference:
a call that ended in compression (or a lowered output budget) and restarted gives back both the
API call and the budget (`refund_restart`); a round whose only tool was `execute_code` gives back
the budget only (`refund_iteration`) — the API-call count still bounds the loop.

`ToolCallGuard` screens each answer's tool calls before anything runs (reference §6.2 step 5):

- unknown tool names: the calls are answered with "does not exist" errors (the registry does it)
  and the loop goes on, at most `MAX_INVALID_TOOL_RETRIES` rounds in a row; the next one ends the
  turn as partial without running anything;
- arguments that are not valid JSON: when one does not even end with `}` or `]` it was cut off,
  and the turn ends as partial; otherwise the answer is dropped and the same request sent again
  (nothing appended), twice; the third time the answer is kept and the bad calls get "Invalid
  JSON" error results the model reads;
- tool-call ids already used earlier in the working history are suffixed (`_2`, `_3` ...) so every
  id in a request stays unique (ids repeated inside one answer are already made unique by the
  providers).
"""

from __future__ import annotations

import json
from collections.abc import Container, Sequence
from dataclasses import dataclass, replace

from hermes_tui.core.messages import Message
from hermes_tui.core.providers.base import StreamToolCall, unique_call_id

MAX_INVALID_TOOL_RETRIES = 3  # rounds with an unknown tool name that are answered and continued
MAX_INVALID_JSON_RETRIES = 3  # the third invalid-JSON answer is kept (with error results), not resent
REFUNDED_TOOLS = frozenset({"execute_code"})  # a round with only these gives its iteration back

UNKNOWN_TOOLS_STOP = (
    "Stopped: the model kept calling tools that do not exist ({names}) after {n} corrections. "
    "Nothing more was run — try rephrasing, or switch model."
)
TRUNCATED_ARGUMENTS_STOP = (
    "Stopped: the model's call to {names} arrived cut off (its arguments are incomplete JSON), "
    "so nothing was run. Ask again, perhaps for smaller steps."
)


@dataclass
class IterationBudget:
    """How many model calls one turn may make, with Hermes's grace call and refunds."""

    max_iterations: int
    used: int = 0
    _grace_granted: bool = False
    _in_grace: bool = False
    _grace_spent: bool = False

    @property
    def remaining(self) -> int:
        return self.max_iterations - self.used

    @property
    def in_grace(self) -> bool:
        """The call being made is the grace call."""
        return self._in_grace

    def may_call(self, api_calls: int) -> bool:
        return (api_calls < self.max_iterations and self.remaining > 0) or self._grace_granted

    def grant_grace(self) -> bool:
        """Allow one last (tool-less) call after the budget ran out; False when it was already given."""
        if self._grace_spent or self._grace_granted or self._in_grace:
            return False
        self._grace_granted = True
        return True

    def consume(self) -> None:
        self.used += 1
        if self._grace_granted:
            self._grace_granted, self._in_grace, self._grace_spent = False, True, True

    def refund_restart(self) -> None:
        """The call restarted after compression: it did not count (the grace call stays available)."""
        self.used -= 1
        if self._in_grace:
            self._in_grace, self._grace_granted = False, True

    def refund_iteration(self) -> None:
        """Give the budget back for a round that only ran refunded tools (the call count stays)."""
        self.used -= 1


def refunds_iteration(names: Sequence[str]) -> bool:
    return bool(names) and set(names) <= REFUNDED_TOOLS


# --------------------------------------------------------------------------- tool-call screening


def _invalid_json(arguments: str) -> bool:
    if not arguments.strip():
        return False  # no arguments: an empty object
    try:
        json.loads(arguments)
    except ValueError:
        return True
    return False


def _cut_off(arguments: str) -> bool:
    return not arguments.rstrip().endswith(("}", "]"))


@dataclass(frozen=True)
class Run:
    """Run the calls (bad ones are answered with error results by the registry)."""


@dataclass(frozen=True)
class Resend:
    """Drop this answer and send the same request again (nothing is appended)."""

    status: str


@dataclass(frozen=True)
class Stop:
    """End the turn as partial; nothing of this answer is run or kept."""

    exit_reason: str
    message: str


Verdict = Run | Resend | Stop


@dataclass
class ToolCallGuard:
    """Counts the malformed tool-call rounds of one turn and says what each answer leads to."""

    unknown_rounds: int = 0
    invalid_json_retries: int = 0

    def judge(self, calls: Sequence[StreamToolCall], tools: Container[str]) -> Verdict:
        unknown = [call.name for call in calls if call.name not in tools]
        if unknown:
            self.unknown_rounds += 1
            if self.unknown_rounds > MAX_INVALID_TOOL_RETRIES:
                names = ", ".join(dict.fromkeys(unknown))
                return Stop("invalid_tool_name", UNKNOWN_TOOLS_STOP.format(names=names, n=MAX_INVALID_TOOL_RETRIES))
        else:
            self.unknown_rounds = 0
        bad = [call for call in calls if call.name in tools and _invalid_json(call.arguments)]
        if not bad:
            self.invalid_json_retries = 0
            return Run()
        cut = [call.name for call in bad if _cut_off(call.arguments)]
        if cut:
            return Stop(
                "truncated_tool_arguments", TRUNCATED_ARGUMENTS_STOP.format(names=", ".join(dict.fromkeys(cut)))
            )
        self.invalid_json_retries += 1
        if self.invalid_json_retries < MAX_INVALID_JSON_RETRIES:
            return Resend(
                f"↻ Invalid JSON in the arguments of {bad[0].name} — asking again "
                f"({self.invalid_json_retries}/{MAX_INVALID_JSON_RETRIES - 1})"
            )
        self.invalid_json_retries = 0
        return Run()


def unique_history_ids(calls: Sequence[StreamToolCall], messages: Sequence[Message]) -> list[StreamToolCall]:
    """`calls` with every id already used by a tool call in `messages` replaced by a suffixed one."""
    used: set[str] = set()
    for message in messages:
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict) and call.get("id"):
                used.add(str(call["id"]))
    if not any(call.id in used for call in calls):
        return list(calls)
    seen = used | {call.id for call in calls}
    return [replace(call, id=unique_call_id(call.id, seen)) if call.id in used else call for call in calls]
