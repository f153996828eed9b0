"""The slash commands that are not built in: one per installed skill, and the user's quick commands.

`install_extension_commands(agent)` (called when an agent opens, `core.bootstrap.open_agent`)
registers two sources with the registry (`register_dynamic`), quick commands first so that one
may take a skill's name, as in Hermes:

- "quick": `[quick_commands.NAME]` of config.toml (`hermes_tui.config_quick`). An "exec" command
  runs its shell command through the terminal tool — the same approval, permission mode and
  scrubbed environment as the agent's own commands, 30 seconds at most — and shows the output; no
  model is called. An "alias" runs another slash command with the arguments appended. A "prompt"
  sends its template as your message.
- "skills": `SkillCommands`, one `/skill-name [instruction]` per skill of the home's skills
  folder (the name as Hermes makes it, `core.skills.invocation.command_name`; a skill whose
  platforms exclude this OS has none). It is re-read whenever a SKILL.md appears, changes or goes
  (a cheap look at the folders and the SKILL.md files' sizes and times each time the registry is
  read), so a skill the agent just wrote is a command at once. Running it sends a turn whose user
  message carries the skill as Hermes builds it (`invocation_message`).

A command whose name a built-in has is left out (the built-in wins); the Review log says so once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.config_quick import QuickCommand
from hermes_tui.core.commands.registry import Command, command_for, register_dynamic, shadowed_commands
from hermes_tui.core.commands.result import CommandResult
from hermes_tui.core.skills.catalog import available_here, scan_skills, short_description, skill_folders
from hermes_tui.core.skills.invocation import command_name, invocation_message

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

QUICK_SOURCE = "quick"
SKILLS_SOURCE = "skills"
QUICK_EXEC_TIMEOUT = 30.0  # seconds, as Hermes gives its exec quick commands
ARGS_PLACEHOLDER = "{args}"


# --------------------------------------------------------------------------- skills


class SkillCommands:
    """The commands of the skills under `root`, rebuilt when the SKILL.md files change."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seen: tuple[tuple[str, int, int], ...] | None = None
        self._commands: tuple[Command, ...] = ()

    def _signature(self) -> tuple[tuple[str, int, int], ...]:
        found = []
        for folder, _category in skill_folders(self.root):
            try:
                info = os.stat(folder / "SKILL.md")
            except OSError:
                continue
            found.append((str(folder), info.st_mtime_ns, info.st_size))
        return tuple(found)

    def __call__(self) -> tuple[Command, ...]:
        signature = self._signature()
        if signature != self._seen:
            self._commands = self._build()
            self._seen = signature
        return self._commands

    def _build(self) -> tuple[Command, ...]:
        skills, _problems = scan_skills(self.root)  # a malformed SKILL.md is the system prompt's warning
        commands: list[Command] = []
        taken: set[str] = set()
        for skill in skills:
            name = command_name(skill.name)
            if not name or name in taken or not available_here(skill):
                continue
            taken.add(name)
            about = short_description(skill.description) or f"the {skill.name} skill"
            handler = partial(run_skill, skill.dir_name)
            commands.append(Command(name, f"/{name} [instruction]", f"(skill) {about}", handler, kind="skill"))
        return tuple(commands)


async def run_skill(dir_name: str, agent: Agent, args: str) -> CommandResult:
    """Load the skill in folder `dir_name` into a turn, with what was typed after its name."""
    view = agent.skills.view(dir_name)
    if not view.get("success"):
        return CommandResult(f"The skill behind this command is gone: {view.get('error', dir_name)}", error=True)
    message = invocation_message(
        name=str(view["name"]),
        skill_md=str(view["content"]),
        folder=agent.skills.root / str(view["path"]),
        view_name=dir_name,
        files=view.get("files") or {},
        instruction=args,
    )
    return CommandResult(f"⚡ Loading skill: {view['name']}", send=message)


# --------------------------------------------------------------------------- quick commands


async def _alias_placeholder(agent: Agent, args: str) -> CommandResult:  # the registry follows `rewrite` instead
    return CommandResult("an alias runs the command it stands for", error=True)


def _rewriter(target: str) -> partial[str]:
    return partial(_with_arguments, target)


def _with_arguments(target: str, args: str) -> str:
    return f"{target} {args}".strip()


def quick_commands(entries: Mapping[str, QuickCommand]) -> tuple[Command, ...]:
    """The registry entries of the configured quick commands."""
    commands: list[Command] = []
    for entry in entries.values():
        name = entry.name
        if entry.type == "exec":
            about = entry.description or f"run `{_shortened(entry.text)}`"
            commands.append(Command(name, f"/{name}", about, partial(run_exec, entry.text), kind="quick"))
        elif entry.type == "alias":
            target = entry.text.strip() if entry.text.strip().startswith("/") else f"/{entry.text.strip()}"
            about = entry.description or f"same as {target}"
            commands.append(
                Command(name, f"/{name} [args]", about, _alias_placeholder, kind="quick", rewrite=_rewriter(target))
            )
        else:
            about = entry.description or f"send: {_shortened(entry.text)}"
            commands.append(Command(name, f"/{name} [args]", about, partial(run_prompt, entry.text), kind="quick"))
    return tuple(commands)


def _shortened(text: str, limit: int = 48) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def filled_prompt(template: str, args: str) -> str:
    """The template with `{args}` replaced by `args` (or `args` after a blank line when it has no `{args}`)."""
    args = args.strip()
    if ARGS_PLACEHOLDER in template:
        return template.replace(ARGS_PLACEHOLDER, args)
    return f"{template}\n\n{args}" if args else template


async def run_prompt(template: str, agent: Agent, args: str) -> CommandResult:
    return CommandResult(send=filled_prompt(template, args))


async def run_exec(command: str, agent: Agent, args: str) -> CommandResult:
    """Run the shell command as the terminal tool runs the agent's (asked first unless the mode allows it)."""
    from hermes_tui.core.tools.base import ToolContext
    from hermes_tui.core.tools.terminal import TerminalTool

    if args.strip():
        return CommandResult("This quick command takes no arguments: it always runs the same command.", error=True)
    context = ToolContext(
        cwd=agent.cwd,
        settings=agent.settings.tools,
        approve=agent.approver,
        todo=agent.session.todo,
        session_id=agent.session_id,
        home=agent.home.root,
        permissions=agent.permissions,
    )
    result = await TerminalTool().run({"command": command, "timeout": QUICK_EXEC_TIMEOUT}, context)
    try:
        outcome = json.loads(result.content)
    except ValueError:  # refused before it ran (denied, read-only mode, no shell)
        return CommandResult(result.content.removeprefix("Error: "), error=True)
    output = str(outcome.get("output") or "").strip() or "Command returned no output."
    if outcome.get("timed_out"):
        return CommandResult(f"{output}\nQuick command timed out ({QUICK_EXEC_TIMEOUT:g} s).", error=True)
    code = outcome.get("exit_code", 0)
    if code:
        return CommandResult(f"{output}\n(exit status {code})", error=True)
    return CommandResult(output)


# --------------------------------------------------------------------------- installing


def install_extension_commands(agent: Agent) -> None:
    """Register the agent's quick commands and skill commands; say in the Review log which lost their name."""
    register_dynamic(QUICK_SOURCE, quick_commands(agent.settings.quick_commands))
    register_dynamic(SKILLS_SOURCE, SkillCommands(agent.skills.root))
    for command in shadowed_commands():
        owner = command_for(f"/{command.name}")
        by = f"the built-in /{command.name}" if owner is not None and owner.kind == "built-in" else "another command"
        how = "rename it in config.toml" if command.kind == "quick" else "the agent can still load it with skill_view"
        agent.events.review(
            "info",
            f"The {command.kind} command /{command.name} is left out: {by} has that name ({how}).",
            once_key=f"shadowed-command:{command.kind}:{command.name}",
        )
