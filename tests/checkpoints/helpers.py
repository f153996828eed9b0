"""Helpers for the checkpoint tests: a project folder with the user's own git repository, the
state of a folder as hashes and modes, a fingerprint of the user's repository, scripted tool calls."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
from pathlib import Path

USER_GIT = ["git", "-c", "user.name=Test User", "-c", "user.email=user@example.invalid", "-c", "commit.gpgSign=false"]


def git_env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}


def user_git(folder: Path, *args: str) -> str:
    """Run the user's own git in `folder` (never writing the index as a side effect)."""
    result = subprocess.run(
        [*USER_GIT, "--no-optional-locks", *args],
        cwd=folder,
        env=git_env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return result.stdout


def make_project(root: Path) -> Path:
    """A small project under the user's own git, with an ignored folder and an executable script."""
    folder = root / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "tools").mkdir()
    (folder / "ignored").mkdir()
    (folder / "README.md").write_text("# Widget\n\nCounts things.\n", encoding="utf-8")
    (folder / "src" / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    script = folder / "tools" / "run.sh"
    script.write_text("#!/bin/sh\necho run\n", encoding="utf-8")
    script.chmod(0o755)
    (folder / ".gitignore").write_text("ignored/\n*.tmp\n", encoding="utf-8")
    (folder / "ignored" / "cache.txt").write_text("cache v1\n", encoding="utf-8")
    subprocess.run([*USER_GIT, "init", "-q", "."], cwd=folder, env=git_env(), check=True, timeout=60)
    user_git(folder, "add", "-A")
    user_git(folder, "commit", "-q", "-m", "initial")
    return folder


def folder_state(folder: Path, *, skip: tuple[str, ...] = (".git",)) -> dict[str, tuple[str, bool]]:
    """Every file below `folder` (top-level names in `skip` left out): relative path -> (sha256, executable)."""
    state: dict[str, tuple[str, bool]] = {}
    for root, dirs, files in os.walk(folder):
        if Path(root) == folder:
            dirs[:] = [d for d in dirs if d not in skip]
        for name in files:
            path = Path(root) / name
            rel = str(path.relative_to(folder))
            if rel.split(os.sep)[0] in skip:
                continue
            executable = bool(path.lstat().st_mode & stat.S_IXUSR)
            state[rel] = (hashlib.sha256(path.read_bytes()).hexdigest(), executable)
    return state


def repo_fingerprint(folder: Path) -> dict[str, object]:
    """What must never change in the user's repository: HEAD, refs, the index bytes, the files in .git."""
    dot_git = folder / ".git"
    files = sorted(str(p.relative_to(dot_git)) for p in dot_git.rglob("*") if p.is_file())
    return {
        "head": user_git(folder, "rev-parse", "HEAD").strip(),
        "refs": user_git(folder, "for-each-ref"),
        "index": hashlib.sha256((dot_git / "index").read_bytes()).hexdigest(),
        "files": files,
    }


def write_call(call_id: str, path: str, content: str) -> tuple[str, str, str]:
    return (call_id, "write_file", json.dumps({"path": path, "content": content}))


def terminal_call(call_id: str, command: str) -> tuple[str, str, str]:
    return (call_id, "terminal", json.dumps({"command": command}))


def store_paths(home: Path, tree: str) -> list[str]:
    """The file paths of a tree in the shadow store (read with git plumbing, as a user could)."""
    env = git_env() | {"GIT_DIR": str(home / "checkpoints" / "store")}
    result = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", "-z", tree],
        env=env,
        capture_output=True,
        check=True,
        timeout=60,
    )
    return [p for p in result.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
