"""@-mentions: finding them, listing and ranking the working folder's files, attaching, quoting a session."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from hermes_tui.core.mentions.attach import MAX_FILE_BYTES, MentionContext, expand_mentions
from hermes_tui.core.mentions.files import list_files, rank
from hermes_tui.core.mentions.sessions import quote_session, session_choices
from hermes_tui.core.mentions.tokens import find_mentions, mention_at
from hermes_tui.store.db import SessionDB

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src" / "gadget").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "build").mkdir()
    (root / ".git").mkdir()
    (root / "README.md").write_text("# Gadget\n\nThe gadget toggles.\n", encoding="utf-8")
    (root / "src" / "gadget" / "toggle.py").write_text("def toggle(x):\n    return not x\n", encoding="utf-8")
    (root / "src" / "main.py").write_text("print('hi')\n", encoding="utf-8")
    (root / "docs" / "notes.md").write_text("notes\n", encoding="utf-8")
    (root / "build" / "out.txt").write_text("built\n", encoding="utf-8")
    (root / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (root / ".gitignore").write_text("secret.log\n", encoding="utf-8")
    (root / "secret.log").write_text("ignored\n", encoding="utf-8")
    return root


def test_mentions_are_words_that_start_with_an_at_sign() -> None:
    found = find_mentions('see @src/a.py, mail me@example.com, @"my notes.txt" and @session:"Read README.md" @')
    assert [(m.kind, m.target) for m in found] == [
        ("path", "src/a.py,"),
        ("path", "my notes.txt"),
        ("session", "Read README.md"),
    ]
    assert found[0].loose_target == "src/a.py"
    typed = mention_at("look at @src/ga", len("look at @src/ga"))
    assert typed is not None and (typed.kind, typed.query, typed.start) == ("path", "src/ga", 8)
    assert mention_at("look at @src/ga now", 10) is None  # the cursor is inside the word
    session = mention_at("@session:read", 13)
    assert session is not None and (session.kind, session.query) == ("session", "read")


def test_the_listing_keeps_what_git_keeps_and_ranks_a_partial_name(project: Path) -> None:
    listing = list_files(project)
    assert set(listing.files) == {".gitignore", "README.md", "docs/notes.md", "src/gadget/toggle.py", "src/main.py"}
    assert listing.folders == ("docs/", "src/", "src/gadget/")  # no .git/, no build/, no ignored file
    assert rank(listing, "tog")[0] == "src/gadget/toggle.py"
    assert "src/gadget/toggle.py" in rank(listing, "sgtog")[:2]  # letters in order
    assert rank(listing, "src/") == ["src/gadget/", "src/main.py"]  # a folder: its own entries, folders first
    assert rank(listing, "")[:3] == ["docs/", "src/", ".gitignore"]
    assert rank(listing, "zzz") == []
    assert "secret.log" not in rank(listing, "secret")


async def test_a_mentioned_file_is_attached_in_a_block_after_the_text(project: Path) -> None:
    expansion = await expand_mentions("explain @README.md.", MentionContext(cwd=project))
    assert isinstance(expansion.content, str)
    assert expansion.content.startswith("explain @README.md.\n\n")
    assert '<file path="README.md">\n# Gadget\n\nThe gadget toggles.\n</file>' in expansion.content
    assert expansion.attached == ["README.md (3 lines)"] and expansion.notes == []
    again = await expand_mentions(expansion.content, MentionContext(cwd=project))  # /retry sends it again
    assert again.content == expansion.content
    untouched = await expand_mentions("ping @nobody about it", MentionContext(cwd=project))
    assert untouched.content == "ping @nobody about it" and untouched.notes == []


async def test_a_folder_lists_its_entries_and_a_long_file_is_cut(project: Path) -> None:
    (project / "big.txt").write_text("x" * (MAX_FILE_BYTES + 10), encoding="utf-8")
    expansion = await expand_mentions("@src/ and @big.txt", MentionContext(cwd=project))
    assert '<folder path="src/">\nsrc/gadget/\nsrc/main.py\n</folder>' in expansion.content
    assert "src/ (2 entries)" in expansion.attached
    assert '<file path="big.txt" note="the first 256 KB of 256 KB">' in expansion.content
    assert "big.txt (1 line, cut)" in expansion.attached


async def test_binary_outside_sensitive_and_escaping_files_are_refused_with_a_note(project: Path, tmp_path: Path):
    (project / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    (project / ".env").write_text("OPENAI_API_KEY=sk-secret\n", encoding="utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_text("private\n", encoding="utf-8")
    os.symlink(outside, project / "link.txt")
    text = f"@blob.bin @.env @link.txt @{outside}"
    expansion = await expand_mentions(text, MentionContext(cwd=project))
    assert isinstance(expansion.content, str)
    assert "private" not in expansion.content and "sk-secret" not in expansion.content
    assert expansion.attached == []
    assert len(expansion.notes) == 4 and all("\n" not in note for note in expansion.notes)
    assert "@blob.bin not attached: a binary file" in expansion.notes[0]
    assert "@.env not attached: an environment (.env) file" in expansion.notes[1]
    assert "@link.txt not attached: a symbolic link inside the working folder that points out" in expansion.notes[2]
    assert "outside the working folder" in expansion.notes[3]
    assert f"[{expansion.notes[0]}]" in expansion.content  # the model is told too


async def test_an_image_is_an_image_part_for_a_model_that_takes_images_else_a_note(project: Path) -> None:
    (project / "dot.png").write_bytes(PNG)
    seen = await expand_mentions("what is in @dot.png", MentionContext(cwd=project, vision=True))
    assert isinstance(seen.content, list)
    text, image = seen.content
    assert text["type"] == "text" and "[image attached: dot.png, image/png" in text["text"]
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert image == {"type": "image_url", "image_url": {"url": url}}
    blind = await expand_mentions("what is in @dot.png", MentionContext(cwd=project, vision=False))
    assert isinstance(blind.content, str) and blind.notes == ["@dot.png not attached: this model does not take images"]


async def test_a_session_mention_quotes_its_last_answer(tmp_path: Path, project: Path) -> None:
    db = await SessionDB.open(tmp_path / "state.db")
    try:
        await db.create_session("20261201_101010_abc123", source="tui")
        await db.set_session_title("20261201_101010_abc123", "Read README.md")
        await db.append_messages(
            "20261201_101010_abc123",
            [
                {"role": "user", "content": "read it"},
                {"role": "assistant", "content": "First answer."},
                {"role": "user", "content": "and?"},
                {"role": "assistant", "content": "The gadget toggles, says the README."},
            ],
        )
        choices = await session_choices(db, "readme")
        assert [(c.title, c.session_id) for c in choices] == [("Read README.md", "20261201_101010_abc123")]
        quote = await quote_session(db, "abc123")
        assert quote.block == (
            '<session-answer session="20261201_101010_abc123" title="Read README.md">\n'
            "The gadget toggles, says the README.\n</session-answer>"
        )
        context = MentionContext(cwd=project, db=db)
        expansion = await expand_mentions('as @session:"Read README.md" said', context)
        assert expansion.content == 'as @session:"Read README.md" said\n\n' + quote.block
        missing = await expand_mentions("@session:nothing-like-it", context)
        assert missing.notes and missing.notes[0].startswith("@session:nothing-like-it not quoted: no session matches")
    finally:
        await db.close()
