"""Parallel tool calls, as Hermes runs them: read-only and non-overlapping file tools together, the rest alone.

Concurrency is read from the order of the events (every call started before the first finished),
never from timings; results always come back in call order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_tui.core import events as ev
from hermes_tui.core.providers.base import StreamToolCall
from hermes_tui.core.turn.tool_batch import can_run_together, plan_segments
from tests.fake_llm import Reply
from tests.faults.helpers import BOTH, Harness


def kinds(run: object) -> list[str]:
    return [
        f"{'start' if isinstance(e, ev.ToolCallStarted) else 'end'}:{e.call_id}"
        for e in run.log  # type: ignore[attr-defined]
        if isinstance(e, (ev.ToolCallStarted, ev.ToolCallFinished))
    ]


def search(call_id: str, query: str) -> tuple[str, str, str]:
    return (call_id, "session_search", json.dumps({"query": query}))


@pytest.mark.parametrize("protocol", BOTH)
async def test_read_only_calls_in_one_answer_run_together_and_answer_in_order(harness: Harness, protocol: str) -> None:
    calls = [search("call_a", "alpha"), search("call_b", "beta"), search("call_c", "gamma")]
    run = await harness.run(protocol, Reply(tool_calls=calls), Reply(text="Searched."))
    run.assert_answered("Searched.")
    order = kinds(run)
    starts = [i for i, kind in enumerate(order) if kind.startswith("start")]
    ends = [i for i, kind in enumerate(order) if kind.startswith("end")]
    assert max(starts) < min(ends), f"every call started before the first finished: {order}"
    tool_rows = [row["tool_call_id"] for row in run.stored if row["role"] == "tool"]
    assert tool_rows == ["call_a", "call_b", "call_c"], "results are stored in call order"


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_shell_call_makes_the_batch_run_one_by_one(harness: Harness, protocol: str) -> None:
    calls = [
        ("call_r", "read_file", json.dumps({"path": "notes.txt"})),
        ("call_t", "terminal", json.dumps({"command": "echo hi"})),
    ]
    run = await harness.run(protocol, Reply(tool_calls=calls), Reply(text="Done."))
    run.assert_answered("Done.")
    assert kinds(run) == ["start:call_r", "end:call_r", "start:call_t", "end:call_t"]


def call(call_id: str, tool: str, **args: object) -> StreamToolCall:
    return StreamToolCall(call_id, tool, json.dumps(args))


@pytest.mark.parametrize(
    ("calls", "together"),
    [
        ([call("1", "read_file", path="a.txt"), call("2", "read_file", path="b.txt")], True),
        ([call("1", "read_file", path="a.txt"), call("2", "write_file", path="b.txt", content="x")], True),
        ([call("1", "read_file", path="a.txt"), call("2", "write_file", path="./a.txt", content="x")], False),
        ([call("1", "search_files", pattern="x"), call("2", "write_file", path="src/a.py", content="x")], False),
        ([call("1", "write_file", path="a/b.txt", content=""), call("2", "read_file", path="c.txt")], True),
        ([call("1", "read_file", path="a.txt"), call("2", "terminal", command="ls")], False),
        ([call("1", "read_file", path="a.txt"), call("2", "todo", todos=[])], False),
        ([call("1", "read_file", path="a.txt"), StreamToolCall("2", "read_file", '{"path": ')], False),
        ([call("1", "read_file", path="a.txt")], False),
    ],
)
def test_which_batches_may_run_together(tmp_path: Path, calls: list[StreamToolCall], together: bool) -> None:
    assert can_run_together(calls, tmp_path) is together


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_shell_call_in_a_mixed_batch_splits_it_into_parallel_runs_around_it(
    harness: Harness, protocol: str
) -> None:
    calls = [
        search("call_a", "alpha"),
        search("call_b", "beta"),
        ("call_t", "terminal", json.dumps({"command": "echo hi"})),
        search("call_c", "gamma"),
        search("call_d", "delta"),
    ]
    run = await harness.run(protocol, Reply(tool_calls=calls), Reply(text="Mixed."))
    run.assert_answered("Mixed.")
    order = kinds(run)
    at = order.index
    # the two searches before the shell call run together, and both end before it starts
    assert max(at("start:call_a"), at("start:call_b")) < min(at("end:call_a"), at("end:call_b"))
    assert max(at("end:call_a"), at("end:call_b")) < at("start:call_t") < at("end:call_t")
    # the two after it start only once it has finished, and run together
    assert at("end:call_t") < min(at("start:call_c"), at("start:call_d"))
    assert max(at("start:call_c"), at("start:call_d")) < min(at("end:call_c"), at("end:call_d"))
    tool_rows = [row["tool_call_id"] for row in run.stored if row["role"] == "tool"]
    assert tool_rows == ["call_a", "call_b", "call_t", "call_c", "call_d"]


def shape(calls: list[StreamToolCall], cwd: Path) -> list[str]:
    """Each segment as "P:ids" (together) or "S:ids" (one by one)."""
    return [f"{'P' if s.parallel else 'S'}:{''.join(c.id for c in s.calls)}" for s in plan_segments(calls, cwd)]


@pytest.mark.parametrize(
    ("calls", "segments"),
    [
        ([call("1", "skill_view", name="a"), call("2", "skill_view", name="b"), call("3", "skills_list")], ["P:123"]),
        ([call("1", "read_file", path="a"), call("2", "terminal", command="ls"), call("3", "read_file", path="b")],
         ["S:123"]),
        ([call("1", "read_file", path="a"), call("2", "read_file", path="b"), call("3", "terminal", command="ls"),
          call("4", "read_file", path="c"), call("5", "skill_view", name="x")], ["P:12", "S:3", "P:45"]),
        # an overlapping write closes the run: it starts after the read of the same file has finished
        ([call("1", "read_file", path="a.txt"), call("2", "read_file", path="b.txt"),
          call("3", "write_file", path="a.txt", content="x"), call("4", "read_file", path="c.txt")],
         ["P:12", "P:34"]),
        ([call("1", "todo", todos=[]), call("2", "memory", action="add"), call("3", "session_search", query="q")],
         ["S:123"]),
        ([StreamToolCall("1", "read_file", '{"path": '), call("2", "read_file", path="a"),
          call("3", "read_file", path="b")], ["S:1", "P:23"]),
    ],
)  # fmt: skip
def test_how_a_batch_is_split(tmp_path: Path, calls: list[StreamToolCall], segments: list[str]) -> None:
    assert shape(calls, tmp_path) == segments
