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
from hermes_tui.core.turn.tool_batch import can_run_together
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


def call(call_id: str, name: str, **args: object) -> StreamToolCall:
    return StreamToolCall(call_id, name, json.dumps(args))


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
