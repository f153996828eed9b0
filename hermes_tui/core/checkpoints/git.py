"""Running `git` for the shadow store: an asyncio subprocess in a clean, isolated environment.

Nothing of the user's git set-up reaches these processes and nothing of ours reaches the user's
repository: every `GIT_*` variable of our environment is dropped, `GIT_DIR` / `GIT_WORK_TREE` /
`GIT_INDEX_FILE` point at the store, the system and global config files are not read
(`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`, `HOME` and `XDG_CONFIG_HOME` pointed at the
store), hooks are off (`core.hooksPath=/dev/null`), and settings that would change what is stored
(autocrlf, fsmonitor, signing) are pinned on the command line. Processes never read a terminal,
are killed when the awaiting task is cancelled or a time limit passes, and their output can be
cut short after a number of NUL-separated records (`max_records`) so a huge folder costs little.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT_S = 120.0
AUTHOR = ("hermes-tui checkpoint", "checkpoints@hermes-tui.invalid")
PINNED_OPTIONS = (
    "core.hooksPath=/dev/null",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.quotePath=false",
    "core.fileMode=true",
    "core.symlinks=true",
    "core.ignoreCase=false",
    "core.precomposeUnicode=false",
    "commit.gpgSign=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "safe.directory=*",
)
_READ_CHUNK = 65536


class GitMissing(Exception):
    """`git` is not on PATH."""


class GitFailed(Exception):
    """A git command failed; the message is one line (the command and git's own first error line)."""


@dataclass(frozen=True)
class GitResult:
    code: int
    out: bytes
    err: bytes
    truncated: bool = False  # stopped after `max_records` records

    @property
    def text(self) -> str:
        return self.out.decode("utf-8", errors="replace").strip()

    def records(self) -> list[str]:
        """The output as NUL-separated records (`-z` output), decoded with surrogateescape."""
        return [item for item in self.out.decode("utf-8", errors="surrogateescape").split("\0") if item]


def git_executable() -> str | None:
    """The git on PATH, or None."""
    return shutil.which("git")


def isolated_env(
    store: Path, *, work_tree: Path | None = None, index: Path | None = None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of every store command: ours without any GIT_* variable, pointed at the store."""
    source = os.environ if base is None else base
    env = {key: value for key, value in source.items() if not key.startswith("GIT_")}
    env.update(
        {
            "GIT_DIR": str(store),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "HOME": str(store),
            "XDG_CONFIG_HOME": str(store),
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_AUTHOR_NAME": AUTHOR[0],
            "GIT_AUTHOR_EMAIL": AUTHOR[1],
            "GIT_COMMITTER_NAME": AUTHOR[0],
            "GIT_COMMITTER_EMAIL": AUTHOR[1],
            "LC_ALL": "C",
        }
    )
    if work_tree is not None:
        env["GIT_WORK_TREE"] = str(work_tree)
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return env


def _pinned() -> list[str]:
    args: list[str] = []
    for option in PINNED_OPTIONS:
        args += ["-c", option]
    return args


def _subcommand(args: Sequence[str]) -> str:
    """The git command's name in `args` (leading `-c name=value` options skipped), for messages."""
    rest = list(args)
    while len(rest) >= 2 and rest[0] == "-c":
        rest = rest[2:]
    return rest[0] if rest else "(no command)"


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    with contextlib.suppress(Exception):
        await process.wait()


async def _read_output(process: asyncio.subprocess.Process, max_records: int | None) -> tuple[bytes, bytes, bool]:
    assert process.stdout is not None and process.stderr is not None
    err_task = asyncio.ensure_future(process.stderr.read())
    chunks: list[bytes] = []
    records = 0
    truncated = False
    try:
        while True:
            chunk = await process.stdout.read(_READ_CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
            if max_records is not None:
                records += chunk.count(b"\0")
                if records > max_records:
                    truncated = True
                    break
    finally:
        if truncated:
            await _stop(process)
    err = await err_task
    return b"".join(chunks), err, truncated


async def run_git(
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    cwd: Path,
    stdin: bytes | None = None,
    ok: Sequence[int] = (0,),
    timeout: float = GIT_TIMEOUT_S,
    max_records: int | None = None,
) -> GitResult:
    """Run `git ARGS` and return its output; an exit code outside `ok` raises GitFailed (one line).

    Cancelling the awaiting task, or `timeout` passing, kills the process (and raises).
    """
    executable = git_executable()
    if executable is None:
        raise GitMissing("git is not on PATH")
    try:
        process = await asyncio.create_subprocess_exec(
            executable,
            *_pinned(),
            *args,
            cwd=str(cwd),
            env=dict(env),
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except FileNotFoundError:
        if not cwd.is_dir():
            raise GitFailed(f"folder {cwd} does not exist") from None
        raise GitMissing("git is not on PATH") from None
    except OSError as exc:
        raise GitFailed(f"cannot start git: {exc.strerror or exc}") from None
    try:
        if stdin is not None:
            assert process.stdin is not None
            process.stdin.write(stdin)
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await process.stdin.drain()
            process.stdin.close()
        out, err, truncated = await asyncio.wait_for(_read_output(process, max_records), timeout)
        code = await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        await _stop(process)
        raise GitFailed(f"git {_subcommand(args)} took longer than {timeout:g} s and was stopped") from None
    except BaseException:
        await _stop(process)
        raise
    if truncated:
        return GitResult(code, out, err, truncated=True)
    if code not in ok:
        first = next((line for line in err.decode("utf-8", "replace").splitlines() if line.strip()), "")
        raise GitFailed(f"git {_subcommand(args)} failed (exit {code}){': ' + first.strip() if first else ''}")
    return GitResult(code, out, err)
