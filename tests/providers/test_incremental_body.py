"""A request body built from what changed since the conversation's previous request.

The incremental path (`RequestCopy` + the providers' kept bytes) must send, byte for byte, what the
full path (`build_api_messages` + `build_params` + `encode_body_in_slices`) sends for the same
request — across appends, in-place edits of the newest messages, per-turn context, extra messages,
compression, branch, rewind and pins, for both wire shapes — while encoding only the new messages.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from hermes_tui.core.messages import CHANGING_TAIL
from hermes_tui.core.providers import request_body
from hermes_tui.core.providers.anthropic import AnthropicProvider
from hermes_tui.core.providers.base import ChatRequest, RequestCache
from hermes_tui.core.providers.openai import OpenAIProvider
from hermes_tui.core.turn.api_messages import build_api_messages
from hermes_tui.core.turn.request_copy import RequestCopy
from tests.fake_llm import FakeLLMServer, Reply
from tests.providers.helpers import READ_FILE_TOOL, collect

SYSTEM = "You are Hermes. «Unicode» — ünïcödé, 数据库, emoji 🚀"


def _providers() -> dict[str, Any]:
    return {
        "openai": OpenAIProvider("gpt-test", api_key="k"),
        "openai-compatible": OpenAIProvider("local", api_key="k", base_url="http://127.0.0.1:9/v1"),
        "anthropic": AnthropicProvider("claude-test", api_key="k", thinking_budget=1024),
        "anthropic-no-caching": AnthropicProvider("claude-test", api_key="k", prompt_caching=False),
    }


def _round(i: int, rng: random.Random) -> list[dict[str, Any]]:
    """One user ask and its tool rounds, in the shapes a real history holds."""
    out: list[dict[str, Any]] = [{"role": "user", "content": f"  step {i}: fix module_{i % 7}.py — «ü» 🚀  "}]
    if rng.random() < 0.1:
        out.append({"role": "user", "content": [{"type": "text", "text": f"and look at this {i}"}]})  # merged
    calls = [
        {
            "id": f"call_{i}_{n}",
            "type": "function",
            "function": {"name": "read_file", "arguments": f'{{"path": "m{i}.py", "n": {n}}}'},
        }
        for n in range(rng.randint(1, 3))
    ]
    assistant: dict[str, Any] = {"role": "assistant", "content": f"reading {i}", "tool_calls": calls, "_db_id": i}
    if rng.random() < 0.3:
        assistant["reasoning_content"] = f"think {i}"
        assistant["reasoning_details"] = [{"type": "thinking", "thinking": f"t{i}", "signature": f"sig{i}"}]
    out.append(assistant)
    answered = calls if rng.random() > 0.1 else calls[:-1]  # sometimes a call without result: a stub
    for call in answered:
        out.append({"role": "tool", "tool_call_id": call["id"], "tool_name": "read_file", "content": f"line\n\t{i}\n"})
    if rng.random() < 0.05:
        out.append({"role": "tool", "tool_call_id": "call_nobody_made", "content": "stray"})
    if rng.random() < 0.05:
        out.append({"role": "assistant", "content": ""})  # nothing to send (Anthropic leaves it out)
    if rng.random() < 0.05:
        out.append({"role": "assistant", "content": [{"type": "text", "text": "marked", "cache_control": {"x": 1}}]})
    out.append({"role": "assistant", "content": f"module {i} fixed ✓"})
    return out


class Conversation:
    """A history and its cache, as one live session holds them."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider
        self.cache = RequestCache()
        self.history: list[dict[str, Any]] = []

    async def request(self, **kwargs: Any) -> ChatRequest:
        """The next call's request, built incrementally as `turn.calls.build_request` builds it."""
        copy: RequestCopy = self.cache.slot("request_copy", RequestCopy)
        messages, reusable = await copy.build(list(self.history), SYSTEM, **kwargs)
        return ChatRequest(messages=messages, cache=self.cache, reusable=reusable, **OPTIONS)


OPTIONS: dict[str, Any] = {"tools": [READ_FILE_TOOL], "max_tokens": 99, "cache_ttl": "1h"}


async def _check(conversation: Conversation, *, context: str = "", extra: list[dict[str, Any]] | None = None) -> int:
    """Encode the next request both ways and compare the bytes; how many messages the incremental
    path encoded."""
    request = await conversation.request(extra_user_context=context, extra_messages=extra)
    full = build_api_messages(list(conversation.history), SYSTEM, extra_user_context=context, extra_messages=extra)
    assert request.messages == full
    ours = await conversation.provider.request_body(request)
    whole = await conversation.provider.request_body(ChatRequest(messages=full, **OPTIONS))
    assert ours == whole, "the incremental body differs from the full encoding"
    return int(conversation.cache.encoder(_encoder_key(conversation.provider), dict).encoded_last_call)


def _encoder_key(provider: Any) -> object:
    if isinstance(provider, OpenAIProvider):
        return ("openai", not provider.is_official_api)
    return ("anthropic", provider.prompt_caching, OPTIONS["cache_ttl"])


@pytest.mark.parametrize("kind", sorted(_providers()))
async def test_the_incremental_body_is_the_full_encoding_through_every_kind_of_change(kind: str) -> None:
    rng = random.Random(23)
    conversation = Conversation(_providers()[kind])
    history = conversation.history
    for i in range(40):
        history.extend(_round(i, rng))
        await _check(conversation)
    # the newest message edited in place (a streamed answer, a row id), then replaced (a steer)
    history[-1]["content"] = "edited in place"
    history[-1]["_db_id"] = 999
    await _check(conversation)
    history[-1] = {**history[-1], "content": "replaced by a steer"}
    await _check(conversation)
    # per-turn material on the current user message, and the grace call's extra message
    history.extend(_round(40, rng))
    await _check(conversation, context="<memory>recalled</memory>")
    await _check(conversation, context="<memory>recalled</memory>", extra=[{"role": "user", "content": "summarise"}])
    history.append({"role": "user", "content": "a user message after a whole round"})
    await _check(conversation, context="<memory>other</memory>")
    # a pin: the message replaced by a copy with an in-memory flag
    history[10] = {**history[10], "_pinned": True}
    await _check(conversation)
    # compression: the head kept, a summary, copies of the tail
    head, tail = history[:3], [dict(m) for m in history[-30:]]
    history[:] = [*head, {"role": "user", "content": "[CONTEXT COMPACTION] summary"}, *tail]
    await _check(conversation)
    for i in range(41, 60):
        history.extend(_round(i, rng))
        await _check(conversation)
    # a branch: copies of a prefix; then a rewind (a shorter list of the same objects)
    history[:] = [dict(m) for m in history[:50]]
    await _check(conversation)
    history.extend(_round(60, rng))
    await _check(conversation)
    del history[len(history) - 20 :]
    await _check(conversation)
    history.extend(_round(61, rng))
    await _check(conversation)
    # a history shorter than the changing tail, and an empty one
    history[:] = history[:5]
    await _check(conversation)
    history.clear()
    await _check(conversation)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_a_call_on_a_long_history_encodes_only_what_changed(kind: str) -> None:
    rng = random.Random(7)
    conversation = Conversation(_providers()[kind])
    for i in range(400):
        conversation.history.extend(_round(i, rng))
    first = await _check(conversation)
    assert first > 1500  # the first call encodes everything
    conversation.history.extend(_round(400, rng))
    second = await _check(conversation)
    # the new round, the changing tail and the breakpoints before it — not the whole history again
    assert second <= len(_round(400, random.Random(0))) + 3 * CHANGING_TAIL, second


async def test_the_server_receives_the_incremental_body(srv: FakeLLMServer) -> None:
    """Through the real SDK client: the second call of a long conversation, encoded incrementally,
    reaches the server as the body the full path gives for the same history."""
    provider = AnthropicProvider("claude-test", api_key="k", base_url=srv.base_url_anthropic)
    conversation = Conversation(provider)
    rng = random.Random(3)
    for i in range(100):
        conversation.history.extend(_round(i, rng))
    srv.enqueue(Reply(text="one"), Reply(text="two"))
    await collect(provider, await conversation.request())
    conversation.history.extend(_round(100, rng))
    await collect(provider, await conversation.request())
    whole = await provider.request_body(
        ChatRequest(messages=build_api_messages(conversation.history, SYSTEM), **OPTIONS)
    )
    assert srv.requests[-1].body == json.loads(whole)
    assert conversation.cache.encoder(_encoder_key(provider), dict).encoded_last_call < 3 * CHANGING_TAIL
    await provider.aclose()


@pytest.mark.parametrize("kind", sorted(_providers()))
async def test_the_kept_bytes_stay_under_their_bound_and_the_body_stays_the_full_encoding(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bound = 3_000
    monkeypatch.setattr(request_body, "KEPT_BODY_BYTES", bound)
    rng = random.Random(7)
    conversation = Conversation(_providers()[kind])
    history = conversation.history
    kept: list[int] = []
    for i in range(60):  # far more than the bound holds
        history.extend(_round(i, rng))
        await _check(conversation)  # byte for byte the full encoding, call after call
        kept.append(conversation.cache.encoder(_encoder_key(conversation.provider), dict).kept_bytes)
    assert max(kept) <= bound
    assert kept[-1] > bound // 2  # it keeps what fits, not nothing
    del history[40:]  # a rewind into the kept part: what is dropped is encoded again when needed
    await _check(conversation)
    history.extend(_round(60, rng))
    await _check(conversation)
    assert conversation.cache.encoder(_encoder_key(conversation.provider), dict).kept_bytes <= bound
