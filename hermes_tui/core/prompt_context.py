"""What the system prompt says about where the agent runs: environment hints and project context files.

`environment_hints(cwd)` — the OS, the shell, the working folder and whether it is inside a git
repository (and which root). `find_context_file(cwd)` — Hermes's rule for project instructions: the
first match, in priority order, of `.hermes.md`/`HERMES.md`, `AGENTS.md`, `CLAUDE.md`, `.cursorrules`,
`.cursor/rules/*` (Markdown rule files), looked for in the working folder and each parent up to the
git root; its text is capped at `CONTEXT_FILE_MAX_CHARS` (head and tail kept, the cut marked).
Both read the file system only; both never raise.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.store.regular_files import read_regular_text

CONTEXT_FILE_NAMES = (".hermes.md", "HERMES.md", "AGENTS.md", "CLAUDE.md", ".cursorrules")
CURSOR_RULES_DIR = (".cursor", "rules")
CONTEXT_FILE_MAX_CHARS = 20_000
TRUNCATION_NOTE = "\n\n[… {cut:,} characters of this file left out …]\n\n"


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
    """`cwd`, then each parent up to and including the git root (only `cwd` outside a repository)."""
    root = git_root(cwd)
    folders = [cwd]
    folder = cwd
    while root is not None and folder != root:
        folder = folder.parent
        folders.append(folder)
    return folders


def _read(path: Path) -> str:
    try:
        return read_regular_text(path, errors="replace")
    except OSError:
        return ""


def cap(text: str, limit: int = CONTEXT_FILE_MAX_CHARS) -> str:
    """`text` within `limit` characters: the head and the tail kept, the middle cut and marked."""
    if len(text) <= limit:
        return text
    head = int(limit * 0.7)
    tail = limit - head
    return text[:head] + TRUNCATION_NOTE.format(cut=len(text) - limit) + text[-tail:]


def _label(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def find_context_file(cwd: Path) -> ContextFile | None:
    """The project's instruction file by Hermes's rules, or None."""
    folders = search_folders(cwd)
    for name in CONTEXT_FILE_NAMES:
        for folder in folders:
            path = folder / name
            if path.is_file():
                text = _read(path).strip()
                if text:
                    return ContextFile(_label(path, cwd), cap(text))
    for folder in folders:
        rules = folder.joinpath(*CURSOR_RULES_DIR)
        if rules.is_dir():
            try:
                files = sorted(p for p in rules.iterdir() if p.is_file() and p.suffix in (".md", ".mdc"))
            except OSError:
                continue
            parts = [f"## {p.name}\n\n{_read(p).strip()}" for p in files if _read(p).strip()]
            if parts:
                return ContextFile(_label(rules, cwd), cap("\n\n".join(parts)))
    return None


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
