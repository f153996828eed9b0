"""An MCP server whose `wait` tool takes as long as it is told to (for the call timeout)."""

from __future__ import annotations

import anyio
from _common import run
from mcp.server.mcpserver import MCPServer

server = MCPServer("slow")


@server.tool()
async def wait(seconds: float) -> str:
    """Wait this many seconds, then say so."""
    await anyio.sleep(seconds)
    return f"waited {seconds:g} s"


if __name__ == "__main__":
    run(server)
