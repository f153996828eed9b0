"""The per-call API copy of a long history, built from what changed since the previous call.

`build_api_messages` cleans and repairs every message of the history at every call: ~16 ms per
10,000 messages, most of a call's own cost at 100,000. Between compressions a history only grows
at its end (the contract in `core.messages`), so `RequestCopy` keeps the copy of a settled prefix
and cleans and repairs only the rest:

- the *settled prefix* is the history up to an assistant message at least `CHANGING_TAIL`
  messages before the end; an assistant message is where a repair can start over
  (`api_messages.repair_with_origins`), so the copy of the prefix is final whatever follows;
- a call checks that the prefix is still there (its first and last message are the same objects
  and the history is at least as long; a rebuilt history — compression, branch, resume — has new
  objects, a rewind is shorter), cleans and repairs the messages after it, adds the per-turn
  material to the last user message, the extra messages and the system prompt as
  `build_api_messages` does, and moves the prefix forward;
- the settled copies are the same objects from call to call, so the provider's encoder
  (`providers.request_body`) can keep their encoded bytes too: `reusable` says which positions of
  the returned list hold them.

The result is always equal to `build_api_messages(...)` (tests compare them across appends,
edits, compressions and branches). One `RequestCopy` serves one conversation (`RequestCache.copy`).
"""

from __future__ import annotations

from hermes_tui.core.messages import CHANGING_TAIL, Message
from hermes_tui.core.turn.api_messages import (
    clean_and_repair_in_slices,
    clean_message,
    last_user_index,
    system_message,
    with_user_context,
)


class RequestCopy:
    """The settled prefix of one conversation's request copy, and how to extend it."""

    def __init__(self) -> None:
        self._count = 0  # history messages in the settled prefix
        self._first: Message | None = None  # the history's first message and the prefix's last,
        self._last: Message | None = None  # as objects: a rebuilt history has new ones
        self._copy: list[Message] = []  # their cleaned, repaired copy
        self._last_user = -1  # position of the last user message in `_copy`
        self.cleaned_last_call = 0  # history messages the last call cleaned (benches, tests)

    def _still_settled(self, messages: list[Message]) -> bool:
        count = self._count
        return count > 0 and len(messages) >= count and messages[0] is self._first and messages[count - 1] is self._last

    def forget(self) -> None:
        self.__init__()

    async def build(
        self,
        messages: list[Message],
        system_prompt: str | None,
        *,
        extra_user_context: str = "",
        extra_messages: list[Message] | None = None,
    ) -> tuple[list[Message], range]:
        """(the request copy `build_api_messages` gives for the same arguments, the positions of it
        holding settled copies: the same objects the next call returns, unless the history is rebuilt)."""
        if not self._still_settled(messages):
            self.forget()
        settled = self._copy
        rest = messages[self._count :]
        repaired, origins = await clean_and_repair_in_slices(rest)
        self.cleaned_last_call = len(rest)
        body = [*settled, *repaired]
        context_at = -1
        if extra_user_context:
            newest_user = last_user_index(repaired)
            context_at = len(settled) + newest_user if newest_user >= 0 else self._last_user
            if context_at >= 0:
                body[context_at] = with_user_context(body[context_at], extra_user_context)
        if extra_messages:
            body.extend(clean_message(m) for m in extra_messages)
        start = 1 if system_prompt else 0
        self._settle(messages, repaired, origins, newest_user=context_at - len(settled))
        stop = len(self._copy) if context_at < 0 else min(context_at, len(self._copy))
        if system_prompt:
            body.insert(0, system_message(system_prompt))
        return body, range(start, start + stop)

    def _settle(
        self, messages: list[Message], repaired: list[Message], origins: list[int], *, newest_user: int
    ) -> None:
        """Move the settled prefix to the last assistant message far enough from the end (and, while
        per-turn material is added, not past the user message it is added to)."""
        limit = len(messages) - CHANGING_TAIL - self._count
        end = len(repaired) if newest_user < 0 else newest_user
        for index in range(min(end, len(repaired)) - 1, 0, -1):
            if origins[index] <= limit and repaired[index].get("role") == "assistant":
                break
        else:
            return
        newly = repaired[:index]
        users = [i for i, message in enumerate(newly) if message.get("role") == "user"]
        if users:
            self._last_user = len(self._copy) + users[-1]
        self._copy.extend(newly)
        self._count += origins[index]
        self._first = messages[0]
        self._last = messages[self._count - 1]
