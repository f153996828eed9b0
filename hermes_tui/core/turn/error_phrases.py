"""The phrase and code tables the API-error classifier matches (`errors.classify_api_error`).

Owns `Phrases`: lower-case phrases grouped by what they signal (billing, rate limits, context
overflow, certificates, disconnects …), the transport exception names, and the body error codes
with the reason each means. Read from Hermes's classifier tables (reference §6.3, a7ef17da7).
"""

from __future__ import annotations

from typing import ClassVar

# Matched against the lower-cased message text (str(error) + body messages); "|" separates phrases.


def _phrases(joined: str) -> tuple[str, ...]:
    return tuple(phrase for phrase in joined.split("|") if phrase)


class Phrases:
    """The phrase and code tables the pipeline matches, grouped by what they signal."""

    CONTENT_POLICY = _phrases(
        "flagged for possible cybersecurity risk|trusted access for cyber|violates our usage policies|"
        "violates openai's usage policies|your request was flagged by|prompt was flagged by our safety|"
        "responses cannot be generated due to safety|content_filter|responsibleaipolicyviolation"
    )
    GRAMMAR = _phrases("error parsing grammar|json-schema-to-grammar")
    # with "thinking": a replayed thinking block was rejected (bad signature, or the latest one was altered)
    THINKING_BLOCK_REJECTED = _phrases("signature|cannot be modified|must remain as they were")
    KEY_LIMIT = _phrases("key limit exceeded|spending limit")
    BILLING = _phrases(
        "insufficient credit|insufficient_quota|insufficient quota|insufficient balance|insufficient funds|"
        "credit balance|credits exhausted|out of credits|payment required|billing hard limit|"
        "billing_not_active|billing not active|exceeded your current quota|balance depleted|"
        "no usable credits|add more credits|purchase more credits|credits have been exhausted|top up your credits|"
        "account is deactivated|plan does not include|out of funds|balance_depleted|out of extra usage|"
        "model_not_supported_on_free_tier|not available on the free tier"
    )
    USAGE_LIMIT = _phrases("usage limit|quota|limit exceeded|key limit exceeded")
    TRANSIENT = _phrases("try again|retry|resets at|reset in|reset at|wait|requests remaining|periodic|window")
    PROVIDER_POLICY = _phrases("guardrail|data policy|privacy settings")
    MODEL_NOT_FOUND = _phrases(
        "model_not_found|model not found|model_not_available|model not available|no such model|"
        "unknown model|invalid model|invalid_model|is not a valid model|model does not exist|"
        "does not exist or you do not have access|no available channel|no endpoints found for|does not exist|"
        "unsupported model|no endpoints found that support tool use"
    )
    MULTIMODAL_TOOL_CONTENT = _phrases(
        "text is not set|tool message content must be a string|expected string, got list|"
        "expected string, got array|tool content must be a string|content of tool message must be a string|"
        "tool message must be a string|tool_call.content must be string"
    )
    IMAGE_TOO_LARGE = _phrases(
        "image exceeds|image too large|image_too_large|image size exceeds|image dimensions exceed|"
        "dimensions exceed max allowed size|max allowed size: 8000"
    )
    INVALID_ENCRYPTED_CONTENT = _phrases("invalid_encrypted_content|encrypted content could not be")
    CONTEXT_OVERFLOW = _phrases(
        "context length|context_length|context size|maximum context|token limit|too many tokens|"
        "reduce the length|exceeds the limit|context window|prompt is too long|prompt exceeds max length|"
        "max_tokens|max_model_len|input is too long|input too long|slot context|n_ctx_slot|"
        "max input token|input token|上下文长度|超出最大长度|超过最大长度|上下文窗口|maximum number of tokens|"
        "prompt length|maximum model length|truncating input"
    )
    RATE_LIMIT = _phrases(
        "rate limit|rate_limit|ratelimit|too many requests|throttled|throttling|requests per minute|"
        "tokens per minute|requests per day|try again in|resource_exhausted|resource exhausted|"
        "throttlingexception|slow down|please retry after|rate increased too quickly|too many concurrent requests|"
        "servicequotaexceededexception"
    )
    # the server is busy, not this key: back off on the same key, never rotate (some providers send it as a 429)
    OVERLOADED = _phrases("overloaded|at capacity|over capacity")
    REQUEST_VALIDATION = _phrases(
        "unknown parameter|unsupported parameter|unrecognized request argument|invalid_request_error|"
        "extra inputs are not permitted|validation error|unknown_parameter|unsupported_parameter"
    )
    # the unambiguous request-validation signals: they win over an overflow phrase in a 400 body
    # ("Unsupported parameter: 'max_tokens' ..." is not an overflow)
    PARAMETER_REJECTED = _phrases(
        "unknown parameter|unsupported parameter|unrecognized request argument|unknown_parameter|unsupported_parameter"
    )
    REQUEST_VALIDATION_CODES = frozenset({"invalid_request_error", "unknown_parameter", "unsupported_parameter"})
    # a gateway's own 5xx page in front of the origin: on a large session the prompt size is the likely cause
    GATEWAY_ORIGIN = _phrases("origin_bad_gateway|origin_unavailable|invalid or incomplete response|cloudflare")
    PAYLOAD_TOO_LARGE = _phrases("request entity too large|payload too large|error code: 413")
    AUTH = _phrases(
        "invalid api key|invalid_api_key|invalid x-api-key|incorrect api key|api key not valid|"
        "authentication failed|authentication_error|unauthorized|forbidden|token expired|"
        "token has expired|invalid token|permission denied|authentication|token revoked|access denied"
    )
    TIMEOUT = _phrases("timed out|timeout|deadline exceeded|deadline_exceeded")
    # a certificate chain that does not verify fails the same way every time: checked before SSL_TRANSIENT
    # (these messages carry "[ssl:" too)
    SSL_CERT_VERIFY = _phrases(
        "certificate verify failed|certificate_verify_failed|unable to get local issuer certificate|"
        "self-signed certificate|self signed certificate|certificate has expired|"
        "hostname mismatch, certificate is not valid|unable to verify the first certificate"
    )
    SSL_TRANSIENT = _phrases(
        "bad record mac|ssl alert|tls alert|[ssl:|sslv3_alert|ssl handshake|decryption failed or bad record|"
        "tlsv1 alert|sslv3 alert|bad_record_mac|ssl_alert|tls_alert"
    )
    DISCONNECT = _phrases(
        "server disconnected|peer closed connection|connection reset by peer|unexpected eof|"
        "incomplete chunked read|remote end closed connection|connection aborted|broken pipe|"
        "connection was closed|stream ended unexpectedly|network connection lost"
    )
    TRANSPORT_TYPES = frozenset(
        _phrases(
            "ReadTimeout|WriteTimeout|ConnectTimeout|PoolTimeout|TimeoutException|ConnectError|ReadError|"
            "WriteError|RemoteProtocolError|LocalProtocolError|ProtocolError|NetworkError|TransportError|"
            "APIConnectionError|APITimeoutError|ServerDisconnectedError|ClientConnectionError|IncompleteRead"
        )
    )
    # body error codes -> reason; the last row holds error *types* seen on status-less stream errors
    BODY_CODES: ClassVar[dict[str, str]] = {
        **dict.fromkeys(_phrases("resource_exhausted|throttled|rate_limit_exceeded|rate_limit_error"), "rate_limit"),
        **dict.fromkeys(
            _phrases(
                "insufficient_quota|billing_not_active|payment_required|insufficient_credits|no_usable_credits|"
                "balance_depleted|model_not_supported_on_free_tier|billing_error"
            ),
            "billing",
        ),
        **dict.fromkeys(_phrases("model_not_found|model_not_available|invalid_model"), "model_not_found"),
        **dict.fromkeys(_phrases("context_length_exceeded|max_tokens_exceeded"), "context_overflow"),
        "invalid_encrypted_content": "invalid_encrypted_content",
        **{"overloaded_error": "overloaded", "api_error": "server_error", "server_error": "server_error"},
    }
