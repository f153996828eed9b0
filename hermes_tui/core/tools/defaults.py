"""The built-in tool set: which tools a fresh agent offers, and in what order.

Owns `default_registry()`. session_search is not here: it needs the agent's state.db, so the
bootstrap adds it next to the database it reads.
"""

from __future__ import annotations

from hermes_tui.core.tools.file_patch import PatchTool
from hermes_tui.core.tools.files import ReadFileTool, SearchFilesTool, WriteFileTool
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.tools.terminal import TerminalTool
from hermes_tui.core.tools.todo import TodoTool


def default_registry() -> ToolRegistry:
    """read_file, write_file, patch, search_files, terminal and todo (session_search is added by the agent)."""
    registry = ToolRegistry()
    for tool in (ReadFileTool(), WriteFileTool(), PatchTool(), SearchFilesTool(), TerminalTool(), TodoTool()):
        registry.register(tool)
    return registry
