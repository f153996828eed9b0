"""The tool registry: the tools one agent offers and the one entry point the loop calls.

Owns: `ToolRegistry` — registration in order (and removal: an MCP server's tools leave with it), which
tools are switched off (`/tools disable`: their schemas are not sent and a call to one is refused),
the schemas sent to the model, whether a call may change
files (`may_change_files`, asked by the checkpoint hook), and `dispatch`, which
parses and checks a call's arguments and runs the tool, turning every failure into an error result
(it never raises except `asyncio.CancelledError`, so Ctrl-C still interrupts a running tool).
What a tool is lives in `base`; which tools an agent gets by default lives in `defaults`.
"""

from __future__ import annotations

from typing import Any

from hermes_tui.core.tools.base import (
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolResult,
    parse_arguments,
)


class ToolRegistry:
    """The tools one agent offers, in registration order."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._off: set[str] = set()

    def register(self, tool: Tool) -> None:
        """Add a tool; a second tool with the same name replaces the first."""
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        """Remove a tool (nothing happens for an unknown name); whether it was off is remembered."""
        self._tools.pop(name, None)

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[Tool]:
        """Every registered tool, in registration order (switched-off ones included)."""
        return list(self._tools.values())

    def is_enabled(self, name: str) -> bool:
        return name not in self._off

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Switch a tool on or off for this agent (`/tools enable|disable`); also for one not registered yet."""
        if enabled:
            self._off.discard(name)
        else:
            self._off.add(name)

    def schemas(self) -> list[dict[str, Any]]:
        """The schemas sent to the model: every tool that is on."""
        return [tool.schema() for name, tool in self._tools.items() if name not in self._off]

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def may_change_files(self, name: str, arguments: str) -> bool:
        """Whether running this call may change files (`Tool.mutates_files`, narrowed by the tool for these
        arguments). A call that will not run — an unknown tool, arguments that do not parse — changes nothing."""
        tool = self._tools.get(name)
        if tool is None or not tool.mutates_files:
            return False
        try:
            args = tool.checked_arguments(parse_arguments(arguments))
        except ToolArgumentError:
            return False
        return tool.may_change_files(args)

    async def dispatch(self, name: str, arguments: str, ctx: ToolContext) -> ToolResult:
        """Run one tool call; every failure becomes an error result the model can read.

        Only `asyncio.CancelledError` (and other BaseExceptions such as KeyboardInterrupt)
        propagates, so an interrupt stops the turn instead of being reported to the model.
        """
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(n for n in self._tools if n not in self._off) or "(none)"
            return ToolResult(f"Tool '{name}' does not exist. Available tools: {available}", is_error=True)
        if name in self._off:
            return ToolResult(f"Tool '{name}' is switched off by the user; do not call it.", is_error=True)
        try:
            raw_args = parse_arguments(arguments)
        except ToolArgumentError as exc:
            return ToolResult(str(exc), is_error=True)
        try:
            args = tool.checked_arguments(raw_args)
        except ToolArgumentError as exc:
            return ToolResult(f"Error: invalid arguments for {name}: {exc}", is_error=True)
        try:
            result = await tool.run(args, ctx)
        except Exception as exc:
            detail = str(exc) or "no details"
            return ToolResult(f"Error executing tool: {type(exc).__name__}: {detail}", is_error=True)
        if not isinstance(result, ToolResult):
            return ToolResult(
                f"Error executing tool: {name} returned {type(result).__name__}, not a result",
                is_error=True,
            )
        return result
