"""SKILL.md: YAML frontmatter between two "---" lines, then a Markdown body.

`parse_skill(text)` returns the frontmatter mapping and the body, or raises `SkillFormatError` with
one line saying what is wrong. `check_skill_content` applies Hermes's rules for a SKILL.md the agent
writes: it starts with "---", has a closing "---" line, the frontmatter is a YAML mapping with a
`name` and a `description` of at most 1,024 characters, the body is not empty, and the whole file is
at most 100,000 characters. The content is stored byte for byte; it is only validated.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_SKILL_CHARS = 100_000
MAX_DESCRIPTION_CHARS = 1024
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SkillFormatError(ValueError):
    """A SKILL.md that does not follow the format; the message is one line."""


def split_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter text, body) of a SKILL.md; SkillFormatError when the fences are missing."""
    if not text.startswith("---"):
        raise SkillFormatError("SKILL.md must start with a '---' line opening the YAML frontmatter")
    lines = text.split("\n")
    if lines[0].strip() != "---":
        raise SkillFormatError("SKILL.md must start with a '---' line opening the YAML frontmatter")
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :])
    raise SkillFormatError("the YAML frontmatter has no closing '---' line")


def parse_skill(text: str) -> tuple[dict[str, Any], str]:
    """The frontmatter mapping (with a string name and description) and the body."""
    head, body = split_frontmatter(text)
    try:
        meta = yaml.load(head, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise SkillFormatError(f"the frontmatter is not valid YAML{where}") from None
    if not isinstance(meta, dict):
        raise SkillFormatError("the frontmatter must be a YAML mapping (key: value lines)")
    for key in ("name", "description"):
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            raise SkillFormatError(f"the frontmatter needs a '{key}'")
    return meta, body


def check_skill_content(text: str) -> dict[str, Any]:
    """Validate a SKILL.md the agent wants to write; returns its frontmatter or raises SkillFormatError."""
    if len(text) > MAX_SKILL_CHARS:
        raise SkillFormatError(f"SKILL.md is {len(text):,} characters; the limit is {MAX_SKILL_CHARS:,}")
    meta, body = parse_skill(text)
    if len(meta["description"]) > MAX_DESCRIPTION_CHARS:
        raise SkillFormatError(
            f"the description is {len(meta['description']):,} characters; the limit is {MAX_DESCRIPTION_CHARS:,}"
        )
    if not body.strip():
        raise SkillFormatError("SKILL.md needs a body after the frontmatter")
    return meta
