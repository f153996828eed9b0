"""`hermes-tui replay SESSION [--turn N]`: a stored turn sent again to another provider/model, side by side.

The turn is a user message of the session (1 = its first; default: the last). The request is what
the original call saw: the session's stored system prompt, the history up to and including that
user message, and the tool schemas (so a history with tool calls stays valid on every wire). It
is one call: tool calls the new model asks for are shown, never run. The stored answer is the last
assistant text of that turn.

Read-only by design: state.db is opened read-only and the replay is not stored anywhere (the
answer exists only on the terminal, or in the `--json` object for scripts). Output is two
columns sized to the terminal (stacked when it is narrower than `SIDE_BY_SIDE_MIN` columns);
every text from the store or the model goes through `text_safety.visible`.
Errors are one line: unknown session, no such turn, a provider that cannot be built (exit 2), a
provider call that failed (exit 1).
"""

from __future__ import annotations

import shutil
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from hermes_tui import exit_codes
from hermes_tui.config import ProviderChoice, Settings
from hermes_tui.core.messages import Message, content_text
from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import StoreError
from hermes_tui.text_safety import dumps_for_terminal, visible

SIDE_BY_SIDE_MIN = 80
GUTTER = " │ "


class ReplayError(Exception):
    """A one-line reason the replay cannot be made (exit 2)."""


@dataclass
class StoredTurn:
    session_id: str
    turn: int
    turns: int
    system_prompt: str
    history: list[Message]  # up to and including the user message
    prompt: str
    answer: str
    model: str


@dataclass
class Replayed:
    text: str = ""
    tool_calls: list[dict[str, str]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)


async def load_turn(db: SessionDB, reference: str, turn: int | None) -> StoredTurn:
    """The stored turn `turn` (1-based; None = the last) of the session `reference` names."""
    session_id = await db.resolve_session(reference, follow_tip=False)
    row = await db.get_session(session_id) or {}
    messages = await db.get_messages_as_conversation(session_id)
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    if not users:
        raise ReplayError(f"session {session_id} has no user turn to replay")
    index = len(users) if turn is None else turn
    if not 1 <= index <= len(users):
        raise ReplayError(f"session {session_id} has {len(users)} turn(s); --turn {turn} does not exist")
    start = users[index - 1]
    end = users[index] if index < len(users) else len(messages)
    answers = [content_text(m.get("content")) for m in messages[start + 1 : end] if m.get("role") == "assistant"]
    answers = [text for text in answers if text.strip()]
    return StoredTurn(
        session_id=session_id,
        turn=index,
        turns=len(users),
        system_prompt=str(row.get("system_prompt") or ""),
        history=messages[: start + 1],
        prompt=content_text(messages[start].get("content"), "[image]"),
        answer=answers[-1] if answers else "",
        model=str(row.get("model") or ""),
    )


async def send(stored: StoredTurn, settings: Settings, choice: ProviderChoice) -> Replayed:
    """One call of the new provider with the stored request; tool calls are collected, not run."""
    from hermes_tui.core.bootstrap import build_registry
    from hermes_tui.core.providers.base import ChatRequest
    from hermes_tui.core.providers.factory import make_provider
    from hermes_tui.core.turn.api_messages import build_api_messages
    from hermes_tui.core.turn.streaming import StreamAccumulator

    provider = make_provider(
        choice,
        max_tokens=settings.model.max_tokens,
        reasoning_effort=settings.model.reasoning_effort,
        timeouts=settings.timeouts,
    )
    try:
        request = ChatRequest(
            messages=build_api_messages(stored.history, stored.system_prompt or None),
            tools=build_registry().schemas(),
            max_tokens=settings.model.max_tokens,
            cache_ttl=settings.prompt_caching.cache_ttl,
        )
        acc = StreamAccumulator()
        async for event in provider.stream(request):
            acc.feed(event)
    finally:
        await provider.aclose()
    usage = acc.usage.as_dict() if acc.usage is not None else {}
    calls = [{"name": call.name, "arguments": call.arguments} for call in acc.tool_calls]
    return Replayed(text=acc.text, tool_calls=calls, usage=usage)


# --------------------------------------------------------------------------- output


def _shown_reply(replayed: Replayed) -> str:
    lines = [replayed.text.strip()] if replayed.text.strip() else []
    lines += [f"[would call {call['name']} {call['arguments'][:200]}]" for call in replayed.tool_calls]
    return "\n".join(lines) or "(empty answer)"


def _wrap(text: str, width: int) -> list[str]:
    out: list[str] = []
    for line in visible(text).splitlines() or [""]:
        out += textwrap.wrap(line, width, replace_whitespace=False, drop_whitespace=True) or [""]
    return out


def render(stored: StoredTurn, replayed: Replayed, label: str, width: int) -> str:
    """The two answers side by side in `width` columns (stacked below `SIDE_BY_SIDE_MIN`)."""
    head = f"Replay of turn {stored.turn}/{stored.turns} of session {stored.session_id}"
    prompt = _wrap("> " + stored.prompt.strip(), max(20, width))[:4]
    left_title = f"stored ({stored.model or 'unknown model'})"
    right_title = f"replay ({label})"
    left_text = stored.answer.strip() or "(no stored answer)"
    right_text = _shown_reply(replayed)
    lines = [visible(head), *prompt, ""]
    if width < SIDE_BY_SIDE_MIN:
        for title, text in ((left_title, left_text), (right_title, right_text)):
            lines += [visible(title), "─" * min(width, len(title)), *_wrap(text, width), ""]
        return "\n".join(lines).rstrip() + "\n"
    column = (width - len(GUTTER)) // 2
    left = [visible(left_title)[:column], "─" * column, *_wrap(left_text, column)]
    right = [visible(right_title)[:column], "─" * column, *_wrap(right_text, column)]
    for index in range(max(len(left), len(right))):
        a = left[index] if index < len(left) else ""
        b = right[index] if index < len(right) else ""
        lines.append((a.ljust(column) + GUTTER + b).rstrip())
    return "\n".join(lines) + "\n"


def as_json(stored: StoredTurn, replayed: Replayed, choice: ProviderChoice) -> dict[str, Any]:
    return {
        "session_id": stored.session_id,
        "turn": stored.turn,
        "turns": stored.turns,
        "prompt": stored.prompt,
        "stored": {"model": stored.model or None, "answer": stored.answer},
        "replay": {
            "provider": choice.provider,
            "model": choice.model,
            "answer": replayed.text,
            "tool_calls": replayed.tool_calls,
            "usage": replayed.usage,
        },
        "stored_in_session": False,
    }


async def replay_command(
    db_path: Path,
    reference: str,
    turn: int | None,
    settings: Settings,
    choice: ProviderChoice,
    out: TextIO,
    err: TextIO,
    *,
    as_json_output: bool,
) -> int:
    try:
        db = await SessionDB.open(db_path, read_only=True)
    except StoreError as exc:
        raise ReplayError(str(exc)) from None
    try:
        stored = await load_turn(db, reference, turn)
    except StoreError as exc:
        raise ReplayError(str(exc)) from None
    finally:
        await db.close()
    label = f"{choice.provider}:{choice.model}"
    try:
        replayed = await send(stored, settings, choice)
    except Exception as exc:  # any provider failure is one line, never a traceback
        from hermes_tui.core.turn.errors import classify_api_error

        classified = classify_api_error(exc, provider=choice.provider, model=choice.model)
        reason = classified.message or str(exc) or type(exc).__name__
        print(f"hermes-tui: error: replay on {label} failed ({classified.reason.value}): {visible(reason)}", file=err)
        return exit_codes.FAILED
    if as_json_output:
        out.write(dumps_for_terminal(as_json(stored, replayed, choice)) + "\n")
    else:
        out.write(render(stored, replayed, label, shutil.get_terminal_size((100, 24)).columns))
    return exit_codes.OK
