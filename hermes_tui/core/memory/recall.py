"""`SessionRecallProvider`: recall from this user's own past sessions through the store's FTS index.

A real external memory provider shipped with hermes-tui (off by default; turn it on with
`memory.provider = "session_recall"`). Before each turn it takes the distinctive words of the
user's message, searches every stored message with them (an OR query over the FTS5 index, newest
first among the best matches), keeps hits from *other* lineages only (the current conversation is
already in the context), and offers up to `MAX_SNIPPETS` short snippets — each with the session's
title or id and date — for the API copy of the current user message. Nothing is written anywhere:
the store is the memory (an FTS query costs milliseconds, so there is nothing to queue).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from hermes_tui.core.memory.provider import MemoryProvider, ProviderContext

MAX_SNIPPETS = 3
MAX_TERMS = 8
MIN_TERM_CHARS = 4
SNIPPET_CHARS = 240
SEARCH_LIMIT = 20
STOPWORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "also",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "from",
        "further",
        "have",
        "having",
        "here",
        "hers",
        "herself",
        "himself",
        "into",
        "itself",
        "just",
        "more",
        "most",
        "myself",
        "once",
        "only",
        "other",
        "ours",
        "ourselves",
        "over",
        "same",
        "should",
        "some",
        "such",
        "than",
        "that",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "what",
        "when",
        "where",
        "which",
        "while",
        "whom",
        "will",
        "with",
        "would",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "please",
        "thanks",
        "thank",
        "want",
        "need",
        "like",
        "make",
        "sure",
        "tell",
        "know",
    ]
)
_WORD = re.compile(r"[\w][\w.+-]*[\w]|\w", re.UNICODE)


def query_terms(text: str) -> list[str]:
    """The distinctive words of `text`, in order, without repeats or common words."""
    seen: list[str] = []
    for word in _WORD.findall(text.lower()):
        if len(word) >= MIN_TERM_CHARS and word not in STOPWORDS and not word.isdigit() and word not in seen:
            seen.append(word)
        if len(seen) >= MAX_TERMS:
            break
    return seen


def _clean(snippet: str) -> str:
    text = re.sub(r"\s+", " ", snippet.replace(">>>", "").replace("<<<", "")).strip()
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


class SessionRecallProvider(MemoryProvider):
    """Relevant snippets from other lineages of this user's past sessions, prefetched per turn."""

    name = "session_recall"

    def __init__(self, context: ProviderContext) -> None:
        self._db = context.db

    async def _lineage(self, session_id: str) -> set[str]:
        if self._db is None or not session_id:
            return set()
        root = await self._db.lineage_root(session_id)
        return {root, session_id}

    async def recall(self, query: str, session_id: str) -> str:
        """The recall text for `query` ("" when nothing relevant is stored)."""
        terms = query_terms(query)
        if self._db is None or not terms:
            return ""
        fts_query = " OR ".join(f'"{term}"' for term in terms)
        hits = await self._db.search_messages(fts_query, role_filter=["user", "assistant"], limit=SEARCH_LIMIT)
        own = await self._lineage(session_id)
        lines: list[str] = []
        seen_sessions: set[str] = set()
        for hit in hits:
            sid = str(hit.get("session_id") or "")
            root = str(hit.get("lineage_root_id") or sid)
            if sid in own or root in own or sid in seen_sessions:
                continue
            snippet = _clean(str(hit.get("snippet") or ""))
            if not snippet:
                continue
            seen_sessions.add(sid)
            lines.append(f"- {await self._label(sid, hit)} ({hit.get('role')}): {snippet}")
            if len(lines) >= MAX_SNIPPETS:
                break
        if not lines:
            return ""
        return "Possibly relevant notes from the user's earlier sessions (for reference only):\n" + "\n".join(lines)

    async def _label(self, session_id: str, hit: dict[str, Any]) -> str:
        row = await self._db.get_session(session_id) if self._db is not None else None
        title = (row or {}).get("title")
        started = hit.get("session_started") or (row or {}).get("started_at")
        day = datetime.fromtimestamp(float(started)).strftime("%Y-%m-%d") if started else "undated"
        return f"session “{title}” {day}" if title else f"session {session_id} {day}"

    async def prefetch(self, query: str, session_id: str) -> str:
        return await self.recall(query, session_id)
