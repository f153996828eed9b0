"""Handlers of the session slash commands: /new /resume /branch /title /undo /retry /compress
/sessions /history /usage /memory /skills, and the texts they print.

Each handler takes the Agent and the text after the command and returns a `CommandResult`; a
mistake is a `SessionError` (one line) or an error result, never an exception. /memory and /skills
return an `OpenLearning` intent: the TUI opens its learning screen, and the headless front-end
prints `memory_text` or `skills_text`. The registry (`core.commands.registry`) lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_tui.core.commands.result import CommandResult, Confirmation, OpenLearning
from hermes_tui.core.messages import content_text
from hermes_tui.core.session.branching import turn_message_index

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent


async def new(agent: Agent, args: str) -> CommandResult:
    title = args.strip()
    for flag in ("now", "--yes", "-y"):
        if title == flag:
            title = ""
    return CommandResult(await agent.new_session(title or None))


async def resume(agent: Agent, args: str) -> CommandResult:
    if not args.strip():
        return CommandResult(await list_sessions_text(agent))
    return CommandResult(await agent.resume(args))


async def branch(agent: Agent, args: str) -> CommandResult:
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


async def title(agent: Agent, args: str) -> CommandResult:
    return CommandResult(await agent.set_title(args))


async def undo(agent: Agent, args: str) -> CommandResult:
    count = 1
    if args.strip():
        if not args.strip().isdigit():
            return CommandResult("usage: /undo [N]  (N = number of user turns to remove)", error=True)
        count = int(args.strip())
    text = await agent.undo(count)
    return CommandResult(f"↶ Removed the last {count} turn(s); the prompt is back in the input.", prefill=text)


async def retry(agent: Agent, args: str) -> CommandResult:
    text = await agent.undo(1)
    return CommandResult("↻ Retrying the last message", send=text)


async def compress(agent: Agent, args: str, *, interactive: bool = False) -> CommandResult:
    if not interactive or args.strip().lower().startswith("preview"):
        return CommandResult(await agent.compress(args))
    preview = await agent.compression_preview(args)
    if not preview.would_compress:
        return CommandResult(f"Nothing to compress: {preview.reason}.")

    async def apply() -> CommandResult:
        return CommandResult(await agent.compress(args))

    return CommandResult(preview.text(), confirm=Confirmation(preview, apply))


async def sessions(agent: Agent, args: str) -> CommandResult:
    if args.strip() and args.strip() != "list":
        return CommandResult(await agent.resume(args))
    return CommandResult(await list_sessions_text(agent))


async def history(agent: Agent, args: str) -> CommandResult:
    if not agent.messages:
        return CommandResult("No history in this session yet.\n\n" + await list_sessions_text(agent))
    return CommandResult(history_text(agent.messages))


async def usage(agent: Agent, args: str) -> CommandResult:
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


async def memory(agent: Agent, args: str) -> CommandResult:
    return CommandResult(intent=OpenLearning("memory"))


async def skills(agent: Agent, args: str) -> CommandResult:
    return CommandResult(intent=OpenLearning("skills"))


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
