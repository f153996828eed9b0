"""A server whose TLS certificate does not verify: one attempt, a clear line about certificates and
what to do, no retries (a real `ssl` server on loopback with a certificate made here, the real
OpenAI SDK client through our provider)."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui.core import events as ev
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply


@pytest.fixture
def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """(certificate, key) for 127.0.0.1, signed by nobody but itself."""
    openssl = shutil.which("openssl")
    assert openssl, "the openssl command is needed to make a test certificate"
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def tls_server(self_signed: tuple[Path, Path]) -> Iterator[FakeLLMServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*self_signed)
    with FakeLLMServer(tls=context) as srv:
        yield srv


async def test_a_self_signed_certificate_fails_at_once_with_what_to_do(
    tmp_path: Path, tls_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    agent, db, log = await make_agent(tmp_path, openai_choice(tls_server.base_url_openai))
    try:
        result = await agent.run_conversation("hello")
    finally:
        await db.close()
    assert result.failed
    assert "ssl_cert_verification" in result.error and "certificate verify failed" in result.error
    assert "SSL_CERT_FILE" in result.error and "Operation not permitted" not in result.error
    assert tls_server.connections == 1  # one attempt: the same handshake would fail the same way
    assert not [s for s in log.of(ev.Status) if "retrying" in s.text]
    assert tls_server.requests == []  # no request got through


async def test_trusting_the_certificate_as_the_message_says_makes_it_work(
    tmp_path: Path, tls_server: FakeLLMServer, self_signed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(self_signed[0]))
    tls_server.enqueue(Reply(text="over TLS"))
    agent, db, _log = await make_agent(tmp_path, openai_choice(tls_server.base_url_openai))
    try:
        result = await agent.run_conversation("hello")
    finally:
        await db.close()
    assert result.completed and result.final_response == "over TLS"
