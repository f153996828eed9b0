"""search_files leaves out what the project ignores: .gitignore, .ignore, .git/info/exclude and build output."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from hermes_tui.core.tools.files import SearchFilesTool
from tests.tools.helpers import make_context


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


async def found(cwd: Path, pattern: str = "needle", **extra: Any) -> tuple[list[str], dict[str, Any]]:
    """The paths search_files lists for `pattern` (files for target='files', else the matching files)."""
    result = await SearchFilesTool().run({"pattern": pattern, **extra}, make_context(cwd))
    assert not result.is_error, result.content
    data = json.loads(result.content)
    if extra.get("target") == "files":
        return data["files"], data
    return sorted({match["path"] for match in data["matches"]}), data


def git_init(folder: Path) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)


async def test_gitignore_rules_with_negation_and_nested_files_are_honoured(tmp_path: Path) -> None:
    git_init(tmp_path)
    write(
        tmp_path,
        {
            ".gitignore": "# build products\n*.log\ngenerated/\n!keep.log\n/only-at-top.txt\n",
            "src/app.py": "needle\n",
            "src/run.log": "needle\n",
            "src/keep.log": "needle\n",
            "generated/out.py": "needle\n",
            "only-at-top.txt": "needle\n",
            "src/only-at-top.txt": "needle\n",
            "src/vendor/.gitignore": "*.py\n!patched.py\n",
            "src/vendor/lib.py": "needle\n",
            "src/vendor/patched.py": "needle\n",
        },
    )
    paths, data = await found(tmp_path)
    assert paths == ["src/app.py", "src/keep.log", "src/only-at-top.txt", "src/vendor/patched.py"]
    assert "Left out 4 path(s) the project's .gitignore/.ignore exclude" in data["note"]
    names, _ = await found(tmp_path, "*.py", target="files")
    assert names == ["src/app.py", "src/vendor/patched.py"]  # the file-name search obeys the same rules


async def test_build_output_and_caches_are_not_listed_unless_asked_for_by_path(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/mod.py": "needle\n",
            "build/lib/mod.py": "needle\n",
            "dist/pkg-1.0.tar.py": "needle\n",
            "target/debug/main.py": "needle\n",
            ".hypothesis/constants/00443c679f11e371": "needle\n",
            ".venv/lib/site.py": "needle\n",
        },
    )  # no .gitignore and no repository: these folders are left out all the same
    names, _ = await found(tmp_path, "*", target="files")
    assert names == ["pkg/mod.py"]
    inside, _ = await found(tmp_path, path="build")
    assert inside == ["build/lib/mod.py"]


async def test_dot_ignore_works_outside_git_wins_over_gitignore_and_odd_rule_files_are_passed_over(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            ".gitignore": "*.txt\n",
            ".ignore": "!notes.txt\nscratch/\n",
            "notes.txt": "needle\n",
            "todo.txt": "needle\n",
            "scratch/a.md": "needle\n",
            "main.md": "needle\n",
            "fifo/b.md": "needle\n",
            "linked/c.md": "needle\n",
            "elsewhere/rules": "*.md\n",
        },
    )
    os.mkfifo(tmp_path / "fifo" / ".gitignore")  # nobody writes it: reading it must not hold the search
    (tmp_path / "linked" / ".ignore").symlink_to(tmp_path / "elsewhere" / "rules")  # a link is not followed
    paths, _ = await found(tmp_path)
    assert paths == ["fifo/b.md", "linked/c.md", "main.md", "notes.txt"]


async def test_a_search_below_the_repository_root_obeys_the_rules_above_it(tmp_path: Path) -> None:
    git_init(tmp_path)
    write(
        tmp_path,
        {
            ".gitignore": "*.tmp\nfixtures/\n",
            ".git/info/exclude": "private-notes.md\n",
            "app/main.py": "needle\n",
            "app/cache.tmp": "needle\n",
            "app/private-notes.md": "needle\n",
            "app/fixtures/big.py": "needle\n",
        },
    )
    paths, _ = await found(tmp_path / "app")
    assert paths == ["main.py"]
    named, _ = await found(tmp_path, path="app/fixtures")  # an ignored folder given by name is searched
    assert named == ["app/fixtures/big.py"]
