"""The patch tool: targeted find-and-replace edits (mode="replace") and V4A multi-file patches (mode="patch").

Owns the tool as the model sees it — Hermes's schema, field descriptions and result shape
(`{"success": true, "diff": ..., "files_modified": [...]}`; errors as `{"success": false, "error":
...}` with Hermes's wording for "not found" and "not unique") — and the order of its steps. Each
file goes through the same gate as write_file (`file_access`: judged, opened without following a
link, read-only mode refused, approval asked where the policy and the permission mode say so,
with the diff in the request); the edit is worked out on what was opened before anyone is asked
(`patch_files`, with the forgiving search of `patch_match` and the V4A reader of `patch_v4a`), and
written only if the file is still as it was read. A V4A patch is checked whole before anything is
written: every file opened, prepared and allowed, or nothing changes. The result also carries each
file's change (`ToolResult.changes`) for the UI.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hermes_tui.core.tools.base import Tool, ToolContext, ToolResult, object_schema, param
from hermes_tui.core.tools.blocking import StopSignal, WorkTimedOut
from hermes_tui.core.tools.file_access import Grant, Prepare, confirm, open_judged, run_granted
from hermes_tui.core.tools.file_current import shown_path
from hermes_tui.core.tools.file_diff import FileChange
from hermes_tui.core.tools.file_policy import HARD_LINK, PathVerdict, pseudo_filesystem_reason, visible_path
from hermes_tui.core.tools.patch_files import (
    ChangeFailed,
    Edit,
    Text,
    create_prepare,
    delete_file,
    delete_prepare,
    edit_prepare,
    move_file,
    move_source_prepare,
    move_target_prepare,
    write_edit,
)
from hermes_tui.core.tools.patch_match import DID_YOU_MEAN, NOT_FOUND, NoMatch, find_and_replace
from hermes_tui.core.tools.patch_v4a import FileOp, HunkFailed, PatchSyntaxError, apply_hunks, parse

PATCH_TIME_LIMIT = 30.0
NOT_FOUND_HINT = (
    "old_string not found. Use read_file to verify the current content, or search_files to locate the text."
)

DESCRIPTION = (
    "Targeted find-and-replace edits in files. Use this instead of sed/awk in terminal. "
    "Uses fuzzy matching (9 strategies) so minor whitespace/indentation differences won't break it. "
    "Returns a unified diff.\n\n"
    "REPLACE MODE (mode='replace', default): find a unique string and replace it. "
    "REQUIRED PARAMETERS: mode, path, old_string, new_string.\n"
    "PATCH MODE (mode='patch'): apply V4A multi-file patches for bulk changes. "
    "REQUIRED PARAMETERS: mode, patch.\n\n"
    "Files outside the working folder and sensitive files need the user's approval."
)
PARAMETERS = object_schema(
    required=["mode"],
    mode=param(
        "string",
        "Edit mode. 'replace' (default): requires path + old_string + new_string. "
        "'patch': requires patch content only.",
        enum=["replace", "patch"],
        default="replace",
    ),
    path=param("string", "REQUIRED when mode='replace'. File path to edit."),
    old_string=param(
        "string",
        "REQUIRED when mode='replace'. Exact text to find and replace. Must be unique in the file unless "
        "replace_all=true. Include surrounding context lines to ensure uniqueness.",
    ),
    new_string=param(
        "string",
        "REQUIRED when mode='replace'. Replacement text. Pass empty string '' to delete the matched text.",
    ),
    replace_all=param(
        "boolean",
        "Replace all occurrences instead of requiring a unique match (default: false)",
        default=False,
    ),
    patch=param(
        "string",
        "REQUIRED when mode='patch'. V4A format patch content. Format:\n*** Begin Patch\n*** Update File: "
        "path/to/file\n@@ context hint @@\n context line\n-removed line\n+added line\n*** End Patch",
    ),
)


def failed(message: str, **extra: Any) -> ToolResult:
    """Hermes's failure shape: `{"success": false, "error": ...}`."""
    return ToolResult(json.dumps({"success": False, "error": message, **extra}, ensure_ascii=False), is_error=True)


def _message(result: ToolResult) -> str:
    """The one-line reason inside an error result from the gate ("Error: ..." text or our JSON)."""
    try:
        data = json.loads(result.content)
    except ValueError:
        return result.content.removeprefix("Error: ")
    return str(data.get("error", result.content)) if isinstance(data, dict) else result.content


def _refuse_existing(verdict: PathVerdict) -> ToolResult | None:
    """A file to edit, delete or move must be a regular file that exists."""
    refusal = _refuse_target(verdict)
    if refusal is None and verdict.target.kind == "missing":
        return failed(f"file not found: {verdict.shown}")
    return refusal


def _refuse_target(verdict: PathVerdict) -> ToolResult | None:
    reason = pseudo_filesystem_reason(verdict.resolved)
    if reason:
        return failed(reason)
    target, shown = verdict.target, verdict.shown
    if target.kind == "folder":
        return failed(f"{shown} is a directory, not a file")
    if target.kind in ("fifo", "device", "socket", "other") and not target.error:
        return failed(f"{shown} is a {target.kind}, not a regular file; patch edits regular files")
    if target.error and target.kind != "missing":
        return failed(f"cannot use {shown}: {target.error}")
    return None


def _shared_ok(grant: Grant) -> bool:
    return any(reason.startswith(HARD_LINK) for reason in grant.verdict.reasons)


@dataclass
class _Step:
    """One file of a patch: how it is opened and described, and the grant once it is."""

    raw_path: str
    describe: Callable[[PathVerdict], str]
    prepare: Prepare
    refuse: Callable[[PathVerdict], ToolResult | None]
    grant: Grant | None = None


def _replace_text(old: str, new: str, replace_all: bool) -> Callable[[Text], str]:
    def edit(text: Text) -> str:
        outcome = find_and_replace(text.text, text.normalise(old), text.normalise(new), replace_all)
        if isinstance(outcome, NoMatch):
            raise ChangeFailed(outcome.error)
        return outcome.content

    return edit


def _v4a_text(op: FileOp) -> Callable[[Text], str]:
    def edit(text: Text) -> str:
        try:
            return apply_hunks(text.text, op.hunks)
        except HunkFailed as exc:
            raise ChangeFailed(str(exc)) from None

    return edit


class PatchTool(Tool):
    name = "patch"
    mutates_files = True
    description = DESCRIPTION
    parameters = PARAMETERS

    def __init__(self, time_limit: float = PATCH_TIME_LIMIT) -> None:
        self.time_limit = time_limit

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        refusal = ctx.rules.refusal(self.name)
        if refusal is not None:
            return failed(refusal.removeprefix("Error: "))
        mode = args.get("mode", "replace")
        if mode == "patch":
            patch = args.get("patch")
            if not patch:
                return failed("patch content required")
            return await self._v4a(patch, ctx)
        path, old, new = args.get("path"), args.get("old_string"), args.get("new_string")
        if not path:
            return failed("path required")
        if old is None or new is None:
            return failed("old_string and new_string required")
        return await self._replace(path, old, new, bool(args.get("replace_all", False)), ctx)

    # ------------------------------------------------------------------ mode="replace"

    async def _replace(self, raw_path: str, old: str, new: str, replace_all: bool, ctx: ToolContext) -> ToolResult:
        if not old:
            return failed("old_string cannot be empty")
        step = _Step(
            raw_path,
            lambda verdict: f"edit {verdict.shown}",
            _late_shown(ctx, lambda name: edit_prepare(name, _replace_text(old, new, replace_all))),
            _refuse_existing,
        )
        outcome = await self._open_and_allow([step], ctx)
        if isinstance(outcome, ToolResult):
            if NOT_FOUND in outcome.content and DID_YOU_MEAN not in outcome.content:
                return failed(_message(outcome), _hint=NOT_FOUND_HINT)
            return outcome
        grant = outcome[0]
        assert grant.prepared is not None
        edit, change = grant.prepared.value, grant.prepared.change
        shown = change.path if change is not None else grant.verdict.shown

        def work(stop: StopSignal) -> None:
            write_edit(grant, shown, edit, stop, _shared_ok(grant))

        failure = await self._carry_out([grant], work)
        if failure is not None:
            return failed(failure)
        resolved = str(grant.verdict.resolved)
        return _success([change] if change else [], {"files_modified": [resolved], "resolved_path": resolved})

    # ------------------------------------------------------------------ mode="patch" (V4A)

    async def _v4a(self, patch: str, ctx: ToolContext) -> ToolResult:
        try:
            ops = parse(patch)
        except PatchSyntaxError as exc:
            return failed(f"Failed to parse patch: {exc}")
        if not ops:
            return failed("Patch contains no changes (no *** Update/Add/Delete/Move File sections)")
        repeated = _repeated_path(ops, ctx)
        if repeated:
            return failed(
                f"{repeated} appears in more than one operation of this patch; put all of its hunks under one "
                "*** Update File section"
            )
        steps, plan = _steps(ops, ctx)
        outcome = await self._open_and_allow(steps, ctx, validation=True)
        if isinstance(outcome, ToolResult):
            return outcome
        grants = outcome
        done: list[str] = []

        def work(stop: StopSignal) -> list[str]:
            problems = []
            for action in plan:
                try:
                    action.run(grants, stop)
                    done.append(action.op.path)
                except ChangeFailed as exc:
                    problems.append(f"{action.op.path}: {exc}")
            return problems

        try:
            problems = await run_granted(grants, work, self.time_limit)
        except WorkTimedOut:
            problems = [f"the patch did not finish within {self.time_limit:g} s (a slow or stuck file system?)"]
        changes = [action.change(grants) for action in plan if action.op.path in done]
        listing = _listing(plan, done)
        if problems:
            return failed(
                "Apply phase failed (state may be inconsistent — run `git diff` to assess):\n"
                + "\n".join(f"  • {problem}" for problem in problems),
                diff=_combined([c for c in changes if c is not None]),
                **listing,
            )
        return _success([c for c in changes if c is not None], listing)

    # ------------------------------------------------------------------ shared steps

    async def _open_and_allow(
        self, steps: list[_Step], ctx: ToolContext, validation: bool = False
    ) -> list[Grant] | ToolResult:
        """Open and prepare every step, then ask where needed: all the grants, or why not.

        With `validation` (V4A) every file is checked and the problems listed together; otherwise
        the one file's error is returned as it is.
        """
        problems: list[str] = []

        def problem(step: _Step, result: ToolResult) -> ToolResult | None:
            if not validation:
                return _as_patch_error(result)
            problems.append(f"{visible_path(step.raw_path)}: {_message(result)}")
            return None

        try:
            for step in steps:
                opened = await open_judged(ctx, self.name, step.raw_path, "write", step.refuse, step.prepare)
                if isinstance(opened, Grant):
                    step.grant = opened
                elif (error := problem(step, opened)) is not None:
                    return error
            for step in steps:
                if problems:
                    break
                assert step.grant is not None
                allowed = await confirm(ctx, self.name, step.grant, step.describe)
                step.grant = allowed if isinstance(allowed, Grant) else None
                if isinstance(allowed, ToolResult) and (error := problem(step, allowed)) is not None:
                    return error
            if problems:
                return _validation_failed(problems)
            grants = [step.grant for step in steps if step.grant is not None]
            for step in steps:
                step.grant = None  # handed over to the caller
            return grants
        finally:
            for step in steps:
                if step.grant is not None:
                    step.grant.release()

    async def _carry_out(self, grants: list[Grant], work: Callable[[StopSignal], None]) -> str | None:
        try:
            await run_granted(grants, work, self.time_limit)
        except ChangeFailed as exc:
            return str(exc)
        except WorkTimedOut:
            return (
                f"writing did not finish within {self.time_limit:g} s (a slow or stuck file system?); "
                "the file holds either its old or its new content"
            )
        return None


def _late_shown(ctx: ToolContext, make: Callable[[str], Prepare]) -> Prepare:
    """A prepare step that names the file by its resolved path (known only once it was judged)."""

    def prepare(grant: Grant, stop: StopSignal) -> Any:
        return make(shown_path(grant.verdict.resolved, ctx.cwd))(grant, stop)

    return prepare


def _as_patch_error(result: ToolResult) -> ToolResult:
    if result.content.startswith("{"):
        return result
    return failed(_message(result))


def _validation_failed(problems: list[str]) -> ToolResult:
    return failed(
        "Patch validation failed (no files were modified):\n" + "\n".join(f"  • {problem}" for problem in problems)
    )


def _diff_text(change: FileChange) -> str:
    if change.kind == "moved":
        return f"# Moved: {change.moved_from} -> {change.path}"
    return change.unified if change.unified is not None else f"# {change.summary}"


def _combined(changes: list[FileChange]) -> str:
    return "\n".join(text for text in map(_diff_text, changes) if text)


def _success(changes: list[FileChange], listing: dict[str, Any]) -> ToolResult:
    body: dict[str, Any] = {"success": True}
    diff = _combined(changes)
    if diff:
        body["diff"] = diff
    body.update({key: value for key, value in listing.items() if value})
    return ToolResult(json.dumps(body, ensure_ascii=False), changes=tuple(changes))


def _repeated_path(ops: list[FileOp], ctx: ToolContext) -> str | None:
    seen: set[str] = set()
    for op in ops:
        for raw in (op.path, op.new_path):
            if raw is None:
                continue
            key = os.path.normpath(str(ctx.resolve_path(raw)))
            if key in seen:
                return visible_path(raw)
            seen.add(key)
    return None


@dataclass
class _Action:
    """One V4A operation once its files are allowed: which grants it uses and how it is carried out."""

    op: FileOp
    first: int  # index of its (first) grant
    second: int | None = None  # a move's target grant

    def change(self, grants: list[Grant]) -> FileChange | None:
        prepared = grants[self.first].prepared
        return prepared.change if prepared is not None else None

    def run(self, grants: list[Grant], stop: StopSignal) -> None:
        grant = grants[self.first]
        assert grant.prepared is not None
        edit: Edit = grant.prepared.value
        shown = self.op.path
        if self.op.kind == "delete":
            delete_file(grant, shown, edit)
        elif self.op.kind == "move":
            assert self.second is not None
            move_file(grant, grants[self.second], shown, edit)
        else:
            write_edit(grant, shown, edit, stop, _shared_ok(grant))


def _steps(ops: list[FileOp], ctx: ToolContext) -> tuple[list[_Step], list[_Action]]:
    """The files to open (in order) and the actions that use them."""
    steps: list[_Step] = []
    plan: list[_Action] = []

    def named(make: Callable[[str], Prepare]) -> Prepare:
        return _late_shown(ctx, make)

    for op in ops:
        plan.append(_Action(op, len(steps)))
        if op.kind == "update":
            steps.append(
                _Step(
                    op.path,
                    lambda v: f"edit {v.shown}",
                    named(lambda n, op=op: edit_prepare(n, _v4a_text(op))),
                    _refuse_existing,
                )
            )
        elif op.kind == "add":
            content = op.added_content()
            steps.append(
                _Step(
                    op.path,
                    lambda v: f"create {v.shown}",
                    named(lambda n, c=content: create_prepare(n, c)),
                    _refuse_target,
                )
            )
        elif op.kind == "delete":
            steps.append(_Step(op.path, lambda v: f"delete {v.shown}", named(delete_prepare), _refuse_existing))
        else:
            assert op.new_path is not None
            target = op.new_path
            destination = shown_path(ctx.resolve_path(target), ctx.cwd)
            steps.append(
                _Step(
                    op.path,
                    lambda v, t=target: f"move {v.shown} to {visible_path(t)}",
                    named(lambda n, d=destination: move_source_prepare(n, d)),
                    _refuse_existing,
                )
            )
            plan[-1].second = len(steps)
            steps.append(
                _Step(
                    target,
                    lambda v, s=op.path: f"move {visible_path(s)} to {v.shown}",
                    named(move_target_prepare),
                    _refuse_target,
                )
            )
    return steps, plan


def _listing(plan: list[_Action], done: list[str]) -> dict[str, Any]:
    """Hermes's lists of the paths a V4A patch touched, by kind (as the headers named them)."""
    kinds = {"update": "files_modified", "move": "files_modified", "add": "files_created", "delete": "files_deleted"}
    listing: dict[str, list[str]] = {"files_modified": [], "files_created": [], "files_deleted": []}
    for action in plan:
        if action.op.path in done:
            name = f"{action.op.path} -> {action.op.new_path}" if action.op.kind == "move" else action.op.path
            listing[kinds[action.op.kind]].append(name)
    return listing
