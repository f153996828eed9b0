"""Message rows: appending (one or many), rewriting, updating one in place, reading back, rewind/restore.

Owns the `messages` writes and the reads that rebuild a conversation (reference §2.4-2.5).
Every append bumps `sessions.message_count`; assistant tool calls bump `tool_call_count` by
their number (tool-result rows never do). Reads are in insertion order (`ORDER BY id`), skip
inactive rows unless asked, and decode the JSON sentinel and JSON columns.

Two kinds of inactive row (schema v21): rewound (`/undo`: `active = 0, compacted = 0`) and
compacted (Hermes's in-place compaction, `archive_and_compact`: `active = 0, compacted = 1` —
summarised away from the live context, kept in the record and found by search). Restoring
rewound rows never revives compacted ones, and rewriting a history keeps them.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from hermes_tui.store.base import StoreBase, row_dict
from hermes_tui.store.codec import (
    decode_content,
    decode_json_field,
    encode_content,
    encode_json_field,
    sanitize_context,
)
from hermes_tui.store.connection import fetch_in, tuples
from hermes_tui.store.lineage_queries import compression_ancestry

_INSERT_SQL = (
    "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp,"
    " token_count, finish_reason, reasoning, reasoning_content, reasoning_details,"
    " codex_reasoning_items, codex_message_items, active)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)"
)
_UPDATE_SQL = (
    "UPDATE messages SET role = ?, content = ?, tool_call_id = ?, tool_calls = ?, tool_name = ?,"
    " token_count = ?, finish_reason = ?, reasoning = ?, reasoning_content = ?, reasoning_details = ?,"
    " codex_reasoning_items = ?, codex_message_items = ? WHERE id = ?"
)
_JSON_EXTRAS = frozenset({"reasoning_details", "codex_reasoning_items", "codex_message_items"})
SESSION_META_ROLE = "session_meta"


def tool_call_total(role: str, tool_calls: Any) -> int:
    """How many tool calls a row adds to `tool_call_count` (tool-result rows add none)."""
    if role == "tool" or not tool_calls:
        return 0
    return len(tool_calls) if isinstance(tool_calls, list) else 1


def _insert_params(session_id: str, message: dict[str, Any], timestamp: float) -> tuple[Any, ...]:
    role = message.get("role")
    if not role:
        raise ValueError("a message needs a role")
    return (
        session_id,
        str(role),
        encode_content(message.get("content")),
        message.get("tool_call_id"),
        encode_json_field(message.get("tool_calls") or None),
        message.get("tool_name"),
        timestamp,
        message.get("token_count"),
        message.get("finish_reason"),
        message.get("reasoning"),
        message.get("reasoning_content"),
        encode_json_field(message.get("reasoning_details")),
        encode_json_field(message.get("codex_reasoning_items")),
        encode_json_field(message.get("codex_message_items")),
    )


def _append_rows(
    conn: sqlite3.Connection, session_id: str, messages: Sequence[dict[str, Any]], now: float
) -> list[int]:
    """Insert `messages` in order and bump the session's counters; returns their ids."""
    rows = [_insert_params(session_id, message, now + i * 1e-6) for i, message in enumerate(messages)]
    tool_calls = sum(tool_call_total(str(m.get("role")), m.get("tool_calls")) for m in messages)
    if len(rows) == 1:
        cursor = conn.execute(_INSERT_SQL, rows[0])
        last_id = int(cursor.lastrowid or 0)
    else:
        conn.executemany(_INSERT_SQL, rows)
        last_id = int((fetch_in(conn, "SELECT last_insert_rowid()"))[0][0])
    conn.execute(
        "UPDATE sessions SET message_count = COALESCE(message_count, 0) + ?,"
        " tool_call_count = COALESCE(tool_call_count, 0) + ? WHERE id = ?",
        (len(rows), tool_calls, session_id),
    )
    # Inside one IMMEDIATE transaction AUTOINCREMENT ids are consecutive.
    return list(range(last_id - len(rows) + 1, last_id + 1))


def _stored_tool_calls(conn: sqlite3.Connection, session_id: str, message_id: int) -> int:
    old = fetch_in(
        conn, "SELECT role, tool_calls FROM messages WHERE id = ? AND session_id = ?", (message_id, session_id)
    )
    if not old:
        raise ValueError(f"message {message_id} is not in session {session_id}")
    return tool_call_total(old[0]["role"], decode_json_field(old[0]["tool_calls"]))


def _rewrite_row(conn: sqlite3.Connection, session_id: str, message_id: int, message: dict[str, Any]) -> None:
    """Rewrite one row in place (same columns as an insert; id and timestamp kept)."""
    old_calls = _stored_tool_calls(conn, session_id, message_id)
    params = _insert_params(session_id, message, 0.0)
    conn.execute(_UPDATE_SQL, (*params[1:6], *params[7:], message_id))
    new_calls = tool_call_total(str(message.get("role")), message.get("tool_calls"))
    if new_calls != old_calls:
        conn.execute(
            "UPDATE sessions SET tool_call_count = MAX(0, COALESCE(tool_call_count, 0) + ?) WHERE id = ?",
            (new_calls - old_calls, session_id),
        )


def _delete_row(conn: sqlite3.Connection, session_id: str, message_id: int) -> bool:
    """Delete one row and take it off the session's counters; False when it is not there."""
    try:
        calls = _stored_tool_calls(conn, session_id, message_id)
    except ValueError:
        return False
    conn.execute("DELETE FROM messages WHERE id = ?", (message_id,))
    conn.execute(
        "UPDATE sessions SET message_count = MAX(0, COALESCE(message_count, 0) - 1),"
        " tool_call_count = MAX(0, COALESCE(tool_call_count, 0) - ?) WHERE id = ?",
        (calls, session_id),
    )
    return True


def decode_row(row: Any) -> dict[str, Any]:
    """A messages row as a dict with content and the JSON columns decoded."""
    message = row_dict(row) or {}
    message["content"] = decode_content(message.get("content"))
    message["tool_calls"] = decode_json_field(message.get("tool_calls"))
    for key in _JSON_EXTRAS:
        if key in message:
            message[key] = decode_json_field(message[key])
    return message


# Columns `conversation_message` reads, in this order.
CONVERSATION_COLUMNS = (
    "id, role, content, tool_call_id, tool_name, tool_calls, platform_message_id, observed, finish_reason,"
    " reasoning, reasoning_content, reasoning_details, codex_reasoning_items, codex_message_items"
)


def conversation_message(row: Any) -> dict[str, Any]:
    """One stored row (CONVERSATION_COLUMNS) as an OpenAI-format message dict, with `_db_id`."""
    (
        row_id,
        role,
        content,
        tool_call_id,
        tool_name,
        tool_calls,
        platform_message_id,
        observed,
        finish_reason,
        reasoning,
        reasoning_content,
        reasoning_details,
        codex_reasoning_items,
        codex_message_items,
    ) = row
    content = decode_content(content)
    if isinstance(content, str) and (role == "user" or role == "assistant"):
        if "memory-context" in content or "[System note" in content:
            content = sanitize_context(content)
        content = content.strip()
    message: dict[str, Any] = {"role": role, "content": content}
    if tool_call_id:
        message["tool_call_id"] = tool_call_id
    if tool_name:
        message["tool_name"] = tool_name
    if tool_calls:
        message["tool_calls"] = decode_json_field(tool_calls)
    if platform_message_id:
        message["message_id"] = platform_message_id
    if observed:
        message["observed"] = True
    if role == "assistant":
        if finish_reason:
            message["finish_reason"] = finish_reason
        if reasoning:
            message["reasoning"] = reasoning
        # An empty reasoning_content is meaningful to some providers: restore it as "".
        if reasoning_content is not None:
            message["reasoning_content"] = reasoning_content
        for key, value in (
            ("reasoning_details", reasoning_details),
            ("codex_reasoning_items", codex_reasoning_items),
            ("codex_message_items", codex_message_items),
        ):
            if value:
                message[key] = decode_json_field(value)
    message["_db_id"] = row_id
    return message


def _dedupe_repeated_user_turns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop a user message that repeats the previous user message with no assistant text between."""
    result: list[dict[str, Any]] = []
    last_user: Any = None
    assistant_since = False
    for message in messages:
        role = message.get("role")
        if role == "user":
            if last_user is not None and message.get("content") == last_user and not assistant_since:
                continue
            last_user = message.get("content")
            assistant_since = False
        elif role == "assistant" and message.get("content"):
            assistant_since = True
        result.append(message)
    return result


class MessagesMixin(StoreBase):
    async def append_message(
        self,
        session_id: str,
        role: str,
        content: Any = None,
        tool_name: str | None = None,
        tool_calls: Any = None,
        tool_call_id: str | None = None,
        token_count: int | None = None,
        finish_reason: str | None = None,
        reasoning: str | None = None,
        reasoning_content: str | None = None,
        reasoning_details: Any = None,
        codex_reasoning_items: Any = None,
        codex_message_items: Any = None,
    ) -> int:
        """Insert one message (timestamp now) and bump the session counters; returns its id."""
        message = {
            "role": role,
            "content": content,
            "tool_name": tool_name,
            "tool_calls": tool_calls,
            "tool_call_id": tool_call_id,
            "token_count": token_count,
            "finish_reason": finish_reason,
            "reasoning": reasoning,
            "reasoning_content": reasoning_content,
            "reasoning_details": reasoning_details,
            "codex_reasoning_items": codex_reasoning_items,
            "codex_message_items": codex_message_items,
        }
        ids = await self.append_messages(session_id, [message])
        return ids[0]

    async def append_messages(self, session_id: str, messages: Sequence[dict[str, Any]]) -> list[int]:
        """Insert many messages in one transaction, in order; same counting as `append_message`.

        Underscore keys (in-memory flags) are ignored. Raises ValueError for an unknown session.
        """
        if not messages:
            return []
        now = time.time()

        def work(conn: sqlite3.Connection) -> list[int]:
            self._require_session(conn, session_id)
            return _append_rows(conn, session_id, messages, now)

        return await self._conns.write(work)

    async def replace_messages(self, session_id: str, messages: Sequence[dict[str, Any]]) -> list[int]:
        """Rewrite a session's history in one transaction (/retry, /undo, rewrites).

        Rows an in-place compaction archived (`compacted = 1`) are kept: they are the record of
        what the live history replaced (Hermes's `replace_messages(active_only=True)` rule).
        """
        now = time.time()
        rows = [_insert_params(session_id, message, now + i * 1e-6) for i, message in enumerate(messages)]
        tool_calls = sum(tool_call_total(str(m.get("role")), m.get("tool_calls")) for m in messages)

        def work(conn: sqlite3.Connection) -> list[int]:
            self._require_session(conn, session_id)
            conn.execute(
                "DELETE FROM messages WHERE session_id = ? AND NOT (active = 0 AND compacted = 1)", (session_id,)
            )
            ids: list[int] = []
            if rows:
                conn.executemany(_INSERT_SQL, rows)
                last_id = int((fetch_in(conn, "SELECT last_insert_rowid()"))[0][0])
                ids = list(range(last_id - len(rows) + 1, last_id + 1))
            conn.execute(
                "UPDATE sessions SET message_count = ?, tool_call_count = ? WHERE id = ?",
                (len(rows), tool_calls, session_id),
            )
            return ids

        return await self._conns.write(work)

    async def archive_and_compact(self, session_id: str, messages: Sequence[dict[str, Any]]) -> list[int]:
        """Hermes's in-place compaction, in one transaction: every live row of the session becomes
        `active = 0, compacted = 1` (kept, searchable) and `messages` are inserted as the new live
        rows; `message_count` / `tool_call_count` then count the live rows. Returns the new ids.
        """
        now = time.time()
        rows = [_insert_params(session_id, message, now + i * 1e-6) for i, message in enumerate(messages)]
        tool_calls = sum(tool_call_total(str(m.get("role")), m.get("tool_calls")) for m in messages)

        def work(conn: sqlite3.Connection) -> list[int]:
            self._require_session(conn, session_id)
            conn.execute(
                "UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ? AND active = 1", (session_id,)
            )
            ids: list[int] = []
            if rows:
                conn.executemany(_INSERT_SQL, rows)
                last_id = int((fetch_in(conn, "SELECT last_insert_rowid()"))[0][0])
                ids = list(range(last_id - len(rows) + 1, last_id + 1))
            conn.execute(
                "UPDATE sessions SET message_count = ?, tool_call_count = ? WHERE id = ?",
                (len(rows), tool_calls, session_id),
            )
            return ids

        return await self._conns.write(work)

    async def settle_row_and_append(
        self, session_id: str, message_id: int, message: dict[str, Any] | None, messages: Sequence[dict[str, Any]]
    ) -> list[int]:
        """In one transaction: rewrite row `message_id` as `message` (delete it when None), then append.

        The streamed-answer row is written early and settled this way when the turn moves on, so a
        crash never finds the answer's tool calls stored without the results appended after them.
        The rewritten row keeps its id and timestamp; the session's counters follow. Returns the
        appended rows' ids. Raises ValueError when the row is not one of the session's.
        """
        now = time.time()

        def work(conn: sqlite3.Connection) -> list[int]:
            self._require_session(conn, session_id)
            if message is None:
                _delete_row(conn, session_id, message_id)
            else:
                _rewrite_row(conn, session_id, message_id, message)
            return _append_rows(conn, session_id, messages, now) if messages else []

        return await self._conns.write(work)

    async def update_message_content(self, session_id: str, message_id: int, content: str) -> None:
        """Replace one row's text (the cheap write while an answer streams)."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE messages SET content = ? WHERE id = ? AND session_id = ?",
                (encode_content(content), message_id, session_id),
            )

        await self._conns.write(work)

    async def delete_message(self, session_id: str, message_id: int) -> bool:
        """Remove one row for good (a streamed answer that was not kept); the counters follow."""
        return await self._conns.write(lambda conn: _delete_row(conn, session_id, message_id))

    @staticmethod
    def _require_session(conn: sqlite3.Connection, session_id: str) -> None:
        if not fetch_in(conn, "SELECT 1 FROM sessions WHERE id = ?", (session_id,)):
            raise ValueError(f"session {session_id} does not exist")

    async def get_messages(self, session_id: str, include_inactive: bool = False) -> list[dict[str, Any]]:
        """Every stored column of the session's messages, decoded, in insertion order."""
        active = "" if include_inactive else " AND active = 1"
        sql = f"SELECT * FROM messages WHERE session_id = ?{active} ORDER BY id"
        return await self._conns.read(lambda conn: [decode_row(row) for row in fetch_in(conn, sql, (session_id,))])

    async def get_record_messages(self, session_id: str) -> list[dict[str, Any]]:
        """The session's record: live rows and those an in-place compaction archived (each with its
        `compacted` flag; never rewound rows), decoded, in insertion order (export, the inspector)."""
        sql = f"SELECT * FROM messages WHERE session_id = ? AND {self.visible_rows_sql('')} ORDER BY id"
        return await self._conns.read(lambda conn: [decode_row(row) for row in fetch_in(conn, sql, (session_id,))])

    async def count_compacted(self, session_id: str) -> int:
        """How many rows in-place compactions archived in the session (0 for a v14 file read as is)."""
        if not self.has_compacted_column:
            return 0
        sql = "SELECT COUNT(*) FROM messages WHERE session_id = ? AND active = 0 AND compacted = 1"
        return int(await self._conns.fetchvalue(sql, (session_id,)) or 0)

    async def get_message(self, message_id: int) -> dict[str, Any] | None:
        row = await self._conns.fetchone("SELECT * FROM messages WHERE id = ?", (message_id,))
        return None if row is None else decode_row(row)

    async def get_messages_as_conversation(
        self, session_id: str, include_ancestors: bool = False
    ) -> list[dict[str, Any]]:
        """The session as OpenAI-format messages, ready to continue (reference §2.5).

        With `include_ancestors`, the compression ancestors' messages come first (root -> this),
        and a user message repeating the previous one with no assistant text between is dropped.
        Each message carries its row id as `_db_id` (an in-memory key, never sent or stored).
        """
        session_ids = [session_id]
        if include_ancestors:
            session_ids = await compression_ancestry(self._conns, session_id)
        sql = f"SELECT {CONVERSATION_COLUMNS} FROM messages WHERE session_id = ? AND active = 1 ORDER BY id"

        def read(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            # Decoded on the connection's thread: a long session never blocks the event loop.
            return [conversation_message(row) for sid in session_ids for row in tuples(conn, sql, (sid,))]

        messages = await self._conns.read(read)
        if include_ancestors and len(session_ids) > 1:
            messages = _dedupe_repeated_user_turns(messages)
        return messages

    async def count_messages(self, session_id: str, include_inactive: bool = False) -> int:
        active = "" if include_inactive else " AND active = 1"
        return int(
            await self._conns.fetchvalue(f"SELECT COUNT(*) FROM messages WHERE session_id = ?{active}", (session_id,))
            or 0
        )

    # ------------------------------------------------------------------ rewind

    async def rewind_to_message(self, session_id: str, message_id: int) -> dict[str, Any] | None:
        """Soft-delete the user message `message_id` and everything after it (/undo).

        Returns `{rewound_count, target_message, new_head_id}`, or None when `message_id` is not
        an active user message of the session. `rewind_count` is incremented on every rewind.
        """

        def work(conn: sqlite3.Connection) -> dict[str, Any] | None:
            target = fetch_in(
                conn,
                f"SELECT {CONVERSATION_COLUMNS} FROM messages WHERE id = ? AND session_id = ? AND active = 1",
                (message_id, session_id),
            )
            if not target or target[0]["role"] != "user":
                return None
            cursor = conn.execute(
                "UPDATE messages SET active = 0 WHERE session_id = ? AND id >= ? AND active = 1",
                (session_id, message_id),
            )
            rewound = cursor.rowcount
            conn.execute("UPDATE sessions SET rewind_count = COALESCE(rewind_count, 0) + 1 WHERE id = ?", (session_id,))
            head = fetch_in(
                conn,
                "SELECT MAX(id) FROM messages WHERE session_id = ? AND active = 1 AND id < ?",
                (session_id, message_id),
            )
            return {
                "rewound_count": rewound,
                "target_message": conversation_message(target[0]),
                "new_head_id": head[0][0] if head else None,
            }

        return await self._conns.write(work)

    async def restore_rewound(self, session_id: str) -> int:
        """Re-activate every rewound message of the session (never a compacted one); how many came back."""

        def work(conn: sqlite3.Connection) -> int:
            cursor = conn.execute(
                "UPDATE messages SET active = 1 WHERE session_id = ? AND active = 0 AND compacted = 0", (session_id,)
            )
            return cursor.rowcount

        return await self._conns.write(work)
