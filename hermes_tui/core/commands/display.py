"""Handlers of /copy, /reasoning, /personality and /verbose: how the agent answers and what is shown of it.

/copy [N] returns the N-th last answer's text as a `CopyText` intent (the TUI puts it on the
clipboard; headless prints it). /reasoning [level|show|hide] sets the reasoning level
(`core.reasoning`) or the display flag the UI reads (`core.display`); /verbose cycles the
tool-progress display off → new → all → verbose; /personality [name] lists or sets the overlay
(`core.personality`). All of them last for the running program, as Hermes's "session only" does
when it cannot save its config.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hermes_tui.core.commands.result import CommandResult, CopyText
from hermes_tui.core.display import TOOL_PROGRESS_MEANING
from hermes_tui.core.messages import content_text
from hermes_tui.core.personality import CLEAR_WORDS, PERSONALITIES
from hermes_tui.core.reasoning import DEFAULT_WORDS, LEVELS, how_it_is_sent

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

_THINKING_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>\s*", re.DOTALL | re.IGNORECASE)
SHOW_WORDS = ("show", "on")
HIDE_WORDS = ("hide", "off")


# --------------------------------------------------------------------------- /copy


def answer_text(content: object) -> str:
    """An answer's text as the user would copy it (inline thinking blocks left out)."""
    return _THINKING_BLOCK.sub("", content_text(content)).strip()


def answers(agent: Agent) -> list[str]:
    """The texts of the assistant answers of this session, oldest first (tool-call-only turns left out)."""
    texts = (answer_text(m.get("content")) for m in agent.messages if m.get("role") == "assistant")
    return [text for text in texts if text]


async def copy(agent: Agent, args: str) -> CommandResult:
    raw = args.strip()
    if raw and not (raw.isdigit() and int(raw) > 0):
        return CommandResult("usage: /copy [N]  (N = the N-th last answer; 1, the last, by default)", error=True)
    texts = answers(agent)
    if not texts:
        return CommandResult("Nothing to copy yet: there is no answer in this session.", error=True)
    number = int(raw) if raw else 1
    if number > len(texts):
        return CommandResult(f"There are {len(texts)} answer(s) in this session; /copy 1-{len(texts)}.", error=True)
    text = texts[-number]
    which = "the last answer" if number == 1 else f"answer {number} from the end"
    return CommandResult(f"Copied {which} ({len(text):,} characters).", intent=CopyText(text, number))


# --------------------------------------------------------------------------- /reasoning


def reasoning_status(agent: Agent) -> str:
    level = agent.reasoning.level
    shown = "shown" if agent.display.show_reasoning else "hidden"
    name = level or "default"
    return (
        f"Reasoning effort: {name} — {agent.provider.name}: {how_it_is_sent(agent.provider.name, level)}.\n"
        f"Reasoning display: {shown}.\n"
        f"/reasoning {'|'.join(LEVELS)}|default sets the level; /reasoning show|hide the display."
    )


async def reasoning(agent: Agent, args: str) -> CommandResult:
    word = args.strip().lower()
    if not word:
        return CommandResult(reasoning_status(agent))
    if word in SHOW_WORDS or word in HIDE_WORDS:
        agent.display.set_reasoning_shown(word in SHOW_WORDS)
        state = "shown during and after each answer" if word in SHOW_WORDS else "hidden"
        return CommandResult(f"Reasoning display: {state}.")
    if word not in LEVELS and word not in DEFAULT_WORDS:
        return CommandResult(
            f"Unknown reasoning setting '{args.strip()}' — levels: {', '.join(LEVELS)}, default; display: show, hide.",
            error=True,
        )
    level = agent.reasoning.set(word)
    sent = how_it_is_sent(agent.provider.name, level)
    return CommandResult(f"Reasoning effort: {level or 'default'} from the next request ({sent}; this run only).")


# --------------------------------------------------------------------------- /verbose


async def verbose(agent: Agent, args: str) -> CommandResult:
    if args.strip():
        return CommandResult("/verbose takes no argument: it cycles off → new → all → verbose.", error=True)
    mode = agent.display.cycle_tool_progress()
    return CommandResult(f"Tool progress: {mode.upper()} — {TOOL_PROGRESS_MEANING[mode]}.")


# --------------------------------------------------------------------------- /personality


def personalities_text(agent: Agent) -> str:
    width = max(len(name) for name in PERSONALITIES)
    current = agent.personality
    lines = ["Personalities (/personality NAME; none clears it):"]
    lines.append(f"{'●' if not current else ' '} {'none':<{width}}  no overlay — the agent's own voice")
    for name, text in PERSONALITIES.items():
        lines.append(f"{'●' if name == current else ' '} {name:<{width}}  {text[:70]}{'…' if len(text) > 70 else ''}")
    return "\n".join(lines)


async def personality(agent: Agent, args: str) -> CommandResult:
    name = args.strip()
    if not name:
        return CommandResult(personalities_text(agent))
    if name.lower() not in PERSONALITIES and name.lower() not in CLEAR_WORDS:
        choices = ", ".join(["none", *PERSONALITIES])
        return CommandResult(f"Unknown personality '{name}' — choose one of {choices}.", error=True)
    chosen = agent.set_personality(name)
    if not chosen:
        return CommandResult("Personality cleared: no overlay from the next request on.")
    return CommandResult(f"Personality: {chosen} from the next request on (this run only) — “{PERSONALITIES[chosen]}”")
