"""The `memory` tool: the model's way to change MEMORY.md and USER.md (Hermes's tool, same contract).

Actions `add`, `replace` and `remove` on target `memory` (the agent's own notes) or `user` (the user
profile), one per call or several at once in `operations` (applied all or nothing, the limit checked
on the result, as today's Hermes does). The rules — separators, limits, duplicate and ambiguity
handling, screening, the lock and drift backups — live in `hermes_tui.core.memory.store`; this
module is the schema and the call. The result is Hermes's JSON (`{success, target, entries, usage,
entry_count, message}`, or `{success: false, error, …}`), serialised like Hermes does (UTF-8 text,
not escaped). A change reaches the files at once but the system prompt only with the next session
or compression.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hermes_tui.core.memory.store import MemoryStore
from hermes_tui.core.tools.base import Tool, ToolContext, ToolResult, object_schema, param

MEMORY_TOOL_NAME = "memory"


def memory_result_text(response: dict[str, Any]) -> str:
    return json.dumps(response, ensure_ascii=False)


class MemoryTool(Tool):
    name = MEMORY_TOOL_NAME
    description = (
        "Save durable notes that should still be known in future sessions. target 'user' is the user "
        "profile (who they are, how they like to work); target 'memory' is your own notes (environment "
        "facts, project conventions, lessons learned). add appends an entry; replace and remove pick an "
        "entry by old_text, a short piece of it that matches only that entry. Make several changes in ONE "
        "call with 'operations' (a list of {action, content?, old_text?}): they apply together or not at "
        "all, and the size limit is checked on the result, so a full file can drop stale entries and take "
        "a new one in the same call; use action/content/old_text alone for a single change. Keep entries "
        "short and factual; never store secrets or instructions. Changes show in the system prompt from "
        "the next session on."
    )
    parameters = object_schema(
        ["target"],
        action=param(
            "string", "What to do (one change; omit when using 'operations').", enum=["add", "replace", "remove"]
        ),
        target=param("string", "'memory' for your notes, 'user' for the user profile.", enum=["memory", "user"]),
        content=param("string", "The entry text (add, replace)."),
        old_text=param("string", "A short unique piece of the entry to change (replace, remove)."),
        operations={
            "type": "array",
            "description": "Several changes to this target, applied all or nothing, the limit checked on the result.",
            "items": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["add", "replace", "remove"]},
                    "content": {"type": "string", "description": "Entry text for add and replace."},
                    "old_text": {"type": "string", "description": "A unique piece of the entry (replace, remove)."},
                },
                "required": ["action"],
            },
        },
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        store = ctx.services.get("memory")
        if not isinstance(store, MemoryStore):
            return ToolResult(memory_result_text({"success": False, "error": "Memory is not available."}), True)
        target = str(args.get("target") or "memory")  # a null target is the default store, as in Hermes
        operations = args.get("operations")
        if operations:
            response = await asyncio.to_thread(store.apply_batch, target, operations)
        else:
            response = await asyncio.to_thread(
                store.apply,
                str(args.get("action", "")),
                target,
                str(args.get("content") or ""),
                str(args.get("old_text") or ""),
            )
        return ToolResult(memory_result_text(response), is_error=not response.get("success"))
