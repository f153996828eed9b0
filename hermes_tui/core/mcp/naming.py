"""How an MCP server's tool is named to the model, as Hermes names it: `mcp__<server>__<tool>`.

Each part has every character outside `[A-Za-z0-9_]` replaced with `_` (so `my-server` and
`read.file` become `my_server` and `read_file`), and the double underscore keeps the boundary
between server and tool readable even when either holds underscores. Providers accept at most
`MAX_NAME` characters in a tool name; a longer one is not offered (`too_long`).
Pure; imports nothing of hermes-tui or the SDK.
"""

from __future__ import annotations

import re

PREFIX = "mcp__"
DELIMITER = "__"
MAX_NAME = 64  # OpenAI's limit for function names; Anthropic's is the same
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def name_part(value: str) -> str:
    """A server or tool name made safe for a tool name."""
    return _UNSAFE.sub("_", value)


def tool_name(server: str, tool: str) -> str:
    """The name the model calls: `mcp__<server>__<tool>`, both parts made safe."""
    return f"{PREFIX}{name_part(server)}{DELIMITER}{name_part(tool)}"


def too_long(name: str) -> bool:
    return len(name) > MAX_NAME
