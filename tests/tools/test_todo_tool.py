"""The todo tool through dispatch: read, replace, merge, errors, and resuming from its own results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.core.todo import TodoStore
from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from tests.tools.helpers import make_context


async def call(ctx: ToolContext, arguments: dict[str, Any] | str) -> ToolResult:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return await default_registry().dispatch("todo", raw, ctx)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path)


PLAN = [
    {"id": "1", "content": "Reproduce the bug", "status": "completed"},
    {"id": "2", "content": "Write a failing test", "status": "in_progress"},
    {"id": "3", "content": "Fix it", "status": "pending"},
]


async def test_writing_returns_the_list_and_the_summary(ctx: ToolContext) -> None:
    result = await call(ctx, {"todos": PLAN})
    assert not result.is_error
    assert json.loads(result.content) == {
        "todos": PLAN,
        "summary": {"total": 3, "pending": 1, "in_progress": 1, "completed": 1, "cancelled": 0},
    }
    assert ctx.todo.items == PLAN


async def test_calling_without_todos_reads_the_list(ctx: ToolContext) -> None:
    await call(ctx, {"todos": PLAN})
    for arguments in ({}, "", {"todos": None}):
        result = await call(ctx, arguments)
        assert json.loads(result.content)["todos"] == PLAN


async def test_merge_updates_by_id(ctx: ToolContext) -> None:
    await call(ctx, {"todos": PLAN})
    result = await call(
        ctx,
        {
            "todos": [
                {"id": "2", "content": "Write a failing test", "status": "completed"},
                {"id": "4", "content": "Open a PR", "status": "pending"},
            ],
            "merge": True,
        },
    )
    data = json.loads(result.content)
    assert [(entry["id"], entry["status"]) for entry in data["todos"]] == [
        ("1", "completed"),
        ("2", "completed"),
        ("3", "pending"),
        ("4", "pending"),
    ]
    assert data["summary"]["total"] == 4 and data["summary"]["completed"] == 2


async def test_invalid_items_are_an_error_result_and_keep_the_list(ctx: ToolContext) -> None:
    await call(ctx, {"todos": PLAN})
    result = await call(ctx, {"todos": [{"id": "1", "content": "x", "status": "done"}]})
    assert result.is_error
    assert "'status' must be one of pending, in_progress, completed, cancelled" in result.content
    assert "The task list was not changed." in result.content
    assert ctx.todo.items == PLAN


async def test_todos_of_the_wrong_type_is_an_error_result(ctx: ToolContext) -> None:
    result = await call(ctx, {"todos": "1. write code"})
    assert result.is_error and "parameter 'todos' must be an array" in result.content


async def test_a_session_resumed_from_its_messages_gets_its_list_back(ctx: ToolContext) -> None:
    arguments = json.dumps({"todos": PLAN})
    result = await call(ctx, arguments)
    history = [
        {"role": "user", "content": "fix the bug"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "todo", "arguments": arguments}}],
        },
        {"role": "tool", "tool_call_id": "call_9", "tool_name": "todo", "content": result.content},
    ]
    resumed = TodoStore()
    assert resumed.hydrate_from_history(history)
    assert resumed.items == PLAN
    assert resumed.format_for_reinjection() == (
        "[Your active task list was preserved across context compression]\n"
        "- [>] 2. Write a failing test (in_progress)\n"
        "- [ ] 3. Fix it (pending)"
    )
