"""The typed errors a provider raises when the transport or the stream fails, not the API.

HTTP status errors (401, 429, 500 ...) and error events inside a stream stay the SDK's own
exceptions. Everything else a broken provider or network can do becomes one of these, chained
(`raise ... from`) to the SDK or transport error underneath, with a one-line message that names
the cause:

- `ProviderTimeout(kind, seconds)`: a connect, first-byte or stream-idle limit fired;
- `ProviderConnectionError`: the connection could not be made, was reset or dropped, or its
  body could not be decoded;
- `ProviderStreamError`: the response was not a usable stream (malformed or truncated SSE, an
  HTML page, an empty body); `fault` says which;
- `ProviderRefusal`: the model stopped on its content filter before producing anything;
- `ProviderErrorBody`: a 200 response whose JSON body is an error object (`body` holds it).

`hermes_tui.core.turn.errors.classify_api_error` reads them duck-typed (`timeout_kind`, `stream_fault`).
"""

from __future__ import annotations

from typing import Any

TIMEOUT_KINDS = ("connect", "first_byte", "idle")
_TIMEOUT_TEXT = {
    "connect": "could not connect within {s} (connect timeout)",
    "first_byte": "no response for {s} (first-byte timeout)",
    "idle": "no data for {s} (stream idle timeout)",
}


def format_seconds(seconds: float) -> str:
    """`30 s`, `0.3 s`: the shortest exact rendering."""
    return f"{seconds:g} s"


class ProviderTimeout(TimeoutError):
    """A provider call gave up waiting. `kind` is "connect", "first_byte" or "idle".

    The message names the limit that fired, e.g. "no data for 30 s (stream idle timeout)";
    `seconds` is that limit and `endpoint` the base URL that was being waited on.
    """

    def __init__(self, kind: str, seconds: float, endpoint: str = "") -> None:
        if kind not in TIMEOUT_KINDS:
            raise ValueError(f"unknown timeout kind {kind!r}")
        self.timeout_kind = kind
        self.seconds = seconds
        self.endpoint = endpoint
        super().__init__(_TIMEOUT_TEXT[kind].format(s=format_seconds(seconds)))

    @property
    def kind(self) -> str:
        return self.timeout_kind


class ProviderConnectionError(ConnectionError):
    """The connection failed: refused, reset, dropped mid-answer, or an undecodable body."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        if status_code is not None:
            self.status_code = status_code


class ProviderStreamError(Exception):
    """The response is not a usable stream. `fault`: malformed | truncated | empty | not_a_stream."""

    def __init__(self, fault: str, message: str) -> None:
        super().__init__(message)
        self.stream_fault = fault

    @property
    def fault(self) -> str:
        return self.stream_fault


class ProviderRefusal(ProviderStreamError):
    """The model stopped on its content filter (or refused) without producing any answer."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            "refusal",
            f"the provider's content filter stopped the answer before any text (stop reason: {reason})",
        )


class ProviderErrorBody(Exception):
    """A 200 response whose JSON body is an error object; `body` is that object.

    Gateways (OpenRouter among them) put the real HTTP status in `error.code`; when it is one,
    it becomes `status_code`, so the error is classified like the status it stands for.
    """

    def __init__(self, message: str, body: Any) -> None:
        super().__init__(message)
        self.body = body
        error = body.get("error") if isinstance(body, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        if isinstance(code, str) and code.isdigit():
            code = int(code)
        if isinstance(code, int) and not isinstance(code, bool) and 400 <= code <= 599:
            self.status_code = code
