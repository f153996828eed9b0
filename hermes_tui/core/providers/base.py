"""The one streaming interface every provider implements, and its normalised events.

A provider receives OpenAI-format messages (system message first, if any) and OpenAI
function-tool schemas, translates them to its wire format at the edge, and yields
`StreamEvent`s: text and reasoning deltas, complete tool calls (ids unique within one answer),
usage, and exactly one finish reason, last. A stream that ends without its finish reason is an
error, never a silent "stop". HTTP status errors propagate as the SDK's exceptions; transport and
stream faults as the typed errors of `hermes_tui.core.providers.failures` (timeouts included).
`hermes_tui.core.turn.errors.classify_api_error` reads both.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from hermes_tui.text_safety import valid_unicode


@dataclass(frozen=True)
class Usage:
    """Token usage of one API call. `prompt_tokens` is the whole prompt, cached parts included."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def input_tokens(self) -> int:
        """Uncached prompt tokens (the `sessions.input_tokens` bucket)."""
        return max(0, self.prompt_tokens - self.cache_read_tokens - self.cache_write_tokens)

    def as_dict(self) -> dict[str, int]:
        """The dict `ContextCompressor.update_from_response` takes (legacy + bucket keys)."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "input_tokens": self.input_tokens,
            "output_tokens": self.completion_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
        }


@dataclass(frozen=True)
class StreamText:
    text: str


@dataclass(frozen=True)
class StreamReasoning:
    text: str
    field: str = ""  # the OpenAI-compatible delta field it came in ("reasoning_content" is replayed as such)


@dataclass(frozen=True)
class StreamReasoningBlock:
    """A finished provider reasoning block to keep and replay verbatim (Anthropic thinking + signature)."""

    block: dict[str, Any]


@dataclass(frozen=True)
class StreamToolCall:
    """A complete tool call. `arguments` is the raw JSON text the model produced (may be invalid)."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class StreamUsage:
    usage: Usage


@dataclass(frozen=True)
class StreamFinish:
    """Normalised to OpenAI names: "stop", "tool_calls", "length", "content_filter"."""

    reason: str


StreamEvent = StreamText | StreamReasoning | StreamReasoningBlock | StreamToolCall | StreamUsage | StreamFinish


def field_of(obj: Any, name: str) -> Any:
    """`obj[name]` for a dict, `obj.name` for an SDK object, None when absent."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def unique_call_id(call_id: str, seen: set[str]) -> str:
    """`call_id`, or a suffixed variant when this answer already used it (the ids must be unique)."""
    candidate = call_id
    n = 2
    while candidate in seen:
        candidate = f"{call_id}_{n}"
        n += 1
    seen.add(candidate)
    return candidate


class RequestCache:
    """What one conversation's previous requests leave for its next one, so a call costs what changed.

    `slot(name, factory)` holds the turn's incremental request copy (`core.turn.request_copy`);
    `encoder(key, factory)` the provider's incremental body encoder for one wire shape
    (`providers.request_body`) — one at a time: another shape (a fallback provider) starts afresh.
    Each conversation owns one (`LiveSession.request_cache`, the review fork's own).
    """

    def __init__(self) -> None:
        self._slots: dict[str, Any] = {}
        self._encoder_key: object = None
        self._encoder: Any = None

    def slot(self, name: str, factory: Callable[[], Any]) -> Any:
        if name not in self._slots:
            self._slots[name] = factory()
        return self._slots[name]

    def encoder(self, key: object, factory: Callable[[], Any]) -> Any:
        if self._encoder is None or key != self._encoder_key:
            self._encoder_key, self._encoder = key, factory()
        return self._encoder


@dataclass
class ChatRequest:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int | None = None
    cache_ttl: str = "5m"  # Anthropic prompt caching: "5m" or "1h"
    timeout: float | None = None
    # the conversation's cache, and the positions of `messages` holding the same objects the next
    # request of this conversation will hold (`RequestCopy.build`): their encoded bytes can be kept
    cache: RequestCache | None = None
    reusable: range = range(0)


class Provider(ABC):
    """A streaming chat model. Subclasses set `name`; `model` is the model id in use."""

    name: str = "provider"
    is_demo: bool = False

    def __init__(self, model: str) -> None:
        self.model = model

    @abstractmethod
    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Yield the normalised events of one streamed API call."""

    async def complete(self, prompt: str, *, max_tokens: int, timeout: float | None = None) -> str:
        """One non-tool call with a single user message; returns the text (used for summaries)."""
        parts: list[str] = []
        request = ChatRequest(messages=[{"role": "user", "content": prompt}], max_tokens=max_tokens, timeout=timeout)
        async for event in self.stream(request):
            if isinstance(event, StreamText):
                parts.append(event.text)
        return valid_unicode("".join(parts))

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most providers hold nothing
        """Release network resources."""

    async def warm_up(self) -> None:  # noqa: B027 - optional hook, most providers hold nothing
        """Get ready for the first call (build a client) while nothing waits for it."""

    def rekey(self, api_key: str) -> None:  # noqa: B027 - optional hook, keyless providers ignore it
        """Use `api_key` from the next call on (a credential pool rotated)."""

    @property
    def label(self) -> str:
        return f"{self.name}:{self.model}"
