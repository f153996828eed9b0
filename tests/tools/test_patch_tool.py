"""The patch tool through the real registry: replace and V4A modes, its errors, and the same gate as write_file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.core.tools.base import ApprovalRequest, ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.file_policy import OUTSIDE
from tests.tools.helpers import RecordingApprover, make_context

APP = "def main():\n    print('hello')\n    return 0\n\n\ndef helper(x):\n    return x * 2\n"


async def patch(ctx: ToolContext, **args: Any) -> ToolResult:
    return await default_registry().dispatch("patch", json.dumps({"mode": "replace", **args}), ctx)


def body(result: ToolResult) -> dict[str, Any]:
    return json.loads(result.content)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "app.py").write_text(APP)
    return folder


async def test_an_exact_edit_is_written_and_answered_with_hermes_result_and_the_diff(project: Path) -> None:
    result = await patch(make_context(project), path="app.py", old_string="print('hello')", new_string="print('hi')")
    assert not result.is_error
    assert (project / "app.py").read_text() == APP.replace("print('hello')", "print('hi')")
    data = body(result)
    assert data["success"] is True
    assert data["files_modified"] == [str(project / "app.py")] and data["resolved_path"] == str(project / "app.py")
    assert "-    print('hello')\n+    print('hi')\n" in data["diff"]
    [change] = result.changes
    assert change.summary == "app.py +1 −1" and change.unified == data["diff"]


async def test_a_quote_with_the_wrong_indentation_still_edits_the_right_lines(project: Path) -> None:
    result = await patch(
        make_context(project),
        path="app.py",
        old_string="print('hello')\nreturn 0",  # quoted without the function body's indentation
        new_string="print('hi')\nreturn 1",
    )
    assert not result.is_error, result.content
    assert (project / "app.py").read_text().startswith("def main():\n    print('hi')\n    return 1\n")


async def test_not_found_is_an_error_with_the_closest_lines_and_nothing_changes(project: Path) -> None:
    result = await patch(
        make_context(project), path="app.py", old_string="def helper(y):\n    return y", new_string="x"
    )
    assert result.is_error
    error = body(result)["error"]
    assert error.startswith("Could not find a match for old_string in the file")
    assert "Did you mean one of these sections?" in error and "   6| def helper(x):" in error
    assert (project / "app.py").read_text() == APP


async def test_not_unique_is_an_error_naming_the_count_and_replace_all_does_them_all(project: Path) -> None:
    ctx = make_context(project)
    refused = await patch(ctx, path="app.py", old_string="return", new_string="yield")
    assert refused.is_error and body(refused)["error"].startswith("Found 2 matches for old_string")
    assert (project / "app.py").read_text() == APP
    done = await patch(ctx, path="app.py", old_string="return", new_string="yield", replace_all=True)
    assert not done.is_error and (project / "app.py").read_text().count("yield") == 2
    assert done.changes[0].summary == "app.py +2 −2"


async def test_a_binary_file_is_refused_untouched(project: Path) -> None:
    blob = b"\x89PNG\r\n\x1a\n\0\0\0IHDR"
    (project / "logo.png").write_bytes(blob)
    result = await patch(make_context(project), path="logo.png", old_string="IHDR", new_string="IHDX")
    assert result.is_error and "binary file" in body(result)["error"]
    assert (project / "logo.png").read_bytes() == blob


async def test_a_missing_file_and_missing_arguments_are_clear_errors(project: Path) -> None:
    ctx = make_context(project)
    missing = await patch(ctx, path="nope.py", old_string="a", new_string="b")
    assert body(missing)["error"] == f"file not found: {project / 'nope.py'}"
    assert body(await patch(ctx, old_string="a", new_string="b"))["error"] == "path required"
    assert body(await patch(ctx, path="app.py", old_string="a"))["error"] == "old_string and new_string required"


async def test_crlf_line_ends_and_a_byte_order_mark_survive_an_edit(project: Path) -> None:
    (project / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    result = await patch(make_context(project), path="win.txt", old_string="one\ntwo", new_string="one\n2")
    assert not result.is_error, result.content
    assert (project / "win.txt").read_bytes() == b"\xef\xbb\xbfone\r\n2\r\nthree\r\n"


# --------------------------------------------------------------------------- the gate: outside the folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "conf.ini").write_text("[db]\npassword = hunter2\n")
    return folder


async def test_an_edit_outside_the_folder_asks_with_the_diff_it_would_make(project: Path, outside: Path) -> None:
    approver = RecordingApprover(answer=True)
    target = outside / "conf.ini"
    result = await patch(make_context(project, approver), path=str(target), old_string="[db]", new_string="[database]")
    assert not result.is_error, result.content
    [request] = approver.requests
    assert request.tool == "patch" and OUTSIDE in request.reasons
    assert request.change is not None and request.change.summary == f"{target} +1 −1"
    assert request.change.unified is not None and "+[database]" in request.change.unified
    assert target.read_text() == "[database]\npassword = hunter2\n"


async def test_a_denied_edit_outside_changes_nothing(project: Path, outside: Path) -> None:
    approver = RecordingApprover(answer=False)
    target = outside / "conf.ini"
    result = await patch(make_context(project, approver), path=str(target), old_string="[db]", new_string="[x]")
    assert result.is_error and "was denied by the user" in body(result)["error"]
    assert target.read_text() == "[db]\npassword = hunter2\n"


@pytest.mark.parametrize("approver", [None, RecordingApprover(answer=False)], ids=["headless", "denied"])
async def test_a_failing_edit_outside_tells_the_model_nothing_of_the_file(
    project: Path, outside: Path, approver: RecordingApprover | None
) -> None:
    """ "Did you mean" would quote the file: without the user's yes the model only hears that it was not allowed."""
    target = outside / "conf.ini"
    result = await patch(
        make_context(project, approver), path=str(target), old_string="password = hunter3", new_string="x"
    )
    assert result.is_error and "hunter2" not in result.content
    assert "needs the user's approval" in result.content or "denied by the user" in result.content


async def test_an_edit_computed_from_content_that_changed_meanwhile_is_not_written(
    project: Path, outside: Path
) -> None:
    target = outside / "conf.ini"

    async def someone_else_writes_while_asked(request: ApprovalRequest) -> bool:
        target.write_text("[db]\npassword = rotated\n")
        return True

    ctx = make_context(project, someone_else_writes_while_asked)
    result = await patch(ctx, path=str(target), old_string="hunter2", new_string="letmein")
    assert result.is_error and "changed after it was read" in body(result)["error"]
    assert target.read_text() == "[db]\npassword = rotated\n"


# --------------------------------------------------------------------------- mode="patch" (V4A)


async def v4a(ctx: ToolContext, text: str) -> ToolResult:
    return await default_registry().dispatch("patch", json.dumps({"mode": "patch", "patch": text}), ctx)


async def test_a_v4a_patch_makes_several_edits_across_files_in_one_call(project: Path) -> None:
    (project / "old.txt").write_text("obsolete\n")
    (project / "a.txt").write_text("moving\n")
    text = (
        "*** Begin Patch\n"
        "*** Update File: app.py\n"
        "@@ def main @@\n"
        " def main():\n"
        "-    print('hello')\n"
        "+    print('hello, world')\n"
        "@@ def helper @@\n"
        " def helper(x):\n"
        "-    return x * 2\n"
        "+    return x * 4\n"
        "*** Add File: docs/notes.md\n"
        "+# Notes\n"
        "+written by the agent\n"
        "*** Delete File: old.txt\n"
        "*** Move File: a.txt -> moved/b.txt\n"
        "*** End Patch"
    )
    result = await v4a(make_context(project), text)
    assert not result.is_error, result.content
    assert (project / "app.py").read_text() == APP.replace("'hello'", "'hello, world'").replace("x * 2", "x * 4")
    assert (project / "docs" / "notes.md").read_text() == "# Notes\nwritten by the agent\n"
    assert not (project / "old.txt").exists() and not (project / "a.txt").exists()
    assert (project / "moved" / "b.txt").read_text() == "moving\n"
    data = body(result)
    assert data["files_modified"] == ["app.py", "a.txt -> moved/b.txt"]
    assert data["files_created"] == ["docs/notes.md"] and data["files_deleted"] == ["old.txt"]
    assert [change.summary for change in result.changes] == [
        "app.py +2 −2",
        "docs/notes.md +2 −0 (new)",
        "old.txt +0 −1 (deleted)",
        "a.txt → moved/b.txt (moved)",
    ]


async def test_a_v4a_patch_with_one_bad_hunk_changes_no_file_at_all(project: Path) -> None:
    text = (
        "*** Begin Patch\n*** Add File: new.txt\n+fresh\n"
        "*** Update File: app.py\n@@\n-    print('goodbye')\n+    print('bye')\n*** End Patch"
    )
    result = await v4a(make_context(project), text)
    assert result.is_error
    error = body(result)["error"]
    assert error.startswith("Patch validation failed (no files were modified):\n  • app.py: hunk 1 not found")
    assert not (project / "new.txt").exists() and (project / "app.py").read_text() == APP


async def test_an_unreadable_v4a_patch_is_a_parse_error(project: Path) -> None:
    result = await v4a(make_context(project), "*** Begin Patch\n*** Update File: app.py\n*** End Patch")
    assert body(result)["error"] == "Failed to parse patch: UPDATE 'app.py': no hunks found"
