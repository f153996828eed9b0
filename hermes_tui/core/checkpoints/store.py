"""The shadow git store: snapshots of working folders kept under the home, never in the user's repo.

Layout (Hermes's own, so `--home ~/.hermes` shares one store with Hermes):

    <home>/checkpoints/store/             one bare repository; its objects are shared by every folder
        refs/hermes/<key>                 one chain of snapshot commits per working folder
        indexes/<key>                     that folder's git index (the stat cache that keeps later
                                          snapshots fast); indexes/<key>.flock serialises writers
        projects/<key>.json               {"workdir", "created_at", "last_touch"}
        info/exclude                      what is never snapshotted (dependencies, caches, secrets)
    <home>/checkpoints/.last_prune        when the age pruning last ran

`<key>` is the first 16 hex digits of the sha256 of the folder's resolved path. Every git command
runs through `core.checkpoints.git` (isolated environment, asyncio subprocess), with the work tree
set to the folder and the index set to the folder's own index.

What a snapshot holds: every file git would add there — the project's `.gitignore` files, its
`.git/info/exclude` and our `info/exclude` are honoured, `.git` is never taken, nested repositories
and the home folder (when it lies inside the folder) are left out, and so is any file over the
size cap (`Caps.max_file_bytes`; listed in the result). A folder with more files than
`Caps.max_files` is not snapshotted at all: the listing that would count them stops early, so a huge
folder costs little. Restoring checks a snapshot's tree out over the folder with `read-tree
--reset -u`: files created since are removed, deleted ones come back, contents and the executable
bit are the snapshot's; files a snapshot never held (ignored, over the cap) are left alone.
Pruning (`prune`) drops snapshots older than the retention period and folders not touched for as
long or gone from disk, then lets git collect the objects nobody needs any more (and merges the
small packs each snapshot's `git add` writes into one).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
import re
import struct
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hermes_tui.core.checkpoints.git import GitFailed, GitResult, isolated_env, run_git
from hermes_tui.store.file_modes import make_private_dir

REF_PREFIX = "refs/hermes/"
PRUNE_MARKER = ".last_prune"
PRUNE_INTERVAL_S = 24 * 3600
TOUCH_INTERVAL_S = 3600  # a folder's last_touch is rewritten at most this often
LOCK_TIMEOUT_S = 60.0
LOOSE_OBJECTS_PACKED_FROM = 1000  # the daily pruning also repacks the store with this many loose objects
PACKS_MERGED_FROM = 20  # ... or this many packs
_LOCK_POLL_S = 0.05
_THREADED_STAT_FROM = 256  # stat this many paths or more in a worker thread
DEFAULT_EXCLUDES = (
    "# never snapshotted by hermes-tui checkpoints",
    ".git/",
    ".hg/",
    ".svn/",
    ".worktrees/",
    "node_modules/",
    ".venv/",
    "venv/",
    "__pycache__/",
    "*.py[co]",
    ".pytest_cache/",
    ".mypy_cache/",
    ".ruff_cache/",
    ".tox/",
    ".cache/",
    ".next/",
    ".nuxt/",
    "target/",
    "dist/",
    "build/",
    "*.o",
    "*.so",
    "*.dylib",
    "*.dll",
    "*.exe",
    "*.class",
    "*.jar",
    "*.zip",
    "*.tar",
    "*.tar.gz",
    "*.tgz",
    "*.7z",
    "*.iso",
    "*.mp4",
    "*.mov",
    "*.mkv",
    "*.log",
    ".env",
    ".env.*",
    ".DS_Store",
)
_SHORTSTAT = re.compile(r"(\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?")


class StoreError(Exception):
    """The store could not do what was asked; the message is one line."""


@dataclass(frozen=True)
class Caps:
    max_file_bytes: int
    max_files: int


@dataclass(frozen=True)
class Stat:
    """What changed between two snapshots: files, lines added, lines removed."""

    files: int = 0
    added: int = 0
    removed: int = 0


@dataclass(frozen=True)
class Snapshot:
    commit: str
    tree: str
    stat: Stat  # changes since the folder's previous snapshot (for the first: every file, no line counts)
    file_count: int
    first: bool
    left_out: tuple[str, ...] = ()  # files over the size cap
    duration_s: float = 0.0


@dataclass(frozen=True)
class Skipped:
    """No snapshot was taken; `reason` says why (one line for the Review log)."""

    reason: str


@dataclass(frozen=True)
class Restored:
    """What a restore changed in the folder."""

    changed: tuple[str, ...] = ()  # contents or mode set back
    removed: tuple[str, ...] = ()  # created after the snapshot: deleted
    recreated: tuple[str, ...] = ()  # deleted after the snapshot: back

    @property
    def total(self) -> int:
        return len(self.changed) + len(self.removed) + len(self.recreated)


@dataclass
class PruneReport:
    folders_dropped: int = 0
    snapshots_dropped: int = 0
    collected: bool = False
    errors: list[str] = field(default_factory=list)

    def line(self) -> str:
        if not (self.folders_dropped or self.snapshots_dropped):
            return ""
        return (
            f"Checkpoints pruned: {self.snapshots_dropped} old snapshot(s), {self.folders_dropped} folder(s)"
            " no longer used"
        )


@dataclass(frozen=True)
class _Staged:
    tree: str | None  # None: too many files
    file_count: int
    left_out: tuple[str, ...]
    tip: tuple[str, str] | None  # (commit, tree) of the folder's ref before this staging
    stat: Stat = Stat()  # the staged tree against the tip's (for the first: every file)
    commit: str | None = None  # the staged tree's commit, when one was asked for


async def _nothing() -> None:
    return None


def folder_key(workdir: Path) -> str:
    """The folder's name in the store: sha256 of its resolved path, 16 hex digits."""
    return hashlib.sha256(str(workdir.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def index_entry_count(index: Path) -> int:
    """How many entries a git index holds (its header), 0 when there is none or it is unreadable."""
    try:
        with index.open("rb") as handle:
            header = handle.read(12)
    except OSError:
        return 0
    if len(header) < 12 or header[:4] != b"DIRC":
        return 0
    return int(struct.unpack(">I", header[8:12])[0])


def user_exclude_file(workdir: Path) -> Path | None:
    """The `info/exclude` of the repository the folder belongs to (its `.git` folder or gitfile), if any."""
    for folder in (workdir, *workdir.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            candidate = dot_git / "info" / "exclude"
            return candidate if candidate.is_file() else None
        if dot_git.is_file():
            try:
                line = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            gitdir = (folder / line.partition(":")[2].strip()).resolve()
            common = gitdir
            with contextlib.suppress(OSError):
                common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
            candidate = common / "info" / "exclude"
            return candidate if candidate.is_file() else None
    return None


def parse_shortstat(text: str) -> Stat:
    match = _SHORTSTAT.search(text)
    if match is None:
        return Stat()
    files, added, removed = (int(group) if group else 0 for group in match.groups())
    return Stat(files, added, removed)


def _encoded(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def _literal_exclude(path: str) -> bytes:
    return b":(exclude,literal)" + _encoded(path)


def _sizes_over(workdir: Path, paths: Sequence[str], limit: int) -> list[str]:
    over: list[str] = []
    for path in paths:
        try:
            info = os.lstat(os.path.join(workdir, path))
        except OSError:
            continue
        if info.st_size > limit and not os.path.islink(os.path.join(workdir, path)):
            over.append(path)
    return over


class _FolderLock:
    """One writer per folder index: an asyncio lock in this process and a `flock` across processes
    (polled without blocking the loop, so a second hermes-tui in the same folder waits its turn)."""

    def __init__(self) -> None:
        self._local: dict[str, asyncio.Lock] = {}

    @contextlib.asynccontextmanager
    async def hold(self, lock_file: Path) -> AsyncIterator[None]:
        local = self._local.setdefault(str(lock_file), asyncio.Lock())
        async with local:
            lock_file.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
            try:
                deadline = time.monotonic() + LOCK_TIMEOUT_S
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() >= deadline:
                            raise StoreError("another hermes-tui holds this folder's checkpoint lock") from None
                        await asyncio.sleep(_LOCK_POLL_S)
                try:
                    yield
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


class ShadowStore:
    """The store under `<home>/checkpoints`; every method is a coroutine that never blocks the loop."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / "store"
        self._locks = _FolderLock()
        self._ready = False

    # ------------------------------------------------------------------ layout

    def ref(self, key: str) -> str:
        return REF_PREFIX + key

    def index(self, key: str) -> Path:
        return self.path / "indexes" / key

    def _lock_file(self, key: str) -> Path:
        return self.path / "indexes" / f"{key}.flock"  # not "<index>.lock": that name is git's own

    def _meta_file(self, key: str) -> Path:
        return self.path / "projects" / f"{key}.json"

    def _env(self, workdir: Path | None = None, key: str | None = None) -> dict[str, str]:
        return isolated_env(self.path, work_tree=workdir, index=self.index(key) if key else None)

    async def _git(
        self,
        args: Sequence[str],
        *,
        workdir: Path | None = None,
        key: str | None = None,
        stdin: bytes | None = None,
        ok: Sequence[int] = (0,),
        max_records: int | None = None,
        options: Sequence[str] = (),
    ) -> GitResult:
        return await run_git(
            [*options, *args],
            self._env(workdir, key),
            cwd=workdir or self.path,
            stdin=stdin,
            ok=ok,
            max_records=max_records,
        )

    async def ensure(self) -> None:
        """Create the store (bare repository, folders, default excludes) if it is not there yet."""
        if self._ready or (self.path / "HEAD").is_file():
            self._ready = True
            return
        make_private_dir(self.root)
        make_private_dir(self.path)
        env = isolated_env(self.path)
        await run_git(["init", "--bare", "--quiet", str(self.path)], env, cwd=self.root)
        for folder in ("indexes", "projects", "info"):
            (self.path / folder).mkdir(exist_ok=True)
        (self.path / "info" / "exclude").write_text("\n".join(DEFAULT_EXCLUDES) + "\n", encoding="utf-8")
        self._ready = True

    def _touch(self, key: str, workdir: Path, now: float) -> None:
        meta_file = self._meta_file(key)
        meta: dict[str, object] = {}
        with contextlib.suppress(OSError, ValueError):
            loaded = json.loads(meta_file.read_text(encoding="utf-8"))
            meta = loaded if isinstance(loaded, dict) else {}
        last = meta.get("last_touch")
        if isinstance(last, (int, float)) and now - float(last) < TOUCH_INTERVAL_S and meta.get("workdir"):
            return
        meta.setdefault("created_at", now)
        meta.update({"workdir": str(workdir), "last_touch": now})
        meta_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = meta_file.with_name(f".{meta_file.name}.tmp")
        tmp.write_text(json.dumps(meta), encoding="utf-8")
        os.replace(tmp, meta_file)

    # ------------------------------------------------------------------ staging

    def _options(self, workdir: Path) -> list[str]:
        exclude = user_exclude_file(workdir)
        return ["-c", f"core.excludesFile={exclude}"] if exclude is not None else []

    async def _stage(
        self, workdir: Path, key: str, caps: Caps, leave_out: Sequence[str], message: str | None = None
    ) -> _Staged:
        """Bring the folder's index up to the folder's files (caps applied), write its tree, and compare
        it with the tip of the folder's ref.

        The file count is the index's entries plus the untracked files git lists (deleted files still
        count until the index forgets them: a slight over-count, never an under-count). Only new files
        are measured before `git add`; a tracked file that grew over the cap shows up in the comparison
        with the tip and is taken out of the index again (its blob was written once, in vain). With a
        `message`, the commit of the staged tree (parent: the tip) is written too — the tip itself when
        nothing changed.
        """
        index = self.index(key)
        stale = index.with_name(index.name + ".lock")
        if stale.exists():  # we hold the folder lock: a git killed mid-write left it behind
            with contextlib.suppress(OSError):
                stale.unlink()
        options = self._options(workdir)
        tracked = index_entry_count(index)
        excludes = [f":(exclude,literal){path}" for path in leave_out]
        listing, tip = await asyncio.gather(
            self._git(
                ["ls-files", "-z", "-o", "--exclude-standard", "--", ".", *excludes],
                workdir=workdir,
                key=key,
                options=options,
                max_records=max(0, caps.max_files - tracked),  # more untracked files than this: too many
            ),
            self._tip(key),
        )
        if listing.truncated:
            return _Staged(None, caps.max_files + 1, (), tip)
        nested = [path for path in listing.records() if path.endswith("/")]  # repositories of their own
        new = [path for path in listing.records() if not path.endswith("/")]
        count = tracked + len(new)
        if count > caps.max_files:
            return _Staged(None, count, (), tip)
        left_out = await self._over_cap(workdir, new, caps)
        specs = [b"."] + [_literal_exclude(path) for path in (*leave_out, *nested, *left_out)]
        await self._git(
            ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"],
            workdir=workdir,
            key=key,
            stdin=b"\0".join(specs) + b"\0",
            # every file "big": git streams the new blobs into one pack instead of one loose file each
            # (a first snapshot of 10,000 files: ~2 s and ~2 MB instead of ~10 s and ~40 MB here)
            options=[*options, "-c", "core.bigFileThreshold=1"],
        )
        tree = (await self._git(["write-tree"], workdir=workdir, key=key)).text
        if tip is None:
            commit = await self._commit(tree, None, message) if message is not None else None
            return _Staged(tree, count, tuple(sorted(left_out)), None, Stat(files=count), commit)
        if tip[1] == tree:
            return _Staged(tree, count, tuple(sorted(left_out)), tip, Stat(), tip[0])
        measured, commit = await asyncio.gather(  # the commit is written while the change is measured
            self._numstat(tip[1], tree),
            self._commit(tree, tip[0], message) if message is not None else _nothing(),
        )
        stat, changed = measured
        grown = await self._over_cap(workdir, changed, caps)
        if grown:  # a tracked file grew over the cap: its new copy must not be kept, nor its old one stand in
            await self._git(
                ["update-index", "--force-remove", "-z", "--stdin"],
                workdir=workdir,
                key=key,
                stdin=b"".join(_encoded(path) + b"\0" for path in grown),
            )
            tree = (await self._git(["write-tree"], workdir=workdir, key=key)).text
            stat, _changed = await self._numstat(tip[1], tree)
            left_out = [*left_out, *grown]
            if tree == tip[1]:
                commit = tip[0]
            elif message is not None:
                commit = await self._commit(tree, tip[0], message)
        return _Staged(tree, count, tuple(sorted(left_out)), tip, stat, commit)

    async def _commit(self, tree: str, parent: str | None, message: str) -> str:
        args = ["commit-tree", tree, "-m", message]
        if parent is not None:
            args[2:2] = ["-p", parent]
        return (await self._git(args)).text

    async def _over_cap(self, workdir: Path, paths: Sequence[str], caps: Caps) -> list[str]:
        if len(paths) >= _THREADED_STAT_FROM:
            return await asyncio.to_thread(_sizes_over, workdir, paths, caps.max_file_bytes)
        return _sizes_over(workdir, paths, caps.max_file_bytes)

    async def _numstat(self, old_tree: str, new_tree: str) -> tuple[Stat, list[str]]:
        """What changed between two trees, and the changed paths (deleted ones too: nothing to measure there)."""
        result = await self._git(["diff", "--numstat", "-z", "--no-renames", old_tree, new_tree])
        added = removed = 0
        paths: list[str] = []
        for record in result.records():
            plus, _, rest = record.partition("\t")
            minus, _, path = rest.partition("\t")
            added += int(plus) if plus.isdigit() else 0  # "-" for binary files
            removed += int(minus) if minus.isdigit() else 0
            paths.append(path)
        return Stat(len(paths), added, removed), paths

    async def _tip(self, key: str) -> tuple[str, str] | None:
        """(commit, tree) at the folder's ref, None before its first snapshot."""
        result = await self._git(["for-each-ref", "--format=%(objectname) %(tree)", self.ref(key)])
        parts = result.text.split()
        return (parts[0], parts[1]) if len(parts) == 2 else None

    # ------------------------------------------------------------------ public

    async def snapshot(
        self, workdir: Path, message: str, caps: Caps, leave_out: Sequence[str] = (), *, now: float | None = None
    ) -> Snapshot | Skipped:
        """Snapshot the folder as a commit on its ref (or reuse the tip when nothing changed)."""
        started = time.monotonic()
        workdir = workdir.resolve()
        await self.ensure()
        key = folder_key(workdir)
        async with self._locks.hold(self._lock_file(key)):
            staged = await self._stage(workdir, key, caps, leave_out, message)
            if staged.tree is None:
                return Skipped(
                    f"No checkpoint: {workdir} holds more than {caps.max_files:,} files"
                    " ([checkpoints] max_files); file changes of this turn cannot be rolled back"
                )
            tip, commit = staged.tip, staged.commit
            assert commit is not None
            if tip is None or commit != tip[0]:
                await self._git(["update-ref", self.ref(key), commit, tip[0] if tip else ""])
            self._touch(key, workdir, time.time() if now is None else now)
        return Snapshot(
            commit=commit,
            tree=staged.tree,
            stat=staged.stat,
            file_count=staged.file_count,
            first=tip is None,
            left_out=staged.left_out,
            duration_s=time.monotonic() - started,
        )

    async def current_tree(self, workdir: Path, caps: Caps, leave_out: Sequence[str] = ()) -> str:
        """The tree of the folder as it is now (staged in its index, no commit): what diffs compare with."""
        workdir = workdir.resolve()
        await self.ensure()
        key = folder_key(workdir)
        async with self._locks.hold(self._lock_file(key)):
            staged = await self._stage(workdir, key, caps, leave_out)
        if staged.tree is None:
            raise StoreError(f"{workdir} holds more than {caps.max_files:,} files; it cannot be compared")
        return staged.tree

    async def shortstat(self, old_tree: str, new_tree: str) -> Stat:
        result = await self._git(["diff", "--shortstat", "--no-renames", "--no-ext-diff", old_tree, new_tree])
        return parse_shortstat(result.text)

    async def diff_text(self, old_tree: str, new_tree: str) -> str:
        """The stat and the patch from `old_tree` to `new_tree` (binary files named, not shown)."""
        result = await self._git(
            [
                "diff",
                "--stat=100",
                "--patch",
                "--no-color",
                "--no-renames",
                "--no-ext-diff",
                "--no-textconv",
                old_tree,
                new_tree,
            ]
        )
        return result.out.decode("utf-8", errors="replace")

    async def existing_trees(self, trees: Sequence[str]) -> set[str]:
        """Which of `trees` the store still holds (pruning removes old ones)."""
        if not trees or not (self.path / "HEAD").is_file():
            return set()
        stdin = "".join(f"{tree}\n" for tree in trees).encode("ascii", errors="replace")
        result = await self._git(["cat-file", "--batch-check"], stdin=stdin)
        present = set()
        for line in result.text.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[1] == "tree":
                present.add(parts[0])
        return present

    async def restore(self, workdir: Path, tree: str, caps: Caps, leave_out: Sequence[str] = ()) -> Restored:
        """Make the folder's files what they were in `tree` (see the module docstring)."""
        workdir = workdir.resolve()
        await self.ensure()
        key = folder_key(workdir)
        async with self._locks.hold(self._lock_file(key)):
            staged = await self._stage(workdir, key, caps, leave_out)
            if staged.tree is None:
                raise StoreError(f"{workdir} holds more than {caps.max_files:,} files; nothing was restored")
            changes = await self._git(["diff", "--name-status", "-z", "--no-renames", staged.tree, tree])
            fields = changes.records()
            changed, removed, recreated = [], [], []
            for status, path in zip(fields[0::2], fields[1::2], strict=False):
                {"A": recreated, "D": removed}.get(status[:1], changed).append(path)
            await self._git(["read-tree", "--reset", "-u", tree], workdir=workdir, key=key)
        return Restored(tuple(changed), tuple(removed), tuple(recreated))

    # ------------------------------------------------------------------ pruning

    def prune_due(self, now: float | None = None) -> bool:
        marker = self.root / PRUNE_MARKER
        try:
            last = float(marker.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return (self.path / "HEAD").is_file()
        return (time.time() if now is None else now) - last >= PRUNE_INTERVAL_S

    async def prune(self, retention_days: int, *, now: float | None = None) -> PruneReport:
        """Drop snapshots older than `retention_days`, and folders untouched as long or gone; collect."""
        report = PruneReport()
        now = time.time() if now is None else now
        if not (self.path / "HEAD").is_file():
            return report
        cutoff = now - retention_days * 86400
        for meta_file in sorted((self.path / "projects").glob("*.json")):
            key = meta_file.stem
            try:
                meta = json.loads(meta_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                meta = {}
            workdir = str(meta.get("workdir") or "") if isinstance(meta, dict) else ""
            last_touch = float(meta.get("last_touch") or 0) if isinstance(meta, dict) else 0.0
            try:
                async with self._locks.hold(self._lock_file(key)):
                    if not workdir or not Path(workdir).is_dir() or last_touch < cutoff:
                        await self._git(["update-ref", "-d", self.ref(key)], ok=(0, 1))
                        for leftover in (self.index(key), meta_file):
                            with contextlib.suppress(OSError):
                                leftover.unlink()
                        report.folders_dropped += 1
                    else:
                        report.snapshots_dropped += await self._drop_old_snapshots(key, cutoff)
            except (GitFailed, StoreError, OSError) as exc:
                report.errors.append(str(exc))
        if report.folders_dropped or report.snapshots_dropped or await self._worth_repacking():
            try:
                # objects younger than an hour stay: a snapshot another process is writing may need them
                await self._git(["gc", "--quiet", f"--prune=@{int(now) - 3600}"])
                report.collected = True
            except GitFailed as exc:
                report.errors.append(str(exc))
            for folder in ("refs/heads", "refs/tags"):  # gc may remove empty ref folders git wants to see
                (self.path / folder).mkdir(parents=True, exist_ok=True)
        marker = self.root / PRUNE_MARKER
        with contextlib.suppress(OSError):
            marker.write_text(str(now), encoding="utf-8")
        return report

    async def _worth_repacking(self) -> bool:
        """Whether the store holds enough loose objects or small packs (each snapshot adds one) to repack."""
        try:
            counts = (await self._git(["count-objects", "-v"])).text
        except GitFailed:
            return False
        figures = {}
        for line in counts.splitlines():
            name, _, value = line.partition(":")
            if value.strip().isdigit():
                figures[name.strip()] = int(value.strip())
        return figures.get("count", 0) >= LOOSE_OBJECTS_PACKED_FROM or figures.get("packs", 0) >= PACKS_MERGED_FROM

    async def _drop_old_snapshots(self, key: str, cutoff: float) -> int:
        """Rewrite the folder's chain without its snapshots older than `cutoff` (the newest always stays);
        trees — what records point at — are unchanged, so kept snapshots stay restorable."""
        log = await self._git(["log", "-z", "--format=%H %T %ct %s", self.ref(key)], ok=(0, 128))
        entries = [record.split(" ", 3) for record in log.records()]
        entries = [entry + [""] * (4 - len(entry)) for entry in entries if len(entry) >= 3]
        if len(entries) < 2:
            return 0
        keep = [entry for entry in entries if int(entry[2]) >= cutoff] or entries[:1]
        if len(keep) == len(entries):
            return 0
        parent: str | None = None
        for _commit, tree, stamp, subject in reversed(keep):
            env = self._env()
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{stamp} +0000"
            args = ["commit-tree", tree, "-m", subject or "checkpoint"]
            if parent is not None:
                args[2:2] = ["-p", parent]
            parent = (await run_git(args, env, cwd=self.path)).text
        assert parent is not None
        await self._git(["update-ref", self.ref(key), parent, entries[0][0]])
        return len(entries) - len(keep)
