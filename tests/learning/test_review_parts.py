"""Unit tests of the review's parts, the private writes, the config keys and the headless commands."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, load_settings
from hermes_tui.core.commands import OpenLearning, run_command
from hermes_tui.core.private_io import atomic_write_private, file_lock
from hermes_tui.core.review.prompts import COMBINED_REVIEW, MEMORY_REVIEW, SKILL_REVIEW, review_prompt
from hermes_tui.core.review.records import ReviewRecord
from hermes_tui.core.review.report import FileSnapshot, review_actions, summary_line
from hermes_tui.headless import headless_command
from tests.core.helpers import DEMO, make_agent
from tests.learning.fixture_home import copy_home


def tool_result(call_id: str, name: str, payload: dict) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "tool_name": name, "content": json.dumps(payload)}


def test_actions_skip_inherited_results_and_failures_and_are_deduplicated() -> None:
    inherited = tool_result("old", "memory", {"success": True, "target": "memory", "message": "Entry added."})
    snapshot = [{"role": "user", "content": "hi"}, inherited]
    new = [
        inherited | {"tool_call_id": "again"},  # the same content re-reported: skipped (#14944)
        tool_result("a", "memory", {"success": True, "target": "user", "message": "Entry added."}),
        tool_result("b", "memory", {"success": True, "target": "user", "message": "Entry replaced."}),
        tool_result("c", "memory", {"success": False, "error": "Refused"}),
        tool_result("d", "skill_manage", {"success": True, "message": "Skill 'x' created."}),
        tool_result("e", "skill_view", {"success": True, "name": "x", "content": "..."}),
        {"role": "tool", "tool_call_id": "f", "tool_name": "memory", "content": "not json"},
    ]
    actions = review_actions(snapshot, snapshot + new)
    assert actions == ["User profile updated", "Skill 'x' created"]
    assert summary_line(actions) == "💾 Self-improvement review: User profile updated · Skill 'x' created"


def test_prompts_pick_what_is_due_and_keep_the_marker_phrase() -> None:
    assert review_prompt(True, False) is MEMORY_REVIEW
    assert review_prompt(False, True) is SKILL_REVIEW
    assert review_prompt(True, True) is COMBINED_REVIEW
    for prompt in (MEMORY_REVIEW, SKILL_REVIEW, COMBINED_REVIEW):
        assert '"Nothing to save."' in prompt and "refused" in prompt


def test_file_snapshots_diff_memory_and_skills(tmp_path: Path) -> None:
    home = copy_home(tmp_path / "home")
    before = FileSnapshot.take(home)
    (home / "memories" / "USER.md").write_text("Name: Mei Lin", encoding="utf-8")
    (home / "skills" / "new-skill").mkdir()
    (home / "skills" / "new-skill" / "SKILL.md").write_text("---\nname: n\n---\nbody\n", encoding="utf-8")
    diff = FileSnapshot.take(home).diff_since(before)
    assert "--- a/memories/USER.md" in diff and "+Name: Mei Lin" in diff
    assert "+++ b/skills/new-skill/SKILL.md" in diff and "--- /dev/null" in diff
    assert ".usage.json" not in diff and "MEMORY.md" not in diff


def test_a_damaged_record_is_skipped() -> None:
    assert ReviewRecord.from_json("{") is None
    assert ReviewRecord.from_json('{"session_id": "s"}') is None
    record = ReviewRecord("s", "r", 1.0, actions=["Memory updated"])
    assert ReviewRecord.from_json(record.to_json()) == record


def test_atomic_private_writes_are_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o000)
    try:
        atomic_write_private(tmp_path / "f.txt", "one")
        atomic_write_private(tmp_path / "f.txt", "two")
        with file_lock(tmp_path / "f.txt"):
            pass
    finally:
        os.umask(old)
    assert (tmp_path / "f.txt").read_text() == "two"
    assert stat.S_IMODE((tmp_path / "f.txt").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "f.txt.lock").stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt", "f.txt.lock"]


def test_learning_settings_load_from_config_and_bad_values_name_the_key(tmp_path: Path) -> None:
    home = Home(tmp_path).ensure()
    home.config_file.write_text(
        '[memory]\nprovider = "session_recall"\n[plugins]\nenabled = ["a", "b"]\n[sessions]\nauto_title = false\n',
        encoding="utf-8",
    )
    settings = load_settings(home, env={})
    assert settings.memory.provider == "session_recall" and settings.plugins.enabled == ["a", "b"]
    assert settings.sessions.auto_title is False
    home.config_file.write_text("[plugins]\nenabled = [1]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"'plugins\.enabled' must be a list of strings"):
        load_settings(home, env={})


async def test_memory_and_skills_commands_print_headless(tmp_path: Path) -> None:
    copy_home(tmp_path / "home")
    agent, db, _ = await make_agent(tmp_path, DEMO)
    assert (await run_command(agent, "/memory", interactive=True)).intent == OpenLearning("memory")
    memory = await headless_command(agent, "/memory")
    assert not memory.error
    assert memory.output.splitlines()[0] == "Agent notes (MEMORY.md) — 22% — 503/2,200 chars"
    assert "User profile (USER.md) — 14% — 203/1,375 chars" in memory.output
    skills = await headless_command(agent, "/skills")
    assert skills.output.splitlines()[0] == "Skills (3):"
    assert "  devops/deploy-checklist — Pre/post-deploy checklist for Kubernetes releases." in skills.output
    await agent.close()
    await db.close()
