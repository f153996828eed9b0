"""The system prompt, assembled once per session in stable -> context -> volatile tiers.

Reference §9: the prompt is built once and cached (rebuilt only after compression, /new,
/resume, /branch, /undo), persisted in `sessions.system_prompt`, and carries only the date
(never the time) so the cached prefix stays byte-stable for a whole day of turns.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

IDENTITY = (
    "You are Hermes, a capable assistant working in the user's terminal. You can read and write "
    "files, search the working tree and run shell commands through your tools. Be concrete and "
    "brief; show commands and paths exactly."
)

TASK_GUIDANCE = (
    "Work step by step: inspect before you change, verify after you change, and say plainly what "
    "you did and what is left. When a tool fails, read its error and adapt instead of repeating "
    "the same call."
)

TOOL_GUIDANCE = {
    "todo": "Use the todo tool to keep a task list for multi-step work; it survives context compression.",
    "session_search": (
        "Use session_search to recall earlier conversations from past sessions when the user refers to them."
    ),
    "terminal": "Shell commands ask the user for approval before they run; explain risky ones first.",
}

CONTEXT_FILES = ("AGENTS.md", ".hermes.md", ".cursorrules")
CONTEXT_FILE_MAX_CHARS = 20_000


@dataclass(frozen=True)
class PromptInputs:
    cwd: Path
    model: str
    provider: str
    tool_names: tuple[str, ...]
    memory_block: str = ""
    session_started: datetime | None = None
    extra_system_message: str = ""


def _context_files(cwd: Path) -> list[str]:
    blocks: list[str] = []
    for name in CONTEXT_FILES:
        path = cwd / name
        try:
            if not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")[:CONTEXT_FILE_MAX_CHARS]
        except OSError:
            continue
        if text.strip():
            blocks.append(f"# Project context from {name}\n\n{text.strip()}")
    return blocks


def build_system_prompt(inputs: PromptInputs) -> str:
    """Assemble the prompt. Pure apart from reading the project's context files."""
    stable = [IDENTITY, TASK_GUIDANCE]
    stable.extend(TOOL_GUIDANCE[name] for name in inputs.tool_names if name in TOOL_GUIDANCE)
    stable.append(f"Working directory: {inputs.cwd}")

    context: list[str] = []
    if inputs.extra_system_message.strip():
        context.append(inputs.extra_system_message.strip())
    context.extend(_context_files(inputs.cwd))

    started = inputs.session_started or datetime.now()
    volatile: list[str] = []
    if inputs.memory_block:
        volatile.append(inputs.memory_block)
    volatile.append(f"Conversation started: {started.strftime('%A, %B %d, %Y')}")
    volatile.append(f"Model: {inputs.model}\nProvider: {inputs.provider}")

    return "\n\n".join(part for part in (*stable, *context, *volatile) if part)
