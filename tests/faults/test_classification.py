"""How the error classifier reads the faults the providers raise, on the real exceptions from the fake server."""

from __future__ import annotations

import pytest

from hermes_tui.core.providers.base import ChatRequest
from hermes_tui.core.providers.factory import make_provider
from hermes_tui.core.providers.failures import (
    ProviderConnectionError,
    ProviderErrorBody,
    ProviderRefusal,
    ProviderStreamError,
)
from hermes_tui.core.turn.errors import FailoverReason, classify_api_error
from tests.fake_llm import Fail, FakeLLMServer, Raw, RawStream, Reply, Reset, Step
from tests.faults.helpers import BOTH, HEALTHY_TIMEOUTS, choice_for, server_url

R = FailoverReason


async def raised(server: FakeLLMServer, protocol: str, step: Step) -> Exception:
    server.enqueue(step)
    provider = make_provider(choice_for(protocol, server_url(server, protocol)), timeouts=HEALTHY_TIMEOUTS)
    try:
        async for _event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "hi"}])):
            pass
    except Exception as exc:
        return exc
    finally:
        await provider.aclose()
    raise AssertionError("the call did not fail")


GZIP_500 = Raw(500, {"Content-Type": "application/json", "Content-Encoding": "gzip"}, b"\x1f\x8bnot gzip at all")
HTML_503 = Raw(503, {"Content-Type": "text/html"}, b"<html><head><title>Service Unavailable</title></head></html>")
CASES = [
    # (step, exception type, reason, retryable, words in the classified message)
    (Fail(408, "Request Timeout"), Exception, R.TIMEOUT, True, "Request Timeout"),
    (Reset(), ProviderConnectionError, R.TIMEOUT, True, "reset"),
    (
        RawStream(["data: {broken\n\n", "event: x\ndata: {broken\n\n"]),
        ProviderStreamError,
        R.SERVER_ERROR,
        True,
        "malformed",
    ),
    (
        Raw(200, {"Content-Type": "text/event-stream"}, b""),
        ProviderStreamError,
        R.SERVER_ERROR,
        True,
        "without an answer",
    ),
    (Reply(text="", finish="content_filter"), ProviderRefusal, R.CONTENT_POLICY_BLOCKED, False, "content filter"),
    (HTML_503, Exception, R.OVERLOADED, True, "HTTP 503: Service Unavailable (HTML error page)"),
]


@pytest.mark.parametrize("protocol", BOTH)
@pytest.mark.parametrize(("step", "kind", "reason", "retryable", "words"), CASES, ids=[c[4] for c in CASES])
async def test_provider_faults_are_classified(
    server: FakeLLMServer, protocol: str, step: Step, kind: type, reason: R, retryable: bool, words: str
) -> None:
    error = await raised(server, protocol, step)
    assert isinstance(error, kind), repr(error)
    result = classify_api_error(error, provider=protocol, model="m")
    assert (result.reason, result.retryable) == (reason, retryable), (repr(error), result)
    assert words.lower() in result.message.lower()
    assert "<" not in result.message


async def test_an_undecodable_error_body_is_a_retryable_decoding_fault(server: FakeLLMServer) -> None:
    for protocol in BOTH:
        error = await raised(server, protocol, GZIP_500)
        assert isinstance(error, ProviderConnectionError)
        result = classify_api_error(error)
        assert result.retryable and "could not decode" in result.message
    # The OpenAI SDK keeps the HTTP status in the chain, so the message and the class name it.
    openai_error = await raised(server, "openai", GZIP_500)
    assert "HTTP 500" in str(openai_error) and classify_api_error(openai_error).reason == R.SERVER_ERROR


@pytest.mark.parametrize(
    ("body", "reason", "status"),
    [
        ({"error": {"message": "Rate limit exceeded: free-models-per-min", "code": 429}}, R.RATE_LIMIT, 429),
        ({"error": {"message": "Upstream overloaded", "code": "529"}}, R.OVERLOADED, 529),
        ({"error": {"message": "Model is warming up", "code": "warming"}}, R.UNKNOWN, None),
    ],
)
def test_an_error_body_in_a_200_is_classified_like_the_status_it_names(
    body: dict, reason: R, status: int | None
) -> None:
    result = classify_api_error(ProviderErrorBody("the provider answered 200 with an error", body))
    assert (result.reason, result.status_code) == (reason, status)
    assert result.message == body["error"]["message"]


def test_a_truncated_stream_on_a_huge_session_stays_a_retryable_server_error() -> None:
    """Unlike a dropped connection, a stream that ended cleanly but early says nothing about the prompt size."""
    error = ProviderStreamError("truncated", "the stream from https://api.example.com ended mid-answer")
    result = classify_api_error(error, approx_tokens=190_000, context_length=200_000, num_messages=300)
    assert (result.reason, result.should_compress) == (R.SERVER_ERROR, False)
