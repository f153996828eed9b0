"""Comparing two histories: the shared prefix, turns aligned by position, divergence inside a turn, sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.core.branch_compare import (
    CompareError,
    common_prefix,
    compare_histories,
    comparison_text,
    load_comparison,
)
from hermes_tui.core.commands import run_command
from tests.core.helpers import make_agent


def user(text: str, db_id: int | None = None) -> dict:
    message = {"role": "user", "content": text}
    if db_id is not None:
        message["_db_id"] = db_id
    return message


def answer(text: str) -> dict:
    return {"role": "assistant", "content": text}


def tool_round(call_id: str) -> list[dict]:
    call = {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a"}'}}
    return [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": "file text"},
    ]


SHARED = [user("pick a database"), answer("Postgres or SQLite?")]


def test_shared_prefix_then_turns_aligned_side_by_side() -> None:
    left = [*SHARED, user("postgres please"), *tool_round("c1"), answer("set up postgres"), user("add indexes")]
    right = [*SHARED, user("sqlite please"), answer("set up sqlite")]
    result = compare_histories(left, right)
    assert result.shared_count == 2 and result.shared_turns == 1 and not result.mid_turn
    assert [(p.left is not None, p.right is not None) for p in result.pairs] == [(True, True), (True, False)]
    first = result.pairs[0]
    assert first.left is not None and first.right is not None
    assert (first.left.number, first.right.number) == (2, 2)  # both continue with the conversation's turn 2
    assert first.left.user_text == "postgres please" and first.left.answer_text == "set up postgres"
    assert first.left.tool_calls == 1 and len(first.left.messages) == 4
    assert first.right.answer_text == "set up sqlite"
    assert result.left_turns == 2 and result.right_turns == 1
    assert result.left_tokens == sum(p.left.tokens for p in result.pairs if p.left) > result.right_tokens > 0
    assert result.shared_tokens > 0


def test_copies_with_other_row_ids_still_count_as_shared() -> None:
    left = [user("hello", db_id=1), answer("hi")]
    right = [user("hello", db_id=91), answer("hi"), user("more")]
    assert common_prefix(left, right) == 2
    result = compare_histories(left, right)
    assert [p.left for p in result.pairs] == [None] and result.right_turns == 1


def test_divergence_inside_a_turn_starts_with_the_rest_of_that_turn() -> None:
    left = [*SHARED, user("go"), answer("answer one")]
    right = [*SHARED, user("go"), answer("a different answer"), user("thanks")]
    result = compare_histories(left, right)
    assert result.shared_count == 3 and result.mid_turn
    first = result.pairs[0]
    assert first.left is not None and first.left.partial and first.left.number == 2 and first.left.user_text == ""
    assert first.right is not None and first.right.partial
    assert result.pairs[1].right is not None and result.pairs[1].right.number == 3


def test_identical_and_disjoint_histories() -> None:
    same = compare_histories(SHARED, list(SHARED))
    assert same.identical and same.pairs == ()
    apart = compare_histories([user("a")], [user("b")])
    assert apart.shared_count == 0 and len(apart.pairs) == 1


async def test_a_branch_compared_with_its_parent_from_the_store(tmp_path: Path) -> None:
    agent, db, _ = await make_agent(tmp_path)
    await agent.run_conversation("first question")
    parent = agent.session_id
    await run_command(agent, "/branch side quest")
    branch = agent.session_id
    await agent.run_conversation("a question only the branch asks")
    loaded = await load_comparison(db, parent, branch)
    c = loaded.comparison
    assert c.shared_count == c.left_count and c.right_count > c.left_count  # the parent is the shared part
    assert c.pairs[0].left is None and c.pairs[0].right is not None
    assert c.pairs[0].right.user_text == "a question only the branch asks"
    assert loaded.diverged_at is not None and loaded.right.title == "side quest"
    text = comparison_text(loaded)
    assert "shared messages" in text and "a question only the branch asks" in text
    with pytest.raises(CompareError):
        await load_comparison(db, parent, parent)
    with pytest.raises(CompareError):
        await load_comparison(db, parent, "no-such-session")
    await agent.close()
    await db.close()
