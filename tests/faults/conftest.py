"""Fixtures of the fault suite: a harness that runs real agent turns against the shared fake server (`server`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fake_llm import FakeLLMServer
from tests.faults.helpers import Harness


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("The launch code is 4242.\n", encoding="utf-8")
    return folder


@pytest.fixture
async def harness(tmp_path: Path, server: FakeLLMServer, project: Path) -> AsyncIterator[Harness]:
    h = Harness(tmp_path, server, project)
    try:
        yield h
    finally:
        await h.close()
