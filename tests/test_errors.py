"""The error classifier (reference §6.3) on real SDK exceptions, plus message-only cases and parsers."""

from __future__ import annotations

import json

import pytest

from hermes_tui.core.providers.anthropic import AnthropicProvider
from hermes_tui.core.providers.base import ChatRequest, Provider
from hermes_tui.core.providers.openai import OpenAIProvider
from hermes_tui.core.turn.errors import (
    ClassifiedError,
    FailoverReason,
    classify_api_error,
    parse_available_output_tokens_from_error,
    parse_context_limit_from_error,
)
from tests.fake_llm import Disconnect, Fail, FakeLLMServer, Hang, Step, StreamError

R = FailoverReason


@pytest.fixture(scope="module")
def srv(module_server: FakeLLMServer) -> FakeLLMServer:
    """One fake server for the module (tests/conftest.py's `module_server`)."""
    return module_server


def provider_for(sdk: str, srv: FakeLLMServer, **kwargs) -> Provider:
    if sdk == "openai":
        return OpenAIProvider("gpt-test", api_key="sk-test", base_url=srv.base_url_openai, **kwargs)
    return AnthropicProvider("claude-test", api_key="sk-test", base_url=srv.base_url_anthropic, **kwargs)


async def raised_by(sdk: str, srv: FakeLLMServer, step: Step | None, **kwargs) -> BaseException:
    """The exception the real SDK raises for one scripted server response."""
    if step is not None:
        srv.enqueue(step)
    provider = provider_for(sdk, srv, **kwargs)
    try:
        async for _event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "hi"}])):
            pass
    except Exception as exc:  # the SDK's own exception, unchanged
        return exc
    finally:
        await provider.aclose()
    raise AssertionError("the call did not fail")


BOTH = ("openai", "anthropic")
OPENROUTER_WRAPPED = {
    "error": {
        "message": "Provider returned error",
        "code": 400,
        "metadata": {
            "raw": json.dumps({"error": {"message": "This endpoint's maximum context length is 32768 tokens"}}),
            "provider_name": "SomeHost",
        },
    }
}

# (sdk, server step, reason, retryable, should_compress)
TABLE = [
    *[
        (
            sdk,
            Fail(429, "Rate limit reached for requests", code="rate_limit_exceeded"),
            R.RATE_LIMIT,
            True,
            False,
        )
        for sdk in BOTH
    ],
    *[(sdk, Fail(413, "Request Entity Too Large"), R.PAYLOAD_TOO_LARGE, True, True) for sdk in BOTH],
    (
        "openai",
        Fail(
            400,
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
            code="context_length_exceeded",
        ),
        R.CONTEXT_OVERFLOW,
        True,
        True,
    ),
    (
        "anthropic",
        Fail(400, "prompt is too long: 233153 tokens > 200000 maximum"),
        R.CONTEXT_OVERFLOW,
        True,
        True,
    ),
    *[
        (
            sdk,
            Fail(500, "The server had an error while processing your request."),
            R.SERVER_ERROR,
            True,
            False,
        )
        for sdk in BOTH
    ],
    *[(sdk, Fail(502, "Bad gateway"), R.SERVER_ERROR, True, False) for sdk in BOTH],
    *[(sdk, Fail(529, "Overloaded"), R.OVERLOADED, True, False) for sdk in BOTH],
    *[(sdk, Fail(503, "Service Unavailable"), R.OVERLOADED, True, False) for sdk in BOTH],
    *[(sdk, Fail(401, "Incorrect API key provided"), R.AUTH, False, False) for sdk in BOTH],
    *[
        (
            sdk,
            Fail(402, "Insufficient credits. Add more using https://example.com/credits"),
            R.BILLING,
            False,
            False,
        )
        for sdk in BOTH
    ],
    *[
        (
            sdk,
            Fail(402, "Usage limit exceeded for this period; it resets in 3 hours, try again then"),
            R.RATE_LIMIT,
            True,
            False,
        )
        for sdk in BOTH
    ],
    (
        "openai",
        Fail(404, "The model `gpt-9` does not exist or you do not have access to it.", code="model_not_found"),
        R.MODEL_NOT_FOUND,
        False,
        False,
    ),
    ("anthropic", Fail(404, "model: claude-9-opus"), R.MODEL_NOT_FOUND, False, False),
    *[(sdk, Fail(404, "Not Found"), R.UNKNOWN, True, False) for sdk in BOTH],
    *[(sdk, Fail(403, "Key limit exceeded: this key has a spending limit"), R.BILLING, False, False) for sdk in BOTH],
    *[(sdk, Fail(403, "Request not allowed"), R.AUTH, False, False) for sdk in BOTH],
    (
        "anthropic",
        Fail(400, "messages.1.content.0: Invalid `signature` in `thinking` block"),
        R.THINKING_SIGNATURE,
        True,
        False,
    ),
    (
        "anthropic",
        Fail(429, "Extra usage is required for long context requests."),
        R.LONG_CONTEXT_TIER,
        True,
        True,
    ),
    (
        "anthropic",
        Fail(400, "The long context beta is not yet available for this subscription."),
        R.OAUTH_LONG_CONTEXT_BETA_FORBIDDEN,
        True,
        False,
    ),
    (
        "openai",
        Fail(400, "Your request was flagged by our safety system as violating our usage policies."),
        R.CONTENT_POLICY_BLOCKED,
        False,
        False,
    ),
    (
        "openai",
        Fail(400, "Invalid 'messages[2].content': expected string, got array"),
        R.MULTIMODAL_TOOL_CONTENT_UNSUPPORTED,
        True,
        False,
    ),
    (
        "anthropic",
        Fail(400, "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum"),
        R.IMAGE_TOO_LARGE,
        True,
        False,
    ),
    (
        "openai",
        Fail(400, "Error parsing grammar: unexpected character"),
        R.LLAMA_CPP_GRAMMAR_PATTERN,
        True,
        False,
    ),
    ("openai", Fail(400, "Unrecognized request argument supplied: foo"), R.FORMAT_ERROR, False, False),
    (
        "openai",
        Fail(500, "Unsupported parameter: 'reasoning_effort' is not supported with this model."),
        R.FORMAT_ERROR,
        False,
        False,
    ),
    ("openai", Fail(400, "Provider returned error", body=OPENROUTER_WRAPPED), R.CONTEXT_OVERFLOW, True, True),
    ("openai", Fail(422, "Unprocessable Entity"), R.FORMAT_ERROR, False, False),
    # errors inside a 200 stream
    (
        "openai",
        StreamError(3, "The server had an error processing your request", type="server_error"),
        R.SERVER_ERROR,
        True,
        False,
    ),
    (
        "openai",
        StreamError(3, "Rate limit reached, try again in 20s", type="requests"),
        R.RATE_LIMIT,
        True,
        False,
    ),
    ("anthropic", StreamError(4, "Overloaded", type="overloaded_error"), R.OVERLOADED, True, False),
    ("anthropic", StreamError(4, "Internal server error", type="api_error"), R.SERVER_ERROR, True, False),
    # the connection drops mid-stream
    *[(sdk, Disconnect(3), R.TIMEOUT, True, False) for sdk in BOTH],
]


def _case_id(case: tuple) -> str:
    sdk, step = case[0], case[1]
    label = getattr(step, "status", type(step).__name__)
    return f"{sdk}-{label}-{case[2].value}"


@pytest.mark.parametrize(("sdk", "step", "reason", "retryable", "compress"), TABLE, ids=[_case_id(c) for c in TABLE])
async def test_real_sdk_errors(
    srv: FakeLLMServer, sdk: str, step: Step, reason: FailoverReason, retryable: bool, compress: bool
) -> None:
    error = await raised_by(sdk, srv, step)
    result = classify_api_error(error, provider=sdk, model="m", approx_tokens=1_000, context_length=200_000)
    assert (result.reason, result.retryable, result.should_compress) == (reason, retryable, compress), repr(error)
    assert (result.provider, result.model) == (sdk, "m")
    if isinstance(step, Fail):
        assert result.status_code == step.status
    assert 0 < len(result.message) <= 500


@pytest.mark.parametrize("sdk", BOTH)
async def test_rate_limit_and_auth_recovery_flags(srv: FakeLLMServer, sdk: str) -> None:
    rate = classify_api_error(await raised_by(sdk, srv, Fail(429, "slow down")))
    assert (rate.should_rotate_credential, rate.should_fallback) == (True, True)
    auth = classify_api_error(await raised_by(sdk, srv, Fail(401, "invalid x-api-key")))
    assert (auth.retryable, auth.should_rotate_credential, auth.should_fallback, auth.is_auth) == (
        False,
        True,
        True,
        True,
    )
    policy = classify_api_error(await raised_by(sdk, srv, Fail(404, "No endpoints found matching your data policy")))
    assert (policy.reason, policy.should_fallback) == (R.PROVIDER_POLICY_BLOCKED, False)


@pytest.mark.parametrize("sdk", BOTH)
async def test_disconnect_on_a_large_session_means_context_overflow(srv: FakeLLMServer, sdk: str) -> None:
    error = await raised_by(sdk, srv, Disconnect(2))
    big = classify_api_error(error, approx_tokens=150_000, context_length=200_000, num_messages=40)
    assert (big.reason, big.should_compress) == (R.CONTEXT_OVERFLOW, True)
    many = classify_api_error(error, approx_tokens=10_000, context_length=200_000, num_messages=250)
    assert many.reason == R.CONTEXT_OVERFLOW
    small = classify_api_error(error, approx_tokens=10_000, context_length=200_000, num_messages=10)
    assert small.reason == R.TIMEOUT


@pytest.mark.parametrize("sdk", BOTH)
async def test_generic_400_is_an_overflow_only_on_a_large_session(srv: FakeLLMServer, sdk: str) -> None:
    error = await raised_by(sdk, srv, Fail(400, "Error"))
    large = classify_api_error(error, approx_tokens=100_000, context_length=128_000, num_messages=30)
    assert (large.reason, large.should_compress) == (R.CONTEXT_OVERFLOW, True)
    small = classify_api_error(error, approx_tokens=2_000, context_length=128_000, num_messages=4)
    assert (small.reason, small.retryable, small.should_fallback) == (R.FORMAT_ERROR, False, True)
    share = classify_api_error(error, approx_tokens=500_000, context_length=1_000_000, num_messages=4)
    assert share.reason == R.CONTEXT_OVERFLOW, "over 40 % of a big window"


@pytest.mark.parametrize("sdk", BOTH)
async def test_read_timeout_and_refused_connection_are_timeouts(srv: FakeLLMServer, sdk: str) -> None:
    slow = await raised_by(sdk, srv, Hang(seconds=30), timeout=0.3)
    assert classify_api_error(slow).reason == R.TIMEOUT
    with FakeLLMServer() as gone:
        base = gone.base_url_openai if sdk == "openai" else gone.base_url_anthropic
    provider = (OpenAIProvider if sdk == "openai" else AnthropicProvider)("m", api_key="k", base_url=base)
    try:
        async for _event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "hi"}])):
            pass
    except Exception as exc:
        refused = classify_api_error(exc)
    finally:
        await provider.aclose()
    assert (refused.reason, refused.retryable, refused.status_code) == (R.TIMEOUT, True, None)


async def test_context_limit_is_parsed_from_real_sdk_messages(srv: FakeLLMServer) -> None:
    anthropic_error = await raised_by("anthropic", srv, Fail(400, "prompt is too long: 233153 tokens > 200000 maximum"))
    assert parse_context_limit_from_error(classify_api_error(anthropic_error).message) == 200_000
    assert parse_context_limit_from_error(str(anthropic_error)) == 200_000
    openai_error = await raised_by(
        "openai",
        srv,
        Fail(400, "This model's maximum context length is 16385 tokens.", code="context_length_exceeded"),
    )
    assert parse_context_limit_from_error(str(openai_error)) == 16_385


# --------------------------------------------------------------------------- duck-typed and message-only


class FakeStatusError(Exception):
    def __init__(self, message: str, status_code: int | None = None, body: object = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body


class RateLimitError(Exception):
    """Named like the SDK class; carries no status at all."""


class ReadTimeout(Exception):
    """Named like httpx's exception, from an unrelated library."""


MESSAGE_ONLY = [
    ("Request Entity Too Large", R.PAYLOAD_TOO_LARGE),
    ("Error code: 413 - payload rejected", R.PAYLOAD_TOO_LARGE),
    ("You exceeded your current quota, please check your plan and billing details.", R.BILLING),
    ("Your credit balance is too low to access the Anthropic API.", R.BILLING),
    ("Monthly usage limit reached; it resets at 00:00 UTC, please wait", R.RATE_LIMIT),
    ("Daily quota exhausted", R.BILLING),
    ("429 Too Many Requests", R.RATE_LIMIT),
    ("Throttled: requests per minute exceeded", R.RATE_LIMIT),
    ("RESOURCE_EXHAUSTED: please slow down", R.RATE_LIMIT),
    ("This model's maximum context length is 8192 tokens", R.CONTEXT_OVERFLOW),
    (
        "the request exceeds the available context size, try increasing it (n_ctx_slot = 4096)",
        R.CONTEXT_OVERFLOW,
    ),
    ("输入的上下文长度超过限制", R.CONTEXT_OVERFLOW),
    ("Invalid API key provided", R.AUTH),
    ("401 Unauthorized", R.AUTH),
    ("model_not_found: the model gpt-zzz does not exist", R.MODEL_NOT_FOUND),
    ("Request timed out after 600s", R.TIMEOUT),
    ("deadline exceeded while waiting for the model", R.TIMEOUT),
    ("[SSL: DECRYPTION_FAILED_OR_BAD_RECORD_MAC] decryption failed or bad record mac", R.TIMEOUT),
    ("Server disconnected without sending a response.", R.TIMEOUT),
    ("Connection reset by peer", R.TIMEOUT),
    ("flagged for possible cybersecurity risk", R.CONTENT_POLICY_BLOCKED),
    ("You do not have an active Grok subscription", R.AUTH),
    ("'NoneType' object is not subscriptable", R.UNKNOWN),
]


@pytest.mark.parametrize(("message", "reason"), MESSAGE_ONLY)
def test_message_only_errors(message: str, reason: FailoverReason) -> None:
    result = classify_api_error(Exception(message))
    assert result.reason == reason
    assert result.status_code is None


def test_status_found_down_the_cause_chain_and_on_status_attribute() -> None:
    inner = FakeStatusError("upstream said no", status_code=429)
    try:
        try:
            raise inner
        except FakeStatusError as exc:
            raise RuntimeError("wrapped by a helper") from exc
    except RuntimeError as outer:
        result = classify_api_error(outer)
    assert (result.reason, result.status_code) == (R.RATE_LIMIT, 429)

    class Legacy(Exception):
        status = 503

    assert classify_api_error(Legacy("busy")).reason == R.OVERLOADED


def test_rate_limit_error_without_status_counts_as_429() -> None:
    result = classify_api_error(RateLimitError("slow"))
    assert (result.reason, result.status_code) == (R.RATE_LIMIT, 429)


def test_body_codes_classify_status_less_errors() -> None:
    cases = {
        "insufficient_quota": R.BILLING,
        "context_length_exceeded": R.CONTEXT_OVERFLOW,
        "model_not_available": R.MODEL_NOT_FOUND,
        "throttled": R.RATE_LIMIT,
        "invalid_encrypted_content": R.INVALID_ENCRYPTED_CONTENT,
    }
    for code, reason in cases.items():
        error = FakeStatusError(
            "something went wrong", body={"error": {"message": "something went wrong", "code": code}}
        )
        assert classify_api_error(error).reason == reason, code


def test_body_message_is_read_when_str_is_unhelpful() -> None:
    error = FakeStatusError("Error code: 400", status_code=400, body={"message": "prompt is too long"})
    assert classify_api_error(error).reason == R.CONTEXT_OVERFLOW


@pytest.mark.parametrize(
    "error",
    [
        TimeoutError(),
        ConnectionRefusedError(111, "Connection refused"),
        OSError("network unreachable"),
        ReadTimeout(),
    ],
)
def test_transport_exceptions_are_timeouts(error: BaseException) -> None:
    result = classify_api_error(error)
    assert (result.reason, result.retryable, result.should_compress) == (R.TIMEOUT, True, False)


def test_unknown_errors_are_retryable_and_messages_are_capped() -> None:
    result = classify_api_error(ValueError("x" * 2_000))
    assert isinstance(result, ClassifiedError)
    assert (result.reason, result.retryable) == (R.UNKNOWN, True)
    assert len(result.message) == 500


def test_reason_values_match_hermes() -> None:
    assert {r.value for r in FailoverReason} == {
        "auth", "auth_permanent", "billing", "rate_limit", "overloaded", "server_error", "timeout",
        "context_overflow", "payload_too_large", "image_too_large", "model_not_found",
        "provider_policy_blocked", "content_policy_blocked", "format_error", "invalid_encrypted_content",
        "multimodal_tool_content_unsupported", "thinking_signature", "long_context_tier",
        "oauth_long_context_beta_forbidden", "llama_cpp_grammar_pattern", "unknown",
        "ssl_cert_verification", "upstream_rate_limit",  # Hermes a7ef17da7 added these two
    }  # fmt: skip


# --------------------------------------------------------------------------- parsers


@pytest.mark.parametrize(
    ("message", "limit"),
    [
        ("prompt is too long: 233153 tokens > 200000 maximum", 200_000),
        (
            "This model's maximum context length is 128000 tokens. However, you requested 130000 tokens",
            128_000,
        ),
        ("maximum context length is 4,096 tokens", 4_096),
        ("Input validation error: max context size = 32768", 32_768),
        (
            "input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000, decrease input",
            200_000,
        ),
        ("request (9000 tokens) exceeds the available context size (8192 tokens)", 8_192),
        ("exceeds the 131072 token limit of this model", 131_072),
        ("This endpoint has a 65536-token context window", 65_536),
        ("context_length_exceeded: context length 16385", 16_385),
        ("the limit is 1000000 maximum", 1_000_000),
    ],
)
def test_parse_context_limit(message: str, limit: int) -> None:
    assert parse_context_limit_from_error(message) == limit


@pytest.mark.parametrize(
    "message",
    [
        "",
        "prompt is too long",  # no number at all
        "maximum context length is 512 tokens",  # below 1024
        "maximum context length is 20000000 tokens",  # above 10,000,000
        "rate limit exceeded, try again in 30 seconds",
    ],
)
def test_parse_context_limit_rejects(message: str) -> None:
    assert parse_context_limit_from_error(message) is None


@pytest.mark.parametrize(
    ("message", "available"),
    [
        ("max_tokens: 64000 > available_tokens: 5200 for this request", 5_200),
        ("input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000, decrease input", 5_000),
        ("prompt is too long: 233153 tokens > 200000 maximum", None),  # not about max_tokens
        ("max_tokens: 10 > available_tokens: 0", None),
        ("input length and `max_tokens` exceed context limit: 210000 + 8192 > 200000", None),
    ],
)
def test_parse_available_output_tokens(message: str, available: int | None) -> None:
    assert parse_available_output_tokens_from_error(message) == available
