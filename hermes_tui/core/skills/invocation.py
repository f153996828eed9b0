"""A skill run as a slash command: its command name, and the user message that loads it into a turn.

`command_name(skill_name)` is Hermes's slug for `/skill-name`: lower case, spaces and underscores
become hyphens, anything but letters, digits and hyphens is dropped, runs of hyphens are folded
("" when nothing is left, and then the skill has no command). `invocation_message` is the user
message Hermes sends when `/skill-name instruction` is typed: its first line names the skill, the
whole SKILL.md follows, then where the skill's folder is and which supporting files it has, then
the instruction. The first line, the instruction's sentence and the `[Skill directory: …]` line
are byte for byte Hermes's, because other programs read them back (Hermes's memory providers
recover the user's instruction from them; a session moves between the two programs); the
guidance around them is ours.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

INVOKED = '[IMPORTANT: The user has invoked the "{name}" skill, indicating they want you to follow its instructions. The full skill content is loaded below.]'  # noqa: E501
INSTRUCTION = "The user has provided the following instruction alongside the skill invocation: {instruction}"
FOLDER = "[Skill directory: {folder}]"
FOLDER_GUIDANCE = (
    "Paths in the skill such as `scripts/run.sh` or `templates/report.md` are relative to that folder: "
    "use them as absolute paths when you run or read them."
)
FILES_HEADING = "[This skill has supporting files:]"
FILES_GUIDANCE = (
    'Read one with skill_view(name="{view_name}", file_path="<path>"), or run a script by its absolute path.'
)

_NOT_SLUG = re.compile(r"[^a-z0-9-]")
_HYPHENS = re.compile(r"-{2,}")


def command_name(skill_name: str) -> str:
    """The slash command a skill is reached by ("" when its name leaves nothing usable)."""
    slug = skill_name.strip().lower().replace(" ", "-").replace("_", "-")
    return _HYPHENS.sub("-", _NOT_SLUG.sub("", slug)).strip("-")


def invocation_message(
    *,
    name: str,
    skill_md: str,
    folder: Path,
    view_name: str,
    files: Mapping[str, Sequence[str]] | Sequence[str] = (),
    instruction: str = "",
) -> str:
    """The user message that loads the skill `name` (its SKILL.md text `skill_md`) into the turn."""
    parts = [INVOKED.format(name=name), "", skill_md.strip(), "", FOLDER.format(folder=folder), FOLDER_GUIDANCE]
    listed = [path for group in files.values() for path in group] if isinstance(files, Mapping) else list(files)
    if listed:
        parts += ["", FILES_HEADING]
        parts += [f"- {path}  ->  {folder / path}" for path in listed]
        parts += ["", FILES_GUIDANCE.format(view_name=view_name)]
    if instruction.strip():
        parts += ["", INSTRUCTION.format(instruction=instruction.strip())]
    return "\n".join(parts)
