"""SKILL.md: YAML frontmatter between two "---" lines, then a Markdown body.

`parse_skill(text)` returns the frontmatter mapping and the body, or raises `SkillFormatError` with
one line saying what is wrong. `check_skill_content` applies Hermes's rules for a SKILL.md the agent
writes: it starts with "---", has a closing "---" line, the frontmatter is a YAML mapping with a
`name` and a `description` of at most 1,024 characters, the body is not empty, and the whole file is
at most 100,000 characters. The content is stored byte for byte; it is only validated.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

MAX_SKILL_CHARS = 100_000
MAX_DESCRIPTION_CHARS = 1024
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SkillFormatError(ValueError):
    """A SKILL.md that does not follow the format; the message is one line."""


_CLOSING_FENCE = re.compile(r"^[ \t]*---[ \t]*\r?$", re.MULTILINE)

# The subset of YAML most SKILL.md frontmatter is written in, read without the YAML library (the
# skills index of a few hundred skills must build in milliseconds): "key: value" lines, nested
# blocks indented by spaces, "- item" lines, values that are plain words, simple double- or
# single-quoted strings or flow lists of plain words. Anything else goes to the YAML parser.
_KEY_LINE = re.compile(r"^( *)([A-Za-z_][\w.-]*):(?: +(.*?))? *$")
_ITEM_LINE = re.compile(r"^( *)- +(.*?) *$")
_PLAIN = re.compile(r"^[^\s\"'\[\]{}&*!|>%@`#,?:-][^#]*$|^-[^\s-][^#]*$")
_FLOW_ITEM = re.compile(r"^[A-Za-z0-9_./+-]+$")
_NOT_A_STRING = re.compile(r"^(?:true|false|yes|no|on|off|null|~|[-+]?[0-9][0-9_.eE+-]*)$", re.IGNORECASE)


def _quick_scalar(value: str) -> tuple[bool, Any]:
    """(understood, value) for one value of the subset."""
    if value == "":
        return True, None
    if len(value) >= 2 and value[0] == value[-1] == '"' and '"' not in value[1:-1] and "\\" not in value:
        return True, value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'" and "'" not in value[1:-1]:
        return True, value[1:-1]
    if value.startswith("[") and value.endswith("]"):
        items = [item.strip() for item in value[1:-1].split(",")] if value[1:-1].strip() else []
        return all(_FLOW_ITEM.match(item) for item in items), items
    if ": " in value or value.endswith(":") or " #" in value or not _PLAIN.match(value):
        return False, None
    return True, value


def quick_frontmatter(head: str) -> dict[str, Any] | None:
    """The top-level keys of a frontmatter written in the simple subset; None when it is not."""
    meta: dict[str, Any] = {}
    for line in head.split("\n"):
        line = line.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY_LINE.match(line) or _ITEM_LINE.match(line)
        if match is None or "\t" in line:
            return None
        ok, value = _quick_scalar(match.groups()[-1] or "")
        if not ok:
            return None
        if len(match.group(1)) == 0:
            if match.re is _ITEM_LINE:
                return None
            meta[match.group(2)] = value
    return meta


def split_frontmatter(text: str) -> tuple[str, str]:
    """(frontmatter text, body) of a SKILL.md; SkillFormatError when the fences are missing."""
    first, _, rest = text.partition("\n")
    if not text.startswith("---") or first.strip() != "---":
        raise SkillFormatError("SKILL.md must start with a '---' line opening the YAML frontmatter")
    fence = _CLOSING_FENCE.search(rest)
    if fence is None:
        raise SkillFormatError("the YAML frontmatter has no closing '---' line")
    head = rest[: fence.start()]
    return head[:-1] if head.endswith("\n") else head, rest[fence.end() + 1 :]


def parse_skill(text: str) -> tuple[dict[str, Any], str]:
    """The frontmatter mapping (with a string name and description) and the body."""
    head, body = split_frontmatter(text)
    quick = quick_frontmatter(head)
    if quick is not None and all(
        isinstance(quick.get(key), str) and not _NOT_A_STRING.match(quick[key]) for key in ("name", "description")
    ):
        return quick, body
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
