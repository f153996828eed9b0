"""Handlers of /tools and /reload-mcp: the agent's tools by source, switching them, reconnecting MCP servers.

`/tools` (or `/tools list`) lists every tool under its source — built-in, `mcp:<server>` (with
the server's state, or why it is down), `plugin:<name>`, `memory:<provider>` — each marked on or
off. `/tools disable NAME…` / `/tools enable NAME…` switch tools for this session, as Hermes's
/tools does (Hermes also saves the change to its config; here it lasts until hermes-tui exits):
a switched-off tool is no longer offered to the model from the next turn on, and a call to it is
refused. A name is the tool's (`mcp__docs__search`) or, for an MCP tool, Hermes's `server:tool`
form (`docs:search`). `/reload-mcp` reads `mcp_servers` from the config again, stops every server
and starts them, waits for them, and says how each came up.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from hermes_tui.core.commands.result import CommandResult
from hermes_tui.core.mcp.naming import tool_name

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

USAGE = "Usage: /tools [list] | /tools disable NAME… | /tools enable NAME… (NAME: a tool, or server:tool)"


def tools_text(agent: Agent) -> str:
    """Every tool by source with on/off, MCP servers with their state (also those without tools)."""
    registry = agent.registry
    by_source: dict[str, list[str]] = defaultdict(list)
    for tool in registry.tools():
        by_source[tool.source].append(tool.name)
    servers = {row.name: row for row in agent.mcp.status()}
    sources = [source for source in by_source if not source.startswith("mcp:")]
    sources += [f"mcp:{name}" for name in servers]
    lines = ["Tools by source (on = offered to the model; /tools disable NAME, /tools enable NAME):"]
    for source in dict.fromkeys(sources):
        heading = source
        server = servers.get(source.removeprefix("mcp:")) if source.startswith("mcp:") else None
        if server is not None:
            trust = ", trusted" if server.trusted else ""
            why = f" — {server.error}" if server.error and server.state != "connected" else ""
            heading = f"{source} ({server.transport}, {server.state}{trust}){why}"
        lines.append(heading)
        names = by_source.get(source, [])
        if not names:
            lines.append("  (no tools)")
        for name in names:
            lines.append(f"  {'on ' if registry.is_enabled(name) else 'off'}  {name}")
    return "\n".join(lines)


def resolve_name(agent: Agent, name: str) -> str | None:
    """The registered tool a user's NAME means: the name itself, or `server:tool` of an MCP server."""
    if name in agent.registry:
        return name
    server, sep, tool = name.partition(":")
    if sep and server and tool:
        candidate = tool_name(server, tool)
        if candidate in agent.registry:
            return candidate
    return None


async def tools(agent: Agent, args: str) -> CommandResult:
    words = args.split()
    if not words or words == ["list"]:
        return CommandResult(tools_text(agent))
    action, names = words[0].lower(), words[1:]
    if action not in ("disable", "enable") or not names:
        return CommandResult(USAGE, error=True)
    resolved: list[str] = []
    for name in names:
        found = resolve_name(agent, name)
        if found is None:
            return CommandResult(f"No tool named '{name}' — /tools lists them.", error=True)
        resolved.append(found)
    enable = action == "enable"
    for name in resolved:
        agent.registry.set_enabled(name, enable)
    agent.refresh_tools()
    state = "on" if enable else "off"
    return CommandResult(f"Switched {state}: {', '.join(resolved)} (from the next turn, for this session).")


async def reload_mcp(agent: Agent, args: str) -> CommandResult:
    if args.strip():
        return CommandResult("/reload-mcp takes no argument: it restarts every MCP server.", error=True)
    return CommandResult(await agent.reload_mcp())
