"""Typing while an answer streams fast: every key reaches the prompt in order, and the answer on screen is
the whole answer, however coarse the flushes get (issue 23: the stream's rendering gives way, never the keys)."""

from __future__ import annotations

import asyncio
import string
import threading
from pathlib import Path

from hermes_tui.config import ProviderChoice
from hermes_tui.widgets.transcript_rows import AssistantMessage
from tests.app.test_app import make_app, submit
from tests.fake_llm import FakeLLMServer, Hang, Reply
from tests.tui.helpers import wait_until
from tests.waits import HANG_GUARD_S


def long_markdown(blocks: int) -> str:
    """Prose, lists and fenced code: text that crosses segment and block boundaries as it streams."""
    parts = []
    for index in range(blocks):
        if index % 4 == 1:
            parts.append("".join(f"- item {index}.{k} with `code` and **bold**\n" for k in range(3)) + "\n")
        elif index % 4 == 3:
            parts.append("```python\n" + "".join(f"x_{index}_{k} = {k}\n" for k in range(4)) + "```\n\n")
        else:
            parts.append(f"Paragraph {index}: the streamed answer goes on and on, block after block.\n\n")
    return "".join(parts)


async def test_keys_typed_during_a_fast_stream_all_reach_the_prompt_in_order_and_no_text_is_lost(
    tmp_path: Path,
) -> None:
    answer = long_markdown(60)  # ~4 KB: every segment stays on screen (no "show all" bar)
    release = threading.Event()
    with FakeLLMServer() as srv:
        rest = Reply(text=answer, chunk_size=3, delay_per_chunk=0.001, paced=True)
        srv.enqueue(Hang(seconds=HANG_GUARD_S, first_text="", reply=rest, release=release))
        app = make_app(tmp_path, ProviderChoice("openai", "gpt-4o-mini", "k", srv.base_url_openai, False))
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.ready.wait(), HANG_GUARD_S)
            convo = app.main.conversation
            # the coarsest flushes the policy can choose, from the first one on
            convo.flush_policy.min_interval_s = convo.flush_policy.max_interval_s
            await submit(pilot, app, "Write it all")
            await wait_until(pilot, lambda: convo.is_streaming, what="the answer to start")
            convo.flush_policy.interval_s = convo.flush_policy.max_interval_s
            release.set()
            typed = ""
            while app.turns.turn_running or not typed:
                char = string.ascii_lowercase[len(typed) % 26]
                await pilot.press(char)
                typed += char
            assert app.main.prompt.value == typed
            row = convo.query(AssistantMessage).last()
            await wait_until(pilot, lambda: row.shown_source == answer, what="the whole answer on screen")
            assert convo.items[-1].text == answer
            assert row.body.hidden_chars == 0
