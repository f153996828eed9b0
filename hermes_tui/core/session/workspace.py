"""The working folder's git identity, recorded on a new session row (schema v21's `git_branch` and
`git_repo_root`, which Hermes's session lists group by).

Read from the repository's own files — `.git/HEAD`, or the `gitdir:` a worktree's `.git` file
points to — never by running git, so creating a session costs a few small reads. Outside a
repository, on a detached HEAD or on any read error the value is None (left as Hermes's default).
"""

from __future__ import annotations

from pathlib import Path

from hermes_tui.core.prompt_context import git_root
from hermes_tui.store.regular_files import read_regular_text

_HEAD_LIMIT = 4096
_BRANCH_REF = "ref: refs/heads/"


def _git_dir(root: Path) -> Path | None:
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        pointer = read_regular_text(dot_git, limit=_HEAD_LIMIT).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not pointer.startswith("gitdir:"):
        return None
    target = Path(pointer[len("gitdir:") :].strip())
    return target if target.is_absolute() else (root / target)


def git_identity(cwd: Path) -> tuple[str | None, str | None]:
    """(branch, repository root) of `cwd`; (None, None) outside a repository."""
    root = git_root(cwd)
    if root is None:
        return None, None
    try:
        repo_root = str(root.resolve())
    except OSError:
        repo_root = str(root)
    git_dir = _git_dir(root)
    if git_dir is None:
        return None, repo_root
    try:
        head = read_regular_text(git_dir / "HEAD", limit=_HEAD_LIMIT).strip()
    except (OSError, UnicodeDecodeError):
        return None, repo_root
    branch = head[len(_BRANCH_REF) :].strip() if head.startswith(_BRANCH_REF) else None
    return branch or None, repo_root
