"""The Hermes-written home fixture (tests/fixtures/hermes_home_v0.15), copied before each use."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hermes_home_v0.15"


def copy_home(destination: Path) -> Path:
    """A writable copy of the fixture's Hermes home at `destination`; returns it."""
    shutil.copytree(FIXTURE / "hermes_home", destination)
    for path in [destination, *destination.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return destination


def expected(name: str) -> str:
    return (FIXTURE / name).read_text(encoding="utf-8")


def tool_calls() -> list[dict[str, Any]]:
    return json.loads((FIXTURE / "tool_calls.json").read_text(encoding="utf-8"))
