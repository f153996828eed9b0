"""An MCP server that dies in the middle of a `crash` call; `echo` works while it lives."""

from __future__ import annotations

import os

from _common import run
from mcp.server.mcpserver import MCPServer

server = MCPServer("crashy")


@server.tool()
def echo(text: str) -> str:
    """Send the text back, with this process's id."""
    return f"echo: {text} (pid {os.getpid()})"


@server.tool()
def crash() -> str:
    """Exit the process at once, without answering."""
    os._exit(3)


if __name__ == "__main__":
    run(server)
