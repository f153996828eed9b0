"""Fixture for the provider tests: a running loopback fake LLM server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fake_llm import FakeLLMServer


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server
