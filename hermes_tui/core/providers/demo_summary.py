"""The demo model's answer to a compression prompt: a deterministic 13-heading handoff summary.

Reads the serialized turns a summary prompt carries ("TURNS TO SUMMARIZE:" or "PREVIOUS SUMMARY:" +
"NEW TURNS TO INCORPORATE:", lines like `[USER]: …`, `[ASSISTANT]: …` + `[Tool calls: …]`,
`[TOOL RESULT id]: …`) and fills every heading from them — the last user ask as Active Task, tool
calls as numbered Completed Actions, file paths found, error lines as Blocked — so compression
works offline with the same shape a real model would produce. An iterative update keeps the
previous summary's actions and files and continues the numbering.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from hermes_tui.core.context.summary import SUMMARY_HEADINGS

SUMMARY_MARKERS = ("TURNS TO SUMMARIZE", "NEW TURNS TO INCORPORATE")
HEADINGS = SUMMARY_HEADINGS
_TURN_END_MARKERS = ("\n\nUse this exact structure", "\n\nHow to update it", "\n## Active Task\n")
_TURN_START = re.compile(r"^\[(USER|ASSISTANT|SYSTEM|TOOL RESULT[^\]\n]*)\]: ?", re.MULTILINE)
_TOOL_LINE = re.compile(r"^\s+([\w.\-]+)\((.*)\)\s*$")
_PATH = re.compile(r"(?<![\w/.\-@])((?:~|\.{1,2})?/?(?:[\w.\-]+/)*[\w\-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")
_ERROR = re.compile(r"\b(error|failed|exception|traceback|timeout|timed out|fatal)\b", re.IGNORECASE)
_CONSTRAINT = re.compile(r"\b(don't|do not|never|always|must|prefer|avoid|only use|without)\b", re.IGNORECASE)
_MAX_FILES = 12
_MAX_ASK = 600


def is_summary_prompt(text: str) -> bool:
    return any(marker in text for marker in SUMMARY_MARKERS)


@dataclass
class _Turn:
    role: str  # USER, ASSISTANT, SYSTEM, TOOL
    text: str
    calls: list[tuple[str, str]] = field(default_factory=list)


def _between(text: str, start: str, ends: tuple[str, ...]) -> str:
    at = text.rfind(start)
    if at < 0:
        return ""
    body = text[at + len(start) :].lstrip(":").lstrip("\n")
    cut = min((body.find(end) for end in ends if end in body), default=len(body))
    return body[:cut].strip()


def _parse_turns(serialized: str) -> list[_Turn]:
    turns: list[_Turn] = []
    matches = list(_TURN_START.finditer(serialized))
    for position, match in enumerate(matches):
        end = matches[position + 1].start() if position + 1 < len(matches) else len(serialized)
        label = match.group(1)
        body = serialized[match.end() : end].strip()
        role = "TOOL" if label.startswith("TOOL RESULT") else label
        calls: list[tuple[str, str]] = []
        if role == "ASSISTANT" and "[Tool calls:\n" in body:
            body, _, block = body.rpartition("[Tool calls:\n")
            for line in block.splitlines():
                tool = _TOOL_LINE.match(line)
                if tool:
                    calls.append((tool.group(1), tool.group(2)))
        turns.append(_Turn(role, body.strip(), calls))
    return turns


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _ask(text: str) -> str:
    text = text.strip()
    if len(text) > _MAX_ASK:
        text = text[:420] + " ... " + text[-160:]
    return text


def _previous_sections(previous: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in previous.splitlines():
        if line.startswith("## "):
            current = line.strip()
            sections[current] = []
        elif current is not None and line.strip():
            sections[current].append(line.rstrip())
    return sections


def _files(turns: list[_Turn], previous: dict[str, list[str]]) -> list[str]:
    found: list[str] = []

    def add(path: str) -> None:
        path = path.strip().strip("`'\"")
        if path and path not in found and len(found) < _MAX_FILES:
            found.append(path)

    for line in previous.get("## Relevant Files", []):
        if line.startswith("- ") and "None" not in line:
            add(line[2:].split(" — ")[0])
    for turn in turns:
        for _name, args in turn.calls:
            try:
                parsed = json.loads(args)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                for key in ("path", "file_path", "workdir", "output_path"):
                    if isinstance(parsed.get(key), str):
                        add(parsed[key])
        for match in _PATH.finditer(turn.text):
            add(match.group(1))
    return found


def _actions(turns: list[_Turn], previous: dict[str, list[str]]) -> list[str]:
    """Earlier summary's actions (numbering continues), then one line per tool call in these turns."""
    carried = [re.sub(r"^\d+\.\s*", "", line) for line in previous.get("## Completed Actions", [])]
    carried = [line for line in carried if line and not line.startswith("None")]
    calls: list[list[str]] = []  # [name, args, outcome]
    waiting: list[int] = []  # calls whose results have not been seen yet, in order
    for turn in turns:
        if turn.role == "ASSISTANT" and turn.calls:
            waiting = []
            for name, args in turn.calls:
                waiting.append(len(calls))
                calls.append([name, args, "result not in these turns"])
        elif turn.role == "TOOL" and waiting:
            calls[waiting.pop(0)][2] = _one_line(turn.text, 120) or "(no output)"
    return carried + [
        f"{name.upper()} {_one_line(args, 80)} — {outcome} [tool: {name}]" for name, args, outcome in calls
    ]


def build_demo_summary(prompt: str) -> str:
    """The structured summary body for a compression prompt (no prefix; the compressor adds it)."""
    previous_text = _between(prompt, "PREVIOUS SUMMARY", ("\n\nNEW TURNS TO INCORPORATE",))
    marker = "NEW TURNS TO INCORPORATE" if "NEW TURNS TO INCORPORATE" in prompt else "TURNS TO SUMMARIZE"
    turns = _parse_turns(_between(prompt, marker, _TURN_END_MARKERS))
    previous = _previous_sections(previous_text)
    users = [turn for turn in turns if turn.role == "USER"]
    last_user_index = max((i for i, turn in enumerate(turns) if turn.role == "USER"), default=-1)
    answered = last_user_index >= 0 and any(t.role == "ASSISTANT" and t.text for t in turns[last_user_index + 1 :])

    def keep(heading: str, fallback: str) -> list[str]:
        return previous.get(heading) or [fallback]

    sections: dict[str, list[str]] = {}
    if users:
        sections["## Active Task"] = [f'User asked: "{_ask(users[-1].text)}"']
        sections["## Goal"] = previous.get("## Goal") or [_one_line(users[0].text, 300)]
    else:
        sections["## Active Task"] = keep("## Active Task", "None")
        sections["## Goal"] = keep("## Goal", "Not stated in the compacted turns.")
    constraints = [f"- {_one_line(t.text, 200)}" for t in users if _CONSTRAINT.search(t.text)]
    sections["## Constraints & Preferences"] = constraints or keep("## Constraints & Preferences", "None stated.")
    actions = _actions(turns, previous)
    sections["## Completed Actions"] = [f"{n}. {a}" for n, a in enumerate(actions, 1)] or ["None."]
    counts = {role: sum(1 for t in turns if t.role == role) for role in ("USER", "ASSISTANT", "TOOL")}
    sections["## Active State"] = [
        f"- Compacted {len(turns)} turns: {counts['USER']} user, {counts['ASSISTANT']} assistant, "
        f"{counts['TOOL']} tool results."
    ]
    sections["## In Progress"] = ["None." if answered or not users else f'Answering: "{_one_line(users[-1].text)}"']
    blocked = [f"- {_one_line(t.text, 200)}" for t in turns if t.role == "TOOL" and _ERROR.search(t.text)]
    sections["## Blocked"] = blocked[-5:] or ["None."]
    sections["## Key Decisions"] = keep("## Key Decisions", "None recorded.")
    resolved = []
    for i, turn in enumerate(turns):
        if turn.role == "USER" and turn.text.rstrip().endswith("?"):
            reply = next((t for t in turns[i + 1 :] if t.role == "ASSISTANT" and t.text), None)
            if reply is not None:
                resolved.append(f"- {_one_line(turn.text, 120)} → {_one_line(reply.text, 160)}")
    sections["## Resolved Questions"] = resolved or keep("## Resolved Questions", "None.")
    pending = [] if answered or not users else [f'- "{_one_line(users[-1].text)}"']
    sections["## Pending User Asks"] = pending or ["None."]
    files = _files(turns, previous)
    sections["## Relevant Files"] = [f"- {path}" for path in files] or ["None."]
    sections["## Remaining Work"] = ["Continue from the Active Task above; the recent messages follow."]
    sections["## Critical Context"] = [
        "Written by the offline demo model: a deterministic digest of the compacted turns, not a real model's summary."
    ]
    return "\n\n".join(heading + "\n" + "\n".join(sections[heading]) for heading in HEADINGS)
