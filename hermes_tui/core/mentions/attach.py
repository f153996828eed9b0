"""A prompt's @-mentions turned into what the model reads: the text as typed, then one block per mention.

For `@path` the path is judged by the file tools' own policy (`tools.file_policy.assess_path`, as
read_file judges it) and only a path that needs no approval is used: inside the working folder,
not a key, credential, .env or shell file, not a symbolic link leading out. It is opened through
the same no-link walk (`tools.safe_open.open_file`) — a regular file with one name, never a FIFO
or a device. Then:

- a text file: its content in `<file path="…">…</file>` (the first `MAX_FILE_BYTES` of a longer
  one, said in the tag);
- an image (.png .jpg .jpeg .gif .webp, checked by its first bytes too): an image part (a data
  URL, at most `MAX_IMAGE_BYTES`) when the model takes images, else a note;
- a folder: its entries (the project's ignore rules respected) in `<folder path="…/">`;
- a binary file, one that is too large an image, or one the policy would ask about: a one-line
  note in the message, and the same line for the user.

`@session:REF` quotes that session's last answer (`sessions.quote_session`). A mention of
something that does not exist is left as text (it may be a handle, not a path). A block already
present (a prompt sent again by /retry) is not added twice. File work runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import base64
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.core.mentions.files import list_files, rank
from hermes_tui.core.mentions.sessions import quote_session
from hermes_tui.core.mentions.tokens import Mention, find_mentions, has_mentions
from hermes_tui.core.tools.file_policy import UnusablePath, assess_path, visible_path
from hermes_tui.core.tools.safe_open import open_file

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

MAX_FILE_BYTES = 256 * 1024
MAX_IMAGE_BYTES = 3 * 1024 * 1024  # 4 MB once base64-encoded: within every provider's per-image limit
MAX_FOLDER_ENTRIES = 200
SNIFF_BYTES = 8192
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
_BLOCK_STARTS = ('\n\n<file path="', '\n\n<folder path="', "\n\n[image attached: ", '\n\n<session-answer session="')
_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}


@dataclass(frozen=True)
class MentionContext:
    """Where mentions are looked up: the working folder, the home (its files are never attached), the
    session store for `@session:`, and whether the model takes images."""

    cwd: Path
    home: Path | None = None
    db: SessionDB | None = None
    vision: bool = True


@dataclass
class Expansion:
    """The message content for a prompt (`str`, or a list of parts when images are attached), what was
    attached ("README.md (3 lines)") and the notes for what was not."""

    content: str | list[dict[str, Any]]
    attached: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class _Found:
    block: str = ""
    image: dict[str, Any] | None = None
    attached: str = ""
    note: str = ""


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def _size(count: int) -> str:
    return f"{count / 1024:.0f} KB" if count >= 1024 else _plural(count, "byte")


def _image_type(name: str, head: bytes) -> str | None:
    media = IMAGE_TYPES.get(os.path.splitext(name)[1].lower())
    if media is None:
        return None
    if not any(head.startswith(magic) for magic in _MAGIC[media]):
        return None
    if media == "image/webp" and head[8:12] != b"WEBP":
        return None
    return media


def _read(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total < limit:
        chunk = os.read(fd, min(1 << 16, limit - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _text_block(shown: str, data: bytes, size: int) -> _Found:
    if b"\x00" in data[:SNIFF_BYTES]:
        return _Found(note=f"@{shown} not attached: a binary file ({_size(size)})")
    cut = size > len(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not (cut and exc.start >= len(data) - 3):  # only the cut may split a character
            return _Found(note=f"@{shown} not attached: not UTF-8 text (a binary file?)")
        text = data[: exc.start].decode("utf-8")
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    note = f' note="the first {_size(len(data))} of {_size(size)}"' if cut else ""
    body = text if text.endswith("\n") or not text else text + "\n"
    described = f"{shown} ({_plural(lines, 'line')}{', cut' if cut else ''})"
    return _Found(block=f'<file path="{shown}"{note}>\n{body}</file>', attached=described)


def _image(shown: str, fd: int, size: int, media: str, vision: bool) -> _Found:
    if not vision:
        return _Found(note=f"@{shown} not attached: this model does not take images")
    if size > MAX_IMAGE_BYTES:
        return _Found(note=f"@{shown} not attached: an image of {_size(size)} (at most {_size(MAX_IMAGE_BYTES)})")
    data = _read(fd, MAX_IMAGE_BYTES + 1)
    encoded = base64.b64encode(data).decode("ascii")
    part = {"type": "image_url", "image_url": {"url": f"data:{media};base64,{encoded}"}}
    return _Found(block=f"[image attached: {shown}, {media}, {_size(size)}]", image=part, attached=f"{shown} (image)")


def _folder(shown: str, path: Path) -> _Found:
    entries = rank(list_files(path, limit=MAX_FOLDER_ENTRIES * 5), "")
    listed = entries[:MAX_FOLDER_ENTRIES]
    more = f"\n… and {len(entries) - len(listed):,} more" if len(entries) > len(listed) else ""
    folder = shown.rstrip("/") + "/"
    body = "\n".join(folder + entry for entry in listed) + more  # as the working folder names them
    count = f"{len(listed):,} " + ("entry" if len(listed) == 1 else "entries")
    return _Found(block=f'<folder path="{folder}">\n{body}\n</folder>', attached=f"{folder} ({count})")


def _path_target(mention: Mention, context: MentionContext) -> _Found | None:
    """What `@path` adds, or None when nothing by that name exists (then it is just text)."""
    for raw in dict.fromkeys((mention.target, mention.loose_target)):
        if not raw:
            continue
        try:
            verdict = assess_path(raw, "read", cwd=context.cwd, home=context.home)
        except UnusablePath:
            return None
        if verdict.target.kind == "missing":
            continue
        shown = visible_path(raw)
        if verdict.reasons:
            return _Found(note=f"@{shown} not attached: {verdict.reasons[0]}")
        if verdict.target.kind == "folder":
            return _folder(shown, verdict.resolved)
        if verdict.target.kind != "file":
            return _Found(note=f"@{shown} not attached: it is not a regular file")
        return _open_and_read(shown, verdict.resolved, verdict.roots, context.vision)
    return None


def _open_and_read(shown: str, path: Path, roots: tuple[Path, ...], vision: bool) -> _Found:
    try:
        opened = open_file(path, roots)
    except OSError as exc:
        return _Found(note=f"@{shown} not attached: {exc.strerror or exc}")
    try:
        if opened.links > 1:
            return _Found(note=f"@{shown} not attached: the file has other names (a hard link)")
        head = os.pread(opened.fd, 16, 0)
        media = _image_type(path.name, head)
        if media is not None:
            return _image(shown, opened.fd, opened.size, media, vision)
        return _text_block(shown, _read(opened.fd, MAX_FILE_BYTES), opened.size)
    except OSError as exc:
        return _Found(note=f"@{shown} not attached: {exc.strerror or exc}")
    finally:
        os.close(opened.fd)


def _already_there(text: str, mention: Mention) -> bool:
    return any(
        marker in text
        for target in (mention.target, mention.loose_target)
        for marker in (
            f'<file path="{target}"',
            f'<folder path="{target.rstrip("/")}/"',
            f"[image attached: {target},",
        )
    )


def typed_part(text: str) -> str:
    """The prompt as typed, without the blocks an earlier expansion added (a prompt /retry sends again):
    only its own mentions count, never an "@" inside an attached file."""
    cut = len(text)
    for marker in _BLOCK_STARTS:
        index = text.find(marker)
        if index >= 0:
            cut = min(cut, index)
    return text[:cut]


def _files(text: str, mentions: list[Mention], context: MentionContext) -> list[_Found]:
    found: list[_Found] = []
    for mention in mentions:
        if not _already_there(text, mention):
            result = _path_target(mention, context)
            if result is not None:
                found.append(result)
    return found


async def expand_mentions(text: str, context: MentionContext) -> Expansion:
    """The message content for `text`, its @-mentions attached (see the module doc)."""
    typed = typed_part(text)
    if not has_mentions(typed):
        return Expansion(text)
    mentions = find_mentions(typed)
    paths = [m for m in mentions if m.kind == "path"]
    found = await asyncio.to_thread(_files, text, paths, context) if paths else []
    seen: set[str] = set()
    for mention in (m for m in mentions if m.kind == "session"):
        if mention.target in seen or f'<session-answer session="{mention.target}"' in text:
            continue
        seen.add(mention.target)
        if context.db is None:
            found.append(_Found(note=f"@session:{mention.target} not quoted: no session store is open"))
            continue
        quote = await quote_session(context.db, mention.target)
        if quote.session_id in seen or (quote.session_id and f'<session-answer session="{quote.session_id}"' in text):
            continue
        seen.add(quote.session_id)
        found.append(
            _Found(block=quote.block, note=quote.note, attached=f"@session:{mention.target}" * bool(quote.block))
        )
    blocks = [item.block for item in found if item.block]
    notes = [item.note for item in found if item.note]
    body = "\n\n".join([text, *blocks, *(f"[{note}]" for note in notes)])
    images = [item.image for item in found if item.image is not None]
    content: str | list[dict[str, Any]] = [{"type": "text", "text": body}, *images] if images else body
    return Expansion(content, [item.attached for item in found if item.attached], notes)
