"""Which paths a search leaves out: the project's `.gitignore` and `.ignore` files, as git reads them.

An `IgnoreStack` is the set of rules in force in one folder of a walk: the rules of that folder
and of each folder above it, deepest last. A path is judged by the deepest folder whose rules say
anything about it (git's precedence: a `!pattern` in a subfolder re-includes what a parent
excluded); inside one folder `.ignore` is read after `.gitignore`, so its lines win, as ripgrep
has it. Patterns are matched with `pathspec`'s git semantics (`GitIgnoreSpec`), each against
the path relative to the folder of its file; a folder is judged with a trailing "/" so that
`build/` patterns apply to it, and the walk does not enter an ignored folder — as git, nothing
below it can be re-included.

A search that starts below the top of a git repository also obeys the ignore files of the folders
above it, up to the repository root, and the root's `.git/info/exclude`; when those rules exclude
the searched folder itself, they are dropped — the user asked for that folder by name. The rule
files of the walked folders are opened from their folder's descriptor without following a link
(`safe_open.open_file_at`); every rule file is read only when it is a regular file of at most
`MAX_IGNORE_FILE_BYTES`. Unreadable or odd rule files are passed over, never an error.
`pathspec` is imported when a search first meets a rule file, not at start-up.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.core.tools.safe_open import open_file_at
from hermes_tui.store.regular_files import read_regular_bytes

IGNORE_FILE_NAMES = (".gitignore", ".ignore")  # in this order: .ignore's lines come last and win
MAX_IGNORE_FILE_BYTES = 256 * 1024

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec


@dataclass(frozen=True)
class FolderRules:
    """The patterns of one folder's ignore files; `base` is that folder relative to the stack's top ("" or "a/b/")."""

    base: str
    spec: GitIgnoreSpec


def _spec(chunks: list[bytes]) -> GitIgnoreSpec | None:
    lines = [line for chunk in chunks for line in chunk.decode("utf-8", "replace").splitlines()]
    if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
        return None
    from pathspec import GitIgnoreSpec  # imported once a search meets a rule file (it costs ~30 ms)

    return GitIgnoreSpec.from_lines(lines)


def _read_at(folder_fd: int, name: str) -> bytes:
    """The ignore file `name` in the open folder, or b"" (missing, a link, not regular, too big, unreadable)."""
    try:
        opened = open_file_at(folder_fd, name, name)
    except OSError:
        return b""
    try:
        if opened.size > MAX_IGNORE_FILE_BYTES:
            return b""
        return os.read(opened.fd, MAX_IGNORE_FILE_BYTES + 1)[:MAX_IGNORE_FILE_BYTES]
    except OSError:
        return b""
    finally:
        os.close(opened.fd)


def _read_path(path: Path) -> bytes:
    try:
        return read_regular_bytes(path, limit=MAX_IGNORE_FILE_BYTES)
    except OSError:
        return b""


class IgnoreStack:
    """The rules in force in one folder of a walk (immutable: entering a folder makes a new stack)."""

    def __init__(self, rules: tuple[FolderRules, ...] = (), lead: str = "") -> None:
        self.rules = rules
        self.lead = lead  # the walk's root relative to the stack's top ("" or "src/")

    def entered(self, folder_fd: int, relative_dir: str) -> IgnoreStack:
        """The stack for the folder `relative_dir` (relative to the walk's root, "" or ending in "/"),
        its own ignore files read from its open descriptor."""
        spec = _spec([_read_at(folder_fd, name) for name in IGNORE_FILE_NAMES])
        if spec is None:
            return self
        return IgnoreStack((*self.rules, FolderRules(self.lead + relative_dir, spec)), self.lead)

    def ignored(self, relative: str, is_dir: bool) -> bool:
        """Whether the path `relative` (to the walk's root) is excluded by the deepest rules that name it."""
        if not self.rules:
            return False
        path = self.lead + relative + ("/" if is_dir else "")
        for rules in reversed(self.rules):
            if not path.startswith(rules.base):
                continue
            verdict = rules.spec.check_file(path[len(rules.base) :]).include
            if verdict is not None:
                return verdict
        return False


def _repository_root(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def rules_above(root: Path) -> IgnoreStack:
    """The stack a walk of `root` starts from: the ignore files of the folders above it up to its git
    repository's root, and that root's .git/info/exclude (nothing outside a repository)."""
    top = _repository_root(root)
    if top is None:
        return IgnoreStack()
    lead = root.relative_to(top).as_posix() + "/" if root != top else ""
    rules: list[FolderRules] = []
    exclude = _spec([_read_path(top / ".git" / "info" / "exclude")])
    if exclude is not None:
        rules.append(FolderRules("", exclude))
    folder, base = top, ""
    for part in root.relative_to(top).parts:
        spec = _spec([_read_path(folder / name) for name in IGNORE_FILE_NAMES])
        if spec is not None:
            rules.append(FolderRules(base, spec))
        folder, base = folder / part, f"{base}{part}/"
    if lead and IgnoreStack(tuple(rules)).ignored(lead[:-1], is_dir=True):
        return IgnoreStack((), lead)  # the searched folder is itself ignored: it was asked for by name
    return IgnoreStack(tuple(rules), lead)
