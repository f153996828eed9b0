"""Handlers of /background and /reload-skills.

/background TEXT (aliases /bg, /btw) starts one turn in a side session (`core.background`) and
answers at once; the result arrives later as a Review-log entry. Without TEXT it lists the runs of
this program. /reload-skills scans the skills folder again and says what was added or removed
since the system prompt was built: the prompt's skills index follows at the next session or
compression (as memory does, so the prompt cache is kept), and skill_view loads a new skill now.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hermes_tui.core.commands.result import CommandResult
from hermes_tui.core.skills.catalog import available_here

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

_LISTED_SKILL = re.compile(r"^    - (.+?):", re.MULTILINE)
_INDEX = re.compile(r"<available_skills>.*?</available_skills>", re.DOTALL)


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


async def background(agent: Agent, args: str) -> CommandResult:
    prompt = args.strip()
    if not prompt:
        runs = agent.background.runs
        if not runs:
            return CommandResult(
                "usage: /background TEXT — runs TEXT as one turn in a separate session; the result comes to the "
                "Review log. Nothing has run in the background yet."
            )
        lines = ["Background turns (this run):"]
        for run in runs:
            state = "running" if run.running else ("done" if run.result is not None else "stopped")
            lines.append(f"  #{run.number} {state:<8} {run.session_id}  “{_short(run.prompt)}”")
        return CommandResult("\n".join(lines))
    run = await agent.background.start(prompt)
    return CommandResult(
        f"⧗ Background #{run.number} started in session {run.session_id}: “{_short(prompt)}” — "
        "carry on; the answer comes to the Review log."
    )


def listed_skills(system_prompt: str | None) -> set[str]:
    """The skill names the prompt's `<available_skills>` index lists."""
    found = _INDEX.search(system_prompt or "")
    return set(_LISTED_SKILL.findall(found.group(0))) if found else set()


async def reload_skills(agent: Agent, args: str) -> CommandResult:
    found, problems = agent.skills.scan()
    skills = [skill for skill in found if available_here(skill)]  # what the index would list here
    names = {skill.name: skill for skill in skills}
    lines = [f"Skills re-scanned: {len(skills)} in {agent.skills.root}."]
    prompt = agent.session.system_prompt
    if prompt is not None:
        listed = listed_skills(prompt)
        added = sorted(set(names) - listed)
        removed = sorted(listed - set(names))
        lines += [f"  + {name}: {_short(names[name].description)}" for name in added]
        lines += [f"  - {name}" for name in removed]
        if added or removed:
            lines.append(
                "The system prompt's skill list follows at the next session or compression; "
                "skill_view loads a new skill now."
            )
        else:
            lines.append("No skills added or removed since this session's prompt was built.")
    else:
        lines.append("This session's prompt is built with its first message, from this list.")
    lines += [f"  skipped {problem.path}: {problem.error}" for problem in problems]
    return CommandResult("\n".join(lines))
