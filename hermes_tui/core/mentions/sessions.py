"""`@session:` mentions: the session titles to complete, and the answer a mention quotes.

`session_choices(db, query)` offers the titled sessions (archived ones left out), newest activity
first, whose title holds the typed letters in order. `quote_session(db, reference)` finds the
session a reference names (an id, its shown 6-character tail, a prefix or a title — the one
matcher every command uses — then the tip of its compression chain) and returns its last
assistant answer in a delimited block, or one line saying why there is none. Titles and answers
are stored text: they are quoted as they are and never reach a terminal from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermes_tui.core.messages import content_text
from hermes_tui.store.errors import StoreError

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

MAX_CHOICES = 30
MAX_QUOTED_CHARS = 20_000


@dataclass(frozen=True)
class SessionChoice:
    """A session a completion may offer: its title and id."""

    title: str
    session_id: str


def _in_order(query: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(char) for char in query if not char.isspace()), re.IGNORECASE)


async def session_choices(db: SessionDB, query: str, limit: int = MAX_CHOICES) -> list[SessionChoice]:
    """The titled sessions matching `query` (all of them for ""), most recently active first."""
    nodes = await db.lineage_tree(include_archived=False)
    pattern = _in_order(query)
    titled = sorted((node for node in nodes if node.title), key=lambda node: node.last_active, reverse=True)
    choices: list[SessionChoice] = []
    for node in titled:
        title = " ".join((node.title or "").split())
        if pattern.search(title) or node.id.startswith(query):
            choices.append(SessionChoice(title, node.id))
        if len(choices) >= limit:
            break
    return choices


@dataclass(frozen=True)
class Quote:
    """What an `@session:` mention adds: the block for the model, or why there is none."""

    block: str = ""
    note: str = ""
    session_id: str = ""


def quote_block(session_id: str, title: str | None, answer: str) -> str:
    cut = ""
    if len(answer) > MAX_QUOTED_CHARS:
        cut = f' note="the first {MAX_QUOTED_CHARS:,} of {len(answer):,} characters"'
        answer = answer[:MAX_QUOTED_CHARS]
    label = f' title="{" ".join(title.split())}"' if title else ""
    return f'<session-answer session="{session_id}"{label}{cut}>\n{answer}\n</session-answer>'


async def quote_session(db: SessionDB, reference: str) -> Quote:
    """The last answer of the session `reference` names, as a block; a note when it cannot be quoted."""
    try:
        session_id = await db.resolve_session(reference)
        messages = await db.get_messages_as_conversation(session_id)
        title = await db.get_session_title(session_id)
    except StoreError as exc:
        return Quote(note=f"@session:{reference} not quoted: {exc}")
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        answer = content_text(message.get("content")).strip()
        if answer:
            return Quote(quote_block(session_id, title, answer), session_id=session_id)
    return Quote(note=f"@session:{reference} not quoted: that session has no answer yet", session_id=session_id)
