"""Phase 1: dedup of tool outputs, one-liners per tool, screenshot stripping and JSON-preserving
argument truncation (§4.2 phase 1, §11 case 13)."""

from __future__ import annotations

import copy
import json

import pytest

from hermes_tui.core.context.markers import (
    DUPLICATE_TOOL_OUTPUT,
    PRUNED_TOOL_PLACEHOLDER,
    SCREENSHOT_REMOVED_PART,
)
from hermes_tui.core.context.prune import find_prune_boundary, prune_old_tool_results, truncate_tool_arguments
from hermes_tui.core.context.tool_oneliners import summarize_tool_result

from .helpers import assistant, call, result, system, user


class TestArgumentTruncation:
    def test_long_string_leaf_is_cut_and_json_stays_valid(self) -> None:
        arguments = json.dumps({"path": "src/app.py", "content": "abc " * 400})
        shrunk = json.loads(truncate_tool_arguments(arguments))
        assert shrunk["path"] == "src/app.py"
        assert shrunk["content"] == ("abc " * 400)[:200] + "...[truncated]"

    def test_non_json_passes_through(self) -> None:
        arguments = "not json " * 100
        assert truncate_tool_arguments(arguments) == arguments

    def test_nested_leaves_are_cut_and_scalars_preserved(self) -> None:
        payload = {
            "edits": [{"old": "o" * 300, "new": "n" * 300}],
            "meta": {"note": "m" * 250, "count": 3, "dry": False, "extra": None, "nums": [1, 2.5, 3]},
        }
        shrunk = json.loads(truncate_tool_arguments(json.dumps(payload)))
        assert shrunk["edits"][0]["old"].endswith("...[truncated]")
        assert len(shrunk["meta"]["note"]) == 200 + len("...[truncated]")
        assert (shrunk["meta"]["count"], shrunk["meta"]["dry"], shrunk["meta"]["extra"]) == (3, False, None)
        assert shrunk["meta"]["nums"] == [1, 2.5, 3]

    def test_cjk_and_emoji_stay_unescaped(self) -> None:
        arguments = json.dumps({"text": "漢字テキスト🙂" * 100}, ensure_ascii=False)
        shrunk = truncate_tool_arguments(arguments)
        assert "漢字" in shrunk and "🙂" in shrunk and "\\u" not in shrunk

    def test_short_arguments_are_untouched(self) -> None:
        arguments = json.dumps({"content": "x" * 300})
        assert truncate_tool_arguments(arguments) == arguments


ONE_LINERS = [
    (
        "terminal",
        {"command": "pytest -q tests/"},
        '{"output": "1 passed\\n", "exit_code": 0}\n' + "." * 300,
        "[terminal] ran `pytest -q tests/` -> exit 0, 2 lines output",
    ),
    ("terminal", {"command": "x" * 100}, "y" * 300, f"[terminal] ran `{'x' * 77}...` -> exit ?, 1 lines output"),
    (
        "read_file",
        {"path": "src/a.py", "offset": 40},
        "z" * 1234,
        "[read_file] read src/a.py from line 40 (1,234 chars)",
    ),
    ("read_file", {"path": "src/a.py"}, "z" * 300, "[read_file] read src/a.py from line 1 (300 chars)"),
    ("write_file", {"path": "b.txt", "content": "1\n2\n3"}, "w" * 300, "[write_file] wrote to b.txt (3 lines)"),
    (
        "search_files",
        {"pattern": "TODO", "path": "src"},
        '{"total_count": 17}' + " " * 300,
        "[search_files] content search for 'TODO' in src -> 17 matches",
    ),
    (
        "search_files",
        {"pattern": "*.py", "target": "files"},
        "s" * 300,
        "[search_files] files search for '*.py' in . -> ? matches",
    ),
    ("patch", {"path": "c.py"}, "p" * 300, "[patch] replace in c.py (300 chars result)"),
    (
        "browser_navigate",
        {"url": "https://example.org"},
        "b" * 300,
        "[browser_navigate] https://example.org (300 chars)",
    ),
    ("browser_click", {"ref": "e12"}, "b" * 300, "[browser_click] ref=e12 (300 chars)"),
    ("browser_snapshot", {}, "b" * 300, "[browser_snapshot] (300 chars)"),
    ("web_search", {"query": "rust async"}, "q" * 300, "[web_search] query='rust async' (300 chars result)"),
    (
        "web_extract",
        {"urls": ["https://a", "https://b", "https://c"]},
        "e" * 300,
        "[web_extract] https://a (+2 more) (300 chars)",
    ),
    ("delegate_task", {"goal": "g" * 70}, "d" * 300, f"[delegate_task] '{'g' * 57}...' (300 chars result)"),
    (
        "execute_code",
        {"code": "import os\nprint(os.getcwd())"},
        "out\nmore",
        "[execute_code] `import os print(os.getcwd())` (2 lines output)",
    ),
    ("skill_view", {"name": "git-flow"}, "k" * 300, "[skill_view] name=git-flow (300 chars)"),
    ("vision_analyze", {"question": "q" * 80}, "v" * 300, f"[vision_analyze] '{'q' * 50}' (300 chars)"),
    ("memory", {"action": "add", "target": "user"}, "m" * 300, "[memory] add on user"),
    ("todo", {"todos": []}, "t" * 300, "[todo] updated task list"),
    ("clarify", {"question": "?"}, "c" * 300, "[clarify] asked user a question"),
    ("text_to_speech", {"text": "hi"}, "a" * 300, "[text_to_speech] generated audio (300 chars)"),
    ("cronjob", {"action": "list"}, "c" * 300, "[cronjob] list"),
    ("process", {"action": "poll", "session_id": "p1"}, "c" * 300, "[process] poll session=p1"),
    (
        "session_search",
        {"query": "auth bug", "limit": 5},
        "r" * 300,
        "[session_search] query=auth bug limit=5 (300 chars result)",
    ),
]


@pytest.mark.parametrize(
    ("tool", "args", "content", "expected"), ONE_LINERS, ids=[f"{c[0]}-{i}" for i, c in enumerate(ONE_LINERS)]
)
def test_one_liner_formats(tool: str, args: dict, content: str, expected: str) -> None:
    assert summarize_tool_result(tool, json.dumps(args), content) == expected


def test_one_liner_survives_broken_arguments() -> None:
    assert summarize_tool_result("read_file", "{not json", "x" * 300) == "[read_file] read  from line 1 (300 chars)"


def history_with_old_tool_output() -> list[dict]:
    messages = [system(), user("go")]
    for i in range(30):
        cid = f"c{i}"
        messages += [
            assistant(None, call(cid, "read_file", path=f"src/f{i}.py", blob="b" * 700)),
            result(cid, f"file {i}\n" + "content line\n" * 50),
        ]
    messages.append(assistant("done"))
    return messages


def test_old_results_become_one_liners_and_the_recent_tail_is_kept() -> None:
    messages = history_with_old_tool_output()
    snapshot = copy.deepcopy(messages)
    pruned, count = prune_old_tool_results(messages, head_end=2, tail_token_budget=None, protect_last_n=20)
    assert messages == snapshot
    boundary = len(messages) - 20
    original_size = len(messages[3]["content"])
    assert pruned[3]["content"] == f"[read_file] read src/f0.py from line 1 ({original_size:,} chars)"
    assert json.loads(pruned[2]["tool_calls"][0]["function"]["arguments"])["blob"].endswith("...[truncated]")
    assert pruned[boundary:] == messages[boundary:]
    assert count == sum(1 for old, new in zip(messages, pruned, strict=True) if old is not new)


def test_duplicates_are_collapsed_everywhere_but_the_newest_copy() -> None:
    same = "identical output\n" * 20
    messages = [system(), user("go")]
    for i in range(3):
        messages += [assistant(None, call(f"c{i}", "terminal", command="ls")), result(f"c{i}", same)]
    pruned, _ = prune_old_tool_results(messages, head_end=2, tail_token_budget=None, protect_last_n=100)
    assert [m["content"] for m in pruned if m["role"] == "tool"] == [DUPLICATE_TOOL_OUTPUT, DUPLICATE_TOOL_OUTPUT, same]


def test_head_is_left_verbatim() -> None:
    head_result = "head output\n" * 50
    messages = [system(), user("go"), assistant(None, call("h", "read_file", path="x")), result("h", head_result)]
    messages += history_with_old_tool_output()[2:]
    pruned, _ = prune_old_tool_results(messages, head_end=4, tail_token_budget=None, protect_last_n=5)
    assert pruned[:4] == messages[:4]


def test_screenshots_and_placeholders() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    messages = [
        system(),
        user("go"),
        assistant(None, call("a", "browser_vision"), call("b", "browser_snapshot"), call("c", "x")),
        result("a", [{"type": "text", "text": "page"}, image]),
        result("b", {"_multimodal": True, "text_summary": "s" * 300}),
        result("c", PRUNED_TOOL_PLACEHOLDER),
        *([user("more"), assistant("ok")] * 3),
    ]
    pruned, _ = prune_old_tool_results(messages, head_end=2, tail_token_budget=None, protect_last_n=2)
    assert pruned[3]["content"] == [{"type": "text", "text": "page"}, {"type": "text", "text": SCREENSHOT_REMOVED_PART}]
    assert pruned[4]["content"] == "[screenshot removed] " + "s" * 200
    assert pruned[5]["content"] == PRUNED_TOOL_PLACEHOLDER


def test_prune_boundary_protects_budget_or_minimum_count() -> None:
    costs = [100] * 50
    assert find_prune_boundary([{}] * 50, tail_token_budget=1_000, protect_last_n=5, costs=costs) == 40
    assert find_prune_boundary([{}] * 50, tail_token_budget=100, protect_last_n=5, costs=costs) == 45
    assert find_prune_boundary([{}] * 50, tail_token_budget=None, protect_last_n=20, costs=costs) == 30
