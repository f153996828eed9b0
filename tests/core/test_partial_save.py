"""Crash safety inside the process: the prompt is stored as the turn starts, the answer while it streams.

The flush cursor stores a streaming answer as one assistant row marked "interrupted" and settles it
when the turn moves on: rewritten in place as the kept message (same id, so /undo still works), or
removed when the stream was not kept. After every step the stored rows must equal the live history,
row for row, with the session's counters right. Real Agent, real state.db, real SDK against the
loopback fake server.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.core.session.live import LiveSession
from hermes_tui.core.turn import partial_save
from hermes_tui.store.db import SessionDB
from tests.core.helpers import make_agent, openai_choice, rows
from tests.fake_llm import FakeLLMServer, Hang, Reply, Stall
from tests.waits import guard

TOOL_CALL = ("call_1", "read_file", '{"path": "README.md"}')


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# Partial\n\nThe code is 4242.\n", encoding="utf-8")
    return folder


@pytest.fixture
def quick_saves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Save the streaming answer every 20 ms, so short scripted streams are saved mid-way."""
    monkeypatch.setattr(partial_save, "PARTIAL_SAVE_SECONDS", 0.02)


async def poll(check: Callable[[], Awaitable[Any]], timeout: float | None = None, what: str = "condition") -> Any:
    deadline = time.monotonic() + guard(timeout)  # a hang guard only (tests/waits.py)
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


async def assert_stored_matches_live(db: SessionDB, session: LiveSession) -> list[dict[str, Any]]:
    """The stored rows are the live history, row for row, and the session's counters agree."""
    stored = await rows(db, session.id)
    live = session.messages
    assert [(r["role"], r["content"]) for r in stored] == [(m["role"], m["content"]) for m in live]
    assert [r["id"] for r in stored] == [m.get("_db_id") for m in live], "every message knows its row"
    every = await db.get_messages(session.id, include_inactive=True)  # rewound rows still count (Hermes)
    row = await db.get_session(session.id)
    assert row is not None and row["message_count"] == len(every)
    calls = sum(len(r["tool_calls"] or []) for r in every if r["role"] == "assistant")
    assert row["tool_call_count"] == calls
    return stored


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def answer(text: str, **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": text, "finish_reason": "stop", **extra}


async def session_with_prompt(tmp_path: Path) -> tuple[LiveSession, SessionDB, list[dict[str, Any]]]:
    agent, db, _ = await make_agent(tmp_path)
    session = agent.session
    messages = [user("tell me")]
    await session.flush(messages)
    return session, db, messages


# --------------------------------------------------------------------------- the cursor and the partial row


async def test_a_streamed_answer_is_one_row_rewritten_in_place_then_becomes_the_answer(tmp_path: Path) -> None:
    session, db, messages = await session_with_prompt(tmp_path)
    await session.save_partial(lambda: (messages, "Hel"))
    first = await rows(db, session.id)
    assert [(r["role"], r["content"], r["finish_reason"]) for r in first] == [
        ("user", "tell me", None),
        ("assistant", "Hel", "interrupted"),
    ]
    await session.save_partial(lambda: (messages, "Hello wor"))
    second = await rows(db, session.id)
    assert len(second) == 2 and second[1]["id"] == first[1]["id"] and second[1]["content"] == "Hello wor"

    messages.append(answer("Hello world.", reasoning="short"))
    await session.flush(messages)
    session.commit(messages)
    stored = await assert_stored_matches_live(db, session)
    assert stored[1]["id"] == first[1]["id"], "the partial row became the answer; nothing was written twice"
    assert stored[1]["finish_reason"] == "stop" and stored[1]["reasoning"] == "short"
    await db.close()


async def test_a_stream_that_was_not_kept_leaves_no_row_and_the_next_one_takes_its_place(tmp_path: Path) -> None:
    session, db, messages = await session_with_prompt(tmp_path)
    await session.save_partial(lambda: (messages, "A first attempt"))
    await session.flush(messages)  # the call failed: nothing was appended at the answer's place
    session.commit(messages)
    await assert_stored_matches_live(db, session)

    await session.save_partial(lambda: (messages, "A second"))
    messages.append(answer("A second attempt that worked."))
    await session.flush(messages)
    session.commit(messages)
    stored = await assert_stored_matches_live(db, session)
    assert [r["content"] for r in stored] == ["tell me", "A second attempt that worked."]
    await db.close()


async def test_a_partial_that_ends_in_tool_calls_keeps_its_place_before_the_results(tmp_path: Path) -> None:
    session, db, messages = await session_with_prompt(tmp_path)
    await session.save_partial(lambda: (messages, "Let me look"))
    partial_id = (await rows(db, session.id))[1]["id"]
    call = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    messages += [
        {"role": "assistant", "content": "Let me look.", "tool_calls": [call], "finish_reason": "tool_calls"},
        {"role": "tool", "content": "4242", "tool_call_id": "call_1", "tool_name": "read_file"},
    ]
    await session.flush(messages)
    session.commit(messages)
    stored = await assert_stored_matches_live(db, session)
    assert [r["role"] for r in stored] == ["user", "assistant", "tool"]
    assert stored[1]["id"] == partial_id and stored[1]["tool_calls"][0]["id"] == "call_1"
    await db.close()


async def test_recovery_scaffolding_before_a_partial_is_never_stored(tmp_path: Path) -> None:
    session, db, messages = await session_with_prompt(tmp_path)
    messages += [
        {"role": "assistant", "content": "(empty)", "_empty_recovery_synthetic": True},
        {"role": "user", "content": "You just executed tool calls...", "_empty_recovery_synthetic": True},
    ]
    await session.save_partial(lambda: (messages, "Recovered"))
    assert [r["content"] for r in await rows(db, session.id)] == ["tell me", "Recovered"]
    # The answer replaces the scaffolding (as the loop does) and takes the partial's row.
    final = [*messages[:1], answer("Recovered at last.")]
    await session.flush(final)
    session.commit(final)
    stored = await assert_stored_matches_live(db, session)
    assert all(r["content"] != "(empty)" for r in stored)
    await db.close()


async def test_nothing_is_saved_when_no_answer_is_streaming(tmp_path: Path) -> None:
    session, db, _ = await session_with_prompt(tmp_path)
    await session.save_partial(lambda: None)
    assert [r["role"] for r in await rows(db, session.id)] == ["user"]
    await db.close()


async def test_a_flush_cancelled_midway_still_counts_what_it_wrote(tmp_path: Path) -> None:
    """Ctrl-C or SIGTERM can land while a write is in flight; the rows must never be written twice."""
    agent, db, _ = await make_agent(tmp_path)
    session = agent.session
    messages = [user("first")]
    await session.flush(messages)
    for step in range(12):  # cancel after 0, 1, 2 ... loop iterations: before, during and after the write
        messages += [answer(f"answer {step}"), user(f"prompt {step}")]
        snapshot = list(messages)
        task = asyncio.create_task(session.flush(snapshot))
        for _ in range(step):
            await asyncio.sleep(0)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await session.flush(snapshot)  # the turn's finish flushes again
    session.commit(messages)
    await assert_stored_matches_live(db, session)
    await db.close()


# --------------------------------------------------------------------------- through real turns


async def test_the_prompt_is_stored_before_the_model_answers(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Stall(seconds=600))
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    task = asyncio.create_task(agent.run_conversation("Remember this prompt"))
    await server.wait_for_requests(1)
    stored = await rows(db, agent.session_id)
    assert [(r["role"], r["content"]) for r in stored] == [("user", "Remember this prompt")]
    task.cancel()
    result = await asyncio.wait_for(task, 10)
    assert result.interrupted
    await assert_stored_matches_live(db, agent.session)
    await db.close()


async def test_the_answer_is_saved_while_it_streams_rewriting_one_row(tmp_path: Path, server: FakeLLMServer) -> None:
    text = " ".join(f"word{i}" for i in range(90))
    server.enqueue(Reply(text=text, chunk_size=6, delay_per_chunk=0.03))  # about 2.5 s of streaming
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    task = asyncio.create_task(agent.run_conversation("stream slowly"))

    async def partial_row() -> dict[str, Any] | None:
        found = [r for r in await rows(db, agent.session_id) if r["role"] == "assistant"]
        return found[0] if found and found[0]["finish_reason"] == "interrupted" else None

    first = await poll(partial_row, what="the first save of the streaming answer")

    async def grown() -> dict[str, Any] | None:
        row = await partial_row()
        return row if row is not None and row["content"] != first["content"] else None

    second = await poll(grown, what="a later save")
    assert not task.done(), "both saves happened while the answer was still streaming"
    assert second["id"] == first["id"], "saving rewrites the one row"
    assert text.startswith(first["content"]) and text.startswith(second["content"])
    assert len(second["content"]) > len(first["content"])

    result = await asyncio.wait_for(task, 20)
    assert result.completed and result.final_response == text
    stored = await assert_stored_matches_live(db, agent.session)
    assert stored[1]["id"] == first["id"] and stored[1]["finish_reason"] == "stop"
    await db.close()


async def test_a_tool_round_after_streamed_text_is_stored_once_in_order(
    tmp_path: Path, server: FakeLLMServer, project: Path, quick_saves: None
) -> None:
    server.enqueue(
        Hang(seconds=0.5, first_text="Let me read it.", reply=Reply(text=" Now.", tool_calls=[TOOL_CALL])),
        Reply(text="The code is 4242."),
    )
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
    task = asyncio.create_task(agent.run_conversation("what is the code?"))

    async def saved_partial() -> int | None:
        found = [r for r in await rows(db, agent.session_id) if r["finish_reason"] == "interrupted"]
        return found[0]["id"] if found else None

    partial_id = await poll(saved_partial, what="the streamed text to be saved")
    result = await asyncio.wait_for(task, 20)
    assert result.final_response == "The code is 4242."
    stored = await assert_stored_matches_live(db, agent.session)
    assert [r["role"] for r in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[1]["id"] == partial_id and stored[1]["content"] == "Let me read it. Now."
    assert stored[1]["tool_calls"][0]["id"] == "call_1" and "4242" in stored[2]["content"]
    await db.close()


async def test_a_retried_truncated_tool_call_reuses_the_partial_row(
    tmp_path: Path, server: FakeLLMServer, project: Path, quick_saves: None
) -> None:
    cut = ("call_cut", "read_file", '{"path": "READ')
    server.enqueue(
        Hang(seconds=0.3, first_text="Reading the file", reply=Reply(text="...", tool_calls=[cut], finish="length")),
        Reply(text="Never mind, the answer is 7."),
    )
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
    task = asyncio.create_task(agent.run_conversation("read it"))

    async def saved() -> bool:
        return any(r["finish_reason"] == "interrupted" for r in await rows(db, agent.session_id))

    await poll(saved, what="the first attempt's text to be saved")
    result = await asyncio.wait_for(task, 20)
    assert result.final_response == "Never mind, the answer is 7."
    stored = await assert_stored_matches_live(db, agent.session)
    assert [r["content"] for r in stored] == ["read it", "Never mind, the answer is 7."]
    await db.close()


async def test_a_turn_that_keeps_no_answer_removes_its_saved_partial(
    tmp_path: Path, server: FakeLLMServer, project: Path, quick_saves: None
) -> None:
    cut = ("call_cut", "read_file", '{"path": "READ')
    attempts = [
        Hang(seconds=0.2, first_text="Trying", reply=Reply(text=".", tool_calls=[cut], finish="length"))
        for _ in range(4)
    ]
    server.enqueue(*attempts)
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai), cwd=project)
    task = asyncio.create_task(agent.run_conversation("read it"))

    async def saved() -> bool:
        return any(r["finish_reason"] == "interrupted" for r in await rows(db, agent.session_id))

    await poll(saved, what="an attempt's text to be saved")
    result = await asyncio.wait_for(task, 20)
    assert result.exit_reason == "truncated_tool_call"
    stored = await assert_stored_matches_live(db, agent.session)
    assert [r["role"] for r in stored] == ["user"], "no half-written row is left behind"
    await db.close()


async def test_undo_after_a_streamed_answer_rewinds_it(
    tmp_path: Path, server: FakeLLMServer, quick_saves: None
) -> None:
    server.enqueue(
        Reply(text="Kept.", chunk_size=1, delay_per_chunk=0.03),
        Reply(text="Streamed then undone.", chunk_size=2, delay_per_chunk=0.03),
    )
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await agent.run_conversation("first")
    await agent.run_conversation("second")
    assert len(await rows(db, agent.session_id)) == 4
    removed = await agent.undo()
    assert removed == "second"
    await assert_stored_matches_live(db, agent.session)
    assert [r["content"] for r in await rows(db, agent.session_id)] == ["first", "Kept."]
    await db.close()
