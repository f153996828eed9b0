"""The iteration budget and the tool-call guard on their own (core.turn.budget)."""

from __future__ import annotations

from hermes_tui.core.providers.base import StreamToolCall
from hermes_tui.core.turn.budget import (
    IterationBudget,
    Resend,
    Run,
    Stop,
    ToolCallGuard,
    refunds_iteration,
    unique_history_ids,
)

TOOLS = {"read_file", "execute_code"}


def call(name: str = "read_file", arguments: str = "{}", call_id: str = "c") -> StreamToolCall:
    return StreamToolCall(call_id, name, arguments)


def run_out(budget: IterationBudget) -> int:
    """Consume calls while the budget allows; how many were made."""
    calls = 0
    while budget.may_call(calls):
        budget.consume()
        calls += 1
    return calls


def test_the_budget_allows_max_calls_then_one_grace_call_once() -> None:
    budget = IterationBudget(3)
    assert run_out(budget) == 3 and budget.remaining == 0
    assert budget.grant_grace() and budget.may_call(3)
    budget.consume()
    assert budget.in_grace and not budget.may_call(4)
    assert not budget.grant_grace(), "one grace call per turn"


def test_a_restarted_call_is_refunded_and_a_restarted_grace_call_stays_available() -> None:
    budget = IterationBudget(1)
    budget.consume()
    budget.refund_restart()
    assert budget.remaining == 1 and budget.may_call(0)
    budget.consume()
    assert budget.grant_grace()
    budget.consume()
    budget.refund_restart()
    assert not budget.in_grace and budget.may_call(1), "the grace call is made again after compression"


def test_an_execute_code_round_gives_the_budget_back_but_the_call_count_still_bounds_the_loop() -> None:
    budget = IterationBudget(2)
    budget.consume()
    assert refunds_iteration(("execute_code", "execute_code"))
    budget.refund_iteration()
    assert budget.remaining == 2
    assert budget.may_call(1) and not budget.may_call(2)
    assert not refunds_iteration(("execute_code", "read_file")) and not refunds_iteration(())


def test_invalid_json_is_resent_twice_then_run_and_the_count_starts_again() -> None:
    guard = ToolCallGuard()
    bad = [call(arguments='{"path": x}')]
    assert isinstance(guard.judge(bad, TOOLS), Resend)
    assert isinstance(guard.judge(bad, TOOLS), Resend)
    assert isinstance(guard.judge(bad, TOOLS), Run)
    assert isinstance(guard.judge(bad, TOOLS), Resend)
    assert isinstance(guard.judge([call(arguments="")], TOOLS), Run), "no arguments is an empty object"


def test_cut_off_arguments_stop_at_once() -> None:
    verdict = ToolCallGuard().judge([call(arguments='{"path": "a'), call(arguments="{}")], TOOLS)
    assert isinstance(verdict, Stop) and verdict.exit_reason == "truncated_tool_arguments"


def test_unknown_tools_get_three_rounds_and_a_clean_round_resets_the_count() -> None:
    guard = ToolCallGuard()
    unknown = [call("nope")]
    assert [type(guard.judge(unknown, TOOLS)) for _ in range(3)] == [Run, Run, Run]
    assert isinstance(guard.judge([call()], TOOLS), Run)
    assert [type(guard.judge(unknown, TOOLS)) for _ in range(4)] == [Run, Run, Run, Stop]


def test_ids_used_earlier_in_the_history_are_suffixed_without_new_collisions() -> None:
    history = [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "x", "arguments": "{}"}}]}]
    calls = [call(call_id="c"), call(call_id="c_2"), call(call_id="d")]
    assert [c.id for c in unique_history_ids(calls, history)] == ["c_3", "c_2", "d"]
    assert unique_history_ids(calls[2:], history) == calls[2:]
