"""Slash commands shared by the TUI and the headless CLI: one registry, one dispatcher.

`COMMANDS` is the only list of slash commands: the core dispatches from it and the TUI's
completion, F1 help and command palette all read it, so what the UI advertises always dispatches.
`run_command(agent, "/resume 2")` returns a `CommandResult` telling the front-end what to show,
whether to send a user turn (/retry), what to put back in the input (/undo), or to quit.
Anything the TUI can do with a command, a script can do with `hermes-tui run "/…"`.
`interactive=True` (the TUI) makes /compress ask first: the result carries a `Confirmation` with
the preview. Commands flagged `while_busy` (`runs_while_busy`) are the ones a front-end may run
while a turn is running: /steer, /queue, /stop, /status and the other read-only or steering ones.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from hermes_tui.core.commands import browse, power
from hermes_tui.core.commands.result import CommandResult, Confirmation
from hermes_tui.core.messages import content_text
from hermes_tui.core.session.branching import turn_message_index
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


async def _new(agent: Agent, args: str) -> CommandResult:
    title = args.strip()
    for flag in ("now", "--yes", "-y"):
        if title == flag:
            title = ""
    return CommandResult(await agent.new_session(title or None))


async def _resume(agent: Agent, args: str) -> CommandResult:
    if not args.strip():
        return CommandResult(await list_sessions_text(agent))
    return CommandResult(await agent.resume(args))


async def _branch(agent: Agent, args: str) -> CommandResult:
    form, _, rest = args.strip().partition(" ")
    if form.lower() in ("at", "edit"):
        number, _, name = rest.strip().partition(" ")
        if not number.isdigit():
            return CommandResult(
                f"usage: /branch {form.lower()} N [name]  (N = a user turn, as /history numbers them)", error=True
            )
        edit = form.lower() == "edit"
        index = turn_message_index(agent.messages, int(number), edit=edit)
        result = await agent.branch_at(index, edit=edit, name=name.strip() or None)
        return CommandResult(result.message, prefill=result.prefill)
    return CommandResult(await agent.branch(args.strip() or None))


async def _title(agent: Agent, args: str) -> CommandResult:
    return CommandResult(await agent.set_title(args))


async def _undo(agent: Agent, args: str) -> CommandResult:
    count = 1
    if args.strip():
        if not args.strip().isdigit():
            return CommandResult("usage: /undo [N]  (N = number of user turns to remove)", error=True)
        count = int(args.strip())
    text = await agent.undo(count)
    return CommandResult(f"↶ Removed the last {count} turn(s); the prompt is back in the input.", prefill=text)


async def _retry(agent: Agent, args: str) -> CommandResult:
    text = await agent.undo(1)
    return CommandResult("↻ Retrying the last message", send=text)


async def _compress(agent: Agent, args: str, *, interactive: bool = False) -> CommandResult:
    if not interactive or args.strip().lower().startswith("preview"):
        return CommandResult(await agent.compress(args))
    preview = await agent.compression_preview(args)
    if not preview.would_compress:
        return CommandResult(f"Nothing to compress: {preview.reason}.")

    async def apply() -> CommandResult:
        return CommandResult(await agent.compress(args))

    return CommandResult(preview.text(), confirm=Confirmation(preview, apply))


async def _sessions(agent: Agent, args: str) -> CommandResult:
    if args.strip() and args.strip() != "list":
        return CommandResult(await agent.resume(args))
    return CommandResult(await list_sessions_text(agent))


async def _history(agent: Agent, args: str) -> CommandResult:
    if not agent.messages:
        return CommandResult("No history in this session yet.\n\n" + await list_sessions_text(agent))
    return CommandResult(history_text(agent.messages))


async def _usage(agent: Agent, args: str) -> CommandResult:
    t = agent.totals
    b = agent.budget()
    shown = f"~{b.shown_tokens:,} (estimate)" if b.is_estimate else f"{b.shown_tokens:,}"
    pct = int(b.shown_tokens * 100 / b.context_length) if b.context_length else 0
    lines = [
        f"Session {agent.session_id} — {agent.provider.label}",
        f"Input {t.input_tokens:,} · cache read {t.cache_read_tokens:,} · cache write {t.cache_write_tokens:,}"
        f" · output {t.output_tokens:,} · reasoning {t.reasoning_tokens:,}",
        f"API calls {t.api_calls}",
        f"Current context: {shown} / {b.context_length:,} ({pct}%), threshold {b.threshold_tokens:,}",
        f"Messages {len(agent.messages)} · compressions {b.compression_count}",
    ]
    return CommandResult("\n".join(lines))


async def _memory(agent: Agent, args: str) -> CommandResult:
    return CommandResult(memory_text(agent), screen="learning")


async def _skills(agent: Agent, args: str) -> CommandResult:
    return CommandResult(skills_text(agent), screen="learning")


async def _search(agent: Agent, args: str) -> CommandResult:
    if not args.strip():  # the TUI opens an empty search; headless, say what to type
        return CommandResult(browse.SEARCH_USAGE, error=True, screen="search")
    return CommandResult(await browse.search_text(agent, args), screen="search", screen_arg=args.strip())


async def _compare(agent: Agent, args: str) -> CommandResult:
    if not args.strip():  # the TUI asks for the second session (the parent first); headless uses the parent
        try:
            return CommandResult(await browse.compare_text(agent, ""), screen="compare")
        except SessionError as exc:
            return CommandResult(str(exc), error=True, screen="compare")
    left, right = await browse.compare_pair(agent, args)
    return CommandResult(await browse.compare_text(agent, args), screen="compare", screen_arg=f"{left} {right}")


async def _inspect(agent: Agent, args: str) -> CommandResult:
    child = await browse.inspect_target(agent, args)
    return CommandResult(await browse.inspect_text(agent, child), screen="inspect", screen_arg=child)


async def _help(agent: Agent, args: str) -> CommandResult:
    return CommandResult(help_text(), show_help=True)


async def _quit(agent: Agent, args: str) -> CommandResult:
    return CommandResult("Bye.", quit=True)


COMMANDS: tuple[Command, ...] = (
    Command("new", "/new [title]", "start a fresh session (the old one ends)", _new, ("reset",)),
    Command("resume", "/resume [N|id|prefix|title]", "switch to an earlier session", _resume),
    Command(
        "branch",
        "/branch [name|at N|edit N]",
        "copy this conversation into a new branch",
        _branch,
        ("fork",),
    ),
    Command("title", "/title [name]", "show or set this session's title", _title),
    Command("sessions", "/sessions", "list recent sessions", _sessions),
    Command("history", "/history", "show this session's turns", _history),
    Command("undo", "/undo [N]", "remove the last N turns (text returns to the input)", _undo),
    Command("retry", "/retry", "re-send the last message", _retry),
    Command("compress", "/compress [focus|here [N]|preview]", "summarise earlier turns now", _compress),
    Command("search", "/search [words]", "search every session's messages (role: since: filters)", _search),
    Command("compare", "/compare [a [b]]", "compare two sessions turn by turn (default: the parent)", _compare),
    Command("inspect", "/inspect [session]", "what a compression summarised", _inspect),
    Command("memory", "/memory", "what the agent remembers (MEMORY.md, USER.md)", _memory),
    Command("skills", "/skills", "the skills the agent has saved", _skills),
    Command("usage", "/usage", "token usage and context size", _usage, while_busy=True),
    Command("status", "/status", "session, model, context, queue and goal at a glance", power.status, while_busy=True),
    Command(
        "steer", "/steer TEXT", "guide the running agent: read after its next tool call", power.steer, while_busy=True
    ),
    Command("queue", "/queue [TEXT|clear|drop N|edit N]", "send TEXT when the turn ends", power.queue, while_busy=True),
    Command("stop", "/stop", "stop the running turn after the current tool call", power.stop, while_busy=True),
    Command("model", "/model [name]", "show or switch the model", power.model),
    Command(
        "goal",
        "/goal [TEXT|pause|resume|clear]",
        "work toward a standing goal",
        power.goal,
        while_busy=True,
    ),
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
    handler = partial(_compress, interactive=True) if interactive and command.handler is _compress else command.handler
    try:
        return await handler(agent, args)
    except SessionError as exc:
        return CommandResult(str(exc), error=True)


async def list_sessions_text(agent: Agent, limit: int = 10) -> str:
    if agent.db is None:
        return "No state.db is open."
    rows = await agent.db.list_sessions_rich(limit=limit)
    if not rows:
        return "No saved sessions yet."
    lines = ["Recent sessions (/resume N):"]
    for index, row in enumerate(rows, 1):
        marker = "●" if row["id"] == agent.session_id else " "
        label = row.get("title") or row.get("preview") or "(empty)"
        lines.append(f"{marker}{index:>3}. {row['id']}  {label[:60]}  ({row.get('message_count', 0)} msgs)")
    return "\n".join(lines)


def memory_text(agent: Agent) -> str:
    """Both memory files, entry by entry, with their usage (what /memory prints headless)."""
    lines: list[str] = []
    for target, label in (("memory", "Agent notes (MEMORY.md)"), ("user", "User profile (USER.md)")):
        file = agent.memory.file(target)
        entries = file.entries()
        lines.append(f"{label} — {file.usage(entries)}")
        lines.extend(f"  • {entry.replace(chr(10), chr(10) + '    ')}" for entry in entries)
        if not entries:
            lines.append("  (empty)")
    return "\n".join(lines)


def skills_text(agent: Agent) -> str:
    """Every skill with its description (what /skills prints headless)."""
    skills, problems = agent.skills.scan()
    if not skills and not problems:
        return "No skills saved yet."
    lines = [f"Skills ({len(skills)}):"]
    lines.extend(f"  {s.category + '/' if s.category else ''}{s.name} — {s.description}" for s in skills)
    lines.extend(f"  skipped {p.path}: {p.error}" for p in problems)
    return "\n".join(lines)


def history_text(messages: list[dict], preview: int = 400) -> str:
    """The turns as lines; user messages are numbered (#N) as `/branch at N` and `/branch edit N` count them."""
    lines: list[str] = []
    hidden_tools = 0
    turn = 0
    for message in messages:
        role = message.get("role")
        if role == "tool":
            hidden_tools += 1
            continue
        if hidden_tools:
            lines.append(f"  ({hidden_tools} tool messages hidden)")
            hidden_tools = 0
        text = content_text(message.get("content")).strip()
        if role == "assistant" and not text and message.get("tool_calls"):
            lines.append(f"assistant: (requested {len(message['tool_calls'])} tool calls)")
            continue
        if len(text) > preview:
            text = text[:preview] + "…"
        if role == "user":
            turn += 1
            lines.append(f"#{turn} user: {text}")
            continue
        lines.append(f"{role}: {text}")
    if hidden_tools:
        lines.append(f"  ({hidden_tools} tool messages hidden)")
    return "\n".join(lines)
