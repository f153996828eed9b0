"""An MCP server's tool as one of our `Tool`s: Hermes's name, the server's schema, asked like the shell.

`McpTool` is registered under `mcp__<server>__<tool>` (`naming`). Its description and input
schema are the server's, passed through (made valid Unicode; a schema that is not an object
gets an empty object's, as every provider requires), and so are its arguments: the server
checks them, we only insist on the required ones being there.

Before a call runs the permission mode decides, as for a shell command (`core.tools.permissions`):
yolo runs it; read-only (plan) mode refuses a tool the server does not mark read-only
(`readOnlyHint`); otherwise a server marked `trusted` runs it, and anything else asks the user
(no one to ask, as in a headless run without a terminal: denied). "Allow for the rest of the
session" covers that tool with any arguments. The answer is turned into a tool result by
`results` (untrusted, wrapped); a server that cannot be reached is a tool error, never an
exception, so the turn goes on.
"""

from __future__ import annotations

import json
from typing import Any

from hermes_tui.core.mcp.client import McpCallError, McpConnection
from hermes_tui.core.mcp.results import clean_text, error_result, tool_result
from hermes_tui.core.tools.base import ApprovalRequest, Tool, ToolArgumentError, ToolContext, ToolResult
from hermes_tui.core.tools.permissions import ApprovalAnswer, PermissionMode
from hermes_tui.text_safety import valid_unicode_in

DENIED_BY_USER = "MCP tool call denied by the user"
DENIED_NO_APPROVER = (
    "MCP tool call denied: no approval available (use --yes, or set trusted = true for the server in the config)"
)


def input_schema(raw: Any) -> dict[str, Any]:
    """The server's input schema as sent to the model: its own, with an object's `type` and `properties`."""
    schema = valid_unicode_in(raw) if isinstance(raw, dict) else {}
    if schema.get("type") is None:
        schema = {**schema, "type": "object"}
    if schema.get("type") == "object" and not isinstance(schema.get("properties"), dict):
        schema = {**schema, "properties": {}}
    return schema


def read_only_refusal(name: str) -> str:
    return (
        f"Error: the user has put the agent in read-only (plan) mode, so {name} did not run: its MCP server "
        "does not mark it read-only. Keep reading and searching, then propose what to do and let the user "
        "switch the mode with /mode."
    )


class McpTool(Tool):
    """One tool of one MCP server, called through that server's connection."""

    def __init__(self, connection: McpConnection, listed: Any, name: str) -> None:
        self.connection = connection
        self.server_tool = str(listed.name)
        self.name = name
        server = connection.name
        self.description = clean_text(str(listed.description or f"MCP tool {self.server_tool} from {server}"))
        self.parameters = input_schema(getattr(listed, "input_schema", None))
        self.source = f"mcp:{server}"
        annotations = getattr(listed, "annotations", None)
        self.read_only = bool(getattr(annotations, "read_only_hint", False))
        self.mutates_files = not self.read_only  # a checkpoint is taken before a tool that may write

    @property
    def trusted(self) -> bool:
        return self.connection.config.trusted

    def checked_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """The model's arguments as they are (the server checks them), once the required ones are there."""
        required = self.parameters.get("required")
        missing = [name for name in required if name not in args] if isinstance(required, list) else []
        if missing:
            names = ", ".join(f"'{name}'" for name in missing)
            raise ToolArgumentError(f"missing required parameter{'s' if len(missing) > 1 else ''} {names}")
        return dict(args)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        denial = await self._denial(args, ctx)
        if denial is not None:
            return ToolResult(denial, is_error=True)
        try:
            result = await self.connection.call(self.server_tool, args)
        except McpCallError as exc:
            return error_result(self.name, str(exc))
        return tool_result(result, self.name)

    async def _denial(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        """None when the call may go ahead, else why not (the permission mode first, then the user)."""
        rules = ctx.rules
        if rules.mode is PermissionMode.YOLO:
            return None
        if rules.mode is PermissionMode.READ_ONLY and not self.read_only:
            return read_only_refusal(self.name)
        if self.trusted:
            return None
        shown = json.dumps(args, ensure_ascii=False, indent=2) if args else "(no arguments)"
        request = ApprovalRequest(
            tool=self.name,
            command=f"{self.connection.name} › {self.server_tool}\n{shown}",
            cwd=str(ctx.cwd),
            reasons=(f"a tool of MCP server '{self.connection.name}', which is not marked trusted",),
            session_scope=f"every call of {self.name}",
        )
        answer = await rules.ask(ctx.approve, request, f"mcp:{self.name}")
        if answer is None:
            return DENIED_NO_APPROVER
        return DENIED_BY_USER if answer is ApprovalAnswer.DENY else None
