"""The todo tool: the model's view of the session's `TodoStore` (reference §8, Hermes todo_tool).

Owns: the tool schema and the call semantics — no `todos` reads the list, `todos` replaces it,
`merge=true` updates items by id and appends new ones — and the JSON result
`{todos, summary{total, pending, in_progress, completed, cancelled}}`. Invalid items are an error
result and leave the list unchanged.
"""

from __future__ import annotations

import json
from typing import Any

from hermes_tui.core.todo import STATUSES, TodoError
from hermes_tui.core.tools.base import Tool, ToolContext, ToolResult, object_schema, param

_ITEM_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "Short unique id, e.g. '1' or 'tests'."},
        "content": {"type": "string", "description": "What the task is."},
        "status": {"type": "string", "enum": list(STATUSES)},
    },
    "required": ["id", "content", "status"],
}


class TodoTool(Tool):
    name = "todo"
    description = (
        "Keep a task list for multi-step work. Call with no arguments to read the list. Pass todos "
        "to replace the whole list, or todos with merge=true to update items by id (only the fields "
        "given change) and append new ones. Statuses: pending, in_progress, completed, cancelled; "
        "keep one item in_progress at a time. Returns the list and a summary of counts."
    )
    parameters = object_schema(
        todos=param("array", "The task items.", items=_ITEM_SCHEMA),
        merge=param("boolean", "Update by id and append instead of replacing. Default false."),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        todos = args.get("todos")
        if todos is not None:
            try:
                ctx.todo.write(todos, merge=bool(args.get("merge", False)))
            except TodoError as exc:
                return ToolResult(f"Error: {exc}. The task list was not changed.", is_error=True)
        return ToolResult(json.dumps(ctx.todo.snapshot(), ensure_ascii=False))
