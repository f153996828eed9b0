"""Build the per-call API copy of the conversation (reference §6.0 step 7).

The canonical history is never modified here: we copy it, drop in-memory flags, repair what a
provider would reject (stray tool results, tool calls without results, consecutive user
messages, invalid argument JSON), canonicalise tool-call arguments for byte-stable prefixes,
and put the cached system prompt first.
"""

from __future__ import annotations

import json
from typing import Any

from hermes_tui.core.context.offload import in_slices
from hermes_tui.core.messages import Message, content_text, public_copy, tool_call_ids

STUB_RESULT = "[Result unavailable — see context summary above]"


def _canonical_arguments(raw: Any) -> str:
    if isinstance(raw, (dict, list)):
        return json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    text = str(raw or "").strip() or "{}"
    try:
        parsed = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return "{}"  # never send invalid JSON back to a provider
    return json.dumps(parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def clean_message(message: Message) -> Message:
    """The request copy of one history message: no in-memory flags, trimmed text, canonical tool-call arguments."""
    msg = public_copy(message)
    content = msg.get("content")
    if isinstance(content, str):
        # Byte-stable prefixes (reference §9). Tool output keeps its leading indentation.
        msg["content"] = content.rstrip() if msg.get("role") == "tool" else content.strip()
    if msg.get("tool_calls"):
        calls = []
        for call in msg["tool_calls"]:
            fn = dict(call.get("function") or {})
            fn["arguments"] = _canonical_arguments(fn.get("arguments"))
            calls.append({"id": call.get("id"), "type": "function", "function": fn})
        msg["tool_calls"] = calls
    return msg


def _as_parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, list):
        return [p if isinstance(p, dict) else {"type": "text", "text": str(p)} for p in content]
    return [{"type": "text", "text": content_text(content)}]


def _merge_content(first: Message, second: Message) -> Any:
    """Join two user contents; list (multimodal) contents keep their parts."""
    a, b = first.get("content"), second.get("content")
    if isinstance(a, list) or isinstance(b, list):
        return [*_as_parts(a), *_as_parts(b)]
    return content_text(a) + "\n\n" + content_text(b)


def repair_history(messages: list[Message]) -> list[Message]:
    """Drop stray tool results, stub missing ones, merge consecutive user messages."""
    return repair_with_origins(messages)[0]


def repair_with_origins(messages: list[Message]) -> tuple[list[Message], list[int]]:
    """`repair_history`, and for each message it returns the index of the input message whose turn
    produced it (a merged user message: the first of them; a stub: the message before which the
    unanswered calls were closed, `len(messages)` at the end).

    An assistant message is where a repair can start over: what comes out from it on is the same
    whether the messages before it were repaired together with it or not (no user message merges
    into it, no result is pending across it once its stubs are out) — the incremental request copy
    (`core.turn.request_copy`) relies on that.
    """
    repair = HistoryRepair()
    repair.feed(messages)
    return repair.finish()


class HistoryRepair:
    """`repair_with_origins` fed a run of messages at a time, so that a long history can be
    repaired in slices with the event loop running between them: feeding it the history in any
    cut gives what one call over the whole history gives."""

    def __init__(self) -> None:
        self.repaired: list[Message] = []
        self.origins: list[int] = []
        self._open_calls: set[str] = set()
        self._fed = 0  # messages fed so far: the next one's index

    def feed(self, messages: list[Message]) -> None:
        repaired, origins, open_calls = self.repaired, self.origins, self._open_calls
        for index, message in enumerate(messages, start=self._fed):
            role = message.get("role")
            if role == "tool":
                cid = str(message.get("tool_call_id") or "")
                if cid not in open_calls:
                    continue  # a result whose call did not survive: providers reject it
                open_calls.discard(cid)
                repaired.append(message)
                origins.append(index)
                continue
            if open_calls:  # the previous assistant left calls unanswered
                self._close_open_calls(index)
            if role == "assistant" and message.get("tool_calls"):
                open_calls.update(tool_call_ids(message))
            if role == "user" and repaired and repaired[-1].get("role") == "user":
                repaired[-1] = {**repaired[-1], "content": _merge_content(repaired[-1], message)}
                continue
            repaired.append(message)
            origins.append(index)
        self._fed += len(messages)

    def _close_open_calls(self, origin: int) -> None:
        for cid in sorted(self._open_calls):
            self.repaired.append({"role": "tool", "content": STUB_RESULT, "tool_call_id": cid})
            self.origins.append(origin)
        self._open_calls.clear()

    def finish(self) -> tuple[list[Message], list[int]]:
        """(the repaired messages, their origins), once every message is fed."""
        self._close_open_calls(self._fed)
        return self.repaired, self.origins


async def clean_and_repair_in_slices(messages: list[Message]) -> tuple[list[Message], list[int]]:
    """`repair_with_origins` of the messages' `clean_message` copies, a slice at a time on the event
    loop (keys and frames run between the slices)."""
    repair = HistoryRepair()
    async for chunk in in_slices(messages):
        repair.feed([clean_message(message) for message in chunk])
    return repair.finish()


def build_api_messages(
    messages: list[Message],
    system_prompt: str | None,
    *,
    extra_user_context: str = "",
    extra_messages: list[Message] | None = None,
) -> list[Message]:
    """The request copy: system first, cleaned and repaired history, optional per-call additions.

    `extra_user_context` is appended to the current (last) user message of the copy only — per-turn
    material never enters the system prompt or the stored history (reference §9 item 5).
    `extra_messages` are appended after the history (e.g. the max-iterations request).
    """
    cleaned = [clean_message(m) for m in messages]
    return _finish(repair_history(cleaned), system_prompt, extra_user_context, extra_messages)


async def build_api_messages_in_slices(
    messages: list[Message],
    system_prompt: str | None,
    *,
    extra_user_context: str = "",
    extra_messages: list[Message] | None = None,
) -> list[Message]:
    """`build_api_messages`, cleaning and repairing the history a slice at a time on the event loop (a
    long one takes ~16 ms per 10,000 messages; keys and frames run between the slices)."""
    repaired, _ = await clean_and_repair_in_slices(messages)
    return _finish(repaired, system_prompt, extra_user_context, extra_messages)


def _finish(
    body: list[Message], system_prompt: str | None, extra_user_context: str, extra_messages: list[Message] | None
) -> list[Message]:
    """The repaired body with the per-call additions and the system prompt first."""
    if extra_user_context:
        index = last_user_index(body)
        if index >= 0:
            body[index] = with_user_context(body[index], extra_user_context)
    if extra_messages:
        body.extend(clean_message(m) for m in extra_messages)
    if system_prompt:
        return [system_message(system_prompt), *body]
    return body


def last_user_index(messages: list[Message]) -> int:
    """The position of the last user message (-1 when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user":
            return index
    return -1


def with_user_context(message: Message, extra_user_context: str) -> Message:
    """A copy of the current user message with the per-turn material after its text."""
    return {**message, "content": f"{content_text(message.get('content'))}\n\n{extra_user_context}"}


def system_message(system_prompt: str) -> Message:
    return {"role": "system", "content": system_prompt}
