"""write_file on real files: parent folders, atomic replacement, permissions and refusals."""

from __future__ import annotations

import asyncio
import os
import stat
import tempfile
from pathlib import Path

import pytest

from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.files import WriteFileTool
from tests.tools.helpers import make_context, run_unprivileged


async def write(ctx: ToolContext, path: str, content: str) -> ToolResult:
    return await WriteFileTool().run({"path": path, "content": content}, ctx)


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path)


async def test_creates_the_file_and_its_missing_folders(tmp_path: Path, ctx: ToolContext) -> None:
    source = "import os\n\nprint(os.sep)\n"
    result = await write(ctx, "src/pkg/module.py", source)
    target = tmp_path / "src" / "pkg" / "module.py"
    assert not result.is_error
    assert target.read_text() == source
    assert result.content == f"Created {target}: wrote {len(source.encode())} bytes (3 lines)"


async def test_reports_bytes_not_characters_and_counts_a_last_line_without_newline(
    tmp_path: Path, ctx: ToolContext
) -> None:
    result = await write(ctx, "greeting.txt", "héllo\nwörld")
    assert result.content.endswith("wrote 13 bytes (2 lines)")
    assert (tmp_path / "greeting.txt").read_bytes() == "héllo\nwörld".encode()


async def test_overwriting_replaces_content_and_keeps_permissions(tmp_path: Path, ctx: ToolContext) -> None:
    script = tmp_path / "run.sh"
    script.write_text("echo old\n" * 50)
    script.chmod(0o750)
    result = await write(ctx, "run.sh", "echo new\n")
    assert result.content.startswith(f"Overwrote {script}")
    assert script.read_text() == "echo new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


async def test_new_files_get_the_usual_umask_mode(tmp_path: Path, ctx: ToolContext) -> None:
    await write(ctx, "plain.txt", "x")
    assert stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode) == 0o666 & ~current_umask()


async def test_no_temporary_files_are_left_behind(tmp_path: Path, ctx: ToolContext) -> None:
    for round_number in range(3):
        await write(ctx, "data.json", f'{{"round": {round_number}}}')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.json"]
    assert (tmp_path / "data.json").read_text() == '{"round": 2}'


async def test_writing_through_a_symlink_updates_the_real_file(tmp_path: Path, ctx: ToolContext) -> None:
    real = tmp_path / "real.cfg"
    real.write_text("old")
    (tmp_path / "link.cfg").symlink_to(real)
    await write(ctx, "link.cfg", "new")
    assert (tmp_path / "link.cfg").is_symlink()
    assert real.read_text() == "new"


async def test_empty_content_makes_an_empty_file(tmp_path: Path, ctx: ToolContext) -> None:
    result = await write(ctx, "blank.txt", "")
    assert (tmp_path / "blank.txt").read_bytes() == b""
    assert result.content.endswith("wrote 0 bytes (0 lines)")


@pytest.mark.parametrize("path", ["", "   "])
async def test_an_empty_path_is_refused(ctx: ToolContext, path: str) -> None:
    result = await write(ctx, path, "x")
    assert result.is_error and "path must not be empty" in result.content


async def test_a_directory_is_refused(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "docs").mkdir()
    for path in ("docs", "docs/", "newdir/"):
        result = await write(ctx, path, "x")
        assert result.is_error and "is a directory" in result.content
    assert list((tmp_path / "docs").iterdir()) == []
    assert not (tmp_path / "newdir").exists()


async def test_a_file_in_the_way_of_a_folder_is_a_clear_error(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "notes").write_text("I am a file")
    result = await write(ctx, "notes/today.md", "x")
    assert result.is_error and "a file is in the way" in result.content
    assert (tmp_path / "notes").read_text() == "I am a file"


async def test_text_that_is_not_encodable_is_refused_and_nothing_is_written(tmp_path: Path, ctx: ToolContext) -> None:
    result = await write(ctx, "bad.txt", "lone surrogate \ud800 here")
    assert result.is_error and "UTF-8" in result.content
    assert not (tmp_path / "bad.txt").exists()


def test_permission_denied_is_an_error_result_and_leaves_no_trace() -> None:
    folder = Path(tempfile.mkdtemp(prefix="hermes-write-perm-"))
    try:
        folder.chmod(0o555)

        def attempt() -> list[object]:
            result = asyncio.run(write(make_context(folder), "out.txt", "data"))
            return [result.is_error, result.content]

        is_error, content = run_unprivileged(attempt)
        assert is_error
        assert content == f"Error: permission denied: {folder / 'out.txt'}"
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)
        for leftover in folder.iterdir():
            leftover.unlink()
        folder.rmdir()


async def test_missing_content_is_rejected_by_dispatch(tmp_path: Path, ctx: ToolContext) -> None:
    result = await default_registry().dispatch("write_file", '{"path": "a.txt"}', ctx)
    assert result.is_error and "missing required parameter 'content'" in result.content
    assert not (tmp_path / "a.txt").exists()


async def test_what_write_file_writes_read_file_reads_back(tmp_path: Path, ctx: ToolContext) -> None:
    registry = default_registry()
    await registry.dispatch("write_file", '{"path": "poem.txt", "content": "roses\\nviolets\\n"}', ctx)
    result = await registry.dispatch("read_file", '{"path": "poem.txt"}', ctx)
    assert result.content == "     1|roses\n     2|violets"
