"""Error classes newer Hermes added, end to end through the real SDKs and the fake server: an
OpenRouter upstream 429 falls back to another model and leaves the (healthy) key alone; Anthropic's
"out of extra usage" is billing and OpenRouter's "no endpoints that support tool use" is a missing
model — both move the turn to the fallback instead of retrying."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fake_llm import Fail, FakeLLMServer, Reply
from tests.faults.test_recovery_chain import FALLBACK_MODEL, KEYS, OTHER, chain_agent, opened, reviews, turn

__all__ = ["opened"]  # the fixture that closes every agent a test opens

UPSTREAM_429 = {
    "error": {
        "message": "Provider returned error",
        "code": 429,
        "metadata": {
            "raw": json.dumps({"error": {"message": "deepseek/deepseek-chat is temporarily rate-limited upstream"}}),
            "provider_name": "DeepSeek",
        },
    }
}


async def test_an_upstream_429_falls_back_and_never_benches_the_key(
    tmp_path: Path, server: FakeLLMServer, opened: list
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, "openai", pool=KEYS, opened=opened)
    run = await turn(agent, db, log, server, Fail(429, "Provider returned error", body=UPSTREAM_429), Reply(text="fb"))
    run.assert_answered("fb")
    assert [r.api_key for r in run.requests] == [KEYS[0], "sk-fallback-key-DDDD4444"]  # no other key tried
    assert run.requests[-1].body["model"] == FALLBACK_MODEL[OTHER["openai"]]
    assert any("upstream rate limit" in text for text in reviews(run, "fallback"))
    again = await turn(agent, db, log, server, Reply(text="primary"), prompt="Again?")
    assert again.requests[0].api_key == KEYS[0]  # the key was not benched


async def test_without_a_fallback_an_upstream_429_is_retried_on_the_same_key(
    tmp_path: Path, server: FakeLLMServer, opened: list
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, "openai", pool=KEYS, fallback=False, opened=opened)
    failure = Fail(429, "Provider returned error", body=UPSTREAM_429, headers={"Retry-After": "0"})
    run = await turn(agent, db, log, server, failure, Reply(text="later"))
    run.assert_answered("later")
    assert [r.api_key for r in run.requests] == [KEYS[0], KEYS[0]]
    assert len(run.retries) == 1


@pytest.mark.parametrize(
    ("protocol", "failure", "reason"),
    [
        ("anthropic", Fail(400, "You're out of extra usage. Add more at claude.ai/settings/usage"), "billing"),
        ("openai", Fail(404, "No endpoints found that support tool use. Try disabling tools"), "model not found"),
    ],
    ids=["out-of-extra-usage", "no-tool-endpoints"],
)
async def test_new_fatal_phrases_fall_back_at_once(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str, failure: Fail, reason: str
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, protocol, opened=opened)
    run = await turn(agent, db, log, server, failure, Reply(text="Answered by the fallback."))
    run.assert_answered("Answered by the fallback.")
    assert len(run.requests) == 2 and not run.retries
    assert any(reason in text for text in reviews(run, "fallback"))
