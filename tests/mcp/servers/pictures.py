"""An MCP server returning an image (with a caption), an embedded text resource and a tool error."""

from __future__ import annotations

import base64

from _common import run
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import EmbeddedResource, TextResourceContents

# a 1x1 red PNG
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

server = MCPServer("pictures")


@server.tool()
def snapshot() -> list:
    """A picture of the screen, with a caption."""
    return ["A red dot.", Image(data=PIXEL, format="png")]


@server.tool()
def manual() -> EmbeddedResource:
    """The manual page, as an embedded resource."""
    return EmbeddedResource(
        type="resource",
        resource=TextResourceContents(uri="docs://manual", mime_type="text/plain", text="Turn it off and on again."),
    )


@server.tool()
def broken() -> str:
    """Always fails."""
    raise ToolError("the printer is on fire")


if __name__ == "__main__":
    run(server)
