"""read_file on real files: numbering, paging, the size cap, and clear refusals."""

from __future__ import annotations

import asyncio
import os
import re
import stat
import tempfile
from pathlib import Path

import pytest

from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.files import MAX_LINE_CHARS, ReadFileTool
from tests.tools.helpers import make_context, run_unprivileged


async def read(ctx: ToolContext, path: str, **extra: object) -> ToolResult:
    return await ReadFileTool().run({"path": path, **extra}, ctx)


def numbered(lines: list[str], start: int = 1) -> str:
    return "\n".join(f"{number:>6}|{text}" for number, text in enumerate(lines, start=start))


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path)


async def test_lines_are_numbered_right_aligned_with_a_bar(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "notes.txt").write_text("alpha\n  indented\n\nomega")
    result = await read(ctx, "notes.txt")
    assert not result.is_error
    assert result.content == "     1|alpha\n     2|  indented\n     3|\n     4|omega"


async def test_relative_paths_resolve_against_the_context_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "README").write_text("inside project\n")
    result = await read(make_context(project), "README")
    assert result.content == "     1|inside project"


async def test_absolute_and_home_paths_work(tmp_path: Path, ctx: ToolContext) -> None:
    home = Path(os.environ["HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "todo.md").write_text("from home\n")
    assert (await read(ctx, "~/todo.md")).content == "     1|from home"
    assert (await read(ctx, str(home / "todo.md"))).content == "     1|from home"


async def test_offset_and_limit_page_through_the_file(tmp_path: Path, ctx: ToolContext) -> None:
    lines = [f"line {n}" for n in range(1, 11)]
    (tmp_path / "ten.txt").write_text("\n".join(lines) + "\n")
    result = await read(ctx, "ten.txt", offset=4, limit=3)
    body, note = result.content.split("\n\n")
    assert body == numbered(lines[3:6], start=4)
    assert note == "[Showing lines 4-6 of 10. Read on with offset=7.]"
    tail = await read(ctx, "ten.txt", offset=7)
    assert tail.content == numbered(lines[6:], start=7)  # reaching the end adds no note


async def test_big_files_are_read_in_part_with_a_note_that_pages_to_the_end(tmp_path: Path) -> None:
    lines = [f"{n:04d} " + "x" * 40 for n in range(1, 301)]
    (tmp_path / "big.log").write_text("\n".join(lines) + "\n")
    ctx = make_context(tmp_path, read_max_bytes=2_000)

    seen: list[str] = []
    offset = 1
    for _ in range(100):
        result = await read(ctx, "big.log", offset=offset)
        assert not result.is_error
        assert len(result.content) < 2_000 + 1_000  # the cap holds, numbering and note included
        body, _, note = result.content.partition("\n\n[")
        seen.extend(row.split("|", 1)[1] for row in body.split("\n"))
        if not note:
            break
        assert "larger than the read limit of 2,000 bytes" in note and "of 300" in note
        offset = int(re.search(r"offset=(\d+)", note).group(1))
    assert seen == lines


async def test_a_huge_single_line_is_cut_not_returned_whole(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "min.js").write_text("var a=1;" * 200_000 + "\nsecond\n")
    result = await read(ctx, "min.js")
    first, second = result.content.split("\n")[:2]
    assert first.startswith("     1|var a=1;")
    assert first.endswith(f"[line cut at {MAX_LINE_CHARS:,} chars]")
    assert len(first) < MAX_LINE_CHARS + 100
    assert second == "     2|second"


async def test_windows_line_endings_and_a_bom_are_not_shown(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    assert (await read(ctx, "win.txt")).content == "     1|one\n     2|two"


async def test_utf8_text_is_read_as_text(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "cjk.md").write_text("桂林山水甲天下 🏞\n", encoding="utf-8")
    assert (await read(ctx, "cjk.md")).content == "     1|桂林山水甲天下 🏞"


async def test_empty_file_says_so(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "empty.txt").write_text("")
    result = await read(ctx, "empty.txt")
    assert not result.is_error
    assert "is empty" in result.content


async def test_binary_files_are_refused(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    result = await read(ctx, "image.png")
    assert result.is_error
    assert "binary file" in result.content and "image.png" in result.content


async def test_text_in_another_encoding_is_read_with_visible_replacements(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "latin1.txt").write_bytes("first\ncafé au lait\n".encode("latin-1"))
    result = await read(ctx, "latin1.txt")
    assert not result.is_error
    assert "     2|caf\ufffd au lait" in result.content  # the undecodable byte is replaced, visibly
    assert "not UTF-8 (line 2)" in result.content and "     1|first" in result.content


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ("missing", "Error: file not found: "),
        ("folder", "is a directory, not a file"),
        ("fifo", "is not a regular file"),
    ],
)
async def test_things_that_are_not_readable_files_are_error_results(
    tmp_path: Path, ctx: ToolContext, setup: str, expected: str
) -> None:
    target = tmp_path / "thing"
    if setup == "folder":
        target.mkdir()
    elif setup == "fifo":
        os.mkfifo(target)  # opening a FIFO for reading would block forever
    result = await asyncio.wait_for(read(ctx, "thing"), 10)
    assert result.is_error
    assert expected in result.content


async def test_offset_past_the_end_says_how_long_the_file_is(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "short.txt").write_text("a\nb\nc\n")
    result = await read(ctx, "short.txt", offset=50)
    assert result.is_error
    assert "offset 50 is past the end" in result.content and "(3 lines)" in result.content


@pytest.mark.parametrize(
    ("extra", "expected"),
    [({"offset": 0}, "offset must be 1 or more"), ({"limit": 0}, "limit must be 1 or more")],
)
async def test_bad_paging_values_are_error_results(
    tmp_path: Path, ctx: ToolContext, extra: dict[str, int], expected: str
) -> None:
    (tmp_path / "f.txt").write_text("a\n")
    result = await read(ctx, "f.txt", **extra)
    assert result.is_error and expected in result.content


async def test_empty_path_is_an_error_result(ctx: ToolContext) -> None:
    result = await read(ctx, "  ")
    assert result.is_error and "path must not be empty" in result.content


def test_permission_denied_is_an_error_result() -> None:
    folder = Path(tempfile.mkdtemp(prefix="hermes-read-perm-"))
    try:
        folder.chmod(0o755)
        secret = folder / "secret.txt"
        secret.write_text("top secret\n")
        secret.chmod(0)

        def attempt() -> list[object]:
            result = asyncio.run(read(make_context(folder), "secret.txt"))
            return [result.is_error, result.content]

        is_error, content = run_unprivileged(attempt)
        assert is_error
        assert content == f"Error: permission denied: {secret}"
    finally:
        secret.chmod(stat.S_IRUSR | stat.S_IWUSR)
        secret.unlink()
        folder.rmdir()


async def test_dispatch_through_the_registry_checks_argument_types(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    registry = default_registry()
    paged = await registry.dispatch("read_file", '{"path": "f.txt", "offset": "2", "limit": 1}', ctx)
    assert paged.content.startswith("     2|b")
    wrong = await registry.dispatch("read_file", '{"path": ["f.txt"]}', ctx)
    assert wrong.is_error and "parameter 'path' must be a string" in wrong.content
