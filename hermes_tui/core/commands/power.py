"""Handlers of the power-user slash commands: /steer, /queue, /stop, /status, /model, /clear, /save,
/goal and /insights (reference §10). The registry (`core.commands.registry`) lists them; the ones that
make sense while a turn runs (/steer, /queue, /stop, /status, /clear, /goal, /insights) are
flagged there so the TUI dispatches them at once instead of refusing.

Each handler takes the Agent and the text after the command and returns a `CommandResult`; a
mistake is a `SessionError` (one line) or an error result, never an exception.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.core.commands.result import CommandResult
from hermes_tui.core.goals import continuation_prompt
from hermes_tui.core.session.live import SessionError

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

SPARK = "▁▂▃▄▅▆▇█"
SAVE_FORMATS = {".json": "json", ".jsonl": "jsonl", ".md": "md"}
DEFAULT_INSIGHT_DAYS = 30


def sparkline(values: tuple[int, ...] | list[int], top: int | None = None) -> str:
    """One block character per value, scaled to `top` (default: the largest value)."""
    peak = top if top and top > 0 else max(values, default=0)
    if peak <= 0:
        return SPARK[0] * len(values)
    return "".join(SPARK[min(len(SPARK) - 1, round(v / peak * (len(SPARK) - 1)))] for v in values)


def _one_line(text: str, limit: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# --------------------------------------------------------------------------- /steer /queue /stop


async def steer(agent: Agent, args: str) -> CommandResult:
    text = args.strip()
    if not text:
        return CommandResult("usage: /steer TEXT  (guidance the model reads after its next tool call)", error=True)
    if not agent.busy:
        return CommandResult("Nothing is running — sending it as a message.", send=text)
    agent.steering.steer(text)
    return CommandResult(f"⇢ Steer noted: the model reads it after its next tool call — “{_one_line(text)}”")


def queue_text(agent: Agent) -> str:
    queued = agent.steering.queued
    if not queued:
        return "The queue is empty. /queue TEXT sends TEXT when the running turn ends."
    lines = [f"Queued ({len(queued)}), sent one per turn when the running turn ends:"]
    lines += [f"  {i}. {_one_line(text)}" for i, text in enumerate(queued, 1)]
    lines.append("/queue drop N removes one, /queue edit N takes it back into the prompt, /queue clear empties it.")
    return "\n".join(lines)


async def queue(agent: Agent, args: str) -> CommandResult:
    text = args.strip()
    word, _, rest = text.partition(" ")
    word = word.lower()
    if not text or word == "list":
        return CommandResult(queue_text(agent))
    if word == "clear" and not rest.strip():
        dropped = agent.steering.clear()
        return CommandResult(f"Queue cleared ({dropped} dropped).")
    if word in ("drop", "edit") and rest.strip().isdigit():
        try:
            taken = agent.steering.take(int(rest.strip()))
        except IndexError:
            return CommandResult(f"There is no queued message #{rest.strip()} — /queue lists them.", error=True)
        if word == "edit":
            return CommandResult(
                "Taken out of the queue and put in the prompt: edit it and send or /queue it.", prefill=taken
            )
        return CommandResult(f"Dropped “{_one_line(taken)}” from the queue.")
    if not agent.busy:
        return CommandResult("Nothing is running — sending it now.", send=text)
    position = agent.steering.enqueue(text)
    return CommandResult(f"Queued as #{position}: sent when the running turn ends.")


async def stop(agent: Agent, args: str) -> CommandResult:
    if not agent.busy:
        return CommandResult("Nothing is running.")
    agent.steering.request_stop()
    return CommandResult("⏹ Stopping after the current tool call (Ctrl-C stops at once).")


# --------------------------------------------------------------------------- /status /model /clear


async def status(agent: Agent, args: str) -> CommandResult:
    session = agent.session
    budget = agent.budget()
    pct = round(budget.shown_tokens * 100 / budget.context_length) if budget.context_length else 0
    approx = "~" if budget.is_estimate else ""
    title = f"“{session.title}”" if session.title else "(untitled)"
    turn = "Turn: idle"
    if agent.busy:
        turn = "Turn: running" + (" — stop requested" if agent.steering.stop_requested else "")
    lines = [
        f"Session {session.id} {title}" + (f", parent {session.parent_id}" if session.parent_id else ""),
        f"Model {agent.provider.label} — window {budget.context_length:,}"
        + (" (assumed)" if budget.window_is_default else ""),
        f"Context {approx}{budget.shown_tokens:,} tokens ({pct}%), threshold {budget.threshold_tokens:,},"
        f" {len(agent.messages)} messages, {budget.compression_count} compression(s)",
        turn,
        f"Queue: {len(agent.steering.queued)} message(s), {len(agent.steering.pending_steers)} steer(s) waiting",
    ]
    goal = await agent.goals.load()
    lines.append(goal.describe() if goal else "Goal: none (/goal TEXT sets one)")
    return CommandResult("\n".join(lines))


async def model(agent: Agent, args: str) -> CommandResult:
    name = args.strip()
    if not name:
        budget = agent.budget()
        guess = " (window assumed)" if budget.window_is_default else ""
        return CommandResult(
            f"Model {agent.provider.label}, window {budget.context_length:,} tokens{guess}. "
            "/model NAME switches to another model of the same provider."
        )
    return CommandResult(await agent.switch_model(name))


async def clear(agent: Agent, args: str) -> CommandResult:
    return CommandResult(
        "Conversation pane cleared — the session and its history are unchanged (/history shows them).",
        clear_conversation=True,
    )


# --------------------------------------------------------------------------- /save


def _save_path(agent: Agent, args: str, session_id: str) -> tuple[Path, str]:
    raw = args.strip()
    path = Path(raw).expanduser() if raw else Path(f"hermes-{session_id}.json")
    if not path.is_absolute():
        path = agent.cwd / path
    fmt = SAVE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise SessionError(f"save to a .json, .jsonl or .md file, not '{path.name}'")
    if path.exists():
        raise SessionError(f"{path} exists already — choose another name (nothing is overwritten)")
    if not path.parent.is_dir():
        raise SessionError(f"cannot write {path}: folder {path.parent} does not exist")
    return path, fmt


async def save(agent: Agent, args: str) -> CommandResult:
    if agent.db is None:
        raise SessionError("nothing to save: no state.db is open")
    if not agent.messages:
        raise SessionError("nothing to save yet — send a message first")
    return await export_session(agent, agent.session_id, args)


async def export_session(agent: Agent, session_id: str, args: str = "") -> CommandResult:
    """/save's export of any stored session (the Sessions tree's export key): to `args`, else
    hermes-<id>.json in the working folder; never overwrites. The live session is flushed first.
    Secrets are masked (rows written before redaction, or by Hermes, may still hold them)."""
    from hermes_tui.core.context.redact_records import redact_value
    from hermes_tui.store.export import build_export, render_document
    from hermes_tui.store.file_modes import write_private_text

    if agent.db is None:
        raise SessionError("nothing to save: no state.db is open")
    if session_id == agent.session_id:
        await agent.session.flush()
    document = redact_value(await build_export(agent.db, session_id))
    if not document["sessions"]:
        raise SessionError(f"nothing to save: session {session_id} has no stored row yet")
    path, fmt = _save_path(agent, args, session_id)
    try:
        write_private_text(path, render_document(document, fmt), exclusive=True)
    except FileExistsError:
        raise SessionError(f"{path} exists already — choose another name (nothing is overwritten)") from None
    except OSError as exc:
        raise SessionError(f"cannot write {path}: {exc.strerror or exc}") from None
    count = len(document["sessions"][0].get("messages", []))
    return CommandResult(f"Saved session {session_id} ({count} messages) to {path} (0600).")


# --------------------------------------------------------------------------- /goal


async def goal(agent: Agent, args: str) -> CommandResult:
    text = args.strip()
    word = text.lower()
    keeper = agent.goals
    if word in ("", "status"):
        state = await keeper.load()
        return CommandResult(state.describe() if state else "No goal. /goal TEXT sets one; the agent then works on it.")
    if word == "pause":
        return CommandResult((await keeper.pause()).describe())
    if word == "clear":
        return CommandResult("Goal cleared." if await keeper.clear() else "There was no goal.")
    if word == "resume":
        state = await keeper.resume()
        if agent.busy:
            return CommandResult(state.describe() + " — it continues when the running turn ends.")
        return CommandResult(state.describe(), send=continuation_prompt(state.goal))
    state = await keeper.set(text)
    if agent.busy:
        agent.steering.enqueue(state.goal)
        return CommandResult(f"⚑ Goal set: {state.goal} — queued to start when the running turn ends.")
    return CommandResult(f"⚑ Goal set ({state.max_turns} turns at most): {state.goal}", send=state.goal)


# --------------------------------------------------------------------------- /insights


async def insights(agent: Agent, args: str) -> CommandResult:
    raw = args.strip()
    if raw and not raw.isdigit():
        return CommandResult("usage: /insights [days]  (default 30)", error=True)
    days = int(raw) if raw else DEFAULT_INSIGHT_DAYS
    if agent.db is None:
        raise SessionError("insights need a state.db")
    try:
        report = await agent.db.usage_insights(days, now=time.time())
    except ValueError as exc:
        return CommandResult(f"/insights: {exc}", error=True)
    if not report.sessions:
        return CommandResult(f"No sessions in the last {days} day(s).")
    cost = f"${report.cost_usd:,.4f}"
    if report.sessions_without_cost:
        cost += f" (+ {report.sessions_without_cost} session(s) without a price)"
    hit = f", cache hit rate {report.cache_hit_rate:.0%}" if report.cache_hit_rate is not None else ""
    lines = [
        f"Usage in the last {days} day(s): {report.sessions} session(s), {report.messages:,} messages,"
        f" {report.api_calls:,} API calls",
        f"Tokens: prompt {report.prompt_tokens:,} (cache read {report.cache_read_tokens:,}{hit}),"
        f" output {report.output_tokens:,} · estimated cost {cost}",
        f"Tokens per day: {sparkline(report.tokens_per_day)}  (oldest → today)",
    ]
    if report.models:
        lines.append("By model:")
        lines += [
            f"  {m.model}: {m.sessions} session(s), {m.input_tokens:,} in / {m.output_tokens:,} out, ${m.cost_usd:,.4f}"
            for m in report.models
        ]
    if report.tools:
        lines.append("Tools: " + ", ".join(f"{name} ×{count}" for name, count in report.tools))
    return CommandResult("\n".join(lines))
