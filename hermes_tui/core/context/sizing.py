"""Per-message token costs used to place the prune boundary and the tail cut (reference §1.1).

Owns the compressor's character budgeting: `len(content)//4 + 10` per message, plus
`len(arguments)//4` per tool call, with every image part counted as 6400 characters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hermes_tui.core.context.constants import CHARS_PER_TOKEN, IMAGE_CHAR_ESTIMATE, MESSAGE_OVERHEAD_TOKENS
from hermes_tui.core.messages import Message, is_image_part

MessageCosts = Sequence[int] | Mapping[int, int]
"""`costs[i]` is `message_budget_tokens(messages[i])`: a list of them all, or a lazy mapping
(`prune.LazyCosts`) that measures only the messages a walk reaches."""


def content_chars(content: object) -> int:
    """Characters of a content value for budgeting; image parts count IMAGE_CHAR_ESTIMATE each."""
    if content is None:
        return 0
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        total = 0
        for part in content:
            if is_image_part(part):
                total += IMAGE_CHAR_ESTIMATE
            elif isinstance(part, dict):
                text = part.get("text")
                total += len(text) if isinstance(text, str) else 0
            elif isinstance(part, str):
                total += len(part)
        return total
    if isinstance(content, dict):
        return len(str(content.get("text_summary") or content.get("text") or ""))
    return len(str(content))


def tool_call_arguments(call: object) -> str:
    """The arguments string of a tool call in dict or object form ("" when absent)."""
    function = call.get("function") if isinstance(call, dict) else getattr(call, "function", None)
    arguments = function.get("arguments") if isinstance(function, dict) else getattr(function, "arguments", None)
    return arguments if isinstance(arguments, str) else ""


def tool_call_name(call: object) -> str:
    function = call.get("function") if isinstance(call, dict) else getattr(call, "function", None)
    name = function.get("name") if isinstance(function, dict) else getattr(function, "name", None)
    return name if isinstance(name, str) else ""


def message_budget_tokens(message: Message) -> int:
    """The compressor's rough cost of one message."""
    content = message.get("content")
    chars = len(content) if type(content) is str else content_chars(content)  # the common case inline
    tokens = chars // CHARS_PER_TOKEN + MESSAGE_OVERHEAD_TOKENS
    calls = message.get("tool_calls")
    if calls:
        for call in calls:
            tokens += len(tool_call_arguments(call)) // CHARS_PER_TOKEN
    return tokens
