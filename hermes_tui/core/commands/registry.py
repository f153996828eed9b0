"""The one slash-command registry shared by the TUI and the headless CLI, and its dispatcher.

`COMMANDS` is the list of built-in slash commands; `register_dynamic(source, commands)` adds the
ones a plugin contributes (or any other source known only at start-up), replacing what that
source added before. `all_commands()` is the one list: the core dispatches from it and the TUI's
completion, F1 help and command palette all read it (`registry_version()` tells them it changed),
so what the UI advertises always dispatches. A name or alias already taken keeps its owner — a
built-in always wins — and the clash is one line in the list `register_dynamic` returns.
`run_command(agent, "/resume 2")` returns a `CommandResult` telling the front-end what to show,
whether to send a user turn (/retry), what to put back in the input (/undo), or to quit.
Anything the TUI can do with a command, a script can do with `hermes-tui run "/…"`.
`interactive=True` (the TUI) makes /compress ask first: the result carries a `Confirmation` with
the preview. Commands flagged `while_busy` (`runs_while_busy`) are the ones a front-end may run
while a turn is running: /steer, /queue, /stop, /status and the other read-only or steering ones.
A command that opens a screen (/search, /compare, /inspect, /memory, /skills, /help, /context,
/copy) returns only its intent (`core.commands.result`); the headless front-end prints the text
of it. The handlers live in `session`, `power`, `browse`, `modes`, `rollback`, `context`
(/context /pin /unpin), `display` (/copy /reasoning /verbose /personality), `info` (/version
/config /debug), `editor` (/edit), `background` (/background /reload-skills), `extensions` (skills and quick
commands) and `tool_commands` (/tools, /reload-mcp) beside this module.

Commands that are not built in — one per installed skill, the user's `[quick_commands]`, a
plugin's — join through the one extension point, `register_dynamic(source, commands)`: a list, or
a callable the registry asks each time it is read (so a source can follow files that change).
`all_commands()` is the built-ins and then each source in the order it was first registered; a
name already taken (a built-in's, or an earlier source's) stays with its first owner, and
`shadowed_commands()` lists the ones left out (the help says so). A command whose `rewrite` is
set is an alias: it runs the slash command `rewrite(args)` returns (at most `MAX_REWRITES` hops).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from hermes_tui.core.commands import (
    background,
    browse,
    context,
    display,
    editor,
    info,
    modes,
    power,
    rollback,
    session,
    tool_commands,
)
from hermes_tui.core.commands.result import CommandResult, ShowHelp
from hermes_tui.core.session.live import SessionError

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent


Handler = Callable[["Agent", str], Awaitable[CommandResult]]


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    help: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    while_busy: bool = False  # the TUI runs it at once even while a turn runs (it never waits for the turn)
    kind: str = "built-in"  # or where a registered command comes from: "skill", "quick", "plugin" …
    rewrite: Callable[[str], str] | None = None  # an alias: the "/command args" to run instead


async def _help(agent: Agent, args: str) -> CommandResult:
    return CommandResult(intent=ShowHelp())


async def _quit(agent: Agent, args: str) -> CommandResult:
    return CommandResult("Bye.", quit=True)


COMMANDS: tuple[Command, ...] = (
    Command("new", "/new [title]", "start a fresh session (the old one ends)", session.new, ("reset",)),
    Command(
        "resume", "/resume [N|id|tail|title]", "switch to an earlier session (id, shown tail, title)", session.resume
    ),
    Command(
        "branch",
        "/branch [name|at N|edit N]",
        "copy this conversation into a new branch",
        session.branch,
        ("fork",),
    ),
    Command("title", "/title [name]", "show or set this session's title", session.title),
    Command("sessions", "/sessions", "list recent sessions", session.sessions),
    Command("history", "/history", "show this session's turns", session.history),
    Command("undo", "/undo [N]", "remove the last N turns (text returns to the input)", session.undo),
    Command("retry", "/retry", "re-send the last message", session.retry),
    Command("compress", "/compress [focus|here [N]|preview]", "summarise earlier turns now", session.compress),
    Command("search", "/search [words]", "search every session's messages (role: since: filters)", browse.search),
    Command("compare", "/compare [a [b]]", "compare two sessions turn by turn (default: the parent)", browse.compare),
    Command("inspect", "/inspect [session]", "what a compression summarised", browse.inspect),
    Command("memory", "/memory", "what the agent remembers (MEMORY.md, USER.md)", session.memory),
    Command("skills", "/skills", "the skills the agent has saved", session.skills),
    Command("usage", "/usage", "token usage and context size", session.usage, while_busy=True),
    Command("status", "/status", "session, model, context, queue and goal at a glance", power.status, while_busy=True),
    Command(
        "steer", "/steer TEXT", "guide the running agent: read after its next tool call", power.steer, while_busy=True
    ),
    Command("queue", "/queue [TEXT|clear|drop N|edit N]", "send TEXT when the turn ends", power.queue, while_busy=True),
    Command("stop", "/stop", "stop the running turn after the current tool call", power.stop, while_busy=True),
    Command("model", "/model [name]", "show or switch the model", power.model),
    Command("mode", "/mode [MODE]", "permission mode: ask, accept-edits, read-only, yolo", modes.mode, while_busy=True),
    Command("yolo", "/yolo", "turn yolo mode on or off (nothing asks)", modes.yolo, while_busy=True),
    Command(
        "goal",
        "/goal [TEXT|pause|resume|clear]",
        "work toward a standing goal",
        power.goal,
        while_busy=True,
    ),
    Command(
        "rollback",
        "/rollback [N|diff N]",
        "list file checkpoints; restore one (undoable) or diff it",
        rollback.rollback,
    ),
    Command(
        "context",
        "/context [N]",
        "what fills the window, by category and by message",
        context.context,
        while_busy=True,
    ),
    Command("pin", "/pin [#N[.M]]", "keep a message verbatim through the next compression", context.pin),
    Command("unpin", "/unpin #N[.M]", "let the next compression summarise a pinned message", context.unpin),
    Command("copy", "/copy [N]", "copy the last (or N-th last) answer", display.copy, while_busy=True),
    Command("reasoning", "/reasoning [LEVEL|show|hide]", "reasoning effort, or show/hide reasoning", display.reasoning),
    Command("personality", "/personality [name]", "list or set a personality (none clears it)", display.personality),
    Command("verbose", "/verbose", "cycle tool progress: off, new, all, verbose", display.verbose, while_busy=True),
    Command(
        "background",
        "/background TEXT",
        "one turn in a side session, reported in the Review log",
        background.background,
        ("bg", "btw"),
        while_busy=True,
    ),
    Command("reload-skills", "/reload-skills", "re-scan the skills folder", background.reload_skills),
    Command(
        "config", "/config [prefix]", "the settings in effect and where each came from", info.config, while_busy=True
    ),
    Command("version", "/version", "versions of hermes-tui, Python and libraries", info.version, while_busy=True),
    Command("debug", "/debug", "a local debug report: versions, paths, model, settings", info.debug, while_busy=True),
    Command("save", "/save [FILE]", "export this session to .json, .md or .jsonl (0600)", power.save),
    Command("insights", "/insights [days]", "usage over time from state.db", power.insights, while_busy=True),
    Command("clear", "/clear", "clear the conversation pane (the session stays)", power.clear, while_busy=True),
    Command(
        "tools", "/tools [disable|enable NAME…]", "every tool by source, on or off; switch tools", tool_commands.tools
    ),
    Command("reload-mcp", "/reload-mcp", "reconnect the MCP servers from the config", tool_commands.reload_mcp),
    Command("edit", "/edit", "write the prompt in $VISUAL / $EDITOR (Ctrl+E)", editor.edit, while_busy=True),
    Command("help", "/help", "commands and keys", _help, while_busy=True),
    Command("quit", "/quit", "leave hermes-tui", _quit, ("exit",)),
)

_BY_NAME = {alias: cmd for cmd in COMMANDS for alias in (cmd.name, *cmd.aliases)}
MAX_REWRITES = 8  # alias hops before a loop is reported
_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")  # what a plugin may name a command

CommandSource = Callable[[], Sequence[Command]]
_SOURCES: dict[str, CommandSource] = {}


def register_dynamic(source: str, commands: Sequence[Command] | CommandSource) -> None:
    """Add the commands of `source` (or replace them: the same source registered again)."""
    if callable(commands):
        _SOURCES[source] = commands
    else:
        fixed = tuple(commands)
        _SOURCES[source] = lambda: fixed


def reset_dynamic() -> None:
    """Drop every registered source: only the built-ins are left (a test's clean slate)."""
    _SOURCES.clear()


def _dynamic() -> tuple[tuple[Command, ...], tuple[Command, ...]]:
    """(the registered commands in effect, those hidden because their name was taken first)."""
    taken = set(_BY_NAME)
    kept: list[Command] = []
    hidden: list[Command] = []
    for provide in list(_SOURCES.values()):
        try:
            provided = tuple(provide())
        except Exception:  # a broken source loses its commands, never the registry
            continue
        for command in provided:
            spellings = {command.name, *command.aliases}
            if spellings & taken:
                hidden.append(command)
                continue
            taken |= spellings
            kept.append(command)
    return tuple(kept), tuple(hidden)


def all_commands() -> tuple[Command, ...]:
    """Every command a front-end may advertise: the built-ins, then the registered ones in effect."""
    return COMMANDS + _dynamic()[0]


def shadowed_commands() -> tuple[Command, ...]:
    """Registered commands left out because a built-in (or an earlier source) has their name."""
    return _dynamic()[1]


def _as_command(spec: Any, kind: str) -> Command:
    """A plugin's command spec — a Command, or a mapping with name, help, handler (usage, aliases,
    while_busy optional) — as a Command of `kind`; ValueError (one line) when it is not one."""
    if isinstance(spec, Command):
        fields: dict[str, Any] = {
            "name": spec.name,
            "usage": spec.usage,
            "help": spec.help,
            "handler": spec.handler,
            "aliases": spec.aliases,
            "while_busy": spec.while_busy,
        }
    elif isinstance(spec, Mapping):
        fields = dict(spec)
    else:
        raise ValueError(f"a command must be a Command or a table, got {type(spec).__name__}")
    name = str(fields.get("name", "")).lstrip("/").lower()
    if not _NAME.fullmatch(name):
        raise ValueError(f"'{fields.get('name')}' is not a command name (letters, digits, - and _)")
    handler = fields.get("handler")
    if not callable(handler):
        raise ValueError(f"/{name} has no callable handler")
    aliases = tuple(str(alias).lstrip("/").lower() for alias in fields.get("aliases") or ())
    return Command(
        name=name,
        usage=str(fields.get("usage") or f"/{name}"),
        help=" ".join(str(fields.get("help") or "").split()) or f"added by {kind}",
        handler=_guarded(name, handler),
        aliases=tuple(alias for alias in aliases if _NAME.fullmatch(alias)),
        while_busy=bool(fields.get("while_busy", False)),
        kind=kind,
    )


def _guarded(name: str, handler: Callable[..., Any]) -> Handler:
    """An added command's handler made safe: sync or async, a str or a CommandResult back, and a
    failure is one error line instead of a traceback."""

    async def run(agent: Agent, args: str) -> CommandResult:
        try:
            value = handler(agent, args)
            if inspect.isawaitable(value):
                value = await value
        except SessionError:
            raise
        except Exception as exc:
            return CommandResult(f"/{name} failed: {type(exc).__name__}: {exc}", error=True)
        if isinstance(value, CommandResult):
            return value
        if value is None:
            return CommandResult("")
        return CommandResult(str(value))

    return run


def register_plugin_commands(source: str, specs: Iterable[Any]) -> list[str]:
    """Make `specs` (a plugin's command specs) the commands of `source`, through `register_dynamic`.

    Returns one line per spec left out: not a command, or its name already taken (a built-in's or an
    earlier source's: the first owner keeps it; an alias that clashes is just dropped).
    """
    problems: list[str] = []
    _SOURCES.pop(source, None)
    taken = {alias for cmd in all_commands() for alias in (cmd.name, *cmd.aliases)}
    accepted: list[Command] = []
    for spec in specs:
        try:
            command = _as_command(spec, source)
        except ValueError as exc:
            problems.append(f"{source}: command left out: {exc}")
            continue
        if command.name in taken:
            owner = _lookup(command.name)
            who = "a built-in command" if owner is None or owner.kind == "built-in" else owner.kind
            problems.append(f"{source}: /{command.name} left out: the name belongs to {who}")
            continue
        aliases = tuple(alias for alias in command.aliases if alias not in taken)
        command = dataclasses.replace(command, aliases=aliases)
        taken.update((command.name, *aliases))
        accepted.append(command)
    if accepted:
        register_dynamic(source, accepted)
    return problems


def is_command(text: str) -> bool:
    return text.startswith("/") and not text.startswith("//")


def _lookup(name: str) -> Command | None:
    name = name.lower()
    found = _BY_NAME.get(name)
    if found is None:
        found = next((cmd for cmd in _dynamic()[0] if name in (cmd.name, *cmd.aliases)), None)
    return found


def help_text() -> str:
    commands = all_commands()
    width = max(len(c.usage) for c in commands)
    lines = ["Commands:"]
    kind = "built-in"
    for cmd in commands:
        if cmd.kind != kind:
            kind = cmd.kind
            lines.append(f"Commands of {kind}:" if ":" in kind else f"{kind.capitalize()} commands:")
        alias = f" (alias /{', /'.join(cmd.aliases)})" if cmd.aliases else ""
        lines.append(f"  {cmd.usage.ljust(width)}  {cmd.help}{alias}")
    for cmd in shadowed_commands():
        owner = _lookup(cmd.name)
        by = f"the built-in /{cmd.name}" if owner is not None and owner.kind == "built-in" else f"another /{cmd.name}"
        lines.append(f"  (the {cmd.kind} command /{cmd.name} is left out: {by} has that name)")
    return "\n".join(lines)


def command_for(text: str) -> Command | None:
    """The registry entry a "/name args" text calls (None for an unknown name); an alias is followed."""
    for _hop in range(MAX_REWRITES):
        name, _, args = text.strip()[1:].partition(" ")
        command = _lookup(name)
        if command is None or command.rewrite is None:
            return command
        text = command.rewrite(args.strip())
        if not is_command(text):
            return None
    return None


def runs_while_busy(text: str) -> bool:
    """Whether a front-end may run this command while a turn is running (`Command.while_busy`)."""
    command = command_for(text) if is_command(text) else None
    return command is not None and command.while_busy


async def run_command(agent: Agent, text: str, *, interactive: bool = False) -> CommandResult:
    """Dispatch one slash command; a mistake comes back as an error result, never an exception.

    `interactive=True` is the TUI: /compress then returns its preview to confirm instead of applying.
    An alias runs the command it stands for, with the same `interactive`.
    """
    for _hop in range(MAX_REWRITES):
        name, _, args = text.strip()[1:].partition(" ")
        command = _lookup(name)
        if command is None:
            return CommandResult(f"Unknown command /{name} — /help lists the commands.", error=True)
        if command.rewrite is None:
            break
        text = command.rewrite(args.strip())
        if not is_command(text):
            return CommandResult(f"/{name} stands for {text!r}, which is not a slash command.", error=True)
    else:
        return CommandResult(f"/{name} goes round in aliases ({MAX_REWRITES} hops); check them.", error=True)
    handler = (
        partial(session.compress, interactive=True)
        if interactive and command.handler is session.compress
        else command.handler
    )
    try:
        return await handler(agent, args)
    except SessionError as exc:
        return CommandResult(str(exc), error=True)
