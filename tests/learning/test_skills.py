"""Skills: the index byte for byte as Hermes renders it, and skill_manage/skill_view with Hermes's rules."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from hermes_tui.config import ToolsSettings
from hermes_tui.core.skills.catalog import available_skills_block, scan_skills, short_description
from hermes_tui.core.skills.manage import SkillManager
from hermes_tui.core.skills.usage import SkillUsage
from hermes_tui.core.todo import TodoStore
from hermes_tui.core.tools.base import ToolContext
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.tools.skill_tools import SkillManageTool, SkillViewTool
from tests.learning.fixture_home import copy_home, expected, tool_calls

SKILL = "---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nDo the thing.\n"


def listing(text: str) -> str:
    start = text.index("<available_skills>")
    end = text.index("</available_skills>") + len("</available_skills>")
    return text[start:end]


def tools(manager: SkillManager, tmp_path: Path, origin: str | None = None) -> tuple[ToolRegistry, ToolContext]:
    reg = ToolRegistry()
    reg.register(SkillViewTool())
    reg.register(SkillManageTool())
    services = {"skills": manager, "skill_origin": origin}
    return reg, ToolContext(cwd=tmp_path, settings=ToolsSettings(), approve=None, todo=TodoStore(), services=services)


def test_index_of_the_hermes_home_is_byte_identical(tmp_path: Path) -> None:
    root = copy_home(tmp_path / "hermes") / "skills"
    skills, problems = scan_skills(root)
    assert problems == []
    assert available_skills_block(root, skills, platform="linux") == listing(expected("expected_skills_index.txt"))


def test_descriptions_are_unquoted_and_cut_at_sixty() -> None:
    assert short_description('  "quoted"  ') == "quoted"
    assert short_description("x" * 60) == "x" * 60
    assert short_description("x" * 61) == "x" * 57 + "..."


async def test_replaying_hermes_skill_calls_reproduces_its_files_and_refusals(tmp_path: Path) -> None:
    home = tmp_path / "ours"
    manager = SkillManager(home / "skills")
    reg, ctx = tools(manager, tmp_path)
    for call in tool_calls():
        if call["kind"] != "tool" or "skill_manage" not in call["function"]:
            if call["n"] == 20:  # Hermes's `curator pin` handler
                SkillUsage(home / "skills").set_pinned(call["args"]["skill"], True)
            continue
        result = await reg.dispatch("skill_manage", json.dumps(call["args"], ensure_ascii=False), ctx)
        response = json.loads(result.content)
        assert response["success"] == call["response"]["success"], f"call {call['n']}: {response}"
        if response["success"]:
            assert response["message"] == call["response"]["message"]
            if "path" in call["response"] and call["args"]["action"] == "create":
                assert response["path"] == call["response"]["path"]
        else:
            assert "pinned" in response["error"]
    hermes = copy_home(tmp_path / "hermes") / "skills"
    ours = home / "skills"
    hermes_files = sorted(str(p.relative_to(hermes)) for p in hermes.rglob("*") if p.is_file() and p.name[0] != ".")
    our_files = sorted(str(p.relative_to(ours)) for p in ours.rglob("*") if p.is_file() and p.name[0] != ".")
    assert our_files == hermes_files
    for rel in our_files:
        assert (ours / rel).read_bytes() == (hermes / rel).read_bytes(), rel
        assert stat.S_IMODE((ours / rel).stat().st_mode) == 0o600
    assert not (ours / "experiments").exists()  # the emptied category folder went with its last skill
    ours_usage, hermes_usage = SkillUsage(ours).read(), SkillUsage(hermes).read()
    assert sorted(ours_usage) == sorted(hermes_usage)
    for name, record in hermes_usage.items():
        for key in ("patch_count", "pinned", "created_by", "state"):
            assert ours_usage[name][key] == record[key], (name, key)
    raw = (ours / ".usage.json").read_text("utf-8")
    assert not raw.endswith("\n") and raw.startswith('{\n  "deploy-checklist": {\n    "archived_at": null,')


async def test_a_skill_we_write_is_read_back_by_the_same_rules_and_viewable(tmp_path: Path) -> None:
    manager = SkillManager(tmp_path / "skills")
    reg, ctx = tools(manager, tmp_path, origin="agent")
    content = SKILL.format(name="pdf-export", description="Export notes to PDF with pandoc.")
    created = json.loads(
        (
            await reg.dispatch(
                "skill_manage",
                json.dumps({"action": "create", "name": "pdf-export", "category": "writing", "content": content}),
                ctx,
            )
        ).content
    )
    assert created["success"] and created["path"] == "writing/pdf-export"
    assert SkillUsage(tmp_path / "skills").read()["pdf-export"]["created_by"] == "agent"
    await reg.dispatch(
        "skill_manage",
        json.dumps({"action": "write_file", "name": "pdf-export", "file_path": "templates/a.tex", "file_content": "x"}),
        ctx,
    )
    viewed = json.loads((await reg.dispatch("skill_view", '{"name": "pdf-export"}', ctx)).content)
    assert viewed["content"] == content and viewed["files"] == {"templates": ["templates/a.tex"]}
    one = json.loads(
        (await reg.dispatch("skill_view", '{"name": "pdf-export", "file_path": "templates/a.tex"}', ctx)).content
    )
    assert one["content"] == "x"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"action": "create", "name": "Bad Name", "content": "x"}, "not allowed"),
        ({"action": "create", "name": "a" * 65, "content": "x"}, "longer than 64"),
        ({"action": "create", "name": "ok", "content": "no frontmatter"}, "must start with a '---'"),
        ({"action": "create", "name": "ok", "content": "---\nname: ok\n---\nbody"}, "needs a 'description'"),
        ({"action": "create", "name": "ok", "content": "---\nname: ok\ndescription: d\n---\n  \n"}, "needs a body"),
        ({"action": "create", "name": "ok", "content": SKILL.format(name="ok", description="d" * 1025)}, "1,024"),
        (
            {"action": "create", "name": "ok", "content": SKILL.format(name="ok", description="d") + "x" * 100_000},
            "100,000",
        ),
        (
            {"action": "create", "name": "ok", "content": "---\nname: [unclosed\ndescription: d\n---\nbody"},
            "not valid YAML",
        ),
        ({"action": "write_file", "name": "base", "file_path": "../escape.md", "file_content": "x"}, "relative path"),
        ({"action": "write_file", "name": "base", "file_path": "notes.md", "file_content": "x"}, "relative path"),
        (
            {
                "action": "write_file",
                "name": "base",
                "file_path": "assets/big.bin",
                "file_content": "x" * (1024 * 1024 + 1),
            },
            "1 MiB",
        ),
        ({"action": "patch", "name": "base", "old_string": "absent", "new_string": "y"}, "not found"),
        ({"action": "patch", "name": "base", "old_string": "description: d", "new_string": "x: y"}, "break SKILL.md"),
        ({"action": "delete", "name": "missing"}, "not found"),
        ({"action": "rename", "name": "base"}, "Unknown action"),
    ],
)
def test_bad_requests_are_refused_with_a_reason_and_change_nothing(tmp_path: Path, args: dict, needle: str) -> None:
    manager = SkillManager(tmp_path / "skills")
    assert manager.apply({"action": "create", "name": "base", "content": SKILL.format(name="base", description="d")})[
        "success"
    ]
    before = sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    result = manager.apply(args)
    assert not result["success"] and needle in result["error"], result
    after = sorted((p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    assert after == before


def test_a_malformed_skill_on_disk_is_reported_and_skipped(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    SkillManager(root).apply(
        {"action": "create", "name": "good", "content": SKILL.format(name="good", description="g")}
    )
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("---\nname: broken\n", encoding="utf-8")
    skills, problems = scan_skills(root)
    assert [s.name for s in skills] == ["good"]
    assert len(problems) == 1 and "closing '---'" in problems[0].error
