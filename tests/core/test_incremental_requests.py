"""A real Agent on a long resumed session: each call of a turn encodes only what changed since the
previous request, and the server receives what the full encoding of the whole history gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.context_bench import agentic_history
from hermes_tui.config import Settings
from hermes_tui.core.messages import CHANGING_TAIL
from hermes_tui.core.providers.base import ChatRequest
from hermes_tui.core.turn.api_messages import build_api_messages
from tests.core.helpers import make_agent, server_choice
from tests.fake_llm import FakeLLMServer, Reply

HISTORY = 3_000


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_turns_on_a_long_history_send_the_full_body_encoding_only_the_new(tmp_path: Path, protocol: str) -> None:
    with FakeLLMServer() as server:
        settings = Settings()
        settings.compression.enabled = False  # the long history stays whole: no compression in these turns
        agent, db, _ = await make_agent(tmp_path, server_choice(protocol, server), settings=settings)
        server.enqueue(Reply(text="hi"))
        assert (await agent.run_conversation("hello")).completed
        long_id = agent.session_id
        await db.append_messages(long_id, agentic_history(HISTORY)[1:])
        await agent.new_session()
        await agent.resume(long_id)
        encoded: list[int] = []
        for turn in range(3):
            server.enqueue(Reply(text=f"answer {turn}"))
            assert (await agent.run_conversation(f"question {turn}")).completed
            encoder = agent.session.request_cache._encoder
            encoded.append(encoder.encoded_last_call)
            # what the full path sends for the same history: the bytes of the last request, parsed
            sent = list(agent.messages[:-1])  # everything but the answer that came back
            full = build_api_messages(sent, agent.session.system_prompt)
            request = ChatRequest(
                messages=full,
                tools=agent.tool_schemas,
                max_tokens=agent.settings.model.max_tokens,
                cache_ttl=agent.settings.prompt_caching.cache_ttl,
            )
            whole = await agent.provider.request_body(request)
            assert server.requests[-1].body == json.loads(whole)
        assert encoded[0] > HISTORY // 2  # the resumed session's first call encodes it all
        assert all(count <= 3 * CHANGING_TAIL for count in encoded[1:]), encoded  # then only what changed
        await db.close()
