"""A well-behaved MCP server with two tools: `echo` (a string back) and `add` (two integers)."""

from __future__ import annotations

from _common import run
from mcp.server.mcpserver import MCPServer

server = MCPServer("basic")


@server.tool()
def echo(text: str) -> str:
    """Send the text back unchanged."""
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> str:
    """Add two whole numbers."""
    return f"{a} + {b} = {a + b}"


if __name__ == "__main__":
    run(server)
