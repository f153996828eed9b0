"""Finding the skills on disk and rendering the skills index of the system prompt.

Layout (Hermes's): `skills/<name>/SKILL.md` (no category) or `skills/<category>/<name>/SKILL.md`;
hidden folders and files are not skills. `scan_skills(root)` returns the skills sorted for the index
and the problems of each malformed SKILL.md (skipped, never fatal). The index lists, per category
in sorted order, each skill's frontmatter name and shortened description, byte for byte as Hermes
renders its `<available_skills>` block — including Hermes's quirk that a skill without a category is
listed under a category named after its own folder — so a model moving between the two programs
sees the same listing. A skill whose `platforms` list excludes this OS is left out.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.skills.frontmatter import SkillFormatError, parse_skill
from hermes_tui.store.regular_files import read_regular_bytes, read_regular_text

SUPPORT_DIRS = ("references", "templates", "scripts", "assets")
INDEX_DESCRIPTION_CHARS = 60
PLATFORM_NAMES = {"linux": "linux", "darwin": "macos", "win32": "windows"}


@dataclass(frozen=True)
class Skill:
    """One skill found on disk."""

    name: str  # the frontmatter name (what the index shows)
    dir_name: str  # the folder name (what skill_manage looks up)
    category: str | None  # None when the skill sits directly under skills/
    description: str
    path: Path  # the skill's folder
    platforms: tuple[str, ...] = ()

    @property
    def skill_md(self) -> Path:
        return self.path / "SKILL.md"

    @property
    def index_category(self) -> str:
        return self.category or self.dir_name


@dataclass(frozen=True)
class SkillProblem:
    path: Path
    error: str


def _subfolders(path: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as entries:
            found = [e for e in entries if not e.name.startswith(".") and e.is_dir()]
    except OSError:
        return []
    found.sort(key=lambda e: e.name)
    return found


def skill_folders(root: Path) -> list[tuple[Path, str | None]]:
    """Every folder holding a SKILL.md, with its category (None for a top-level skill)."""
    found: list[tuple[Path, str | None]] = []
    for folder in _subfolders(str(root)):
        if os.path.isfile(os.path.join(folder.path, "SKILL.md")):
            found.append((Path(folder.path), None))
            continue
        found.extend(
            (Path(child.path), folder.name)
            for child in _subfolders(folder.path)
            if os.path.isfile(os.path.join(child.path, "SKILL.md"))
        )
    return found


def read_skill(folder: Path, category: str | None) -> Skill:
    """The skill in `folder`; SkillFormatError (or OSError) when its SKILL.md cannot be used."""
    try:
        text = read_regular_bytes(os.path.join(folder, "SKILL.md")).decode("utf-8")
    except UnicodeDecodeError:
        raise SkillFormatError("SKILL.md is not UTF-8 text") from None
    meta, _body = parse_skill(text)
    platforms = meta.get("platforms")
    names = tuple(str(p).lower() for p in platforms) if isinstance(platforms, list) else ()
    return Skill(
        name=meta["name"].strip(),
        dir_name=os.path.basename(folder),
        category=category,
        description=str(meta["description"]).strip(),
        path=folder,
        platforms=names,
    )


def scan_skills(root: Path) -> tuple[list[Skill], list[SkillProblem]]:
    """All usable skills (sorted by index category, then name) and the malformed ones."""
    skills: list[Skill] = []
    problems: list[SkillProblem] = []
    for folder, category in skill_folders(root):
        try:
            skills.append(read_skill(folder, category))
        except (SkillFormatError, OSError) as exc:
            problems.append(SkillProblem(folder / "SKILL.md", str(exc)))
    skills.sort(key=lambda s: (s.index_category, s.name))
    return skills, problems


def available_here(skill: Skill, platform: str = sys.platform) -> bool:
    if not skill.platforms:
        return True
    return PLATFORM_NAMES.get(platform, platform) in skill.platforms


def short_description(text: str) -> str:
    """A description as the index shows it: trimmed, unquoted, at most 60 characters."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    if len(text) > INDEX_DESCRIPTION_CHARS:
        text = text[: INDEX_DESCRIPTION_CHARS - 3] + "..."
    return text


def category_description(root: Path, category: str) -> str:
    """The text of skills/<category>/DESCRIPTION.md (its frontmatter description, else its first line)."""
    path = root / category / "DESCRIPTION.md"
    try:
        text = read_regular_text(path)
    except (OSError, UnicodeDecodeError):
        return ""
    try:
        meta, body = parse_skill(text)
        return short_description(str(meta["description"]))
    except SkillFormatError:
        body = text
    for line in body.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return short_description(line)
    return ""


def available_skills_block(root: Path, skills: list[Skill], platform: str = sys.platform) -> str:
    """The `<available_skills>` … `</available_skills>` listing ("" when there are no skills)."""
    shown = [s for s in skills if available_here(s, platform)]
    if not shown:
        return ""
    lines = ["<available_skills>"]
    current: str | None = None
    for skill in shown:
        if skill.index_category != current:
            current = skill.index_category
            about = category_description(root, current) if skill.category else ""
            lines.append(f"  {current}: {about}" if about else f"  {current}:")
        lines.append(f"    - {skill.name}: {short_description(skill.description)}")
    lines.append("</available_skills>")
    return "\n".join(lines)


def find_skill(root: Path, name: str) -> Skill | None:
    """The skill whose folder (or, failing that, frontmatter name) is `name`."""
    skills, _problems = scan_skills(root)
    for skill in skills:
        if skill.dir_name == name:
            return skill
    return next((s for s in skills if s.name == name), None)


def find_skill_folder(root: Path, name: str) -> tuple[Path, str | None] | None:
    """The folder named `name` holding a SKILL.md (malformed or not), with its category."""
    return next(((folder, cat) for folder, cat in skill_folders(root) if folder.name == name), None)
