"""Invalid text from the outside, through the real SDKs: every turn is saved, every session resumes.

A lone surrogate (a JSON `"\\ud800"` escape) in streamed text, reasoning or tool arguments, stray
invalid UTF-8 bytes in the event stream, and a file name that is not UTF-8 each arrive as U+FFFD —
visible where they stood — so the prompt and the answer are stored, and a session whose stored tool
arguments came from such output resumes and continues.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hermes_tui.core.providers.factory import make_provider
from hermes_tui.store.db import SessionDB
from tests.core.helpers import make_agent
from tests.fake_llm import RawStream, Reply
from tests.faults.helpers import BOTH, HEALTHY_TIMEOUTS, Harness, choice_for, events_of, server_url

# Tool arguments with a raw lone surrogate and with one written as an escape in the JSON text.
RAW_ARGS = '{"path": "notes\ud800.txt"}'
ESCAPED_ARGS = '{"path": "notes.txt", "pattern": "\\udbff"}'


def _json_of(rows: list[dict]) -> str:
    return json.dumps(rows, ensure_ascii=False)


@pytest.mark.parametrize("protocol", BOTH)
async def test_lone_surrogates_in_output_and_tool_arguments_are_saved_and_the_session_resumes(
    harness: Harness, protocol: str, tmp_path: Path
) -> None:
    harness.server.enqueue(
        Reply(
            reasoning="why \udfff",
            text="Looking \ud800 now.",
            tool_calls=[("c1", "read_file", RAW_ARGS), ("c2", "read_file", ESCAPED_ARGS)],
        ),
        Reply(text="The launch code is 4242 \udc00."),
    )
    first_agent, first_db, first_log = await harness.agent(protocol)
    run = await harness.turn(first_agent, first_db, first_log)
    run.assert_answered("The launch code is 4242 \ufffd.")
    assert run.roles == ["user", "assistant", "tool", "tool", "assistant"]
    call_message = run.stored[1]
    assert call_message["content"] == "Looking \ufffd now."
    arguments = [call["function"]["arguments"] for call in call_message["tool_calls"]]
    assert json.loads(arguments[0]) == {"path": "notes\ufffd.txt"}
    assert json.loads(arguments[1]) == {"path": "notes.txt", "pattern": "\ufffd"}
    assert "4242" in run.stored[3]["content"], "the call whose arguments were repaired still ran"
    assert "\ufffd" in run.stored[2]["content"], "the missing file is named as the model wrote it"
    # The next request carried the repaired history (the SDK could encode it).
    assert "notes\ufffd.txt" in json.dumps(run.requests[1].body, ensure_ascii=False)

    # A new process: open the same state.db, resume the session and go on.
    session_id = run.result.session_id
    state_db = first_agent.home.state_db
    await first_agent.close("cli_close")
    db = await SessionDB.open(state_db)
    try:
        harness.server.enqueue(Reply(text="Continued after the odd turn."))
        settings = first_agent.settings
        agent, _db, _log = await make_agent(
            tmp_path / "second", choice_for(protocol, server_url(harness.server, protocol)), settings=settings, db=db
        )
        assert await agent.resume(session_id)
        result = await agent.run_conversation("And now?")
        assert result.completed and result.final_response == "Continued after the odd turn.", result.error
        sent = json.dumps(harness.server.last_body, ensure_ascii=False)
        assert "notes\ufffd.txt" in sent and "Looking \ufffd now." in sent
        rows = await db.get_messages(agent.session_id)
        assert [row["content"] for row in rows if row["role"] == "user"][-1] == "And now?"
        assert rows[-1]["content"] == "Continued after the odd turn."
        await agent.provider.aclose()
    finally:
        await db.close()


@pytest.mark.parametrize("protocol", BOTH)
async def test_invalid_utf8_bytes_in_the_event_stream_arrive_as_replacement_characters(
    harness: Harness, protocol: str
) -> None:
    events = [raw.encode() for raw in events_of(protocol, Reply(text="MARKER SPLIT", chunk_size=100))]
    bad = [raw.replace(b"MARKER", b"ab\xff\xfe\xc3cd").replace(b"SPLIT", "café".encode()) for raw in events]
    # A valid two-byte character split between two network chunks must stay one character.
    split = next(i for i, raw in enumerate(bad) if "é".encode() in raw)
    at = bad[split].index("é".encode()) + 1
    bad[split : split + 1] = [bad[split][:at], bad[split][at:]]
    run = await harness.run(protocol, RawStream(bad))
    expected = "ab\ufffd\ufffd\ufffdcd café"
    run.assert_answered(expected)


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_tool_result_naming_a_file_that_is_not_utf8_is_saved(harness: Harness, protocol: str) -> None:
    name = os.fsencode(harness.project) + b"/caf\xe9-menu.txt"  # Latin-1 name: not decodable as UTF-8
    with open(name, "wb") as handle:
        handle.write(b"soup\n")
    run = await harness.run(
        protocol,
        Reply(tool_calls=[("c1", "search_files", '{"pattern": "*menu*", "target": "files"}')]),
        Reply(text="Found the menu."),
    )
    run.assert_answered("Found the menu.")
    result = run.stored[2]["content"]
    assert "caf\ufffd-menu.txt" in result, result
    assert "caf\ufffd-menu.txt" in _json_of([r.body for r in run.requests[1:]])


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_summary_call_returns_valid_text(server, protocol: str) -> None:
    """The one-shot completion the compressor uses is made valid too (it becomes a stored message)."""
    server.enqueue(Reply(text="## Summary \ud800 done"))
    provider = make_provider(choice_for(protocol, server_url(server, protocol)), timeouts=HEALTHY_TIMEOUTS)
    try:
        summary = await provider.complete("summarise", max_tokens=100)
    finally:
        await provider.aclose()
    assert summary == "## Summary \ufffd done"
