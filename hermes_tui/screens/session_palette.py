"""`SessionJumpProvider`: the command palette (Ctrl-P) also jumps to a session by its title.

When the palette opens, the provider reads every titled session once (the store's lineage tree,
cached until the file changes). Typing then matches titles fuzzily, as the rest of the palette
does: a cheap in-order-letters filter first, Textual's matcher scoring at most `MAX_SCORED`
survivors, so 10,000 sessions stay instant. Titles are highlighted as plain text (Textual's own
`Matcher.highlight` would read a title as markup). Choosing one opens it (the app's `open_session`, as
Enter in the Sessions tree does). Titles are untrusted: sanitised before they are shown.
"""

from __future__ import annotations

import re

from textual.command import Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

from hermes_tui.store.models import LineageNode
from hermes_tui.text_safety import visible
from hermes_tui.widgets.formatting import short_session_id

MAX_SCORED = 300
MAX_HITS = 20


def plain_highlight(matcher: Matcher, title: str) -> Content:
    """`title` as plain content (never markup) with the fuzzy match's letters styled."""
    content = Content(title)
    _score, offsets = matcher.fuzzy_search.match(matcher.query, title)
    for offset in offsets:
        if not title[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def in_order(query: str) -> re.Pattern[str]:
    """A pattern finding `query`'s letters in order (what a fuzzy match needs at least)."""
    letters = [re.escape(ch) for ch in query if not ch.isspace()]
    return re.compile(".*?".join(letters), re.IGNORECASE)


class SessionJumpProvider(Provider):
    """Palette entries "Open session: <title>"."""

    def __init__(self, screen, match_style=None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(screen, match_style)
        self._sessions: list[tuple[str, str]] = []  # (shown title, session id), newest first

    async def startup(self) -> None:
        agent = getattr(self.app, "agent", None)
        db = getattr(agent, "db", None)
        if db is None:
            return
        nodes: list[LineageNode] = await db.lineage_tree(include_archived=False)
        titled = sorted((n for n in nodes if n.title), key=lambda n: n.last_active, reverse=True)
        self._sessions = [(" ".join(visible(n.title or "").split()), n.id) for n in titled]

    def _open(self, session_id: str):  # type: ignore[no-untyped-def]
        def open_it() -> None:
            opener = getattr(self.app, "open_session", None)
            if opener is not None:
                opener(session_id)

        return open_it

    async def search(self, query: str) -> Hits:
        query = query.strip()
        if not query or not self._sessions:
            return
        pattern = in_order(query)
        survivors = [(title, sid) for title, sid in self._sessions if pattern.search(title)][:MAX_SCORED]
        matcher = self.matcher(query)
        scored = sorted(
            ((matcher.match(title), title, sid) for title, sid in survivors), key=lambda hit: hit[0], reverse=True
        )
        for score, title, sid in scored[:MAX_HITS]:
            if score <= 0:
                continue
            yield Hit(
                score,
                Content("Open session: ") + plain_highlight(matcher, title),
                self._open(sid),
                text=f"Open session: {title}",
                help=f"resume session {short_session_id(sid)}",
            )
