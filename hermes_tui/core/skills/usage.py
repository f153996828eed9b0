"""The skills usage sidecar, `skills/.usage.json`, in Hermes's format: pinning and patch counts.

One record per skill folder name (keys sorted, 2-space indent, no trailing newline), guarded by the
lock file `.usage.json.lock`. Pinning lives here (`pinned: true`), not in SKILL.md: a pinned skill
may be patched and edited but `skill_manage` will not delete it. `skill_manage` bumps
`patch_count`/`last_patched_at` on patch, edit, write_file and remove_file (creating the record when
missing), drops the record on delete, and only creates one on create when the background review
made the skill (`created_by: "agent"`). A sidecar that is not a JSON object is treated as empty for
reading and left alone for writing (a warning names it), so a hand-broken file is never clobbered.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hermes_tui.core.private_io import atomic_write_private, file_lock
from hermes_tui.store.regular_files import read_regular_text

USAGE_FILE = ".usage.json"


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def new_record(created_at: str, created_by: str | None = None) -> dict[str, Any]:
    return {
        "archived_at": None,
        "created_at": created_at,
        "created_by": created_by,
        "last_patched_at": None,
        "last_used_at": None,
        "last_viewed_at": None,
        "patch_count": 0,
        "pinned": False,
        "state": "active",
        "use_count": 0,
        "view_count": 0,
    }


class UsageFileError(Exception):
    """The sidecar exists but is not a JSON object; it is left as it is."""


class SkillUsage:
    """Reads and updates `skills/.usage.json`."""

    def __init__(self, root: Path, clock: Callable[[], str] = now_iso) -> None:
        self.path = root / USAGE_FILE
        self._clock = clock

    def read(self) -> dict[str, Any]:
        """All records ({} when the file is missing or unusable)."""
        try:
            return self._load()
        except UsageFileError:
            return {}

    def _load(self) -> dict[str, Any]:
        try:
            text = read_regular_text(self.path)
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageFileError(f"{self.path.name} cannot be read: {exc}") from None
        try:
            data = json.loads(text) if text.strip() else {}
        except (ValueError, RecursionError):
            raise UsageFileError(f"{self.path.name} is not valid JSON") from None
        if not isinstance(data, dict):
            raise UsageFileError(f"{self.path.name} is not a JSON object")
        return data

    def is_pinned(self, name: str) -> bool:
        record = self.read().get(name)
        return isinstance(record, dict) and record.get("pinned") is True

    def _update(self, change: Callable[[dict[str, Any]], bool]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with file_lock(self.path):
            data = self._load()
            if change(data):
                atomic_write_private(self.path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))

    def _record(self, data: dict[str, Any], name: str, created_by: str | None = None) -> dict[str, Any]:
        record = data.get(name)
        if not isinstance(record, dict):
            record = new_record(self._clock(), created_by)
            data[name] = record
        return record

    def note_created(self, name: str, created_by: str | None) -> None:
        if created_by is None:
            return

        def change(data: dict[str, Any]) -> bool:
            data[name] = new_record(self._clock(), created_by)
            return True

        self._update(change)

    def note_patched(self, name: str) -> None:
        def change(data: dict[str, Any]) -> bool:
            record = self._record(data, name)
            record["patch_count"] = int(record.get("patch_count") or 0) + 1
            record["last_patched_at"] = self._clock()
            return True

        self._update(change)

    def note_deleted(self, name: str) -> None:
        self._update(lambda data: data.pop(name, None) is not None)

    def set_pinned(self, name: str, pinned: bool) -> None:
        def change(data: dict[str, Any]) -> bool:
            self._record(data, name)["pinned"] = pinned
            return True

        self._update(change)
