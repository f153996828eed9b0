"""Property tests: invariants of compress() on randomly generated conversations.

Every output keeps the system message first and the head verbatim (older images aside), has no
orphan tool call or result, no two adjacent user/assistant messages with the same role, the last
user message intact, valid JSON in every tool-call argument string, and no planted secret inside
the handoff summary — whether the summary comes from a model that echoes its whole prompt, from the
deterministic fallback, or from a model that answers normally. Runs compress twice to cover
rehydration of the first handoff.
"""

from __future__ import annotations

import itertools
import json
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_tui.core.context import SUMMARY_END_MARKER, ContextCompressor
from hermes_tui.core.context.markers import HISTORICAL_IMAGE_PLACEHOLDER, split_summary_message
from hermes_tui.store.models import is_summary_text

from .helpers import FailingSummarizer, RecordingSummarizer, StatusError, text_of

ALNUM = string.ascii_letters + string.digits
WORDS = st.sampled_from(["fix", "the", "parser", "tests", "build", "cache", "漢字", "émoji🙂", "path/to/file.py"])
TOOLS = ["read_file", "write_file", "terminal", "search_files", "todo", "web_search", "custom_tool"]


@st.composite
def secrets(draw: st.DrawFn) -> str:
    body = draw(st.text(ALNUM, min_size=24, max_size=32))
    prefix = draw(st.sampled_from(["sk-proj-", "ghp_", "xai-", "hf_"]))
    if draw(st.booleans()):
        return "AKIA" + draw(st.text(string.ascii_uppercase + string.digits, min_size=16, max_size=16))
    return prefix + body + "x" * 8


@st.composite
def texts(draw: st.DrawFn, planted: list[str], max_words: int = 40) -> str:
    words = draw(st.lists(WORDS, min_size=1, max_size=max_words))
    if draw(st.integers(0, 4)) == 0:
        secret = draw(secrets())
        planted.append(secret)
        words.insert(draw(st.integers(0, len(words))), secret)
    repeat = draw(st.sampled_from([1, 1, 1, 20, 120]))  # sometimes long enough to be pruned
    return " ".join(words * repeat)


@st.composite
def conversations(draw: st.DrawFn, id_prefix: str = "call") -> tuple[list[dict[str, Any]], list[str]]:
    planted: list[str] = []
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a test agent."}]
    call_number = 0
    for _turn in range(draw(st.integers(1, 8))):
        content: Any = draw(texts(planted))
        if draw(st.integers(0, 6)) == 0:
            content = [{"type": "text", "text": content}, {"type": "image_url", "image_url": {"url": "data:x"}}]
        messages.append({"role": "user", "content": content})
        for _round in range(draw(st.integers(0, 3))):
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                call_number += 1
                arguments = {"path": f"src/f{call_number}.py", "note": draw(texts(planted, max_words=8))}
                calls.append(
                    {
                        "id": f"{id_prefix}_{call_number}",
                        "type": "function",
                        "function": {"name": draw(st.sampled_from(TOOLS)), "arguments": json.dumps(arguments)},
                    }
                )
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
            for tool_call in calls:
                output = draw(st.one_of(texts(planted), st.just("same output " * 30)))
                messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": output})
        if draw(st.booleans()) or messages[-1]["role"] == "user":
            messages.append({"role": "assistant", "content": draw(texts(planted))})
    return messages, planted


def summarizer_for(kind: str) -> Any:
    if kind == "echo":
        return RecordingSummarizer(echo=True)
    if kind == "fail":
        return FailingSummarizer(StatusError(500, "summary model down"))
    return RecordingSummarizer()


def without_images(message: dict) -> dict:
    """The message with image parts reduced to a marker (older images are stripped after compression)."""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    parts = [
        "<image>" if part.get("type") == "image_url" or part.get("text") == HISTORICAL_IMAGE_PLACEHOLDER else part
        for part in content
    ]
    return {**message, "content": parts}


def assert_invariants(before: list[dict], after: list[dict], planted: list[str], head: int) -> None:
    assert after[0]["role"] == "system"
    assert text_of(after[0]).startswith(text_of(before[0]))
    assert [without_images(m) for m in after[1:head]] == [without_images(m) for m in before[1:head]]

    calls_seen: set[str] = set()
    answered: set[str] = set()
    for message in after:
        if message["role"] == "assistant":
            for tool_call in message.get("tool_calls") or []:
                calls_seen.add(tool_call["id"])
                json.loads(tool_call["function"]["arguments"])
        if message["role"] == "tool":
            assert message["tool_call_id"] in calls_seen, "tool result without a preceding call"
            answered.add(message["tool_call_id"])
    assert calls_seen == answered, "tool call without a result"

    names = [m["role"] for m in after]
    for first, second in itertools.pairwise(names):
        assert not (first == second and first in ("user", "assistant")), names

    last_user = next(m for m in reversed(before) if m["role"] == "user")
    last_text = text_of(last_user)
    # kept verbatim: at the end of its message, or as the prior text of a summary merged into it
    kept = (text_of(m) for m in after if m["role"] == "user")
    assert any(text.endswith(last_text) or split_summary_message(text)[1] == last_text.strip() for text in kept)

    for message in after:
        text = text_of(message)
        if is_summary_text(text):
            summary_part = split_summary_message(text)[0]
            assert text.rstrip().endswith(SUMMARY_END_MARKER)
            leaked = [secret for secret in planted if secret in summary_part]
            assert not leaked, f"secret in handoff summary: {leaked}"


@pytest.mark.slow  # seconds on its own: in `make test`, not the fast tier
@settings(
    max_examples=50,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    conversation=conversations(id_prefix="first"),
    follow_up=conversations(id_prefix="later"),
    kind=st.sampled_from(["echo", "fail", "plain"]),
    protect_first_n=st.integers(0, 3),
    ratio=st.sampled_from([0.10, 0.20, 0.40]),
)
async def test_compress_invariants(
    conversation: tuple[list[dict], list[str]],
    follow_up: tuple[list[dict], list[str]],
    kind: str,
    protect_first_n: int,
    ratio: float,
) -> None:
    messages, planted = conversation
    compressor = ContextCompressor(
        64_000, protect_first_n=protect_first_n, summary_target_ratio=ratio, summarize=summarizer_for(kind)
    )
    head = 1 + protect_first_n
    first = await compressor.compress(messages)
    assert_invariants(messages, first, planted, head)

    more, more_planted = follow_up
    second_input = first + more[1:]
    if second_input[-len(more) + 1]["role"] == first[-1]["role"] == "user":
        return  # the generator's follow-up would itself start with two user messages in a row
    second = await compressor.compress(second_input, force=True)
    assert_invariants(second_input, second, planted + more_planted, head)
