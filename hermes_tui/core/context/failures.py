"""Classification of summary-model failures for the compressor's fallback/cooldown matrix.

Owns `classify_summary_error(exc)`: auth (401/403, a refused key), model-not-found, timeout, invalid
JSON, stream closed, network (the connection could not be made), no provider, or other — from
duck-typed `.status_code` attributes and the error text (no SDK imports), and `error_line(exc)`,
the one-line description stored in `last_summary_error`. An auth or network failure makes the
compressor keep everything rather than write a fallback summary (`SummaryFailure.keeps_context`).
"""

from __future__ import annotations

import json
from enum import Enum


class SummaryProviderUnavailable(RuntimeError):
    """Raised by a summarize callable when no summary provider is configured at all."""


class SummaryFailure(Enum):
    NO_PROVIDER = "no_provider"
    AUTH = "auth"
    MODEL_NOT_FOUND = "model_not_found"
    TIMEOUT = "timeout"
    INVALID_JSON = "invalid_json"
    STREAM_CLOSED = "stream_closed"
    NETWORK = "network"
    OTHER = "other"

    @property
    def quick_retry(self) -> bool:
        """Failures worth retrying soon (30 s cooldown rather than 60 s)."""
        return self in (SummaryFailure.INVALID_JSON, SummaryFailure.STREAM_CLOSED, SummaryFailure.NETWORK)

    @property
    def is_network(self) -> bool:
        """The network failed under the summary call (it closed mid-answer or never connected)."""
        return self in (SummaryFailure.STREAM_CLOSED, SummaryFailure.NETWORK)


_NOT_FOUND_STATUS = frozenset({404, 503})
_TIMEOUT_STATUS = frozenset({408, 429, 502, 504})
_NOT_FOUND_TEXT = ("model_not_found", "does not exist", "no available channel", "model not found")
_TIMEOUT_TEXT = ("timeout", "timed out")
_JSON_TEXT = ("expecting value", "jsondecodeerror", "invalid json")
_STREAM_CLOSED_TEXT = (
    "incomplete chunked read",
    "peer closed connection",
    "connection closed",
    "stream closed",
    "closed prematurely",
    "server disconnected",
    "remoteprotocolerror",
    "connection reset",
    "unexpected eof",
    "incomplete read",
)
_STREAM_CLOSED_TYPES = ("RemoteProtocolError", "ReadError", "IncompleteRead", "ConnectionResetError")
_AUTH_STATUS = frozenset({401, 403})
_AUTH_TEXT = ("invalid api key", "invalid x-api-key", "unauthorized", "authentication", "incorrect api key")
_NETWORK_TYPES = ("ConnectError", "APIConnectionError", "ConnectionRefusedError", "ProviderConnectionError")
_NETWORK_TEXT = ("connection refused", "cannot connect", "connection error", "name or service not known")


def _status_code(exc: BaseException) -> int | None:
    for attr in ("status_code", "status", "http_status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 8:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def classify_summary_error(exc: BaseException) -> SummaryFailure:
    """Which row of the failure matrix `exc` belongs to."""
    if isinstance(exc, SummaryProviderUnavailable) or type(exc) is RuntimeError:
        return SummaryFailure.NO_PROVIDER
    chain = _chain(exc)
    status = next((code for code in map(_status_code, chain) if code is not None), None)
    text = " ".join(f"{type(e).__name__} {e}" for e in chain).lower()
    if status in _AUTH_STATUS or (status is None and any(word in text for word in _AUTH_TEXT)):
        return SummaryFailure.AUTH
    if status in _NOT_FOUND_STATUS or any(word in text for word in _NOT_FOUND_TEXT):
        return SummaryFailure.MODEL_NOT_FOUND
    if any(isinstance(e, json.JSONDecodeError) for e in chain) or any(word in text for word in _JSON_TEXT):
        return SummaryFailure.INVALID_JSON
    if status in _TIMEOUT_STATUS or any(isinstance(e, TimeoutError) for e in chain):
        return SummaryFailure.TIMEOUT
    if any(type(e).__name__ in _STREAM_CLOSED_TYPES for e in chain) or any(
        word in text for word in _STREAM_CLOSED_TEXT
    ):
        return SummaryFailure.STREAM_CLOSED
    if status is None and (
        any(type(e).__name__ in _NETWORK_TYPES for e in chain) or any(word in text for word in _NETWORK_TEXT)
    ):
        return SummaryFailure.NETWORK
    if any(word in text for word in _TIMEOUT_TEXT):
        return SummaryFailure.TIMEOUT
    return SummaryFailure.OTHER


def error_line(exc: BaseException) -> str:
    """A one-line description of `exc` (type name when the message is empty), at most 300 chars."""
    message = " ".join(str(exc).split()) or type(exc).__name__
    status = _status_code(exc)
    if status is not None and str(status) not in message:
        message = f"{status} {message}"
    return message if len(message) <= 300 else message[:297] + "..."
