"""TodoStore: write semantics (§8), summary, the §5 step 8 re-injection text, and hydration."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hermes_tui.core.todo import REINJECTION_HEADER, TodoError, TodoStore


def item(item_id: str, content: str, status: str = "pending") -> dict[str, str]:
    return {"id": item_id, "content": content, "status": status}


def store_with(*items: dict[str, str]) -> TodoStore:
    store = TodoStore()
    store.write(list(items))
    return store


# --------------------------------------------------------------------------- writing


def test_replace_mode_replaces_the_whole_list() -> None:
    store = store_with(item("1", "old task"))
    store.write([item("a", "first"), item("b", "second", "in_progress")])
    assert store.items == [item("a", "first"), item("b", "second", "in_progress")]


def test_replace_mode_keeps_the_last_occurrence_of_a_repeated_id() -> None:
    store = TodoStore()
    store.write([item("1", "draft"), item("2", "review"), item("1", "final wording", "completed")])
    assert store.items == [item("2", "review"), item("1", "final wording", "completed")]


def test_merge_updates_by_id_and_appends_new_items() -> None:
    store = store_with(item("1", "write parser"), item("2", "write tests"))
    store.write([item("2", "write tests", "in_progress"), item("3", "update docs")], merge=True)
    assert store.items == [
        item("1", "write parser"),
        item("2", "write tests", "in_progress"),
        item("3", "update docs"),
    ]


def test_merge_changes_only_the_fields_given() -> None:
    store = store_with(item("1", "write parser"))
    store.write([{"id": "1", "status": "completed"}], merge=True)
    assert store.items == [item("1", "write parser", "completed")]
    store.write([{"id": "1", "content": "write the parser"}], merge=True)
    assert store.items == [item("1", "write the parser", "completed")]


def test_status_defaults_to_pending_and_is_normalised() -> None:
    store = TodoStore()
    store.write([{"id": "1", "content": "a"}, {"id": "2", "content": "b", "status": " In_Progress "}])
    assert [entry["status"] for entry in store.items] == ["pending", "in_progress"]


def test_numeric_ids_become_strings_and_text_is_trimmed() -> None:
    store = TodoStore()
    store.write([{"id": 7, "content": "  spaced out  ", "status": "pending"}])
    assert store.items == [item("7", "spaced out")]
    store.write([{"id": "7", "status": "completed"}], merge=True)
    assert store.items == [item("7", "spaced out", "completed")]


@pytest.mark.parametrize(
    ("todos", "message"),
    [
        ([item("1", "a", "done")], "'status' must be one of pending, in_progress, completed, cancelled"),
        ([{"content": "no id"}], "todo item 1: 'id' must be a string"),
        ([{"id": "", "content": "blank id"}], "'id' must not be empty"),
        ([{"id": "1"}], "'content' is required"),
        ([{"id": "1", "content": "   "}], "'content' must not be empty"),
        ([item("1", "ok"), "just a string"], "todo item 2: expected an object"),
        ([{"id": True, "content": "x"}], "'id' must be a string"),
        ("not a list", "'todos' must be a list"),
        ({"id": "1"}, "'todos' must be a list"),
    ],
)
def test_invalid_items_are_refused_and_nothing_changes(todos: Any, message: str) -> None:
    store = store_with(item("keep", "existing task", "in_progress"))
    with pytest.raises(TodoError, match=message.replace("(", r"\(").replace(")", r"\)")):
        store.write(todos)
    assert store.items == [item("keep", "existing task", "in_progress")]


def test_an_invalid_merge_changes_nothing_even_after_valid_items() -> None:
    store = store_with(item("1", "a"))
    with pytest.raises(TodoError):
        store.write([item("1", "a", "completed"), {"id": "1", "status": "bogus"}], merge=True)
    assert store.items == [item("1", "a")]


def test_items_are_copies_the_caller_cannot_change() -> None:
    store = store_with(item("1", "a"))
    store.items[0]["status"] = "completed"
    assert store.items == [item("1", "a")]


# --------------------------------------------------------------------------- reading


def test_summary_counts_each_status() -> None:
    store = store_with(
        item("1", "a", "completed"),
        item("2", "b", "in_progress"),
        item("3", "c"),
        item("4", "d"),
        item("5", "e", "cancelled"),
    )
    assert store.summary() == {"total": 5, "pending": 2, "in_progress": 1, "completed": 1, "cancelled": 1}
    assert TodoStore().summary() == {
        "total": 0,
        "pending": 0,
        "in_progress": 0,
        "completed": 0,
        "cancelled": 0,
    }


def test_has_active_means_pending_or_in_progress() -> None:
    assert not TodoStore().has_active()
    assert not store_with(item("1", "a", "completed"), item("2", "b", "cancelled")).has_active()
    assert store_with(item("1", "a", "completed"), item("2", "b")).has_active()
    assert store_with(item("1", "a", "in_progress")).has_active()


# --------------------------------------------------------------------------- re-injection


def test_reinjection_text_lists_active_items_with_markers() -> None:
    store = store_with(
        item("1", "Read the failing test", "completed"),
        item("2", "Fix the tokenizer", "in_progress"),
        item("3", "Run the whole suite"),
        item("4", "Rewrite in Rust", "cancelled"),
    )
    assert store.format_for_reinjection() == (
        "[Your active task list was preserved across context compression]\n"
        "- [>] 2. Fix the tokenizer (in_progress)\n"
        "- [ ] 3. Run the whole suite (pending)"
    )
    assert REINJECTION_HEADER == "[Your active task list was preserved across context compression]"


def test_no_reinjection_without_active_items() -> None:
    assert TodoStore().format_for_reinjection() is None
    assert (
        store_with(item("1", "done", "completed"), item("2", "dropped", "cancelled")).format_for_reinjection() is None
    )


# --------------------------------------------------------------------------- hydration


def todo_call(call_id: str, todos: list[dict[str, str]] | None = None, merge: bool = False) -> dict[str, Any]:
    arguments = json.dumps({"todos": todos, "merge": merge} if todos is not None else {})
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "todo", "arguments": arguments}}],
    }


def todo_result(call_id: str, todos: list[dict[str, str]]) -> dict[str, Any]:
    snapshot = store_with(*todos).snapshot() if todos else TodoStore().snapshot()
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(snapshot)}


def test_hydration_loads_the_last_todo_result() -> None:
    first = [item("1", "plan")]
    second = [item("1", "plan", "completed"), item("2", "build", "in_progress")]
    history = [
        {"role": "user", "content": "build it"},
        todo_call("call_1", first),
        todo_result("call_1", first),
        {"role": "assistant", "content": "working"},
        todo_call("call_2", second),
        todo_result("call_2", second),
        {"role": "assistant", "content": "done for now"},
    ]
    store = TodoStore()
    assert store.hydrate_from_history(history) is True
    assert store.items == second


def test_hydration_skips_failed_todo_calls() -> None:
    good = [item("1", "plan", "in_progress")]
    history = [
        todo_call("call_1", good),
        todo_result("call_1", good),
        todo_call("call_2", [item("1", "plan", "bogus")]),
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: todo item 1: 'status' must be ..."},
    ]
    store = TodoStore()
    assert store.hydrate_from_history(history)
    assert store.items == good


def test_hydration_ignores_other_tools_results_that_look_like_todos() -> None:
    lookalike = {"todos": [item("x", "from a file")], "summary": {"total": 1}}
    real = [item("1", "the real list")]
    history = [
        todo_call("call_1", real),
        todo_result("call_1", real),
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "todos.json"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_2", "content": json.dumps(lookalike)},
    ]
    store = TodoStore()
    assert store.hydrate_from_history(history)
    assert store.items == real


def test_hydration_accepts_a_result_named_by_tool_name_and_list_content() -> None:
    todos = [item("1", "persisted row", "in_progress")]
    text = json.dumps(store_with(*todos).snapshot())
    history = [
        {
            "role": "tool",
            "tool_name": "todo",
            "tool_call_id": "orphan",
            "content": [{"type": "text", "text": text}],
        }
    ]
    store = TodoStore()
    assert store.hydrate_from_history(history)
    assert store.items == todos


def test_an_empty_last_list_hydrates_to_empty() -> None:
    history = [
        todo_call("c1", [item("1", "a")]),
        todo_result("c1", [item("1", "a")]),
        todo_call("c2", []),
        todo_result("c2", []),
    ]
    store = store_with(item("stale", "from before"))
    assert store.hydrate_from_history(history)
    assert store.items == []


def test_no_todo_result_leaves_the_store_alone() -> None:
    store = store_with(item("1", "keep me"))
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert store.hydrate_from_history(history) is False
    assert store.hydrate_from_history([]) is False
    assert store.items == [item("1", "keep me")]
