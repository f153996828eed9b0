"""The slash commands: one registry (`registry`), what a command hands back (`result`: `CommandResult`
and the typed screen intents), and the handlers (`session`, `power`, `browse`, `modes`,
`rollback`, `context`, `display`, `info`, `background`; `extensions`: the commands of installed
skills and the user's quick commands, added to the registry at start-up; `tool_commands`: /tools and
/reload-mcp). A plugin's commands join through `register_plugin_commands`.

The rest of the code imports the public names from here; modules inside the package import each
other directly (never this `__init__`), so the package has no import cycle.
"""

from hermes_tui.core.commands.power import export_session
from hermes_tui.core.commands.registry import (
    COMMANDS,
    Command,
    CommandSource,
    all_commands,
    command_for,
    help_text,
    is_command,
    register_dynamic,
    register_plugin_commands,
    run_command,
    runs_while_busy,
    shadowed_commands,
)
from hermes_tui.core.commands.result import (
    CommandResult,
    Confirmation,
    CopyText,
    Intent,
    OpenCompare,
    OpenContext,
    OpenInspector,
    OpenLearning,
    OpenSearch,
    ShowHelp,
)

__all__ = [
    "COMMANDS",
    "Command",
    "CommandResult",
    "CommandSource",
    "Confirmation",
    "CopyText",
    "Intent",
    "OpenCompare",
    "OpenContext",
    "OpenInspector",
    "OpenLearning",
    "OpenSearch",
    "ShowHelp",
    "all_commands",
    "command_for",
    "export_session",
    "help_text",
    "is_command",
    "register_dynamic",
    "register_plugin_commands",
    "run_command",
    "runs_while_busy",
    "shadowed_commands",
]
