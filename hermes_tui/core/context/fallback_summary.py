"""The deterministic fallback handoff, built locally when no summary model could write one.

Owns `build_fallback_summary(turns, ...)`: recovers what it can from the raw turns being compacted
(user asks, actions as tool one-liners, blockers, relevant files, the last dropped turns) into the
same headings the summary model would use, redacted, prefixed with SUMMARY_PREFIX and capped at
8000 characters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from hermes_tui.core.context.constants import (
    FALLBACK_BLOCKER_MAX_CHARS,
    FALLBACK_MAX_ACTIONS,
    FALLBACK_MAX_BLOCKERS,
    FALLBACK_MAX_DROPPED_TURNS,
    FALLBACK_MAX_FILES,
    FALLBACK_SUMMARY_MAX_CHARS,
    FALLBACK_TURN_MAX_CHARS,
    FALLBACK_USER_ASK_HEAD,
    FALLBACK_USER_ASK_MAX_CHARS,
    FALLBACK_USER_ASK_TAIL,
)
from hermes_tui.core.context.markers import FALLBACK_TRUNCATION, with_summary_prefix
from hermes_tui.core.context.prune import tool_call_index
from hermes_tui.core.context.redact import mask_token, redact_sensitive_text
from hermes_tui.core.context.sizing import tool_call_arguments, tool_call_name
from hermes_tui.core.context.tool_oneliners import summarize_tool_result
from hermes_tui.core.messages import Message, content_text

_BLOCKER_RE = re.compile(r"\b(error|failed|exception|traceback|timeout|timed out|fatal)\b", re.IGNORECASE)
_GITHUB_TOKEN_RE = re.compile(r"gh[pousr]_[A-Za-z0-9_]{8,}")
_PATH_RE = re.compile(r"(?<![\w/.:-])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}\b")
_PATH_ARG_KEYS = ("path", "workdir", "file_path", "output_path")
_PREVIOUS_SUMMARY_EXCERPT = 1200


def _clean(text: str) -> str:
    """Redacted (honouring the global switch) and with GitHub tokens always masked."""
    return _GITHUB_TOKEN_RE.sub(lambda m: mask_token(m.group(0)), redact_sensitive_text(text))


def _user_ask(text: str) -> str:
    text = text.strip()
    if len(text) > FALLBACK_USER_ASK_MAX_CHARS:
        return text[:FALLBACK_USER_ASK_HEAD] + " ... " + text[-FALLBACK_USER_ASK_TAIL:]
    return text


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _relevant_files(turns: Sequence[Message]) -> list[str]:
    found: list[str] = []

    def add(path: str) -> None:
        path = path.strip()
        if path and path not in found and len(found) < FALLBACK_MAX_FILES:
            found.append(path)

    for message in turns:
        for call in message.get("tool_calls") or []:
            try:
                args = json.loads(tool_call_arguments(call) or "{}")
            except ValueError:
                args = {}
            if isinstance(args, dict):
                for key in _PATH_ARG_KEYS:
                    if isinstance(args.get(key), str):
                        add(args[key])
        for match in _PATH_RE.finditer(content_text(message.get("content"))[:20_000]):
            add(match.group(0))
        if len(found) >= FALLBACK_MAX_FILES:
            break
    return found


def build_fallback_summary(
    turns: Sequence[Message], *, failure_reason: str, previous_summary: str | None = None
) -> str:
    """A handoff summary recovered from `turns` without an LLM (SUMMARY_PREFIX + body, ≤ 8000 chars)."""
    calls = tool_call_index(turns)
    user_asks: list[str] = []
    actions: list[str] = []
    blockers: list[str] = []
    for message in turns:
        role = message.get("role")
        text = content_text(message.get("content"), "[image]")
        if role == "user" and text.strip():
            user_asks.append(_user_ask(text))
        elif role == "assistant":
            names = [tool_call_name(call) or "tool" for call in message.get("tool_calls") or []]
            if names:
                actions.append("Called tool(s): " + ", ".join(names))
            elif text.strip():
                actions.append(_one_line(text, 300))
        elif role == "tool":
            cid = str(message.get("tool_call_id") or "")
            name, arguments = calls.get(cid, (str(message.get("tool_name") or "tool"), ""))
            if text.startswith(f"[{name}]") and "\n" not in text:
                actions.append(text)  # already a one-liner (the prune pass wrote it)
            else:
                actions.append(summarize_tool_result(name, arguments, text))
            if _BLOCKER_RE.search(text):
                blockers.append(_one_line(text[:FALLBACK_BLOCKER_MAX_CHARS], FALLBACK_BLOCKER_MAX_CHARS))

    last_ask = f"User asked: '{_one_line(user_asks[-1], FALLBACK_USER_ASK_MAX_CHARS)}'" if user_asks else "None"
    goal = [
        "Recovered without a summary model: the compacted turns were condensed locally, so details "
        "beyond what is listed here may be missing."
    ]
    if previous_summary:
        excerpt = previous_summary.strip()[:_PREVIOUS_SUMMARY_EXCERPT]
        goal.append(f"An earlier compaction summary existed; its beginning was:\n{excerpt}")
    asks = [f"- {_one_line(ask, FALLBACK_USER_ASK_MAX_CHARS)}" for ask in user_asks[:10]]

    dropped_turns = []
    for message in turns[-FALLBACK_MAX_DROPPED_TURNS:]:
        text = content_text(message.get("content"), "[image]")
        if not text.strip() and message.get("tool_calls"):
            text = "Called tool(s): " + ", ".join(tool_call_name(c) or "tool" for c in message["tool_calls"])
        dropped_turns.append(f"{str(message.get('role') or '?').upper()}: {_one_line(text, FALLBACK_TURN_MAX_CHARS)}")

    files = _relevant_files(turns)
    failure = (
        f"Summary generation was unavailable, so this handoff was rebuilt locally for {len(turns)} "
        f"compacted message(s). Summary failure reason: {failure_reason or 'unknown'}"
    )

    def render() -> str:
        listed = [*goal, "Requests made in the compacted turns:", *asks] if asks else goal
        return _render(_sections(last_ask, listed, actions, blockers, files, dropped_turns, failure))

    summary = render()
    # Over the cap: give up the oldest dropped-turn lines, then the oldest listed requests, so the
    # failure reason at the end survives.
    while len(summary) > FALLBACK_SUMMARY_MAX_CHARS and (dropped_turns or asks):
        (dropped_turns or asks).pop(0)
        summary = render()
    if len(summary) > FALLBACK_SUMMARY_MAX_CHARS:
        summary = summary[: FALLBACK_SUMMARY_MAX_CHARS - len(FALLBACK_TRUNCATION)] + FALLBACK_TRUNCATION
    return summary


def _render(sections: list[tuple[str, str]]) -> str:
    return with_summary_prefix("\n\n".join(f"{heading}\n{_clean(text)}" for heading, text in sections))


def _sections(
    last_ask: str,
    goal: list[str],
    actions: list[str],
    blockers: list[str],
    files: list[str],
    dropped_turns: list[str],
    failure: str,
) -> list[tuple[str, str]]:
    return [
        ("## Active Task", last_ask),
        ("## Goal", "\n".join(goal)),
        (
            "## Constraints & Preferences",
            "- Treat this recovered summary as incomplete background.\n"
            "- Prefer re-reading files and re-checking state over trusting details from memory.\n"
            "- Ask the user when something important cannot be recovered.",
        ),
        (
            "## Completed Actions",
            "\n".join(f"{i}. {a}" for i, a in enumerate(actions[:FALLBACK_MAX_ACTIONS], 1)) or "None recorded.",
        ),
        ("## Active State", "Unknown — not recoverable without a summary; inspect the workspace."),
        ("## In Progress", last_ask),
        ("## Blocked", "\n".join(f"- {b}" for b in blockers[:FALLBACK_MAX_BLOCKERS]) or "None recorded."),
        ("## Key Decisions", "None recoverable from the compacted turns."),
        ("## Resolved Questions", "None recoverable from the compacted turns."),
        ("## Pending User Asks", last_ask),
        ("## Relevant Files", "\n".join(f"- {f}" for f in files) or "None recorded."),
        (
            "## Remaining Work",
            "Whatever the newest user message asks for; earlier work may be partly done, so check the "
            "current state before continuing.",
        ),
        ("## Last Dropped Turns", "\n".join(dropped_turns) or "None."),
        ("## Critical Context", failure),
    ]
