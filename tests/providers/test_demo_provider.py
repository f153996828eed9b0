"""The offline demo model: tool calls, answers from tool results, summaries, determinism, pacing."""

from __future__ import annotations

import asyncio
import json

import pytest

from hermes_tui.core.context.summary import build_summary_prompt, serialize_for_summary
from hermes_tui.core.providers.base import ChatRequest, StreamReasoning, StreamText
from hermes_tui.core.providers.demo import DemoProvider, demo_delay
from hermes_tui.core.providers.demo_summary import HEADINGS
from tests.providers.helpers import collect, finish, reasoning, texts, tool_calls, usages

TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
    for name in ("read_file", "search_files", "terminal", "write_file")
]


def ask(text: str, tools: list | None = None) -> ChatRequest:
    return ChatRequest(
        messages=[{"role": "system", "content": "You are Hermes."}, {"role": "user", "content": text}],
        tools=TOOLS if tools is None else tools,
    )


def answered(request_text: str, call_name: str, arguments: dict, result: str) -> ChatRequest:
    """A conversation where the demo asked for a tool and the result came back."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": call_name, "arguments": json.dumps(arguments)},
    }
    return ChatRequest(
        messages=[
            {"role": "user", "content": request_text},
            {"role": "assistant", "content": "On it.", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": result},
        ],
        tools=TOOLS,
    )


def test_is_always_a_demo() -> None:
    provider = DemoProvider()
    assert (provider.is_demo, provider.name, provider.label) == (True, "demo", "demo:demo")


@pytest.mark.parametrize(
    ("text", "name", "arguments"),
    [
        ("read README.md", "read_file", {"path": "README.md"}),
        ("Read `docs/guide with spaces.md`", "read_file", {"path": "docs/guide with spaces.md"}),
        ("list files", "search_files", {"pattern": "*", "target": "files", "path": "."}),
        (
            "list files in src/hermes_tui",
            "search_files",
            {"pattern": "*", "target": "files", "path": "src/hermes_tui"},
        ),
        ("run git status --short", "terminal", {"command": "git status --short"}),
        ("search TODO", "search_files", {"pattern": "TODO", "target": "content", "path": "."}),
        ("search for def main", "search_files", {"pattern": "def main", "target": "content", "path": "."}),
    ],
)
async def test_requests_become_tool_calls(text: str, name: str, arguments: dict) -> None:
    events = await collect(DemoProvider(), ask(text))
    calls = tool_calls(events)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [(name, arguments)]
    assert calls[0].id.startswith("call_demo_")
    assert texts(events), "it announces what it is doing"
    assert finish(events) == "tool_calls"


async def test_a_tool_that_is_not_offered_is_not_called() -> None:
    events = await collect(DemoProvider(), ask("run rm -rf build", tools=[]))
    assert tool_calls(events) == []
    assert "terminal" in "".join(texts(events))
    assert finish(events) == "stop"


async def test_file_contents_are_summarised_after_the_tool_result() -> None:
    content = "\n".join(f"{n:6}|line number {n}" for n in range(1, 31))
    events = await collect(DemoProvider(), answered("read notes.txt", "read_file", {"path": "notes.txt"}, content))
    answer = "".join(texts(events))
    assert tool_calls(events) == []
    assert "`notes.txt`" in answer
    assert "30 lines" in answer
    assert "line number 1\n" in answer
    assert "line number 30" not in answer, "only the first lines are shown"
    assert finish(events) == "stop"


async def test_command_output_and_exit_code_are_reported() -> None:
    result = json.dumps({"output": "On branch main\nnothing to commit", "exit_code": 0})
    events = await collect(DemoProvider(), answered("run git status", "terminal", {"command": "git status"}, result))
    answer = "".join(texts(events))
    assert "exited with code 0" in answer
    assert "nothing to commit" in answer


async def test_search_results_are_listed() -> None:
    result = json.dumps(
        {
            "total_count": 2,
            "matches": [
                {"path": "a.py", "line": 3, "text": "# TODO tidy"},
                {"path": "b.py", "line": 9, "text": "# TODO test"},
            ],
        }
    )
    events = await collect(DemoProvider(), answered("search TODO", "search_files", {"pattern": "TODO"}, result))
    answer = "".join(texts(events))
    assert "**2**" in answer
    assert "`a.py:3`" in answer and "`b.py:9`" in answer


async def test_tool_errors_are_reported_as_problems() -> None:
    events = await collect(
        DemoProvider(),
        answered("read nope.txt", "read_file", {"path": "nope.txt"}, "Error: file not found: nope.txt"),
    )
    assert "reported a problem" in "".join(texts(events))


async def test_anything_else_gets_a_helpful_markdown_reply_echoing_the_request() -> None:
    events = await collect(DemoProvider(), ask("What's the weather like on Mars?"))
    answer = "".join(texts(events))
    assert "demo" in answer.lower()
    assert "> What's the weather like on Mars?" in answer
    assert "`read FILE`" in answer and "`run CMD`" in answer
    assert tool_calls(events) == []
    assert finish(events) == "stop"


async def test_think_streams_reasoning_before_the_answer() -> None:
    events = await collect(DemoProvider(), ask("think about list files"))
    assert isinstance(events[0], StreamReasoning)
    first_text = next(i for i, e in enumerate(events) if isinstance(e, StreamText))
    assert all(not isinstance(e, StreamReasoning) for e in events[first_text:])
    assert "think about: list files" in "".join(reasoning(events))
    assert [c.name for c in tool_calls(events)] == ["search_files"], "the rest of the request still runs"


async def test_answers_stream_in_many_small_chunks() -> None:
    events = await collect(DemoProvider(), ask("hello"))
    chunks = texts(events)
    assert len(chunks) > 20
    assert max(len(c) for c in chunks) < 80


async def test_usage_is_a_plausible_rough_count() -> None:
    short = usages(await collect(DemoProvider(), ask("hello")))[0].usage
    long = usages(await collect(DemoProvider(), ask("hello " + "lorem ipsum " * 400)))[0].usage
    assert 0 < short.prompt_tokens < long.prompt_tokens
    assert long.prompt_tokens >= len("lorem ipsum " * 400) // 4
    assert short.completion_tokens > 10
    with_tools = usages(await collect(DemoProvider(), ask("hello")))[0].usage
    without_tools = usages(await collect(DemoProvider(), ask("hello", tools=[])))[0].usage
    assert with_tools.prompt_tokens > without_tools.prompt_tokens, "tool schemas count toward the prompt"


async def test_same_request_same_stream() -> None:
    request = ask("think run make test")
    assert await collect(DemoProvider(), request) == await collect(DemoProvider(), request)


async def test_max_tokens_truncates_with_finish_length() -> None:
    events = await collect(DemoProvider(), ChatRequest(messages=[{"role": "user", "content": "hi"}], max_tokens=10))
    assert len("".join(texts(events))) <= 40
    assert finish(events) == "length"


async def test_complete_returns_the_text() -> None:
    answer = await DemoProvider().complete("hello", max_tokens=2000)
    assert answer.startswith("**Demo model.**")


# --------------------------------------------------------------------------- pacing


async def test_zero_delay_still_yields_to_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_TUI_DEMO_DELAY", "0")
    ticks = 0
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    events = await collect(DemoProvider(), ask("hello"))
    done.set()
    await task
    assert ticks >= len(texts(events)) // 2, "other tasks ran while the demo streamed"


@pytest.mark.parametrize(("raw", "expected"), [("0", 0.0), ("0.5", 0.5), ("-3", 0.0), ("fast", 0.02), ("", 0.02)])
def test_delay_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, raw: str, expected: float) -> None:
    monkeypatch.setenv("HERMES_TUI_DEMO_DELAY", raw)
    assert demo_delay() == expected


# --------------------------------------------------------------------------- compression summaries


TURNS = [
    {"role": "user", "content": "Fix the failing test in src/app.py. Never touch tests/fixtures."},
    {
        "role": "assistant",
        "content": "Reading the module.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path":"src/app.py"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "def total(xs):\n    return sum(xs) + 1"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "terminal", "arguments": '{"command":"pytest -q"}'},
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "c2",
        "content": '{"output": "FAILED test_total - AssertionError", "exit_code": 1}',
    },
    {"role": "assistant", "content": "The off-by-one in total() breaks test_total."},
    {"role": "user", "content": "Why is there a +1 at all?"},
]


def summary_text(events: list) -> str:
    return "".join(texts(events))


async def test_compression_prompt_gets_the_13_headings_in_order() -> None:
    prompt = build_summary_prompt(serialize_for_summary(TURNS), budget=2000)
    events = await collect(DemoProvider(), ChatRequest(messages=[{"role": "user", "content": prompt}], max_tokens=2600))
    summary = summary_text(events)
    positions = [summary.find(heading + "\n") for heading in HEADINGS]
    assert len(HEADINGS) == 13
    assert all(p >= 0 for p in positions) and positions == sorted(positions)
    assert 'User asked: "Why is there a +1 at all?"' in summary.split("## Goal")[0]
    actions = summary.split("## Completed Actions\n")[1].split("\n\n")[0].splitlines()
    assert actions[0].startswith("1. ") and "[tool: read_file]" in actions[0]
    assert actions[1].startswith("2. ") and "[tool: terminal]" in actions[1] and "FAILED test_total" in actions[1]
    assert "src/app.py" in summary.split("## Relevant Files")[1]
    assert "FAILED test_total" in summary.split("## Blocked")[1].split("##")[0]
    assert "Never touch tests/fixtures" in summary.split("## Constraints & Preferences")[1].split("##")[0]
    assert tool_calls(events) == [] and finish(events) == "stop"


async def test_iterative_update_continues_the_numbering() -> None:
    first = summary_text(
        await collect(
            DemoProvider(),
            ChatRequest(
                messages=[
                    {
                        "role": "user",
                        "content": build_summary_prompt(serialize_for_summary(TURNS[:5]), budget=2000),
                    }
                ]
            ),
        )
    )
    newer = [
        {"role": "user", "content": "Remove the +1 and rerun."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c3",
                    "type": "function",
                    "function": {"name": "terminal", "arguments": '{"command":"pytest"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c3", "content": '{"output": "3 passed", "exit_code": 0}'},
    ]
    prompt = build_summary_prompt(serialize_for_summary(newer), budget=2000, previous_summary=first)
    assert "NEW TURNS TO INCORPORATE" in prompt
    update = summary_text(await collect(DemoProvider(), ChatRequest(messages=[{"role": "user", "content": prompt}])))
    actions = update.split("## Completed Actions\n")[1].split("\n\n")[0].splitlines()
    assert [line.split(".")[0] for line in actions] == ["1", "2", "3"]
    assert "3 passed" in actions[2]
    assert 'User asked: "Remove the +1 and rerun."' in update
    assert "src/app.py" in update.split("## Relevant Files")[1], "files from the previous summary are kept"


async def test_summary_is_deterministic_across_runs() -> None:
    prompt = build_summary_prompt(serialize_for_summary(TURNS), budget=2000)
    request = ChatRequest(messages=[{"role": "user", "content": prompt}])
    assert await collect(DemoProvider(), request) == await collect(DemoProvider(), request)
