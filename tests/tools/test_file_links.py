"""Hard links and symbolic links inside the working folder: what the file tools ask about and what they touch.

A hard link is a second name for the same file, so a name inside the folder may be an outside file
(a secret hard-linked in): a regular file with more than one name is treated as outside. A symbolic
link is followed to see where it really leads: inside is free, outside is asked about.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hermes_tui.core.tools.base import ToolContext, ToolResult
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.file_policy import HARD_LINK, SYMLINK_OUT, hard_link_reason
from tests.tools.helpers import RecordingApprover, make_context


async def call(ctx: ToolContext, tool: str, **args: object) -> ToolResult:
    return await default_registry().dispatch(tool, json.dumps(args), ctx)


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """(project = the working folder, outside = a sibling folder holding secret.txt)."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret\n")
    return project, outside


@pytest.fixture
def hard_linked(layout: tuple[Path, Path]) -> tuple[Path, Path]:
    """project/notes.txt is a second name of outside/secret.txt; (project, outside)."""
    project, outside = layout
    os.link(outside / "secret.txt", project / "notes.txt")
    return project, outside


# --------------------------------------------------------------------------- hard links


async def test_reading_a_hard_link_headless_is_denied_and_returns_nothing(hard_linked: tuple[Path, Path]) -> None:
    project, _ = hard_linked
    result = await call(make_context(project), "read_file", path="notes.txt")
    assert result.is_error and "needs the user's approval" in result.content
    assert hard_link_reason(2) in result.content and "--yes" in result.content
    assert "top secret" not in result.content


async def test_reading_a_hard_link_asks_and_says_why(hard_linked: tuple[Path, Path]) -> None:
    project, _ = hard_linked
    approver = RecordingApprover(answer=False)
    descriptors = len(os.listdir("/proc/self/fd"))
    result = await call(make_context(project, approve=approver), "read_file", path="notes.txt")
    assert result.is_error and "was denied by the user" in result.content
    assert "top secret" not in result.content
    assert len(os.listdir("/proc/self/fd")) == descriptors  # the file opened to be judged is closed again
    [request] = approver.requests
    assert request.command == f"read {project / 'notes.txt'} (11 bytes)"
    assert request.reasons == (f"{HARD_LINK} (2 names)",)


async def test_an_approved_hard_link_is_read(hard_linked: tuple[Path, Path]) -> None:
    project, _ = hard_linked
    approver = RecordingApprover(answer=True)
    result = await call(make_context(project, approve=approver), "read_file", path="notes.txt")
    assert result.content == "     1|top secret"
    assert len(approver.requests) == 1


async def test_a_search_skips_hard_links_and_says_so(hard_linked: tuple[Path, Path]) -> None:
    project, _ = hard_linked
    (project / "plain.txt").write_text("secret plans\n")
    result = json.loads((await call(make_context(project), "search_files", pattern="secret")).content)
    assert [match["path"] for match in result["matches"]] == ["plain.txt"]
    assert "Skipped 1 file(s) with more than one name (hard links" in result["note"]


async def test_writing_a_hard_link_asks_and_a_denial_changes_neither_name(hard_linked: tuple[Path, Path]) -> None:
    project, outside = hard_linked
    approver = RecordingApprover(answer=False)
    result = await call(make_context(project, approve=approver), "write_file", path="notes.txt", content="mine\n")
    assert result.is_error and "was denied by the user" in result.content
    [request] = approver.requests
    assert request.reasons == (hard_link_reason(2),)
    assert (project / "notes.txt").read_text() == (outside / "secret.txt").read_text() == "top secret\n"


async def test_an_approved_write_replaces_only_the_name_inside(hard_linked: tuple[Path, Path]) -> None:
    project, outside = hard_linked
    approver = RecordingApprover(answer=True)
    result = await call(make_context(project, approve=approver), "write_file", path="notes.txt", content="mine\n")
    assert result.content == f"Overwrote {project / 'notes.txt'}: wrote 5 bytes (1 lines)"
    assert approver.requests[0].reasons == (hard_link_reason(2),)
    assert (project / "notes.txt").read_text() == "mine\n"
    assert (outside / "secret.txt").read_text() == "top secret\n"  # the atomic rename made a new file


async def test_a_hard_link_between_two_names_inside_is_asked_about_too(layout: tuple[Path, Path]) -> None:
    """Nothing tells where a file's other names are, so both names inside is no exception."""
    project, _ = layout
    (project / "a.txt").write_text("shared\n")
    os.link(project / "a.txt", project / "b.txt")
    result = await call(make_context(project), "read_file", path="b.txt")
    assert result.is_error and hard_link_reason(2) in result.content


# --------------------------------------------------------------------------- symbolic links


async def test_a_symlinked_folder_inside_pointing_inside_is_free_for_every_tool(layout: tuple[Path, Path]) -> None:
    project, _ = layout
    (project / "real").mkdir()
    (project / "real" / "doc.md").write_text("needle inside\n")
    (project / "alias").symlink_to(project / "real", target_is_directory=True)
    approver = RecordingApprover(answer=False)
    ctx = make_context(project, approve=approver)
    assert (await call(ctx, "read_file", path="alias/doc.md")).content == "     1|needle inside"
    written = await call(ctx, "write_file", path="alias/new/deep.md", content="made\n")
    assert written.content == f"Created {project / 'real' / 'new' / 'deep.md'}: wrote 5 bytes (1 lines)"
    assert (project / "real" / "new" / "deep.md").read_text() == "made\n"
    found = json.loads((await call(ctx, "search_files", pattern="needle", path="alias")).content)
    assert [match["path"] for match in found["matches"]] == ["real/doc.md"]
    assert approver.requests == []


async def test_a_symlinked_folder_pointing_outside_asks_and_writes_where_it_said(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    (project / "out").symlink_to(outside, target_is_directory=True)
    approver = RecordingApprover(answer=True)
    ctx = make_context(project, approve=approver)
    result = await call(ctx, "write_file", path="out/new/report.txt", content="r\n")
    target = outside / "new" / "report.txt"
    assert result.content == f"Created {target}: wrote 2 bytes (1 lines)"
    assert target.read_text() == "r\n"
    [request] = approver.requests
    assert request.reasons == (f"{SYMLINK_OUT} (to {target})",)


async def test_a_symlinked_file_pointing_outside_is_still_asked_about(layout: tuple[Path, Path]) -> None:
    project, outside = layout
    (project / "peek.txt").symlink_to(outside / "secret.txt")
    approver = RecordingApprover(answer=False)
    result = await call(make_context(project, approve=approver), "read_file", path="peek.txt")
    assert result.is_error and "top secret" not in result.content
    assert approver.requests[0].reasons == (f"{SYMLINK_OUT} (to {outside / 'secret.txt'})",)
