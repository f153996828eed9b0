"""The one slash-command registry shared by the TUI and the headless CLI, and its dispatcher.

`COMMANDS` is the only list of slash commands: the core dispatches from it and the TUI's
completion, F1 help and command palette all read it, so what the UI advertises always dispatches.
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
/config /debug) and `background` (/background /reload-skills) beside this module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from hermes_tui.core.commands import background, browse, context, display, info, modes, power, rollback, session
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
    Command("help", "/help", "commands and keys", _help, while_busy=True),
    Command("quit", "/quit", "leave hermes-tui", _quit, ("exit",)),
)

_BY_NAME = {alias: cmd for cmd in COMMANDS for alias in (cmd.name, *cmd.aliases)}


def is_command(text: str) -> bool:
    return text.startswith("/") and not text.startswith("//")


def help_text() -> str:
    width = max(len(c.usage) for c in COMMANDS)
    lines = ["Commands:"]
    for cmd in COMMANDS:
        alias = f" (alias /{', /'.join(cmd.aliases)})" if cmd.aliases else ""
        lines.append(f"  {cmd.usage.ljust(width)}  {cmd.help}{alias}")
    return "\n".join(lines)


def command_for(text: str) -> Command | None:
    """The registry entry a "/name args" text calls (None for an unknown name)."""
    name = text.strip()[1:].partition(" ")[0]
    return _BY_NAME.get(name.lower())


def runs_while_busy(text: str) -> bool:
    """Whether a front-end may run this command while a turn is running (`Command.while_busy`)."""
    command = command_for(text) if is_command(text) else None
    return command is not None and command.while_busy


async def run_command(agent: Agent, text: str, *, interactive: bool = False) -> CommandResult:
    """Dispatch one slash command; a mistake comes back as an error result, never an exception.

    `interactive=True` is the TUI: /compress then returns its preview to confirm instead of applying.
    """
    name, _, args = text.strip()[1:].partition(" ")
    command = _BY_NAME.get(name.lower())
    if command is None:
        return CommandResult(f"Unknown command /{name} — /help lists the commands.", error=True)
    handler = (
        partial(session.compress, interactive=True)
        if interactive and command.handler is session.compress
        else command.handler
    )
    try:
        return await handler(agent, args)
    except SessionError as exc:
        return CommandResult(str(exc), error=True)
