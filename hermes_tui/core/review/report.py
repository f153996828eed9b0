"""What a review run did: the actions to announce and the diffs of the files it changed.

`review_actions(snapshot, messages)` reads the fork's *new* tool results — ids and contents already in
the parent's snapshot are skipped, so inherited results are never reported again — and turns each
successful result whose message says something was created, updated, added, removed or replaced into
an action: "Memory updated", "User profile updated", or the tool's own message ("Skill 'x' created"),
deduplicated in order. `summary_line` joins them as the Review log shows them.

`FileSnapshot` captures MEMORY.md, USER.md and every file under skills/ before the run; `diff_since`
gives a unified diff of what changed by the time the run ended (a change the user made meanwhile
shows too — the files are shared).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.messages import Message, content_text

REVIEW_ICON = "💾"
CHANGE_WORDS = re.compile(r"\b(created|updated|added|removed|replaced|deleted|patched|written)\b", re.IGNORECASE)
MAX_DIFF_FILE_BYTES = 256 * 1024


def _tool_call_names(messages: Sequence[Message]) -> dict[str, str]:
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[str(call.get("id"))] = str((call.get("function") or {}).get("name") or "")
    return names


def review_actions(snapshot: Sequence[Message], messages: Sequence[Message]) -> list[str]:
    """The deduplicated actions the fork's new, successful tool results report."""
    old_ids = {str(m.get("tool_call_id")) for m in snapshot if m.get("role") == "tool"}
    old_contents = {content_text(m.get("content")) for m in snapshot if m.get("role") == "tool"}
    names = _tool_call_names(messages)
    actions: list[str] = []
    for message in messages[len(snapshot) :]:
        if message.get("role") != "tool":
            continue
        call_id = str(message.get("tool_call_id"))
        text = content_text(message.get("content"))
        if call_id in old_ids or text in old_contents:
            continue
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if not isinstance(data, dict) or data.get("success") is not True:
            continue
        said = str(data.get("message") or "")
        if not CHANGE_WORDS.search(said):
            continue
        name = message.get("tool_name") or names.get(call_id, "")
        if name == "memory":
            action = "User profile updated" if data.get("target") == "user" else "Memory updated"
        else:
            action = said.strip().rstrip(".")
        if action and action not in actions:
            actions.append(action)
    return actions


def summary_line(actions: Sequence[str]) -> str:
    return f"{REVIEW_ICON} Self-improvement review: " + " · ".join(actions)


@dataclass(frozen=True)
class FileSnapshot:
    """The text of the learning files at one moment, keyed by their path under the home."""

    home: Path
    files: dict[str, str]

    @classmethod
    def take(cls, home: Path) -> FileSnapshot:
        files: dict[str, str] = {}
        candidates = [home / "memories" / "MEMORY.md", home / "memories" / "USER.md"]
        skills = home / "skills"
        if skills.is_dir():
            candidates.extend(
                p for p in skills.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.parts[-3:])
            )
        for path in candidates:
            try:
                if path.stat().st_size > MAX_DIFF_FILE_BYTES:
                    continue
                files[str(path.relative_to(home))] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
        return cls(home, files)

    def diff_since(self, before: FileSnapshot) -> str:
        """A unified diff from `before` to this snapshot ("" when nothing changed)."""
        chunks: list[str] = []
        for name in sorted(set(before.files) | set(self.files)):
            old, new = before.files.get(name), self.files.get(name)
            if old == new:
                continue
            lines = difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                (new or "").splitlines(keepends=True),
                fromfile=f"a/{name}" if old is not None else "/dev/null",
                tofile=f"b/{name}" if new is not None else "/dev/null",
            )
            chunks.append("".join(line if line.endswith("\n") else line + "\n" for line in lines))
        return "".join(chunks).rstrip("\n")
