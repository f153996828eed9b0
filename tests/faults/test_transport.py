"""Network and body-level faults through a real turn: refused, reset, dropped, undecodable, not a stream."""

from __future__ import annotations

import json

import pytest

from tests.fake_llm import ByProtocol, Disconnect, Raw, Reply, Reset, refused_url
from tests.faults.helpers import BOTH, Harness, events_of

SSE = {"Content-Type": "text/event-stream"}


@pytest.mark.parametrize("protocol", BOTH)
async def test_connection_refused_fails_after_the_retries_naming_the_address(harness: Harness, protocol: str) -> None:
    url = refused_url("/v1" if protocol == "openai" else "")
    run = await harness.run(protocol, base_url=url)
    run.assert_failed("after 3 retries", "cannot connect to", url, "refused")
    assert len(run.retries) == 2
    assert run.roles == ["user"]


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_reset_before_the_answer_is_retried(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, Reset(), Reply(text="Second time lucky."))
    run.assert_answered("Second time lucky.")
    assert len(run.requests) == 2 and len(run.retries) == 1


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_reset_mid_answer_is_continued_not_thrown_away(harness: Harness, protocol: str) -> None:
    reply = Reply(text="The notes mention a launch code and then", chunk_size=6)
    run = await harness.run(protocol, Reset(after_chunks=6, reply=reply), Reply(text="tes mention 4242."))
    first = run.stored[1]["content"]
    assert first and reply.text.startswith(first) and first != reply.text
    run.assert_continued(first, "tes mention 4242.")
    assert len(run.requests) == 2, "delivered text is kept: the model continues it"
    assert any("asking the model to continue" in status for status in run.statuses)
    sent = run.requests[1].body["messages"]
    assert [m["role"] for m in sent][-3:] == ["user", "assistant", "user"], "the cut part is sent back as the model's"
    assert first.strip() in json.dumps(sent[-2])


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_stream_cut_four_times_keeps_the_joined_parts(harness: Harness, protocol: str) -> None:
    def cut(text: str) -> Reset:
        return Reset(after_chunks=4, reply=Reply(text=text, chunk_size=2))

    run = await harness.run(protocol, cut("aabbccdd"), cut("eeffgghh"), cut("iijjkkll"), cut("mmnnoopp"))
    run.assert_no_crash()
    delivered = run.log.text()
    assert len(run.requests) == 4, "three continuations, then the parts are kept"
    assert run.result.final_response == delivered and not run.result.failed
    assert run.stored[-1]["role"] == "assistant"


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_drop_before_any_text_is_retried(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, Disconnect(after_chunks=1), Reply(text="Reconnected."))
    run.assert_answered("Reconnected.")
    assert len(run.requests) == 2


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_reset_on_every_attempt_fails_naming_the_reset(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, Reset(), Reset(), Reset())
    run.assert_failed("after 3 retries", "connection", "reset")


GZIP_GARBAGE = Raw(200, {**SSE, "Content-Encoding": "gzip"}, b"\x1f\x8b\x08\x00\x00\x00\x00\x00garbage, not deflate")


@pytest.mark.parametrize("protocol", BOTH)
async def test_gzip_garbage_is_retried(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, GZIP_GARBAGE, Reply(text="Readable now."))
    run.assert_answered("Readable now.")
    assert len(run.requests) == 2


@pytest.mark.parametrize("protocol", BOTH)
async def test_gzip_garbage_on_every_attempt_fails_naming_the_encoding(harness: Harness, protocol: str) -> None:
    bad_error = Raw(500, {"Content-Type": "application/json", "Content-Encoding": "gzip"}, b"\x1f\x8bnot gzip")
    run = await harness.run(protocol, GZIP_GARBAGE, bad_error, GZIP_GARBAGE)
    run.assert_failed("after 3 retries", "could not decode", "Content-Encoding")


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_empty_200_is_retried(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, Raw(200, SSE, b""), Reply(text="Not empty this time."))
    run.assert_answered("Not empty this time.")
    assert len(run.requests) == 2


@pytest.mark.parametrize("protocol", BOTH)
async def test_empty_200s_fail_instead_of_passing_for_an_empty_answer(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, *[Raw(200, SSE, b"")] * 3)
    run.assert_failed("after 3 retries", "ended without an answer")


OPENAI_COMPLETION = {
    "id": "chatcmpl-whole",
    "object": "chat.completion",
    "model": "m",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "A whole answer at once."},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 40, "completion_tokens": 6, "total_tokens": 46},
}
ANTHROPIC_MESSAGE = {
    "id": "msg_whole",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [{"type": "text", "text": "A whole answer at once."}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 40, "output_tokens": 6},
}


def json_body(payload: object) -> Raw:
    return Raw(200, {"Content-Type": "application/json"}, json.dumps(payload).encode())


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_json_answer_where_a_stream_was_expected_is_read_as_the_answer(harness: Harness, protocol: str) -> None:
    run = await harness.run(
        protocol, ByProtocol(openai=json_body(OPENAI_COMPLETION), anthropic=json_body(ANTHROPIC_MESSAGE))
    )
    run.assert_answered("A whole answer at once.")
    assert len(run.requests) == 1
    session = await harness._dbs[-1].get_session(run.result.session_id)
    assert session["output_tokens"] == 6, "the body's usage is counted"


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_json_tool_call_where_a_stream_was_expected_runs_the_tool(harness: Harness, protocol: str) -> None:
    openai_call = {
        **OPENAI_COMPLETION,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_j",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": '{"path": "notes.txt"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    anthropic_call = {
        **ANTHROPIC_MESSAGE,
        "content": [{"type": "tool_use", "id": "toolu_j", "name": "read_file", "input": {"path": "notes.txt"}}],
        "stop_reason": "tool_use",
    }
    step = ByProtocol(openai=json_body(openai_call), anthropic=json_body(anthropic_call))
    run = await harness.run(protocol, step, Reply(text="The code is 4242."))
    run.assert_answered("The code is 4242.")
    assert run.roles == ["user", "assistant", "tool", "assistant"]
    assert "4242" in run.stored[2]["content"]


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_error_object_in_a_200_body_is_classified_by_its_message(harness: Harness, protocol: str) -> None:
    error = json_body({"error": {"message": "Rate limit exceeded: free-models-per-min", "code": 429}})
    run = await harness.run(protocol, error, Reply(text="Fine after the limit."))
    run.assert_answered("Fine after the limit.")
    assert run.retries and "rate limit" in run.retries[0]


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_event_stream_labelled_as_json_is_still_read(harness: Harness, protocol: str) -> None:
    body = "".join(events_of(protocol, Reply(text="Mislabelled but fine."))).encode()
    run = await harness.run(protocol, Raw(200, {"Content-Type": "application/json"}, body))
    run.assert_answered("Mislabelled but fine.")
    assert len(run.requests) == 1


HTML_PAGE = Raw(
    200, {"Content-Type": "text/html"}, b"<html><head><title>Sign in to Wi-Fi</title></head><body>portal</body></html>"
)


@pytest.mark.parametrize("protocol", BOTH)
async def test_an_html_page_instead_of_a_stream_fails_naming_it(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, HTML_PAGE, HTML_PAGE, HTML_PAGE)
    run.assert_failed("HTML page", "Sign in to Wi-Fi", "check the base URL")
    assert "<" not in run.result.error
