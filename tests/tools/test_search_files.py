"""search_files on a real folder tree: content and name search, skips, caps and the JSON contract."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.files import SearchFilesTool
from tests.tools.helpers import make_context


async def search(ctx: ToolContext, pattern: str, **extra: Any) -> ToolResult:
    return await SearchFilesTool().run({"pattern": pattern, **extra}, ctx)


async def search_json(ctx: ToolContext, pattern: str, **extra: Any) -> dict[str, Any]:
    result = await search(ctx, pattern, **extra)
    assert not result.is_error, result.content
    return json.loads(result.content)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    files = {
        "README.md": "# Demo\nUse the frobnicate helper.\n",
        "src/app.py": "import os\n\ndef frobnicate(x):\n    return x * 2\n",
        "src/util.py": "def helper():\n    return frobnicate(3)\n",
        "src/deep/nested/mod.py": "FROBNICATE = True\n",
        "tests/test_app.py": "from src.app import frobnicate\n",
        "notes.txt": "nothing here\n",
        ".git/config": "frobnicate in git internals\n",
        ".venv/lib/site.py": "frobnicate in the venv\n",
        "node_modules/pkg/index.js": "frobnicate in node_modules\n",
        "src/__pycache__/app.cpython-311.pyc": "frobnicate cached\n",
    }
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "logo.bin").write_bytes(b"\x00\x01frobnicate\x00")
    return tmp_path


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    return make_context(project)


async def test_content_search_finds_lines_with_paths_and_line_numbers(ctx: ToolContext) -> None:
    result = await search_json(ctx, r"def \w+\(")
    assert result["total_count"] == 2
    assert result["matches"] == [
        {"path": "src/app.py", "line": 3, "text": "def frobnicate(x):"},
        {"path": "src/util.py", "line": 1, "text": "def helper():"},
    ]
    assert result["truncated"] is False


async def test_vcs_virtualenv_cache_folders_and_binaries_are_skipped(ctx: ToolContext) -> None:
    result = await search_json(ctx, "frobnicate")
    paths = sorted({match["path"] for match in result["matches"]})
    assert paths == ["README.md", "src/app.py", "src/util.py", "tests/test_app.py"]
    assert result["total_count"] == 4


async def test_case_is_significant_unless_the_regex_says_otherwise(ctx: ToolContext) -> None:
    assert (await search_json(ctx, "FROBNICATE"))["total_count"] == 1
    assert (await search_json(ctx, "(?i)FROBNICATE"))["total_count"] == 5


async def test_file_glob_narrows_the_files_searched(ctx: ToolContext) -> None:
    result = await search_json(ctx, "frobnicate", file_glob="test_*.py")
    assert [match["path"] for match in result["matches"]] == ["tests/test_app.py"]
    by_path = await search_json(ctx, "(?i)frobnicate", file_glob="src/*.py")
    assert {match["path"] for match in by_path["matches"]} == {
        "src/app.py",
        "src/util.py",
        "src/deep/nested/mod.py",
    }


async def test_an_invalid_regex_is_searched_as_literal_text_with_a_note(project: Path, ctx: ToolContext) -> None:
    (project / "calls.py").write_text("see [unclosed bracket\n")
    result = await search_json(ctx, "[unclosed")
    assert result["matches"] == [{"path": "calls.py", "line": 1, "text": "see [unclosed bracket"}]
    assert "Invalid regex" in result["note"] and "literal" in result["note"]


async def test_limit_caps_matches_but_total_count_counts_them_all(project: Path, ctx: ToolContext) -> None:
    (project / "many.txt").write_text("".join(f"needle {n}\n" for n in range(120)))
    result = await search_json(ctx, "needle", limit=10)
    assert result["total_count"] == 120
    assert [match["line"] for match in result["matches"]] == list(range(1, 11))
    assert result["truncated"] is True
    assert "Showing 10 of 120" in result["note"]


async def test_the_default_limit_is_fifty(project: Path, ctx: ToolContext) -> None:
    (project / "many.txt").write_text("needle\n" * 80)
    result = await search_json(ctx, "needle")
    assert len(result["matches"]) == 50 and result["total_count"] == 80


async def test_total_count_is_in_the_form_the_compressor_parses(ctx: ToolContext) -> None:
    raw = (await search(ctx, "frobnicate")).content
    assert re.search(r'"total_count": (\d+)', raw).group(1) == "4"


async def test_line_numbers_agree_with_read_file(project: Path, ctx: ToolContext) -> None:
    (project / "crlf.txt").write_bytes(b"one\r\ntwo\x0cpage\r\nthree target\r\n")
    match = (await search_json(ctx, "target$"))["matches"][0]
    assert match == {"path": "crlf.txt", "line": 3, "text": "three target"}
    read = await default_registry().dispatch("read_file", json.dumps({"path": "crlf.txt", "offset": 3}), ctx)
    assert read.content == "     3|three target"


async def test_long_matching_lines_are_shortened(project: Path, ctx: ToolContext) -> None:
    (project / "wide.csv").write_text("needle," + "x" * 5000 + "\n")
    match = (await search_json(ctx, "needle"))["matches"][0]
    assert match["text"].startswith("needle,") and len(match["text"]) == 300


async def test_path_limits_the_search_to_a_folder_or_one_file(ctx: ToolContext) -> None:
    in_tests = await search_json(ctx, "frobnicate", path="tests")
    assert [match["path"] for match in in_tests["matches"]] == ["tests/test_app.py"]
    one_file = await search_json(ctx, "frobnicate", path="README.md")
    assert [match["path"] for match in one_file["matches"]] == ["README.md"]


async def test_results_outside_the_working_folder_have_absolute_paths(project: Path, tmp_path: Path) -> None:
    elsewhere = make_context(project / "tests", allow_paths=[str(project / "src")])
    result = await search_json(elsewhere, "frobnicate", path=str(project / "src"))
    assert {match["path"] for match in result["matches"]} == {
        str(project / "src" / "app.py"),
        str(project / "src" / "util.py"),
    }


async def test_file_name_search_lists_matching_files_sorted(ctx: ToolContext) -> None:
    result = await search_json(ctx, "*.py", target="files")
    assert result["files"] == ["src/app.py", "src/deep/nested/mod.py", "src/util.py", "tests/test_app.py"]
    assert result["total_count"] == 4


async def test_file_name_search_with_a_slash_matches_the_path(ctx: ToolContext) -> None:
    result = await search_json(ctx, "src/deep/*", target="files")
    assert result["files"] == ["src/deep/nested/mod.py"]


async def test_file_name_search_respects_limit_and_file_glob(ctx: ToolContext) -> None:
    limited = await search_json(ctx, "*", target="files", limit=2)
    assert len(limited["files"]) == 2 and limited["total_count"] > 2 and limited["truncated"]
    globbed = await search_json(ctx, "*", target="files", file_glob="*.md")
    assert globbed["files"] == ["README.md"]


async def test_a_missing_path_is_an_error_result(ctx: ToolContext) -> None:
    result = await search(ctx, "x", path="no/such/folder")
    assert result.is_error and "path not found" in result.content


async def test_an_empty_content_pattern_is_an_error_result(ctx: ToolContext) -> None:
    result = await search(ctx, "")
    assert result.is_error and "pattern must not be empty" in result.content


async def test_dispatch_rejects_an_unknown_target(ctx: ToolContext) -> None:
    result = await default_registry().dispatch("search_files", '{"pattern": "x", "target": "symbols"}', ctx)
    assert result.is_error and "must be one of content, files" in result.content


async def test_a_few_thousand_files_are_searched_completely(tmp_path: Path) -> None:
    for package in range(40):
        folder = tmp_path / f"pkg{package}"
        folder.mkdir()
        for module in range(50):
            marker = "NEEDLE" if (package * 50 + module) % 97 == 0 else "hay"
            (folder / f"m{module}.py").write_text(f"x = 1\n# {marker}\n" * 20)
    result = await search_json(make_context(tmp_path), "NEEDLE", limit=500)
    assert result["files_searched"] == 2000
    assert result["total_count"] == 21 * 20


async def test_a_running_search_can_be_interrupted(tmp_path: Path) -> None:
    for index in range(400):
        (tmp_path / f"f{index:03d}.txt").write_text("needle\n")
    task = asyncio.create_task(search(make_context(tmp_path), "needle"))
    await asyncio.sleep(0)  # let the search start walking; it yields to the loop as it goes
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
