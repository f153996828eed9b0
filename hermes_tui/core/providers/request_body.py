"""A request body encoded from what changed since the conversation's previous request.

Encoding the whole history for every call (translating each message to the wire shape, then
JSON) cost 1.9-3.0x a bare `json.dumps` of the body: about 1 s of CPU for OpenAI and 2 s for
Anthropic at 100,000 messages. The request copy (`core.turn.request_copy`) hands over the same
message objects for the settled part of a history, call after call, and says where they are
(`ChatRequest.reusable`). The encoders here keep the encoded bytes of that part and encode only
the rest, so a call costs its new messages plus one join of the bytes; the body is byte for byte
the one the full path (`encode_body_in_slices` over `build_params`) gives — tests compare them.

- `OpenAIBody`: each message is encoded on its own (chat completions has no cross-message
  rules), so every reusable message's bytes are kept.
- `AnthropicBody`: consecutive messages of the same role are merged and the last three non-system
  messages carry cache breakpoints, so bytes are kept for whole merged messages only, up to an
  assistant message that follows a user one (where no merge crosses) and before any breakpoint;
  with fewer than three messages after the kept part, the body is encoded whole again.

A kept part is trusted while its first and last message are the same objects at the same places
(the request copy's guarantee; anything rebuilt is made of new objects). One encoder serves one
conversation and one wire shape (`RequestCache.encoder`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hermes_tui.core.context.offload import map_in_slices
from hermes_tui.core.providers.anthropic_wire import merge_same_role, split_system, wire_one
from hermes_tui.core.providers.caching import TAIL_BREAKPOINTS, last_non_system, marked_copy
from hermes_tui.core.providers.prebuilt_request import encode_value, join_body

Message = dict[str, Any]
Frame = tuple[bytes, bytes]

KEPT_BODY_BYTES = 128 * 1024 * 1024
"""The most encoded bytes one encoder keeps (issue 23: memory is bounded). Past it, the rest of the
settled part is encoded again at every call (the body stays byte for byte the same). A request a
model's window accepts is far smaller (1M tokens: ~5 MB); request_bench's 100,000-message stress
history is 69 MB, kept whole."""


def _system_first(messages: Sequence[Message]) -> int:
    return 1 if messages and messages[0].get("role") == "system" else 0


class _Kept:
    """The messages whose bytes are kept (from position `start` of the request), as objects."""

    def __init__(self) -> None:
        self.start = 0
        self.messages: list[Message] = []
        self.encoded: list[bytes] = []
        self.encoded_last_call = 0  # messages encoded by the last call (benches, tests)
        self.max_bytes = KEPT_BODY_BYTES

    @property
    def kept_bytes(self) -> int:
        return sum(map(len, self.encoded))

    def room(self) -> int:
        """Bytes that may still be kept."""
        return max(0, self.max_bytes - self.kept_bytes)

    def usable(self, messages: Sequence[Message], reusable: range) -> int:
        """How many kept messages this request still holds in place (0: start again)."""
        start = _system_first(messages)
        kept = self.messages
        count = min(len(kept), max(0, min(reusable.stop, len(messages)) - start))
        if reusable.start != start or start != self.start or not count:
            return 0
        if messages[start] is not kept[0] or messages[start + count - 1] is not kept[count - 1]:
            return 0
        return count


class OpenAIBody(_Kept):
    """Chat-completions bodies of one conversation, with the reusable messages' bytes kept."""

    async def encode(
        self, messages: Sequence[Message], reusable: range, frame: Frame, wire: Callable[[Message], Message]
    ) -> bytes:
        count = self.usable(messages, reusable)
        del self.messages[count:], self.encoded[count:]
        self.start = start = _system_first(messages)

        def encoded(message: Message) -> bytes:
            return encode_value(wire(message))

        head = [encoded(message) for message in messages[:start]]
        fresh = await map_in_slices(encoded, messages[start + count :])
        self.encoded_last_call = len(head) + len(fresh)
        body = join_body(frame, [*head, *self.encoded, *fresh])
        settle = max(0, min(reusable.stop, len(messages)) - start) - count
        if settle > 0 and reusable.start == start:
            room, fits = self.room(), 0
            for chunk in fresh[:settle]:  # what fits under max_bytes
                room -= len(chunk)
                if room < 0:
                    break
                fits += 1
            self.messages.extend(messages[start + count : start + count + fits])
            self.encoded.extend(fresh[:fits])
        return body


class AnthropicBody(_Kept):
    """Messages-API bodies of one conversation, with the bytes of settled merged messages kept."""

    def __init__(self, *, caching: bool, ttl: str) -> None:
        super().__init__()
        self.caching = caching
        self.ttl = ttl
        self._chunks: list[tuple[int, int]] = []  # (kept messages, kept merged messages) after each settling

    def _keep_only(self, count: int) -> int:
        """Drop the kept part beyond `count` messages, at a settling boundary; returns what is kept."""
        while self._chunks and self._chunks[-1][0] > count:
            self._chunks.pop()
        messages, merged = self._chunks[-1] if self._chunks else (0, 0)
        del self.messages[messages:], self.encoded[merged:]
        return messages

    async def encode(self, messages: Sequence[Message], reusable: range, frame_for: Callable[[Any], Frame]) -> bytes:
        """The body; `frame_for(system blocks)` encodes everything around the messages."""
        start = _system_first(messages)
        count = self._keep_only(self.usable(messages, reusable))
        self.start = start
        rest = list(messages[start + count :])
        targets = last_non_system(rest, TAIL_BREAKPOINTS) if self.caching else []
        if count and self.caching and len(targets) < TAIL_BREAKPOINTS:
            count = self._keep_only(0)  # a breakpoint would fall in the kept part
            rest = list(messages[start:])
            targets = last_non_system(rest, TAIL_BREAKPOINTS)
        system: Any = None
        if start:
            head = marked_copy([messages[0]], [0], self.ttl) if self.caching else [messages[0]]
            system = split_system(head)[0]
        if self.caching:
            rest = marked_copy(rest, targets, self.ttl)
        wired = await map_in_slices(wire_one, rest)
        limit = min(max(0, min(reusable.stop, len(messages)) - start - count), targets[0] if targets else len(rest))
        cut = _settle_point(rest, wired, limit if reusable.start == start else 0, self.encoded != [])
        settled = [encode_value(m) for m in merge_same_role([w for w in wired[:cut] if w is not None])]
        fresh = await map_in_slices(encode_value, merge_same_role([w for w in wired[cut:] if w is not None]))
        self.encoded_last_call = len(rest)
        body = join_body(frame_for(system), [*self.encoded, *settled, *fresh])
        if cut and sum(map(len, settled)) <= self.room():  # a settled chunk is kept whole or not at all
            self.messages.extend(messages[start + count : start + count + cut])  # the request's objects
            self.encoded.extend(settled)
            self._chunks.append((len(self.messages), len(self.encoded)))
        return body


def _settle_point(rest: list[Message], wired: list[Message | None], limit: int, after_user: bool) -> int:
    """The last position <= `limit` where the bytes before it can be kept: an assistant message
    with something to send, whose previous sent message is a user one (0: none)."""
    previous_roles: list[str | None] = []
    role: str | None = "user" if after_user else None
    for message in wired:
        previous_roles.append(role)
        if message is not None:
            role = message["role"]
    for index in range(min(limit, len(rest) - 1), 0, -1):
        if wired[index] is not None and rest[index].get("role") == "assistant" and previous_roles[index] == "user":
            return index
    return 0
