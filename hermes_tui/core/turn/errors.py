"""Classify a failed API call into a recovery decision (reference §6.3), and parse limits from errors.

`classify_api_error` reads any exception duck-typed — the SDK exceptions of openai/anthropic, the
transport errors of httpx2, plain Python errors — without importing an SDK, and returns a
`ClassifiedError`: why it failed (`FailoverReason`) and what the retry loop should do (retry,
compress, rotate the credential, fall back). The pipeline runs in Hermes's priority order,
after one step of our own: the typed faults our providers raise (a `timeout_kind` is a retryable
timeout; a `stream_fault` is a retryable server error, a refusal a content-policy block); then
provider-specific phrases, HTTP status (408 is a timeout; a 429 OpenRouter relays from an upstream
provider is `upstream_rate_limit`), body error code, message phrases, certificate verification
(`ssl_cert_verification`: never retried), transient SSL, disconnects, transport exception types,
unknown. The phrase tables are in `error_phrases.py`. An HTML error page is shown as its title.

`parse_context_limit_from_error` and `parse_available_output_tokens_from_error` read the numbers
providers put in context-overflow messages (reference §6.1 item 19).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hermes_tui.core.turn.error_phrases import Phrases

MAX_MESSAGE_CHARS = 500
_CHAIN_DEPTH = 5


class FailoverReason(StrEnum):
    AUTH = "auth"
    AUTH_PERMANENT = "auth_permanent"
    BILLING = "billing"
    RATE_LIMIT = "rate_limit"
    UPSTREAM_RATE_LIMIT = "upstream_rate_limit"  # an aggregator's upstream provider is throttled, not this key
    OVERLOADED = "overloaded"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    SSL_CERT_VERIFICATION = "ssl_cert_verification"  # the server's certificate does not verify: fail fast
    CONTEXT_OVERFLOW = "context_overflow"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    IMAGE_TOO_LARGE = "image_too_large"
    MODEL_NOT_FOUND = "model_not_found"
    PROVIDER_POLICY_BLOCKED = "provider_policy_blocked"
    CONTENT_POLICY_BLOCKED = "content_policy_blocked"
    FORMAT_ERROR = "format_error"
    INVALID_ENCRYPTED_CONTENT = "invalid_encrypted_content"
    MULTIMODAL_TOOL_CONTENT_UNSUPPORTED = "multimodal_tool_content_unsupported"
    THINKING_SIGNATURE = "thinking_signature"
    LONG_CONTEXT_TIER = "long_context_tier"
    OAUTH_LONG_CONTEXT_BETA_FORBIDDEN = "oauth_long_context_beta_forbidden"
    LLAMA_CPP_GRAMMAR_PATTERN = "llama_cpp_grammar_pattern"
    UNKNOWN = "unknown"


R = FailoverReason


@dataclass(frozen=True)
class ClassifiedError:
    """What went wrong with one API call, and what the retry loop should do about it."""

    reason: FailoverReason
    status_code: int | None = None
    provider: str = ""
    model: str = ""
    message: str = ""
    retryable: bool = True
    should_compress: bool = False
    should_rotate_credential: bool = False
    should_fallback: bool = False

    @property
    def is_auth(self) -> bool:
        return self.reason in (R.AUTH, R.AUTH_PERMANENT)


# --------------------------------------------------------------------------- reading the error


def _walk(error: BaseException) -> list[BaseException]:
    """The error and up to five causes/contexts below it."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(chain) <= _CHAIN_DEPTH and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _status_code(error: BaseException) -> int | None:
    for item in _walk(error):
        for attr in ("status_code", "status"):
            value = getattr(item, attr, None)
            if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
                return value
            if isinstance(value, str) and value.isdigit() and 100 <= int(value) <= 599:
                return int(value)
    if type(error).__name__ == "RateLimitError":
        return 429
    return None


def _body(error: BaseException) -> Any:
    body = getattr(error, "body", None)
    if isinstance(body, (str, bytes)):
        try:
            return json.loads(body)
        except (ValueError, TypeError):
            return body if isinstance(body, str) else None
    return body


def _error_dict(body: Any) -> dict[str, Any]:
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict):
            return inner
        return body
    return {}


def _body_message(body: Any) -> str:
    """`body.error.message`, else `body.message` (or a string body itself)."""
    if isinstance(body, str):
        return body
    if not isinstance(body, dict):
        return ""
    inner = body.get("error")
    if isinstance(inner, dict) and isinstance(inner.get("message"), str):
        return inner["message"]
    if isinstance(inner, str):
        return inner
    message = body.get("message")
    return message if isinstance(message, str) else ""


def _openrouter_raw_message(body: Any) -> str:
    """OpenRouter wraps the upstream error as a JSON string in `error.metadata.raw`."""
    metadata = _error_dict(body).get("metadata")
    if not isinstance(metadata, dict):
        return ""
    raw = metadata.get("raw")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return raw
    if isinstance(raw, dict):
        inner = raw.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
        if isinstance(raw.get("message"), str):
            return raw["message"]
    return ""


def _body_codes(error: BaseException, body: Any) -> list[str]:
    """Error codes from the body (`code`, `status`, `type`) and the SDK attributes."""
    codes: list[str] = []
    sources: list[Any] = [_error_dict(body).get(key) for key in ("code", "status", "type")]
    if isinstance(body, dict):
        sources += [body.get("code"), body.get("error_code")]
    nested = _error_dict(body).get("message")
    if isinstance(nested, str) and nested.strip().startswith("{"):
        try:  # some providers wrap the real error body as a JSON string in error.message
            inner = _error_dict(json.loads(nested))
        except ValueError:
            inner = {}
        sources += [inner.get("code"), inner.get("type")]
    sources += [getattr(error, "code", None), getattr(error, "type", None)]
    for value in sources:
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            text = str(value).strip().lower()
            if text and text not in codes:
                codes.append(text)
    return codes


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    return any(phrase in text for phrase in phrases)


# --------------------------------------------------------------------------- results


_DEFAULTS: dict[FailoverReason, dict[str, bool]] = {
    R.AUTH: {"retryable": False, "should_rotate_credential": True, "should_fallback": True},
    R.AUTH_PERMANENT: {"retryable": False, "should_fallback": True},
    R.BILLING: {"retryable": False, "should_rotate_credential": True, "should_fallback": True},
    R.RATE_LIMIT: {"retryable": True, "should_rotate_credential": True, "should_fallback": True},
    R.UPSTREAM_RATE_LIMIT: {"retryable": True, "should_fallback": True},
    R.OVERLOADED: {"retryable": True},
    R.SERVER_ERROR: {"retryable": True},
    R.TIMEOUT: {"retryable": True},
    R.SSL_CERT_VERIFICATION: {"retryable": False, "should_fallback": False},
    R.CONTEXT_OVERFLOW: {"retryable": True, "should_compress": True},
    R.PAYLOAD_TOO_LARGE: {"retryable": True, "should_compress": True},
    R.IMAGE_TOO_LARGE: {"retryable": True},
    R.MODEL_NOT_FOUND: {"retryable": False, "should_fallback": True},
    R.PROVIDER_POLICY_BLOCKED: {"retryable": False, "should_fallback": False},
    R.CONTENT_POLICY_BLOCKED: {"retryable": False, "should_fallback": True},
    R.FORMAT_ERROR: {"retryable": False, "should_fallback": True},
    R.INVALID_ENCRYPTED_CONTENT: {"retryable": True},
    R.MULTIMODAL_TOOL_CONTENT_UNSUPPORTED: {"retryable": True},
    R.THINKING_SIGNATURE: {"retryable": True},
    R.LONG_CONTEXT_TIER: {"retryable": True, "should_compress": True},
    R.OAUTH_LONG_CONTEXT_BETA_FORBIDDEN: {"retryable": True},
    R.LLAMA_CPP_GRAMMAR_PATTERN: {"retryable": True},
    R.UNKNOWN: {"retryable": True},
}


@dataclass(frozen=True)
class _Context:
    status: int | None
    provider: str
    model: str
    message: str
    approx_tokens: int
    context_length: int
    num_messages: int

    def result(self, reason: FailoverReason, **overrides: bool) -> ClassifiedError:
        flags = {**_DEFAULTS[reason], **overrides}
        return ClassifiedError(
            reason=reason,
            status_code=self.status,
            provider=self.provider,
            model=self.model,
            message=self.message,
            **flags,
        )

    def is_large_session(self, share: float, tokens: int, messages: int) -> bool:
        """Hermes's "large session" test: a share of the window, or absolute sizes on ≤256K windows."""
        ctx = self.context_length
        if ctx > 0 and self.approx_tokens > share * ctx:
            return True
        small_window = ctx <= 0 or ctx <= 256_000
        return small_window and (self.approx_tokens > tokens or self.num_messages > messages)


# --------------------------------------------------------------------------- pipeline


def classify_api_error(
    error: BaseException,
    *,
    provider: str = "",
    model: str = "",
    approx_tokens: int = 0,
    context_length: int = 0,
    num_messages: int = 0,
) -> ClassifiedError:
    """Why an API call failed and what to do next (reference §6.3, in its priority order)."""
    status = _status_code(error)
    if status is not None and status < 400:
        status = None  # e.g. Anthropic's in-stream error event arrives on a 200 response
    body = _body(error)
    body_message = _body_message(body)
    pieces = [str(error), body_message, _openrouter_raw_message(body)]
    if status is None:
        pieces += [str(item) for item in _walk(error)[1:]]
    text = " ".join(piece for piece in pieces if piece).lower()
    display = _readable(body_message, status) or (str(error) or type(error).__name__).strip()
    codes = _body_codes(error, body)
    ctx = _Context(
        status=status,
        provider=provider,
        model=model,
        message=display[:MAX_MESSAGE_CHARS],
        approx_tokens=approx_tokens,
        context_length=context_length,
        num_messages=num_messages,
    )
    return (
        _by_provider_fault(ctx, error)
        or _by_provider_phrases(ctx, text)
        or _by_status(ctx, text, body_message, codes, body)
        or _by_body_code(ctx, codes)
        or _by_message(ctx, text)
        or _by_transport(ctx, text, error)
        or ctx.result(R.UNKNOWN)
    )


_TIMEOUT_KINDS = frozenset({"connect", "first_byte", "idle"})


def _by_provider_fault(ctx: _Context, error: BaseException) -> ClassifiedError | None:
    """The typed errors of `hermes_tui.core.providers.failures`, read by their attributes."""
    if ctx.status is not None:
        return None  # e.g. an undecodable 500: the status decides
    for item in _walk(error):
        if getattr(item, "timeout_kind", None) in _TIMEOUT_KINDS:
            return ctx.result(R.TIMEOUT)
        fault = getattr(item, "stream_fault", None)
        if fault == "refusal":
            return ctx.result(R.CONTENT_POLICY_BLOCKED)
        if isinstance(fault, str) and fault:
            return ctx.result(R.SERVER_ERROR)
    return None


_TAGS = re.compile(r"<[^>]*>")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def _readable(body_message: str, status: int | None) -> str:
    """A body message fit for one line: an HTML error page becomes its title (or its text)."""
    message = body_message.strip()
    head = message[:200].lower()
    if not (head.startswith("<") and ("<html" in head or "<!doctype" in head or "<body" in head or "<head" in head)):
        return message
    title = _TITLE.search(message)
    text = " ".join(_TAGS.sub(" ", title.group(1) if title else message).split())
    prefix = f"HTTP {status}" if status else "HTTP error"
    return f"{prefix}: {text[:200] or 'an HTML error page'} (HTML error page)"


def _by_provider_phrases(ctx: _Context, text: str) -> ClassifiedError | None:
    status = ctx.status
    if _has(text, Phrases.CONTENT_POLICY):
        return ctx.result(R.CONTENT_POLICY_BLOCKED)
    if status == 400 and "thinking" in text and _has(text, Phrases.THINKING_BLOCK_REJECTED):
        return ctx.result(R.THINKING_SIGNATURE)
    if status == 429 and "extra usage" in text and "long context" in text:
        return ctx.result(R.LONG_CONTEXT_TIER)
    if status == 400 and "long context beta" in text and "not yet available" in text:
        return ctx.result(R.OAUTH_LONG_CONTEXT_BETA_FORBIDDEN)
    if status == 400 and (_has(text, Phrases.GRAMMAR) or ("unable to generate parser" in text and "template" in text)):
        return ctx.result(R.LLAMA_CPP_GRAMMAR_PATTERN)
    if "do not have an active grok subscription" in text or ("out of available resources" in text and "grok" in text):
        return ctx.result(R.AUTH, should_rotate_credential=False)
    return None


def _aggregator_upstream_error(body: Any, provider: str) -> bool:
    """OpenRouter's wrapping of an upstream provider's error: the outer message "Provider returned
    error", with the upstream's own answer in `error.metadata` (Hermes's test)."""
    inner = _error_dict(body)  # the whole body, or the `error` object alone (as the OpenAI SDK keeps it)
    if str(inner.get("message") or "").strip().lower() != "provider returned error":
        return False
    metadata = inner.get("metadata")
    return provider.strip().lower() == "openrouter" or (
        isinstance(metadata, dict) and ("raw" in metadata or "provider_name" in metadata)
    )


def _by_status(
    ctx: _Context, text: str, body_message: str, codes: list[str], body: Any = None
) -> ClassifiedError | None:
    status = ctx.status
    if status is None:
        return None
    if status == 401:
        return ctx.result(R.AUTH)
    if status == 403:
        if _has(text, Phrases.KEY_LIMIT) or _has(text, Phrases.BILLING):
            return ctx.result(R.BILLING)
        return ctx.result(R.AUTH, should_rotate_credential=False)
    if status == 402:
        return _classify_402(ctx, text)
    if status == 404:
        if _has(text, Phrases.BILLING):
            return ctx.result(R.BILLING)
        if _has(text, Phrases.PROVIDER_POLICY):
            return ctx.result(R.PROVIDER_POLICY_BLOCKED)
        if _has(text, Phrases.MODEL_NOT_FOUND) or ("not_found_error" in text and "model" in text):
            return ctx.result(R.MODEL_NOT_FOUND)  # Anthropic: not_found_error "model: <id>"
        return ctx.result(R.UNKNOWN)
    if status == 408:
        return ctx.result(R.TIMEOUT)  # Request Timeout: the server gave up waiting; the SDKs retry it too
    if status == 413:
        return ctx.result(R.PAYLOAD_TOO_LARGE)
    if status == 429:
        if _has(text, Phrases.OVERLOADED):
            return ctx.result(R.OVERLOADED)  # the server is busy: rotating keys would only drain the pool
        if _aggregator_upstream_error(body, ctx.provider):
            return ctx.result(R.UPSTREAM_RATE_LIMIT)  # the key is healthy: another model, not another key
        return ctx.result(R.RATE_LIMIT)
    if status == 400:
        return _classify_400(ctx, text, body_message, codes)
    if (
        status in (500, 502, 503, 504)
        and _has(text, Phrases.GATEWAY_ORIGIN)
        and ctx.is_large_session(0.6, 120_000, 200)
    ):
        return ctx.result(R.CONTEXT_OVERFLOW)  # a gateway hid the provider's overflow answer behind its own page
    if status in (500, 502):
        if _has(text, Phrases.REQUEST_VALIDATION) or Phrases.REQUEST_VALIDATION_CODES.intersection(codes):
            return ctx.result(R.FORMAT_ERROR)
        if _has(text, Phrases.CONTEXT_OVERFLOW):
            return ctx.result(R.CONTEXT_OVERFLOW)
        return ctx.result(R.SERVER_ERROR)
    if status in (503, 529):
        if _has(text, Phrases.CONTEXT_OVERFLOW):
            return ctx.result(R.CONTEXT_OVERFLOW)
        return ctx.result(R.OVERLOADED)
    if 400 <= status < 500:
        return ctx.result(R.FORMAT_ERROR)
    return ctx.result(R.SERVER_ERROR)


def _classify_402(ctx: _Context, text: str) -> ClassifiedError:
    """A 402 is billing, unless it reads like a periodic usage limit that will reset."""
    if _has(text, Phrases.USAGE_LIMIT) and _has(text, Phrases.TRANSIENT):
        return ctx.result(R.RATE_LIMIT)
    return ctx.result(R.BILLING)


def _classify_400(ctx: _Context, text: str, body_message: str, codes: list[str]) -> ClassifiedError:
    if _has(text, Phrases.MULTIMODAL_TOOL_CONTENT):
        return ctx.result(R.MULTIMODAL_TOOL_CONTENT_UNSUPPORTED)
    if _has(text, Phrases.IMAGE_TOO_LARGE):
        return ctx.result(R.IMAGE_TOO_LARGE)
    encrypted_item = "encrypted content for item" in text and "could not be verified" in text
    if _has(text, Phrases.INVALID_ENCRYPTED_CONTENT) or encrypted_item or "invalid_encrypted_content" in codes:
        return ctx.result(R.INVALID_ENCRYPTED_CONTENT)
    if _has(text, Phrases.PARAMETER_REJECTED) or {"unknown_parameter", "unsupported_parameter"}.intersection(codes):
        return ctx.result(R.FORMAT_ERROR)  # "Unsupported parameter: 'max_tokens'" is not an overflow
    if _has(text, Phrases.CONTEXT_OVERFLOW):
        return ctx.result(R.CONTEXT_OVERFLOW)
    if _has(text, Phrases.PROVIDER_POLICY):
        return ctx.result(R.PROVIDER_POLICY_BLOCKED)
    if _has(text, Phrases.MODEL_NOT_FOUND):
        return ctx.result(R.MODEL_NOT_FOUND)
    if _has(text, Phrases.RATE_LIMIT):
        return ctx.result(R.RATE_LIMIT)
    if _has(text, Phrases.BILLING):
        return ctx.result(R.BILLING)
    generic = len(body_message.strip()) < 30 or body_message.strip().lower() == "error"
    if generic and ctx.is_large_session(0.4, 80_000, 80):
        return ctx.result(R.CONTEXT_OVERFLOW)  # #1630: a bare 400 on a huge session is an overflow
    return ctx.result(R.FORMAT_ERROR)


def _by_body_code(ctx: _Context, codes: list[str]) -> ClassifiedError | None:
    for code in codes:
        reason = Phrases.BODY_CODES.get(code)
        if reason is not None:
            return ctx.result(FailoverReason(reason))
    return None


def _by_message(ctx: _Context, text: str) -> ClassifiedError | None:
    checks: tuple[tuple[tuple[str, ...], FailoverReason], ...] = (
        (Phrases.PAYLOAD_TOO_LARGE, R.PAYLOAD_TOO_LARGE),
        (Phrases.MULTIMODAL_TOOL_CONTENT, R.MULTIMODAL_TOOL_CONTENT_UNSUPPORTED),
        (Phrases.IMAGE_TOO_LARGE, R.IMAGE_TOO_LARGE),
    )
    for phrases, reason in checks:
        if _has(text, phrases):
            return ctx.result(reason)
    if _has(text, Phrases.USAGE_LIMIT):
        return ctx.result(R.RATE_LIMIT if _has(text, Phrases.TRANSIENT) else R.BILLING)
    if _has(text, Phrases.OVERLOADED):
        return ctx.result(R.OVERLOADED)
    later: tuple[tuple[tuple[str, ...], FailoverReason], ...] = (
        (Phrases.BILLING, R.BILLING),
        (Phrases.RATE_LIMIT, R.RATE_LIMIT),
        (Phrases.CONTEXT_OVERFLOW, R.CONTEXT_OVERFLOW),
        (Phrases.AUTH, R.AUTH),
        (Phrases.PROVIDER_POLICY, R.PROVIDER_POLICY_BLOCKED),
        (Phrases.MODEL_NOT_FOUND, R.MODEL_NOT_FOUND),
        (Phrases.TIMEOUT, R.TIMEOUT),
    )
    for phrases, reason in later:
        if _has(text, phrases):
            return ctx.result(reason)
    return None


def _by_transport(ctx: _Context, text: str, error: BaseException) -> ClassifiedError | None:
    if _has(text, Phrases.SSL_CERT_VERIFY):
        return _certificate_failure(ctx, error)
    if _has(text, Phrases.SSL_TRANSIENT):
        return ctx.result(R.TIMEOUT)
    if ctx.status is None and _has(text, Phrases.DISCONNECT):
        if ctx.is_large_session(0.6, 120_000, 200):
            return ctx.result(R.CONTEXT_OVERFLOW)  # #2153: a huge prompt makes servers hang up
        return ctx.result(R.TIMEOUT)
    for item in _walk(error):
        names = {cls.__name__ for cls in type(item).__mro__}
        if names & Phrases.TRANSPORT_TYPES or any(name.startswith("SSL") for name in names):
            return ctx.result(R.TIMEOUT)
        if isinstance(item, (TimeoutError, ConnectionError, OSError)):
            return ctx.result(R.TIMEOUT)
    return None


def _certificate_failure(ctx: _Context, error: BaseException) -> ClassifiedError:
    """A certificate that does not verify, with the verifier's own words as the message."""
    detail = next(
        (str(item) for item in reversed(_walk(error)) if _has(str(item).lower(), Phrases.SSL_CERT_VERIFY)), ""
    )
    result = ctx.result(R.SSL_CERT_VERIFICATION)
    if not detail or detail in result.message:
        return result
    return dataclasses.replace(result, message=f"{result.message} ({detail})"[:MAX_MESSAGE_CHARS])


# --------------------------------------------------------------------------- limits in messages


_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+)"
_LIMIT_PATTERNS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"max(?:imum)?\s*(?:context\s*)?(?:length|size|window)\s*(?:is|of|=|:)?\s*{_NUMBER}",
        rf">\s*{_NUMBER}\s*(?:max|limit|token)",
        rf"\d\s*\+\s*\d+\s*>\s*{_NUMBER}",  # Anthropic: "input + max_tokens > limit"
        rf"{_NUMBER}\s*maximum",
        rf"{_NUMBER}[\s-]*tokens?\s*(?:context|limit)",
        rf"context\s*(?:length|size|window)[^\d]{{0,40}}{_NUMBER}",
    )
)
MIN_PARSED_LIMIT = 1024
MAX_PARSED_LIMIT = 10_000_000


def parse_context_limit_from_error(message: str) -> int | None:
    """The context window an overflow message states, if it states one (1024..10,000,000)."""
    if not message:
        return None
    for pattern in _LIMIT_PATTERNS:
        for match in pattern.finditer(message):
            value = int(match.group(1).replace(",", ""))
            if MIN_PARSED_LIMIT <= value <= MAX_PARSED_LIMIT:
                return value
    return None


_AVAILABLE_TOKENS = re.compile(r"available_tokens\s*[:=]\s*(\d+)", re.IGNORECASE)
_SUM_EXCEEDS = re.compile(r"(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)")


def parse_available_output_tokens_from_error(message: str) -> int | None:
    """How many output tokens still fit, when an error says `max_tokens` was the problem.

    Reads "... available_tokens: N" and Anthropic's "input + max_tokens > limit" form.
    """
    if not message or "max_tokens" not in message.lower():
        return None
    match = _AVAILABLE_TOKENS.search(message)
    if match:
        value = int(match.group(1))
        return value if value > 0 else None
    match = _SUM_EXCEEDS.search(message)
    if match:
        prompt, _requested, limit = (int(group) for group in match.groups())
        available = limit - prompt
        return available if available > 0 else None
    return None
