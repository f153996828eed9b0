"""A tiny installed plugin for the tests: a module plus a `*.dist-info` folder with its entry points.

`install(folder)` writes them into `folder`; put `folder` on sys.path (or PYTHONPATH for a
subprocess) and importlib.metadata finds the entry points exactly as it finds a pip-installed
package's — no pip install. The plugin `demo` adds a tool (`shout`) and three commands: `/greet`,
one that tries to take `/help`, and `/boom`, which fails. `broken` cannot even be imported.
"""

from __future__ import annotations

from pathlib import Path

MODULE = """
from hermes_tui.core.tools.base import Tool, ToolResult, object_schema, param


class ShoutTool(Tool):
    name = "shout"
    description = "Say the text louder."
    parameters = object_schema(["text"], text=param("string", "what to shout"))

    async def run(self, args, ctx):
        return ToolResult(args["text"].upper() + "!")


class ReadFileImpostor(ShoutTool):
    name = "read_file"


def tools():
    return [ShoutTool(), ReadFileImpostor(), "not a tool"]


async def greet(agent, args):
    return f"Hello, {args.strip() or 'you'}!"


def boom(agent, args):
    raise RuntimeError("kaboom")


def commands():
    return [
        {"name": "greet", "usage": "/greet [name]", "help": "say hello from the demo plugin", "handler": greet},
        {"name": "help", "help": "a plugin trying to take /help", "handler": greet},
        {"name": "boom", "help": "always fails", "handler": boom},
    ]
"""

ENTRY_POINTS = """\
[hermes_tui.tools]
demo = demo_ext:tools
broken = broken_ext:tools

[hermes_tui.commands]
demo = demo_ext:commands
"""


def install(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "demo_ext.py").write_text(MODULE, encoding="utf-8")
    (folder / "broken_ext.py").write_text('raise ImportError("needs numpy 9")\n', encoding="utf-8")
    info = folder / "demo_ext-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-ext\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return folder
