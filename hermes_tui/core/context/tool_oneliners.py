"""One-line stand-ins for old tool results (reference §4.2, prune pass 2), one format per tool.

Owns `summarize_tool_result(tool_name, args_json, content) -> str`. The one-liner keeps what a later
turn needs to know a call happened (the command, path, query, outcome size) while dropping the bulky
output. Used by the prune pass and by the deterministic fallback summary.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_EXIT_CODE_RE = re.compile(r'"exit_code"\s*:\s*(-?\d+)')
_TOTAL_COUNT_RE = re.compile(r'"total_count"\s*:\s*(\d+)')

_BROWSER_TOOLS = frozenset(
    {
        "browser_navigate",
        "browser_click",
        "browser_snapshot",
        "browser_type",
        "browser_scroll",
        "browser_vision",
    }
)
_SKILL_TOOLS = frozenset({"skill_view", "skills_list", "skill_manage"})


_DECODER = json.JSONDecoder()
_JSON_SPACE = " \t\n\r"


def _parse_args(args_json: str | None) -> dict[str, Any]:
    """`json.loads(args_json)` when that is a dict, else {} — without json.loads' per-call overhead."""
    if not args_json:
        return {}
    if not isinstance(args_json, str):
        try:
            parsed = json.loads(args_json)
        except (ValueError, TypeError):
            return {}
        return parsed if isinstance(parsed, dict) else {}
    start = len(args_json) - len(args_json.lstrip(_JSON_SPACE))
    try:
        parsed, end = _DECODER.raw_decode(args_json, start)
    except ValueError:
        return {}
    if end != len(args_json) and args_json[end:].strip(_JSON_SPACE):
        return {}  # extra data after the value: json.loads rejects it too
    return parsed if isinstance(parsed, dict) else {}


def _text(value: Any) -> str:
    if isinstance(value, str):  # the common case first
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def _cut(text: str, limit: int) -> str:
    """`text` if it fits in `limit`, else its first limit-3 chars + "..."."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _n(content: str) -> str:
    """The content length with thousands separators, as the one-liners show it."""
    size = len(content)
    return str(size) if size < 1000 else f"{size:,}"


def _line_count(content: str) -> int:
    return content.count("\n") + 1 if content and not content.isspace() else 0  # no stripped copy


def _terminal(args: dict[str, Any], content: str) -> str:
    command = _cut(_text(args.get("command")), 80)
    match = _EXIT_CODE_RE.search(content)
    exit_code = match.group(1) if match else "?"
    return f"[terminal] ran `{command}` -> exit {exit_code}, {_line_count(content)} lines output"


def _read_file(args: dict[str, Any], content: str) -> str:
    offset = args.get("offset") or 1
    return f"[read_file] read {_text(args.get('path'))} from line {offset} ({_n(content)} chars)"


def _write_file(args: dict[str, Any], content: str) -> str:
    written = args.get("content")
    lines = str(written.count("\n") + 1) if isinstance(written, str) else "?"
    return f"[write_file] wrote to {_text(args.get('path'))} ({lines} lines)"


def _search_files(args: dict[str, Any], content: str) -> str:
    target = _text(args.get("target")) or "content"
    path = _text(args.get("path")) or "."
    match = _TOTAL_COUNT_RE.search(content)
    count = match.group(1) if match else "?"
    return f"[search_files] {target} search for '{_text(args.get('pattern'))}' in {path} -> {count} matches"


def _patch(args: dict[str, Any], content: str) -> str:
    mode = _text(args.get("mode")) or "replace"
    return f"[patch] {mode} in {_text(args.get('path'))} ({_n(content)} chars result)"


def _web_search(args: dict[str, Any], content: str) -> str:
    return f"[web_search] query='{_text(args.get('query'))}' ({_n(content)} chars result)"


def _web_extract(args: dict[str, Any], content: str) -> str:
    urls = args.get("urls")
    urls = urls if isinstance(urls, list) else ([urls] if urls else [])
    first = _text(urls[0]) if urls else ""
    more = f" (+{len(urls) - 1} more)" if len(urls) > 1 else ""
    return f"[web_extract] {first}{more} ({_n(content)} chars)"


def _delegate_task(args: dict[str, Any], content: str) -> str:
    return f"[delegate_task] '{_cut(_text(args.get('goal')), 60)}' ({_n(content)} chars result)"


def _execute_code(args: dict[str, Any], content: str) -> str:
    code = _text(args.get("code")).replace("\n", " ")
    shown = code[:60] + ("..." if len(code) > 60 else "")
    return f"[execute_code] `{shown}` ({_line_count(content)} lines output)"


def _vision_analyze(args: dict[str, Any], content: str) -> str:
    return f"[vision_analyze] '{_text(args.get('question'))[:50]}' ({_n(content)} chars)"


def _memory(args: dict[str, Any], content: str) -> str:
    return f"[memory] {_text(args.get('action'))} on {_text(args.get('target'))}"


def _cronjob(args: dict[str, Any], content: str) -> str:
    return f"[cronjob] {_text(args.get('action'))}"


def _process(args: dict[str, Any], content: str) -> str:
    return f"[process] {_text(args.get('action'))} session={_text(args.get('session_id'))}"


_Formatter = Callable[[dict[str, Any], str], str]

_FORMATTERS: dict[str, _Formatter] = {
    "terminal": _terminal,
    "read_file": _read_file,
    "write_file": _write_file,
    "search_files": _search_files,
    "patch": _patch,
    "web_search": _web_search,
    "web_extract": _web_extract,
    "delegate_task": _delegate_task,
    "execute_code": _execute_code,
    "vision_analyze": _vision_analyze,
    "memory": _memory,
    "todo": lambda args, content: "[todo] updated task list",
    "clarify": lambda args, content: "[clarify] asked user a question",
    "text_to_speech": lambda args, content: f"[text_to_speech] generated audio ({_n(content)} chars)",
    "cronjob": _cronjob,
    "process": _process,
}


def _browser(tool: str, args: dict[str, Any], n: str) -> str:
    if args.get("url"):
        detail = f"{_text(args.get('url'))} "
    elif args.get("ref"):
        detail = f"ref={_text(args.get('ref'))} "
    else:
        detail = ""
    return f"[{tool}] {detail}({n} chars)"


def _generic(tool: str, args: dict[str, Any], n: str) -> str:
    pairs = " ".join(f"{key}={_text(value)[:40]}" for key, value in list(args.items())[:2])
    return f"[{tool}] {pairs + ' ' if pairs else ''}({n} chars result)"


def parse_tool_args(args_json: str | None) -> dict[str, Any]:
    """A call's arguments as the one-liners read them: the JSON object, else {} (never raises)."""
    return _parse_args(args_json)


def summarize_tool_result(
    tool_name: str, args_json: str | None, content: str, *, parsed_args: dict[str, Any] | None = None
) -> str:
    """A one-line description of a tool call and its result (never raises on odd arguments).

    `parsed_args` is `parse_tool_args(args_json)` when the caller has it already (it is only read).
    """
    args = _parse_args(args_json) if parsed_args is None else parsed_args
    formatter = _FORMATTERS.get(tool_name)
    if formatter is not None:
        return formatter(args, content)
    tool = tool_name or "tool"
    n = _n(content)
    if tool in _BROWSER_TOOLS:
        return _browser(tool, args, n)
    if tool in _SKILL_TOOLS:
        return f"[{tool}] name={_text(args.get('name'))} ({n} chars)"
    return _generic(tool, args, n)
