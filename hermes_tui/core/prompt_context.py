"""What the system prompt says about where the agent runs: environment hints and project context files.

`environment_hints(cwd)` — the OS, the shell, the working folder and whether it is inside a git
repository (and which root). `find_context_file(cwd, context_length)` — Hermes's rules for the
project's instructions; only the first kind found is used:

1. `.hermes.md`, then `HERMES.md`: in the working folder, then each parent up to and including
   the git root (only the working folder outside a repository); a YAML front matter is dropped;
2. `AGENTS.md`, then `agents.md`: the working folder only;
3. `CLAUDE.md`, then `claude.md`: the working folder only;
4. `.cursorrules` and every `.cursor/rules/*.mdc` (by name), together: the working folder only.

An empty file does not count (the next name is tried). Each kind's text, under a `## name`
heading, is capped at `context_file_cap(context_length)` characters: 20,000, or 6 % of the
model's window at four characters a token when that is more (at most 500,000). A longer text
keeps its first 70 % and last 20 % of the cap, with a note in the middle naming the file to read
in full. `cap` applies the same rule to SOUL.md. Both read the file system only; both never raise.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.store.regular_files import read_regular_text

HERMES_MD_NAMES = (".hermes.md", "HERMES.md")
AGENTS_MD_NAMES = ("AGENTS.md", "agents.md")
CLAUDE_MD_NAMES = ("CLAUDE.md", "claude.md")
CURSORRULES = ".cursorrules"
CURSOR_RULES_DIR = (".cursor", "rules")
CURSOR_RULE_SUFFIX = ".mdc"

CONTEXT_FILE_MAX_CHARS = 20_000  # the cap without a known window, and the floor with one
CONTEXT_FILE_MAX_CEILING = 500_000
CONTEXT_FILE_WINDOW_SHARE = 0.06  # of the model's window, in tokens ...
CHARS_PER_TOKEN = 4  # ... at about four characters each
HEAD_SHARE = 0.7
TAIL_SHARE = 0.2
TRUNCATION_NOTE = (
    "\n\n[… {name} is {total:,} characters, over the {limit:,} a context file may take: the first "
    "{head:,} and the last {tail:,} are shown, the middle is left out. Read {path} with read_file "
    "for all of it …]\n\n"
)


@dataclass(frozen=True)
class ContextFile:
    name: str  # as shown: relative to the working folder when possible
    text: str


def git_root(cwd: Path) -> Path | None:
    """The nearest folder at or above `cwd` holding a `.git` entry (None outside a repository)."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None


def search_folders(cwd: Path) -> list[Path]:
    """Where `.hermes.md` is looked for: `cwd`, then each parent up to and including the git root
    (only `cwd` outside a repository)."""
    root = git_root(cwd)
    folders = [cwd]
    folder = cwd
    while root is not None and folder != root:
        folder = folder.parent
        folders.append(folder)
    return folders


def context_file_cap(context_length: int | None = None) -> int:
    """How many characters one context file may put in the prompt, for a model of this window."""
    if not isinstance(context_length, int) or context_length <= 0:
        return CONTEXT_FILE_MAX_CHARS
    share = int(context_length * CHARS_PER_TOKEN * CONTEXT_FILE_WINDOW_SHARE)
    return max(CONTEXT_FILE_MAX_CHARS, min(share, CONTEXT_FILE_MAX_CEILING))


def cap(text: str, limit: int = CONTEXT_FILE_MAX_CHARS, *, name: str = "this file", path: str = "") -> str:
    """`text` within about `limit` characters: the head and the tail kept, the middle cut and marked."""
    if len(text) <= limit:
        return text
    head = int(limit * HEAD_SHARE)
    tail = int(limit * TAIL_SHARE)
    note = TRUNCATION_NOTE.format(name=name, total=len(text), limit=limit, head=head, tail=tail, path=path or name)
    return text[:head] + note + text[-tail:]


def _read(path: Path) -> str:
    """The file's text, stripped; "" for a missing, unreadable or non-regular file."""
    try:
        return read_regular_text(path, errors="replace").strip()
    except OSError:
        return ""


def _label(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def strip_front_matter(text: str) -> str:
    """`text` without a leading `---` … `---` block (kept whole when nothing follows the block)."""
    if not text.startswith("---"):
        return text
    end = text.find("\n---", 3)
    if end < 0:
        return text
    body = text[end + 4 :].lstrip("\n")
    return body or text


def _section(label: str, text: str) -> str:
    return f"## {label}\n\n{text}"


def _hermes_md(cwd: Path, limit: int) -> ContextFile | None:
    for folder in search_folders(cwd):
        for name in HERMES_MD_NAMES:
            path = folder / name
            if not path.is_file():
                continue
            text = _read(path)
            if text:
                label = _label(path, cwd)
                body = _section(label, strip_front_matter(text))
                return ContextFile(label, cap(body, limit, name=label, path=str(path)))
    return None


def _first_named(cwd: Path, names: tuple[str, ...], limit: int) -> ContextFile | None:
    for name in names:
        path = cwd / name
        text = _read(path) if path.is_file() else ""
        if text:
            return ContextFile(name, cap(_section(name, text), limit, name=name, path=str(path)))
    return None


def _cursor_rules(cwd: Path, limit: int) -> ContextFile | None:
    rules_dir = "/".join(CURSOR_RULES_DIR)
    rules_file = cwd / CURSORRULES
    sections: list[str] = []
    names: list[str] = []
    if rules_file.is_file() and (text := _read(rules_file)):
        sections.append(_section(CURSORRULES, text))
        names.append(CURSORRULES)
    try:
        found = sorted(p for p in cwd.joinpath(*CURSOR_RULES_DIR).iterdir() if p.suffix == CURSOR_RULE_SUFFIX)
    except OSError:
        found = []
    rules = [(path, text) for path in found if path.is_file() and (text := _read(path))]
    for path, text in rules:
        sections.append(_section(f"{rules_dir}/{path.name}", text))
    if rules:
        names.append(rules_dir)
    if not sections:
        return None
    label = " and ".join(names)
    where = rules_file if names[0] == CURSORRULES else cwd.joinpath(*CURSOR_RULES_DIR)
    return ContextFile(label, cap("\n\n".join(sections), limit, name=label, path=str(where)))


def find_context_file(cwd: Path, context_length: int | None = None) -> ContextFile | None:
    """The project's instructions by Hermes's rules (module docstring), or None."""
    limit = context_file_cap(context_length)
    return (
        _hermes_md(cwd, limit)
        or _first_named(cwd, AGENTS_MD_NAMES, limit)
        or _first_named(cwd, CLAUDE_MD_NAMES, limit)
        or _cursor_rules(cwd, limit)
    )


def environment_hints(cwd: Path) -> str:
    """A few lines about the machine and the working folder."""
    system = platform.system() or "unknown"
    release = platform.release()
    shell = os.environ.get("SHELL") or ("cmd.exe" if os.name == "nt" else "/bin/sh")
    root = git_root(cwd)
    if root is None:
        repo = "not inside a git repository"
    elif root == cwd:
        repo = "a git repository (this folder is its root)"
    else:
        repo = f"inside the git repository at {root}"
    return "\n".join(
        [
            "## Environment",
            f"- Operating system: {system} {release}".rstrip(),
            f"- Shell: {Path(shell).name}",
            f"- Working folder: {cwd}",
            f"- The working folder is {repo}",
        ]
    )
