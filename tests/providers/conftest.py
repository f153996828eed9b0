"""Fixture for the provider tests: `srv`, the running loopback fake LLM server."""

from __future__ import annotations

import pytest

from tests.fake_llm import FakeLLMServer


@pytest.fixture
def srv(server: FakeLLMServer) -> FakeLLMServer:
    """The provider tests' name for the shared `server` fixture (tests/conftest.py)."""
    return server
