"""Windows of messages around an anchor, for the session_search tool and the UI's jump-to-hit.

`get_messages_around` is the scroll view (±window, every role). `get_anchored_view` is the
discover view: ±window filtered to user/assistant with the anchor always kept and flagged, the
first/last few non-empty turns outside the window as bookends, and how many rows lie outside.
Content is flattened to text and truncated so a view stays small. Both read the rows search
finds: live ones and those an in-place compaction archived (marked `"compacted": true`), never
rewound ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_tui.store.base import StoreBase
from hermes_tui.store.codec import decode_content, flatten_text, truncate

VIEW_CONTENT_CHARS = 1000
BOOKEND_CONTENT_CHARS = 300
CONVERSATION_ROLES = ("user", "assistant")

_COLUMNS = "id, role, content, tool_name, tool_calls, timestamp"


def _view_item(row: Any, limit: int) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": row["id"],
        "role": row["role"],
        "content": truncate(flatten_text(decode_content(row["content"])), limit),
        "timestamp": row["timestamp"],
    }
    if row["tool_name"]:
        item["tool_name"] = row["tool_name"]
    if row["tool_calls"] and not item["content"]:
        item["content"] = "(requested tool calls)"
    if "compacted" in row.keys() and row["compacted"]:  # noqa: SIM118 (a sqlite3.Row: `in` looks at its values)
        item["compacted"] = True  # summarised away by an in-place compaction; kept in the record
    return item


class ViewsMixin(StoreBase):
    @property
    def _view_sql(self) -> tuple[str, str]:
        """(columns, row filter) of the views: `compacted` too, where the file has it."""
        columns = f"{_COLUMNS}, compacted" if self.has_compacted_column else _COLUMNS
        return columns, self.visible_rows_sql("")

    async def _window(self, session_id: str, message_id: int, window: int) -> tuple[list[Any], Any, list[Any]]:
        columns, visible = self._view_sql
        anchor = await self._conns.fetchone(
            f"SELECT {columns} FROM messages WHERE id = ? AND session_id = ? AND {visible}",
            (message_id, session_id),
        )
        if anchor is None:
            return [], None, []
        before = await self._conns.fetchall(
            f"SELECT {columns} FROM messages WHERE session_id = ? AND {visible} AND id < ? ORDER BY id DESC LIMIT ?",
            (session_id, message_id, window),
        )
        after = await self._conns.fetchall(
            f"SELECT {columns} FROM messages WHERE session_id = ? AND {visible} AND id > ? ORDER BY id LIMIT ?",
            (session_id, message_id, window),
        )
        return list(reversed(before)), anchor, after

    async def _count_outside(self, session_id: str, first_id: int, last_id: int) -> tuple[int, int]:
        row = await self._conns.fetchone(
            f"SELECT SUM(id < ?), SUM(id > ?) FROM messages WHERE session_id = ? AND {self._view_sql[1]}",
            (first_id, last_id, session_id),
        )
        return (int(row[0] or 0), int(row[1] or 0)) if row else (0, 0)

    async def get_messages_around(self, session_id: str, message_id: int, window: int = 5) -> dict[str, Any] | None:
        """±`window` active messages around `message_id` (None when it is not in the session)."""
        before, anchor, after = await self._window(session_id, message_id, window)
        if anchor is None:
            return None
        rows = [*before, anchor, *after]
        messages = [_view_item(row, VIEW_CONTENT_CHARS) for row in rows]
        for item in messages:
            if item["id"] == message_id:
                item["anchor"] = True
        count_before, count_after = await self._count_outside(session_id, rows[0]["id"], rows[-1]["id"])
        return {"messages": messages, "messages_before": count_before, "messages_after": count_after}

    async def get_anchored_view(
        self,
        session_id: str,
        message_id: int,
        window: int = 5,
        bookend: int = 3,
        roles: Sequence[str] = CONVERSATION_ROLES,
    ) -> dict[str, Any] | None:
        """The discover view around a hit (module docstring); None when the anchor is not there."""
        before, anchor, after = await self._window(session_id, message_id, window)
        if anchor is None:
            return None
        rows = [*before, anchor, *after]
        first_id, last_id = rows[0]["id"], rows[-1]["id"]
        messages = []
        for row in rows:
            if row["id"] == message_id:
                messages.append({**_view_item(row, VIEW_CONTENT_CHARS), "anchor": True})
            elif row["role"] in roles:
                messages.append(_view_item(row, VIEW_CONTENT_CHARS))
        role_marks = ", ".join("?" for _ in roles)
        nonempty = f"role IN ({role_marks}) AND content IS NOT NULL AND content != ''"
        columns, visible = self._view_sql
        start = await self._conns.fetchall(
            f"SELECT {columns} FROM messages WHERE session_id = ? AND {visible} AND id < ? AND {nonempty}"
            " ORDER BY id LIMIT ?",
            (session_id, first_id, *roles, bookend),
        )
        end = await self._conns.fetchall(
            f"SELECT {columns} FROM messages WHERE session_id = ? AND {visible} AND id > ? AND {nonempty}"
            " ORDER BY id DESC LIMIT ?",
            (session_id, last_id, *roles, bookend),
        )
        count_before, count_after = await self._count_outside(session_id, first_id, last_id)
        return {
            "messages": messages,
            "bookend_start": [_view_item(row, BOOKEND_CONTENT_CHARS) for row in start],
            "bookend_end": [_view_item(row, BOOKEND_CONTENT_CHARS) for row in reversed(end)],
            "messages_before": count_before,
            "messages_after": count_after,
        }
