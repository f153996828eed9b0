"""Our phases 1–2 and 4 give exactly the conversation the plain reference baseline gives.

`bench.compress_reference` re-implements reference §4.2 straightforwardly (one pass per step, md5
dedup keys, costs computed where needed); the product's compressor is optimised (one walk, lazy
costs, cheap dedup keys, summary candidates). Same input, same summary text: the same messages
must come out, with the same tail — on long agentic histories and on the awkward shapes
(duplicate outputs, an earlier handoff in the middle, screenshots, huge tool arguments, repeated
call ids).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.compress_reference import reference_compress
from bench.context_bench import agentic_history
from hermes_tui.core.context import ContextCompressor
from hermes_tui.core.context.assembly import assemble, strip_historical_media
from hermes_tui.core.context.markers import SUMMARY_PREFIX
from tests.context.helpers import assistant, call, result, system, user

SUMMARY = f"{SUMMARY_PREFIX}\n## Active Task\nNone"


TAIL_BUDGET = 30_000  # what a 200K window gets (75 % trigger, 20 % of it); the reference is told the same


def ours(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int] | None:
    compressor = ContextCompressor(200_000)
    assert compressor.tail_token_budget == TAIL_BUDGET
    plan = compressor.plan(messages)
    if plan is None:
        return None
    return strip_historical_media(assemble(plan.head, SUMMARY, plan.tail)), len(plan.tail)


def awkward_history() -> list[dict[str, Any]]:
    big_args = json.dumps({"path": "src/big.py", "content": "x = 1\n" * 400, "nested": {"note": "y" * 900}})
    shot = [{"type": "text", "text": "here"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]
    history: list[dict[str, Any]] = [system()]
    for i in range(120):
        history += [
            user(f"step {i}: look at the build" if i % 7 else [*shot]),
            assistant(None, call(f"c{i}", ("terminal", "write_file", "browser_navigate")[i % 3], command="make")),
            result(f"c{i}", "same long output line\n" * 40 if i % 4 == 0 else f"output {i}\n" * 60),
            assistant(f"done {i}"),
        ]
        if i == 40:
            history.append(user(f"{SUMMARY_PREFIX}\n## Active Task\nearlier handoff"))
        if i % 15 == 0:
            history.append(assistant(None, call(f"w{i}", "write_file", path="a.py", content=big_args)))
            history.append(result(f"w{i}", "written " * 50))
        if i == 60:  # a repeated call id: the later call names the result
            history.append(assistant(None, call("c3", "read_file", path="again.py")))
            history.append(result("c3", "again " * 80))
    history.append(user("and now the final question"))
    return history


@pytest.mark.parametrize("size", [60, 200, 2_000, 5_000])
def test_agentic_histories_compress_to_the_same_conversation(size: int) -> None:
    history = agentic_history(size)
    expected, details = reference_compress(history, SUMMARY, TAIL_BUDGET)
    got = ours(history)
    assert got is not None and details["changed"]
    compressed, tail = got
    assert compressed == expected
    assert tail == details["tail"]


def test_awkward_shapes_compress_to_the_same_conversation() -> None:
    history = awkward_history()
    expected, details = reference_compress(history, SUMMARY, TAIL_BUDGET)
    got = ours(history)
    assert got is not None
    assert got[0] == expected and got[1] == details["tail"]
    assert any("[Duplicate tool output" in str(m.get("content")) for m in history) is False  # input untouched
