"""A baseline for the compressor benches: Hermes's compress phases written plainly from the reference.

This is our own straightforward re-implementation of reference §4.2 — phase 1 (tool-output prune:
md5 dedup over the whole list, one-liners and argument truncation before the token-budget
boundary), phase 2 (head, forward/backward alignment, the token-budget tail cut walking back with
`len//4 + 10` per message, the last-user anchor, rehydration of an earlier handoff) and phase 4
(system note, summary role and merge, END marker, tool-pair sanitising, historical media strip,
rough size of the result) — the way the reference does them: each step its own pass over the list,
costs computed where they are needed. It shares only marker strings and constants with the
product, so product optimisations never speed it up. `bench.context_bench` times both on the same
histories; tests/context/test_reference_parity.py checks that both produce the same conversation.

    reference_compress(messages, summary, tail_token_budget=20_000) -> (compressed, details)
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from hermes_tui.core.context.markers import (
    DUPLICATE_TOOL_OUTPUT,
    HISTORICAL_IMAGE_PLACEHOLDER,
    MERGED_PRIOR_CONTEXT_HEADER,
    MERGED_SUMMARY_DELIMITER,
    MISSING_TOOL_RESULT_STUB,
    PRUNED_TOOL_PLACEHOLDER,
    SCREENSHOT_REMOVED_PART,
    SCREENSHOT_REMOVED_PREFIX,
    SUMMARY_END_MARKER,
    SYSTEM_COMPACTION_NOTE,
    TRUNCATED_LEAF_SUFFIX,
)
from hermes_tui.store.models import SUMMARY_MARKERS

PROTECT_FIRST_N = 3
PROTECT_LAST_N = 20
IMAGE_TYPES = ("image_url", "input_image", "image")


# ----------------------------------------------------------------------------- sizes


def _is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in IMAGE_TYPES


def _content_len(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        total = 0
        for part in content:
            if _is_image(part):
                total += 6400
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                total += len(part["text"])
            elif isinstance(part, str):
                total += len(part)
        return total
    if isinstance(content, dict):
        return len(str(content.get("text_summary") or content.get("text") or ""))
    return 0 if content is None else len(str(content))


def _args_of(call: Any) -> str:
    function = call.get("function") if isinstance(call, dict) else None
    arguments = function.get("arguments") if isinstance(function, dict) else None
    return arguments if isinstance(arguments, str) else ""


def _name_of(call: Any) -> str:
    function = call.get("function") if isinstance(call, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else ""


def _msg_tokens(message: dict[str, Any]) -> int:
    tokens = _content_len(message.get("content")) // 4 + 10
    for call in message.get("tool_calls") or []:
        tokens += len(_args_of(call)) // 4
    return tokens


def rough_tokens(messages: list[dict[str, Any]]) -> int:
    """Hermes's estimate_messages_tokens_rough: repr length of each message (images stubbed) / 4."""
    chars = 0
    images = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") in IMAGE_TYPES for p in content):
            shadow = dict(message)
            shadow["content"] = [
                {"type": p.get("type"), "image": "[stripped]"}
                if isinstance(p, dict) and p.get("type") in IMAGE_TYPES
                else p
                for p in content
            ]
            images += sum(1 for p in content if isinstance(p, dict) and p.get("type") in IMAGE_TYPES)
            chars += len(str(shadow))
        else:
            chars += len(str(message))
    return (chars + 3) // 4 + images * 1500


# ----------------------------------------------------------------------------- phase 1


def _json_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _lines(content: str) -> int:
    return content.count("\n") + 1 if content.strip() else 0


def one_liner(tool: str, args_json: str, content: str) -> str:
    """Reference §4.2 pass 2: the one-line stand-in for an old tool result."""
    tool = tool or "tool"
    try:
        args = json.loads(args_json) if args_json else {}
    except (ValueError, TypeError):
        args = {}
    if not isinstance(args, dict):
        args = {}
    n = f"{len(content):,}"
    get = args.get
    if tool == "terminal":
        found = re.search(r'"exit_code"\s*:\s*(-?\d+)', content)
        return (
            f"[terminal] ran `{_cut(_json_text(get('command')), 80)}` -> exit "
            f"{found.group(1) if found else '?'}, {_lines(content)} lines output"
        )
    if tool == "read_file":
        return f"[read_file] read {_json_text(get('path'))} from line {get('offset') or 1} ({n} chars)"
    if tool == "write_file":
        written = get("content")
        lines = str(written.count("\n") + 1) if isinstance(written, str) else "?"
        return f"[write_file] wrote to {_json_text(get('path'))} ({lines} lines)"
    if tool == "search_files":
        found = re.search(r'"total_count"\s*:\s*(\d+)', content)
        return (
            f"[search_files] {_json_text(get('target')) or 'content'} search for '{_json_text(get('pattern'))}' "
            f"in {_json_text(get('path')) or '.'} -> {found.group(1) if found else '?'} matches"
        )
    if tool == "patch":
        return f"[patch] {_json_text(get('mode')) or 'replace'} in {_json_text(get('path'))} ({n} chars result)"
    if tool == "web_search":
        return f"[web_search] query='{_json_text(get('query'))}' ({n} chars result)"
    if tool == "web_extract":
        urls = get("urls")
        urls = urls if isinstance(urls, list) else ([urls] if urls else [])
        more = f" (+{len(urls) - 1} more)" if len(urls) > 1 else ""
        return f"[web_extract] {_json_text(urls[0]) if urls else ''}{more} ({n} chars)"
    if tool == "delegate_task":
        return f"[delegate_task] '{_cut(_json_text(get('goal')), 60)}' ({n} chars result)"
    if tool == "execute_code":
        code = _json_text(get("code")).replace("\n", " ")
        return f"[execute_code] `{code[:60] + ('...' if len(code) > 60 else '')}` ({_lines(content)} lines output)"
    if tool == "vision_analyze":
        return f"[vision_analyze] '{_json_text(get('question'))[:50]}' ({n} chars)"
    if tool == "memory":
        return f"[memory] {_json_text(get('action'))} on {_json_text(get('target'))}"
    if tool == "todo":
        return "[todo] updated task list"
    if tool == "clarify":
        return "[clarify] asked user a question"
    if tool == "text_to_speech":
        return f"[text_to_speech] generated audio ({n} chars)"
    if tool == "cronjob":
        return f"[cronjob] {_json_text(get('action'))}"
    if tool == "process":
        return f"[process] {_json_text(get('action'))} session={_json_text(get('session_id'))}"
    if tool.startswith("browser_") and tool in (
        "browser_navigate",
        "browser_click",
        "browser_snapshot",
        "browser_type",
        "browser_scroll",
        "browser_vision",
    ):
        detail = (
            f"{_json_text(get('url'))} " if get("url") else (f"ref={_json_text(get('ref'))} " if get("ref") else "")
        )
        return f"[{tool}] {detail}({n} chars)"
    if tool in ("skill_view", "skills_list", "skill_manage"):
        return f"[{tool}] name={_json_text(get('name'))} ({n} chars)"
    pairs = " ".join(f"{k}={_json_text(v)[:40]}" for k, v in list(args.items())[:2])
    return f"[{tool}] {pairs + ' ' if pairs else ''}({n} chars result)"


def _shrink(value: Any) -> Any:
    if isinstance(value, str):
        return value[:200] + TRUNCATED_LEAF_SUFFIX if len(value) > 200 else value
    if isinstance(value, dict):
        return {k: _shrink(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shrink(v) for v in value]
    return value


def _truncate_args(arguments: str) -> str:
    if len(arguments) <= 500:
        return arguments
    try:
        return json.dumps(_shrink(json.loads(arguments)), ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        return arguments


def prune(messages: list[dict[str, Any]], head_end: int, tail_budget: int) -> tuple[list[dict[str, Any]], int]:
    result = [dict(m) for m in messages]
    n = len(result)
    calls: dict[str, tuple[str, str]] = {}
    for message in result:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict):
                    for cid in (call.get("call_id"), call.get("id")):
                        if cid:
                            calls[str(cid)] = (_name_of(call), _args_of(call))
    # Boundary: the tail within the token budget, at least protect_last_n messages.
    min_protect = min(PROTECT_LAST_N, n)
    accumulated = 0
    count = 0
    for i in range(n - 1, -1, -1):
        tokens = _msg_tokens(result[i])
        if accumulated + tokens > tail_budget and count >= min_protect:
            break
        accumulated += tokens
        count += 1
    boundary = n - max(count, min_protect)
    changed: set[int] = set()
    hashes: set[str] = set()
    for i in range(n - 1, head_end - 1, -1):
        message = result[i]
        content = message.get("content")
        if message.get("role") != "tool" or not isinstance(content, str) or len(content) < 200:
            continue
        digest = hashlib.md5(content.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        if digest in hashes:
            result[i] = {**message, "content": DUPLICATE_TOOL_OUTPUT}
            changed.add(i)
        else:
            hashes.add(digest)
    for i in range(head_end, boundary):
        message = result[i]
        if message.get("role") != "tool":
            continue
        content = message.get("content")
        if isinstance(content, list):
            if any(_is_image(p) for p in content):
                parts = [{"type": "text", "text": SCREENSHOT_REMOVED_PART} if _is_image(p) else p for p in content]
                result[i] = {**message, "content": parts}
                changed.add(i)
            continue
        if isinstance(content, dict):
            if content.get("_multimodal"):
                text = SCREENSHOT_REMOVED_PREFIX + str(content.get("text_summary") or "")[:200]
                result[i] = {**message, "content": text}
                changed.add(i)
            continue
        if not isinstance(content, str) or not content or content == PRUNED_TOOL_PLACEHOLDER:
            continue
        if content.startswith("[Duplicate tool output") or len(content) <= 200:
            continue
        name, args = calls.get(str(message.get("tool_call_id") or ""), ("", ""))
        result[i] = {**message, "content": one_liner(name or str(message.get("tool_name") or "tool"), args, content)}
        changed.add(i)
    for i in range(head_end, boundary):
        message = result[i]
        if message.get("role") != "assistant" or not isinstance(message.get("tool_calls"), list):
            continue
        new_calls = []
        touched = False
        for call in message["tool_calls"]:
            function = call.get("function") if isinstance(call, dict) else None
            arguments = function.get("arguments") if isinstance(function, dict) else None
            if isinstance(arguments, str) and len(arguments) > 500:
                shrunk = _truncate_args(arguments)
                if shrunk != arguments:
                    call = {**call, "function": {**function, "arguments": shrunk}}
                    touched = True
            new_calls.append(call)
        if touched:
            result[i] = {**message, "tool_calls": new_calls}
            changed.add(i)
    return result, len(changed)


# ----------------------------------------------------------------------------- phase 2


def _align_forward(messages: list[dict[str, Any]], index: int) -> int:
    while index < len(messages) and messages[index].get("role") == "tool":
        index += 1
    return index


def _align_backward(messages: list[dict[str, Any]], index: int) -> int:
    if index <= 0 or index >= len(messages):
        return index
    check = index - 1
    while check >= 0 and messages[check].get("role") == "tool":
        check -= 1
    if check >= 0 and messages[check].get("role") == "assistant" and messages[check].get("tool_calls"):
        return check
    return index


def tail_cut(messages: list[dict[str, Any]], head_end: int, budget: int) -> int:
    n = len(messages)
    min_tail = min(3, n - head_end - 1) if n - head_end > 1 else 0
    ceiling = 1.5 * budget
    accumulated = 0
    cut = n
    for i in range(n - 1, head_end - 1, -1):
        tokens = _msg_tokens(messages[i])
        if accumulated + tokens > ceiling and n - i > min_tail:
            break
        accumulated += tokens
        cut = i
    cut = min(cut, n - min_tail)
    if cut <= head_end:
        cut = max(n - min_tail, head_end + 1)
    cut = _align_backward(messages, cut)
    last_user = -1
    for i in range(n - 1, head_end - 1, -1):
        if messages[i].get("role") == "user":
            last_user = i
            break
    if 0 <= last_user < cut:
        cut = max(last_user, head_end + 1)
    return max(cut, head_end + 1)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p if isinstance(p, str) else p["text"]
            for p in content
            if isinstance(p, str) or (isinstance(p, dict) and isinstance(p.get("text"), str))
        )
    if isinstance(content, dict):
        return str(content.get("text_summary") or content.get("text") or "")
    return "" if content is None else str(content)


def _previous_summary_index(messages: list[dict[str, Any]], end: int) -> int:
    first = 1 if messages and messages[0].get("role") == "system" else 0
    for i in range(end - 1, first - 1, -1):
        if _text_of(messages[i].get("content")).lstrip().startswith(SUMMARY_MARKERS):
            return i
    return -1


# ----------------------------------------------------------------------------- phase 4


def _call_ids(message: dict[str, Any]) -> list[list[str]]:
    groups = []
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict):
            ids = [str(c) for c in (call.get("call_id"), call.get("id")) if c]
            ids = list(dict.fromkeys(ids))
            if ids:
                groups.append(ids)
    return groups


def _sanitize(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    known: set[str] = set()
    for message in messages:
        if message.get("role") == "assistant":
            for group in _call_ids(message):
                known.update(group)
    kept = [m for m in messages if m.get("role") != "tool" or str(m.get("tool_call_id") or "") in known]
    answered = {str(m.get("tool_call_id")) for m in kept if m.get("role") == "tool"}
    out: list[dict[str, Any]] = []
    for message in kept:
        out.append(message)
        if message.get("role") == "assistant":
            for group in _call_ids(message):
                if not answered.intersection(group):
                    out.append({"role": "tool", "content": MISSING_TOOL_RESULT_STUB, "tool_call_id": group[0]})
                    answered.add(group[0])
    return out


def _strip_media(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    anchor = -1
    for i in range(len(messages) - 1, -1, -1):
        content = messages[i].get("content")
        if messages[i].get("role") == "user" and isinstance(content, list) and any(_is_image(p) for p in content):
            anchor = i
            break
    if anchor <= 0:
        return messages
    out = list(messages)
    for i in range(anchor):
        content = out[i].get("content")
        if isinstance(content, list) and any(_is_image(p) for p in content):
            parts = [{"type": "text", "text": HISTORICAL_IMAGE_PLACEHOLDER} if _is_image(p) else p for p in content]
            out[i] = {**out[i], "content": parts}
    return out


def assemble(head: list[dict[str, Any]], summary: str, tail: list[dict[str, Any]]) -> list[dict[str, Any]]:
    head = [dict(m) for m in head]
    known: set[str] = set()
    for message in (*head, *tail):
        if message.get("role") == "assistant":
            for group in _call_ids(message):
                known.update(group)
    tail = [dict(m) for m in tail if m.get("role") != "tool" or str(m.get("tool_call_id") or "") in known]
    if head and head[0].get("role") == "system":
        content = head[0].get("content")
        if isinstance(content, list):
            if not any(SYSTEM_COMPACTION_NOTE in str(p.get("text", "")) for p in content if isinstance(p, dict)):
                head[0]["content"] = [*content, {"type": "text", "text": SYSTEM_COMPACTION_NOTE}]
        else:
            text = _text_of(content)
            if SYSTEM_COMPACTION_NOTE not in text:
                head[0]["content"] = f"{text}\n\n{SYSTEM_COMPACTION_NOTE}" if text else SYSTEM_COMPACTION_NOTE
    last_head_role = str(head[-1].get("role")) if head else "user"
    first_tail_role = str(tail[0].get("role")) if tail else "user"
    no_user = not any(m.get("role") == "user" for m in (*head, *tail))
    force_user = no_user or last_head_role == "system"
    role = "user" if force_user or last_head_role in ("assistant", "tool") else "assistant"
    merge = False
    if role == first_tail_role:
        flipped = "assistant" if role == "user" else "user"
        if force_user or flipped == last_head_role:
            merge = True
        else:
            role = flipped
    if merge and tail:
        closing = f"\n\n{MERGED_SUMMARY_DELIMITER}\n\n{summary}\n\n{SUMMARY_END_MARKER}"
        content = tail[0].get("content")
        if isinstance(content, list):
            parts = [{"type": "text", "text": MERGED_PRIOR_CONTEXT_HEADER + "\n"}, *content]
            tail[0]["content"] = [*parts, {"type": "text", "text": closing}]
        else:
            tail[0]["content"] = MERGED_PRIOR_CONTEXT_HEADER + "\n" + _text_of(content) + closing
        return _sanitize([*head, *tail])
    return _sanitize([*head, {"role": role, "content": f"{summary}\n\n{SUMMARY_END_MARKER}"}, *tail])


# ----------------------------------------------------------------------------- compress


def reference_compress(
    messages: list[dict[str, Any]], summary: str, tail_token_budget: int = 20_000
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Phases 1, 2 and 4 with a given summary text (phase 3 is the model's); no state."""
    n = len(messages)
    head_size = (1 if messages and messages[0].get("role") == "system" else 0) + PROTECT_FIRST_N
    if n <= head_size + 3 + 1:
        return list(messages), {"changed": False}
    start = _align_forward(messages, head_size)
    if start >= n:
        return list(messages), {"changed": False}
    pruned, pruned_count = prune(messages, start, tail_token_budget)
    end = tail_cut(pruned, start, tail_token_budget)
    if start >= end:
        return list(messages), {"changed": False}
    previous = _previous_summary_index(pruned, end)
    turns = pruned[max(start, previous + 1) : end] if previous >= 0 else pruned[start:end]
    compressed = _strip_media(assemble(pruned[:start], summary, pruned[end:]))
    details = {
        "changed": True,
        "start": start,
        "end": end,
        "tail": n - end,
        "pruned_count": pruned_count,
        "turns": len(turns),
        "tokens_after": rough_tokens(compressed),
    }
    return compressed, details
