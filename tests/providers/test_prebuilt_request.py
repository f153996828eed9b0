"""Requests built and encoded by us, sent through the SDK clients' generic `post`.

The wire must be what the SDKs' own `create()` sends for the same arguments (same JSON, same
headers), a long request must be built off the event loop, and answers must read the same.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from typing import Any

import pytest

from hermes_tui.core.context.offload import OFF_LOOP_MIN_ITEMS
from hermes_tui.core.providers.anthropic import AnthropicProvider
from hermes_tui.core.providers.base import ChatRequest
from hermes_tui.core.providers.openai import OpenAIProvider
from hermes_tui.core.providers.prebuilt_request import MESSAGES_PER_SLICE, encode_body, prepared_body
from tests.fake_llm import FakeLLMServer, Reply
from tests.providers.helpers import READ_FILE_TOOL, collect, finish, texts, tool_calls

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


def test_encoding_is_the_sdks_compact_utf8_json() -> None:
    body = {"messages": [{"role": "user", "content": 'café 数据 🚀 "quoted"'}], "n": 1.5, "tags": {"b"}}
    encoded = encode_body(body)
    assert (
        encoded == '{"messages":[{"role":"user","content":"café 数据 🚀 \\"quoted\\""}],"n":1.5,"tags":["b"]}'.encode()
    )
    with pytest.raises(ValueError):
        encode_body({"temperature": math.nan})  # as the SDKs refuse it: not valid JSON


def test_a_long_message_list_encoded_in_slices_gives_the_same_bytes() -> None:
    messages = [
        {"role": "user", "content": f'turn {i}: café "quoted" \x00 🚀'} for i in range(MESSAGES_PER_SLICE * 3 + 7)
    ]
    messages[5]["content"] = 'a text that quotes a body: {"messages":[]}'
    body = {"model": "m", "messages": messages, "tools": [{"schema": {"messages": []}}], "stream": True}
    whole = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    assert encode_body(body) == whole
    assert json.loads(encode_body(body)) == body
    with pytest.raises(ValueError):  # a bad value in a later slice is refused all the same
        encode_body({**body, "messages": [*messages, {"role": "user", "content": math.inf}]})


class _Recording:
    """Notes on which thread `build_params` ran."""

    on_loop_thread: list[bool]

    def build_params(self, request: ChatRequest) -> dict[str, Any]:
        self.on_loop_thread.append(threading.current_thread() is threading.main_thread())
        return super().build_params(request)  # type: ignore[misc]


class _RecordingOpenAI(_Recording, OpenAIProvider):
    pass


class _RecordingAnthropic(_Recording, AnthropicProvider):
    pass


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_a_long_request_is_built_off_the_event_loop_and_a_short_one_inline(srv: FakeLLMServer, kind: str) -> None:
    if kind == "openai":
        provider: Any = _RecordingOpenAI("gpt-test", api_key="k", base_url=srv.base_url_openai)
    else:
        provider = _RecordingAnthropic("claude-test", api_key="k", base_url=srv.base_url_anthropic)
    provider.on_loop_thread = []
    turns = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"}
        for i in range(OFF_LOOP_MIN_ITEMS + 1)
    ]
    srv.enqueue(
        Reply(tool_calls=[("call_9", "read_file", '{"path": "x"}')]),
        Reply(text="short"),
    )
    long_events = await collect(provider, ChatRequest(messages=turns, tools=[READ_FILE_TOOL]))
    short_events = await collect(provider, ChatRequest(messages=turns[:3]))
    assert provider.on_loop_thread == [False, True]
    assert [call.name for call in tool_calls(long_events)] == ["read_file"]
    assert finish(long_events) == "tool_calls"
    assert "".join(texts(short_events)) == "short"
    assert len(srv.requests[-2].body["messages"]) == OFF_LOOP_MIN_ITEMS + 1
    await provider.aclose()


async def test_prepared_body_lets_the_loop_run_while_a_long_body_is_built() -> None:
    loop_ran = threading.Event()

    def build() -> dict[str, Any]:
        # set by a callback of the event loop: reachable only if this runs in a worker
        return {"loop_ran": loop_ran.wait(timeout=10)}

    asyncio.get_running_loop().call_later(0.01, loop_ran.set)
    assert json.loads(await prepared_body(build, size=OFF_LOOP_MIN_ITEMS)) == {"loop_ran": True}
