"""`SkillManager`: what `skill_manage` and `skill_view` do to <home>/skills, with Hermes's rules.

Actions: `create` (a new skill folder with its SKILL.md, optionally in a category), `edit` (replace
SKILL.md), `patch` (find-and-replace in SKILL.md or a supporting file), `delete` (refused for a pinned
skill; an emptied category folder goes too), `write_file` and `remove_file` (supporting files under
references/, templates/, scripts/ or assets/). Names and categories match `^[a-z0-9][a-z0-9._-]*$`
and are at most 64 characters; SKILL.md is at most 100,000 characters, a supporting file at most
1 MiB. Existing skills are found by folder name. Every file is written 0600 through a temporary file
and a rename; content is stored exactly as given. Results are dicts in Hermes's response shapes
(`success` + `message`, `error` on failure); they never raise for bad input.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from hermes_tui.core.memory.scan import scan_text
from hermes_tui.core.private_io import atomic_write_private
from hermes_tui.core.skills.catalog import (
    SUPPORT_DIRS,
    Skill,
    SkillProblem,
    find_skill,
    find_skill_folder,
    scan_skills,
)
from hermes_tui.core.skills.frontmatter import SkillFormatError, check_skill_content
from hermes_tui.core.skills.usage import SkillUsage
from hermes_tui.store.file_modes import make_private_dir
from hermes_tui.store.regular_files import read_regular_text

NAME_RULE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
MAX_NAME_CHARS = 64
MAX_SUPPORT_FILE_BYTES = 1024 * 1024
ACTIONS = ("create", "edit", "patch", "delete", "write_file", "remove_file")


def name_problem(value: str, what: str = "name") -> str:
    """Why `value` is not a valid skill or category name ("" when it is)."""
    if not value:
        return f"a skill {what} is required"
    if len(value) > MAX_NAME_CHARS:
        return f"the {what} '{value[:70]}' is longer than {MAX_NAME_CHARS} characters"
    if not NAME_RULE.match(value):
        return (
            f"the {what} '{value}' is not allowed: use lowercase letters, digits, '.', '_' and '-', "
            "starting with a letter or digit"
        )
    return ""


def _error(message: str) -> dict[str, Any]:
    return {"success": False, "error": message}


class SkillManager:
    """The skills folder of one home."""

    def __init__(self, root: Path, *, guard_agent_created: bool = False) -> None:
        self.root = root
        self.usage = SkillUsage(root)
        self.guard_agent_created = guard_agent_created

    # ------------------------------------------------------------------ reading

    def scan(self) -> tuple[list[Skill], list[SkillProblem]]:
        return scan_skills(self.root)

    def _supporting_files(self, folder: Path) -> dict[str, list[str]]:
        files: dict[str, list[str]] = {}
        for sub in SUPPORT_DIRS:
            base = folder / sub
            if base.is_dir():
                found = sorted(str(p.relative_to(folder)) for p in base.rglob("*") if p.is_file())
                if found:
                    files[sub] = found
        return files

    def view(self, name: str, file_path: str = "") -> dict[str, Any]:
        """A skill's SKILL.md (frontmatter, body and the list of its files), or one supporting file."""
        skill = find_skill(self.root, name)
        if skill is None:
            known = ", ".join(s.name for s in self.scan()[0]) or "none"
            return _error(f"No skill named '{name}'. Available skills: {known}")
        if file_path:
            target, problem = self._support_path(skill.path, file_path, must_exist=True)
            if target is None:
                return _error(problem)
            try:
                content = read_regular_text(target)
            except UnicodeDecodeError:
                return _error(f"'{file_path}' is not a text file")
            except OSError as exc:
                return _error(f"cannot read '{file_path}': {exc.strerror or exc}")
            return {"success": True, "name": skill.name, "file_path": file_path, "content": content}
        text = read_regular_text(skill.skill_md)
        return {
            "success": True,
            "name": skill.name,
            "description": skill.description,
            "category": skill.category,
            "path": str(skill.path.relative_to(self.root)),
            "content": text,
            "files": self._supporting_files(skill.path),
        }

    # ------------------------------------------------------------------ dispatch

    def apply(self, args: dict[str, Any], *, created_by: str | None = None) -> dict[str, Any]:
        action = str(args.get("action") or "")
        if action not in ACTIONS:
            return _error(f"Unknown action '{action}'. Use one of: {', '.join(ACTIONS)}")
        name = str(args.get("name") or "").strip()
        problem = name_problem(name)
        if problem:
            return _error(problem[0].upper() + problem[1:] + ".")
        try:
            if action == "create":
                return self._create(name, args, created_by)
            located = find_skill_folder(self.root, name)
            if located is None:
                return _error(f"Skill '{name}' not found.")
            folder, category = located
            return getattr(self, f"_{action}")(name, folder, category, args)
        except OSError as exc:
            return _error(f"Could not {action.replace('_', ' ')} skill '{name}': {exc.strerror or exc}")

    # ------------------------------------------------------------------ actions

    def _check_content(self, content: str) -> str:
        """Why `content` cannot be a SKILL.md ("" when it can)."""
        try:
            check_skill_content(content)
        except SkillFormatError as exc:
            return f"Invalid SKILL.md: {exc}."
        if self.guard_agent_created:
            reason = scan_text(content)
            if reason:
                return f"Refused: the skill looks like {reason}."
        return ""

    def _create(self, name: str, args: dict[str, Any], created_by: str | None) -> dict[str, Any]:
        category = str(args.get("category") or "").strip()
        if category:
            problem = name_problem(category, "category")
            if problem:
                return _error(problem[0].upper() + problem[1:] + ".")
        content = str(args.get("content") or "")
        problem = self._check_content(content)
        if problem:
            return _error(problem)
        existing = find_skill_folder(self.root, name)
        if existing is not None:
            where = existing[0].relative_to(self.root)
            return _error(f"A skill named '{name}' already exists at skills/{where}. Use edit or patch to change it.")
        make_private_dir(self.root)
        parent = self.root / category if category else self.root
        make_private_dir(parent)
        folder = parent / name
        make_private_dir(folder)
        atomic_write_private(folder / "SKILL.md", content)
        self.usage.note_created(name, created_by)
        result: dict[str, Any] = {
            "success": True,
            "message": f"Skill '{name}' created.",
            "path": str(folder.relative_to(self.root)),
            "skill_md": str(folder / "SKILL.md"),
        }
        if category:
            result["category"] = category
        result["hint"] = (
            f"Supporting files go in with skill_manage(action='write_file', name='{name}', "
            "file_path='references/notes.md', file_content='...')"
        )
        return result

    def _edit(self, name: str, folder: Path, _category: str | None, args: dict[str, Any]) -> dict[str, Any]:
        content = str(args.get("content") or "")
        problem = self._check_content(content)
        if problem:
            return _error(problem)
        atomic_write_private(folder / "SKILL.md", content)
        self.usage.note_patched(name)
        return {"success": True, "message": f"Skill '{name}' updated."}

    def _patch(self, name: str, folder: Path, _category: str | None, args: dict[str, Any]) -> dict[str, Any]:
        old = str(args.get("old_string") or "")
        new = str(args.get("new_string") if args.get("new_string") is not None else "")
        if not old:
            return _error("Give 'old_string': the exact text to replace.")
        file_path = str(args.get("file_path") or "").strip()
        if file_path and file_path != "SKILL.md":
            target, problem = self._support_path(folder, file_path, must_exist=True)
            if target is None:
                return _error(problem)
            label = file_path
        else:
            target, label = folder / "SKILL.md", "SKILL.md"
        text = read_regular_text(target)
        count = text.count(old)
        if count == 0:
            return _error(f"'old_string' was not found in {label} of skill '{name}'. Read it with skill_view first.")
        replace_all = bool(args.get("replace_all"))
        if count > 1 and not replace_all:
            return _error(
                f"'old_string' occurs {count} times in {label}; add surrounding text to make it unique, "
                "or pass replace_all=true."
            )
        patched = text.replace(old, new) if replace_all else text.replace(old, new, 1)
        replaced = count if replace_all else 1
        if label == "SKILL.md":
            problem = self._check_content(patched)
            if problem:
                return _error(f"The patch would break SKILL.md: {problem}")
        elif len(patched.encode("utf-8")) > MAX_SUPPORT_FILE_BYTES:
            return _error(f"The patched {label} would be larger than 1 MiB.")
        atomic_write_private(target, patched)
        self.usage.note_patched(name)
        noun = "replacement" if replaced == 1 else "replacements"
        return {"success": True, "message": f"Patched {label} in skill '{name}' ({replaced} {noun})."}

    def _delete(self, name: str, folder: Path, category: str | None, _args: dict[str, Any]) -> dict[str, Any]:
        if self.usage.is_pinned(name):
            return _error(
                f"Skill '{name}' is pinned and cannot be deleted by skill_manage. Ask the user to unpin it "
                "(in the Memory & Skills screen or skills/.usage.json) if it should go. Patches and edits "
                "are still allowed on a pinned skill."
            )
        shutil.rmtree(folder)
        if category:
            parent = self.root / category
            if parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
        self.usage.note_deleted(name)
        return {"success": True, "message": f"Skill '{name}' deleted."}

    def _support_path(self, folder: Path, file_path: str, *, must_exist: bool) -> tuple[Path | None, str]:
        pure = PurePosixPath(file_path.replace("\\", "/"))
        if pure.is_absolute() or ".." in pure.parts or len(pure.parts) < 2 or pure.parts[0] not in SUPPORT_DIRS:
            dirs = ", ".join(f"{d}/" for d in SUPPORT_DIRS)
            return None, f"file_path must be a relative path under {dirs} (got '{file_path}')."
        target = folder.joinpath(*pure.parts)
        if must_exist and not target.is_file():
            return None, f"'{file_path}' does not exist in skill '{folder.name}'."
        return target, ""

    def _write_file(self, name: str, folder: Path, _category: str | None, args: dict[str, Any]) -> dict[str, Any]:
        file_path = str(args.get("file_path") or "").strip()
        target, problem = self._support_path(folder, file_path, must_exist=False)
        if target is None:
            return _error(problem)
        content = args.get("file_content")
        if not isinstance(content, str):
            return _error("Give 'file_content': the text of the file.")
        if len(content.encode("utf-8")) > MAX_SUPPORT_FILE_BYTES:
            return _error(f"'{file_path}' is larger than 1 MiB; supporting files are limited to 1 MiB.")
        current = folder
        for part in target.relative_to(folder).parts[:-1]:
            current = current / part
            make_private_dir(current)
        atomic_write_private(target, content)
        self.usage.note_patched(name)
        return {"success": True, "message": f"File '{file_path}' written to skill '{name}'.", "path": str(target)}

    def _remove_file(self, name: str, folder: Path, _category: str | None, args: dict[str, Any]) -> dict[str, Any]:
        file_path = str(args.get("file_path") or "").strip()
        target, problem = self._support_path(folder, file_path, must_exist=True)
        if target is None:
            return _error(problem)
        target.unlink()
        parent = target.parent
        while parent != folder and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
        self.usage.note_patched(name)
        return {"success": True, "message": f"File '{file_path}' removed from skill '{name}'."}
