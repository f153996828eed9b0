"""Broken event streams through a real turn: malformed, truncated, unknown events, missing terminators."""

from __future__ import annotations

import pytest

from tests.fake_llm import RawStream, Reply, StreamError
from tests.faults.helpers import BOTH, Harness, events_of


def first_text_events(protocol: str, reply: Reply, deltas: int) -> list[str]:
    """The stream of `reply` up to and including its `deltas`-th text delta."""
    events = events_of(protocol, reply)
    marker = '"content": ' if protocol == "openai" else '"text_delta"'
    positions = [i for i, text in enumerate(events) if marker in text and '"content": ""' not in text]
    return events[: positions[deltas - 1] + 1]


def broken_event(protocol: str) -> str:
    if protocol == "openai":
        return 'data: {"id": "chatcmpl-fake", "choices": [{"delta": {"content": "oops\n\n'
    return 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {\n\n'


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_malformed_event_before_any_text_is_retried(harness: Harness, protocol: str) -> None:
    opening = events_of(protocol, Reply(text="x"))[:1]
    run = await harness.run(protocol, RawStream([*opening, broken_event(protocol)]), Reply(text="Clean stream."))
    run.assert_answered("Clean stream.")
    assert len(run.requests) == 2 and "server error" in run.retries[0]


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_malformed_event_after_text_keeps_the_delivered_text(harness: Harness, protocol: str) -> None:
    reply = Reply(text="Alpha beta gamma delta", chunk_size=6)
    run = await harness.run(protocol, RawStream([*first_text_events(protocol, reply, 2), broken_event(protocol)]))
    run.assert_partial_kept("Alpha beta g")
    assert run.log.text() == "Alpha beta g"


@pytest.mark.parametrize("protocol", BOTH)
async def test_malformed_streams_on_every_attempt_fail_naming_the_fault(harness: Harness, protocol: str) -> None:
    opening = events_of(protocol, Reply(text="x"))[:1]
    broken = RawStream([*opening, broken_event(protocol)])
    run = await harness.run(protocol, broken, broken, broken)
    run.assert_failed("after 3 retries", "malformed stream event")


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_event_cut_in_half_at_the_end_is_continued_after_the_text_before_it(
    harness: Harness, protocol: str
) -> None:
    reply = Reply(text="One two three four", chunk_size=4)
    events = first_text_events(protocol, reply, 3)
    cut = events_of(protocol, reply)[len(events)][:25]  # half an event, no blank line, then a clean end
    run = await harness.run(protocol, RawStream([*events, cut]), Reply(text="e four"))
    run.assert_continued("One two thre", "e four")
    assert any("continue" in status for status in run.statuses)


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_stream_that_stops_without_a_finish_reason_is_continued(harness: Harness, protocol: str) -> None:
    run = await harness.run(
        protocol, Reply(text="Partial but real.", send_finish=False, terminal=False), Reply(text=" And complete.")
    )
    run.assert_continued("Partial but real.", " And complete.")
    assert len(run.requests) == 2


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_stream_cut_before_a_tool_call_finished_does_not_run_the_tool(harness: Harness, protocol: str) -> None:
    cut_call = Reply(tool_calls=[("call_cut", "read_file", '{"path": "notes.txt"}')], send_finish=False, terminal=False)
    run = await harness.run(protocol, cut_call, Reply(text="Done properly."))
    run.assert_answered("Done properly.")
    assert "tool" not in run.roles, "a tool call whose stream was cut is never executed"
    assert len(run.requests) == 2


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_finished_answer_without_done_or_message_stop_is_complete(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, Reply(text="All here, no terminator.", terminal=False))
    run.assert_answered("All here, no terminator.")
    assert not run.retries and len(run.requests) == 1


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_terminator_without_a_finish_reason_is_complete(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, Reply(text="Ended by the terminator.", send_finish=False))
    run.assert_answered("Ended by the terminator.")
    assert not any("interrupted" in status for status in run.statuses)


UNKNOWN_OPENAI = [
    'event: vendor.heartbeat\ndata: {"type": "vendor.heartbeat", "load": 0.3}\n\n',
    'data: {"id": "x", "object": "chat.completion.chunk", "choices": [], "vendor_stats": {"queue": 2}}\n\n',
    ": a comment line the SSE spec says to ignore\n\n",
]
UNKNOWN_ANTHROPIC = [
    'event: content_block_future\ndata: {"type": "content_block_future", "index": 0, "hint": "new"}\n\n',
    'event: vendor_stats\ndata: {"type": "vendor_stats", "queue": 2}\n\n',
    "data: orphan data without an event name\n\n",
]


@pytest.mark.parametrize("protocol", BOTH)
async def test_unknown_event_types_are_ignored(harness: Harness, protocol: str) -> None:
    extra = UNKNOWN_OPENAI if protocol == "openai" else UNKNOWN_ANTHROPIC
    run = await harness.run(protocol, Reply(text="Unbothered by novelties.", inject=extra))
    run.assert_answered("Unbothered by novelties.")
    assert not run.retries


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_error_event_inside_the_stream_is_retried_and_named(harness: Harness, protocol: str) -> None:
    failing = StreamError(after_chunks=1, message="Overloaded, please retry", type="overloaded_error")
    run = await harness.run(protocol, failing, failing, failing)
    run.assert_failed("after 3 retries", "Overloaded, please retry")
    assert len(run.requests) == 3


@pytest.mark.parametrize("protocol", BOTH)
async def test_text_split_inside_multibyte_characters_arrives_intact(harness: Harness, protocol: str) -> None:
    text = "naïve café — 東京 🚀 done"
    raw = "".join(events_of(protocol, Reply(text=text, chunk_size=1))).encode()
    run = await harness.run(protocol, RawStream([raw[i : i + 7] for i in range(0, len(raw), 7)]))
    run.assert_answered(text)
