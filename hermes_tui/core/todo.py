"""The per-session todo list the agent keeps through the `todo` tool (Hermes `tools/todo_tool.py`).

Owns: the `TodoStore` (items `{id, content, status}`), its write semantics (replace mode keeps the
last occurrence of a duplicated id; merge mode updates by id and appends new ids), the summary
counts, the text re-injected after context compression (reference §5 step 8), and hydration from
the last todo tool result in an OpenAI-format history. Pure Python; no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hermes_tui.core.messages import content_text

STATUSES: tuple[str, ...] = ("pending", "in_progress", "completed", "cancelled")
ACTIVE_STATUSES: frozenset[str] = frozenset({"pending", "in_progress"})
STATUS_MARKERS: dict[str, str] = {
    "pending": "[ ]",
    "in_progress": "[>]",
    "completed": "[x]",
    "cancelled": "[~]",
}
REINJECTION_HEADER = "[Your active task list was preserved across context compression]"
TODO_TOOL_NAME = "todo"

TodoItem = dict[str, str]


class TodoError(ValueError):
    """A todo write the store refuses; the message is one line the model can act on."""


def _item_id(raw: Any, position: int) -> str:
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise TodoError(f"todo item {position}: 'id' must be a string, got {type(raw).__name__}")
    text = str(raw).strip()
    if not text:
        raise TodoError(f"todo item {position}: 'id' must not be empty")
    return text


def _item_content(raw: Any, position: int) -> str:
    if not isinstance(raw, str):
        raise TodoError(f"todo item {position}: 'content' must be a string, got {type(raw).__name__}")
    text = raw.strip()
    if not text:
        raise TodoError(f"todo item {position}: 'content' must not be empty")
    return text


def _item_status(raw: Any, position: int) -> str:
    if not isinstance(raw, str) or raw.strip().lower() not in STATUSES:
        raise TodoError(f"todo item {position}: 'status' must be one of {', '.join(STATUSES)} (got {raw!r})")
    return raw.strip().lower()


def _require_mapping(raw: Any, position: int) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise TodoError(f"todo item {position}: expected an object with id, content and status")
    return raw


def validate_item(raw: Any, position: int) -> TodoItem:
    """A complete item from model input; a missing status means "pending"."""
    fields = _require_mapping(raw, position)
    item_id = _item_id(fields.get("id"), position)
    if "content" not in fields:
        raise TodoError(f"todo item {position}: 'content' is required")
    content = _item_content(fields["content"], position)
    status = _item_status(fields.get("status", "pending"), position)
    return {"id": item_id, "content": content, "status": status}


class TodoStore:
    """The in-memory task list of one session."""

    def __init__(self) -> None:
        self._items: list[TodoItem] = []

    # ------------------------------------------------------------------ reading

    @property
    def items(self) -> list[TodoItem]:
        """Copies of the items, in list order (empty list = no tasks)."""
        return [dict(item) for item in self._items]

    def __len__(self) -> int:
        return len(self._items)

    def is_empty(self) -> bool:
        return not self._items

    def summary(self) -> dict[str, int]:
        counts = {"total": len(self._items)} | {status: 0 for status in STATUSES}
        for item in self._items:
            counts[item["status"]] += 1
        return counts

    def has_active(self) -> bool:
        """True when any item is pending or in progress."""
        return any(item["status"] in ACTIVE_STATUSES for item in self._items)

    def snapshot(self) -> dict[str, Any]:
        """The todo tool's result shape: `{todos, summary}`."""
        return {"todos": self.items, "summary": self.summary()}

    # ------------------------------------------------------------------ writing

    def write(self, todos: Sequence[Any], merge: bool = False) -> list[TodoItem]:
        """Replace the list (or merge into it); raises TodoError and changes nothing on bad input.

        Replace mode: every item needs id and content; a repeated id keeps its last occurrence
        (at that occurrence's position). Merge mode: an item whose id exists updates the given
        fields of that item in place; a new id is appended and needs content.
        """
        if isinstance(todos, (str, bytes)) or not isinstance(todos, Sequence):
            raise TodoError("'todos' must be a list of {id, content, status} objects")
        if merge:
            self._items = self._merged(todos)
        else:
            self._items = self._replacement(todos)
        return self.items

    def clear(self) -> None:
        self._items = []

    @staticmethod
    def _replacement(todos: Sequence[Any]) -> list[TodoItem]:
        validated = [validate_item(raw, position) for position, raw in enumerate(todos, start=1)]
        last_index = {item["id"]: index for index, item in enumerate(validated)}
        return [item for index, item in enumerate(validated) if last_index[item["id"]] == index]

    def _merged(self, todos: Sequence[Any]) -> list[TodoItem]:
        merged = [dict(item) for item in self._items]
        by_id = {item["id"]: item for item in merged}
        for position, raw in enumerate(todos, start=1):
            fields = _require_mapping(raw, position)
            item_id = _item_id(fields.get("id"), position)
            existing = by_id.get(item_id)
            if existing is None:
                item = validate_item(fields, position)
                merged.append(item)
                by_id[item_id] = item
                continue
            if fields.get("content") is not None:
                existing["content"] = _item_content(fields["content"], position)
            if fields.get("status") is not None:
                existing["status"] = _item_status(fields["status"], position)
        return merged

    # ------------------------------------------------------------------ compression and resume

    def format_for_reinjection(self) -> str | None:
        """The user message appended after compression, or None when nothing is active."""
        active = [item for item in self._items if item["status"] in ACTIVE_STATUSES]
        if not active:
            return None
        lines = [REINJECTION_HEADER]
        for item in active:
            marker = STATUS_MARKERS[item["status"]]
            lines.append(f"- {marker} {item['id']}. {item['content']} ({item['status']})")
        return "\n".join(lines)

    def hydrate_from_history(self, messages: Iterable[Mapping[str, Any]]) -> bool:
        """Load the list from the newest successful todo tool result in `messages`.

        A result counts when its `tool_call_id` answers an assistant tool call named "todo" (or,
        for histories without the call, when its `tool_name` is "todo") and its content is JSON
        with a valid "todos" list. Error results and unparsable ones are skipped, so the list is
        the state after the last todo call that succeeded. Returns True when a result was loaded.
        """
        history = list(messages)
        todo_call_ids = _todo_call_ids(history)
        for message in reversed(history):
            if message.get("role") != "tool":
                continue
            call_id = message.get("tool_call_id")
            if call_id not in todo_call_ids and message.get("tool_name") != TODO_TOOL_NAME:
                continue
            items = _parse_todo_result(message.get("content"))
            if items is not None:
                self._items = items
                return True
        return False


def _todo_call_ids(history: Sequence[Mapping[str, Any]]) -> set[str]:
    ids: set[str] = set()
    for message in history:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            if not isinstance(call, Mapping):
                continue
            function = call.get("function")
            if isinstance(function, Mapping) and function.get("name") == TODO_TOOL_NAME:
                for key in ("id", "call_id"):
                    if call.get(key):
                        ids.add(str(call[key]))
    return ids


def _parse_todo_result(content: Any) -> list[TodoItem] | None:
    text = content_text(content)
    if '"todos"' not in text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("todos"), list):
        return None
    try:
        return TodoStore._replacement(data["todos"])
    except TodoError:
        return None
