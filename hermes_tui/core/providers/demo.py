"""The offline demo model: deterministic, no network, always labelled as a demo.

`DemoProvider` reads the latest user message and answers the way a small tool-using model would:
"read FILE" → a read_file call, "list files [in DIR]" → a search_files file listing, "run CMD" → a
terminal call, "search PATTERN" → a search_files content search; once tool results come back it
writes a Markdown answer summarising them. "think …" streams reasoning first. A compression prompt
gets a structured 13-heading summary (`demo_summary`). Anything else gets a friendly explanation of
what the demo can do. Text streams in small chunks, `HERMES_TUI_DEMO_DELAY` seconds apart
(default 0.02; 0 still yields to the event loop), and usage is a plausible rough count.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from hermes_tui.core.messages import content_text
from hermes_tui.core.providers.base import (
    ChatRequest,
    Provider,
    StreamEvent,
    StreamFinish,
    StreamReasoning,
    StreamText,
    StreamToolCall,
    StreamUsage,
    Usage,
)
from hermes_tui.core.providers.demo_judge import demo_verdict, is_judge_prompt
from hermes_tui.core.providers.demo_summary import build_demo_summary, is_summary_prompt

DELAY_ENV = "HERMES_TUI_DEMO_DELAY"
DEFAULT_DELAY = 0.02
WORDS_PER_CHUNK = 3
PREVIEW_LINES = 12

_READ = re.compile(r"^read\s+(?P<path>.+)$", re.IGNORECASE | re.DOTALL)
_LIST = re.compile(r"^list\s+files(?:\s+(?:in|under)\s+(?P<dir>.+))?$", re.IGNORECASE | re.DOTALL)
_RUN = re.compile(r"^run\s+(?P<cmd>.+)$", re.IGNORECASE | re.DOTALL)
_SEARCH = re.compile(r"^search\s+(?:for\s+)?(?P<pattern>.+)$", re.IGNORECASE | re.DOTALL)
_THINK = re.compile(r"^think\b(?:\s+about\b)?[\s:,-]*(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
_CHUNK = re.compile(r"\S+\s*|\s+")


def demo_delay() -> float:
    """Seconds between streamed chunks, from HERMES_TUI_DEMO_DELAY (bad values -> the default)."""
    raw = os.environ.get(DELAY_ENV, "")
    try:
        value = float(raw) if raw.strip() else DEFAULT_DELAY
    except ValueError:
        return DEFAULT_DELAY
    return max(0.0, value) if value == value else DEFAULT_DELAY


def _unquote(text: str) -> str:
    text = text.strip()
    for left, right in (("`", "`"), ('"', '"'), ("'", "'")):
        if len(text) >= 2 and text.startswith(left) and text.endswith(right):
            return text[1:-1].strip()
    return text


def _fence(text: str) -> str:
    marker = "~~~" if "```" in text else "```"
    return f"{marker}\n{text}\n{marker}"


@dataclass
class _Plan:
    """What the demo will stream for one call."""

    reasoning: str = ""
    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


# --------------------------------------------------------------------------- understanding the request


def _latest_user(messages: list[dict[str, Any]]) -> tuple[int, str]:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user":
            return index, content_text(messages[index].get("content"), "[image]").strip()
    return -1, ""


def _tool_names(tools: list[dict[str, Any]]) -> set[str]:
    names = set()
    for tool in tools:
        function = tool.get("function", tool) if isinstance(tool, dict) else {}
        if isinstance(function, dict) and function.get("name"):
            names.add(str(function["name"]))
    return names


def _tool_request(text: str) -> tuple[str, dict[str, Any], str] | None:
    """(tool name, arguments, the sentence announcing it) for a recognised request."""
    if match := _LIST.match(text):
        directory = _unquote(match.group("dir") or ".") or "."
        args = {"pattern": "*", "target": "files", "path": directory}
        where = "the working folder" if directory == "." else f"`{directory}`"
        return "search_files", args, f"Listing the files in {where}."
    if match := _READ.match(text):
        path = _unquote(match.group("path")).rstrip(".?!")
        return "read_file", {"path": path}, f"Reading `{path}`."
    if match := _RUN.match(text):
        command = _unquote(match.group("cmd"))
        return "terminal", {"command": command}, f"Running `{command}` (you approve it first)."
    if match := _SEARCH.match(text):
        pattern = _unquote(match.group("pattern"))
        args = {"pattern": pattern, "target": "content", "path": "."}
        return "search_files", args, f"Searching the files for `{pattern}`."
    return None


def _help_reply(request_text: str) -> str:
    quoted = "\n".join(f"> {line}" for line in (request_text[:500] or "(empty message)").splitlines())
    return (
        "**Demo model.** I'm the offline demo built into hermes-tui: no API key, no network, and "
        "my answers are canned — but the tools I call are real.\n\n"
        f"You said:\n\n{quoted}\n\n"
        "Things I can do in this session:\n\n"
        "- `read FILE` — read a file with the read_file tool\n"
        "- `list files` or `list files in DIR` — list files\n"
        "- `search PATTERN` — search file contents\n"
        "- `run CMD` — run a shell command (after you approve it)\n"
        "- `think …` — show some reasoning before the answer\n\n"
        "To talk to a real model, set `ANTHROPIC_API_KEY` or `OPENAI_API_KEY` and start again."
    )


def _reasoning_for(topic: str) -> str:
    topic = topic or "the request"
    return (
        f"The user wants me to think about: {topic[:300]}. "
        "I am the demo model, so my reasoning follows a fixed recipe: first restate the request, "
        "then check whether one of my tools (read, list, search, run) applies, and finally answer "
        "in Markdown."
    )


# --------------------------------------------------------------------------- summarising tool results


def _tool_context(messages: list[dict[str, Any]], after: int) -> list[tuple[str, dict[str, Any], str]]:
    """(tool name, arguments, result text) for the tool results after the latest tool-calling turn."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    results: list[tuple[str, dict[str, Any], str]] = []
    for message in messages[after + 1 :]:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            calls, results = {}, []
            for call in message["tool_calls"]:
                function = call.get("function") or {}
                try:
                    args = json.loads(function.get("arguments") or "{}")
                except (ValueError, TypeError):
                    args = {}
                calls[str(call.get("id"))] = (
                    str(function.get("name") or "tool"),
                    args if isinstance(args, dict) else {},
                )
        elif message.get("role") == "tool":
            name, args = calls.get(str(message.get("tool_call_id")), (str(message.get("tool_name") or "tool"), {}))
            results.append((name, args, content_text(message.get("content"), "[image]")))
    return results


def _preview(text: str, lines: int = PREVIEW_LINES) -> str:
    all_lines = text.splitlines()
    shown = "\n".join(all_lines[:lines])
    more = f"\n\n…and {len(all_lines) - lines} more lines." if len(all_lines) > lines else ""
    return _fence(shown) + more


def _describe_result(name: str, args: dict[str, Any], result: str) -> str:
    stripped = result.strip()
    if stripped.lower().startswith("error") or stripped.startswith("Command denied"):
        return f"The `{name}` tool reported a problem:\n\n{_fence(stripped[:800])}"
    try:
        data = json.loads(stripped)
    except ValueError:
        data = None
    if name == "read_file":
        path = args.get("path", "the file")
        count = len(result.splitlines())
        noun = "line" if count == 1 else "lines"
        return f"`{path}` — {count} {noun} returned. The beginning:\n\n{_preview(result)}"
    if isinstance(data, dict) and name == "terminal":
        output = str(data.get("output", "")).rstrip()
        head = f"`{args.get('command', 'the command')}` exited with code {data.get('exit_code', '?')}."
        return head + ("\n\n" + _preview(output) if output else " It printed nothing.")
    if isinstance(data, dict) and name == "search_files":
        entries = data.get("matches") or data.get("files") or []
        total = data.get("total_count", len(entries))
        lines = []
        for entry in entries[:PREVIEW_LINES]:
            if isinstance(entry, dict):
                where = f"{entry.get('path', '?')}:{entry.get('line')}" if entry.get("line") else entry.get("path")
                text = f" — {str(entry.get('text', '')).strip()[:100]}" if entry.get("text") else ""
                lines.append(f"- `{where}`{text}")
            else:
                lines.append(f"- `{entry}`")
        what = "matches" if args.get("target") != "files" else "files"
        return f"Found **{total}** {what}.\n\n" + ("\n".join(lines) if lines else "Nothing matched.")
    if isinstance(data, dict) and data.get("error"):
        return f"The `{name}` tool reported a problem: {data['error']}"
    return f"The `{name}` tool returned:\n\n{_preview(result)}"


def _answer_from_results(results: list[tuple[str, dict[str, Any], str]]) -> str:
    parts = [_describe_result(name, args, result) for name, args, result in results]
    lead = "Here is what the tool returned." if len(parts) == 1 else f"Here is what the {len(parts)} tools returned."
    return lead + "\n\n" + "\n\n".join(parts)


# --------------------------------------------------------------------------- the provider


def plan_reply(request: ChatRequest) -> _Plan:
    """Decide, deterministically, what to answer to this request."""
    messages = [m for m in request.messages if isinstance(m, dict)]
    user_index, text = _latest_user(messages)
    if is_summary_prompt(text):
        return _Plan(text=build_demo_summary(text))
    if is_judge_prompt(text):
        return _Plan(text=demo_verdict(text))
    if any(m.get("role") == "tool" for m in messages[user_index + 1 :]):
        return _Plan(text=_answer_from_results(_tool_context(messages, user_index)))
    plan = _Plan()
    if match := _THINK.match(text):
        text = match.group("rest").strip()
        plan.reasoning = _reasoning_for(text)
    request_match = _tool_request(text)
    if request_match is None:
        plan.text = _help_reply(text)
        return plan
    name, args, announcement = request_match
    if name not in _tool_names(request.tools):
        plan.text = f"I would use the `{name}` tool for that, but it is not available in this session."
        return plan
    plan.text = announcement
    plan.tool_calls.append((name, args))
    return plan


def _chunks(text: str) -> list[str]:
    words = _CHUNK.findall(text)
    return ["".join(words[i : i + WORDS_PER_CHUNK]) for i in range(0, len(words), WORDS_PER_CHUNK)]


def _rough_tokens(chars: int) -> int:
    return (chars + 3) // 4


class DemoProvider(Provider):
    """Offline and deterministic; `is_demo` is always True."""

    name = "demo"
    is_demo = True

    def __init__(self, model: str = "demo", *, delay: float | None = None) -> None:
        super().__init__(model or "demo")
        self._delay = delay

    @property
    def delay(self) -> float:
        return demo_delay() if self._delay is None else max(0.0, self._delay)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        plan = plan_reply(request)
        delay = self.delay
        finish = "tool_calls" if plan.tool_calls else "stop"
        text = plan.text
        if request.max_tokens and _rough_tokens(len(text)) > request.max_tokens and not plan.tool_calls:
            text, finish = text[: request.max_tokens * 4], "length"
        for piece in _chunks(plan.reasoning):
            yield StreamReasoning(piece)
            await asyncio.sleep(delay)
        for piece in _chunks(text):
            yield StreamText(piece)
            await asyncio.sleep(delay)
        call_chars = 0
        position = len(request.messages)
        for name, args in plan.tool_calls:
            arguments = json.dumps(args, ensure_ascii=False)
            digest = hashlib.sha256(f"{position}:{name}:{arguments}".encode()).hexdigest()[:16]
            call_chars += len(name) + len(arguments)
            yield StreamToolCall(id=f"call_demo_{digest}", name=name, arguments=arguments)
        prompt_chars = len(json.dumps(request.messages, ensure_ascii=False, default=str))
        if request.tools:
            prompt_chars += len(json.dumps(request.tools, ensure_ascii=False, default=str))
        usage = Usage(
            prompt_tokens=_rough_tokens(prompt_chars),
            completion_tokens=max(1, _rough_tokens(len(text) + len(plan.reasoning) + call_chars)),
            reasoning_tokens=_rough_tokens(len(plan.reasoning)),
        )
        yield StreamUsage(usage)
        yield StreamFinish(finish)
