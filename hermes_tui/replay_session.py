"""A stored turn replayed on another route from the TUI, kept as a side session of its session.

`replay_routes` lists what the turn can be sent to: the model in use, the configured fallbacks
that can be called, and the offline demo model. `replay_as_side_session` sends the turn through
`replay.py`'s core (`load_turn` then `send`: one call, tool calls shown, never run) and stores
the outcome as a child session of the replayed one — its user message and the new answer, titled
"Replay of turn N on provider:model" — so it appears in the Sessions tree under its session and
can be opened, compared (F3) or searched like any other. The CLI's `replay` stays read-only.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_tui.config import ProviderChoice, Settings
from hermes_tui.replay import Replayed, StoredTurn, load_turn, send
from hermes_tui.store.db import SessionDB
from hermes_tui.store.ids import new_session_id

REPLAY_SOURCE = "replay"


@dataclass(frozen=True)
class SideReplay:
    """A replay done: the side session it was stored in, the turn and the new answer."""

    session_id: str
    label: str
    stored: StoredTurn
    replayed: Replayed


def route_label(choice: ProviderChoice) -> str:
    return f"{choice.provider}:{choice.model}"


def replay_routes(settings: Settings, primary: ProviderChoice) -> list[ProviderChoice]:
    """The model in use, the usable configured fallbacks, then the demo model (each route once)."""
    from hermes_tui.core.providers.chain import fallback_choices

    routes = [primary, *fallback_choices(settings, primary)]
    if not primary.is_demo:
        routes.append(ProviderChoice("demo", "demo", "", "", True, "the offline demo model"))
    unique: dict[tuple[str, str, str], ProviderChoice] = {}
    for choice in routes:
        unique.setdefault((choice.provider, choice.model, choice.base_url), choice)
    return list(unique.values())


def _reply_text(replayed: Replayed) -> str:
    calls = "\n".join(f"→ {call['name']}({call['arguments']}) — not run" for call in replayed.tool_calls)
    return "\n\n".join(part for part in (replayed.text.strip(), calls) if part) or "(an empty answer)"


async def replay_as_side_session(
    db: SessionDB, session_id: str, turn: int | None, settings: Settings, choice: ProviderChoice
) -> SideReplay:
    """Send turn `turn` (None = the last) of `session_id` to `choice`; store it as a child session.

    Raises `replay.ReplayError` (no such turn) and whatever the provider raises (the caller says it
    in one line)."""
    stored = await load_turn(db, session_id, turn)
    replayed = await send(stored, settings, choice)
    label = route_label(choice)
    side_id = new_session_id()
    await db.create_session(
        side_id,
        REPLAY_SOURCE,
        model=choice.model,
        system_prompt=stored.system_prompt or None,
        parent_session_id=stored.session_id,
        title=f"Replay of turn {stored.turn} on {label} · {side_id[-6:]}",
    )
    user = {"role": "user", "content": stored.prompt}
    await db.append_messages(side_id, [user, {"role": "assistant", "content": _reply_text(replayed)}])
    await db.end_session(side_id, "replay")
    return SideReplay(side_id, label, stored, replayed)
