"""Bad input for the file tools: each is one clear error line for the model, never a hang or a traceback."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.files import WriteFileTool
from tests.tools.helpers import RecordingApprover, make_context, run_unprivileged


async def call(ctx: ToolContext, tool: str, **args: object) -> ToolResult:
    """Through the registry, as the model's call would go; a hang fails the test instead of the run."""
    return await asyncio.wait_for(default_registry().dispatch(tool, json.dumps(args), ctx), 10)


def assert_one_line_error(result: ToolResult, *fragments: str) -> None:
    assert result.is_error, result.content
    assert result.content.startswith("Error: ") and "\n" not in result.content
    assert "Traceback" not in result.content
    for fragment in fragments:
        assert fragment in result.content, result.content


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return make_context(tmp_path, approve=RecordingApprover(answer=True))


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "app.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    try:
        yield path
    finally:
        server.close()


# --------------------------------------------------------------------------- things that are not files


async def test_a_fifo_is_refused_by_every_tool_without_blocking(tmp_path: Path, ctx: ToolContext) -> None:
    os.mkfifo(tmp_path / "pipe")  # opening it for reading or writing would wait for the other end
    assert_one_line_error(await call(ctx, "read_file", path="pipe"), "is not a regular file", "fifo")
    assert_one_line_error(await call(ctx, "write_file", path="pipe", content="x"), "is a fifo, not a regular file")
    assert_one_line_error(await call(ctx, "search_files", pattern="x", path="pipe"), "not a regular file or folder")
    assert stat.S_ISFIFO((tmp_path / "pipe").stat().st_mode)


async def test_a_fifo_inside_a_searched_folder_is_passed_over(tmp_path: Path, ctx: ToolContext) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "text.txt").write_text("needle\n")
    result = json.loads((await call(ctx, "search_files", pattern="needle")).content)
    assert [match["path"] for match in result["matches"]] == ["text.txt"]


async def test_a_socket_is_refused(ctx: ToolContext, unix_socket: Path) -> None:
    assert_one_line_error(await call(ctx, "read_file", path=unix_socket.name), "is not a regular file", "socket")
    result = await call(ctx, "write_file", path=unix_socket.name, content="x")
    assert_one_line_error(result, "is a socket, not a regular file")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
async def test_devices_are_refused_directly_and_through_a_link(tmp_path: Path, ctx: ToolContext, device: str) -> None:
    (tmp_path / "dev-link").symlink_to(device)
    for path in (device, "dev-link"):
        assert_one_line_error(await call(ctx, "read_file", path=path), f"{device} is under /dev", "terminal tool")
        assert_one_line_error(await call(ctx, "write_file", path=path, content="x"), f"{device} is under /dev")
    assert stat.S_ISCHR(os.stat(device).st_mode)  # not replaced by a regular file
    assert ctx.approve.requests == []  # refused before anyone is asked


@pytest.mark.parametrize("path", ["/proc/kmsg", "/proc/self/environ", "/sys/kernel/notes", "/proc"])
async def test_the_kernels_live_files_are_refused_at_once(ctx: ToolContext, path: str) -> None:
    system_root = "/" + path.split("/")[1]
    assert_one_line_error(await call(ctx, "read_file", path=path), f"is under {system_root}", "never touch")
    assert_one_line_error(await call(ctx, "search_files", pattern="x", path=path), "the kernel's live files")


async def test_a_directory_given_as_a_file(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "docs").mkdir()
    assert_one_line_error(await call(ctx, "read_file", path="docs"), "is a directory, not a file")
    assert_one_line_error(await call(ctx, "write_file", path="docs", content="x"), "is a directory")
    assert list((tmp_path / "docs").iterdir()) == []


# --------------------------------------------------------------------------- contents


async def test_a_binary_file_is_refused_and_skipped_by_search(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "blob.bin").write_bytes(b"needle\x00\x01\x02" * 100)
    assert_one_line_error(await call(ctx, "read_file", path="blob.bin"), "looks like a binary file (900 bytes)")
    result = json.loads((await call(ctx, "search_files", pattern="needle")).content)
    assert result["total_count"] == 0


async def test_invalid_utf8_is_replaced_visibly_by_read_and_search(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "mixed.txt").write_bytes(b"good line\nneedle \xff\xfe bad\n")
    read = await call(ctx, "read_file", path="mixed.txt")
    assert not read.is_error and "     2|needle \ufffd\ufffd bad" in read.content
    match = json.loads((await call(ctx, "search_files", pattern="needle")).content)["matches"][0]
    assert match == {"path": "mixed.txt", "line": 2, "text": "needle \ufffd\ufffd bad"}


async def test_a_huge_file_is_read_in_part_and_skipped_by_search(tmp_path: Path, ctx: ToolContext) -> None:
    line = "0123456789" * 9 + "needle\n"
    with (tmp_path / "huge.log").open("w") as handle:
        handle.write(line * 120_000)  # about 11.6 MB: over the search's 10 MB file cap
    result = await call(ctx, "read_file", path="huge.log")
    assert not result.is_error
    assert result.content.endswith("Read on with offset=2640.]")
    assert "larger than the read limit of 256,000 bytes" in result.content and "of 120,000" in result.content
    found = json.loads((await call(ctx, "search_files", pattern="needle")).content)
    assert found["total_count"] == 0 and "Skipped 1 file(s) over 10 MB" in found["note"]


async def test_content_over_the_write_limit_is_refused(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    result = await WriteFileTool(max_bytes=1000).run({"path": "big.txt", "content": "x" * 1001}, ctx)
    assert_one_line_error(result, "content is 1,001 bytes, over the write limit of 1,000 bytes")
    assert not (tmp_path / "big.txt").exists()


# --------------------------------------------------------------------------- paths


async def test_a_broken_symlink_says_where_it_points(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "dangling").symlink_to(tmp_path / "gone.txt")
    result = await call(ctx, "read_file", path="dangling")
    assert_one_line_error(result, f"file not found: {tmp_path / 'gone.txt'}", "through a symbolic link")
    written = await call(ctx, "write_file", path="dangling", content="now here")
    assert not written.is_error and (tmp_path / "gone.txt").read_text() == "now here"
    assert (tmp_path / "dangling").is_symlink()


async def test_a_symlink_loop_is_a_clear_error(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert_one_line_error(await call(ctx, "read_file", path="a"), "cannot read", "symbolic links")
    assert_one_line_error(await call(ctx, "write_file", path="a", content="x"), "cannot write", "symbolic links")


@pytest.mark.parametrize("tool", ["read_file", "write_file", "search_files"])
async def test_a_nul_byte_in_the_path_is_a_clear_error(ctx: ToolContext, tool: str) -> None:
    args: dict[str, object] = {"path": "notes\u0000.txt"}
    args |= {"content": "x"} if tool == "write_file" else {"pattern": "x"} if tool == "search_files" else {}
    result = await call(ctx, tool, **args)
    assert_one_line_error(result, "notes\\x00.txt contains a NUL byte")
    assert ctx.approve.requests == []


async def test_a_lone_surrogate_in_the_path_is_a_clear_error(ctx: ToolContext) -> None:
    result = await default_registry().dispatch("read_file", '{"path": "bad\\ud800.txt"}', ctx)
    assert_one_line_error(result, "bad\\ud800.txt contains \\ud800, a lone surrogate")


async def test_a_path_too_long_is_a_clear_error(ctx: ToolContext) -> None:
    result = await call(ctx, "read_file", path="x" * 5000)
    assert_one_line_error(result, "File name too long")


def test_permission_denied_on_a_folder_on_the_path_is_a_clear_error() -> None:
    folder = Path(tempfile.mkdtemp(prefix="hermes-policy-perm-"))
    locked = folder / "locked"
    try:
        folder.chmod(0o755)
        locked.mkdir()
        (locked / "inner.txt").write_text("hidden\n")
        locked.chmod(0o700)

        def attempt() -> list[list[object]]:
            ctx = make_context(folder)
            results = [
                asyncio.run(call(ctx, "read_file", path="locked/inner.txt")),
                asyncio.run(call(ctx, "write_file", path="locked/new.txt", content="x")),
                asyncio.run(call(ctx, "search_files", pattern="hidden")),
            ]
            return [[result.is_error, result.content] for result in results]

        read, write, search = run_unprivileged(attempt)
        assert read == [True, f"Error: cannot read {locked / 'inner.txt'}: Permission denied"]
        assert write[0] and write[1].startswith("Error: ") and "Permission denied" in write[1]
        assert search[0] is False and json.loads(search[1])["total_count"] == 0  # passed over, not fatal
        assert not (locked / "new.txt").exists()
    finally:
        locked.chmod(0o755)
        (locked / "inner.txt").unlink()
        locked.rmdir()
        folder.rmdir()
