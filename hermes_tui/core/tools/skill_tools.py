"""The skill tools: `skills_list` (every skill's name, description and category), `skill_view` (read a
skill and its files) and `skill_manage` (change skills).

The rules live in `hermes_tui.core.skills.manage`; this module is the schemas and the calls. Both
find the `SkillManager` in the tool context's services ("skills"); "skill_origin" there marks who is
writing ("agent" for the background review, recorded as `created_by` on create, as Hermes does).
Results are JSON in Hermes's response shapes.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hermes_tui.core.skills.catalog import available_here
from hermes_tui.core.skills.manage import ACTIONS, SkillManager
from hermes_tui.core.tools.base import Tool, ToolContext, ToolResult, object_schema, param

SKILLS_LIST = "skills_list"
SKILL_VIEW = "skill_view"
SKILL_MANAGE = "skill_manage"
LIST_DESCRIPTION_CHARS = 1024  # Hermes's cap on a listed description


def _result(response: dict[str, Any]) -> ToolResult:
    return ToolResult(json.dumps(response, ensure_ascii=False), is_error=not response.get("success"))


def _manager(ctx: ToolContext) -> SkillManager | None:
    manager = ctx.services.get("skills")
    return manager if isinstance(manager, SkillManager) else None


def list_skills(manager: SkillManager, category: str = "") -> dict[str, Any]:
    """Hermes's `skills_list` answer: the skills usable here (optionally of one category), sorted by
    category then name, with the categories they use."""
    skills, _problems = manager.scan()
    listed = []
    for skill in skills:
        if not available_here(skill) or (category and skill.category != category):
            continue
        description = skill.description.strip()
        if len(description) > LIST_DESCRIPTION_CHARS:
            description = description[: LIST_DESCRIPTION_CHARS - 3] + "..."
        listed.append({"name": skill.name, "description": description, "category": skill.category})
    listed.sort(key=lambda entry: (entry["category"] or "", entry["name"]))
    if not listed:
        where = f" in category '{category}'" if category else ""
        return {"success": True, "skills": [], "categories": [], "message": f"No skills found{where}."}
    return {
        "success": True,
        "skills": listed,
        "categories": sorted({entry["category"] for entry in listed if entry["category"]}),
        "count": len(listed),
        "hint": "Use skill_view(name) to see full content, tags, and linked files",
    }


class SkillsListTool(Tool):
    name = SKILLS_LIST
    description = "List available skills (name + description). Use skill_view(name) to load full content."
    parameters = object_schema((), category=param("string", "Optional category filter to narrow results"))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        manager = _manager(ctx)
        if manager is None:
            return _result({"success": False, "error": "Skills are not available."})
        return _result(await asyncio.to_thread(list_skills, manager, str(args.get("category") or "").strip()))


class SkillViewTool(Tool):
    name = SKILL_VIEW
    description = (
        "Load a skill: its SKILL.md (instructions, pitfalls, commands) and the list of its supporting "
        "files. Pass file_path (e.g. 'references/notes.md') to read one of those files."
    )
    parameters = object_schema(
        ["name"],
        name=param("string", "The skill's name as listed in the skills index."),
        file_path=param("string", "A supporting file to read instead of SKILL.md."),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        manager = _manager(ctx)
        if manager is None:
            return _result({"success": False, "error": "Skills are not available."})
        name = str(args.get("name") or "").strip()
        return _result(await asyncio.to_thread(manager.view, name, str(args.get("file_path") or "")))


class SkillManageTool(Tool):
    name = SKILL_MANAGE
    description = (
        "Create and maintain skills: reusable procedures for a class of task, kept as "
        "skills/[category/]name/SKILL.md. SKILL.md starts with YAML frontmatter (name, description of at "
        "most 1,024 characters) between '---' lines, then a Markdown body (when to use it, steps, "
        "pitfalls, how to verify). Actions: create (name, content, optional category), edit (replace "
        "SKILL.md with content), patch (old_string -> new_string in SKILL.md, or in file_path), delete, "
        "write_file and remove_file (file_path under references/, templates/, scripts/ or assets/). "
        "Names: lowercase letters, digits, '.', '_', '-'."
    )
    parameters = object_schema(
        ["action", "name"],
        action=param("string", "What to do.", enum=list(ACTIONS)),
        name=param("string", "The skill's folder name, e.g. 'deploy-checklist'."),
        category=param("string", "Optional category folder for create, e.g. 'devops'."),
        content=param("string", "The whole SKILL.md (create, edit)."),
        old_string=param("string", "Exact text to replace (patch)."),
        new_string=param("string", "Replacement text (patch)."),
        replace_all=param("boolean", "Replace every occurrence (patch). Default false."),
        file_path=param("string", "A supporting file path (write_file, remove_file, patch)."),
        file_content=param("string", "The supporting file's text (write_file)."),
        absorbed_into=param("string", "For delete: the skill that now holds this one's content, if any."),
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        manager = _manager(ctx)
        if manager is None:
            return _result({"success": False, "error": "Skills are not available."})
        origin = ctx.services.get("skill_origin")
        return _result(await asyncio.to_thread(manager.apply, args, created_by=origin))
