"""Requests built and encoded by us, sent through the SDK clients' generic `post`.

The wire must be what the SDKs' own `create()` sends for the same arguments (same JSON, same
headers), a long request is built a slice at a time (the loop runs between), and answers must
read the same.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from hermes_tui.core.context.offload import SLICE_ITEMS
from hermes_tui.core.providers.anthropic import AnthropicProvider
from hermes_tui.core.providers.base import ChatRequest
from hermes_tui.core.providers.openai import OpenAIProvider
from hermes_tui.core.providers.prebuilt_request import MESSAGES_PER_SLICE, encode_body_in_slices
from tests.fake_llm import FakeLLMServer, Reply
from tests.loop_watch import LoopTurns
from tests.providers.helpers import READ_FILE_TOOL, collect, texts

# headers that differ between any two requests, whoever builds them
VARYING_HEADERS = frozenset({"content-length"})

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are Hermes. «Unicode» — ünïcödé, 数据库, emoji 🚀"},
    {"role": "user", "content": [{"type": "text", "text": "What is in this picture?"}]},
    {
        "role": "assistant",
        "content": "Reading it.",
        "reasoning_content": "need the file",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": 'print("hi")\n\ttabs\\back\u2028line'},
    {"role": "user", "content": "And now?"},
]


def _differing_headers(first: dict[str, str], second: dict[str, str]) -> dict[str, tuple[str | None, str | None]]:
    names = (set(first) | set(second)) - VARYING_HEADERS
    return {name: (first.get(name), second.get(name)) for name in names if first.get(name) != second.get(name)}


async def test_openai_request_matches_what_the_sdk_create_sends(srv: FakeLLMServer) -> None:
    provider = OpenAIProvider("gpt-test", api_key="sk-test", base_url=srv.base_url_openai, reasoning_effort="low")
    request = ChatRequest(messages=CONVERSATION, tools=[READ_FILE_TOOL], max_tokens=77, timeout=30)
    srv.enqueue(Reply(text="one"), Reply(text="two"))
    events = await collect(provider, request)
    params = provider.build_params(request)
    sdk_stream = await provider._get_client().chat.completions.create(
        **params, timeout=provider.timeouts.http_timeout(30)
    )
    async for _ in sdk_stream:
        pass
    ours, sdk = srv.requests[-2], srv.requests[-1]
    assert ours.path == sdk.path == "/v1/chat/completions"
    assert ours.body == sdk.body
    assert ours.body["messages"][0]["content"].endswith("emoji 🚀")
    assert _differing_headers(ours.headers, sdk.headers) == {}
    assert "".join(texts(events)) == "one"
    await provider.aclose()


async def test_anthropic_request_matches_what_the_sdk_create_sends(srv: FakeLLMServer) -> None:
    provider = AnthropicProvider(
        "claude-test", api_key="sk-ant-test", base_url=srv.base_url_anthropic, thinking_budget=2048
    )
    request = ChatRequest(messages=CONVERSATION, tools=[READ_FILE_TOOL], max_tokens=4096, timeout=30)
    srv.enqueue(Reply(text="one"), Reply(text="two"))
    events = await collect(provider, request)
    sdk_stream = await provider._get_client().messages.create(
        stream=True, **provider.build_params(request), timeout=provider.timeouts.http_timeout(30)
    )
    async for _ in sdk_stream:
        pass
    ours, sdk = srv.requests[-2], srv.requests[-1]
    assert ours.path == sdk.path == "/v1/messages"
    assert ours.body == sdk.body
    assert ours.body["stream"] is True and ours.body["thinking"]["budget_tokens"] == 2048
    assert _differing_headers(ours.headers, sdk.headers) == {}
    assert "".join(texts(events)) == "one"
    await provider.aclose()


async def test_encoding_is_the_sdks_compact_utf8_json() -> None:
    body = {"messages": [{"role": "user", "content": 'café 数据 🚀 "quoted"'}], "n": 1.5, "tags": {"b"}}
    encoded = await encode_body_in_slices(body)
    assert (
        encoded == '{"messages":[{"role":"user","content":"café 数据 🚀 \\"quoted\\""}],"n":1.5,"tags":["b"]}'.encode()
    )
    with pytest.raises(ValueError):
        await encode_body_in_slices({"temperature": math.nan})  # as the SDKs refuse it: not valid JSON


async def test_a_long_message_list_encoded_in_slices_gives_the_same_bytes() -> None:
    messages = [
        {"role": "user", "content": f'turn {i}: café "quoted" \x00 🚀'} for i in range(MESSAGES_PER_SLICE * 3 + 7)
    ]
    messages[5]["content"] = 'a text that quotes a body: {"messages":[]}'
    body = {"model": "m", "messages": messages, "tools": [{"schema": {"messages": []}}], "stream": True}
    whole = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    assert await encode_body_in_slices(body) == whole
    assert json.loads(await encode_body_in_slices(body)) == body
    with pytest.raises(ValueError):  # a bad value in a later slice is refused all the same
        await encode_body_in_slices({**body, "messages": [*messages, {"role": "user", "content": math.inf}]})


def _long_conversation(count: int) -> list[dict[str, Any]]:
    """A system prompt, then `count` turns of questions, tool calls, results and answers."""
    messages: list[dict[str, Any]] = [CONVERSATION[0]]
    for i in range(count // 4):
        call = {"id": f"call_{i}", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a"}'}}
        messages += [
            {"role": "user", "content": f"question {i} — ünïcödé"},
            {"role": "assistant", "content": f"reading {i}", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": f"result {i}\n\tindented"},
            {"role": "assistant", "content": f"answer {i} 🚀"},
        ]
    return messages


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_a_long_request_translated_in_slices_sends_what_create_would(srv: FakeLLMServer, kind: str) -> None:
    """Past one slice, the messages are translated and encoded a slice at a time on the loop; the
    server must still receive exactly the body `create()` sends for the same request."""
    request = ChatRequest(messages=_long_conversation(SLICE_ITEMS * 3 + 8), tools=[READ_FILE_TOOL], max_tokens=64)
    srv.enqueue(Reply(text="one"), Reply(text="two"))
    if kind == "openai":
        provider: Any = OpenAIProvider("gpt-test", api_key="k", base_url=srv.base_url_openai)
        await collect(provider, request)
        sdk_stream = await provider._get_client().chat.completions.create(**provider.build_params(request))
    else:
        provider = AnthropicProvider("claude-test", api_key="k", base_url=srv.base_url_anthropic)
        await collect(provider, request)
        sdk_stream = await provider._get_client().messages.create(stream=True, **provider.build_params(request))
    async for _ in sdk_stream:
        pass
    ours, sdk = srv.requests[-2], srv.requests[-1]
    assert ours.body == sdk.body
    assert len(ours.body["messages"]) > SLICE_ITEMS * 2  # really past several slices
    await provider.aclose()


async def test_encoding_in_slices_lets_the_loop_run_between_the_slices() -> None:
    messages = [{"role": "user", "content": f"turn {i} «»"} for i in range(MESSAGES_PER_SLICE * 4 + 3)]
    body = {"model": "m", "messages": messages, "stream": True}
    async with LoopTurns() as turns:
        before = turns.ticks
        encoded = await encode_body_in_slices(body)
        after = turns.ticks
    assert encoded == json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    assert after - before >= 4  # the ticker ran between the slices, not only after the whole body
