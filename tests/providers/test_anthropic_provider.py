"""AnthropicProvider through the real AsyncAnthropic client against the loopback fake server."""

from __future__ import annotations

import json

import anthropic
import httpx2
import pytest

from hermes_tui.core.providers.anthropic import AnthropicProvider
from hermes_tui.core.providers.base import ChatRequest, StreamReasoning, StreamText, StreamToolCall, Usage
from hermes_tui.core.providers.failures import ProviderConnectionError, ProviderTimeout
from tests.fake_llm import Disconnect, Fail, FakeLLMServer, Hang, Reply, StreamError
from tests.providers.helpers import READ_FILE_TOOL, collect, finish, reasoning, texts, tool_calls, usages


def causes(error: BaseException) -> list[BaseException]:
    """`error`'s causes, nearest first (each `__cause__`, else `__context__`)."""
    found: list[BaseException] = []
    current = error.__cause__ or error.__context__
    while current is not None and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def make(srv: FakeLLMServer, **kwargs) -> AnthropicProvider:
    return AnthropicProvider("claude-test", api_key="sk-ant-test", base_url=srv.base_url_anthropic, **kwargs)


def hello() -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": "hi"}])


CONVERSATION = [
    {"role": "system", "content": "You are Hermes."},
    {"role": "user", "content": "Compare the two files."},
    {
        "role": "assistant",
        "content": "Reading both.",
        "reasoning": "two reads",
        "finish_reason": "tool_calls",
        "tool_calls": [
            {
                "id": "toolu_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
            },
            {
                "id": "toolu_2",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "b.py"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "toolu_1", "tool_name": "read_file", "content": "print('a')"},
    {"role": "tool", "tool_call_id": "toolu_2", "tool_name": "read_file", "content": "print('b')"},
    {"role": "assistant", "content": "They differ in one letter."},
    {"role": "user", "content": "Thanks!", "_memory_flag": True},
]


async def test_text_thinking_and_two_tool_calls_are_normalised(srv: FakeLLMServer) -> None:
    first = json.dumps({"path": "src/hermes_tui/app.py"})
    second = json.dumps({"command": "pytest -q", "timeout": 60})
    srv.enqueue(
        Reply(
            text="I'll check both.",
            reasoning="The user wants two things at once.",
            tool_calls=[("toolu_a", "read_file", first), ("toolu_b", "terminal", second)],
            chunk_size=3,
        )
    )
    provider = make(srv)
    events = await collect(provider, ChatRequest(messages=[{"role": "user", "content": "go"}], tools=[READ_FILE_TOOL]))
    assert isinstance(events[0], StreamReasoning)
    assert "".join(reasoning(events)) == "The user wants two things at once."
    assert len(texts(events)) > 1
    assert "".join(texts(events)) == "I'll check both."
    assert tool_calls(events) == [
        StreamToolCall("toolu_a", "read_file", first),
        StreamToolCall("toolu_b", "terminal", second),
    ]
    assert finish(events) == "tool_calls"
    await provider.aclose()


async def test_usage_counts_the_whole_prompt_including_cache(srv: FakeLLMServer) -> None:
    srv.enqueue(Reply(text="cached answer", usage=(50_000, 120, 40_000, 6_000)))
    provider = make(srv)
    events = await collect(provider, hello())
    assert [u.usage for u in usages(events)] == [
        Usage(prompt_tokens=50_000, completion_tokens=120, cache_read_tokens=40_000, cache_write_tokens=6_000)
    ]
    assert usages(events)[0].usage.input_tokens == 4_000  # the uncached remainder
    await provider.aclose()


@pytest.mark.parametrize(
    ("wire_stop", "expected"),
    [
        ("end_turn", "stop"),
        ("tool_use", "tool_calls"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
    ],
)
async def test_stop_reasons_are_mapped_to_openai_names(srv: FakeLLMServer, wire_stop: str, expected: str) -> None:
    srv.enqueue(Reply(text="x", finish=wire_stop))
    provider = make(srv)
    assert finish(await collect(provider, hello())) == expected
    await provider.aclose()


async def test_request_translation_as_the_server_sees_it(srv: FakeLLMServer) -> None:
    provider = make(srv, prompt_caching=False)
    await collect(provider, ChatRequest(messages=CONVERSATION, tools=[READ_FILE_TOOL]))
    body = srv.last_body
    assert body["system"] == [{"type": "text", "text": "You are Hermes."}]
    assert body["max_tokens"] == 4096
    assert body["model"] == "claude-test"
    assert body["tools"] == [
        {
            "name": "read_file",
            "description": "Read a text file",
            "input_schema": READ_FILE_TOOL["function"]["parameters"],
        }
    ]
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    assistant = body["messages"][1]["content"]
    assert assistant[0] == {"type": "text", "text": "Reading both."}
    assert assistant[1] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "read_file",
        "input": {"path": "a.py"},
    }
    results = body["messages"][2]["content"]
    assert results == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "print('a')"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "print('b')"},
    ], "consecutive tool results travel in one user message"
    assert body["messages"][4]["content"] == [{"type": "text", "text": "Thanks!"}]
    await provider.aclose()


async def test_caching_markers_on_system_and_last_three_messages(srv: FakeLLMServer) -> None:
    provider = make(srv)
    await collect(provider, ChatRequest(messages=CONVERSATION, cache_ttl="1h"))
    body = srv.last_body
    marker = {"type": "ephemeral", "ttl": "1h"}
    marked_blocks = [block for message in body["messages"] for block in message["content"] if "cache_control" in block]
    assert body["system"][-1]["cache_control"] == marker
    assert len(marked_blocks) == 3
    assert all(block["cache_control"] == marker for block in marked_blocks)
    # the last three canonical messages: tool result b, the assistant reply, the final user turn
    assert marked_blocks[0] == {
        "type": "tool_result",
        "tool_use_id": "toolu_2",
        "content": "print('b')",
        "cache_control": marker,
    }
    assert marked_blocks[-1]["text"] == "Thanks!"
    assert "cache_control" not in CONVERSATION[-1], "the caller's messages are untouched"
    await provider.aclose()


async def test_max_tokens_from_the_request_and_thinking_budget(srv: FakeLLMServer) -> None:
    provider = make(srv, thinking_budget=2048)
    await collect(provider, ChatRequest(messages=[{"role": "user", "content": "x"}], max_tokens=9000))
    assert srv.last_body["max_tokens"] == 9000
    assert srv.last_body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    await provider.aclose()


async def test_the_key_reaches_the_server(srv: FakeLLMServer) -> None:
    provider = make(srv)
    await collect(provider, hello())
    assert srv.requests[-1].path == "/v1/messages"
    assert srv.requests[-1].api_key == "sk-ant-test"
    await provider.aclose()


async def test_instance_is_reusable_across_calls(srv: FakeLLMServer) -> None:
    srv.enqueue(Reply(text="first"), Reply(text="second"))
    provider = make(srv)
    answers = ["".join(texts(await collect(provider, hello()))) for _ in range(2)]
    assert answers == ["first", "second"]
    await provider.aclose()
    assert provider._client is None


@pytest.mark.parametrize(
    ("step", "error_type", "status"),
    [
        (
            Fail(429, "Number of request tokens has exceeded your per-minute rate limit"),
            anthropic.RateLimitError,
            429,
        ),
        (Fail(529, "Overloaded"), anthropic.OverloadedError, 529),
        (
            Fail(413, "Request exceeds the maximum allowed number of bytes."),
            anthropic.ContentTooLargeError,
            413,
        ),
        (Fail(401, "invalid x-api-key"), anthropic.AuthenticationError, 401),
        (Fail(500, "Internal server error"), anthropic.InternalServerError, 500),
    ],
)
async def test_http_errors_surface_as_sdk_exceptions_after_one_attempt(
    srv: FakeLLMServer, step: Fail, error_type: type, status: int
) -> None:
    srv.enqueue(step)
    provider = make(srv)
    with pytest.raises(error_type) as caught:
        await collect(provider, hello())
    assert caught.value.status_code == status
    assert len(srv.requests) == 1, "max_retries=0: our loop owns retries"
    await provider.aclose()


async def test_error_event_inside_the_stream(srv: FakeLLMServer) -> None:
    srv.enqueue(StreamError(after_chunks=5, message="Overloaded"))
    provider = make(srv)
    received: list[str] = []
    with pytest.raises(anthropic.APIStatusError) as caught:
        async for event in provider.stream(hello()):
            if isinstance(event, StreamText):
                received.append(event.text)
    assert caught.value.type == "overloaded_error"
    assert received, "deltas before the failure reached the caller"
    await provider.aclose()


async def test_disconnect_mid_stream_is_a_connection_error_naming_the_cause(srv: FakeLLMServer) -> None:
    srv.enqueue(Disconnect(after_chunks=4))
    provider = make(srv)
    with pytest.raises(ProviderConnectionError, match="broke mid-answer: peer closed connection") as caught:
        await collect(provider, hello())
    assert any(isinstance(linked, httpx2.RemoteProtocolError) for linked in causes(caught.value)), (
        "the transport error stays chained (anthropic 2.17 wraps it in APIConnectionError; earlier ones did not)"
    )
    await provider.aclose()


async def test_read_timeout_is_a_typed_idle_timeout(srv: FakeLLMServer) -> None:
    srv.enqueue(Hang(seconds=30))
    provider = make(srv, timeout=0.3)
    with pytest.raises(ProviderTimeout) as caught:
        await collect(provider, hello())
    assert (caught.value.kind, caught.value.seconds) == ("idle", 0.3)
    assert any(isinstance(linked, httpx2.ReadTimeout) for linked in causes(caught.value)), (
        "the transport error stays chained (anthropic 2.17 wraps it in APITimeoutError; earlier ones did not)"
    )
    await provider.aclose()
