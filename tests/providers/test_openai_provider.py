"""OpenAIProvider through the real AsyncOpenAI client against the loopback fake server."""

from __future__ import annotations

import json

import openai
import pytest

from hermes_tui.core.providers.base import ChatRequest, StreamReasoning, StreamText, StreamToolCall, Usage
from hermes_tui.core.providers.failures import ProviderConnectionError, ProviderTimeout
from hermes_tui.core.providers.openai import OpenAIProvider, wire_message
from tests.fake_llm import Disconnect, Fail, FakeLLMServer, Hang, Reply, StreamError
from tests.providers.helpers import READ_FILE_TOOL, collect, finish, reasoning, texts, tool_calls, usages


def make(srv: FakeLLMServer, **kwargs) -> OpenAIProvider:
    return OpenAIProvider("gpt-test", api_key="sk-test", base_url=srv.base_url_openai, **kwargs)


def hello() -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": "hi"}])


async def test_text_arrives_as_several_deltas_in_order(srv: FakeLLMServer) -> None:
    srv.enqueue(Reply(text="The quick brown fox jumps.", chunk_size=5))
    provider = make(srv)
    events = await collect(provider, hello())
    assert len(texts(events)) >= 5
    assert "".join(texts(events)) == "The quick brown fox jumps."
    assert finish(events) == "stop"
    await provider.aclose()


async def test_two_parallel_tool_calls_are_assembled_from_fragments(srv: FakeLLMServer) -> None:
    first_args = json.dumps({"path": "docs/a very long file name.md", "offset": 10})
    second_args = json.dumps({"command": "ls -la /tmp"})
    srv.enqueue(
        Reply(
            text="Let me look.",
            tool_calls=[("call_1", "read_file", first_args), ("call_2", "terminal", second_args)],
            chunk_size=3,
        )
    )
    provider = make(srv)
    events = await collect(provider, ChatRequest(messages=[{"role": "user", "content": "go"}], tools=[READ_FILE_TOOL]))
    calls = tool_calls(events)
    assert calls == [
        StreamToolCall("call_1", "read_file", first_args),
        StreamToolCall("call_2", "terminal", second_args),
    ]
    assert json.loads(calls[0].arguments)["path"] == "docs/a very long file name.md"
    assert finish(events) == "tool_calls"
    assert srv.last_body["tools"] == [READ_FILE_TOOL]
    await provider.aclose()


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_deltas_from_either_field(srv: FakeLLMServer, field: str) -> None:
    srv.enqueue(Reply(text="42", reasoning="Let me count carefully.", reasoning_field=field))
    provider = make(srv)
    events = await collect(provider, hello())
    assert "".join(reasoning(events)) == "Let me count carefully."
    assert isinstance(events[0], StreamReasoning), "reasoning streams before the answer"
    assert "".join(texts(events)) == "42"
    await provider.aclose()


async def test_usage_from_the_final_chunk_with_cache_and_reasoning_tokens(srv: FakeLLMServer) -> None:
    srv.enqueue(Reply(text="ok", usage=(1200, 80, 1024, 0), reasoning_tokens=30))
    provider = make(srv)
    events = await collect(provider, hello())
    assert [u.usage for u in usages(events)] == [
        Usage(prompt_tokens=1200, completion_tokens=80, cache_read_tokens=1024, reasoning_tokens=30)
    ]
    assert srv.last_body["stream"] is True
    assert srv.last_body["stream_options"] == {"include_usage": True}
    await provider.aclose()


@pytest.mark.parametrize("reason", ["length", "content_filter", "stop"])
async def test_finish_reason_is_passed_through(srv: FakeLLMServer, reason: str) -> None:
    srv.enqueue(Reply(text="partial", finish=reason))
    provider = make(srv)
    assert finish(await collect(provider, hello())) == reason
    await provider.aclose()


async def test_tool_calls_reported_with_finish_stop_become_tool_calls(srv: FakeLLMServer) -> None:
    srv.enqueue(Reply(tool_calls=[("c1", "read_file", '{"path":"x"}')], finish="stop"))
    provider = make(srv)
    events = await collect(provider, hello())
    assert finish(events) == "tool_calls"
    await provider.aclose()


async def test_wire_copy_drops_flags_and_canonical_only_keys(srv: FakeLLMServer) -> None:
    messages = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "read it", "_memory_context": "secret flag", "timestamp": 1.0},
        {
            "role": "assistant",
            "content": None,
            "reasoning": "I should read it",
            "finish_reason": "tool_calls",
            "_thinking_prefill": True,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": {"path": "a"}},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "tool_name": "read_file", "content": "line one"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and this picture"},
                {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
            ],
        },
    ]
    original = json.loads(json.dumps(messages))
    provider = make(srv)
    await collect(provider, ChatRequest(messages=messages))
    sent = srv.last_body["messages"]
    assert messages == original, "the caller's messages are not modified"
    assert sent[1] == {"role": "user", "content": "read it"}
    assert sent[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a"}'}}
        ],
    }
    assert sent[3] == {"role": "tool", "tool_call_id": "c1", "content": "line one"}
    assert sent[4]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    await provider.aclose()


def test_wire_message_flattens_the_multimodal_tool_envelope() -> None:
    envelope = {"_multimodal": True, "text_summary": "a screenshot of the login page"}
    assert wire_message({"role": "tool", "tool_call_id": "c", "content": envelope})["content"] == (
        "a screenshot of the login page"
    )


async def test_key_sent_as_bearer_and_model_and_max_tokens_on_a_compatible_server(srv: FakeLLMServer) -> None:
    provider = make(srv)
    await collect(provider, ChatRequest(messages=[{"role": "user", "content": "hi"}], max_tokens=321))
    request = srv.requests[-1]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body["model"] == "gpt-test"
    assert request.body["max_tokens"] == 321
    await provider.aclose()


def test_official_api_gets_max_completion_tokens() -> None:
    params = OpenAIProvider("gpt-5", api_key="k").build_params(
        ChatRequest(messages=[{"role": "user", "content": "x"}], max_tokens=100)
    )
    assert params["max_completion_tokens"] == 100
    assert "max_tokens" not in params


async def test_instance_is_reusable_and_aclose_releases_the_client(srv: FakeLLMServer) -> None:
    srv.enqueue(Reply(text="one"), Reply(text="two"))
    provider = make(srv)
    first = await collect(provider, hello())
    second = await collect(provider, hello())
    assert ("".join(texts(first)), "".join(texts(second))) == ("one", "two")
    assert len(srv.requests) == 2
    await provider.aclose()
    assert provider._client is None
    third = await collect(provider, hello())  # a closed provider opens a fresh client on demand
    assert "".join(texts(third)) == "ok"
    await provider.aclose()


async def test_http_errors_surface_as_sdk_exceptions_after_exactly_one_attempt(srv: FakeLLMServer) -> None:
    srv.enqueue(Fail(500, "upstream exploded"))
    provider = make(srv)
    with pytest.raises(openai.InternalServerError) as caught:
        await collect(provider, hello())
    assert caught.value.status_code == 500
    assert len(srv.requests) == 1, "max_retries=0: our loop owns retries"
    srv.enqueue(Fail(429, "Rate limit reached", code="rate_limit_exceeded"))
    with pytest.raises(openai.RateLimitError):
        await collect(provider, hello())
    assert len(srv.requests) == 2
    await provider.aclose()


async def test_error_inside_the_stream_after_partial_text(srv: FakeLLMServer) -> None:
    srv.enqueue(StreamError(after_chunks=3, message="The server had an error", type="server_error"))
    provider = make(srv)
    received: list[str] = []
    with pytest.raises(openai.APIError, match="The server had an error"):
        async for event in provider.stream(hello()):
            if isinstance(event, StreamText):
                received.append(event.text)
    assert received, "deltas before the failure reached the caller"
    await provider.aclose()


async def test_disconnect_mid_stream_is_a_connection_error(srv: FakeLLMServer) -> None:
    srv.enqueue(Disconnect(after_chunks=2))
    provider = make(srv)
    with pytest.raises(ProviderConnectionError, match="broke mid-answer") as caught:
        await collect(provider, hello())
    assert isinstance(caught.value.__cause__, openai.APIConnectionError), "the SDK error stays chained"
    await provider.aclose()


async def test_read_timeout_per_request(srv: FakeLLMServer) -> None:
    srv.enqueue(Hang(seconds=30))
    provider = make(srv)
    request = ChatRequest(messages=[{"role": "user", "content": "hi"}], timeout=0.3)
    with pytest.raises(ProviderTimeout, match=r"no data for 0\.3 s \(stream idle timeout\)") as caught:
        await collect(provider, request)
    assert caught.value.kind == "idle"
    await provider.aclose()
