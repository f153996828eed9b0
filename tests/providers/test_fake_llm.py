"""The fake server itself: defaults, recording, auth, and interrupt behaviour through real clients."""

from __future__ import annotations

import asyncio

import anthropic
import openai
import pytest

from hermes_tui.core.providers.anthropic import AnthropicProvider
from hermes_tui.core.providers.base import ChatRequest, Provider, StreamText
from hermes_tui.core.providers.openai import OpenAIProvider
from tests.fake_llm import FakeLLMServer, Hang, Reply
from tests.providers.helpers import collect, texts


def providers(srv: FakeLLMServer, key: str = "k") -> list[Provider]:
    return [
        OpenAIProvider("m", api_key=key, base_url=srv.base_url_openai),
        AnthropicProvider("m", api_key=key, base_url=srv.base_url_anthropic),
    ]


def hello() -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": "hi"}])


async def test_empty_queue_answers_ok_and_every_request_is_recorded(srv: FakeLLMServer) -> None:
    for provider in providers(srv, key="secret-key"):
        assert "".join(texts(await collect(provider, hello()))) == "ok"
        await provider.aclose()
    assert [r.path for r in srv.requests] == ["/v1/chat/completions", "/v1/messages"]
    assert all(r.api_key == "secret-key" for r in srv.requests)
    assert all(r.body["messages"][0]["role"] == "user" for r in srv.requests)


async def test_steps_are_served_in_order_across_protocols(srv: FakeLLMServer) -> None:
    srv.enqueue(Reply(text="first"), Reply(text="second"))
    openai_provider, anthropic_provider = providers(srv)
    assert "".join(texts(await collect(anthropic_provider, hello()))) == "first"
    assert "".join(texts(await collect(openai_provider, hello()))) == "second"
    await openai_provider.aclose()
    await anthropic_provider.aclose()


async def test_requests_without_a_key_are_refused(srv: FakeLLMServer) -> None:
    client = openai.AsyncOpenAI(
        api_key="k", base_url=srv.base_url_openai, max_retries=0, default_headers={"Authorization": ""}
    )
    with pytest.raises(openai.AuthenticationError):
        await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    await client.close()


async def test_hang_is_released_when_the_server_stops() -> None:
    srv = FakeLLMServer().start()
    srv.enqueue(Hang(seconds=60))
    provider = AnthropicProvider("m", api_key="k", base_url=srv.base_url_anthropic)
    received: list[str] = []

    async def consume() -> None:
        async for event in provider.stream(hello()):
            if isinstance(event, StreamText):
                received.append(event.text)

    task = asyncio.create_task(consume())
    try:
        await srv.wait_for_requests(1)
        while not received:
            await asyncio.sleep(0.01)
        await asyncio.to_thread(srv.stop)
        with pytest.raises(Exception) as caught:  # the broken stream surfaces as the SDK/transport error
            await asyncio.wait_for(task, timeout=10)
        assert not isinstance(caught.value, asyncio.TimeoutError)
    finally:
        await provider.aclose()
    assert received == ["thinking about it"]


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
async def test_cancelling_a_hanging_stream_returns_promptly(srv: FakeLLMServer, sdk: str) -> None:
    """Ctrl-C during a slow answer: the task ends at once and the partial text is in hand."""
    srv.enqueue(Hang(seconds=60))
    provider = providers(srv)[0 if sdk == "openai" else 1]
    received: list[str] = []

    async def consume() -> None:
        async for event in provider.stream(hello()):
            if isinstance(event, StreamText):
                received.append(event.text)

    task = asyncio.create_task(consume())
    while not received:
        await asyncio.wait_for(asyncio.sleep(0.01), timeout=5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=5)
    assert received == ["thinking about it"]
    srv.enqueue(Reply(text="still works"))
    assert "".join(texts(await collect(provider, hello()))) == "still works", "the provider survives a cancel"
    await provider.aclose()


async def test_hang_finishes_normally_when_it_times_out(srv: FakeLLMServer) -> None:
    srv.enqueue(Hang(seconds=0.05, first_text="slow ", reply=Reply(text="answer")))
    provider = providers(srv)[0]
    events = await collect(provider, hello())
    assert "".join(texts(events)) == "slow answer"
    await provider.aclose()


def test_error_bodies_have_each_protocols_shape() -> None:
    from tests.fake_llm import Fail, anthropic_error_body, openai_error_body

    fail = Fail(429, "slow down", code="rate_limit_exceeded")
    assert openai_error_body(fail) == {
        "error": {"message": "slow down", "type": "requests", "code": "rate_limit_exceeded", "param": None}
    }
    assert anthropic_error_body(fail) == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
    }
    assert anthropic.RateLimitError.__name__ == "RateLimitError"
